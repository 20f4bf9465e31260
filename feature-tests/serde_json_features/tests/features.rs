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
