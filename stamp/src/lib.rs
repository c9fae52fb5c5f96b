/*!
The provenance stamp that travels beside each committed PTX file.

The PTX in `kernels/ptx/` is produced by rust-cuda's `cuda_builder`, which needs LLVM 7 and
rust-cuda's git source. Neither is available where this repository is usually built, so the
PTX is committed, and this stamp records what it was built from: a SHA-256 over every input
file of the `kernels/` workspace, the SHA-256 of the PTX itself, the rust-cuda revision, the
toolchain and the libNVVM version.

Two programs use this crate: `kernels/builder` writes the stamp when it regenerates the PTX,
and the CPU tests recompute the hashes to prove that the committed PTX still belongs to the
committed sources. Both sides hash with [`kernel_sources_sha256`], so they cannot drift.
*/

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::Path;

/// Folders under `kernels/` that are outputs, not inputs, and are left out of the hash.
const EXCLUDED_DIRS: &[&str] = &["target", "ptx"];

/// Everything the builder knew about one PTX file when it wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    /// Kernel entry points the PTX defines, in source order.
    pub kernels: Vec<String>,
    /// Virtual architecture passed to libNVVM, e.g. `compute_75`.
    pub arch: String,
    /// [`kernel_sources_sha256`] of the `kernels/` workspace that produced the PTX.
    pub kernel_sources_sha256: String,
    /// SHA-256 of the PTX file's bytes.
    pub ptx_sha256: String,
    /// The rust-cuda git revision `cuda_std` and `cuda_builder` were built from.
    pub rust_cuda_rev: String,
    /// The rustup channel from `rust-toolchain.toml`.
    pub toolchain: String,
    /// `rustc -V` of that channel.
    pub rustc: String,
    /// `nvvmVersion()` of the libNVVM that compiled the module, as `major.minor`.
    pub libnvvm: String,
    /// `nvvmIRVersion()` of that libNVVM, as `major.minor`.
    pub nvvm_ir: String,
    /// The command that regenerates this PTX and this stamp.
    pub regenerate: String,
}

impl Stamp {
    /// Parses a stamp file.
    pub fn parse(text: &str) -> Result<Self, toml::de::Error> {
        toml::from_str(text)
    }

    /// Renders the stamp as the TOML the builder commits.
    pub fn render(&self) -> String {
        let body = toml::to_string(self).expect("a Stamp always serialises");
        format!("# Written by the PTX builder; edits are overwritten and fail the freshness test.\n{body}")
    }
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

/// SHA-256 over every file below `kernels_dir` except the `target/` and `ptx/` folders.
///
/// Files are taken in sorted order of their `/`-separated relative paths, and each one
/// contributes its path, its length and its bytes, so a rename or a moved byte changes
/// the hash. The manifest, the lock file (which pins the rust-cuda revision), the kernel
/// source and the builder (which sets the libNVVM options) are all inputs to the PTX,
/// and all are hashed.
pub fn kernel_sources_sha256(kernels_dir: &Path) -> std::io::Result<String> {
    let mut files = Vec::new();
    let walker = walkdir::WalkDir::new(kernels_dir).into_iter().filter_entry(|entry| {
        let top_level = entry.depth() == 1 && entry.file_type().is_dir();
        !(top_level && EXCLUDED_DIRS.iter().any(|dir| entry.file_name() == *dir))
    });
    for entry in walker {
        let entry = entry.map_err(std::io::Error::other)?;
        if entry.file_type().is_file() {
            let relative =
                entry.path().strip_prefix(kernels_dir).expect("walkdir yields paths below its root");
            let name: Vec<String> =
                relative.components().map(|part| part.as_os_str().to_string_lossy().into_owned()).collect();
            files.push((name.join("/"), entry.into_path()));
        }
    }
    files.sort();

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
            kernel_sources_sha256: "a".repeat(64),
            ptx_sha256: "b".repeat(64),
            rust_cuda_rev: "946c91f080770f30d42d7c706ac8185969274073".into(),
            toolchain: "nightly-2026-04-02".into(),
            rustc: "rustc 1.96.0-nightly".into(),
            libnvvm: "2.0".into(),
            nvvm_ir: "2.0".into(),
            regenerate: "cargo run".into(),
        }
    }

    #[test]
    fn render_then_parse_round_trips() {
        let stamp = sample();
        assert_eq!(Stamp::parse(&stamp.render()).unwrap(), stamp);
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
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::create_dir_all(dir.join("ptx")).unwrap();
        std::fs::create_dir_all(dir.join("target")).unwrap();
        std::fs::write(dir.join("Cargo.toml"), "[package]\n").unwrap();
        std::fs::write(dir.join("src/lib.rs"), "fn kernel() {}\n").unwrap();
        dir
    }

    #[test]
    fn source_hash_follows_sources_and_ignores_outputs() {
        let dir = scratch_tree("follows");
        let before = kernel_sources_sha256(&dir).unwrap();

        std::fs::write(dir.join("ptx/grayscale.ptx"), "output").unwrap();
        std::fs::write(dir.join("target/junk"), "build output").unwrap();
        assert_eq!(kernel_sources_sha256(&dir).unwrap(), before, "outputs must not count");

        std::fs::write(dir.join("src/lib.rs"), "fn kernel() { }\n").unwrap();
        assert_ne!(kernel_sources_sha256(&dir).unwrap(), before, "a source edit must count");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn source_hash_sees_a_rename() {
        let dir = scratch_tree("rename");
        let before = kernel_sources_sha256(&dir).unwrap();
        std::fs::rename(dir.join("src/lib.rs"), dir.join("src/main.rs")).unwrap();
        assert_ne!(kernel_sources_sha256(&dir).unwrap(), before);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
