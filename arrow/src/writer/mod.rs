//! Arrow [`RecordBatch`]es out as JSON: arrow-json's writer API and bytes.
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Int32Array, RecordBatch, StringArray};
//! use arrow_schema::{DataType, Field, Schema};
//! use jitson_arrow::writer::LineDelimitedWriter;
//!
//! let schema = Arc::new(Schema::new(vec![
//!     Field::new("id", DataType::Int32, false),
//!     Field::new("name", DataType::Utf8, true),
//! ]));
//! let batch = RecordBatch::try_new(schema, vec![
//!     Arc::new(Int32Array::from(vec![1, 2])),
//!     Arc::new(StringArray::from(vec![Some("a"), None])),
//! ]).unwrap();
//! let mut writer = LineDelimitedWriter::new(Vec::new());
//! writer.write(&batch).unwrap();
//! writer.finish().unwrap();
//! assert_eq!(writer.into_inner(), b"{\"id\":1,\"name\":\"a\"}\n{\"id\":2}\n");
//! ```
//!
//! A program using `arrow_json::writer` changes its `use` line: the builder
//! (`with_explicit_nulls`, `with_struct_mode`, the date/time/timestamp
//! formats), `Writer<W, F>` over [`LineDelimited`] or [`JsonArray`],
//! [`LineDelimitedWriter`], [`ArrayWriter`] and the bytes written are
//! arrow-json 59's. Not provided: `with_encoder_factory` (custom encoders).
//!
//! The schema is lowered once (per schema and options, cached by the writer)
//! to a plan of per-column encoders chosen from the `DataType`; each batch
//! only binds them to its arrays. Where the JIT runs, the record's row loop
//! is compiled too (`compiled.rs`): integer, boolean, Utf8, float, date and
//! timestamp columns, and structs and lists of them, are read and written by
//! generated code, the others by their encoders, called from it.
//! [`Writer::write_batches_parallel`] formats batches on every core and
//! writes them in order.

#[cfg(feature = "jit")]
mod compiled;
#[cfg(feature = "jit")]
pub(crate) use compiled::{cache_len, trim_cache};
mod nested;
mod number;
mod plan;
mod temporal;
mod text;

use std::io::Write;
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchWriter};
use arrow_schema::{ArrowError, SchemaRef};

use plan::{Encode, Plan};

pub use crate::StructMode;

/// The writer's options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Options {
    /// Who writes the rows: compiled code (`Auto`, `Jit`) or the plan's
    /// encoders alone (`Interpreter`); the bytes are the same.
    pub backend: crate::Backend,
    pub explicit_nulls: bool,
    pub struct_mode: StructMode,
    pub date_format: Option<Arc<str>>,
    pub datetime_format: Option<Arc<str>>,
    pub timestamp_format: Option<Arc<str>>,
    pub timestamp_tz_format: Option<Arc<str>>,
    pub time_format: Option<Arc<str>>,
}

/// The framing of a stream of rows: NDJSON ([`LineDelimited`]) or one JSON
/// array ([`JsonArray`]).
pub trait JsonFormat: std::fmt::Debug + Default + Send + Sync {
    /// Bytes before the first row (also written by `finish` with no rows).
    const START: &'static [u8];
    /// Bytes between two rows.
    const BETWEEN: &'static [u8];
    /// Bytes after every row.
    const AFTER_ROW: &'static [u8];
    /// Bytes `finish` writes at the end.
    const END: &'static [u8];
}

/// One JSON object per line, each followed by `\n`.
#[derive(Debug, Default, Clone, Copy)]
pub struct LineDelimited {}

impl JsonFormat for LineDelimited {
    const START: &'static [u8] = b"";
    const BETWEEN: &'static [u8] = b"";
    const AFTER_ROW: &'static [u8] = b"\n";
    const END: &'static [u8] = b"";
}

/// One JSON array of objects: `[{…},{…}]`, no whitespace.
#[derive(Debug, Default, Clone, Copy)]
pub struct JsonArray {}

impl JsonFormat for JsonArray {
    const START: &'static [u8] = b"[";
    const BETWEEN: &'static [u8] = b",";
    const AFTER_ROW: &'static [u8] = b"";
    const END: &'static [u8] = b"]";
}

/// NDJSON: one object per line.
pub type LineDelimitedWriter<W> = Writer<W, LineDelimited>;

/// One JSON array of objects.
pub type ArrayWriter<W> = Writer<W, JsonArray>;

/// Configures a [`Writer`], as arrow-json's `WriterBuilder`.
#[derive(Clone, Debug, Default)]
pub struct WriterBuilder(Options);

impl WriterBuilder {
    /// Nulls left out, structs as objects, the default temporal formats.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether null struct fields and map values are written as `null`.
    pub fn explicit_nulls(&self) -> bool {
        self.0.explicit_nulls
    }

    /// Writes null struct fields and map values as `null` instead of leaving
    /// them out (list elements are always written).
    pub fn with_explicit_nulls(mut self, explicit_nulls: bool) -> Self {
        self.0.explicit_nulls = explicit_nulls;
        self
    }

    /// How structs (and rows) are written.
    pub fn struct_mode(&self) -> StructMode {
        self.0.struct_mode
    }

    /// Writes structs (and rows) as objects or as arrays of their values.
    pub fn with_struct_mode(mut self, struct_mode: StructMode) -> Self {
        self.0.struct_mode = struct_mode;
        self
    }

    /// A strftime format for Date32.
    pub fn with_date_format(mut self, format: String) -> Self {
        self.0.date_format = Some(format.into());
        self
    }

    /// A strftime format for Date64.
    pub fn with_datetime_format(mut self, format: String) -> Self {
        self.0.datetime_format = Some(format.into());
        self
    }

    /// A strftime format for Time32 and Time64.
    pub fn with_time_format(mut self, format: String) -> Self {
        self.0.time_format = Some(format.into());
        self
    }

    /// A strftime format for timestamps without a zone.
    pub fn with_timestamp_format(mut self, format: String) -> Self {
        self.0.timestamp_format = Some(format.into());
        self
    }

    /// A strftime format for timestamps with a zone.
    pub fn with_timestamp_tz_format(mut self, tz_format: String) -> Self {
        self.0.timestamp_tz_format = Some(tz_format.into());
        self
    }

    /// Who writes the rows (default [`Backend::Auto`](crate::Backend::Auto)):
    /// the row loop compiled per schema, which reads integer, boolean, Utf8,
    /// float, date and timestamp columns, and structs and lists of them,
    /// itself and calls the plan's encoders for the others, or
    /// (`Interpreter`) the plan's encoders alone. The bytes are the same.
    /// `Jit` makes `write` fail where the JIT cannot run (or
    /// `JITSON_DISABLE_JIT` is set); `Auto` then uses the encoders alone.
    pub fn with_backend(mut self, backend: crate::Backend) -> Self {
        self.0.backend = backend;
        self
    }

    /// A writer of format `F` over `writer`.
    pub fn build<W: Write, F: JsonFormat>(self, writer: W) -> Writer<W, F> {
        Writer {
            writer,
            started: false,
            finished: false,
            format: F::default(),
            options: self.0,
            plan: None,
            buffer: Vec::new(),
        }
    }
}

/// Writes record batches as JSON to `W`, framed by `F`.
#[derive(Debug)]
pub struct Writer<W: Write, F: JsonFormat> {
    writer: W,
    /// The stream's start is written (or at least one row was).
    started: bool,
    finished: bool,
    #[allow(dead_code)]
    format: F,
    options: Options,
    /// The plan of the last schema written, and its compiled rows.
    plan: Option<(SchemaRef, Arc<Lowered>)>,
    /// Formatted rows not yet handed to `writer`.
    buffer: Vec<u8>,
}

impl std::fmt::Debug for Lowered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = f.debug_struct("Lowered");
        s.field("fields", &self.plan.children.len());
        #[cfg(feature = "jit")]
        s.field("compiled", &self.compiled.is_some());
        s.finish()
    }
}

/// A schema lowered for writing: its plan, and, where the JIT runs, its
/// compiled row loop.
struct Lowered {
    plan: Plan,
    #[cfg(feature = "jit")]
    compiled: Option<Arc<compiled::Compiled>>,
}

impl Lowered {
    // The format shapes the compiled row loop; the interpreter takes it per
    // batch (`format`).
    #[cfg_attr(not(feature = "jit"), allow(clippy::extra_unused_type_parameters))]
    fn new<F: JsonFormat>(schema: &SchemaRef, options: &Options) -> Result<Lowered, ArrowError> {
        let plan = plan::compile_struct(schema.fields(), "", options)?;
        #[cfg(feature = "jit")]
        let compiled = compiled::Compiled::for_schema::<F>(schema, &plan, options)?;
        #[cfg(not(feature = "jit"))]
        if options.backend == crate::Backend::Jit {
            return Err(ArrowError::NotYetImplemented(
                "jitson-arrow was built without the `jit` feature".into(),
            ));
        }
        Ok(Lowered {
            plan,
            #[cfg(feature = "jit")]
            compiled,
        })
    }

    /// Formats rows `rows` of `batch` onto `out` (see [`format_batch`]).
    fn format<F: JsonFormat>(
        &self,
        batch: &RecordBatch,
        rows: std::ops::Range<usize>,
        first_in_stream: bool,
        out: &mut Vec<u8>,
        flush: impl FnMut(&mut Vec<u8>) -> Result<(), ArrowError>,
    ) -> Result<(), ArrowError> {
        #[cfg(feature = "jit")]
        if let Some(compiled) = &self.compiled {
            return compiled.format_batch(&self.plan, batch, rows, first_in_stream, out, flush);
        }
        format_batch::<F>(&self.plan, batch, rows, first_in_stream, out, flush)
    }
}

/// Bytes collected before they are written to the sink.
const FLUSH_AT: usize = 64 * 1024;

/// Rows of one batch formatted by one task of the parallel write.
const ROWS_PER_TASK: usize = 256;

/// Formats the rows of `batch` onto `out`, with the separator before the
/// first row unless it is the stream's first.
fn format_batch<F: JsonFormat>(
    plan: &Plan,
    batch: &RecordBatch,
    rows: std::ops::Range<usize>,
    first_in_stream: bool,
    out: &mut Vec<u8>,
    mut flush: impl FnMut(&mut Vec<u8>) -> Result<(), ArrowError>,
) -> Result<(), ArrowError> {
    let root = nested::Struct::new(plan, batch.columns())?;
    let first_row = rows.start;
    for row in rows {
        if row > first_row || !first_in_stream {
            out.extend_from_slice(F::BETWEEN);
        }
        root.encode(row, out);
        out.extend_from_slice(F::AFTER_ROW);
        if out.len() >= FLUSH_AT {
            flush(out)?;
        }
    }
    Ok(())
}

impl<W: Write, F: JsonFormat> Writer<W, F> {
    /// A writer with the default options.
    pub fn new(writer: W) -> Self {
        WriterBuilder::new().build(writer)
    }

    /// The plan for `schema`, lowered (and compiled) once and kept while
    /// batches share it.
    fn plan_for(&mut self, schema: &SchemaRef) -> Result<Arc<Lowered>, ArrowError> {
        if let Some((cached, plan)) = &self.plan
            && (Arc::ptr_eq(cached, schema) || cached == schema)
        {
            return Ok(plan.clone());
        }
        let plan = Arc::new(Lowered::new::<F>(schema, &self.options)?);
        self.plan = Some((schema.clone(), plan.clone()));
        Ok(plan)
    }

    /// Writes the rows of `batch` (a batch without rows writes nothing).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), ArrowError> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let plan = self.plan_for(&written_schema(batch))?;
        let first = !self.started;
        let mut out = std::mem::take(&mut self.buffer);
        out.clear();
        if first {
            out.extend_from_slice(F::START);
            self.started = true;
        }
        let writer = &mut self.writer;
        let rows = 0..batch.num_rows();
        let result = plan
            .format::<F>(batch, rows, first, &mut out, |out| {
                writer.write_all(out)?;
                out.clear();
                Ok(())
            })
            .and_then(|()| Ok(writer.write_all(&out)?));
        out.clear();
        self.buffer = out;
        result
    }

    /// Writes each batch in turn.
    pub fn write_batches(&mut self, batches: &[&RecordBatch]) -> Result<(), ArrowError> {
        for batch in batches {
            self.write(batch)?;
        }
        Ok(())
    }

    /// Formats `batches` on every core (`std::thread::available_parallelism`
    /// threads) and writes them to the sink in order: the same bytes as
    /// [`write_batches`](Self::write_batches). Work is cut into tasks of at
    /// most 256 rows of one batch, formatted on spawned threads and on the
    /// calling thread (which also writes them, in order); at most two tasks
    /// per thread are formatted ahead of the one being written, and their
    /// buffers are reused, so memory stays within a few batches' output.
    pub fn write_batches_parallel(&mut self, batches: &[&RecordBatch]) -> Result<(), ArrowError> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.write_batches_with_threads(batches, threads)
    }

    /// [`write_batches_parallel`](Self::write_batches_parallel) on `threads`
    /// threads (1 formats on the calling thread).
    pub fn write_batches_with_threads(
        &mut self,
        batches: &[&RecordBatch],
        threads: usize,
    ) -> Result<(), ArrowError> {
        let batches: Vec<&RecordBatch> = batches
            .iter()
            .copied()
            .filter(|b| b.num_rows() > 0)
            .collect();
        if threads <= 1 {
            return self.write_batches(&batches);
        }
        let mut plans = Vec::with_capacity(batches.len());
        for batch in &batches {
            match self.plan_for(&written_schema(batch)) {
                Ok(plan) => plans.push(plan),
                Err(e) => {
                    // As `write_batches`: the batches before the refused
                    // one are written, then its error returned.
                    let written = plans.len();
                    drop(plans);
                    self.write_batches_with_threads(&batches[..written], threads)?;
                    return Err(e);
                }
            }
        }
        // Tasks of at most ROWS_PER_TASK rows of one batch: their output
        // stays in cache on its way to the sink.
        let tasks: Vec<(usize, std::ops::Range<usize>)> = batches
            .iter()
            .enumerate()
            .flat_map(|(i, b)| {
                (0..b.num_rows())
                    .step_by(ROWS_PER_TASK)
                    .map(move |start| (i, start..(start + ROWS_PER_TASK).min(b.num_rows())))
            })
            .collect();
        if tasks.len() <= 1 {
            return self.write_batches(&batches);
        }
        let first_in_stream = !self.started;
        let window = threads * 2;
        let writer = &mut self.writer;
        let started = &mut self.started;
        parallel::run(
            tasks.len(),
            threads,
            window,
            |index, out| {
                let first = first_in_stream && index == 0;
                if first {
                    out.extend_from_slice(F::START);
                }
                let (batch, rows) = &tasks[index];
                let (plan, batch) = (&plans[*batch], batches[*batch]);
                plan.format::<F>(batch, rows.clone(), first, out, |_| Ok(()))
            },
            |out| {
                writer.write_all(out)?;
                *started = true;
                Ok(())
            },
        )
    }

    /// Ends the stream (the closing `]` of an array; `[]` if no row was
    /// written). Writing after `finish` is not meaningful, as in arrow-json.
    pub fn finish(&mut self) -> Result<(), ArrowError> {
        if !self.started {
            self.writer.write_all(F::START)?;
            self.started = true;
        }
        if !self.finished {
            self.writer.write_all(F::END)?;
            self.finished = true;
        }
        Ok(())
    }

    /// The sink.
    pub fn get_ref(&self) -> &W {
        &self.writer
    }

    /// The sink, mutably (writing to it directly interleaves with the rows).
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.writer
    }

    /// The sink, without finishing the stream.
    pub fn into_inner(self) -> W {
        self.writer
    }
}

impl<W: Write, F: JsonFormat> RecordBatchWriter for Writer<W, F> {
    fn write(&mut self, batch: &RecordBatch) -> Result<(), ArrowError> {
        Writer::write(self, batch)
    }

    fn close(mut self) -> Result<(), ArrowError> {
        self.finish()
    }
}

/// The schema `batch` is written by: its own, unless a column's type differs
/// from its field's (a struct's children named otherwise, which
/// `RecordBatchOptions::with_match_field_names(false)` lets through). Then,
/// as arrow-json does, the columns' own types give the nested keys, and the
/// schema the top-level ones.
fn written_schema(batch: &RecordBatch) -> SchemaRef {
    let schema = batch.schema();
    let same = schema
        .fields()
        .iter()
        .zip(batch.columns())
        .all(|(field, column)| field.data_type() == column.data_type());
    if same {
        return schema;
    }
    let fields: Vec<arrow_schema::Field> = schema
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(field, column)| {
            field
                .as_ref()
                .clone()
                .with_data_type(column.data_type().clone())
        })
        .collect();
    Arc::new(arrow_schema::Schema::new_with_metadata(
        fields,
        schema.metadata().clone(),
    ))
}

mod parallel {
    //! Batches formatted on worker threads, written in order by the caller.

    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::mpsc;
    use std::sync::{Condvar, Mutex};

    use arrow_schema::ArrowError;

    /// Which batch is claimed next and how many are written.
    struct Progress {
        next: usize,
        written: usize,
    }

    impl Progress {
        /// The next item to format, if one may be claimed now: the items are
        /// claimed in order, at most `window` ahead of the last one written.
        fn claim(&mut self, count: usize, window: usize) -> Option<usize> {
            (self.next < count && self.next < self.written + window).then(|| {
                self.next += 1;
                self.next - 1
            })
        }
    }

    /// Why an item was not formatted.
    enum Failure {
        Error(ArrowError),
        /// A panic while formatting, resumed on the caller's thread.
        Panic(Box<dyn std::any::Any + Send>),
    }

    /// Sets `stop` and wakes every waiting worker when dropped: when the
    /// run ends, and when the caller unwinds (a panicking sink), so that no
    /// worker waits for a turn that never comes while the scope joins it.
    struct StopOnDrop<'a> {
        progress: &'a Mutex<Progress>,
        turn: &'a Condvar,
        stop: &'a AtomicBool,
    }

    impl Drop for StopOnDrop<'_> {
        fn drop(&mut self) {
            {
                // Under the lock, so no worker misses the wake-up.
                let _p = self.progress.lock().unwrap_or_else(|e| e.into_inner());
                self.stop.store(true, Ordering::Relaxed);
            }
            self.turn.notify_all();
        }
    }

    /// Formats items `0..count` with `format` on `threads` threads (the
    /// caller's among them), at most `window` ahead of the last one written,
    /// and hands each to `write` in order, on the caller's thread. The first
    /// error (formatting or writing) stops the run; nothing after the failing
    /// item is written. A panic in `format`, on any thread, stops it the same
    /// way and is resumed on the caller's thread once the workers are joined
    /// (a worker's panic left its item unsent, and the caller waited for it
    /// for ever).
    pub(super) fn run(
        count: usize,
        threads: usize,
        window: usize,
        format: impl Fn(usize, &mut Vec<u8>) -> Result<(), ArrowError> + Sync,
        mut write: impl FnMut(&[u8]) -> Result<(), ArrowError>,
    ) -> Result<(), ArrowError> {
        let progress = Mutex::new(Progress {
            next: 0,
            written: 0,
        });
        let turn = Condvar::new();
        // Output buffers handed back after writing (at most `window` + threads).
        let pool: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
        let stop = AtomicBool::new(false);
        let (done, results) = mpsc::channel::<(usize, Result<Vec<u8>, Failure>)>();
        // One item formatted into a buffer written before, when there is one:
        // no regrowing, no fresh pages.
        let format_one = |index: usize| {
            let reused = pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
            let mut out = reused.unwrap_or_default();
            out.clear();
            let formatted =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| format(index, &mut out)));
            match formatted {
                Ok(Ok(())) => Ok(out),
                Ok(Err(e)) => Err(Failure::Error(e)),
                // The buffer is dropped: it may hold part of the item.
                Err(panic) => Err(Failure::Panic(panic)),
            }
        };
        let outcome = std::thread::scope(|scope| {
            for _ in 1..threads {
                let done = done.clone();
                let (progress, turn, stop, format_one) = (&progress, &turn, &stop, &format_one);
                scope.spawn(move || {
                    loop {
                        let index = {
                            let mut p = progress.lock().unwrap_or_else(|e| e.into_inner());
                            loop {
                                if p.next >= count || stop.load(Ordering::Relaxed) {
                                    return;
                                }
                                if let Some(index) = p.claim(count, window) {
                                    break index;
                                }
                                p = turn.wait(p).unwrap_or_else(|e| e.into_inner());
                            }
                        };
                        if done.send((index, format_one(index))).is_err() {
                            return;
                        }
                    }
                });
            }
            drop(done);
            let _stop = StopOnDrop {
                progress: &progress,
                turn: &turn,
                stop: &stop,
            };
            // The caller writes what is ready, in order; when the next item
            // to write is not ready, it formats one itself rather than wait.
            let mut pending = BTreeMap::new();
            let mut written = 0;
            let mut outcome = Ok(());
            while written < count {
                while let Ok((index, result)) = results.try_recv() {
                    pending.insert(index, result);
                }
                if !pending.contains_key(&written) {
                    let claimed = progress
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .claim(count, window);
                    match claimed {
                        Some(index) => {
                            pending.insert(index, format_one(index));
                        }
                        None => match results.recv() {
                            Ok((index, result)) => {
                                pending.insert(index, result);
                            }
                            Err(_) => break,
                        },
                    }
                }
                while let Some(result) = pending.remove(&written) {
                    let step = result.and_then(|bytes| {
                        write(&bytes).map_err(Failure::Error)?;
                        pool.lock().unwrap_or_else(|e| e.into_inner()).push(bytes);
                        Ok(())
                    });
                    if let Err(e) = step {
                        outcome = Err(e);
                        break;
                    }
                    written += 1;
                    progress.lock().unwrap_or_else(|e| e.into_inner()).written = written;
                    turn.notify_all();
                }
                if outcome.is_err() {
                    break;
                }
            }
            drop(_stop);
            drop(results);
            outcome
        });
        match outcome {
            Ok(()) => Ok(()),
            Err(Failure::Error(e)) => Err(e),
            Err(Failure::Panic(panic)) => std::panic::resume_unwind(panic),
        }
    }
}
