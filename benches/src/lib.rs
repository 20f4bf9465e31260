//! What the two benches share: the models of the corpus files and the seed types
//! (the very files `examples/compare.rs` uses), the generated seed data, the
//! corpus location, and the check that a contender decoded the reference value.
//!
//! - `cargo bench -p jitson-benches --bench decode`: decode throughput (MB/s) of
//!   jitson (JIT and interpreter), serde_json, sonic-rs and simd-json, one criterion
//!   group per data set.
//! - `cargo bench -p jitson-benches --bench compile`: JIT compile latency, and the
//!   first decode of new types issued from several threads at once.
//!
//! See `docs/benchmarks.md` for the commands and the numbers.

use std::fmt::Debug;
use std::path::{Path, PathBuf};

use serde::Serialize;

#[path = "../../examples/models/everyday.rs"]
pub mod everyday;
#[path = "../../examples/models/mod.rs"]
pub mod models;
#[path = "../../examples/models/seed.rs"]
pub mod seed;

use seed::Rng;

/// `n` documents, each one value `make` builds from an `Rng` seeded with
/// `seed` (the same sequence every run), serialised by serde_json.
pub fn documents<T: Serialize>(
    n: u64,
    seed: u64,
    make: impl Fn(&mut Rng, u64) -> T,
) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| serde_json::to_vec(&make(&mut rng, i)).expect("serialise"))
        .collect()
}

/// The directory holding `twitter.json`, `citm_catalog.json` and `canada.json`, or
/// `None` (the corpus groups are then skipped with a notice).
///
/// `$JITSON_CORPUS/bench` when `JITSON_CORPUS` is set (as [`models::corpus_dir`]);
/// otherwise `../shared/corpus/bench` beside the *workspace* root. (Compiled into
/// this crate, [`models::corpus_dir`] alone would look beside `benches/`, one level
/// too deep.)
pub fn corpus_dir() -> Option<PathBuf> {
    if std::env::var_os("JITSON_CORPUS").is_some_and(|v| !v.is_empty()) {
        return models::corpus_dir();
    }
    models::corpus_dir().or_else(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/bench");
        dir.is_dir().then_some(dir)
    })
}

/// The notice printed when the corpus is absent.
pub const NO_CORPUS: &str = "NOTICE: corpus not found (../shared/corpus/bench beside the workspace, \
     or $JITSON_CORPUS/bench): twitter, citm_catalog and canada skipped";

/// One generated value, serialised compactly: the single-document data sets.
pub fn one<T: Serialize>(seed: u64, make: impl Fn(&mut Rng, u64) -> T) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    serde_json::to_vec(&make(&mut rng, 0)).expect("serialise")
}

/// `n` generated values as one compact JSON array: the array data sets.
pub fn array<T: Serialize>(n: u64, seed: u64, make: impl Fn(&mut Rng, u64) -> T) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let values: Vec<T> = (0..n).map(|i| make(&mut rng, i)).collect();
    serde_json::to_vec(&values).expect("serialise")
}

/// Panics unless `got` is `Ok(expected)`; the message shows where the `Debug`
/// forms first differ (a whole twitter.json value is too long to print).
pub fn check<T: PartialEq + Debug, E: std::fmt::Display>(
    data: &str,
    contender: &str,
    got: Result<T, E>,
    expected: &T,
) {
    match got {
        Ok(v) if v == *expected => {}
        Ok(v) => {
            let (a, b) = (format!("{v:?}"), format!("{expected:?}"));
            let at = a
                .bytes()
                .zip(b.bytes())
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            let excerpt = |s: &str| {
                let start = s.floor_char_boundary(at.saturating_sub(120));
                let end = s.ceil_char_boundary((at + 120).min(s.len()));
                s[start..end].to_owned()
            };
            panic!(
                "{data}: {contender} decoded a value different from serde_json's; first \
                 difference at byte {at} of the Debug form:\n  got      …{}…\n  expected …{}…",
                excerpt(&a),
                excerpt(&b)
            );
        }
        Err(e) => panic!("{data}: {contender} failed: {e}"),
    }
}
