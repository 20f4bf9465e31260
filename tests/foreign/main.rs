//! Other crates' types read and written natively (issue 38; features named
//! after the crates, all switched on for the tests by the dev-dependencies),
//! each module held to its crate's serde impl through serde_json on every
//! backend. One test binary for all of them: each binary links the JIT, and
//! CI builds every test binary twice.

#[path = "../common/mod.rs"]
mod common;

pub(crate) use common::encodes_as_serde_json;

use serde::{Deserialize, Serialize};
use std::fmt::Debug;

/// One field of `T`, for values tried alone.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
pub(crate) struct One<T> {
    pub(crate) t: T,
}

/// Asserts that jitson's refusal of `what` carries serde_json's reason: its
/// message without the position (" at line …") that ends it.
#[track_caller]
pub(crate) fn assert_same_reason(
    what: &dyn std::fmt::Display,
    ours: &jitson::Error,
    theirs: &serde_json::Error,
) {
    let text = theirs.to_string();
    let reason = &text[..text.rfind(" at line").unwrap_or(text.len())];
    assert!(
        ours.to_string().contains(reason),
        "{what}: jitson says {ours}, serde_json {theirs}"
    );
}

/// Asserts the JSON value `json` in a [`One<T>`] is read by every backend as
/// serde_json reads it, and refused alike, with serde's reason in jitson's
/// message; when it is read, asserts it is written back as serde_json writes
/// it.
#[track_caller]
pub(crate) fn reads_and_writes_as_serde_json<T>(json: &str)
where
    T: jitson::Decode + jitson::Encode + for<'de> Deserialize<'de> + Serialize + PartialEq + Debug,
{
    let doc = format!(r#"{{"t":{json}}}"#);
    let ours = common::decode::<One<T>>(doc.as_bytes());
    let theirs = serde_json::from_str::<One<T>>(&doc);
    if let (Err(a), Err(b)) = (&ours, &theirs) {
        assert_same_reason(&doc, a, b);
    }
    if let Ok(value) = common::oracle::compare(doc.as_bytes(), ours, theirs, |a, b| a == b) {
        encodes_as_serde_json(&value);
    }
}

mod camino;
mod chrono;
mod collections;
mod semver;
mod url;
mod uuid;
// `with` fields need jitson's `serde` feature (the fallback route calls the
// modules' functions through serde).
#[cfg(feature = "serde")]
mod http;
#[cfg(feature = "serde")]
mod rust_decimal;
#[cfg(feature = "serde")]
mod time;
