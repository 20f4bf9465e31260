//! Differential property tests: jitson (every backend, both entry points, see
//! `common::decode`) against serde_json with `float_roundtrip` and
//! `#[derive(Deserialize)]` on the same types.
//!
//! 1. Generated values, serialised by serde_json (compact and pretty), must decode
//!    to the original value in both.
//! 2. Mutated and truncated documents: both must agree on success or failure; on
//!    success on the value, on failure on the error category (`classify()`).
//! 3. Number texts: f64 and f32 must be correctly rounded (checked against std's
//!    parser), integers exact or rejected exactly when serde_json rejects them.

mod common;

use std::collections::BTreeMap;

use common::oracle::agree;
use jitson::Decode;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Color {
    Red,
    Green,
    #[serde(rename = "BLUE")]
    Blue,
}

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Leaf {
    a: i64,
    b: u8,
    c: f64,
    d: String,
    e: bool,
    f: Option<i32>,
    g: char,
    h: f32,
}

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Mid {
    leaves: Vec<Leaf>,
    map: BTreeMap<String, u16>,
    arr: [i8; 3],
    opt: Option<Box<Leaf>>,
    color: Color,
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct Top {
    id: u64,
    mids: Vec<Mid>,
    #[serde(rename = "title", alias = "name")]
    name: String,
    maybe: Option<Vec<Option<f64>>>,
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{0,8}",
        any::<String>(),
        "[\"\\\\/\u{0}-\u{1f}a\u{e9}\u{4e2d}\u{1f600}]{0,6}",
    ]
}

fn finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |f| f.is_finite()),
        -1e6..1e6f64,
        Just(0.0),
        Just(-0.0)
    ]
}

fn finite_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        any::<f32>().prop_filter("finite", |f| f.is_finite()),
        -1e3..1e3f32
    ]
}

fn leaf() -> impl Strategy<Value = Leaf> {
    (
        any::<i64>(),
        any::<u8>(),
        finite_f64(),
        text(),
        any::<bool>(),
        any::<Option<i32>>(),
        any::<char>(),
        finite_f32(),
    )
        .prop_map(|(a, b, c, d, e, f, g, h)| Leaf {
            a,
            b,
            c,
            d,
            e,
            f,
            g,
            h,
        })
}

fn color() -> impl Strategy<Value = Color> {
    prop_oneof![Just(Color::Red), Just(Color::Green), Just(Color::Blue)]
}

fn mid() -> impl Strategy<Value = Mid> {
    (
        prop::collection::vec(leaf(), 0..3),
        prop::collection::btree_map(text(), any::<u16>(), 0..3),
        any::<[i8; 3]>(),
        prop::option::of(leaf().prop_map(Box::new)),
        color(),
        prop::collection::vec(text(), 0..3),
    )
        .prop_map(|(leaves, map, arr, opt, color, tags)| Mid {
            leaves,
            map,
            arr,
            opt,
            color,
            tags,
        })
}

fn top() -> impl Strategy<Value = Top> {
    (
        any::<u64>(),
        prop::collection::vec(mid(), 0..3),
        text(),
        prop::option::of(prop::collection::vec(prop::option::of(finite_f64()), 0..4)),
    )
        .prop_map(|(id, mids, name, maybe)| Top {
            id,
            mids,
            name,
            maybe,
        })
}

/// One edit of a document.
#[derive(Clone, Debug)]
enum Mutation {
    Truncate(usize),
    Delete(usize),
    Replace(usize, u8),
    Insert(usize, u8),
}

const INTERESTING: &[u8] = b"{}[],:\"\\ 0159-+.eEntfalsru\t\nx";

fn mutation() -> impl Strategy<Value = Mutation> {
    let byte = prop::sample::select(INTERESTING);
    prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        any::<usize>().prop_map(Mutation::Delete),
        (any::<usize>(), byte.clone()).prop_map(|(i, b)| Mutation::Replace(i, b)),
        (any::<usize>(), byte).prop_map(|(i, b)| Mutation::Insert(i, b)),
    ]
}

fn apply(doc: &mut Vec<u8>, m: &Mutation) {
    if doc.is_empty() {
        return;
    }
    match *m {
        Mutation::Truncate(i) => doc.truncate(i % doc.len()),
        Mutation::Delete(i) => {
            doc.remove(i % doc.len());
        }
        Mutation::Replace(i, b) => {
            let i = i % doc.len();
            doc[i] = b;
        }
        Mutation::Insert(i, b) => doc.insert(i % (doc.len() + 1), b),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn generated_values_round_trip(value in top()) {
        for doc in [serde_json::to_vec(&value).unwrap(), serde_json::to_vec_pretty(&value).unwrap()] {
            let decoded = agree::<Top>(&doc).expect("a serialised value decodes");
            prop_assert_eq!(&decoded, &value);
        }
    }

    #[test]
    fn mutated_documents_agree(value in top(), mutations in prop::collection::vec(mutation(), 1..4)) {
        let mut doc = serde_json::to_vec(&value).unwrap();
        for m in &mutations {
            apply(&mut doc, m);
        }
        let _ = agree::<Top>(&doc);
    }

    #[test]
    fn every_prefix_is_an_eof_error(value in mid()) {
        let doc = serde_json::to_vec(&value).unwrap();
        for cut in 0..doc.len() {
            let e = common::decode::<Mid>(&doc[..cut]).unwrap_err();
            prop_assert_eq!(e.kind(), jitson::ErrorKind::UnexpectedEnd, "prefix {:?}", String::from_utf8_lossy(&doc[..cut]));
            prop_assert_eq!(e.offset(), cut);
        }
    }

    #[test]
    fn numbers_are_exact(
        neg in any::<bool>(),
        int in "(0|[1-9][0-9]{0,25})",
        frac in prop::option::of("[0-9]{1,25}"),
        exp in prop::option::of((prop::sample::select(&["e", "E"][..]), prop::sample::select(&["", "+", "-"][..]), 0u32..400)),
    ) {
        let mut s = String::new();
        if neg { s.push('-'); }
        s.push_str(&int);
        if let Some(f) = &frac { s.push('.'); s.push_str(f); }
        if let Some((e, sign, n)) = &exp { s.push_str(e); s.push_str(sign); s.push_str(&n.to_string()); }
        let doc = s.as_bytes();

        // f64: correctly rounded (std's parser is), infinite values rejected.
        let expected: f64 = s.parse().unwrap();
        match common::decode::<f64>(doc) {
            Ok(v) => prop_assert_eq!(v.to_bits(), expected.to_bits(), "{}", s),
            Err(e) => prop_assert!(expected.is_infinite(), "{} rejected: {}", s, e),
        }
        // And serde_json (float_roundtrip) agrees on f64.
        let _ = agree::<f64>(doc);
        // f32: rounded once, directly.
        let expected32: f32 = s.parse().unwrap();
        match common::decode::<f32>(doc) {
            Ok(v) => prop_assert_eq!(v.to_bits(), expected32.to_bits(), "{}", s),
            Err(e) => prop_assert!(expected32.is_infinite(), "{} rejected: {}", s, e),
        }
        // serde_json also parses f32 directly.
        let _ = agree::<f32>(doc);
        // Integers: same acceptance and values as serde_json.
        let _ = agree::<i64>(doc);
        let _ = agree::<u64>(doc);
        let _ = agree::<i8>(doc);
        let _ = agree::<u16>(doc);
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct HasColor {
    color: Color,
}

#[test]
fn cut_and_malformed_tokens_into_unit_enums_are_syntax_errors() {
    // serde_json reads nothing past the first byte of a value that cannot start an
    // enum: a token cut short is `expected value`, not the end of input.
    let tokens = [
        "t", "nul", "fals", "-", "1.", "1e", "-0.", "true", "null", "1", "-1.5", "1e400", "[",
        "[1]", "x", "]",
    ];
    for token in tokens {
        let alone = agree::<Color>(token.as_bytes());
        assert_eq!(alone.unwrap_err(), jitson::Category::Syntax, "{token}");
        let field = format!(r#"{{"color": {token}"#);
        assert_eq!(
            agree::<HasColor>(field.as_bytes()).unwrap_err(),
            jitson::Category::Syntax,
            "{field}"
        );
        let closed = format!(r#"{{"color": {token}}}"#);
        let _ = agree::<HasColor>(closed.as_bytes());
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Boxes {
    #[serde(default)]
    id: u8,
    one: Box<Option<u32>>,
    #[allow(clippy::redundant_allocation)] // the shape under test
    two: Box<Box<Option<String>>>,
    opt_box: Option<Box<u8>>,
}

#[test]
fn optional_behind_boxes_follows_serdes_rule() {
    // serde asks a missing field's type for an option; `Box` forwards the question.
    let none = agree::<Boxes>(b"{}").unwrap();
    assert_eq!(
        none,
        Boxes {
            id: 0,
            one: Box::new(None),
            two: Box::new(Box::new(None)),
            opt_box: None
        }
    );
    let some = agree::<Boxes>(br#"{"one": 1, "two": "a", "opt_box": 2}"#).unwrap();
    assert_eq!((*some.one, (**some.two).as_deref()), (Some(1), Some("a")));
    let nulls = agree::<Boxes>(br#"{"one": null, "two": null, "opt_box": null}"#).unwrap();
    assert_eq!(nulls, none);
    // Every subset of present fields, in both orders.
    for mask in 0..8 {
        let mut members = Vec::new();
        for (bit, member) in [r#""one": 5"#, r#""two": "t""#, r#""opt_box": 9"#]
            .iter()
            .enumerate()
        {
            if mask & (1 << bit) != 0 {
                members.push(*member);
            }
        }
        let _ = agree::<Boxes>(format!("{{{}}}", members.join(",")).as_bytes()).unwrap();
        members.reverse();
        let _ = agree::<Boxes>(format!("{{{}}}", members.join(",")).as_bytes()).unwrap();
    }
}
