//! Writes the PTX that `build.rs` compiled into `examples/reduce/ptx/`, with its provenance
//! stamp.
//!
//! Deterministic: on an unchanged tree it rewrites the same bytes, so `git status` stays clean.

use ptx_stamp::{EXAMPLE_REDUCE_INPUTS, Stamp, inputs_sha256, sha256_hex};
use std::path::Path;

const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/reduce.ptx"));
const RUST_CUDA_GIT: &str = "git+https://github.com/Rust-GPU/rust-cuda";

fn main() {
    if let Err(message) = run() {
        eprintln!("Error: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let kernels_dir = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let example_dir = kernels_dir.parent().unwrap();
    let repo_dir = example_dir.parent().unwrap().parent().unwrap();

    let lock = read(&kernels_dir.join("Cargo.lock"))?;
    let rust_cuda_rev = lock
        .lines()
        .filter_map(|line| line.strip_prefix("source = \""))
        .find(|source| source.starts_with(RUST_CUDA_GIT))
        .and_then(|source| source.trim_end_matches('"').rsplit_once('#'))
        .map(|(_, rev)| rev.to_string())
        .ok_or("examples/reduce/kernels/Cargo.lock names no rust-cuda git source")?;

    // The toolchain cargo used here: this crate's own rust-toolchain.toml.
    let toolchain_file = read(&kernels_dir.join("rust-toolchain.toml"))?;
    let toolchain = toolchain_file
        .lines()
        .filter_map(|line| line.trim().strip_prefix("channel"))
        .filter_map(|rest| rest.split('"').nth(1))
        .next()
        .ok_or("examples/reduce/kernels/rust-toolchain.toml names no channel")?
        .to_string();

    let kernels = PTX
        .lines()
        .filter_map(|line| line.split(".entry ").nth(1))
        .map(|rest| rest.trim_end_matches('(').trim().to_string())
        .collect();

    let stamp = Stamp {
        kernels,
        arch: "compute_75".into(),
        compiler: "cuda_builder".into(),
        inputs: EXAMPLE_REDUCE_INPUTS.iter().map(|input| input.to_string()).collect(),
        inputs_sha256: inputs_sha256(repo_dir, EXAMPLE_REDUCE_INPUTS).map_err(|e| e.to_string())?,
        ptx_sha256: sha256_hex(PTX.as_bytes()),
        toolchain: Some(toolchain),
        rustc: Some(env!("PTX_BUILDER_RUSTC").into()),
        rust_cuda_rev: Some(rust_cuda_rev),
        libnvvm: Some(env!("PTX_BUILDER_LIBNVVM").into()),
        nvvm_ir: Some(env!("PTX_BUILDER_NVVM_IR").into()),
        libnvvm_release: Some(env!("PTX_BUILDER_LIBNVVM_RELEASE").into()),
        nvcc: None,
        flags: None,
        regenerate: "scripts/regenerate-ptx".into(),
    };

    let ptx_dir = example_dir.join("ptx");
    std::fs::create_dir_all(&ptx_dir).map_err(|e| format!("{}: {e}", ptx_dir.display()))?;
    write(&ptx_dir.join("reduce.ptx"), PTX)?;
    write(&ptx_dir.join("reduce.stamp.toml"), &stamp.render())?;
    println!("wrote examples/reduce/ptx/reduce.ptx (sha256 {})", stamp.ptx_sha256);
    Ok(())
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}
