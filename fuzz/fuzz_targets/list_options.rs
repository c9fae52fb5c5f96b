//! Fuzzes the command line's list options (`--block-sizes`, `--bins`, `--waves`, ...) through
//! `block-size`'s own parser and validation.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| block_size_cli::fuzzing::list_options(data));
