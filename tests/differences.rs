//! Every deliberate difference from serde_json listed in `docs/semantics.md`,
//! demonstrated against serde_json itself, so the list stays true.

mod common;

use jitson::{Category, Decode, ErrorKind, RawValue};
use serde::Deserialize;

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Pair {
    a: u8,
    b: u8,
}

fn serde_category(e: &serde_json::Error) -> Category {
    match e.classify() {
        serde_json::error::Category::Syntax => Category::Syntax,
        serde_json::error::Category::Eof => Category::Eof,
        serde_json::error::Category::Data => Category::Data,
        serde_json::error::Category::Io => unreachable!(),
    }
}

#[test]
fn structs_are_objects_only() {
    assert!(serde_json::from_str::<Pair>("[1, 2]").is_ok());
    assert_eq!(
        common::err::<Pair>(b"[1, 2]").kind(),
        ErrorKind::InvalidType
    );
}

#[test]
fn skipped_strings_are_validated() {
    let lone = br#"{"a": 1, "b": 2, "c": "\ud800"}"#;
    assert!(serde_json::from_slice::<Pair>(lone).is_ok());
    assert_eq!(common::err::<Pair>(lone).kind(), ErrorKind::Syntax);
    let mut bad_utf8 = br#"{"a": 1, "b": 2, "c": ""#.to_vec();
    bad_utf8.extend([0xff, b'"', b'}']);
    assert!(serde_json::from_slice::<Pair>(&bad_utf8).is_ok());
    assert_eq!(
        jitson::from_slice::<Pair>(&bad_utf8).unwrap_err().kind(),
        ErrorKind::InvalidUtf8
    );
    assert!(serde_json::from_slice::<Box<serde_json::value::RawValue>>(br#""\udc00""#).is_ok());
    assert!(jitson::from_slice::<RawValue>(br#""\udc00""#).is_err());
}

#[test]
fn positions_point_at_the_value() {
    // serde_json reports a type error after consuming the value; jitson at its start.
    let doc = br#"{"a": "xyz", "b": 1}"#;
    let theirs = serde_json::from_slice::<Pair>(doc).unwrap_err();
    let ours = common::err::<Pair>(doc);
    assert_eq!(theirs.column(), 11);
    assert_eq!((ours.offset(), ours.column()), (6, 7));
    // At the end of input, the offset is the input length and the column is the one
    // after the last character; serde_json gives the last character's column.
    let theirs = serde_json::from_slice::<Pair>(b"{\"a\": 1").unwrap_err();
    let ours = common::err::<Pair>(b"{\"a\": 1");
    assert_eq!((theirs.column(), ours.offset(), ours.column()), (7, 7, 8));
}

#[test]
fn invalid_utf8_is_at_its_byte_whatever_follows() {
    // jitson points at the first byte that is not UTF-8, on every backend;
    // serde_json points one byte past it when an escape follows in the string.
    for (doc, serde_column) in [(&b"\"\xfftail\\n\""[..], 3), (b"\"\xfftail\"", 2)] {
        let ours = common::err::<String>(doc);
        assert_eq!(
            (ours.kind(), ours.offset(), ours.column()),
            (ErrorKind::InvalidUtf8, 1, 2),
            "{doc:?}"
        );
        let theirs = serde_json::from_slice::<String>(doc).unwrap_err();
        assert_eq!(theirs.column(), serde_column, "{doc:?}");
    }
}

#[test]
fn numbers_cut_short_are_unexpected_end() {
    // jitson: a document that ends inside a number ended early, wherever the number
    // is. serde_json agrees for numbers it decodes, but calls a skipped one an
    // invalid number.
    for doc in ["-", "1.", "1e", "1e+", "[-", "{\"a\": 1."] {
        let ours = jitson::from_str::<jitson::IgnoredAny>(doc).unwrap_err();
        assert_eq!(
            (ours.kind(), ours.offset()),
            (ErrorKind::UnexpectedEnd, doc.len()),
            "{doc}"
        );
        let theirs = serde_json::from_str::<serde::de::IgnoredAny>(doc).unwrap_err();
        assert_eq!(serde_category(&theirs), Category::Syntax, "{doc}");
    }
    let ours = common::err::<f64>(b"1.");
    let theirs = serde_json::from_str::<f64>("1.").unwrap_err();
    assert_eq!(
        (ours.classify(), serde_category(&theirs)),
        (Category::Eof, Category::Eof)
    );
}
