//! The committed PTX files against what their stamps claim: built from the committed
//! sources with the pinned compilers, valid for sm_75 and sm_90, defining the kernels the
//! runner launches with the parameters its workloads pass, and using the weights of the
//! host's CPU reference.

use block_size_builtin::grayscale::frame::luma::{BLUE_WEIGHT, GREEN_WEIGHT, RED_WEIGHT};
use block_size_builtin::ptx::{ALL, HISTOGRAM_NVCC, NVCC, RUST_CUDA, RUSTC_NVPTX, RUSTC_NVPTX_FMA};
use block_size_builtin::{CompareRequest, KERNELS, KernelChoice, VariantsRequest, grayscale, histogram};
use block_size_runner::testing::{BLOCKING_ENTRY, BLOCKING_MODULE, entry_params};
use block_size_runner::testing::{ISA_FLOOR, Isa, parse_isa};
use block_size_runner::{CompareArgs, Console, VariantsArgs};
use block_size_tests::{PTXAS_RELEASES, assemble, barriers, quoted_value, read_repo_file, repo_root};
use ptx_stamp::{
    CUDA_BUILDER_INPUTS, HISTOGRAM_NVCC_INPUTS, NVCC_INPUTS, NVCC_MODULES, NVPTX_INPUTS, entry_names,
    inputs_sha256, sha256_hex,
};

/// The stamp of `module`, parsed.
fn stamp_of(module: block_size_runner::EmbeddedPtx) -> ptx_stamp::Stamp {
    ptx_stamp::Stamp::parse(module.stamp_text).unwrap_or_else(|error| panic!("{}: {error}", module.file))
}

fn channel() -> String {
    quoted_value(&read_repo_file("rust-toolchain.toml"), "channel").unwrap().to_string()
}

/// A module's `.version`, which every committed module states.
fn ptx_isa(ptx: &str) -> Isa {
    parse_isa(ptx).expect("a .version X.Y directive")
}

#[test]
fn every_ptx_is_at_or_below_the_ptx_isa_floor() {
    for module in ALL {
        let isa = ptx_isa(module.ptx);
        assert!(
            isa <= ISA_FLOOR,
            "kernels/ptx/{}.ptx says .version {isa}, above the floor {ISA_FLOOR} (CUDA 11.8, R520 drivers): \
             rebuild it with a CUDA 11.8 compiler ({})",
            module.file,
            stamp_of(module).regenerate
        );
    }
}

#[test]
fn ptx_isa_reads_the_version_directive() {
    assert_eq!(ptx_isa("//\n// comment\n.version 7.8\n.target sm_75\n"), ISA_FLOOR);
    assert_eq!(ptx_isa(".version 9.0\n").to_string(), "9.0");
    assert!(ptx_isa(".version 8.8\n") > ISA_FLOOR);
    assert!(ptx_isa(".version 6.3\n") <= ISA_FLOOR);
}

#[test]
fn the_toolchain_split_keeps_one_nightly() {
    // The sweep installs the root toolchain; regeneration adds rustc_codegen_nvvm's components
    // through kernels/rust-toolchain.toml. Both must name the nightly the stamps record.
    let root = read_repo_file("rust-toolchain.toml");
    let kernels = read_repo_file("kernels/rust-toolchain.toml");
    assert_eq!(quoted_value(&kernels, "channel"), Some(channel().as_str()));
    let components = |text: &str| -> String {
        text.lines().filter(|line| !line.trim_start().starts_with('#')).collect::<Vec<_>>().join("\n")
    };
    for component in ["rustc-dev", "llvm-tools", "rust-src"] {
        assert!(!components(&root).contains(component), "the sweep's toolchain must not pull {component}");
        assert!(components(&kernels).contains(component), "kernels/rust-toolchain.toml lacks {component}");
    }
}

#[test]
fn every_stamp_matches_its_inputs() {
    let stamped = [
        (RUST_CUDA, "cuda_builder", CUDA_BUILDER_INPUTS),
        (NVCC, "nvcc", NVCC_INPUTS),
        (RUSTC_NVPTX, "rustc-nvptx", NVPTX_INPUTS),
        (RUSTC_NVPTX_FMA, "rustc-nvptx", NVPTX_INPUTS),
        (HISTOGRAM_NVCC, "nvcc", HISTOGRAM_NVCC_INPUTS),
    ];
    assert_eq!(stamped.len(), ALL.len(), "every embedded module is checked here");
    for (module, compiler, inputs) in stamped {
        let stamp = stamp_of(module);
        assert_eq!(stamp.compiler, compiler, "{}", module.file);
        assert_eq!(stamp.inputs, inputs, "{}: the stamp must cover every input of its build", module.file);
        assert_eq!(
            stamp.inputs_sha256,
            inputs_sha256(&repo_root(), &stamp.inputs).unwrap(),
            "{}'s sources changed since kernels/ptx/{}.ptx was built: regenerate it with `{}`",
            module.label,
            module.file,
            stamp.regenerate
        );
    }
}

#[test]
fn every_stamp_matches_its_committed_ptx() {
    for module in ALL {
        let on_disk = read_repo_file(&format!("kernels/ptx/{}.ptx", module.file));
        assert_eq!(on_disk, module.ptx, "the runner embeds the committed kernels/ptx/{}.ptx", module.file);
        assert_eq!(
            stamp_of(module).ptx_sha256,
            sha256_hex(on_disk.as_bytes()),
            "kernels/ptx/{}.ptx was edited by hand: regenerate it with `{}`",
            module.file,
            stamp_of(module).regenerate
        );
    }
}

#[test]
fn every_cuda_source_is_built_into_an_embedded_module() {
    // `cargo xtask ptx nvcc` builds NVCC_MODULES; each must be a module the runner embeds, with
    // the stamp of its own source, and every .cu under kernels/cuda must be one of them.
    for (name, inputs) in NVCC_MODULES {
        let module = ALL
            .iter()
            .find(|module| module.file == *name)
            .unwrap_or_else(|| panic!("{name} is not embedded"));
        assert_eq!(stamp_of(*module).inputs, *inputs, "{name}");
        assert_eq!(stamp_of(*module).regenerate, "cargo xtask ptx nvcc", "{name}");
    }
    let sources: Vec<String> = std::fs::read_dir(repo_root().join("kernels/cuda"))
        .unwrap()
        .map(|entry| format!("kernels/cuda/{}", entry.unwrap().file_name().to_string_lossy()))
        .filter(|path| path.ends_with(".cu"))
        .collect();
    for source in &sources {
        assert!(
            NVCC_MODULES.iter().any(|(_, inputs)| inputs[0] == source),
            "{source} is not in ptx_stamp::NVCC_MODULES, so `cargo xtask ptx nvcc` never builds it"
        );
    }
}

#[test]
fn cuda_builder_stamp_names_the_pinned_rust_cuda_and_toolchain() {
    let stamp = stamp_of(RUST_CUDA);
    let manifest = read_repo_file("kernels/Cargo.toml");
    let pinned = quoted_value(&manifest, "cuda_std = { git = \"https://github.com/Rust-GPU/rust-cuda\", rev")
        .expect("kernels/Cargo.toml pins cuda_std by rev");
    assert_eq!(stamp.rust_cuda_rev.as_deref(), Some(pinned), "kernels/Cargo.toml pins another rust-cuda");
    let lock = read_repo_file("kernels/Cargo.lock");
    assert!(
        lock.contains(&format!("rust-cuda?rev={pinned}#{pinned}")),
        "kernels/Cargo.lock is not at the pin"
    );
    assert_eq!(stamp.toolchain, Some(channel()), "rust-toolchain.toml moved: scripts/regenerate-ptx");
    assert!(stamp.rustc.as_deref().is_some_and(|rustc| rustc.starts_with("rustc 1.")), "{:?}", stamp.rustc);
    assert_eq!(stamp.arch, "compute_75");
    assert!(stamp.libnvvm.is_some() && stamp.nvvm_ir.is_some());
    assert!(
        stamp.libnvvm_release.as_deref().is_some_and(|release| release.starts_with("11.8.")),
        "the cuda_builder PTX must come from CUDA 11.8's libNVVM: {:?}",
        stamp.libnvvm_release
    );
}

#[test]
fn nvptx_stamp_names_the_pinned_toolchain_and_nvcc_stamp_its_release() {
    assert_eq!(
        stamp_of(RUSTC_NVPTX).toolchain,
        Some(channel()),
        "rust-toolchain.toml moved: cargo xtask ptx nvptx"
    );
    assert!(stamp_of(NVCC).nvcc.is_some_and(|release| release.contains("release 11.8")));
}

/// The parameter types of each kernel signature, as the PTX of every compiler must declare
/// them: the grayscale kernels take four pointers and a usize (the 2-D one a u32 width and height
/// instead of the usize), the histogram two pointers, a
/// usize and a u32, the blocking kernel of cold timing (no workload's: the timing's own)
/// a pointer to its flag and a u64 timeout, and the runner's comparison kernels (beside it in
/// its module) two pointers, a usize count and the pointer to their report, the float ones
/// a u64 tolerance (an f64's bits) before the report.
const SIGNATURES: [(&str, &[&str]); 6] = [
    ("grayscale", &["u64", "u64", "u64", "u64", "u64"]),
    ("grayscale_2d", &["u64", "u64", "u64", "u64", "u32", "u32"]),
    ("histogram", &["u64", "u64", "u64", "u32"]),
    ("block_until_released", &["u64", "u64"]),
    ("count_mismatches (bits)", &["u64", "u64", "u64", "u64"]),
    ("count_mismatches (floats)", &["u64", "u64", "u64", "u64", "u64"]),
];

/// The comparison kernels of `kernels/src/mismatch.rs`, in the blocking kernel's module: those
/// that compare bits, and those that compare floats with a tolerance.
const COMPARISON_BITS: [&str; 3] = ["count_mismatches_b16", "count_mismatches_b32", "count_mismatches_b64"];
const COMPARISON_FLOATS: [&str; 2] = ["count_mismatches_f32", "count_mismatches_f64"];

#[test]
fn every_ptx_defines_the_kernels_the_runner_launches() {
    for module in ALL {
        let defined = entry_names(module.ptx);
        assert_eq!(stamp_of(module).kernels, defined, "{}: the stamp lists the PTX's entries", module.file);
        for entry in &defined {
            // Every entry belongs to a registered kernel, with that kernel's signature, or is
            // the blocking kernel of cold timing or one of the runner's comparison kernels.
            let name = if module == BLOCKING_MODULE && entry == BLOCKING_ENTRY {
                BLOCKING_ENTRY
            } else if module == BLOCKING_MODULE && COMPARISON_BITS.contains(&entry.as_str()) {
                // The comparison kernels live beside the blocking kernel,
                "count_mismatches (bits)"
            } else if module == BLOCKING_MODULE && COMPARISON_FLOATS.contains(&entry.as_str()) {
                "count_mismatches (floats)"
            } else if grayscale::SHAPES.iter().any(|shape| shape.entry == entry) {
                // Every shape of the grayscale kernel takes the grayscale kernel's arguments,
                grayscale::NAME
            } else if entry == grayscale::NAME_2D {
                // the 2-D grayscale its own (a width and a height),
                grayscale::NAME_2D
            } else if histogram::shape_of_entry(entry).is_some() {
                // and every shape of the histogram the histogram's.
                "histogram"
            } else {
                panic!("{} {entry}: no kernel of this repository launches this entry", module.file)
            };
            let (_, signature) = SIGNATURES.iter().find(|(known, _)| *known == name).unwrap();
            assert_eq!(entry_params(module.ptx, entry).unwrap(), *signature, "{} {entry}", module.file);
        }
        assert!(module.ptx.contains(".target sm_75"), "{}: built for sm_75", module.file);
    }
    let shapes: Vec<&str> = histogram::SHAPES.iter().map(|shape| shape.entry).collect();
    assert_eq!(entry_names(HISTOGRAM_NVCC.ptx), shapes);
    assert!(entry_names(BLOCKING_MODULE.ptx).iter().any(|entry| entry == BLOCKING_ENTRY));
    for comparison in COMPARISON_BITS.iter().chain(&COMPARISON_FLOATS) {
        assert!(entry_names(BLOCKING_MODULE.ptx).iter().any(|entry| entry == comparison), "no {comparison}");
    }
    // The variants run in Rust and in C++: both modules define every one.
    for variant in grayscale::SHAPES {
        for module in [RUST_CUDA, NVCC] {
            assert!(
                entry_names(module.ptx).iter().any(|entry| entry == variant.entry),
                "{} lacks {}",
                module.file,
                variant.entry
            );
        }
    }
}

#[test]
fn every_kernels_arguments_fit_every_ptx_it_is_launched_from() {
    // What the runner really passes (the kernel's launch) against what each PTX declares: the
    // mock checks every launch's arguments against its entry's parameters, as the driver's
    // backend does. `compare` launches every kernel from every module that builds it, and
    // `variants` every shape from both compilers.
    let quick = |kernel: &str| KernelChoice {
        kernel: kernel.to_string(),
        width: 5,
        height: 3,
        bins: if kernel.starts_with(grayscale::NAME) { Vec::new() } else { vec![64] },
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut console = Console { out: &mut out, err: &mut err };
    let driver = block_size_builtin::mock::h200();
    for (name, _) in KERNELS {
        let options =
            CompareArgs::from_args(["--block-sizes", "32", "--warmups", "0", "--rounds", "1"]).unwrap();
        let request = CompareRequest { kernel: quick(name), options };
        assert_eq!(request.exec(&driver, &mut console).unwrap(), 0, "{name}");
    }
    for family in [grayscale::NAME, "histogram"] {
        let options =
            VariantsArgs::from_args(["--block-sizes", "32", "--warmups", "0", "--runs", "1"]).unwrap();
        let request = VariantsRequest {
            kernel: family.into(),
            width: 5,
            height: 3,
            options,
            ..VariantsRequest::default()
        };
        assert_eq!(request.exec(&driver, &mut console).unwrap(), 0, "{family}");
    }
    let printed = String::from_utf8(out).unwrap();
    assert_eq!(
        printed.matches("Registers/thread after the driver's JIT").count(),
        KERNELS.len(),
        "{printed}"
    );
}

/// The body of entry `entry` in `ptx`, from its `.entry` line to its closing brace.
fn entry_body<'a>(ptx: &'a str, entry: &str) -> &'a str {
    let start = ptx.find(&format!(".entry {entry}(")).unwrap_or_else(|| panic!("no entry {entry}"));
    &ptx[start..start + ptx[start..].find("\n}\n").unwrap()]
}

#[test]
fn every_histogram_shape_reads_the_luma_as_its_loads_say() {
    for module in [RUST_CUDA, HISTOGRAM_NVCC] {
        for shape in &histogram::SHAPES {
            let body = entry_body(module.ptx, shape.entry);
            let count = |instruction: &str| body.matches(&format!("{instruction} ")).count();
            let what = format!("{} {}", module.file, shape.entry);
            let (wide, scalar) = match shape.load_bytes {
                // One pixel per load.
                2 => (0, 1),
                // One 8-byte load per vector: libNVVM writes it as a u64, nvcc as two u32s, in
                // the loop of whole trips and in the loop of the last vectors; the head and the
                // tail are one 2-byte load each.
                8 => (count("ld.global.u64") + count("ld.global.v2.u32"), 2),
                // 16 bytes: loads_per_trip vectors a trip, one in the last vectors' loop.
                16 => (count("ld.global.v4.u32"), 2),
                other => panic!("{what}: {other}-byte loads"),
            };
            let want_wide = if shape.load_bytes == 2 { 0 } else { shape.loads_per_trip as usize + 1 };
            assert_eq!(wide, want_wide, "{what}: vector loads");
            assert_eq!(count("ld.global.u16"), scalar, "{what}: 2-byte loads");
            assert_eq!(count("ld.global.u32"), 0, "{what}: no vector split into words");
        }
    }
}

#[test]
fn the_histogram_keeps_its_bins_in_dynamic_shared_memory() {
    for (module, shape) in [RUST_CUDA, HISTOGRAM_NVCC]
        .into_iter()
        .flat_map(|module| histogram::SHAPES.iter().map(move |shape| (module, shape)))
    {
        let body = entry_body(module.ptx, shape.entry);
        // Block-scope atomics on shared memory per pixel, device-scope atomics on global
        // memory for the merge, two barriers between the phases.
        assert!(
            body.contains(".shared") && body.contains(".cta"),
            "{} {}: no shared-memory block-scope atomic",
            module.file,
            shape.entry
        );
        // (cuda_builder's are the unaligned `barrier.sync`, nvcc's `__syncthreads()` is `bar.sync`;
        // tests/tests/barriers.rs checks which may be aligned.)
        let barriers = barriers(body);
        assert_eq!(barriers.len(), 2, "{} {}: two barriers: {barriers:?}", module.file, shape.entry);
        // The bins are an unsized extern array: dynamic shared memory only, no static bytes.
        let declaration = module.ptx.lines().find(|line| line.starts_with(".extern .shared")).unwrap();
        assert!(declaration.trim_end().ends_with("[];"), "{}: {declaration}", module.file);
    }
}

#[test]
fn the_blocking_kernel_spins_on_a_volatile_flag_until_its_timeout() {
    let ptx = BLOCKING_MODULE.ptx;
    let start = ptx.find(&format!(".entry {}(", BLOCKING_ENTRY)).unwrap();
    let body = &ptx[start..start + ptx[start..].find("\n}\n").unwrap()];
    // The flag is read anew on every trip (a volatile load, which sees the host's store to
    // mapped memory), the timer before the loop and in it, and the give-up report is a
    // volatile store to the word after the flag.
    assert_eq!(body.matches("ld.volatile.global.u32").count(), 1, "{body}");
    assert_eq!(body.matches("%globaltimer;").count(), 2, "{body}");
    let store = body.lines().find(|line| line.contains("st.volatile.global.u32")).expect("a volatile store");
    assert!(store.contains("+4]"), "{store}");
    assert!(barriers(body).is_empty() && !body.contains(".shared"), "{body}");
}

#[test]
fn vector_variants_use_16_byte_accesses() {
    for module in [RUST_CUDA, NVCC] {
        let start = module.ptx.find(".entry grayscale_vec4(").unwrap();
        let body = &module.ptx[start..start + module.ptx[start..].find("\n}\n").unwrap()];
        assert_eq!(body.matches("ld.global.v4.f32").count(), 3, "{}: three vector loads", module.file);
        assert_eq!(body.matches("st.global.v4.f32").count(), 1, "{}: one vector store", module.file);
    }
}

#[test]
fn contraction_is_what_the_stamps_say() {
    // nvcc and libNVVM fuse by default; rustc's backend only with --fp-contract=fast.
    for (module, fused) in [(RUST_CUDA, true), (NVCC, true), (RUSTC_NVPTX, false), (RUSTC_NVPTX_FMA, true)] {
        assert_eq!(module.ptx.contains("fma.rn.f32"), fused, "{}", module.file);
    }
}

#[test]
fn every_grayscale_ptx_uses_the_weights_of_the_cpu_reference() {
    for module in [RUST_CUDA, NVCC, RUSTC_NVPTX, RUSTC_NVPTX_FMA] {
        for weight in [RED_WEIGHT, GREEN_WEIGHT, BLUE_WEIGHT] {
            let immediate = format!("0f{:08X}", weight.to_bits());
            assert!(
                module.ptx.contains(&immediate),
                "{}: weight {weight} ({immediate}) is missing",
                module.file
            );
        }
    }
}

#[test]
fn every_ptx_assembles_for_sm_75_and_sm_90_with_the_oldest_and_newest_ptxas() {
    for module in ALL {
        for (release, _, _) in PTXAS_RELEASES {
            for arch in ["sm_75", "sm_90"] {
                for (entry, registers) in assemble(module.file, module.ptx, release, arch) {
                    // At 64 registers or fewer a 1024-thread block still fits on a 64K-register SM.
                    assert!(
                        (1..=64).contains(&registers),
                        "{} {entry} {release} {arch}: {registers}",
                        module.file
                    );
                }
            }
        }
    }
}
