//! The JIT's compile cache under concurrency, and `warm_up`.
//!
//! What this proves, with `jitson::stats()` as the witness:
//!
//! - **Exactly one compile per type under a race.** 200 distinct, never-seen types
//!   (`Probe<0>` .. `Probe<199>`) are each decoded for the first time by 16 threads
//!   released together by a barrier. Every thread gets the right value, and
//!   `layouts_compiled` grows by exactly 200: the racing first decodes of a type
//!   share one compile instead of compiling it 16 times (or losing a result).
//!   These decodes use `Tiering::Wait` (compile on first use and wait); the
//!   default background tiering is tested in tests/tiering.rs.
//!   Every one of those decodes ran on JIT code, none fell back, none failed to
//!   compile.
//! - **`warm_up` does all the compiling.** After `warm_up::<T>()` on a fresh type,
//!   100 decodes of `T` (from several threads) compile nothing more.
//!
//! - **Decodes are counted by what ran them.** A root type the JIT hands to the
//!   interpreter whole counts as an interpreter decode even through the JIT
//!   backend; a compiled root with such a field, as a JIT decode.
//!
//! The counters are process-wide, so both checks live in the one `#[test]` of this
//! binary (the harness would run two tests at once, in separate threads) and run
//! one after the other. Skipped, with a notice, where the JIT cannot run.

use std::sync::Barrier;

use jitson::{Backend, Decode, Tiering};

/// Threads racing to decode each new type first.
const THREADS: usize = 16;

#[derive(Decode, Debug, PartialEq)]
struct Inner {
    score: f64,
    active: bool,
}

/// One distinct type (and so one cache entry, one compile) per `N`.
#[derive(Decode, Debug, PartialEq)]
struct Probe<const N: usize> {
    id: i64,
    name: String,
    tags: Vec<String>,
    inner: Option<Inner>,
}

/// The document for `Probe<N>`: every field present, all on the JIT's fast path.
fn document(n: usize) -> String {
    format!(
        r#"{{"id": {n}, "name": "probe {n}", "tags": ["a", "b{n}", ""], "inner": {{"score": 1.5, "active": true}}}}"#
    )
}

fn expected<const N: usize>() -> Probe<N> {
    Probe {
        id: N as i64,
        name: format!("probe {N}"),
        tags: vec!["a".into(), format!("b{N}"), String::new()],
        inner: Some(Inner {
            score: 1.5,
            active: true,
        }),
    }
}

/// Releases `THREADS` threads at once on the first ever decode of `Probe<N>`.
fn race_first_decode<const N: usize>() {
    let doc = document(N);
    let want = expected::<N>();
    let barrier = Barrier::new(THREADS);
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                barrier.wait();
                let got: Probe<N> = jitson::Decoder::new()
                    .tiering(Tiering::Wait)
                    .decode_slice(doc.as_bytes())
                    .unwrap_or_else(|e| panic!("Probe<{N}>: {e}"));
                assert_eq!(got, want, "Probe<{N}>");
            });
        }
    });
}

/// Calls `$f::<{ 10 * tens + units }>()` for every listed tens and every units digit.
macro_rules! for_each_probe {
    ($f:ident; $($tens:literal)*) => {
        $( for_each_probe!(@units $f; $tens; 0 1 2 3 4 5 6 7 8 9); )*
    };
    (@units $f:ident; $tens:literal; $($units:literal)*) => {
        $( $f::<{ 10 * $tens + $units }>(); )*
    };
}

#[test]
fn each_type_compiles_once_and_warm_up_compiles_everything() {
    if !Backend::Jit.is_available() {
        eprintln!("NOTICE: the JIT is not available in this process; skipping the JIT cache test");
        return;
    }

    // 1. 200 new types, 16 racing first decodes each.
    let before = jitson::stats();
    for_each_probe!(race_first_decode; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19);
    let after = jitson::stats();
    assert_eq!(
        after.layouts_compiled - before.layouts_compiled,
        200,
        "each of the 200 types must be compiled exactly once: {after:#?}"
    );
    assert!(
        after.compile_failures.is_empty(),
        "{:?}",
        after.compile_failures
    );
    assert_eq!(
        after.jit_decodes - before.jit_decodes,
        200 * THREADS as u64,
        "every decode runs on compiled code: {after:#?}"
    );
    assert_eq!(
        after.interpreter_decodes, before.interpreter_decodes,
        "{after:#?}"
    );
    assert_eq!(after.auto_fallback_count(), 0, "{:?}", after.auto_fallbacks);

    // 2. warm_up on a fresh type compiles it; decoding it afterwards compiles nothing.
    type Warm = Probe<1000>;
    let before = jitson::stats();
    jitson::warm_up::<Warm>().expect("warm_up with Backend::Auto");
    let warmed = jitson::stats();
    assert_eq!(
        warmed.layouts_compiled,
        before.layouts_compiled + 1,
        "warm_up compiles the type: {warmed:#?}"
    );
    assert!(
        warmed.layouts_prepared > before.layouts_prepared,
        "warm_up prepares Probe and what it reaches: {warmed:#?}"
    );
    assert_eq!(
        warmed.jit_decodes, before.jit_decodes,
        "warm_up decodes nothing"
    );

    let doc = document(1000);
    let want = expected::<1000>();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..25 {
                    let got: Warm = jitson::from_slice(doc.as_bytes()).expect("decode");
                    assert_eq!(got, want);
                }
            });
        }
    });
    let done = jitson::stats();
    assert_eq!(
        done.layouts_compiled, warmed.layouts_compiled,
        "decoding a warmed-up type compiles nothing: {done:#?}"
    );
    assert_eq!(done.jit_decodes - warmed.jit_decodes, 100, "{done:#?}");
    assert!(
        done.compile_failures.is_empty(),
        "{:?}",
        done.compile_failures
    );
    assert_eq!(done.auto_fallback_count(), 0, "{:?}", done.auto_fallbacks);

    // 3. A root type the JIT hands to the interpreter whole (an enum mixing
    // tagged and untagged variants) counts as interpreter decodes; a struct holding one, whose
    // own code is compiled, as JIT decodes.
    let before = jitson::stats();
    let shape = jitson::Decoder::<Shape>::with_backend(Backend::Jit)
        .decode_slice(br#"{"type": "circle", "r": 1.5}"#)
        .expect("decode");
    assert_eq!(shape, Shape::Circle { r: 1.5 });
    let holder = jitson::Decoder::<Holder>::with_backend(Backend::Jit)
        .decode_slice(br#"{"id": 7, "shape": {"type": "square", "side": 2.0}}"#)
        .expect("decode");
    assert_eq!(holder.shape, Shape::Square { side: 2.0 });
    let after = jitson::stats();
    assert!(
        after
            .interpreted_layouts
            .iter()
            .any(|(ty, _)| ty == "jit_cache::Shape"),
        "{:?}",
        after.interpreted_layouts
    );
    assert_eq!(
        after.interpreter_decodes - before.interpreter_decodes,
        1,
        "{after:#?}"
    );
    assert_eq!(after.jit_decodes - before.jit_decodes, 1, "{after:#?}");
}

/// Tagged variants and an untagged one mixed: an enum the JIT hands to the
/// interpreter whole.
#[derive(Decode, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Shape {
    Circle {
        r: f64,
    },
    Square {
        side: f64,
    },
    #[serde(untagged)]
    Other(String),
}

#[derive(Decode, Debug, PartialEq)]
struct Holder {
    id: u32,
    shape: Shape,
}
