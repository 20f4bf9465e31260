//! Hostile tests of skipping: an ignored value (an `IgnoredAny` field or
//! element, an unknown member of a struct, a struct's skipped member) that is
//! a string or a number, in every form around the JIT's in-line string scan
//! and `ignore_value`'s direct number and string skips: whitespace before it,
//! input ending at every byte, strings of 0 to 64 bytes with an odd byte at
//! each end, non-ASCII cut at the end of the input, invalid UTF-8, control
//! bytes, and malformed numbers. Every backend, tiering and entry point must
//! agree (value, or error kind, offset, line, column and path), and accept
//! exactly what serde_json accepts where docs/semantics.md says they agree.

mod common;

use std::collections::BTreeMap;
use std::fmt::Debug;

use jitson::{Decode, IgnoredAny};
use serde::Deserialize;

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Around {
    a: u8,
    ig: IgnoredAny,
    z: u8,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Known {
    a: u8,
    z: u8,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct WithSkipped {
    a: u8,
    #[serde(skip)]
    #[jitson(skip)]
    skipped: u32,
    z: u8,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Outer {
    list: Vec<Known>,
    ig: Option<IgnoredAny>,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct OnlyIgnored {
    ig: IgnoredAny,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "t")]
enum Tagged {
    A { a: u8, z: u8 },
    B { ig: IgnoredAny },
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum Untagged {
    K { a: u8, z: u8 },
    N(u64),
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
enum External {
    V(IgnoredAny),
    W { ig: IgnoredAny, z: u8 },
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Newtype(IgnoredAny);

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Nested {
    n: Newtype,
    arr: [IgnoredAny; 2],
    boxed: Box<IgnoredAny>,
}

/// One run's result, comparable across backends and builds.
fn shown<T: Debug>(r: &Result<T, jitson::Error>) -> String {
    match r {
        Ok(v) => format!("ok {v:?}"),
        Err(e) => format!("err {:?}", common::shape(e)),
    }
}

/// Decodes `json` on every configuration (and `decode_str` where it is
/// UTF-8); returns the one answer, or a description of the disagreement.
fn agree<T: Decode + PartialEq + Debug>(json: &[u8]) -> Result<Result<T, jitson::Error>, String> {
    let mut first: Option<(String, Result<T, jitson::Error>)> = None;
    for c in common::configs() {
        let d = common::decoder::<T>(c);
        let mut runs = vec![(format!("{c:?}/slice"), d.decode_slice(json))];
        if let Ok(text) = std::str::from_utf8(json) {
            runs.push((format!("{c:?}/str"), d.decode_str(text)));
        }
        for (name, r) in runs {
            match &first {
                None => first = Some((name, r)),
                Some((n0, r0)) => {
                    let same = match (r0, &r) {
                        (Ok(a), Ok(b)) => a == b,
                        (Err(a), Err(b)) => common::shape(a) == common::shape(b),
                        _ => false,
                    };
                    if !same {
                        return Err(format!(
                            "{:?}: {n0} {} but {name} {}",
                            String::from_utf8_lossy(json),
                            shown(r0),
                            shown(&r)
                        ));
                    }
                }
            }
        }
    }
    Ok(first.expect("a configuration").1)
}

/// Whether serde_json is expected to agree on acceptance: the skipped text
/// is UTF-8 without lone surrogates (semantics.md, deliberate difference 1).
fn serde_comparable(json: &[u8]) -> bool {
    std::str::from_utf8(json).is_ok() && !json.windows(3).any(|w| w == b"\\ud" || w == b"\\uD")
}

/// Runs `json` as `T` on every configuration, and against serde_json where
/// they agree; pushes any difference to `failures`, and the answer to `log`.
fn check<T>(json: &[u8], failures: &mut Vec<String>, log: &mut Vec<String>)
where
    T: Decode + PartialEq + Debug + serde::de::DeserializeOwned,
{
    let name = std::any::type_name::<T>()
        .rsplit("::")
        .next()
        .unwrap()
        .to_owned();
    match agree::<T>(json) {
        Err(e) => failures.push(format!("{name}: {e}")),
        Ok(got) => {
            log.push(format!(
                "{name} {:?} -> {}",
                String::from_utf8_lossy(json),
                shown(&got)
            ));
            if serde_comparable(json) {
                let expected = serde_json::from_slice::<T>(json);
                match (&got, &expected) {
                    (Ok(a), Ok(b)) if a == b => {}
                    (Err(_), Err(_)) => {}
                    _ => failures.push(format!(
                        "{name}: {:?}: jitson {} but serde_json {:?}",
                        String::from_utf8_lossy(json),
                        shown(&got),
                        expected
                    )),
                }
            }
        }
    }
}

/// The skipped values: strings of 0..64 bytes with an odd piece at their
/// start, middle or end, and numbers valid and not.
fn skipped_values() -> Vec<Vec<u8>> {
    let mut values: Vec<Vec<u8>> = Vec::new();
    let odds: [&[u8]; 18] = [
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
        b"\n",
        b"\t",
        b"\0",
        b"\\",
        b"\xc3\xa9",
        b"\xe2\x82\xac",
        b"\xf0\x9f\x98\x80",
        b"\\n",
        b"\\u00e9",
        b"\\ud800",
        b"\xff",
        b"\x01",
        b"\x1f",
        b"\x7f",
        b"\xe2\x82",
        b"\xc0\xaf",
    ];
    for len in 0..=64 {
        let plain = vec![b'x'; len];
        values.push([&b"\""[..], &plain, b"\""].concat());
        for &at in &[0, len / 2, len] {
            for odd in odds {
                let mut text = plain.clone();
                text.splice(at..at, odd.iter().copied());
                values.push([&b"\""[..], &text, b"\""].concat());
            }
        }
    }
    for n in [
        "0",
        "-0",
        "1",
        "-",
        "01",
        "-01",
        "00",
        "1.",
        "1.e5",
        ".5",
        "1e",
        "1e+",
        "1E-",
        "-0.0e-0",
        "1e400",
        "-1e400",
        "1e-400",
        "1e999999999999999999999",
        "123456789012345678901234567890",
        "0.000000000000000000000000000001",
        "1.5e308",
        "-",
        "--1",
        "+1",
        "0x1",
        "1e5.5",
        "2.",
        "0e",
        "0.e1",
        "9",
        "-9.9",
        "1E+2",
        "-0e-0",
        "1_0",
        "NaN",
        "Infinity",
        "-Infinity",
        "tru",
        "nul",
        "true",
        "null",
        "[]",
        "{}",
        "[\"x\"]",
        // Around the JIT's in-line skip: 19 digits before or after the point
        // are skipped there, 20 go to `ignore_value`, as does an exponent.
        "1234567890123456789",
        "-1234567890123456789",
        "12345678901234567890",
        "1.1234567890123456789",
        "-9999999999999999999.9999999999999999999",
        "1.12345678901234567890",
        "12345678.5e",
        "12345678.5E-3",
        "-12.5",
        "7.0000000",
        "false",
        "fals",
        "nulx",
        "t",
    ] {
        values.push(n.as_bytes().to_vec());
    }
    values
}

/// Each value as the ignored member of each shape, with whitespace before
/// it, whole and cut at every byte.
#[test]
fn skipped_strings_and_numbers_in_every_position() {
    let mut failures = Vec::new();
    let mut log = Vec::new();
    let values = skipped_values();
    for (i, value) in values.iter().enumerate() {
        let ws: &[u8] = [&b""[..], b" ", b"\n\t ", b"                    \n"][i % 4];
        // An IgnoredAny member, an unknown member, a skipped member's key.
        let mut docs: Vec<(u8, Vec<u8>)> = Vec::new();
        for (kind, key) in [(0u8, &b"ig"[..]), (1, b"unknown"), (2, b"skipped")] {
            let head = [&b"{\"a\": 1, \""[..], key, b"\":", ws].concat();
            let whole = [&head[..], value, b", \"z\": 2}"].concat();
            docs.push((kind, whole.clone()));
            // Cut at every byte from the head on (the value's end included).
            for cut in head.len() - ws.len()..=head.len() + value.len() {
                docs.push((kind, whole[..cut].to_vec()));
            }
            // The value last in the object, and the object's end.
            docs.push((
                kind,
                [
                    &b"{\"z\": 2, \"a\": 1, \""[..],
                    key,
                    b"\":",
                    ws,
                    value,
                    b"}",
                ]
                .concat(),
            ));
            docs.push((
                kind,
                [&b"{\"z\": 2, \"a\": 1, \""[..], key, b"\":", ws, value].concat(),
            ));
            // Whatever may (not) follow the value.
            for next in [
                &b" \"z\": 2}"[..],
                b",}",
                b"]",
                b":",
                b"\n,\n\"z\"\n:\n2\n}\n",
                b"\"\"",
                b", \"z\": 2} x",
                b", \"z\": 2, \"a\": 3}",
            ] {
                docs.push((kind, [&head[..], value, next].concat()));
            }
        }
        for (kind, doc) in &docs {
            match kind {
                0 => check::<Around>(doc, &mut failures, &mut log),
                1 => {
                    check::<Known>(doc, &mut failures, &mut log);
                    let list = [&b"{\"list\": ["[..], doc, b"], \"ig\": 0}"].concat();
                    check::<Outer>(&list, &mut failures, &mut log);
                    check::<Untagged>(doc, &mut failures, &mut log);
                }
                _ => check::<WithSkipped>(doc, &mut failures, &mut log),
            }
        }
        // Top level and elements.
        let top = [ws, value].concat();
        check::<IgnoredAny>(&top, &mut failures, &mut log);
        check::<Vec<IgnoredAny>>(
            &[&b"["[..], ws, value, b",", value, b"]"].concat(),
            &mut failures,
            &mut log,
        );
        check::<(IgnoredAny, u8)>(
            &[&b"["[..], ws, value, b", 3]"].concat(),
            &mut failures,
            &mut log,
        );
        check::<BTreeMap<String, IgnoredAny>>(
            &[&b"{\"k\":"[..], ws, value, b"}"].concat(),
            &mut failures,
            &mut log,
        );
        check::<OnlyIgnored>(
            &[&b"{\"ig\":"[..], ws, value].concat(),
            &mut failures,
            &mut log,
        );
        check::<External>(
            &[&b"{\"V\":"[..], ws, value, b"}"].concat(),
            &mut failures,
            &mut log,
        );
        check::<External>(
            &[&b"{\"W\": {\"ig\":"[..], ws, value, b", \"z\": 1}}"].concat(),
            &mut failures,
            &mut log,
        );
        check::<Nested>(
            &[
                &b"{\"n\":"[..],
                ws,
                value,
                b", \"arr\": [",
                value,
                b",",
                ws,
                value,
                b"], \"boxed\":",
                value,
                b"}",
            ]
            .concat(),
            &mut failures,
            &mut log,
        );
        check::<Tagged>(
            &[&b"{\"t\": \"B\", \"ig\":"[..], ws, value, b"}"].concat(),
            &mut failures,
            &mut log,
        );
        check::<Tagged>(
            &[&b"{\"ig\":"[..], ws, value, b", \"t\": \"B\"}"].concat(),
            &mut failures,
            &mut log,
        );
        check::<Tagged>(
            &[
                &b"{\"a\": 1, \"x\":"[..],
                ws,
                value,
                b", \"z\": 2, \"t\": \"A\"}",
            ]
            .concat(),
            &mut failures,
            &mut log,
        );
    }
    common::assert_compiled(&[
        "Around",
        "Known",
        "WithSkipped",
        "Outer",
        "OnlyIgnored",
        "Nested",
        "Newtype",
        "External",
        "Tagged",
    ]);
    if let Some(path) = std::env::var_os("SKIP_HOSTILE_LOG") {
        std::fs::write(path, log.join("\n")).unwrap();
    }
    for f in failures.iter().take(20) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}

/// Non-ASCII cut at the end of the input, in a string the JIT scans 8 or 16
/// bytes at a time: the input is a prefix of a longer buffer whose next
/// bytes would close the string, so a scan that read past the end would
/// accept it.
#[test]
fn strings_ending_at_the_end_of_a_longer_buffer() {
    let mut failures = Vec::new();
    let mut log = Vec::new();
    for len in 0..=48 {
        for tail in [&b""[..], b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80"] {
            let text = [&vec![b'y'; len][..], tail].concat();
            let buffer = [&b"{\"a\": 1, \"ig\": \""[..], &text, b"\", \"z\": 2}"].concat();
            let end = 16 + text.len();
            for cut in end.saturating_sub(4)..=end + 1 {
                let prefix = &buffer[..cut];
                check::<Around>(prefix, &mut failures, &mut log);
                check::<Known>(
                    &[&b"{\"a\": 1, \"zz\": \""[..], &text, b"\", \"z\": 2}"].concat()[..cut],
                    &mut failures,
                    &mut log,
                );
                // decode_str of a prefix of a longer String (in memory, the
                // rest of the document follows).
                if let Ok(whole) = std::str::from_utf8(&buffer)
                    && whole.is_char_boundary(cut)
                {
                    for c in common::configs() {
                        let d = common::decoder::<Around>(c);
                        if let Ok(v) = d.decode_str(&whole[..cut]) {
                            failures.push(format!("{c:?}: prefix {:?} gave {v:?}", &whole[..cut]));
                        }
                    }
                }
            }
        }
    }
    for f in failures.iter().take(20) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}

/// Random bytes of the interesting kinds as an ignored value (after `"` or
/// a digit or `-`), closed or not: every configuration agrees, and accepts
/// what serde_json accepts.
#[test]
fn random_ignored_values() {
    let alphabet: &[&[u8]] = &[
        b"x",
        b"x",
        b"x",
        b"xxxxxxx",
        b"\"",
        b"\\",
        b"u",
        b"0",
        b"e",
        b"9",
        b"-",
        b".",
        b"+",
        b"\xc3",
        b"\xa9",
        b"\xff",
        b"\x01",
        b"\n",
        b" ",
        b"{",
        b"}",
        b"[",
        b"]",
        b":",
        b",",
        b"\\u00e9",
        b"\\n",
        b"\xe2\x82\xac",
    ];
    let mut state = 0x1234_5678_9abc_def1u64;
    let mut next = move |n: usize| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    };
    let mut failures = Vec::new();
    let mut log = Vec::new();
    for _ in 0..3000 {
        let mut value: Vec<u8> = match next(3) {
            0 => b"-".to_vec(),
            1 => b"1".to_vec(),
            _ => b"\"".to_vec(),
        };
        for _ in 0..next(24) {
            value.extend_from_slice(alphabet[next(alphabet.len())]);
        }
        if next(2) == 0 {
            value.push(b'"');
        }
        let doc = [&b"{\"a\": 1, \"ig\": "[..], &value, b", \"z\": 2}"].concat();
        check::<Around>(&doc, &mut failures, &mut log);
        check::<Known>(&doc, &mut failures, &mut log);
        let end = [&b"{\"a\": 1, \"z\": 2, \"ig\": "[..], &value].concat();
        check::<Around>(&end, &mut failures, &mut log);
    }
    for f in failures.iter().take(20) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}

/// A stream read in pieces whose first refill (64 KiB) ends at every byte of
/// a record with an ignored string (plain, non-ASCII at its end, invalid
/// UTF-8, cut escapes) or number: the values and errors are those of the
/// stream decoded from one slice, on every configuration.
#[test]
fn streams_cut_inside_ignored_values() {
    type Item = Result<(u8, u8), String>;
    let mut failures = Vec::new();
    for value in [
        &b"\"xxxxxxxxxxxxxxxxxxx\xc3\xa9\""[..],
        b"\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\\u00e9\"",
        b"\"xxxxxxx\xe2\x82\"",
        b"\"xxxxxxxxxxxxxxxxx\xff\"",
        b"-12345.678e-9",
        b"-12345.",
    ] {
        let doc = [&b"{\"a\": 1, \"ig\": "[..], value, b", \"z\": 2}\n"].concat();
        for at in 0..doc.len() {
            // Spaces, then two records, the first refill ending `at` bytes
            // into the first.
            let pad = 64 * 1024 - at;
            let input = [&vec![b' '; pad][..], &doc, &doc].concat();
            for c in common::configs() {
                let d = common::decoder::<Around>(c);
                let whole: Vec<Item> = d
                    .values(&input)
                    .map(|r| {
                        r.map(|(_, v)| (v.a, v.z))
                            .map_err(|e| format!("{:?}", common::shape(&e)))
                    })
                    .collect();
                let read: Vec<Item> = d
                    .values_from_reader(std::io::BufReader::with_capacity(1, &input[..]))
                    .map(|r| {
                        r.map(|(_, v)| (v.a, v.z))
                            .map_err(|e| format!("{:?}", common::shape(&e)))
                    })
                    .collect();
                if whole.is_empty() || whole != read {
                    failures.push(format!(
                        "{c:?} {:?} at {at}: slice {whole:?}, reader {read:?}",
                        String::from_utf8_lossy(value)
                    ));
                }
            }
        }
    }
    for f in failures.iter().take(20) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}
