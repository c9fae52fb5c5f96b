//! The checks of a kernel: against a CPU reference ([`Check::reference`]), against expected
//! values computed once ([`Check::expected`]), or "the result at every block size equals the
//! first row's" ([`Check::same_as_first`]), bit for bit or within a relative tolerance
//! ([`Agreement`]); and [`Values`], the result they compare. The last two run on the GPU where
//! the kernel's result is its output buffer: only a count and the first bad index come back.

use super::shape::LaunchShape;
use crate::measure::gpu::memory::{as_bytes, as_bytes_mut, host_vec};
use crate::model::comparison::{ElementComparison, within};
use std::fmt;

/// A row's result: the values a check compares, of one number type ([`super::Element`]):
/// made with `From` (`Values::from(vec![1.0f32])`, `2.0.into()`) and read with
/// [`Values::of`].
#[derive(Debug, Clone, PartialEq)]
pub struct Values(pub(crate) Typed);

/// The values of [`Values`], by their type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Typed {
    /// `f32`s.
    F32(Vec<f32>),
    /// `f64`s.
    F64(Vec<f64>),
    /// `u16`s.
    U16(Vec<u16>),
    /// `u32`s.
    U32(Vec<u32>),
    /// `u64`s.
    U64(Vec<u64>),
    /// `i32`s.
    I32(Vec<i32>),
}

impl Values {
    /// The values as `T`s, where they are of type `T` (`None` otherwise): no match on the
    /// variants needed.
    ///
    /// ```
    /// use block_size_runner::Values;
    ///
    /// let values = Values::from(vec![1.0f32, 2.0]);
    /// assert_eq!(values.of::<f32>(), Some(&[1.0f32, 2.0][..]));
    /// assert_eq!(values.of::<u32>(), None);
    /// ```
    pub fn of<T: super::Element>(&self) -> Option<&[T]> {
        T::view(self)
    }

    /// How many values.
    pub(crate) fn len(&self) -> usize {
        match &self.0 {
            Typed::F32(values) => values.len(),
            Typed::F64(values) => values.len(),
            Typed::U16(values) => values.len(),
            Typed::U32(values) => values.len(),
            Typed::U64(values) => values.len(),
            Typed::I32(values) => values.len(),
        }
    }

    /// The number type's name: `f32`, `u32`, ...
    pub(crate) fn type_name(&self) -> &'static str {
        match &self.0 {
            Typed::F32(_) => "f32",
            Typed::F64(_) => "f64",
            Typed::U16(_) => "u16",
            Typed::U32(_) => "u32",
            Typed::U64(_) => "u64",
            Typed::I32(_) => "i32",
        }
    }

    /// Value `index` as an `f64` (exact for every type but `u64`s above 2^53).
    pub(crate) fn get(&self, index: usize) -> Option<f64> {
        match &self.0 {
            Typed::F32(values) => values.get(index).map(|&value| f64::from(value)),
            Typed::F64(values) => values.get(index).copied(),
            Typed::U16(values) => values.get(index).map(|&value| f64::from(value)),
            Typed::U32(values) => values.get(index).map(|&value| f64::from(value)),
            Typed::U64(values) => values.get(index).map(|&value| value as f64),
            Typed::I32(values) => values.get(index).map(|&value| f64::from(value)),
        }
    }

    /// The bits of value `index`, as the device wrote them.
    pub(crate) fn bits(&self, index: usize) -> Option<u64> {
        match &self.0 {
            Typed::F32(values) => values.get(index).map(|value| u64::from(value.to_bits())),
            Typed::F64(values) => values.get(index).map(|value| value.to_bits()),
            Typed::U16(values) => values.get(index).map(|&value| u64::from(value)),
            Typed::U32(values) => values.get(index).map(|&value| u64::from(value)),
            Typed::U64(values) => values.get(index).copied(),
            Typed::I32(values) => values.get(index).map(|&value| u64::from(value as u32)),
        }
    }

    /// Value `index` as printed: the number, exactly (`f32` and `f64` in their shortest form
    /// that reads back the same).
    pub(crate) fn show(&self, index: usize) -> String {
        match &self.0 {
            Typed::F32(values) => values.get(index).map(ToString::to_string),
            Typed::F64(values) => values.get(index).map(ToString::to_string),
            Typed::U16(values) => values.get(index).map(ToString::to_string),
            Typed::U32(values) => values.get(index).map(ToString::to_string),
            Typed::U64(values) => values.get(index).map(ToString::to_string),
            Typed::I32(values) => values.get(index).map(ToString::to_string),
        }
        .unwrap_or_else(|| "nothing".to_string())
    }

    /// The values' bytes, as the device holds them.
    pub(crate) fn bytes(&self) -> &[u8] {
        match &self.0 {
            Typed::F32(values) => as_bytes(values),
            Typed::F64(values) => as_bytes(values),
            Typed::U16(values) => as_bytes(values),
            Typed::U32(values) => as_bytes(values),
            Typed::U64(values) => as_bytes(values),
            Typed::I32(values) => as_bytes(values),
        }
    }

    /// The values' bytes, to copy the device's into.
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        match &mut self.0 {
            Typed::F32(values) => as_bytes_mut(values),
            Typed::F64(values) => as_bytes_mut(values),
            Typed::U16(values) => as_bytes_mut(values),
            Typed::U32(values) => as_bytes_mut(values),
            Typed::U64(values) => as_bytes_mut(values),
            Typed::I32(values) => as_bytes_mut(values),
        }
    }

    /// Whether the values are floating-point.
    fn is_float(&self) -> bool {
        matches!(self.0, Typed::F32(_) | Typed::F64(_))
    }

    /// Bytes one value takes.
    pub(crate) fn element_size(&self) -> usize {
        match &self.0 {
            Typed::U16(_) => 2,
            Typed::F32(_) | Typed::U32(_) | Typed::I32(_) => 4,
            Typed::F64(_) | Typed::U64(_) => 8,
        }
    }
}

/// One `f64`: a scalar result (a sum).
impl From<f64> for Values {
    fn from(value: f64) -> Self {
        Self(Typed::F64(vec![value]))
    }
}

/// One `f32`.
impl From<f32> for Values {
    fn from(value: f32) -> Self {
        Self(Typed::F32(vec![value]))
    }
}

/// A vector of any [`super::Element`] type.
impl<T: super::Element> From<Vec<T>> for Values {
    fn from(values: Vec<T>) -> Self {
        T::wrap(values)
    }
}

/// How close a row's result must be to the first row's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Agreement {
    /// Bit for bit: the same type, the same count, every value of the same bits.
    BitForBit,
    /// Within this relative tolerance: `|value - first| <= tolerance x max(|value|, |first|)`
    /// for every value (integers too, as `f64`). A float sum whose order of additions depends
    /// on the block size needs this; `0.0` accepts equal values only (but `0.0` and `-0.0`).
    Within(f64),
}

impl Agreement {
    /// This agreement as a comparison the GPU makes on values of `values`' type
    /// ([`crate::model::comparison`]): bits for every type, a tolerance for floats; `None` for
    /// integers within a tolerance, which the host compares.
    pub(crate) fn on_device(self, values: &Values) -> Option<ElementComparison> {
        match (self, &values.0) {
            (Self::BitForBit, _) => Some(ElementComparison::Bits(values.element_size())),
            (Self::Within(tolerance), Typed::F32(_)) => Some(ElementComparison::F32Within(tolerance)),
            (Self::Within(tolerance), Typed::F64(_)) => Some(ElementComparison::F64Within(tolerance)),
            (Self::Within(_), _) => None,
        }
    }

    /// Whether value `index` of `got` agrees with that of `reference` (both of one type).
    fn agrees_at(self, reference: &Values, got: &Values, index: usize) -> bool {
        if got.bits(index) == reference.bits(index) {
            return true;
        }
        match (self, got.get(index), reference.get(index)) {
            (Self::Within(tolerance), Some(value), Some(reference)) => within(value, reference, tolerance),
            _ => false,
        }
    }

    /// Where `got` differs from `first` more than this agreement allows: the first value that
    /// does (`None` where the types or counts differ), and what is wrong, ending with the
    /// first row's value, which `first_row` names.
    pub(crate) fn difference(
        self,
        first: &Values,
        got: &Values,
        first_row: &str,
    ) -> Option<(Option<usize>, String)> {
        if first.type_name() != got.type_name() {
            return Some((
                None,
                format!(
                    "the result is {} {}s, the first row's ({first_row}) {} {}s",
                    got.len(),
                    got.type_name(),
                    first.len(),
                    first.type_name()
                ),
            ));
        }
        if first.len() != got.len() {
            return Some((
                None,
                format!(
                    "the result has {} values, the first row ({first_row}) had {}",
                    got.len(),
                    first.len()
                ),
            ));
        }
        let hex = |values: &Values, index| {
            values.bits(index).map_or_else(String::new, |bits| {
                let digits = if matches!(values.0, Typed::F64(_) | Typed::U64(_)) { 16 } else { 8 };
                format!(" (0x{bits:0digits$x})")
            })
        };
        let index = (0..got.len()).find(|&index| !self.agrees_at(first, got, index))?;
        {
            match self {
                Self::BitForBit => Some((
                    Some(index),
                    format!(
                        "value {index} is {}{}, not bit for bit the first row's ({first_row}) {}{}",
                        got.show(index),
                        if got.is_float() { hex(got, index) } else { String::new() },
                        first.show(index),
                        if got.is_float() { hex(first, index) } else { String::new() },
                    ),
                )),
                Self::Within(tolerance) => {
                    let (value, reference) = (got.get(index)?, first.get(index)?);
                    let difference = (value - reference).abs();
                    let scale = value.abs().max(reference.abs());
                    let relative = if scale > 0.0 { difference / scale } else { difference };
                    Some((
                        Some(index),
                        format!(
                            "value {index} is {}, the first row's ({first_row}) {}: a relative difference of {relative:.3e}, above the tolerance {tolerance:e}",
                            got.show(index),
                            first.show(index)
                        ),
                    ))
                }
            }
        }
    }

    /// Where `got` differs from `expected` more than this agreement allows, as a check against
    /// expected values says it: "pixel 5 is 2, the CPU reference says 0.3", `element` naming
    /// one value; the index `None` where the types or counts differ.
    pub(crate) fn difference_from_expected(
        self,
        expected: &Values,
        got: &Values,
        element: &str,
    ) -> Option<(Option<usize>, String)> {
        if expected.type_name() != got.type_name() {
            return Some((
                None,
                format!(
                    "the result is {} {}s, the CPU reference {} {}s",
                    got.len(),
                    got.type_name(),
                    expected.len(),
                    expected.type_name()
                ),
            ));
        }
        if expected.len() != got.len() {
            return Some((
                None,
                format!("the result has {} values, the CPU reference {}", got.len(), expected.len()),
            ));
        }
        let index = (0..got.len()).find(|&index| !self.agrees_at(expected, got, index))?;
        Some((
            Some(index),
            format!(
                "{element} {index} is {}, the CPU reference says {}",
                got.show(index),
                expected.show(index)
            ),
        ))
    }
}

/// `bit for bit`, or `within 1e-6 (relative)`.
impl fmt::Display for Agreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BitForBit => f.write_str("bit for bit"),
            Self::Within(tolerance) => write!(f, "within {tolerance:e} (relative)"),
        }
    }
}

/// `count` zeros of `T`, or an error instead of an abort where the host cannot hold them: the
/// values an output is read back into.
pub(crate) fn zeros<T: super::Element>(count: usize) -> anyhow::Result<Values> {
    let mut values = host_vec::<T>(count, "an output read back")?;
    values.resize(count, T::default());
    Ok(T::wrap(values))
}

/// A CPU reference's verdict on a row's result: `Err` with what is wrong, in one line.
type ReferenceFn = Box<dyn Fn(&Values, &LaunchShape) -> Result<(), String>>;

/// What builds the values every row's result must equal ([`Check::expected`]).
type ExpectedFn = Box<dyn Fn() -> anyhow::Result<Values>>;

/// A check against expected values: built once on the host, compared on the GPU.
pub(crate) struct Expected {
    /// Builds them, the first time a row is checked.
    pub make: ExpectedFn,
    /// How closely a row's result must equal them.
    pub agreement: Agreement,
    /// What one value is called in a failure's line: `value`, `pixel`.
    pub element: &'static str,
}

/// A check every row of a sweep must pass; a row that fails one is a failed check of the run
/// (exit status 1), its table not a measurement.
pub struct Check(pub(crate) CheckKind);

/// What a [`Check`] compares a row's result with.
pub(crate) enum CheckKind {
    /// A CPU reference ([`Check::reference`]).
    Reference(ReferenceFn),
    /// The first row's result (the first block size of the first configuration of the axes), as
    /// closely as the [`Agreement`] says.
    SameAsFirst(Agreement),
    /// Values computed once ([`Check::expected`]).
    Expected(Expected),
}

impl Check {
    /// A check against a CPU reference: `verdict(result, shape)` is `Ok(())` for a right
    /// result, or `Err` with what is wrong, in one line that names where ("value 7 is 3.2, the
    /// CPU reference says 3.1").
    pub fn reference(verdict: impl Fn(&Values, &LaunchShape) -> Result<(), String> + 'static) -> Self {
        Self(CheckKind::Reference(Box::new(verdict)))
    }

    /// Every row's result must equal the first row's, as closely as `agreement` says: a check
    /// for a kernel with no CPU reference, that the block size must not change what it
    /// computes. Where the result is the kernel's output buffer (no [`crate::Kernel::result`]),
    /// the first row's output is kept on the device and every later row compared with it there.
    pub fn same_as_first(agreement: Agreement) -> Self {
        Self(CheckKind::SameAsFirst(agreement))
    }

    /// Every row's result must equal the values `expected` builds, as closely as `agreement`
    /// says: a CPU reference computed once, however many rows, rounds and devices check
    /// against it. Where the result is the kernel's output buffer (no [`crate::Kernel::result`])
    /// and the agreement one the GPU can judge (bit for bit, or floats within a tolerance),
    /// the values are uploaded once to each device and every row is compared with them there:
    /// no row's output is copied back unless it is wrong, when the host names the first wrong
    /// value ("value 5 is 2, the CPU reference says 0.3"; [`Check::naming`] changes `value`).
    /// Otherwise every row's result is copied back and compared on the host.
    pub fn expected(agreement: Agreement, expected: impl Fn() -> anyhow::Result<Values> + 'static) -> Self {
        Self(CheckKind::Expected(Expected { make: Box::new(expected), agreement, element: "value" }))
    }

    /// What one value of the result is called in this check's failures (`pixel`, `bin`):
    /// [`Check::expected`]'s alone, the others say it in their own words.
    pub fn naming(mut self, element: &'static str) -> Self {
        if let CheckKind::Expected(expected) = &mut self.0 {
            expected.element = element;
        }
        self
    }
}

impl fmt::Debug for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            CheckKind::Reference(_) => f.write_str("Check::reference(..)"),
            CheckKind::SameAsFirst(agreement) => {
                f.debug_tuple("Check::same_as_first").field(agreement).finish()
            }
            CheckKind::Expected(expected) => {
                f.debug_tuple("Check::expected").field(&expected.agreement).finish_non_exhaustive()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_for_bit_takes_every_bit() {
        let first = Values::from(vec![1.0f32, 2.0]);
        assert_eq!(Agreement::BitForBit.difference(&first, &first.clone(), "32 threads per block"), None);
        let next = Values::from(vec![1.0f32, f32::from_bits(2.0f32.to_bits() + 1)]);
        let (index, text) = Agreement::BitForBit.difference(&first, &next, "32 threads per block").unwrap();
        assert_eq!(index, Some(1));
        assert_eq!(
            text,
            "value 1 is 2.0000002 (0x40000001), not bit for bit the first row's (32 threads per block) 2 (0x40000000)"
        );
        // -0.0 and 0.0 differ in their bits.
        assert!(Agreement::BitForBit.difference(&Values::from(0.0), &Values::from(-0.0), "x").is_some());
        assert_eq!(Agreement::Within(0.0).difference(&Values::from(0.0), &Values::from(-0.0), "x"), None);
    }

    #[test]
    fn a_tolerance_is_relative_to_the_larger_value() {
        let first = Values::from(1000.0);
        assert_eq!(Agreement::Within(1e-6).difference(&first, &Values::from(1000.0009), "x"), None);
        let (index, text) = Agreement::Within(1e-6).difference(&first, &Values::from(1000.002), "x").unwrap();
        assert_eq!(index, Some(0));
        assert!(
            text.starts_with(
                "value 0 is 1000.002, the first row's (x) 1000: a relative difference of 2.000e-6"
            ),
            "{text}"
        );
        assert!(
            Agreement::Within(1.0).difference(&first, &Values::from(f64::NAN), "x").is_some(),
            "NaN is never close"
        );
        assert_eq!(
            Agreement::Within(0.1).difference(&Values::from(vec![100u32]), &Values::from(vec![95u32]), "x"),
            None
        );
    }

    #[test]
    fn types_and_counts_must_match() {
        let (index, text) = Agreement::BitForBit
            .difference(&Values::from(vec![1.0f32]), &Values::from(vec![1u32]), "64 threads per block")
            .unwrap();
        assert_eq!(
            (index, text.as_str()),
            (None, "the result is 1 u32s, the first row's (64 threads per block) 1 f32s")
        );
        let (_, text) = Agreement::Within(1.0)
            .difference(&Values::from(vec![1u32]), &Values::from(vec![1u32, 2]), "r")
            .unwrap();
        assert_eq!(text, "the result has 2 values, the first row (r) had 1");
        assert_eq!(Values::from(vec![1u16, 2]).type_name(), "u16");
        assert_eq!(Values::from(vec![-1i32]).bits(0), Some(0xffff_ffff));
        assert_eq!(Agreement::Within(1e-6).to_string(), "within 1e-6 (relative)");
    }
}
