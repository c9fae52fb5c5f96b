/*!
The grayscale kernel, described for the runner: three float planes of the synthetic frame in,
one luma plane out (`kernels/src/lib.rs`'s `grayscale`, and its shapes `_vec4`, `_k2`, `_k4` and
`_k8`, which take the same arguments), every row checked against the CPU luma of the frame
within [`frame::RELATIVE_TOLERANCE`]. A pass reads three planes and writes one: 16 bytes a
pixel. Its twins: nvcc's build of `kernels/cuda/grayscale.cu` (the baseline) and rustc's NVPTX
builds of the same Rust, with and without FMA contraction.
*/

pub mod frame;

use crate::frame::Frame;
use crate::ptx::{NVCC, RUST_CUDA, RUSTC_NVPTX, RUSTC_NVPTX_FMA};
use block_size_runner::{Arg, Axis, Check, Kernel, Values};

/// The kernel's name, as `--kernel` takes it, and its entry point.
pub const NAME: &str = frame::luma::KERNEL_NAME;

/// Bytes one pass moves per pixel: three planes read and one written, 4 bytes each.
pub const BYTES_PER_PIXEL: u64 = 16;

/// One shape of the kernel's loop: its entry point, its name in `variants`' table, floats one
/// load reads and pixels a thread converts a trip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// The entry point, the same in every module.
    pub entry: &'static str,
    /// Its name in `variants`' table.
    pub name: &'static str,
    /// Floats one load reads: 1, or 4 (a 16-byte vector).
    pub vector_width: u32,
    /// Pixels one thread converts a trip of its loop.
    pub pixels_per_thread: u32,
}

/// Every shape, in `variants`' order: the one-pixel kernel first.
pub const SHAPES: [Shape; 5] = [
    Shape { entry: "grayscale", name: "k1", vector_width: 1, pixels_per_thread: 1 },
    Shape { entry: "grayscale_vec4", name: "vec4", vector_width: 4, pixels_per_thread: 4 },
    Shape { entry: "grayscale_k2", name: "k2", vector_width: 1, pixels_per_thread: 2 },
    Shape { entry: "grayscale_k4", name: "k4", vector_width: 1, pixels_per_thread: 4 },
    Shape { entry: "grayscale_k8", name: "k8", vector_width: 1, pixels_per_thread: 8 },
];

/// The shape of (vector width, pixels per thread), where there is one.
pub fn shape(vector_width: u32, pixels_per_thread: u32) -> Option<&'static Shape> {
    SHAPES
        .iter()
        .find(|shape| (shape.vector_width, shape.pixels_per_thread) == (vector_width, pixels_per_thread))
}

/// The grayscale kernel over `frame`, its one-pixel entry, with its twins (nvcc's, the
/// baseline; rustc's NVPTX builds): the planes `red`, `green`, `blue` (built on the host when a
/// run needs them) and `out`, each `offset` floats past its allocation's start.
pub fn kernel(frame: Frame, offset: usize) -> Kernel {
    over(Kernel::new(RUST_CUDA, NAME).twin(NVCC).twin(RUSTC_NVPTX).twin(RUSTC_NVPTX_FMA), frame, offset)
}

/// Every shape of the kernel over `frame` as one kernel whose axis `variant` names them (`k1`,
/// `vec4`, ...), each covering its pixels a thread a trip, with nvcc's twin: what `variants`
/// measures.
pub fn shapes(frame: Frame, offset: usize) -> Kernel {
    let described = Kernel::new(RUST_CUDA, NAME)
        .twin(NVCC)
        .axis(Axis::entries("variant", SHAPES.iter().map(|shape| (shape.name, shape.entry))))
        .items_per_thread(|variant| {
            SHAPES
                .iter()
                .find(|shape| variant.value("variant") == Some(shape.name))
                .map_or(1, |shape| shape.pixels_per_thread)
        });
    over(described, frame, offset)
}

/// `kernel`'s buffers, arguments and check over `frame`, every plane `offset` floats in.
fn over(kernel: Kernel, frame: Frame, offset: usize) -> Kernel {
    let pixels = frame.pixels();
    let n = usize::try_from(pixels).unwrap_or(usize::MAX);
    let [red, green, blue] = frame::PERIODS;
    kernel
        .frame(frame.width, frame.height)
        .bytes_per_pass(pixels.saturating_mul(BYTES_PER_PIXEL), "moved per pass")
        .input_with::<f32>("red", n, move || frame::plane(n, red))
        .input_with::<f32>("green", n, move || frame::plane(n, green))
        .input_with::<f32>("blue", n, move || frame::plane(n, blue))
        .output::<f32>("out", n)
        .offset("red", offset)
        .offset("green", offset)
        .offset("blue", offset)
        .offset("out", offset)
        .args(move |_| {
            vec![
                Arg::Buffer("red"),
                Arg::Buffer("green"),
                Arg::Buffer("blue"),
                Arg::Buffer("out"),
                Arg::Usize(n),
            ]
        })
        .check(Check::reference(move |values, _| check(values, n)))
}

/// Every pixel of `values` within the tolerance of the CPU luma, or the first that is not.
fn check(values: &Values, pixels: usize) -> Result<(), String> {
    let got = values.of::<f32>().ok_or_else(|| "the output is not f32".to_string())?;
    match frame::first_mismatch(got, pixels, frame::luma_at, frame::RELATIVE_TOLERANCE) {
        None => Ok(()),
        Some(wrong) => {
            Err(format!("pixel {} is {}, the CPU reference says {}", wrong.index, wrong.got, wrong.want))
        }
    }
}

#[cfg(feature = "mock")]
pub(crate) mod emulation {
    //! The kernels on the CPU, for the runner's mock driver.

    use crate::grayscale::frame::luma;
    use anyhow::{Result, bail};
    use block_size_runner::mock::{EmulatedMemory, Launch, view_values, write_values};

    /// Value a faulty mock kernel writes: luma of inputs in [0, 1] is never above 1.
    const FAULT_VALUE: f32 = 2.0;

    /// `out[i] = luma(r[i], g[i], b[i])` for every pixel, as every grayscale entry computes it.
    pub fn emulate(launch: &Launch, memory: &mut dyn EmulatedMemory, fault: Option<usize>) -> Result<()> {
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
}
