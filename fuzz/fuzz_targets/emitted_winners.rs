//! Fuzzes `FILE.rs.json`, the winners beside an `--emit-rust` file, as a later run reads it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| block_size_runner::fuzzing::emitted_winners(data));
