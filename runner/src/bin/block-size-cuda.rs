//! The sweep itself. Links the CUDA driver, so it starts only where `libcuda.so.1` exists;
//! run `block-size`, which checks that first.

use block_size_runner::app::{self, Console};
use block_size_runner::cuda::CudaDriver;

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
    let code = app::main_with(&CudaDriver, &args, &mut Console { out: &mut out, err: &mut err });
    std::process::exit(code);
}
