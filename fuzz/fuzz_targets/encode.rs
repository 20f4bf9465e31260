//! Target 5: encoding. Arbitrary bytes that serde_json decodes into one of the
//! typed models (the benchmark models, the seed types, some std types) are
//! encoded by every jitson backend, compact and pretty, and must give exactly
//! serde_json's bytes; a value jitson refuses to encode must be one serde_json
//! refuses too, with the same message.
#![no_main]

use std::collections::{BTreeMap, HashMap};

use jitson::{Backend, Encode, Encoder};
use jitson_fuzz::{models, seed};
use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Enums in the representations the JIT lowers, with maps of text keys
/// around and inside them.
#[derive(jitson::Encode, Serialize, Deserialize)]
#[serde(tag = "type")]
enum Tagged {
    Unit,
    Point { x: f64, y: Option<i32> },
    Named(Named),
    Boxed(Box<Named>),
    Inner(Untagged),
    Entries(BTreeMap<String, u8>),
}

#[derive(jitson::Encode, Serialize, Deserialize)]
struct Named {
    name: String,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    tags: Vec<String>,
}

#[derive(jitson::Encode, Serialize, Deserialize)]
#[serde(untagged)]
enum Untagged {
    Number(u64),
    Text(String),
    Fields { a: Vec<Untagged> },
}

fn check<T: Encode + Serialize + DeserializeOwned>(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<T>(data) else {
        return;
    };
    for pretty in [false, true] {
        let expected = if pretty {
            serde_json::to_vec_pretty(&value)
        } else {
            serde_json::to_vec(&value)
        };
        for backend in [Backend::Interpreter, Backend::Jit, Backend::Auto] {
            if backend == Backend::Jit && !Backend::Jit.is_available() {
                continue;
            }
            let got = Encoder::<T>::with_backend(backend)
                .pretty(pretty)
                .encode(&value);
            match (&got, &expected) {
                (Ok(a), Ok(b)) => assert_eq!(
                    String::from_utf8_lossy(a),
                    String::from_utf8_lossy(b),
                    "{backend:?}, pretty {pretty}"
                ),
                (Err(a), Err(b)) => {
                    assert_eq!(a.to_string().split(" at $").next(), Some(&*b.to_string()))
                }
                _ => {
                    panic!("{backend:?}, pretty {pretty}: jitson {got:?}, serde_json {expected:?}")
                }
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check::<models::twitter::Twitter>(data);
    check::<models::citm::CitmCatalog>(data);
    check::<models::canada::Canada>(data);
    check::<seed::User>(data);
    check::<seed::Order>(data);
    check::<seed::Account>(data);
    check::<Vec<Option<f64>>>(data);
    check::<Vec<f32>>(data);
    check::<HashMap<String, Vec<i64>>>(data);
    check::<BTreeMap<String, [u16; 2]>>(data);
    check::<Vec<Tagged>>(data);
    check::<BTreeMap<String, BTreeMap<String, Tagged>>>(data);
    check::<Vec<Untagged>>(data);
    check::<serde_json::Value>(data);
    check::<String>(data);
});
