//! The JIT's library: functions whose code depends on their layout alone (here
//! `member_i64`, `member_String` and `member_Vec<String>`) are compiled once per
//! process and called by every module that needs them. A second type made of
//! the same field types compiles only its own struct function, and both decode
//! as the interpreter does. One test in its own binary: it reads process-wide
//! compile statistics.

use jitson::{Backend, Decoder};

#[derive(jitson::Decode, Debug, PartialEq)]
struct First {
    id: i64,
    name: String,
    tags: Vec<String>,
}

#[derive(jitson::Decode, Debug, PartialEq)]
struct Second {
    count: i64,
    label: String,
    words: Vec<String>,
    more: Vec<String>,
}

/// Field types already in the library (`i64`, `Vec<String>`) beside new ones
/// (`u16`, `Option<bool>`, `Vec<Option<f64>>`): its compile adds to the library
/// and binds its own module's calls to functions old and new.
#[derive(jitson::Decode, Debug, PartialEq)]
struct Third {
    small: u16,
    id: i64,
    flag: Option<bool>,
    tags: Vec<String>,
    readings: Vec<Option<f64>>,
}

#[test]
fn second_type_of_the_same_field_types_compiles_only_its_struct() {
    if !Backend::Jit.is_available() {
        eprintln!("NOTICE: no JIT in this build");
        return;
    }
    let first_doc = br#"{"id": -3, "name": "a\"b", "tags": ["x", "", "z\u00e9"]}"#;
    let second_doc = br#"{"count": 7, "label": "l", "words": [], "more": ["m"]}"#;
    let first_code = compiled_bytes::<First>(first_doc);
    let second_code = compiled_bytes::<Second>(second_doc);
    assert!(first_code > 0 && second_code > 0);
    // `First` compiled its struct and the three members; `Second`, with one
    // field more, only its struct.
    assert!(
        second_code * 2 < first_code,
        "first type {first_code} bytes of code, second {second_code}"
    );
    // A third type, half from the library and half new, grows it.
    let third_doc = br#"{"small": 65535, "id": -1, "flag": null, "tags": ["t"], "readings": [1.5, null, -0.25e3]}"#;
    let third_code = compiled_bytes::<Third>(third_doc);
    assert!(
        third_code > second_code,
        "third {third_code}, second {second_code}"
    );
    for bad in [
        &br#"{"small": 65536, "id": 1, "flag": true, "tags": [], "readings": []}"#[..],
        br#"{"small": 1, "id": 1, "flag": true, "tags": [], "readings": [1.0, x]}"#,
        br#"{"small": 1, "id": 1, "flag": 1, "tags": [], "readings": []}"#,
    ] {
        let jit = Decoder::<Third>::with_backend(Backend::Jit).decode_slice(bad);
        let interpreter = Decoder::<Third>::with_backend(Backend::Interpreter).decode_slice(bad);
        assert!(jit.is_err(), "{}", String::from_utf8_lossy(bad));
        assert_eq!(
            jit.map_err(|e| e.to_string()),
            interpreter.map_err(|e| e.to_string())
        );
    }
    // Errors inside a library function still unwind through both modules.
    for bad in [
        &br#"{"count": 7, "label": "l", "words": [1], "more": []}"#[..],
        br#"{"count": 7, "label": "l", "words": ["a", "b"#,
        br#"{"count": "7", "label": "l", "words": [], "more": []}"#,
    ] {
        let jit = Decoder::<Second>::with_backend(Backend::Jit).decode_slice(bad);
        let interpreter = Decoder::<Second>::with_backend(Backend::Interpreter).decode_slice(bad);
        assert_eq!(
            jit.map_err(|e| e.to_string()),
            interpreter.map_err(|e| e.to_string())
        );
    }
}

/// Decodes `doc` with the JIT (compiling `T`) and the interpreter, checks they
/// agree, and returns the bytes of code the compile added.
fn compiled_bytes<T: jitson::Decode + PartialEq + std::fmt::Debug>(doc: &[u8]) -> u64 {
    let before = jitson::stats().code_bytes;
    let jit = Decoder::<T>::with_backend(Backend::Jit)
        .decode_slice(doc)
        .unwrap();
    let added = jitson::stats().code_bytes - before;
    let interpreter = Decoder::<T>::with_backend(Backend::Interpreter)
        .decode_slice(doc)
        .unwrap();
    assert_eq!(jit, interpreter);
    added
}
