//! chrono's types (feature `chrono`, issue 38), held to chrono's own serde
//! impls through serde_json on every backend: generated values decode to the
//! same value and encode to the same bytes, hostile texts are accepted and
//! refused alike (with chrono's message), and structs of them stay compiled.

use crate::common;
use crate::encodes_as_serde_json;

use chrono::{
    DateTime, FixedOffset, Local, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, TimeZone, Utc,
};
use common::oracle;
use jitson::Backend;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Stamps {
    utc: DateTime<Utc>,
    fixed: DateTime<FixedOffset>,
    naive: NaiveDateTime,
    date: NaiveDate,
    time: NaiveTime,
    later: Option<DateTime<Utc>>,
    days: Vec<NaiveDate>,
    took: TimeDelta,
}

/// One field of `T`, for texts tried alone.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct One<T> {
    t: T,
}

/// Asserts `text` (a JSON string's content) is read by every backend as
/// serde_json reads it into a `T`, and refused with chrono's message.
#[track_caller]
fn reads_as_chrono<T>(text: &str)
where
    T: jitson::Decode + for<'de> Deserialize<'de> + PartialEq + Debug,
{
    let doc = format!(r#"{{"t":{}}}"#, serde_json::to_string(text).unwrap());
    oracle::agree_with_reason::<One<T>>(&doc);
}

fn sample() -> Stamps {
    Stamps {
        utc: Utc.with_ymd_and_hms(2024, 2, 29, 23, 59, 58).unwrap(),
        fixed: FixedOffset::west_opt(5 * 3600 + 30 * 60)
            .unwrap()
            .with_ymd_and_hms(1999, 12, 31, 1, 2, 3)
            .unwrap(),
        naive: NaiveDate::from_ymd_opt(2020, 1, 1)
            .unwrap()
            .and_hms_micro_opt(0, 0, 0, 5)
            .unwrap(),
        date: NaiveDate::from_ymd_opt(-44, 3, 15).unwrap(),
        time: NaiveTime::from_hms_milli_opt(23, 59, 59, 1_500).unwrap(),
        later: None,
        days: vec![NaiveDate::MIN, NaiveDate::MAX],
        took: TimeDelta::new(-3, 5).unwrap(),
    }
}

#[test]
fn a_struct_of_chrono_types_round_trips_as_serde_json() {
    let value = sample();
    encodes_as_serde_json(&value);
    let json = serde_json::to_string(&value).unwrap();
    let back = oracle::agree::<Stamps>(json.as_bytes()).unwrap();
    assert_eq!(back, value);
    let mut later = value.clone();
    later.later = Some(value.utc);
    encodes_as_serde_json(&later);
}

#[test]
fn structs_of_chrono_types_stay_compiled() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<One<DateTime<Utc>>>().unwrap();
    jitson::warm_up_encode::<One<DateTime<Utc>>>().unwrap();
    let interpreted = jitson::stats().interpreted_layouts;
    assert!(
        // Other tests of this binary send a `DateTime` through serde's route
        // on purpose (`imported`); nothing of chrono's is interpreted
        // otherwise.
        !interpreted
            .iter()
            .any(|(ty, why)| ty.starts_with("chrono::") && !why.contains("serde")),
        "{interpreted:?}"
    );
    common::assert_compiled(&["One<chrono::datetime::DateTime<chrono::offset::utc::Utc>>"]);
}

/// Texts chrono's RFC 3339 reader accepts or refuses, the strict forms the
/// fast path reads and every relaxed or broken form around them.
const DATETIMES: &[&str] = &[
    "2024-01-02T03:04:05Z",
    "2024-01-02T03:04:05.1Z",
    "2024-01-02T03:04:05.123456789Z",
    "2024-01-02T03:04:05.1234567891234Z",
    "2024-01-02T03:04:05.Z",
    "2024-01-02T03:04:05+01:00",
    "2024-01-02T03:04:05-23:59",
    "2024-01-02T03:04:05+24:00",
    "2024-01-02T03:04:05+01:60",
    "2024-01-02T03:04:05+0100",
    "2024-01-02T03:04:05+01",
    "2024-01-02T03:04:05z",
    "2024-01-02T03:04:05 UTC",
    "2024-01-02t03:04:05Z",
    "2024-01-02 03:04:05Z",
    "2024-01-02T03:04:60Z",
    "2016-12-31T23:59:60.5Z",
    "2024-01-02T03:04:61Z",
    "2024-01-02T24:00:00Z",
    "2023-02-29T00:00:00Z",
    "2024-02-29T00:00:00Z",
    "2024-13-01T00:00:00Z",
    "2024-00-10T00:00:00Z",
    "0000-01-01T00:00:00+01:00",
    "9999-12-31T23:59:59-01:00",
    "+10000-01-01T00:00:00Z",
    "-0001-01-01T00:00:00Z",
    "24-01-02T03:04:05Z",
    "2024-1-02T03:04:05Z",
    "2024-01-02T03:04Z",
    "2024-01-02T03:04:05",
    "2024-01-02T03:04:05Z ",
    " 2024-01-02T03:04:05Z",
    "2024-01-02T03:04:05ZZ",
    "2024-01-02",
    "",
    "T",
    "2024-01-02T03:04:05\u{00e9}",
    "\u{0661}\u{0662}\u{0663}\u{0664}-01-02T03:04:05Z",
];

#[test]
fn datetime_texts_are_read_as_chrono_reads_them() {
    for text in DATETIMES {
        reads_as_chrono::<DateTime<Utc>>(text);
        reads_as_chrono::<DateTime<FixedOffset>>(text);
        reads_as_chrono::<DateTime<Local>>(text);
        reads_as_chrono::<NaiveDateTime>(text);
        reads_as_chrono::<NaiveDateTime>(text.trim_end_matches(['Z', 'z']));
        reads_as_chrono::<NaiveDate>(text);
        reads_as_chrono::<NaiveDate>(text.get(..10).unwrap_or(text));
        reads_as_chrono::<NaiveTime>(text.get(11..).unwrap_or(text));
        reads_as_chrono::<NaiveTime>(text.get(11..19).unwrap_or(text));
    }
    for text in [
        "12:34",
        "12:34:56.5",
        "1:02:03",
        "12:34:5",
        "12 : 34",
        "23:59:60.999999999",
    ] {
        reads_as_chrono::<NaiveTime>(text);
    }
}

#[test]
fn escaped_texts_and_other_json_types() {
    for doc in [
        r#"{"t":"2024-01-02T03:04:05\u005a"}"#,
        r#"{"t":"2024-01-02\u005403:04:05Z"}"#,
        r#"{"t":20240102}"#,
        r#"{"t":null}"#,
        r#"{"t":["2024-01-02T03:04:05Z"]}"#,
        r#"{"t":"2024-01-02T03:04:05Z"#,
    ] {
        let ours = common::decode::<One<DateTime<Utc>>>(doc.as_bytes());
        let theirs = serde_json::from_str::<One<DateTime<Utc>>>(doc);
        let _ = oracle::compare(doc.as_bytes(), ours, theirs, |a, b| a == b);
    }
}

#[test]
fn time_deltas_are_serdes_tuples() {
    for doc in [
        "[0,0]",
        "[-1,999999999]",
        "[5,-1]",
        "[5,1000000000]",
        "[9223372036854775807,0]",
        "[1]",
        "[1,2,3]",
        "\"1s\"",
    ] {
        let doc = format!(r#"{{"t":{doc}}}"#);
        let ours = common::decode::<One<TimeDelta>>(doc.as_bytes());
        let theirs = serde_json::from_str::<One<TimeDelta>>(&doc);
        if let Ok(v) = &ours {
            encodes_as_serde_json(v);
        }
        let _ = oracle::compare(doc.as_bytes(), ours, theirs, |a, b| a == b);
    }
    for d in [
        TimeDelta::MIN,
        TimeDelta::MAX,
        TimeDelta::milliseconds(-1500),
        TimeDelta::zero(),
    ] {
        encodes_as_serde_json(&One { t: d });
    }
}

/// Any instant chrono can hold, at any offset chrono allows, with fractions
/// of every precision (and leap seconds).
fn datetimes() -> impl Strategy<Value = DateTime<FixedOffset>> {
    let secs = NaiveDateTime::MIN.and_utc().timestamp()..=NaiveDateTime::MAX.and_utc().timestamp();
    let nanos = prop_oneof![
        Just(0u32),
        (0u32..1000).prop_map(|n| n * 1_000_000),
        (0u32..1_000_000).prop_map(|n| n * 1000),
        0u32..2_000_000_000,
    ];
    let offset = prop_oneof![
        Just(0i32),
        -86_399i32..86_400,
        (-1439i32..1440).prop_map(|m| m * 60)
    ];
    (secs, nanos, offset).prop_filter_map("in range", |(secs, nanos, offset)| {
        let utc = DateTime::from_timestamp(secs, nanos)?;
        Some(utc.with_timezone(&FixedOffset::east_opt(offset)?))
    })
}

/// Mostly years chrono writes plainly.
fn common_datetimes() -> impl Strategy<Value = DateTime<FixedOffset>> {
    (0i64..253_402_300_799, datetimes()).prop_filter_map("in range", |(secs, dt)| {
        let utc = DateTime::from_timestamp(secs, dt.timestamp_subsec_nanos())?;
        Some(utc.with_timezone(dt.offset()))
    })
}

proptest! {
    #[test]
    fn generated_values_agree_with_chrono(
        dt in prop_oneof![datetimes(), common_datetimes()],
        other in common_datetimes(),
        secs in any::<i64>(),
        nanos in 0u32..1_000_000_000,
    ) {
        let took = TimeDelta::new(secs / 1000, nanos).unwrap_or_default();
        let value = Stamps {
            utc: dt.with_timezone(&Utc),
            fixed: dt,
            naive: dt.naive_local(),
            date: other.date_naive(),
            time: dt.time(),
            later: Some(other.to_utc()),
            days: vec![dt.date_naive(), other.date_naive()],
            took,
        };
        encodes_as_serde_json(&value);
        // The reading is compared with serde_json's, not with `value`: an
        // offset with seconds is written rounded to the minute, by chrono too.
        let json = serde_json::to_string(&value).unwrap();
        // An offset of -23:59:30 is written as -24:00, which chrono then
        // refuses: agreeing on the refusal is agreeing.
        let _ = oracle::agree::<Stamps>(json.as_bytes());
    }

    #[test]
    fn generated_texts_agree_with_chrono(
        text in "[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{0,12})?(Z|z|[+-][0-9]{2}:?[0-9]{2}|)"
    ) {
        reads_as_chrono::<DateTime<FixedOffset>>(&text);
        reads_as_chrono::<NaiveDateTime>(&text);
    }
}

/// chrono's `with` modules (`with` needs jitson's `serde` feature: the
/// fallback route calls the modules' functions).
#[cfg(feature = "serde")]
mod with_modules {
    use super::*;
    use crate::common::backends;
    use jitson::Encoder;

    /// chrono's `with` modules, named as they usually are; the derive recognises
    /// the module and gives the field jitson's layout of that form.
    #[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Timestamps {
        #[serde(with = "chrono::serde::ts_seconds")]
        s: DateTime<Utc>,
        #[serde(with = "::chrono::serde::ts_milliseconds")]
        ms: DateTime<Utc>,
        #[serde(with = "chrono::serde::ts_microseconds")]
        us: DateTime<Utc>,
        #[serde(with = "chrono::serde::ts_nanoseconds")]
        ns: DateTime<Utc>,
        #[serde(with = "chrono::serde::ts_seconds_option")]
        s_opt: Option<DateTime<Utc>>,
        #[serde(with = "chrono::serde::ts_milliseconds_option")]
        ms_opt: Option<DateTime<Utc>>,
        #[serde(with = "chrono::serde::ts_microseconds_option")]
        us_opt: Option<DateTime<Utc>>,
        #[serde(with = "chrono::serde::ts_nanoseconds_option")]
        ns_opt: Option<DateTime<Utc>>,
        #[serde(
            deserialize_with = "chrono::serde::ts_seconds::deserialize",
            serialize_with = "chrono::serde::ts_seconds::serialize"
        )]
        functions: DateTime<Utc>,
        /// Through serde's route (an imported module is not recognised), still
        /// as serde reads it.
        #[serde(with = "ts_seconds")]
        imported: DateTime<Utc>,
    }

    use chrono::serde::ts_seconds;

    #[test]
    fn timestamp_modules_are_read_and_written_natively() {
        let at = |secs: i64, nanos: u32| DateTime::from_timestamp(secs, nanos).unwrap();
        let value = Timestamps {
            s: at(1_700_000_000, 0),
            ms: at(-1, 5_000_000),
            us: at(1_700_000_000, 123_456_000),
            ns: at(-1_700_000_000, 123_456_789),
            s_opt: Some(at(0, 0)),
            ms_opt: None,
            us_opt: Some(at(1, 1000)),
            ns_opt: Some(at(2, 2)),
            functions: at(3, 0),
            imported: at(4, 0),
        };
        encodes_as_serde_json(&value);
        let json = serde_json::to_string(&value).unwrap();
        assert_eq!(oracle::agree::<Timestamps>(json.as_bytes()).unwrap(), value);
        // Recognised modules get jitson's layout of their form, not serde's.
        // The probe the derive writes for each recognised module finds
        // jitson's layout (stats cannot tell: a serde route's layout and the
        // native one name the same type).
        use jitson::__private::route::{With, WithNative as _, WithSerde as _, module_key};
        macro_rules! native {
            ($path:literal, $ty:ty) => {{
                let probe = &&With::<{ module_key($path) }, $ty>::new();
                probe.with_decode().is_some() && probe.with_encode().is_some()
            }};
        }
        assert!(native!("chrono::serde::ts_seconds", DateTime<Utc>));
        assert!(native!(
            "chrono::serde::ts_nanoseconds_option",
            Option<DateTime<Utc>>
        ));
        assert!(!native!("ts_seconds", DateTime<Utc>));
        assert!(!native!("chrono::serde::ts_seconds", DateTime<FixedOffset>));
        // Out of range for nanoseconds: chrono's serializer refuses, so do we.
        let far = Timestamps {
            ns: at(1 << 40, 0),
            ..value.clone()
        };
        let theirs = serde_json::to_string(&far).unwrap_err().to_string();
        for backend in backends() {
            let ours = Encoder::<Timestamps>::with_backend(backend)
                .encode(&far)
                .unwrap_err();
            assert!(ours.to_string().contains(&theirs), "{ours} / {theirs}");
        }
    }

    #[test]
    fn timestamp_texts_are_read_as_chrono_reads_them() {
        let fields = ["s", "ms", "us", "ns", "s_opt", "ns_opt", "functions"];
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
            "18446744073709551615",
            "18446744073709551616",
            "8210298412799",
            "8210298412800",
            "-8334632851200",
            "-8334632851201",
            "1e400",
            "-1e400",
            "1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
            "\"5\"",
            "null",
            "true",
            "[]",
        ];
        let base = serde_json::to_value(Timestamps {
            s: DateTime::UNIX_EPOCH,
            ms: DateTime::UNIX_EPOCH,
            us: DateTime::UNIX_EPOCH,
            ns: DateTime::UNIX_EPOCH,
            s_opt: None,
            ms_opt: None,
            us_opt: None,
            ns_opt: None,
            functions: DateTime::UNIX_EPOCH,
            imported: DateTime::UNIX_EPOCH,
        })
        .unwrap();
        for field in fields {
            for number in numbers {
                let doc =
                    oracle::replace_member(&serde_json::to_string(&base).unwrap(), field, number);
                oracle::agree_with_reason::<Timestamps>(&doc);
            }
        }
    }
}

/// A `_option` module's field without `default`: an absent key is a missing
/// field, as serde's derive makes it for any field with `with`; with
/// `default`, `None`.
#[cfg(feature = "serde")]
#[test]
fn an_absent_option_module_field_is_missing_unless_it_has_a_default() {
    #[derive(jitson::Decode, Serialize, Deserialize, Debug, PartialEq)]
    struct Required {
        #[serde(with = "chrono::serde::ts_seconds_option")]
        v: Option<DateTime<Utc>>,
    }
    #[derive(jitson::Decode, Serialize, Deserialize, Debug, PartialEq)]
    struct Defaulted {
        #[serde(default, with = "chrono::serde::ts_seconds_option")]
        v: Option<DateTime<Utc>>,
    }
    for doc in ["{}", r#"{"v":null}"#, r#"{"v":5}"#] {
        oracle::agree_with_reason::<Required>(doc);
        oracle::agree_with_reason::<Defaulted>(doc);
    }
    assert!(common::decode::<Required>(b"{}").is_err());
}
