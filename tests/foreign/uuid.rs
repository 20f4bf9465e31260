//! uuid's types (feature `uuid`, issue 38), held to uuid's own serde impl
//! through serde_json on every backend: generated values decode to the same
//! value and encode to the same bytes, hostile texts are accepted and refused
//! alike (with uuid's message), and structs of them stay compiled.

use crate::common;
use crate::encodes_as_serde_json;

use common::{backends, oracle};
use jitson::Backend;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use uuid::{NonNilUuid, Uuid};

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Ids {
    id: Uuid,
    non_nil: NonNilUuid,
    parent: Option<Uuid>,
    children: Vec<Uuid>,
    owner: Option<NonNilUuid>,
    nested: Vec<Option<Uuid>>,
}

/// One field of `T`, for texts tried alone.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct One<T> {
    t: T,
}

/// Asserts the JSON value `json` in a `One<T>` is read by every backend as
/// serde_json reads it, and refused alike, with serde's reason in jitson's
/// message.
#[track_caller]
fn value_reads_as_uuid<T>(json: &str)
where
    T: jitson::Decode + for<'de> Deserialize<'de> + PartialEq + Debug,
{
    let doc = format!(r#"{{"t":{json}}}"#);
    let ours = common::decode::<One<T>>(doc.as_bytes());
    let theirs = serde_json::from_str::<One<T>>(&doc);
    if let (Err(a), Err(b)) = (&ours, &theirs) {
        crate::assert_same_reason(&doc, a, b);
    }
    let _ = oracle::compare(doc.as_bytes(), ours, theirs, |a, b| a == b);
}

/// As [`value_reads_as_uuid`] for the JSON string holding `text`, as a
/// `Uuid` and as a `NonNilUuid`.
#[track_caller]
fn reads_as_uuid(text: &str) {
    let json = serde_json::to_string(text).unwrap();
    value_reads_as_uuid::<Uuid>(&json);
    value_reads_as_uuid::<NonNilUuid>(&json);
}

const SAMPLE: &str = "67e55044-10b1-426f-9247-bb680e5fe0c8";

fn sample() -> Ids {
    let id = Uuid::parse_str(SAMPLE).unwrap();
    Ids {
        id,
        non_nil: NonNilUuid::new(Uuid::max()).unwrap(),
        parent: None,
        children: vec![Uuid::nil(), id, Uuid::max()],
        owner: NonNilUuid::new(id),
        nested: vec![None, Some(id)],
    }
}

#[test]
fn a_struct_of_uuids_round_trips_as_serde_json() {
    let value = sample();
    encodes_as_serde_json(&value);
    let json = serde_json::to_string(&value).unwrap();
    assert!(json.contains(SAMPLE), "{json}");
    let back = oracle::agree::<Ids>(json.as_bytes()).unwrap();
    assert_eq!(back, value);
    let mut other = value.clone();
    other.parent = Some(Uuid::nil());
    other.owner = None;
    other.children.clear();
    encodes_as_serde_json(&other);
    assert_eq!(
        oracle::agree::<Ids>(serde_json::to_string(&other).unwrap().as_bytes()).unwrap(),
        other
    );
    encodes_as_serde_json(&vec![Some(Uuid::max()), None]);
    encodes_as_serde_json(&Uuid::nil());
}

#[test]
fn structs_of_uuids_stay_compiled() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<One<Uuid>>().unwrap();
    jitson::warm_up_encode::<One<Uuid>>().unwrap();
    jitson::warm_up::<Ids>().unwrap();
    jitson::warm_up_encode::<Ids>().unwrap();
    let interpreted = jitson::stats().interpreted_layouts;
    assert!(
        !interpreted.iter().any(|(ty, _)| ty.contains("Uuid")),
        "{interpreted:?}"
    );
    common::assert_compiled(&["One<uuid::Uuid>", "Ids"]);
}

/// Texts around every form `Uuid::parse_str` knows: the hyphenated form the
/// fast path reads, the simple, braced and URN forms uuid's parser reads,
/// and broken forms of each (wrong lengths, misplaced hyphens, non-hex and
/// non-ASCII characters, which uuid names by position).
const TEXTS: &[&str] = &[
    SAMPLE,
    "67E55044-10B1-426F-9247-BB680E5FE0C8",
    "67e55044-10B1-426f-9247-Bb680e5Fe0c8",
    "00000000-0000-0000-0000-000000000000",
    "ffffffff-ffff-ffff-ffff-ffffffffffff",
    "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
    "67e5504410b1426f9247bb680e5fe0c8",
    "67E5504410B1426F9247BB680E5FE0C8",
    "00000000000000000000000000000000",
    "{67e55044-10b1-426f-9247-bb680e5fe0c8}",
    "{00000000-0000-0000-0000-000000000000}",
    "{67e5504410b1426f9247bb680e5fe0c8}",
    "urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8",
    "URN:UUID:67E55044-10B1-426F-9247-BB680E5FE0C8",
    "Urn:Uuid:67e55044-10b1-426f-9247-bb680e5fe0c8",
    "urn:uuid:00000000-0000-0000-0000-000000000000",
    "urn:uuid:67e5504410b1426f9247bb680e5fe0c8",
    "urn:uuid:{67e55044-10b1-426f-9247-bb680e5fe0c8}",
    "urx:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8",
    "{67e55044-10b1-426f-9247-bb680e5fe0c8]",
    "[67e55044-10b1-426f-9247-bb680e5fe0c8}",
    "{67e55044-10b1-426f-9247-bb680e5fe0c}",
    "67e55044-10b1-426f-9247-bb680e5fe0c",
    "67e55044-10b1-426f-9247-bb680e5fe0c8a",
    "67e55044-10b1-426f-9247-bb680e5fe0c8-",
    "67e55044-10b1-426f-9247bb680e5fe0c8a",
    "67e55044-10b1-426f-92-47bb680e5fe0c8",
    "67e5504-410b1-426f-9247-bb680e5fe0c8",
    "67e55044-10b1-426f-9247-bb68-0e5fe0c",
    "67e55044_10b1_426f_9247_bb680e5fe0c8",
    "67e55044-10b1-426f-9247-bb680e5fe0cg",
    "g7e55044-10b1-426f-9247-bb680e5fe0c8",
    "67e55044-10b1-426f-9247-bb680e5fe0 8",
    " 67e55044-10b1-426f-9247-bb680e5fe0c8",
    "67e55044-10b1-426f-9247-bb680e5fe0c8 ",
    "67e55044-10b1-426f-9247-bb680e5fe0\u{e9}",
    "\u{e9}7e55044-10b1-426f-9247-bb680e5fe0c",
    "67e55044-10b1-426f-9247-bb680e5fe0\u{1f600}",
    "67e55044-10b1-426f-9247-bb680e5fe\u{ff10}",
    "67e55044-10b1-426f-9247-bb680e5fe0c\u{0}",
    "+7e55044-10b1-426f-9247-bb680e5fe0c8",
    "0x7e55044-10b1-426f-9247-bb680e5fe0c8",
    "67e5504410b1426f9247bb680e5fe0c",
    "67e5504410b1426f9247bb680e5fe0c8a",
    "67e5504410b1426f9247bb680e5fe0cg",
    "67e5504410b1426f9247bb680e5fe0-8",
    "------------------------------------",
    "-67e5504410b1426f9247bb680e5fe0c8-",
    "{}",
    "{",
    "urn:uuid:",
    "",
    "-",
    "0",
    "nil",
    "00000000-0000-0000-0000-00000000000000000000000000000000000000000000",
];

#[test]
fn texts_are_read_as_uuid_reads_them() {
    for text in TEXTS {
        reads_as_uuid(text);
        reads_as_uuid(&text.to_uppercase());
    }
}

#[test]
fn escaped_texts_and_other_json_types() {
    for json in [
        // The same texts behind escapes: the interpreter unescapes, then
        // parses as the fast path would.
        r#""67e55044\u002d10b1-426f-9247-bb680e5fe0c8""#,
        r#""\u0036\u0037e55044-10b1-426f-9247-bb680e5fe0c8""#,
        r#""{67e55044-10b1-426f-9247-bb680e5fe0c8\u007d""#,
        r#""67e55044-10b1-426f-9247-bb680e5fe0c\n""#,
        r#""67e55044-10b1-426f-9247-bb680e5fe0\ud83d\ude00""#,
        r#""67e55044-10b1-426f-9247-bb680e5fe0c\ud800""#,
        r#""67e55044-10b1-426f-9247-bb680e5fe0c\x""#,
        // serde_json's `deserialize_str` takes strings only: uuid's visitor
        // would read a byte sequence, but is never offered one.
        "[103,229,80,68,16,177,66,111,146,71,187,104,14,95,224,200]",
        "[]",
        "67",
        "-1.5",
        "null",
        "true",
        "{}",
        r#"{"t":1}"#,
        r#""67e55044-10b1-426f-9247-bb680e5fe0c8"#,
    ] {
        value_reads_as_uuid::<Uuid>(json);
        value_reads_as_uuid::<NonNilUuid>(json);
        value_reads_as_uuid::<Option<Uuid>>(json);
        value_reads_as_uuid::<Vec<Uuid>>(&format!("[{json}]"));
    }
    // Whole documents cut short or with raw bytes.
    for doc in [
        &b"{\"t\":\"67e55044-10b1-426f-9247-bb680e5fe0c8"[..],
        b"{\"t\":\"67e55044-10b1-426f-9247-bb680e5fe0c\xff\"}",
        b"{\"t\":\"67e55044-10b1-426f-9247-bb680e5fe0\xc3\xa9\"}",
        b"{\"t\":\"67e55044-10b1-426f-9247-bb680e5fe0c\x01\"}",
    ] {
        let ours = common::decode::<One<Uuid>>(doc);
        let theirs = serde_json::from_slice::<One<Uuid>>(doc);
        let _ = oracle::compare(doc, ours, theirs, |a, b| a == b);
    }
}

/// A UUID's text in one of the forms uuid's parser reads, each digit in
/// either case.
fn forms() -> impl Strategy<Value = String> {
    (any::<u128>(), 0..4usize, any::<u64>()).prop_map(|(n, form, case)| {
        let uuid = Uuid::from_u128(n);
        let text = match form {
            0 => uuid.hyphenated().to_string(),
            1 => uuid.simple().to_string(),
            2 => uuid.braced().to_string(),
            _ => uuid.urn().to_string(),
        };
        text.chars()
            .enumerate()
            .map(|(i, c)| {
                if case >> (i % 64) & 1 == 1 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect()
    })
}

proptest! {
    #[test]
    fn generated_values_agree_with_uuid(a in any::<u128>(), b in any::<u128>(), c in any::<u128>()) {
        let (a, b, c) = (Uuid::from_u128(a), Uuid::from_u128(b), Uuid::from_u128(c));
        let value = Ids {
            id: a,
            non_nil: NonNilUuid::new(b).unwrap_or(NonNilUuid::new(Uuid::max()).unwrap()),
            parent: Some(c),
            children: vec![a, b, c],
            owner: NonNilUuid::new(c),
            nested: vec![Some(b), None],
        };
        encodes_as_serde_json(&value);
        let json = serde_json::to_string(&value).unwrap();
        prop_assert_eq!(oracle::agree::<Ids>(json.as_bytes()).unwrap(), value);
    }

    #[test]
    fn generated_texts_agree_with_uuid(text in forms()) {
        reads_as_uuid(&text);
    }

    /// A valid text with one character changed, dropped or doubled.
    #[test]
    fn broken_texts_agree_with_uuid(
        text in forms(),
        at in any::<prop::sample::Index>(),
        with in prop::sample::select(vec!['-', 'g', 'G', '0', 'f', 'F', '{', '}', ':', ' ', '\u{e9}', '\u{1f600}', '\0']),
        how in 0..3usize,
    ) {
        let mut chars: Vec<char> = text.chars().collect();
        let i = at.index(chars.len());
        match how {
            0 => chars[i] = with,
            1 => { chars.remove(i); }
            _ => chars.insert(i, with),
        }
        reads_as_uuid(&chars.into_iter().collect::<String>());
    }

    #[test]
    fn arbitrary_texts_agree_with_uuid(text in "[0-9a-fA-FgG{}:urnURN -]{30,46}") {
        reads_as_uuid(&text);
    }
}

/// Maps keyed by other crates' types are written as serde_json writes them
/// (the key's text), and read back.
#[test]
fn maps_keyed_by_foreign_types_round_trip() {
    use std::collections::{BTreeMap, HashMap};
    #[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq)]
    struct Keyed {
        by_id: HashMap<Uuid, u8>,
        by_day: BTreeMap<chrono::NaiveDate, Vec<u8>>,
        by_instant: BTreeMap<chrono::DateTime<chrono::Utc>, bool>,
        by_link: BTreeMap<url::Url, u8>,
        by_amount: BTreeMap<rust_decimal::Decimal, u8>,
    }
    let value = Keyed {
        by_id: [(Uuid::parse_str(SAMPLE).unwrap(), 1)].into(),
        by_day: [(
            chrono::NaiveDate::from_ymd_opt(2024, 2, 29).unwrap(),
            vec![1, 2],
        )]
        .into(),
        by_instant: [(
            chrono::DateTime::from_timestamp(1, 5_000_000).unwrap(),
            true,
        )]
        .into(),
        by_link: [("https://example.com/a?b=\"c\"".parse().unwrap(), 3)].into(),
        by_amount: [("-0.50".parse().unwrap(), 4)].into(),
    };
    let compact = serde_json::to_string(&value).unwrap();
    let pretty = serde_json::to_string_pretty(&value).unwrap();
    for backend in backends() {
        let encoder = jitson::Encoder::<Keyed>::with_backend(backend);
        assert_eq!(
            String::from_utf8(encoder.encode(&value).unwrap()).unwrap(),
            compact
        );
        let encoder = encoder.pretty(true);
        assert_eq!(
            String::from_utf8(encoder.encode(&value).unwrap()).unwrap(),
            pretty
        );
    }
    assert_eq!(oracle::agree::<Keyed>(compact.as_bytes()).unwrap(), value);
}
