//! arrow-json's reader API over jitson: [`ReaderBuilder`], the push [`Decoder`],
//! the pull [`Reader`], and the parallel paths.

use std::io::BufRead;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, DataType, SchemaRef};
use jitson_core::column::{Column, Conflict};
use jitson_core::error::PathSegment;
use jitson_core::text::ValueEnd;

use crate::plan::{Plan, Policy};

/// serde_json's recursion limit, which jitson keeps everywhere.
const MAX_DEPTH: u32 = 128;

/// Which backend decodes records: the facade's own [`jitson::Backend`]
/// (`Auto`, the default: the JIT where it runs and `JITSON_DISABLE_JIT` is
/// unset, otherwise the interpreter; `Interpreter`; `Jit`, with which
/// [`ReaderBuilder::build_decoder`] fails where the JIT cannot run), so one
/// value configures typed decoding and Arrow reading alike.
pub use jitson::Backend;

/// Configures and builds readers, as arrow-json's `ReaderBuilder` does.
///
/// ```
/// use std::sync::Arc;
/// use arrow_schema::{DataType, Field, Schema};
/// let schema = Arc::new(Schema::new(vec![
///     Field::new("id", DataType::Int64, false),
///     Field::new("name", DataType::Utf8, true),
/// ]));
/// let input = "{\"id\": 1, \"name\": \"a\"}\n{\"id\": 2}\n";
/// let mut reader = jitson_arrow::ReaderBuilder::new(schema).build(input.as_bytes()).unwrap();
/// let batch = reader.next().unwrap().unwrap();
/// assert_eq!(batch.num_rows(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct ReaderBuilder {
    schema: SchemaRef,
    /// `new_with_field`: values of the schema's one field, not records.
    is_field: bool,
    batch_size: usize,
    policy: Policy,
    backend: Backend,
    /// [`with_record_keys`](Self::with_record_keys).
    record_keys: Vec<String>,
    /// [`with_example_record`](Self::with_example_record).
    example: Option<Arc<[u8]>>,
}

impl ReaderBuilder {
    /// Records of `schema`; batches of 1024 rows; unknown keys skipped; values
    /// read as arrow-json reads them (see [`with_strict_parsing`](Self::with_strict_parsing));
    /// values of another type are errors; no coercion into text columns.
    pub fn new(schema: SchemaRef) -> ReaderBuilder {
        ReaderBuilder {
            schema,
            is_field: false,
            batch_size: 1024,
            policy: Policy {
                strict: false,
                strict_parsing: false,
                coerce_primitive: false,
                conflict: Conflict::Error,
                list_structs: false,
                skip_unchecked: false,
            },
            backend: Backend::Auto,
            record_keys: Vec::new(),
            example: None,
        }
    }

    /// Values of `field`'s type, any JSON value at the top level (not only
    /// objects), as arrow-json's `new_with_field`: each value is a row of the
    /// batches' one column, named after the field (`1\n2\n3`, or
    /// `[1, 2]\n[3]` for a list field; a top-level array is a value, not an
    /// array of records).
    pub fn new_with_field(field: impl Into<arrow_schema::FieldRef>) -> ReaderBuilder {
        ReaderBuilder {
            is_field: true,
            ..ReaderBuilder::new(Arc::new(arrow_schema::Schema::new(vec![field.into()])))
        }
    }

    /// The keys records usually hold, in their usual order: a file's whole
    /// schema where `new`'s schema is a projection of it (DataFusion's scans
    /// pass the file schema's field names). The keys that name no column are
    /// still skipped, as any unknown key, but matched by the decoder's
    /// speculation on key order instead of looked up one by one, and the
    /// columns are expected in this order. Nothing else changes: a key not
    /// given here is skipped as before, a record may hold the keys in any
    /// order. Ignored in strict mode and with strict parsing, whose errors
    /// about unknown and repeated keys these keys must keep.
    pub fn with_record_keys(mut self, keys: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.record_keys = keys.into_iter().map(Into::into).collect();
        self
    }

    /// A record like the ones to come (one JSON object, whitespace and
    /// anything after it ignored), whose key order the decoder speculates on
    /// at every level: its top-level keys are taken as
    /// [`with_record_keys`](Self::with_record_keys) (unless those are given),
    /// and the order of the keys of its nested objects (struct columns, and
    /// structs in lists) is learned by reading it once with the interpreter
    /// before the compile, as jitson learns a type's order from its first
    /// document. DataFusion's scans pass each file's first record: its schema
    /// inference lists nested fields by name, not in the records' order.
    ///
    /// Nothing else changes: records in any order, with any keys, decode as
    /// without it, and an example that is not a record of the schema (or not
    /// JSON) only teaches less. Its top-level keys are not taken where
    /// `with_record_keys` is given or where it has more than 256 of them (a
    /// field per key would cost more than it saves); the key orders are
    /// learned for the JIT only.
    pub fn with_example_record(mut self, record: &[u8]) -> Self {
        let start = jitson_core::text::skip_ws(record, 0);
        let end = jitson_core::text::ignore_value(record, start, true).unwrap_or(record.len());
        self.example = Some(Arc::from(&record[start..end.max(start)]));
        self
    }

    /// Rows per batch (at least 1).
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    /// Keys that name no column are errors (otherwise their values are skipped).
    pub fn with_strict_mode(mut self, strict: bool) -> Self {
        self.policy.strict = strict;
        self
    }

    /// Values are read by serde_json's rules for a derived struct instead of
    /// arrow-json's (the default, which a program swapping arrow-json for
    /// jitson-arrow needs):
    ///
    /// | input | default (arrow-json) | strict parsing |
    /// |---|---|---|
    /// | `1.5`, `1e3`, `1.0` in an integer column | truncated: 1, 1000, 1 | error |
    /// | `"42"` in a numeric column | 42 | error (unless [`with_coerce_primitive`](Self::with_coerce_primitive)) |
    /// | `1e400` in a float column | infinity | error |
    /// | `"NaN"`, `"inf"`, `"1.5"` in a float column | read as numbers | error |
    /// | timestamps | arrow-cast's forms (`HH:MM:SS` required; `HHMMSS`, offset after a space, leap second) | RFC 3339 and its relaxations (`HH:MM` allowed) |
    /// | `1.5` in a timestamp column | 1 | error |
    /// | Date32 | arrow-cast's forms (`2001-02-03T04:05:06Z`, `20010203`, `2001-2-3`, `+10999-12-31`) | `"YYYY-MM-DD"` only |
    /// | a key repeated in a record | the last value stands | error (`duplicate field`) |
    ///
    /// (`with_strict_mode` is arrow-json's option about unknown keys, which this
    /// one leaves alone.)
    pub fn with_strict_parsing(mut self, strict: bool) -> Self {
        self.policy.strict_parsing = strict;
        self
    }

    /// With `false`, the value of a key that names no column is skipped
    /// without checking what it holds (the grammar, escapes, control
    /// characters and UTF-8 inside it): an object or an array by matching its
    /// brackets, 64 bytes at a time, a string up to its first unescaped
    /// quote. Records with large members the schema leaves out are read
    /// faster (twitter's statuses with 15 columns: 1.3–1.4×), and a malformed
    /// member that no column reads is not an error. Input that ends inside
    /// such a member, or closes it with the other kind of bracket (both kinds
    /// are counted alike), still fails; numbers, literals and every value a
    /// column reads are checked as always. The default (`true`)
    /// validates every byte, as arrow-json does. The idea and the trade are
    /// bytedance/sonic's (`Config.NoValidateSkipJSON`, its "SIMD-searching-pair"
    /// skip); see `jitson_core::brackets`.
    pub fn with_validate_skipped(mut self, validate: bool) -> Self {
        self.policy.skip_unchecked = !validate;
        self
    }

    /// Numbers and booleans are accepted in text columns (stored as their JSON
    /// text), as arrow-json. With [`with_strict_parsing`](Self::with_strict_parsing),
    /// also strings holding numbers in numeric columns (which arrow-json always
    /// accepts, and so does the default).
    pub fn with_coerce_primitive(mut self, coerce: bool) -> Self {
        self.policy.coerce_primitive = coerce;
        self
    }

    /// A value of another type than its nullable column becomes a null, as with
    /// arrow-json's `with_ignore_type_conflicts(true)`; non-nullable columns
    /// still fail.
    pub fn with_ignore_type_conflicts(mut self, ignore: bool) -> Self {
        self.policy.conflict = if ignore {
            Conflict::Null
        } else {
            Conflict::Error
        };
        self
    }

    /// Whether records and structs are JSON objects (the default) or arrays of
    /// their fields' values in field order (`[1, "x", null]`, exactly one
    /// value per field), as arrow-json's `with_struct_mode`. In list mode a
    /// top-level array is a record, never an array of records.
    pub fn with_struct_mode(mut self, mode: crate::StructMode) -> Self {
        self.policy.list_structs = mode == crate::StructMode::ListOnly;
        self
    }

    /// Chooses the backend (default: [`Backend::Auto`]).
    pub fn with_backend(mut self, backend: Backend) -> Self {
        self.backend = backend;
        self
    }

    /// Lowers the schema (and compiles it, on the JIT) into a shareable
    /// [`Schema`](crate::CompiledSchema) from which decoders are made.
    pub fn compile(&self) -> Result<crate::CompiledSchema, ArrowError> {
        let example_keys = match (&self.example, self.record_keys.is_empty()) {
            (Some(example), true) => top_level_keys(example)
                .filter(|keys| keys.len() <= MAX_EXAMPLE_KEYS)
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let record_keys = if example_keys.is_empty() {
            &self.record_keys
        } else {
            &example_keys
        };
        #[allow(unused_mut)]
        let mut plan = Plan::new(self.schema.clone(), self.policy, self.is_field, record_keys)?;
        #[cfg(feature = "jit")]
        {
            let key_orders = match &self.example {
                Some(example) => plan.learn_key_orders(example),
                None => jitson_core::layout::KeyOrders::default(),
            };
            plan.jit = crate::backend::Jit::for_plan(&plan, self.backend, key_orders)?;
        }
        #[cfg(not(feature = "jit"))]
        if self.backend == Backend::Jit {
            return Err(ArrowError::NotYetImplemented(
                "jitson-arrow was built without the `jit` feature".into(),
            ));
        }
        Ok(crate::CompiledSchema {
            plan: Arc::new(plan),
            batch_size: self.batch_size,
        })
    }

    /// A push decoder (see [`Decoder`]).
    pub fn build_decoder(self) -> Result<Decoder, ArrowError> {
        Ok(self.compile()?.decoder())
    }

    /// A reader of batches from `reader` (NDJSON, concatenated records, or one
    /// top-level array of records).
    pub fn build<R: BufRead>(self, reader: R) -> Result<Reader<R>, ArrowError> {
        Ok(Reader {
            reader,
            decoder: self.build_decoder()?,
            failed: None,
        })
    }
}

impl crate::CompiledSchema {
    /// A new push decoder sharing this compiled schema.
    pub fn decoder(&self) -> Decoder {
        Decoder {
            columns: self.plan.columns(),
            plan: self.plan.clone(),
            rows: 0,
            batch_size: self.batch_size,
            pending: Vec::new(),
            scan: ValueEnd::default(),
            // A value of a field, or a record in list mode, may be an array:
            // no top-level array framing.
            framing: if self.plan.is_field || self.plan.list_structs {
                Framing::Values
            } else {
                Framing::Start
            },
            records: 0,
            at: Origin::default(),
            pending_at: Origin::default(),
            pending_framed: false,
        }
    }
}

/// Where the decoder is among the top-level values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Framing {
    /// Nothing read yet.
    Start,
    /// Records one after another (NDJSON, concatenated values).
    Values,
    /// Inside a top-level `[`; `true` once a record has been read (so `,` or `]`
    /// comes next).
    Array(bool),
    /// After the top-level `]`: only whitespace may follow.
    Done,
}

/// A push decoder, as arrow-json's `Decoder`: feed bytes with [`decode`](Self::decode),
/// take batches with [`flush`](Self::flush).
pub struct Decoder {
    plan: Arc<Plan>,
    columns: Vec<Column>,
    rows: usize,
    batch_size: usize,
    /// An incomplete record carried over from the previous `decode`.
    pending: Vec<u8>,
    scan: ValueEnd,
    framing: Framing,
    /// Records taken into earlier batches.
    records: u64,
    /// Where the current call's buffer starts: after the bytes consumed before.
    at: Origin,
    /// Where the pending record starts.
    pending_at: Origin,
    /// Whether the framing has taken the pending record's first byte as a
    /// record's (`next_record`); not when a batch filled before it.
    pending_framed: bool,
}

/// A place in the stream, as errors give it: the bytes before it, the
/// newlines among them and the characters since the last one (columns of
/// errors on the line a buffer starts in count them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Origin {
    offset: u64,
    lines: u64,
    carry: u64,
}

impl Origin {
    /// The place just after `bytes`, which start here.
    fn after(self, bytes: &[u8]) -> Origin {
        Lines::default().origin_after(self, bytes, bytes.len())
    }
}

/// Why [`Decoder::values`] stopped, with the offset it stopped at.
#[derive(Clone, Copy, Debug)]
enum Stop {
    /// The next record starts at or after the limit it was given (or the
    /// buffer is used up).
    Past(usize),
    /// The batch is full; the next record starts here.
    Full(usize),
    /// The record starting here goes on past the buffer.
    Open(usize),
}

impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoder")
            .field("rows", &self.rows)
            .field("batch_size", &self.batch_size)
            .field("pending", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl Decoder {
    /// Decodes records from `buf`; returns how many bytes were consumed. Stops
    /// early once a batch is full (call [`flush`](Self::flush), then decode the
    /// rest). `buf` may end inside a record: the part is kept and completed by the
    /// next call. On error, the rows of the failing record are discarded, the
    /// rows before it stay, and the error says where (see [`RecordError`]).
    pub fn decode(&mut self, buf: &[u8]) -> Result<usize, ArrowError> {
        let mut lines = Lines::default();
        let result = self.decode_inner(buf, &mut lines);
        if let Ok(consumed) = result {
            self.at = lines.origin_after(self.at, buf, consumed);
        }
        result
    }

    /// [`decode`](Self::decode), counting the newlines of `buf` into `lines`
    /// as its records are decoded.
    fn decode_inner(&mut self, buf: &[u8], lines: &mut Lines) -> Result<usize, ArrowError> {
        let mut pos = 0;
        // A record kept from the last call: complete it with the bytes of `buf`
        // up to where it ends, and decode what starts in the kept bytes.
        while !self.pending.is_empty() {
            let Some(end) = self.scan.run(buf) else {
                self.pending.extend_from_slice(buf);
                return Ok(buf.len());
            };
            // One byte past the end too: a scalar ends at the byte after it,
            // which its parser reads (and reports, if wrong) as the whole
            // input would have it.
            let lookahead = (end + 1).min(buf.len());
            let carried = self.pending.len();
            let mut record = std::mem::take(&mut self.pending);
            record.extend_from_slice(&buf[..lookahead]);
            // Usually one value, but a scalar ends where its parse stops, not
            // at the delimiter the scan found: `1` then `x` is `1`, and then
            // `x`, read (and refused) as in one buffer.
            match self.values(
                &record,
                0,
                self.pending_at,
                carried,
                false,
                self.pending_framed,
                &mut Lines::default(),
            )? {
                Stop::Past(at) => {
                    pos = at - carried;
                    record.clear();
                    self.pending = record;
                }
                Stop::Full(at) => {
                    // The batch is full before the kept bytes are: keep the
                    // rest of them (`flush` leaves them, as it does with a
                    // full batch) and none of `buf`.
                    self.keep(&record[..carried], at, false);
                    return Ok(0);
                }
                Stop::Open(at) => self.keep(&record[..carried], at, true),
            }
        }
        match self.values(buf, pos, self.at, usize::MAX, false, false, lines)? {
            Stop::Full(at) => Ok(at),
            Stop::Past(_) => Ok(buf.len()),
            Stop::Open(at) => {
                self.pending_at = lines.origin_after(self.at, buf, at);
                self.pending_framed = true;
                self.pending.extend_from_slice(&buf[at..]);
                Ok(buf.len())
            }
        }
    }

    /// Keeps `record[at..]` (the pending bytes from `at`: a value's start,
    /// `framed` as `pending_framed` says) for the next call, with the scan
    /// state at its end.
    fn keep(&mut self, record: &[u8], at: usize, framed: bool) {
        self.pending_at = self.pending_at.after(&record[..at]);
        self.pending_framed = framed;
        self.pending.clear();
        self.pending.extend_from_slice(&record[at..]);
        self.scan = ValueEnd::default();
        let end = self.scan.run(&self.pending);
        debug_assert!(end.is_none(), "a kept value ends inside the kept bytes");
    }

    /// Decodes the records of `buf` (which starts at `origin` in the stream)
    /// from `pos` on, until one starts at or after `stop`, the batch is full,
    /// or a record goes on past the end of `buf` (then `self.scan` has read
    /// it). With `last`, `buf` ends the stream: every record in it is decoded
    /// as it is, and fails if it is cut short. With `framed`, a record starts
    /// at `pos` (`next_record` has read up to it). The newlines up to the end
    /// of each record decoded are counted into `lines`.
    #[allow(clippy::too_many_arguments)]
    fn values(
        &mut self,
        buf: &[u8],
        mut pos: usize,
        origin: Origin,
        stop: usize,
        last: bool,
        mut framed: bool,
        lines: &mut Lines,
    ) -> Result<Stop, ArrowError> {
        loop {
            if pos >= stop {
                return Ok(Stop::Past(pos));
            }
            if !framed {
                if self.rows >= self.batch_size {
                    return Ok(Stop::Full(pos));
                }
                pos = match self.next_record(buf, pos, origin)? {
                    Some(p) => p,
                    None => return Ok(Stop::Past(buf.len())),
                };
            }
            framed = false;
            // The record is decoded from a slice that starts with it: an error
            // (the last record of a buffer is usually cut short) then finds its
            // line and column in the record's bytes, not in the whole buffer
            // before it, and the record's own position is counted only if the
            // error stands.
            let rest = &buf[pos..];
            // A top-level number or literal (`new_with_field`) that reaches
            // the end of the buffer may go on in the next one (`12` then
            // `34`): keep it until a delimiter, or the end of the stream
            // (`flush`), says where it ends.
            if !last && !matches!(rest[0], b'{' | b'[' | b'"') {
                let mut scan = ValueEnd::default();
                if scan.run(rest).is_none() {
                    self.scan = scan;
                    return Ok(Stop::Open(pos));
                }
            }
            let mut at = 0;
            match self.plan.decode_record(rest, &mut at, &mut self.columns) {
                Ok(()) => {
                    self.rows += 1;
                    pos += at;
                    lines.count_to(buf, pos);
                }
                Err(e) => {
                    // A record that fails may go on in the next buffer (a
                    // truncated object, a number cut in two): keep it, unless it
                    // visibly ends here, and then the error stands.
                    self.scan = ValueEnd::default();
                    if last || self.scan.run(rest).is_some() {
                        let record = self.records + self.rows as u64;
                        let at = origin.after(&buf[..pos]);
                        let e = RecordError::new(&self.plan.schema, &e, record, at);
                        return Err(Box::new(e).into());
                    }
                    return Ok(Stop::Open(pos));
                }
            }
        }
    }

    /// Skips whitespace and top-level separators; the offset of the next record,
    /// or `None` when `buf` holds no more.
    fn next_record(
        &mut self,
        buf: &[u8],
        mut pos: usize,
        origin: Origin,
    ) -> Result<Option<usize>, ArrowError> {
        loop {
            while pos < buf.len() && matches!(buf[pos], b' ' | b'\t' | b'\n' | b'\r') {
                pos += 1;
            }
            let Some(&b) = buf.get(pos) else {
                return Ok(None);
            };
            match (self.framing, b) {
                (Framing::Start, b'[') => {
                    self.framing = Framing::Array(false);
                    pos += 1;
                }
                (Framing::Start, _) => self.framing = Framing::Values,
                (Framing::Array(true), b',') => {
                    self.framing = Framing::Array(false);
                    pos += 1;
                }
                (Framing::Array(_), b']') => {
                    self.framing = Framing::Done;
                    pos += 1;
                }
                (Framing::Array(false), _) | (Framing::Values, _) => {
                    if let Framing::Array(_) = self.framing {
                        self.framing = Framing::Array(true);
                    }
                    return Ok(Some(pos));
                }
                (Framing::Array(true), _) | (Framing::Done, _) => {
                    let what = if self.framing == Framing::Done {
                        "trailing characters after the top-level array"
                    } else {
                        "expected `,` or `]` between records"
                    };
                    return Err(self.framing_error(buf, pos, origin, what).into());
                }
            }
        }
    }

    /// At the end of the input: the input must not end inside a top-level
    /// array (its records were read one by one, so no record is left open
    /// there for `flush` to refuse).
    fn end_of_input(&self) -> Result<(), Box<RecordError>> {
        match self.framing {
            Framing::Array(_) => Err(self.framing_error(
                &[],
                0,
                self.at,
                "the input ends inside the top-level array",
            )),
            _ => Ok(()),
        }
    }

    fn framing_error(
        &self,
        buf: &[u8],
        pos: usize,
        origin: Origin,
        what: &str,
    ) -> Box<RecordError> {
        let at = origin.after(&buf[..pos]);
        Box::new(RecordError {
            record: self.records + self.rows as u64,
            line: at.lines + 1,
            column: at.carry + 1,
            byte: at.offset,
            path: "$".into(),
            column_name: None,
            data_type: None,
            message: what.into(),
        })
    }

    /// Whether the input so far ends inside a record (kept for the next
    /// [`decode`](Self::decode); [`flush`](Self::flush) would fail).
    pub fn has_partial_record(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Appends `rows`, serialized with serde (serde_json's data model), as
    /// arrow-json's `Decoder::serialize`: every row is buffered whatever the
    /// batch size, for the next [`flush`](Self::flush). Each row is written as
    /// JSON text by serde_json and read back by the compiled schema, so it is
    /// accepted exactly when its JSON text would be; the rows count as records
    /// of the stream in later error positions.
    ///
    /// Errors: a row serde_json cannot serialize (a map with non-string keys
    /// that are not numbers, a failing `Serialize` impl), a row the schema
    /// refuses (with the record error of its text, which is then dropped with
    /// the rows before it of this call), or a partial record pending from
    /// [`decode`](Self::decode).
    pub fn serialize<S: serde::Serialize>(&mut self, rows: &[S]) -> Result<(), ArrowError> {
        if self.has_partial_record() {
            return Err(ArrowError::JsonError(
                "cannot serialize rows while a partial record is pending".into(),
            ));
        }
        let mut text = Vec::with_capacity(rows.len() * 64);
        // arrow-json's rules read each float by its column's rule
        // (`serialize.rs`); strict parsing reads serde_json's own text, as a
        // round trip through serde_json would.
        let policy = self.plan.policy;
        let record = DataType::Struct(self.plan.schema.fields().clone());
        let ty = match self.plan.schema.fields().first() {
            Some(field) if self.plan.is_field => field.data_type(),
            _ => &record,
        };
        for row in rows {
            let written = if policy.strict_parsing {
                serde_json::to_writer(&mut text, row)
            } else {
                let row = crate::serialize::Typed {
                    value: row,
                    ty: Some(ty),
                    coerce: policy.coerce_primitive,
                };
                serde_json::to_writer(&mut text, &row)
            };
            written.map_err(|e| ArrowError::JsonError(e.to_string()))?;
            text.push(b'\n');
        }
        let batch_size = std::mem::replace(&mut self.batch_size, usize::MAX);
        let result = self.decode(&text);
        self.batch_size = batch_size;
        let consumed = result?;
        if consumed != text.len() || self.has_partial_record() {
            return Err(ArrowError::JsonError(
                "serialized rows did not decode completely".into(),
            ));
        }
        Ok(())
    }

    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.plan.schema.clone()
    }

    /// Whether no rows are buffered.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// This decoder with batches of at most `batch_size` rows (at least 1)
    /// in place of its compiled schema's: [`decode`](Self::decode) stops
    /// once a batch holds that many (at once, if it holds more already: rows
    /// decoded under a larger size, or a record begun before, are kept, and
    /// [`flush`](Self::flush) gives them all). The batch size is the decoder's, not
    /// the generated code's, so nothing is compiled again. A scan under a
    /// `LIMIT n` below its batch size asks for `n` rows this way and decodes
    /// no record past them (jitson-datafusion's scans do).
    pub fn with_batch_size(mut self, batch_size: usize) -> Decoder {
        self.batch_size = batch_size.max(1);
        self
    }

    /// Rows buffered.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// The buffered rows as a batch (`None` when there are none). An incomplete
    /// record left by the last `decode` is an error, as in arrow-json, and is
    /// kept: a later [`decode`](Self::decode) may still complete it. That
    /// includes a top-level number the input so far ends in (`12` may go on
    /// as `1234`), which only the end of the stream ends; jitson's
    /// [`Reader`] and whole-input readers read one there (docs/arrow.md,
    /// difference 5).
    pub fn flush(&mut self) -> Result<Option<RecordBatch>, ArrowError> {
        self.flush_inner(false)
    }

    /// [`flush`](Self::flush), or with `end` the flush at the end of the
    /// stream, where a pending top-level scalar is complete.
    fn flush_inner(&mut self, end: bool) -> Result<Option<RecordBatch>, ArrowError> {
        // (With a full batch, the kept bytes wait for the next `decode` or
        // `flush`: see `decode_inner`.)
        if !self.pending.is_empty() && self.rows < self.batch_size {
            if !end && self.pending_number() {
                return Err(self
                    .framing_error(
                        &self.pending,
                        0,
                        self.pending_at,
                        "the input so far ends inside a number, which more input may continue",
                    )
                    .into());
            }
            // A top-level scalar kept for a delimiter is complete now;
            // anything else fails here, with its position, and stays kept.
            // What follows the scalar's parse in the kept bytes (`x` of `1x`)
            // is read as more records.
            let record = std::mem::take(&mut self.pending);
            // A failure keeps the record as the last `decode` left it: its
            // scan's state and the framing too, which the failed reading
            // moved (a fresh scan would then look for the record's end from
            // its middle, in a string, and take two records for one).
            let (scan, framing) = (self.scan, self.framing);
            match self.values(
                &record,
                0,
                self.pending_at,
                usize::MAX,
                true,
                self.pending_framed,
                &mut Lines::default(),
            ) {
                Ok(Stop::Past(_)) => self.scan = ValueEnd::default(),
                Ok(Stop::Full(at)) => self.keep(&record, at, false),
                Ok(Stop::Open(_)) => unreachable!("the last buffer keeps nothing open"),
                Err(e) => {
                    (self.pending, self.scan, self.framing) = (record, scan, framing);
                    return Err(e);
                }
            }
        }
        if self.rows == 0 {
            return Ok(None);
        }
        let rows = std::mem::take(&mut self.rows);
        self.records += rows as u64;
        self.plan.batch(&mut self.columns, rows).map(Some)
    }

    /// Whether the pending record is a top-level number (its first byte
    /// after whitespace a `-` or a digit).
    fn pending_number(&self) -> bool {
        self.pending
            .iter()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .is_some_and(|&b| b == b'-' || b.is_ascii_digit())
    }
}

/// Reads batches from a [`BufRead`], as arrow-json's `Reader`. After an
/// error in the input, every later item is that error again, as in
/// arrow-json (whose decoder stays inside the broken record): the records
/// of the buffer before it were decoded already, and reading the buffer
/// again would give them twice.
#[derive(Debug)]
pub struct Reader<R> {
    reader: R,
    decoder: Decoder,
    /// The error in the input, once met.
    failed: Option<Failed>,
}

/// An error the reader gives again: a record's, or another's text.
#[derive(Debug)]
enum Failed {
    Record(Box<RecordError>),
    Other(String),
}

impl Failed {
    fn of(e: &ArrowError) -> Failed {
        match e {
            ArrowError::ExternalError(inner) => match inner.downcast_ref::<RecordError>() {
                Some(record) => Failed::Record(Box::new(record.clone())),
                None => Failed::Other(e.to_string()),
            },
            ArrowError::JsonError(text) => Failed::Other(text.clone()),
            other => Failed::Other(other.to_string()),
        }
    }

    fn error(&self) -> ArrowError {
        match self {
            Failed::Record(record) => record.clone().into(),
            Failed::Other(text) => ArrowError::JsonError(text.clone()),
        }
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(failed) = &self.failed {
            return Some(Err(failed.error()));
        }
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) => return Some(Err(ArrowError::from(e))),
            };
            if buf.is_empty() {
                if let Err(e) = self.decoder.end_of_input() {
                    let e = ArrowError::from(e);
                    self.failed = Some(Failed::of(&e));
                    return Some(Err(e));
                }
                return self.flush(true);
            }
            let len = buf.len();
            let consumed = match self.decoder.decode(buf) {
                Ok(n) => n,
                Err(e) => {
                    self.failed = Some(Failed::of(&e));
                    return Some(Err(e));
                }
            };
            self.reader.consume(consumed);
            if consumed < len {
                return self.flush(false);
            }
        }
    }
}

impl<R> Reader<R> {
    /// The decoder's batch (with `end`, at the end of the input); an error
    /// (input that ends inside a record) is kept, as [`next`](Iterator::next)'s
    /// are.
    fn flush(&mut self, end: bool) -> Option<Result<RecordBatch, ArrowError>> {
        let flushed = self.decoder.flush_inner(end);
        if let Err(e) = &flushed {
            self.failed = Some(Failed::of(e));
        }
        flushed.transpose()
    }
}

impl<R: BufRead> arrow_array::RecordBatchReader for Reader<R> {
    fn schema(&self) -> SchemaRef {
        self.decoder.schema()
    }
}

/// An error in one record, with everything needed to find and fix it. Returned
/// inside [`ArrowError::ExternalError`], so callers may downcast to it; printed
/// through the `ArrowError`, it follows arrow's `External error: ` prefix
/// (`External error: record 3 (line 5, column 37, byte 229) at $.req.status …`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// The record's number, from 0, in the whole stream.
    pub record: u64,
    /// 1-based line of the error in the whole stream.
    pub line: u64,
    /// 1-based column of the error in its line, in characters (as
    /// `jitson::Error::column`; [`byte`](Self::byte) is the byte offset).
    pub column: u64,
    /// Byte offset of the error in the whole stream.
    pub byte: u64,
    /// JSON path inside the record (`$.request.tags[2]`).
    pub path: String,
    /// The column the value belongs to (dotted for nested fields), if any.
    pub column_name: Option<String>,
    /// That column's Arrow type.
    pub data_type: Option<DataType>,
    /// What went wrong, in serde_json's words ("invalid type: string \"x\",
    /// expected i64").
    pub message: String,
}

impl RecordError {
    /// `at`: where the decoded slice starts: its stream offset, the newlines
    /// before it, and the characters of its first line before it.
    fn new(schema: &SchemaRef, e: &jitson_core::Error, record: u64, at: Origin) -> RecordError {
        let Origin {
            offset: base,
            lines,
            carry,
        } = at;
        // The column: follow the path's field names through the schema.
        let mut fields = Some(schema.fields());
        let mut names: Vec<&str> = Vec::new();
        let mut data_type = None;
        for segment in e.path_segments() {
            let PathSegment::Field(name) = segment else {
                continue;
            };
            let Some(field) = fields.and_then(|fs| fs.iter().find(|f| f.name() == name)) else {
                break;
            };
            names.push(field.name());
            data_type = Some(field.data_type().clone());
            let mut inner = field.data_type();
            while let DataType::List(f) | DataType::LargeList(f) = inner {
                inner = f.data_type();
            }
            fields = match inner {
                DataType::Struct(children) => Some(children),
                _ => None,
            };
        }
        let message = e.code().to_string();
        RecordError {
            record,
            line: lines + e.line() as u64,
            column: if e.line() == 1 {
                carry + e.column() as u64
            } else {
                e.column() as u64
            },
            byte: base + e.offset() as u64,
            path: e.path(),
            column_name: (!names.is_empty()).then(|| names.join(".")),
            data_type,
            message,
        }
    }
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "record {} (line {}, column {}, byte {}) at {}",
            self.record, self.line, self.column, self.byte, self.path
        )?;
        if let (Some(name), Some(t)) = (&self.column_name, &self.data_type) {
            write!(f, " (column `{name}`: {t})")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for RecordError {}

impl From<Box<RecordError>> for ArrowError {
    fn from(e: Box<RecordError>) -> ArrowError {
        ArrowError::ExternalError(e)
    }
}

/// The newlines of a buffer's first `counted` bytes, counted record by record
/// while each record's bytes are still in cache (a count of each consumed
/// buffer after the fact read it all from memory again: about 6 % of the
/// twitter reader's profile), and where the last of them ends.
#[derive(Default)]
struct Lines {
    counted: usize,
    newlines: u64,
    /// The offset just after the last newline counted (0 when there is none).
    line_start: usize,
}

impl Lines {
    /// Counts the newlines of `buf[self.counted..end]`.
    #[inline]
    fn count_to(&mut self, buf: &[u8], end: usize) {
        let Some(bytes) = buf.get(self.counted..end) else {
            return;
        };
        let newlines = count_newlines(bytes);
        if newlines > 0 {
            self.newlines += newlines;
            // Usually the one newline before the record, and in NDJSON its
            // first byte: taken without a search.
            let last = if newlines == 1 && bytes[0] == b'\n' {
                0
            } else if newlines == 1 {
                memchr::memchr(b'\n', bytes).unwrap_or(0)
            } else {
                memchr::memrchr(b'\n', bytes).unwrap_or(0)
            };
            self.line_start = self.counted + last + 1;
        }
        self.counted = end;
    }

    /// The place after `buf[..end]`, `buf` starting at `origin`: the count
    /// so far, completed up to `end` (or made afresh if it went past it).
    /// Columns count characters, so the last line's bytes are decoded as
    /// UTF-8 (counted, not validated).
    fn origin_after(&mut self, origin: Origin, buf: &[u8], end: usize) -> Origin {
        if self.counted > end {
            *self = Lines::default();
        }
        self.count_to(buf, end);
        let (lines, carry) = if self.newlines == 0 {
            (
                origin.lines,
                origin.carry + bytecount::num_chars(&buf[..end]) as u64,
            )
        } else {
            (
                origin.lines + self.newlines,
                bytecount::num_chars(&buf[self.line_start..end]) as u64,
            )
        };
        Origin {
            offset: origin.offset + end as u64,
            lines,
            carry,
        }
    }
}

/// Newlines in `bytes`: every consumed byte is counted, so that errors give
/// exact lines; SIMD (bytecount), because a byte-at-a-time count cost 7 % of a
/// whole decode (perf, `examples/ndjson.rs`).
fn count_newlines(bytes: &[u8]) -> u64 {
    bytecount::count(bytes, b'\n') as u64
}

/// The most top-level keys an example record's keys are taken from: each
/// becomes a field the decoder speculates on (and compiles code for), and a
/// record without it then costs a miss, so a very wide example costs more
/// than it saves (a helper's measurements: 1,000 keys, a 767 ms compile and
/// records of two keys 35 times slower to decode).
const MAX_EXAMPLE_KEYS: usize = 256;

/// The keys of the JSON object `record` starts with (after whitespace), in
/// order; `None` if it does not start with one whole object whose keys have
/// no escapes.
fn top_level_keys(record: &[u8]) -> Option<Vec<String>> {
    use jitson_core::text::{ignore_value, scan_plain, skip_ws};
    let mut pos = skip_ws(record, 0);
    if record.get(pos) != Some(&b'{') {
        return None;
    }
    pos = skip_ws(record, pos + 1);
    let mut keys = Vec::new();
    if record.get(pos) == Some(&b'}') {
        return Some(keys);
    }
    loop {
        if record.get(pos) != Some(&b'"') {
            return None;
        }
        let (end, _) = scan_plain(record, pos + 1);
        if record.get(end) != Some(&b'"') {
            return None;
        }
        keys.push(std::str::from_utf8(&record[pos + 1..end]).ok()?.to_owned());
        pos = skip_ws(record, end + 1);
        if record.get(pos) != Some(&b':') {
            return None;
        }
        pos = skip_ws(
            record,
            ignore_value(record, skip_ws(record, pos + 1), true).ok()?,
        );
        match record.get(pos) {
            Some(b',') => pos = skip_ws(record, pos + 1),
            Some(b'}') => return Some(keys),
            _ => return None,
        }
    }
}

impl Plan {
    /// The key orders the interpreter records reading `example` as a record
    /// of this plan (the first object of each struct layout it meets; see
    /// [`KeyOrders`](jitson_core::layout::KeyOrders)), into columns of its
    /// own that are then dropped. What it recorded before an error stands:
    /// an order is only ever a guess.
    #[cfg(feature = "jit")]
    pub(crate) fn learn_key_orders(&self, example: &[u8]) -> jitson_core::layout::KeyOrders {
        let mut orders = jitson_core::layout::KeyOrders::default();
        let mut columns = self.columns();
        let options = jitson_fallback::Options {
            max_depth: MAX_DEPTH,
            validate_utf8: true,
        };
        // SAFETY: `columns` are this plan's columns, which is what its root
        // layout (a struct whose field `i` is column `i`) describes.
        let _ = unsafe {
            jitson_fallback::decode_prefix(
                example,
                self.root,
                columns.as_mut_ptr().cast(),
                &options,
                Some(&mut orders),
            )
        };
        orders
    }

    /// Decodes the record at `*pos` of `input` into `columns`, advancing `*pos`
    /// past it. On error the columns are as they were.
    pub(crate) fn decode_record(
        &self,
        input: &[u8],
        pos: &mut usize,
        columns: &mut [Column],
    ) -> Result<(), jitson_core::Error> {
        let dst = columns.as_mut_ptr().cast::<u8>();
        #[cfg(feature = "jit")]
        // On failure, the interpreter, from the record's start, says why.
        if let Some(jit) = &self.jit
            && jit.decode(input, pos, dst)
        {
            return Ok(());
        }
        // SAFETY: `dst` is the array of this plan's columns, which is what its
        // root layout (a struct whose field `i` is column `i`) describes.
        unsafe {
            jitson_fallback::decode_value_at(
                input,
                pos,
                MAX_DEPTH,
                jitson_core::stack::limit(),
                &mut jitson_core::elements::Elements::lease(),
                self.root,
                dst,
                true,
                jitson_fallback::Buffering::default(),
            )
        }
    }
}

/// One chunk's batches and record count, or its first error.
type ChunkResult = Result<(Vec<RecordBatch>, u64), Box<RecordError>>;

/// Decodes `input` (NDJSON: one record per line) on all cores: the input is cut
/// at newlines into chunks of about `chunk_bytes`, each decoded by its own
/// decoder into batches of the schema's batch size, and the batches are
/// returned in input order. Errors carry the record number and line in the
/// whole input.
///
/// The answer never depends on the cuts (so neither on `chunk_bytes` nor on the
/// number of cores): a chunk cut inside a record that spans lines always fails
/// (its decoder is left with an incomplete record), so when any chunk fails
/// the whole input is decoded again in one piece, and that answer stands: the
/// one [`Decoder`] gives on the whole stream. Only input that fails (or whose
/// records span lines) pays for the second decode.
pub(crate) fn decode_parallel(
    schema: &crate::CompiledSchema,
    input: &[u8],
    chunk_bytes: usize,
) -> Result<Vec<RecordBatch>, ArrowError> {
    use rayon::prelude::*;
    // A top-level array of records is one value, not lines: in one piece.
    let opens_array = !(schema.plan.is_field || schema.plan.list_structs)
        && input
            .iter()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            == Some(&b'[');
    if opens_array {
        return decode_chunk(schema, input, 0..input.len())
            .map(|(batches, _)| batches)
            .map_err(ArrowError::from);
    }
    let chunks = jitson_core::text::line_chunks(input, chunk_bytes);
    let results: Vec<ChunkResult> = chunks
        .par_iter()
        .map(|range| decode_chunk(schema, input, range.clone()))
        .collect();
    if chunks.len() > 1 && results.iter().any(Result::is_err) {
        return decode_chunk(schema, input, 0..input.len())
            .map(|(batches, _)| batches)
            .map_err(ArrowError::from);
    }
    let mut out = Vec::new();
    let mut records = 0;
    for (range, result) in chunks.iter().zip(results) {
        match result {
            Ok((batches, n)) => {
                out.extend(batches);
                records += n;
            }
            Err(mut e) => {
                e.record += records;
                e.line += count_newlines(&input[..range.start]);
                return Err(e.into());
            }
        }
    }
    Ok(out)
}

/// Decodes `input[range]` (which starts a line) with a decoder of its own.
/// Only the first chunk (at offset 0) may open a top-level array (input that does is
/// decoded in one piece): a later one starts among records, so a `[` there
/// is a record's, refused as in one piece. Input that ends inside the
/// array fails.
fn decode_chunk(
    schema: &crate::CompiledSchema,
    input: &[u8],
    range: std::ops::Range<usize>,
) -> ChunkResult {
    let mut decoder = schema.decoder();
    if range.start > 0 && decoder.framing == Framing::Start {
        decoder.framing = Framing::Values;
    }
    decoder.at.offset = range.start as u64;
    let chunk = &input[range];
    let mut batches = Vec::new();
    let mut pos = 0;
    let mut records = 0;
    let ours = |e: ArrowError| match e {
        ArrowError::ExternalError(b) => b.downcast::<RecordError>().expect("ours"),
        other => unreachable!("decoders fail only with RecordError: {other}"),
    };
    loop {
        pos += decoder.decode(&chunk[pos..]).map_err(ours)?;
        // A chunk's end is a record's, or the input's.
        if let Some(batch) = decoder.flush_inner(pos >= chunk.len()).map_err(ours)? {
            records += batch.num_rows() as u64;
            batches.push(batch);
        }
        if pos >= chunk.len() {
            decoder.end_of_input()?;
            return Ok((batches, records));
        }
    }
}
