//! camino's `Utf8PathBuf` and `Box<Utf8Path>` (feature `camino`), held to
//! camino's own serde impl through serde_json on every backend: paths of every
//! kind of text (escapes, non-ASCII, separators, empty) are read and written
//! as serde_json reads and writes them, other JSON values refused alike, and
//! structs of them stay compiled.

use crate::common;
use crate::{One, encodes_as_serde_json, reads_and_writes_as_serde_json};

use camino::{Utf8Path, Utf8PathBuf};
use common::oracle;
use jitson::Backend;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Target {
    src_path: Utf8PathBuf,
    boxed: Box<Utf8Path>,
    out_dir: Option<Utf8PathBuf>,
    filenames: Vec<Utf8PathBuf>,
}

fn sample() -> Target {
    Target {
        src_path: "/home/me/src/lib.rs".into(),
        boxed: Utf8PathBuf::from("C:\\Users\\me\\\"quoted\"\\é").into_boxed_path(),
        out_dir: Some("target/debug/build/x-1234/out".into()),
        filenames: vec!["".into(), "a\nb\tc\u{1}".into(), "日本/語".into()],
    }
}

#[test]
fn a_struct_of_paths_round_trips_as_serde_json() {
    let value = sample();
    encodes_as_serde_json(&value);
    let json = serde_json::to_string(&value).unwrap();
    assert_eq!(oracle::agree::<Target>(json.as_bytes()).unwrap(), value);
    let mut other = value.clone();
    other.out_dir = None;
    other.filenames.clear();
    encodes_as_serde_json(&other);
    assert_eq!(
        oracle::agree::<Target>(serde_json::to_string(&other).unwrap().as_bytes()).unwrap(),
        other
    );
}

#[test]
fn structs_of_paths_stay_compiled() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Target>().unwrap();
    jitson::warm_up_encode::<Target>().unwrap();
    let interpreted = jitson::stats().interpreted_layouts;
    assert!(
        !interpreted.iter().any(|(ty, _)| ty.contains("camino")),
        "{interpreted:?}"
    );
    common::assert_compiled(&["Target"]);
}

#[test]
fn texts_and_other_json_types() {
    for json in [
        r#""""#,
        r#""/""#,
        r#""a/b/../c""#,
        r#""\u002fetc\/passwd""#,
        r#""caf\u00e9\ud83d\ude00""#,
        r#""tab\there""#,
        r#""\ud800""#,
        r#""bad \x escape""#,
        "[47,97]",
        "[]",
        "12",
        "null",
        "false",
        "{}",
        r#""cut short"#,
    ] {
        reads_and_writes_as_serde_json::<Utf8PathBuf>(json);
        reads_and_writes_as_serde_json::<Box<Utf8Path>>(json);
        reads_and_writes_as_serde_json::<Option<Utf8PathBuf>>(json);
        reads_and_writes_as_serde_json::<Vec<Utf8PathBuf>>(&format!("[{json}]"));
    }
    for doc in [
        &b"{\"t\":\"a\xffb\"}"[..],
        b"{\"t\":\"a\x01b\"}",
        b"{\"t\":\"\xc3\xa9\"}",
    ] {
        let ours = common::decode::<One<Utf8PathBuf>>(doc);
        let theirs = serde_json::from_slice::<One<Utf8PathBuf>>(doc);
        let _ = oracle::compare(doc, ours, theirs, |a, b| a == b);
    }
}

proptest! {
    #[test]
    fn generated_paths_agree_with_camino(text in "\\PC{0,40}", raw in any::<String>()) {
        for text in [text, raw] {
            reads_and_writes_as_serde_json::<Utf8PathBuf>(&serde_json::to_string(&text).unwrap());
            reads_and_writes_as_serde_json::<Box<Utf8Path>>(&serde_json::to_string(&text).unwrap());
        }
    }
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
struct Borrowed<'a> {
    #[serde(borrow)]
    path: &'a Utf8Path,
    owned: Utf8PathBuf,
}

/// `&'de Utf8Path` borrows a string without escapes from the input and
/// refuses an escaped one, as camino's `visit_borrowed_str` does with
/// serde_json.
#[test]
fn borrowed_paths_as_camino_borrows_them() {
    for doc in [
        r#"{"path":"src/lib.rs","owned":"a"}"#,
        r#"{"path":"","owned":""}"#,
        r#"{"path":"日本/語","owned":"x\ny"}"#,
        r#"{"path":"a\/b","owned":"a"}"#,
        r#"{"path":"a\u00e9","owned":"a"}"#,
        r#"{"path":1,"owned":"a"}"#,
        r#"{"path":null,"owned":"a"}"#,
    ] {
        let theirs = serde_json::from_str::<Borrowed<'_>>(doc);
        for backend in common::backends() {
            let ours = jitson::Decoder::<Borrowed<'_>>::with_backend(backend).decode_str(doc);
            match (&ours, &theirs) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a, b, "{doc} on {}", backend.name());
                    let input = doc.as_bytes().as_ptr_range();
                    assert!(
                        input.contains(&a.path.as_str().as_ptr()),
                        "{doc}: not borrowed"
                    );
                    encodes_as_serde_json(a);
                }
                (Err(a), Err(b)) => {
                    crate::assert_same_reason(&format!("{doc} on {}", backend.name()), a, b);
                }
                _ => panic!(
                    "{doc} on {}: jitson {ours:?}, serde_json {theirs:?}",
                    backend.name()
                ),
            }
        }
    }
}
