//! Fuzzes `block-size merge`'s parts (split at the byte 0x1E), as merge reads and puts them together.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| block_size_runner::fuzzing::merge(data));
