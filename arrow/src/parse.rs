//! Scalars parsed from their text ([`ParsedLayout`] functions): timestamps, dates,
//! decimals, half floats, and arrow-json's coercions into text columns.
//!
//! Every function has the [`ParseFn`](jitson_core::column::ParseFn) signature and
//! never unwinds: it writes `dst` and returns `true`, or sets `*message`.

use jitson_core::column::{ParsedLayout, column_append_text};

/// A timestamp parser: `arg` holds the nanoseconds per unit (low 32 bits) and
/// the column's time zone offset in seconds east of UTC (high 32 bits, as
/// `i32`), which applies to text without an offset of its own.
pub(crate) const fn timestamp_layout(nanos_per_unit: u64, offset: i32) -> ParsedLayout {
    ParsedLayout {
        from_string: Some(timestamp_from_string),
        from_number: Some(parse_i64),
        from_bool: None,
        arg: nanos_per_unit | ((offset as u32 as u64) << 32),
    }
}

/// A column's time zone as seconds east of UTC: `UTC` or a fixed offset
/// (`+09:00`, `-0930`, `+09`, as arrow reads them without its `chrono-tz`
/// feature). A named zone (`Europe/Paris`) is `None`: reading local times there
/// needs a time-zone database (with daylight saving), which this crate has not.
pub(crate) fn fixed_time_zone(tz: &str) -> Option<i32> {
    if tz == "UTC" {
        return Some(0);
    }
    let b = tz.as_bytes();
    let (sign, rest) = match b.split_first()? {
        (b'+', rest) => (1, rest),
        (b'-', rest) => (-1, rest),
        _ => return None,
    };
    let (h, m) = match rest.len() {
        5 if rest[2] == b':' => (digits(&rest[..2])?, digits(&rest[3..])?),
        4 => (digits(&rest[..2])?, digits(&rest[2..])?),
        2 => (digits(rest)?, 0),
        _ => return None,
    };
    let secs = (h * 3600 + m * 60) as i32;
    (secs < 86_400).then_some(sign * secs)
}

/// Date32: `"YYYY-MM-DD"` or an integer count of days since 1970-01-01.
pub(crate) static DATE32: ParsedLayout = ParsedLayout {
    from_string: Some(date32_from_string),
    from_number: Some(parse_i32),
    from_bool: None,
    arg: 0,
};

/// Float16: a JSON number, rounded to f32 and then to f16 (as arrow-json does).
pub(crate) static FLOAT16: ParsedLayout = ParsedLayout {
    from_string: None,
    from_number: Some(float16),
    from_bool: None,
    arg: 0,
};

/// Text columns with `with_coerce_primitive(true)`: numbers and booleans are
/// stored as their JSON text.
pub(crate) static COERCED_TEXT: ParsedLayout = ParsedLayout {
    from_string: Some(append_text),
    from_number: Some(append_text),
    from_bool: Some(append_text),
    arg: 0,
};

/// `arg` of a decimal parser: `precision << 8 | scale` (scale as `i8`).
pub(crate) fn decimal_arg(precision: u8, scale: i8) -> u64 {
    (u64::from(precision) << 8) | u64::from(scale as u8)
}

/// Decimal128 from a number's text (or a string's, the same grammar), exactly.
pub(crate) const DECIMAL: ParsedLayout = ParsedLayout {
    from_string: Some(decimal128),
    from_number: Some(decimal128),
    from_bool: None,
    arg: 0,
};

/// Integer parsers for a column with `with_coerce_primitive(true)`: a string is
/// parsed as the number it holds (`"42"`), as arrow-json always does.
pub(crate) fn coerced_number(from_number: jitson_core::column::ParseFn) -> ParsedLayout {
    ParsedLayout {
        from_string: Some(from_number),
        from_number: Some(from_number),
        from_bool: None,
        arg: 0,
    }
}

/// # Safety (all functions below)
/// `ptr[..len]` is readable UTF-8; `dst` is room for the column's native type
/// (or a text column for `append_text`); `message` is writable or null.
unsafe fn text<'a>(ptr: *const u8, len: usize) -> &'a str {
    // SAFETY: the backends pass validated text (see above).
    unsafe { core::str::from_utf8_unchecked(core::slice::from_raw_parts(ptr, len)) }
}

fn fail(message: *mut Option<Box<str>>, text: impl FnOnce() -> String) -> bool {
    if !message.is_null() {
        // SAFETY: a non-null `message` is writable (the `ParseFn` contract).
        unsafe { *message = Some(text().into_boxed_str()) };
    }
    false
}

unsafe extern "C" fn append_text(
    dst: *mut u8,
    ptr: *const u8,
    len: usize,
    _: u64,
    _: *mut Option<Box<str>>,
) -> bool {
    // SAFETY: `dst` is a text column with room for a row (the column kind
    // reserved it); the text is readable.
    unsafe { column_append_text(dst, ptr, len) };
    true
}

/// Writes a native value of type `T` parsed by `parse`.
unsafe fn write_parsed<T>(
    dst: *mut u8,
    ptr: *const u8,
    len: usize,
    message: *mut Option<Box<str>>,
    what: &str,
    parse: impl FnOnce(&str) -> Option<T>,
) -> bool {
    // SAFETY: the `ParseFn` contract.
    let s = unsafe { text(ptr, len) };
    match parse(s) {
        Some(v) => {
            // SAFETY: `dst` is room for a `T` (column slots are 16-byte aligned
            // and `width` apart, width = size_of::<T>()).
            unsafe { dst.cast::<T>().write_unaligned(v) };
            true
        }
        None => fail(message, || format!("invalid {what}: {s:?}")),
    }
}

/// Defines [`ParseFn`](jitson_core::column::ParseFn)s of one shape: `text`
/// (the value's text) and `arg` (the layout's argument) go to the expression,
/// whose `Some` is written to the slot and whose `None` is reported as an
/// invalid `what`.
macro_rules! parse_fns {
    ($($(#[$doc:meta])* $name:ident($text:ident, $arg:ident) $what:literal => $parse:expr;)*) => {$(
        $(#[$doc])*
        pub(crate) unsafe extern "C" fn $name(
            dst: *mut u8,
            ptr: *const u8,
            len: usize,
            $arg: u64,
            message: *mut Option<Box<str>>,
        ) -> bool {
            let _ = $arg;
            // SAFETY: forwarded (the `ParseFn` contract).
            unsafe { write_parsed(dst, ptr, len, message, $what, |$text| $parse) }
        }
    )*};
}

parse_fns! {
    parse_i8(s, arg) "i8" => s.parse::<i8>().ok();
    parse_i16(s, arg) "i16" => s.parse::<i16>().ok();
    parse_i32(s, arg) "i32" => s.parse::<i32>().ok();
    parse_i64(s, arg) "i64" => s.parse::<i64>().ok();
    parse_u8(s, arg) "u8" => s.parse::<u8>().ok();
    parse_u16(s, arg) "u16" => s.parse::<u16>().ok();
    parse_u32(s, arg) "u32" => s.parse::<u32>().ok();
    parse_u64(s, arg) "u64" => s.parse::<u64>().ok();
    parse_f32(s, arg) "f32" => s.parse::<f32>().ok();
    parse_f64(s, arg) "f64" => s.parse::<f64>().ok();
    /// Rounded to f32, then to f16, as arrow-json does.
    float16(s, arg) "f16" => s.parse::<f32>().ok().map(half::f16::from_f32);
    /// `arg`: see [`decimal_arg`].
    decimal128(s, arg) "decimal" => parse_decimal(s, (arg >> 8) as u8, arg as u8 as i8);
    /// `arg`: see [`timestamp_layout`].
    timestamp_from_string(s, arg) "timestamp" => {
        let (secs, nanos) = parse_timestamp(s, (arg >> 32) as u32 as i32)?;
        timestamp_in_unit(secs, nanos, arg & 0xffff_ffff)
    };
    date32_from_string(s, arg) "date" => {
        let b = s.as_bytes();
        if b.len() != 10 {
            return None;
        }
        i32::try_from(parse_date(b)?.0).ok()
    };
}

/// The exact value of decimal text (`-12.345`, `1e3`) at `scale`, if it has at
/// most `precision` digits there and loses no digit.
pub(crate) fn parse_decimal(s: &str, precision: u8, scale: i8) -> Option<i128> {
    let (negative, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i32>().ok()?),
        None => (s, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut digits: i128 = 0;
    for b in int.bytes().chain(frac.bytes()) {
        if !b.is_ascii_digit() {
            return None;
        }
        digits = digits.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
    }
    // value = digits * 10^(exponent - frac.len()); stored = value * 10^scale.
    let shift = i64::from(exponent) - frac.len() as i64 + i64::from(scale);
    let mut value = digits;
    if shift >= 0 {
        for _ in 0..shift {
            value = value.checked_mul(10)?;
        }
    } else {
        for _ in 0..(-shift) {
            if value % 10 != 0 {
                return None;
            }
            value /= 10;
        }
    }
    if value.unsigned_abs() >= 10u128.checked_pow(u32::from(precision))? {
        return None;
    }
    Some(if negative { -value } else { value })
}

/// Days since 1970-01-01 of the proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`, public domain algorithm).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn digits(b: &[u8]) -> Option<u32> {
    b.iter().try_fold(0u32, |acc, &c| {
        c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
    })
}

/// `YYYY-MM-DD` at the start of `b`: (days since the epoch, bytes read).
fn parse_date(b: &[u8]) -> Option<(i64, usize)> {
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year = digits(&b[..4])?;
    let month = digits(&b[5..7])?;
    let day = digits(&b[8..10])?;
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&month) || day == 0 || day > month_days[month as usize - 1] {
        return None;
    }
    Some((days_from_civil(i64::from(year), month, day), 10))
}

/// RFC 3339 and its common relaxations (as arrow's `string_to_datetime` reads
/// them): `YYYY-MM-DD`, then optionally `T` or a space, `HH:MM[:SS[.fraction]]`,
/// and `Z`, `±HH:MM`, `±HHMM` or nothing (a local time, `naive_offset` seconds
/// east of UTC: the column's fixed-offset time zone, 0 without one). Seconds
/// since the epoch and the nanoseconds past them (`0..1_000_000_000`); digits
/// past the ninth are read and dropped. In `i64` throughout: no 128-bit
/// arithmetic on this per-value path.
pub(crate) fn parse_timestamp(s: &str, naive_offset: i32) -> Option<(i64, u32)> {
    let b = s.as_bytes();
    let (days, mut i) = parse_date(b)?;
    let mut secs = days * 86_400 - i64::from(naive_offset);
    let mut nanos = 0u32;
    if i < b.len() {
        if b[i] != b'T' && b[i] != b't' && b[i] != b' ' {
            return None;
        }
        i += 1;
        let hour = digits(b.get(i..i + 2)?)?;
        if b.get(i + 2) != Some(&b':') {
            return None;
        }
        let minute = digits(b.get(i + 3..i + 5)?)?;
        i += 5;
        let mut second = 0;
        if b.get(i) == Some(&b':') {
            second = digits(b.get(i + 1..i + 3)?)?;
            i += 3;
        }
        if hour > 23 || minute > 59 || second > 60 {
            return None;
        }
        secs += i64::from(hour * 3600 + minute * 60 + second);
        if b.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
                if i - start < 9 {
                    nanos = nanos * 10 + u32::from(c - b'0');
                }
                i += 1;
            }
            if i == start {
                return None;
            }
            for _ in (i - start).min(9)..9 {
                nanos *= 10;
            }
        }
        match b.get(i) {
            None => {}
            Some(b'Z' | b'z') if i + 1 == b.len() => secs += i64::from(naive_offset),
            Some(&sign @ (b'+' | b'-')) => {
                let rest = &b[i + 1..];
                let (h, m) = match rest.len() {
                    5 if rest[2] == b':' => (digits(&rest[..2])?, digits(&rest[3..])?),
                    4 => (digits(&rest[..2])?, digits(&rest[2..])?),
                    2 => (digits(rest)?, 0),
                    _ => return None,
                };
                let offset = i64::from(h * 3600 + m * 60);
                // The text names its own offset: the column's does not apply.
                secs += i64::from(naive_offset);
                secs = if sign == b'+' {
                    secs - offset
                } else {
                    secs + offset
                };
            }
            _ => return None,
        }
    }
    Some((secs, nanos))
}

/// A timestamp in the unit of `nanos_per_unit` (1, 1e3, 1e6 or 1e9), rounded
/// towards negative infinity as arrow does; `None` when it overflows `i64`.
pub(crate) fn timestamp_in_unit(secs: i64, nanos: u32, nanos_per_unit: u64) -> Option<i64> {
    let units_per_sec = (1_000_000_000 / nanos_per_unit) as i64;
    secs.checked_mul(units_per_sec)?
        .checked_add(i64::from(nanos) / nanos_per_unit as i64)
}

/// Nanoseconds since the epoch (tests).
#[cfg(test)]
fn parse_timestamp_nanos(s: &str) -> Option<i128> {
    parse_timestamp(s, 0).map(|(secs, nanos)| i128::from(secs) * 1_000_000_000 + i128::from(nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(parse_timestamp_nanos("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_timestamp_nanos("1970-01-02"),
            Some(86_400_000_000_000)
        );
        assert_eq!(
            parse_timestamp_nanos("2024-02-29T12:34:56.789+01:00"),
            Some(1_709_206_496_789_000_000)
        );
        assert_eq!(
            parse_timestamp_nanos("1969-12-31 23:59:59.5"),
            Some(-500_000_000)
        );
        assert_eq!(parse_timestamp_nanos("2023-02-29"), None);
        assert_eq!(parse_timestamp_nanos("2024-01-01T25:00:00"), None);
        assert_eq!(parse_timestamp_nanos("2024-01-01T00:00:00Q"), None);
        // Units round towards negative infinity; overflow is refused.
        let (secs, nanos) = parse_timestamp("1969-12-31T23:59:59.9995Z", 0).unwrap();
        assert_eq!(timestamp_in_unit(secs, nanos, 1_000_000), Some(-1));
        assert_eq!(timestamp_in_unit(secs, nanos, 1_000_000_000), Some(-1));
        let (secs, nanos) = parse_timestamp("9999-12-31T23:59:59Z", 0).unwrap();
        assert_eq!(timestamp_in_unit(secs, nanos, 1), None);
        assert!(timestamp_in_unit(secs, nanos, 1_000).is_some());
    }

    #[test]
    fn decimals() {
        assert_eq!(parse_decimal("12.345", 10, 3), Some(12345));
        assert_eq!(parse_decimal("-1.5", 10, 3), Some(-1500));
        assert_eq!(parse_decimal("1e2", 10, 0), Some(100));
        assert_eq!(
            parse_decimal("1.2345", 10, 3),
            None,
            "a digit would be lost"
        );
        assert_eq!(parse_decimal("123456", 5, 0), None, "over precision");
        assert_eq!(parse_decimal("1.", 5, 0), Some(1));
        assert_eq!(parse_decimal("x", 5, 0), None);
    }
}
