//! TEMPORARY: checks the benchmark models decode identically with jitson and serde_json.
#[path = "models/mod.rs"]
mod models;

use models::{canada::Canada, citm::CitmCatalog, twitter::Twitter};

fn check<T>(name: &str) -> bool
where
    T: jitson::Decode + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let dir = models::corpus_dir().expect("corpus dir");
    let bytes = std::fs::read(dir.join(name)).unwrap();
    let reference: T = serde_json::from_slice(&bytes).expect("serde_json");
    match jitson::from_slice::<T>(&bytes) {
        Ok(v) => {
            assert_eq!(v, reference, "{name}: jitson and serde_json differ");
            println!("{name}: OK (equal to serde_json)");
            true
        }
        Err(e) => {
            println!("{name}: jitson error: {e} (kind {:?}, path {})", e.kind(), e.path());
            false
        }
    }
}

fn main() {
    let a = check::<Twitter>("twitter.json");
    let b = check::<CitmCatalog>("citm_catalog.json");
    let c = check::<Canada>("canada.json");
    assert!(a && b && c);
}
