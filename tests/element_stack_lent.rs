//! The element stack's chunk 0: each decode lends its stack a kibibyte of its
//! own frame (`FirstChunk`, `Elements::lend`), and only what does not fit
//! there goes on to the chunks allocated and kept per thread. Attacked
//! through every backend and tier, against serde_json: elements of every
//! alignment from 1 to 128 and of sizes around 1,024 bytes, at lengths around
//! chunk 0's end, from its start and from a few rows in; a first push bigger
//! than the kibibyte; a small element, then a big one that cannot follow it
//! there; inner vectors that leave chunk 0 and pop back into it while their
//! parent goes on there, and then leaves it itself; staged maps whose entries
//! straddle chunk 0's end; errors and panicking `Drop`s at every element
//! around it; decodes started inside a decode (`deserialize_with`, a `Drop`)
//! while the outer one is still in chunk 0 or already past it, each lending a
//! chunk 0 of its own while the thread's cached chunks go back and forth;
//! many threads; and a fresh thread whose decodes fit in chunk 0 never
//! allocating a chunk.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};

use common::counted::{self, Counted, PanicDrop};
use common::pad::Pad;
use common::string_kind::MISALIGNED;
use common::{Config, configs, decoder};
use indexmap::IndexMap;
use jitson::{Backend, Decode, Decoder};
use jitson_core::elements::FIRST_CHUNK_LEN;
use serde::Deserialize;
use serde::de::DeserializeOwned;

// ---------------------------------------------------------------------------
// Allocations of a chunk's size or more, per thread.

/// The smallest chunk the stack allocates after chunk 0.
const CHUNK: usize = 16 << 10;

struct ChunkProbe;

thread_local! {
    static BIG_ALLOCS: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    if size >= CHUNK {
        let _ = BIG_ALLOCS.try_with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: forwards every call to `System` unchanged; only counts.
unsafe impl GlobalAlloc for ChunkProbe {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: as the caller guarantees.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as the caller guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: as the caller guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: ChunkProbe = ChunkProbe;

// ---------------------------------------------------------------------------
// Checking.

fn excerpt(doc: &str) -> String {
    if doc.len() > 160 {
        let (mut head, mut tail) = (80, doc.len() - 60);
        while !doc.is_char_boundary(head) {
            head -= 1;
        }
        while !doc.is_char_boundary(tail) {
            tail += 1;
        }
        format!("{}…{} ({} bytes)", &doc[..head], &doc[tail..], doc.len())
    } else {
        doc.to_owned()
    }
}

/// Leaves this thread's cache holding three chunks (16, 32 and 64 KiB), so
/// that a vector leaving chunk 0 finds chunks 1 and up already there.
fn fill_the_cache() {
    let doc = elements::<u64>(7_000);
    let v = Decoder::<Vec<u64>>::with_backend(Backend::Interpreter).decode_str(&doc);
    assert_eq!(v.map(|v| v.len()).ok(), Some(7_000));
}

/// Decodes `doc` with every configuration, twice (the second time with the
/// thread's cache of chunks filled), through both entry points:
/// each gives serde_json's value, or fails where serde_json fails, as every
/// other configuration does (kind, offset, line, column, path; positions are
/// jitson's, docs/semantics.md). Nothing counted survives, and no string kind
/// was written misaligned.
fn agree<T: Decode + DeserializeOwned + PartialEq + Debug>(doc: &str) {
    let before = counted::live();
    let expected = serde_json::from_str::<T>(doc);
    let mut first_error: Option<(Config, common::ErrorShape)> = None;
    for c in configs() {
        let d = decoder::<T>(c);
        for round in 0..2 {
            if round == 1 {
                fill_the_cache();
            }
            for (entry, got) in [
                ("slice", d.decode_slice(doc.as_bytes())),
                ("str", d.decode_str(doc)),
            ] {
                let at = || format!("{c:?} round {round} {entry} on {}", excerpt(doc));
                match (&expected, got) {
                    (Ok(want), Ok(got)) => assert!(got == *want, "{}: value differs", at()),
                    (Err(_), Err(got)) => {
                        let shape = common::shape(&got);
                        match &first_error {
                            None => first_error = Some((c, shape)),
                            Some((fc, first)) => {
                                assert_eq!(first, &shape, "{fc:?} and {}", at())
                            }
                        }
                    }
                    (want, got) => panic!("{}: serde_json {want:?}, jitson {got:?}", at()),
                }
            }
        }
    }
    drop(expected);
    assert_eq!(
        counted::live(),
        before,
        "leak or double drop on {}",
        excerpt(doc)
    );
    assert_eq!(
        MISALIGNED.get(),
        0,
        "a misaligned element in {}",
        excerpt(doc)
    );
}

fn join(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(","))
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
        self.next() % n
    }
}

/// How many elements of `size` bytes aligned to `align` fit in chunk 0 when
/// the first goes `offset` bytes into it, and one either side.
fn around(size: usize, align: usize, offset: usize) -> [usize; 3] {
    let first = offset.next_multiple_of(align);
    let n = FIRST_CHUNK_LEN.saturating_sub(first) / size;
    [n.saturating_sub(1), n, n + 1]
}

// ---------------------------------------------------------------------------
// Elements: tags of each alignment, padded to sizes around the kibibyte.

/// An element's text for its `i`th instance.
trait Element: Decode + DeserializeOwned + PartialEq + Debug {
    fn json(i: usize) -> String;
}

impl Element for u8 {
    fn json(i: usize) -> String {
        (i % 256).to_string()
    }
}
impl Element for u16 {
    fn json(i: usize) -> String {
        (i * 31 % 65536).to_string()
    }
}
impl Element for u32 {
    fn json(i: usize) -> String {
        (i * 40_503).to_string()
    }
}
impl Element for u64 {
    fn json(i: usize) -> String {
        (i as u64 * 0x9E37_79B9).to_string()
    }
}
impl Element for Counted {
    fn json(i: usize) -> String {
        format!("\"c{i}\"")
    }
}
impl Element for () {
    fn json(_: usize) -> String {
        "null".to_owned()
    }
}

/// String kinds aligned to 16 to 128 bytes: their `write` counts a
/// destination that is not aligned (`MISALIGNED`).
macro_rules! aligned_tag {
    ($t:ident, $write:ident, $align:literal) => {
        #[derive(Debug, PartialEq)]
        #[repr(align($align))]
        struct $t(String);
        string_kind!($t, $write, |s: &str| $t(s.to_owned()));
        impl Element for $t {
            fn json(i: usize) -> String {
                format!("\"a{i}\"")
            }
        }
    };
}

aligned_tag!(A16, write_a16, 16);
aligned_tag!(A32, write_a32, 32);
aligned_tag!(A64, write_a64, 64);
aligned_tag!(A128, write_a128, 128);

/// An element of tag `$tag` padded to `$size` bytes (asserted).
macro_rules! padded {
    ($name:ident, $tag:ty, $size:literal) => {
        #[derive(Decode, Deserialize, Debug, PartialEq)]
        struct $name {
            t: $tag,
            #[serde(skip)]
            pad: Pad<{ $size - size_of::<$tag>() }>,
        }
        const _: () = assert!(size_of::<$name>() == $size);
        impl Element for $name {
            fn json(i: usize) -> String {
                format!(r#"{{"t":{}}}"#, <$tag as Element>::json(i))
            }
        }
    };
}

// Per alignment: a third of the kibibyte and a byte (two fit, a third would
// straddle its end), just under it, exactly it, just over it.
padded!(B342, u8, 342);
padded!(B1023, u8, 1023);
padded!(B1024, u8, 1024);
padded!(B1025, u8, 1025);
padded!(H342, u16, 342);
padded!(H1022, u16, 1022);
padded!(H1024, u16, 1024);
padded!(H1026, u16, 1026);
padded!(W344, u32, 344);
padded!(W1020, u32, 1020);
padded!(W1024, u32, 1024);
padded!(W1028, u32, 1028);
padded!(C344, Counted, 344);
padded!(C992, Counted, 992);
padded!(C1000, Counted, 1000);
padded!(C1016, Counted, 1016);
padded!(C1024, Counted, 1024);
padded!(C1032, Counted, 1032);
padded!(X352, A16, 352);
padded!(X1008, A16, 1008);
padded!(X1024, A16, 1024);
padded!(X1040, A16, 1040);
padded!(Y352, A32, 352);
padded!(Y992, A32, 992);
padded!(Y1024, A32, 1024);
padded!(Y1056, A32, 1056);
padded!(S384, A64, 384);
padded!(S960, A64, 960);
padded!(S1024, A64, 1024);
padded!(S1088, A64, 1088);
padded!(T384, A128, 384);
padded!(T896, A128, 896);
padded!(T1024, A128, 1024);
padded!(T1152, A128, 1152);
padded!(T2048, A128, 2048);

/// A small element holding a vector: 32 bytes, so its vector's elements
/// begin 32 bytes (or the element's alignment) above it.
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Row<X> {
    id: u32,
    v: Vec<X>,
}

const _: () = assert!(size_of::<Row<u8>>() == 32);

fn row<X: Element>(id: usize, n: usize) -> String {
    format!(r#"{{"id":{id},"v":{}}}"#, join((0..n).map(X::json)))
}

fn elements<X: Element>(n: usize) -> String {
    join((0..n).map(X::json))
}

/// `Vec<E>` at lengths around chunk 0's end from its start, and from one or
/// two rows in (the rows before the last with vectors that ended there too);
/// each also with its last element broken.
fn lengths_around_chunk_0<E: Element>() {
    let (size, align) = (size_of::<E>(), align_of::<E>());
    let mut lengths = vec![0, 1, 2, 3];
    lengths.extend(around(size, align, 0));
    lengths.sort_unstable();
    lengths.dedup();
    for &n in &lengths {
        let doc = elements::<E>(n);
        agree::<Vec<E>>(&doc);
        if n > 0 {
            agree::<Vec<E>>(&format!("{},[]]", &doc[..doc.len() - 1]));
        }
    }
    for rows in 1..=2 {
        let row_size = size_of::<Row<E>>();
        for n in around(size, align, rows * row_size)
            .into_iter()
            .chain([0, 1])
        {
            let before = around(size, align, rows * row_size)[1];
            let doc = join((0..rows).map(|r| row::<E>(r, if r + 1 == rows { n } else { before })));
            agree::<Vec<Row<E>>>(&doc);
            if n > 0 {
                agree::<Vec<Row<E>>>(&format!("{},{{}}]}}]", &doc[..doc.len() - 3]));
            }
        }
    }
}

#[test]
fn every_alignment_and_sizes_around_the_kibibyte() {
    lengths_around_chunk_0::<u8>();
    lengths_around_chunk_0::<B342>();
    lengths_around_chunk_0::<B1023>();
    lengths_around_chunk_0::<B1024>();
    lengths_around_chunk_0::<B1025>();
    lengths_around_chunk_0::<u16>();
    lengths_around_chunk_0::<H342>();
    lengths_around_chunk_0::<H1022>();
    lengths_around_chunk_0::<H1024>();
    lengths_around_chunk_0::<H1026>();
    lengths_around_chunk_0::<u32>();
    lengths_around_chunk_0::<W344>();
    lengths_around_chunk_0::<W1020>();
    lengths_around_chunk_0::<W1024>();
    lengths_around_chunk_0::<W1028>();
    lengths_around_chunk_0::<Counted>();
    lengths_around_chunk_0::<C344>();
    lengths_around_chunk_0::<C1016>();
    lengths_around_chunk_0::<C1024>();
    lengths_around_chunk_0::<C1032>();
    lengths_around_chunk_0::<A16>();
    lengths_around_chunk_0::<X352>();
    lengths_around_chunk_0::<X1008>();
    lengths_around_chunk_0::<X1024>();
    lengths_around_chunk_0::<X1040>();
    lengths_around_chunk_0::<A32>();
    lengths_around_chunk_0::<Y352>();
    lengths_around_chunk_0::<Y992>();
    lengths_around_chunk_0::<Y1024>();
    lengths_around_chunk_0::<Y1056>();
    lengths_around_chunk_0::<A64>();
    lengths_around_chunk_0::<S384>();
    lengths_around_chunk_0::<S960>();
    lengths_around_chunk_0::<S1024>();
    lengths_around_chunk_0::<S1088>();
    lengths_around_chunk_0::<A128>();
    lengths_around_chunk_0::<T384>();
    lengths_around_chunk_0::<T896>();
    lengths_around_chunk_0::<T1024>();
    lengths_around_chunk_0::<T1152>();
    lengths_around_chunk_0::<T2048>();
}

// ---------------------------------------------------------------------------
// Small, then big.

/// Vectors of small elements, then of big ones, as fields of one struct: the
/// big vector's first push is past chunk 0 (or exactly fills it) once the
/// small vector has been popped.
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct SmallThenBig {
    small: Vec<u8>,
    big: Vec<T1152>,
    exact: Vec<C1024>,
    rows: Vec<Row<C1000>>,
    tail: Vec<u16>,
}

#[test]
fn a_small_element_then_one_that_cannot_follow_it() {
    // One row of 32 bytes, then an element that fills the rest of chunk 0
    // exactly (992), one that cannot follow it (1000), one that only fits
    // alone (1024), and one that never fits (1032); rows around 32, where
    // the rows alone fill chunk 0 and the last row's vector begins at its end.
    for rows in [1, 2, 3, 30, 31, 32, 33, 34] {
        for n in [0, 1, 2] {
            let doc = |inner: &dyn Fn(usize, usize) -> String| {
                join((0..rows).map(|r| inner(r, if r + 1 == rows { n } else { r % 2 })))
            };
            agree::<Vec<Row<C992>>>(&doc(&row::<C992>));
            agree::<Vec<Row<C1000>>>(&doc(&row::<C1000>));
            agree::<Vec<Row<C1024>>>(&doc(&row::<C1024>));
            agree::<Vec<Row<C1032>>>(&doc(&row::<C1032>));
            agree::<Vec<Row<T896>>>(&doc(&row::<T896>));
            agree::<Vec<Row<()>>>(&doc(&row::<()>));
            // Broken in the last row's last element.
            let broken = doc(&row::<C1000>);
            agree::<Vec<Row<C1000>>>(&format!("{}7]}}]", &broken[..broken.len() - 3]));
        }
    }
    for (small, big, exact, rows) in [(0, 1, 1, 1), (1, 1, 2, 2), (1023, 2, 1, 0), (1024, 1, 0, 3)]
    {
        let doc = format!(
            r#"{{"small":{},"big":{},"exact":{},"rows":{},"tail":{}}}"#,
            elements::<u8>(small),
            elements::<T1152>(big),
            elements::<C1024>(exact),
            join((0..rows).map(|r| row::<C1000>(r, r + 1))),
            elements::<u16>(small / 2 + 1)
        );
        agree::<SmallThenBig>(&doc);
        agree::<Vec<SmallThenBig>>(&join([doc.clone(), doc.clone(), doc]));
    }
}

// ---------------------------------------------------------------------------
// Pops back into chunk 0.

/// A tree of rows: inner vectors that leave chunk 0 and pop back into it
/// while their parents go on there, and parents that leave it after.
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Node {
    id: u32,
    leaves: Vec<u64>,
    kids: Vec<Node>,
    names: Vec<Counted>,
}

fn node(rng: &mut Rng, depth: usize, id: &mut usize) -> String {
    // 127 to 129 leaves fill chunk 0's kibibyte on their own.
    const LENGTHS: [usize; 9] = [0, 0, 1, 3, 30, 127, 128, 129, 300];
    *id += 1;
    let leaves = LENGTHS[rng.below(LENGTHS.len() as u64) as usize];
    let kids = if depth == 0 {
        0
    } else {
        rng.below(12) as usize
    };
    let names = [0, 2, 43][rng.below(3) as usize];
    let this = *id;
    format!(
        r#"{{"id":{this},"leaves":{},"kids":{},"names":{}}}"#,
        elements::<u64>(leaves),
        join((0..kids).map(|_| node(rng, depth - 1, id))),
        elements::<Counted>(names)
    )
}

#[test]
fn inner_vectors_pop_back_into_chunk_0_under_their_parent() {
    let mut rng = Rng(0x5EED_0C0C);
    for round in 0..12 {
        let mut id = 0;
        let doc = node(&mut rng, 1 + round % 3, &mut id);
        agree::<Node>(&doc);
        // The same, broken at its last quote (a name's or a key's).
        if let Some(cut) = doc.rfind('"') {
            agree::<Node>(&format!("{}1{}", &doc[..cut], &doc[cut + 1..]));
        }
    }
    // Rows of u64 vectors: each row's vector overflows chunk 0 and pops
    // back; the rows go on in chunk 0 up to its end, and past it.
    for rows in [1, 2, 16, 31, 32, 33, 40] {
        for n in [127, 128, 129, 1000] {
            let doc = join((0..rows).map(|r| row::<u64>(r, if r % 2 == 0 { n } else { 1 })));
            agree::<Vec<Row<u64>>>(&doc);
            agree::<Vec<Vec<Row<u64>>>>(&join([doc.clone(), "[]".to_owned(), doc.clone()]));
        }
    }
}

// ---------------------------------------------------------------------------
// Staged maps.

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Maps {
    id: u32,
    b: BTreeMap<String, C1000>,
    h: HashMap<String, u64>,
    i: IndexMap<String, Counted>,
}

fn object<X: Element>(n: usize, key: &dyn Fn(usize) -> String) -> String {
    let members: Vec<String> = (0..n)
        .map(|i| format!("{:?}:{}", key(i), X::json(i)))
        .collect();
    format!("{{{}}}", members.join(","))
}

#[test]
fn staged_maps_straddling_chunk_0() {
    let plain = |i: usize| format!("k{i:03}");
    // Keys out of order, repeated, escaped.
    let mixed = |i: usize| match i % 5 {
        0 if i > 0 => format!("k{}", 999 - (i - 3)),
        1 => format!("z\u{e9}\n{i}"),
        _ => format!("k{}", 999 - i),
    };
    // Entries of 32 bytes (String and u64), 48 (String and Counted) and 1,024
    // (String and C1000), in maps of lengths around what chunk 0 holds.
    let (small, counted) = (size_of::<(String, u64)>(), size_of::<(String, Counted)>());
    for key in [&plain as &dyn Fn(usize) -> String, &mixed] {
        let lengths = around(small, 8, 0).into_iter().chain(around(counted, 8, 0));
        for n in lengths.chain([0, 1]) {
            let doc = object::<u64>(n, key);
            agree::<HashMap<String, u64>>(&doc);
            agree::<BTreeMap<String, u64>>(&doc);
            agree::<IndexMap<String, u64>>(&doc);
            let doc = object::<Counted>(n, key);
            agree::<BTreeMap<String, Counted>>(&doc);
            agree::<IndexMap<String, Counted>>(&doc);
            if n > 0 {
                // The last value broken: the staged entries are dropped.
                let broken = format!("{}[]}}", &doc[..doc.rfind(':').unwrap() + 1]);
                agree::<BTreeMap<String, Counted>>(&broken);
                agree::<HashMap<String, Counted>>(&broken);
                agree::<IndexMap<String, Counted>>(&broken);
            }
        }
        for n in 0..4 {
            let doc = object::<C1000>(n, key);
            agree::<BTreeMap<String, C1000>>(&doc);
            agree::<HashMap<String, C1000>>(&doc);
            agree::<IndexMap<String, C1000>>(&doc);
            if n > 0 {
                let broken = format!("{}{{\"t\":1}}}}", &doc[..doc.rfind(':').unwrap() + 1]);
                agree::<BTreeMap<String, C1000>>(&broken);
            }
        }
    }
    // Maps as elements of rows, beside vectors, each row's maps staged above
    // the rows in chunk 0 or past it.
    let maps = |r: usize| {
        format!(
            r#"{{"id":{r},"b":{},"h":{},"i":{}}}"#,
            object::<C1000>(r % 3, &plain),
            object::<u64>(r * 7 % 45, &mixed),
            object::<Counted>(r * 11 % 50, &plain)
        )
    };
    for rows in [1, 5, 12, 13, 30] {
        let doc = join((0..rows).map(maps));
        agree::<Vec<Maps>>(&doc);
        agree::<Vec<Maps>>(&format!("{}]", &doc[..doc.len() - 3]));
    }
}

// ---------------------------------------------------------------------------
// Errors and panics around the boundary.

#[test]
fn a_failure_at_every_element_around_chunk_0s_end() {
    // 42 counted strings fill chunk 0 (24 bytes each); each position near
    // there broken in turn, alone and under a row.
    let n = FIRST_CHUNK_LEN / size_of::<Counted>();
    for len in [n - 1, n, n + 1, n + 2] {
        for at in (n - 3..len).chain([0]) {
            let items = |bad: usize| {
                join((0..len).map(|i| {
                    if i == bad {
                        "7".to_owned()
                    } else {
                        Counted::json(i)
                    }
                }))
            };
            agree::<Vec<Counted>>(&items(at));
            agree::<Vec<Row<Counted>>>(&format!(r#"[{{"id":1,"v":{}}}]"#, items(at)));
        }
        // A trailing comma and a truncation just after chunk 0's end.
        let doc = elements::<Counted>(len);
        agree::<Vec<Counted>>(&format!("{},]", &doc[..doc.len() - 1]));
        agree::<Vec<Vec<Counted>>>(&format!("[{}", &doc[..doc.len() - 1]));
    }
}

/// A `PanicDrop` per element, "boom" at `at`, then an element that fails:
/// the discard panics, drops every other element once, and the thread's next
/// decode works.
#[test]
fn a_panicking_drop_on_either_side_of_chunk_0s_end() {
    let before = counted::live();
    // The second row's elements begin 64 bytes in.
    let n = (FIRST_CHUNK_LEN - 2 * size_of::<Row<PanicDrop>>()) / size_of::<PanicDrop>();
    for c in configs() {
        let d = decoder::<Vec<Row<PanicDrop>>>(c);
        for at in [0, n - 1, n, n + 1] {
            let doc = join((0..n + 3).map(|i| match i {
                _ if i == at => "\"boom\"".to_owned(),
                _ if i == n + 2 => "1".to_owned(),
                _ => "\"ok\"".to_owned(),
            }));
            let doc = format!(r#"[{{"id":0,"v":[]}},{{"id":1,"v":{doc}}}]"#);
            counted::arm_panic_drop(true);
            let r = catch_unwind(AssertUnwindSafe(|| d.decode_str(&doc).map(drop)));
            counted::arm_panic_drop(false);
            let payload = r.expect_err(&format!("{c:?} at {at}: no panic"));
            let text = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            assert!(text.contains("drop of boom"), "{c:?} at {at}: {text:?}");
            assert_eq!(counted::live(), before, "{c:?} at {at}");
            let fine = doc.replace("\"boom\"", "\"x\"").replace(",1]", ",\"y\"]");
            let v = d.decode_str(&fine).unwrap();
            assert_eq!(v[1].v.len(), n + 3, "{c:?} at {at}");
            drop(v);
            assert_eq!(counted::live(), before, "{c:?} at {at}");
        }
    }
    counted::arm_panic_drop(true);
}

// ---------------------------------------------------------------------------
// Decodes inside a decode.

thread_local! {
    static NESTED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    static WRONG: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Interpreter, JIT, `Auto`, in turn.
fn next_backend() -> Backend {
    let n = NESTED.get();
    NESTED.set(n + 1);
    let list = common::backends();
    list[n % list.len()]
}

/// A document of `n` leaves: within the inner decode's chunk 0 when small,
/// past it (taking the thread's cached chunks) when large.
fn leaves_doc(n: usize) -> String {
    join([elements::<u64>(n), elements::<u64>(n / 3)])
}

/// Decodes the string's text with jitson, and checks it against serde_json.
fn via_jitson<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Vec<u64>>, D::Error> {
    let text = String::deserialize(d)?;
    let ours = Decoder::<Vec<Vec<u64>>>::with_backend(next_backend())
        .decode_str(&text)
        .map_err(serde::de::Error::custom)?;
    if serde_json::from_str::<Vec<Vec<u64>>>(&text).ok().as_ref() != Some(&ours) {
        WRONG.set(WRONG.get() + 1);
    }
    Ok(ours)
}

/// As [`via_jitson`], two levels down: the text is of `Vec<Escape>`.
fn via_jitson_twice<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Escape>, D::Error> {
    let text = String::deserialize(d)?;
    let ours = Decoder::<Vec<Escape>>::with_backend(next_backend())
        .decode_str(&text)
        .map_err(serde::de::Error::custom)?;
    if serde_json::from_str::<Vec<Escape>>(&text).ok().as_ref() != Some(&ours) {
        WRONG.set(WRONG.get() + 1);
    }
    Ok(ours)
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct Escape {
    #[serde(deserialize_with = "via_jitson")]
    inner: Vec<Vec<u64>>,
    v: Vec<Counted>,
}

#[derive(Decode, Deserialize, Debug, PartialEq)]
struct EscapeTwice {
    #[serde(deserialize_with = "via_jitson_twice")]
    inner: Vec<Escape>,
    pad: Vec<C1000>,
}

/// A value whose `Drop` decodes (small or large documents), and checks.
#[derive(Decode, Deserialize, Debug, PartialEq)]
struct DropDecodes {
    n: u32,
}

impl Drop for DropDecodes {
    fn drop(&mut self) {
        let doc = leaves_doc(self.n as usize);
        match Decoder::<Vec<Vec<u64>>>::with_backend(next_backend()).decode_str(&doc) {
            Ok(v) if serde_json::from_str::<Vec<Vec<u64>>>(&doc).ok().as_ref() == Some(&v) => {}
            _ => WRONG.set(WRONG.get() + 1),
        }
    }
}

fn escape(doc: &str) -> String {
    serde_json::to_string(doc).unwrap()
}

#[test]
fn decodes_inside_a_decode_in_chunk_0_or_past_it() {
    WRONG.set(0);
    // Inner documents within their own chunk 0 (0 to 90 leaves) and past it
    // (130, 2000); outer rows few (the outer decode stays in chunk 0 until the
    // inner ones are done) or many (it leaves chunk 0 between them).
    let sizes = [0, 5, 90, 130, 2000];
    for rows in [1, 3, 20, 40] {
        let doc = join((0..rows).map(|r| {
            format!(
                r#"{{"inner":{},"v":{}}}"#,
                escape(&leaves_doc(sizes[r % sizes.len()])),
                elements::<Counted>(r % 4 * 20)
            )
        }));
        agree::<Vec<Escape>>(&doc);
        agree::<Vec<Escape>>(&format!(
            "{},{{\"inner\":\"[1]\",\"v\":[]}}]",
            &doc[..doc.len() - 1]
        ));
        // Two levels: an outer decode holding big elements in its chunk 1,
        // an inner one in chunk 0 or past it, an innermost one in either.
        let twice = join((0..3).map(|k| {
            format!(
                r#"{{"inner":{},"pad":{}}}"#,
                escape(&doc),
                elements::<C1000>(k)
            )
        }));
        agree::<Vec<EscapeTwice>>(&twice);
    }
    // `Drop`s that decode, run when a vector is discarded (a failure after
    // them) or when the value is dropped, the outer vector in chunk 0 or
    // past it.
    for len in [1, 3, 40, 120, 200] {
        let items = |bad: bool| {
            join((0..len).map(|i| {
                if bad && i + 1 == len {
                    r#"{"n":"x"}"#.to_owned()
                } else {
                    format!(r#"{{"n":{}}}"#, sizes[i % sizes.len()])
                }
            }))
        };
        agree::<Vec<DropDecodes>>(&items(false));
        agree::<Vec<DropDecodes>>(&items(true));
        agree::<Vec<Row<DropDecodes>>>(&format!(r#"[{{"id":1,"v":{}}}]"#, items(true)));
    }
    assert_eq!(WRONG.get(), 0, "a nested decode went wrong");
}

// ---------------------------------------------------------------------------
// Threads.

#[test]
fn many_threads_around_the_kibibyte() {
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            std::thread::spawn(move || {
                let mut rng = Rng(0xC0FF_EE00 + t);
                for _ in 0..6 {
                    let mut id = 0;
                    agree::<Node>(&node(&mut rng, 2, &mut id));
                    let n = rng.below(3) as usize;
                    agree::<Vec<Row<S1088>>>(&join((0..3).map(|r| row::<S1088>(r, n))));
                    agree::<Vec<T384>>(&elements::<T384>(rng.below(6) as usize));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

// ---------------------------------------------------------------------------
// What chunk 0 saves.

/// On a thread that has not decoded before (its cache of chunks empty),
/// decodes whose vectors fit in the lent kibibyte allocate no chunk; one
/// element more does.
#[test]
fn a_fresh_thread_whose_vectors_fit_allocates_no_chunk() {
    let fits = elements::<u64>(FIRST_CHUNK_LEN / 8);
    let nested = join((0..10).map(|i| elements::<u8>(i * 9)));
    let over = elements::<u64>(FIRST_CHUNK_LEN / 8 + 1);
    for c in configs() {
        // Compiled on this thread first.
        agree::<Vec<u64>>(&over);
        agree::<Vec<Vec<u8>>>(&nested);
        let (fits, nested, over) = (fits.clone(), nested.clone(), over.clone());
        std::thread::spawn(move || {
            let chunks = |decode: &dyn Fn()| {
                let before = BIG_ALLOCS.get();
                decode();
                BIG_ALLOCS.get() - before
            };
            for _ in 0..2 {
                let n = chunks(&|| {
                    assert_eq!(decoder::<Vec<u64>>(c).decode_str(&fits).unwrap().len(), 128)
                });
                assert_eq!(n, 0, "{c:?}: a chunk for 1 KiB of elements");
                let n = chunks(&|| {
                    assert_eq!(
                        decoder::<Vec<Vec<u8>>>(c)
                            .decode_str(&nested)
                            .unwrap()
                            .len(),
                        10
                    )
                });
                assert_eq!(n, 0, "{c:?}: a chunk for nested vectors that fit");
            }
            let n = chunks(&|| {
                assert_eq!(decoder::<Vec<u64>>(c).decode_str(&over).unwrap().len(), 129)
            });
            assert_eq!(n, 1, "{c:?}: one chunk for one element past chunk 0");
            let n = chunks(&|| {
                assert_eq!(decoder::<Vec<u64>>(c).decode_str(&over).unwrap().len(), 129)
            });
            assert_eq!(
                n, 0,
                "{c:?}: the chunk is kept for the thread's next decode"
            );
        })
        .join()
        .unwrap();
    }
}
