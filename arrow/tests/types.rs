//! Every supported Arrow type through both backends and arrow-json, on the same
//! input, compared batch by batch.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use jitson_arrow::{Backend, ReaderBuilder};

const BACKENDS: [Backend; 2] = [Backend::Interpreter, Backend::Jit];

fn arrow_json(schema: &SchemaRef, input: &str, batch: usize) -> Vec<RecordBatch> {
    arrow_json::ReaderBuilder::new(schema.clone())
        .with_batch_size(batch)
        .build(input.as_bytes())
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

fn jitson(schema: &SchemaRef, input: &str, batch: usize, backend: Backend) -> Vec<RecordBatch> {
    ReaderBuilder::new(schema.clone())
        .with_batch_size(batch)
        .with_backend(backend)
        .build(input.as_bytes())
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

fn same_as_arrow_json(schema: SchemaRef, input: &str) {
    for batch in [1, 2, 1024] {
        let expected = arrow_json(&schema, input, batch);
        for backend in BACKENDS {
            let got = jitson(&schema, input, batch, backend);
            assert_eq!(got, expected, "{backend:?}, batch size {batch}");
        }
    }
}

fn schema(fields: Vec<Field>) -> SchemaRef {
    Arc::new(Schema::new(fields))
}

#[test]
fn scalars() {
    let s = schema(vec![
        Field::new("b", DataType::Boolean, true),
        Field::new("i8", DataType::Int8, true),
        Field::new("i16", DataType::Int16, true),
        Field::new("i32", DataType::Int32, true),
        Field::new("i64", DataType::Int64, false),
        Field::new("u8", DataType::UInt8, true),
        Field::new("u16", DataType::UInt16, true),
        Field::new("u32", DataType::UInt32, true),
        Field::new("u64", DataType::UInt64, true),
        Field::new("f32", DataType::Float32, true),
        Field::new("f64", DataType::Float64, true),
        Field::new("n", DataType::Null, true),
        Field::new("f16", DataType::Float16, true),
    ]);
    let input = r#"{"b": true, "i8": -128, "i16": 32767, "i32": -5, "i64": 9007199254740993, "u8": 255, "u16": 0, "u32": 4294967295, "u64": 18446744073709551615, "f32": 1.5, "f64": -2.5e-3, "n": null, "f16": 0.333}
{"i64": -9223372036854775808, "b": false, "f64": 1e300, "f32": 3.4028235e38, "f16": -65504}
{"i64": 0, "b": null, "i8": null, "f64": 0.1, "extra": {"x": [1, 2, {"y": null}]}}
"#;
    same_as_arrow_json(s, input);
}

#[test]
fn text() {
    for t in [DataType::Utf8, DataType::LargeUtf8, DataType::Utf8View] {
        let s = schema(vec![
            Field::new("s", t.clone(), true),
            Field::new("t", t, false),
        ]);
        let input = r#"{"s": "plain", "t": "esc\"aped\n\u00e9\ud83d\ude00"}
{"t": ""}
{"s": null, "t": "a string longer than twelve bytes, for the view type"}
"#;
        same_as_arrow_json(s, input);
    }
}

#[test]
fn temporal_and_decimal() {
    let s = schema(vec![
        Field::new("ts", DataType::Timestamp(TimeUnit::Millisecond, None), true),
        Field::new(
            "tsu",
            DataType::Timestamp(TimeUnit::Microsecond, Some("+00:00".into())),
            true,
        ),
        Field::new("d", DataType::Date32, true),
        Field::new("dec", DataType::Decimal128(10, 3), true),
    ]);
    let input = r#"{"ts": "2024-03-01T12:00:00.123Z", "tsu": "2024-03-01T12:00:00.123456+02:00", "d": "2024-02-29", "dec": 12.345}
{"ts": 1700000000000, "tsu": 5, "d": 19000, "dec": -0.5}
{"ts": null, "d": null, "dec": null}
"#;
    same_as_arrow_json(s, input);
}

#[test]
fn nested() {
    let request = Fields::from(vec![
        Field::new("method", DataType::Utf8, false),
        Field::new("status", DataType::Int32, true),
        Field::new("tags", DataType::new_list(DataType::Utf8, true), true),
    ]);
    let s = schema(vec![
        Field::new("request", DataType::Struct(request.clone()), true),
        Field::new("ids", DataType::new_list(DataType::Int64, true), true),
        Field::new(
            "nested",
            DataType::new_large_list(DataType::Struct(request), true),
            true,
        ),
    ]);
    let input = r#"{"request": {"method": "GET", "status": 200, "tags": ["a", null, "b"]}, "ids": [1, 2, null]}
{"request": null, "ids": [], "nested": [{"method": "PUT"}, null]}
{"ids": null, "nested": []}
{"request": {"method": "POST", "tags": []}}
"#;
    same_as_arrow_json(s, input);
}

#[test]
fn top_level_array_and_concatenated_values() {
    let s = schema(vec![Field::new("a", DataType::Int64, true)]);
    let ndjson = "{\"a\": 1}\n{\"a\": 2}\n{\"a\": 3}\n";
    for input in [
        "[{\"a\": 1}, {\"a\": 2},\n {\"a\": 3}]",
        "{\"a\": 1}{\"a\": 2} {\"a\": 3}",
    ] {
        for backend in BACKENDS {
            assert_eq!(
                jitson(&s, input, 2, backend),
                arrow_json(&s, ndjson, 2),
                "{input}"
            );
        }
    }
}

#[test]
fn maps() {
    let entries = Field::new(
        "entries",
        DataType::Struct(Fields::from(vec![
            Field::new("keys", DataType::Utf8, false),
            Field::new("values", DataType::Int64, true),
        ])),
        false,
    );
    let s = schema(vec![
        Field::new("m", DataType::Map(Arc::new(entries), false), true),
        Field::new("after", DataType::Int64, true),
    ]);
    let input = r#"{"m": {"a": 1, "b\u0020c": null, "é": 3}, "after": 1}
{"m": {}}
{"m": null, "after": 2}
{"after": 3}
"#;
    same_as_arrow_json(s, input);
}

#[test]
fn a_fixed_offset_time_zone_reads_local_times_as_arrow_json_does() {
    // Text without an offset is a local time in the column's zone; text with
    // its own offset (or `Z`) keeps it.
    let input = r#"{"ts": "2024-03-31T01:30:00"}
{"ts": "2024-03-31"}
{"ts": "2024-03-31T01:30:00Z"}
{"ts": "2024-03-31T01:30:00-05:00"}
{"ts": "2024-03-31 01:30:00.25+0100"}
{"ts": 1700000000000}
"#;
    for tz in ["+02:00", "-0930", "+05", "+00:00"] {
        let s = schema(vec![Field::new(
            "ts",
            DataType::Timestamp(TimeUnit::Millisecond, Some(tz.into())),
            true,
        )]);
        same_as_arrow_json(s, input);
    }
}

#[test]
fn a_named_time_zone_is_refused_as_arrow_json_refuses_it() {
    for tz in ["Europe/Paris", "America/New_York", "+25:00", "CET"] {
        let s = schema(vec![Field::new(
            "when",
            DataType::Timestamp(TimeUnit::Second, Some(tz.into())),
            true,
        )]);
        // arrow-json without arrow's `chrono-tz` feature refuses it; with it
        // (DataFusion turns it on, so `cargo test --workspace` has it) a real
        // zone name is read, and jitson differs (docs/arrow.md, "Differences").
        let chrono_tz = "Europe/Paris".parse::<arrow_array::timezone::Tz>().is_ok();
        if !chrono_tz || tz == "+25:00" {
            assert!(
                arrow_json::ReaderBuilder::new(s.clone())
                    .build_decoder()
                    .is_err(),
                "{tz}"
            );
        }
        // ...and so does jitson, on every backend, naming the column.
        for backend in BACKENDS {
            let e = ReaderBuilder::new(s.clone())
                .with_backend(backend)
                .compile()
                .err()
                .unwrap_or_else(|| panic!("{tz} accepted"));
            let text = e.to_string();
            assert!(
                text.contains("column `when`") && text.contains(&format!("\"{tz}\"")),
                "{text}"
            );
        }
    }
    // UTC is no guess: accepted, the same as no zone.
    let utc = schema(vec![Field::new(
        "ts",
        DataType::Timestamp(TimeUnit::Second, Some("UTC".into())),
        true,
    )]);
    let batches = jitson(
        &utc,
        "{\"ts\": \"1970-01-01T00:01:00\"}\n",
        8,
        Backend::Interpreter,
    );
    let column = batches[0]
        .column(0)
        .as_any()
        .downcast_ref::<arrow_array::TimestampSecondArray>()
        .unwrap();
    assert_eq!(column.value(0), 60);
}

#[test]
fn times_dates_and_durations() {
    let s = schema(vec![
        Field::new("d64", DataType::Date64, true),
        Field::new("t32s", DataType::Time32(TimeUnit::Second), true),
        Field::new("t32ms", DataType::Time32(TimeUnit::Millisecond), true),
        Field::new("t64us", DataType::Time64(TimeUnit::Microsecond), true),
        Field::new("t64ns", DataType::Time64(TimeUnit::Nanosecond), false),
        Field::new("ds", DataType::Duration(TimeUnit::Second), true),
        Field::new("dms", DataType::Duration(TimeUnit::Millisecond), true),
        Field::new("dus", DataType::Duration(TimeUnit::Microsecond), true),
        Field::new("dns", DataType::Duration(TimeUnit::Nanosecond), true),
    ]);
    let input = r#"{"d64": "2024-02-29", "t32s": "12:30:05", "t32ms": "12:30:05.25", "t64us": "23:59:59.999999", "t64ns": "00:00:00.000000001", "ds": 5, "dms": -7, "dus": "42", "dns": 9223372036854775807}
{"d64": "2024-02-29T12:00:00Z", "t32s": 45000, "t32ms": "1:02:03 PM", "t64us": 1.5, "t64ns": "86399999999999", "ds": " 3 ", "dms": 1e3}
{"d64": 1700000000000, "t32s": null, "t64us": "12:00", "t64ns": 0, "ds": null}
{"d64": "2001-02-03 04:05:06.789+01:00", "t64ns": "12:34:56.123456789"}
"#;
    same_as_arrow_json(s, input);
}

#[test]
fn decimals_of_every_width() {
    let s = schema(vec![
        Field::new("d32", DataType::Decimal32(9, 2), true),
        Field::new("d64", DataType::Decimal64(18, 4), true),
        Field::new("d128", DataType::Decimal128(38, 10), true),
        Field::new("d256", DataType::Decimal256(76, 20), true),
    ]);
    let input = r#"{"d32": 1234567.89, "d64": -12345678901234.5678, "d128": 1234567890123456789012345678.0123456789, "d256": "-12345678901234567890123456789012345678901234567890123456.12345678901234567890"}
{"d32": -0.01, "d64": 0, "d128": 1e-10, "d256": 1e55}
{"d32": null, "d256": 0.5}
"#;
    same_as_arrow_json(s, input);
}

#[test]
fn binary_of_every_kind() {
    let s = schema(vec![
        Field::new("b", DataType::Binary, true),
        Field::new("lb", DataType::LargeBinary, true),
        Field::new("bv", DataType::BinaryView, true),
        Field::new("fb", DataType::FixedSizeBinary(3), true),
    ]);
    let input = r#"{"b": "00ff10", "lb": "DEADbeef", "bv": "", "fb": "0a0B0c"}
{"b": "", "lb": "abc", "bv": "0123456789abcdef0123456789abcdef", "fb": null}
{"b": null, "bv": null, "fb": "ffffff"}
{"fb": "00000"}
"#;
    same_as_arrow_json(s, input);
}

#[test]
fn list_views() {
    let s = schema(vec![
        Field::new(
            "v",
            DataType::ListView(Arc::new(Field::new_list_field(DataType::Int64, true))),
            true,
        ),
        Field::new(
            "lv",
            DataType::LargeListView(Arc::new(Field::new_list_field(DataType::Utf8, false))),
            true,
        ),
    ]);
    let input = r#"{"v": [1, null, 3], "lv": ["a", "b"]}
{"v": [], "lv": null}
{"v": null, "lv": []}
{"lv": ["a longer string than twelve bytes"]}
"#;
    same_as_arrow_json(s, input);
}

#[test]
fn struct_mode_list_only() {
    let inner = Fields::from(vec![
        Field::new("x", DataType::Int32, true),
        Field::new("tags", DataType::new_list(DataType::Utf8, true), true),
    ]);
    let s = schema(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, true),
        Field::new("inner", DataType::Struct(inner), true),
    ]);
    let input = r#"[1, "a", [5, ["p", null]]]
[2, null, null]
[3, "c", [null, []]] [4, "d", [7, null]]
"#;
    for batch in [1, 2, 1024] {
        let expected = arrow_json::ReaderBuilder::new(s.clone())
            .with_batch_size(batch)
            .with_struct_mode(arrow_json::StructMode::ListOnly)
            .build(input.as_bytes())
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        assert_eq!(expected.iter().map(|b| b.num_rows()).sum::<usize>(), 4);
        for backend in BACKENDS {
            let got = ReaderBuilder::new(s.clone())
                .with_batch_size(batch)
                .with_backend(backend)
                .with_struct_mode(jitson_arrow::StructMode::ListOnly)
                .build(input.as_bytes())
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .unwrap();
            assert_eq!(got, expected, "{backend:?}, batch size {batch}");
        }
    }
    // Too few or too many values, an object where an array is expected: errors
    // (as in arrow-json), positioned, on every backend.
    for bad in [
        "[1, \"a\"]\n",
        "[1, \"a\", null, 4]\n",
        "{\"id\": 1}\n",
        "[1, \"a\", [5]]\n",
    ] {
        assert!(
            arrow_json::ReaderBuilder::new(s.clone())
                .with_struct_mode(arrow_json::StructMode::ListOnly)
                .build(bad.as_bytes())
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .is_err(),
            "arrow-json accepts {bad}"
        );
        for backend in BACKENDS {
            let e = ReaderBuilder::new(s.clone())
                .with_backend(backend)
                .with_struct_mode(jitson_arrow::StructMode::ListOnly)
                .build(bad.as_bytes())
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .expect_err(bad);
            assert!(e.to_string().contains("line 1"), "{backend:?} {bad}: {e}");
        }
    }
}

/// Errors in the newer types: what arrow-json refuses, refused with the
/// record's position, on every backend.
#[test]
fn bad_values_of_the_new_types_are_positioned_errors() {
    let cases: [(DataType, &str, &str); 6] = [
        (
            DataType::Binary,
            "\"0g\"",
            "invalid digit 0x67 at position 1",
        ),
        (DataType::FixedSizeBinary(2), "\"00\"", "1 bytes"),
        (DataType::Binary, "12", ""),
        (DataType::Time32(TimeUnit::Second), "\"25:00:00\"", "time"),
        (DataType::Duration(TimeUnit::Second), "\"1.5\"", "duration"),
        (DataType::Decimal256(10, 2), "123456789.5", "decimal"),
    ];
    for (t, value, message) in cases {
        let s = schema(vec![Field::new("v", t.clone(), true)]);
        let input = format!("{{\"v\": null}}\n{{\"v\": {value}}}\n");
        let theirs = arrow_json::ReaderBuilder::new(s.clone())
            .build(input.as_bytes())
            .unwrap()
            .collect::<Result<Vec<_>, _>>();
        assert!(theirs.is_err(), "arrow-json on {t} {value}: {theirs:?}");
        for backend in BACKENDS {
            let e = ReaderBuilder::new(s.clone())
                .with_backend(backend)
                .build(input.as_bytes())
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .expect_err(&input);
            let text = e.to_string();
            assert!(
                text.contains("line 2") && text.contains(message),
                "{t} {value} {backend:?}: {text}"
            );
        }
    }
}

#[test]
fn decimal_precision_out_of_range_is_refused_when_compiled() {
    for t in [
        DataType::Decimal32(10, 2),
        DataType::Decimal64(19, 2),
        DataType::Decimal256(77, 0),
        DataType::Decimal128(0, 0),
        DataType::Decimal128(5, 6),
    ] {
        let s = schema(vec![Field::new("amount", t.clone(), true)]);
        let Err(e) = ReaderBuilder::new(s).compile() else {
            panic!("{t} accepted");
        };
        assert!(e.to_string().contains("column `amount`"), "{t}: {e}");
    }
}
