//! The committed PTX files against what their stamps claim: built from the committed
//! sources with the pinned compilers, valid for sm_75 and sm_90, defining the kernel the
//! runner launches, and using the weights of the host's CPU reference.

use block_size_runner::frame::luma::{BLUE_WEIGHT, GREEN_WEIGHT, KERNEL_NAME, RED_WEIGHT};
use block_size_runner::ptx::{ALL, EmbeddedPtx, NVCC, RUST_CUDA, RUSTC_NVPTX, RUSTC_NVPTX_FMA};
use block_size_tests::{ptxas, quoted_value, read_repo_file, repo_root};
use ptx_stamp::{CUDA_BUILDER_INPUTS, NVCC_INPUTS, NVPTX_INPUTS, inputs_sha256, sha256_hex};
use std::process::Command;

fn channel() -> String {
    quoted_value(&read_repo_file("rust-toolchain.toml"), "channel").unwrap().to_string()
}

#[test]
fn every_stamp_matches_its_inputs() {
    for (module, compiler, inputs) in [
        (RUST_CUDA, "cuda_builder", CUDA_BUILDER_INPUTS),
        (NVCC, "nvcc", NVCC_INPUTS),
        (RUSTC_NVPTX, "rustc-nvptx", NVPTX_INPUTS),
    ] {
        let stamp = module.stamp();
        assert_eq!(stamp.compiler, compiler, "{}", module.file);
        assert_eq!(stamp.inputs, inputs, "{}: the stamp must cover every input of its build", module.file);
        assert_eq!(
            stamp.inputs_sha256,
            inputs_sha256(&repo_root(), &stamp.inputs).unwrap(),
            "{}'s sources changed since kernels/ptx/{}.ptx was built: regenerate it with `{}`",
            module.label,
            module.file,
            stamp.regenerate
        );
    }
}

#[test]
fn every_stamp_matches_its_committed_ptx() {
    for module in ALL {
        let on_disk = read_repo_file(&format!("kernels/ptx/{}.ptx", module.file));
        assert_eq!(on_disk, module.ptx, "the runner embeds the committed kernels/ptx/{}.ptx", module.file);
        assert_eq!(
            module.stamp().ptx_sha256,
            sha256_hex(on_disk.as_bytes()),
            "kernels/ptx/{}.ptx was edited by hand: regenerate it with `{}`",
            module.file,
            module.stamp().regenerate
        );
    }
}

#[test]
fn cuda_builder_stamp_names_the_pinned_rust_cuda_and_toolchain() {
    let stamp = RUST_CUDA.stamp();
    let manifest = read_repo_file("kernels/Cargo.toml");
    let pinned = quoted_value(&manifest, "cuda_std = { git = \"https://github.com/Rust-GPU/rust-cuda\", rev")
        .expect("kernels/Cargo.toml pins cuda_std by rev");
    assert_eq!(stamp.rust_cuda_rev.as_deref(), Some(pinned), "kernels/Cargo.toml pins another rust-cuda");
    let lock = read_repo_file("kernels/Cargo.lock");
    assert!(
        lock.contains(&format!("rust-cuda?rev={pinned}#{pinned}")),
        "kernels/Cargo.lock is not at the pin"
    );
    assert_eq!(stamp.toolchain, Some(channel()), "rust-toolchain.toml moved: scripts/regenerate-ptx");
    assert!(stamp.rustc.as_deref().is_some_and(|rustc| rustc.starts_with("rustc 1.")), "{:?}", stamp.rustc);
    assert_eq!(stamp.arch, "compute_75");
    assert!(stamp.libnvvm.is_some() && stamp.nvvm_ir.is_some());
}

#[test]
fn nvptx_stamp_names_the_pinned_toolchain_and_nvcc_stamp_its_release() {
    assert_eq!(
        RUSTC_NVPTX.stamp().toolchain,
        Some(channel()),
        "rust-toolchain.toml moved: cargo xtask ptx nvptx"
    );
    assert!(NVCC.stamp().nvcc.is_some_and(|release| release.contains("release 13.0")));
}

fn entries(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|line| line.split(".entry ").nth(1))
        .map(|rest| rest.trim_end_matches('(').trim().to_string())
        .collect()
}

#[test]
fn every_ptx_defines_the_kernels_the_runner_launches() {
    for module in ALL {
        let defined = entries(module.ptx);
        assert_eq!(module.stamp().kernels, defined, "{}: the stamp lists the PTX's entries", module.file);
        assert!(defined.iter().any(|entry| entry == KERNEL_NAME), "{}", module.file);
        for entry in &defined {
            let head = format!(".entry {entry}(");
            let start = module.ptx.find(&head).unwrap();
            let params = &module.ptx[start..start + module.ptx[start..].find(')').unwrap()];
            // Four pointers and a usize, all 64-bit: the argument list cuda.rs passes.
            assert_eq!(params.matches(".param .u64").count(), 5, "{} {entry}: {params}", module.file);
        }
        assert!(module.ptx.contains(".target sm_75"), "{}: built for sm_75", module.file);
    }
    // The variants run in Rust and in C++: both modules define every one.
    for variant in block_size_runner::variants::VARIANTS {
        for module in [RUST_CUDA, NVCC] {
            assert!(
                entries(module.ptx).iter().any(|entry| entry == variant.entry),
                "{} lacks {}",
                module.file,
                variant.entry
            );
        }
    }
}

#[test]
fn vector_variants_use_16_byte_accesses() {
    for module in [RUST_CUDA, NVCC] {
        let start = module.ptx.find(".entry grayscale_vec4(").unwrap();
        let body = &module.ptx[start..start + module.ptx[start..].find("\n}\n").unwrap()];
        assert_eq!(body.matches("ld.global.v4.f32").count(), 3, "{}: three vector loads", module.file);
        assert_eq!(body.matches("st.global.v4.f32").count(), 1, "{}: one vector store", module.file);
    }
}

#[test]
fn contraction_is_what_the_stamps_say() {
    // nvcc and libNVVM fuse by default; rustc's backend only with --fp-contract=fast.
    for (module, fused) in [(RUST_CUDA, true), (NVCC, true), (RUSTC_NVPTX, false), (RUSTC_NVPTX_FMA, true)] {
        assert_eq!(module.ptx.contains("fma.rn.f32"), fused, "{}", module.file);
    }
}

#[test]
fn every_ptx_uses_the_weights_of_the_cpu_reference() {
    for module in ALL {
        for weight in [RED_WEIGHT, GREEN_WEIGHT, BLUE_WEIGHT] {
            let immediate = format!("0f{:08X}", weight.to_bits());
            assert!(
                module.ptx.contains(&immediate),
                "{}: weight {weight} ({immediate}) is missing",
                module.file
            );
        }
    }
}

/// Assembles `module` with `ptxas -arch=<arch> -v` and returns the registers per thread.
fn assemble(module: &EmbeddedPtx, arch: &str) -> u32 {
    let ptxas = ptxas()
        .expect("ptxas not found: run scripts/setup, which unpacks it from PyPI nvidia-cuda-nvcc-cu12");
    let dir =
        std::env::temp_dir().join(format!("block-size-ptxas-{}-{}-{arch}", std::process::id(), module.file));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("kernel.ptx");
    std::fs::write(&input, module.ptx).unwrap();
    let output = Command::new(&ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg(&input)
        .arg("-o")
        .arg(dir.join("kernel.cubin"))
        .output()
        .unwrap_or_else(|error| panic!("{}: {error}", ptxas.display()));
    std::fs::remove_dir_all(&dir).unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "ptxas -arch={arch} rejected {}:\n{log}", module.file);
    assert!(log.contains("0 bytes spill stores, 0 bytes spill loads"), "{} spills:\n{log}", module.file);
    let entry = log.split("Compiling entry function 'grayscale'").nth(1).unwrap_or_else(|| panic!("{log}"));
    let registers = entry
        .split("Used ")
        .nth(1)
        .and_then(|rest| rest.split(" registers").next())
        .and_then(|count| count.trim().parse().ok())
        .unwrap_or_else(|| panic!("no register count in:\n{log}"));
    println!("ptxas -arch={arch} {}: {registers} registers per thread", module.file);
    registers
}

#[test]
fn every_ptx_assembles_for_sm_75_and_sm_90() {
    for module in ALL {
        for arch in ["sm_75", "sm_90"] {
            let registers = assemble(&module, arch);
            // At 64 registers or fewer a 1024-thread block still fits on a 64K-register SM.
            assert!((1..=64).contains(&registers), "{} {arch}: {registers}", module.file);
        }
    }
}
