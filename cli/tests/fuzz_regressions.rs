//! The committed fuzz corpus of the command line's list options and every crash the fuzzer found
//! (`fuzz/regressions/list_options/`), replayed through the hook the fuzz target calls
//! (`block_size_cli::fuzzing::list_options`, the program's own parser): no fuzz build.

#[test]
fn the_list_options_replay_without_a_panic() {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions/list_options");
    let mut files: Vec<_> = std::fs::read_dir(&folder).unwrap().map(|entry| entry.unwrap().path()).collect();
    files.sort();
    assert!(!files.is_empty(), "{} holds no input", folder.display());
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        if std::panic::catch_unwind(|| block_size_cli::fuzzing::list_options(&bytes)).is_err() {
            panic!("{} panics list_options", file.display());
        }
    }
}
