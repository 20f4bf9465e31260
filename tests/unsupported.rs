//! A type no backend decodes is refused before any document is read (issue 23,
//! item 4): `warm_up` fails with `UnsupportedType`, and so does every decode,
//! on every backend.

mod common;

use std::collections::HashMap;

use jitson::{Category, Decode, Decoder, ErrorKind};

/// A number has no members to flatten (serde refuses it at run time).
#[derive(Decode, Debug, PartialEq)]
struct FlattensANumber {
    id: u32,
    #[serde(flatten)]
    shape: f64,
}

/// An `Option` flattens only when it holds a struct, a map or an enum.
#[derive(Decode, Debug, PartialEq)]
struct FlattensAnOptionalString {
    #[serde(flatten)]
    rest: Option<String>,
}

/// Reachable only inside a `Vec`: still refused when the root is warmed up.
#[derive(Decode, Debug, PartialEq)]
struct Holder {
    items: Vec<FlattensANumber>,
}

#[track_caller]
fn refused<T: Decode + PartialEq + std::fmt::Debug>(doc: &str, field: &str) {
    for backend in common::backends() {
        let e = Decoder::<T>::with_backend(backend).warm_up().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::UnsupportedType, "{backend:?}: {e}");
        assert_eq!(e.classify(), Category::Backend);
        assert!(e.to_string().contains(&format!("field `{field}`")), "{e}");
    }
    assert_eq!(
        jitson::warm_up::<T>().unwrap_err().kind(),
        ErrorKind::UnsupportedType
    );
    // Every decode says the same, not a data error.
    let e = common::err::<T>(doc.as_bytes());
    assert_eq!(e.kind(), ErrorKind::UnsupportedType, "{e}");
    assert!(e.to_string().contains(&format!("field `{field}`")), "{e}");
}

#[test]
fn flattening_what_no_backend_flattens_is_refused_by_warm_up() {
    refused::<FlattensANumber>(r#"{"id": 1, "kind": "Circle", "r": 2.0}"#, "shape");
    refused::<FlattensAnOptionalString>(r#"{"1": "a"}"#, "rest");
    refused::<Holder>(
        r#"{"items": [{"id": 1, "kind": "Circle", "r": 2.0}]}"#,
        "shape",
    );
    // What flattens is still warmed up.
    #[derive(Decode, Debug, PartialEq)]
    struct Fine {
        #[serde(flatten)]
        rest: HashMap<u32, u8>,
        #[serde(flatten)]
        more: Option<Inner>,
    }
    #[derive(Decode, Debug, PartialEq)]
    struct Inner {
        a: u8,
    }
    for backend in common::backends() {
        Decoder::<Fine>::with_backend(backend).warm_up().unwrap();
    }
}

/// The same in the other direction (found by a newcomer's trial): a flattened
/// field the encoder cannot write as members (then an enum; now a number or
/// a string) passed `warm_up_encode` and then failed every encode. Now
/// `warm_up_encode` refuses it, and every encode says the same on every
/// backend, as `UnsupportedType`, not a data error.
#[test]
fn flattening_what_the_encoder_does_not_flatten_is_refused_by_warm_up_encode() {
    #[derive(jitson::Encode)]
    struct Tagged {
        id: u64,
        #[serde(flatten)]
        kind: f64,
    }
    #[derive(jitson::Encode)]
    struct InAVec {
        items: Vec<Option<Box<Untagged>>>,
    }
    #[derive(jitson::Encode)]
    struct Untagged {
        #[serde(flatten)]
        shape: Option<String>,
    }
    #[track_caller]
    fn refused<T: jitson::Encode>(value: &T, field: &str) {
        let e = jitson::warm_up_encode::<T>().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::UnsupportedType, "{e}");
        assert!(e.to_string().contains(&format!("field `{field}`")), "{e}");
        for backend in common::backends() {
            let e = jitson::Encoder::<T>::with_backend(backend)
                .encode(value)
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::UnsupportedType, "{backend:?}: {e}");
        }
    }
    refused(&Tagged { id: 1, kind: 2.5 }, "kind");
    refused(
        &InAVec {
            items: vec![Some(Box::new(Untagged {
                shape: Some("square".to_owned()),
            }))],
        },
        "shape",
    );
    // What the encoder flattens still warms up and encodes.
    #[derive(jitson::Encode)]
    struct Fine {
        id: u8,
        #[serde(flatten)]
        rest: HashMap<String, u8>,
    }
    jitson::warm_up_encode::<Fine>().unwrap();
    let fine = Fine {
        id: 1,
        rest: HashMap::from([("a".to_owned(), 2)]),
    };
    assert_eq!(jitson::to_string(&fine).unwrap(), r#"{"id":1,"a":2}"#);
}
