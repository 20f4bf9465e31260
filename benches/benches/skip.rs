//! Skipping: every member of the corpus documents unknown to the model, so the
//! whole document is validated and discarded (jitson's `ignore_value`, serde's
//! `IgnoredAny`). Each corpus file is decoded as it is (pretty-printed:
//! twitter and citm) and compacted, into a struct with no fields, by the JIT,
//! the interpreter and serde_json. This is what an Arrow reader or a partial
//! model pays for the members it does not keep (issue 40, item 2).
//!
//! Run: `cargo bench -p jitson-benches --bench skip` (about a minute).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use jitson::{Backend, Decode, Decoder};
use serde::Deserialize;

/// A model that keeps nothing: every member is skipped.
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Nothing {}

fn skip(c: &mut Criterion) {
    let Some(dir) = jitson_benches::corpus_dir() else {
        eprintln!("{}", jitson_benches::NO_CORPUS);
        return;
    };
    let jit = Decoder::<Nothing>::with_backend(Backend::Jit);
    let interpreter = Decoder::<Nothing>::with_backend(Backend::Interpreter);
    for name in ["twitter", "citm_catalog", "canada"] {
        let text = std::fs::read(dir.join(format!("{name}.json"))).expect("corpus file");
        let value: serde_json::Value = serde_json::from_slice(&text).expect("valid JSON");
        let compact = serde_json::to_vec(&value).expect("serialises");
        for (form, doc) in [("as is", text), ("compact", compact)] {
            assert_eq!(
                jit.decode_slice(&doc).expect("the JIT skips it"),
                Nothing {}
            );
            assert_eq!(interpreter.decode_slice(&doc).expect("skips"), Nothing {});
            let mut g = c.benchmark_group(format!("skip/{name} ({form})"));
            g.throughput(Throughput::BytesDecimal(doc.len() as u64));
            g.bench_function("jitson JIT", |b| {
                b.iter(|| jit.decode_slice(black_box(&doc)).expect("skips"))
            });
            g.bench_function("jitson interpreter", |b| {
                b.iter(|| interpreter.decode_slice(black_box(&doc)).expect("skips"))
            });
            g.bench_function("serde_json", |b| {
                b.iter(|| serde_json::from_slice::<Nothing>(black_box(&doc)).expect("skips"))
            });
            g.finish();
        }
    }
}

criterion_group!(benches, skip);
criterion_main!(benches);
