//! What the reader's test files share: both backends, a small log schema and
//! its records, and helpers that decode and unwrap errors.
#![allow(dead_code)]

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, SchemaRef};
use jitson_arrow::{Backend, ReaderBuilder, RecordError};

pub const BACKENDS: [Backend; 2] = [Backend::Interpreter, Backend::Jit];

/// `id: Int64`, `req: {method: Utf8, status: Int32?}?`, `tags: [Utf8]?`.
pub fn log_schema() -> SchemaRef {
    let request = Fields::from(vec![
        Field::new("method", DataType::Utf8, false),
        Field::new("status", DataType::Int32, true),
    ]);
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("req", DataType::Struct(request), true),
        Field::new("tags", DataType::new_list(DataType::Utf8, true), true),
    ]))
}

/// Every batch `builder` reads from `input`, or the first error.
pub fn decode_all(builder: ReaderBuilder, input: &[u8]) -> Result<Vec<RecordBatch>, ArrowError> {
    builder.build(input)?.collect()
}

/// The reader's error inside `e` (panics on any other error).
pub fn record_error(e: ArrowError) -> RecordError {
    match e {
        ArrowError::ExternalError(e) => *e.downcast::<RecordError>().expect("a RecordError"),
        other => panic!("not a record error: {other}"),
    }
}
