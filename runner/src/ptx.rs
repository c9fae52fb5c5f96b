/*!
The committed PTX and its provenance stamp, embedded at compile time.

`kernels/ptx/grayscale.ptx` is rust-cuda's `cuda_builder` output for `kernels/`; the tests
in `tests/` prove it still matches the kernel sources and assembles with `ptxas`.
*/

use ptx_stamp::Stamp;

/// The grayscale kernel, compiled for `compute_75`; the driver JIT-compiles it for newer GPUs.
pub const GRAYSCALE_PTX: &str = include_str!("../../kernels/ptx/grayscale.ptx");

/// The stamp written beside that PTX.
pub const GRAYSCALE_STAMP: &str = include_str!("../../kernels/ptx/grayscale.stamp.toml");

/// The parsed stamp.
pub fn stamp() -> Stamp {
    Stamp::parse(GRAYSCALE_STAMP).expect("the committed stamp parses (checked by the tests)")
}

/// SHA-256 of the embedded PTX, as the stamp and the evidence files record it.
pub fn sha256() -> String {
    ptx_stamp::sha256_hex(GRAYSCALE_PTX.as_bytes())
}

#[cfg(test)]
mod tests {
    #[test]
    fn embedded_ptx_is_the_one_the_stamp_describes() {
        assert_eq!(super::stamp().ptx_sha256, super::sha256());
    }
}
