//! Regressions found by reviewing the JIT (each was a JIT-only defect):
//! - structs over 64 decoded or skipped fields (once the seen bitmaps' width,
//!   and handed to the interpreter whole; now a word per 64 fields, see
//!   tests/wide_structs.rs) decode on every backend, and
//!   `stats().interpreted_layouts` names why a struct is interpreted (a
//!   flattened field), and no longer the width;
//! - a `Drop` that panics on a slow path resumes in that decode, not a later one;
//! - escaped or non-ASCII keys at every level of a deep document must not make the
//!   JIT re-decode subtrees (counted by constructions, not timed);
//! - an enum that reaches itself through layouts reaching no struct (`Box`,
//!   `Option`, `Vec`, maps) compiles: their functions once went to the
//!   process-wide library, whose module lacked the root's function they call,
//!   and Cranelift panicked ("no entry found for key").

mod common;

use std::cell::Cell;

use jitson::{Backend, Decode, Decoder};

#[derive(Decode, Debug, PartialEq)]
struct Wide65 {
    f0: u8,
    f1: u8,
    f2: u8,
    f3: u8,
    f4: u8,
    f5: u8,
    f6: u8,
    f7: u8,
    f8: u8,
    f9: u8,
    f10: u8,
    f11: u8,
    f12: u8,
    f13: u8,
    f14: u8,
    f15: u8,
    f16: u8,
    f17: u8,
    f18: u8,
    f19: u8,
    f20: u8,
    f21: u8,
    f22: u8,
    f23: u8,
    f24: u8,
    f25: u8,
    f26: u8,
    f27: u8,
    f28: u8,
    f29: u8,
    f30: u8,
    f31: u8,
    f32: u8,
    f33: u8,
    f34: u8,
    f35: u8,
    f36: u8,
    f37: u8,
    f38: u8,
    f39: u8,
    f40: u8,
    f41: u8,
    f42: u8,
    f43: u8,
    f44: u8,
    f45: u8,
    f46: u8,
    f47: u8,
    f48: u8,
    f49: u8,
    f50: u8,
    f51: u8,
    f52: u8,
    f53: u8,
    f54: u8,
    f55: u8,
    f56: u8,
    f57: u8,
    f58: u8,
    f59: u8,
    f60: u8,
    f61: u8,
    f62: u8,
    f63: u8,
    f64: u8,
}

#[derive(Decode, Debug, PartialEq)]
struct HoldsWide {
    w: Option<Box<Wide65>>,
    v: Vec<Wide65>,
}

#[derive(Decode, Debug, PartialEq)]
struct SkipMany {
    a: u8,
    #[jitson(skip)]
    s0: String,
    #[jitson(skip)]
    s1: String,
    #[jitson(skip)]
    s2: String,
    #[jitson(skip)]
    s3: String,
    #[jitson(skip)]
    s4: String,
    #[jitson(skip)]
    s5: String,
    #[jitson(skip)]
    s6: String,
    #[jitson(skip)]
    s7: String,
    #[jitson(skip)]
    s8: String,
    #[jitson(skip)]
    s9: String,
    #[jitson(skip)]
    s10: String,
    #[jitson(skip)]
    s11: String,
    #[jitson(skip)]
    s12: String,
    #[jitson(skip)]
    s13: String,
    #[jitson(skip)]
    s14: String,
    #[jitson(skip)]
    s15: String,
    #[jitson(skip)]
    s16: String,
    #[jitson(skip)]
    s17: String,
    #[jitson(skip)]
    s18: String,
    #[jitson(skip)]
    s19: String,
    #[jitson(skip)]
    s20: String,
    #[jitson(skip)]
    s21: String,
    #[jitson(skip)]
    s22: String,
    #[jitson(skip)]
    s23: String,
    #[jitson(skip)]
    s24: String,
    #[jitson(skip)]
    s25: String,
    #[jitson(skip)]
    s26: String,
    #[jitson(skip)]
    s27: String,
    #[jitson(skip)]
    s28: String,
    #[jitson(skip)]
    s29: String,
    #[jitson(skip)]
    s30: String,
    #[jitson(skip)]
    s31: String,
    #[jitson(skip)]
    s32: String,
    #[jitson(skip)]
    s33: String,
    #[jitson(skip)]
    s34: String,
    #[jitson(skip)]
    s35: String,
    #[jitson(skip)]
    s36: String,
    #[jitson(skip)]
    s37: String,
    #[jitson(skip)]
    s38: String,
    #[jitson(skip)]
    s39: String,
    #[jitson(skip)]
    s40: String,
    #[jitson(skip)]
    s41: String,
    #[jitson(skip)]
    s42: String,
    #[jitson(skip)]
    s43: String,
    #[jitson(skip)]
    s44: String,
    #[jitson(skip)]
    s45: String,
    #[jitson(skip)]
    s46: String,
    #[jitson(skip)]
    s47: String,
    #[jitson(skip)]
    s48: String,
    #[jitson(skip)]
    s49: String,
    #[jitson(skip)]
    s50: String,
    #[jitson(skip)]
    s51: String,
    #[jitson(skip)]
    s52: String,
    #[jitson(skip)]
    s53: String,
    #[jitson(skip)]
    s54: String,
    #[jitson(skip)]
    s55: String,
    #[jitson(skip)]
    s56: String,
    #[jitson(skip)]
    s57: String,
    #[jitson(skip)]
    s58: String,
    #[jitson(skip)]
    s59: String,
    #[jitson(skip)]
    s60: String,
    #[jitson(skip)]
    s61: String,
    #[jitson(skip)]
    s62: String,
    #[jitson(skip)]
    s63: String,
    #[jitson(skip)]
    s64: String,
}

#[test]
fn structs_wider_than_the_bitmaps() {
    let body: Vec<String> = (0..65).map(|i| format!("\"f{i}\": {i}")).collect();
    let wide = format!("{{{}}}", body.join(", "));
    let w: Wide65 = common::ok(&wide);
    assert_eq!((w.f0, w.f64), (0, 64));
    let holder: HoldsWide = common::ok(&format!("{{\"w\": {wide}, \"v\": [{wide}, {wide}]}}"));
    assert_eq!(holder.v.len(), 2);
    assert_eq!(
        common::err::<Wide65>(b"{}").kind(),
        jitson::ErrorKind::MissingField
    );
    assert_eq!(
        common::err::<HoldsWide>(br#"{"w": {}, "v": []}"#).kind(),
        jitson::ErrorKind::MissingField
    );
    let s: SkipMany = common::ok(r#"{"a": 1}"#);
    assert_eq!((s.a, s.s64.as_str()), (1, ""));
}

#[derive(Decode, Debug, PartialEq)]
struct Flattens {
    a: u8,
    #[serde(flatten)]
    inner: Inner,
}

/// A flattened option: the interpreter's.
#[derive(Decode, Debug, PartialEq)]
struct FlattensOption {
    a: u8,
    #[serde(flatten)]
    inner: Option<Inner>,
}

#[derive(Decode, Debug, PartialEq)]
struct Inner {
    b: u8,
}

#[test]
fn the_stats_say_why_each_struct_is_interpreted() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Wide65>().expect("compiles");
    jitson::warm_up::<SkipMany>().expect("compiles");
    jitson::warm_up::<Flattens>().expect("compiles");
    jitson::warm_up::<FlattensOption>().expect("compiles");
    let stats = jitson::stats();
    let reason = |name: &str| {
        stats
            .interpreted_layouts
            .iter()
            .find(|(ty, _)| ty == name)
            .map(|(_, why)| why.as_str())
    };
    // Wide structs are compiled (a word of the written-field set per 64).
    assert_eq!(reason("jit_regressions::Wide65"), None);
    assert_eq!(reason("jit_regressions::SkipMany"), None);
    assert_eq!(
        reason("jit_regressions::FlattensOption"),
        Some("flattened options, or maps with parsed keys")
    );
    // A flattened struct is read as one key set with its parent.
    assert_eq!(reason("jit_regressions::Flattens"), None);
    // The decodes still agree on every backend.
    assert_eq!(
        common::ok::<Flattens>(r#"{"a": 1, "b": 2}"#),
        Flattens {
            a: 1,
            inner: Inner { b: 2 }
        }
    );
    assert_eq!(
        common::ok::<FlattensOption>(r#"{"a": 1, "b": 2}"#),
        FlattensOption {
            a: 1,
            inner: Some(Inner { b: 2 })
        }
    );
}

thread_local! {
    /// Per thread, so tests running in parallel do not disturb each other's counts.
    static BUILT: Cell<usize> = const { Cell::new(0) };
}

/// A string that counts how many times one is built; its `Drop` panics for "boom".
#[derive(Debug, PartialEq)]
struct Counted(String);

impl Drop for Counted {
    fn drop(&mut self) {
        if self.0 == "boom" && !std::thread::panicking() {
            panic!("drop of boom");
        }
    }
}

/// # Safety
/// `dst` is valid for a `Counted` write; the bytes are UTF-8.
unsafe extern "C" fn write_counted(dst: *mut u8, ptr: *const u8, len: usize) {
    BUILT.set(BUILT.get() + 1);
    // SAFETY: as the caller guarantees.
    unsafe {
        let s = std::str::from_utf8_unchecked(std::slice::from_raw_parts(ptr, len));
        dst.cast::<Counted>().write(Counted(s.to_owned()));
    }
}

// SAFETY: `write_counted` writes a whole Counted; size, alignment, drop from the type.
unsafe impl jitson::HasLayout for Counted {
    type Static = Self;
    const LAYOUT: &'static jitson::__private::TypeLayout =
        &jitson::__private::TypeLayout::of::<Counted>(
            "a string",
            jitson::__private::Kind::String(&jitson::__private::StringLayout {
                write: write_counted,
                read: None,
            }),
        );
}

// SAFETY: Counted owns its data.
unsafe impl<'de> jitson::DecodeBorrowed<'de> for Counted {}

#[derive(Decode, Debug, PartialEq)]
struct WithBoom {
    a: Counted,
    b: u32,
}

#[test]
fn a_panicking_drop_on_a_slow_path_resumes_in_that_decode() {
    // An escaped key: the JIT resolves it without dropping anything, so no panic.
    for backend in common::backends() {
        let v =
            Decoder::<WithBoom>::with_backend(backend).decode_str(r#"{"a": "boom", "\u0062": 1}"#);
        let v = v.unwrap();
        assert_eq!(v.b, 1);
        // Dropping "boom" panics by design; catch it so nothing leaks.
        let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(v)));
        assert!(dropped.is_err());
        // Whatever happened, nothing is left pending for an unrelated decode.
        let e = Decoder::<u8>::with_backend(backend)
            .decode_str("300")
            .unwrap_err();
        assert_eq!(e.kind(), jitson::ErrorKind::NumberOutOfRange);
    }
}

#[derive(Decode, Debug, PartialEq)]
struct Tree {
    name: Counted,
    #[jitson(default)]
    kids: Vec<Tree>,
}

#[test]
fn escaped_and_non_ascii_keys_do_not_re_decode_subtrees() {
    const LEVELS: usize = 30;
    // 30 levels; every level has its name key escaped and an unknown non-ASCII
    // key after its kids; 1,000 leaves innermost.
    let leaves: Vec<&str> = std::iter::repeat_n(r#"{"name": "l"}"#, 1000).collect();
    let mut doc = format!(r#"{{"name": "root", "kids": [{}]}}"#, leaves.join(","));
    for _ in 0..LEVELS {
        doc = format!(r#"{{"n\u0061me": "x", "kids": [{doc}], "é": 0}}"#);
    }
    for backend in [Backend::Interpreter, Backend::Jit] {
        if !backend.is_available() {
            continue;
        }
        let before = BUILT.get();
        let tree = Decoder::<Tree>::with_backend(backend)
            .decode_str(&doc)
            .unwrap();
        let built = BUILT.get() - before;
        assert_eq!(
            built,
            LEVELS + 1 + 1000,
            "{} built names more than once",
            backend.name()
        );
        drop(tree);
    }
}

#[derive(Decode, Debug, PartialEq)]
struct MapNode {
    #[jitson(default)]
    v: Vec<Counted>,
    #[jitson(default)]
    m: std::collections::HashMap<String, MapNode>,
    #[jitson(default)]
    b: std::collections::BTreeMap<String, MapNode>,
}

/// A document `levels` deep through maps, `leaves` strings at the bottom; at each
/// level an escaped key sits before, after or on the way down (by level), in a
/// `HashMap` or a `BTreeMap` (by level). Returns the document and the number of
/// strings in it.
fn escaped_key_maps(levels: usize, leaves: usize) -> (String, usize) {
    let bottom: Vec<String> = (0..leaves).map(|i| format!("\"{i}\"")).collect();
    let mut doc = format!(r#"{{"v": [{}]}}"#, bottom.join(","));
    let mut strings = leaves;
    for level in 0..levels {
        let sibling = r#"{"v": ["s"]}"#;
        strings += 1;
        let members = match level % 3 {
            0 => format!(r#""\u0065": {sibling}, "down": {doc}"#),
            1 => format!(r#""down": {doc}, "\u0065": {sibling}"#),
            _ => format!(r#""d\u006Fwn": {doc}, "e": {sibling}"#),
        };
        let map = if level % 2 == 0 { "m" } else { "b" };
        doc = format!(r#"{{"v": ["x"], "{map}": {{{members}}}}}"#);
        strings += 1;
    }
    (doc, strings)
}

#[test]
fn escaped_map_keys_do_not_re_decode_subtrees() {
    // Linear work, asserted by counting: each string in the document is built
    // exactly once, on every backend, whatever the depth and the key's position.
    for (levels, leaves) in [(1, 3), (2, 3), (3, 3), (60, 10_000)] {
        let (doc, strings) = escaped_key_maps(levels, leaves);
        let mut values = Vec::new();
        for backend in common::backends() {
            let before = BUILT.get();
            let node = Decoder::<MapNode>::with_backend(backend)
                .max_depth(512)
                .decode_str(&doc)
                .unwrap();
            let built = BUILT.get() - before;
            assert_eq!(
                built,
                strings,
                "{} built strings more than once ({levels} levels)",
                backend.name()
            );
            values.push(node);
        }
        assert!(values.windows(2).all(|w| w[0] == w[1]));
    }
}

/// Recursive enums whose cycle passes through no struct (the payloads' functions
/// are shareable but call the root's).
mod recursive_enums {
    use std::collections::BTreeMap;

    #[derive(jitson::Decode, serde::Deserialize, Debug, PartialEq)]
    pub enum Y {
        B(Box<Y>),
        C,
    }

    #[derive(jitson::Decode, serde::Deserialize, Debug, PartialEq)]
    pub enum X {
        A(u8, u8),
        B(Box<X>),
        C,
    }

    #[derive(jitson::Decode, serde::Deserialize, Debug, PartialEq)]
    pub enum Z {
        B(Option<Box<Z>>),
        C,
    }

    #[derive(jitson::Decode, serde::Deserialize, Debug, PartialEq)]
    #[serde(tag = "t", content = "c")]
    pub enum Adjacent {
        B(Box<Adjacent>),
        C,
    }

    #[derive(jitson::Decode, serde::Deserialize, Debug, PartialEq)]
    pub enum W {
        B(Box<W>, u8),
        C,
    }

    #[derive(jitson::Decode, serde::Deserialize, Debug, PartialEq)]
    #[serde(untagged)]
    pub enum J {
        Null,
        Bool(bool),
        Num(f64),
        Str(String),
        Arr(Vec<J>),
        Obj(BTreeMap<String, J>),
    }
}

/// Decodes `doc` as `T` on the interpreter and on the JIT (where available) and
/// compares each with serde_json; the JIT must compile `T`.
fn same_as_serde_json<T>(doc: &str)
where
    T: Decode + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let expected: T = serde_json::from_str(doc).unwrap();
    for backend in [Backend::Interpreter, Backend::Jit] {
        if !backend.is_available() {
            continue;
        }
        match Decoder::<T>::with_backend(backend).decode_str(doc) {
            Ok(value) => assert_eq!(value, expected, "{} on {doc}", backend.name()),
            Err(e) => {
                assert_ne!(
                    e.kind(),
                    jitson::ErrorKind::BackendUnavailable,
                    "{} on {doc}: {e}",
                    backend.name()
                );
                panic!("{} on {doc}: {e}", backend.name());
            }
        }
    }
}

#[test]
fn enums_recursive_without_a_struct_compile() {
    use recursive_enums::*;
    for doc in [r#""C""#, r#"{"B":"C"}"#, r#"{"B":{"B":"C"}}"#] {
        same_as_serde_json::<Y>(doc);
    }
    for doc in [
        r#""C""#,
        r#"{"B":"C"}"#,
        r#"{"B":{"A":[1,2]}}"#,
        r#"{"B":{"B":"C"}}"#,
    ] {
        same_as_serde_json::<X>(doc);
    }
    for doc in [
        r#""C""#,
        r#"{"B":"C"}"#,
        r#"{"B":null}"#,
        r#"{"B":{"B":"C"}}"#,
    ] {
        same_as_serde_json::<Z>(doc);
    }
    for doc in [r#"{"t":"C"}"#, r#"{"t":"B","c":{"t":"C"}}"#] {
        same_as_serde_json::<Adjacent>(doc);
    }
    for doc in [r#""C""#, r#"{"B":["C",1]}"#, r#"{"B":[{"B":["C",2]},1]}"#] {
        same_as_serde_json::<W>(doc);
    }
    for doc in [
        "null",
        "true",
        "1.5",
        r#""s""#,
        r#"[1,"a",{"k":[true,null]}]"#,
        r#"{"a":{"b":{"c":[]}}}"#,
    ] {
        same_as_serde_json::<J>(doc);
    }
    // Compiled for another root, the enum's functions go to the library.
    same_as_serde_json::<Vec<Y>>(r#"["C",{"B":{"B":"C"}}]"#);
    same_as_serde_json::<Vec<J>>(r#"[null,[1,{"k":"v"}]]"#);
}
