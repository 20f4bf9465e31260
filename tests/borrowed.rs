//! Borrowed decoding: `&'de str`, `Cow<'de, str>`, types with lifetime
//! parameters and `#[serde(borrow)]`, on every backend and both entry points,
//! compared with serde_json. A type that borrows can only be decoded from input
//! that outlives it (the `DecodeBorrowed<'de>` bound; see the compile-fail
//! doctests on `jitson::DecodeBorrowed`).

mod common;

use std::borrow::Cow;
use std::collections::BTreeMap;

use jitson::{Backend, Decoder, ErrorKind};
use serde::Deserialize;

/// A webhook delivery, as a serde user writes it: borrowed strings, a borrowed
/// map, a catch-all variant.
#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Delivery<'a> {
    id: &'a str,
    #[serde(borrow)]
    action: Cow<'a, str>,
    #[serde(borrow)]
    sender: Sender<'a>,
    #[serde(borrow)]
    labels: Vec<&'a str>,
    #[serde(borrow)]
    headers: BTreeMap<&'a str, Cow<'a, str>>,
    kind: Kind,
    #[serde(borrow)]
    payload: Payload<'a>,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Sender<'a> {
    login: &'a str,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Push,
    PullRequest,
    #[serde(other)]
    Unknown,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "type")]
enum Payload<'a> {
    Commit {
        sha: &'a str,
        #[serde(borrow)]
        message: Cow<'a, str>,
    },
    Ping,
}

/// Decodes with every backend and both entry points; all must agree with each
/// other and with serde_json.
fn check(doc: &str) -> Result<(), jitson::Error> {
    let theirs: Result<Delivery<'_>, _> = serde_json::from_str(doc);
    let mut first: Option<Result<Delivery<'_>, jitson::Error>> = None;
    for backend in common::backends() {
        let d = Decoder::<Delivery<'_>>::with_backend(backend);
        for ours in [d.decode_slice(doc.as_bytes()), d.decode_str(doc)] {
            match (&ours, &theirs) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{backend:?} {doc}"),
                (Err(_), Err(_)) => {}
                (a, b) => panic!("{backend:?} disagrees with serde_json on {doc}: {a:?} vs {b:?}"),
            }
            match &first {
                None => first = Some(ours),
                Some(Ok(v)) => assert_eq!(v, ours.as_ref().unwrap()),
                Some(Err(e)) => {
                    assert_eq!(common::shape(e), common::shape(ours.as_ref().unwrap_err()))
                }
            }
        }
    }
    first.expect("a backend").map(drop)
}

const DOC: &str = r#"{
  "id": "d-1", "action": "opened",
  "sender": {"login": "octo", "name": "The \"Octo\" Cat"},
  "labels": ["bug", "p1"],
  "headers": {"x-github-event": "push", "x-escaped": "a\tb"},
  "kind": "deployment",
  "payload": {"message": "fix\nit", "type": "Commit", "sha": "abc123"}
}"#;

#[test]
fn a_delivery_borrows_what_it_can() {
    check(DOC).expect("decodes");
    let v: Delivery<'_> = jitson::from_str(DOC).unwrap();
    // Unescaped text is borrowed from the input; escaped text is owned.
    assert!(matches!(v.action, Cow::Borrowed("opened")));
    assert!(matches!(v.sender.name, Some(Cow::Owned(_))));
    assert!(matches!(v.headers["x-github-event"], Cow::Borrowed("push")));
    assert!(matches!(v.headers["x-escaped"], Cow::Owned(_)));
    let base = DOC.as_ptr() as usize..DOC.as_ptr() as usize + DOC.len();
    assert!(base.contains(&(v.id.as_ptr() as usize)));
    assert_eq!(v.kind, Kind::Unknown);
    assert!(matches!(v.payload, Payload::Commit { sha: "abc123", .. }));
}

#[test]
fn an_escaped_borrowed_str_is_an_invalid_type() {
    let doc = DOC.replace(r#""id": "d-1""#, r#""id": "d\u002d1""#);
    assert!(check(&doc).is_err());
    let e = Decoder::<Delivery<'_>>::with_backend(Backend::Interpreter)
        .decode_str(&doc)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidType);
    assert_eq!(e.path(), "$.id");
    assert!(
        e.to_string()
            .starts_with(r#"invalid type: string "d-1", expected a borrowed string"#),
        "{e}"
    );
}

#[test]
fn bad_documents_agree_with_serde_json() {
    for (from, to) in [
        (r#""d-1""#, "1"),
        (r#""opened""#, "null"),
        (r#""login": "octo""#, r#""login": "oc\nto""#),
        (r#""bug""#, r#""b\"ug""#),
        (r#""type": "Commit""#, r#""type": "Merge""#),
        (r#""sha": "abc123""#, r#""sha": 5"#),
        ("}", ""),
    ] {
        let doc = DOC.replacen(from, to, 1);
        assert!(check(&doc).is_err(), "{doc}");
    }
}

#[test]
fn a_borrowing_type_compiles_once() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Delivery<'_>>().unwrap();
    let before = jitson::stats().layouts_compiled;
    let owned = DOC.to_owned();
    let _ = Decoder::<Delivery<'_>>::with_backend(Backend::Jit)
        .decode_str(&owned)
        .unwrap();
    assert_eq!(jitson::stats().layouts_compiled, before);
    // Borrowed strings are compiled, not handed to the interpreter.
    let handed = jitson::stats().interpreted_layouts;
    assert!(
        !handed
            .iter()
            .any(|(ty, _)| ty == "&str" || ty == "alloc::borrow::Cow<str>"),
        "{handed:?}"
    );
}

/// The byte and path types serde borrows: `&[u8]` and `&Path` (always
/// borrowed, as serde's derive makes them) and a `Cow<[u8]>` under
/// `#[serde(borrow)]`, which serde's derive reads from a string's bytes where
/// a `Cow<[u8]>` without it is read as a `Vec<u8>`.
#[derive(jitson::Decode, jitson::Encode, Deserialize, serde::Serialize, Debug, PartialEq)]
struct Bytes<'a> {
    slice: &'a [u8],
    path: &'a std::path::Path,
    #[serde(borrow)]
    cow: Cow<'a, [u8]>,
    #[serde(default)]
    owned: Cow<'a, [u8]>,
    #[serde(default)]
    maybe: Option<&'a [u8]>,
    #[serde(default, borrow)]
    many: Vec<&'a std::path::Path>,
    #[serde(default, borrow)]
    keys: BTreeMap<&'a [u8], &'a std::path::Path>,
}

/// serde_json's message without its position, which the two libraries give
/// differently for type errors (docs/semantics.md, difference 3).
fn bare(e: &serde_json::Error) -> String {
    let text = e.to_string();
    text.rfind(" at line ")
        .map_or(text.clone(), |at| text[..at].to_owned())
}

/// Asserts that jitson's outcome on `doc` is serde_json's: values that `same`
/// accepts, or errors with the same message.
#[track_caller]
fn agree<A: std::fmt::Debug, B: std::fmt::Debug>(
    context: &str,
    ours: &Result<A, jitson::Error>,
    theirs: &Result<B, serde_json::Error>,
    same: impl FnOnce(&A, &B),
) {
    match (ours, theirs) {
        (Ok(a), Ok(b)) => same(a, b),
        (Err(a), Err(b)) => assert_eq!(a.code().to_string(), bare(b), "{context}"),
        _ => panic!("{context}\n ours: {ours:?}\n serde_json: {theirs:?}"),
    }
}

#[test]
fn borrowed_bytes_and_paths_match_serde_json() {
    const BASE: &str = r#"{"slice": "ab", "path": "/tmp/x", "cow": "cd", "owned": [1, 2], "maybe": "m", "many": ["a", "b/c"], "keys": {"k": "v"}}"#;
    let cases: &[(&str, &str)] = &[
        ("", ""),
        (r#""ab""#, r#""""#),
        (r#""ab""#, r#""é\u00e9""#),
        (r#""ab""#, r#""a\nb""#),
        (r#""ab""#, "[1, 2]"),
        (r#""ab""#, "null"),
        (r#""ab""#, "7"),
        (r#""ab""#, "{}"),
        (r#""/tmp/x""#, r#""/tmp\/x""#),
        (r#""/tmp/x""#, "[]"),
        (r#""/tmp/x""#, "true"),
        (r#""cd""#, r#""c\td""#),
        (r#""cd""#, r#""""#),
        (r#""cd""#, "[1, 2]"),
        (r#""cd""#, "null"),
        (r#""cd""#, "3"),
        ("[1, 2]", r#""12""#),
        ("[1, 2]", "[300]"),
        (r#""m""#, "null"),
        (r#""m""#, r#""\u006d""#),
        (r#""m""#, "[9]"),
        (r#"["a", "b/c"]"#, r#"["a\u0041"]"#),
        (r#"["a", "b/c"]"#, "[]"),
        (r#"{"k": "v"}"#, r#"{"k": "v", "": "w"}"#),
        (r#"{"k": "v"}"#, r#"{"\u006b": "v"}"#),
        (r#"{"k": "v"}"#, r#"{"k": "\u0076"}"#),
    ];
    for &(from, to) in cases {
        let doc = if from.is_empty() {
            BASE.to_owned()
        } else {
            BASE.replacen(from, to, 1)
        };
        let theirs = serde_json::from_str::<Bytes<'_>>(&doc);
        for backend in common::backends() {
            let ours = Decoder::<Bytes<'_>>::with_backend(backend).decode_str(&doc);
            agree(&format!("{backend:?} {doc}"), &ours, &theirs, |a, b| {
                assert_eq!(a, b, "{backend:?} {doc}");
                // Borrowed where serde borrows: a `Cow` without escapes.
                assert_eq!(
                    matches!(a.cow, Cow::Borrowed(_)),
                    matches!(b.cow, Cow::Borrowed(_)),
                    "{backend:?} {doc}"
                );
                let range = doc.as_ptr() as usize..doc.as_ptr() as usize + doc.len();
                assert!(range.contains(&(a.slice.as_ptr() as usize)) || a.slice.is_empty());
            });
        }
        // Encoded back as serde writes them: bytes as arrays of numbers (and
        // as map keys refused, as serde_json refuses them).
        if let Ok(value) = &theirs {
            let expected = serde_json::to_string(value).map_err(|e| e.to_string());
            for backend in common::backends() {
                let ours = jitson::Encoder::<Bytes<'_>>::with_backend(backend)
                    .encode(value)
                    .map(|bytes| String::from_utf8(bytes).unwrap())
                    .map_err(|e| e.code().to_string());
                assert_eq!(ours, expected, "{backend:?}");
            }
        }
    }
}

#[test]
fn borrowed_bytes_and_paths_are_compiled() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Bytes<'_>>().unwrap();
    common::assert_compiled(&["Bytes"]);
}

#[test]
fn a_path_that_is_not_utf8_is_refused_as_serde_refuses_it() {
    use std::os::unix::ffi::OsStrExt;
    let path = std::path::Path::new(std::ffi::OsStr::from_bytes(b"a\xffb"));
    let theirs = serde_json::to_string(&path).unwrap_err().to_string();
    for backend in common::backends() {
        let ours = jitson::Encoder::<&std::path::Path>::with_backend(backend)
            .encode(&path)
            .unwrap_err();
        assert_eq!(ours.code().to_string(), theirs, "{backend:?}");
    }
}

/// serde_json's own example of a borrowed `RawValue` (its docs' `Input`),
/// with the raw value in the other places a model puts one.
#[derive(jitson::Decode, jitson::Encode, Deserialize, serde::Serialize, Debug)]
struct Input<'a> {
    code: u32,
    #[serde(borrow)]
    payload: &'a serde_json::value::RawValue,
    #[serde(default, borrow)]
    extra: Option<&'a serde_json::value::RawValue>,
    #[serde(default, borrow)]
    list: Vec<&'a serde_json::value::RawValue>,
    #[serde(default, borrow)]
    named: BTreeMap<&'a str, &'a serde_json::value::RawValue>,
}

/// `Input` as text: what a raw value compares by.
fn raw_texts(input: &Input<'_>) -> String {
    format!(
        "{} {} {:?} {:?} {:?}",
        input.code,
        input.payload.get(),
        input.extra.map(|r| r.get()),
        input.list.iter().map(|r| r.get()).collect::<Vec<_>>(),
        input
            .named
            .iter()
            .map(|(k, r)| (*k, r.get()))
            .collect::<Vec<_>>(),
    )
}

#[test]
fn borrowed_raw_values_match_serde_json() {
    const BASE: &str = r#"{"code": 200, "payload": {"features": ["serde", "json"]}}"#;
    let payload = r#"{"features": ["serde", "json"]}"#;
    let cases: &[(&str, &str)] = &[
        ("", ""),
        (payload, "  [1, 2.50, -0, 1e400]  "),
        (payload, r#""t\u00e9xt \n""#),
        (payload, "null"),
        (payload, "{}"),
        (payload, "[1,,2]"),
        (payload, r#"{"a" 1}"#),
        (payload, "tru"),
        (
            payload,
            r#"1}, "extra": [true, {"b": null}], "list": [1, "x", []], "named": {"k": {"v": 2}, "\u006b2": 3"#,
        ),
        (payload, r#"1}, "extra": null, "list": [1, ], "x": {"#),
        (payload, r#"1}, "named": {"k": 1, "k": 2}, "y": {"#),
    ];
    for &(from, to) in cases {
        let doc = if from.is_empty() {
            BASE.to_owned()
        } else {
            BASE.replacen(from, to, 1)
        };
        let theirs = serde_json::from_str::<Input<'_>>(&doc);
        for backend in common::backends() {
            let ours = Decoder::<Input<'_>>::with_backend(backend).decode_str(&doc);
            agree(&format!("{backend:?} {doc}"), &ours, &theirs, |a, b| {
                assert_eq!(raw_texts(a), raw_texts(b), "{backend:?} {doc}");
                let range = doc.as_ptr() as usize..doc.as_ptr() as usize + doc.len();
                assert!(
                    range.contains(&(a.payload.get().as_ptr() as usize)),
                    "borrowed"
                );
            });
        }
        if let Ok(value) = &theirs {
            for pretty in [false, true] {
                let expected = if pretty {
                    serde_json::to_string_pretty(value).unwrap()
                } else {
                    serde_json::to_string(value).unwrap()
                };
                for backend in common::backends() {
                    let ours = jitson::Encoder::<Input<'_>>::with_backend(backend)
                        .pretty(pretty)
                        .encode(value)
                        .unwrap();
                    assert_eq!(String::from_utf8(ours).unwrap(), expected, "{backend:?}");
                }
            }
        }
    }
    // As the whole document, as serde_json reads it (without the space around),
    // and its text kept as it is (`1e400` too), borrowed or boxed.
    for doc in [
        " [1, {\"a\": 2}] ",
        "\"x\"",
        "",
        "[1,",
        "-1e400",
        "[1e400, 1]",
    ] {
        let boxed = serde_json::from_str::<Box<serde_json::value::RawValue>>(doc);
        for backend in common::backends() {
            let ours =
                Decoder::<Box<serde_json::value::RawValue>>::with_backend(backend).decode_str(doc);
            agree(&format!("{backend:?} {doc}"), &ours, &boxed, |a, b| {
                assert_eq!(a.get(), b.get(), "{backend:?} {doc}")
            });
        }
        let theirs = serde_json::from_str::<&serde_json::value::RawValue>(doc);
        for backend in common::backends() {
            let ours =
                Decoder::<&serde_json::value::RawValue>::with_backend(backend).decode_str(doc);
            agree(&format!("{backend:?} {doc}"), &ours, &theirs, |a, b| {
                assert_eq!(a.get(), b.get(), "{backend:?} {doc}")
            });
        }
    }
}

/// A flattened value is read from its members' text, assembled for it: one
/// that borrows its text (or an enum reaching one) is refused, as serde
/// refuses to flatten a raw value.
#[derive(jitson::Decode, Deserialize, Debug)]
struct Flattens<'a> {
    id: u32,
    #[serde(flatten, borrow)]
    rest: Tagged<'a>,
}

#[derive(jitson::Decode, Deserialize, Debug)]
#[serde(tag = "type")]
#[allow(dead_code)] // never decoded: refused
enum Tagged<'a> {
    Raw {
        #[serde(borrow)]
        body: &'a serde_json::value::RawValue,
    },
}

#[test]
fn a_flattened_borrowed_raw_value_is_refused() {
    let doc = r#"{"id": 1, "type": "Raw", "body": [1, 2]}"#;
    for backend in common::backends() {
        let e = Decoder::<Flattens<'_>>::with_backend(backend)
            .decode_str(doc)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::UnsupportedType, "{backend:?} {e}");
    }
}

/// serde's variant-level `borrow` (newtype variants only): the field's own.
#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
enum Chunk<'a> {
    #[serde(borrow)]
    Text(Cow<'a, str>),
    #[serde(borrow)]
    Bytes(Cow<'a, [u8]>),
    Plain(Cow<'a, [u8]>),
}

#[test]
fn a_variants_borrow_is_its_fields() {
    for doc in [
        r#"{"Text": "abc"}"#,
        r#"{"Text": "a\nc"}"#,
        r#"{"Bytes": "abc"}"#,
        r#"{"Bytes": "a\u0062c"}"#,
        r#"{"Bytes": [1, 2]}"#,
        r#"{"Plain": [1, 2]}"#,
        r#"{"Plain": "abc"}"#,
    ] {
        let theirs = serde_json::from_str::<Chunk<'_>>(doc);
        for backend in common::backends() {
            let ours = Decoder::<Chunk<'_>>::with_backend(backend).decode_str(doc);
            agree(&format!("{backend:?} {doc}"), &ours, &theirs, |a, b| {
                assert_eq!(a, b, "{backend:?} {doc}");
                if let (Chunk::Bytes(a), Chunk::Bytes(b)) = (a, b) {
                    assert_eq!(matches!(a, Cow::Borrowed(_)), matches!(b, Cow::Borrowed(_)));
                }
            });
        }
    }
}

/// Inside a value serde buffers (an internally tagged variant), an escaped
/// string reaches a byte type as a string, as serde's buffer hands it over.
#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "t")]
enum BufferedBytes<'a> {
    C { b: &'a [u8] },
}

#[test]
fn an_escaped_byte_string_in_a_buffered_value_is_a_string() {
    for doc in [r#"{"t":"C","b":"b\nb"}"#, r#"{"t":"C","b":"bb"}"#] {
        let theirs = serde_json::from_str::<BufferedBytes<'_>>(doc);
        for backend in common::backends() {
            let ours = Decoder::<BufferedBytes<'_>>::with_backend(backend).decode_str(doc);
            agree(&format!("{backend:?} {doc}"), &ours, &theirs, |a, b| {
                assert_eq!(a, b, "{backend:?} {doc}")
            });
        }
    }
}
