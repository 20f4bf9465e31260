//! Typed models of the three classic JSON benchmark files, for the examples and
//! benchmarks that compare jitson with serde_json.
//!
//! - [`twitter::Twitter`] — `twitter.json`, Twitter search API results;
//! - [`citm::CitmCatalog`] — `citm_catalog.json`, a concert-hall ticketing catalogue;
//! - [`canada::Canada`] — `canada.json`, a GeoJSON outline of Canada.
//!
//! The files come from serde-rs/json-benchmark (`data/`), byte-identical to
//! nativejson-benchmark's `data/`; commits, licences and checksums are in
//! `../shared/corpus/SOURCES.md`. They are not part of this repository: see
//! [`corpus_dir`].
//!
//! Each model covers every field that occurs in its file, and every struct is
//! `#[serde(deny_unknown_fields)]` (read by jitson as well), so a successful decode
//! shows that nothing in the file was skipped. Fields that are sometimes `null` or
//! absent are `Option`s. Where the data cannot show a field's type (always `null`,
//! always empty) the type is a plausible guess, and the field's doc says so.
//!
//! Include with `#[path = "models/mod.rs"] mod models;`.

#![allow(dead_code)]

pub mod canada;
pub mod citm;
pub mod twitter;

use std::path::PathBuf;

/// The directory holding `twitter.json`, `citm_catalog.json` and `canada.json`:
/// `$JITSON_CORPUS/bench` if `JITSON_CORPUS` is set, otherwise
/// `<CARGO_MANIFEST_DIR>/../shared/corpus/bench`; `None` if that directory does not
/// exist.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("JITSON_CORPUS") {
        Some(root) if !root.is_empty() => PathBuf::from(root).join("bench"),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/bench"),
    };
    dir.is_dir().then_some(dir)
}
