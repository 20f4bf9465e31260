//! Every JSON fixture the pinned model crates ship (read from their crates.io
//! packages in cargo's registry), decoded into the model type the crate's own
//! tests decode it into, by serde_json and by jitson on `Backend::Interpreter`
//! and `Backend::Jit`; values compared through `serde_json::to_value` (the
//! models need not implement `PartialEq`), then serde_json's value re-encoded
//! by jitson on both backends and compared byte for byte with serde_json's
//! compact and pretty output. Then decode and encode timings, jitson's JIT
//! against serde_json, and the layouts `jitson::stats()` says the JIT hands
//! to the interpreter. Run by `scripts/real_models.sh`, which makes the copies
//! of the crates with jitson's derives (see SOURCES.md).
//!
//! Usage: `jitson-real-models [--iters N] [--only SUBSTRING] [--sources FILE] [--verbose]
//! [--loop jit-decode|serde-decode|jit-encode|serde-encode SECONDS]`. `--loop` runs
//! only that one side on the selected cases for about that long each, for a
//! profiler (`perf record`), and prints nothing else.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use jitson::{Backend, Decoder, Encoder};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

#[cfg(any(feature = "aws", feature = "aws-subset"))]
mod aws;
#[cfg(feature = "octocrab")]
mod octocrab;
#[cfg(feature = "openapiv3")]
mod openapiv3;
#[cfg(feature = "cargo_metadata")]
mod cargo_metadata;
#[cfg(feature = "rustdoc-types")]
mod rustdoc_types;

/// One fixture decoded into one type.
pub struct Case {
    pub krate: &'static str,
    /// The fixture's path inside the crate's package.
    pub fixture: &'static str,
    /// The type, as written in the table.
    pub ty: &'static str,
    /// Where the mapping comes from.
    pub note: &'static str,
    pub run: fn(&[u8], &Options) -> Outcome,
    /// The fixture's bytes, when not the file itself (YAML turned into JSON).
    pub convert: Option<fn(&[u8]) -> Vec<u8>>,
}

/// A table entry: `case!("path", Type)` or `case!("path", Type, "note")`.
/// A top-level type whose serde impls are written by hand has no jitson
/// layout of its own (jitson's derives are what give one); decoded by jitson
/// all the same inside this transparent wrapper, whose field goes through the
/// type's serde impls (the `bound` names serde's traits, so the field takes
/// the serde route).
#[derive(jitson::Decode, jitson::Encode, serde::Serialize, serde::Deserialize)]
#[serde(
    transparent,
    bound(deserialize = "T: serde::de::DeserializeOwned", serialize = "T: serde::Serialize")
)]
pub struct ThroughSerde<T>(pub T);


#[macro_export]
macro_rules! case {
    ($krate:expr, $fixture:expr, $ty:ty) => {
        $crate::case!($krate, $fixture, $ty, "")
    };
    ($krate:expr, $fixture:expr, $ty:ty, $note:expr) => {
        $crate::Case {
            krate: $krate,
            fixture: $fixture,
            ty: stringify!($ty),
            note: $note,
            run: $crate::run::<$ty>,
            convert: None,
        }
    };
}

pub struct Options {
    iters: u32,
    /// `--loop`: one side only, for about this many seconds a case.
    profile: Option<(Side, f64)>,
}

/// What `--loop` runs.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    JitDecode,
    SerdeDecode,
    JitEncode,
    SerdeEncode,
}

/// Seconds per call, jitson's JIT and serde_json.
#[derive(Clone, Copy)]
struct Timing {
    decode: (f64, f64),
    /// Compact `to_vec` of serde_json's decoded value; `None` when jitson's
    /// bytes differed (a timing of wrong output would not count).
    encode: Option<(f64, f64)>,
}

#[derive(Default)]
pub struct Outcome {
    /// serde_json's decode error, if it refused the fixture.
    serde: Option<String>,
    /// Per backend (Interpreter, Jit): the decode comparison.
    decode: [Check; 2],
    /// Per backend: compact and pretty encodes of serde_json's value.
    encode: [Check; 2],
    pretty: [Check; 2],
    timing: Option<Timing>,
}

#[derive(Default, Clone)]
enum Check {
    #[default]
    NotRun,
    Equal,
    /// Both refused the input (serde_json and jitson).
    BothRefused,
    Mismatch(String),
}

impl Check {
    fn ok(&self) -> bool {
        matches!(self, Check::Equal | Check::BothRefused)
    }
}

const BACKENDS: [Backend; 2] = [Backend::Interpreter, Backend::Jit];

fn guarded<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!("PANIC: {msg}")
    })
}

/// Runs every comparison of one fixture for `T`.
pub fn run<T>(bytes: &[u8], options: &Options) -> Outcome
where
    T: DeserializeOwned + Serialize + jitson::Decode + jitson::Encode,
{
    let mut outcome = Outcome::default();
    if let Some((side, seconds)) = options.profile {
        profile_loop::<T>(bytes, side, seconds);
        return outcome;
    }
    let theirs = serde_json::from_slice::<T>(bytes);
    let their_value = theirs.as_ref().ok().map(|v| serde_json::to_value(v).map_err(|e| e.to_string()));
    outcome.serde = theirs.as_ref().err().map(|e| e.to_string());
    for (k, backend) in BACKENDS.into_iter().enumerate() {
        let ours = guarded(|| Decoder::<T>::with_backend(backend).decode_slice(bytes));
        outcome.decode[k] = match (&theirs, ours) {
            (_, Err(panic)) => Check::Mismatch(panic),
            (Err(_), Ok(Err(_))) => Check::BothRefused,
            (Err(e), Ok(Ok(_))) => Check::Mismatch(format!("serde_json refuses ({e}), jitson accepts")),
            (Ok(_), Ok(Err(e))) => Check::Mismatch(format!("jitson refuses: {e}")),
            (Ok(_), Ok(Ok(v))) => {
                let ours = serde_json::to_value(&v).map_err(|e| e.to_string());
                match (their_value.as_ref().unwrap(), &ours) {
                    (Ok(a), Ok(b)) if a == b => Check::Equal,
                    (Ok(a), Ok(b)) => Check::Mismatch(value_diff(a, b)),
                    (a, b) => Check::Mismatch(format!("to_value: serde_json's {a:?}, jitson's {b:?}")),
                }
            }
        };
        let Ok(value) = &theirs else { continue };
        outcome.encode[k] = compare_encode(
            serde_json::to_vec(value),
            guarded(|| Encoder::<T>::with_backend(backend).encode(value)),
        );
        outcome.pretty[k] = compare_encode(
            serde_json::to_vec_pretty(value),
            guarded(|| Encoder::<T>::with_backend(backend).pretty(true).encode(value)),
        );
    }
    if outcome.serde.is_none() && matches!(outcome.decode[1], Check::Equal) && options.iters > 0 {
        let decode = time_decode::<T>(bytes, options.iters);
        let encode = match (&theirs, &outcome.encode[1]) {
            (Ok(value), Check::Equal) => Some(time_encode(value, options.iters)),
            _ => None,
        };
        outcome.timing = Some(Timing { decode, encode });
    }
    outcome
}

/// `--loop`: one side on one input for about `seconds`.
fn profile_loop<T>(bytes: &[u8], side: Side, seconds: f64)
where
    T: DeserializeOwned + Serialize + jitson::Decode + jitson::Encode,
{
    let decoder = Decoder::<T>::with_backend(Backend::Jit);
    let encoder = Encoder::<T>::with_backend(Backend::Jit);
    let Ok(value) = serde_json::from_slice::<T>(bytes) else { return };
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < seconds {
        for _ in 0..100 {
            match side {
                Side::JitDecode => drop(std::hint::black_box(decoder.decode_slice(std::hint::black_box(bytes)))),
                Side::SerdeDecode => drop(std::hint::black_box(serde_json::from_slice::<T>(std::hint::black_box(bytes)))),
                Side::JitEncode => drop(std::hint::black_box(encoder.encode(std::hint::black_box(&value)))),
                Side::SerdeEncode => drop(std::hint::black_box(serde_json::to_vec(std::hint::black_box(&value)))),
            }
        }
    }
}

fn compare_encode(
    theirs: serde_json::Result<Vec<u8>>,
    ours: Result<Result<Vec<u8>, jitson::Error>, String>,
) -> Check {
    match (theirs, ours) {
        (_, Err(panic)) => Check::Mismatch(panic),
        (Ok(a), Ok(Ok(b))) if a == b => Check::Equal,
        (Ok(a), Ok(Ok(b))) => Check::Mismatch(bytes_diff(&a, &b)),
        (Ok(_), Ok(Err(e))) => Check::Mismatch(format!("jitson refuses to encode: {e}")),
        (Err(e), Ok(Ok(_))) => Check::Mismatch(format!("serde_json refuses to encode ({e}), jitson encodes")),
        (Err(_), Ok(Err(_))) => Check::BothRefused,
    }
}

/// Seconds per decode for jitson's JIT and serde_json ([`time_pair`]).
fn time_decode<T>(bytes: &[u8], iters: u32) -> (f64, f64)
where
    T: DeserializeOwned + jitson::Decode,
{
    let decoder = Decoder::<T>::with_backend(Backend::Jit);
    time_pair(
        || drop(std::hint::black_box(decoder.decode_slice(std::hint::black_box(bytes)))),
        || drop(std::hint::black_box(serde_json::from_slice::<T>(std::hint::black_box(bytes)))),
        iters,
    )
}

/// Seconds per compact encode of `value` for jitson's JIT and serde_json
/// (`to_vec` both; [`time_pair`]).
fn time_encode<T>(value: &T, iters: u32) -> (f64, f64)
where
    T: Serialize + jitson::Encode,
{
    let encoder = Encoder::<T>::with_backend(Backend::Jit);
    time_pair(
        || drop(std::hint::black_box(encoder.encode(std::hint::black_box(value)))),
        || drop(std::hint::black_box(serde_json::to_vec(std::hint::black_box(value)))),
        iters,
    )
}

/// Seconds per call of `ours` and `theirs`: `iters` calls each, in five
/// alternating rounds, the fastest round of each kept (a shared machine's
/// noise only ever adds time). Fewer calls for large inputs (about 0.4 s of
/// `theirs` per round at most).
fn time_pair(mut ours: impl FnMut(), mut theirs: impl FnMut(), iters: u32) -> (f64, f64) {
    let start = Instant::now();
    theirs();
    let one = start.elapsed().max(Duration::from_nanos(50));
    let rounds = 5u32;
    let per_round = (iters / rounds).clamp(1, (0.4 / one.as_secs_f64()).max(2.0) as u32);
    let (mut best_ours, mut best_theirs) = (f64::MAX, f64::MAX);
    for _ in 0..rounds {
        best_ours = best_ours.min(round(&mut ours, per_round));
        best_theirs = best_theirs.min(round(&mut theirs, per_round));
    }
    (best_ours, best_theirs)
}

/// Seconds per call of `f`, over `calls` calls.
fn round(f: &mut impl FnMut(), calls: u32) -> f64 {
    let start = Instant::now();
    for _ in 0..calls {
        f();
    }
    start.elapsed().as_secs_f64() / calls as f64
}

/// `stats()`'s interpreted layouts, grouped by reason (six a reason unless
/// `verbose`).
fn print_reasons(list: &[(String, String)], verbose: bool) {
    let mut reasons: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (ty, why) in list {
        reasons.entry(why.as_str()).or_default().push(ty.as_str());
    }
    for (why, types) in &reasons {
        println!("{:>4} x {why}", types.len());
        for ty in types.iter().take(if verbose { usize::MAX } else { 6 }) {
            println!("       {ty}");
        }
        if !verbose && types.len() > 6 {
            println!("       … ({} more; --verbose lists all)", types.len() - 6);
        }
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 90 { format!("{}…", &s[..s.floor_char_boundary(90)]) } else { s }
}

/// The first few places where `a` (serde_json's) and `b` (jitson's) differ.
fn value_diff(a: &Value, b: &Value) -> String {
    fn walk(a: &Value, b: &Value, path: &mut String, out: &mut Vec<String>) {
        if out.len() >= 4 || a == b {
            return;
        }
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for key in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                    let len = path.len();
                    path.push('.');
                    path.push_str(key);
                    match (x.get(key), y.get(key)) {
                        (Some(p), Some(q)) => walk(p, q, path, out),
                        (p, q) => out.push(format!(
                            "{path}: serde_json {} / jitson {}",
                            p.map_or("(absent)".into(), short),
                            q.map_or("(absent)".into(), short)
                        )),
                    }
                    path.truncate(len);
                }
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    walk(p, q, path, out);
                    path.truncate(len);
                }
            }
            _ => out.push(format!("{path}: serde_json {} / jitson {}", short(a), short(b))),
        }
    }
    let mut out = Vec::new();
    walk(a, b, &mut String::from("$"), &mut out);
    out.join("; ")
}

/// Where two encodings part, with some context.
fn bytes_diff(a: &[u8], b: &[u8]) -> String {
    let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
    let from = at.saturating_sub(40);
    let show = |s: &[u8]| String::from_utf8_lossy(&s[from.min(s.len())..(at + 40).min(s.len())]).replace('\n', "⏎");
    format!(
        "byte {at} of {}/{}: serde_json …{}… / jitson …{}…",
        a.len(),
        b.len(),
        show(a),
        show(b)
    )
}

/// `NAME VERSION DIR` lines written by `prepare fetch`.
fn read_sources(file: &Path) -> BTreeMap<String, (String, PathBuf)> {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("{}: {e} (run scripts/real_models.sh)", file.display()));
    text.lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, ' ');
            Some((parts.next()?.to_string(), (parts.next()?.to_string(), PathBuf::from(parts.next()?))))
        })
        .collect()
}

/// Every fixture a crate ships: (directory inside the package, extensions).
fn fixture_dirs(krate: &str) -> &'static [(&'static str, &'static [&'static str])] {
    match krate {
        "aws_lambda_events" => &[("src/fixtures", &["json"])],
        "octocrab" => &[("tests/resources", &["json"])],
        "openapiv3" => &[("fixtures", &["json", "yaml"])],
        _ => &[],
    }
}

/// Fixtures of a crate's features this build leaves out (`aws-subset`).
fn not_built(krate: &str, path: &str) -> bool {
    #[cfg(all(feature = "aws-subset", not(feature = "aws")))]
    if krate == "aws_lambda_events" && aws::FULL_ONLY.contains(&path) {
        return true;
    }
    let _ = (krate, path);
    false
}

fn cases() -> Vec<Case> {
    #[allow(unused_mut)]
    let mut all = Vec::new();
    #[cfg(any(feature = "aws", feature = "aws-subset"))]
    all.extend(aws::cases());
    #[cfg(feature = "octocrab")]
    all.extend(octocrab::cases());
    #[cfg(feature = "openapiv3")]
    all.extend(openapiv3::cases());
    #[cfg(feature = "cargo_metadata")]
    all.extend(cargo_metadata::cases());
    #[cfg(feature = "rustdoc-types")]
    all.extend(rustdoc_types::cases());
    all
}

fn geomean(ratios: &[f64]) -> f64 {
    if ratios.is_empty() {
        return f64::NAN;
    }
    (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp()
}

fn main() {
    let mut options = Options { iters: 300, profile: None };
    let mut only = None;
    let mut verbose = false;
    let mut sources = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/work/sources.txt");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--iters" => options.iters = args.next().and_then(|n| n.parse().ok()).expect("--iters N"),
            "--only" => only = args.next(),
            "--sources" => sources = args.next().expect("--sources FILE").into(),
            "--verbose" => verbose = true,
            "--loop" => {
                let side = match args.next().as_deref() {
                    Some("jit-decode") => Side::JitDecode,
                    Some("serde-decode") => Side::SerdeDecode,
                    Some("jit-encode") => Side::JitEncode,
                    Some("serde-encode") => Side::SerdeEncode,
                    other => panic!("--loop jit-decode|serde-decode|jit-encode|serde-encode SECONDS, not {other:?}"),
                };
                let seconds = args.next().and_then(|n| n.parse().ok()).expect("--loop SIDE SECONDS");
                options.profile = Some((side, seconds));
            }
            other => panic!("unknown argument {other}"),
        }
    }
    if !Backend::Jit.is_available() {
        eprintln!("the JIT is not available in this process (JITSON_DISABLE_JIT?): its columns fail");
    }
    // jitson's panics are reported as mismatches; keep their messages short.
    std::panic::set_hook(Box::new(|info| eprintln!("panic: {info}")));
    let generated = sources.with_file_name("generated");
    let sources = read_sources(&sources);
    let all: Vec<Case> = cases()
        .into_iter()
        .filter(|c| only.as_ref().is_none_or(|o| c.fixture.contains(o.as_str()) || c.ty.contains(o.as_str())))
        .collect();

    // Fixtures shipped but not in a table, and table entries with no file.
    let mut krates: Vec<&str> = all.iter().map(|c| c.krate).collect();
    krates.dedup();
    for krate in &krates {
        let (_, dir) = &sources[*krate];
        for (sub, exts) in fixture_dirs(krate) {
            let mut files: Vec<String> = std::fs::read_dir(dir.join(sub))
                .map(|d| d.filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned())).collect())
                .unwrap_or_default();
            files.sort();
            for f in files {
                let path = format!("{sub}/{f}");
                if exts.iter().any(|x| f.ends_with(&format!(".{x}")))
                    && only.is_none()
                    && !not_built(krate, &path)
                    && !all.iter().any(|c| c.krate == *krate && c.fixture == path)
                {
                    println!("UNMAPPED {krate} {path}: shipped, in no table");
                }
            }
        }
    }

    #[derive(Default)]
    struct Tally {
        fixtures: std::collections::BTreeSet<&'static str>,
        cases: usize,
        serde_ok: usize,
        decode: [usize; 2],
        encode: [usize; 2],
        pretty: [usize; 2],
        encoded: usize,
        ratios: Vec<f64>,
        encode_ratios: Vec<f64>,
    }
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut mismatches = Vec::new();
    let mut timings = Vec::new();
    for case in &all {
        let (version, dir) = &sources[case.krate];
        // Fixtures `prepare generate` made, beside the sources' list.
        let path = match case.fixture.strip_prefix("generated/") {
            Some(rest) => generated.join(rest),
            None => dir.join(case.fixture),
        };
        let Ok(raw) = std::fs::read(&path) else {
            println!("MISSING {} {}: in the table, not in {} {version}", case.krate, case.fixture, case.krate);
            continue;
        };
        let bytes = match case.convert {
            Some(f) => f(&raw),
            None => raw,
        };
        let outcome = (case.run)(&bytes, &options);
        let t = tallies.entry(case.krate).or_default();
        t.fixtures.insert(case.fixture);
        t.cases += 1;
        if outcome.serde.is_none() {
            t.serde_ok += 1;
            t.encoded += 1;
        }
        for k in 0..2 {
            t.decode[k] += outcome.decode[k].ok() as usize;
            t.encode[k] += outcome.encode[k].ok() as usize;
            t.pretty[k] += outcome.pretty[k].ok() as usize;
        }
        let label = format!("{} {} as {}", case.krate, case.fixture, case.ty);
        if let Some(e) = &outcome.serde {
            mismatches.push(format!("note: serde_json refuses {label}: {e}"));
        }
        for (what, checks) in [("decode", &outcome.decode), ("encode", &outcome.encode), ("pretty", &outcome.pretty)] {
            for (k, check) in checks.iter().enumerate() {
                if let Check::Mismatch(diff) = check {
                    mismatches.push(format!("{what} {} {label}: {diff}", BACKENDS[k].name()));
                }
            }
        }
        if let Some(timing) = outcome.timing {
            let (ours, theirs) = timing.decode;
            t.ratios.push(ours / theirs);
            if let Some((ours, theirs)) = timing.encode {
                t.encode_ratios.push(ours / theirs);
            }
            timings.push((label.clone(), bytes.len(), timing));
        }
        if verbose {
            println!("done {label}");
        }
    }

    if options.profile.is_some() {
        return;
    }
    println!("\n== Decode and encode against serde_json (per fixture/type case)");
    println!(
        "{:<20} {:>8} {:>6} {:>9} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}",
        "crate", "fixtures", "cases", "serde ok", "dec interp", "dec jit", "enc interp", "enc jit", "pretty int", "pretty jit"
    );
    let mut total = Tally::default();
    for (krate, t) in &tallies {
        println!(
            "{:<20} {:>8} {:>6} {:>9} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}",
            krate,
            t.fixtures.len(),
            t.cases,
            t.serde_ok,
            format!("{}/{}", t.decode[0], t.cases),
            format!("{}/{}", t.decode[1], t.cases),
            format!("{}/{}", t.encode[0], t.encoded),
            format!("{}/{}", t.encode[1], t.encoded),
            format!("{}/{}", t.pretty[0], t.encoded),
            format!("{}/{}", t.pretty[1], t.encoded),
        );
        total.cases += t.cases;
        total.fixtures.extend(t.fixtures.iter().map(|f| *f));
        total.serde_ok += t.serde_ok;
        total.encoded += t.encoded;
        for k in 0..2 {
            total.decode[k] += t.decode[k];
            total.encode[k] += t.encode[k];
            total.pretty[k] += t.pretty[k];
        }
        total.ratios.extend(&t.ratios);
        total.encode_ratios.extend(&t.encode_ratios);
    }
    println!(
        "{:<20} {:>8} {:>6} {:>9} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}",
        "total",
        tallies.values().map(|t| t.fixtures.len()).sum::<usize>(),
        total.cases,
        total.serde_ok,
        format!("{}/{}", total.decode[0], total.cases),
        format!("{}/{}", total.decode[1], total.cases),
        format!("{}/{}", total.encode[0], total.encoded),
        format!("{}/{}", total.encode[1], total.encoded),
        format!("{}/{}", total.pretty[0], total.encoded),
        format!("{}/{}", total.pretty[1], total.encoded),
    );
    println!("(a decode counts as equal when both decode to the same serde_json::to_value, or both refuse; encodes are of serde_json's decoded value)");

    println!("\n== Mismatches ({})", mismatches.iter().filter(|m| !m.starts_with("note:")).count());
    for m in &mismatches {
        println!("{m}");
    }

    println!(
        "\n== Time, jitson JIT / serde_json (best of 5 rounds, up to {} calls each; encode: compact to_vec of serde_json's value)",
        options.iters
    );
    if verbose {
        println!("{:>11} {:>11} {:>6}  {:>11} {:>11} {:>6} {:>9}", "dec jitson", "serde_json", "ratio", "enc jitson", "serde_json", "ratio", "bytes");
        for (label, len, timing) in &timings {
            let (ours, theirs) = timing.decode;
            let encode = match timing.encode {
                Some((o, t)) => format!("{:>8.2} µs {:>8.2} µs {:>5.2}x", o * 1e6, t * 1e6, o / t),
                None => format!("{:>34}", "(not timed)"),
            };
            println!("{:>8.2} µs {:>8.2} µs {:>5.2}x  {encode} {len:>8} B  {label}", ours * 1e6, theirs * 1e6, ours / theirs);
        }
    }
    let line = |name: &str, t: &Tally| {
        println!(
            "{name:<20} geometric mean ratio decode {:.3} over {} cases, encode {:.3} over {}",
            geomean(&t.ratios),
            t.ratios.len(),
            geomean(&t.encode_ratios),
            t.encode_ratios.len()
        )
    };
    for (krate, t) in &tallies {
        line(krate, t);
    }
    line("all", &total);
    let ratio = |t: &(String, usize, Timing)| t.2.decode.0 / t.2.decode.1;
    if let (Some(min), Some(max)) = (
        timings.iter().min_by(|a, b| ratio(a).total_cmp(&ratio(b))),
        timings.iter().max_by(|a, b| ratio(a).total_cmp(&ratio(b))),
    ) {
        println!("decode: best {:.2}x ({}), worst {:.2}x ({})", ratio(min), min.0, ratio(max), max.0);
    }

    let stats = jitson::stats();
    for (what, list) in [
        ("the JIT hands to the interpreter", &stats.interpreted_layouts),
        ("the compiled encoders hand to the interpreter", &stats.encoder_interpreted_layouts),
    ] {
        println!("\n== jitson::stats(): {} layouts {what}", list.len());
        print_reasons(list, verbose);
    }
    println!(
        "decodes: jit {}, interpreter {}; compile failures {}, layouts compiled {}, encoders compiled {}",
        stats.jit_decodes,
        stats.interpreter_decodes,
        stats.compile_failures.len(),
        stats.layouts_compiled,
        stats.encoders_compiled
    );
    for (ty, err) in &stats.compile_failures {
        println!("  compile failure {ty}: {err}");
    }
    let failed = mismatches.iter().any(|m| !m.starts_with("note:"));
    std::process::exit(if failed { 1 } else { 0 });
}
