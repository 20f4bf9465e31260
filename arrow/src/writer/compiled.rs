//! The writer's JIT backend: the row loop of a schema's record compiled by
//! `jitson_jit::compile_rows`. Integer, boolean and Utf8 / LargeUtf8 /
//! Utf8View columns, and structs, lists, list views, fixed-size lists, maps
//! and dictionaries of them, are read and written by generated code (the
//! typed encoder's emitters); binary columns (all four layouts) are read by
//! it and written as hex by the function the interpreter's encoders call;
//! floats, decimals, dates, times and timestamps in the default formats,
//! durations and intervals are read by it and formatted by the
//! interpreter's own functions into room it reserves. Every other column
//! (custom temporal formats, named zones, unions, run-end encoded) is
//! written by its plan encoder, called
//! back from the generated code, so both backends write the same bytes.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use arrow_array::cast::AsArray;
use arrow_array::types::{BinaryType, ByteArrayType, LargeBinaryType, LargeUtf8Type, Utf8Type};
use arrow_array::{Array, ArrayRef, OffsetSizeTrait, RecordBatch};
use arrow_schema::{ArrowError, DataType, IntervalUnit, SchemaRef, TimeUnit};
use jitson_jit::{ColumnView, CompiledRows, RowColumn, RowKind, RowSpec};

use super::number::{DECIMAL_ROOM, FLOAT_MAX_LEN, decimal_param, format_decimal, format_float};
use super::plan::{Column, Encode, Plan};
use super::temporal::{
    STAMP_MAX_LEN, TEXT_MAX_LEN, fixed_offset, format_date32, format_date64, format_day_time,
    format_duration, format_month_day_nano, format_time32ms, format_time32s, format_time64ns,
    format_time64us, format_timestamp, format_timestamp_at, format_year_month, unit_code,
};
use super::{JsonFormat, Options};
use crate::reader::Backend;

/// A schema's compiled row writer.
pub(crate) struct Compiled {
    rows: CompiledRows,
    /// The spec's columns' kinds (what the views are built from).
    kinds: Vec<RowKind>,
}

/// Compiled row writers by what they were compiled for, most recently used
/// first. Writers are cheap to make (arrow-json's users, and DataFusion, make
/// one per batch or per file) and compiling is not: a writer finds the code
/// of a schema written before here. Bounded by
/// [`writer_cache_capacity`](crate::writer_cache_capacity): the least
/// recently used entry leaves the cache, and its code is freed with the last
/// writer using it.
static CACHE: std::sync::Mutex<Cache> = std::sync::Mutex::new(Cache {
    entries: Vec::new(),
    evicted: None,
});

struct Cache {
    entries: Vec<(RowSpec, Arc<Compiled>)>,
    /// Hashes of the specs pushed out, so a compile of one again is counted
    /// (`Stats::writer_recompiles_after_eviction`); forgotten all at once
    /// past [`EVICTED_REMEMBERED`].
    evicted: Option<std::collections::HashSet<u64>>,
}

/// Evicted specs remembered for counting recompiles.
const EVICTED_REMEMBERED: usize = 16_384;

fn spec_hash(spec: &RowSpec) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(spec)
}

impl Cache {
    /// Removes the entries past `capacity` (returned, to be dropped once the
    /// lock is released: their code is freed then if no writer holds it).
    fn trim(&mut self, capacity: usize) -> Vec<(RowSpec, Arc<Compiled>)> {
        let out: Vec<_> = self
            .entries
            .drain(capacity.min(self.entries.len())..)
            .collect();
        self.forget(&out);
        out
    }

    fn forget(&mut self, out: &[(RowSpec, Arc<Compiled>)]) {
        if out.is_empty() {
            return;
        }
        crate::stats::COUNTERS
            .writer_cache_evictions
            .fetch_add(out.len() as u64, Ordering::Relaxed);
        let evicted = self.evicted.get_or_insert_with(Default::default);
        if evicted.len() + out.len() > EVICTED_REMEMBERED {
            evicted.clear();
        }
        evicted.extend(out.iter().map(|(spec, _)| spec_hash(spec)));
    }
}

fn lock() -> std::sync::MutexGuard<'static, Cache> {
    // Entries are moved whole: a panic while the lock was held left a
    // consistent list.
    CACHE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Applies a new capacity at once.
pub(crate) fn trim_cache() {
    let out = lock().trim(crate::writer_cache_capacity());
    drop(out);
}

/// Entries in the cache now.
pub(crate) fn cache_len() -> usize {
    lock().entries.len()
}

/// The code region's reclaimer (`jitson_jit::memory::register_reclaimer`):
/// drops the entries no writer holds, so their code is freed now.
fn reclaim() -> bool {
    let out: Vec<_> = {
        let mut cache = lock();
        let (unused, held) = std::mem::take(&mut cache.entries)
            .into_iter()
            .partition(|(_, c)| Arc::strong_count(c) == 1);
        cache.entries = held;
        cache.forget(&unused);
        unused
    };
    !out.is_empty()
}

/// The cached writer of `spec`, compiling it on a miss (outside the lock:
/// two writers of a new schema at once may both compile; one result stays).
fn cached(spec: RowSpec, kinds: Vec<RowKind>) -> Result<Arc<Compiled>, jitson_jit::CompileError> {
    let counters = &crate::stats::COUNTERS;
    {
        let mut cache = lock();
        if let Some(i) = cache.entries.iter().position(|(s, _)| *s == spec) {
            let entry = cache.entries.remove(i);
            let compiled = entry.1.clone();
            cache.entries.insert(0, entry);
            counters.writer_cache_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(compiled);
        }
    }
    jitson_jit::memory::register_reclaimer(reclaim);
    let started = std::time::Instant::now();
    let rows = jitson_jit::probe(None).and_then(|()| jitson_jit::compile_rows(&spec))?;
    counters.writer_compile_nanos.fetch_add(
        u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX),
        Ordering::Relaxed,
    );
    counters.writers_compiled.fetch_add(1, Ordering::Relaxed);
    let compiled = Arc::new(Compiled { rows, kinds });
    let capacity = crate::writer_cache_capacity();
    let out = {
        let mut cache = lock();
        let hash = spec_hash(&spec);
        if cache.evicted.as_mut().is_some_and(|e| e.remove(&hash)) {
            counters.writer_recompiles.fetch_add(1, Ordering::Relaxed);
        }
        if capacity > 0 {
            cache.entries.insert(0, (spec, compiled.clone()));
        }
        cache.trim(capacity)
    };
    drop(out);
    Ok(compiled)
}

/// Rows written per call of the generated code (the sink is flushed between
/// calls).
const ROWS_PER_CALL: usize = 256;

/// Schemas with more columns than this (struct fields and list items
/// counted) are written by the plan's encoders alone: one generated function
/// per schema grows with its columns, and its compile time with it, while the
/// per-row saving does not.
const MAX_COMPILED_COLUMNS: usize = 512;

impl Compiled {
    /// Compiles the rows of `schema` as `plan` (its root) writes them, framed
    /// by `F`, when `backend` asks for the JIT and it can run: `None` for the
    /// interpreter (also for a schema of more than [`MAX_COMPILED_COLUMNS`]);
    /// an error only for [`Backend::Jit`] where the JIT cannot run.
    pub(crate) fn for_schema<F: JsonFormat>(
        schema: &SchemaRef,
        plan: &Plan,
        options: &Options,
    ) -> Result<Option<Arc<Compiled>>, ArrowError> {
        let backend = options.backend;
        let wanted = match backend {
            Backend::Interpreter => false,
            Backend::Auto => !jitson_jit::disabled_by_env(),
            Backend::Jit => true,
        };
        if !wanted {
            return Ok(None);
        }
        let columns = row_columns(plan, schema.fields(), 0);
        if columns.iter().map(|c| c.kind.views()).sum::<usize>() > MAX_COMPILED_COLUMNS {
            return Ok(None);
        }
        let kinds = columns.iter().map(|c| c.kind.clone()).collect();
        let spec = RowSpec {
            columns,
            list_mode: plan.list_mode,
            explicit_nulls: plan.explicit_nulls,
            between: F::BETWEEN.to_vec(),
            after_row: F::AFTER_ROW.to_vec(),
        };
        match cached(spec, kinds) {
            Ok(compiled) => Ok(Some(compiled)),
            Err(e) if backend == Backend::Auto => {
                let counters = &crate::stats::COUNTERS;
                counters.fell_back(&counters.writer_fallbacks, e.to_string());
                Ok(None)
            }
            Err(e) => Err(ArrowError::ComputeError(format!("JIT unavailable: {e}"))),
        }
    }

    /// Formats rows `rows` of `batch` onto `out` as `super::format_batch`
    /// does, calling `flush` between runs of rows.
    pub(crate) fn format_batch(
        &self,
        plan: &Plan,
        batch: &RecordBatch,
        rows: std::ops::Range<usize>,
        first_in_stream: bool,
        out: &mut Vec<u8>,
        mut flush: impl FnMut(&mut Vec<u8>) -> Result<(), ArrowError>,
    ) -> Result<(), ArrowError> {
        // The views, in the spec's order, and what they point into.
        let mut bound = Bound::default();
        for ((kind, child), array) in self.kinds.iter().zip(&plan.children).zip(batch.columns()) {
            bind(kind, child, array.as_ref(), &mut bound)?;
        }
        let views = &bound.views;
        let _panics = jitson_core::panic::Scope::enter();
        let mut start = rows.start;
        while start < rows.end {
            let end = (start + ROWS_PER_CALL).min(rows.end);
            let separate_first = start > rows.start || !first_in_stream;
            // SAFETY: the views of the spec's columns in its order, each over
            // the buffers of its array in `batch` (alive for the call; the
            // encoders behind `Call` views and the buffer addresses of
            // `TextView` views live in `bound`): a column's cover rows
            // `start..end` of the batch, a struct field's its struct's rows,
            // a list item's every item of its list array.
            let ok = unsafe { self.rows.write(views, start..end, separate_first, out) };
            if !ok {
                // An encoder panicked (or the buffer could not grow).
                jitson_core::panic::resume();
                return Err(ArrowError::ComputeError(
                    "the compiled writer failed to format a row".into(),
                ));
            }
            if out.len() >= super::FLUSH_AT {
                flush(out)?;
            }
            start = end;
        }
        drop(bound);
        Ok(())
    }
}

/// A batch's views and what they point into besides the batch's buffers.
#[derive(Default)]
struct Bound<'a> {
    views: Vec<ColumnView>,
    /// The encoders of `Call` (and `Formatted`) views, boxed: their
    /// addresses stay put while more are made.
    #[allow(clippy::vec_box)] // the views point into the boxes
    encoders: Vec<Box<Column<'a>>>,
    /// The data buffers' addresses of each `TextView` view (a vector's
    /// elements stay put when the outer vector grows).
    buffers: Vec<Vec<*const u8>>,
}

/// The row columns of a record (the schema's, or a struct's) whose fields
/// `plan` lowered: keys from the plan (without their comma), kinds from the
/// types.
fn row_columns(plan: &Plan, fields: &arrow_schema::Fields, depth: usize) -> Vec<RowColumn> {
    fields
        .iter()
        .zip(&plan.children)
        .zip(&plan.keys)
        .map(|((field, child), key)| RowColumn {
            // `key` is `,"name":` (object mode) or `,` (list mode).
            key: if plan.list_mode {
                Vec::new()
            } else {
                key[1..].to_vec()
            },
            kind: row_kind(field.data_type(), child, depth),
        })
        .collect()
}

/// How the generated code reads a column of type `data_type`, which `plan`
/// lowered, `depth` structs and lists below the row (from
/// [`jitson_jit::ROW_MAX_DEPTH`] down, structs and lists are calls).
fn row_kind(data_type: &DataType, plan: &Plan, depth: usize) -> RowKind {
    let int = |bytes, signed| RowKind::Int { bytes, signed };
    let decimal = |bytes, format, precision, scale| {
        RowKind::formatted_with(
            bytes,
            DECIMAL_ROOM as u8,
            format,
            decimal_param(precision, scale),
        )
    };
    match data_type {
        DataType::Int8 => int(1, true),
        DataType::Int16 => int(2, true),
        DataType::Int32 => int(4, true),
        DataType::Int64 => int(8, true),
        DataType::UInt8 => int(1, false),
        DataType::UInt16 => int(2, false),
        DataType::UInt32 => int(4, false),
        DataType::UInt64 => int(8, false),
        DataType::Boolean => RowKind::Bool,
        DataType::Utf8 => RowKind::Text { large: false },
        DataType::LargeUtf8 => RowKind::Text { large: true },
        DataType::Utf8View => RowKind::TextView,
        DataType::Binary => RowKind::Binary { large: false },
        DataType::LargeBinary => RowKind::Binary { large: true },
        DataType::BinaryView => RowKind::BinaryView,
        DataType::FixedSizeBinary(width) => match u32::try_from(*width) {
            Ok(width) => RowKind::FixedBinary { width },
            Err(_) => RowKind::Call,
        },
        DataType::Float16 => RowKind::formatted(2, FLOAT_MAX_LEN, format_float::<half::f16>),
        DataType::Float32 => RowKind::formatted(4, FLOAT_MAX_LEN, format_float::<f32>),
        DataType::Float64 => RowKind::formatted(8, FLOAT_MAX_LEN, format_float::<f64>),
        DataType::Decimal32(p, s) => decimal(4, format_decimal::<i32>, *p, *s),
        DataType::Decimal64(p, s) => decimal(8, format_decimal::<i64>, *p, *s),
        DataType::Decimal128(p, s) => decimal(16, format_decimal::<i128>, *p, *s),
        DataType::Decimal256(p, s) => decimal(32, format_decimal::<arrow_buffer::i256>, *p, *s),
        // The default formats without a zone; the rest go through chrono.
        DataType::Timestamp(unit, None) if plan.format.is_none() => {
            use arrow_array::types::*;
            let format: jitson_jit::FormatFn = match unit {
                TimeUnit::Second => format_timestamp::<TimestampSecondType>,
                TimeUnit::Millisecond => format_timestamp::<TimestampMillisecondType>,
                TimeUnit::Microsecond => format_timestamp::<TimestampMicrosecondType>,
                TimeUnit::Nanosecond => format_timestamp::<TimestampNanosecondType>,
            };
            RowKind::formatted(8, STAMP_MAX_LEN, format)
        }
        // A zone of one offset (`UTC`, `+05:30`): the offset is the format
        // function's parameter; a named zone goes through chrono.
        DataType::Timestamp(unit, Some(_)) if plan.format.is_none() => {
            use arrow_array::types::*;
            let Some(offset) = fixed_offset(plan) else {
                return RowKind::Call;
            };
            let format: jitson_jit::FormatFn = match unit {
                TimeUnit::Second => format_timestamp_at::<TimestampSecondType>,
                TimeUnit::Millisecond => format_timestamp_at::<TimestampMillisecondType>,
                TimeUnit::Microsecond => format_timestamp_at::<TimestampMicrosecondType>,
                TimeUnit::Nanosecond => format_timestamp_at::<TimestampNanosecondType>,
            };
            RowKind::formatted_with(8, STAMP_MAX_LEN, format, i64::from(offset) as u64)
        }
        DataType::Time32(TimeUnit::Second) if plan.format.is_none() => {
            RowKind::formatted(4, STAMP_MAX_LEN, format_time32s)
        }
        DataType::Time32(TimeUnit::Millisecond) if plan.format.is_none() => {
            RowKind::formatted(4, STAMP_MAX_LEN, format_time32ms)
        }
        DataType::Time64(TimeUnit::Microsecond) if plan.format.is_none() => {
            RowKind::formatted(8, STAMP_MAX_LEN, format_time64us)
        }
        DataType::Time64(TimeUnit::Nanosecond) if plan.format.is_none() => {
            RowKind::formatted(8, STAMP_MAX_LEN, format_time64ns)
        }
        DataType::Date32 if plan.format.is_none() => {
            RowKind::formatted(4, STAMP_MAX_LEN, format_date32)
        }
        DataType::Date64 if plan.format.is_none() => {
            RowKind::formatted(8, STAMP_MAX_LEN, format_date64)
        }
        DataType::Duration(unit) => {
            RowKind::formatted_with(8, TEXT_MAX_LEN, format_duration, unit_code(*unit))
        }
        DataType::Interval(IntervalUnit::YearMonth) => {
            RowKind::formatted(4, TEXT_MAX_LEN, format_year_month)
        }
        DataType::Interval(IntervalUnit::DayTime) => {
            RowKind::formatted(8, TEXT_MAX_LEN, format_day_time)
        }
        DataType::Interval(IntervalUnit::MonthDayNano) => {
            RowKind::formatted(16, TEXT_MAX_LEN, format_month_day_nano)
        }
        DataType::Struct(fields) if depth < jitson_jit::ROW_MAX_DEPTH => {
            RowKind::Struct(row_columns(plan, fields, depth + 1))
        }
        DataType::List(item) | DataType::LargeList(item) if depth < jitson_jit::ROW_MAX_DEPTH => {
            RowKind::List {
                large: matches!(data_type, DataType::LargeList(_)),
                item: Box::new(row_kind(item.data_type(), &plan.children[0], depth + 1)),
            }
        }
        DataType::ListView(item) | DataType::LargeListView(item)
            if depth < jitson_jit::ROW_MAX_DEPTH =>
        {
            RowKind::ListView {
                large: matches!(data_type, DataType::LargeListView(_)),
                item: Box::new(row_kind(item.data_type(), &plan.children[0], depth + 1)),
            }
        }
        DataType::FixedSizeList(item, size) if depth < jitson_jit::ROW_MAX_DEPTH => {
            match u32::try_from(*size) {
                Ok(size) => RowKind::FixedList {
                    size,
                    item: Box::new(row_kind(item.data_type(), &plan.children[0], depth + 1)),
                },
                Err(_) => RowKind::Call,
            }
        }
        // The plan has checked the entries: a struct of a UTF-8 key and a
        // value (`plan::compile`).
        DataType::Map(entries, _) if depth < jitson_jit::ROW_MAX_DEPTH => {
            let DataType::Struct(kv) = entries.data_type() else {
                return RowKind::Call;
            };
            RowKind::Map {
                explicit_nulls: plan.explicit_nulls,
                key: Box::new(row_kind(kv[0].data_type(), &plan.children[0], depth + 1)),
                value: Box::new(row_kind(kv[1].data_type(), &plan.children[1], depth + 1)),
            }
        }
        DataType::Dictionary(key, value) if depth < jitson_jit::ROW_MAX_DEPTH => {
            let key_bytes = match key.as_ref() {
                DataType::Int8 | DataType::UInt8 => 1,
                DataType::Int16 | DataType::UInt16 => 2,
                DataType::Int32 | DataType::UInt32 => 4,
                _ => 8,
            };
            RowKind::Dictionary {
                key_bytes,
                value: Box::new(row_kind(value, &plan.children[0], depth + 1)),
                // A key at a null temporal value writes `""`, as the
                // interpreter's dictionaries (and arrow-json) do.
                empty_at_null: value.is_temporal(),
            }
        }
        _ => RowKind::Call,
    }
}

/// Appends the views of a column of kind `kind` (its own, then its fields'
/// or its item's) over `array`, which `plan` lowered, to `bound`, with what
/// they point into.
fn bind<'a>(
    kind: &RowKind,
    plan: &'a Plan,
    array: &'a dyn Array,
    bound: &mut Bound<'a>,
) -> Result<(), ArrowError> {
    let views = &mut bound.views;
    let mut view = ColumnView {
        values: core::ptr::null(),
        values_bit: 0,
        data: core::ptr::null(),
        data_len: 0,
        validity: core::ptr::null(),
        validity_bit: 0,
        call: None,
        ctx: core::ptr::null(),
    };
    let nulls = |view: &mut ColumnView, nulls: Option<&arrow_buffer::NullBuffer>| {
        if let Some(nulls) = nulls.filter(|n| n.null_count() > 0) {
            view.validity = nulls.buffer().as_ptr();
            view.validity_bit = nulls.offset();
        }
    };
    match kind {
        RowKind::Call | RowKind::Formatted { .. } => {
            // A formatted column's values are read by the generated code; its
            // encoder writes the values the format function declines.
            if matches!(kind, RowKind::Formatted { .. }) {
                view.values = primitive_values(array);
            }
            let column = Box::new(plan.column(array)?);
            nulls(&mut view, column.nulls.as_ref());
            view.call = Some(call_encoder);
            view.ctx = (&raw const column.encoder).cast();
            bound.encoders.push(column);
            views.push(view);
            return Ok(());
        }
        RowKind::Int { .. } => view.values = primitive_values(array),
        RowKind::Bool => {
            let bits = array.as_boolean().values();
            view.values = bits.values().as_ptr();
            view.values_bit = bits.offset();
        }
        RowKind::Text { large } | RowKind::Binary { large } => {
            // Texts and bytes alike: offsets into one value buffer.
            fn offsets<T: ByteArrayType>(array: &dyn Array, view: &mut ColumnView) {
                let array = array.as_bytes::<T>();
                view.values = array.value_offsets().as_ptr().cast();
                view.data = array.values().as_ptr();
                view.data_len = array.values().len();
            }
            match (kind, large) {
                (RowKind::Text { .. }, false) => offsets::<Utf8Type>(array, &mut view),
                (RowKind::Text { .. }, true) => offsets::<LargeUtf8Type>(array, &mut view),
                (_, false) => offsets::<BinaryType>(array, &mut view),
                (_, true) => offsets::<LargeBinaryType>(array, &mut view),
            }
        }
        RowKind::TextView | RowKind::BinaryView => {
            // The views are sliced with the array; the buffers are not
            // (the views index them).
            let (views_start, data_buffers) = match kind {
                RowKind::TextView => {
                    let text = array.as_string_view();
                    (text.views().as_ptr(), text.data_buffers())
                }
                _ => {
                    let binary = array.as_binary_view();
                    (binary.views().as_ptr(), binary.data_buffers())
                }
            };
            let buffers: Vec<*const u8> = data_buffers.iter().map(|b| b.as_ptr()).collect();
            view.values = views_start.cast();
            view.data = buffers.as_ptr().cast();
            view.data_len = buffers.len();
            bound.buffers.push(buffers);
        }
        RowKind::FixedBinary { .. } => {
            // Sliced with the array: its first value is the row 0's.
            view.values = array.as_fixed_size_binary().value_data().as_ptr();
        }
        RowKind::Struct(fields) => {
            nulls(&mut view, array.nulls());
            views.push(view);
            // A struct's children are sliced with it: row r of the struct is
            // row r of each.
            let children = array.as_struct().columns();
            for ((field, child), child_array) in fields.iter().zip(&plan.children).zip(children) {
                bind(&field.kind, child, child_array.as_ref(), bound)?;
            }
            return Ok(());
        }
        RowKind::List { large, item } => {
            nulls(&mut view, array.nulls());
            // The offsets are sliced with the list; its values are not (the
            // offsets index them).
            fn list<'a, O: OffsetSizeTrait>(
                array: &'a dyn Array,
                view: &mut ColumnView,
            ) -> &'a ArrayRef {
                let list = array.as_list::<O>();
                view.values = list.value_offsets().as_ptr().cast();
                list.values()
            }
            let values = if *large {
                list::<i64>(array, &mut view)
            } else {
                list::<i32>(array, &mut view)
            };
            views.push(view);
            return bind(item, &plan.children[0], values.as_ref(), bound);
        }
        RowKind::ListView { large, item } => {
            nulls(&mut view, array.nulls());
            // The offsets and sizes are sliced with the list view; its
            // values are not (the offsets index them).
            fn list_view<'a, O: OffsetSizeTrait>(
                array: &'a dyn Array,
                view: &mut ColumnView,
            ) -> &'a ArrayRef {
                let list = array.as_list_view::<O>();
                view.values = list.value_offsets().as_ptr().cast();
                view.data = list.value_sizes().as_ptr().cast();
                list.values()
            }
            let values = if *large {
                list_view::<i64>(array, &mut view)
            } else {
                list_view::<i32>(array, &mut view)
            };
            views.push(view);
            return bind(item, &plan.children[0], values.as_ref(), bound);
        }
        RowKind::FixedList { item, .. } => {
            nulls(&mut view, array.nulls());
            // The values are sliced with the list (arrow's `slice`): list r
            // is items r * size.. of them.
            views.push(view);
            let values = array.as_fixed_size_list().values();
            return bind(item, &plan.children[0], values.as_ref(), bound);
        }
        RowKind::Map { key, value, .. } => {
            super::nested::check_map(array)?;
            nulls(&mut view, array.nulls());
            // The offsets are sliced with the map; its entries are not.
            let map = array.as_map();
            view.values = map.value_offsets().as_ptr().cast();
            views.push(view);
            bind(key, &plan.children[0], map.keys().as_ref(), bound)?;
            return bind(value, &plan.children[1], map.values().as_ref(), bound);
        }
        RowKind::Dictionary { value, .. } => {
            nulls(&mut view, array.nulls());
            // The keys are sliced with the dictionary; its values are not
            // (the keys index them).
            let values = dictionary_keys(array, &mut view);
            views.push(view);
            return bind(value, &plan.children[0], values.as_ref(), bound);
        }
    }
    nulls(&mut view, array.nulls());
    views.push(view);
    Ok(())
}

/// The first value of a primitive array of a type [`row_kind`] reads
/// (its offset applied).
fn primitive_values(array: &dyn Array) -> *const u8 {
    use arrow_array::types::*;
    fn first<T: arrow_array::ArrowPrimitiveType>(array: &dyn Array) -> *const u8 {
        array.as_primitive::<T>().values().as_ptr().cast()
    }
    match array.data_type() {
        DataType::Int8 => first::<Int8Type>(array),
        DataType::Int16 => first::<Int16Type>(array),
        DataType::Int32 => first::<Int32Type>(array),
        DataType::Int64 => first::<Int64Type>(array),
        DataType::UInt8 => first::<UInt8Type>(array),
        DataType::UInt16 => first::<UInt16Type>(array),
        DataType::UInt32 => first::<UInt32Type>(array),
        DataType::UInt64 => first::<UInt64Type>(array),
        DataType::Float16 => first::<Float16Type>(array),
        DataType::Float32 => first::<Float32Type>(array),
        DataType::Float64 => first::<Float64Type>(array),
        DataType::Date32 => first::<Date32Type>(array),
        DataType::Date64 => first::<Date64Type>(array),
        DataType::Timestamp(TimeUnit::Second, _) => first::<TimestampSecondType>(array),
        DataType::Timestamp(TimeUnit::Millisecond, _) => first::<TimestampMillisecondType>(array),
        DataType::Timestamp(TimeUnit::Microsecond, _) => first::<TimestampMicrosecondType>(array),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => first::<TimestampNanosecondType>(array),
        DataType::Time32(TimeUnit::Second) => first::<Time32SecondType>(array),
        DataType::Time32(TimeUnit::Millisecond) => first::<Time32MillisecondType>(array),
        DataType::Time64(TimeUnit::Microsecond) => first::<Time64MicrosecondType>(array),
        DataType::Time64(TimeUnit::Nanosecond) => first::<Time64NanosecondType>(array),
        DataType::Decimal32(..) => first::<Decimal32Type>(array),
        DataType::Decimal64(..) => first::<Decimal64Type>(array),
        DataType::Decimal128(..) => first::<Decimal128Type>(array),
        DataType::Decimal256(..) => first::<Decimal256Type>(array),
        DataType::Duration(TimeUnit::Second) => first::<DurationSecondType>(array),
        DataType::Duration(TimeUnit::Millisecond) => first::<DurationMillisecondType>(array),
        DataType::Duration(TimeUnit::Microsecond) => first::<DurationMicrosecondType>(array),
        DataType::Duration(TimeUnit::Nanosecond) => first::<DurationNanosecondType>(array),
        DataType::Interval(IntervalUnit::YearMonth) => first::<IntervalYearMonthType>(array),
        DataType::Interval(IntervalUnit::DayTime) => first::<IntervalDayTimeType>(array),
        DataType::Interval(IntervalUnit::MonthDayNano) => first::<IntervalMonthDayNanoType>(array),
        other => unreachable!("row_kind reads no {other} column"),
    }
}

/// Points `view` at the first key of the dictionary `array`: its values.
fn dictionary_keys<'a>(array: &'a dyn Array, view: &mut ColumnView) -> &'a ArrayRef {
    use arrow_array::types::*;
    fn keys<'a, K: arrow_array::types::ArrowDictionaryKeyType>(
        array: &'a dyn Array,
        view: &mut ColumnView,
    ) -> &'a ArrayRef {
        let dictionary = array.as_dictionary::<K>();
        view.values = dictionary.keys().values().as_ptr().cast();
        dictionary.values()
    }
    let DataType::Dictionary(key, _) = array.data_type() else {
        unreachable!("row_kind made a dictionary of a {}", array.data_type())
    };
    match key.as_ref() {
        DataType::Int8 => keys::<Int8Type>(array, view),
        DataType::Int16 => keys::<Int16Type>(array, view),
        DataType::Int32 => keys::<Int32Type>(array, view),
        DataType::Int64 => keys::<Int64Type>(array, view),
        DataType::UInt8 => keys::<UInt8Type>(array, view),
        DataType::UInt16 => keys::<UInt16Type>(array, view),
        DataType::UInt32 => keys::<UInt32Type>(array, view),
        DataType::UInt64 => keys::<UInt64Type>(array, view),
        other => unreachable!("the plan refuses dictionaries keyed by {other}"),
    }
}

/// A `Call` column's value: its plan encoder, called back from generated
/// code. A panic is caught and stashed (the writer resumes it).
///
/// # Safety
/// `ctx` points to a live `Box<dyn Encode>` (a [`Column`]'s encoder) for an
/// array with a row `row`; `out` is a live vector.
unsafe extern "C" fn call_encoder(
    ctx: *const core::ffi::c_void,
    row: usize,
    out: *mut Vec<u8>,
) -> bool {
    // SAFETY: as the caller guarantees (`Compiled::format_batch` built the
    // view from the column, which outlives the call).
    let (encoder, out) = unsafe { (&*ctx.cast::<Box<dyn Encode + '_>>(), &mut *out) };
    jitson_core::panic::catch(|| encoder.encode(row, out))
}
