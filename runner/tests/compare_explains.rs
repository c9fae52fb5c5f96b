//! `compare` names the likeliest cause of a gap between two builds, on the mock driver, with the
//! PTX of `block-size new`'s example kernel as it was committed up to 7b1698f (cuda_builder's
//! loop split on the thread index, 5 barriers) and after the convergent barrier (one loop, 2
//! barriers), against its nvcc twin: the split PTX gets the split's line, the whole one none.

use anyhow::{Result, bail};
use block_size_runner::mock::{EmulatedMemory, Launch, MockDriver, MockGpu, read_values, write_values};
use block_size_runner::{Arg, Check, CompareArgs, Console, EmbeddedPtx, Kernel, SweepArgs, exit};

const SPLIT: EmbeddedPtx =
    EmbeddedPtx::user("cuda_builder", include_str!("../src/tests/ptx_facts/stencil3-split.ptx.txt"));
const WHOLE: EmbeddedPtx =
    EmbeddedPtx::user("cuda_builder", include_str!("../src/tests/ptx_facts/stencil3-whole.ptx.txt"));
const NVCC: EmbeddedPtx =
    EmbeddedPtx::user("nvcc", include_str!("../src/tests/ptx_facts/stencil3-nvcc.ptx.txt"));

const N: usize = 5_000;

fn values() -> Vec<f32> {
    (0..N).map(|i| (i % 17) as f32 - 8.0).collect()
}

fn stencil3(x: &[f32]) -> Vec<f32> {
    let at = |i: usize| x.get(i).copied().unwrap_or(0.0);
    (0..x.len()).map(|i| at(i.wrapping_sub(1)) + at(i) + at(i + 1)).collect()
}

fn emulate(launch: &Launch, memory: &mut dyn EmulatedMemory, _fault: Option<usize>) -> Result<()> {
    let [x, n, y] = launch.args.as_slice() else { bail!("stencil3 takes three arguments") };
    let n = n.as_usize()?;
    let out = stencil3(&read_values::<f32>(memory.at(x)?, n)?);
    write_values(memory.at_mut(y)?, &out)
}

fn kernel(rust: EmbeddedPtx) -> Kernel {
    Kernel::new(rust, "stencil3")
        .twin(NVCC)
        .items(N as u64, "values")
        .bytes_per_pass(8 * N as u64, "moved per pass")
        .input("x", values())
        .output::<f32>("y", N)
        .dynamic_shared_memory(|threads, _| (threads + 2) * 4)
        .args(|_| vec![Arg::Buffer("x"), Arg::Usize(N), Arg::Buffer("y")])
        .check(Check::reference(|result, _| match result.of::<f32>() {
            Some(got) if got == stencil3(&values()).as_slice() => Ok(()),
            _ => Err("y is not the CPU's".into()),
        }))
}

/// The mock driver with `rust` and the twin emulated, the Rust build's launches `factor` times
/// the twin's.
fn driver(rust: EmbeddedPtx, factor: f32) -> MockDriver {
    let mut gpu = MockGpu::h200_like();
    for module in [rust, NVCC] {
        gpu.emulate(module.kernel("stencil3"), emulate);
    }
    gpu.kernel_time_factors = vec![(rust.kernel("stencil3"), factor)];
    MockDriver { cuda_version: 13000, devices: vec![gpu] }
}

/// Two block sizes, no warm-ups, and `extra`.
fn options(extra: &[&str]) -> CompareArgs {
    CompareArgs::from_args([&["--block-sizes", "64,256", "--warmups", "0", "--rounds", "3"], extra].concat())
        .unwrap()
}

/// `compare` of `rust` against the twin with `options`, on [`driver`]; what it printed, having
/// checked that it succeeded and said nothing on standard error.
fn compare_with(rust: EmbeddedPtx, factor: f32, options: &CompareArgs) -> String {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = block_size_runner::compare(
        &driver(rust, factor),
        &kernel(rust),
        options,
        &[],
        &mut Console { out: &mut out, err: &mut err },
    )
    .unwrap();
    let (out, err) = (String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap());
    assert_eq!((code, err.as_str()), (exit::SUCCESS, ""), "{out}");
    out
}

/// `compare` of `rust` against the twin in 3 rounds, the Rust build's launches `factor` times
/// the twin's.
fn compare(rust: EmbeddedPtx, factor: f32) -> String {
    compare_with(rust, factor, &options(&[]))
}

/// The lines that explain a gap.
fn gap_lines(out: &str) -> Vec<&str> {
    out.lines().filter(|line| line.contains(" is more than 2 percent slower than ")).collect()
}

#[test]
fn the_split_scaffold_ptx_gets_the_split_named() {
    let out = compare(SPLIT, 1.2);
    assert_eq!(
        gap_lines(&out),
        ["cuda_builder is more than 2 percent slower than nvcc at 64, 256 threads per block (up to 1.200): \
             cuda_builder's loop is split on the thread index around its barriers (2 branches on the thread index with a \
             barrier on one side; 5 barriers against nvcc's 2); nvcc's is not."],
        "{out}"
    );
    // The facts table: a row a build, its second column a count.
    let facts: Vec<Vec<&str>> = out
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .filter(|words| words.len() == 7 && words[1].parse::<u32>().is_ok())
        .collect();
    assert_eq!(
        facts,
        [["cuda_builder", "88", "5", "2", "2", "64-bit", "0"], ["nvcc", "65", "2", "1", "0", "32-bit", "0"]],
        "{out}"
    );
}

#[test]
fn the_whole_scaffold_ptx_gets_no_line_and_a_gap_without_a_cause_says_so() {
    assert_eq!(gap_lines(&compare(WHOLE, 1.0)), Vec::<&str>::new());
    assert_eq!(gap_lines(&compare(SPLIT, 1.0)), Vec::<&str>::new(), "no gap, no line, split or not");
    let out = compare(WHOLE, 1.2);
    let lines = gap_lines(&out);
    assert_eq!(lines.len(), 1, "{out}");
    assert!(!lines[0].contains("split"), "{out}");
    // The nvcc twin slower instead: the line is the twin's.
    let out = compare(WHOLE, 0.8);
    assert!(
        gap_lines(&out)
            .iter()
            .all(|line| line.starts_with("nvcc is more than 2 percent slower than cuda_builder")),
        "{out}"
    );
}

#[test]
fn a_sweeps_json_carries_the_facts_of_the_kernels_ptx() {
    let options = SweepArgs::from_args(["--block-sizes", "64,256", "--warmups", "0", "--runs", "2"]).unwrap();
    let measured = block_size_runner::sweep(&driver(SPLIT, 1.0), &kernel(SPLIT), &options).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&measured.export(block_size_runner::Format::Json).unwrap()).unwrap();
    let facts = &json["provenance"]["ptx_facts"];
    assert_eq!(
        (
            &facts["barriers"],
            &facts["loops"],
            &facts["thread_branches_around_barriers"],
            &facts["shared_address_bits"]
        ),
        (&serde_json::json!(5), &serde_json::json!(2), &serde_json::json!(2), &serde_json::json!(64)),
        "{json}"
    );
}

#[test]
fn compare_writes_its_json_with_each_builds_facts_and_the_gap_lines() {
    let dir = std::env::temp_dir().join(format!("compare-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("compare.json");
    let printed = compare_with(SPLIT, 1.2, &options(&["--json", path.to_str().unwrap()]));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        (&json["schema"], &json["version"], &json["command"]),
        // The command line recorded is this process's.
        (&"block-size compare".into(), &1.into(), &std::env::args().collect::<Vec<_>>().join(" ").into())
    );
    assert_eq!(json["baseline"], "nvcc");
    let builds = json["builds"].as_array().unwrap();
    assert_eq!(builds.len(), 2);
    assert_eq!(
        (&builds[0]["label"], &builds[0]["ptx_facts"]["thread_branches_around_barriers"]),
        (&"cuda_builder".into(), &2.into())
    );
    assert_eq!(builds[1]["ptx_facts"]["barriers"], 2);
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["cells"].as_array().unwrap().len(), 2);
    assert_eq!(rows[0]["cells"][0]["round_ms"].as_array().unwrap().len(), 3);
    assert!((rows[1]["ratios"][0]["median"].as_f64().unwrap() - 1.2).abs() < 1e-3, "{json}");
    let gaps: Vec<String> = gap_lines(&printed).iter().map(|line| line.to_string()).collect();
    assert_eq!(json["gaps"], serde_json::json!(gaps));
    assert_eq!(gaps.len(), 1);
}
