//! Value tests: every kind and every attribute, decoded through every backend and
//! both entry points (see `common::decode`).

mod common;

use std::collections::{BTreeMap, HashMap};

use common::{err, ok};
use jitson::{Decode, ErrorKind, IgnoredAny, RawValue};

#[test]
fn scalars() {
    assert!(ok::<bool>("true"));
    assert!(!ok::<bool>(" false "));
    assert_eq!(ok::<i8>("-128"), i8::MIN);
    assert_eq!(ok::<i16>("32767"), i16::MAX);
    assert_eq!(ok::<i32>("-2147483648"), i32::MIN);
    assert_eq!(ok::<i64>("-9223372036854775808"), i64::MIN);
    assert_eq!(ok::<u8>("255"), u8::MAX);
    assert_eq!(ok::<u16>("65535"), u16::MAX);
    assert_eq!(ok::<u32>("4294967295"), u32::MAX);
    assert_eq!(ok::<u64>("18446744073709551615"), u64::MAX);
    assert_eq!(ok::<isize>("-5"), -5);
    assert_eq!(ok::<usize>("5"), 5);
    assert_eq!(ok::<f64>("3"), 3.0);
    assert_eq!(ok::<f64>("-0.0"), 0.0);
    assert!(ok::<f64>("-0").is_sign_negative());
    assert_eq!(ok::<f64>("1.7976931348623157e308"), f64::MAX);
    assert_eq!(ok::<f64>("5e-324"), 5e-324);
    assert_eq!(ok::<f64>("-1e-400"), 0.0);
    assert_eq!(ok::<f64>("0.1"), 0.1);
    assert_eq!(
        ok::<f64>("2.2250738585072011e-308"),
        2.225_073_858_507_201e-308
    );
    assert_eq!(
        ok::<f64>("123456789012345678901234567890"),
        1.234_567_890_123_456_8e29
    );
    assert_eq!(ok::<f32>("3.4028235e38"), f32::MAX);
    assert_eq!(ok::<f32>("1e-45"), 1e-45_f32);
    // Parsed straight to f32: going through f64 would round this differently.
    assert_eq!(ok::<f32>("1.00000017881393432617187499"), 1.000_000_1_f32);
    // Through one f64 division, then to f32, except where the f64 is halfway
    // between two f32s: `56.98563194274902` is nearest to such a point in
    // f64, which rounds to even, up to 56.985634, though the value lies
    // below it; 16777217 is a halfway point itself (even: 16777216).
    assert_eq!(ok::<f32>("56.98563194274902"), 56.985_63_f32);
    assert_eq!(ok::<f32>("-73.43761825561523"), -73.437_614_f32);
    assert_eq!(ok::<f32>("16777217.0"), 16_777_216_f32);
    assert_eq!(ok::<f32>("-0.123456789"), -0.123_456_79_f32);
    assert_eq!(ok::<f32>("0.98765432"), 0.987_654_3_f32);
    assert_eq!(ok::<char>("\"é\""), 'é');
    assert_eq!(ok::<char>("\"\\ud83d\\ude00\""), '😀');
    for bad in ["256", "-1", "1e2", "1.0", "\"1\"", "null", "-0"] {
        assert!(common::decode::<u8>(bad.as_bytes()).is_err(), "{bad}");
    }
    assert_eq!(
        err::<i64>(b"9223372036854775808").kind(),
        ErrorKind::NumberOutOfRange
    );
    assert_eq!(err::<i8>(b"-129").kind(), ErrorKind::NumberOutOfRange);
    assert_eq!(err::<f32>(b"1e39").kind(), ErrorKind::NumberOutOfRange);
}

#[test]
fn strings() {
    assert_eq!(ok::<String>(r#""plain""#), "plain");
    assert_eq!(
        ok::<String>(r#""a\"b\\c\/d\b\f\n\r\t""#),
        "a\"b\\c/d\u{8}\u{c}\n\r\t"
    );
    assert_eq!(ok::<String>(r#""\u00e9\u4e2d\ud834\udd1e""#), "é中𝄞");
    assert_eq!(ok::<String>("\"Zürich 東京\""), "Zürich 東京");
    assert_eq!(ok::<Box<str>>(r#""boxed""#), "boxed".into());
    let long = "x".repeat(10_000);
    assert_eq!(ok::<String>(&format!("\"{long}\"")), long);
    for bad in [
        &b"\"\\x\""[..],
        b"\"\\u12\"",
        b"\"\\udc00\"",
        b"\"\\ud800x\"",
        b"\"a\nb\"",
        b"\"\xff\"",
    ] {
        assert!(
            common::decode::<String>(bad).is_err(),
            "{}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn containers() {
    assert_eq!(ok::<Option<i32>>("null"), None);
    assert_eq!(ok::<Option<i32>>("5"), Some(5));
    assert_eq!(ok::<Option<Option<i32>>>("null"), None);
    assert_eq!(ok::<Vec<i32>>("[]"), Vec::<i32>::new());
    assert_eq!(ok::<Vec<i32>>(" [ 1 , 2 ,3 ] "), vec![1, 2, 3]);
    assert_eq!(
        ok::<Vec<Vec<u8>>>("[[1],[],[2,3]]"),
        vec![vec![1], vec![], vec![2, 3]]
    );
    assert_eq!(ok::<Box<u8>>("7"), Box::new(7));
    assert_eq!(ok::<[u16; 3]>("[1,2,3]"), [1, 2, 3]);
    assert_eq!(ok::<[String; 0]>("[]"), [] as [String; 0]);
    assert_eq!(
        ok::<Vec<Option<String>>>(r#"["a",null]"#),
        vec![Some("a".into()), None]
    );
    let big: Vec<u32> = ok(&format!(
        "[{}]",
        (0..5000)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    ));
    assert_eq!(big, (0..5000).collect::<Vec<u32>>());
    let m: HashMap<String, i32> = ok(r#"{"a": 1, "b\u0020c": 2, "a": 3}"#);
    assert_eq!(m, HashMap::from([("a".into(), 3), ("b c".into(), 2)]));
    let m: BTreeMap<String, Vec<bool>> = ok(r#"{"x": [true], "y": []}"#);
    assert_eq!(
        m,
        BTreeMap::from([("x".into(), vec![true]), ("y".into(), vec![])])
    );
    assert_eq!(ok::<BTreeMap<String, u8>>("{}"), BTreeMap::new());
}

#[test]
fn raw_and_ignored() {
    assert_eq!(
        ok::<RawValue>(" {\"a\": [1, 2.5e3, \"x\"]} ").get(),
        "{\"a\": [1, 2.5e3, \"x\"]}"
    );
    assert_eq!(
        ok::<Vec<RawValue>>("[1, \"a\" ,{}]")
            .iter()
            .map(RawValue::get)
            .collect::<Vec<_>>(),
        ["1", "\"a\"", "{}"]
    );
    assert_eq!(ok::<IgnoredAny>("[[[{\"a\":null}]]]"), IgnoredAny);
    assert_eq!(ok::<Vec<IgnoredAny>>("[1, {}, []]").len(), 3);
    assert_eq!(err::<RawValue>(b"[1,]").kind(), ErrorKind::Syntax);
}

#[derive(Decode, Debug, PartialEq)]
struct Profile {
    age: u8,
    city: String,
}

#[derive(Decode, Debug, PartialEq)]
#[jitson(deny_unknown_fields)]
struct User {
    id: i64,
    #[jitson(rename = "user_name", alias = "name")]
    name: String,
    #[jitson(default)]
    tags: Vec<String>,
    profile: Option<Profile>,
}

#[test]
fn struct_from_the_issue() {
    let u: User = ok(r#"{"id": 1, "user_name": "ada", "profile": {"age": 36, "city": "London"}}"#);
    assert_eq!(
        u,
        User {
            id: 1,
            name: "ada".into(),
            tags: vec![],
            profile: Some(Profile {
                age: 36,
                city: "London".into()
            })
        }
    );
    let u: User = ok(r#"{"name": "bob", "tags": ["x"], "id": 2, "profile": null}"#);
    assert_eq!(
        u,
        User {
            id: 2,
            name: "bob".into(),
            tags: vec!["x".into()],
            profile: None
        }
    );
    // Escaped keys are matched after unescaping.
    let u: User = ok(r#"{"i\u0064": 3, "user\u005fname": "c"}"#);
    assert_eq!(u.id, 3);
    assert_eq!(
        err::<User>(br#"{"id": 1, "user_name": "a", "extra": 1}"#).kind(),
        ErrorKind::UnknownField
    );
    assert_eq!(
        err::<User>(br#"{"id": 1, "user_name": "a", "name": "b"}"#).kind(),
        ErrorKind::DuplicateField
    );
    assert_eq!(err::<User>(br#"{"id": 1}"#).kind(), ErrorKind::MissingField);
    assert_eq!(err::<User>(b"[1, \"a\"]").kind(), ErrorKind::InvalidType);
}

#[derive(Decode, Debug, PartialEq)]
struct Lenient {
    a: i32,
}

#[test]
fn unknown_fields_are_skipped_and_validated() {
    assert_eq!(
        ok::<Lenient>(r#"{"x": {"deep": [1, [2, {"y": null}]]}, "a": 1, "z": "s"}"#),
        Lenient { a: 1 }
    );
    assert_eq!(
        err::<Lenient>(br#"{"x": [1,], "a": 1}"#).kind(),
        ErrorKind::Syntax
    );
    assert_eq!(
        err::<Lenient>(br#"{"x": "\ud800", "a": 1}"#).kind(),
        ErrorKind::Syntax
    );
    // Shallower under Miri (scripts/miri.sh), still far past the depth limit.
    let depth = if cfg!(miri) { 1_000 } else { 100_000 };
    let deep = format!(
        "{{\"x\": {}{}, \"a\": 5}}",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    assert_eq!(ok::<Lenient>(&deep), Lenient { a: 5 });
}

fn seven() -> u32 {
    7
}

#[derive(Decode, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Camel {
    first_name: String,
    #[serde(default = "seven")]
    lucky_number: u32,
    #[serde(skip)]
    cache: Vec<u8>,
    #[serde(rename = "ID")]
    id: u8,
    #[jitson(skip_deserializing, default = "seven")]
    computed: u32,
}

#[test]
fn attributes() {
    let c: Camel = ok(r#"{"firstName": "x", "ID": 1}"#);
    assert_eq!(
        c,
        Camel {
            first_name: "x".into(),
            lucky_number: 7,
            cache: vec![],
            id: 1,
            computed: 7
        }
    );
    let c: Camel =
        ok(r#"{"firstName": "x", "luckyNumber": 3, "ID": 1, "cache": [1], "computed": 1}"#);
    assert_eq!((c.lucky_number, c.cache.len(), c.computed), (3, 0, 7));
    assert_eq!(
        err::<Camel>(br#"{"first_name": "x", "ID": 1}"#).kind(),
        ErrorKind::MissingField
    );
}

#[derive(Decode, Debug, PartialEq, Clone, Copy)]
#[jitson(rename_all = "snake_case")]
enum Color {
    DarkRed,
    #[jitson(rename = "GREEN", alias = "verde")]
    Green,
    Blue,
}

#[derive(Decode, Debug, PartialEq)]
#[serde(rename_all = "SCREAMING-KEBAB-CASE")]
enum Level {
    LowPriority,
    High,
}

#[test]
fn unit_enums() {
    assert_eq!(ok::<Color>("\"dark_red\""), Color::DarkRed);
    assert_eq!(
        ok::<Vec<Color>>(r#"["GREEN", "verde", "blue"]"#),
        vec![Color::Green, Color::Green, Color::Blue]
    );
    assert_eq!(ok::<Color>(r#"{"blue": null}"#), Color::Blue);
    assert_eq!(ok::<Level>("\"LOW-PRIORITY\""), Level::LowPriority);
    assert_eq!(err::<Color>(b"\"DarkRed\"").kind(), ErrorKind::InvalidValue);
    // serde_json: `expected value`, a syntax error at the value's first byte.
    let e = err::<Color>(b"1");
    assert_eq!(e.kind(), ErrorKind::Syntax);
    assert_eq!(e.code().to_string(), "expected value");
}

#[derive(Decode, Debug, PartialEq)]
struct Node {
    value: i32,
    children: Vec<Node>,
    next: Option<Box<Node>>,
}

#[test]
fn recursive_structs() {
    let n: Node = ok(
        r#"{"value": 1, "children": [{"value": 2, "children": [], "next": null}],
                         "next": {"value": 3, "children": []}}"#,
    );
    assert_eq!(n.children[0].value, 2);
    assert_eq!(n.next.as_ref().unwrap().value, 3);
    assert!(n.next.unwrap().next.is_none());
}

/// `Self` in a variant's field types is the enum, as in serde's derive (the
/// derives build a payload struct per variant, where `Self` would be it).
#[derive(Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, PartialEq)]
enum Tree {
    Nil,
    Node { children: Vec<Self>, v: u8 },
    Leaf(Box<Self>),
    Pair(Box<Self>, u8),
}

#[derive(Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, PartialEq)]
#[serde(tag = "t")]
enum TaggedTree {
    Nil,
    Node { children: Vec<Self> },
}

#[test]
fn self_in_enum_variants() {
    let doc = r#"{"Node":{"children":[{"Leaf":"Nil"},{"Pair":["Nil",2]}],"v":1}}"#;
    let tree: Tree = ok(doc);
    assert_eq!(tree, serde_json::from_str::<Tree>(doc).unwrap());
    common::encodes_as_serde_json(&tree);
    let doc = r#"{"t":"Node","children":[{"t":"Nil"},{"t":"Node","children":[]}]}"#;
    let tree: TaggedTree = ok(doc);
    assert_eq!(tree, serde_json::from_str::<TaggedTree>(doc).unwrap());
    common::encodes_as_serde_json(&tree);
}

#[derive(Decode, Debug, PartialEq)]
struct Page<T> {
    items: Vec<T>,
    total: u64,
}

#[test]
fn generic_structs() {
    assert_eq!(
        ok::<Page<u8>>(r#"{"items": [1,2], "total": 2}"#),
        Page {
            items: vec![1, 2],
            total: 2
        }
    );
    let p: Page<Color> = ok(r#"{"items": ["blue"], "total": 1}"#);
    assert_eq!(p.items, vec![Color::Blue]);
    let p: Page<Page<String>> = ok(r#"{"items": [{"items": ["a"], "total": 1}], "total": 1}"#);
    assert_eq!(p.items[0].items, vec!["a".to_owned()]);
}

#[derive(Decode, Debug, PartialEq)]
struct Everything {
    b: bool,
    i: i16,
    u: u64,
    f: f32,
    c: char,
    s: Box<str>,
    o: Option<Vec<u8>>,
    a: [bool; 2],
    m: HashMap<String, Option<f64>>,
    r: RawValue,
    ig: IgnoredAny,
    e: Color,
    bx: Box<Profile>,
}

#[test]
fn every_kind_in_one_struct() {
    let e: Everything = ok(
        r#"{"b": true, "i": -3, "u": 3, "f": 0.5, "c": "c", "s": "s", "o": [1],
        "a": [true, false], "m": {"k": null, "l": 1.5}, "r": [ {} ], "ig": {"q": [1]}, "e": "blue",
        "bx": {"age": 1, "city": "x"}}"#,
    );
    assert_eq!(e.r.get(), "[ {} ]");
    assert_eq!(e.m["l"], Some(1.5));
    assert_eq!(e.bx.city, "x");
}

#[test]
fn warm_up_and_stats() {
    jitson::warm_up::<Everything>().unwrap();
    let after_warm_up = jitson::stats();
    // Everything, and every layout reachable from it, is prepared.
    assert!(after_warm_up.layouts_prepared >= 14, "{after_warm_up:?}");
    let doc = r#"{"b": true, "i": -3, "u": 3, "f": 0.5, "c": "c", "s": "s", "o": null, "a": [true, false],
        "m": {}, "r": 1, "ig": 2, "e": "blue", "bx": {"age": 1, "city": "x"}}"#;
    for _ in 0..3 {
        jitson::from_str::<Everything>(doc).unwrap();
    }
    let after = jitson::stats();
    if jitson::Backend::Jit.is_available() {
        // Warm-up compiled everything Everything needs: decoding compiles nothing.
        // (Other tests in this binary may compile their own types concurrently, so
        // compare this type's first decode against a fresh one instead.)
        assert!(
            after.jit_decodes >= after_warm_up.jit_decodes + 3,
            "{after:?}"
        );
        assert!(
            after.layouts_compiled >= 1 && after.code_bytes > 0,
            "{after:?}"
        );
    } else {
        assert!(after.interpreter_decodes >= after_warm_up.interpreter_decodes + 3);
        let e = jitson::Decoder::<u8>::with_backend(jitson::Backend::Jit)
            .decode_str("1")
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BackendUnavailable);
    }
}

/// Every string length around the 8- and 16-byte scanning steps, with an escape,
/// a non-ASCII character, a control byte or invalid UTF-8 at every position.
#[test]
fn strings_at_every_length_and_position() {
    for len in 0..40 {
        let plain = "a".repeat(len);
        assert_eq!(ok::<String>(&format!("\"{plain}\"")), plain);
        for at in 0..len {
            let mut escaped = plain.clone();
            escaped.replace_range(at..at + 1, "\\n");
            let mut expected = plain.clone();
            expected.replace_range(at..at + 1, "\n");
            assert_eq!(ok::<String>(&format!("\"{escaped}\"")), expected);
            let mut wide = plain.clone();
            wide.replace_range(at..at + 1, "é");
            assert_eq!(
                ok::<Vec<String>>(&format!("[\"{wide}\", \"{plain}\"]")),
                vec![wide.clone(), plain.clone()]
            );
            let mut control = plain.clone().into_bytes();
            control[at] = 0x1f;
            assert_eq!(
                err::<String>(&[b"\"", &control[..], b"\""].concat()).kind(),
                ErrorKind::Syntax
            );
            let mut invalid = plain.clone().into_bytes();
            invalid[at] = 0xff;
            let doc = [b"\"", &invalid[..], b"\""].concat();
            let e = jitson::Decoder::<String>::new()
                .decode_slice(&doc)
                .unwrap_err();
            assert_eq!((e.kind(), e.offset()), (ErrorKind::InvalidUtf8, at + 1));
            for backend in common::backends() {
                let e = jitson::Decoder::<String>::with_backend(backend)
                    .decode_slice(&doc)
                    .unwrap_err();
                assert_eq!(
                    (e.kind(), e.offset()),
                    (ErrorKind::InvalidUtf8, at + 1),
                    "{}",
                    backend.name()
                );
            }
        }
        // Unterminated, cut at every length.
        assert_eq!(
            err::<String>(format!("\"{plain}").as_bytes()).kind(),
            ErrorKind::UnexpectedEnd
        );
    }
}

#[derive(Decode, Debug, PartialEq, serde::Deserialize)]
struct AroundIgnored {
    a: u8,
    ig: IgnoredAny,
    z: u8,
}

/// An ignored value that is a string (skipped in line by the JIT, by
/// `ignore_value` in the interpreter) is accepted and refused as serde_json
/// refuses it, with the same error on every backend and entry point: strings
/// of every length around the JIT's 8- and 16-byte scans, non-ASCII, escapes,
/// a control byte, a string the input ends in; then the values after it still
/// decode. Invalid UTF-8, which serde_json skips unchecked, is refused (docs/
/// semantics.md, "Deliberate differences", 1).
#[test]
fn ignored_strings_in_every_form() {
    let mut texts: Vec<Vec<u8>> = Vec::new();
    for len in 0..40 {
        let plain = "x".repeat(len);
        texts.push(plain.clone().into_bytes());
        for at in [0, len / 2, len.saturating_sub(1)] {
            for odd in [
                &b"\xc3\xa9"[..],
                b"\\n",
                b"\\u00e9",
                b"\xff",
                b"\x01",
                b"\"",
                b"\xe2\x82",
            ] {
                let mut text = plain.clone().into_bytes();
                text.splice(at.min(text.len())..at.min(text.len()), odd.iter().copied());
                texts.push(text);
            }
        }
    }
    for text in &texts {
        let mut doc = b"{\"a\": 1, \"ig\": \"".to_vec();
        doc.extend_from_slice(text);
        let whole = [&doc[..], b"\", \"z\": 2}"].concat();
        let cut = doc.clone();
        for json in [whole, cut] {
            let shown = String::from_utf8_lossy(&json).into_owned();
            let got = common::decode::<AroundIgnored>(&json);
            if std::str::from_utf8(text).is_err() {
                assert!(got.is_err(), "{shown}: {got:?}");
                continue;
            }
            let expected = serde_json::from_slice::<AroundIgnored>(&json);
            match (got, expected) {
                (Ok(got), Ok(_)) => assert_eq!((got.a, got.z), (1, 2), "{shown}"),
                (Err(_), Err(_)) => {}
                (got, expected) => panic!("{shown}: jitson {got:?}, serde_json {expected:?}"),
            }
        }
    }
}
