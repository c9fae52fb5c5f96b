//! Fuzzes a journal as `--resume FILE` reads it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| block_size_runner::fuzzing::journal(data));
