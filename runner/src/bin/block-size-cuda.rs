//! The sweep itself. Links the CUDA driver, so it starts only where `libcuda.so.1` exists;
//! run `block-size`, which checks that first.

use block_size_runner::app;

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let code = app::run(&args).unwrap_or_else(|stop| {
        if !stop.message.is_empty() {
            eprintln!("Error: {}", stop.message);
        }
        stop.code
    });
    std::process::exit(code);
}
