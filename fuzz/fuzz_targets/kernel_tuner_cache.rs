//! Fuzzes Kernel Tuner's cache file as `diff` and `report` read it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| block_size_runner::fuzzing::kernel_tuner_cache(data));
