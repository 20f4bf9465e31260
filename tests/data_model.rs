//! serde's data model beyond structs and unit enums: tuples, tuple/newtype/unit
//! structs, `transparent`, container `default`, and enums with data in all four
//! representations. Every model derives both `jitson::Decode` and
//! `serde::Deserialize`, unchanged, and every document goes through every backend
//! and both entry points and is compared with serde_json (`common::oracle`).

mod common;

use std::collections::{BTreeMap, HashMap};

use common::counted::Counted;
use common::oracle::agree;
use jitson::{Decode, ErrorKind};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------
// GeoJSON (RFC 7946): an internally tagged geometry, a tuple-struct position, an
// untagged id and properties.

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Position(f64, f64);

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
#[allow(clippy::enum_variant_names)] // RFC 7946's names
enum Geometry {
    Point { coordinates: Position },
    MultiPoint { coordinates: Vec<Position> },
    LineString { coordinates: Vec<Position> },
    Polygon { coordinates: Vec<Vec<Position>> },
    GeometryCollection { geometries: Vec<Geometry> },
}

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
enum FeatureId {
    Number(u64),
    Text(String),
}

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
enum Property {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
    List(Vec<Property>),
}

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Feature {
    #[serde(default)]
    id: Option<FeatureId>,
    geometry: Option<Geometry>,
    properties: Option<BTreeMap<String, Property>>,
}

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
enum GeoJson {
    Feature(Feature),
    FeatureCollection { features: Vec<Feature> },
}

const GEOJSON: &str = r#"{
  "type": "FeatureCollection",
  "features": [
    {"type": "Feature", "id": 7,
     "geometry": {"type": "Point", "coordinates": [102.0, 0.5]},
     "properties": {"name": "Dinagat", "pop": 1200, "area": 3.5, "tags": ["a", null, true]}},
    {"type": "Feature", "id": "road-1",
     "properties": null,
     "geometry": {"coordinates": [[102.0, 0.0], [103.0, 1.0], [104.0, 0.0]], "type": "LineString"}},
    {"geometry": {"type": "Polygon", "coordinates": [[[100.0, 0.0], [101.0, 0.0], [100.0, 0.0]]]},
     "type": "Feature", "properties": {}},
    {"type": "Feature", "geometry": null, "properties": null},
    {"type": "Feature", "properties": null, "geometry":
      {"geometries": [{"type": "MultiPoint", "coordinates": []}], "type": "GeometryCollection"}}
  ]
}"#;

#[test]
fn geojson_feature_collection_matches_serde_json() {
    let value = agree::<GeoJson>(GEOJSON.as_bytes()).expect("decodes");
    let GeoJson::FeatureCollection { features } = &value else {
        panic!("a feature collection: {value:?}");
    };
    assert_eq!(features.len(), 5);
    assert_eq!(features[0].id, Some(FeatureId::Number(7)));
    assert_eq!(features[1].id, Some(FeatureId::Text("road-1".into())));
    // Round trip through serde_json's serialiser.
    let doc = serde_json::to_vec(&value).unwrap();
    assert_eq!(agree::<GeoJson>(&doc).unwrap(), value);
}

// ---------------------------------------------------------------------------
// A service config: every representation, `other`, renames, tuples, newtypes,
// unit structs, `transparent`, container `default`.

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "snake_case", rename_all_fields = "camelCase")]
enum Storage {
    Memory,
    LocalDisk {
        root_dir: String,
        #[serde(default)]
        max_bytes: u64,
    },
    S3Bucket(String),
    Weighted(u32, String),
    #[serde(rename = "tmp", alias = "temp")]
    Temp {},
}

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind", content = "spec")]
enum Check {
    Http {
        url: String,
        #[serde(default)]
        status: u16,
    },
    Tcp(u16),
    Pair(u8, u8),
    Noop,
}

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "event", rename_all = "lowercase")]
enum Event {
    Start {
        at: u64,
    },
    Stop,
    #[serde(rename_all = "UPPERCASE")]
    Tagged {
        name: String,
    },
    #[serde(other)]
    Unknown,
}

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
enum Port {
    Number(u16),
    Named(String),
    Range { from: u16, to: u16 },
    Pair(u16, u16),
}

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(default)]
struct Limits {
    max_conns: u32,
    #[serde(default = "seven")]
    retries: u8,
    label: String,
    /// Skipped fields take the container's default value's, as in serde,
    /// whether or not their type has a `Default` of its own.
    #[serde(skip)]
    origin: String,
    #[serde(skip_deserializing)]
    hits: Hits,
}

/// A type without `Default`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Hits(u32);

fn seven() -> u8 {
    7
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_conns: 100,
            retries: 3,
            label: "default".into(),
            origin: "built in".into(),
            hits: Hits(5),
        }
    }
}

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct UserId(u64);

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(transparent)]
struct Name {
    text: String,
}

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(transparent)]
struct Maybe(Option<u8>);

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Marker;

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Config {
    owner: UserId,
    name: Name,
    storage: Vec<Storage>,
    checks: Vec<Check>,
    events: Vec<Event>,
    ports: Vec<Port>,
    #[serde(default)]
    limits: Limits,
    nothing: (),
    marker: Marker,
    triple: (u8, String, bool),
    maybe: Maybe,
    by_name: HashMap<String, (i32, Option<Port>)>,
    shards: BTreeMap<u32, String>,
    allowed: std::collections::BTreeSet<String>,
    quota: u128,
    port: std::num::NonZeroU16,
    bind: std::net::IpAddr,
    // The escape hatch needs the `serde` feature (on by default).
    #[cfg(feature = "serde")]
    #[serde(with = "seconds")]
    ttl: std::time::Duration,
}

/// A `with` module, as serde users write them: a number of seconds.
#[cfg(feature = "serde")]
mod seconds {
    use serde::{Deserialize, Deserializer};

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<std::time::Duration, D::Error> {
        u64::deserialize(d).map(std::time::Duration::from_secs)
    }

    pub fn serialize<S: serde::Serializer>(
        d: &std::time::Duration,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_secs())
    }
}

const CONFIG: &str = r#"{
  "owner": 42,
  "name": "edge",
  "storage": ["memory", {"local_disk": {"rootDir": "/var"}}, {"s3_bucket": "b"},
              {"weighted": [3, "x"]}, {"temp": {}}, {"tmp": {}}, {"memory": null}],
  "checks": [{"kind": "Http", "spec": {"url": "http://a", "status": 200}},
             {"spec": 8080, "kind": "Tcp"}, {"kind": "Noop"}, {"kind": "Noop", "spec": null},
             {"spec": [1, 2], "extra": [1, {"x": 2}], "kind": "Pair"}],
  "events": [{"event": "start", "at": 5}, {"at": 6, "event": "start"}, {"event": "stop", "at": 1},
             {"NAME": "n", "event": "tagged"}, {"event": "reboot", "why": "x"}],
  "ports": [80, "http", {"from": 1, "to": 2}, [3, 4], {"to": 9, "from": 8}],
  "limits": {"label": "l"},
  "nothing": null,
  "marker": null,
  "triple": [1, "two", true],
  "maybe": 5,
  "by_name": {"a": [1, null], "b": [-2, 7]},
  "shards": {"0": "a", "4294967295": "z"},
  "allowed": ["x", "y", "x"],
  "quota": 340282366920938463463374607431768211455,
  "port": 8443,
  "bind": "::ffff:10.0.0.1",
  "ttl": 30
}"#;

#[test]
fn service_config_matches_serde_json() {
    let value = agree::<Config>(CONFIG.as_bytes()).expect("decodes");
    assert_eq!(value.owner, UserId(42));
    assert_eq!(
        value.limits,
        Limits {
            max_conns: 100,
            retries: 7,
            label: "l".into(),
            origin: "built in".into(),
            hits: Hits(5),
        }
    );
    assert_eq!(value.events[4], Event::Unknown);
    let doc = serde_json::to_vec(&value).unwrap();
    assert_eq!(agree::<Config>(&doc).unwrap(), value);
}

#[test]
fn missing_fields_follow_serde() {
    // `transparent` over an Option is optional; a newtype struct is not.
    #[derive(Decode, Deserialize, Debug, PartialEq)]
    struct A {
        maybe: Maybe,
    }
    assert_eq!(agree::<A>(b"{}").unwrap(), A { maybe: Maybe(None) });
    #[derive(Decode, Deserialize, Debug, PartialEq)]
    struct B {
        id: UserId,
    }
    assert!(agree::<B>(b"{}").is_err());
    // Container default: the whole struct's default supplies absent fields.
    assert_eq!(
        agree::<Limits>(br#"{"max_conns": 1}"#).unwrap(),
        Limits {
            max_conns: 1,
            retries: 7,
            label: "default".into(),
            origin: "built in".into(),
            hits: Hits(5),
        }
    );
}

/// Documents each representation must refuse, with serde_json's category.
#[test]
fn bad_enum_documents_agree_with_serde_json() {
    let storage: &[&str] = &[
        r#""local_disk""#,
        r#"{"local_disk": {"rootDir": 1}}"#,
        r#"{"s3_bucket": "b", "x": 1}"#,
        r#"{"weighted": [3]}"#,
        r#"{"weighted": [3, "x", 4]}"#,
        r#"{"nope": 1}"#,
        r#"{"memory": 1}"#,
        r#"{}"#,
        r#"[]"#,
        r#"{"s3_bucket": "b""#,
    ];
    for doc in storage {
        assert!(agree::<Storage>(doc.as_bytes()).is_err(), "{doc}");
    }
    let checks: &[&str] = &[
        r#"{"spec": 1}"#,
        r#"{"kind": "Tcp"}"#,
        r#"{"kind": "Tcp", "spec": "x"}"#,
        r#"{"kind": "Tcp", "spec": 1, "spec": 2}"#,
        r#"{"kind": "Tcp", "kind": "Tcp", "spec": 2}"#,
        r#"{"kind": 3, "spec": 2}"#,
        r#"{"kind": "Noop", "spec": 1}"#,
        r#"{"spec": {"url": 1}, "kind": "Http"}"#,
    ];
    for doc in checks {
        assert!(agree::<Check>(doc.as_bytes()).is_err(), "{doc}");
    }
    let events: &[&str] = &[
        r#"{"at": 5}"#,
        r#"{"event": "start"}"#,
        r#"{"event": "start", "at": "x"}"#,
        r#"{"event": 1}"#,
        r#""start""#,
        r#"{"event": "start", "at": 1, "event": "start"}"#,
        r#"{"event": "stop", "event": "stop"}"#,
    ];
    for doc in events {
        assert!(agree::<Event>(doc.as_bytes()).is_err(), "{doc}");
    }
    for doc in [
        r#"true"#,
        r#"-1"#,
        r#"{"from": 1}"#,
        r#"[1]"#,
        r#"[1, 2"#,
        r#"{"from": 1, "to": 2"#,
    ] {
        assert!(agree::<Port>(doc.as_bytes()).is_err(), "{doc}");
    }
    for doc in ["[1]", "[1, 2, 3]", "[1, \"x\"]", "{}", "1"] {
        assert!(agree::<Position>(doc.as_bytes()).is_err(), "{doc}");
    }
    for doc in ["1", "{}", "nul"] {
        assert!(agree::<Marker>(doc.as_bytes()).is_err(), "{doc}");
        assert!(agree::<()>(doc.as_bytes()).is_err(), "{doc}");
    }
}

#[test]
fn error_messages_name_the_variant_shapes() {
    let e = common::err::<Position>(b"[1.0]");
    assert_eq!(e.kind(), ErrorKind::InvalidLength);
    assert!(
        e.to_string()
            .contains("invalid length 1, expected tuple struct Position with 2 elements"),
        "{e}"
    );
    let e = common::err::<Storage>(br#""local_disk""#);
    assert!(
        e.to_string()
            .contains("invalid type: unit variant, expected struct variant"),
        "{e}"
    );
    let e = common::err::<Port>(b"true");
    assert!(
        e.to_string()
            .contains("data did not match any variant of untagged enum Port"),
        "{e}"
    );
    let e = common::err::<Event>(br#"{"at": 1}"#);
    assert_eq!(e.kind(), ErrorKind::MissingField);
    let e = common::err::<Storage>(br#"[{"local_disk": {"rootDir": 5}}]"#.as_slice());
    let _ = e;
    let e = common::err::<Vec<Storage>>(br#"[{"local_disk": {"rootDir": 5}}]"#);
    assert_eq!(e.path(), "$[0].local_disk.rootDir", "{e}");
    let e = common::err::<Check>(br#"{"kind": "Tcp", "spec": "x"}"#);
    assert_eq!(e.path(), "$.spec", "{e}");
}

// ---------------------------------------------------------------------------
// Partial output is dropped exactly once when a variant fails halfway.

#[derive(Decode, Debug, PartialEq)]
#[serde(tag = "t")]
enum Internal {
    A { x: Counted, y: Counted, n: u8 },
    B(Holder),
}

#[derive(Decode, Debug, PartialEq)]
struct Holder {
    c: Counted,
    n: u8,
}

#[derive(Decode, Debug, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    A(Counted, Counted, u8),
    B { c: Counted },
}

#[derive(Decode, Debug, PartialEq)]
#[serde(untagged)]
enum Untagged {
    Pair(Counted, u8),
    Struct { c: Counted, n: u8 },
    Text(Counted),
}

#[derive(Decode, Debug, PartialEq)]
enum External {
    A(Counted, Counted, u8),
    B { c: Counted, n: u8 },
}

#[derive(Decode, Debug, PartialEq)]
struct Tup(Counted, Counted, u8);

#[test]
fn failing_variants_drop_what_they_wrote_once() {
    type Fails = fn(&[u8]) -> bool;
    let docs: &[(&str, Fails)] = &[
        (r#"{"t":"A","x":"a","y":"b","n":300}"#, |d| {
            common::decode::<Internal>(d).is_err()
        }),
        (r#"{"x":"a","y":"b","t":"A","n":300}"#, |d| {
            common::decode::<Internal>(d).is_err()
        }),
        (r#"{"t":"A","x":"a","y":"b","n":1,"t":"A"}"#, |d| {
            common::decode::<Internal>(d).is_err()
        }),
        (r#"{"t":"B","c":"a","n":-1}"#, |d| {
            common::decode::<Internal>(d).is_err()
        }),
        (r#"{"t":"A","c":["a","b",300]}"#, |d| {
            common::decode::<Adjacent>(d).is_err()
        }),
        (r#"{"c":["a","b",3],"t":"A","c":1}"#, |d| {
            common::decode::<Adjacent>(d).is_err()
        }),
        (r#"{"t":"B","c":{"c":"x"},"x":]"#, |d| {
            common::decode::<Adjacent>(d).is_err()
        }),
        (r#"{"t":"A","c":["a","b",3],"t":"B"}"#, |d| {
            common::decode::<Adjacent>(d).is_err()
        }),
        (r#"["a", 300]"#, |d| common::decode::<Untagged>(d).is_err()),
        (r#"{"c":"a","n":300}"#, |d| {
            common::decode::<Untagged>(d).is_err()
        }),
        (r#"{"A":["a","b",300]}"#, |d| {
            common::decode::<External>(d).is_err()
        }),
        (r#"{"B":{"c":"a","n":1},"A":1}"#, |d| {
            common::decode::<External>(d).is_err()
        }),
        (r#"["a","b",1,2]"#, |d| common::decode::<Tup>(d).is_err()),
        (r#"["a","b"]"#, |d| common::decode::<Tup>(d).is_err()),
    ];
    for (doc, fails) in docs {
        assert!(fails(doc.as_bytes()), "{doc} should fail");
        assert_eq!(common::counted::live(), 0, "leak or double drop on {doc}");
    }
    // And the successes hold exactly their strings.
    let v = common::decode::<Untagged>(br#"{"c":"a","n":3}"#).unwrap();
    assert!(
        matches!(&v, Untagged::Struct { c, n: 3 } if c.0 == "a"),
        "{v:?}"
    );
    drop(v);
    let v = common::decode::<Adjacent>(br#"{"c":["a","b",3],"t":"A"}"#).unwrap();
    drop(v);
    assert_eq!(common::counted::live(), 0);
}

// ---------------------------------------------------------------------------
// Generated documents: values serialised by serde_json, then mutated.

fn storage() -> impl Strategy<Value = Storage> {
    prop_oneof![
        Just(Storage::Memory),
        ("[a-z/]{0,6}", any::<u64>()).prop_map(|(root_dir, max_bytes)| Storage::LocalDisk {
            root_dir,
            max_bytes
        }),
        "[a-z]{0,4}".prop_map(Storage::S3Bucket),
        (any::<u32>(), "\\PC{0,3}").prop_map(|(w, s)| Storage::Weighted(w, s)),
        Just(Storage::Temp {}),
    ]
}

fn check() -> impl Strategy<Value = Check> {
    prop_oneof![
        ("[a-z:/]{0,8}", any::<u16>()).prop_map(|(url, status)| Check::Http { url, status }),
        any::<u16>().prop_map(Check::Tcp),
        any::<(u8, u8)>().prop_map(|(a, b)| Check::Pair(a, b)),
        Just(Check::Noop),
    ]
}

fn port() -> impl Strategy<Value = Port> {
    prop_oneof![
        any::<u16>().prop_map(Port::Number),
        "[a-z0-9]{0,5}".prop_map(Port::Named),
        any::<(u16, u16)>().prop_map(|(from, to)| Port::Range { from, to }),
        any::<(u16, u16)>().prop_map(|(a, b)| Port::Pair(a, b)),
    ]
}

fn geometry() -> impl Strategy<Value = Geometry> {
    let position = (-180.0..180.0f64, -90.0..90.0f64).prop_map(|(a, b)| Position(a, b));
    let leaf = prop_oneof![
        position
            .clone()
            .prop_map(|coordinates| Geometry::Point { coordinates }),
        prop::collection::vec(position.clone(), 0..3)
            .prop_map(|coordinates| Geometry::LineString { coordinates }),
        prop::collection::vec(prop::collection::vec(position, 0..3), 0..2)
            .prop_map(|coordinates| Geometry::Polygon { coordinates }),
    ];
    leaf.prop_recursive(2, 6, 3, |inner| {
        prop::collection::vec(inner, 0..3)
            .prop_map(|geometries| Geometry::GeometryCollection { geometries })
    })
}

#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Mix {
    storage: Vec<Storage>,
    checks: Vec<Check>,
    ports: Vec<Port>,
    geometry: Geometry,
}

fn mix() -> impl Strategy<Value = Mix> {
    (
        prop::collection::vec(storage(), 0..3),
        prop::collection::vec(check(), 0..3),
        prop::collection::vec(port(), 0..3),
        geometry(),
    )
        .prop_map(|(storage, checks, ports, geometry)| Mix {
            storage,
            checks,
            ports,
            geometry,
        })
}

/// Moves a tag member of every object to the end, so the tag-not-first paths run.
fn tag_last(doc: &serde_json::Value) -> serde_json::Value {
    match doc {
        serde_json::Value::Object(map) => {
            let mut out = serde_json::Map::new();
            let mut tags = Vec::new();
            for (k, v) in map {
                if k == "type" || k == "kind" {
                    tags.push((k.clone(), tag_last(v)));
                } else {
                    out.insert(k.clone(), tag_last(v));
                }
            }
            out.extend(tags);
            serde_json::Value::Object(out)
        }
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(tag_last).collect())
        }
        other => other.clone(),
    }
}

/// 128 cases, or `PROPTEST_CASES` when set (for longer runs).
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(128);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn generated_enums_round_trip(value in mix()) {
        let doc = serde_json::to_vec(&value).unwrap();
        prop_assert_eq!(&agree::<Mix>(&doc).expect("decodes"), &value);
        let last = serde_json::to_vec(&tag_last(&serde_json::to_value(&value).unwrap())).unwrap();
        prop_assert_eq!(&agree::<Mix>(&last).expect("decodes"), &value);
    }

    #[test]
    fn mutated_enum_documents_agree(value in mix(), cut in any::<usize>(), at in any::<usize>(), byte in prop::sample::select(b"{}[],:\"0n1tx ".as_slice())) {
        let mut doc = serde_json::to_vec(&value).unwrap();
        let i = at % doc.len();
        doc[i] = byte;
        let _ = agree::<Mix>(&doc);
        doc.truncate(cut % doc.len());
        let _ = agree::<Mix>(&doc);
    }
}

#[test]
fn the_jit_lowers_tuples_newtypes_and_enums_and_names_what_it_hands_over() {
    if !jitson::Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Config>().expect("compiles");
    let stats = jitson::stats();
    let handed: Vec<&str> = stats
        .interpreted_layouts
        .iter()
        .map(|(ty, _)| ty.as_str())
        .collect();
    // Tuples, tuple structs, newtypes and enums in every representation are
    // compiled; what is handed over is named by its Rust type.
    for lowered in [
        "UserId",
        "Name",
        "Maybe",
        "(u8, alloc::string::String, bool)",
        "data_model::Check",
        "data_model::Event",
        "data_model::Port",
    ] {
        assert!(
            !handed.iter().any(|ty| ty.ends_with(lowered)),
            "{lowered} in {handed:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// `from` and `try_from`.

#[derive(Decode, Deserialize, Debug, Clone, PartialEq)]
struct Celsius {
    degrees: f64,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(from = "Celsius")]
struct Kelvin(f64);

impl From<Celsius> for Kelvin {
    fn from(c: Celsius) -> Self {
        Kelvin(c.degrees + 273.15)
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(try_from = "String")]
struct Semver {
    major: u32,
    minor: u32,
}

impl TryFrom<String> for Semver {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        let (a, b) = s
            .split_once('.')
            .ok_or_else(|| format!("not a version: {s}"))?;
        Ok(Semver {
            major: a.parse().map_err(|_| format!("bad major in {s}"))?,
            minor: b.parse().map_err(|_| format!("bad minor in {s}"))?,
        })
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Reading {
    temp: Kelvin,
    versions: Vec<Semver>,
}

#[test]
fn from_and_try_from_convert_as_serde_does() {
    let r = agree::<Reading>(br#"{"temp": {"degrees": 1.5}, "versions": ["1.2", "10.0"]}"#)
        .expect("decodes");
    assert_eq!(
        r.versions[1],
        Semver {
            major: 10,
            minor: 0
        }
    );
    for doc in [
        r#"{"temp": {"degrees": 1.5}, "versions": ["1.2", "x"]}"#,
        r#"{"temp": {"degrees": "1"}, "versions": []}"#,
        r#"{"temp": {"degrees": 1}, "versions": ["1.2", 3]}"#,
    ] {
        assert!(agree::<Reading>(doc.as_bytes()).is_err(), "{doc}");
    }
    let e = common::err::<Reading>(br#"{"temp": {"degrees": 1}, "versions": ["1.2", "1.x"]}"#);
    assert_eq!(e.kind(), ErrorKind::InvalidValue);
    assert_eq!(e.path(), "$.versions[1]");
    assert!(e.to_string().starts_with("bad minor in 1.x"), "{e}");
}

#[derive(Decode, Debug, PartialEq)]
#[serde(from = "u8")]
struct Boom;

impl From<u8> for Boom {
    fn from(n: u8) -> Self {
        if n == 13 {
            panic!("unlucky");
        }
        Boom
    }
}

#[test]
fn a_panicking_conversion_resumes_in_the_caller_and_leaks_nothing() {
    for backend in common::backends() {
        let decoder = jitson::Decoder::<(Counted, Boom, Counted)>::with_backend(backend);
        assert!(decoder.decode_slice(br#"["a", 1, "b"]"#).is_ok());
        let caught = std::panic::catch_unwind(|| decoder.decode_slice(br#"["a", 13, "b"]"#));
        let payload = caught.expect_err("the panic is resumed");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"unlucky"));
        assert_eq!(common::counted::live(), 0, "{backend:?}");
    }
}

// ---------------------------------------------------------------------------
// `flatten`: an npm package.json with an untagged "string or object" person, a
// flattened struct and a flattened map catching the rest.

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum Person {
    Line(String),
    Full {
        name: String,
        email: Option<String>,
        url: Option<String>,
    },
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Links {
    homepage: Option<String>,
    bugs: Option<Bugs>,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum Bugs {
    Url(String),
    Object { url: String },
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
struct PackageJson {
    name: String,
    version: String,
    author: Option<Person>,
    #[serde(default)]
    contributors: Vec<Person>,
    #[serde(default)]
    dependencies: BTreeMap<String, String>,
    #[serde(flatten)]
    links: Links,
    #[serde(flatten)]
    rest: BTreeMap<String, serde_json_value::Any>,
}

/// Any JSON value, for the flattened rest (jitson's `RawValue` compares by text).
mod serde_json_value {
    #[derive(jitson::Decode, serde::Deserialize, Debug, PartialEq)]
    #[serde(untagged)]
    pub enum Any {
        Null,
        Bool(bool),
        Number(f64),
        Text(String),
        List(Vec<Any>),
        Object(std::collections::BTreeMap<String, Any>),
    }
}

#[test]
fn package_json_with_flatten_matches_serde_json() {
    let doc = br#"{
      "name": "left-pad", "version": "1.3.0",
      "author": "Someone <s@example.org>",
      "contributors": [{"name": "A", "email": "a@example.org"}, "B"],
      "homepage": "https://example.org", "bugs": {"url": "https://example.org/issues"},
      "dependencies": {"x": "^1"},
      "license": "WTFPL", "private": false, "files": ["index.js"], "engines": {"node": ">=6"}
    }"#;
    let v = agree::<PackageJson>(doc).expect("decodes");
    assert_eq!(v.rest.len(), 4);
    assert_eq!(v.links.homepage.as_deref(), Some("https://example.org"));
    for bad in [
        r#"{"name": "x", "version": "1", "homepage": 1}"#,
        r#"{"name": "x", "version": "1", "homepage": "a", "homepage": "b"}"#,
        r#"{"name": "x", "version": "1", "extra": [1,}"#,
        r#"{"name": "x"}"#,
    ] {
        assert!(agree::<PackageJson>(bad.as_bytes()).is_err(), "{bad}");
    }
}

#[derive(Decode, Debug, PartialEq)]
struct Inner {
    a: Counted,
    b: u8,
}

#[derive(Decode, Debug, PartialEq)]
struct Outer {
    x: Counted,
    #[serde(flatten)]
    inner: Inner,
    #[serde(flatten)]
    rest: HashMap<String, Counted>,
}

#[test]
fn failing_flattened_objects_drop_what_they_wrote_once() {
    for doc in [
        r#"{"x": "1", "a": "2", "z": "3", "b": 300}"#,
        r#"{"x": "1", "a": "2", "z": "3"}"#,
        r#"{"z": "3", "a": "2", "x": "1", "y": 5}"#,
        r#"{"z": "3", "a": "2", "x": "1", "b": 1, "a": "4"}"#,
        r#"{"z": "3", "a": "2", "x": "1", "b": 1"#,
    ] {
        assert!(common::decode::<Outer>(doc.as_bytes()).is_err(), "{doc}");
        assert_eq!(common::counted::live(), 0, "{doc}");
    }
    let v = common::decode::<Outer>(br#"{"z": "3", "a": "2", "x": "1", "b": 1}"#).unwrap();
    assert_eq!(v.rest.len(), 1);
    drop(v);
    assert_eq!(common::counted::live(), 0);
}

// ---------------------------------------------------------------------------
// Variant-level `untagged`: the tagged form first, then the untagged variants.

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Setting {
    Off,
    Level(u8),
    #[serde(untagged)]
    Raw(String),
    #[serde(untagged)]
    Many(Vec<u8>),
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "kind")]
enum Shape {
    Circle {
        r: f64,
    },
    #[serde(untagged)]
    Other {
        sides: u8,
    },
}

#[test]
fn untagged_variants_follow_the_tagged_ones() {
    for doc in [
        r#""off""#,
        r#"{"level": 3}"#,
        r#""anything""#,
        r#"[1, 2]"#,
        r#"{"level": 300}"#,
        r#"{"nope": 1}"#,
        r#"5"#,
        r#"[1, 300]"#,
        r#"[1,"#,
    ] {
        let _ = agree::<Setting>(doc.as_bytes());
    }
    assert_eq!(
        agree::<Setting>(br#""anything""#).unwrap(),
        Setting::Raw("anything".into())
    );
    assert_eq!(agree::<Setting>(br#""off""#).unwrap(), Setting::Off);
    for doc in [
        r#"{"kind": "Circle", "r": 1.5}"#,
        r#"{"sides": 3}"#,
        r#"{"kind": "Square", "sides": 4}"#,
        r#"{"kind": "Circle"}"#,
        r#"{"r": 1}"#,
    ] {
        let _ = agree::<Shape>(doc.as_bytes());
    }
    assert_eq!(
        agree::<Shape>(br#"{"sides": 3}"#).unwrap(),
        Shape::Other { sides: 3 }
    );
}

// ---------------------------------------------------------------------------
// What serde checks in the values it buffers (found by a hostile review).

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "type")]
enum Tagged {
    A { x: u32 },
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum Loose {
    St { x: u8 },
    Num(u8),
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct FlatOpts {
    a: u8,
    #[serde(flatten)]
    inner: Opts,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Opts {
    p: Option<u8>,
    q: Option<String>,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adj {
    U,
    N(u32),
}

#[test]
fn buffered_values_are_checked_as_serde_checks_them() {
    // Unknown members of buffered objects: numbers are evaluated.
    for doc in [
        r#"{"y": 1e400, "type": "A", "x": 1}"#,
        r#"{"type": "A", "x": 1, "y": 1e400}"#,
        r#"{"type": "A", "x": 1, "y": [1, {"z": -1e999}]}"#,
    ] {
        assert_eq!(
            agree::<Tagged>(doc.as_bytes()).unwrap_err(),
            jitson::Category::Syntax,
            "{doc}"
        );
    }
    assert!(agree::<FlatOpts>(br#"{"a": 1, "zz": 1e400}"#).is_err());
    for doc in [
        r#"{"x": 1, "zz": 1e400}"#,
        "1e400",
        "[1e400]",
        r#"[1, {"x": 1e400}]"#,
    ] {
        assert!(agree::<Loose>(doc.as_bytes()).is_err(), "{doc}");
    }
    // A flattened map's values are decoded after the whole object by serde: a
    // syntax error later in the object wins over a bad value (found by fuzzing).
    #[derive(Decode, Deserialize, Debug, PartialEq)]
    struct Rest {
        #[serde(flatten)]
        rest: BTreeMap<String, String>,
    }
    assert_eq!(
        agree::<Rest>(b"{\n  \"i\\u0017\":2\"\"\n0.1e1}").unwrap_err(),
        jitson::Category::Syntax
    );
    assert_eq!(
        agree::<FlatOpts>(br#"{"a": 1, "p": "x" "q": 1}"#).unwrap_err(),
        jitson::Category::Syntax
    );
    // Content before the tag is decoded as soon as the tag is read.
    let _ = agree::<Adj>(br#"{"c": "s", "t": "N", "y": [1, 2x]}"#);
    let _ = agree::<Adj>(br#"{"c": 5, "t": "N", "y": [1, 2x]}"#);
}

/// A tuple struct's elements missing at the array's end take their defaults,
/// their own or the container's default value's, as serde fills them; the
/// first without one is an invalid length.
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Position3(
    f64,
    f64,
    #[serde(default)] f64,
    #[serde(default = "nine")] u8,
);

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(default)]
struct Triple(u8, String, #[serde(default = "nine")] u8);

impl Default for Triple {
    fn default() -> Self {
        Triple(1, "two".into(), 3)
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
enum Dot {
    Point(u8, #[serde(default)] u8),
}

fn nine() -> u8 {
    9
}

#[test]
fn tuple_elements_take_their_defaults() {
    for doc in [
        "[1, 2, 3, 4]",
        "[1, 2, 3]",
        "[1, 2]",
        "[1]",
        "[]",
        "[1, 2, 3, 4, 5]",
        "[1, \"x\"]",
    ] {
        let _ = agree::<Position3>(doc.as_bytes());
        let _ = agree::<Triple>(doc.replace("2", "\"2\"").as_bytes());
        let _ = agree::<Dot>(format!(r#"{{"Point": {doc}}}"#).as_bytes());
    }
    assert_eq!(agree::<Triple>(b"[7]").unwrap(), Triple(7, "two".into(), 9));
    assert_eq!(
        agree::<Position3>(b"[1, 2]").unwrap(),
        Position3(1.0, 2.0, 0.0, 9)
    );
}
