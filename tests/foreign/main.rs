//! Other crates' types read and written natively (issue 38; features named
//! after the crates, all switched on for the tests by the dev-dependencies),
//! each module held to its crate's serde impl through serde_json on every
//! backend. One test binary for all of them: each binary links the JIT, and
//! CI builds every test binary twice.

#[path = "../common/mod.rs"]
mod common;

use std::fmt::Debug;

use jitson::{Encode, Encoder};
use serde::Serialize;

/// Asserts every backend writes `value` as serde_json does, compact and pretty.
#[track_caller]
pub(crate) fn encodes_as_serde_json<T: Encode + Serialize + Debug>(value: &T) {
    let compact = serde_json::to_string(value).unwrap();
    let pretty = serde_json::to_string_pretty(value).unwrap();
    for backend in common::backends() {
        let encoder = Encoder::<T>::with_backend(backend);
        let got = String::from_utf8(encoder.encode(value).unwrap()).unwrap();
        assert_eq!(got, compact, "{backend:?}: {value:?}");
        let got = String::from_utf8(encoder.pretty(true).encode(value).unwrap()).unwrap();
        assert_eq!(got, pretty, "{backend:?} pretty: {value:?}");
    }
}

mod chrono;
mod collections;
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
