//! Compiled schemas shared by every opener, partition and query of a process.
//!
//! DataFusion makes a file opener per partition per execution, so a compiled
//! decoder kept in the opener would be compiled again for every query. The
//! schemas live here instead, keyed by the projected schema and the reader's
//! options, the most recently used first; at most [`CAPACITY`] are kept, and a
//! schema pushed out is freed (its machine code with it) once the last decoder
//! made from it is dropped.

use std::sync::{Arc, Mutex};

use arrow::datatypes::SchemaRef;
use datafusion::common::Result;
use jitson_arrow::{CompiledSchema, ReaderBuilder};

/// How many compiled schemas are kept.
pub const CAPACITY: usize = 64;

/// What, besides the schema, a compiled schema depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ReaderOptions {
    pub batch_size: usize,
}

type Entry = (SchemaRef, ReaderOptions, CompiledSchema);

static CACHE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// The compiled schema for `schema` read with `options`, compiled on first use.
pub(crate) fn compiled(schema: &SchemaRef, options: ReaderOptions) -> Result<CompiledSchema> {
    let same = |(s, o, _): &Entry| *o == options && (Arc::ptr_eq(s, schema) || s == schema);
    {
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = cache.iter().position(same) {
            let entry = cache.remove(i);
            let compiled = entry.2.clone();
            cache.insert(0, entry);
            return Ok(compiled);
        }
    }
    // Compiled outside the lock: two threads may both compile a new schema; the
    // second to finish finds the first's and uses it.
    let compiled = ReaderBuilder::new(Arc::clone(schema))
        .with_batch_size(options.batch_size)
        .compile()?;
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = cache.iter().position(same) {
        return Ok(cache[i].2.clone());
    }
    cache.insert(0, (Arc::clone(schema), options, compiled.clone()));
    cache.truncate(CAPACITY);
    Ok(compiled)
}

/// How many compiled schemas the cache holds.
pub fn cached_schemas() -> usize {
    CACHE.lock().unwrap_or_else(|e| e.into_inner()).len()
}
