//! The serde_json oracle: decodes a document with jitson (every backend, both entry
//! points, through [`super::decode`]) and with serde_json (`float_roundtrip`) on a
//! type deriving both, and insists they agree, except for the differences listed in
//! docs/semantics.md, each recognised here by its error code.
//!
//! Used by tests/differential.rs and by the fuzz targets in fuzz/ (which include
//! this directory with `#[path]`), so the tolerated differences are written once.

use std::fmt::Debug;

use jitson::__private::{ErrorCode, Found};
use jitson::{Category, Decode, Error, ErrorKind};
use serde::de::DeserializeOwned;

/// Decodes `doc` with jitson (all backends) and serde_json and asserts they agree:
/// the same value, or both failing with the same error category. Returns jitson's
/// value or error category.
///
/// # Panics
/// On any disagreement, with both results and the document in the message.
pub fn agree<T: Decode + DeserializeOwned + PartialEq + Debug>(doc: &[u8]) -> Result<T, Category> {
    let ours = super::decode::<T>(doc);
    let theirs = serde_json::from_slice::<T>(doc);
    compare(doc, ours, theirs, |a, b| a == b)
}

/// Asserts that jitson's result `ours` and serde_json's `theirs` for `doc` agree:
/// both succeed with values `same` accepts, or both fail in the same category, or
/// jitson's error is one of the documented differences ([`tolerated`]). Returns
/// jitson's value or error category. For types that differ between the two
/// (`jitson::RawValue` and serde_json's `RawValue`), `same` compares them.
///
/// # Panics
/// On any disagreement, with both results and the document in the message.
pub fn compare<A: Debug, B: Debug>(
    doc: &[u8],
    ours: Result<A, Error>,
    theirs: Result<B, serde_json::Error>,
    same: impl Fn(&A, &B) -> bool,
) -> Result<A, Category> {
    let text = || String::from_utf8_lossy(doc).into_owned();
    match (ours, theirs) {
        (Ok(a), Ok(b)) => {
            assert!(
                same(&a, &b),
                "values differ for {:?}: {a:?} vs {b:?}",
                text()
            );
            Ok(a)
        }
        (Err(a), theirs) if tolerated(&a, theirs.as_ref().err()) => Err(a.classify()),
        (Err(a), Err(b)) => {
            assert_eq!(
                a.classify(),
                category(&b),
                "error categories differ for {:?}:\n jitson: {a}\n serde_json: {b}",
                text()
            );
            Err(a.classify())
        }
        (Ok(a), Err(b)) => panic!("jitson accepted {:?} as {a:?}; serde_json: {b}", text()),
        (Err(a), Ok(b)) => panic!("jitson rejected {:?} ({a}); serde_json gave {b:?}", text()),
    }
}

/// serde_json's category in jitson's terms.
pub fn category(e: &serde_json::Error) -> Category {
    match e.classify() {
        serde_json::error::Category::Syntax => Category::Syntax,
        serde_json::error::Category::Eof => Category::Eof,
        serde_json::error::Category::Data => Category::Data,
        serde_json::error::Category::Io => unreachable!("no I/O when reading a slice"),
    }
}

/// Whether jitson's error `ours` is one of the documented differences from
/// serde_json (docs/semantics.md), given serde_json's error (`None`: it succeeded).
pub fn tolerated(ours: &Error, theirs: Option<&serde_json::Error>) -> bool {
    // jitson validates skipped strings too, so invalid UTF-8 or a lone surrogate in
    // an unknown field's value is an error, where serde_json skips it (and may fail
    // later, or not).
    validates_skipped_text(ours)
        || ends_inside_skipped_number(ours, theirs)
        // serde_json also reads a struct (or struct variant, or tagged enum) from
        // an array.
        || is_struct_from_array(ours)
}

/// Difference 4: input ending inside a skipped number is the end of input for
/// jitson and `invalid number` for serde_json (which raises nothing else there).
pub fn ends_inside_skipped_number(ours: &Error, theirs: Option<&serde_json::Error>) -> bool {
    *ours.code() == ErrorCode::EofWhileParsingNumber
        && theirs.is_some_and(|b| {
            category(b) == Category::Syntax && b.to_string().starts_with("invalid number at ")
        })
}

/// Whether `e` is one serde_json does not raise for skipped strings.
pub fn validates_skipped_text(e: &Error) -> bool {
    e.kind() == ErrorKind::InvalidUtf8
        || matches!(
            e.code(),
            ErrorCode::LoneSurrogate | ErrorCode::UnexpectedEndOfHexEscape
        )
}

/// Whether `e` rejects an array given for a struct, a struct variant, or an
/// internally or adjacently tagged enum (whose layouts expect "struct ...",
/// "struct variant ...", "internally tagged enum ..." and "adjacently tagged
/// enum ...").
pub fn is_struct_from_array(e: &Error) -> bool {
    matches!(e.code(), ErrorCode::InvalidType { found: Found::Array, expected, .. }
        if expected.starts_with("struct ") || expected.contains("tagged enum "))
}

/// As [`agree`], and when both refuse, serde_json's reason (its message
/// without the position) is inside jitson's: the tests of other crates'
/// types (`tests/foreign_*.rs`), whose messages are the crates' own.
///
/// # Panics
/// On any disagreement.
#[track_caller]
pub fn agree_with_reason<T: Decode + DeserializeOwned + PartialEq + Debug>(doc: &str) {
    let ours = super::decode::<T>(doc.as_bytes());
    let theirs = serde_json::from_str::<T>(doc);
    if let (Err(a), Err(b)) = (&ours, &theirs) {
        let reason = b.to_string();
        let reason = reason.split(" at line").next().unwrap_or(&reason);
        assert!(
            a.to_string().contains(reason),
            "{doc}: jitson says {a}, serde_json {b}"
        );
    }
    let _ = compare(doc.as_bytes(), ours, theirs, |a, b| a == b);
}

/// `doc` (compact JSON text) with the value of its member `key` replaced by
/// the text `json`, as written: `-0` or `1e400` reach both decoders as they
/// are, which a `serde_json::Value` would not keep. The value replaced must
/// hold no `,` or `}`.
pub fn replace_member(doc: &str, key: &str, json: &str) -> String {
    let mut doc = doc.to_owned();
    let key = format!("\"{key}\":");
    let at = doc.find(&key).expect("the member is in the document") + key.len();
    let end = at + doc[at..].find([',', '}']).expect("a value ends");
    doc.replace_range(at..end, json);
    doc
}
