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
//! module's pages. Pages are never given back (generated code may run until
//! the process exits; a module that fails before it is finalized makes its
//! pages inaccessible). All of a module lies within [`REGION_RESERVE`] of
//! itself, inside the ±2 GiB reach of its 32-bit PC-relative calls.

use std::io;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// The process's range of code pages and the first page not yet taken.
struct Region {
    end: usize,
    next: AtomicUsize,
}

/// The process's region, reserved on first use; the error if the OS refused.
fn region() -> io::Result<&'static Region> {
    static REGION: OnceLock<Result<Region, String>> = OnceLock::new();
    REGION
        .get_or_init(|| {
            let mut size = REGION_RESERVE;
            let reservation = loop {
                match region::alloc(size, region::Protection::NONE) {
                    Ok(reservation) => break reservation,
                    Err(_) if size / 2 >= REGION_MIN => size /= 2,
                    Err(e) => return Err(format!("reserving the code region: {e}")),
                }
            };
            let start = reservation.as_ptr::<u8>() as usize;
            let end = start + reservation.len();
            // Code in the region may run until the process exits: never unmapped.
            std::mem::forget(reservation);
            Ok(Region {
                end,
                next: AtomicUsize::new(start),
            })
        })
        .as_ref()
        .map_err(|e| io::Error::other(e.clone()))
}

impl Region {
    /// Takes `len` bytes (whole pages) at the first page not yet taken.
    fn take(&self, len: usize) -> Option<usize> {
        self.next
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |next| {
                next.checked_add(len).filter(|&end| end <= self.end)
            })
            .ok()
    }

    /// Takes `len` bytes at `at` if `at` is the first page not yet taken (so
    /// a segment ending there grows in place).
    fn take_at(&self, at: usize, len: usize) -> bool {
        at.checked_add(len).is_some_and(|end| end <= self.end)
            && self
                .next
                .compare_exchange(at, at + len, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
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
            .map_err(io::Error::other)
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
        // The last segment, of this use and still open, grows in place if no
        // module took the pages after it.
        if let Some(last) = self.segments.last_mut()
            && last.usage == usage
            && !last.finalized
        {
            let at = last.used.next_multiple_of(align);
            let more = (at + size - last.len).next_multiple_of(page);
            let end = last.start + last.len;
            if region.take_at(end, more) {
                Self::make_writable(end, more)?;
                last.len += more;
                last.used = at + size;
                return Ok((last.start + at) as *mut u8);
            }
        }
        // New pages (a segment starts on a page, so any `align` up to a page holds).
        let len = size.max(1).next_multiple_of(page);
        let start = region
            .take(len)
            .ok_or_else(|| io::Error::other("the code region is full"))?;
        Self::make_writable(start, len)?;
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
        // The caller guarantees nothing runs from these pages any more; their
        // address space is not reused.
        for segment in self.segments.drain(..) {
            // SAFETY: this provider's own pages, no longer in use.
            let _ = unsafe {
                region::protect(
                    segment.start as *mut u8,
                    segment.len,
                    region::Protection::NONE,
                )
            };
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
                    // makes the new code visible to it.
                    unsafe {
                        wasmtime_internal_jit_icache_coherence::clear_cache(start.cast(), len)
                    }
                    .map_err(|e| ModuleError::Backend(anyhow_error(&e.to_string())))?;
                    region::Protection::READ_EXECUTE
                }
                Use::Data => region::Protection::READ_WRITE,
                Use::ReadOnly => region::Protection::READ,
            };
            // SAFETY: this provider's own pages, fully written; no other module
            // uses them.
            unsafe { region::protect(start, len, protection) }
                .map_err(|e| ModuleError::Backend(anyhow_error(&e.to_string())))?;
            segment.finalized = true;
        }
        wasmtime_internal_jit_icache_coherence::pipeline_flush_mt()
            .map_err(|e| ModuleError::Backend(anyhow_error(&e.to_string())))
    }
}

impl Drop for RegionMemory {
    fn drop(&mut self) {
        // A module dropped before it was finalized ran nothing: its pages are
        // made inaccessible. Finalized code may still run, so it stays.
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

    /// A region hands out its pages in order, grows a segment in place only at
    /// its first free page, and refuses what would pass its end (the "full"
    /// answer a compile turns into an error). Arithmetic only: no pages are
    /// touched.
    #[test]
    fn a_region_refuses_what_passes_its_end() {
        let page = 4096;
        let region = Region {
            end: 0x10_0000 + 4 * page,
            next: AtomicUsize::new(0x10_0000),
        };
        assert_eq!(region.take(page), Some(0x10_0000));
        assert_eq!(region.take(2 * page), Some(0x10_0000 + page));
        // Not the first free page: no growth in place.
        assert!(!region.take_at(0x10_0000 + page, page));
        assert!(region.take_at(0x10_0000 + 3 * page, page));
        assert_eq!(region.take(page), None, "full");
        assert!(!region.take_at(0x10_0000 + 4 * page, page), "full");
        assert!(!region.take_at(usize::MAX - 10, page), "no overflow");
        assert_eq!(region.take(usize::MAX), None, "no overflow");
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
