//! cargo_metadata: the models of cargo's and libtest's JSON output. Its
//! package ships no fixture files (its tests hold their JSON in Rust
//! strings), so `prepare generate` makes them on this machine from the
//! commands the crate models (see `generate` in `prepare/src/main.rs`); their
//! paths start with `generated/` and are read from `target/work/generated`.
//! `cargo metadata`'s output is read as `Metadata`, as the crate's
//! `MetadataCommand::exec` reads it; a stream of messages (one JSON document
//! a line) as the crate's `Message::parse_stream` and its libtest tests read
//! each line, here all of a file's lines as one JSON array (marked).

use crate::Case;

const K: &str = "cargo_metadata";

const METADATA: &[&str] = &[
    "generated/cargo_metadata/metadata-jitson.json",
    "generated/cargo_metadata/metadata-jitson-no-deps.json",
    "generated/cargo_metadata/metadata-harness.json",
];

const MESSAGES: &[&str] = &[
    "generated/cargo_metadata/messages-check-errors.jsonl",
    "generated/cargo_metadata/messages-check-errors-ansi.jsonl",
    "generated/cargo_metadata/messages-test-build.jsonl",
];

const LIBTEST: &[&str] = &[
    "generated/cargo_metadata/libtest.jsonl",
    "generated/cargo_metadata/libtest-include-ignored.jsonl",
];

/// The lines of a JSON Lines file as one JSON array.
fn lines_to_array(bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![b'['];
    for line in bytes.split(|&b| b == b'\n').filter(|l| !l.trim_ascii().is_empty()) {
        if out.len() > 1 {
            out.push(b',');
        }
        out.extend_from_slice(line);
    }
    out.push(b']');
    out
}

const LINES: &str = "JSON Lines, as one array of its lines";

pub fn cases() -> Vec<Case> {
    let mut all = Vec::new();
    for &fixture in METADATA {
        all.push(crate::case!(K, fixture, cargo_metadata::Metadata));
    }
    for &fixture in MESSAGES {
        all.push(Case {
            convert: Some(lines_to_array),
            ..crate::case!(K, fixture, Vec<cargo_metadata::Message>, LINES)
        });
    }
    for &fixture in LIBTEST {
        all.push(Case {
            convert: Some(lines_to_array),
            ..crate::case!(K, fixture, Vec<cargo_metadata::libtest::TestMessage>, LINES)
        });
    }
    all
}
