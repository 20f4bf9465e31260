//! The generated vectors data set: NDJSON records of an embedding each, as a
//! model's output is often stored, built deterministically with a xorshift
//! PRNG, and their Arrow schema. Each record: an `id`, a `label` and an
//! `embedding` of [`DIMENSIONS`] f32 values in `-1..1`, each written as Rust
//! writes an f32 (the shortest text that reads back: mostly 8 or 9 digits),
//! read into a `FixedSizeList(Float32, DIMENSIONS)` column.

use std::fmt::Write as _;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, SchemaRef};

/// The values in each record's embedding.
pub const DIMENSIONS: i32 = 64;

/// `id: Int64`, `label: Utf8?`, `embedding: FixedSizeList(Float32?, 64)?`.
pub fn vectors_schema() -> SchemaRef {
    let item = Arc::new(Field::new("item", DataType::Float32, true));
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("label", DataType::Utf8, true),
        Field::new("embedding", DataType::FixedSizeList(item, DIMENSIONS), true),
    ]))
}

/// `rows` records, one a line.
pub fn generate_vectors(rows: usize) -> Vec<u8> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut text = String::with_capacity(rows * (40 + 11 * DIMENSIONS as usize));
    for id in 0..rows {
        write!(text, r#"{{"id":{id},"label":"doc {id}","embedding":["#).unwrap();
        for i in 0..DIMENSIONS {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let value = (state >> 40) as f32 / (1u64 << 23) as f32 - 1.0;
            if i > 0 {
                text.push(',');
            }
            write!(text, "{value}").unwrap();
        }
        text.push_str("]}\n");
    }
    text.into_bytes()
}
