//! The small documents, measured to resist a noisy machine: for each data set,
//! the JIT (`Tiering::Wait`), the interpreter and serde_json `from_slice` take
//! turns, round after round, each round decoding every document five times;
//! each contender's figure is its fastest round (ns per document), and the
//! ratios are serde_json's over jitson's. Where `compare` reports medians of
//! per-round ratios, this reports what each decoder does when the machine
//! leaves it alone, which is what an A/B of one change needs.
//!
//! Run: `cargo run --release -p jitson-benches --example small_docs -- [DATA] [ROUNDS]`
//! where DATA is `user`, `order`, `account` (2,000 generated documents each),
//! `package`, `geojson`, `tagged` (GeoJSON with tagged enums) or `webhook`
//! (1,000 each), `schedule` (500 documents of std types serde writes as
//! structs and tagged enums: `SystemTime`, `Duration`, ranges, `Result`,
//! `Bound`), or omitted for all; ROUNDS defaults to
//! 30. `SMALL_DOCS_ONLY=jit`, `interpreter` or `serde_json` runs that contender
//! alone (the others report 0), for counting its instructions where timings
//! are too noisy to compare:
//! `valgrind --tool=callgrind --smc-check=all-non-file` at two round counts,
//! the difference over the extra rounds' decodes (5 × documents per round).

use std::time::Instant;

use jitson::{Backend, Decode, Decoder, Tiering};
use jitson_benches::documents;
use jitson_benches::everyday::{FeatureCollection, GeoJson, Package, Schedule, Webhook};
use jitson_benches::seed::{Account, Order, User};
use serde::de::DeserializeOwned;

/// One contender: decodes a document and drops the value.
type Contender<'a> = &'a dyn Fn(&[u8]);

/// Prints the fastest round of each contender on `docs`, and the ratios.
fn race<T: Decode + DeserializeOwned>(name: &str, docs: &[Vec<u8>], rounds: usize) {
    let jit = Decoder::<T>::new().tiering(Tiering::Wait);
    jit.warm_up().expect("warms up");
    let interpreter = Decoder::<T>::with_backend(Backend::Interpreter);
    let decoders: [Contender; 3] = [
        &|doc| {
            drop(std::hint::black_box(
                jit.decode_slice(doc).expect("decodes"),
            ))
        },
        &|doc| {
            drop(std::hint::black_box(
                interpreter.decode_slice(doc).expect("decodes"),
            ))
        },
        &|doc| {
            drop(std::hint::black_box(
                serde_json::from_slice::<T>(doc).expect("decodes"),
            ))
        },
    ];
    let only = std::env::var("SMALL_DOCS_ONLY").ok();
    let names = ["jit", "interpreter", "serde_json"];
    let mut best = [f64::MAX; 3];
    for _ in 0..rounds {
        for ((decode, best), name) in decoders.iter().zip(&mut best).zip(names) {
            if only.as_deref().is_some_and(|only| only != name) {
                *best = 0.0;
                continue;
            }
            let start = Instant::now();
            for _ in 0..5 {
                docs.iter().for_each(|doc| decode(doc));
            }
            let ns = start.elapsed().as_nanos() as f64 / (5 * docs.len()) as f64;
            *best = best.min(ns);
        }
    }
    let [jit, interpreter, serde] = best;
    println!(
        "{name:8} JIT {jit:6.0} ns, interpreter {interpreter:6.0} ns, serde_json {serde:6.0} ns: \
         JIT {:.2}x, interpreter {:.2}x serde_json",
        serde / jit,
        serde / interpreter
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let only = args.next().unwrap_or_default();
    let rounds = args.next().and_then(|r| r.parse().ok()).unwrap_or(30);
    let wanted = |name: &str| only.is_empty() || only == name;
    if wanted("user") {
        race::<User>("user", &documents(2000, 1, User::generate), rounds);
    }
    if wanted("order") {
        race::<Order>("order", &documents(2000, 2, Order::generate), rounds);
    }
    if wanted("account") {
        race::<Account>("account", &documents(2000, 3, Account::generate), rounds);
    }
    if wanted("package") {
        race::<Package>("package", &documents(1000, 6, Package::generate), rounds);
    }
    if wanted("geojson") {
        let docs = documents(1000, 7, FeatureCollection::generate);
        race::<FeatureCollection>("geojson", &docs, rounds);
    }
    if wanted("tagged") {
        race::<GeoJson>("tagged", &documents(1000, 8, GeoJson::generate), rounds);
    }
    if wanted("webhook") {
        race::<Webhook>("webhook", &documents(1000, 9, Webhook::generate), rounds);
    }
    if wanted("schedule") {
        race::<Schedule>("schedule", &documents(500, 10, Schedule::generate), rounds);
    }
}
