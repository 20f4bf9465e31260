//! Issue 39: a full code region is never silent. With a 1 MiB region
//! (`JITSON_CODE_REGION=1`, read when the process first compiles), compiled
//! readers held by the test fill it; the compile that finds it full runs the
//! reclaimers, tries again, and then falls back to the interpreter (`Auto`)
//! or fails with the reason (`Jit`), every step counted in `stats()`. Dropped
//! readers give their pages back, so compiles fit again; and writers kept
//! only by the writer cache are dropped by the cache's reclaimer when a
//! compile needs their room, which then succeeds.
//!
//! One test in its own binary: it sets the environment before any compile.
#![cfg(feature = "jit")]

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use jitson_arrow::writer::{LineDelimited, WriterBuilder};
use jitson_arrow::{Backend, CompiledSchema, ReaderBuilder, stats};

/// Schema `n`: three Int64 columns named after it.
fn schema(n: usize) -> Arc<Schema> {
    Arc::new(Schema::new(
        (0..3)
            .map(|c| Field::new(format!("r{n}_{c}"), DataType::Int64, true))
            .collect::<Vec<_>>(),
    ))
}

fn reader(n: usize, backend: Backend) -> Result<CompiledSchema, arrow_schema::ArrowError> {
    ReaderBuilder::new(schema(n))
        .with_backend(backend)
        .compile()
}

/// Decodes one record of schema `n` with `compiled`: the values come back.
fn reads(compiled: &CompiledSchema, n: usize) {
    let mut decoder = compiled.decoder();
    let text = format!("{{\"r{n}_0\":1,\"r{n}_1\":null,\"r{n}_2\":-3}}\n");
    decoder.decode(text.as_bytes()).unwrap();
    let batch = decoder.flush().unwrap().unwrap();
    let first = batch
        .column(0)
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap();
    assert_eq!((batch.num_rows(), first.value(0)), (1, 1));
}

/// Writes a row of schema `n` with the JIT's writer.
fn write(n: usize) {
    let schema = schema(n);
    let column = Arc::new(Int64Array::from(vec![Some(n as i64)]));
    let batch = RecordBatch::try_new(schema, vec![column.clone(), column.clone(), column]).unwrap();
    let mut out = Vec::new();
    let mut writer = WriterBuilder::new()
        .with_backend(Backend::Jit)
        .build::<_, LineDelimited>(&mut out);
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
}

#[test]
fn a_full_region_is_reclaimed_retried_and_counted() {
    // SAFETY: the only test of this binary, before any jitson call: no other
    // thread reads or writes the environment.
    unsafe { std::env::set_var("JITSON_CODE_REGION", "1") };
    if !Backend::Jit.is_available() {
        return;
    }

    // Readers held fill the region; the first `Auto` compile that finds no
    // room (nothing to reclaim) falls back to the interpreter, with its reason.
    let mut held = Vec::new();
    while stats().reader_fallbacks == 0 {
        assert!(
            held.len() < 2_000,
            "a 1 MiB region held {} readers",
            held.len()
        );
        let n = held.len();
        held.push(reader(n, Backend::Auto).unwrap());
    }
    let full = stats();
    assert_eq!(full.code.reserved, 1 << 20);
    assert!(held.len() > 10, "{full:?}");
    assert!(
        full.code.region_full >= 1 && full.code.reclaim_retries >= 1,
        "{full:?}"
    );
    assert_eq!(full.code.reclaim_successes, 0, "{full:?}");
    assert!(full.last_fallback.is_some(), "{full:?}");
    let fallen = held.last().unwrap();
    assert!(!fallen.is_compiled());
    reads(fallen, held.len() - 1);
    // `Backend::Jit` asked for explicitly is an error that says why.
    let e = reader(held.len(), Backend::Jit).unwrap_err();
    assert!(e.to_string().contains("JIT unavailable"), "{e}");

    // Dropped, the readers' pages go back, and compiles fit again.
    held.clear();
    let after_drop = stats();
    assert!(after_drop.code.segments_given_back > full.code.segments_given_back);
    assert!(
        after_drop.code.taken < full.code.taken / 2,
        "{after_drop:?}"
    );
    let again = reader(5_000, Backend::Jit).unwrap();
    reads(&again, 5_000);
    drop(again);

    // Writers kept only by the writer cache fill the region; the compile that
    // finds it full has the cache drop them (its reclaimer) and succeeds.
    jitson_arrow::set_writer_cache_capacity(100_000);
    let mut n = 10_000;
    while stats().code.reclaim_successes == 0 {
        assert!(
            n < 12_000,
            "no reclaim after {} writers: {:?}",
            n - 10_000,
            stats()
        );
        write(n);
        n += 1;
    }
    let reclaimed = stats();
    assert_eq!(reclaimed.writer_fallbacks, 0, "{reclaimed:?}");
    assert!(reclaimed.writer_cache_evictions > 0, "{reclaimed:?}");
    assert!(
        reclaimed.writer_cache_len < (n - 10_000) / 2,
        "{reclaimed:?}"
    );
    // A schema pushed out and written again is compiled again, and counted.
    write(10_000);
    assert!(
        stats().writer_recompiles_after_eviction >= 1,
        "{:?}",
        stats()
    );
}
