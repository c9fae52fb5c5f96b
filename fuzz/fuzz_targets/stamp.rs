//! Fuzzes a PTX module's stamp (TOML) as the runner reads it, written again and read back.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| block_size_runner::fuzzing::stamp(data));
