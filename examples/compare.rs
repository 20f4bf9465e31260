//! The main job: decode the same data with every jitson backend, serde_json,
//! sonic-rs and simd-json, check that every result is equal, and print how fast
//! each was and how much it allocated.
//!
//! Data: thousands of generated seed-type documents (`User`, `Order`, `Account`, and
//! an array of 1,000 `Order`s), built here deterministically; and, when
//! `../shared/corpus/bench/` exists, twitter.json, citm_catalog.json and
//! canada.json decoded into all-fields models whose every struct denies unknown
//! fields (so nothing is skipped).
//!
//! Contenders: `jitson::from_slice` and `jitson::from_str` with each backend,
//! `serde_json::from_slice`, `serde_json::from_str`, `sonic_rs::from_slice`, and
//! simd-json's serde API, which parses in place and so needs a mutable copy of the
//! input: `simd_json::serde::from_slice` decodes a copy made outside the timing,
//! `simd_json::serde::from_slice (copy)` pays for the copy too. sonic-rs and
//! simd-json decode through the same `#[derive(Deserialize)]` impls as serde_json.
//!
//! Timing: the contenders are interleaved round by round (these machines are noisy;
//! in each round every contender decodes the data set as many times over as
//! serde_json::from_slice needs to take 20 ms) and the table shows medians; "vs serde" is the median of the per-round ratios
//! serde_json::from_slice time / contender time (higher is faster), with its range.
//!
//! Allocations: a counting global allocator, switched on for one separate, untimed
//! pass over the data per contender. `allocs/op` counts the calls that obtain memory
//! (`alloc`, `alloc_zeroed`, `realloc`), `bytes/op` the bytes they ask for (a
//! `realloc` counts its new size), and `owned/op` the heap blocks still live after
//! the decode while the value is kept: the blocks the value owns. A decoder that
//! allocates each `String`, `Vec` and `Box` once, at its final size, and nothing
//! else, has `allocs/op == owned/op`.
//!
//! Run: `cargo run --release --example compare` (add `-- --quick` for fewer rounds;
//! `COMPARE_ONLY=<text>` keeps the data sets whose name contains it;
//! `COMPARE_ONLY=first` prints the first-call tables alone, `COMPARE_ONLY=marshal`
//! the Marshal tables alone).

#[path = "models/everyday.rs"]
mod everyday;
#[path = "models/foreign.rs"]
mod foreign;
#[path = "marshal/mod.rs"]
mod marshal;
#[path = "models/mod.rs"]
mod models;
#[path = "models/seed.rs"]
mod seed;

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Debug;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use jitson::{Backend, Decode, Decoder, Tiering};
use serde::Serialize;
use serde::de::DeserializeOwned;

use seed::{Account, Order, Rng, User};

/// The system allocator, counting while [`COUNTING`] is on.
struct CountingAlloc;

static COUNTING: AtomicBool = AtomicBool::new(false);
/// `alloc` and `alloc_zeroed` calls.
static NEW_BLOCKS: AtomicU64 = AtomicU64::new(0);
static REALLOCS: AtomicU64 = AtomicU64::new(0);
static FREES: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

// SAFETY: every call is forwarded to `System` unchanged; the counters only observe.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            NEW_BLOCKS.fetch_add(1, Relaxed);
            BYTES.fetch_add(layout.size() as u64, Relaxed);
        }
        // SAFETY: the caller's contract is `System.alloc`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            NEW_BLOCKS.fetch_add(1, Relaxed);
            BYTES.fetch_add(layout.size() as u64, Relaxed);
        }
        // SAFETY: as in `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if COUNTING.load(Relaxed) {
            FREES.fetch_add(1, Relaxed);
        }
        // SAFETY: `ptr` came from `System` with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            REALLOCS.fetch_add(1, Relaxed);
            BYTES.fetch_add(new_size as u64, Relaxed);
        }
        // SAFETY: as in `dealloc`; `new_size` is the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// What the counting allocator saw during one pass.
#[derive(Clone, Copy, Default)]
struct AllocCount {
    allocs: u64,
    bytes: u64,
    /// Blocks obtained and not freed: while the decoded values are kept, the blocks
    /// they own.
    live: i64,
}

/// Runs `f` with the counting allocator on (single-threaded: nothing else runs).
fn count_allocs<R>(f: impl FnOnce() -> R) -> (R, AllocCount) {
    for c in [&NEW_BLOCKS, &REALLOCS, &FREES, &BYTES] {
        c.store(0, Relaxed);
    }
    COUNTING.store(true, Relaxed);
    let r = f();
    COUNTING.store(false, Relaxed);
    let (new, reallocs, frees) = (
        NEW_BLOCKS.load(Relaxed),
        REALLOCS.load(Relaxed),
        FREES.load(Relaxed),
    );
    let count = AllocCount {
        allocs: new + reallocs,
        bytes: BYTES.load(Relaxed),
        live: new as i64 - frees as i64,
    };
    (r, count)
}

type SliceFn<T> = Box<dyn Fn(&[u8]) -> Result<T, String>>;
type InPlaceFn<T> = Box<dyn Fn(&mut [u8]) -> Result<T, String>>;

/// How a contender is called.
enum DecodeFn<T> {
    /// From the shared input.
    Slice(SliceFn<T>),
    /// In place, on a fresh mutable copy of the input made outside the timing.
    InPlace(InPlaceFn<T>),
}

/// One library/backend/entry point under test.
struct Contender<T> {
    name: String,
    decode: DecodeFn<T>,
}

impl<T> Contender<T> {
    /// Decodes `doc` (copying it first for an in-place contender).
    fn decode(&self, doc: &[u8]) -> Result<T, String> {
        match &self.decode {
            DecodeFn::Slice(f) => f(doc),
            DecodeFn::InPlace(f) => f(&mut doc.to_vec()),
        }
    }

    /// Decodes every document once, keeping the values: the untimed pass that
    /// counts allocations (the copies an in-place contender needs are made first).
    fn decode_all(&self, docs: &[Vec<u8>]) -> (Vec<T>, AllocCount) {
        let mut out = Vec::with_capacity(docs.len());
        match &self.decode {
            DecodeFn::Slice(f) => {
                let count = count_allocs(|| {
                    for doc in docs {
                        out.push(f(doc).expect("decodes"));
                    }
                });
                (out, count.1)
            }
            DecodeFn::InPlace(f) => {
                let mut bufs = docs.to_vec();
                let count = count_allocs(|| {
                    for buf in &mut bufs {
                        out.push(f(buf).expect("decodes"));
                    }
                });
                (out, count.1)
            }
        }
    }

    /// Decodes every document `reps` times over, dropping each value; returns the
    /// time of one pass (the copies an in-place contender needs are made first).
    fn time_passes(&self, docs: &[Vec<u8>], reps: usize) -> f64 {
        let secs = match &self.decode {
            DecodeFn::Slice(f) => {
                let start = Instant::now();
                for _ in 0..reps {
                    for doc in docs {
                        black_box(f(black_box(doc)).is_ok());
                    }
                }
                start.elapsed().as_secs_f64()
            }
            DecodeFn::InPlace(f) => {
                let mut bufs: Vec<Vec<u8>> = (0..reps).flat_map(|_| docs.iter().cloned()).collect();
                let start = Instant::now();
                for buf in &mut bufs {
                    black_box(f(black_box(buf)).is_ok());
                }
                let secs = start.elapsed().as_secs_f64();
                drop(bufs);
                secs
            }
        };
        secs / reps as f64
    }
}

fn slice<T>(name: &str, f: impl Fn(&[u8]) -> Result<T, String> + 'static) -> Contender<T> {
    Contender {
        name: name.to_owned(),
        decode: DecodeFn::Slice(Box::new(f)),
    }
}

fn utf8(b: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(b).map_err(|e| e.to_string())
}

/// The contenders for `T`: every jitson backend that can run here, serde_json,
/// sonic-rs and simd-json.
fn contenders<T: Decode + DeserializeOwned + 'static>() -> Vec<Contender<T>> {
    let mut list: Vec<Contender<T>> = Vec::new();
    for backend in [Backend::Jit, Backend::Interpreter] {
        // `Wait`: the JIT's optimising tier from the start (no switch during
        // the timing); `examples/tiers.rs` in `benches/` measures the baseline.
        let decoder = Decoder::<T>::with_backend(backend).tiering(Tiering::Wait);
        if let Err(e) = decoder.warm_up() {
            eprintln!("note: jitson backend `{}` skipped: {e}", backend.name());
            continue;
        }
        list.push(slice(
            &format!("jitson::from_slice/{}", backend.name()),
            move |b| decoder.decode_slice(b).map_err(|e| e.to_string()),
        ));
        list.push(slice(
            &format!("jitson::from_str/{}", backend.name()),
            move |b| decoder.decode_str(utf8(b)?).map_err(|e| e.to_string()),
        ));
    }
    list.push(slice("serde_json::from_slice", |b| {
        serde_json::from_slice(b).map_err(|e| e.to_string())
    }));
    list.push(slice("serde_json::from_str", |b| {
        serde_json::from_str(utf8(b)?).map_err(|e| e.to_string())
    }));
    list.push(slice("sonic_rs::from_slice", |b| {
        sonic_rs::from_slice(b).map_err(|e| e.to_string())
    }));
    list.push(Contender {
        name: "simd_json::serde::from_slice".into(),
        decode: DecodeFn::InPlace(Box::new(|b| {
            simd_json::serde::from_slice(b).map_err(|e| e.to_string())
        })),
    });
    list.push(slice("simd_json::serde::from_slice (copy)", |b| {
        simd_json::serde::from_slice(&mut b.to_vec()).map_err(|e| e.to_string())
    }));
    list
}

/// The least time a contender's turn in a round takes (for serde_json::from_slice;
/// the faster contenders take less).
const ROUND_SECS: f64 = 0.02;

/// One line of the report.
struct Row {
    data: String,
    contender: String,
    ns_per_op: f64,
    mb_per_s: f64,
    allocs_per_op: f64,
    bytes_per_op: f64,
    owned_per_op: f64,
    vs_serde: f64,
    vs_serde_min: f64,
    vs_serde_max: f64,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Times `count` contenders for `rounds` interleaved rounds, `time(i)` timing
/// contender `i` once; the order rotates each round so no contender always
/// runs first. Returns each contender's times, round by round.
fn interleave(count: usize, rounds: usize, mut time: impl FnMut(usize) -> f64) -> Vec<Vec<f64>> {
    let mut times = vec![Vec::with_capacity(rounds); count];
    for round in 0..rounds {
        for k in 0..count {
            let i = (k + round) % count;
            times[i].push(time(i));
        }
    }
    times
}

/// A contender's median time and its speed relative to the reference's.
struct Timing {
    secs: f64,
    /// Median over rounds of the reference's time over this contender's.
    vs: f64,
    vs_min: f64,
    vs_max: f64,
}

/// Contender `i`'s [`Timing`] against contender `reference`, round by round.
fn timing(times: &[Vec<f64>], reference: usize, i: usize) -> Timing {
    let mut ratios: Vec<f64> = times[reference]
        .iter()
        .zip(&times[i])
        .map(|(r, t)| r / t)
        .collect();
    let vs = median(&mut ratios);
    Timing {
        secs: median(&mut times[i].clone()),
        vs,
        vs_min: ratios[0],
        vs_max: ratios[ratios.len() - 1],
    }
}

/// Checks that every contender decodes `docs` to the value serde_json gives,
/// counts each one's allocations in one pass, then times them, interleaved, for
/// `rounds` rounds.
fn run<T>(data: &str, docs: &[Vec<u8>], rounds: usize) -> Vec<Row>
where
    T: Decode + DeserializeOwned + PartialEq + Debug + 'static,
{
    if only().is_some_and(|only| !data.contains(&only)) {
        return Vec::new();
    }
    let mut contenders = contenders::<T>();
    let reference: Vec<T> = docs
        .iter()
        .map(|d| serde_json::from_slice(d).expect("serde_json decodes"))
        .collect();
    // A peer that cannot decode the data set at all (simd-json and a `u128`
    // beyond 64 bits) leaves the table, with a note saying why; jitson and
    // serde_json must decode everything.
    contenders.retain(|c| {
        let peer = !c.name.starts_with("jitson") && !c.name.starts_with("serde_json");
        match docs.iter().find_map(|doc| c.decode(doc).err()) {
            Some(e) if peer => {
                println!(
                    "note: {data}: {} cannot decode this data set ({e}); left out",
                    c.name
                );
                false
            }
            _ => true,
        }
    });
    for c in &contenders {
        for (doc, expected) in docs.iter().zip(&reference) {
            match c.decode(doc) {
                Ok(v) if v == *expected => {}
                Ok(v) => panic!(
                    "{data}: {} decoded a different value:\n{v:?}\nexpected\n{expected:?}",
                    c.name
                ),
                Err(e) => panic!("{data}: {} failed: {e}", c.name),
            }
        }
    }
    drop(reference);
    let allocs: Vec<AllocCount> = contenders
        .iter()
        .map(|c| {
            let (values, count) = c.decode_all(docs);
            drop(values);
            count
        })
        .collect();

    let bytes: usize = docs.iter().map(Vec::len).sum();
    let serde_index = contenders
        .iter()
        .position(|c| c.name == "serde_json::from_slice")
        .unwrap();
    // Each contender's turn in a round repeats the data until serde_json would take
    // at least ROUND_SECS, so that a round of a large file is more than one decode.
    let once = contenders[serde_index].time_passes(docs, 1);
    let reps = ((ROUND_SECS / once).ceil() as usize).max(1);
    let times = interleave(contenders.len(), rounds, |i| {
        contenders[i].time_passes(docs, reps)
    });
    let n = docs.len() as f64;
    contenders
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let Timing {
                secs,
                vs: vs_serde,
                vs_min: vs_serde_min,
                vs_max: vs_serde_max,
            } = timing(&times, serde_index, i);
            Row {
                data: data.to_owned(),
                contender: c.name.clone(),
                ns_per_op: secs * 1e9 / n,
                mb_per_s: bytes as f64 / secs / 1e6,
                allocs_per_op: allocs[i].allocs as f64 / n,
                bytes_per_op: allocs[i].bytes as f64 / n,
                owned_per_op: allocs[i].live as f64 / n,
                vs_serde,
                vs_serde_min,
                vs_serde_max,
            }
        })
        .collect()
}

/// First-call latencies for one model, each on a root type never decoded before
/// (`T`, `Box<T>`, `Option<T>` are three roots with three compiles).
struct FirstCall {
    name: &'static str,
    /// The interpreter's first decode of `T`.
    interpreter: Duration,
    /// `Backend::Auto`'s first decode of `Box<T>` with background tiering: the
    /// interpreter, plus queuing the compile.
    tiered: Duration,
    /// `Backend::Auto`'s first decode of `Option<T>` with `Tiering::Wait`:
    /// compile included.
    wait: Duration,
    /// That compile, from `stats()`.
    compile: Duration,
    /// A second decode of `Option<T>`, on compiled code.
    second: Duration,
}

fn first_call<T: Decode>(name: &'static str, doc: &[u8]) -> FirstCall {
    let time = |f: &dyn Fn()| {
        let start = Instant::now();
        f();
        start.elapsed()
    };
    let interpreter = time(&|| {
        Decoder::<T>::with_backend(Backend::Interpreter)
            .decode_slice(doc)
            .expect("decodes");
    });
    let compile_before = jitson::stats().compile_time_total;
    let wait_decoder = Decoder::<Option<T>>::new().tiering(Tiering::Wait);
    let wait = time(&|| {
        wait_decoder.decode_slice(doc).expect("decodes");
    });
    let compile = jitson::stats().compile_time_total - compile_before;
    let second = time(&|| {
        wait_decoder.decode_slice(doc).expect("decodes");
    });
    // Last, so that its background compile does not run during the others.
    let tiered = time(&|| {
        Decoder::<Box<T>>::new()
            .tiering(Tiering::Background)
            .decode_slice(doc)
            .expect("decodes");
    });
    FirstCall {
        name,
        interpreter,
        tiered,
        wait,
        compile,
        second,
    }
}

/// First-encode latencies for one model, each on a root type never encoded
/// before (`T`, `Box<T>`, `Option<T>`, `Vec<T>` are four roots).
struct FirstEncode {
    name: &'static str,
    /// The interpreter's first encode of `T`.
    interpreter: Duration,
    /// `Backend::Auto`'s first encode of `Box<T>`: the interpreter, plus
    /// queueing the compile (encoders always tier in the background).
    auto: Duration,
    /// `Backend::Jit`'s first encode of `Option<T>`: compile included.
    jit: Duration,
    /// A second encode of `Option<T>`, on compiled code.
    second: Duration,
}

fn first_encode<T: Decode + jitson::Encode + Clone>(name: &'static str, doc: &[u8]) -> FirstEncode {
    let value: T = Decoder::<T>::with_backend(Backend::Interpreter)
        .decode_slice(doc)
        .expect("decodes");
    let time = |f: &dyn Fn()| {
        let start = Instant::now();
        f();
        start.elapsed()
    };
    let interpreter = time(&|| {
        jitson::Encoder::<T>::with_backend(Backend::Interpreter)
            .encode(&value)
            .expect("encodes");
    });
    let option = Some(value.clone());
    let jit_encoder = jitson::Encoder::<Option<T>>::with_backend(Backend::Jit);
    let jit = time(&|| {
        jit_encoder.encode(&option).expect("encodes");
    });
    let second = time(&|| {
        jit_encoder.encode(&option).expect("encodes");
    });
    // Last, so that its background compile does not run during the others.
    let boxed = Box::new(value);
    let auto = time(&|| {
        jitson::to_vec(&boxed).expect("encodes");
    });
    FirstEncode {
        name,
        interpreter,
        auto,
        jit,
        second,
    }
}

/// The order in which [`reorder`] writes an object's members.
#[derive(Clone, Copy, Debug)]
enum KeyOrder {
    AsGiven,
    Sorted,
    Reversed,
}

/// `doc` written again without whitespace, each object's members in `order`
/// (strings and numbers copied as they are). A minimal reader: `doc` is known
/// to be valid JSON.
fn reorder(doc: &[u8], order: KeyOrder) -> Vec<u8> {
    fn skip_ws(doc: &[u8], pos: &mut usize) {
        while doc[*pos].is_ascii_whitespace() {
            *pos += 1;
        }
    }
    fn string<'a>(doc: &'a [u8], pos: &mut usize) -> &'a [u8] {
        let start = *pos;
        *pos += 1;
        while doc[*pos] != b'"' {
            *pos += if doc[*pos] == b'\\' { 2 } else { 1 };
        }
        *pos += 1;
        &doc[start..*pos]
    }
    fn value(doc: &[u8], pos: &mut usize, order: KeyOrder, out: &mut Vec<u8>) {
        skip_ws(doc, pos);
        match doc[*pos] {
            b'{' => {
                *pos += 1;
                let mut members: Vec<(&[u8], Vec<u8>)> = Vec::new();
                loop {
                    skip_ws(doc, pos);
                    if doc[*pos] == b'}' {
                        *pos += 1;
                        break;
                    }
                    let key = string(doc, pos);
                    skip_ws(doc, pos);
                    *pos += 1; // ':'
                    let mut v = Vec::new();
                    value(doc, pos, order, &mut v);
                    members.push((key, v));
                    skip_ws(doc, pos);
                    if doc[*pos] == b',' {
                        *pos += 1;
                    }
                }
                match order {
                    KeyOrder::AsGiven => {}
                    KeyOrder::Sorted => members.sort_by(|a, b| a.0.cmp(b.0)),
                    KeyOrder::Reversed => members.reverse(),
                }
                out.push(b'{');
                for (i, (key, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(key);
                    out.push(b':');
                    out.extend_from_slice(v);
                }
                out.push(b'}');
            }
            b'[' => {
                *pos += 1;
                out.push(b'[');
                let mut first = true;
                loop {
                    skip_ws(doc, pos);
                    if doc[*pos] == b']' {
                        *pos += 1;
                        break;
                    }
                    if !first {
                        out.push(b',');
                    }
                    first = false;
                    value(doc, pos, order, out);
                    skip_ws(doc, pos);
                    if doc[*pos] == b',' {
                        *pos += 1;
                    }
                }
                out.push(b']');
            }
            b'"' => out.extend_from_slice(string(doc, pos)),
            _ => {
                let start = *pos;
                while !matches!(doc[*pos], b',' | b'}' | b']') && !doc[*pos].is_ascii_whitespace() {
                    *pos += 1;
                }
                out.extend_from_slice(&doc[start..*pos]);
            }
        }
    }
    let mut out = Vec::with_capacity(doc.len());
    value(doc, &mut 0, order, &mut out);
    out
}

/// twitter.json with its keys as given, sorted and reversed (all without
/// whitespace), decoded by JIT code speculating on the declaration order and by
/// JIT code compiled after `Backend::Auto` learned the order from the first
/// document (a fresh root type per order, so each compile learns its own).
fn key_order_table(twitter: &[u8], rounds: usize) {
    use models::twitter::Twitter;
    let orders = [KeyOrder::AsGiven, KeyOrder::Sorted, KeyOrder::Reversed];
    let docs: Vec<Vec<u8>> = orders.iter().map(|&o| reorder(twitter, o)).collect();
    let expected: Twitter = serde_json::from_slice(twitter).unwrap();
    let declared = Decoder::<Twitter>::with_backend(Backend::Jit).tiering(Tiering::Wait);
    if declared.warm_up().is_err() {
        return;
    }
    // One learned root per order; each learns from its first document, then
    // decodes until its optimising tier (promoted, on the learned order) runs.
    fn learned<R: Decode>(doc: &[u8]) -> Decoder<R> {
        let auto = Decoder::<R>::new().tiering(Tiering::Background);
        let (switches, promotions) = (jitson::stats().tier_switches, jitson::stats().promotions);
        auto.decode_slice(doc).expect("decodes");
        while jitson::stats().tier_switches == switches {
            std::thread::sleep(Duration::from_millis(1));
        }
        while std::env::var_os("JITSON_STRUCTS").is_none()
            && jitson::stats().promotions == promotions
        {
            auto.decode_slice(doc).expect("decodes");
        }
        auto
    }
    let as_given = learned::<Box<Option<Twitter>>>(&docs[0]);
    let sorted = learned::<Box<Box<Twitter>>>(&docs[1]);
    let reversed = learned::<Option<Box<Twitter>>>(&docs[2]);
    type DecodeTwitter = Box<dyn Fn(&[u8]) -> Twitter>;
    let learned_fns: [DecodeTwitter; 3] = [
        Box::new(move |d| as_given.decode_slice(d).unwrap().unwrap()),
        Box::new(move |d| **sorted.decode_slice(d).unwrap()),
        Box::new(move |d| *reversed.decode_slice(d).unwrap().unwrap()),
    ];
    for (doc, learned) in docs.iter().zip(&learned_fns) {
        assert!(declared.decode_slice(doc).unwrap() == expected);
        assert!(learned(doc) == expected);
        assert!(serde_json::from_slice::<Twitter>(doc).unwrap() == expected);
    }
    let time = |f: &dyn Fn()| {
        let reps = 20;
        let start = Instant::now();
        for _ in 0..reps {
            f();
        }
        start.elapsed().as_secs_f64() / reps as f64
    };
    // times[order][contender]: JIT declaration order, JIT learned, serde_json.
    let mut times = vec![vec![Vec::new(); 3]; 3];
    for _ in 0..rounds {
        for (o, doc) in docs.iter().enumerate() {
            times[o][0].push(time(&|| {
                drop(black_box(declared.decode_slice(black_box(doc))))
            }));
            times[o][1].push(time(&|| drop(black_box(learned_fns[o](black_box(doc))))));
            times[o][2].push(time(&|| {
                drop(black_box(serde_json::from_slice::<Twitter>(black_box(doc))))
            }));
        }
    }
    let base = median(&mut times[0][0].clone());
    println!(
        "| twitter.json, compact, keys | JIT, declaration-order speculation | JIT, order learned at run time | serde_json::from_slice |\n|---|---:|---:|---:|"
    );
    for (o, order) in orders.iter().enumerate() {
        let cell = |t: &mut Vec<f64>| {
            let m = median(t);
            format!("{:.0} µs ({:.2}x)", m * 1e6, m / base)
        };
        println!(
            "| {order:?} | {} | {} | {} |",
            cell(&mut times[o][0]),
            cell(&mut times[o][1]),
            cell(&mut times[o][2])
        );
    }
    println!("(times relative to the JIT on the keys as given, declaration-order speculation)\n");
}

/// Key order that changes while a service runs (issue 22): one `Backend::Auto`
/// decoder of twitter.json (compact) whose documents change order in phases, as
/// when a producer is redeployed: the keys as given, sorted, reversed, as given
/// again, and then two producers interleaved (sorted and as given, decode after
/// decode). Each phase is first decoded untimed for a while (its order is
/// relearned in the background if it drifted) and then a pause lets any compile
/// finish; then `rounds` timed runs interleave jitson and serde_json on the
/// phase's documents. Reported: jitson's time over serde_json's (which does not
/// care about order), relative to the first phase, and the relearns so far.
fn drift_table(twitter: &[u8], rounds: usize) {
    use models::twitter::Twitter;
    let given = reorder(twitter, KeyOrder::AsGiven);
    let sorted = reorder(twitter, KeyOrder::Sorted);
    let reversed = reorder(twitter, KeyOrder::Reversed);
    let expected: Twitter = serde_json::from_slice(twitter).unwrap();
    // A root type of its own, so that its learned orders are this table's.
    let auto = Decoder::<Option<Option<Twitter>>>::new();
    let phases: [(&str, Vec<&[u8]>); 5] = [
        ("as given", vec![&given]),
        ("sorted", vec![&sorted]),
        ("reversed", vec![&reversed]),
        ("as given again", vec![&given]),
        ("sorted and as given, interleaved", vec![&sorted, &given]),
    ];
    let decode = |doc: &[u8]| auto.decode_slice(doc).unwrap().unwrap().unwrap();
    // The first phase also waits for the optimising tier (promotion after
    // 32 MiB decoded), so every phase runs on the code a service would.
    let promotions = jitson::stats().promotions;
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::env::var_os("JITSON_STRUCTS").is_none()
        && jitson::stats().promotions == promotions
        && Instant::now() < deadline
    {
        assert!(decode(&given) == expected);
    }
    let relearns = jitson::stats().key_order_relearns;
    let mut rows = Vec::new();
    for (name, docs) in &phases {
        // "A few hundred documents of the new order", then a pause.
        for i in 0..300 {
            assert!(decode(docs[i % docs.len()]) == expected);
        }
        std::thread::sleep(Duration::from_millis(100));
        let mut times = vec![Vec::new(); 2];
        for _ in 0..rounds {
            let start = Instant::now();
            for i in 0..20 {
                drop(black_box(decode(black_box(docs[i % docs.len()]))));
            }
            times[0].push(start.elapsed().as_secs_f64());
            let start = Instant::now();
            for i in 0..20 {
                let doc = black_box(docs[i % docs.len()]);
                drop(black_box(serde_json::from_slice::<Twitter>(doc).unwrap()));
            }
            times[1].push(start.elapsed().as_secs_f64());
        }
        let ratio = median(&mut times[0]) / median(&mut times[1]);
        rows.push((*name, ratio, jitson::stats().key_order_relearns - relearns));
    }
    println!(
        "| twitter.json, compact, keys (phases in turn) | jitson / serde_json time | relative to the first phase | relearns so far |\n|---|---:|---:|---:|"
    );
    let base = rows[0].1;
    for (name, ratio, relearns) in rows {
        println!(
            "| {name} | {ratio:.3} | {:.2}x | {relearns} |",
            ratio / base
        );
    }
    println!(
        "(Backend::Auto; each phase: 300 untimed decodes, 100 ms pause, then {rounds} rounds of 20 decodes)\n"
    );
}

/// The push events decoded into a model that borrows its strings
/// (`everyday::PushEventRef`, `Cow<'a, str>` with `#[serde(borrow)]`): ns/op and
/// allocations per document for jitson and the serde-based decoders, all
/// borrowing what they can.
fn borrowed_table(events: &[Vec<u8>], rounds: usize) {
    use everyday::PushEventRef;
    type Borrowing = Box<dyn for<'a> Fn(&'a [u8]) -> PushEventRef<'a>>;
    let jit = Decoder::<PushEventRef<'_>>::with_backend(Backend::Jit).tiering(Tiering::Wait);
    let jit_ok = jit.warm_up().is_ok();
    let mut contenders: Vec<(&str, Borrowing)> = vec![
        (
            "jitson::from_slice/interpreter",
            Box::new(|d| {
                Decoder::<PushEventRef<'_>>::with_backend(Backend::Interpreter)
                    .decode_slice(d)
                    .unwrap()
            }),
        ),
        (
            "serde_json::from_slice",
            Box::new(|d| serde_json::from_slice(d).unwrap()),
        ),
        (
            "sonic_rs::from_slice",
            Box::new(|d| sonic_rs::from_slice(d).unwrap()),
        ),
    ];
    if jit_ok {
        contenders.insert(
            0,
            (
                "jitson::from_slice/jit",
                Box::new(move |d| jit.decode_slice(d).unwrap()),
            ),
        );
    }
    for doc in events {
        let expected: PushEventRef<'_> = serde_json::from_slice(doc).unwrap();
        for (name, decode) in &contenders {
            assert!(decode(doc) == expected, "{name} differs from serde_json");
        }
    }
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); contenders.len()];
    for _ in 0..rounds {
        for (i, (_, decode)) in contenders.iter().enumerate() {
            let start = Instant::now();
            for doc in events {
                black_box(decode(black_box(doc)));
            }
            times[i].push(start.elapsed().as_secs_f64() / events.len() as f64);
        }
    }
    let base = {
        let i = contenders
            .iter()
            .position(|(n, _)| *n == "serde_json::from_slice")
            .unwrap();
        median(&mut times[i].clone())
    };
    println!(
        "| push event into `PushEventRef<'a>` (Cow<'a, str>, borrowed) | ns/op | allocs/op | owned/op | vs serde_json::from_slice |\n|---|---:|---:|---:|---:|"
    );
    for (i, (name, decode)) in contenders.iter().enumerate() {
        let (kept, count) = count_allocs(|| events.iter().map(|d| decode(d)).collect::<Vec<_>>());
        drop(kept);
        let m = median(&mut times[i]);
        let n = events.len() as f64;
        println!(
            "| {name} | {:.0} | {} | {} | {:.2}x |",
            m * 1e9,
            per_op(count.allocs as f64 / n),
            per_op(count.live as f64 / n),
            base / m
        );
    }
    println!("(owned/op counts the kept vector of results too: one block per 1,000 documents.)\n");
}

/// `n` generated values serialised one document each.
fn generate<T: Serialize>(n: u64, seed: u64, make: impl Fn(&mut Rng, u64) -> T) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| serde_json::to_vec(&make(&mut rng, i)).expect("serialise"))
        .collect()
}

/// A count per op: whole numbers without decimals.
fn per_op(x: f64) -> String {
    if (x - x.round()).abs() < 0.005 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// `COMPARE_ONLY=<text>`: run only the throughput tables of the data sets whose
/// name contains it, and none of the other tables (to profile one data set:
/// docs/jit.md, "Profiling").
fn only() -> Option<String> {
    std::env::var("COMPARE_ONLY").ok().filter(|o| !o.is_empty())
}

/// Whether the Marshal tables run: with no `COMPARE_ONLY`, or with
/// `COMPARE_ONLY=marshal` (the Marshal tables alone).
fn marshal_wanted() -> bool {
    only().is_none_or(|o| o == "marshal")
}

/// The values serde_json decodes from `docs`: what the Marshal table encodes.
fn values_of<T: DeserializeOwned>(docs: &[Vec<u8>]) -> Vec<T> {
    docs.iter()
        .map(|d| serde_json::from_slice(d).expect("serde_json decodes"))
        .collect()
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let rounds = if quick { 5 } else { 15 };
    let mut rows = Vec::new();
    let mut marshal_rows = Vec::new();

    println!(
        "jitson compare: {rounds} interleaved rounds per data set; all results checked equal to serde_json's.\n"
    );

    // First-call latency, before anything else touches these types: with the
    // default background tiering the first decode is the interpreter's while a
    // worker compiles; with `Tiering::Wait` it compiles first.
    let jit = Backend::Jit.is_available();
    println!("JIT available: {jit}");
    // `COMPARE_ONLY=drift`: the key-order drift table alone.
    if only().as_deref() == Some("drift") {
        match models::corpus_dir() {
            Some(dir) if jit => {
                drift_table(&std::fs::read(dir.join("twitter.json")).unwrap(), rounds)
            }
            _ => println!("drift: needs the corpus and the JIT"),
        }
        return;
    }
    // `COMPARE_ONLY=first`: the first-call tables alone.
    let first_calls = only().is_none() || only().as_deref() == Some("first");
    let mut latency = Vec::new();
    let order_doc = generate(1, 9, Order::generate).remove(0);
    if first_calls {
        latency.push(first_call::<Order>("Order (30 fields)", &order_doc));
    }
    if first_calls && let Some(dir) = models::corpus_dir() {
        let twitter = std::fs::read(dir.join("twitter.json")).expect("read twitter.json");
        latency.push(first_call::<models::twitter::Twitter>(
            "twitter model (whole)",
            &twitter,
        ));
    }
    println!(
        "\n| first call of a fresh root | interpreter | Auto, background tiering | Auto, compile and wait | compile (stats) | second call, compiled |\n|---|---:|---:|---:|---:|---:|"
    );
    for c in &latency {
        println!(
            "| {} | {:?} | {:?} ({:.2}x) | {:?} | {:?} | {:?} |",
            c.name,
            c.interpreter,
            c.tiered,
            c.tiered.as_secs_f64() / c.interpreter.as_secs_f64(),
            c.wait,
            c.compile,
            c.second
        );
    }
    println!(
        "(the ratio: Auto's first decode over the interpreter's, the cost of queueing the compile; \
         issue 22's target is at most 2x)"
    );
    let mut encodes = Vec::new();
    if first_calls {
        encodes.push(first_encode::<Order>("Order (30 fields)", &order_doc));
    }
    if first_calls && let Some(dir) = models::corpus_dir() {
        let twitter = std::fs::read(dir.join("twitter.json")).expect("read twitter.json");
        encodes.push(first_encode::<models::twitter::Twitter>(
            "twitter model (whole)",
            &twitter,
        ));
    }
    if !encodes.is_empty() {
        println!(
            "\n| first encode of a fresh root | interpreter | Auto (to_vec) | Jit, compile included | second call, compiled |\n|---|---:|---:|---:|---:|"
        );
        for c in &encodes {
            println!(
                "| {} | {:?} | {:?} ({:.2}x) | {:?} | {:?} |",
                c.name,
                c.interpreter,
                c.auto,
                c.auto.as_secs_f64() / c.interpreter.as_secs_f64(),
                c.jit,
                c.second
            );
        }
        println!(
            "(the ratio: Auto's first encode over the interpreter's; issue 19's target is at most 2x)"
        );
    }
    println!();
    if only().as_deref() == Some("first") {
        return;
    }

    let users = generate(2_000, 1, User::generate);
    rows.extend(run::<User>("User (2,000 docs)", &users, rounds));
    let orders = generate(2_000, 2, Order::generate);
    rows.extend(run::<Order>("Order (2,000 docs)", &orders, rounds));
    let accounts = generate(2_000, 3, Account::generate);
    rows.extend(run::<Account>("Account (2,000 docs)", &accounts, rounds));
    if marshal_wanted() {
        let users: Vec<User> = values_of(&users);
        marshal_rows.extend(marshal::run("User (2,000 values)", &users, rounds, false));
        marshal_rows.extend(marshal::run(
            "User (2,000 values), pretty",
            &users,
            rounds,
            true,
        ));
        let orders: Vec<Order> = values_of(&orders);
        marshal_rows.extend(marshal::run("Order (2,000 values)", &orders, rounds, false));
        let accounts: Vec<Account> = values_of(&accounts);
        marshal_rows.extend(marshal::run(
            "Account (2,000 values)",
            &accounts,
            rounds,
            false,
        ));
    }
    let mut rng = Rng::new(4);
    let order_array: Vec<Order> = (0..1_000).map(|i| Order::generate(&mut rng, i)).collect();
    let order_array = vec![serde_json::to_vec_pretty(&order_array).unwrap()];
    rows.extend(run::<Vec<Order>>(
        "Vec<Order> (1,000, pretty)",
        &order_array,
        rounds,
    ));
    // Everyday string-heavy documents of a kilobyte or two.
    let events = generate(1_000, 5, everyday::PushEvent::generate);
    let packages = generate(1_000, 6, everyday::Package::generate);
    let features = generate(1_000, 7, everyday::FeatureCollection::generate);
    let tagged = generate(1_000, 8, everyday::GeoJson::generate);
    let size = |docs: &[Vec<u8>]| docs.iter().map(Vec::len).sum::<usize>() / docs.len();
    println!(
        "Everyday documents, average size: push event {} B, package.json {} B, GeoJSON {} B, \
         GeoJSON with tagged enums {} B\n",
        size(&events),
        size(&packages),
        size(&features),
        size(&tagged),
    );
    rows.extend(run::<everyday::PushEvent>(
        "push event (1,000 docs)",
        &events,
        rounds,
    ));
    rows.extend(run::<everyday::Package>(
        "package.json (1,000 docs)",
        &packages,
        rounds,
    ));
    rows.extend(run::<everyday::FeatureCollection>(
        "GeoJSON (1,000 docs)",
        &features,
        rounds,
    ));
    rows.extend(run::<everyday::GeoJson>(
        "GeoJSON, tagged enums (1,000 docs)",
        &tagged,
        rounds,
    ));
    // The webhook's catch-all holds `serde_json::Value`s (jitson's `serde`
    // feature, on by default).
    #[cfg(feature = "serde")]
    {
        let webhooks = generate(1_000, 9, everyday::Webhook::generate);
        println!("Webhook documents, average size {} B\n", size(&webhooks));
        rows.extend(run::<everyday::Webhook>(
            "webhook, flattened catch-all (1,000 docs)",
            &webhooks,
            rounds,
        ));
    }
    // Other crates' types, each with the crate's serde impl for the serde
    // contenders and jitson's native support (its cargo feature) for jitson.
    let chrono = generate(1_000, 10, foreign::Chrono::generate);
    let uuids = generate(1_000, 11, foreign::Uuids::generate);
    let urls = generate(1_000, 12, foreign::Urls::generate);
    let collections = generate(1_000, 13, foreign::Collections::generate);
    println!(
        "Other crates' types, average size: chrono {} B, uuid {} B, url {} B, \
         indexmap/smallvec/ordered-float/bytes {} B\n",
        size(&chrono),
        size(&uuids),
        size(&urls),
        size(&collections),
    );
    // The invoices' `with` modules need jitson's `serde` feature (default).
    #[cfg(feature = "serde")]
    let invoices = generate(1_000, 14, foreign::Invoice::generate);
    #[cfg(feature = "serde")]
    let exchanges = generate(1_000, 15, foreign::Exchange::generate);
    rows.extend(run::<foreign::Chrono>(
        "chrono timestamps (1,000 docs)",
        &chrono,
        rounds,
    ));
    rows.extend(run::<foreign::Uuids>(
        "uuid ids (1,000 docs)",
        &uuids,
        rounds,
    ));
    rows.extend(run::<foreign::Urls>(
        "url links (1,000 docs)",
        &urls,
        rounds,
    ));
    #[cfg(feature = "serde")]
    rows.extend(run::<foreign::Invoice>(
        "time and rust_decimal invoices (1,000 docs)",
        &invoices,
        rounds,
    ));
    #[cfg(feature = "serde")]
    rows.extend(run::<foreign::Exchange>(
        "http exchanges, HeaderMap (1,000 docs)",
        &exchanges,
        rounds,
    ));
    rows.extend(run::<foreign::Collections>(
        "indexmap, smallvec, ordered-float, bytes (1,000 docs)",
        &collections,
        rounds,
    ));
    if only().is_none() {
        borrowed_table(&events, rounds);
    }
    if marshal_wanted() {
        let events: Vec<everyday::PushEvent> = values_of(&events);
        marshal_rows.extend(marshal::run(
            "push event (1,000 values)",
            &events,
            rounds,
            false,
        ));
        let packages: Vec<everyday::Package> = values_of(&packages);
        marshal_rows.extend(marshal::run(
            "package.json (1,000 values)",
            &packages,
            rounds,
            false,
        ));
        let features: Vec<everyday::FeatureCollection> = values_of(&features);
        marshal_rows.extend(marshal::run(
            "GeoJSON (1,000 values)",
            &features,
            rounds,
            false,
        ));
        let chrono: Vec<foreign::Chrono> = values_of(&chrono);
        marshal_rows.extend(marshal::run(
            "chrono timestamps (1,000 values)",
            &chrono,
            rounds,
            false,
        ));
        let uuids: Vec<foreign::Uuids> = values_of(&uuids);
        marshal_rows.extend(marshal::run(
            "uuid ids (1,000 values)",
            &uuids,
            rounds,
            false,
        ));
        let urls: Vec<foreign::Urls> = values_of(&urls);
        marshal_rows.extend(marshal::run(
            "url links (1,000 values)",
            &urls,
            rounds,
            false,
        ));
        #[cfg(feature = "serde")]
        {
            let invoices: Vec<foreign::Invoice> = values_of(&invoices);
            marshal_rows.extend(marshal::run(
                "time and rust_decimal invoices (1,000 values)",
                &invoices,
                rounds,
                false,
            ));
            let exchanges: Vec<foreign::Exchange> = values_of(&exchanges);
            marshal_rows.extend(marshal::run(
                "http exchanges, HeaderMap (1,000 values)",
                &exchanges,
                rounds,
                false,
            ));
        }
        let collections: Vec<foreign::Collections> = values_of(&collections);
        marshal_rows.extend(marshal::run(
            "indexmap, smallvec, ordered-float, bytes (1,000 values)",
            &collections,
            rounds,
            false,
        ));
        let tagged: Vec<everyday::GeoJson> = values_of(&tagged);
        marshal_rows.extend(marshal::run(
            "GeoJSON, tagged enums (1,000 values)",
            &tagged,
            rounds,
            false,
        ));
    }

    match models::corpus_dir() {
        Some(dir) => {
            let read = |name: &str| vec![std::fs::read(dir.join(name)).expect("read corpus file")];
            rows.extend(run::<models::twitter::Twitter>(
                "twitter.json",
                &read("twitter.json"),
                rounds,
            ));
            rows.extend(run::<models::citm::CitmCatalog>(
                "citm_catalog.json",
                &read("citm_catalog.json"),
                rounds,
            ));
            rows.extend(run::<models::canada::Canada>(
                "canada.json",
                &read("canada.json"),
                rounds,
            ));
            if only().is_none() {
                key_order_table(&read("twitter.json")[0], rounds);
                drift_table(&read("twitter.json")[0], rounds);
            }
            if marshal_wanted() {
                let twitter: Vec<models::twitter::Twitter> = values_of(&read("twitter.json"));
                marshal_rows.extend(marshal::run("twitter.json", &twitter, rounds, false));
                marshal_rows.extend(marshal::run("twitter.json, pretty", &twitter, rounds, true));
                let citm: Vec<models::citm::CitmCatalog> = values_of(&read("citm_catalog.json"));
                marshal_rows.extend(marshal::run("citm_catalog.json", &citm, rounds, false));
                marshal_rows.extend(marshal::run(
                    "citm_catalog.json, pretty",
                    &citm,
                    rounds,
                    true,
                ));
                let canada: Vec<models::canada::Canada> = values_of(&read("canada.json"));
                marshal_rows.extend(marshal::run("canada.json", &canada, rounds, false));
                marshal_rows.extend(marshal::run("canada.json, pretty", &canada, rounds, true));
            }
        }
        None => println!(
            "NOTICE: ../shared/corpus/bench not found (set JITSON_CORPUS); corpus files skipped.\n"
        ),
    }

    if !rows.is_empty() {
        println!(
            "| data | contender | ns/op | MB/s | allocs/op | bytes/op | owned/op | vs serde_json::from_slice (median, range) |"
        );
        println!("|---|---|---:|---:|---:|---:|---:|---|");
    }
    for r in &rows {
        println!(
            "| {} | {} | {:.0} | {:.0} | {} | {:.0} | {} | {:.2}x ({:.2}-{:.2}) |",
            r.data,
            r.contender,
            r.ns_per_op,
            r.mb_per_s,
            per_op(r.allocs_per_op),
            r.bytes_per_op,
            per_op(r.owned_per_op),
            r.vs_serde,
            r.vs_serde_min,
            r.vs_serde_max
        );
    }
    if !marshal_rows.is_empty() {
        println!(
            "\nMarshal: the values serde_json decodes from the same documents, encoded into a \
             reused buffer; every contender's bytes compared with serde_json's (jitson's must be \
             equal; allocations are each library's own to_vec's, warm)\n"
        );
        marshal::print(&marshal_rows);
    }
    let stats = jitson::stats();
    println!(
        "\njitson stats: {} interpreter decodes, {} JIT decodes, {} layouts prepared, {} root layouts compiled \
         ({} bytes of code, {:?} compiling in total, {:?} at most)",
        stats.interpreter_decodes,
        stats.jit_decodes,
        stats.layouts_prepared,
        stats.layouts_compiled,
        stats.code_bytes,
        stats.compile_time_total,
        stats.compile_time_max
    );
    for (ty, why) in &stats.interpreted_layouts {
        println!("  decoded by the interpreter inside JIT code: {ty} ({why})");
    }
    for (why, n) in &stats.auto_fallbacks {
        println!("  Backend::Auto fell back to the interpreter {n} times: {why}");
    }
    println!("all results equal: yes");
}
