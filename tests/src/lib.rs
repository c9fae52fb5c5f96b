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

/// `ptxas`: `$PTXAS` if set, else the CUDA 13.0 one `scripts/setup` unpacks from PyPI
/// (`nvidia-cuda-nvcc`) into `.cuda-nvcc/bin`, which reads every PTX ISA version committed
/// here (nvcc 13's 9.0 included), else the CUDA 12.9 one in `.cuda/bin`, else `PATH`'s.
pub fn ptxas() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PTXAS") {
        return Some(PathBuf::from(path));
    }
    for unpacked in [".cuda-nvcc/bin/ptxas", ".cuda/bin/ptxas"] {
        let path = repo_root().join(unpacked);
        if path.is_file() {
            return Some(path);
        }
    }
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join("ptxas"))
        .find(|candidate| candidate.is_file())
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
