//! time's types (feature `time`, issue 38), held to time's own serde impls
//! through serde_json on every backend: generated values decode to the same
//! value and encode to the same bytes, hostile texts are accepted and refused
//! alike (with time's message), the `with` modules are read natively, and
//! structs of them stay compiled.
//!
//! time's `OffsetDateTime` compares instants (`==` ignores the offset), so
//! values are compared by their `Debug` text, which shows every field.

use crate::common;
use crate::encodes_as_serde_json;

use common::{backends, oracle};
use jitson::{Backend, Encode, Encoder};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Stamps {
    at: OffsetDateTime,
    plain: PrimitiveDateTime,
    date: Date,
    time: Time,
    offset: UtcOffset,
    later: Option<OffsetDateTime>,
    days: Vec<Date>,
}

/// One field of `T`, for texts tried alone.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct One<T> {
    t: T,
}

/// time's `with` modules, as they are usually named.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Modules {
    #[serde(with = "time::serde::rfc3339")]
    rfc: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    rfc_opt: Option<OffsetDateTime>,
    #[serde(with = "time::serde::iso8601")]
    iso: OffsetDateTime,
    #[serde(with = "time::serde::iso8601::option")]
    iso_opt: Option<OffsetDateTime>,
    #[serde(with = "time::serde::timestamp")]
    s: OffsetDateTime,
    #[serde(with = "time::serde::timestamp::option")]
    s_opt: Option<OffsetDateTime>,
    #[serde(with = "time::serde::timestamp::milliseconds")]
    ms: OffsetDateTime,
    #[serde(with = "time::serde::timestamp::milliseconds::option")]
    ms_opt: Option<OffsetDateTime>,
    #[serde(with = "time::serde::timestamp::milliseconds_i64")]
    ms64: OffsetDateTime,
    #[serde(with = "time::serde::timestamp::milliseconds_i64::option")]
    ms64_opt: Option<OffsetDateTime>,
    #[serde(with = "time::serde::timestamp::microseconds")]
    us: OffsetDateTime,
    #[serde(with = "time::serde::timestamp::microseconds::option")]
    us_opt: Option<OffsetDateTime>,
    #[serde(with = "time::serde::timestamp::nanoseconds")]
    ns: OffsetDateTime,
    #[serde(with = "time::serde::timestamp::nanoseconds::option")]
    ns_opt: Option<OffsetDateTime>,
    /// Through serde's route (an imported module is not recognised).
    #[serde(with = "rfc3339")]
    imported: OffsetDateTime,
}

use time::serde::rfc3339;

/// Values equal field by field (their `Debug` texts).
fn same<A: Debug, B: Debug>(a: &A, b: &B) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// Asserts every backend refuses to write `value` as serde_json does, with
/// its message.
#[track_caller]
fn refused_as_by_serde_json<T: Encode + Serialize + Debug>(value: &T) {
    let theirs = serde_json::to_string(value).unwrap_err().to_string();
    for backend in backends() {
        let ours = Encoder::<T>::with_backend(backend)
            .encode(value)
            .unwrap_err();
        assert!(ours.to_string().contains(&theirs), "{ours} / {theirs}");
    }
}

/// Asserts `doc` is read by every backend as serde_json reads it, and
/// refused with the same reason.
#[track_caller]
fn reads_as_time<T>(doc: &str)
where
    T: jitson::Decode + for<'de> Deserialize<'de> + PartialEq + Debug,
{
    let ours = common::decode::<T>(doc.as_bytes());
    let theirs = serde_json::from_str::<T>(doc);
    if let (Err(a), Err(b)) = (&ours, &theirs) {
        crate::assert_same_reason(&doc, a, b);
    }
    let _ = oracle::compare(doc.as_bytes(), ours, theirs, same);
}

/// `text` as a JSON string in `One<T>`.
#[track_caller]
fn text_reads_as_time<T>(text: &str)
where
    T: jitson::Decode + for<'de> Deserialize<'de> + PartialEq + Debug,
{
    let doc = format!(r#"{{"t":{}}}"#, serde_json::to_string(text).unwrap());
    reads_as_time::<One<T>>(&doc);
}

fn date(y: i32, m: Month, d: u8) -> Date {
    Date::from_calendar_date(y, m, d).unwrap()
}

fn sample() -> Stamps {
    let at = PrimitiveDateTime::new(
        date(2024, Month::February, 29),
        Time::from_hms_nano(23, 59, 58, 120_000_000).unwrap(),
    )
    .assume_offset(UtcOffset::from_hms(-5, -30, 0).unwrap());
    Stamps {
        at,
        plain: PrimitiveDateTime::new(date(2020, Month::January, 1), Time::MIDNIGHT),
        date: date(-44, Month::March, 15),
        time: Time::from_hms_nano(1, 2, 3, 5).unwrap(),
        offset: UtcOffset::from_hms(0, -30, -15).unwrap(),
        later: None,
        days: vec![Date::MIN, Date::MAX],
    }
}

/// This build's time writes text (its `serde-human-readable`, asked for by
/// the dev-dependency), so the tests below hold jitson's native layouts to
/// it; with time's tuple forms, jitson's probe sends the types through
/// time's impl instead (`core/src/foreign/time.rs`).
#[test]
fn time_writes_text_in_this_build() {
    let value = sample();
    assert_eq!(
        serde_json::to_string(&value.date).unwrap(),
        r#""-0044-03-15""#
    );
    assert_eq!(
        serde_json::to_string(&value.at).unwrap(),
        r#""2024-02-29 23:59:58.12 -05:30:00""#
    );
    assert!(serde_json::from_str::<Date>(r#""2024-01-02""#).is_ok());
}

#[test]
fn a_struct_of_time_types_round_trips_as_serde_json() {
    let value = sample();
    encodes_as_serde_json(&value);
    let json = serde_json::to_string(&value).unwrap();
    let back = oracle::compare(
        json.as_bytes(),
        common::decode::<Stamps>(json.as_bytes()),
        serde_json::from_str::<Stamps>(&json),
        same,
    )
    .unwrap();
    assert!(same(&back, &value));
    let mut later = value.clone();
    later.later = Some(value.at);
    encodes_as_serde_json(&later);
}

#[test]
fn structs_of_time_types_stay_compiled() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Stamps>().unwrap();
    jitson::warm_up_encode::<Stamps>().unwrap();
    jitson::warm_up::<Modules>().unwrap();
    jitson::warm_up_encode::<Modules>().unwrap();
    let interpreted = jitson::stats().interpreted_layouts;
    let named = |ty: &str| ty.starts_with("time::") || ty.contains("foreign::time::");
    // Only `imported`, which goes through serde's route.
    let through_serde = interpreted
        .iter()
        .filter(|(ty, why)| named(ty) && why.contains("serde"))
        .count();
    assert!(through_serde <= 1, "{interpreted:?}");
    assert!(
        !interpreted
            .iter()
            .any(|(ty, why)| named(ty) && !why.contains("serde")),
        "{interpreted:?}"
    );
    common::assert_compiled(&["Stamps"]);
}

/// Texts time's human-readable formats accept or refuse, around the forms
/// the fast paths read.
const OFFSET_DATETIMES: &[&str] = &[
    "2024-01-02 03:04:05.0 +00:00:00",
    "2024-01-02 03:04:05.5 +01:02:03",
    "2024-01-02 03:04:05.123456789 -23:59:59",
    "2024-01-02 03:04:05.1234567891 +00:00:00",
    "2024-01-02 03:04:05.000000000000 +00:00:00",
    "2024-01-02 03:04:05 +00:00:00",
    "2024-01-02 03:04:05. +00:00:00",
    "2024-01-02 03:04:05.0 -00:30:00",
    "2024-01-02 03:04:05.0 -00:00:00",
    "2024-01-02 03:04:05.0 +25:59:59",
    "2024-01-02 03:04:05.0 +26:00:00",
    "2024-01-02 03:04:05.0 +01:60:00",
    "2024-01-02 03:04:05.0 +01:00:60",
    "2024-01-02 03:04:05.0 +01:00",
    "2024-01-02 03:04:05.0 01:00:00",
    "2024-01-02 03:04:05.0 Z",
    "2024-01-02 03:04:05.0+00:00:00",
    "2024-01-02T03:04:05.0 +00:00:00",
    "2024-01-02 03:04:60.0 +00:00:00",
    "2024-01-02 24:00:00.0 +00:00:00",
    "2023-02-29 00:00:00.0 +00:00:00",
    "2024-02-29 00:00:00.0 +00:00:00",
    "2024-13-01 00:00:00.0 +00:00:00",
    "2024-00-10 00:00:00.0 +00:00:00",
    "2024-01-00 00:00:00.0 +00:00:00",
    "0000-01-01 00:00:00.0 +00:00:00",
    "9999-12-31 23:59:59.999999999 -25:59:59",
    "-0001-01-01 00:00:00.0 +00:00:00",
    "+2024-01-01 00:00:00.0 +00:00:00",
    "-9999-01-01 00:00:00.0 +00:00:00",
    "+10000-01-01 00:00:00.0 +00:00:00",
    "24-01-02 03:04:05.0 +00:00:00",
    "2024-1-02 03:04:05.0 +00:00:00",
    "2024-01-02 3:04:05.0 +00:00:00",
    "2024-01-02 03:04:05.0 +00:00:00 ",
    " 2024-01-02 03:04:05.0 +00:00:00",
    "2024-01-02",
    "",
    "2024-01-02 03:04:05.0 +00:00:0\u{00e9}",
    "\u{0661}\u{0662}\u{0663}\u{0664}-01-02 03:04:05.0 +00:00:00",
];

#[test]
fn human_readable_texts_are_read_as_time_reads_them() {
    for text in OFFSET_DATETIMES {
        text_reads_as_time::<OffsetDateTime>(text);
        // The same text's parts, for the other types.
        let plain = text.rsplit_once(' ').map_or(*text, |(p, _)| p);
        text_reads_as_time::<PrimitiveDateTime>(plain);
        text_reads_as_time::<PrimitiveDateTime>(text);
        text_reads_as_time::<Date>(text.get(..10).unwrap_or(text));
        text_reads_as_time::<Date>(plain.split(' ').next().unwrap());
        text_reads_as_time::<Time>(plain.split_once(' ').map_or(plain, |(_, t)| t));
        text_reads_as_time::<UtcOffset>(text.rsplit(' ').next().unwrap());
    }
    for text in [
        "12:34:56.0",
        "12:34:56",
        "1:02:03.0",
        "12:34:5.0",
        "23:59:60.0",
    ] {
        text_reads_as_time::<Time>(text);
    }
}

#[test]
fn other_json_types_and_escapes() {
    for value in [
        r#""2024-01-02 03:04:05.0 +00:00:00""#,
        r#""2024-01-02\u002003:04:05.0 +00:00:00""#,
        "20240102",
        "-1.5",
        "null",
        "true",
        "{}",
        r#""2024-01-02 03:04:05.0 +00:00:00"#,
    ] {
        reads_as_time::<One<OffsetDateTime>>(&format!(r#"{{"t":{value}}}"#));
    }
}

/// The one difference the module documents: time's human-readable impls
/// still read their tuple form from an array; jitson refuses arrays.
#[test]
fn arrays_are_refused_where_time_reads_its_tuples() {
    let doc = r#"{"t":[2024,2]}"#;
    assert!(serde_json::from_str::<One<Date>>(doc).is_ok());
    let e = common::err::<One<Date>>(doc.as_bytes());
    assert_eq!(e.classify(), jitson::Category::Data, "{e}");
    // An array time refuses too is refused in the same category.
    let doc = r#"{"t":["2024-01-02"]}"#;
    let theirs = serde_json::from_str::<One<Date>>(doc).unwrap_err();
    let e = common::err::<One<Date>>(doc.as_bytes());
    assert_eq!(e.classify(), oracle::category(&theirs), "{e} / {theirs}");
}

fn rfc3339_value(year: i32, nanos: u32, offset: UtcOffset) -> OffsetDateTime {
    PrimitiveDateTime::new(
        date(year, Month::July, 4),
        Time::from_hms_nano(12, 30, 45, nanos).unwrap(),
    )
    .assume_offset(offset)
}

fn modules(at: OffsetDateTime) -> Modules {
    Modules {
        rfc: at,
        rfc_opt: Some(at),
        iso: at,
        iso_opt: None,
        s: at,
        s_opt: Some(at),
        ms: at,
        ms_opt: None,
        ms64: at,
        ms64_opt: Some(at),
        us: at,
        us_opt: Some(at),
        ns: at,
        ns_opt: None,
        imported: at,
    }
}

#[test]
fn with_modules_are_read_and_written_natively() {
    for at in [
        rfc3339_value(2024, 0, UtcOffset::UTC),
        rfc3339_value(1969, 1, UtcOffset::from_hms(-1, -30, 0).unwrap()),
        rfc3339_value(0, 999_999_999, UtcOffset::from_hms(23, 59, 0).unwrap()),
        rfc3339_value(9999, 120_000_000, UtcOffset::from_hms(-23, 0, 0).unwrap()),
    ] {
        let value = modules(at);
        encodes_as_serde_json(&value);
        let json = serde_json::to_string(&value).unwrap();
        reads_as_time::<Modules>(&json);
    }
    // The probe the derive writes finds jitson's layout for each module
    // (stats cannot tell: the serde route's layout names the same type).
    use jitson::__private::route::{With, WithNative as _, WithSerde as _, module_key};
    macro_rules! native {
        ($path:literal, $ty:ty) => {{
            let probe = &&With::<{ module_key($path) }, $ty>::new();
            probe.with_decode().is_some() && probe.with_encode().is_some()
        }};
    }
    assert!(native!("time::serde::rfc3339", OffsetDateTime));
    assert!(native!(
        "time::serde::rfc3339::option",
        Option<OffsetDateTime>
    ));
    assert!(native!("time::serde::iso8601", OffsetDateTime));
    assert!(native!("time::serde::timestamp", OffsetDateTime));
    assert!(native!(
        "time::serde::timestamp::nanoseconds::option",
        Option<OffsetDateTime>
    ));
    assert!(!native!("rfc3339", OffsetDateTime));
    if Backend::Jit.is_available() {
        jitson::warm_up::<Modules>().unwrap();
    }
    // What RFC 3339 cannot hold, time's formatter refuses, and so do we.
    for at in [
        rfc3339_value(-1, 0, UtcOffset::UTC),
        rfc3339_value(2024, 0, UtcOffset::from_hms(1, 0, 30).unwrap()),
        rfc3339_value(2024, 0, UtcOffset::from_hms(24, 0, 0).unwrap()),
    ] {
        refused_as_by_serde_json(&One { t: at }.with_rfc());
    }
}

/// `One` with its field written by `time::serde::rfc3339`.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Rfc {
    #[serde(with = "time::serde::rfc3339")]
    t: OffsetDateTime,
}

impl One<OffsetDateTime> {
    fn with_rfc(self) -> Rfc {
        Rfc { t: self.t }
    }
}

/// Texts time's RFC 3339 reader accepts or refuses.
const RFC3339_TEXTS: &[&str] = &[
    "2024-01-02T03:04:05Z",
    "2024-01-02T03:04:05.1Z",
    "2024-01-02T03:04:05.123456789Z",
    "2024-01-02T03:04:05.1234567891234Z",
    "2024-01-02T03:04:05.Z",
    "2024-01-02T03:04:05+01:00",
    "2024-01-02T03:04:05-23:59",
    "2024-01-02T03:04:05-00:00",
    "2024-01-02T03:04:05+24:00",
    "2024-01-02T03:04:05+01:60",
    "2024-01-02T03:04:05+0100",
    "2024-01-02T03:04:05+01",
    "2024-01-02T03:04:05+01:00:00",
    "2024-01-02T03:04:05z",
    "2024-01-02t03:04:05Z",
    "2024-01-02 03:04:05Z",
    "2024-01-02x03:04:05Z",
    "2024-01-02T03:04:60Z",
    "2016-12-31T23:59:60Z",
    "2016-12-31T23:59:60.5Z",
    "2024-01-02T03:04:61Z",
    "2024-01-02T24:00:00Z",
    "2023-02-29T00:00:00Z",
    "2024-13-01T00:00:00Z",
    "0000-01-01T00:00:00+01:00",
    "9999-12-31T23:59:59-01:00",
    "+10000-01-01T00:00:00Z",
    "-0001-01-01T00:00:00Z",
    "2024-01-02T03:04Z",
    "2024-01-02T03:04:05",
    "2024-01-02T03:04:05Z ",
    "2024-01-02T03:04:05ZZ",
    "2024-01-02",
    "",
];

#[test]
fn rfc3339_and_iso8601_texts_are_read_as_time_reads_them() {
    for text in RFC3339_TEXTS {
        let doc = format!(r#"{{"t":{}}}"#, serde_json::to_string(text).unwrap());
        reads_as_time::<Rfc>(&doc);
        reads_as_time::<Iso>(&doc);
        reads_as_time::<IsoOpt>(&doc);
    }
    for text in [
        "+002024-01-02T03:04:05.000000000Z",
        "+002024-01-02T03:04:05.000000000+01:00",
        "2024-01-02T03:04:05Z",
        "20240102T030405Z",
        "+002024-01-02T03:04:05.5-01:30",
        "-000001-01-02T03:04:05.000000000Z",
    ] {
        let doc = format!(r#"{{"t":{}}}"#, serde_json::to_string(text).unwrap());
        reads_as_time::<Iso>(&doc);
    }
    for value in ["5", "null", "[]", "true"] {
        reads_as_time::<Rfc>(&format!(r#"{{"t":{value}}}"#));
        reads_as_time::<Iso>(&format!(r#"{{"t":{value}}}"#));
        reads_as_time::<IsoOpt>(&format!(r#"{{"t":{value}}}"#));
    }
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Iso {
    #[serde(with = "time::serde::iso8601")]
    t: OffsetDateTime,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct IsoOpt {
    #[serde(with = "time::serde::iso8601::option")]
    t: Option<OffsetDateTime>,
}

#[test]
fn timestamp_texts_are_read_as_time_reads_them() {
    let fields = [
        "s", "s_opt", "ms", "ms_opt", "ms64", "ms64_opt", "us", "us_opt", "ns", "ns_opt",
    ];
    let numbers = [
        "0",
        "-0",
        "1",
        "-1",
        "1.5",
        "1e3",
        "-1.0",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "253402300799",
        "253402300800",
        "-377705116800",
        "-377705116801",
        "253402300799999999999",
        "253402300800000000000",
        "170141183460469231731687303715884105727",
        "170141183460469231731687303715884105728",
        "-170141183460469231731687303715884105729",
        "1e400",
        "\"5\"",
        "null",
        "true",
        "[]",
    ];
    let base = serde_json::to_string(&modules(OffsetDateTime::UNIX_EPOCH)).unwrap();
    for field in fields {
        for number in numbers {
            let mut doc = base.clone();
            let key = format!("\"{field}\":");
            let at = doc.find(&key).unwrap() + key.len();
            let end = at + doc[at..].find([',', '}']).unwrap();
            doc.replace_range(at..end, number);
            reads_as_time::<Modules>(&doc);
        }
    }
}

/// Any date time can hold.
fn dates() -> impl Strategy<Value = Date> {
    (Date::MIN.to_julian_day()..=Date::MAX.to_julian_day())
        .prop_map(|d| Date::from_julian_day(d).unwrap())
}

/// Times with fractions of every precision.
fn times() -> impl Strategy<Value = Time> {
    let nanos = prop_oneof![
        Just(0u32),
        (0u32..1000).prop_map(|n| n * 1_000_000),
        (0u32..1_000_000).prop_map(|n| n * 1000),
        0u32..1_000_000_000,
    ];
    (0u8..24, 0u8..60, 0u8..60, nanos)
        .prop_map(|(h, m, s, n)| Time::from_hms_nano(h, m, s, n).unwrap())
}

/// Any offset time allows, and the usual ones.
fn offsets() -> impl Strategy<Value = UtcOffset> {
    prop_oneof![
        Just(UtcOffset::UTC),
        (-93_599i32..=93_599).prop_map(|s| UtcOffset::from_whole_seconds(s).unwrap()),
        (-1439i32..1440).prop_map(|m| UtcOffset::from_whole_seconds(m * 60).unwrap()),
    ]
}

/// Mostly the years time writes plainly.
fn common_dates() -> impl Strategy<Value = Date> {
    let first = date(0, Month::January, 1).to_julian_day();
    let last = date(9999, Month::December, 31).to_julian_day();
    (first..=last).prop_map(|d| Date::from_julian_day(d).unwrap())
}

proptest! {
    #[test]
    fn generated_values_agree_with_time(
        d in prop_oneof![dates(), common_dates()],
        other in common_dates(),
        t in times(),
        o in offsets(),
        o2 in offsets(),
    ) {
        let at = PrimitiveDateTime::new(d, t).assume_offset(o);
        let value = Stamps {
            at,
            plain: PrimitiveDateTime::new(other, t),
            date: d,
            time: t,
            offset: o2,
            later: Some(PrimitiveDateTime::new(other, t).assume_offset(o2)),
            days: vec![d, other],
        };
        encodes_as_serde_json(&value);
        let json = serde_json::to_string(&value).unwrap();
        let back = oracle::compare(
            json.as_bytes(),
            common::decode::<Stamps>(json.as_bytes()),
            serde_json::from_str::<Stamps>(&json),
            same,
        );
        prop_assert!(back.is_ok());
        prop_assert!(same(&back.unwrap(), &value));
    }

    #[test]
    fn generated_module_values_agree_with_time(
        d in common_dates(),
        t in times(),
        minutes in -1439i32..1440,
    ) {
        let o = UtcOffset::from_whole_seconds(minutes * 60).unwrap();
        let value = modules(PrimitiveDateTime::new(d, t).assume_offset(o));
        encodes_as_serde_json(&value);
        let json = serde_json::to_string(&value).unwrap();
        reads_as_time::<Modules>(&json);
    }

    #[test]
    fn generated_texts_agree_with_time(
        human in prop_oneof![
            concat!("[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{0,11})? ",
                "[+-][0-9]{2}:[0-9]{2}:[0-9]{2}"),
            concat!("[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8]) ([01][0-9]|2[0-3]):[0-5][0-9]:",
                "[0-5][0-9]\\.[0-9]{1,10} [+-](0[0-9]|1[0-9]|2[0-6]):[0-5][0-9]:[0-5][0-9]"),
        ],
        rfc in prop_oneof![
            concat!("[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{0,12})?",
                "(Z|z|[+-][0-9]{2}:?[0-9]{2}|)"),
            concat!("[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])T([01][0-9]|2[0-3]):[0-5][0-9]:",
                "[0-6][0-9](\\.[0-9]{0,10})?(Z|[+-]([01][0-9]|2[0-4]):[0-5][0-9])"),
        ],
    ) {
        text_reads_as_time::<OffsetDateTime>(&human);
        text_reads_as_time::<PrimitiveDateTime>(human.rsplit_once(' ').unwrap().0);
        reads_as_time::<Rfc>(&format!(r#"{{"t":{}}}"#, serde_json::to_string(&rfc).unwrap()));
    }
}
