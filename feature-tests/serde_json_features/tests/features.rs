//! `serde_json::Value`s decoded by jitson equal serde_json's own when serde_json
//! has `arbitrary_precision` (numbers kept exactly as written) and
//! `preserve_order` (object keys in document order), on every backend.

use jitson::{Backend, Decoder};
use serde_json::Value;

fn backends() -> Vec<Backend> {
    let mut list = vec![Backend::Interpreter];
    if Backend::Jit.is_available() {
        list.push(Backend::Jit);
    }
    list.push(Backend::Auto);
    list
}

#[derive(jitson::Decode, Debug, PartialEq)]
struct Order {
    id: u32,
    total: Value,
    #[serde(flatten)]
    rest: serde_json::Map<String, Value>,
}

#[test]
fn the_features_are_on() {
    let n: serde_json::Number = "1.50".parse().unwrap();
    assert_eq!(n.to_string(), "1.50", "arbitrary_precision is off");
}

#[test]
fn numbers_are_kept_exactly_and_keys_in_document_order() {
    let docs = [
        r#"{"big":123456789012345678901234567890,"price":1.50}"#,
        r#"{"z": 1, "a": -0, "m": [1E2, 0.1e-400, -99999999999999999999], "b": {"y": 0.30000000000000004, "x": 18446744073709551615}}"#,
        r#"[1.0, 1e1, -1.0E-1, 123456789012345678901234567890.123456789]"#,
        r#"{"dup": 1, "first": 2, "dup": 3.10}"#,
    ];
    for doc in docs {
        let theirs: Value = serde_json::from_str(doc).unwrap();
        for backend in backends() {
            let ours = Decoder::<Value>::with_backend(backend)
                .decode_str(doc)
                .unwrap();
            assert_eq!(ours, theirs, "{doc} {backend:?}");
            // Same text out: digits and key order.
            assert_eq!(ours.to_string(), theirs.to_string(), "{doc} {backend:?}");
        }
    }
    let v: Value = jitson::from_str(docs[0]).unwrap();
    assert_eq!(
        v.to_string(),
        r#"{"big":123456789012345678901234567890,"price":1.50}"#
    );
    // The one difference left (docs/semantics.md): a number beyond f64's range,
    // which serde_json keeps as text, is refused, never changed.
    let doc = "[2.5e+9999999999]";
    assert_eq!(
        serde_json::from_str::<Value>(doc).unwrap().to_string(),
        "[2.5e+9999999999]"
    );
    for backend in backends() {
        let e = Decoder::<Value>::with_backend(backend)
            .decode_str(doc)
            .unwrap_err();
        assert_eq!(e.kind(), jitson::ErrorKind::NumberOutOfRange, "{backend:?}");
    }
}

#[test]
fn values_inside_structs_and_flattened_maps_too() {
    let doc =
        r#"{"zeta": 0.10, "id": 7, "total": 19.990, "alpha": 123456789012345678901234567890}"#;
    #[derive(serde::Deserialize)]
    struct Theirs {
        #[allow(dead_code)]
        id: u32,
        total: Value,
        #[serde(flatten)]
        rest: serde_json::Map<String, Value>,
    }
    let theirs: Theirs = serde_json::from_str(doc).unwrap();
    for backend in backends() {
        let ours = Decoder::<Order>::with_backend(backend)
            .decode_str(doc)
            .unwrap();
        assert_eq!(ours.id, 7);
        assert_eq!(ours.total.to_string(), "19.990");
        assert_eq!(ours.total, theirs.total);
        assert_eq!(ours.rest, theirs.rest);
        let keys: Vec<&str> = ours.rest.keys().map(String::as_str).collect();
        assert_eq!(keys, ["zeta", "alpha"], "{backend:?}");
        assert_eq!(
            Value::Object(ours.rest).to_string(),
            r#"{"zeta":0.10,"alpha":123456789012345678901234567890}"#
        );
    }
}

/// A field through serde (its own `deserialize_with`, a hand-written impl)
/// sees serde_json's numbers too: with `arbitrary_precision` a number read as
/// "any" is serde_json's `Number` of its text, never an integer visited first.
#[test]
fn numbers_through_serde_fields_are_serde_json_s() {
    /// Reads any value as serde_json does, through serde's generic route.
    fn as_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        <Value as serde::Deserialize>::deserialize(d)
    }
    #[derive(jitson::Decode, serde::Deserialize, Debug, PartialEq)]
    struct Ledger {
        #[serde(deserialize_with = "as_value")]
        entry: Value,
        #[serde(deserialize_with = "as_value")]
        totals: Value,
        count: std::collections::BTreeMap<u64, serde_json::Number>,
    }
    let docs = [
        r#"{"entry": 7, "totals": [1.50, -0, 18446744073709551616, {"k": 2}], "count": {"1": 1.10, "2": 7}}"#,
        r#"{"entry": {"b": 1, "a": 123456789012345678901234567890}, "totals": null, "count": {}}"#,
        r#"{"entry": "x", "totals": -9223372036854775809, "count": {"18446744073709551615": -1}}"#,
    ];
    for doc in docs {
        let theirs: Ledger = serde_json::from_str(doc).unwrap();
        for backend in backends() {
            let ours = Decoder::<Ledger>::with_backend(backend)
                .decode_str(doc)
                .unwrap();
            assert_eq!(ours, theirs, "{doc} {backend:?}");
            assert_eq!(ours.entry.to_string(), theirs.entry.to_string(), "{doc}");
            assert_eq!(ours.totals.to_string(), theirs.totals.to_string(), "{doc}");
        }
    }
}

/// A hand-written impl that asks for "any" value and takes only integers:
/// with `arbitrary_precision` serde_json visits an integer that fits as one,
/// `-0` as the integer 0, and any other number as a map; jitson's serde
/// reader gives the impl the same calls, and so the same value or message.
#[test]
fn numbers_asked_for_as_any_are_visited_as_serde_json_visits_them() {
    #[derive(Debug, PartialEq)]
    struct Integer(i128);
    impl<'de> serde::Deserialize<'de> for Integer {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Visit;
            impl serde::de::Visitor<'_> for Visit {
                type Value = Integer;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("an integer")
                }
                fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Integer, E> {
                    Ok(Integer(v.into()))
                }
                fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Integer, E> {
                    Ok(Integer(v.into()))
                }
            }
            d.deserialize_any(Visit)
        }
    }
    #[derive(jitson::Decode, serde::Deserialize, Debug, PartialEq)]
    struct Holder {
        n: Integer,
    }
    for n in [
        "7",
        "-7",
        "-0",
        "7.5",
        "1e2",
        "18446744073709551616",
        "-9223372036854775809",
    ] {
        let doc = format!(r#"{{"n": {n}}}"#);
        let theirs = serde_json::from_str::<Holder>(&doc).map_err(|e| {
            let text = e.to_string();
            text[..text.rfind(" at line").unwrap_or(text.len())].to_owned()
        });
        for backend in backends() {
            let ours = Decoder::<Holder>::with_backend(backend).decode_str(&doc);
            match (&ours, &theirs) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{doc} {backend:?}"),
                (Err(a), Err(b)) => {
                    assert!(a.to_string().contains(b.as_str()), "{a} / {b} {backend:?}")
                }
                _ => panic!("{doc} {backend:?}: jitson {ours:?}, serde_json {theirs:?}"),
            }
        }
    }
}
