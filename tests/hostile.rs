//! Hostile input, through every backend (see `common::decode`): extreme nesting,
//! huge values, every byte value, extreme numbers, invalid UTF-8 everywhere,
//! truncation everywhere.
//! Nothing may panic, overflow the stack, leak, or disagree between backends.

mod common;

#[path = "../examples/models/seed.rs"]
mod seed;

use std::collections::HashMap;
use std::fmt::Debug;

use common::{err, ok};
use jitson::{Decode, ErrorKind, IgnoredAny, RawValue};

/// `n`, or a thousandth of it under Miri (scripts/miri.sh), which runs about a
/// thousand times slower: the sizes here are about time, and a thousandth still
/// exceeds the buffer sizes involved. Numbers keep their 10,000 digits (cheap, and
/// the point is being beyond f64), and nesting stays past the depth limit (128).
const fn scaled(n: usize) -> usize {
    if cfg!(miri) { n / 1000 } else { n }
}

const DEEP: usize = if cfg!(miri) { 1_000 } else { 100_000 };
const MB: usize = scaled(1 << 20);

#[derive(Decode, Debug, PartialEq)]
struct Small {
    a: u8,
}

#[derive(Decode, Debug, PartialEq)]
struct Node {
    children: Vec<Node>,
    next: Option<Box<Node>>,
}

#[test]
fn deep_nesting_is_skipped_or_limited() {
    let deep_array = format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP));
    let deep_object = format!("{}1{}", "{\"k\":".repeat(DEEP), "}".repeat(DEEP));
    for deep in [&deep_array, &deep_object] {
        // Inside an unknown field: skipped, like serde_json.
        assert_eq!(
            ok::<Small>(&format!("{{\"x\": {deep}, \"a\": 1}}")),
            Small { a: 1 }
        );
        assert!(ok::<RawValue>(deep).get().len() == deep.len());
        assert_eq!(ok::<IgnoredAny>(deep), IgnoredAny);
    }
    // Inside a decoded recursive type: the depth limit, not a stack overflow.
    let nested = format!("{}{}", "{\"children\": [".repeat(DEEP), "]}".repeat(DEEP));
    assert_eq!(err::<Node>(nested.as_bytes()).kind(), ErrorKind::DepthLimit);
    let boxed = format!(
        "{}null{}",
        "{\"children\": [], \"next\": ".repeat(DEEP),
        "}".repeat(DEEP)
    );
    assert_eq!(err::<Node>(boxed.as_bytes()).kind(), ErrorKind::DepthLimit);
    let vecs = format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP));
    // A type only four levels deep rejects the fifth as a type error, at once.
    assert_eq!(
        err::<Vec<Vec<Vec<Vec<u8>>>>>(vecs.as_bytes()).kind(),
        ErrorKind::InvalidType
    );
}

#[test]
fn huge_values() {
    let big = "x".repeat(16 * MB);
    assert_eq!(ok::<String>(&format!("\"{big}\"")).len(), big.len());
    let escaped = "\\n".repeat(4 * MB);
    assert_eq!(ok::<String>(&format!("\"{escaped}\"")).len(), 4 * MB);
    let n = scaled(1_000_000);
    let array = format!("[{}0]", "1,".repeat(n));
    let v: Vec<u8> = ok(&array);
    assert_eq!(v.len(), n + 1);
    let whitespace = format!(
        "{}{{\"a\": 7}}{}",
        " \n\t\r".repeat(2 * MB),
        " ".repeat(2 * MB)
    );
    assert_eq!(ok::<Small>(&whitespace), Small { a: 7 });
    assert_eq!(
        err::<Small>(" ".repeat(10 * MB).as_bytes()).offset(),
        10 * MB
    );
}

#[test]
fn every_byte_in_strings_and_keys() {
    for b in 0u8..=255 {
        let raw = [b'"', b, b'"'];
        let ours = common::decode::<String>(&raw);
        let theirs = serde_json::from_slice::<String>(&raw);
        assert_eq!(ours.is_ok(), theirs.is_ok(), "byte {b:#04x}");
        if let (Ok(a), Ok(c)) = (&ours, &theirs) {
            assert_eq!(a, c);
        }
        let key = [&b"{\""[..], &[b], &b"\": 1}"[..]].concat();
        let ours = common::decode::<HashMap<String, u8>>(&key);
        let theirs = serde_json::from_slice::<HashMap<String, u8>>(&key);
        assert_eq!(ours.is_ok(), theirs.is_ok(), "key byte {b:#04x}");
        // As an unknown field's key, it is validated too.
        let unknown = [&b"{\"a\": 1, \"k"[..], &[b], &b"\": 1}"[..]].concat();
        let ours = common::decode::<Small>(&unknown);
        assert_eq!(
            ours.is_ok(),
            b >= 0x20 && b != b'"' && b != b'\\' && b < 0x80,
            "unknown key byte {b:#04x}"
        );
        // After a backslash.
        let escape = [b'"', b'\\', b, b'"'];
        assert_eq!(
            common::decode::<String>(&escape).is_ok(),
            serde_json::from_slice::<String>(&escape).is_ok(),
            "escape {b:#04x}"
        );
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "10,000-digit numbers through fast-float2's big-integer path take hours under Miri; native runs and scripts/valgrind.sh cover them"
)]
fn extreme_numbers() {
    let digits = "7".repeat(10_000);
    assert_eq!(
        err::<f64>(digits.as_bytes()).kind(),
        ErrorKind::NumberOutOfRange
    );
    assert_eq!(ok::<f64>(&format!("0.{digits}")), 0.777_777_777_777_777_8);
    // Too big for any integer, so a float for serde_json, and an infinite one.
    assert_eq!(
        err::<u64>(digits.as_bytes()).kind(),
        ErrorKind::NumberOutOfRange
    );
    assert_eq!(ok::<f64>("1e-1000000000"), 0.0);
    assert_eq!(
        err::<f64>(b"1e1000000000").kind(),
        ErrorKind::NumberOutOfRange
    );
    assert_eq!(ok::<f64>("0e1000000000"), 0.0);
    assert!(ok::<f64>("-0").is_sign_negative());
    assert_eq!(err::<i64>(b"-0").kind(), ErrorKind::InvalidType);
    assert_eq!(err::<f64>(b"1e400").kind(), ErrorKind::NumberOutOfRange);
    assert_eq!(err::<f32>(b"1e39").kind(), ErrorKind::NumberOutOfRange);
    assert!(ok::<f64>("-1e-400").is_sign_negative());
    assert_eq!(
        ok::<IgnoredAny>(&format!("[{digits}e{digits}]")),
        IgnoredAny
    );
}

#[test]
fn invalid_utf8_at_every_position() {
    let doc = br#"{"a": 1, "s": ["x\u00e9y", "z"], "t": "q"}"#;
    for at in 0..doc.len() {
        for bad in [0x80u8, 0xc3, 0xff, 0xed] {
            let mut d = doc.to_vec();
            d[at] = bad;
            let result = common::decode::<HashMap<String, IgnoredAny>>(&d);
            assert!(result.is_err(), "byte {bad:#04x} at {at} accepted");
        }
    }
}

/// A string of every length up to 40 bytes as a field, an element and a map
/// key, with one byte made non-ASCII at every position: an invalid byte is
/// refused at its offset, a valid two-byte character is kept. The JIT scans
/// sixteen bytes at a time, then eight, then one, and each step notes
/// non-ASCII bytes its own way before the one UTF-8 check.
#[test]
fn non_ascii_at_every_position_of_every_string_length() {
    #[derive(Decode, Debug, PartialEq)]
    struct Texts {
        s: String,
        v: Vec<String>,
        m: HashMap<String, u8>,
    }
    let ascii = "abcdefghijklmnopqrstuvwxyz0123456789ABCD";
    for len in 1..=ascii.len() {
        for at in 0..len {
            let mut text = ascii.as_bytes()[..len].to_vec();
            // `é` in place of one letter: valid, and kept as it is.
            text.splice(at..=at, "é".bytes());
            let valid = String::from_utf8(text.clone()).expect("UTF-8");
            let doc = format!(r#"{{"s": "{valid}", "v": ["{valid}"], "m": {{"{valid}": 1}}}}"#);
            let texts = ok::<Texts>(&doc);
            assert_eq!((&texts.s, &texts.v[..]), (&valid, &[valid.clone()][..]));
            assert_eq!(texts.m.get(&valid), Some(&1));
            // A lone continuation byte in place of the letter: refused where it is.
            for field in 0..3 {
                let mut bad = doc.clone().into_bytes();
                let start = bad
                    .windows(valid.len())
                    .enumerate()
                    .filter(|(_, w)| *w == valid.as_bytes())
                    .nth(field)
                    .expect("three copies")
                    .0;
                bad.splice(start + at..start + at + 2, [0x80]);
                let e = err::<Texts>(&bad);
                assert_eq!(
                    (e.kind(), e.offset()),
                    (ErrorKind::InvalidUtf8, start + at),
                    "len {len} at {at}: {e}"
                );
            }
        }
    }
}

/// Every strict prefix of `doc` (whose root is an object or array, so no prefix
/// is itself a document) fails as the end of input, at the prefix's length.
fn every_prefix_ends_early<T: jitson::Decode + PartialEq + Debug>(name: &str, doc: &[u8]) {
    let end = doc
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    for cut in 0..=end {
        let e = err::<T>(&doc[..cut]);
        assert_eq!(
            (e.kind(), e.offset()),
            (ErrorKind::UnexpectedEnd, cut),
            "{name} cut at {cut}: {e}"
        );
    }
}

#[test]
fn truncation_at_every_offset_is_unexpected_end() {
    let mut rng = seed::Rng::new(5);
    for i in 0..3 {
        let user = serde_json::to_vec_pretty(&seed::User::generate(&mut rng, i)).unwrap();
        every_prefix_ends_early::<seed::User>("user", &user);
        let order = serde_json::to_vec(&seed::Order::generate(&mut rng, i)).unwrap();
        every_prefix_ends_early::<seed::Order>("order", &order);
        let account = serde_json::to_vec(&seed::Account::generate(&mut rng, i)).unwrap();
        every_prefix_ends_early::<seed::Account>("account", &account);
        every_prefix_ends_early::<RawValue>("account", &account);
    }
    // Every accepted JSONTestSuite document with an object or array root.
    let Some(dir) = common::corpus_dir("jsontestsuite/test_parsing") else {
        return;
    };
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let doc = std::fs::read(&path).unwrap();
        let root = doc.iter().find(|b| !b.is_ascii_whitespace());
        if name.starts_with("y_") && matches!(root, Some(b'[' | b'{')) {
            every_prefix_ends_early::<RawValue>(&name, &doc);
            every_prefix_ends_early::<IgnoredAny>(&name, &doc);
            checked += 1;
        }
    }
    assert!(checked > 80, "only {checked} documents");
}

/// 4 KiB held inline at every level, which a decode builds on the stack.
#[derive(Debug, PartialEq)]
struct Pad([u8; 4096]);

impl Default for Pad {
    fn default() -> Self {
        Pad([0; 4096])
    }
}

#[derive(Decode, Debug, PartialEq)]
struct FatNode {
    #[jitson(skip)]
    pad: Pad,
    #[jitson(default)]
    m: HashMap<String, FatNode>,
}

/// A list whose links go through two `Option<Box<…>>` hops per level.
#[derive(Decode, Debug, PartialEq)]
struct Link {
    next: Option<Box<Option<Box<Link>>>>,
}

fn fat_nodes(depth: usize) -> String {
    format!(
        "{}{{}}{}",
        r#"{"m": {"k": "#.repeat(depth),
        "}}".repeat(depth)
    )
}

fn links(depth: usize) -> String {
    format!("{}null{}", r#"{"next": "#.repeat(depth), "}".repeat(depth))
}

/// Decodes `doc` on a fresh thread with a 2 MiB stack (a spawned thread's
/// default) and the largest depth limit; `Ok(())` or the error's kind.
fn on_small_stack<T: Decode + Send + 'static>(
    backend: jitson::Backend,
    doc: String,
) -> Result<(), ErrorKind> {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let result = jitson::Decoder::<T>::with_backend(backend)
                .max_depth(jitson::MAX_DEPTH_LIMIT)
                .decode_str(&doc);
            // Drop the value here, on the small stack too.
            result.map(drop).map_err(|e| e.kind())
        })
        .unwrap()
        .join()
        .expect("no panic")
}

/// The deepest document (up to `max`) that decodes on a 2 MiB stack.
fn deepest<T: Decode + Send + 'static>(
    backend: jitson::Backend,
    make: fn(usize) -> String,
    max: usize,
) -> usize {
    let (mut good, mut bad) = (0, max + 1);
    while bad - good > 1 {
        let mid = (good + bad) / 2;
        match on_small_stack::<T>(backend, make(mid)) {
            Ok(()) => good = mid,
            Err(kind) => {
                assert_eq!(kind, ErrorKind::DepthLimit, "{} at {mid}", backend.name());
                bad = mid;
            }
        }
    }
    good
}

#[test]
fn the_stack_check_comes_before_a_stack_overflow() {
    // Without the check, both backends overflowed a 2 MiB stack on the fat nodes
    // and the interpreter on the links, before the depth limit (512) was reached.
    let limit = jitson::MAX_DEPTH_LIMIT as usize;
    for backend in common::backends() {
        for depth in [limit - 1, limit, limit + 1, 2 * limit, scaled(100_000)] {
            for result in [
                on_small_stack::<FatNode>(backend, fat_nodes(depth)),
                on_small_stack::<Link>(backend, links(depth)),
            ] {
                assert!(
                    matches!(result, Ok(()) | Err(ErrorKind::DepthLimit)),
                    "{} at {depth}: {result:?}",
                    backend.name()
                );
                if depth > limit {
                    assert_eq!(result, Err(ErrorKind::DepthLimit));
                }
            }
        }
        // How deep each goes; serde_json overflows at about 63 fat nodes. Each
        // fat level is two containers (the struct and its map).
        let fat = deepest::<FatNode>(backend, fat_nodes, limit / 2);
        let link = deepest::<Link>(backend, links, limit);
        eprintln!(
            "{}: {fat} fat nodes, {link} links on a 2 MiB stack",
            backend.name()
        );
        assert!(fat > 63, "{}: only {fat} fat nodes", backend.name());
    }
}
