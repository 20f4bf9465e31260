//! serde's rarer forms (issue 22, item 5), from serde's own issue tracker:
//! flattened `Option`s of structs, flattened maps with parsed keys, tagged
//! newtype variants holding `()` or a unit struct, tagged enums written as
//! sequences, an adjacently tagged `Option` without its content, a payload
//! field named like the tag, and the two documented differences (128-bit
//! integers where serde buffers, keys a catch-all map shares with a struct).
//!
//! Every document goes through every backend and both entry points
//! (`common::decode`) and is compared with serde_json: the same value, or an
//! error of the same category and, where the words are serde's, the same
//! message. Every value is encoded by every encoding backend into serde_json's
//! bytes.

mod common;

use std::collections::BTreeMap;
use std::fmt::Debug;

use common::counted::{Counted, live};
use jitson::{Backend, Category, Decode, Encode, Encoder, ErrorKind};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------
// Helpers

/// serde_json's message without its position (` at line L column C`).
fn serde_words(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.find(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

/// Decodes `doc` on every backend and with serde_json and insists they agree:
/// the same value, or errors of the same category whose messages say the
/// same (jitson's adds the path and position). Returns jitson's result.
#[track_caller]
fn same<T: Decode + DeserializeOwned + PartialEq + Debug>(doc: &str) -> Result<T, jitson::Error> {
    let ours = common::decode::<T>(doc.as_bytes());
    let theirs = serde_json::from_str::<T>(doc);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{doc}"),
        (Err(a), Err(b)) => {
            assert_eq!(
                a.classify(),
                common::oracle::category(b),
                "{doc}:\n jitson: {a}\n serde_json: {b}"
            );
            let words = serde_words(b);
            assert!(
                a.to_string().starts_with(&words),
                "{doc}:\n jitson: {a}\n serde_json: {b}"
            );
        }
        _ => panic!("{doc}: jitson {ours:?}, serde_json {theirs:?}"),
    }
    ours
}

/// As [`same`], comparing categories only (serde's message names a type or
/// length jitson words differently, or has no position).
#[track_caller]
fn same_category<T: Decode + DeserializeOwned + PartialEq + Debug>(
    doc: &str,
) -> Result<T, jitson::Error> {
    let ours = common::decode::<T>(doc.as_bytes());
    let theirs = serde_json::from_str::<T>(doc);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{doc}"),
        (Err(a), Err(b)) => assert_eq!(
            a.classify(),
            common::oracle::category(b),
            "{doc}:\n jitson: {a}\n serde_json: {b}"
        ),
        _ => panic!("{doc}: jitson {ours:?}, serde_json {theirs:?}"),
    }
    ours
}

/// Encodes `value` with every encoding backend, compact and pretty, and
/// insists on serde_json's bytes.
#[track_caller]
fn encodes_as_serde<T: Encode + Serialize>(value: &T) {
    let compact = serde_json::to_string(value).unwrap();
    let pretty = serde_json::to_string_pretty(value).unwrap();
    let mut backends = vec![Backend::Interpreter, Backend::Auto];
    if Backend::Jit.is_available() {
        backends.push(Backend::Jit);
    }
    for backend in backends {
        let encoder = Encoder::<T>::with_backend(backend);
        let got = encoder.encode(value).unwrap();
        assert_eq!(String::from_utf8_lossy(&got), compact, "{backend:?}");
        let got = encoder.pretty(true).encode(value).unwrap();
        assert_eq!(String::from_utf8_lossy(&got), pretty, "{backend:?}, pretty");
    }
    assert_eq!(jitson::to_vec(value).unwrap(), compact.as_bytes());
}

// ---------------------------------------------------------------------------
// 1. `#[serde(flatten)]` on an `Option` of a struct

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Inner {
    a: u8,
    b: Option<u8>,
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct OptFlat {
    x: u8,
    #[serde(flatten)]
    inner: Option<Inner>,
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct P {
    p: u8,
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Q {
    q: String,
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct TwoOpts {
    #[serde(flatten)]
    p: Option<P>,
    #[serde(flatten)]
    q: Option<Q>,
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct AllOpt {
    o: Option<u8>,
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct OptAllOpt {
    x: u8,
    #[serde(flatten)]
    o: Option<AllOpt>,
}

/// A flattened option before a catch-all map: the map gets what no struct
/// claims (the option's keys too when the option fails, as serde).
#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct OptThenRest {
    #[serde(flatten)]
    p: Option<P>,
    #[serde(flatten)]
    rest: BTreeMap<String, u8>,
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct OptDeny {
    x: u8,
    #[serde(flatten)]
    p: Option<P>,
}

/// An option flattened inside a flattened option's struct.
#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Wrap {
    k: u8,
    #[serde(flatten)]
    p: Option<P>,
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Nested {
    #[serde(flatten)]
    w: Option<Wrap>,
}

#[test]
fn flattened_option_of_a_struct() {
    let some = |a, b| Some(Inner { a, b });
    assert_eq!(
        same::<OptFlat>(r#"{"x":1,"a":2}"#).unwrap().inner,
        some(2, None)
    );
    assert_eq!(
        same::<OptFlat>(r#"{"b":3,"x":1,"a":2}"#).unwrap().inner,
        some(2, Some(3))
    );
    // Absent, or the struct cannot be built from its keys: `None`.
    for doc in [
        r#"{"x":1}"#,
        r#"{"x":1,"b":3}"#,
        r#"{"x":1,"a":"s"}"#,
        r#"{"x":1,"a":300}"#,
        r#"{"x":1,"a":null}"#,
        r#"{"x":1,"a":2,"a":3}"#,
        r#"{"x":1,"a":[1,{"y":2}],"b":4}"#,
        r#"{"x":1,"b":"s","a":2}"#,
    ] {
        assert_eq!(same::<OptFlat>(doc).unwrap().inner, None, "{doc}");
    }
    // Unknown keys are skipped.
    assert_eq!(
        same::<OptFlat>(r#"{"x":1,"a":2,"c":{"d":[]}}"#)
            .unwrap()
            .inner,
        some(2, None)
    );
    // The container's own errors stand, and syntax errors anywhere win.
    for doc in [
        r#"{"a":2}"#,
        r#"{"x":"s","a":2}"#,
        r#"{"x":1,"x":2}"#,
        r#"{"x":1,"a":2"#,
        r#"[1,2]"#,
    ] {
        let e = same_category::<OptFlat>(doc).unwrap_err();
        assert_ne!(e.kind(), ErrorKind::UnsupportedType, "{doc}");
    }
    for doc in [
        r#"{"x":1,"a":2,"zz":[1,}"#,
        r#"{"x":1,"a":"s","zz":[1,}"#,
        r#"{"x":1,"a":1e400}"#,
        r#"{"x":1,"a":[1e400]}"#,
    ] {
        assert_eq!(
            same_category::<OptFlat>(doc).unwrap_err().classify(),
            Category::Syntax
        );
    }
    // A struct whose fields are all optional is always `Some`.
    assert_eq!(
        same::<OptAllOpt>(r#"{"x":1}"#).unwrap().o,
        Some(AllOpt { o: None })
    );
    assert_eq!(
        same::<OptAllOpt>(r#"{"x":1,"o":2}"#).unwrap().o,
        Some(AllOpt { o: Some(2) })
    );
    assert_eq!(same::<OptAllOpt>(r#"{"x":1,"o":"s"}"#).unwrap().o, None);
    // `deny_unknown_fields` on the container: the option's keys are known.
    same::<OptDeny>(r#"{"x":1,"p":1}"#).unwrap();
    same::<OptDeny>(r#"{"x":1}"#).unwrap();
    assert_eq!(
        same::<OptDeny>(r#"{"x":1,"z":1}"#).unwrap_err().kind(),
        ErrorKind::UnknownField
    );
}

#[test]
fn two_flattened_options() {
    let both = |p: Option<u8>, q: Option<&str>| TwoOpts {
        p: p.map(|p| P { p }),
        q: q.map(|q| Q { q: q.into() }),
    };
    for (doc, want) in [
        (r#"{"p":1,"q":"s"}"#, both(Some(1), Some("s"))),
        (r#"{"q":"s","p":1}"#, both(Some(1), Some("s"))),
        (r#"{"p":1}"#, both(Some(1), None)),
        (r#"{"q":"s"}"#, both(None, Some("s"))),
        (r#"{}"#, both(None, None)),
        (r#"{"p":"s","q":1}"#, both(None, None)),
        (r#"{"p":1,"q":1}"#, both(Some(1), None)),
        (r#"{"z":0,"p":1,"q":"\u0041"}"#, both(Some(1), Some("A"))),
    ] {
        assert_eq!(same::<TwoOpts>(doc).unwrap(), want, "{doc}");
    }
    // An option inside an option's struct: each fails on its own, and the
    // outer failing takes the inner with it.
    for doc in [
        r#"{"k":1,"p":2}"#,
        r#"{"k":1}"#,
        r#"{"k":1,"p":"s"}"#,
        r#"{"p":2}"#,
        r#"{"k":"s","p":2}"#,
        r#"{}"#,
    ] {
        same::<Nested>(doc).unwrap();
    }
    // The catch-all map after the option gets what it does not claim.
    for doc in [r#"{"p":1,"z":2}"#, r#"{"p":"s","z":2}"#, r#"{"z":2}"#] {
        same::<OptThenRest>(doc).unwrap();
    }
}

/// A flattened option whose struct fails drops what it had decoded, once.
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Owning {
    names: Vec<Counted>,
    tag: Counted,
    n: u8,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct HoldsOwning {
    id: u8,
    #[serde(flatten)]
    owning: Option<Owning>,
}

#[test]
fn a_failing_flattened_option_drops_what_it_wrote() {
    for doc in [
        r#"{"id":1,"names":["a","b"],"tag":"t","n":2}"#,
        r#"{"id":1,"names":["a","b"],"tag":"t","n":"s"}"#,
        r#"{"id":1,"names":["a","b"],"tag":"t"}"#,
        r#"{"names":["a"],"tag":"t","n":1,"id":"s"}"#,
        r#"{"names":["a"],"tag":"t","n":1,"id":1,"zz":[}"#,
        r#"{"names":["a"],"tag":"t","names":[],"n":1,"id":1}"#,
    ] {
        let before = live();
        drop(same_category::<HoldsOwning>(doc));
        assert_eq!(live(), before, "{doc}");
    }
}

#[test]
fn flattened_options_encode_as_serde() {
    encodes_as_serde(&OptFlat {
        x: 1,
        inner: Some(Inner { a: 2, b: None }),
    });
    encodes_as_serde(&OptFlat { x: 1, inner: None });
    encodes_as_serde(&TwoOpts {
        p: None,
        q: Some(Q { q: "s".into() }),
    });
    encodes_as_serde(&Nested {
        w: Some(Wrap {
            k: 1,
            p: Some(P { p: 2 }),
        }),
    });
}

// ---------------------------------------------------------------------------
// 2. Flattened maps whose keys are parsed

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    A,
    B,
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct EnumKeyed {
    x: u8,
    #[serde(flatten)]
    rest: BTreeMap<Key, u8>,
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct CharKeyed {
    x: u8,
    #[serde(flatten)]
    rest: BTreeMap<char, u8>,
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct IntKeyed {
    x: u8,
    #[serde(flatten)]
    rest: BTreeMap<u32, u8>,
}

#[test]
fn flattened_map_with_enum_keys() {
    let v = same::<EnumKeyed>(r#"{"x":1,"A":2,"B":3}"#).unwrap();
    assert_eq!(v.rest, BTreeMap::from([(Key::A, 2), (Key::B, 3)]));
    assert_eq!(
        same::<EnumKeyed>(r#"{"x":1,"A":2,"A":3}"#).unwrap().rest,
        BTreeMap::from([(Key::A, 3)])
    );
    same::<EnumKeyed>(r#"{"x":1}"#).unwrap();
    let e = same::<EnumKeyed>(r#"{"x":1,"C":2}"#).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::InvalidValue, 7));
    assert_eq!(
        same::<EnumKeyed>(r#"{"x":1,"A":"s"}"#).unwrap_err().kind(),
        ErrorKind::InvalidType
    );
    same::<EnumKeyed>(r#"{"A":2}"#).unwrap_err();
    // A syntax error later in the object wins over a refused key.
    assert_eq!(
        same_category::<EnumKeyed>(r#"{"x":1,"C":2,"z":[}"#)
            .unwrap_err()
            .classify(),
        Category::Syntax
    );
    let v = same::<CharKeyed>(r#"{"x":1,"c":2}"#).unwrap();
    assert_eq!(v.rest, BTreeMap::from([('c', 2)]));
    same_category::<CharKeyed>(r#"{"x":1,"cd":2}"#).unwrap_err();
    encodes_as_serde(&EnumKeyed {
        x: 1,
        rest: BTreeMap::from([(Key::A, 2), (Key::B, 3)]),
    });
    encodes_as_serde(&IntKeyed {
        x: 1,
        rest: BTreeMap::from([(7, 2)]),
    });
}

/// Deliberate difference (docs/semantics.md): serde gives a flattened map
/// its keys as strings, which an integer or bool key type refuses
/// (serde-rs/serde#1183); jitson parses them as a map's keys are parsed.
#[test]
fn flattened_map_with_integer_keys_is_a_documented_difference() {
    let doc = r#"{"x":1,"1":2,"20":3}"#;
    assert!(serde_json::from_str::<IntKeyed>(doc).is_err());
    let v = common::ok::<IntKeyed>(doc);
    assert_eq!(v.rest, BTreeMap::from([(1, 2), (20, 3)]));
    // Refused keys are refused as serde_json refuses them in a map of its own.
    for key in ["a", "-1", "01", " 1", "1 ", "1.5", "99999999999"] {
        let doc = format!(r#"{{"x":1,"{key}":2}}"#);
        let ours = common::err::<IntKeyed>(doc.as_bytes());
        let map_alone = format!(r#"{{"{key}":2}}"#);
        let theirs = serde_json::from_str::<BTreeMap<u32, u8>>(&map_alone).unwrap_err();
        assert_eq!(
            ours.classify(),
            common::oracle::category(&theirs),
            "{doc}: {ours}"
        );
    }
}

// ---------------------------------------------------------------------------
// 3. Internally tagged newtype variants holding `()` or a unit struct

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Unit;

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum Internal {
    A(Unit),
    B(()),
    C { x: u8 },
    D(P),
    E,
}

#[test]
fn internally_tagged_newtype_of_a_unit() {
    assert_eq!(same::<Internal>(r#"{"t":"A"}"#).unwrap(), Internal::A(Unit));
    assert_eq!(same::<Internal>(r#"{"t":"B"}"#).unwrap(), Internal::B(()));
    assert_eq!(
        same::<Internal>(r#" { "t" : "B" } "#).unwrap(),
        Internal::B(())
    );
    // Other members: the unit is read from a map, which it refuses.
    for doc in [
        r#"{"t":"A","z":1}"#,
        r#"{"t":"B","z":1}"#,
        r#"{"z":1,"t":"A"}"#,
    ] {
        let e = same::<Internal>(doc).unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::InvalidType, 0), "{doc}");
    }
    // What serde reads while it buffers the object comes first.
    let e = same::<Internal>(r#"{"t":"A","t":"A"}"#).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DuplicateField);
    let e = same_category::<Internal>(r#"{"t":"A","z":[1,}"#).unwrap_err();
    assert_eq!(e.classify(), Category::Syntax);
    encodes_as_serde(&Internal::A(Unit));
    encodes_as_serde(&Internal::B(()));
    encodes_as_serde(&vec![
        Internal::E,
        Internal::C { x: 1 },
        Internal::D(P { p: 2 }),
    ]);
}

// ---------------------------------------------------------------------------
// 4. Tagged enums in sequence form

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    A(Unit),
    B(()),
    C { x: u8 },
    D(P),
    E,
    F(u8),
    G(u8, u8),
    H(Option<u8>),
}

#[test]
fn internally_tagged_in_sequence_form() {
    assert_eq!(same::<Internal>(r#"["A"]"#).unwrap(), Internal::A(Unit));
    assert_eq!(same::<Internal>(r#"[ "E" ]"#).unwrap(), Internal::E);
    // `()` is not read from a sequence; a unit variant takes no element.
    for doc in [r#"["B"]"#, r#"["A",null]"#] {
        assert_eq!(
            same::<Internal>(doc).unwrap_err().kind(),
            ErrorKind::InvalidType
        );
    }
    assert_eq!(
        same::<Internal>(r#"["E",1,[2]]"#).unwrap_err().kind(),
        ErrorKind::InvalidLength
    );
    let e = same_category::<Internal>(r#"[]"#).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::MissingField, 1));
    assert_eq!(
        same::<Internal>(r#"["Z"]"#).unwrap_err().kind(),
        ErrorKind::InvalidValue
    );
    assert_eq!(
        same::<Internal>(r#"[1]"#).unwrap_err().kind(),
        ErrorKind::InvalidType
    );
    for doc in [r#"["E","#, r#"["E" 1]"#, r#"["E",]"#, r#"["A",[}]"#] {
        same_category::<Internal>(doc).unwrap_err();
    }
}

/// An untagged enum tries a tagged one on an array too.
#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
enum Either {
    Tagged(Internal),
    Adjacent(Adjacent),
    Other(Vec<u8>),
}

#[test]
fn sequence_forms_inside_an_untagged_enum() {
    assert_eq!(
        same::<Either>(r#"["E"]"#).unwrap(),
        Either::Tagged(Internal::E)
    );
    assert_eq!(
        same::<Either>(r#"["F",1]"#).unwrap(),
        Either::Adjacent(Adjacent::F(1))
    );
    assert_eq!(
        same::<Either>(r#"[1,2]"#).unwrap(),
        Either::Other(vec![1, 2])
    );
}

/// Deliberate difference 2 (docs/semantics.md): a struct payload in sequence
/// form is read from the elements as from an array, which jitson never does.
#[test]
fn internally_tagged_struct_payload_in_sequence_form_is_a_documented_difference() {
    for doc in [r#"["C",1]"#, r#"["D",1]"#] {
        assert!(serde_json::from_str::<Internal>(doc).is_ok());
        let e = common::err::<Internal>(doc.as_bytes());
        assert_eq!(e.kind(), ErrorKind::InvalidType, "{doc}");
        assert!(common::oracle::is_struct_from_array(&e), "{doc}: {e}");
    }
}

#[test]
fn adjacently_tagged_in_sequence_form() {
    for (doc, want) in [
        (r#"["A",null]"#, Adjacent::A(Unit)),
        (r#"["B",null]"#, Adjacent::B(())),
        (r#"["C",{"x":1}]"#, Adjacent::C { x: 1 }),
        (r#"["D",{"p":1}]"#, Adjacent::D(P { p: 1 })),
        (r#"["E",null]"#, Adjacent::E),
        (r#"[ "F" , 1 ]"#, Adjacent::F(1)),
        (r#"["G",[1,2]]"#, Adjacent::G(1, 2)),
        (r#"["H",null]"#, Adjacent::H(None)),
        (r#"["H",3]"#, Adjacent::H(Some(3))),
    ] {
        assert_eq!(same::<Adjacent>(doc).unwrap(), want, "{doc}");
    }
    for doc in [r#"["A"]"#, r#"["H"]"#, r#"[]"#] {
        let e = same_category::<Adjacent>(doc).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidLength, "{doc}");
    }
    for (doc, kind) in [
        (r#"["Z",1]"#, ErrorKind::InvalidValue),
        (r#"[1]"#, ErrorKind::InvalidType),
        (r#"["F","s"]"#, ErrorKind::InvalidType),
        (r#"["C",[1]]"#, ErrorKind::InvalidType),
        (r#"["E",1]"#, ErrorKind::InvalidType),
    ] {
        assert_eq!(
            same_category::<Adjacent>(doc).unwrap_err().kind(),
            kind,
            "{doc}"
        );
    }
    // One element too many is trailing characters, as serde_json says.
    for doc in [r#"["F",1,2]"#, r#"["F",1"#, r#"["F" 1]"#, r#"["F",1}"#] {
        same_category::<Adjacent>(doc).unwrap_err();
    }
    let e = same_category::<Adjacent>(r#"["F",1,2]"#).unwrap_err();
    assert!(e.to_string().starts_with("trailing characters"), "{e}");
}

// ---------------------------------------------------------------------------
// 5. An adjacently tagged `Option` without its content

#[test]
fn adjacently_tagged_option_without_content() {
    assert_eq!(same::<Adjacent>(r#"{"t":"H"}"#).unwrap(), Adjacent::H(None));
    assert_eq!(
        same::<Adjacent>(r#"{"t":"H","c":null}"#).unwrap(),
        Adjacent::H(None)
    );
    assert_eq!(
        same::<Adjacent>(r#"{"c":2,"t":"H"}"#).unwrap(),
        Adjacent::H(Some(2))
    );
    // Other payloads still need their content (a unit variant does not).
    for doc in [
        r#"{"t":"F"}"#,
        r#"{"t":"A"}"#,
        r#"{"t":"B"}"#,
        r#"{"t":"D"}"#,
    ] {
        let e = same::<Adjacent>(doc).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::MissingField, "{doc}");
    }
    assert_eq!(same::<Adjacent>(r#"{"t":"E"}"#).unwrap(), Adjacent::E);
    for v in [
        Adjacent::H(None),
        Adjacent::H(Some(1)),
        Adjacent::A(Unit),
        Adjacent::B(()),
        Adjacent::G(1, 2),
    ] {
        encodes_as_serde(&v);
    }
}

// ---------------------------------------------------------------------------
// 6. A payload field named like the tag

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct WithT {
    t: String,
    x: u8,
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct WithTOpt {
    t: Option<String>,
    x: u8,
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct WithTFlat {
    #[serde(flatten)]
    inner: WithTOpt,
}

/// serde refuses a struct variant with a field named like the internal tag
/// at compile time; a newtype variant's struct may have one.
#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum TagClash {
    B(WithT),
    C(WithTOpt),
    D(WithTFlat),
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum AdjacentClash {
    A { t: String, x: u8 },
    B(WithT),
}

#[test]
fn a_payload_field_named_like_the_tag() {
    // The tag takes the key: the field is absent.
    let e = same::<TagClash>(r#"{"t":"B","x":1}"#).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::MissingField);
    let e = same::<TagClash>(r#"{"x":1,"t":"B"}"#).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::MissingField);
    let e = same::<TagClash>(r#"{"t":"B","t":"s","x":1}"#).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DuplicateField);
    let want = |x| WithTOpt { t: None, x };
    assert_eq!(
        same::<TagClash>(r#"{"t":"C","x":1}"#).unwrap(),
        TagClash::C(want(1))
    );
    assert_eq!(
        same::<TagClash>(r#"{"x":2,"t":"C"}"#).unwrap(),
        TagClash::C(want(2))
    );
    assert_eq!(
        same::<TagClash>(r#"{"t":"D","x":1}"#).unwrap(),
        TagClash::D(WithTFlat { inner: want(1) })
    );
    let e = same_category::<TagClash>(r#"{"t":"D","t":"C","x":1}"#).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DuplicateField);
    // Adjacent tagging keeps the payload apart: no clash.
    same::<AdjacentClash>(r#"{"t":"A","c":{"t":"s","x":1}}"#).unwrap();
    same::<AdjacentClash>(r#"{"t":"B","c":{"t":"s","x":1}}"#).unwrap();
    // Encoding writes both keys, as serde_json does.
    encodes_as_serde(&TagClash::B(WithT {
        t: "s".into(),
        x: 1,
    }));
    encodes_as_serde(&TagClash::C(want(1)));
    encodes_as_serde(&TagClash::D(WithTFlat { inner: want(3) }));
    encodes_as_serde(&AdjacentClash::A {
        t: "s".into(),
        x: 1,
    });
}

// ---------------------------------------------------------------------------
// 7. Where serde_json is arguably wrong: documented differences

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
enum Wide {
    Big(u128),
    Text(String),
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Big {
    n: u128,
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct FlatBig {
    #[serde(flatten)]
    b: Big,
}

/// Deliberate difference 6: serde's buffer cannot hold a 128-bit integer.
#[test]
fn u128_in_buffered_content_is_a_documented_difference() {
    for doc in ["1", "340282366920938463463374607431768211455"] {
        assert!(serde_json::from_str::<Wide>(doc).is_err());
        assert_eq!(common::ok::<Wide>(doc), Wide::Big(doc.parse().unwrap()));
    }
    assert_eq!(same::<Wide>(r#""s""#).unwrap(), Wide::Text("s".into()));
    assert!(serde_json::from_str::<FlatBig>(r#"{"n":1}"#).is_err());
    assert_eq!(common::ok::<FlatBig>(r#"{"n":1}"#).b.n, 1);
    encodes_as_serde(&Wide::Big(u128::MAX));
    encodes_as_serde(&FlatBig { b: Big { n: 5 } });
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct RestThenStruct {
    #[serde(flatten)]
    rest: BTreeMap<String, u8>,
    #[serde(flatten)]
    p: P,
}

#[derive(Decode, Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct StructThenRest {
    #[serde(flatten)]
    p: P,
    #[serde(flatten)]
    rest: BTreeMap<String, u8>,
}

/// Deliberate difference 12: a catch-all map gets only the keys no struct
/// claims, wherever it is declared; serde also copies into it the keys of
/// the flattened structs declared after it.
#[test]
fn keys_a_struct_claims_stay_out_of_a_catch_all_map() {
    let doc = r#"{"p":1,"z":2}"#;
    let theirs = serde_json::from_str::<RestThenStruct>(doc).unwrap();
    assert_eq!(
        theirs.rest,
        BTreeMap::from([("p".into(), 1), ("z".into(), 2)])
    );
    let ours = common::ok::<RestThenStruct>(doc);
    assert_eq!(ours.rest, BTreeMap::from([("z".into(), 2)]));
    assert_eq!(ours.p, P { p: 1 });
    // Declared after the struct, both agree.
    same::<StructThenRest>(doc).unwrap();
}

// ---------------------------------------------------------------------------
// Property tests: generated objects of these shapes, against serde_json.

/// A JSON value of a few kinds, as text.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..400).prop_map(|n| n.to_string()),
        Just("-1".to_owned()),
        Just("null".to_owned()),
        Just("\"s\"".to_owned()),
        Just("\"A\"".to_owned()),
        Just("[1,{\"p\":2}]".to_owned()),
        Just("{\"x\":1}".to_owned()),
    ]
}

/// Members `"key":value` with keys drawn from `keys`, any order, repeats
/// allowed.
fn members(keys: &'static [&'static str]) -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec((prop::sample::select(keys), value()), 0..6).prop_map(|members| {
        members
            .into_iter()
            .map(|(k, v)| format!("\"{k}\":{v}"))
            .collect()
    })
}

/// An object of [`members`].
fn object(keys: &'static [&'static str]) -> impl Strategy<Value = String> {
    members(keys).prop_map(|members| format!("{{{}}}", members.join(",")))
}

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Mixed {
    #[serde(default)]
    x: u8,
    #[serde(flatten)]
    p: Option<P>,
    #[serde(flatten)]
    inner: Option<Inner>,
    #[serde(flatten)]
    keyed: Option<AllOpt>,
}

/// As [`same_category`], but a struct given an array is deliberate
/// difference 2 (serde reads it field by field).
fn agrees<T: Decode + DeserializeOwned + PartialEq + Debug>(doc: &str) {
    match common::decode::<T>(doc.as_bytes()) {
        Err(e) if common::oracle::is_struct_from_array(&e) => {}
        _ => {
            same_category::<T>(doc).ok();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn flattened_options_agree_with_serde_json(
        doc in object(&["x", "p", "a", "b", "o", "z"]),
    ) {
        agrees::<Mixed>(&doc);
        agrees::<TwoOpts>(&doc);
        agrees::<EnumKeyed>(&doc.replace("\"z\"", "\"A\""));
    }

    #[test]
    fn tagged_forms_agree_with_serde_json(
        tag in prop::sample::select(&["A", "B", "C", "D", "E", "F", "G", "H", "Z"][..]),
        rest in prop::collection::vec(value(), 0..3),
        members in members(&["p", "x", "z", "c"]),
        tag_at in 0usize..3,
    ) {
        let seq = std::iter::once(format!("\"{tag}\"")).chain(rest).collect::<Vec<_>>();
        let seq = format!("[{}]", seq.join(","));
        agrees::<Internal>(&seq);
        agrees::<Adjacent>(&seq);
        // The tag among the generated members, at some position.
        let mut all = members;
        all.insert(tag_at.min(all.len()), format!("\"t\":\"{tag}\""));
        let doc = format!("{{{}}}", all.join(","));
        agrees::<Internal>(&doc);
        agrees::<Adjacent>(&doc);
        agrees::<TagClash>(&doc);
    }
}
