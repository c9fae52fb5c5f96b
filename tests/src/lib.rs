/*!
Helpers for the repository-level tests in `tests/tests/`: where the repository and the
committed PTX are, and where `ptxas` is.
*/

use std::path::{Path, PathBuf};

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
