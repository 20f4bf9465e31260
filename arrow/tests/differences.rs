//! The documented differences from arrow-json (docs/arrow.md, "Differences from
//! arrow-json"), each shown on both readers, so that a change on either side is
//! noticed; and what `with_strict_parsing(true)` refuses that arrow-json (and
//! jitson's default) accepts.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, DataType, Field, Schema};
use jitson_arrow::{Backend, ReaderBuilder};

fn one_column(t: DataType) -> Arc<Schema> {
    Arc::new(Schema::new(vec![Field::new("v", t, true)]))
}

fn arrow_json(t: &DataType, input: &str) -> Result<Vec<RecordBatch>, ArrowError> {
    arrow_json::ReaderBuilder::new(one_column(t.clone()))
        .build(input.as_bytes())?
        .collect()
}

fn jitson(
    t: &DataType,
    input: &str,
    backend: Backend,
    strict: bool,
) -> Result<Vec<RecordBatch>, ArrowError> {
    ReaderBuilder::new(one_column(t.clone()))
        .with_strict_parsing(strict)
        .with_backend(backend)
        .build(input.as_bytes())?
        .collect()
}

/// Prints what arrow-json does with `input` and checks that jitson refuses it
/// (with strict parsing when `strict`).
fn jitson_refuses(t: DataType, input: &str, strict: bool) -> Result<Vec<RecordBatch>, ArrowError> {
    for backend in [Backend::Interpreter, Backend::Jit] {
        let e = jitson(&t, input, backend, strict).expect_err(input);
        eprintln!("{t} {input}: jitson ({backend:?}): {e}");
    }
    let theirs = arrow_json(&t, input);
    eprintln!("{t} {input}: arrow-json: {theirs:?}");
    theirs
}

#[test]
fn strict_parsing_refuses_strings_in_numeric_columns() {
    let theirs = jitson_refuses(DataType::Int64, r#"{"v": "42"}"#, true).unwrap();
    assert_eq!(theirs[0].num_rows(), 1);
}

#[test]
fn strict_parsing_refuses_non_integers_in_integer_columns() {
    jitson_refuses(DataType::Int64, r#"{"v": 1.5}"#, true).unwrap();
}

#[test]
fn strict_parsing_refuses_decimals_that_lose_digits() {
    // arrow-json (and jitson's default) drop the digits past the scale.
    let theirs = jitson_refuses(DataType::Decimal128(10, 2), r#"{"v": 1.005}"#, true).unwrap();
    assert_eq!(theirs[0].num_rows(), 1);
}

#[test]
fn strict_parsing_refuses_duplicate_keys() {
    jitson_refuses(DataType::Int64, r#"{"v": 1, "v": 2}"#, true).unwrap();
}

#[test]
fn number_grammar() {
    // arrow-json's tokenizer takes a run of digits, `-`, `+`, `.`, `e` as a
    // number and lets the column's parser judge it; jitson reads JSON numbers.
    for v in ["01", "1.", "-01.5", "1.e3"] {
        let theirs = jitson_refuses(DataType::Int64, &format!("{{\"v\": {v}}}"), false);
        assert!(theirs.is_ok(), "{v}: {theirs:?}");
    }
}

/// A null row of a fixed-size list whose items are non-nullable lists or
/// structs: arrow-json decodes `null` as each of the row's items and refuses
/// it ("expected [ got null"); jitson reads the null row, its items nulls
/// that the row's null masks, as Arrow allows (docs/arrow.md, difference 14).
#[test]
fn null_rows_of_fixed_size_lists_of_nested_items() {
    use arrow_array::Array;
    let items = [
        DataType::new_list(DataType::Int64, true),
        DataType::Struct(vec![Field::new("a", DataType::Int64, false)].into()),
    ];
    for item in items {
        let t = DataType::FixedSizeList(Arc::new(Field::new("item", item, false)), 2);
        let input = "{\"v\": null}\n";
        assert!(arrow_json(&t, input).is_err(), "{t}");
        for backend in [Backend::Interpreter, Backend::Jit] {
            let batches = jitson(&t, input, backend, false).unwrap();
            let column = batches[0].column(0);
            assert_eq!(
                (column.len(), column.null_count()),
                (1, 1),
                "{t} {backend:?}"
            );
            column.to_data().validate_full().unwrap();
        }
    }
}
