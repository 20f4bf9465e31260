//! rust_decimal's `Decimal` (feature `rust_decimal`, issue 38), held to
//! rust_decimal's own serde impl through serde_json on every backend:
//! generated values encode to the same bytes and decode to the same value,
//! hostile strings and numbers are accepted and refused alike (with
//! rust_decimal's message), and structs of them stay compiled.
//!
//! `Decimal`'s `==` compares numbers (`1.0 == 1.00`, `-0 == 0`), so values are
//! compared exactly: sign, mantissa and scale (`Decimal::serialize`).

use crate::common;
use crate::encodes_as_serde_json;

use common::oracle;
use jitson::Backend;
use proptest::prelude::*;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use std::str::FromStr;

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Amounts {
    price: Decimal,
    discount: Option<Decimal>,
    lines: Vec<Decimal>,
    #[serde(with = "rust_decimal::serde::str")]
    text: Decimal,
    #[serde(with = "rust_decimal::serde::float")]
    float: Decimal,
    #[serde(with = "rust_decimal::serde::float_option")]
    float_opt: Option<Decimal>,
}

/// One field of `T`, for texts tried alone.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct One<T> {
    t: T,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Str {
    #[serde(with = "rust_decimal::serde::str")]
    t: Decimal,
}

/// The exact values: the JSON rust_decimal's serializer writes for them
/// (sign, digits and scale).
fn same<A: Serialize, B: Serialize>(a: &A, b: &B) -> bool {
    serde_json::to_string(a).unwrap() == serde_json::to_string(b).unwrap()
}

/// Asserts `doc` is read by every backend as serde_json reads it (the same
/// sign, mantissa and scale), and refused with the same reason.
#[track_caller]
fn reads_as_rust_decimal<T>(doc: &str)
where
    T: jitson::Decode + for<'de> Deserialize<'de> + Serialize + PartialEq + Debug,
{
    let ours = common::decode::<T>(doc.as_bytes());
    let theirs = serde_json::from_str::<T>(doc);
    if let (Err(a), Err(b)) = (&ours, &theirs) {
        crate::assert_same_reason(&doc, a, b);
    }
    let _ = oracle::compare(doc.as_bytes(), ours, theirs, same);
}

fn dec(text: &str) -> Decimal {
    Decimal::from_str(text).unwrap()
}

/// The assumption `core/src/foreign/rust_decimal.rs` documents: this build's
/// rust_decimal has its default serde form (not `serde-str`, `serde-float`
/// or `serde-arbitrary-precision`): written as a string, read from strings
/// and from numbers through `f64`.
#[test]
fn rust_decimal_has_its_default_serde_form_in_this_build() {
    assert_eq!(serde_json::to_string(&dec("-1.50")).unwrap(), r#""-1.50""#);
    assert_eq!(serde_json::to_string(&-dec("0.00")).unwrap(), r#""-0.00""#);
    let read: Decimal = serde_json::from_str("0.10").unwrap();
    assert_eq!(read.to_string(), "0.1");
    let read: Decimal = serde_json::from_str(r#""0.10""#).unwrap();
    assert_eq!(read.to_string(), "0.10");
}

fn sample() -> Amounts {
    Amounts {
        price: dec("12.50"),
        discount: Some(-dec("0.000")),
        lines: vec![
            Decimal::MAX,
            Decimal::MIN,
            dec("0.0000000000000000000000000001"),
        ],
        text: dec("-7"),
        float: dec("0.1"),
        float_opt: None,
    }
}

#[test]
fn a_struct_of_decimals_round_trips_as_serde_json() {
    let value = sample();
    encodes_as_serde_json(&value);
    let json = serde_json::to_string(&value).unwrap();
    reads_as_rust_decimal::<Amounts>(&json);
    let mut other = value.clone();
    other.discount = None;
    other.float_opt = Some(dec("123456789.123456789"));
    encodes_as_serde_json(&other);
}

#[test]
fn structs_of_decimals_stay_compiled() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Amounts>().unwrap();
    jitson::warm_up_encode::<Amounts>().unwrap();
    let interpreted = jitson::stats().interpreted_layouts;
    // The `with` fields' serde layouts are listed (the derive builds them
    // beside the native ones), but nothing of `Decimal` is handed over
    // otherwise.
    assert!(
        !interpreted
            .iter()
            .any(|(ty, why)| (ty.starts_with("rust_decimal::")
                || ty.contains("foreign::rust_decimal::"))
                && !why.contains("serde")),
        "{interpreted:?}"
    );
    common::assert_compiled(&["Amounts"]);
}

/// Strings rust_decimal reads or refuses: the plain forms the fast path
/// reads and every form around them.
const STRINGS: &[&str] = &[
    "0",
    "-0",
    "0.00",
    "-0.00",
    "1",
    "-1",
    "1.5",
    "1.50",
    "-1.50",
    "007.5",
    "0.0000000000000000000000000001",
    "0.00000000000000000000000000001",
    "0.00000000000000000000000000005",
    "0.00000000000000000000000000015",
    "1.0000000000000000000000000001",
    "1.00000000000000000000000000015",
    "1.00000000000000000000000000025",
    "9999999999999999999999999999",
    "79228162514264337593543950335",
    "79228162514264337593543950336",
    "-79228162514264337593543950335",
    "7922816251426433759354395033.5",
    "7922816251426433759354395033.56",
    "792281625142643375935439503351",
    "1e3",
    "1E3",
    "1.5e-3",
    "-1.5e+3",
    "1e-28",
    "1e-29",
    "1e28",
    "1e29",
    "+1.5",
    ".5",
    "5.",
    "-.5",
    "1_000.5",
    "1,5",
    " 1.5",
    "1.5 ",
    "",
    "-",
    ".",
    "abc",
    "0x10",
    "NaN",
    "inf",
    "1.2.3",
    "--1",
    "\u{0661}",
];

#[test]
fn strings_are_read_as_rust_decimal_reads_them() {
    for text in STRINGS {
        let doc = format!(r#"{{"t":{}}}"#, serde_json::to_string(text).unwrap());
        reads_as_rust_decimal::<One<Decimal>>(&doc);
        reads_as_rust_decimal::<Str>(&doc);
    }
}

/// Numbers serde_json hands rust_decimal's visitor as u64, i64 or f64.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "0.0",
    "-0.0",
    "1",
    "-1",
    "1.5",
    "1.50",
    "0.10",
    "100.0",
    "1e2",
    "1E-2",
    "-1.5e3",
    "0.1e1",
    "123456789012345",
    "1234567890.12345",
    "1234567890.123456",
    "0.1234567890123456789",
    "0.30000000000000004",
    "0.300000000000000001",
    "123456789012345.6",
    "12345678901234.56",
    "1.00000000000000001",
    "0.000000000000001",
    "0.0000000000000000000000000001",
    "1e-28",
    "1e-29",
    "1e-300",
    "5e-324",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "-9223372036854775809",
    "79228162514264337593543950335",
    "1e28",
    "7.9e28",
    "7.93e28",
    "1e29",
    "1e300",
    "1.7976931348623157e308",
    "1e309",
    "-1e400",
    "100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
    "null",
    "true",
    "[]",
    "{}",
    "[1.5]",
];

#[test]
fn numbers_are_read_as_rust_decimal_reads_them() {
    for number in NUMBERS {
        let doc = format!(r#"{{"t":{number}}}"#);
        reads_as_rust_decimal::<One<Decimal>>(&doc);
        reads_as_rust_decimal::<Str>(&doc);
        reads_as_rust_decimal::<One<Option<Decimal>>>(&doc);
    }
}

/// A decimal of any mantissa, scale and sign.
fn decimals() -> impl Strategy<Value = Decimal> {
    let mantissa = prop_oneof![
        Just(0i128),
        -1_000_000i128..1_000_000,
        any::<i64>().prop_map(i128::from),
        -79_228_162_514_264_337_593_543_950_335i128..=79_228_162_514_264_337_593_543_950_335,
    ];
    (mantissa, 0u32..=28, any::<bool>()).prop_map(|(m, scale, negative)| {
        let mut d = Decimal::from_i128_with_scale(m, scale);
        if m == 0 {
            d.set_sign_negative(negative);
        }
        d
    })
}

proptest! {
    #[test]
    fn generated_values_agree_with_rust_decimal(
        a in decimals(),
        b in decimals(),
        c in decimals(),
        d in decimals(),
    ) {
        let value = Amounts {
            price: a,
            discount: Some(b),
            lines: vec![c, d],
            text: b,
            float: c,
            float_opt: Some(d),
        };
        encodes_as_serde_json(&value);
        let json = serde_json::to_string(&value).unwrap();
        reads_as_rust_decimal::<Amounts>(&json);
    }

    #[test]
    fn generated_texts_agree_with_rust_decimal(
        text in prop_oneof![
            "-?[0-9]{1,30}(\\.[0-9]{1,30})?",
            "-?[0-9]{1,20}(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?",
            "[-+0-9.eE_]{1,12}",
        ],
        number in prop_oneof![
            "-?(0|[1-9][0-9]{0,25})(\\.[0-9]{1,25})?",
            "-?(0|[1-9][0-9]{0,20})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?",
            // The fast path's numbers: few significant digits, trailing zeros.
            "-?(0|[1-9][0-9]{0,6})\\.0{0,8}[0-9]{1,8}0{0,3}",
        ],
        float in any::<f64>(),
    ) {
        let doc = format!(r#"{{"t":{}}}"#, serde_json::to_string(&text).unwrap());
        reads_as_rust_decimal::<One<Decimal>>(&doc);
        reads_as_rust_decimal::<One<Decimal>>(&format!(r#"{{"t":{number}}}"#));
        if float.is_finite() {
            let number = serde_json::to_string(&float).unwrap();
            reads_as_rust_decimal::<One<Decimal>>(&format!(r#"{{"t":{number}}}"#));
        }
    }
}
