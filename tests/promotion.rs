//! The optimising tier: a type whose baseline code (table-driven structs) has
//! decoded 32 MiB is compiled again with unrolled struct functions on a
//! background worker, and decodes switch to that code atomically.
//!
//! What this proves, with `jitson::stats()` as the witness: the promotion
//! happens once per type however many threads report the type hot; decodes on
//! many threads that land before, during and after the switch all give the
//! expected value (and the interpreter's error for a malformed document); no
//! decode waits for the optimising compile. `Tiering::Wait` compiles the
//! optimising tier at once, on the caller. With `JITSON_STRUCTS` set (one
//! lowering forced) nothing is promoted.
//!
//! The counters are process-wide, so the checks are one `#[test]`.

use std::time::{Duration, Instant};

use jitson::{Backend, Decode, Decoder, Tiering};

/// Threads decoding the hot type at once.
const THREADS: usize = 4;

#[derive(Decode, Debug, PartialEq, Clone)]
struct Point {
    x: f64,
    y: f64,
    label: String,
}

#[derive(Decode, Debug, PartialEq)]
struct Hot {
    id: u64,
    points: Vec<Point>,
    note: Option<String>,
}

/// A type nothing else decodes, for the `Tiering::Wait` check.
#[derive(Decode, Debug, PartialEq)]
struct Waited {
    id: u64,
    points: Vec<Point>,
}

/// A `Hot` document of about 200 KiB, keys in declaration order.
fn document() -> (String, Hot) {
    let points: Vec<Point> = (0..4000)
        .map(|i| Point {
            x: f64::from(i) * 0.5,
            y: -f64::from(i),
            label: format!("p{i}"),
        })
        .collect();
    let body: Vec<String> = points
        .iter()
        .map(|p| format!(r#"{{"x":{:?},"y":{:?},"label":"{}"}}"#, p.x, p.y, p.label))
        .collect();
    let doc = format!(r#"{{"id":7,"points":[{}],"note":"hot"}}"#, body.join(","));
    let want = Hot {
        id: 7,
        points,
        note: Some("hot".into()),
    };
    (doc, want)
}

#[test]
fn a_hot_type_is_promoted_once_while_many_threads_decode_it() {
    if !Backend::Jit.is_available() {
        eprintln!("NOTICE: the JIT is not available in this process; skipping");
        return;
    }
    let forced = std::env::var_os("JITSON_STRUCTS").is_some();
    let (doc, want) = document();
    // A type error deep inside the last point: found after most of the document.
    let bad = doc.replacen(r#""label":"p3999""#, r#""label":3999"#, 1);
    let bad_err = Decoder::<Hot>::with_backend(Backend::Interpreter)
        .decode_str(&bad)
        .unwrap_err();
    let before = jitson::stats();
    // Enough decodes to cross 32 MiB several times over, or until a while
    // after the promotion.
    let deadline = Instant::now() + Duration::from_secs(300);
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (doc, bad, want, bad_err) = (&doc, &bad, &want, &bad_err);
            s.spawn(move || {
                // Half the threads tier (`Auto`), half ask for compiled code
                // (`Jit`, which takes the baseline and is promoted the same way).
                let backend = if t % 2 == 0 {
                    Backend::Auto
                } else {
                    Backend::Jit
                };
                let decoder = Decoder::<Hot>::with_backend(backend).tiering(Tiering::Background);
                let mut after = 0;
                let mut n = 0;
                while after < 20 && n < 2000 && Instant::now() < deadline {
                    assert!(decoder.decode_str(doc).unwrap() == *want, "decode {n}");
                    if n % 16 == 0 {
                        let e = decoder.decode_str(bad).unwrap_err();
                        assert_eq!(
                            (e.kind(), e.offset(), e.path()),
                            (bad_err.kind(), bad_err.offset(), bad_err.path())
                        );
                    }
                    n += 1;
                    if jitson::stats().promotions > before.promotions {
                        after += 1;
                    }
                }
            });
        }
    });
    let after = jitson::stats();
    eprintln!("{after:#?}");
    assert_eq!(after.compile_failures.len(), before.compile_failures.len());
    if forced {
        assert_eq!(after.promotions, before.promotions, "{after:#?}");
        assert_eq!(after.layouts_compiled - before.layouts_compiled, 1);
    } else {
        assert_eq!(after.promotions - before.promotions, 1, "{after:#?}");
        // The baseline, then the optimising tier.
        assert_eq!(after.layouts_compiled - before.layouts_compiled, 2);
    }
    assert_eq!(after.compile_queue, 0);

    // `Tiering::Wait` compiles the final code on its first decode.
    let wait = Decoder::<Waited>::new().tiering(Tiering::Wait);
    let before = jitson::stats();
    let waited = wait.decode_str(&doc).unwrap();
    assert!(waited.points == want.points);
    let after = jitson::stats();
    assert_eq!(after.layouts_compiled - before.layouts_compiled, 1);
    assert!(after.caller_compile_wait > before.caller_compile_wait);
    assert_eq!(after.promotions, before.promotions);
}
