//! serde_json's own test suite, ported: every case of its `tests/test.rs` that
//! goes through `from_str` / `from_slice` / `to_string` / `to_vec` /
//! `to_string_pretty` of a type jitson decodes or encodes, run on every
//! backend (`common::backends()`), both decode entry points where serde_json
//! checks both, and compared with serde_json's values, bytes and messages
//! (its words, line and column, as `<message> at line L column C`).
//!
//! Each case is also run through serde_json itself (the version in
//! Cargo.lock), so the expected texts here are serde_json's, not a copy that
//! may drift. Where jitson reports another position because of a deliberate
//! difference (docs/semantics.md), the case asserts jitson's position and
//! names the difference; the message words are still serde_json's.
//!
//! Case data (inputs, expected values, expected texts) comes from
//! <https://github.com/serde-rs/json>, `tests/test.rs` at commit
//! 827a315bf2198558f0325b07bcc1e2cd973aba2f (serde_json, MIT OR Apache-2.0,
//! by Erick Tryzelaar, David Tolnay and contributors). The test code is this
//! project's own. Tests are named after the serde_json test they port; the
//! ones not ported are listed at the end of the file with the reason.
#![cfg(feature = "serde")]
// The case data keeps serde_json's spelling (byte lists, float literals).
#![allow(clippy::byte_char_slices, clippy::excessive_precision)]

mod common;

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt::Debug;

use jitson::{Category, Decode, DecodeBorrowed, Decoder, Encode, Encoder, Error};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

// ---------------------------------------------------------------------------
// The types of serde_json's suite, with jitson's derives beside serde's.

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, jitson::Decode, jitson::Encode)]
#[serde(deny_unknown_fields)]
enum Animal {
    Dog,
    Frog(String, Vec<isize>),
    Cat { age: usize, name: String },
    AntHive(Vec<String>),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, jitson::Decode, jitson::Encode)]
struct Inner {
    a: (),
    b: usize,
    c: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, jitson::Decode, jitson::Encode)]
struct Outer {
    inner: Vec<Inner>,
}

// ---------------------------------------------------------------------------
// Helpers (this file's own).

/// A `BTreeMap` from pairs.
fn map<K: Ord, V>(pairs: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    pairs.into_iter().collect()
}

/// jitson's error in serde_json's format: `<message> at line L column C`, or
/// the message alone for an error with no position (as serde_json prints one).
fn serde_style(e: &Error) -> String {
    let message = e.code().to_string();
    if e.line() == 0 {
        message
    } else {
        format!("{message} at line {} column {}", e.line(), e.column())
    }
}

/// Every backend's result for `input`, through `decode_slice` and (when the
/// input is UTF-8) `decode_str`, named.
fn every_decode<T>(input: &[u8]) -> Vec<(String, Result<T, Error>)>
where
    T: for<'de> DecodeBorrowed<'de>,
{
    let mut runs = Vec::new();
    for backend in common::backends() {
        let decoder = Decoder::<T>::with_backend(backend);
        runs.push((
            format!("{}/slice", backend.name()),
            decoder.decode_slice(input),
        ));
        if let Ok(text) = std::str::from_utf8(input) {
            runs.push((format!("{}/str", backend.name()), decoder.decode_str(text)));
        }
    }
    runs
}

/// serde_json's `test_parse_ok`: `text` decodes to `expected` on every
/// backend and entry point (and in serde_json); as a `serde_json::Value` it is
/// what serde_json makes of `expected`; and, unless it is a number, every
/// prefix of it is an end-of-input error for a `Value` and for `IgnoredAny`.
#[track_caller]
fn parse_ok<T>(cases: Vec<(&str, T)>)
where
    T: Decode + Serialize + DeserializeOwned + PartialEq + Debug,
{
    for (text, expected) in cases {
        assert_eq!(
            serde_json::from_str::<T>(text).unwrap(),
            expected,
            "serde_json for {text:?}"
        );
        assert_eq!(
            common::decode::<T>(text.as_bytes()).unwrap(),
            expected,
            "{text:?}"
        );
        let value = common::decode::<Value>(text.as_bytes()).unwrap();
        assert_eq!(
            value,
            serde_json::to_value(&expected).unwrap(),
            "{text:?} as a Value"
        );
        common::decode::<jitson::IgnoredAny>(text.as_bytes()).unwrap();
        if !value.is_number() {
            for (i, _) in text.trim_end().char_indices() {
                let prefix = &text[..i];
                let e = common::err::<Value>(prefix.as_bytes());
                assert_eq!(e.classify(), Category::Eof, "{prefix:?}: {e}");
                let e = common::err::<jitson::IgnoredAny>(prefix.as_bytes());
                assert_eq!(e.classify(), Category::Eof, "{prefix:?}: {e}");
                // Beyond serde_json's test: the words and place are its own.
                let theirs = serde_json::from_str::<Value>(prefix).unwrap_err();
                parse_slice_err::<Value>(
                    prefix.as_bytes(),
                    &theirs.to_string(),
                    &jitson_text(prefix.as_bytes(), &theirs.to_string()),
                );
                let theirs = serde_json::from_str::<serde::de::IgnoredAny>(prefix).unwrap_err();
                let ours = jitson_text(prefix.as_bytes(), &theirs.to_string());
                for (run, result) in every_decode::<jitson::IgnoredAny>(prefix.as_bytes()) {
                    let e = result.expect_err("a prefix fails");
                    assert_eq!(serde_style(&e), ours, "{run} for {prefix:?} as IgnoredAny");
                }
            }
        }
    }
}

/// serde_json's `test_parse_unusual_ok`: accepted, but not what the encoder
/// writes, so only the decode is checked.
#[track_caller]
fn parse_unusual_ok<T>(cases: Vec<(&str, T)>)
where
    T: Decode + DeserializeOwned + PartialEq + Debug,
{
    for (text, expected) in cases {
        assert_eq!(serde_json::from_str::<T>(text).unwrap(), expected);
        assert_eq!(common::decode::<T>(text.as_bytes()).unwrap(), expected);
    }
}

/// serde_json's `test_parse_err` / `test_parse_slice_err`: `input` fails with
/// `expected` (serde_json's text) on every backend and entry point, and in
/// serde_json.
#[track_caller]
fn parse_err<T>(cases: &[(&str, &str)])
where
    T: Decode + DeserializeOwned + PartialEq + Debug,
{
    for &(input, expected) in cases {
        parse_slice_err::<T>(
            input.as_bytes(),
            expected,
            &jitson_text(input.as_bytes(), expected),
        );
    }
}

/// jitson's text for serde_json's `theirs` on `input`: the same, except
/// where difference 3 (docs/semantics.md, "Positions": jitson's line and
/// column describe the byte where decoding stopped, columns counted in
/// characters) moves it:
/// - columns count characters (serde_json's count bytes);
/// - at the end of input, jitson's column is one past the last character
///   (serde_json's: the last byte's);
/// - at a newline that stops decoding (a control character in a string),
///   jitson gives the newline's own line and column (serde_json: the next
///   line, column 0).
fn jitson_text(input: &[u8], theirs: &str) -> String {
    let Some((message, place)) = theirs.split_once(" at line ") else {
        return theirs.to_owned();
    };
    let (line, column) = place.split_once(" column ").expect("a column");
    let (line, column): (usize, usize) = (line.parse().unwrap(), column.parse().unwrap());
    let lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    // Characters in `bytes`: the bytes that are not UTF-8 continuation bytes.
    let chars = |bytes: &[u8]| bytes.iter().filter(|&&b| (b as i8) >= -0x40).count();
    let (line, column) = if message.starts_with("EOF while parsing") {
        (line, chars(lines[line - 1]) + 1)
    } else if column == 0 && line > 1 {
        (line - 1, chars(lines[line - 2]) + 1)
    } else {
        (line, chars(&lines[line - 1][..column - 1]) + 1)
    };
    format!("{message} at line {line} column {column}")
}

/// `input` fails with serde_json's text `theirs` in serde_json and with
/// `ours` in jitson (equal to `theirs` unless a documented difference moves
/// the position), the same on every backend and entry point.
#[track_caller]
fn parse_slice_err<T>(input: &[u8], theirs: &str, ours: &str)
where
    T: Decode + DeserializeOwned + PartialEq + Debug,
{
    let shown = String::from_utf8_lossy(input);
    let serde_says = serde_json::from_slice::<T>(input)
        .expect_err("serde_json refuses")
        .to_string();
    assert_eq!(serde_says, theirs, "serde_json's own text for {shown:?}");
    if let Ok(text) = std::str::from_utf8(input) {
        let serde_says = serde_json::from_str::<T>(text).unwrap_err().to_string();
        assert_eq!(serde_says, theirs, "serde_json's from_str for {shown:?}");
    }
    common::err::<T>(input);
    for (run, result) in every_decode::<T>(input) {
        let e = result.expect_err("jitson refuses");
        assert_eq!(serde_style(&e), ours, "{run} for {shown:?}");
    }
}

/// A case whose position differs by a documented difference: serde_json's
/// text `theirs`, jitson's `ours` (same words).
#[track_caller]
fn parse_err_moved<T>(input: &str, theirs: &str, ours: &str)
where
    T: Decode + DeserializeOwned + PartialEq + Debug,
{
    let words = |s: &str| s.split(" at line ").next().unwrap().to_owned();
    assert_eq!(words(theirs), words(ours), "only the position may differ");
    parse_slice_err::<T>(input.as_bytes(), theirs, ours);
}

/// serde_json's `test_encode_ok` (`pretty`: `test_pretty_encode_ok`): `value`
/// encodes to `expected` on every backend, as serde_json writes it, and
/// (`via_value`) so does the `serde_json::Value` serde_json makes of it.
#[track_caller]
fn encode_ok<T: Encode + Serialize + Debug>(cases: &[(T, &str)], pretty: bool, via_value: bool) {
    for (value, expected) in cases {
        let serde_says = if pretty {
            serde_json::to_string_pretty(value).unwrap()
        } else {
            serde_json::to_string(value).unwrap()
        };
        assert_eq!(serde_says, *expected, "serde_json for {value:?}");
        let through_value = via_value.then(|| serde_json::to_value(value).unwrap());
        for backend in common::backends() {
            let encoder = Encoder::<T>::with_backend(backend).pretty(pretty);
            let bytes = encoder.encode(value).unwrap();
            assert_eq!(
                String::from_utf8(bytes).unwrap(),
                *expected,
                "{backend:?}, pretty {pretty}, {value:?}"
            );
            let Some(through_value) = &through_value else {
                continue;
            };
            let encoder = Encoder::<Value>::with_backend(backend).pretty(pretty);
            let bytes = encoder.encode(through_value).unwrap();
            assert_eq!(
                String::from_utf8(bytes).unwrap(),
                *expected,
                "{backend:?}, pretty {pretty}, {value:?} as a Value"
            );
        }
        let facade = if pretty {
            jitson::to_string_pretty(value).unwrap()
        } else {
            jitson::to_string(value).unwrap()
        };
        assert_eq!(facade, *expected);
    }
}

#[track_caller]
fn encode_compact<T: Encode + Serialize + Debug>(cases: &[(T, &str)]) {
    encode_ok(cases, false, true);
}

#[track_caller]
fn encode_pretty<T: Encode + Serialize + Debug>(cases: &[(T, &str)]) {
    encode_ok(cases, true, true);
}

/// [`encode_compact`] without the `Value` leg, where serde_json's test writes
/// the value directly (`to_value` cannot hold a 128-bit integer, and turns a
/// raw value's text into a parsed `Value`).
#[track_caller]
fn encode_direct<T: Encode + Serialize + Debug>(cases: &[(T, &str)]) {
    encode_ok(cases, false, false);
}

/// The encode error for `value`, the same on every backend and as
/// serde_json's message.
#[track_caller]
fn encode_err<T: Encode + Serialize + Debug>(value: &T) -> String {
    let theirs = serde_json::to_string(value).unwrap_err().to_string();
    for backend in common::backends() {
        let e = Encoder::<T>::with_backend(backend)
            .encode(value)
            .expect_err("jitson refuses");
        assert_eq!(e.code().to_string(), theirs, "{backend:?}, {value:?}");
    }
    theirs
}

// ---------------------------------------------------------------------------
// Encoding.

#[test]
fn test_write_null() {
    encode_compact(&[((), "null")]);
    encode_pretty(&[((), "null")]);
}

#[test]
fn test_write_u64() {
    let max = u64::MAX.to_string();
    let cases = [(3u64, "3"), (u64::MAX, max.as_str())];
    encode_compact(&cases);
    encode_pretty(&cases);
}

#[test]
fn test_write_i64() {
    let min = i64::MIN.to_string();
    let cases = [
        (3i64, "3"),
        (-2, "-2"),
        (-1234, "-1234"),
        (i64::MIN, min.as_str()),
    ];
    encode_compact(&cases);
    encode_pretty(&cases);
}

#[test]
fn test_write_f64() {
    let cases = [
        (3.0f64, "3.0"),
        (3.1, "3.1"),
        (-1.5, "-1.5"),
        (0.5, "0.5"),
        (f64::MIN, "-1.7976931348623157e+308"),
        (f64::MAX, "1.7976931348623157e+308"),
        (f64::EPSILON, "2.220446049250313e-16"),
    ];
    encode_compact(&cases);
    encode_pretty(&cases);
}

/// serde_json checks `to_value` gives `null`; the text `null` is its port.
#[test]
fn test_encode_nonfinite_float_yields_null() {
    encode_compact(&[
        (f64::NAN.copysign(1.0), "null"),
        (f64::NAN.copysign(-1.0), "null"),
        (f64::INFINITY, "null"),
        (-f64::INFINITY, "null"),
    ]);
    encode_compact(&[
        (f32::NAN.copysign(1.0), "null"),
        (f32::NAN.copysign(-1.0), "null"),
        (f32::INFINITY, "null"),
        (-f32::INFINITY, "null"),
    ]);
}

#[test]
fn test_write_str() {
    let cases = [("", "\"\""), ("foo", "\"foo\"")];
    encode_compact(&cases);
    encode_pretty(&cases);
}

#[test]
fn test_write_bool() {
    let cases = [(true, "true"), (false, "false")];
    encode_compact(&cases);
    encode_pretty(&cases);
}

#[test]
fn test_write_char() {
    let cases = [
        ('n', "\"n\""),
        ('"', "\"\\\"\""),
        ('\\', "\"\\\\\""),
        ('/', "\"/\""),
        ('\x08', "\"\\b\""),
        ('\x0C', "\"\\f\""),
        ('\n', "\"\\n\""),
        ('\r', "\"\\r\""),
        ('\t', "\"\\t\""),
        ('\x0B', "\"\\u000b\""),
        ('\u{3A3}', "\"\u{3A3}\""),
    ];
    encode_compact(&cases);
    encode_pretty(&cases);
}

#[test]
fn test_write_list() {
    encode_compact(&[
        (vec![], "[]"),
        (vec![true], "[true]"),
        (vec![true, false], "[true,false]"),
    ]);
    let nested = |at: Option<usize>| -> Vec<Vec<i32>> {
        (0..3)
            .map(|i| if Some(i) == at { vec![1, 2, 3] } else { vec![] })
            .collect()
    };
    encode_compact(&[
        (nested(None), "[[],[],[]]"),
        (nested(Some(0)), "[[1,2,3],[],[]]"),
        (nested(Some(1)), "[[],[1,2,3],[]]"),
        (nested(Some(2)), "[[],[],[1,2,3]]"),
    ]);
    encode_pretty(&[
        (nested(None), "[\n  [],\n  [],\n  []\n]"),
        (
            nested(Some(0)),
            "[\n  [\n    1,\n    2,\n    3\n  ],\n  [],\n  []\n]",
        ),
        (
            nested(Some(1)),
            "[\n  [],\n  [\n    1,\n    2,\n    3\n  ],\n  []\n]",
        ),
        (
            nested(Some(2)),
            "[\n  [],\n  [],\n  [\n    1,\n    2,\n    3\n  ]\n]",
        ),
    ]);
    encode_pretty(&[
        (vec![], "[]"),
        (vec![true], "[\n  true\n]"),
        (vec![true, false], "[\n  true,\n  false\n]"),
    ]);
    let long_list = serde_json::json!([false, null, ["foo\nbar", 3.5]]);
    encode_compact(&[(long_list.clone(), r#"[false,null,["foo\nbar",3.5]]"#)]);
    encode_pretty(&[(
        long_list,
        "[\n  false,\n  null,\n  [\n    \"foo\\nbar\",\n    3.5\n  ]\n]",
    )]);
}

#[test]
fn test_write_object() {
    type M = BTreeMap<String, bool>;
    let s = |k: &str| k.to_owned();
    encode_compact(&[
        (M::new(), "{}"),
        (map([(s("a"), true)]), "{\"a\":true}"),
        (
            map([(s("a"), true), (s("b"), false)]),
            "{\"a\":true,\"b\":false}",
        ),
    ]);

    // Three levels: the deepest map in `a`, `b` or `c` (or none).
    type Deep = BTreeMap<String, BTreeMap<String, BTreeMap<&'static str, Vec<i32>>>>;
    let deep = |at: Option<&str>| -> Deep {
        ["a", "b", "c"]
            .iter()
            .map(|&k| {
                let inner = if Some(k) == at {
                    map([
                        (s("a"), map([("a", vec![1, 2, 3])])),
                        (s("b"), BTreeMap::new()),
                        (s("c"), BTreeMap::new()),
                    ])
                } else {
                    BTreeMap::new()
                };
                (s(k), inner)
            })
            .collect()
    };
    encode_compact(&[
        (deep(None), "{\"a\":{},\"b\":{},\"c\":{}}"),
        (
            deep(Some("a")),
            "{\"a\":{\"a\":{\"a\":[1,2,3]},\"b\":{},\"c\":{}},\"b\":{},\"c\":{}}",
        ),
        (
            deep(Some("b")),
            "{\"a\":{},\"b\":{\"a\":{\"a\":[1,2,3]},\"b\":{},\"c\":{}},\"c\":{}}",
        ),
        (
            deep(Some("c")),
            "{\"a\":{},\"b\":{},\"c\":{\"a\":{\"a\":[1,2,3]},\"b\":{},\"c\":{}}}",
        ),
    ]);

    encode_compact(&[(map([('c', ())]), "{\"c\":null}")]);

    let filled = "{\n    \"a\": {\n      \"a\": [\n        1,\n        2,\n        3\n      ]\n    },\n    \"b\": {},\n    \"c\": {}\n  }";
    encode_pretty(&[
        (deep(None), "{\n  \"a\": {},\n  \"b\": {},\n  \"c\": {}\n}"),
        (
            deep(Some("a")),
            &format!("{{\n  \"a\": {filled},\n  \"b\": {{}},\n  \"c\": {{}}\n}}"),
        ),
        (
            deep(Some("b")),
            &format!("{{\n  \"a\": {{}},\n  \"b\": {filled},\n  \"c\": {{}}\n}}"),
        ),
        (
            deep(Some("c")),
            &format!("{{\n  \"a\": {{}},\n  \"b\": {{}},\n  \"c\": {filled}\n}}"),
        ),
    ]);

    encode_pretty(&[
        (M::new(), "{}"),
        (map([(s("a"), true)]), "{\n  \"a\": true\n}"),
        (
            map([(s("a"), true), (s("b"), false)]),
            "{\n  \"a\": true,\n  \"b\": false\n}",
        ),
    ]);

    let complex = serde_json::json!({
        "b": [
            {"c": "\x0c\x1f\r"},
            {"d": ""}
        ]
    });
    encode_compact(&[(complex.clone(), r#"{"b":[{"c":"\f\u001f\r"},{"d":""}]}"#)]);
    encode_pretty(&[(
        complex,
        "{\n  \"b\": [\n    {\n      \"c\": \"\\f\\u001f\\r\"\n    },\n    {\n      \"d\": \"\"\n    }\n  ]\n}",
    )]);
}

#[test]
fn test_write_tuple() {
    encode_compact(&[((5,), "[5]")]);
    encode_pretty(&[((5,), "[\n  5\n]")]);
    encode_compact(&[((5, (6, "abc")), "[5,[6,\"abc\"]]")]);
    encode_pretty(&[((5, (6, "abc")), "[\n  5,\n  [\n    6,\n    \"abc\"\n  ]\n]")]);
}

#[test]
fn test_write_enum() {
    let frog = |v: Vec<isize>| Animal::Frog("Henry".to_owned(), v);
    encode_compact(&[
        (Animal::Dog, "\"Dog\""),
        (frog(vec![]), "{\"Frog\":[\"Henry\",[]]}"),
        (frog(vec![349]), "{\"Frog\":[\"Henry\",[349]]}"),
        (frog(vec![349, 102]), "{\"Frog\":[\"Henry\",[349,102]]}"),
        (
            Animal::Cat {
                age: 5,
                name: "Kate".to_owned(),
            },
            "{\"Cat\":{\"age\":5,\"name\":\"Kate\"}}",
        ),
        (
            Animal::AntHive(vec!["Bob".to_owned(), "Stuart".to_owned()]),
            "{\"AntHive\":[\"Bob\",\"Stuart\"]}",
        ),
    ]);
    encode_pretty(&[
        (Animal::Dog, "\"Dog\""),
        (
            frog(vec![]),
            "{\n  \"Frog\": [\n    \"Henry\",\n    []\n  ]\n}",
        ),
        (
            frog(vec![349]),
            "{\n  \"Frog\": [\n    \"Henry\",\n    [\n      349\n    ]\n  ]\n}",
        ),
        (
            frog(vec![349, 102]),
            "{\n  \"Frog\": [\n    \"Henry\",\n    [\n      349,\n      102\n    ]\n  ]\n}",
        ),
    ]);
}

#[test]
fn test_write_option() {
    encode_compact(&[(None, "null"), (Some("jodhpurs"), "\"jodhpurs\"")]);
    encode_compact(&[
        (None, "null"),
        (Some(vec!["foo", "bar"]), "[\"foo\",\"bar\"]"),
    ]);
    encode_pretty(&[(None, "null"), (Some("jodhpurs"), "\"jodhpurs\"")]);
    encode_pretty(&[
        (None, "null"),
        (Some(vec!["foo", "bar"]), "[\n  \"foo\",\n  \"bar\"\n]"),
    ]);
}

#[test]
fn test_write_newtype_struct() {
    #[derive(Serialize, jitson::Encode, PartialEq, Debug)]
    struct Newtype(BTreeMap<String, i32>);

    let inner = Newtype(map([("inner".to_owned(), 123)]));
    let outer = map([("outer".to_owned(), serde_json::to_value(&inner).unwrap())]);
    encode_compact(&[(inner, r#"{"inner":123}"#)]);
    encode_compact(&[(outer, r#"{"outer":{"inner":123}}"#)]);
}

/// serde_json builds the enum from a `Number` through `Deserializer`; here
/// from the number's text.
#[test]
fn test_deserialize_number_to_untagged_enum() {
    #[derive(Eq, PartialEq, Deserialize, jitson::Decode, Debug)]
    #[serde(untagged)]
    enum E {
        N(i64),
    }
    parse_unusual_ok(vec![("0", E::N(0))]);
}

/// Sequences and maps that serde_json writes through `serialize_seq(None)` /
/// `serialize_map(None)` (no length known): as fields whose type has only
/// serde's impls, jitson hands them to serde_json inside its own output.
#[test]
fn test_serialize_seq_with_no_len() {
    #[derive(Clone, Debug, PartialEq)]
    struct MyVec<T>(Vec<T>);

    impl<T: Serialize> Serialize for MyVec<T> {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeSeq;
            let mut seq = serializer.serialize_seq(None)?;
            for element in &self.0 {
                seq.serialize_element(element)?;
            }
            seq.end()
        }
    }

    #[derive(Serialize, jitson::Encode, Debug)]
    #[serde(transparent)]
    struct Through(MyVec<MyVec<u32>>);

    let value = Through(MyVec(vec![MyVec(vec![]), MyVec(vec![])]));
    encode_compact(&[(value, "[[],[]]")]);
    let value = Through(MyVec(vec![MyVec(vec![]), MyVec(vec![])]));
    encode_pretty(&[(value, "[\n  [],\n  []\n]")]);
}

#[test]
fn test_serialize_map_with_no_len() {
    #[derive(Clone, Debug, PartialEq)]
    struct MyMap<K, V>(BTreeMap<K, V>);

    impl<K: Serialize, V: Serialize> Serialize for MyMap<K, V> {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeMap;
            let mut map = serializer.serialize_map(None)?;
            for (k, v) in &self.0 {
                map.serialize_entry(k, v)?;
            }
            map.end()
        }
    }

    #[derive(Serialize, jitson::Encode, Debug)]
    #[serde(transparent)]
    struct Through(MyMap<&'static str, MyMap<u32, u32>>);

    let value = || {
        Through(MyMap(map([
            ("a", MyMap(BTreeMap::new())),
            ("b", MyMap(BTreeMap::new())),
        ])))
    };
    encode_compact(&[(value(), "{\"a\":{},\"b\":{}}")]);
    encode_pretty(&[(value(), "{\n  \"a\": {},\n  \"b\": {}\n}")]);
}

#[test]
fn test_serialize_rejects_adt_keys() {
    let map = map([(Some("a"), 2), (Some("b"), 4), (None, 6)]);
    assert_eq!(encode_err(&map), "key must be a string");
}

// ---------------------------------------------------------------------------
// Decoding: scalars.

#[test]
fn test_parse_null() {
    parse_err::<()>(&[
        ("n", "EOF while parsing a value at line 1 column 1"),
        ("nul", "EOF while parsing a value at line 1 column 3"),
        ("nulla", "trailing characters at line 1 column 5"),
    ]);
    parse_ok(vec![("null", ())]);
}

#[test]
fn test_parse_bool() {
    parse_err::<bool>(&[
        ("t", "EOF while parsing a value at line 1 column 1"),
        ("truz", "expected ident at line 1 column 4"),
        ("f", "EOF while parsing a value at line 1 column 1"),
        ("faz", "expected ident at line 1 column 3"),
        ("truea", "trailing characters at line 1 column 5"),
        ("falsea", "trailing characters at line 1 column 6"),
    ]);
    parse_ok(vec![
        ("true", true),
        (" true ", true),
        ("false", false),
        (" false ", false),
    ]);
}

#[test]
fn test_parse_char() {
    // Difference 3: a value of the wrong type or refused is reported at its
    // first byte (serde_json: after it).
    parse_err_moved::<char>(
        "\"ab\"",
        "invalid value: string \"ab\", expected a character at line 1 column 4",
        "invalid value: string \"ab\", expected a character at line 1 column 1",
    );
    parse_err_moved::<char>(
        "10",
        "invalid type: integer `10`, expected a character at line 1 column 2",
        "invalid type: integer `10`, expected a character at line 1 column 1",
    );
    parse_ok(vec![
        ("\"n\"", 'n'),
        ("\"\\\"\"", '"'),
        ("\"\\\\\"", '\\'),
        ("\"/\"", '/'),
        ("\"\\b\"", '\x08'),
        ("\"\\f\"", '\x0C'),
        ("\"\\n\"", '\n'),
        ("\"\\r\"", '\r'),
        ("\"\\t\"", '\t'),
        ("\"\\u000b\"", '\x0B'),
        ("\"\\u000B\"", '\x0B'),
        ("\"\u{3A3}\"", '\u{3A3}'),
    ]);
}

/// `1` and `zeros` zeros, then `tail`.
fn long_number(zeros: usize, tail: &str) -> String {
    format!("1{}{tail}", "0".repeat(zeros))
}

#[test]
fn test_parse_number_errors() {
    parse_err::<f64>(&[
        ("+", "expected value at line 1 column 1"),
        (".", "expected value at line 1 column 1"),
        ("-", "EOF while parsing a value at line 1 column 1"),
        ("00", "invalid number at line 1 column 2"),
        ("0x80", "trailing characters at line 1 column 2"),
        ("\\0", "expected value at line 1 column 1"),
        (".0", "expected value at line 1 column 1"),
        ("0.", "EOF while parsing a value at line 1 column 2"),
        ("1.", "EOF while parsing a value at line 1 column 2"),
        ("1.a", "invalid number at line 1 column 3"),
        ("1.e1", "invalid number at line 1 column 3"),
        ("1e", "EOF while parsing a value at line 1 column 2"),
        ("1e+", "EOF while parsing a value at line 1 column 3"),
        ("1a", "trailing characters at line 1 column 2"),
    ]);
    // Difference 3: a number out of range is reported at its first byte
    // (serde_json: where it noticed, inside or after the number).
    let out_of_range = [
        ("100e777777777777777777777777777", 14),
        ("-100e777777777777777777777777777", 15),
        (&long_number(309, ""), 310),     // 1e309
        (&long_number(300, ".0e9"), 305), // 1e309
        (&long_number(300, "e9"), 303),   // 1e309
    ];
    for (input, column) in out_of_range {
        parse_err_moved::<f64>(
            input,
            &format!("number out of range at line 1 column {column}"),
            "number out of range at line 1 column 1",
        );
    }
}

#[test]
fn test_parse_i64() {
    let (min, max) = (i64::MIN.to_string(), i64::MAX.to_string());
    parse_ok(vec![
        ("-2", -2),
        ("-1234", -1234),
        (" -1234 ", -1234),
        (&min, i64::MIN),
        (&max, i64::MAX),
    ]);
}

#[test]
fn test_parse_u64() {
    let max = u64::MAX.to_string();
    parse_ok(vec![
        ("0", 0u64),
        ("3", 3u64),
        ("1234", 1234),
        (&max, u64::MAX),
    ]);
}

#[test]
fn test_parse_negative_zero() {
    for text in [
        "-0",
        "-0.0",
        "-0e2",
        "-0.0e2",
        "-1e-400",
        "-1e-4000000000000000000000000000000000000000000000000",
    ] {
        assert!(
            serde_json::from_str::<f64>(text)
                .unwrap()
                .is_sign_negative()
        );
        for (run, result) in every_decode::<f32>(text.as_bytes()) {
            let v = result.unwrap();
            assert!(v == 0.0 && v.is_sign_negative(), "{run} {text}: {v}");
        }
        for (run, result) in every_decode::<f64>(text.as_bytes()) {
            let v = result.unwrap();
            assert!(v == 0.0 && v.is_sign_negative(), "{run} {text}: {v}");
        }
    }
}

#[test]
fn test_parse_f64() {
    parse_ok(vec![
        ("0.0", 0.0f64),
        ("3.0", 3.0f64),
        ("3.1", 3.1),
        ("-1.2", -1.2),
        ("0.4", 0.4),
        ("2.638344616030823e-256", 2.638344616030823e-256),
    ]);

    let below_i64 = format!("{}", (i64::MIN as f64) - 1.0);
    let above_u64 = format!("{}", (u64::MAX as f64) + 1.0);
    let epsilon = format!("{}", f64::EPSILON);
    let e308 = [
        long_number(308, ""),
        long_number(300, ".0e8"),
        long_number(300, "e8"),
        long_number(318, "e-10"),
    ];
    parse_ok(vec![
        ("3.00", 3.0f64),
        ("0.4e5", 0.4e5),
        ("0.4e+5", 0.4e5),
        ("0.4e15", 0.4e15),
        ("0.4e+15", 0.4e15),
        ("0.4e-01", 0.4e-1),
        (" 0.4e-01 ", 0.4e-1),
        ("0.4e-001", 0.4e-1),
        ("0.4e-0", 0.4e0),
        ("0.00e00", 0.0),
        ("0.00e+00", 0.0),
        ("0.00e-00", 0.0),
        ("3.5E-2147483647", 0.0),
        ("0.0100000000000000000001", 0.01),
        (&below_i64, (i64::MIN as f64) - 1.0),
        (&above_u64, (u64::MAX as f64) + 1.0),
        (&epsilon, f64::EPSILON),
        (
            "0.0000000000000000000000000000000000000000000000000123e50",
            1.23,
        ),
        ("100e-777777777777777777777777777", 0.0),
        (
            "1010101010101010101010101010101010101010",
            10101010101010101010e20,
        ),
        (
            "0.1010101010101010101010101010101010101010",
            0.1010101010101010101,
        ),
        ("0e1000000000000000000000000000000000000000000000", 0.0),
        (&e308[0], 1e308),
        (&e308[1], 1e308),
        (&e308[2], 1e308),
        (&e308[3], 1e308),
    ]);
}

#[test]
fn test_value_as_f64() {
    // Difference 3: at the number's first byte (serde_json: after it).
    parse_err_moved::<Value>(
        "1e1000",
        "number out of range at line 1 column 6",
        "number out of range at line 1 column 1",
    );
}

/// serde_json's `float_roundtrip` samples: written, then read back exactly.
#[test]
fn test_roundtrip_f64() {
    for float in [
        51.24817837550540_4,
        -93.3113703768803_3,
        -36.5739948427534_36,
        52.31400820410624_4,
        97.4536532003468_5,
        2.0030397744267762e-253,
        7.101215824554616e260,
        1.769268377902049e74,
        -1.6727517818542075e58,
        3.9287532173373315e299,
    ] {
        for backend in common::backends() {
            let text = Encoder::<f64>::with_backend(backend)
                .encode(&float)
                .unwrap();
            assert_eq!(text, serde_json::to_vec(&float).unwrap());
            let back = Decoder::<f64>::with_backend(backend)
                .decode_slice(&text)
                .unwrap();
            assert_eq!(back, float, "{backend:?}");
        }
    }
}

#[test]
fn test_roundtrip_f32() {
    let float = 7.038531e-26f32;
    for backend in common::backends() {
        let text = Encoder::<f32>::with_backend(backend)
            .encode(&float)
            .unwrap();
        assert_eq!(text, serde_json::to_vec(&float).unwrap());
        let back = Decoder::<f32>::with_backend(backend)
            .decode_slice(&text)
            .unwrap();
        assert_eq!(back, float, "{backend:?}");
    }
}

#[test]
fn test_parse_string() {
    parse_err::<String>(&[
        ("\"", "EOF while parsing a string at line 1 column 1"),
        ("\"lol", "EOF while parsing a string at line 1 column 4"),
        ("\"lol\"a", "trailing characters at line 1 column 6"),
        (
            "\"\\uD83C\\uFFFF\"",
            "lone leading surrogate in hex escape at line 1 column 13",
        ),
        (
            "\"\n\"",
            "control character (\\u0000-\\u001F) found while parsing a string at line 2 column 0",
        ),
        (
            "\"\x1F\"",
            "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 2",
        ),
    ]);

    // Invalid UTF-8: the columns are those of serde_json 1.0.154 (Cargo.lock),
    // which reports the first byte that is not UTF-8; the stored commit
    // (1.0.150) said column 5 and column 7, after the string.
    let slice_cases: [(&[u8], &str); 9] = [
        (
            &[b'"', 159, 146, 150, b'"'],
            "invalid unicode code point at line 1 column 2",
        ),
        (
            &[b'"', b'\\', b'n', 159, 146, 150, b'"'],
            "invalid unicode code point at line 1 column 4",
        ),
        (
            &[b'"', b'\\', b'u', 48, 48, 51],
            "EOF while parsing a string at line 1 column 6",
        ),
        (
            &[b'"', b'\\', b'u', 250, 48, 51, 48, b'"'],
            "invalid escape at line 1 column 7",
        ),
        (
            &[b'"', b'\\', b'u', 48, 250, 51, 48, b'"'],
            "invalid escape at line 1 column 7",
        ),
        (
            &[b'"', b'\\', b'u', 48, 48, 250, 48, b'"'],
            "invalid escape at line 1 column 7",
        ),
        (
            &[b'"', b'\\', b'u', 48, 48, 51, 250, b'"'],
            "invalid escape at line 1 column 7",
        ),
        (
            &[b'"', b'\n', b'"'],
            "control character (\\u0000-\\u001F) found while parsing a string at line 2 column 0",
        ),
        (
            &[b'"', b'\x1F', b'"'],
            "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 2",
        ),
    ];
    for (input, expected) in slice_cases {
        parse_slice_err::<String>(input, expected, &jitson_text(input, expected));
    }

    parse_ok(vec![
        ("\"\"", String::new()),
        ("\"foo\"", "foo".to_owned()),
        (" \"foo\" ", "foo".to_owned()),
        ("\"\\\"\"", "\"".to_owned()),
        ("\"\\b\"", "\x08".to_owned()),
        ("\"\\n\"", "\n".to_owned()),
        ("\"\\r\"", "\r".to_owned()),
        ("\"\\t\"", "\t".to_owned()),
        ("\"\\u12ab\"", "\u{12ab}".to_owned()),
        ("\"\\uAB12\"", "\u{AB12}".to_owned()),
        ("\"\\uD83C\\uDF95\"", "\u{1F395}".to_owned()),
    ]);
}

// ---------------------------------------------------------------------------
// Decoding: containers, structs, enums.

#[test]
fn test_parse_list() {
    parse_err::<Vec<f64>>(&[
        ("[", "EOF while parsing a list at line 1 column 1"),
        ("[ ", "EOF while parsing a list at line 1 column 2"),
        ("[1", "EOF while parsing a list at line 1 column 2"),
        ("[1,", "EOF while parsing a value at line 1 column 3"),
        ("[1,]", "trailing comma at line 1 column 4"),
        ("[1 2]", "expected `,` or `]` at line 1 column 4"),
        ("[]a", "trailing characters at line 1 column 3"),
    ]);
    parse_ok(vec![
        ("[]", vec![]),
        ("[ ]", vec![]),
        ("[null]", vec![()]),
        (" [ null ] ", vec![()]),
    ]);
    parse_ok(vec![("[true]", vec![true])]);
    parse_ok(vec![("[3,1]", vec![3u64, 1]), (" [ 3 , 1 ] ", vec![3, 1])]);
    parse_ok(vec![("[[3], [1, 2]]", vec![vec![3u64], vec![1, 2]])]);
    parse_ok(vec![("[1]", (1u64,))]);
    parse_ok(vec![("[1, 2]", (1u64, 2u64))]);
    parse_ok(vec![("[1, 2, 3]", (1u64, 2u64, 3u64))]);
    parse_ok(vec![("[1, [2, 3]]", (1u64, (2u64, 3u64)))]);
}

#[test]
fn test_parse_object() {
    parse_err::<BTreeMap<String, u32>>(&[
        ("{", "EOF while parsing an object at line 1 column 1"),
        ("{ ", "EOF while parsing an object at line 1 column 2"),
        ("{1", "key must be a string at line 1 column 2"),
        ("{ \"a\"", "EOF while parsing an object at line 1 column 5"),
        ("{\"a\"", "EOF while parsing an object at line 1 column 4"),
        ("{\"a\" ", "EOF while parsing an object at line 1 column 5"),
        ("{\"a\" 1", "expected `:` at line 1 column 6"),
        ("{\"a\":", "EOF while parsing a value at line 1 column 5"),
        ("{\"a\":1", "EOF while parsing an object at line 1 column 6"),
        ("{\"a\":1 1", "expected `,` or `}` at line 1 column 8"),
        ("{\"a\":1,", "EOF while parsing a value at line 1 column 7"),
        ("{}a", "trailing characters at line 1 column 3"),
    ]);
    let s = |k: &str| k.to_owned();
    parse_ok(vec![
        ("{}", BTreeMap::new()),
        ("{ }", BTreeMap::new()),
        ("{\"a\":3}", map([(s("a"), 3u64)])),
        ("{ \"a\" : 3 }", map([(s("a"), 3)])),
        ("{\"a\":3,\"b\":4}", map([(s("a"), 3), (s("b"), 4)])),
        (
            " { \"a\" : 3 , \"b\" : 4 } ",
            map([(s("a"), 3), (s("b"), 4)]),
        ),
    ]);
    parse_ok(vec![(
        "{\"a\": {\"b\": 3, \"c\": 4}}",
        map([(s("a"), map([(s("b"), 3u64), (s("c"), 4)]))]),
    )]);
    parse_ok(vec![("{\"c\":null}", map([('c', ())]))]);
}

#[test]
fn test_parse_struct() {
    // Difference 3: a value of the wrong type is reported at its first byte,
    // a missing field at the object's `}`.
    parse_err::<Outer>(&[(
        "5",
        "invalid type: integer `5`, expected struct Outer at line 1 column 1",
    )]);
    parse_err_moved::<Outer>(
        "\"hello\"",
        "invalid type: string \"hello\", expected struct Outer at line 1 column 7",
        "invalid type: string \"hello\", expected struct Outer at line 1 column 1",
    );
    parse_err_moved::<Outer>(
        "{\"inner\": true}",
        "invalid type: boolean `true`, expected a sequence at line 1 column 14",
        "invalid type: boolean `true`, expected a sequence at line 1 column 11",
    );
    parse_err::<Outer>(&[("{}", "missing field `inner` at line 1 column 2")]);
    parse_err::<Outer>(&[(
        r#"{"inner": [{"b": 42, "c": []}]}"#,
        "missing field `a` at line 1 column 29",
    )]);

    parse_ok(vec![
        (
            "{
                \"inner\": []
            }",
            Outer { inner: vec![] },
        ),
        (
            "{
                \"inner\": [
                    { \"a\": null, \"b\": 2, \"c\": [\"abc\", \"xyz\"] }
                ]
            }",
            Outer {
                inner: vec![Inner {
                    a: (),
                    b: 2,
                    c: vec!["abc".to_owned(), "xyz".to_owned()],
                }],
            },
        ),
    ]);

    // serde_json also reads a struct from an array, field by field; jitson
    // refuses it (difference 2).
    let from_array = "[
            [
                [ null, 2, [\"abc\", \"xyz\"] ]
            ]
        ]";
    assert!(serde_json::from_str::<Outer>(from_array).is_ok());
    let e = common::err::<Outer>(from_array.as_bytes());
    assert_eq!(
        serde_style(&e),
        "invalid type: sequence, expected struct Outer at line 1 column 1"
    );
}

#[test]
fn test_parse_option() {
    parse_ok(vec![
        ("null", None::<String>),
        ("\"jodhpurs\"", Some("jodhpurs".to_owned())),
    ]);

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, jitson::Decode)]
    struct Foo {
        x: Option<isize>,
    }
    parse_unusual_ok(vec![("{}", Foo { x: None })]);
    parse_ok(vec![
        ("{\"x\": null}", Foo { x: None }),
        ("{\"x\": 5}", Foo { x: Some(5) }),
    ]);
}

#[test]
fn test_parse_enum_errors() {
    parse_err::<Animal>(&[
        ("{}", "expected value at line 1 column 2"),
        ("[]", "expected value at line 1 column 1"),
        ("{\"Dog\":", "EOF while parsing a value at line 1 column 7"),
        ("{\"Dog\":}", "expected value at line 1 column 8"),
        // JSON does not allow trailing commas in data structures.
        (
            "{\"Cat\":{\"age\": 2, \"name\": \"Kate\",}}",
            "trailing comma at line 1 column 34",
        ),
    ]);
    // Difference 3: an unknown variant or field is reported at the opening
    // quote of its name (serde_json: after it), a value of the wrong type at
    // its first byte (serde_json: where its reader stopped, before or after).
    let moved = [
        (
            "\"unknown\"",
            "unknown variant `unknown`, expected one of `Dog`, `Frog`, `Cat`, `AntHive` at line 1 column 9",
            "unknown variant `unknown`, expected one of `Dog`, `Frog`, `Cat`, `AntHive` at line 1 column 1",
        ),
        (
            "{\"unknown\":null}",
            "unknown variant `unknown`, expected one of `Dog`, `Frog`, `Cat`, `AntHive` at line 1 column 10",
            "unknown variant `unknown`, expected one of `Dog`, `Frog`, `Cat`, `AntHive` at line 1 column 2",
        ),
        (
            "{\"Dog\":{}}",
            "invalid type: map, expected unit at line 1 column 7",
            "invalid type: map, expected unit at line 1 column 8",
        ),
        (
            "{\"Frog\":{}}",
            "invalid type: map, expected tuple variant Animal::Frog at line 1 column 8",
            "invalid type: map, expected tuple variant Animal::Frog at line 1 column 9",
        ),
        (
            "{\"Cat\":{\"age\": 5, \"name\": \"Kate\", \"foo\":\"bar\"}",
            "unknown field `foo`, expected `age` or `name` at line 1 column 39",
            "unknown field `foo`, expected `age` or `name` at line 1 column 35",
        ),
    ];
    for (input, theirs, ours) in moved {
        parse_err_moved::<Animal>(input, theirs, ours);
    }
    // Difference 2: serde_json reads a struct variant from an array too, field
    // by field; jitson refuses the array at its `[`.
    let from_array = [
        (
            "{\"Cat\":[]}",
            "invalid length 0, expected struct variant Animal::Cat with 2 elements at line 1 column 9",
        ),
        (
            "{\"Cat\":[0]}",
            "invalid length 1, expected struct variant Animal::Cat with 2 elements at line 1 column 10",
        ),
        (
            "{\"Cat\":[0, \"\", 2]}",
            "trailing characters at line 1 column 16",
        ),
        (
            "{\"Cat\":[0, \"Kate\",]}",
            "trailing comma at line 1 column 19",
        ),
    ];
    for (input, theirs) in from_array {
        parse_slice_err::<Animal>(
            input.as_bytes(),
            theirs,
            "invalid type: sequence, expected struct variant Animal::Cat at line 1 column 8",
        );
    }
    // serde_json reports these with no position at all; jitson gives the
    // variant name's first byte (difference 3).
    let unpositioned = [
        (
            "\"Frog\"",
            "invalid type: unit variant, expected tuple variant",
            "invalid type: unit variant, expected tuple variant at line 1 column 1",
        ),
        (
            "\"Frog\" 0 ",
            "invalid type: unit variant, expected tuple variant",
            "invalid type: unit variant, expected tuple variant at line 1 column 1",
        ),
    ];
    for (input, theirs, ours) in unpositioned {
        parse_err_moved::<Animal>(input, theirs, ours);
    }
}

#[test]
fn test_parse_enum() {
    parse_ok(vec![
        ("\"Dog\"", Animal::Dog),
        (" \"Dog\" ", Animal::Dog),
        (
            "{\"Frog\":[\"Henry\",[]]}",
            Animal::Frog("Henry".to_owned(), vec![]),
        ),
        (
            " { \"Frog\": [ \"Henry\" , [ 349, 102 ] ] } ",
            Animal::Frog("Henry".to_owned(), vec![349, 102]),
        ),
        (
            "{\"Cat\": {\"age\": 5, \"name\": \"Kate\"}}",
            Animal::Cat {
                age: 5,
                name: "Kate".to_owned(),
            },
        ),
        (
            " { \"Cat\" : { \"age\" : 5 , \"name\" : \"Kate\" } } ",
            Animal::Cat {
                age: 5,
                name: "Kate".to_owned(),
            },
        ),
        (
            " { \"AntHive\" : [\"Bob\", \"Stuart\"] } ",
            Animal::AntHive(vec!["Bob".to_owned(), "Stuart".to_owned()]),
        ),
    ]);
    parse_unusual_ok(vec![
        ("{\"Dog\":null}", Animal::Dog),
        (" { \"Dog\" : null } ", Animal::Dog),
    ]);
    parse_ok(vec![(
        concat!(
            "{",
            "  \"a\": \"Dog\",",
            "  \"b\": {\"Frog\":[\"Henry\", []]}",
            "}"
        ),
        map([
            ("a".to_owned(), Animal::Dog),
            ("b".to_owned(), Animal::Frog("Henry".to_owned(), vec![])),
        ]),
    )]);
}

#[test]
fn test_parse_trailing_whitespace() {
    parse_ok(vec![
        ("[1, 2] ", vec![1u64, 2]),
        ("[1, 2]\n", vec![1, 2]),
        ("[1, 2]\t", vec![1, 2]),
        ("[1, 2]\t \n", vec![1, 2]),
    ]);
}

#[test]
fn test_multiline_errors() {
    // Difference 3: at the end of input jitson's column is one past the
    // last character (serde_json: the last character's).
    parse_err_moved::<BTreeMap<String, String>>(
        "{\n  \"foo\":\n \"bar\"",
        "EOF while parsing an object at line 3 column 6",
        "EOF while parsing an object at line 3 column 7",
    );
}

#[test]
fn test_missing_option_field() {
    #[derive(Debug, PartialEq, Deserialize, jitson::Decode)]
    struct Foo {
        x: Option<u32>,
    }
    parse_unusual_ok(vec![
        ("{}", Foo { x: None }),
        ("{\"x\": 5}", Foo { x: Some(5) }),
    ]);
}

#[test]
fn test_missing_nonoption_field() {
    #[derive(Debug, PartialEq, Deserialize, jitson::Decode)]
    struct Foo {
        x: u32,
    }
    parse_err::<Foo>(&[("{}", "missing field `x` at line 1 column 2")]);
}

#[test]
fn test_missing_renamed_field() {
    #[derive(Debug, PartialEq, Deserialize, jitson::Decode)]
    struct Foo {
        #[serde(rename = "y")]
        x: Option<u32>,
    }
    parse_unusual_ok(vec![
        ("{}", Foo { x: None }),
        ("{\"y\": 5}", Foo { x: Some(5) }),
    ]);
}

#[test]
fn issue_220() {
    #[derive(Debug, PartialEq, Eq, Deserialize, jitson::Decode)]
    enum E {
        V(u8),
    }
    // serde_json only asserts an error; its text has no position (see
    // test_parse_enum_errors).
    parse_err_moved::<E>(
        r#" "V"0 "#,
        "invalid type: unit variant, expected newtype variant",
        "invalid type: unit variant, expected newtype variant at line 1 column 2",
    );
    parse_unusual_ok(vec![(r#"{"V": 0}"#, E::V(0))]);
}

#[test]
fn null_invalid_type() {
    // Difference 3: at the value's first byte.
    parse_err_moved::<String>(
        "null",
        "invalid type: null, expected a string at line 1 column 4",
        "invalid type: null, expected a string at line 1 column 1",
    );
}

#[test]
fn test_stack_overflow() {
    let nested: String = "[".repeat(127) + &"]".repeat(127);
    common::decode::<Value>(nested.as_bytes()).unwrap();
    parse_err::<Value>(&[(
        &"[".repeat(129),
        "recursion limit exceeded at line 1 column 128",
    )]);
}

#[test]
fn test_control_character_search() {
    for n in 0..16 {
        for m in 0..16 {
            parse_err::<String>(&[(
                &format!("\"{}\n{}\"", " ".repeat(n), " ".repeat(m)),
                "control character (\\u0000-\\u001F) found while parsing a string at line 2 column 0",
            )]);
        }
    }
    parse_err::<String>(&[(
        "\"\t\n\r\"",
        "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 2",
    )]);
}

// ---------------------------------------------------------------------------
// Map keys.

#[test]
fn test_integer_key() {
    let m = map([(1, 2), (-1, 6)]);
    let text = r#"{"-1":6,"1":2}"#;
    encode_compact(&[(m.clone(), text)]);
    parse_ok(vec![(text, m)]);
    parse_err::<BTreeMap<i32, ()>>(&[
        (
            r#"{"x":null}"#,
            "invalid value: expected key to be a number in quotes at line 1 column 2",
        ),
        (
            r#"{" 123":null}"#,
            "invalid value: expected key to be a number in quotes at line 1 column 2",
        ),
        (r#"{"123 ":null}"#, "expected `\"` at line 1 column 6"),
    ]);
}

#[test]
fn test_integer128_key() {
    let m = map([(100000000000000000000000000000000000000u128, ())]);
    let text = r#"{"100000000000000000000000000000000000000":null}"#;
    encode_compact(&[(m.clone(), text)]);
    assert_eq!(serde_json::from_str::<BTreeMap<u128, ()>>(text).unwrap(), m);
    assert_eq!(
        common::decode::<BTreeMap<u128, ()>>(text.as_bytes()).unwrap(),
        m
    );
}

/// A float key: serde_json's test uses a type that writes and reads an `f32`;
/// here a newtype over the `f32` (ordered by `total_cmp`), read the same way.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, jitson::Decode, jitson::Encode)]
struct Float(f32);

impl PartialEq for Float {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Float {}
impl PartialOrd for Float {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Float {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

#[test]
fn test_float_key() {
    let m = map([(Float(1.23), "x".to_owned())]);
    let text = r#"{"1.23":"x"}"#;
    encode_compact(&[(m.clone(), text)]);
    parse_ok(vec![(text, m)]);
    parse_err::<BTreeMap<Float, ()>>(&[(
        r#"{"x": null}"#,
        "invalid value: expected key to be a number in quotes at line 1 column 2",
    )]);
}

#[test]
fn test_deny_non_finite_f32_key() {
    for f in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
        let m = map([(Float(f), "x".to_owned())]);
        encode_err(&m);
    }
}

#[test]
fn test_deny_non_finite_f64_key() {
    #[derive(Clone, Copy, Debug, Serialize, jitson::Encode)]
    struct F64Bits(f64);
    impl PartialEq for F64Bits {
        fn eq(&self, other: &Self) -> bool {
            self.0.to_bits() == other.0.to_bits()
        }
    }
    impl Eq for F64Bits {}
    impl PartialOrd for F64Bits {
        fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for F64Bits {
        fn cmp(&self, other: &Self) -> Ordering {
            self.0.to_bits().cmp(&other.0.to_bits())
        }
    }
    for f in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
        let m = map([(F64Bits(f), "x".to_owned())]);
        encode_err(&m);
    }
}

#[test]
fn test_boolean_key() {
    let m = map([(false, 0), (true, 1)]);
    let text = r#"{"false":0,"true":1}"#;
    encode_compact(&[(m.clone(), text)]);
    parse_ok(vec![(text, m)]);
}

#[test]
fn test_borrowed_key() {
    let text = "{\"borrowed\":null}";
    for backend in common::backends() {
        let decoded: BTreeMap<&str, ()> = Decoder::with_backend(backend).decode_str(text).unwrap();
        assert_eq!(decoded, map([("borrowed", ())]));
    }

    #[derive(Deserialize, jitson::Decode, Debug, Ord, PartialOrd, Eq, PartialEq)]
    struct NewtypeStr<'a>(&'a str);
    for backend in common::backends() {
        let decoded: BTreeMap<NewtypeStr, ()> = Decoder::with_backend(backend)
            .decode_slice(text.as_bytes())
            .unwrap();
        assert_eq!(decoded, map([(NewtypeStr("borrowed"), ())]));
    }
}

#[test]
fn test_effectively_string_keys() {
    #[derive(
        Eq,
        PartialEq,
        Ord,
        PartialOrd,
        Debug,
        Clone,
        Serialize,
        Deserialize,
        jitson::Decode,
        jitson::Encode,
    )]
    enum Enum {
        One,
        Two,
    }
    let m = map([(Enum::One, 1), (Enum::Two, 2)]);
    let text = r#"{"One":1,"Two":2}"#;
    encode_compact(&[(m.clone(), text)]);
    parse_ok(vec![(text, m)]);

    #[derive(
        Eq,
        PartialEq,
        Ord,
        PartialOrd,
        Debug,
        Clone,
        Serialize,
        Deserialize,
        jitson::Decode,
        jitson::Encode,
    )]
    struct Wrapper(String);
    let m = map([
        (Wrapper("zero".to_owned()), 0),
        (Wrapper("one".to_owned()), 1),
    ]);
    let text = r#"{"one":1,"zero":0}"#;
    encode_compact(&[(m.clone(), text)]);
    parse_ok(vec![(text, m)]);
}

// ---------------------------------------------------------------------------
// Categories, borrowing, 128-bit integers, raw values.

#[test]
fn test_category() {
    #[track_caller]
    fn category<T: Decode + DeserializeOwned + PartialEq + Debug>(text: &str, expected: Category) {
        let theirs = serde_json::from_str::<T>(text).unwrap_err().classify();
        assert_eq!(
            format!("{theirs:?}"),
            format!("{expected:?}"),
            "serde_json, {text:?}"
        );
        let e = common::err::<T>(text.as_bytes());
        assert_eq!(e.classify(), expected, "{text:?}: {e}");
    }
    category::<String>("123", Category::Data);
    category::<String>("]", Category::Syntax);
    for text in ["", "\"", "\"\\", "\"\\u", "\"\\u0", "\"\\u00", "\"\\u000"] {
        category::<String>(text, Category::Eof);
    }
    for text in ["[", "[0", "[0,"] {
        category::<Vec<usize>>(text, Category::Eof);
    }
    for text in ["{", "{\"k\"", "{\"k\":", "{\"k\":0", "{\"k\":0,"] {
        category::<BTreeMap<String, usize>>(text, Category::Eof);
    }

    struct FailReader;
    impl std::io::Read for FailReader {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::new(
                std::io::ErrorKind::NotConnected,
                "oh no!",
            ))
        }
    }
    assert!(
        serde_json::from_reader::<_, String>(FailReader)
            .unwrap_err()
            .is_io()
    );
    let e = jitson::from_reader::<String, _>(FailReader).unwrap_err();
    assert_eq!(e.classify(), Category::Io);
}

#[test]
fn test_borrow() {
    assert_eq!(
        serde_json::from_str::<&str>("\"borrowed\"").unwrap(),
        "borrowed"
    );
    for (run, result) in every_decode_borrowed("\"borrowed\"") {
        assert_eq!(result.unwrap(), "borrowed", "{run}");
    }
}

/// [`every_decode`] for a `&str` borrowed from `text`.
fn every_decode_borrowed(text: &str) -> Vec<(String, Result<&str, Error>)> {
    let mut runs = Vec::new();
    for backend in common::backends() {
        let decoder = Decoder::<&str>::with_backend(backend);
        runs.push((format!("{}/str", backend.name()), decoder.decode_str(text)));
        runs.push((
            format!("{}/slice", backend.name()),
            decoder.decode_slice(text.as_bytes()),
        ));
    }
    runs
}

#[test]
fn test_integer128() {
    for integer in [i128::MIN, -1, 0, 1, i128::MAX] {
        let text = integer.to_string();
        encode_direct(&[(integer, text.as_str())]);
        assert_eq!(serde_json::from_str::<i128>(&text).unwrap(), integer);
        assert_eq!(common::decode::<i128>(text.as_bytes()).unwrap(), integer);
    }
    for integer in [0, 1, u128::MAX] {
        let text = integer.to_string();
        encode_direct(&[(integer, text.as_str())]);
        assert_eq!(serde_json::from_str::<u128>(&text).unwrap(), integer);
        assert_eq!(common::decode::<u128>(text.as_bytes()).unwrap(), integer);
    }
    // Difference 3: out of range at the number's first byte (serde_json:
    // after it, except for a `-` given to an unsigned type).
    let i128_cases = [
        ("-170141183460469231731687303715884105729", 40),
        ("170141183460469231731687303715884105728", 39),
    ];
    for (input, column) in i128_cases {
        parse_err_moved::<i128>(
            input,
            &format!("number out of range at line 1 column {column}"),
            "number out of range at line 1 column 1",
        );
    }
    parse_err::<u128>(&[("-1", "number out of range at line 1 column 1")]);
    parse_err_moved::<u128>(
        "340282366920938463463374607431768211456",
        "number out of range at line 1 column 39",
        "number out of range at line 1 column 1",
    );
}

/// serde_json accepts lone surrogates inside a `RawValue` (its `ignore_str`
/// checks none); jitson validates a raw value's strings (difference 1).
#[test]
fn test_raw_de_invalid_surrogates() {
    type Raw = Box<serde_json::value::RawValue>;
    let lone = [
        r#""\ud83c""#,
        r#""\ud83c\n""#,
        r#""\ud83c ""#,
        r#""\udc01 ""#,
        r#""\ud83c\ud83c""#,
        r#""\ud83c\u0061""#,
        r#""\ud83c\u0080""#,
        r#""\ud83c\uffff""#,
    ];
    for text in lone {
        assert!(serde_json::from_str::<Raw>(text).is_ok(), "{text}");
        // jitson's words and position are serde_json's for the same string
        // decoded as a `String`.
        let as_string = serde_json::from_str::<String>(text)
            .unwrap_err()
            .to_string();
        for (run, result) in every_decode::<Raw>(text.as_bytes()) {
            let e = result.expect_err("jitson refuses a lone surrogate");
            assert_eq!(serde_style(&e), as_string, "{run} for {text}");
        }
        parse_err::<String>(&[(text, &as_string)]);
    }
    for text in [r#""\udc01\!""#, r#""\udc01\u""#] {
        assert!(serde_json::from_str::<Raw>(text).is_err(), "{text}");
        for (run, result) in every_decode::<Raw>(text.as_bytes()) {
            assert!(result.is_err(), "{run} for {text}");
        }
    }
}

#[test]
fn test_raw_de_surrogate_pair() {
    type Raw = Box<serde_json::value::RawValue>;
    let text = r#""\ud83c\udc00""#;
    assert!(serde_json::from_str::<Raw>(text).is_ok());
    for (run, result) in every_decode::<Raw>(text.as_bytes()) {
        assert_eq!(result.unwrap().get(), text, "{run}");
    }
}

/// serde_json's `&RawValue` borrows; jitson's `RawValue` owns the same text.
#[test]
fn test_borrowed_raw_value() {
    #[derive(Serialize, jitson::Decode, jitson::Encode, Debug, PartialEq)]
    struct Wrapper {
        a: i8,
        b: jitson::RawValue,
        c: i8,
    }
    let text = r#"{"a": 1, "b": {"foo": 2}, "c": 3}"#;
    let wrapper = common::decode::<Wrapper>(text.as_bytes()).unwrap();
    assert_eq!(wrapper.b.get(), r#"{"foo": 2}"#);
    encode_direct(&[(wrapper, r#"{"a":1,"b":{"foo": 2},"c":3}"#)]);

    let text = r#"["a", 42, {"foo": "bar"}, null]"#;
    let array = common::decode::<Vec<jitson::RawValue>>(text.as_bytes()).unwrap();
    let texts: Vec<&str> = array.iter().map(|raw| raw.get()).collect();
    assert_eq!(texts, [r#""a""#, "42", r#"{"foo": "bar"}"#, "null"]);
    encode_direct(&[(array, r#"["a",42,{"foo": "bar"},null]"#)]);
}

#[test]
fn test_boxed_raw_value() {
    #[derive(Serialize, Deserialize, jitson::Decode, jitson::Encode, Debug)]
    struct Wrapper {
        a: i8,
        b: Box<serde_json::value::RawValue>,
        c: i8,
    }
    let text = r#"{"a": 1, "b": {"foo": 2}, "c": 3}"#;
    for (run, result) in every_decode::<Wrapper>(text.as_bytes()) {
        let wrapper = result.unwrap();
        assert_eq!(wrapper.b.get(), r#"{"foo": 2}"#, "{run}");
        encode_direct(&[(wrapper, r#"{"a":1,"b":{"foo": 2},"c":3}"#)]);
    }
    let wrapper: Wrapper = jitson::from_reader(text.as_bytes()).unwrap();
    assert_eq!(wrapper.b.get(), r#"{"foo": 2}"#);

    let text = r#"["a", 42, {"foo": "bar"}, null]"#;
    type Raws = Vec<Box<serde_json::value::RawValue>>;
    let from_reader: Raws = jitson::from_reader(text.as_bytes()).unwrap();
    for (run, result) in every_decode::<Raws>(text.as_bytes()) {
        let array = result.unwrap();
        let texts: Vec<&str> = array.iter().map(|raw| raw.get()).collect();
        assert_eq!(
            texts,
            [r#""a""#, "42", r#"{"foo": "bar"}"#, "null"],
            "{run}"
        );
        encode_direct(&[(array, r#"["a",42,{"foo": "bar"},null]"#)]);
    }
    let texts: Vec<&str> = from_reader.iter().map(|raw| raw.get()).collect();
    assert_eq!(texts, [r#""a""#, "42", r#"{"foo": "bar"}"#, "null"]);
}

#[test]
fn test_raw_invalid_utf8() {
    // Columns as serde_json 1.0.154 (Cargo.lock) reports them, at the first
    // byte that is not UTF-8; the stored commit (1.0.150) said column 4.
    let input: &[u8] = &[b'"', b'\xCE', b'\xF8', b'"'];
    let expected = "invalid unicode code point at line 1 column 2";
    parse_slice_err::<Value>(input, expected, expected);
    assert_eq!(
        serde_json::from_slice::<Box<serde_json::value::RawValue>>(input)
            .unwrap_err()
            .to_string(),
        expected
    );
    for (run, result) in every_decode::<Box<serde_json::value::RawValue>>(input) {
        assert_eq!(serde_style(&result.unwrap_err()), expected, "{run}");
    }
}

// ---------------------------------------------------------------------------
// Not ported (serde_json's test, and why):
//
// - test_serialize_char: builds a Value with `json!` and reads it back with
//   `Value::get`; its encoding case is test_write_object's char key.
// - test_malicious_number: serde_json's private `Number` token
//   (`arbitrary_precision`), not a jitson type.
// - test_parse_number: `serde_json::Number` and its `FromStr`, not jitson
//   types or entry points.
// - test_parse_ok's IgnoredAny-then-u64 check on one `Deserializer`:
//   serde_json's streaming internals (jitson's streams are tests/stream.rs).
// - test_parse_ok's and the field tests' `from_value` / `T::deserialize(&Value)`
//   legs: serde_json's `Value` deserializer, not jitson.
// - test_deserialize_from_stream: a `Deserializer` reading a TCP stream on a
//   fixed port, serde_json's streaming internals.
// - test_bytes_ser, test_byte_buf_ser, test_byte_buf_de,
//   test_byte_buf_de_invalid_surrogates, test_byte_buf_de_surrogate_pair,
//   test_byte_buf_de_multiple: `serde_bytes` byte buffers (and WTF-8 for lone
//   surrogates), which jitson has no type for.
// - test_json_pointer, test_json_pointer_mut: `Value::pointer`, Value API.
// - test_disable_recursion_limit: serde_json's `unbounded_depth` feature on a
//   `Value`; jitson keeps a `Value` at serde_json's default limit whatever the
//   decoder's (README, "Limits").
// - test_json_macro: the `json!` macro.
// - test_partialeq_number, test_partialeq_string, test_partialeq_bool:
//   `Value`'s `PartialEq` impls.
// - test_into_io_error: serde_json's `From<Error> for io::Error`; jitson's
//   error has no such conversion.
// - test_integer128_to_value: `to_value`, Value API.
// - test_raw_value_in_map_key: a hand-written `Deserialize` of `&RawValue`
//   as a map key (ref-cast), serde_json's deserializer internals.
// - test_serialize_unsized_value_to_raw_value: `to_raw_value`, serde_json API.
// - test_borrow_in_map_key, test_value_into_deserializer: deserializing from a
//   `Value` and from serde's `MapDeserializer`, not from text.
// - hash_positive_and_negative_zero: `Number`'s `Hash`.
