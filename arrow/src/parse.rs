//! Scalars parsed from their text ([`ParsedLayout`] functions): timestamps, dates,
//! decimals, half floats, and arrow-json's coercions into text columns.
//!
//! Every function has the [`ParseFn`](jitson_core::column::ParseFn) signature and
//! never unwinds: it writes `dst` and returns `true`, or sets `*message`.

use arrow_array::types::{
    Date64Type, Decimal32Type, Decimal64Type, Decimal128Type, Decimal256Type, DurationSecondType,
    Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType,
};
use arrow_buffer::i256;
use arrow_cast::parse::Parser;
use jitson_core::column::{ParseFn, ParsedLayout, column_append_text};

/// A timestamp parser: `arg` holds the nanoseconds per unit (low 32 bits) and
/// the column's time zone offset in seconds east of UTC (high 32 bits, as
/// `i32`), which applies to text without an offset of its own.
pub(crate) const fn timestamp_layout(nanos_per_unit: u64, offset: i32) -> ParsedLayout {
    ParsedLayout {
        from_string: Some(timestamp_from_string),
        from_number: Some(parse_i64),
        from_bool: None,
        arg: nanos_per_unit | ((offset as u32 as u64) << 32),
        number_messages: false,
        format: None,
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
    number_messages: false,
    format: None,
};

/// Float16: a JSON number, rounded to f32 and then to f16 (as arrow-json does).
pub(crate) static FLOAT16: ParsedLayout = ParsedLayout {
    from_string: None,
    from_number: Some(float16),
    from_bool: None,
    arg: 0,
    number_messages: false,
    format: None,
};

/// Text columns with `with_coerce_primitive(true)`: numbers and booleans are
/// stored as their JSON text.
pub(crate) static COERCED_TEXT: ParsedLayout = ParsedLayout {
    from_string: Some(append_text),
    from_number: Some(append_text),
    from_bool: Some(append_text),
    arg: 0,
    number_messages: false,
    format: None,
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
    number_messages: false,
    format: None,
};

/// Integer parsers for a column with `with_coerce_primitive(true)`: a string is
/// parsed as the number it holds (`"42"`), as arrow-json always does.
pub(crate) fn coerced_number(from_number: jitson_core::column::ParseFn) -> ParsedLayout {
    ParsedLayout {
        from_string: Some(from_number),
        from_number: Some(from_number),
        from_bool: None,
        arg: 0,
        number_messages: false,
        format: None,
    }
}

/// arrow-json's second reading of an integer column's value (the column's
/// `lenient` layout): a number that is not an integer of the type is read as
/// an `f64` and truncated towards zero when that fits (`1.5` is 1, `1e3` is
/// 1000), and a string holding an integer (`"42"`, `" 42 "`) is that integer.
pub(crate) const fn lenient_integer(from_string: ParseFn, from_number: ParseFn) -> ParsedLayout {
    ParsedLayout {
        from_string: Some(from_string),
        from_number: Some(from_number),
        from_bool: None,
        arg: 0,
        number_messages: false,
        format: None,
    }
}

/// arrow-json's second reading of a float column's value: a number out of the
/// type's range is an infinity, and a string is read as a number
/// (`"1.5"`, `"NaN"`, `"inf"`, `" 2 "`), by lexical, arrow's own parser.
pub(crate) static LENIENT_F32: ParsedLayout = ParsedLayout {
    from_string: Some(f32_from_text),
    from_number: Some(f32_from_number),
    from_bool: None,
    arg: 0,
    number_messages: false,
    format: None,
};

/// As [`LENIENT_F32`], in `f64`.
pub(crate) static LENIENT_F64: ParsedLayout = ParsedLayout {
    from_string: Some(f64_from_text),
    from_number: Some(f64_from_number),
    from_bool: None,
    arg: 0,
    number_messages: false,
    format: None,
};

/// Float16 as arrow-json reads it: numbers, and strings holding numbers,
/// rounded to f32, then to f16.
pub(crate) static LENIENT_FLOAT16: ParsedLayout = ParsedLayout {
    from_string: Some(f16_from_text),
    from_number: Some(f16_from_number),
    from_bool: None,
    arg: 0,
    number_messages: false,
    format: None,
};

/// Date32 as arrow-json reads it: see [`arrow_date32`] for strings; numbers as
/// an `i32` column reads them (days).
pub(crate) static LENIENT_DATE32: ParsedLayout = ParsedLayout {
    from_string: Some(date32_from_arrow_string),
    from_number: Some(i32_from_number),
    from_bool: None,
    arg: 0,
    number_messages: false,
    format: None,
};

/// Decimal32 / Decimal64 / Decimal256 as [`DECIMAL`] (exact), into their widths.
pub(crate) const DECIMAL32: ParsedLayout = ParsedLayout {
    from_string: Some(decimal32),
    from_number: Some(decimal32),
    from_bool: None,
    arg: 0,
    number_messages: false,
    format: None,
};
/// See [`DECIMAL32`].
pub(crate) const DECIMAL64: ParsedLayout = ParsedLayout {
    from_string: Some(decimal64),
    from_number: Some(decimal64),
    from_bool: None,
    arg: 0,
    number_messages: false,
    format: None,
};
/// See [`DECIMAL32`].
pub(crate) const DECIMAL256: ParsedLayout = ParsedLayout {
    from_string: Some(decimal256),
    from_number: Some(decimal256),
    from_bool: None,
    arg: 0,
    number_messages: false,
    format: None,
};

/// arrow-json's reading of a decimal column's value, the default second
/// reading of what the exact one refuses: arrow-cast's `parse_decimal`, which
/// drops fraction digits beyond the scale (`1.005` at scale 2 is 1.00) and
/// refuses what does not fit the precision. `arg`: see [`decimal_arg`].
pub(crate) const ARROW_DECIMAL32: ParsedLayout = arrow_decimal_layout(arrow_decimal32);
/// See [`ARROW_DECIMAL32`].
pub(crate) const ARROW_DECIMAL64: ParsedLayout = arrow_decimal_layout(arrow_decimal64);
/// See [`ARROW_DECIMAL32`].
pub(crate) const ARROW_DECIMAL128: ParsedLayout = arrow_decimal_layout(arrow_decimal128);
/// See [`ARROW_DECIMAL32`].
pub(crate) const ARROW_DECIMAL256: ParsedLayout = arrow_decimal_layout(arrow_decimal256);

const fn arrow_decimal_layout(parse: ParseFn) -> ParsedLayout {
    ParsedLayout {
        from_string: Some(parse),
        from_number: Some(parse),
        from_bool: None,
        arg: 0,
        number_messages: false,
        format: None,
    }
}

/// A column of integers counted in a unit (times of day, dates in
/// milliseconds, durations): a string by `from_string` (arrow-cast's reading
/// for the type); a number as an integer column of the width reads it, by
/// arrow-json's rules (`1.5` is 1) or, under strict parsing, as an integer only.
pub(crate) const fn unit_count(from_string: ParseFn, wide: bool, strict: bool) -> ParsedLayout {
    let from_number: ParseFn = match (wide, strict) {
        (false, false) => i32_from_number,
        (false, true) => parse_i32,
        (true, false) => i64_from_number,
        (true, true) => parse_i64,
    };
    ParsedLayout {
        from_string: Some(from_string),
        from_number: Some(from_number),
        from_bool: None,
        arg: 0,
        number_messages: false,
        format: None,
    }
}

/// Binary columns: a string of hexadecimal digits (either case), as arrow-json
/// reads and writes binary; an odd last digit is a byte of its own (`"abc"` is
/// `[0xab, 0x0c]`, arrow-json's reading). `arg` is [`ANY_LENGTH`] or the
/// FixedSizeBinary width in bytes, which the value must have.
pub(crate) const fn binary_layout(width: u64) -> ParsedLayout {
    ParsedLayout {
        from_string: Some(binary_from_hex),
        from_number: None,
        from_bool: None,
        arg: width,
        number_messages: false,
        format: None,
    }
}

/// [`binary_layout`]'s `arg` for Binary, LargeBinary and BinaryView.
pub(crate) const ANY_LENGTH: u64 = u64::MAX;

/// A timestamp parser as arrow-json reads timestamps: strings by
/// [`arrow_timestamp`], numbers as integers in the unit (a non-integer is read
/// as an `f64` and converted with saturation: `1.5` is 1, `1e30` is `i64::MAX`).
/// `arg` as in [`timestamp_layout`].
pub(crate) const fn lenient_timestamp_layout(nanos_per_unit: u64, offset: i32) -> ParsedLayout {
    ParsedLayout {
        from_string: Some(timestamp_from_arrow_string),
        from_number: Some(timestamp_from_number),
        from_bool: None,
        arg: nanos_per_unit | ((offset as u32 as u64) << 32),
        number_messages: false,
        format: None,
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

/// Appends the bytes that hexadecimal text stands for to a binary column (a
/// text column: offsets and bytes), after checking all of it.
unsafe extern "C" fn binary_from_hex(
    dst: *mut u8,
    ptr: *const u8,
    len: usize,
    width: u64,
    message: *mut Option<Box<str>>,
) -> bool {
    // SAFETY: the `ParseFn` contract: the text is readable.
    let hex = unsafe { core::slice::from_raw_parts(ptr, len) };
    if let Some(at) = hex.iter().position(|b| !b.is_ascii_hexdigit()) {
        return fail(message, || {
            format!(
                "invalid hex encoding in binary data: invalid digit 0x{:02x} at position {at}",
                hex[at]
            )
        });
    }
    let bytes = hex.len().div_ceil(2);
    if width != ANY_LENGTH && bytes as u64 != width {
        return fail(message, || {
            format!("binary value of {bytes} bytes in a column of {width}-byte values")
        });
    }
    fn nibble(b: u8) -> u8 {
        // Checked above: `b` is a hexadecimal digit.
        match b {
            b'0'..=b'9' => b - b'0',
            _ => (b | 0x20) - b'a' + 10,
        }
    }
    // SAFETY: `dst` is a text column with room for a row (the column kind
    // reserved it; its bytes are appended here, the row committed by the kind).
    let column = unsafe { &mut *dst.cast::<jitson_core::column::Column>() };
    let mut chunk = [0u8; 64];
    for pairs in hex.chunks(2 * chunk.len()) {
        let n = pairs.len().div_ceil(2);
        for (out, pair) in chunk.iter_mut().zip(pairs.chunks(2)) {
            *out = match *pair {
                [high, low] => (nibble(high) << 4) | nibble(low),
                [low] => nibble(low),
                _ => 0, // `chunks(2)` yields one or two bytes
            };
        }
        if !column.append_text(&chunk[..n]) {
            // As `column_append_text`: 2 GiB in one batch of a 32-bit-offset
            // column cannot be represented; a smaller batch size avoids it.
            std::process::abort();
        }
    }
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

/// Runs one of arrow-cast's parsers: a panic there (none is known) must not
/// unwind into generated code, so it is a refusal here. jitson's own parsers,
/// on the hot paths, need no guard.
fn guarded<T>(parse: impl FnOnce() -> Option<T>) -> Option<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(parse))
        .ok()
        .flatten()
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
    /// arrow-cast's reading of a string in an integer column.
    i8_from_text(s, arg) "i8" => int_from_text::<i8>(s);
    i16_from_text(s, arg) "i16" => int_from_text::<i16>(s);
    i32_from_text(s, arg) "i32" => int_from_text::<i32>(s);
    i64_from_text(s, arg) "i64" => int_from_text::<i64>(s);
    u8_from_text(s, arg) "u8" => int_from_text::<u8>(s);
    u16_from_text(s, arg) "u16" => int_from_text::<u16>(s);
    u32_from_text(s, arg) "u32" => int_from_text::<u32>(s);
    u64_from_text(s, arg) "u64" => int_from_text::<u64>(s);
    /// arrow-json's reading of a number in an integer column.
    i8_from_number(s, arg) "i8" => int_from_number::<i8>(s);
    i16_from_number(s, arg) "i16" => int_from_number::<i16>(s);
    i32_from_number(s, arg) "i32" => int_from_number::<i32>(s);
    i64_from_number(s, arg) "i64" => int_from_number::<i64>(s);
    u8_from_number(s, arg) "u8" => int_from_number::<u8>(s);
    u16_from_number(s, arg) "u16" => int_from_number::<u16>(s);
    u32_from_number(s, arg) "u32" => int_from_number::<u32>(s);
    u64_from_number(s, arg) "u64" => int_from_number::<u64>(s);
    f32_from_text(s, arg) "f32" => lexical_text::<f32>(s);
    f64_from_text(s, arg) "f64" => lexical_text::<f64>(s);
    f32_from_number(s, arg) "f32" => lexical_core::parse::<f32>(s.as_bytes()).ok();
    f64_from_number(s, arg) "f64" => lexical_core::parse::<f64>(s.as_bytes()).ok();
    f16_from_text(s, arg) "f16" => lexical_text::<f32>(s).map(half::f16::from_f32);
    f16_from_number(s, arg) "f16" => {
        lexical_core::parse::<f32>(s.as_bytes()).ok().map(half::f16::from_f32)
    };
    /// `arg`: see [`timestamp_layout`].
    timestamp_from_arrow_string(s, arg) "timestamp" => {
        let (secs, nanos) = arrow_timestamp(s, (arg >> 32) as u32 as i32)?;
        arrow_timestamp_in_unit(secs, nanos, arg & 0xffff_ffff)
    };
    /// An integer in the unit; other numbers through `f64`, saturating.
    timestamp_from_number(s, arg) "timestamp" => {
        s.parse::<i64>().ok().or_else(|| s.parse::<f64>().ok().map(|f| f as i64))
    };
    /// `arg`: see [`decimal_arg`] (precision at most 9).
    decimal32(s, arg) "decimal" => {
        i32::try_from(parse_decimal(s, (arg >> 8) as u8, arg as u8 as i8)?).ok()
    };
    /// `arg`: see [`decimal_arg`] (precision at most 18).
    decimal64(s, arg) "decimal" => {
        i64::try_from(parse_decimal(s, (arg >> 8) as u8, arg as u8 as i8)?).ok()
    };
    /// `arg`: see [`decimal_arg`].
    decimal256(s, arg) "decimal" => parse_decimal256(s, (arg >> 8) as u8, arg as u8 as i8);
    /// `arg`: see [`decimal_arg`].
    arrow_decimal32(s, arg) "decimal" => {
        let (precision, scale) = ((arg >> 8) as u8, arg as u8 as i8);
        guarded(|| arrow_cast::parse::parse_decimal::<Decimal32Type>(s, precision, scale).ok())
    };
    arrow_decimal64(s, arg) "decimal" => {
        let (precision, scale) = ((arg >> 8) as u8, arg as u8 as i8);
        guarded(|| arrow_cast::parse::parse_decimal::<Decimal64Type>(s, precision, scale).ok())
    };
    arrow_decimal128(s, arg) "decimal" => {
        let (precision, scale) = ((arg >> 8) as u8, arg as u8 as i8);
        guarded(|| arrow_cast::parse::parse_decimal::<Decimal128Type>(s, precision, scale).ok())
    };
    arrow_decimal256(s, arg) "decimal" => {
        let (precision, scale) = ((arg >> 8) as u8, arg as u8 as i8);
        guarded(|| arrow_cast::parse::parse_decimal::<Decimal256Type>(s, precision, scale).ok())
    };
    /// arrow-cast's readings of strings in temporal columns (`"12:30:05.25"`,
    /// `"2001-02-03"`, `"2001-02-03T04:05:06Z"`; a time may also be a count in
    /// its unit, `"45000"`), the ones arrow-json uses.
    time32s_from_text(s, arg) "time" => guarded(|| Time32SecondType::parse(s));
    time32ms_from_text(s, arg) "time" => guarded(|| Time32MillisecondType::parse(s));
    time64us_from_text(s, arg) "time" => guarded(|| Time64MicrosecondType::parse(s));
    time64ns_from_text(s, arg) "time" => guarded(|| Time64NanosecondType::parse(s));
    date64_from_text(s, arg) "date" => guarded(|| Date64Type::parse(s));
    /// A duration's string: an integer count of its unit (arrow-cast's reading
    /// of integers, ASCII whitespace around it ignored).
    duration_from_text(s, arg) "duration" => guarded(|| DurationSecondType::parse(s));
    date32_from_arrow_string(s, arg) "date" => arrow_date32(s);
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
    parse_exact_decimal(s, precision, scale)
}

/// [`parse_decimal`] for Decimal256 (up to 76 digits).
pub(crate) fn parse_decimal256(s: &str, precision: u8, scale: i8) -> Option<i256> {
    parse_exact_decimal(s, precision, scale)
}

/// The integer types decimals are parsed into: what [`parse_exact_decimal`]
/// needs of them, each step checked.
trait DecimalValue: Copy + PartialOrd {
    const ZERO: Self;
    fn times_ten_plus(self, digit: u8) -> Option<Self>;
    /// `self / 10` when `self` is a multiple of ten.
    fn exact_tenth(self) -> Option<Self>;
    fn ten_to(exponent: u32) -> Option<Self>;
    fn negate(self) -> Self;
}

impl DecimalValue for i128 {
    const ZERO: i128 = 0;
    fn times_ten_plus(self, digit: u8) -> Option<i128> {
        self.checked_mul(10)?.checked_add(i128::from(digit))
    }
    fn exact_tenth(self) -> Option<i128> {
        (self % 10 == 0).then_some(self / 10)
    }
    fn ten_to(exponent: u32) -> Option<i128> {
        10i128.checked_pow(exponent)
    }
    fn negate(self) -> i128 {
        -self
    }
}

impl DecimalValue for i256 {
    const ZERO: i256 = i256::ZERO;
    fn times_ten_plus(self, digit: u8) -> Option<i256> {
        self.checked_mul(i256::from_i128(10))?
            .checked_add(i256::from_i128(i128::from(digit)))
    }
    fn exact_tenth(self) -> Option<i256> {
        let ten = i256::from_i128(10);
        (self.checked_rem(ten)? == i256::ZERO).then(|| self.wrapping_div(ten))
    }
    fn ten_to(exponent: u32) -> Option<i256> {
        i256::from_i128(10).checked_pow(exponent)
    }
    fn negate(self) -> i256 {
        self.wrapping_neg()
    }
}

fn parse_exact_decimal<T: DecimalValue>(s: &str, precision: u8, scale: i8) -> Option<T> {
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
    let mut digits = T::ZERO;
    for b in int.bytes().chain(frac.bytes()) {
        if !b.is_ascii_digit() {
            return None;
        }
        digits = digits.times_ten_plus(b - b'0')?;
    }
    // value = digits * 10^(exponent - frac.len()); stored = value * 10^scale.
    let shift = i64::from(exponent) - frac.len() as i64 + i64::from(scale);
    let mut value = digits;
    if shift >= 0 {
        for _ in 0..shift {
            value = value.times_ten_plus(0)?;
        }
    } else {
        for _ in 0..(-shift) {
            value = value.exact_tenth()?;
        }
    }
    if value >= T::ten_to(u32::from(precision))? {
        return None;
    }
    Some(if negative { value.negate() } else { value })
}

/// An integer column's string as arrow-cast reads it: ASCII whitespace around
/// it ignored, an optional sign, decimal digits, in range; `-0` (any number of
/// zeros) is 0 in unsigned types too.
fn int_from_text<T: core::str::FromStr>(s: &str) -> Option<T> {
    let t = s.trim_ascii();
    if let Ok(v) = t.parse::<T>() {
        return Some(v);
    }
    let zeros = t.strip_prefix('-')?;
    if zeros.is_empty() || zeros.bytes().any(|b| b != b'0') {
        return None;
    }
    "0".parse().ok()
}

/// An integer column's number as arrow-json reads it: the integer if the text
/// is one in range, otherwise its `f64` value truncated towards zero, if that
/// is in range (`1.5` is 1, `-0.5` is 0, `1e3` is 1000, `300` is refused by
/// `i8`).
fn int_from_number<T: core::str::FromStr + TryFrom<i128>>(s: &str) -> Option<T> {
    if let Ok(v) = s.parse::<T>() {
        return Some(v);
    }
    let t = s.parse::<f64>().ok()?.trunc();
    // 2^127: beyond every integer type's range (NaN fails the test too).
    const LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;
    if !(-LIMIT..LIMIT).contains(&t) {
        return None;
    }
    T::try_from(t as i128).ok()
}

/// A float column's string as arrow-cast reads it (lexical's grammar:
/// `1.5`, `1e3`, `.5`, `NaN`, `inf`, `Infinity`, …), ASCII whitespace around it
/// ignored.
fn lexical_text<T: lexical_core::FromLexical>(s: &str) -> Option<T> {
    lexical_core::parse::<T>(s.as_bytes())
        .or_else(|_| lexical_core::parse::<T>(s.trim_ascii().as_bytes()))
        .ok()
}

/// Days since 1970-01-01 of the proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`, public domain algorithm). Years from 0 on, those of
/// every timestamp string, take unsigned arithmetic, one 400-year era
/// (146,097 days) later so that January and February of year 0 stay
/// positive; earlier years (a Date32 string's `-0012`) take floored
/// division.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    // Years that begin in March: January and February count with the year
    // before, and the day of that year is a formula of the month.
    let m = u64::from(if month > 2 { month - 3 } else { month + 9 });
    let doy = (153 * m + 2) / 5 + u64::from(day) - 1;
    let y = if month <= 2 { year - 1 } else { year };
    if let Ok(y) = u64::try_from(y + 400) {
        let days = y * 365 + y / 4 - y / 100 + y / 400 + doy;
        return days as i64 - (719_468 + 146_097);
    }
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy as i64;
    era * 146_097 + doe - 719_468
}

fn digits(b: &[u8]) -> Option<u32> {
    b.iter().try_fold(0u32, |acc, &c| {
        c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
    })
}

/// `YYYY-MM-DD`: year, month and day, if they are digits and a date of the
/// proleptic Gregorian calendar. Read in place: this runs once per timestamp
/// of a column.
fn year_month_day(b: &[u8; 10]) -> Option<(u32, u32, u32)> {
    let &[y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1] = b else {
        return None;
    };
    let digits = [y0, y1, y2, y3, m0, m1, d0, d1];
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let d = |c: u8| u32::from(c - b'0');
    let year = d(y0) * 1000 + d(y1) * 100 + d(y2) * 10 + d(y3);
    let (month, day) = (d(m0) * 10 + d(m1), d(d0) * 10 + d(d1));
    valid_date(i64::from(year), month, day).then_some((year, month, day))
}

/// `YYYY-MM-DD` at the start of `b`: (days since the epoch, bytes read).
fn parse_date(b: &[u8]) -> Option<(i64, usize)> {
    let (year, month, day) = year_month_day(b.first_chunk()?)?;
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

/// Whether `(year, month, day)` is a date of the proleptic Gregorian calendar.
fn valid_date(year: i64, month: u32, day: u32) -> bool {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// A fixed offset after a timestamp, as arrow reads a time zone without its
/// `chrono-tz` feature: `±HH:MM`, `±HHMM` or `±HH` (minutes up to 99), less
/// than a day; seconds east of UTC.
fn arrow_fixed_offset(tz: &str) -> Option<i64> {
    let b = tz.as_bytes();
    let (h, m) = match b.len() {
        6 if b[3] == b':' => (digits(&b[1..3])?, digits(&b[4..6])?),
        5 => (digits(&b[1..3])?, digits(&b[3..5])?),
        3 => (digits(&b[1..3])?, 0),
        _ => return None,
    };
    let secs = i64::from(h * 3600 + m * 60);
    if secs >= 86_400 {
        return None;
    }
    match b[0] {
        b'+' => Some(secs),
        b'-' => Some(-secs),
        _ => None,
    }
}

/// A timestamp string as arrow-json reads it (arrow-cast's `string_to_datetime`
/// with the column's zone): `YYYY-MM-DD`, alone (midnight) or followed by `T`,
/// `t` or a space and `HH:MM:SS` (with an optional `.` and 1 or more fraction
/// digits, the first 9 read) or `HHMMSS`; then nothing (a local time in the
/// column's zone, `naive_offset` seconds east of UTC), `Z`/`z`, or a fixed
/// offset, optionally after whitespace (`+HH:MM`, `+HHMM`, `+HH`). Second 60 is
/// a leap second: second 59 with the nanoseconds past 10^9. Hours and minutes
/// without seconds (`10:20`) are refused, as arrow refuses them.
///
/// Seconds since the epoch and nanoseconds past them (`0..2_000_000_000`).
pub(crate) fn arrow_timestamp(s: &str, naive_offset: i32) -> Option<(i64, u32)> {
    let b = s.as_bytes();
    let (year, month, day) = year_month_day(b.first_chunk()?)?;
    let local = days_from_civil(i64::from(year), month, day) * 86_400;
    let naive_offset = i64::from(naive_offset);
    if b.len() == 10 {
        return Some((local - naive_offset, 0));
    }
    if !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let two = |i: usize| u32::from(b[i] - b'0') * 10 + u32::from(b[i + 1] - b'0');
    let (hour, minute, mut second, mut nanos, mut end);
    if let Some(&[h0, h1, b':', m0, m1, b':', s0, s1]) = b.get(11..19)
        && [h0, h1, m0, m1, s0, s1].iter().all(u8::is_ascii_digit)
    {
        (hour, minute, second) = (two(11), two(14), two(17));
        nanos = 0;
        end = 19;
        if b.get(19) == Some(&b'.') {
            // arrow reads the digits in its window of 32 bytes, the first
            // nine of them, and then reads past any more: every digit of
            // the run is read, the first nine count.
            end = 20;
            while let Some(d) = b.get(end).map(|c| c.wrapping_sub(b'0')).filter(|&d| d < 10) {
                if end < 29 {
                    nanos = nanos * 10 + u32::from(d);
                }
                end += 1;
            }
            if end == 20 {
                return None;
            }
            nanos *= 10u32.pow(29usize.saturating_sub(end) as u32);
        }
    } else if (11..17).all(digit) && !digit(17) && !digit(18) {
        (hour, minute, second) = (two(11), two(13), two(15));
        nanos = 0;
        end = 17;
    } else {
        return None;
    }
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    if second == 60 {
        second = 59;
        nanos += 1_000_000_000;
    }
    let local = local + i64::from(hour * 3600 + minute * 60 + second);
    if end >= b.len() {
        return Some((local - naive_offset, nanos));
    }
    if matches!(b[end], b'Z' | b'z') && end + 1 == b.len() {
        return Some((local, nanos));
    }
    let offset = arrow_fixed_offset(s.get(end..)?.trim_start())?;
    Some((local - offset, nanos))
}

/// [`arrow_timestamp`]'s value in the unit of `nanos_per_unit`, as chrono's
/// `timestamp` (seconds: the leap second's nanoseconds are dropped),
/// `timestamp_millis`, `timestamp_micros` and `timestamp_nanos_opt` give it;
/// `None` when it overflows `i64`.
pub(crate) fn arrow_timestamp_in_unit(secs: i64, nanos: u32, nanos_per_unit: u64) -> Option<i64> {
    match nanos_per_unit {
        1_000_000_000 => Some(secs),
        // As chrono: a negative second count is taken one second up, so that
        // the earliest nanosecond timestamps do not overflow on the way.
        1 if secs < 0 => (secs + 1)
            .checked_mul(1_000_000_000)?
            .checked_add(i64::from(nanos) - 1_000_000_000),
        _ => secs
            .checked_mul((1_000_000_000 / nanos_per_unit) as i64)?
            .checked_add(i64::from(nanos) / nanos_per_unit as i64),
    }
}

/// A Date32 string as arrow-json reads it (arrow-cast's `Date32Type::parse`):
/// - `±YYYY…-M…-D…` (a sign, then a year of 4 or more digits): any `i32` year,
///   month and day as decimal numbers (`+10999-12-31`, `-0012-5-06`);
/// - longer than 10 bytes: a timestamp ([`arrow_timestamp`], UTC), its UTC date
///   (`2001-02-03T04:05:06Z`, `2001-02-03 00:00:00`);
/// - `YYYYMMDD`;
/// - `YYYY-MM-DD`, `YYYY-MM-D`, `YYYY-M-DD`, `YYYY-M-D` (arrow reads only the
///   first 10 bytes' digits: a shorter form may be followed by non-digits up to
///   10 bytes, `2001-02-3x`).
pub(crate) fn arrow_date32(s: &str) -> Option<i32> {
    let b = s.as_bytes();
    if let Some(b'+' | b'-') = b.first() {
        let hyphen = s[1..].find('-')?;
        if hyphen < 4 {
            return None;
        }
        let year: i32 = s[..hyphen + 1].parse().ok()?;
        let mut rest = s[hyphen + 1..].strip_prefix('-')?.splitn(2, '-');
        let month: u32 = rest.next()?.parse().ok()?;
        let day: u32 = rest.next()?.parse().ok()?;
        if !valid_date(i64::from(year), month, day) {
            return None;
        }
        return i32::try_from(days_from_civil(i64::from(year), month, day)).ok();
    }
    if b.len() > 10 {
        let (secs, _) = arrow_timestamp(s, 0)?;
        return i32::try_from(secs.div_euclid(86_400)).ok();
    }
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let num = |range: core::ops::Range<usize>| digits(b.get(range)?);
    let year = num(0..4)?;
    let (month, day) = if b.get(4) != Some(&b'-') {
        if b.len() != 8 {
            return None;
        }
        (num(4..6)?, num(6..8)?)
    } else {
        // Which of positions 5..=9 hold digits (4 holds `-`).
        let shape: [bool; 5] = core::array::from_fn(|i| digit(5 + i));
        match shape {
            [true, true, false, true, true] if b[7] == b'-' => (num(5..7)?, num(8..10)?),
            [true, true, false, true, false] if b[7] == b'-' => (num(5..7)?, num(8..9)?),
            [true, false, true, true, false] if b[6] == b'-' => (num(5..6)?, num(7..9)?),
            [true, false, true, false, false] if b[6] == b'-' => (num(5..6)?, num(7..8)?),
            _ => return None,
        }
    };
    if !valid_date(i64::from(year), month, day) {
        return None;
    }
    i32::try_from(days_from_civil(i64::from(year), month, day)).ok()
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

    /// `arrow_timestamp` against arrow-cast's own reading (what arrow-json
    /// calls), in UTC and in a fixed-offset zone, on timestamps of every form
    /// it reads and on each of them cut at every length, with each byte
    /// replaced by one of the grammar's bytes or a stray one, deleted, or
    /// doubled. Values arrow cannot hold in `i64` nanoseconds (year 0, year
    /// 9999) must be out of that range here too.
    #[test]
    fn timestamps_read_as_arrow_cast_reads_them() {
        use arrow_array::timezone::Tz;
        let bases = [
            "2024-01-01T00:00:00.010Z",
            "2024-02-29 23:59:60.123456789+05:30",
            "1969-12-31t23:59:59.999999999999-0800",
            "2000-02-29T12:34:56",
            "1900-03-01T00:00:00.5 +01",
            "2001-02-03T040506Z",
            "2001-02-03T040506.25",
            "2001-12-31",
            "1600-01-01T00:00:00Z",
            "2262-04-11T23:47:16.854775807Z",
            "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:59.9Z",
        ];
        let mut inputs: Vec<String> = Vec::new();
        for base in bases {
            let b = base.as_bytes();
            for end in 0..=b.len() {
                inputs.push(base[..end].to_owned());
            }
            for i in 0..b.len() {
                for &c in b"0123456789-:.TtZz+ _x\xff" {
                    let mut m = b.to_vec();
                    m[i] = c;
                    inputs.extend(String::from_utf8(m).ok());
                }
                let mut m = b.to_vec();
                m.remove(i);
                inputs.extend(String::from_utf8(m).ok());
                let mut m = b.to_vec();
                m.insert(i, b[i]);
                inputs.extend(String::from_utf8(m).ok());
            }
        }
        let plus_two: Tz = "+02:00".parse().unwrap();
        let nanos_of =
            |(secs, nanos): (i64, u32)| i128::from(secs) * 1_000_000_000 + i128::from(nanos);
        let mut compared = 0;
        for input in &inputs {
            for (offset, arrow) in [
                (0, arrow_cast::parse::string_to_timestamp_nanos(input).ok()),
                (
                    7_200,
                    arrow_cast::parse::string_to_datetime(&plus_two, input)
                        .ok()
                        .and_then(|t| t.timestamp_nanos_opt()),
                ),
            ] {
                let ours = arrow_timestamp(input, offset).map(nanos_of);
                match (ours, arrow) {
                    (Some(ours), None) => assert!(
                        i64::try_from(ours).is_err(),
                        "{input:?} (offset {offset}): read as {ours}, refused by arrow"
                    ),
                    (ours, Some(arrow)) => {
                        assert_eq!(ours, Some(i128::from(arrow)), "{input:?} (offset {offset})");
                        compared += 1;
                    }
                    (None, None) => {}
                }
            }
        }
        assert!(compared > 1_000, "only {compared} values compared");
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
