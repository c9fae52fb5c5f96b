//! The barrier guard (`docs/barriers.md`): no committed PTX compiled from Rust has an *aligned*
//! barrier (`bar.sync`, `barrier.sync.aligned`, `bar.red`, ...), which the compilers between
//! our source and the PTX may copy into the arms of a branch on the thread index, hanging the
//! block; our kernels use the unaligned `barrier.sync 0` of `kernels/src/barrier.rs` instead.
//!
//! Two kinds of entries are let through, each for a stated reason:
//!
//! - entries whose name ends with [`DEMONSTRATION_SUFFIX`]: the hazard's regression entry,
//!   `stencil3_cuda_std_barrier`, compiled with `cuda_std::thread::sync_threads()` to show the
//!   hazard. They must keep an aligned barrier, so that the demonstration stays one;
//! - modules that nvcc compiled (their stamp says `compiler = "nvcc"`): CUDA C++'s
//!   `__syncthreads()` is `bar.sync 0` by definition, and keeping it where the source put it is
//!   nvcc's side of the CUDA C++ contract. The hazard guarded here is in the Rust side's
//!   compilers (rustc's MIR passes, and rust-cuda's LLVM 7 passes, which see cuda_std's barrier
//!   as an ordinary, non-convergent call).

use block_size_runner::testing::PtxFacts;
use block_size_tests::{barriers, read_repo_file, repo_root};
use ptx_stamp::{Stamp, entry_names};
use std::path::{Path, PathBuf};

/// The suffix of the entries kept only to demonstrate the hazard.
const DEMONSTRATION_SUFFIX: &str = "_cuda_std_barrier";

/// Every `.ptx` file below the repository root, outside build output (`target/`) and hidden
/// folders (`.git`, the unpacked toolkits), relative to the root and sorted.
fn committed_ptx() -> Vec<String> {
    fn walk(root: &Path, dir: &Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|error| panic!("{}: {error}", dir.display())) {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() && !(name.starts_with('.') || name == "target") {
                walk(root, &path, found);
            } else if kind.is_file() && name.ends_with(".ptx") {
                let relative = path.strip_prefix(root).unwrap();
                found.push(
                    relative
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy())
                        .collect::<Vec<_>>()
                        .join("/"),
                );
            }
        }
    }
    let root = repo_root();
    let mut found = Vec::new();
    walk(&root, &root, &mut found);
    found.sort();
    found
}

/// The stamp beside `ptx_file` (`name.stamp.toml` for `name.ptx`), which every committed PTX
/// has.
fn stamp_of(ptx_file: &str) -> Stamp {
    let stamp_file = PathBuf::from(ptx_file).with_extension("stamp.toml");
    let stamp_file = stamp_file.to_str().unwrap();
    Stamp::parse(&read_repo_file(stamp_file)).unwrap_or_else(|error| panic!("{stamp_file}: {error}"))
}

#[test]
fn no_rust_ptx_has_an_aligned_barrier_outside_the_demonstration() {
    let files = committed_ptx();
    for known in [
        "kernels/ptx/grayscale.ptx",
        "examples/reduce/ptx/reduce.ptx",
        // The example's CUDA C++ twins: nvcc's, with the unaligned barrier all the same.
        "examples/reduce/ptx/reduce-nvcc.ptx",
        "kernels/ptx/grayscale-nvptx.ptx",
        // `block-size new`'s PTX: its Rust kernel's, guarded, and its CUDA C++ twin's (nvcc's).
        "cli/templates/new/ptx/kernels.ptx",
        "cli/templates/new/ptx/stencil3-nvcc.ptx",
    ] {
        assert!(files.iter().any(|file| file == known), "{known} not found among {files:?}");
    }
    let mut demonstrations = Vec::new();
    for file in &files {
        let ptx = read_repo_file(file);
        let stamp = stamp_of(file);
        let found = barriers(&ptx);
        for entry in entry_names(&ptx) {
            let aligned: Vec<_> =
                found.iter().filter(|barrier| barrier.function == entry && barrier.is_aligned()).collect();
            if entry.ends_with(DEMONSTRATION_SUFFIX) {
                assert!(
                    !aligned.is_empty(),
                    "{file} {entry}: a demonstration of the aligned-barrier hazard with no aligned barrier \
                     is no demonstration (did cuda_std's sync_threads() change?)"
                );
                demonstrations.push(format!("{file} {entry}"));
            } else if stamp.compiler != "nvcc" {
                assert!(
                    aligned.is_empty(),
                    "{file} {entry} ({}): aligned barrier(s) {:?}: use barrier::sync_threads() \
                     (kernels/src/barrier.rs, PTX `barrier.sync 0`), not cuda_std::thread::sync_threads(); \
                     see docs/barriers.md",
                    stamp.compiler,
                    aligned
                        .iter()
                        .map(|barrier| format!("line {}: {}", barrier.line, barrier.opcode))
                        .collect::<Vec<_>>()
                );
            }
        }
        // Barriers outside every entry (in a `.func`) would escape the check above.
        let entries = entry_names(&ptx);
        for barrier in found.iter().filter(|barrier| barrier.is_aligned()) {
            assert!(
                entries.contains(&barrier.function) || stamp.compiler == "nvcc",
                "{file}: aligned barrier {} at line {} in {:?}, which is no entry",
                barrier.opcode,
                barrier.line,
                barrier.function
            );
        }
    }
    assert_eq!(demonstrations, ["examples/reduce/ptx/reduce.ptx stencil3_cuda_std_barrier"]);
}

#[test]
fn the_demonstration_keeps_its_split_loop_and_its_guarded_twin_is_whole() {
    // stencil3 and stencil3_cuda_std_barrier are the same source with a different barrier:
    // cuda_std's, not convergent to rust-cuda's LLVM passes, gets its loop unswitched on the
    // thread index (a loop for thread 0, another for the rest, each with its own barriers);
    // ours, `llvm.nvvm.barrier.sync`, keeps the source's one loop and two barriers.
    let ptx = read_repo_file("examples/reduce/ptx/reduce.ptx");
    let guarded = PtxFacts::of(&ptx, "stencil3").unwrap();
    assert_eq!(
        (guarded.barriers, guarded.loops, guarded.thread_branches_around_barriers),
        (2, 1, 0),
        "{guarded:?}"
    );
    let demonstration = PtxFacts::of(&ptx, "stencil3_cuda_std_barrier").unwrap();
    assert!(demonstration.barriers > 2 && demonstration.splits_on_thread_index(), "{demonstration:?}");
}

#[test]
fn no_rust_entry_has_a_barrier_on_one_side_of_a_branch_on_the_thread_index() {
    // The convergent barrier's guarantee, on every entry compiled from Rust: no loop split on
    // the thread index around a barrier (docs/barriers.md), but for the demonstration.
    let mut entries = 0;
    for file in committed_ptx() {
        if stamp_of(&file).compiler == "nvcc" {
            continue;
        }
        let ptx = read_repo_file(&file);
        for entry in entry_names(&ptx).iter().filter(|entry| !entry.ends_with(DEMONSTRATION_SUFFIX)) {
            let facts = PtxFacts::of(&ptx, entry).unwrap();
            assert!(!facts.splits_on_thread_index(), "{file} {entry}: {facts:?}");
            entries += 1;
        }
    }
    assert!(entries > 20, "{entries} entries");
}

#[test]
fn every_cuda_std_crate_has_the_same_barrier_module() {
    let ours = read_repo_file("kernels/src/barrier.rs");
    for copy in ["examples/reduce/kernels/src/barrier.rs", "cli/templates/new/kernels/src/barrier.rs"] {
        assert_eq!(read_repo_file(copy), ours, "copy kernels/src/barrier.rs to {copy}");
    }
    assert!(ours.contains(r#"#[link_name = "llvm.nvvm.barrier.sync"]"#), "{ours}");
    for crate_root in
        ["kernels/src/lib.rs", "examples/reduce/kernels/src/lib.rs", "cli/templates/new/kernels/src/lib.rs"]
    {
        let root = read_repo_file(crate_root);
        assert!(root.lines().any(|line| line == "pub mod barrier;"), "{crate_root} lacks `pub mod barrier;`");
    }
}
