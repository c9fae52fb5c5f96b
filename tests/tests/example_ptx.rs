//! The example user kernels (`examples/reduce/kernels`, a cuda_builder crate of its own) and
//! their committed PTX (`examples/reduce/ptx/reduce.ptx`): built from the committed sources
//! with the pins of `kernels/`, at or below the PTX ISA floor, valid for sm_75 and sm_90 with
//! the oldest and newest ptxas, with the parameters a host passes, their reduction and the
//! stencil's tile in dynamic shared memory only, and the stencil's barriers unaligned but for its
//! demonstration twin's; and regenerated and diffed by the same script and CI as `kernels/`.
//! Also the reductions' CUDA C++ twins (`examples/reduce/cuda/reduce.cu`, nvcc 11.8's
//! `examples/reduce/ptx/reduce-nvcc.ptx`, built by `cargo xtask ptx nvcc`): their stamp, the
//! same parameters and shared memory as the Rust entries, the unaligned barrier, and the Kernel
//! Tuner entry `sum_of_squares_tuned` the same code as `sum_of_squares` at its default.

use block_size_runner::testing::{ISA_FLOOR, parse_isa};
use block_size_tests::{PTXAS_RELEASES, assemble, barriers, quoted_value, read_repo_file, repo_root};
use ptx_stamp::{
    EXAMPLE_NVCC_MODULES, EXAMPLE_REDUCE_INPUTS, EXAMPLE_REDUCE_NVCC_INPUTS, Stamp, entry_names,
    inputs_sha256, sha256_hex,
};

const PTX_FILE: &str = "examples/reduce/ptx/reduce.ptx";
const STAMP_FILE: &str = "examples/reduce/ptx/reduce.stamp.toml";
const CRATE_DIR: &str = "examples/reduce/kernels";

/// The reductions a host launches, each `(x: *const f32, n: usize, partials: *mut f32)`.
const REDUCTIONS: [&str; 2] = ["sum_of_squares", "sum_of_squares_x4"];

/// The three-point stencil, `(x: *const f32, n: usize, y: *mut f32)`: `stencil3`, with the
/// unaligned barrier, and its twin with cuda_std's aligned one, kept only to show the hazard
/// of `docs/barriers.md` (never launched).
const STENCILS: [&str; 2] = ["stencil3", "stencil3_cuda_std_barrier"];

/// The test kernels of fault isolation and the watchdog, `(x: *const f32, n: usize, y: *mut
/// f32)`: a copy that stores out of bounds at 1024 threads per block, and one that never
/// finishes at 512 (`examples/reduce/kernels/src/faults.rs`; docs/reliability.md).
const FAULTS: [&str; 2] = ["copy_faulting_at_1024", "copy_hanging_at_512"];

/// The tiled transpose, `(input: *const f32, output: *mut f32, rows: u32, cols: u32, tile:
/// u32)`: a 2-D kernel, its tile in dynamic shared memory (`examples/reduce/src/transpose.rs`).
const TRANSPOSE: &str = "transpose";

/// The box blur, `(input: *const f32, output: *mut f32, width: u32, height: u32, radius: u32)`:
/// a 2-D kernel, its block-shaped tile and halo in dynamic shared memory
/// (`examples/reduce/src/blur.rs`).
const BLUR: &str = "box_blur";

/// Every entry with three 64-bit parameters, in the PTX's order (the faults module first, then
/// the stencils).
const ENTRIES: [&str; 6] = [FAULTS[0], FAULTS[1], STENCILS[0], STENCILS[1], REDUCTIONS[0], REDUCTIONS[1]];

fn ptx() -> String {
    read_repo_file(PTX_FILE)
}

fn stamp() -> Stamp {
    Stamp::parse(&read_repo_file(STAMP_FILE)).unwrap_or_else(|error| panic!("{STAMP_FILE}: {error}"))
}

/// The text of entry `name`, from `.entry` to its closing brace.
fn body<'a>(ptx: &'a str, name: &str) -> &'a str {
    let start = ptx.find(&format!(".entry {name}(")).unwrap_or_else(|| panic!("no entry {name}"));
    &ptx[start..start + ptx[start..].find("\n}\n").expect("an entry ends with }")]
}

/// The types of entry `name`'s parameters (`u64`, `u32`, ...).
fn params(ptx: &str, name: &str) -> Vec<String> {
    let body = body(ptx, name);
    let list = &body[..body.find(')').expect("a parameter list")];
    list.lines()
        .filter_map(|line| line.trim().strip_prefix(".param ."))
        .map(|rest| rest.split_whitespace().next().unwrap().to_string())
        .collect()
}

#[test]
fn the_example_stamp_matches_its_inputs() {
    let stamp = stamp();
    assert_eq!(stamp.compiler, "cuda_builder");
    assert_eq!(stamp.inputs, EXAMPLE_REDUCE_INPUTS, "the stamp must cover every input of the build");
    assert_eq!(
        stamp.inputs_sha256,
        inputs_sha256(&repo_root(), &stamp.inputs).unwrap(),
        "{CRATE_DIR} changed since {PTX_FILE} was built: regenerate it with `{}`",
        stamp.regenerate
    );
    assert_eq!(stamp.regenerate, "scripts/regenerate-ptx");
}

#[test]
fn the_example_stamp_matches_its_committed_ptx() {
    let ptx = ptx();
    let stamp = stamp();
    assert_eq!(
        stamp.ptx_sha256,
        sha256_hex(ptx.as_bytes()),
        "{PTX_FILE} was edited by hand: regenerate it with `{}`",
        stamp.regenerate
    );
    assert_eq!(stamp.kernels, entry_names(&ptx), "the stamp lists the PTX's entries");
    assert_eq!(entry_names(&ptx)[..1], [BLUR]);
    assert_eq!(entry_names(&ptx)[1..7], ENTRIES);
    assert_eq!(entry_names(&ptx)[7..], [TRANSPOSE]);
}

#[test]
fn the_example_is_built_with_the_pins_of_kernels() {
    // Same rust-cuda revision in the manifest, the lock file and the stamp.
    let key = "cuda_std = { git = \"https://github.com/Rust-GPU/rust-cuda\", rev";
    let kernels_manifest = read_repo_file("kernels/Cargo.toml");
    let manifest = read_repo_file(&format!("{CRATE_DIR}/Cargo.toml"));
    let pinned = quoted_value(&kernels_manifest, key).expect("kernels/Cargo.toml pins cuda_std by rev");
    assert_eq!(quoted_value(&manifest, key), Some(pinned), "{CRATE_DIR}/Cargo.toml pins another rust-cuda");
    let builder = read_repo_file(&format!("{CRATE_DIR}/builder/Cargo.toml"));
    assert!(builder.contains(&format!("rev = \"{pinned}\"")), "the example's cuda_builder is not at the pin");
    let lock = read_repo_file(&format!("{CRATE_DIR}/Cargo.lock"));
    assert!(
        lock.contains(&format!("rust-cuda?rev={pinned}#{pinned}")),
        "{CRATE_DIR}/Cargo.lock is not at the pin"
    );
    // The same codegen profile.
    let profile = |text: &str| -> String {
        let start = text.find("[profile.release.package.rustc_codegen_nvvm]").expect("the codegen profile");
        text[start..].lines().skip(1).take_while(|line| !line.starts_with('[')).collect::<Vec<_>>().join("\n")
    };
    assert_eq!(profile(&manifest), profile(&kernels_manifest));
    // The same toolchain file, byte for byte.
    assert_eq!(
        read_repo_file(&format!("{CRATE_DIR}/rust-toolchain.toml")),
        read_repo_file("kernels/rust-toolchain.toml")
    );
    // And the stamps agree on every tool version.
    let example = stamp();
    let kernels = Stamp::parse(&read_repo_file("kernels/ptx/grayscale.stamp.toml")).unwrap();
    assert_eq!(example.rust_cuda_rev.as_deref(), Some(pinned));
    for (what, mine, theirs) in [
        ("toolchain", &example.toolchain, &kernels.toolchain),
        ("rustc", &example.rustc, &kernels.rustc),
        ("rust_cuda_rev", &example.rust_cuda_rev, &kernels.rust_cuda_rev),
        ("libnvvm", &example.libnvvm, &kernels.libnvvm),
        ("nvvm_ir", &example.nvvm_ir, &kernels.nvvm_ir),
        ("libnvvm_release", &example.libnvvm_release, &kernels.libnvvm_release),
    ] {
        assert!(mine.is_some(), "the example's stamp records no {what}");
        assert_eq!(mine, theirs, "{what}: the example and kernels/ were built with different tools");
    }
    assert_eq!(example.arch, kernels.arch);
}

#[test]
fn the_example_ptx_is_at_or_below_the_ptx_isa_floor_and_targets_sm_75() {
    let ptx = ptx();
    let isa = parse_isa(&ptx).expect("a .version X.Y directive");
    assert!(isa <= ISA_FLOOR, "{PTX_FILE} says .version {isa}, above the floor {ISA_FLOOR}");
    assert!(ptx.lines().any(|line| line.trim() == ".target sm_75"), "{PTX_FILE}: built for sm_75");
}

#[test]
fn every_example_entry_takes_a_pointer_a_usize_and_a_pointer() {
    let ptx = ptx();
    for entry in ENTRIES {
        assert_eq!(params(&ptx, entry), ["u64", "u64", "u64"], "{entry}");
    }
    assert_eq!(params(&ptx, TRANSPOSE), ["u64", "u64", "u32", "u32", "u32"]);
    assert_eq!(params(&ptx, BLUR), ["u64", "u64", "u32", "u32", "u32"]);
}

#[test]
fn the_example_reduces_in_dynamic_shared_memory_only() {
    let ptx = ptx();
    // One shared declaration each for the reductions and the stencil, unsized extern arrays:
    // dynamic shared memory only.
    let shared: Vec<&str> = ptx.lines().filter(|line| line.contains(".shared .align")).collect();
    assert_eq!(
        shared,
        [
            ".extern .shared .align 4 .b8 box_blur_tile[];",
            ".extern .shared .align 4 .b8 stencil3_tile[];",
            ".extern .shared .align 4 .b8 sum_of_squares_partials[];",
            ".extern .shared .align 4 .b8 transpose_tile[];"
        ]
    );
    for entry in REDUCTIONS {
        let body = body(&ptx, entry);
        // A barrier after the slots are written and one per level of the tree, in its loop:
        // the unaligned `barrier.sync 0` of barrier.rs.
        let barriers = barriers(body);
        assert_eq!(barriers.len(), 2, "{entry}: {barriers:?}");
        assert!(barriers.iter().all(|barrier| barrier.opcode == "barrier.sync"), "{entry}: {barriers:?}");
        assert!(body.contains("st.shared.f32") && body.contains("ld.shared.f32"), "{entry}");
        // Squares fused into the accumulator; one global store, the block's partial; no atomics.
        assert!(body.contains("fma.rn.f32"), "{entry}");
        assert_eq!(body.matches("st.global").count(), 1, "{entry}");
        let atomic =
            |line: &&str| line.trim_start().starts_with("atom.") || line.trim_start().starts_with("red.");
        assert_eq!(body.lines().find(atomic), None, "{entry}");
    }
    // The x4 entry's full trips: four loads of the vector per trip, then a one-at-a-time tail.
    assert_eq!(body(&ptx, "sum_of_squares_x4").matches("ld.global.f32").count(), 5);
    assert_eq!(body(&ptx, "sum_of_squares").matches("ld.global.f32").count(), 1);
}

#[test]
fn the_stencil_uses_its_tile_and_the_unaligned_barrier_and_its_twin_the_aligned_one() {
    let ptx = ptx();
    for (entry, opcode) in [("stencil3", "barrier.sync"), ("stencil3_cuda_std_barrier", "bar.sync")] {
        let body = body(&ptx, entry);
        // Two barriers in the source: as many in the PTX with the convergent `barrier.sync`,
        // more with cuda_std's `bar.sync`, which rust-cuda's LLVM passes copy into the arms of
        // a loop split on the thread index (`docs/barriers.md`): the hang.
        let barriers = barriers(body);
        match opcode {
            "barrier.sync" => assert_eq!(barriers.len(), 2, "{entry}: {barriers:?}"),
            _ => assert!(barriers.len() > 2, "{entry}: {barriers:?}"),
        }
        assert!(barriers.iter().all(|barrier| barrier.opcode == opcode), "{entry}: {barriers:?}");
        // The tile in shared memory, the input read and the output written in global memory.
        assert!(body.contains("stencil3_tile") && body.contains("ld.shared.f32"), "{entry}");
        assert!(body.contains("ld.global.f32") && body.contains("st.global.f32"), "{entry}");
        assert!(!body.contains("sum_of_squares_partials"), "{entry}");
    }
}

#[test]
fn the_transpose_moves_its_tile_through_shared_memory_between_unaligned_barriers() {
    let ptx = ptx();
    let body = body(&ptx, TRANSPOSE);
    // Two barriers in the source (after the load, before the next tile's), the unaligned kind
    // wherever the compiler copied them.
    let barriers = barriers(body);
    assert!(barriers.len() >= 2, "{barriers:?}");
    assert!(barriers.iter().all(|barrier| barrier.opcode == "barrier.sync"), "{barriers:?}");
    // Moved as 32-bit words: a copy, bit for bit.
    assert!(
        body.contains("transpose_tile") && body.contains("st.shared.u32") && body.contains("ld.shared.u32")
    );
    // It reads blockIdx, blockDim and gridDim in y: a 2-D kernel.
    for register in ["%ctaid.y", "%ntid.y", "%nctaid.y", "%tid.y"] {
        assert!(body.contains(register), "{register}");
    }
    assert!(!body.contains("sum_of_squares_partials") && !body.contains("stencil3_tile"));
}

#[test]
fn the_blur_adds_from_its_halo_in_shared_memory_between_unaligned_barriers_and_divides_exactly() {
    let ptx = ptx();
    let body = body(&ptx, BLUR);
    // Two barriers in the source (after the halo'd tile is loaded, before the next tile's), as
    // many in the PTX: the convergent barrier is not copied.
    let barriers = barriers(body);
    assert_eq!(barriers.len(), 2, "{barriers:?}");
    assert!(barriers.iter().all(|barrier| barrier.opcode == "barrier.sync"), "{barriers:?}");
    // The tile read back as floats; the mean an IEEE division, so the CPU's bits are the GPU's
    // (examples/reduce/src/blur.rs checks bit for bit).
    assert!(body.contains("box_blur_tile") && body.contains("ld.shared.f32") && body.contains("st.shared"));
    assert!(body.contains("div.rn.f32"), "an approximate division would not match the CPU's bits");
    assert!(!body.contains("div.approx") && !body.contains("div.full"));
    // Global memory: the input read, the output written, nothing else.
    assert!(body.contains("ld.global") && body.contains("st.global.f32"));
    for register in ["%ctaid.y", "%ntid.y", "%nctaid.y", "%tid.y"] {
        assert!(body.contains(register), "{register}");
    }
}

#[test]
fn the_example_assembles_for_sm_75_and_sm_90_with_the_oldest_and_newest_ptxas() {
    for (release, _, _) in PTXAS_RELEASES {
        for arch in ["sm_75", "sm_90"] {
            for (entry, registers) in assemble(PTX_FILE, &ptx(), release, arch) {
                // At 64 registers or fewer a 1024-thread block still fits on a 64K-register SM.
                assert!((1..=64).contains(&registers), "{entry} {release} {arch}: {registers}");
            }
        }
    }
}

#[test]
fn the_example_is_regenerated_and_diffed_with_kernels() {
    let script = read_repo_file("scripts/regenerate-ptx");
    assert!(script.contains(CRATE_DIR), "scripts/regenerate-ptx does not build {CRATE_DIR}");
    let ci = read_repo_file(".ci/run");
    assert!(ci.contains("examples/reduce/ptx"), ".ci/run does not diff examples/reduce/ptx");
    let workspace = read_repo_file("Cargo.toml");
    let exclude = workspace.lines().find(|line| line.starts_with("exclude")).expect("an exclude list");
    assert!(exclude.contains(&format!("\"{CRATE_DIR}\"")), "the root workspace must exclude {CRATE_DIR}");
    let ignored = read_repo_file(".gitignore");
    assert!(ignored.lines().any(|line| line == format!("/{CRATE_DIR}/target/")), ".gitignore");
}

const NVCC_PTX: &str = "examples/reduce/ptx/reduce-nvcc.ptx";
const NVCC_STAMP: &str = "examples/reduce/ptx/reduce-nvcc.stamp.toml";

/// The Kernel Tuner entry of the CUDA C++ file: the reductions' body, its items per thread a
/// macro (1 where undefined).
const TUNED: &str = "sum_of_squares_tuned";

fn nvcc_stamp() -> Stamp {
    Stamp::parse(&read_repo_file(NVCC_STAMP)).unwrap_or_else(|error| panic!("{NVCC_STAMP}: {error}"))
}

/// Entry `name`'s body with its own names taken out (its parameters, its labels' numbers), so
/// that two entries compiled from the same code compare equal.
fn anonymous_body(ptx: &str, name: &str) -> String {
    let text = body(ptx, name)
        .replace(&format!("{name}_param"), "PARAM")
        .replace(&format!(".entry {name}("), ".entry NAME(");
    text.lines()
        .map(|line| match line.find("$L__BB") {
            Some(at) => {
                let number = line[at + "$L__BB".len()..].split('_').next().unwrap();
                line.replacen(&format!("$L__BB{number}_"), "$L__BBn_", 1)
            }
            None => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_cuda_twins_stamp_matches_their_source_and_their_ptx() {
    let stamp = nvcc_stamp();
    let ptx = read_repo_file(NVCC_PTX);
    assert_eq!(stamp.compiler, "nvcc");
    assert_eq!(stamp.inputs, EXAMPLE_REDUCE_NVCC_INPUTS, "the stamp must cover the twins' source");
    assert_eq!(
        stamp.inputs_sha256,
        inputs_sha256(&repo_root(), &stamp.inputs).unwrap(),
        "examples/reduce/cuda/reduce.cu changed since {NVCC_PTX} was built: run `cargo xtask ptx nvcc`"
    );
    assert_eq!(
        stamp.ptx_sha256,
        sha256_hex(ptx.as_bytes()),
        "{NVCC_PTX} was edited by hand: run `cargo xtask ptx nvcc`"
    );
    assert_eq!(stamp.kernels, entry_names(&ptx), "the stamp lists the PTX's entries");
    assert_eq!(stamp.kernels, [REDUCTIONS[0], REDUCTIONS[1], TUNED]);
    assert_eq!(stamp.arch, "compute_75");
    assert!(
        stamp.nvcc.as_deref().is_some_and(|release| release.contains("release 11.8")),
        "the twins must come from CUDA 11.8's nvcc: {:?}",
        stamp.nvcc
    );
    assert_eq!(stamp.regenerate, "cargo xtask ptx nvcc");
}

#[test]
fn every_cuda_source_of_the_example_is_built_by_cargo_xtask_ptx_nvcc() {
    let sources: Vec<String> = std::fs::read_dir(repo_root().join("examples/reduce/cuda"))
        .unwrap()
        .map(|entry| format!("examples/reduce/cuda/{}", entry.unwrap().file_name().to_string_lossy()))
        .filter(|path| path.ends_with(".cu"))
        .collect();
    assert!(!sources.is_empty());
    for source in &sources {
        assert!(
            EXAMPLE_NVCC_MODULES.iter().any(|(_, _, inputs)| inputs[0] == source),
            "{source} is not in ptx_stamp::EXAMPLE_NVCC_MODULES, so `cargo xtask ptx nvcc` never builds it"
        );
    }
    for (folder, name, _) in EXAMPLE_NVCC_MODULES {
        for file in [format!("{folder}/{name}.ptx"), format!("{folder}/{name}.stamp.toml")] {
            assert!(repo_root().join(&file).is_file(), "{file} is missing: run `cargo xtask ptx nvcc`");
        }
    }
}

#[test]
fn the_cuda_twins_are_at_or_below_the_ptx_isa_floor_and_take_the_rust_entries_parameters() {
    let (twin, rust) = (read_repo_file(NVCC_PTX), ptx());
    let isa = parse_isa(&twin).expect("a .version X.Y directive");
    assert!(isa <= ISA_FLOOR, "{NVCC_PTX} says .version {isa}, above the floor {ISA_FLOOR}");
    assert!(twin.lines().any(|line| line.trim() == ".target sm_75"), "{NVCC_PTX}: built for sm_75");
    for entry in REDUCTIONS {
        assert_eq!(
            params(&twin, entry),
            params(&rust, entry),
            "{entry}: the twin's parameters are the Rust entry's"
        );
    }
    assert_eq!(params(&twin, TUNED), ["u64", "u64", "u64"]);
}

#[test]
fn the_cuda_twins_reduce_in_dynamic_shared_memory_between_unaligned_barriers() {
    let twin = read_repo_file(NVCC_PTX);
    let shared: Vec<&str> = twin.lines().filter(|line| line.contains(".shared .align")).collect();
    assert_eq!(
        shared,
        [".extern .shared .align 16 .b8 sum_of_squares_partials[];"],
        "dynamic shared memory only"
    );
    for entry in [REDUCTIONS[0], REDUCTIONS[1], TUNED] {
        let body = body(&twin, entry);
        // As the Rust entries: one barrier after the slots are written, one per level of the
        // tree, both the unaligned `barrier.sync 0` (inline PTX, not __syncthreads()'s bar.sync).
        let barriers = barriers(body);
        assert_eq!(barriers.len(), 2, "{entry}: {barriers:?}");
        assert!(barriers.iter().all(|barrier| barrier.opcode == "barrier.sync"), "{entry}: {barriers:?}");
        assert!(body.contains("st.shared.f32") && body.contains("ld.shared.f32"), "{entry}");
        assert!(body.contains("fma.rn.f32"), "{entry}: the squares fused into the sum, as libNVVM does");
        assert_eq!(body.matches("st.global").count(), 1, "{entry}");
        let atomic =
            |line: &&str| line.trim_start().starts_with("atom.") || line.trim_start().starts_with("red.");
        assert_eq!(body.lines().find(atomic), None, "{entry}");
    }
    assert_eq!(body(&twin, "sum_of_squares_x4").matches("ld.global.f32").count(), 5);
    assert_eq!(body(&twin, "sum_of_squares").matches("ld.global.f32").count(), 1);
    // Kernel Tuner's entry without defines (items_per_thread 1) is sum_of_squares' code.
    assert_eq!(anonymous_body(&twin, TUNED), anonymous_body(&twin, "sum_of_squares"));
}

#[test]
fn the_cuda_twins_assemble_for_sm_75_and_sm_90_with_the_oldest_and_newest_ptxas() {
    let twin = read_repo_file(NVCC_PTX);
    for (release, _, _) in PTXAS_RELEASES {
        for arch in ["sm_75", "sm_90"] {
            for (entry, registers) in assemble(NVCC_PTX, &twin, release, arch) {
                assert!((1..=64).contains(&registers), "{entry} {release} {arch}: {registers}");
            }
        }
    }
}
