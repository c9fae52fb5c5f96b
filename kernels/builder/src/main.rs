//! Writes the PTX that `build.rs` compiled into `kernels/ptx/`, with its provenance stamp
//! (`ptx_stamp::CudaBuilderPtx`, shared with the example's builder).
//!
//! Deterministic: on an unchanged tree it rewrites the same bytes, so `git status` stays clean.

use ptx_stamp::{CUDA_BUILDER_INPUTS, CudaBuilderPtx};
use std::path::Path;

fn main() {
    let module = CudaBuilderPtx {
        // The builder sits 2 levels below the repository root.
        repo_dir: Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap(),
        crate_dir: "kernels",
        inputs: CUDA_BUILDER_INPUTS,
        ptx_file: "kernels/ptx/grayscale.ptx",
        ptx: include_str!(concat!(env!("OUT_DIR"), "/grayscale.ptx")),
        arch: "compute_75",
        rustc: env!("PTX_BUILDER_RUSTC"),
        libnvvm: env!("PTX_BUILDER_LIBNVVM"),
        nvvm_ir: env!("PTX_BUILDER_NVVM_IR"),
        libnvvm_release: env!("PTX_BUILDER_LIBNVVM_RELEASE"),
        flags: None,
        regenerate: "scripts/regenerate-ptx",
    };
    match module.write() {
        Ok(stamp) => println!("wrote {} (sha256 {})", module.ptx_file, stamp.ptx_sha256),
        Err(message) => {
            eprintln!("Error: {message}");
            std::process::exit(1);
        }
    }
}
