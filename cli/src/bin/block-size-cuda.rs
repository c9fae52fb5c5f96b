//! The sweep itself. Links the CUDA driver, so it starts only where `libcuda.so.1` exists;
//! run `block-size`, which checks that first.

use block_size_cli::app;
use block_size_runner::{CudaDriver, with_stdio};

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    std::process::exit(with_stdio(|console| app::main_with(&CudaDriver, &args, console)));
}
