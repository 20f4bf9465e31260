//! Error messages as informative as serde_json's: the offending value
//! (`invalid type: string "2", expected i64`, ``invalid value: integer `256`,
//! expected u8``) and the names that were expected (``unknown field `x`,
//! expected `a` or `b` ``), checked word for word against serde_json on every
//! backend, with jitson's path and position after them.

mod common;

use std::collections::HashMap;

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

/// Asserts that every backend (and both entry points, which must agree on
/// the error's shape) words the error for `doc` as serde_json does, in its
/// category.
fn same_message<T: Decode + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(doc: &str) {
    common::err::<T>(doc.as_bytes());
    let theirs = serde_message::<T>(doc);
    let category =
        common::oracle::category(&serde_json::from_str::<T>(doc).expect_err("serde_json refuses"));
    for backend in common::backends() {
        let e = jitson::Decoder::<T>::with_backend(backend)
            .decode_str(doc)
            .expect_err("jitson refuses");
        let ours = e.to_string();
        assert!(
            ours.starts_with(&format!("{theirs} at $")) && e.classify() == category,
            "for {doc} ({backend:?}):\n jitson:     {ours} ({:?})\n serde_json: {theirs} ({category:?})",
            e.classify()
        );
    }
}

/// [`same_message`], and the same category and 1-based position as serde_json.
fn same_error<T: Decode + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(doc: &str) {
    same_message::<T>(doc);
    let theirs = serde_json::from_str::<T>(doc).expect_err("serde_json refuses");
    for backend in common::backends() {
        let ours = jitson::Decoder::<T>::with_backend(backend)
            .decode_str(doc)
            .expect_err("jitson refuses");
        assert_eq!(
            (ours.classify(), ours.line(), ours.column()),
            (
                common::oracle::category(&theirs),
                theirs.line(),
                theirs.column()
            ),
            "for {doc} ({backend:?}): {ours}"
        );
    }
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

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Aliased {
    #[serde(alias = "ident", alias = "ID")]
    id: u8,
    n: u8,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "UPPERCASE")]
struct AliasedRenamed {
    #[serde(rename = "q", alias = "x")]
    a: u8,
    #[serde(alias = "zz", alias = "bb")]
    b: u8,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct OneAlias {
    #[serde(alias = "x")]
    a: u8,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
enum AliasedVariants {
    #[serde(alias = "C", alias = "B")]
    A,
    D,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Flattening {
    #[serde(alias = "ID")]
    id: u8,
    #[serde(flatten)]
    inner: Flattened,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Flattened {
    k: u8,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "t", deny_unknown_fields)]
enum InternalStrict {
    A {
        #[serde(alias = "ex")]
        x: u8,
        y: u8,
    },
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "t", content = "c", deny_unknown_fields)]
enum AdjacentStrict {
    A(u8),
}

#[test]
fn unknown_fields_list_every_name_and_alias_as_serde_does() {
    // Each field's name and aliases, sorted (serde_derive's BTreeSet), then
    // the next field's.
    same_message::<Aliased>(r#"{"id": 1, "n": 2, "zz": 3}"#);
    same_message::<AliasedRenamed>(r#"{"q": 1, "B": 2, "qq": 3}"#);
    same_message::<OneAlias>(r#"{"a": 1, "qq": 3}"#);
    same_message::<AliasedVariants>(r#""Z""#);
    same_message::<InternalStrict>(r#"{"t": "A", "x": 1, "y": 2, "zz": 3}"#);
    // With a flattened field serde lists nothing.
    same_message::<Flattening>(r#"{"id": 1, "k": 2, "zz": 3}"#);
    // Adjacently tagged: serde's tag-or-content visitor.
    same_message::<AdjacentStrict>(r#"{"t": "A", "c": 1, "zz": 3}"#);
}

#[test]
fn floats_in_messages_are_written_as_serde_json_writes_them() {
    for doc in [
        "18446744073709551616",
        "1e+23",
        "1e23",
        "-1e23",
        "2.5",
        "1e3",
        "-0",
        "1.5e300",
        "1e-7",
        "0.000001",
        "1e15",
        "1e16",
        "5e-324",
        "1.7976931348623157e308",
        "12345678901234567890123",
    ] {
        same_message::<u64>(doc);
        same_message::<i8>(doc);
        same_message::<String>(doc);
        same_message::<bool>(doc);
    }
    same_message::<Two>(r#"{"a": 18446744073709551616, "b": 1}"#);
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adj {
    A(u8),
    Unit,
    #[serde(other)]
    Unknown,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(rename = "Renamed")]
enum Ext {
    A(u8),
    #[serde(other, rename = "unk")]
    Unknown,
}

#[test]
fn a_unit_variant_given_content_is_named_as_serde_names_it() {
    for content in ["1", "[]", "{}", r#""s""#, "true", "1.5"] {
        same_message::<Adj>(&format!(r#"{{"t": "Zed", "c": {content}}}"#));
        same_message::<Adj>(&format!(r#"{{"c": {content}, "t": "Zed"}}"#));
        same_message::<Adj>(&format!(r#"{{"t": "Unit", "c": {content}}}"#));
        same_message::<Ext>(&format!(r#"{{"Zed": {content}}}"#));
        same_message::<Ext>(&format!(r#"{{"unk": {content}}}"#));
    }
}

#[test]
fn a_char_given_several_characters_names_the_string() {
    for doc in [r#""ab""#, r#""""#, r#""a\"b""#, r#""a\nb\u0001é""#] {
        same_message::<char>(doc);
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Triple(u8, u8, u8);

#[test]
fn one_element_too_many_is_trailing_characters_as_in_serde_json() {
    for doc in [
        "[1,2,3,4]",
        "[1, 2, 3 ,\n  4]",
        "[1,2,3,]",
        "[1,2,3 x]",
        "[1,2,3,4",
    ] {
        same_error::<(u8, u8, u8)>(doc);
        same_error::<[u8; 3]>(doc);
        same_error::<Triple>(doc);
    }
    // At the end of input the column differs by design (docs/semantics.md,
    // "Positions"); the words do not.
    for doc in ["[1,2,3,", "[1,2,3, ", "[1,2,3"] {
        same_message::<(u8, u8, u8)>(doc);
        same_message::<[u8; 3]>(doc);
    }
    same_error::<[u8; 0]>("[1]");
    same_error::<Vec<(u8, u8)>>("[[1, 2], [1, 2, 3]]");
    let e = common::err::<(u8, u8, u8)>(b"[1,2,3,4]");
    assert_eq!(
        (e.kind(), e.offset(), e.path()),
        (jitson::ErrorKind::Syntax, 7, "$".to_owned())
    );
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "kind")]
enum Internal {
    Point { x: i32 },
    Empty,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "kind", rename = "Shown")]
enum InternalRenamed {
    Point { x: i32 },
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "kind", expecting = "a shape")]
enum InternalExpecting {
    Point { x: i32 },
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct HoldsTagged {
    one: Option<Internal>,
    many: Vec<Adj>,
}

/// [`same_message`] where serde_json refuses `doc`; else the same value on
/// every backend.
fn same_outcome<T: Decode + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(doc: &str) {
    match serde_json::from_str::<T>(doc) {
        Ok(theirs) => assert_eq!(common::ok::<T>(doc), theirs, "for {doc}"),
        Err(_) => same_message::<T>(doc),
    }
}

/// serde_derive names a tagged enum by its tagging in "expected ...":
/// "internally tagged enum E", "adjacently tagged enum E", "enum E" for an
/// externally tagged one; a container's `rename` or `expecting` as it does.
#[test]
fn tagged_enums_given_other_values_are_named_by_their_tagging() {
    for value in ["1", "-2", "2.5", r#""s""#, "true", "null"] {
        same_outcome::<Internal>(value);
        same_outcome::<InternalRenamed>(value);
        same_outcome::<InternalExpecting>(value);
        same_outcome::<Adj>(value);
        same_outcome::<Ext>(value);
        same_outcome::<HoldsTagged>(&format!(r#"{{"one": {value}, "many": []}}"#));
        if value != "null" {
            same_outcome::<HoldsTagged>(&format!(r#"{{"one": null, "many": [{value}]}}"#));
        }
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(rename = "Shown")]
struct StructRenamed {
    a: u8,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(untagged, rename = "Shown")]
enum UntaggedRenamed {
    A(u8),
    B { b: bool },
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(rename = "Shown")]
struct TupleRenamed(u8, u8);

/// serde_derive's messages name a type by its Rust name, whatever its
/// `rename` (which names it to the data format). (A struct given an array is a
/// documented difference, docs/semantics.md.)
#[test]
fn messages_name_a_renamed_type_by_its_rust_name() {
    for value in ["1", r#""s""#, "true", "null", "[1]", "[true, 1]"] {
        if !value.starts_with('[') {
            same_outcome::<StructRenamed>(value);
        }
        same_outcome::<UntaggedRenamed>(value);
        same_outcome::<TupleRenamed>(value);
        same_outcome::<Ext>(value);
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Paging {
    page: u8,
    #[serde(default)]
    size: Option<u8>,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Listing {
    id: u32,
    #[serde(flatten)]
    paging: Paging,
    #[serde(flatten)]
    rest: HashMap<String, u32>,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Extras {
    q: Option<u8>,
    #[serde(flatten)]
    extra: HashMap<String, u32>,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Nested {
    m: u8,
    #[serde(flatten)]
    inner: Extras,
}

/// serde reads an object's own fields as it goes but builds each flattened
/// struct and map from what it buffered, once the object is read: after the
/// object's own missing fields, part after part, depth first, each part's
/// values before its missing fields. Every pair of faults below is reported
/// as serde_json reports it, on every backend (compiled or not).
#[test]
fn flattened_parts_report_their_errors_in_serde_order() {
    let docs = [
        // A flattened struct's bad value or repeated key, a map's bad value,
        // against the object's own missing field.
        r#"{"page": "x"}"#,
        r#"{"page": 1, "page": 2}"#,
        r#"{"page": 1, "other": "x"}"#,
        r#"{"other": "x", "page": 1}"#,
        // The object's own bad value comes first wherever it is.
        r#"{"page": "x", "id": "y"}"#,
        r#"{"other": "x", "id": "y", "page": 1}"#,
        // The flattened struct's missing field before the map's bad value.
        r#"{"id": 1, "other": "x"}"#,
        r#"{"id": 1, "other": "x", "size": 1}"#,
        // The struct's bad value before the map's, whichever comes first.
        r#"{"id": 1, "other": "x", "page": "y"}"#,
        r#"{"id": 1, "page": "y", "other": "x"}"#,
        // Two bad map values: the first.
        r#"{"id": 1, "page": 1, "a": "x", "b": [1]}"#,
        // A syntax error after any of them comes first.
        r#"{"page": "x", "other": "y", "id": 1, "z": tru}"#,
        r#"{"id": 1, "page": 1, "other": "x", "z": [1,]}"#,
        r#"{"page": "x", "id": 1"#,
        r#"{"id": 1, "id": 2, "z": tru}"#,
        r#"{"page": 1, "page": 2, "z": tru}"#,
    ];
    for doc in docs {
        same_outcome::<Listing>(doc);
    }
    for doc in [
        r#"{"r": "x"}"#,
        r#"{"r": "x", "q": "y"}"#,
        r#"{"q": "y", "r": "x"}"#,
        r#"{"q": "y", "m": 1, "r": "x"}"#,
        r#"{"q": 1, "q": 2, "r": "x", "m": 1}"#,
        r#"{"r": "x", "m": "z"}"#,
    ] {
        same_outcome::<Nested>(doc);
    }
    for backend in common::backends() {
        jitson::Decoder::<Listing>::with_backend(backend)
            .warm_up()
            .unwrap();
    }
    common::assert_compiled(&["Listing"]);
}

/// [`flattened_parts_report_their_errors_in_serde_order`] on generated
/// objects: up to six members drawn from good and bad values of every field
/// of [`Listing`] and [`Nested`] and of keys their maps collect, repeated keys
/// included, in any order; each object's error (or value) is serde_json's on
/// every backend.
#[test]
fn generated_flattened_objects_fail_as_serde_json_does() {
    const LISTING: &[&str] = &[
        r#""id": 1"#,
        r#""id": "x""#,
        r#""page": 2"#,
        r#""page": -1"#,
        r#""size": 3"#,
        r#""size": "s""#,
        r#""a": 4"#,
        r#""b": "t""#,
        r#""c": [5]"#,
    ];
    const NESTED: &[&str] = &[
        r#""m": 1"#,
        r#""m": null"#,
        r#""q": 2"#,
        r#""q": {}"#,
        r#""r": 3"#,
        r#""s": "u""#,
        r#""t": 1.5"#,
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    for _ in 0..1_500 {
        for (pool, listing) in [(LISTING, true), (NESTED, false)] {
            let members: Vec<&str> = (0..next(7)).map(|_| pool[next(pool.len())]).collect();
            let doc = format!("{{{}}}", members.join(", "));
            if listing {
                same_outcome::<Listing>(&doc);
            } else {
                same_outcome::<Nested>(&doc);
            }
        }
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Small {
    a: u8,
    #[serde(flatten)]
    m: HashMap<String, u8>,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Denying {
    o: u8,
    #[serde(flatten)]
    s: Paging,
}

/// serde refuses an object's own field repeated as soon as it reads the key,
/// before its colon, flattened fields or not; and with `deny_unknown_fields`
/// it reports an unknown member last, once every flattened part is built (a
/// syntax error anywhere still first). From a review's reduced cases.
#[test]
fn own_repeats_come_at_the_key_and_unknown_members_last() {
    for doc in [
        r#"{"a":1,"a""#,
        r#"{"a":1,"a" 1}"#,
        r#"{"a":1,"a":"#,
        r#"{"x":1,"a":1,"a"}"#,
    ] {
        same_outcome::<Small>(doc);
        same_outcome::<Two>(doc);
    }
    for doc in [
        r#"{"u":tru}"#,
        r#"{"u":1"#,
        r#"{"u":1}"#,
        r#"{"o":1,"u":1}"#,
        r#"{"u":1,"o":"x"}"#,
        r#"{"u":1,"o":1,"page":"x"}"#,
        r#"{"u":1,"o":1,"page":1}"#,
        r#"{"o":1,"o":2,"u":1}"#,
    ] {
        same_outcome::<Denying>(doc);
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Arrays {
    empty: Option<[u8; 0]>,
    one: Option<[u8; 1]>,
    two: Option<[u8; 2]>,
    full: Option<[u8; 32]>,
}

/// serde names a fixed-size array by its length: "an empty array", "an
/// array of length N" (its impls stop at 32).
#[test]
fn arrays_are_named_by_their_length() {
    for value in ["3", r#""A""#, "{}", "true", "[1, 2, 3]"] {
        for field in ["empty", "one", "two", "full"] {
            same_outcome::<Arrays>(&format!(r#"{{"{field}": {value}}}"#));
        }
        same_outcome::<[u8; 2]>(value);
        same_outcome::<[u8; 0]>(value);
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
enum Shapes {
    Pair(u8, u8),
    Trio(u8, String, bool),
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct OneLeft(u8, #[serde(skip)] u8);

/// An array too short for a tuple variant, or for a tuple struct with one
/// element left to read: serde's expecting with the number of elements, in
/// the singular for one.
#[test]
fn invalid_lengths_count_elements_as_serde_does() {
    same_message::<Shapes>(r#"{"Pair": [1]}"#);
    same_message::<Shapes>(r#"{"Pair": []}"#);
    same_message::<Shapes>(r#"{"Trio": [1, "x"]}"#);
    same_message::<Vec<Shapes>>(r#"[{"Pair": [1, 2]}, {"Trio": [1]}]"#);
    same_message::<OneLeft>("[]");
}

/// An untagged enum's `expecting` is its whole message when no variant
/// matches, as serde's derive words it (also for tagged enums with untagged
/// variants).
#[derive(jitson::Decode, serde::Deserialize, Debug, PartialEq)]
#[serde(untagged, expecting = "a number or a word")]
enum NumberOrWord {
    N(u8),
    W(String),
}

#[derive(jitson::Decode, serde::Deserialize, Debug, PartialEq)]
#[serde(tag = "t", expecting = "a shape")]
enum Shape {
    Square {
        side: u8,
    },
    #[serde(untagged)]
    Other(u8),
}

#[test]
fn an_untagged_enums_expecting_is_its_message() {
    for doc in ["null", "[1]", "300", r#"{"a":1}"#] {
        let theirs = serde_json::from_str::<NumberOrWord>(doc)
            .unwrap_err()
            .to_string();
        for backend in common::backends() {
            let e = jitson::Decoder::<NumberOrWord>::with_backend(backend)
                .decode_str(doc)
                .unwrap_err();
            assert!(
                theirs.starts_with(&e.code().to_string()),
                "{backend:?} {doc}: {e} / {theirs}"
            );
        }
    }
    for doc in [r#"{"t":"Circle"}"#, "null"] {
        let theirs = serde_json::from_str::<Shape>(doc).unwrap_err().to_string();
        for backend in common::backends() {
            let e = jitson::Decoder::<Shape>::with_backend(backend)
                .decode_str(doc)
                .unwrap_err();
            assert!(
                theirs.starts_with(&e.code().to_string()),
                "{backend:?} {doc}: {e} / {theirs}"
            );
        }
    }
}

/// Types whose serde visitor names the type itself in every refusal, read by
/// jitson as another type and converted: `NonZero*` (from the integer),
/// `PathBuf` and the `std::net` addresses (from a string), as values and as
/// map keys. Each refusal names the type as serde's does ("expected a
/// nonzero u64", not "expected u64"; "expected path string", not "expected a
/// string"); until 2026-12-08 it named the source type.
#[test]
fn converted_types_are_named_in_their_own_words() {
    use std::collections::BTreeMap;
    use std::net::{IpAddr, Ipv4Addr, SocketAddrV6};
    use std::num::{NonZeroI8, NonZeroU64, NonZeroU128};
    use std::path::PathBuf;
    for doc in [
        "-300",
        "1.5",
        "0",
        "\"7\"",
        "true",
        "null",
        "[1]",
        "18446744073709551616",
    ] {
        same_message::<NonZeroU64>(doc);
        same_message::<NonZeroI8>(doc);
        if doc != "18446744073709551616" {
            same_message::<NonZeroU128>(doc);
        }
        same_message::<Vec<NonZeroU64>>(&format!("[1,{doc}]"));
    }
    for key in ["-300", "0", "1.5", "x", "18446744073709551616"] {
        same_message::<BTreeMap<NonZeroU64, u8>>(&format!("{{\"{key}\":1}}"));
    }
    for key in ["-300", "0", "1.5", "x", "256"] {
        same_message::<BTreeMap<NonZeroI8, u8>>(&format!("{{\"{key}\":1}}"));
    }
    for doc in ["1", "true", "[]", "{}", "null", "-1.5"] {
        same_message::<PathBuf>(doc);
        same_message::<Ipv4Addr>(doc);
        same_message::<IpAddr>(doc);
        same_message::<SocketAddrV6>(doc);
    }
    same_message::<Ipv4Addr>("\"1.2.3\"");
    same_message::<Option<PathBuf>>("1");
}
