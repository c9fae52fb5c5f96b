/*!
The grayscale kernel, described for the runner: three float planes of the synthetic frame in,
one luma plane out (`kernels/src/lib.rs`'s `grayscale`, and its shapes `_vec4`, `_k2`, `_k4` and
`_k8`, which take the same arguments), every row checked against the CPU luma of the frame
within [`frame::RELATIVE_TOLERANCE`] (computed once, compared on the GPU). A pass reads three
planes and writes one: 16 bytes a pixel. Its twins: nvcc's build of `kernels/cuda/grayscale.cu` (the baseline) and rustc's NVPTX
builds of the same Rust, with and without FMA contraction.
*/

pub mod frame;

use crate::frame::Frame;
use crate::ptx::{NVCC, RUST_CUDA, RUSTC_NVPTX, RUSTC_NVPTX_FMA};
use block_size_runner::{Agreement, Arg, Axis, Check, Kernel, Values};

/// The kernel's name, as `--kernel` takes it, and its entry point.
pub const NAME: &str = frame::luma::KERNEL_NAME;

/// The 2-D kernel's name and entry point: the image as rows and columns, launched with 2-D
/// blocks over a 2-D grid.
pub const NAME_2D: &str = "grayscale_2d";

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

/// The 2-D grayscale kernel over `frame` (`grayscale_2d`: the same luma, a grid-stride loop
/// over rows and columns) with its nvcc twin, the baseline: a kernel with a domain of the
/// frame's width and height, so its sweep takes block shapes (`32x8`, `16x16`; by default every
/// power-of-two shape of each block size) and launches 2-D grids.
pub fn kernel_2d(frame: Frame, offset: usize) -> Kernel {
    let (width, height) = (frame.width, frame.height);
    planes(Kernel::new(RUST_CUDA, NAME_2D).twin(NVCC), frame, offset).domain(width, height, 1).args(
        move |_| {
            vec![
                Arg::Buffer("red"),
                Arg::Buffer("green"),
                Arg::Buffer("blue"),
                Arg::Buffer("out"),
                Arg::U32(width),
                Arg::U32(height),
            ]
        },
    )
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
    let n = usize::try_from(frame.pixels()).unwrap_or(usize::MAX);
    planes(kernel, frame, offset).args(move |_| {
        vec![Arg::Buffer("red"), Arg::Buffer("green"), Arg::Buffer("blue"), Arg::Buffer("out"), Arg::Usize(n)]
    })
}

/// `kernel`'s buffers and check over `frame`, every plane `offset` floats in: what the 1-D
/// and the 2-D kernels share.
fn planes(kernel: Kernel, frame: Frame, offset: usize) -> Kernel {
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
        .check(
            Check::expected(Agreement::Within(f64::from(frame::RELATIVE_TOLERANCE)), move || {
                Ok(Values::from(frame::luma_plane(n)?))
            })
            .naming("pixel"),
        )
}

#[cfg(feature = "mock")]
pub(crate) mod emulation {
    //! The kernels on the CPU, for the runner's mock driver.

    use crate::grayscale::frame::luma;
    use anyhow::{Result, bail};
    use block_size_runner::mock::{EmulatedMemory, Launch, read_values, threads, view_values, write_values};

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

    /// `grayscale_2d` thread by thread, as the kernel maps them: thread (x, y) converts
    /// pixels (x + i gridDim.x blockDim.x, y + j gridDim.y blockDim.y) inside the image, so a
    /// launch whose grid and block miss a pixel leaves it 0 and fails the check.
    pub fn emulate_2d(launch: &Launch, memory: &mut dyn EmulatedMemory, fault: Option<usize>) -> Result<()> {
        let [red, green, blue, out, width, height] = launch.args.as_slice() else {
            bail!("grayscale_2d takes six arguments, not {}", launch.args.len());
        };
        let (width, height) = (u64::from(width.as_u32()?), u64::from(height.as_u32()?));
        let pixels = usize::try_from(width * height)?;
        let plane = |arg| view_values::<f32>(memory.at(arg)?, pixels);
        let (red, green, blue) = (plane(red)?, plane(green)?, plane(blue)?);
        let mut luma = read_values::<f32>(memory.at(out)?, pixels)?;
        let step_x = u64::from(launch.grid.x) * u64::from(launch.block.x);
        let step_y = u64::from(launch.grid.y) * u64::from(launch.block.y);
        for thread in threads(launch) {
            let [first_x, first_y, _] = thread.global(launch);
            for y in (first_y..height).step_by(usize::try_from(step_y)?) {
                for x in (first_x..width).step_by(usize::try_from(step_x)?) {
                    let i = usize::try_from(y * width + x)?;
                    luma[i] = luma::luma(red[i], green[i], blue[i]);
                }
            }
        }
        if let Some(pixel) = fault.and_then(|index| luma.get_mut(index)) {
            *pixel = FAULT_VALUE;
        }
        write_values(memory.at_mut(out)?, &luma)
    }
}
