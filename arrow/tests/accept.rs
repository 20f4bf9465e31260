//! jitson-arrow accepts what arrow-json accepts, by default: every case here runs
//! through arrow-json 59 and both of jitson's backends, and the outcomes must be
//! the same (equal batches, or an error from all three). `with_strict_parsing`
//! keeps serde_json's rules (`strict_parsing_*` tests).
//!
//! Run with `--nocapture` to see arrow-json's outcome for every case.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use jitson_arrow::{Backend, ReaderBuilder, RecordError};

const BACKENDS: [Backend; 2] = [Backend::Interpreter, Backend::Jit];

type Outcome = Result<Vec<RecordBatch>, ArrowError>;

fn one_column(t: &DataType) -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new("v", t.clone(), true)]))
}

fn arrow_json(schema: &SchemaRef, input: &str, coerce: bool) -> Outcome {
    arrow_json::ReaderBuilder::new(schema.clone())
        .with_coerce_primitive(coerce)
        .build(input.as_bytes())?
        .collect()
}

fn jitson(schema: &SchemaRef, input: &str, coerce: bool, backend: Backend) -> Outcome {
    ReaderBuilder::new(schema.clone())
        .with_coerce_primitive(coerce)
        .with_backend(backend)
        .build(input.as_bytes())?
        .collect()
}

/// Equal batches; floats compared by their text too, so that NaN equals NaN.
fn same_batches(a: &[RecordBatch], b: &[RecordBatch]) -> bool {
    a == b || format!("{a:?}") == format!("{b:?}")
}

/// Both backends give arrow-json's outcome on `input`.
fn same_outcome(schema: &SchemaRef, input: &str, coerce: bool) {
    let theirs = arrow_json(schema, input, coerce);
    for backend in BACKENDS {
        let ours = jitson(schema, input, coerce, backend);
        match (&theirs, &ours) {
            (Ok(a), Ok(b)) => assert!(
                same_batches(a, b),
                "{backend:?} on {input}: arrow-json {a:?}, jitson {b:?}"
            ),
            (Err(_), Err(e)) => {
                // Ours is a RecordError naming the column and where.
                if let ArrowError::ExternalError(inner) = e {
                    assert!(inner.downcast_ref::<RecordError>().is_some(), "{e}");
                }
            }
            _ => panic!("{backend:?} on {input}: arrow-json {theirs:?}, jitson {ours:?}"),
        }
    }
    let shown = match &theirs {
        Ok(batches) => batches
            .iter()
            .map(|b| format!("{:?}", b.column(0)))
            .collect::<Vec<_>>()
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        Err(e) => format!("error: {e}"),
    };
    eprintln!("{input:?} -> {shown}");
}

/// Every value in `values` alone in a record `{"v": value}` of a nullable
/// column of each type, then all of them in one stream where arrow-json
/// accepts them all.
fn values_in(types: &[DataType], values: &[&str]) {
    for t in types {
        let schema = one_column(t);
        eprintln!("== {t}");
        let mut accepted = String::new();
        for v in values {
            let input = format!("{{\"v\": {v}}}\n");
            same_outcome(&schema, &input, false);
            if arrow_json(&schema, &input, false).is_ok() {
                accepted.push_str(&input);
            }
        }
        same_outcome(&schema, &accepted, false);
    }
}

const INTEGERS: [DataType; 8] = [
    DataType::Int8,
    DataType::Int16,
    DataType::Int32,
    DataType::Int64,
    DataType::UInt8,
    DataType::UInt16,
    DataType::UInt32,
    DataType::UInt64,
];

#[test]
fn numbers_in_integer_columns() {
    values_in(
        &INTEGERS,
        &[
            "1",
            "-1",
            "1.0",
            "1e3",
            "1E+2",
            "1.5",
            "-1.5",
            "-0.5",
            "0.9999",
            "1e-7",
            "-0",
            "-0.0",
            "127",
            "128",
            "-128",
            "-129",
            "255",
            "256",
            "300",
            "32768",
            "65536",
            "2147483648",
            "4294967296",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "18446744073709551615",
            "18446744073709551616",
            "1e19",
            "1e20",
            "1e400",
            "123456789012345678901234567890",
        ],
    );
}

#[test]
fn strings_in_integer_columns() {
    values_in(
        &INTEGERS,
        &[
            r#""42""#,
            r#"" 42 ""#,
            r#""\t42\n""#,
            r#""+42""#,
            r#""-42""#,
            r#""-0""#,
            r#""-00""#,
            r#""007""#,
            r#""4.2""#,
            r#""1e3""#,
            r#""""#,
            r#"" ""#,
            r#""x""#,
            r#""4 2""#,
            r#""+-4""#,
            r#""0x10""#,
            r#""٤٢""#,
            r#""300""#,
            r#""18446744073709551616""#,
        ],
    );
}

#[test]
fn other_values_in_integer_columns() {
    values_in(&INTEGERS, &["true", "false", "[1]", "{}", "{\"a\": 1}"]);
}

#[test]
fn floats() {
    values_in(
        &[DataType::Float16, DataType::Float32, DataType::Float64],
        &[
            "1.5",
            "-0",
            "1e38",
            "1e39",
            "1e308",
            "1e309",
            "1e400",
            "-1e400",
            "1e-400",
            "65520",
            r#""1.5""#,
            r#"" 2 ""#,
            r#""NaN""#,
            r#""nan""#,
            r#""-NaN""#,
            r#""inf""#,
            r#""-inf""#,
            r#""Infinity""#,
            r#""-infinity""#,
            r#"".5""#,
            r#""5.""#,
            r#""1e5""#,
            r#""+1""#,
            r#""1_000""#,
            r#""1,5""#,
            r#""0x10""#,
            r#""""#,
            r#""x""#,
            "true",
            "[1.5]",
        ],
    );
}

#[test]
fn decimals() {
    // More fraction digits than the scale: arrow-cast drops them (truncates);
    // too many digits for the precision: refused; strings as numbers.
    values_in(
        &[
            DataType::Decimal32(6, 2),
            DataType::Decimal64(12, 3),
            DataType::Decimal128(10, 2),
            DataType::Decimal256(40, 2),
        ],
        &[
            "1.005",
            "-0.129",
            "12.3456789",
            "1.2345e1",
            "-1.5e-3",
            "1e2",
            "0.00",
            "9999.999",
            "12345678901",
            "1e30",
            "\"3.14159\"",
            "\"-7\"",
            "\"1.\"",
            "\"abc\"",
            "true",
            "null",
        ],
    );
}

#[test]
fn dates() {
    values_in(
        &[DataType::Date32],
        &[
            r#""2001-02-03""#,
            r#""2001-02-03 00:00:00""#,
            r#""2001-02-03T04:05:06Z""#,
            r#""2001-02-03T23:00:00-05:00""#,
            r#""2001-02-03T04:05:06.123456789""#,
            r#""2001-02-03T04:05""#,
            r#""2001-02-03 ""#,
            r#""2001-02-03x""#,
            r#""20010203""#,
            r#""2001-2-3""#,
            r#""2001-02-3""#,
            r#""2001-2-03""#,
            r#""2001-02-3x""#,
            r#""2001-2-03x""#,
            r#""2001-2-3xx""#,
            r#""2001-2-3x""#,
            r#""2001-02-30""#,
            r#""2000-02-29""#,
            r#""1900-02-29""#,
            r#""0000-01-01""#,
            r#""9999-12-31""#,
            r#""+10999-12-31""#,
            r#""-0012-05-06""#,
            r#""+2001-+2-3""#,
            r#""+2001-02-03T00""#,
            r#""+123-01-01""#,
            r#""+5881580-07-11""#,
            r#""+5881580-07-12""#,
            r#""-5877641-06-23""#,
            r#""-5877641-06-22""#,
            r#""2001/02/03""#,
            r#""01-02-03""#,
            r#""2001""#,
            r#""""#,
            r#""19000""#,
            "19000",
            "-1",
            "1.5",
            "-1.5",
            "1e3",
            "2147483648",
            "true",
        ],
    );
}

#[test]
fn timestamps() {
    let mut types = Vec::new();
    for unit in [
        TimeUnit::Second,
        TimeUnit::Millisecond,
        TimeUnit::Microsecond,
        TimeUnit::Nanosecond,
    ] {
        types.push(DataType::Timestamp(unit, None));
        types.push(DataType::Timestamp(unit, Some("+02:00".into())));
        types.push(DataType::Timestamp(unit, Some("-0930".into())));
    }
    // A zone name after the time ("… UTC", "… Europe/Paris") is read by arrow
    // only when it is built with `chrono-tz`, which DataFusion turns on: in
    // `cargo test --workspace` (jitson-datafusion is a member) arrow-json then
    // accepts these; jitson never does (docs/arrow.md, "Differences").
    let named_zones = [
        r#""2001-02-03T04:05:06 UTC""#,
        r#""2001-02-03T04:05:06 Europe/Paris""#,
    ];
    if "Europe/Paris".parse::<arrow_array::timezone::Tz>().is_err() {
        values_in(&types, &named_zones);
    } else {
        for input in named_zones {
            let schema = Arc::new(Schema::new(vec![Field::new("v", types[0].clone(), true)]));
            let record = format!("{{\"v\": {input}}}\n");
            for backend in BACKENDS {
                assert!(jitson(&schema, &record, false, backend).is_err(), "{input}");
            }
        }
    }
    values_in(
        &types,
        &[
            r#""2001-02-03""#,
            r#""2001-02-03T04:05:06""#,
            r#""2001-02-03t04:05:06""#,
            r#""2001-02-03 04:05:06""#,
            r#""2001-02-03_04:05:06""#,
            r#""2001-02-03T04:05""#,
            r#""2001-02-03T04:05Z""#,
            r#""2001-02-03T040506""#,
            r#""2001-02-03T040506Z""#,
            r#""2001-02-03T040506+01:00""#,
            r#""2001-02-03T040506.5""#,
            r#""2001-02-03T04:05:06.1""#,
            r#""2001-02-03T04:05:06.123456789""#,
            r#""2001-02-03T04:05:06.123456789999""#,
            r#""2001-02-03T04:05:06.123456789999999Z""#,
            r#""2001-02-03T04:05:06.""#,
            r#""2001-02-03T04:05:06Z""#,
            r#""2001-02-03T04:05:06z""#,
            r#""2001-02-03T04:05:06Z ""#,
            r#""2001-02-03T04:05:06+01:00""#,
            r#""2001-02-03T04:05:06 +01:00""#,
            r#""2001-02-03T04:05:06.789 -08""#,
            r#""2001-02-03T04:05:06-0830""#,
            r#""2001-02-03T04:05:06+05""#,
            r#""2001-02-03T04:05:06+05:99""#,
            r#""2001-02-03T04:05:06+23:59""#,
            r#""2001-02-03T04:05:06+24:00""#,
            r#""2001-02-03T04:05:06+01:00 ""#,
            r#""2001-02-03T04:05:06+1""#,
            r#""2001-02-03T23:59:60""#,
            r#""2001-02-03T23:59:60.5Z""#,
            r#""2001-02-03T12:30:60""#,
            r#""2001-02-03T24:00:00""#,
            r#""2001-02-03T23:60:00""#,
            r#""2001-02-30T00:00:00""#,
            r#""1677-09-21T00:12:43.145224192Z""#,
            r#""1677-09-21T00:12:43.145224191Z""#,
            r#""2262-04-11T23:47:16.854775807Z""#,
            r#""2262-04-11T23:47:16.854775808Z""#,
            r#""1969-12-31T23:59:59.999999999Z""#,
            r#""9999-12-31T23:59:59Z""#,
            r#""0000-01-01""#,
            r#""2001-02-03Q""#,
            r#""2001-02-03T""#,
            r#""1700000000""#,
            r#""""#,
            "1700000000",
            "-1",
            "1.5",
            "-1.5",
            "1e3",
            "1e30",
            "-1e30",
            "9223372036854775808",
            "true",
        ],
    );
}

fn schema(fields: Vec<Field>) -> SchemaRef {
    Arc::new(Schema::new(fields))
}

#[test]
fn duplicate_keys_keep_the_last_value() {
    let inner = Fields::from(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8, false),
    ]);
    let s = schema(vec![
        Field::new("v", DataType::Int64, true),
        Field::new("w", DataType::Utf8, true),
        Field::new("n", DataType::Int32, false),
        Field::new("s", DataType::Struct(inner.clone()), true),
        Field::new("l", DataType::new_list(DataType::Struct(inner), true), true),
    ]);
    for input in [
        r#"{"v": 1, "v": 2, "n": 0}"#,
        r#"{"v": 1, "w": "a", "v": 3, "w": "bb", "n": 0}"#,
        r#"{"v": 1, "v": null, "n": 0}"#,
        r#"{"v": null, "v": 5, "n": 0}"#,
        r#"{"n": 1, "n": 2}"#,
        r#"{"n": 1, "n": null}"#,
        r#"{"n": null, "n": 1}"#,
        r#"{"v": "x", "v": 2, "n": 0}"#,
        r#"{"v": 1, "v": "x", "n": 0}"#,
        r#"{"v": [1], "v": 2, "n": 0}"#,
        r#"{"v": {"x": [1, {"y": 2}]}, "v": 2, "n": 0}"#,
        r#"{"v": "x", "v": "y", "n": 0}"#,
        r#"{"v": "x", "n": 0}"#,
        r#"{"v": "x", "w": 1, "v": 2, "n": 0}"#,
        r#"{"n": 0, "s": {"a": 1, "b": "x"}, "s": {"b": "y"}}"#,
        r#"{"n": 0, "s": {"a": 1, "b": "x", "a": 2, "b": "z"}}"#,
        r#"{"n": 0, "s": {"a": 1}, "s": {"b": "y"}}"#,
        r#"{"n": 0, "s": {"b": "x"}, "s": null}"#,
        r#"{"n": 0, "s": {"b": "x"}, "s": 5}"#,
        r#"{"n": 0, "l": [{"b": "x", "b": "y"}, {"a": 1, "b": "z", "a": 2}]}"#,
        r#"{"n": 0, "l": [{"b": "x"}], "l": [{"b": "y"}, {"b": "z"}]}"#,
        r#"{"n": 0, "l": [{"b": "x"}], "l": null}"#,
        r#"{"n": 0, "l": [{"a": "bad", "b": "x"}], "l": []}"#,
        r#"{"n": 0, "v": 1, "v": 2, "v": 3, "v": 4}"#,
    ] {
        for input in [
            format!("{input}\n"),
            format!("{{\"n\": 9, \"v\": 7}}\n{input}\n{{\"n\": 8, \"w\": \"after\"}}\n"),
        ] {
            same_outcome(&s, &input, false);
        }
    }
}

#[test]
fn coerce_primitive_into_text_columns() {
    for t in [DataType::Utf8, DataType::LargeUtf8, DataType::Utf8View] {
        let s = one_column(&t);
        for v in [
            "1",
            "-0",
            "1.5",
            "1e3",
            "1.0E+2",
            "-12.50",
            "123456789012345678901234567890",
            "true",
            "false",
            "null",
            r#""s""#,
            "[1]",
            "{}",
        ] {
            for coerce in [false, true] {
                same_outcome(&s, &format!("{{\"v\": {v}}}\n"), coerce);
            }
        }
    }
}

#[test]
fn coerce_primitive_does_not_change_numeric_columns() {
    for t in [DataType::Int64, DataType::Float64, DataType::Boolean] {
        let s = one_column(&t);
        for v in [r#""42""#, r#""4.5""#, "true", r#""true""#, "1.5"] {
            for coerce in [false, true] {
                same_outcome(&s, &format!("{{\"v\": {v}}}\n"), coerce);
            }
        }
    }
}

/// `with_strict_parsing(true)` keeps serde_json's rules.
fn strict(t: DataType, input: &str) -> Vec<Result<Vec<RecordBatch>, ArrowError>> {
    BACKENDS
        .iter()
        .map(|&backend| {
            ReaderBuilder::new(one_column(&t))
                .with_strict_parsing(true)
                .with_backend(backend)
                .build(input.as_bytes())?
                .collect()
        })
        .collect()
}

#[test]
fn strict_parsing_refuses_what_serde_json_refuses() {
    for (t, v) in [
        (DataType::Int64, "1.5"),
        (DataType::Int64, "1.0"),
        (DataType::Int64, "1e3"),
        (DataType::Int64, r#""42""#),
        (DataType::Float64, "1e400"),
        (DataType::Float64, r#""1.5""#),
        (DataType::Float32, r#""NaN""#),
        (DataType::Float16, r#""1.5""#),
        (DataType::Date32, r#""2001-02-03T04:05:06Z""#),
        (DataType::Date32, r#""20010203""#),
        (DataType::Date32, "1.5"),
        (
            DataType::Timestamp(TimeUnit::Second, None),
            r#""2001-02-03T040506""#,
        ),
        (DataType::Timestamp(TimeUnit::Second, None), "1.5"),
    ] {
        let input = format!("{{\"v\": {v}}}\n");
        assert!(
            arrow_json(&one_column(&t), &input, false).is_ok(),
            "{t} {v}"
        );
        for outcome in strict(t.clone(), &input) {
            let e = outcome.expect_err(&input);
            assert!(e.to_string().contains("column `v`"), "{e}");
        }
    }
    for outcome in strict(DataType::Int64, "{\"v\": 1, \"v\": 2}\n") {
        let e = outcome.expect_err("duplicate");
        assert!(e.to_string().contains("duplicate field `v`"), "{e}");
    }
}

#[test]
fn strict_parsing_keeps_its_own_forms() {
    // `HH:MM` without seconds: RFC 3339's relaxation that jitson has always
    // read, which arrow-json refuses.
    let input = "{\"v\": \"2001-02-03T04:05Z\"}\n";
    let t = DataType::Timestamp(TimeUnit::Second, None);
    assert!(arrow_json(&one_column(&t), input, false).is_err());
    for outcome in strict(t.clone(), input) {
        let batches = outcome.unwrap();
        let column = batches[0]
            .column(0)
            .as_any()
            .downcast_ref::<arrow_array::TimestampSecondArray>()
            .unwrap();
        assert_eq!(column.value(0), 981_173_100);
    }
    // With coercion, strings holding numbers go into numeric columns.
    for backend in BACKENDS {
        let batches: Vec<RecordBatch> = ReaderBuilder::new(one_column(&DataType::Int64))
            .with_strict_parsing(true)
            .with_coerce_primitive(true)
            .with_backend(backend)
            .build("{\"v\": \"42\"}\n".as_bytes())
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(batches[0].num_rows(), 1);
    }
}

#[test]
fn errors_of_the_second_reading_name_the_value() {
    let s = one_column(&DataType::Int32);
    for backend in BACKENDS {
        let e = jitson(&s, "{\"v\": 1}\n{\"v\": \"4.5\"}\n", false, backend).unwrap_err();
        let ArrowError::ExternalError(inner) = &e else {
            panic!("{e}")
        };
        let record = inner.downcast_ref::<RecordError>().unwrap();
        assert_eq!(record.record, 1);
        assert_eq!(record.line, 2);
        assert_eq!(record.column_name.as_deref(), Some("v"));
        assert_eq!(record.data_type, Some(DataType::Int32));
        assert_eq!(record.path, "$.v");
        assert!(record.message.contains("\"4.5\""), "{e}");
        let e = jitson(&s, "{\"v\": 3e9}\n", false, backend).unwrap_err();
        assert!(e.to_string().contains("3e9"), "{e}");
    }
}

#[test]
fn new_with_field_reads_any_top_level_value() {
    let int = Arc::new(Field::new("int", DataType::Int32, true));
    let cases: Vec<(Arc<Field>, &str)> = vec![
        (int.clone(), "1\n2\n3\n"),
        (int.clone(), "1 null 2.5 \"4\"\n"),
        (int.clone(), "1\n\"x\"\n"),
        (
            Arc::new(Field::new_list("l", int.clone(), true)),
            "[1, 2, 3]\n[]\nnull\n[4]\n",
        ),
        (
            Arc::new(Field::new_struct(
                "s",
                vec![Field::new("a", DataType::Int64, true)],
                true,
            )),
            "{\"a\": 1}\n{\"a\": 2, \"a\": 3}\n{}\nnull\n",
        ),
        (
            Arc::new(Field::new("t", DataType::Utf8, false)),
            "\"a\" \"b\"\n",
        ),
        (
            Arc::new(Field::new("t", DataType::Utf8, false)),
            "\"a\" null\n",
        ),
    ];
    for (field, input) in cases {
        let theirs: Outcome = arrow_json::ReaderBuilder::new_with_field(field.clone())
            .with_batch_size(2)
            .build(input.as_bytes())
            .and_then(|r| r.collect());
        for backend in BACKENDS {
            let ours: Outcome = ReaderBuilder::new_with_field(field.clone())
                .with_batch_size(2)
                .with_backend(backend)
                .build(input.as_bytes())
                .and_then(|r| r.collect());
            match (&theirs, &ours) {
                (Ok(a), Ok(b)) => assert!(same_batches(a, b), "{backend:?} {input}: {a:?} {b:?}"),
                (Err(_), Err(_)) => {}
                _ => panic!("{backend:?} {input}: arrow-json {theirs:?}, jitson {ours:?}"),
            }
        }
        eprintln!("{input:?}: {theirs:?}");
    }
}

/// Top-level scalars cut anywhere between `decode` calls (or by a small
/// `BufReader`) give arrow-json's rows: a number at the end of a buffer is
/// kept until a delimiter, or the end of the stream, says where it ends.
#[test]
fn new_with_field_scalars_split_anywhere() {
    // Each case ends with a newline: arrow-json refuses a stream that ends
    // inside a number ("Truncated record whilst reading number", below).
    let cases: [(DataType, &str); 5] = [
        (DataType::Int64, "12 34 null\n"),
        (DataType::Int64, "1234 5678 9012\n"),
        (DataType::Decimal32(5, 2), "1.239 2 -0.5\n"),
        (DataType::Boolean, "true false null true"),
        (DataType::Float64, "1e3 -2.5E-1 7\n"),
    ];
    for (t, input) in cases {
        let field = Arc::new(Field::new("v", t.clone(), true));
        let theirs: Vec<RecordBatch> = arrow_json::ReaderBuilder::new_with_field(field.clone())
            .build(input.as_bytes())
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for backend in BACKENDS {
            let compiled = ReaderBuilder::new_with_field(field.clone())
                .with_backend(backend)
                .compile()
                .unwrap();
            for split in 0..=input.len() {
                let mut decoder = compiled.decoder();
                let (a, b) = input.as_bytes().split_at(split);
                assert_eq!(decoder.decode(a).unwrap(), a.len());
                assert_eq!(decoder.decode(b).unwrap(), b.len());
                let ours = decoder.flush().unwrap().into_iter().collect::<Vec<_>>();
                assert!(
                    same_batches(&theirs, &ours),
                    "{t} {input:?} split at {split} ({backend:?}): {theirs:?} {ours:?}"
                );
            }
            // Through a reader whose buffer holds three bytes.
            let ours: Vec<RecordBatch> = ReaderBuilder::new_with_field(field.clone())
                .with_backend(backend)
                .build(std::io::BufReader::with_capacity(3, input.as_bytes()))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert!(same_batches(&theirs, &ours), "{t} {input:?} ({backend:?})");
        }
    }
    // A number that ends the stream, with no newline after it: arrow-json
    // refuses it; jitson reads it (docs/arrow.md, "Differences").
    let field = Arc::new(Field::new("v", DataType::Int64, true));
    let theirs = arrow_json::ReaderBuilder::new_with_field(field.clone())
        .build(&b"12 34"[..])
        .unwrap()
        .collect::<Result<Vec<_>, _>>();
    assert!(theirs.is_err(), "{theirs:?}");
    for backend in BACKENDS {
        let ours: Vec<RecordBatch> = ReaderBuilder::new_with_field(field.clone())
            .with_backend(backend)
            .build(&b"12 34"[..])
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(ours[0].num_rows(), 2);
    }
    // A literal cut short at the end of the stream fails with its position.
    let mut decoder = ReaderBuilder::new_with_field(field)
        .build_decoder()
        .unwrap();
    decoder.decode(b"12 34 nu").unwrap();
    let e = decoder.flush().expect_err("incomplete");
    assert!(e.to_string().contains("line 1, column"), "{e}");
}

#[test]
fn reader_is_a_record_batch_reader_and_decoder_reports_partial_records() {
    use arrow_array::RecordBatchReader;
    let s = one_column(&DataType::Int64);
    for backend in BACKENDS {
        let reader = ReaderBuilder::new(s.clone())
            .with_backend(backend)
            .build("{\"v\": 1}\n".as_bytes())
            .unwrap();
        assert_eq!(reader.schema(), s);
        let boxed: Box<dyn RecordBatchReader> = Box::new(reader);
        assert_eq!(boxed.map(|b| b.unwrap().num_rows()).sum::<usize>(), 1);

        let mut ours = ReaderBuilder::new(s.clone())
            .with_backend(backend)
            .build_decoder()
            .unwrap();
        let mut theirs = arrow_json::ReaderBuilder::new(s.clone())
            .build_decoder()
            .unwrap();
        for part in ["{\"v\": 1}\n{\"v\"", ": 2}", "\n"] {
            ours.decode(part.as_bytes()).unwrap();
            theirs.decode(part.as_bytes()).unwrap();
            assert_eq!(
                ours.has_partial_record(),
                theirs.has_partial_record(),
                "{backend:?} after {part:?}"
            );
        }
        assert_eq!(ours.flush().unwrap(), theirs.flush().unwrap());
    }
}

/// `Decoder::with_batch_size` below the compiled schema's: `decode` stops
/// after that many records and decodes none past them (a malformed record
/// further on is not reached), and the decoder goes on from there after a
/// flush, with the same rows as a decoder compiled for the smaller size.
#[test]
fn a_decoder_batch_size_stops_decoding_at_it() {
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, true)]));
    let input = b"{\"a\": 1}\n{\"a\": 2}\n{\"a\": 3}\n{\"a\": oops}\n";
    for backend in BACKENDS {
        let compiled = ReaderBuilder::new(schema.clone())
            .with_batch_size(1024)
            .with_backend(backend)
            .compile()
            .unwrap();
        let mut decoder = compiled.decoder().with_batch_size(2);
        let consumed = decoder.decode(input).unwrap();
        assert_eq!(consumed, 17, "{backend:?}: stops after two records");
        let batch = decoder.flush().unwrap().unwrap();
        assert_eq!(batch.num_rows(), 2, "{backend:?}");
        let column = batch.column(0).as_primitive::<Int64Type>();
        assert_eq!(column.values(), &[1, 2], "{backend:?}");
        // Then the third record, and the fourth fails as it would have.
        let error = decoder.decode(&input[consumed..]).unwrap_err().to_string();
        assert!(error.contains("line 4"), "{backend:?}: {error}");
        let batch = decoder.flush().unwrap().unwrap();
        let column = batch.column(0).as_primitive::<Int64Type>();
        assert_eq!(column.values(), &[3], "{backend:?}");
    }
}

/// Fixed-size lists (embeddings, points): arrays of exactly the list's size,
/// in nullable and non-nullable columns and items, inside structs and lists,
/// one value a record and all accepted ones in one stream, with and without
/// `with_ignore_type_conflicts`. An array of another length is refused (and a
/// null under the option, as arrow-json makes it); a null row's elements are
/// nulls under its null.
#[test]
fn fixed_size_lists() {
    let fixed = |item: DataType, item_nullable: bool, n: i32| {
        DataType::FixedSizeList(Arc::new(Field::new("item", item, item_nullable)), n)
    };
    let values = [
        "[1, 2]",
        "null",
        "[1]",
        "[1, 2, 3]",
        "[]",
        "[null, 2]",
        "[1.5, \"2\"]",
        "\"x\"",
        "{}",
        "[[1], 2]",
        "[1, 2] ",
    ];
    values_in(
        &[
            fixed(DataType::Int64, true, 2),
            fixed(DataType::Int64, false, 2),
            fixed(DataType::Float32, true, 2),
            DataType::new_list(fixed(DataType::Int32, true, 2), true),
            fixed(fixed(DataType::Int32, true, 1), true, 2),
        ],
        &values,
    );
    values_in(&[fixed(DataType::Int64, true, 0)], &["[]", "[1]", "null"]);
    values_in(
        &[DataType::new_list(fixed(DataType::Int32, true, 2), true)],
        &["[[1, 2], null, [3, 4]]", "[[1, 2], [3]]", "[]"],
    );
    let point = DataType::Struct(Fields::from(vec![
        Field::new("p", fixed(DataType::Float64, true, 2), true),
        Field::new("q", fixed(DataType::Utf8, false, 2), false),
    ]));
    values_in(
        &[point],
        &[
            r#"{"p": [1.5, 2.5], "q": ["a", "b"]}"#,
            r#"{"p": null, "q": ["a", "b"]}"#,
            r#"{"q": ["a", "b"]}"#,
            r#"{"p": [1.5], "q": ["a", "b"]}"#,
            r#"{"p": [1.5, 2.5], "q": ["a"]}"#,
            r#"{"p": [1.5, 2.5], "q": null}"#,
        ],
    );
    // Under the option: what arrow-json makes a null, and what it refuses.
    for t in [
        fixed(DataType::Int64, true, 2),
        fixed(DataType::Int64, false, 2),
    ] {
        let schema = one_column(&t);
        for v in values {
            let input = format!("{{\"v\": {v}}}\n{{\"v\": [7, 8]}}\n");
            let theirs = arrow_json::ReaderBuilder::new(schema.clone())
                .with_ignore_type_conflicts(true)
                .build(input.as_bytes())
                .and_then(|r| r.collect::<Outcome>());
            for backend in BACKENDS {
                let ours = ReaderBuilder::new(schema.clone())
                    .with_ignore_type_conflicts(true)
                    .with_backend(backend)
                    .build(input.as_bytes())
                    .and_then(|r| r.collect::<Outcome>());
                match (&theirs, &ours) {
                    (Ok(a), Ok(b)) => assert!(same_batches(a, b), "{t} {v} {backend:?}"),
                    (Err(_), Err(_)) => {}
                    _ => panic!("{t} {v} {backend:?}: arrow-json {theirs:?}, jitson {ours:?}"),
                }
            }
        }
    }
    // A wrong length names where, in serde's words.
    let schema = one_column(&fixed(DataType::Int64, true, 2));
    for backend in BACKENDS {
        let e = ReaderBuilder::new(schema.clone())
            .with_backend(backend)
            .build(&b"{\"v\": [1, 2]}\n{\"v\": [1, 2, 3]}\n"[..])
            .and_then(|r| r.collect::<Outcome>())
            .unwrap_err();
        let ArrowError::ExternalError(inner) = e else {
            panic!("not a record error: {e}")
        };
        let e = inner.downcast_ref::<RecordError>().expect("a RecordError");
        assert_eq!(
            (e.record, e.line, e.path.as_str()),
            (1, 2, "$.v"),
            "{backend:?}"
        );
        assert_eq!(e.message, "invalid length 3, expected an array of length 2");
    }
}
