//! The box blur on the runner's mock driver: its CPU emulation takes each thread's pixel of each
//! tile its block visits, as the kernel does, reading the halo'd tile from an emulated shared
//! memory of exactly the bytes the launch passed, so a launch with too little shared memory for
//! its shape fails, and a grid or a block that misses a pixel leaves it NaN and fails the
//! bit-for-bit check.

use anyhow::{Result, ensure};
use block_size_runner::BlockShape;
use block_size_runner::mock::{EmulatedMemory, Launch, MockDriver, read_values, threads, write_values};
use reduce_example::{PTX, blur};

mod shaped;

/// `box_blur` thread by thread: block `(bx, by)` visits tiles `(bx + k gridDim.x, by + m
/// gridDim.y)`; in each, the block's halo'd tile is loaded into `pitch x rows` floats of the
/// launch's dynamic shared memory, and thread `(tx, ty)` writes output pixel `(col0 + tx, row0 +
/// ty)` from it. With `fault`, that output pixel comes out -1, which no blur of this image gives.
fn emulate(launch: &Launch, memory: &mut dyn EmulatedMemory, fault: Option<usize>) -> Result<()> {
    let [input, output, width, height, radius] = launch.args.as_slice() else {
        anyhow::bail!("box_blur takes five arguments, not {}", launch.args.len())
    };
    let (width, height, radius) =
        (width.as_u32()? as usize, height.as_u32()? as usize, radius.as_u32()? as usize);
    let (block_x, block_y) = (launch.block.x as usize, launch.block.y as usize);
    let (pitch, rows) = (block_x + 2 * radius, block_y + 2 * radius);
    ensure!(
        launch.dynamic_shared_memory as usize >= pitch * rows * 4,
        "block {block_x}x{block_y} at radius {radius} needs {} bytes of shared memory, the launch passed {}",
        pitch * rows * 4,
        launch.dynamic_shared_memory
    );
    let source = read_values::<f32>(memory.at(input)?, width * height)?;
    let mut out = read_values::<f32>(memory.at(output)?, width * height)?;
    let (tiles_x, tiles_y) = (width.div_ceil(block_x), height.div_ceil(block_y));
    let area = ((2 * radius + 1) * (2 * radius + 1)) as f32;
    let (grid, mut shared) = (launch.grid, vec![f32::NAN; pitch * rows]);
    // Block by block (threads() goes through a block's threads before the next block's), each
    // tile loaded whole before any of its sums, as the barrier makes it on the GPU.
    let mut blocks: Vec<[u32; 3]> = threads(launch).map(|thread| thread.block_idx).collect();
    blocks.dedup();
    for [bx, by, _] in blocks {
        for tile_y in (by as usize..tiles_y).step_by(grid.y as usize) {
            for tile_x in (bx as usize..tiles_x).step_by(grid.x as usize) {
                let (row0, col0) = (tile_y * block_y, tile_x * block_x);
                for j in 0..rows {
                    let row = (row0 + j).saturating_sub(radius).min(height - 1);
                    for i in 0..pitch {
                        let col = (col0 + i).saturating_sub(radius).min(width - 1);
                        shared[j * pitch + i] = source[row * width + col];
                    }
                }
                for ty in 0..block_y {
                    for tx in 0..block_x {
                        let (y, x) = (row0 + ty, col0 + tx);
                        if y < height && x < width {
                            let mut sum = 0.0f32;
                            for dy in 0..2 * radius + 1 {
                                for dx in 0..2 * radius + 1 {
                                    sum += shared[(ty + dy) * pitch + tx + dx];
                                }
                            }
                            out[y * width + x] = sum / area;
                        }
                    }
                }
            }
        }
    }
    if let Some(pixel) = fault.and_then(|index| out.get_mut(index)) {
        *pixel = -1.0;
    }
    write_values(memory.at_mut(output)?, &out)
}

fn driver() -> MockDriver {
    shaped::driver(PTX.kernel(blur::ENTRY), emulate)
}

use shaped::options;

fn shape(x: u32, y: u32) -> BlockShape {
    BlockShape { x, y, z: 1 }
}

#[test]
fn the_cpu_blur_of_a_flat_image_is_flat_and_the_halo_follows_the_shape() {
    let flat = vec![7.0f32; 5 * 3];
    assert_eq!(blur::reference(&flat, 5, 3, 2), flat, "clamped to the edge, a flat image stays flat");
    // A single bright pixel spreads over its 3 x 3 box at radius 1, a ninth each.
    let mut dot = vec![0.0f32; 5 * 5];
    dot[2 * 5 + 2] = 9.0;
    let blurred = blur::reference(&dot, 5, 5, 1);
    assert_eq!(blurred.iter().filter(|&&pixel| pixel == 1.0).count(), 9);
    assert_eq!(blurred.iter().sum::<f32>(), 9.0);
    // The bytes of the box blur: 256 threads each, three different tiles.
    assert_eq!(blur::shared_bytes(shape(32, 8), 2), 1728);
    assert_eq!(blur::shared_bytes(shape(16, 16), 2), 1600);
    assert_eq!(blur::shared_bytes(shape(256, 1), 2), 5200);
    assert!(blur::image(64, 64).iter().all(|&pixel| pixel.fract() == 0.0 && (0.0..256.0).contains(&pixel)));
}

#[test]
fn every_shape_blurs_every_pixel_under_every_grid_with_its_own_shared_memory() {
    // Sides that no block divides: ragged tiles on the right and at the bottom.
    let (width, height) = (131, 67);
    for grid in ["per-item", "one-wave", "waves:2"] {
        let measured = block_size_runner::sweep(
            &driver(),
            &blur::kernel(width, height, &blur::RADII),
            &options("32x8,16x16,64x4,8x32,256x1,1x32", grid, &[]),
        )
        .unwrap();
        assert_eq!(measured.exit_status(), 0, "{grid:?}: {}", measured.failures());
        let record: serde_json::Value =
            serde_json::from_str(&measured.export(block_size_runner::Format::Json).unwrap()).unwrap();
        let rows = record["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 6, "6 shapes");
        assert!(rows.iter().all(|row| row["pruned"].is_null() && row["failed"].is_null()), "{grid:?}");
        let bytes: Vec<u64> = rows.iter().map(|row| row["dynamic_shared_memory"].as_u64().unwrap()).collect();
        assert_eq!(bytes, [1728, 1600, 2176, 1728, 5200, 720], "(x + 4) (y + 4) 4 bytes a shape");
    }
}

#[test]
fn the_table_shows_each_shapes_shared_memory() {
    let measured = block_size_runner::sweep(
        &driver(),
        &blur::kernel(64, 48, &blur::RADII),
        &options("32x8,16x16", "per-item", &[]),
    )
    .unwrap();
    assert_eq!(measured.exit_status(), 0, "{}", measured.failures());
    let table = measured.table(false);
    let header: Vec<&str> =
        table.lines().find(|line| line.contains("thr/blk")).unwrap().split_whitespace().collect();
    assert!(header.contains(&"smem"), "{table}");
    let row = |block: &str| table.lines().find(|line| line.contains(block)).unwrap().to_string();
    assert!(row(" 32x8 ").contains(" 1728 "), "{table}");
    assert!(row(" 16x16 ").contains(" 1600 "), "{table}");
    // ceil(64 / 32) x ceil(48 / 8) blocks, and ceil(64 / 16) x ceil(48 / 16).
    assert!(row(" 32x8 ").contains(" 2x6 "), "{table}");
    assert!(row(" 16x16 ").contains(" 4x3 "), "{table}");
}

#[test]
fn several_radii_are_checked_each_against_its_own_reference() {
    let measured = block_size_runner::sweep(
        &driver(),
        &blur::kernel(45, 29, &[1, 2, 4]),
        &options("32x8,8x8", "one-wave", &[]),
    )
    .unwrap();
    assert_eq!(measured.exit_status(), 0, "{}", measured.failures());
    let record: serde_json::Value =
        serde_json::from_str(&measured.export(block_size_runner::Format::Json).unwrap()).unwrap();
    assert_eq!(record["rows"].as_array().unwrap().len(), 6, "2 shapes x 3 radii");
}

#[test]
fn a_wrong_pixel_fails_its_row_with_its_place() {
    for radii in [&[2][..], &[1, 2][..]] {
        let options = options("32x8,16x16", "one-wave", &["--corrupt-output", "70"]);
        let measured = block_size_runner::sweep(&driver(), &blur::kernel(67, 31, radii), &options).unwrap();
        let failures = measured.failures();
        assert_eq!(measured.exit_status(), 1, "{radii:?}");
        assert!(failures.contains("wrong output at block 32x8"), "{radii:?}: {failures}");
        assert!(failures.contains("pixel 70 "), "{radii:?}: {failures}");
    }
}
