//! `canada.json`: the outline of Canada as a GeoJSON `FeatureCollection` holding one
//! `Polygon` feature (480 rings, 55,563 points, 111,126 numbers).
//!
//! Almost all of the file is coordinates. 46 of them are written without a fraction
//! (e.g. `-55`), the rest with one; all decode as `f64`.

/// The whole file.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct Canada {
    #[serde(rename = "type")]
    pub kind: FeatureCollectionType,
    pub features: Vec<Feature>,
}

/// The value of the top-level `"type"`.
#[derive(
    jitson::Decode,
    jitson::Encode,
    serde::Deserialize,
    serde::Serialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
)]
pub enum FeatureCollectionType {
    FeatureCollection,
}

/// One GeoJSON feature.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct Feature {
    #[serde(rename = "type")]
    pub kind: FeatureType,
    pub properties: Properties,
    pub geometry: Geometry,
}

/// The value of a feature's `"type"`.
#[derive(
    jitson::Decode,
    jitson::Encode,
    serde::Deserialize,
    serde::Serialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
)]
pub enum FeatureType {
    Feature,
}

/// A feature's `"properties"`.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct Properties {
    pub name: String,
}

/// A polygon: rings of `[longitude, latitude]` points.
#[derive(
    jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq,
)]
#[serde(deny_unknown_fields)]
pub struct Geometry {
    #[serde(rename = "type")]
    pub kind: GeometryType,
    pub coordinates: Vec<Vec<[f64; 2]>>,
}

/// The value of a geometry's `"type"`; only `Polygon` occurs in the file.
#[derive(
    jitson::Decode,
    jitson::Encode,
    serde::Deserialize,
    serde::Serialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
)]
pub enum GeometryType {
    Polygon,
}
