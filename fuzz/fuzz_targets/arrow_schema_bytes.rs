//! Target 4: jitson-arrow. The first bytes of the input build a small Arrow
//! schema and the reader's options; the next two choose where the rest, the
//! NDJSON, is split across two `decode` calls of the push decoder. Both backends
//! (interpreter, JIT) must not panic and must agree exactly: the same batches,
//! or the same batches then the same `RecordError` (record, line, column, byte,
//! path, column name, type, message). Every batch's arrays must pass
//! `validate_full`. The interpreter's outcome must not depend on the split
//! (the same batches and error as one `decode` call over the whole input).
//!
//! Then the writer: the decoded batches (whole, and each sliced past its first
//! row) written back by `jitson_arrow::writer` on both backends, as NDJSON and
//! as an array, explicit nulls on and off, both struct modes, must be
//! arrow-json's bytes (or fail where arrow-json's writer fails).
//!
//! Header (every byte is taken modulo what it selects, so any input is a case):
//!
//! - byte 0: bits 0–1 batch size − 1; bit 2 strict mode; bit 3 coerce
//!   primitives; bit 4 ignore type conflicts; bits 5–6 top-level fields − 1;
//!   bit 7: one of the fixed schemas of `FIXED`, chosen by the next byte,
//!   instead of types read from the input. Compiling a schema under ASan costs
//!   0.2–0.5 s against about a millisecond for a decode, so inputs that keep
//!   their schema while the fuzzer mutates them run hundreds of times faster;
//!   the others explore schemas.
//! - one byte per type (without bit 7): bit 7 nullable, the rest modulo 21: 0–16 the scalars of
//!   `LEAVES`, 17 `List`, 18 `LargeList`, 19 `Struct` (its next byte: 1–3
//!   fields), 20 `Map` with Utf8 keys; containers nest at most 2 deep (deeper,
//!   the byte picks a scalar). Element, child and value types follow their
//!   container's byte.
//! - two bytes: the split offset (little-endian, modulo the NDJSON's length + 1).
//!
//! Field names are short (`a`–`d` at the top, `x`–`z` in structs) so that the
//! fuzzer finds them.
#![no_main]

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, TimeUnit};
use jitson_arrow::{Backend, CompiledSchema, ReaderBuilder, RecordError, StructMode};
use libfuzzer_sys::fuzz_target;

const LEAVES: [DataType; 17] = [
    DataType::Boolean,
    DataType::Int8,
    DataType::Int16,
    DataType::Int32,
    DataType::Int64,
    DataType::UInt8,
    DataType::UInt16,
    DataType::UInt32,
    DataType::UInt64,
    DataType::Float32,
    DataType::Float64,
    DataType::Utf8,
    DataType::LargeUtf8,
    DataType::Utf8View,
    DataType::Timestamp(TimeUnit::Millisecond, None),
    DataType::Date32,
    DataType::Decimal128(10, 2),
];

/// Fixed schemas, as type bytes (see the module docs): (fields, bytes).
const FIXED: [(usize, &[u8]); 8] = [
    // a: Int64?, b: Utf8, c: List<Float64?>?, d: Struct{x: Timestamp?, y: Date32}?
    (4, &[0x84, 0x0b, 0x91, 0x8a, 0x93, 1, 0x8e, 0x0f]),
    // a: Map<Decimal128?>?, b: LargeList<Struct{x: Utf8View?, y: UInt8}?>
    (2, &[0x94, 0x90, 0x12, 0x93, 1, 0x8d, 0x05]),
    // a: List<List<Float32?>?>?
    (1, &[0x91, 0x91, 0x89]),
    // a: Struct{x: Map<Int32?>, y: LargeUtf8?, z: Boolean}?, b: UInt64?, c: Int8,
    // d: Float64?
    (4, &[0x93, 2, 0x14, 0x83, 0x8c, 0x00, 0x88, 0x01, 0x8a]),
    // a: Utf8?, b: Int32? (with coercion, the flags permitting)
    (2, &[0x8b, 0x83]),
    // a: LargeList<Map<Utf8?>>?, b: Struct{x: Struct{x: Int16?}?}
    (2, &[0x92, 0x14, 0x8b, 0x13, 0, 0x93, 0, 0x82]),
    // a: Timestamp?, b: Date32?, c: Decimal128?, d: Utf8View?
    (4, &[0x8e, 0x8f, 0x90, 0x8d]),
    // a: Map<Struct{x: Boolean?, y: UInt16?}?>?, b: List<LargeUtf8>
    (2, &[0x94, 0x93, 1, 0x80, 0x86, 0x11, 0x0c]),
];

const TOP: [&str; 4] = ["a", "b", "c", "d"];
const CHILDREN: [&str; 3] = ["x", "y", "z"];

/// Reads the header from the front of `data`.
struct Header<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Header<'_> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.data.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    /// A field named `name`: its type and nullability from the next bytes.
    fn field(&mut self, name: &str, depth: u32) -> Option<Field> {
        let b = self.byte()?;
        let nullable = b & 0x80 != 0;
        let mut choice = usize::from(b & 0x7f) % 21;
        if depth >= 2 && choice >= LEAVES.len() {
            choice %= LEAVES.len();
        }
        let t = match choice {
            17 => DataType::List(Arc::new(self.field("item", depth + 1)?)),
            18 => DataType::LargeList(Arc::new(self.field("item", depth + 1)?)),
            19 => {
                let n = usize::from(self.byte()? % 3) + 1;
                let children = CHILDREN[..n]
                    .iter()
                    .map(|name| self.field(name, depth + 1))
                    .collect::<Option<Vec<_>>>()?;
                DataType::Struct(Fields::from(children))
            }
            20 => {
                let value = self.field("values", depth + 1)?;
                let entries = Field::new(
                    "entries",
                    DataType::Struct(Fields::from(vec![
                        Field::new("keys", DataType::Utf8, false),
                        value,
                    ])),
                    false,
                );
                DataType::Map(Arc::new(entries), false)
            }
            leaf => LEAVES[leaf].clone(),
        };
        Some(Field::new(name, t, nullable))
    }
}

/// How a decode ended: the batches flushed, then the error, if any.
#[derive(Debug, PartialEq)]
struct Outcome {
    batches: Vec<RecordBatch>,
    error: Option<Failure>,
}

#[derive(Clone, Debug, PartialEq)]
enum Failure {
    Record(RecordError),
    Other(String),
}

impl From<ArrowError> for Failure {
    fn from(e: ArrowError) -> Failure {
        match e {
            ArrowError::ExternalError(e) => match e.downcast::<RecordError>() {
                Ok(e) => Failure::Record(*e),
                Err(e) => Failure::Other(format!("external: {e}")),
            },
            other => Failure::Other(other.to_string()),
        }
    }
}

/// Feeds `input[..split]`, then the rest, flushing whenever a batch is full.
fn decode(compiled: &CompiledSchema, input: &[u8], split: usize) -> Outcome {
    let mut decoder = compiled.decoder();
    let mut batches = Vec::new();
    for part in [&input[..split], &input[split..]] {
        let mut part = part;
        while !part.is_empty() {
            let n = match decoder.decode(part) {
                Ok(n) => n,
                Err(e) => {
                    return Outcome {
                        batches,
                        error: Some(e.into()),
                    };
                }
            };
            part = &part[n..];
            if !part.is_empty() {
                assert!(n > 0 || !decoder.is_empty(), "decode made no progress");
                match decoder.flush() {
                    Ok(b) => batches.extend(b),
                    Err(e) => {
                        return Outcome {
                            batches,
                            error: Some(e.into()),
                        };
                    }
                }
            }
        }
    }
    let error = match decoder.flush() {
        Ok(b) => {
            batches.extend(b);
            None
        }
        Err(e) => Some(e.into()),
    };
    Outcome { batches, error }
}

/// Whether the split decode gives what the whole input gives.
fn split_agrees(whole: &Outcome, split: &Outcome) -> bool {
    whole == split
}

thread_local! {
    /// Compiled schemas by schema and options: compiling (under ASan, slowly)
    /// once per schema, not once per input. Header bytes that differ but pick
    /// the same schema (types are taken modulo their count) share an entry.
    static SCHEMAS: RefCell<HashMap<(String, u8), [CompiledSchema; 2]>> =
        RefCell::new(HashMap::new());
}

fn compiled(key: (String, u8), builder: impl Fn(Backend) -> ReaderBuilder) -> [CompiledSchema; 2] {
    SCHEMAS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(c) = cache.get(&key) {
            return c.clone();
        }
        if cache.len() >= 2048 {
            cache.clear();
        }
        let c = match (
            builder(Backend::Interpreter).compile(),
            builder(Backend::Jit).compile(),
        ) {
            (Ok(i), Ok(j)) => [i, j],
            // Every generated schema is supported: both must compile.
            (i, j) => panic!("compile failed: interpreter {i:?}, JIT {j:?}"),
        };
        cache.insert(key, c.clone());
        c
    })
}

fuzz_target!(|data: &[u8]| {
    let mut h = Header { data, pos: 0 };
    let Some(flags) = h.byte() else { return };
    let fields = if flags & 0x80 != 0 {
        // One of the fixed schemas: their types from `FIXED`, not the input.
        let Some(which) = h.byte() else { return };
        let (count, types) = FIXED[usize::from(which) % FIXED.len()];
        let mut fixed = Header {
            data: types,
            pos: 0,
        };
        TOP[..count]
            .iter()
            .map(|name| fixed.field(name, 0))
            .collect::<Option<Vec<_>>>()
            .expect("a complete fixed schema")
    } else {
        let count = usize::from((flags >> 5) & 3) + 1;
        let Some(fields) = TOP[..count]
            .iter()
            .map(|name| h.field(name, 0))
            .collect::<Option<Vec<_>>>()
        else {
            return;
        };
        fields
    };
    let schema = Arc::new(Schema::new(fields));
    let (Some(s0), Some(s1)) = (h.byte(), h.byte()) else {
        return;
    };
    let input = &data[h.pos..];
    let split = usize::from(u16::from_le_bytes([s0, s1])) % (input.len() + 1);
    let builder = |backend| {
        ReaderBuilder::new(schema.clone())
            .with_batch_size(usize::from(flags & 3) + 1)
            .with_strict_mode(flags & 4 != 0)
            .with_coerce_primitive(flags & 8 != 0)
            .with_ignore_type_conflicts(flags & 16 != 0)
            .with_backend(backend)
    };
    let [interpreter, jit] = compiled((format!("{schema:?}"), flags & 0x1f), builder);
    let interpreted = decode(&interpreter, input, split);
    let generated = decode(&jit, input, split);
    assert_eq!(
        interpreted, generated,
        "backends disagree on {schema:?}, split at {split}"
    );
    for batch in &interpreted.batches {
        for column in batch.columns() {
            column.to_data().validate_full().expect("a valid array");
        }
    }
    let whole = decode(&interpreter, input, input.len());
    assert!(
        split_agrees(&whole, &interpreted),
        "the split at {split} changes the outcome on {schema:?}:\n\
         whole: {whole:?}\nsplit: {interpreted:?}"
    );
    let mut batches: Vec<RecordBatch> = interpreted.batches.clone();
    batches.extend(
        interpreted
            .batches
            .iter()
            .filter(|b| b.num_rows() > 1)
            .map(|b| b.slice(1, b.num_rows() - 1)),
    );
    if !batches.is_empty() {
        written_as_arrow_json_writes(&batches.iter().collect::<Vec<_>>());
    }
});

/// jitson's writer, both backends, every option set and framing, against
/// arrow-json's writer on the same batches.
fn written_as_arrow_json_writes(batches: &[&RecordBatch]) {
    for explicit in [false, true] {
        for mode in [StructMode::ObjectOnly, StructMode::ListOnly] {
            let arrow_mode = match mode {
                StructMode::ObjectOnly => arrow_json::StructMode::ObjectOnly,
                StructMode::ListOnly => arrow_json::StructMode::ListOnly,
            };
            let theirs = |array: bool| -> Result<Vec<u8>, ArrowError> {
                let builder = arrow_json::WriterBuilder::new()
                    .with_explicit_nulls(explicit)
                    .with_struct_mode(arrow_mode);
                let mut out = Vec::new();
                if array {
                    let mut w = builder.build::<_, arrow_json::writer::JsonArray>(&mut out);
                    w.write_batches(batches)?;
                    w.finish()?;
                } else {
                    let mut w = builder.build::<_, arrow_json::writer::LineDelimited>(&mut out);
                    w.write_batches(batches)?;
                    w.finish()?;
                }
                Ok(out)
            };
            for backend in [Backend::Interpreter, Backend::Jit] {
                let ours = |array: bool| -> Result<Vec<u8>, ArrowError> {
                    let builder = jitson_arrow::writer::WriterBuilder::new()
                        .with_explicit_nulls(explicit)
                        .with_struct_mode(mode)
                        .with_backend(backend);
                    let mut out = Vec::new();
                    if array {
                        let mut w = builder.build::<_, jitson_arrow::writer::JsonArray>(&mut out);
                        w.write_batches(batches)?;
                        w.finish()?;
                    } else {
                        let mut w =
                            builder.build::<_, jitson_arrow::writer::LineDelimited>(&mut out);
                        w.write_batches(batches)?;
                        w.finish()?;
                    }
                    Ok(out)
                };
                for array in [false, true] {
                    match (theirs(array), ours(array)) {
                        (Ok(expected), Ok(got)) => assert!(
                            expected == got,
                            "writer bytes differ ({backend:?}, explicit nulls {explicit}, \
                             {mode:?}, array {array}):\n arrow-json: {}\n jitson:     {}",
                            String::from_utf8_lossy(&expected),
                            String::from_utf8_lossy(&got)
                        ),
                        (Err(_), Err(_)) => {}
                        (expected, got) => panic!(
                            "writers disagree on failing ({backend:?}): arrow-json {:?}, jitson {:?}",
                            expected.map(|_| ()),
                            got.map(|_| ())
                        ),
                    }
                }
            }
        }
    }
}
