//! Issue 39: compiled code is never freed while a thread may run it. Threads
//! compile readers and writers of the same and of different schemas, hand
//! readers to each other, decode with them (on their own and on rayon's
//! threads) and drop them, while the writer cache, kept tiny, evicts code
//! that writers still use. Every result is checked: code freed early would
//! fault (its pages are inaccessible) or run another module's code (its
//! address space is reused). Also run under valgrind (docs/hardening.md):
//! `JITSON_STRESS_ROUNDS` sets the rounds per thread (default 60).
#![cfg(feature = "jit")]

use std::sync::{Arc, Mutex};

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use jitson_arrow::writer::{LineDelimited, WriterBuilder};
use jitson_arrow::{Backend, CompiledSchema, ReaderBuilder};

/// Schema `n`: 2 to 6 nullable Int64 / Utf8 columns named after `n`; column 0
/// is always Int64.
fn schema(n: usize) -> Arc<Schema> {
    Arc::new(Schema::new(
        (0..2 + n % 5)
            .map(|c| {
                let ty = if c.is_multiple_of(2) {
                    DataType::Int64
                } else {
                    DataType::Utf8
                };
                Field::new(format!("t{n}_{c}"), ty, true)
            })
            .collect::<Vec<_>>(),
    ))
}

/// `rows` records of `schema`, column 0 holding the row number times `n`.
fn records(schema: &Schema, n: usize, rows: usize) -> String {
    let mut text = String::new();
    for row in 0..rows {
        let fields: Vec<String> = schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| match f.data_type() {
                DataType::Int64 if i == 0 => format!("\"{}\":{}", f.name(), row * n),
                DataType::Int64 => format!("\"{}\":{i}", f.name()),
                _ => format!("\"{}\":\"r{row}\"", f.name()),
            })
            .collect();
        text.push_str(&format!("{{{}}}\n", fields.join(",")));
    }
    text
}

/// Decodes `rows` records of schema `n` with `compiled` and checks column 0.
fn check_reader(compiled: &CompiledSchema, n: usize, rows: usize, parallel: bool) {
    let text = records(&schema(n), n, rows);
    let batches = if parallel {
        compiled.decode_parallel(text.as_bytes(), 256).unwrap()
    } else {
        let mut decoder = compiled.decoder();
        decoder.decode(text.as_bytes()).unwrap();
        decoder.flush().unwrap().into_iter().collect()
    };
    let mut row = 0;
    for batch in &batches {
        for value in batch.column(0).as_primitive::<Int64Type>().iter() {
            assert_eq!(value, Some((row * n) as i64), "schema {n} row {row}");
            row += 1;
        }
    }
    assert_eq!(row, rows);
}

/// Writes a batch of schema `n` on the JIT and checks the text.
fn check_writer(n: usize) {
    let schema = schema(n);
    let columns: Vec<ArrayRef> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| -> ArrayRef {
            match f.data_type() {
                DataType::Int64 => Arc::new(Int64Array::from(vec![Some((n + i) as i64), None])),
                _ => Arc::new(StringArray::from(vec![Some("x"), None])),
            }
        })
        .collect();
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    let mut out = Vec::new();
    let mut writer = WriterBuilder::new()
        .with_backend(Backend::Jit)
        .build::<_, LineDelimited>(&mut out);
    writer.write(&batch).unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
    drop(writer);
    let text = String::from_utf8(out).unwrap();
    let first = format!("{{\"t{n}_0\":{n}");
    assert_eq!(text.lines().count(), 4, "{text}");
    assert_eq!(
        text.lines().filter(|l| l.starts_with(&first)).count(),
        2,
        "{text}"
    );
}

#[test]
fn code_is_never_freed_while_a_thread_may_run_it() {
    let rounds: usize = std::env::var("JITSON_STRESS_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(60);
    const THREADS: usize = 4;
    // Schemas 0..SHARED are compiled by every thread; the rest by one.
    const SHARED: usize = 6;
    // Evictions of code writers are using, all the time.
    jitson_arrow::set_writer_cache_capacity(2);
    let handoff: Arc<Mutex<Vec<(usize, CompiledSchema)>>> = Arc::default();
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let handoff = handoff.clone();
            std::thread::spawn(move || {
                let mut held: Vec<(usize, CompiledSchema)> = Vec::new();
                for round in 0..rounds {
                    let n = if round.is_multiple_of(2) {
                        (round / 2 + t) % SHARED
                    } else {
                        SHARED + t * rounds + round
                    };
                    let compiled = ReaderBuilder::new(schema(n))
                        .with_backend(Backend::Jit)
                        .compile()
                        .unwrap();
                    assert!(compiled.is_compiled());
                    check_reader(&compiled, n, 3, false);
                    // Keep some, give some to another thread, drop the rest.
                    match round % 3 {
                        0 => held.push((n, compiled.clone())),
                        1 => handoff.lock().unwrap().push((n, compiled.clone())),
                        _ => {}
                    }
                    drop(compiled);
                    // Use (and so drop) what another thread handed over.
                    let taken = handoff.lock().unwrap().pop();
                    if let Some((m, other)) = taken {
                        check_reader(&other, m, 40, round % 4 == 1);
                    }
                    check_writer(n);
                    check_writer((n + 1) % SHARED);
                    if held.len() > 3 {
                        let (m, old) = held.remove(0);
                        check_reader(&old, m, 5, false);
                    }
                }
                for (m, compiled) in held {
                    check_reader(&compiled, m, 2, false);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    for (m, compiled) in handoff.lock().unwrap().drain(..) {
        check_reader(&compiled, m, 2, true);
    }
    jitson_arrow::set_writer_cache_capacity(jitson_arrow::WRITER_CACHE_CAPACITY);
    let stats = jitson_arrow::stats();
    assert_eq!(stats.reader_fallbacks + stats.writer_fallbacks, 0);
    assert!(stats.writer_cache_evictions > 0);
    assert!(stats.writer_recompiles_after_eviction > 0);
    assert!(stats.code.segments_given_back > 0);
    assert_eq!(stats.code.os_refused, 0, "{:?}", stats.code.last_refusal);
    eprintln!("{stats:#?}");
}
