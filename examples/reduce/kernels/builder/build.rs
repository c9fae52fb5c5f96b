//! Compiles `examples/reduce/kernels/` to PTX with cuda_builder, at build time as rust-cuda's
//! examples do, and hands the versions of the tools that did it to `main.rs`. The same build as
//! `kernels/builder`'s: compute_75, release, libNVVM 11.8.

use cuda_builder::{CudaBuilder, NvvmArch};
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let kernels_dir = manifest_dir.parent().unwrap().to_path_buf();
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());

    for input in ["src", "Cargo.toml", "Cargo.lock", "builder/build.rs"] {
        println!("cargo::rerun-if-changed={}", kernels_dir.join(input).display());
    }

    // compute_75 (Turing), the project's oldest architecture; the driver JIT-compiles this PTX
    // for whatever newer GPU it runs on. Release build with libNVVM's optimisations.
    CudaBuilder::new(&kernels_dir)
        .arch(NvvmArch::Compute75)
        .release(true)
        .copy_to(out_dir.join("reduce.ptx"))
        .build()
        .expect("cuda_builder failed to compile examples/reduce/kernels/ (see the errors above)");

    let (nvvm_major, nvvm_minor) = cuda_builder::nvvm_version();
    let (ir_major, ir_minor) = cuda_builder::ir_version();
    println!("cargo::rustc-env=PTX_BUILDER_LIBNVVM={nvvm_major}.{nvvm_minor}");
    println!("cargo::rustc-env=PTX_BUILDER_NVVM_IR={ir_major}.{ir_minor}");

    // The CUDA release of that libNVVM decides the PTX ISA `.version` it writes, and so the
    // oldest driver that loads the PTX. scripts/setup-dev writes it beside the unpacked wheel.
    let cuda_path = PathBuf::from(std::env::var("CUDA_PATH").expect("CUDA_PATH names the CUDA folder"));
    let release_file = cuda_path.join("RELEASE");
    println!("cargo::rerun-if-changed={}", release_file.display());
    println!("cargo::rerun-if-env-changed=CUDA_PATH");
    let release = std::fs::read_to_string(&release_file)
        .unwrap_or_else(|error| panic!("{}: {error} (run scripts/setup-dev)", release_file.display()));
    println!("cargo::rustc-env=PTX_BUILDER_LIBNVVM_RELEASE={}", release.trim());

    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc).arg("-V").output().expect("rustc -V runs");
    let version = String::from_utf8(version.stdout).expect("rustc -V prints UTF-8");
    println!("cargo::rustc-env=PTX_BUILDER_RUSTC={}", version.trim());
}
