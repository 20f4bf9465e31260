//! Linear time on huge inputs: decode time per byte must not grow with the input.
//! For each shape below, documents of 1 MB, 10 MB and 100 MB are decoded by the JIT,
//! the interpreter and serde_json; criterion reports throughput
//! (`Throughput::BytesDecimal`), so linear time shows as the same MB/s at every size
//! and quadratic behaviour as MB/s falling tenfold per step.
//!
//! Shapes (the hostile-input sizes of issue 5):
//! - `string`: one string of ASCII letters, into `String`;
//! - `escaped_string`: one string, nearly half of it `\n` and `\u00e9` escapes, into
//!   `String` (the unescape path);
//! - `array`: `[0,1,2,…]` into `Vec<u32>` (vector growth);
//! - `skipped_array`: the same array in an unknown field of a struct (skipping);
//! - `whitespace`: spaces, tabs and newlines around `{"a":1}`;
//! - `escaped_keys`: 60 levels of maps, each with a plain key leading down and an
//!   escaped key after it, the array above at the bottom (a slow path that
//!   restarted a map would decode the bottom once per level: issue 12).
//!
//! Run: `cargo bench -p jitson-benches --bench scaling` (about three minutes).

use std::hint::black_box;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use jitson::{Backend, Decode, Decoder};
use serde::Deserialize;

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Small {
    a: u32,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct MapTree {
    #[serde(default)]
    v: Vec<u32>,
    #[serde(default)]
    m: std::collections::HashMap<String, MapTree>,
}

/// Levels of `escaped_keys` (two decoded containers each, within the default
/// depth limit of 128).
const MAP_LEVELS: usize = 60;

const SIZES: [(usize, &str); 3] = [
    (1_000_000, "1MB"),
    (10_000_000, "10MB"),
    (100_000_000, "100MB"),
];

/// A document of at least `size` bytes of the given shape.
fn document(shape: &str, size: usize) -> Vec<u8> {
    let mut doc = Vec::with_capacity(size + 32);
    match shape {
        "string" => {
            doc.push(b'"');
            doc.extend((0..size).map(|i| b'a' + (i % 26) as u8));
            doc.push(b'"');
        }
        "escaped_string" => {
            doc.push(b'"');
            while doc.len() < size {
                doc.extend_from_slice(b"plain text\\n\\u00e9");
            }
            doc.push(b'"');
        }
        "escaped_keys" => {
            // The escaped key comes after the subtree, so a map restarted on it
            // would have decoded the subtree already.
            doc.extend_from_slice(&b"{\"m\": {\"down\": ".repeat(MAP_LEVELS));
            doc.extend_from_slice(b"{\"v\": ");
            doc.extend_from_slice(&document("array", size));
            doc.push(b'}');
            doc.extend_from_slice(&b", \"\\u0065\": {}}}".repeat(MAP_LEVELS));
        }
        "array" | "skipped_array" => {
            if shape == "skipped_array" {
                doc.extend_from_slice(b"{\"skip\": ");
            }
            doc.push(b'[');
            let mut i = 0u32;
            while doc.len() < size {
                doc.extend_from_slice(i.to_string().as_bytes());
                doc.push(b',');
                i = i.wrapping_add(7919) % 1_000_000;
            }
            doc.extend_from_slice(b"0]");
            if shape == "skipped_array" {
                doc.extend_from_slice(b", \"a\": 1}");
            }
        }
        "whitespace" => {
            doc.extend(b" \t\r\n".iter().cycle().take(size / 2));
            doc.extend_from_slice(b"{\"a\":1}");
            doc.extend(b" \n".iter().cycle().take(size / 2));
        }
        _ => unreachable!("unknown shape {shape}"),
    }
    doc
}

fn shape<T>(c: &mut Criterion, name: &str)
where
    T: Decode + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let mut g = c.benchmark_group(format!("scaling/{name}"));
    g.sample_size(10).sampling_mode(SamplingMode::Flat);
    for (size, label) in SIZES {
        let doc = document(name, size);
        g.throughput(Throughput::BytesDecimal(doc.len() as u64));
        let expected: T = serde_json::from_slice(&doc).expect("serde_json decodes the document");
        for backend in [Backend::Jit, Backend::Interpreter] {
            let decoder = Decoder::<T>::with_backend(backend);
            if decoder.warm_up().is_err() {
                continue;
            }
            assert!(
                decoder.decode_slice(&doc).unwrap() == expected,
                "{name}/{label}"
            );
            g.bench_function(format!("jitson/{}/{label}", backend.name()), |b| {
                b.iter(|| decoder.decode_slice(black_box(&doc)).unwrap())
            });
        }
        g.bench_function(format!("serde_json/{label}"), |b| {
            b.iter(|| serde_json::from_slice::<T>(black_box(&doc)).unwrap())
        });
    }
    g.finish();
}

fn scaling(c: &mut Criterion) {
    shape::<String>(c, "string");
    shape::<String>(c, "escaped_string");
    shape::<Vec<u32>>(c, "array");
    shape::<Small>(c, "skipped_array");
    shape::<Small>(c, "whitespace");
    shape::<MapTree>(c, "escaped_keys");
}

criterion_group!(benches, scaling);
criterion_main!(benches);
