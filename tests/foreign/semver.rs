//! semver's types (feature `semver`), held to semver's own serde impl through
//! serde_json on every backend: generated and hostile texts are accepted and
//! refused alike (with semver's message), every accepted value is written
//! back as serde_json writes it (texts past the fast path's room included),
//! and structs of them stay compiled.

use crate::common;
use crate::{One, encodes_as_serde_json, reads_and_writes_as_serde_json};

use common::oracle;
use jitson::Backend;
use proptest::prelude::*;
use semver::{BuildMetadata, Comparator, Prerelease, Version, VersionReq};
use serde::{Deserialize, Serialize};

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Package {
    version: Version,
    req: VersionReq,
    comparator: Comparator,
    rust_version: Option<Version>,
    deps: Vec<VersionReq>,
    yanked: Vec<Option<Version>>,
}

/// As [`value_reads_as_semver`] for the JSON string holding `text`, as each
/// of the three types.
#[track_caller]
fn reads_as_semver(text: &str) {
    let json = serde_json::to_string(text).unwrap();
    reads_and_writes_as_serde_json::<Version>(&json);
    reads_and_writes_as_serde_json::<VersionReq>(&json);
    reads_and_writes_as_serde_json::<Comparator>(&json);
}

fn sample() -> Package {
    Package {
        version: Version::parse("1.2.3-alpha.1+build.5").unwrap(),
        req: VersionReq::parse(">=1.2, <2.0.0-0").unwrap(),
        comparator: Comparator::parse("~0.3").unwrap(),
        rust_version: Some(Version::new(1, 86, 0)),
        deps: vec![VersionReq::STAR, VersionReq::parse("=0.0.1").unwrap()],
        yanked: vec![None, Some(Version::new(u64::MAX, 0, u64::MAX))],
    }
}

#[test]
fn a_struct_of_versions_round_trips_as_serde_json() {
    let value = sample();
    encodes_as_serde_json(&value);
    let json = serde_json::to_string(&value).unwrap();
    assert_eq!(oracle::agree::<Package>(json.as_bytes()).unwrap(), value);
    let mut other = value.clone();
    other.rust_version = None;
    other.deps.clear();
    encodes_as_serde_json(&other);
    assert_eq!(
        oracle::agree::<Package>(serde_json::to_string(&other).unwrap().as_bytes()).unwrap(),
        other
    );
}

#[test]
fn structs_of_versions_stay_compiled() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<One<Version>>().unwrap();
    jitson::warm_up_encode::<One<Version>>().unwrap();
    jitson::warm_up::<Package>().unwrap();
    jitson::warm_up_encode::<Package>().unwrap();
    let interpreted = jitson::stats().interpreted_layouts;
    assert!(
        !interpreted.iter().any(|(ty, _)| ty.contains("semver")),
        "{interpreted:?}"
    );
    common::assert_compiled(&["One<semver::Version>", "Package"]);
}

/// Texts around semver's grammar: versions with and without pre-release and
/// build parts, requirements of every operator, wildcards and lists, and
/// broken forms of each (leading zeros, a `v`, missing parts, overflow,
/// empty identifiers, spaces, non-ASCII).
const TEXTS: &[&str] = &[
    "0.0.0",
    "1.2.3",
    "10.20.30",
    "1.2.3-alpha",
    "1.2.3-alpha.1",
    "1.2.3-0.3.7",
    "1.2.3-x.7.z.92",
    "1.2.3-alpha+001",
    "1.2.3+20130313144700",
    "1.2.3-beta+exp.sha.5114f85",
    "1.0.0-alpha-a.b-c-somethinglong+build.1-aef.1-its-okay",
    "18446744073709551615.18446744073709551615.18446744073709551615",
    "18446744073709551616.0.0",
    "01.2.3",
    "1.02.3",
    "1.2.03",
    "1.2.3-01",
    "1.2.3-alpha..1",
    "1.2.3-",
    "1.2.3+",
    "1.2.3+a..b",
    "v1.2.3",
    "1.2",
    "1",
    "1.2.3.4",
    " 1.2.3",
    "1.2.3 ",
    "1.2.3-\u{e9}",
    "1.2.3-a b",
    "",
    "*",
    "^1.2.3",
    "~1.2",
    "=1.2.3",
    ">1",
    ">=1.2.3, <2",
    ">= 1.2.3,<2",
    "1.*",
    "1.2.*",
    "1.x",
    "1.2.X",
    "^0.0.1-alpha",
    "<1.2.3-beta.4",
    ">=1.0.0, <2.0.0, !=1.5.0",
    "1.2.3 || 2.0.0",
    "^",
    ">=",
    ",",
    "1.2.3,",
    ">=1,",
    "*, *",
    "^1, ^2, ^3, ^4, ^5, ^6, ^7, ^8, ^9, ^10, ^11, ^12, ^13, ^14, ^15, ^16, ^17, ^18, ^19, ^20, ^21, ^22, ^23, ^24, ^25, ^26, ^27, ^28, ^29, ^30, ^31, ^32, ^33",
    "1.2.3-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "1.2.3+bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
];

#[test]
fn texts_are_read_as_semver_reads_them() {
    for text in TEXTS {
        reads_as_semver(text);
    }
}

#[test]
fn escaped_texts_and_other_json_types() {
    for json in [
        r#""1.2\u002e3""#,
        r#""\u0031.2.3-\u0061lpha""#,
        r#""^1.2\n""#,
        r#""1.2.3-\ud83d\ude00""#,
        "[1,2,3]",
        "123",
        "1.5",
        "null",
        "true",
        "{}",
        r#"{"major":1,"minor":2,"patch":3}"#,
        r#""1.2.3"#,
    ] {
        reads_and_writes_as_serde_json::<Version>(json);
        reads_and_writes_as_serde_json::<VersionReq>(json);
        reads_and_writes_as_serde_json::<Comparator>(json);
        reads_and_writes_as_serde_json::<Option<Version>>(json);
        reads_and_writes_as_serde_json::<Vec<VersionReq>>(&format!("[{json}]"));
    }
}

/// A dot-separated list of one to four identifiers of the characters semver
/// allows (numeric ones possibly with leading zeros, which it refuses in a
/// pre-release).
fn identifiers() -> impl Strategy<Value = String> {
    prop::collection::vec("[0-9A-Za-z-]{1,6}", 1..4).prop_map(|parts| parts.join("."))
}

/// A version's text: three numbers, then maybe a pre-release and a build.
fn versions() -> impl Strategy<Value = String> {
    (
        any::<u64>(),
        0..1000u64,
        prop_oneof![Just(0u64), any::<u64>()],
        prop::option::of(identifiers()),
        prop::option::of(identifiers()),
    )
        .prop_map(|(major, minor, patch, pre, build)| {
            let mut text = format!("{major}.{minor}.{patch}");
            if let Some(pre) = pre {
                text += &format!("-{pre}");
            }
            if let Some(build) = build {
                text += &format!("+{build}");
            }
            text
        })
}

/// A requirement's text: one to three comparators with operators and
/// wildcards, joined by commas with or without spaces.
fn requirements() -> impl Strategy<Value = String> {
    let comparator = (
        prop::sample::select(vec!["", "^", "~", "=", ">", ">=", "<", "<=", "~>"]),
        0..30u64,
        prop::option::of(prop_oneof![
            Just("*".to_owned()),
            (0..30u64).prop_map(|n| n.to_string())
        ]),
        prop::option::of(prop_oneof![
            Just("*".to_owned()),
            (0..30u64).prop_map(|n| n.to_string())
        ]),
    )
        .prop_map(|(op, major, minor, patch)| {
            let mut text = format!("{op}{major}");
            if let Some(minor) = minor {
                text += &format!(".{minor}");
                if let Some(patch) = patch {
                    text += &format!(".{patch}");
                }
            }
            text
        });
    (
        prop::collection::vec(comparator, 1..4),
        prop::sample::select(vec![",", ", ", " ,", " , "]),
    )
        .prop_map(|(parts, sep)| parts.join(sep))
}

proptest! {
    #[test]
    fn generated_versions_agree_with_semver(text in versions()) {
        reads_as_semver(&text);
    }

    #[test]
    fn generated_requirements_agree_with_semver(text in requirements()) {
        reads_as_semver(&text);
    }

    /// A valid text with one character changed, dropped or doubled.
    #[test]
    fn broken_texts_agree_with_semver(
        text in prop_oneof![versions(), requirements()],
        at in any::<prop::sample::Index>(),
        with in prop::sample::select(vec!['.', '-', '+', '0', '9', 'a', '*', ',', ' ', '^', '\u{e9}', '\0']),
        how in 0..3usize,
    ) {
        let mut chars: Vec<char> = text.chars().collect();
        let i = at.index(chars.len());
        match how {
            0 => chars[i] = with,
            1 => { chars.remove(i); }
            _ => chars.insert(i, with),
        }
        reads_as_semver(&chars.into_iter().collect::<String>());
    }

    #[test]
    fn generated_values_round_trip(
        major in any::<u64>(),
        minor in any::<u64>(),
        patch in any::<u64>(),
        pre in prop::option::of(identifiers()),
        build in prop::option::of(identifiers()),
    ) {
        let pre = pre.and_then(|p| Prerelease::new(&p).ok()).unwrap_or(Prerelease::EMPTY);
        let build = build.and_then(|b| BuildMetadata::new(&b).ok()).unwrap_or(BuildMetadata::EMPTY);
        let version = Version { major, minor, patch, pre, build };
        let mut value = sample();
        value.version = version.clone();
        value.yanked.push(Some(version));
        encodes_as_serde_json(&value);
        let json = serde_json::to_string(&value).unwrap();
        prop_assert_eq!(oracle::agree::<Package>(json.as_bytes()).unwrap(), value);
    }
}
