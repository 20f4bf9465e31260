//! canada.json decoded by serde_json built with its default features (no
//! `float_roundtrip`: its fast float parser, which is not always correctly
//! rounded), into the same shape as jitson's canada model
//! (`examples/models/canada.rs`), in a loop; prints what
//! `cargo run -p jitson-benches --example profile` prints, for
//! `scripts/serde_json_default.sh`.
//!
//! Run: `cargo run --release -- PATH_TO_CANADA_JSON [SECONDS]`

use std::time::{Duration, Instant};

use serde::Deserialize;

/// The whole file; the tags are checked by the unit enums, as in jitson's model.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // read only by `black_box`
struct Canada {
    #[serde(rename = "type")]
    kind: FeatureCollectionType,
    features: Vec<Feature>,
}

#[derive(Deserialize)]
enum FeatureCollectionType {
    FeatureCollection,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Feature {
    #[serde(rename = "type")]
    kind: FeatureType,
    properties: Properties,
    geometry: Geometry,
}

#[derive(Deserialize)]
enum FeatureType {
    Feature,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Properties {
    name: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Geometry {
    #[serde(rename = "type")]
    kind: GeometryType,
    coordinates: Vec<Vec<[f64; 2]>>,
}

#[derive(Deserialize)]
enum GeometryType {
    Polygon,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("the path of canada.json");
    let seconds: f64 = args.next().map_or(3.0, |s| s.parse().expect("SECONDS"));
    let doc = std::fs::read(&path).expect("reads canada.json");
    let end = Instant::now() + Duration::from_secs_f64(seconds);
    let start = Instant::now();
    let mut decodes = 0u64;
    while Instant::now() < end {
        let value: Canada = serde_json::from_slice(&doc).expect("decodes");
        std::hint::black_box(value);
        decodes += 1;
    }
    let elapsed = start.elapsed().as_secs_f64();
    let ns = elapsed * 1e9 / decodes as f64;
    let mbs = (doc.len() as f64 * decodes as f64) / elapsed / 1e6;
    println!("{decodes} decodes, {ns:.0} ns/op, {mbs:.0} MB/s");
}
