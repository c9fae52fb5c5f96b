//! Fuzzes a result file as `block-size diff F F` reads it, compares and renders it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| block_size_runner::fuzzing::diff(data));
