//! The tiled transpose on the runner's mock driver: its CPU emulation takes each thread's share
//! of each tile its block visits, as the kernel does, so a grid or a block that misses an
//! element leaves it 0 and fails the bit-for-bit check.

use anyhow::{Result, ensure};
use block_size_runner::SweepArgs;
use block_size_runner::mock::{EmulatedMemory, Launch, MockDriver, read_values, threads, write_values};
use reduce_example::{PTX, transpose};

mod shaped;

/// `transpose` thread by thread: block `(bx, by)` visits tiles `(bx + k gridDim.x, by + m
/// gridDim.y)`; in each, thread `(tx, ty)` moves the elements `(ty + j blockDim.y, tx + i
/// blockDim.x)` of the tile. With `fault`, that output element comes out 0.
fn emulate(launch: &Launch, memory: &mut dyn EmulatedMemory, fault: Option<usize>) -> Result<()> {
    let [input, output, rows, cols, tile] = launch.args.as_slice() else {
        anyhow::bail!("transpose takes five arguments, not {}", launch.args.len())
    };
    let (rows, cols, tile) = (rows.as_u32()? as usize, cols.as_u32()? as usize, tile.as_u32()? as usize);
    ensure!(tile >= 1, "a tile of 0");
    ensure!(
        launch.dynamic_shared_memory as usize >= tile * (tile + 1) * 4,
        "a launch without its tile's shared memory"
    );
    let source = read_values::<f32>(memory.at(input)?, rows * cols)?;
    let mut out = read_values::<f32>(memory.at(output)?, rows * cols)?;
    let (tiles_x, tiles_y) = (cols.div_ceil(tile), rows.div_ceil(tile));
    let (grid, block) = (launch.grid, launch.block);
    for thread in threads(launch) {
        let [block_x, block_y, _] = thread.block_idx.map(|index| index as usize);
        let [tx, ty, _] = thread.thread_idx.map(|index| index as usize);
        for tile_y in (block_y..tiles_y).step_by(grid.y as usize) {
            for tile_x in (block_x..tiles_x).step_by(grid.x as usize) {
                for j in (ty..tile).step_by(block.y as usize) {
                    for i in (tx..tile).step_by(block.x as usize) {
                        let (row, col) = (tile_y * tile + j, tile_x * tile + i);
                        if row < rows && col < cols {
                            out[col * rows + row] = source[row * cols + col];
                        }
                    }
                }
            }
        }
    }
    if let Some(value) = fault.and_then(|index| out.get_mut(index)) {
        *value = 0.0;
    }
    write_values(memory.at_mut(output)?, &out)
}

fn driver() -> MockDriver {
    shaped::driver(PTX.kernel(transpose::ENTRY), emulate)
}

use shaped::options;

#[test]
fn the_cpu_transpose_is_a_transpose() {
    let input = transpose::matrix(2, 3);
    let output = transpose::reference(&input, 2, 3);
    assert_eq!(output, [input[0], input[3], input[1], input[4], input[2], input[5]]);
    assert_eq!(transpose::reference(&output, 3, 2), input, "twice is the identity");
    assert_eq!(transpose::shared_bytes(64), 64 * 65 * 4);
}

#[test]
fn every_shape_and_tile_moves_every_element_under_every_grid() {
    // Sides that no tile divides: ragged tiles on the right and at the bottom.
    let (rows, cols) = (67, 131);
    for grid in ["per-item", "one-wave", "waves:2"] {
        let measured = block_size_runner::sweep(
            &driver(),
            &transpose::kernel(rows, cols, &transpose::TILES),
            &options("32x8,16x16,64x4,1x32,256", grid, &[]),
        )
        .unwrap();
        assert_eq!(measured.exit_status(), 0, "{grid:?}: {}", measured.failures());
        let record: serde_json::Value =
            serde_json::from_str(&measured.export(block_size_runner::Format::Json).unwrap()).unwrap();
        let rows = record["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 15, "5 shapes x 3 tiles");
        assert!(rows.iter().all(|row| row["pruned"].is_null() && row["failed"].is_null()), "{grid:?}");
    }
}

#[test]
fn one_thread_per_item_is_one_block_a_tile() {
    let measured = block_size_runner::sweep(
        &driver(),
        &transpose::kernel(4099, 33, &[16, 64]),
        &options("32x8", "per-item", &[]),
    )
    .unwrap();
    let table = measured.table(false);
    // ceil(33 / 16) x ceil(4099 / 16), then ceil(33 / 64) x ceil(4099 / 64).
    assert!(table.contains(" 3x257 "), "{table}");
    assert!(table.contains(" 1x65 "), "{table}");
    let header: Vec<&str> =
        table.lines().find(|line| line.contains("thr/blk")).unwrap().split_whitespace().collect();
    assert_eq!(header[..4], ["tile", "thr/blk", "block", "warps"], "{table}");
    assert!(table.contains("agrees with the driver's blk/SM at 2 of 2 "), "{table}");
    assert_eq!(measured.exit_status(), 0, "{}", measured.failures());
}

#[test]
fn a_misplaced_element_fails_its_row_with_its_place() {
    let options = options("32x8,16x16", "one-wave", &["--corrupt-output", "70"]);
    let measured = block_size_runner::sweep(&driver(), &transpose::kernel(67, 131, &[32]), &options).unwrap();
    let failures = measured.failures();
    assert_eq!(measured.exit_status(), 1);
    assert!(
        failures.contains("wrong output at block 32x8: output[70] (row 1, column 3) is NaN"),
        "{failures}"
    );
    assert!(failures.contains("tile 32: wrong output at block 16x16"), "{failures}");
}

#[test]
fn a_block_shape_beyond_the_device_is_refused_before_it() {
    let kernel = transpose::kernel(64, 64, &[32]);
    let options = SweepArgs::from_args(["--block-shapes", "64x32"]).unwrap();
    let error = options.validate_for(&kernel).unwrap_err();
    assert_eq!(error.exit_status(), 2);
    assert_eq!(
        error.to_string(),
        "--block-shapes 64x32: block 64x32 has 2048 threads, above the 1024 a block can have"
    );
}
