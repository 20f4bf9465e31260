//! Target 1: arbitrary bytes decoded into a fixed set of nested types (fuzz/src/
//! fixed.rs, the benchmark models, the seed types and some std types). For each
//! type, every backend of jitson (JIT, interpreter, Auto; `&[u8]` and `&str`) must
//! give the same value or the same error (kind, offset, line, column, path), and
//! serde_json must give the same value or fail in the same category, apart from
//! the documented differences (tests/common/oracle.rs). serde_json reports
//! positions after the offending token where jitson reports its start, so offsets
//! are compared between jitson's backends only.
#![no_main]

use std::collections::{BTreeMap, HashMap};

use jitson_fuzz::common::oracle::agree;
use jitson_fuzz::{fixed, models, seed};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = agree::<fixed::Everything>(data);
    let _ = agree::<Vec<fixed::Item>>(data);
    let _ = agree::<fixed::Tree>(data);
    let _ = agree::<fixed::Keys>(data);
    let _ = agree::<fixed::Representations>(data);
    let _ = agree::<fixed::Internal>(data);
    let _ = agree::<models::twitter::Twitter>(data);
    let _ = agree::<models::citm::CitmCatalog>(data);
    let _ = agree::<models::canada::Canada>(data);
    let _ = agree::<seed::User>(data);
    let _ = agree::<seed::Order>(data);
    let _ = agree::<seed::Account>(data);
    let _ = agree::<Vec<Option<f64>>>(data);
    let _ = agree::<Vec<f32>>(data);
    let _ = agree::<HashMap<String, Vec<i64>>>(data);
    let _ = agree::<BTreeMap<String, [u16; 2]>>(data);
});
