//! Fuzzes a result file as `block-size report F --html PAGE` reads it and renders its page.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| block_size_runner::fuzzing::report(data));
