/*!
[`Kernel`]: the one description of a kernel the runner measures, built with the methods below.
This repository's kernels (the `block-size-builtin` crate) are described with it as a kernel
of your own is: its PTX and entry points, the twins compiled from other sources, its axes
beyond the block size, its buffers, the arguments of a launch, its dynamic shared memory, what
one pass covers and moves, and the checks every row must pass.

A description holds no device state: a sweep (or `compare`, `tail`, `variants`) makes a run of
it ([`crate::kernel::run`]) that builds its host data once and uploads it to each device.
*/

use super::axes::{self, Axis};
use super::check::{Check, Typed, Values, zeros};
use super::shape::{LaunchShape, Variant};
use crate::measure::gpu::memory::Plain;
use crate::measure::gpu::ptx::{EmbeddedPtx, KernelRef};
use crate::model::block_shape::BlockShape;
use crate::model::frame_size::FrameSize;
use crate::model::grid::{GridPolicy, sides};
use crate::model::pass::{Items, Pass};
use anyhow::{Context as _, Result};
use std::borrow::Cow;

/// A number type a buffer of your kernel holds: `f32`, `f64`, `u16`, `u32`, `u64` or `i32`.
/// Sealed: these six are the types a row's [`Values`] can hold.
pub trait Element: TypedValues {}

impl<T: TypedValues> Element for T {}

/// What [`Element`] does, the library's alone.
pub trait TypedValues: Plain {
    /// `values` as [`Values`] of this type.
    fn wrap(values: Vec<Self>) -> Values;
    /// The values of this type in `values`, where they are of this type.
    fn view(values: &Values) -> Option<&[Self]>;
    /// The value the `--corrupt-output` self-test writes: NaN for floats, the largest value
    /// for integers, which no check should accept.
    fn corrupt() -> Self;
}

macro_rules! element {
    ($($ty:ty => $variant:ident, $corrupt:expr);*) => {$(
        impl TypedValues for $ty {
            fn wrap(values: Vec<Self>) -> Values {
                Values(Typed::$variant(values))
            }
            fn view(values: &Values) -> Option<&[Self]> {
                match &values.0 {
                    Typed::$variant(values) => Some(values),
                    _ => None,
                }
            }
            fn corrupt() -> Self {
                $corrupt
            }
        }
    )*};
}

element!(f32 => F32, f32::NAN; f64 => F64, f64::NAN; u16 => U16, u16::MAX; u32 => U32, u32::MAX; u64 => U64, u64::MAX; i32 => I32, i32::MAX);

/// One argument of your kernel, in its parameter order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// The device address of the buffer of this name ([`Kernel::input`], [`Kernel::output`]),
    /// past its offset ([`Kernel::offset`]): a pointer parameter.
    Buffer(&'static str),
    /// A `u32` parameter.
    U32(u32),
    /// A `u64` parameter.
    U64(u64),
    /// A `usize` parameter (64 bits on every target this project builds for).
    Usize(usize),
    /// A `u32` parameter: the configuration's number on the integer axis of this name
    /// ([`Axis::integers`]); a launch where it does not fit in 32 bits, or where the kernel has
    /// no such axis, fails with its reason.
    Axis(&'static str),
}

/// What a row's outputs are after its launches: each output buffer's values, by name.
#[derive(Debug, Clone, PartialEq)]
pub struct Readback {
    pub(crate) buffers: Vec<(&'static str, Values)>,
}

impl Readback {
    /// The values of the output buffer `name`: all of them, or for a buffer of one element
    /// per block ([`Kernel::output_per_block`]) the row's grid's, or for one of a length per
    /// configuration ([`Kernel::output_with`]) the row's configuration's.
    pub fn values(&self, name: &str) -> Result<&Values> {
        self.buffers
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, values)| values)
            .with_context(|| format!("there is no output buffer named `{name}`"))
    }

    /// The output buffer `name` as values of `T`.
    pub fn of<T: Element>(&self, name: &str) -> Result<&[T]> {
        let values = self.values(name)?;
        T::view(values).with_context(|| {
            format!(
                "the output buffer `{name}` holds {}, not {}",
                values.type_name(),
                std::any::type_name::<T>()
            )
        })
    }
}

/// How many elements a buffer has.
pub(crate) enum Length {
    /// This many.
    Elements(usize),
    /// One per block of the largest grid the sweep can launch; a row reads its grid's.
    PerBlock,
    /// As many as each configuration of the axes says; allocated at the most of them.
    PerVariant(Box<dyn Fn(&Variant) -> usize>),
}

/// Where an input's values come from.
pub(crate) enum Source {
    /// Given when the kernel was described.
    Given(Values),
    /// Built on the host the first time a run needs them, once.
    Once(Box<dyn Fn() -> Result<Values>>),
    /// Built for each value of the integer axis `axis` a configuration has, when a
    /// configuration of another value than the one on the device comes.
    PerValue { axis: &'static str, make: Box<dyn Fn(u64) -> Result<Values>> },
}

/// An input's or an output's part of a buffer.
pub(crate) enum Role {
    /// An input: `len` values from `source`, uploaded before the first row.
    Input { len: usize, source: Source },
    /// An output: zeroed before every row, read back after its launches.
    Output,
}

/// One buffer of the kernel.
pub(crate) struct BufferSpec {
    pub name: &'static str,
    pub role: Role,
    pub length: Length,
    /// Elements the buffer's values start past its allocation's start (which the driver aligns
    /// to 256 bytes): an unaligned kernel's case ([`Kernel::offset`]).
    pub offset: usize,
    pub element_size: usize,
    /// `count` zeroed values of the buffer's type, to read it back into.
    pub zeros: fn(usize) -> Result<Values>,
    pub zero_before_each: bool,
    /// The bytes of [`Element::corrupt`].
    pub corrupt: Vec<u8>,
}

impl BufferSpec {
    /// Whether it is an output.
    pub fn is_output(&self) -> bool {
        matches!(self.role, Role::Output)
    }

    /// Its values for `variant` (a configuration of the axes), at `max_grid` blocks: its length
    /// there.
    pub fn len(&self, variant: &Variant, grid_blocks: u32) -> usize {
        match (&self.role, &self.length) {
            (Role::Input { len, .. }, _) => *len,
            (_, Length::Elements(count)) => *count,
            (_, Length::PerBlock) => grid_blocks as usize,
            (_, Length::PerVariant(length)) => length(variant),
        }
    }
}

/// The closures of a kernel: what its launch passes, its dynamic shared memory, which
/// configurations it keeps, which entry a configuration launches, how many items a thread
/// covers, what a row's result is.
type ArgsFn = Box<dyn Fn(&LaunchShape) -> Vec<Arg>>;
type SharedFn = Box<dyn Fn(BlockShape, &Variant) -> u32>;
type RestrictFn = Box<dyn Fn(u32, &Variant) -> bool>;
type EntryFn = Box<dyn Fn(&Variant) -> &'static str>;
type ItemsFn = Box<dyn Fn(&Variant) -> u32>;
type ResultFn = Box<dyn Fn(&Readback, &LaunchShape) -> Result<Values>>;
type TileFn = Box<dyn Fn(&Variant, BlockShape) -> [u32; 3]>;
type ShapeRestrictFn = Box<dyn Fn(BlockShape, &Variant) -> bool>;

/// A kernel, described for the runner: its module and entry points ([`Kernel::new`]), the
/// same entry points compiled from other sources ([`Kernel::twin`]: its CUDA C++ twin, rustc's
/// NVPTX build), its axes beyond the block size ([`Axis`]), its buffers, the arguments of a
/// launch at a grid and block size, the dynamic shared memory a block size needs, what one pass
/// covers and moves, and the checks every row must pass.
///
/// The sweep ([`crate::sweep`]), `compare` ([`crate::compare`]), `tail` ([`crate::tail`]) and
/// `variants` ([`crate::variants`]) measure any kernel so described; this repository's own
/// kernels are described the same way (the `block-size-builtin` crate).
pub struct Kernel {
    pub(crate) module: EmbeddedPtx,
    /// The entry point of a configuration whose axes select none.
    entry: &'static str,
    pub(crate) twins: Vec<EmbeddedPtx>,
    axes: Vec<Axis>,
    entry_for: Option<EntryFn>,
    /// The cross product of the axes, or why there is none.
    variants: Result<Vec<Variant>, String>,
    pub(crate) buffers: Vec<BufferSpec>,
    pub(crate) args: ArgsFn,
    pub(crate) shared: SharedFn,
    pub(crate) restrict: RestrictFn,
    /// Which block shapes it keeps, beside [`Kernel::restrict`]'s thread counts.
    restrict_shapes: ShapeRestrictFn,
    pub(crate) items_per_thread: Option<ItemsFn>,
    pub(crate) result: Option<ResultFn>,
    pub(crate) checks: Vec<Check>,
    pub(crate) pass: Pass,
    /// Its items in x, y and z, where it launches grids of more than one dimension.
    domain: Option<[u64; 3]>,
    /// The items one block covers a trip, where a block takes a tile ([`Kernel::tile`]).
    tile: Option<TileFn>,
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("module", &self.module.label)
            .field("twins", &self.twins.iter().map(|twin| twin.label).collect::<Vec<_>>())
            .field("axes", &self.axes)
            .field("variants", &self.variants)
            .field("buffers", &self.buffers.iter().map(|buffer| buffer.name).collect::<Vec<_>>())
            .field("checks", &self.checks)
            .field("pass", &self.pass)
            .finish_non_exhaustive()
    }
}

impl Kernel {
    /// The kernel `entry` of `module`, with no buffers, no arguments, no dynamic shared memory
    /// and no check yet.
    pub fn new(module: EmbeddedPtx, entry: &'static str) -> Self {
        Self {
            module,
            entry,
            twins: Vec::new(),
            axes: Vec::new(),
            entry_for: None,
            variants: Ok(vec![Variant {
                axes: crate::model::axis_values::AxisValues::none(),
                entry,
                grid: None,
                integers: Vec::new(),
                index: 0,
            }]),
            buffers: Vec::new(),
            args: Box::new(|_| Vec::new()),
            shared: Box::new(|_, _| 0),
            restrict: Box::new(|_, _| true),
            restrict_shapes: Box::new(|_, _| true),
            items_per_thread: None,
            result: None,
            checks: Vec::new(),
            pass: Pass {
                kernel: Cow::Borrowed(entry),
                frame: FrameSize::new(0, 0),
                bytes_per_pass: 0.0,
                bytes_counted: Cow::Borrowed("moved per pass"),
                detail: None,
                items: Some(Items { count: 0, noun: Cow::Borrowed("items") }),
            },
            domain: None,
            tile: None,
        }
    }

    /// One pass's items as a domain of `width x height x depth` (a depth of 1 for a 2-D
    /// kernel): the kernel reads `blockIdx`, `blockDim` and `gridDim` in y (and z), and takes
    /// blocks of any shape. Its grids have the domain's dimensions: one thread per item is
    /// `ceil(width / x) x ceil(height / y) x ceil(depth / z)` blocks of an `x x y x z` block,
    /// and a wave is laid over the domain row by row ([`crate::GridPolicy`]); its block shapes
    /// are the sweep's (`--block-shapes`), by default every power-of-two shape of each block
    /// size with a warp or more in x, in two dimensions (three where `depth` is above 1). A
    /// kernel without a domain launches blocks and grids in x alone. The item count
    /// ([`Kernel::items`], [`Kernel::frame`]) stays what the bandwidth and the header count.
    pub fn domain(mut self, width: u32, height: u32, depth: u32) -> Self {
        self.domain = Some([u64::from(width), u64::from(height), u64::from(depth)]);
        self
    }

    /// The items in x, y and z one block covers a trip of its loop, where a block takes a tile
    /// of the domain rather than one item a thread (a tiled transpose: `tile x tile` whatever
    /// the block's shape), for each configuration of the axes and block: what the per-item grid
    /// divides the domain by, `ceil(width / x) x ceil(height / y) x ceil(depth / z)` blocks, and
    /// what a wave is laid over. Without it a block covers its own threads, one item each.
    pub fn tile(mut self, covers: impl Fn(&Variant, BlockShape) -> [u32; 3] + 'static) -> Self {
        self.tile = Some(Box::new(covers));
        self
    }

    /// The items `block` covers a trip at `variant`: the kernel's tile, or its threads.
    pub(crate) fn covers(&self, variant: &Variant, block: BlockShape) -> [u64; 3] {
        match &self.tile {
            Some(tile) => tile(variant, block).map(|side| u64::from(side.max(1))),
            None => sides(block),
        }
    }

    /// The most blocks a row over `blocks` can launch at any configuration of the axes, on any
    /// device: what an output of one element per block is sized for.
    pub(crate) fn largest_grid(&self, blocks: &[BlockShape]) -> u32 {
        match self.domain {
            Some(domain) => GridPolicy::largest_grid_over(
                domain,
                self.variants()
                    .iter()
                    .flat_map(|variant| blocks.iter().map(|&block| self.covers(variant, block))),
            ),
            None => GridPolicy::largest_grid(
                self.pass.item_count(),
                &blocks.iter().map(|block| block.threads()).collect::<Vec<_>>(),
            ),
        }
    }

    /// Its items in x, y and z, where it has a domain ([`Kernel::domain`]).
    pub(crate) fn domain_sides(&self) -> Option<[u64; 3]> {
        self.domain
    }

    /// The dimensions its default block shapes have: 1 without a domain, 3 for a domain
    /// deeper than 1, else 2.
    pub(crate) fn shape_dimensions(&self) -> u32 {
        match self.domain {
            None => 1,
            Some([_, _, depth]) if depth > 1 => 3,
            Some(_) => 2,
        }
    }

    /// A module holding the same entry points with the same parameters, compiled from another
    /// source: the kernel's CUDA C++ twin built by nvcc, or rustc's NVPTX build of the same
    /// Rust. `compare` times each configuration's entry in the kernel's module and in every
    /// twin side by side on the same buffers, dividing by the first twin; `variants` measures
    /// every configuration in the kernel's module and in the first twin. A sweep measures the
    /// kernel's own module alone.
    pub fn twin(mut self, module: EmbeddedPtx) -> Self {
        self.twins.push(module);
        self
    }

    /// One more axis ([`Axis`]): the sweep runs every block size with every configuration of
    /// the axes (their cross product, the first axis outermost), less what a restriction
    /// leaves out ([`Kernel::restrict`]) and what cannot launch on the device (a row with
    /// its reason). Each configuration is in every [`LaunchShape`] the closures get
    /// ([`Variant::value`], [`Variant::integer`]); the table, the exports, the plot and
    /// `--emit-rust` have a column, a field or a constant per axis.
    ///
    /// ```
    /// use block_size_runner::{Arg, Axis, EmbeddedPtx, GridPolicy, Kernel};
    /// # const PTX: EmbeddedPtx = EmbeddedPtx::user("k", "");
    /// // 2 x 4 x 2 = 16 configurations, each at every block size.
    /// let kernel = Kernel::new(PTX, "tiled")
    ///     .axis(Axis::entries("items/thr", [("1", "tiled"), ("4", "tiled_x4")]))
    ///     .axis(Axis::powers_of_two("tile", 8, 64))
    ///     .axis(Axis::grid("grid", [GridPolicy::OneWave, GridPolicy::Waves(2)]))
    ///     // The tile is an argument, and sizes the shared memory.
    ///     .args(|_| vec![Arg::Buffer("x"), Arg::Axis("tile")])
    ///     .dynamic_shared_memory(|threads, variant| threads * variant.integer("tile").unwrap_or(1) as u32 * 4);
    /// # let _ = kernel;
    /// ```
    pub fn axis(mut self, axis: Axis) -> Self {
        self.axes.push(axis);
        self.configure();
        self
    }

    /// Which entry point a configuration of the axes launches, where no single axis says
    /// ([`Axis::entries`]) but the values of several do: two integer axes "vector width" and
    /// "pixels/thr" that together name one of several shapes of a kernel. A configuration
    /// that names no entry of the module is refused before the device (restrict it away,
    /// [`Kernel::restrict`]).
    pub fn entry_for(mut self, entry: impl Fn(&Variant) -> &'static str + 'static) -> Self {
        self.entry_for = Some(Box::new(entry));
        self.configure();
        self
    }

    /// The configurations of the axes again, after an axis or the entry rule changed.
    fn configure(&mut self) {
        let entry = self.entry;
        let points = axes::cross(&self.axes);
        self.variants = points.map(|points| {
            points
                .into_iter()
                .enumerate()
                .map(|(index, point)| Variant {
                    axes: point.values,
                    entry: point.entry.unwrap_or(entry),
                    grid: point.grid,
                    integers: point.integers,
                    index,
                })
                .collect()
        });
        if let (Some(entry_for), Ok(variants)) = (&self.entry_for, &mut self.variants) {
            for variant in variants.iter_mut() {
                variant.entry = entry_for(variant);
            }
        }
        if let Some(first) = self.variants().first() {
            self.pass.kernel = Cow::Borrowed(first.entry);
        }
    }

    /// What one pass covers: `count` items called `noun` ("values"). The grid policies size
    /// every grid by the count.
    pub fn items(mut self, count: u64, noun: &'static str) -> Self {
        self.pass.items = Some(Items { count, noun: Cow::Borrowed(noun) });
        self
    }

    /// What one pass covers: a frame of `width` x `height` pixels, as an image kernel's pass
    /// does. The grid policies size every grid by its pixels; the header says `Image: 3840 x
    /// 2160, 8294400 pixels`, the exports its width and height, and the memory checks name
    /// the frame.
    pub fn frame(mut self, width: u32, height: u32) -> Self {
        self.pass.frame = FrameSize::new(width, height);
        self.pass.items = None;
        self
    }

    /// Bytes one pass moves, which the GB/s column counts, and what they are in words:
    /// `"moved per pass"` (the default), or `"of 16-bit luma read per pass"` for a kernel
    /// whose bandwidth is its input's alone.
    pub fn bytes_per_pass(mut self, bytes: u64, counted: &'static str) -> Self {
        self.pass.bytes_per_pass = bytes as f64;
        self.pass.bytes_counted = Cow::Borrowed(counted);
        self
    }

    /// A line under the header on the kernel ("Kernel: ..."), where it helps to read the table.
    pub fn detail(mut self, line: impl Into<String>) -> Self {
        self.pass.detail = Some(line.into());
        self
    }

    /// An input buffer named `name` holding `values`: uploaded once, before the first row.
    pub fn input<T: Element>(self, name: &'static str, values: impl Into<Vec<T>>) -> Self {
        let values: Vec<T> = values.into();
        let len = values.len();
        self.with_input::<T>(name, len, Source::Given(T::wrap(values)))
    }

    /// An input buffer named `name` of `len` values of `T` that `make` builds on the host the
    /// first time a run needs them: after the checks against the device (so that a problem too
    /// large for it is refused before any host memory is taken), once however many devices the
    /// run measures, and never in a process that only supervises the sweep. `make` returning
    /// other than `len` values is an error of the run.
    pub fn input_with<T: Element>(
        self,
        name: &'static str,
        len: usize,
        make: impl Fn() -> Result<Vec<T>> + 'static,
    ) -> Self {
        self.with_input::<T>(name, len, Source::Once(Box::new(move || make().map(T::wrap))))
    }

    /// An input buffer named `name` of `len` values of `T` that depend on the configuration's
    /// value on the integer axis `axis` (a histogram's input quantised to each row's bins):
    /// `make(value)` builds them on the host, and a configuration of another value than the
    /// one on the device uploads its own before its rows.
    pub fn input_per<T: Element>(
        self,
        name: &'static str,
        axis: &'static str,
        len: usize,
        make: impl Fn(u64) -> Result<Vec<T>> + 'static,
    ) -> Self {
        let make = Box::new(move |value| make(value).map(T::wrap));
        self.with_input::<T>(name, len, Source::PerValue { axis, make })
    }

    fn with_input<T: Element>(mut self, name: &'static str, len: usize, source: Source) -> Self {
        self.buffers.push(BufferSpec {
            name,
            role: Role::Input { len, source },
            length: Length::Elements(len),
            offset: 0,
            element_size: T::SIZE,
            zeros: zeros::<T>,
            zero_before_each: false,
            corrupt: T::corrupt().to_ne(),
        });
        self
    }

    /// An output buffer named `name` of `len` values of `T`: zeroed before every row, read back
    /// after its launches.
    pub fn output<T: Element>(self, name: &'static str, len: usize) -> Self {
        self.with_output::<T>(name, Length::Elements(len))
    }

    /// An output buffer named `name` of one value of `T` per block (a reduction's partials):
    /// as many as the largest grid the sweep can launch, of which each row reads back its own
    /// grid's.
    pub fn output_per_block<T: Element>(self, name: &'static str) -> Self {
        self.with_output::<T>(name, Length::PerBlock)
    }

    /// An output buffer named `name` of `len(variant)` values of `T` for each configuration of
    /// the axes (a histogram's bins, an axis of them): allocated at the most of them, each row
    /// reading back its configuration's.
    pub fn output_with<T: Element>(
        self,
        name: &'static str,
        len: impl Fn(&Variant) -> usize + 'static,
    ) -> Self {
        self.with_output::<T>(name, Length::PerVariant(Box::new(len)))
    }

    fn with_output<T: Element>(mut self, name: &'static str, length: Length) -> Self {
        self.buffers.push(BufferSpec {
            name,
            role: Role::Output,
            length,
            offset: 0,
            element_size: T::SIZE,
            zeros: zeros::<T>,
            zero_before_each: false,
            corrupt: T::corrupt().to_ne(),
        });
        self
    }

    /// The buffer `name` starts `elements` elements past its allocation's start, which the
    /// driver aligns to 256 bytes: [`Arg::Buffer`] passes that address, so the kernel's
    /// accesses are as unaligned as the offset makes them (`variants --offset`).
    pub fn offset(mut self, name: &'static str, elements: usize) -> Self {
        for buffer in self.buffers.iter_mut().filter(|buffer| buffer.name == name) {
            buffer.offset = elements;
        }
        self
    }

    /// Zeroes the output `name` before every launch, outside the timed interval, not only before
    /// every row: for a kernel that adds to its outputs (atomics), so that every launch, and the
    /// row's result, is one pass.
    pub fn zeroed_before_each_launch(mut self, name: &'static str) -> Self {
        for buffer in self.buffers.iter_mut().filter(|buffer| buffer.name == name) {
            buffer.zero_before_each = true;
        }
        self
    }

    /// The arguments of a launch of `shape`, in the kernel's parameter order; checked against
    /// the PTX's parameter list before every launch.
    pub fn args(mut self, args: impl Fn(&LaunchShape) -> Vec<Arg> + 'static) -> Self {
        self.args = Box::new(args);
        self
    }

    /// The dynamic shared memory a block of the given threads needs, for the given
    /// configuration of the axes, in bytes (`sharedMemBytes`); the occupancy queries get it
    /// too. None without it. A configuration that needs more than the device gives a block is
    /// not launched: its row says so. For a block whose shape decides its bytes (a 2-D tile of
    /// the block's shape and its halo), see [`Kernel::dynamic_shared_memory_by_shape`].
    pub fn dynamic_shared_memory(mut self, bytes: impl Fn(u32, &Variant) -> u32 + 'static) -> Self {
        self.shared = Box::new(move |block, variant| bytes(block.threads(), variant));
        self
    }

    /// [`Kernel::dynamic_shared_memory`] of a block by its shape: `32x8` and `16x16` (both 256
    /// threads) may need different bytes, as a tile of the block's shape plus a halo does
    /// (`(x + 4) * (y + 4) * 4` bytes for a 5x5 stencil of floats). The driver's
    /// `cuOccupancyMaxPotentialBlockSize` asks by thread count alone: its suggestion takes each
    /// count as a block in x alone. The table and the exports show each row's bytes (`smem`)
    /// where they differ.
    ///
    /// ```
    /// use block_size_runner::{EmbeddedPtx, Kernel};
    /// # const PTX: EmbeddedPtx = EmbeddedPtx::user("k", "");
    /// let blur = Kernel::new(PTX, "blur5x5")
    ///     .domain(3840, 2160, 1)
    ///     .dynamic_shared_memory_by_shape(|block, _| (block.x + 4) * (block.y + 4) * 4);
    /// ```
    pub fn dynamic_shared_memory_by_shape(
        mut self,
        bytes: impl Fn(BlockShape, &Variant) -> u32 + 'static,
    ) -> Self {
        self.shared = Box::new(bytes);
        self
    }

    /// A restriction over configurations: only those where `keep(threads_per_block, variant)`
    /// holds are measured; the others are left out of the sweep, its table and exports, and of
    /// the count that decides whether a sweep races (`--search`). A restriction that
    /// keeps none of the configurations asked for is refused (exit 2) before the device is
    /// touched.
    ///
    /// ```
    /// use block_size_runner::{Axis, EmbeddedPtx, Kernel};
    /// # const PTX: EmbeddedPtx = EmbeddedPtx::user("k", "");
    /// // Four items per thread only at 128 threads and more.
    /// let kernel = Kernel::new(PTX, "sum")
    ///     .axis(Axis::entries("items/thr", [("1", "sum"), ("4", "sum_x4")]))
    ///     .restrict(|threads, variant| variant.value("items/thr") != Some("4") || threads >= 128);
    /// # let _ = kernel;
    /// ```
    pub fn restrict(mut self, keep: impl Fn(u32, &Variant) -> bool + 'static) -> Self {
        self.restrict = Box::new(keep);
        self
    }

    /// [`Kernel::restrict`] by the block's shape: only the blocks where `keep(block, variant)`
    /// holds are measured (both restrictions hold where both are given). A tiled kernel keeps
    /// the shapes that fit its tile, so that no thread of a block idles past it.
    ///
    /// ```
    /// use block_size_runner::{Axis, EmbeddedPtx, Kernel};
    /// # const PTX: EmbeddedPtx = EmbeddedPtx::user("k", "");
    /// let kernel = Kernel::new(PTX, "transpose")
    ///     .domain(4096, 4096, 1)
    ///     .axis(Axis::integers("tile", [16, 32]))
    ///     .restrict_shapes(|block, variant| {
    ///         let tile = variant.integer("tile").unwrap_or(1) as u32;
    ///         block.x <= tile && block.y <= tile
    ///     });
    /// # let _ = kernel;
    /// ```
    pub fn restrict_shapes(mut self, keep: impl Fn(BlockShape, &Variant) -> bool + 'static) -> Self {
        self.restrict_shapes = Box::new(keep);
        self
    }

    /// Items one thread covers in a trip of its loop, for each configuration of the axes (4
    /// for a kernel that loads four values at a time): `variants` sizes its one-wave grids by
    /// the items over this, so that no block of a grid is left without work. 1 without it.
    pub fn items_per_thread(mut self, items: impl Fn(&Variant) -> u32 + 'static) -> Self {
        self.items_per_thread = Some(Box::new(items));
        self
    }

    /// What a row's result is, from its outputs: a sum of partials, a histogram. The checks
    /// compare this; without it, the result is the only output buffer's values.
    pub fn result(mut self, result: impl Fn(&Readback, &LaunchShape) -> Result<Values> + 'static) -> Self {
        self.result = Some(Box::new(result));
        self
    }

    /// A check every row must pass ([`Check::reference`], [`Check::same_as_first`]); a sweep
    /// needs at least one.
    pub fn check(mut self, check: Check) -> Self {
        self.checks.push(check);
        self
    }

    /// The module the kernel is in.
    pub(crate) fn module(&self) -> EmbeddedPtx {
        self.module
    }

    /// The configurations of the axes with their kernels, in the sweep's order (one, with no
    /// value, where there is no axis; none where the axes are refused).
    pub(crate) fn variants(&self) -> &[Variant] {
        self.variants.as_deref().unwrap_or(&[])
    }

    /// The axes' names, in order (empty where it has none).
    pub(crate) fn axis_names(&self) -> Vec<String> {
        self.axes.iter().map(|axis| axis.name().to_string()).collect()
    }

    /// The kernels the configurations launch in `module`, each once, in order of first use.
    pub(crate) fn kernels_in(&self, module: EmbeddedPtx) -> Vec<KernelRef> {
        let mut entries: Vec<&'static str> = Vec::new();
        for variant in self.variants() {
            if !entries.contains(&variant.entry) {
                entries.push(variant.entry);
            }
        }
        entries.into_iter().map(|entry| module.kernel(entry)).collect()
    }

    /// The kernels the configurations launch in the kernel's own module.
    pub(crate) fn kernels(&self) -> Vec<KernelRef> {
        self.kernels_in(self.module)
    }

    /// The block sizes of `block_sizes` that configuration `index` of the axes keeps
    /// ([`Kernel::restrict`]), in order.
    pub(crate) fn kept(&self, index: usize, blocks: &[BlockShape]) -> Vec<BlockShape> {
        let variant = &self.variants()[index];
        blocks
            .iter()
            .copied()
            .filter(|&block| {
                (self.restrict)(block.threads(), variant) && (self.restrict_shapes)(block, variant)
            })
            .collect()
    }

    /// How many configurations a sweep over `blocks` has: one per block and configuration of
    /// the axes that the restriction keeps ([`Kernel::restrict`]).
    pub(crate) fn configurations(&self, blocks: &[BlockShape]) -> usize {
        (0..self.variants().len()).map(|index| self.kept(index, blocks).len()).sum()
    }

    /// The items a thread of configuration `variant` covers a trip (1 without
    /// [`Kernel::items_per_thread`]).
    pub(crate) fn items_per_thread_of(&self, variant: &Variant) -> u32 {
        self.items_per_thread.as_ref().map_or(1, |items| items(variant).max(1))
    }

    /// The first output, its elements that `--corrupt-output` may name, and how to say so: all
    /// of a fixed-length output; of one per block, element 0, the one every row's grid has; of
    /// one per configuration, the fewest any configuration has.
    pub(crate) fn first_output(&self) -> Option<(u64, String)> {
        let buffer = self.buffers.iter().find(|buffer| buffer.is_output())?;
        Some(match &buffer.length {
            Length::Elements(count) => (*count as u64, format!("{count}-element output `{}`", buffer.name)),
            Length::PerBlock => (
                1,
                format!(
                    "output `{}` of one element per block, of which only element 0 is in every grid",
                    buffer.name
                ),
            ),
            Length::PerVariant(length) => {
                let fewest = self.variants().iter().map(length).min().unwrap_or(0);
                (fewest as u64, format!("{fewest}-element output `{}`", buffer.name))
            }
        })
    }

    /// What a sweep needs checked before it starts: an item count, at least one check, buffer
    /// names unique, a result to check, every axis an input depends on an integer axis of the
    /// kernel. The message is one line.
    pub(crate) fn validate(&self) -> Result<(), String> {
        if self.pass.item_count() == 0 {
            return Err(
                "the kernel covers no items: give their count with .items(count, noun) or .frame(width, height)"
                    .into(),
            );
        }
        if self.checks.is_empty() {
            return Err("the kernel has no check: add .check(Check::reference(...)) or .check(Check::same_as_first(...))".into());
        }
        if let Err(why) = &self.variants {
            return Err(why.clone());
        }
        for (index, buffer) in self.buffers.iter().enumerate() {
            if self.buffers[..index].iter().any(|other| other.name == buffer.name) {
                return Err(format!("two buffers are named `{}`", buffer.name));
            }
            if let Role::Input { source: Source::PerValue { axis, .. }, .. } = &buffer.role
                && self.variants().first().is_some_and(|variant| variant.integer(axis).is_none())
            {
                return Err(format!(
                    "the input `{}` depends on the axis `{axis}`, which is not an integer axis of the kernel",
                    buffer.name
                ));
            }
        }
        let outputs = self.buffers.iter().filter(|buffer| buffer.is_output()).count();
        if self.result.is_none() && outputs != 1 {
            return Err(format!(
                "the kernel has {outputs} output buffers: say what a row's result is with .result(...)"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::check::Agreement;

    const PTX: EmbeddedPtx = EmbeddedPtx::user("k", "");

    #[test]
    fn an_entry_rule_names_each_configurations_entry() {
        let kernel = Kernel::new(PTX, "shape")
            .axis(Axis::integers("width", [1, 4]))
            .axis(Axis::integers("pixels", [1, 4]))
            .entry_for(|variant| match (variant.integer("width"), variant.integer("pixels")) {
                (Some(4), _) => "shape_vec4",
                (_, Some(4)) => "shape_k4",
                _ => "shape",
            });
        let entries: Vec<&str> = kernel.variants().iter().map(|variant| variant.entry).collect();
        assert_eq!(entries, ["shape", "shape_k4", "shape_vec4", "shape_vec4"]);
        let loaded: Vec<&str> = kernel.kernels().iter().map(|kernel| kernel.entry).collect();
        assert_eq!(loaded, ["shape", "shape_k4", "shape_vec4"]);
        assert_eq!(kernel.pass.kernel, "shape");
    }

    #[test]
    fn what_a_sweep_needs_is_checked_in_one_line() {
        let check = || Check::same_as_first(Agreement::BitForBit);
        let base = || Kernel::new(PTX, "k").items(8, "values").output::<f32>("y", 8);
        assert_eq!(
            base().validate().unwrap_err(),
            "the kernel has no check: add .check(Check::reference(...)) or .check(Check::same_as_first(...))"
        );
        assert_eq!(base().check(check()).validate(), Ok(()));
        assert_eq!(
            base().check(check()).output::<f32>("y", 2).validate().unwrap_err(),
            "two buffers are named `y`"
        );
        assert_eq!(
            base()
                .check(check())
                .input_per::<u16>("x", "bins", 8, |_| Ok(vec![0; 8]))
                .validate()
                .unwrap_err(),
            "the input `x` depends on the axis `bins`, which is not an integer axis of the kernel"
        );
        assert!(
            Kernel::new(PTX, "k")
                .check(check())
                .validate()
                .unwrap_err()
                .starts_with("the kernel covers no items")
        );
        let frame = Kernel::new(PTX, "k").frame(4, 2).output::<f32>("y", 8).check(check());
        assert_eq!((frame.validate(), frame.pass.item_count()), (Ok(()), 8));
    }

    #[test]
    fn the_first_output_bounds_the_self_test() {
        let kernel = Kernel::new(PTX, "k").input::<f32>("x", vec![0.0; 4]).output_per_block::<f32>("p");
        assert_eq!(kernel.first_output().unwrap().0, 1);
        let bins = Kernel::new(PTX, "k")
            .axis(Axis::integers("bins", [16, 4]))
            .output_with::<u32>("bins", |variant| variant.integer("bins").unwrap_or(0) as usize);
        assert_eq!(bins.first_output().unwrap(), (4, "4-element output `bins`".to_string()));
    }
}
