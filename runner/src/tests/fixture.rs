//! The kernel the runner's own tests measure: `scale` (`out[i] = 2 x[i]`) over `n` values, in a
//! hand-written PTX module with its variants (`scale_x2`, two items a thread; `scale_tiled`, a
//! fourth `u32` argument), and its CPU emulation for the mock. The engine knows no kernel of
//! this repository, so neither do its tests.

use crate::kernel::run::Run;
use crate::kernel::{Arg, Check, Kernel};
use crate::measure::gpu::backend::Device as _;
use crate::measure::gpu::mock::{EmulatedMemory, Launch, MockGpu, read_values, write_values};
use crate::measure::gpu::ptx::EmbeddedPtx;
use crate::measure::sampling::workload::Workload as _;
use crate::model::grid::GridPolicy;
use anyhow::Result;

/// The module: `scale`, `scale_x2` and `scale_tiled`.
pub const PTX: &str = ".version 7.8\n.target sm_75\n.address_size 64\n\n\
    .visible .entry scale(\n\t.param .u64 scale_param_0,\n\t.param .u64 scale_param_1,\n\t.param .u64 scale_param_2\n)\n{\n\tret;\n}\n\n\
    .visible .entry scale_x2(\n\t.param .u64 scale_x2_param_0,\n\t.param .u64 scale_x2_param_1,\n\t.param .u64 scale_x2_param_2\n)\n{\n\tret;\n}\n\n\
    .visible .entry scale_tiled(\n\t.param .u64 scale_tiled_param_0,\n\t.param .u64 scale_tiled_param_1,\n\t.param .u64 scale_tiled_param_2,\n\t.param .u32 scale_tiled_param_3\n)\n{\n\tret;\n}\n";

/// [`PTX`] as a module of one's own.
pub const MODULE: EmbeddedPtx = EmbeddedPtx::user("scale", PTX);

/// A twin of [`MODULE`]: the same entries, as another compiler would build them.
pub const TWIN: EmbeddedPtx = EmbeddedPtx::user("scale-twin", PTX);

/// A third build of the same entries.
pub const THIRD: EmbeddedPtx = EmbeddedPtx::user("scale-third", PTX);

/// A module with one entry named as this repository's grayscale kernel is, for the tests whose
/// snapshots show a frame's sweep: `grayscale(x, n, out)`, run by [`emulate`].
pub const FRAME_MODULE: EmbeddedPtx = EmbeddedPtx::user(
    "cuda_builder",
    ".version 7.8\n.target sm_75\n.address_size 64\n\n\
     .visible .entry grayscale(\n\t.param .u64 p0,\n\t.param .u64 p1,\n\t.param .u64 p2\n)\n{\n\tret;\n}\n",
);

/// The value a faulty emulation writes at its fault: no input scales to it.
pub const FAULT_VALUE: f32 = -1.0;

/// `out[i] = 2 x[i]` for every value, whatever the grid (a grid-stride loop covers them all);
/// with `fault`, that value is [`FAULT_VALUE`].
pub fn emulate(launch: &Launch, memory: &mut dyn EmulatedMemory, fault: Option<usize>) -> Result<()> {
    let [x, n, out, ..] = launch.args.as_slice() else {
        anyhow::bail!("scale takes three arguments or four")
    };
    let n = n.as_usize()?;
    let mut values: Vec<f32> =
        read_values::<f32>(memory.at(x)?, n)?.iter().map(|value| 2.0 * value).collect();
    if let Some(value) = fault.and_then(|index| values.get_mut(index)) {
        *value = FAULT_VALUE;
    }
    write_values(memory.at_mut(out)?, &values)
}

/// An H200-like mock whose every entry of [`MODULE`] and [`TWIN`] runs [`emulate`].
pub fn gpu() -> MockGpu {
    let mut gpu = MockGpu::h200_like();
    for module in [MODULE, TWIN, THIRD] {
        for entry in ["scale", "scale_x2", "scale_tiled"] {
            gpu.emulate(module.kernel(entry), emulate);
        }
    }
    gpu.emulate(FRAME_MODULE.kernel("grayscale"), emulate);
    gpu
}

/// Input value `i`: `i / 8`, exact in `f32` and twice it too.
pub fn input(i: usize) -> f32 {
    i as f32 / 8.0
}

/// The CPU reference: every value exactly twice its input.
pub fn reference(n: usize) -> Check {
    Check::reference(move |result, _| {
        let Some(values) = result.of::<f32>() else { return Err("not f32s".into()) };
        match (0..n).find(|&i| values.get(i) != Some(&(2.0 * input(i)))) {
            Some(i) => Err(format!(
                "value {i} is {}, the CPU reference says {}",
                values.get(i).map_or("nothing".to_string(), f32::to_string),
                2.0 * input(i)
            )),
            None => Ok(()),
        }
    })
}

/// `scale` over `n` values, 8 bytes moved a value, checked against [`reference`].
pub fn kernel(n: usize) -> Kernel {
    scale(n).check(reference(n))
}

/// `scale` over `n` values, 8 bytes moved a value, with no check yet.
fn scale(n: usize) -> Kernel {
    Kernel::new(MODULE, "scale")
        .twin(TWIN)
        .items(n as u64, "values")
        .bytes_per_pass(8 * n as u64, "moved per pass")
        .input("x", (0..n).map(input).collect::<Vec<f32>>())
        .output::<f32>("out", n)
        .args(move |_| vec![Arg::Buffer("x"), Arg::Usize(n), Arg::Buffer("out")])
}

/// `scale` over `n` values checked against its expected values (every value twice its input,
/// built once), which the GPU compares with: [`kernel`] with [`Check::expected`] for its check.
pub fn expected_kernel(n: usize) -> Kernel {
    scale(n).check(Check::expected(crate::kernel::Agreement::BitForBit, move || {
        Ok(crate::kernel::Values::from((0..n).map(|i| 2.0 * input(i)).collect::<Vec<f32>>()))
    }))
}

/// A sweep's kernel over a frame of `width` x `height` pixels, described as this repository's
/// grayscale kernel describes its pass (its name, its frame, 16 bytes a pixel moved): `scale`
/// under that name, checked against [`reference`].
pub fn frame_kernel(width: u32, height: u32) -> Kernel {
    let n = (width * height) as usize;
    Kernel::new(FRAME_MODULE, "grayscale")
        .frame(width, height)
        .bytes_per_pass(16 * n as u64, "moved per pass")
        .input("x", (0..n).map(input).collect::<Vec<f32>>())
        .output::<f32>("out", n)
        .args(move |_| vec![Arg::Buffer("x"), Arg::Usize(n), Arg::Buffer("out")])
        .check(reference(n))
}

/// A run of `kernel` on `gpu`, its entry loaded and active, its buffers uploaded, for grids of
/// one thread a value at the smallest block size of `block_sizes`.
pub fn uploaded<'k>(gpu: &mut MockGpu, kernel: &'k Kernel, block_sizes: &[u32]) -> Run<'k> {
    for kernel_ref in kernel.kernels() {
        gpu.load(&kernel_ref).unwrap();
    }
    let mut run =
        Run::new(kernel, GridPolicy::largest_grid(kernel.pass.item_count(), block_sizes).max(1 << 16));
    run.upload(gpu).unwrap();
    run
}

/// [`uploaded`] for tests that keep the run as a workload alone: the kernel lives as long as
/// the test process.
pub fn workload(gpu: &mut MockGpu, kernel: Kernel) -> Box<dyn crate::measure::sampling::workload::Workload> {
    let kernel: &'static Kernel = Box::leak(Box::new(kernel));
    Box::new(uploaded(gpu, kernel, &[1]))
}
