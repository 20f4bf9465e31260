//! Errors, policies, streaming and ownership, through both backends.

mod common;

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema};
use jitson_arrow::{Backend, ReaderBuilder, RecordError};

use common::{BACKENDS, decode_all, log_schema, record_error};

const LOG: &str = r#"{"id": 1, "req": {"method": "GET", "status": 200}, "tags": ["a"]}
{"id": 2, "tags": [], "req": null}
{"req": {"status": 404, "method": "PUT"}, "id": 3, "tags": ["x", null, "\u00e9"]}
"#;

#[test]
fn errors_say_where() {
    let input =
        format!("{LOG}{{\"id\": 4,\n \"req\": {{\"method\": \"GET\", \"status\": \"x\"}}}}\n");
    // Strings are read in integer columns (as arrow-json reads them), so "x"
    // is an invalid i32; with strict parsing, an invalid type.
    for (strict, message) in [
        (false, "invalid i32: \"x\""),
        (true, "invalid type: string \"x\", expected i32"),
    ] {
        for backend in BACKENDS {
            let builder = ReaderBuilder::new(log_schema())
                .with_strict_parsing(strict)
                .with_backend(backend);
            let e = record_error(decode_all(builder, input.as_bytes()).unwrap_err());
            assert_eq!(e.record, 3, "{backend:?}");
            assert_eq!(e.line, 5);
            assert_eq!(e.path, "$.req.status");
            assert_eq!(e.column_name.as_deref(), Some("req.status"));
            assert_eq!(e.data_type, Some(DataType::Int32));
            assert_eq!(e.message, message);
            assert_eq!(&input[e.byte as usize..e.byte as usize + 3], "\"x\"");
            assert!(
                e.to_string()
                    .starts_with("record 3 (line 5, column 37, byte "),
                "{e}"
            );
        }
    }
}

#[test]
fn rows_before_a_bad_record_stay() {
    for backend in BACKENDS {
        let mut decoder = ReaderBuilder::new(log_schema())
            .with_backend(backend)
            .build_decoder()
            .unwrap();
        let input = b"{\"id\": 1}\n{\"id\": 2, \"req\": {\"method\": 5}}\n";
        assert!(decoder.decode(input).is_err());
        let batch = decoder.flush().unwrap().unwrap();
        assert_eq!(batch.num_rows(), 1, "{backend:?}");
        batch.column(1).to_data().validate_full().unwrap();
    }
}

/// A `Reader` that met an error gives it again for every later item, as
/// arrow-json's does, and never a row twice: the records of the buffer
/// before the broken one were decoded already (before this, reading on gave
/// a batch of record 3 twice). Batches of 2, buffers of every size from 1
/// byte to the whole input; the first six items against arrow-json's.
#[test]
fn a_reader_after_an_error_gives_the_error_again() {
    use std::io::BufReader;
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, true)]));
    let inputs = [
        &b"{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n{\"a\":}\n{\"a\":5}\n"[..],
        b"{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n{\"a\":",
    ];
    let items =
        |reader: &mut dyn Iterator<Item = Result<RecordBatch, arrow_schema::ArrowError>>| {
            (0..6)
                .map(|_| reader.next().map(|item| item.map_err(|_| ())))
                .collect::<Vec<_>>()
        };
    for input in inputs {
        for capacity in [1, 2, 3, 7, 9, 64, 4096] {
            let mut theirs = arrow_json::ReaderBuilder::new(schema.clone())
                .with_batch_size(2)
                .build(BufReader::with_capacity(capacity, input))
                .unwrap();
            let expected = items(&mut theirs);
            assert!(expected.iter().any(|item| matches!(item, Some(Err(())))));
            for backend in BACKENDS {
                let mut ours = ReaderBuilder::new(schema.clone())
                    .with_batch_size(2)
                    .with_backend(backend)
                    .build(BufReader::with_capacity(capacity, input))
                    .unwrap();
                assert_eq!(
                    items(&mut ours),
                    expected,
                    "{backend:?}, buffers of {capacity}"
                );
            }
        }
    }
}

#[test]
fn missing_and_unknown_keys() {
    for backend in BACKENDS {
        let b = || ReaderBuilder::new(log_schema()).with_backend(backend);
        let missing = record_error(decode_all(b(), b"{\"tags\": []}").unwrap_err());
        assert_eq!(missing.message, "missing field `id`");
        // Unknown keys are skipped, or refused in strict mode.
        let unknown = b"{\"id\": 1, \"other\": [1, {\"x\": 2}]}";
        assert_eq!(decode_all(b(), unknown).unwrap()[0].num_rows(), 1);
        let e = record_error(decode_all(b().with_strict_mode(true), unknown).unwrap_err());
        assert!(
            e.message.starts_with("unknown field `other`"),
            "{}",
            e.message
        );
    }
}

#[test]
fn type_conflicts_become_nulls_on_request() {
    let input = br#"{"id": 1, "req": {"method": "GET", "status": "oops"}, "tags": [1, "b"]}"#;
    for backend in BACKENDS {
        let b = || ReaderBuilder::new(log_schema()).with_backend(backend);
        assert!(decode_all(b(), input).is_err());
        let batches = decode_all(b().with_ignore_type_conflicts(true), input).unwrap();
        let expected = decode_all(
            b(),
            br#"{"id": 1, "req": {"method": "GET", "status": null}, "tags": [null, "b"]}"#,
        )
        .unwrap();
        assert_eq!(batches, expected, "{backend:?}");
        // A non-nullable column still fails.
        let e = record_error(
            decode_all(b().with_ignore_type_conflicts(true), br#"{"id": "x"}"#).unwrap_err(),
        );
        assert_eq!(e.path, "$.id");
    }
}

/// A value of the right type and the wrong shape is an error under
/// `with_ignore_type_conflicts(true)` as without it, as in arrow-json: a key
/// no field names inside a nullable struct in strict mode (in a record, in a
/// list of structs, in a map's values, and as a `new_with_field` row), and a
/// nullable struct in list mode with too few or too many values (cases from a
/// hostile review, 2026-12-07; the structs were nulls before).
#[test]
fn shapes_are_not_type_conflicts() {
    use DataType::{Boolean, Int64, Utf8};
    let pair = DataType::Struct(Fields::from(vec![
        Field::new("x", Int64, true),
        Field::new("y", Boolean, true),
    ]));
    let map = DataType::Map(
        Arc::new(Field::new(
            "entries",
            DataType::Struct(Fields::from(vec![
                Field::new("keys", Utf8, false),
                Field::new("values", pair.clone(), true),
            ])),
            false,
        )),
        false,
    );
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", Int64, true),
        Field::new("s", pair.clone(), true),
        Field::new("l", DataType::new_list(pair.clone(), true), true),
        Field::new("m", map, true),
    ]));
    let field = Arc::new(Field::new("v", pair, true));
    // Each case: the builders of both crates with the same options.
    let strict = || {
        (
            ReaderBuilder::new(schema.clone()).with_strict_mode(true),
            arrow_json::ReaderBuilder::new(schema.clone()).with_strict_mode(true),
        )
    };
    let strict_field = || {
        (
            ReaderBuilder::new_with_field(field.clone()).with_strict_mode(true),
            arrow_json::ReaderBuilder::new_with_field(field.clone()).with_strict_mode(true),
        )
    };
    let list = || {
        (
            ReaderBuilder::new(schema.clone()).with_struct_mode(jitson_arrow::StructMode::ListOnly),
            arrow_json::ReaderBuilder::new(schema.clone())
                .with_struct_mode(arrow_json::StructMode::ListOnly),
        )
    };
    type Builders = (ReaderBuilder, arrow_json::ReaderBuilder);
    let cases: [(&dyn Fn() -> Builders, &[&str]); 3] = [
        (
            &strict,
            &[
                r#"{"s":{"z":1}}"#,
                r#"{"s":{"x":1,"z":[1,2]}}"#,
                r#"{"l":[{"x":1,"q":1},{"x":2}]}"#,
                r#"{"m":{"k":{"x":1,"q":2}}}"#,
            ],
        ),
        (&strict_field, &[r#"{"x":1,"z":2}"#]),
        (
            &list,
            &[
                "[1,[2],null,null]",
                "[1,[],null,null]",
                "[1,[2,true,3],null,null]",
                "[1,null,[[1]],null]",
            ],
        ),
    ];
    for (builders, inputs) in cases {
        for input in inputs {
            for ignore in [false, true] {
                let (_, theirs) = builders();
                let theirs = theirs
                    .with_ignore_type_conflicts(ignore)
                    .build(input.as_bytes())
                    .unwrap()
                    .collect::<Result<Vec<RecordBatch>, _>>();
                assert!(theirs.is_err(), "arrow-json reads {input}");
                for backend in BACKENDS {
                    let (ours, _) = builders();
                    let ours = ours
                        .with_ignore_type_conflicts(ignore)
                        .with_backend(backend);
                    let ours = decode_all(ours, input.as_bytes());
                    assert!(
                        ours.is_err(),
                        "ignore {ignore}, {backend:?}: {input} read as {ours:?}"
                    );
                }
            }
        }
    }
}

/// What `with_ignore_type_conflicts(true)` makes a null is the value itself
/// being of another type, as in arrow-json: a number too large for an `f64`
/// in a column that reads no numbers is a null like any number there; a
/// non-nullable child's absence, null or conflict fails the record instead of
/// nulling the nullable column around it (arrow-json's check of non-nullable
/// children); and a non-nullable `Null` column reads an absent key as its
/// null. Each outcome is arrow-json's, with the option and without it (cases
/// from a review, 2026-12-07).
#[test]
fn type_conflicts_are_the_value_itself() {
    use DataType::{Boolean, Float64, Int32, Int64, Null, Utf8};
    let pair = DataType::Struct(Fields::from(vec![
        Field::new("a", Int64, true),
        Field::new("n", Int32, false),
    ]));
    let strict_items = DataType::new_list(Int64, false);
    let strict_values = DataType::Map(
        Arc::new(Field::new(
            "entries",
            DataType::Struct(Fields::from(vec![
                Field::new("keys", Utf8, false),
                Field::new("values", Int64, false),
            ])),
            false,
        )),
        false,
    );
    let cases: &[(DataType, bool, &str)] = &[
        (Boolean, true, r#"{"v": 1e400}"#),
        (Utf8, true, r#"{"v": -1e400}"#),
        (DataType::new_list(Int64, true), true, r#"{"v": 1e400}"#),
        (
            DataType::new_list(Boolean, true),
            true,
            r#"{"v": [1e400, true]}"#,
        ),
        (pair.clone(), true, r#"{"v": 1e400}"#),
        (Float64, true, r#"{"v": 1e400}"#),
        (Int64, true, r#"{"v": 1e400}"#),
        (pair.clone(), true, r#"{"v": {"a": 5}}"#),
        (pair.clone(), true, r#"{"v": {"a": 5, "n": null}}"#),
        (pair.clone(), true, r#"{"v": {"a": 5, "n": "x"}}"#),
        (pair.clone(), true, r#"{"v": {"a": "x", "n": 1}}"#),
        (pair.clone(), true, r#"{"v": 5}"#),
        (pair, true, r#"{"v": null}"#),
        (strict_items.clone(), true, r#"{"v": [1, null]}"#),
        (strict_items, true, r#"{"v": [1, "x"]}"#),
        (strict_values, true, r#"{"v": {"a": null}}"#),
        (Null, false, r#"{}"#),
        (Null, false, r#"{"v": null}"#),
    ];
    for (data_type, nullable, input) in cases {
        let schema = Arc::new(Schema::new(vec![Field::new(
            "v",
            data_type.clone(),
            *nullable,
        )]));
        for ignore in [false, true] {
            let expected = arrow_json::ReaderBuilder::new(schema.clone())
                .with_ignore_type_conflicts(ignore)
                .build(input.as_bytes())
                .and_then(|reader| reader.collect::<Result<Vec<_>, _>>());
            for backend in BACKENDS {
                let got = decode_all(
                    ReaderBuilder::new(schema.clone())
                        .with_backend(backend)
                        .with_ignore_type_conflicts(ignore),
                    input.as_bytes(),
                );
                match (&expected, &got) {
                    (Ok(e), Ok(g)) => assert_eq!(e, g, "{input} as {data_type}, {backend:?}"),
                    (Err(_), Err(_)) => {}
                    _ => panic!(
                        "{input} as {data_type}, ignore {ignore}, {backend:?}: \
                         arrow-json {expected:?}, jitson {got:?}"
                    ),
                }
            }
        }
    }
}

#[test]
fn coerce_primitive() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("s", DataType::Utf8, true),
        Field::new("n", DataType::Int64, true),
    ]));
    let input = br#"{"s": 12.5, "n": "42"}
{"s": true, "n": 7}
"#;
    for backend in BACKENDS {
        let b = || ReaderBuilder::new(schema.clone()).with_backend(backend);
        assert!(decode_all(b(), input).is_err());
        let got = decode_all(b().with_coerce_primitive(true), input).unwrap();
        let expected = arrow_json::ReaderBuilder::new(schema.clone())
            .with_coerce_primitive(true)
            .build(&input[..])
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        assert_eq!(got, expected, "{backend:?}");
    }
}

/// A record split across two `decode` calls at every byte offset decodes as
/// the whole input does, with batches that fill at every record too.
#[test]
fn split_at_every_byte() {
    let input = format!("[{}]", LOG.trim_end().replace('\n', ",\n"));
    for text in [LOG, input.as_str()] {
        for (backend, batch) in BACKENDS
            .into_iter()
            .flat_map(|b| [(b, 1), (b, 2), (b, 1024)])
        {
            let builder = ReaderBuilder::new(log_schema())
                .with_backend(backend)
                .with_batch_size(batch);
            let whole = decode_all(builder.clone(), text.as_bytes()).unwrap();
            let compiled = builder.compile().unwrap();
            for split in 0..=text.len() {
                let mut decoder = compiled.decoder();
                let mut batches = Vec::new();
                for part in [&text.as_bytes()[..split], &text.as_bytes()[split..]] {
                    let mut part = part;
                    while !part.is_empty() {
                        let n = decoder.decode(part).unwrap();
                        part = &part[n..];
                        if !part.is_empty() {
                            batches.extend(decoder.flush().unwrap());
                        }
                    }
                }
                batches.extend(decoder.flush().unwrap());
                assert_eq!(
                    batches, whole,
                    "{backend:?}, batches of {batch}, split at {split}"
                );
            }
        }
    }
}

#[test]
fn truncated_input_is_an_error_at_flush() {
    for backend in BACKENDS {
        let mut decoder = ReaderBuilder::new(log_schema())
            .with_backend(backend)
            .build_decoder()
            .unwrap();
        let input = b"{\"id\": 1}\n{\"id\": 2, \"tags\": [\"a";
        assert_eq!(decoder.decode(input).unwrap(), input.len());
        let e = record_error(decoder.flush().unwrap_err());
        assert_eq!(e.record, 1);
        assert!(e.message.starts_with("EOF while parsing"), "{}", e.message);
    }
}

#[test]
fn parallel_equals_sequential() {
    let mut input = String::new();
    for i in 0..5000 {
        input.push_str(&format!(
            "{{\"id\": {i}, \"req\": {{\"method\": \"M{}\", \"status\": {}}}, \"tags\": [\"t{i}\"]}}\n",
            i % 7,
            200 + i % 5
        ));
    }
    for backend in BACKENDS {
        let compiled = ReaderBuilder::new(log_schema())
            .with_backend(backend)
            .with_batch_size(777)
            .compile()
            .unwrap();
        let sequential = decode_all(
            ReaderBuilder::new(log_schema()).with_batch_size(777),
            input.as_bytes(),
        )
        .unwrap();
        let parallel = compiled.decode_parallel(input.as_bytes(), 10_000).unwrap();
        let rows = |b: &[RecordBatch]| b.iter().map(RecordBatch::num_rows).sum::<usize>();
        assert_eq!(rows(&parallel), 5000);
        let schema = log_schema();
        let concat = |b: &[RecordBatch]| arrow_select::concat::concat_batches(&schema, b).unwrap();
        assert_eq!(concat(&parallel), concat(&sequential), "{backend:?}");
        // An error far into the input names its record and line in the whole input.
        let bad = input.replacen("\"id\": 4321,", "\"id\": true,", 1);
        let e = record_error(
            compiled
                .decode_parallel(bad.as_bytes(), 10_000)
                .unwrap_err(),
        );
        assert_eq!((e.record, e.line, e.path.as_str()), (4321, 4322, "$.id"));
    }
}

/// Schemas built and dropped free their layouts and code: resident memory
/// after many more schemas is what it was after a few. (`JITSON_SCHEMA_CHURN`
/// sets how many; the closing note of issue 11 reports 100,000.)
#[test]
fn dropped_schemas_free_their_code() {
    let count: usize = std::env::var("JITSON_SCHEMA_CHURN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    let build = |i: usize| {
        let schema = Arc::new(Schema::new(vec![
            Field::new(format!("field_{i}"), DataType::Int64, true),
            Field::new("name", DataType::Utf8, true),
        ]));
        let compiled = ReaderBuilder::new(schema)
            .with_backend(Backend::Jit)
            .compile()
            .unwrap();
        let mut d = compiled.decoder();
        d.decode(format!("{{\"field_{i}\": {i}, \"name\": \"n\"}}").as_bytes())
            .unwrap();
        assert_eq!(d.flush().unwrap().unwrap().num_rows(), 1);
    };
    for i in 0..count / 4 {
        build(i);
    }
    let before = resident_kib();
    for i in count / 4..count {
        build(i);
    }
    let after = resident_kib();
    eprintln!("{count} schemas: resident {before} KiB after a quarter, {after} KiB at the end");
    assert!(after < before + 16 * 1024, "{before} KiB -> {after} KiB");
}

fn resident_kib() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    pages * 4
}

#[test]
fn record_error_columns_count_characters_and_print_as_documented() {
    // "é" is two bytes, one character: the column counts characters, as
    // RecordError's docs (and jitson::Error::column) say.
    let input = "{\"id\": 1, \"tags\": [\"é\"], \"req\": {\"method\": 5}}\n";
    for backend in BACKENDS {
        let builder = ReaderBuilder::new(log_schema()).with_backend(backend);
        let e = decode_all(builder, input.as_bytes()).unwrap_err();
        // Through ArrowError, the record error prints after arrow's own prefix
        // for external errors, as docs/arrow.md shows.
        assert!(
            e.to_string()
                .starts_with("External error: record 0 (line 1, column 44, byte 44)"),
            "{backend:?}: {e}"
        );
        let e = record_error(e);
        let byte = e.byte as usize;
        assert_eq!(&input[byte..byte + 1], "5");
        assert_eq!(e.column, input[..byte].chars().count() as u64 + 1);
        assert_ne!(e.column, byte as u64 + 1);
    }
}

#[test]
fn a_number_in_a_timestamp_column_is_named_as_a_number() {
    // With strict parsing: by default (arrow-json's rules) `1.5` is 1 and a
    // number beyond `i64` saturates.
    let schema = Arc::new(Schema::new(vec![Field::new(
        "ts",
        DataType::Timestamp(arrow_schema::TimeUnit::Second, None),
        true,
    )]));
    for (doc, message) in [
        (
            "{\"ts\": 1.5}\n",
            "invalid value: floating point `1.5`, expected a timestamp",
        ),
        (
            "{\"ts\": 99999999999999999999}\n",
            "invalid value: integer `99999999999999999999`, expected a timestamp",
        ),
        ("{\"ts\": \"1.5\"}\n", "invalid timestamp: \"1.5\""),
    ] {
        for backend in BACKENDS {
            let builder = ReaderBuilder::new(schema.clone())
                .with_strict_parsing(true)
                .with_backend(backend);
            let e = record_error(decode_all(builder, doc.as_bytes()).unwrap_err());
            assert_eq!(e.message, message, "{backend:?}");
        }
    }
}

#[test]
fn decode_parallel_does_not_depend_on_where_chunks_are_cut() {
    // Records that span lines (pretty-printed), then one that fails: on every
    // chunk size (and so on any number of cores) the answer of the whole
    // stream decoded in one piece.
    let mut input = String::new();
    for i in 0..300 {
        input.push_str(&format!(
            "{{\n  \"id\": {i},\n  \"req\": {{\"method\": \"GET\",\n \"status\": 200}},\n  \"tags\": [\"é\"]\n}}\n"
        ));
    }
    let schema = log_schema();
    let concat = |b: &[RecordBatch]| arrow_select::concat::concat_batches(&schema, b).unwrap();
    let bad = input.replacen("\"id\": 123,", "\"id\": \"x\",", 1);
    for backend in BACKENDS {
        let compiled = ReaderBuilder::new(log_schema())
            .with_backend(backend)
            .compile()
            .unwrap();
        let whole =
            concat(&decode_all(ReaderBuilder::new(log_schema()), input.as_bytes()).unwrap());
        let want =
            record_error(decode_all(ReaderBuilder::new(log_schema()), bad.as_bytes()).unwrap_err());
        assert_eq!((want.record, want.line), (123, 123 * 6 + 2));
        for chunk_bytes in [1, 7, 100, 1_000, 10_000, usize::MAX] {
            let parallel = compiled
                .decode_parallel(input.as_bytes(), chunk_bytes)
                .unwrap();
            assert_eq!(concat(&parallel), whole, "{backend:?} {chunk_bytes}");
            let e = record_error(
                compiled
                    .decode_parallel(bad.as_bytes(), chunk_bytes)
                    .unwrap_err(),
            );
            assert_eq!(e, want, "{backend:?} {chunk_bytes}");
        }
    }
}

/// Top-level arrays and where chunks are cut (a hostile review, 2026-12-07):
/// a chunk after the first starts among records, so a `[` there is refused
/// as in one piece (each chunk's decoder used to open an array of its own
/// and read `[{"id":1}]` then `{"id":2}` on separate lines); input that ends
/// inside a top-level array is an error, in `decode_parallel` and in the
/// `Reader` alike (it was read as the records before the end). Every chunk
/// size against the whole input in one piece, on both backends, and the
/// `Reader`'s error against the sequential decode's.
#[test]
fn top_level_arrays_do_not_depend_on_chunks() {
    let schema = log_schema();
    let concat = |b: &[RecordBatch]| arrow_select::concat::concat_batches(&schema, b).unwrap();
    let of = |e: &ArrowError| match e {
        ArrowError::ExternalError(inner) => inner.downcast_ref::<RecordError>().cloned(),
        _ => None,
    };
    // Each input, and whether it reads (in one piece).
    let inputs = [
        ("[{\"id\":1}]\n{\"id\":2}\n", false),
        ("[{\"id\":1}]\n[{\"id\":2}]\n", false),
        ("{\"id\":1}\n[{\"id\":2}]\n", false),
        ("[{\"id\":1},\n{\"id\":2}\n", false),
        ("[{\"id\":1},\n{\"id\":2},\n", false),
        ("[\n", false),
        ("[\n{\"id\":1},\n{\"id\":2}\n]\n", true),
        ("[{\"id\":1},\n{\"id\":2}]\n", true),
        ("[]\n", true),
    ];
    for (input, reads) in inputs {
        for backend in BACKENDS {
            let builder = || ReaderBuilder::new(log_schema()).with_backend(backend);
            let whole = decode_all(builder(), input.as_bytes());
            assert_eq!(whole.is_ok(), reads, "{input:?}: {whole:?}");
            let compiled = builder().compile().unwrap();
            for chunk_bytes in 1..=input.len() + 1 {
                let what = format!("{input:?}, {backend:?}, chunks of {chunk_bytes}");
                match (
                    &whole,
                    compiled.decode_parallel(input.as_bytes(), chunk_bytes),
                ) {
                    (Ok(whole), Ok(parallel)) => {
                        assert_eq!(concat(&parallel), concat(whole), "{what}")
                    }
                    (Err(whole), Err(parallel)) => {
                        assert_eq!(of(&parallel), of(whole), "{what}");
                        assert!(of(whole).is_some(), "{what}: {whole}");
                    }
                    (whole, parallel) => {
                        panic!("{what}: {whole:?} in one piece, {parallel:?} in chunks")
                    }
                }
            }
        }
    }
}

/// `Decoder::with_batch_size` below the rows a decoder holds (a LIMIT's
/// scan asks for fewer rows as it goes): `decode` takes no more records
/// until `flush` (it took every record, as the full batch's test was for
/// equality), and a record begun under the larger size ends the batch.
#[test]
fn a_smaller_batch_size_stops_at_once() {
    let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)]));
    for backend in BACKENDS {
        let decoder = || {
            ReaderBuilder::new(schema.clone())
                .with_batch_size(8)
                .with_backend(backend)
                .build_decoder()
                .unwrap()
        };
        let mut d = decoder();
        assert_eq!(
            d.decode(b"{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n").unwrap(),
            27
        );
        let mut d = d.with_batch_size(2);
        assert_eq!(d.decode(b"{\"id\":4}\n").unwrap(), 0, "{backend:?}");
        assert_eq!(d.flush().unwrap().unwrap().num_rows(), 3);
        // Up to the end of the record that fills the batch (difference 13).
        assert_eq!(
            d.decode(b"{\"id\":4}\n{\"id\":5}\n{\"id\":6}\n").unwrap(),
            17
        );
        assert_eq!(d.flush().unwrap().unwrap().num_rows(), 2);
        let mut d = decoder();
        assert_eq!(d.decode(b"{\"id\":1}\n{\"id\":").unwrap(), 15);
        let mut d = d.with_batch_size(1);
        let taken = d.decode(b"2}\n{\"id\":3}\n").unwrap();
        assert_eq!((taken, d.len()), (2, 2), "{backend:?}");
        assert_eq!(d.flush().unwrap().unwrap().num_rows(), 2);
    }
}

/// An example record (`with_example_record`) changes nothing but speed:
/// whatever the example (records in the order it teaches or another, its
/// nested objects in any order, a list of structs, unknown nested keys, an
/// example that is not a record of the schema, not an object, or not JSON),
/// the batches are those read without it, on both backends, and so is an
/// error; with strict mode an unknown key stays an error.
#[test]
fn example_records_change_nothing_but_speed() {
    let item = Fields::from(vec![
        Field::new("b", DataType::Int32, true),
        Field::new("a", DataType::Utf8, true),
    ]);
    let request = Fields::from(vec![
        Field::new("status", DataType::Int32, true),
        Field::new("path", DataType::Utf8, true),
        Field::new("method", DataType::Utf8, false),
    ]);
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("req", DataType::Struct(request), true),
        Field::new(
            "items",
            DataType::new_list(DataType::Struct(item), true),
            true,
        ),
    ]));
    let input = concat!(
        r#"{"id": 1, "req": {"method": "GET", "path": "/a", "status": 200, "ua": "x"}, "items": [{"a": "p", "b": 1}, {"b": 2}]}"#,
        "\n",
        r#"{"req": {"status": 404, "method": "PUT"}, "id": 2, "items": null, "other": {"req": {}}}"#,
        "\n",
        r#"{"items": [{"b": 3, "a": "q", "z": [1]}, {}], "req": null, "id": 3}"#,
        "\n",
        r#"{"id": 4, "req": {"path": "/\u00e9", "method": "DELETE", "method": "POST"}}"#,
        "\n",
    );
    let examples: [&[u8]; 9] = [
        br#"{"id": 0, "req": {"method": "", "path": "", "status": 0}, "items": [{"a": "", "b": 0}]}"#,
        br#"  {"items": [{"b": 0, "z": 1, "a": ""}], "x": 1, "req": {"ua": "", "status": 0, "path": "", "method": ""}, "id": 0} trailing"#,
        br#"{"req": {"status": "not a number", "method": 5}, "id": "x"}"#,
        br#"{"req": 7, "items": {"a": 1}}"#,
        br#"[1, 2, {"id": 1}]"#,
        br#"{"id": 1, "req": {"method": "GE"#,
        br#"{}"#,
        b"",
        br#"{"a\u0062": {"\"": [[[[{"k": {}}]]]]}}"#,
    ];
    for backend in BACKENDS {
        let plain = decode_all(
            ReaderBuilder::new(schema.clone()).with_backend(backend),
            input.as_bytes(),
        )
        .unwrap();
        assert_eq!(plain.iter().map(RecordBatch::num_rows).sum::<usize>(), 4);
        for example in examples {
            let shown = String::from_utf8_lossy(example);
            let with = |builder: ReaderBuilder| builder.with_example_record(example);
            let got = decode_all(
                with(ReaderBuilder::new(schema.clone()).with_backend(backend)),
                input.as_bytes(),
            )
            .unwrap();
            assert_eq!(got, plain, "{backend:?} {shown}");
            // With record keys of another order too.
            let got = decode_all(
                with(ReaderBuilder::new(schema.clone()).with_backend(backend))
                    .with_record_keys(["items", "id", "req"]),
                input.as_bytes(),
            )
            .unwrap();
            assert_eq!(got, plain, "{backend:?} {shown}, record keys");
            // An error: the same record, line, byte and message.
            let broken = format!("{input}{{\"id\": 5, \"req\": {{\"method\": 1}}}}\n");
            let expected = record_error(
                decode_all(
                    ReaderBuilder::new(schema.clone()).with_backend(backend),
                    broken.as_bytes(),
                )
                .unwrap_err(),
            );
            let error = record_error(
                decode_all(
                    with(ReaderBuilder::new(schema.clone()).with_backend(backend)),
                    broken.as_bytes(),
                )
                .unwrap_err(),
            );
            assert_eq!(
                (error.record, error.line, error.byte, &error.message),
                (
                    expected.record,
                    expected.line,
                    expected.byte,
                    &expected.message
                ),
                "{backend:?} {shown}"
            );
            // Strict mode: the unknown nested key is still refused.
            let strict = decode_all(
                with(ReaderBuilder::new(schema.clone()).with_backend(backend))
                    .with_strict_mode(true),
                input.as_bytes(),
            );
            assert!(strict.is_err(), "{backend:?} {shown}: {strict:?}");
        }
    }
}

/// `with_record_keys` changes only how keys are matched: with the keys of a
/// whole file around a projection, in the file's order, in another order,
/// repeated, or naming nothing the records hold, the batches are those read
/// without it, on both backends; an error inside a value the projection
/// leaves out is reported as without it; with strict parsing a repeated key
/// that is not a column stays no error (the record keys are not used there).
#[test]
fn record_keys_change_nothing_but_speed() {
    let projected = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("tags", DataType::new_list(DataType::Utf8, true), true),
    ]));
    let input = format!(
        "{LOG}{{\"tags\": [\"z\"], \"extra\": {{\"deep\": [1, 2]}}, \"id\": 4, \"req\": 7, \"req\": {{}}}}\n"
    );
    let orders: [&[&str]; 5] = [
        &["id", "req", "tags"],
        &["req", "tags", "id"],
        &["tags", "req", "id", "req", "extra"],
        &["nothing", "here"],
        &[],
    ];
    for backend in BACKENDS {
        let plain = decode_all(
            ReaderBuilder::new(projected.clone()).with_backend(backend),
            input.as_bytes(),
        )
        .unwrap();
        assert_eq!(plain.iter().map(RecordBatch::num_rows).sum::<usize>(), 4);
        for keys in orders {
            let got = decode_all(
                ReaderBuilder::new(projected.clone())
                    .with_backend(backend)
                    .with_record_keys(keys.iter().copied()),
                input.as_bytes(),
            )
            .unwrap();
            assert_eq!(got, plain, "{backend:?} {keys:?}");
        }
        // Invalid JSON inside a left-out value: the same error either way.
        let broken = format!("{LOG}{{\"id\": 5, \"req\": {{\"method\": tru}}}}\n");
        let plain = record_error(
            decode_all(
                ReaderBuilder::new(projected.clone()).with_backend(backend),
                broken.as_bytes(),
            )
            .unwrap_err(),
        );
        let with_keys = record_error(
            decode_all(
                ReaderBuilder::new(projected.clone())
                    .with_backend(backend)
                    .with_record_keys(["id", "req", "tags"]),
                broken.as_bytes(),
            )
            .unwrap_err(),
        );
        assert_eq!(
            (
                with_keys.record,
                with_keys.line,
                with_keys.byte,
                &with_keys.message
            ),
            (plain.record, plain.line, plain.byte, &plain.message),
            "{backend:?}"
        );
        // Strict parsing: a repeated key that is not a column is no error,
        // with or without the record keys.
        for keys in [&["id", "req", "tags"][..], &[]] {
            let got = decode_all(
                ReaderBuilder::new(projected.clone())
                    .with_backend(backend)
                    .with_strict_parsing(true)
                    .with_record_keys(keys.iter().copied()),
                input.as_bytes(),
            );
            assert!(got.is_ok(), "{backend:?} {keys:?}: {got:?}");
        }
    }
}

/// A `Null` column, nullable or not, as a record's field and as the top-level
/// field of `new_with_field`: under `with_ignore_type_conflicts` every value
/// is a null row, as arrow-json's null decoder ignores every value then;
/// without it, a value that is not `null` is refused by both. Until
/// 2026-12-08 a non-nullable one refused values under the option too.
#[test]
fn null_columns_take_any_value_when_conflicts_are_ignored() {
    let rows = |r: Result<Vec<RecordBatch>, ArrowError>| {
        r.map(|batches| batches.iter().map(|b| b.num_rows()).sum::<usize>())
            .map_err(|_| ())
    };
    for nullable in [false, true] {
        for value in ["null", "1", "\"x\"", "[1]", "{\"a\":1}", "true"] {
            for ignore in [false, true] {
                let field = Arc::new(Field::new("n", DataType::Null, nullable));
                let schema = Arc::new(Schema::new(vec![field.as_ref().clone()]));
                let record = format!("{{\"n\":{value}}}\n{{}}\n");
                let bare = format!("{value}\n");
                let inputs = [
                    (record.as_bytes(), None),
                    (bare.as_bytes(), Some(field.clone())),
                ];
                for (input, top) in inputs {
                    let theirs = rows(
                        match &top {
                            Some(f) => arrow_json::ReaderBuilder::new_with_field(f.clone()),
                            None => arrow_json::ReaderBuilder::new(schema.clone()),
                        }
                        .with_ignore_type_conflicts(ignore)
                        .build(input)
                        .unwrap()
                        .collect::<Result<Vec<_>, _>>(),
                    );
                    for backend in BACKENDS {
                        let builder = match &top {
                            Some(f) => ReaderBuilder::new_with_field(f.clone()),
                            None => ReaderBuilder::new(schema.clone()),
                        }
                        .with_ignore_type_conflicts(ignore)
                        .with_backend(backend);
                        let ours = decode_all(builder, input);
                        assert_eq!(
                            rows(ours),
                            theirs,
                            "{value} (nullable {nullable}, ignore {ignore}, top {}) on {backend:?}",
                            top.is_some()
                        );
                    }
                }
            }
        }
    }
}
