//! Where generated code lives: one range of address space reserved for the
//! whole process, from which every module (roots, the library of field
//! functions, encoders) takes whole pages in turn, as a linker lays out the
//! functions of a program in one text section.
//!
//! Why one range. Until 2026-12-02 each module had its own reservation
//! (cranelift-jit's `ArenaMemoryProvider`, 16 MiB each). The OS placed the
//! reservations next to each other, so every module began at the same
//! address modulo 16 MiB, and code in different modules shared the low 24
//! bits of its addresses. A root whose field functions came from two library
//! modules then decoded at two thirds of its speed (`User`: 1.08× serde_json
//! in the full `compare` run, 1.7× alone), and the slowdown followed whichever
//! modules were compiled before it. Giving each module a different start
//! modulo 16 MiB, with nothing else changed, restored 1.69× (and `Account`
//! 1.28× → 1.83×, GeoJSON 1.57× → 2.00×). Branch predictors index and tag
//! branches by low address bits, so hot branches at the same offset in two
//! modules can share their predictions; that is our reading of the numbers
//! (the VM they were measured on has no hardware counters to confirm it). In
//! one range no two bytes of code share their address modulo the range's size
//! (2^30 at the preferred [`REGION_RESERVE`], 2^24 at the least, [`REGION_MIN`]).
//!
//! A module's pages are its own: it writes them read-write while it compiles,
//! and [`finalize`](JITMemoryProvider::finalize) makes its code pages
//! read-execute and its read-only data read-only, never touching another
//! module's pages (W^X: no page is ever writable and executable at once). All
//! of a module lies within [`REGION_RESERVE`] of itself, inside the ±2 GiB
//! reach of its 32-bit PC-relative calls.
//!
//! # Giving pages back (issue 39)
//!
//! A module's pages are given back when its owner frees it
//! ([`free_memory`](JITMemoryProvider::free_memory): `Compiled`,
//! `CompiledEncoder` and `CompiledRows` do so when dropped, and their owners
//! drop them only when no thread can be running their code — see "Who may
//! free" below). Given-back pages are first made inaccessible (`PROT_NONE`:
//! a stale call faults rather than running whatever comes next), then their
//! memory is returned to the OS (`madvise(MADV_DONTNEED)` on Unix), and their
//! range joins the region's free list, merged with free neighbours (and with
//! the never-used tail, which then shrinks back). A module takes the smallest
//! free range that fits (best fit, lowest address among equals) before it
//! takes never-used pages, so a process compiling and dropping schemas
//! without end reuses the same few megabytes of address space and keeps only
//! its live modules' pages resident.
//!
//! Reuse keeps the property above: live modules never overlap, so no two
//! live bytes of code share their address modulo the region's size; and
//! since reuse keeps the live code packed at the region's start, live modules
//! meet at the same address modulo 16 MiB only once more than 16 MiB of code
//! is live at once (as before, when that much had ever been compiled).
//!
//! When the region is full (or too fragmented for a module), the allocation
//! runs the reclaimers registered with [`register_reclaimer`] (caches of
//! compiled code for run-time layouts drop the entries no one else holds),
//! and tries once more. [`stats`] counts both outcomes, and every refusal of
//! the OS with its reason, so a compile that fell back to the interpreter for
//! want of memory is never silent.
//!
//! # Who may free
//!
//! Freeing a module while a thread runs its code, or while a function pointer
//! into it may still be called, is a use after free of code. The rule: every
//! holder of a pointer into a module holds the module's owner (`Compiled`,
//! `CompiledEncoder`, `CompiledRows`), through an `Arc` where it is shared,
//! and calls through it only while it holds it. The library's modules (shared
//! functions of Rust types, called by address from other modules) are never
//! freed; they are bounded by the program's types. Run-time layouts
//! (jitson-arrow's schemas) never go to the library, so a run-time root's
//! module calls only itself and the library.

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use cranelift_jit::{BranchProtection, JITMemoryKind, JITMemoryProvider};
use cranelift_module::{ModuleError, ModuleResult};

/// Address space reserved for all generated code of the process, in bytes:
/// `PROT_NONE` until a module takes pages of it, so unused space costs address
/// space only. The whole twitter model is 195 KB of code (a module of a
/// ten-field struct, about 5 KB). Where the OS refuses that much (a process
/// under `ulimit -v`), half is asked for, and so on down to [`REGION_MIN`]. A
/// compile that finds the range full, or no range at all, fails, and its type
/// is decoded by the interpreter.
pub const REGION_RESERVE: usize = 1 << 30;

/// The smallest code region asked for, in bytes (see [`REGION_RESERVE`]).
pub const REGION_MIN: usize = 16 << 20;

/// The region's size asked for first: `JITSON_CODE_REGION=<MiB>` in the
/// environment (read once, when the region is reserved: at the process's
/// first compile), 1 to 1,024, bounds the code the process may hold at once;
/// otherwise, or for a value that is not such a number, [`REGION_RESERVE`].
/// A region that is full runs the reclaimers and then fails the compile,
/// which falls back to the interpreter and is counted in [`stats`].
fn region_size() -> usize {
    std::env::var("JITSON_CODE_REGION")
        .ok()
        .and_then(|mib| mib.trim().parse::<usize>().ok())
        .filter(|mib| (1..=REGION_RESERVE >> 20).contains(mib))
        .map_or(REGION_RESERVE, |mib| mib << 20)
}

/// The address space of a region: which ranges are free, by arithmetic alone
/// (no page is touched here; [`Region`] does that).
#[derive(Debug)]
struct Space {
    /// The region's first byte and the byte after it.
    start: usize,
    end: usize,
    /// The first page never taken, or given back with everything after it.
    next: usize,
    /// Ranges given back below `next`, by start: never adjacent to each other
    /// nor to `next` (they are merged).
    free: BTreeMap<usize, usize>,
    /// Bytes taken and not given back.
    taken: usize,
}

impl Space {
    fn new(start: usize, end: usize) -> Space {
        Space {
            start,
            end,
            next: start,
            free: BTreeMap::new(),
            taken: 0,
        }
    }

    /// Takes `len` bytes (whole pages): the smallest free range that fits
    /// (the lowest among equals), else the first pages never taken. The
    /// second value tells whether a free range was reused.
    fn take(&mut self, len: usize) -> Option<(usize, bool)> {
        let best = self
            .free
            .iter()
            .filter(|&(_, &l)| l >= len)
            .min_by_key(|&(&at, &l)| (l, at))
            .map(|(&at, &l)| (at, l));
        if let Some((at, l)) = best {
            self.free.remove(&at);
            if l > len {
                self.free.insert(at + len, l - len);
            }
            self.taken += len;
            return Some((at, true));
        }
        let end = self.next.checked_add(len).filter(|&end| end <= self.end)?;
        let at = self.next;
        self.next = end;
        self.taken += len;
        Some((at, false))
    }

    /// Takes `len` bytes at `at` if they are free (so a segment ending there
    /// grows in place): the first pages never taken, or the start of a free
    /// range long enough.
    fn take_at(&mut self, at: usize, len: usize) -> bool {
        let Some(end) = at.checked_add(len).filter(|&end| end <= self.end) else {
            return false;
        };
        if at == self.next {
            self.next = end;
        } else if let Some(&l) = self.free.get(&at)
            && l >= len
        {
            self.free.remove(&at);
            if l > len {
                self.free.insert(end, l - len);
            }
        } else {
            return false;
        }
        self.taken += len;
        true
    }

    /// Gives back `len` bytes at `at`, taken before: merged with free
    /// neighbours, and into the never-taken tail when it reaches it.
    fn give_back(&mut self, mut at: usize, mut len: usize) {
        debug_assert!(at >= self.start && at + len <= self.next);
        self.taken -= len;
        if let Some((&before, &l)) = self.free.range(..at).next_back()
            && before + l == at
        {
            self.free.remove(&before);
            at = before;
            len += l;
        }
        if let Some(l) = self.free.remove(&(at + len)) {
            len += l;
        }
        if at + len == self.next {
            self.next = at;
        } else {
            self.free.insert(at, len);
        }
    }
}

/// The process's range of code pages.
struct Region {
    space: Mutex<Space>,
}

/// Counters for [`stats`].
struct Counters {
    taken_segments: AtomicU64,
    given_back_segments: AtomicU64,
    given_back_bytes: AtomicU64,
    reused: AtomicU64,
    peak_taken: AtomicU64,
    full: AtomicU64,
    reclaim_retries: AtomicU64,
    reclaim_successes: AtomicU64,
    os_refused: AtomicU64,
    last_refusal: Mutex<Option<String>>,
}

static COUNTERS: Counters = Counters {
    taken_segments: AtomicU64::new(0),
    given_back_segments: AtomicU64::new(0),
    given_back_bytes: AtomicU64::new(0),
    reused: AtomicU64::new(0),
    peak_taken: AtomicU64::new(0),
    full: AtomicU64::new(0),
    reclaim_retries: AtomicU64::new(0),
    reclaim_successes: AtomicU64::new(0),
    os_refused: AtomicU64::new(0),
    last_refusal: Mutex::new(None),
};

/// Counts a refusal of the OS, keeping its reason, and passes it on.
fn refused(e: impl std::fmt::Display) -> io::Error {
    let reason = e.to_string();
    COUNTERS.os_refused.fetch_add(1, Ordering::Relaxed);
    *COUNTERS
        .last_refusal
        .lock()
        .unwrap_or_else(|p| p.into_inner()) = Some(reason.clone());
    io::Error::other(reason)
}

/// The process's region, reserved on first use; the error if the OS refused.
fn region() -> io::Result<&'static Region> {
    static REGION: OnceLock<Result<Region, String>> = OnceLock::new();
    REGION
        .get_or_init(|| {
            let mut size = region_size();
            let reservation = loop {
                match region::alloc(size, region::Protection::NONE) {
                    Ok(reservation) => break reservation,
                    Err(_) if size / 2 >= REGION_MIN.min(size) => size /= 2,
                    Err(e) => {
                        return Err(refused(format!("reserving the code region: {e}")).to_string());
                    }
                }
            };
            let start = reservation.as_ptr::<u8>() as usize;
            let end = start + reservation.len();
            // The region lives as long as the process: code in it may run
            // until the process exits, and given-back pages stay reserved
            // (`PROT_NONE`) for later modules.
            std::mem::forget(reservation);
            Ok(Region {
                space: Mutex::new(Space::new(start, end)),
            })
        })
        .as_ref()
        .map_err(|e| io::Error::other(e.clone()))
}

impl Region {
    fn space(&self) -> std::sync::MutexGuard<'_, Space> {
        // The space's arithmetic cannot panic halfway (checked adds, no
        // allocation failure it survives): a poisoned lock is consistent.
        self.space.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes `len` bytes (whole pages), reused or never taken; `None` when
    /// nothing fits.
    fn take(&self, len: usize) -> Option<usize> {
        let mut space = self.space();
        let (at, reused) = space.take(len)?;
        let taken = space.taken as u64;
        drop(space);
        COUNTERS.taken_segments.fetch_add(1, Ordering::Relaxed);
        COUNTERS.peak_taken.fetch_max(taken, Ordering::Relaxed);
        if reused {
            COUNTERS.reused.fetch_add(1, Ordering::Relaxed);
        }
        Some(at)
    }

    /// Takes `len` bytes at `at` if they are free.
    fn take_at(&self, at: usize, len: usize) -> bool {
        let mut space = self.space();
        let grown = space.take_at(at, len);
        let taken = space.taken as u64;
        drop(space);
        if grown {
            COUNTERS.peak_taken.fetch_max(taken, Ordering::Relaxed);
        }
        grown
    }

    /// Gives back `len` bytes at `start`, pages of one segment that no code
    /// runs from any more: inaccessible first, their memory returned to the
    /// OS, then free for later modules.
    ///
    /// # Safety
    /// The pages were taken from this region by the caller, and nothing runs
    /// from, reads or writes them any more.
    unsafe fn give_back(&self, start: usize, len: usize) {
        // SAFETY: the caller's pages, in the region, no longer in use.
        let _ = unsafe { region::protect(start as *mut u8, len, region::Protection::NONE) };
        #[cfg(unix)]
        // SAFETY: the range is whole pages of the region's private anonymous
        // mapping, in use by no one; their contents are not needed again (a
        // later module makes them writable and writes them first).
        unsafe {
            libc::madvise(start as *mut libc::c_void, len, libc::MADV_DONTNEED);
        }
        self.space().give_back(start, len);
        COUNTERS.given_back_segments.fetch_add(1, Ordering::Relaxed);
        COUNTERS
            .given_back_bytes
            .fetch_add(len as u64, Ordering::Relaxed);
    }
}

/// Something that can free compiled code it keeps but no one uses (a cache's
/// entries held by nothing else), returning whether it freed any.
pub type Reclaimer = fn() -> bool;

static RECLAIMERS: Mutex<Vec<Reclaimer>> = Mutex::new(Vec::new());

/// Registers `reclaimer` (once per function; registering it again does
/// nothing), to be run when the region has no room for a module: the
/// allocation then tries once more. A reclaimer runs on the compiling thread,
/// holding none of this module's locks; it must not compile, and must not
/// wait for a lock a compiling thread may hold.
pub fn register_reclaimer(reclaimer: Reclaimer) {
    let mut reclaimers = RECLAIMERS.lock().unwrap_or_else(|p| p.into_inner());
    if !reclaimers
        .iter()
        .any(|&r| std::ptr::fn_addr_eq(r, reclaimer))
    {
        reclaimers.push(reclaimer);
    }
}

/// Runs every reclaimer: whether any freed something.
fn reclaim() -> bool {
    let reclaimers = RECLAIMERS.lock().unwrap_or_else(|p| p.into_inner()).clone();
    // Every reclaimer runs, even after one freed something: a module that
    // did not fit may need several caches' room.
    reclaimers.iter().fold(false, |freed, r| r() | freed)
}

/// What the code region has done since the process started (see the module
/// docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RegionStats {
    /// Address space reserved for code, in bytes (0 before the first compile,
    /// or when the OS refused it).
    pub reserved: usize,
    /// Bytes of pages held by modules now (code, data and read-only data).
    pub taken: usize,
    /// The most ever held at once.
    pub peak_taken: usize,
    /// Address space in use or free below the never-used tail: the region's
    /// high-water mark, which reuse keeps near `taken`.
    pub span: usize,
    /// Ranges free below `span`, and their bytes.
    pub free_ranges: usize,
    pub free_bytes: usize,
    /// Page runs (a module has one to three) taken, and how many of them came
    /// from given-back pages.
    pub segments_taken: u64,
    pub segments_reused: u64,
    /// Page runs given back (their modules freed), and their bytes.
    pub segments_given_back: u64,
    pub bytes_given_back: u64,
    /// Allocations that found no room: the region was full (or too
    /// fragmented). Each ran the reclaimers and tried once more
    /// (`reclaim_retries`); `reclaim_successes` found room then. The others
    /// failed their compile, which fell back to the interpreter.
    pub region_full: u64,
    pub reclaim_retries: u64,
    pub reclaim_successes: u64,
    /// Requests the OS refused (reserving the region, making pages writable
    /// or executable), and the last one's reason.
    pub os_refused: u64,
    pub last_refusal: Option<String>,
}

/// A snapshot of the code region's [`RegionStats`].
pub fn stats() -> RegionStats {
    let (reserved, taken, span, free_ranges, free_bytes) = match region() {
        Ok(region) => {
            let space = region.space();
            (
                space.end - space.start,
                space.taken,
                space.next - space.start,
                space.free.len(),
                space.free.values().sum(),
            )
        }
        Err(_) => (0, 0, 0, 0, 0),
    };
    let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
    RegionStats {
        reserved,
        taken,
        peak_taken: load(&COUNTERS.peak_taken) as usize,
        span,
        free_ranges,
        free_bytes,
        segments_taken: load(&COUNTERS.taken_segments),
        segments_reused: load(&COUNTERS.reused),
        segments_given_back: load(&COUNTERS.given_back_segments),
        bytes_given_back: load(&COUNTERS.given_back_bytes),
        region_full: load(&COUNTERS.full),
        reclaim_retries: load(&COUNTERS.reclaim_retries),
        reclaim_successes: load(&COUNTERS.reclaim_successes),
        os_refused: load(&COUNTERS.os_refused),
        last_refusal: COUNTERS
            .last_refusal
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone(),
    }
}

/// What a segment's pages become when the module is finalized.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Use {
    Code,
    Data,
    ReadOnly,
}

/// Pages of one module taken together: `len` bytes from `start`, the first
/// `used` of them handed out.
#[derive(Debug)]
struct Segment {
    start: usize,
    len: usize,
    used: usize,
    usage: Use,
    finalized: bool,
}

impl Segment {
    /// Where `size` bytes aligned to `align` would start, if they fit.
    fn fit(&self, size: usize, align: usize) -> Option<usize> {
        let at = self.used.next_multiple_of(align);
        (!self.finalized && at + size <= self.len).then_some(at)
    }
}

/// A module's [`JITMemoryProvider`]: pages from the process's code region (see
/// the module docs). Create one per `JITModule`.
#[derive(Debug, Default)]
pub struct RegionMemory {
    segments: Vec<Segment>,
}

impl RegionMemory {
    /// A provider with no pages yet.
    ///
    /// # Errors
    /// When the OS refuses to reserve the region (it is reserved once per
    /// process, on the first call).
    pub fn new() -> io::Result<RegionMemory> {
        region()?;
        Ok(RegionMemory::default())
    }

    /// Makes `len` bytes at `start`, pages of this provider, read-write.
    fn make_writable(start: usize, len: usize) -> io::Result<()> {
        // SAFETY: the pages lie in the region and were taken by this provider
        // alone (`Region::take`); nothing else reads or runs them.
        unsafe { region::protect(start as *mut u8, len, region::Protection::READ_WRITE) }
            .map_err(refused)
    }
}

impl JITMemoryProvider for RegionMemory {
    fn allocate(&mut self, size: usize, align: u64, kind: JITMemoryKind) -> io::Result<*mut u8> {
        let page = region::page::size();
        let align = usize::try_from(align)
            .ok()
            .filter(|a| a.is_power_of_two() && *a <= page)
            .ok_or_else(|| io::Error::other(format!("alignment {align} is not supported")))?;
        let usage = match kind {
            JITMemoryKind::Executable => Use::Code,
            JITMemoryKind::Writable => Use::Data,
            JITMemoryKind::ReadOnly => Use::ReadOnly,
        };
        // Room in an open segment of this use.
        if let Some((segment, at)) = self
            .segments
            .iter_mut()
            .filter(|s| s.usage == usage)
            .find_map(|s| s.fit(size, align).map(|at| (s, at)))
        {
            segment.used = at + size;
            return Ok((segment.start + at) as *mut u8);
        }
        let region = region()?;
        // The last segment, of this use and still open, grows in place if the
        // pages after it are free.
        if let Some(last) = self.segments.last_mut()
            && last.usage == usage
            && !last.finalized
        {
            let at = last.used.next_multiple_of(align);
            let more = (at + size - last.len).next_multiple_of(page);
            let end = last.start + last.len;
            if region.take_at(end, more) {
                if let Err(e) = Self::make_writable(end, more) {
                    // SAFETY: just taken, never written nor run.
                    unsafe { region.give_back(end, more) };
                    return Err(e);
                }
                last.len += more;
                last.used = at + size;
                return Ok((last.start + at) as *mut u8);
            }
        }
        // New pages (a segment starts on a page, so any `align` up to a page holds).
        let len = size.max(1).next_multiple_of(page);
        let start = match region.take(len) {
            Some(start) => start,
            None => {
                // Full: what caches keep unused may make room.
                COUNTERS.full.fetch_add(1, Ordering::Relaxed);
                COUNTERS.reclaim_retries.fetch_add(1, Ordering::Relaxed);
                reclaim();
                let start = region.take(len).ok_or_else(|| {
                    io::Error::other(
                        "the code region is full (after freeing the code caches held unused)",
                    )
                })?;
                COUNTERS.reclaim_successes.fetch_add(1, Ordering::Relaxed);
                start
            }
        };
        if let Err(e) = Self::make_writable(start, len) {
            // SAFETY: just taken, never written nor run.
            unsafe { region.give_back(start, len) };
            return Err(e);
        }
        self.segments.push(Segment {
            start,
            len,
            used: size,
            usage,
            finalized: false,
        });
        Ok(start as *mut u8)
    }

    unsafe fn free_memory(&mut self) {
        let Ok(region) = region() else { return };
        for segment in self.segments.drain(..) {
            // SAFETY: this provider's own pages, taken from the region; the
            // caller guarantees nothing runs from them any more (see "Who may
            // free" in the module docs).
            unsafe { region.give_back(segment.start, segment.len) };
        }
    }

    fn finalize(&mut self, branch_protection: BranchProtection) -> ModuleResult<()> {
        if branch_protection != BranchProtection::None {
            // `build_isa` never enables BTI landing pads, so no module asks.
            return Err(ModuleError::Backend(anyhow_error(
                "branch protection is not supported by jitson's code region",
            )));
        }
        for segment in self.segments.iter_mut().filter(|s| !s.finalized) {
            let (start, len) = (segment.start as *mut u8, segment.len);
            let protection = match segment.usage {
                Use::Code => {
                    // SAFETY: the segment's pages are mapped and written; on
                    // targets whose instruction cache is not coherent this
                    // makes the new code visible to it (pages reused from a
                    // freed module included).
                    unsafe {
                        wasmtime_internal_jit_icache_coherence::clear_cache(start.cast(), len)
                    }
                    .map_err(|e| ModuleError::Backend(anyhow_error(&refused(e).to_string())))?;
                    region::Protection::READ_EXECUTE
                }
                Use::Data => region::Protection::READ_WRITE,
                Use::ReadOnly => region::Protection::READ,
            };
            // SAFETY: this provider's own pages, fully written; no other module
            // uses them.
            unsafe { region::protect(start, len, protection) }
                .map_err(|e| ModuleError::Backend(anyhow_error(&refused(e).to_string())))?;
            segment.finalized = true;
        }
        wasmtime_internal_jit_icache_coherence::pipeline_flush_mt()
            .map_err(|e| ModuleError::Backend(anyhow_error(&refused(e).to_string())))
    }
}

impl Drop for RegionMemory {
    fn drop(&mut self) {
        // A module dropped before it was finalized ran nothing: its pages go
        // back. A finalized module dropped without `free_memory` (the
        // library's are never dropped) may have handed out pointers that still
        // run, so its pages stay taken.
        if self.segments.iter().all(|s| !s.finalized) {
            // SAFETY: nothing runs from pages that were never finalized.
            unsafe { self.free_memory() };
        }
    }
}

/// A Cranelift module error's payload from a message.
fn anyhow_error(message: &str) -> anyhow::Error {
    anyhow::Error::msg(message.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A region hands out its pages in order, grows a segment in place only
    /// into free pages, and refuses what would pass its end (the "full"
    /// answer a compile turns into an error). Arithmetic only: no pages are
    /// touched.
    #[test]
    fn a_region_refuses_what_passes_its_end() {
        let page = 4096;
        let base = 0x10_0000;
        let mut space = Space::new(base, base + 4 * page);
        assert_eq!(space.take(page), Some((base, false)));
        assert_eq!(space.take(2 * page), Some((base + page, false)));
        // Not a free page: no growth in place.
        assert!(!space.take_at(base + page, page));
        assert!(space.take_at(base + 3 * page, page));
        assert_eq!(space.take(page), None, "full");
        assert!(!space.take_at(base + 4 * page, page), "full");
        assert!(!space.take_at(usize::MAX - 10, page), "no overflow");
        assert_eq!(space.take(usize::MAX), None, "no overflow");
        assert_eq!(space.taken, 4 * page);
    }

    /// Given-back ranges are reused, smallest fit first, merged with free
    /// neighbours, and the never-used tail shrinks back over them; after
    /// everything is given back the region is as new.
    #[test]
    fn given_back_ranges_are_reused_merged_and_shrink_the_tail() {
        let page = 4096;
        let base = 0x10_0000;
        let mut space = Space::new(base, base + 64 * page);
        let sizes = [1, 3, 1, 2, 1, 4];
        let taken: Vec<usize> = sizes
            .iter()
            .map(|&n| space.take(n * page).unwrap().0)
            .collect();
        assert_eq!(space.next, base + 12 * page);
        // Free the 3-page and the 2-page ranges: two holes.
        space.give_back(taken[1], 3 * page);
        space.give_back(taken[3], 2 * page);
        assert_eq!(space.free.len(), 2);
        // A 2-page module takes the 2-page hole (best fit), not the first.
        assert_eq!(space.take(2 * page), Some((taken[3], true)));
        // A 1-page module takes the start of the 3-page hole; 2 pages remain.
        assert_eq!(space.take(page), Some((taken[1], true)));
        assert_eq!(space.free.get(&(taken[1] + page)), Some(&(2 * page)));
        // Growth in place into a free range.
        assert!(space.take_at(taken[1] + page, page));
        assert_eq!(space.free.get(&(taken[1] + 2 * page)), Some(&page));
        // Nothing fits 5 pages below the tail: fresh pages.
        assert_eq!(space.take(5 * page), Some((base + 12 * page, false)));
        // Give everything back in a scrambled order: merged, tail back at the start.
        space.give_back(base + 12 * page, 5 * page);
        assert_eq!(space.next, base + 12 * page, "the tail shrinks back");
        for (at, len) in [
            (taken[5], 4 * page),
            (taken[0], page),
            (taken[3], 2 * page),
            (taken[1], 2 * page),
            (taken[2], page),
            (taken[4], page),
        ] {
            space.give_back(at, len);
            let mut last_end = 0;
            for (&s, &l) in &space.free {
                assert!(s > last_end, "free ranges are merged");
                assert!(s + l < space.next, "and never touch the tail");
                last_end = s + l;
            }
        }
        assert_eq!((space.next, space.taken, space.free.len()), (base, 0, 0));
    }

    /// A module's pages, freed, are reused by the next module (a churn of
    /// modules stays in the same address space), come back zeroed and
    /// writable, and are counted.
    #[test]
    fn freed_pages_are_reused_zeroed() {
        let page = region::page::size();
        let before = stats();
        let mut spans = Vec::new();
        for round in 0..50 {
            let mut module = RegionMemory::new().unwrap();
            let code = module
                .allocate(3 * page / 2, 16, JITMemoryKind::Executable)
                .unwrap();
            let data = module.allocate(100, 8, JITMemoryKind::ReadOnly).unwrap();
            for (ptr, len) in [(code, 3 * page / 2), (data, 100)] {
                // SAFETY: written before finalize, read-write, `len` bytes long.
                unsafe {
                    assert!(
                        std::slice::from_raw_parts(ptr, len).iter().all(|&b| b == 0),
                        "round {round}: reused pages come back zeroed"
                    );
                    std::ptr::write_bytes(ptr, 0xa5, len);
                }
            }
            module.finalize(BranchProtection::None).unwrap();
            spans.push(code as usize);
            // SAFETY: nothing runs from the module's pages.
            unsafe { module.free_memory() };
        }
        let after = stats();
        assert!(after.segments_given_back - before.segments_given_back >= 100);
        // Other tests compile concurrently, so the addresses may move, but
        // reuse (of a free range, or of the tail shrunk back) is the rule.
        spans.sort();
        spans.dedup();
        assert!(spans.len() < 50, "freed pages are reused: {spans:x?}");
    }

    /// Allocations of every use, size and alignment come out aligned, inside
    /// the region, writable until finalized, never overlapping, and a module's
    /// segments never share pages with another module's.
    #[test]
    fn allocations_are_aligned_disjoint_and_private_to_their_module() {
        let page = region::page::size();
        let mut modules = [RegionMemory::new().unwrap(), RegionMemory::new().unwrap()];
        let mut taken: Vec<(usize, usize, usize)> = Vec::new();
        for round in 0..200usize {
            let which = round % 2;
            let size = [1, 7, 64, 100, page - 1, page, page + 1, 3 * page][round % 8];
            let align = 1usize << (round % 7);
            let kind = match round % 3 {
                0 => JITMemoryKind::Executable,
                1 => JITMemoryKind::Writable,
                _ => JITMemoryKind::ReadOnly,
            };
            let ptr = modules[which].allocate(size, align as u64, kind).unwrap();
            let at = ptr as usize;
            assert_eq!(at % align, 0);
            // SAFETY: the block was just handed out, read-write, `size` bytes long.
            unsafe { std::ptr::write_bytes(ptr, 0xa5, size) };
            for &(other, len, owner) in &taken {
                assert!(at + size <= other || other + len <= at, "overlap");
                if owner != which {
                    assert_ne!(at / page, other / page, "pages shared between modules");
                    assert_ne!((at + size - 1) / page, (other + len - 1) / page);
                }
            }
            taken.push((at, size, which));
        }
        for module in &mut modules {
            module.finalize(BranchProtection::None).unwrap();
        }
        // Finalized pages stay readable.
        for &(at, size, _) in &taken {
            // SAFETY: finalized pages are readable (code, data or read-only).
            assert_eq!(unsafe { *((at + size - 1) as *const u8) }, 0xa5);
        }
    }
}
