/*!
`block-size occupancy`: the occupancy calculator, no GPU needed. For a kernel of `--regs`
registers per thread and `--smem` bytes of shared memory per block, how many blocks of each
size fit on one SM of a preset GPU ([`crate::model::sm`]), the occupancy they reach and which
limit binds; with `--compare-gpus`, several presets side by side. With `--block-shapes`, rows
are block shapes (`32x8`, or every 2-D or 3-D shape of each `--block-sizes` count): residency
depends on the thread count `x * y * z` alone, and each dimension is held to the device's
bounds ([`crate::model::block_shape`]).
*/

use crate::commands::settings::{check_block_shapes, check_block_sizes};

use crate::error::{Error, exit};
use crate::model::block_shape::{BlockShape, MAX_THREADS_PER_BLOCK};
use crate::model::occupancy::DEFAULT_BLOCK_SIZES;
use crate::model::sm::{self, DEFAULT_REGISTERS, Occupancy, Preset};
use crate::results::table::render_columns;

/// The presets `--gpu` and `--compare-gpus` take: key and name.
fn presets() -> impl Iterator<Item = (&'static str, &'static str)> {
    sm::PRESETS.iter().map(|preset| (preset.key, preset.name))
}

/// What `block-size occupancy` is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OccupancyRequest {
    /// Preset keys ([`presets`]), one (`--gpu`) or several (`--compare-gpus`); any case.
    pub gpus: Vec<String>,
    /// `--regs`: registers per thread of the kernel modelled, 0 to 255.
    pub registers_per_thread: u32,
    /// `--smem`: shared memory per block of the kernel modelled, in bytes.
    pub shared_memory_per_block: u32,
    /// `--block-sizes`: threads per block of each row, 1 to 1024.
    pub block_sizes: Vec<u32>,
    /// `--block-shapes`: the shapes (`32x8`); empty for the block sizes as 1-D blocks.
    pub block_shapes: Vec<BlockShape>,
}

impl Default for OccupancyRequest {
    fn default() -> Self {
        Self {
            gpus: Vec::new(),
            registers_per_thread: DEFAULT_REGISTERS,
            shared_memory_per_block: 0,
            block_sizes: DEFAULT_BLOCK_SIZES.to_vec(),
            block_shapes: Vec::new(),
        }
    }
}

impl OccupancyRequest {
    fn presets(&self) -> Result<Vec<&'static Preset>, Error> {
        if self.gpus.is_empty() {
            return Err(usage("give a GPU to model: --gpu PRESET or --compare-gpus LIST".to_string()));
        }
        let presets = self
            .gpus
            .iter()
            .map(|key| {
                sm::preset(&key.to_ascii_lowercase()).ok_or_else(|| {
                    let keys: Vec<&str> = presets().map(|(key, _)| key).collect();
                    usage(format!("there is no preset `{key}`; the presets: {}", keys.join(", ")))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if self.registers_per_thread > 255 {
            return Err(usage(format!("--regs must be 0 to 255, not {}", self.registers_per_thread)));
        }
        check_block_sizes(&self.block_sizes).map_err(usage)?;
        if let Some(size) = self.block_sizes.iter().find(|&&size| size > MAX_THREADS_PER_BLOCK) {
            return Err(usage(format!(
                "--block-sizes: {size} is above the {MAX_THREADS_PER_BLOCK} threads a block can have"
            )));
        }
        Ok(presets)
    }

    /// The rows' blocks: `--block-shapes`, each within every device's bounds and none twice,
    /// or the block sizes as 1-D blocks.
    fn blocks(&self) -> Result<Vec<BlockShape>, Error> {
        if self.block_shapes.is_empty() {
            return Ok(self.block_sizes.iter().map(|&threads| BlockShape::linear(threads)).collect());
        }
        check_block_shapes(&self.block_shapes).map_err(usage)?;
        Ok(self.block_shapes.clone())
    }
}

/// A refusal of the request: one line, exit 2.
fn usage(message: String) -> Error {
    Error::new(exit::USAGE, message)
}

/// The calculator's tables for `request`.
pub(crate) fn exec(request: &OccupancyRequest) -> Result<String, Error> {
    let presets = request.presets()?;
    let blocks = request.blocks()?;
    Ok(render(&run(presets, request, &blocks)))
}

/// What the model says: each preset's occupancy at each block size.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Modelled {
    /// The GPUs modelled, one table each.
    pub presets: Vec<&'static Preset>,
    /// Registers per thread of the kernel modelled.
    pub registers_per_thread: u32,
    /// Shared memory per block of the kernel modelled, in bytes.
    pub shared_memory_per_block: u32,
    /// Per block, one occupancy per preset, in the presets' order.
    pub rows: Vec<(BlockShape, Vec<Occupancy>)>,
}

/// Runs the model for every preset and block asked.
fn run(presets: Vec<&'static Preset>, options: &OccupancyRequest, blocks: &[BlockShape]) -> Modelled {
    let (registers, shared) = (options.registers_per_thread, options.shared_memory_per_block);
    let rows = blocks
        .iter()
        .map(|&block| {
            let threads = block.threads();
            (
                block,
                presets.iter().map(|preset| preset.model().occupancy(threads, registers, shared)).collect(),
            )
        })
        .collect();
    Modelled { presets, registers_per_thread: registers, shared_memory_per_block: shared, rows }
}

/// The model's table for one preset, or several side by side.
pub(crate) fn render(modelled: &Modelled) -> String {
    let mut text = String::new();
    for preset in &modelled.presets {
        let sm = preset.model();
        text += &format!(
            "{}: compute capability {}.{}, {} SMs; per SM {} warps, {} blocks, {} registers, {} KiB shared memory{}\n",
            preset.name,
            preset.compute_capability.0,
            preset.compute_capability.1,
            preset.multiprocessors,
            sm.max_warps_per_sm,
            sm.max_blocks_per_sm,
            sm.registers_per_sm,
            sm.shared_memory_per_sm / 1024,
            if sm.reserved_shared_memory_per_block > 0 {
                format!(" ({} B of it reserved per block)", sm.reserved_shared_memory_per_block)
            } else {
                String::new()
            },
        );
    }
    text += &format!(
        "Kernel: {} registers/thread, {} B shared memory/block\n\n",
        modelled.registers_per_thread, modelled.shared_memory_per_block
    );

    // A table of 1-D blocks reads as it always has; shapes get a column of their own.
    let shaped = modelled.rows.iter().any(|(block, _)| !block.is_linear());
    let lead = |block: &BlockShape| -> Vec<String> {
        if shaped {
            vec![block.to_string(), block.threads().to_string()]
        } else {
            vec![block.threads().to_string()]
        }
    };
    let mut heading =
        if shaped { vec!["block".to_string(), "thr/blk".to_string()] } else { vec!["thr/blk".to_string()] };
    let mut records = Vec::new();
    if let [_] = modelled.presets.as_slice() {
        heading.extend(["warps", "blk/SM", "warps/SM", "occ", "limiter"].map(String::from));
        records.push(heading);
        for (block, occupancies) in &modelled.rows {
            let occupancy = &occupancies[0];
            let mut record = lead(block);
            record.extend([
                crate::model::occupancy::warps_per_block(block.threads()).to_string(),
                occupancy.blocks_per_sm.to_string(),
                occupancy.warps_per_sm.to_string(),
                format!("{:.0}%", occupancy.occupancy_percent),
                occupancy.limiter_names(),
            ]);
            records.push(record);
        }
    } else {
        // Two columns per GPU: its blocks per SM, and the occupancy they reach.
        for preset in &modelled.presets {
            heading.push(format!("{} blk/SM", preset.key));
            heading.push("occ".to_string());
        }
        records.push(heading);
        for (block, occupancies) in &modelled.rows {
            let mut record = lead(block);
            for occupancy in occupancies {
                record.push(occupancy.blocks_per_sm.to_string());
                record.push(format!("{:.0}%", occupancy.occupancy_percent));
            }
            records.push(record);
        }
    }
    text += &render_columns(records);
    text
}
