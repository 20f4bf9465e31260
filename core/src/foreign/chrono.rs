//! chrono's types (feature `chrono`), as chrono's serde impls (chrono 0.4)
//! have serde_json read and write them:
//!
//! | type | JSON | read by | written as |
//! |---|---|---|---|
//! | `DateTime<Utc>`, `DateTime<FixedOffset>`, `DateTime<Local>` | string | `DateTime<FixedOffset>::from_str` (RFC 3339, relaxed), then the type's zone | RFC 3339, `AutoSi` fraction, `Z` for a zero offset |
//! | `NaiveDateTime` | string | `NaiveDateTime::from_str` | its `Debug` text |
//! | `NaiveDate` | string | `NaiveDate::from_str` | its `Debug` text |
//! | `NaiveTime` | string | `NaiveTime::from_str` | its `Display` text |
//! | `TimeDelta` (`Duration`) | `[secs, nanos]` | a `(i64, i32)` tuple | the same |
//!
//! The fast paths read and write the strict RFC 3339 forms — a four-digit
//! year, `T`, seconds below 60, one to nine fraction digits, `Z` or `±HH:MM` —
//! and build values with chrono's own constructors; every other text (a
//! space or a lowercase `t`, leap seconds, more fraction digits, years
//! outside 0–9999, an offset with seconds) goes to chrono's parser and
//! formatter, so the result is chrono's in every case.

use std::io::Write;

use chrono::{
    DateTime, Datelike, FixedOffset, Local, NaiveDate, NaiveDateTime, NaiveTime, Offset,
    SecondsFormat, TimeDelta, TimeZone, Timelike, Utc,
};

use super::{FromText, Room, ToText};

// ---------------------------------------------------------------------------
// Reading: the strict RFC 3339 forms.

/// Two ASCII digits at `b[at..at + 2]`.
#[inline]
fn two_digits(b: &[u8], at: usize) -> Option<u32> {
    let (hi, lo) = (
        b.get(at)?.wrapping_sub(b'0'),
        b.get(at + 1)?.wrapping_sub(b'0'),
    );
    (hi < 10 && lo < 10).then_some(u32::from(hi) * 10 + u32::from(lo))
}

/// `YYYY-MM-DD` at the start of `b`.
fn strict_date(b: &[u8]) -> Option<NaiveDate> {
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year = two_digits(b, 0)? * 100 + two_digits(b, 2)?;
    NaiveDate::from_ymd_opt(year as i32, two_digits(b, 5)?, two_digits(b, 8)?)
}

/// `HH:MM:SS` with an optional fraction of one to nine digits, at the start of
/// `b`; returns the time and the bytes read. Leap seconds (`60`) are chrono's.
fn strict_time(b: &[u8]) -> Option<(NaiveTime, usize)> {
    if b.len() < 8 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let (hour, min, sec) = (two_digits(b, 0)?, two_digits(b, 3)?, two_digits(b, 6)?);
    if sec >= 60 {
        return None;
    }
    let mut end = 8;
    let mut nano = 0;
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
    }
    Some((NaiveTime::from_hms_nano_opt(hour, min, sec, nano)?, end))
}

/// `Z` or `±HH:MM`, the whole of `b`.
fn strict_offset(b: &[u8]) -> Option<FixedOffset> {
    match b {
        b"Z" => FixedOffset::east_opt(0),
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let secs = (two_digits(b, 1)? * 60 + two_digits(b, 4)?) as i32 * 60;
            if two_digits(b, 4)? >= 60 {
                return None;
            }
            FixedOffset::east_opt(if *sign == b'-' { -secs } else { secs })
        }
        _ => None,
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.f]`, the whole of `b` when `offset` is false, or
/// followed by an offset.
fn strict_datetime(b: &[u8]) -> Option<(NaiveDateTime, usize)> {
    if b.get(10) != Some(&b'T') {
        return None;
    }
    let date = strict_date(b)?;
    let (time, len) = strict_time(&b[11..])?;
    Some((date.and_time(time), 11 + len))
}

/// An RFC 3339 text as chrono's `DateTime<FixedOffset>` deserializer reads it.
fn rfc3339(text: &str) -> Result<DateTime<FixedOffset>, chrono::ParseError> {
    let b = text.as_bytes();
    let fast = strict_datetime(b).and_then(|(naive, len)| {
        let offset = strict_offset(&b[len..])?;
        offset.from_local_datetime(&naive).single()
    });
    match fast {
        Some(dt) => Ok(dt),
        None => text.parse(),
    }
}

impl FromText for DateTime<FixedOffset> {
    type Error = chrono::ParseError;
    fn from_text(text: &str) -> Result<Self, Self::Error> {
        rfc3339(text)
    }
}

impl FromText for DateTime<Utc> {
    type Error = chrono::ParseError;
    fn from_text(text: &str) -> Result<Self, Self::Error> {
        rfc3339(text).map(|dt| dt.with_timezone(&Utc))
    }
}

impl FromText for DateTime<Local> {
    type Error = chrono::ParseError;
    fn from_text(text: &str) -> Result<Self, Self::Error> {
        rfc3339(text).map(|dt| dt.with_timezone(&Local))
    }
}

impl FromText for NaiveDateTime {
    type Error = chrono::ParseError;
    fn from_text(text: &str) -> Result<Self, Self::Error> {
        match strict_datetime(text.as_bytes()) {
            Some((dt, len)) if len == text.len() => Ok(dt),
            _ => text.parse(),
        }
    }
}

impl FromText for NaiveDate {
    type Error = chrono::ParseError;
    fn from_text(text: &str) -> Result<Self, Self::Error> {
        match strict_date(text.as_bytes()) {
            Some(date) if text.len() == 10 => Ok(date),
            _ => text.parse(),
        }
    }
}

impl FromText for NaiveTime {
    type Error = chrono::ParseError;
    fn from_text(text: &str) -> Result<Self, Self::Error> {
        match strict_time(text.as_bytes()) {
            Some((time, len)) if len == text.len() => Ok(time),
            _ => text.parse(),
        }
    }
}

// ---------------------------------------------------------------------------
// Writing: chrono's RFC 3339 and Debug texts.

/// `YYYY-MM-DD`; declines years outside 0–9999 (chrono writes those signed).
fn write_date(room: &mut Room<'_>, date: NaiveDate) -> bool {
    let year = date.year();
    if !(0..=9999).contains(&year) {
        return false;
    }
    room.digits(year as u32, 4);
    room.push(b'-');
    room.digits(date.month(), 2);
    room.push(b'-');
    room.digits(date.day(), 2);
    true
}

/// `HH:MM:SS` and the fraction in chrono's `AutoSi` form (none, 3, 6 or 9
/// digits); a leap second is written as second 60.
fn write_time(room: &mut Room<'_>, time: NaiveTime) {
    let (mut sec, mut nano) = (time.second(), time.nanosecond());
    if nano >= 1_000_000_000 {
        sec += 1;
        nano -= 1_000_000_000;
    }
    room.digits(time.hour(), 2);
    room.push(b':');
    room.digits(time.minute(), 2);
    room.push(b':');
    room.digits(sec, 2);
    if nano == 0 {
    } else if nano % 1_000_000 == 0 {
        room.push(b'.');
        room.digits(nano / 1_000_000, 3);
    } else if nano % 1_000 == 0 {
        room.push(b'.');
        room.digits(nano / 1_000, 6);
    } else {
        room.push(b'.');
        room.digits(nano, 9);
    }
}

/// `Z` for a zero offset, else `±HH:MM` rounded to the minute, as chrono's
/// RFC 3339 writer does.
fn write_offset(room: &mut Room<'_>, offset: FixedOffset) {
    let secs = offset.local_minus_utc();
    if secs == 0 {
        room.push(b'Z');
        return;
    }
    room.push(if secs < 0 { b'-' } else { b'+' });
    let minutes = (secs.unsigned_abs() + 30) / 60;
    room.digits(minutes / 60, 2);
    room.push(b':');
    room.digits(minutes % 60, 2);
}

impl<Tz: TimeZone> ToText for DateTime<Tz> {
    // `"YYYY-MM-DDTHH:MM:SS.nnnnnnnnn+HH:MM"`
    const MAX_LEN: usize = 37;
    fn fast(&self, room: &mut Room<'_>) -> bool {
        let naive = self.naive_local();
        room.push(b'"');
        if !write_date(room, naive.date()) {
            return false;
        }
        room.push(b'T');
        write_time(room, naive.time());
        write_offset(room, self.offset().fix());
        room.push(b'"');
        true
    }
    fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
        let text = self.to_rfc3339_opts(SecondsFormat::AutoSi, true);
        crate::write::write_str(out, &text);
        Ok(())
    }
}

impl ToText for NaiveDateTime {
    // `"YYYY-MM-DDTHH:MM:SS.nnnnnnnnn"`
    const MAX_LEN: usize = 31;
    fn fast(&self, room: &mut Room<'_>) -> bool {
        room.push(b'"');
        if !write_date(room, self.date()) {
            return false;
        }
        room.push(b'T');
        write_time(room, self.time());
        room.push(b'"');
        true
    }
    fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
        write!(out, "\"{self:?}\"").map_err(|e| e.to_string())
    }
}

impl ToText for NaiveDate {
    const MAX_LEN: usize = 12;
    fn fast(&self, room: &mut Room<'_>) -> bool {
        room.push(b'"');
        if !write_date(room, *self) {
            return false;
        }
        room.push(b'"');
        true
    }
    fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
        write!(out, "\"{self:?}\"").map_err(|e| e.to_string())
    }
}

impl ToText for NaiveTime {
    const MAX_LEN: usize = 20;
    fn fast(&self, room: &mut Room<'_>) -> bool {
        room.push(b'"');
        write_time(room, *self);
        room.push(b'"');
        true
    }
    fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
        write!(out, "\"{self}\"").map_err(|e| e.to_string())
    }
}

super::text_scalars! {
    DateTime<Utc> => "an RFC 3339 formatted date and time string";
    DateTime<FixedOffset> => "an RFC 3339 formatted date and time string";
    DateTime<Local> => "an RFC 3339 formatted date and time string";
    NaiveDateTime => "a formatted date and time string";
    NaiveDate => "a formatted date string";
    NaiveTime => "a formatted time string";
}

// ---------------------------------------------------------------------------
// TimeDelta: serde's `(secs, nanos)` tuple of its fields, nanos in 0..1e9.

impl crate::convert::ConvertFrom for TimeDelta {
    type Source = (i64, i32);
    fn convert((secs, nanos): (i64, i32)) -> Result<Self, String> {
        // chrono's impl casts the nanoseconds as this does: a negative count
        // becomes one out of bounds.
        TimeDelta::new(secs, nanos as u32).ok_or_else(|| "TimeDelta out of bounds".to_owned())
    }
}

crate::convert::decode_by_conversion! { [] TimeDelta => "a tuple of size 2"; }

crate::encode::converted! {
    [] TimeDelta => (i64, i32), "a tuple of size 2", |d: &TimeDelta| {
        // The public accessors round towards zero; the fields serde writes
        // keep the nanoseconds non-negative.
        let (secs, nanos) = (d.num_seconds(), d.subsec_nanos());
        Ok(if nanos < 0 { (secs - 1, nanos + 1_000_000_000) } else { (secs, nanos) })
    };
}

// ---------------------------------------------------------------------------
// `chrono::serde::ts_*`: `DateTime<Utc>` as a Unix timestamp, a JSON integer.

/// A JSON integer's text as chrono's timestamp visitors receive it through
/// serde_json: `Ok(Ok(i64))` for a negative one, `Ok(Err(u64))` for another;
/// `Err` for a float, `-0` or an integer beyond 64 bits (serde_json reads
/// these as floats), with serde's words.
fn integer(text: &str, expecting: &str) -> Result<Result<i64, u64>, String> {
    let parsed = if text.starts_with('-') {
        // serde_json reads `-0` as the float -0.0.
        text.parse::<i64>().ok().filter(|&v| v != 0).map(Ok)
    } else {
        text.parse::<u64>().map(Err).ok()
    };
    parsed.ok_or_else(|| super::not_an_integer(text, expecting))
}

/// chrono's refusal of a timestamp out of its range.
fn not_legal(value: impl core::fmt::Display) -> String {
    format!("value is not a legal timestamp: {value}")
}

macro_rules! timestamps {
    ($(
        $(#[$doc:meta])*
        $form:ident, $module:literal, $option:literal, $expecting:literal,
        read: |$v:ident: i64| $from_i64:expr,
        per_second: $per_second:expr,
        write: |$dt:ident| $to_i64:expr;
    )*) => {$(
        $(#[$doc])*
        #[repr(transparent)]
        struct $form(DateTime<Utc>);

        impl FromText for $form {
            type Error = String;
            fn from_text(text: &str) -> Result<Self, String> {
                let dt = match integer(text, $expecting)? {
                    Ok($v) => ($from_i64).ok_or_else(|| not_legal($v)),
                    // serde_json visits a non-negative integer as a u64,
                    // which chrono splits into seconds and a remainder.
                    Err(v) => {
                        let per_second: u64 = $per_second;
                        let nanos = (v % per_second) * (1_000_000_000 / per_second);
                        i64::try_from(v / per_second)
                            .ok()
                            .and_then(|secs| DateTime::from_timestamp(secs, nanos as u32))
                            .ok_or_else(|| not_legal(v))
                    }
                }?;
                Ok($form(dt))
            }
        }

        impl ToText for $form {
            const MAX_LEN: usize = 20;
            fn fast(&self, room: &mut Room<'_>) -> bool {
                let $dt = &self.0;
                match $to_i64 {
                    Ok(n) => {
                        room.int(n);
                        true
                    }
                    Err(_) => false,
                }
            }
            fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
                let $dt = &self.0;
                let n: i64 = ($to_i64)?;
                out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
                Ok(())
            }
        }

        impl super::ScalarForm for $form {
            const EXPECTING: &'static str = $expecting;
            const FROM_NUMBER: bool = true;
        }

        super::scalar_forms! { $form => DateTime<Utc>; }

        crate::route::native_with! {
            $module => DateTime<Utc>:
                super::FormLayouts::<$form>::DECODE, super::FormLayouts::<$form>::ENCODE;
            $option => Option<DateTime<Utc>>:
                super::FormLayouts::<$form>::OPTION_DECODE,
                super::FormLayouts::<$form>::OPTION_ENCODE;
        }
    )*};
}

timestamps! {
    /// `chrono::serde::ts_seconds`.
    TsSeconds, "chrono::serde::ts_seconds", "chrono::serde::ts_seconds_option",
        "a unix timestamp in seconds",
        read: |v: i64| DateTime::from_timestamp(v, 0),
        per_second: 1,
        write: |dt| Ok::<i64, String>(dt.timestamp());
    /// `chrono::serde::ts_milliseconds`.
    TsMilliseconds, "chrono::serde::ts_milliseconds", "chrono::serde::ts_milliseconds_option",
        "a unix timestamp in milliseconds",
        read: |v: i64| DateTime::from_timestamp_millis(v),
        per_second: 1_000,
        write: |dt| Ok::<i64, String>(dt.timestamp_millis());
    /// `chrono::serde::ts_microseconds`.
    TsMicroseconds, "chrono::serde::ts_microseconds", "chrono::serde::ts_microseconds_option",
        "a unix timestamp in microseconds",
        read: |v: i64| DateTime::from_timestamp_micros(v),
        per_second: 1_000_000,
        write: |dt| Ok::<i64, String>(dt.timestamp_micros());
    /// `chrono::serde::ts_nanoseconds`.
    TsNanoseconds, "chrono::serde::ts_nanoseconds", "chrono::serde::ts_nanoseconds_option",
        "a unix timestamp in nanoseconds",
        read: |v: i64| Some(DateTime::from_timestamp_nanos(v)),
        per_second: 1_000_000_000,
        write: |dt| dt.timestamp_nanos_opt().ok_or_else(|| {
            "value out of range for a timestamp with nanosecond precision".to_owned()
        });
}
