//! Other crates' types read and written natively (issue 38; features named
//! after the crates, all switched on for the tests by the dev-dependencies),
//! each module held to its crate's serde impl through serde_json on every
//! backend. One test binary for all of them: each binary links the JIT, and
//! CI builds every test binary twice.

#[path = "../common/mod.rs"]
mod common;

pub(crate) use common::encodes_as_serde_json;

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
