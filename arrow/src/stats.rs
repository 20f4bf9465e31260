//! What jitson-arrow's compiled code has done in this process ([`stats`]),
//! and the bound on the writer's cache of compiled code.
//!
//! Compiled code for run-time schemas is freed with its last user: a
//! [`CompiledSchema`](crate::CompiledSchema)'s record function when the last
//! clone and the last decoder made from it are dropped; a writer's row
//! function when the last writer using it is dropped and the writer cache
//! (at most [`writer_cache_capacity`] schemas, least recently used out
//! first) no longer holds it. Freed code's pages go back to the OS and its
//! address space to later compiles (`jitson_jit::memory`), so a process
//! meeting schemas without end keeps the code of the schemas it holds and
//! of the cache's, no more. (Derived Rust types, compiled by the `jitson`
//! facade, keep their code for the life of the process: their number is
//! bounded by the program's types.)

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// Row writers kept compiled by default (see [`set_writer_cache_capacity`]).
pub const WRITER_CACHE_CAPACITY: usize = 64;

static WRITER_CAPACITY: AtomicUsize = AtomicUsize::new(WRITER_CACHE_CAPACITY);

/// How many schemas' compiled row writers the writer cache keeps (default
/// [`WRITER_CACHE_CAPACITY`]).
pub fn writer_cache_capacity() -> usize {
    WRITER_CAPACITY.load(Ordering::Relaxed)
}

/// Sets how many schemas' compiled row writers the writer cache keeps, the
/// least recently used leaving first (their code is freed once no writer
/// uses it); `0` keeps none, so every writer compiles its own. Takes effect
/// at once: a smaller bound evicts the excess now.
pub fn set_writer_cache_capacity(capacity: usize) {
    WRITER_CAPACITY.store(capacity, Ordering::Relaxed);
    #[cfg(feature = "jit")]
    crate::writer::trim_cache();
}

/// Registers `reclaimer`, run when the code region has no room for a new
/// compile (it drops compiled code it keeps but no one uses, and says
/// whether it dropped any); the compile is then tried again. For caches of
/// compiled schemas built on this crate (jitson-datafusion's); the writer's
/// own cache is registered already. A reclaimer runs on the compiling
/// thread and must not compile, nor wait for a lock held while compiling.
pub fn register_code_reclaimer(reclaimer: fn() -> bool) {
    #[cfg(feature = "jit")]
    jitson_jit::memory::register_reclaimer(reclaimer);
    #[cfg(not(feature = "jit"))]
    let _ = reclaimer;
}

/// Counters, all since the process started.
pub(crate) struct Counters {
    pub readers_compiled: AtomicU64,
    pub reader_fallbacks: AtomicU64,
    pub reader_compile_nanos: AtomicU64,
    pub writers_compiled: AtomicU64,
    pub writer_fallbacks: AtomicU64,
    pub writer_compile_nanos: AtomicU64,
    pub writer_cache_hits: AtomicU64,
    pub writer_cache_evictions: AtomicU64,
    pub writer_recompiles: AtomicU64,
    pub last_fallback: Mutex<Option<String>>,
}

pub(crate) static COUNTERS: Counters = Counters {
    readers_compiled: AtomicU64::new(0),
    reader_fallbacks: AtomicU64::new(0),
    reader_compile_nanos: AtomicU64::new(0),
    writers_compiled: AtomicU64::new(0),
    writer_fallbacks: AtomicU64::new(0),
    writer_compile_nanos: AtomicU64::new(0),
    writer_cache_hits: AtomicU64::new(0),
    writer_cache_evictions: AtomicU64::new(0),
    writer_recompiles: AtomicU64::new(0),
    last_fallback: Mutex::new(None),
};

impl Counters {
    /// Counts a compile that fell back to the interpreter, and why.
    #[cfg_attr(not(feature = "jit"), allow(dead_code))]
    pub(crate) fn fell_back(&self, counter: &AtomicU64, why: String) {
        counter.fetch_add(1, Ordering::Relaxed);
        *self.last_fallback.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
    }
}

/// What jitson-arrow's JIT has done in this process (see [`stats`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Schemas whose reader was compiled (`ReaderBuilder::compile` on the
    /// JIT), and their compile time in total.
    pub readers_compiled: u64,
    pub reader_compile_time: Duration,
    /// `Backend::Auto` readers that fell back to the interpreter because the
    /// compile failed (the region full, the OS refusing memory, ...).
    pub reader_fallbacks: u64,
    /// Row writers compiled (cache misses), their compile time in total, and
    /// `Backend::Auto` writers that fell back to the interpreter's encoders
    /// because the compile failed.
    pub writers_compiled: u64,
    pub writer_compile_time: Duration,
    pub writer_fallbacks: u64,
    /// Writers that found their schema's code in the writer cache.
    pub writer_cache_hits: u64,
    /// Schemas pushed out of the writer cache (by its bound, or to make room
    /// in a full code region), and schemas compiled again after being pushed
    /// out (counted for the last 16,384 pushed out).
    pub writer_cache_evictions: u64,
    pub writer_recompiles_after_eviction: u64,
    /// Schemas the writer cache holds now, and its bound.
    pub writer_cache_len: usize,
    pub writer_cache_capacity: usize,
    /// The last fallback's reason (the compile error).
    pub last_fallback: Option<String>,
    /// The process's code region: bytes held and given back, whether it was
    /// found full and whether the OS refused memory, with the reason.
    #[cfg(feature = "jit")]
    pub code: jitson_jit::memory::RegionStats,
}

/// A snapshot of jitson-arrow's [`Stats`].
pub fn stats() -> Stats {
    let c = &COUNTERS;
    let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
    Stats {
        readers_compiled: load(&c.readers_compiled),
        reader_compile_time: Duration::from_nanos(load(&c.reader_compile_nanos)),
        reader_fallbacks: load(&c.reader_fallbacks),
        writers_compiled: load(&c.writers_compiled),
        writer_compile_time: Duration::from_nanos(load(&c.writer_compile_nanos)),
        writer_fallbacks: load(&c.writer_fallbacks),
        writer_cache_hits: load(&c.writer_cache_hits),
        writer_cache_evictions: load(&c.writer_cache_evictions),
        writer_recompiles_after_eviction: load(&c.writer_recompiles),
        #[cfg(feature = "jit")]
        writer_cache_len: crate::writer::cache_len(),
        #[cfg(not(feature = "jit"))]
        writer_cache_len: 0,
        writer_cache_capacity: writer_cache_capacity(),
        last_fallback: c
            .last_fallback
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone(),
        #[cfg(feature = "jit")]
        code: jitson_jit::memory::stats(),
    }
}
