/*!
Provenance lines: what was measured, with what, where, when, by which command. Printed first
with `--provenance`, so that a saved transcript is its own evidence file.
*/

use crate::error::shown;
use crate::measure::gpu::compat;
use crate::measure::gpu::ptx::EmbeddedPtx;
use crate::model::limits::DeviceLimits;
use crate::model::ptx_facts::PtxFacts;
use serde::{Deserialize, Serialize};

/// What the running program knows about its GPU beyond [`DeviceLimits`].
pub struct Environment {
    /// The NVIDIA driver's release, e.g. `580.95.05`, where the kernel module says it.
    pub driver_release: Option<String>,
    /// The CUDA version the driver supports, as the driver API encodes it (13000 for 13.0).
    pub driver_api_version: i32,
    /// The loaded modules, each with its registers per thread after the driver's JIT.
    pub modules: Vec<(EmbeddedPtx, Option<u32>)>,
    /// What the first kernel's PTX says of its entry ([`PtxFacts`]), where it has that entry.
    pub ptx_facts: Option<PtxFacts>,
}

/// The same facts as the `--provenance` lines, for the JSON export, about the run's first module.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The command line.
    pub command: String,
    /// When the run started (RFC 3339, UTC).
    pub date: String,
    /// The GPU's name.
    pub gpu: String,
    /// Its compute capability, `9.0`.
    pub compute_capability: String,
    /// The NVIDIA driver's release, where the kernel module says it.
    pub driver_release: Option<String>,
    /// The CUDA version the driver supports, e.g. `13.0`.
    pub cuda_driver_api: String,
    /// The label of the module measured.
    pub kernel: String,
    /// SHA-256 of its PTX.
    pub ptx_sha256: String,
    /// Its registers per thread after the driver's JIT.
    pub registers_per_thread: Option<u32>,
    /// What its PTX says of the kernel's entry: instructions, barriers, loops, branches on the
    /// thread index around a barrier, shared-memory address width (`compare` prints the same).
    /// Absent in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptx_facts: Option<PtxFacts>,
    /// What compiled it, from its stamp.
    pub compiler: String,
    /// The rust-cuda revision, from its stamp.
    pub rust_cuda_rev: Option<String>,
    /// The Rust toolchain, from its stamp.
    pub toolchain: Option<String>,
    /// `rustc -V` of that toolchain.
    pub rustc: Option<String>,
    /// The libNVVM version, from its stamp.
    pub libnvvm: Option<String>,
    /// The CUDA release of that libNVVM (or nvcc), which sets the PTX ISA.
    pub libnvvm_release: Option<String>,
    /// The module's `.version`, e.g. `7.8`, and the oldest CUDA a driver must support to load it.
    pub ptx_isa: Option<String>,
    /// The oldest CUDA a driver must support to load that ISA.
    pub ptx_isa_needs_cuda: Option<String>,
    /// This program and its version.
    pub runner: String,
}

impl Provenance {
    /// The provenance of a run on `limits`' device, of `environment`'s first module.
    pub fn new(limits: &DeviceLimits, environment: &Environment, command: &str, date: &str) -> Self {
        let (module, registers) =
            environment.modules.first().copied().unwrap_or((crate::measure::gpu::ptx::BLOCKING_MODULE, None));
        let stamp = module.stamp();
        let api = environment.driver_api_version;
        let isa = compat::parse_isa(module.ptx);
        Self {
            command: command.to_string(),
            date: date.to_string(),
            gpu: limits.name.clone(),
            compute_capability: format!("{}.{}", limits.compute_capability.0, limits.compute_capability.1),
            driver_release: environment.driver_release.clone(),
            cuda_driver_api: format!("{}.{}", api / 1000, (api % 1000) / 10),
            kernel: module.label.to_string(),
            ptx_sha256: module.sha256(),
            registers_per_thread: registers,
            ptx_facts: environment.ptx_facts,
            compiler: stamp.compiler,
            rust_cuda_rev: stamp.rust_cuda_rev,
            toolchain: stamp.toolchain,
            rustc: stamp.rustc,
            libnvvm: stamp.libnvvm,
            libnvvm_release: stamp.libnvvm_release,
            ptx_isa: isa.map(|isa| isa.to_string()),
            ptx_isa_needs_cuda: isa.map(|isa| compat::required_cuda(isa).to_string()),
            runner: format!("block-size {}", env!("CARGO_PKG_VERSION")),
        }
    }
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

/// The `# `-prefixed lines: command, date, GPU and driver, then one line per kernel
/// module with its PTX hash, registers on this GPU and the compiler versions of its stamp.
pub fn lines(limits: &DeviceLimits, environment: &Environment, command: &str, date: &str) -> String {
    let api = environment.driver_api_version;
    let mut text = format!(
        "# command: {}\n# date: {date}\n\
         # gpu {}: {}, compute capability {}.{}, driver {}, CUDA {}.{} (driver API)\n",
        // Each a `# ` line whatever the command line or the GPU's name holds.
        shown(command),
        limits.ordinal,
        shown(&limits.name),
        limits.compute_capability.0,
        limits.compute_capability.1,
        environment.driver_release.as_deref().unwrap_or("release unknown"),
        api / 1000,
        (api % 1000) / 10,
    );
    for (module, registers) in &environment.modules {
        let stamp = module.stamp();
        let built_with = match stamp.compiler.as_str() {
            "cuda_builder" => format!(
                "rust-cuda cuda_builder {}, {} ({}), libNVVM {} (NVVM IR {}) of CUDA {}",
                known(&stamp.rust_cuda_rev),
                known(&stamp.toolchain),
                known(&stamp.rustc),
                known(&stamp.libnvvm),
                known(&stamp.nvvm_ir),
                known(&stamp.libnvvm_release)
            ),
            "nvcc" => format!("nvcc, {}", known(&stamp.nvcc)),
            other => format!("{other}, {} ({})", known(&stamp.toolchain), known(&stamp.rustc)),
        };
        let isa = compat::parse_isa(module.ptx).map_or_else(
            || "PTX ISA unknown".to_string(),
            |isa| format!("PTX ISA {isa}, needs {}", compat::required_cuda(isa)),
        );
        text += &format!(
            "# kernel {}: PTX sha256 {} ({}, {isa}), {} registers/thread on this GPU; built by {built_with}; inputs sha256 {}\n",
            module.label,
            module.sha256(),
            stamp.arch,
            registers.map_or_else(|| "unknown".to_string(), |registers| registers.to_string()),
            stamp.inputs_sha256,
        );
    }
    text += &format!("# runner: block-size {}\n", env!("CARGO_PKG_VERSION"));
    text
}

fn known(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("unknown")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_name_the_gpu_and_every_module() {
        let limits = crate::measure::gpu::mock::MockGpu::h200_like().limits;
        let environment = Environment {
            driver_release: Some("580.95.05".into()),
            driver_api_version: 13000,
            modules: vec![
                (crate::measure::gpu::ptx::BLOCKING_MODULE, Some(16)),
                (crate::measure::gpu::ptx::fixtures::NVCC, None),
            ],
            ptx_facts: None,
        };
        let text = lines(&limits, &environment, "block-size --provenance", "2026-11-30T10:00:00Z");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "# command: block-size --provenance");
        assert_eq!(lines[1], "# date: 2026-11-30T10:00:00Z");
        assert_eq!(
            lines[2],
            "# gpu 0: Mock H200, compute capability 9.0, driver 580.95.05, CUDA 13.0 (driver API)"
        );
        assert!(lines[3].starts_with(&format!(
            "# kernel cuda_builder: PTX sha256 {} (",
            crate::measure::gpu::ptx::BLOCKING_MODULE.sha256()
        )));
        assert!(lines[3].contains("16 registers/thread on this GPU; built by rust-cuda cuda_builder "));
        assert!(lines[4].contains("unknown registers/thread") && lines[4].contains("built by nvcc, "));
        assert_eq!(lines.len(), 6);
    }

    #[test]
    fn every_line_is_a_comment_whatever_the_gpu_name_or_the_command_holds() {
        let mut limits = crate::measure::gpu::mock::MockGpu::h200_like().limits;
        limits.name = "Fake\nGPU".into();
        let environment =
            Environment { driver_release: None, driver_api_version: 13000, modules: vec![], ptx_facts: None };
        let text = lines(&limits, &environment, "block-size --output 'a\nb'", "2026-11-30T10:00:00Z");
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.iter().all(|line| line.starts_with("# ")), "{lines:?}");
        assert_eq!(lines[0], "# command: \"block-size --output 'a\\nb'\"");
        assert!(lines[2].starts_with("# gpu 0: \"Fake\\nGPU\", compute capability 9.0"), "{}", lines[2]);
    }

    #[test]
    fn driver_release_is_read_from_the_kernel_module_line() {
        let text = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 09:59:04 UTC 2025\n\
                    GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";
        assert_eq!(parse_driver_release(text).as_deref(), Some("580.95.05"));
        assert_eq!(parse_driver_release("no version here"), None);
    }
}
