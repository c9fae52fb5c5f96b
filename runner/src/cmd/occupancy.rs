/*!
`block-size occupancy`: the occupancy calculator, no GPU needed. For a kernel of `--regs`
registers per thread and `--smem` bytes of shared memory per block, how many blocks of each
size fit on one SM of a preset GPU ([`crate::model`]), the occupancy they reach and which
limit binds; with `--compare-gpus`, several presets side by side.
*/

use super::unique_block_sizes;
use crate::model::{self, Occupancy, Preset};
use crate::report::render_columns;
use crate::sweep::DEFAULT_BLOCK_SIZES;
use clap::builder::PossibleValuesParser;
use clap::{ArgAction, ArgGroup, Args};

/// Registers per thread `occupancy` assumes without `--regs`: the grayscale kernel's count
/// on sm_90 (ptxas -v on the committed PTX).
pub const DEFAULT_REGISTERS: u32 = 16;

// The options of `block-size occupancy`.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[command(
    about = "Blocks per SM, occupancy and the binding limit for a preset GPU, from a model; no GPU needed",
    group(ArgGroup::new("which").args(["gpu", "compare-gpus"]).required(true))
)]
#[cfg_attr(doc, doc = "The options of `block-size occupancy`.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct OccupancyArgs {
    /// The GPU to model
    #[arg(long, value_name = "PRESET", value_parser = presets(), ignore_case = true)]
    pub gpu: Option<String>,

    /// Several presets side by side, comma-separated
    #[arg(
        long,
        id = "compare-gpus",
        value_name = "LIST",
        value_delimiter = ',',
        value_parser = presets(),
        ignore_case = true,
        conflicts_with = "gpu",
        action = ArgAction::Set
    )]
    pub compare_gpus: Vec<String>,

    /// Registers per thread (ptxas -v, or the driver's NUM_REGS)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=255), default_value_t = DEFAULT_REGISTERS)]
    pub regs: u32,

    /// Shared memory per block, static plus dynamic, in bytes
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    pub smem: u32,

    /// Threads per block, 1 to 1024
    #[arg(
        long,
        id = "block-sizes",
        value_name = "LIST",
        value_delimiter = ',',
        value_parser = clap::value_parser!(u32).range(1..=1024),
        default_values_t = DEFAULT_BLOCK_SIZES,
        action = ArgAction::Set
    )]
    pub block_sizes: Vec<u32>,
}

/// `--gpu` and `--compare-gpus` take the presets' keys.
fn presets() -> PossibleValuesParser {
    PossibleValuesParser::new(model::PRESETS.iter().map(|preset| preset.key))
}

/// What `block-size occupancy` was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OccupancyOptions {
    /// Preset keys, one (`--gpu`) or several (`--compare-gpus`).
    pub gpus: Vec<String>,
    /// Registers per thread of the kernel modelled.
    pub registers_per_thread: u32,
    /// Shared memory per block of the kernel modelled, in bytes.
    pub shared_memory_per_block: u32,
    /// Threads per block of each row.
    pub block_sizes: Vec<u32>,
}

impl OccupancyArgs {
    /// The options, once they hold; the message is one line.
    pub fn validate(&self) -> Result<OccupancyOptions, String> {
        let gpus = match &self.gpu {
            Some(gpu) => vec![gpu.to_ascii_lowercase()],
            None => self.compare_gpus.iter().map(|gpu| gpu.to_ascii_lowercase()).collect(),
        };
        Ok(OccupancyOptions {
            gpus,
            registers_per_thread: self.regs,
            shared_memory_per_block: self.smem,
            block_sizes: unique_block_sizes(&self.block_sizes)?,
        })
    }
}

/// What the model says: each preset's occupancy at each block size.
#[derive(Debug, Clone, PartialEq)]
pub struct Modelled {
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
pub fn run(options: &OccupancyOptions) -> Modelled {
    let presets: Vec<&'static Preset> =
        options.gpus.iter().map(|key| model::preset(key).expect("the CLI accepts presets only")).collect();
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
pub fn render(modelled: &Modelled) -> String {
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
                crate::occupancy::warps_per_block(*threads).to_string(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::testing::parse;

    fn options(args: &[&str]) -> Result<OccupancyOptions, String> {
        parse::<OccupancyArgs>(args)?.0.validate()
    }

    #[test]
    fn occupancy_takes_one_gpu_or_a_comparison() {
        let one = options(&["--gpu", "H200", "--regs", "128", "--smem", "49152", "--block-sizes", "256"]);
        assert_eq!(
            one,
            Ok(OccupancyOptions {
                gpus: vec!["h200".into()],
                registers_per_thread: 128,
                shared_memory_per_block: 49152,
                block_sizes: vec![256]
            })
        );
        let several = options(&["--compare-gpus", "t4,rtx5090,h100"]).unwrap();
        assert_eq!(several.gpus, ["t4", "rtx5090", "h100"]);
        assert_eq!((several.registers_per_thread, several.shared_memory_per_block), (DEFAULT_REGISTERS, 0));
        assert_eq!(several.block_sizes, DEFAULT_BLOCK_SIZES);
    }

    #[test]
    fn occupancy_rejects_unknown_gpus_and_impossible_kernels() {
        let error = |args: &[&str]| options(args).unwrap_err();
        assert!(error(&["--gpu", "v100"]).contains("invalid value 'v100' for '--gpu <PRESET>'"));
        assert!(error(&[]).contains("required"));
        assert!(error(&["--gpu", "t4", "--compare-gpus", "h100"]).contains("cannot be used with"));
        assert!(error(&["--gpu", "t4", "--regs", "256"]).contains("--regs"));
        assert!(error(&["--gpu", "t4", "--block-sizes", "2048"]).contains("--block-sizes"));
        assert!(error(&["--gpu", "t4", "--width", "5"]).contains("--width"));
        assert_eq!(
            error(&["--gpu", "t4", "--block-sizes", "64,64"]),
            "block size 64 is listed twice in --block-sizes"
        );
    }

    #[test]
    fn one_preset_gets_the_limiter_and_several_get_two_columns_each() {
        let heading = |text: &str, line: usize| -> Vec<String> {
            text.lines().nth(line).unwrap().split_whitespace().map(String::from).collect()
        };
        let options = options(&["--gpu", "h200", "--regs", "128", "--block-sizes", "64,1024"]).unwrap();
        let one = render(&run(&options));
        assert_eq!(heading(&one, 3), ["thr/blk", "warps", "blk/SM", "warps/SM", "occ", "limiter"], "{one}");
        assert_eq!(heading(&one, 4), ["64", "2", "8", "16", "25%", "registers"], "{one}");
        let several = render(&run(&options_of_several()));
        assert_eq!(
            heading(&several, 4),
            ["thr/blk", "t4", "blk/SM", "occ", "h100", "blk/SM", "occ"],
            "{several}"
        );
    }

    fn options_of_several() -> OccupancyOptions {
        options(&["--compare-gpus", "t4,h100", "--block-sizes", "64"]).unwrap()
    }
}
