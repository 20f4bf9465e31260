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
