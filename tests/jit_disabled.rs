//! `JITSON_DISABLE_JIT=1` switches the JIT off for `Backend::Auto`.
//!
//! The variable is read once per process, at the first decode, so this binary has
//! a single test that sets it before any jitson call. It proves that, with the
//! variable set:
//!
//! - every `Auto` decode runs on the interpreter (`interpreter_decodes` grows by
//!   one per decode, `jit_decodes` stays 0, nothing is compiled);
//! - `stats()` says why: `jit_disabled_by_env` is true and `auto_fallbacks` has one
//!   entry naming `JITSON_DISABLE_JIT`, counting every `Auto` decode;
//! - results, values and errors alike, are identical to `Backend::Interpreter`;
//! - it is a kill switch: an explicit `Backend::Jit` (decode and `warm_up`) fails
//!   with `BackendUnavailable` naming the variable, and compiles nothing.

use std::fmt::Debug;

use jitson::{Backend, Decode, Decoder, Error};

#[derive(Decode, Debug, PartialEq)]
struct Profile {
    age: u8,
    city: String,
}

#[derive(Decode, Debug, PartialEq)]
struct User {
    id: i64,
    name: String,
    tags: Vec<String>,
    profile: Option<Profile>,
}

/// What is compared between backends: the value, or the whole error position.
fn outcome<T>(r: Result<T, Error>) -> Result<T, (jitson::ErrorKind, usize, usize, usize, String)> {
    r.map_err(|e| (e.kind(), e.offset(), e.line(), e.column(), e.path()))
}

/// Decodes `json` with `Auto` and with the interpreter; asserts they agree and
/// returns whether it succeeded. Counts as one `Auto` decode and one interpreter one.
#[track_caller]
fn same_as_interpreter<T: Decode + PartialEq + Debug>(json: &str) -> bool {
    let auto = outcome(Decoder::<T>::new().decode_str(json));
    let interp = outcome(Decoder::<T>::with_backend(Backend::Interpreter).decode_str(json));
    assert_eq!(auto, interp, "input {json:?}");
    auto.is_ok()
}

#[test]
fn auto_uses_the_interpreter_when_disabled_by_env() {
    // SAFETY: first statement of the only test in this binary: no other thread of
    // this process reads the environment yet.
    unsafe { std::env::set_var("JITSON_DISABLE_JIT", "1") };

    let before = jitson::stats();
    assert_eq!(before.interpreter_decodes, 0, "{before:#?}");
    assert_eq!(before.jit_decodes, 0, "{before:#?}");

    let docs: &[(&str, bool)] = &[
        (
            r#"{"id": 1, "name": "ada", "tags": ["x", "y"], "profile": {"age": 36, "city": "London"}}"#,
            true,
        ),
        (
            r#"{"id": -7, "name": "b\u00e9", "tags": [], "profile": null}"#,
            true,
        ),
        (r#"{"id": 1, "name": "ada", "tags": ["x", 2]}"#, false),
        (
            r#"{"id": 1, "name": "ada", "tags": [], "profile": {"age": 300, "city": ""}}"#,
            false,
        ),
        (r#"{"id": 1"#, false),
        ("", false),
    ];
    for &(json, valid) in docs {
        assert_eq!(same_as_interpreter::<User>(json), valid, "input {json:?}");
    }
    // A second root type, and plain values.
    assert!(same_as_interpreter::<Vec<Profile>>(
        r#"[{"age": 1, "city": "a"}]"#
    ));
    assert!(same_as_interpreter::<i64>("42"));
    assert!(!same_as_interpreter::<u8>("-1"));
    // Each of those was one Auto decode and one explicit interpreter decode.
    let compared = docs.len() as u64 + 3;

    // `from_slice` / `from_str` are Auto too.
    let u: User = jitson::from_slice(docs[0].0.as_bytes()).expect("from_slice");
    assert_eq!(u.id, 1);
    let u: User = jitson::from_str(docs[1].0).expect("from_str");
    assert_eq!(u.name, "bé");
    let auto_decodes = compared + 2;

    let after = jitson::stats();
    assert!(after.jit_disabled_by_env, "{after:#?}");
    assert_eq!(
        after.jit_decodes, 0,
        "no decode may run on the JIT: {after:#?}"
    );
    assert_eq!(after.layouts_compiled, 0, "nothing is compiled: {after:#?}");
    // Every Auto decode plus every explicit interpreter decode.
    assert_eq!(
        after.interpreter_decodes - before.interpreter_decodes,
        auto_decodes + compared,
        "{after:#?}"
    );
    assert_eq!(
        after.auto_fallbacks.len(),
        1,
        "one reason only: {:?}",
        after.auto_fallbacks
    );
    let (reason, count) = &after.auto_fallbacks[0];
    assert!(
        reason.contains("JITSON_DISABLE_JIT"),
        "the reason names the variable: {reason:?}"
    );
    assert_eq!(
        *count, auto_decodes,
        "every Auto decode fell back: {after:#?}"
    );

    // warm_up with Auto succeeds, compiles nothing, and (decoding nothing) counts
    // no fallback.
    jitson::warm_up::<User>().expect("warm_up");
    let warmed = jitson::stats();
    assert_eq!(warmed.layouts_compiled, 0, "{warmed:#?}");
    assert_eq!(warmed.jit_decodes, 0, "{warmed:#?}");
    assert_eq!(warmed.auto_fallbacks, after.auto_fallbacks, "{warmed:#?}");

    // An explicit Backend::Jit is refused too, with the reason, and runs nothing.
    assert!(!Backend::Jit.is_available());
    let jit = Decoder::<User>::with_backend(Backend::Jit);
    for e in [
        jit.decode_str(docs[0].0).unwrap_err(),
        jit.warm_up().unwrap_err(),
    ] {
        assert_eq!(e.kind(), jitson::ErrorKind::BackendUnavailable, "{e}");
        // A build without the JIT says so first; one with it names the variable.
        let why = if cfg!(feature = "jit") {
            "JITSON_DISABLE_JIT"
        } else {
            "no JIT"
        };
        assert!(e.to_string().contains(why), "{e}");
    }
    let last = jitson::stats();
    assert_eq!(last.layouts_compiled, 0, "{last:#?}");
    assert_eq!(last.jit_decodes, 0, "{last:#?}");
}
