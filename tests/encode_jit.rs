//! The JIT's encoder, kind by kind: every lowered kind (empty and one- and
//! many-field structs, `skip_serializing_if` in every position, integers at
//! their limits, floats, bools, `Option<Box<Struct>>` chains, tuples, arrays,
//! vectors, strings across the output buffer's growth) gives serde_json's
//! bytes on `Backend::Jit`, into fresh and reused buffers of every small
//! capacity; values handed to the interpreter (maps, enums, `char`, 128-bit
//! integers) sit inside lowered ones; errors carry the interpreter's path; a
//! panicking predicate resumes in the caller; and an encode into a buffer with
//! room allocates nothing.

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

use jitson::{Backend, Encode, Encoder};
use proptest::prelude::*;
use serde::Serialize;

/// Counts this thread's allocations (tests run on several threads).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: forwards every call to the system allocator unchanged; the counter
// is a const thread-local without a destructor, safe to touch from `alloc`.
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: forwarded from the caller.
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: forwarded from the caller.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: forwarded from the caller.
        unsafe { std::alloc::System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// Whether the JIT runs here; tests of it pass vacuously where it cannot.
fn jit() -> bool {
    let available = Backend::Jit.is_available();
    if !available {
        eprintln!("the JIT is not available in this process: nothing to test");
    }
    available
}

/// Asserts the JIT's bytes equal serde_json's (compact and pretty), into a
/// new buffer and appended to buffers of capacities 0 to 40 holding a prefix
/// (so that every growth step lands at every place in the text).
#[track_caller]
fn same<T: Encode + Serialize + Debug>(value: &T) {
    if !jit() {
        return;
    }
    let compact = serde_json::to_vec(value).unwrap();
    let encoder = Encoder::<T>::with_backend(Backend::Jit);
    let got = encoder.encode(value).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&compact),
        "{value:?}"
    );
    for capacity in 0..40 {
        let mut out = Vec::with_capacity(capacity);
        out.extend_from_slice(&b"prefix"[..capacity.min(6)]);
        let prefix = out.clone();
        encoder.encode_into(value, &mut out).unwrap();
        assert_eq!(&out[..prefix.len()], &prefix[..]);
        assert_eq!(&out[prefix.len()..], &compact[..], "capacity {capacity}");
    }
    let pretty = serde_json::to_vec_pretty(value).unwrap();
    let got = encoder.pretty(true).encode(value).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&pretty),
        "pretty {value:?}"
    );
    for indent in [0u8, 2, 4, 7, 100] {
        let expect = serde_pretty(value, indent);
        let encoder = Encoder::<T>::with_backend(Backend::Jit).indent(indent);
        let got = encoder.encode(value).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&expect),
            "indent {indent} {value:?}"
        );
        for capacity in [0, 1, 3, 7, 13, 29] {
            let mut out = Vec::with_capacity(capacity);
            out.extend_from_slice(&b"prefix"[..capacity.min(6)]);
            let prefix = out.clone();
            encoder.encode_into(value, &mut out).unwrap();
            assert_eq!(&out[..prefix.len()], &prefix[..]);
            assert_eq!(
                &out[prefix.len()..],
                &expect[..],
                "indent {indent} capacity {capacity}"
            );
        }
    }
}

/// serde_json's pretty printer with `indent` spaces per level.
fn serde_pretty<T: Serialize>(value: &T, indent: u8) -> Vec<u8> {
    let unit = vec![b' '; usize::from(indent)];
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(&unit);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    value.serialize(&mut ser).unwrap();
    out
}

#[derive(jitson::Encode, Serialize, Debug)]
struct Empty {}

#[derive(jitson::Encode, Serialize, Debug, Clone)]
struct One {
    only: u8,
}

#[derive(jitson::Encode, Serialize, Debug)]
struct Ints {
    a: i8,
    b: i16,
    c: i32,
    d: i64,
    e: u8,
    f: u16,
    g: u32,
    h: u64,
    yes: bool,
    no: bool,
    unit: (),
    x: f32,
    y: f64,
}

fn ints(sign: i64) -> Ints {
    Ints {
        a: if sign < 0 { i8::MIN } else { i8::MAX },
        b: if sign < 0 { i16::MIN } else { i16::MAX },
        c: if sign < 0 { i32::MIN } else { i32::MAX },
        d: if sign < 0 { i64::MIN } else { i64::MAX },
        e: if sign < 0 { 0 } else { u8::MAX },
        f: if sign < 0 { 0 } else { u16::MAX },
        g: if sign < 0 { 0 } else { u32::MAX },
        h: if sign < 0 { 0 } else { u64::MAX },
        yes: true,
        no: false,
        unit: (),
        x: sign as f32 * 0.1,
        y: sign as f64 * 1e-7,
    }
}

#[test]
fn structs_of_zero_one_and_many_fields() {
    same(&Empty {});
    same(&One { only: 0 });
    same(&One { only: 255 });
    same(&ints(-1));
    same(&ints(1));
    same(&ints(0));
    same(&vec![ints(1), ints(-1)]);
    same(&Vec::<Empty>::new());
    same(&vec![Empty {}, Empty {}]);
}

#[test]
fn integers_at_every_length_and_floats_of_every_class() {
    let mut n: u64 = 1;
    for _ in 0..20 {
        same(&(n - 1, n, n.wrapping_add(1)));
        let i = n as i64;
        same(&(
            i.wrapping_neg(),
            i.wrapping_sub(1),
            i.wrapping_sub(1).wrapping_neg(),
        ));
        n = n.wrapping_mul(10);
    }
    for f in [
        0.0,
        -0.0,
        1.0,
        1e16,
        1e-7,
        5e-324,
        f64::MAX,
        f64::MIN,
        0.1 + 0.2,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        same(&(f, f as f32));
        same(&vec![f; 3]);
    }
}

/// Integers of four to nine digits, written in generated code up to eight
/// (the high one to four digits, then the low four, leading zeros kept) and
/// by the helper beyond: every width's ends, low groups with zeros, and
/// generated values, signed and not, against serde_json.
#[test]
fn integers_of_four_to_nine_digits() {
    if !jit() {
        return;
    }
    let mut values: Vec<u64> = Vec::new();
    for d in 3..=9 {
        let p = 10u64.pow(d);
        values.extend([
            p - 1,
            p,
            p + 1,
            p + 9,
            p + 10,
            p + 99,
            p + 100,
            p + 999,
            p + 1000,
        ]);
    }
    values.extend([
        12_000_034, 10_200_003, 99_990_000, 50_000_005, 7_000_700, 100_010,
    ]);
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..5000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        values.push(x % 10u64.pow(1 + (x >> 60) as u32 % 9));
    }
    let signed: Vec<i64> = values.iter().map(|&v| -(v as i64)).collect();
    let small: Vec<u32> = values.iter().map(|&v| v as u32).collect();
    let small_signed: Vec<i32> = values.iter().map(|&v| -(v as i32)).collect();
    fn check<T: Encode + Serialize>(values: &T) {
        let got = Encoder::<T>::with_backend(Backend::Jit)
            .encode(values)
            .unwrap();
        let expected = serde_json::to_vec(values).unwrap();
        assert_eq!(
            String::from_utf8(got).unwrap(),
            String::from_utf8(expected).unwrap()
        );
    }
    check(&values);
    check(&signed);
    check(&small);
    check(&small_signed);
}

fn never(_: &u32) -> bool {
    false
}
fn always(_: &u32) -> bool {
    true
}
fn is_zero(x: &u32) -> bool {
    *x == 0
}

#[derive(jitson::Encode, Serialize, Debug)]
struct Skips {
    #[serde(skip_serializing_if = "is_zero")]
    a: u32,
    #[serde(skip_serializing_if = "is_zero")]
    b: u32,
    #[serde(skip_serializing_if = "is_zero")]
    c: u32,
}

#[derive(jitson::Encode, Serialize, Debug)]
struct SkipsAround {
    #[serde(skip_serializing_if = "always")]
    gone: u32,
    kept: u32,
    #[serde(skip_serializing_if = "never")]
    stays: u32,
    #[serde(skip_serializing_if = "is_zero")]
    maybe: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

#[test]
fn skip_if_in_every_position() {
    for bits in 0..8u32 {
        same(&Skips {
            a: bits & 1,
            b: bits & 2,
            c: bits & 4,
        });
    }
    for maybe in [0, 7] {
        for name in [None, Some("n".to_owned())] {
            same(&SkipsAround {
                gone: 1,
                kept: 2,
                stays: 3,
                maybe,
                name,
            });
        }
    }
}

#[derive(jitson::Encode, Serialize, Debug)]
struct Node {
    id: u32,
    label: String,
    next: Option<Box<Node>>,
    children: Vec<Node>,
}

fn chain(depth: u32) -> Node {
    let mut node = Node {
        id: 0,
        label: "leaf".into(),
        next: None,
        children: Vec::new(),
    };
    for id in 1..=depth {
        node = Node {
            id,
            label: format!("n{id}"),
            next: Some(Box::new(node)),
            children: if id % 3 == 0 {
                vec![Node {
                    id: 100 + id,
                    label: "\"child\"".into(),
                    next: None,
                    children: Vec::new(),
                }]
            } else {
                Vec::new()
            },
        };
    }
    node
}

#[test]
fn nested_option_box_struct_chains() {
    for depth in [0, 1, 2, 5, 50, 300] {
        same(&chain(depth));
    }
    same(&Some(Box::new(Some(Box::new(One { only: 1 })))));
    same(&None::<Box<One>>);
    same(&vec![Some(Box::new(chain(2))), None]);
}

/// Texts of every length to 300 bytes (the encoder's inline paths: two
/// words to 16 bytes, two vectors to 32, a loop of vectors to 256, a helper
/// beyond) with one byte to escape at every position, or one two-byte
/// character there, on both backends: serde_json's bytes each time, whether
/// the byte to escape falls in the loop's first chunk, a middle one, or the
/// last (which overlaps the one before it).
#[test]
fn texts_with_one_byte_to_escape_at_every_position() {
    let specials = ['"', '\\', '\n', '\u{1f}', '\u{0}'];
    let backends: &[Backend] = if Backend::Jit.is_available() {
        &[Backend::Jit, Backend::Interpreter]
    } else {
        &[Backend::Interpreter]
    };
    let mut out = Vec::new();
    for len in 0..=300usize {
        let mut texts = vec!["a".repeat(len)];
        for at in 0..len {
            let mut text = "a".repeat(len);
            let special = specials[(at + len) % specials.len()];
            text.replace_range(at..=at, special.encode_utf8(&mut [0; 4]));
            texts.push(text);
            if at + 1 < len {
                let mut wide = "a".repeat(len);
                wide.replace_range(at..at + 2, "é");
                texts.push(wide);
            }
        }
        for text in &texts {
            let expected = serde_json::to_vec(text).unwrap();
            for &backend in backends {
                out.clear();
                Encoder::<String>::with_backend(backend)
                    .encode_into(text, &mut out)
                    .unwrap();
                assert_eq!(out, expected, "{backend:?}, len {len}: {text:?}");
            }
        }
    }
}

#[test]
fn strings_across_the_buffer_growth() {
    if !jit() {
        return;
    }
    for len in (0..300).chain([1000, 4095, 4096, 4097, 70_000]) {
        let plain = "x".repeat(len);
        let escaped: String = (0..len)
            .map(|i| match i % 7 {
                0 => '"',
                1 => '\n',
                2 => 'é',
                3 => '\u{1}',
                _ => 'a',
            })
            .collect();
        for s in [&plain, &escaped] {
            let expect = serde_json::to_vec(s).unwrap();
            let wrapped = (One { only: 1 }, s.clone(), vec![s.clone(), s.clone()]);
            let expect_wrapped = serde_json::to_vec(&wrapped).unwrap();
            let encoder = Encoder::<String>::with_backend(Backend::Jit);
            let wrapped_encoder = Encoder::with_backend(Backend::Jit);
            for capacity in [0, 1, len / 2, len, len + 1, len + 2] {
                let mut out = Vec::with_capacity(capacity);
                encoder.encode_into(s, &mut out).unwrap();
                assert_eq!(out, expect, "len {len}, capacity {capacity}");
                let mut out = Vec::with_capacity(capacity);
                wrapped_encoder.encode_into(&wrapped, &mut out).unwrap();
                assert_eq!(out, expect_wrapped, "len {len}, capacity {capacity}");
            }
        }
    }
    same(&("", "\u{2028}😀", "/<>&"));
}

#[test]
fn huge_vectors_arrays_and_tuples() {
    let numbers: Vec<u64> = (0..1_000_000u64).map(|i| i * 7919).collect();
    same(&numbers);
    let strings: Vec<String> = (0..50_000).map(|i| format!("s{i}")).collect();
    same(&strings);
    let nested: Vec<Vec<i32>> = (0..1000).map(|i| (0..i % 7).collect()).collect();
    same(&nested);
    same(&vec![Some(-1i64), None, Some(i64::MIN)]);
    same(&[1u8, 2, 3]);
    same(&[[true; 2]; 3]);
    same(&[0u8; 0]);
    same(&(1u8, "two".to_owned(), false, (), [3u16; 2]));
    same(&vec![(); 3]);
}

#[derive(jitson::Encode, Serialize, Debug)]
#[serde(rename_all = "camelCase")]
struct Mixed {
    user_id: u64,
    #[serde(rename = "a \"quoted\" key\n")]
    quoted: bool,
    tags: BTreeMap<String, u8>,
    kind: Kind,
    letter: char,
    big: i128,
    inner: Option<Box<Mixed>>,
}

#[derive(jitson::Encode, Serialize, Debug)]
enum Kind {
    Plain,
    With(u8),
}

fn mixed(depth: u32) -> Mixed {
    Mixed {
        user_id: u64::from(depth),
        quoted: depth.is_multiple_of(2),
        tags: BTreeMap::from([("b".to_owned(), 2), ("a".to_owned(), 1)]),
        kind: if depth.is_multiple_of(2) {
            Kind::Plain
        } else {
            Kind::With(9)
        },
        letter: '"',
        big: -170_141_183_460_469_231_731_687_303_715_884_105_728,
        inner: (depth > 0).then(|| Box::new(mixed(depth - 1))),
    }
}

#[test]
fn interpreted_values_inside_lowered_ones() {
    for depth in 0..4 {
        same(&mixed(depth));
    }
    same(&vec![mixed(1), mixed(0)]);
}

#[test]
fn options_the_jit_hands_to_the_interpreter_whole() {
    if !jit() {
        return;
    }
    let value = mixed(2);
    let options: [fn(Encoder<Mixed>) -> Encoder<Mixed>; 5] = [
        |e| e.escape_html(true),
        |e| e.ascii_only(true),
        |e| e.indent(4),
        |e| e.pretty(true),
        |e| e.sort_keys(true),
    ];
    for with in options {
        let jit = with(Encoder::with_backend(Backend::Jit))
            .encode(&value)
            .unwrap();
        let interpreter = with(Encoder::with_backend(Backend::Interpreter))
            .encode(&value)
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&jit),
            String::from_utf8_lossy(&interpreter)
        );
    }
}

/// A value serde refuses (a map key that is not a string), to fail an
/// encode at a known place.
#[derive(jitson::Encode, Serialize, Debug, Clone)]
struct BadKey(BTreeMap<(u8, u8), u8>);

#[derive(jitson::Encode, Serialize, Debug, Clone)]
struct MapHolder<'a> {
    first: u8,
    by_name: BTreeMap<String, One>,
    borrowed: BTreeMap<&'a str, Option<Vec<u8>>>,
    nested: BTreeMap<String, BTreeMap<String, String>>,
    by_number: BTreeMap<u16, String>,
    last: HashMap<String, u8>,
}

#[test]
fn maps_with_text_keys_in_every_place() {
    let long_key = "k".repeat(300);
    let escaped_key = format!("{}\"\n\u{1}é", "x".repeat(40));
    for entries in [0usize, 1, 2, 5, 40] {
        let keys: Vec<String> = (0..entries)
            .map(|i| match i % 4 {
                0 => format!("key{i}"),
                1 => long_key.clone() + &i.to_string(),
                2 => escaped_key.clone() + &i.to_string(),
                _ => format!("\"{i}"),
            })
            .collect();
        let value = MapHolder {
            first: 1,
            by_name: keys
                .iter()
                .enumerate()
                .map(|(i, k)| (k.clone(), One { only: i as u8 }))
                .collect(),
            borrowed: keys
                .iter()
                .enumerate()
                .map(|(i, k)| (k.as_str(), (i % 2 == 0).then(|| vec![i as u8; i % 3])))
                .collect(),
            nested: keys
                .iter()
                .map(|k| {
                    let inner = keys
                        .iter()
                        .take(3)
                        .map(|j| (j.clone(), k.clone()))
                        .collect();
                    (k.clone(), inner)
                })
                .collect(),
            by_number: (0..entries as u16).map(|i| (i, format!("v{i}"))).collect(),
            // One entry at most: a HashMap's order is its own.
            last: keys.iter().take(1).map(|k| (k.clone(), 7)).collect(),
        };
        same(&value);
        same(&vec![value.clone(), value]);
    }
    same(&BTreeMap::<String, u8>::new());
    same(&vec![BTreeMap::from([("a".to_owned(), 1u8)]); 3]);
}

#[test]
fn a_failing_map_value_names_its_key() {
    if !jit() {
        return;
    }
    let mut value = BTreeMap::new();
    value.insert("fine".to_owned(), BadKey(BTreeMap::new()));
    value.insert(
        "bad \"key\"".to_owned(),
        BadKey(BTreeMap::from([((1, 2), 3)])),
    );
    let value = vec![value];
    for pretty in [false, true] {
        let on = |backend| {
            let mut out = b"keep".to_vec();
            let e = Encoder::<Vec<BTreeMap<String, BadKey>>>::with_backend(backend)
                .pretty(pretty)
                .encode_into(&value, &mut out)
                .unwrap_err();
            assert_eq!(out, b"keep");
            e
        };
        let (jit, interpreter) = (on(Backend::Jit), on(Backend::Interpreter));
        assert_eq!(jit.to_string(), interpreter.to_string());
        assert_eq!(
            jit.to_string(),
            r#"key must be a string at $[0]["bad \"key\""]"#
        );
    }
}

#[test]
fn a_panic_inside_a_map_on_the_jit_resumes_in_the_caller() {
    if !jit() {
        return;
    }
    fn explode(_: &u8) -> bool {
        panic!("predicate exploded in a map")
    }
    #[derive(jitson::Encode, Debug)]
    struct Boom {
        #[serde(skip_serializing_if = "explode")]
        x: u8,
    }
    let value = BTreeMap::from([("a".to_owned(), Boom { x: 1 })]);
    let mut out = b"keep".to_vec();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Encoder::<BTreeMap<String, Boom>>::with_backend(Backend::Jit).encode_into(&value, &mut out)
    }));
    let payload = caught.unwrap_err();
    assert_eq!(
        payload.downcast_ref::<&str>(),
        Some(&"predicate exploded in a map")
    );
    assert_eq!(out, b"keep");
}

#[derive(jitson::Encode, Serialize, Debug)]
struct Refused {
    id: u8,
    items: Vec<Keyed>,
}

#[derive(jitson::Encode, Serialize, Debug)]
struct Keyed {
    #[serde(rename = "byPair")]
    by_pair: HashMap<(u8, u8), u8>,
}

#[test]
fn errors_carry_the_interpreters_path() {
    if !jit() {
        return;
    }
    let value = Refused {
        id: 1,
        items: vec![
            Keyed {
                by_pair: HashMap::new(),
            },
            Keyed {
                by_pair: HashMap::from([((1, 2), 3)]),
            },
        ],
    };
    let on = |backend| {
        let mut out = b"keep".to_vec();
        let e = Encoder::<Refused>::with_backend(backend)
            .encode_into(&value, &mut out)
            .unwrap_err();
        assert_eq!(out, b"keep");
        e
    };
    let jit = on(Backend::Jit);
    let interpreter = on(Backend::Interpreter);
    assert_eq!(jit.to_string(), interpreter.to_string());
    assert_eq!(jit.kind(), interpreter.kind());
    assert!(jit.to_string().contains("byPair"), "{jit}");
    assert!(serde_json::to_vec(&value).is_err());
}

#[test]
fn a_panicking_predicate_on_the_jit_resumes_in_the_caller() {
    if !jit() {
        return;
    }
    fn explode(_: &u8) -> bool {
        panic!("predicate exploded")
    }
    #[derive(jitson::Encode, Debug)]
    struct Boom {
        first: String,
        #[serde(skip_serializing_if = "explode")]
        x: u8,
    }
    let value = vec![Boom {
        first: "a".repeat(100),
        x: 1,
    }];
    let mut out = b"keep".to_vec();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        Encoder::<Vec<Boom>>::with_backend(Backend::Jit).encode_into(&value, &mut out)
    }));
    let payload = caught.unwrap_err();
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"predicate exploded"));
    assert_eq!(out, b"keep");
    // The next encode is unaffected.
    let mut out = Vec::new();
    Encoder::<u8>::with_backend(Backend::Jit)
        .encode_into(&1, &mut out)
        .unwrap();
    assert_eq!(out, b"1");
}

#[test]
fn auto_switches_to_the_compiled_encoder() {
    // The first encodes run on the interpreter while a worker compiles; every
    // encode gives the same bytes.
    let value = chain(4);
    let expect = serde_json::to_vec(&value).unwrap();
    for _ in 0..200 {
        assert_eq!(jitson::to_vec(&value).unwrap(), expect);
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
}

#[test]
fn an_encode_into_a_buffer_with_room_allocates_nothing() {
    if !jit() {
        return;
    }
    let value = (ints(1), Vec::<One>::new(), chain(3), "text".to_owned());
    let encoder = Encoder::with_backend(Backend::Jit);
    let mut out = Vec::with_capacity(1 << 16);
    encoder.encode_into(&value, &mut out).unwrap();
    let before = allocations();
    for _ in 0..100 {
        out.clear();
        encoder.encode_into(&value, &mut out).unwrap();
    }
    assert_eq!(allocations() - before, 0);
    assert_eq!(out, serde_json::to_vec(&value).unwrap());
}

#[test]
fn a_warm_to_vec_allocates_once_on_every_backend() {
    let value = (
        ints(1),
        (0..40).map(|i| One { only: i }).collect::<Vec<_>>(),
        chain(3),
        "text".to_owned(),
    );
    let mut backends = vec![Backend::Interpreter];
    if jit() {
        backends.push(Backend::Jit);
    }
    for backend in backends {
        let encoder = Encoder::with_backend(backend);
        encoder.encode(&value).unwrap();
        let before = allocations();
        let out = encoder.encode(&value).unwrap();
        assert_eq!(allocations() - before, 1, "{backend:?}");
        assert_eq!(out, serde_json::to_vec(&value).unwrap());
    }
}

#[test]
fn a_warm_to_vec_of_short_numbers_in_a_wide_struct_allocates_once() {
    // Small values in many bounded fields: the generated code checks room
    // for the whole run of members at their widest (20 bytes an integer, 24
    // a float), far beyond the text written, so the learned capacity must
    // cover that check and not only the last output's length.
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Wide {
        a: [i64; 4],
        b: i64,
        c: i64,
        d: i64,
        e: i64,
        f: i64,
        g: f64,
        h: f64,
        i: f64,
        j: f64,
        k: f64,
        l: u32,
        m: u32,
        n: u32,
        o: u32,
        p: bool,
    }
    if !jit() {
        return;
    }
    let value = Wide {
        a: [1, 2, 3, 4],
        b: 1,
        c: 2,
        d: 3,
        e: 4,
        f: 5,
        g: 0.5,
        h: 1.0,
        i: 2.0,
        j: 3.0,
        k: 4.0,
        l: 1,
        m: 2,
        n: 3,
        o: 4,
        p: true,
    };
    let encoder = Encoder::with_backend(Backend::Jit);
    encoder.encode(&value).unwrap();
    let before = allocations();
    let out = encoder.encode(&value).unwrap();
    assert_eq!(allocations() - before, 1);
    assert_eq!(out, serde_json::to_vec(&value).unwrap());
    // Room for the check, not a doubling of it.
    assert!(
        out.capacity() < out.len() + 1024,
        "capacity {}",
        out.capacity()
    );
}

/// `tests/encode.rs`'s `User`.
#[derive(jitson::Encode, Serialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
struct User {
    user_id: u64,
    #[serde(rename = "login")]
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<String>,
    #[serde(skip_serializing, default)]
    #[allow(dead_code, reason = "never written: the skipped field of the model")]
    cache: u64,
    tags: Vec<String>,
    score: f64,
    ratio: f32,
    active: bool,
    nested: Option<Box<User>>,
}

fn user(depth: usize) -> User {
    User {
        user_id: 42 + depth as u64,
        name: format!("ü\"ser\n{depth}"),
        email: depth.is_multiple_of(2).then(|| "a@b.c".to_owned()),
        cache: 9,
        tags: vec!["a".into(), "\u{1f}".into(), String::new()],
        score: 1.0 / (depth as f64 + 3.0),
        ratio: 0.1,
        active: depth.is_multiple_of(3),
        nested: (depth > 0).then(|| Box::new(user(depth - 1))),
    }
}

/// Nanoseconds per encode of `value` by `f` (best of five runs of `n`).
fn time(n: u32, mut f: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let started = std::time::Instant::now();
        for _ in 0..n {
            f();
        }
        best = best.min(started.elapsed().as_nanos() as f64 / f64::from(n));
    }
    best
}

/// `cargo test --release -p jitson --test encode_jit -- --ignored --nocapture`
#[test]
#[ignore = "a timing, run by hand with --release"]
fn timing_user() {
    // The first encode of a type on Backend::Jit compiles it.
    let started = std::time::Instant::now();
    Encoder::<User>::with_backend(Backend::Jit)
        .encode(&user(0))
        .unwrap();
    println!(
        "first Backend::Jit encode of User (compile included): {:?}",
        started.elapsed()
    );
    for ((name, value), pretty) in [("User(depth 0)", user(0)), ("User(depth 3)", user(3))]
        .into_iter()
        .flat_map(|v| [(v.clone(), false), (v, true)])
    {
        let expect = if pretty {
            serde_json::to_vec_pretty(&value).unwrap()
        } else {
            serde_json::to_vec(&value).unwrap()
        };
        let mut out = Vec::with_capacity(4096);
        let mut run = |backend: Backend| {
            let encoder = Encoder::<User>::with_backend(backend).pretty(pretty);
            out.clear();
            encoder.encode_into(&value, &mut out).unwrap();
            assert_eq!(out, expect);
            time(100_000, || {
                out.clear();
                encoder
                    .encode_into(std::hint::black_box(&value), &mut out)
                    .unwrap();
            })
        };
        let jit = run(Backend::Jit);
        let interpreter = run(Backend::Interpreter);
        let serde = time(100_000, || {
            out.clear();
            if pretty {
                serde_json::to_writer_pretty(&mut out, std::hint::black_box(&value)).unwrap();
            } else {
                serde_json::to_writer(&mut out, std::hint::black_box(&value)).unwrap();
            }
        });
        let name = if pretty {
            format!("{name}, pretty")
        } else {
            name.to_owned()
        };
        println!(
            "{name} ({} bytes): jit {jit:.0} ns, interpreter {interpreter:.0} ns, serde_json {serde:.0} ns per encode",
            expect.len()
        );
    }
    let numbers: Vec<u64> = (0..10_000u64).map(|i| i * 7919).collect();
    let structs: Vec<One> = (0..10_000).map(|i| One { only: i as u8 }).collect();
    let mut out = Vec::with_capacity(1 << 20);
    for backend in [Backend::Jit, Backend::Interpreter] {
        let e = Encoder::<Vec<u64>>::with_backend(backend);
        let t = time(200, || {
            out.clear();
            e.encode_into(std::hint::black_box(&numbers), &mut out)
                .unwrap();
        });
        let e = Encoder::<Vec<One>>::with_backend(backend);
        let s = time(200, || {
            out.clear();
            e.encode_into(std::hint::black_box(&structs), &mut out)
                .unwrap();
        });
        println!("{backend:?}: Vec<u64> x10k {t:.0} ns, Vec<One> x10k {s:.0} ns");
    }
    let t = time(200, || {
        out.clear();
        serde_json::to_writer(&mut out, std::hint::black_box(&numbers)).unwrap();
    });
    let s = time(200, || {
        out.clear();
        serde_json::to_writer(&mut out, std::hint::black_box(&structs)).unwrap();
    });
    println!("serde_json: Vec<u64> x10k {t:.0} ns, Vec<One> x10k {s:.0} ns");
}

#[derive(jitson::Encode, Serialize, Debug, Clone)]
struct Random {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<i64>,
    small: u8,
    text: String,
    floats: Vec<f64>,
    flags: (bool, i16, f32),
    #[serde(skip_serializing_if = "Vec::is_empty")]
    children: Vec<Random>,
    tail: Option<Box<Random>>,
}

fn random() -> impl Strategy<Value = Random> {
    let leaf = (
        proptest::option::of(any::<i64>()),
        any::<u8>(),
        any::<String>(),
        proptest::collection::vec(any::<f64>(), 0..4),
        (any::<bool>(), any::<i16>(), any::<f32>()),
    )
        .prop_map(|(id, small, text, floats, flags)| Random {
            id,
            small,
            text,
            floats,
            flags,
            children: Vec::new(),
            tail: None,
        });
    leaf.prop_recursive(3, 24, 4, |inner| {
        (
            inner.clone(),
            proptest::collection::vec(inner.clone(), 0..3),
            proptest::option::of(inner),
        )
            .prop_map(|(mut node, children, tail)| {
                node.children = children;
                node.tail = tail.map(Box::new);
                node
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Random values into buffers of random capacity: serde_json's bytes.
    #[test]
    fn random_values_as_serde_json(value in random(), capacity in 0usize..200) {
        if Backend::Jit.is_available() {
            let expect = serde_json::to_vec(&value).unwrap();
            let mut out = Vec::with_capacity(capacity);
            Encoder::<Random>::with_backend(Backend::Jit)
                .encode_into(&value, &mut out)
                .unwrap();
            prop_assert_eq!(out, expect);
        }
    }
}

#[test]
fn threads_encoding_while_the_compile_lands() {
    // `Auto` on several threads at once: the first encodes run on the
    // interpreter, one compile is queued, and every thread switches to the
    // compiled code when it is ready; every byte is serde_json's throughout.
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Shared {
        id: u64,
        names: Vec<String>,
        node: Option<Box<Node>>,
    }
    let value = Shared {
        id: 77,
        names: vec!["x".into(), "y\u{7}".into()],
        node: Some(Box::new(chain(6))),
    };
    let expect = serde_json::to_vec(&value).unwrap();
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (value, expect) = (&value, &expect);
            scope.spawn(move || {
                let backend = if t % 2 == 0 || !Backend::Jit.is_available() {
                    Backend::Auto
                } else {
                    Backend::Jit
                };
                let encoder = Encoder::<Shared>::with_backend(backend);
                let mut out = Vec::new();
                for _ in 0..300 {
                    out.clear();
                    encoder.encode_into(value, &mut out).unwrap();
                    assert_eq!(&out, expect);
                }
            });
        }
    });
}

#[derive(jitson::Encode, Serialize, Debug)]
enum Shape {
    Empty,
    #[serde(rename = "circle\"r")]
    Circle(f64),
    Pair(Box<Shape>, Option<Box<Shape>>),
    Named {
        id: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        inner: Option<Box<Shape>>,
        tags: Vec<Shape>,
    },
    #[serde(skip_serializing)]
    Hidden(#[allow(dead_code, reason = "a variant never written")] u8),
    #[serde(untagged)]
    Loose(String, i64),
    #[serde(untagged)]
    Nothing,
}

#[derive(jitson::Encode, Serialize, Debug)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Unit,
    One(Shape),
    Two(u8, Shape),
    Fields {
        a: Vec<Adjacent>,
        b: bool,
    },
    #[serde(untagged)]
    Other(u8),
}

fn shapes() -> Vec<Shape> {
    vec![
        Shape::Empty,
        Shape::Circle(1.5),
        Shape::Pair(
            Box::new(Shape::Pair(Box::new(Shape::Circle(-0.0)), None)),
            Some(Box::new(Shape::Loose("l".into(), -9))),
        ),
        Shape::Named {
            id: 7,
            inner: Some(Box::new(Shape::Named {
                id: 8,
                inner: None,
                tags: vec![Shape::Empty, Shape::Nothing],
            })),
            tags: vec![
                Shape::Circle(f64::NAN),
                Shape::Pair(Box::new(Shape::Empty), None),
            ],
        },
        Shape::Loose("x\n".into(), i64::MIN),
        Shape::Nothing,
    ]
}

#[test]
fn enums_external_and_adjacent_nested_in_each_other() {
    for shape in shapes() {
        same(&shape);
        same(&vec![Adjacent::One(shape)]);
    }
    same(&shapes());
    same(&(
        Shape::Pair(Box::new(Shape::Circle(2.0)), None),
        Adjacent::Unit,
        5u8,
    ));
    same(&vec![
        Adjacent::Unit,
        Adjacent::Two(
            3,
            Shape::Named {
                id: 1,
                inner: None,
                tags: shapes(),
            },
        ),
        Adjacent::Fields {
            a: vec![
                Adjacent::Unit,
                Adjacent::Other(4),
                Adjacent::One(Shape::Empty),
            ],
            b: true,
        },
        Adjacent::Other(200),
    ]);
}

#[test]
fn a_variant_never_written_is_refused_as_the_interpreter_refuses_it() {
    if !jit() {
        return;
    }
    let value = vec![
        Adjacent::Unit,
        Adjacent::Two(
            1,
            Shape::Pair(Box::new(Shape::Empty), Some(Box::new(Shape::Hidden(1)))),
        ),
    ];
    let on = |backend| {
        let mut out = b"keep".to_vec();
        let e = Encoder::<Vec<Adjacent>>::with_backend(backend)
            .encode_into(&value, &mut out)
            .unwrap_err();
        assert_eq!(out, b"keep");
        e
    };
    let (jit, interpreter) = (on(Backend::Jit), on(Backend::Interpreter));
    assert_eq!(jit.to_string(), interpreter.to_string());
    assert!(jit.to_string().contains("Hidden"), "{jit}");
    assert!(serde_json::to_vec(&value).is_err());
}

#[test]
fn stats_count_encoder_compiles() {
    if !jit() {
        return;
    }
    #[derive(jitson::Encode, Serialize, Debug)]
    struct CountedOnce {
        a: u8,
    }
    let before = jitson::stats();
    let encoder = Encoder::<CountedOnce>::with_backend(Backend::Jit);
    for _ in 0..3 {
        encoder.encode(&CountedOnce { a: 1 }).unwrap();
    }
    let after = jitson::stats();
    // Other tests compile encoders in parallel: at least this one, once.
    assert!(after.encoders_compiled > before.encoders_compiled);
    assert!(after.encoder_compile_time > before.encoder_compile_time);
    assert!(after.encoder_code_bytes > before.encoder_code_bytes);
}

#[derive(jitson::Encode, Serialize, Debug)]
struct AllSkippable {
    #[serde(skip_serializing_if = "is_zero")]
    a: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    b: Option<String>,
}

#[derive(jitson::Encode, Serialize, Debug)]
struct Containers {
    empty: Empty,
    skippable: AllSkippable,
    list: Vec<Vec<u8>>,
    structs: Vec<AllSkippable>,
    nothing: [u8; 0],
    pair: (u8, Vec<Empty>),
    map: BTreeMap<String, Vec<u8>>,
    letter: char,
    tail: Option<Box<Containers>>,
}

fn containers(depth: u32) -> Containers {
    Containers {
        empty: Empty {},
        skippable: AllSkippable {
            a: depth % 2,
            b: depth.is_multiple_of(3).then(|| "b".to_owned()),
        },
        list: vec![vec![], vec![1, 2], vec![]],
        structs: (0..depth).map(|a| AllSkippable { a, b: None }).collect(),
        nothing: [],
        pair: (depth as u8, (0..depth % 2).map(|_| Empty {}).collect()),
        map: if depth.is_multiple_of(2) {
            BTreeMap::new()
        } else {
            BTreeMap::from([("k".to_owned(), vec![1]), ("e".to_owned(), vec![])])
        },
        letter: 'é',
        tail: (depth > 0).then(|| Box::new(containers(depth - 1))),
    }
}

/// A recursive enum nested deeper than the JIT compiles pretty output for
/// (the deepest levels go to the interpreter at their level).
#[derive(jitson::Encode, Serialize, Debug)]
enum Tree {
    Leaf(u8),
    Node(Vec<Tree>),
    Named { kids: Vec<Tree>, skip: AllSkippable },
}

fn tree(depth: u32) -> Tree {
    match depth {
        0 => Tree::Leaf(1),
        d if d.is_multiple_of(2) => {
            Tree::Node(vec![tree(d - 1), Tree::Node(vec![]), Tree::Leaf(2)])
        }
        d => Tree::Named {
            kids: vec![tree(d - 1)],
            skip: AllSkippable { a: 0, b: None },
        },
    }
}

#[test]
fn pretty_empty_containers_skips_and_depths() {
    same(&Empty {});
    same(&AllSkippable { a: 0, b: None });
    same(&vec![
        AllSkippable { a: 0, b: None },
        AllSkippable { a: 1, b: None },
    ]);
    same(&Vec::<Empty>::new());
    same(&vec![Empty {}, Empty {}]);
    same(&vec![Vec::<u8>::new()]);
    for depth in 0..6 {
        same(&containers(depth));
    }
    for depth in [0, 1, 2, 7, 20, 40] {
        same(&tree(depth));
    }
}

#[test]
fn auto_compiles_pretty_output() {
    // Pretty output is compiled under Backend::Auto too: every encode, on
    // the interpreter while the worker compiles and compiled after, gives
    // serde_json's bytes.
    let value = chain(4);
    let expect = serde_json::to_vec_pretty(&value).unwrap();
    for _ in 0..200 {
        assert_eq!(jitson::to_vec_pretty(&value).unwrap(), expect);
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Random values, pretty at a random indentation, into buffers of random
    /// capacity: serde_json's bytes.
    #[test]
    fn random_values_pretty_as_serde_json(value in random(), capacity in 0usize..200, indent in 0u8..9) {
        if Backend::Jit.is_available() {
            let expect = serde_pretty(&value, indent);
            let mut out = Vec::with_capacity(capacity);
            Encoder::<Random>::with_backend(Backend::Jit)
                .indent(indent)
                .encode_into(&value, &mut out)
                .unwrap();
            prop_assert_eq!(out, expect);
        }
    }
}
