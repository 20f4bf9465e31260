//! Capacity hints (JIT `Vec` sites reserve what their recent vectors held): a
//! long vector among short ones must not leave the short ones holding its
//! capacity. Found by a hostile review: with a hint that decayed slowly, one
//! 8,192-element row in twenty made the JIT's result keep 8.5 times the memory
//! serde_json's does. Every backend must stay within twice serde_json's
//! footprint, on the first decode and after the site has learned.

mod common;

use jitson::Decoder;

/// Bytes of element storage a `Vec<Vec<u64>>` holds (capacity, not length).
#[allow(clippy::ptr_arg, reason = "the outer vector's capacity counts too")]
fn kept(rows: &Vec<Vec<u64>>) -> usize {
    rows.iter().map(|r| r.capacity() * 8).sum::<usize>() + rows.capacity() * 24
}

/// `count` rows of two numbers, except every `long_every`-th (and the one after
/// it, with `pairs`), which has `long_len`.
fn rows_document(count: usize, long_every: usize, long_len: usize, pairs: bool) -> String {
    let rows: Vec<String> = (0..count)
        .map(|i| {
            let long = i % long_every == 0 || (pairs && i % long_every == 1);
            if long {
                format!("[{}]", vec!["0"; long_len].join(","))
            } else {
                "[1,2]".to_owned()
            }
        })
        .collect();
    format!("[{}]", rows.join(","))
}

#[test]
fn long_rows_among_short_ones_do_not_inflate_the_short_ones() {
    for (long_every, pairs) in [(20, false), (20, true), (3, false)] {
        let doc = rows_document(2000, long_every, 8192, pairs);
        let serde: Vec<Vec<u64>> = serde_json::from_str(&doc).unwrap();
        let limit = 2 * kept(&serde);
        for backend in common::backends() {
            let decoder = Decoder::<Vec<Vec<u64>>>::with_backend(backend);
            // The first decode, then one after the sites have seen the pattern.
            for round in 0..2 {
                let rows = decoder.decode_str(&doc).unwrap();
                assert_eq!(rows, serde);
                assert!(
                    kept(&rows) <= limit,
                    "{} (round {round}, a long row every {long_every}, pairs {pairs}): keeps {} B, serde_json {} B",
                    backend.name(),
                    kept(&rows),
                    kept(&serde)
                );
            }
        }
    }
}

#[test]
fn a_short_document_after_a_long_one_stays_short() {
    let long = rows_document(4, 1, 10_000, false);
    let short = rows_document(2000, usize::MAX, 0, false);
    let serde_short: Vec<Vec<u64>> = serde_json::from_str(&short).unwrap();
    for backend in common::backends() {
        let decoder = Decoder::<Vec<Vec<u64>>>::with_backend(backend);
        decoder.decode_str(&long).unwrap();
        let rows = decoder.decode_str(&short).unwrap();
        assert_eq!(rows, serde_short);
        assert!(
            kept(&rows) <= 2 * kept(&serde_short) + 2 * 10_000 * 8,
            "{}: keeps {} B, serde_json {} B",
            backend.name(),
            kept(&rows),
            kept(&serde_short)
        );
    }
}
