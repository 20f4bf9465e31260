//! Booleans, integers and floats. Twin: `jit/src/kind/scalar.rs`.

use jitson_core::error::{Error, ErrorCode};
use jitson_core::layout::TypeLayout;
use jitson_core::text;
use jitson_core::text::Int128;

use crate::Parser;

/// The integer types of [`Kind`](jitson_core::layout::Kind), converted exactly from
/// the i128 value of a JSON integer.
pub(crate) trait Int: Copy + TryFrom<i128> {}
impl Int for i8 {}
impl Int for i16 {}
impl Int for i32 {}
impl Int for i64 {}
impl Int for u8 {}
impl Int for u16 {}
impl Int for u32 {}
impl Int for u64 {}

impl Parser<'_> {
    /// `true` or `false`.
    ///
    /// # Safety
    /// `dst` is valid for a `bool` write.
    pub(crate) unsafe fn decode_bool(
        &mut self,
        layout: &'static TypeLayout,
        dst: *mut u8,
    ) -> Result<(), crate::Error> {
        let value = match self.peek_value()? {
            b't' => true,
            b'f' => false,
            _ => return Err(self.invalid_type(layout.expecting)),
        };
        let rest: &[u8] = if value { b"rue" } else { b"alse" };
        self.pos =
            text::parse_ident(self.input, self.pos + 1, rest).map_err(|e| self.lex_error(e))?;
        // SAFETY: as the caller guarantees.
        unsafe { dst.cast::<bool>().write(value) };
        Ok(())
    }

    /// A JSON integer in range of `T`. A fraction, an exponent, `-0` or a
    /// magnitude beyond 64 bits make it a float (an invalid type), as in serde_json.
    ///
    /// # Safety
    /// `dst` is valid for a `T` write.
    pub(crate) unsafe fn decode_int<T: Int>(
        &mut self,
        layout: &'static TypeLayout,
        dst: *mut u8,
    ) -> Result<(), crate::Error> {
        let b = self.peek_value()?;
        if b != b'-' && !b.is_ascii_digit() {
            return Err(self.invalid_type(layout.expecting));
        }
        let n = text::scan_number_inline(self.input, self.pos).map_err(|e| self.lex_error(e))?;
        if !n.is_json_integer() {
            return Err(self.invalid_type(layout.expecting));
        }
        let Ok(value) = T::try_from(n.integer()) else {
            return Err(self.error(
                ErrorCode::IntOutOfRange {
                    expected: layout.expecting,
                    value: n.integer(),
                },
                n.start,
            ));
        };
        self.pos = n.end;
        // SAFETY: as the caller guarantees.
        unsafe { dst.cast::<T>().write(value) };
        Ok(())
    }

    /// Any JSON number, correctly rounded to `F` in one step (f32 directly, never
    /// through f64).
    ///
    /// # Safety
    /// `dst` is valid for an `F` write.
    pub(crate) unsafe fn decode_float<F: Float>(
        &mut self,
        layout: &'static TypeLayout,
        dst: *mut u8,
    ) -> Result<(), crate::Error> {
        let b = self.peek_value()?;
        if b != b'-' && !b.is_ascii_digit() {
            return Err(self.invalid_type(layout.expecting));
        }
        let n = text::scan_number_inline(self.input, self.pos).map_err(|e| self.lex_error(e))?;
        let value = F::from_number(&n, self.input).map_err(|e| self.lex_error(e))?;
        self.pos = n.end;
        // SAFETY: as the caller guarantees.
        unsafe { dst.cast::<F>().write(value) };
        Ok(())
    }
}

impl Parser<'_> {
    /// A 128-bit integer as serde_json reads one: an optional `-` (only for
    /// signed types; for unsigned it is out of range), then the integer digits,
    /// and nothing more (a fraction or exponent is left for the caller's next
    /// token, so it fails there). Anything else, the end of input included, is an
    /// invalid number; too large is out of range, both syntax errors in serde_json.
    ///
    /// # Safety
    /// `dst` is valid for a `T` write.
    pub(crate) unsafe fn decode_int128<T: Int128>(
        &mut self,
        dst: *mut u8,
    ) -> Result<(), crate::Error> {
        let first = self.peek_value()?;
        let start = self.pos;
        let mut p = start;
        if first == b'-' {
            if !T::SIGNED {
                return Err(self.error(ErrorCode::NumberOutOfRange, start));
            }
            p += 1;
        }
        match self.input.get(p) {
            Some(b'0') => {
                p += 1;
                if self.input.get(p).is_some_and(u8::is_ascii_digit) {
                    return Err(self.error(ErrorCode::InvalidNumber, p));
                }
            }
            Some(b'1'..=b'9') => p = jitson_core::text::digits_end(self.input, p),
            _ => return Err(self.error(ErrorCode::InvalidNumber, p)),
        }
        let negative = first == b'-';
        let digits = &self.input[start + usize::from(negative)..p];
        let Some(value) = T::from_digits(negative, digits) else {
            return Err(self.error(ErrorCode::NumberOutOfRange, start));
        };
        self.pos = p;
        // SAFETY: as the caller guarantees.
        unsafe { dst.cast::<T>().write(value) };
        Ok(())
    }
}

/// The float types of [`Kind`](jitson_core::layout::Kind), converted from a scanned
/// number by the lexical layer.
pub(crate) trait Float: Copy {
    fn from_number(n: &text::Number, input: &[u8]) -> Result<Self, text::LexError>;
}

impl Float for f64 {
    #[inline(always)]
    fn from_number(n: &text::Number, input: &[u8]) -> Result<Self, text::LexError> {
        n.to_f64(input)
    }
}

impl Float for f32 {
    #[inline(always)]
    fn from_number(n: &text::Number, input: &[u8]) -> Result<Self, text::LexError> {
        n.to_f32(input)
    }
}

// ---------------------------------------------------------------------------
// Encoding

impl crate::encode::Emitter<'_> {
    /// `true` or `false`.
    ///
    /// # Safety
    /// `src` points to a `bool`.
    pub(crate) unsafe fn encode_bool(&mut self, src: *const u8) -> Result<(), Error> {
        // SAFETY: as the caller guarantees.
        jitson_core::write::write_bool(self.out, unsafe { *src.cast::<bool>() });
        Ok(())
    }

    /// An integer of any width, as serde_json writes it.
    ///
    /// # Safety
    /// `src` points to a `T`.
    pub(crate) unsafe fn encode_int<T: jitson_core::write::Integer>(
        &mut self,
        src: *const u8,
    ) -> Result<(), Error> {
        // SAFETY: as the caller guarantees (unaligned reads: i128 in packed views).
        jitson_core::write::write_int(self.out, unsafe { src.cast::<T>().read_unaligned() });
        Ok(())
    }

    /// An `f32`, formatted as an `f32`; `null` when not finite.
    ///
    /// # Safety
    /// `src` points to an `f32`.
    pub(crate) unsafe fn encode_f32(&mut self, src: *const u8) -> Result<(), Error> {
        // SAFETY: as the caller guarantees.
        jitson_core::write::write_f32(self.out, unsafe { *src.cast::<f32>() });
        Ok(())
    }

    /// An `f64`; `null` when not finite.
    ///
    /// # Safety
    /// `src` points to an `f64`.
    pub(crate) unsafe fn encode_f64(&mut self, src: *const u8) -> Result<(), Error> {
        // SAFETY: as the caller guarantees.
        jitson_core::write::write_f64(self.out, unsafe { *src.cast::<f64>() });
        Ok(())
    }
}
