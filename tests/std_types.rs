//! std types serde reads as another type and converts (sets, deques, boxed
//! slices, shared pointers, cells, `NonZero*`, `std::net`, `PathBuf`,
//! `Duration`): every backend, both entry points, compared with serde_json.

mod common;

use std::cell::RefCell;
use std::collections::{BTreeSet, HashSet, VecDeque};
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::num::{NonZeroI64, NonZeroU16};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use common::oracle::agree;
use jitson::{Decode, ErrorKind};
use serde::Deserialize;

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Service {
    hosts: HashSet<String>,
    ordered: BTreeSet<u32>,
    queue: VecDeque<i8>,
    boxed: Box<[u16]>,
    port: NonZeroU16,
    offset: NonZeroI64,
    ip: IpAddr,
    v6: Ipv6Addr,
    listen: SocketAddr,
    root: PathBuf,
    timeout: Duration,
    cell: RefCell<Vec<u8>>,
    wrapped: std::num::Wrapping<u8>,
}

const SERVICE: &str = r#"{
  "hosts": ["a", "b", "a"], "ordered": [3, 1, 2, 3], "queue": [-1, 0, 1], "boxed": [7, 8],
  "port": 8080, "offset": -5, "ip": "10.0.0.1", "v6": "::1", "listen": "[::1]:443",
  "root": "/srv/app", "timeout": {"secs": 3, "nanos": 500}, "cell": [1, 2], "wrapped": 255
}"#;

#[test]
fn std_types_match_serde_json() {
    let s = agree::<Service>(SERVICE.as_bytes()).expect("decodes");
    assert_eq!(s.hosts.len(), 2);
    assert_eq!(s.ordered.iter().copied().collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(s.timeout, Duration::new(3, 500));
    assert_eq!(s.port.get(), 8080);
}

#[test]
fn refusals_match_serde_json() {
    let replace = |from: &str, to: &str| SERVICE.replacen(from, to, 1);
    for doc in [
        replace("8080", "0"),
        replace("-5", "0"),
        replace("10.0.0.1", "10.0.0"),
        replace("[::1]:443", "::1"),
        replace(r#""nanos": 500"#, r#""nanos": 500, "x": 1"#),
        replace(r#""secs": 3"#, r#""secs": 18446744073709551615"#)
            .replace(r#""nanos": 500"#, r#""nanos": 1000000000"#),
        replace(r#"["a", "b", "a"]"#, r#"["a", 1]"#),
        replace("8080", "70000"),
    ] {
        assert!(agree::<Service>(doc.as_bytes()).is_err(), "{doc}");
    }
    let e = common::err::<Service>(replace("8080", "0").as_bytes());
    assert_eq!(e.kind(), ErrorKind::InvalidValue);
    assert_eq!(e.path(), "$.port");
    assert!(
        e.to_string()
            .starts_with("invalid value: integer `0`, expected a nonzero u16"),
        "{e}"
    );
}

#[derive(Decode, Debug, PartialEq)]
struct Shared {
    name: Rc<str>,
    names: Arc<[String]>,
    node: Arc<Vec<u8>>,
}

#[test]
fn shared_pointers_hold_their_content() {
    // serde needs its `rc` feature for these; compared with the expected values.
    let v = common::decode::<Shared>(br#"{"name": "x\n", "names": ["a"], "node": [1]}"#).unwrap();
    assert_eq!(&*v.name, "x\n");
    assert_eq!(&*v.names, ["a".to_owned()]);
    assert_eq!(*v.node, [1]);
}

// ---------------------------------------------------------------------------
// Map keys parsed from their text, as serde_json parses them.

#[derive(Decode, Deserialize, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Clone, Copy)]
struct Port(u16);

#[derive(Decode, Deserialize, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Level {
    Low,
    High,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Keyed {
    by_id: std::collections::HashMap<u64, String>,
    signed: std::collections::BTreeMap<i8, bool>,
    flags: std::collections::BTreeMap<bool, u8>,
    ports: std::collections::BTreeMap<Port, String>,
    levels: std::collections::HashMap<Level, u32>,
    chars: std::collections::BTreeMap<char, u8>,
    floats: Vec<(std::collections::BTreeMap<String, f64>,)>,
}

#[test]
fn map_keys_are_parsed_like_serde_json() {
    let doc = r#"{"by_id": {"1": "a", "18446744073709551615": "max", "1": "again"},
        "signed": {"-128": true, "7": false}, "flags": {"true": 1, "false": 0},
        "ports": {"443": "https"}, "levels": {"high": 2, "low": 1}, "chars": {"é": 1},
        "floats": [[{"x": 1.5}]]}"#;
    let v = agree::<Keyed>(doc.as_bytes()).expect("decodes");
    assert_eq!(v.by_id[&1], "again");
    assert_eq!(v.ports[&Port(443)], "https");
    for (from, to) in [
        (r#""1": "a""#, r#""01": "a""#),
        (r#""1": "a""#, r#""1 ": "a""#),
        (r#""1": "a""#, r#"" 1": "a""#),
        (r#""1": "a""#, r#""x": "a""#),
        (r#""1": "a""#, r#""1.5": "a""#),
        (r#""1": "a""#, r#""-1": "a""#),
        (r#""1": "a""#, r#""18446744073709551616": "a""#),
        (r#""1": "a""#, r#""\u0031": "a""#),
        (r#""1": "a""#, r#""": "a""#),
        (r#""-128": true"#, r#""-129": true"#),
        (r#""true": 1"#, r#""True": 1"#),
        (r#""true": 1"#, r#""tru": 1"#),
        (r#""443""#, r#""70000""#),
        (r#""high""#, r#""mid""#),
        (r#""é""#, r#""éé""#),
        (r#""1": "a""#, r#""1": 2"#),
        (r#""1": "a""#, r#""1" "a""#),
    ] {
        let bad = doc.replacen(from, to, 1);
        assert!(agree::<Keyed>(bad.as_bytes()).is_err(), "{bad}");
    }
    let e = common::err::<Keyed>(doc.replacen(r#""1": "a""#, r#""1": 2"#, 1).as_bytes());
    assert_eq!(e.path(), r#"$.by_id["1"]"#);
}

/// A key text for the generated maps: numbers of every shape serde_json
/// reads or refuses as keys, bools, unit variants, chars, escapes, spaces.
fn key_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop_oneof![
        Just("0".to_owned()),
        Just("-0".to_owned()),
        Just("01".to_owned()),
        Just("1.5".to_owned()),
        Just("1e2".to_owned()),
        Just("-128".to_owned()),
        Just("-129".to_owned()),
        Just("255".to_owned()),
        Just("65536".to_owned()),
        Just("18446744073709551615".to_owned()),
        Just("18446744073709551616".to_owned()),
        Just(" 1".to_owned()),
        Just("1 ".to_owned()),
        Just("\\u0031".to_owned()),
        Just(String::new()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        Just("tru".to_owned()),
        Just("high".to_owned()),
        Just("low".to_owned()),
        Just("High".to_owned()),
        Just("é".to_owned()),
        Just("ab".to_owned()),
        Just("\u{1}x".to_owned()),
        Just("\\\\".to_owned()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<i8>().prop_map(|n| n.to_string()),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// Objects of generated keys and values, with and without whitespace,
    /// decoded into maps of every parsed key type on every backend: the
    /// same values as serde_json, or the same error category.
    #[test]
    fn maps_with_generated_parsed_keys_agree_with_serde_json(
        members in proptest::collection::vec(
            (key_text(), proptest::sample::select(&["1", "0", "300", "-1", "true", "\"x\"", "null", "[1]"][..])),
            0..6,
        ),
        spaced in proptest::prelude::any::<bool>(),
    ) {
        use std::collections::{BTreeMap, HashMap};
        let (colon, comma) = if spaced { (" : ", " ,\n ") } else { (":", ",") };
        let body: Vec<String> = members
            .iter()
            .map(|(k, v)| format!("\"{k}\"{colon}{v}"))
            .collect();
        let doc = format!("{{{}}}", body.join(comma));
        let doc = doc.as_bytes();
        let _ = agree::<HashMap<u64, u8>>(doc);
        let _ = agree::<BTreeMap<i8, bool>>(doc);
        let _ = agree::<BTreeMap<bool, u8>>(doc);
        let _ = agree::<BTreeMap<Port, String>>(doc);
        let _ = agree::<HashMap<Level, u32>>(doc);
        let _ = agree::<BTreeMap<char, Option<u8>>>(doc);
        let _ = agree::<BTreeMap<i64, Vec<u8>>>(doc);
        let _ = agree::<BTreeMap<std::num::NonZeroU32, u8>>(doc);
        let _ = agree::<BTreeMap<std::num::Wrapping<i8>, u8>>(doc);
        let _ = agree::<BTreeMap<std::cmp::Reverse<u64>, u8>>(doc);
        let _ = agree::<BTreeMap<Box<u16>, u8>>(doc);
        let _ = agree::<BTreeMap<Option<u64>, u8>>(doc);
        let _ = agree::<BTreeMap<Option<bool>, u8>>(doc);
    }
}

/// A `bool` key whose first byte is neither `t` nor `f`: serde_json passes
/// over that byte, whatever it is (a control byte, a lone backslash, a byte
/// that is not UTF-8 on its own), and reads the rest of the key as a string.
#[test]
fn bool_keys_pass_over_their_first_byte_as_serde_json_does() {
    for doc in [
        &b"{\"\x01x\":1}"[..],
        b"{\"\x1f\":1}",
        b"{\"\\\":1}",
        b"{\"\x80\":1}",
        b"{\"\xff\":1}",
        b"{\"\xc3\xa9\":1}",
        b"{\"\":1}",
        b"{\"x\xff\":1}",
        b"{\"ab\":1,\"true\":2}",
    ] {
        let _ = agree::<std::collections::BTreeMap<bool, u8>>(doc);
    }
}

/// Keys whose type wraps a key type (a conversion, a box, an option) are
/// read as the wrapped type, as serde_json reads them.
#[test]
fn wrapped_key_types_are_read_as_the_type_they_wrap() {
    use std::collections::BTreeMap;
    use std::num::NonZeroU32;
    let v = agree::<BTreeMap<NonZeroU32, u8>>(br#"{"1": 1, "42": 2}"#).expect("decodes");
    assert_eq!(v[&NonZeroU32::new(42).expect("not zero")], 2);
    assert!(agree::<BTreeMap<NonZeroU32, u8>>(br#"{"0": 1}"#).is_err());
    let v = agree::<BTreeMap<Option<bool>, u8>>(br#"{"true": 1}"#).expect("decodes");
    assert_eq!(v[&Some(true)], 1);
    let v = agree::<BTreeMap<Box<u16>, u8>>(br#"{"7": 1}"#).expect("decodes");
    assert_eq!(v[&Box::new(7)], 1);
    let _ = agree::<BTreeMap<std::cmp::Reverse<u64>, u8>>(br#"{"3": 1, "x": 2}"#);
    let _ = agree::<BTreeMap<std::num::Wrapping<u32>, u8>>(br#"{"4294967295": 1}"#);
}

/// The maps of `Keyed` run in compiled code, their keys read by the
/// interpreter's key reader: none of them is listed as interpreted.
#[test]
fn maps_with_parsed_keys_are_compiled() {
    if !jitson::Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Keyed>().expect("warm_up");
    let interpreted = jitson::stats().interpreted_layouts;
    assert!(
        !interpreted.iter().any(|(ty, _)| ty.contains("Map<")),
        "{interpreted:?}"
    );
}

#[test]
fn a_failing_value_drops_its_parsed_key() {
    // The key type owns memory (a newtype over an enum would not); checked under
    // valgrind by scripts/valgrind.sh std_types.
    #[derive(Decode, Debug, PartialEq, Eq, Hash)]
    struct Tag(String);
    let r = common::decode::<std::collections::HashMap<Tag, u8>>(br#"{"a": 1, "b": 300}"#);
    assert!(r.is_err());
}

// ---------------------------------------------------------------------------
// 128-bit integers, read as serde_json reads them.

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Wide {
    u: u128,
    i: i128,
}

#[test]
fn wide_integers_match_serde_json() {
    let texts = [
        "0",
        "1",
        "-0",
        "-1",
        "340282366920938463463374607431768211455",
        "340282366920938463463374607431768211456",
        "-170141183460469231731687303715884105728",
        "-170141183460469231731687303715884105729",
        "170141183460469231731687303715884105727",
        "18446744073709551616",
        "01",
        "1.5",
        "1e3",
        "-",
        "\"1\"",
        "true",
        "null",
        "",
        " 7 ",
        "[1]",
    ];
    for u in texts {
        for i in texts {
            let doc = format!(r#"{{"u": {u}, "i": {i}}}"#);
            let _ = agree::<Wide>(doc.as_bytes());
        }
        let _ = agree::<Wide>(format!(r#"{{"u": 1, "i": {u}"#).as_bytes());
    }
    let v = agree::<Wide>(br#"{"u": 340282366920938463463374607431768211455, "i": -5}"#).unwrap();
    assert_eq!(v.u, u128::MAX);
    let keys = agree::<std::collections::BTreeMap<u128, i128>>(
        br#"{"340282366920938463463374607431768211455": -170141183460469231731687303715884105728}"#,
    )
    .unwrap();
    assert_eq!(keys[&u128::MAX], i128::MIN);
}

// ---------------------------------------------------------------------------
// `()` and unit structs: `null`, as serde_json reads them.

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Marker;

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Units {
    a: (),
    b: Marker,
    n: u8,
    #[serde(default)]
    c: Option<char>,
}

#[test]
fn units_match_serde_json() {
    for value in [
        "null", " null ", "nul", "nulll", "0", "\"\"", "[]", "{}", "true", "",
    ] {
        let doc = format!(r#"{{"a": {value}, "b": null, "n": 1}}"#);
        let _ = agree::<Units>(doc.as_bytes());
        let doc = format!(r#"{{"a": null, "b": {value}, "n": 2}}"#);
        let _ = agree::<Units>(doc.as_bytes());
    }
    let v = agree::<Units>(br#"{"n": 3, "b": null, "a": null}"#).unwrap();
    assert_eq!(v.n, 3);
    // chars: one character, escaped or not, or an error.
    for c in [
        r#""a""#,
        r#""é""#,
        r#""😀""#,
        r#""\n""#,
        r#""\u00e9""#,
        r#""ab""#,
        r#""""#,
        "\"\u{1}\"",
        r#""\ud83d\ude00""#,
        "1",
        "null",
        r#""a"#,
    ] {
        let doc = format!(r#"{{"a": null, "b": null, "n": 1, "c": {c}}}"#);
        let _ = agree::<Units>(doc.as_bytes());
    }
}

/// 128-bit integers, units and the types read through a conversion (sets,
/// cells, non-zero integers, …) are compiled, not handed to the interpreter.
#[test]
fn wide_integers_units_and_conversions_are_lowered() {
    if !jitson::Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Wide>().expect("compiles");
    jitson::warm_up::<Units>().expect("compiles");
    jitson::warm_up::<Service>().expect("compiles");
    let handed = jitson::stats().interpreted_layouts;
    let converted = [
        "std::collections::hash::set::HashSet",
        "alloc::collections::btree::set::BTreeSet",
        "alloc::collections::vec_deque::VecDeque",
        "core::num::nonzero::NonZero",
        "core::cell::RefCell",
    ];
    for prefix in converted {
        assert!(
            !handed.iter().any(|(ty, _)| ty.starts_with(prefix)),
            "{prefix} in {handed:?}"
        );
    }
    for name in ["u128", "i128", "()", "std_types::Marker", "char"] {
        assert!(
            !handed.iter().any(|(ty, _)| ty == name),
            "{name} in {handed:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// Records serde reads as structs (`SystemTime`, the ranges), atomics and
// 128-bit non-zero integers.

/// Asserts that every backend and serde_json give the same value for `doc`, or
/// all fail with serde_json's message; or that jitson refuses a struct given
/// as an array, its deliberate difference 2 (docs/semantics.md).
fn same_outcome<T: Decode + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(doc: &str) {
    let ours = common::decode::<T>(doc.as_bytes());
    let theirs = serde_json::from_str::<T>(doc);
    match (ours, theirs) {
        (Ok(ours), Ok(theirs)) => assert_eq!(ours, theirs, "{doc}"),
        (Err(ours), _) if common::oracle::is_struct_from_array(&ours) => {}
        (Err(ours), Err(theirs)) => {
            let theirs = theirs.to_string();
            let message = theirs.split(" at line ").next().unwrap_or_default();
            assert!(
                ours.to_string().starts_with(message),
                "{doc}\n  jitson:     {ours}\n  serde_json: {theirs}"
            );
        }
        (ours, theirs) => panic!("{doc}\n  jitson:     {ours:?}\n  serde_json: {theirs:?}"),
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Clock {
    at: std::time::SystemTime,
    span: std::ops::Range<u32>,
    inclusive: std::ops::RangeInclusive<i64>,
    from: std::ops::RangeFrom<u8>,
    to: std::ops::RangeTo<String>,
    timeout: Duration,
    big: std::num::NonZeroU128,
    negative: std::num::NonZeroI128,
}

const CLOCK: &str = r#"{"at": {"secs_since_epoch": 1700000000, "nanos_since_epoch": 5},
 "span": {"start": 1, "end": 9}, "inclusive": {"start": -3, "end": 3},
 "from": {"start": 7}, "to": {"end": "z"}, "timeout": {"secs": 2, "nanos": 1},
 "big": 340282366920938463463374607431768211455, "negative": -1}"#;

#[test]
fn records_match_serde_json() {
    let v = agree::<Clock>(CLOCK.as_bytes()).expect("decodes");
    assert_eq!(v.span, 1..9);
    assert_eq!(v.inclusive, -3..=3);
    assert_eq!(
        v.at,
        std::time::UNIX_EPOCH + Duration::new(1_700_000_000, 5)
    );
    // Each member replaced by other forms: arrays of the fields in order, keys
    // missing, repeated, unknown or escaped, wrong types, and the overflows
    // serde checks.
    let members: [(&str, &[&str]); 8] = [
        (
            r#"{"secs_since_epoch": 1700000000, "nanos_since_epoch": 5}"#,
            &[
                "[1700000000, 5]",
                "[1700000000]",
                "[1700000000, 5, 6]",
                "[]",
                r#"{"secs_since_epoch": 1}"#,
                r#"{"nanos_since_epoch": 1}"#,
                r#"{"secs_since_epoch": 1, "nanos_since_epoch": 2, "x": 3}"#,
                r#"{"secs_since_epoch": 1, "secs_since_epoch": 2, "nanos_since_epoch": 3}"#,
                r#"{"nanos_since_epoch": 3, "secs_since_epoch": 1}"#,
                r#"{"secs_since\u005fepoch": 1, "nanos_since_epoch": 2}"#,
                r#"{"secs_since_epoch": 18446744073709551615, "nanos_since_epoch": 1000000000}"#,
                r#"{"secs_since_epoch": 18446744073709551615, "nanos_since_epoch": 999999999}"#,
                r#"{"secs_since_epoch": 9223372036854775807, "nanos_since_epoch": 999999999}"#,
                r#"{"secs_since_epoch": 9223372036854775806, "nanos_since_epoch": 2000000000}"#,
                r#"{"secs_since_epoch": 0, "nanos_since_epoch": 4294967295}"#,
                r#"{"secs_since_epoch": -1, "nanos_since_epoch": 0}"#,
                r#"{"secs_since_epoch": 1.5, "nanos_since_epoch": 0}"#,
                r#"{"secs_since_epoch": 1, "nanos_since_epoch": 4294967296}"#,
                r#"{"secs": 1, "nanos": 2}"#,
                "{}",
                "null",
                "1700000000",
                r#""1700000000""#,
            ],
        ),
        (
            r#"{"start": 1, "end": 9}"#,
            &[
                "[1, 9]",
                "[9, 1]",
                "[1]",
                "[1, 9, 10]",
                r#"{"end": 9, "start": 1}"#,
                r#"{"start": 1}"#,
                r#"{"end": 1}"#,
                r#"{"start": 1, "end": 9, "step": 1}"#,
                r#"{"start": 1, "start": 2, "end": 9}"#,
                r#"{"start": -1, "end": 9}"#,
                r#"{"start": 1, "end": null}"#,
                "{}",
                "[]",
                "null",
                "1",
            ],
        ),
        (
            r#"{"start": -3, "end": 3}"#,
            &[
                "[-3, 3]",
                "[3, -3]",
                "[-3]",
                r#"{"start": -3}"#,
                r#"{"start": -3, "end": 3, "exhausted": true}"#,
                r#"{"end": 3, "end": 3, "start": 0}"#,
                r#"{"start": "-3", "end": 3}"#,
                "null",
            ],
        ),
        (
            r#"{"start": 7}"#,
            &[
                "[7]",
                "[7, 8]",
                "[]",
                r#"{"start": 256}"#,
                r#"{"end": 7}"#,
                r#"{"start": 7, "end": 8}"#,
                r#"{"start": 7, "start": 7}"#,
                "{}",
            ],
        ),
        (
            r#"{"end": "z"}"#,
            &[
                r#"["z"]"#,
                r#"["z", "y"]"#,
                r#"{"end": "\u00e9"}"#,
                r#"{"end": 1}"#,
                r#"{"start": "a", "end": "z"}"#,
                "{}",
            ],
        ),
        (
            r#"{"secs": 2, "nanos": 1}"#,
            &[
                "[2, 1]",
                "[2]",
                r#"{"secs": 18446744073709551615, "nanos": 1000000000}"#,
                r#"{"secs": 18446744073709551614, "nanos": 1000000000}"#,
                r#"{"secs": 2, "nanos": 1, "nanos": 1}"#,
                r#"{"secs_since_epoch": 2, "nanos_since_epoch": 1}"#,
            ],
        ),
        (
            "340282366920938463463374607431768211455",
            &[
                "0",
                "1",
                "340282366920938463463374607431768211456",
                "-1",
                "1.0",
                r#""1""#,
            ],
        ),
        (
            "-1",
            &[
                "0",
                "-0",
                "-170141183460469231731687303715884105728",
                "-170141183460469231731687303715884105729",
                "170141183460469231731687303715884105727",
                "1e3",
            ],
        ),
    ];
    for (member, others) in members {
        for other in others {
            let doc = CLOCK.replacen(member, other, 1);
            assert_ne!(doc, CLOCK, "{member} is in the document");
            same_outcome::<Clock>(&doc);
        }
    }
}

#[derive(Decode, Deserialize, Debug)]
struct Counters {
    hits: std::sync::atomic::AtomicU64,
    on: std::sync::atomic::AtomicBool,
    delta: std::sync::atomic::AtomicI8,
    size: std::sync::atomic::AtomicUsize,
}

impl PartialEq for Counters {
    fn eq(&self, other: &Self) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        (
            self.hits.load(Relaxed),
            self.on.load(Relaxed),
            self.delta.load(Relaxed),
            self.size.load(Relaxed),
        ) == (
            other.hits.load(Relaxed),
            other.on.load(Relaxed),
            other.delta.load(Relaxed),
            other.size.load(Relaxed),
        )
    }
}

#[test]
fn atomics_match_serde_json() {
    for (hits, on, delta) in [
        ("18446744073709551615", "true", "-128"),
        ("0", "false", "127"),
        ("18446744073709551616", "true", "0"),
        ("1", "1", "0"),
        ("1", "true", "128"),
        ("-1", "true", "0"),
        ("null", "true", "0"),
        ("1.0", "true", "0"),
        (r#""1""#, "true", "0"),
    ] {
        same_outcome::<Counters>(&format!(
            r#"{{"hits": {hits}, "on": {on}, "delta": {delta}, "size": 4}}"#
        ));
    }
}

/// The records whose fields are public are lowered as structs; `SystemTime`
/// and `RangeInclusive` go through a conversion, as `Duration` does.
#[test]
fn records_are_lowered() {
    if !jitson::Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Clock>().expect("compiles");
    let handed = jitson::stats().interpreted_layouts;
    assert!(
        !handed
            .iter()
            .any(|(ty, _)| ty.contains("ops::range::Range<")),
        "{handed:?}"
    );
}

// ---------------------------------------------------------------------------
// `Result` and `Bound`: enums serde writes externally tagged.

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Outcomes {
    result: Result<u8, String>,
    bound: std::ops::Bound<i32>,
    nested: Vec<Result<Option<std::ops::Bound<String>>, ()>>,
}

const OUTCOMES: &str = r#"{"result": {"Ok": 7}, "bound": {"Included": -1},
 "nested": [{"Ok": null}, {"Ok": "Unbounded"}, {"Ok": {"Excluded": "x"}}, {"Err": null}]}"#;

#[test]
fn results_and_bounds_match_serde_json() {
    let v = agree::<Outcomes>(OUTCOMES.as_bytes()).expect("decodes");
    assert_eq!(v.result, Ok(7));
    assert_eq!(v.bound, std::ops::Bound::Included(-1));
    let members: [(&str, &[&str]); 3] = [
        (
            r#"{"Ok": 7}"#,
            &[
                r#"{"Err": "no"}"#,
                r#"{"Err": "\u00e9\n"}"#,
                r#"{"Err": 7}"#,
                r#"{"Ok": 256}"#,
                r#"{"Ok": "7"}"#,
                r#"{"Ok": 7, "Err": "x"}"#,
                r#"{"ok": 7}"#,
                r#"{"O\u006b": 7}"#,
                r#"{"Other": 7}"#,
                r#"{}"#,
                r#""Ok""#,
                r#""Err""#,
                r#"["Ok", 7]"#,
                "0",
                "null",
                r#"{"Ok": }"#,
            ],
        ),
        (
            r#"{"Included": -1}"#,
            &[
                r#""Unbounded""#,
                r#"{"Unbounded": null}"#,
                r#"{"Unbounded": 1}"#,
                r#"{"Excluded": 2147483647}"#,
                r#"{"Excluded": 2147483648}"#,
                r#""Included""#,
                r#"{"Included": null}"#,
                r#""unbounded""#,
                r#"{"Included": 1, "Included": 2}"#,
                "[]",
                "1",
            ],
        ),
        (
            r#"{"Ok": {"Excluded": "x"}}"#,
            &[
                r#"{"Err": null}"#,
                r#"{"Err": 1}"#,
                r#"{"Ok": {"Excluded": 1}}"#,
                r#"{"Ok": "Excluded"}"#,
            ],
        ),
    ];
    for (member, others) in members {
        for other in others {
            let doc = OUTCOMES.replacen(member, other, 1);
            assert_ne!(doc, OUTCOMES, "{member} is in the document");
            same_outcome::<Outcomes>(&doc);
        }
    }
}

#[test]
fn results_and_bounds_are_lowered() {
    if !jitson::Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Outcomes>().expect("compiles");
    let handed = jitson::stats().interpreted_layouts;
    assert!(
        !handed
            .iter()
            .any(|(ty, _)| ty.contains("Result<") || ty.contains("Bound<")),
        "{handed:?}"
    );
}

// ---------------------------------------------------------------------------
// Internally tagged newtype variants holding records read through a
// conversion, and externally tagged enums: serde reads the object without its
// tag's member.

#[derive(Decode, jitson::Encode, Deserialize, serde::Serialize, Debug, PartialEq)]
#[serde(tag = "t")]
enum Tagged {
    D(Duration),
    S(std::time::SystemTime),
    R(std::ops::RangeInclusive<u8>),
    E(Result<u8, u8>),
    B(std::ops::Bound<u8>),
    U(Plain),
    // Through what serde reads from the same object.
    BD(Box<Duration>),
    OD(Option<Duration>),
    BR(Box<std::ops::Range<u8>>),
    ORes(Option<Result<u8, u8>>),
    BU(Box<Plain>),
    OU(Option<Plain>),
    N(Wrapped),
    // A boxed map, as a model may hold one: the box is what is tested.
    #[allow(clippy::box_collection)]
    BM(Box<std::collections::BTreeMap<String, u8>>),
    BS(Box<Strict>),
    // Untagged enums: each variant is tried on the object without the tag.
    UT(Either),
    OptUT(Option<Either>),
    BoxUT(Box<Either>),
}

#[derive(Decode, jitson::Encode, Deserialize, serde::Serialize, Debug, PartialEq)]
#[serde(untagged)]
enum Either {
    Strict(Strict),
    Map(std::collections::BTreeMap<String, u8>),
    Nested(Inner),
}

#[derive(Decode, jitson::Encode, Deserialize, serde::Serialize, Debug, PartialEq)]
#[serde(untagged)]
enum Inner {
    Pair { p: u8, q: u8 },
}

#[derive(Decode, jitson::Encode, Deserialize, serde::Serialize, Debug, PartialEq)]
struct Wrapped(Plain);

#[derive(Decode, jitson::Encode, Deserialize, serde::Serialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Strict {
    a: u8,
}

#[derive(Decode, jitson::Encode, Deserialize, serde::Serialize, Debug, PartialEq)]
enum Plain {
    A(u8),
    B { x: u8 },
    C,
}

#[test]
fn internally_tagged_payloads_read_without_their_tag() {
    for doc in [
        r#"{"t":"D","secs":1,"nanos":2}"#,
        r#"{"secs":1,"t":"D","nanos":2}"#,
        r#"{"secs":1,"nanos":2,"t":"D"}"#,
        r#"{"t":"D","secs":1,"nanos":2,"t":"D"}"#,
        r#"{"t":"D","secs":1}"#,
        r#"{"t":"D","secs":1,"nanos":2,"x":3}"#,
        r#"{"t":"S","secs_since_epoch":1,"nanos_since_epoch":2}"#,
        r#"{"t":"R","start":1,"end":2}"#,
        r#"{"start":1,"end":2,"t":"R"}"#,
        r#"{"t":"E","Ok":1}"#,
        r#"{"Ok":1,"t":"E"}"#,
        r#"{ "Err" : 2 , "t" : "E" }"#,
        r#"{"t":"E","Ok":1,"Err":2}"#,
        r#"{"t":"E"}"#,
        r#"{"t":"E","Ok":1,"t":"E"}"#,
        r#"{"t":"E","ok":1}"#,
        r#"{"t":"E","Ok":"x"}"#,
        r#"{"t":"B","Included":1}"#,
        r#"{"t":"B","Unbounded":null}"#,
        r#"{"t":"U","A":1}"#,
        r#"{"B":{"x":1},"t":"U"}"#,
        r#"{"t":"U","C":null}"#,
        r#"{"t":"U","A":1,"x":1}"#,
        r#"{"x":1,"t":"U","A":1}"#,
        r#"{"t":"U","A":1"#,
        r#"{"t":"BD","secs":1,"nanos":2}"#,
        r#"{"secs":1,"nanos":2,"t":"OD"}"#,
        r#"{"t":"OD"}"#,
        r#"{"t":"BR","start":1,"end":2}"#,
        r#"{"t":"ORes","Ok":1}"#,
        r#"{"Err":1,"t":"ORes"}"#,
        r#"{"t":"BU","A":1}"#,
        r#"{"t":"OU","B":{"x":1}}"#,
        r#"{"t":"OU"}"#,
        r#"{"t":"OU","A":1,"x":2}"#,
        r#"{"t":"N","C":null}"#,
        r#"{"t":"BM","a":1,"b":2}"#,
        r#"{"t":"BS","a":1}"#,
        r#"{"a":1,"t":"BS"}"#,
        r#"{"t":"BS","a":1,"b":2}"#,
        r#"{"t":"UT","a":1}"#,
        r#"{"a":1,"t":"UT"}"#,
        r#"{"t":"UT","n":1,"m":2}"#,
        r#"{"t":"UT","p":300,"q":2}"#,
        r#"{"t":"UT","x":"y"}"#,
        r#"{"t":"UT"}"#,
        r#"{"t":"UT","a":1,"t":"UT"}"#,
        r#"{"t":"OptUT","a":1}"#,
        r#"{"t":"OptUT"}"#,
        r#"{"n":1,"t":"BoxUT"}"#,
    ] {
        same_outcome::<Tagged>(doc);
    }
    // And written back as serde writes them.
    for value in [
        Tagged::BD(Box::new(Duration::new(1, 2))),
        Tagged::OD(None),
        Tagged::ORes(Some(Err(3))),
        Tagged::OU(Some(Plain::B { x: 4 })),
        Tagged::N(Wrapped(Plain::A(5))),
        Tagged::N(Wrapped(Plain::C)),
        Tagged::BS(Box::new(Strict { a: 6 })),
    ] {
        let theirs = serde_json::to_vec(&value).map_err(|e| e.to_string());
        for backend in common::backends() {
            let ours = jitson::Encoder::with_backend(backend)
                .encode(&value)
                .map_err(|e| e.to_string());
            match (&ours, &theirs) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{value:?} {backend:?}"),
                (Err(a), Err(b)) => assert!(a.starts_with(b.as_str()), "{value:?}: {a} / {b}"),
                _ => panic!("{value:?} {backend:?}: {ours:?} / {theirs:?}"),
            }
        }
    }
}

/// serde's range impls require `start` and `end` whatever their type: a
/// range of `Option`s given no `start` is an error, not `None..`.
#[test]
fn range_ends_are_required_even_when_optional() {
    use std::ops::{Range, RangeFrom, RangeInclusive, RangeTo};
    for doc in [
        "{}",
        r#"{"end":1}"#,
        r#"{"start":1}"#,
        r#"{"start":null,"end":3}"#,
        r#"{"start":1,"end":null}"#,
        r#"{"end":1,"start":2}"#,
    ] {
        same_outcome::<Range<Option<u8>>>(doc);
        same_outcome::<RangeInclusive<Option<u8>>>(doc);
        same_outcome::<RangeFrom<Option<u8>>>(doc);
        same_outcome::<RangeTo<Option<u8>>>(doc);
        same_outcome::<Range<Box<Option<u8>>>>(doc);
        same_outcome::<Vec<Range<Option<i64>>>>(&format!("[{doc}]"));
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "t")]
enum ScalarPayloads {
    A(u8),
    N(std::num::NonZeroU16),
    S(String),
    B(bool),
    U(()),
}

/// An internally tagged enum in sequence form with a scalar payload: serde
/// reads the payload from the rest of the sequence and refuses it in the
/// payload's words.
#[test]
fn scalar_payloads_in_sequence_form_are_refused_in_their_words() {
    for doc in [
        r#"["A",1]"#,
        r#"["A"]"#,
        r#"["N",1]"#,
        r#"["S","x"]"#,
        r#"["B",true,false]"#,
        r#"["U"]"#,
        r#"["U",null]"#,
        r#"["X",1]"#,
    ] {
        // Not `same_outcome`, which lets a struct refuse an array.
        let ours = common::decode::<ScalarPayloads>(doc.as_bytes()).unwrap_err();
        let theirs = serde_json::from_str::<ScalarPayloads>(doc).unwrap_err();
        let theirs = theirs.to_string();
        let reason = theirs.split(" at line ").next().unwrap_or_default();
        assert!(
            ours.to_string().starts_with(reason),
            "{doc}: {ours} / {theirs}"
        );
    }
}

// ---------------------------------------------------------------------------
// Nested tagged enums under an internal tag: serde reads the inner enum from
// the object without the outer tag, so an inner tag of the same key is missing.

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "t")]
enum InnerT {
    W,
    U,
    X { a: u8 },
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "t", content = "c")]
enum InnerAdjacent {
    A(u8),
    U,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "k")]
enum InnerK {
    V { a: u8 },
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum InnerOrMap {
    I(InnerT),
    M(std::collections::BTreeMap<String, String>),
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct InnerNewtype(InnerT);

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "t")]
enum OuterT {
    W(InnerOrMap),
    X(InnerNewtype),
    U(Box<InnerT>),
    O(Option<InnerT>),
    A(InnerAdjacent),
    K(InnerK),
}

#[test]
fn a_nested_tag_of_the_same_key_is_missing_as_in_serde() {
    for doc in [
        r#"{"t":"W","a":"b"}"#,
        r#"{"t":"W"}"#,
        r#"{"t":"X","a":1}"#,
        r#"{"t":"U"}"#,
        r#"{"a":1,"t":"O"}"#,
        r#"{"t":"A","c":1}"#,
        r#"{"t":"K","k":"V","a":1}"#,
        r#"{"k":"V","t":"K","a":1}"#,
        r#"{"t":"K","a":1}"#,
    ] {
        same_outcome::<OuterT>(doc);
    }
}
