//! `with_validate_skipped(false)` through both backends. In a file of its
//! own: policies.rs measures its process's resident memory, which a test
//! running beside it would disturb.

mod common;

use arrow_array::RecordBatch;
use jitson_arrow::ReaderBuilder;

use common::{BACKENDS, decode_all, log_schema, record_error};

/// `with_validate_skipped(false)`: members no column reads are matched by
/// brackets. On valid input nothing changes (generated records with unknown
/// members of every shape, at the top level and in a nested struct, as
/// arrow-json reads them); a malformed member no column reads is accepted
/// (and refused by default); a member cut short or closed by the wrong
/// bracket still fails; strict mode still refuses unknown keys.
#[test]
fn unvalidated_skipping_changes_only_what_is_checked() {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let members = [
        r#""a": {"b": [1, {"c": "}]\"{"}], "d": null}"#,
        r#""e": [[], {}, [[["\\"]]], "x\u00e9\n"]"#,
        r#""f": "plain \"quoted\" [text] {here}""#,
        r#""g": -12.5e-3"#,
        r#""h": true"#,
        r#""i": {"long": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}"#,
    ];
    let mut input = String::new();
    for id in 0..300 {
        let extra = |next: &mut dyn FnMut(u64) -> u64| {
            (0..next(4))
                .map(|_| format!("{}, ", members[next(members.len() as u64) as usize]))
                .collect::<String>()
        };
        let top = extra(&mut next);
        let nested = extra(&mut next);
        input.push_str(&format!(
            "{{{top}\"id\": {id}, \"req\": {{{nested}\"method\": \"GET\", \"status\": {id}}}, \"tags\": [\"t\"]}}\n"
        ));
    }
    let reference = arrow_json::ReaderBuilder::new(log_schema())
        .build(input.as_bytes())
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let malformed = br#"{"id": 1, "x": {"a": tru, "b": [1 2]}, "s": "\q", "req": {"method": "G", "y": [tru, {"q": 1 2}]}}"#;
    for backend in BACKENDS {
        let b = || ReaderBuilder::new(log_schema()).with_backend(backend);
        let fast = || b().with_validate_skipped(false);
        let got = decode_all(fast(), input.as_bytes()).unwrap();
        assert_eq!(concat(&got), concat(&reference), "{backend:?}");
        assert_eq!(decode_all(b(), input.as_bytes()).unwrap(), got);

        let e = record_error(decode_all(b(), malformed).unwrap_err());
        assert_eq!(e.path, "$.x", "{backend:?}");
        assert!(e.message.starts_with("expected ident"), "{}", e.message);
        let rows = decode_all(fast(), malformed).unwrap();
        assert_eq!(rows[0].num_rows(), 1, "{backend:?}");
        // Members named by the record keys (matched by speculation, not
        // looked up) are skipped the same way.
        let keys = ["id", "x", "s", "req", "tags"];
        let rows = decode_all(fast().with_record_keys(keys), malformed).unwrap();
        assert_eq!(rows[0].num_rows(), 1, "{backend:?}");
        let e = record_error(decode_all(b().with_record_keys(keys), malformed).unwrap_err());
        assert_eq!(e.path, "$.x", "{backend:?}");

        // Brackets of either kind count alike: `{"a": [1}}` pairs `[` with
        // the first `}`, so the member ends at the second and the record is
        // cut short.
        for (bad, path) in [
            (&br#"{"id": 1, "x": [1, {"a": 2]}}"#[..], "$.x"),
            (br#"{"id": 1, "x": {"a": [1}}"#, "$"),
            (br#"{"id": 1, "x": {"a": "unclosed}}"#, "$.x"),
            (br#"{"id": 1, "x": [1, 2"#, "$.x"),
            (br#"{"id": 1, "x": "unclosed"#, "$.x"),
        ] {
            let e = record_error(decode_all(fast(), bad).unwrap_err());
            assert_eq!(e.path, path, "{backend:?} {}", String::from_utf8_lossy(bad));
        }
        let e = record_error(
            decode_all(fast().with_strict_mode(true), br#"{"id": 1, "x": {}}"#).unwrap_err(),
        );
        assert!(e.message.starts_with("unknown field `x`"), "{}", e.message);
    }
}

/// The rows of `batches` as one batch.
fn concat(batches: &[RecordBatch]) -> RecordBatch {
    arrow_select::concat::concat_batches(&batches[0].schema(), batches).unwrap()
}
