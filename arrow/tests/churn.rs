//! Issue 39: a process meeting run-time schemas without end keeps its memory
//! bounded. Each of 1,600 distinct schemas gets a compiled reader and a
//! compiled writer, used once and dropped; resident memory (Linux's
//! `/proc/self/statm`) after the first 100 may grow by 8 MB at most, every
//! schema runs on the JIT, and the code region's address space is reused
//! rather than consumed. (Before the code region gave pages back, about
//! 29 KB stayed resident per schema: 43 MB here.) About 16 ms per schema in
//! the test profile (Cranelift's verifier is on), so 25 s in all.
//!
//! One test in its own binary, so no other test's allocations are measured.
#![cfg(feature = "jit")]

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use jitson_arrow::writer::{LineDelimited, WriterBuilder};
use jitson_arrow::{Backend, ReaderBuilder};

/// Schema `n`: 4 to 8 nullable Int64 / Utf8 columns with names of its own.
fn schema(n: usize) -> Arc<Schema> {
    let columns = 4 + n % 5;
    Arc::new(Schema::new(
        (0..columns)
            .map(|c| {
                let ty = if (n + c).is_multiple_of(2) {
                    DataType::Int64
                } else {
                    DataType::Utf8
                };
                Field::new(format!("s{n}_c{c}"), ty, true)
            })
            .collect::<Vec<_>>(),
    ))
}

/// One record of `schema` as NDJSON.
fn record(schema: &Schema) -> String {
    let fields: Vec<String> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| match f.data_type() {
            DataType::Int64 => format!("\"{}\":{}", f.name(), i * 7),
            _ => format!("\"{}\":\"v{i}\"", f.name()),
        })
        .collect();
    format!("{{{}}}\n", fields.join(","))
}

/// A three-row batch of `schema` (one null per column).
fn batch(schema: &Arc<Schema>) -> RecordBatch {
    let columns: Vec<ArrayRef> = schema
        .fields()
        .iter()
        .map(|f| -> ArrayRef {
            match f.data_type() {
                DataType::Int64 => Arc::new(Int64Array::from(vec![Some(1), None, Some(-3)])),
                _ => Arc::new(StringArray::from(vec![Some("a"), Some("b\"c"), None])),
            }
        })
        .collect();
    RecordBatch::try_new(schema.clone(), columns).unwrap()
}

/// Compiles, uses and drops a reader and a writer of schema `n`.
fn churn_one(n: usize) {
    let schema = schema(n);
    let compiled = ReaderBuilder::new(schema.clone())
        .with_backend(Backend::Jit)
        .compile()
        .unwrap();
    assert!(compiled.is_compiled());
    let mut decoder = compiled.decoder();
    let text = record(&schema);
    decoder.decode(text.as_bytes()).unwrap();
    let read = decoder.flush().unwrap().unwrap();
    assert_eq!(read.num_rows(), 1);
    drop((decoder, compiled));
    let mut out = Vec::new();
    let mut writer = WriterBuilder::new()
        .with_backend(Backend::Jit)
        .build::<_, LineDelimited>(&mut out);
    writer.write(&batch(&schema)).unwrap();
    writer.finish().unwrap();
    drop(writer);
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 3);
}

/// Resident memory in bytes, from `/proc/self/statm`.
fn resident() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

#[test]
#[cfg_attr(not(target_os = "linux"), ignore = "reads /proc/self/statm")]
fn resident_memory_stays_bounded_over_thousands_of_schemas() {
    const WARM: usize = 100;
    const SCHEMAS: usize = 1_600;
    for n in 0..WARM {
        churn_one(n);
    }
    let before = resident();
    let region_before = jitson_arrow::stats().code;
    let started = std::time::Instant::now();
    for n in WARM..SCHEMAS {
        churn_one(n);
    }
    let elapsed = started.elapsed();
    let after = resident();
    let stats = jitson_arrow::stats();
    let growth = after.saturating_sub(before);
    eprintln!(
        "{} schemas after {WARM}: resident {:.1} -> {:.1} MB (+{:.2} MB), {:.2} ms per schema; \
         region: {} KB held, span {} KB, peak {} KB, {} runs reused, {} given back",
        SCHEMAS - WARM,
        before as f64 / 1e6,
        after as f64 / 1e6,
        growth as f64 / 1e6,
        elapsed.as_secs_f64() * 1e3 / (SCHEMAS - WARM) as f64,
        stats.code.taken / 1024,
        stats.code.span / 1024,
        stats.code.peak_taken / 1024,
        stats.code.segments_reused,
        stats.code.segments_given_back,
    );
    // Every schema ran on the JIT: nothing fell back, nothing found the region full.
    assert_eq!(stats.reader_fallbacks, 0, "{:?}", stats.last_fallback);
    assert_eq!(stats.writer_fallbacks, 0, "{:?}", stats.last_fallback);
    assert!(stats.readers_compiled >= SCHEMAS as u64);
    assert!(stats.writers_compiled >= SCHEMAS as u64);
    assert_eq!(stats.code.region_full, 0);
    assert_eq!(stats.code.os_refused, 0, "{:?}", stats.code.last_refusal);
    // Code is given back and its address space reused: what the region
    // holds is the writer cache's schemas (64 by default), not 3,000 schemas'.
    assert!(
        stats.code.segments_given_back - region_before.segments_given_back
            >= 2 * (SCHEMAS - WARM) as u64
    );
    assert!(
        stats.code.taken < 8 << 20,
        "{} bytes held",
        stats.code.taken
    );
    assert!(stats.code.span < 16 << 20, "span {} bytes", stats.code.span);
    assert_eq!(
        stats.writer_cache_len,
        jitson_arrow::writer_cache_capacity()
    );
    // About 29 KB per schema stayed resident before (43 MB here).
    assert!(
        growth < 8 << 20,
        "resident memory grew by {growth} bytes over {} schemas",
        SCHEMAS - WARM
    );
}
