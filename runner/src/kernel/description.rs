//! [`UserKernel`]: a kernel of your own, described by a builder, as a
//! [`Workload`](crate::measure::workload::Workload) the sweep engine measures.

use super::check::{Check, Values};
use super::shape::{Shape, Variant};
use crate::kernel::axes::{self, Axis};
use crate::measure::backend::{BufferId, Gpu, KernelArg, Launch};
use crate::measure::memory::{Plain, as_bytes, read_values};
use crate::measure::ptx::{EmbeddedPtx, KernelRef};
use crate::measure::workload::Workload;
use crate::model::frame_size::FrameSize;
use crate::model::grid::GridPolicy;
use crate::model::mismatch::Mismatch;
use crate::model::pass::{Items, Pass};
use anyhow::{Context as _, Result, bail, ensure};
use std::cell::RefCell;

/// A number type a buffer of your kernel holds: `f32`, `f64`, `u16`, `u32`, `u64` or `i32`.
pub trait Element: Plain {
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
        impl Element for $ty {
            fn wrap(values: Vec<Self>) -> Values {
                Values::$variant(values)
            }
            fn view(values: &Values) -> Option<&[Self]> {
                match values {
                    Values::$variant(values) => Some(values),
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
    /// The device address of the buffer of this name ([`UserKernel::input`],
    /// [`UserKernel::output`]): a pointer parameter.
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

impl Arg {
    /// The buffer named `name`.
    pub const fn buffer(name: &'static str) -> Self {
        Self::Buffer(name)
    }
}

/// What a row's outputs are after its launches: each output buffer's values, by name.
#[derive(Debug, Clone, PartialEq)]
pub struct Readback {
    buffers: Vec<(&'static str, Values)>,
}

impl Readback {
    /// The values of the output buffer `name`: all of them, or for a buffer of one element
    /// per block ([`UserKernel::output_per_block`]) the row's grid's.
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

    /// The output buffer `name` as `f32`s.
    pub fn f32(&self, name: &str) -> Result<&[f32]> {
        self.of(name)
    }

    /// The output buffer `name` as `u32`s.
    pub fn u32(&self, name: &str) -> Result<&[u32]> {
        self.of(name)
    }
}

/// How many elements an output buffer has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Length {
    Elements(usize),
    /// One per block of the largest grid the sweep can launch; a row reads its grid's.
    PerBlock,
}

/// One buffer of the kernel.
struct BufferSpec {
    name: &'static str,
    /// An input's bytes, uploaded once; `None` for an output.
    input: Option<Vec<u8>>,
    length: Length,
    element_size: usize,
    decode: fn(&[u8], usize) -> Result<Values>,
    zero_before_each: bool,
    /// The bytes of [`Element::corrupt`].
    corrupt: Vec<u8>,
}

fn decode<T: Element>(bytes: &[u8], count: usize) -> Result<Values> {
    Ok(T::wrap(read_values::<T>(bytes, count)?))
}

/// The closures of a kernel: what its launch passes, its dynamic shared memory, what a row's
/// result is.
type ArgsFn = Box<dyn Fn(&Shape) -> Vec<Arg>>;
type SharedFn = Box<dyn Fn(u32, &Variant) -> u32>;
type RestrictFn = Box<dyn Fn(u32, &Variant) -> bool>;
type ResultFn = Box<dyn Fn(&Readback, &Shape) -> Result<Values>>;

/// A kernel of your own, ready to sweep: its module and entry points, its axes beyond the block
/// size ([`Axis`]), its buffers, the arguments of a launch at a grid and block size, the dynamic
/// shared memory a block size needs, what one pass covers and moves, and the checks every row
/// must pass. Built with the methods below, swept by [`crate::sweep`].
///
/// It is a workload like this repository's own kernels: the same engine that sweeps this project's kernels sweeps it, and the
/// same table, exports and plot render the result.
pub struct UserKernel {
    module: EmbeddedPtx,
    /// The entry point of a configuration whose axes select none.
    entry: &'static str,
    axes: Vec<Axis>,
    /// The cross product of the axes, or why there is none.
    variants: Result<Vec<Variant>, String>,
    buffers: Vec<BufferSpec>,
    args: ArgsFn,
    shared: SharedFn,
    restrict: RestrictFn,
    result: Option<ResultFn>,
    checks: Vec<Check>,
    pass: Pass,
    // The run's state.
    max_grid: u32,
    uploaded: Vec<BufferId>,
    active: usize,
    last: RefCell<Option<Shape>>,
    first: Option<(Values, String)>,
}

impl std::fmt::Debug for UserKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserKernel")
            .field("module", &self.module.label)
            .field("axes", &self.axes)
            .field("variants", &self.variants)
            .field("buffers", &self.buffers.iter().map(|buffer| buffer.name).collect::<Vec<_>>())
            .field("checks", &self.checks)
            .field("pass", &self.pass)
            .finish_non_exhaustive()
    }
}

impl UserKernel {
    /// The kernel `entry` of `module`, with no buffers, no arguments, no dynamic shared memory
    /// and no check yet.
    pub fn new(module: EmbeddedPtx, entry: &'static str) -> Self {
        Self {
            module,
            entry,
            axes: Vec::new(),
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
            result: None,
            checks: Vec::new(),
            pass: Pass {
                kernel: entry,
                frame: FrameSize::new(0, 0),
                bytes_per_pass: 0.0,
                bytes_counted: "moved per pass",
                detail: None,
                items: Some(Items { count: 0, noun: "items" }),
            },
            max_grid: 0,
            uploaded: Vec::new(),
            active: 0,
            last: RefCell::new(None),
            first: None,
        }
    }

    /// One axis of variants beyond the block size, named `name` ("items/thr"): each value
    /// with the entry point it launches, in the order the table shows them. The same as
    /// `.axis(Axis::entries(name, values))`.
    pub fn tunable<V: Into<String>>(
        self,
        name: &'static str,
        values: impl IntoIterator<Item = (V, &'static str)>,
    ) -> Self {
        self.axis(Axis::entries(name, values))
    }

    /// One more axis ([`Axis`]): the sweep runs every block size with every configuration of
    /// the axes (their cross product, the first axis outermost), less what a restriction
    /// leaves out ([`UserKernel::restrict`]) and what cannot launch on the device (a row with
    /// its reason). Each configuration is in every [`Shape`] the closures get
    /// ([`Variant::value`], [`Variant::integer`]); the table, the exports, the plot and
    /// `--emit-rust` have a column, a field or a constant per axis.
    ///
    /// ```
    /// use block_size_runner::{Arg, Axis, EmbeddedPtx, GridPolicy, UserKernel};
    /// # const PTX: EmbeddedPtx = EmbeddedPtx::user("k", "");
    /// let kernel = UserKernel::new(PTX, "tiled")
    ///     .axis(Axis::entries("items/thr", [("1", "tiled"), ("4", "tiled_x4")]))
    ///     .axis(Axis::powers_of_two("tile", 8, 64))
    ///     .axis(Axis::grid("grid", [GridPolicy::OneWave, GridPolicy::Waves(2)]))
    ///     // The tile is an argument, and sizes the shared memory.
    ///     .args(|_| vec![Arg::buffer("x"), Arg::Axis("tile")])
    ///     .dynamic_shared_memory(|threads, variant| threads * variant.integer("tile").unwrap_or(1) as u32 * 4);
    /// assert_eq!(kernel.variants().len(), 2 * 4 * 2);
    /// ```
    pub fn axis(mut self, axis: Axis) -> Self {
        self.axes.push(axis);
        let entry = self.entry;
        self.variants = axes::cross(&self.axes).map(|points| {
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
        if let Some(first) = self.variants().first() {
            self.pass.kernel = first.entry;
        }
        self
    }

    /// What one pass covers: `count` items called `noun` ("values"). The grid policies size
    /// every grid by the count.
    pub fn items(mut self, count: u64, noun: &'static str) -> Self {
        self.pass.items = Some(Items { count, noun });
        self
    }

    /// Bytes one pass moves, which the GB/s column counts.
    pub fn bytes_per_pass(mut self, bytes: u64) -> Self {
        self.pass.bytes_per_pass = bytes as f64;
        self
    }

    /// A line under the header on the kernel ("Kernel: ..."), where it helps to read the table.
    pub fn detail(mut self, line: impl Into<String>) -> Self {
        self.pass.detail = Some(line.into());
        self
    }

    /// An input buffer named `name` holding `values`: uploaded once, before the first row.
    pub fn input<T: Element>(mut self, name: &'static str, values: impl Into<Vec<T>>) -> Self {
        let values: Vec<T> = values.into();
        self.buffers.push(BufferSpec {
            name,
            length: Length::Elements(values.len()),
            input: Some(as_bytes(&values).to_vec()),
            element_size: T::SIZE,
            decode: decode::<T>,
            zero_before_each: false,
            corrupt: T::corrupt().to_ne(),
        });
        self
    }

    /// An output buffer named `name` of `len` values of `T`: zeroed before every row, read back
    /// after its launches.
    pub fn output<T: Element>(mut self, name: &'static str, len: usize) -> Self {
        self.buffers.push(BufferSpec {
            name,
            input: None,
            length: Length::Elements(len),
            element_size: T::SIZE,
            decode: decode::<T>,
            zero_before_each: false,
            corrupt: T::corrupt().to_ne(),
        });
        self
    }

    /// An output buffer named `name` of one value of `T` per block (a reduction's partials):
    /// as many as the largest grid the sweep can launch, of which each row reads back its own
    /// grid's.
    pub fn output_per_block<T: Element>(mut self, name: &'static str) -> Self {
        self = self.output::<T>(name, 0);
        if let Some(buffer) = self.buffers.last_mut() {
            buffer.length = Length::PerBlock;
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
    pub fn args(mut self, args: impl Fn(&Shape) -> Vec<Arg> + 'static) -> Self {
        self.args = Box::new(args);
        self
    }

    /// The dynamic shared memory a block of the given threads needs, for the given value of the
    /// configuration of the axes, in bytes (`sharedMemBytes`); the occupancy queries get it
    /// too. None without it. A configuration that needs more than the device gives a block is
    /// not launched: its row says so.
    pub fn dynamic_shared_memory(mut self, bytes: impl Fn(u32, &Variant) -> u32 + 'static) -> Self {
        self.shared = Box::new(bytes);
        self
    }

    /// A restriction over configurations: only those where `keep(threads_per_block, variant)`
    /// holds are measured; the others are left out of the sweep, its table and exports, and of
    /// the count that decides whether a sweep races ([`crate::Search`]). A restriction that
    /// keeps none of the configurations asked for is refused (exit 2) before the device is
    /// touched.
    ///
    /// ```
    /// use block_size_runner::{EmbeddedPtx, UserKernel};
    /// # const PTX: EmbeddedPtx = EmbeddedPtx::user("k", "");
    /// // Four items per thread only at 128 threads and more.
    /// let kernel = UserKernel::new(PTX, "sum")
    ///     .tunable("items/thr", [("1", "sum"), ("4", "sum_x4")])
    ///     .restrict(|threads, variant| variant.value("items/thr") != Some("4") || threads >= 128);
    /// # let _ = kernel;
    /// ```
    pub fn restrict(mut self, keep: impl Fn(u32, &Variant) -> bool + 'static) -> Self {
        self.restrict = Box::new(keep);
        self
    }

    /// The block sizes of `block_sizes` that configuration `index` of the axes keeps
    /// ([`UserKernel::restrict`]), in order.
    pub(crate) fn kept(&self, index: usize, block_sizes: &[u32]) -> Vec<u32> {
        let variant = &self.variants()[index];
        block_sizes.iter().copied().filter(|&threads| (self.restrict)(threads, variant)).collect()
    }

    /// What a row's result is, from its outputs: a sum of partials, a histogram. The checks
    /// compare this; without it, the result is the only output buffer's values.
    pub fn result(mut self, result: impl Fn(&Readback, &Shape) -> Result<Values> + 'static) -> Self {
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
    pub fn module(&self) -> EmbeddedPtx {
        self.module
    }

    /// The axes' names, in order (empty where it has none).
    pub fn axis_names(&self) -> Vec<String> {
        self.axes.iter().map(|axis| axis.name().to_string()).collect()
    }

    /// The configurations of the axes with their kernels, in the sweep's order (one, with no
    /// value, where there is no axis; none where the axes are refused).
    pub fn variants(&self) -> &[Variant] {
        self.variants.as_deref().unwrap_or(&[])
    }

    /// The kernels the configurations launch, each once, in order of first use.
    pub fn kernels(&self) -> Vec<KernelRef> {
        let mut entries: Vec<&'static str> = Vec::new();
        for variant in self.variants() {
            if !entries.contains(&variant.entry) {
                entries.push(variant.entry);
            }
        }
        entries.into_iter().map(|entry| self.module.kernel(entry)).collect()
    }

    /// Device bytes of every buffer, outputs of one element per block at `max_grid` blocks.
    pub(crate) fn device_bytes(&self, max_grid: u32) -> u64 {
        self.buffers.iter().map(|buffer| (self.length(buffer, max_grid) * buffer.element_size) as u64).sum()
    }

    /// How many configurations a sweep over `block_sizes` has: one per block size and
    /// configuration of the axes that the restriction keeps ([`UserKernel::restrict`]).
    pub(crate) fn configurations(&self, block_sizes: &[u32]) -> usize {
        (0..self.variants().len()).map(|index| self.kept(index, block_sizes).len()).sum()
    }

    /// Host bytes the checks read back: every output at the largest grid.
    pub(crate) fn host_bytes(&self) -> u64 {
        let outputs = self.buffers.iter().filter(|buffer| buffer.input.is_none());
        outputs.map(|buffer| (self.length(buffer, self.max_grid) * buffer.element_size) as u64).sum()
    }

    /// The first output's elements that `--corrupt-output` may name, and how to say so: all of
    /// a fixed-length output; of one per block, element 0, the one every row's grid has.
    pub(crate) fn first_output(&self) -> Option<(u64, String)> {
        let buffer = self.buffers.iter().find(|buffer| buffer.input.is_none())?;
        Some(match buffer.length {
            Length::Elements(count) => (count as u64, format!("{count}-element output `{}`", buffer.name)),
            Length::PerBlock => (
                1,
                format!(
                    "output `{}` of one element per block, of which only element 0 is in every grid",
                    buffer.name
                ),
            ),
        })
    }

    fn length(&self, buffer: &BufferSpec, max_grid: u32) -> usize {
        match buffer.length {
            Length::Elements(count) => count,
            Length::PerBlock => max_grid as usize,
        }
    }

    /// What a sweep over `block_sizes` needs checked before it starts: an item count, at least
    /// one check, buffer names unique, a result to check. The message is one line.
    pub(crate) fn validate(&self) -> Result<(), String> {
        if self.pass.item_count() == 0 {
            return Err("the kernel covers no items: give their count with .items(count, noun)".into());
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
        }
        let outputs = self.buffers.iter().filter(|buffer| buffer.input.is_none()).count();
        if self.result.is_none() && outputs != 1 {
            return Err(format!(
                "the kernel has {outputs} output buffers: say what a row's result is with .result(...)"
            ));
        }
        Ok(())
    }

    /// Gets ready for a sweep over `block_sizes`: the largest grid it can launch (for outputs
    /// of one element per block), and no first row yet.
    pub(crate) fn prepare(&mut self, block_sizes: &[u32]) {
        self.max_grid = GridPolicy::largest_grid(self.pass.item_count(), block_sizes);
        self.first = None;
        self.active = 0;
        self.uploaded.clear();
        self.last.replace(None);
    }

    /// Makes configuration `index` of the axes the one launched.
    pub(crate) fn select(&mut self, index: usize) {
        self.active = index;
    }

    fn buffer_id(&self, name: &str) -> Result<BufferId> {
        let index = self.buffers.iter().position(|buffer| buffer.name == name).with_context(|| {
            format!("the launch passes the buffer `{name}`, which the kernel does not have")
        })?;
        self.uploaded.get(index).copied().context("the kernel's buffers are not uploaded")
    }

    /// The result of the row just launched, and where it is wrong.
    fn judge(&mut self, readback: &Readback, shape: &Shape) -> Result<Option<Mismatch>> {
        let result = match &self.result {
            Some(result) => result(readback, shape).context("computing the row's result")?,
            None => readback.buffers.first().map(|(_, values)| values.clone()).context("no output buffer")?,
        };
        let row = shape.describe();
        let mut wrong = Vec::new();
        let mut index = None;
        for check in &self.checks {
            match check {
                Check::Reference(reference) => {
                    if let Err(description) = reference(&result, shape) {
                        wrong.push(description);
                    }
                }
                Check::SameAsFirst(agreement) => match &self.first {
                    None => {}
                    Some((first, first_row)) => {
                        if let Some((at, description)) = agreement.difference(first, &result, first_row) {
                            index = index.or(at);
                            wrong.push(description);
                        }
                    }
                },
            }
        }
        if self.first.is_none() {
            self.first = Some((result, row));
        }
        Ok((!wrong.is_empty()).then(|| Mismatch { index, description: wrong.join("; ") }))
    }
}

impl Workload for UserKernel {
    fn pass(&self) -> &Pass {
        &self.pass
    }

    fn dynamic_shared_memory(&self, threads_per_block: u32) -> u32 {
        (self.shared)(threads_per_block, &self.variants()[self.active])
    }

    fn upload(&mut self, gpu: &mut dyn Gpu) -> Result<()> {
        ensure!(self.max_grid > 0, "the kernel was not prepared for a sweep (user::run prepares it)");
        let mut uploaded = Vec::with_capacity(self.buffers.len());
        for buffer in &self.buffers {
            let id = match &buffer.input {
                Some(bytes) => gpu.alloc_and_upload(bytes),
                None => gpu.alloc_zeroed(self.length(buffer, self.max_grid) * buffer.element_size),
            }
            .with_context(|| format!("allocating the buffer `{}`", buffer.name))?;
            uploaded.push(id);
        }
        self.uploaded = uploaded;
        Ok(())
    }

    fn launch(&self, grid_blocks: u32, threads_per_block: u32) -> Result<Launch> {
        let shape = Shape { grid_blocks, threads_per_block, variant: self.variants()[self.active].clone() };
        let args = (self.args)(&shape)
            .into_iter()
            .map(|arg| {
                Ok(match arg {
                    Arg::Buffer(name) => KernelArg::Buffer(self.buffer_id(name)?, 0),
                    Arg::U32(value) => KernelArg::U32(value),
                    Arg::U64(value) => KernelArg::U64(value),
                    Arg::Usize(value) => KernelArg::Usize(value),
                    Arg::Axis(name) => {
                        let value = shape.variant.integer(name).with_context(|| {
                            format!("the launch passes the axis `{name}`, which is not an integer axis of the kernel")
                        })?;
                        KernelArg::U32(u32::try_from(value).with_context(|| {
                            format!("the axis `{name}` is {value} here, which does not fit in a u32 argument")
                        })?)
                    }
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let zero_before_each = self
            .buffers
            .iter()
            .zip(&self.uploaded)
            .filter(|(buffer, _)| buffer.zero_before_each)
            .map(|(_, id)| *id)
            .collect();
        let launch = Launch {
            grid_blocks,
            threads_per_block,
            dynamic_shared_memory: Workload::dynamic_shared_memory(self, threads_per_block),
            args,
            zero_before_each,
        };
        self.last.replace(Some(shape));
        Ok(launch)
    }

    fn clear_outputs(&mut self, gpu: &mut dyn Gpu) -> Result<()> {
        ensure!(self.uploaded.len() == self.buffers.len(), "the kernel's buffers are not uploaded");
        for (buffer, id) in self.buffers.iter().zip(&self.uploaded) {
            if buffer.input.is_none() {
                gpu.zero(*id)?;
            }
        }
        Ok(())
    }

    fn corrupt(&mut self, gpu: &mut dyn Gpu, index: usize) -> Result<()> {
        let (buffer, id) = self
            .buffers
            .iter()
            .zip(&self.uploaded)
            .find(|(buffer, _)| buffer.input.is_none())
            .context("the kernel has no output buffer to corrupt")?;
        gpu.upload(*id, index * buffer.element_size, &buffer.corrupt)
            .with_context(|| format!("overwriting element {index} of `{}`", buffer.name))
    }

    fn check(&mut self, gpu: &mut dyn Gpu) -> Result<Option<Mismatch>> {
        let Some(shape) = self.last.borrow().clone() else { bail!("a row was checked before any launch") };
        let mut buffers = Vec::new();
        for (buffer, id) in self.buffers.iter().zip(&self.uploaded) {
            if buffer.input.is_some() {
                continue;
            }
            let count = match buffer.length {
                Length::Elements(count) => count,
                Length::PerBlock => shape.grid_blocks as usize,
            };
            let mut bytes = vec![0u8; count * buffer.element_size];
            gpu.download(*id, 0, &mut bytes).with_context(|| format!("reading back `{}`", buffer.name))?;
            buffers.push((buffer.name, (buffer.decode)(&bytes, count)?));
        }
        self.judge(&Readback { buffers }, &shape)
    }
}
