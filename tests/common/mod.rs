//! The harness every behavioural test uses: one list of backends, and decode
//! helpers that run a document through each backend and both entry points
//! (`decode_slice`, `decode_str`) and insist they all agree.
#![allow(dead_code)]

pub mod counted;
pub mod oracle;
pub mod pad;
pub mod string_kind;

use std::fmt::Debug;
use std::path::PathBuf;

use jitson::{Backend, Decode, Decoder, Encode, Encoder, Error, Tiering};

/// Every backend the behavioural tests run against: the interpreter, the JIT
/// wherever this build and process can run it, and `Auto`. Tests must not
/// special-case a backend.
pub fn backends() -> Vec<Backend> {
    let mut list = vec![Backend::Interpreter];
    if Backend::Jit.is_available() {
        list.push(Backend::Jit);
    } else {
        static NOTICE: std::sync::Once = std::sync::Once::new();
        NOTICE.call_once(|| {
            eprintln!(
                "NOTICE: the JIT is not available in this build; testing the interpreter only"
            )
        });
    }
    list.push(Backend::Auto);
    list
}

/// Runs `test` on a thread with a 64 MB stack and resumes its panic, if any, on
/// the caller's. For tests whose serde_json oracle moves values of tens of KB by
/// value several frames deep: the test profile builds the test files at
/// opt-level 0 (Cargo.toml), where those frames overflow a test thread's 2 MB.
/// jitson's own stack use is tested on small stacks, by the tests that set them.
pub fn on_a_large_stack(test: fn()) {
    let thread = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(test)
        .expect("spawn the test's thread");
    if let Err(panic) = thread.join() {
        std::panic::resume_unwind(panic);
    }
}

/// Asserts that none of the types whose names end in `::<name>` is handed to
/// the interpreter whole by the JIT (`stats().interpreted_layouts`), after the
/// caller's `warm_up`s.
#[track_caller]
pub fn assert_compiled(names: &[&str]) {
    let interpreted = jitson::stats().interpreted_layouts;
    for name in names {
        assert!(
            !interpreted
                .iter()
                .any(|(ty, _)| ty.ends_with(&format!("::{name}"))),
            "{name} was interpreted: {interpreted:?}"
        );
    }
}

/// What an error looked like, for comparing backends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorShape {
    pub kind: jitson::ErrorKind,
    pub offset: usize,
    pub line: usize,
    pub column: usize,
    pub path: String,
}

pub fn shape(e: &Error) -> ErrorShape {
    ErrorShape {
        kind: e.kind(),
        offset: e.offset(),
        line: e.line(),
        column: e.column(),
        path: e.path(),
    }
}

/// Decodes `json` with every backend, through `decode_slice` and (when the input
/// is UTF-8) `decode_str`; asserts all results agree and returns the first.
pub fn decode<T: Decode + PartialEq + Debug>(json: &[u8]) -> Result<T, Error> {
    decode_with(json, |d| d)
}

/// As [`decode`], with a way to configure each decoder (`max_depth`).
pub fn decode_with<T: Decode + PartialEq + Debug>(
    json: &[u8],
    configure: impl Fn(Decoder<T>) -> Decoder<T>,
) -> Result<T, Error> {
    let mut first: Option<(String, Result<T, Error>)> = None;
    for backend in backends() {
        let decoder = configure(Decoder::<T>::with_backend(backend));
        let mut runs = vec![(
            format!("{}/slice", backend.name()),
            decoder.decode_slice(json),
        )];
        if let Ok(text) = std::str::from_utf8(json) {
            runs.push((format!("{}/str", backend.name()), decoder.decode_str(text)));
        }
        for (name, result) in runs {
            match &first {
                None => first = Some((name, result)),
                Some((first_name, expected)) => match (expected, &result) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a, b, "{first_name} and {name} decoded different values")
                    }
                    (Err(a), Err(b)) => assert_eq!(
                        shape(a),
                        shape(b),
                        "{first_name} and {name} failed differently"
                    ),
                    (a, b) => panic!("{first_name} gave {a:?} but {name} gave {b:?}"),
                },
            }
        }
    }
    first.expect("at least one backend").1
}

/// Decodes and unwraps, with the input in the panic message.
#[track_caller]
pub fn ok<T: Decode + PartialEq + Debug>(json: &str) -> T {
    match decode::<T>(json.as_bytes()) {
        Ok(v) => v,
        Err(e) => panic!("decoding {json:?} failed: {e}"),
    }
}

/// Decodes, expects failure, returns the error.
#[track_caller]
pub fn err<T: Decode + PartialEq + Debug>(json: &[u8]) -> Error {
    match decode::<T>(json) {
        Ok(v) => panic!(
            "decoding {:?} should fail but gave {v:?}",
            String::from_utf8_lossy(json)
        ),
        Err(e) => e,
    }
}

/// The shared corpus directory (`$JITSON_CORPUS`, else `../shared/corpus` beside
/// the checkout), or `None` with a printed notice when it is absent.
pub fn corpus_dir(sub: &str) -> Option<PathBuf> {
    let root = std::env::var_os("JITSON_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    let dir = root.join(sub);
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "NOTICE: corpus directory {} not found; skipping this test",
            dir.display()
        );
        None
    }
}

/// Asserts jitson's compact and pretty text for `value` is serde_json's, on
/// every backend.
#[track_caller]
pub fn encodes_as_serde_json<T: Encode + serde::Serialize + Debug>(value: &T) {
    let compact = serde_json::to_string(value).unwrap();
    let pretty = serde_json::to_string_pretty(value).unwrap();
    for backend in backends() {
        let encoder = Encoder::<T>::with_backend(backend);
        let got = String::from_utf8(encoder.encode(value).unwrap()).unwrap();
        assert_eq!(got, compact, "{backend:?}: {value:?}");
        let got = String::from_utf8(encoder.pretty(true).encode(value).unwrap()).unwrap();
        assert_eq!(got, pretty, "{backend:?} pretty: {value:?}");
    }
}

/// A backend and how it tiers: the configurations the hostile tests run
/// every case on.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub backend: Backend,
    pub tiering: Tiering,
}

/// Every backend of [`backends`] waiting for its optimising tier, and those
/// that compile also with tiering in the background.
pub fn configs() -> Vec<Config> {
    let mut list = Vec::new();
    for backend in backends() {
        list.push(Config {
            backend,
            tiering: Tiering::Wait,
        });
        if backend != Backend::Interpreter {
            list.push(Config {
                backend,
                tiering: Tiering::Background,
            });
        }
    }
    list
}

/// A decoder of `T` in configuration `c`.
pub fn decoder<T>(c: Config) -> Decoder<T> {
    Decoder::<T>::with_backend(c.backend).tiering(c.tiering)
}
