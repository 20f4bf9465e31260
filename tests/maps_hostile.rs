//! A hostile review of maps with text keys staged on the element stack and
//! filled at their `}` (commit fb73c83, and the fixes of its review): repeated keys and escaped spellings,
//! sizes around the bulk-build threshold and the element stack's chunks,
//! nesting in every shape, errors at every byte, invalid keys, counted keys and
//! values (leaks and double drops), panics and re-entrant decodes from user
//! code that runs while a map is built (a hasher, a key's `Hash`/`Ord`, a
//! replaced value's `Drop`). serde_json is the reference throughout.

mod common;

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::hash::{BuildHasher, DefaultHasher, Hash, Hasher};
use std::panic::{AssertUnwindSafe, catch_unwind};

use common::counted::{self, Counted, arm_panic_drop};
use common::pad::Pad;
use indexmap::IndexMap;
use jitson::{Category, Decode, Decoder};
use serde::Deserialize;
use serde::de::DeserializeOwned;

// ---------------------------------------------------------------------------
// Configurations.

use common::{configs, decoder};

fn excerpt(doc: &[u8]) -> String {
    let s = String::from_utf8_lossy(doc);
    if s.len() > 200 {
        format!("{}…{} ({} bytes)", &s[..100], &s[s.len() - 80..], s.len())
    } else {
        s.into_owned()
    }
}

/// The type's name without module paths.
fn short_type<T>() -> String {
    let full = std::any::type_name::<T>();
    let mut out = String::new();
    let mut word = String::new();
    for ch in full.chars() {
        if ch.is_alphanumeric() || ch == '_' || ch == ':' {
            word.push(ch);
        } else {
            out.push_str(word.rsplit("::").next().unwrap_or(""));
            word.clear();
            out.push(ch);
        }
    }
    out.push_str(word.rsplit("::").next().unwrap_or(""));
    out
}

fn category(e: &serde_json::Error) -> Category {
    match e.classify() {
        serde_json::error::Category::Syntax => Category::Syntax,
        serde_json::error::Category::Eof => Category::Eof,
        serde_json::error::Category::Data => Category::Data,
        serde_json::error::Category::Io => Category::Io,
    }
}

fn serde_words(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&suffix).unwrap_or(&text).to_owned()
}

/// A way to compare values (IndexMap's PartialEq ignores order).
trait Same {
    fn same(&self, other: &Self) -> bool;
}

macro_rules! same_by_eq {
    ($($t:ty),*) => { $(impl Same for $t { fn same(&self, o: &Self) -> bool { self == o } })* };
}
same_by_eq!(
    i32,
    u8,
    u32,
    String,
    Counted,
    serde_json::Value,
    Box<str>,
    (),
    bool
);

impl<T: Same> Same for Vec<T> {
    fn same(&self, o: &Self) -> bool {
        self.len() == o.len() && self.iter().zip(o).all(|(a, b)| a.same(b))
    }
}
impl<T: Same> Same for Option<T> {
    fn same(&self, o: &Self) -> bool {
        match (self, o) {
            (Some(a), Some(b)) => a.same(b),
            (None, None) => true,
            _ => false,
        }
    }
}
impl<T: Same + ?Sized> Same for Box<T> {
    fn same(&self, o: &Self) -> bool {
        (**self).same(o)
    }
}
impl<K: Eq + Hash, V: Same, S: BuildHasher> Same for HashMap<K, V, S> {
    fn same(&self, o: &Self) -> bool {
        self.len() == o.len()
            && self
                .iter()
                .all(|(k, v)| o.get(k).is_some_and(|w| v.same(w)))
    }
}
impl<K: Ord, V: Same> Same for BTreeMap<K, V> {
    fn same(&self, o: &Self) -> bool {
        self.len() == o.len() && self.iter().zip(o).all(|(a, b)| a.0 == b.0 && a.1.same(b.1))
    }
}
impl<K: Eq + Hash, V: Same, S: BuildHasher> Same for IndexMap<K, V, S> {
    fn same(&self, o: &Self) -> bool {
        self.len() == o.len() && self.iter().zip(o).all(|(a, b)| a.0 == b.0 && a.1.same(b.1))
    }
}

/// What went wrong, collected instead of panicking at the first problem:
/// problems are grouped by their text after the configuration's name.
#[derive(Default)]
struct Report {
    cases: usize,
    problems: Vec<(String, Vec<String>)>,
}

impl Report {
    fn add(&mut self, p: String) {
        let (who, what) = match p.split_once(": ") {
            Some((who, what)) if who.contains('/') => (who.to_owned(), what.to_owned()),
            _ => (String::new(), p),
        };
        if let Some(entry) = self.problems.iter_mut().find(|(w, _)| *w == what) {
            entry.1.push(who);
        } else if self.problems.len() < 2000 {
            self.problems.push((what, vec![who]));
        }
    }
    fn finish(self, what: &str) {
        eprintln!(
            "{what}: {} cases, {} problems",
            self.cases,
            self.problems.len()
        );
        if !self.problems.is_empty() {
            let shown: Vec<_> = self
                .problems
                .iter()
                .take(60)
                .map(|(p, who)| format!("[{}] {p}", who.join(" ")))
                .collect();
            panic!(
                "{what}: {} problems in {} cases:\n{}",
                self.problems.len(),
                self.cases,
                shown.join("\n")
            );
        }
    }
}

/// Whether positions are compared with serde_json's (syntax errors only,
/// ASCII documents; documented differences for data errors and the end of
/// input are not compared).
static STRICT_POSITIONS: bool = true;

/// Decodes `doc` with every configuration and both entry points; compares
/// with serde_json (`from_slice`) and records problems: a different value, an
/// Ok/Err disagreement, a different category or message, backends failing
/// differently, and counted values alive afterwards.
fn agree_into<T>(r: &mut Report, doc: &[u8])
where
    T: Decode + DeserializeOwned + Same + Debug,
{
    r.cases += 1;
    let before = counted::live();
    let theirs = serde_json::from_slice::<T>(doc);
    let mut first: Option<(String, common::ErrorShape, String)> = None;
    for c in configs() {
        let d = decoder::<T>(c);
        let mut entries = vec!["slice"];
        if std::str::from_utf8(doc).is_ok() {
            entries.push("str");
        }
        for entry in entries {
            let ours = if entry == "slice" {
                d.decode_slice(doc)
            } else {
                d.decode_str(std::str::from_utf8(doc).unwrap())
            };
            let who = format!("{:?}/{:?}/{entry}", c.backend, c.tiering);
            let tn = short_type::<T>();
            match (&ours, &theirs) {
                (Ok(a), Ok(b)) => {
                    if !a.same(b) {
                        r.add(format!(
                            "{who}: {tn}: value differs for {}:\n  jitson {a:?}\n  serde  {b:?}",
                            excerpt(doc)
                        ));
                    }
                }
                (Err(a), Err(b)) => {
                    let theirs_words = serde_words(b);
                    let ours_text = a.to_string();
                    if a.classify() != category(b) {
                        r.add(format!(
                            "{who}: {tn}: category differs for {}:\n  jitson {ours_text}\n  serde  {b}",
                            excerpt(doc)
                        ));
                    } else if !ours_text.starts_with(&format!("{theirs_words} at $")) {
                        r.add(format!(
                            "{who}: {tn}: message differs for {}:\n  jitson {ours_text}\n  serde  {b}",
                            excerpt(doc)
                        ));
                    } else if STRICT_POSITIONS
                        && a.classify() == Category::Syntax
                        && doc.is_ascii()
                        // Documented: a raw newline that stops decoding is
                        // at its own line, serde_json's is the next line's 0.
                        && b.column() != 0
                        // Documented: at the end of input jitson's column is
                        // one past the last character.
                        && a.offset() != doc.len()
                        && (a.line(), a.column()) != (b.line(), b.column())
                    {
                        r.add(format!(
                            "{who}: {tn}: position differs for {}:\n  jitson {ours_text}\n  serde  {b}",
                            excerpt(doc)
                        ));
                    }
                    let s = common::shape(a);
                    match &first {
                        None => first = Some((who.clone(), s, ours_text)),
                        Some((fw, fs, ft)) => {
                            if fs != &s {
                                r.add(format!(
                                    "backends disagree, {}, on {}:\n  {fw}: {ft} {fs:?}\n  {who}: {ours_text} {s:?}",
                                    tn,
                                    excerpt(doc)
                                ));
                            }
                        }
                    }
                }
                (Ok(a), Err(b)) => r.add(format!(
                    "{who}: {tn}: accepted {} as {a:?}; serde_json: {b}",
                    excerpt(doc)
                )),
                (Err(a), Ok(b)) => r.add(format!(
                    "{who}: {tn}: refused {} ({a}); serde_json gave {b:?}",
                    excerpt(doc)
                )),
            }
            drop(ours);
            let now = counted::live();
            let serde_alive = match &theirs {
                Ok(_) => 0,
                Err(_) => 0,
            };
            let _ = serde_alive;
            if now != before + live_in(&theirs) {
                r.add(format!(
                    "{who}: {tn}: counted values alive changed by {} on {}",
                    now - before - live_in(&theirs),
                    excerpt(doc)
                ));
            }
        }
    }
    drop(theirs);
    if counted::live() != before {
        r.add(format!(
            "serde side leaves {} counted alive on {}",
            counted::live() - before,
            excerpt(doc)
        ));
    }
}

thread_local! {
    /// Counted values serde_json's result holds (measured once per document).
    static SERDE_LIVE: Cell<isize> = const { Cell::new(0) };
}

fn live_in<T>(_theirs: &Result<T, serde_json::Error>) -> isize {
    SERDE_LIVE.get()
}

/// As [`agree_into`], measuring first how many counted values serde_json's
/// result holds.
fn agree_counted<T>(r: &mut Report, doc: &[u8])
where
    T: Decode + DeserializeOwned + Same + Debug,
{
    let before = counted::live();
    let probe = serde_json::from_slice::<T>(doc);
    let held = counted::live() - before;
    drop(probe);
    SERDE_LIVE.set(held);
    agree_into::<T>(r, doc);
    SERDE_LIVE.set(0);
}

// ---------------------------------------------------------------------------
// A tiny deterministic generator.

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

/// `key` spelled in JSON, possibly with escapes for some characters.
fn spell(rng: &mut Rng, key: &str) -> String {
    let mut out = String::from("\"");
    for ch in key.chars() {
        let roll = rng.below(10);
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if roll == 0 && (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if roll == 1 && (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c if roll == 2 && (c as u32) >= 0x10000 => {
                let v = c as u32 - 0x10000;
                out.push_str(&format!(
                    "\\u{:04x}\\u{:04x}",
                    0xD800 + (v >> 10),
                    0xDC00 + (v & 0x3FF)
                ));
            }
            '/' if roll < 5 => out.push_str("\\/"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

const ALPHABET: &[&str] = &[
    "a",
    "b",
    "c",
    "d",
    "e",
    "A",
    "aa",
    "ab",
    "",
    "k0",
    "k1",
    "k10",
    "k2",
    "é",
    "😀",
    "\"",
    "\\",
    "\n",
    "/",
    "a b",
    "zz",
    "0",
    "key_with_a_long_name_over_sixteen_bytes",
    "ß",
    "\u{7f}",
    "\u{1}",
];

fn random_key(rng: &mut Rng, pool: usize) -> String {
    if rng.chance(1, 4) {
        ALPHABET[rng.below(ALPHABET.len() as u64) as usize].to_owned()
    } else {
        format!("k{}", rng.below(pool as u64))
    }
}

fn ws(rng: &mut Rng) -> &'static str {
    match rng.below(12) {
        0 => " ",
        1 => "\n",
        2 => " \t\r\n ",
        _ => "",
    }
}

fn object(rng: &mut Rng, members: &[(String, String)]) -> String {
    let mut out = String::from("{");
    out.push_str(ws(rng));
    for (i, (k, v)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
            out.push_str(ws(rng));
        }
        out.push_str(&spell(rng, k));
        out.push_str(ws(rng));
        out.push(':');
        out.push_str(ws(rng));
        out.push_str(v);
        out.push_str(ws(rng));
    }
    out.push('}');
    out
}

fn int_value(rng: &mut Rng) -> String {
    (rng.below(2000) as i64 - 1000).to_string()
}

// ---------------------------------------------------------------------------
// 1. Repeated keys, orders, sizes.

fn sizes() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=40).collect();
    v.extend([63, 64, 65, 100, 127, 128, 129, 199, 200]);
    v
}

#[test]
fn repeated_keys_orders_and_sizes_agree_with_serde_json() {
    let mut r = Report::default();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for &n in &sizes() {
        for variant in 0..6 {
            let pool = match variant {
                0 => n.max(1) * 4,   // few repeats
                1 => (n / 3).max(1), // many repeats
                2 => 1,              // one key repeated
                _ => n.max(1) * 2,
            };
            let mut members: Vec<(String, String)> = (0..n)
                .map(|_| (random_key(&mut rng, pool), int_value(&mut rng)))
                .collect();
            match variant {
                3 => members.sort(),
                4 => {
                    members.sort();
                    members.reverse()
                }
                5 => {
                    // Sorted by key, then each key repeated right after itself.
                    members.sort();
                    let extra: Vec<_> = members
                        .iter()
                        .map(|(k, _)| (k.clone(), int_value(&mut rng)))
                        .collect();
                    members = members
                        .into_iter()
                        .zip(extra)
                        .flat_map(|(a, b)| [a, b])
                        .collect();
                }
                _ => {}
            }
            let doc = object(&mut rng, &members);
            let d = doc.as_bytes();
            agree_into::<HashMap<String, i32>>(&mut r, d);
            agree_into::<BTreeMap<String, i32>>(&mut r, d);
            agree_into::<IndexMap<String, i32>>(&mut r, d);
            agree_into::<serde_json::Value>(&mut r, d);
            agree_into::<HashMap<Box<str>, i32>>(&mut r, d);
            agree_into::<BTreeMap<Box<str>, i32>>(&mut r, d);
            agree_into::<BTreeMap<String, u8>>(&mut r, d);
            agree_into::<HashMap<String, ()>>(&mut r, d);
            agree_into::<Option<BTreeMap<String, i32>>>(&mut r, d);
            agree_into::<Box<BTreeMap<String, i32>>>(&mut r, d);
            agree_into::<IndexMap<Box<str>, i32>>(&mut r, d);
        }
    }
    r.finish("repeated keys");
}

/// IndexMap: a repeated key keeps its first position (checked by Same, which
/// compares in order), the later value wins.
#[test]
fn indexmap_keeps_first_position() {
    let mut r = Report::default();
    for doc in [
        r#"{"b":1,"a":2,"b":3}"#,
        r#"{"b":1,"a":2,"\u0062":3,"c":4,"a":5}"#,
        r#"{"z":1,"y":2,"x":3,"w":4,"v":5,"z":6,"w":7}"#,
        r#"{"a":1,"a":2,"a":3,"a":4,"a":5,"b":6}"#,
    ] {
        agree_into::<IndexMap<String, i32>>(&mut r, doc.as_bytes());
        agree_into::<Vec<IndexMap<String, i32>>>(&mut r, format!("[{doc},{doc}]").as_bytes());
        let v: IndexMap<String, i32> = Decoder::with_backend(*common::backends().last().unwrap())
            .decode_str(doc)
            .unwrap();
        let s: IndexMap<String, i32> = serde_json::from_str(doc).unwrap();
        assert_eq!(v.iter().collect::<Vec<_>>(), s.iter().collect::<Vec<_>>());
    }
    r.finish("indexmap");
}

// ---------------------------------------------------------------------------
// 2. User code that runs while a map is built: counted keys whose `Hash`,
//    `Eq` and `Ord` can panic or decode, hashers whose `Default` /
//    `build_hasher` can panic or decode, values whose `Drop` can panic or
//    decode.

thread_local! {
    /// Calls left before a key's `Hash` panics (-1: never).
    static HASH_BUDGET: Cell<isize> = const { Cell::new(-1) };
    /// Calls left before a key's `Ord::cmp` / `PartialEq::eq` panics (-1: never).
    static CMP_BUDGET: Cell<isize> = const { Cell::new(-1) };
    /// Calls left before `build_hasher` panics (-1: never).
    static BUILD_BUDGET: Cell<isize> = const { Cell::new(-1) };
    /// Whether `Hash`/`cmp`/`build_hasher`/`Default`/`Drop`/`write` decode
    /// maps of their own.
    static REENTER: Cell<bool> = const { Cell::new(false) };
    /// Set while a nested decode runs (no nesting of nested decodes).
    static INSIDE: Cell<bool> = const { Cell::new(false) };
    /// Nested decodes run.
    static NESTED_RUNS: Cell<usize> = const { Cell::new(0) };
    /// Whether the next nested decode takes the large document: set with
    /// `REENTER` by the test's set-up, so each outer decode's first one does.
    static LARGE_NEXT: Cell<bool> = const { Cell::new(false) };
    /// Nested decodes that gave a wrong result.
    static NESTED_WRONG: Cell<usize> = const { Cell::new(0) };
    /// Whether `HasherDefault::default` panics.
    static DEFAULT_PANICS: Cell<bool> = const { Cell::new(false) };
}

fn tick(budget: &'static std::thread::LocalKey<Cell<isize>>, what: &str) {
    let b = budget.get();
    if b == 0 {
        budget.set(-1);
        if !std::thread::panicking() {
            panic!("{what}");
        }
    } else if b > 0 {
        budget.set(b - 1);
    }
}

fn reset_hooks() {
    HASH_BUDGET.set(-1);
    CMP_BUDGET.set(-1);
    BUILD_BUDGET.set(-1);
    REENTER.set(false);
    DEFAULT_PANICS.set(false);
    arm_panic_drop(true);
}

/// A document of nested maps with `n` outer members: 300 span several chunks
/// of the element stack, 12 stay in its first.
fn nested_doc_of(n: usize) -> String {
    let inner = |i: usize| {
        let members: Vec<String> = (0..(i % 9) + 1)
            .map(|j| format!(r#""n{j}":[{},{},"{}"]"#, i, j, "x".repeat(j * 10)))
            .collect();
        format!("{{{}}}", members.join(","))
    };
    let members: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#""m{}{}":{}"#,
                i % 97,
                if i % 5 == 0 { "\\u0041" } else { "" },
                inner(i)
            )
        })
        .collect();
    format!("{{{}}}", members.join(","))
}

/// The nested decodes' two documents, made once per thread: the large one
/// spans several chunks of the element stack; the small one keeps the test's
/// thousands of nested decodes quick.
fn nested_docs() -> [&'static str; 2] {
    thread_local! {
        static DOCS: [&'static str; 2] =
            [300, 12].map(|n| &*Box::leak(nested_doc_of(n).into_boxed_str()));
    }
    DOCS.with(|d| *d)
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum Leaf {
    N(u64),
    S(String),
}

type Nested = HashMap<String, BTreeMap<String, Vec<Leaf>>>;

/// A decode run from user code in the middle of a decode: a map of maps
/// spanning chunks, with a backend chosen in turn; its result is checked.
fn nested_decode() {
    if !REENTER.get() || INSIDE.get() {
        return;
    }
    INSIDE.set(true);
    let n = NESTED_RUNS.get();
    NESTED_RUNS.set(n + 1);
    let backends = common::backends();
    let backend = backends[n % backends.len()];
    // The large document for each outer decode's first nested decode, and
    // every seventh time (7 is coprime with the two or three backends' count,
    // so it meets every backend); the small one otherwise.
    let large = LARGE_NEXT.replace(false) || n.is_multiple_of(7);
    let which = usize::from(!large);
    let doc = nested_docs()[which];
    let ours = Decoder::<Nested>::with_backend(backend).decode_str(doc);
    // serde_json's values are the same every time: decoded once per thread
    // (this test runs thousands of nested decodes).
    thread_local! {
        static THEIRS: [Nested; 2] =
            nested_docs().map(|doc| serde_json::from_str(doc).unwrap());
    }
    if THEIRS.with(|theirs| ours.as_ref().ok() != Some(&theirs[which])) {
        NESTED_WRONG.set(NESTED_WRONG.get() + 1);
    }
    // And one that fails half-way.
    let cut = &doc[..doc.len() / 2];
    if Decoder::<Nested>::with_backend(backend)
        .decode_str(cut)
        .is_ok()
    {
        NESTED_WRONG.set(NESTED_WRONG.get() + 1);
    }
    INSIDE.set(false);
}

/// A counted key of a string kind whose comparisons and hashing run hooks.
#[derive(Debug)]
struct CKey(Counted);

impl CKey {
    fn text(&self) -> &str {
        &self.0.0
    }
}

impl PartialEq for CKey {
    fn eq(&self, o: &Self) -> bool {
        tick(&CMP_BUDGET, "key eq");
        nested_decode();
        self.text() == o.text()
    }
}
impl Eq for CKey {}
impl PartialOrd for CKey {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for CKey {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        tick(&CMP_BUDGET, "key cmp");
        nested_decode();
        self.text().cmp(o.text())
    }
}
impl Hash for CKey {
    fn hash<H: Hasher>(&self, h: &mut H) {
        tick(&HASH_BUDGET, "key hash");
        nested_decode();
        self.text().hash(h)
    }
}

/// # Safety
/// `dst` is valid for a `CKey` write; the bytes are UTF-8.
unsafe extern "C" fn write_ckey(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        let s = std::str::from_utf8_unchecked(std::slice::from_raw_parts(ptr, len));
        dst.cast::<CKey>().write(CKey(Counted::new(s)));
    }
}

// SAFETY: `write_ckey` writes a whole CKey; size, alignment and drop from the type.
unsafe impl jitson::HasLayout for CKey {
    type Static = Self;
    const LAYOUT: &'static jitson::__private::TypeLayout = &jitson::__private::TypeLayout::of::<CKey>(
        "a string",
        jitson::__private::Kind::String(&jitson::__private::StringLayout {
            write: write_ckey,
            read: None,
        }),
    );
}

// SAFETY: CKey owns its data.
unsafe impl<'de> jitson::DecodeBorrowed<'de> for CKey {}

impl<'de> Deserialize<'de> for CKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<CKey, D::Error> {
        let s = String::deserialize(d)?;
        Ok(CKey(Counted::new(&s)))
    }
}

/// A hasher whose `Default` may panic or decode, and whose `build_hasher`
/// may panic or decode.
#[derive(Clone)]
struct HookHasher;

impl Default for HookHasher {
    fn default() -> Self {
        if DEFAULT_PANICS.get() {
            panic!("hasher default");
        }
        nested_decode();
        HookHasher
    }
}

impl BuildHasher for HookHasher {
    type Hasher = DefaultHasher;
    fn build_hasher(&self) -> DefaultHasher {
        tick(&BUILD_BUDGET, "build_hasher");
        nested_decode();
        DefaultHasher::new()
    }
}

/// A counted value whose `Drop` decodes (when hooks say so) and panics for
/// "boom" (while armed, not while unwinding).
#[derive(Debug, PartialEq)]
struct DropHook(Counted);

impl Drop for DropHook {
    fn drop(&mut self) {
        nested_decode();
        if self.0.0 == "boom" && counted::panic_drop_armed() && !std::thread::panicking() {
            panic!("drop of boom");
        }
    }
}

/// # Safety
/// `dst` is valid for a `DropHook` write; the bytes are UTF-8.
unsafe extern "C" fn write_drop_hook(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        let s = std::str::from_utf8_unchecked(std::slice::from_raw_parts(ptr, len));
        dst.cast::<DropHook>().write(DropHook(Counted::new(s)));
    }
}

// SAFETY: writes a whole DropHook; size, alignment and drop from the type.
unsafe impl jitson::HasLayout for DropHook {
    type Static = Self;
    const LAYOUT: &'static jitson::__private::TypeLayout =
        &jitson::__private::TypeLayout::of::<DropHook>(
            "a string",
            jitson::__private::Kind::String(&jitson::__private::StringLayout {
                write: write_drop_hook,
                read: None,
            }),
        );
}

// SAFETY: owns its data.
unsafe impl<'de> jitson::DecodeBorrowed<'de> for DropHook {}

impl<'de> Deserialize<'de> for DropHook {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<DropHook, D::Error> {
        let s = String::deserialize(d)?;
        Ok(DropHook(Counted::new(&s)))
    }
}

impl Same for CKey {
    fn same(&self, o: &Self) -> bool {
        self.text() == o.text()
    }
}
impl Same for DropHook {
    fn same(&self, o: &Self) -> bool {
        self.0 == o.0
    }
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Fat<const N: usize> {
    s: DropHook,
    v: Vec<Counted>,
    #[serde(skip)]
    #[jitson(skip)]
    pad: Pad<N>,
}

impl<const N: usize> Same for Fat<N> {
    fn same(&self, o: &Self) -> bool {
        self == o
    }
}

#[derive(Debug)]
enum Outcome<T> {
    Value(T),
    Error(Category, String),
    Panic(String),
}

fn message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "<non-string payload>".into())
}

/// Drops `v` with `PanicDrop`s and `DropHook`s disarmed.
fn quiet_drop<T>(v: T) {
    let armed = counted::panic_drop_armed();
    arm_panic_drop(false);
    let reenter = REENTER.get();
    REENTER.set(false);
    drop(v);
    arm_panic_drop(armed);
    REENTER.set(reenter);
}

/// Nothing is left pending after a decode that returned or unwound.
fn assert_nothing_pending(r: &mut Report, who: &str) {
    for backend in common::backends() {
        let d = Decoder::<u8>::with_backend(backend);
        if d.decode_str("1").ok() != Some(1) {
            r.add(format!("{who}: a later decode of 1 failed"));
        }
        match catch_unwind(|| d.decode_str("300")) {
            Ok(Err(e)) if e.kind() == jitson::ErrorKind::NumberOutOfRange => {}
            Ok(other) => r.add(format!("{who}: later decode of 300 gave {other:?}")),
            Err(p) => r.add(format!("{who}: later decode panicked: {}", message(&*p))),
        }
        let m = Decoder::<HashMap<String, Vec<u8>>>::with_backend(backend)
            .decode_str(r#"{"a":[1],"b":[2,3],"a":[4]}"#);
        match m {
            Ok(m) if m.len() == 2 && m["a"] == [4] && m["b"] == [2, 3] => {}
            other => r.add(format!("{who}: later map decode gave {other:?}")),
        }
    }
}

/// Runs `setup`, then serde_json and then every configuration of jitson (each
/// after `setup` again) on `doc`, each under `catch_unwind`; outcomes must
/// agree (same value, same error words, or a panic with the same message),
/// and no counted value may survive.
fn agree_with_panics<T>(r: &mut Report, doc: &[u8], setup: &dyn Fn())
where
    T: Decode + DeserializeOwned + Same + Debug,
{
    r.cases += 1;
    // serde_json's own leak on this document (std's HashMap stops dropping
    // at a panicking element and leaks the rest): jitson's leaks are only
    // reported where serde_json leaks nothing.
    let serde_leak = {
        let before = counted::live();
        setup();
        let run = catch_unwind(AssertUnwindSafe(|| serde_json::from_slice::<T>(doc)));
        reset_hooks();
        let _ = catch_unwind(AssertUnwindSafe(|| quiet_drop(run)));
        let leak = counted::live() - before;
        counted_rebase(-leak);
        leak
    };
    let before = counted::live();
    setup();
    let theirs = match catch_unwind(AssertUnwindSafe(|| serde_json::from_slice::<T>(doc))) {
        Ok(Ok(v)) => Outcome::Value(v),
        Ok(Err(e)) => Outcome::Error(category(&e), serde_words(&e)),
        Err(p) => Outcome::Panic(message(&*p)),
    };
    reset_hooks();
    let serde_held = counted::live() - before;
    let nested_before = NESTED_WRONG.get();
    for c in configs() {
        let d = decoder::<T>(c);
        let mut entries = vec![true];
        if std::str::from_utf8(doc).is_ok() {
            entries.push(false);
        }
        for slice in entries {
            let who = format!(
                "{:?}/{:?}/{}",
                c.backend,
                c.tiering,
                if slice { "slice" } else { "str" }
            );
            let tn = short_type::<T>();
            setup();
            let ours = catch_unwind(AssertUnwindSafe(|| {
                if slice {
                    d.decode_slice(doc)
                } else {
                    d.decode_str(std::str::from_utf8(doc).unwrap())
                }
            }));
            reset_hooks();
            let ours = match ours {
                Ok(Ok(v)) => Outcome::Value(v),
                Ok(Err(e)) => Outcome::Error(e.classify(), e.to_string()),
                Err(p) => Outcome::Panic(message(&*p)),
            };
            let agree = match (&ours, &theirs) {
                (Outcome::Value(a), Outcome::Value(b)) => a.same(b),
                (Outcome::Error(ca, wa), Outcome::Error(cb, wb)) => {
                    ca == cb && wa.starts_with(&format!("{wb} at $"))
                }
                (Outcome::Panic(a), Outcome::Panic(b)) => a == b,
                _ => false,
            };
            if !agree {
                r.add(format!(
                    "{who}: {tn} on {}:\n  jitson {:?}\n  serde  {:?}",
                    excerpt(doc),
                    ours,
                    theirs
                ));
            }
            quiet_drop(ours);
            let now = counted::live();
            if now != before + serde_held && serde_leak == 0 {
                r.add(format!(
                    "{who}: {tn}: {} counted values {} on {}",
                    (now - before - serde_held).abs(),
                    if now > before + serde_held {
                        "leaked"
                    } else {
                        "dropped twice"
                    },
                    excerpt(doc)
                ));
                // Re-base so one problem is not reported again by every config.
                counted_rebase(before + serde_held - now);
            } else if now != before + serde_held {
                counted_rebase(before + serde_held - now);
            }
            assert_nothing_pending(r, &who);
        }
    }
    if NESTED_WRONG.get() != nested_before {
        r.add(format!(
            "{} nested decodes gave wrong results on {}",
            NESTED_WRONG.get() - nested_before,
            excerpt(doc)
        ));
    }
    let _ = catch_unwind(AssertUnwindSafe(|| quiet_drop(theirs)));
    let now = counted::live();
    if now != before && serde_leak == 0 {
        r.add(format!(
            "serde side: {}: live changed by {} on {}",
            short_type::<T>(),
            now - before,
            excerpt(doc)
        ));
    }
    counted_rebase(before - now);
}

/// Moves the counted-live tally by `d` (after a reported leak or double drop).
fn counted_rebase(d: isize) {
    if d > 0 {
        for _ in 0..d {
            std::mem::forget(Counted::new("rebase"));
        }
    } else {
        for _ in 0..-d {
            drop(Counted(String::new()));
        }
    }
}

fn members_doc(members: &[(String, String)]) -> String {
    let parts: Vec<String> = members.iter().map(|(k, v)| format!("{k}:{v}")).collect();
    format!("{{{}}}", parts.join(","))
}

/// `n` members `"k<i>":"v<i>"`, with `extra` appended.
fn plain_members(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| (format!("\"k{i:03}\""), format!("\"v{i}\"")))
        .collect()
}

#[test]
fn a_replaced_value_whose_drop_panics() {
    let mut r = Report::default();
    let none = || {};
    for n in [0usize, 1, 2, 3, 4, 5, 8, 30, 200] {
        for at in [0, n / 2, n] {
            for dup_at in [at, n] {
                // "boom" at `at`, its key repeated at `dup_at` (after it).
                let mut m = plain_members(n);
                let key = if at < n {
                    m[at].0.clone()
                } else {
                    "\"zzz\"".to_owned()
                };
                let boom = (key.clone(), "\"boom\"".to_owned());
                if at < n {
                    m[at] = boom;
                } else {
                    m.push(boom);
                }
                let pos = (dup_at + 1).min(m.len());
                m.insert(pos, (key.clone(), "\"after\"".to_owned()));
                // And spelled with an escape.
                let escaped = key.replacen('k', "\\u006b", 1).replacen('z', "\\u007a", 1);
                let mut m2 = m.clone();
                m2[pos].0 = escaped;
                for doc in [members_doc(&m), members_doc(&m2)] {
                    let d = doc.as_bytes();
                    agree_with_panics::<HashMap<String, DropHook>>(&mut r, d, &none);
                    agree_with_panics::<BTreeMap<String, DropHook>>(&mut r, d, &none);
                    agree_with_panics::<IndexMap<String, DropHook>>(&mut r, d, &none);
                    agree_with_panics::<BTreeMap<CKey, DropHook>>(&mut r, d, &none);
                    agree_with_panics::<HashMap<CKey, DropHook>>(&mut r, d, &none);
                    let arr = format!("[{doc},{doc}]");
                    agree_with_panics::<Vec<BTreeMap<String, DropHook>>>(
                        &mut r,
                        arr.as_bytes(),
                        &none,
                    );
                    let outer = format!(r#"{{"x":{doc},"y":{{"q":"w"}}}}"#);
                    agree_with_panics::<HashMap<String, HashMap<String, DropHook>>>(
                        &mut r,
                        outer.as_bytes(),
                        &none,
                    );
                    agree_with_panics::<BTreeMap<String, BTreeMap<CKey, DropHook>>>(
                        &mut r,
                        outer.as_bytes(),
                        &none,
                    );
                }
            }
        }
    }
    r.finish("replaced value's drop panics");
}

#[test]
fn two_values_whose_drops_panic() {
    let mut r = Report::default();
    let none = || {};
    for doc in [
        r#"{"a":"boom","b":"boom","a":"x"}"#,
        r#"{"a":"boom","b":"boom","c":"c","d":"d","a":"x"}"#,
        r#"{"b":"boom","a":"boom","c":"c","d":"d","b":"x","a":"y"}"#,
        r#"{"a":"boom","a":"boom","a":"x"}"#,
        r#"{"a":"boom","a":"boom"}"#,
        r#"{"a":"boom","b":"c","c":"d","d":"e","a":"boom"}"#,
        r#"{"a":"boom","b":"boom","c":"d","d":"e"} x"#,
        r#"{"a":"boom","b":"boom","c":"d","d":"e","f":1}"#,
    ] {
        let d = doc.as_bytes();
        // Not `HashMap`: when a second value's `Drop` panics while the map
        // is dropped, std's `HashMap` stops and leaks the rest of its table,
        // whoever built it (tests/panics.rs says the same); `BTreeMap` and
        // `IndexMap` go on dropping.
        agree_with_panics::<BTreeMap<String, DropHook>>(&mut r, d, &none);
        agree_with_panics::<IndexMap<String, DropHook>>(&mut r, d, &none);
        agree_with_panics::<BTreeMap<CKey, DropHook>>(&mut r, d, &none);
    }
    r.finish("two panicking drops");
}

#[test]
fn a_hasher_default_that_panics() {
    let mut r = Report::default();
    let set = || DEFAULT_PANICS.set(true);
    for doc in [
        r#"{}"#.to_owned(),
        r#"{"a":"x"}"#.to_owned(),
        members_doc(&plain_members(50)),
        r#"{"a":"x","b":"y","a":"z"}"#.to_owned(),
        // Errors: serde_json builds the map (and calls Default) at `{`.
        r#"{"a":"x","b":1}"#.to_owned(),
        r#"{"a":"x","#.to_owned(),
        r#"{"a":"x"} x"#.to_owned(),
    ] {
        let d = doc.as_bytes();
        agree_with_panics::<HashMap<String, Counted, HookHasher>>(&mut r, d, &set);
        agree_with_panics::<IndexMap<String, Counted, HookHasher>>(&mut r, d, &set);
        agree_with_panics::<HashMap<CKey, Counted, HookHasher>>(&mut r, d, &set);
        let arr = format!(r#"[{{"q":"w"}},{doc}]"#);
        agree_with_panics::<Vec<HashMap<String, Counted, HookHasher>>>(
            &mut r,
            arr.as_bytes(),
            &set,
        );
    }
    r.finish("hasher default panics");
}

#[test]
fn hashing_and_comparing_keys_that_panic() {
    let mut r = Report::default();
    for n in [2usize, 3, 4, 5, 9, 40, 150] {
        let mut m = plain_members(n);
        // A repeat or two.
        m.push(m[0].clone());
        m.push((m[n / 2].0.replacen('k', "\\u006b", 1), "\"again\"".into()));
        let doc = members_doc(&m);
        let d = doc.as_bytes();
        for budget in [0isize, 1, 2, (n / 2) as isize, (n - 1) as isize] {
            let hash = move || HASH_BUDGET.set(budget);
            let build = move || BUILD_BUDGET.set(budget);
            agree_with_panics::<HashMap<CKey, Counted>>(&mut r, d, &hash);
            agree_with_panics::<IndexMap<CKey, Counted>>(&mut r, d, &hash);
            agree_with_panics::<HashMap<String, Counted, HookHasher>>(&mut r, d, &build);
            agree_with_panics::<HashMap<CKey, DropHook, HookHasher>>(&mut r, d, &build);
            agree_with_panics::<IndexMap<String, Counted, HookHasher>>(&mut r, d, &build);
            if budget < 3 {
                let cmp = move || CMP_BUDGET.set(budget);
                agree_with_panics::<BTreeMap<CKey, Counted>>(&mut r, d, &cmp);
                agree_with_panics::<BTreeMap<CKey, DropHook>>(&mut r, d, &cmp);
            }
        }
    }
    r.finish("panicking hash/cmp/build_hasher");
}

#[test]
fn user_code_decoding_while_a_map_is_built() {
    let mut r = Report::default();
    let on = || {
        REENTER.set(true);
        LARGE_NEXT.set(true);
    };
    let fat = |i: usize| format!(r#"{{"s":"f{i}","v":["a","b{i}"]}}"#);
    for n in [1usize, 4, 5, 40] {
        let mut m: Vec<(String, String)> =
            (0..n).map(|i| (format!("\"k{i:03}\""), fat(i))).collect();
        m.push((m[0].0.clone(), fat(1000)));
        m.push(("\"\\u006b001\"".into(), fat(1001)));
        let doc = members_doc(&m);
        let d = doc.as_bytes();
        agree_with_panics::<HashMap<CKey, Fat<1000>, HookHasher>>(&mut r, d, &on);
        agree_with_panics::<BTreeMap<CKey, Fat<1000>>>(&mut r, d, &on);
        agree_with_panics::<IndexMap<CKey, Fat<3000>, HookHasher>>(&mut r, d, &on);
        agree_with_panics::<HashMap<String, Fat<20000>, HookHasher>>(&mut r, d, &on);
        agree_with_panics::<BTreeMap<String, Fat<1000>>>(&mut r, d, &on);
        // Nested inside a vector and a map, so that the parents' entries lie
        // below on the stack.
        let outer = format!(r#"{{"p":[{doc},{doc}],"q":[{doc}]}}"#);
        agree_with_panics::<HashMap<String, Vec<BTreeMap<CKey, Fat<1000>>>>>(
            &mut r,
            outer.as_bytes(),
            &on,
        );
        agree_with_panics::<BTreeMap<String, Vec<HashMap<String, Fat<1000>, HookHasher>>>>(
            &mut r,
            outer.as_bytes(),
            &on,
        );
        // Truncated: the staged entries are dropped, and their drops decode.
        let cut = &outer.as_bytes()[..outer.len() - 5];
        agree_with_panics::<HashMap<String, Vec<BTreeMap<CKey, Fat<1000>>>>>(&mut r, cut, &on);
    }
    eprintln!("nested decodes run: {}", NESTED_RUNS.get());
    r.finish("re-entrant user code");
}

// ---------------------------------------------------------------------------
// 3. Shapes around maps.

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Inner {
    x: u8,
    m: BTreeMap<String, bool>,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Holder {
    a: HashMap<String, u32>,
    b: Option<BTreeMap<String, Vec<HashMap<String, i64>>>>,
    #[allow(clippy::box_collection)] // a map behind a `Box` layout, on purpose
    c: Box<BTreeMap<Box<str>, String>>,
    #[serde(default)]
    d: IndexMap<String, Inner>,
    e: serde_json::Value,
    #[serde(default)]
    f: Vec<Option<HashMap<String, Vec<u8>>>>,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
enum External {
    A(HashMap<String, u8>),
    B { m: BTreeMap<String, u8>, n: u8 },
    C(BTreeMap<String, External>),
    D,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "t")]
enum Internal {
    A { m: HashMap<String, u8> },
    B { m: BTreeMap<String, Internal> },
    C,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    A(HashMap<String, u8>),
    B { m: BTreeMap<String, String> },
    C(IndexMap<String, Adjacent>),
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum Untagged {
    Num(u8),
    Map(BTreeMap<String, u8>),
    Nested(HashMap<String, Vec<BTreeMap<String, String>>>),
    Any(serde_json::Value),
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Flat {
    id: u32,
    #[serde(flatten)]
    rest: BTreeMap<String, serde_json::Value>,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct FlatInner {
    q: Option<u8>,
    #[serde(flatten)]
    extra: HashMap<String, u32>,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct FlatOuter {
    m: BTreeMap<String, FlatInner>,
    #[serde(flatten)]
    inner: FlatInner,
}

same_by_eq!(
    Holder, External, Internal, Adjacent, Untagged, Flat, FlatOuter, Inner
);

const HOLDER: &str = r#"{"a":{"x":1,"y":2,"x":3},
 "b":{"k":[{"p":1,"q":-2},{}],"j":[],"k":[{"r":3}],"a":[{"\u0073":4,"s":5}],"z":[],"m":[]},
 "c":{"z":"1","y":"2","x":"3","w":"4","v":"5","\u0077":"6"},
 "d":{"one":{"x":1,"m":{"t":true,"f":false,"t":false}},"two":{"x":2,"m":{}},"one":{"x":3,"m":{"a":true}}},
 "e":{"k":{"k":{"k":[1,{"a":null,"a":2,"b":[{"c":{}}]}]}},"k2":{},"\u006b":0},
 "f":[null,{"a":[1],"a":[2,3]},{},null,{"b":[],"c":[4]}]}"#;

const EXTERNALS: &[&str] = &[
    r#"{"A":{"a":1,"b":2,"a":3}}"#,
    r#"{"B":{"m":{"d":1,"c":2,"b":3,"a":4,"c":5},"n":7}}"#,
    r#"{"C":{"x":{"A":{"q":1}},"y":"D","x":{"B":{"m":{},"n":0}},"z":{"C":{"w":"D"}}}}"#,
    r#""D""#,
];

const INTERNALS: &[&str] = &[
    r#"{"t":"A","m":{"a":1,"b":2,"a":3}}"#,
    r#"{"m":{"a":1,"b":2,"a":3},"t":"A"}"#,
    r#"{"t":"B","m":{"x":{"t":"C"},"y":{"t":"A","m":{"z":9,"y":8,"x":7,"w":6,"z":5}},"x":{"t":"A","m":{}}}}"#,
    r#"{"m":{"x":{"t":"C"},"y":{"m":{"z":9,"y":8,"x":7,"w":6,"z":5},"t":"A"}},"t":"B"}"#,
];

const ADJACENTS: &[&str] = &[
    r#"{"t":"A","c":{"a":1,"b":2,"a":3}}"#,
    r#"{"c":{"a":1,"b":2,"a":3},"t":"A"}"#,
    r#"{"t":"B","c":{"m":{"d":"1","c":"2","b":"3","a":"4","c":"5"}}}"#,
    r#"{"t":"C","c":{"z":{"t":"A","c":{}},"y":{"c":{"q":1},"t":"A"},"z":{"t":"B","c":{"m":{}}}}}"#,
];

const UNTAGGEDS: &[&str] = &[
    r#"7"#,
    r#"{"a":1,"b":2,"a":3,"c":4,"d":5}"#,
    r#"{"a":[{"x":"1","x":"2"},{}],"b":[],"a":[{"y":"3"}]}"#,
    r#"{"a":[{"x":1}]}"#,
    r#"{"a":300}"#,
    r#"{"\u0061":1,"a":2}"#,
];

const FLATS: &[&str] = &[
    r#"{"id":1,"a":1,"b":[1,2],"a":{"x":1,"x":2},"c":null}"#,
    r#"{"z":1,"id":2,"y":2,"x":3,"w":4,"\u007a":5}"#,
    r#"{"id":3}"#,
];

const FLAT_OUTERS: &[&str] = &[
    r#"{"m":{"a":{"q":1,"x":2,"y":3,"x":4},"b":{},"a":{"z":5}},"q":2,"r":3,"s":4,"r":5}"#,
    r#"{"r":1,"m":{"e":{"q":null,"x":1,"w":2,"v":3,"u":4}}}"#,
];

fn shape_docs() -> Vec<(&'static str, String)> {
    let mut docs = vec![("Holder", HOLDER.to_owned())];
    docs.extend(EXTERNALS.iter().map(|d| ("External", d.to_string())));
    docs.extend(INTERNALS.iter().map(|d| ("Internal", d.to_string())));
    docs.extend(ADJACENTS.iter().map(|d| ("Adjacent", d.to_string())));
    docs.extend(UNTAGGEDS.iter().map(|d| ("Untagged", d.to_string())));
    docs.extend(FLATS.iter().map(|d| ("Flat", d.to_string())));
    docs.extend(FLAT_OUTERS.iter().map(|d| ("FlatOuter", d.to_string())));
    docs.push(("Value", HOLDER.to_owned()));
    docs.push(("VecMaps", format!("[{},{}]", EXTERNALS[1], HOLDER)));
    docs
}

fn agree_named(r: &mut Report, ty: &str, doc: &[u8]) {
    match ty {
        "Holder" => agree_into::<Holder>(r, doc),
        "External" => agree_into::<External>(r, doc),
        "Internal" => agree_into::<Internal>(r, doc),
        "Adjacent" => agree_into::<Adjacent>(r, doc),
        "Untagged" => agree_into::<Untagged>(r, doc),
        "Flat" => agree_into::<Flat>(r, doc),
        "FlatOuter" => agree_into::<FlatOuter>(r, doc),
        "Value" => agree_into::<serde_json::Value>(r, doc),
        "VecMaps" => agree_into::<Vec<HashMap<String, serde_json::Value>>>(r, doc),
        "CountedMaps" => {
            agree_counted::<Vec<BTreeMap<CKey, HashMap<String, Vec<Counted>>>>>(r, doc)
        }
        "Keys" => {
            agree_into::<HashMap<String, u8>>(r, doc);
            agree_into::<BTreeMap<String, u8>>(r, doc);
            agree_into::<IndexMap<Box<str>, u8>>(r, doc);
            agree_into::<serde_json::Value>(r, doc);
        }
        _ => unreachable!("{ty}"),
    }
}

#[test]
fn maps_in_every_shape_agree_with_serde_json() {
    let mut r = Report::default();
    for (ty, doc) in shape_docs() {
        agree_named(&mut r, ty, doc.as_bytes());
    }
    r.finish("shapes");
}

const COUNTED_MAPS: &str = r#"[{"a":{"x":["1","2"],"y":[],"x":["3"]},"b":{},"\u0061":{"z":["4"]},"c":{"p":["5"],"q":["6","7"],"r":["8"],"s":["9"],"p":["10"]}},{},{"d":{"":[""]}}]"#;

/// Truncated at every byte, and every byte replaced by a few others: every
/// configuration agrees with serde_json and with the others.
#[test]
fn truncated_and_corrupted_at_every_byte() {
    let mut r = Report::default();
    let mut docs = shape_docs();
    docs.push(("CountedMaps", COUNTED_MAPS.to_owned()));
    docs.push((
        "Keys",
        r#"{"a":1,"\u0062":2,"c\n\"\\\/\b\f\r\t":3,"\ud83d\ude00":4,"":5,"long_key_with_an_escape_\u00e9_in_the_middle":6,"a":7}"#.to_owned(),
    ));
    for (ty, doc) in &docs {
        let bytes = doc.as_bytes();
        for cut in 0..bytes.len() {
            agree_named(&mut r, ty, &bytes[..cut]);
        }
        for at in 0..bytes.len() {
            for b in [
                b'"', b'\\', b'}', b',', b':', b'x', b'1', b' ', 0u8, 0xff, b'{', b']', b'u',
            ] {
                if bytes[at] == b {
                    continue;
                }
                let mut d = bytes.to_vec();
                d[at] = b;
                agree_named(&mut r, ty, &d);
            }
            // Deleted.
            let mut d = bytes.to_vec();
            d.remove(at);
            agree_named(&mut r, ty, &d);
        }
    }
    r.finish("truncated and corrupted");
}

// ---------------------------------------------------------------------------
// 4. Keys.

#[test]
fn hostile_keys() {
    let mut r = Report::default();
    let key_texts: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"\xff".to_vec(),
        b"a\xc3".to_vec(),
        b"\xc3".to_vec(),
        b"\xed\xa0\x80".to_vec(),
        b"\xc0\xaf".to_vec(),
        b"\xf4\x90\x80\x80".to_vec(),
        b"\xe2\x82".to_vec(),
        b"\xe2\x82\xac".to_vec(),
        b"\\ud800".to_vec(),
        b"\\udc00".to_vec(),
        b"\\ud800\\u0041".to_vec(),
        b"\\ud800\\ud800".to_vec(),
        b"\\ud83d\\ude00".to_vec(),
        b"\\ud83d\\ude00\\ud83d".to_vec(),
        b"\\uDBFF\\uDFFF".to_vec(),
        b"\\u0000".to_vec(),
        b"\x01".to_vec(),
        b"\x1f".to_vec(),
        b"a\nb".to_vec(),
        b"\x7f".to_vec(),
        b"\\x".to_vec(),
        b"\\u12G4".to_vec(),
        b"\\u".to_vec(),
        b"\\u00".to_vec(),
        b"\\".to_vec(),
        b"\\'".to_vec(),
        b"a\\".to_vec(),
        b"\\\"".to_vec(),
        b"\\/\\b\\f\\n\\r\\t\\\\".to_vec(),
        b"\xf0\x9f\x98\x80".to_vec(),
    ];
    let mut lengths = vec![
        1usize, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 4095, 4096, 4097,
    ];
    lengths.push(70_000);
    for k in &key_texts {
        // Alone, first, middle and last of a map, and repeated.
        for (before, after) in [
            (&b"{"[..], &b":1}"[..]),
            (b"{\"z\":0,", b":1}"),
            (b"{\"z\":0,", b":1,\"y\":2,\"x\":3,\"w\":4}"),
            (b"{\"z\":0,\"y\":2,\"x\":3,\"w\":4,", b":1,\"v\":5}"),
            (b"{\"p\":{", b":1},\"q\":{\"r\":2}}"),
        ] {
            let mut doc = before.to_vec();
            doc.push(b'"');
            doc.extend_from_slice(k);
            doc.push(b'"');
            doc.extend_from_slice(after);
            if doc.starts_with(b"{\"p\"") {
                agree_into::<HashMap<String, BTreeMap<String, u8>>>(&mut r, &doc);
                agree_into::<serde_json::Value>(&mut r, &doc);
            } else {
                agree_named(&mut r, "Keys", &doc);
            }
        }
        // Long keys with the hostile text at the start, the middle, the end.
        for &n in &lengths {
            let pad = "k".repeat(n);
            for (a, b) in [
                ("", pad.as_str()),
                (&pad[..n / 2], &pad[n / 2..]),
                (pad.as_str(), ""),
            ] {
                let mut doc = br#"{"x":1,""#.to_vec();
                doc.extend_from_slice(a.as_bytes());
                doc.extend_from_slice(k);
                doc.extend_from_slice(b.as_bytes());
                doc.extend_from_slice(br#"":2,"y":3,"z":4,"w":5}"#);
                agree_named(&mut r, "Keys", &doc);
            }
        }
    }
    // A long map with an escaped key (and a repeat spelled plainly) at every
    // position.
    for n in [5usize, 33, 130] {
        for at in 0..n {
            let members: Vec<String> = (0..n)
                .map(|i| {
                    if i == at {
                        format!(r#""k\u005f{i}":{i}"#)
                    } else if i == (at + 3) % n {
                        format!(r#""k_{at}":{}"#, i + 100)
                    } else {
                        format!(r#""k{i}":{i}"#)
                    }
                })
                .collect();
            let doc = format!("{{{}}}", members.join(","));
            agree_named(&mut r, "Keys", doc.as_bytes());
        }
    }
    r.finish("keys");
}

/// Borrowed keys: `&str` (refuses escaped keys, as serde_json) and `Cow`.
#[test]
fn borrowed_and_cow_keys() {
    let mut r = Report::default();
    for doc in [
        r#"{"a":1,"b":2,"a":3}"#,
        r#"{"a":1,"b":2,"c":3,"d":4,"a":5}"#,
        r#"{"a":1,"\u0062":2}"#,
        r#"{"d":1,"c":2,"b":3,"a":4,"\u0061":5}"#,
        r#"{"a":1,"b":2,"c":3,"d":4,"e":"x"}"#,
        r#"{"a":1,"b":2,"c":3,"d":4,"e":5"#,
    ] {
        r.cases += 1;
        macro_rules! borrowed {
            ($t:ty) => {{
                let theirs = serde_json::from_str::<$t>(doc);
                for c in configs() {
                    let ours = decoder::<$t>(c).decode_str(doc);
                    let ok = match (&ours, &theirs) {
                        (Ok(a), Ok(b)) => a == b,
                        (Err(a), Err(b)) => {
                            a.classify() == category(b)
                                && a.to_string()
                                    .starts_with(&format!("{} at $", serde_words(b)))
                        }
                        _ => false,
                    };
                    if !ok {
                        r.add(format!(
                            "{:?}/{:?}/str: {} on {doc}: jitson {ours:?} serde {theirs:?}",
                            c.backend,
                            c.tiering,
                            stringify!($t)
                        ));
                    }
                    let ours = decoder::<$t>(c).decode_slice(doc.as_bytes());
                    let same = match (&ours, &theirs) {
                        (Ok(a), Ok(b)) => a == b,
                        (Err(_), Err(_)) => true,
                        _ => false,
                    };
                    if !same {
                        r.add(format!(
                            "{:?}/{:?}/slice: {} on {doc}: jitson {ours:?} serde {theirs:?}",
                            c.backend,
                            c.tiering,
                            stringify!($t)
                        ));
                    }
                }
            }};
        }
        borrowed!(HashMap<&str, u8>);
        borrowed!(BTreeMap<&str, u8>);
        borrowed!(BTreeMap<Cow<'_, str>, u8>);
        borrowed!(HashMap<Cow<'_, str>, u8>);
        borrowed!(IndexMap<Cow<'_, str>, u8>);
        borrowed!(BTreeMap<String, Cow<'_, str>>);
    }
    r.finish("borrowed keys");
}

// ---------------------------------------------------------------------------
// 5. Sizes: entries across the element stack's chunks, huge maps.

fn boundary_counts(entry: usize) -> Vec<usize> {
    let mut out = vec![0, 1, 2, 3, 4, 5];
    let mut total = 0;
    let mut chunk = 16 << 10;
    for _ in 0..4 {
        total += chunk;
        chunk *= 2;
        let n = total / entry;
        for d in [n.saturating_sub(1), n, n + 1] {
            out.push(d);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// `n` members keyed `k0`, `k1`... (`k000000`, `k000001`... with `padded`,
/// in strictly increasing order), every `dup_every`th repeating an earlier key.
fn fat_map_doc(n: usize, dup_every: usize, padded: bool) -> String {
    let members: Vec<String> = (0..n)
        .map(|i| {
            let k = if dup_every > 0 && i % dup_every == dup_every - 1 {
                format!("k{}", i / 2)
            } else if padded {
                format!("k{i:06}")
            } else {
                format!("k{i}")
            };
            let k = if i % 11 == 10 {
                k.replacen('k', "\\u006b", 1)
            } else {
                k
            };
            format!(
                r#""{k}":{{"s":"f{i}","v":[{}]}}"#,
                (0..i % 4)
                    .map(|j| format!("\"{j}\""))
                    .collect::<Vec<_>>()
                    .join(",")
            )
        })
        .collect();
    format!("{{{}}}", members.join(","))
}

#[test]
fn large_entries_across_chunks() {
    // serde_json, the oracle, moves each `Fat<70_000>` (70 KB) through std's
    // BTreeMap insertion by value, several frames deep.
    common::on_a_large_stack(large_entries_across_chunks_on_a_large_stack);
}

fn large_entries_across_chunks_on_a_large_stack() {
    let mut r = Report::default();
    macro_rules! sized {
        ($n:expr) => {{
            let entry = size_of::<String>() + size_of::<Fat<$n>>();
            for n in boundary_counts(entry) {
                if n * entry > 600_000 {
                    continue;
                }
                for (dup, padded) in [(0, false), (7, false), (0, true)] {
                    let doc = fat_map_doc(n, dup, padded);
                    agree_counted::<BTreeMap<String, Fat<$n>>>(&mut r, doc.as_bytes());
                    agree_counted::<HashMap<String, Fat<$n>>>(&mut r, doc.as_bytes());
                    agree_counted::<IndexMap<CKey, Fat<$n>>>(&mut r, doc.as_bytes());
                    if n > 0 {
                        // The last value broken, and cut inside the last value.
                        let broken = format!("{}1}}}}", &doc[..doc.len() - 2]);
                        agree_counted::<BTreeMap<String, Fat<$n>>>(&mut r, broken.as_bytes());
                        agree_counted::<HashMap<CKey, Fat<$n>>>(&mut r, broken.as_bytes());
                        let cut = &doc.as_bytes()[..doc.len() - 4];
                        agree_counted::<BTreeMap<CKey, Fat<$n>>>(&mut r, cut);
                        agree_counted::<IndexMap<String, Fat<$n>>>(&mut r, cut);
                        // Inside a vector and a map.
                        let outer = format!(r#"{{"a":[{doc},{{}},{doc}],"b":[]}}"#);
                        agree_counted::<HashMap<String, Vec<BTreeMap<String, Fat<$n>>>>>(
                            &mut r,
                            outer.as_bytes(),
                        );
                        let cut = &outer.as_bytes()[..outer.len() * 3 / 4];
                        agree_counted::<HashMap<String, Vec<BTreeMap<String, Fat<$n>>>>>(
                            &mut r, cut,
                        );
                    }
                }
            }
        }};
    }
    sized!(64);
    sized!(1000);
    sized!(8000);
    sized!(16_300);
    sized!(16_400);
    sized!(33_000);
    sized!(70_000);
    r.finish("large entries");
}

#[test]
fn huge_maps() {
    let mut r = Report::default();
    for n in [10_000usize, 50_000] {
        let mut members: Vec<String> = (0..n).map(|i| format!(r#""k{:06}":{i}"#, n - i)).collect();
        // Repeats at the end (the later wins).
        for i in (0..n).step_by(97) {
            members.push(format!(r#""k{:06}":{}"#, n - i, i + 1_000_000));
        }
        let doc = format!("{{{}}}", members.join(","));
        agree_into::<HashMap<String, u32>>(&mut r, doc.as_bytes());
        agree_into::<BTreeMap<String, u32>>(&mut r, doc.as_bytes());
        agree_into::<IndexMap<String, u32>>(&mut r, doc.as_bytes());
        agree_into::<serde_json::Value>(&mut r, doc.as_bytes());
        agree_into::<BTreeMap<Box<str>, u32>>(&mut r, doc.as_bytes());
        let broken = doc.replacen(
            &format!(r#""k{:06}":{}"#, n / 2, n - n / 2),
            &format!(r#""k{:06}":x"#, n / 2),
            1,
        );
        agree_into::<HashMap<String, u32>>(&mut r, broken.as_bytes());
        agree_into::<BTreeMap<String, u32>>(&mut r, broken.as_bytes());
        agree_counted::<BTreeMap<CKey, Counted>>(
            &mut r,
            doc.replace(":", ":\"")
                .replace(",\"", "\",\"")
                .replace("}", "\"}")
                .as_bytes(),
        );
    }
    // Many small maps in a vector, and maps nested 100 deep.
    let small: Vec<String> = (0..20_000)
        .map(|i| format!(r#"{{"a":{i},"b":{},"a":{}}}"#, i + 1, i + 2))
        .collect();
    let doc = format!("[{}]", small.join(","));
    agree_into::<Vec<BTreeMap<String, u32>>>(&mut r, doc.as_bytes());
    agree_into::<Vec<HashMap<String, u32>>>(&mut r, doc.as_bytes());
    for depth in [1usize, 50, 126, 127, 128, 129, 200] {
        let doc = format!("{}1{}", r#"{"a":0,"b":"#.repeat(depth), "}".repeat(depth));
        agree_into::<serde_json::Value>(&mut r, doc.as_bytes());
    }
    r.finish("huge maps");
}

// ---------------------------------------------------------------------------
// 6. Odd entries: zero-sized and ignored values, over-aligned values,
//    keys whose equality is not identity.

#[derive(Debug, PartialEq)]
#[repr(align(4096))]
struct Al4K(String);

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(align(64))]
struct Al64(String);

use common::string_kind::MISALIGNED;

string_kind!(Al4K, write_al4k, |s: &str| Al4K(s.to_owned()));
string_kind!(Al64, write_al64, |s: &str| Al64(s.to_owned()));

/// A key compared without regard to ASCII case (as `unicase` keys are): which
/// of two equal keys a map keeps shows.
#[derive(Debug)]
struct CaseKey(String);

impl PartialEq for CaseKey {
    fn eq(&self, o: &Self) -> bool {
        self.0.eq_ignore_ascii_case(&o.0)
    }
}
impl Eq for CaseKey {}
impl Hash for CaseKey {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.0.to_ascii_lowercase().hash(h)
    }
}
impl PartialOrd for CaseKey {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for CaseKey {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.to_ascii_lowercase().cmp(&o.0.to_ascii_lowercase())
    }
}
string_kind!(CaseKey, write_case_key, |s: &str| CaseKey(s.to_owned()));

/// Keys compared by their exact text, so which key was kept shows.
fn exact_keys<'a>(keys: impl Iterator<Item = &'a CaseKey>) -> Vec<String> {
    keys.map(|k| k.0.clone()).collect()
}

same_by_eq!(Al4K, Al64, jitson::IgnoredAny);

#[test]
fn zero_sized_ignored_and_over_aligned_values() {
    let mut r = Report::default();
    let mut rng = Rng(77);
    let before = MISALIGNED.get();
    for n in [0usize, 1, 3, 4, 5, 20, 100, 300, 3000] {
        let members: Vec<(String, String)> = (0..n)
            .map(|i| {
                (
                    format!("k{}", rng.below(n as u64 * 3 / 2 + 1)),
                    format!("\"v{i}\""),
                )
            })
            .collect();
        let doc = object(&mut rng, &members);
        agree_into::<HashMap<String, Al4K>>(&mut r, doc.as_bytes());
        agree_into::<BTreeMap<String, Al4K>>(&mut r, doc.as_bytes());
        agree_into::<IndexMap<String, Al64>>(&mut r, doc.as_bytes());
        agree_into::<BTreeMap<Al64, Al4K>>(&mut r, doc.as_bytes());
        agree_into::<Vec<BTreeMap<String, Al4K>>>(&mut r, format!("[{doc},{doc}]").as_bytes());
        let nulls = format!(
            "{{{}}}",
            (0..n)
                .map(|i| format!(r#""k{}":null"#, i % 7))
                .collect::<Vec<_>>()
                .join(",")
        );
        agree_into::<HashMap<String, ()>>(&mut r, nulls.as_bytes());
        agree_into::<BTreeMap<String, ()>>(&mut r, nulls.as_bytes());
        agree_into::<IndexMap<String, ()>>(&mut r, nulls.as_bytes());
        agree_into::<BTreeMap<Al64, ()>>(&mut r, nulls.as_bytes());
        let cut = &nulls.as_bytes()[..nulls.len().saturating_sub(3)];
        agree_into::<BTreeMap<String, ()>>(&mut r, cut);
        // jitson's IgnoredAny against serde's (same name, different types):
        // only Ok/Err and lengths are compared.
        r.cases += 1;
        for c in configs() {
            let ours = decoder::<BTreeMap<String, jitson::IgnoredAny>>(c).decode_str(&doc);
            let theirs = serde_json::from_str::<BTreeMap<String, serde::de::IgnoredAny>>(&doc);
            if ours.as_ref().map(|m| m.len()).ok() != theirs.as_ref().map(|m| m.len()).ok() {
                r.add(format!(
                    "{c:?}/str: IgnoredAny values on {}",
                    excerpt(doc.as_bytes())
                ));
            }
        }
    }
    if MISALIGNED.get() != before {
        r.add(format!(
            "{} over-aligned values written misaligned",
            MISALIGNED.get() - before
        ));
    }
    r.finish("odd values");
}

/// A key type whose equality ignores case: which spelling the map keeps for
/// `{"A":1,"a":2}` (serde's `insert` keeps the first key, with the later value).
/// Found by the review, fixed: a `BTreeMap` of 4+ members keeps the later key (std's bulk build
/// keeps the last of equal keys). Only reachable with a string kind of one's
/// own (`jitson::__private`).
#[test]
fn which_of_two_equal_keys_is_kept() {
    let mut r = Report::default();
    for doc in [
        r#"{"A":1,"a":2}"#,
        r#"{"A":1,"b":2,"c":3,"a":4}"#,
        r#"{"A":1,"b":2,"c":3,"d":4,"a":5}"#,
        r#"{"x":0,"A":1,"B":2,"C":3,"D":4,"a":5,"b":6,"c":7,"d":8}"#,
    ] {
        r.cases += 1;
        let theirs_b: BTreeMap<CaseKey, u8> = serde_json::from_str(doc).unwrap();
        let theirs_h: HashMap<CaseKey, u8> = serde_json::from_str(doc).unwrap();
        let theirs_i: IndexMap<CaseKey, u8> = serde_json::from_str(doc).unwrap();
        for c in configs() {
            let who = format!("{:?}/{:?}/str", c.backend, c.tiering);
            let b = decoder::<BTreeMap<CaseKey, u8>>(c).decode_str(doc).unwrap();
            if exact_keys(b.keys()) != exact_keys(theirs_b.keys())
                || b.values().collect::<Vec<_>>() != theirs_b.values().collect::<Vec<_>>()
            {
                r.add(format!(
                    "{who}: BTreeMap<CaseKey, u8> on {doc}: jitson {b:?}, serde {theirs_b:?}"
                ));
            }
            let h = decoder::<HashMap<CaseKey, u8>>(c).decode_str(doc).unwrap();
            let mut hk = exact_keys(h.keys());
            hk.sort();
            let mut tk = exact_keys(theirs_h.keys());
            tk.sort();
            if hk != tk {
                r.add(format!(
                    "{who}: HashMap<CaseKey, u8> on {doc}: jitson {hk:?}, serde {tk:?}"
                ));
            }
            let i = decoder::<IndexMap<CaseKey, u8>>(c).decode_str(doc).unwrap();
            if exact_keys(i.keys()) != exact_keys(theirs_i.keys())
                || i.values().collect::<Vec<_>>() != theirs_i.values().collect::<Vec<_>>()
            {
                r.add(format!(
                    "{who}: IndexMap<CaseKey, u8> on {doc}: jitson {i:?}, serde {theirs_i:?}"
                ));
            }
        }
    }
    r.finish("equal keys");
}

/// A map of one key repeated n times: its allocation (capacity) is kept.
/// Found by the review, fixed: `with_capacity(members)` counts repeated keys, so a map of one
/// entry read from 100 000 repeats keeps room for 114 688 (IndexMap 100 000),
/// serde_json 3.
#[test]
fn capacity_after_many_repeats() {
    let n = 100_000;
    let doc = format!("{{{}}}", vec![r#""a":1"#; n].join(","));
    let serde_h: HashMap<String, u64> = serde_json::from_str(&doc).unwrap();
    let serde_i: IndexMap<String, u64> = serde_json::from_str(&doc).unwrap();
    let mut report = Vec::new();
    for c in configs() {
        let h = decoder::<HashMap<String, u64>>(c).decode_str(&doc).unwrap();
        let i = decoder::<IndexMap<String, u64>>(c)
            .decode_str(&doc)
            .unwrap();
        assert_eq!((h.len(), i.len()), (1, 1));
        report.push(format!(
            "{c:?}: HashMap capacity {} (serde {}), IndexMap capacity {} (serde {})",
            h.capacity(),
            serde_h.capacity(),
            i.capacity(),
            serde_i.capacity()
        ));
    }
    eprintln!("{}", report.join("\n"));
    let h = decoder::<HashMap<String, u64>>(configs()[0])
        .decode_str(&doc)
        .unwrap();
    assert!(
        h.capacity() < 1000,
        "a map of 1 entry keeps room for {} ({} bytes of input)\n{}",
        h.capacity(),
        doc.len(),
        report.join("\n")
    );
}

// ---------------------------------------------------------------------------
// 7. Threads and thread exit.

#[test]
fn many_threads_decode_maps_at_once() {
    let handles: Vec<_> = (0..8)
        .map(|t| {
            std::thread::spawn(move || {
                let mut r = Report::default();
                for round in 0..20 {
                    let doc = fat_map_doc(50 + t * 37 + round, 5, false);
                    agree_counted::<BTreeMap<String, Fat<700>>>(&mut r, doc.as_bytes());
                    agree_counted::<HashMap<CKey, Fat<300>>>(&mut r, doc.as_bytes());
                    let cut = &doc.as_bytes()[..doc.len() * (round + 1) / 21];
                    agree_counted::<IndexMap<String, Fat<300>>>(&mut r, cut);
                }
                r
            })
        })
        .collect();
    let mut all = Report::default();
    for h in handles {
        let r = h.join().expect("thread");
        all.cases += r.cases;
        all.problems.extend(r.problems);
    }
    all.finish("threads");
}

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
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains("1 passed"),
        "child {test}: {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn maps_decode_in_a_thread_local_destructor() {
    run_isolated("child_maps_in_tls_destructor");
}

#[test]
#[ignore = "run by maps_decode_in_a_thread_local_destructor in a child process"]
fn child_maps_in_tls_destructor() {
    use std::sync::Mutex;
    static RESULTS: Mutex<Vec<String>> = Mutex::new(Vec::new());

    struct DecodeOnExit;
    impl Drop for DecodeOnExit {
        fn drop(&mut self) {
            let mut out = Vec::new();
            let doc = fat_map_doc(200, 7, false);
            let expected: BTreeMap<String, Fat<1000>> = serde_json::from_str(&doc).unwrap();
            for backend in common::backends() {
                let got =
                    Decoder::<BTreeMap<String, Fat<1000>>>::with_backend(backend).decode_str(&doc);
                if let Err(e) = &got {
                    eprintln!("{}: in a TLS destructor: {e}", backend.name());
                }
                out.push(format!(
                    "{}: {}",
                    backend.name(),
                    got.ok() == Some(expected.clone_shallow())
                ));
                let cut = Decoder::<HashMap<String, Fat<1000>>>::with_backend(backend)
                    .decode_str(&doc[..doc.len() / 2]);
                out.push(format!("{}: cut {}", backend.name(), cut.is_err()));
                // A panic while the map is built, in a destructor.
                let p = catch_unwind(|| {
                    Decoder::<BTreeMap<String, DropHook>>::with_backend(backend)
                        .decode_str(r#"{"a":"boom","a":"x"}"#)
                });
                if let Ok(r) = &p {
                    eprintln!("{}: no panic in a TLS destructor: {r:?}", backend.name());
                }
                out.push(format!("{}: panic {}", backend.name(), p.is_err()));
            }
            RESULTS.lock().unwrap().extend(out);
        }
    }
    thread_local! {
        static ON_EXIT: DecodeOnExit = const { DecodeOnExit };
    }
    std::thread::spawn(|| {
        ON_EXIT.with(|_| {});
        // Compiled here: Cranelift cannot compile in a TLS destructor (its
        // own thread-locals are gone), which is not what this test is about.
        for backend in common::backends() {
            Decoder::<BTreeMap<String, Fat<1000>>>::with_backend(backend)
                .warm_up()
                .unwrap();
            Decoder::<HashMap<String, Fat<1000>>>::with_backend(backend)
                .warm_up()
                .unwrap();
            Decoder::<BTreeMap<String, DropHook>>::with_backend(backend)
                .warm_up()
                .unwrap();
        }
        for backend in common::backends() {
            let m = Decoder::<HashMap<String, Vec<u8>>>::with_backend(backend)
                .decode_str(r#"{"a":[1],"\u0062":[2],"a":[3]}"#)
                .unwrap();
            assert_eq!(m.len(), 2);
        }
    })
    .join()
    .unwrap();
    let results = RESULTS.lock().unwrap();
    let expected: Vec<String> = common::backends()
        .iter()
        .flat_map(|b| {
            [
                format!("{}: true", b.name()),
                format!("{}: cut true", b.name()),
                format!("{}: panic true", b.name()),
            ]
        })
        .collect();
    assert_eq!(*results, expected);
}

trait CloneShallow {
    fn clone_shallow(&self) -> Self;
}

impl<const N: usize> CloneShallow for BTreeMap<String, Fat<N>> {
    fn clone_shallow(&self) -> Self {
        self.iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    Fat {
                        s: DropHook(Counted::new(&v.s.0.0)),
                        v: v.v.iter().map(|c| Counted::new(&c.0)).collect(),
                        pad: Pad::default(),
                    },
                )
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------
// 8. Streams, raw values, maps with keys of other types, panics inside values.

#[test]
fn maps_in_streams() {
    let mut r = Report::default();
    let mut rng = Rng(4242);
    let mut lines = Vec::new();
    for i in 0..300 {
        let n = rng.below(12) as usize;
        let members: Vec<(String, String)> = (0..n)
            .map(|_| {
                (
                    random_key(&mut rng, 6),
                    format!("[{}]", int_value(&mut rng)),
                )
            })
            .collect();
        let _ = i;
        lines.push(object(&mut rng, &members).replace('\n', " "));
    }
    let input = lines.join("\n");
    let expected: Vec<BTreeMap<String, Vec<i32>>> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for c in configs() {
        r.cases += 1;
        let who = format!("{:?}/{:?}/stream", c.backend, c.tiering);
        let got: Result<Vec<_>, _> = decoder::<BTreeMap<String, Vec<i32>>>(c)
            .values(input.as_bytes())
            .map(|v| v.map(|(_, v)| v))
            .collect();
        if got.as_ref().ok() != Some(&expected) {
            r.add(format!("{who}: values() differ: {:?}", got.err()));
        }
        let got = decoder::<BTreeMap<String, Vec<i32>>>(c).decode_lines(input.as_bytes(), 2);
        if got.as_ref().ok() != Some(&expected) {
            r.add(format!("{who}: decode_lines differ: {:?}", got.err()));
        }
        let got: Result<Vec<_>, _> = decoder::<HashMap<String, Vec<i32>>>(c)
            .values_from_reader(std::io::BufReader::with_capacity(7, input.as_bytes()))
            .map(|v| v.map(|(_, v)| v))
            .collect();
        let exp_h: Vec<HashMap<String, Vec<i32>>> = lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        if got.as_ref().ok() != Some(&exp_h) {
            r.add(format!("{who}: values_from_reader differ: {:?}", got.err()));
        }
        // An error in the middle of the stream: the iteration ends there.
        let broken = input.replacen(":[", ":[x", 1);
        let n_ok = decoder::<BTreeMap<String, Vec<i32>>>(c)
            .values(broken.as_bytes())
            .take_while(|v| v.is_ok())
            .count();
        let serde_ok = serde_json::Deserializer::from_str(&broken)
            .into_iter::<BTreeMap<String, Vec<i32>>>()
            .take_while(|v| v.is_ok())
            .count();
        if n_ok != serde_ok {
            r.add(format!(
                "{who}: {n_ok} values before the error, serde_json {serde_ok}"
            ));
        }
    }
    r.finish("streams");
}

#[test]
fn raw_values_in_maps() {
    let mut r = Report::default();
    for doc in [
        r#"{"a":1,"b":[1, 2],"a":{"x" : "y"},"c":"s\u0041","d":null,"e":true}"#,
        r#"{"d":1,"c":2,"b":3,"a":4,"\u0061":5}"#,
        r#"{"a":1,"b":[1, 2"#,
        r#"{"a":1,"b":[1, 2]]"#,
    ] {
        r.cases += 1;
        let theirs = serde_json::from_str::<BTreeMap<String, &serde_json::value::RawValue>>(doc);
        for c in configs() {
            let ours = decoder::<BTreeMap<String, jitson::RawValue>>(c).decode_str(doc);
            let same = match (&ours, &theirs) {
                (Ok(a), Ok(b)) => {
                    a.len() == b.len()
                        && a.iter()
                            .zip(b)
                            .all(|(x, y)| x.0 == y.0 && x.1.get() == y.1.get())
                }
                (Err(a), Err(b)) => a.classify() == category(b),
                _ => false,
            };
            if !same {
                r.add(format!(
                    "{:?}/{:?}/str: RawValue map on {doc}: {ours:?} vs {theirs:?}",
                    c.backend, c.tiering
                ));
            }
        }
    }
    r.finish("raw values");
}

#[derive(Decode, Deserialize, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Clone, Copy)]
enum Color {
    Red,
    Green,
    Blue,
}
same_by_eq!(Color);

#[test]
fn maps_with_keys_of_other_types() {
    let mut r = Report::default();
    let mut rng = Rng(99);
    for n in [0usize, 1, 3, 4, 5, 30] {
        let members: Vec<(String, String)> = (0..n)
            .map(|_| {
                (
                    format!("{}", rng.below(n as u64 + 2) as i64 - 1),
                    int_value(&mut rng),
                )
            })
            .collect();
        let doc = object(&mut rng, &members);
        for d in [doc.clone(), doc[..doc.len() / 2].to_owned()] {
            agree_into::<BTreeMap<u32, i32>>(&mut r, d.as_bytes());
            agree_into::<HashMap<i64, i32>>(&mut r, d.as_bytes());
            agree_into::<IndexMap<i8, i32>>(&mut r, d.as_bytes());
            agree_into::<BTreeMap<String, BTreeMap<u8, i32>>>(
                &mut r,
                format!(r#"{{"a":{d},"a":{{}}}}"#).as_bytes(),
            );
        }
        let colors = ["Red", "Green", "Blue", "Purple", "R\\u0065d"];
        let members: Vec<(String, String)> = (0..n)
            .map(|_| {
                let upto = if rng.chance(1, 5) { 5 } else { 3 };
                (
                    colors[rng.below(upto) as usize].to_owned(),
                    int_value(&mut rng),
                )
            })
            .collect();
        let doc = object(&mut rng, &members);
        agree_into::<BTreeMap<Color, i32>>(&mut r, doc.as_bytes());
        agree_into::<HashMap<Color, i32>>(&mut r, doc.as_bytes());
        agree_into::<BTreeMap<bool, i32>>(&mut r, br#"{"true":1,"false":2,"true":3}"#);
        agree_into::<BTreeMap<char, i32>>(&mut r, br#"{"a":1,"b":2,"a":3,"\u0063":4,"d":5}"#);
    }
    r.finish("other keys");
}

fn panicking_default_fn() -> u32 {
    panic!("default fn")
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct WithPanickyDefault {
    s: Counted,
    #[serde(default = "panicking_default_fn")]
    n: u32,
}
same_by_eq!(WithPanickyDefault);

#[test]
fn a_panic_while_decoding_a_value_drops_the_staged_entries() {
    let mut r = Report::default();
    let none = || {};
    for n in [0usize, 1, 4, 50, 400] {
        let members: Vec<String> = (0..n)
            .map(|i| format!(r#""k{i}":{{"s":"v{i}","n":{i}}}"#))
            .collect();
        let mut m2 = members.clone();
        m2.push(r#""last":{"s":"x"}"#.to_owned());
        let doc = format!("{{{}}}", m2.join(","));
        agree_with_panics::<HashMap<String, WithPanickyDefault>>(&mut r, doc.as_bytes(), &none);
        agree_with_panics::<BTreeMap<CKey, WithPanickyDefault>>(&mut r, doc.as_bytes(), &none);
        agree_with_panics::<IndexMap<String, WithPanickyDefault>>(&mut r, doc.as_bytes(), &none);
        let outer = format!(r#"{{"a":[{{}},{{"q":{{"s":"z","n":1}}}}],"b":[{doc}]}}"#);
        agree_with_panics::<BTreeMap<String, Vec<HashMap<String, WithPanickyDefault>>>>(
            &mut r,
            outer.as_bytes(),
            &none,
        );
    }
    r.finish("panic in a value");
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct BoomAndDefault {
    s: DropHook,
    #[serde(default = "panicking_default_fn")]
    n: u32,
}
same_by_eq!(BoomAndDefault);

/// Two panics in one decode: a replaced value's `Drop` (serde_json: at the
/// repeated key) and a `default` fn (at a later member); whichever payload
/// resumes, nothing may leak, be dropped twice, or abort.
#[test]
fn two_panics_in_one_map() {
    let mut r = Report::default();
    let none = || {};
    for doc in [
        r#"{"a":{"s":"boom","n":1},"a":{"s":"x","n":2},"b":{"s":"y"}}"#,
        r#"{"a":{"s":"boom","n":1},"b":{"s":"boom","n":1},"c":{"s":"y"}}"#,
        r#"{"a":{"s":"boom","n":1},"q":{"s":"q","n":1},"r":{"s":"r","n":1},"a":{"s":"x","n":2},"b":{"s":"y"}}"#,
    ] {
        for ty in 0..3 {
            let d = doc.as_bytes();
            let before = counted::live();
            match ty {
                0 => agree_with_panics::<HashMap<String, BoomAndDefault>>(&mut r, d, &none),
                1 => agree_with_panics::<BTreeMap<String, BoomAndDefault>>(&mut r, d, &none),
                _ => agree_with_panics::<IndexMap<String, BoomAndDefault>>(&mut r, d, &none),
            }
            let _ = before;
        }
    }
    // Only leaks, double drops and broken later decodes count here: which of
    // two panics resumes is not compared.
    r.problems.retain(|(p, _)| !p.contains("jitson Panic("));
    r.finish("two panics");
}

// ---------------------------------------------------------------------------
// 9. Minimal reproductions of what this file found.

static LOUD_DROPS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A plain derived value whose `Drop` counts and panics for "boom".
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Loud {
    s: String,
}

impl Drop for Loud {
    fn drop(&mut self) {
        LOUD_DROPS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if self.s == "boom" && !std::thread::panicking() {
            panic!("drop of boom");
        }
    }
}

/// Found by the review, fixed: a `BTreeMap` of 4 or more members whose replaced value's `Drop`
/// panics leaks every entry std's bulk build had already placed (std's
/// `BTreeMap::from_iter` is not panic-safe against a panicking `Drop` of a
/// duplicate: its root is a local without a destructor). serde_json (insert
/// by insert) drops all four values. Both backends.
#[test]
fn repro_btreemap_bulk_build_leaks_when_a_replaced_value_panics_in_drop() {
    use std::sync::atomic::Ordering::SeqCst;
    let doc = r#"{"a":{"s":"x"},"b":{"s":"y"},"c":{"s":"boom"},"c":{"s":"z"}}"#;
    let drops = |f: &dyn Fn() -> String| {
        let before = LOUD_DROPS.load(SeqCst);
        let payload = f();
        (payload, LOUD_DROPS.load(SeqCst) - before)
    };
    let theirs = drops(&|| {
        let r = catch_unwind(|| serde_json::from_str::<BTreeMap<String, Loud>>(doc));
        message(&*r.expect_err("panics"))
    });
    assert_eq!(
        theirs,
        ("drop of boom".to_owned(), 4),
        "serde_json drops all four"
    );
    let mut diffs = Vec::new();
    for backend in common::backends() {
        let ours = drops(&|| {
            let r = catch_unwind(|| {
                Decoder::<BTreeMap<String, Loud>>::with_backend(backend).decode_str(doc)
            });
            message(&*r.expect_err("panics"))
        });
        if ours != theirs {
            diffs.push(format!("{backend:?}: {ours:?}"));
        }
    }
    assert!(
        diffs.is_empty(),
        "(payload, values dropped): serde_json {theirs:?}, jitson {}",
        diffs.join("; ")
    );
}

#[derive(Clone)]
struct PanickyDefaultHasher;

impl Default for PanickyDefaultHasher {
    fn default() -> Self {
        panic!("hasher default")
    }
}

impl BuildHasher for PanickyDefaultHasher {
    type Hasher = DefaultHasher;
    fn build_hasher(&self) -> DefaultHasher {
        DefaultHasher::new()
    }
}

/// Found by the review (fixed: the map is made at `{` again): serde_json calls the hasher's `Default` at `{`,
/// jitson now at `}`: a document that fails inside the map is an `Err` for
/// jitson where serde_json panics. Both backends.
#[test]
fn repro_hasher_default_runs_at_the_closing_brace() {
    let doc = r#"{"a":"x"}"#;
    let theirs =
        catch_unwind(|| serde_json::from_str::<HashMap<String, u8, PanickyDefaultHasher>>(doc));
    assert_eq!(
        message(&*theirs.expect_err("serde_json panics")),
        "hasher default"
    );
    let mut diffs = Vec::new();
    for backend in common::backends() {
        let ours = catch_unwind(|| {
            Decoder::<HashMap<String, u8, PanickyDefaultHasher>>::with_backend(backend)
                .decode_str(doc)
        });
        match ours {
            Err(p) if message(&*p) == "hasher default" => {}
            Err(p) => diffs.push(format!("{backend:?}: panic {}", message(&*p))),
            Ok(r) => diffs.push(format!("{backend:?}: {r:?}")),
        }
    }
    assert!(
        diffs.is_empty(),
        "serde_json panics with \"hasher default\"; jitson: {}",
        diffs.join("; ")
    );
}

// ---------------------------------------------------------------------------
// 10. Random trees of maps (serde_json::Value and typed), with repeats,
//     escapes, and random damage.

fn random_tree(rng: &mut Rng, depth: usize) -> String {
    let roll = rng.below(10);
    if depth == 0 || roll < 3 {
        return match rng.below(6) {
            0 => "null".into(),
            1 => int_value(rng),
            2 => format!("{}.5e{}", int_value(rng), rng.below(5)),
            3 => {
                let k = random_key(rng, 5);
                spell(rng, &k)
            }
            4 => "true".into(),
            _ => "[]".into(),
        };
    }
    if roll < 5 {
        let n = rng.below(5) as usize;
        let items: Vec<String> = (0..n).map(|_| random_tree(rng, depth - 1)).collect();
        return format!("[{}]", items.join(","));
    }
    let n = match rng.below(8) {
        0 => rng.below(60) as usize,
        _ => rng.below(7) as usize,
    };
    let members: Vec<(String, String)> = (0..n)
        .map(|_| (random_key(rng, 6), random_tree(rng, depth - 1)))
        .collect();
    object(rng, &members)
}

fn random_typed(rng: &mut Rng, depth: usize) -> String {
    // HashMap<String, BTreeMap<String, Vec<IndexMap<String, i32>>>>
    let level = |rng: &mut Rng, inner: &dyn Fn(&mut Rng) -> String| {
        let n = rng.below(9) as usize;
        let members: Vec<(String, String)> =
            (0..n).map(|_| (random_key(rng, 5), inner(rng))).collect();
        object(rng, &members)
    };
    let _ = depth;
    level(rng, &|rng| {
        level(rng, &|rng| {
            let k = rng.below(4) as usize;
            let items: Vec<String> = (0..k).map(|_| level(rng, &|rng| int_value(rng))).collect();
            format!("[{}]", items.join(","))
        })
    })
}

type Typed = HashMap<String, BTreeMap<String, Vec<IndexMap<String, i32>>>>;

#[test]
fn random_trees_and_damage() {
    let mut r = Report::default();
    let mut rng = Rng(0xDEAD_BEEF_1234_5678);
    for i in 0..1500 {
        let doc = if i % 2 == 0 {
            random_tree(&mut rng, 5)
        } else {
            random_typed(&mut rng, 0)
        };
        let mut variants = vec![doc.clone().into_bytes()];
        for _ in 0..4 {
            if doc.is_empty() {
                break;
            }
            let at = rng.below(doc.len() as u64) as usize;
            variants.push(doc.as_bytes()[..at].to_vec());
            let mut d = doc.clone().into_bytes();
            d[at] = b"\"\\{}[],:x1 \x00\xc3u"[rng.below(14) as usize];
            variants.push(d);
        }
        for d in variants {
            if i % 2 == 0 {
                agree_into::<serde_json::Value>(&mut r, &d);
                agree_into::<HashMap<String, serde_json::Value>>(&mut r, &d);
                agree_into::<BTreeMap<String, serde_json::Value>>(&mut r, &d);
            } else {
                agree_into::<Typed>(&mut r, &d);
                agree_into::<serde_json::Value>(&mut r, &d);
            }
        }
    }
    r.finish("random trees");
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Node {
    #[serde(default)]
    m: HashMap<String, Node>,
    #[serde(default)]
    b: BTreeMap<String, Vec<Node>>,
}

#[test]
fn deep_maps_on_a_small_stack() {
    run_isolated("child_deep_maps_on_a_small_stack");
}

#[test]
#[ignore = "run by deep_maps_on_a_small_stack in a child process"]
fn child_deep_maps_on_a_small_stack() {
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            for depth in [1_000usize, 100_000] {
                let open: String = (0..depth)
                    .map(|i| {
                        if i % 3 == 2 {
                            r#"{"b":{"k":["#.to_owned()
                        } else {
                            r#"{"m":{"x":"#.to_owned()
                        }
                    })
                    .collect();
                let close: String = (0..depth)
                    .rev()
                    .map(|i| if i % 3 == 2 { "]}}" } else { "}}" })
                    .collect();
                let doc = format!("{open}{{}}{close}");
                for backend in common::backends() {
                    let before = counted::live();
                    let e = Decoder::<Node>::with_backend(backend)
                        .disable_recursion_limit()
                        .decode_str(&doc)
                        .unwrap_err();
                    assert_eq!(e.kind(), jitson::ErrorKind::DepthLimit, "{backend:?}: {e}");
                    let e = Decoder::<serde_json::Value>::with_backend(backend)
                        .disable_recursion_limit()
                        .decode_str(&doc)
                        .unwrap_err();
                    assert_eq!(e.kind(), jitson::ErrorKind::DepthLimit, "{backend:?}: {e}");
                    let e = Decoder::<HashMap<String, serde_json::Value>>::with_backend(backend)
                        .decode_str(&doc)
                        .unwrap_err();
                    assert_eq!(e.kind(), jitson::ErrorKind::DepthLimit, "{backend:?}: {e}");
                    assert_eq!(counted::live(), before);
                }
            }
        })
        .unwrap()
        .join()
        .unwrap();
}
