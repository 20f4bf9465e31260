//! The main job: decode the same data with every jitson backend and with serde_json,
//! check that every result is equal, and print how fast each was.
//!
//! Data: thousands of generated seed-type documents (`User`, `Order`, `Account`, and
//! an array of 1,000 `Order`s), built here deterministically; and, when
//! `../shared/corpus/bench/` exists, twitter.json, citm_catalog.json and
//! canada.json decoded into all-fields models whose every struct denies unknown
//! fields (so nothing is skipped).
//!
//! Timing: the contenders are interleaved round by round (these machines are noisy)
//! and the table shows medians; "vs serde" is the median of the per-round ratios
//! serde_json::from_slice time / contender time (higher is faster), with its range.
//!
//! Run: `cargo run --release --example compare` (add `-- --quick` for fewer rounds).

#[path = "models/mod.rs"]
mod models;
#[path = "models/seed.rs"]
mod seed;

use std::fmt::Debug;
use std::hint::black_box;
use std::time::{Duration, Instant};

use jitson::{Backend, Decode, Decoder};
use serde::Serialize;
use serde::de::DeserializeOwned;

use seed::{Account, Order, Rng, User};

type DecodeFn<T> = Box<dyn Fn(&[u8]) -> Result<T, String>>;

/// One library/backend/entry point under test.
struct Contender<T> {
    name: String,
    decode: DecodeFn<T>,
}

/// The contenders for `T`: every jitson backend that can run here, then serde_json.
fn contenders<T: Decode + DeserializeOwned + 'static>() -> Vec<Contender<T>> {
    let mut list: Vec<Contender<T>> = Vec::new();
    for backend in [Backend::Jit, Backend::Interpreter] {
        let decoder = Decoder::<T>::with_backend(backend);
        if let Err(e) = decoder.warm_up() {
            eprintln!("note: jitson backend `{}` skipped: {e}", backend.name());
            continue;
        }
        list.push(Contender {
            name: format!("jitson::from_slice/{}", backend.name()),
            decode: Box::new(move |b| decoder.decode_slice(b).map_err(|e| e.to_string())),
        });
        list.push(Contender {
            name: format!("jitson::from_str/{}", backend.name()),
            decode: Box::new(move |b| {
                decoder
                    .decode_str(std::str::from_utf8(b).map_err(|e| e.to_string())?)
                    .map_err(|e| e.to_string())
            }),
        });
    }
    list.push(Contender {
        name: "serde_json::from_slice".into(),
        decode: Box::new(|b| serde_json::from_slice(b).map_err(|e| e.to_string())),
    });
    list.push(Contender {
        name: "serde_json::from_str".into(),
        decode: Box::new(|b| {
            serde_json::from_str(std::str::from_utf8(b).map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())
        }),
    });
    list
}

/// One line of the report.
struct Row {
    data: String,
    contender: String,
    ns_per_op: f64,
    mb_per_s: f64,
    vs_serde: f64,
    vs_serde_min: f64,
    vs_serde_max: f64,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Checks that every contender decodes `docs` to the value serde_json gives, then
/// times them, interleaved, for `rounds` rounds.
fn run<T>(data: &str, docs: &[Vec<u8>], rounds: usize) -> Vec<Row>
where
    T: Decode + DeserializeOwned + PartialEq + Debug + 'static,
{
    let contenders = contenders::<T>();
    let reference: Vec<T> = docs
        .iter()
        .map(|d| serde_json::from_slice(d).expect("serde_json decodes"))
        .collect();
    for c in &contenders {
        for (doc, expected) in docs.iter().zip(&reference) {
            match (c.decode)(doc) {
                Ok(v) if v == *expected => {}
                Ok(v) => panic!(
                    "{data}: {} decoded a different value:\n{v:?}\nexpected\n{expected:?}",
                    c.name
                ),
                Err(e) => panic!("{data}: {} failed: {e}", c.name),
            }
        }
    }
    let bytes: usize = docs.iter().map(Vec::len).sum();
    let serde_index = contenders
        .iter()
        .position(|c| c.name == "serde_json::from_slice")
        .unwrap();
    let mut times = vec![Vec::with_capacity(rounds); contenders.len()];
    for round in 0..rounds {
        // Rotate the order each round so no contender always runs first.
        for k in 0..contenders.len() {
            let i = (k + round) % contenders.len();
            let start = Instant::now();
            for doc in docs {
                black_box((contenders[i].decode)(black_box(doc)).is_ok());
            }
            times[i].push(start.elapsed().as_secs_f64());
        }
    }
    contenders
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut ratios: Vec<f64> = (0..rounds)
                .map(|r| times[serde_index][r] / times[i][r])
                .collect();
            let vs_serde = median(&mut ratios);
            let secs = median(&mut times[i].clone());
            Row {
                data: data.to_owned(),
                contender: c.name.clone(),
                ns_per_op: secs * 1e9 / docs.len() as f64,
                mb_per_s: bytes as f64 / secs / 1e6,
                vs_serde,
                vs_serde_min: ratios[0],
                vs_serde_max: ratios[ratios.len() - 1],
            }
        })
        .collect()
}

/// Times the first decode of `T` in this process (compile included) and a second
/// one, and reads the compile time from `stats()`.
fn first_call<T: Decode>(
    name: &'static str,
    doc: &[u8],
) -> (&'static str, Duration, Duration, Duration) {
    let compile_before = jitson::stats().compile_time_total;
    let start = Instant::now();
    jitson::from_slice::<T>(doc).expect("decodes");
    let first = start.elapsed();
    let compile = jitson::stats().compile_time_total - compile_before;
    let start = Instant::now();
    jitson::from_slice::<T>(doc).expect("decodes");
    (name, compile, first, start.elapsed())
}

/// `n` generated values serialised one document each.
fn generate<T: Serialize>(n: u64, seed: u64, make: impl Fn(&mut Rng, u64) -> T) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| serde_json::to_vec(&make(&mut rng, i)).expect("serialise"))
        .collect()
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let rounds = if quick { 5 } else { 15 };
    let mut rows = Vec::new();

    println!(
        "jitson compare: {rounds} interleaved rounds per data set; all results checked equal to serde_json's.\n"
    );

    // First-call latency, before anything else touches these types: the first
    // decode compiles the type's decoder (JIT), the second does not.
    let jit = Backend::Jit.is_available();
    println!("JIT available: {jit}");
    let mut latency = Vec::new();
    let order_doc = generate(1, 9, Order::generate).remove(0);
    latency.push(first_call::<Order>("Order (30 fields)", &order_doc));
    if let Some(dir) = models::corpus_dir() {
        let twitter = std::fs::read(dir.join("twitter.json")).expect("read twitter.json");
        latency.push(first_call::<models::twitter::Twitter>(
            "twitter model (whole)",
            &twitter,
        ));
    }
    println!(
        "\n| first call | compile (stats) | first decode | second decode |\n|---|---:|---:|---:|"
    );
    for (name, compile, first, second) in &latency {
        println!("| {name} | {compile:?} | {first:?} | {second:?} |");
    }
    println!();

    let users = generate(2_000, 1, User::generate);
    rows.extend(run::<User>("User (2,000 docs)", &users, rounds));
    let orders = generate(2_000, 2, Order::generate);
    rows.extend(run::<Order>("Order (2,000 docs)", &orders, rounds));
    let accounts = generate(2_000, 3, Account::generate);
    rows.extend(run::<Account>("Account (2,000 docs)", &accounts, rounds));
    let mut rng = Rng::new(4);
    let order_array: Vec<Order> = (0..1_000).map(|i| Order::generate(&mut rng, i)).collect();
    let order_array = vec![serde_json::to_vec_pretty(&order_array).unwrap()];
    rows.extend(run::<Vec<Order>>(
        "Vec<Order> (1,000, pretty)",
        &order_array,
        rounds,
    ));

    match models::corpus_dir() {
        Some(dir) => {
            let read = |name: &str| vec![std::fs::read(dir.join(name)).expect("read corpus file")];
            rows.extend(run::<models::twitter::Twitter>(
                "twitter.json",
                &read("twitter.json"),
                rounds,
            ));
            rows.extend(run::<models::citm::CitmCatalog>(
                "citm_catalog.json",
                &read("citm_catalog.json"),
                rounds,
            ));
            rows.extend(run::<models::canada::Canada>(
                "canada.json",
                &read("canada.json"),
                rounds,
            ));
        }
        None => println!(
            "NOTICE: ../shared/corpus/bench not found (set JITSON_CORPUS); corpus files skipped.\n"
        ),
    }

    println!("| data | contender | ns/op | MB/s | vs serde_json::from_slice (median, range) |");
    println!("|---|---|---:|---:|---|");
    for r in &rows {
        println!(
            "| {} | {} | {:.0} | {:.0} | {:.2}x ({:.2}-{:.2}) |",
            r.data,
            r.contender,
            r.ns_per_op,
            r.mb_per_s,
            r.vs_serde,
            r.vs_serde_min,
            r.vs_serde_max
        );
    }
    let stats = jitson::stats();
    println!(
        "\njitson stats: {} interpreter decodes, {} JIT decodes, {} layouts prepared, {} root layouts compiled \
         ({} bytes of code, {:?} compiling in total, {:?} at most)",
        stats.interpreter_decodes,
        stats.jit_decodes,
        stats.layouts_prepared,
        stats.layouts_compiled,
        stats.code_bytes,
        stats.compile_time_total,
        stats.compile_time_max
    );
    for (ty, why) in &stats.interpreted_layouts {
        println!("  decoded by the interpreter inside JIT code: {ty} ({why})");
    }
    for (why, n) in &stats.auto_fallbacks {
        println!("  Backend::Auto fell back to the interpreter {n} times: {why}");
    }
    println!("all results equal: yes");
}
