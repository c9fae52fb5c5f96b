//! What the integration tests that run `block-size` on the mock worker share.

use std::path::PathBuf;
use std::process::Command;

/// The mock worker example, which `cargo test` builds beside this test's binary (and this
/// function builds where a test was run on its own).
pub fn mock_worker() -> PathBuf {
    static BUILT: std::sync::Once = std::sync::Once::new();
    let deps = std::env::current_exe().unwrap().parent().unwrap().to_path_buf();
    let worker = deps.parent().unwrap().join("examples").join("mock_worker");
    BUILT.call_once(|| {
        if !worker.exists() {
            let status = Command::new(env!("CARGO"))
                .args(["build", "--quiet", "-p", "block-size", "--example", "mock_worker"])
                .status()
                .unwrap();
            assert!(status.success(), "building examples/mock_worker.rs");
        }
    });
    assert!(worker.exists(), "{} is built by cargo test (examples/mock_worker.rs)", worker.display());
    worker
}

/// The JSON file at `path`, parsed (an export, a journal's winners, ...).
// Not every test that shares this module reads a file.
#[allow(dead_code)]
pub fn json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}
