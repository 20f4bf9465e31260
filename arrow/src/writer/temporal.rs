//! Timestamps, dates and times, quoted, as arrow-json writes them (through
//! arrow-cast's display, which is chrono's):
//!
//! - Timestamp without a zone: `2024-05-01T12:30:05`, then `.fff`, `.ffffff`
//!   or `.fffffffff` — the fewest of the three that hold the fraction —
//!   nothing for whole seconds (chrono's `Debug` of a `NaiveDateTime`);
//! - Timestamp with a zone (a fixed offset; a named zone is refused, as by
//!   arrow-json without its `chrono-tz` feature, except `UTC`, written as
//!   arrow-json with `chrono-tz` writes it: docs/arrow.md, difference 1):
//!   the local time in that zone
//!   in the same form, then `Z` for a zero offset or `+HH:MM`
//!   (`to_rfc3339_opts(AutoSi, true)`);
//! - Date32 `2024-05-01`; Date64 as a timestamp in milliseconds; Time32/64
//!   `12:30:05[.fff…]`;
//! - a user-given strftime format (`with_timestamp_format` and the others)
//!   through chrono, as arrow-json;
//! - a value outside chrono's range as arrow-json's message,
//!   `"ERROR: Cast error: Failed to convert … for …"`.
//!
//! The default formats of years 0 to 9999 are written here digit by digit;
//! everything else goes through chrono.

use std::io::Write;

use arrow_array::cast::AsArray;
use arrow_array::temporal_conversions::{
    as_datetime, date32_to_datetime, date64_to_datetime, time32ms_to_time, time32s_to_time,
    time64ns_to_time, time64us_to_time,
};
use arrow_array::types::{
    ArrowTimestampType, Date32Type, Date64Type, Time32MillisecondType, Time32SecondType,
    Time64MicrosecondType, Time64NanosecondType,
};
use arrow_array::{Array, ArrowPrimitiveType};
use arrow_schema::{ArrowError, TimeUnit};
use chrono::{Offset, SecondsFormat, TimeZone, Utc};

use super::plan::{Encode, Plan};

/// Two ASCII digits per value below 100.
static PAIRS: [[u8; 2]; 100] = {
    let mut table = [[0u8; 2]; 100];
    let mut i = 0;
    while i < 100 {
        table[i] = [b'0' + (i / 10) as u8, b'0' + (i % 10) as u8];
        i += 1;
    }
    table
};

/// A quoted date, time or timestamp in the default formats, written in
/// place at its destination (at most 37 bytes: `"`, a date, `T`, a time with
/// nine fraction digits, an offset, `"`), each part as one store of its
/// fixed width. Built on the stack and copied whole, a stamp's byte stores
/// were read back by wide loads, which the store buffer cannot forward: a
/// stall per value, a third of a timestamp's time.
struct Stamp {
    dst: *mut u8,
    len: usize,
    /// The bytes it may write at `dst`.
    room: usize,
}

/// The room of a date, time or timestamp's [`Stamp`].
const STAMP_ROOM: usize = 40;

/// The room of a duration's or an interval's [`Stamp`]: the longest
/// interval text, `"-2147483648 mons -2147483648 days -2562047 hours -47
/// mins -16.854775808 secs"`, is 78 bytes.
const TEXT_ROOM: usize = 80;

impl Stamp {
    /// A stamp at `dst` of `room` bytes, holding its opening quote.
    ///
    /// # Safety
    /// `dst` is valid for writes of `room` bytes while the stamp lives.
    #[inline]
    unsafe fn quoted_at(dst: *mut u8, room: usize) -> Stamp {
        let mut stamp = Stamp { dst, len: 0, room };
        stamp.put([b'"']);
        stamp
    }

    /// Writes `bytes` next, in one store of `N` bytes.
    #[inline]
    fn put<const N: usize>(&mut self, bytes: [u8; N]) {
        assert!(self.len + N <= self.room, "a stamp past its room");
        // SAFETY: `dst` is valid for `room` bytes (`quoted_at`'s contract)
        // and the assertion keeps this write inside them.
        unsafe {
            self.dst
                .add(self.len)
                .cast::<[u8; N]>()
                .write_unaligned(bytes)
        };
        self.len += N;
    }

    /// Writes the closing quote; the stamp's length, quotes counted.
    #[inline]
    fn close(mut self) -> usize {
        self.put([b'"']);
        self.len
    }
}

/// Text formatted into a stamp's room (durations and intervals, through
/// chrono's and std's formatting): an error, with the stamp's length left
/// past what fitted, when the text and the closing quote do not fit.
impl std::fmt::Write for Stamp {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.len + s.len() >= self.room {
            return Err(std::fmt::Error);
        }
        // SAFETY: `dst` is valid for `room` bytes (`quoted_at`'s
        // contract) and the test above keeps the copy inside them; `s` is
        // not in that room (a stamp's room is output not yet taken).
        unsafe {
            std::ptr::copy_nonoverlapping(s.as_ptr(), self.dst.add(self.len), s.len());
        }
        self.len += s.len();
        Ok(())
    }
}

/// Appends `"`, what `text` writes, `"` to `out`: in place, in a stamp of
/// [`TEXT_ROOM`] bytes, when it fits (every duration's and interval's
/// text), otherwise through a `String`.
fn quoted_text(out: &mut Vec<u8>, text: impl Fn(&mut dyn std::fmt::Write) -> std::fmt::Result) {
    if stamp_into(out, TEXT_ROOM, |stamp| text(stamp).is_ok()) {
        return;
    }
    let mut long = String::new();
    let _ = text(&mut long);
    out.push(b'"');
    out.extend_from_slice(long.as_bytes());
    out.push(b'"');
}

/// Writes a stamp of `room` bytes at the end of `out`: `build` writes its
/// text after the opening quote, and the stamp is taken into `out` when it
/// returns true; on false nothing is (the bytes stay in the spare capacity).
#[inline]
fn stamp_into(out: &mut Vec<u8>, room: usize, build: impl FnOnce(&mut Stamp) -> bool) -> bool {
    out.reserve(room);
    let len = out.len();
    // SAFETY: the reserve above leaves `room` bytes of capacity past `len`,
    // and `out` is not touched while the stamp lives.
    let mut stamp = unsafe { Stamp::quoted_at(out.as_mut_ptr().add(len), room) };
    if !build(&mut stamp) {
        return false;
    }
    let written = stamp.close();
    // SAFETY: the stamp wrote (initialised) its `written` bytes at `len`,
    // within the capacity.
    unsafe { out.set_len(len + written) };
    true
}

/// Writes a stamp of `room` bytes at `dst` for a [`jitson_jit::FormatFn`]:
/// its length, or 0 (declined) when `build` returns false.
///
/// # Safety
/// `dst` has room for `room` bytes.
#[cfg(feature = "jit")]
#[inline]
unsafe fn stamp_at(dst: *mut u8, room: usize, build: impl FnOnce(&mut Stamp) -> bool) -> usize {
    // SAFETY: as the caller guarantees.
    let mut stamp = unsafe { Stamp::quoted_at(dst, room) };
    if build(&mut stamp) { stamp.close() } else { 0 }
}

/// The room the compiled writer reserves for a date's, a time's or a
/// timestamp's [`Stamp`].
#[cfg(feature = "jit")]
pub(crate) const STAMP_MAX_LEN: u8 = STAMP_ROOM as u8;

/// The room the compiled writer reserves for a duration's or an
/// interval's text.
#[cfg(feature = "jit")]
pub(crate) const TEXT_MAX_LEN: u8 = TEXT_ROOM as u8;

/// The compiled writer's [`jitson_jit::FormatFn`] for timestamps of type `T`
/// without a zone or a format: what `Timestamps` writes, or 0 (declined) for
/// years outside 0..=9999, which chrono writes.
///
/// # Safety
/// `dst` has room for [`STAMP_MAX_LEN`] bytes.
#[cfg(feature = "jit")]
pub(crate) unsafe extern "C" fn format_timestamp<T: ArrowTimestampType>(
    value: u64,
    dst: *mut u8,
    _param: u64,
) -> usize {
    // SAFETY: as the caller guarantees.
    unsafe {
        stamp_at(dst, STAMP_ROOM, |stamp| {
            stamp_text(stamp, value as i64, T::UNIT, 0, false)
        })
    }
}

/// [`format_timestamp`] for a column in a zone of one offset, `param` (its
/// seconds east of UTC, from [`fixed_offset`], sign-extended): the local
/// time and `Z` or `±HH:MM`, as `Timestamps` writes it, or 0 where that
/// goes through chrono.
///
/// # Safety
/// `dst` has room for [`STAMP_MAX_LEN`] bytes.
#[cfg(feature = "jit")]
pub(crate) unsafe extern "C" fn format_timestamp_at<T: ArrowTimestampType>(
    value: u64,
    dst: *mut u8,
    param: u64,
) -> usize {
    let offset = param as i64 as i32;
    // SAFETY: as the caller guarantees.
    unsafe {
        stamp_at(dst, STAMP_ROOM, |stamp| {
            stamp_text(stamp, value as i64, T::UNIT, offset, true)
        })
    }
}

/// The default text of timestamp `value` in `unit`, as local time `offset`
/// seconds east of UTC, then `Z` or `±HH:MM` when `zoned`, onto `stamp`;
/// false for years outside 0..=9999 (and offsets past the ends of `i64`),
/// which go through chrono. Both backends write timestamps in the default
/// formats with it.
#[inline]
fn stamp_text(stamp: &mut Stamp, value: i64, unit: TimeUnit, offset: i32, zoned: bool) -> bool {
    let (seconds, nanos) = split(value, unit);
    // as_datetime's range is wider than years 0..=9999, so a value written
    // here is one chrono would convert.
    let Some(local) = seconds.checked_add(i64::from(offset)) else {
        return false;
    };
    if !write_datetime(stamp, local, nanos) {
        return false;
    }
    if zoned {
        write_offset(stamp, offset);
    }
    true
}

/// The compiled writer's [`jitson_jit::FormatFn`]s for times without a
/// format: what `Times` writes, or 0 where arrow's conversion fails (the
/// encoder writes its message).
#[cfg(feature = "jit")]
macro_rules! format_time {
    ($($name:ident: $native:ty => $convert:ident;)*) => {$(
        /// # Safety
        /// `dst` has room for [`STAMP_MAX_LEN`] bytes.
        pub(crate) unsafe extern "C" fn $name(value: u64, dst: *mut u8, _param: u64) -> usize {
            // SAFETY: as the caller guarantees.
            unsafe { stamp_at(dst, STAMP_ROOM, |stamp| time_text(stamp, $convert(value as $native))) }
        }
    )*};
}

#[cfg(feature = "jit")]
format_time! {
    format_time32s: i32 => time32s_to_time;
    format_time32ms: i32 => time32ms_to_time;
    format_time64us: i64 => time64us_to_time;
    format_time64ns: i64 => time64ns_to_time;
}

/// A time of day as chrono's `Debug` writes it (`HH:MM:SS`, then 3, 6 or 9
/// fraction digits when there is a fraction), onto `stamp`; false when
/// arrow's conversion failed or for a leap second.
#[inline]
fn time_text(stamp: &mut Stamp, time: Option<chrono::NaiveTime>) -> bool {
    use chrono::Timelike;
    let Some(time) = time else { return false };
    let nanos = time.nanosecond();
    if nanos >= 1_000_000_000 {
        return false;
    }
    write_time(stamp, time.num_seconds_from_midnight(), nanos);
    true
}

/// [`format_timestamp`] for Date32 (days, the low 32 bits) without a format.
///
/// # Safety
/// `dst` has room for [`STAMP_MAX_LEN`] bytes.
#[cfg(feature = "jit")]
pub(crate) unsafe extern "C" fn format_date32(value: u64, dst: *mut u8, _param: u64) -> usize {
    // SAFETY: as the caller guarantees.
    unsafe {
        stamp_at(dst, STAMP_ROOM, |stamp| {
            write_date(stamp, i64::from(value as u32 as i32))
        })
    }
}

/// [`format_timestamp`] for Date64 (milliseconds) without a format.
///
/// # Safety
/// `dst` has room for [`STAMP_MAX_LEN`] bytes.
#[cfg(feature = "jit")]
pub(crate) unsafe extern "C" fn format_date64(value: u64, dst: *mut u8, param: u64) -> usize {
    // SAFETY: as the caller guarantees.
    unsafe { format_timestamp::<arrow_array::types::TimestampMillisecondType>(value, dst, param) }
}

/// Year, month, day of a day count from 1970-01-01 (proleptic Gregorian;
/// Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `YYYY-MM-DD` of a day count from 1970-01-01, for years 0..=9999.
fn date_digits(days: i64) -> Option<[u8; 10]> {
    let (year, month, day) = civil_from_days(days);
    if !(0..=9999).contains(&year) {
        return None;
    }
    let year = year as usize;
    let ([y0, y1], [y2, y3]) = (PAIRS[year / 100], PAIRS[year % 100]);
    let [m0, m1] = PAIRS[month as usize];
    let [d0, d1] = PAIRS[day as usize];
    Some([y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1])
}

std::thread_local! {
    /// The day whose date was written last on this thread, and its text:
    /// the rows of a log or an event table mostly share their day with the
    /// row before, so the civil date is computed once per day, not per value.
    static LAST_DATE: core::cell::Cell<(i64, [u8; 10])> =
        const { core::cell::Cell::new((i64::MIN, [0; 10])) };
}

/// [`date_digits`] through the thread's last date ([`LAST_DATE`]; computed
/// afresh when the thread's locals are gone, as in a destructor).
#[inline]
fn date_text(days: i64) -> Option<[u8; 10]> {
    LAST_DATE
        .try_with(|last| {
            let (day, text) = last.get();
            if day == days {
                return Some(text);
            }
            let text = date_digits(days)?;
            last.set((days, text));
            Some(text)
        })
        .unwrap_or_else(|_| date_digits(days))
}

/// `YYYY-MM-DD` for years 0..=9999; false (nothing written) otherwise.
#[inline]
fn write_date(out: &mut Stamp, days: i64) -> bool {
    match date_text(days) {
        Some(text) => {
            out.put(text);
            true
        }
        None => false,
    }
}

/// `HH:MM:SS` and chrono's automatic fraction (none, 3, 6 or 9 digits).
#[inline]
fn write_time(out: &mut Stamp, seconds_of_day: u32, nanos: u32) {
    let [h0, h1] = PAIRS[(seconds_of_day / 3600) as usize];
    let [m0, m1] = PAIRS[(seconds_of_day / 60 % 60) as usize];
    let [s0, s1] = PAIRS[(seconds_of_day % 60) as usize];
    out.put([h0, h1, b':', m0, m1, b':', s0, s1]);
    if nanos == 0 {
        return;
    }
    // The fewest of 3, 6 or 9 digits that hold the fraction, each width
    // from its own quotient (milliseconds need one division, not four).
    if nanos.is_multiple_of(1_000_000) {
        let millis = nanos / 1_000_000;
        let [a0, a1] = PAIRS[(millis / 10) as usize];
        out.put([b'.', a0, a1, b'0' + (millis % 10) as u8]);
    } else if nanos.is_multiple_of(1_000) {
        let micros = nanos / 1_000;
        let [a0, a1] = PAIRS[(micros / 10_000) as usize];
        let [b0, b1] = PAIRS[(micros / 100 % 100) as usize];
        let [c0, c1] = PAIRS[(micros % 100) as usize];
        out.put([b'.', a0, a1, b0, b1, c0, c1]);
    } else {
        let (high, low) = ((nanos / 10_000_000) as usize, nanos % 10_000_000);
        let [a0, a1] = PAIRS[high];
        let [b0, b1] = PAIRS[(low / 100_000) as usize];
        let [c0, c1] = PAIRS[(low / 1_000 % 100) as usize];
        let [d0, d1] = PAIRS[(low / 10 % 100) as usize];
        out.put([
            b'.',
            a0,
            a1,
            b0,
            b1,
            c0,
            c1,
            d0,
            d1,
            b'0' + (low % 10) as u8,
        ]);
    }
}

/// A timestamp's seconds and nanoseconds from its value in `unit`.
#[inline]
fn split(value: i64, unit: TimeUnit) -> (i64, u32) {
    let per_second = match unit {
        TimeUnit::Second => return (value, 0),
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    };
    let nanos = value.rem_euclid(per_second) * (1_000_000_000 / per_second);
    (value.div_euclid(per_second), nanos as u32)
}

/// Writes seconds since the epoch (already shifted to local time) and
/// nanoseconds as `YYYY-MM-DDTHH:MM:SS[.f]`; false when the year is not
/// 0..=9999 (the caller then goes through chrono).
#[inline]
fn write_datetime(out: &mut Stamp, seconds: i64, nanos: u32) -> bool {
    // write_date writes nothing when it fails.
    if !write_date(out, seconds.div_euclid(86_400)) {
        return false;
    }
    out.put([b'T']);
    write_time(out, seconds.rem_euclid(86_400) as u32, nanos);
    true
}

/// Appends `value`'s text; `false`, having appended nothing, where its
/// `Display` fails. A chrono format that does not apply to the value's type
/// (`%H` of a date, `%z` of a time without a zone) fails so, and `write!` on
/// a `Vec<u8>` would turn that into a panic (arrow-json's writer panics
/// there); [`check_format`] refuses such a format before any row is written.
fn write_display(out: &mut Vec<u8>, value: impl std::fmt::Display) -> bool {
    struct Text<'a>(&'a mut Vec<u8>);
    impl std::fmt::Write for Text<'_> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.extend_from_slice(s.as_bytes());
            Ok(())
        }
    }
    let len = out.len();
    let written = std::fmt::write(&mut Text(out), format_args!("{value}")).is_ok();
    if !written {
        out.truncate(len);
    }
    written
}

/// Whether the strftime `format` applies to values of `data_type` (`tz`: a
/// timestamp's zone), tried on the epoch: chrono fails a format by the
/// fields it names, not by the value, so one value answers for all.
pub(crate) fn check_format(
    data_type: &arrow_schema::DataType,
    tz: Option<&arrow_array::timezone::Tz>,
    format: &str,
) -> bool {
    use arrow_schema::DataType as D;
    let epoch = chrono::DateTime::UNIX_EPOCH.naive_utc();
    let mut out = Vec::new();
    match (data_type, tz) {
        (D::Timestamp(..), Some(tz)) => write_display(
            &mut out,
            Utc.from_utc_datetime(&epoch)
                .with_timezone(tz)
                .format(format),
        ),
        (D::Timestamp(..) | D::Date64, None) => write_display(&mut out, epoch.format(format)),
        (D::Date32, _) => write_display(&mut out, epoch.date().format(format)),
        (D::Time32(_) | D::Time64(_), _) => write_display(&mut out, epoch.time().format(format)),
        _ => true,
    }
}

fn write_error(out: &mut Vec<u8>, what: &str, value: impl std::fmt::Display, plan: &Plan) {
    let _ = write!(
        out,
        "ERROR: Cast error: Failed to convert {value} to {what} for {}",
        plan.data_type
    );
}

struct Timestamps<'a, T: ArrowTimestampType> {
    values: &'a [i64],
    plan: &'a Plan,
    /// The zone's offset in seconds, when the default format is written here.
    offset: Option<i32>,
    _unit: std::marker::PhantomData<T>,
}

impl<T: ArrowTimestampType> Timestamps<'_, T> {
    /// chrono's way, for custom formats and years outside 0..=9999.
    #[cold]
    fn slow(&self, value: i64, out: &mut Vec<u8>) {
        let Some(naive) = as_datetime::<T>(value) else {
            return write_error(out, "datetime", value, self.plan);
        };
        let format = self.plan.format.as_deref();
        match (&self.plan.tz, format) {
            (Some(tz), Some(f)) => write_display(
                out,
                Utc.from_utc_datetime(&naive).with_timezone(tz).format(f),
            ),
            (Some(tz), None) => write_display(
                out,
                Utc.from_utc_datetime(&naive)
                    .with_timezone(tz)
                    .to_rfc3339_opts(SecondsFormat::AutoSi, true),
            ),
            (None, Some(f)) => write_display(out, naive.format(f)),
            (None, None) => write_display(out, format_args!("{naive:?}")),
        };
    }
}

impl<T: ArrowTimestampType> Encode for Timestamps<'_, T> {
    #[inline]
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        let value = self.values[row];
        if let Some(offset) = self.offset.filter(|_| self.plan.format.is_none())
            && stamp_into(out, STAMP_ROOM, |stamp| {
                stamp_text(stamp, value, T::UNIT, offset, self.plan.tz.is_some())
            })
        {
            return;
        }
        out.push(b'"');
        self.slow(value, out);
        out.push(b'"');
    }
}

/// `Z` or `+HH:MM` (`-HH:MM`), as chrono's RFC 3339 with `use_z`.
fn write_offset(out: &mut Stamp, offset: i32) {
    if offset == 0 {
        out.put([b'Z']);
        return;
    }
    let sign = if offset < 0 { b'-' } else { b'+' };
    let minutes = offset.unsigned_abs() / 60;
    let [h0, h1] = PAIRS[(minutes / 60) as usize];
    let [m0, m1] = PAIRS[(minutes % 60) as usize];
    out.put([sign, h0, h1, b':', m0, m1]);
}

pub(crate) fn bind_timestamp<'a, T: ArrowTimestampType>(
    plan: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    Ok(Box::new(Timestamps::<T> {
        values: array.as_primitive::<T>().values().as_ref(),
        plan,
        offset: fixed_offset(plan),
        _unit: std::marker::PhantomData,
    }))
}

/// The offset of a timestamp column's zone, in seconds east of UTC, where
/// it is one offset for every instant (no zone: 0; a zone written `±HH:MM`,
/// `±HHMM`, `±HH`, or `UTC`) of whole minutes: its values are written digit
/// by digit. `None` for the rest: a named zone (arrow with `chrono-tz`, as
/// DataFusion builds it) goes through chrono, since its offset changes with
/// the instant (summer time; the offset at the epoch wrote July in Paris an
/// hour early).
pub(crate) fn fixed_offset(plan: &Plan) -> Option<i32> {
    let fixed_zone = |name: &str| name == "UTC" || name.starts_with(['+', '-']);
    match (&plan.tz, &plan.data_type) {
        (None, _) => Some(0),
        (Some(tz), arrow_schema::DataType::Timestamp(_, Some(name))) if fixed_zone(name) => {
            let fixed = tz
                .offset_from_utc_datetime(&chrono::NaiveDateTime::default())
                .fix();
            let seconds = fixed.local_minus_utc();
            (seconds % 60 == 0).then_some(seconds)
        }
        (Some(_), _) => None,
    }
}

struct Date32s<'a> {
    values: &'a [i32],
    plan: &'a Plan,
}

impl Encode for Date32s<'_> {
    #[inline]
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        let value = self.values[row];
        if self.plan.format.is_none()
            && stamp_into(out, STAMP_ROOM, |stamp| write_date(stamp, i64::from(value)))
        {
            return;
        }
        out.push(b'"');
        match date32_to_datetime(value).map(|d| d.date()) {
            None => write_error(out, "temporal", value, self.plan),
            Some(date) => {
                match self.plan.format.as_deref() {
                    Some(f) => write_display(out, date.format(f)),
                    None => write_display(out, format_args!("{date:?}")),
                };
            }
        }
        out.push(b'"');
    }
}

pub(crate) fn bind_date32<'a>(
    plan: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    Ok(Box::new(Date32s {
        values: array.as_primitive::<Date32Type>().values().as_ref(),
        plan,
    }))
}

struct Date64s<'a> {
    values: &'a [i64],
    plan: &'a Plan,
}

impl Encode for Date64s<'_> {
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        let value = self.values[row];
        let (seconds, nanos) = split(value, TimeUnit::Millisecond);
        if self.plan.format.is_none()
            && stamp_into(out, STAMP_ROOM, |stamp| {
                write_datetime(stamp, seconds, nanos)
            })
        {
            return;
        }
        out.push(b'"');
        match date64_to_datetime(value) {
            None => write_error(out, "temporal", value, self.plan),
            Some(naive) => {
                match self.plan.format.as_deref() {
                    Some(f) => write_display(out, naive.format(f)),
                    None => write_display(out, format_args!("{naive:?}")),
                };
            }
        }
        out.push(b'"');
    }
}

pub(crate) fn bind_date64<'a>(
    plan: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    Ok(Box::new(Date64s {
        values: array.as_primitive::<Date64Type>().values().as_ref(),
        plan,
    }))
}

/// Times: the default format digit by digit (`time_text`), a custom one
/// through chrono.
struct Times<'a, T: ArrowPrimitiveType> {
    values: &'a [T::Native],
    plan: &'a Plan,
    convert: fn(T::Native) -> Option<chrono::NaiveTime>,
}

impl<T: ArrowPrimitiveType> Encode for Times<'_, T>
where
    T::Native: std::fmt::Display,
{
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        let value = self.values[row];
        if self.plan.format.is_none()
            && stamp_into(out, STAMP_ROOM, |stamp| {
                time_text(stamp, (self.convert)(value))
            })
        {
            return;
        }
        out.push(b'"');
        match (self.convert)(value) {
            None => write_error(out, "temporal", value, self.plan),
            Some(time) => {
                match self.plan.format.as_deref() {
                    Some(f) => write_display(out, time.format(f)),
                    None => write_display(out, format_args!("{time:?}")),
                };
            }
        }
        out.push(b'"');
    }
}

fn bind_time<'a, T: ArrowPrimitiveType>(
    plan: &'a Plan,
    array: &'a dyn Array,
    convert: fn(T::Native) -> Option<chrono::NaiveTime>,
) -> Result<Box<dyn Encode + 'a>, ArrowError>
where
    T::Native: std::fmt::Display,
{
    Ok(Box::new(Times::<T> {
        values: array.as_primitive::<T>().values().as_ref(),
        plan,
        convert,
    }))
}

pub(crate) fn bind_time32s<'a>(
    plan: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    bind_time::<Time32SecondType>(plan, array, time32s_to_time)
}

pub(crate) fn bind_time32ms<'a>(
    plan: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    bind_time::<Time32MillisecondType>(plan, array, time32ms_to_time)
}

pub(crate) fn bind_time64us<'a>(
    plan: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    bind_time::<Time64MicrosecondType>(plan, array, time64us_to_time)
}

pub(crate) fn bind_time64ns<'a>(
    plan: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    bind_time::<Time64NanosecondType>(plan, array, time64ns_to_time)
}

/// Durations as arrow-json writes them: chrono's ISO 8601 text of the
/// `TimeDelta` (`"PT1.5S"`, `"-P1DT…"`), `"<invalid>"` when chrono cannot hold
/// it (seconds and milliseconds beyond its range).
struct Durations<'a> {
    values: &'a [i64],
    unit: TimeUnit,
}

/// A duration's value in `unit` as chrono's `TimeDelta`, as arrow converts
/// it.
fn to_delta(value: i64, unit: TimeUnit) -> Option<chrono::TimeDelta> {
    use arrow_array::temporal_conversions as tc;
    match unit {
        TimeUnit::Second => tc::try_duration_s_to_duration(value),
        TimeUnit::Millisecond => tc::try_duration_ms_to_duration(value),
        TimeUnit::Microsecond => Some(tc::duration_us_to_duration(value)),
        TimeUnit::Nanosecond => Some(tc::duration_ns_to_duration(value)),
    }
}

/// The text of a duration, unquoted (both backends).
fn duration_text(
    w: &mut dyn std::fmt::Write,
    delta: Option<chrono::TimeDelta>,
) -> std::fmt::Result {
    match delta {
        Some(delta) => write!(w, "{delta}"),
        None => w.write_str("<invalid>"),
    }
}

impl Encode for Durations<'_> {
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        let delta = to_delta(self.values[row], self.unit);
        quoted_text(out, |w| duration_text(w, delta));
    }
}

/// The time units by their codes in a duration column's format parameter.
#[cfg(feature = "jit")]
const UNITS: [TimeUnit; 4] = [
    TimeUnit::Second,
    TimeUnit::Millisecond,
    TimeUnit::Microsecond,
    TimeUnit::Nanosecond,
];

/// The code of `unit` in [`UNITS`], the compiled writer's parameter of a
/// duration column.
#[cfg(feature = "jit")]
pub(crate) fn unit_code(unit: TimeUnit) -> u64 {
    UNITS.iter().position(|u| *u == unit).unwrap_or(0) as u64
}

/// The compiled writer's [`jitson_jit::FormatFn`] for durations in the
/// unit whose code is `param` ([`unit_code`]): what `Durations` writes.
///
/// # Safety
/// `dst` has room for [`TEXT_MAX_LEN`] bytes.
#[cfg(feature = "jit")]
pub(crate) unsafe extern "C" fn format_duration(value: u64, dst: *mut u8, param: u64) -> usize {
    let unit = UNITS[(param & 3) as usize];
    let delta = to_delta(value as i64, unit);
    // SAFETY: as the caller guarantees.
    unsafe { stamp_at(dst, TEXT_ROOM, |stamp| duration_text(stamp, delta).is_ok()) }
}

pub(crate) fn bind_duration<'a>(
    _: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    use arrow_array::types::*;
    let values: &[i64] = match array.data_type() {
        arrow_schema::DataType::Duration(TimeUnit::Second) => {
            array.as_primitive::<DurationSecondType>().values()
        }
        arrow_schema::DataType::Duration(TimeUnit::Millisecond) => {
            array.as_primitive::<DurationMillisecondType>().values()
        }
        arrow_schema::DataType::Duration(TimeUnit::Microsecond) => {
            array.as_primitive::<DurationMicrosecondType>().values()
        }
        _ => array.as_primitive::<DurationNanosecondType>().values(),
    };
    let arrow_schema::DataType::Duration(unit) = array.data_type() else {
        unreachable!("bound to a duration column")
    };
    Ok(Box::new(Durations {
        values,
        unit: *unit,
    }))
}

/// `"{years} years {months} mons"` (arrow-cast's text, years floored).
struct YearMonths<'a>(&'a [i32]);

/// The text of a year-month interval of `months`, unquoted.
fn year_month_text(w: &mut dyn std::fmt::Write, months: i32) -> std::fmt::Result {
    let months = f64::from(months);
    let years = (months / 12.0).floor();
    write!(w, "{years} years {} mons", months - years * 12.0)
}

impl Encode for YearMonths<'_> {
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        let months = self.0[row];
        quoted_text(out, |w| year_month_text(w, months));
    }
}

pub(crate) fn bind_interval_year_month<'a>(
    _: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    Ok(Box::new(YearMonths(
        array
            .as_primitive::<arrow_array::types::IntervalYearMonthType>()
            .values(),
    )))
}

/// Writes ` {hours} hours {mins} mins {s}.{fraction} secs` (each part only
/// when non-zero, `prefix` before the first) of a sub-day amount in units of
/// `10^-digits` seconds, as arrow-cast does.
fn write_clock(
    w: &mut dyn std::fmt::Write,
    amount: i64,
    digits: u32,
    mut prefix: &str,
) -> std::fmt::Result {
    let per_second = 10i64.pow(digits);
    let secs = amount / per_second;
    let mins = secs / 60;
    let hours = mins / 60;
    let (secs, mins) = (secs - mins * 60, mins - hours * 60);
    let fraction = amount % per_second;
    if hours != 0 {
        write!(w, "{prefix}{hours} hours")?;
        prefix = " ";
    }
    if mins != 0 {
        write!(w, "{prefix}{mins} mins")?;
        prefix = " ";
    }
    if secs != 0 || fraction != 0 {
        let sign = if secs < 0 || fraction < 0 { "-" } else { "" };
        write!(
            w,
            "{prefix}{sign}{}.{:0width$} secs",
            secs.abs(),
            fraction.abs(),
            width = digits as usize
        )?;
    }
    Ok(())
}

struct DayTimes<'a>(&'a [arrow_buffer::IntervalDayTime]);

/// The text of a day-time interval, unquoted.
fn day_time_text(
    w: &mut dyn std::fmt::Write,
    value: arrow_buffer::IntervalDayTime,
) -> std::fmt::Result {
    if value.days == 0 && value.milliseconds == 0 {
        return w.write_str("0 secs");
    }
    let mut prefix = "";
    if value.days != 0 {
        write!(w, "{} days", value.days)?;
        prefix = " ";
    }
    if value.milliseconds != 0 {
        write_clock(w, i64::from(value.milliseconds), 3, prefix)?;
    }
    Ok(())
}

impl Encode for DayTimes<'_> {
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        let value = self.0[row];
        quoted_text(out, |w| day_time_text(w, value));
    }
}

pub(crate) fn bind_interval_day_time<'a>(
    _: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    Ok(Box::new(DayTimes(
        array
            .as_primitive::<arrow_array::types::IntervalDayTimeType>()
            .values(),
    )))
}

struct MonthDayNanos<'a>(&'a [arrow_buffer::IntervalMonthDayNano]);

/// The text of a month-day-nanosecond interval, unquoted.
fn month_day_nano_text(
    w: &mut dyn std::fmt::Write,
    value: arrow_buffer::IntervalMonthDayNano,
) -> std::fmt::Result {
    if value.months == 0 && value.days == 0 && value.nanoseconds == 0 {
        return w.write_str("0 secs");
    }
    let mut prefix = "";
    if value.months != 0 {
        write!(w, "{} mons", value.months)?;
        prefix = " ";
    }
    if value.days != 0 {
        write!(w, "{prefix}{} days", value.days)?;
        prefix = " ";
    }
    if value.nanoseconds != 0 {
        write_clock(w, value.nanoseconds, 9, prefix)?;
    }
    Ok(())
}

impl Encode for MonthDayNanos<'_> {
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        let value = self.0[row];
        quoted_text(out, |w| month_day_nano_text(w, value));
    }
}

/// The compiled writer's [`jitson_jit::FormatFn`]s for intervals: what
/// their encoders write, or 0 (declined: the encoder writes it) for a text
/// longer than a stamp's room. A day-time value comes as its 8 bytes (days
/// in the low 32 bits: `IntervalDayTime` is `repr(C)`, days first), a
/// month-day-nanosecond one by its address.
///
/// # Safety
/// `dst` has room for [`TEXT_MAX_LEN`] bytes; for `format_month_day_nano`,
/// `value` is the address of an `IntervalMonthDayNano`.
#[cfg(feature = "jit")]
pub(crate) unsafe extern "C" fn format_year_month(value: u64, dst: *mut u8, _: u64) -> usize {
    let months = value as u32 as i32;
    // SAFETY: as the caller guarantees.
    unsafe {
        stamp_at(dst, TEXT_ROOM, |stamp| {
            year_month_text(stamp, months).is_ok()
        })
    }
}

/// See [`format_year_month`].
///
/// # Safety
/// As for [`format_year_month`].
#[cfg(feature = "jit")]
pub(crate) unsafe extern "C" fn format_day_time(value: u64, dst: *mut u8, _: u64) -> usize {
    let interval = arrow_buffer::IntervalDayTime::new(value as u32 as i32, (value >> 32) as i32);
    // SAFETY: as the caller guarantees.
    unsafe {
        stamp_at(dst, TEXT_ROOM, |stamp| {
            day_time_text(stamp, interval).is_ok()
        })
    }
}

/// See [`format_year_month`].
///
/// # Safety
/// As for [`format_year_month`].
#[cfg(feature = "jit")]
pub(crate) unsafe extern "C" fn format_month_day_nano(value: u64, dst: *mut u8, _: u64) -> usize {
    // SAFETY: the caller passes the address of a value of the column.
    let interval =
        unsafe { (value as usize as *const arrow_buffer::IntervalMonthDayNano).read_unaligned() };
    // SAFETY: as the caller guarantees.
    unsafe {
        stamp_at(dst, TEXT_ROOM, |stamp| {
            month_day_nano_text(stamp, interval).is_ok()
        })
    }
}

pub(crate) fn bind_interval_month_day_nano<'a>(
    _: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    Ok(Box::new(MonthDayNanos(
        array
            .as_primitive::<arrow_array::types::IntervalMonthDayNanoType>()
            .values(),
    )))
}
