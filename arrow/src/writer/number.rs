//! Numbers, booleans and nulls.
//!
//! Integers are written by jitson's integer emitter (`jitson_core::write`),
//! the bytes arrow-json's `lexical_core` gives. Floats are not serde_json's
//! text (which jitson's float emitter writes) but lexical's: plain decimal
//! when the first digit's exponent is in `-5..=9` (`123.456`, `100.0`,
//! `0.00001`), otherwise `1.0e10`, `1.5e-7`; NaN and ±infinity as `null`;
//! Float16 widened to f32. Re-laying out the emitter's digits was tried and
//! is not enough: the two shortest-digit algorithms break exact ties
//! differently (2567984.25f32 is `2567984.3` to lexical, `2567984.2` to zmij),
//! so floats are written by lexical itself, the library arrow-json uses.
//!
//! Decimals are written unquoted, as arrow's `format_decimal` prints them.

use arrow_array::cast::AsArray;
use arrow_array::types::DecimalType;
use arrow_array::{Array, ArrowPrimitiveType};
use arrow_buffer::BooleanBuffer;
use arrow_schema::{ArrowError, DataType};
use jitson_core::write::{Integer, append, write_int};

use super::plan::{Encode, Plan};

struct Ints<'a, T>(&'a [T]);

impl<T: Integer> Encode for Ints<'_, T> {
    #[inline]
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        write_int(out, self.0[row]);
    }
}

pub(crate) fn bind_int<'a, T: ArrowPrimitiveType>(
    _: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError>
where
    T::Native: Integer,
{
    Ok(Box::new(Ints(array.as_primitive::<T>().values().as_ref())))
}

/// Floats as arrow-json writes them: `lexical_core`'s default format (the
/// same library and version), NaN and ±infinity as `null`.
struct Floats<'a, T>(&'a [T]);

/// Room for any float lexical writes (its own bound for f64, the larger).
const FLOAT_ROOM: usize = <f64 as lexical_core::FormattedSize>::FORMATTED_SIZE;

/// A float that lexical writes; f16 is widened to f32 first, as arrow-json.
pub(crate) trait Float: Copy {
    /// The value's text in `buf` (`null` for NaN and ±infinity): its length.
    fn format(self, buf: &mut [u8; FLOAT_ROOM]) -> usize;

    /// Writes the value's text at `dst` (zeroed first, so that lexical
    /// writes into initialised bytes): its length. In place, where a text
    /// built on the stack and copied took a `memcpy` call and a stalled
    /// reload per value.
    ///
    /// # Safety
    /// `dst` is valid for writes of [`FLOAT_ROOM`] bytes.
    #[inline]
    unsafe fn format_at(self, dst: *mut u8) -> usize {
        // SAFETY: as the caller guarantees; once zeroed, the room is
        // initialised bytes that nothing else refers to for the call.
        unsafe {
            dst.cast::<[u8; FLOAT_ROOM]>()
                .write_unaligned([0; FLOAT_ROOM]);
            self.format(&mut *dst.cast::<[u8; FLOAT_ROOM]>())
        }
    }

    #[inline]
    fn append(self, out: &mut Vec<u8>) {
        out.reserve(FLOAT_ROOM);
        let len = out.len();
        // SAFETY: the reserve above leaves FLOAT_ROOM bytes of capacity past
        // `len`; the text's bytes written there are initialised.
        unsafe {
            let written = self.format_at(out.as_mut_ptr().add(len));
            out.set_len(len + written);
        }
    }
}

macro_rules! lexical_float {
    ($($t:ty),*) => {$(
        impl Float for $t {
            #[inline]
            fn format(self, buf: &mut [u8; FLOAT_ROOM]) -> usize {
                if self.is_finite() {
                    lexical_core::write(self, buf).len()
                } else {
                    buf[..4].copy_from_slice(b"null");
                    4
                }
            }
        }
    )*};
}
lexical_float!(f32, f64);

impl Float for half::f16 {
    #[inline]
    fn format(self, buf: &mut [u8; FLOAT_ROOM]) -> usize {
        self.to_f32().format(buf)
    }
}

/// The compiled writer's [`jitson_jit::FormatFn`] for floats of type `T`
/// (`T` as wide as its bits): the bytes [`Float::format`] writes.
///
/// # Safety
/// `dst` has room for [`FLOAT_ROOM`] bytes.
#[cfg(feature = "jit")]
pub(crate) unsafe extern "C" fn format_float<T: Float + FromBits>(
    value: u64,
    dst: *mut u8,
    _param: u64,
) -> usize {
    // SAFETY: the caller reserved FLOAT_ROOM bytes at `dst`.
    unsafe { T::from_bits(value).format_at(dst) }
}

/// [`format_float`]'s room, for the row spec.
#[cfg(feature = "jit")]
pub(crate) const FLOAT_MAX_LEN: u8 = {
    assert!(FLOAT_ROOM <= u8::MAX as usize);
    FLOAT_ROOM as u8
};

/// A float from its bits (the low bits of a zero-extended value).
#[cfg(feature = "jit")]
pub(crate) trait FromBits {
    fn from_bits(bits: u64) -> Self;
}

#[cfg(feature = "jit")]
impl FromBits for f64 {
    fn from_bits(bits: u64) -> f64 {
        f64::from_bits(bits)
    }
}

#[cfg(feature = "jit")]
impl FromBits for f32 {
    fn from_bits(bits: u64) -> f32 {
        f32::from_bits(bits as u32)
    }
}

#[cfg(feature = "jit")]
impl FromBits for half::f16 {
    fn from_bits(bits: u64) -> half::f16 {
        half::f16::from_bits(bits as u16)
    }
}

impl<T: Float> Encode for Floats<'_, T> {
    #[inline]
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        self.0[row].append(out);
    }
}

pub(crate) fn bind_float<'a, T: ArrowPrimitiveType>(
    _: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError>
where
    T::Native: Float,
{
    Ok(Box::new(Floats(
        array.as_primitive::<T>().values().as_ref(),
    )))
}

struct Bools(BooleanBuffer);

impl Encode for Bools {
    #[inline]
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        append(out, if self.0.value(row) { b"true" } else { b"false" });
    }
}

pub(crate) fn bind_bool<'a>(
    _: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    Ok(Box::new(Bools(array.as_boolean().values().clone())))
}

/// Every row of a Null array is null (its logical nulls), so this is never
/// asked for a value; written as `null` if it were.
struct Nulls;

impl Encode for Nulls {
    fn encode(&self, _: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(b"null");
    }
}

pub(crate) fn bind_null<'a>(
    _: &'a Plan,
    _: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    Ok(Box::new(Nulls))
}

struct Decimals<'a, T: DecimalType> {
    values: &'a [T::Native],
    precision: usize,
    scale: i8,
}

impl<T: DecimalType> Encode for Decimals<'_, T>
where
    T::Native: DecimalDigits,
{
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        out.reserve(DECIMAL_ROOM);
        let len = out.len();
        // SAFETY: the reserve above leaves DECIMAL_ROOM bytes of capacity
        // past `len`; the text's `written` bytes are initialised there.
        unsafe {
            let dst = out.as_mut_ptr().add(len);
            if let Some(written) = self.values[row].decimal_text_at(self.precision, self.scale, dst)
            {
                return out.set_len(len + written);
            }
        }
        // The unscaled integer's text, moved aside, then placed.
        let start = out.len();
        self.values[row].append_digits(out);
        let mut text = [0u8; 80];
        let len = out.len() - start;
        text[..len].copy_from_slice(&out[start..]);
        out.truncate(start);
        write_decimal(out, &text[..len], self.precision, self.scale);
    }
}

/// An unscaled decimal's digits.
pub(crate) trait DecimalDigits: Sized {
    /// Appends the integer's decimal text (with `-`; at most 78 bytes).
    fn append_digits(self, out: &mut Vec<u8>);

    /// Writes the decimal's text for `precision` and `scale` at `dst` when
    /// it fits [`DECIMAL_ROOM`] bytes (all but very negative scales): its
    /// length; `None` otherwise (what was written is not the text). Both
    /// backends write decimals with it.
    ///
    /// # Safety
    /// `dst` is valid for writes of [`DECIMAL_ROOM`] bytes.
    unsafe fn decimal_text_at(self, _precision: usize, _scale: i8, _dst: *mut u8) -> Option<usize> {
        None
    }
}

macro_rules! itoa_digits {
    ($($t:ty),*) => {$(
        impl DecimalDigits for $t {
            fn append_digits(self, out: &mut Vec<u8>) {
                write_int(out, self);
            }

            #[inline]
            unsafe fn decimal_text_at(
                self,
                precision: usize,
                scale: i8,
                dst: *mut u8,
            ) -> Option<usize> {
                let mut digits = itoa::Buffer::new();
                let mut text = DecimalText { dst, len: 0 };
                place_point(&mut text, digits.format(self).as_bytes(), precision, scale)?;
                Some(text.len)
            }
        }
    )*};
}
itoa_digits!(i32, i64, i128);

impl DecimalDigits for arrow_buffer::i256 {
    fn append_digits(self, out: &mut Vec<u8>) {
        use std::io::Write;
        write!(out, "{self}").expect("writing to a Vec cannot fail");
    }

    /// A value within i128's range (up to 38 digits: nearly every one a
    /// column holds) as an i128's; the rest declined.
    #[inline]
    unsafe fn decimal_text_at(self, precision: usize, scale: i8, dst: *mut u8) -> Option<usize> {
        // SAFETY: as the caller guarantees.
        unsafe { self.to_i128()?.decimal_text_at(precision, scale, dst) }
    }
}

/// A decimal's text written in place at `dst`, which has room for
/// [`DECIMAL_ROOM`] bytes (the contract of
/// [`DecimalDigits::decimal_text_at`], which makes one): a sign, up to 39
/// digits and the point, or `0.` and up to 38 zeros before them, fit; a
/// negative scale's zeros up to what is left. Built on the stack and copied
/// whole, a text's narrow stores were read back by wide loads, a stall the
/// store buffer cannot forward (as the timestamps' were).
pub(crate) struct DecimalText {
    dst: *mut u8,
    len: usize,
}

/// What a [`DecimalText`] may write, and what the compiled writer reserves
/// for one.
pub(crate) const DECIMAL_ROOM: usize = 64;

impl DecimalSink for DecimalText {
    #[inline]
    fn push(&mut self, bytes: &[u8]) -> Option<()> {
        let end = self.len + bytes.len();
        if end > DECIMAL_ROOM {
            return None;
        }
        // SAFETY: `dst` is valid for DECIMAL_ROOM bytes and the test above
        // keeps the copy inside them; `bytes` (digits on the stack, or a
        // constant) does not overlap the output.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.dst.add(self.len), bytes.len())
        };
        self.len = end;
        Some(())
    }

    #[inline]
    fn zeros(&mut self, n: usize) -> Option<()> {
        let end = self.len + n;
        if end > DECIMAL_ROOM {
            return None;
        }
        // SAFETY: as in `push`.
        unsafe { std::ptr::write_bytes(self.dst.add(self.len), b'0', n) };
        self.len = end;
        Some(())
    }
}

/// The compiled writer's [`jitson_jit::FormatFn`] for decimals whose
/// unscaled integer is a `T` (i32, i64: the value's bits; i128, i256: its
/// address), `param` the precision in its low byte and the scale in the
/// next (see [`decimal_param`]): the text `Decimals` writes, or 0 (declined,
/// the encoder writes it) when it is longer than [`DECIMAL_ROOM`] or, for
/// i256, outside i128's range.
///
/// # Safety
/// `dst` has room for [`DECIMAL_ROOM`] bytes; for i128 and i256, `value` is
/// the address of a live value.
#[cfg(feature = "jit")]
pub(crate) unsafe extern "C" fn format_decimal<T: DecimalBits>(
    value: u64,
    dst: *mut u8,
    param: u64,
) -> usize {
    // SAFETY: as the caller guarantees.
    let unscaled = unsafe { T::from_bits(value) };
    let (precision, scale) = (param as u8 as usize, (param >> 8) as u8 as i8);
    // SAFETY: the caller's room holds DECIMAL_ROOM bytes.
    unsafe { unscaled.decimal_text_at(precision, scale, dst) }.unwrap_or(0)
}

/// The parameter of [`format_decimal`] for `precision` and `scale`.
#[cfg(feature = "jit")]
pub(crate) fn decimal_param(precision: u8, scale: i8) -> u64 {
    u64::from(precision) | u64::from(scale as u8) << 8
}

/// An unscaled decimal as the compiled writer passes it to
/// [`format_decimal`].
#[cfg(feature = "jit")]
pub(crate) trait DecimalBits: DecimalDigits {
    /// # Safety
    /// For i128 and i256, `value` is the address of a live value.
    unsafe fn from_bits(value: u64) -> Self;
}

#[cfg(feature = "jit")]
impl DecimalBits for i32 {
    unsafe fn from_bits(value: u64) -> i32 {
        value as u32 as i32
    }
}

#[cfg(feature = "jit")]
impl DecimalBits for i64 {
    unsafe fn from_bits(value: u64) -> i64 {
        value as i64
    }
}

#[cfg(feature = "jit")]
impl DecimalBits for i128 {
    unsafe fn from_bits(value: u64) -> i128 {
        // SAFETY: as the caller guarantees.
        unsafe { (value as usize as *const i128).read_unaligned() }
    }
}

#[cfg(feature = "jit")]
impl DecimalBits for arrow_buffer::i256 {
    unsafe fn from_bits(value: u64) -> arrow_buffer::i256 {
        // SAFETY: as the caller guarantees.
        unsafe { (value as usize as *const arrow_buffer::i256).read_unaligned() }
    }
}

/// Places the point in an unscaled decimal's text as arrow's
/// `format_decimal` does: digits beyond the precision are cut (arrow's
/// "safe" formatting), a negative scale appends zeros, a scale of at least
/// the digit count gives `0.` and leading zeros.
fn write_decimal(out: &mut Vec<u8>, text: &[u8], precision: usize, scale: i8) {
    place_point(out, text, precision, scale).expect("a vector takes any length");
}

/// Where a decimal's text goes: a vector (any length) or a [`DecimalText`]
/// (`None` past its room).
trait DecimalSink {
    fn push(&mut self, bytes: &[u8]) -> Option<()>;
    fn zeros(&mut self, n: usize) -> Option<()>;
}

impl DecimalSink for Vec<u8> {
    fn push(&mut self, bytes: &[u8]) -> Option<()> {
        self.extend_from_slice(bytes);
        Some(())
    }

    fn zeros(&mut self, n: usize) -> Option<()> {
        self.resize(self.len() + n, b'0');
        Some(())
    }
}

/// Writes the unscaled integer's `text` (with its `-`) with the point
/// placed as arrow's `format_decimal` does (see [`write_decimal`]); `None`
/// when `out` has no room left.
#[inline]
fn place_point(out: &mut impl DecimalSink, text: &[u8], precision: usize, scale: i8) -> Option<()> {
    let sign = usize::from(text[0] == b'-');
    let rest = &text[sign..];
    let value = &text[..precision.min(rest.len()) + sign];
    if scale <= 0 {
        out.push(value)?;
        out.zeros(scale.unsigned_abs() as usize)
    } else if rest.len() > scale as usize {
        let split = value.len().saturating_sub(scale as usize);
        out.push(&value[..split])?;
        out.push(b".")?;
        out.push(&value[split..])
    } else {
        out.push(&text[..sign])?;
        out.push(b"0.")?;
        out.zeros(scale as usize - rest.len())?;
        out.push(rest)
    }
}

pub(crate) fn bind_decimal<'a, T: DecimalType>(
    _: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError>
where
    T::Native: DecimalDigits,
{
    let (precision, scale) = match array.data_type() {
        DataType::Decimal32(p, s)
        | DataType::Decimal64(p, s)
        | DataType::Decimal128(p, s)
        | DataType::Decimal256(p, s) => (*p as usize, *s),
        other => unreachable!("a decimal plan bound to {other}"),
    };
    Ok(Box::new(Decimals::<T> {
        values: array.as_primitive::<T>().values().as_ref(),
        precision,
        scale,
    }))
}
