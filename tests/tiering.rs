//! Tiered execution (`Tiering::Background`, the default for `Backend::Auto`).
//!
//! What this proves, with `jitson::stats()` as the witness:
//!
//! - **No decode waits for a compile.** The first decode of a never-seen type runs
//!   on the interpreter and queues the type's compile; `caller_compile_wait` does
//!   not grow however many fresh types are decoded.
//! - **The switch is atomic and invisible.** Many threads decode fresh types in a
//!   loop from before their compile starts until well after it ends, so decodes
//!   land on both sides of the switch (and during it); every result equals the
//!   expected value (and the interpreter's, for a malformed document), and each
//!   type switches exactly once.
//! - **Bounded.** One compile per type, at most two worker threads.
//! - **Exit.** A process that exits while a background compile runs exits
//!   normally, at once.
//!
//! The counters are process-wide, so the in-process checks are one `#[test]`.

use std::sync::Barrier;
use std::time::{Duration, Instant};

#[path = "../examples/models/twitter.rs"]
#[allow(dead_code)]
mod twitter;

use jitson::{Backend, Decode, Decoder, Tiering};

/// Threads decoding each new type at once.
const THREADS: usize = 8;

#[derive(Decode, Debug, PartialEq)]
struct Inner {
    score: f64,
    active: bool,
}

/// One distinct type (one cache entry, one compile) per `N`.
#[derive(Decode, Debug, PartialEq)]
struct Fresh<const N: usize> {
    id: i64,
    name: String,
    tags: Vec<String>,
    inner: Option<Inner>,
}

fn document(n: usize) -> String {
    format!(
        r#"{{"id": {n}, "name": "fresh {n}", "tags": ["a", "b{n}"], "inner": {{"score": 0.5, "active": false}}}}"#
    )
}

/// Decodes `Fresh<N>` on `THREADS` threads released together, each looping until
/// the type has switched to compiled code and run there a while (or a minute
/// passes), checking every result, valid and malformed. Returns the number of
/// decodes.
fn decode_across_the_switch<const N: usize>() -> usize {
    let switches_before = jitson::stats().tier_switches;
    let doc = document(N);
    let bad = doc.replace("\"fresh", "fresh");
    let want = Fresh::<N> {
        id: N as i64,
        name: format!("fresh {N}"),
        tags: vec!["a".into(), format!("b{N}")],
        inner: Some(Inner {
            score: 0.5,
            active: false,
        }),
    };
    let bad_err = Decoder::<Fresh<N>>::with_backend(Backend::Interpreter)
        .decode_str(&bad)
        .unwrap_err();
    let barrier = Barrier::new(THREADS);
    let deadline = Instant::now() + Duration::from_secs(60);
    let total = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                let decoder = Decoder::<Fresh<N>>::new().tiering(Tiering::Background);
                barrier.wait();
                let mut after_switch = 0;
                let mut n = 0;
                while after_switch < 50 && Instant::now() < deadline {
                    assert_eq!(decoder.decode_str(&doc).unwrap(), want, "Fresh<{N}>");
                    let e = decoder.decode_str(&bad).unwrap_err();
                    assert_eq!(
                        (e.kind(), e.offset(), e.path()),
                        (bad_err.kind(), bad_err.offset(), bad_err.path())
                    );
                    n += 2;
                    if jitson::stats().tier_switches > switches_before {
                        after_switch += 1;
                    }
                }
                total.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            });
        }
    });
    total.into_inner()
}

#[test]
fn background_tiering_never_waits_and_switches_once() {
    if std::env::var_os("JITSON_TIERING_EXIT_CHILD").is_some() {
        return exit_child();
    }
    if !Backend::Jit.is_available() {
        eprintln!("NOTICE: the JIT is not available in this process; skipping");
        return;
    }

    // 1. The first decode of a big, never-seen model is the interpreter's, and
    //    queues the compile instead of waiting for it.
    let doc = twitter_doc();
    let before = jitson::stats();
    let started = Instant::now();
    let auto = Decoder::<twitter::Twitter>::new().tiering(Tiering::Background);
    let first = auto.decode_str(&doc).unwrap();
    let first_call = started.elapsed();
    let after = jitson::stats();
    assert_eq!(
        after.tiered_decodes - before.tiered_decodes,
        1,
        "{after:#?}"
    );
    assert_eq!(after.jit_decodes, before.jit_decodes, "{after:#?}");
    assert_eq!(after.caller_compile_wait, before.caller_compile_wait);
    eprintln!("first call of the twitter model: {first_call:?}");
    // It switches once the worker is done; the values never change.
    let deadline = Instant::now() + Duration::from_secs(120);
    while jitson::stats().tier_switches == before.tier_switches {
        assert!(Instant::now() < deadline, "the compile never finished");
        let again = auto.decode_str(&doc).unwrap();
        assert!(again == first);
        std::thread::sleep(Duration::from_millis(1));
    }
    let jit_before = jitson::stats().jit_decodes;
    let again = auto.decode_str(&doc).unwrap();
    assert!(again == first);
    assert_eq!(
        jitson::stats().jit_decodes,
        jit_before + 1,
        "after the switch"
    );

    // 2. Fresh types decoded by many threads across their switch.
    let before = jitson::stats();
    let decodes = decode_across_the_switch::<0>()
        + decode_across_the_switch::<1>()
        + decode_across_the_switch::<2>()
        + decode_across_the_switch::<3>();
    let after = jitson::stats();
    eprintln!("{decodes} decodes across 4 switches: {after:#?}");
    assert_eq!(after.compile_failures.len(), before.compile_failures.len());
    assert!(after.tiered_decodes > before.tiered_decodes);
    assert!(after.jit_decodes > before.jit_decodes);
    assert_eq!(
        after.caller_compile_wait, before.caller_compile_wait,
        "a tiered decode waited for a compile"
    );
    // Each type compiled once, by the pool.
    assert_eq!(after.layouts_compiled - before.layouts_compiled, 4);
    assert_eq!(after.tier_switches - before.tier_switches, 4);
    assert!(
        after.compile_workers >= 1 && after.compile_workers <= 2,
        "{after:#?}"
    );
    assert_eq!(after.compile_queue, 0);
    assert_eq!(after.auto_fallback_count(), before.auto_fallback_count());
}

fn twitter_doc() -> String {
    // A small document of the twitter model's shape (the model is what is
    // expensive to compile, not the document).
    r#"{"statuses": [], "search_metadata": {"completed_in": 0.1, "max_id": 1, "max_id_str": "1", "next_results": "?", "query": "q", "refresh_url": "?", "count": 0, "since_id": 0, "since_id_str": "0"}}"#.to_owned()
}

/// In a child process: start a large compile in the background and return at
/// once, so the process exits while it runs.
fn exit_child() {
    let auto = Decoder::<twitter::Twitter>::new().tiering(Tiering::Background);
    auto.decode_str(&twitter_doc()).unwrap();
    assert_eq!(jitson::stats().tiered_decodes, 1);
}

#[test]
fn a_process_exits_while_a_background_compile_runs() {
    if std::env::var_os("JITSON_TIERING_EXIT_CHILD").is_some() || !Backend::Jit.is_available() {
        return;
    }
    let started = Instant::now();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "background_tiering_never_waits_and_switches_once",
            "--test-threads=1",
        ])
        .env("JITSON_TIERING_EXIT_CHILD", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the child hung at exit");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(status.success(), "{status:?}");
}
