//! Target 3: `jitson::RawValue` against serde_json's `RawValue` (`raw_value`
//! feature): the same documents accepted, with the same captured text, whole,
//! as a struct field and as an array element. jitson's backends must agree
//! exactly among themselves (tests/common/mod.rs).
#![no_main]

use jitson::{Decode, RawValue};
use jitson_fuzz::common::{self, oracle};
use libfuzzer_sys::fuzz_target;
use serde::Deserialize;

#[derive(Decode, Debug, PartialEq)]
struct Field {
    a: RawValue,
    b: u8,
}

#[derive(Deserialize, Debug)]
struct SerdeField {
    a: Box<serde_json::value::RawValue>,
    b: u8,
}

/// Compares acceptance, and on success the captured texts as `texts` does
/// (tests/common/oracle.rs); jitson's backends are compared by `common::decode`.
fn compare<T, U>(doc: &[u8], texts: impl Fn(&T, &U) -> bool)
where
    T: Decode + PartialEq + std::fmt::Debug,
    U: for<'de> Deserialize<'de> + std::fmt::Debug,
{
    let _ = oracle::compare(
        doc,
        common::decode::<T>(doc),
        serde_json::from_slice::<U>(doc),
        texts,
    );
}

fuzz_target!(|data: &[u8]| {
    compare::<RawValue, Box<serde_json::value::RawValue>>(data, |a, b| a.get() == b.get());
    let field = [&b"{\"a\": "[..], data, &b", \"b\": 1}"[..]].concat();
    compare::<Field, SerdeField>(&field, |a, b| a.a.get() == b.a.get() && a.b == b.b);
    let element = [&b"["[..], data, &b" ]"[..]].concat();
    compare::<Vec<RawValue>, Vec<Box<serde_json::value::RawValue>>>(&element, |a, b| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.get() == y.get())
    });
});
