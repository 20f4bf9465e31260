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
//! The stack is a list of chunks. Chunk 0 is memory the decode lends from its
//! own frame ([`Elements::lend`], [`FirstChunk`]: a kibibyte, empty if nothing
//! was lent), so a decode whose vectors fit there never touches the thread's
//! cache; the chunks after it are allocated, and kept for the thread's next
//! decode. Pushing bumps `top` within the current chunk;
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

/// The bytes of [`FirstChunk`].
pub const FIRST_CHUNK_LEN: usize = 1 << 10;

/// Memory a decode lends its stack for chunk 0 ([`Elements::lend`]), on the
/// decode's own frame: uninitialised, aligned as allocated chunks are.
#[repr(C, align(64))]
pub struct FirstChunk(std::mem::MaybeUninit<[u8; FIRST_CHUNK_LEN]>);

impl FirstChunk {
    /// Room for a stack's first elements.
    #[inline(always)]
    pub fn new() -> FirstChunk {
        FirstChunk(std::mem::MaybeUninit::uninit())
    }
}

impl Default for FirstChunk {
    #[inline(always)]
    fn default() -> FirstChunk {
        FirstChunk::new()
    }
}

const _: () = assert!(align_of::<FirstChunk>() == CHUNK_ALIGN);

/// Where one chunk's memory is and how much of it is live.
#[derive(Debug)]
struct Region {
    start: *mut u8,
    size: usize,
    /// `top` when the stack last moved on from this chunk to the next: the end of
    /// the elements still live here.
    filled: *mut u8,
}

impl Region {
    /// No memory: the chunk 0 of a stack that was lent none.
    const NONE: Region = Region {
        start: std::ptr::null_mut(),
        size: 0,
        filled: std::ptr::null_mut(),
    };

    fn end(&self) -> *mut u8 {
        self.start.wrapping_add(self.size)
    }
}

/// One allocation of the stack (chunks 1 and up), freed when dropped.
#[derive(Debug)]
struct Chunk(Region);

impl Chunk {
    fn allocate(size: usize) -> Chunk {
        let layout = Layout::from_size_align(size, CHUNK_ALIGN)
            .unwrap_or_else(|_| std::alloc::handle_alloc_error(Layout::new::<u8>()));
        // SAFETY: `size` is at least `FIRST_CHUNK`, so the layout is not zero-sized.
        let start = unsafe { std::alloc::alloc(layout) };
        if start.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Chunk(Region {
            start,
            size,
            filled: start,
        })
    }
}

impl Drop for Chunk {
    fn drop(&mut self) {
        // SAFETY: `start` came from `alloc` with this very layout.
        unsafe {
            std::alloc::dealloc(
                self.0.start,
                Layout::from_size_align_unchecked(self.0.size, CHUNK_ALIGN),
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
    /// `top` then (null before the stack's first chunk, which only a stack
    /// lent no chunk 0 has).
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
    /// The index of the current chunk: 0 for the lent one, `i` for `chunks[i - 1]`.
    pub current: usize,
    /// Chunk 0: memory lent by the decode ([`Elements::lend`]), or none.
    lent: Region,
    /// Chunks 1 and up.
    chunks: Vec<Chunk>,
}

impl Default for Elements {
    #[inline]
    fn default() -> Elements {
        Elements {
            top: std::ptr::null_mut(),
            end: std::ptr::null_mut(),
            current: 0,
            lent: Region::NONE,
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
    /// first push beyond chunk 0 (a decode whose vectors fit in what it lent
    /// never touches the cache), and gives them back when the lease drops.
    #[inline]
    pub fn lease() -> Leased {
        Leased(Elements::default())
    }

    /// Makes `first` chunk 0 of this stack, which has pushed nothing yet: the
    /// first kibibyte of elements goes there, without an allocation or the
    /// thread's cache.
    ///
    /// # Safety
    /// `first` outlives every use of this stack (every push, mark and finish;
    /// dropping the stack does not touch it) and does not move meanwhile: the
    /// stack and the addresses it hands out point into it. No mark taken
    /// before the call is used after it (it would be read as chunk 1's start).
    #[inline]
    pub unsafe fn lend(&mut self, first: &mut FirstChunk) {
        assert!(
            self.top.is_null() && self.chunks.is_empty(),
            "chunk 0 is lent before the first push"
        );
        let start: *mut u8 = first.0.as_mut_ptr().cast();
        self.lent = Region {
            start,
            size: FIRST_CHUNK_LEN,
            filled: start,
        };
        self.current = 0;
        self.top = start;
        self.end = self.lent.end();
    }

    /// Chunk `index`'s memory.
    #[inline]
    fn chunk(&self, index: usize) -> &Region {
        match index.checked_sub(1) {
            None => &self.lent,
            Some(i) => &self.chunks[i].0,
        }
    }

    /// Chunk `index`'s memory, to note where its elements end.
    #[inline]
    fn chunk_mut(&mut self, index: usize) -> &mut Region {
        match index.checked_sub(1) {
            None => &mut self.lent,
            Some(i) => &mut self.chunks[i].0,
        }
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
            // The first push past chunk 0: adopt the thread's cached chunks
            // (none if another decode on this thread holds them, or the thread
            // is exiting). Swapped in place, as `Leased::give_back` puts them
            // back.
            let _ = CACHED.try_with(|cached| cached.swap(Cell::from_mut(&mut self.chunks)));
        }
        let index = if self.top.is_null() {
            // Nothing lent and nothing pushed: marks taken so far mean "before
            // the first chunk", which `mark_position` reads as chunk 1's start.
            1
        } else {
            let top = self.top;
            self.chunk_mut(self.current).filled = top;
            self.current + 1
        };
        let needed = size.saturating_add(align.saturating_sub(CHUNK_ALIGN));
        let fits = |chunk: &Chunk| chunk.0.size >= needed;
        if !self.chunks.get(index - 1).is_some_and(fits) {
            let previous = self.chunk(index - 1).size;
            let size = needed
                .max(previous.saturating_mul(2))
                .max(FIRST_CHUNK)
                .next_multiple_of(CHUNK_ALIGN);
            let chunk = Chunk::allocate(size);
            if index - 1 < self.chunks.len() {
                // Nothing above the current chunk is live: replace the small one.
                self.chunks[index - 1] = chunk;
            } else {
                self.chunks.push(chunk);
            }
        }
        let chunk = self.chunk(index);
        let (slot, end) = (align_up(chunk.start, align), chunk.end());
        self.current = index;
        self.top = slot.wrapping_add(size);
        self.end = end;
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
                self.chunk(chunk).filled
            };
            let here = ((end as usize).saturating_sub(from as usize) / size).min(remaining);
            if here > 0 {
                each(from, here);
            }
            remaining -= here;
            chunk += 1;
            if remaining > 0 {
                from = self.chunk(chunk).start;
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
    /// (before alignment): a mark taken before the first chunk (nothing was
    /// lent, so chunk 0 is empty) means chunk 1's start.
    fn mark_position(&self, mark: Mark) -> (usize, *mut u8) {
        if mark.top.is_null() {
            (1, self.chunks.first().map_or(mark.top, |c| c.0.start))
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
            self.chunk(mark.chunk).end()
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
            self.stack.chunk(self.chunk).filled
        };
        if (end as usize).saturating_sub(slot as usize) < self.size {
            // The vector moved on to the next chunk here.
            self.chunk += 1;
            slot = align_up(self.stack.chunk(self.chunk).start, self.align);
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
                kept += c.0.size;
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

// SAFETY: the raw pointers point into chunks the stack owns exclusively, and
// into the chunk lent to it, which `lend`'s caller keeps alive and in place for
// as long as the stack is used; moving the stack to another thread moves that
// use with it.
unsafe impl Send for Elements {}
// SAFETY: as for `Send`.
unsafe impl Send for Chunk {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `test` on a stack lent chunk 0 and on one lent nothing.
    fn both(test: impl Fn(&mut Elements)) {
        let mut first = FirstChunk::new();
        let mut stack = Elements::lease();
        // SAFETY: `first` outlives `stack` and stays where it is.
        unsafe { stack.lend(&mut first) };
        test(&mut stack);
        drop(stack);
        test(&mut Elements::lease());
    }

    /// Pushes `lens` nested vectors of u64 (each element a distinct number), the
    /// second inside the first's middle element, and checks the copies.
    #[test]
    fn nested_vectors_span_chunks_and_come_out_in_order() {
        both(nested_vectors);
    }

    fn nested_vectors(stack: &mut Elements) {
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
        assert_eq!(stack.current, 0);
    }

    #[test]
    fn odd_sizes_and_large_alignment() {
        both(odd_sizes);
    }

    fn odd_sizes(stack: &mut Elements) {
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
        both(larger_than_any_chunk);
    }

    fn larger_than_any_chunk(stack: &mut Elements) {
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

    /// A vector that begins in the lent chunk and goes on in chunk 1, with a
    /// vector nested in it on each side, copied out, visited by `addresses`
    /// and dropped by `discard`; then the stack is back in chunk 0.
    #[test]
    fn a_vector_leaving_the_lent_chunk() {
        both(leaving_chunk_0);
    }

    fn leaving_chunk_0(stack: &mut Elements) {
        let below = stack.push(8, 8);
        // SAFETY: room for a u64.
        unsafe { below.cast::<u64>().write(u64::MAX) };
        for round in 0..3u64 {
            let mark = stack.mark();
            let n = 2 * FIRST_CHUNK_LEN / 24; // twice what chunk 0 holds
            for i in 0..n as u64 {
                let slot = stack.push(24, 8);
                // SAFETY: room for three u64.
                unsafe { slot.cast::<[u64; 3]>().write([round, i, i * 3]) };
                if i == 3 || i == n as u64 - 3 {
                    let inner = stack.mark();
                    for j in 0..50u64 {
                        // SAFETY: room for a u64.
                        unsafe { stack.push(8, 8).cast::<u64>().write(j) };
                    }
                    let mut out = vec![0u64; 50];
                    // SAFETY: 50 u64 pushed since `inner`.
                    unsafe { stack.finish(inner, 50, 8, 8, out.as_mut_ptr().cast()) };
                    assert!(out.iter().enumerate().all(|(j, &v)| v == j as u64));
                }
            }
            let seen: Vec<[u64; 3]> = stack
                .addresses(mark, n, 24, 8)
                // SAFETY: each address holds an element written above.
                .map(|a| unsafe { a.cast::<[u64; 3]>().read() })
                .collect();
            let expected: Vec<[u64; 3]> = (0..n as u64).map(|i| [round, i, i * 3]).collect();
            assert_eq!(seen, expected);
            if round == 1 {
                // SAFETY: `n` elements of 24 bytes since `mark`, nothing to drop.
                assert!(unsafe { stack.discard(mark, n, 24, 8, None) });
            } else {
                let mut out = vec![[0u64; 3]; n];
                // SAFETY: as above; `out` has room for them.
                unsafe { stack.finish(mark, n, 24, 8, out.as_mut_ptr().cast()) };
                assert_eq!(out, expected);
            }
        }
        // SAFETY: the first push is still live below the popped vectors.
        assert_eq!(unsafe { below.cast::<u64>().read() }, u64::MAX);
    }
}
