//! time's types (feature `time`, time 0.3), as time's serde impls have
//! serde_json read and write them.
//!
//! # Which of time's serde forms
//!
//! time's impls for its own types depend on time's cargo features, which
//! jitson cannot see: with `serde` alone (and with `serde-well-known`, which
//! adds only the `with` modules below) they write tuples of integers
//! (`Date` as `[year, ordinal]`) and read only arrays; with
//! `serde-human-readable` they write text in time's own formats and read text
//! (and arrays still). A probe at first use (`human_readable`: how
//! serde_json writes `Date::MIN` in this build) decides: with text, the types
//! are jitson's own layouts below; with tuples, they go through time's serde
//! impl ([`ProbedForm`](super::ProbedForm)). jitson's feature changes nothing
//! of time's.
//!
//! | type | JSON | read by | written as |
//! |---|---|---|---|
//! | `Date` | string | `YYYY-MM-DD` fast, else time's impl | `YYYY-MM-DD` |
//! | `Time` | string | `HH:MM:SS.f` fast, else time's impl | `HH:MM:SS.f` (one to nine fraction digits, no trailing zeros but one) |
//! | `PrimitiveDateTime` | string | `YYYY-MM-DD HH:MM:SS.f` fast, else time's impl | the same |
//! | `OffsetDateTime` | string | `YYYY-MM-DD HH:MM:SS.f ±HH:MM:SS` fast, else time's impl | the same |
//! | `UtcOffset` | string | `±HH:MM:SS` fast, else time's impl | the same |
//!
//! The `with` modules, for `OffsetDateTime` and `Option<OffsetDateTime>`
//! (their `option` twins), whatever time's features:
//!
//! | module | JSON | read by | written as |
//! |---|---|---|---|
//! | `time::serde::rfc3339` | string | strict RFC 3339 fast, else `OffsetDateTime::parse(_, &Rfc3339)` | time's RFC 3339 (`Z` for UTC, fraction only when not zero) |
//! | `time::serde::iso8601` | string | `OffsetDateTime::parse` with serde's ISO 8601 config | `format` with it |
//! | `time::serde::timestamp` | integer (i64) | `from_unix_timestamp` | `unix_timestamp()` |
//! | `time::serde::timestamp::milliseconds` | integer (i128) | `from_unix_timestamp_nanos(ms * 10⁶)` | `unix_timestamp_nanos() / 10⁶` |
//! | `time::serde::timestamp::milliseconds_i64` | integer (i64) | the same | the same, as i64 |
//! | `time::serde::timestamp::microseconds` | integer (i128) | `… * 10³` | `… / 10³` |
//! | `time::serde::timestamp::nanoseconds` | integer (i128) | `from_unix_timestamp_nanos` | `unix_timestamp_nanos()` |
//!
//! Each module's form is a `#[repr(transparent)]` wrapper of
//! `OffsetDateTime` here ([`Rfc3339Form`], [`Iso8601Form`], [`Timestamp`],
//! [`TimestampMillis`], …) whose layouts, and its `Option`'s, are
//! [`FormLayouts`](super::FormLayouts)`::<Form>`; the derive finds them by
//! the module's path (`native_with!` at the end).
//!
//! The fast paths read the canonical texts — four-digit years, two-digit
//! fields, one to nine fraction digits — and build values with time's own
//! constructors; whatever they decline (signed or wider years, a leap
//! second, other separators, a lowercase `z`, more fraction digits, any
//! refusal) is read by time itself: its serde impl through serde's string
//! deserializer, or its parser for the `with` modules, so values and refusal
//! messages are time's. Writing declines years outside 0–9999 (and, for RFC
//! 3339, offsets time cannot write there), which go through time's impl and
//! serde_json, or time's formatter.
//!
//! One difference remains: with `serde-human-readable` time's impls still
//! read the tuple form from a JSON array (their `visit_seq`); jitson reads
//! only the texts and refuses an array as an invalid type.

use serde::Deserialize;
use time::format_description::well_known::iso8601::{Config, EncodedConfig};
use time::format_description::well_known::{Iso8601, Rfc3339};
use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};

use super::{Form, FormLayouts, FromText, Room, ToText};

// ---------------------------------------------------------------------------
// Reading: the canonical texts.

/// Two ASCII digits at `b[at..at + 2]`.
#[inline]
fn two_digits(b: &[u8], at: usize) -> Option<u8> {
    let (hi, lo) = (
        b.get(at)?.wrapping_sub(b'0'),
        b.get(at + 1)?.wrapping_sub(b'0'),
    );
    (hi < 10 && lo < 10).then(|| hi * 10 + lo)
}

/// `YYYY-MM-DD` at the start of `b`.
fn read_date(b: &[u8]) -> Option<Date> {
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year = i32::from(two_digits(b, 0)?) * 100 + i32::from(two_digits(b, 2)?);
    let month = Month::try_from(two_digits(b, 5)?).ok()?;
    Date::from_calendar_date(year, month, two_digits(b, 8)?).ok()
}

/// `HH:MM:SS` and a fraction of one to nine digits (required when `fraction`
/// is true, else optional), at the start of `b` (the whole of it when
/// `whole`); the time and the bytes read.
///
/// The length is checked here, before the time is built, rather than by the
/// caller on the returned pair: `Option<(Time, usize)>` keeps `None` in a
/// niche of `Time`, and a caller's `filter` on the length was compiled to
/// compare the (uninitialised) length of a `None` as well, which valgrind
/// reports (harmless, but it hides real reports).
fn read_time(b: &[u8], fraction: bool, whole: bool) -> Option<(Time, usize)> {
    if b.len() < 8 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let (hour, minute, second) = (two_digits(b, 0)?, two_digits(b, 3)?, two_digits(b, 6)?);
    let mut end = 8;
    let mut nano = 0u32;
    if b.get(8) == Some(&b'.') {
        end = 9;
        while let Some(d) = b.get(end).map(|c| c.wrapping_sub(b'0')).filter(|&d| d < 10) {
            if end == 18 {
                return None;
            }
            nano = nano * 10 + u32::from(d);
            end += 1;
        }
        if end == 9 {
            return None;
        }
        nano *= 10u32.pow(18 - end as u32);
    } else if fraction {
        return None;
    }
    if whole && end != b.len() {
        return None;
    }
    Some((Time::from_hms_nano(hour, minute, second, nano).ok()?, end))
}

/// `±HH:MM:SS`, the whole of `b`.
fn read_hms_offset(b: &[u8]) -> Option<UtcOffset> {
    let [sign @ (b'+' | b'-'), _, _, b':', _, _, b':', _, _] = b else {
        return None;
    };
    let (h, m, s) = (
        two_digits(b, 1)? as i8,
        two_digits(b, 4)? as i8,
        two_digits(b, 7)? as i8,
    );
    // A negative sign makes every component negative, as time's parser does.
    let k = if *sign == b'-' { -1 } else { 1 };
    UtcOffset::from_hms(k * h, k * m, k * s).ok()
}

/// `YYYY-MM-DD HH:MM:SS.f` (the whole of `b` when `whole`): the date-time
/// and the bytes read.
fn read_plain(b: &[u8], whole: bool) -> Option<(PrimitiveDateTime, usize)> {
    if b.get(10) != Some(&b' ') {
        return None;
    }
    let date = read_date(b)?;
    let (time, len) = read_time(&b[11..], true, whole)?;
    Some((PrimitiveDateTime::new(date, time), 11 + len))
}

/// `YYYY-MM-DD HH:MM:SS.f ±HH:MM:SS`, the whole of `b`.
fn read_offset_datetime(b: &[u8]) -> Option<OffsetDateTime> {
    let (dt, len) = read_plain(b, false)?;
    if b.get(len) != Some(&b' ') {
        return None;
    }
    Some(dt.assume_offset(read_hms_offset(&b[len + 1..])?))
}

/// The strict RFC 3339 form, the whole of `b`: `YYYY-MM-DDTHH:MM:SS[.f]`
/// and `Z` or `±HH:MM` (hours to 23, as time's reader allows).
fn read_rfc3339(b: &[u8]) -> Option<OffsetDateTime> {
    if b.get(10) != Some(&b'T') {
        return None;
    }
    let date = read_date(b)?;
    let (time, len) = read_time(&b[11..], false, false)?;
    let offset = match &b[11 + len..] {
        b"Z" => UtcOffset::UTC,
        o @ [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let (h, m) = (two_digits(o, 1)? as i8, two_digits(o, 4)? as i8);
            if h > 23 {
                return None;
            }
            let k = if *sign == b'-' { -1 } else { 1 };
            UtcOffset::from_hms(k * h, k * m, 0).ok()?
        }
        _ => return None,
    };
    Some(PrimitiveDateTime::new(date, time).assume_offset(offset))
}

/// time's own reading of a string: its serde impl's `visit_str`, through
/// serde's string deserializer (human-readable, as serde_json is), so the
/// value and the refusal are time's.
fn by_time<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, serde::de::value::Error> {
    T::deserialize(serde::de::value::StrDeserializer::new(text))
}

macro_rules! human_readable {
    ($($ty:ty => |$b:ident| $fast:expr;)*) => {$(
        impl FromText for $ty {
            type Error = serde::de::value::Error;
            fn from_text(text: &str) -> Result<Self, Self::Error> {
                let $b = text.as_bytes();
                match $fast {
                    Some(value) => Ok(value),
                    None => by_time(text),
                }
            }
        }
    )*};
}

human_readable! {
    Date => |b| read_date(b).filter(|_| b.len() == 10);
    Time => |b| read_time(b, true, true).map(|(t, _)| t);
    PrimitiveDateTime => |b| read_plain(b, true).map(|(t, _)| t);
    OffsetDateTime => |b| read_offset_datetime(b);
    UtcOffset => |b| read_hms_offset(b);
}

// ---------------------------------------------------------------------------
// Writing: time's human-readable texts.

/// `YYYY-MM-DD`; declines years outside 0–9999 (time writes those signed).
fn write_date(room: &mut Room<'_>, date: Date) -> bool {
    let year = date.year();
    if !(0..=9999).contains(&year) {
        return false;
    }
    room.digits(year as u32, 4);
    room.push(b'-');
    room.digits(u32::from(u8::from(date.month())), 2);
    room.push(b'-');
    room.digits(u32::from(date.day()), 2);
    true
}

/// The nanoseconds' digits without their trailing zeros, one at least.
fn write_fraction(room: &mut Room<'_>, nanos: u32) {
    let (mut value, mut width) = (nanos, 9);
    while width > 1 && value % 10 == 0 {
        value /= 10;
        width -= 1;
    }
    room.digits(value, width);
}

/// `HH:MM:SS`.
fn write_hms(room: &mut Room<'_>, time: Time) {
    room.digits(u32::from(time.hour()), 2);
    room.push(b':');
    room.digits(u32::from(time.minute()), 2);
    room.push(b':');
    room.digits(u32::from(time.second()), 2);
}

/// `±HH:MM:SS`: the sign of the offset, then its components' magnitudes.
fn write_hms_offset(room: &mut Room<'_>, offset: UtcOffset) {
    let (h, m, s) = offset.as_hms();
    room.push(if offset.is_negative() { b'-' } else { b'+' });
    room.digits(u32::from(h.unsigned_abs()), 2);
    room.push(b':');
    room.digits(u32::from(m.unsigned_abs()), 2);
    room.push(b':');
    room.digits(u32::from(s.unsigned_abs()), 2);
}

/// `YYYY-MM-DD HH:MM:SS.f`.
fn write_plain(room: &mut Room<'_>, date: Date, time: Time) -> bool {
    if !write_date(room, date) {
        return false;
    }
    room.push(b' ');
    write_hms(room, time);
    room.push(b'.');
    write_fraction(room, time.nanosecond());
    true
}

/// Any value as time's serde impl has serde_json write it (and its refusal).
fn through_serde_json<T: serde::Serialize>(value: &T, out: &mut Vec<u8>) -> Result<(), String> {
    serde_json::to_writer(out, value).map_err(|e| e.to_string())
}

macro_rules! human_written {
    ($($ty:ty, $max:expr => |$v:ident, $room:ident| $fast:expr;)*) => {$(
        impl ToText for $ty {
            const MAX_LEN: usize = $max;
            fn fast(&self, $room: &mut Room<'_>) -> bool {
                let $v = self;
                $room.push(b'"');
                if !$fast {
                    return false;
                }
                $room.push(b'"');
                true
            }
            fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
                through_serde_json(self, out)
            }
        }
    )*};
}

human_written! {
    // `"YYYY-MM-DD"`
    Date, 12 => |v, room| write_date(room, *v);
    // `"HH:MM:SS.nnnnnnnnn"`
    Time, 20 => |v, room| {
        write_hms(room, *v);
        room.push(b'.');
        write_fraction(room, v.nanosecond());
        true
    };
    // `"YYYY-MM-DD HH:MM:SS.nnnnnnnnn"`
    PrimitiveDateTime, 31 => |v, room| write_plain(room, v.date(), v.time());
    // `"YYYY-MM-DD HH:MM:SS.nnnnnnnnn +HH:MM:SS"`
    OffsetDateTime, 41 => |v, room| {
        if !write_plain(room, v.date(), v.time()) {
            return false;
        }
        room.push(b' ');
        write_hms_offset(room, v.offset());
        true
    };
    // `"+HH:MM:SS"`
    UtcOffset, 11 => |v, room| {
        write_hms_offset(room, *v);
        true
    };
}

/// Whether time's serde impls write text in this build (its
/// `serde-human-readable`), probed once through serde_json.
fn human_readable() -> bool {
    static TEXT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TEXT.get_or_init(|| serde_json::to_vec(&Date::MIN).is_ok_and(|t| t.first() == Some(&b'"')))
}

/// The identity of a type's native layout (beside the newtype that picks it).
struct Native<T>(core::marker::PhantomData<T>);

macro_rules! probed {
    ($($ty:ty => $expecting:literal;)*) => {$(
        impl super::ProbedForm for $ty {
            const EXPECTING: &'static str = $expecting;
            fn native() -> &'static crate::layout::TypeLayout {
                const LAYOUT: crate::layout::TypeLayout =
                    super::text_scalar_as::<$ty, Native<$ty>>($expecting);
                &LAYOUT
            }
            fn has_native_form() -> bool {
                human_readable()
            }
        }
        super::probed_types! { $ty; }
    )*};
}

probed! {
    Date => "a `Date`";
    Time => "a `Time`";
    PrimitiveDateTime => "a `PlainDateTime`";
    OffsetDateTime => "an `OffsetDateTime`";
    UtcOffset => "a `UtcOffset`";
}

// ---------------------------------------------------------------------------
// `time::serde::rfc3339` and `time::serde::iso8601`: strings.

/// `time::serde::rfc3339`'s form of an `OffsetDateTime`.
#[repr(transparent)]
pub(crate) struct Rfc3339Form(OffsetDateTime);

impl FromText for Rfc3339Form {
    type Error = time::error::Parse;
    fn from_text(text: &str) -> Result<Self, Self::Error> {
        match read_rfc3339(text.as_bytes()) {
            Some(dt) => Ok(Rfc3339Form(dt)),
            None => OffsetDateTime::parse(text, &Rfc3339).map(Rfc3339Form),
        }
    }
}

impl ToText for Rfc3339Form {
    // `"YYYY-MM-DDTHH:MM:SS.nnnnnnnnn+HH:MM"`
    const MAX_LEN: usize = 37;
    fn fast(&self, room: &mut Room<'_>) -> bool {
        let dt = &self.0;
        let (h, m, s) = dt.offset().as_hms();
        // time refuses to write these in RFC 3339; `write` says so.
        if s != 0 || h.unsigned_abs() > 23 {
            return false;
        }
        room.push(b'"');
        if !write_date(room, dt.date()) {
            return false;
        }
        room.push(b'T');
        write_hms(room, dt.time());
        if dt.nanosecond() != 0 {
            room.push(b'.');
            write_fraction(room, dt.nanosecond());
        }
        if dt.offset().is_utc() {
            room.push(b'Z');
        } else {
            room.push(if dt.offset().is_negative() {
                b'-'
            } else {
                b'+'
            });
            room.digits(u32::from(h.unsigned_abs()), 2);
            room.push(b':');
            room.digits(u32::from(m.unsigned_abs()), 2);
        }
        room.push(b'"');
        true
    }
    fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
        let text = self.0.format(&Rfc3339).map_err(|e| e.to_string())?;
        crate::write::write_str(out, &text);
        Ok(())
    }
}

/// The ISO 8601 configuration of `time::serde::iso8601` (six-digit years).
const ISO8601_CONFIG: EncodedConfig = Config::DEFAULT.set_year_is_six_digits(true).encode();

/// `time::serde::iso8601`'s form of an `OffsetDateTime`: time's own parser
/// and formatter.
#[repr(transparent)]
pub(crate) struct Iso8601Form(OffsetDateTime);

impl FromText for Iso8601Form {
    type Error = time::error::Parse;
    fn from_text(text: &str) -> Result<Self, Self::Error> {
        OffsetDateTime::parse(text, &Iso8601::<ISO8601_CONFIG>).map(Iso8601Form)
    }
}

impl ToText for Iso8601Form {
    const MAX_LEN: usize = 0;
    fn fast(&self, _: &mut Room<'_>) -> bool {
        false
    }
    fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
        let text = self
            .0
            .format(&Iso8601::<ISO8601_CONFIG>)
            .map_err(|e| e.to_string())?;
        crate::write::write_str(out, &text);
        Ok(())
    }
}

super::text_scalars! {
    Rfc3339Form => "an RFC3339-formatted `OffsetDateTime`";
    Iso8601Form => "an ISO 8601-formatted `OffsetDateTime`";
}

// ---------------------------------------------------------------------------
// `time::serde::timestamp` and its submodules: integers, read as serde reads
// an `i64` or `i128` (jitson's own integer layouts), then converted.

/// time's refusal of an instant out of its range (`ComponentRange` as serde
/// shows it).
fn out_of_range(e: time::error::ComponentRange) -> String {
    format!("invalid {}, expected an in-range value", e.name())
}

/// time's refusal of a timestamp whose nanoseconds overflow `i128`.
const TIMESTAMP_OUT_OF_RANGE: &str = "invalid timestamp, expected an in-range value";

macro_rules! timestamps {
    ($(
        $(#[$doc:meta])*
        $form:ident($int:ty, $expecting:literal),
        read: |$v:ident| $read:expr,
        write: |$dt:ident| $write:expr;
    )*) => {$(
        $(#[$doc])*
        #[repr(transparent)]
        pub(crate) struct $form(OffsetDateTime);

        impl crate::convert::ConvertFrom for $form {
            type Source = $int;
            fn convert($v: $int) -> Result<Self, String> {
                let read: Result<OffsetDateTime, String> = $read;
                read.map($form)
            }
        }

        crate::convert::decode_by_conversion! { [] $form => $expecting; }

        crate::encode::converted! {
            [] $form => $int, $expecting, |f: &$form| {
                let $dt = &f.0;
                Ok::<$int, String>($write)
            };
        }

        impl Form for $form {
            type Field = OffsetDateTime;
        }
    )*};
}

timestamps! {
    /// `time::serde::timestamp`: seconds.
    Timestamp(i64, "i64"),
        read: |v| OffsetDateTime::from_unix_timestamp(v).map_err(out_of_range),
        write: |dt| dt.unix_timestamp();
    /// `time::serde::timestamp::milliseconds`.
    TimestampMillis(i128, "i128"),
        read: |v| v
            .checked_mul(1_000_000)
            .map(OffsetDateTime::from_unix_timestamp_nanos)
            .map_or_else(|| Err(TIMESTAMP_OUT_OF_RANGE.to_owned()), |r| r.map_err(out_of_range)),
        write: |dt| dt.unix_timestamp_nanos() / 1_000_000;
    /// `time::serde::timestamp::milliseconds_i64`.
    TimestampMillisI64(i64, "i64"),
        read: |v| OffsetDateTime::from_unix_timestamp_nanos(i128::from(v) * 1_000_000)
            .map_err(out_of_range),
        write: |dt| (dt.unix_timestamp_nanos() / 1_000_000) as i64;
    /// `time::serde::timestamp::microseconds`.
    TimestampMicros(i128, "i128"),
        read: |v| v
            .checked_mul(1_000)
            .map(OffsetDateTime::from_unix_timestamp_nanos)
            .map_or_else(|| Err(TIMESTAMP_OUT_OF_RANGE.to_owned()), |r| r.map_err(out_of_range)),
        write: |dt| dt.unix_timestamp_nanos() / 1_000;
    /// `time::serde::timestamp::nanoseconds`.
    TimestampNanos(i128, "i128"),
        read: |v| OffsetDateTime::from_unix_timestamp_nanos(v).map_err(out_of_range),
        write: |dt| dt.unix_timestamp_nanos();
}

impl Form for Rfc3339Form {
    type Field = OffsetDateTime;
}

impl Form for Iso8601Form {
    type Field = OffsetDateTime;
}

// ---------------------------------------------------------------------------
// The `with` modules' layouts, for the derive.

/// `native_with!` for each module and its `option` twin.
macro_rules! with_modules {
    ($($path:literal, $option:literal => $form:ty;)*) => {
        crate::route::native_with! {$(
            $path => OffsetDateTime:
                FormLayouts::<$form>::DECODE, FormLayouts::<$form>::ENCODE;
            $option => Option<OffsetDateTime>:
                FormLayouts::<$form>::OPTION_DECODE, FormLayouts::<$form>::OPTION_ENCODE;
        )*}
    };
}

with_modules! {
    "time::serde::rfc3339", "time::serde::rfc3339::option" => Rfc3339Form;
    "time::serde::iso8601", "time::serde::iso8601::option" => Iso8601Form;
    "time::serde::timestamp", "time::serde::timestamp::option" => Timestamp;
    "time::serde::timestamp::milliseconds", "time::serde::timestamp::milliseconds::option"
        => TimestampMillis;
    "time::serde::timestamp::milliseconds_i64",
        "time::serde::timestamp::milliseconds_i64::option" => TimestampMillisI64;
    "time::serde::timestamp::microseconds", "time::serde::timestamp::microseconds::option"
        => TimestampMicros;
    "time::serde::timestamp::nanoseconds", "time::serde::timestamp::nanoseconds::option"
        => TimestampNanos;
}
