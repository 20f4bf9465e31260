//! The lexical layer of JSON (RFC 8259), shared by the backends: whitespace,
//! literals, numbers, strings and the iterative skipping of whole values.
//!
//! Every routine takes the whole input and a byte position and returns the position
//! after what it consumed, or an [`ErrorCode`] with the offset of the offending byte
//! (the input length when the input ended early). Routines never read out of bounds.
//!
//! Names follow serde_json's `de.rs`: `parse_*` yields a value, `ignore_*` validates
//! and discards, `scan_*` finds the extent of a token.

use crate::error::ErrorCode;

/// A lexical error: the code and the byte offset it applies to.
pub type LexError = (ErrorCode, usize);

/// Whether `b` is JSON whitespace (space, tab, line feed, carriage return).
#[inline(always)]
pub fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Returns the position of the first non-whitespace byte at or after `pos` (or the
/// input length).
///
/// The first byte is tested inline; a run is skipped out of line by
/// [`skip_ws_run`].
#[inline(always)]
pub fn skip_ws(input: &[u8], pos: usize) -> usize {
    match input.get(pos) {
        Some(&b) if b > b' ' => pos,
        None => pos,
        Some(_) => skip_ws_out_of_line(input, pos),
    }
}

/// [`skip_ws_run`], kept out of the interpreter's many inlined [`skip_ws`].
#[inline(never)]
fn skip_ws_out_of_line(input: &[u8], pos: usize) -> usize {
    skip_ws_run(input, pos)
}

/// [`skip_ws`] for runs of whitespace (indentation, as in pretty-printed
/// documents): sixteen bytes at a time with SSE2 on x86-64 (part of its
/// baseline, so no feature test), eight at a time elsewhere, each byte
/// classified without branches. Generated code tests the first byte itself and
/// calls this only when it is at most `b' '`, so the byte at `pos` need not be
/// whitespace.
#[inline]
pub fn skip_ws_run(input: &[u8], mut pos: usize) -> usize {
    // One space before a value (`"key": value`) is the commonest run.
    if input.get(pos) == Some(&b' ') && input.get(pos + 1).is_some_and(|&b| b > b' ') {
        return pos + 1;
    }
    #[cfg(target_arch = "x86_64")]
    while let Some(chunk) = input.get(pos..pos + 16) {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        // SAFETY: SSE2 is always present on x86-64; the load reads the 16
        // bytes of `chunk`, unaligned.
        let ws = unsafe {
            let w = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let is = |b: u8| _mm_cmpeq_epi8(w, _mm_set1_epi8(b as i8));
            let any = _mm_or_si128(
                _mm_or_si128(is(b' '), is(b'\n')),
                _mm_or_si128(is(b'\t'), is(b'\r')),
            );
            _mm_movemask_epi8(any) as u32
        };
        if ws != 0xffff {
            return pos + (!ws).trailing_zeros() as usize;
        }
        pos += 16;
    }
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // High bit of each byte of `x` that is zero (exact: no borrow between
    // bytes, "Bit Twiddling Hacks").
    let zero = |x: u64| !(((x & LOW) + LOW) | x | LOW);
    let splat = |b: u8| u64::from_ne_bytes([b; 8]);
    while let Some(chunk) = input.get(pos..pos + 8) {
        let w = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let ws = zero(w ^ splat(b' '))
            | zero(w ^ splat(b'\t'))
            | zero(w ^ splat(b'\n'))
            | zero(w ^ splat(b'\r'));
        let other = !ws & !LOW;
        if other != 0 {
            return pos + (other.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while input.get(pos).copied().is_some_and(is_ws) {
        pos += 1;
    }
    pos
}

/// Matches the rest of a literal (`rest` is `b"rue"` after a `t`) at `pos`.
#[inline]
pub fn parse_ident(input: &[u8], mut pos: usize, rest: &[u8]) -> Result<usize, LexError> {
    for &expected in rest {
        match input.get(pos) {
            None => return Err((ErrorCode::EofWhileParsingValue, input.len())),
            Some(&b) if b == expected => pos += 1,
            Some(_) => return Err((ErrorCode::ExpectedSomeIdent, pos)),
        }
    }
    Ok(pos)
}

// ---------------------------------------------------------------------------
// Numbers

/// A scanned JSON number: its extent and, when it fits, its decimal significand and
/// exponent (`value = ±mantissa × 10^exponent`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Number {
    /// Offset of the first byte (`-` or a digit).
    pub start: usize,
    /// Offset after the last byte.
    pub end: usize,
    /// A leading `-`.
    pub negative: bool,
    /// The digits, integer and fraction, as an integer (valid unless `overflow`).
    pub mantissa: u64,
    /// The power of ten to apply to `mantissa` (fraction digits and the exponent).
    pub exponent: i64,
    /// No fraction and no exponent part.
    pub is_integer: bool,
    /// The digits did not fit in a u64; `mantissa` is meaningless.
    pub overflow: bool,
}

/// The largest exponent magnitude tracked exactly; larger ones saturate (any number
/// with such an exponent is 0 or infinite whatever its digits, given the digit
/// counts a document can hold).
const EXPONENT_SATURATION: i64 = 1 << 40;

/// `i128` and `u128` from the digits of a JSON integer: both backends read
/// them with [`Int128::from_digits`].
pub trait Int128: Copy {
    /// Whether a `-` may come first.
    const SIGNED: bool;
    /// The value of ASCII decimal `digits` (at least one, no sign, no leading
    /// zero but in `0` itself: a JSON integer's), negated when `negative`;
    /// `None` when it does not fit.
    fn from_digits(negative: bool, digits: &[u8]) -> Option<Self>;
}

impl Int128 for u128 {
    const SIGNED: bool = false;
    fn from_digits(negative: bool, digits: &[u8]) -> Option<u128> {
        if negative {
            return None;
        }
        u128_from_digits(digits)
    }
}

impl Int128 for i128 {
    const SIGNED: bool = true;
    fn from_digits(negative: bool, digits: &[u8]) -> Option<i128> {
        let magnitude = u128_from_digits(digits)?;
        if negative {
            // 2^127 is `i128::MIN`, whose negation wraps to itself.
            (magnitude <= 1 << 127).then(|| (magnitude as i128).wrapping_neg())
        } else {
            i128::try_from(magnitude).ok()
        }
    }
}

/// The value of ASCII decimal `digits`, or `None` past `u128::MAX`: 19 digits
/// at a time in a `u64` (10^19 < 2^64), joined in `u128` with at most two
/// multiplications by 10^19, checked only at 39 digits (`u128::MAX` has 39;
/// 38 always fit), where `str::parse` does a checked `u128` multiply per digit.
fn u128_from_digits(digits: &[u8]) -> Option<u128> {
    const TEN_19: u128 = 10_000_000_000_000_000_000;
    // At most 19 digits: whole words of eight (SWAR), then the rest one by one.
    let chunk = |part: &[u8]| {
        let mut words = part.chunks_exact(8);
        let mut acc = 0u64;
        for word in &mut words {
            let w = u64::from_le_bytes(word.try_into().expect("eight bytes"));
            acc = acc * 100_000_000 + combine_eight_digits(w.wrapping_sub(0x3030_3030_3030_3030));
        }
        words
            .remainder()
            .iter()
            .fold(acc, |acc, &d| acc * 10 + u64::from(d.wrapping_sub(b'0')))
    };
    if digits.len() > 39 {
        return None;
    }
    let (head, rest) = digits.split_at(digits.len() % 19);
    let mut value = u128::from(chunk(head));
    for part in rest.chunks_exact(19) {
        let part = u128::from(chunk(part));
        value = if digits.len() == 39 {
            value.checked_mul(TEN_19)?.checked_add(part)?
        } else {
            value * TEN_19 + part
        };
    }
    Some(value)
}

/// The position of the first byte at or after `pos` that is not an ASCII
/// digit (or the input's length): eight bytes at a time while eight remain.
#[inline(always)]
pub fn digits_end(input: &[u8], mut pos: usize) -> usize {
    while let Some(bytes) = input.get(pos..pos + 8) {
        let w = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
        // `x` is below 10 in a digit's byte. Adding 0x76 sets the high bit of
        // a byte whose `x` is 10 to 0x7f, and `x` has it set above that; a
        // carry out of a byte spoils only the bytes after a non-digit.
        let x = w ^ (ONES * u64::from(b'0'));
        let other = (x.wrapping_add(ONES * 0x76) | x) & HIGHS;
        if other != 0 {
            return pos + (other.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while input.get(pos).is_some_and(u8::is_ascii_digit) {
        pos += 1;
    }
    pos
}

/// Scans the number starting at `pos` (which holds `-` or a digit).
pub fn scan_number(input: &[u8], pos: usize) -> Result<Number, LexError> {
    scan_number_inline(input, pos)
}

/// [`scan_number`], inlined into its caller: for the interpreter's number
/// reads, where the [`Number`] then stays in registers instead of being
/// returned through memory (canada's floats: the interpreter's profile was
/// mostly the wait for that store and load).
#[inline(always)]
pub fn scan_number_inline(input: &[u8], pos: usize) -> Result<Number, LexError> {
    let start = pos;
    let mut pos = pos;
    let negative = input.get(pos) == Some(&b'-');
    if negative {
        pos += 1;
    }
    let mut mantissa: u64 = 0;
    let mut overflow = false;
    let mut exponent: i64 = 0;

    let push_digit = |mantissa: &mut u64, d: u8| -> bool {
        match mantissa
            .checked_mul(10)
            .and_then(|m| m.checked_add(u64::from(d - b'0')))
        {
            Some(m) => {
                *mantissa = m;
                true
            }
            None => false,
        }
    };

    // Integer part: `0` or `[1-9][0-9]*`.
    match after_zero(input, pos)? {
        Some(after) => pos = after,
        None => {
            add_digit_runs(input, &mut pos, &mut mantissa);
            while let Some(&d @ b'0'..=b'9') = input.get(pos) {
                if !overflow && !push_digit(&mut mantissa, d) {
                    overflow = true;
                }
                if overflow {
                    exponent += 1;
                }
                pos += 1;
            }
        }
    }
    let mut is_integer = true;

    // Fraction: `.[0-9]+`.
    if input.get(pos) == Some(&b'.') {
        is_integer = false;
        pos += 1;
        match input.get(pos) {
            None => return Err((ErrorCode::EofWhileParsingNumber, input.len())),
            Some(b'0'..=b'9') => {}
            Some(_) => return Err((ErrorCode::InvalidNumber, pos)),
        }
        if !overflow {
            exponent -= add_digit_runs(input, &mut pos, &mut mantissa) as i64;
        }
        while let Some(&d @ b'0'..=b'9') = input.get(pos) {
            if !overflow {
                if push_digit(&mut mantissa, d) {
                    exponent -= 1;
                } else {
                    overflow = true;
                }
            }
            pos += 1;
        }
    }

    // Exponent: `[eE][+-]?[0-9]+`.
    if let Some(b'e' | b'E') = input.get(pos) {
        is_integer = false;
        pos += 1;
        let mut exp_negative = false;
        if let Some(&sign @ (b'+' | b'-')) = input.get(pos) {
            exp_negative = sign == b'-';
            pos += 1;
        }
        match input.get(pos) {
            None => return Err((ErrorCode::EofWhileParsingNumber, input.len())),
            Some(b'0'..=b'9') => {}
            Some(_) => return Err((ErrorCode::InvalidNumber, pos)),
        }
        let mut exp: i64 = 0;
        while let Some(&d @ b'0'..=b'9') = input.get(pos) {
            exp = (exp * 10 + i64::from(d - b'0')).min(EXPONENT_SATURATION);
            pos += 1;
        }
        exponent += if exp_negative { -exp } else { exp };
    }

    Ok(Number {
        start,
        end: pos,
        negative,
        mantissa,
        exponent,
        is_integer,
        overflow,
    })
}

/// The largest significand eight more digits can extend without overflowing
/// a `u64` (`99_999_999_999 * 10^8 + 99_999_999 < 2^64`).
const SWAR_MANTISSA_LIMIT: u64 = 99_999_999_999;

/// `10^k` for `k` in `0..=8`: the scale of a run of `k` digits added at once
/// (here and in the JIT's digit loop, which loads it by address).
pub static POW10_U64: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// Adds the digits at `*pos` to `mantissa`, eight at a time ([`leading_digits`])
/// while that cannot overflow, and moves `*pos` past them; returns how many it
/// added. The byte-by-byte loop after it takes what is left (the last digits
/// near the end of the input, or those that may overflow).
#[inline(always)]
fn add_digit_runs(input: &[u8], pos: &mut usize, mantissa: &mut u64) -> usize {
    let start = *pos;
    while *mantissa <= SWAR_MANTISSA_LIMIT
        && let Some((k, digits)) = digit_word(input, *pos)
    {
        if k == 8 {
            // A full word: the next one's offset and this one's scale are
            // constants, so its load does not wait for this word's count.
            *mantissa = *mantissa * 100_000_000 + combine_eight_digits(digits);
            *pos += 8;
            continue;
        }
        // The digits moved to the top bytes (the bytes below read as leading zeros).
        let value = combine_eight_digits(digits << (8 * (8 - k)));
        *mantissa = *mantissa * POW10_U64[k] + value;
        *pos += k;
        break;
    }
    *pos - start
}

/// The run of ASCII digits at the start of `input[pos..pos + 8]`, read as one
/// little-endian word (SWAR: the scheme of simdjson's
/// `parse_eight_digits_unrolled`, Lemire 2018): its length `k` (`1..=8`) and
/// the word less `b'0'` in every byte (the first `k` bytes are the digits'
/// values); `None` where fewer than eight bytes remain or the first is not a
/// digit. The JIT's twin is `emit_digits` in `jit/src/kind/scalar.rs`.
#[inline(always)]
fn digit_word(input: &[u8], pos: usize) -> Option<(usize, u64)> {
    let bytes: [u8; 8] = input.get(pos..pos + 8)?.try_into().ok()?;
    let w = u64::from_le_bytes(bytes);
    // A byte is a digit iff its high nibble is 3, also after adding 6. A carry
    // out of a byte at or above 0xFA spoils only the bytes after a non-digit.
    let high = w & 0xF0F0_F0F0_F0F0_F0F0;
    let high6 = w.wrapping_add(0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0;
    let bad = (high ^ 0x3030_3030_3030_3030) | (high6 ^ 0x3030_3030_3030_3030);
    let k = (bad.trailing_zeros() / 8) as usize;
    if k == 0 {
        return None;
    }
    Some((k, w.wrapping_sub(0x3030_3030_3030_3030)))
}

/// The value of eight digits (each byte `0..=9`, the first byte the lowest
/// and the most significant) in `v`: pairs, quads and the two halves combined.
#[inline(always)]
fn combine_eight_digits(v: u64) -> u64 {
    let pairs = v.wrapping_mul(10).wrapping_add(v >> 8);
    let quads = (pairs & 0x0000_00FF_0000_00FF)
        .wrapping_mul(100 + (1_000_000 << 32))
        .wrapping_add(((pairs >> 16) & 0x0000_00FF_0000_00FF).wrapping_mul(1 + (10_000 << 32)));
    quads >> 32
}

/// The start of a number's integer part at `pos` (after any `-`): the
/// position after it when it is a lone `0`, `None` when it is a digit `1`
/// to `9` (a run follows), or the error (end of input, a digit after a
/// leading `0`, any other byte).
#[inline(always)]
fn after_zero(input: &[u8], pos: usize) -> Result<Option<usize>, LexError> {
    match input.get(pos) {
        None => Err((ErrorCode::EofWhileParsingNumber, input.len())),
        Some(b'0') => match input.get(pos + 1) {
            Some(b'0'..=b'9') => Err((ErrorCode::InvalidNumber, pos + 1)),
            _ => Ok(Some(pos + 1)),
        },
        Some(b'1'..=b'9') => Ok(None),
        Some(_) => Err((ErrorCode::InvalidNumber, pos)),
    }
}

/// Validates and discards the number at `pos`: [`scan_number`]'s grammar and
/// errors, without its value (as serde_json's `ignore_integer` and
/// `ignore_decimal`), each run of digits skipped eight at a time. Returns the
/// position after the number.
#[inline]
pub fn ignore_number(input: &[u8], pos: usize) -> Result<usize, LexError> {
    let mut pos = pos + usize::from(input.get(pos) == Some(&b'-'));
    // Integer part: `0` or `[1-9][0-9]*`.
    pos = after_zero(input, pos)?.unwrap_or_else(|| digits_end(input, pos + 1));
    // Fraction `.[0-9]+`, then exponent `[eE][+-]?[0-9]+`: each needs a digit.
    let required = |pos: usize| match input.get(pos) {
        None => Err((ErrorCode::EofWhileParsingNumber, input.len())),
        Some(b'0'..=b'9') => Ok(digits_end(input, pos + 1)),
        Some(_) => Err((ErrorCode::InvalidNumber, pos)),
    };
    if input.get(pos) == Some(&b'.') {
        pos = required(pos + 1)?;
    }
    if let Some(b'e' | b'E') = input.get(pos) {
        pos += 1;
        if let Some(b'+' | b'-') = input.get(pos) {
            pos += 1;
        }
        pos = required(pos)?;
    }
    Ok(pos)
}

/// Powers of ten exactly representable in f64.
const F64_POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The 128-bit significands of `5^q` for `q` in `-19..=19` (index `q + 19`),
/// as `[high, low]` halves, normalised so the top bit is set: exact for `q >= 0`;
/// for `q < 0`, `floor(2^b / 5^-q) + 1` with `b = 127 + ceil(log2 5^-q)` (the
/// table of Lemire, "Number Parsing at a Gigabyte per Second", 2021, section 7,
/// computed here by long division at compile time). A static: the JIT's twin
/// of [`decimal_to_f64`] loads its entries by address.
pub static POW5_128: [[u64; 2]; 39] = {
    let mut table = [[0u64; 2]; 39];
    let mut q: i32 = -19;
    while q <= 19 {
        let mut p: u128 = 1;
        let mut k = 0;
        while k < q.unsigned_abs() {
            p *= 5;
            k += 1;
        }
        let value: u128 = if q >= 0 {
            p << p.leading_zeros()
        } else {
            // z = ceil(log2 p); quotient of 2^(127 + z) by p, one bit at a time.
            let z = 128 - (p - 1).leading_zeros();
            let mut quotient: u128 = 0;
            let mut remainder: u128 = 0;
            let mut bit = 0;
            while bit <= 127 + z {
                // Bits of 2^(127 + z), most significant first.
                remainder = (remainder << 1) | (bit == 0) as u128;
                quotient <<= 1;
                if remainder >= p {
                    remainder -= p;
                    quotient |= 1;
                }
                bit += 1;
            }
            quotient + 1
        };
        table[(q + 19) as usize] = [(value >> 64) as u64, value as u64];
        q += 1;
    }
    table
};

/// `mantissa × 10^exponent` correctly rounded to f32 through one f64
/// operation, for a mantissa below 2^53 and an exponent in `-22..=22`
/// (Clinger's bounds for f64), where that is exact; `None` otherwise.
///
/// The f64 operation rounds once, to `q`, and rounding `q` to f32 rounds a
/// second time. The two roundings give the one correct rounding unless `q`
/// is itself halfway between two f32s: an f32 halfway point lies on f64's
/// grid (25 significant bits), so one strictly between the exact value and
/// `q` would be nearer the value than `q`, which `q`, the nearest f64, is
/// not. In this range the value is a normal f32 (from 10^-22 to below
/// 2^53 × 10^22, about 9 × 10^37), so the halfway points are where `q`'s 29
/// low significand bits are `1` then zeros; there the answer is `None`, and
/// the caller parses the text. The usual f32 fast path (a significand below
/// 2^24, exponents within ±10) is a special case; this one also takes the 8
/// and 9 digit significands that f32 text such as embeddings mostly has.
#[inline]
pub fn decimal_to_f32(mantissa: u64, exponent: i32) -> Option<f32> {
    let q = clinger_f64(mantissa, i64::from(exponent))?;
    const LOW: u64 = (1 << 29) - 1;
    (q.to_bits() & LOW != 1 << 28).then_some(q as f32)
}

/// `mantissa × 10^exponent` as the nearest f64 by one correctly rounded
/// product or quotient of exact operands (Clinger 1990): a mantissa below
/// 2^53 and an exponent in `-22..=22`; `None` otherwise. The fast path of
/// [`Number::to_f64`] and the first rounding of [`decimal_to_f32`].
#[inline(always)]
fn clinger_f64(mantissa: u64, exponent: i64) -> Option<f64> {
    if mantissa >= 1 << 53 || !(-22..=22).contains(&exponent) {
        return None;
    }
    let m = mantissa as f64;
    Some(if exponent >= 0 {
        m * F64_POW10[exponent as usize]
    } else {
        m / F64_POW10[(-exponent) as usize]
    })
}

/// `mantissa × 10^exponent`, correctly rounded (round-half-even) to f64, for a
/// non-zero mantissa and an exponent in `-19..=19`; `None` otherwise. The
/// Eisel–Lemire algorithm (Lemire 2021, as in fast_float and fast-float2): one
/// or two 64×64-bit products with the table's `5^q` give the significand, and
/// in this exponent range the result is never ambiguous. For numbers whose
/// digits are already in a register (generated code, the interpreter's
/// scanner), this skips the second pass over the text a text parser makes.
#[inline]
pub fn decimal_to_f64(mantissa: u64, exponent: i32) -> Option<f64> {
    const EXPLICIT_BITS: i32 = 52;
    if mantissa == 0 || !(-19..=19).contains(&exponent) {
        return None;
    }
    let lz = mantissa.leading_zeros() as i32;
    let w = mantissa << lz;
    let [table_hi, table_lo] = POW5_128[(exponent + 19) as usize];
    let first = u128::from(w) * u128::from(table_hi);
    let (mut lo, mut hi) = (first as u64, (first >> 64) as u64);
    // Only the top 55 bits matter; refine when the bits below them are all ones.
    let mask = u64::MAX >> (EXPLICIT_BITS + 3);
    if hi & mask == mask {
        let second = u128::from(w) * u128::from(table_lo);
        let second_hi = (second >> 64) as u64;
        lo = lo.wrapping_add(second_hi);
        if second_hi > lo {
            hi += 1;
        }
    }
    let upper = (hi >> 63) as i32;
    let mut significand = hi >> (upper + 64 - EXPLICIT_BITS - 3);
    // floor(log2(10^q)) + 63, exact for |q| <= 10^4 (217706 / 2^16 ≈ log2 10).
    let power = ((217_706 * exponent) >> 16) + 63;
    let mut biased = power + upper - lz + 1023;
    // A tie (exactly halfway) can only occur for exponents in -4..=23; there, a
    // product with nothing below the kept bits rounds to even, not up.
    if lo <= 1
        && (-4..=23).contains(&exponent)
        && significand & 3 == 1
        && significand << (upper + 64 - EXPLICIT_BITS - 3) == hi
    {
        significand &= !1;
    }
    significand += significand & 1;
    significand >>= 1;
    if significand >= 2 << EXPLICIT_BITS {
        significand = 1 << EXPLICIT_BITS;
        biased += 1;
    }
    significand &= !(1 << EXPLICIT_BITS);
    // Values here lie in [10^-19, 2^64 · 10^19): always normal and finite.
    debug_assert!((1..0x7ff).contains(&biased));
    Some(f64::from_bits(
        significand | (biased as u64) << EXPLICIT_BITS,
    ))
}

impl Number {
    /// The value as the nearest f64 (round-half-even), or `FloatOutOfRange` when it
    /// is infinite.
    ///
    /// Fast path (Clinger 1990): a significand below 2^53 and a power of ten up to
    /// 10^22 are both exact in f64, so one multiplication or division rounds
    /// correctly. Then [`decimal_to_f64`] (Eisel–Lemire on the significand already
    /// scanned) for a decimal exponent within ±19. Everything else goes to
    /// fast-float2, which is correctly rounded.
    #[inline(always)]
    pub fn to_f64(&self, input: &[u8]) -> Result<f64, LexError> {
        if !self.overflow
            && let Some(v) = clinger_f64(self.mantissa, self.exponent)
        {
            return Ok(if self.negative { -v } else { v });
        }
        if !self.overflow
            && let Ok(exponent) = i32::try_from(self.exponent)
            && let Some(v) = decimal_to_f64(self.mantissa, exponent)
        {
            return Ok(if self.negative { -v } else { v });
        }
        self.f64_from_text(input)
    }

    /// [`to_f64`](Self::to_f64) for what its fast paths leave: more than 19
    /// digits or a far exponent, parsed from the text by fast-float2.
    #[cold]
    #[inline(never)]
    fn f64_from_text(&self, input: &[u8]) -> Result<f64, LexError> {
        let v: f64 = fast_float2::parse(&input[self.start..self.end])
            .map_err(|_| (ErrorCode::InvalidNumber, self.start))?;
        if v.is_infinite() {
            return Err((ErrorCode::FloatOutOfRange, self.start));
        }
        Ok(v)
    }

    /// The value as the nearest f32: through one f64 operation where
    /// [`decimal_to_f32`] shows that exact, else parsed from the text by
    /// fast-float2.
    pub fn to_f32(&self, input: &[u8]) -> Result<f32, LexError> {
        if !self.overflow
            && let Ok(exponent) = i32::try_from(self.exponent)
            && let Some(v) = decimal_to_f32(self.mantissa, exponent)
        {
            return Ok(if self.negative { -v } else { v });
        }
        let v: f32 = fast_float2::parse(&input[self.start..self.end])
            .map_err(|_| (ErrorCode::InvalidNumber, self.start))?;
        if v.is_infinite() {
            return Err((ErrorCode::FloatOutOfRange, self.start));
        }
        Ok(v)
    }

    /// Whether serde_json would call this an integer: no fraction or exponent, fits
    /// in u64 (non-negative) or i64 (negative), and is not `-0` (serde_json reads
    /// `-0` as the float `-0.0`).
    pub fn is_json_integer(&self) -> bool {
        self.is_integer
            && !self.overflow
            && if self.negative {
                self.mantissa != 0 && self.mantissa <= 1 << 63
            } else {
                true
            }
    }

    /// The integer value as i128 (valid when [`is_json_integer`](Self::is_json_integer)).
    pub fn integer(&self) -> i128 {
        let m = i128::from(self.mantissa);
        if self.negative { -m } else { m }
    }
}

// ---------------------------------------------------------------------------
// Strings

/// Where a scanned string's unescaped text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrText {
    /// Unescaped text is exactly `input[start..end]` (the string had no escapes).
    Borrowed { start: usize, end: usize },
    /// The string had escapes; its unescaped text is in the scratch buffer.
    Scratch,
}

impl StrText {
    /// The unescaped text: `input[start..end]` for a string without escapes,
    /// else `scratch`, the buffer the string was parsed with.
    #[inline]
    pub fn bytes<'a>(self, input: &'a [u8], scratch: &'a [u8]) -> &'a [u8] {
        match self {
            StrText::Borrowed { start, end } => &input[start..end],
            StrText::Scratch => scratch,
        }
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// A mask with the high bit set in the lowest byte of `w` that is `"`, `\` or a
/// control character (other bytes may be flagged above it, never below it).
#[inline(always)]
fn string_specials(w: u64) -> u64 {
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    let zero = |v: u64| v.wrapping_sub(ONES) & !v;
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    (zero(quote) | zero(backslash) | control) & HIGHS
}

/// Returns the position of the first `"`, `\` or control byte at or after `pos`, or
/// the input length.
#[inline]
pub fn find_string_special(input: &[u8], pos: usize) -> usize {
    scan_plain(input, pos).0
}

/// [`find_string_special`], and whether a byte of `0x80` or above lies before
/// the position returned: plain ASCII text then needs no UTF-8 check, found in
/// the same pass. Sixteen bytes at a time with SSE2 on x86-64 (its baseline),
/// then eight at a time (SWAR), then byte by byte.
#[inline]
pub fn scan_plain(input: &[u8], mut pos: usize) -> (usize, bool) {
    let mut high = false;
    #[cfg(target_arch = "x86_64")]
    while let Some(chunk) = input.get(pos..pos + 16) {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8,
            _mm_or_si128, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is always present on x86-64; the load reads the 16
        // bytes of `chunk`, unaligned.
        let (special, top) = unsafe {
            let w = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let is = |b: u8| _mm_cmpeq_epi8(w, _mm_set1_epi8(b as i8));
            // A byte at most 0x1f is its own maximum with 0x1f.
            let control = _mm_cmpeq_epi8(_mm_max_epu8(w, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f));
            let any = _mm_or_si128(_mm_or_si128(is(b'"'), is(b'\\')), control);
            (_mm_movemask_epi8(any) as u32, _mm_movemask_epi8(w) as u32)
        };
        if special != 0 {
            let below = (1u32 << special.trailing_zeros()) - 1;
            return (
                pos + special.trailing_zeros() as usize,
                high || top & below != 0,
            );
        }
        high |= top != 0;
        pos += 16;
    }
    while let Some(chunk) = input.get(pos..pos + 8) {
        let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        let m = string_specials(w);
        if m != 0 {
            let k = m.trailing_zeros() / 8;
            let below = (1u64 << (k * 8)) - 1;
            return (pos + k as usize, high || w & HIGHS & below != 0);
        }
        high |= w & HIGHS != 0;
        pos += 8;
    }
    while let Some(&b) = input.get(pos) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        high |= b >= 0x80;
        pos += 1;
    }
    (pos, high)
}

/// Whether `bytes` is UTF-8 (simdutf8). simdutf8 hands inputs shorter than its
/// 64-byte block to std's byte-by-byte validator, whose branches on each
/// multi-byte character mispredict on short mixed text (names, cities); those
/// are copied into a zeroed block and validated there instead. Zeros are
/// ASCII, and a sequence cut by the end of `bytes` stays cut by a zero, so
/// the answer is the same.
#[inline]
pub fn is_utf8(bytes: &[u8]) -> bool {
    const BLOCK: usize = 64;
    if bytes.len() < BLOCK {
        let mut block = [0u8; BLOCK];
        block[..bytes.len()].copy_from_slice(bytes);
        return simdutf8::basic::from_utf8(&block).is_ok();
    }
    simdutf8::basic::from_utf8(bytes).is_ok()
}

/// Validates that `input[start..end]` is UTF-8.
#[inline]
fn check_utf8(input: &[u8], start: usize, end: usize) -> Result<(), LexError> {
    let chunk = &input[start..end];
    if chunk.is_ascii() || is_utf8(chunk) {
        return Ok(());
    }
    let valid =
        simdutf8::compat::from_utf8(chunk).map_or_else(|e| e.valid_up_to(), |_| chunk.len());
    Err((ErrorCode::InvalidUtf8, start + valid))
}

fn hex4(input: &[u8], pos: usize) -> Result<u16, LexError> {
    // As serde_json: fewer than four bytes left is the end of input, whatever they are.
    if input.len() < pos + 4 {
        return Err((ErrorCode::EofWhileParsingString, input.len()));
    }
    let mut v: u16 = 0;
    for i in 0..4 {
        let b = input[pos + i];
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            // serde_json reads all four bytes first, then reports the escape.
            _ => return Err((ErrorCode::InvalidEscape, pos + 3)),
        };
        v = (v << 4) | u16::from(d);
    }
    Ok(v)
}

/// Decodes the escape whose backslash is at `pos`; appends its UTF-8 to `out` when
/// `out` is given. Returns the position after the escape.
fn parse_escape(input: &[u8], pos: usize, out: Option<&mut Vec<u8>>) -> Result<usize, LexError> {
    let b = *input
        .get(pos + 1)
        .ok_or((ErrorCode::EofWhileParsingString, input.len()))?;
    let simple = match b {
        b'"' => b'"',
        b'\\' => b'\\',
        b'/' => b'/',
        b'b' => 0x08,
        b'f' => 0x0c,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'u' => {
            let first = hex4(input, pos + 2)?;
            let (c, next) = match first {
                0xD800..=0xDBFF => {
                    // A high surrogate must be followed by `\u` and a low surrogate.
                    // Errors at serde_json's positions: the byte that is not
                    // `\` or `u`, the last hex digit of the second escape.
                    let after = pos + 6;
                    match (input.get(after), input.get(after + 1)) {
                        (Some(b'\\'), Some(b'u')) => {}
                        (None, _) | (Some(b'\\'), None) => {
                            return Err((ErrorCode::EofWhileParsingString, input.len()));
                        }
                        (Some(b'\\'), Some(_)) => {
                            return Err((ErrorCode::UnexpectedEndOfHexEscape, after + 1));
                        }
                        (Some(_), _) => return Err((ErrorCode::UnexpectedEndOfHexEscape, after)),
                    }
                    let second = hex4(input, after + 2)?;
                    if !(0xDC00..=0xDFFF).contains(&second) {
                        return Err((ErrorCode::LoneSurrogate, after + 5));
                    }
                    let c = 0x10000
                        + ((u32::from(first) - 0xD800) << 10)
                        + (u32::from(second) - 0xDC00);
                    (char::from_u32(c).expect("valid surrogate pair"), after + 6)
                }
                // serde_json calls a lone trailing surrogate a leading one too.
                0xDC00..=0xDFFF => return Err((ErrorCode::LoneSurrogate, pos + 5)),
                _ => (
                    char::from_u32(u32::from(first)).expect("not a surrogate"),
                    pos + 6,
                ),
            };
            if let Some(out) = out {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            return Ok(next);
        }
        _ => return Err((ErrorCode::InvalidEscape, pos + 1)),
    };
    if let Some(out) = out {
        out.push(simple);
    }
    Ok(pos + 2)
}

/// Scans the string whose contents start at `pos` (just after the opening quote).
/// Validates escapes, surrogates, control characters and (when `validate_utf8`)
/// UTF-8. Returns where the unescaped text is and the position after the closing
/// quote. `scratch` is cleared and used only when the string has escapes.
#[inline]
pub fn parse_str(
    input: &[u8],
    pos: usize,
    scratch: &mut Vec<u8>,
    validate_utf8: bool,
) -> Result<(StrText, usize), LexError> {
    let start = pos;
    let (special, high) = scan_plain(input, pos);
    match input.get(special) {
        Some(b'"') => {
            if validate_utf8 && high {
                check_utf8(input, start, special)?;
            }
            Ok((
                StrText::Borrowed {
                    start,
                    end: special,
                },
                special + 1,
            ))
        }
        _ => {
            scratch.clear();
            let end = scan_escaped(input, start, special, Some(scratch), validate_utf8)?;
            Ok((StrText::Scratch, end))
        }
    }
}

/// [`parse_str`] onto the end of `out`: appends the unescaped text of the
/// string whose contents start at `pos` and returns the position after its
/// closing quote. On an error `out` may hold part of the text; the caller
/// truncates it.
pub fn parse_str_onto(
    input: &[u8],
    pos: usize,
    out: &mut Vec<u8>,
    validate_utf8: bool,
) -> Result<usize, LexError> {
    let (special, high) = scan_plain(input, pos);
    match input.get(special) {
        Some(b'"') => {
            if validate_utf8 && high {
                check_utf8(input, pos, special)?;
            }
            out.extend_from_slice(&input[pos..special]);
            Ok(special + 1)
        }
        _ => scan_escaped(input, pos, special, Some(out), validate_utf8),
    }
}

/// Validates and discards the string whose contents start at `pos`; returns the
/// position after the closing quote.
#[inline]
pub fn ignore_str(input: &[u8], pos: usize, validate_utf8: bool) -> Result<usize, LexError> {
    let (special, high) = scan_plain(input, pos);
    match input.get(special) {
        Some(b'"') => {
            if validate_utf8 && high {
                check_utf8(input, pos, special)?;
            }
            Ok(special + 1)
        }
        _ => scan_escaped(input, pos, special, None, validate_utf8),
    }
}

/// Parses the string whose contents start at `pos` as serde_json reads a byte
/// string (`deserialize_bytes`, its `parse_str_raw`): escapes are decoded, but
/// the text is not checked as UTF-8 and control characters are taken as they
/// are; a `\u` escape of a surrogate that is not part of a pair is written as
/// its three WTF-8 bytes, as serde_json writes it. Returns where the bytes are
/// and the position after the closing quote; `scratch` is cleared and used only
/// when the string has escapes.
pub fn parse_str_raw(
    input: &[u8],
    pos: usize,
    scratch: &mut Vec<u8>,
) -> Result<(StrText, usize), LexError> {
    let find = |from: usize| {
        input[from..]
            .iter()
            .position(|&b| b == b'"' || b == b'\\')
            .map_or(input.len(), |i| from + i)
    };
    let mut special = find(pos);
    if input.get(special) == Some(&b'"') {
        return Ok((
            StrText::Borrowed {
                start: pos,
                end: special,
            },
            special + 1,
        ));
    }
    scratch.clear();
    let mut chunk_start = pos;
    loop {
        match input.get(special) {
            None => return Err((ErrorCode::EofWhileParsingString, input.len())),
            Some(b'"') => {
                scratch.extend_from_slice(&input[chunk_start..special]);
                return Ok((StrText::Scratch, special + 1));
            }
            Some(_) => {
                scratch.extend_from_slice(&input[chunk_start..special]);
                chunk_start = parse_escape_raw(input, special, scratch)?;
                special = find(chunk_start);
            }
        }
    }
}

/// [`parse_escape`] for [`parse_str_raw`]: a surrogate without its pair is
/// kept (as WTF-8) where `parse_escape` refuses it, after serde_json's
/// `parse_unicode_escape` with `validate` off.
fn parse_escape_raw(input: &[u8], pos: usize, out: &mut Vec<u8>) -> Result<usize, LexError> {
    if input.get(pos + 1) != Some(&b'u') {
        return parse_escape(input, pos, Some(out));
    }
    let mut n = hex4(input, pos + 2)?;
    let mut next = pos + 6;
    loop {
        if !(0xD800..=0xDBFF).contains(&n) {
            push_wtf8(u32::from(n), out);
            return Ok(next);
        }
        // A leading surrogate: a trailing one may follow as `\u` escape.
        match input.get(next) {
            None => return Err((ErrorCode::EofWhileParsingString, input.len())),
            Some(b'\\') => {}
            Some(_) => {
                push_wtf8(u32::from(n), out);
                return Ok(next);
            }
        }
        match input.get(next + 1) {
            None => return Err((ErrorCode::EofWhileParsingString, input.len())),
            Some(b'u') => {}
            Some(_) => {
                // Some other escape: the surrogate stands alone.
                push_wtf8(u32::from(n), out);
                return parse_escape(input, next, Some(out));
            }
        }
        let second = hex4(input, next + 2)?;
        next += 6;
        if (0xDC00..=0xDFFF).contains(&second) {
            let c = 0x10000 + ((u32::from(n) - 0xD800) << 10) + (u32::from(second) - 0xDC00);
            push_wtf8(c, out);
            return Ok(next);
        }
        // Not a trailing surrogate: the first stands alone, and the second
        // is read afresh (it may lead a pair itself).
        push_wtf8(u32::from(n), out);
        n = second;
    }
}

/// Appends the UTF-8 form of code point `c`, surrogates included (WTF-8).
fn push_wtf8(c: u32, out: &mut Vec<u8>) {
    // Truncations keep the low bits each byte carries.
    match c {
        0..=0x7F => out.push(c as u8),
        0x80..=0x7FF => out.extend_from_slice(&[0xC0 | (c >> 6) as u8, 0x80 | (c & 0x3F) as u8]),
        0x800..=0xFFFF => out.extend_from_slice(&[
            0xE0 | (c >> 12) as u8,
            0x80 | ((c >> 6) & 0x3F) as u8,
            0x80 | (c & 0x3F) as u8,
        ]),
        _ => out.extend_from_slice(&[
            0xF0 | (c >> 18) as u8,
            0x80 | ((c >> 12) & 0x3F) as u8,
            0x80 | ((c >> 6) & 0x3F) as u8,
            0x80 | (c & 0x3F) as u8,
        ]),
    }
}

/// The slow part of a string: from `special` (a byte that is not a closing quote)
/// onwards, handling escapes. `start..special` is plain text not yet copied.
///
/// As in serde_json, UTF-8 is checked once the closing quote is found, so a bad
/// escape, a control character or the end of input earlier in the string is the
/// error reported, whatever bytes come before it.
#[cold]
fn scan_escaped(
    input: &[u8],
    start: usize,
    mut special: usize,
    mut out: Option<&mut Vec<u8>>,
    validate_utf8: bool,
) -> Result<usize, LexError> {
    let mut chunk_start = start;
    loop {
        match input.get(special) {
            None => return Err((ErrorCode::EofWhileParsingString, input.len())),
            Some(b'"') => {
                if validate_utf8 {
                    // Escapes are ASCII, so checking the raw text checks the chunks.
                    check_utf8(input, start, special)?;
                }
                if let Some(out) = out.as_deref_mut() {
                    out.extend_from_slice(&input[chunk_start..special]);
                }
                return Ok(special + 1);
            }
            Some(b'\\') => {
                if let Some(out) = out.as_deref_mut() {
                    out.extend_from_slice(&input[chunk_start..special]);
                }
                let next = parse_escape(input, special, out.as_deref_mut())?;
                chunk_start = next;
                special = find_string_special(input, next);
            }
            Some(_) => return Err((ErrorCode::ControlCharacterWhileParsingString, special)),
        }
    }
}

// ---------------------------------------------------------------------------
// Whole values

/// A stack of container kinds (object or array) for iterative skipping: 256 levels
/// inline, a heap vector beyond.
struct ContainerStack {
    inline: [u64; 4],
    spill: Vec<bool>,
    depth: usize,
}

impl ContainerStack {
    fn new() -> Self {
        ContainerStack {
            inline: [0; 4],
            spill: Vec::new(),
            depth: 0,
        }
    }

    fn push(&mut self, is_object: bool) {
        if self.depth < 256 {
            let (word, bit) = (self.depth / 64, self.depth % 64);
            self.inline[word] = (self.inline[word] & !(1 << bit)) | (u64::from(is_object) << bit);
        } else {
            self.spill.push(is_object);
        }
        self.depth += 1;
    }

    /// The innermost container: `Some(true)` for an object.
    fn top(&self) -> Option<bool> {
        match self.depth {
            0 => None,
            d if d <= 256 => Some(self.inline[(d - 1) / 64] >> ((d - 1) % 64) & 1 == 1),
            _ => self.spill.last().copied(),
        }
    }

    fn pop(&mut self) {
        if self.depth > 256 {
            self.spill.pop();
        }
        self.depth -= 1;
    }
}

/// Validates and discards the value starting at or after `pos` (leading whitespace
/// allowed). Iterative, so nesting depth is unlimited, as in serde_json's
/// `ignore_value`. Returns the position after the value.
pub fn ignore_value(input: &[u8], pos: usize, validate_utf8: bool) -> Result<usize, LexError> {
    // A number or a string, most of what a projection leaves out, without the
    // container walk around it (which returns right after a scalar).
    let at = skip_ws(input, pos);
    match input.get(at) {
        Some(b'-' | b'0'..=b'9') => ignore_number(input, at),
        Some(b'"') => ignore_str(input, at + 1, validate_utf8),
        _ => skip_value(input, pos, validate_utf8, None),
    }
}

/// [`ignore_value`] as serde checks a value it buffers or builds: numbers are
/// evaluated too (a float that overflows is `FloatOutOfRange`), and containers
/// may nest `max_depth - 1` levels (the one that would be the `max_depth`-th is
/// `DepthLimitExceeded`, as serde_json's recursion limit counts). Still
/// iterative.
pub fn ignore_value_as_parsed(
    input: &[u8],
    pos: usize,
    validate_utf8: bool,
    max_depth: u32,
) -> Result<usize, LexError> {
    skip_value(input, pos, validate_utf8, Some(max_depth))
}

/// The skipper behind [`ignore_value`] and [`ignore_value_as_parsed`]
/// (`parsed`: the depth limit, when numbers and depth are checked).
fn skip_value(
    input: &[u8],
    pos: usize,
    validate_utf8: bool,
    parsed: Option<u32>,
) -> Result<usize, LexError> {
    let mut stack = ContainerStack::new();
    let mut depth = 0u32;
    let mut pos = pos;
    // Entering a container: one level, refused at the limit.
    let enter = |depth: &mut u32, at: usize| -> Result<(), LexError> {
        *depth += 1;
        match parsed {
            Some(limit) if *depth >= limit => Err((ErrorCode::DepthLimitExceeded, at)),
            _ => Ok(()),
        }
    };
    'value: loop {
        // Here a value must start, after optional whitespace.
        pos = skip_ws(input, pos);
        match input.get(pos) {
            None => return Err((ErrorCode::EofWhileParsingValue, input.len())),
            Some(b'"') => pos = ignore_str(input, pos + 1, validate_utf8)?,
            Some(b'-' | b'0'..=b'9') if parsed.is_some() => {
                let n = scan_number(input, pos)?;
                if !n.is_json_integer() {
                    n.to_f64(input)?;
                }
                pos = n.end;
            }
            Some(b'-' | b'0'..=b'9') => pos = ignore_number(input, pos)?,
            Some(b't') => pos = parse_ident(input, pos + 1, b"rue")?,
            Some(b'f') => pos = parse_ident(input, pos + 1, b"alse")?,
            Some(b'n') => pos = parse_ident(input, pos + 1, b"ull")?,
            Some(b'[') => {
                enter(&mut depth, pos)?;
                pos = skip_ws(input, pos + 1);
                match input.get(pos) {
                    Some(b']') => {
                        pos += 1;
                        depth -= 1;
                    }
                    None => return Err((ErrorCode::EofWhileParsingList, input.len())),
                    Some(_) => {
                        stack.push(false);
                        continue 'value;
                    }
                }
            }
            Some(b'{') => {
                enter(&mut depth, pos)?;
                pos = skip_ws(input, pos + 1);
                match input.get(pos) {
                    Some(b'}') => {
                        pos += 1;
                        depth -= 1;
                    }
                    Some(b'"') => {
                        stack.push(true);
                        pos = ignore_key_colon(input, pos, validate_utf8)?;
                        continue 'value;
                    }
                    None => return Err((ErrorCode::EofWhileParsingObject, input.len())),
                    Some(_) => return Err((ErrorCode::KeyMustBeAString, pos)),
                }
            }
            Some(_) => return Err((ErrorCode::ExpectedSomeValue, pos)),
        }
        // A value ended at `pos`: close containers until one continues.
        loop {
            let Some(is_object) = stack.top() else {
                return Ok(pos);
            };
            pos = skip_ws(input, pos);
            match (input.get(pos), is_object) {
                // After a comma, serde_json's words differ between a value it
                // parses (its `SeqAccess`/`MapAccess`: `trailing comma`, and
                // end of input is inside a value) and one it ignores
                // (`ignore_value`: `]` cannot start a value, `}` is not a key,
                // end of input is inside the object).
                (Some(b','), false) => {
                    pos = skip_ws(input, pos + 1);
                    if parsed.is_some() && input.get(pos) == Some(&b']') {
                        return Err((ErrorCode::TrailingComma, pos));
                    }
                    continue 'value;
                }
                (Some(b','), true) => {
                    pos = skip_ws(input, pos + 1);
                    match (input.get(pos), parsed.is_some()) {
                        (Some(b'"'), _) => {
                            pos = ignore_key_colon(input, pos, validate_utf8)?;
                            continue 'value;
                        }
                        (Some(b'}'), true) => return Err((ErrorCode::TrailingComma, pos)),
                        (None, true) => {
                            return Err((ErrorCode::EofWhileParsingValue, input.len()));
                        }
                        (None, false) => {
                            return Err((ErrorCode::EofWhileParsingObject, input.len()));
                        }
                        (Some(_), _) => return Err((ErrorCode::KeyMustBeAString, pos)),
                    }
                }
                (Some(b']'), false) | (Some(b'}'), true) => {
                    pos += 1;
                    stack.pop();
                    depth -= 1;
                }
                (None, false) => return Err((ErrorCode::EofWhileParsingList, input.len())),
                (None, true) => return Err((ErrorCode::EofWhileParsingObject, input.len())),
                (Some(_), false) => return Err((ErrorCode::ExpectedListCommaOrEnd, pos)),
                (Some(_), true) => return Err((ErrorCode::ExpectedObjectCommaOrEnd, pos)),
            }
        }
    }
}

/// Skips a key (at `pos`, an opening quote) and the colon after it; returns the
/// position after the colon and any whitespace.
fn ignore_key_colon(input: &[u8], pos: usize, validate_utf8: bool) -> Result<usize, LexError> {
    let pos = skip_ws(input, ignore_str(input, pos + 1, validate_utf8)?);
    match input.get(pos) {
        Some(b':') => Ok(pos + 1),
        None => Err((ErrorCode::EofWhileParsingObject, input.len())),
        Some(_) => Err((ErrorCode::ExpectedColon, pos)),
    }
}

#[cfg(test)]
mod tests {
    use super::{Int128, is_utf8, is_ws, skip_ws, skip_ws_run};

    /// `is_utf8` against std on every string of up to three bytes over an
    /// alphabet of ASCII, continuation, lead and invalid bytes, and on
    /// pseudo-random mixes of well-formed and damaged text of 0 to 130 bytes
    /// (both sides of the 64-byte block, and sequences cut by the end).
    #[test]
    fn is_utf8_agrees_with_std() {
        let alphabet = [
            0x00, 0x41, 0x7f, 0x80, 0x8f, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef,
            0xf0, 0xf4, 0xf5, 0xff,
        ];
        let check = |bytes: &[u8]| {
            assert_eq!(
                is_utf8(bytes),
                std::str::from_utf8(bytes).is_ok(),
                "{bytes:x?}"
            );
        };
        check(&[]);
        for &a in &alphabet {
            check(&[a]);
            for &b in &alphabet {
                check(&[a, b]);
                for &c in &alphabet {
                    check(&[a, b, c]);
                }
            }
        }
        let pieces: [&[u8]; 8] = [
            b"a",
            b"Z\xc3\xbcrich",
            "\u{e9}".as_bytes(),
            "\u{65e5}\u{672c}".as_bytes(),
            "\u{1f600}".as_bytes(),
            &[0xe6, 0x97],
            &[0xf0, 0x9f, 0x98],
            &[0xed, 0xa0, 0x80],
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let mut text = Vec::new();
            let len = (next() % 131) as usize;
            while text.len() < len {
                let piece = pieces[(next() % 8) as usize];
                text.extend_from_slice(piece);
            }
            text.truncate(len);
            check(&text);
        }
    }

    /// `skip_ws_run` and `skip_ws` against a byte loop over `is_ws`: runs of 0
    /// to 40 bytes of each whitespace byte and of random mixes, ended by every
    /// byte that stops a run (a control byte, a byte just above `' '`, a
    /// quote, a byte of 0x80 and above) or by the end of the input, at every
    /// start offset the 16- and 8-byte steps can meet.
    #[test]
    fn whitespace_runs_end_where_a_byte_loop_ends_them() {
        let reference = |input: &[u8], mut pos: usize| {
            while pos < input.len() && is_ws(input[pos]) {
                pos += 1;
            }
            pos
        };
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut checked = 0;
        for len in 0..=40 {
            for fill in [Some(b' '), Some(b'\t'), Some(b'\n'), Some(b'\r'), None] {
                for end in [
                    None,
                    Some(0u8),
                    Some(0x1f),
                    Some(b'!'),
                    Some(b'"'),
                    Some(0x80),
                    Some(0xff),
                ] {
                    for lead in 0..17 {
                        let mut input = vec![b'x'; lead];
                        input.extend((0..len).map(|_| {
                            fill.unwrap_or_else(|| {
                                x ^= x << 13;
                                x ^= x >> 7;
                                x ^= x << 17;
                                b" \t\n\r"[(x % 4) as usize]
                            })
                        }));
                        input.extend(end);
                        for pos in [lead, lead.saturating_sub(1), input.len()] {
                            let expected = reference(&input, pos);
                            assert_eq!(skip_ws_run(&input, pos), expected, "{input:?} from {pos}");
                            assert_eq!(skip_ws(&input, pos), expected, "{input:?} from {pos}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 10_000);
    }

    /// `ignore_number` against `scan_number` (which also computes the value):
    /// the same end or the same error, on every text of up to four bytes over
    /// the bytes a number is made of (and one that ends it), each followed by
    /// nothing, by a delimiter, or by runs of digits long enough for the
    /// eight-byte steps.
    #[test]
    fn ignore_number_ends_and_fails_where_scan_number_does() {
        let alphabet = b"-0159.eE+x";
        let mut checked = 0;
        for len in 1..=4 {
            for mut code in 0..alphabet.len().pow(len) {
                let mut text = Vec::new();
                for _ in 0..len {
                    text.push(alphabet[code % alphabet.len()]);
                    code /= alphabet.len();
                }
                for tail in [&b""[..], b",", b"123456789012", b".5e-123456789x", b"7"] {
                    let mut input = text.clone();
                    input.extend_from_slice(tail);
                    if !matches!(input[0], b'-' | b'0'..=b'9') {
                        continue;
                    }
                    assert_eq!(
                        super::ignore_number(&input, 0),
                        super::scan_number(&input, 0).map(|n| n.end),
                        "{:?}",
                        String::from_utf8_lossy(&input)
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// `digits_end` against a byte loop: runs of 0 to 40 digits, ended by every
    /// kind of byte next to a digit in ASCII (and one far from it) or by the
    /// end of the input, from every start.
    #[test]
    fn digits_end_matches_a_byte_loop() {
        let reference = |input: &[u8], mut pos: usize| {
            while input.get(pos).is_some_and(u8::is_ascii_digit) {
                pos += 1;
            }
            pos
        };
        let mut checked = 0;
        for run in 0..=40 {
            for end in [&b""[..], b"/", b":", b",", b"e", b".", b"\xff", b"0/"] {
                let mut input: Vec<u8> = (0..run).map(|i| b'0' + (i * 7 % 10) as u8).collect();
                input.extend(end);
                input.extend(b"123");
                for cut in [input.len(), run + end.len()] {
                    let input = &input[..cut];
                    for pos in 0..=input.len() {
                        assert_eq!(
                            super::digits_end(input, pos),
                            reference(input, pos),
                            "{input:?} from {pos}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000);
    }

    /// `Int128::from_digits` against `str::parse` at every length from 1 to
    /// 41 digits (random digits, all nines, a one and zeros) and at the
    /// bounds, both signs.
    #[test]
    fn int128_from_digits_matches_str_parse() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut cases: Vec<String> = Vec::new();
        for len in 1..=41 {
            for _ in 0..50 {
                let digits: String = (0..len)
                    .map(|i| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        char::from(b'0' + (x % 10) as u8 + u8::from(i == 0 && x.is_multiple_of(10)))
                    })
                    .collect();
                cases.push(digits);
            }
            cases.push("9".repeat(len));
            cases.push(format!("1{}", "0".repeat(len - 1)));
        }
        for bound in [
            u128::MAX.to_string(),
            i128::MAX.to_string(),
            i128::MIN.to_string(),
        ] {
            cases.push(bound.trim_start_matches('-').to_owned());
        }
        cases.push("340282366920938463463374607431768211456".to_owned());
        cases.push("170141183460469231731687303715884105728".to_owned());
        cases.push("0".to_owned());
        for digits in &cases {
            for negative in [false, true] {
                let text = if negative {
                    format!("-{digits}")
                } else {
                    digits.clone()
                };
                let bytes = digits.as_bytes();
                assert_eq!(
                    u128::from_digits(negative, bytes),
                    text.parse::<u128>().ok(),
                    "u128 {text}"
                );
                assert_eq!(
                    i128::from_digits(negative, bytes),
                    text.parse::<i128>().ok(),
                    "i128 {text}"
                );
            }
        }
    }

    /// `digit_word` and `add_digit_runs` against a byte loop at every offset of
    /// a stream mixing digits with the bytes around them and those whose carry
    /// crosses a byte (`/`, `:`, 0xFA..=0xFF): the word's run and value, and a
    /// run of words that adds exactly the digits it passes and stops early only
    /// where fewer than eight bytes remain or more might overflow.
    #[test]
    fn digit_words_match_a_byte_loop() {
        let alphabet: &[u8] = b"0123456789012345678901234567890123456789/:.e-\xfa\xff";
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let stream: Vec<u8> = (0..200_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                match x % 61 {
                    58 => 0xFA,
                    59 => 0xFF,
                    60 => 0xFE,
                    r => alphabet[(r as usize) % alphabet.len()],
                }
            })
            .collect();
        let value = |digits: &[u8]| {
            digits
                .iter()
                .fold(0u64, |v, &d| v * 10 + u64::from(d - b'0'))
        };
        let run_at = |pos: usize| {
            stream[pos..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count()
        };
        for pos in 0..stream.len() {
            let run = run_at(pos).min(8);
            let expected =
                (pos + 8 <= stream.len() && run > 0).then(|| (run, value(&stream[pos..pos + run])));
            let word = digit_word(&stream, pos)
                .map(|(k, digits)| (k, combine_eight_digits(digits << (8 * (8 - k)))));
            assert_eq!(word, expected, "word at {pos}");

            let (mut end, mut mantissa) = (pos, 0);
            let added = add_digit_runs(&stream, &mut end, &mut mantissa);
            assert_eq!(added, end - pos);
            assert!(stream[pos..end].iter().all(u8::is_ascii_digit), "at {pos}");
            assert_eq!(mantissa, value(&stream[pos..end]), "runs at {pos}");
            let stopped_early = stream.get(end).is_some_and(u8::is_ascii_digit);
            assert!(
                !stopped_early || end + 8 > stream.len() || mantissa > SWAR_MANTISSA_LIMIT,
                "runs at {pos} stopped at {end}"
            );
        }
    }

    /// `decimal_to_f64` against fast-float2 (correctly rounded) on the text
    /// `<m>e<exponent>`: random mantissas of every length, every exponent in
    /// range, and values built to sit on or next to a rounding tie.
    #[test]
    fn decimal_to_f64_is_correctly_rounded() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            // xorshift64*
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D)
        };
        let check = |m: u64, e: i32| {
            let expected: f64 = fast_float2::parse(format!("{m}e{e}").as_bytes()).unwrap();
            assert_eq!(decimal_to_f64(m, e), Some(expected), "{m}e{e}");
        };
        for _ in 0..200_000 {
            let digits = 1 + next() % 20;
            let m = (next() % 10u64.saturating_pow(digits as u32)).max(1);
            let e = (next() % 39) as i32 - 19;
            check(m, e);
            check(u64::MAX - next() % 1000, e);
        }
        // Ties and near-ties: 54-bit odd significands (exactly halfway between two
        // doubles) times powers of two, and their neighbours, at every exponent.
        for _ in 0..2_000 {
            let half = (1u64 << 53) | next() >> 11 | 1;
            for shift in 0..10 {
                for delta in [-1i64, 0, 1] {
                    let m = ((half << shift) as i64 + delta) as u64;
                    for e in -19..=19 {
                        check(m, e);
                    }
                }
            }
        }
        // Exact ties scaled by powers of ten: (2^53 + 1) · 2^k / 10^j · 10^j.
        for k in 0..11 {
            for j in 0..=19 {
                if let Some(m) = ((1u64 << 53) + 1)
                    .checked_shl(k)
                    .and_then(|m| m.checked_mul(10u64.pow(j.min(2))))
                {
                    check(m, -(j.min(2) as i32));
                }
            }
        }
        assert_eq!(decimal_to_f64(1, 20), None);
        assert_eq!(decimal_to_f64(1, -20), None);
        assert_eq!(decimal_to_f64(0, -5), None);
    }
    use super::*;

    /// `decimal_to_f32` is std's (correctly rounded) parse of the same
    /// decimal wherever it answers, and answers for all but a few values:
    /// random significands of every length with every exponent it takes, the
    /// integers around 2^24..2^25 (every odd one an f32 halfway point), and
    /// decimals a hair either side of halfway points.
    #[test]
    fn decimal_to_f32_is_correctly_rounded() {
        use super::decimal_to_f32;
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let check = |m: u64, e: i32| -> bool {
            let expected: f32 = format!("{m}e{e}").parse().unwrap();
            match decimal_to_f32(m, e) {
                Some(v) => {
                    assert_eq!(v.to_bits(), expected.to_bits(), "{m}e{e}");
                    true
                }
                None => false,
            }
        };
        let (mut answered, mut total) = (0, 0);
        for _ in 0..200_000 {
            let digits = 1 + next() % 16;
            let m = next() % 10u64.pow(digits as u32) % (1 << 53);
            let e = (next() % 45) as i32 - 22;
            total += 1;
            answered += usize::from(check(m, e));
        }
        assert!(answered * 100 >= total * 99, "{answered} of {total}");
        for m in (1u64 << 24)..(1 << 24) + 5_000 {
            check(m, 0);
            check(m * 1000, -3);
            check(m * 10_000 + 1, -4);
            check(m * 10_000 - 1, -4);
            check(m * 100_000_000 + 1, -8);
        }
        // Decimals whose nearest f64 is an f32 halfway point, which rounding
        // that f64 again would take the wrong way (found by a search).
        for (m, e) in [(5_698_563_194_274_902, -14), (7_343_761_825_561_523, -14)] {
            assert_eq!(decimal_to_f32(m, e), None, "{m}e{e}");
            let m_f64 = m as f64 / 1e14;
            let wrong = m_f64 as f32;
            let right: f32 = format!("{m}e{e}").parse().unwrap();
            assert_ne!(wrong, right, "{m}e{e}");
        }
        // Halfway points themselves are left to the text parser.
        assert_eq!(decimal_to_f32((1 << 24) + 1, 0), None);
        assert_eq!(decimal_to_f32(167_772_170, -1), None);
        assert_eq!(decimal_to_f32(1 << 53, 0), None);
        assert_eq!(decimal_to_f32(1, 23), None);
        assert_eq!(decimal_to_f32(0, -5).map(f32::to_bits), Some(0));
    }

    #[test]
    fn specials_find_the_first_byte() {
        for len in 0..20 {
            for at in 0..len {
                for special in [b'"', b'\\', 0x00, 0x1f] {
                    let mut v = vec![b'a'; len];
                    v[at] = special;
                    assert_eq!(
                        find_string_special(&v, 0),
                        at,
                        "len {len} at {at} byte {special}"
                    );
                }
            }
            assert_eq!(find_string_special(&vec![0xffu8; len], 0), len);
            assert_eq!(find_string_special(&vec![0x20u8; len], 0), len);
        }
    }

    /// `scan_plain` against a byte loop: strings of 0 to 40 bytes with a high
    /// byte (or none) at every position before, at and after the special byte
    /// (or none), from every start offset the 16- and 8-byte steps can meet.
    #[test]
    fn plain_scans_report_high_bytes_before_the_special_only() {
        let reference = |v: &[u8], pos: usize| {
            let end = (pos..v.len())
                .find(|&i| v[i] == b'"' || v[i] == b'\\' || v[i] < 0x20)
                .unwrap_or(v.len());
            (end, v[pos..end].iter().any(|&b| b >= 0x80))
        };
        for len in 0..=40 {
            for special in (0..=len).map(Some).chain([None]) {
                for high in (0..len).map(Some).chain([None]) {
                    let mut v = vec![b'a'; len];
                    if let Some(h) = high {
                        v[h] = 0xc3;
                    }
                    if let Some(at) = special.filter(|&at| at < len) {
                        v[at] = [b'"', b'\\', 0x00, 0x1f][at % 4];
                    }
                    for pos in [0, 1, 7, 9, 17].into_iter().filter(|&p| p <= len) {
                        assert_eq!(scan_plain(&v, pos), reference(&v, pos), "{v:?} from {pos}");
                    }
                }
            }
        }
    }

    #[test]
    fn numbers_scan_exactly() {
        let n = scan_number(b"-12.5e3,", 0).unwrap();
        assert_eq!(
            (n.negative, n.mantissa, n.exponent, n.is_integer, n.end),
            (true, 125, 2, false, 7)
        );
        assert_eq!(n.to_f64(b"-12.5e3").unwrap(), -12500.0);
        assert_eq!(scan_number(b"01", 0), Err((ErrorCode::InvalidNumber, 1)));
        assert_eq!(
            scan_number(b"1.", 0),
            Err((ErrorCode::EofWhileParsingNumber, 2))
        );
        assert_eq!(scan_number(b"1.e", 0), Err((ErrorCode::InvalidNumber, 2)));
        assert_eq!(
            scan_number(b"-", 0),
            Err((ErrorCode::EofWhileParsingNumber, 1))
        );
        let big = scan_number(b"18446744073709551616", 0).unwrap();
        assert!(big.overflow);
        let max = scan_number(b"18446744073709551615", 0).unwrap();
        assert!(!max.overflow && max.mantissa == u64::MAX);
    }

    #[test]
    fn ignore_value_handles_deep_nesting() {
        // Under Miri (about a thousand times slower) a shallower document: the
        // skipper keeps no per-level stack, so depth changes nothing but time.
        let depth = if cfg!(miri) { 2_000 } else { 100_000 };
        let mut doc = vec![b'['; depth];
        doc.extend(vec![b']'; depth]);
        assert_eq!(ignore_value(&doc, 0, true), Ok(doc.len()));
        let mut doc = b"{\"a\":".repeat(1000);
        doc.extend(b"1".iter().chain(b"}".repeat(1000).iter()));
        assert_eq!(ignore_value(&doc, 0, true), Ok(doc.len()));
    }
}

/// Finds where one JSON value ends without parsing it: a bracket counter that
/// knows strings and escapes, resumable across buffers (start it on the value's
/// first byte or the whitespace before it). It does not validate: it only cuts
/// a stream into the spans that a decoder then checks (an incomplete record kept
/// for the next buffer, the values of an NDJSON stream).
#[derive(Clone, Copy, Debug, Default)]
pub struct ValueEnd {
    depth: u32,
    started: bool,
    in_string: bool,
    escaped: bool,
    scalar: bool,
}

impl ValueEnd {
    /// The offset in `bytes` just after the value, if it ends there.
    pub fn run(&mut self, bytes: &[u8]) -> Option<usize> {
        for (i, &b) in bytes.iter().enumerate() {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                    if self.depth == 0 {
                        return Some(i + 1);
                    }
                }
                continue;
            }
            if !self.started {
                if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                    continue;
                }
                self.started = true;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' if self.depth > 0 => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        return Some(i + 1);
                    }
                }
                b' ' | b'\t' | b'\n' | b'\r' | b',' | b'}' | b']'
                    if self.depth == 0 && self.scalar =>
                {
                    return Some(i);
                }
                b' ' | b'\t' | b'\n' | b'\r' | b',' | b'}' | b']' if self.depth == 0 => {}
                _ if self.depth == 0 => self.scalar = true,
                _ => {}
            }
        }
        None
    }
}

/// Cuts `input` after newlines into ranges of about `target` bytes (each at
/// least `target`, unless it is the last, and ending just after a `\n`): the
/// chunks of NDJSON that parallel decoders take, one record never split.
pub fn line_chunks(input: &[u8], target: usize) -> Vec<core::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = 0;
    while start < input.len() {
        let mut end = (start + target.max(1)).min(input.len());
        while end < input.len() && input[end - 1] != b'\n' {
            end += 1;
        }
        ranges.push(start..end);
        start = end;
    }
    ranges
}
