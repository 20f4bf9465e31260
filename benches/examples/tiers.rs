//! The JIT's two tiers side by side: for each model, the compile time and the
//! decode throughput of the baseline tier (`StructLowering::Table`: a table per
//! struct, walked by one Rust function), of the same lowering compiled with
//! Cranelift's single-pass register allocator (tried for the baseline, not
//! kept: `jitson_jit::RegisterAllocator`), and of the optimising tier
//! (`StructLowering::Unrolled`: per-field IR), all compiled directly with
//! `jitson_jit::compile` (outside the facade's cache), and of the interpreter,
//! timed interleaved in one process, medians of `ROUNDS` rounds.
//!
//! Run: `cargo run --release -p jitson-benches --example tiers` (`--quick`: 3
//! rounds). Data: the seed types generated here; twitter, citm_catalog and
//! canada from the corpus when present.

use std::time::Instant;

use jitson::{Decode, HasLayout};
use jitson_benches::models::{canada::Canada, citm::CitmCatalog, twitter::Twitter};
use jitson_benches::seed::{Account, Order, User};
use jitson_jit::{CompileOptions, Compiled, JitState, RegisterAllocator, StructLowering, compile};

/// Runs `compiled` (compiled for `T`) on `doc`; panics unless it decodes.
fn decode<T: Decode>(compiled: &Compiled, doc: &[u8]) {
    let mut out = std::mem::MaybeUninit::<T>::uninit();
    let mut state = JitState::new(doc, 128, true);
    // SAFETY: `compiled` was compiled for `T`'s layout and `out` is room for a
    // `T`; `state` borrows `doc` for the call.
    let ok = unsafe { compiled.call(&mut state, out.as_mut_ptr().cast()) };
    assert!(ok, "decodes");
    // SAFETY: the call returned true: `out` holds a `T`.
    unsafe { out.assume_init_drop() };
}

/// One contender: decodes a document (and drops the value).
type Contender<'a> = Box<dyn Fn(&[u8]) + 'a>;

/// The median of `v`.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The tiers compared: jitson's baseline (table-lowered structs), the same
/// lowering with the single-pass register allocator (what that allocator
/// saves and costs), and the optimising tier.
const TIERS: [(StructLowering, RegisterAllocator); 3] = [
    (StructLowering::Table, RegisterAllocator::Backtracking),
    (StructLowering::Table, RegisterAllocator::SinglePass),
    (StructLowering::Unrolled, RegisterAllocator::Backtracking),
];

/// Compiles `T` in each of [`TIERS`] (median of 5 compiles each, the shared
/// library already filled after the first) and times each on `docs`,
/// interleaved.
fn row<T: Decode>(name: &str, docs: &[Vec<u8>], rounds: usize) {
    let build = |(structs, register_allocator)| {
        let options = || CompileOptions {
            structs,
            register_allocator,
            ..Default::default()
        };
        let mut times: Vec<f64> = (0..5)
            .map(|_| {
                let c = compile(<T as HasLayout>::LAYOUT, options()).expect("compiles");
                c.compile_time.as_secs_f64()
            })
            .collect();
        let compiled = compile(<T as HasLayout>::LAYOUT, options()).expect("compiles");
        (compiled, median(&mut times))
    };
    let built: Vec<(Compiled, f64)> = TIERS.into_iter().map(build).collect();
    let bytes: usize = docs.iter().map(Vec::len).sum();
    // About 20 ms per turn.
    let reps = (10_000_000 / bytes).max(1);
    // The interpreter, then each tier.
    let interpreter = jitson::Decoder::<T>::with_backend(jitson::Backend::Interpreter);
    let mut contenders: Vec<Contender<'_>> = vec![Box::new(|doc: &[u8]| {
        drop(interpreter.decode_slice(doc).expect("decodes"))
    })];
    for (compiled, _) in &built {
        contenders.push(Box::new(move |doc: &[u8]| decode::<T>(compiled, doc)));
    }
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); contenders.len()];
    for _ in 0..rounds {
        for (run, times) in contenders.iter().zip(&mut times) {
            let start = Instant::now();
            for _ in 0..reps {
                for doc in docs {
                    run(std::hint::black_box(doc));
                }
            }
            times.push(start.elapsed().as_secs_f64() / reps as f64);
        }
    }
    let decode: Vec<f64> = times.iter_mut().map(|t| median(t)).collect();
    let ms = |s: f64| format!("{:.2} ms", s * 1e3);
    let mbs = |s: f64| format!("{:.0} MB/s", bytes as f64 / s / 1e6);
    println!(
        "| {name} | {} | {} | {} | {} | {} | {} | {} | {:.2}x |",
        ms(built[0].1),
        ms(built[1].1),
        ms(built[2].1),
        mbs(decode[0]),
        mbs(decode[1]),
        mbs(decode[2]),
        mbs(decode[3]),
        decode[1] / decode[3]
    );
}

/// `n` generated documents, one value each.
fn main() {
    if !jitson::Backend::Jit.is_available() {
        println!("the JIT is not available here");
        return;
    }
    let rounds = if std::env::args().any(|a| a == "--quick") {
        3
    } else {
        11
    };
    println!(
        "| data | compile, baseline (table) | compile, table, single-pass | compile, optimising (unrolled) | decode, interpreter | decode, baseline | decode, table, single-pass | decode, optimising | optimising speed-up |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    row::<User>(
        "User (2,000 docs)",
        &jitson_benches::documents(2000, 1, User::generate),
        rounds,
    );
    row::<Order>(
        "Order (2,000 docs)",
        &jitson_benches::documents(2000, 2, Order::generate),
        rounds,
    );
    row::<Account>(
        "Account (2,000 docs)",
        &jitson_benches::documents(2000, 3, Account::generate),
        rounds,
    );
    match jitson_benches::corpus_dir() {
        Some(dir) => {
            let read = |f: &str| vec![std::fs::read(dir.join(f)).expect("corpus file")];
            row::<Twitter>("twitter.json", &read("twitter.json"), rounds);
            row::<CitmCatalog>("citm_catalog.json", &read("citm_catalog.json"), rounds);
            row::<Canada>("canada.json", &read("canada.json"), rounds);
        }
        None => println!("{}", jitson_benches::NO_CORPUS),
    }
}
