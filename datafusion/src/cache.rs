//! Compiled schemas shared by every opener, partition and query of a process.
//!
//! DataFusion makes a file opener per partition per execution, so a compiled
//! decoder kept in the opener would be compiled again for every query. The
//! schemas live here instead, keyed by the projected schema and the reader's
//! options, the most recently used first; at most [`capacity`] are kept
//! ([`CAPACITY`] unless [`set_capacity`] says otherwise), and a schema pushed
//! out is freed (its machine code with it: its pages go back to the OS and
//! its address space to later compiles) once the last decoder made from it
//! is dropped — a partition decoding holds its decoder, so code is never
//! freed under a decode in flight. When the code region is full, the entries
//! no decoder holds are dropped and the compile tried again
//! (`jitson_arrow::register_code_reclaimer`).

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use arrow::datatypes::SchemaRef;
use datafusion::common::Result;
use jitson_arrow::{CompiledSchema, ReaderBuilder};

/// How many compiled schemas are kept by default.
pub const CAPACITY: usize = 64;

static BOUND: AtomicUsize = AtomicUsize::new(CAPACITY);

/// How many compiled schemas the cache keeps.
pub fn capacity() -> usize {
    BOUND.load(Ordering::Relaxed)
}

/// Sets how many compiled schemas the cache keeps (`0`: none, every opener
/// compiles its own); a smaller bound evicts the excess at once.
pub fn set_capacity(capacity: usize) {
    BOUND.store(capacity, Ordering::Relaxed);
    let out = evict(&mut lock(), |i, _| i >= capacity);
    drop(out);
}

/// What, besides the schema, a compiled schema depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ReaderOptions {
    pub batch_size: usize,
    /// `ReaderBuilder::with_validate_skipped`.
    pub validate_skipped: bool,
}

/// A file's first record, for `ReaderBuilder::with_example_record`, and its
/// shape (the keys of its objects in order, with their nesting): two records
/// of the same shape teach the same key orders, so the shape stands for the
/// record in the cache's key.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Example<'a> {
    pub record: &'a [u8],
    pub shape: &'a str,
}

/// The projected schema, the records' keys in their order
/// (`ReaderBuilder::with_record_keys`) and the shape of the example record
/// (empty without one), the options, and the compiled schema.
type Entry = (
    SchemaRef,
    (Vec<String>, String),
    ReaderOptions,
    CompiledSchema,
);

static CACHE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// Hashes of the schemas pushed out (the last 16,384), to count recompiles.
static EVICTED: Mutex<Option<HashSet<u64>>> = Mutex::new(None);

static COMPILES: AtomicU64 = AtomicU64::new(0);
static EVICTIONS: AtomicU64 = AtomicU64::new(0);
static RECOMPILES: AtomicU64 = AtomicU64::new(0);

fn lock() -> std::sync::MutexGuard<'static, Vec<Entry>> {
    CACHE.lock().unwrap_or_else(|e| e.into_inner())
}

fn key_hash(schema: &SchemaRef, order: &(Vec<String>, String), options: ReaderOptions) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one((schema.as_ref(), order, options))
}

/// Removes the entries `out(index, entry)` picks, remembering them as
/// evicted; returned, to be dropped once the cache's lock is released.
fn evict(cache: &mut Vec<Entry>, out: impl Fn(usize, &Entry) -> bool) -> Vec<Entry> {
    let mut kept = Vec::with_capacity(cache.len());
    let mut gone = Vec::new();
    for (i, entry) in std::mem::take(cache).into_iter().enumerate() {
        if out(i, &entry) {
            gone.push(entry);
        } else {
            kept.push(entry);
        }
    }
    *cache = kept;
    if !gone.is_empty() {
        EVICTIONS.fetch_add(gone.len() as u64, Ordering::Relaxed);
        let mut evicted = EVICTED.lock().unwrap_or_else(|e| e.into_inner());
        let evicted = evicted.get_or_insert_with(HashSet::new);
        if evicted.len() + gone.len() > 16_384 {
            evicted.clear();
        }
        evicted.extend(gone.iter().map(|(s, f, o, _)| key_hash(s, f, *o)));
    }
    gone
}

/// The code region's reclaimer: drops the entries no decoder holds.
fn reclaim() -> bool {
    let gone = evict(&mut lock(), |_, (_, _, _, compiled)| {
        compiled.holders() == 1
    });
    !gone.is_empty()
}

/// What the cache has done since the process started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheStats {
    /// Schemas compiled (cache misses).
    pub compiles: u64,
    /// Schemas pushed out (by the bound, or to make room for code).
    pub evictions: u64,
    /// Schemas compiled again after being pushed out.
    pub recompiles_after_eviction: u64,
    /// Schemas held now.
    pub len: usize,
    /// The bound ([`capacity`]).
    pub capacity: usize,
}

/// A snapshot of the cache's [`CacheStats`].
pub fn cache_stats() -> CacheStats {
    CacheStats {
        compiles: COMPILES.load(Ordering::Relaxed),
        evictions: EVICTIONS.load(Ordering::Relaxed),
        recompiles_after_eviction: RECOMPILES.load(Ordering::Relaxed),
        len: lock().len(),
        capacity: capacity(),
    }
}

/// The compiled schema for `schema` (a projection of the records' `keys`, in
/// their order) read with `options`, speculating on the key orders of
/// `example` where given, compiled on first use.
pub(crate) fn compiled(
    schema: &SchemaRef,
    keys: &[String],
    example: Option<Example<'_>>,
    options: ReaderOptions,
) -> Result<CompiledSchema> {
    let shape = example.map_or("", |e| e.shape);
    let same = |(s, (k, e), o, _): &Entry| {
        *o == options
            && (Arc::ptr_eq(s, schema) || s == schema)
            && k.as_slice() == keys
            && e == shape
    };
    {
        let mut cache = lock();
        if let Some(i) = cache.iter().position(same) {
            let entry = cache.remove(i);
            let compiled = entry.3.clone();
            cache.insert(0, entry);
            return Ok(compiled);
        }
    }
    // Compiled outside the lock: two threads may both compile a new schema; the
    // second to finish finds the first's and uses it.
    jitson_arrow::register_code_reclaimer(reclaim);
    let mut builder = ReaderBuilder::new(Arc::clone(schema))
        .with_batch_size(options.batch_size)
        .with_validate_skipped(options.validate_skipped)
        .with_record_keys(keys.iter().map(String::as_str));
    if let Some(example) = example {
        builder = builder.with_example_record(example.record);
    }
    let compiled = builder.compile()?;
    COMPILES.fetch_add(1, Ordering::Relaxed);
    let gone = {
        let mut cache = lock();
        if let Some(i) = cache.iter().position(same) {
            return Ok(cache[i].3.clone());
        }
        let order = (keys.to_vec(), shape.to_owned());
        let hash = key_hash(schema, &order, options);
        let mut evicted = EVICTED.lock().unwrap_or_else(|e| e.into_inner());
        if evicted.as_mut().is_some_and(|e| e.remove(&hash)) {
            RECOMPILES.fetch_add(1, Ordering::Relaxed);
        }
        drop(evicted);
        let capacity = capacity();
        if capacity > 0 {
            cache.insert(0, (Arc::clone(schema), order, options, compiled.clone()));
        }
        evict(&mut cache, |i, _| i >= capacity)
    };
    drop(gone);
    Ok(compiled)
}

/// How many compiled schemas the cache holds.
pub fn cached_schemas() -> usize {
    lock().len()
}
