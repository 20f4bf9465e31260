//! The escape hatch through serde (feature `serde`, on by default): fields with
//! `with`, `deserialize_with` or `#[jitson(serde)]` are decoded by their serde
//! deserializer over the value's text, on every backend; `RawValue` and
//! `IgnoredAny` implement serde's traits.
#![cfg(feature = "serde")]

mod common;

use jitson::{Decode, ErrorKind};
use serde::{Deserialize, Serialize};

mod unix_millis {
    use serde::{Deserialize, Deserializer};

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<std::time::Duration, D::Error> {
        let ms = u64::deserialize(d)?;
        Ok(std::time::Duration::from_millis(ms))
    }
}

fn comma_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let text = String::deserialize(d)?;
    Ok(text.split(',').map(str::to_owned).collect())
}

/// A type with no `Decode`, only serde's `Deserialize`.
#[derive(Deserialize, Debug, PartialEq)]
struct OnlySerde {
    x: i128,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Escapes {
    #[serde(with = "unix_millis")]
    uptime: std::time::Duration,
    #[serde(deserialize_with = "comma_list")]
    tags: Vec<String>,
    #[jitson(serde)]
    other: OnlySerde,
    #[jitson(serde)]
    #[serde(default)]
    value: Option<serde_json::Value>,
    raw: jitson::RawValue,
    n: u8,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct AlsoMillis(#[serde(with = "unix_millis")] std::time::Duration, u8);

#[test]
fn fields_decode_through_their_serde_deserializers() {
    let doc = br#"{"uptime": 1500, "tags": "a,b", "other": {"x": -170141183460469231731687303715884105728},
                   "value": {"k": [1, 2.5, null]}, "raw": [1, {"a": "b"}], "n": 7}"#;
    let ours = common::decode::<Escapes>(doc).expect("decodes");
    let theirs: Escapes = serde_json::from_slice(doc).unwrap();
    assert_eq!(ours, theirs);
    assert_eq!(ours.uptime, std::time::Duration::from_millis(1500));
    assert_eq!(ours.other.x, i128::MIN);
    assert_eq!(ours.raw.get(), r#"[1, {"a": "b"}]"#);
    assert_eq!(
        common::decode::<AlsoMillis>(b"[2000, 1]").unwrap(),
        AlsoMillis(std::time::Duration::from_secs(2), 1)
    );
    // The deserializer's refusal: InvalidValue with serde's message, at the value.
    let e = common::err::<Escapes>(
        br#"{"uptime": "x", "tags": "", "other": {"x": 1}, "raw": 1, "n": 1}"#,
    );
    assert_eq!(e.kind(), ErrorKind::InvalidValue);
    assert_eq!(e.path(), "$.uptime");
    assert_eq!(e.offset(), 11);
    assert!(
        e.to_string()
            .starts_with("invalid type: string \"x\", expected u64"),
        "{e}"
    );
    // Malformed JSON inside is jitson's syntax error, as anywhere else.
    let e = common::err::<Escapes>(br#"{"uptime": [1,], "tags": ""}"#);
    assert_eq!(e.kind(), ErrorKind::Syntax);
    // Missing: not optional (serde asks `with` fields for a value).
    assert!(
        common::decode::<Escapes>(br#"{"tags": "", "other": {"x": 1}, "raw": 1, "n": 1}"#).is_err()
    );
}

#[test]
fn raw_value_and_ignored_any_implement_serdes_traits() {
    #[derive(Decode, Deserialize, Serialize, Debug, PartialEq)]
    struct Both {
        raw: jitson::RawValue,
        #[serde(skip_serializing)]
        ignored: jitson::IgnoredAny,
    }
    let doc = br#"{"raw": {"a": [1, 2]}, "ignored": [true]}"#;
    let ours = common::decode::<Both>(doc).unwrap();
    let theirs: Both = serde_json::from_slice(doc).unwrap();
    assert_eq!(ours, theirs);
    assert_eq!(
        serde_json::to_string(&ours).unwrap(),
        r#"{"raw":{"a": [1, 2]}}"#
    );
}

#[test]
fn serde_json_types_are_fields_like_any_other() {
    #[derive(Decode, Deserialize, Debug)]
    struct Doc {
        any: serde_json::Value,
        map: serde_json::Map<String, serde_json::Value>,
        raw: Box<serde_json::value::RawValue>,
        many: Vec<serde_json::Value>,
    }
    let doc = br#"{"any": {"a": [1, -2, 1.5, 18446744073709551615, 1e400]}, "map": {"k": null},
                   "raw": [1, 2], "many": [true, "s", {}]}"#;
    let good = br#"{"any": {"a": [1, -2, 1.5, 18446744073709551615, 0.1]}, "map": {"k": null},
                   "raw": [1, 2], "many": [true, "s", {}]}"#;
    let theirs: Doc = serde_json::from_slice(good).unwrap();
    for backend in common::backends() {
        let decoder = jitson::Decoder::<Doc>::with_backend(backend);
        // 1e400 is out of range: both refuse it.
        assert!(decoder.decode_slice(doc).is_err());
        assert!(serde_json::from_slice::<Doc>(doc).is_err());
        let ours = decoder.decode_slice(good).unwrap();
        assert_eq!(ours.any, theirs.any);
        assert_eq!(ours.map, theirs.map);
        assert_eq!(ours.raw.get(), theirs.raw.get());
        assert_eq!(ours.many, theirs.many);
    }
}

#[test]
fn a_flattened_json_map_catches_the_rest() {
    #[derive(Decode, Deserialize, Debug, PartialEq)]
    struct Package {
        name: String,
        #[serde(default)]
        version: Option<String>,
        #[serde(flatten)]
        rest: serde_json::Map<String, serde_json::Value>,
    }
    let doc = br#"{"license": "MIT", "name": "x", "files": ["a", {"b": 1.5}], "private": true}"#;
    let ours = common::decode::<Package>(doc).unwrap();
    let theirs: Package = serde_json::from_slice(doc).unwrap();
    assert_eq!(ours, theirs);
    assert_eq!(ours.rest.len(), 3);
    assert!(common::decode::<Package>(br#"{"name": "x", "extra": [1,]}"#).is_err());
}

/// A JSON value of every shape, as text (numbers at the edges of u64/i64/f64).
fn json_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just("null".to_string()),
        any::<bool>().prop_map(|b| b.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
        prop::sample::select(vec![
            "-0",
            "0",
            "-0.0",
            "1e400",
            "18446744073709551616",
            "-9223372036854775809",
            "-9223372036854775808",
            "1.7976931348623157e308",
            "5e-324",
            "0.1",
        ])
        .prop_map(str::to_owned),
        "\\PC{0,6}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        Just(r#""a\u00e9\ud83d\ude00\n""#.to_string()),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec(("[a-c]{0,2}", inner), 0..4).prop_map(|v| {
                let members: Vec<String> = v
                    .into_iter()
                    .map(|(k, v)| format!("{}: {v}", serde_json::to_string(&k).unwrap()))
                    .collect();
                format!("{{{}}}", members.join(", "))
            }),
        ]
    })
}

proptest::proptest! {
    #[test]
    fn values_are_built_as_serde_json_builds_them(text in json_text()) {
        let theirs = serde_json::from_str::<serde_json::Value>(&text);
        for backend in common::backends() {
            let ours = jitson::Decoder::<serde_json::Value>::with_backend(backend).decode_str(&text);
            match (&ours, &theirs) {
                (Ok(a), Ok(b)) => proptest::prop_assert_eq!(a, b),
                (Err(_), Err(_)) => {}
                _ => proptest::prop_assert!(false, "{backend:?} on {text}: {ours:?} vs {theirs:?}"),
            }
        }
    }
}

#[test]
fn a_deep_value_is_a_depth_error_not_a_stack_overflow() {
    for depth in [100, 127, 128, 200, 100_000] {
        let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let theirs = serde_json::from_str::<serde_json::Value>(&text);
        for backend in common::backends() {
            let ours =
                jitson::Decoder::<serde_json::Value>::with_backend(backend).decode_str(&text);
            assert_eq!(ours.is_ok(), theirs.is_ok(), "{backend:?} at depth {depth}");
            if let Err(e) = ours {
                assert_eq!(e.kind(), ErrorKind::DepthLimit);
            }
        }
    }
}

#[test]
fn values_through_serde_are_checked_from_the_documents_root() {
    #[derive(Decode, Deserialize, Debug, PartialEq)]
    struct Vf {
        v: serde_json::Value,
        #[jitson(serde)]
        w: Option<std::collections::BTreeMap<String, i128>>,
    }
    for doc in [
        format!(r#"{{"v": {}1{}}}"#, "[".repeat(126), "]".repeat(126)),
        format!(r#"{{"v": {}1{}}}"#, "[".repeat(127), "]".repeat(127)),
        r#"{"v": 1e400}"#.to_string(),
        r#"{"v": [-1e400]}"#.to_string(),
        r#"{"v": 1}"#.to_string(),
        r#"{"v": 1, "w": {"a": 1}}"#.to_string(),
    ] {
        let _ = common::oracle::agree::<Vf>(doc.as_bytes());
    }
    let e = common::err::<Vf>(br#"{"v": [1, 1e400]}"#);
    assert_eq!(e.offset(), 10, "{e}");
}
