//! A hostile review of the element stack (`Vec<T>` decoded onto per-thread chunks
//! that never move, moved at `]` into a vector of exactly its length), through
//! every backend and tier: zero-sized, odd-sized, over-aligned and huge elements;
//! deep nesting crossing chunk boundaries at every level; errors and panics
//! everywhere; decodes re-entered from user code (a string `write`, a `Drop`, a
//! `default` fn, `try_from`, `deserialize_with`); many threads; thread-local
//! destructors; memory kept after a huge document.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::borrow::Cow;
use std::cell::Cell;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};

use common::counted::{self, Counted, PanicDrop};
use common::pad::Pad;
use jitson::{Backend, Decode, Decoder, ErrorKind, Tiering};
use serde::Deserialize;
use serde::de::DeserializeOwned;

// ---------------------------------------------------------------------------
// Per-thread net heap bytes (the element stack's chunks are per thread).

struct NetAlloc;

thread_local! {
    static NET: Cell<isize> = const { Cell::new(0) };
}

fn add_net(n: isize) {
    let _ = NET.try_with(|c| c.set(c.get() + n));
}

// SAFETY: forwards to `System` unchanged; only counts.
unsafe impl GlobalAlloc for NetAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as the caller guarantees.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add_net(layout.size() as isize);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as the caller guarantees.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            add_net(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add_net(-(layout.size() as isize));
        // SAFETY: as the caller guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as the caller guarantees.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            add_net(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: NetAlloc = NetAlloc;

fn net() -> isize {
    NET.get()
}

// ---------------------------------------------------------------------------
// Configurations: every backend, and both tiers of the JIT (with `Background`
// `Backend::Jit` compiles the baseline tier, with `Wait` the optimising one).

use common::{Config, configs, decoder};

// ---------------------------------------------------------------------------
// Exactness: every vector has capacity == len (ZSTs: any capacity).

trait Exact {
    fn exact(&self) -> bool;
}

macro_rules! leaf {
    ($($t:ty),*) => { $(impl Exact for $t { fn exact(&self) -> bool { true } })* };
}
leaf!(
    u8,
    u16,
    u32,
    u64,
    i64,
    bool,
    (),
    String,
    Counted,
    PanicDrop,
    Al64,
    Al4K,
    ZA,
    Reentrant,
    char
);

impl Exact for &str {
    fn exact(&self) -> bool {
        true
    }
}
impl Exact for Cow<'_, str> {
    fn exact(&self) -> bool {
        true
    }
}

impl<T: Exact> Exact for Vec<T> {
    fn exact(&self) -> bool {
        (self.capacity() == self.len() || size_of::<T>() == 0)
            && (self.as_ptr() as usize).is_multiple_of(align_of::<T>())
            && self.iter().all(Exact::exact)
    }
}
impl<T: Exact, const N: usize> Exact for [T; N] {
    fn exact(&self) -> bool {
        self.iter().all(Exact::exact)
    }
}
impl<T: Exact> Exact for Option<T> {
    fn exact(&self) -> bool {
        self.as_ref().is_none_or(Exact::exact)
    }
}
impl<T: Exact> Exact for Box<T> {
    fn exact(&self) -> bool {
        (**self).exact()
    }
}
impl<K, V: Exact, S> Exact for HashMap<K, V, S> {
    fn exact(&self) -> bool {
        self.values().all(Exact::exact)
    }
}
impl<K, V: Exact> Exact for BTreeMap<K, V> {
    fn exact(&self) -> bool {
        self.values().all(Exact::exact)
    }
}
impl<A: Exact, B: Exact> Exact for (A, B) {
    fn exact(&self) -> bool {
        self.0.exact() && self.1.exact()
    }
}
impl<A: Exact, B: Exact, C: Exact> Exact for (A, B, C) {
    fn exact(&self) -> bool {
        self.0.exact() && self.1.exact() && self.2.exact()
    }
}

// ---------------------------------------------------------------------------
// Checking helpers.

fn excerpt(doc: &[u8]) -> String {
    let s = String::from_utf8_lossy(doc);
    if s.len() > 160 {
        format!("{}…{} ({} bytes)", &s[..80], &s[s.len() - 60..], s.len())
    } else {
        s.into_owned()
    }
}

/// Decodes `doc` with every configuration, both entry points, twice; each result
/// must equal serde_json's and be exact; nothing counted survives.
fn check<T>(doc: &str) -> T
where
    T: Decode + DeserializeOwned + PartialEq + Debug + Exact,
{
    check_rounds::<T>(doc, 2)
}

fn check_rounds<T>(doc: &str, rounds: usize) -> T
where
    T: Decode + DeserializeOwned + PartialEq + Debug + Exact,
{
    let before = counted::live();
    let expected: T = serde_json::from_str(doc)
        .unwrap_or_else(|e| panic!("serde_json: {e} in {}", excerpt(doc.as_bytes())));
    for c in configs() {
        let d = decoder::<T>(c);
        for round in 0..rounds {
            for slice in [true, false] {
                let got = if slice {
                    d.decode_slice(doc.as_bytes())
                } else {
                    d.decode_str(doc)
                };
                let got = got.unwrap_or_else(|e| {
                    panic!(
                        "{c:?} round {round} slice {slice}: {e} in {}",
                        excerpt(doc.as_bytes())
                    )
                });
                assert!(
                    got == expected,
                    "{c:?} round {round} slice {slice}: value differs from serde_json for {}",
                    excerpt(doc.as_bytes())
                );
                assert!(got.exact(), "{c:?}: a vector is not exact");
            }
        }
    }
    let value = expected;
    drop(serde_json::from_str::<T>(doc).unwrap());
    assert!(counted::live() >= before);
    value
}

/// Every configuration fails on `doc` (both entry points where UTF-8), with the
/// same error; nothing counted survives; returns the error's kind and path.
fn check_err<T: Decode + Debug>(doc: &[u8]) -> (ErrorKind, String) {
    let before = counted::live();
    let mut first: Option<(Config, common::ErrorShape)> = None;
    for c in configs() {
        let d = decoder::<T>(c);
        let mut runs = vec![d.decode_slice(doc)];
        if let Ok(text) = std::str::from_utf8(doc) {
            runs.push(d.decode_str(text));
        }
        for r in runs {
            match r {
                Ok(v) => panic!("{c:?} accepted {}: {:?}", excerpt(doc), &v as *const T),
                Err(e) => {
                    let s = common::shape(&e);
                    match &first {
                        None => first = Some((c, s)),
                        Some((fc, fs)) => {
                            assert_eq!(fs, &s, "{fc:?} vs {c:?} on {}", excerpt(doc))
                        }
                    }
                }
            }
            assert_eq!(
                counted::live(),
                before,
                "{c:?}: leak or double drop on {}",
                excerpt(doc)
            );
        }
    }
    let s = first.unwrap().1;
    (s.kind, s.path)
}

/// A tiny deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }
}

fn join(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(","))
}

/// Element counts just around each of the first chunk boundaries for elements
/// of `size` bytes: the kibibyte each decode lends from its own frame, then the
/// allocated chunks of 16 KiB, doubling (cumulative 1, 17, 49, 113, 241 KiB).
fn boundary_lengths(size: usize) -> Vec<usize> {
    let mut out = vec![0, 1, 2];
    let mut total = 0;
    for chunk in [1, 16, 32, 64, 128] {
        total += chunk << 10;
        let n = total / size;
        for d in [n.saturating_sub(2), n.saturating_sub(1), n, n + 1, n + 2] {
            out.push(d);
        }
    }
    out.sort();
    out.dedup();
    out
}

// ---------------------------------------------------------------------------
// Types.

/// An element of about 1 KiB holding counted strings and a vector.
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Fat {
    s: Counted,
    v: Vec<Counted>,
    #[serde(skip)]
    pad: Pad<1001>,
}

impl Exact for Fat {
    fn exact(&self) -> bool {
        self.v.exact()
    }
}

/// The same with a `PanicDrop` (no serde).
#[derive(Decode, Debug, PartialEq)]
struct FatPanic {
    p: PanicDrop,
    v: Vec<PanicDrop>,
    #[jitson(skip)]
    pad: Pad<1001>,
}

macro_rules! sized_element {
    ($name:ident, $n:expr) => {
        #[derive(Decode, Deserialize, Debug, PartialEq)]
        struct $name {
            id: u32,
            #[serde(skip)]
            pad: Pad<{ $n }>,
        }
        impl Exact for $name {
            fn exact(&self) -> bool {
                true
            }
        }
    };
}

// Sizes around the first chunk's 16 KiB and the second's 32 KiB, and far past.
sized_element!(E16376, 16_376 - 4);
sized_element!(E16384, 16_384 - 4);
sized_element!(E16392, 16_392 - 4);
sized_element!(E32769, 32_769 - 4);
sized_element!(E100K, 100_003);

/// A struct of a few hundred bytes, with vectors of its own.
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Big {
    a: [u64; 32],
    v: Vec<u16>,
    w: Vec<Big>,
    tail: (u8, u16),
}

impl Exact for Big {
    fn exact(&self) -> bool {
        self.v.exact() && self.w.exact()
    }
}

/// Over-aligned elements, via a string kind whose `write` records misaligned
/// destinations (a misaligned write would be UB; it is written unaligned instead).
#[derive(Debug, PartialEq)]
#[repr(align(64))]
struct Al64(String);

#[derive(Debug, PartialEq)]
#[repr(align(4096))]
struct Al4K(String);

use common::string_kind::MISALIGNED;

string_kind!(Al64, write_al64, |s: &str| Al64(s.to_owned()));
string_kind!(Al4K, write_al4k, |s: &str| Al4K(s.to_owned()));

/// A zero-sized, over-aligned element.
#[derive(Decode, Deserialize, Debug, PartialEq)]
#[repr(align(64))]
struct ZA;

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct OverAligned {
    tag: u8,
    items: Vec<Al64>,
    pages: Vec<Al4K>,
    odd: Vec<[u8; 3]>,
}

impl Exact for OverAligned {
    fn exact(&self) -> bool {
        self.items.exact() && self.pages.exact() && self.odd.exact()
    }
}

// ---------------------------------------------------------------------------
// Re-entrancy: a string kind whose `write` (called from generated code on the
// JIT's fast path) runs a whole decode of nested vectors spanning chunks, and
// sometimes a failing one.

thread_local! {
    static NESTED_CALLS: Cell<usize> = const { Cell::new(0) };
    static NESTED_FAILURES: Cell<usize> = const { Cell::new(0) };
}

fn next_backend() -> Backend {
    let n = NESTED_CALLS.get();
    NESTED_CALLS.set(n + 1);
    let list = common::backends();
    list[n % list.len()]
}

fn nested_value(n: usize) -> Vec<Vec<u16>> {
    if !n.is_multiple_of(8) {
        return vec![vec![n as u16]];
    }
    (0..n % 5 + 1)
        .map(|k| {
            (0..(n * 131 + k * 977) % 1200)
                .map(|i| ((i * 7 + n) % 65536) as u16)
                .collect()
        })
        .collect()
}

fn nested_doc(n: usize) -> String {
    join(
        nested_value(n)
            .iter()
            .map(|v| join(v.iter().map(|x| x.to_string()))),
    )
}

#[derive(Debug, PartialEq)]
struct Reentrant {
    key: String,
    nested: Vec<Vec<u16>>,
}

fn build_reentrant(s: &str) -> Reentrant {
    let n: usize = s.parse().unwrap_or(0);
    Reentrant {
        key: s.to_owned(),
        nested: nested_value(n),
    }
}

/// Runs nested decodes; never panics (it is called through `extern "C"`).
fn reentrant_by_decoding(s: &str) -> Reentrant {
    let n: usize = s.parse().unwrap_or(0);
    let backend = next_backend();
    let doc = nested_doc(n);
    let nested = match Decoder::<Vec<Vec<u16>>>::with_backend(backend).decode_str(&doc) {
        Ok(v) => v,
        Err(_) => {
            NESTED_FAILURES.set(NESTED_FAILURES.get() + 1);
            vec![vec![0xDEAD]]
        }
    };
    if n.is_multiple_of(32) {
        // A nested decode that fails in the middle of its elements.
        let bad = format!("{},[1,2,\"x\"]]", &doc[..doc.len() - 1]);
        let bad = if doc == "[]" {
            "[[1,\"x\"]]".to_owned()
        } else {
            bad
        };
        if Decoder::<Vec<Vec<u16>>>::with_backend(next_backend())
            .decode_str(&bad)
            .is_ok()
        {
            NESTED_FAILURES.set(NESTED_FAILURES.get() + 1);
        }
    }
    Reentrant {
        key: s.to_owned(),
        nested,
    }
}

/// # Safety
/// `dst` is valid for a `Reentrant` write; the bytes are UTF-8.
unsafe extern "C" fn write_reentrant(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees.
    let s = unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(ptr, len)) };
    let value = reentrant_by_decoding(s);
    // SAFETY: as the caller guarantees.
    unsafe { dst.cast::<Reentrant>().write(value) };
}

// SAFETY: writes a whole Reentrant; size, alignment and drop from the type.
unsafe impl jitson::HasLayout for Reentrant {
    type Static = Self;
    const LAYOUT: &'static jitson::__private::TypeLayout =
        &jitson::__private::TypeLayout::of::<Reentrant>(
            "a string",
            jitson::__private::Kind::String(&jitson::__private::StringLayout {
                write: write_reentrant,
                read: None,
            }),
        );
}

// SAFETY: owns its data.
unsafe impl<'de> jitson::DecodeBorrowed<'de> for Reentrant {}

impl<'de> Deserialize<'de> for Reentrant {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Reentrant, D::Error> {
        let s = String::deserialize(d)?;
        Ok(build_reentrant(&s))
    }
}

/// A value whose `Drop` decodes vectors of counted strings spanning chunks (and
/// a failing document), with a rotating backend.
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct DropDecodes {
    n: u32,
    tag: Counted,
}

fn counted_doc(n: usize) -> String {
    join(
        (0..3)
            .map(|k| join((0..(n * 17 + k * 301) % 900).map(|i| format!("\"{}\"", (i + k) % 10)))),
    )
}

impl Drop for DropDecodes {
    fn drop(&mut self) {
        let n = self.n as usize;
        if !n.is_multiple_of(16) {
            return;
        }
        let doc = counted_doc(n);
        let before = counted::live();
        match Decoder::<Vec<Vec<Counted>>>::with_backend(next_backend()).decode_str(&doc) {
            Ok(v) => {
                let want: Vec<usize> = (0..3).map(|k| (n * 17 + k * 301) % 900).collect();
                if v.iter().map(Vec::len).collect::<Vec<_>>() != want
                    || v.iter().any(|x| x.capacity() != x.len())
                {
                    NESTED_FAILURES.set(NESTED_FAILURES.get() + 1);
                }
            }
            Err(_) => NESTED_FAILURES.set(NESTED_FAILURES.get() + 1),
        }
        if n.is_multiple_of(48) {
            let bad = format!("{},[\"a\",\"b\",7]]", &doc[..doc.len() - 1]);
            if Decoder::<Vec<Vec<Counted>>>::with_backend(next_backend())
                .decode_str(&bad)
                .is_ok()
            {
                NESTED_FAILURES.set(NESTED_FAILURES.get() + 1);
            }
        }
        if counted::live() != before {
            NESTED_FAILURES.set(NESTED_FAILURES.get() + 1);
        }
    }
}

impl Exact for DropDecodes {
    fn exact(&self) -> bool {
        true
    }
}

// A `default` fn that decodes (and, while armed, panics).
thread_local! {
    static DEFAULT_PANICS: Cell<bool> = const { Cell::new(false) };
}

fn nested_default() -> Vec<Vec<u16>> {
    if DEFAULT_PANICS.get() {
        panic!("default fn panics");
    }
    let doc = nested_doc(8);
    match Decoder::<Vec<Vec<u16>>>::with_backend(next_backend()).decode_str(&doc) {
        Ok(v) if v == nested_value(8) && v.exact() => v,
        _ => {
            NESTED_FAILURES.set(NESTED_FAILURES.get() + 1);
            vec![vec![0xDEAD]]
        }
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct WithDefault {
    a: u32,
    #[serde(default = "nested_default")]
    d: Vec<Vec<u16>>,
    v: Vec<Counted>,
}

impl Exact for WithDefault {
    fn exact(&self) -> bool {
        self.d.exact() && self.v.exact()
    }
}

/// `try_from` a vector: refused for "bad", panics for "panic".
#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(try_from = "Vec<Counted>")]
struct Checked(Vec<Counted>);

impl TryFrom<Vec<Counted>> for Checked {
    type Error = String;
    fn try_from(v: Vec<Counted>) -> Result<Self, String> {
        if v.iter().any(|c| c.0 == "panic") {
            panic!("try_from panics");
        }
        if v.iter().any(|c| c.0 == "bad") {
            return Err(format!("bad among {}", v.len()));
        }
        Ok(Checked(v))
    }
}

impl Exact for Checked {
    fn exact(&self) -> bool {
        self.0.exact()
    }
}

/// `deserialize_with` running a jitson decode of its own (needs jitson's
/// `serde` feature, as `deserialize_with` does).
#[cfg(feature = "serde")]
fn via_jitson<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Vec<u32>>, D::Error> {
    let s = String::deserialize(d)?;
    let ours = Decoder::<Vec<Vec<u32>>>::with_backend(next_backend())
        .decode_str(&s)
        .map_err(serde::de::Error::custom)?;
    if serde_json::from_str::<Vec<Vec<u32>>>(&s).ok().as_ref() != Some(&ours) || !ours.exact() {
        NESTED_FAILURES.set(NESTED_FAILURES.get() + 1);
    }
    Ok(ours)
}

#[cfg(feature = "serde")]
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Escape {
    #[serde(deserialize_with = "via_jitson")]
    inner: Vec<Vec<u32>>,
    v: Vec<Counted>,
}

#[cfg(feature = "serde")]
impl Exact for Escape {
    fn exact(&self) -> bool {
        self.v.exact()
    }
}

// Enums with vector payloads.

#[derive(Decode, Deserialize, Debug, PartialEq)]
enum Ext {
    Unit,
    New(Vec<Counted>),
    Tup(Vec<u8>, Vec<Vec<u16>>),
    Rec { v: Vec<Ext>, s: Counted },
}

impl Exact for Ext {
    fn exact(&self) -> bool {
        match self {
            Ext::Unit => true,
            Ext::New(v) => v.exact(),
            Ext::Tup(a, b) => a.exact() && b.exact(),
            Ext::Rec { v, .. } => v.exact(),
        }
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "t")]
enum Int {
    A { v: Vec<Counted> },
    B { w: Vec<Vec<u32>>, x: u8 },
}

impl Exact for Int {
    fn exact(&self) -> bool {
        match self {
            Int::A { v } => v.exact(),
            Int::B { w, .. } => w.exact(),
        }
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adj {
    A(Vec<Counted>),
    B(Vec<Vec<u8>>),
    C,
}

impl Exact for Adj {
    fn exact(&self) -> bool {
        match self {
            Adj::A(v) => v.exact(),
            Adj::B(v) => v.exact(),
            Adj::C => true,
        }
    }
}

/// Untagged: each failed variant leaves decoded elements behind to discard.
#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum Unt {
    Pairs(Vec<(Counted, u8)>),
    Strs(Vec<(Counted, Counted)>),
    Deep(Vec<Vec<Counted>>),
}

impl Exact for Unt {
    fn exact(&self) -> bool {
        match self {
            Unt::Pairs(v) => v.exact(),
            Unt::Strs(v) => v.exact(),
            Unt::Deep(v) => v.exact(),
        }
    }
}

/// Many vector fields and wrappers in one element (`Box<Vec<..>>` on purpose:
/// a vector decoded inside a box's allocation).
#[allow(clippy::box_collection, reason = "the layout under test")]
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Many {
    a: Vec<u8>,
    b: Vec<Counted>,
    c: [Vec<u16>; 3],
    d: (Vec<u64>, Vec<[u8; 3]>),
    e: Option<Vec<Vec<Counted>>>,
    f: Box<Vec<u32>>,
    g: HashMap<String, Vec<Counted>>,
    h: Vec<Option<Box<Vec<u8>>>>,
    i: BTreeMap<String, Vec<Vec<u16>>>,
    j: Vec<()>,
}

impl Exact for Many {
    fn exact(&self) -> bool {
        self.a.exact()
            && self.b.exact()
            && self.c.exact()
            && self.d.exact()
            && self.e.exact()
            && self.f.exact()
            && self.g.exact()
            && self.h.exact()
            && self.i.exact()
            && self.j.exact()
    }
}

/// Elements that send the JIT to its slow paths (keys out of order or escaped, long
/// numbers, escaped strings, unknown fields).
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Slow {
    a: u64,
    v: Vec<u32>,
    s: Counted,
    #[serde(default)]
    o: Option<Vec<Counted>>,
}

impl Exact for Slow {
    fn exact(&self) -> bool {
        self.v.exact() && self.o.exact()
    }
}

/// A recursive tree of counted strings.
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Tree {
    s: Counted,
    c: Vec<Tree>,
}

impl Exact for Tree {
    fn exact(&self) -> bool {
        self.c.exact()
    }
}

// ---------------------------------------------------------------------------
// 1. Element sizes.

#[test]
fn zero_sized_elements() {
    let nulls = |n: usize| join((0..n).map(|_| "null".to_owned()));
    for n in [0, 1, 2, 100, 100_000] {
        let v = check_rounds::<Vec<()>>(&nulls(n), 1);
        assert_eq!(v.len(), n);
        let v = check_rounds::<Vec<ZA>>(&nulls(n), 1);
        assert_eq!(v.len(), n);
        assert_eq!(v.as_ptr() as usize % 64, 0);
    }
    let empties = |n: usize| join((0..n).map(|_| "[]".to_owned()));
    check::<Vec<[u8; 0]>>(&empties(5000));
    check::<Vec<Vec<[u64; 0]>>>(&join((0..300).map(|i| empties(i % 7))));
    check::<Vec<Vec<ZA>>>(&join((0..300).map(|i| nulls(i * 13 % 50))));
    // ZSTs beside non-ZST nesting: ((), Vec<u8>) and Vec<Vec<()>> interleaved.
    let doc =
        join((0..2000).map(|i| format!("[null,{}]", join((0..i % 17).map(|x| x.to_string())))));
    check::<Vec<((), Vec<u8>)>>(&doc);
    let doc = join((0..40).map(|i| join((0..i * 31).map(|_| nulls(i % 3)))));
    check::<Vec<Vec<Vec<()>>>>(&doc);
}

#[test]
fn odd_sized_elements_across_chunk_boundaries() {
    fn each<T>(size: usize, elem: impl Fn(usize) -> String)
    where
        T: Decode + DeserializeOwned + PartialEq + Debug + Exact,
    {
        let lengths = boundary_lengths(size);
        // Each length alone (the first chunk starts empty)...
        for &n in &lengths {
            if n < 40_000 || n % 3 == 0 {
                check_rounds::<Vec<T>>(&join((0..n).map(&elem)), 1);
            }
        }
        // ... and all of them as the rows of one document (each row starts where
        // the stack is after the row vectors before it).
        let rows: Vec<String> = lengths
            .iter()
            .filter(|&&n| n < 20_000)
            .map(|&n| join((0..n).map(&elem)))
            .collect();
        check_rounds::<Vec<Vec<T>>>(&join(rows), 1);
    }
    each::<u8>(1, |i| (i % 256).to_string());
    each::<u16>(2, |i| (i % 65536).to_string());
    each::<[u8; 3]>(3, |i| format!("[{},{},{}]", i % 256, (i / 3) % 256, 7));
    each::<(u8, u16)>(4, |i| format!("[{},{}]", i % 256, i % 65536));
    each::<[u8; 5]>(5, |i| format!("[{},1,2,3,{}]", i % 256, (i * 7) % 256));
    each::<(u16, u8, u16)>(6, |i| format!("[{},{},{}]", i % 65536, i % 256, 3));
    each::<bool>(1, |i| (i % 3 == 0).to_string());
}

#[test]
fn mixed_alignments_nested_above_each_other() {
    // Parents of 1-, 3- and 24-byte elements with children of 8-, 2- and 3-byte
    // elements pushed above them; the parents' elements must survive intact.
    let mut rng = Rng(0x5eed);
    let doc = join((0..300).map(|i| {
        let n = if rng.chance(1, 20) {
            3000
        } else {
            rng.below(20) as usize
        };
        let m = rng.below(40) as usize;
        format!(
            "[{},{},{}]",
            i % 256,
            join((0..n).map(|x| (x * 3).to_string())),
            join((0..m).map(|x| format!("[{},{},{}]", x % 256, 1, 2)))
        )
    }));
    check::<Vec<(u8, Vec<u64>, Vec<[u8; 3]>)>>(&doc);
    let doc = join((0..200).map(|i| {
        join(
            (0..(i * 37) % 300)
                .map(|j| format!("[{},{}]", j % 256, join((0..j % 5).map(|x| x.to_string())))),
        )
    }));
    check::<Vec<Vec<(u8, Vec<u16>)>>>(&doc);
}

#[test]
fn large_elements_and_elements_bigger_than_a_chunk() {
    // ~1 KiB elements: none fits the lent kibibyte, 15 the first allocated chunk.
    let fat = |i: usize| {
        format!(
            r#"{{"s":"f{i}","v":{}}}"#,
            join((0..i % 7).map(|k| format!("\"{k}\"")))
        )
    };
    for n in [14, 15, 16, 17, 46, 47, 48, 108, 109, 110, 300] {
        check_rounds::<Vec<Fat>>(&join((0..n).map(fat)), 1);
    }
    check::<Vec<Vec<Fat>>>(&join((0..12).map(|r| join((0..r * 9).map(fat)))));
    // Elements around the chunk size itself.
    let ids = |n: usize| join((0..n).map(|i| format!(r#"{{"id":{i}}}"#)));
    for n in [1, 2, 3, 5, 9] {
        check_rounds::<Vec<E16376>>(&ids(n), 1);
        check_rounds::<Vec<E16384>>(&ids(n), 1);
        check_rounds::<Vec<E16392>>(&ids(n), 1);
        check_rounds::<Vec<E32769>>(&ids(n), 1);
    }
    check_rounds::<Vec<Vec<E16392>>>(&join((0..6).map(ids)), 1);
    check_rounds::<Vec<(Vec<E16384>, Vec<u8>, Vec<E32769>)>>(
        &join((0..5).map(|i| {
            format!(
                "[{},{},{}]",
                ids(i),
                join((0..i * 5000).map(|_| "1".into())),
                ids(3 - i.min(3))
            )
        })),
        1,
    );
    // 100 KB elements, 10 MB in all.
    check_rounds::<Vec<E100K>>(&ids(100), 1);
    // A 300-byte struct with vectors of itself.
    let arr32 = |x: usize| join((0..32).map(|k| ((x + k) * 11).to_string()));
    let leaf = |x: usize| {
        format!(
            r#"{{"a":{},"v":{},"w":[],"tail":[{},{}]}}"#,
            arr32(x),
            join((0..x % 900).map(|k| k.to_string())),
            x % 256,
            x
        )
    };
    let doc = join((0..60).map(|i| {
        format!(
            r#"{{"a":{},"v":[1,2,3],"w":{},"tail":[1,2]}}"#,
            arr32(i),
            join((0..i % 9).map(|k| leaf(i * 10 + k)))
        )
    }));
    check::<Vec<Big>>(&doc);
}

#[test]
fn over_aligned_elements_are_written_aligned() {
    MISALIGNED.set(0);
    let strs = |n: usize, p: &str| join((0..n).map(|i| format!("\"{p}{i}\"")));
    for n in boundary_lengths(64).into_iter().filter(|&n| n < 3000) {
        check_rounds::<Vec<Al64>>(&strs(n, "a"), 1);
    }
    for n in [1, 3, 4, 5, 8, 12, 13, 40] {
        check_rounds::<Vec<Al4K>>(&strs(n, "p"), 1);
    }
    // Above parents of odd sizes: the child's first element needs padding.
    let doc = join((0..120).map(|i| {
        format!(
            r#"{{"tag":{},"items":{},"pages":{},"odd":{}}}"#,
            i % 256,
            strs(i * 7 % 300, "i"),
            strs(i % 5, "g"),
            join((0..i % 11).map(|k| format!("[{k},{k},{k}]")))
        )
    }));
    check::<Vec<OverAligned>>(&doc);
    let doc = join((0..200).map(|i| {
        format!(
            "[{},{}]",
            join((0..i % 7).map(|k| format!("[{k},1,2]"))),
            strs(i % 3, "x")
        )
    }));
    check::<Vec<(Vec<[u8; 3]>, Vec<Al4K>)>>(&doc);
    assert_eq!(
        MISALIGNED.get(),
        0,
        "over-aligned elements written misaligned"
    );
}

// ---------------------------------------------------------------------------
// 2. Depth and volume.

/// A random document of vectors `depth` deep with u16 leaves; long vectors (up to
/// 1,500 elements) appear at every level so that chunk boundaries fall inside
/// vectors of every level.
fn deep_doc(rng: &mut Rng, depth: usize, leaf: &dyn Fn(&mut Rng) -> String) -> String {
    let long = depth >= 7 || rng.chance(1, 3);
    let len = if long {
        200 + rng.below(1300) as usize
    } else {
        rng.below(5) as usize
    };
    if depth == 1 {
        return join((0..len).map(|_| leaf(rng)));
    }
    // Two children recurse (at random places), the others are empty.
    let deeper: Vec<usize> = (0..2.min(len))
        .map(|_| rng.below(len as u64) as usize)
        .collect();
    let mut items = Vec::with_capacity(len);
    for i in 0..len {
        if deeper.contains(&i) {
            items.push(deep_doc(rng, depth - 1, leaf));
        } else {
            items.push("[]".to_owned());
        }
    }
    join(items)
}

type V7 = Vec<Vec<Vec<Vec<Vec<Vec<Vec<u16>>>>>>>;
type V6C = Vec<Vec<Vec<Vec<Vec<Vec<Counted>>>>>>;

#[test]
fn seven_levels_deep_crossing_chunks_at_every_level() {
    for seed in 1..=10u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let doc = deep_doc(&mut rng, 7, &|r| r.below(65536).to_string());
        check_rounds::<V7>(&doc, 1);
    }
}

#[test]
fn six_levels_of_counted_strings_fail_anywhere() {
    for seed in 1..=4u64 {
        let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
        let doc = deep_doc(&mut rng, 6, &|r| format!("\"{}\"", r.below(100)));
        check_rounds::<V6C>(&doc, 1);
        // Replace one leaf string by a number, at 12 places spread over the document.
        let quotes: Vec<usize> = doc.match_indices('"').map(|(i, _)| i).step_by(2).collect();
        if quotes.is_empty() {
            continue;
        }
        for k in 0..12 {
            let at = quotes[(quotes.len() - 1) * k / 11];
            let end = at + 1 + doc[at + 1..].find('"').unwrap();
            let bad = format!("{}17{}", &doc[..at], &doc[end + 1..]);
            let (kind, _) = check_err::<V6C>(bad.as_bytes());
            assert_eq!(kind, ErrorKind::InvalidType);
            // Cut just after that leaf, too.
            let cut = &doc[..end + 1];
            check_err::<V6C>(cut.as_bytes());
        }
    }
}

#[test]
fn a_million_small_elements_and_ten_megabytes() {
    let doc = join((0..1_000_000).map(|i| (i % 10).to_string()));
    let v = check_rounds::<Vec<u8>>(&doc, 1);
    assert_eq!(v.len(), 1_000_000);
    let doc = join((0..1_000_000).map(|_| "null".to_owned()));
    check_rounds::<Vec<()>>(&doc, 1);
    // 1.3 M u64: 10.4 MB of elements.
    let doc = join((0..1_300_000).map(|i| (i % 10).to_string()));
    let v = check_rounds::<Vec<u64>>(&doc, 1);
    assert_eq!(v.len(), 1_300_000);
    // 10 MB of nested rows, one of them 600,000 long.
    let doc = join((0..50).map(|i| {
        let n = if i == 25 {
            600_000
        } else {
            (i * 7919) % 40_000
        };
        join((0..n).map(|x| (x % 10).to_string()))
    }));
    check_rounds::<Vec<Vec<u32>>>(&doc, 1);
}

// ---------------------------------------------------------------------------
// 3. Errors and panics.

fn fat_doc() -> String {
    // Outer rows of ~1 KiB elements crossing the first three chunks, one of them
    // holding a 700-string vector.
    let fat = |i: usize| {
        let n = if i == 40 { 700 } else { i % 4 };
        format!(
            r#"{{"s":"f{}","v":{}}}"#,
            i % 10,
            join((0..n).map(|k| format!("\"{}\"", k % 10)))
        )
    };
    join([20, 3, 60, 10].iter().scan(0, |start, &n| {
        let row = join((*start..*start + n).map(fat));
        *start += n;
        Some(row)
    }))
}

#[test]
fn truncated_at_every_byte() {
    let doc = fat_doc();
    check_rounds::<Vec<Vec<Fat>>>(&doc, 1);
    let before = counted::live();
    let confs = configs();
    for cut in 0..doc.len() {
        let prefix = &doc.as_bytes()[..cut];
        let mut first = None;
        for &c in &confs {
            let e = decoder::<Vec<Vec<Fat>>>(c)
                .decode_slice(prefix)
                .expect_err("a prefix is not a document");
            let s = common::shape(&e);
            assert!(
                first.get_or_insert(s.clone()) == &s,
                "{c:?} at cut {cut}: {s:?} vs {first:?}"
            );
            assert_eq!(counted::live(), before, "{c:?} at cut {cut}");
        }
        assert_eq!(first.unwrap().kind, ErrorKind::UnexpectedEnd, "cut {cut}");
    }
    check_rounds::<Vec<Vec<Fat>>>(&doc, 1);
}

#[test]
fn corrupted_at_every_fifth_byte_agrees_with_serde_json() {
    let doc = fat_doc().into_bytes();
    let junk = [
        b'x', b']', b'}', b',', b'"', b'1', b'[', b'{', 0xff, b':', b'\\', b' ',
    ];
    let before = counted::live();
    for (k, at) in (0..doc.len()).step_by(5).enumerate() {
        let mut bad = doc.clone();
        bad[at] = junk[k % junk.len()];
        let ours = common::decode::<Vec<Vec<Fat>>>(&bad);
        let theirs = serde_json::from_slice::<Vec<Vec<Fat>>>(&bad);
        let _ = common::oracle::compare(&bad, ours, theirs, |a, b| a == b);
        assert_eq!(counted::live(), before, "at {at}");
    }
}

#[test]
fn an_error_in_the_middle_of_the_third_chunk() {
    // 1 KiB elements: the third chunk holds about elements 46..108.
    let fat = |i: usize| format!(r#"{{"s":"f{i}","v":["a","b"]}}"#);
    let good: Vec<String> = (0..150).map(fat).collect();
    let breakers = [
        r#"{"s":7,"v":[]}"#,           // invalid type
        r#"{"s":"x","v":["a",]}"#,     // syntax
        r#"{"s":"x"}"#,                // missing field
        r#"{"s":"x","v":[],"s":"y"}"#, // duplicate field
        r#"{"s":"x","v":["\ud800"]}"#, // lone surrogate
        r#"{"s":"x","v":["a"] "#,      // eof-ish: missing }
    ];
    for at in [46, 77, 80, 107] {
        for b in breakers {
            let mut bad = good.clone();
            bad[at] = b.to_owned();
            check_err::<Vec<Fat>>(join(bad.clone()).as_bytes());
            // The same inside a row of a nested document.
            let nested = format!("[{},{}]", join(good[..10].to_vec()), join(bad));
            check_err::<Vec<Vec<Fat>>>(nested.as_bytes());
        }
    }
    // Invalid UTF-8 in the third chunk (decode_slice only).
    let mut bytes = join(good.clone()).into_bytes();
    let at = bytes.len() / 2;
    let q = at + bytes[at..].iter().position(|&b| b == b'a').unwrap();
    bytes[q] = 0xC3;
    check_err::<Vec<Fat>>(&bytes);
    // Trailing characters after the whole array: the decoded value is dropped.
    check_err::<Vec<Fat>>(format!("{} x", join(good.clone())).as_bytes());
    // A counted string vector of 3,400 elements (third chunk) broken at its end.
    let strs = |n: usize| {
        (0..n)
            .map(|i| format!("\"{}\"", i % 10))
            .collect::<Vec<_>>()
    };
    let mut v = strs(3400);
    v.push("null".into());
    check_err::<Vec<Counted>>(join(v).as_bytes());
    // Depth limit reached deep inside, with full vectors at every level above.
    let deep = format!(
        "[{}, [{}, [{}, [[[[1]]]]]]]",
        strs(800).join(","),
        strs(800).join(","),
        strs(800).join(",")
    );
    for c in configs() {
        let before = counted::live();
        type Any = Vec<jitson::RawValue>;
        let _ = decoder::<Any>(c).decode_str(&deep);
        let e = decoder::<Vec<Vec<Vec<Vec<Vec<Vec<Vec<Counted>>>>>>>>(c)
            .max_depth(5)
            .decode_str(&deep);
        assert!(e.is_err(), "{c:?}");
        assert_eq!(counted::live(), before, "{c:?}");
    }
}

/// Runs `f`, expects it to panic with `message`; returns nothing.
fn expect_panic(c: Config, what: &str, message: &str, f: impl FnOnce()) {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err(&format!("{c:?} {what}: no panic"));
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(text.contains(message), "{c:?} {what}: payload {text:?}");
}

#[test]
fn panicking_drops_while_discarding_across_chunks() {
    let fat = |_i: usize, p: &str| format!(r#"{{"p":"{p}","v":["a","{p}","c"]}}"#);
    let before = counted::live();
    for c in configs() {
        let d = decoder::<Vec<Vec<FatPanic>>>(c);
        for at in [5, 16, 30, 47, 77, 100] {
            // "boom" in several chunks, an error later in the third chunk.
            let row: Vec<String> = (0..120)
                .map(|i| {
                    if i == 110 {
                        r#"{"p":"x","v":[1]}"#.to_owned()
                    } else {
                        fat(i, if i % 17 == at % 17 { "boom" } else { "ok" })
                    }
                })
                .collect();
            let doc = format!("[{},{}]", join((0..at).map(|i| fat(i, "ok"))), join(row));
            counted::arm_panic_drop(true);
            expect_panic(c, "discard", "drop of boom", || {
                let _ = d.decode_str(&doc);
            });
            counted::arm_panic_drop(false);
            assert_eq!(counted::live(), before, "{c:?} at {at}");
            // The same document without the error decodes, and drops quietly.
            let fine = doc.replace(r#"{"p":"x","v":[1]}"#, r#"{"p":"x","v":[]}"#);
            let v = d.decode_str(&fine).unwrap();
            assert_eq!(v[1].len(), 120);
            assert!(v.iter().all(|r| r.capacity() == r.len()));
            drop(v);
            assert_eq!(counted::live(), before, "{c:?} at {at}");
        }
    }
    counted::arm_panic_drop(true);
}

#[test]
fn panicking_default_fn_in_the_middle_of_a_vector() {
    let elem = |i: usize, with_d: bool| {
        if with_d {
            format!(r#"{{"a":{i},"d":[[1],[2,3]],"v":["x","y"]}}"#)
        } else {
            format!(r#"{{"a":{i},"v":["x","y","z"]}}"#)
        }
    };
    let before = counted::live();
    for c in configs() {
        for at in [0, 1, 700, 1500] {
            let doc = join((0..1600).map(|i| elem(i, i != at)));
            DEFAULT_PANICS.set(true);
            expect_panic(c, "default", "default fn panics", || {
                let _ = decoder::<Vec<WithDefault>>(c).decode_str(&doc);
            });
            DEFAULT_PANICS.set(false);
            assert_eq!(counted::live(), before, "{c:?} at {at}");
        }
    }
}

#[test]
fn try_from_a_vector_refused_or_panicking_among_chunks() {
    let row = |i: usize, word: &str| {
        join((0..(i % 9) + 1).map(|k| format!("\"{}\"", if k == 0 { word } else { "w" })))
    };
    let good = join((0..800).map(|i| row(i, "ok")));
    check_rounds::<Vec<Checked>>(&good, 1);
    let before = counted::live();
    for at in [3, 500, 799] {
        let bad = join((0..800).map(|i| row(i, if i == at { "bad" } else { "ok" })));
        let (kind, path) = check_err::<Vec<Checked>>(bad.as_bytes());
        assert_eq!((kind, path), (ErrorKind::InvalidValue, format!("$[{at}]")));
        let panics = join((0..800).map(|i| row(i, if i == at { "panic" } else { "ok" })));
        for c in configs() {
            expect_panic(c, "try_from", "try_from panics", || {
                let _ = decoder::<Vec<Checked>>(c).decode_str(&panics);
            });
            assert_eq!(counted::live(), before, "{c:?} at {at}");
        }
    }
}

// ---------------------------------------------------------------------------
// 4. Re-entrancy.

#[test]
fn a_string_write_that_decodes_vectors_itself() {
    NESTED_FAILURES.set(0);
    // Reentrant is 48 bytes: 400 of them cross the first chunk; every eighth runs
    // nested decodes spanning chunks of their own (every 32nd a failing one too).
    let doc = join((0..400).map(|i| format!("\"{}\"", i * 3)));
    check_rounds::<Vec<Reentrant>>(&doc, 1);
    let doc = join((0..30).map(|r| join((0..r * 13).map(|i| format!("\"{}\"", i + r)))));
    check_rounds::<Vec<Vec<Reentrant>>>(&doc, 1);
    // With an error after them.
    let bad = format!("{},7]", &doc[..doc.len() - 1]);
    check_err::<Vec<Vec<Reentrant>>>(bad.as_bytes());
    assert_eq!(NESTED_FAILURES.get(), 0, "a nested decode went wrong");
}

#[test]
fn decoding_inside_drop_while_discarding() {
    NESTED_FAILURES.set(0);
    let before = counted::live();
    let elem = |i: usize| format!(r#"{{"n":{i},"tag":"t{i}"}}"#);
    let good = join((0..900).map(elem));
    // Success: dropping the result (in the caller) runs the nested decodes.
    check_rounds::<Vec<DropDecodes>>(&good, 1);
    // Failure in the middle of the third chunk (48-byte elements: ~2,000), and
    // trailing characters (the whole decoded value dropped by the facade).
    for bad in [
        format!("{},{{\"n\":1,\"tag\":2}}]", &good[..good.len() - 1]),
        format!("{} x", good),
        format!("[{},[{{\"n\":\"x\"}}]]", good),
    ] {
        let nested = format!("[{}]", bad);
        check_err::<Vec<DropDecodes>>(bad.as_bytes());
        check_err::<Vec<Vec<DropDecodes>>>(nested.as_bytes());
    }
    let big = join((0..2100).map(elem));
    check_err::<Vec<DropDecodes>>(format!("{},{{}}]", &big[..big.len() - 1]).as_bytes());
    assert_eq!(counted::live(), before);
    assert_eq!(NESTED_FAILURES.get(), 0, "a nested decode went wrong");
}

#[test]
fn decoding_inside_default_fn_try_from_and_deserialize_with() {
    NESTED_FAILURES.set(0);
    DEFAULT_PANICS.set(false);
    let doc = join((0..1200).map(|i| {
        if i % 50 == 0 {
            format!(r#"{{"a":{i},"v":["a","b"]}}"#)
        } else {
            format!(r#"{{"a":{i},"d":[[{i}]],"v":["c"]}}"#)
        }
    }));
    check_rounds::<Vec<WithDefault>>(&doc, 1);
    #[cfg(feature = "serde")]
    deserialize_with_decoding_inside();
}

/// The `deserialize_with` half of the test above.
#[cfg(feature = "serde")]
fn deserialize_with_decoding_inside() {
    let doc = join((0..700).map(|i| {
        format!(
            r#"{{"inner":"{}","v":["p","q"]}}"#,
            nested_doc(i).replace(',', ", ")
        )
    }));
    check_rounds::<Vec<Escape>>(&doc, 1);
    let bad = doc.replacen("[[", "[[\\\"x\\\",", 1);
    check_err::<Vec<Escape>>(bad.as_bytes());
    assert_eq!(NESTED_FAILURES.get(), 0);
}

// ---------------------------------------------------------------------------
// 5. Shapes around vectors.

#[test]
fn wrappers_maps_enums_and_borrowed_strings() {
    let strs = |n: usize| join((0..n).map(|i| format!("\"s{}\"", i % 10)));
    let nums = |n: usize| join((0..n).map(|i| (i % 200).to_string()));
    // Option<Vec<T>>, Box<Vec<T>>, Vec<Option<Box<Vec<T>>>>.
    check::<Option<Vec<Counted>>>(&strs(3000));
    check::<Option<Vec<Counted>>>("null");
    check::<Box<Vec<Vec<Counted>>>>(&join((0..50).map(|i| strs(i * 29))));
    check::<Vec<Option<Box<Vec<u16>>>>>(&join((0..2000).map(|i| {
        if i % 3 == 0 {
            "null".into()
        } else {
            nums(i % 40)
        }
    })));
    check::<Vec<Option<Vec<Counted>>>>(&join((0..900).map(|i| {
        if i % 4 == 0 {
            "null".into()
        } else {
            strs(i % 30)
        }
    })));
    // Maps of vectors and vectors of maps, with a repeated key replacing.
    let map = |i: usize| {
        format!(
            r#"{{"a":{},"b":{},"a":{}}}"#,
            strs(i % 13),
            strs(i * 7 % 500),
            strs(i % 5)
        )
    };
    check::<HashMap<String, Vec<Counted>>>(&map(3));
    let doc = join((0..300).map(map));
    let serde_ok = serde_json::from_str::<Vec<HashMap<String, Vec<Counted>>>>(&doc).is_ok();
    if serde_ok {
        check::<Vec<HashMap<String, Vec<Counted>>>>(&doc);
    }
    check::<BTreeMap<String, Vec<Vec<u8>>>>(&format!(
        r#"{{"x":{},"y":{}}}"#,
        join((0..40).map(|i| nums(i * 50))),
        join((0..3).map(|_| nums(20_000)))
    ));
    // Structs with many vector fields.
    let mut rng = Rng(77);
    let many = |rng: &mut Rng| {
        let mut n = || {
            if rng.chance(1, 10) {
                2000
            } else {
                rng.below(5) as usize
            }
        };
        format!(
            r#"{{"a":{},"b":{},"c":[{},{},{}],"d":[{},{}],"e":{},"f":{},"g":{{"k":{},"l":{}}},"h":[null,{}],"i":{{"m":[{}]}},"j":[null,null]}}"#,
            nums(n()),
            strs(n()),
            nums(n()),
            nums(n()),
            nums(n()),
            nums(n()),
            join((0..n()).map(|i| format!("[{},1,2]", i % 256))),
            join((0..n() % 4).map(|_| strs(5))),
            nums(n()),
            strs(n()),
            strs(n()),
            nums(n()),
            nums(n()),
        )
    };
    let doc = join((0..80).map(|_| many(&mut rng)));
    check::<Vec<Many>>(&doc);
    // Enums with vector payloads.
    let doc = format!(
        r#"[{{"New":{}}},"Unit",{{"Tup":[{},[{},[]]]}},{{"Rec":{{"v":[{{"New":{}}},{{"Rec":{{"v":[],"s":"z"}}}}],"s":"r"}}}}]"#,
        strs(2000),
        nums(200),
        nums(3000),
        strs(700)
    );
    check::<Vec<Ext>>(&doc);
    let doc = join((0..400).map(|i| {
        if i % 2 == 0 {
            format!(r#"{{"t":"A","v":{}}}"#, strs(i % 60))
        } else {
            format!(r#"{{"w":[{},[]],"x":{},"t":"B"}}"#, nums(i * 3), i % 200)
        }
    }));
    check::<Vec<Int>>(&doc);
    let doc = join((0..400).map(|i| match i % 3 {
        0 => format!(r#"{{"t":"A","c":{}}}"#, strs(i % 60)),
        1 => format!(r#"{{"c":[{}],"t":"B"}}"#, nums(i)),
        _ => r#"{"t":"C"}"#.to_owned(),
    }));
    check::<Vec<Adj>>(&doc);
    // Untagged: "Pairs" fails late (after hundreds of elements), then "Strs",
    // then "Deep".
    let pairs = |n: usize, last: &str| {
        join((0..n).map(|i| {
            if i + 1 == n {
                format!("[\"a\",{last}]")
            } else {
                format!("[\"a\",{}]", i % 200)
            }
        }))
    };
    let mut rows: Vec<String> = (0..900).map(|_| r#"["a","b"]"#.to_owned()).collect();
    rows.push(r#"["a","b","c"]"#.to_owned());
    let strs_then_deep = join(rows);
    check::<Vec<Unt>>(&format!(
        "[{},{},{},{}]",
        pairs(900, "1"),
        strs_then_deep,
        join((0..3).map(|i| strs(i * 400))),
        pairs(1, "2")
    ));
    // No variant matches, each failing late.
    check_err::<Vec<Unt>>(format!("[{},{}]", pairs(900, "1"), pairs(900, "\"b\"")).as_bytes());
    // Vec<&str> and Vec<Cow<str>>: borrowed, and an escape refused for &str.
    let doc = join((0..40).map(|i| strs(i * 53)));
    for c in configs() {
        let v = decoder::<Vec<Vec<&str>>>(c).decode_str(&doc).unwrap();
        let want: Vec<Vec<String>> = serde_json::from_str(&doc).unwrap();
        assert!(v.iter().zip(&want).all(|(a, b)| a == b) && v.len() == want.len());
        assert!(v.exact(), "{c:?}");
        let escaped = format!("{},[\"a\",\"b\\n\"]]", &doc[..doc.len() - 1]);
        let e = decoder::<Vec<Vec<&str>>>(c)
            .decode_str(&escaped)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidType, "{c:?}");
        let v = decoder::<Vec<Vec<Cow<str>>>>(c)
            .decode_str(&escaped)
            .unwrap();
        assert_eq!(v.last().unwrap()[1], "b\n");
        assert!(v.exact(), "{c:?}");
    }
    // Conversions from a vector.
    check::<VecDeque<Vec<u8>>>(&join((0..100).map(|i| nums(i * 30))));
    check::<Vec<Box<[u16]>>>(&join((0..100).map(|i| nums(i * 30))));
    check::<Box<[Vec<Counted>]>>(&join((0..100).map(|i| strs(i * 30))));
}

impl Exact for VecDeque<Vec<u8>> {
    fn exact(&self) -> bool {
        self.iter().all(Exact::exact)
    }
}
impl Exact for Box<[u16]> {
    fn exact(&self) -> bool {
        true
    }
}
impl Exact for Box<[Vec<Counted>]> {
    fn exact(&self) -> bool {
        self.iter().all(Exact::exact)
    }
}

#[test]
fn jit_slow_paths_inside_vectors_spanning_chunks() {
    let mut rng = Rng(0xdead_beef);
    let slow = |rng: &mut Rng, i: usize| {
        let n = if rng.chance(1, 12) {
            1500
        } else {
            rng.below(6) as usize
        };
        let a = match rng.below(4) {
            0 => "18446744073709551615".to_owned(),
            1 => "12345678901234567890".to_owned(),
            _ => (i * 1000).to_string(),
        };
        let ka = if rng.chance(1, 4) {
            r#""\u0061""#
        } else {
            r#""a""#
        };
        let kv = if rng.chance(1, 5) {
            r#""\u0076""#
        } else {
            r#""v""#
        };
        let s = if rng.chance(1, 3) {
            format!(r#""x\"{i}\n""#)
        } else {
            format!(r#""s{i}""#)
        };
        let v = join((0..n).map(|k| (k * 3).to_string()));
        let o = match rng.below(3) {
            0 => String::new(),
            1 => r#","o":null"#.to_owned(),
            _ => format!(r#","o":["p","q\t",{}]"#, r#""r""#),
        };
        let unknown = if rng.chance(1, 4) {
            r#","zz":[[1,[2]],{"q":[3,"\u0041"]}]"#
        } else {
            ""
        };
        let mut fields = [
            format!("{ka}:{a}"),
            format!("{kv}: {v} "),
            format!(r#""s":{s}"#),
        ];
        let k = rng.below(3) as usize;
        fields.rotate_left(k);
        format!("{{ {}{o}{unknown} }}", fields.join(" , "))
    };
    let doc = join((0..500).map(|i| slow(&mut rng, i)));
    check::<Vec<Slow>>(&doc);
    let doc = join((0..20).map(|r| join((0..r * 20).map(|i| slow(&mut rng, i)))));
    check::<Vec<Vec<Slow>>>(&doc);
    // Characters (interpreter only) and tagged enums as elements of compiled
    // vectors: each element goes to the interpreter, which pushes onto the JIT's
    // stack.
    let chars = join((0..9000).map(|i| format!("\"{}\"", char::from(b'a' + (i % 26) as u8))));
    check::<Vec<char>>(&chars);
    check::<Vec<(char, Vec<Int>)>>(&join((0..300).map(|i| {
        format!(
            r#"["q",[{{"t":"A","v":["a"]}},{{"t":"B","w":[[{}]],"x":1}}]]"#,
            join((0..i * 5).map(|k| k.to_string())).trim_matches(|c| c == '[' || c == ']')
        )
    })));
}

// ---------------------------------------------------------------------------
// 6. Threads, thread exit, memory.

#[test]
fn many_threads_at_once_with_different_shapes() {
    std::thread::scope(|s| {
        for t in 0..8 {
            s.spawn(move || {
                for round in 0..2 {
                    match (t + round) % 4 {
                        0 => {
                            let mut rng = Rng((t as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                            check_rounds::<V7>(
                                &deep_doc(&mut rng, 7, &|r| r.below(65536).to_string()),
                                1,
                            );
                        }
                        1 => {
                            check_rounds::<Vec<Vec<Fat>>>(&fat_doc(), 1);
                        }
                        2 => {
                            let doc = join((0..3000).map(|i| format!("[{},{}]", i % 256, i)));
                            check_rounds::<Vec<(u8, u16)>>(&doc, 1);
                        }
                        _ => {
                            let doc = join((0..60).map(|i| format!(r#"{{"id":{i}}}"#)));
                            check_rounds::<Vec<E16392>>(&doc, 1);
                        }
                    }
                    assert_eq!(counted::live(), 0);
                }
            });
        }
    });
}

#[test]
fn memory_kept_after_a_huge_document_is_bounded() {
    std::thread::spawn(|| {
        let small = "[[1,2,3],[4]]";
        let huge = join((0..20).map(|_| join((0..100_000).map(|i| (i % 10).to_string()))));
        let bad = format!("{},[\"x\"]]", &huge[..huge.len() - 1]);
        for c in configs() {
            let d = decoder::<Vec<Vec<u64>>>(c);
            // Warm: compiled, first chunk cached.
            for _ in 0..3 {
                drop(d.decode_str(small).unwrap());
            }
            let base = net();
            for round in 0..3 {
                let v = d.decode_str(&huge).unwrap();
                assert_eq!(v.len(), 20);
                drop(v);
                let kept = net() - base;
                assert!(
                    kept <= (1 << 20) + (64 << 10),
                    "{c:?} round {round}: {kept} bytes kept after a 16 MB decode"
                );
                // A failure at the very end of the huge document.
                assert!(d.decode_str(&bad).is_err());
                let kept = net() - base;
                assert!(
                    kept <= (1 << 20) + (64 << 10),
                    "{c:?} round {round}: {kept} bytes kept after a failed 16 MB decode"
                );
                assert_eq!(d.decode_str(small).unwrap(), vec![vec![1, 2, 3], vec![4]]);
            }
            // Elements bigger than any kept chunk.
            let big = decoder::<Vec<E100K>>(c);
            let ids = join((0..30).map(|i| format!(r#"{{"id":{i}}}"#)));
            drop(big.decode_str(&ids).unwrap());
            let base2 = net();
            drop(big.decode_str(&ids).unwrap());
            assert!(
                net() - base2 <= (1 << 20) + (64 << 10),
                "{c:?}: {} kept",
                net() - base2
            );
        }
    })
    .join()
    .unwrap();
}

#[test]
fn memory_kept_is_bounded_when_decodes_nest() {
    // A nested decode inside a `Drop` while the outer decode's stack is leased:
    // both leases hand their chunks back; at most 1 MiB may stay.
    std::thread::spawn(|| {
        #[derive(Decode, Debug, PartialEq)]
        struct Nest {
            n: u32,
        }
        impl Drop for Nest {
            fn drop(&mut self) {
                if self.n == 1 {
                    let huge = join((0..2_000_000).map(|i| (i % 10).to_string()));
                    let v = jitson::from_str::<Vec<u64>>(&huge).unwrap();
                    assert_eq!(v.len(), 2_000_000);
                }
            }
        }
        for c in configs() {
            let d = decoder::<Vec<Vec<Nest>>>(c);
            let doc = format!(
                "[{},[{{\"n\":1}}],{}",
                join((0..100_000).map(|_| "[]".to_owned())),
                join((0..60_000).map(|_| r#"[{"n":0}]"#.to_owned()))
            );
            let bad = format!("{}]", &doc[..doc.len() - 1]); // ]] -> ] : eof after a failure
            drop(d.decode_str("[[]]").unwrap());
            let base = net();
            let _ = d.decode_str(&bad);
            let _ = d.decode_str(&format!("{}]", doc));
            let kept = net() - base;
            assert!(kept <= (1 << 20) + (128 << 10), "{c:?}: {kept} bytes kept");
        }
    })
    .join()
    .unwrap();
}

#[test]
fn decode_lines_of_vectors() {
    let lines: Vec<String> = (0..200)
        .map(|i| join((0..(i * 97) % 3000).map(|k| format!("\"{}\"", k % 10))))
        .collect();
    let input = lines.join("\n");
    let before = counted::live();
    let got = jitson::decode_lines::<Vec<Counted>>(input.as_bytes()).unwrap();
    assert_eq!(got.len(), 200);
    assert!(got.iter().all(|v| v.capacity() == v.len()));
    // Counted values were created on other threads: count only what is dropped here.
    let n: usize = got.iter().map(Vec::len).sum();
    drop(got);
    assert_eq!(counted::live(), before - n as isize);
    // And a stream on this thread, interleaved with other decodes.
    let numbers = input.replace('"', "");
    let mut it = jitson::values::<Vec<u16>>(numbers.as_bytes());
    for i in 0..200 {
        let (_, v) = it.next().unwrap().unwrap();
        assert_eq!(v.len(), (i * 97) % 3000);
        let w = jitson::from_str::<Vec<Vec<u8>>>("[[1],[2,3]]").unwrap();
        assert_eq!(w.len(), 2);
    }
}

// ---------------------------------------------------------------------------
// 7. Isolated in a child process (an abort must not take the other tests down).

fn run_isolated(test: &str) {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            test,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "child {test}: {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("1 passed"),
        "child {test} did not run: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn vectors_decode_in_a_thread_local_destructor() {
    run_isolated("child_tls_destructor");
}

#[test]
#[ignore = "run by vectors_decode_in_a_thread_local_destructor in a child process"]
fn child_tls_destructor() {
    use std::sync::Mutex;
    static RESULTS: Mutex<Vec<String>> = Mutex::new(Vec::new());
    struct DecodeOnExit;
    impl Drop for DecodeOnExit {
        fn drop(&mut self) {
            let mut out = Vec::new();
            for c in configs() {
                let doc = counted_doc(5);
                let r = decoder::<Vec<Vec<Counted>>>(c).decode_str(&doc);
                out.push(format!(
                    "{:?}",
                    r.map(|v| v.iter().map(Vec::len).collect::<Vec<_>>())
                        .map_err(|e| e.to_string())
                ));
                let bad = format!("{},[1]]", &doc[..doc.len() - 1]);
                out.push(format!(
                    "{:?}",
                    decoder::<Vec<Vec<Counted>>>(c)
                        .decode_str(&bad)
                        .map(|_| ())
                        .map_err(|e| e.kind())
                ));
                out.push(format!("live {}", counted::live()));
            }
            RESULTS.lock().unwrap().extend(out);
        }
    }
    thread_local! {
        static ON_EXIT: DecodeOnExit = const { DecodeOnExit };
    }
    std::thread::spawn(|| {
        ON_EXIT.with(|_| {});
        for c in configs() {
            // Compiled here: compiling inside a thread-local destructor is another
            // matter (Cranelift's own thread-locals may be gone).
            let doc = counted_doc(4);
            assert!(decoder::<Vec<Vec<Counted>>>(c).decode_str(&doc).is_ok());
            let v = decoder::<Vec<Vec<u64>>>(c)
                .decode_str(&join(
                    (0..5).map(|i| join((0..i * 1000).map(|k| k.to_string()))),
                ))
                .unwrap();
            assert_eq!(v.len(), 5);
        }
    })
    .join()
    .unwrap();
    let results = RESULTS.lock().unwrap();
    let lens: Vec<usize> = (0..3).map(|k| (5 * 17 + k * 301) % 900).collect();
    let mut expected = Vec::new();
    for _ in configs() {
        expected.push(format!("{:?}", Ok::<_, String>(lens.clone())));
        expected.push(format!("{:?}", Err::<(), _>(ErrorKind::InvalidType)));
        expected.push("live 0".to_owned());
    }
    assert_eq!(*results, expected);
}

#[test]
fn deep_trees_on_a_small_stack() {
    run_isolated("child_deep_trees_on_a_small_stack");
}

#[test]
#[ignore = "run by deep_trees_on_a_small_stack in a child process"]
fn child_deep_trees_on_a_small_stack() {
    // A tree 600 deep whose every level also holds siblings (vectors in flight at
    // every level): the stack check fails somewhere in the middle on a small
    // stack; the JIT's failure goes back to the interpreter.
    fn tree(depth: usize) -> String {
        let mut s = String::new();
        for d in 0..depth {
            s.push_str(&format!(r#"{{"s":"n{d}","c":[{{"s":"a","c":[]}},"#));
        }
        s.push_str(r#"{"s":"leaf","c":[]}"#);
        for _ in 0..depth {
            s.push_str("]}");
        }
        s
    }
    for depth in [100, 250, 400, 600] {
        let doc = tree(depth);
        for c in configs() {
            let doc = doc.clone();
            let (live, outcome) = std::thread::Builder::new()
                .stack_size(256 << 10)
                .spawn(move || {
                    let r = decoder::<Tree>(c)
                        .max_depth(jitson::MAX_DEPTH_LIMIT)
                        .decode_str(&doc);
                    let outcome = r.as_ref().map(|_| ()).map_err(|e| e.kind());
                    drop(r);
                    (counted::live(), outcome)
                })
                .unwrap()
                .join()
                .unwrap();
            assert_eq!(live, 0, "{c:?} depth {depth}");
            assert!(
                matches!(outcome, Ok(()) | Err(ErrorKind::DepthLimit)),
                "{c:?} depth {depth}: {outcome:?}"
            );
        }
    }
}

// ===========================================================================
// Second batch, aimed after reading core/src/elements.rs and both seq.rs.
// ===========================================================================

/// Untagged: "Pairs" decodes `("boom", "a")` then fails on the short tuple; its
/// elements are discarded (`discard_vec`), "boom"'s `Drop` panics (caught,
/// stashed), then "Rows" succeeds.
#[derive(Decode, Debug, PartialEq)]
#[serde(untagged)]
enum UntaggedPanic {
    Pairs(Vec<(PanicDrop, PanicDrop)>),
    Rows(Vec<Vec<PanicDrop>>),
}

/// Found by this review: a `Drop` that panicked while a failed untagged variant's
/// elements were discarded was stashed, the search went on, a later variant
/// matched, and the interpreter returned `Ok` (the panic silently lost) while the
/// JIT resumed it. Now a pending panic ends the search and every backend's
/// success path resumes one (`decoded` in the facade).
#[test]
fn untagged_retry_after_a_panicking_discard_resumes_the_panic() {
    let docs = [
        r#"[["boom","a"],["b"]]"#.to_owned(),
        // Across chunks: 700 pairs (48 bytes each) before the short one.
        format!(
            "[{},[\"z\"]]",
            (0..700)
                .map(|i| if i == 650 {
                    r#"["boom","a"]"#.to_owned()
                } else {
                    r#"["x","y"]"#.to_owned()
                })
                .collect::<Vec<_>>()
                .join(",")
        ),
    ];
    let before = counted::live();
    let mut outcomes = Vec::new();
    for doc in &docs {
        for c in configs() {
            counted::arm_panic_drop(true);
            let r = catch_unwind(AssertUnwindSafe(|| {
                decoder::<UntaggedPanic>(c).decode_str(doc).map(|v| {
                    counted::arm_panic_drop(false);
                    drop(v);
                })
            }));
            counted::arm_panic_drop(false);
            assert_eq!(counted::live(), before, "{c:?}");
            outcomes.push((c, r.is_err()));
        }
    }
    let panicked: Vec<_> = outcomes
        .iter()
        .filter(|(_, p)| *p)
        .map(|(c, _)| *c)
        .collect();
    let quiet: Vec<_> = outcomes
        .iter()
        .filter(|(_, p)| !*p)
        .map(|(c, _)| *c)
        .collect();
    assert!(
        quiet.is_empty(),
        "the Drop's panic reaches the caller with {panicked:?} but is lost with {quiet:?}"
    );
    counted::arm_panic_drop(true);
}

/// For comparison (passes): a map's repeated key drops the replaced value, whose
/// `Drop` panics; every backend agrees.
#[test]
fn replaced_map_value_panic_backends_agree() {
    let doc = r#"[{"a":"boom","a":"x"}]"#;
    let mut outcomes = Vec::new();
    for c in configs() {
        counted::arm_panic_drop(true);
        let r = catch_unwind(AssertUnwindSafe(|| {
            decoder::<Vec<BTreeMap<String, PanicDrop>>>(c)
                .decode_str(doc)
                .map(drop)
        }));
        counted::arm_panic_drop(false);
        outcomes.push((c.backend.name(), c.tiering, r.is_err()));
    }
    counted::arm_panic_drop(true);
    let first = outcomes[0].2;
    assert!(
        outcomes.iter().all(|o| o.2 == first),
        "backends disagree on whether the Drop's panic is resumed: {outcomes:?}"
    );
}

// A zero-sized element with a `Drop`: nothing is pushed, yet each decoded
// element is dropped exactly once, on success and on failure (`discard_vec`'s
// ZST branch).
thread_local! {
    static ZDROPS: Cell<usize> = const { Cell::new(0) };
}

thread_local! {
    static ZMADE: Cell<usize> = const { Cell::new(0) };
}

/// Made through `from = "()"`, so that its creations are counted too.
#[derive(Decode, Debug, PartialEq)]
#[serde(from = "()")]
struct ZDrop;

impl From<()> for ZDrop {
    fn from((): ()) -> ZDrop {
        ZMADE.set(ZMADE.get() + 1);
        ZDrop
    }
}

impl Drop for ZDrop {
    fn drop(&mut self) {
        ZDROPS.set(ZDROPS.get() + 1);
    }
}

#[test]
fn zero_sized_elements_with_drop_are_dropped_once() {
    let nulls = |n: usize| (0..n).map(|_| "null").collect::<Vec<_>>().join(",");
    for c in configs() {
        let d = decoder::<Vec<ZDrop>>(c);
        for n in [0usize, 1, 5, 70_000] {
            ZDROPS.set(0);
            ZMADE.set(0);
            let v = d.decode_str(&format!("[{}]", nulls(n))).unwrap();
            assert_eq!(v.len(), n);
            assert_eq!(ZMADE.get(), n, "{c:?}: made");
            assert_eq!(ZDROPS.get(), 0, "{c:?}: dropped while decoding");
            drop(v);
            assert_eq!(ZDROPS.get(), n, "{c:?}: {n} decoded");
            // Failing after n elements: each made one dropped once (the JIT's
            // failure is followed by the interpreter's re-run, which makes them
            // again).
            ZDROPS.set(0);
            ZMADE.set(0);
            let sep = if n == 0 { "" } else { "," };
            assert!(d.decode_str(&format!("[{}{sep}1]", nulls(n))).is_err());
            assert_eq!(ZDROPS.get(), ZMADE.get(), "{c:?}: failing after {n}");
            assert!(ZMADE.get() >= n, "{c:?}");
        }
        // Nested: rows of ZSTs under a failing outer vector.
        ZDROPS.set(0);
        ZMADE.set(0);
        let doc = format!("[[{}],[{}],[null,7]]", nulls(3), nulls(4));
        assert!(decoder::<Vec<Vec<ZDrop>>>(c).decode_str(&doc).is_err());
        assert_eq!(ZDROPS.get(), ZMADE.get(), "{c:?}: nested");
        assert!(ZMADE.get() >= 8, "{c:?}");
    }
}

/// 16-byte-aligned elements (`i128`, `u128`: interpreter-only kinds, so each
/// element goes through `interpret_value` onto the JIT's stack) across chunks,
/// under parents of odd sizes.
#[test]
fn sixteen_byte_aligned_elements_across_chunks() {
    let big = |i: usize| format!("{}{}", i + 1, "0".repeat(20));
    for n in [1023usize, 1024, 1025, 3071, 3073] {
        check_rounds::<Vec<i128>>(
            &join((0..n).map(|i| if i % 2 == 0 { big(i) } else { format!("-{i}") })),
            1,
        );
    }
    let doc =
        join((0..300).map(|i| format!("[{},{}]", i % 256, join((0..(i * 13) % 200).map(big)))));
    check_rounds::<Vec<(u8, Vec<u128>)>>(&doc, 1);
    let doc = join((0..2000).map(|i| format!("[{},{}]", i % 256, big(i))));
    check_rounds::<Vec<(u8, u128)>>(&doc, 1);
    check_rounds::<Vec<Option<i128>>>(
        &join((0..2500).map(|i| if i % 3 == 0 { "null".into() } else { big(i) })),
        1,
    );
}

impl Exact for i128 {
    fn exact(&self) -> bool {
        true
    }
}
impl Exact for u128 {
    fn exact(&self) -> bool {
        true
    }
}

/// A string key whose `Hash` panics for "boom": user code inside a map insert,
/// with vectors' elements on the stack around it.
#[derive(Debug, PartialEq, Eq)]
struct PanicKey(String);

impl std::hash::Hash for PanicKey {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        if self.0 == "boom" {
            panic!("hash of boom");
        }
        self.0.hash(h);
    }
}

string_kind!(PanicKey, write_panic_key, |s: &str| PanicKey(s.to_owned()));

#[test]
fn a_panicking_hash_inside_vector_elements() {
    let before = counted::live();
    let row = |i: usize, key: &str| {
        format!(
            r#"{{"k{i}":{},"{key}":["a"]}}"#,
            join((0..i % 40).map(|k| format!("\"{k}\"")))
        )
    };
    for c in configs() {
        let d = decoder::<Vec<Vec<HashMap<PanicKey, Vec<Counted>>>>>(c);
        for at in [0usize, 400, 1199] {
            let doc = join((0..3).map(|r| {
                join((0..400).map(|i| {
                    let n = r * 400 + i;
                    row(n, if n == at { "boom" } else { "ok" })
                }))
            }));
            expect_panic(c, "hash", "hash of boom", || {
                let _ = d.decode_str(&doc);
            });
            assert_eq!(counted::live(), before, "{c:?} at {at}");
            let fine = doc.replace("\"boom\"", "\"fine\"");
            let v = d.decode_str(&fine).unwrap();
            assert_eq!(v.iter().map(Vec::len).sum::<usize>(), 1200);
            drop(v);
            assert_eq!(counted::live(), before, "{c:?}");
        }
    }
}

/// Vectors of large elements mixed with small ones in one element, so that the
/// chunks above the current one are replaced by larger ones (`grow`'s "replace
/// the small one") while elements below are live; every pad is compared.
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Mixed {
    a: Vec<E100K>,
    b: Vec<u8>,
    c: Vec<E16392>,
    #[serde(skip)]
    pad: Pad<5000>,
    d: Vec<Vec<Fat>>,
}

impl Exact for Mixed {
    fn exact(&self) -> bool {
        self.a.exact() && self.b.exact() && self.c.exact() && self.d.exact()
    }
}

#[test]
fn chunks_replaced_under_live_elements() {
    // serde_json, the oracle, builds each `E100K` (100 KB) of `Mixed::a` by
    // value, several frames deep.
    common::on_a_large_stack(chunks_replaced_under_live_elements_on_a_large_stack);
}

fn chunks_replaced_under_live_elements_on_a_large_stack() {
    let ids = |n: usize| join((0..n).map(|i| format!(r#"{{"id":{i}}}"#)));
    let fat = |n: usize| join((0..n).map(|i| format!(r#"{{"s":"f{i}","v":["q"]}}"#)));
    let mut rng = Rng(4242);
    let doc = join((0..14).map(|i| {
        format!(
            r#"{{"a":{},"b":{},"c":{},"d":[{},{}]}}"#,
            ids(rng.below(4) as usize),
            join((0..rng.below(40_000)).map(|k| (k % 256).to_string())),
            ids(rng.below(3) as usize),
            fat(rng.below(30) as usize),
            fat(if i % 5 == 0 { 120 } else { 2 })
        )
    }));
    // Warm the cache with small chunks first, then the mixed document, then
    // small again: the cached list is reused with replaced chunks.
    for _ in 0..2 {
        check_rounds::<Vec<Vec<u8>>>(
            &join((0..3).map(|_| join((0..5000).map(|k| (k % 9).to_string())))),
            1,
        );
        check_rounds::<Vec<Mixed>>(&doc, 1);
    }
}

/// A panic hook that decodes vectors (it runs inside `discard`, between two
/// element drops, with the outer stack leased): in a child process, since a
/// hook is process-wide.
#[test]
fn a_panic_hook_that_decodes_during_discard() {
    run_isolated("child_panic_hook_decodes");
}

#[test]
#[ignore = "run by a_panic_hook_that_decodes_during_discard in a child process"]
fn child_panic_hook_decodes() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static HOOKED: AtomicUsize = AtomicUsize::new(0);
    static WRONG: AtomicUsize = AtomicUsize::new(0);
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        HOOKED.fetch_add(1, Ordering::SeqCst);
        let doc = counted_doc(11);
        for b in common::backends() {
            match Decoder::<Vec<Vec<Counted>>>::with_backend(b).decode_str(&doc) {
                Ok(v) if v.iter().map(Vec::len).sum::<usize>() > 0 => {}
                _ => {
                    WRONG.fetch_add(1, Ordering::SeqCst);
                }
            }
        }
    }));
    let before = counted::live();
    for c in configs() {
        let mut rows: Vec<String> = (0..40)
            .map(|r| {
                join((0..r * 20).map(|i| {
                    if i == 7 {
                        "\"boom\"".to_owned()
                    } else {
                        "\"x\"".to_owned()
                    }
                }))
            })
            .collect();
        rows.push(r#"["a",1]"#.to_owned());
        let doc = join(rows);
        counted::arm_panic_drop(true);
        let r = catch_unwind(AssertUnwindSafe(|| {
            decoder::<Vec<Vec<PanicDrop>>>(c).decode_str(&doc).map(drop)
        }));
        counted::arm_panic_drop(false);
        assert!(r.is_err(), "{c:?}: {r:?}");
        assert_eq!(counted::live(), before, "{c:?}");
    }
    let _ = std::panic::take_hook();
    assert!(HOOKED.load(Ordering::SeqCst) > 0);
    assert_eq!(WRONG.load(Ordering::SeqCst), 0);
}

/// A thread whose only decodes run in a thread-local destructor (the element
/// cache is first touched while the thread's destructors run): no leak (see
/// valgrind), no abort.
#[test]
fn first_decode_of_a_thread_in_a_tls_destructor() {
    run_isolated("child_first_decode_in_tls_destructor");
}

#[test]
#[ignore = "run by first_decode_of_a_thread_in_a_tls_destructor in a child process"]
fn child_first_decode_in_tls_destructor() {
    use std::sync::Mutex;
    static OUT: Mutex<Vec<usize>> = Mutex::new(Vec::new());
    // Compiled on the main thread first.
    for c in configs() {
        drop(decoder::<Vec<Vec<u64>>>(c).decode_str("[[1]]").unwrap());
    }
    struct Late;
    impl Drop for Late {
        fn drop(&mut self) {
            let doc = join((0..4).map(|i| join((0..i * 3000).map(|k| (k % 10).to_string()))));
            for c in configs() {
                let n = decoder::<Vec<Vec<u64>>>(c)
                    .decode_str(&doc)
                    .map_or(usize::MAX, |v| v.iter().map(Vec::len).sum());
                OUT.lock().unwrap().push(n);
            }
        }
    }
    thread_local! {
        static LATE: Late = const { Late };
    }
    std::thread::spawn(|| LATE.with(|_| {})).join().unwrap();
    assert_eq!(*OUT.lock().unwrap(), vec![18_000; configs().len()]);
}

/// `#[serde(flatten)]` structs holding vectors, as elements of a vector.
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct FlatInner {
    w: Vec<Counted>,
    x: Vec<Vec<u8>>,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct FlatOuter {
    #[serde(flatten)]
    inner: FlatInner,
    v: Vec<Counted>,
}

impl Exact for FlatOuter {
    fn exact(&self) -> bool {
        self.inner.w.exact() && self.inner.x.exact() && self.v.exact()
    }
}

#[test]
fn flattened_vectors_inside_vectors() {
    let strs = |n: usize| join((0..n).map(|i| format!("\"{}\"", i % 10)));
    let doc = join((0..400).map(|i| {
        format!(
            r#"{{"v":{},"x":[{},[]],"w":{}}}"#,
            strs(i % 7),
            join((0..(i * 11) % 300).map(|k| (k % 256).to_string())),
            strs(if i == 200 { 1000 } else { i % 3 })
        )
    }));
    check_rounds::<Vec<FlatOuter>>(&doc, 1);
    let bad = format!(
        "{},{{\"v\":[],\"x\":[[1]],\"w\":[1]}}]",
        &doc[..doc.len() - 1]
    );
    check_err::<Vec<FlatOuter>>(bad.as_bytes());
}

/// Arrays inside vectors are values, not vectors: `[Vec<T>; N]` elements whose
/// inner vectors push above the whole array element; and `Box<[T]>`,
/// `Rc<[T]>`-like conversions from vectors crossing chunks.
#[test]
fn arrays_of_vectors_as_elements() {
    let nums = |n: usize| join((0..n).map(|i| (i % 100).to_string()));
    let doc = join((0..500).map(|i| {
        format!(
            "[{},{},{}]",
            nums(i % 9),
            nums((i * 7) % 400),
            nums(if i == 250 { 9000 } else { 1 })
        )
    }));
    check_rounds::<Vec<[Vec<u16>; 3]>>(&doc, 1);
    let bad = doc.replacen("[0,1,2,3]", "[0,1,2,3,-1]", 1);
    check_err::<Vec<[Vec<u16>; 3]>>(bad.as_bytes());
    // An array one element too long, inside rows: the JIT hands the array to the
    // interpreter after dropping what it wrote.
    let doc = join((0..300).map(|i| {
        format!(
            "[{},{}]",
            join((0..3).map(|_| format!("[\"{}\"]", i % 10))),
            i
        )
    }));
    check_rounds::<Vec<([Vec<Counted>; 3], u32)>>(&doc, 1);
    let bad = doc.replacen(r#"["0"],["0"],["0"]"#, r#"["0"],["0"],["0"],["0"]"#, 1);
    check_err::<Vec<([Vec<Counted>; 3], u32)>>(bad.as_bytes());
}

/// On a small stack, the JIT's stack check fails before the interpreter's:
/// the decode goes to the interpreter (slow path, then the facade's re-run from
/// a shallower frame). Elements the JIT had decoded are discarded on the way:
/// with a "boom" among them, does a document the interpreter accepts panic?
#[test]
fn small_stack_retry_with_a_panicking_drop() {
    run_isolated("child_small_stack_retry_with_a_panicking_drop");
}

#[derive(Decode, Debug, PartialEq)]
struct PTree {
    s: PanicDrop,
    c: Vec<PTree>,
}

#[test]
#[ignore = "run by small_stack_retry_with_a_panicking_drop in a child process"]
fn child_small_stack_retry_with_a_panicking_drop() {
    fn doc(depth: usize) -> String {
        let mut s = String::from(r#"{"s":"root","c":[{"s":"boom","c":[]},"#);
        for d in 0..depth {
            s.push_str(&format!(r#"{{"s":"n{d}","c":["#));
        }
        for _ in 0..depth {
            s.push_str("]}");
        }
        s.push_str("]}");
        s
    }
    fn run(c: Config, depth: usize) -> Result<Result<(), ErrorKind>, ()> {
        let text = doc(depth);
        std::thread::Builder::new()
            .stack_size(512 << 10)
            .spawn(move || {
                counted::arm_panic_drop(true);
                let r = catch_unwind(AssertUnwindSafe(|| {
                    decoder::<PTree>(c)
                        .max_depth(jitson::MAX_DEPTH_LIMIT)
                        .decode_str(&text)
                        .map(|v| {
                            counted::arm_panic_drop(false);
                            drop(v);
                        })
                        .map_err(|e| e.kind())
                }));
                counted::arm_panic_drop(false);
                assert_eq!(counted::live(), 0);
                r.map_err(|_| ())
            })
            .unwrap()
            .join()
            .unwrap()
    }
    let interp = Config {
        backend: Backend::Interpreter,
        tiering: Tiering::Wait,
    };
    // The deepest tree the interpreter decodes on this stack.
    let (mut good, mut bad) = (1usize, 400usize);
    assert_eq!(run(interp, good), Ok(Ok(())));
    if run(interp, bad) == Ok(Ok(())) {
        eprintln!("the interpreter decodes {bad} levels; nothing to compare");
        return;
    }
    while bad - good > 1 {
        let mid = (good + bad) / 2;
        if run(interp, mid) == Ok(Ok(())) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    let mut report = Vec::new();
    for depth in [good, good.saturating_sub(5), good.saturating_sub(20)] {
        for c in configs() {
            let r = run(c, depth);
            report.push(format!("{c:?} depth {depth}: {r:?}"));
            assert!(
                r.is_ok(),
                "{c:?} depth {depth} panicked where the interpreter decodes the document\n{report:#?}"
            );
        }
    }
    eprintln!("{report:#?}");
}

/// The same case without a vector: an untagged struct variant fails after
/// writing a field whose `Drop` panics when the variant's fields are dropped;
/// the next variant would match. The cause was the untagged search (it went on,
/// and the interpreter's success path never resumed a stashed panic), not the
/// element stack.
#[derive(Decode, Debug, PartialEq)]
#[serde(untagged)]
enum UntaggedStructPanic {
    A { p: PanicDrop, n: u8 },
    B { p: PanicDrop, n: PanicDrop },
}

#[test]
fn untagged_retry_after_a_panicking_field_drop_resumes_the_panic() {
    let doc = r#"{"p":"boom","n":"x"}"#;
    let mut outcomes = Vec::new();
    for c in configs() {
        counted::arm_panic_drop(true);
        let r = catch_unwind(AssertUnwindSafe(|| {
            decoder::<UntaggedStructPanic>(c).decode_str(doc).map(|v| {
                counted::arm_panic_drop(false);
                drop(v);
            })
        }));
        counted::arm_panic_drop(false);
        outcomes.push((c, r.is_err()));
    }
    counted::arm_panic_drop(true);
    let quiet: Vec<_> = outcomes
        .iter()
        .filter(|(_, p)| !*p)
        .map(|(c, _)| *c)
        .collect();
    assert!(
        quiet.is_empty(),
        "the Drop's panic is lost with {quiet:?}: {outcomes:?}"
    );
}

/// Maps with text keys are built at their `}` from entries staged on the
/// element stack: maps whose entries cross the first chunks' boundaries, with
/// repeated keys (the later value wins, as serde's map impls decide), keys
/// with escapes (staged by a helper in the JIT), maps inside the values of
/// maps and vectors, and errors at the last entry (the staged entries are
/// dropped, nothing counted survives).
#[test]
fn maps_staged_on_the_element_stack_across_chunks() {
    let fat = |i: usize| {
        format!(
            r#"{{"s":"f{i}","v":{}}}"#,
            join((0..i % 5).map(|k| format!("\"{k}\"")))
        )
    };
    // Every seventh key repeats an earlier one; every eleventh is escaped.
    let key = |i: usize| match i {
        _ if i % 7 == 6 => format!("k{}", i / 2),
        _ if i % 11 == 10 => format!("k\\u00{:02x}{i}", b'_'),
        _ => format!("k{i}"),
    };
    let object = |n: usize, value: &dyn Fn(usize) -> String| {
        let members: Vec<String> = (0..n)
            .map(|i| format!("{:?}:{}", key(i), value(i)))
            .collect();
        format!("{{{}}}", members.join(","))
    };
    let entry = size_of::<String>() + size_of::<Fat>();
    for n in boundary_lengths(entry) {
        let doc = object(n, &fat).replace("\\\\u", "\\u");
        check_rounds::<BTreeMap<String, Fat>>(&doc, 1);
        check_rounds::<HashMap<String, Fat>>(&doc, 1);
        // The last value broken: every staged entry is dropped.
        if n > 0 {
            let broken = format!("{}}}", &doc[..doc.len() - 3]);
            check_err::<BTreeMap<String, Fat>>(broken.as_bytes());
            check_err::<HashMap<String, Fat>>(broken.as_bytes());
        }
    }
    // Maps in maps in vectors, each level staged above its parent's entry.
    let inner = |i: usize| object(i % 13, &|j| format!("[{}]", fat(i + j)));
    let doc = join((0..40).map(|r| object(r, &inner))).replace("\\\\u", "\\u");
    check::<Vec<BTreeMap<String, HashMap<String, Vec<Fat>>>>>(&doc);
    let cut = doc.rfind("\"s\"").expect("a string member");
    check_err::<Vec<BTreeMap<String, HashMap<String, Vec<Fat>>>>>(&doc.as_bytes()[..cut]);
}
