/*!
[`Run`]: a [`Kernel`] being measured, the [`Workload`] every measurement (the sweep, `compare`,
`tail`, `variants`) launches and checks. It holds what the description does not: the host data
its inputs are built into (once, whatever the number of devices), the buffers on the device of
the moment, the configuration of the axes launched, what the checks compare with (the values of
[`Check::expected`](crate::Check::expected), built once; the first row's result for
[`Check::same_as_first`](crate::Check::same_as_first)), and where the GPU holds them.

A row is checked on the GPU where it can be (every check against expected values or the first
row, the result the output buffer itself, and a backend with comparison kernels): only a count
and the first bad index come back. A row found wrong there, and every row of any other kernel,
is copied back and judged on the host, which words the failure.
*/

use super::check::{CheckKind, Values};
use super::description::{Arg, BufferSpec, Kernel, Length, Readback, Role, Source};
use super::shape::{LaunchShape, Variant};
use crate::measure::gpu::backend::{BufferId, Gpu, KernelArg, Launch};
use crate::measure::gpu::device::Footprint;
use crate::measure::sampling::workload::Workload;
use crate::measure::supervision::progress::Phase;
use crate::model::block_shape::{BlockShape, GridShape};
use crate::model::mismatch::Mismatch;
use crate::model::pass::Pass;
use anyhow::{Context as _, Result, bail, ensure};
use std::cell::RefCell;

/// An input's values on the host, and the axis value they were built for (`None`: for every
/// configuration).
struct Built {
    key: Option<u64>,
    values: Values,
}

/// A kernel being measured: its host data, its buffers on one device, its active configuration.
pub(crate) struct Run<'k> {
    kernel: &'k Kernel,
    /// The largest grid a launch of this run may have: outputs of one element per block hold
    /// this many.
    max_grid: u32,
    /// Each buffer's built values, inputs alone.
    host: Vec<Option<Built>>,
    /// Each buffer on the device of the moment, with the key its input was built for.
    device: Vec<(BufferId, Option<u64>)>,
    active: usize,
    last: RefCell<Option<LaunchShape>>,
    first: Option<(Values, String)>,
    /// Each check's expected values ([`CheckKind::Expected`]), built the first time a row is
    /// checked, for every device.
    expected: Vec<Option<Values>>,
    /// What each check compares with on the device of the moment: an upload of its expected
    /// values, or the first row's output copied there, with the elements it holds and the
    /// row it came from.
    on_device: Vec<Option<Reference>>,
}

/// What a check compares with, on the device: a buffer, and what it holds.
#[derive(Debug, Clone)]
struct Reference {
    buffer: BufferId,
    /// `None`: nothing yet (a first row to come).
    holds: Option<Held>,
}

/// What a device [`Reference`] holds: this many elements, from this row (the first row's
/// description; empty for expected values).
#[derive(Debug, Clone)]
struct Held {
    elements: usize,
    row: String,
}

impl<'k> Run<'k> {
    /// A run of `kernel` whose grids have at most `max_grid` blocks.
    pub fn new(kernel: &'k Kernel, max_grid: u32) -> Self {
        Self {
            kernel,
            max_grid: max_grid.max(1),
            host: kernel.buffers.iter().map(|_| None).collect(),
            device: Vec::new(),
            active: 0,
            last: RefCell::new(None),
            first: None,
            expected: kernel.checks.iter().map(|_| None).collect(),
            on_device: kernel.checks.iter().map(|_| None).collect(),
        }
    }

    /// Starts a later round of a search (a race's survivors, a rung) on the GPU and the buffers
    /// of its first round: they stay, with their inputs ([`Run::select`] uploads again what
    /// another axis value left stale); the check's first row and the last launch are forgotten,
    /// as an upload forgets them. `false`, and nothing done, where nothing is uploaded.
    pub fn start_later_round(&mut self) -> bool {
        if self.device.is_empty() && !self.kernel.buffers.is_empty() {
            return false;
        }
        self.forget_first();
        self.last.replace(None);
        true
    }

    /// Forgets the first row's result, on the host and on the device (whose buffer is kept for
    /// the next first row).
    fn forget_first(&mut self) {
        self.first = None;
        for (check, reference) in self.kernel.checks.iter().zip(&mut self.on_device) {
            if let (CheckKind::SameAsFirst(_), Some(reference)) = (&check.0, reference) {
                reference.holds = None;
            }
        }
    }

    /// The kernel measured.
    pub fn kernel(&self) -> &'k Kernel {
        self.kernel
    }

    /// The configuration of the axes launched now.
    pub fn variant(&self) -> &'k Variant {
        &self.kernel.variants()[self.active]
    }

    /// Elements the buffer holds on the device: its most over the configurations.
    fn allocated(&self, buffer: &BufferSpec) -> usize {
        match (&buffer.role, &buffer.length) {
            (Role::Output, Length::PerVariant(length)) => {
                self.kernel.variants().iter().map(length).max().unwrap_or(0)
            }
            _ => buffer.len(self.variant(), self.max_grid),
        }
    }

    /// Device and host memory the run needs, before anything is allocated: every buffer with
    /// its offset on the device; the inputs and the outputs read back on the host. `None` where
    /// a count overflows 64 bits.
    pub fn footprint(&self) -> Footprint {
        let mut device = Some(0u64);
        let mut host = Some(0u64);
        for buffer in &self.kernel.buffers {
            let elements = self.allocated(buffer) as u64;
            let size = buffer.element_size as u64;
            let on_device =
                elements.checked_add(buffer.offset as u64).and_then(|count| count.checked_mul(size));
            device = device.zip(on_device).and_then(|(sum, bytes)| sum.checked_add(bytes));
            host = host.zip(elements.checked_mul(size)).and_then(|(sum, bytes)| sum.checked_add(bytes));
        }
        // What the checks compare with: expected values on the host and on each device, the
        // first row's output on each device; as large as the first output.
        if let Some(output) = self.kernel.buffers.iter().find(|buffer| buffer.is_output()) {
            let bytes = (self.allocated(output) as u64).checked_mul(output.element_size as u64);
            for check in &self.kernel.checks {
                let (on_host, on_device) = match check.0 {
                    CheckKind::Expected(_) => (bytes, bytes),
                    CheckKind::SameAsFirst(_) => (Some(0), bytes),
                    CheckKind::Reference(_) => (Some(0), Some(0)),
                };
                device = device.zip(on_device).and_then(|(sum, bytes)| sum.checked_add(bytes));
                host = host.zip(on_host).and_then(|(sum, bytes)| sum.checked_add(bytes));
            }
        }
        let names: Vec<&str> = self.kernel.buffers.iter().map(|buffer| buffer.name).collect();
        let names = match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => "nothing".to_string(),
        };
        let frame = self.kernel.pass.items.is_none().then_some(self.kernel.pass.frame);
        Footprint {
            subject: frame.map_or_else(|| "the kernel".to_string(), |frame| format!("a {frame} frame")),
            device_bytes: device,
            device_what: if self.kernel.checks.iter().any(|check| !matches!(check.0, CheckKind::Reference(_)))
            {
                format!("its buffers {names} and what its checks compare with")
            } else {
                format!("its buffers {names}")
            },
            host_bytes: host,
            host_what: "its inputs, its outputs read back and what its checks compare with".to_string(),
        }
    }

    /// Builds on the host every input the active configuration needs and does not have yet (an
    /// input built for another value of its axis is dropped first). An error is one the host
    /// cannot hold.
    pub fn build(&mut self) -> Result<()> {
        let variant = self.variant();
        let mut phase = None;
        for (index, buffer) in self.kernel.buffers.iter().enumerate() {
            let Role::Input { len, source } = &buffer.role else { continue };
            let key = key_of(source, variant);
            if self.host[index].as_ref().is_some_and(|built| built.key == key) {
                continue;
            }
            self.host[index] = None;
            if matches!(source, Source::Given(_)) {
                continue;
            }
            phase.get_or_insert_with(|| Phase::start("building the kernel's inputs on the host"));
            let values = match source {
                Source::Given(_) => unreachable!("given inputs are not built"),
                Source::Once(make) => make(),
                Source::PerValue { make, .. } => make(key.expect("a per-value input has its axis's value")),
            }
            .with_context(|| format!("building the input `{}`", buffer.name))?;
            ensure!(
                values.len() == *len,
                "the input `{}` was built with {} values, not the {len} it was described with",
                buffer.name,
                values.len()
            );
            self.host[index] = Some(Built { key, values });
        }
        if let Some(phase) = phase {
            phase.finish();
        }
        Ok(())
    }

    /// The values of input `index` for the active configuration: given, or built.
    fn input_values(&self, index: usize) -> Result<&Values> {
        let buffer = &self.kernel.buffers[index];
        match &buffer.role {
            Role::Input { source: Source::Given(values), .. } => Ok(values),
            Role::Input { .. } => self.host[index]
                .as_ref()
                .map(|built| &built.values)
                .with_context(|| format!("the input `{}` was not built", buffer.name)),
            Role::Output => bail!("`{}` is an output", buffer.name),
        }
    }

    /// Makes configuration `index` of the axes the one launched. Where its inputs differ from
    /// those on `gpu` (an input of another value of its axis), they are built and uploaded.
    pub fn select(&mut self, index: usize, gpu: &mut dyn Gpu) -> Result<()> {
        self.active = index;
        if self.device.is_empty() {
            return Ok(());
        }
        let variant = self.variant();
        let stale: Vec<usize> = (0..self.kernel.buffers.len())
            .filter(|&buffer| match &self.kernel.buffers[buffer].role {
                Role::Input { source, .. } => self.device[buffer].1 != key_of(source, variant),
                Role::Output => false,
            })
            .collect();
        if stale.is_empty() {
            return Ok(());
        }
        self.build()?;
        for index in stale {
            let buffer = &self.kernel.buffers[index];
            let Role::Input { source, .. } = &buffer.role else { continue };
            let (id, _) = self.device[index];
            let bytes = self.input_values(index)?.bytes();
            gpu.upload(id, buffer.offset * buffer.element_size, bytes)
                .with_context(|| format!("uploading the input `{}`", buffer.name))?;
            self.device[index].1 = key_of(source, variant);
        }
        Ok(())
    }

    fn buffer_id(&self, name: &str) -> Result<(BufferId, usize)> {
        let index = self.kernel.buffers.iter().position(|buffer| buffer.name == name).with_context(|| {
            format!("the launch passes the buffer `{name}`, which the kernel does not have")
        })?;
        let (id, _) = self.device.get(index).copied().context("the kernel's buffers are not uploaded")?;
        let buffer = &self.kernel.buffers[index];
        Ok((id, buffer.offset * buffer.element_size))
    }

    /// The values check `position` expects ([`CheckKind::Expected`]), built on the host the
    /// first time they are asked for.
    fn expected_values(&mut self, position: usize) -> Result<&Values> {
        let CheckKind::Expected(expected) = &self.kernel.checks[position].0 else {
            bail!("check {position} has no expected values")
        };
        if self.expected[position].is_none() {
            let phase = Phase::start("building the CPU reference");
            let values = (expected.make)().context("building the expected values of a check")?;
            phase.finish();
            self.expected[position] = Some(values);
        }
        Ok(self.expected[position].as_ref().expect("built above"))
    }

    /// Every check's expected values built ([`Run::expected_values`]).
    fn build_expected(&mut self) -> Result<()> {
        for position in 0..self.kernel.checks.len() {
            if matches!(self.kernel.checks[position].0, CheckKind::Expected(_)) {
                self.expected_values(position)?;
            }
        }
        Ok(())
    }

    /// The row just launched (of `shape`), judged on the GPU: `Some(None)` where every check
    /// holds; `None` where the GPU cannot judge it (a check on the host, a result computed from
    /// the outputs, a backend without comparison kernels) or found it wrong: the host then
    /// judges it and words what is wrong.
    fn check_on_device(
        &mut self,
        gpu: &mut dyn Gpu,
        shape: &LaunchShape,
    ) -> Result<Option<Option<Mismatch>>> {
        let checks = &self.kernel.checks;
        if self.kernel.result.is_some()
            || checks.iter().any(|check| matches!(check.0, CheckKind::Reference(_)))
        {
            return Ok(None);
        }
        let Some(output) = self.kernel.buffers.iter().position(BufferSpec::is_output) else {
            return Ok(None);
        };
        let buffer = &self.kernel.buffers[output];
        let got = (self.device[output].0, buffer.offset * buffer.element_size);
        let elements = buffer.len(&shape.variant, shape.grid_blocks);
        let output_type = (buffer.zeros)(0)?;
        let allocated = self.allocated(buffer) * buffer.element_size;
        let mut right = true;
        for (position, check) in checks.iter().enumerate() {
            let (agreement, first) = match &check.0 {
                CheckKind::Expected(expected) => (expected.agreement, false),
                CheckKind::SameAsFirst(agreement) => (*agreement, true),
                CheckKind::Reference(_) => return Ok(None),
            };
            let Some(comparison) = agreement.on_device(&output_type) else { return Ok(None) };
            if first {
                let reference = match &mut self.on_device[position] {
                    Some(reference) => reference,
                    slot => slot.insert(Reference { buffer: gpu.alloc_zeroed(allocated)?, holds: None }),
                };
                match &reference.holds {
                    // The first row: its output, kept on the device, is what the others equal.
                    None => {
                        gpu.copy(got, (reference.buffer, 0), elements * buffer.element_size)
                            .context("keeping the first row's output on the device")?;
                        reference.holds = Some(Held { elements, row: shape.describe() });
                        continue;
                    }
                    Some(held) if held.elements != elements => {
                        right = false;
                        continue;
                    }
                    Some(_) => {}
                }
            } else {
                self.expected_values(position)?;
                let values = self.expected[position].as_ref().expect("built above");
                if values.type_name() != output_type.type_name() || values.len() != elements {
                    right = false;
                    continue;
                }
                if self.on_device[position].is_none() {
                    let buffer =
                        gpu.alloc_and_upload(values.bytes()).context("uploading the expected values")?;
                    self.on_device[position] =
                        Some(Reference { buffer, holds: Some(Held { elements, row: String::new() }) });
                }
            }
            let reference = self.on_device[position].as_ref().expect("set above").buffer;
            match gpu.count_mismatches(got, (reference, 0), elements, comparison)? {
                None => return Ok(None),
                Some(found) => right &= found.count == 0,
            }
        }
        Ok(right.then_some(None))
    }

    /// The row just launched (of `shape`), copied back and judged on the host.
    fn check_on_host(&mut self, gpu: &mut dyn Gpu, shape: &LaunchShape) -> Result<Option<Mismatch>> {
        self.build_expected()?;
        // A first row kept on the device is what the host compares with too.
        if self.first.is_none()
            && let Some((reference, held)) = self.on_device.iter().find_map(|reference| {
                reference
                    .as_ref()
                    .and_then(|reference| Some((reference.buffer, reference.holds.clone()?)))
                    .filter(|(_, held)| !held.row.is_empty())
            })
            && let Some(buffer) = self.kernel.buffers.iter().find(|buffer| buffer.is_output())
        {
            let mut values = (buffer.zeros)(held.elements)?;
            gpu.download(reference, 0, values.bytes_mut()).context("reading back the first row's output")?;
            self.first = Some((values, held.row));
        }
        let mut buffers = Vec::new();
        for (buffer, (id, _)) in self.kernel.buffers.iter().zip(&self.device) {
            if !buffer.is_output() {
                continue;
            }
            let count = buffer.len(&shape.variant, shape.grid_blocks);
            let mut values = (buffer.zeros)(count)?;
            gpu.download(*id, buffer.offset * buffer.element_size, values.bytes_mut())
                .with_context(|| format!("reading back `{}`", buffer.name))?;
            buffers.push((buffer.name, values));
        }
        self.judge(&Readback { buffers }, shape)
    }

    /// The result of the row just launched, and where it is wrong.
    fn judge(&mut self, readback: &Readback, shape: &LaunchShape) -> Result<Option<Mismatch>> {
        let result = match &self.kernel.result {
            Some(result) => result(readback, shape).context("computing the row's result")?,
            None => readback.buffers.first().map(|(_, values)| values.clone()).context("no output buffer")?,
        };
        let row = shape.describe();
        let mut wrong = Vec::new();
        let mut index = None;
        for (position, check) in self.kernel.checks.iter().enumerate() {
            let found = match &check.0 {
                CheckKind::Reference(reference) => {
                    reference(&result, shape).err().map(|description| Mismatch { index: None, description })
                }
                CheckKind::SameAsFirst(agreement) => self.first.as_ref().and_then(|(first, first_row)| {
                    agreement
                        .difference(first, &result, first_row)
                        .map(|(at, description)| Mismatch { index: at, description })
                }),
                CheckKind::Expected(expected) => {
                    let values =
                        self.expected[position].as_ref().context("the expected values were not built")?;
                    expected
                        .agreement
                        .difference_from_expected(values, &result, expected.element)
                        .map(|(at, description)| Mismatch { index: at, description })
                }
            };
            if let Some(mismatch) = found {
                index = index.or(mismatch.index);
                wrong.push(mismatch.description);
            }
        }
        if self.first.is_none() {
            self.first = Some((result, row));
        }
        Ok((!wrong.is_empty()).then(|| Mismatch { index, description: wrong.join("; ") }))
    }
}

/// The axis value an input from `source` is built for at `variant`.
fn key_of(source: &Source, variant: &Variant) -> Option<u64> {
    match source {
        Source::PerValue { axis, .. } => variant.integer(axis),
        _ => None,
    }
}

impl Workload for Run<'_> {
    fn pass(&self) -> &Pass {
        &self.kernel.pass
    }

    fn domain(&self) -> Option<[u64; 3]> {
        self.kernel.domain_sides()
    }

    fn block_covers(&self, block: BlockShape) -> [u64; 3] {
        self.kernel.covers(self.variant(), block)
    }

    fn dynamic_shared_memory(&self, block: BlockShape) -> u32 {
        (self.kernel.shared)(block, self.variant())
    }

    fn upload(&mut self, gpu: &mut dyn Gpu) -> Result<()> {
        self.build()?;
        let variant = self.variant();
        let uploading = Phase::start("uploading the inputs");
        let mut device = Vec::with_capacity(self.kernel.buffers.len());
        for (index, buffer) in self.kernel.buffers.iter().enumerate() {
            let skip = buffer.offset * buffer.element_size;
            let bytes =
                (self.allocated(buffer) * buffer.element_size).checked_add(skip).with_context(|| {
                    format!("the buffer `{}` is larger than this host can address", buffer.name)
                })?;
            let id = gpu
                .alloc_zeroed(bytes)
                .with_context(|| format!("allocating the buffer `{}`", buffer.name))?;
            let key = match &buffer.role {
                Role::Input { source, .. } => {
                    gpu.upload(id, skip, self.input_values(index)?.bytes())
                        .with_context(|| format!("uploading the input `{}`", buffer.name))?;
                    key_of(source, variant)
                }
                Role::Output => None,
            };
            device.push((id, key));
        }
        uploading.finish();
        self.device = device;
        self.first = None;
        // A new device: what the last one held for the checks is not on it.
        self.on_device.iter_mut().for_each(|reference| *reference = None);
        self.last.replace(None);
        Ok(())
    }

    fn launch(&self, grid: GridShape, block: BlockShape) -> Result<Launch> {
        ensure!(
            grid.blocks() <= u64::from(self.max_grid),
            "a grid of {grid} blocks is larger than the {} this run was sized for",
            self.max_grid
        );
        let (grid_blocks, threads_per_block) = (u32::try_from(grid.blocks())?, block.threads());
        let shape =
            LaunchShape { grid_blocks, threads_per_block, grid, block, variant: self.variant().clone() };
        let args = (self.kernel.args)(&shape)
            .into_iter()
            .map(|arg| {
                Ok(match arg {
                    Arg::Buffer(name) => {
                        let (id, offset) = self.buffer_id(name)?;
                        KernelArg::Buffer(id, offset)
                    }
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
            .kernel
            .buffers
            .iter()
            .zip(&self.device)
            .filter(|(buffer, _)| buffer.zero_before_each)
            .map(|(_, (id, _))| *id)
            .collect();
        let launch = Launch {
            grid,
            block,
            dynamic_shared_memory: self.dynamic_shared_memory(block),
            args,
            zero_before_each,
        };
        self.last.replace(Some(shape));
        Ok(launch)
    }

    fn clear_outputs(&mut self, gpu: &mut dyn Gpu) -> Result<()> {
        ensure!(self.device.len() == self.kernel.buffers.len(), "the kernel's buffers are not uploaded");
        for (buffer, (id, _)) in self.kernel.buffers.iter().zip(&self.device) {
            if buffer.is_output() {
                gpu.zero(*id)?;
            }
        }
        Ok(())
    }

    fn corrupt(&mut self, gpu: &mut dyn Gpu, index: usize) -> Result<()> {
        let (buffer, (id, _)) = self
            .kernel
            .buffers
            .iter()
            .zip(&self.device)
            .find(|(buffer, _)| buffer.is_output())
            .context("the kernel has no output buffer to corrupt")?;
        let at = (buffer.offset + index) * buffer.element_size;
        gpu.upload(*id, at, &buffer.corrupt)
            .with_context(|| format!("overwriting element {index} of `{}`", buffer.name))
    }

    fn check(&mut self, gpu: &mut dyn Gpu) -> Result<Option<Mismatch>> {
        let Some(shape) = self.last.borrow().clone() else { bail!("a row was checked before any launch") };
        match self.check_on_device(gpu, &shape)? {
            Some(verdict) => Ok(verdict),
            None => self.check_on_host(gpu, &shape),
        }
    }
}
