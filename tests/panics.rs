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
unsafe impl Decode for Tracked {
    const LAYOUT: &'static jitson::__private::TypeLayout =
        &jitson::__private::TypeLayout::of::<Tracked>(
            "a string",
            jitson::__private::Kind::String(&jitson::__private::StringLayout {
                write: write_tracked,
            }),
        );
}

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
