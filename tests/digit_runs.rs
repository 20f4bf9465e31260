//! Digit runs of every length at every distance from the end of the input: the
//! JIT scans digits eight bytes at a time where eight bytes remain (SWAR) and one
//! at a time near the end, and the boundary between the two, the count limits
//! (18 digits for integers, 19 for float significands) and whatever byte ends
//! the run must not change a value or an error. Every document is decoded by
//! every backend (`common::decode`, which insists they agree exactly) and by
//! serde_json (`common::oracle`).

mod common;

use serde::Deserialize;

#[derive(jitson::Decode, Deserialize, Debug, PartialEq)]
struct Numbers {
    a: u64,
    b: i64,
    c: f64,
    d: f32,
    e: u8,
}

/// Values of all kinds for a run of `n` digits (no leading zero), signed and
/// not, with a fraction and an exponent, in and out of f64's range.
fn texts(n: usize) -> Vec<String> {
    let run: String = (0..n)
        .map(|i| char::from(b'1' + (i * 7 % 9) as u8))
        .collect();
    let nines = "9".repeat(n);
    vec![
        run.clone(),
        format!("-{run}"),
        nines.clone(),
        format!("{run}.{run}"),
        format!("-0.{run}"),
        format!("{run}e5"),
        format!("{nines}.{nines}E-3"),
        format!("1{}", "0".repeat(n)),
        // Out of range (an error) and below the smallest subnormal (zero):
        // the helper scans these from the number's start.
        format!("{run}e999"),
        format!("-{run}.5E-999"),
    ]
}

/// What may follow the number: the object's end, more members, whitespace, and
/// bytes that make the document malformed (including bytes whose carry would
/// spoil the SWAR test of the next byte).
const AFTER: &[&[u8]] = &[
    b"}", b", ", b" }", b"x}", b"/}", b":}", b"\xfa}", b"\xff}", b"-}", b".}",
];

#[test]
fn digit_runs_agree_everywhere() {
    let mut checked = 0;
    for n in 1..=26 {
        for text in texts(n) {
            for after in AFTER {
                // The number in the last field, then in the first: the run ends
                // at every distance from the end of the input.
                for pad in 0..10 {
                    let mut last = format!(r#"{{"a":1,"b":2,"c":3,"d":4,"e":{text}"#).into_bytes();
                    last.extend_from_slice(after);
                    last.extend(std::iter::repeat_n(b' ', pad));
                    let _ = common::oracle::agree::<Numbers>(&last);
                    for field in ["a", "b", "c", "d"] {
                        let mut doc = format!(r#"{{"{field}":{text}"#).into_bytes();
                        doc.extend_from_slice(after);
                        let rest = [("a", "1"), ("b", "2"), ("c", "3"), ("d", "4"), ("e", "5")]
                            .iter()
                            .filter(|(f, _)| *f != field)
                            .map(|(f, v)| format!(r#""{f}":{v}"#))
                            .collect::<Vec<_>>()
                            .join(",");
                        if after.starts_with(b",") {
                            doc.extend_from_slice(rest.as_bytes());
                            doc.push(b'}');
                        }
                        doc.extend(std::iter::repeat_n(b' ', pad));
                        let _ = common::oracle::agree::<Numbers>(&doc);
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 40_000, "{checked}");
}

/// Integers of 1 to 20 digits as the whole document, so the run always ends at
/// the end of the input, and with one to nine trailing spaces.
#[test]
fn a_number_alone_ends_anywhere() {
    for n in 1..=20 {
        let run: String = (0..n)
            .map(|i| char::from(b'0' + ((i + 1) % 10) as u8))
            .collect();
        for pad in 0..10 {
            let doc = format!("{run}{}", " ".repeat(pad));
            let _ = common::oracle::agree::<u64>(doc.as_bytes());
            let _ = common::oracle::agree::<i64>(format!("-{doc}").as_bytes());
            let _ = common::oracle::agree::<f64>(format!("0.{doc}").as_bytes());
            let _ = common::oracle::agree::<Vec<u32>>(
                format!("[{run},{run}]{}", " ".repeat(pad)).as_bytes(),
            );
        }
    }
}

/// Significands of 16 to 19 digits with 0 to 19 of them after the point: the
/// range where the JIT converts in IR (Eisel–Lemire, `emit_eisel_lemire`) and
/// hands the rest to the helper, whose boundaries (5 and 19 fraction digits, a
/// first product to refine) this crosses. Random digits, and the 17 digits of a
/// random f64 with the last one moved by up to 2, which sit next to a rounding
/// boundary. Every backend, against serde_json (`float_roundtrip`).
mod long_significands {
    use super::{Numbers, common};
    use proptest::prelude::*;

    fn significand() -> impl Strategy<Value = String> {
        prop_oneof![
            "[1-9][0-9]{15,18}",
            (1e-3..1e5f64, -2i64..=2).prop_map(|(x, delta)| {
                let digits: String = format!("{x:.16e}")
                    .chars()
                    .filter(char::is_ascii_digit)
                    .take(17)
                    .collect();
                let moved = digits.parse::<u64>().unwrap().saturating_add_signed(delta);
                moved.max(10_000_000_000_000_000).to_string()
            }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]
        #[test]
        fn round_as_serde_json_rounds(digits in significand(), point in 0usize..=19, negative: bool) {
            let point = point.min(digits.len());
            let (int, frac) = digits.split_at(digits.len() - point);
            let sign = if negative { "-" } else { "" };
            let int = if int.is_empty() { "0" } else { int };
            let text = if frac.is_empty() { format!("{sign}{int}") } else { format!("{sign}{int}.{frac}") };
            let doc = format!(r#"{{"a":1,"b":2,"c":{text},"d":4,"e":5}}"#);
            let decoded = common::oracle::agree::<Numbers>(doc.as_bytes());
            prop_assert!(decoded.is_ok(), "{doc}");
        }
    }
}
