//! What a fresh process pays for its first jitson calls (issue 22, item 4).
//!
//! Run: `cargo run --release -p jitson-benches --example startup [-- [ROUNDS]
//! [--no-wait]]` (ROUNDS default 9). The driver starts itself `ROUNDS` times
//! per case, each child doing exactly one first call and printing its time,
//! and reports the median, minimum and maximum in milliseconds. Each case is a
//! new process, so every one-time set-up (the JIT module and its probes, the
//! library of field functions, the compile pool, the interpreter's caches) is
//! paid inside the measured call, as it is at a service's start-up:
//!
//! - `warm_up twitter`, `warm_up Order`: `jitson::warm_up::<T>()` as the
//!   process's first jitson call (the optimising tier, compiled on the caller);
//! - `first decode Order, Auto`: the first `from_slice::<Order>` (the default
//!   backend: served by the interpreter while the pool compiles);
//! - `first decode Order, interpreter`: the same on `Backend::Interpreter`, the
//!   figure the tiered first decode is held to (≤ 2×);
//! - `first encode Order, Auto` and `first encode Order, interpreter`: the
//!   first `to_vec` of an `Order` (decoded beforehand by the interpreter,
//!   outside the timing), on the default backend (the interpreter while the
//!   pool compiles the encoder) and on the interpreter (issue 19: ≤ 2×);
//!   `…, pool running`: `Auto` after an `Auto` decode has started the compile
//!   pool and its compile is done.
//!
//! Timed with `Instant` around the call alone: process start and the reading
//! of the document are outside.
//!
//! Each child sleeps 1 ms before its timed call, as a service's first call
//! follows a wait for its first request. Without it the call starts with the
//! time slice that process start-up has used, and on a loaded machine the
//! scheduler's next preemption tends to land inside the call: a call that
//! starts a compile thread wakes that thread, and `perf sched` shows the caller
//! switched out, still runnable, microseconds after the wake-up, and back
//! milliseconds later; a call that wakes nothing runs on until the next tick,
//! after it. (Most likely the enqueue lets the kernel see at once that the
//! caller's slice is spent.) `startup ROUNDS --no-wait` measures that case;
//! docs/benchmarks.md, Round 15, has the trace and both sets of figures.

use std::process::Command;
use std::time::Instant;

use jitson::{Backend, Decoder};
use jitson_benches::models::twitter::Twitter;
use jitson_benches::seed::Order;

/// The cases, by the name a child is given.
const CASES: [&str; 7] = [
    "warm_up twitter",
    "warm_up Order",
    "first decode Order, Auto",
    "first decode Order, interpreter",
    "first encode Order, Auto",
    "first encode Order, interpreter",
    "first encode Order, Auto, pool running",
];

/// Runs one case in this process, after a 1 ms sleep unless `no_wait`; returns
/// the first call's time in ms.
fn child(case: &str, no_wait: bool) -> f64 {
    let order = jitson_benches::one(7, Order::generate);
    // Encode cases decode their value first, outside the timing: on the
    // interpreter (nothing compiled, no pool started), or with `Auto` (the
    // pool started by the decode's own compile, as in a service that decodes
    // requests before it encodes responses).
    let value: Option<Order> = case.starts_with("first encode").then(|| {
        let backend = if case.ends_with("pool running") {
            Backend::Auto
        } else {
            Backend::Interpreter
        };
        let value = Decoder::<Order>::with_backend(backend)
            .decode_slice(&order)
            .expect("decodes");
        if backend == Backend::Auto {
            // Let the decoder's compile finish: the pool is then idle.
            jitson::warm_up::<Order>().expect("warm_up");
        }
        value
    });
    if !no_wait {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let start = Instant::now();
    match case {
        "warm_up twitter" => jitson::warm_up::<Twitter>().expect("warm_up"),
        "warm_up Order" => jitson::warm_up::<Order>().expect("warm_up"),
        "first decode Order, Auto" => {
            std::hint::black_box(jitson::from_slice::<Order>(&order).expect("decodes"));
        }
        "first decode Order, interpreter" => {
            let decoder = Decoder::<Order>::with_backend(Backend::Interpreter);
            std::hint::black_box(decoder.decode_slice(&order).expect("decodes"));
        }
        "first encode Order, Auto" | "first encode Order, Auto, pool running" => {
            let value = value.as_ref().expect("decoded above");
            std::hint::black_box(jitson::to_vec(value).expect("encodes"));
        }
        "first encode Order, interpreter" => {
            let value = value.as_ref().expect("decoded above");
            let encoder = jitson::Encoder::<Order>::with_backend(Backend::Interpreter);
            std::hint::black_box(encoder.encode(value).expect("encodes"));
        }
        other => panic!("unknown case {other:?}"),
    }
    start.elapsed().as_secs_f64() * 1e3
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let no_wait = args.iter().any(|a| a == "--no-wait");
    if args.get(1).map(String::as_str) == Some("--child") {
        println!("{}", child(&args[2], no_wait));
        return;
    }
    let rounds: usize = args[1..]
        .iter()
        .find(|a| !a.starts_with("--"))
        .map_or(9, |r| r.parse().expect("ROUNDS"));
    let me = std::env::current_exe().expect("current_exe");
    let wait = if no_wait { "none" } else { "1 ms" };
    println!(
        "fresh processes per case: {rounds}; sleep before the call: {wait}; times in ms (median, min-max)"
    );
    // Rounds interleave the cases, so a noisy moment hits all of them alike.
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); CASES.len()];
    for _ in 0..rounds {
        for (case, times) in CASES.iter().zip(&mut times) {
            let mut child = Command::new(&me);
            child.args(["--child", case]);
            if no_wait {
                child.arg("--no-wait");
            }
            let out = child.output().expect("spawn");
            assert!(out.status.success(), "{case}: {out:?}");
            let text = String::from_utf8_lossy(&out.stdout);
            times.push(text.trim().parse().expect("a time"));
        }
    }
    for (case, mut times) in CASES.iter().zip(times) {
        times.sort_by(f64::total_cmp);
        println!(
            "{case:<40} {:>8.3}  ({:.3}-{:.3})",
            times[times.len() / 2],
            times[0],
            times[times.len() - 1]
        );
    }
}
