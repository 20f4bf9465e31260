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

/// Cases from a hostile review (2026-12-07), each once against arrow-json:
/// arrays of `null`s meeting objects, arrays and scalars in later records or
/// in the same array; lines and records edged with Unicode whitespace
/// (arrow-json trims each line with `str::trim`); numbers at the edge of
/// f64's range (read by serde_json in both, under this build's features);
/// nesting at serde_json's recursion limit; a record of 10,000 keys (which
/// merged in quadratic time).
#[test]
fn edges_as_arrow_json() {
    let nested = |depth: usize, inner: &str| {
        format!(
            "{}{inner}{}\n",
            "{\"a\":".repeat(depth - 1),
            "}".repeat(depth - 1)
        )
    };
    let wide: String = {
        let keys: Vec<String> = (0..10_000)
            .map(|i| format!("\"k{}\":{i}", (i * 7919) % 10_000))
            .collect();
        format!("{{{}}}\n{{{}}}\n", keys.join(","), keys[..5_000].join(","))
    };
    let mut samples: Vec<String> = [
        "{\"a\":[null]}\n{\"a\":[{\"x\":1}]}\n",
        "{\"a\":[{\"x\":1}]}\n{\"a\":[null]}\n",
        "{\"a\":[[null],[{}]]}\n",
        "{\"a\":[[{}],[null]]}\n",
        "{\"a\":[null]}\n{\"a\":[[{\"x\":1}]]}\n",
        "{\"a\":[[null]]}\n{\"a\":[[{\"x\":1}]]}\n",
        "{\"a\":[null]}\n{\"a\":[[]]}\n",
        "{\"a\":[[]]}\n{\"a\":[null]}\n",
        "{\"a\":[[null],[[]]]}\n",
        "{\"a\":[{\"x\":[null]},{\"x\":[[]]}]}\n",
        "{\"a\":[null]}\n{\"a\":1}\n",
        "{\"a\":[null]}\n{\"a\":{}}\n",
        "\u{0C}\n{\"a\":1}\n",
        "\u{0B}\n\u{A0}\n\u{85}\n\u{3000}\n\u{2028}\n{\"a\":1}\n",
        "{\"a\":1}\u{A0}\n",
        "\u{2028}{\"a\":1}\u{2029}\n",
        "{\"a\":\u{A0}1}\n",
        "\u{FEFF}{\"a\":1}\n",
        "{\"a\":1.7976931348623158e308}\n",
        "{\"a\":-1.79769313486231580793e308}\n",
        "{\"a\":17976931348623158e292}\n",
        "{\"a\":1.7976931348623157e308}\n",
    ]
    .map(String::from)
    .to_vec();
    for depth in [126, 127, 128, 129] {
        samples.push(nested(depth, "{}"));
        samples.push(nested(depth, "1"));
        samples.push(nested(depth, "[]"));
    }
    samples.push(wide);
    for sample in &samples {
        for max in [None, Some(1)] {
            let theirs = arrow_json::reader::infer_json_schema(Cursor::new(sample), max);
            let ours = jitson_arrow::infer_schema(Cursor::new(sample), max);
            let what = || sample.chars().take(80).collect::<String>();
            match (theirs, ours) {
                (Ok(theirs), Ok(ours)) => assert_eq!(ours, theirs, "{}", what()),
                (Err(_), Err(_)) => {}
                (theirs, ours) => panic!("{}: arrow-json {theirs:?}, jitson {ours:?}", what()),
            }
        }
    }
}

/// A failed read is arrow-json's `JsonError`, "Failed to read JSON record".
#[test]
fn a_failed_read_is_a_json_error() {
    struct Failing(usize);
    impl std::io::Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                return Err(std::io::Error::other("disk on fire"));
            }
            self.0 = 0;
            let line = b"{\"a\":1}\n";
            buf[..line.len()].copy_from_slice(line);
            Ok(line.len())
        }
    }
    let reader = || std::io::BufReader::with_capacity(64, Failing(1));
    let theirs = arrow_json::reader::infer_json_schema(reader(), None).unwrap_err();
    let ours = jitson_arrow::infer_schema(reader(), None).unwrap_err();
    assert!(matches!(theirs, arrow_schema::ArrowError::JsonError(_)));
    assert_eq!(ours.to_string(), theirs.to_string());
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
