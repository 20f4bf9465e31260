//! Panics in user code during a decode — a `default = "path"` function, a `Default`
//! impl, a map hasher's `Default`, a `Drop` run while cleaning up after an error —
//! never abort and never unwind through a backend: the decode cleans up, returns to
//! the facade, and the panic resumes in the caller, where `catch_unwind` sees the
//! original payload. Every backend, and nothing leaks (counted).

mod common;

use std::collections::HashMap;
use std::hash::{BuildHasher, DefaultHasher};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicIsize, Ordering};

use jitson::{Backend, Decode, Decoder};

static LIVE: AtomicIsize = AtomicIsize::new(0);

/// Counts live values; its `Drop` panics when the value is "boom".
#[derive(Debug, PartialEq)]
struct Tracked(String);

impl Drop for Tracked {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::SeqCst);
        if self.0 == "boom" && !std::thread::panicking() {
            panic!("drop of boom");
        }
    }
}

/// # Safety
/// `dst` is valid for a `Tracked` write; the bytes are UTF-8.
unsafe extern "C" fn write_tracked(dst: *mut u8, ptr: *const u8, len: usize) {
    LIVE.fetch_add(1, Ordering::SeqCst);
    // SAFETY: as the caller guarantees.
    unsafe {
        let s = std::str::from_utf8_unchecked(std::slice::from_raw_parts(ptr, len));
        dst.cast::<Tracked>().write(Tracked(s.to_owned()));
    }
}

// SAFETY: `write_tracked` writes a whole Tracked; size, alignment, drop from the type.
unsafe impl jitson::HasLayout for Tracked {
    type Static = Self;
    const LAYOUT: &'static jitson::__private::TypeLayout =
        &jitson::__private::TypeLayout::of::<Tracked>(
            "a string",
            jitson::__private::Kind::String(&jitson::__private::StringLayout {
                write: write_tracked,
                read: None,
            }),
        );
}

// SAFETY: Tracked owns its data.
unsafe impl<'de> jitson::DecodeBorrowed<'de> for Tracked {}

fn panicking_default() -> u32 {
    panic!("default fn")
}

#[derive(Decode, Debug, PartialEq)]
struct WithDefault {
    a: Tracked,
    #[jitson(default = "panicking_default")]
    b: u32,
}

#[derive(Debug, PartialEq)]
struct PanicOnDefault(u8);

impl Default for PanicOnDefault {
    fn default() -> Self {
        panic!("Default impl")
    }
}

#[derive(Decode, Debug, PartialEq)]
struct WithSkipped {
    a: Tracked,
    #[jitson(skip)]
    b: PanicOnDefault,
}

#[derive(Clone)]
struct PanickyHasher;

impl Default for PanickyHasher {
    fn default() -> Self {
        panic!("hasher default")
    }
}

impl BuildHasher for PanickyHasher {
    type Hasher = DefaultHasher;
    fn build_hasher(&self) -> DefaultHasher {
        DefaultHasher::new()
    }
}

#[derive(Decode, Debug, PartialEq)]
struct Cleanup {
    first: Tracked,
    items: Vec<Tracked>,
    last: u8,
}

/// Decodes with `backend`, expecting a panic whose message contains `message`.
fn expect_panic<T: Decode + std::fmt::Debug>(backend: Backend, json: &str, message: &str) {
    let before = LIVE.load(Ordering::SeqCst);
    let result = catch_unwind(AssertUnwindSafe(|| {
        Decoder::<T>::with_backend(backend).decode_str(json)
    }));
    let payload = result.expect_err("the panic reaches the caller");
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(
        text.contains(message),
        "{}: payload {text:?}",
        backend.name()
    );
    assert_eq!(
        LIVE.load(Ordering::SeqCst),
        before,
        "{}: leak or double drop",
        backend.name()
    );
}

#[test]
fn panics_resume_in_the_caller() {
    for backend in common::backends() {
        expect_panic::<WithDefault>(backend, r#"{"a": "x"}"#, "default fn");
        expect_panic::<WithSkipped>(backend, r#"{"a": "x"}"#, "Default impl");
        expect_panic::<HashMap<String, u8, PanickyHasher>>(
            backend,
            r#"{"a": 1}"#,
            "hasher default",
        );
        // A Drop that panics while the decode cleans up after an error.
        expect_panic::<Cleanup>(
            backend,
            r#"{"first": "boom", "items": ["a", "b"], "last": "x"}"#,
            "drop of boom",
        );
        expect_panic::<Cleanup>(
            backend,
            r#"{"first": "a", "items": ["b", "boom", 7], "last": 1}"#,
            "drop of boom",
        );
        // And the same types decode normally afterwards.
        let ok = Decoder::<WithDefault>::with_backend(backend)
            .decode_str(r#"{"a": "y", "b": 2}"#)
            .unwrap();
        assert_eq!(ok.b, 2);
    }
}

/// A value whose `Drop` panics when `x == 1` (unless already unwinding), and whose
/// `Drop` for `x == 2` runs a decode of its own first.
#[derive(Decode, Debug, PartialEq)]
struct P {
    x: u8,
}

impl Drop for P {
    fn drop(&mut self) {
        if self.x == 2 {
            // A decode inside a Drop inside a decode: it must neither see nor clear
            // the enclosing decode's pending panic.
            assert_eq!(jitson::from_str::<u8>("7").unwrap(), 7);
        }
        if self.x == 1 && !std::thread::panicking() {
            panic!("drop of P 1");
        }
    }
}

/// The message of a panic payload.
fn message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// Nothing is pending after a decode that returned or unwound: an unrelated decode
/// on the same thread behaves normally.
fn assert_nothing_pending(backend: Backend) {
    let decoder = Decoder::<u8>::with_backend(backend);
    assert_eq!(decoder.decode_str("1").unwrap(), 1);
    let e = decoder.decode_str("300").unwrap_err();
    assert_eq!(e.kind(), jitson::ErrorKind::NumberOutOfRange);
}

#[test]
fn a_panicking_drop_of_a_decoded_value_resumes_once_and_leaves_nothing() {
    // A `BTreeMap`: when an element's `Drop` panics, std's `HashMap` stops
    // dropping and leaks its table (valgrind shows it), `BTreeMap` goes on.
    type Map = std::collections::BTreeMap<String, P>;
    let docs = [
        // Trailing characters: the decoded map is dropped before the error.
        r#"{"a":{"x":1},"b\u0041":{"x":2}} x"#,
        r#"{"a":{"x":1}} x"#,
        // An error after the value that panics on drop, inside the map.
        r#"{"a":{"x":1},"b\u0041":{"x":2},"c":{"x":"no"}}"#,
        r#"{"b\u0041":{"x":2},"a":{"x":1},"c":{"x":9}"#,
    ];
    for backend in common::backends() {
        for doc in docs {
            let result = catch_unwind(AssertUnwindSafe(|| {
                Decoder::<Map>::with_backend(backend).decode_str(doc)
            }));
            let payload = result.expect_err("the Drop's panic reaches the caller");
            assert_eq!(
                message(&*payload),
                "drop of P 1",
                "{}: {doc}",
                backend.name()
            );
            assert_nothing_pending(backend);
        }
        // The same document without the error decodes; its value's drop panics in
        // the caller's hands, not in a later decode.
        let map = Decoder::<Map>::with_backend(backend)
            .decode_str(r#"{"a":{"x":1},"b\u0041":{"x":2}}"#)
            .unwrap();
        assert_eq!(map.len(), 2);
        let dropped = catch_unwind(AssertUnwindSafe(|| drop(map)));
        assert_eq!(message(&*dropped.unwrap_err()), "drop of P 1");
        assert_nothing_pending(backend);
    }
}

#[derive(Decode, Debug, PartialEq)]
struct Small {
    n: u32,
    #[jitson(default)]
    s: String,
    d: Option<OnlyDefault>,
}

#[derive(Decode, Debug, PartialEq)]
struct OnlyDefault {
    #[jitson(default = "panicking_default")]
    b: u32,
}

#[test]
fn decoding_in_a_thread_local_destructor_works() {
    use std::sync::Mutex;
    static RESULTS: Mutex<Vec<String>> = Mutex::new(Vec::new());

    struct DecodeOnExit;
    impl Drop for DecodeOnExit {
        fn drop(&mut self) {
            let mut results = Vec::new();
            for backend in common::backends() {
                let decoder = Decoder::<Small>::with_backend(backend);
                // The plain path, the string slow path (an escape), and an error.
                for doc in [r#"{"n":1}"#, r#"{"n":2,"s":"a\u0041"}"#, r#"{"n":"x"}"#] {
                    let outcome = match decoder.decode_str(doc) {
                        Ok(v) => format!("{} {}", v.n, v.s),
                        Err(e) => format!("error {}", e.path()),
                    };
                    results.push(format!("{}: {outcome}", backend.name()));
                }
            }
            RESULTS.lock().unwrap().extend(results);
        }
    }
    thread_local! {
        static ON_EXIT: DecodeOnExit = const { DecodeOnExit };
    }

    std::thread::spawn(|| {
        // Registered first, so destroyed after the thread-locals jitson registers
        // below (destructors run in reverse order of registration).
        ON_EXIT.with(|_| {});
        for backend in common::backends() {
            let v = Decoder::<Small>::with_backend(backend)
                .decode_str(r#"{"n":0,"s":"\u0041"}"#)
                .unwrap();
            assert_eq!(v.s, "A");
            // A caught panic: the panic slot is in use on this thread too.
            let caught = catch_unwind(|| {
                Decoder::<Small>::with_backend(backend).decode_str(r#"{"n":0,"d":{}}"#)
            });
            assert_eq!(message(&*caught.unwrap_err()), "default fn");
        }
    })
    .join()
    .expect("the thread exits normally");

    let results = RESULTS.lock().unwrap();
    let expected: Vec<String> = common::backends()
        .iter()
        .flat_map(|b| ["1 ", "2 aA", "error $.n"].map(|outcome| format!("{}: {outcome}", b.name())))
        .collect();
    assert_eq!(*results, expected);
}
