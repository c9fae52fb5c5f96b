//! The PTX that `block-size new` writes, as committed in `cli/templates/new/ptx/`: the example
//! kernel's (`kernels.ptx`, cuda_builder; `cli/tests/new.rs` checks its stamp in a written
//! project) and, for `--cuda`, its CUDA C++ twin's (`stencil3-nvcc.ptx`, nvcc 11.8, built by
//! `cargo xtask ptx nvcc`): each at or below the PTX ISA floor, for sm_75, valid for sm_75 and
//! sm_90 with the oldest and newest ptxas; the twin's stamp belonging to its source and its PTX,
//! and its entry taking the Rust kernel's parameters, so that one launch fits both.

use block_size_runner::testing::{ISA_FLOOR, entry_params, parse_isa};
use block_size_tests::{PTXAS_RELEASES, assemble, barriers, read_repo_file, repo_root};
use ptx_stamp::{
    NEW_NVCC_MODULES, NEW_NVCC_REGENERATE, NEW_STENCIL3_NVCC_INPUTS, NEW_TEMPLATE_DIR, Stamp, entry_names,
    inputs_sha256, sha256_hex,
};

const RUST_PTX: &str = "cli/templates/new/ptx/kernels.ptx";
const TWIN_PTX: &str = "cli/templates/new/ptx/stencil3-nvcc.ptx";
const TWIN_STAMP: &str = "cli/templates/new/ptx/stencil3-nvcc.stamp.toml";

fn twin_stamp() -> Stamp {
    Stamp::parse(&read_repo_file(TWIN_STAMP)).unwrap_or_else(|error| panic!("{TWIN_STAMP}: {error}"))
}

/// The text of entry `name`, from `.entry` to its closing brace.
fn body<'a>(ptx: &'a str, name: &str) -> &'a str {
    let start = ptx.find(&format!(".entry {name}(")).unwrap_or_else(|| panic!("no entry {name}"));
    &ptx[start..start + ptx[start..].find("\n}\n").expect("an entry ends with }")]
}

#[test]
fn the_twin_stamp_matches_its_source_and_its_ptx() {
    let stamp = twin_stamp();
    let ptx = read_repo_file(TWIN_PTX);
    assert_eq!(stamp.compiler, "nvcc", "tests/tests/barriers.rs lets nvcc's bar.sync through by this");
    assert_eq!(stamp.inputs, NEW_STENCIL3_NVCC_INPUTS, "the stamp must cover the twin's source");
    assert_eq!(
        stamp.inputs_sha256,
        inputs_sha256(&repo_root().join(NEW_TEMPLATE_DIR), &stamp.inputs).unwrap(),
        "{NEW_TEMPLATE_DIR}/cuda/stencil3.cu changed since {TWIN_PTX} was built: run `cargo xtask ptx nvcc`"
    );
    assert_eq!(
        stamp.ptx_sha256,
        sha256_hex(ptx.as_bytes()),
        "{TWIN_PTX} was edited by hand: run `cargo xtask ptx nvcc`"
    );
    assert_eq!(stamp.kernels, entry_names(&ptx), "the stamp lists the PTX's entries");
    assert_eq!(stamp.kernels, ["stencil3"]);
    assert_eq!(stamp.arch, "compute_75");
    assert!(
        stamp.nvcc.as_deref().is_some_and(|release| release.contains("release 11.8")),
        "the twin must come from CUDA 11.8's nvcc: {:?}",
        stamp.nvcc
    );
    assert_eq!(stamp.regenerate, NEW_NVCC_REGENERATE);
}

#[test]
fn every_cuda_source_of_the_templates_is_built_by_cargo_xtask_ptx_nvcc() {
    let template = repo_root().join(NEW_TEMPLATE_DIR);
    let sources: Vec<String> = std::fs::read_dir(template.join("cuda"))
        .unwrap()
        .map(|entry| format!("cuda/{}", entry.unwrap().file_name().to_string_lossy()))
        .filter(|path| path.ends_with(".cu"))
        .collect();
    assert!(!sources.is_empty());
    for source in &sources {
        assert!(
            NEW_NVCC_MODULES.iter().any(|(_, inputs)| inputs[0] == source),
            "{NEW_TEMPLATE_DIR}/{source} is not in ptx_stamp::NEW_NVCC_MODULES, so `cargo xtask ptx nvcc` never builds it"
        );
    }
    for (name, inputs) in NEW_NVCC_MODULES {
        // The project's script names the PTX after the source, as xtask does.
        let stem = inputs[0].trim_start_matches("cuda/").trim_end_matches(".cu");
        assert_eq!(*name, format!("{stem}-nvcc"));
        for file in [format!("{name}.ptx"), format!("{name}.stamp.toml")] {
            assert!(template.join("ptx").join(&file).is_file(), "{NEW_TEMPLATE_DIR}/ptx/{file} is missing");
        }
    }
}

#[test]
fn the_new_ptx_is_at_or_below_the_ptx_isa_floor_and_targets_sm_75() {
    for file in [RUST_PTX, TWIN_PTX] {
        let ptx = read_repo_file(file);
        let isa = parse_isa(&ptx).expect("a .version X.Y directive");
        assert!(isa <= ISA_FLOOR, "{file} says .version {isa}, above the floor {ISA_FLOOR}");
        assert!(ptx.lines().any(|line| line.trim() == ".target sm_75"), "{file}: built for sm_75");
    }
}

#[test]
fn the_twin_takes_the_rust_kernels_parameters() {
    let (rust, twin) = (read_repo_file(RUST_PTX), read_repo_file(TWIN_PTX));
    assert_eq!(entry_names(&twin), entry_names(&rust), "the twin defines the Rust module's entries");
    for entry in entry_names(&rust) {
        let params = entry_params(&twin, &entry);
        assert_eq!(
            params,
            entry_params(&rust, &entry),
            "{entry}: the twin's parameters are the Rust kernel's"
        );
        // (x: *const f32, n: usize, y: *mut f32), and `const float*, size_t, float*`.
        assert_eq!(params.unwrap(), ["u64", "u64", "u64"], "{entry}");
    }
}

#[test]
fn the_twin_keeps_the_tile_in_dynamic_shared_memory_and_its_two_barriers() {
    let twin = read_repo_file(TWIN_PTX);
    let shared: Vec<&str> = twin.lines().filter(|line| line.contains(".shared .align")).collect();
    assert_eq!(shared, [".extern .shared .align 16 .b8 stencil3_tile[];"], "the tile, unsized: dynamic only");
    let body = body(&twin, "stencil3");
    // `__syncthreads()` twice in the source, twice in the PTX: nvcc copies no barrier.
    let barriers = barriers(body);
    assert_eq!(barriers.len(), 2, "{barriers:?}");
    assert!(barriers.iter().all(|barrier| barrier.opcode == "bar.sync"), "{barriers:?}");
    // Two additions for each of a thread's 4 values (ITEMS, unrolled), nothing fused or
    // reordered into a multiply: the Rust kernel's arithmetic.
    assert_eq!(body.matches("\tadd.f32 ").count(), 2 * 4, "{body}");
    let rust = read_repo_file(RUST_PTX);
    for (file, ptx) in [(TWIN_PTX, body), (RUST_PTX, self::body(&rust, "stencil3"))] {
        for instruction in ["fma.", "mul.f32", "mul.rn.f32", "sub.f32"] {
            assert!(!ptx.contains(instruction), "{file}: {instruction}");
        }
    }
}

#[test]
fn the_new_ptx_assembles_for_sm_75_and_sm_90_with_the_oldest_and_newest_ptxas() {
    for file in [RUST_PTX, TWIN_PTX] {
        let ptx = read_repo_file(file);
        for (release, _, _) in PTXAS_RELEASES {
            for arch in ["sm_75", "sm_90"] {
                for (entry, registers) in assemble(file, &ptx, release, arch) {
                    // At 64 registers or fewer a 1024-thread block still fits on a 64K-register SM.
                    assert!((1..=64).contains(&registers), "{file} {entry} {release} {arch}: {registers}");
                }
            }
        }
    }
}
