//! Target 2: generated types (fuzz/build.rs) with arbitrary documents, mostly
//! serde_json's serialisation of an arbitrary value, edited. Every backend of
//! jitson must agree exactly with the others and with serde_json on value or
//! error category (tests/common/oracle.rs).
#![no_main]

use arbitrary::Unstructured;
use jitson_fuzz::generated;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(which), Ok(as_vec)) = (u.choose_index(generated::COUNT), u.arbitrary::<bool>()) else {
        return;
    };
    generated::run(which, as_vec, &mut u);
});
