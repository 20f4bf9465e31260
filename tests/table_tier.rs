//! Hostile tests for the baseline tier's table-driven struct lowering
//! (`jit/src/kind/struct_table.rs`: `walk`, `value_member`) and for promotion
//! to the unrolled tier (`src/jit.rs`).
//!
//! Every document goes, in this order, through the interpreter (the reference),
//! `Backend::Jit` with `Tiering::Background` (the first compile of a type: the
//! Table lowering), and `Backend::Jit` with `Tiering::Wait` (the Unrolled
//! lowering; after it, the type's cache entry serves Unrolled code, so every
//! battery decodes all of its documents on the Table tier first). Values must be
//! equal (and equal serde_json's, modulo the documented differences), errors
//! must have the interpreter's kind, offset, line, column and path, and
//! `Counted` values must neither leak nor be dropped twice. Each type is used by
//! one test only, so the tier a test sees does not depend on the others.

mod common;

use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};

use common::counted::{Counted, PanicDrop, arm_panic_drop, live, panic_drop_armed};
use common::{ErrorShape, shape};
use jitson::{Backend, Decode, Decoder, Error, Tiering};
use serde::Deserialize;
use serde::de::DeserializeOwned;

// ---------------------------------------------------------------------------
// Harness

/// Checks a value or error against serde_json's for the same document.
type SerdeCheck<T> = dyn Fn(&[u8], Result<&T, &Error>);

/// A decoder maker, named for the messages.
type NamedDecoder<T> = (&'static str, fn() -> Decoder<T>);

/// A field's name and its value generator.
type FieldGen<'a> = (&'a str, &'a dyn Fn(&mut Rng) -> String);

fn table<T>() -> Decoder<T> {
    Decoder::<T>::with_backend(Backend::Jit).tiering(Tiering::Background)
}

fn unrolled<T>() -> Decoder<T> {
    Decoder::<T>::with_backend(Backend::Jit).tiering(Tiering::Wait)
}

fn interp<T>() -> Decoder<T> {
    Decoder::<T>::with_backend(Backend::Interpreter)
}

fn text(doc: &[u8]) -> String {
    String::from_utf8_lossy(doc).into_owned()
}

/// Decodes through `decode_slice` (from an exactly sized heap copy, so a read
/// past the end is a heap overrun valgrind sees) and `decode_str`.
fn both<T: Decode>(d: Decoder<T>, doc: &[u8]) -> Vec<(&'static str, Result<T, Error>)> {
    let exact: Box<[u8]> = doc.into();
    let mut out = vec![("slice", d.decode_slice(&exact))];
    if let Ok(s) = std::str::from_utf8(doc) {
        let exact: Box<str> = s.into();
        out.push(("str", d.decode_str(&exact)));
    }
    out
}

#[track_caller]
fn same<T: PartialEq + Debug>(
    tier: &str,
    doc: &[u8],
    reference: &Result<T, ErrorShape>,
    got: Result<T, Error>,
) {
    let got = got.map_err(|e| shape(&e));
    match (reference, &got) {
        (Ok(a), Ok(b)) => assert!(
            a == b,
            "{tier}: values differ for {:?}: {a:?} vs {b:?}",
            text(doc)
        ),
        (Err(a), Err(b)) => assert_eq!(a, b, "{tier}: errors differ for {:?}", text(doc)),
        (a, b) => panic!(
            "{tier}: for {:?} the interpreter gave {a:?} but got {b:?}",
            text(doc)
        ),
    }
}

/// The battery: interpreter, then Table for every document and depth limit,
/// then Unrolled likewise; serde_json checked against the interpreter (at
/// serde_json's own limit, 128); no leak.
#[track_caller]
fn battery_depths<T: Decode + PartialEq + Debug>(
    docs: &[Vec<u8>],
    depths: &[u32],
    serde: Option<&SerdeCheck<T>>,
) {
    let before = live();
    let mut reference = Vec::new();
    for &depth in depths {
        for doc in docs {
            let r = interp::<T>().max_depth(depth).decode_slice(doc);
            if let Some(serde) = serde
                && depth == 128
            {
                serde(doc, r.as_ref());
            }
            reference.push(r.map_err(|e| shape(&e)));
        }
    }
    let held = live();
    let jit = Backend::Jit.is_available();
    for (tier, make) in [
        ("table", table::<T> as fn() -> Decoder<T>),
        ("unrolled", unrolled::<T>),
    ] {
        if !jit {
            break;
        }
        let mut r = reference.iter();
        for &depth in depths {
            for doc in docs {
                let r = r.next().unwrap();
                for (entry, got) in both(make().max_depth(depth), doc) {
                    same(&format!("{tier}/{entry}/depth {depth}"), doc, r, got);
                }
                assert_eq!(
                    live(),
                    held,
                    "{tier}: leak or double drop for {:?}",
                    text(doc)
                );
            }
        }
    }
    drop(reference);
    assert_eq!(live(), before, "leak or double drop");
}

fn serde_check<T: DeserializeOwned + PartialEq + Debug>(doc: &[u8], ours: Result<&T, &Error>) {
    let theirs = serde_json::from_slice::<T>(doc);
    match (ours, theirs) {
        (Ok(a), Ok(b)) => assert!(
            *a == b,
            "serde_json differs for {:?}: {a:?} vs {b:?}",
            text(doc)
        ),
        (Err(a), theirs) if common::oracle::tolerated(a, theirs.as_ref().err()) => {}
        (Err(a), Err(b)) => assert_eq!(
            a.classify(),
            common::oracle::category(&b),
            "categories differ for {:?}: {a} / {b}",
            text(doc)
        ),
        (Ok(a), Err(b)) => panic!("accepted {:?} as {a:?}; serde_json: {b}", text(doc)),
        (Err(a), Ok(b)) => panic!("rejected {:?} ({a}); serde_json gave {b:?}", text(doc)),
    }
}

#[track_caller]
fn battery<T: Decode + DeserializeOwned + PartialEq + Debug>(docs: &[Vec<u8>]) {
    battery_depths::<T>(docs, &[128], Some(&serde_check::<T>));
}

fn docs(list: &[&str]) -> Vec<Vec<u8>> {
    list.iter().map(|s| s.as_bytes().to_vec()).collect()
}

/// `base`, every prefix of it, every one-byte deletion, every one-byte
/// replacement by a structural byte, and whitespace inserted at every offset.
fn mutations(base: &str) -> Vec<Vec<u8>> {
    let b = base.as_bytes();
    let mut out = vec![b.to_vec()];
    for n in 0..b.len() {
        out.push(b[..n].to_vec());
        let mut del = b.to_vec();
        del.remove(n);
        out.push(del);
        for c in [b'"', b'}', b',', b':', b'{', b'1', b'\\', b']'] {
            if b[n] != c {
                let mut rep = b.to_vec();
                rep[n] = c;
                out.push(rep);
            }
        }
        let mut ws = b.to_vec();
        ws.insert(n, b' ');
        out.push(ws);
    }
    out
}

/// Whether the JIT serves `T` without handing it to the interpreter whole.
#[track_caller]
fn assert_compiled<T: Decode>() {
    if !Backend::Jit.is_available() {
        return;
    }
    let name = std::any::type_name::<T>();
    let stats = jitson::stats();
    assert!(
        !stats.interpreted_layouts.iter().any(|(t, _)| t == name),
        "{name} handed to the interpreter: {:?}",
        stats.interpreted_layouts
    );
}

// ---------------------------------------------------------------------------
// Nested table-lowered structs (value_member walks their tables) with repeated, missing and
// unknown keys, at every level.

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct NLeaf {
    x: u32,
    s: Counted,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct NMid {
    leaf: NLeaf,
    #[serde(default)]
    opt: Option<NLeaf>,
    n: u8,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct NTop {
    a: NMid,
    b: NLeaf,
    c: Counted,
}

#[test]
fn nested_structs_repeated_missing_unknown() {
    let list = [
        r#"{"a":{"leaf":{"x":1,"s":"s"},"n":2},"b":{"x":3,"s":"t"},"c":"c"}"#,
        r#"{"c":"c","b":{"s":"t","x":3},"a":{"n":2,"opt":{"s":"o","x":9},"leaf":{"x":1,"s":"s"}}}"#,
        // repeated nested struct field, at each level
        r#"{"a":{"leaf":{"x":1,"s":"s"},"n":2},"b":{"x":3,"s":"t"},"b":{"x":4,"s":"u"},"c":"c"}"#,
        r#"{"a":{"leaf":{"x":1,"s":"s"},"leaf":{"x":1,"s":"s"},"n":2},"b":{"x":3,"s":"t"},"c":"c"}"#,
        r#"{"a":{"leaf":{"x":1,"s":"s","s":"z"},"n":2},"b":{"x":3,"s":"t"},"c":"c"}"#,
        r#"{"a":{"leaf":{"x":1,"s":"s"},"n":2},"a":{"leaf":{"x":1,"s":"s"},"n":2},"b":{"x":3,"s":"t"},"c":"c"}"#,
        r#"{"b":{"x":3,"s":"t"},"c":"c","b":{"x":3,"s":"t"}}"#,
        // missing required at each level
        r#"{"a":{"leaf":{"x":1},"n":2},"b":{"x":3,"s":"t"},"c":"c"}"#,
        r#"{"a":{"leaf":{"x":1,"s":"s"}},"b":{"x":3,"s":"t"},"c":"c"}"#,
        r#"{"a":{"leaf":{"x":1,"s":"s"},"n":2},"b":{"x":3,"s":"t"}}"#,
        r#"{"a":{"leaf":{"x":1,"s":"s"},"n":2},"c":"c"}"#,
        r#"{"a":{"leaf":{},"n":2},"b":{"x":3,"s":"t"},"c":"c"}"#,
        r#"{"a":{},"b":{},"c":"c"}"#,
        r#"{}"#,
        // unknown keys everywhere, with nested values
        r#"{"z":{"a":{"b":[1,{"c":null}]}},"a":{"q":[],"leaf":{"y":{},"x":1,"s":"s","w":"w"},"n":2,"r":1},"b":{"x":3,"s":"t","t":true},"c":"c","zz":0}"#,
        // wrong types for nested structs
        r#"{"a":null,"b":{"x":3,"s":"t"},"c":"c"}"#,
        r#"{"a":{"leaf":[1,"s"],"n":2},"b":{"x":3,"s":"t"},"c":"c"}"#,
        r#"{"a":{"leaf":"leaf","n":2},"b":{"x":3,"s":"t"},"c":"c"}"#,
        r#"{"a":{"leaf":{"x":1,"s":"s"},"n":2},"b":7,"c":"c"}"#,
        r#"{"a":{"leaf":{"x":1,"s":"s"},"n":256},"b":{"x":3,"s":"t"},"c":"c"}"#,
        r#"{"a":{"leaf":{"x":-1,"s":"s"},"n":2},"b":{"x":3,"s":"t"},"c":"c"}"#,
        // escaped keys naming nested struct fields
        r#"{"\u0061":{"le\u0061f":{"\u0078":1,"s":"s"},"n":2},"b":{"x":3,"s":"t"},"c":"c"}"#,
        r#"{"a":{"leaf":{"x":1,"s":"s"},"n":2},"\u0062":{"x":3,"s":"t"},"b":{"x":3,"s":"t"},"c":"c"}"#,
        // after a nested struct: trailing comma, missing comma, bad next key
        r#"{"a":{"leaf":{"x":1,"s":"s"},"n":2},"b":{"x":3,"s":"t"},}"#,
        r#"{"a":{"leaf":{"x":1,"s":"s"},"n":2} "b":{"x":3,"s":"t"},"c":"c"}"#,
        r#"{"a":{"leaf":{"x":1,"s":"s"},"n":2},"b":{"x":3,"s":"t"},c:"c"}"#,
        r#"{"a":{"leaf":{"x":1,"s":"s"},"n":2}]"#,
        r#"{"a" {"leaf":{"x":1,"s":"s"},"n":2}}"#,
        r#"{"a":{"leaf":{"x":1,"s":"s"},"n":2}}}"#,
    ];
    let mut all = docs(&list);
    all.extend(mutations(list[0]));
    all.extend(mutations(list[1]));
    battery::<NTop>(&all);
    assert_compiled::<NTop>();
}

// ---------------------------------------------------------------------------
// Whitespace everywhere, empty objects.

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct WEmpty {}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct WInner {
    k: Counted,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct WOuter {
    e: WEmpty,
    i: WInner,
    v: Vec<WInner>,
    o: Option<WInner>,
}

#[test]
fn whitespace_and_empty_objects() {
    let base = r#"{"e":{},"i":{"k":"a"},"v":[{"k":"b"},{"k":"c"}],"o":{"k":"d"}}"#;
    let mut all = Vec::new();
    for ws in [" ", "\n", "\t\r\n ", "  \n\n  "] {
        let spaced: String = base
            .chars()
            .flat_map(|c| {
                let mut s = String::new();
                if matches!(c, '{' | '}' | '[' | ']' | ',' | ':') {
                    s.push_str(ws);
                    s.push(c);
                    s.push_str(ws);
                } else {
                    s.push(c);
                }
                s.chars().collect::<Vec<_>>()
            })
            .collect();
        all.push(spaced.into_bytes());
    }
    all.extend(docs(&[
        r#"{"e":{ },"i":{"k":"a"},"v":[],"o":null}"#,
        r#"{"e":{"x":{}},"i":{"k":"a"},"v":[{"k":"b","k":"b"}],"o":null}"#,
        r#"{"e":{},"i":{"k":"a"},"v":[{}],"o":null}"#,
        r#"{"e":[],"i":{"k":"a"},"v":[],"o":null}"#,
        r#"{"e":{,},"i":{"k":"a"},"v":[],"o":null}"#,
        r#"{"e":{"":1},"i":{"k":"a"},"v":[],"o":null}"#,
        r#"{"e":{"x"},"i":{"k":"a"},"v":[],"o":null}"#,
        r#"{"e":{} ,"i":{"k":"a"} ,"v":[] ,"o":null }"#,
        r#"{"i":{"k":"a"},"e":{},"e":{},"v":[],"o":null}"#,
        r#"{"i":{"k":"a"},"v":[],"o":{}}"#,
        r#"{"i":{"k":"a"},"v":[],"o":{"k":"q"},"e":{}}"#,
        r#"{"e":{}}"#,
        r#"{ }"#,
        r#"{"i":{"k":"a"},"e":{}"#,
        r#"{"i":{"k":"a"},"e":{"#,
        r#"{"i":{"k":"a"},"e":"#,
        r#"{"i":{"k":"a"},"e""#,
    ]));
    all.extend(mutations(base));
    battery::<WOuter>(&all);
    battery::<WEmpty>(&docs(&[
        "{}",
        " { } ",
        "{\"a\":1}",
        "{\"a\"}",
        "{",
        "}",
        "[]",
        "{}}",
        "{\"a\":1,}",
    ]));
}

// ---------------------------------------------------------------------------
// Names of 14..=17, 31, 32 and 40 bytes: Words vs Bytes compares, keys that
// extend a name, documents ending right after (or inside) a key.

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Names {
    abcdefghijklmn: u8,
    abcdefghijklmno: u8,
    abcdefghijklmnop: u8,
    abcdefghijklmnopq: u8,
    abcdefghijklmnopqrstuvwxyz_01234: u8,
    abcdefghijklmnopqrstuvwxyz_012345: u8,
    #[serde(rename = "é_é_é_é_é_é_é_é")]
    accents: u8,
    #[serde(rename = "")]
    empty: Option<u8>,
    #[serde(rename = "a\"b")]
    quote: Option<u8>,
    #[serde(rename = "tab\tx")]
    tab: Option<u8>,
}

const NAMES: [&str; 6] = [
    "abcdefghijklmn",
    "abcdefghijklmno",
    "abcdefghijklmnop",
    "abcdefghijklmnopq",
    "abcdefghijklmnopqrstuvwxyz_01234",
    "abcdefghijklmnopqrstuvwxyz_012345",
];

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct NamesOuter {
    names: Names,
    #[serde(rename = "abcdefghijklmnopqrstuvwxyz")]
    long_nested: NLeafOnly,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct NLeafOnly {
    abcdefghijklmno: u8,
}

#[test]
fn names_at_word_boundaries() {
    let full: Vec<String> = NAMES
        .iter()
        .enumerate()
        .map(|(i, n)| format!("\"{n}\":{i}"))
        .chain(["\"é_é_é_é_é_é_é_é\":7".to_string()])
        .collect();
    let base = format!("{{{}}}", full.join(","));
    let mut all = vec![base.clone().into_bytes()];
    // every prefix (ends inside and right after every key)
    for n in 0..base.len() {
        all.push(base.as_bytes()[..n].to_vec());
    }
    // keys that extend or shorten a name by one byte, or differ in the last byte
    for n in NAMES {
        for key in [
            format!("{n}x"),
            format!("{n} "),
            format!("{n}\\u0000"),
            n[..n.len() - 1].to_string(),
            format!("{}X", &n[..n.len() - 1]),
            format!("X{}", &n[1..]),
            format!("{n}\\\""),
        ] {
            let doc = base.replacen(&format!("\"{n}\""), &format!("\"{key}\""), 1);
            all.push(doc.clone().into_bytes());
            // and the key alone at the end of the document
            let cut = doc.find(&format!("\"{key}\"")).unwrap() + key.len() + 2;
            all.push(doc.as_bytes()[..cut].to_vec());
        }
        // escaped first letter
        all.push(
            base.replacen(&format!("\"{n}\""), &format!("\"\\u0061{}\"", &n[1..]), 1)
                .into_bytes(),
        );
        // repeated
        all.push(base.replacen('}', &format!(",\"{n}\":9}}"), 1).into_bytes());
    }
    for extra in [
        r#""":1"#,
        r#""a\"b":2"#,
        r#""tab\tx":3"#,
        r#""tab\u0009x":3"#,
        "\"tab\tx\":3",
        r#""a\u0022b":4"#,
        r#""":1,"":2"#,
    ] {
        all.push(base.replacen('{', &format!("{{{extra},"), 1).into_bytes());
    }
    battery::<Names>(&all);

    // The same names nested, and documents ending right after a long key.
    let outer =
        format!("{{\"names\":{base},\"abcdefghijklmnopqrstuvwxyz\":{{\"abcdefghijklmno\":1}}}}");
    let mut all = mutations(&outer);
    for end in [
        "\"abcdefghijklmnopqrstuvwxyz\"",
        "\"abcdefghijklmnopqrstuvwxyz",
        "\"abcdefghijklmno\"",
    ] {
        let cut = outer.rfind(end).unwrap() + end.len();
        all.push(outer.as_bytes()[..cut].to_vec());
    }
    battery::<NamesOuter>(&all);
}

// ---------------------------------------------------------------------------
// deny_unknown_fields, defaults, Option, skipped fields, aliases on nested
// structs.

fn mk_counted() -> Counted {
    Counted::new("made")
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct DStrict {
    a: Counted,
    #[serde(default)]
    b: Option<Counted>,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq, Default)]
struct DDefaulted {
    #[serde(default = "mk_counted")]
    d: Counted,
    #[serde(skip)]
    sk: Counted,
    #[serde(alias = "oo", alias = "o2")]
    o: Option<Counted>,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct DOuter {
    strict: DStrict,
    #[serde(default)]
    def: DDefaulted,
    opt: Option<DStrict>,
    #[serde(skip)]
    skipped: Counted,
    #[serde(alias = "list2")]
    list: Vec<DDefaulted>,
}

#[test]
fn strict_default_skip_alias_nested() {
    let list = [
        r#"{"strict":{"a":"a"},"opt":null,"list":[]}"#,
        r#"{"strict":{"a":"a","b":"b"},"def":{"d":"d","o":"o"},"opt":{"a":"x"},"list":[{},{"oo":"1"},{"o2":null}]}"#,
        r#"{"strict":{"a":"a","c":1},"opt":null,"list":[]}"#,
        r#"{"strict":{"c":1,"a":"a"},"opt":null,"list":[]}"#,
        r#"{"strict":{"a":"a"},"opt":{"a":"a","zz":[]},"list":[]}"#,
        r#"{"strict":{"a":"a","\u0061":"b"},"opt":null,"list":[]}"#,
        r#"{"strict":{"\u0063":1,"a":"a"},"opt":null,"list":[]}"#,
        r#"{"strict":{"a":"a","b":"b","b":null},"opt":null,"list":[]}"#,
        r#"{"strict":{"a":"a"},"def":{"sk":"no"},"opt":null,"list":[]}"#,
        r#"{"strict":{"a":"a"},"def":{"o":"1","oo":"2"},"opt":null,"list":[]}"#,
        r#"{"strict":{"a":"a"},"def":{"o2":"1","oo":"2"},"opt":null,"list":[]}"#,
        r#"{"strict":{"a":"a"},"def":{"d":"1","d":"2"},"opt":null,"list":[]}"#,
        r#"{"strict":{"a":"a"},"def":{},"def":{},"opt":null,"list":[]}"#,
        r#"{"strict":{"a":"a"},"skipped":"x","opt":null,"list":[]}"#,
        r#"{"strict":{"a":"a"},"skipped":{"deep":[1,2,{"x":"y"}]},"opt":null,"list2":[{}]}"#,
        r#"{"strict":{"a":"a"},"opt":null,"list":[],"list2":[]}"#,
        r#"{"strict":{"a":"a"},"opt":null}"#,
        r#"{"strict":{"a":"a"},"list":[]}"#,
        r#"{"opt":null,"list":[]}"#,
        r#"{"strict":{"a":1},"opt":null,"list":[]}"#,
        r#"{"strict":{"a":"a"},"def":{"d":1},"opt":null,"list":[]}"#,
        r#"{"strict":{"a":"a"},"def":{"o":1},"opt":null,"list":[]}"#,
        r#"{"strict":{"a":"a"},"def":null,"opt":null,"list":[]}"#,
    ];
    let mut all = docs(&list);
    all.extend(mutations(list[1]));
    battery::<DOuter>(&all);
}

// ---------------------------------------------------------------------------
// The same nested struct layout twice in one parent, a generic nested struct,
// and a struct that is both a root and nested.

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Pair<T> {
    l: T,
    r: T,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct PLeaf {
    v: Counted,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct PTop {
    p: Pair<PLeaf>,
    q: Pair<Pair<PLeaf>>,
    one: PLeaf,
}

#[test]
fn same_layout_many_fields() {
    let base = r#"{"p":{"l":{"v":"1"},"r":{"v":"2"}},"q":{"l":{"l":{"v":"3"},"r":{"v":"4"}},"r":{"l":{"v":"5"},"r":{"v":"6"}}},"one":{"v":"7"}}"#;
    let mut all = mutations(base);
    all.extend(docs(&[
        r#"{"p":{"l":{"v":"1"},"l":{"v":"2"}},"q":{"l":{"l":{"v":"3"},"r":{"v":"4"}},"r":{"l":{"v":"5"},"r":{"v":"6"}}},"one":{"v":"7"}}"#,
        r#"{"p":{"r":{"v":"1"},"l":{"v":"2"}},"q":{"r":{"r":{"v":"3"},"l":{"v":"4"}},"l":{"r":{"v":"5"},"l":{"v":"6"}}},"one":{"v":"7"}}"#,
        r#"{"p":{"l":{"v":"1"},"r":{"v":"2"}},"q":{"l":{"l":{"v":"3"},"r":{"v":"4"}},"r":{"l":{"v":"5"},"r":{"v":"6","v":"6"}}},"one":{"v":"7"}}"#,
    ]));
    battery::<PTop>(&all);
    battery::<PLeaf>(&docs(&[r#"{"v":"x"}"#, r#"{"v":"x","v":"y"}"#, r#"{}"#]));
    battery::<Pair<PLeaf>>(&docs(&[
        r#"{"l":{"v":"x"},"r":{"v":"y"}}"#,
        r#"{"l":{"v":"x"}}"#,
    ]));
}

// ---------------------------------------------------------------------------
// Flatten (not table-lowered) next to and inside table-lowered structs.

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct FInner {
    a: u8,
    b: Counted,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct FFlat {
    #[serde(flatten)]
    inner: FInner,
    c: u8,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct FTop {
    f: FFlat,
    g: FInner,
    h: Option<FFlat>,
}

#[test]
fn flatten_inside_table_struct() {
    let base = r#"{"f":{"a":1,"b":"b","c":2},"g":{"a":3,"b":"x"},"h":{"c":4,"b":"y","a":5,"z":0}}"#;
    let mut all = mutations(base);
    all.extend(docs(&[
        r#"{"f":{"a":1,"b":"b","c":2,"a":1},"g":{"a":3,"b":"x"},"h":null}"#,
        r#"{"f":{"a":1,"c":2},"g":{"a":3,"b":"x"},"h":null}"#,
        r#"{"g":{"a":3,"b":"x"},"f":{"a":1,"b":"b","c":2},"g":{"a":3,"b":"x"},"h":null}"#,
    ]));
    battery::<FTop>(&all);
}

// ---------------------------------------------------------------------------
// Depth: chains of nested structs (walked by value_member, no member
// function) and recursive structs, at every max_depth around the document's.

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct C0 {
    c: C1,
    z: u8,
}
#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct C1 {
    c: C2,
}
#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct C2 {
    v: Vec<C3>,
    c: C3,
}
#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct C3 {
    c: Option<C4>,
}
#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct C4 {
    s: Counted,
    e: C5,
}
#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct C5 {}

#[test]
fn depth_limit_through_nested_members() {
    let list = [
        r#"{"c":{"c":{"v":[],"c":{"c":{"s":"x","e":{}}}}},"z":1}"#,
        r#"{"c":{"c":{"v":[{"c":{"s":"y","e":{}}}],"c":{"c":{"s":"x","e":{}}}}},"z":1}"#,
        r#"{"c":{"c":{"v":[{"c":null}],"c":{"c":{"s":"x","e":{"u":[[[[[]]]]]}}}}},"z":1}"#,
        r#"{"c":{"c":{"v":[],"c":{"c":{"s":"x","e":{}},"c":null}}},"z":1}"#,
        r#"{"c":{"c":{"v":[],"c":{"c":{"s":"x","e":[]}}}},"z":1}"#,
        r#"{"c":{"c":{"v":[],"c":{"c":{"s":"x"}}}},"z":1}"#,
        r#"{"z":1,"c":{"c":{"c":{"c":{"e":{},"s":"x"}},"v":[]}}}"#,
    ];
    let all = docs(&list);
    let depths: Vec<u32> = (1..=9).chain([128]).collect();
    battery_depths::<C0>(&all, &depths, Some(&serde_check::<C0>));
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Rec {
    v: u8,
    s: Option<Counted>,
    next: Option<Box<Rec>>,
    w: RecWrap,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct RecWrap {
    kids: Vec<Rec>,
}

/// `Rec` again, for the cut documents (a type of its own: `Rec`'s entry
/// serves Unrolled code after its battery).
#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct RecCut {
    v: u8,
    s: Option<Counted>,
    next: Option<Box<RecCut>>,
    w: RecCutWrap,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct RecCutWrap {
    kids: Vec<RecCut>,
}

fn rec_doc(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!(
            r#"{{"v":{},"s":"{i}","w":{{"kids":[]}},"next":"#,
            i % 200
        ));
    }
    s.push_str(r#"{"v":0,"next":null,"w":{"kids":[{"v":1,"w":{"kids":[]}}]}}"#);
    for _ in 0..n {
        s.push('}');
    }
    s
}

#[test]
fn recursive_near_depth_limit() {
    let docs: Vec<Vec<u8>> = [1, 2, 10, 60, 63, 64, 65, 126, 127, 128, 200, 255, 256]
        .iter()
        .map(|&n| rec_doc(n).into_bytes())
        .collect();
    battery_depths::<Rec>(
        &docs,
        &[128, 129, 130, 131, 256, 257, 258, 512],
        Some(&serde_check::<Rec>),
    );
    // Cut near the innermost object of a deep document.
    let deep = rec_doc(120);
    let at = deep.rfind(r#"{"v":0,"#).unwrap();
    let cuts: Vec<Vec<u8>> = (at - 20..at + 60)
        .map(|n| deep.as_bytes()[..n].to_vec())
        .collect();
    battery_depths::<RecCut>(&cuts, &[512], None);
}

// ---------------------------------------------------------------------------
// Stack exhaustion: deep documents on threads with small stacks; the result
// must be the interpreter's (both fail with a depth error, or both succeed).

#[derive(jitson::Decode, Debug, PartialEq)]
struct SNode {
    a: u8,
    n: Option<Box<SNode>>,
    m: SMid,
}

#[derive(jitson::Decode, Debug, PartialEq)]
struct SMid {
    k: Option<Box<SNode>>,
}

fn snode_doc(n: usize) -> String {
    // Alternates next-level through `n` and through the nested struct `m.k`.
    let mut s = String::new();
    for i in 0..n {
        if i % 2 == 0 {
            s.push_str(r#"{"a":1,"m":{"k":null},"n":"#);
        } else {
            s.push_str(r#"{"a":2,"n":null,"m":{"k":"#);
        }
    }
    s.push_str(r#"{"a":0,"n":null,"m":{"k":null}}"#);
    for i in (0..n).rev() {
        if i % 2 == 0 {
            s.push('}');
        } else {
            s.push_str("}}");
        }
    }
    s
}

#[test]
fn small_stacks() {
    let docs: Vec<Vec<u8>> = [50, 100, 200, 300]
        .iter()
        .map(|&n| snode_doc(n).into_bytes())
        .collect();
    let deep = |d: Decoder<SNode>| d.max_depth(512);
    // The values, decoded on this (large) stack.
    let want: Vec<Result<SNode, ErrorShape>> = docs
        .iter()
        .map(|doc| deep(interp()).decode_slice(doc).map_err(|e| shape(&e)))
        .collect();
    let want = std::sync::Arc::new(want);
    for stack in [
        96 << 10,
        128 << 10,
        192 << 10,
        256 << 10,
        512 << 10,
        1 << 20,
    ] {
        let (docs, want) = (docs.clone(), want.clone());
        std::thread::Builder::new()
            .stack_size(stack)
            .spawn(move || {
                let mut makes: Vec<NamedDecoder<SNode>> = vec![("interp", interp::<SNode>)];
                if Backend::Jit.is_available() {
                    makes.push(("table", table::<SNode>));
                    makes.push(("unrolled", unrolled::<SNode>));
                }
                for (name, make) in makes {
                    for (doc, w) in docs.iter().zip(want.iter()) {
                        for (entry, got) in both(deep(make()), doc) {
                            // Where the stack check stops a document may differ
                            // between backends (docs/semantics.md); a value must
                            // be the right one.
                            match (&got, w) {
                                (Ok(v), Ok(w)) => {
                                    assert!(v == w, "{name}/{entry} stack {stack}: wrong value")
                                }
                                (Err(e), _) => assert_eq!(
                                    e.kind(),
                                    jitson::ErrorKind::DepthLimit,
                                    "{name}/{entry} stack {stack}: {e}"
                                ),
                                (Ok(_), Err(w)) => {
                                    panic!("{name}/{entry} stack {stack}: accepted, expected {w:?}")
                                }
                            }
                        }
                    }
                }
            })
            .unwrap()
            .join()
            .unwrap();
    }
}

// ---------------------------------------------------------------------------
// Panicking Drop and Default inside nested table-lowered structs, on every
// give-up path.

#[derive(Debug, PartialEq)]
pub struct BoomDefault(u8);

impl Default for BoomDefault {
    fn default() -> Self {
        if panic_drop_armed() {
            panic!("table default boom");
        }
        BoomDefault(5)
    }
}

#[derive(jitson::Decode, Debug, PartialEq)]
struct BInner {
    b: PanicDrop,
    #[jitson(default)]
    d: Option<u8>,
}

#[derive(jitson::Decode, Debug, PartialEq)]
struct BDefInner {
    x: PanicDrop,
    #[jitson(skip)]
    sk: BoomDefault,
}

#[derive(jitson::Decode, Debug, PartialEq)]
struct BOuter {
    first: PanicDrop,
    inner: BInner,
    def: Option<BDefInner>,
    last: u8,
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// Decodes `doc` with each backend; all must agree on the outcome (value,
/// error, or a panic with the same message), with no leak.
fn agree_with_panics<T: Decode + PartialEq + Debug>(doc: &str) {
    let run = |d: Decoder<T>| {
        let before = live();
        let r = catch_unwind(AssertUnwindSafe(|| d.decode_str(doc)));
        let out = match r {
            Ok(Ok(v)) => format!("ok {v:?}"),
            Ok(Err(e)) => format!("err {:?}", shape(&e)),
            Err(p) => format!("panic {}", panic_text(&*p)),
        };
        assert_eq!(live(), before, "leak or double drop for {doc}: {out}");
        out
    };
    let reference = run(interp());
    if Backend::Jit.is_available() {
        assert_eq!(run(table()), reference, "table for {doc}");
    }
}

fn agree_unrolled<T: Decode + PartialEq + Debug>(doc: &str) {
    let run = |d: Decoder<T>| {
        let before = live();
        let r = catch_unwind(AssertUnwindSafe(|| d.decode_str(doc)));
        let out = match r {
            Ok(Ok(v)) => format!("ok {v:?}"),
            Ok(Err(e)) => format!("err {:?}", shape(&e)),
            Err(p) => format!("panic {}", panic_text(&*p)),
        };
        assert_eq!(live(), before, "leak or double drop for {doc}: {out}");
        out
    };
    if Backend::Jit.is_available() {
        assert_eq!(run(unrolled()), run(interp()), "unrolled for {doc}");
    }
}

#[test]
fn panicking_drop_and_default_in_nested() {
    let docs = [
        r#"{"first":"a","inner":{"b":"x"},"def":null,"last":1}"#,
        // repeated key after a nested struct holding a bomb
        r#"{"first":"a","inner":{"b":"boom"},"inner":{"b":"x"},"def":null,"last":1}"#,
        r#"{"first":"a","inner":{"b":"boom"},"def":null,"last":1,"last":1}"#,
        r#"{"first":"a","inner":{"b":"boom","b":"x"},"def":null,"last":1}"#,
        r#"{"first":"boom","inner":{"b":"x","d":1,"d":2},"def":null,"last":1}"#,
        // missing required field after a nested struct with a bomb
        r#"{"first":"a","inner":{"b":"boom"},"def":null}"#,
        r#"{"first":"boom","inner":{"d":1},"def":null,"last":1}"#,
        // failed value after one
        r#"{"first":"a","inner":{"b":"boom"},"def":null,"last":"x"}"#,
        r#"{"first":"a","inner":{"b":"boom","d":"x"},"def":null,"last":1}"#,
        // malformed after one
        r#"{"first":"a","inner":{"b":"boom"} "def":null,"last":1}"#,
        r#"{"first":"a","inner":{"b":"boom"},}"#,
        r#"{"first":"a","inner":{"b":"boom",},"def":null,"last":1}"#,
        // trailing garbage after a bomb: the facade drops the JIT's value
        r#"{"first":"boom","inner":{"b":"x"},"def":null,"last":1}x"#,
        // the skipped field's Default panics
        r#"{"first":"a","inner":{"b":"x"},"def":{"x":"y"},"last":1}"#,
        r#"{"first":"a","inner":{"b":"x"},"def":{"x":"boom"},"last":1}"#,
        r#"{"first":"boom","inner":{"b":"boom"},"def":{"x":"boom"},"last":1}"#,
        r#"{"first":"boom","inner":{"b":"boom"},"def":{"x":"boom","x":"y"},"last":1}"#,
    ];
    for armed in [true, false] {
        arm_panic_drop(armed);
        for doc in docs {
            agree_with_panics::<BOuter>(doc);
        }
    }
    for armed in [true, false] {
        arm_panic_drop(armed);
        for doc in docs {
            agree_unrolled::<BOuter>(doc);
        }
    }
    arm_panic_drop(true);
}

// ---------------------------------------------------------------------------
// 64 fields, the last a nested struct; bit 63 on every path.

macro_rules! wide {
    ($name:ident, $last:ty; $($f:ident),*) => {
        #[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
        struct $name {
            $( #[serde(default)] $f: Option<u8>, )*
            last: $last,
        }
    };
}

wide!(Wide64, NLeafW;
    f00, f01, f02, f03, f04, f05, f06, f07, f08, f09, f10, f11, f12, f13, f14, f15,
    f16, f17, f18, f19, f20, f21, f22, f23, f24, f25, f26, f27, f28, f29, f30, f31,
    f32, f33, f34, f35, f36, f37, f38, f39, f40, f41, f42, f43, f44, f45, f46, f47,
    f48, f49, f50, f51, f52, f53, f54, f55, f56, f57, f58, f59, f60, f61, f62);

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct NLeafW {
    s: Counted,
}

#[test]
fn sixty_four_fields_last_nested() {
    let mut all = docs(&[
        r#"{"last":{"s":"x"}}"#,
        r#"{"last":{"s":"x"},"last":{"s":"y"}}"#,
        r#"{"f62":1,"last":{"s":"x"},"f62":2}"#,
        r#"{"last":{"s":"x"},"f00":1,"f00":1}"#,
        r#"{"last":{"s":"x"},"f63":1}"#,
        r#"{"f00":1}"#,
        r#"{"last":{}}"#,
        r#"{"last":{"s":"x"},"f01":"x"}"#,
    ]);
    let full: Vec<String> = (0..63).map(|i| format!("\"f{i:02}\":{i}")).collect();
    all.push(format!("{{{},\"last\":{{\"s\":\"x\"}}}}", full.join(",")).into_bytes());
    all.push(format!("{{\"last\":{{\"s\":\"x\"}},{}}}", full.join(",")).into_bytes());
    all.push(
        format!(
            "{{\"last\":{{\"s\":\"x\"}},{},\"last\":{{\"s\":\"x\"}}}}",
            full.join(",")
        )
        .into_bytes(),
    );
    battery::<Wide64>(&all);
    assert_compiled::<Wide64>();
}

// ---------------------------------------------------------------------------
// Random documents: mostly well-formed objects of a rich type with keys in
// random order, repeated, missing, unknown, escaped, long; random whitespace;
// some cut or with one byte changed.

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct ZLeaf {
    a: u8,
    s: Counted,
    #[serde(default)]
    o: Option<Counted>,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct ZStrict {
    k: u16,
    #[serde(default)]
    leaf: Option<ZLeaf>,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
enum ZEnum {
    Unit,
    Tuple(ZLeaf),
    Named { x: u8, leaf: ZLeaf },
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Z {
    leaf: ZLeaf,
    #[serde(default)]
    strict: Option<ZStrict>,
    list: Vec<ZLeaf>,
    abcdefghijklmnop: ZLeaf,
    abcdefghijklmno: ZStrict,
    #[serde(default)]
    n: u32,
    e: ZEnum,
    m: std::collections::BTreeMap<String, ZLeaf>,
    t: (ZLeaf, u8),
}

struct Rng(u64, u64);

impl Rng {
    /// A hostile choice: `percent` scaled by the document's hostility.
    fn hostile(&mut self, percent: u64) -> bool {
        self.below(10000) < percent * self.1
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

fn ws(r: &mut Rng) -> &'static str {
    match r.below(12) {
        0 => " ",
        1 => "\n",
        2 => " \t\r\n ",
        _ => "",
    }
}

fn key(r: &mut Rng, name: &str) -> String {
    if r.hostile(8) && !name.is_empty() {
        // escape one character
        let i = r.below(name.len() as u64) as usize;
        let c = name.as_bytes()[i];
        return format!("\"{}\\u{:04x}{}\"", &name[..i], c, &name[i + 1..]);
    }
    if r.hostile(3) {
        return format!("\"{name}x\"");
    }
    if r.hostile(3) && name.len() > 1 {
        return format!("\"{}\"", &name[..name.len() - 1]);
    }
    format!("\"{name}\"")
}

fn object(r: &mut Rng, fields: &[FieldGen<'_>], depth: u32) -> String {
    let mut members: Vec<String> = Vec::new();
    for (name, value) in fields {
        if r.hostile(6) {
            continue;
        }
        let n = if r.hostile(4) { 2 } else { 1 };
        for _ in 0..n {
            members.push(format!(
                "{}{}{}:{}{}",
                ws(r),
                key(r, name),
                ws(r),
                ws(r),
                value(r)
            ));
        }
    }
    if r.chance(10) {
        members.push(format!("\"unk{}\":{}", r.below(3), junk(r, depth)));
    }
    // shuffle a little
    if r.chance(40) && members.len() > 1 {
        for _ in 0..members.len() {
            let i = r.below(members.len() as u64) as usize;
            let j = r.below(members.len() as u64) as usize;
            members.swap(i, j);
        }
    }
    format!("{{{}{}{}}}", ws(r), members.join(","), ws(r))
}

fn junk(r: &mut Rng, depth: u32) -> String {
    match r.below(if depth > 3 { 4 } else { 6 }) {
        0 => "null".into(),
        1 => format!("{}", r.below(1000)),
        2 => "\"j\\n\"".into(),
        3 => "true".into(),
        4 => format!("[{},{}]", junk(r, depth + 1), junk(r, depth + 1)),
        _ => format!("{{\"q\":{}}}", junk(r, depth + 1)),
    }
}

fn num(r: &mut Rng, max: u64) -> String {
    if r.hostile(3) {
        return "\"1\"".into();
    }
    if r.hostile(2) {
        return format!("{}", max + 1);
    }
    format!("{}", r.below(max + 1))
}

fn text_value(r: &mut Rng) -> String {
    if r.hostile(10) {
        return if r.chance(50) {
            "null".into()
        } else {
            "7".into()
        };
    }
    match r.below(20) {
        2 => "\"\\u00e9t\\u00e9\"".into(),
        _ => format!("\"s{}\"", r.below(100)),
    }
}

fn zleaf(r: &mut Rng) -> String {
    if r.hostile(2) {
        return junk(r, 3);
    }
    object(
        r,
        &[
            ("a", &|r: &mut Rng| num(r, 255)),
            ("s", &text_value),
            ("o", &|r: &mut Rng| {
                if r.chance(50) {
                    "null".into()
                } else {
                    text_value(r)
                }
            }),
        ],
        2,
    )
}

fn zstrict(r: &mut Rng) -> String {
    object(
        r,
        &[
            ("k", &|r: &mut Rng| num(r, 65535)),
            ("leaf", &|r: &mut Rng| {
                if r.chance(30) {
                    "null".into()
                } else {
                    zleaf(r)
                }
            }),
        ],
        2,
    )
}

fn zdoc(r: &mut Rng) -> String {
    object(
        r,
        &[
            ("leaf", &zleaf),
            ("strict", &|r: &mut Rng| {
                if r.chance(30) {
                    "null".into()
                } else {
                    zstrict(r)
                }
            }),
            ("list", &|r: &mut Rng| {
                let n = r.below(4);
                let items: Vec<String> = (0..n).map(|_| zleaf(r)).collect();
                format!("[{}]", items.join(","))
            }),
            ("abcdefghijklmnop", &zleaf),
            ("abcdefghijklmno", &zstrict),
            ("n", &|r: &mut Rng| num(r, u32::MAX as u64)),
            ("e", &|r: &mut Rng| match r.below(4) {
                0 => "\"Unit\"".into(),
                1 => format!("{{\"Tuple\":{}}}", zleaf(r)),
                2 => format!(
                    "{{\"Named\":{{\"leaf\":{},\"x\":{}}}}}",
                    zleaf(r),
                    num(r, 255)
                ),
                _ => format!(
                    "{{\"Named\":{}}}",
                    object(r, &[("x", &|r: &mut Rng| num(r, 255)), ("leaf", &zleaf)], 2)
                ),
            }),
            ("m", &|r: &mut Rng| {
                let n = r.below(3);
                let items: Vec<String> = (0..n).map(|i| format!("\"k{i}\":{}", zleaf(r))).collect();
                format!("{{{}}}", items.join(","))
            }),
            ("t", &|r: &mut Rng| {
                format!("[{},{}]", zleaf(r), num(r, 255))
            }),
        ],
        1,
    )
}

fn random_docs(seed: u64, n: usize) -> Vec<Vec<u8>> {
    let mut r = Rng(seed, 0);
    let mut out = Vec::new();
    for _ in 0..n {
        r.1 = [0, 0, 5, 20, 100][r.below(5) as usize];
        let doc = zdoc(&mut r).into_bytes();
        match r.below(if r.1 == 0 { 40 } else { 10 }) {
            0 => {
                let cut = r.below(doc.len() as u64) as usize;
                out.push(doc[..cut].to_vec());
            }
            1 => {
                let mut d = doc.clone();
                let i = r.below(d.len() as u64) as usize;
                d[i] = b"\"{}[],: 1\\x"[r.below(11) as usize];
                out.push(d);
            }
            _ => out.push(doc),
        }
    }
    out
}

#[test]
fn random_documents() {
    let n = std::env::var("TABLE_TIER_RANDOM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let seed = std::env::var("TABLE_TIER_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    let docs = random_docs(seed, n);
    let ok = docs
        .iter()
        .filter(|d| interp::<Z>().decode_slice(d).is_ok())
        .count();
    eprintln!("random_documents: {ok} of {} decode", docs.len());
    battery::<Z>(&docs);
    assert_compiled::<Z>();
}

// ---------------------------------------------------------------------------
// Promotion: many threads decode a hot type (nested table-lowered structs,
// `Counted` values) while it is promoted to the unrolled tier; documents in
// two key orders (so `Auto` threads may also re-learn), malformed ones, and
// ones that bail in the middle. Every result must be the interpreter's, on
// every thread, before, during and after the switch; nothing leaks.

#[derive(jitson::Decode, Deserialize, Debug, PartialEq, Clone)]
struct HPoint {
    x: i64,
    label: String,
    #[serde(default)]
    tag: Option<String>,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct HRow {
    point: HPoint,
    other: HPoint,
    c: Counted,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct HHot {
    id: u64,
    rows: Vec<HRow>,
    head: HPoint,
}

fn hot_doc(n: usize, reversed: bool) -> String {
    let rows: Vec<String> = (0..n)
        .map(|i| {
            let p = format!(r#"{{"x":{i},"label":"p{i}","tag":"t"}}"#);
            let q = format!(r#"{{"tag":null,"label":"q{i}","x":-{}}}"#, i + 1);
            if reversed {
                format!(r#"{{"c":"c{i}","other":{q},"point":{p}}}"#)
            } else {
                format!(r#"{{"point":{p},"other":{q},"c":"c{i}"}}"#)
            }
        })
        .collect();
    if reversed {
        format!(
            r#"{{"head":{{"x":1,"label":"h"}},"rows":[{}],"id":7}}"#,
            rows.join(",")
        )
    } else {
        format!(
            r#"{{"id":7,"rows":[{}],"head":{{"x":1,"label":"h"}}}}"#,
            rows.join(",")
        )
    }
}

#[test]
fn promotion_while_many_threads_decode() {
    let _serial = PROMOTION_COUNT.lock().unwrap_or_else(|p| p.into_inner());
    if !Backend::Jit.is_available() {
        return;
    }
    let forced = std::env::var_os("JITSON_STRUCTS").is_some();
    let good = [hot_doc(1500, false), hot_doc(1500, true)];
    let mut bad = vec![
        // a type error deep inside
        good[0].replacen(r#""label":"p1400""#, r#""label":1400"#, 1),
        // a repeated nested struct deep inside (bails, then succeeds)
        good[0].replacen(
            r#""c":"c1200"}"#,
            r#""c":"c1200","other":{"x":0,"label":""}}"#,
            1,
        ),
        // a missing required field in a nested struct
        good[1].replacen(r#""label":"q900","#, "", 1),
        // cut inside a key near the end
        good[0][..good[0].len() - 30].to_string(),
        // an unknown key and a trailing comma
        good[1].replacen(r#""c":"c5","#, r#""zz":{"a":[1,2]},"c":"c5","#, 1),
        good[0].replacen(r#""c":"c7"}"#, r#""c":"c7",}"#, 1),
    ];
    bad.push(format!("{} x", good[0]));
    let all: Vec<String> = good.iter().chain(&bad).cloned().collect();
    let reference: Vec<Result<String, ErrorShape>> = all
        .iter()
        .map(|d| {
            interp::<HHot>()
                .decode_str(d)
                .map(|v| format!("{v:?}"))
                .map_err(|e| shape(&e))
        })
        .collect();
    assert!(
        reference[0].is_ok() && reference[1].is_ok(),
        "{:?}",
        &reference[..2]
    );
    let before = jitson::stats();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(240);
    std::thread::scope(|s| {
        for t in 0..4 {
            let (all, reference) = (&all, &reference);
            let before = before.clone();
            s.spawn(move || {
                let decoder = match t {
                    0 | 1 => table::<HHot>(),
                    _ => Decoder::<HHot>::with_backend(Backend::Auto).tiering(Tiering::Background),
                };
                let mut after = 0;
                let mut n = 0usize;
                while after < 30 && n < 3000 && std::time::Instant::now() < deadline {
                    let i = if n % 5 == 4 {
                        2 + (n / 5 + t) % (all.len() - 2)
                    } else {
                        (n + t) % 2
                    };
                    let live0 = live();
                    let got = decoder
                        .decode_str(&all[i])
                        .map(|v| format!("{v:?}"))
                        .map_err(|e| shape(&e));
                    assert_eq!(live(), live0, "thread {t}: leak for doc {i} (decode {n})");
                    match (&got, &reference[i]) {
                        (Ok(a), Ok(b)) => assert!(
                            a == b,
                            "thread {t}: doc {i} decoded differently (decode {n})"
                        ),
                        (a, b) => assert_eq!(
                            a.as_ref().err(),
                            b.as_ref().err(),
                            "thread {t}: doc {i} (decode {n})"
                        ),
                    }
                    n += 1;
                    if jitson::stats().promotions > before.promotions {
                        after += 1;
                    }
                }
            });
        }
    });
    let after = jitson::stats();
    assert_eq!(
        after.compile_failures.len(),
        before.compile_failures.len(),
        "{after:#?}"
    );
    if forced {
        assert_eq!(after.promotions, before.promotions);
    } else {
        assert_eq!(after.promotions - before.promotions, 1, "{after:#?}");
    }
}

// ---------------------------------------------------------------------------
// Learned key orders (Backend::Auto, background tiering): the table
// speculates on the order of the first document, including nested structs;
// documents in other orders, with repeated keys and missing fields, must
// still decode as the interpreter does.

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct LInner {
    p: Counted,
    q: u8,
    r: Option<u8>,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct LOuter {
    a: LInner,
    b: u8,
    c: LInner,
    abcdefghijklmnopq: u8,
}

#[test]
fn learned_orders_with_nested_tables() {
    let first =
        r#"{"abcdefghijklmnopq":4,"c":{"r":1,"q":2,"p":"x"},"b":3,"a":{"q":5,"p":"y","r":null}}"#;
    let auto = || Decoder::<LOuter>::with_backend(Backend::Auto).tiering(Tiering::Background);
    let before = jitson::stats();
    let _ = auto().decode_str(first);
    if Backend::Jit.is_available() {
        // Wait (bounded) for the background compile with the learned order.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while jitson::stats().learned_key_orders == before.learned_key_orders
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
    let list = [
        first,
        r#"{"a":{"p":"y","q":5,"r":null},"b":3,"c":{"p":"x","q":2,"r":1},"abcdefghijklmnopq":4}"#,
        r#"{"abcdefghijklmnopq":4,"c":{"r":1,"q":2,"p":"x"},"b":3,"b":3,"a":{"q":5,"p":"y","r":null}}"#,
        r#"{"abcdefghijklmnopq":4,"c":{"r":1,"q":2,"p":"x","q":2},"b":3,"a":{"q":5,"p":"y","r":null}}"#,
        r#"{"abcdefghijklmnopq":4,"c":{"r":1,"p":"x"},"b":3,"a":{"q":5,"p":"y","r":null}}"#,
        r#"{"abcdefghijklmnopq":4,"c":{"q":2,"p":"x"},"b":3,"a":{"q":5,"p":"y"}}"#,
        r#"{"abcdefghijklmnopq":4,"c":{"r":1,"q":2,"p":"x"},"a":{"q":5,"p":"y","r":null}}"#,
        r#"{"abcdefghijklmnopq":4,"c":{"r":1,"zz":2,"q":2,"p":"x"},"b":3,"a":{"q":5,"p":"y","r":null},"x":1}"#,
        r#"{"abcdefghijklmnopq":4,"c":{"r":1,"q":2,"p":"x"},"b":3,"a":{"q":5,"p":"y","r":null}"#,
        r#"{"abcdefghijklmnopq":4,"c":{"r":1,"q":2,"p":"x"},"b":3,"a":{"q":5,"p":"y","r":null},}"#,
        r#"{"abcdefghijklmnopq" :4 , "c" : { "r" : 1 , "q" : 2 , "p" : "x" } , "b" : 3 , "a" : { "q" : 5 , "p" : "y" , "r" : null } }"#,
    ];
    for doc in list {
        let want = interp::<LOuter>().decode_str(doc).map_err(|e| shape(&e));
        for _ in 0..3 {
            let l = live();
            let got = auto().decode_str(doc);
            same("auto", doc.as_bytes(), &want, got);
            assert_eq!(live(), l);
        }
        if Backend::Jit.is_available() {
            same(
                "jit",
                doc.as_bytes(),
                &want,
                table::<LOuter>().decode_str(doc),
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Promotion of types a thread decodes alternately (a request type and a
// response type in one loop): each decodes far more than 32 MiB on compiled
// code, so each must be promoted.

/// Serialises the tests that count promotions (a process-wide counter).
static PROMOTION_COUNT: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[derive(jitson::Decode, Debug, PartialEq)]
struct AltA {
    id: u64,
    rows: Vec<AltRow>,
}

#[derive(jitson::Decode, Debug, PartialEq)]
struct AltB {
    rows: Vec<AltRow>,
    name: String,
}

#[derive(jitson::Decode, Debug, PartialEq)]
struct AltRow {
    x: i64,
    label: String,
}

#[test]
fn alternating_types_are_promoted() {
    let _serial = PROMOTION_COUNT.lock().unwrap_or_else(|p| p.into_inner());
    if !Backend::Jit.is_available() || std::env::var_os("JITSON_STRUCTS").is_some() {
        return;
    }
    let rows: Vec<String> = (0..8000)
        .map(|i| format!(r#"{{"x":{i},"label":"row{i}"}}"#))
        .collect();
    let a = format!(r#"{{"id":1,"rows":[{}]}}"#, rows.join(","));
    let b = format!(r#"{{"rows":[{}],"name":"b"}}"#, rows.join(","));
    let before = jitson::stats().promotions;
    let (da, db) = (table::<AltA>(), table::<AltB>());
    let mut decoded = 0usize;
    // 3 x 32 MiB of each type, alternately.
    while decoded < 3 * (32 << 20) {
        assert_eq!(da.decode_str(&a).unwrap().rows.len(), 8000);
        assert_eq!(db.decode_str(&b).unwrap().rows.len(), 8000);
        decoded += a.len();
    }
    // The promotions run on a background worker: give them time.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while jitson::stats().promotions < before + 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(
        jitson::stats().promotions - before,
        2,
        "each type decoded {decoded} bytes on the baseline tier, alternately"
    );
}

#[derive(jitson::Decode, Debug, PartialEq)]
struct PerThread {
    rows: Vec<AltRow>,
}

/// A thread per request, each decoding one document of under 1 MiB: 96 MiB of
/// one type decoded on compiled code in all, so it must be promoted.
#[test]
fn short_lived_threads_promote() {
    let _serial = PROMOTION_COUNT.lock().unwrap_or_else(|p| p.into_inner());
    if !Backend::Jit.is_available() || std::env::var_os("JITSON_STRUCTS").is_some() {
        return;
    }
    let rows: Vec<String> = (0..20000)
        .map(|i| format!(r#"{{"x":{i},"label":"row{i}"}}"#))
        .collect();
    let doc = format!(r#"{{"rows":[{}]}}"#, rows.join(","));
    assert!(doc.len() < 1 << 20);
    let before = jitson::stats().promotions;
    let mut decoded = 0usize;
    while decoded < 3 * (32 << 20) {
        std::thread::scope(|s| {
            s.spawn(|| {
                assert_eq!(
                    table::<PerThread>().decode_str(&doc).unwrap().rows.len(),
                    20000
                )
            });
        });
        decoded += doc.len();
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while jitson::stats().promotions == before && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(
        jitson::stats().promotions - before,
        1,
        "{decoded} bytes decoded, one document per thread"
    );
}
