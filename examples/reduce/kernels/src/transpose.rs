//! A tiled matrix transpose through dynamic shared memory: a 2-D kernel of your own, launched
//! with 2-D blocks over a 2-D grid of tiles, its tile an axis of the sweep.
//!
//! Each block takes a `tile x tile` tile of the input at a time: its threads read the tile's
//! rows (consecutive lanes, consecutive columns: coalesced), write them into shared memory, wait
//! at a barrier, and read the tile back by columns to write the output's rows (coalesced again).
//! The shared tile has `tile + 1` floats a row, so that a column of it falls in `tile` different
//! banks instead of one. Between the load and the store, and again before the next tile's load,
//! the block waits at [`crate::barrier::sync_threads`] (PTX `barrier.sync 0`, the unaligned
//! barrier; `docs/barriers.md`).

use crate::barrier;
use core::cell::UnsafeCell;
use cuda_std::prelude::*;

/// `output[c * rows + r] = input[r * cols + c]` for every `r < rows`, `c < cols`: the
/// `cols x rows` transpose of the row-major `rows x cols` matrix `input`.
///
/// # Safety
///
/// - `input` must point to `rows * cols` readable `f32` values and `output` to `rows * cols`
///   writable ones, both in device memory and not overlapping. The kernel reads and writes
///   nothing else in global memory.
/// - The launch may have any 2-D block (`blockDim.z = 1`) and grid, and must pass at least
///   `tile * (tile + 1) * 4` bytes of dynamic shared memory (`sharedMemBytes`); `tile` at
///   least 1.
/// - sm_70 or newer (the unaligned barrier; see `barrier.rs`).
///
/// # Parameters
///
/// - `input`: the matrix, `rows` rows of `cols` values.
/// - `output`: its transpose, `cols` rows of `rows` values, every one of them written.
/// - `rows`, `cols`: the input's shape; with either 0 the kernel does nothing.
/// - `tile`: the side of the square tile a block moves at a time.
///
/// # Thread Mapping
///
/// Grid-stride over tiles in two dimensions: block `(bx, by)` takes tile `(bx, by)` (columns
/// `bx * tile ..`, rows `by * tile ..` of the input), then every `gridDim.x`-th tile along a row
/// of tiles and every `gridDim.y`-th down; a grid of `ceil(cols / tile) x ceil(rows / tile)`
/// blocks makes one trip. In a tile, thread `(tx, ty)` loads the elements `(ty + j blockDim.y,
/// tx + i blockDim.x)` of the tile (row, column) for every `i`, `j` that stay inside it, so any
/// block shape covers any tile; after the barrier it stores the transposed elements by the same
/// rule. The tile loop's bounds depend on the block alone, so every thread of the block takes
/// every barrier.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn transpose(input: *const f32, output: *mut f32, rows: u32, cols: u32, tile: u32) {
    let shared = dynamic_shared_tile();
    let (rows, cols, tile) = (rows as usize, cols as usize, tile.max(1) as usize);
    let pitch = tile + 1;
    let (tiles_x, tiles_y) = (cols.div_ceil(tile), rows.div_ceil(tile));
    let (thread_x, thread_y) = (thread::thread_idx_x() as usize, thread::thread_idx_y() as usize);
    let (block_x, block_y) = (thread::block_dim_x() as usize, thread::block_dim_y() as usize);
    let mut tile_y = thread::block_idx_y() as usize;
    while tile_y < tiles_y {
        let mut tile_x = thread::block_idx_x() as usize;
        while tile_x < tiles_x {
            let (row0, col0) = (tile_y * tile, tile_x * tile);
            // The tile's rows into shared memory.
            let mut j = thread_y;
            while j < tile {
                let mut i = thread_x;
                while i < tile {
                    let (row, col) = (row0 + j, col0 + i);
                    if row < rows && col < cols {
                        // SAFETY: row < rows and col < cols, inside `input`; j, i < tile,
                        // inside the tile's tile * (tile + 1) floats of shared memory.
                        unsafe { *shared.add(j * pitch + i) = *input.add(row * cols + col) };
                    }
                    i += block_x;
                }
                j += block_y;
            }
            barrier::sync_threads();
            // Its columns out as the output's rows: output row col0 + j, column row0 + i.
            let mut j = thread_y;
            while j < tile {
                let mut i = thread_x;
                while i < tile {
                    let (out_row, out_col) = (col0 + j, row0 + i);
                    if out_row < cols && out_col < rows {
                        // SAFETY: out_row < cols and out_col < rows, inside `output`; the
                        // shared element (i, j) was written before the barrier.
                        unsafe { *output.add(out_row * rows + out_col) = *shared.add(i * pitch + j) };
                    }
                    i += block_x;
                }
                j += block_y;
            }
            // The next tile's loads must not overwrite what a slower thread still reads.
            barrier::sync_threads();
            tile_x += thread::grid_dim_x() as usize;
        }
        tile_y += thread::grid_dim_y() as usize;
    }
}

/// This block's dynamic shared memory as `f32`s: a zero-length extern array, as
/// `dynamic_shared_f32` in `lib.rs`, so that ptxas counts no static shared memory.
#[inline(always)]
fn dynamic_shared_tile() -> *mut f32 {
    unsafe extern "C" {
        // nvvm_internal, not address_space: the latter only parses static definitions.
        #[nvvm_internal::addrspace(3)]
        #[allow(improper_ctypes)]
        #[link_name = "transpose_tile"]
        static TILE: UnsafeCell<[f32; 0]>;
    }
    // SAFETY: taking the address of the extern shared array reads nothing.
    unsafe { TILE.get() as *mut f32 }
}
