/*!
[`ElementComparison`]: how a row's output is compared with what it should be, element by
element, where the comparison runs on the GPU (the comparison kernels of `kernels/src/mismatch.rs`,
through [`crate::measure::gpu::backend::Gpu::count_mismatches`]) so that only a count and the first
bad index come back; and [`Mismatches`], what it finds. [`ElementComparison::count_on_host`] is
the same comparison on the host, which the mock backend runs and the tests hold the kernels to.
*/

/// How two buffers' elements are compared: the rule of [`crate::Agreement`] for one element type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ElementComparison {
    /// The same bits, elements of this many bytes (2, 4 or 8).
    Bits(usize),
    /// `f32`s of the same bits, or within this relative tolerance in `f64`:
    /// `|got - expected| <= tolerance x max(|got|, |expected|)` (a NaN is never within).
    F32Within(f64),
    /// `f64`s, the same.
    F64Within(f64),
}

/// What a comparison found: how many elements differ, and the first that does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mismatches {
    /// Elements that differ.
    pub count: u64,
    /// The lowest index of one that differs (`None` where none does).
    pub first: Option<u64>,
}

impl ElementComparison {
    /// Bytes one element takes.
    pub fn element_size(self) -> usize {
        match self {
            Self::Bits(bytes) => bytes,
            Self::F32Within(_) => 4,
            Self::F64Within(_) => 8,
        }
    }

    /// The comparison kernel's entry point (`kernels/src/lib.rs`), `None` for an element size
    /// it has none for.
    pub fn entry(self) -> Option<&'static str> {
        Some(match self {
            Self::Bits(2) => "count_mismatches_b16",
            Self::Bits(4) => "count_mismatches_b32",
            Self::Bits(8) => "count_mismatches_b64",
            Self::Bits(_) => return None,
            Self::F32Within(_) => "count_mismatches_f32",
            Self::F64Within(_) => "count_mismatches_f64",
        })
    }

    /// The tolerance a float comparison passes its kernel, `None` for bits.
    pub fn tolerance(self) -> Option<f64> {
        match self {
            Self::Bits(_) => None,
            Self::F32Within(tolerance) | Self::F64Within(tolerance) => Some(tolerance),
        }
    }

    /// Whether element `got` matches `expected` (both of [`ElementComparison::element_size`]
    /// bytes): the rule each comparison kernel applies, and [`crate::Agreement`]'s.
    pub fn matches(self, got: &[u8], expected: &[u8]) -> bool {
        if got == expected {
            return true;
        }
        let (value, reference) = match self {
            Self::Bits(_) => return false,
            Self::F32Within(_) => (f64::from(f32_of(got)), f64::from(f32_of(expected))),
            Self::F64Within(_) => (f64_of(got), f64_of(expected)),
        };
        let tolerance = self.tolerance().unwrap_or(0.0);
        within(value, reference, tolerance)
    }

    /// The comparison of `count` elements of `got` with `expected` on the host, as the kernels
    /// make it on the device.
    pub fn count_on_host(self, got: &[u8], expected: &[u8], count: usize) -> Mismatches {
        let size = self.element_size();
        let mut found = Mismatches::default();
        for (index, (got, expected)) in
            got.chunks_exact(size).zip(expected.chunks_exact(size)).take(count).enumerate()
        {
            if !self.matches(got, expected) {
                found.count += 1;
                found.first.get_or_insert(index as u64);
            }
        }
        found
    }
}

/// [`crate::Agreement::Within`]'s rule for two values whose bits differ: the difference at
/// most `tolerance` times the larger magnitude. A NaN compares false, so is never within.
pub fn within(value: f64, reference: f64, tolerance: f64) -> bool {
    let difference = (value - reference).abs();
    let scale = value.abs().max(reference.abs());
    difference <= tolerance * scale
}

fn f32_of(bytes: &[u8]) -> f32 {
    f32::from_ne_bytes(bytes.try_into().expect("four bytes"))
}

fn f64_of(bytes: &[u8]) -> f64 {
    f64::from_ne_bytes(bytes.try_into().expect("eight bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_f32(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|value| value.to_ne_bytes()).collect()
    }

    #[test]
    fn bits_count_every_difference_and_name_the_first() {
        let expected = [1u32, 2, 3, 4].map(u32::to_ne_bytes).concat();
        let got = [1u32, 9, 3, 9].map(u32::to_ne_bytes).concat();
        assert_eq!(
            ElementComparison::Bits(4).count_on_host(&got, &expected, 4),
            Mismatches { count: 2, first: Some(1) }
        );
        assert_eq!(ElementComparison::Bits(4).count_on_host(&got, &expected, 1), Mismatches::default());
        assert_eq!(ElementComparison::Bits(3).entry(), None);
    }

    #[test]
    fn floats_within_the_tolerance_match_and_nan_never_does() {
        let comparison = ElementComparison::F32Within(1e-3);
        let expected = bytes_f32(&[1.0, 1000.0, 0.0, f32::NAN, 0.0]);
        let got = bytes_f32(&[1.0005, 1002.0, -0.0, f32::NAN, 1e-30]);
        // 1.0005: within; 1002: 2e-3 off; -0.0 vs 0.0: a difference of 0; the same NaN bits: the
        // same; 1e-30 against 0: the difference is the whole value.
        assert_eq!(comparison.count_on_host(&got, &expected, 5), Mismatches { count: 2, first: Some(1) });
        let nan = bytes_f32(&[f32::NAN]);
        assert!(!comparison.matches(&nan, &bytes_f32(&[1.0])));
        assert!(!ElementComparison::Bits(4).matches(&bytes_f32(&[-0.0]), &bytes_f32(&[0.0])));
    }
}
