//! Encoding: every value's bytes equal serde_json's (`to_vec` and
//! `to_vec_pretty`) on every encoding backend, the refusals serde_json makes
//! refused with a path, and round trips through the decoder.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Debug;

use jitson::{Backend, Encode, Encoder, ErrorKind};
use serde::Serialize;

/// The backends encoding runs on: the interpreter, `Auto`, and the JIT where
/// it can run in this process.
fn backends() -> Vec<Backend> {
    let mut backends = vec![Backend::Interpreter, Backend::Auto];
    if Backend::Jit.is_available() {
        backends.push(Backend::Jit);
    }
    backends
}

/// Asserts jitson's compact and pretty bytes equal serde_json's for `value`.
#[track_caller]
fn same<T: Encode + Serialize + Debug>(value: &T) {
    let compact = serde_json::to_vec(value).unwrap();
    let pretty = serde_json::to_vec_pretty(value).unwrap();
    for backend in backends() {
        let encoder = Encoder::<T>::with_backend(backend);
        let got = encoder.encode(value).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&compact),
            "compact, {backend:?}, {value:?}"
        );
        let got = encoder.pretty(true).encode(value).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&pretty),
            "pretty, {backend:?}, {value:?}"
        );
    }
    assert_eq!(jitson::to_vec(value).unwrap(), compact);
    assert_eq!(jitson::to_vec_pretty(value).unwrap(), pretty);
    assert_eq!(jitson::to_string(value).unwrap().as_bytes(), compact);
    assert_eq!(jitson::to_string_pretty(value).unwrap().as_bytes(), pretty);
}

#[derive(jitson::Encode, jitson::Decode, Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct User {
    user_id: u64,
    #[serde(rename = "login")]
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<String>,
    #[serde(skip_serializing, default)]
    cache: u64,
    tags: Vec<String>,
    score: f64,
    ratio: f32,
    active: bool,
    nested: Option<Box<User>>,
}

fn user(depth: usize) -> User {
    User {
        user_id: 42 + depth as u64,
        name: format!("ü\"ser\n{depth}"),
        email: depth.is_multiple_of(2).then(|| "a@b.c".to_owned()),
        cache: 9,
        tags: vec!["a".into(), "\u{1f}".into(), String::new()],
        score: 1.0 / (depth as f64 + 3.0),
        ratio: 0.1,
        active: depth.is_multiple_of(3),
        nested: (depth > 0).then(|| Box::new(user(depth - 1))),
    }
}

#[test]
fn structs_with_serde_attributes() {
    for depth in 0..4 {
        same(&user(depth));
    }
}

#[test]
fn round_trip_through_the_decoder() {
    let u = user(3);
    let bytes = jitson::to_vec(&u).unwrap();
    let back: User = jitson::from_slice(&bytes).unwrap();
    // `cache` is not written, so it comes back as its default.
    assert_eq!(
        back,
        User {
            cache: 0,
            nested: back.nested.clone(),
            ..u.clone()
        }
    );
    let mut expect = u;
    fn clear(u: &mut User) {
        u.cache = 0;
        if let Some(n) = &mut u.nested {
            clear(n);
        }
    }
    clear(&mut expect);
    assert_eq!(back, expect);
}

#[test]
fn scalars_and_float_classes() {
    for f in [
        0.0,
        -0.0,
        1.0,
        1e15,
        1e16,
        1e17,
        1e-5,
        1e-6,
        1e-7,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        -1.5e300,
        0.1 + 0.2,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        same(&f);
        same(&(f as f32));
        same(&vec![f, f]);
    }
    for i in [i64::MIN, -1, 0, 1, i64::MAX] {
        same(&i);
    }
    same(&u64::MAX);
    same(&i128::MIN);
    same(&u128::MAX);
    same(&(1u8, -2i16, 3u32, 'x', '"', "str", true, ()));
    same(&[1u8, 2, 3]);
    same(&Some(5u8));
    same(&None::<u8>);
}

#[test]
fn strings_with_every_escape_at_every_position() {
    let specials = [
        "\"", "\\", "\n", "\r", "\t", "\u{8}", "\u{c}", "\u{0}", "\u{1f}", "\u{7f}", "é",
        "\u{2028}", "😀", "/", "<",
    ];
    for special in specials {
        for pad in 0..40 {
            let s = format!("{}{special}{}", "a".repeat(pad), "ü".repeat(pad % 5));
            same(&s);
        }
    }
}

#[test]
fn maps_and_sets_with_every_key_kind() {
    let mut m = BTreeMap::new();
    m.insert("b\"".to_owned(), vec![1u8]);
    m.insert("a".to_owned(), vec![]);
    same(&m);
    same(&BTreeMap::<String, u8>::new());
    same(&BTreeMap::from([(1i32, "x"), (-5, "y")]));
    same(&BTreeMap::from([(true, 1u8), (false, 2)]));
    same(&BTreeMap::from([('c', 1u8)]));
    same(&BTreeMap::from([(u128::MAX, 1u8)]));
    same(&BTreeSet::from(["x".to_owned(), "y".to_owned()]));
    let h: HashMap<String, u8> = HashMap::from([("only".to_owned(), 1)]);
    same(&h);
    // `Some(k)` is written as `k`, as serde_json's key serializer writes it.
    same(&BTreeMap::from([(Some(1i32), 1u8), (Some(-7), 2)]));
    same(&BTreeMap::from([(Some(Some(true)), 1u8)]));
    same(&BTreeMap::from([(Some("b\n".to_owned()), 1u8)]));
    same(&vec![
        BTreeMap::from([(Some(Box::new('é')), 1u8)]),
        BTreeMap::new(),
    ]);
}

#[test]
fn float_keys_and_refused_keys() {
    /// A float usable as a map key (ordered by its bits).
    #[derive(jitson::Encode, Serialize, Debug, PartialEq)]
    struct Key(f64);
    impl Eq for Key {}
    impl PartialOrd for Key {
        fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for Key {
        fn cmp(&self, other: &Self) -> std::cmp::Ordering {
            self.0.to_bits().cmp(&other.0.to_bits())
        }
    }
    same(&BTreeMap::from([
        (Key(1.5), 1u8),
        (Key(-0.0), 2),
        (Key(1e16), 3),
    ]));
    let nan = BTreeMap::from([(Key(f64::NAN), 1u8)]);
    let e = jitson::to_vec(&nan).unwrap_err();
    assert_eq!(
        e.to_string(),
        serde_json::to_vec(&nan).unwrap_err().to_string()
    );
    let refused: HashMap<(u8, u8), u8> = HashMap::from([((1, 2), 3)]);
    let e = jitson::to_vec(&refused).unwrap_err();
    assert!(serde_json::to_vec(&refused).is_err());
    assert_eq!(e.to_string(), "key must be a string");
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Wrap {
        items: Vec<HashMap<Vec<u8>, u8>>,
    }
    let w = Wrap {
        items: vec![HashMap::new(), HashMap::from([(vec![1], 2)])],
    };
    let e = jitson::to_vec(&w).unwrap_err();
    assert_eq!(e.path(), "$.items[1]");
    assert_eq!(e.to_string(), "key must be a string at $.items[1]");
    // `None` is refused, as serde_json refuses it.
    let none = vec![
        BTreeMap::from([(Some(1u8), 1u8)]),
        BTreeMap::from([(None, 2)]),
    ];
    assert!(serde_json::to_vec(&none).is_err());
    for backend in backends() {
        let e = Encoder::with_backend(backend).encode(&none).unwrap_err();
        assert_eq!(e.to_string(), "key must be a string at $[1]", "{backend:?}");
    }
}

/// Sorted keys follow their strings, not their quoted and escaped text: a key
/// before the keys it is a prefix of, escapes (`\"`, `\\`, `\u0001`, and
/// non-ASCII under `ascii_only`) in the order of the characters they stand
/// for, as serde_json's `Map` (and a `BTreeMap<String, _>`) orders them.
#[test]
fn sort_keys_orders_by_the_strings() {
    let keys = [
        "a b", "z", "a!", "\u{e9}", "a", "a\\", "\"q", "a\u{1}", "ab",
    ];
    let h: HashMap<String, usize> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (k.to_string(), i))
        .collect();
    let sorted: BTreeMap<_, _> = h.iter().map(|(k, v)| (k.clone(), *v)).collect();
    let compact = serde_json::to_string(&sorted).unwrap();
    let pretty = serde_json::to_string_pretty(&sorted).unwrap();
    let ascii = compact.replace('\u{e9}', "\\u00e9");
    assert!(ascii.is_ascii());
    for backend in common::backends() {
        let encoder = Encoder::<HashMap<String, usize>>::with_backend(backend).sort_keys(true);
        for (encoder, expected) in [
            (encoder, &compact),
            (encoder.pretty(true), &pretty),
            (encoder.ascii_only(true), &ascii),
        ] {
            let got = String::from_utf8(encoder.encode(&h).unwrap()).unwrap();
            assert_eq!(&got, expected, "{backend:?}");
        }
    }
}

#[test]
fn sort_keys_and_escaping_options() {
    let h: HashMap<String, u8> = (0..20).map(|i| (format!("k{i:02}"), i)).collect();
    let sorted: BTreeMap<_, _> = h.iter().map(|(k, v)| (k.clone(), *v)).collect();
    let got = Encoder::<HashMap<String, u8>>::new()
        .sort_keys(true)
        .encode(&h)
        .unwrap();
    assert_eq!(got, serde_json::to_vec(&sorted).unwrap());
    let s = "<a href=\"x\">&\u{2028}é</a>".to_owned();
    let got = Encoder::<String>::new()
        .escape_html(true)
        .encode(&s)
        .unwrap();
    assert_eq!(
        String::from_utf8(got).unwrap(),
        r#""\u003ca href=\"x\"\u003e\u0026\u2028é\u003c/a\u003e""#
    );
    let got = Encoder::<String>::new()
        .ascii_only(true)
        .encode(&s)
        .unwrap();
    assert_eq!(got, br#""<a href=\"x\">&\u2028\u00e9</a>""#.to_vec());
    let got = Encoder::<Vec<u8>>::new()
        .indent(4)
        .encode(&vec![1])
        .unwrap();
    assert_eq!(got, b"[\n    1\n]");
}

#[cfg(feature = "serde")]
#[derive(jitson::Encode, Serialize, Debug)]
struct WithValue {
    text: String,
    value: serde_json::Value,
    #[serde(flatten)]
    rest: HashMap<String, serde_json::Value>,
}

/// A `serde_json::Value` (written through serde) takes the escaping options
/// as the encoder's own strings do, keys and values, compact and pretty, on
/// every backend.
#[cfg(feature = "serde")]
#[test]
fn escaping_options_reach_values_written_through_serde() {
    let w = WithValue {
        text: "é<&>".into(),
        value: serde_json::json!({"k": "é<&>\n", "é": ["<x>", 1, "😀\u{2028}"]}),
        rest: HashMap::from([("é<".into(), serde_json::json!({"k": "é<&>"}))]),
    };
    let both = r#"{"text":"\u00e9\u003c\u0026\u003e","value":{"k":"\u00e9\u003c\u0026\u003e\n","\u00e9":["\u003cx\u003e",1,"\ud83d\ude00\u2028"]},"\u00e9\u003c":{"k":"\u00e9\u003c\u0026\u003e"}}"#;
    let ascii = r#"{"text":"\u00e9<&>","value":{"k":"\u00e9<&>\n","\u00e9":["<x>",1,"\ud83d\ude00\u2028"]},"\u00e9<":{"k":"\u00e9<&>"}}"#;
    for backend in backends() {
        let encoder = Encoder::<WithValue>::with_backend(backend);
        let got = encoder
            .ascii_only(true)
            .escape_html(true)
            .encode(&w)
            .unwrap();
        assert_eq!(String::from_utf8(got).unwrap(), both, "{backend:?}");
        let got = encoder.ascii_only(true).encode(&w).unwrap();
        assert_eq!(String::from_utf8(got).unwrap(), ascii, "{backend:?}");
        let pretty = encoder.ascii_only(true).pretty(true).encode(&w).unwrap();
        let reparsed: serde_json::Value = serde_json::from_slice(&pretty).unwrap();
        assert_eq!(reparsed, serde_json::to_value(&w).unwrap(), "{backend:?}");
        assert!(pretty.is_ascii() && pretty.contains(&b'\n'), "{backend:?}");
    }
    // Raw text stays as written (its spacing too), with its strings escaped.
    let raw: jitson::RawValue = jitson::from_str(r#"[ "é<", {"k" : "\n"} ]"#).unwrap();
    let boxed: Box<serde_json::value::RawValue> = serde_json::from_str(r#"{ "é" : "<" }"#).unwrap();
    for backend in backends() {
        let got = Encoder::<jitson::RawValue>::with_backend(backend)
            .ascii_only(true)
            .escape_html(true)
            .encode(&raw)
            .unwrap();
        assert_eq!(
            got,
            br#"[ "\u00e9\u003c", {"k" : "\n"} ]"#.to_vec(),
            "{backend:?}"
        );
        let got = Encoder::<Box<serde_json::value::RawValue>>::with_backend(backend)
            .ascii_only(true)
            .encode(&boxed)
            .unwrap();
        assert_eq!(got, br#"{ "\u00e9" : "<" }"#.to_vec(), "{backend:?}");
    }
}

#[derive(jitson::Encode, Serialize, Debug)]
struct Inner {
    x: u8,
    #[serde(rename(serialize = "why", deserialize = "y"))]
    y: u8,
}

#[derive(jitson::Encode, Serialize, Debug)]
struct Flat {
    a: u8,
    #[serde(flatten)]
    inner: Inner,
    b: u8,
    #[serde(flatten)]
    rest: BTreeMap<String, u8>,
}

#[test]
fn flatten_keeps_declaration_order() {
    same(&Flat {
        a: 1,
        inner: Inner { x: 2, y: 3 },
        b: 4,
        rest: BTreeMap::from([("z".into(), 5)]),
    });
}

#[derive(jitson::Encode, Serialize, Debug)]
#[allow(dead_code, reason = "the skipped field is never written")]
struct Tuple(u8, String, #[serde(skip)] u8, f64);

#[derive(jitson::Encode, Serialize, Debug)]
struct Newtype(Vec<u8>);

#[derive(jitson::Encode, Serialize, Debug)]
#[serde(transparent)]
struct Transparent {
    inner: String,
}

#[derive(jitson::Encode, Serialize, Debug)]
struct Unit;

#[derive(jitson::Encode, Serialize, Debug)]
struct Borrowed<'a> {
    name: &'a str,
    cow: std::borrow::Cow<'a, str>,
    list: &'a [u32],
}

#[test]
fn tuple_newtype_transparent_unit_and_borrowed() {
    same(&Tuple(1, "two".into(), 9, 4.5));
    same(&Newtype(vec![1, 2]));
    same(&Newtype(vec![]));
    same(&Transparent { inner: "t".into() });
    same(&Unit);
    same(&vec![Unit, Unit]);
    let text = String::from("borrowed");
    same(&Borrowed {
        name: &text,
        cow: std::borrow::Cow::Borrowed("cow"),
        list: &[1, 2, 3],
    });
}

#[derive(jitson::Encode, Serialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Level {
    Debug,
    #[serde(rename = "warn")]
    Warning,
    FatalError,
}

#[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
#[serde(tag = "type")]
enum Internal {
    Ping,
}

#[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Ping,
}

#[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
#[serde(untagged)]
enum Untagged {
    Nothing,
}

#[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
enum Skipping {
    Shown,
    #[serde(skip_serializing)]
    Hidden,
}

/// Tuples and tuple structs of numbers (GeoJSON's positions), alone and as
/// the elements of sequences and arrays, with every float class, in compact
/// and pretty output.
#[test]
fn tuples_of_numbers_alone_and_in_sequences() {
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Position(f64, f64);
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Mixed(i8, u64, f32, i64, u16);
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Shape {
        at: Position,
        ring: Vec<Position>,
        rings: Vec<Vec<Position>>,
        mixed: Vec<Mixed>,
        pairs: [(u8, f64); 2],
    }
    let floats = [
        0.0,
        -0.0,
        1.5,
        -2.25e-300,
        1e300,
        f64::NAN,
        f64::INFINITY,
        13.0 / 7.0,
    ];
    let ring: Vec<Position> = floats
        .iter()
        .zip(floats.iter().rev())
        .map(|(&a, &b)| Position(a, b))
        .collect();
    let shape = Shape {
        at: Position(f64::NEG_INFINITY, 51.5),
        rings: vec![vec![], ring.clone(), ring[..1].to_vec()],
        ring,
        mixed: vec![
            Mixed(i8::MIN, u64::MAX, f32::MIN_POSITIVE, i64::MIN, u16::MAX),
            Mixed(0, 0, f32::NAN, -1, 0),
        ],
        pairs: [(0, -0.5), (255, 1e-7)],
    };
    same(&shape);
    same(&Position(1.0, f64::NAN));
    same(&Vec::<Position>::new());
    same(&vec![(1u8, 2i32), (3, -4)]);
    // The longest tuple the loop of tuples of numbers writes, one beyond it,
    // a number beside another kind, a skipped element, a 128-bit integer:
    // the last four go element by element.
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Eight(u8, i16, u32, i64, f32, f64, u16, i8);
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Nine(u8, u8, u8, u8, u8, u8, u8, u8, f64);
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Labelled(f64, String);
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    #[allow(dead_code, reason = "the skipped element is never written")]
    struct Skipping(f64, #[serde(skip)] u32, i64);
    let eight = Eight(1, -2, 3, -4, 0.5, f64::NAN, 7, -8);
    let nine = Nine(1, 2, 3, 4, 5, 6, 7, 8, -0.0);
    same(&eight);
    same(&vec![eight.clone(), eight]);
    same(&nine);
    same(&vec![nine.clone(), nine]);
    same(&vec![
        Labelled(1.5, "a\"b".into()),
        Labelled(f64::INFINITY, String::new()),
    ]);
    same(&vec![Skipping(2.5, 9, -1), Skipping(-0.0, 0, i64::MAX)]);
    same(&vec![(1i128, 2.0f64), (i128::MIN, -3.5)]);
}

#[test]
fn unit_enums_in_every_representation() {
    same(&[Level::Debug, Level::Warning, Level::FatalError]);
    same(&BTreeMap::from([("k", Level::Debug)]));
    same(&HashMap::from([(Level::Warning, 1u8)]));
    same(&Internal::Ping);
    same(&Adjacent::Ping);
    same(&Untagged::Nothing);
    same(&Skipping::Shown);
    let e = jitson::to_vec(&vec![Skipping::Shown, Skipping::Hidden]).unwrap_err();
    let serde_message = serde_json::to_vec(&Skipping::Hidden)
        .unwrap_err()
        .to_string();
    assert_eq!(e.to_string(), format!("{serde_message} at $[1]"));
}

#[test]
fn std_types_serde_writes_as_others() {
    use std::cell::{Cell, RefCell};
    use std::net::{IpAddr, Ipv4Addr, SocketAddr};
    use std::num::NonZeroU32;
    use std::rc::Rc;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;
    same(&Rc::new(5u8));
    same(&Arc::new("s".to_owned()));
    same(&Arc::<str>::from("shared"));
    same(&Box::<[u8]>::from(&[1u8, 2][..]));
    same(&Cell::new(3u8));
    same(&RefCell::new(vec![1u8]));
    same(&Mutex::new("m".to_owned()));
    same(&NonZeroU32::new(7).unwrap());
    same(&IpAddr::V4(Ipv4Addr::LOCALHOST));
    same(&"127.0.0.1:80".parse::<SocketAddr>().unwrap());
    same(&Duration::new(5, 7));
    same(&std::path::PathBuf::from("/tmp/x"));
    same(&std::num::Wrapping(9u8));
    same(&std::collections::VecDeque::from([1u8, 2]));
    same(&std::num::NonZeroU128::new(u128::MAX).unwrap());
    same(&std::num::NonZeroI128::new(i128::MIN).unwrap());
    same(&std::sync::atomic::AtomicU64::new(u64::MAX));
    same(&std::sync::atomic::AtomicBool::new(true));
    same(&vec![std::sync::atomic::AtomicI8::new(-1)]);
    same(&(std::time::UNIX_EPOCH + Duration::new(1_700_000_000, 999_999_999)));
    same(&std::time::UNIX_EPOCH);
    same(&(1u8..5));
    same(&(-5i64..=-1));
    same(&("a".to_owned()..="z".to_owned()));
    same(&(3.5f64..));
    same(&(..'x'));
    let mut exhausted = 1u8..=2;
    exhausted.by_ref().for_each(drop);
    same(&exhausted);
    same(&vec![(1u32..2, Duration::new(0, 1))]);
    same(&vec![Ok::<u8, String>(1), Err("e\n".to_owned())]);
    same(&Some(Err::<(), _>(vec![1u8])));
    same(&[
        std::ops::Bound::Unbounded,
        std::ops::Bound::Included("a"),
        std::ops::Bound::Excluded("b"),
    ]);
    same(&(std::ops::Bound::Included(Ok::<_, ()>(1.5f64)), 0u8));
    // In internally tagged newtype variants: the content of what a conversion
    // writes, and an externally tagged enum's member.
    #[derive(jitson::Encode, Serialize, Debug)]
    #[serde(tag = "t")]
    enum Tagged {
        D(Duration),
        S(std::time::SystemTime),
        R(std::ops::RangeInclusive<u8>),
        E(Result<u8, String>),
        B(std::ops::Bound<u8>),
    }
    same(&vec![
        Tagged::D(Duration::new(1, 2)),
        Tagged::S(std::time::UNIX_EPOCH + Duration::new(5, 6)),
        Tagged::R(1..=2),
        Tagged::E(Ok(1)),
        Tagged::E(Err("no".to_owned())),
        Tagged::B(std::ops::Bound::Included(3)),
        Tagged::B(std::ops::Bound::Unbounded),
    ]);
    // Refused as serde refuses them: 128-bit integers in serde's words.
    #[derive(jitson::Encode, Serialize, Debug)]
    #[serde(tag = "t")]
    enum Wide {
        U(u128),
        I(i128),
        N(std::num::NonZeroU128),
        B(Box<u128>),
        S(u64),
    }
    for value in [
        Wide::U(1),
        Wide::I(-1),
        Wide::N(std::num::NonZeroU128::new(2).unwrap()),
        Wide::B(Box::new(3)),
        Wide::S(4),
    ] {
        let theirs = serde_json::to_vec(&value).unwrap_err().to_string();
        for backend in backends() {
            let e = Encoder::with_backend(backend).encode(&value).unwrap_err();
            assert!(
                e.to_string().starts_with(&theirs),
                "{backend:?}: {e} / {theirs}"
            );
        }
    }
    let early = Tagged::S(std::time::UNIX_EPOCH - Duration::new(1, 0));
    for backend in backends() {
        let e = Encoder::with_backend(backend).encode(&early).unwrap_err();
        let theirs = serde_json::to_vec(&early).unwrap_err().to_string();
        assert!(
            e.to_string().starts_with(&theirs),
            "{backend:?}: {e} / {theirs}"
        );
    }
    let before = std::time::UNIX_EPOCH - Duration::new(1, 0);
    let e = jitson::to_vec(&vec![before]).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("{} at $[0]", serde_json::to_vec(&before).unwrap_err())
    );
    let cell = RefCell::new(1u8);
    let _guard = cell.borrow_mut();
    let e = jitson::to_vec(&cell).unwrap_err();
    assert_eq!(
        e.to_string(),
        serde_json::to_vec(&cell).unwrap_err().to_string()
    );
}

#[cfg(feature = "serde")]
#[test]
fn serde_json_values_and_raw_values() {
    let v: serde_json::Value =
        serde_json::from_str(r#"{"b":[1,2.5,{"c":null}],"a":"x","e":{},"f":[]}"#).unwrap();
    same(&v);
    same(&vec![v.clone(), v]);
    let raw: jitson::RawValue = jitson::from_str("[1, 2]").unwrap();
    assert_eq!(
        jitson::to_vec(&raw).unwrap(),
        serde_json::to_vec(&raw).unwrap()
    );
    // Raw text keeps its spacing in pretty output too, as serde_json's pretty
    // writer keeps it.
    let boxed: Vec<Box<serde_json::value::RawValue>> =
        serde_json::from_str(r#"[{ "a" : [1,2] }, "x"]"#).unwrap();
    same(&boxed);
}

#[test]
fn encode_into_appends_and_keeps_the_buffer_on_error() {
    let encoder = Encoder::<Vec<u8>>::new();
    let mut out = b"prefix".to_vec();
    encoder.encode_into(&vec![1, 2], &mut out).unwrap();
    assert_eq!(out, b"prefix[1,2]");
    let refused: HashMap<(u8, u8), u8> = HashMap::from([((1, 2), 3)]);
    let mut out = b"keep".to_vec();
    assert!(Encoder::new().encode_into(&refused, &mut out).is_err());
    assert_eq!(out, b"keep");
}

#[test]
fn jit_encodes_or_says_why_not() {
    let result = Encoder::<u8>::with_backend(Backend::Jit).encode(&1);
    if Backend::Jit.is_available() {
        assert_eq!(result.unwrap(), b"1");
    } else {
        let e = result.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BackendUnavailable);
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn writers_and_lines() {
    let mut out = Vec::new();
    jitson::to_writer(&mut out, &vec![1u8]).unwrap();
    jitson::to_writer_pretty(&mut out, &vec![2u8]).unwrap();
    assert_eq!(out, b"[1][\n  2\n]");
    let users: Vec<User> = (0..3).map(user).collect();
    let mut lines = Vec::new();
    jitson::to_writer_lines(&mut lines, &users).unwrap();
    let mut expect = Vec::new();
    for u in &users {
        expect.extend(serde_json::to_vec(u).unwrap());
        expect.push(b'\n');
    }
    assert_eq!(lines, expect);
    struct Failing;
    impl std::io::Write for Failing {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let e = jitson::to_writer(Failing, &1u8).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
}

#[test]
fn a_panicking_predicate_resumes_in_the_caller() {
    fn explode(_: &u8) -> bool {
        panic!("predicate exploded")
    }
    #[derive(jitson::Encode, Debug)]
    struct Boom {
        #[serde(skip_serializing_if = "explode")]
        x: u8,
    }
    let caught = std::panic::catch_unwind(|| jitson::to_vec(&Boom { x: 1 }));
    let payload = caught.unwrap_err();
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"predicate exploded"));
    // The next encode is unaffected.
    assert_eq!(jitson::to_vec(&1u8).unwrap(), b"1");
}

#[test]
fn warm_up_encode_checks_every_layout() {
    jitson::warm_up_encode::<User>().unwrap();
    jitson::warm_up_encode::<Flat>().unwrap();
}

#[derive(jitson::Encode, Serialize, Debug, Clone)]
struct Point {
    x: f64,
    y: f64,
}

#[derive(jitson::Encode, Serialize, Debug, Clone)]
#[serde(rename_all = "snake_case")]
enum External {
    Unit,
    NewType(u32),
    NewStruct(Point),
    Tuple(u8, String),
    #[serde(rename_all = "camelCase")]
    Struct {
        first_name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        maybe: Option<u8>,
        #[serde(skip_serializing)]
        hidden: u8,
    },
}

#[derive(jitson::Encode, Serialize, Debug, Clone)]
#[serde(tag = "kind", rename_all_fields = "UPPERCASE")]
enum InternalData {
    Empty,
    Point(Point),
    Map(BTreeMap<String, u8>),
    Fields { a: u8, b: Vec<u8> },
}

#[derive(jitson::Encode, Serialize, Debug, Clone)]
#[serde(tag = "t", content = "c")]
enum AdjacentData {
    Empty,
    One(String),
    Two(u8, u8),
    Named { a: u8 },
}

#[derive(jitson::Encode, Serialize, Debug, Clone)]
#[serde(untagged)]
enum UntaggedData<'a> {
    Empty,
    Text(&'a str),
    Pair(u8, bool),
    Named { a: Option<u8> },
}

#[derive(jitson::Encode, Serialize, Debug, Clone)]
enum Generic<T> {
    Value(T),
    Pair { left: T, right: T },
}

#[test]
fn enums_with_data_in_every_representation() {
    same(&vec![
        External::Unit,
        External::NewType(7),
        External::NewStruct(Point { x: 1.5, y: -2.0 }),
        External::Tuple(1, "t".into()),
        External::Struct {
            first_name: "f".into(),
            maybe: None,
            hidden: 1,
        },
        External::Struct {
            first_name: "g".into(),
            maybe: Some(2),
            hidden: 1,
        },
    ]);
    same(&vec![
        InternalData::Empty,
        InternalData::Point(Point { x: 0.0, y: 1e16 }),
        InternalData::Map(BTreeMap::from([("k".into(), 1)])),
        InternalData::Fields { a: 1, b: vec![2] },
    ]);
    same(&vec![
        AdjacentData::Empty,
        AdjacentData::One("o".into()),
        AdjacentData::Two(1, 2),
        AdjacentData::Named { a: 3 },
    ]);
    let text = String::from("borrowed");
    same(&vec![
        UntaggedData::Empty,
        UntaggedData::Text(&text),
        UntaggedData::Pair(1, true),
        UntaggedData::Named { a: None },
    ]);
    same(&vec![
        Generic::Value("v".to_owned()),
        Generic::Pair {
            left: "l".into(),
            right: "r".into(),
        },
    ]);
    same(&BTreeMap::from([("e", Generic::Value(1u8))]));
}

#[test]
fn internally_tagged_newtype_of_a_scalar_is_refused_as_serde_does() {
    #[derive(jitson::Encode, Serialize, Debug)]
    #[serde(tag = "type")]
    enum Bad {
        Number(u8),
    }
    let e = jitson::to_vec(&Bad::Number(1)).unwrap_err();
    let serde_message = serde_json::to_vec(&Bad::Number(1)).unwrap_err().to_string();
    assert_eq!(e.to_string(), serde_message);
}

#[test]
fn arrays_of_every_number_type() {
    same(&vec![i8::MIN, -1, 0, 1, i8::MAX]);
    same(&vec![0u8, 1, 9, 10, 99, 100, u8::MAX]);
    same(&[i16::MIN, i16::MAX]);
    same(&vec![0u16, u16::MAX]);
    same(&vec![i32::MIN, -10, 10, i32::MAX]);
    same(&[u32::MAX; 3]);
    same(&vec![i64::MIN, -1_000_000_007, 0, i64::MAX]);
    same(&vec![u64::MAX, 10_000_000_000_000_000_000, 1]);
    same(&vec![
        0.0f64,
        -0.0,
        1e16,
        1e-7,
        f64::NAN,
        f64::INFINITY,
        f64::MIN_POSITIVE,
    ]);
    same(&vec![0.1f32, f32::MAX, f32::NEG_INFINITY, 1e-45]);
    same(&Vec::<f64>::new());
    same(&vec![vec![[1.5f64, -2.25]; 3]; 2]);
}

#[test]
fn internally_tagged_variants_through_boxes_skips_and_nesting() {
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Skippy {
        #[serde(skip_serializing_if = "Option::is_none")]
        a: Option<u8>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        b: Vec<u8>,
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    #[serde(transparent)]
    struct Wrapped(Skippy);
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Empty {}
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    #[serde(tag = "inner")]
    enum Inner {
        Leaf { v: f64 },
        Unit,
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    #[serde(tag = "outer")]
    enum Outer {
        Boxed(Box<Skippy>),
        Transparent(Wrapped),
        Nothing(Empty),
        Unit(()),
        Nested { inner: Inner, again: Box<Inner> },
        Inner(Inner),
        Ext(Ext),
        Adj(Adj),
        Unt(Unt),
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    enum Ext {
        Unit,
        One(u8),
        Named { n: u8 },
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    #[serde(tag = "t", content = "c")]
    enum Adj {
        Unit,
        One(String),
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    #[serde(untagged)]
    enum Unt {
        Unit,
        Named { n: u8 },
        Wrapped(Skippy),
        Number(u8),
    }
    let skippy = |a: Option<u8>, b: Vec<u8>| Skippy { a, b };
    let values = vec![
        Outer::Boxed(Box::new(skippy(None, vec![]))),
        Outer::Boxed(Box::new(skippy(Some(1), vec![]))),
        Outer::Boxed(Box::new(skippy(None, vec![2, 3]))),
        Outer::Transparent(Wrapped(skippy(Some(4), vec![5]))),
        Outer::Transparent(Wrapped(skippy(None, vec![]))),
        Outer::Nothing(Empty {}),
        Outer::Unit(()),
        Outer::Nested {
            inner: Inner::Leaf { v: 0.5 },
            again: Box::new(Inner::Unit),
        },
        Outer::Inner(Inner::Leaf { v: -1e-7 }),
        Outer::Inner(Inner::Unit),
        Outer::Ext(Ext::Unit),
        Outer::Ext(Ext::One(1)),
        Outer::Ext(Ext::Named { n: 2 }),
        Outer::Adj(Adj::Unit),
        Outer::Adj(Adj::One("x".into())),
        Outer::Unt(Unt::Unit),
        Outer::Unt(Unt::Named { n: 3 }),
        Outer::Unt(Unt::Wrapped(skippy(Some(6), vec![]))),
    ];
    same(&values);
    for v in &values {
        same(v);
    }
    // serde refuses an untagged scalar in the outer variant's name.
    let bad = vec![Outer::Unt(Unt::Number(1))];
    let serde_message = serde_json::to_vec(&bad).unwrap_err().to_string();
    for backend in backends() {
        let e = Encoder::<Vec<Outer>>::with_backend(backend)
            .encode(&bad)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{serde_message} at $[0]"),
            "{backend:?}"
        );
    }
}

#[test]
fn an_internally_tagged_refusal_is_serdes_on_every_backend() {
    #[derive(jitson::Encode, Serialize, Debug)]
    #[serde(tag = "type")]
    enum Bad {
        Number(u8),
        Text(String),
    }
    for value in [Bad::Number(1), Bad::Text("t".into())] {
        let serde_message = serde_json::to_vec(&vec![&value]).unwrap_err().to_string();
        for backend in backends() {
            let e = Encoder::<Vec<&Bad>>::with_backend(backend)
                .encode(&vec![&value])
                .unwrap_err();
            assert!(
                e.to_string().starts_with(&serde_message),
                "{backend:?}: {e} against {serde_message}"
            );
            assert!(e.to_string().ends_with("at $[0]"), "{backend:?}: {e}");
        }
    }
}

#[test]
fn internally_tagged_refusals_name_the_rust_type_and_variant() {
    // serde's message names the enum and the variant by their Rust
    // identifiers, whatever `rename` and `rename_all` say (found by a tester).
    #[derive(jitson::Encode, Serialize, Debug)]
    #[serde(tag = "type", rename = "Other", rename_all = "SCREAMING_SNAKE_CASE")]
    enum Renamed {
        #[serde(rename = "n")]
        Num(u32),
        VecV(Vec<u8>),
        Wrapped(Untagged2),
    }
    #[derive(jitson::Encode, Serialize, Debug)]
    #[serde(untagged)]
    enum Untagged2 {
        Tup(u8, String),
        Text(String),
    }
    for value in [
        Renamed::Num(1),
        Renamed::VecV(vec![1]),
        Renamed::Wrapped(Untagged2::Tup(1, "a".into())),
        Renamed::Wrapped(Untagged2::Text("a".into())),
    ] {
        let serde_message = serde_json::to_vec(&value).unwrap_err().to_string();
        for backend in backends() {
            let e = Encoder::<Renamed>::with_backend(backend)
                .encode(&value)
                .unwrap_err();
            assert_eq!(e.to_string(), serde_message, "{backend:?}");
        }
    }
}

#[cfg(feature = "serde")]
mod serde_fields {
    use super::*;

    mod as_hex {
        pub fn serialize<S: serde::Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&format!("{v:#x}"))
        }
    }

    fn upper<S: serde::Serializer>(v: &str, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.to_uppercase())
    }

    fn refuse<S: serde::Serializer>(_: &u8, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("refused by serialize_with"))
    }

    #[derive(Serialize, Debug, Clone)]
    struct SerdeOnly {
        a: BTreeMap<String, Vec<u8>>,
    }

    #[derive(jitson::Encode, Serialize, Debug)]
    struct WithSerde<'a> {
        #[serde(with = "as_hex")]
        hex: u32,
        #[serde(serialize_with = "upper")]
        name: &'a str,
        #[jitson(serde)]
        other: SerdeOnly,
        value: serde_json::Value,
    }

    #[derive(jitson::Encode, Serialize, Debug)]
    enum WithSerdeVariant {
        V {
            #[serde(with = "as_hex")]
            hex: u32,
        },
    }

    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    #[serde(into = "Vec<u8>")]
    struct Bytes {
        data: Vec<u8>,
    }

    impl From<Bytes> for Vec<u8> {
        fn from(b: Bytes) -> Vec<u8> {
            b.data
        }
    }

    #[test]
    fn serde_written_fields_and_into() {
        let other = SerdeOnly {
            a: BTreeMap::from([("k".into(), vec![1, 2]), ("e".into(), vec![])]),
        };
        same(&WithSerde {
            hex: 255,
            name: "name",
            other: other.clone(),
            value: serde_json::json!({"x": [1, {"y": null}], "z": {}}),
        });
        same(&vec![WithSerdeVariant::V { hex: 16 }]);
        same(&Bytes { data: vec![1, 2] });
        same(&vec![Bytes { data: vec![] }]);
        #[derive(jitson::Encode, Serialize, Debug)]
        struct Refused {
            items: Vec<Inner2>,
        }
        #[derive(jitson::Encode, Serialize, Debug)]
        struct Inner2 {
            #[serde(serialize_with = "refuse")]
            x: u8,
        }
        let value = Refused {
            items: vec![Inner2 { x: 1 }],
        };
        let e = jitson::to_vec(&value).unwrap_err();
        let serde_message = serde_json::to_vec(&value).unwrap_err().to_string();
        assert_eq!(e.to_string(), format!("{serde_message} at $.items[0].x"));
    }
}

#[test]
fn a_warm_to_vec_allocates_once() {
    // Counted in tests/encode_jit.rs with a counting allocator for
    // `encode_into`; here, the capacity `to_vec` learns: the second encode of
    // the same type starts with room for the whole output.
    // The interpreter reserves as it writes; the compiled encoder's room
    // for its widest check is tested in tests/encode_jit.rs.
    let value = user(3);
    let encoder = Encoder::with_backend(Backend::Interpreter);
    let first = encoder.encode(&value).unwrap();
    let second = encoder.encode(&value).unwrap();
    assert_eq!(first, second);
    assert!(second.capacity() >= second.len());
    assert!(
        second.capacity() <= second.len() + second.len() / 8 + 16,
        "capacity {} for {} bytes: the learned size, not a doubling",
        second.capacity(),
        second.len()
    );
    // A huge value does not make later buffers huge.
    let big = vec![0u64; 400_000];
    jitson::to_vec(&big).unwrap();
    let small = jitson::to_vec(&vec![0u64; 2]).unwrap();
    assert!(small.capacity() <= 1 << 20);
}

/// Arrays of numbers and arrays of such arrays (positions), which the
/// interpreter writes in loops of their own in compact output: every number
/// kind, empty and non-finite elements, nested in vectors.
#[test]
fn arrays_of_number_arrays() {
    same(&vec![
        [1.5f64, -0.0],
        [f64::NAN, f64::INFINITY],
        [1e300, 5e-324],
    ]);
    same(&vec![
        vec![[1.0f32, 2.5]],
        vec![],
        vec![[f32::MIN, f32::MAX]; 3],
    ]);
    same(&[[i8::MIN, i8::MAX], [0, -1]]);
    same(&vec![[u8::MAX; 3], [0; 3]]);
    same(&vec![[i16::MIN; 1]; 4]);
    same(&vec![[u16::MAX, 7]]);
    same(&[[i32::MIN, i32::MAX]; 2]);
    same(&vec![[u32::MAX]]);
    same(&vec![[i64::MIN, i64::MAX], [0, 1]]);
    same(&vec![[u64::MAX, 0]]);
    same(&vec![[0u8; 0]; 3]);
    same(&Vec::<[f64; 2]>::new());
    // Not numbers: the general path.
    same(&vec![[true, false]]);
    same(&vec![[Some(1u8), None]]);
}

/// Arrays of structs holding empty arrays and `None`s (citm's shape), which
/// the interpreter writes without the dispatch on the kind: compact and
/// pretty, empty and nested, every backend.
#[test]
fn arrays_of_structs_with_empty_arrays_and_options() {
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    #[serde(rename_all = "camelCase")]
    struct Area {
        area_id: u64,
        block_ids: Vec<u64>,
        logo: Option<String>,
        inner: Vec<Area>,
    }
    let leaf = |id| Area {
        area_id: id,
        block_ids: vec![],
        logo: None,
        inner: vec![],
    };
    same(&Vec::<Area>::new());
    same(&vec![leaf(1)]);
    same(&vec![
        leaf(1),
        Area {
            area_id: 2,
            block_ids: vec![7, 8],
            logo: Some("l".into()),
            inner: vec![leaf(3), leaf(4)],
        },
    ]);
    same(&vec![Vec::<Area>::new(), vec![leaf(5)]]);
}

/// An enum without variants derives `Encode` as it derives `Serialize`; no
/// value of it exists, so an `Option` of it is always `null`.
#[derive(jitson::Encode, serde::Serialize, Debug)]
enum Never {}

#[test]
fn an_enum_without_variants_encodes() {
    common::encodes_as_serde_json(&Option::<Never>::None);
    common::encodes_as_serde_json(&Vec::<Never>::new());
}

/// Enum map keys as serde_json's key serializer takes them: an externally
/// tagged unit variant's name, an untagged newtype variant's payload; a
/// variant of another shape or representation is refused ("key must be a
/// string").
mod enum_keys {
    use std::collections::BTreeMap;

    #[derive(jitson::Encode, serde::Serialize, PartialEq, Eq, PartialOrd, Ord, Debug)]
    #[serde(untagged)]
    pub enum Untagged {
        Unit,
        Num(u8),
        Text(String),
        Pair(u8, u8),
    }

    #[derive(jitson::Encode, serde::Serialize, PartialEq, Eq, PartialOrd, Ord, Debug)]
    #[serde(tag = "t")]
    pub enum Internal {
        A,
    }

    #[derive(jitson::Encode, serde::Serialize, PartialEq, Eq, PartialOrd, Ord, Debug)]
    #[serde(tag = "t", content = "c")]
    pub enum Adjacent {
        A,
    }

    #[derive(jitson::Encode, serde::Serialize, PartialEq, Eq, PartialOrd, Ord, Debug)]
    pub enum Mixed {
        A,
        B(u8),
        #[serde(untagged)]
        C,
        #[serde(untagged)]
        D(u8),
    }

    #[derive(jitson::Encode, serde::Serialize, PartialEq, Eq, PartialOrd, Ord, Debug)]
    pub struct Wrapped(pub Untagged);

    fn one<K: Ord>(key: K) -> BTreeMap<K, u8> {
        BTreeMap::from([(key, 1)])
    }

    /// The same bytes as serde_json on every backend, or the same refusal.
    fn same<K: jitson::Encode + serde::Serialize + Ord + std::fmt::Debug>(map: &BTreeMap<K, u8>) {
        let theirs = serde_json::to_string(map).map_err(|e| e.to_string());
        for backend in super::common::backends() {
            let ours = jitson::Encoder::<BTreeMap<K, u8>>::with_backend(backend)
                .encode(map)
                .map(|bytes| String::from_utf8(bytes).unwrap())
                .map_err(|e| e.code().to_string());
            assert_eq!(ours, theirs, "{backend:?}: {map:?}");
        }
    }

    #[test]
    fn enum_keys_as_serde_json_writes_them() {
        same(&one(Untagged::Unit));
        same(&one(Untagged::Num(2)));
        same(&one(Untagged::Text("k".into())));
        same(&one(Untagged::Pair(1, 2)));
        same(&one(Internal::A));
        same(&one(Adjacent::A));
        for key in [Mixed::A, Mixed::B(1), Mixed::C, Mixed::D(3)] {
            same(&one(key));
        }
        same(&one(Wrapped(Untagged::Text("s".into()))));
        same(&one(Some(Untagged::Num(4))));
    }
}

/// `#[serde(tag = "t")]` on a struct: serde writes the struct's (serialize)
/// name under the tag before its fields, and reading ignores the tag, an
/// unknown key (refused under `deny_unknown_fields`, as serde refuses it).
mod struct_tags {
    #[derive(
        jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, PartialEq,
    )]
    #[serde(tag = "type")]
    pub struct Feature {
        pub id: u8,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
    }

    #[derive(
        jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, PartialEq,
    )]
    #[serde(tag = "kind", rename = "Renamed‹é>", deny_unknown_fields)]
    pub struct Renamed {
        #[serde(skip_serializing_if = "Option::is_none")]
        pub x: Option<u8>,
    }

    #[derive(
        jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, PartialEq,
    )]
    pub struct Collection {
        pub features: Vec<Feature>,
        #[serde(flatten)]
        pub extra: Renamed,
    }

    #[test]
    fn tagged_structs_as_serde_writes_and_reads_them() {
        use super::common::encodes_as_serde_json as same;
        same(&Feature { id: 1, name: None });
        same(&Feature {
            id: 2,
            name: Some("n".into()),
        });
        same(&Renamed { x: None });
        same(&Collection {
            features: vec![Feature { id: 3, name: None }],
            extra: Renamed { x: Some(4) },
        });
        for doc in [
            r#"{"type":"Feature","id":1}"#,
            r#"{"id":1,"type":"Other"}"#,
            r#"{"id":1}"#,
            r#"{"type":5,"id":1}"#,
        ] {
            let theirs = serde_json::from_str::<Feature>(doc).unwrap();
            for backend in super::common::backends() {
                let ours = jitson::Decoder::<Feature>::with_backend(backend).decode_str(doc);
                assert_eq!(ours.unwrap(), theirs, "{backend:?} {doc}");
            }
        }
        let doc = r#"{"kind":"Renamed‹é>"}"#;
        let theirs = serde_json::from_str::<Renamed>(doc)
            .unwrap_err()
            .to_string();
        for backend in super::common::backends() {
            let e = jitson::Decoder::<Renamed>::with_backend(backend)
                .decode_str(doc)
                .unwrap_err();
            assert!(
                theirs.starts_with(&e.code().to_string()),
                "{backend:?}: {e} / {theirs}"
            );
        }
    }
}

/// Maps keyed by integers of every width up to 64 bits, alone and through
/// newtypes (`struct Id(u32)`, rustdoc-types' key), are written as serde_json
/// writes them (the digits between quotes, limits and signs included) on
/// every backend, and the JIT's encoder compiles them (until 2026-12-08 it
/// handed such maps, values and all, to the interpreter). A failing value
/// names its key in the path, as the interpreter names it.
#[test]
fn integer_keys_are_written_in_compiled_code() {
    #[derive(jitson::Encode, Serialize, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    struct Id(u32);
    #[derive(jitson::Encode, Serialize, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    struct Wrapped(Id);
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Index {
        items: HashMap<Id, String>,
        deep: BTreeMap<Wrapped, Vec<BTreeMap<i8, u8>>>,
        signed: BTreeMap<i64, bool>,
        unsigned: BTreeMap<u64, ()>,
        small: BTreeMap<i16, i32>,
        bytes: BTreeMap<u8, u16>,
        ints: BTreeMap<i32, u32>,
    }
    let index = Index {
        items: HashMap::from([
            (Id(0), "zero".to_owned()),
            (Id(u32::MAX), "max\"".to_owned()),
        ]),
        deep: BTreeMap::from([(
            Wrapped(Id(7)),
            vec![BTreeMap::from([
                (i8::MIN, 1),
                (-1, 2),
                (0, 3),
                (i8::MAX, 4),
            ])],
        )]),
        signed: BTreeMap::from([(i64::MIN, true), (-9, false), (i64::MAX, true)]),
        unsigned: BTreeMap::from([(0, ()), (99_999_999, ()), (100_000_000, ()), (u64::MAX, ())]),
        small: BTreeMap::from([(i16::MIN, i32::MIN), (i16::MAX, i32::MAX)]),
        bytes: BTreeMap::from([(0, 0), (255, u16::MAX)]),
        ints: BTreeMap::from([(i32::MIN, 0), (-1, 1), (i32::MAX, u32::MAX)]),
    };
    same(&index);
    same(&BTreeMap::<Id, u8>::new());
    // Text keys through newtypes take the same path.
    #[derive(jitson::Encode, Serialize, Debug, PartialEq, Eq, PartialOrd, Ord)]
    struct Name(String);
    #[derive(jitson::Encode, Serialize, Debug, PartialEq, Eq, PartialOrd, Ord)]
    #[serde(transparent)]
    struct Label {
        text: Box<str>,
    }
    same(&BTreeMap::from([
        (Name("b\"q".to_owned()), 1u8),
        (Name(String::new()), 2),
    ]));
    same(&BTreeMap::from([(
        Label {
            text: "é\n".into()
        },
        vec![Id(3)],
    )]));
    if Backend::Jit.is_available() {
        jitson::warm_up_encode::<Index>().unwrap();
        let interpreted = jitson::stats().encoder_interpreted_layouts;
        // This test's maps only: others in this binary hand theirs over.
        let ours = |ty: &str| {
            ty.contains("integer_keys_are_written")
                || [
                    "<i8, u8>",
                    "<i64, bool>",
                    "<u64, ()>",
                    "<i16, i32>",
                    "<u8, u16>",
                    "<i32, u32>",
                ]
                .iter()
                .any(|m| ty.ends_with(&format!("BTreeMap{m}")))
        };
        assert!(
            !interpreted.iter().any(|(ty, _)| ours(ty)),
            "{interpreted:?}"
        );
    }
    // A value that fails under an integer key: the key is in the path.
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Cells {
        by_id: BTreeMap<Id, std::cell::RefCell<u8>>,
        by_n: BTreeMap<i16, std::cell::RefCell<u8>>,
    }
    let cells = Cells {
        by_id: BTreeMap::from([(Id(1), 1.into()), (Id(4_000_000_000), 2.into())]),
        by_n: BTreeMap::from([(-300, 3.into())]),
    };
    for (key, path) in [
        (None, "$.by_id[\"4000000000\"]"),
        (Some(-300), "$.by_n.-300"),
    ] {
        let _guard = match key {
            None => cells.by_id[&Id(4_000_000_000)].borrow_mut(),
            Some(k) => cells.by_n[&k].borrow_mut(),
        };
        assert!(serde_json::to_vec(&cells).is_err());
        for backend in backends() {
            let e = Encoder::with_backend(backend).encode(&cells).unwrap_err();
            assert_eq!(e.path(), path, "{backend:?}: {e}");
        }
    }
}
