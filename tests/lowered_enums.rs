//! The JIT's lowering of internally tagged, adjacently tagged and untagged
//! enums (issue 22, item 2): the same results as the interpreter and
//! serde_json on every backend, where the fast path reads the document and
//! where it must give way.
//!
//! The cases aim at what the fast path must get right beside the plain
//! documents: serde buffers an internally tagged object and an untagged
//! value, so a skipped member's number is evaluated (`1e999` is refused) and
//! its depth limited; a second tag is a duplicate field; a payload field
//! named like the tag stays absent; a nested tagged enum with the same tag
//! does not confuse its parent's; an untagged value whose first byte several
//! variants may start with is tried in order. `stats()` must show the enums
//! compiled, not handed to the interpreter.

mod common;

use std::collections::BTreeMap;
use std::fmt::Debug;

use jitson::{Backend, Decode};
use proptest::prelude::*;
use serde::Deserialize;
use serde::de::DeserializeOwned;

#[derive(Debug, PartialEq, Deserialize, Decode)]
struct Point {
    x: i64,
    y: i64,
}

#[derive(Debug, PartialEq, Deserialize, Decode)]
struct Labelled {
    name: String,
    #[serde(default)]
    tags: Vec<String>,
    inner: Option<Box<Shape>>,
}

/// Internally tagged, with struct, newtype-of-struct and unit variants.
#[derive(Debug, PartialEq, Deserialize, Decode)]
#[serde(tag = "type")]
enum Shape {
    Circle {
        r: f64,
    },
    Dot(Point),
    Named(Labelled),
    Empty,
    #[serde(alias = "sq")]
    Square {
        side: u32,
    },
}

/// A payload with a field named like its enum's tag (serde refuses that on a
/// struct variant, not on a newtype's struct).
#[derive(Debug, PartialEq, Deserialize, Decode)]
struct WithKind {
    #[serde(default)]
    kind: Option<String>,
    v: u8,
}

/// Internally tagged, a variant whose payload has a field named like the tag.
#[derive(Debug, PartialEq, Deserialize, Decode)]
#[serde(tag = "kind")]
enum Clash {
    A(WithKind),
    B { v: u8 },
}

/// Adjacently tagged.
#[derive(Debug, PartialEq, Deserialize, Decode)]
#[serde(tag = "t", content = "c")]
enum Message {
    Ping,
    Text(String),
    Move(Point),
    Many(Vec<u16>),
    Pair(u8, bool),
}

/// Untagged: every first byte has one variant, but numbers have two. (An
/// array of a `u8` out of range would be a `Point` in serde, which reads a
/// struct from an array; jitson does not: docs/semantics.md.)
#[derive(Debug, PartialEq, Deserialize, Decode)]
#[serde(untagged)]
enum Id {
    Missing,
    Flag(bool),
    Num(u64),
    Neg(i64),
    Text(String),
    List(Vec<u8>),
    Object(Point),
}

/// Untagged whose object has two candidates, tried in order.
#[derive(Debug, PartialEq, Deserialize, Decode)]
#[serde(untagged)]
enum Either {
    P(Point),
    L(Labelled),
    Map(BTreeMap<String, u8>),
}

#[derive(Debug, PartialEq, Deserialize, Decode)]
struct Holder {
    shape: Shape,
    msgs: Vec<Message>,
    ids: Vec<Id>,
    clash: Option<Clash>,
}

/// jitson on every backend and both entry points against serde_json.
#[track_caller]
fn agree<T: Decode + DeserializeOwned + PartialEq + Debug>(
    doc: &str,
) -> Result<T, jitson::Category> {
    common::oracle::agree::<T>(doc.as_bytes())
}

#[test]
fn internally_tagged_documents_agree_with_serde_json() {
    for doc in [
        r#"{"type":"Circle","r":1.5}"#,
        r#" { "type" : "Circle" , "r" : 2 } "#,
        r#"{"type":"Dot","x":1,"y":-2}"#,
        r#"{"type":"Dot","y":-2,"x":1,"extra":[1,{"a":null}]}"#,
        r#"{"type":"Empty"}"#,
        r#"{"type":"Empty","junk":1}"#,
        r#"{"type":"sq","side":3}"#,
        r#"{"type":"Square","side":3}"#,
        r#"{"r":1.5,"type":"Circle"}"#,
        r#"{"type":"Named","name":"n","inner":{"type":"Dot","x":1,"y":2}}"#,
        r#"{"type":"Named","inner":{"type":"Named","name":"m","inner":null},"name":"n"}"#,
        // The tag's key or value escaped.
        r#"{"t\u0079pe":"Circle","r":1}"#,
        r#"{"type":"Circl\u0065","r":1}"#,
        // Unknown variant, tag of the wrong type, missing tag.
        r#"{"type":"Triangle"}"#,
        r#"{"type":1,"r":1}"#,
        r#"{"r":1}"#,
        r#"{}"#,
        r#"[]"#,
        r#"["Circle",1.5]"#,
        r#"null"#,
        // A second tag is a duplicate field, before or after the payload's
        // members, and inside a nested payload it is that payload's.
        r#"{"type":"Circle","r":1,"type":"Circle"}"#,
        r#"{"type":"Circle","type":"Dot","r":1}"#,
        r#"{"type":"Named","name":"n","inner":{"type":"Dot","x":1,"y":2,"type":"Dot"}}"#,
        r#"{"type":"Named","name":"n","inner":{"type":"Dot","x":1,"y":2},"type":"Named"}"#,
        // A skipped member serde buffers: its number is evaluated.
        r#"{"type":"Circle","r":1,"junk":1e999}"#,
        r#"{"type":"Circle","r":1,"junk":[1,2,{"deep":-1e400}]}"#,
        r#"{"type":"Empty","junk":1e999}"#,
        r#"{"type":"Circle","r":1e999}"#,
        // Errors inside the payload, and after it.
        r#"{"type":"Circle","r":"one"}"#,
        r#"{"type":"Dot","x":1}"#,
        r#"{"type":"Dot","x":1,"y":2,"x":3}"#,
        r#"{"type":"Circle","r":1"#,
        r#"{"type":"Circle","r":1,}"#,
        r#"{"type":"Circle" "r":1}"#,
        r#"{"type":"Circle","r":1}x"#,
    ] {
        let _ = agree::<Shape>(doc);
    }
}

#[test]
fn a_field_named_like_the_tag_stays_absent() {
    for doc in [
        r#"{"kind":"A","v":1}"#,
        r#"{"kind":"A","v":1,"kind":"A"}"#,
        r#"{"v":1,"kind":"B"}"#,
        r#"{"kind":"B","v":1,"kind":"x"}"#,
    ] {
        let _ = agree::<Clash>(doc);
    }
}

#[test]
fn adjacently_tagged_documents_agree_with_serde_json() {
    for doc in [
        r#"{"t":"Ping"}"#,
        r#"{"t":"Ping","c":null}"#,
        r#"{"t":"Text","c":"hi"}"#,
        r#"{ "t" : "Move" , "c" : {"x":1,"y":2} }"#,
        r#"{"t":"Many","c":[1,2,3]}"#,
        r#"{"t":"Pair","c":[1,true]}"#,
        r#"{"c":"hi","t":"Text"}"#,
        r#"{"t":"Text","c":"hi","x":1}"#,
        r#"{"t":"Text","x":1,"c":"hi"}"#,
        r#"{"t":"Text","c":"hi","c":"again"}"#,
        r#"{"t":"Text","c":"hi","t":"Text"}"#,
        r#"{"t":"Text","c":1}"#,
        r#"{"t":"Text"}"#,
        r#"{"t":"Move","c":{"x":1}}"#,
        r#"{"t":"Pair","c":[1,true,3]}"#,
        r#"{"t":"Nope","c":1}"#,
        r#"{"t":"Text","c":"hi""#,
        r#"["Text","hi"]"#,
        // serde reads the tag as an enum, so the externally tagged form of a
        // unit variant names one too.
        r#"{"t":{"Text":null},"c":"hi"}"#,
        r#"{"t":{"Text":1},"c":"hi"}"#,
        r#"{"t":{"Nope":null},"c":"hi"}"#,
        r#"{"t":{"Text":null,"x":1},"c":"hi"}"#,
        r#"{"t":{1:null},"c":"hi"}"#,
        r#"{"t":{},"c":"hi"}"#,
        r#"{"t":{"Text":null"#,
    ] {
        let _ = agree::<Message>(doc);
    }
}

#[test]
fn untagged_documents_agree_with_serde_json() {
    for doc in [
        "null",
        "true",
        "false",
        "12",
        "-12",
        "18446744073709551615",
        "-9223372036854775808",
        "1.5",
        "1e999",
        r#""id""#,
        r#""a\nb""#,
        "[1,2]",
        "[]",
        r#"{"x":1,"y":2}"#,
        r#"{"x":1}"#,
        r#"{"x":1,"y":2,"z":1e999}"#,
        "nul",
        "tru",
        "[1,2",
        r#"{"x":1,"y":2"#,
        "x",
    ] {
        let _ = agree::<Id>(doc);
    }
    for doc in [
        r#"{"x":1,"y":2}"#,
        r#"{"name":"n"}"#,
        r#"{"a":1,"b":2}"#,
        r#"{"x":1,"name":"n"}"#,
        r#"{"a":300}"#,
        r#"{"x":1,"y":2,"junk":1e999}"#,
    ] {
        let _ = agree::<Either>(doc);
    }
}

#[test]
fn tagged_enums_inside_structs_and_sequences() {
    let doc = r#"{
        "shape": {"type":"Named","name":"outer","tags":["a"],"inner":{"type":"Circle","r":0.5}},
        "msgs": [{"t":"Ping"},{"t":"Text","c":"x"},{"t":"Move","c":{"y":1,"x":2}}],
        "ids": [null, 1, -1, "s", [1], {"x":0,"y":0}, true],
        "clash": {"kind":"B","v":7}
    }"#;
    let holder = agree::<Holder>(doc).expect("decodes");
    assert_eq!(holder.msgs.len(), 3);
    assert_eq!(holder.ids[2], Id::Neg(-1));
}

/// The depth serde's buffering allows a skipped member: one level less than
/// the decoder's limit on every backend, as for the interpreter.
#[test]
fn a_skipped_members_depth_is_limited_as_serde_buffers_it() {
    for depth in [120, 126, 127, 128, 129, 200] {
        let junk = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let _ = agree::<Shape>(&format!(r#"{{"type":"Circle","r":1,"junk":{junk}}}"#));
        let _ = agree::<Either>(&format!(r#"{{"x":1,"y":2,"junk":{junk}}}"#));
        let _ = agree::<Message>(&format!(
            r#"{{"t":"Move","c":{{"x":1,"y":2,"junk":{junk}}}}}"#
        ));
    }
}

#[test]
fn lowered_enums_are_compiled_not_interpreted() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Holder>().expect("warm_up");
    common::assert_compiled(&["Shape", "Message", "Id", "Clash"]);
}

/// Members for a generated object: known keys of the models, unknown ones,
/// and the tags, with values of every type (numbers that overflow among them).
fn member() -> impl Strategy<Value = String> {
    let key = prop::sample::select(
        &[
            "type", "t", "c", "x", "y", "r", "side", "name", "inner", "junk", "kind", "v",
        ][..],
    );
    let value = prop::sample::select(
        &[
            "1",
            "-1",
            "2.5",
            "1e999",
            "300",
            "\"Circle\"",
            "\"Dot\"",
            "\"Empty\"",
            "\"Text\"",
            "\"Move\"",
            "\"Ping\"",
            "\"A\"",
            "\"B\"",
            "\"n\"",
            "null",
            "true",
            "[]",
            "[1,2]",
            "{\"x\":1,\"y\":2}",
            "{\"type\":\"Empty\"}",
            "{\"type\":\"Dot\",\"x\":1,\"y\":1}",
        ][..],
    );
    (key, value).prop_map(|(k, v)| format!("\"{k}\":{v}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn generated_objects_agree_with_serde_json(
        members in prop::collection::vec(member(), 0..6),
        spaced in any::<bool>(),
    ) {
        let sep = if spaced { " , " } else { "," };
        let doc = format!("{{{}}}", members.join(sep));
        let _ = agree::<Shape>(&doc);
        let _ = agree::<Clash>(&doc);
        let _ = agree::<Message>(&doc);
        let _ = agree::<Id>(&doc);
        let _ = agree::<Either>(&doc);
    }
}

/// Payloads that are not structs under an internal tag (the interpreter's):
/// a second tag is a duplicate field for them too (found by a tester).
#[derive(Debug, PartialEq, Deserialize, Decode)]
#[serde(tag = "kind")]
enum Outer {
    A(Shape),
    M(BTreeMap<String, u8>),
}

#[test]
fn a_second_tag_is_refused_whatever_the_payload() {
    for doc in [
        r#"{"kind":"A","type":"Empty","kind":"A"}"#,
        r#"{"kind":"A","type":"Circle","r":1,"kind":"M"}"#,
        r#"{"kind":"M","a":1,"kind":"M"}"#,
        r#"{"kind":"M","a":1}"#,
        r#"{"a":1,"kind":"M"}"#,
        r#"{"kind":"A","type":"Circle","r":1}"#,
        r#"{"kind":"M","a":1,"b":[1,}"#,
    ] {
        let _ = agree::<Outer>(doc);
    }
}
