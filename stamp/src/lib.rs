/*!
The provenance stamp that travels beside each committed PTX file.

The PTX in `kernels/ptx/` (and the example's, in `examples/reduce/ptx/`) is committed:
rust-cuda's `cuda_builder` needs LLVM 7 and rust-cuda's git source, which no package registry
carries. Each PTX file has a stamp beside it recording what it was built from: its input files
and a SHA-256 over them, the SHA-256 of the PTX itself, and the compiler's versions (for
cuda_builder: the rust-cuda revision, the nightly, libNVVM).

Two kinds of programs use this crate: the builders write the stamp when they regenerate the
PTX, and the CPU tests recompute the hashes to prove that the committed PTX still belongs to
the committed sources. Both hash with [`inputs_sha256`], so they cannot drift. A cuda_builder
builder (`kernels/builder`, `examples/reduce/kernels/builder`) fills in a [`CudaBuilderPtx`]
and calls [`CudaBuilderPtx::write`], which writes the PTX and its stamp.
*/

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::Path;

/// Inputs of the cuda_builder PTX, relative to the repository root: the GPU crate's
/// manifest, lock file (which pins rust-cuda) and sources, and the builder, which sets the
/// libNVVM options.
pub const CUDA_BUILDER_INPUTS: &[&str] =
    &["kernels/Cargo.toml", "kernels/Cargo.lock", "kernels/src", "kernels/builder"];

/// Inputs of the example user kernels' cuda_builder PTX (`examples/reduce/ptx/reduce.ptx`),
/// relative to the repository root: the example's GPU crate (a cuda_builder workspace of its
/// own, built like `kernels/`) and its builder.
pub const EXAMPLE_REDUCE_INPUTS: &[&str] = &[
    "examples/reduce/kernels/Cargo.toml",
    "examples/reduce/kernels/Cargo.lock",
    "examples/reduce/kernels/src",
    "examples/reduce/kernels/builder",
];

/// Inputs of the rustc-NVPTX PTX: its crate, and the loop and arithmetic it includes.
pub const NVPTX_INPUTS: &[&str] = &[
    "kernels/nvptx/Cargo.toml",
    "kernels/nvptx/Cargo.lock",
    "kernels/nvptx/src",
    "kernels/src/grid_stride.rs",
    "kernels/src/luma.rs",
];

/// Inputs of the nvcc PTX of the grayscale kernels.
pub const NVCC_INPUTS: &[&str] = &["kernels/cuda/grayscale.cu"];

/// Inputs of the nvcc PTX of the histogram kernel.
pub const HISTOGRAM_NVCC_INPUTS: &[&str] = &["kernels/cuda/histogram.cu"];

/// The nvcc modules `cargo xtask ptx nvcc` builds, one per CUDA C++ source: the PTX's name
/// under `kernels/ptx/` (without `.ptx`) and its inputs, the first of which is the source
/// nvcc compiles.
pub const NVCC_MODULES: &[(&str, &[&str])] =
    &[("grayscale-nvcc", NVCC_INPUTS), ("histogram-nvcc", HISTOGRAM_NVCC_INPUTS)];

/// Inputs of the nvcc PTX of the example's CUDA C++ twins (`examples/reduce/ptx/reduce-nvcc.ptx`:
/// `sum_of_squares`, `sum_of_squares_x4` and the Kernel Tuner entry `sum_of_squares_tuned`).
pub const EXAMPLE_REDUCE_NVCC_INPUTS: &[&str] = &["examples/reduce/cuda/reduce.cu"];

/// The example's nvcc modules that `cargo xtask ptx nvcc` builds besides [`NVCC_MODULES`], the
/// same way: the folder of the PTX (relative to the repository root), its name there (without
/// `.ptx`) and its inputs, the first of which is the source nvcc compiles.
pub const EXAMPLE_NVCC_MODULES: &[(&str, &str, &[&str])] =
    &[("examples/reduce/ptx", "reduce-nvcc", EXAMPLE_REDUCE_NVCC_INPUTS)];

/// The templates of `block-size new`, relative to the repository root: the root of every project
/// it writes, so the inputs of their stamps are relative to it.
pub const NEW_TEMPLATE_DIR: &str = "cli/templates/new";

/// Inputs of the nvcc PTX of the example kernel's CUDA C++ twin (`block-size new --cuda`),
/// relative to [`NEW_TEMPLATE_DIR`] as to a project's root.
pub const NEW_STENCIL3_NVCC_INPUTS: &[&str] = &["cuda/stencil3.cu"];

/// What rebuilds the twin's PTX and stamp in a project: the template's own script, which
/// `cargo xtask ptx nvcc` also runs to check that it writes the same bytes.
pub const NEW_NVCC_REGENERATE: &str = "scripts/build-cuda-twin";

/// The nvcc modules of `block-size new --cuda` that `cargo xtask ptx nvcc` builds besides
/// [`NVCC_MODULES`], the same way: the PTX's name under `NEW_TEMPLATE_DIR/ptx/` and its inputs.
pub const NEW_NVCC_MODULES: &[(&str, &[&str])] = &[("stencil3-nvcc", NEW_STENCIL3_NVCC_INPUTS)];

/// Everything a builder knew about one PTX file when it wrote it. Fields that only one
/// compiler has are optional and left out of the file when empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    /// Kernel entry points the PTX defines, in source order.
    pub kernels: Vec<String>,
    /// Virtual architecture the PTX targets, e.g. `compute_75`.
    pub arch: String,
    /// What compiled it: `cuda_builder` (rust-cuda with libNVVM), `nvcc`, `rustc-nvptx`.
    pub compiler: String,
    /// Files and folders, relative to the repository root, that the PTX was built from.
    pub inputs: Vec<String>,
    /// [`inputs_sha256`] of those inputs.
    pub inputs_sha256: String,
    /// SHA-256 of the PTX file's bytes.
    pub ptx_sha256: String,
    /// The rustup channel from `rust-toolchain.toml`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolchain: Option<String>,
    /// `rustc -V` of that channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rustc: Option<String>,
    /// The rust-cuda git revision `cuda_std` and `cuda_builder` were built from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rust_cuda_rev: Option<String>,
    /// `nvvmVersion()` of the libNVVM that compiled the module, as `major.minor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub libnvvm: Option<String>,
    /// `nvvmIRVersion()` of that libNVVM, as `major.minor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvvm_ir: Option<String>,
    /// The CUDA release that libNVVM came from and the package that carried it, e.g.
    /// `11.8.89 (PyPI nvidia-cuda-nvcc-cu11)`: the release sets the PTX ISA `.version` it writes,
    /// and so the oldest driver that loads the PTX.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub libnvvm_release: Option<String>,
    /// `nvcc --version`'s release line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvcc: Option<String>,
    /// Compiler flags beyond the builder's defaults, where a variant adds some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<String>,
    /// The command that regenerates this PTX and this stamp.
    pub regenerate: String,
}

impl Stamp {
    /// Parses a stamp file.
    pub fn parse(text: &str) -> Result<Self, toml::de::Error> {
        toml::from_str(text)
    }

    /// Renders the stamp as the TOML the builder commits, which [`Stamp::parse`] reads back as
    /// this stamp.
    pub fn render(&self) -> String {
        let body = toml::to_string(self).expect("a Stamp always serialises");
        // The comment is one line whatever the command holds: a line break in it would end
        // the comment and make the rest of it TOML (found by fuzz/ stamp).
        let command: String = self
            .regenerate
            .chars()
            .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() })
            .collect();
        format!("# Written by {command}; edits are overwritten and fail the freshness test.\n{body}")
    }
}

/// The git source cargo records for rust-cuda's crates in a lock file.
const RUST_CUDA_GIT: &str = "git+https://github.com/Rust-GPU/rust-cuda";

/// The rust-cuda revision a `Cargo.lock` pins: the commit after `#` in the first
/// `source = "git+https://github.com/Rust-GPU/rust-cuda..."` line.
pub fn rust_cuda_rev(cargo_lock: &str) -> Option<String> {
    cargo_lock
        .lines()
        .filter_map(|line| line.strip_prefix("source = \""))
        .find(|source| source.starts_with(RUST_CUDA_GIT))
        .and_then(|source| source.trim_end_matches('"').rsplit_once('#'))
        .map(|(_, rev)| rev.to_string())
}

/// The `channel = "..."` of a `rust-toolchain.toml`.
pub fn toolchain_channel(rust_toolchain_toml: &str) -> Option<String> {
    rust_toolchain_toml
        .lines()
        .filter_map(|line| line.trim().strip_prefix("channel"))
        .filter_map(|rest| rest.split('"').nth(1))
        .next()
        .map(str::to_string)
}

/// One PTX module that a cuda_builder build script compiled, with what the builder knows about
/// the build: everything [`CudaBuilderPtx::write`] needs to write the module and its stamp.
///
/// The tool versions come from the build script, which links cuda_builder
/// (`cuda_builder::nvvm_version()`, `ir_version()`) and reads `rustc -V` and libNVVM's
/// `RELEASE` file; the rust-cuda revision and the nightly are read from the crate's
/// `Cargo.lock` and `rust-toolchain.toml`.
#[derive(Debug, Clone, Copy)]
pub struct CudaBuilderPtx<'a> {
    /// The repository root: `crate_dir`, `inputs` and `ptx_file` are relative to it.
    pub repo_dir: &'a Path,
    /// The cuda_std crate's folder (a workspace of its own): its `Cargo.lock` names the
    /// rust-cuda revision, its `rust-toolchain.toml` the nightly cargo built with.
    pub crate_dir: &'a str,
    /// The build's inputs, hashed into the stamp, e.g. [`CUDA_BUILDER_INPUTS`].
    pub inputs: &'a [&'a str],
    /// Where the PTX goes, e.g. `kernels/ptx/grayscale.ptx`; the stamp goes beside it, with
    /// `.stamp.toml` for `.ptx`.
    pub ptx_file: &'a str,
    /// The PTX text cuda_builder wrote.
    pub ptx: &'a str,
    /// The virtual architecture it targets, e.g. `compute_75`.
    pub arch: &'a str,
    /// `rustc -V` of the toolchain that compiled the crate.
    pub rustc: &'a str,
    /// libNVVM's `nvvmVersion()`, as `major.minor`.
    pub libnvvm: &'a str,
    /// libNVVM's `nvvmIRVersion()`, as `major.minor`.
    pub nvvm_ir: &'a str,
    /// The CUDA release libNVVM came from (see [`Stamp::libnvvm_release`]).
    pub libnvvm_release: &'a str,
    /// Compiler flags beyond cuda_builder's defaults, if the build adds any.
    pub flags: Option<&'a str>,
    /// The command that regenerates the module, e.g. `scripts/regenerate-ptx`.
    pub regenerate: &'a str,
}

impl CudaBuilderPtx<'_> {
    /// The stamp of this module, reading the rust-cuda revision, the nightly and the inputs
    /// from the repository.
    pub fn stamp(&self) -> Result<Stamp, String> {
        let crate_dir = self.repo_dir.join(self.crate_dir);
        let rust_cuda_rev = rust_cuda_rev(&read(&crate_dir.join("Cargo.lock"))?)
            .ok_or_else(|| format!("{}/Cargo.lock names no rust-cuda git source", self.crate_dir))?;
        let toolchain = toolchain_channel(&read(&crate_dir.join("rust-toolchain.toml"))?)
            .ok_or_else(|| format!("{}/rust-toolchain.toml names no channel", self.crate_dir))?;
        Ok(Stamp {
            kernels: entry_names(self.ptx),
            arch: self.arch.into(),
            compiler: "cuda_builder".into(),
            inputs: self.inputs.iter().map(|input| input.to_string()).collect(),
            inputs_sha256: inputs_sha256(self.repo_dir, self.inputs).map_err(|e| e.to_string())?,
            ptx_sha256: sha256_hex(self.ptx.as_bytes()),
            toolchain: Some(toolchain),
            rustc: Some(self.rustc.into()),
            rust_cuda_rev: Some(rust_cuda_rev),
            libnvvm: Some(self.libnvvm.into()),
            nvvm_ir: Some(self.nvvm_ir.into()),
            libnvvm_release: Some(self.libnvvm_release.into()),
            nvcc: None,
            flags: self.flags.map(str::to_string),
            regenerate: self.regenerate.into(),
        })
    }

    /// Writes the PTX to `ptx_file` and its [`stamp`](Self::stamp) beside it, creating the
    /// folder if needed, and returns the stamp. Deterministic: the same inputs write the same
    /// bytes.
    pub fn write(&self) -> Result<Stamp, String> {
        let stamp = self.stamp()?;
        let ptx_path = self.repo_dir.join(self.ptx_file);
        let stamp_path = ptx_path.with_extension("stamp.toml");
        if let Some(dir) = ptx_path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(&ptx_path, self.ptx).map_err(|e| format!("{}: {e}", ptx_path.display()))?;
        std::fs::write(&stamp_path, stamp.render()).map_err(|e| format!("{}: {e}", stamp_path.display()))?;
        Ok(stamp)
    }
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The names of the kernels `ptx` defines (its `.entry` directives), in the PTX's order.
pub fn entry_names(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|line| line.split(".entry ").nth(1))
        .map(|rest| rest.trim_end_matches('(').trim().to_string())
        .collect()
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest {
        write!(hex, "{byte:02x}").expect("writing to a String cannot fail");
    }
    hex
}

/// SHA-256 over `inputs` (files, or folders taken whole except any `target/` inside),
/// relative to `root`.
///
/// Files are taken in sorted order of their `/`-separated paths, and each contributes its
/// path, its length and its bytes, so a rename or a moved byte changes the hash. A missing
/// input is an error, not an empty contribution.
pub fn inputs_sha256(root: &Path, inputs: &[impl AsRef<str>]) -> std::io::Result<String> {
    let mut files = Vec::new();
    for input in inputs {
        let top = root.join(input.as_ref());
        if !top.exists() {
            return Err(std::io::Error::new(std::io::ErrorKind::NotFound, format!("{}", top.display())));
        }
        let walker = walkdir::WalkDir::new(&top)
            .into_iter()
            .filter_entry(|entry| !(entry.file_type().is_dir() && entry.file_name() == "target"));
        for entry in walker {
            let entry = entry.map_err(std::io::Error::other)?;
            if entry.file_type().is_file() {
                let relative = entry.path().strip_prefix(root).expect("walkdir yields paths below its root");
                let name: Vec<String> = relative
                    .components()
                    .map(|part| part.as_os_str().to_string_lossy().into_owned())
                    .collect();
                files.push((name.join("/"), entry.into_path()));
            }
        }
    }
    files.sort();
    files.dedup();

    let mut hasher = Sha256::new();
    for (name, path) in &files {
        let bytes = std::fs::read(path)?;
        hasher.update(name.as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    Ok(sha256_hex(&hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Stamp {
        Stamp {
            kernels: vec!["grayscale".into()],
            arch: "compute_75".into(),
            compiler: "cuda_builder".into(),
            inputs: CUDA_BUILDER_INPUTS.iter().map(|input| input.to_string()).collect(),
            inputs_sha256: "a".repeat(64),
            ptx_sha256: "b".repeat(64),
            toolchain: Some("nightly-2026-04-02".into()),
            rustc: Some("rustc 1.96.0-nightly".into()),
            rust_cuda_rev: Some("946c91f080770f30d42d7c706ac8185969274073".into()),
            libnvvm: Some("1.9".into()),
            nvvm_ir: Some("1.9".into()),
            libnvvm_release: Some("11.8.89 (PyPI nvidia-cuda-nvcc-cu11)".into()),
            nvcc: None,
            flags: None,
            regenerate: "scripts/regenerate-ptx".into(),
        }
    }

    #[test]
    fn render_then_parse_round_trips() {
        let stamp = sample();
        assert_eq!(Stamp::parse(&stamp.render()).unwrap(), stamp);
        // (The libNVVM release names its wheel, nvidia-cuda-nvcc-cu11: look for the key.)
        assert!(
            !stamp.render().lines().any(|line| line.starts_with("nvcc") || line.starts_with("flags")),
            "empty optional fields are left out"
        );
    }

    #[test]
    fn a_command_with_a_line_break_renders_a_stamp_that_reads_back() {
        let stamp = Stamp { regenerate: "a\nb = 1\r".into(), ..sample() };
        assert_eq!(Stamp::parse(&stamp.render()).unwrap(), stamp);
        assert!(stamp.render().starts_with("# Written by a\\nb = 1\\r; edits"));
    }

    #[test]
    fn parse_rejects_a_stamp_with_a_missing_field() {
        let text = sample().render().replace("ptx_sha256", "ptx_sha");
        assert!(Stamp::parse(&text).is_err());
    }

    #[test]
    fn sha256_of_empty_input_is_the_published_value() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    fn scratch_tree(tag: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("ptx-stamp-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("k/src")).unwrap();
        std::fs::create_dir_all(dir.join("k/ptx")).unwrap();
        std::fs::create_dir_all(dir.join("k/src/target")).unwrap();
        std::fs::write(dir.join("k/Cargo.toml"), "[package]\n").unwrap();
        std::fs::write(dir.join("k/src/lib.rs"), "fn kernel() {}\n").unwrap();
        dir
    }

    const INPUTS: &[&str] = &["k/Cargo.toml", "k/src"];

    #[test]
    fn hash_follows_the_inputs_and_nothing_else() {
        let dir = scratch_tree("follows");
        let before = inputs_sha256(&dir, INPUTS).unwrap();

        std::fs::write(dir.join("k/ptx/grayscale.ptx"), "output").unwrap();
        std::fs::write(dir.join("k/src/target/junk"), "build output").unwrap();
        assert_eq!(inputs_sha256(&dir, INPUTS).unwrap(), before, "outputs must not count");

        std::fs::write(dir.join("k/src/lib.rs"), "fn kernel() { }\n").unwrap();
        assert_ne!(inputs_sha256(&dir, INPUTS).unwrap(), before, "a source edit must count");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn hash_sees_a_rename_and_a_new_file() {
        let dir = scratch_tree("rename");
        let before = inputs_sha256(&dir, INPUTS).unwrap();
        std::fs::rename(dir.join("k/src/lib.rs"), dir.join("k/src/main.rs")).unwrap();
        let renamed = inputs_sha256(&dir, INPUTS).unwrap();
        assert_ne!(renamed, before);
        std::fs::write(dir.join("k/src/extra.rs"), "").unwrap();
        assert_ne!(inputs_sha256(&dir, INPUTS).unwrap(), renamed);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn rust_cuda_rev_and_toolchain_channel_read_what_cargo_and_rustup_wrote() {
        let lock = "[[package]]\nname = \"serde\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n\
                    [[package]]\nname = \"cuda_std\"\nversion = \"0.3.0\"\n\
                    source = \"git+https://github.com/Rust-GPU/rust-cuda?rev=946c91f#946c91f080770f30d42d7c706ac8185969274073\"\n";
        assert_eq!(rust_cuda_rev(lock).as_deref(), Some("946c91f080770f30d42d7c706ac8185969274073"));
        assert_eq!(rust_cuda_rev("[[package]]\nname = \"serde\"\n"), None);
        let toolchain = "# comment\n[toolchain]\nchannel = \"nightly-2026-04-02\"\nprofile = \"minimal\"\n";
        assert_eq!(toolchain_channel(toolchain).as_deref(), Some("nightly-2026-04-02"));
        assert_eq!(toolchain_channel("[toolchain]\n"), None);
    }

    #[test]
    fn a_cuda_builder_module_writes_its_ptx_and_the_stamp_a_builder_always_wrote() {
        let dir = scratch_tree("cuda-builder");
        std::fs::write(
            dir.join("k/Cargo.lock"),
            "source = \"git+https://github.com/Rust-GPU/rust-cuda?rev=946c91f#946c91f080770f30d42d7c706ac8185969274073\"\n",
        )
        .unwrap();
        std::fs::write(dir.join("k/rust-toolchain.toml"), "[toolchain]\nchannel = \"nightly-2026-04-02\"\n")
            .unwrap();
        let ptx = ".version 7.8\n.target sm_75\n.visible .entry grayscale(\n)\n{\n}\n.visible .entry histogram(\n)\n{\n}\n";
        let module = CudaBuilderPtx {
            repo_dir: &dir,
            crate_dir: "k",
            inputs: INPUTS,
            ptx_file: "k/ptx/out/grayscale.ptx",
            ptx,
            arch: "compute_75",
            rustc: "rustc 1.96.0-nightly",
            libnvvm: "1.9",
            nvvm_ir: "1.9",
            libnvvm_release: "11.8.89 (PyPI nvidia-cuda-nvcc-cu11)",
            flags: None,
            regenerate: "scripts/regenerate-ptx",
        };
        let stamp = module.write().unwrap();
        // The stamp the builders wrote field by field before this type existed.
        let expected = Stamp {
            kernels: vec!["grayscale".into(), "histogram".into()],
            inputs: INPUTS.iter().map(|input| input.to_string()).collect(),
            inputs_sha256: inputs_sha256(&dir, INPUTS).unwrap(),
            ptx_sha256: sha256_hex(ptx.as_bytes()),
            ..sample()
        };
        assert_eq!(stamp, expected);
        assert_eq!(std::fs::read_to_string(dir.join("k/ptx/out/grayscale.ptx")).unwrap(), ptx);
        let written = std::fs::read_to_string(dir.join("k/ptx/out/grayscale.stamp.toml")).unwrap();
        assert_eq!(written, expected.render());
        assert!(
            written.starts_with("# Written by scripts/regenerate-ptx; edits are overwritten"),
            "{written}"
        );
        assert!(!written.contains("flags"), "{written}");

        let flagged = CudaBuilderPtx { flags: Some("-Zmir-enable-passes=-JumpThreading"), ..module };
        assert_eq!(flagged.stamp().unwrap().flags.as_deref(), Some("-Zmir-enable-passes=-JumpThreading"));
        std::fs::remove_file(dir.join("k/Cargo.lock")).unwrap();
        assert!(module.stamp().unwrap_err().contains("k/Cargo.lock"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_input_is_an_error() {
        let dir = scratch_tree("missing");
        assert!(inputs_sha256(&dir, &["k/Cargo.lock"]).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
