//! Member functions take the input position and return it in registers
//! (`signature` in jit/src/lib.rs; docs/benchmarks.md, Round 17). These
//! documents attack the hand-over between a struct function and its members:
//! whitespace runs at every token boundary, every prefix, every byte deleted
//! or replaced, unknown, escaped, repeated and reordered keys, failing values
//! in the first, middle and last member, nested, optional, boxed, flattened
//! and enum members, and a struct past 64 fields. Each document's value or
//! error (kind, line, column, offset, path) must be the interpreter's exactly
//! with the JIT (`Tiering::Wait`, so member functions run), and serde_json's
//! by category. Written by a reviewer who had not seen the change; it found
//! nothing wrong. Needs the JIT (and serde, for the flattened fields).
#![cfg(all(feature = "jit", feature = "serde"))]

mod common;

use std::fmt::Debug;

use common::{ErrorShape, shape};
use jitson::{Backend, Decode, Decoder, Tiering};
use serde::Deserialize;
use serde::de::DeserializeOwned;

#[derive(Debug, PartialEq, Deserialize, jitson::Decode)]
struct Inner {
    x: u32,
    y: String,
}

#[derive(Debug, PartialEq, Deserialize, jitson::Decode)]
enum E {
    A,
    B(u8),
    C { z: i32 },
}

#[derive(Debug, PartialEq, Deserialize, jitson::Decode)]
struct Outer {
    a: u32,
    inner: Inner,
    opt: Option<Inner>,
    v: Vec<Inner>,
    bx: Box<Inner>,
    e: E,
    s: String,
    f: f64,
    bo: bool,
    n: Option<u64>,
}

#[derive(Debug, PartialEq, Deserialize, jitson::Decode)]
#[serde(deny_unknown_fields)]
struct Strict {
    p: u8,
    q: Option<String>,
    r: Vec<u16>,
}

#[derive(Debug, PartialEq, Deserialize, jitson::Decode)]
struct Base {
    id: u32,
    #[serde(flatten)]
    inner: Inner,
    tail: bool,
}

#[derive(Debug, PartialEq, Deserialize, jitson::Decode)]
struct Deep {
    d: Option<Box<Deep>>,
    k: Vec<Strict>,
    m: u8,
}

#[derive(Debug, PartialEq, Deserialize, jitson::Decode)]
struct Defaults {
    #[serde(default)]
    a: u32,
    #[serde(default)]
    b: Option<Inner>,
    #[serde(rename = "c\"q")]
    c: String,
}

fn run<T: Decode + DeserializeOwned + PartialEq + Debug>(doc: &[u8]) {
    let interp = Decoder::<T>::with_backend(Backend::Interpreter).decode_slice(doc);
    let mut others = vec![];
    if Backend::Jit.is_available() {
        let d = Decoder::<T>::with_backend(Backend::Jit).tiering(Tiering::Wait);
        others.push(("jit-wait/slice", d.decode_slice(doc)));
        if let Ok(t) = std::str::from_utf8(doc) {
            others.push(("jit-wait/str", d.decode_str(t)));
        }
    }
    let text = String::from_utf8_lossy(doc);
    for (name, r) in others {
        match (&interp, &r) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{name} value differs for {text:?}"),
            (Err(a), Err(b)) => {
                let (a, b): (ErrorShape, ErrorShape) = (shape(a), shape(b));
                assert_eq!(a, b, "{name} error differs for {text:?}")
            }
            (a, b) => panic!("interp {a:?} vs {name} {b:?} for {text:?}"),
        }
    }
    // serde_json by category (documented differences tolerated).
    let _ = common::oracle::compare(doc, interp, serde_json::from_slice::<T>(doc), |a, b| a == b);
}

/// Token boundaries of a compact document: positions after a structural byte
/// or a complete scalar (outside strings).
fn boundaries(doc: &str) -> Vec<usize> {
    let b = doc.as_bytes();
    let mut out = vec![0];
    let mut in_str = false;
    let mut esc = false;
    for (i, &c) in b.iter().enumerate() {
        if in_str {
            if esc {
                esc = false
            } else if c == b'\\' {
                esc = true
            } else if c == b'"' {
                in_str = false;
                out.push(i + 1);
            }
            continue;
        }
        match c {
            b'"' => {
                in_str = true;
                out.push(i);
            }
            b'{' | b'}' | b'[' | b']' | b':' | b',' => {
                out.push(i);
                out.push(i + 1)
            }
            _ => {
                if i + 1 < b.len() && matches!(b[i + 1], b',' | b'}' | b']') {
                    out.push(i + 1)
                }
            }
        }
    }
    out.push(b.len());
    out.sort();
    out.dedup();
    out
}

const WS: &[&str] = &[
    " ",
    "  ",
    "\n",
    "\n  ",
    "\n    ",
    "\r\n\t",
    "       ",
    "                ",
    "                                 ",
    "\n                                                                     ",
    "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t",
];

fn attack<T: Decode + DeserializeOwned + PartialEq + Debug>(doc: &str) {
    jitson::warm_up::<T>().ok();
    run::<T>(doc.as_bytes());
    let bs = boundaries(doc);
    // Whitespace at one boundary.
    for &at in &bs {
        for ws in WS {
            let mut d = doc.to_owned();
            d.insert_str(at, ws);
            run::<T>(d.as_bytes());
        }
    }
    // Whitespace at every boundary (pretty-ish).
    for ws in WS {
        let mut d = String::new();
        let mut last = 0;
        for &at in &bs {
            d.push_str(&doc[last..at]);
            d.push_str(ws);
            last = at;
        }
        d.push_str(&doc[last..]);
        run::<T>(d.as_bytes());
        // every prefix of the spaced document
        for n in 0..d.len() {
            run::<T>(&d.as_bytes()[..n]);
        }
    }
    // Every prefix, every byte deleted, every byte replaced.
    let b = doc.as_bytes();
    for n in 0..b.len() {
        run::<T>(&b[..n]);
        let mut d = b.to_vec();
        d.remove(n);
        run::<T>(&d);
        for r in [
            b' ', b',', b'}', b':', b'"', b'1', b'x', b'{', b']', b'\\', 0u8,
        ] {
            let mut d = b.to_vec();
            d[n] = r;
            run::<T>(&d);
            let mut d = b.to_vec();
            d.insert(n, r);
            run::<T>(&d);
        }
    }
}

const OUTER: &str = r#"{"a":1,"inner":{"x":2,"y":"why"},"opt":{"x":3,"y":""},"v":[{"x":4,"y":"a"},{"x":5,"y":"b"}],"bx":{"x":6,"y":"c"},"e":{"C":{"z":-7}},"s":"str\n","f":1.5e3,"bo":true,"n":null}"#;

#[test]
fn outer() {
    attack::<Outer>(OUTER);
}

#[test]
fn outer_variants() {
    let docs = [
        // unknown keys between known keys
        r#"{"a":1,"zz":[1,{"q":2}],"inner":{"x":2,"y":"why","u":null},"opt":null,"v":[],"bx":{"x":6,"y":"c"},"e":"A","s":"","f":0,"bo":false,"n":5,"end":{}}"#,
        // escaped keys
        r#"{"\u0061":1,"inner":{"\u0078":2,"y":"why"},"opt":null,"v":[],"bx":{"x":6,"y":"c"},"e":{"B":3},"s":"","f":0,"bo":false,"n":5}"#,
        // reordered
        r#"{"n":1,"bo":true,"f":-0.0,"s":"\"","e":{"B":255},"bx":{"y":"c","x":6},"v":[{"y":"a","x":4}],"opt":{"y":"","x":3},"inner":{"y":"why","x":2},"a":1}"#,
        // duplicate key
        r#"{"a":1,"a":2,"inner":{"x":2,"y":"why"},"opt":null,"v":[],"bx":{"x":6,"y":"c"},"e":"A","s":"","f":0,"bo":false,"n":5}"#,
        r#"{"a":1,"inner":{"x":2,"y":"why","x":3},"opt":null,"v":[],"bx":{"x":6,"y":"c"},"e":"A","s":"","f":0,"bo":false,"n":5}"#,
        // wrong types first/middle/last
        r#"{"a":"1","inner":{"x":2,"y":"why"},"opt":null,"v":[],"bx":{"x":6,"y":"c"},"e":"A","s":"","f":0,"bo":false,"n":5}"#,
        r#"{"a":1,"inner":{"x":2,"y":"why"},"opt":null,"v":[{"x":-1,"y":""}],"bx":{"x":6,"y":"c"},"e":"A","s":"","f":0,"bo":false,"n":5}"#,
        r#"{"a":1,"inner":{"x":2,"y":"why"},"opt":null,"v":[],"bx":{"x":6,"y":"c"},"e":"A","s":"","f":0,"bo":false,"n":-5}"#,
        r#"{"a":1,"inner":{"x":2,"y":"why"},"opt":null,"v":[],"bx":{"x":6,"y":"c"},"e":"D","s":"","f":0,"bo":false,"n":5}"#,
        r#"{"a":1,"inner":{"x":2,"y":"why"},"opt":null,"v":[],"bx":{"x":6,"y":"c"},"e":"A","s":"","f":0,"bo":nul,"n":5}"#,
        // trailing comma, missing colon
        r#"{"a":1,"inner":{"x":2,"y":"why",},"opt":null,"v":[],"bx":{"x":6,"y":"c"},"e":"A","s":"","f":0,"bo":false,"n":5}"#,
        r#"{"a":1,"inner":{"x":2,"y":"why"},"opt":null,"v":[],"bx":{"x":6,"y":"c"},"e":"A","s":"","f":0,"bo":false,"n":5,}"#,
        r#"{"a" 1,"inner":{"x":2,"y":"why"},"opt":null,"v":[],"bx":{"x":6,"y":"c"},"e":"A","s":"","f":0,"bo":false,"n":5}"#,
        // missing field
        r#"{"a":1,"inner":{"x":2},"opt":null,"v":[],"bx":{"x":6,"y":"c"},"e":"A","s":"","f":0,"bo":false,"n":5}"#,
        r#"{"a":1,"inner":{"x":2,"y":"why"},"opt":null,"v":[],"bx":{"x":6,"y":"c"},"e":"A","s":"","f":0,"bo":false}"#,
    ];
    for d in docs {
        attack::<Outer>(d);
    }
}

#[test]
fn strict() {
    attack::<Strict>(r#"{"p":1,"q":"q","r":[1,2,3]}"#);
    attack::<Strict>(r#"{"p":1,"x":0,"q":null,"r":[]}"#);
    attack::<Vec<Strict>>(r#"[{"p":1,"q":"q","r":[1,2,3]},{"r":[],"q":null,"p":255}]"#);
}

#[test]
fn flatten() {
    attack::<Base>(r#"{"id":1,"x":2,"y":"why","tail":true}"#);
    attack::<Base>(r#"{"tail":false,"y":"why","other":[1],"x":2,"id":1}"#);
}

#[test]
fn deep() {
    attack::<Deep>(
        r#"{"d":{"d":{"d":null,"k":[],"m":3},"k":[{"p":1,"q":null,"r":[]}],"m":2},"k":[{"p":1,"q":"s","r":[9]}],"m":1}"#,
    );
}

#[test]
fn defaults() {
    attack::<Defaults>(r#"{"a":1,"b":{"x":1,"y":"z"},"c\"q":"v"}"#);
    attack::<Defaults>(r#"{"c\"q":"v"}"#);
    attack::<Defaults>(r#"{"c\u0022q":"v","b":null}"#);
}

#[test]
fn compiled_not_interpreted() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Outer>().unwrap();
    jitson::warm_up::<Strict>().unwrap();
    jitson::warm_up::<Base>().unwrap();
    jitson::warm_up::<Deep>().unwrap();
    jitson::warm_up::<Defaults>().unwrap();
    common::assert_compiled(&["Outer", "Strict", "Base", "Deep", "Defaults", "Inner"]);
}

#[derive(Debug, PartialEq, Deserialize, jitson::Decode)]
#[serde(tag = "t")]
enum Tagged {
    P { x: u8, inner: Inner },
    Q(Inner),
    R,
}

#[derive(Debug, PartialEq, Deserialize, jitson::Decode)]
#[serde(untagged)]
enum Untagged {
    I(Inner),
    N(u64),
    S(String),
}

#[derive(Debug, PartialEq, Deserialize, jitson::Decode)]
struct Newt(Inner);

#[derive(Debug, PartialEq, Deserialize, jitson::Decode)]
struct Kinds {
    t: Tagged,
    u: Untagged,
    nt: Newt,
    tup: (u8, String, Inner),
    arr: [u16; 3],
    map: std::collections::BTreeMap<String, Inner>,
    big: u128,
    neg: i128,
    ch: char,
    uu: (),
    ob: Option<Box<Inner>>,
    vo: Vec<Option<Inner>>,
}

const KINDS: &str = r#"{"t":{"t":"P","x":1,"inner":{"x":2,"y":"a"}},"u":{"x":3,"y":"b"},"nt":{"x":4,"y":"c"},"tup":[5,"d",{"x":6,"y":"e"}],"arr":[1,2,3],"map":{"k":{"x":7,"y":"f"},"l":{"y":"g","x":8}},"big":340282366920938463463374607431768211455,"neg":-170141183460469231731687303715884105728,"ch":"\u00e9","uu":null,"ob":{"x":9,"y":"h"},"vo":[null,{"x":10,"y":"i"}]}"#;

#[test]
fn kinds() {
    attack::<Kinds>(KINDS);
    attack::<Kinds>(
        &KINDS
            .replace(
                r#"{"t":"P","x":1,"inner":{"x":2,"y":"a"}}"#,
                r#"{"x":11,"y":"q","t":"Q"}"#,
            )
            .replace(r#""u":{"x":3,"y":"b"}"#, r#""u":"str""#),
    );
}

macro_rules! wide {
    ($name:ident { $($f:ident),* }) => {
        #[derive(Debug, PartialEq, Deserialize, jitson::Decode)]
        struct $name { $($f: Option<u8>,)* last: Inner }
    };
}
wide!(Wide {
    f00,
    f01,
    f02,
    f03,
    f04,
    f05,
    f06,
    f07,
    f08,
    f09,
    f10,
    f11,
    f12,
    f13,
    f14,
    f15,
    f16,
    f17,
    f18,
    f19,
    f20,
    f21,
    f22,
    f23,
    f24,
    f25,
    f26,
    f27,
    f28,
    f29,
    f30,
    f31,
    f32,
    f33,
    f34,
    f35,
    f36,
    f37,
    f38,
    f39,
    f40,
    f41,
    f42,
    f43,
    f44,
    f45,
    f46,
    f47,
    f48,
    f49,
    f50,
    f51,
    f52,
    f53,
    f54,
    f55,
    f56,
    f57,
    f58,
    f59,
    f60,
    f61,
    f62,
    f63,
    f64,
    f65,
    f66,
    f67,
    f68,
    f69
});

#[test]
fn wide() {
    let mut m: Vec<String> = (0..70).map(|i| format!("\"f{i:02}\":{}", i % 7)).collect();
    m.push(r#""last":{"x":1,"y":"z"}"#.to_owned());
    let doc = format!("{{{}}}", m.join(","));
    attack::<Wide>(&doc);
    m.swap(3, 68);
    m.swap(0, 70);
    m.insert(65, r#""zz":[1]"#.to_owned());
    attack::<Wide>(&format!("{{{}}}", m.join(",")));
    m.insert(66, r#""f01":3"#.to_owned());
    attack::<Wide>(&format!("{{{}}}", m.join(",")));
}

#[test]
fn compiled_more() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Kinds>().unwrap();
    jitson::warm_up::<Wide>().unwrap();
    common::assert_compiled(&["Kinds", "Wide"]);
}

mod random {
    use super::*;
    use proptest::prelude::*;

    fn spaced(doc: &str, picks: &[(u8, u8)]) -> Vec<u8> {
        let bs = boundaries(doc);
        let mut d = Vec::new();
        let mut last = 0;
        for (k, &at) in bs.iter().enumerate() {
            d.extend_from_slice(&doc.as_bytes()[last..at]);
            let (w, n) = picks[k % picks.len()];
            if w % 3 == 0 {
                d.extend_from_slice(WS[n as usize % WS.len()].as_bytes());
            }
            last = at;
        }
        d.extend_from_slice(&doc.as_bytes()[last..]);
        d
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
        #[test]
        fn spaced_and_mutated(picks in proptest::collection::vec((any::<u8>(), any::<u8>()), 1..64),
                              muts in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 0..3),
                              which in 0u8..3) {
            let doc = match which { 0 => OUTER, 1 => KINDS, _ => r#"{"d":{"d":{"d":null,"k":[],"m":3},"k":[{"p":1,"q":null,"r":[]}],"m":2},"k":[{"p":1,"q":"s","r":[9]}],"m":1}"# };
            let mut d = spaced(doc, &picks);
            for &(at, byte, op) in &muts {
                let at = at % (d.len() + 1);
                let byte = b" \t\n,:{}[]\"0a\\-"[byte as usize % 14];
                match op {
                    0 if at < d.len() => d[at] = byte,
                    1 => d.insert(at, byte),
                    _ if at < d.len() => { d.remove(at); }
                    _ => {}
                }
            }
            match which { 0 => run::<Outer>(&d), 1 => run::<Kinds>(&d), _ => run::<Deep>(&d) }
        }
    }
}
