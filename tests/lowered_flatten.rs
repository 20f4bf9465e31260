//! The JIT's reading of `#[serde(flatten)]` (issue 22, item 2): a struct and
//! the structs it flattens as one key set, a flattened map collecting the
//! keys none of them claims, on every backend and against serde_json.
//!
//! Beside plain documents the cases aim at what the one key set must keep:
//! the parent's fields win a key over the flattened ones, the flattened ones
//! in declaration order (depth first); a repeated key is a duplicate field
//! wherever it lands; members nobody claims are checked as serde checks what
//! it buffers (`1e999` refused) or collected; absent fields get their
//! defaults; an internally tagged payload that flattens keeps its tag out of
//! the collecting map; and every exit that gives up drops exactly what was
//! written, the collecting map included. A flattened field read by its own
//! serde function (openapiv3's `extensions`) is compiled too: the members
//! nobody claims are collected and handed to it as one object
//! (`serde_rest` below). Encoding: a struct with flattened fields stays
//! compiled, each flattened field's members written in their place by the
//! interpreter (`flattened_members_in_compiled_encoders` below).

mod common;

use std::collections::BTreeMap;
use std::fmt::Debug;

use common::counted::{Counted, live};
use jitson::{Backend, Decode};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

#[derive(Debug, PartialEq, Deserialize, Decode)]
struct Audit {
    created: u64,
    #[serde(default)]
    by: Option<String>,
}

#[derive(Debug, PartialEq, Deserialize, Decode)]
struct Paging {
    page: u32,
    #[serde(default = "twenty")]
    per_page: u32,
    #[serde(flatten)]
    audit: Audit,
}

fn twenty() -> u32 {
    20
}

/// A struct flattening a struct that flattens another.
#[derive(Debug, PartialEq, Deserialize, Decode)]
struct Listing {
    id: String,
    #[serde(flatten)]
    paging: Paging,
}

/// Any JSON value, as an untagged enum (`serde_json::Value` needs the `serde`
/// feature, which the tests also run without).
#[derive(Debug, PartialEq, Deserialize, Decode)]
#[serde(untagged)]
enum Any {
    Null,
    Bool(bool),
    Number(f64),
    Text(String),
    List(Vec<Any>),
    Object(BTreeMap<String, Any>),
}

/// A flattened map collecting what the fields do not claim.
#[derive(Debug, PartialEq, Deserialize, Decode)]
struct Envelope {
    id: String,
    #[serde(default)]
    kind: u8,
    #[serde(flatten)]
    rest: BTreeMap<String, Any>,
}

/// Both: serde also copies the keys the flattened structs claim into the
/// map, which jitson does not (docs/semantics.md, difference 12), so this one
/// is compared across jitson's backends only.
#[derive(Debug, PartialEq, Deserialize, Decode)]
struct Mixed {
    id: String,
    #[serde(flatten)]
    paging: Paging,
    #[serde(flatten)]
    rest: BTreeMap<String, Any>,
}

/// Flattened structs only: the rest is skipped.
#[derive(Debug, PartialEq, Deserialize, Decode)]
struct Plain {
    id: u8,
    #[serde(flatten)]
    audit: Audit,
}

/// A key in both the parent and the flattened struct.
#[derive(Debug, PartialEq, Deserialize, Decode)]
struct Overlap {
    created: u64,
    #[serde(flatten)]
    audit: Audit,
}

/// A typed rest: a value of the wrong type fails the struct.
#[derive(Debug, PartialEq, Deserialize, Decode)]
struct Counts {
    total: u32,
    #[serde(flatten)]
    counts: BTreeMap<String, u32>,
}

/// Values that count themselves, for the drops on every error path.
#[derive(Debug, PartialEq, Deserialize, Decode)]
struct Named {
    name: Counted,
    #[serde(default)]
    alias: Option<Counted>,
}

#[derive(Debug, PartialEq, Deserialize, Decode)]
struct CountedRest {
    first: Counted,
    #[serde(flatten)]
    named: Named,
    #[serde(flatten)]
    rest: BTreeMap<String, Counted>,
    last: u8,
}

/// An internally tagged enum whose payloads flatten.
#[derive(Debug, PartialEq, Deserialize, Decode)]
#[serde(tag = "type")]
enum Event {
    Listed(Listing),
    Enveloped(Envelope),
    Audited {
        id: u8,
        #[serde(flatten)]
        audit: Audit,
    },
}

#[track_caller]
fn agree<T: Decode + DeserializeOwned + PartialEq + Debug>(
    doc: &str,
) -> Result<T, jitson::Category> {
    common::oracle::agree::<T>(doc.as_bytes())
}

/// jitson (every backend) and serde_json both decode `doc` to the same value,
/// or both fail: for generated documents with several errors at once, where
/// which one is reported may differ (docs/semantics.md, difference 13).
#[track_caller]
fn same_outcome<T: Decode + DeserializeOwned + PartialEq + Debug>(doc: &str) {
    let ours = common::decode::<T>(doc.as_bytes());
    let theirs = serde_json::from_str::<T>(doc);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{doc}"),
        (Err(_), Err(_)) => {}
        _ => panic!("{doc}: jitson {ours:?}, serde_json {theirs:?}"),
    }
}

#[test]
fn flattened_structs_and_a_collecting_map_agree_with_serde_json() {
    for doc in [
        r#"{"id":"a","page":1,"created":5}"#,
        r#"{"created":5,"page":1,"id":"a","per_page":3,"by":"me"}"#,
        r#"{"id":"a","page":1,"created":5,"extra":[1,{"x":null}],"more":"s"}"#,
        r#"{"zzz":1,"id":"a","aaa":2,"page":1,"created":5}"#,
        r#"{"id":"a","page":1,"created":5,"x":1,"x":2}"#,
        r#"{"i\u0064":"a","page":1,"created":5,"\u0078":1}"#,
        r#"{"id":"a","page":1}"#,
        r#"{"id":"a","created":5}"#,
        r#"{"page":1,"created":5}"#,
        r#"{}"#,
        r#"{"id":"a","page":1,"created":5,"page":2}"#,
        r#"{"id":"a","id":"b","page":1,"created":5}"#,
        r#"{"id":"a","page":"one","created":5}"#,
        r#"{"id":"a","page":1,"created":5,"x":1e999}"#,
        r#"{"id":"a","page":1,"created":5,"x":[1,}"#,
        r#"{"id":"a","page":1,"created":5"#,
        r#"{"id":"a","page":1,"created":5,}"#,
        r#"{"id":"a" "page":1}"#,
        r#"[]"#,
        r#"null"#,
    ] {
        let _ = agree::<Listing>(doc);
        let _ = agree::<Envelope>(doc);
        let _ = common::decode::<Mixed>(doc.as_bytes());
        let _ = agree::<Plain>(&doc.replace("\"a\"", "7"));
    }
}

#[test]
fn a_key_goes_to_the_first_struct_that_names_it() {
    for doc in [
        r#"{"created":1,"by":"x","n":3}"#,
        r#"{"created":1,"created":2}"#,
        r#"{"created":1,"n":"three"}"#,
        r#"{"created":1,"n":-1}"#,
        r#"{"created":1,"n":1,"n":2}"#,
    ] {
        let _ = agree::<Overlap>(doc);
        let _ = agree::<Counts>(&doc.replace("created", "total"));
    }
}

#[test]
fn a_failing_member_drops_what_was_written_once() {
    for doc in [
        r#"{"first":"f","name":"n","x":"1","last":1}"#,
        r#"{"first":"f","name":"n","alias":"a","x":"1","y":"2","last":1}"#,
        r#"{"first":"f","name":"n","x":"1","last":300}"#,
        r#"{"first":"f","name":"n","x":1,"last":1}"#,
        r#"{"first":"f","x":"1","last":1}"#,
        r#"{"first":"f","name":"n","name":"m","last":1}"#,
        r#"{"first":"f","name":"n","x":"1","last":1,"x":"2"}"#,
        r#"{"first":"f","name":"n","x":"1","last":1"#,
        r#"{"first":"f","name":"n","x":"1","last":1}x"#,
    ] {
        let before = live();
        let result = common::decode::<CountedRest>(doc.as_bytes());
        drop(result);
        assert_eq!(live(), before, "{doc}");
    }
}

#[test]
fn an_internally_tagged_payload_that_flattens_keeps_its_tag() {
    for doc in [
        r#"{"type":"Listed","id":"a","page":1,"created":5,"x":1}"#,
        r#"{"type":"Enveloped","id":"a","x":1,"y":[2]}"#,
        r#"{"id":"a","type":"Enveloped","x":1}"#,
        r#"{"type":"Enveloped","id":"a","x":1,"type":"Enveloped"}"#,
        r#"{"id":"a","type":"Listed","page":1,"created":5}"#,
        r#"{"type":"Listed","id":"a","page":1,"created":5,"type":"Listed"}"#,
        r#"{"type":"Audited","id":1,"created":5,"by":"b"}"#,
        r#"{"type":"Audited","id":1,"created":5,"junk":1e999}"#,
        r#"{"type":"Audited","id":1}"#,
        // A second tag is refused as soon as its key is read (found by
        // fuzzing: the colon used to be checked first).
        r#"{"type":"Audited","id":1,"created":5,"type"8"x"}"#,
        r#"{"type":"Listed","id":"a","page":1,"created":5,"type"}"#,
    ] {
        let _ = agree::<Event>(doc);
    }
}

#[test]
fn flattening_structs_are_compiled() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Listing>().expect("warm_up");
    jitson::warm_up::<Event>().expect("warm_up");
    jitson::warm_up::<CountedRest>().expect("warm_up");
    common::assert_compiled(&["Listing", "Paging", "Event", "CountedRest", "Envelope"]);
}

/// Members of the models' keys and unknown ones, with values of every type.
fn member() -> impl Strategy<Value = String> {
    let key = prop::sample::select(
        &[
            "id", "page", "per_page", "created", "by", "n", "x", "type", "first", "name", "last",
            "total", "kind",
        ][..],
    );
    let value = prop::sample::select(
        &[
            "1",
            "-1",
            "2.5",
            "1e999",
            "300",
            "\"a\"",
            "\"Listed\"",
            "\"Audited\"",
            "\"Enveloped\"",
            "null",
            "true",
            "[]",
            "[1,\"x\"]",
            "{\"k\":1}",
        ][..],
    );
    (key, value).prop_map(|(k, v)| format!("\"{k}\":{v}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn generated_objects_agree_with_serde_json(members in prop::collection::vec(member(), 0..7)) {
        let doc = format!("{{{}}}", members.join(","));
        same_outcome::<Listing>(&doc);
        same_outcome::<Envelope>(&doc);
        let _ = common::decode::<Mixed>(doc.as_bytes());
        same_outcome::<Plain>(&doc);
        same_outcome::<Overlap>(&doc);
        same_outcome::<Counts>(&doc);
        same_outcome::<Event>(&doc);
        let before = live();
        drop(common::decode::<CountedRest>(doc.as_bytes()));
        prop_assert_eq!(live(), before);
    }
}

#[derive(Debug, PartialEq, Deserialize, Decode)]
struct Leaf {
    a: u8,
}

#[derive(Debug, PartialEq, Deserialize, Decode)]
struct Middle {
    s: Leaf,
}

/// A flattened struct's field holding a struct: serde reads it from what it
/// buffered, so a skipped member inside it is checked as buffered too (found
/// by a tester).
#[derive(Debug, PartialEq, Deserialize, Decode)]
struct Outermost {
    #[serde(flatten)]
    m: Middle,
}

#[test]
fn a_flattened_structs_fields_are_read_as_serde_buffers_them() {
    let deep = format!("{}{}", "[".repeat(127), "]".repeat(127));
    for doc in [
        r#"{"s":{"a":1,"zz":1e999}}"#.to_owned(),
        r#"{"s":{"a":1,"zz":1}}"#.to_owned(),
        format!(r#"{{"s":{{"a":1,"zz":{deep}}}}}"#),
    ] {
        let _ = agree::<Outermost>(&doc);
    }
}

/// A flattened field read by its serde function (`deserialize_with`), as
/// openapiv3 reads its `x-` extensions on nearly every struct: the JIT
/// collects the members no field claims and hands them to the function as one
/// object once the struct's object is read, as the interpreter does.
#[cfg(feature = "serde")]
mod serde_rest {
    use super::*;
    use serde::Deserializer;
    use serde::de::Error as _;

    thread_local! {
        /// How many times [`x_members`] ran on this thread.
        static CALLS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// The members whose key starts `x-`, without the prefix; a non-string
    /// value is refused by the function.
    fn x_members<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, Counted>, D::Error> {
        CALLS.set(CALLS.get() + 1);
        let all = BTreeMap::<String, serde_json::Value>::deserialize(d)?;
        let mut out = BTreeMap::new();
        for (key, value) in all {
            if let Some(name) = key.strip_prefix("x-") {
                match value {
                    serde_json::Value::String(s) => {
                        out.insert(name.to_owned(), Counted::new(&s));
                    }
                    other => return Err(D::Error::custom(format!("{key} is {other}"))),
                }
            }
        }
        Ok(out)
    }

    #[derive(Debug, PartialEq, Deserialize, Decode)]
    pub(super) struct Spec {
        first: Counted,
        #[serde(flatten)]
        audit: Audit,
        #[serde(flatten, deserialize_with = "x_members")]
        ext: BTreeMap<String, Counted>,
        #[serde(default)]
        last: u8,
    }

    /// The same field inside a flattened struct, and a required field after.
    #[derive(Debug, PartialEq, Deserialize, Decode)]
    pub(super) struct Outer {
        id: Counted,
        #[serde(flatten)]
        spec: Spec,
        done: bool,
    }

    #[derive(Debug, PartialEq, Deserialize, Decode)]
    #[serde(tag = "type")]
    pub(super) enum Tagged {
        Spec(Spec),
    }

    const DOCS: &[&str] = &[
        r#"{"first":"f","created":1}"#,
        r#"{"first":"f","created":1,"x-a":"1","x-b":"2","last":3}"#,
        r#"{"x-a":"1","first":"f","other":[1,{"x-in":2}],"created":1}"#,
        r#"{"first":"f","created":1,"x-a":"1","x-a":"2"}"#,
        r#"{"first":"f","created":1,"x\u002da":"esc"}"#,
        r#"{"first":"f","created":1,"x-a":5}"#,
        r#"{"first":"f","created":1,"x-a":"1","junk":1e999}"#,
        r#"{"first":"f","created":1,"x-a":"1","junk":[1,}"#,
        r#"{"first":"f","x-a":"1"}"#,
        r#"{"first":"f","created":1,"x-a":"1","first":"g"}"#,
        r#"{"first":"f","created":1,"x-a":"1","last":300}"#,
        r#"{"first":"f","created":1,"x-a":"1"}x"#,
        r#"{"first":"f","created":1,"x-a":"1""#,
        r#"{"first":"f","created":1,"x-a" "1"}"#,
        r#"{"created":1,"x-a":"1"}"#,
        r#"{}"#,
        r#"[]"#,
    ];

    #[test]
    fn a_flattened_serde_field_reads_the_members_nobody_claims() {
        for doc in DOCS {
            let before = live();
            let _ = agree::<Spec>(doc);
            let outer = format!(r#"{{"id":"i","done":true,{}"#, &doc[1..]);
            let _ = agree::<Outer>(&outer);
            let outer = format!(r#"{{"id":"i",{}"#, &doc[1..]);
            let _ = agree::<Outer>(&outer);
            let tagged = format!(r#"{{"type":"Spec",{}"#, &doc[1..]);
            let _ = agree::<Tagged>(&tagged);
            assert_eq!(live(), before, "{doc}");
        }
        let deep = format!("{}{}", "[".repeat(127), "]".repeat(127));
        let deeper = format!("{}{}", "[".repeat(128), "]".repeat(128));
        for filler in [deep, deeper] {
            let doc = format!(r#"{{"first":"f","created":1,"x-a":"1","junk":{filler}}}"#);
            let _ = agree::<Spec>(&doc);
        }
    }

    #[test]
    fn structs_with_a_flattened_serde_field_are_compiled() {
        if !Backend::Jit.is_available() {
            return;
        }
        jitson::warm_up::<Spec>().expect("warm_up");
        jitson::warm_up::<Outer>().expect("warm_up");
        jitson::warm_up::<Tagged>().expect("warm_up");
        common::assert_compiled(&["Spec", "Outer", "Tagged"]);
        // The compiled code itself decodes them: the function runs once a
        // decode (a struct that gave up would run it again in the
        // interpreter's rerun).
        let doc = r#"{"id":"i","first":"f","x-a":"1","created":1,"y":[2],"x-b":"2","done":true}"#;
        let decoder = jitson::Decoder::<Outer>::with_backend(Backend::Jit);
        let before = CALLS.get();
        let outer = decoder.decode_str(doc).expect("decodes");
        assert_eq!(CALLS.get(), before + 1);
        assert_eq!(outer.spec.ext.len(), 2);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn generated_objects_with_extensions_agree(members in prop::collection::vec(extension_member(), 0..7)) {
            let doc = format!("{{{}}}", members.join(","));
            let before = live();
            same_outcome::<Spec>(&doc);
            same_outcome::<Tagged>(&doc.replacen('{', r#"{"type":"Spec","#, 1).replace(",}", "}"));
            prop_assert_eq!(live(), before);
        }
    }

    fn extension_member() -> impl Strategy<Value = String> {
        let key = prop::sample::select(
            &["first", "created", "by", "last", "x-a", "x-b", "y", "type"][..],
        );
        let value = prop::sample::select(
            &[
                "1",
                "300",
                "\"s\"",
                "null",
                "[1]",
                "{\"x-k\":\"v\"}",
                "1e999",
                "true",
            ][..],
        );
        (key, value).prop_map(|(k, v)| format!("\"{k}\":{v}"))
    }
}

/// Encoding structs with flattened fields: compiled, the flattened fields'
/// members written by the interpreter at their place among the others.
#[derive(Debug, Clone, Serialize, jitson::Encode)]
struct EncInner {
    x: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    y: Option<String>,
}

#[derive(Debug, Serialize, jitson::Encode)]
#[serde(tag = "kind")]
enum EncTag {
    A { n: u8 },
    B,
}

#[derive(Debug, Serialize, jitson::Encode)]
struct EncOuter {
    #[serde(flatten)]
    head: BTreeMap<String, u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    a: Option<u8>,
    #[serde(flatten)]
    inner: EncInner,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    list: Vec<u8>,
    #[serde(flatten)]
    maybe: Option<EncInner>,
    #[serde(flatten)]
    tag: EncTag,
    #[serde(flatten)]
    tail: BTreeMap<String, Vec<u8>>,
}

/// Only flattened fields, as openapiv3's `Paths`.
#[derive(Debug, Serialize, jitson::Encode)]
struct EncOnlyFlat {
    #[serde(flatten)]
    paths: BTreeMap<String, EncInner>,
    #[serde(flatten)]
    extensions: BTreeMap<String, u8>,
}

/// An internally tagged payload that flattens (the tag is written before).
#[derive(Debug, Serialize, jitson::Encode)]
#[serde(tag = "type")]
enum EncEvent {
    Only(EncOnlyFlat),
}

#[test]
fn flattened_members_in_compiled_encoders() {
    let inner = |x: u8, y: Option<&str>| EncInner {
        x,
        y: y.map(str::to_owned),
    };
    let maps = [
        BTreeMap::new(),
        BTreeMap::from([("k".to_owned(), 1), ("\"q\"".to_owned(), 2)]),
    ];
    for head in &maps {
        for a in [None, Some(7)] {
            for (list, maybe, tag) in [
                (vec![], None, EncTag::B),
                (vec![1, 2], Some(inner(3, Some("s"))), EncTag::A { n: 4 }),
            ] {
                let value = EncOuter {
                    head: head.clone(),
                    a,
                    inner: inner(1, a.map(|_| "y")),
                    list: list.clone(),
                    maybe,
                    tag,
                    tail: BTreeMap::from([("t".to_owned(), list)]),
                };
                common::encodes_as_serde_json(&value);
            }
        }
    }
    for paths in [
        BTreeMap::new(),
        BTreeMap::from([
            ("/a".to_owned(), inner(1, None)),
            ("/b".to_owned(), inner(2, Some("z"))),
        ]),
    ] {
        for extensions in &maps {
            let only = EncOnlyFlat {
                paths: paths.clone(),
                extensions: extensions.clone(),
            };
            common::encodes_as_serde_json(&only);
            common::encodes_as_serde_json(&EncEvent::Only(only));
            let nested = BTreeMap::from([(
                "n".to_owned(),
                EncOnlyFlat {
                    paths: paths.clone(),
                    extensions: extensions.clone(),
                },
            )]);
            common::encodes_as_serde_json(&nested);
        }
    }
    if Backend::Jit.is_available() {
        jitson::warm_up_encode::<EncOuter>().expect("warm_up_encode");
        jitson::warm_up_encode::<EncEvent>().expect("warm_up_encode");
        let interpreted = jitson::stats().encoder_interpreted_layouts;
        for name in ["EncOuter", "EncOnlyFlat", "EncInner", "EncEvent"] {
            // A recursive type's pretty output past 16 levels is the
            // interpreter's by design (`MAX_PRETTY_DEPTH`).
            assert!(
                !interpreted
                    .iter()
                    .any(|(ty, why)| ty.ends_with(&format!("::{name}"))
                        && !why.contains("nested too deep")),
                "{name}: {interpreted:?}"
            );
        }
    }
}

/// openapiv3's `Schema`, reduced: a struct and an untagged enum flattened,
/// the enum's variants an internally tagged enum (struct, unit and map
/// payloads), a struct variant, a unit and a struct that may write nothing;
/// options, boxes and newtypes around flattened structs; and a type that
/// flattens itself. Compiled, the members written in place, compared with
/// serde_json byte for byte.
#[derive(Debug, Clone, Serialize, jitson::Encode)]
struct EncSchema {
    #[serde(flatten)]
    data: EncData,
    #[serde(flatten)]
    kind: EncKind,
}

#[derive(Debug, Clone, Serialize, jitson::Encode)]
struct EncData {
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    nullable: bool,
    #[serde(flatten)]
    maybe: Option<EncAny>,
    #[serde(flatten)]
    boxed: Box<EncWrap>,
}

#[derive(Debug, Clone, Serialize, jitson::Encode)]
struct EncWrap(EncAny);

#[derive(Debug, Clone, Serialize, jitson::Encode)]
struct EncAny {
    #[serde(skip_serializing_if = "Option::is_none")]
    a: Option<u8>,
}

#[derive(Debug, Clone, Serialize, jitson::Encode)]
#[serde(untagged)]
enum EncKind {
    Type(EncType),
    OneOf { one_of: Vec<EncSchema> },
    Nothing,
    Any(EncAny),
}

#[derive(Debug, Clone, Serialize, jitson::Encode)]
#[serde(tag = "type", rename_all = "lowercase")]
enum EncType {
    Object(EncObject),
    Text { max: Option<u8> },
    Flag,
    Keyed(BTreeMap<String, u8>),
}

#[derive(Debug, Clone, Serialize, jitson::Encode)]
struct EncObject {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    props: BTreeMap<String, Box<EncSchema>>,
    #[serde(flatten)]
    ext: BTreeMap<String, u8>,
}

/// Flattens itself (serde cannot serialize this: its flattening serializer
/// types nest without end): written in place a few levels deep, then by the
/// interpreter, and compared across jitson's backends.
#[derive(Debug, Clone, jitson::Encode)]
struct EncChain {
    n: u8,
    #[serde(flatten)]
    next: Option<Box<EncLink>>,
}

#[derive(Debug, Clone, jitson::Encode)]
struct EncLink {
    #[serde(rename = "m")]
    m: u8,
    #[serde(flatten)]
    rest: Option<Box<EncLink>>,
}

#[test]
fn flattened_structs_and_enums_are_written_in_place() {
    let any = |a: Option<u8>| EncAny { a };
    let data =
        |title: Option<&str>, nullable: bool, maybe: Option<EncAny>, a: Option<u8>| EncData {
            title: title.map(str::to_owned),
            nullable,
            maybe,
            boxed: Box::new(EncWrap(any(a))),
        };
    let leaf = EncSchema {
        data: data(None, false, None, None),
        kind: EncKind::Nothing,
    };
    let kinds = vec![
        EncKind::Nothing,
        EncKind::Any(any(None)),
        EncKind::Any(any(Some(3))),
        EncKind::Type(EncType::Flag),
        EncKind::Type(EncType::Text { max: None }),
        EncKind::Type(EncType::Keyed(BTreeMap::from([("k".to_owned(), 1)]))),
        EncKind::Type(EncType::Keyed(BTreeMap::new())),
        EncKind::Type(EncType::Object(EncObject {
            props: BTreeMap::from([("p".to_owned(), Box::new(leaf.clone()))]),
            ext: BTreeMap::from([("x-e".to_owned(), 2)]),
        })),
        EncKind::Type(EncType::Object(EncObject {
            props: BTreeMap::new(),
            ext: BTreeMap::new(),
        })),
        EncKind::OneOf { one_of: vec![] },
        EncKind::OneOf {
            one_of: vec![leaf.clone(), leaf.clone()],
        },
    ];
    let datas = [
        data(None, false, None, None),
        data(Some("t"), false, None, None),
        data(None, true, Some(any(None)), Some(1)),
        data(Some("t"), true, Some(any(Some(4))), Some(5)),
    ];
    for d in &datas {
        for k in &kinds {
            let schema = EncSchema {
                data: d.clone(),
                kind: k.clone(),
            };
            common::encodes_as_serde_json(&schema);
            common::encodes_as_serde_json(&vec![schema.clone(), leaf.clone()]);
            let nested = EncSchema {
                data: d.clone(),
                kind: EncKind::Type(EncType::Object(EncObject {
                    props: BTreeMap::from([("s".to_owned(), Box::new(schema))]),
                    ext: BTreeMap::new(),
                })),
            };
            common::encodes_as_serde_json(&nested);
        }
    }
    let mut link = None;
    for depth in 0..14u8 {
        link = Some(Box::new(EncLink {
            m: depth,
            rest: link,
        }));
        let chain = EncChain {
            n: 0,
            next: link.clone(),
        };
        let mut expected = String::from(r#"{"n":0"#);
        for m in (0..=depth).rev() {
            expected.push_str(&format!(r#","m":{m}"#));
        }
        expected.push('}');
        for backend in common::backends() {
            let ours = jitson::Encoder::<EncChain>::with_backend(backend)
                .encode(&chain)
                .unwrap();
            assert_eq!(String::from_utf8(ours).unwrap(), expected, "{backend:?}");
        }
    }
    if Backend::Jit.is_available() {
        jitson::warm_up_encode::<EncSchema>().expect("warm_up_encode");
        jitson::warm_up_encode::<EncChain>().expect("warm_up_encode");
        let interpreted = jitson::stats().encoder_interpreted_layouts;
        // `EncType::Keyed` (a map under an internal tag) is the
        // interpreter's, and says so.
        assert!(interpreted.iter().any(|(ty, why)| ty.ends_with("::EncType")
            && why.contains("internally tagged variant holding a map")));
        for name in ["EncSchema", "EncData", "EncKind", "EncObject", "EncChain"] {
            // A recursive type's pretty output past 16 levels is the
            // interpreter's by design (`MAX_PRETTY_DEPTH`).
            assert!(
                !interpreted
                    .iter()
                    .any(|(ty, why)| ty.ends_with(&format!("::{name}"))
                        && !why.contains("nested too deep")),
                "{name}: {interpreted:?}"
            );
        }
    }
}

/// A flattened map whose keys JSON cannot hold: refused alike on every
/// backend, with the flattened field in the error's path.
#[derive(Debug, Serialize, jitson::Encode)]
struct EncBadKey {
    a: u8,
    #[serde(flatten)]
    bad: BTreeMap<Vec<u8>, u8>,
}

/// The same map as the value of a flattened map's entry.
#[derive(Debug, Serialize, jitson::Encode)]
struct EncBadEntry {
    a: u8,
    #[serde(flatten)]
    entries: BTreeMap<String, BTreeMap<Vec<u8>, u8>>,
}

/// The same map inside a flattened struct, written in place.
#[derive(Debug, Serialize, jitson::Encode)]
struct EncBadInside {
    a: u8,
    #[serde(flatten)]
    inner: EncBadKey,
}

/// The same map as the payload of a flattened externally tagged variant,
/// and of an adjacently tagged one's content.
#[derive(Debug, Serialize, jitson::Encode)]
struct EncBadVariant {
    a: u8,
    #[serde(flatten)]
    external: EncBadExternal,
    #[serde(flatten)]
    adjacent: EncBadAdjacent,
}

#[derive(Debug, Serialize, jitson::Encode)]
enum EncBadExternal {
    Map(BTreeMap<Vec<u8>, u8>),
    Fine(u8),
}

#[derive(Debug, Serialize, jitson::Encode)]
#[serde(tag = "t", content = "c")]
enum EncBadAdjacent {
    Map(BTreeMap<Vec<u8>, u8>),
    Fine(u8),
}

#[test]
fn a_flattened_fields_error_is_the_interpreters() {
    let bad = || BTreeMap::from([(vec![1], 2)]);
    let external = EncBadVariant {
        a: 0,
        external: EncBadExternal::Map(bad()),
        adjacent: EncBadAdjacent::Fine(1),
    };
    assert!(refused_alike(&external).contains("Map"));
    let adjacent = EncBadVariant {
        a: 0,
        external: EncBadExternal::Fine(1),
        adjacent: EncBadAdjacent::Map(bad()),
    };
    assert!(refused_alike(&adjacent).contains('c'));
    common::encodes_as_serde_json(&EncBadVariant {
        a: 0,
        external: EncBadExternal::Fine(1),
        adjacent: EncBadAdjacent::Fine(2),
    });
    let inside = EncBadInside {
        a: 0,
        inner: EncBadKey {
            a: 1,
            bad: BTreeMap::from([(vec![1], 2)]),
        },
    };
    assert!(refused_alike(&inside).contains("bad"));
    let entry = EncBadEntry {
        a: 0,
        entries: BTreeMap::from([("k".to_owned(), BTreeMap::from([(vec![1], 2)]))]),
    };
    assert!(refused_alike(&entry).contains('k'));
    let value = EncBadKey {
        a: 1,
        bad: BTreeMap::from([(vec![1], 2)]),
    };
    assert!(refused_alike(&value).contains("bad"));
    let empty = EncBadKey {
        a: 1,
        bad: BTreeMap::new(),
    };
    common::encodes_as_serde_json(&empty);
}

/// Asserts serde_json refuses `value` and the JIT (compact and pretty) gives
/// the interpreter's error, which is returned.
#[track_caller]
fn refused_alike<T: jitson::Encode + Serialize>(value: &T) -> String {
    assert!(serde_json::to_vec(value).is_err());
    let expected = jitson::Encoder::<T>::with_backend(Backend::Interpreter)
        .encode(value)
        .unwrap_err()
        .to_string();
    if Backend::Jit.is_available() {
        for pretty in [false, true] {
            let ours = jitson::Encoder::<T>::with_backend(Backend::Jit)
                .pretty(pretty)
                .encode(value)
                .unwrap_err()
                .to_string();
            assert_eq!(ours, expected, "pretty: {pretty}");
        }
    }
    expected
}

/// openapiv3's `Type` under its `Schema`: an internally tagged enum whose
/// variants hold structs (newtype variants: the encoder reaches the struct
/// through a reference), flattened through an untagged enum; beside it an
/// externally and an adjacently tagged enum flattened. Compiled whole: no
/// layout of it is left to the interpreter.
#[derive(Debug, Clone, Serialize, jitson::Encode)]
struct EncSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(flatten)]
    kind: EncSpecKind,
    #[serde(flatten)]
    format: EncFormat,
    #[serde(flatten)]
    adjacent: Option<EncAdjacent>,
}

/// openapiv3's `ParameterSchemaOrContent`: externally tagged, flattened
/// (`"schema": {...}` or `"content": {...}` among the parameter's members).
#[derive(Debug, Clone, Serialize, jitson::Encode)]
#[serde(rename_all = "camelCase")]
enum EncFormat {
    Schema(EncAny),
    Content(BTreeMap<String, u8>),
    Pair(u8, Option<u8>),
    Named { x: u8, y: Option<String> },
    Nothing,
}

#[derive(Debug, Clone, Serialize, jitson::Encode)]
#[serde(tag = "t", content = "c")]
enum EncAdjacent {
    Value(u8),
    Unit,
    Fields { z: Option<u8> },
}

#[derive(Debug, Clone, Serialize, jitson::Encode)]
#[serde(untagged)]
enum EncSpecKind {
    Type(EncSpecType),
    Any(EncAny),
}

#[derive(Debug, Clone, Serialize, jitson::Encode)]
#[serde(tag = "type", rename_all = "lowercase")]
enum EncSpecType {
    Object(EncAny),
    Array(Box<EncAny>),
    Named(EncWrapT),
    Flag,
    Text { max: Option<u8> },
}

#[derive(Debug, Clone, Serialize, jitson::Encode)]
#[serde(transparent)]
struct EncWrapT(EncAny);

#[test]
fn flattened_tagged_variants_holding_structs_are_compiled() {
    let any = |a: Option<u8>| EncAny { a };
    let types = [
        EncSpecType::Object(any(None)),
        EncSpecType::Object(any(Some(1))),
        EncSpecType::Array(Box::new(any(Some(2)))),
        EncSpecType::Named(EncWrapT(any(Some(3)))),
        EncSpecType::Flag,
        EncSpecType::Text { max: Some(4) },
    ];
    let formats = [
        EncFormat::Schema(any(Some(6))),
        EncFormat::Content(BTreeMap::from([("a".to_owned(), 1), ("b".to_owned(), 2)])),
        EncFormat::Content(BTreeMap::new()),
        EncFormat::Pair(7, None),
        EncFormat::Named { x: 8, y: None },
        EncFormat::Named {
            x: 9,
            y: Some("y".to_owned()),
        },
        EncFormat::Nothing,
    ];
    let adjacents = [
        None,
        Some(EncAdjacent::Value(1)),
        Some(EncAdjacent::Unit),
        Some(EncAdjacent::Fields { z: None }),
        Some(EncAdjacent::Fields { z: Some(2) }),
    ];
    for title in [None, Some("t".to_owned())] {
        for (i, t) in types.iter().enumerate() {
            for (j, format) in formats.iter().enumerate() {
                let spec = EncSpec {
                    title: title.clone(),
                    kind: EncSpecKind::Type(t.clone()),
                    format: format.clone(),
                    adjacent: adjacents[(i + j) % adjacents.len()].clone(),
                };
                common::encodes_as_serde_json(&spec);
                common::encodes_as_serde_json(&vec![spec.clone(), spec]);
            }
        }
        common::encodes_as_serde_json(&EncSpec {
            title: title.clone(),
            kind: EncSpecKind::Any(any(Some(5))),
            format: EncFormat::Nothing,
            adjacent: None,
        });
    }
    if Backend::Jit.is_available() {
        jitson::warm_up_encode::<EncSpec>().expect("warm_up_encode");
        let interpreted = jitson::stats().encoder_interpreted_layouts;
        for name in [
            "EncSpec",
            "EncSpecKind",
            "EncSpecType",
            "EncAny",
            "EncWrapT",
            "EncFormat",
            "EncAdjacent",
        ] {
            assert!(
                !interpreted
                    .iter()
                    .any(|(ty, _)| ty.ends_with(&format!("::{name}"))),
                "{name}: {interpreted:?}"
            );
        }
    }
}

/// Whether a flattened enum may be decoded (nothing in it borrows) is
/// decided once per type and kept: asked again, on every backend, the
/// answer is the same, for an enum that borrows (refused every time) and
/// one that does not (octocrab's `WrappedEventPayload` shape: an option of
/// an untagged enum of boxed structs, decoded every time).
#[test]
fn a_flattened_enums_borrowing_is_decided_once_per_type() {
    #[derive(Debug, PartialEq, Deserialize, Decode)]
    struct Push {
        head: String,
        size: u32,
    }
    #[derive(Debug, PartialEq, Deserialize, Decode)]
    struct Fork {
        forkee: String,
    }
    #[derive(Debug, PartialEq, Deserialize, Decode)]
    #[serde(untagged)]
    enum Payload {
        Push(Box<Push>),
        Fork(Box<Fork>),
    }
    #[derive(Debug, PartialEq, Deserialize, Decode)]
    struct Wrapped {
        sender: Option<String>,
        #[serde(flatten)]
        specific: Option<Payload>,
    }
    #[derive(Debug, PartialEq, Deserialize, Decode)]
    #[serde(untagged)]
    enum Borrowing<'a> {
        Name { name: &'a str },
    }
    #[derive(Debug, PartialEq, Deserialize, Decode)]
    struct WrapsBorrowing<'a> {
        #[serde(borrow, flatten)]
        inner: Borrowing<'a>,
    }
    for _ in 0..3 {
        for doc in [
            r#"{"sender":"a","head":"h","size":2}"#,
            r#"{"forkee":"f","sender":null}"#,
            r#"{"sender":"a"}"#,
            r#"{"size":2}"#,
        ] {
            agree::<Wrapped>(doc).unwrap();
        }
        for backend in common::backends() {
            let e = jitson::Decoder::<WrapsBorrowing<'_>>::with_backend(backend)
                .decode_slice(br#"{"name":"n"}"#)
                .unwrap_err();
            assert!(
                e.to_string().contains("enums that borrow nothing"),
                "{backend:?}: {e}"
            );
        }
    }
}

/// Flattened newtypes (a tuple struct of one field, a `transparent` struct)
/// are flattened as what they hold, and a unit struct reads nothing, as serde
/// flattens them.
#[derive(Decode, jitson::Encode, Deserialize, Serialize, Debug, PartialEq)]
struct Wrappers {
    id: u8,
    #[serde(flatten)]
    page: PageNewtype,
    #[serde(flatten)]
    sort: SortTransparent,
    #[serde(flatten)]
    unit: UnitMarker,
    #[serde(flatten)]
    rest: RestNewtype,
}

#[derive(Decode, jitson::Encode, Deserialize, Serialize, Debug, PartialEq)]
struct PageNewtype(PageArgs);

#[derive(Decode, jitson::Encode, Deserialize, Serialize, Debug, PartialEq)]
struct PageArgs {
    page: u32,
    #[serde(default)]
    per_page: Option<u32>,
}

#[derive(Decode, jitson::Encode, Deserialize, Serialize, Debug, PartialEq)]
#[serde(transparent)]
struct SortTransparent {
    inner: SortArgs,
}

#[derive(Decode, jitson::Encode, Deserialize, Serialize, Debug, PartialEq)]
struct SortArgs {
    #[serde(default)]
    by: String,
}

#[derive(Decode, jitson::Encode, Deserialize, Serialize, Debug, PartialEq)]
struct UnitMarker;

#[derive(Decode, jitson::Encode, Deserialize, Serialize, Debug, PartialEq)]
struct RestNewtype(BTreeMap<String, u8>);

#[test]
fn flattened_newtypes_and_unit_structs_agree_with_serde_json() {
    for doc in [
        r#"{"id":1,"page":2}"#,
        r#"{"page":2,"by":"name","id":1,"per_page":3,"x":4}"#,
        r#"{"id":1,"page":2,"x":300}"#,
        r#"{"id":1,"by":"name"}"#,
        r#"{"id":1,"page":"2"}"#,
        r#"{"id":1,"page":2,"page":3}"#,
    ] {
        if let Ok(value) = agree::<Wrappers>(doc) {
            common::encodes_as_serde_json(&value);
        }
    }
    let value = agree::<Wrappers>(r#"{"id":1,"page":2,"by":"n","k":3}"#).expect("decodes");
    assert_eq!(value.rest.0.get("k"), Some(&3));
    jitson::warm_up::<Wrappers>().expect("compiles");
}

/// Flattened options of newtypes, `transparent` structs and unit structs, as
/// serde reads them: `Some` when what they hold can be built from the
/// members, and a unit struct always.
#[derive(Decode, jitson::Encode, Deserialize, Serialize, Debug, PartialEq)]
struct OptionalWrappers {
    y: u8,
    #[serde(flatten)]
    page: Option<PageNewtype>,
    #[serde(flatten)]
    sort: Option<SortTransparent>,
    #[serde(flatten)]
    unit: Option<UnitMarker>,
}

#[test]
fn flattened_options_of_newtypes_agree_with_serde_json() {
    for doc in [
        r#"{"y":1}"#,
        r#"{"y":1,"page":2}"#,
        r#"{"y":1,"page":"x","by":"n"}"#,
        r#"{"y":1,"page":2,"per_page":3,"by":"n","z":0}"#,
    ] {
        if let Ok(value) = agree::<OptionalWrappers>(doc) {
            common::encodes_as_serde_json(&value);
        }
    }
    let value = agree::<OptionalWrappers>(r#"{"y":1,"page":2}"#).expect("decodes");
    assert!(value.page.is_some() && value.unit.is_some());
}
