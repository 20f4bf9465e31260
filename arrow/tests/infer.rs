//! Schema inference against arrow-json's `infer_json_schema`.

use std::io::Cursor;

#[test]
fn same_schema_as_arrow_json() {
    let samples = [
        "{\"a\": 1, \"b\": 2.5, \"c\": \"x\", \"d\": true, \"e\": null}\n",
        "{\"a\": 1}\n{\"a\": 2.5}\n{\"b\": [1, 2]}\n{\"b\": [1.5]}\n",
        "{\"a\": 1}\n{\"a\": \"x\"}\n{\"c\": null}\n",
        "{\"a\": {\"x\": 1, \"y\": [\"s\"]}}\n{\"a\": {\"z\": false, \"x\": 2}}\n\n",
        "{\"a\": [{\"k\": 1}, {\"j\": \"v\"}], \"b\": [], \"c\": [null]}\n",
        "{\"a\": 1}\n{\"a\": [2, 3]}\n",
        "{\"a\": [null]}\n{\"b\": [null]}\n{\"b\": [1]}\n{\"c\": 18446744073709551615}\n",
        // Field order: each record's keys by name, later records' new keys
        // after (nested objects too); a repeated key's last value stands.
        "{\"zeta\": 1, \"alpha\": {\"y\": 1, \"b\": 2}}\n{\"mid\": true, \"Ab\": [{\"q\": 1, \"p\": 2}]}\n",
        "{\"a\": \"x\", \"a\": 1}\n",
    ];
    for sample in samples {
        let (theirs, n1) =
            arrow_json::reader::infer_json_schema(Cursor::new(sample), None).unwrap();
        let (ours, n2) = jitson_arrow::infer_schema(Cursor::new(sample), None).unwrap();
        assert_eq!(ours, theirs, "{sample}");
        assert_eq!(n1, n2);
    }
}

/// Where arrow-json refuses (or, for a repeated key, ignores) a value, so
/// does jitson: inside an array, its first element decides between arrays,
/// objects and scalars; numbers beyond f64; a repeated key's earlier value
/// is not looked at.
#[test]
fn same_refusals_as_arrow_json() {
    let samples = [
        "{\"a\": [{}, 1], \"a\": 1}\n",
        "{\"a\": [[1], 2]}\n",
        "{\"a\": [1, [2]]}\n",
        "{\"a\": [[1], null]}\n",
        "{\"a\": [null, [1]]}\n",
        "{\"a\": [{}, null]}\n",
        "{\"a\": [{\"x\": 1}, {\"x\": \"y\"}]}\n",
        "{\"a\": [[1], [2.5], []]}\n",
        "{\"a\": 1e400}\n",
        "{\"a\": -1e400, \"a\": 1}\n",
        "{\"a\": 1e-400}\n",
        "{\"a\": 123456789012345678901234567890}\n",
        "{\"a\": {}}\n{\"a\": 1}\n",
        "{\"a\": {}, \"a\": 1}\n{\"a\": 2}\n",
    ];
    for sample in samples {
        let theirs = arrow_json::reader::infer_json_schema(Cursor::new(sample), None);
        let ours = jitson_arrow::infer_schema(Cursor::new(sample), None);
        match (theirs, ours) {
            (Ok((a, _)), Ok((b, _))) => assert_eq!(a, b, "{sample}"),
            (Err(_), Err(e)) => assert!(e.to_string().contains("line "), "{sample}: {e}"),
            (theirs, ours) => panic!("{sample}: arrow-json {theirs:?}, jitson {ours:?}"),
        }
    }
}

#[test]
fn max_records_and_errors() {
    let sample = "{\"a\": 1}\n{\"b\": 2}\n{\"c\": 3}\n";
    let (schema, n) = jitson_arrow::infer_schema(Cursor::new(sample), Some(2)).unwrap();
    assert_eq!((schema.fields().len(), n), (2, 2));
    for bad in ["[1]\n", "{\"a\": {}}\n{\"a\": 1}\n", "{\"a\": tru}\n"] {
        let e = jitson_arrow::infer_schema(Cursor::new(bad), None).unwrap_err();
        assert!(e.to_string().contains("line"), "{bad}: {e}");
    }
}
