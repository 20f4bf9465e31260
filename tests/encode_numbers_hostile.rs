//! Hostile encoding of numbers and struct members: tuples and tuple structs
//! of numbers (the interpreter writes those of at most eight elements by one
//! loop), lists of integers (written sixteen to a capacity check), digit
//! counts at every power of ten of every width, and struct members with and
//! without flattened fields. Every value is compared byte for byte with
//! serde_json on every backend: compact, pretty, with four spaces and with
//! none, sorted keys, HTML-safe and ASCII-only escaping, appended to a
//! buffer, and through the free functions.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::sync::Arc;

use common::backends;
use jitson::{Encode, Encoder};
use ordered_float::{NotNan, OrderedFloat};
use serde::Serialize;
use serde_json::ser::PrettyFormatter;
use smallvec::SmallVec;

// ---------------------------------------------------------------------------
// The reference

/// serde_json's pretty text of `value` with `indent` per level.
fn serde_indented<T: Serialize>(value: &T, indent: &[u8]) -> String {
    let mut out = Vec::new();
    let mut ser =
        serde_json::Serializer::with_formatter(&mut out, PrettyFormatter::with_indent(indent));
    value.serialize(&mut ser).unwrap();
    String::from_utf8(out).unwrap()
}

/// `json` with `<`, `>`, `&`, U+2028 and U+2029 escaped, as `escape_html`
/// writes them (in JSON text they only occur inside strings).
fn html_escaped(json: &str) -> String {
    let mut out = String::new();
    for c in json.chars() {
        match c {
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

/// `json` with every non-ASCII character escaped as `ascii_only` writes it.
fn ascii_escaped(json: &str) -> String {
    let mut out = String::new();
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            for unit in c.encode_utf16(&mut [0u16; 2]) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

type Configure<T> = fn(Encoder<T>) -> Encoder<T>;

/// Asserts that jitson writes `value` as serde_json does, on every backend,
/// in every output form. `sort_keys` is among them: the maps of the values
/// given here are already in the byte order of their keys' text.
#[track_caller]
fn same<T: Encode + Serialize + Debug>(value: &T) {
    let compact = serde_json::to_string(value).unwrap();
    let pretty = serde_json::to_string_pretty(value).unwrap();
    let forms: [(&str, Configure<T>, String); 8] = [
        ("compact", |e| e, compact.clone()),
        ("pretty", |e| e.pretty(true), pretty.clone()),
        ("indent 4", |e| e.indent(4), serde_indented(value, b"    ")),
        ("indent 0", |e| e.indent(0), serde_indented(value, b"")),
        ("sorted keys", |e| e.sort_keys(true), compact.clone()),
        ("html", |e| e.escape_html(true), html_escaped(&compact)),
        ("ascii", |e| e.ascii_only(true), ascii_escaped(&compact)),
        (
            "pretty html ascii",
            |e| e.pretty(true).escape_html(true).ascii_only(true),
            ascii_escaped(&html_escaped(&pretty)),
        ),
    ];
    for backend in backends() {
        for (form, configure, expected) in &forms {
            let encoder = configure(Encoder::<T>::with_backend(backend));
            // Twice: `Auto` may switch to compiled code between the two.
            for _ in 0..2 {
                let got = encoder
                    .encode(value)
                    .unwrap_or_else(|e| panic!("{form}, {backend:?}: {e} for {value:?}"));
                assert_eq!(
                    String::from_utf8(got).unwrap(),
                    *expected,
                    "{form}, {backend:?}: {value:?}"
                );
            }
        }
        // Appended after what a full buffer holds.
        let mut out = Vec::with_capacity(3);
        out.extend_from_slice(b"[0,");
        Encoder::<T>::with_backend(backend)
            .encode_into(value, &mut out)
            .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("[0,{compact}"),
            "encode_into, {backend:?}: {value:?}"
        );
    }
    assert_eq!(jitson::to_string(value).unwrap(), compact);
    assert_eq!(jitson::to_string_pretty(value).unwrap(), pretty);
}

/// Asserts that serde_json refuses `value` and every backend does too, with
/// serde_json's message and the path of the value that failed.
#[track_caller]
fn refused<T: Encode + Serialize + Debug>(value: &T, path: &str) {
    let message = serde_json::to_vec(value).unwrap_err().to_string();
    let expected = if path == "$" {
        message
    } else {
        format!("{message} at {path}")
    };
    for backend in backends() {
        for pretty in [false, true] {
            let mut out = b"kept".to_vec();
            let e = Encoder::<T>::with_backend(backend)
                .pretty(pretty)
                .encode_into(value, &mut out)
                .unwrap_err();
            assert_eq!(e.to_string(), expected, "{backend:?}, pretty {pretty}");
            assert_eq!(e.path(), path, "{backend:?}, pretty {pretty}");
            assert_eq!(out, b"kept", "{backend:?}, pretty {pretty}");
        }
    }
}

// ---------------------------------------------------------------------------
// The numbers

/// The powers of ten that fit `T`, each with its neighbours, of both signs,
/// the neighbours of `u64::MAX` (where 128-bit integers stop fitting a
/// `u64`), and the type's extremes.
fn integers<T: TryFrom<i128> + Copy>(min: T, max: T) -> Vec<T> {
    let mut candidates = vec![u64::MAX as i128 - 1, u64::MAX as i128, u64::MAX as i128 + 1];
    for k in 0..=38 {
        let p = 10i128.pow(k);
        candidates.extend([p - 1, p, p + 1]);
    }
    let mut out = vec![min, max];
    for v in candidates {
        out.extend(T::try_from(v).ok());
        out.extend(T::try_from(-v).ok());
    }
    out
}

/// Every class of `f64`: not a number of either sign, the infinities, both
/// zeros, subnormals, the extremes, the numbers around powers of ten where
/// the text switches to exponents, and their negatives.
fn doubles() -> Vec<f64> {
    let positive = [
        f64::INFINITY,
        f64::NAN,
        0.0,
        f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        f64::MIN_POSITIVE,
        f64::EPSILON,
        f64::MAX,
        0.1,
        1.0 / 3.0,
        0.5,
        9.0,
        9.5,
        10.0,
        99.0,
        100.0,
        999.0,
        1000.0,
        9999.0,
        10000.0,
        99999.0,
        1e-7,
        1e-6,
        1e-5,
        1e15,
        1e16,
        1e17,
        1e21,
        1e22,
        1e23,
        123_456_789_012_345_680.0,
        9_007_199_254_740_993.0,
    ];
    positive.iter().flat_map(|&v| [v, -v]).collect()
}

/// Every class of `f32`, as [`doubles`] for `f64`.
fn singles() -> Vec<f32> {
    let positive = [
        f32::INFINITY,
        f32::NAN,
        0.0,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::MIN_POSITIVE,
        f32::EPSILON,
        f32::MAX,
        0.1,
        1.0 / 3.0,
        9.0,
        10.0,
        99.0,
        100.0,
        999.0,
        1000.0,
        9999.0,
        10000.0,
        99999.0,
        1e-7,
        16_777_216.0,
        16_777_217.0,
        1e15,
        1e16,
        1e17,
        3e38,
    ];
    positive.iter().flat_map(|&v| [v, -v]).collect()
}

/// `f` of each of `values`.
fn mapped<T, U>(values: &[T], f: impl FnMut(&T) -> U) -> Vec<U> {
    values.iter().map(f).collect()
}

/// Element `k` of `values`, round and round.
fn at<T: Copy>(values: &[T], k: usize) -> T {
    values[k % values.len()]
}

/// One value of every number type the tuples are made of.
struct Pool {
    i8: Vec<i8>,
    i16: Vec<i16>,
    i32: Vec<i32>,
    i64: Vec<i64>,
    isize: Vec<isize>,
    u8: Vec<u8>,
    u16: Vec<u16>,
    u32: Vec<u32>,
    u64: Vec<u64>,
    usize: Vec<usize>,
    i128: Vec<i128>,
    u128: Vec<u128>,
    f32: Vec<f32>,
    f64: Vec<f64>,
}

impl Pool {
    fn new() -> Pool {
        Pool {
            i8: integers(i8::MIN, i8::MAX),
            i16: integers(i16::MIN, i16::MAX),
            i32: integers(i32::MIN, i32::MAX),
            i64: integers(i64::MIN, i64::MAX),
            isize: integers(isize::MIN, isize::MAX),
            u8: integers(u8::MIN, u8::MAX),
            u16: integers(u16::MIN, u16::MAX),
            u32: integers(u32::MIN, u32::MAX),
            u64: integers(u64::MIN, u64::MAX),
            usize: integers(usize::MIN, usize::MAX),
            i128: integers(i128::MIN, i128::MAX),
            u128: integers(u128::MIN, u128::MAX),
            f32: singles(),
            f64: doubles(),
        }
    }
}

// ---------------------------------------------------------------------------
// Integers of every width

#[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
struct Triple<A, B, C>(A, B, C);

/// `values` alone, in tuples, in lists of every length from 0 to 50 (three
/// chunks of sixteen and then some), with an extreme at each chunk edge, in
/// arrays around a chunk, in slices, boxes and shared slices, and in arrays
/// of arrays.
fn integer_width<T>(values: &[T])
where
    T: Encode + Serialize + Debug + Copy + Default + 'static,
{
    let (min, max) = (values[0], values[1]);
    for &v in values {
        same(&v);
        same(&(v,));
        same(&(v, min));
        same(&Triple(max, v, min));
    }
    same(&values.to_vec());
    for len in 0..=50 {
        let list: Vec<T> = values.iter().copied().cycle().skip(len).take(len).collect();
        same(&list);
    }
    for edge in [0, 1, 14, 15, 16, 17, 30, 31, 32, 33, 47, 48, 49] {
        for extreme in [min, max] {
            let mut list = vec![T::default(); 50];
            list[edge] = extreme;
            same(&list);
            list.truncate(edge + 1);
            same(&list);
        }
    }
    let a1: [T; 1] = [max];
    let a15: [T; 15] = std::array::from_fn(|i| at(values, i));
    let a16: [T; 16] = std::array::from_fn(|i| at(values, i + 3));
    let a17: [T; 17] = std::array::from_fn(|i| at(values, i + 7));
    let a32: [T; 32] = std::array::from_fn(|i| at(values, 31 - i));
    same(&[min; 0]);
    same(&a1);
    same(&a15);
    same(&a16);
    same(&a17);
    same(&a32);
    same(&vec![a17, a17.map(|_| min), a17]);
    same(&vec![[min, max], [max, min]]);
    same(&[a15, a15]);
    let long: Vec<T> = values.iter().copied().cycle().take(33).collect();
    same(&long.as_slice());
    same(&long.clone().into_boxed_slice());
    same(&Rc::<[T]>::from(long.as_slice()));
    same(&Arc::<[T]>::from(&long[..17]));
    same(&vec![long.clone(), Vec::new(), long[..16].to_vec()]);
    same(&Some(long));
}

#[test]
fn integers_of_every_width_at_every_power_of_ten() {
    let pool = Pool::new();
    integer_width(&pool.i8);
    integer_width(&pool.i16);
    integer_width(&pool.i32);
    integer_width(&pool.i64);
    integer_width(&pool.isize);
    integer_width(&pool.u8);
    integer_width(&pool.u16);
    integer_width(&pool.u32);
    integer_width(&pool.u64);
    integer_width(&pool.usize);
    integer_width(&pool.i128);
    integer_width(&pool.u128);
}

/// Every byte value, and every two-byte value in steps: the digit counts
/// below 10,000 on each side of each power of ten.
#[test]
fn every_byte_and_short_value() {
    let bytes: Vec<u8> = (0..=u8::MAX).collect();
    same(&bytes);
    let signed: Vec<i8> = (i8::MIN..=i8::MAX).collect();
    same(&signed);
    let shorts: Vec<u16> = (0..=u16::MAX).step_by(7).collect();
    same(&shorts);
    let small: Vec<i32> = (-10_001..=10_001).collect();
    same(&small);
    for v in -10_001i64..=10_001 {
        assert_eq!(jitson::to_vec(&v).unwrap(), serde_json::to_vec(&v).unwrap());
    }
}

/// The byte containers of other crates, written as arrays of numbers as
/// their serde impls have serde_json write them.
#[test]
fn byte_containers_and_small_vectors() {
    for len in [0, 1, 15, 16, 17, 31, 32, 33, 50] {
        let data: Vec<u8> = (0..len).map(|i| (i * 37 % 256) as u8).collect();
        same(&bytes::Bytes::from(data.clone()));
        same(&bytes::BytesMut::from(&data[..]));
        same(&serde_bytes::ByteBuf::from(data.clone()));
        let inline: SmallVec<[u8; 16]> = data.iter().copied().collect();
        same(&inline);
        let wide: SmallVec<[i64; 4]> = data.iter().map(|&b| i64::from(b) * -1_000_003).collect();
        same(&wide);
        let positions: SmallVec<[(f64, f64); 2]> = data
            .iter()
            .map(|&b| (f64::from(b) / 3.0, -f64::from(b)))
            .collect();
        same(&positions);
    }
}

// ---------------------------------------------------------------------------
// Floats

#[test]
fn floats_of_every_class() {
    let (d, s) = (doubles(), singles());
    for (k, &v) in d.iter().enumerate() {
        let w = at(&s, k);
        same(&v);
        same(&(v,));
        same(&(v, w));
        same(&(w, v, v));
        same(&[v, v]);
        same(&OrderedFloat(v));
        same(&(OrderedFloat(v), OrderedFloat(w), v));
        if let Ok(n) = NotNan::new(v) {
            same(&(n, v));
        }
    }
    same(&d);
    same(&s);
    for len in 0..=50 {
        let list: Vec<f64> = d.iter().copied().cycle().skip(len).take(len).collect();
        same(&list);
        let list: Vec<f32> = s.iter().copied().cycle().skip(len).take(len).collect();
        same(&list);
    }
    let pairs: Vec<(f64, f32)> = d.iter().enumerate().map(|(k, &v)| (v, at(&s, k))).collect();
    same(&pairs);
    let positions: Vec<[f64; 2]> = d.chunks(2).map(|c| [c[0], c[1]]).collect();
    same(&positions);
    let ordered: Vec<OrderedFloat<f32>> = s.iter().copied().map(OrderedFloat).collect();
    same(&ordered);
}

// ---------------------------------------------------------------------------
// Tuples of one to ten numbers

#[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
struct Two(i8, u64);

#[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
struct Three(f32, i16, u32);

#[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
struct Four(u8, i64, f64, usize);

#[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
struct Five(i32, f32, u16, isize, f64);

#[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
struct Six(u64, u64, i8, i8, f32, f32);

#[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
struct Seven(f64, f64, f64, f64, f64, f64, f64);

#[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
struct Eight(i64, u8, u16, u32, u64, i8, i16, i32);

#[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
struct Nine(f64, f32, u8, i8, u16, i16, u32, i32, u64);

#[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
struct Ten(u8, u8, u8, u8, u8, u8, u8, u8, u8, u8);

/// The tuple structs of two to ten numbers, the `k`th values of the pool.
#[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
struct Structs(Two, Three, Four, Five, Six, Seven, Eight, Nine, Ten);

fn structs(p: &Pool, k: usize) -> Structs {
    Structs(
        Two(at(&p.i8, k), at(&p.u64, k + 1)),
        Three(at(&p.f32, k), at(&p.i16, k + 1), at(&p.u32, k + 2)),
        Four(
            at(&p.u8, k),
            at(&p.i64, k + 1),
            at(&p.f64, k + 2),
            at(&p.usize, k),
        ),
        Five(
            at(&p.i32, k),
            at(&p.f32, k + 1),
            at(&p.u16, k + 2),
            at(&p.isize, k + 3),
            at(&p.f64, k + 4),
        ),
        Six(
            at(&p.u64, k),
            at(&p.u64, k + 1),
            at(&p.i8, k + 2),
            at(&p.i8, k + 3),
            at(&p.f32, k + 4),
            at(&p.f32, k + 5),
        ),
        Seven(
            at(&p.f64, k),
            at(&p.f64, k + 1),
            at(&p.f64, k + 2),
            at(&p.f64, k + 3),
            at(&p.f64, k + 4),
            at(&p.f64, k + 5),
            at(&p.f64, k + 6),
        ),
        Eight(
            at(&p.i64, k),
            at(&p.u8, k + 1),
            at(&p.u16, k + 2),
            at(&p.u32, k + 3),
            at(&p.u64, k + 4),
            at(&p.i8, k + 5),
            at(&p.i16, k + 6),
            at(&p.i32, k + 7),
        ),
        Nine(
            at(&p.f64, k),
            at(&p.f32, k + 1),
            at(&p.u8, k + 2),
            at(&p.i8, k + 3),
            at(&p.u16, k + 4),
            at(&p.i16, k + 5),
            at(&p.u32, k + 6),
            at(&p.i32, k + 7),
            at(&p.u64, k + 8),
        ),
        Ten(
            at(&p.u8, k),
            at(&p.u8, k + 1),
            at(&p.u8, k + 2),
            at(&p.u8, k + 3),
            at(&p.u8, k + 4),
            at(&p.u8, k + 5),
            at(&p.u8, k + 6),
            at(&p.u8, k + 7),
            at(&p.u8, k + 8),
            at(&p.u8, k + 9),
        ),
    )
}

type Plain = (
    (f64,),
    (i8, f32),
    (u16, i32, u64),
    (f32, f32, i64, u8),
    (isize, usize, f64, i16, u32),
    (u8, u8, u8, u8, u8, u8),
    (f64, i8, f64, i8, f64, i8, f64),
    (u32, i32, u64, i64, u16, i16, u8, i8),
    (f32, f64, f32, f64, f32, f64, f32, f64, f32),
    (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64),
);

/// The tuples of one to ten numbers, the `k`th values of the pool.
fn plain(p: &Pool, k: usize) -> Plain {
    let f = |i: usize| at(&p.f64, k + i);
    let g = |i: usize| at(&p.f32, k + i);
    let b = |i: usize| at(&p.u8, k + i);
    let c = |i: usize| at(&p.i8, k + i);
    let l = |i: usize| at(&p.i64, k + i);
    (
        (f(0),),
        (c(0), g(1)),
        (at(&p.u16, k), at(&p.i32, k + 1), at(&p.u64, k + 2)),
        (g(0), g(1), l(2), b(3)),
        (
            at(&p.isize, k),
            at(&p.usize, k + 1),
            f(2),
            at(&p.i16, k + 3),
            at(&p.u32, k + 4),
        ),
        (b(0), b(1), b(2), b(3), b(4), b(5)),
        (f(0), c(1), f(2), c(3), f(4), c(5), f(6)),
        (
            at(&p.u32, k),
            at(&p.i32, k + 1),
            at(&p.u64, k + 2),
            l(3),
            at(&p.u16, k + 4),
            at(&p.i16, k + 5),
            b(6),
            c(7),
        ),
        (g(0), f(1), g(2), f(3), g(4), f(5), g(6), f(7), g(8)),
        (l(0), l(1), l(2), l(3), l(4), l(5), l(6), l(7), l(8), l(9)),
    )
}

/// Each tuple alone, in vectors and arrays, in options and boxes, as map
/// values, and every shape side by side.
#[test]
fn tuples_of_one_to_ten_numbers_everywhere() {
    let p = Pool::new();
    let all: Vec<Structs> = (0..48).map(|k| structs(&p, k)).collect();
    for s in &all {
        same(s);
        same(&s.0);
        same(&s.6);
        same(&s.7);
        same(&s.8);
    }
    same(&all);
    same(&mapped(&all, |s| s.1));
    same(&mapped(&all, |s| s.3));
    same(&mapped(&all, |s| s.6));
    same(&mapped(&all, |s| s.7));
    same(&mapped(&all, |s| s.8));
    same(&[all[0].6, all[1].6, all[2].6]);
    same(&[all[3].8; 2]);
    same(&vec![Some(all[0].7), None, Some(all[1].7)]);
    same(&(Some(all[0].0), Box::new(all[1].6), None::<Eight>));
    same(&BTreeMap::from([
        ("a".to_owned(), all[0].2),
        ("b".to_owned(), all[1].2),
    ]));
    same(&BTreeMap::from([(
        "k".to_owned(),
        vec![all[2].7, all[3].7],
    )]));
    same(&vec![vec![all[0].5, all[1].5], vec![], vec![all[2].5]]);
    let tuples: Vec<Plain> = (0..48).map(|k| plain(&p, k)).collect();
    for t in &tuples {
        same(t);
        same(&t.0);
        same(&t.7);
        same(&t.8);
        same(&t.9);
    }
    same(&tuples);
    same(&mapped(&tuples, |t| t.0));
    same(&mapped(&tuples, |t| t.1));
    same(&mapped(&tuples, |t| t.7));
    same(&mapped(&tuples, |t| t.8));
    same(&mapped(&tuples, |t| t.9));
    same(&[tuples[0].4, tuples[1].4]);
    same(&Some(Box::new(vec![tuples[5].3, tuples[6].3])));
}

/// Tuples with one element that is not a number (each another kind),
/// nested tuples and arrays, 128-bit integers, references and newtypes of
/// numbers: element by element, alone and in vectors.
#[test]
fn tuples_of_numbers_beside_other_kinds() {
    #[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
    struct Meters(f64);
    #[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
    #[serde(transparent)]
    struct Celsius {
        degrees: f32,
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
    struct Wrapped((f64, f64));
    #[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
    struct Position(f64, f64);
    #[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
    #[serde(rename = "Point")]
    struct Renamed(#[serde(rename = "x")] i32, #[serde(rename = "y")] i32);
    #[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
    struct Unit;
    let p = Pool::new();
    for k in 0..48 {
        let (f, i, u) = (at(&p.f64, k), at(&p.i64, k), at(&p.u8, k));
        let (wide, uwide) = (at(&p.i128, k), at(&p.u128, k));
        let label = format!("é<{k}>&\u{2028}\"\n");
        same(&(f, label.clone()));
        same(&(label.clone(), f, u));
        same(&(f, k.is_multiple_of(2), i));
        same(&(f, 'é', u));
        same(&(f, ()));
        same(&(Unit, f));
        same(&(f, Some(i), None::<u8>));
        same(&(f, wide));
        same(&(uwide, f, u));
        same(&(wide, uwide));
        same(&(f, [i, i]));
        same(&([f, f], [u; 3]));
        same(&((f, i), (u, f)));
        same(&(f, (i, (u, (f,)))));
        same(&(Position(f, f), Position(-f, 0.5)));
        same(&(f, Box::new(i)));
        same(&(&f, &u));
        same(&(Meters(f), Meters(-f)));
        same(&(
            Celsius {
                degrees: at(&p.f32, k),
            },
            f,
        ));
        same(&Wrapped((f, -f)));
        same(&Renamed(i as i32, -(k as i32)));
        same(&(f, vec![u, u], i));
        same(&(f, BTreeMap::from([("k", i)])));
    }
    let positions: Vec<Position> = (0..40)
        .map(|k| Position(at(&p.f64, k), at(&p.f64, k + 3)))
        .collect();
    same(&positions);
    same(&mapped(&positions, |&Position(x, y)| Wrapped((x, y))));
    same(&mapped(&positions, |&Position(x, _)| Meters(x)));
    same(&mapped(&positions, |&Position(x, y)| (Meters(x), y)));
    let references: Vec<(&f64, &f64)> = positions.iter().map(|Position(x, y)| (x, y)).collect();
    same(&references);
    same(&mapped(&positions, |&Position(x, y)| (x as i128, y)));
    same(&mapped(&positions, |&Position(x, y)| [(x, y); 2]));
    same(&mapped(&positions, |&Position(x, y)| vec![(x, y)]));
    same(&mapped(&positions, |&Position(x, y)| ((x,), y)));
    same(&mapped(&positions, |&Position(x, y)| Some((x, y))));
    same(&mapped(&positions, |&p| Box::new(p)));
    same(&mapped(&positions, |&Position(x, y)| (x, y, "s")));
    same(&vec![Renamed(1, 2), Renamed(-3, i32::MIN)]);
}

/// Tuple structs with skipped elements: the elements written are those
/// serde writes, however many are left.
#[test]
#[allow(dead_code, reason = "the skipped elements are never written")]
fn tuple_structs_with_skipped_elements() {
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct First(#[serde(skip)] u8, f64, i64);
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Middle(f64, #[serde(skip_serializing)] String, u16);
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Last(u32, i8, #[serde(skip)] f64);
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct OneLeft(#[serde(skip)] u8, f64);
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct OtherLeft(Vec<u8>, #[serde(skip)] f64, #[serde(skip)] u8, u64);
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct NoneLeft(#[serde(skip)] u8, #[serde(skip)] f64);
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct NineOfTen(u8, u8, u8, u8, #[serde(skip)] String, u8, u8, u8, u8, f64);
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct EightOfNine(
        i64,
        i64,
        i64,
        i64,
        #[serde(skip)] String,
        i64,
        i64,
        i64,
        f32,
    );
    let d = doubles();
    for (k, &f) in d.iter().enumerate() {
        let i = k as i64 * -7_777_777;
        let first = First(1, f, i);
        let middle = Middle(f, "hidden".into(), k as u16);
        let last = Last(k as u32, -(k as i8), f);
        let one = OneLeft(9, f);
        let other = OtherLeft(vec![1, 2], f, 3, u64::MAX - k as u64);
        let nine = NineOfTen(1, 2, 3, 4, "x".into(), 5, 6, 7, 8, f);
        let eight = EightOfNine(i, i, i, i, "x".into(), i, i, i, f as f32);
        same(&first);
        same(&middle);
        same(&last);
        same(&one);
        same(&other);
        same(&NoneLeft(1, f));
        same(&nine);
        same(&eight);
        same(&vec![first.clone(), first]);
        same(&vec![middle.clone(), middle]);
        same(&vec![last.clone(), last]);
        same(&vec![one.clone(), one]);
        same(&vec![other.clone(), other]);
        same(&vec![NoneLeft(1, f), NoneLeft(2, f)]);
        same(&vec![nine.clone(), nine]);
        same(&vec![eight.clone(), eight]);
    }
}

/// Tuples and tuple structs of numbers as the payloads of variants of every
/// representation.
#[test]
fn tuples_of_numbers_in_enum_variants() {
    #[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
    struct Position(f64, f64);
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    enum External {
        Pair(f64, f64),
        Wrapped(Position),
        Tuple((i32, u8)),
        #[serde(rename = "many")]
        Many(Vec<Position>),
        Skipping(#[serde(skip)] u8, f64, i64),
        Fields {
            at: Position,
            path: Vec<(u8, i8)>,
        },
        Nothing,
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    #[serde(tag = "type", rename_all = "lowercase")]
    enum Internal {
        Point { coordinates: Position },
        Line { coordinates: Vec<Position> },
        Polygon { coordinates: Vec<Vec<(f64, f64)>> },
        Bare,
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    #[serde(tag = "t", content = "c")]
    enum Adjacent {
        Pair(f64, f64),
        Wrapped(Position),
        Tuple((u64, i64, f32)),
        Array([u8; 3]),
        Fields { at: Position },
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    #[serde(untagged)]
    enum Untagged {
        Pair(f64, f64),
        Wrapped(Position),
        Many(Vec<(i64, u64)>),
        Fields { at: (u8, u8) },
    }
    let d = doubles();
    for (k, &f) in d.iter().enumerate() {
        let g = at(&d, k + 1);
        let pos = Position(f, g);
        let externals = vec![
            External::Pair(f, g),
            External::Wrapped(pos),
            External::Tuple((k as i32 - 20, k as u8)),
            External::Many(vec![pos, pos]),
            External::Skipping(1, f, -(k as i64)),
            External::Fields {
                at: pos,
                path: vec![(k as u8, -(k as i8)), (0, 0)],
            },
            External::Nothing,
        ];
        let internals = vec![
            Internal::Point { coordinates: pos },
            Internal::Line {
                coordinates: vec![pos, Position(g, f)],
            },
            Internal::Polygon {
                coordinates: vec![vec![(f, g), (g, f), (f, g)], vec![]],
            },
            Internal::Bare,
        ];
        let adjacents = vec![
            Adjacent::Pair(f, g),
            Adjacent::Wrapped(pos),
            Adjacent::Tuple((u64::MAX - k as u64, i64::MIN + k as i64, g as f32)),
            Adjacent::Array([k as u8, 0, 255]),
            Adjacent::Fields { at: pos },
        ];
        let untaggeds = vec![
            Untagged::Pair(f, g),
            Untagged::Wrapped(pos),
            Untagged::Many(vec![(i64::MIN, u64::MAX), (k as i64, 0)]),
            Untagged::Fields {
                at: (k as u8, 255 - k as u8),
            },
        ];
        for v in &externals {
            same(v);
        }
        for v in &internals {
            same(v);
        }
        for v in &adjacents {
            same(v);
        }
        for v in &untaggeds {
            same(v);
        }
        same(&(externals, internals, adjacents, untaggeds));
    }
}

/// serde refuses an internally tagged newtype variant holding a tuple or a
/// tuple struct of numbers; so does every backend, with serde's message and
/// the path of the variant.
#[test]
fn internally_tagged_tuples_of_numbers_are_refused() {
    #[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
    struct Position(f64, f64);
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    #[serde(tag = "type")]
    enum Geometry {
        Point(Position),
        Pair((u8, i8)),
        Fine { at: Position },
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Feature {
        id: u32,
        geometry: Vec<Geometry>,
    }
    refused(&Geometry::Point(Position(1.0, -2.5)), "$");
    refused(&Geometry::Pair((1, -1)), "$");
    let feature = Feature {
        id: 7,
        geometry: vec![
            Geometry::Fine {
                at: Position(0.5, 1.5),
            },
            Geometry::Point(Position(f64::NAN, 0.0)),
        ],
    };
    refused(&feature, "$.geometry[1]");
}

/// Tuples of numbers beside flattened fields, in flattened structs and
/// maps, and as map values under sorted keys.
#[test]
fn tuples_of_numbers_beside_flattened_fields() {
    #[derive(jitson::Encode, Serialize, Debug, Clone, Copy)]
    struct Position(f64, f64);
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Props {
        name: String,
        at: Position,
        #[serde(skip_serializing_if = "Option::is_none")]
        bbox: Option<(f64, f64, f64, f64)>,
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Feature {
        id: (u32, u32),
        #[serde(flatten)]
        props: Props,
        geometry: Vec<Position>,
        #[serde(flatten)]
        extra: BTreeMap<String, (i64, u8)>,
    }
    let d = doubles();
    for (k, &f) in d.iter().enumerate() {
        let feature = Feature {
            id: (k as u32, u32::MAX),
            props: Props {
                name: format!("n{k}"),
                at: Position(f, -f),
                bbox: k.is_multiple_of(2).then_some((f, f, 0.0, 1e300)),
            },
            geometry: vec![Position(f, 1.0); k % 4],
            extra: BTreeMap::from([
                ("x".to_owned(), (i64::MIN, 255)),
                ("y".to_owned(), (k as i64, 0)),
            ]),
        };
        same(&feature);
        same(&vec![feature.clone(), feature]);
    }
    // Sorted keys reorder map entries, whose values are tuples, and not
    // struct fields.
    let map: HashMap<String, (f64, u16)> = (0..40)
        .map(|k| (format!("k{}", 39 - k), (at(&d, k), k as u16 * 1000)))
        .collect();
    let sorted: BTreeMap<&String, &(f64, u16)> = map.iter().collect();
    for backend in backends() {
        for pretty in [false, true] {
            let got = Encoder::<HashMap<String, (f64, u16)>>::with_backend(backend)
                .pretty(pretty)
                .sort_keys(true)
                .encode(&map)
                .unwrap();
            let expected = if pretty {
                serde_json::to_vec_pretty(&sorted).unwrap()
            } else {
                serde_json::to_vec(&sorted).unwrap()
            };
            assert_eq!(
                String::from_utf8(got).unwrap(),
                String::from_utf8(expected).unwrap(),
                "{backend:?}, pretty {pretty}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Struct members with and without flattened fields

#[derive(jitson::Encode, Serialize, Debug, Clone, PartialEq)]
enum Shape {
    Dot,
    Circle(f64),
    Rect { w: u32, h: u32 },
}

#[derive(jitson::Encode, Serialize, Debug, Clone)]
struct Leaf {
    id: u64,
    label: String,
}

#[derive(jitson::Encode, Serialize, Debug, Clone)]
struct Empty {}

/// A field of every kind the member loop writes directly, and of some it
/// hands on; no flattened field.
#[derive(jitson::Encode, Serialize, Debug, Clone)]
#[allow(dead_code, reason = "the skipped field is never written")]
struct Every {
    #[serde(skip_serializing_if = "String::is_empty")]
    text: String,
    double: f64,
    single: f32,
    unsigned: u64,
    signed: i64,
    #[serde(rename = "byte<&>")]
    byte: u8,
    wide: i128,
    flag: bool,
    letter: char,
    #[serde(skip_serializing_if = "Option::is_none")]
    maybe: Option<u64>,
    kept_none: Option<String>,
    leaf: Leaf,
    empty: Empty,
    boxed: Box<Leaf>,
    shape: Shape,
    map: BTreeMap<String, f64>,
    numbers: Vec<i32>,
    pair: (f64, i8),
    shared: Rc<str>,
    #[serde(skip)]
    hidden: u8,
    #[serde(skip_serializing_if = "is_zero")]
    last: u32,
}

/// [`Every`]'s fields around flattened fields of each kind.
#[derive(jitson::Encode, Serialize, Debug, Clone)]
struct EveryFlattened {
    #[serde(flatten)]
    before: Leaf,
    #[serde(skip_serializing_if = "String::is_empty")]
    text: String,
    double: f64,
    unsigned: u64,
    #[serde(flatten)]
    middle: Option<Empty>,
    signed: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    maybe: Option<u64>,
    leaf: Leaf,
    #[serde(flatten)]
    map: BTreeMap<String, (u8, f64)>,
    shape: Shape,
    #[serde(skip_serializing_if = "is_zero")]
    last: u32,
    #[serde(flatten)]
    after: Option<Leaf>,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

fn every(k: usize, p: &Pool) -> Every {
    Every {
        text: if k.is_multiple_of(3) {
            String::new()
        } else {
            format!("t\u{e9}<{k}>&\u{2029}\u{1f600}\t")
        },
        double: at(&p.f64, k),
        single: at(&p.f32, k),
        unsigned: at(&p.u64, k),
        signed: at(&p.i64, k),
        byte: at(&p.u8, k),
        wide: at(&p.i128, k),
        flag: k.is_multiple_of(2),
        letter: ['a', '"', '\u{7f}', '\u{2028}', '\u{10ffff}'][k % 5],
        maybe: (k % 2 == 1).then(|| at(&p.u64, k + 1)),
        kept_none: k.is_multiple_of(4).then(|| "s".to_owned()),
        leaf: Leaf {
            id: at(&p.u64, k + 2),
            label: "leaf".into(),
        },
        empty: Empty {},
        boxed: Box::new(Leaf {
            id: k as u64,
            label: String::new(),
        }),
        shape: [
            Shape::Dot,
            Shape::Circle(at(&p.f64, k)),
            Shape::Rect { w: 1, h: 2 },
        ][k % 3]
            .clone(),
        map: (0..k % 3)
            .map(|i| (format!("m{i}"), at(&p.f64, k + i)))
            .collect(),
        numbers: (0..k % 20).map(|i| at(&p.i32, k + i)).collect(),
        pair: (at(&p.f64, k + 5), at(&p.i8, k)),
        shared: Rc::from("shared"),
        hidden: 1,
        last: (k % 2) as u32,
    }
}

fn every_flattened(k: usize, p: &Pool) -> EveryFlattened {
    let e = every(k, p);
    EveryFlattened {
        before: Leaf {
            id: k as u64,
            label: "before".into(),
        },
        text: e.text,
        double: e.double,
        unsigned: e.unsigned,
        middle: k.is_multiple_of(2).then_some(Empty {}),
        signed: e.signed,
        maybe: e.maybe,
        leaf: e.leaf,
        map: (0..k % 3)
            .map(|i| (format!("z{i}"), (i as u8, at(&p.f64, k + i))))
            .collect(),
        shape: e.shape,
        last: e.last,
        after: (k % 3 == 1).then(|| Leaf {
            id: u64::MAX,
            label: "after".into(),
        }),
    }
}

#[test]
fn struct_members_of_every_kind_with_and_without_flattened_fields() {
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Outer {
        #[serde(flatten)]
        every: Every,
        #[serde(flatten)]
        flattened: EveryFlattened,
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    #[serde(tag = "kind")]
    enum Tagged {
        Plain(Every),
        Flattened(EveryFlattened),
        Inline {
            #[serde(skip_serializing_if = "Option::is_none")]
            maybe: Option<u8>,
            #[serde(flatten)]
            leaf: Leaf,
        },
    }
    let p = Pool::new();
    for k in 0..60 {
        let e = every(k, &p);
        let f = every_flattened(k, &p);
        same(&e);
        same(&f);
        same(&vec![e.clone(), e.clone()]);
        same(&vec![f.clone(), f.clone()]);
        let outer = Outer {
            every: e.clone(),
            flattened: f.clone(),
        };
        same(&outer);
        same(&Tagged::Plain(e));
        same(&Tagged::Flattened(f));
        same(&Tagged::Inline {
            maybe: k.is_multiple_of(2).then_some(k as u8),
            leaf: Leaf {
                id: k as u64,
                label: "l".into(),
            },
        });
    }
}

/// Members left out by their predicates at every position: the first
/// member written is the one without a comma, with and without flattened
/// fields, alone and nested, and an object left empty.
#[test]
fn predicates_leave_out_members_at_every_position() {
    fn odd(v: &u8) -> bool {
        v % 2 == 1
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Three {
        #[serde(skip_serializing_if = "odd")]
        a: u8,
        #[serde(skip_serializing_if = "odd")]
        b: u8,
        #[serde(skip_serializing_if = "odd")]
        c: u8,
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Around {
        #[serde(skip_serializing_if = "odd")]
        a: u8,
        #[serde(flatten)]
        inner: Three,
        #[serde(skip_serializing_if = "odd")]
        z: u8,
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Nested {
        three: Three,
        around: Vec<Around>,
        #[serde(flatten)]
        flat: Option<Three>,
    }
    for bits in 0u8..32 {
        let bit = |i: u8| (bits >> i) & 1;
        let three = Three {
            a: bit(0),
            b: bit(1),
            c: bit(2),
        };
        let around = Around {
            a: bit(3),
            inner: three.clone(),
            z: bit(4),
        };
        same(&three);
        same(&around);
        same(&Nested {
            three: three.clone(),
            around: vec![around.clone(), around],
            flat: (bits % 3 != 0).then_some(three),
        });
    }
}

/// A predicate that panics, in a struct with and without flattened fields,
/// nested at any depth: the panic resumes in the caller with its payload on
/// every backend, nothing is left in the buffer, and the next encode works.
#[test]
fn a_panicking_predicate_resumes_in_the_caller_on_every_backend() {
    fn explode(v: &f64) -> bool {
        if v.is_nan() {
            panic!("predicate exploded on NaN");
        }
        false
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Plain {
        id: u64,
        #[serde(skip_serializing_if = "explode")]
        value: f64,
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Flattening {
        #[serde(flatten)]
        plain: Plain,
        #[serde(skip_serializing_if = "explode")]
        value: f64,
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Deep {
        list: Vec<Plain>,
        flattening: Option<Flattening>,
        positions: Vec<(f64, f64)>,
    }
    let fine = Deep {
        list: vec![Plain { id: 1, value: 0.5 }],
        flattening: Some(Flattening {
            plain: Plain { id: 2, value: 1.5 },
            value: -0.0,
        }),
        positions: vec![(1.0, 2.0)],
    };
    let mut in_list = fine.clone();
    in_list.list.push(Plain {
        id: 3,
        value: f64::NAN,
    });
    let mut in_flattened = fine.clone();
    in_flattened.flattening = Some(Flattening {
        plain: Plain {
            id: 4,
            value: f64::NAN,
        },
        value: 1.0,
    });
    let mut in_outer = fine.clone();
    in_outer.flattening = Some(Flattening {
        plain: Plain { id: 5, value: 2.0 },
        value: f64::NAN,
    });
    same(&fine);
    for bad in [&in_list, &in_flattened, &in_outer] {
        let serde_panic = catch_unwind(AssertUnwindSafe(|| serde_json::to_vec(bad))).unwrap_err();
        assert_eq!(
            serde_panic.downcast_ref::<&str>(),
            Some(&"predicate exploded on NaN")
        );
        for backend in backends() {
            for pretty in [false, true] {
                let mut out = b"kept".to_vec();
                let caught = catch_unwind(AssertUnwindSafe(|| {
                    Encoder::<Deep>::with_backend(backend)
                        .pretty(pretty)
                        .encode_into(bad, &mut out)
                }));
                let payload = caught.unwrap_err();
                assert_eq!(
                    payload.downcast_ref::<&str>(),
                    Some(&"predicate exploded on NaN"),
                    "{backend:?}, pretty {pretty}"
                );
                assert_eq!(out, b"kept", "{backend:?}, pretty {pretty}");
                // Nothing of the panic is left for the next encode.
                let got = Encoder::<Deep>::with_backend(backend)
                    .encode(&fine)
                    .unwrap();
                assert_eq!(got, serde_json::to_vec(&fine).unwrap(), "{backend:?}");
            }
        }
    }
}

/// A value held as a member, as an element of a member, and through a
/// flattened member.
#[derive(jitson::Encode, Serialize, Debug, Clone)]
struct Holder<I> {
    name: String,
    inner: I,
    list: Vec<I>,
}

/// A [`Holder`] flattened, and a value after it.
#[derive(jitson::Encode, Serialize, Debug, Clone)]
struct FlatHolder<I> {
    title: String,
    #[serde(flatten)]
    holder: Holder<I>,
    last: I,
}

/// Asserts that `bad`, which serde_json refuses at `path` inside it, is
/// refused with serde_json's message on every backend alone, as a member,
/// as an element of a member, inside a flattened member and after one,
/// each time with the path through them; and that `fine` is written.
#[track_caller]
fn refused_everywhere<I: Encode + Serialize + Debug + Clone + 'static>(
    fine: &I,
    bad: &I,
    path: &str,
) {
    let holder = |inner: &I, list: Vec<I>| Holder {
        name: "h".into(),
        inner: inner.clone(),
        list,
    };
    same(&FlatHolder {
        title: "f".into(),
        holder: holder(fine, vec![fine.clone()]),
        last: fine.clone(),
    });
    refused(bad, &format!("${path}"));
    refused(&holder(bad, vec![]), &format!("$.inner{path}"));
    refused(
        &holder(fine, vec![fine.clone(), bad.clone()]),
        &format!("$.list[1]{path}"),
    );
    refused(
        &FlatHolder {
            title: "f".into(),
            holder: holder(fine, vec![bad.clone()]),
            last: fine.clone(),
        },
        &format!("$.holder.list[0]{path}"),
    );
    refused(
        &FlatHolder {
            title: "f".into(),
            holder: holder(fine, vec![]),
            last: bad.clone(),
        },
        &format!("$.last{path}"),
    );
}

/// Errors inside fields written by the member loop keep serde_json's
/// message and the path of the value that failed: a map key that cannot be
/// a key, a non-finite float key, a variant that is never serialised.
#[test]
fn errors_inside_members_keep_their_message_and_path() {
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    #[allow(dead_code, reason = "the skipped variant is never written")]
    enum Partial {
        Shown(f64),
        #[serde(skip_serializing)]
        Hidden((f64, f64)),
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Inner {
        id: u64,
        keys: HashMap<(u8, u8), (f64, f64)>,
        floats: BTreeMap<OrderedFloat<f64>, u8>,
        partial: Vec<Partial>,
    }
    let fine = Inner {
        id: 1,
        keys: HashMap::new(),
        floats: BTreeMap::from([(OrderedFloat(-0.5), 1), (OrderedFloat(3.0), 2)]),
        partial: vec![Partial::Shown(1.0)],
    };
    let keys = Inner {
        keys: HashMap::from([((1, 2), (3.0, 4.0))]),
        ..fine.clone()
    };
    refused_everywhere(&fine, &keys, ".keys");
    let floats = Inner {
        floats: BTreeMap::from([(OrderedFloat(1.0), 1), (OrderedFloat(f64::NAN), 2)]),
        ..fine.clone()
    };
    refused_everywhere(&fine, &floats, ".floats");
    let partial = Inner {
        partial: vec![Partial::Shown(0.5), Partial::Hidden((1.0, 2.0))],
        ..fine.clone()
    };
    refused_everywhere(&fine, &partial, ".partial[1]");
}

/// A `serialize_with` that fails, as a member beside members the member
/// loop writes itself: its message, with the path of the field.
#[cfg(feature = "serde")]
#[test]
fn a_failing_serialize_with_keeps_its_message_and_path() {
    fn refuse<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if *v < 0.0 {
            return Err(serde::ser::Error::custom(format!("negative: {v}")));
        }
        s.serialize_f64(*v)
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Checked {
        id: u64,
        label: String,
        #[serde(serialize_with = "refuse")]
        value: f64,
        position: (f64, f64),
    }
    let fine = Checked {
        id: 1,
        label: "l".into(),
        value: 2.5,
        position: (1.0, -1.0),
    };
    let bad = Checked {
        value: -1.5,
        ..fine.clone()
    };
    refused_everywhere(&fine, &bad, ".value");
}

// ---------------------------------------------------------------------------
// Differences from serde found by this file (not from the interpreter's
// number paths: every backend writes the same bytes). Ignored until fixed.

/// serde leaves out a tuple struct's or tuple variant's element whose
/// `skip_serializing_if` says so (and counts the array's length without
/// it); so does every backend (the JIT hands such a tuple to the
/// interpreter, whose loop over tuples of numbers leaves it alone).
#[test]
fn skip_serializing_if_on_tuple_elements() {
    fn is_nan(v: &f64) -> bool {
        v.is_nan()
    }
    fn is_empty(v: &str) -> bool {
        v.is_empty()
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Position(f64, #[serde(skip_serializing_if = "is_nan")] f64);
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    struct Labelled(
        #[serde(skip_serializing_if = "is_nan")] f64,
        #[serde(skip_serializing_if = "is_empty")] String,
        #[serde(skip_serializing_if = "is_nan")] f64,
    );
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    enum Geometry {
        Point(f64, #[serde(skip_serializing_if = "is_nan")] f64),
        Tagged(#[serde(skip_serializing_if = "is_nan")] f64, u8),
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    #[serde(untagged)]
    enum Loose {
        Pair(#[serde(skip_serializing_if = "is_nan")] f64, i64),
    }
    #[derive(jitson::Encode, Serialize, Debug, Clone)]
    #[serde(tag = "t", content = "c")]
    enum Adjacent {
        Pair(i64, #[serde(skip_serializing_if = "is_nan")] f64),
    }
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Holder {
        at: Position,
        ring: Vec<Position>,
        labels: Vec<Labelled>,
        shapes: Vec<Geometry>,
    }
    let nan = f64::NAN;
    same(&Position(1.0, nan));
    same(&Position(1.0, -0.0));
    same(&vec![
        Position(1.0, 2.0),
        Position(1.0, nan),
        Position(nan, nan),
    ]);
    for label in [
        Labelled(nan, String::new(), nan),
        Labelled(nan, "a".into(), nan),
        Labelled(1.5, String::new(), nan),
        Labelled(nan, String::new(), 2.5),
        Labelled(1.5, "<b>".into(), 2.5),
    ] {
        same(&label);
        same(&vec![label.clone(), label]);
    }
    same(&Geometry::Point(1.0, nan));
    same(&Geometry::Tagged(nan, 7));
    same(&vec![Geometry::Point(1.0, 2.0), Geometry::Tagged(3.0, 4)]);
    same(&Loose::Pair(nan, -1));
    same(&Adjacent::Pair(1, nan));
    same(&Holder {
        at: Position(nan, nan),
        ring: vec![Position(0.5, nan); 3],
        labels: vec![Labelled(nan, String::new(), nan)],
        shapes: vec![Geometry::Point(1.0, nan)],
    });
}

/// serde writes a newtype struct's one field even where it is marked `skip`
/// or has a `skip_serializing_if` (the newtype is written by
/// `serialize_newtype_struct`, which reads neither); `serialize_with` still
/// applies. A newtype variant whose field is skipped is written as a unit
/// variant. jitson wrote `[]` for the struct before 2026-12-07.
#[test]
fn a_newtype_whose_field_is_skipped() {
    fn as_text<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{v} m"))
    }
    #[allow(
        dead_code,
        reason = "serde's newtype does not call it, nor does jitson"
    )]
    fn always(_: &f64) -> bool {
        true
    }
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Meters(#[serde(skip)] f64);
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Feet(#[serde(skip_serializing)] f64);
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Yards(#[serde(skip_serializing_if = "always")] f64);
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Labelled(#[serde(skip, serialize_with = "as_text")] f64);
    #[derive(jitson::Encode, Serialize, Debug)]
    enum Length {
        Meters(#[serde(skip)] f64),
        Feet(f64),
    }
    #[derive(jitson::Encode, Serialize, Debug)]
    #[serde(tag = "t", content = "c")]
    enum Adjacent {
        Meters(#[serde(skip_serializing)] f64),
    }
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Holder {
        m: Meters,
        f: Vec<Feet>,
        y: Option<Yards>,
        l: Labelled,
        lengths: Vec<Length>,
        a: Adjacent,
    }
    same(&Meters(1.5));
    same(&vec![Meters(1.5), Meters(-0.0)]);
    same(&Feet(2.0));
    same(&Yards(3.25));
    same(&Labelled(4.0));
    same(&vec![Length::Meters(1.0), Length::Feet(2.0)]);
    same(&Adjacent::Meters(5.0));
    same(&Holder {
        m: Meters(1.0),
        f: vec![Feet(2.0), Feet(f64::NAN)],
        y: Some(Yards(3.0)),
        l: Labelled(4.5),
        lengths: vec![Length::Feet(1.0), Length::Meters(2.0)],
        a: Adjacent::Meters(0.5),
    });
}

/// A map key written through serde (a key type with `serialize_with`, or one
/// `#[jitson(serde)]` routes through serde) is what serde_json's own key
/// serializer makes of it: a string with the options' escapes, a bool, an
/// integer or a float between quotes, a unit variant's name, what a newtype
/// struct or `Some` holds; anything else is refused in serde_json's words.
#[cfg(feature = "serde")]
#[test]
fn map_keys_written_through_serde() {
    use serde::ser::{SerializeSeq, Serializer};
    fn as_float<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(*v as f64)
    }
    /// Each value of `v % 9` makes a different call (`v` 5: a float that is
    /// not finite, 6: a sequence, 7: a unit, 8: bytes, all refused as keys).
    fn calls<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        match v % 9 {
            0 => s.serialize_str("<tag> \"quoted\" caf\u{e9} \u{1F600}"),
            1 => s.serialize_bool(*v > 9),
            2 => s.serialize_i128(-(i128::from(*v) << 70)),
            3 => s.serialize_unit_variant("Level", 1, "Warn"),
            4 => s.serialize_newtype_struct("Id", &Some(*v as f32 / 8.0)),
            5 => s.serialize_f64(f64::NAN),
            6 => s.serialize_seq(Some(0))?.end(),
            7 => s.serialize_unit(),
            _ => s.serialize_bytes(b"ab"),
        }
    }
    fn displayed<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("#{v}\u{2028}"))
    }
    #[derive(jitson::Encode, Serialize, Debug, PartialEq, Eq, PartialOrd, Ord)]
    struct Float(#[serde(serialize_with = "as_float")] u64);
    #[derive(jitson::Encode, Serialize, Debug, PartialEq, Eq, PartialOrd, Ord)]
    struct Routed(#[jitson(serde)] u64);
    #[derive(jitson::Encode, Serialize, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
    struct Call(#[serde(serialize_with = "calls")] u64);
    #[derive(jitson::Encode, Serialize, Debug, PartialEq, Eq, PartialOrd, Ord)]
    struct Displayed(#[serde(serialize_with = "displayed")] u64);
    #[derive(jitson::Encode, Serialize, Debug)]
    struct Holder {
        floats: BTreeMap<Float, u8>,
        calls: Vec<BTreeMap<Call, Option<Routed>>>,
    }

    same(&BTreeMap::from([(Float(3), 1u8)]));
    same(&BTreeMap::from([(Routed(3), (1u8, -1i8))]));
    same(&BTreeMap::from([(Displayed(12), "v")]));
    same(&BTreeMap::from([(Call(1), 1u8)]));
    // Keys of every kind the key serializer takes, in the order of their
    // text too (`same` expects sorted keys to change nothing).
    let taken = [2, 4, 9, 12, 19];
    same(
        &taken
            .map(|v| (Call(v), v))
            .into_iter()
            .collect::<BTreeMap<_, _>>(),
    );
    same(&Holder {
        floats: BTreeMap::from([(Float(1), 1), (Float(2), 2)]),
        calls: vec![
            BTreeMap::new(),
            taken
                .map(|v| (Call(v), Some(Routed(v))))
                .into_iter()
                .collect(),
        ],
    });
    for refused_key in [5, 6, 7, 8] {
        refused(&BTreeMap::from([(Call(refused_key), 1u8)]), "$");
        refused(
            &BTreeMap::from([(Call(0), 0u8), (Call(refused_key), 1)]),
            "$",
        );
        let holder = Holder {
            floats: BTreeMap::new(),
            calls: vec![BTreeMap::from([(Call(refused_key), None)])],
        };
        refused(&holder, "$.calls[0]");
    }
}
