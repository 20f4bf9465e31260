//! JSONTestSuite (`test_parsing/`): every `y_` document decodes into `RawValue`,
//! every `n_` document is rejected, and the `i_` outcomes match the table recorded
//! in `docs/conformance.md` (so the documentation cannot drift from the code).

mod common;

use std::collections::BTreeMap;

use jitson::{IgnoredAny, RawValue};

fn cases() -> Option<Vec<(String, Vec<u8>)>> {
    let dir = common::corpus_dir("jsontestsuite/test_parsing")?;
    let mut cases: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .expect("read test_parsing")
        .map(|e| {
            let path = e.expect("dir entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).expect("read case"))
        })
        .filter(|(name, _)| name.ends_with(".json"))
        .collect();
    cases.sort();
    Some(cases)
}

/// Accepted by both targets, through every backend; panics if the two targets
/// (RawValue capture and IgnoredAny skipping) disagree.
fn accepted(name: &str, bytes: &[u8]) -> bool {
    let raw = common::decode::<RawValue>(bytes);
    let ignored = common::decode::<IgnoredAny>(bytes);
    assert_eq!(
        raw.is_ok(),
        ignored.is_ok(),
        "{name}: RawValue {raw:?} vs IgnoredAny {ignored:?}"
    );
    if let Ok(raw) = &raw {
        // The capture is the value's exact text without surrounding whitespace.
        let text = std::str::from_utf8(bytes).unwrap();
        assert_eq!(
            raw.get(),
            text.trim_matches([' ', '\t', '\n', '\r']),
            "{name}"
        );
    }
    raw.is_ok()
}

#[test]
fn y_files_are_accepted_and_n_files_rejected() {
    let Some(cases) = cases() else { return };
    let (mut y, mut n) = (0, 0);
    let mut failures = Vec::new();
    for (name, bytes) in &cases {
        if name.starts_with("y_") {
            y += 1;
            if !accepted(name, bytes) {
                failures.push(format!(
                    "{name}: rejected, error {:?}",
                    common::decode::<RawValue>(bytes).unwrap_err()
                ));
            }
        } else if name.starts_with("n_") {
            n += 1;
            if accepted(name, bytes) {
                failures.push(format!("{name}: accepted"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        (y, n),
        (95, 188),
        "the suite should hold 95 y_ and 188 n_ files"
    );
}

#[test]
fn i_outcomes_match_docs() {
    let Some(cases) = cases() else { return };
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/conformance.md"))
        .unwrap();
    let recorded: BTreeMap<String, String> = doc
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells.len() >= 4 && cells[1].starts_with("`i_"))
                .then(|| (cells[1].trim_matches('`').to_owned(), cells[2].to_owned()))
        })
        .collect();
    let mut actual = BTreeMap::new();
    for (name, bytes) in cases.iter().filter(|(n, _)| n.starts_with("i_")) {
        let outcome = if accepted(name, bytes) {
            "accepted"
        } else {
            "rejected"
        };
        actual.insert(name.clone(), outcome.to_owned());
    }
    if recorded != actual {
        let table: String = actual
            .iter()
            .map(|(k, v)| format!("| `{k}` | {v} |  |\n"))
            .collect();
        panic!("docs/conformance.md is out of date; the outcomes are:\n{table}");
    }
}
