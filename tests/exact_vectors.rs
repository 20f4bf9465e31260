//! Vectors are allocated once, at their exact length (`jitson_core::elements`):
//! every backend's result holds `capacity == len` in every vector, a decode
//! allocates exactly the heap blocks its result owns, and a failure anywhere
//! (nested vectors spanning the element stack's chunks, a panicking `Drop`)
//! drops each element once and leaves the stack usable.
//!
//! Before, the JIT learned per-site capacity hints. A hostile review found that
//! one 8,192-element row in twenty made that result keep 8.5 times serde_json's
//! memory; `long_rows_among_short_ones_keep_nothing_spare` keeps the case.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use common::counted::{self, Counted, PanicDrop};
use jitson::{Decode, Decoder};

/// Counts this thread's allocations (tests run on several threads).
struct CountingAlloc;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards every call to `System` unchanged; only counts.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: as the caller guarantees.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as the caller guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: as the caller guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// The heap blocks a value owns, and whether every vector in it is exact.
trait Owned {
    fn blocks(&self) -> usize;
    fn exact(&self) -> bool;
}

impl Owned for u64 {
    fn blocks(&self) -> usize {
        0
    }
    fn exact(&self) -> bool {
        true
    }
}

impl Owned for () {
    fn blocks(&self) -> usize {
        0
    }
    fn exact(&self) -> bool {
        true
    }
}

impl Owned for String {
    fn blocks(&self) -> usize {
        usize::from(self.capacity() > 0)
    }
    fn exact(&self) -> bool {
        true
    }
}

impl<const N: usize> Owned for [u64; N] {
    fn blocks(&self) -> usize {
        0
    }
    fn exact(&self) -> bool {
        true
    }
}

impl<T: Owned> Owned for Vec<T> {
    fn blocks(&self) -> usize {
        usize::from(self.capacity() > 0 && size_of::<T>() > 0)
            + self.iter().map(Owned::blocks).sum::<usize>()
    }
    fn exact(&self) -> bool {
        self.capacity() == self.len() || size_of::<T>() == 0 && self.capacity() == usize::MAX
    }
}

#[derive(Debug, PartialEq, serde::Deserialize, jitson::Decode)]
struct Row {
    name: String,
    values: Vec<u64>,
    tags: Vec<Vec<String>>,
}

impl Owned for Row {
    fn blocks(&self) -> usize {
        self.name.blocks() + self.values.blocks() + self.tags.blocks()
    }
    fn exact(&self) -> bool {
        self.values.exact() && self.tags.exact() && self.tags.iter().all(Owned::exact)
    }
}

/// Rows whose vectors' lengths vary from 0 to past the element stack's first
/// chunk, nested three deep.
fn rows_document(count: usize) -> String {
    let rows: Vec<String> = (0..count)
        .map(|i| {
            let values = (0..(i * 37) % 2500)
                .map(|v| v.to_string())
                .collect::<Vec<_>>();
            let tags = (0..i % 4)
                .map(|t| format!("[{}]", vec![format!("\"t{t}\""); (i + t) % 5].join(",")))
                .collect::<Vec<_>>();
            format!(
                r#"{{"name":"row {i}","values":[{}],"tags":[{}]}}"#,
                values.join(","),
                tags.join(",")
            )
        })
        .collect();
    format!("[{}]", rows.join(","))
}

/// Decodes `doc` with every backend, twice (the first may compile); checks the
/// result against serde_json, every vector exact, and the second decode's
/// allocations equal to the blocks the result owns.
fn check_exact<T>(doc: &str)
where
    T: Decode + Owned + PartialEq + std::fmt::Debug + serde::de::DeserializeOwned,
{
    let serde: T = serde_json::from_str(doc).unwrap();
    for backend in common::backends() {
        let decoder = Decoder::<T>::with_backend(backend).tiering(jitson::Tiering::Wait);
        drop(decoder.decode_str(doc).unwrap());
        let before = ALLOCS.get();
        let value = decoder.decode_str(doc).unwrap();
        let allocs = ALLOCS.get() - before;
        assert_eq!(value, serde, "{}", backend.name());
        assert!(value.exact(), "{}: a vector is not exact", backend.name());
        assert_eq!(
            allocs,
            value.blocks(),
            "{}: allocations against owned blocks",
            backend.name()
        );
    }
}

#[test]
fn nested_vectors_of_every_length_are_exact_and_allocated_once() {
    check_exact::<Vec<Row>>(&rows_document(120));
    check_exact::<Vec<Vec<Vec<u64>>>>("[[[1,2,3],[]],[],[[4]],[[5,6],[7,8],[9]]]");
    // Large elements: a few per chunk.
    let big = format!(
        "[{}]",
        vec![format!("[{}]", vec!["7"; 32].join(",")); 600].join(",")
    );
    check_exact::<Vec<[u64; 32]>>(&big);
    // Zero-sized elements push nothing.
    check_exact::<Vec<()>>("[null,null,null]");
    check_exact::<Vec<Vec<()>>>("[[null],[],[null,null]]");
}

#[test]
fn long_rows_among_short_ones_keep_nothing_spare() {
    let rows: Vec<String> = (0..2000)
        .map(|i| {
            let len = if i % 20 == 0 { 8192 } else { 2 };
            format!("[{}]", vec!["1"; len].join(","))
        })
        .collect();
    check_exact::<Vec<Vec<u64>>>(&format!("[{}]", rows.join(",")));
}

/// Fails at `at` (an element that is not a string) inside nested vectors of
/// counted strings spanning several chunks; every backend must drop each built
/// element once and then decode the whole document.
#[test]
fn a_failure_deep_inside_drops_every_element_once() {
    let inner = |n: usize| format!("[{}]", vec!["\"x\""; n].join(","));
    let good: Vec<String> = (0..40).map(|i| inner(i * 53 % 700)).collect();
    let whole = format!("[{}]", good.join(","));
    for cut in [0, 1, 17, 39] {
        let mut bad = good.clone();
        bad[cut] = format!("[\"y\",{}]", "1");
        let doc = format!("[{}]", bad.join(","));
        for backend in common::backends() {
            let decoder = Decoder::<Vec<Vec<Counted>>>::with_backend(backend);
            assert!(decoder.decode_str(&doc).is_err(), "{}", backend.name());
            assert_eq!(counted::live(), 0, "{} cut at {cut}", backend.name());
            let value = decoder.decode_str(&whole).unwrap();
            assert!(value.iter().all(|v| v.capacity() == v.len()));
            drop(value);
            assert_eq!(counted::live(), 0, "{}", backend.name());
        }
    }
}

/// A `Drop` that panics while a failed vector's elements are dropped: the
/// panic reaches the caller, every other element is dropped, and the next
/// decode on the thread works.
#[test]
fn a_panicking_drop_among_discarded_elements() {
    let doc = r#"[["a","boom","c"],["d","boom"],["e",1]]"#;
    for backend in common::backends() {
        counted::arm_panic_drop(true);
        let decoder = Decoder::<Vec<Vec<PanicDrop>>>::with_backend(backend);
        let caught = std::panic::catch_unwind(|| decoder.decode_str(doc));
        counted::arm_panic_drop(false);
        assert!(
            caught.is_err(),
            "{}: the Drop's panic resumes",
            backend.name()
        );
        assert_eq!(counted::live(), 0, "{}", backend.name());
        let good = decoder.decode_str(r#"[["a"],["b","c"]]"#).unwrap();
        assert_eq!(good.iter().map(Vec::len).collect::<Vec<_>>(), [1, 2]);
        drop(good);
        assert_eq!(counted::live(), 0, "{}", backend.name());
    }
}
