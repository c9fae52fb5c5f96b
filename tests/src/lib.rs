/*!
Helpers for the repository-level tests in `tests/tests/`: where the repository and the
committed PTX are, where `ptxas` is, and what it makes of a PTX file; [`imports`], a crate's
import graph and its layers; [`lengths`], how long a crate's functions are.
*/

pub mod imports;
pub mod lengths;

use ptx_stamp::entry_names;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ sits in the repository root").to_path_buf()
}

/// Reads a file below the repository root, with its path in the panic message.
pub fn read_repo_file(relative: &str) -> String {
    let path = repo_root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The ptxas releases every committed PTX must assemble with: 11.8, the JIT of the oldest
/// driver the project supports (R520), and 13.0, the newest; `scripts/setup-dev` unpacks both
/// from PyPI into `.cuda-11.8/bin` and `.cuda-13.0/bin`. `$PTXAS_11_8` and `$PTXAS_13_0`
/// point elsewhere.
pub const PTXAS_RELEASES: [(&str, &str, &str); 2] =
    [("11.8", "PTXAS_11_8", ".cuda-11.8/bin/ptxas"), ("13.0", "PTXAS_13_0", ".cuda-13.0/bin/ptxas")];

/// Where the ptxas of `release` (one of [`PTXAS_RELEASES`]) is, if it is there.
pub fn ptxas(release: &str) -> Option<PathBuf> {
    let (_, variable, unpacked) = PTXAS_RELEASES.iter().find(|(known, _, _)| *known == release)?;
    if let Some(path) = std::env::var_os(variable) {
        return Some(PathBuf::from(path));
    }
    Some(repo_root().join(unpacked)).filter(|path| path.is_file())
}

/// Assembles `ptx` (from the file `file`, named in messages) with `ptxas -arch=<arch> -v` of
/// CUDA `release` and returns each entry's registers per thread, in the order ptxas reports
/// them, after checking that ptxas reports every entry the PTX defines and that none spills or
/// holds static shared memory.
pub fn assemble(file: &str, ptx: &str, release: &str, arch: &str) -> Vec<(String, u32)> {
    let ptxas = ptxas(release).unwrap_or_else(|| {
        panic!("ptxas {release} not found: run scripts/setup-dev, which unpacks it from PyPI")
    });
    let name = Path::new(file).file_stem().and_then(|stem| stem.to_str()).unwrap_or("kernel");
    let dir =
        std::env::temp_dir().join(format!("block-size-ptxas-{}-{name}-{release}-{arch}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("kernel.ptx");
    std::fs::write(&input, ptx).unwrap();
    let output = Command::new(&ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg(&input)
        .arg("-o")
        .arg(dir.join("kernel.cubin"))
        .output()
        .unwrap_or_else(|error| panic!("{}: {error}", ptxas.display()));
    std::fs::remove_dir_all(&dir).unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "ptxas {release} -arch={arch} rejected {file}:\n{log}");
    let mut registers = Vec::new();
    for section in log.split("Compiling entry function '").skip(1) {
        let entry = section.split('\'').next().unwrap().to_string();
        assert!(
            section.contains("0 bytes spill stores, 0 bytes spill loads"),
            "{file} {entry} spills:\n{log}"
        );
        let used = section.lines().find(|line| line.contains("Used ")).unwrap_or_else(|| panic!("{log}"));
        assert!(!used.contains("smem"), "{file} {entry} has static shared memory: {used}");
        let count = used
            .split("Used ")
            .nth(1)
            .and_then(|rest| rest.split(" registers").next())
            .and_then(|count| count.trim().parse().ok())
            .unwrap_or_else(|| panic!("no register count in:\n{log}"));
        println!("ptxas {release} -arch={arch} {file} {entry}: {count} registers per thread");
        registers.push((entry, count));
    }
    assert_eq!(
        registers.iter().map(|(entry, _)| entry.clone()).collect::<BTreeSet<_>>(),
        entry_names(ptx).into_iter().collect(),
        "{file}: ptxas reports every entry"
    );
    registers
}

/// A barrier instruction in a PTX function: where it is and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Barrier {
    /// The function (`.entry` or `.func`) whose body holds it.
    pub function: String,
    /// 1-based line number in the PTX.
    pub line: usize,
    /// The opcode with its modifiers, e.g. `bar.sync` or `barrier.sync`.
    pub opcode: String,
}

impl Barrier {
    /// Whether this is an *aligned* barrier, one that every thread of the block (or warp) must
    /// reach at the same instruction: every `bar` form (`bar.sync`, `bar.cta.sync`,
    /// `bar.arrive`, `bar.red.*`; PTX defines `bar{.cta}` as `barrier{.cta}.aligned`) and every
    /// `barrier` form with `.aligned` (`barrier.sync.aligned`, `barrier.cluster.arrive.aligned`,
    /// ...). `bar.warp.sync`, a warp's own synchronisation with a member mask, is not one.
    pub fn is_aligned(&self) -> bool {
        let opcode = self.opcode.as_str();
        opcode != "bar.warp.sync"
            && (opcode == "bar"
                || opcode.starts_with("bar.")
                || opcode.split('.').any(|part| part == "aligned"))
    }
}

/// Every barrier instruction (opcode `bar`, `bar.*` or `barrier.*`, predicated or not) in
/// `ptx`, with the function it is in. Comments are skipped; so are instructions outside any
/// function, which PTX does not have.
pub fn barriers(ptx: &str) -> Vec<Barrier> {
    let mut function: Option<String> = None;
    let mut found = Vec::new();
    for (index, line) in ptx.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("").trim();
        if let Some(name) = function_name(code) {
            function = Some(name);
            continue;
        }
        // An optional guard predicate, `@%p1` or `@!%p1`, then the opcode.
        let mut words = code.split_whitespace();
        let Some(mut opcode) = words.next() else { continue };
        if opcode.starts_with('@') {
            let Some(next) = words.next() else { continue };
            opcode = next;
        }
        let opcode = opcode.trim_end_matches(';');
        if opcode == "bar" || opcode.starts_with("bar.") || opcode.starts_with("barrier.") {
            found.push(Barrier {
                function: function.clone().unwrap_or_default(),
                line: index + 1,
                opcode: opcode.to_string(),
            });
        }
    }
    found
}

/// The name a line starts the definition of, for `.entry` and `.func` lines that open a body
/// (not declarations, which end with `;`).
fn function_name(code: &str) -> Option<String> {
    if code.ends_with(';') {
        return None;
    }
    if let Some(rest) = code.split(".entry ").nth(1) {
        return Some(rest.split('(').next().unwrap_or("").trim().to_string());
    }
    let rest = code.split(".func ").nth(1)?.trim_start();
    // `.func (.param .b32 func_retval0) name(`: skip the return parameters.
    let rest = if rest.starts_with('(') { rest.split_once(')').map_or("", |(_, after)| after) } else { rest };
    Some(rest.split('(').next().unwrap_or("").trim().to_string())
}

/// The value of `key = "value"` in a TOML-like line set, first match.
pub fn quoted_value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .map(str::trim)
        .filter(|line| line.starts_with(key))
        .filter_map(|line| line[key.len()..].trim_start().strip_prefix('='))
        .filter_map(|rest| rest.split('"').nth(1))
        .next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_value_reads_the_first_matching_key() {
        let text = "[toolchain]\nchannel = \"nightly-2026-04-02\"\ncomponents = [\"a\"]\n";
        assert_eq!(quoted_value(text, "channel"), Some("nightly-2026-04-02"));
        assert_eq!(quoted_value(text, "profile"), None);
    }

    #[test]
    fn barriers_finds_every_form_and_tells_aligned_from_unaligned() {
        let ptx = "\
.version 7.8
.extern .func (.param .b32 func_retval0) declared(.param .b32 a);
.visible .entry first(
\t.param .u64 first_param_0
)
{
\tbar.sync \t0;
\t// bar.sync 0; in a comment is no barrier
\t@%p1 bar.cta.sync 1, 64;
\tbar.red.popc.u32 %r1, 0, %p2;
\tbarrier.sync.aligned 0;
\t@!%p3 barrier.cta.red.or.aligned.pred %p4, 0, %p5;
\tbar.arrive 2, 64;
\tbar.warp.sync -1;
\tld.shared.u32 %r2, [bar];
}
.func (.param .b32 func_retval0) helper(
\t.param .b32 helper_param_0
)
{
\t// begin inline asm
\tbarrier.sync 0;
\t// end inline asm
\tbarrier.cta.sync 1, 64;
\tbarrier.arrive 2, 64;
\tbarrier.cluster.arrive.aligned;
}
";
        let found = barriers(ptx);
        let summary: Vec<(&str, &str, bool)> =
            found.iter().map(|b| (b.function.as_str(), b.opcode.as_str(), b.is_aligned())).collect();
        assert_eq!(
            summary,
            [
                ("first", "bar.sync", true),
                ("first", "bar.cta.sync", true),
                ("first", "bar.red.popc.u32", true),
                ("first", "barrier.sync.aligned", true),
                ("first", "barrier.cta.red.or.aligned.pred", true),
                ("first", "bar.arrive", true),
                ("first", "bar.warp.sync", false),
                ("helper", "barrier.sync", false),
                ("helper", "barrier.cta.sync", false),
                ("helper", "barrier.arrive", false),
                ("helper", "barrier.cluster.arrive.aligned", true),
            ]
        );
        assert_eq!(found[0].line, 7);
    }

    #[test]
    fn repo_root_holds_the_workspace_manifest() {
        assert!(repo_root().join("Cargo.toml").is_file());
        assert!(repo_root().join("kernels/src/lib.rs").is_file());
    }
}
