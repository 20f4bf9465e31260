//! rustdoc-types: the model of rustdoc's JSON output, read as `Crate` (as
//! rustdoc's own JSON tests and tools built on the crate read it). Its
//! package ships no fixture files, so `prepare generate` makes them on this
//! machine: rustdoc's JSON for jitson-core (with and without private items)
//! and for jitson, when this toolchain's rustdoc writes the format version
//! the pinned crate reads (see `rustdoc_json` in `prepare/src/main.rs`).

use crate::Case;

const K: &str = "rustdoc-types";

const CRATES: &[&str] = &[
    "generated/rustdoc-types/rustdoc-jitson-core.json",
    "generated/rustdoc-types/rustdoc-jitson-core-private.json",
    "generated/rustdoc-types/rustdoc-jitson.json",
];

pub fn cases() -> Vec<Case> {
    CRATES
        .iter()
        .map(|&fixture| crate::case!(K, fixture, rustdoc_types::Crate))
        .collect()
}
