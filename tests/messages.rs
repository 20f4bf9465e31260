//! Error messages as informative as serde_json's: the offending value
//! (`invalid type: string "2", expected i64`, ``invalid value: integer `256`,
//! expected u8``) and the names that were expected (``unknown field `x`,
//! expected `a` or `b` ``), checked word for word against serde_json on every
//! backend, with jitson's path and position after them.

mod common;

use jitson::Decode;
use serde::Deserialize;

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Two {
    a: i64,
    b: u8,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Three {
    one: Option<bool>,
    two: Option<f64>,
    three: Option<String>,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct One {
    #[serde(default)]
    only: Option<Vec<u8>>,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
enum Color {
    Red,
    Green,
    Blue,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
enum Lone {
    Only,
}

/// serde_json's message without its position.
fn serde_message<T: serde::de::DeserializeOwned + std::fmt::Debug>(doc: &str) -> String {
    let e = serde_json::from_str::<T>(doc).expect_err("serde_json refuses");
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&suffix).unwrap_or(&text).to_owned()
}

fn same_message<T: Decode + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(doc: &str) {
    let ours = common::err::<T>(doc.as_bytes()).to_string();
    let theirs = serde_message::<T>(doc);
    assert!(
        ours.starts_with(&format!("{theirs} at $")),
        "for {doc}:\n jitson:     {ours}\n serde_json: {theirs}"
    );
}

#[test]
fn messages_name_the_value_and_what_was_expected() {
    same_message::<Two>(r#"{"a": "2", "b": 1}"#);
    same_message::<Two>(r#"{"a": 2.5, "b": 1}"#);
    same_message::<Two>(r#"{"a": 1e3, "b": 1}"#);
    same_message::<Two>(r#"{"a": true, "b": 1}"#);
    same_message::<Two>(r#"{"a": null, "b": 1}"#);
    same_message::<Two>(r#"{"a": [], "b": 1}"#);
    same_message::<Two>(r#"{"a": "tab\t\"q\"", "b": 1}"#);
    same_message::<Two>(r#"{"a": 1, "b": 256}"#);
    same_message::<Two>(r#"{"a": 1, "b": -1}"#);
    same_message::<Two>(r#"{"a": 1, "b": 2, "c": 3}"#);
    same_message::<Three>(r#"{"four": 4}"#);
    same_message::<Three>(r#"{"one": 1}"#);
    same_message::<Three>(r#"{"two": false}"#);
    same_message::<Three>(r#"{"three": 3}"#);
    same_message::<One>(r#"{"only": [1, 300]}"#);
    same_message::<Color>(r#""Purple""#);
    same_message::<Lone>(r#""Other""#);
}
