//! indexmap, smallvec, bytes, serde_bytes and ordered-float (features of
//! their names, issue 38), held to each crate's own serde impl through
//! serde_json on every backend: generated values decode to the same value (in
//! the same order) and encode to the same bytes, compact and pretty; hostile
//! texts (repeated keys, wrong types, bytes out of range, raw and escaped
//! byte strings, NaN for `NotNan`) are accepted and refused alike, with
//! serde's reason in jitson's message; and the structs holding them stay
//! compiled where their std equivalents do.
//!
//! Values are compared through their `Debug` text, which lists an
//! `IndexMap`'s and `IndexSet`'s entries in order (their `PartialEq` ignores
//! order) and tells `-0.0` from `0.0`.

use crate::common;

use std::fmt::Debug;

use bytes::{Bytes, BytesMut};
use common::{backends, oracle};
use indexmap::{IndexMap, IndexSet};
use jitson::{Backend, Encode, Encoder};
use ordered_float::{NotNan, OrderedFloat};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;
use smallvec::SmallVec;

/// Every type of the five crates, in the positions models put them.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone)]
struct Collections {
    map: IndexMap<String, i64>,
    keyed: IndexMap<u32, Vec<String>>,
    floats: IndexMap<OrderedFloat<f64>, NotNan<f32>>,
    small: SmallVec<[u16; 4]>,
    names: SmallVec<[String; 2]>,
    bytes: Bytes,
    bytes_mut: BytesMut,
    buf: ByteBuf,
    ordered: OrderedFloat<f64>,
    ordered32: OrderedFloat<f32>,
    not_nan: NotNan<f64>,
    not_nan32: NotNan<f32>,
    later: Option<IndexMap<String, SmallVec<[u8; 8]>>>,
}

/// `Collections` and an `IndexSet`, whose encoding goes to the interpreter
/// (as `HashSet`'s does).
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone)]
struct WithSet {
    all: Collections,
    set: IndexSet<String>,
    numbers: IndexSet<i32>,
}

/// Unknown members kept in document order by a flattened `IndexMap`.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone)]
struct Flattened {
    id: u32,
    #[serde(flatten)]
    rest: IndexMap<String, i64>,
}

/// One field of `T`, for texts tried alone.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone)]
struct One<T> {
    t: T,
}

/// Order-sensitive equality, through `Debug`.
macro_rules! debug_eq {
    ($([$($generics:tt)*] $ty:ty;)*) => {$(
        impl<$($generics)*> PartialEq for $ty {
            fn eq(&self, other: &Self) -> bool {
                format!("{self:?}") == format!("{other:?}")
            }
        }
    )*};
}

debug_eq! {
    [] Collections;
    [] WithSet;
    [] Flattened;
    [T: Debug] One<T>;
}

/// Asserts every backend writes `value` as serde_json does, compact and pretty.
#[track_caller]
fn encodes_as_serde_json<T: Encode + Serialize + Debug>(value: &T) {
    let compact = serde_json::to_string(value);
    let pretty = serde_json::to_string_pretty(value);
    for backend in backends() {
        let encoder = Encoder::<T>::with_backend(backend);
        match (&compact, encoder.encode(value)) {
            (Ok(expected), Ok(got)) => {
                assert_eq!(
                    &String::from_utf8(got).unwrap(),
                    expected,
                    "{backend:?}: {value:?}"
                )
            }
            (Err(expected), Err(got)) => assert!(
                got.to_string().contains(&expected.to_string()),
                "{backend:?}: {value:?}: jitson says {got}, serde_json {expected}"
            ),
            (expected, got) => panic!("{backend:?}: {value:?}: {got:?} vs {expected:?}"),
        }
        if let Ok(pretty) = &pretty {
            let got = encoder.pretty(true).encode(value).unwrap();
            assert_eq!(
                &String::from_utf8(got).unwrap(),
                pretty,
                "{backend:?} pretty"
            );
        }
    }
}

/// Asserts jitson's result and serde_json's agree: the same value, or errors
/// of the same category with serde's reason in jitson's message. Stricter
/// than `oracle::compare`: none of the oracle's tolerated differences (about
/// skipped text and structs from arrays) can arise in these documents, and a
/// byte string's text must not be validated as a string's is.
#[track_caller]
fn agree<A: Debug, B: Debug>(
    doc: &[u8],
    ours: Result<A, jitson::Error>,
    theirs: Result<B, serde_json::Error>,
    same: impl Fn(&A, &B) -> bool,
) -> Option<A> {
    let text = String::from_utf8_lossy(doc);
    match (ours, theirs) {
        (Ok(a), Ok(b)) => {
            assert!(same(&a, &b), "{text}: jitson read {a:?}, serde_json {b:?}");
            Some(a)
        }
        (Err(a), Err(b)) => {
            assert_eq!(
                a.classify(),
                oracle::category(&b),
                "{text}: jitson says {a}, serde_json {b}"
            );
            crate::assert_same_reason(&text, &a, &b);
            None
        }
        (a, b) => panic!("{text}: jitson gave {a:?}, serde_json {b:?}"),
    }
}

/// Reads `doc` into a `T` on every backend and with serde_json, and asserts
/// they [`agree`]. Returns jitson's value.
#[track_caller]
fn reads_as_serde<T>(doc: &[u8]) -> Option<T>
where
    T: jitson::Decode + for<'de> Deserialize<'de> + PartialEq + Debug,
{
    agree(
        doc,
        common::decode::<T>(doc),
        serde_json::from_slice::<T>(doc),
        |a, b| a == b,
    )
}

/// [`reads_as_serde`] on `{"t": value}`.
#[track_caller]
fn reads_field_as_serde<T>(value: &str) -> Option<T>
where
    T: jitson::Decode + for<'de> Deserialize<'de> + Debug,
{
    reads_as_serde::<One<T>>(format!(r#"{{"t":{value}}}"#).as_bytes()).map(|one| one.t)
}

/// serde reads a `Box<serde_bytes::Bytes>` only through serde_bytes's own
/// trait (`with = "serde_bytes"`).
#[derive(Deserialize, Debug)]
struct BoxedWith {
    #[serde(with = "serde_bytes")]
    t: Box<serde_bytes::Bytes>,
}

/// [`reads_as_serde`] for `{"t": …}` into a `Box<serde_bytes::Bytes>`, held
/// to serde_bytes's impl.
#[track_caller]
fn reads_as_serde_bytes(doc: &[u8]) {
    let ours = common::decode::<One<Box<serde_bytes::Bytes>>>(doc);
    let theirs = serde_json::from_slice::<BoxedWith>(doc);
    agree(doc, ours, theirs, |a, b| a.t == b.t);
}

fn sample() -> Collections {
    Collections {
        map: [("z", 1), ("a", -2), ("m\u{e9}\"", 3)]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
        keyed: [
            (7, vec!["x".to_owned()]),
            (0, vec![]),
            (u32::MAX, vec!["".to_owned()]),
        ]
        .into_iter()
        .collect(),
        floats: [
            (OrderedFloat(2.5), NotNan::new(1.0).unwrap()),
            (OrderedFloat(-0.0), NotNan::new(f32::INFINITY).unwrap()),
            (OrderedFloat(1e300), NotNan::new(-3.25e-8).unwrap()),
        ]
        .into_iter()
        .collect(),
        small: SmallVec::from_slice(&[1, 2, 65535]),
        names: ["a", "b", "c"].into_iter().map(str::to_owned).collect(),
        bytes: Bytes::from_static(b"\x00\xffabc"),
        bytes_mut: BytesMut::from(&b"mut"[..]),
        buf: ByteBuf::from(vec![0u8, 1, 127, 128, 255]),
        ordered: OrderedFloat(f64::NAN),
        ordered32: OrderedFloat(f32::NEG_INFINITY),
        not_nan: NotNan::new(f64::INFINITY).unwrap(),
        not_nan32: NotNan::new(0.1).unwrap(),
        later: None,
    }
}

#[test]
fn a_struct_of_every_type_encodes_as_serde_json() {
    let mut value = sample();
    encodes_as_serde_json(&value);
    value.later = Some(
        [(
            "k".to_owned(),
            SmallVec::from_slice(&[1, 2, 3, 4, 5, 6, 7, 8, 9]),
        )]
        .into_iter()
        .collect(),
    );
    encodes_as_serde_json(&value);
    let with_set = WithSet {
        all: value,
        set: ["b", "a", "c"].into_iter().map(str::to_owned).collect(),
        numbers: [3, -1, 2].into_iter().collect(),
    };
    encodes_as_serde_json(&with_set);
    // Byte buffers are no map keys for serde_json's writer.
    encodes_as_serde_json(&One {
        t: [(ByteBuf::from(vec![1]), 1u8)]
            .into_iter()
            .collect::<IndexMap<_, _>>(),
    });
    encodes_as_serde_json(&One {
        t: IndexMap::<ByteBuf, u8>::new(),
    });
    for bytes in [&b""[..], b"\x00\xff", b"boxed"] {
        encodes_as_serde_json(&One {
            t: ByteBuf::from(bytes.to_vec()).into_boxed_bytes(),
        });
        encodes_as_serde_json(&One {
            t: serde_bytes::Bytes::new(bytes),
        });
    }
}

#[test]
fn a_struct_of_every_type_round_trips_as_serde_json() {
    let mut value = sample();
    // Non-finite floats are written as `null`, which no float reads back.
    value.ordered = OrderedFloat(-1.5);
    value.ordered32 = OrderedFloat(f32::MAX);
    value.not_nan = NotNan::new(f64::MIN_POSITIVE).unwrap();
    value.floats.swap_remove(&OrderedFloat(-0.0));
    let json = serde_json::to_vec(&value).unwrap();
    assert_eq!(reads_as_serde::<Collections>(&json), Some(value.clone()));
    let with_set = WithSet {
        all: value,
        set: ["b", "a", "c"].into_iter().map(str::to_owned).collect(),
        numbers: [3, -1, 2].into_iter().collect(),
    };
    let json = serde_json::to_vec_pretty(&with_set).unwrap();
    assert_eq!(reads_as_serde::<WithSet>(&json), Some(with_set));
}

#[test]
fn structs_of_these_types_stay_compiled() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<WithSet>().unwrap();
    jitson::warm_up::<Flattened>().unwrap();
    jitson::warm_up::<One<IndexMap<u32, OrderedFloat<f64>>>>().unwrap();
    jitson::warm_up_encode::<WithSet>().unwrap();
    jitson::warm_up_encode::<Flattened>().unwrap();
    let interpreted = jitson::stats().interpreted_layouts;
    for (ty, why) in &interpreted {
        let ours = [
            "indexmap",
            "smallvec",
            "bytes",
            "ordered_float",
            "Collections",
        ]
        .iter()
        .any(|name| ty.contains(name));
        assert!(!ours, "{ty}: {why}");
    }
    common::assert_compiled(&["WithSet", "Collections", "Flattened"]);
}

/// The kind of `T`'s encode layout and of `Std`'s are the same, so the JIT's
/// encoder lowers `T` wherever it lowers `Std`. (`stats()` lists only what
/// decoders hand to the interpreter.)
#[track_caller]
fn encoded_as<T: Encode, Std: Encode>() {
    let (ours, std) = (&T::ENCODE.kind, &Std::ENCODE.kind);
    assert_eq!(
        core::mem::discriminant(ours),
        core::mem::discriminant(std),
        "{ours:?} vs {std:?}"
    );
}

#[test]
fn encode_layouts_are_their_std_equivalents_kinds() {
    encoded_as::<IndexMap<String, i64>, std::collections::HashMap<String, i64>>();
    encoded_as::<IndexSet<String>, std::collections::HashSet<String>>();
    encoded_as::<SmallVec<[u16; 4]>, Vec<u16>>();
    encoded_as::<Bytes, Vec<u8>>();
    encoded_as::<BytesMut, Vec<u8>>();
    encoded_as::<ByteBuf, Vec<u8>>();
    encoded_as::<Box<serde_bytes::Bytes>, Vec<u8>>();
    encoded_as::<&serde_bytes::Bytes, Vec<u8>>();
    encoded_as::<OrderedFloat<f64>, f64>();
    encoded_as::<OrderedFloat<f32>, f32>();
    encoded_as::<NotNan<f64>, f64>();
    encoded_as::<NotNan<f32>, f32>();
    // And the decoders' kinds (the floats exactly the plain floats').
    use jitson::HasLayout;
    let kind = |layout: &jitson::__private::TypeLayout| core::mem::discriminant(&layout.kind);
    assert_eq!(kind(<NotNan<f64>>::LAYOUT), kind(<f64>::LAYOUT));
    assert_eq!(kind(<OrderedFloat<f32>>::LAYOUT), kind(<f32>::LAYOUT));
    assert_eq!(
        kind(<IndexMap<String, u8>>::LAYOUT),
        kind(<std::collections::HashMap<String, u8>>::LAYOUT)
    );
    assert_eq!(kind(<SmallVec<[u8; 2]>>::LAYOUT), kind(<Vec<u8>>::LAYOUT));
    assert_eq!(kind(<ByteBuf>::LAYOUT), kind(<Vec<u8>>::LAYOUT));
}

#[test]
fn repeated_keys_keep_the_first_place_and_the_last_value() {
    let map = reads_field_as_serde::<IndexMap<String, i32>>(r#"{"b":1,"a":2,"b":3,"c":4,"a":5}"#)
        .unwrap();
    assert_eq!(
        map.into_iter().collect::<Vec<_>>(),
        [
            ("b".to_owned(), 3),
            ("a".to_owned(), 5),
            ("c".to_owned(), 4)
        ]
    );
    // Escaped spellings of one key are one key.
    let map = reads_field_as_serde::<IndexMap<String, i32>>(r#"{"ab":1,"a\u0062":2}"#).unwrap();
    assert_eq!(map.into_iter().collect::<Vec<_>>(), [("ab".to_owned(), 2)]);
    let map = reads_field_as_serde::<IndexMap<u8, i32>>(r#"{"2":1,"1":2,"2":3}"#).unwrap();
    assert_eq!(map.into_iter().collect::<Vec<_>>(), [(2, 3), (1, 2)]);
    // A set keeps the first of equal elements where it was first read.
    let set = reads_field_as_serde::<IndexSet<String>>(r#"["b","a","b","c","a"]"#).unwrap();
    assert_eq!(set.into_iter().collect::<Vec<_>>(), ["b", "a", "c"]);
    // A flattened catch-all keeps the unknown members in document order.
    let doc = br#"{"z":1,"id":7,"a":2,"z":3,"m":4}"#;
    let flat = reads_as_serde::<Flattened>(doc).unwrap();
    assert_eq!(
        flat.rest.into_iter().collect::<Vec<_>>(),
        [
            ("z".to_owned(), 3),
            ("a".to_owned(), 2),
            ("m".to_owned(), 4)
        ]
    );
}

#[test]
fn maps_and_sets_given_other_json_types() {
    for value in [
        "{}",
        "[]",
        "[1]",
        r#""a""#,
        "null",
        "1",
        "true",
        r#"{"a":"1"}"#,
        r#"{"a":1,}"#,
        r#"{"a":1"#,
        r#"{"a" 1}"#,
        r#"{1:1}"#,
    ] {
        reads_field_as_serde::<IndexMap<String, i64>>(value);
        reads_field_as_serde::<IndexMap<u32, i64>>(value);
        reads_field_as_serde::<IndexSet<i64>>(value);
        reads_field_as_serde::<SmallVec<[i64; 2]>>(value);
    }
    for value in [
        r#"{"1":0,"01":1}"#,
        r#"{"-1":0}"#,
        r#"{"4294967296":0}"#,
        r#"{" 1":0}"#,
        r#"{"1 ":0}"#,
        r#"{"x":0}"#,
        r#"{"1.0":0}"#,
    ] {
        reads_field_as_serde::<IndexMap<u32, i64>>(value);
    }
    for value in [
        r#"{"1.5":1,"-0":2,"1e3":3}"#,
        r#"{"NaN":1}"#,
        r#"{"1e400":1}"#,
        r#"{"inf":1}"#,
    ] {
        reads_field_as_serde::<IndexMap<OrderedFloat<f64>, i64>>(value);
        reads_field_as_serde::<IndexMap<NotNan<f32>, i64>>(value);
    }
    for value in [
        "[1,2,3,4,5]",
        "[[],[1],[1,2,3]]",
        r#"[1,"a"]"#,
        "[65536]",
        "[-1]",
        "[1,]",
        "[1 2]",
        "[",
    ] {
        reads_field_as_serde::<SmallVec<[u16; 2]>>(value);
        reads_field_as_serde::<SmallVec<[SmallVec<[u8; 1]>; 2]>>(value);
        reads_field_as_serde::<IndexSet<u16>>(value);
    }
}

/// Texts for the byte buffers: arrays of numbers in and out of `u8`'s range,
/// strings read as raw bytes (escapes, lone surrogates, control characters,
/// bytes that are not UTF-8), other JSON types and broken texts.
const BYTE_TEXTS: &[&[u8]] = &[
    b"[]",
    b"[0,1,255]",
    b" [ 1 , 2 ] ",
    b"[256]",
    b"[-1]",
    b"[1.5]",
    b"[1e2]",
    b"[\"a\"]",
    b"[null]",
    b"[[1]]",
    b"[1,]",
    b"[1",
    b"\"\"",
    b"\"abc\"",
    b"\"\\u00e9\\n\\\"\\\\\\/\\b\\f\\r\\t\"",
    b"\"\xc3\xa9\"",
    b"\"\xff\xfe\"",
    b"\"a\x01b\x1f\"",
    b"\"a\nb\"",
    b"\"\\ud83d\\ude00\"",
    b"\"\\ud800\"",
    b"\"\\udc00\"",
    b"\"\\ud800x\"",
    b"\"\\ud800\\u0041\"",
    b"\"\\ud800\\ud800\\udc00\"",
    b"\"\\ud800\\n\"",
    b"\"\\ud800\\x\"",
    b"\"\\ud800\\",
    b"\"\\ud800",
    b"\"\\u12\"",
    b"\"\\u12x4\"",
    b"\"\\q\"",
    b"\"abc",
    b"\"\\",
    b"5",
    b"-1",
    b"null",
    b"true",
    b"{}",
    b"{\"a\":1}",
    b"",
    b"nul",
];

#[test]
fn byte_buffers_read_as_their_serde_impls() {
    for text in BYTE_TEXTS {
        let doc = [&b"{\"t\":"[..], text, b"}"].concat();
        reads_as_serde::<One<Bytes>>(&doc);
        reads_as_serde::<One<BytesMut>>(&doc);
        reads_as_serde::<One<ByteBuf>>(&doc);
        reads_as_serde_bytes(&doc);
        reads_as_serde::<One<Option<ByteBuf>>>(&doc);
        reads_as_serde::<One<SmallVec<[u8; 4]>>>(&doc);
        // As the whole document too, and as elements and map keys.
        reads_as_serde::<Bytes>(text);
        let doc = [&b"[["[..], text, b"]]"].concat();
        reads_as_serde::<Vec<Vec<ByteBuf>>>(&doc);
        let doc = [&b"{\"t\":{"[..], text, b":1}}"].concat();
        reads_as_serde::<One<IndexMap<ByteBuf, u8>>>(&doc);
    }
}

#[test]
fn byte_strings_are_raw_bytes() {
    let read = |text: &[u8]| {
        reads_as_serde::<ByteBuf>(text)
            .unwrap_or_else(|| panic!("{:?}", String::from_utf8_lossy(text)))
            .into_vec()
    };
    assert_eq!(read(b"\"\\ud800\""), [0xed, 0xa0, 0x80]);
    assert_eq!(
        read(b"\"\\ud800\\ud800\\udc00\""),
        [0xed, 0xa0, 0x80, 0xf0, 0x90, 0x80, 0x80]
    );
    assert_eq!(read(b"\"\xff\x01\""), [0xff, 0x01]);
    assert_eq!(read(b"[0,255]"), [0, 255]);
}

#[test]
fn borrowed_serde_bytes_are_written_as_byte_arrays() {
    // Only written: serde_json lends `&Bytes` the unchecked text of a string
    // without escapes, which no jitson kind reads (see
    // core/src/foreign/serde_bytes.rs).
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Borrowed<'a> {
        b: &'a serde_bytes::Bytes,
        v: Vec<&'a serde_bytes::Bytes>,
    }
    let value = Borrowed {
        b: serde_bytes::Bytes::new(b"\x00ab"),
        v: vec![
            serde_bytes::Bytes::new(b""),
            serde_bytes::Bytes::new(b"\xff"),
        ],
    };
    encodes_as_serde_json(&value);
}

#[test]
fn floats_read_and_write_as_the_plain_floats() {
    for value in [
        "0",
        "-0",
        "1.5",
        "-1e-320",
        "1e308",
        "1e309",
        "1e400",
        "3.4028236e38",
        "1e39",
        "NaN",
        "-Infinity",
        r#""NaN""#,
        r#""1.5""#,
        "null",
        "[1.5]",
        "1.",
        "01",
        "-",
    ] {
        reads_field_as_serde::<OrderedFloat<f64>>(value);
        reads_field_as_serde::<OrderedFloat<f32>>(value);
        reads_field_as_serde::<NotNan<f64>>(value);
        reads_field_as_serde::<NotNan<f32>>(value);
        reads_field_as_serde::<Option<NotNan<f64>>>(value);
    }
    for f in [
        0.0,
        -0.0,
        1.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
    ] {
        encodes_as_serde_json(&One { t: OrderedFloat(f) });
        encodes_as_serde_json(&One {
            t: OrderedFloat(f as f32),
        });
        encodes_as_serde_json(&One {
            t: vec![OrderedFloat(f)],
        });
        if let Ok(n) = NotNan::new(f) {
            encodes_as_serde_json(&One { t: n });
            encodes_as_serde_json(&One {
                t: NotNan::new(f as f32).unwrap(),
            });
        }
        // Float keys: serde_json refuses non-finite ones.
        encodes_as_serde_json(&One {
            t: [(OrderedFloat(f), 1)]
                .into_iter()
                .collect::<IndexMap<_, _>>(),
        });
    }
}

fn keys() -> impl Strategy<Value = String> {
    "[a-c\"\\\\/\u{e9}\u{1F600}\n]{0,4}"
}

fn finite() -> impl Strategy<Value = f64> {
    any::<f64>().prop_filter("finite", |f| f.is_finite())
}

prop_compose! {
    fn collections(finite_only: bool)(
        map in prop::collection::vec((keys(), any::<i64>()), 0..6),
        keyed in prop::collection::vec((any::<u32>(), prop::collection::vec(keys(), 0..3)), 0..4),
        floats in prop::collection::vec((finite(), any::<f32>()), 0..4),
        small in prop::collection::vec(any::<u16>(), 0..9),
        names in prop::collection::vec(keys(), 0..4),
        bytes in prop::collection::vec(any::<u8>(), 0..40),
        ordered in any::<f64>(),
        ordered32 in any::<f32>(),
        later in prop::option::of(prop::collection::vec((keys(), prop::collection::vec(any::<u8>(), 0..12)), 0..3)),
    ) -> Collections {
        let tame = |f: f64| if finite_only && !f.is_finite() { 0.5 } else { f };
        let tame32 = |f: f32| if finite_only && !f.is_finite() { 0.5 } else { f };
        Collections {
            map: map.into_iter().collect(),
            keyed: keyed.into_iter().collect(),
            floats: floats
                .into_iter()
                .filter_map(|(k, v)| Some((OrderedFloat(k), NotNan::new(tame32(v)).ok()?)))
                .collect(),
            small: small.iter().copied().collect(),
            names: names.into_iter().collect(),
            bytes: Bytes::from(bytes.clone()),
            bytes_mut: BytesMut::from(&bytes[..bytes.len() / 2]),
            buf: ByteBuf::from(bytes[bytes.len() / 3..].to_vec()),
            ordered: OrderedFloat(tame(ordered)),
            ordered32: OrderedFloat(tame32(ordered32)),
            not_nan: NotNan::new(tame(ordered)).unwrap_or_default(),
            not_nan32: NotNan::new(tame32(ordered32)).unwrap_or_default(),
            later: later.map(|l| l.into_iter().map(|(k, v)| (k, v.into_iter().collect())).collect()),
        }
    }
}

proptest! {
    #[test]
    fn generated_values_encode_as_serde_json(value in collections(false)) {
        encodes_as_serde_json(&value);
    }

    #[test]
    fn generated_values_round_trip_as_serde_json(
        value in collections(true),
        set in prop::collection::vec(keys(), 0..6),
        numbers in prop::collection::vec(-3i32..3, 0..6),
    ) {
        let value = WithSet {
            all: value,
            set: set.into_iter().collect(),
            numbers: numbers.into_iter().collect(),
        };
        encodes_as_serde_json(&value);
        let json = serde_json::to_vec(&value).unwrap();
        prop_assert_eq!(reads_as_serde::<WithSet>(&json), Some(value));
    }

    #[test]
    fn generated_documents_with_repeated_keys_agree(
        entries in prop::collection::vec(("[a-d]", -5i64..5), 0..10),
        id in any::<u32>(),
    ) {
        let members: Vec<String> = entries
            .iter()
            .map(|(k, v)| format!("{}:{v}", serde_json::to_string(k).unwrap()))
            .collect();
        let object = format!("{{{}}}", members.join(","));
        reads_field_as_serde::<IndexMap<String, i64>>(&object);
        let flattened = format!(r#"{{"id":{id},{}}}"#, members.join(","));
        let flattened = flattened.replace(",}", "}");
        reads_as_serde::<Flattened>(flattened.as_bytes());
        let set = format!("[{}]", entries.iter().map(|(_, v)| v.to_string()).collect::<Vec<_>>().join(","));
        reads_field_as_serde::<IndexSet<i64>>(&set);
        reads_field_as_serde::<SmallVec<[i64; 3]>>(&set);
    }

    #[test]
    fn generated_byte_texts_agree(
        text in prop::collection::vec(prop_oneof![
            Just(&b"\\ud800"[..]),
            Just(&b"\\udfff"[..]),
            Just(&b"\\ud83d\\ude00"[..]),
            Just(&b"\\u0000"[..]),
            Just(&b"\\n"[..]),
            Just(&b"\\\""[..]),
            Just(&b"\xff"[..]),
            Just(&b"\xc3\xa9"[..]),
            Just(&b"\x01"[..]),
            Just(&b"a"[..]),
        ], 0..8),
        numbers in prop::collection::vec(-2i32..300, 0..6),
    ) {
        let doc = [&b"{\"t\":\""[..], &text.concat(), b"\"}"].concat();
        reads_as_serde::<One<ByteBuf>>(&doc);
        reads_as_serde::<One<Bytes>>(&doc);
        let array = format!("{:?}", numbers).replace(' ', "");
        reads_field_as_serde::<BytesMut>(&array);
        reads_as_serde_bytes(format!(r#"{{"t":{array}}}"#).as_bytes());
    }
}
