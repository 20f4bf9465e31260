//! Field types without jitson's traits go through their serde impls with no
//! attribute (issue 37): models whose fields hold types with hand-written serde
//! impls, or types that only derive serde's traits, take jitson's derives
//! unchanged and decode and encode as serde_json does, on every backend, with
//! their structs still compiled. Also: a field's own `with` /
//! `serialize_with` / `deserialize_with` wins over `#[jitson(serde)]` in its
//! direction, serde's `bound` is honoured, and `#[jitson(serde)]` reaches a
//! newtype variant's field.
#![cfg(feature = "serde")]

mod common;

use std::collections::BTreeMap;
use std::fmt::{self, Debug};

use common::{backends, decode, err};
use jitson::{Backend, Decoder, Encode, Encoder};
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// An id newtype whose serde impls are written by hand (as a macro in an API
/// crate would write them): a number on the wire, refused when zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct RepositoryId(u64);

impl Serialize for RepositoryId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl<'de> Deserialize<'de> for RepositoryId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let id = u64::deserialize(d)?;
        if id == 0 {
            return Err(de::Error::custom("a repository id is never 0"));
        }
        Ok(RepositoryId(id))
    }
}

/// A hand-written string form, as `url::Url` or a timestamp has: `"#rrggbb"`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Color(u8, u8, u8);

impl Serialize for Color {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2))
    }
}

impl<'de> Deserialize<'de> for Color {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Hex;
        impl Visitor<'_> for Hex {
            type Value = Color;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a color as \"#rrggbb\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Color, E> {
                let digits = v
                    .strip_prefix('#')
                    .filter(|d| d.len() == 6 && d.is_ascii())
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))?;
                let byte = |i: usize| {
                    u8::from_str_radix(&digits[i..i + 2], 16)
                        .map_err(|_| E::invalid_value(de::Unexpected::Str(v), &self))
                };
                Ok(Color(byte(0)?, byte(2)?, byte(4)?))
            }
        }
        d.deserialize_str(Hex)
    }
}

/// A type that derives serde's traits only.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Label {
    label_name: String,
    color: Color,
}

/// A model as an API crate writes it, with jitson's derives added and nothing
/// else.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Repository {
    id: RepositoryId,
    name: String,
    color: Color,
    parent: Option<RepositoryId>,
    labels: Vec<Label>,
    by_name: BTreeMap<String, Color>,
    stars: u32,
    owner: Owner,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Owner {
    login: String,
    favourite: Color,
}

/// Enum payloads: a newtype variant, a tuple variant and a struct variant of
/// types without jitson's traits.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Event {
    Created(RepositoryId),
    Painted(Color, u8),
    Labelled { label: Label, by: RepositoryId },
    Deleted,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
enum Tagged {
    Labelled { label: Label },
    Plain { n: u8 },
}

const REPOSITORY: &str = r##"{"id":7,"name":"jitson","color":"#0a0b0c","parent":null,
  "labels":[{"labelName":"bug","color":"#ff0000"},{"labelName":"ok","color":"#00ff00"}],
  "by_name":{"bug":"#ff0000"},"stars":12,"owner":{"login":"ada","favourite":"#123456"}}"##;

/// Asserts every backend's bytes, compact and pretty, equal serde_json's.
#[track_caller]
fn encodes_as_serde_json<T: Encode + Serialize + Debug>(value: &T) {
    let compact = serde_json::to_string(value).unwrap();
    let pretty = serde_json::to_string_pretty(value).unwrap();
    for backend in [Backend::Interpreter, Backend::Jit, Backend::Auto] {
        if backend == Backend::Jit && !Backend::Jit.is_available() {
            continue;
        }
        let encoder = Encoder::<T>::with_backend(backend);
        let got = String::from_utf8(encoder.encode(value).unwrap()).unwrap();
        assert_eq!(got, compact, "{backend:?}");
        let got = String::from_utf8(encoder.pretty(true).encode(value).unwrap()).unwrap();
        assert_eq!(got, pretty, "{backend:?} pretty");
    }
}

/// Decodes `json` on every backend (they must agree), asserts serde_json
/// gives the same value, and that the value encodes as serde_json encodes it.
#[track_caller]
fn round_trips<T>(json: &str) -> T
where
    T: jitson::Decode + Encode + Serialize + DeserializeOwned + PartialEq + Debug,
{
    let ours: T = decode(json.as_bytes()).unwrap();
    let theirs: T = serde_json::from_str(json).unwrap();
    assert_eq!(ours, theirs);
    encodes_as_serde_json(&ours);
    ours
}

#[test]
fn types_with_only_serde_impls_need_no_attribute() {
    let repo: Repository = round_trips(REPOSITORY);
    assert_eq!(repo.id, RepositoryId(7));
    assert_eq!(repo.labels[1].color, Color(0, 255, 0));
    let with_parent = REPOSITORY.replace(r#""parent":null"#, r#""parent":3"#);
    let repo: Repository = round_trips(&with_parent);
    assert_eq!(repo.parent, Some(RepositoryId(3)));
    // An absent `Option` of a serde-only type is `None`, as for serde.
    let absent = REPOSITORY.replace(r#""parent":null,"#, "");
    assert_eq!(round_trips::<Repository>(&absent).parent, None);
}

#[test]
fn enum_payloads_of_serde_only_types() {
    for json in [
        r#"{"Created":5}"#,
        r##"{"Painted":["#010203",9]}"##,
        r##"{"Labelled":{"label":{"labelName":"x","color":"#abcdef"},"by":2}}"##,
        r#""Deleted""#,
    ] {
        round_trips::<Event>(json);
    }
    round_trips::<Tagged>(r##"{"type":"Labelled","label":{"labelName":"x","color":"#abcdef"}}"##);
    round_trips::<Tagged>(r#"{"type":"Plain","n":3}"#);
}

#[test]
fn a_serde_impl_refusing_gives_its_message_and_the_path() {
    let zero = REPOSITORY.replace(r#""id":7"#, r#""id":0"#);
    let e = err::<Repository>(zero.as_bytes());
    assert!(e.to_string().contains("a repository id is never 0"), "{e}");
    assert_eq!(e.path(), "$.id");
    let bad = REPOSITORY.replace("#123456", "#12345g");
    let e = err::<Repository>(bad.as_bytes());
    assert!(e.to_string().contains("expected a color"), "{e}");
    assert_eq!(e.path(), "$.owner.favourite");
    // Invalid JSON inside the field is reported by jitson, as any syntax error.
    let broken = REPOSITORY.replace(r#""parent":null"#, r#""parent":nul"#);
    let e = err::<Repository>(broken.as_bytes());
    assert!(serde_json::from_str::<Repository>(&broken).is_err());
    assert_eq!(e.kind(), jitson::ErrorKind::Syntax, "{e}");
}

#[test]
fn structs_holding_serde_fields_stay_compiled() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Repository>().unwrap();
    jitson::warm_up::<Event>().unwrap();
    jitson::warm_up_encode::<Repository>().unwrap();
    common::assert_compiled(&["Repository", "Owner", "Event"]);
    let repo = Decoder::<Repository>::with_backend(Backend::Jit)
        .decode_str(REPOSITORY)
        .unwrap();
    assert_eq!(repo.owner.favourite, Color(0x12, 0x34, 0x56));
}

// ---------------------------------------------------------------------------
// A field's own functions win over `#[jitson(serde)]` (fault 1 of issue 37).

fn one<S: Serializer>(map: &BTreeMap<String, Vec<String>>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(map.len() as u64)
}

fn null_as_empty<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, String>, D::Error> {
    Ok(Option::<BTreeMap<String, String>>::deserialize(d)?.unwrap_or_default())
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
struct OwnFunctions {
    #[jitson(serde)]
    #[serde(serialize_with = "one", default)]
    q: BTreeMap<String, Vec<String>>,
    #[jitson(serde)]
    #[serde(deserialize_with = "null_as_empty")]
    r: BTreeMap<String, String>,
}

#[test]
fn own_functions_win_over_jitson_serde_in_their_direction() {
    let value: OwnFunctions = decode(br#"{"q":{"k":["v"]},"r":null}"#).unwrap();
    assert_eq!(value.r, BTreeMap::new());
    assert_eq!(
        value,
        serde_json::from_str(r#"{"q":{"k":["v"]},"r":null}"#).unwrap()
    );
    encodes_as_serde_json(&value);
    assert_eq!(jitson::to_string(&value).unwrap(), r#"{"q":1,"r":{}}"#);
}

// ---------------------------------------------------------------------------
// serde's `bound` (fault 2) and `#[jitson(serde)]` on a variant's field (fault 3).

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
#[serde(bound(deserialize = "T: DeserializeOwned", serialize = "T: Serialize"))]
struct Envelope<T> {
    id: u64,
    payload: T,
}

/// serde's usual spelling, naming its impl's lifetime `'de`, which jitson's
/// impls read as `for<'de>` (a bound on `'de` itself says nothing to them).
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
#[serde(bound(deserialize = "T: Deserialize<'de>", serialize = "T: Serialize"))]
struct Spelled<T> {
    payload: T,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(bound(deserialize = "'de: 'a, T: Deserialize<'de>"))]
struct SpelledBorrowing<'a, T> {
    name: &'a str,
    payload: T,
}

/// A field's `bound` inside a struct or tuple variant binds the enum's impl,
/// as serde's derive adds it there.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
enum Held<T> {
    Named {
        #[serde(bound(deserialize = "T: DeserializeOwned", serialize = "T: Serialize"))]
        value: Option<T>,
    },
    Pair(
        #[serde(bound(deserialize = "T: DeserializeOwned", serialize = "T: Serialize"))] Vec<T>,
        u8,
    ),
}

/// serde's pattern for a field whose bounds the struct states itself: the
/// field's empty `bound` infers nothing from `items` (no `P: Decode`), and
/// the field takes the route its bounds allow: serde's.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
struct Page<P: Serialize + DeserializeOwned> {
    #[serde(default = "Vec::new", bound = "")]
    items: Vec<P>,
    next: Option<String>,
}

#[test]
fn serde_bound_replaces_the_inferred_bounds() {
    // `T` only has serde's traits: under the container's bound it goes through serde.
    let value: Envelope<Color> = round_trips(r##"{"id":1,"payload":"#102030"}"##);
    assert_eq!(value.payload, Color(16, 32, 48));
    let value: Envelope<Vec<RepositoryId>> = round_trips(r#"{"id":2,"payload":[4,5]}"#);
    assert_eq!(value.payload, vec![RepositoryId(4), RepositoryId(5)]);
    let held: Held<Color> = round_trips(r##"{"Named":{"value":"#102030"}}"##);
    assert_eq!(
        held,
        Held::Named {
            value: Some(Color(16, 32, 48))
        }
    );
    let held: Held<Color> = round_trips(r##"{"Pair":[["#000000"],1]}"##);
    assert_eq!(held, Held::Pair(vec![Color(0, 0, 0)], 1));
    let value: Spelled<Color> = round_trips(r##"{"payload":"#102030"}"##);
    assert_eq!(value.payload, Color(16, 32, 48));
    let doc = r##"{"name":"n","payload":"#102030"}"##;
    for backend in backends() {
        let value = Decoder::<SpelledBorrowing<'_, Color>>::with_backend(backend)
            .decode_str(doc)
            .unwrap();
        assert_eq!(value, serde_json::from_str(doc).unwrap());
    }
    let page: Page<Label> =
        round_trips(r##"{"items":[{"labelName":"a","color":"#000000"}],"next":null}"##);
    assert_eq!(page.items.len(), 1);
    let page: Page<Label> = round_trips(r#"{"next":"x"}"#);
    assert!(page.items.is_empty());
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
enum Wrapped {
    Hex(
        #[jitson(serde)]
        #[serde(with = "hex_u32")]
        u32,
    ),
    Plain(#[jitson(serde)] u32),
    Two(#[serde(with = "hex_u32")] u32, u8),
}

mod hex_u32 {
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{v:x}"))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        let text = String::deserialize(d)?;
        u32::from_str_radix(&text, 16).map_err(serde::de::Error::custom)
    }
}

#[test]
fn variant_fields_take_their_own_functions() {
    assert_eq!(round_trips::<Wrapped>(r#"{"Hex":"ff"}"#), Wrapped::Hex(255));
    assert_eq!(round_trips::<Wrapped>(r#"{"Plain":7}"#), Wrapped::Plain(7));
    assert_eq!(
        round_trips::<Wrapped>(r#"{"Two":["1a",1]}"#),
        Wrapped::Two(26, 1)
    );
    for backend in backends() {
        let e = Decoder::<Wrapped>::with_backend(backend)
            .decode_str(r#"{"Hex":"zz"}"#)
            .unwrap_err();
        assert!(e.to_string().contains("invalid digit"), "{backend:?}: {e}");
    }
}

/// serde's variant-level functions, on newtype variants: the function reads
/// (and writes) the variant's one field.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
#[serde(tag = "t", content = "c")]
enum VariantWith {
    #[serde(with = "hex_u32")]
    Hex(u32),
    #[serde(
        deserialize_with = "hex_u32::deserialize",
        serialize_with = "hex_u32::serialize"
    )]
    Split(u32),
    Plain(u32),
}

#[test]
fn newtype_variants_take_the_variants_functions() {
    assert_eq!(
        round_trips::<VariantWith>(r#"{"t":"Hex","c":"ff"}"#),
        VariantWith::Hex(255)
    );
    assert_eq!(
        round_trips::<VariantWith>(r#"{"t":"Split","c":"1a"}"#),
        VariantWith::Split(26)
    );
    assert_eq!(
        round_trips::<VariantWith>(r#"{"t":"Plain","c":7}"#),
        VariantWith::Plain(7)
    );
    for doc in [r#"{"t":"Hex","c":7}"#, r#"{"t":"Split","c":"zz"}"#] {
        let theirs = serde_json::from_str::<VariantWith>(doc)
            .unwrap_err()
            .to_string();
        for backend in backends() {
            let e = Decoder::<VariantWith>::with_backend(backend)
                .decode_str(doc)
                .unwrap_err();
            assert!(
                theirs.starts_with(&e.code().to_string()),
                "{backend:?}: {e} / {theirs}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// A flattened `Option` of a map (fault 5): decoded as serde decodes it, and
// accepted by `warm_up`.

#[derive(jitson::Decode, Deserialize, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
enum Reaction {
    Heart,
    Rocket,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Comment {
    id: u64,
    #[serde(flatten)]
    reactions: Option<BTreeMap<Reaction, u64>>,
}

#[test]
fn flattened_option_of_a_map() {
    jitson::warm_up::<Comment>().unwrap();
    for json in [
        r#"{"id":1}"#,
        r#"{"id":1,"heart":2,"rocket":3}"#,
        r#"{"heart":2,"id":1}"#,
        // An entry the map refuses makes the option `None`, as for serde.
        r#"{"id":1,"heart":"many"}"#,
        r#"{"id":1,"laugh":1}"#,
        r#"{"id":1,"heart":2,"heart":5}"#,
    ] {
        let ours: Comment = decode(json.as_bytes()).unwrap();
        let theirs: Comment = serde_json::from_str(json).unwrap();
        assert_eq!(ours, theirs, "{json}");
    }
    // Errors that are not the map's refusal still fail the decode.
    for json in [r#"{"heart":2}"#, r#"{"id":1,"heart":2"#, r#"{"id":"x"}"#] {
        let e = err::<Comment>(json.as_bytes());
        let theirs = serde_json::from_str::<Comment>(json).unwrap_err();
        assert_eq!(
            e.classify(),
            common::oracle::category(&theirs),
            "{json}: {e}"
        );
    }
}

// ---------------------------------------------------------------------------
// serde_with's `#[serde_as]` rewrites its fields into `with` attributes before
// the derives run: they take jitson's derives as they take serde's.

#[serde_with::serde_as]
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
struct WithAs {
    #[serde_as(as = "serde_with::DisplayFromStr")]
    n: u64,
    #[serde_as(as = "Option<serde_with::DisplayFromStr>")]
    m: Option<u32>,
    #[serde_as(as = "Vec<serde_with::DisplayFromStr>")]
    v: Vec<u8>,
    plain: Color,
}

#[test]
fn serde_as_fields() {
    let value: WithAs = round_trips(r##"{"n":"12","m":"7","v":["1","2"],"plain":"#000001"}"##);
    assert_eq!((value.n, value.m), (12, Some(7)));
    // serde_as gives an `Option` field `default`: absent is `None`.
    let value: WithAs = round_trips(r##"{"n":"12","v":[],"plain":"#000001"}"##);
    assert_eq!(value.m, None);
    let e = err::<WithAs>(br##"{"n":12,"v":[],"plain":"#000001"}"##);
    assert_eq!(e.path(), "$.n", "{e}");
}

// ---------------------------------------------------------------------------
// serde's `remote` and identifier enums (issue 37, item 4).

/// Another crate's type, without serde's or jitson's traits.
mod elsewhere {
    #[derive(Debug, PartialEq)]
    pub struct Span {
        pub start: u32,
        pub end: u32,
    }
}

/// serde's `remote` derive: inherent functions for `with`, no trait impl; so
/// jitson's derives add nothing, and a field naming it goes through them.
#[derive(Serialize, Deserialize, jitson::Decode, jitson::Encode)]
#[serde(remote = "elsewhere::Span")]
struct SpanDef {
    start: u32,
    #[serde(getter = "span_end")]
    end: u32,
}

fn span_end(span: &elsewhere::Span) -> u32 {
    span.end
}

/// serde builds the remote type through `From` when a field has a `getter`.
impl From<SpanDef> for elsewhere::Span {
    fn from(def: SpanDef) -> Self {
        elsewhere::Span {
            start: def.start,
            end: def.end,
        }
    }
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
struct Token {
    #[serde(with = "SpanDef")]
    span: elsewhere::Span,
    text: String,
}

#[derive(Deserialize, jitson::Decode, Debug, PartialEq)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Key {
    Secs,
    Nanos,
}

#[derive(Deserialize, jitson::Decode, Debug, PartialEq)]
#[serde(field_identifier)]
enum Name {
    #[serde(rename = "a", alias = "b")]
    A,
    #[serde(other)]
    Other,
}

#[test]
fn remote_types_and_identifiers() {
    let token: Token = round_trips(r#"{"span":{"start":1,"end":4},"text":"let"}"#);
    assert_eq!(token.span, elsewhere::Span { start: 1, end: 4 });
    for json in [r#""secs""#, r#""nanos""#] {
        let ours: Key = decode(json.as_bytes()).unwrap();
        assert_eq!(ours, serde_json::from_str::<Key>(json).unwrap());
    }
    // What serde refuses: an unknown name (in its words), a map, a number.
    for json in [r#""minutes""#, r#"{"secs":null}"#, "0", "null"] {
        let e = err::<Key>(json.as_bytes());
        let theirs = serde_json::from_str::<Key>(json).unwrap_err();
        assert_eq!(
            e.classify(),
            common::oracle::category(&theirs),
            "{json}: {e}"
        );
    }
    let e = err::<Key>(br#""minutes""#);
    assert!(
        e.to_string()
            .starts_with("unknown field `minutes`, expected `secs` or `nanos`"),
        "{e}"
    );
    for json in [r#""a""#, r#""b""#, r#""zz""#] {
        let ours: Name = decode(json.as_bytes()).unwrap();
        assert_eq!(ours, serde_json::from_str::<Name>(json).unwrap(), "{json}");
    }
}

// ---------------------------------------------------------------------------
// Flattened enums, in each representation, and options of them (issue 37,
// item 4): decoded from the members no field claims, encoded into the
// enclosing object, as serde does.

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
#[serde(tag = "kind")]
enum Internal {
    Push { branch: String },
    Star,
    Wrapped(Owner),
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Count(u32),
    Nothing,
    Pair { a: u8, b: u8 },
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum Untagged {
    Named { name: String },
    Numbered { number: u64 },
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
enum External {
    Hex(Color),
    Plain { value: u8 },
    Off,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
struct Envelopes {
    id: u64,
    #[serde(flatten)]
    internal: Internal,
    #[serde(flatten)]
    adjacent: Option<Adjacent>,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
struct Others {
    id: u64,
    #[serde(flatten)]
    untagged: Untagged,
    #[serde(flatten)]
    external: External,
}

#[test]
fn flattened_enums() {
    jitson::warm_up::<Envelopes>().unwrap();
    jitson::warm_up::<Others>().unwrap();
    jitson::warm_up_encode::<Envelopes>().unwrap();
    jitson::warm_up_encode::<Others>().unwrap();
    for json in [
        r#"{"id":1,"kind":"Push","branch":"main","t":"Count","c":3}"#,
        r#"{"kind":"Star","id":2,"t":"Nothing"}"#,
        r##"{"id":3,"kind":"Wrapped","login":"ada","favourite":"#010203","t":"Pair","c":{"a":1,"b":2}}"##,
        // No adjacent tag: the option is `None`; a bad content: `None` too.
        r#"{"id":4,"kind":"Star"}"#,
        r#"{"id":4,"kind":"Star","t":"Count","c":"x"}"#,
    ] {
        round_trips::<Envelopes>(json);
    }
    for json in [
        r#"{"id":1,"name":"n","Plain":{"value":3}}"#,
        r#"{"number":7,"id":1,"Off":null}"#,
        r##"{"Hex":"#ffffff","id":1,"name":"n","number":2}"##,
    ] {
        round_trips::<Others>(json);
    }
    // Refused as serde refuses: no variant's key, no tag, an untagged
    // payload that matches no variant.
    for json in [
        r#"{"id":1,"name":"n"}"#,
        r#"{"id":1,"t":"Count","c":1}"#,
        r#"{"id":1,"Off":null}"#,
    ] {
        if let Ok(ours) = serde_json::from_str::<Others>(json) {
            panic!("serde_json took {json}: {ours:?}");
        }
        let e = err::<Others>(json.as_bytes());
        assert_eq!(e.classify(), jitson::Category::Data, "{json}: {e}");
    }
    let e = err::<Envelopes>(br#"{"id":1,"t":"Count","c":1}"#);
    assert_eq!(e.classify(), jitson::Category::Data, "{e}");
}

/// An externally tagged enum inside a value serde buffers (an internally
/// tagged payload) is read by serde's `ContentDeserializer`: a string or a
/// map with one key, other values named in its words.
#[test]
fn enum_inside_a_buffered_value() {
    #[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
    enum Inner {
        A(u8),
        B,
    }
    #[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
    #[serde(tag = "t")]
    enum Outer {
        S { x: Inner },
    }
    for json in [
        r#"{"t":"S","x":[]}"#,
        r#"{"t":"S","x":5}"#,
        r#"{"t":"S","x":{}}"#,
        r#"{"t":"S","x":{"A":1,"B":null}}"#,
    ] {
        let theirs = serde_json::from_str::<Outer>(json).unwrap_err();
        let e = err::<Outer>(json.as_bytes());
        assert_eq!(
            e.classify(),
            common::oracle::category(&theirs),
            "{json}: {e}"
        );
        let words = theirs.to_string();
        let words = words.split(" at line").next().unwrap_or_default();
        assert!(e.to_string().starts_with(words), "{json}: {e} / {theirs}");
    }
    round_trips_decode::<Outer>(r#"{"t":"S","x":{"A":1}}"#);
    round_trips_decode::<Outer>(r#"{"x":"B","t":"S"}"#);
}

/// Decodes on every backend and compares with serde_json.
#[track_caller]
fn round_trips_decode<T: jitson::Decode + DeserializeOwned + PartialEq + Debug>(json: &str) {
    let ours: T = decode(json.as_bytes()).unwrap();
    assert_eq!(ours, serde_json::from_str::<T>(json).unwrap(), "{json}");
}

// ---------------------------------------------------------------------------
// What three crates of API models needed (scripts/real_models.sh), each as
// the smallest model that failed to compile or warned.

/// A type through serde that has a lifetime parameter (it borrows nothing).
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
struct WithCow<'a> {
    bytes: std::borrow::Cow<'a, [u8]>,
    name: &'a str,
}

/// A generic body behind a reference, encoded.
#[derive(jitson::Encode, Serialize, Debug)]
struct Request<'r, B: Serialize + Debug + ?Sized> {
    body: Option<&'r B>,
    page: u32,
}

/// serde bounds `P: Default` for a `default` field, even under the field's own
/// `bound`, and `Inner<P>`'s serde impl counts on it.
#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct WithDefaultBound<P: DeserializeOwned> {
    #[serde(default, bound = "")]
    inner: Inner<P>,
}

#[derive(Default, Deserialize, Debug, PartialEq)]
struct Inner<P> {
    #[serde(default)]
    payload: Option<P>,
}

fn extensions<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, u32>, D::Error> {
    let all = BTreeMap::<String, serde_json::Value>::deserialize(d)?;
    Ok(all
        .into_iter()
        .filter(|(k, _)| k.starts_with("x-"))
        .map(|(k, v)| (k, v.as_u64().unwrap_or(0) as u32))
        .collect())
}

fn write_extensions<S: Serializer>(map: &BTreeMap<String, u32>, s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(map.iter().map(|(k, v)| (format!("x-{k}"), v)))
}

/// A flattened field with its own functions: they read the members no field
/// claims as a map, and write theirs into the enclosing object.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
struct WithExtensions {
    title: String,
    #[serde(
        flatten,
        deserialize_with = "extensions",
        serialize_with = "write_extensions"
    )]
    extensions: BTreeMap<String, u32>,
}

#[deny(deprecated)]
mod deprecated_fields {
    /// serde's derives allow a deprecated field; so must jitson's.
    #[derive(jitson::Decode, jitson::Encode, serde::Deserialize, serde::Serialize)]
    pub struct Old {
        #[deprecated]
        pub old: u32,
    }
}

#[test]
fn what_real_models_needed() {
    let value: WithCow<'_> = round_trips_borrowed(r#"{"bytes":[1,2],"name":"n"}"#);
    assert_eq!(&*value.bytes, &[1, 2]);
    encodes_as_serde_json(&Request::<u32> {
        body: Some(&5),
        page: 2,
    });
    for json in [r#"{}"#, r#"{"inner":{"payload":3}}"#, r#"{"inner":{}}"#] {
        let ours: WithDefaultBound<u8> = decode(json.as_bytes()).unwrap();
        assert_eq!(ours, serde_json::from_str(json).unwrap(), "{json}");
    }
    for json in [
        r#"{"title":"t","x-a":1,"y":2}"#,
        r#"{"x-b":7,"title":"t"}"#,
        r#"{"title":"t"}"#,
    ] {
        let ours: WithExtensions = decode(json.as_bytes()).unwrap();
        assert_eq!(ours, serde_json::from_str(json).unwrap(), "{json}");
        encodes_as_serde_json(&ours);
    }
    jitson::warm_up::<deprecated_fields::Old>().unwrap();
}

/// `round_trips` for a type that borrows: decoded on every backend from the
/// same input, compared with serde_json, and encoded as serde_json encodes it.
#[track_caller]
fn round_trips_borrowed<'de, T>(json: &'de str) -> T
where
    T: jitson::DecodeBorrowed<'de> + Encode + Serialize + Deserialize<'de> + PartialEq + Debug,
{
    let mut first = None;
    for backend in backends() {
        let ours = Decoder::<T>::with_backend(backend)
            .decode_str(json)
            .unwrap();
        assert_eq!(
            ours,
            serde_json::from_str::<T>(json).unwrap(),
            "{backend:?}"
        );
        encodes_as_serde_json(&ours);
        first.get_or_insert(ours);
    }
    first.expect("at least one backend")
}

// ---------------------------------------------------------------------------
// What a hostile pass found (each as serde_json does it).

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct SerdeOnly {
    a: u8,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
struct FlattensSerdeOnly {
    id: u32,
    #[serde(flatten)]
    s: SerdeOnly,
    #[serde(flatten)]
    o: Option<Label>,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
#[serde(tag = "t")]
enum TaggedSerdeOnly {
    V(SerdeOnly),
    W(Color),
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct OptionalAdjacent {
    #[serde(flatten)]
    a: Option<Adjacent>,
}

#[test]
fn serde_only_types_flattened_and_tagged() {
    for json in [
        r#"{"id":1,"a":2}"#,
        r##"{"a":2,"labelName":"x","color":"#000000","id":1}"##,
    ] {
        round_trips::<FlattensSerdeOnly>(json);
    }
    round_trips::<TaggedSerdeOnly>(r#"{"t":"V","a":1}"#);
    // serde refuses to write a string under a tag, in its words.
    let value = TaggedSerdeOnly::W(Color(1, 2, 3));
    let theirs = serde_json::to_string(&value).unwrap_err().to_string();
    for backend in [Backend::Interpreter, Backend::Jit, Backend::Auto] {
        if backend == Backend::Jit && !Backend::Jit.is_available() {
            continue;
        }
        let e = Encoder::<TaggedSerdeOnly>::with_backend(backend)
            .encode(&value)
            .unwrap_err();
        assert!(
            e.to_string().starts_with(&theirs),
            "{backend:?}: {e} / {theirs}"
        );
    }
    // A tag that is no string, in a flattened adjacently tagged enum: the
    // option is `None`, as serde's buffer refuses it as data.
    for json in [r#"{"t":7}"#, r#"{"t":null}"#, r#"{"t":[]}"#] {
        round_trips_decode::<OptionalAdjacent>(json);
    }
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
enum Ext {
    A { p: u32 },
    C(u32),
    D,
}

/// An externally or adjacently tagged enum takes its members from the
/// flattened map, as serde takes them from its buffer.
#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct ExtAndRest {
    #[serde(flatten)]
    x: Ext,
    #[serde(flatten)]
    rest: BTreeMap<String, u32>,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct AdjAndRest {
    #[serde(flatten)]
    a: Adjacent,
    #[serde(flatten)]
    rest: BTreeMap<String, serde_json::Value>,
}

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct DeniesUnknown {
    #[serde(flatten)]
    e: Ext,
}

#[test]
fn flattened_enums_take_their_members() {
    for json in [
        r#"{"C":1}"#,
        r#"{"A":{"p":1},"z":2}"#,
        r#"{"z":2,"D":null,"C":3}"#,
    ] {
        round_trips_decode::<ExtAndRest>(json);
    }
    round_trips_decode::<AdjAndRest>(r#"{"t":"Count","c":1,"z":2}"#);
    round_trips_decode::<DeniesUnknown>(r#"{"D":null}"#);
    for json in [r#"{"D":null,"zzz":1}"#, r#"{"zzz":1,"C":2}"#] {
        let theirs = serde_json::from_str::<DeniesUnknown>(json).unwrap_err();
        let e = err::<DeniesUnknown>(json.as_bytes());
        assert_eq!(
            e.classify(),
            common::oracle::category(&theirs),
            "{json}: {e}"
        );
        assert!(
            e.to_string().starts_with("unknown field `zzz`"),
            "{json}: {e}"
        );
    }
}

// ---------------------------------------------------------------------------
// Default type arguments (fault 4 of issue 37): a generic model whose default
// argument has only hand-written serde impls, and the aliases API crates name
// it by.

/// Why an alarm changed state: serde impls written by hand, no jitson traits.
#[derive(Debug, Clone, PartialEq)]
struct ReasonData(String);

impl Serialize for ReasonData {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ReasonData {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        if text.is_empty() {
            return Err(de::Error::custom("a reason is never empty"));
        }
        Ok(ReasonData(text))
    }
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Alarm<C = serde_json::Value, R = ReasonData> {
    alarm_name: String,
    configuration: C,
    reason: R,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct MetricConfig {
    metric: String,
    threshold: f64,
}

/// As aws_lambda_events names its alarms.
type MetricAlarm = Alarm<MetricConfig>;
type AnyAlarm = Alarm;

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct AlarmEvent {
    metric: MetricAlarm,
    any: AnyAlarm,
    plain: Alarm<u32, u8>,
    several: Vec<MetricAlarm>,
}

#[test]
fn default_type_arguments_with_serde_only_types() {
    let metric =
        r#"{"alarmName":"cpu","configuration":{"metric":"CPU","threshold":0.5},"reason":"high"}"#;
    let any = r#"{"alarmName":"any","configuration":[1,{"x":null}],"reason":"why"}"#;
    let plain = r#"{"alarmName":"p","configuration":7,"reason":3}"#;
    let json = format!(
        r#"{{"metric":{metric},"any":{any},"plain":{plain},"several":[{metric},{metric}]}}"#
    );
    let event: AlarmEvent = round_trips(&json);
    assert_eq!(event.metric.reason, ReasonData("high".into()));
    assert_eq!(event.several[1].configuration.threshold, 0.5);
    // The argument with jitson's traits decodes natively, alone too.
    let plain: Alarm<u32, u8> = round_trips(plain);
    assert_eq!(plain.configuration, 7);
    // The serde-only default refuses with its own message, at its path.
    let empty = json.replacen(r#""reason":"high""#, r#""reason":"""#, 1);
    let e = err::<AlarmEvent>(empty.as_bytes());
    assert!(e.to_string().contains("a reason is never empty"), "{e}");
    // The alias has no `Decode` (its `R` has none), so the whole field went
    // through serde: the path ends at it.
    assert_eq!(e.path(), "$.metric");
    if Backend::Jit.is_available() {
        jitson::warm_up::<AlarmEvent>().unwrap();
        common::assert_compiled(&["AlarmEvent"]);
    }
}

// A field's own functions named as the derive's generated code names its
// parameters (`de`, `ser`, `v`, `dst`...): serde_derive compiles these, and so
// must jitson's derives (they name theirs with a leading `__`).
fn de<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    u32::deserialize(d).map(|n| n + 1)
}
fn ser<S: Serializer>(n: &u32, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u32(n * 10)
}
fn v(n: &u32) -> bool {
    *n == 0
}
fn dst() -> u32 {
    5
}

#[derive(jitson::Decode, Encode, Deserialize, Serialize, Debug, PartialEq)]
struct ShadowedNames {
    #[serde(deserialize_with = "de", serialize_with = "ser")]
    a: u32,
    #[serde(skip_serializing_if = "v", default = "dst")]
    b: u32,
}

#[test]
fn own_functions_named_like_generated_parameters() {
    let value: ShadowedNames = decode(br#"{"a": 1, "b": 0}"#).unwrap();
    assert_eq!(value, ShadowedNames { a: 2, b: 0 });
    assert_eq!(value, serde_json::from_str(r#"{"a": 1, "b": 0}"#).unwrap());
    let value: ShadowedNames = decode(br#"{"a": 1}"#).unwrap();
    assert_eq!(value, ShadowedNames { a: 2, b: 5 });
    encodes_as_serde_json(&ShadowedNames { a: 3, b: 0 });
    encodes_as_serde_json(&ShadowedNames { a: 3, b: 4 });
}

/// Writes `Some` maps' members with an escaped key, `None` as `null`.
fn write_some_members<S: Serializer>(
    map: &Option<BTreeMap<String, u32>>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match map {
        Some(map) => s.collect_map(map.iter().map(|(k, v)| (format!("x-\"{k}\u{e9}"), v))),
        None => s.serialize_none(),
    }
}

fn write_as_text<S: Serializer>(_: &u32, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str("not members")
}

/// A flattened field's serde function writes its members in place, first,
/// between and last among the struct's members, none when it writes `{}` or
/// `null`: in compact output (where serde_json's object is written straight
/// into the output) as in pretty and ASCII-only output, on every backend;
/// and what is not an object is refused as serde refuses it.
#[test]
fn flattened_serde_members_in_every_position() {
    #[derive(jitson::Encode, Serialize, Debug)]
    struct First {
        #[serde(flatten, serialize_with = "write_some_members")]
        ext: Option<BTreeMap<String, u32>>,
        title: String,
    }
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Between {
        a: u8,
        #[serde(flatten, serialize_with = "write_some_members")]
        ext: Option<BTreeMap<String, u32>>,
        b: u8,
    }
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Alone {
        #[serde(flatten, serialize_with = "write_some_members")]
        ext: Option<BTreeMap<String, u32>>,
    }
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Refused {
        a: u8,
        #[serde(flatten, serialize_with = "write_as_text")]
        text: u32,
    }
    let maps = [
        None,
        Some(BTreeMap::new()),
        Some(BTreeMap::from([("k".to_owned(), 1)])),
        Some(BTreeMap::from([
            ("k".to_owned(), 1),
            ("\u{1f}".to_owned(), 2),
        ])),
    ];
    for ext in maps {
        encodes_as_serde_json(&First {
            ext: ext.clone(),
            title: "t".into(),
        });
        encodes_as_serde_json(&Between {
            a: 1,
            ext: ext.clone(),
            b: 2,
        });
        let alone = Alone { ext };
        encodes_as_serde_json(&alone);
        let ascii = serde_json::to_string(&alone)
            .unwrap()
            .replace('\u{e9}', "\\u00e9");
        for backend in backends() {
            let got = Encoder::<Alone>::with_backend(backend)
                .ascii_only(true)
                .encode(&alone)
                .unwrap();
            assert_eq!(String::from_utf8(got).unwrap(), ascii, "{backend:?}");
        }
    }
    let serde_message = serde_json::to_string(&Refused { a: 1, text: 2 })
        .unwrap_err()
        .to_string();
    for backend in backends() {
        let encoder = Encoder::<Refused>::with_backend(backend);
        for encoder in [encoder, encoder.pretty(true)] {
            let mut out = b"kept".to_vec();
            let e = encoder
                .encode_into(&Refused { a: 1, text: 2 }, &mut out)
                .unwrap_err();
            // serde_json's words, and the path of the field.
            assert_eq!(
                e.to_string(),
                format!("{serde_message} at $.text"),
                "{backend:?}"
            );
            assert_eq!(out, b"kept", "{backend:?}");
        }
    }
}

/// What a hand-written `Serialize` calls, one case per serializer method
/// serde's flattening and tagging serializers treat apart.
#[derive(Debug, Clone, Copy)]
enum Calls {
    Char,
    Bytes,
    Tuple,
    TupleStruct,
    I128,
    Nan,
    None,
    SomeMap,
    UnitVariant,
    NewtypeVariant,
    TupleVariant,
    StructVariant,
    Raw,
}

/// A type whose serde impl makes one of [`Calls`]; no jitson derive, so
/// every backend runs it through serde.
#[derive(Debug, Clone, Copy)]
struct Calling(Calls);

impl Serialize for Calling {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeStructVariant, SerializeTupleVariant};
        #[derive(Serialize)]
        struct Pair(u8, u8);
        match self.0 {
            Calls::Char => s.serialize_char('c'),
            Calls::Bytes => s.serialize_bytes(b"ab"),
            Calls::Tuple => (1u8, 2u8).serialize(s),
            Calls::TupleStruct => Pair(1, 2).serialize(s),
            Calls::I128 => s.serialize_i128(-5),
            Calls::Nan => s.serialize_f64(f64::NAN),
            Calls::None => s.serialize_none(),
            Calls::SomeMap => s.serialize_some(&BTreeMap::from([("sm", 1)])),
            Calls::UnitVariant => s.serialize_unit_variant("En", 0, "Unit"),
            Calls::NewtypeVariant => s.serialize_newtype_variant("En", 1, "New", &7u8),
            Calls::TupleVariant => {
                let mut t = s.serialize_tuple_variant("En", 2, "Tup", 2)?;
                t.serialize_field(&1u8)?;
                t.serialize_field("x\"")?;
                t.end()
            }
            Calls::StructVariant => {
                let mut t = s.serialize_struct_variant("En", 3, "Str", 2)?;
                t.serialize_field("a", &1u8)?;
                t.serialize_field("b", &f64::NAN)?;
                t.end()
            }
            Calls::Raw => {
                let raw = serde_json::value::RawValue::from_string("{ \"r\" : 1 }".into());
                raw.unwrap().serialize(s)
            }
        }
    }
}

/// A flattened field, and an internally tagged variant's payload, whose serde
/// impl makes each call: the bytes serde_json writes (a unit variant as
/// `"Unit":null`, a variant's value under its name, a `RawValue` under
/// serde_json's token) or serde's refusal in its words (`got a char`, `got a
/// tuple struct`, `i128 is not supported`, a tagged `Some` is "an
/// optional"), compact and pretty, on every backend. serde decides by the
/// method called, so guessing from serde_json's text got the char, bytes,
/// tuple, `i128`, NaN, unit variant and tagged option cases wrong.
#[test]
fn flattened_and_tagged_serde_values_by_the_call_they_make() {
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Flat {
        a: u8,
        #[serde(flatten)]
        m: Calling,
        b: u8,
    }
    #[derive(jitson::Encode, Serialize, Debug)]
    #[serde(tag = "t")]
    enum Tagged {
        V(Calling),
    }
    let all = [
        Calls::Char,
        Calls::Bytes,
        Calls::Tuple,
        Calls::TupleStruct,
        Calls::I128,
        Calls::Nan,
        Calls::None,
        Calls::SomeMap,
        Calls::UnitVariant,
        Calls::NewtypeVariant,
        Calls::TupleVariant,
        Calls::StructVariant,
        Calls::Raw,
    ];
    /// serde_json's bytes or message, and jitson's on every backend, compact
    /// and pretty; jitson's message is serde_json's with the value's path
    /// (none at the root).
    fn same<T: Encode + Serialize + Debug>(value: &T, path: &str) {
        for pretty in [false, true] {
            let theirs = if pretty {
                serde_json::to_string_pretty(value)
            } else {
                serde_json::to_string(value)
            };
            for backend in backends() {
                let ours = Encoder::<T>::with_backend(backend)
                    .pretty(pretty)
                    .encode(value)
                    .map(|bytes| String::from_utf8(bytes).unwrap());
                match (&theirs, ours) {
                    (Ok(theirs), Ok(ours)) => {
                        assert_eq!(&ours, theirs, "{value:?} {backend:?} pretty {pretty}");
                    }
                    (Err(theirs), Err(ours)) => assert_eq!(
                        ours.to_string(),
                        match path {
                            "" => theirs.to_string(),
                            path => format!("{theirs} at {path}"),
                        },
                        "{value:?} {backend:?} pretty {pretty}"
                    ),
                    (theirs, ours) => {
                        panic!("{value:?} {backend:?} pretty {pretty}: {theirs:?} against {ours:?}")
                    }
                }
            }
        }
    }
    for calls in all {
        same(
            &Flat {
                a: 1,
                m: Calling(calls),
                b: 2,
            },
            "$.m",
        );
        // serde_json refuses a `RawValue` as a tagged payload (its raw
        // writer meets the tag): docs/semantics.md.
        if !matches!(calls, Calls::Raw) {
            same(&Tagged::V(Calling(calls)), "");
        }
    }
}

fn float_of<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(*v as f64 / 4.0)
}

fn from_float<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    f64::deserialize(d).map(|f| (f * 4.0) as u64)
}

/// Map keys whose type reads and writes through serde (a field type without
/// jitson's traits, `#[jitson(serde)]`, `with` functions) are read and written
/// as serde_json reads and writes keys: numbers and bools from inside the
/// quotes, refusals in serde_json's words, on every backend.
#[test]
fn map_keys_read_and_written_through_serde() {
    #[derive(
        jitson::Decode,
        jitson::Encode,
        Serialize,
        Deserialize,
        Debug,
        PartialEq,
        Eq,
        PartialOrd,
        Ord,
    )]
    struct ById(RepositoryId);
    #[derive(
        jitson::Decode,
        jitson::Encode,
        Serialize,
        Deserialize,
        Debug,
        PartialEq,
        Eq,
        PartialOrd,
        Ord,
    )]
    struct Routed(#[jitson(serde)] i64);
    #[derive(
        jitson::Decode,
        jitson::Encode,
        Serialize,
        Deserialize,
        Debug,
        PartialEq,
        Eq,
        PartialOrd,
        Ord,
    )]
    struct Quarters(#[serde(serialize_with = "float_of", deserialize_with = "from_float")] u64);
    #[derive(
        jitson::Decode,
        jitson::Encode,
        Serialize,
        Deserialize,
        Debug,
        PartialEq,
        Eq,
        PartialOrd,
        Ord,
    )]
    struct Flag(#[jitson(serde)] bool);
    #[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
    struct Model {
        by_id: BTreeMap<ById, String>,
        routed: BTreeMap<Routed, Vec<Option<Routed>>>,
        quarters: BTreeMap<Quarters, u8>,
        flags: BTreeMap<Flag, BTreeMap<Routed, bool>>,
    }

    let model: Model = round_trips(
        r#"{"by_id":{"7":"seven","12":"twelve"},"routed":{"-3":[1,null],"40":[]},
            "quarters":{"0.25":1,"2.5":2,"3":3},"flags":{"false":{},"true":{"5":true}}}"#,
    );
    assert_eq!(model.by_id[&ById(RepositoryId(12))], "twelve");
    assert_eq!(model.quarters[&Quarters(10)], 2);
    round_trips::<BTreeMap<Routed, u8>>(r#"{}"#);

    // Refused as serde_json refuses them, at the key's member.
    #[track_caller]
    fn refused<T: jitson::Decode + DeserializeOwned + PartialEq + Debug>(json: &str, path: &str) {
        let theirs = serde_json::from_str::<T>(json).unwrap_err().to_string();
        let theirs = &theirs[..theirs.rfind(" at line ").unwrap()];
        let ours = err::<T>(json.as_bytes());
        assert_eq!(
            ours.to_string().split(" at $").next(),
            Some(theirs),
            "{json}"
        );
        assert_eq!(ours.path(), path, "{json}");
    }
    refused::<BTreeMap<ById, u8>>(r#"{"0":1}"#, "$[\"0\"]");
    refused::<BTreeMap<ById, u8>>(r#"{"x":1}"#, "$.x");
    refused::<BTreeMap<ById, u8>>(r#"{"-1":1}"#, "$.-1");
    refused::<BTreeMap<Routed, u8>>(r#"{"1.5":1}"#, "$[\"1.5\"]");
    refused::<BTreeMap<Routed, u8>>(r#"{" 1":1}"#, "$[\" 1\"]");
    refused::<BTreeMap<Routed, u8>>(r#"{"\u0031":1}"#, "$[\"1\"]");
    refused::<BTreeMap<Flag, u8>>(r#"{"True":1}"#, "$.True");
    refused::<BTreeMap<Quarters, u8>>(r#"{"NaN":1}"#, "$.NaN");
}

/// Skipped fields of a type parameter infer no bounds but `Default` (to
/// decode) and nothing to encode, as serde's derive infers them.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
#[serde(tag = "t")]
enum SkippedParam<T> {
    A {
        a: u8,
        #[serde(skip)]
        hidden: T,
    },
    B,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
enum SkippedVariant<T> {
    A(u8),
    #[serde(skip)]
    Z(T),
}

#[derive(jitson::Encode, Serialize, Debug, PartialEq)]
struct SkippedField<T> {
    a: u8,
    #[serde(skip)]
    hidden: T,
}

/// A type with neither jitson's traits nor serde's.
#[derive(Default, Debug, PartialEq)]
struct Opaque(u8);

#[test]
fn skipped_parameters_need_no_codec() {
    let value: SkippedParam<u8> = round_trips(r#"{"t":"A","a":1}"#);
    assert_eq!(value, SkippedParam::A { a: 1, hidden: 0 });
    let doc = r#"{"t":"A","a":1}"#;
    for backend in backends() {
        let value = Decoder::<SkippedParam<Opaque>>::with_backend(backend)
            .decode_str(doc)
            .unwrap();
        assert_eq!(
            value,
            SkippedParam::A {
                a: 1,
                hidden: Opaque(0)
            }
        );
        let bytes = jitson::Encoder::<SkippedParam<Opaque>>::with_backend(backend)
            .encode(&value)
            .unwrap();
        assert_eq!(bytes, br#"{"t":"A","a":1}"#);
        let bytes = jitson::Encoder::<SkippedField<Opaque>>::with_backend(backend)
            .encode(&SkippedField {
                a: 2,
                hidden: Opaque(3),
            })
            .unwrap();
        assert_eq!(bytes, br#"{"a":2}"#);
    }
    let _: SkippedVariant<u8> = round_trips(r#"{"A":1}"#);
    // A skipped variant is refused on encode, by both.
    let skipped = SkippedVariant::<u8>::Z(1);
    assert!(serde_json::to_string(&skipped).is_err());
    for backend in backends() {
        let encoder = jitson::Encoder::<SkippedVariant<u8>>::with_backend(backend);
        assert!(encoder.encode(&skipped).is_err(), "{backend:?}");
    }
}
