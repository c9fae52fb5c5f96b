//! Writes the PTX that `build.rs` compiled into `examples/reduce/ptx/`, with its provenance
//! stamp (`ptx_stamp::CudaBuilderPtx`, shared with `kernels/builder`).
//!
//! Deterministic: on an unchanged tree it rewrites the same bytes, so `git status` stays clean.

use ptx_stamp::{CudaBuilderPtx, EXAMPLE_REDUCE_INPUTS};
use std::path::Path;

fn main() {
    let module = CudaBuilderPtx {
        // The builder sits 4 levels below the repository root.
        repo_dir: Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(4).unwrap(),
        crate_dir: "examples/reduce/kernels",
        inputs: EXAMPLE_REDUCE_INPUTS,
        ptx_file: "examples/reduce/ptx/reduce.ptx",
        ptx: include_str!(concat!(env!("OUT_DIR"), "/reduce.ptx")),
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
