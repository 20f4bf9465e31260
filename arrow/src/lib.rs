//! jitson-arrow: NDJSON into Arrow [`RecordBatch`]es through run-time schemas.
//!
//! The schema (an Arrow [`Schema`](arrow_schema::Schema)) is known only at run
//! time. [`ReaderBuilder::compile`] lowers it once to jitson's layout model —
//! each field a column layout over the value kind jitson decodes derived types
//! with — and, where the JIT runs, compiles it to native code that appends each
//! value to its column: no row structs, no tape, no `Value` in between. The
//! interpreter decodes the same layouts with the same results.
//!
//! The API is arrow-json's ([`ReaderBuilder`], [`Decoder::decode`] /
//! [`Decoder::flush`], [`Reader`]), plus [`CompiledSchema::decode_parallel`],
//! which splits NDJSON at line boundaries and decodes on every core. Errors are
//! [`RecordError`]s: record number, line, byte offset, JSON path, column and its
//! Arrow type. See `docs/arrow.md` for the type mapping and the differences from
//! arrow-json.
//!
//! [`writer`] goes the other way: batches out as NDJSON or a JSON array, with
//! arrow-json's writer API and bytes, on one core or every core.

#[cfg(feature = "jit")]
mod backend;
mod infer;
mod parse;
mod plan;
mod reader;
mod serialize;
mod stats;
pub mod writer;

use std::sync::Arc;

pub use arrow_array::RecordBatch;
pub use infer::{infer_schema, infer_schema_ref};
pub use plan::MAX_COLUMNS;
pub use reader::{Backend, Decoder, Reader, ReaderBuilder, RecordError};
pub use stats::{
    Stats, WRITER_CACHE_CAPACITY, register_code_reclaimer, set_writer_cache_capacity, stats,
    writer_cache_capacity,
};

/// How structs (and rows) are read and written, as arrow-json's `StructMode`
/// (`ReaderBuilder::with_struct_mode`, `WriterBuilder::with_struct_mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StructMode {
    /// Objects: `{"a":1,"b":"x"}` (the default).
    #[default]
    ObjectOnly,
    /// Arrays of the field values in field order: `[1,"x"]`. The writer
    /// always writes nulls in them; the reader requires exactly one value per
    /// field (`null` for a null), as arrow-json does.
    ListOnly,
}

/// A schema lowered (and, on the JIT, compiled) once, from which any number of
/// decoders are made, on any threads. Cloning shares it; the layouts and the
/// machine code are freed when the last clone and the last decoder made from it
/// are dropped.
#[derive(Clone)]
pub struct CompiledSchema {
    plan: Arc<plan::Plan>,
    batch_size: usize,
}

impl std::fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledSchema")
            .field("schema", &self.plan.schema)
            .field("jit", &self.is_compiled())
            .finish()
    }
}

impl CompiledSchema {
    /// Whether records are decoded by generated code (otherwise the interpreter).
    pub fn is_compiled(&self) -> bool {
        #[cfg(feature = "jit")]
        return self.plan.jit.is_some();
        #[cfg(not(feature = "jit"))]
        false
    }

    /// Bytes of machine code and the compile's wall time, when compiled.
    pub fn compile_stats(&self) -> Option<(usize, std::time::Duration)> {
        #[cfg(feature = "jit")]
        return self
            .plan
            .jit
            .as_ref()
            .map(|j| (j.code_bytes(), j.compile_time()));
        #[cfg(not(feature = "jit"))]
        None
    }

    /// How many handles share this compiled schema's code: its clones and the
    /// decoders made from them (a cache holding the only one may drop it).
    pub fn holders(&self) -> usize {
        Arc::strong_count(&self.plan)
    }

    /// Decodes all of `input` (NDJSON: one record per line) on every core (rayon's
    /// pool): cut at newlines into chunks of about `chunk_bytes`, each decoded
    /// into batches of the batch size; batches come back in input order. The
    /// rows or the error never depend on where the chunks are cut: input whose
    /// records span lines (or that fails) is decoded again in one piece, and
    /// gives what [`Decoder`] gives on the whole stream.
    pub fn decode_parallel(
        &self,
        input: &[u8],
        chunk_bytes: usize,
    ) -> Result<Vec<RecordBatch>, arrow_schema::ArrowError> {
        reader::decode_parallel(self, input, chunk_bytes)
    }
}
