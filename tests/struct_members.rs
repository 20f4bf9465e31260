//! Hostile tests for the JIT struct functions (member functions, KeyTable /
//! match_key, fill_absent, Vec capacity hints). Every document is decoded by every
//! backend (Interpreter, Jit, Auto; slice and str) and by serde_json, which must
//! agree; types holding `Counted` also check that nothing leaks or is dropped twice.

mod common;

use std::cell::Cell;
use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};

use common::counted::{Counted, PanicDrop, live};
use common::oracle::agree;
use jitson::{Backend, Decode, Decoder};
use serde::Deserialize;
use serde::de::DeserializeOwned;

// ---------------------------------------------------------------------------
// `Counted` (tests/common/counted.rs) counts live instances on this thread,
// whether decoded by jitson or by serde_json, and defaults to a counted value.

thread_local! {
    static PANIC_DEFAULT: Cell<bool> = const { Cell::new(true) };
}

/// Backends + serde_json agree on `doc`, and no `Counted` leaks or is dropped twice.
#[track_caller]
fn check<T: Decode + DeserializeOwned + PartialEq + Debug>(doc: &[u8]) -> bool {
    let before = live();
    let ok = agree::<T>(doc).is_ok();
    assert_eq!(
        live(),
        before,
        "leak or double drop for {:?}",
        String::from_utf8_lossy(doc)
    );
    ok
}

#[track_caller]
fn check_str<T: Decode + DeserializeOwned + PartialEq + Debug>(doc: &str) -> bool {
    check::<T>(doc.as_bytes())
}

/// Every prefix of `doc` (and `doc` itself) through `check`.
#[track_caller]
fn check_prefixes<T: Decode + DeserializeOwned + PartialEq + Debug>(doc: &[u8]) {
    for n in 0..=doc.len() {
        check::<T>(&doc[..n]);
    }
}

/// Asserts the JIT really compiled (and does not hand over whole) the type.
#[track_caller]
fn assert_jit_serves<T: Decode>() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<T>().expect("warm_up");
    let name = std::any::type_name::<T>();
    let stats = jitson::stats();
    assert!(
        !stats.interpreted_layouts.iter().any(|(t, _)| t == name),
        "{name} handed to the interpreter: {:?}",
        stats.interpreted_layouts
    );
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = vec![];
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

fn object(members: &[String]) -> String {
    format!("{{{}}}", members.join(","))
}

include!("struct_members_support/gen.rs");

// ---------------------------------------------------------------------------
// Keys in every order, subsets, duplicates, aliases.

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Five {
    a: u32,
    b: Counted,
    c: Option<Counted>,
    #[serde(default)]
    d: Vec<Counted>,
    #[serde(alias = "ee", alias = "e2")]
    e: String,
}

const FIVE: [(&str, &str); 5] = [
    ("a", "1"),
    ("b", "\"bee\""),
    ("c", "\"sea\""),
    ("d", "[\"x\",\"y\"]"),
    ("e", "\"e\""),
];

#[test]
fn five_every_order_subset_and_duplicate() {
    assert_jit_serves::<Five>();
    for p in permutations(5) {
        let members: Vec<String> = p
            .iter()
            .map(|&i| format!("\"{}\":{}", FIVE[i].0, FIVE[i].1))
            .collect();
        assert!(check_str::<Five>(&object(&members)));
        // Drop one member.
        for skip in 0..5 {
            let m: Vec<String> = members
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != skip)
                .map(|(_, m)| m.clone())
                .collect();
            check_str::<Five>(&object(&m));
        }
        // Repeat one member at every position.
        for dup in 0..5 {
            for at in 0..=5 {
                let mut m = members.clone();
                m.insert(at, members[dup].clone());
                assert!(!check_str::<Five>(&object(&m)));
            }
        }
        // An unknown key at every position.
        for at in 0..=5 {
            let mut m = members.clone();
            m.insert(at, "\"zz\":{\"a\":[1,2,{}]}".to_owned());
            assert!(check_str::<Five>(&object(&m)));
        }
    }
    // Aliases, and a duplicate through an alias.
    for e in ["e", "ee", "e2"] {
        check_str::<Five>(&format!(r#"{{"a":1,"b":"b","{e}":"x"}}"#));
        check_str::<Five>(&format!(r#"{{"{e}":"x","a":1,"b":"b"}}"#));
        for e2 in ["e", "ee", "e2"] {
            assert!(!check_str::<Five>(&format!(
                r#"{{"a":1,"b":"b","{e}":"x","{e2}":"y"}}"#
            )));
            assert!(!check_str::<Five>(&format!(
                r#"{{"{e}":"x","a":1,"{e2}":"y","b":"b"}}"#
            )));
        }
    }
    // Duplicates of an Option written as null, and of a defaulted field.
    assert!(!check_str::<Five>(
        r#"{"a":1,"b":"b","e":"","c":null,"c":"x"}"#
    ));
    assert!(!check_str::<Five>(
        r#"{"c":null,"a":1,"b":"b","e":"","c":null}"#
    ));
    assert!(!check_str::<Five>(
        r#"{"a":1,"b":"b","e":"","d":[],"d":["x"]}"#
    ));
}

#[test]
fn five_whitespace_everywhere() {
    let doc = r#"{"a":1,"b":"bee","c":"sea","d":["x"],"e":"e"}"#;
    let bytes = doc.as_bytes();
    for ws in [" ", "\n", "\t", "\r", " \n\t\r "] {
        for at in 0..=bytes.len() {
            let mut d = bytes[..at].to_vec();
            d.extend_from_slice(ws.as_bytes());
            d.extend_from_slice(&bytes[at..]);
            check::<Five>(&d);
        }
    }
}

/// Runs on both sides of sixteen and thirty-two bytes (the JIT tests a
/// member's run sixteen bytes at a time in line and calls a helper for the
/// last fifteen of the input), near the end of the input, and with a byte
/// below `' '` that is not whitespace inside them.
#[test]
fn five_whitespace_runs_of_every_length() {
    let doc = r#"{"a":1,"b":"bee","c":"sea","d":["x"],"e":"e"}"#;
    let bytes = doc.as_bytes();
    for len in 1..=40 {
        let pattern = b"\n \t\r     ";
        let run: Vec<u8> = (0..len).map(|i| pattern[i % pattern.len()]).collect();
        let mut stray = run.clone();
        stray[len / 2] = 0x0c;
        for ws in [run, stray] {
            for at in 0..=bytes.len() {
                let mut d = bytes[..at].to_vec();
                d.extend_from_slice(&ws);
                d.extend_from_slice(&bytes[at..]);
                check::<Five>(&d);
            }
        }
    }
}

#[test]
fn five_malformed_after_members() {
    for doc in [
        r#"{"a":1 "b":"b","e":""}"#,
        r#"{"a":1,"b":"b","e":"",}"#,
        r#"{"a":1,,"b":"b","e":""}"#,
        r#"{"a":1,x}"#,
        r#"{"a":1,"b":"b","e":""]"#,
        r#"{"a":1;"b":"b","e":""}"#,
        r#"{"a" 1,"b":"b","e":""}"#,
        r#"{"a"::1,"b":"b","e":""}"#,
        r#"{"b":"b","a":"1","e":""}"#,
        r#"{"b":"b","c":1,"a":1,"e":""}"#,
        r#"{"b":"b","d":["x",1],"a":1,"e":""}"#,
        r#"{"b":"b","d":["x","y"],"a":1,"e":"","zz":}"#,
        r#"{"b":"b","d":["x","y"],"a":1,"e":"","zz"}"#,
        r#"{"b":"b","d":["x","y"],"a":1,"e":"","zz":1"#,
        r#"{"b":"b","d":["x","y"],"a":1,"e":""}}"#,
        r#"{"b":"b","d":["x","y"],"a":1,"e":""} x"#,
        r#"{"b":"b","d":["x","y"],"a":1,"e":"",}"#,
        r#"{,"a":1}"#,
        r#"{"a":1,"b":"b","e":"", "b" }"#,
        r#"{"b":"b","b"}"#,
    ] {
        check_str::<Five>(doc);
    }
}

#[test]
fn five_truncated_at_every_byte() {
    check_prefixes::<Five>(
        br#"{"e2" : "\u00e9\n", "zz": [1, {"q": null}], "d": ["x", "y\"z"], "c": null, "b": "bee", "a": 4294967295}"#,
    );
    check_prefixes::<Vec<Five>>(
        br#"[{"a":1,"b":"b","e":"","d":["1"]},{"e":"","b":"b2","a":2,"c":"c"}]"#,
    );
}

// (An alias equal to another field's name is refused by the derive: good.)

// ---------------------------------------------------------------------------
// Names: non-ASCII, escapes, control characters, empty; escaped keys.

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Names {
    #[serde(rename = "héllo")]
    h: u32,
    #[serde(rename = "名前")]
    n: Option<String>,
    #[serde(rename = "a\"b")]
    q: Option<u32>,
    #[serde(rename = "tab\there")]
    t: Option<u32>,
    #[serde(rename = "")]
    empty: Option<u32>,
    #[serde(rename = "\u{1F600}")]
    emoji: Option<u32>,
    #[serde(rename = "back\\slash")]
    bs: Option<u32>,
    plain: Option<Counted>,
}

#[test]
fn names_non_ascii_escaped_control() {
    assert_jit_serves::<Names>();
    let docs: &[&[u8]] = &[
        br#"{"h\u00e9llo":1}"#,
        "{\"héllo\":1,\"名前\":\"x\"}".as_bytes(),
        "{\"名前\":\"x\",\"héllo\":1}".as_bytes(),
        br#"{"\u540d\u524d":"x","h\u00e9llo":1}"#,
        br#"{"a\"b":2,"h\u00e9llo":1}"#,
        br#"{"h\u00e9llo":1,"a\u0022b":2}"#,
        br#"{"tab\there":3,"h\u00e9llo":1}"#,
        b"{\"tab\there\":3,\"h\\u00e9llo\":1}",
        br#"{"":4,"h\u00e9llo":1}"#,
        br#"{"h\u00e9llo":1,"":4,"":5}"#,
        "{\"\u{1F600}\":6,\"héllo\":1}".as_bytes(),
        br#"{"\ud83d\ude00":6,"h\u00e9llo":1}"#,
        br#"{"\ud83d":6,"h\u00e9llo":1}"#,
        br#"{"back\\slash":7,"h\u00e9llo":1}"#,
        br#"{"\u0068\u00e9llo":1,"\u0070lain":"p"}"#,
        br#"{"plain":"p","\u0070lain":"p","h\u00e9llo":1}"#,
        br#"{"h\u00e9llo":1,"h\u00e9llo":1}"#,
        "{\"héllo\":1,\"h\\u00e9llo\":1}".as_bytes(),
        // Unknown keys: non-ASCII valid, invalid UTF-8, overlong, surrogates.
        "{\"hèllo\":1,\"héllo\":1}".as_bytes(),
        b"{\"h\xffllo\":1,\"h\xc3\xa9llo\":1}",
        b"{\"h\xc3\xa9llo\":1,\"h\xc3llo\":1}",
        b"{\"h\xc3\xa9llo\":1,\"\xc0\xaf\":1}",
        b"{\"h\xc3\xa9llo\":1,\"\xed\xa0\x80\":1}",
        b"{\"h\xc3\xa9llo\":1,\"\xf4\x90\x80\x80\":1}",
        b"{\"h\xc3\xa9llo\":1,\"plain\":\"\xff\"}",
        b"{\"h\xc3\xa9llo\":1,\"\xe5\x90\x8d\xe5\x89\x8d\xff\":\"x\"}",
        b"{\"\xe5\x90\x8d\xe5\x89\":\"x\",\"h\xc3\xa9llo\":1}",
        // Control characters raw in keys.
        b"{\"tab\there\":3,\"h\xc3\xa9llo\":1}",
        b"{\"h\xc3\xa9llo\":1,\"pl\x00ain\":\"p\"}",
        b"{\"h\xc3\xa9llo\":1,\"pl\x1fain\":\"p\"}",
        b"{\"h\xc3\xa9llo\":1,\"plain\x7f\":\"p\"}",
        br#"{"h\u00e9llo":1,"pl\u0000ain":"p"}"#,
        br#"{"h\u00e9llo":1,"pl\qain":"p"}"#,
        br#"{"h\u00e9llo":1,"pl\u00"}"#,
        // A key that is a prefix / extension of a name.
        br#"{"plai":"p","h\u00e9llo":1}"#,
        br#"{"plainx":"p","h\u00e9llo":1}"#,
        br#"{"h\u00e9llo":1,"plain":"p","plain\u0000":"p"}"#,
    ];
    for doc in docs {
        check::<Names>(doc);
        check::<Vec<Names>>(&[b"[", *doc, b",", *doc, b"]"].concat());
    }
    for doc in docs {
        check_prefixes::<Names>(doc);
    }
}

// ---------------------------------------------------------------------------
// Many fields: long common prefixes/suffixes, hash collisions, 64 and 65 fields.

fn big_doc(n: usize, order: &[usize]) -> String {
    let _ = n;
    object(
        &order
            .iter()
            .map(|i| format!("\"field_name_{i}\":{i}"))
            .collect::<Vec<_>>(),
    )
}

fn orders(n: usize) -> Vec<Vec<usize>> {
    let fwd: Vec<usize> = (0..n).collect();
    let rev: Vec<usize> = (0..n).rev().collect();
    let mut odd: Vec<usize> = (0..n).filter(|i| i % 2 == 1).collect();
    odd.extend((0..n).filter(|i| i % 2 == 0));
    let mut shuffled = fwd.clone();
    let mut x = 12345u64;
    for i in (1..n).rev() {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        shuffled.swap(i, (x >> 33) as usize % (i + 1));
    }
    vec![fwd, rev, odd, shuffled]
}

#[test]
fn sixty_fields() {
    assert_jit_serves::<Big60>();
    for order in orders(60) {
        assert!(check_str::<Big60>(&big_doc(60, &order)));
        // Missing one (required).
        for drop in [0, 31, 59] {
            let o: Vec<usize> = order.iter().copied().filter(|&i| i != drop).collect();
            assert!(!check_str::<Big60>(&big_doc(60, &o)));
        }
        // Duplicate one.
        for dup in [0, 31, 59] {
            let mut o = order.clone();
            o.insert(17, dup);
            assert!(!check_str::<Big60>(&big_doc(60, &o)));
        }
        // Near-miss unknown keys.
        let mut m: Vec<String> = order
            .iter()
            .map(|i| format!("\"field_name_{i}\":{i}"))
            .collect();
        for (k, unknown) in [
            "field_name_60",
            "field_name_",
            "field_name_00",
            "Field_name_1",
            "field_name_1 ",
        ]
        .iter()
        .enumerate()
        {
            m.insert(k * 7, format!("\"{unknown}\":[\"x\"]"));
        }
        assert!(check_str::<Big60>(&object(&m)));
    }
}

#[test]
fn sixty_four_and_sixty_five_fields() {
    assert_jit_serves::<Big64>();
    for order in orders(64) {
        check_str::<Big64>(&big_doc(64, &order));
        check_str::<Big64>(&big_doc(64, &order[..10]));
        let mut o = order.clone();
        o.push(63);
        assert!(!check_str::<Big64>(&big_doc(64, &o)));
        let mut o = order.clone();
        o.insert(0, 63);
        assert!(!check_str::<Big64>(&big_doc(64, &o)));
    }
    for order in orders(65) {
        check_str::<Big65>(&big_doc(65, &order));
        check_str::<Big65>(&big_doc(65, &order[..10]));
        let mut o = order.clone();
        o.push(64);
        assert!(!check_str::<Big65>(&big_doc(65, &o)));
    }
    check_str::<Big64>("{}");
    check_str::<Big65>("{}");
}

#[test]
fn sixty_four_fields_bit_63_drops() {
    assert_jit_serves::<Big64Live>();
    for doc in [
        r#"{"field_name_63":"x"}"#,
        r#"{"field_name_63":"x","field_name_63":"y"}"#,
        r#"{"field_name_63":"x","field_name_0":"bad"}"#,
        r#"{"field_name_0":1,"field_name_63":"x","field_name_62":-1}"#,
        r#"{"field_name_63":"x","field_name_62":1,"zz":}"#,
        r#"{"field_name_62":1,"field_name_63":"x","field_name_0":1,"field_name_63":"y"}"#,
        r#"{"field_name_62":1,"field_name_63":"x","field_name_0":1,"field_name_1":1 }"#,
        r#"{"field_name_62":1,"field_name_63":"x","field_name_0":1,"field_name_1":1 ,}"#,
        r#"{"field_name_0":1}"#,
    ] {
        check_str::<Big64Live>(doc);
        check_prefixes::<Big64Live>(doc.as_bytes());
    }
}

#[test]
fn long_prefix_and_colliding_names() {
    assert_jit_serves::<Prefixy>();
    assert_jit_serves::<SameHash>();
    let name = |i: usize| {
        format!(
            "a_very_long_common_prefix_xxxxxxxxxxxxxxxx_{i:02}_and_a_long_common_suffix_yyyyyyyy"
        )
    };
    for order in orders(24) {
        let m: Vec<String> = order
            .iter()
            .map(|&i| format!("\"{}\":{i}", name(i)))
            .collect();
        assert!(check_str::<Prefixy>(&object(&m)));
        let mut m2 = m.clone();
        m2.insert(3, format!("\"{}\":1", name(24)));
        m2.insert(5, format!("\"{}\":1", name(99)));
        assert!(check_str::<Prefixy>(&object(&m2)));
        let mut m3 = m.clone();
        m3.insert(20, format!("\"{}\":1", name(order[2])));
        assert!(!check_str::<Prefixy>(&object(&m3)));
    }
    let sname = |i: usize| format!("prefix00_{i:03}_suffix00");
    for order in orders(40) {
        let m: Vec<String> = order
            .iter()
            .map(|&i| format!("\"{}\":{i}", sname(i)))
            .collect();
        assert!(check_str::<SameHash>(&object(&m)));
        let mut m2 = m.clone();
        for (k, miss) in [40usize, 41, 100, 999].iter().enumerate() {
            m2.insert(k * 3, format!("\"{}\":{{}}", sname(*miss)));
        }
        assert!(check_str::<SameHash>(&object(&m2)));
        let mut m3 = m.clone();
        m3.push(format!("\"{}\":1", sname(order[0])));
        assert!(!check_str::<SameHash>(&object(&m3)));
    }
}

// ---------------------------------------------------------------------------
// deny_unknown_fields, empty structs, nested structs.

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Strict {
    a: Counted,
    #[serde(alias = "bb")]
    b: Option<u8>,
    #[serde(skip)]
    s: u32,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Empty {}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct EmptyStrict {}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Outer {
    strict: Option<Strict>,
    five: Vec<Five>,
    #[serde(default)]
    inner: Option<Box<Five>>,
    empty: Empty,
    tail: Counted,
}

#[test]
fn strict_empty_nested() {
    assert_jit_serves::<Outer>();
    for doc in [
        r#"{"a":"x"}"#,
        r#"{"b":1,"a":"x"}"#,
        r#"{"bb":1,"a":"x"}"#,
        r#"{"bb":1,"a":"x","b":2}"#,
        r#"{"a":"x","s":1}"#,
        r#"{"a":"x","c":1}"#,
        r#"{"c":1,"a":"x"}"#,
        r#"{"\u0061":"x","\u0063":1}"#,
        "{\"a\":\"x\",\"é\":1}",
    ] {
        check_str::<Strict>(doc);
    }
    for doc in [
        r#"{}"#,
        r#"{"x":1}"#,
        r#"{"x":1,"y":{}}"#,
        r#"{"x"}"#,
        r#"{"":1}"#,
    ] {
        check_str::<Empty>(doc);
        check_str::<EmptyStrict>(doc);
        check_str::<Vec<Empty>>(&format!("[{doc},{doc},{doc}]"));
    }
    let five = r#"{"a":1,"b":"b","e":"","d":["q"]}"#;
    let five_bad = r#"{"a":1,"b":"b","e":"","d":["q", 1]}"#;
    for doc in [
        format!(
            r#"{{"strict":{{"a":"s"}},"five":[{five},{five}],"inner":{five},"empty":{{}},"tail":"t"}}"#
        ),
        r#"{"tail":"t","empty":{"z":1},"inner":null,"five":[],"strict":null}"#.to_string(),
        format!(r#"{{"tail":"t","empty":{{}},"five":[{five}],"strict":{{"a":"s","c":1}}}}"#),
        format!(r#"{{"tail":"t","five":[{five},{five_bad}],"empty":{{}}}}"#),
        format!(r#"{{"five":[{five},{five}],"inner":{five_bad},"empty":{{}},"tail":"t"}}"#),
        format!(r#"{{"five":[{five},{five}],"inner":{five},"empty":{{}},"tail":1}}"#),
        format!(r#"{{"five":[{five},{five}],"inner":{five},"empty":{{}}}}"#),
        format!(r#"{{"five":[{five},{five}],"inner":{five},"empty":{{}},"tail":"t","five":[]}}"#),
    ] {
        check_str::<Outer>(&doc);
    }
    check_prefixes::<Outer>(
        format!(r#"{{"strict":{{"bb":3,"a":"s"}},"five":[{five},{five}],"inner":{five},"empty":{{"k":[1]}},"tail":"t"}}"#)
            .as_bytes(),
    );
}

// ---------------------------------------------------------------------------
// Defaults, skips, container default; a panicking default.

fn mk_live() -> Counted {
    Counted::new("made")
}

fn boom() -> Counted {
    if PANIC_DEFAULT.get() {
        panic!("review boom default")
    }
    Counted::new("no boom")
}

#[derive(Debug, PartialEq)]
struct PanicDefault(u8);

impl Default for PanicDefault {
    fn default() -> Self {
        if PANIC_DEFAULT.get() {
            panic!("review PanicDefault")
        }
        PanicDefault(9)
    }
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Defaults {
    #[serde(default = "mk_live")]
    a0: Counted,
    opt: Option<Counted>,
    #[serde(default)]
    v: Vec<Counted>,
    req: Counted,
    #[serde(default = "mk_live")]
    a1: Counted,
    #[serde(skip)]
    sk: Counted,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(default)]
struct ContainerDefault {
    a: Counted,
    b: u32,
    c: Option<Counted>,
}

impl Default for ContainerDefault {
    fn default() -> Self {
        ContainerDefault {
            a: Counted::new("cd"),
            b: 42,
            c: Some(Counted::new("cdc")),
        }
    }
}

#[test]
fn defaults_and_skips() {
    assert_jit_serves::<Defaults>();
    assert_jit_serves::<ContainerDefault>();
    for doc in [
        r#"{"req":"r"}"#,
        r#"{"a1":"x","req":"r","a0":"y"}"#,
        r#"{"req":"r","opt":"o","v":["1","2"]}"#,
        r#"{"req":"r","sk":"s"}"#,
        r#"{"req":"r","sk":"s","sk":"t"}"#,
        r#"{"opt":"o","v":["1"]}"#,
        r#"{"opt":"o","v":["1"],"a1":"z"}"#,
        r#"{"opt":"o","v":["1"],"req":1}"#,
        r#"{"req":"r","opt":"o","opt":null}"#,
        r#"{"req":"r","v":["1",2]}"#,
        r#"{}"#,
    ] {
        check_str::<Defaults>(doc);
        check_str::<ContainerDefault>(doc);
    }
    for doc in [
        r#"{"a":"x"}"#,
        r#"{"b":1,"c":null}"#,
        r#"{"c":"q","b":"x"}"#,
        r#"{"a":"x","a":"y"}"#,
    ] {
        check_str::<ContainerDefault>(doc);
    }
    check_prefixes::<Defaults>(br#"{"opt":"o","a1":"z","v":["1","2"],"req":"r","zz":1}"#);
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Boom {
    a: Counted,
    #[serde(default = "mk_live")]
    before: Counted,
    c: Option<Counted>,
    #[serde(default)]
    v: Vec<Counted>,
    #[serde(default = "boom")]
    b: Counted,
    #[serde(default = "mk_live")]
    after: Counted,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct BoomSkip {
    a: Counted,
    #[serde(default = "mk_live")]
    before: Counted,
    c: Option<Counted>,
    #[serde(skip)]
    s1: Counted,
    #[serde(skip)]
    s2: PanicDefault,
    #[serde(skip)]
    s3: Counted,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct BoomOuter {
    first: Counted,
    list: Vec<Boom>,
    skips: Vec<BoomSkip>,
    last: Option<Counted>,
}

/// Decodes with `backend`, expecting a panic whose message contains `message`.
#[track_caller]
fn expect_panic<T: Decode + Debug>(backend: Backend, json: &str, message: &str) {
    let before = live();
    let result = catch_unwind(AssertUnwindSafe(|| {
        Decoder::<T>::with_backend(backend).decode_str(json)
    }));
    let payload = match result {
        Ok(r) => panic!("{}: no panic for {json}: {r:?}", backend.name()),
        Err(p) => p,
    };
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(
        text.contains(message),
        "{}: payload {text:?}",
        backend.name()
    );
    assert_eq!(
        live(),
        before,
        "{}: leak or double drop for {json}",
        backend.name()
    );
}

#[test]
fn panicking_defaults() {
    assert_jit_serves::<BoomOuter>();
    for backend in common::backends() {
        PANIC_DEFAULT.set(true);
        expect_panic::<Boom>(backend, r#"{"a":"x"}"#, "review boom default");
        expect_panic::<Boom>(
            backend,
            r#"{"v":["1"],"a":"x","c":"c"}"#,
            "review boom default",
        );
        expect_panic::<BoomSkip>(backend, r#"{"a":"x"}"#, "review PanicDefault");
        expect_panic::<BoomSkip>(
            backend,
            r#"{"c":null,"a":"x","before":"b"}"#,
            "review PanicDefault",
        );
        let good = r#"{"a":"x","b":"y"}"#;
        let good_skip = r#"{"a":"x"}"#;
        expect_panic::<BoomOuter>(
            backend,
            &format!(
                r#"{{"first":"f","list":[{good},{good},{{"a":"x"}},{good}],"skips":[],"last":"l"}}"#
            ),
            "review boom default",
        );
        expect_panic::<BoomOuter>(
            backend,
            &format!(r#"{{"first":"f","list":[{good}],"skips":[{good_skip}],"last":"l"}}"#),
            "review PanicDefault",
        );
        expect_panic::<Vec<BoomOuter>>(
            backend,
            &format!(
                r#"[{{"first":"f","list":[{good}],"skips":[]}},{{"first":"f","list":[{good},{{"a":"q"}}],"skips":[]}}]"#
            ),
            "review boom default",
        );
        // Same decoders afterwards, defaults not panicking.
        PANIC_DEFAULT.set(false);
        let before = live();
        let v = Decoder::<BoomOuter>::with_backend(backend)
            .decode_str(&format!(
                r#"{{"first":"f","list":[{good},{{"a":"x"}}],"skips":[{good_skip}]}}"#
            ))
            .unwrap();
        assert_eq!(v.list[1].b.0, "no boom");
        assert_eq!(v.skips[0].s2, PanicDefault(9));
        drop(v);
        assert_eq!(live(), before);
        PANIC_DEFAULT.set(true);
    }
    PANIC_DEFAULT.set(false);
    check_str::<BoomOuter>(r#"{"first":"f","list":[{"a":"x"}],"skips":[{"a":"y"}]}"#);
    check_str::<BoomOuter>(r#"{"first":"f","list":[{"a":"x","b":1}],"skips":[{"a":"y"}]}"#);
    PANIC_DEFAULT.set(true);
}

// ---------------------------------------------------------------------------
// Vec capacity hints: wildly varying lengths, several threads.

#[derive(jitson::Decode, Deserialize, Debug, PartialEq, Clone)]
struct Small {
    x: u16,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Vecs {
    xs: Vec<u64>,
    ls: Vec<Counted>,
    ss: Vec<Small>,
    nested: Vec<Vec<u8>>,
    zst: Vec<Empty>,
}

#[derive(jitson::Decode, Debug, PartialEq)]
struct HugeVecs {
    huge: Vec<[u64; 9000]>,
    small: Vec<u64>,
}

fn vecs_doc(n: usize) -> String {
    let xs: Vec<String> = (0..n).map(|i| (i as u64 * 7919).to_string()).collect();
    let ls: Vec<String> = (0..n.min(5000)).map(|i| format!("\"{i}\"")).collect();
    let ss: Vec<String> = (0..n).map(|i| format!("{{\"x\":{}}}", i % 65536)).collect();
    let nested: Vec<String> = (0..n.min(300))
        .map(|i| format!("[{}]", vec!["1"; i % 17].join(",")))
        .collect();
    let zst: Vec<&str> = vec!["{}"; n.min(70000)];
    format!(
        r#"{{"xs":[{}],"ls":[{}],"ss":[{}],"nested":[{}],"zst":[{}]}}"#,
        xs.join(","),
        ls.join(","),
        ss.join(","),
        nested.join(","),
        zst.join(",")
    )
}

fn vecs_check(backend: Backend, n: usize, doc: &str) {
    let before = live();
    let v = Decoder::<Vecs>::with_backend(backend)
        .decode_str(doc)
        .unwrap_or_else(|e| panic!("{} n={n}: {e}", backend.name()));
    assert_eq!(v.xs.len(), n);
    assert!(v.xs.iter().enumerate().all(|(i, &x)| x == i as u64 * 7919));
    assert_eq!(v.ls.len(), n.min(5000));
    assert!(v.ls.iter().enumerate().all(|(i, l)| l.0 == i.to_string()));
    assert_eq!(v.ss.len(), n);
    assert!(
        v.ss.iter()
            .enumerate()
            .all(|(i, s)| s.x as usize == i % 65536)
    );
    assert_eq!(v.nested.len(), n.min(300));
    assert!(
        v.nested
            .iter()
            .enumerate()
            .all(|(i, w)| w.len() == i % 17 && w.iter().all(|&b| b == 1))
    );
    assert_eq!(v.zst.len(), n.min(70000));
    drop(v);
    assert_eq!(live(), before);
}

#[test]
fn vec_hints_varying_lengths() {
    assert_jit_serves::<Vecs>();
    let lengths = [
        0usize, 1, 100_000, 2, 0, 3, 100_000, 100_000, 1, 0, 70_000, 5,
    ];
    let docs: Vec<(usize, String)> = lengths.iter().map(|&n| (n, vecs_doc(n))).collect();
    for backend in common::backends() {
        for (n, doc) in &docs {
            vecs_check(backend, *n, doc);
        }
    }
    // Errors mid-vector after big and small ones: nothing leaks.
    for backend in common::backends() {
        for (n, doc) in &docs {
            if *n == 0 {
                continue;
            }
            let cut = doc.replacen("\"ls\":[\"0\"", "\"ls\":[\"0\",1", 1);
            let before = live();
            assert!(
                Decoder::<Vecs>::with_backend(backend)
                    .decode_str(&cut)
                    .is_err()
            );
            assert_eq!(live(), before);
            let before = live();
            let trunc = &doc[..doc.len() / 2];
            assert!(
                Decoder::<Vecs>::with_backend(backend)
                    .decode_str(trunc)
                    .is_err()
            );
            assert_eq!(live(), before);
        }
    }
    check_str::<Vecs>(&vecs_doc(40));
}

#[test]
fn vec_hints_many_threads() {
    assert_jit_serves::<Vecs>();
    let docs: std::sync::Arc<Vec<(usize, String)>> = std::sync::Arc::new(
        [0usize, 1, 50_000, 2, 7, 30_000, 0, 1]
            .iter()
            .map(|&n| (n, vecs_doc(n)))
            .collect(),
    );
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let docs = docs.clone();
            std::thread::spawn(move || {
                for round in 0..6 {
                    for k in 0..docs.len() {
                        let (n, doc) = &docs[(k * (t + 1) + round) % docs.len()];
                        for backend in [Backend::Jit, Backend::Auto] {
                            if backend == Backend::Jit && !Backend::Jit.is_available() {
                                continue;
                            }
                            vecs_check(backend, *n, doc);
                        }
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn vec_hints_huge_elements() {
    assert_jit_serves::<HugeVecs>();
    let huge_one = format!("[{}]", vec!["3"; 9000].join(","));
    for backend in common::backends() {
        for n in [0usize, 3, 1, 0, 2, 5] {
            let doc = format!(
                r#"{{"huge":[{}],"small":[{}]}}"#,
                vec![huge_one.as_str(); n].join(","),
                vec!["1"; n * 1000].join(",")
            );
            let v = Decoder::<HugeVecs>::with_backend(backend)
                .decode_str(&doc)
                .unwrap();
            assert_eq!(v.huge.len(), n);
            assert!(v.huge.iter().all(|h| h.iter().all(|&x| x == 3)));
            assert_eq!(v.small.len(), n * 1000);
        }
    }
}

#[test]
fn zz_stats_sanity() {
    jitson::warm_up::<Big65>().unwrap();
    jitson::warm_up::<Big64>().unwrap();
    let before = jitson::stats().jit_decodes;
    let _ = Decoder::<Big64>::with_backend(Backend::Jit).decode_str("{}");
    let s = jitson::stats();
    eprintln!(
        "interpreted: {:?}\nfailures: {:?}\njit_decodes {} -> {}",
        s.interpreted_layouts, s.compile_failures, before, s.jit_decodes
    );
}

// ---------------------------------------------------------------------------
// Round 2: learned key orders, enums, maps, interpreted fields, recursion.

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct FiveN<const N: usize> {
    a: u32,
    b: Counted,
    c: Option<Counted>,
    #[serde(default)]
    d: Vec<Counted>,
    #[serde(alias = "ee", alias = "e2")]
    e: String,
}

fn five_battery<T: Decode + DeserializeOwned + PartialEq + Debug>() {
    for p in permutations(5) {
        let members: Vec<String> = p
            .iter()
            .map(|&i| format!("\"{}\":{}", FIVE[i].0, FIVE[i].1))
            .collect();
        assert!(check_str::<T>(&object(&members)));
        for skip in 0..5 {
            let m: Vec<String> = members
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != skip)
                .map(|(_, m)| m.clone())
                .collect();
            check_str::<T>(&object(&m));
        }
        for dup in 0..5 {
            for at in [0, 2, 5] {
                let mut m = members.clone();
                m.insert(at, members[dup].clone());
                assert!(!check_str::<T>(&object(&m)));
            }
        }
        for at in [0, 3, 5] {
            let mut m = members.clone();
            m.insert(at, "\"zz\":{\"a\":[1,2,{}]}".to_owned());
            m.insert(at, "\"e\\u0032\":\"alias escaped\"".to_owned());
            assert!(!check_str::<T>(&object(&m)));
        }
    }
    check_prefixes::<T>(
        br#"{"e2" : "\u00e9\n", "zz": [1, {"q": null}], "d": ["x", "y\"z"], "c": null, "b": "bee", "a": 4294967295}"#,
    );
}

/// Learns `first` as the key order (Auto, background tier), waits for the switch,
/// then runs the battery.
fn learned<const N: usize>(first: &str) {
    if !Backend::Jit.is_available() {
        return;
    }
    let auto = Decoder::<FiveN<N>>::new().tiering(jitson::Tiering::Background);
    let before = live();
    let _ = auto.decode_str(first);
    assert_eq!(live(), before);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    five_battery::<FiveN<N>>();
}

#[test]
fn learned_orders() {
    learned::<1>(r#"{"e":"x","b":"y","a":1}"#);
    learned::<2>(r#"{"b":"y","b":"z","a":1,"e":""}"#);
    learned::<3>(r#"{"zz":1,"ee":"x","d":[],"a":1,"b":"b"}"#);
    learned::<4>(r#"{"d":["x"],"c":null,"a":"#);
    learned::<5>(r#"{"d":["x"],"c":null,"e2":"","e":"","b":"b","a":1}"#);
    learned::<6>(r#"{"\u0064":["x"],"c":null,"e2":"","b":"b","a":1}"#);
    let s = jitson::stats();
    eprintln!(
        "learned_key_orders {} tier_switches {} jit_decodes {}",
        s.learned_key_orders, s.tier_switches, s.jit_decodes
    );
}

#[test]
fn declared_order_battery() {
    five_battery::<FiveN<0>>();
}

fn mk_u8() -> u8 {
    7
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
enum E {
    S {
        a: Counted,
        #[serde(default = "boom")]
        b: Counted,
        c: Option<Counted>,
    },
    T(Counted, Counted),
    N(FiveN<0>),
    U,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Holder {
    es: Vec<E>,
    m: std::collections::BTreeMap<String, FiveN<0>>,
    h: std::collections::HashMap<String, Vec<Counted>>,
    #[serde(default = "mk_u8")]
    z: u8,
}

#[test]
fn enums_and_maps_of_structs() {
    PANIC_DEFAULT.set(false);
    let five = r#"{"a":1,"b":"b","e":"","d":["q"]}"#;
    for doc in [
        format!(
            r#"{{"es":[{{"S":{{"a":"1","b":"2"}}}},{{"T":["1","2"]}},{{"N":{five}}},"U"],"m":{{"k":{five},"j":{five}}},"h":{{"x":["1"]}}}}"#
        ),
        r#"{"m":{},"h":{},"es":[{"S":{"c":"1","a":"2"}}]}"#.to_string(),
        r#"{"m":{},"h":{},"es":[{"S":{"c":"1","a":"2","a":"3"}}]}"#.to_string(),
        format!(r#"{{"m":{{"k":{five},"k":{five}}},"h":{{}},"es":[]}}"#),
        format!(r#"{{"m":{{"k":{five}}},"h":{{"a":["1"],"a":["2"]}},"es":[]}}"#),
        format!(r#"{{"m":{{"k":{five}}},"h":{{"a":["1"]}},"es":[{{"S":{{"a":"1"}},"T":1}}]}}"#),
        format!(
            r#"{{"m":{{"k":{five}}},"h":{{"a":["1"]}},"es":[{{"S":{{"a":"1","zz":1}}}}],"z":1,"z":2}}"#
        ),
        format!(
            r#"{{"m":{{"k":{five}}},"h":{{"a":["1"]}},"es":[{{"S":{{"a":"1","zz":1}}}}],"m":{{}}}}"#
        ),
        format!(r#"{{"m":{{"k":{five}}},"h":{{"a":["1"]}},"es":[{{"N":{{"a":1,"b":"b"}}}}]}}"#),
    ] {
        check_str::<Holder>(&doc);
        check_prefixes::<Holder>(doc.as_bytes());
    }
    PANIC_DEFAULT.set(true);
    for backend in common::backends() {
        expect_panic::<Holder>(
            backend,
            r#"{"m":{"k":{"a":1,"b":"b","e":""}},"h":{"a":["1"]},"es":[{"T":["1","2"]},{"S":{"a":"1","c":"2"}}]}"#,
            "review boom default",
        );
        expect_panic::<Vec<E>>(
            backend,
            r#"[{"S":{"a":"1","b":"2"}},{"S":{"c":"2","a":"1"}}]"#,
            "review boom default",
        );
    }
    PANIC_DEFAULT.set(false);
}

#[cfg(feature = "serde")]
#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "type")]
enum Tagged {
    A { x: Counted },
    B,
}

#[cfg(feature = "serde")]
#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Flat {
    k: Counted,
    #[serde(flatten)]
    rest: std::collections::BTreeMap<String, u8>,
}

// `serde_json::Value` decodes only with the `serde` feature.
#[cfg(feature = "serde")]
#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Mixed {
    l: Counted,
    c: char,
    v: serde_json::Value,
    big: i128,
    m: std::collections::HashMap<u32, Counted>,
    t: Tagged,
    b65: Option<Big65>,
    flat: Flat,
    tail: Option<Counted>,
}

#[cfg(feature = "serde")]
#[test]
fn interpreted_fields_inside_compiled_structs() {
    assert_jit_serves::<Mixed>();
    let good = r#"{"l":"l","c":"x","v":{"a":[1,2.5,null]},"big":170141183460469231731687303715884105727,"m":{"1":"a","2":"b"},"t":{"type":"A","x":"q"},"b65":{"field_name_64":1},"flat":{"k":"k","z":1},"tail":"t"}"#;
    check_str::<Mixed>(good);
    check_prefixes::<Mixed>(good.as_bytes());
    for (from, to) in [
        (r#""c":"x""#, r#""c":"xy""#),
        (r#""type":"A","x":"q""#, r#""type":"A""#),
        (r#""type":"A","x":"q""#, r#""type":"A","x":"q","x":"r""#),
        (r#""m":{"1":"a","2":"b"}"#, r#""m":{"1":"a","x":"b"}"#),
        (r#""m":{"1":"a","2":"b"}"#, r#""m":{"1":"a","2":3}"#),
        (r#""flat":{"k":"k","z":1}"#, r#""flat":{"k":"k","z":1000}"#),
        (r#""flat":{"k":"k","z":1}"#, r#""flat":{"z":1}"#),
        (
            r#""b65":{"field_name_64":1}"#,
            r#""b65":{"field_name_64":1,"field_name_64":1}"#,
        ),
        (
            r#""big":170141183460469231731687303715884105727"#,
            r#""big":170141183460469231731687303715884105728"#,
        ),
        (r#""tail":"t""#, r#""tail":"t","l":"again""#),
        (r#""tail":"t""#, r#""tail":"t","c":"y""#),
        (r#""tail":"t""#, r#""tail":"t","v":1"#),
    ] {
        let doc = good.replace(from, to);
        assert_ne!(doc, good);
        check_str::<Mixed>(&doc);
    }
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Node {
    v: Counted,
    #[serde(default)]
    kids: Vec<Node>,
    next: Option<Box<Node>>,
}

#[test]
fn recursive_nodes() {
    assert_jit_serves::<Node>();
    let doc = r#"{"v":"1","kids":[{"v":"2","kids":[{"v":"3"},{"next":{"v":"5"},"v":"4"}]},{"kids":[],"v":"6"}],"next":{"v":"7","kids":[{"v":"8","next":null}]}}"#;
    check_str::<Node>(doc);
    check_prefixes::<Node>(doc.as_bytes());
    for (from, to) in [
        (r#""v":"4""#, r#""v":4"#),
        (r#""v":"8","next":null"#, r#""v":"8","next":null,"v":"9""#),
        (
            r#"{"v":"3"}"#,
            r#"{"v":"3","kids":[{"v":"x","kids":[{}]}]}"#,
        ),
        (r#""kids":[],"v":"6""#, r#""kids":[],"v":"6","kids":[]"#),
    ] {
        check_str::<Node>(&doc.replace(from, to));
    }
    // Deep: a long chain through kids and next, cut everywhere near the end.
    let mut deep = String::new();
    for i in 0..100 {
        deep.push_str(&format!(r#"{{"v":"{i}","kids":["#));
    }
    deep.push_str(r#"{"v":"leaf"}"#);
    for _ in 0..100 {
        deep.push_str("]}");
    }
    check_str::<Node>(&deep);
    for cut in (deep.len() - 150)..deep.len() {
        check::<Node>(&deep.as_bytes()[..cut]);
    }
}

// ---------------------------------------------------------------------------
// Capacity hints: memory kept by decoded values (capacity is never shrunk).

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Rec {
    id: u32,
    tags: Vec<u8>,
}

fn capacity_bytes(v: &Vec<Rec>) -> (usize, usize) {
    (
        v.iter().map(|r| r.tags.capacity()).sum::<usize>()
            + v.capacity() * std::mem::size_of::<Rec>(),
        v.iter().map(|r| r.tags.len()).sum::<usize>() + v.len() * std::mem::size_of::<Rec>(),
    )
}

#[test]
fn capacity_hint_memory_amplification() {
    // One big record, then many one-element ones.
    let big = format!(r#"{{"id":0,"tags":[{}]}}"#, vec!["7"; 100_000].join(","));
    let small: Vec<String> = (1..=1000)
        .map(|i| format!(r#"{{"id":{i},"tags":[1]}}"#))
        .collect();
    let doc = format!("[{big},{}]", small.join(","));
    // Later, an unrelated document of only small records (the hint outlives the decode).
    let only_small = format!("[{}]", small.join(","));
    // Hostile: a big record every 40.
    let hostile: Vec<String> = (0..1000)
        .map(|i| {
            if i % 40 == 0 {
                format!(r#"{{"id":{i},"tags":[{}]}}"#, vec!["0"; 70_000].join(","))
            } else {
                format!(r#"{{"id":{i},"tags":[1]}}"#)
            }
        })
        .collect();
    let hostile = format!("[{}]", hostile.join(","));
    let serde_cap = |d: &str| capacity_bytes(&serde_json::from_str::<Vec<Rec>>(d).unwrap());
    let mut report = String::new();
    for backend in common::backends() {
        let d = Decoder::<Vec<Rec>>::with_backend(backend);
        for (name, text) in [
            ("big+small", &doc),
            ("small after", &only_small),
            ("hostile", &hostile),
        ] {
            let v = d.decode_str(text).unwrap();
            let (cap, len) = capacity_bytes(&v);
            let (scap, _) = serde_cap(text);
            report.push_str(&format!(
                "{:12} {name:12}: input {} B, live data {len} B, capacity {cap} B (serde_json {scap} B)\n",
                backend.name(),
                text.len()
            ));
        }
    }
    eprintln!("{report}");
    // serde_json at most doubles; allow 4x of serde_json's footprint.
    for line in report.lines() {
        let nums: Vec<usize> = line
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect();
        let (cap, scap) = (nums[nums.len() - 2], nums[nums.len() - 1]);
        assert!(cap <= 4 * scap, "memory amplification: {line}");
    }
}

/// Minimal: `Vec<Vec<u64>>`, one row of 8192 numbers then small rows, repeated.
#[test]
fn capacity_hint_nested_rows() {
    let mut rows = Vec::new();
    for i in 0..2000 {
        rows.push(if i % 20 == 0 {
            format!("[{}]", vec!["0"; 8192].join(","))
        } else {
            "[1]".to_owned()
        });
    }
    let doc = format!("[{}]", rows.join(","));
    let bytes =
        |v: &Vec<Vec<u64>>| v.iter().map(|r| r.capacity() * 8).sum::<usize>() + v.capacity() * 24;
    let serde = bytes(&serde_json::from_str::<Vec<Vec<u64>>>(&doc).unwrap());
    let mut report = vec![];
    for backend in common::backends() {
        let v = Decoder::<Vec<Vec<u64>>>::with_backend(backend)
            .decode_str(&doc)
            .unwrap();
        report.push((backend.name(), bytes(&v)));
    }
    eprintln!(
        "input {} B, serde_json keeps {serde} B; jitson: {report:?}",
        doc.len()
    );
    for (name, b) in report {
        assert!(
            b <= 4 * serde,
            "{name} keeps {b} B for a {} B input; serde_json {serde} B",
            doc.len()
        );
    }
}

// ---------------------------------------------------------------------------
// Optional shapes filled by fill_absent, zero-sized fields.

fn some_seven() -> Option<u32> {
    Some(7)
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Optionals {
    oo: Option<Option<u32>>,
    bo: Box<Option<Counted>>,
    ob: Option<Box<Counted>>,
    bobo: Box<Option<Box<Option<u32>>>>,
    #[serde(default = "some_seven")]
    ds: Option<u32>,
    unit: (),
    empty: Empty,
    zero: [u8; 0],
    last: u8,
}

#[test]
fn optionals_and_zero_sized() {
    for doc in [
        r#"{"unit":null,"empty":{},"zero":[],"last":1}"#,
        r#"{"last":1,"zero":[],"empty":{},"unit":null}"#,
        r#"{"unit":null,"empty":{},"zero":[],"last":1,"oo":null,"bo":null,"ob":null,"bobo":null,"ds":null}"#,
        r#"{"unit":null,"empty":{},"zero":[],"last":1,"oo":3,"bo":"x","ob":"y","bobo":4,"ds":5}"#,
        r#"{"unit":null,"empty":{},"zero":[],"last":1,"bo":"x","bo":"y"}"#,
        r#"{"unit":null,"empty":{},"zero":[],"last":1,"unit":null}"#,
        r#"{"unit":null,"empty":{},"zero":[],"last":1,"zero":[]}"#,
        r#"{"unit":null,"empty":{},"zero":[1],"last":1}"#,
        r#"{"empty":{},"zero":[],"last":1}"#,
        r#"{"unit":null,"zero":[],"last":1,"ob":"y"}"#,
    ] {
        check_str::<Optionals>(doc);
    }
}

#[derive(jitson::Decode, Debug, PartialEq)]
struct WithPanicDrop {
    first: PanicDrop,
    #[jitson(default)]
    items: Vec<PanicDrop>,
    last: u8,
}

#[test]
fn panicking_drop_on_bail_paths() {
    for backend in common::backends() {
        for doc in [
            // duplicate key: JIT bails, drops "boom", interpreter re-decodes.
            r#"{"first":"boom","last":1,"first":"x"}"#,
            r#"{"first":"boom","last":1,"last":2}"#,
            r#"{"items":["boom"],"first":"a","items":[]}"#,
            // missing required field after a written one
            r#"{"first":"boom","items":["boom"]}"#,
            // malformed after a written member
            r#"{"first":"boom","last":1,}"#,
            r#"{"first":"boom" "last":1}"#,
            r#"{"first":"boom","last":1,"\u00"}"#,
            // failed value after a written member
            r#"{"first":"boom","items":["a","boom"],"last":"x"}"#,
        ] {
            expect_panic::<WithPanicDrop>(backend, doc, "drop of boom");
            expect_panic::<Vec<WithPanicDrop>>(
                backend,
                &format!(r#"[{{"first":"a","last":1}},{doc}]"#),
                "drop of boom",
            );
        }
    }
}
