//! A box blur through a shared-memory tile of the block's own shape: a 2-D kernel of your own
//! whose shared memory is a function of its block's shape, not of its thread count alone.
//!
//! Each block computes a tile of `blockDim.x x blockDim.y` output pixels at a time. Its threads
//! first load the input pixels that tile needs, the tile and a halo of `radius` pixels around
//! it, `(blockDim.x + 2 radius) x (blockDim.y + 2 radius)` floats, into dynamic shared memory
//! (consecutive lanes, consecutive columns: coalesced), wait at a barrier, and then each thread
//! adds its pixel's `(2 radius + 1)^2` neighbours from shared memory instead of global memory.
//! So 32x8 and 16x16, both 256 threads, need different bytes (36 x 12 and 20 x 20 floats at
//! radius 2). Between the sums and the next tile's loads the block waits again. Both barriers
//! are [`crate::barrier::sync_threads`] (PTX `barrier.sync 0`, the unaligned barrier;
//! `docs/barriers.md`).

use crate::barrier;
use core::cell::UnsafeCell;
use cuda_std::prelude::*;

/// `output[y * width + x]` = the mean of the input's pixels in the square of side `2 radius + 1`
/// around `(x, y)`, a pixel outside the image taking the value of the nearest edge pixel (clamp
/// to edge), for every `x < width`, `y < height`. The sum runs row by row of the square, left
/// to right, in `f32`, then is divided by `(2 radius + 1)^2` (IEEE division, `div.rn.f32`), so
/// a CPU doing the same gets the same bits.
///
/// # Safety
///
/// - `input` must point to `width * height` readable `f32` values and `output` to `width *
///   height` writable ones, both in device memory and not overlapping. The kernel reads and
///   writes nothing else in global memory.
/// - The launch may have any 2-D block (`blockDim.z = 1`) and grid, and must pass at least
///   `(blockDim.x + 2 radius) * (blockDim.y + 2 radius) * 4` bytes of dynamic shared memory
///   (`sharedMemBytes`).
/// - sm_70 or newer (the unaligned barrier; see `barrier.rs`).
///
/// # Parameters
///
/// - `input`: the image, `height` rows of `width` pixels.
/// - `output`: the blurred image, the same shape, every pixel written.
/// - `width`, `height`: the image's shape; with either 0 the kernel does nothing.
/// - `radius`: the box's half side (2: a 5 x 5 box).
///
/// # Thread Mapping
///
/// Grid-stride over tiles in two dimensions: block `(bx, by)` takes the tile of columns `bx *
/// blockDim.x ..` and rows `by * blockDim.y ..`, then every `gridDim.x`-th tile along a row of
/// tiles and every `gridDim.y`-th down; a grid of `ceil(width / blockDim.x) x ceil(height /
/// blockDim.y)` blocks makes one trip. In a tile, thread `(tx, ty)` loads the halo'd tile's
/// elements `(ty + j blockDim.y, tx + i blockDim.x)` for every `i`, `j` that stay inside it, then
/// computes output pixel `(col0 + tx, row0 + ty)` where it is inside the image. The loops'
/// bounds depend on the block and the image alone, so every thread of the block takes every
/// barrier, those of a ragged tile's pixels outside the image included.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn box_blur(input: *const f32, output: *mut f32, width: u32, height: u32, radius: u32) {
    let shared = dynamic_shared_halo();
    let (width, height, radius) = (width as usize, height as usize, radius as usize);
    if width == 0 || height == 0 {
        return;
    }
    let (thread_x, thread_y) = (thread::thread_idx_x() as usize, thread::thread_idx_y() as usize);
    let (block_x, block_y) = (thread::block_dim_x() as usize, thread::block_dim_y() as usize);
    let (pitch, rows) = (block_x + 2 * radius, block_y + 2 * radius);
    let (tiles_x, tiles_y) = (width.div_ceil(block_x), height.div_ceil(block_y));
    let side = 2 * radius + 1;
    let area = (side * side) as f32;
    let mut tile_y = thread::block_idx_y() as usize;
    while tile_y < tiles_y {
        let mut tile_x = thread::block_idx_x() as usize;
        while tile_x < tiles_x {
            let (row0, col0) = (tile_y * block_y, tile_x * block_x);
            // The tile and its halo into shared memory, each pixel clamped to the image.
            let mut j = thread_y;
            while j < rows {
                let row = (row0 + j).saturating_sub(radius).min(height - 1);
                let mut i = thread_x;
                while i < pitch {
                    let col = (col0 + i).saturating_sub(radius).min(width - 1);
                    // SAFETY: row < height and col < width, inside `input`; j < rows and
                    // i < pitch, inside the pitch * rows floats of shared memory.
                    unsafe { *shared.add(j * pitch + i) = *input.add(row * width + col) };
                    i += block_x;
                }
                j += block_y;
            }
            barrier::sync_threads();
            let (y, x) = (row0 + thread_y, col0 + thread_x);
            if y < height && x < width {
                let mut sum = 0.0f32;
                for dy in 0..side {
                    for dx in 0..side {
                        // SAFETY: thread_y + dy < block_y + 2 radius = rows and likewise for
                        // x: inside the tile written before the barrier.
                        sum += unsafe { *shared.add((thread_y + dy) * pitch + thread_x + dx) };
                    }
                }
                // SAFETY: y < height and x < width, inside `output`.
                unsafe { *output.add(y * width + x) = sum / area };
            }
            // The next tile's loads must not overwrite what a slower thread still adds.
            barrier::sync_threads();
            tile_x += thread::grid_dim_x() as usize;
        }
        tile_y += thread::grid_dim_y() as usize;
    }
}

/// This block's dynamic shared memory as `f32`s: a zero-length extern array, as
/// `dynamic_shared_f32` in `lib.rs`, so that ptxas counts no static shared memory.
#[inline(always)]
fn dynamic_shared_halo() -> *mut f32 {
    unsafe extern "C" {
        // nvvm_internal, not address_space: the latter only parses static definitions.
        #[nvvm_internal::addrspace(3)]
        #[allow(improper_ctypes)]
        #[link_name = "box_blur_tile"]
        static HALO: UnsafeCell<[f32; 0]>;
    }
    // SAFETY: taking the address of the extern shared array reads nothing.
    unsafe { HALO.get() as *mut f32 }
}
