//! Error reporting: kind, offset, line, column and path for malformed input, and
//! proof that a failed decode drops exactly what it wrote (no leak, no double drop).

mod common;

use std::collections::HashMap;

use common::counted::Counted;
use common::{err, shape};
use jitson::{Decode, ErrorKind, RawValue};

#[derive(Decode, Debug, PartialEq)]
struct Profile {
    age: u8,
    city: String,
    is_admin: bool,
}

#[derive(Decode, Debug, PartialEq)]
struct User {
    id: i64,
    name: String,
    tags: Vec<String>,
    profile: Option<Profile>,
}

#[derive(Decode, Debug, PartialEq)]
struct Timeline {
    statuses: Vec<Status>,
}

#[derive(Decode, Debug, PartialEq)]
struct Status {
    id: u64,
    user: TimelineUser,
}

#[derive(Decode, Debug, PartialEq)]
struct TimelineUser {
    id: u64,
    screen_name: String,
}

#[derive(Decode, Debug, PartialEq)]
#[jitson(deny_unknown_fields)]
struct Strict {
    a: i32,
}

/// (input, kind, offset, line, column, path), decoded as `T`.
#[track_caller]
fn check<T: Decode + PartialEq + std::fmt::Debug>(
    json: &str,
    kind: ErrorKind,
    offset: usize,
    line: usize,
    column: usize,
    path: &str,
) {
    let e = err::<T>(json.as_bytes());
    let got = shape(&e);
    assert_eq!(
        (
            got.kind,
            got.offset,
            got.line,
            got.column,
            got.path.as_str()
        ),
        (kind, offset, line, column, path),
        "input {json:?}: {e}"
    );
    // The message names the position and the path.
    let msg = e.to_string();
    assert!(
        msg.contains(&format!("line {line} column {column}")),
        "{msg}"
    );
    assert!(msg.contains(path), "{msg}");
}

#[test]
fn syntax_errors() {
    use ErrorKind::*;
    check::<User>("", UnexpectedEnd, 0, 1, 1, "$");
    check::<User>("   \n  ", UnexpectedEnd, 6, 2, 3, "$");
    check::<User>("{\"id\": 1,}", Syntax, 9, 1, 10, "$");
    check::<User>("{\"id\" 1}", Syntax, 6, 1, 7, "$");
    check::<User>("{\"id\": 01}", Syntax, 8, 1, 9, "$.id");
    check::<User>("{\"id\": -}", Syntax, 8, 1, 9, "$.id");
    check::<User>("{\"id\": 1 \"name\": \"x\"}", Syntax, 9, 1, 10, "$");
    check::<User>("{id: 1}", Syntax, 1, 1, 2, "$");
    check::<User>(
        "{\"id\": 1, \"name\": \"a\\qb\"}",
        Syntax,
        21,
        1,
        22,
        "$.name",
    );
    check::<User>(
        "{\"id\": 1, \"name\": \"a\u{1}b\"}",
        Syntax,
        20,
        1,
        21,
        "$.name",
    );
    check::<User>(
        "{\"id\": 1, \"name\": \"\\ud800\"}",
        Syntax,
        25,
        1,
        26,
        "$.name",
    );
    check::<User>(
        "{\"id\": 1, \"tags\": [\"a\",]}",
        Syntax,
        23,
        1,
        24,
        "$.tags",
    );
    check::<User>(
        "{\"id\": 1, \"tags\": [\"a\" \"b\"]}",
        Syntax,
        23,
        1,
        24,
        "$.tags",
    );
    check::<User>(
        "{\"id\":1,\"name\":\"n\",\"tags\":[]} x",
        Syntax,
        30,
        1,
        31,
        "$",
    );
    check::<User>("{\"id\": tru}", Syntax, 10, 1, 11, "$.id");
    check::<Vec<i32>>("[1, 2,\n 3,\n nul]", Syntax, 15, 3, 5, "$[3]");
}

#[test]
fn unexpected_end() {
    use ErrorKind::*;
    check::<User>(
        "{\"id\": 1, \"name\": \"ab",
        UnexpectedEnd,
        21,
        1,
        22,
        "$.name",
    );
    check::<User>("{\"id\": 1", UnexpectedEnd, 8, 1, 9, "$");
    check::<User>("{\"id\": 1.", UnexpectedEnd, 9, 1, 10, "$.id");
    check::<User>("{\"id\":", UnexpectedEnd, 6, 1, 7, "$.id");
    check::<Vec<u8>>("[1,\n2", UnexpectedEnd, 5, 2, 2, "$");
}

#[test]
fn data_errors() {
    use ErrorKind::*;
    check::<User>("{\"id\": \"7\"}", InvalidType, 7, 1, 8, "$.id");
    check::<User>("{\"id\": 1.5}", InvalidType, 7, 1, 8, "$.id");
    check::<User>(
        "{\"id\": 1, \"name\": null}",
        InvalidType,
        18,
        1,
        19,
        "$.name",
    );
    check::<User>(
        "{\"id\": 1, \"name\": \"n\", \"tags\": {}}",
        InvalidType,
        31,
        1,
        32,
        "$.tags",
    );
    check::<User>(
        "{\"id\": 99999999999999999999}",
        InvalidType,
        7,
        1,
        8,
        "$.id",
    );
    check::<User>(
        "{\"id\": 1, \"name\": \"n\", \"tags\": [], \"profile\": {\"age\": 300}}",
        NumberOutOfRange,
        54,
        1,
        55,
        "$.profile.age",
    );
    check::<User>(
        "{\"name\": \"n\", \"tags\": []}",
        MissingField,
        24,
        1,
        25,
        "$",
    );
    check::<User>(
        "{\"id\": 1, \"name\": \"n\", \"tags\": [],\n \"profile\": {\"age\": 3, \"city\": \"c\"}}",
        MissingField,
        69,
        2,
        35,
        "$.profile",
    );
    check::<User>("{\"id\": 1, \"id\": 2}", DuplicateField, 10, 1, 11, "$");
    check::<Strict>("{\"a\": 1, \"b\": 2}", UnknownField, 9, 1, 10, "$");
    check::<[u8; 3]>("[1, 2]", InvalidLength, 5, 1, 6, "$");
    // One element too many: trailing characters at it, as in serde_json.
    check::<[u8; 1]>("[1, 2]", Syntax, 4, 1, 5, "$");
    check::<(u8, u8)>("[1, 2 , 3]", Syntax, 8, 1, 9, "$");
    check::<(u8, u8)>("[1, 2 3]", Syntax, 6, 1, 7, "$");
    check::<char>("\"ab\"", InvalidValue, 0, 1, 1, "$");
    check::<HashMap<String, u8>>(
        "{\"a\": 1, \"b c\": -1}",
        NumberOutOfRange,
        16,
        1,
        17,
        "$[\"b c\"]",
    );
    check::<f64>("1e400", NumberOutOfRange, 0, 1, 1, "$");
}

#[test]
fn deep_paths() {
    let mut doc = String::from("{\"statuses\": [");
    for i in 0..4 {
        if i > 0 {
            doc.push(',');
        }
        let id = if i == 3 {
            "\"x\"".to_owned()
        } else {
            i.to_string()
        };
        doc.push_str(&format!(
            "\n  {{\"id\": {i}, \"user\": {{\"id\": {id}, \"screen_name\": \"u\"}}}}"
        ));
    }
    doc.push_str("]}");
    let e = err::<Timeline>(doc.as_bytes());
    assert_eq!(e.kind(), ErrorKind::InvalidType);
    assert_eq!(e.path(), "$.statuses[3].user.id");
    assert_eq!(e.line(), 5);
    assert_eq!(&doc[e.offset()..e.offset() + 3], "\"x\"");
}

#[derive(Decode, Debug, PartialEq)]
struct Ports {
    by_port: HashMap<u8, String>,
    levels: std::collections::BTreeMap<Level, u8>,
}

#[derive(Decode, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Low,
    High,
}

/// A map key that does not parse as its type is the last segment of the
/// path (the value's own path once it parses), on every backend; a key
/// string that is itself malformed has the map's path.
#[test]
fn unparsable_map_keys_are_named_in_the_path() {
    let cases: [(&str, &str, ErrorKind); 6] = [
        (
            r#"{"by_port": {"1": "a", "300": "b"}, "levels": {}}"#,
            "$.by_port[\"300\"]",
            ErrorKind::NumberOutOfRange,
        ),
        (
            r#"{"by_port": {"x1": "a"}, "levels": {}}"#,
            "$.by_port.x1",
            ErrorKind::Syntax,
        ),
        (
            r#"{"by_port": {"7": 8}, "levels": {}}"#,
            "$.by_port[\"7\"]",
            ErrorKind::InvalidType,
        ),
        (
            r#"{"by_port": {}, "levels": {"Low": 1, "Mid": 2}}"#,
            "$.levels.Mid",
            ErrorKind::InvalidValue,
        ),
        (
            r#"{"by_port": {}, "levels": {"M\u0069d": 2}}"#,
            "$.levels.Mid",
            ErrorKind::InvalidValue,
        ),
        (
            r#"{"by_port": {}, "levels": {"Lo"#,
            "$.levels",
            ErrorKind::UnexpectedEnd,
        ),
    ];
    for (doc, path, kind) in cases {
        let e = err::<Ports>(doc.as_bytes());
        assert_eq!((e.kind(), e.path().as_str()), (kind, path), "{doc}");
    }
}

#[test]
fn invalid_utf8_is_reported_for_slices() {
    let mut doc = b"{\"id\": 1, \"name\": \"ab".to_vec();
    doc.extend([0xff, b'"', b'}']);
    let e = jitson::from_slice::<User>(&doc).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset(), e.path().as_str()),
        (ErrorKind::InvalidUtf8, 21, "$.name")
    );
    // Also inside skipped values and raw captures.
    let mut doc = b"{\"zzz\": [\"".to_vec();
    doc.extend([0xc3, 0x28, b'"', b']', b'}']);
    assert_eq!(
        jitson::from_slice::<User>(&doc).unwrap_err().kind(),
        ErrorKind::InvalidUtf8
    );
    assert_eq!(
        jitson::from_slice::<RawValue>(&doc).unwrap_err().kind(),
        ErrorKind::InvalidUtf8
    );
}

#[test]
fn depth_limit() {
    #[derive(Decode, Debug, PartialEq)]
    struct Node {
        children: Vec<Node>,
    }
    let nest = |n: usize| "{\"children\": [".repeat(n) + &"]}".repeat(n);
    // 127 nested containers... the 128th is rejected, as in serde_json: a Node is an
    // object holding an array, two levels each.
    assert!(common::decode::<Node>(nest(63).as_bytes()).is_ok());
    let e = err::<Node>(nest(64).as_bytes());
    assert_eq!(e.kind(), ErrorKind::DepthLimit);
    let e = common::decode_with::<Node>(nest(10).as_bytes(), |d| d.max_depth(8)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DepthLimit);
    assert_eq!(e.path(), "$.children[0].children[0].children[0].children");
}

// ---------------------------------------------------------------------------
// Partial output is dropped exactly once.

#[derive(Decode, Debug, PartialEq)]
struct Inner {
    a: Counted,
    b: Option<Counted>,
    c: Vec<Counted>,
    d: Box<Counted>,
}

#[derive(Decode, Debug, PartialEq)]
struct Outer {
    first: Counted,
    inners: Vec<Inner>,
    maybe: Option<Vec<Option<Counted>>>,
    map: HashMap<String, Counted>,
    fixed: [Counted; 2],
    last: Counted,
}

const GOOD_OUTER: &str = r#"{
  "first": "f",
  "inners": [
    {"a": "a0", "b": "b0", "c": ["c0", "c1"], "d": "d0"},
    {"a": "a1", "b": null, "c": [], "d": "d1"}
  ],
  "maybe": ["m0", null, "m2"],
  "map": {"k0": "v0", "k1": "v1", "k0": "v2"},
  "fixed": ["x0", "x1"],
  "last": "l"
}"#;

#[test]
fn failed_decodes_drop_everything_they_wrote() {
    let doc = GOOD_OUTER.as_bytes();
    let before = common::counted::live();
    let value = common::decode::<Outer>(doc).expect("the full document decodes");
    drop(value);
    assert_eq!(
        common::counted::live(),
        before,
        "a successful decode and drop balance"
    );

    // Every truncation, and every position replaced by a bad byte, fails midway
    // through nested Vecs, Options, maps and arrays: nothing may stay alive.
    // Under Miri (scripts/miri.sh), about a thousand times slower, every 16th cut.
    let stride = if cfg!(miri) { 16 } else { 1 };
    let mut failures = 0;
    for cut in (0..doc.len()).step_by(stride) {
        assert!(
            common::decode::<Outer>(&doc[..cut]).is_err(),
            "prefix of {cut} bytes decoded"
        );
        failures += 1;
        for bad in [b'#', b'}', b']', b'1'] {
            let mut mutated = doc.to_vec();
            mutated[cut] = bad;
            let _ = common::decode::<Outer>(&mutated);
        }
        assert_eq!(
            common::counted::live(),
            before,
            "leak or double drop after cutting at {cut}"
        );
    }
    assert!(failures > 100 / stride);
    // A missing field detected at the very end, after everything else was written.
    let without_last = GOOD_OUTER.replace(",\n  \"last\": \"l\"", "");
    assert_eq!(
        err::<Outer>(without_last.as_bytes()).kind(),
        ErrorKind::MissingField
    );
    // A type error deep inside, after siblings were written.
    let bad_inner = GOOD_OUTER.replace("\"d1\"", "7");
    assert_eq!(err::<Outer>(bad_inner.as_bytes()).path(), "$.inners[1].d");
    assert_eq!(common::counted::live(), before);
}

// ---------------------------------------------------------------------------
// Errors made inside values serde buffers (untagged and tagged enums' payloads,
// flattened fields) have their line and column counted once they leave those
// values, not when they are made (most are dropped by an untagged search, and
// counting each cost the input up to it: quadratic over a document of many
// untagged values). Each error that reaches the caller is placed.

#[derive(Decode, Debug, PartialEq)]
#[jitson(untagged)]
enum RefOr {
    Ref {
        #[jitson(rename = "$ref")]
        reference: String,
    },
    Item(Profile),
}

#[derive(Decode, Debug, PartialEq)]
#[jitson(tag = "type")]
enum Shape {
    Circle { r: u8 },
    Square { side: u8 },
}

#[derive(Decode, Debug, PartialEq)]
#[jitson(tag = "t", content = "c")]
enum Adjacent {
    Number(u8),
}

#[derive(Decode, Debug, PartialEq)]
struct Flattened {
    id: u8,
    #[jitson(flatten)]
    inner: Profile,
}

#[derive(Decode, Debug, PartialEq)]
struct Buffered {
    refs: Vec<RefOr>,
    shapes: Vec<Shape>,
    adjacent: Vec<Adjacent>,
    outer: Vec<Flattened>,
}

/// Line and column of byte `offset`, counted here independently.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = 1 + before.matches('\n').count();
    let column = 1 + before.rsplit('\n').next().unwrap_or("").chars().count();
    (line, column)
}

#[test]
fn errors_inside_buffered_values_are_placed() {
    let good = r##"{
  "refs": [{"$ref": "#/a"}, {"age": 1, "city": "é", "is_admin": true}],
  "shapes": [{"type": "Circle", "r": 1}],
  "adjacent": [{"t": "Number", "c": 7}],
  "outer": [{"id": 1, "age": 2, "city": "x", "is_admin": false}]
}"##;
    let value = common::decode::<Buffered>(good.as_bytes()).unwrap();
    assert_eq!(value.refs.len(), 2);
    for (from, to) in [
        // No variant of the untagged enum matches.
        (r#""is_admin": true}]"#, r#""is_admin": 5}]"#),
        // A payload field of an internally tagged enum.
        (r#""r": 1}"#, r#""r": 300}"#),
        // An adjacently tagged enum's content.
        (r#""c": 7"#, r#""c": "x""#),
        // A flattened struct's field.
        (r#""age": 2"#, r#""age": -2"#),
        // A syntax error inside an untagged value wins over the search.
        (r##"{"$ref": "#/a"}"##, r##"{"$ref": "#/a",}"##),
    ] {
        assert!(good.contains(from), "{from}");
        let bad = good.replacen(from, to, 1);
        let e = err::<Buffered>(bad.as_bytes());
        assert!(e.line() > 1, "{to}: {e}");
        assert_eq!(
            (e.line(), e.column()),
            line_column(&bad, e.offset()),
            "{to}: {e}"
        );
        let msg = e.to_string();
        assert!(
            msg.contains(&format!("line {} column {}", e.line(), e.column())),
            "{msg}"
        );
    }
}
