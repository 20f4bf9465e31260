//! A decode loop to profile: one data set, one backend, nothing else in the
//! process. With `JITSON_PERF_MAP=1`, `perf report` names the generated
//! functions (see docs/jit.md, "Profiling").
//!
//! Run: `cargo run --release -p jitson-benches --example profile -- DATA [SECONDS]`
//! where DATA is `twitter`, `citm` or `canada` (from the corpus) or `user`,
//! `order`, `account` (2,000 generated documents), `package`, `geojson`,
//! `tagged`, `webhook` (1,000 everyday documents: package.json, GeoJSON, GeoJSON
//! with tagged enums, a payments webhook with a flattened catch-all; the
//! webhook decodes only); `JITSON_DISABLE_JIT=1`
//! profiles the interpreter. Every decode waits for the optimising tier
//! (`Tiering::Wait`), so no sample lands in a compile after the first.
//! `PROFILE_THREADS=N` runs the decode loop on N threads at once (the output
//! counts them together). `PROFILE_PEER=sonic` runs the same decode loop with
//! `sonic_rs::from_slice` into the same model (its serde derive), for a profile
//! of the peer in the same build; each document's value is first checked equal
//! to jitson's interpreter's, and nothing is compiled.
//!
//! A third argument `encode` profiles encoding instead: the data set's values
//! (decoded once) encoded into a reused buffer, on the backend
//! `JITSON_DISABLE_JIT` selects. A fourth argument `pretty` encodes pretty
//! output (`Encoder::pretty(true)`); with `PROFILE_SERDE=1` the same loop runs
//! serde_json (`to_writer`, or `to_writer_pretty`), for the ratio.

use std::time::{Duration, Instant};

use jitson::{Backend, Decode, Decoder, Encode, Encoder, Tiering};
use jitson_benches::documents;
#[cfg(feature = "serde")]
use jitson_benches::everyday::Webhook;
use jitson_benches::everyday::{FeatureCollection, GeoJson, Package};
use jitson_benches::models::{canada::Canada, citm::CitmCatalog, twitter::Twitter};
use jitson_benches::seed::{Account, Order, User};
use serde::de::DeserializeOwned;

/// Decodes each of `docs` in turn for `seconds` with jitson, or with sonic-rs
/// when `PROFILE_PEER=sonic`; prints decodes per second and throughput.
fn spin<T: Decode + DeserializeOwned + PartialEq>(docs: &[Vec<u8>], seconds: f64) {
    match std::env::var("PROFILE_PEER").as_deref() {
        Ok("sonic") => {
            // The check runs jitson's interpreter: nothing is compiled, so the
            // profile holds sonic-rs alone.
            let reference = Decoder::<T>::with_backend(Backend::Interpreter);
            for doc in docs {
                let peer: T = sonic_rs::from_slice(doc).expect("sonic-rs decodes");
                assert!(
                    peer == reference.decode_slice(doc).expect("decodes"),
                    "jitson's value"
                );
            }
            spin_with(docs, seconds, |doc| {
                sonic_rs::from_slice::<T>(doc).expect("sonic-rs decodes")
            });
        }
        Ok(other) if !other.is_empty() => panic!("unknown PROFILE_PEER {other}: sonic"),
        _ => {
            let decoder = Decoder::<T>::new().tiering(Tiering::Wait);
            // Compiled before the clock starts, so no thread times a compile.
            decoder.warm_up().expect("warms up");
            spin_with(docs, seconds, |doc| {
                decoder.decode_slice(doc).expect("decodes")
            });
        }
    }
}

/// Runs `decode` over each of `docs` in turn for `seconds`, on
/// `PROFILE_THREADS` threads at once (default 1); prints decodes per second and
/// throughput, all threads together.
fn spin_with<T>(docs: &[Vec<u8>], seconds: f64, decode: impl Fn(&[u8]) -> T + Sync) {
    let threads: usize = std::env::var("PROFILE_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let end = Instant::now() + Duration::from_secs_f64(seconds);
    let start = Instant::now();
    let (decodes, bytes) = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let (mut decodes, mut bytes) = (0u64, 0usize);
                    while Instant::now() < end {
                        for doc in docs {
                            std::hint::black_box(decode(doc));
                            bytes += doc.len();
                        }
                        decodes += docs.len() as u64;
                    }
                    (decodes, bytes)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a decode thread"))
            .fold((0, 0), |(d, b), (d2, b2)| (d + d2, b + b2))
    });
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{decodes} decodes, {:.0} ns/op, {:.0} MB/s",
        secs * 1e9 / decodes as f64,
        bytes as f64 / secs / 1e6
    );
}

/// Encodes the values of `docs` in turn for `seconds`; prints encodes per second.
fn spin_encode<T: Decode + Encode + serde::Serialize>(
    docs: &[Vec<u8>],
    seconds: f64,
    pretty: bool,
) {
    let values: Vec<T> = docs
        .iter()
        .map(|d| jitson::from_slice(d).expect("decodes"))
        .collect();
    let encoder = Encoder::<T>::new().pretty(pretty);
    let serde = std::env::var_os("PROFILE_SERDE").is_some_and(|v| v == "1");
    let encode_into = |value: &T, out: &mut Vec<u8>| {
        if !serde {
            encoder.encode_into(value, out).expect("encodes");
        } else if pretty {
            serde_json::to_writer_pretty(out, value).expect("encodes");
        } else {
            serde_json::to_writer(out, value).expect("encodes");
        }
    };
    let mut out = Vec::new();
    encode_into(&values[0], &mut out);
    // Backend::Auto compiles in the background: let it land before timing.
    let warm = Instant::now() + Duration::from_millis(300);
    while Instant::now() < warm {
        for value in &values {
            out.clear();
            encode_into(value, &mut out);
        }
    }
    // The bytes, compiled or not, are serde_json's.
    out.clear();
    encode_into(&values[0], &mut out);
    let reference = if pretty {
        serde_json::to_vec_pretty(&values[0])
    } else {
        serde_json::to_vec(&values[0])
    };
    assert!(out == reference.expect("encodes"), "serde_json's bytes");
    let end = Instant::now() + Duration::from_secs_f64(seconds);
    let (mut encodes, mut bytes) = (0u64, 0usize);
    let start = Instant::now();
    while Instant::now() < end {
        for value in &values {
            out.clear();
            encode_into(value, &mut out);
            bytes += out.len();
        }
        encodes += values.len() as u64;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{encodes} encodes, {:.0} ns/op, {:.0} MB/s of output",
        secs * 1e9 / encodes as f64,
        bytes as f64 / secs / 1e6
    );
}

/// Decodes (or, with `encode`, encodes) one data set for `seconds`.
fn run<T: Decode + Encode + serde::Serialize + DeserializeOwned + PartialEq>(
    docs: &[Vec<u8>],
    seconds: f64,
    encode: bool,
) {
    let pretty = std::env::args().nth(4).is_some_and(|a| a == "pretty");
    if encode {
        spin_encode::<T>(docs, seconds, pretty)
    } else {
        spin::<T>(docs, seconds)
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let data = args.first().map_or("twitter", String::as_str);
    let seconds = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5.0);
    let encode = args.get(2).is_some_and(|a| a == "encode");
    let corpus = |name: &str| {
        let dir = jitson_benches::corpus_dir().expect("the corpus is needed for this data set");
        vec![std::fs::read(dir.join(name)).expect("reads the corpus file")]
    };
    match data {
        "twitter" => run::<Twitter>(&corpus("twitter.json"), seconds, encode),
        "citm" => run::<CitmCatalog>(&corpus("citm_catalog.json"), seconds, encode),
        "canada" => run::<Canada>(&corpus("canada.json"), seconds, encode),
        "user" => run::<User>(&documents(2000, 1, User::generate), seconds, encode),
        "order" => run::<Order>(&documents(2000, 2, Order::generate), seconds, encode),
        "account" => run::<Account>(&documents(2000, 3, Account::generate), seconds, encode),
        "package" => run::<Package>(&documents(1000, 6, Package::generate), seconds, encode),
        "geojson" => run::<FeatureCollection>(
            &documents(1000, 7, FeatureCollection::generate),
            seconds,
            encode,
        ),
        "tagged" => run::<GeoJson>(&documents(1000, 8, GeoJson::generate), seconds, encode),
        #[cfg(feature = "serde")]
        "webhook" => spin::<Webhook>(&documents(1000, 9, Webhook::generate), seconds),
        other => panic!(
            "unknown data set {other}: twitter, citm, canada, user, order, account, \
             package, geojson, tagged, webhook"
        ),
    }
}
