/*!
Provenance lines: what was measured, with what, where, when, by which command. Printed first
with `--provenance`, so that a saved transcript is its own evidence file.
*/

use crate::backend::DeviceLimits;
use crate::ptx;

/// What the running program knows about its GPU beyond [`DeviceLimits`].
pub struct Environment {
    /// The NVIDIA driver's release, e.g. `580.95.05`, where the kernel module says it.
    pub driver_release: Option<String>,
    /// The CUDA version the driver supports, as the driver API encodes it (13000 for 13.0).
    pub driver_api_version: i32,
    /// Registers per thread of the loaded kernel after the driver's JIT.
    pub registers_per_thread: Option<u32>,
}

/// The driver release from `/proc/driver/nvidia/version` (Linux), if readable.
pub fn driver_release() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    parse_driver_release(&text)
}

/// The version word of the kernel module line: the first token that looks like `NNN.NN[.NN]`.
pub fn parse_driver_release(text: &str) -> Option<String> {
    let first = text.lines().next()?;
    first
        .split_whitespace()
        .find(|word| word.contains('.') && word.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .map(str::to_string)
}

/// The `# `-prefixed lines.
pub fn lines(limits: &DeviceLimits, environment: &Environment, command: &str, date: &str) -> String {
    let stamp = ptx::RUST_CUDA.stamp();
    let api = environment.driver_api_version;
    let registers = environment
        .registers_per_thread
        .map_or_else(|| "unknown".to_string(), |registers| registers.to_string());
    format!(
        "# command: {command}\n\
         # date: {date}\n\
         # gpu {}: {}, compute capability {}.{}, driver {}, CUDA {}.{} (driver API)\n\
         # kernel: {} from Rust via rust-cuda cuda_builder, PTX sha256 {} ({}), {registers} registers/thread on this GPU\n\
         # built with: rust-cuda {}, {} ({}), libNVVM {} (NVVM IR {}), kernel inputs sha256 {}\n\
         # runner: block-size {}\n",
        limits.ordinal,
        limits.name,
        limits.compute_capability.0,
        limits.compute_capability.1,
        environment.driver_release.as_deref().unwrap_or("release unknown"),
        api / 1000,
        (api % 1000) / 10,
        stamp.kernels.join(", "),
        ptx::RUST_CUDA.sha256(),
        stamp.arch,
        known(&stamp.rust_cuda_rev),
        known(&stamp.toolchain),
        known(&stamp.rustc),
        known(&stamp.libnvvm),
        known(&stamp.nvvm_ir),
        stamp.inputs_sha256,
        env!("CARGO_PKG_VERSION"),
    )
}

fn known(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("unknown")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_release_is_read_from_the_kernel_module_line() {
        let text = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 09:59:04 UTC 2025\n\
                    GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";
        assert_eq!(parse_driver_release(text).as_deref(), Some("580.95.05"));
        assert_eq!(parse_driver_release("no version here"), None);
    }
}
