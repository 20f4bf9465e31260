//! Issue 39's churn: one process meets many distinct run-time schemas (4 to 16
//! nullable Int64 / Utf8 columns, names of their own) and for each compiles a
//! reader (`Backend::Jit`, one record decoded) and a writer (`Backend::Jit`,
//! one 3-row batch written), then drops both. Prints resident memory
//! (`/proc/self/statm`) after 1,000 schemas and at the end, compile time per
//! schema, how many ran on the JIT, and the code region's figures.
//!
//! ```text
//! cargo run --release -p jitson-arrow --example churn [schemas, default 100000]
//! ```
//!
//! The DataFusion half of the issue's churn, 10,000 external tables created,
//! queried and dropped in one session, is jitson-datafusion's `table_churn`
//! example.

use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use jitson_arrow::writer::{LineDelimited, WriterBuilder};
use jitson_arrow::{Backend, ReaderBuilder};

fn schema(n: usize) -> Arc<Schema> {
    Arc::new(Schema::new(
        (0..4 + n % 13)
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

fn resident_mb() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0.0);
    pages * 4096.0 / 1e6
}

/// Wall time of the reader's and the writer's compile (the writer's: its
/// first `write`, which compiles its rows).
fn churn_one(n: usize, on_jit: &mut usize) -> (Duration, Duration) {
    let schema = schema(n);
    let started = Instant::now();
    let compiled = ReaderBuilder::new(schema.clone())
        .with_backend(Backend::Jit)
        .compile()
        .expect("reader");
    let reader_time = started.elapsed();
    let mut decoder = compiled.decoder();
    decoder.decode(record(&schema).as_bytes()).unwrap();
    assert_eq!(decoder.flush().unwrap().unwrap().num_rows(), 1);
    let jit = compiled.is_compiled();
    drop((decoder, compiled));
    let batch = batch(&schema);
    let mut out = Vec::new();
    let mut writer = WriterBuilder::new()
        .with_backend(Backend::Jit)
        .build::<_, LineDelimited>(&mut out);
    let started = Instant::now();
    writer.write(&batch).expect("writer");
    let writer_time = started.elapsed();
    writer.finish().unwrap();
    drop(writer);
    if jit {
        *on_jit += 1;
    }
    (reader_time, writer_time)
}

fn main() {
    let schemas: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    println!("start: resident {:.1} MB", resident_mb());
    let started = Instant::now();
    let (mut reader_total, mut writer_total, mut on_jit) = (Duration::ZERO, Duration::ZERO, 0);
    let mut at_1000 = None;
    for n in 0..schemas {
        let (r, w) = churn_one(n, &mut on_jit);
        reader_total += r;
        writer_total += w;
        if n + 1 == 1_000 || (n + 1) % 10_000 == 0 {
            let rss = resident_mb();
            if n + 1 == 1_000 {
                at_1000 = Some(rss);
            }
            let code = jitson_arrow::stats().code;
            println!(
                "{:>7} schemas: resident {rss:.1} MB, code held {} KB, region span {} KB, {:.1} s",
                n + 1,
                code.taken / 1024,
                code.span / 1024,
                started.elapsed().as_secs_f64()
            );
        }
    }
    let end = resident_mb();
    let stats = jitson_arrow::stats();
    println!(
        "{schemas} schemas in {:.1} s: resident after 1,000 {:.1} MB, at the end {end:.1} MB \
         (growth {:+.1} MB)",
        started.elapsed().as_secs_f64(),
        at_1000.unwrap_or(end),
        end - at_1000.unwrap_or(end),
    );
    let per = |d: Duration| d.as_secs_f64() * 1e3 / schemas as f64;
    println!(
        "compile per schema: reader {:.3} ms, writer {:.3} ms (wall, from the caller)",
        per(reader_total),
        per(writer_total)
    );
    println!(
        "on the JIT: readers {on_jit} of {schemas}; writers compiled {}, fallbacks {} \
         (readers {}); region full {}, OS refused {}",
        stats.writers_compiled,
        stats.writer_fallbacks,
        stats.reader_fallbacks,
        stats.code.region_full,
        stats.code.os_refused,
    );
    println!("{:#?}", stats.code);
}
