//! Compiles the kernels (`..`) to PTX with cuda_builder, at build time as rust-cuda's examples
//! do, and hands the versions of the tools that did it to `main.rs`: compute_75 (Turing and
//! newer; the driver JIT-compiles the PTX for the GPU it runs on), a release build with
//! libNVVM's optimisations.

use cuda_builder::{CudaBuilder, NvvmArch};
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let kernels_dir = manifest_dir.parent().unwrap().to_path_buf();
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());

    for input in ["src", "Cargo.toml", "Cargo.lock", "builder/build.rs"] {
        println!("cargo::rerun-if-changed={}", kernels_dir.join(input).display());
    }

    CudaBuilder::new(&kernels_dir)
        .arch(NvvmArch::Compute75)
        .release(true)
        .copy_to(out_dir.join("kernels.ptx"))
        .build()
        .expect("cuda_builder failed to compile kernels/ (see the errors above)");

    let (nvvm_major, nvvm_minor) = cuda_builder::nvvm_version();
    let (ir_major, ir_minor) = cuda_builder::ir_version();
    println!("cargo::rustc-env=PTX_BUILDER_LIBNVVM={nvvm_major}.{nvvm_minor}");
    println!("cargo::rustc-env=PTX_BUILDER_NVVM_IR={ir_major}.{ir_minor}");

    // The CUDA release that libNVVM came from decides the PTX ISA `.version` it writes, and so
    // the oldest driver that loads the PTX: recorded where the CUDA folder says it.
    println!("cargo::rerun-if-env-changed=CUDA_PATH");
    if let Some(release) = std::env::var_os("CUDA_PATH").and_then(|path| cuda_release(Path::new(&path))) {
        println!("cargo::rustc-env=PTX_BUILDER_LIBNVVM_RELEASE={release}");
    }

    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc).arg("-V").output().expect("rustc -V runs");
    let version = String::from_utf8(version.stdout).expect("rustc -V prints UTF-8");
    println!("cargo::rustc-env=PTX_BUILDER_RUSTC={}", version.trim());
}

/// The CUDA release of the folder `cuda`: its `RELEASE` file (a CUDA folder unpacked from
/// PyPI wheels, as block-size's scripts/setup-dev makes), else the toolkit's `version.json`.
fn cuda_release(cuda: &Path) -> Option<String> {
    for file in ["RELEASE", "version.json"] {
        println!("cargo::rerun-if-changed={}", cuda.join(file).display());
    }
    if let Ok(text) = std::fs::read_to_string(cuda.join("RELEASE")) {
        return Some(text.trim().to_string()).filter(|release| !release.is_empty());
    }
    // `"cuda" : { "name" : "CUDA SDK", "version" : "11.8.20220929" }`
    let text = std::fs::read_to_string(cuda.join("version.json")).ok()?;
    let after = &text[text.find("\"cuda\"")?..];
    let after = &after[after.find("\"version\"")? + "\"version\"".len()..];
    let version = after.split('"').nth(1)?;
    Some(format!("{version} (CUDA toolkit)"))
}
