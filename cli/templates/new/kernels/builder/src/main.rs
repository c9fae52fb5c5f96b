//! Writes the PTX that `build.rs` compiled to `ptx/kernels.ptx` at the project's root, with its
//! provenance stamp `ptx/kernels.stamp.toml`, then refuses it (exit status 1) if it has an
//! aligned barrier or a PTX ISA above 7.8.
//!
//! Deterministic: on an unchanged tree it rewrites the same bytes, so `git status` stays clean.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));

/// What the PTX is built from, relative to the project's root: the kernels' manifest, lock file
/// (which pins rust-cuda) and sources, and this builder.
const INPUTS: &[&str] = &["kernels/Cargo.toml", "kernels/Cargo.lock", "kernels/src", "kernels/builder"];

/// The newest PTX ISA the PTX may say: 7.8, CUDA 11.8's, which R520 and newer drivers load.
/// A newer libNVVM writes a newer `.version`, which older drivers refuse to load.
const MAX_PTX_ISA: (u32, u32) = (7, 8);

const RUST_CUDA_GIT: &str = "git+https://github.com/Rust-GPU/rust-cuda";
const REGENERATE: &str = "cargo run --release -p ptx-builder (in kernels/)";

/// The provenance stamp beside the PTX, as block-size-runner reads it (`EmbeddedPtx::with_stamp`):
/// the same fields as block-size's own stamps.
#[derive(Serialize, Deserialize)]
struct Stamp {
    kernels: Vec<String>,
    arch: String,
    compiler: String,
    inputs: Vec<String>,
    inputs_sha256: String,
    ptx_sha256: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    toolchain: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rustc: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rust_cuda_rev: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    libnvvm: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nvvm_ir: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    libnvvm_release: Option<String>,
    regenerate: String,
}

fn main() {
    if let Err(message) = run() {
        eprintln!("Error: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let kernels_dir = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let root = kernels_dir.parent().unwrap();

    let lock: toml::Table = parse(&kernels_dir.join("Cargo.lock"))?;
    let rust_cuda_rev = lock
        .get("package")
        .and_then(|packages| packages.as_array())
        .into_iter()
        .flatten()
        .filter_map(|package| package.get("source")?.as_str())
        .find(|source| source.starts_with(RUST_CUDA_GIT))
        .and_then(|source| source.rsplit_once('#'))
        .map(|(_, rev)| rev.to_string())
        .ok_or("kernels/Cargo.lock names no rust-cuda git source")?;
    let toolchain: toml::Table = parse(&kernels_dir.join("rust-toolchain.toml"))?;
    let toolchain = toolchain
        .get("toolchain")
        .and_then(|toolchain| toolchain.get("channel")?.as_str())
        .ok_or("kernels/rust-toolchain.toml names no channel")?;

    let stamp = Stamp {
        kernels: PTX
            .lines()
            .filter_map(|line| line.split(".entry ").nth(1))
            .map(|rest| rest.trim_end_matches('(').trim().to_string())
            .collect(),
        arch: "compute_75".into(),
        compiler: "cuda_builder".into(),
        inputs: INPUTS.iter().map(|input| input.to_string()).collect(),
        inputs_sha256: inputs_sha256(root, INPUTS)?,
        ptx_sha256: sha256_hex(PTX.as_bytes()),
        toolchain: Some(toolchain.into()),
        rustc: Some(env!("PTX_BUILDER_RUSTC").into()),
        rust_cuda_rev: Some(rust_cuda_rev),
        libnvvm: Some(env!("PTX_BUILDER_LIBNVVM").into()),
        nvvm_ir: Some(env!("PTX_BUILDER_NVVM_IR").into()),
        libnvvm_release: option_env!("PTX_BUILDER_LIBNVVM_RELEASE").map(Into::into),
        regenerate: REGENERATE.into(),
    };
    let stamp_text = toml::to_string(&stamp).map_err(|error| error.to_string())?;

    let ptx_dir = root.join("ptx");
    std::fs::create_dir_all(&ptx_dir).map_err(|error| format!("{}: {error}", ptx_dir.display()))?;
    write(&ptx_dir.join("kernels.ptx"), PTX)?;
    write(&ptx_dir.join("kernels.stamp.toml"), &format!("# Written by {REGENERATE}.\n{stamp_text}"))?;
    println!("wrote ptx/kernels.ptx (sha256 {}) and ptx/kernels.stamp.toml", stamp.ptx_sha256);

    let mut refusals = Vec::new();
    let barriers = aligned_barriers(PTX);
    if let Some((_, opcode)) = barriers.first() {
        let lines: Vec<String> = barriers.iter().map(|(line, _)| line.to_string()).collect();
        let at = if lines.len() == 1 { "line" } else { "lines" };
        refusals.push(format!(
            "it has aligned barriers (`{opcode}` at {at} {}), which can hang a block: use \
             kernels/src/barrier.rs's sync_threads(), never cuda_std::thread::sync_threads()",
            lines.join(", ")
        ));
    }
    if let Some(isa) = ptx_isa(PTX).filter(|&isa| isa > MAX_PTX_ISA) {
        refusals.push(format!(
            "its PTX ISA is {}.{}, above {}.{}, so drivers older than that ISA's CUDA release cannot \
             load it: compile with libNVVM 11.8 (CUDA_PATH)",
            isa.0, isa.1, MAX_PTX_ISA.0, MAX_PTX_ISA.1
        ));
    }
    if refusals.is_empty() {
        return Ok(());
    }
    Err(format!("ptx/kernels.ptx is not usable: {}", refusals.join("; ")))
}

/// The aligned block barriers in `ptx`, as (line number, opcode): `bar.sync`, `bar.arrive`,
/// `bar.red` (the short forms of `barrier.*.aligned`) and any `barrier.*` with `.aligned`. The
/// threads of a block must all reach the *same* aligned barrier instruction, which the compiler
/// does not guarantee (see `kernels/src/barrier.rs`).
fn aligned_barriers(ptx: &str) -> Vec<(usize, &str)> {
    ptx.lines()
        .enumerate()
        .filter_map(|(index, line)| {
            let code = line.split("//").next().unwrap_or("").trim();
            // Past a predicate guard such as `@%p1` or `@!%p1`.
            let code = match code.strip_prefix('@') {
                Some(guarded) => guarded.split_once(char::is_whitespace).map_or("", |(_, rest)| rest.trim()),
                None => code,
            };
            let opcode = code.split(|c: char| c.is_whitespace() || c == ';').next().unwrap_or("");
            let aligned = (opcode.starts_with("bar.") && !opcode.starts_with("bar.warp."))
                || (opcode.starts_with("barrier.") && opcode.split('.').any(|part| part == "aligned"));
            aligned.then_some((index + 1, opcode))
        })
        .collect()
}

/// The PTX ISA version of `ptx`'s `.version` directive.
fn ptx_isa(ptx: &str) -> Option<(u32, u32)> {
    let version = ptx.lines().find_map(|line| line.trim().strip_prefix(".version"))?;
    let (major, minor) = version.trim().split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// Lower-case hex SHA-256 of `bytes`.
fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().fold(String::with_capacity(64), |mut hex, byte| {
        let _ = write!(hex, "{byte:02x}");
        hex
    })
}

/// SHA-256 over `inputs` (files, or folders taken whole except any `target/` inside), relative
/// to `root`, as block-size's stamps hash theirs: files in sorted order of their `/`-separated
/// paths, each contributing its path, a zero byte, its length (u64, little-endian) and its
/// bytes.
fn inputs_sha256(root: &Path, inputs: &[&str]) -> Result<String, String> {
    let mut files = Vec::new();
    for input in inputs {
        collect_files(&root.join(input), &mut files)?;
    }
    let mut named: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|path| {
            let relative = path.strip_prefix(root).expect("every input is below the root");
            let parts: Vec<String> =
                relative.components().map(|part| part.as_os_str().to_string_lossy().into_owned()).collect();
            (parts.join("/"), path)
        })
        .collect();
    named.sort();
    named.dedup();
    let mut hasher = Sha256::new();
    for (name, path) in &named {
        let bytes = std::fs::read(path).map_err(|error| format!("{}: {error}", path.display()))?;
        hasher.update(name.as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    Ok(sha256_hex(&hasher.finalize()))
}

/// `path` if it is a file, else every file below it, skipping folders named `target`.
fn collect_files(path: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    let metadata = std::fs::metadata(path).map_err(|error| format!("{}: {error}", path.display()))?;
    if metadata.is_file() {
        files.push(path.to_path_buf());
        return Ok(());
    }
    let entries = std::fs::read_dir(path).map_err(|error| format!("{}: {error}", path.display()))?;
    for entry in entries {
        let entry = entry.map_err(|error| format!("{}: {error}", path.display()))?;
        if !(entry.path().is_dir() && entry.file_name() == "target") {
            collect_files(&entry.path(), files)?;
        }
    }
    Ok(())
}

fn parse(path: &Path) -> Result<toml::Table, String> {
    let text = std::fs::read_to_string(path).map_err(|error| format!("{}: {error}", path.display()))?;
    text.parse().map_err(|error| format!("{}: {error}", path.display()))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|error| format!("{}: {error}", path.display()))
}
