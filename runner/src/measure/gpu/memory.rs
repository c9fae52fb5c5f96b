/*!
Host values as the bytes a device holds, and back: [`Plain`] numbers, viewed in place or copied
([`as_bytes`], [`view_values`], [`read_values`], [`write_values`]), and host vectors allocated
with an error, not an abort, where the host cannot hold them ([`host_vec`]).
*/

use crate::model::frame_size::mib;
use anyhow::{Context as _, Result};

/// Values of a plain numeric type, which any bytes of the right length may hold: `f32`,
/// `f64`, `u16`, `u32`, `u64`, `i32`.
///
/// # Safety
///
/// Implemented only for types with no padding and no invalid bit pattern, whose size is
/// [`Plain::SIZE`]: [`as_bytes`] and [`view_values`] reinterpret bytes as values of them.
pub unsafe trait Plain: Copy + Default + 'static {
    /// `size_of::<Self>()`.
    const SIZE: usize;
    /// The value whose native-endian bytes are `bytes` (exactly [`Plain::SIZE`] of them).
    fn from_ne(bytes: &[u8]) -> Self;
    /// Its native-endian bytes.
    fn to_ne(self) -> Vec<u8>;
}

macro_rules! plain {
    ($($ty:ty),*) => {$(
        // SAFETY: a primitive number: no padding, every bit pattern valid.
        unsafe impl Plain for $ty {
            const SIZE: usize = std::mem::size_of::<$ty>();
            fn from_ne(bytes: &[u8]) -> Self {
                Self::from_ne_bytes(bytes.try_into().expect("SIZE bytes"))
            }
            fn to_ne(self) -> Vec<u8> {
                self.to_ne_bytes().to_vec()
            }
        }
    )*};
}

plain!(f32, f64, u16, u32, u64, i32);

/// `values` as the bytes the device holds them in.
pub fn as_bytes<T: Plain>(values: &[T]) -> &[u8] {
    // SAFETY: T is Plain (an unsafe trait, implemented for plain numbers only): no padding,
    // no invalid bit patterns, and u8 has alignment 1; the length is the slice's size in bytes.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values)) }
}

/// `values` as bytes to copy the device's into.
pub fn as_bytes_mut<T: Plain>(values: &mut [T]) -> &mut [u8] {
    // SAFETY: as in as_bytes; every byte pattern written is a valid T.
    unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(values)) }
}

#[cfg(any(test, feature = "mock"))]
/// The first `count` values of `bytes`, in place where `bytes` is aligned for `T` (mock
/// memory always is), else copied.
pub fn view_values<T: Plain>(bytes: &[u8], count: usize) -> Result<std::borrow::Cow<'_, [T]>>
where
    [T]: ToOwned<Owned = Vec<T>>,
{
    let needed = count.checked_mul(T::SIZE).filter(|&needed| needed <= bytes.len());
    let needed = needed.with_context(|| format!("{count} values do not fit in {} bytes", bytes.len()))?;
    // SAFETY: any bytes are a valid T (Plain), and align_to only hands out the aligned middle.
    let (head, values, _) = unsafe { bytes[..needed].align_to::<T>() };
    if head.is_empty() && values.len() == count {
        return Ok(std::borrow::Cow::Borrowed(values));
    }
    Ok(std::borrow::Cow::Owned(read_values(bytes, count)?))
}

#[cfg(any(test, feature = "mock"))]
/// `count` values from the start of `bytes`, copied (mock emulations).
pub fn read_values<T: Plain>(bytes: &[u8], count: usize) -> Result<Vec<T>> {
    let needed = count.checked_mul(T::SIZE).filter(|&needed| needed <= bytes.len());
    needed.with_context(|| format!("{count} values do not fit in {} bytes", bytes.len()))?;
    Ok(bytes.chunks_exact(T::SIZE).take(count).map(T::from_ne).collect())
}

#[cfg(any(test, feature = "mock"))]
/// Writes `values` at the start of `bytes` (mock emulations).
pub fn write_values<T: Plain>(bytes: &mut [u8], values: &[T]) -> Result<()> {
    let source = as_bytes(values);
    let available = bytes.len();
    let target = bytes
        .get_mut(..source.len())
        .with_context(|| format!("{} values do not fit in {available} bytes", values.len()))?;
    target.copy_from_slice(source);
    Ok(())
}

/// An empty vector with room for `len` values, or an error instead of an abort when the host
/// cannot hold them.
pub fn host_vec<T>(len: usize, what: &str) -> Result<Vec<T>> {
    let mut values = Vec::new();
    values.try_reserve_exact(len).with_context(|| {
        format!(
            "cannot allocate {:.1} MiB of host memory for {what}",
            mib(len as f64 * std::mem::size_of::<T>() as f64)
        )
    })?;
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_through_bytes() {
        let values = [1.5f32, -2.0, 0.25];
        let bytes = as_bytes(&values);
        assert_eq!(bytes.len(), 12);
        assert_eq!(read_values::<f32>(bytes, 3).unwrap(), values);
        let mut back = [0u16; 2];
        write_values(as_bytes_mut(&mut back), &[7u16, 65535]).unwrap();
        assert_eq!(back, [7, 65535]);
        assert!(read_values::<u32>(&[0; 7], 2).is_err());
        // In place where aligned, copied where not: the same values either way.
        let words = [0x0001_0002_0003_0004u64, 0x0005_0006_0007_0008];
        let bytes = as_bytes(&words);
        assert!(matches!(view_values::<u16>(bytes, 8).unwrap(), std::borrow::Cow::Borrowed(_)));
        assert_eq!(
            *view_values::<u16>(&bytes[2..], 7).unwrap(),
            read_values::<u16>(&bytes[2..], 7).unwrap()[..]
        );
        assert!(view_values::<u32>(bytes, 5).is_err());
        assert!(write_values(&mut [0u8; 3], &[1u32]).is_err());
    }
}
