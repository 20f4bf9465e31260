//! rust_decimal's `Decimal` (feature `rust_decimal`, rust_decimal 1.x), as
//! its serde impl has serde_json read and write it.
//!
//! # Which of rust_decimal's serde forms
//!
//! rust_decimal's impl depends on its cargo features, which jitson cannot
//! see at compile time. jitson reads and writes natively what it does with
//! `serde` (a default feature) and none of `serde-str`, `serde-float` or
//! `serde-arbitrary-precision`, the form most crates get:
//!
//! | JSON | read as rust_decimal reads it |
//! |---|---|
//! | string | `Decimal::from_str`, else `Decimal::from_scientific`; refused as `invalid value: string "…"` |
//! | integer | in `u64` or `i64`: that integer, scale 0 |
//! | other number | as serde_json reads it, an `f64`, then `Decimal::from_str` of the `f64`'s `Display` text (so `0.10` is `0.1`, `1e2` is `100`); refused as `invalid value: floating point` |
//!
//! and written as a string of its digits (`to_str_internal` with the sign:
//! `"-0.00"` keeps the sign and scale of a negative zero).
//!
//! With `serde-str` rust_decimal reads strings only, with `serde-float` it
//! writes numbers, with `serde-arbitrary-precision` it reads numbers from
//! their exact text (serde_json's `arbitrary_precision`). A probe through
//! rust_decimal's serde impl at first use (`has_native_form`: how it writes
//! 1.5 and reads `0.10`) tells the default form from these; with any of them
//! `Decimal` goes through rust_decimal's impl ([`ProbedForm`](super::ProbedForm)),
//! so jitson agrees with it in every build. `tests/foreign/rust_decimal.rs`
//! (`rust_decimal_has_its_default_serde_form_in_this_build`) checks the test
//! build has the default form, which the native tests need.
//!
//! The `with` modules (rust_decimal's `serde-with-str` and
//! `serde-with-float` features; jitson's layouts do not need them):
//! `rust_decimal::serde::str` reads strings only and writes as above,
//! `rust_decimal::serde::float` and `float_option` read as above and write
//! the `f64` (`Decimal`'s `to_f64`) as serde_json writes one. `str_option`
//! (which reads `""` as `None`) and `arbitrary_precision` keep serde's route.
//!
//! Fast paths: a string `-?D+(.D+)?` of at most 28 digits is the decimal of
//! those digits and that scale, built with `Decimal::from_i128_with_scale`
//! (rust_decimal's parser gives exactly that); a number without exponent
//! whose fraction has at most 15 significant digits is the `f64`'s shortest
//! text (15 digits survive a round trip through `f64`), so the digits
//! without the fraction's trailing zeros. Everything else (a negative zero,
//! signs, exponents, more digits, which rust_decimal rounds) goes to
//! rust_decimal itself. Writing formats the 96-bit mantissa's digits in
//! place.

use core::str::FromStr;

use rust_decimal::Decimal;

use super::{Form, FormLayouts, FromText, Room, ToText};

/// What rust_decimal's visitor says it expects.
const EXPECTING: &str = "a Decimal type representing a fixed-point number";

/// The most digits read by the fast path: any 28 digits fit the mantissa.
const FAST_DIGITS: usize = 28;

/// `-?D+(.D+)?`: the sign, the digits' value, their count, and the number
/// of fraction digits; `None` for any other text or more than
/// [`FAST_DIGITS`] digits.
fn plain_digits(b: &[u8]) -> Option<(bool, u128, usize, usize)> {
    let (negative, b) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    let (mut value, mut digits, mut fraction) = (0u128, 0usize, None);
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'0'..=b'9' => {
                digits += 1;
                if digits > FAST_DIGITS {
                    return None;
                }
                value = value * 10 + u128::from(c - b'0');
            }
            b'.' if fraction.is_none() && i > 0 && i + 1 < b.len() => fraction = Some(i + 1),
            _ => return None,
        }
    }
    if digits == 0 {
        return None;
    }
    let scale = fraction.map_or(0, |start| b.len() - start);
    Some((negative, value, digits, scale))
}

/// The decimal `value × 10^-scale` with a sign; `None` for a negative zero
/// (left to rust_decimal).
fn build(negative: bool, value: u128, scale: usize) -> Option<Decimal> {
    if negative && value == 0 {
        return None;
    }
    let m = value as i128;
    Decimal::try_from_i128_with_scale(if negative { -m } else { m }, scale as u32).ok()
}

/// A string as rust_decimal's visitor reads it.
fn from_string(text: &str) -> Result<Decimal, String> {
    if let Some(d) = plain_digits(text.as_bytes())
        .and_then(|(negative, value, _, scale)| build(negative, value, scale))
    {
        return Ok(d);
    }
    Decimal::from_str(text)
        .or_else(|_| Decimal::from_scientific(text))
        .map_err(|_| format!("invalid value: string {text:?}, expected {EXPECTING}"))
}

/// A JSON number's text as serde_json hands it to rust_decimal's visitor
/// and the visitor reads it.
fn from_number(text: &str) -> Result<Decimal, String> {
    let b = text.as_bytes();
    let is_integer = b.iter().all(|&c| c == b'-' || c.is_ascii_digit());
    if is_integer && text != "-0" {
        // serde_json's `visit_u64` / `visit_i64`, when in range.
        if let Ok(n) = text.parse::<u64>() {
            return Ok(Decimal::from(n));
        }
        if let Ok(n) = text.parse::<i64>() {
            return Ok(Decimal::from(n));
        }
    }
    if !is_integer && let Some((negative, mut value, _, mut scale)) = plain_digits(b) {
        // The f64's shortest text: the digits without the fraction's
        // trailing zeros, when no more than 15 are significant.
        while scale > 0 && value % 10 == 0 && value != 0 {
            value /= 10;
            scale -= 1;
        }
        if value != 0
            && value < 1_000_000_000_000_000
            && let Some(d) = build(negative, value, scale)
        {
            return Ok(d);
        }
    }
    // serde_json's `visit_f64` (a float, an integer beyond 64 bits, `-0`):
    // the f64's `Display` text, read by `from_str`.
    let float: f64 = text.parse().map_err(|_| format!("invalid number {text}"))?;
    let shown = float.to_string();
    Decimal::from_str(&shown).map_err(|_| {
        // serde_json names the float as it writes one.
        let mut named = Vec::new();
        crate::write::write_f64(&mut named, float);
        let named = String::from_utf8_lossy(&named);
        format!("invalid value: floating point `{named}`, expected {EXPECTING}")
    })
}

/// The decimal as rust_decimal's serializer writes it (its digits with the
/// point at the scale, `0.` before a fraction with no integer digits, the
/// sign of a negative value or zero), into `out`; returns the length.
fn decimal_text(d: &Decimal, out: &mut [u8; 32]) -> usize {
    let mut digits = [0u8; 29];
    let (mut m, mut n) = (d.mantissa().unsigned_abs(), 0);
    while m != 0 {
        digits[n] = b'0' + (m % 10) as u8;
        m /= 10;
        n += 1;
    }
    let scale = d.scale() as usize;
    let mut len = 0;
    if d.is_sign_negative() {
        out[0] = b'-';
        len = 1;
    }
    // The integer digits, or `0`.
    if n > scale {
        for i in (scale..n).rev() {
            out[len] = digits[i];
            len += 1;
        }
    } else {
        out[len] = b'0';
        len += 1;
    }
    if scale > 0 {
        out[len] = b'.';
        len += 1;
        for i in (0..scale).rev() {
            out[len] = if i < n { digits[i] } else { b'0' };
            len += 1;
        }
    }
    len
}

impl FromText for Decimal {
    type Error = String;
    fn from_text(text: &str) -> Result<Self, String> {
        from_string(text)
    }
}

impl ToText for Decimal {
    // `"-0.dddddddddddddddddddddddddddd"`
    const MAX_LEN: usize = 34;
    fn fast(&self, room: &mut Room<'_>) -> bool {
        let mut text = [0u8; 32];
        let len = decimal_text(self, &mut text);
        room.push(b'"');
        room.extend(&text[..len]);
        room.push(b'"');
        true
    }
    fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
        let mut text = [0u8; 32];
        let len = decimal_text(self, &mut text);
        out.push(b'"');
        out.extend_from_slice(&text[..len]);
        out.push(b'"');
        Ok(())
    }
}

/// A `Decimal` read from a JSON number's text.
#[repr(transparent)]
struct NumberText(Decimal);

impl FromText for NumberText {
    type Error = String;
    fn from_text(text: &str) -> Result<Self, String> {
        from_number(text).map(NumberText)
    }
}

/// `HasLayout` and `Encode` for `Decimal` or a transparent form of it: read
/// from strings (and numbers, with `numbers`), written by `format`.
macro_rules! decimal_layout {
    ($ty:ty, numbers: $numbers:expr, format: $format:expr) => {
        // SAFETY: the parse functions write a whole `Decimal` (the type is
        // one, or a transparent wrapper of one); the formatter reads it
        // through its own API.
        unsafe impl crate::decode::HasLayout for $ty {
            type Static = Self;
            const LAYOUT: &'static crate::layout::TypeLayout = &crate::layout::TypeLayout::of::<$ty>(
                EXPECTING,
                crate::layout::Kind::Parsed(&crate::column::ParsedLayout {
                    from_string: Some(super::parse_fn::<Decimal>),
                    from_number: $numbers,
                    from_bool: None,
                    arg: 0,
                    number_messages: true,
                    format: Some($format),
                }),
            );
        }
        // SAFETY: as for `HasLayout`: one layout serves both directions.
        unsafe impl crate::encode::Encode for $ty {
            type Static = Self;
            const ENCODE: &'static crate::layout::TypeLayout =
                <$ty as crate::decode::HasLayout>::LAYOUT;
        }
    };
}

/// `Decimal` written as rust_decimal's serializer writes it.
const AS_STRING: &crate::column::FormatLayout = &crate::column::FormatLayout {
    max_len: <Decimal as ToText>::MAX_LEN,
    fast: super::fast_fn::<Decimal>,
    write: super::write_fn::<Decimal>,
};

/// The identity of `Decimal`'s native layout (beside the newtype that picks
/// it, [`ProbedForm`](super::ProbedForm)).
struct Native;

impl super::ProbedForm for Decimal {
    const EXPECTING: &'static str = EXPECTING;
    fn native() -> &'static crate::layout::TypeLayout {
        const LAYOUT: crate::layout::TypeLayout =
            crate::layout::TypeLayout::with_identity::<Decimal, Native>(
                EXPECTING,
                crate::layout::Kind::Parsed(&crate::column::ParsedLayout {
                    from_string: Some(super::parse_fn::<Decimal>),
                    from_number: Some(super::parse_fn::<NumberText>),
                    from_bool: None,
                    arg: 0,
                    number_messages: true,
                    format: Some(AS_STRING),
                }),
            );
        &LAYOUT
    }
    /// The default form (module docs): a string out, numbers read as
    /// serde_json's `f64` (so `0.10` is `0.1`), numbers taken at all.
    fn has_native_form() -> bool {
        static DEFAULT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *DEFAULT.get_or_init(|| {
            let writes_string =
                serde_json::to_string(&Decimal::new(15, 1)).is_ok_and(|t| t == "\"1.5\"");
            let reads_f64 = serde_json::from_str::<Decimal>("0.10").is_ok_and(|d| d.scale() == 1);
            writes_string && reads_f64
        })
    }
}

super::probed_types! { Decimal; }

// ---------------------------------------------------------------------------
// The `with` modules.

/// `rust_decimal::serde::str`'s form: strings only, written as a string.
#[repr(transparent)]
struct StrForm(Decimal);

decimal_layout!(StrForm, numbers: None, format: AS_STRING);
impl Form for StrForm {
    type Field = Decimal;
}

/// `rust_decimal::serde::float`'s form: read as `Decimal` is, written as
/// its `f64`.
#[repr(transparent)]
struct FloatForm(Decimal);

impl ToText for FloatForm {
    const MAX_LEN: usize = crate::write::FLOAT_MAX_LEN;
    fn fast(&self, _: &mut Room<'_>) -> bool {
        false
    }
    fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
        let float = f64::try_from(self.0).map_err(|e| e.to_string())?;
        crate::write::write_f64(out, float);
        Ok(())
    }
}

decimal_layout!(
    FloatForm,
    numbers: Some(super::parse_fn::<NumberText>),
    format: &crate::column::FormatLayout {
        max_len: <FloatForm as ToText>::MAX_LEN,
        fast: super::fast_fn::<FloatForm>,
        write: super::write_fn::<FloatForm>,
    }
);
impl Form for FloatForm {
    type Field = Decimal;
}

crate::route::native_with! {
    "rust_decimal::serde::str" => Decimal:
        FormLayouts::<StrForm>::DECODE, FormLayouts::<StrForm>::ENCODE;
    // These read through `Decimal`'s own visitor, whose form follows
    // rust_decimal's features (`serde-str` refuses numbers,
    // `serde-arbitrary-precision` reads their exact text): native only
    // where `Decimal` is.
    "rust_decimal::serde::float" => Decimal:
        FormLayouts::<FloatForm>::DECODE, FormLayouts::<FloatForm>::ENCODE,
        if <Decimal as super::ProbedForm>::has_native_form();
    "rust_decimal::serde::float_option" => Option<Decimal>:
        FormLayouts::<FloatForm>::OPTION_DECODE, FormLayouts::<FloatForm>::OPTION_ENCODE,
        if <Decimal as super::ProbedForm>::has_native_form();
}
