//! The decode counts of [`stats()`](crate::stats), kept per thread: counting a
//! decode is a load and a store on a cache line only its own thread writes.
//! A process-wide atomic took a locked add per decode (about 2 % of a 140-byte
//! `User` decode on 2026-12-02, and one cache line every decoding thread of a
//! service would contend for).
//!
//! Each thread registers its counts on its first decode; `stats()` sums the
//! live threads' counts and those of threads that have exited, which fold
//! theirs into the total as they exit. A thread's own decodes are in any
//! `stats()` it takes afterwards; another thread's, once something orders the
//! two (a join, a channel).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Which count a decode adds to.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Count {
    /// A decode the interpreter ran.
    Interpreter = 0,
    /// A decode compiled code ran.
    Jit = 1,
}

/// One thread's counts, indexed by [`Count`]; only that thread writes them.
#[derive(Default)]
struct Counts([AtomicU64; 2]);

/// Every live thread's counts, and the totals of the threads that exited.
struct Registry {
    live: Vec<Arc<Counts>>,
    exited: [u64; 2],
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    live: Vec::new(),
    exited: [0; 2],
});

/// The registry; a panic elsewhere while it was held left it consistent (each
/// change is one push, one removal or one addition), so poisoning is ignored.
fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

/// The calling thread's registered counts; folded into the totals when the
/// thread exits.
struct Local(Arc<Counts>);

impl Local {
    fn register() -> Local {
        let counts = Arc::<Counts>::default();
        registry().live.push(Arc::clone(&counts));
        Local(counts)
    }
}

impl Drop for Local {
    fn drop(&mut self) {
        let mut registry = registry();
        registry.live.retain(|c| !Arc::ptr_eq(c, &self.0));
        for (total, count) in registry.exited.iter_mut().zip(&self.0.0) {
            *total += count.load(Ordering::Relaxed);
        }
    }
}

thread_local! {
    static LOCAL: Local = Local::register();
}

/// Counts one decode of kind `which` on the calling thread.
#[inline]
pub(crate) fn count(which: Count) {
    let counted = LOCAL.try_with(|local| {
        let count = &local.0.0[which as usize];
        // Only this thread writes it: no read-modify-write needed.
        count.store(count.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    });
    if counted.is_err() {
        // The thread's counts are already folded (a decode from another
        // thread-local's destructor): add to the totals directly.
        registry().exited[which as usize] += 1;
    }
}

/// The process's decode counts so far, indexed by [`Count`].
pub(crate) fn totals() -> [u64; 2] {
    let registry = registry();
    let mut totals = registry.exited;
    for counts in &registry.live {
        for (total, count) in totals.iter_mut().zip(&counts.0) {
            *total += count.load(Ordering::Relaxed);
        }
    }
    totals
}
