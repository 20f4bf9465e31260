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
