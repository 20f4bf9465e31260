//! A fixed set of nested types touching every kind and attribute, for the
//! `decode_fixed` target (with the benchmark models and seed types).

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Everything {
    pub flag: bool,
    pub small: i8,
    pub short: i16,
    pub int: i32,
    pub long: i64,
    pub byte: u8,
    pub ushort: u16,
    pub uint: u32,
    pub ulong: u64,
    pub size: usize,
    pub single: f32,
    pub double: f64,
    pub letter: char,
    pub text: String,
    pub boxed_text: Box<str>,
    #[serde(default)]
    pub maybe: Option<Option<u32>>,
    pub list: Vec<Item>,
    pub grid: [[u8; 2]; 2],
    pub table: HashMap<String, Vec<i64>>,
    pub sorted: BTreeMap<String, Option<f64>>,
    pub tree: Option<Box<Tree>>,
    pub color: Color,
    #[serde(rename = "ключ", alias = "key")]
    pub renamed: Option<Color>,
    #[serde(skip)]
    pub skipped: Vec<u8>,
    #[serde(default = "seven")]
    pub defaulted: u32,
}

fn seven() -> u32 {
    7
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Item {
    pub id: u64,
    pub name: String,
    #[serde(default)]
    pub tags: Vec<String>,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
pub struct Tree {
    pub value: i32,
    pub children: Vec<Tree>,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    Red,
    #[serde(rename = "GREEN", alias = "verde")]
    Green,
    Blue,
}

/// Keys sharing prefixes and lengths around the JIT's 8/4/2/1-byte compares.
#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
pub struct Keys {
    #[serde(default)]
    pub i: u8,
    #[serde(default)]
    pub id: u8,
    #[serde(default)]
    pub ident: u8,
    #[serde(default)]
    pub identity: u8,
    #[serde(default)]
    pub identifier: u8,
    #[serde(default, rename = "identifier_long_enough_for_two_words")]
    pub long: u8,
    #[serde(default, rename = "a\"b\\c")]
    pub escaped: u8,
}

/// serde's other representations, which the JIT lowers (issue 22): an
/// internally tagged enum whose payloads flatten, an adjacently tagged one,
/// an untagged one, and a struct that flattens a struct and one that
/// collects the rest in a map.
#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
pub struct Representations {
    #[serde(default)]
    pub internal: Vec<Internal>,
    #[serde(default)]
    pub adjacent: Vec<Adjacent>,
    #[serde(default)]
    pub untagged: Vec<Untagged>,
    #[serde(default)]
    pub flat: Option<Flat>,
    #[serde(default)]
    pub rest: Option<Rest>,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "type")]
pub enum Internal {
    Unit,
    Point { x: i32, y: i32 },
    Flat(Flat),
    Rest(Rest),
    #[serde(alias = "n")]
    Nested { inner: Box<Internal> },
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "t", content = "c")]
pub enum Adjacent {
    Unit,
    Text(String),
    Pair(u8, bool),
    Point { x: i32, y: i32 },
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
pub enum Untagged {
    Nothing,
    Flag(bool),
    Big(u64),
    Text(String),
    List(Vec<i8>),
    Point { x: i32, y: i32 },
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
pub struct Inner {
    pub a: u8,
    #[serde(default)]
    pub b: Option<String>,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
pub struct Flat {
    pub id: u32,
    #[serde(flatten)]
    pub inner: Inner,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
pub struct Rest {
    pub id: u32,
    #[serde(flatten)]
    pub rest: BTreeMap<String, i64>,
}
