/*!
The grayscale workload: three float planes of the synthetic frame in, one luma plane out
(`kernels/src/lib.rs`'s `grayscale` and, for `variants`, its `_vec4`, `_k2`, `_k4` and `_k8`
shapes, which take the same arguments), checked against [`Frame::reference`] within
[`RELATIVE_TOLERANCE`]. A pass reads three planes and writes one: 16 bytes a pixel.
*/

pub mod frame;

use self::frame::{
    BYTES_PER_PIXEL, Frame, HOST_BYTES_PER_PIXEL, RELATIVE_TOLERANCE, first_mismatch, host_zeros, luma,
};
use super::{KernelSpec, Params};
use crate::measure::backend::{BufferId, EmulatedMemory, Gpu, KernelArg, Launch};
use crate::measure::device::Footprint;
use crate::measure::memory::{as_bytes, as_bytes_mut, view_values, write_values};
use crate::measure::ptx;
use crate::measure::workload::Workload;
use crate::model::mismatch::Mismatch;
use crate::model::pass::Pass;
use anyhow::{Result, bail};

/// Value `--corrupt-pixel` writes: luma of inputs in [0, 1] is never negative.
pub const CORRUPT_VALUE: f32 = -1.0;

/// Value a faulty mock kernel writes: luma of inputs in [0, 1] is never above 1.
const FAULT_VALUE: f32 = 2.0;

/// The grayscale kernel, `--kernel grayscale` (the default).
pub static KERNEL: KernelSpec = KernelSpec {
    name: "grayscale",
    about: "Rec. 601 luma of three float planes, one pixel per thread per trip (the default)",
    entry: luma::KERNEL_NAME,
    entries: &["grayscale", "grayscale_vec4", "grayscale_k2", "grayscale_k4", "grayscale_k8"],
    modules: &[ptx::RUST_CUDA, ptx::NVCC, ptx::RUSTC_NVPTX, ptx::RUSTC_NVPTX_FMA],
    baseline: ptx::NVCC,
    options: &[],
    validate: |_| Ok(()),
    outputs: |params| (params.frame.pixels(), format!("{}-pixel frame", params.frame.pixels())),
    footprint,
    dynamic_shared_memory: |_, _| 0,
    pass,
    create: |params| Ok(Box::new(GrayscaleWorkload::new(params)?)),
    emulate,
};

/// The four planes on the device and the frame's three input planes, its CPU reference and
/// the output read back on the host.
fn footprint(params: &Params) -> Footprint {
    Footprint {
        device_bytes: params.frame.bytes(BYTES_PER_PIXEL),
        device_what: "its four planes",
        host_bytes: params.frame.bytes(HOST_BYTES_PER_PIXEL),
        host_what: "three input planes, the CPU reference and the output read back",
    }
}

fn pass(params: &Params) -> Pass {
    Pass {
        kernel: KERNEL.name,
        frame: params.frame,
        bytes_per_pass: params.frame.bytes_f64(BYTES_PER_PIXEL),
        bytes_counted: "moved per pass",
        detail: None,
        items: None,
    }
}

/// The device's four planes, each `offset + pixels` floats.
#[derive(Debug, Clone, Copy)]
struct Planes {
    red: BufferId,
    green: BufferId,
    blue: BufferId,
    out: BufferId,
}

/// The synthetic frame, its reference, and the planes on the device.
pub struct GrayscaleWorkload {
    frame: Frame,
    reference: Vec<f32>,
    output: Vec<f32>,
    offset: usize,
    pass: Pass,
    planes: Option<Planes>,
}

impl GrayscaleWorkload {
    /// The synthetic frame of `params`, every plane `params.offset` floats into its buffer.
    pub fn new(params: &Params) -> Result<Self> {
        let frame = Frame::synthetic(params.frame)?;
        let reference = frame.reference()?;
        let output = host_zeros(frame.pixels())?;
        Ok(Self { frame, reference, output, offset: params.offset, pass: pass(params), planes: None })
    }

    #[cfg_attr(not(any(test, feature = "mock")), allow(dead_code))]
    /// The synthetic frame converted.
    pub fn frame(&self) -> &Frame {
        &self.frame
    }

    /// Byte offset of every plane's first pixel in its buffer.
    fn skip(&self) -> usize {
        self.offset * std::mem::size_of::<f32>()
    }
}

impl Workload for GrayscaleWorkload {
    fn pass(&self) -> &Pass {
        &self.pass
    }

    fn dynamic_shared_memory(&self, _threads_per_block: u32) -> u32 {
        0
    }

    fn upload(&mut self, gpu: &mut dyn Gpu) -> Result<()> {
        let bytes = (self.offset + self.frame.pixels()) * std::mem::size_of::<f32>();
        let skip = self.skip();
        let mut plane = |values: &[f32]| -> Result<BufferId> {
            let buffer = gpu.alloc_zeroed(bytes)?;
            gpu.upload(buffer, skip, as_bytes(values))?;
            Ok(buffer)
        };
        let (red, green, blue) =
            (plane(&self.frame.red)?, plane(&self.frame.green)?, plane(&self.frame.blue)?);
        let out = gpu.alloc_zeroed(bytes)?;
        self.planes = Some(Planes { red, green, blue, out });
        Ok(())
    }

    fn launch(&self, grid_blocks: u32, threads_per_block: u32) -> Result<Launch> {
        let Planes { red, green, blue, out } = super::uploaded(self.planes)?;
        let skip = self.skip();
        // The kernel's parameters: four pointers and a usize count.
        Ok(Launch {
            grid_blocks,
            threads_per_block,
            dynamic_shared_memory: 0,
            args: vec![
                KernelArg::Buffer(red, skip),
                KernelArg::Buffer(green, skip),
                KernelArg::Buffer(blue, skip),
                KernelArg::Buffer(out, skip),
                KernelArg::Usize(self.frame.pixels()),
            ],
            zero_before_each: Vec::new(),
        })
    }

    fn clear_outputs(&mut self, gpu: &mut dyn Gpu) -> Result<()> {
        gpu.zero(super::uploaded(self.planes)?.out)
    }

    fn corrupt(&mut self, gpu: &mut dyn Gpu, index: usize) -> Result<()> {
        if index >= self.frame.pixels() {
            bail!("pixel {index} is outside the {}-pixel output", self.frame.pixels());
        }
        let out = super::uploaded(self.planes)?.out;
        gpu.upload(out, self.skip() + index * std::mem::size_of::<f32>(), &CORRUPT_VALUE.to_ne_bytes())
    }

    fn check(&mut self, gpu: &mut dyn Gpu) -> Result<Option<Mismatch>> {
        let out = super::uploaded(self.planes)?.out;
        gpu.download(out, self.skip(), as_bytes_mut(&mut self.output))?;
        Ok(first_mismatch(&self.output, &self.reference, RELATIVE_TOLERANCE).map(|mismatch| Mismatch {
            index: Some(mismatch.index),
            description: format!(
                "pixel {} is {}, the CPU reference says {}",
                mismatch.index, mismatch.got, mismatch.want
            ),
        }))
    }
}

/// `out[i] = luma(r[i], g[i], b[i])` for every pixel, as every grayscale entry computes it.
fn emulate(launch: &Launch, memory: &mut dyn EmulatedMemory, fault: Option<usize>) -> Result<()> {
    let [red, green, blue, out, pixels] = launch.args.as_slice() else {
        bail!("the grayscale kernels take five arguments, not {}", launch.args.len());
    };
    let pixels = pixels.as_usize()?;
    let plane = |arg| view_values::<f32>(memory.at(arg)?, pixels);
    let (red, green, blue) = (plane(red)?, plane(green)?, plane(blue)?);
    let mut luma: Vec<f32> =
        red.iter().zip(green.iter()).zip(blue.iter()).map(|((&r, &g), &b)| luma::luma(r, g, b)).collect();
    if let Some(pixel) = fault.and_then(|index| luma.get_mut(index)) {
        *pixel = FAULT_VALUE;
    }
    write_values(memory.at_mut(out)?, &luma)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::mock::MockGpu;

    fn uploaded(width: u32, height: u32, offset: usize) -> (MockGpu, GrayscaleWorkload) {
        let mut gpu = MockGpu::h200_with(&[KERNEL.rust_kernel()]);
        let mut workload =
            GrayscaleWorkload::new(&Params { offset, ..Params::frame(width, height) }).unwrap();
        workload.upload(&mut gpu).unwrap();
        (gpu, workload)
    }

    #[test]
    fn a_launch_converts_every_pixel_at_the_offset() {
        let (mut gpu, mut workload) = uploaded(20, 3, 2);
        let launch = workload.launch(1, 32).unwrap();
        assert_eq!(launch.args[0], KernelArg::Buffer(BufferId(0), 8));
        assert_eq!(launch.args[4], KernelArg::Usize(60));
        gpu.time_launches(&launch, crate::measure::backend::Timing::launch(0, 1)).unwrap();
        assert_eq!(workload.check(&mut gpu).unwrap(), None);
        // The two floats before the planes are the allocation's, untouched.
        assert_eq!(&gpu.memory.bytes(BufferId(3)).unwrap()[..8], &[0; 8]);
    }

    #[test]
    fn an_unlaunched_or_corrupted_output_is_a_mismatch_at_its_pixel() {
        let (mut gpu, mut workload) = uploaded(8, 8, 0);
        let missing = workload.check(&mut gpu).unwrap().unwrap();
        assert_eq!(missing.index, Some(1), "pixel 0's luma is 0 and the output is zeroed");
        let launch = workload.launch(1, 64).unwrap();
        gpu.time_launches(&launch, crate::measure::backend::Timing::launch(0, 1)).unwrap();
        workload.corrupt(&mut gpu, 9).unwrap();
        let want = workload.frame().reference().unwrap()[9];
        assert_eq!(
            workload.check(&mut gpu).unwrap(),
            Some(Mismatch {
                index: Some(9),
                description: format!("pixel 9 is -1, the CPU reference says {want}")
            })
        );
        assert!(workload.corrupt(&mut gpu, 64).is_err());
    }
}
