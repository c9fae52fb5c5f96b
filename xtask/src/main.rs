//! `cargo xtask ptx <nvptx|nvptx-fma|nvcc> [--check]`: builds the PTX files that need no LLVM 7
//! and writes each with its stamp into `kernels/ptx/` (the twin of `block-size new --cuda` into
//! `cli/templates/new/ptx/`); with `--check`, builds them into a scratch folder instead and fails
//! unless each equals the committed file byte for byte.
//!
//! - `nvptx`: `kernels/nvptx` through rustc's own NVPTX backend (the pinned nightly's
//!   `nvptx64-nvidia-cuda` target), `-C target-cpu=sm_75`.
//! - `nvptx-fma`: the same with `-C llvm-args=--fp-contract=fast`, the option that lets the
//!   backend fuse multiply-adds as nvcc does.
//! - `nvcc`: every CUDA C++ source of `ptx_stamp::NVCC_MODULES` (`kernels/cuda/grayscale.cu`
//!   to `grayscale-nvcc.ptx`, `kernels/cuda/histogram.cu` to `histogram-nvcc.ptx`), each through
//!   `nvcc -O3 -arch=sm_75 -ptx` into a module and a stamp of its own; nvcc is `$NVCC`,
//!   else the CUDA 11.8 nvcc (11.8.89) that `scripts/setup-nvcc-11.8` unpacks from Debian
//!   bookworm non-free `nvidia-cuda-toolkit` into `.cuda-nvcc/` (its `bin/nvcc` passes the
//!   unpacked g++-11 as `-ccbin`), else the first on `PATH`. CUDA 11.8 writes PTX ISA 7.8,
//!   which R520 and newer drivers load. Also `ptx_stamp::EXAMPLE_NVCC_MODULES`, the example's
//!   CUDA C++ twins (`examples/reduce/cuda/reduce.cu` to `examples/reduce/ptx/reduce-nvcc.ptx`),
//!   and `ptx_stamp::NEW_NVCC_MODULES`, the CUDA C++ twin
//!   that `block-size new --cuda` writes (`cli/templates/new/cuda/stencil3.cu` to
//!   `cli/templates/new/ptx/stencil3-nvcc.ptx`, its stamp's inputs relative to the template
//!   as to a project's root), and then the template's `scripts/build-cuda-twin` in a scratch
//!   project, which must write the same PTX and stamp byte for byte.
//!
//! The cuda_builder PTX needs LLVM 7: `scripts/regenerate-ptx`.
//!
//! `cargo xtask public-items [--list] [--max N] [--require-docs] [--face FILE] [--target-dir DIR]`: the runner library's public
//! items by kind, from its rustdoc JSON; [`public_items`] says what counts.

mod face;
mod public_items;

use anyhow::{Context as _, Result, bail, ensure};
use ptx_stamp::{
    EXAMPLE_NVCC_MODULES, NEW_NVCC_MODULES, NEW_NVCC_REGENERATE, NEW_TEMPLATE_DIR, NVCC_MODULES,
    NVPTX_INPUTS, Stamp, inputs_sha256, sha256_hex,
};
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    if let Err(error) = run() {
        eprintln!("Error: {error:#}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask/ is in the repository root");
    let (which, check) = match args.as_slice() {
        ["ptx", which] => (*which, false),
        ["ptx", which, "--check"] => (*which, true),
        ["public-items", options @ ..] => {
            let options = public_items::Options::parse(options)?;
            let census = public_items::run(repo, &options)?;
            return match &options.face {
                Some(page) => face::check_page(repo, &census, page),
                None => Ok(()),
            };
        }
        _ => bail!("usage: cargo xtask ptx <nvptx|nvptx-fma|nvcc> [--check], or {}", public_items::USAGE),
    };
    let scratch = repo.join("target/xtask");
    std::fs::create_dir_all(&scratch)?;
    // Each build: the folder of its committed PTX (relative to the repository), its name there,
    // the fresh PTX and its stamp.
    let builds: Vec<(String, String, PathBuf, Stamp)> = match which {
        "nvptx" => vec![(
            "kernels/ptx".into(),
            "grayscale-nvptx".into(),
            scratch.join("grayscale-nvptx.ptx"),
            build_nvptx(repo, &scratch, None)?,
        )],
        "nvptx-fma" => vec![(
            "kernels/ptx".into(),
            "grayscale-nvptx-fma".into(),
            scratch.join("grayscale-nvptx-fma.ptx"),
            build_nvptx(repo, &scratch, Some(FMA_FLAG))?,
        )],
        "nvcc" => {
            // Ours, relative to the repository; the template's, relative to it as to a project.
            let template = repo.join(NEW_TEMPLATE_DIR);
            let ours = NVCC_MODULES
                .iter()
                .map(|&(name, inputs)| ("kernels/ptx".into(), repo, name, inputs, "cargo xtask ptx nvcc"));
            let example = EXAMPLE_NVCC_MODULES.iter().map(|&(folder, name, inputs)| {
                (folder.to_string(), repo, name, inputs, "cargo xtask ptx nvcc")
            });
            let new = NEW_NVCC_MODULES.iter().map(|&(name, inputs)| {
                (format!("{NEW_TEMPLATE_DIR}/ptx"), template.as_path(), name, inputs, NEW_NVCC_REGENERATE)
            });
            ours.chain(example)
                .chain(new)
                .map(|(folder, root, name, inputs, regenerate)| {
                    let out = scratch.join(format!("{name}.ptx"));
                    let stamp = build_nvcc(repo, root, inputs, &out, regenerate)?;
                    Ok((folder, name.to_string(), out, stamp))
                })
                .collect::<Result<_>>()?
        }
        other => bail!("unknown PTX `{other}`: nvptx, nvptx-fma or nvcc"),
    };
    for (folder, name, ptx_path, stamp) in builds {
        write_or_check(repo, which, &folder, &name, &ptx_path, stamp, check)?;
    }
    if which == "nvcc" {
        check_new_twin_script(repo, &scratch)?;
    }
    Ok(())
}

/// Stamps the fresh build of `<folder>/<name>.ptx` at `ptx_path` and writes both, or with
/// `check` compares them with the committed files.
fn write_or_check(
    repo: &Path,
    which: &str,
    folder: &str,
    name: &str,
    ptx_path: &Path,
    stamp: Stamp,
    check: bool,
) -> Result<()> {
    let ptx = std::fs::read_to_string(ptx_path).with_context(|| ptx_path.display().to_string())?;
    let kernels = ptx_stamp::entry_names(&ptx);
    let stamp = Stamp { ptx_sha256: sha256_hex(ptx.as_bytes()), kernels, ..stamp };
    let committed_ptx = repo.join(format!("{folder}/{name}.ptx"));
    let committed_stamp = repo.join(format!("{folder}/{name}.stamp.toml"));
    if check {
        let same_ptx = std::fs::read_to_string(&committed_ptx).ok().as_deref() == Some(ptx.as_str());
        let same_stamp = std::fs::read_to_string(&committed_stamp).ok() == Some(stamp.render());
        ensure!(
            same_ptx && same_stamp,
            "{folder}/{name}.{} differs from a fresh build: run `cargo xtask ptx {which}` and commit",
            if same_ptx { "stamp.toml" } else { "ptx" }
        );
        println!("{folder}/{name}.ptx and its stamp match a fresh build");
    } else {
        std::fs::write(&committed_ptx, &ptx)?;
        std::fs::write(&committed_stamp, stamp.render())?;
        println!("wrote {folder}/{name}.ptx (sha256 {})", stamp.ptx_sha256);
    }
    Ok(())
}

fn output(command: &mut Command) -> Result<String> {
    let shown = format!("{command:?}");
    let output = command.output().with_context(|| format!("running {shown}"))?;
    ensure!(output.status.success(), "{shown} failed:\n{}", String::from_utf8_lossy(&output.stderr));
    Ok(String::from_utf8(output.stdout)?)
}

fn toolchain(repo: &Path) -> Result<String> {
    let text = std::fs::read_to_string(repo.join("rust-toolchain.toml"))?;
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("channel"))
        .find_map(|rest| rest.split('"').nth(1).map(str::to_string))
        .context("rust-toolchain.toml names no channel")
}

/// LLVM's floating-point contraction, which rustc leaves off: with it, the NVPTX backend fuses
/// each multiply and add into an FMA, as nvcc and libNVVM do by default.
const FMA_FLAG: &str = "-C llvm-args=--fp-contract=fast";

fn build_nvptx(repo: &Path, scratch: &Path, flags: Option<&str>) -> Result<Stamp> {
    let name = if flags.is_some() { "grayscale-nvptx-fma" } else { "grayscale-nvptx" };
    let out = scratch.join(format!("{name}.ptx"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    output(
        Command::new(&cargo)
            .current_dir(repo.join("kernels/nvptx"))
            .args([
                "rustc",
                "--release",
                "--locked",
                "--quiet",
                "--target",
                "nvptx64-nvidia-cuda",
                "--target-dir",
            ])
            .arg(scratch.join(format!("{name}-target")))
            .args(["--", "-C", "target-cpu=sm_75"])
            .args(flags.map(|flags| flags.split(' ').collect::<Vec<_>>()).unwrap_or_default())
            .arg(format!("--emit=asm={}", out.display())),
    )?;
    let rustc = output(Command::new("rustc").current_dir(repo).arg("-V"))?;
    Ok(Stamp {
        kernels: Vec::new(),
        arch: "sm_75".into(),
        compiler: "rustc-nvptx".into(),
        inputs: NVPTX_INPUTS.iter().map(|input| input.to_string()).collect(),
        inputs_sha256: inputs_sha256(repo, NVPTX_INPUTS)?,
        ptx_sha256: String::new(),
        toolchain: Some(toolchain(repo)?),
        rustc: Some(rustc.trim().to_string()),
        rust_cuda_rev: None,
        libnvvm: None,
        nvvm_ir: None,
        libnvvm_release: None,
        nvcc: None,
        flags: flags.map(str::to_string),
        regenerate: format!("cargo xtask ptx {}", name.trim_start_matches("grayscale-")),
    })
}

/// `$NVCC`, else `.cuda-nvcc/bin/nvcc` (nvcc 11.8 with its host compiler, from
/// `scripts/setup-nvcc-11.8`), else `nvcc` on `PATH`.
fn nvcc(repo: &Path) -> PathBuf {
    if let Some(path) = std::env::var_os("NVCC") {
        return path.into();
    }
    let unpacked = repo.join(".cuda-nvcc/bin/nvcc");
    if unpacked.is_file() { unpacked } else { PathBuf::from("nvcc") }
}

/// `nvcc -O3 -arch=sm_75 -ptx <inputs[0]> -o <out>` in `root`, the folder the inputs are
/// relative to (the repository's, or the template's for a project's); the stamp records `inputs`,
/// `nvcc --version`'s release line (`Cuda compilation tools, release 11.8, V11.8.89`), the
/// release that sets the PTX ISA `.version` the file says, and `regenerate`.
fn build_nvcc(repo: &Path, root: &Path, inputs: &[&str], out: &Path, regenerate: &str) -> Result<Stamp> {
    let nvcc = nvcc(repo);
    let release = nvcc_release(&nvcc)?;
    output(
        Command::new(&nvcc).current_dir(root).args(["-O3", "-arch=sm_75", "-ptx", inputs[0], "-o"]).arg(out),
    )?;
    Ok(Stamp {
        kernels: Vec::new(),
        arch: "compute_75".into(),
        compiler: "nvcc".into(),
        inputs: inputs.iter().map(|input| input.to_string()).collect(),
        inputs_sha256: inputs_sha256(root, inputs)?,
        ptx_sha256: String::new(),
        toolchain: None,
        rustc: None,
        rust_cuda_rev: None,
        libnvvm: None,
        nvvm_ir: None,
        libnvvm_release: None,
        nvcc: Some(release),
        flags: None,
        regenerate: regenerate.into(),
    })
}

/// `nvcc --version`'s release line.
fn nvcc_release(nvcc: &Path) -> Result<String> {
    let version = output(Command::new(nvcc).arg("--version"))?;
    Ok(version
        .lines()
        .find(|line| line.contains("release"))
        .context("nvcc --version printed no release line")?
        .trim()
        .to_string())
}

/// Runs the template's `scripts/build-cuda-twin` with this nvcc in a scratch project holding
/// the template's `cuda/` and `scripts/`, and fails unless it writes the committed twin PTX and
/// stamps byte for byte: the script is how a project rebuilds them, and must agree with the
/// stamp code.
fn check_new_twin_script(repo: &Path, scratch: &Path) -> Result<()> {
    let template = repo.join(NEW_TEMPLATE_DIR);
    let project = scratch.join("new-cuda-twin");
    if project.exists() {
        std::fs::remove_dir_all(&project)?;
    }
    for folder in ["cuda", "scripts"] {
        std::fs::create_dir_all(project.join(folder))?;
        for entry in std::fs::read_dir(template.join(folder))? {
            let entry = entry?;
            std::fs::copy(entry.path(), project.join(folder).join(entry.file_name()))?;
        }
    }
    let nvcc = nvcc(repo);
    // Resolved: a relative $NVCC means nothing in the scratch project.
    let nvcc = if nvcc.components().count() > 1 { std::fs::canonicalize(&nvcc)? } else { nvcc };
    output(Command::new("bash").arg(NEW_NVCC_REGENERATE).current_dir(&project).env("NVCC", &nvcc))?;
    for (name, _) in NEW_NVCC_MODULES {
        for file in [format!("{name}.ptx"), format!("{name}.stamp.toml")] {
            let written = std::fs::read(project.join("ptx").join(&file))?;
            let committed = std::fs::read(template.join("ptx").join(&file))?;
            ensure!(
                written == committed,
                "{NEW_TEMPLATE_DIR}/{NEW_NVCC_REGENERATE} writes another ptx/{file} than `cargo xtask ptx nvcc` (see {})",
                project.display()
            );
        }
    }
    println!("{NEW_TEMPLATE_DIR}/{NEW_NVCC_REGENERATE} writes the same PTX and stamp");
    std::fs::remove_dir_all(&project)?;
    Ok(())
}
