//! Fuzzes a PTX module's header and entries as the runner reads them.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| block_size_runner::fuzzing::ptx(data));
