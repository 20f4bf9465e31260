//! The scan: [`JitsonSource`] (DataFusion's `FileSource`) and its opener.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use arrow::error::ArrowError;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::physical_plan::{FileOpenFuture, FileOpener, FileScanConfig};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion::physical_plan::projection::ProjectionExprs;
use datafusion_datasource::PartitionedFile;
use datafusion_datasource::decoder::{DecoderDeserializer, deserialize_stream};
use datafusion_datasource::file::FileSource;
use datafusion_datasource::file_compression_type::FileCompressionType;
use futures::StreamExt;
use object_store::ObjectStore;
use object_store::path::Path;

use crate::cache::{self, ReaderOptions};
use crate::error::ScanError;
use crate::range;

/// Reads JSON files (NDJSON, or one top-level array of records per file) with
/// jitson-arrow: DataFusion's `JsonSource` with a compiled decoder.
///
/// Projection is pushed into the compiled schema: the decoder is compiled for
/// the projected columns only, and the other keys of each record are skipped
/// without being built. Ranges of NDJSON files read the same lines as
/// DataFusion's own reader.
#[derive(Clone)]
pub struct JitsonSource {
    table_schema: TableSchema,
    batch_size: Option<usize>,
    metrics: ExecutionPlanMetricsSet,
    projection: SplitProjection,
    newline_delimited: bool,
    validate_skipped: bool,
}

impl JitsonSource {
    /// A source for files of `table_schema` (file columns and partition
    /// columns), newline-delimited.
    pub fn new(table_schema: impl Into<TableSchema>) -> Self {
        let table_schema = table_schema.into();
        JitsonSource {
            projection: SplitProjection::unprojected(&table_schema),
            table_schema,
            batch_size: None,
            metrics: ExecutionPlanMetricsSet::new(),
            newline_delimited: true,
            validate_skipped: true,
        }
    }

    /// `false`: each file is one JSON array of records. Such files are read
    /// whole (they cannot be split into ranges).
    pub fn with_newline_delimited(mut self, newline_delimited: bool) -> Self {
        self.newline_delimited = newline_delimited;
        self
    }

    /// Whether files are NDJSON (`true`) or one JSON array each.
    pub fn newline_delimited(&self) -> bool {
        self.newline_delimited
    }

    /// `false`: the members of each record that no projected column reads are
    /// skipped without being validated (jitson-arrow's
    /// `ReaderBuilder::with_validate_skipped`: objects and arrays matched by
    /// their brackets, strings to their closing quote), so a query reading a
    /// few columns of wide records runs faster, and a malformed member it does
    /// not read is no error. Default `true`, as DataFusion's own reader.
    pub fn with_validate_skipped(mut self, validate: bool) -> Self {
        self.validate_skipped = validate;
        self
    }

    /// Whether members no column reads are validated.
    pub fn validate_skipped(&self) -> bool {
        self.validate_skipped
    }
}

impl fmt::Debug for JitsonSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JitsonSource")
            .field("file_schema", self.table_schema.file_schema())
            .field("batch_size", &self.batch_size)
            .field("newline_delimited", &self.newline_delimited)
            .field("validate_skipped", &self.validate_skipped)
            .finish()
    }
}

impl FileSource for JitsonSource {
    fn create_file_opener(
        &self,
        object_store: Arc<dyn ObjectStore>,
        base_config: &FileScanConfig,
        _partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let file_schema = self.table_schema.file_schema();
        let projected_schema = Arc::new(file_schema.project(&self.projection.file_indices)?);
        let batch_size = self.batch_size.ok_or_else(|| {
            DataFusionError::Internal("JitsonSource: no batch size was set".into())
        })?;
        let opener = Arc::new(JitsonOpener {
            batch_size,
            limit: base_config.limit,
            projected_schema,
            file_schema: Arc::clone(file_schema),
            compression: base_config.file_compression_type,
            object_store,
            newline_delimited: self.newline_delimited,
            validate_skipped: self.validate_skipped,
        });
        ProjectionOpener::try_new(self.projection.clone(), opener, file_schema)
    }

    fn table_schema(&self) -> &TableSchema {
        &self.table_schema
    }

    fn with_batch_size(&self, batch_size: usize) -> Arc<dyn FileSource> {
        let mut source = self.clone();
        source.batch_size = Some(batch_size);
        Arc::new(source)
    }

    fn try_pushdown_projection(
        &self,
        projection: &ProjectionExprs,
    ) -> Result<Option<Arc<dyn FileSource>>> {
        let mut source = self.clone();
        let merged = self.projection.source.try_merge(projection)?;
        source.projection = SplitProjection::new(self.table_schema.file_schema(), &merged);
        Ok(Some(Arc::new(source)))
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        Some(&self.projection.source)
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        &self.metrics
    }

    fn file_type(&self) -> &str {
        "json"
    }

    /// `, reader=jitson` after the scan's `file_type=json`; in the tree
    /// format (whose nodes are `key=value` lines) a `reader=jitson` line of its
    /// own, which the tree shows as `reader: jitson` beside `format: json`.
    fn fmt_extra(
        &self,
        t: datafusion::physical_plan::DisplayFormatType,
        f: &mut fmt::Formatter,
    ) -> fmt::Result {
        use datafusion::physical_plan::DisplayFormatType;
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => write!(f, ", reader=jitson"),
            DisplayFormatType::TreeRender => writeln!(f, "reader=jitson"),
        }
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(
            &Arc<dyn datafusion::physical_plan::PhysicalExpr>,
        ) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        datafusion::physical_plan::apply_expression_roots(self.projection.source.iter(), f)
    }
}

/// Opens one file (or one range of it) of a [`JitsonSource`].
struct JitsonOpener {
    batch_size: usize,
    /// The scan's `LIMIT`, when DataFusion pushed one into it: a decoder
    /// whose batches hold no more rows decodes no record past it.
    limit: Option<usize>,
    projected_schema: SchemaRef,
    /// The file's schema: its field names are the records' keys, which the
    /// decoder matches by speculation where a projection leaves them out.
    file_schema: SchemaRef,
    compression: FileCompressionType,
    object_store: Arc<dyn ObjectStore>,
    newline_delimited: bool,
    validate_skipped: bool,
}

impl FileOpener for JitsonOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        if !self.newline_delimited && file.range.is_some() {
            return Err(DataFusionError::NotImplemented(
                "a JSON array file cannot be scanned in byte ranges: set \
                 datafusion.optimizer.repartition_file_scans to false, or use \
                 newline-delimited JSON"
                    .into(),
            ));
        }
        let options = ReaderOptions {
            batch_size: self.batch_size,
            validate_skipped: self.validate_skipped,
        };
        let keys: Vec<String> = self
            .file_schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        // Compiled here, so that a schema jitson cannot read fails the open.
        let compiled = cache::compiled(&self.projected_schema, &keys, None, options)?;
        // Under a `LIMIT` smaller than a batch, the first batch is the last
        // one the scan needs: the decoder stops at it, not a batch later.
        let rows = self
            .limit
            .map_or(self.batch_size, |l| l.min(self.batch_size));
        let reorder = Reorder {
            projected: Arc::clone(&self.projected_schema),
            keys,
            options,
        };
        let store = Arc::clone(&self.object_store);
        let compression = self.compression;
        Ok(Box::pin(async move {
            let location = file.object_meta.location.clone();
            let size = file.object_meta.size;
            let first_line = Arc::new(AtomicU64::new(0));
            let (bytes, range) = match &file.range {
                Some(r) => {
                    let (start, end) = (to_u64(r.start)?, to_u64(r.end)?);
                    let bytes = range::aligned_range(
                        Arc::clone(&store),
                        location.clone(),
                        start,
                        end,
                        size,
                        Arc::clone(&first_line),
                    )
                    .await?;
                    (bytes, Some((start, end)))
                }
                None => (
                    range::file_stream(Arc::clone(&store), location.clone(), 0).await?,
                    None,
                ),
            };
            let bytes = compression.convert_stream(bytes)?.fuse();
            let decoder = DecoderDeserializer::new(JitsonDecoder {
                decoder: compiled.decoder().with_batch_size(rows),
                reorder: Some(reorder),
                rows,
            });
            let place = Place {
                store,
                location,
                range,
                first_line,
                compressed: compression.is_compressed(),
            };
            let batches = deserialize_stream(bytes, decoder).then(move |batch| {
                let place = place.clone();
                async move {
                    match batch {
                        Ok(batch) => Ok(batch),
                        Err(e) => Err(place.locate(e).await),
                    }
                }
            });
            Ok(batches.boxed())
        }))
    }
}

/// The first record of `buf` (after whitespace), the keys of its top level
/// in order, and its *shape*: the keys of each of its objects in order,
/// quoted, with their nesting (`{"a","b"{"x","y"},"c"[{"p"}{"p","q"}]}`),
/// which is all that `ReaderBuilder::with_example_record` learns from it.
/// Keys hold no quote (none has an escape), so no two shapes read alike: a
/// key `a,b` is `"a,b"`, not the two keys `a` and `b`. `None` if `buf` does
/// not start with one whole object whose keys have no escapes, or nests
/// deeper than [`SHAPE_DEPTH`].
fn first_record(buf: &[u8]) -> Option<(&[u8], Vec<String>, String)> {
    let start = jitson_core::text::skip_ws(buf, 0);
    if buf.get(start) != Some(&b'{') {
        return None;
    }
    let mut shape = String::new();
    let mut keys = Vec::new();
    let end = shape_of(buf, start, 0, &mut shape, Some(&mut keys))?;
    Some((&buf[start..end], keys, shape))
}

/// How deep [`first_record`] follows nested containers.
const SHAPE_DEPTH: usize = 64;

/// Appends the shape of the value at `pos` (no whitespace before it) to
/// `shape` and returns the offset after it; the keys of an object at the
/// top go to `keys` too.
fn shape_of(
    buf: &[u8],
    pos: usize,
    depth: usize,
    shape: &mut String,
    mut keys: Option<&mut Vec<String>>,
) -> Option<usize> {
    use jitson_core::text::{ignore_value, scan_plain, skip_ws};
    let (open, close) = match buf.get(pos) {
        Some(b'{') => (b'{', b'}'),
        Some(b'[') => (b'[', b']'),
        _ => return ignore_value(buf, pos, true).ok(),
    };
    if depth == SHAPE_DEPTH {
        return None;
    }
    shape.push(char::from(open));
    let mut at = skip_ws(buf, pos + 1);
    if buf.get(at) == Some(&close) {
        shape.push(char::from(close));
        return Some(at + 1);
    }
    let mut first = true;
    loop {
        if open == b'{' {
            if buf.get(at) != Some(&b'"') {
                return None;
            }
            let (end, _) = scan_plain(buf, at + 1);
            if buf.get(end) != Some(&b'"') {
                return None;
            }
            let key = std::str::from_utf8(&buf[at + 1..end]).ok()?;
            if !first {
                shape.push(',');
            }
            shape.push('"');
            shape.push_str(key);
            shape.push('"');
            if let Some(keys) = keys.as_deref_mut() {
                keys.push(key.to_owned());
            }
            at = skip_ws(buf, end + 1);
            if buf.get(at) != Some(&b':') {
                return None;
            }
            at = skip_ws(buf, at + 1);
        }
        first = false;
        at = skip_ws(buf, shape_of(buf, at, depth + 1, shape, None)?);
        match buf.get(at) {
            Some(b',') => at = skip_ws(buf, at + 1),
            Some(&b) if b == close => {
                shape.push(char::from(close));
                return Some(at + 1);
            }
            _ => return None,
        }
    }
}

fn to_u64(offset: i64) -> Result<u64> {
    u64::try_from(offset)
        .map_err(|_| DataFusionError::Execution(format!("negative file range offset {offset}")))
}

/// jitson-arrow's push decoder, as DataFusion's `Decoder`. DataFusion's
/// schema inference lists a file's columns by name, nested ones too, not in
/// the order its records hold them, and the decoder matches keys by
/// speculating on their order
/// ([`jitson_arrow::ReaderBuilder::with_record_keys`],
/// [`with_example_record`](jitson_arrow::ReaderBuilder::with_example_record));
/// so the first record of the first buffer says the order, and the decoder
/// is taken from the compiled schema of that record's shape (cached like any
/// other) before anything is decoded.
#[derive(Debug)]
struct JitsonDecoder {
    decoder: jitson_arrow::Decoder,
    /// Until the first buffer: how to compile the decoder for another order.
    reorder: Option<Reorder>,
    /// Rows per batch: the batch size, or the scan's limit if smaller.
    rows: usize,
}

/// What [`JitsonDecoder`] needs to compile its decoder for another key order.
#[derive(Debug)]
struct Reorder {
    projected: SchemaRef,
    /// The file schema's field names, the order the decoder was compiled for.
    keys: Vec<String>,
    options: ReaderOptions,
}

impl datafusion_datasource::decoder::Decoder for JitsonDecoder {
    fn decode(&mut self, buf: &[u8]) -> std::result::Result<usize, ArrowError> {
        if let Some(reorder) = self.reorder.take()
            && let Some((record, first, shape)) = first_record(buf)
        {
            let mut keys: Vec<String> = first
                .into_iter()
                .filter(|k| reorder.keys.contains(k))
                .collect();
            for key in &reorder.keys {
                if !keys.contains(key) {
                    keys.push(key.clone());
                }
            }
            let example = cache::Example {
                record,
                shape: &shape,
            };
            let compiled =
                cache::compiled(&reorder.projected, &keys, Some(example), reorder.options)
                    .map_err(|e| ArrowError::ExternalError(Box::new(e)))?;
            self.decoder = compiled.decoder().with_batch_size(self.rows);
        }
        self.decoder.decode(buf)
    }

    fn flush(&mut self) -> std::result::Result<Option<RecordBatch>, ArrowError> {
        self.decoder.flush()
    }

    fn can_flush_early(&self) -> bool {
        false
    }
}

/// What an error needs to be reported in file positions.
#[derive(Clone)]
struct Place {
    store: Arc<dyn ObjectStore>,
    location: Path,
    range: Option<(u64, u64)>,
    first_line: Arc<AtomicU64>,
    compressed: bool,
}

impl Place {
    /// `e` with the file's path, and a record's position made a file position.
    async fn locate(&self, e: ArrowError) -> DataFusionError {
        let record = match &e {
            ArrowError::ExternalError(inner) => {
                inner.downcast_ref::<jitson_arrow::RecordError>().cloned()
            }
            _ => None,
        };
        let Some(mut record) = record else {
            return DataFusionError::Context(
                format!("reading {}", self.location),
                Box::new(DataFusionError::from(e)),
            );
        };
        let mut relative_to = None;
        if self.range.is_some() {
            // Positions count from the range's first line; make them the
            // file's by counting the lines before it (on this error path only).
            let first = self.first_line.load(Ordering::Relaxed);
            match lines_before(&self.store, &self.location, first).await {
                Ok(lines) => {
                    record.line += lines;
                    record.byte += first;
                }
                Err(_) => relative_to = Some(first),
            }
        }
        DataFusionError::External(Box::new(ScanError {
            file: self.location.to_string(),
            ranged: self.range.is_some(),
            relative_to,
            decompressed: self.compressed,
            record,
        }))
    }
}

/// Newlines in the first `end` bytes of `location`.
async fn lines_before(store: &Arc<dyn ObjectStore>, location: &Path, end: u64) -> Result<u64> {
    if end == 0 {
        return Ok(0);
    }
    let mut stream = range::file_stream(Arc::clone(store), location.clone(), 0).await?;
    let (mut at, mut lines) = (0u64, 0u64);
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        let take = ((end - at) as usize).min(chunk.len());
        lines += memchr::memchr_iter(b'\n', &chunk[..take]).count() as u64;
        at += take as u64;
        if at >= end {
            break;
        }
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::first_record;

    /// Shapes name each key whole: keys holding `,` or brackets do not make
    /// two records of different keys look alike (a reviewer's case), and
    /// keys with escapes, or no object, give none.
    #[test]
    fn shapes_tell_keys_apart() {
        let shape = |record: &str| first_record(record.as_bytes()).map(|(_, _, shape)| shape);
        let one = shape(r#"{"o":{"a,b":1,"c":2}}"#).unwrap();
        let two = shape(r#"{"o":{"a":10,"b,c":20}}"#).unwrap();
        assert_eq!(one, r#"{"o"{"a,b","c"}}"#);
        assert_eq!(two, r#"{"o"{"a","b,c"}}"#);
        assert_ne!(shape(r#"{"a{":1}"#), shape(r#"{"a":{}}"#));
        let (record, keys, full) =
            first_record(br#" {"a":1,"b":{"x":[],"y":null},"c":[{"p":1},{"p":2,"q":3}]} {"#)
                .unwrap();
        assert_eq!(record.last(), Some(&b'}'));
        assert_eq!(keys, ["a", "b", "c"]);
        assert_eq!(full, r#"{"a","b"{"x"[],"y"},"c"[{"p"}{"p","q"}]}"#);
        assert_eq!(shape(r#"{"a\u0062":1}"#), None);
        assert_eq!(shape("[1]"), None);
    }
}
