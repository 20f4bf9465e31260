//! Decode throughput: jitson (JIT and interpreter) against serde_json (from_slice
//! and from_str), sonic-rs (from_slice) and simd-json (serde API), into the same
//! typed structs (the seed types and the all-fields corpus models, which derive both
//! `jitson::Decode` and `serde::Deserialize`; sonic-rs and simd-json use the serde
//! impls).
//!
//! One criterion group per data set, throughput in bytes of input
//! (`Throughput::BytesDecimal`, so criterion prints MB/s, not MiB/s), entries
//! named by function path plus backend:
//! `jitson::from_slice/jit`, `jitson::from_slice/interpreter`,
//! `serde_json::from_slice`, `serde_json::from_str`, `sonic_rs::from_slice`,
//! `simd_json::serde::from_slice` (decode only: the input is copied to a fresh
//! mutable buffer in the untimed setup of each iteration) and
//! `simd_json::serde::from_slice (copy)` (the copy of the input plus the decode,
//! what a caller holding a `&[u8]` pays). Every entry drops the decoded value inside
//! the timed part.
//!
//! Before timing, each entry decodes the data once and panics unless the value
//! equals serde_json::from_slice's.
//!
//! Run: `cargo bench -p jitson-benches --bench decode` (criterion options after
//! `--`, e.g. `-- --warm-up-time 1 --measurement-time 3 twitter`).

use std::fmt::Debug;
use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use jitson::{Backend, Decoder};
use jitson_benches::models::{canada::Canada, citm::CitmCatalog, twitter::Twitter};
use jitson_benches::seed::{Account, Order, User};
use jitson_benches::{array, check, corpus_dir, one};
use serde::de::DeserializeOwned;

/// The group `name`: every contender decoding `bytes` into `T`.
fn group<T>(c: &mut Criterion, name: &str, bytes: &[u8])
where
    T: jitson::Decode + DeserializeOwned + PartialEq + Debug + 'static,
{
    let expected: T = serde_json::from_slice(bytes).expect("serde_json decodes the data");
    let text = std::str::from_utf8(bytes).expect("the data is UTF-8");
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::BytesDecimal(bytes.len() as u64));

    for backend in [Backend::Jit, Backend::Interpreter] {
        let entry = format!("jitson::from_slice/{}", backend.name());
        let decoder = Decoder::<T>::with_backend(backend);
        if let Err(e) = decoder.warm_up() {
            println!("NOTICE: {name}: {entry} skipped: {e}");
            continue;
        }
        check(name, &entry, decoder.decode_slice(bytes), &expected);
        g.bench_function(&entry, |b| {
            b.iter(|| decoder.decode_slice(black_box(bytes)).unwrap())
        });
    }

    let entry = "serde_json::from_slice";
    check(name, entry, serde_json::from_slice::<T>(bytes), &expected);
    g.bench_function(entry, |b| {
        b.iter(|| serde_json::from_slice::<T>(black_box(bytes)).unwrap())
    });

    let entry = "serde_json::from_str";
    check(name, entry, serde_json::from_str::<T>(text), &expected);
    g.bench_function(entry, |b| {
        b.iter(|| serde_json::from_str::<T>(black_box(text)).unwrap())
    });

    let entry = "sonic_rs::from_slice";
    check(name, entry, sonic_rs::from_slice::<T>(bytes), &expected);
    g.bench_function(entry, |b| {
        b.iter(|| sonic_rs::from_slice::<T>(black_box(bytes)).unwrap())
    });

    // simd-json parses in place: it needs a mutable copy of the input.
    let entry = "simd_json::serde::from_slice";
    check(
        name,
        entry,
        simd_json::serde::from_slice::<T>(&mut bytes.to_vec()),
        &expected,
    );
    g.bench_function(entry, |b| {
        b.iter_batched(
            || bytes.to_vec(),
            |mut buf| {
                // The value is dropped here, inside the timing, as in the other
                // entries; the buffer is returned and freed outside it.
                black_box(simd_json::serde::from_slice::<T>(black_box(&mut buf)).unwrap());
                buf
            },
            BatchSize::SmallInput,
        )
    });
    g.bench_function("simd_json::serde::from_slice (copy)", |b| {
        b.iter(|| {
            let mut buf = black_box(bytes).to_vec();
            simd_json::serde::from_slice::<T>(&mut buf).unwrap()
        })
    });
    g.finish();
}

fn seed_types(c: &mut Criterion) {
    group::<User>(c, "user", &one(1, User::generate));
    group::<Vec<User>>(c, "user_array_1000", &array(1_000, 1, User::generate));
    group::<Order>(c, "order", &one(2, Order::generate));
    group::<Vec<Order>>(c, "order_array_1000", &array(1_000, 2, Order::generate));
    group::<Account>(c, "account", &one(3, Account::generate));
    group::<Vec<Account>>(c, "account_array_1000", &array(1_000, 3, Account::generate));
}

fn corpus(c: &mut Criterion) {
    let Some(dir) = corpus_dir() else {
        println!("{}", jitson_benches::NO_CORPUS);
        return;
    };
    let read = |name: &str| {
        std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("reading {name}: {e}"))
    };
    group::<Twitter>(c, "twitter", &read("twitter.json"));
    group::<CitmCatalog>(c, "citm_catalog", &read("citm_catalog.json"));
    group::<Canada>(c, "canada", &read("canada.json"));
}

criterion_group!(benches, seed_types, corpus);
criterion_main!(benches);
