/*!
`block-size occupancy`: the occupancy calculator, no GPU needed. For a kernel of `--regs`
registers per thread and `--smem` bytes of shared memory per block, how many blocks of each
size fit on one SM of a preset GPU ([`crate::model::sm`]), the occupancy they reach and which
limit binds; with `--compare-gpus`, several presets side by side.
*/

use crate::commands::settings::check_block_sizes;

use crate::error::{Error, exit};
use crate::model::occupancy::DEFAULT_BLOCK_SIZES;
use crate::model::sm::{self, DEFAULT_REGISTERS, Occupancy, Preset};
use crate::results::table::render_columns;

/// The presets `--gpu` and `--compare-gpus` take: key and name.
pub fn presets() -> impl Iterator<Item = (&'static str, &'static str)> {
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
}

impl Default for OccupancyRequest {
    fn default() -> Self {
        Self {
            gpus: Vec::new(),
            registers_per_thread: DEFAULT_REGISTERS,
            shared_memory_per_block: 0,
            block_sizes: DEFAULT_BLOCK_SIZES.to_vec(),
        }
    }
}

impl OccupancyRequest {
    fn presets(&self) -> Result<Vec<&'static Preset>, Error> {
        let usage = |message: String| Error::new(exit::USAGE, message);
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
        if let Some(size) = self.block_sizes.iter().find(|&&size| size > 1024) {
            return Err(usage(format!("--block-sizes: {size} is above the 1024 threads a block can have")));
        }
        Ok(presets)
    }
}

/// The calculator's tables for `request`.
pub(crate) fn exec(request: &OccupancyRequest) -> Result<String, Error> {
    let presets = request.presets()?;
    Ok(render(&run(presets, request)))
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
    /// Per block size, one occupancy per preset, in the presets' order.
    pub rows: Vec<(u32, Vec<Occupancy>)>,
}

/// Runs the model for every preset and block size asked.
fn run(presets: Vec<&'static Preset>, options: &OccupancyRequest) -> Modelled {
    let (registers, shared) = (options.registers_per_thread, options.shared_memory_per_block);
    let rows = options
        .block_sizes
        .iter()
        .map(|&threads| {
            (
                threads,
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

    let mut records = Vec::new();
    if let [_] = modelled.presets.as_slice() {
        records.push(["thr/blk", "warps", "blk/SM", "warps/SM", "occ", "limiter"].map(String::from).to_vec());
        for (threads, occupancies) in &modelled.rows {
            let occupancy = &occupancies[0];
            records.push(vec![
                threads.to_string(),
                crate::model::occupancy::warps_per_block(*threads).to_string(),
                occupancy.blocks_per_sm.to_string(),
                occupancy.warps_per_sm.to_string(),
                format!("{:.0}%", occupancy.occupancy_percent),
                occupancy.limiter_names(),
            ]);
        }
    } else {
        // Two columns per GPU: its blocks per SM, and the occupancy they reach.
        let mut heading = vec!["thr/blk".to_string()];
        for preset in &modelled.presets {
            heading.push(format!("{} blk/SM", preset.key));
            heading.push("occ".to_string());
        }
        records.push(heading);
        for (threads, occupancies) in &modelled.rows {
            let mut record = vec![threads.to_string()];
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
