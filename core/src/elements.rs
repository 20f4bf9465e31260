//! The element stack: where both backends decode a `Vec`'s elements before the
//! vector exists, so that the vector is allocated once, at its exact length, when
//! its `]` is read (issue 10: allocs/op equal to the blocks the value owns).
//!
//! A vector whose length is not known in advance either grows as it goes (serde's
//! `Vec` visitor doubles: a vector of `n` elements costs about `log2 n`
//! allocations and copies) or is measured first. simdjson and simd-json measure:
//! their tape records each array's length before any value is built. jitson reads
//! the text once, so it stages instead: elements are decoded into this stack, and
//! at `]` copied into a `Vec` allocated for exactly their number. The copy is a
//! bitwise move (every Rust value may be moved by `memcpy`), and the stack's
//! memory is reused from one vector, and one decode, to the next.
//!
//! The stack is a list of chunks. Pushing bumps `top` within the current chunk;
//! an element that does not fit moves on to the next chunk (allocated, or reused
//! if large enough), so nothing already pushed ever moves: generated code holds
//! element addresses across nested decodes. Vectors nest strictly, so a vector's
//! elements are contiguous within each chunk it used: a nested vector's elements
//! lie above its parent's current element and are popped before the parent's next
//! element is pushed. Where a vector left a chunk is recorded in the chunk
//! (`filled`), which is all [`Elements::finish`] needs to copy the elements out in
//! order.
//!
//! Generated code addresses [`Elements::top`] and [`Elements::end`] by their
//! offsets (the struct is `repr(C)`) and calls [`Elements::grow`] and the other
//! methods through `extern "C"` helpers; no other field is touched from there.

use std::alloc::Layout;
use std::cell::Cell;

use crate::layout::{TypeLayout, VecLayout};

/// The smallest chunk, in bytes. Later chunks double, or fit one element.
const FIRST_CHUNK: usize = 16 << 10;

/// Chunk bytes kept for the next decode on the same thread; the rest is freed
/// when a decode ends.
const KEEP: usize = 1 << 20;

/// The alignment of every chunk (an element of larger alignment is aligned within
/// its chunk).
const CHUNK_ALIGN: usize = 64;

/// One allocation of the stack.
#[derive(Debug)]
struct Chunk {
    start: *mut u8,
    size: usize,
    /// `top` when the stack last moved on from this chunk to the next: the end of
    /// the elements still live here.
    filled: *mut u8,
}

impl Chunk {
    fn allocate(size: usize) -> Chunk {
        let layout = Layout::from_size_align(size, CHUNK_ALIGN)
            .unwrap_or_else(|_| std::alloc::handle_alloc_error(Layout::new::<u8>()));
        // SAFETY: `size` is at least `FIRST_CHUNK`, so the layout is not zero-sized.
        let start = unsafe { std::alloc::alloc(layout) };
        if start.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Chunk {
            start,
            size,
            filled: start,
        }
    }

    fn end(&self) -> *mut u8 {
        self.start.wrapping_add(self.size)
    }
}

impl Drop for Chunk {
    fn drop(&mut self) {
        // SAFETY: `start` came from `alloc` with this very layout.
        unsafe {
            std::alloc::dealloc(
                self.start,
                Layout::from_size_align_unchecked(self.size, CHUNK_ALIGN),
            )
        }
    }
}

/// Where a vector began on the stack: [`Elements::pop`] returns the stack to it.
/// Generated code keeps the two words in variables.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    /// The chunk that was current.
    pub chunk: usize,
    /// `top` then (null before the stack's first chunk).
    pub top: *mut u8,
}

/// The element stack of one decode (see the module docs). Obtain one with
/// [`Elements::lease`].
#[repr(C)]
#[derive(Debug)]
pub struct Elements {
    /// The next free byte of the current chunk (null before the first chunk).
    pub top: *mut u8,
    /// The end of the current chunk (null before the first chunk).
    pub end: *mut u8,
    /// The index of the current chunk in `chunks`.
    pub current: usize,
    chunks: Vec<Chunk>,
}

impl Default for Elements {
    #[inline]
    fn default() -> Elements {
        Elements {
            top: std::ptr::null_mut(),
            end: std::ptr::null_mut(),
            current: 0,
            chunks: Vec::new(),
        }
    }
}

thread_local! {
    /// The chunks of the thread's last decode's stack, emptied, for the next.
    static CACHED: Cell<Vec<Chunk>> = const { Cell::new(Vec::new()) };
}

/// `addr` rounded up to a multiple of `align` (a power of two).
fn align_up(addr: *mut u8, align: usize) -> *mut u8 {
    let misalign = (addr as usize).wrapping_neg() & (align - 1);
    addr.wrapping_add(misalign)
}

impl Elements {
    /// An empty stack for one decode. It takes the thread's cached chunks at its
    /// first push (a decode without vectors never touches the cache), and gives
    /// them back when the lease drops.
    #[inline]
    pub fn lease() -> Leased {
        Leased(Elements::default())
    }

    /// Where the next vector begins.
    #[inline]
    pub fn mark(&self) -> Mark {
        Mark {
            chunk: self.current,
            top: self.top,
        }
    }

    /// Room for one element of `size` bytes (not zero) aligned to `align`, pushed
    /// on the stack: the element's address.
    #[inline]
    pub fn push(&mut self, size: usize, align: usize) -> *mut u8 {
        let slot = align_up(self.top, align);
        let next = slot.wrapping_add(size);
        if next > self.end {
            return self.grow(size, align);
        }
        self.top = next;
        slot
    }

    /// [`Elements::push`] when the current chunk is full (or there is none yet):
    /// moves on to the next chunk, allocating it or replacing it with a larger one
    /// if needed, and pushes the element there.
    #[cold]
    pub fn grow(&mut self, size: usize, align: usize) -> *mut u8 {
        if self.chunks.is_empty() {
            // The first push of this lease: adopt the thread's cached chunks
            // (none if another decode on this thread holds them, or the thread
            // is exiting). Nothing is pushed yet, so `top` stays null: marks
            // taken so far mean "before the first chunk", as they did.
            // Swapped in place, as `Leased::give_back` puts them back.
            let _ = CACHED.try_with(|cached| cached.swap(Cell::from_mut(&mut self.chunks)));
        }
        let index = if self.top.is_null() {
            0
        } else {
            self.chunks[self.current].filled = self.top;
            self.current + 1
        };
        let needed = size.saturating_add(align.saturating_sub(CHUNK_ALIGN));
        let fits = |chunk: &Chunk| chunk.size >= needed;
        if !self.chunks.get(index).is_some_and(fits) {
            let previous = index.checked_sub(1).map_or(0, |i| self.chunks[i].size);
            let size = needed
                .max(previous.saturating_mul(2))
                .max(FIRST_CHUNK)
                .next_multiple_of(CHUNK_ALIGN);
            let chunk = Chunk::allocate(size);
            if index < self.chunks.len() {
                // Nothing above the current chunk is live: replace the small one.
                self.chunks[index] = chunk;
            } else {
                self.chunks.push(chunk);
            }
        }
        let chunk = &self.chunks[index];
        let slot = align_up(chunk.start, align);
        self.current = index;
        self.top = slot.wrapping_add(size);
        self.end = chunk.end();
        slot
    }

    /// Calls `each` with the address of each of the `n` elements of `size` bytes
    /// aligned to `align` that a vector pushed since `mark`, in order.
    fn for_each_segment(
        &self,
        mark: Mark,
        n: usize,
        size: usize,
        align: usize,
        mut each: impl FnMut(*mut u8, usize),
    ) {
        let mut remaining = n;
        let (mut chunk, mut from) = self.mark_position(mark);
        while remaining > 0 {
            from = align_up(from, align);
            let end = if chunk == self.current {
                self.top
            } else {
                self.chunks[chunk].filled
            };
            let here = ((end as usize).saturating_sub(from as usize) / size).min(remaining);
            if here > 0 {
                each(from, here);
            }
            remaining -= here;
            chunk += 1;
            if remaining > 0 {
                from = self.chunks[chunk].start;
            }
        }
    }

    /// The addresses of the `n` elements of `size` bytes (not zero) aligned to
    /// `align` pushed since `mark`, in order, without popping them: for a
    /// consumer that visits them one at a time wherever they lie (a map's
    /// entries dropped when it is left early), where [`Elements::finish`]
    /// copies them out in bulk and [`Elements::run`] finds them in one chunk.
    pub fn addresses(&self, mark: Mark, n: usize, size: usize, align: usize) -> Addresses<'_> {
        let (chunk, from) = self.mark_position(mark);
        Addresses {
            stack: self,
            chunk,
            at: from,
            remaining: n,
            size,
            align,
        }
    }

    /// The chunk and address where the elements pushed since `mark` begin
    /// (before alignment): a mark taken before the first chunk means the
    /// first chunk's start.
    fn mark_position(&self, mark: Mark) -> (usize, *mut u8) {
        if mark.top.is_null() {
            (0, self.chunks.first().map_or(mark.top, |c| c.start))
        } else {
            (mark.chunk, mark.top)
        }
    }

    /// The address of the first of the `n` elements (`n` > 0) of `size` bytes
    /// aligned to `align` pushed since `mark`, if they lie contiguously in one
    /// chunk (the common case: the vector never left its chunk); `None` if
    /// they span chunks. Nothing is popped.
    #[inline]
    pub fn run(&self, mark: Mark, n: usize, align: usize) -> Option<*mut u8> {
        let (chunk, from) = self.mark_position(mark);
        (chunk == self.current && n > 0).then(|| align_up(from, align))
    }

    /// Moves the `n` elements of `size` bytes (not zero) aligned to `align` pushed
    /// since `mark` to `out` (room for `n` of them), and pops them.
    ///
    /// # Safety
    /// The stack holds exactly `n` such elements pushed since `mark`, and `out`
    /// is valid for writing `n * size` bytes and does not overlap the stack.
    #[inline]
    pub unsafe fn finish(&mut self, mark: Mark, n: usize, size: usize, align: usize, out: *mut u8) {
        if let Some(first) = self.run(mark, n, align) {
            // SAFETY: the `n` elements lie contiguously from `first` (each push
            // aligns, and sizes are multiples of their alignment); `out` has
            // room for them.
            unsafe { std::ptr::copy_nonoverlapping(first, out, n * size) };
            self.pop(mark);
            return;
        }
        let mut written = 0;
        self.for_each_segment(mark, n, size, align, |from, count| {
            // SAFETY: `from` holds `count` initialised elements (the segments
            // are exactly the vector's elements), `out` has room for all `n`.
            unsafe { std::ptr::copy_nonoverlapping(from, out.add(written), count * size) };
            written += count * size;
        });
        self.pop(mark);
    }

    /// Drops the `n` elements pushed since `mark` with `drop` (if any) and pops
    /// them. Returns `false` if a `Drop` panicked (stashed; every element is
    /// dropped regardless).
    ///
    /// # Safety
    /// The stack holds exactly `n` initialised elements of `size` bytes (not zero)
    /// aligned to `align` pushed since `mark`, whose drop is `drop`.
    pub unsafe fn discard(
        &mut self,
        mark: Mark,
        n: usize,
        size: usize,
        align: usize,
        drop: Option<crate::layout::DropFn>,
    ) -> bool {
        let mut ok = true;
        if let Some(drop) = drop {
            self.for_each_segment(mark, n, size, align, |from, count| {
                for i in 0..count {
                    // SAFETY: element `i` of this segment is initialised and is
                    // dropped once; a panicking `Drop` is caught by `drop`.
                    ok &= unsafe { drop(from.add(i * size)) };
                }
            });
        }
        self.pop(mark);
        ok
    }

    /// The address for the next element of `elem`'s layout: pushed on the stack,
    /// or for a zero-sized type a dangling, aligned address (nothing pushed).
    #[inline]
    pub fn push_value(&mut self, elem: &TypeLayout) -> *mut u8 {
        if elem.size == 0 {
            return std::ptr::without_provenance_mut(elem.align);
        }
        self.push(elem.size, elem.align)
    }

    /// Writes to `dst` a vector, allocated for exactly `n` elements, of the `n`
    /// values of `elem` pushed (by [`Elements::push_value`]) since `mark`, and pops
    /// them. Aborts (`handle_alloc_error`) if the allocation fails, as `Vec`'s
    /// own growth does.
    ///
    /// # Safety
    /// The stack holds exactly `n` initialised values of `elem` pushed since
    /// `mark`; `vec` is the layout of a vector of `elem`; `dst` is room for it.
    pub unsafe fn finish_vec(
        &mut self,
        mark: Mark,
        n: usize,
        elem: &TypeLayout,
        vec: &VecLayout,
        dst: *mut u8,
    ) {
        // SAFETY: as the caller guarantees; `with_capacity` gives room for `n`.
        unsafe {
            let buffer = (vec.with_capacity)(dst, n);
            if buffer.is_null() {
                let size = elem.size.saturating_mul(n).max(1);
                std::alloc::handle_alloc_error(
                    Layout::from_size_align(size, elem.align).unwrap_or(Layout::new::<u8>()),
                );
            }
            if elem.size != 0 {
                self.finish(mark, n, elem.size, elem.align, buffer);
            }
            (vec.set_len)(dst, n);
        }
    }

    /// Drops the `n` values of `elem` pushed since `mark` and pops them. Returns
    /// `false` if a `Drop` panicked (stashed; every value is dropped regardless).
    ///
    /// # Safety
    /// The stack holds exactly `n` initialised values of `elem` pushed since
    /// `mark`.
    pub unsafe fn discard_vec(&mut self, mark: Mark, n: usize, elem: &TypeLayout) -> bool {
        if elem.size != 0 {
            // SAFETY: as the caller guarantees.
            return unsafe { self.discard(mark, n, elem.size, elem.align, elem.drop) };
        }
        let mut ok = true;
        if let Some(drop) = elem.drop {
            let dangling = std::ptr::without_provenance_mut(elem.align);
            for _ in 0..n {
                // SAFETY: a zero-sized value lives at any aligned address.
                ok &= unsafe { drop(dangling) };
            }
        }
        ok
    }

    /// Returns the stack to `mark`.
    #[inline]
    pub fn pop(&mut self, mark: Mark) {
        self.current = mark.chunk;
        self.top = mark.top;
        self.end = if mark.top.is_null() {
            std::ptr::null_mut()
        } else {
            self.chunks[mark.chunk].end()
        };
    }
}

/// The iterator of [`Elements::addresses`].
#[derive(Debug)]
pub struct Addresses<'a> {
    stack: &'a Elements,
    chunk: usize,
    /// The next element's address, before alignment.
    at: *mut u8,
    remaining: usize,
    size: usize,
    align: usize,
}

impl Iterator for Addresses<'_> {
    type Item = *mut u8;

    #[inline]
    fn next(&mut self) -> Option<*mut u8> {
        if self.remaining == 0 {
            return None;
        }
        let mut slot = align_up(self.at, self.align);
        // Where the elements left in this chunk end: as `for_each_segment`.
        let end = if self.chunk == self.stack.current {
            self.stack.top
        } else {
            self.stack.chunks[self.chunk].filled
        };
        if (end as usize).saturating_sub(slot as usize) < self.size {
            // The vector moved on to the next chunk here.
            self.chunk += 1;
            slot = align_up(self.stack.chunks[self.chunk].start, self.align);
        }
        self.at = slot.wrapping_add(self.size);
        self.remaining -= 1;
        Some(slot)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for Addresses<'_> {}

/// A leased [`Elements`]: dereferences to it, and gives it back to the thread's
/// cache (emptied, at most 1 MiB of chunks kept) when dropped. `repr(C)` with the
/// stack first, so generated code reaches the stack's fields at the lease's own
/// offsets.
#[repr(C)]
#[derive(Debug, Default)]
pub struct Leased(Elements);

impl Leased {
    /// The offset of [`Elements::top`] in a lease, in bytes.
    pub const TOP: usize = std::mem::offset_of!(Leased, 0.top);
    /// The offset of [`Elements::end`] in a lease, in bytes.
    pub const END: usize = std::mem::offset_of!(Leased, 0.end);
    /// The offset of [`Elements::current`] in a lease, in bytes.
    pub const CURRENT: usize = std::mem::offset_of!(Leased, 0.current);
}

impl std::ops::Deref for Leased {
    type Target = Elements;
    fn deref(&self) -> &Elements {
        &self.0
    }
}

impl std::ops::DerefMut for Leased {
    fn deref_mut(&mut self) -> &mut Elements {
        &mut self.0
    }
}

impl Drop for Leased {
    #[inline]
    fn drop(&mut self) {
        // A decode that pushed nothing never took the cache.
        if !self.0.chunks.is_empty() {
            self.give_back();
        }
    }
}

impl Leased {
    /// Returns the chunks to the thread's cache, emptied.
    #[inline(never)]
    fn give_back(&mut self) {
        let chunks = &mut self.0.chunks;
        // Keep at most `KEEP` bytes of chunks.
        let mut kept = 0usize;
        let keep = chunks
            .iter()
            .take_while(|c| {
                kept += c.size;
                kept <= KEEP
            })
            .count();
        chunks.truncate(keep);
        // Whichever of two lists (this one, one put back by a decode nested in
        // this one) has more chunks stays in the cache; the other is left here
        // and freed with the stack. The lists are swapped in place: moving
        // them through temporaries stalled every decode with a vector on a
        // store forwarded from two halves (`perf` of `profile user`).
        let _ = CACHED.try_with(|cached| {
            let mine = chunks.len();
            cached.swap(Cell::from_mut(chunks));
            if chunks.len() > mine {
                cached.swap(Cell::from_mut(chunks));
            }
        });
    }
}

// SAFETY: the raw pointers point into chunks the stack owns exclusively; moving
// the stack to another thread moves that ownership with it.
unsafe impl Send for Elements {}
// SAFETY: as for `Send`.
unsafe impl Send for Chunk {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pushes `lens` nested vectors of u64 (each element a distinct number), the
    /// second inside the first's middle element, and checks the copies.
    #[test]
    fn nested_vectors_span_chunks_and_come_out_in_order() {
        let mut stack = Elements::lease();
        let outer = stack.mark();
        let n = 5000; // 40 KB: spans the 16 KiB first chunk
        for i in 0..n {
            let slot = stack.push(8, 8);
            // SAFETY: `slot` is room for a u64.
            unsafe { slot.cast::<u64>().write(i as u64) };
            if i == n / 2 {
                let inner = stack.mark();
                for j in 0..3000u64 {
                    let slot = stack.push(8, 8);
                    // SAFETY: as above.
                    unsafe { slot.cast::<u64>().write(j * 7) };
                }
                let mut out = vec![0u64; 3000];
                // SAFETY: 3000 u64 pushed since `inner`; `out` has room.
                unsafe { stack.finish(inner, 3000, 8, 8, out.as_mut_ptr().cast()) };
                assert!(out.iter().enumerate().all(|(j, &v)| v == j as u64 * 7));
            }
        }
        let mut out = vec![0u64; n];
        // SAFETY: `n` u64 pushed since `outer`.
        unsafe { stack.finish(outer, n, 8, 8, out.as_mut_ptr().cast()) };
        assert!(out.iter().enumerate().all(|(i, &v)| v == i as u64));
        assert!(stack.top.is_null() || stack.current == 0);
    }

    #[test]
    fn odd_sizes_and_large_alignment() {
        let mut stack = Elements::lease();
        let byte = stack.push(1, 1);
        // SAFETY: room for a byte.
        unsafe { byte.write(0xAB) };
        let mark = stack.mark();
        for i in 0..600usize {
            let slot = stack.push(128, 128);
            assert_eq!(slot as usize % 128, 0);
            // SAFETY: room for 128 bytes.
            unsafe { slot.write_bytes(i as u8, 128) };
        }
        let mut out = vec![0u8; 600 * 128];
        // SAFETY: 600 elements of 128 bytes since `mark`.
        unsafe { stack.finish(mark, 600, 128, 128, out.as_mut_ptr()) };
        assert!(
            out.chunks(128)
                .enumerate()
                .all(|(i, c)| c.iter().all(|&b| b == i as u8))
        );
        // SAFETY: the byte is still live below the popped vector.
        assert_eq!(unsafe { byte.read() }, 0xAB);
    }

    #[test]
    fn an_element_larger_than_any_chunk() {
        let mut stack = Elements::lease();
        let mark = stack.mark();
        let big = 3 * FIRST_CHUNK + 8;
        for i in 0..3u8 {
            let slot = stack.push(big, 8);
            // SAFETY: room for `big` bytes.
            unsafe { slot.write_bytes(i, big) };
        }
        let mut out = vec![0u8; 3 * big];
        // SAFETY: three elements of `big` bytes since `mark`.
        unsafe { stack.finish(mark, 3, big, 8, out.as_mut_ptr()) };
        assert!(
            out.chunks(big)
                .enumerate()
                .all(|(i, c)| c.iter().all(|&b| b == i as u8))
        );
    }
}
