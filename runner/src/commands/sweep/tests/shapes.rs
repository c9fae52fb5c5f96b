//! A 2-D kernel of one's own on the mock: `fill(out, width, height)` writes `y * width + x + 1`
//! at every `(x, y)` of a `width x height` domain through a grid-stride loop in x and y, and its
//! CPU emulation walks the launch's threads as the kernel does (`mock::threads`), so a grid that
//! misses an element leaves it 0 and fails the check.

use crate::commands::settings::{Settings, TimingSettings};
use crate::kernel::*;
use crate::measure::gpu::mock::{
    EmulatedMemory, Launch, MockDriver, MockGpu, read_values, threads, write_values,
};
use crate::measure::sampling::timing::TimingMode;
use crate::model::block_shape::BlockShape;
use crate::results::schema::SweepRecord;
use crate::{EmbeddedPtx, Format, GridPolicy};
use anyhow::Result;

const PTX: &str = ".version 7.8\n.target sm_75\n.address_size 64\n\n\
    .visible .entry fill(\n\t.param .u64 p0,\n\t.param .u32 p1,\n\t.param .u32 p2\n)\n{\n\tret;\n}\n\n\
    .visible .entry fill_32x8(\n\t.param .u64 p0,\n\t.param .u32 p1,\n\t.param .u32 p2\n)\n.reqntid 32, 8, 1\n{\n\tret;\n}\n";

const MODULE: EmbeddedPtx = EmbeddedPtx::user("fill", PTX);

/// `out[y * width + x] = y * width + x + 1` for the elements the launch's threads reach.
fn emulate(launch: &Launch, memory: &mut dyn EmulatedMemory, fault: Option<usize>) -> Result<()> {
    let [out, width, height] = launch.args.as_slice() else { anyhow::bail!("fill takes three arguments") };
    let (width, height) = (u64::from(width.as_u32()?), u64::from(height.as_u32()?));
    let mut values = read_values::<u32>(memory.at(out)?, (width * height) as usize)?;
    let step_x = usize::try_from(u64::from(launch.grid.x) * u64::from(launch.block.x))?;
    let step_y = usize::try_from(u64::from(launch.grid.y) * u64::from(launch.block.y))?;
    for thread in threads(launch) {
        let [first_x, first_y, _] = thread.global(launch);
        for y in (first_y..height).step_by(step_y) {
            for x in (first_x..width).step_by(step_x) {
                values[(y * width + x) as usize] = (y * width + x + 1) as u32;
            }
        }
    }
    if let Some(value) = fault.and_then(|index| values.get_mut(index)) {
        *value = 0;
    }
    write_values(memory.at_mut(out)?, &values)
}

fn driver() -> MockDriver {
    let mut gpu = MockGpu::h200_like();
    gpu.emulate(MODULE.kernel("fill"), emulate).emulate(MODULE.kernel("fill_32x8"), emulate);
    MockDriver { cuda_version: 13000, devices: vec![gpu] }
}

/// `entry` over a `width x height` domain, every element checked.
fn kernel(entry: &'static str, width: u32, height: u32) -> Kernel {
    let n = (width * height) as usize;
    Kernel::new(MODULE, entry)
        .items(u64::from(width * height), "elements")
        .bytes_per_pass(4 * u64::from(width * height), "written per pass")
        .domain(width, height, 1)
        .output::<u32>("out", n)
        .args(move |_| vec![Arg::Buffer("out"), Arg::U32(width), Arg::U32(height)])
        .check(Check::reference(move |result, _| {
            let values = result.of::<u32>().ok_or("not u32s")?;
            match (0..n).find(|&i| values[i] != i as u32 + 1) {
                Some(i) => Err(format!("element {i} is {}, not {}", values[i], i + 1)),
                None => Ok(()),
            }
        }))
}

fn settings(shapes: &str, grid: GridPolicy) -> Settings {
    Settings {
        block_shapes: shapes.split(',').filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect(),
        grid,
        timing: TimingSettings {
            mode: TimingMode::Launch,
            warmups: 1,
            runs: Some(2),
            ..TimingSettings::default()
        },
        ..Settings::default()
    }
}

fn shape(text: &str) -> BlockShape {
    text.parse().unwrap()
}

#[test]
fn a_kernel_with_a_domain_sweeps_the_shapes_of_each_block_size_over_2d_grids() {
    let sweep = crate::commands::sweep::sweep_with(
        &driver(),
        &kernel("fill", 1000, 300),
        &settings("", GridPolicy::PerItem),
    )
    .unwrap();
    assert!(sweep.sweep.failures.is_empty(), "{}", sweep.failures());
    let blocks: Vec<String> = sweep.sweep.rows.iter().map(|row| row.block.to_string()).collect();
    // 2d of the default block sizes: the powers of two from 64 in every shape, x at least 32.
    assert_eq!(blocks.len(), 28);
    assert_eq!(blocks[..6], ["16", "32", "64", "32x2", "96", "100"]);
    assert_eq!(blocks[blocks.len() - 6..], ["1024", "512x2", "256x4", "128x8", "64x16", "32x32"]);
    for row in &sweep.sweep.rows {
        // One thread per element: ceil(1000 / x) x ceil(300 / y) blocks, checked at every row.
        let expected = [1000u64.div_ceil(u64::from(row.block.x)), 300u64.div_ceil(u64::from(row.block.y))];
        assert_eq!(
            [u64::from(row.grid.x), u64::from(row.grid.y), u64::from(row.grid.z)],
            [expected[0], expected[1], 1]
        );
        assert_eq!(u64::from(row.grid_blocks), expected[0] * expected[1], "{}", row.block);
        assert_eq!(row.threads_per_block, row.block.threads());
    }
    let table = sweep.table(false);
    assert!(table.contains(" thr/blk   block  warps"), "{table}");
    assert!(table.contains("    32x8 "), "{table}");
    assert!(table.contains(" 32x38 "), "the grid column is the grid's shape: {table}");
}

#[test]
fn a_wave_is_laid_over_the_domain_row_by_row_and_covers_it_by_striding() {
    let sweep = crate::commands::sweep::sweep_with(
        &driver(),
        &kernel("fill", 3840, 64),
        &settings("32x8,1024,8x8x4", GridPolicy::OneWave),
    )
    .unwrap();
    assert!(sweep.sweep.failures.is_empty(), "{}", sweep.failures());
    let grids: Vec<String> = sweep.sweep.rows.iter().map(|row| row.grid.to_string()).collect();
    // 8 blocks/SM of 256 threads on 132 SMs: 1056 blocks, 120 a row of the 120 x 8 per-item grid.
    // 2 of 1024 threads: 264 blocks, 4 a row (ceil(3840 / 1024)), 64 rows, of 66 asked for.
    assert_eq!(grids, ["120x8", "4x64", "480x2"]);
    for row in &sweep.sweep.rows {
        assert!(
            u64::from(row.grid_blocks) <= u64::from(row.blocks_per_sm) * 132,
            "{}: at most one wave",
            row.block
        );
    }
}

#[test]
fn a_wrong_element_fails_the_check_at_its_shape() {
    let mut settings = settings("32x8,16x16", GridPolicy::Waves(2));
    settings.corrupt_output = Some(4321);
    let sweep = crate::commands::sweep::sweep_with(&driver(), &kernel("fill", 500, 50), &settings).unwrap();
    let failures: Vec<String> = sweep.sweep.failures.iter().map(ToString::to_string).collect();
    assert_eq!(failures.len(), 2, "{failures:?}");
    assert!(
        failures[0].starts_with("wrong output at block 32x8: element 4321 is 4294967295, not 4322"),
        "{failures:?}"
    );
    assert!(failures[1].starts_with("wrong output at block 16x16: "), "{failures:?}");
    assert_eq!(sweep.exit_status(), 1);
}

#[test]
fn a_grid_past_the_devices_limits_is_pruned_with_its_reason() {
    // 70000 rows: one thread per element in blocks one row high needs 70000 blocks in y.
    let sweep = crate::commands::sweep::sweep_with(
        &driver(),
        &kernel("fill", 1, 70_000),
        &settings("32,1x8", GridPolicy::PerItem),
    )
    .unwrap();
    assert!(sweep.sweep.failures.is_empty(), "{}", sweep.failures());
    let rows = &sweep.sweep.rows;
    assert_eq!(
        rows[0].pruned.as_deref(),
        Some("grid 1x70000 has 70000 blocks in y, above the device's 65535")
    );
    assert!(rows[0].run_ms.is_empty());
    assert_eq!((rows[1].grid.to_string(), rows[1].pruned.as_deref()), ("1x8750".to_string(), None));
    assert!(!rows[1].run_ms.is_empty());
}

#[test]
fn a_reqntid_shape_is_the_one_block_launched() {
    let sweep = crate::commands::sweep::sweep_with(
        &driver(),
        &kernel("fill_32x8", 640, 64),
        &settings("32x8,16x16,256,8x32", GridPolicy::PerItem),
    )
    .unwrap();
    assert!(sweep.sweep.failures.is_empty(), "{}", sweep.failures());
    let rows = &sweep.sweep.rows;
    assert_eq!((rows[0].block, rows[0].pruned.as_deref()), (shape("32x8"), None));
    for row in &rows[1..] {
        assert_eq!(
            row.pruned.as_deref(),
            Some("the PTX's `.reqntid 32, 8, 1` requires a 32x8x1 block (--block-shapes 32x8x1)"),
            "{}",
            row.block
        );
    }
}

#[test]
fn shapes_go_through_the_exports_and_read_back() {
    let sweep = crate::commands::sweep::sweep_with(
        &driver(),
        &kernel("fill", 300, 200),
        &settings("32x8,256,8x8x4", GridPolicy::PerItem),
    )
    .unwrap();
    let json = sweep.export(Format::Json).unwrap();
    let record = SweepRecord::parse(&json).unwrap();
    let shapes: Vec<(String, String)> =
        record.rows.iter().map(|row| (row.shape().to_string(), row.grid_shape().to_string())).collect();
    assert_eq!(
        shapes,
        [("32x8", "10x25"), ("256", "2x200"), ("8x8x4", "38x25")].map(|(b, g)| (b.into(), g.into()))
    );
    // A block in x alone is written as before block shapes: no `block` field.
    let document: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(document["rows"][0]["block"], "32x8");
    assert_eq!(document["rows"][1].get("block"), None);
    assert_eq!(document["rows"][1]["grid"], "2x200");
    let csv = sweep.export(Format::Csv).unwrap();
    assert!(csv.starts_with("block,grid,threads_per_block,"), "{csv}");
    assert!(csv.lines().nth(1).unwrap().starts_with("32x8,10x25,256,"), "{csv}");
    // A shape whose threads disagree with the row's is refused on reading.
    let edited = json.replacen("\"block\": \"32x8\"", "\"block\": \"16x8\"", 1);
    let refusal = SweepRecord::parse(&edited).unwrap_err();
    assert!(refusal.contains("has block 16x8 beside threads_per_block 256"), "{refusal}");
}

#[test]
fn a_kernel_without_a_domain_refuses_shapes_beyond_x_and_takes_those_in_x() {
    let flat = Kernel::new(MODULE, "fill")
        .items(64, "elements")
        .output::<u32>("out", 64)
        .args(|_| vec![Arg::Buffer("out"), Arg::U32(64), Arg::U32(1)])
        .check(Check::reference(|_, _| Ok(())));
    let error = settings("32x2", GridPolicy::OneWave).validate_for(&flat).unwrap_err();
    assert_eq!(error.exit_status(), 2);
    assert!(
        error.to_string().starts_with("--block-shapes 32x2: the kernel `fill` launches blocks in x alone")
    );
    settings("32,64", GridPolicy::OneWave).validate_for(&flat).unwrap();
    for (shapes, why) in [
        ("32x8,32x8", "block shape 32x8 is listed twice in --block-shapes"),
        ("1x1x128", "--block-shapes 1x1x128: block 1x1x128 has 128 threads in z, above the device's 64"),
        ("64x32", "--block-shapes 64x32: block 64x32 has 2048 threads, above the 1024 a block can have"),
    ] {
        let error = settings(shapes, GridPolicy::OneWave).validate_for(&kernel("fill", 8, 8)).unwrap_err();
        assert_eq!((error.exit_status(), error.to_string().as_str()), (2, why));
    }
}

#[test]
fn diff_keys_rows_by_their_shape_and_shows_it() {
    let sweep = crate::commands::sweep::sweep_with(
        &driver(),
        &kernel("fill", 300, 200),
        &settings("32x8,16x16,256", GridPolicy::PerItem),
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("block-size-shapes-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("shapes.json");
    std::fs::write(&path, sweep.export(Format::Json).unwrap()).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut console = crate::Console { out: &mut out, err: &mut err };
    let code = crate::commands::diff(&path, &path, 0.02, false, false, &mut console).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(code, 0, "{out}{}", String::from_utf8_lossy(&err));
    // 32x8 and 16x16 have the same 256 threads: three configurations, not one.
    let lines: Vec<&str> = out.lines().filter(|line| line.trim_start().starts_with("256 ")).collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(out.contains("thr/blk  block"), "{out}");
    for (line, block) in lines.iter().zip(["32x8", "16x16", "256"]) {
        assert_eq!(line.split_whitespace().nth(1), Some(block), "{out}");
    }
}

#[test]
fn the_markdown_export_has_the_block_and_the_grid_as_shapes() {
    let sweep = crate::commands::sweep::sweep_with(
        &driver(),
        &kernel("fill", 300, 200),
        &settings("32x8,256", GridPolicy::PerItem),
    )
    .unwrap();
    let markdown = sweep.export(Format::Markdown).unwrap();
    assert!(markdown.contains("| block | thr/blk | warps |"), "{markdown}");
    assert!(markdown.contains("| 32x8 | 256 | 8 | 0 |"), "{markdown}");
    assert!(markdown.contains("| 10x25 |"), "{markdown}");
}

#[test]
fn the_html_report_has_the_block_and_the_grid_as_shapes() {
    let sweep = crate::commands::sweep::sweep_with(
        &driver(),
        &kernel("fill", 300, 200),
        &settings("32x8,256", GridPolicy::PerItem),
    )
    .unwrap();
    let html = sweep.export(Format::Html).unwrap();
    assert!(html.contains("<th>block</th><th>thr/blk</th>"), "the block before the thread count");
    assert!(html.contains("<td>32x8</td><td>256</td>"));
    assert!(html.contains("<td>10x25</td>"), "the grid's shape");
    // The mock times every row alike: the first, 32x8, is the fastest.
    assert!(html.contains("The explorer starts at the fastest row's 256 threads, a 32x8 block"), "{html}");
}

#[test]
fn a_record_whose_shapes_no_run_writes_is_refused_naming_its_row() {
    let sweep = crate::commands::sweep::sweep_with(
        &driver(),
        &kernel("fill", 300, 200),
        &settings("32x8", GridPolicy::PerItem),
    )
    .unwrap();
    let json = sweep.export(Format::Json).unwrap();
    for (from, to, why) in [
        (
            "\"block\": \"32x8\"",
            "\"block\": \"256\"",
            "the row of 256 threads has block 256, a block in x alone",
        ),
        (
            "\"grid\": \"10x25\"",
            "\"grid\": \"10x26\"",
            "has grid 10x26 beside grid_blocks 250, not a shape of that many blocks",
        ),
        ("\"grid\": \"10x25\"", "\"grid\": \"250\"", "has grid 250, a grid in x alone"),
        ("\"grid\": \"10x25\"", "\"grid\": \"10x\"", "`10x` is not a grid shape"),
    ] {
        assert!(json.contains(from), "{from}");
        let refusal = SweepRecord::parse(&json.replacen(from, to, 1)).unwrap_err();
        assert!(refusal.contains(why), "{to}: {refusal}");
    }
}

#[test]
fn a_shape_restriction_leaves_out_the_blocks_it_refuses_and_the_rest_are_swept() {
    let narrow = kernel("fill", 640, 64).restrict_shapes(|block, _| block.x % 32 == 0 && block.y <= 4);
    let sweep = crate::commands::sweep::sweep_with(
        &driver(),
        &narrow,
        &settings("32x8,64x4,16x16,128x2,48x2", GridPolicy::PerItem),
    )
    .unwrap();
    assert!(sweep.sweep.failures.is_empty(), "{}", sweep.failures());
    let blocks: Vec<String> = sweep.sweep.rows.iter().map(|row| row.block.to_string()).collect();
    assert_eq!(blocks, ["64x4", "128x2"]);
    let nothing = kernel("fill", 640, 64).restrict_shapes(|block, _| block.y > 8);
    let error = settings("32x8", GridPolicy::PerItem).validate_for(&nothing).unwrap_err();
    assert_eq!(error.to_string(), "the kernel's restriction keeps none of the 1 configurations asked for");
}

#[test]
fn shared_memory_that_follows_the_block_s_shape_is_each_row_s_and_shown() {
    // A tile of the block's shape and a halo of 2 on each side, of u32s: 32x8 and 16x16 are both
    // 256 threads, yet (32 + 4)(8 + 4)4 = 1728 B against (16 + 4)(16 + 4)4 = 1600 B; 256 in x
    // alone (256 + 4)(1 + 4)4 = 5200 B.
    let tiled =
        kernel("fill", 500, 50).dynamic_shared_memory_by_shape(|block, _| (block.x + 4) * (block.y + 4) * 4);
    let sweep = crate::commands::sweep::sweep_with(
        &driver(),
        &tiled,
        &settings("32x8,16x16,256", GridPolicy::OneWave),
    )
    .unwrap();
    assert!(sweep.sweep.failures.is_empty(), "{}", sweep.failures());
    let bytes: Vec<u32> = sweep.sweep.rows.iter().map(|row| row.dynamic_shared_memory).collect();
    assert_eq!(bytes, [1728, 1600, 5200]);
    // The table shows each row's bytes where they differ; the JSON export holds them.
    let table = sweep.table(false);
    let header = table.lines().find(|line| line.contains("thr/blk")).unwrap();
    assert!(header.contains("  grid    smem "), "{table}");
    assert!(table.lines().any(|line| line.contains(" 32x8 ") && line.contains(" 1728 ")), "{table}");
    let json = sweep.export(Format::Json).unwrap();
    let record = SweepRecord::parse(&json).unwrap();
    let exported: Vec<Option<u32>> = record.rows.iter().map(|row| row.dynamic_shared_memory).collect();
    assert_eq!(exported, [Some(1728), Some(1600), Some(5200)]);
    // By thread count alone, the two shapes of 256 threads get the same bytes, and no column.
    let counted = kernel("fill", 500, 50).dynamic_shared_memory(|threads, _| threads * 4);
    let sweep =
        crate::commands::sweep::sweep_with(&driver(), &counted, &settings("32x8,16x16", GridPolicy::OneWave))
            .unwrap();
    assert!(sweep.sweep.rows.iter().all(|row| row.dynamic_shared_memory == 1024));
    assert!(!sweep.table(false).contains("smem"), "{}", sweep.table(false));
}

#[test]
fn tail_takes_a_block_shape_for_a_kernel_with_a_domain_and_refuses_one_without() {
    let tail_settings = |shape: &str| Settings {
        block_shapes: vec![shape.parse().unwrap()],
        timing: TimingSettings {
            mode: TimingMode::Launch,
            warmups: 0,
            runs: Some(2),
            ..TimingSettings::default()
        },
        ..Settings::default()
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut console = crate::Console { out: &mut out, err: &mut err };
    let code = crate::commands::tail::tail_with(
        &driver(),
        &kernel("fill", 1600, 800),
        &tail_settings("16x16"),
        &[0.5, 1.0, 1.1],
        &mut console,
    )
    .unwrap();
    let (out, err) = (String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap());
    // Every grid covers the 2-D domain (the kernel strides in x and y): every row checked.
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert!(
        out.contains("Block size: 256 threads, block 16x16; 8 blocks/SM x 132 SMs = 1056 blocks per wave"),
        "{out}"
    );
    // Laid over the 100 x 50 tiles of the domain: half a wave as 10 tiles a block, one wave
    // as 5 (not 100 x 11 = 1100 blocks, 44 of them a second wave), 1.1 waves as 4 (50 x 25:
    // the nearest even split that starts two waves).
    let rows: Vec<Vec<&str>> = out
        .lines()
        .filter(|line| line.trim_start().starts_with(['0', '1']))
        .map(|line| line.split_whitespace().collect())
        .collect();
    let header: Vec<&str> =
        out.lines().find(|line| line.contains("max/mean")).unwrap().split_whitespace().collect();
    assert_eq!(header[..4], ["waves", "grid", "blocks", "max/mean"], "{out}");
    assert_eq!(rows.len(), 3, "{out}");
    assert_eq!(rows[0][..5], ["0.47", "100x5", "500", "1.000", "0"], "{out}");
    assert_eq!(rows[1][..5], ["0.95", "100x10", "1000", "1.000", "0"], "{out}");
    assert_eq!(rows[2][..5], ["1.18", "50x25", "1250", "1.000", "1"], "{out}");
    // A kernel without a domain launches blocks in x alone: one line, exit 2.
    let flat = Kernel::new(MODULE, "fill")
        .output::<u32>("out", 16)
        .args(|_| vec![Arg::Buffer("out"), Arg::U32(4), Arg::U32(4)]);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut console = crate::Console { out: &mut out, err: &mut err };
    let error =
        crate::commands::tail::tail_with(&driver(), &flat, &tail_settings("32x8"), &[1.0], &mut console)
            .unwrap_err();
    assert_eq!(error.exit_status(), 2);
    assert!(
        error.to_string().starts_with("--block-shape 32x8: the kernel `fill` launches blocks in x alone"),
        "{error}"
    );
    assert!(out.is_empty());
}
