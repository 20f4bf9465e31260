//! Property test: generated values of a model that covers every encodable
//! kind (strings with any character, every float class, integers at their
//! limits, options, vectors, maps, tuples, enums in the four representations,
//! flatten, skip_serializing_if) are encoded by every encoding backend, compact
//! and pretty, into exactly serde_json's bytes; values without NaN round-trip
//! through the decoder.

use std::collections::BTreeMap;

use jitson::{Backend, Encoder};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(jitson::Encode, jitson::Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Shape {
    Empty,
    Circle(f64),
    Pair(i8, String),
    Rect { w: Option<u32>, flags: Vec<bool> },
}

#[derive(jitson::Encode, jitson::Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind")]
enum Event {
    Click { x: i32, y: i32 },
    Key(Key),
    Idle,
}

#[derive(jitson::Encode, jitson::Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Key {
    code: u16,
    text: String,
}

#[derive(jitson::Encode, jitson::Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Num(u64),
    Text { s: String },
}

#[derive(jitson::Encode, jitson::Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
enum Loose {
    Int(i64),
    Words(Vec<String>),
}

#[derive(jitson::Encode, jitson::Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Extra {
    note: String,
    level: u8,
}

#[derive(jitson::Encode, jitson::Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Record {
    text_value: String,
    wide: f64,
    narrow: f32,
    signed: i64,
    unsigned: u64,
    big: i128,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    maybe: Option<String>,
    list: Vec<Shape>,
    map: BTreeMap<String, i32>,
    keyed: BTreeMap<u32, bool>,
    pair: (u8, char),
    event: Event,
    adjacent: Adjacent,
    loose: Loose,
    #[serde(flatten)]
    extra: Extra,
    nested: Option<Box<Record>>,
}

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>(),
        Just(0.0),
        Just(-0.0),
        Just(1e15),
        Just(1e16),
        Just(1e-5),
        Just(1e-6),
        Just(f64::MIN_POSITIVE),
        Just(5e-324),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        (-1e6..1e6f64),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-z\"\\\\\\n\\t\\u{0}-\\u{1f}\\u{7f}é😀\\u{2028}]{0,40}",
    ]
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Empty),
        float().prop_map(Shape::Circle),
        (any::<i8>(), text()).prop_map(|(a, b)| Shape::Pair(a, b)),
        (
            any::<Option<u32>>(),
            prop::collection::vec(any::<bool>(), 0..4)
        )
            .prop_map(|(w, flags)| Shape::Rect { w, flags }),
    ]
}

fn leaf() -> impl Strategy<Value = Record> {
    (
        (
            text(),
            float(),
            float(),
            any::<i64>(),
            any::<u64>(),
            any::<i128>(),
        ),
        (
            prop::option::of(text()),
            prop::collection::vec(shape(), 0..4),
            prop::collection::btree_map(text(), any::<i32>(), 0..4),
            prop::collection::btree_map(any::<u32>(), any::<bool>(), 0..3),
            (any::<u8>(), any::<char>()),
        ),
        (
            prop_oneof![
                (any::<i32>(), any::<i32>()).prop_map(|(x, y)| Event::Click { x, y }),
                (any::<u16>(), text()).prop_map(|(code, text)| Event::Key(Key { code, text })),
                Just(Event::Idle),
            ],
            prop_oneof![
                any::<u64>().prop_map(Adjacent::Num),
                text().prop_map(|s| Adjacent::Text { s }),
            ],
            prop_oneof![
                any::<i64>().prop_map(Loose::Int),
                prop::collection::vec(text(), 0..3).prop_map(Loose::Words),
            ],
            (text(), any::<u8>()).prop_map(|(note, level)| Extra { note, level }),
        ),
    )
        .prop_map(
            |(
                (text_value, wide, narrow, signed, unsigned, big),
                (maybe, list, map, keyed, pair),
                (event, adjacent, loose, extra),
            )| Record {
                text_value,
                wide,
                narrow: narrow as f32,
                signed,
                unsigned,
                big,
                maybe,
                list,
                map,
                keyed,
                pair,
                event,
                adjacent,
                loose,
                extra,
                nested: None,
            },
        )
}

fn record() -> impl Strategy<Value = Record> {
    leaf().prop_recursive(3, 8, 1, |inner| {
        (leaf(), inner).prop_map(|(mut outer, inner)| {
            outer.nested = Some(Box::new(inner));
            outer
        })
    })
}

fn backends() -> Vec<Backend> {
    let mut list = vec![Backend::Interpreter, Backend::Auto];
    if Backend::Jit.is_available() {
        list.push(Backend::Jit);
    }
    list
}

fn has_nan(r: &Record) -> bool {
    r.wide.is_nan()
        || r.narrow.is_nan()
        || r.wide.is_infinite()
        || r.narrow.is_infinite()
        || r.list
            .iter()
            .any(|s| matches!(s, Shape::Circle(f) if !f.is_finite()))
        || r.nested.as_deref().is_some_and(has_nan)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn bytes_equal_serde_json_on_every_backend(value in record()) {
        let compact = serde_json::to_vec(&value).unwrap();
        let pretty = serde_json::to_vec_pretty(&value).unwrap();
        for backend in backends() {
            let encoder = Encoder::<Record>::with_backend(backend);
            let got = encoder.encode(&value).unwrap();
            prop_assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&compact),
                "compact, {:?}", backend
            );
            let got = encoder.pretty(true).encode(&value).unwrap();
            prop_assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&pretty),
                "pretty, {:?}", backend
            );
        }
        if !has_nan(&value) {
            let back: Record = jitson::from_slice(&compact).unwrap();
            prop_assert_eq!(back, value);
        }
    }
}
