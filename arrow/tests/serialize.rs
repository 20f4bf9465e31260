//! `Decoder::serialize`: rows given as serde values give arrow-json's batches,
//! on both backends, whatever the batch size.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema};
use jitson_arrow::{Backend, ReaderBuilder};
use serde::Serialize;

#[derive(Serialize)]
struct Row {
    id: i64,
    name: Option<String>,
    scores: Vec<f64>,
    attrs: BTreeMap<String, String>,
    inner: Inner,
}

#[derive(Serialize)]
struct Inner {
    ok: bool,
    ratio: f32,
}

fn schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, true),
        Field::new("scores", DataType::new_list(DataType::Float64, true), false),
        Field::new(
            "inner",
            DataType::Struct(Fields::from(vec![
                Field::new("ok", DataType::Boolean, false),
                Field::new("ratio", DataType::Float32, false),
            ])),
            false,
        ),
    ]))
}

fn rows() -> Vec<Row> {
    (0..2500)
        .map(|i| Row {
            id: i * 7 - 3000,
            name: (i % 3 != 0).then(|| format!("n\"{i}\u{e9}")),
            scores: (0..i % 4).map(|k| k as f64 * 0.1 + i as f64).collect(),
            attrs: BTreeMap::from([("k".to_string(), i.to_string())]),
            inner: Inner {
                ok: i % 2 == 0,
                ratio: i as f32 / 3.0,
            },
        })
        .collect()
}

#[test]
fn serialize_matches_arrow_json() {
    let rows = rows();
    let mut theirs = arrow_json::ReaderBuilder::new(schema())
        .with_batch_size(100)
        .build_decoder()
        .unwrap();
    theirs.serialize(&rows).unwrap();
    let expected = theirs.flush().unwrap().unwrap();
    assert_eq!(expected.num_rows(), rows.len());
    for backend in [Backend::Interpreter, Backend::Jit] {
        let mut ours = ReaderBuilder::new(schema())
            .with_batch_size(100)
            .with_backend(backend)
            .build_decoder()
            .unwrap();
        ours.serialize(&rows[..10]).unwrap();
        ours.serialize(&rows[10..]).unwrap();
        let got = ours.flush().unwrap().unwrap();
        assert_eq!(got, expected, "{backend:?}");
        assert!(ours.flush().unwrap().is_none());
    }
}

#[test]
fn serialize_refuses_what_the_schema_refuses() {
    #[derive(Serialize)]
    struct Bad {
        id: &'static str,
    }
    for backend in [Backend::Interpreter, Backend::Jit] {
        let mut ours = ReaderBuilder::new(schema())
            .with_backend(backend)
            .build_decoder()
            .unwrap();
        let e = ours.serialize(&[Bad { id: "x" }]).unwrap_err().to_string();
        assert!(e.contains("$.id"), "{e}");
        // A partial record pending from `decode` is refused too.
        let mut ours = ReaderBuilder::new(schema())
            .with_backend(backend)
            .build_decoder()
            .unwrap();
        ours.decode(br#"{"id":1,"#).unwrap();
        assert!(ours.serialize(&rows()[..1]).is_err());
    }
}

/// The floats `serialize` writes, each alone in a row, into a nullable column
/// of every type a float may land in, with and without `coerce_primitive` and
/// `ignore_type_conflicts`, against arrow-json's serializer, on both
/// backends: arrow-json keeps a float as a typed tape element and each
/// column has its own rule for one (`src/serialize.rs`), where serde_json's
/// text alone gave `null` for `NaN`, `1e16` for an `f32` of 1e16 in a
/// Float64 column (arrow-json: 1.0000000272564224e16), a timestamp for
/// `1.5` (arrow-json: an error) and `1e+16` in a coerced Utf8 column
/// (arrow-json: `1e16`). Where arrow-json's own result is a bug
/// (docs/arrow.md, difference 15), jitson's is checked instead.
#[test]
fn floats_by_column_as_arrow_json() {
    use arrow_array::{Array, RecordBatch};
    use arrow_schema::{ArrowError, TimeUnit};

    let f64s = [
        0.0,
        -0.0,
        -f64::NAN,
        1.5,
        -1.5,
        2.0,
        0.1,
        1e16,
        1.5e-7,
        1e30,
        1e300,
        123_456.789,
        -9_007_199_254_740_993.0,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let f32s = [
        0.0f32,
        -0.0,
        1.5,
        -1.5,
        0.1,
        1e16,
        1.5e-7,
        1e30,
        2_567_984.2,
        f32::MAX,
        f32::MIN_POSITIVE,
        1e-45,
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    let types = [
        DataType::Int8,
        DataType::Int32,
        DataType::Int64,
        DataType::UInt8,
        DataType::UInt64,
        DataType::Float16,
        DataType::Float32,
        DataType::Float64,
        DataType::Decimal128(20, 3),
        DataType::Decimal128(38, 10),
        DataType::Timestamp(TimeUnit::Millisecond, None),
        DataType::Timestamp(TimeUnit::Second, Some("+02:00".into())),
        DataType::Date32,
        DataType::Date64,
        DataType::Time64(TimeUnit::Microsecond),
        DataType::Duration(TimeUnit::Millisecond),
        DataType::Utf8,
        DataType::LargeUtf8,
        DataType::Utf8View,
        DataType::Boolean,
        DataType::new_list(DataType::Float64, true),
    ];
    /// A row's batch, or that it was refused; `None` where arrow-json
    /// panicked (a decimal's overflow in arrow-cast's parser).
    fn outcome(
        run: impl FnOnce() -> Result<Option<RecordBatch>, ArrowError>,
    ) -> Option<Result<RecordBatch, ()>> {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
            Ok(Ok(batch)) => Some(Ok(batch.expect("one row"))),
            Ok(Err(_)) => Some(Err(())),
            Err(_) => None,
        }
    }
    /// The text of row 0 of a text column.
    fn text(column: &dyn Array) -> String {
        use arrow_array::cast::AsArray;
        match column.data_type() {
            DataType::Utf8 => column.as_string::<i32>().value(0).to_owned(),
            DataType::LargeUtf8 => column.as_string::<i64>().value(0).to_owned(),
            DataType::Utf8View => column.as_string_view().value(0).to_owned(),
            other => panic!("not a text column: {other}"),
        }
    }
    let rows: Vec<Box<dyn erased::Rows>> = f64s
        .into_iter()
        .map(|v| Box::new(One { v }) as Box<dyn erased::Rows>)
        .chain(f32s.into_iter().map(|v| Box::new(One { v }) as _))
        .collect();
    let mut compared = 0;
    for ty in &types {
        let schema = Arc::new(Schema::new(vec![Field::new("v", ty.clone(), true)]));
        for (coerce, ignore) in [(false, false), (true, false), (false, true), (true, true)] {
            let ours: Vec<_> = [Backend::Interpreter, Backend::Jit]
                .into_iter()
                .map(|backend| {
                    ReaderBuilder::new(schema.clone())
                        .with_coerce_primitive(coerce)
                        .with_ignore_type_conflicts(ignore)
                        .with_backend(backend)
                        .compile()
                        .unwrap()
                })
                .collect();
            for row in &rows {
                let arrow = outcome(|| {
                    let mut d = arrow_json::ReaderBuilder::new(schema.clone())
                        .with_coerce_primitive(coerce)
                        .with_ignore_type_conflicts(ignore)
                        .build_decoder()?;
                    row.arrow(&mut d)?;
                    d.flush()
                });
                let what = format!(
                    "{} into {ty} (coerce {coerce}, ignore {ignore})",
                    row.show()
                );
                for compiled in &ours {
                    let mut d = compiled.decoder();
                    let got = outcome(|| {
                        row.jitson(&mut d)?;
                        d.flush()
                    })
                    .expect("jitson does not panic");
                    match (row.arrow_json_bug(ty, coerce), &arrow) {
                        (Some(expected), _) => {
                            let got = got.unwrap_or_else(|()| panic!("{what}: refused"));
                            assert_eq!(text(got.column(0).as_ref()), expected, "{what}");
                        }
                        // arrow-json panicked (a decimal's overflow): jitson
                        // refuses the value, or reads it as null when told
                        // to ignore conflicts.
                        (None, None) => match got {
                            Ok(batch) => assert!(ignore && batch.column(0).is_null(0), "{what}"),
                            Err(()) => assert!(!ignore, "{what}"),
                        },
                        (None, Some(Err(()))) => assert!(got.is_err(), "{what}: {got:?}"),
                        (None, Some(Ok(expected))) => {
                            let got = got.unwrap_or_else(|()| panic!("{what}: refused"));
                            let (g, e) = (got.column(0), expected.column(0));
                            assert_eq!(g.to_data(), e.to_data(), "{what}: {g:?} against {e:?}");
                            compared += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(compared > 3_000, "only {compared} values compared");
}

/// Floats inside structs, lists, maps, options and newtypes, and under keys
/// no column names: each reaches its own column's rule, as in arrow-json.
#[test]
fn nested_floats_as_arrow_json() {
    #[derive(Serialize)]
    struct Meters(f32);

    #[derive(Serialize)]
    struct Point {
        x: f32,
        y: Option<f64>,
        at: f64,
    }

    #[derive(Serialize)]
    struct Nested {
        point: Point,
        path: Vec<f32>,
        by_name: BTreeMap<String, f32>,
        as_struct: BTreeMap<String, f32>,
        length: Meters,
        tags: Vec<Option<f64>>,
        unknown: f32,
    }

    let point = DataType::Struct(Fields::from(vec![
        Field::new("x", DataType::Float64, true),
        Field::new("y", DataType::Int32, true),
        Field::new(
            "at",
            DataType::Timestamp(arrow_schema::TimeUnit::Millisecond, None),
            true,
        ),
    ]));
    let schema = Arc::new(Schema::new(vec![
        Field::new("point", point, true),
        Field::new("path", DataType::new_list(DataType::Float64, true), true),
        Field::new(
            "by_name",
            DataType::Map(
                Arc::new(Field::new(
                    "entries",
                    DataType::Struct(Fields::from(vec![
                        Field::new("keys", DataType::Utf8, false),
                        Field::new("values", DataType::Float64, true),
                    ])),
                    false,
                )),
                false,
            ),
            true,
        ),
        Field::new(
            "as_struct",
            DataType::Struct(Fields::from(vec![
                Field::new("a", DataType::Float64, true),
                Field::new("b", DataType::Utf8, true),
            ])),
            true,
        ),
        Field::new("length", DataType::Float64, true),
        Field::new("tags", DataType::new_list(DataType::Utf8, true), true),
    ]));
    let rows: Vec<Nested> = [0.1f32, 1e16, -2.5, f32::NAN, 1e-45]
        .into_iter()
        .map(|f| Nested {
            point: Point {
                x: f,
                y: Some(f64::from(f) * 3.0),
                at: 0.0,
            },
            path: vec![f, 1.0, -f],
            by_name: BTreeMap::from([("k".to_string(), f)]),
            as_struct: BTreeMap::from([("a".to_string(), f), ("b".to_string(), 2.0)]),
            length: Meters(f),
            // A NaN coerced into text is arrow-json's bug (difference 15).
            tags: vec![Some(f64::from(f)).filter(|t| t.is_finite()), None],
            unknown: f,
        })
        .collect();
    for (coerce, ignore) in [(true, true), (true, false), (false, true)] {
        let theirs = |rows: &[Nested]| {
            let mut d = arrow_json::ReaderBuilder::new(schema.clone())
                .with_coerce_primitive(coerce)
                .with_ignore_type_conflicts(ignore)
                .build_decoder()
                .unwrap();
            d.serialize(rows).and_then(|()| d.flush())
        };
        for backend in [Backend::Interpreter, Backend::Jit] {
            for rows in [&rows[..], &rows[..1], &rows[3..4]] {
                let mut d = ReaderBuilder::new(schema.clone())
                    .with_coerce_primitive(coerce)
                    .with_ignore_type_conflicts(ignore)
                    .with_backend(backend)
                    .build_decoder()
                    .unwrap();
                let ours = d.serialize(rows).and_then(|()| d.flush());
                let what = format!(
                    "{backend:?}, coerce {coerce}, ignore {ignore}, {} rows",
                    rows.len()
                );
                match (ours, theirs(rows)) {
                    (Ok(Some(ours)), Ok(Some(theirs))) => {
                        for (i, field) in schema.fields().iter().enumerate() {
                            let (o, t) = (ours.column(i), theirs.column(i));
                            assert_eq!(o, t, "{what}: column {}", field.name());
                        }
                    }
                    (Ok(ours), Ok(theirs)) => assert_eq!(ours, theirs, "{what}"),
                    (Err(_), Err(_)) => {}
                    (ours, theirs) => panic!("{what}: {ours:?} against {theirs:?}"),
                }
            }
        }
    }
}

/// A row of one value.
#[derive(Serialize)]
struct One<T> {
    v: T,
}

/// Rows of one type behind one interface, for the table above.
mod erased {
    use arrow_schema::{ArrowError, DataType};

    pub trait Rows {
        fn arrow(&self, d: &mut arrow_json::reader::Decoder) -> Result<(), ArrowError>;
        fn jitson(&self, d: &mut jitson_arrow::Decoder) -> Result<(), ArrowError>;
        fn show(&self) -> String;
        /// What jitson writes where arrow-json's own result is a bug: a
        /// non-finite float coerced into Utf8 (ryu's text for it is
        /// unspecified; arrow-json writes digits), an `f32` coerced into
        /// Utf8View (arrow-json writes its bits as an integer).
        fn arrow_json_bug(&self, ty: &DataType, coerce: bool) -> Option<String>;
    }

    impl<T: serde::Serialize + Float> Rows for super::One<T> {
        fn arrow(&self, d: &mut arrow_json::reader::Decoder) -> Result<(), ArrowError> {
            d.serialize(std::slice::from_ref(self))
        }

        fn jitson(&self, d: &mut jitson_arrow::Decoder) -> Result<(), ArrowError> {
            d.serialize(std::slice::from_ref(self))
        }

        fn show(&self) -> String {
            self.v.show()
        }

        fn arrow_json_bug(&self, ty: &DataType, coerce: bool) -> Option<String> {
            match ty {
                DataType::Utf8 | DataType::LargeUtf8 if coerce && !self.v.finite() => {
                    Some(self.v.display())
                }
                DataType::Utf8View if coerce && self.v.is_f32() => Some(self.v.display()),
                _ => None,
            }
        }
    }

    pub trait Float {
        fn show(&self) -> String;
        fn display(&self) -> String;
        fn finite(&self) -> bool;
        fn is_f32(&self) -> bool;
    }

    impl Float for f64 {
        fn show(&self) -> String {
            format!("{self:?}f64")
        }
        fn display(&self) -> String {
            self.to_string()
        }
        fn finite(&self) -> bool {
            self.is_finite()
        }
        fn is_f32(&self) -> bool {
            false
        }
    }

    impl Float for f32 {
        fn show(&self) -> String {
            format!("{self:?}f32")
        }
        fn display(&self) -> String {
            self.to_string()
        }
        fn finite(&self) -> bool {
            self.is_finite()
        }
        fn is_f32(&self) -> bool {
            true
        }
    }
}

/// In list mode (`StructMode::ListOnly`) rows given as serde structs are
/// objects, which list mode refuses, and serde tuples are records: as in
/// arrow-json, on both backends.
#[test]
fn serialize_in_list_mode_as_arrow_json() {
    #[derive(Serialize)]
    struct Named {
        a: i64,
        b: f32,
    }
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Float64, true),
    ]));
    let theirs = |serialize: &dyn Fn(
        &mut arrow_json::reader::Decoder,
    ) -> Result<(), arrow_schema::ArrowError>| {
        let mut d = arrow_json::ReaderBuilder::new(schema.clone())
            .with_struct_mode(arrow_json::StructMode::ListOnly)
            .build_decoder()
            .unwrap();
        serialize(&mut d).and_then(|()| d.flush())
    };
    for backend in [Backend::Interpreter, Backend::Jit] {
        let ours = |serialize: &dyn Fn(
            &mut jitson_arrow::Decoder,
        ) -> Result<(), arrow_schema::ArrowError>| {
            let mut d = ReaderBuilder::new(schema.clone())
                .with_struct_mode(jitson_arrow::StructMode::ListOnly)
                .with_backend(backend)
                .build_decoder()
                .unwrap();
            serialize(&mut d).and_then(|()| d.flush())
        };
        let named = [Named { a: 1, b: 0.1 }];
        assert!(theirs(&|d| d.serialize(&named)).is_err());
        assert!(ours(&|d| d.serialize(&named)).is_err(), "{backend:?}");
        let tuples = [(1i64, 0.1f32), (-2, f32::NAN)];
        let expected = theirs(&|d| d.serialize(&tuples)).unwrap().unwrap();
        let got = ours(&|d| d.serialize(&tuples)).unwrap().unwrap();
        assert_eq!(got.column(0), expected.column(0), "{backend:?}");
        assert_eq!(
            got.column(1).to_data(),
            expected.column(1).to_data(),
            "{backend:?}"
        );
    }
}
