/*!
Helpers for the repository-level tests in `tests/tests/`: where the repository and the
committed PTX are, where `ptxas` is, and what it makes of a PTX file.
*/

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
    fn repo_root_holds_the_workspace_manifest() {
        assert!(repo_root().join("Cargo.toml").is_file());
        assert!(repo_root().join("kernels/src/lib.rs").is_file());
    }
}
