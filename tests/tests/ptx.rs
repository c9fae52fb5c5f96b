//! The committed PTX against what it claims to be: built from the committed kernel sources
//! with the pinned rust-cuda and toolchain, valid for sm_75 and sm_90, and using the
//! constants the host's CPU reference uses.

use block_size_runner::frame::luma::{BLUE_WEIGHT, GREEN_WEIGHT, KERNEL_NAME, RED_WEIGHT};
use block_size_runner::ptx::{GRAYSCALE_PTX, stamp};
use block_size_tests::{ptxas, quoted_value, read_repo_file, repo_root};
use ptx_stamp::{CUDA_BUILDER_INPUTS, inputs_sha256, sha256_hex};
use std::process::Command;

const REGENERATE: &str = "regenerate it with scripts/regenerate-ptx (README: Regenerating the PTX)";

#[test]
fn stamp_matches_the_kernel_sources() {
    let stamp = stamp();
    assert_eq!(stamp.compiler, "cuda_builder");
    assert_eq!(stamp.inputs, CUDA_BUILDER_INPUTS, "the stamp must cover every input of the build");
    let actual = inputs_sha256(&repo_root(), &stamp.inputs).unwrap();
    assert_eq!(
        stamp.inputs_sha256, actual,
        "kernels/ changed since kernels/ptx/grayscale.ptx was built: {REGENERATE}"
    );
}

#[test]
fn stamp_matches_the_committed_ptx() {
    let on_disk = read_repo_file("kernels/ptx/grayscale.ptx");
    assert_eq!(on_disk, GRAYSCALE_PTX, "the runner embeds the committed file");
    assert_eq!(
        stamp().ptx_sha256,
        sha256_hex(on_disk.as_bytes()),
        "the PTX was edited by hand: {REGENERATE}"
    );
}

#[test]
fn stamp_names_the_pinned_rust_cuda_and_toolchain() {
    let stamp = stamp();
    let manifest = read_repo_file("kernels/Cargo.toml");
    let pinned = quoted_value(&manifest, "cuda_std = { git = \"https://github.com/Rust-GPU/rust-cuda\", rev")
        .expect("kernels/Cargo.toml pins cuda_std by rev");
    assert_eq!(
        stamp.rust_cuda_rev.as_deref(),
        Some(pinned),
        "kernels/Cargo.toml pins another rust-cuda: {REGENERATE}"
    );
    let lock = read_repo_file("kernels/Cargo.lock");
    assert!(
        lock.contains(&format!("rust-cuda?rev={pinned}#{pinned}")),
        "kernels/Cargo.lock is not at the pin"
    );

    let channel = quoted_value(&read_repo_file("rust-toolchain.toml"), "channel").unwrap().to_string();
    assert_eq!(stamp.toolchain, Some(channel), "rust-toolchain.toml moved: {REGENERATE}");
    assert!(stamp.rustc.as_deref().is_some_and(|rustc| rustc.starts_with("rustc 1.")), "{:?}", stamp.rustc);
    assert_eq!(stamp.arch, "compute_75");
    assert!(stamp.libnvvm.is_some() && stamp.nvvm_ir.is_some());
}

#[test]
fn ptx_defines_the_kernel_the_runner_launches() {
    assert_eq!(stamp().kernels, [KERNEL_NAME]);
    let entry = format!(".entry {KERNEL_NAME}(");
    let start = GRAYSCALE_PTX.find(&entry).unwrap_or_else(|| panic!("no `{entry}` in the PTX"));
    let params = &GRAYSCALE_PTX[start..start + GRAYSCALE_PTX[start..].find(')').unwrap()];
    // Four pointers and a usize, all 64-bit: the argument list cuda.rs passes.
    assert_eq!(params.matches(".param .u64").count(), 5, "{params}");
    assert!(GRAYSCALE_PTX.contains(".target sm_75"), "built for compute_75");
}

#[test]
fn ptx_uses_the_weights_of_the_cpu_reference() {
    for weight in [RED_WEIGHT, GREEN_WEIGHT, BLUE_WEIGHT] {
        let immediate = format!("0f{:08X}", weight.to_bits());
        assert!(GRAYSCALE_PTX.contains(&immediate), "weight {weight} ({immediate}) is not in the PTX");
    }
}

fn assemble(arch: &str) -> u32 {
    let ptxas = ptxas()
        .expect("ptxas not found: run scripts/setup, which unpacks it from PyPI nvidia-cuda-nvcc-cu12");
    let dir = std::env::temp_dir().join(format!("block-size-ptxas-{}-{arch}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("grayscale.ptx");
    std::fs::write(&input, GRAYSCALE_PTX).unwrap();
    let output = Command::new(&ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg(&input)
        .arg("-o")
        .arg(dir.join("grayscale.cubin"))
        .output()
        .unwrap_or_else(|error| panic!("{}: {error}", ptxas.display()));
    std::fs::remove_dir_all(&dir).unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "ptxas -arch={arch} rejected the PTX:\n{log}");
    assert!(log.contains("0 bytes spill stores, 0 bytes spill loads"), "the kernel spills:\n{log}");
    let registers = log
        .split("Used ")
        .nth(1)
        .and_then(|rest| rest.split(" registers").next())
        .and_then(|count| count.trim().parse().ok())
        .unwrap_or_else(|| panic!("no register count in:\n{log}"));
    println!("ptxas -arch={arch}: {registers} registers per thread");
    registers
}

#[test]
fn ptx_assembles_for_sm_75() {
    let registers = assemble("sm_75");
    // At 64 registers or fewer a 1024-thread block still fits on a 64K-register SM.
    assert!((1..=64).contains(&registers), "{registers}");
}

#[test]
fn ptx_assembles_for_sm_90() {
    let registers = assemble("sm_90");
    assert!((1..=64).contains(&registers), "{registers}");
}
