//! Tiered execution: a small, bounded pool of background threads that compile types
//! while `Backend::Auto` serves them with the interpreter, so that no decode waits
//! for Cranelift (the JIT's compile of a large model takes milliseconds; sonic's
//! took ~70 ms per type, and a service with 3,000 types spent five minutes in its
//! `Pretouch`, bytedance/sonic#703). The JIT's cache (`jit.rs`) queues a job per
//! type, once; the job fills the type's once-cell, which is what switches later
//! decodes to the compiled code.
//!
//! The pool knows nothing of the JIT: it runs boxed jobs, first in first out, on at
//! most [`max_workers`] threads, started on demand and then kept (idle ones wait on
//! a condition variable). They are never joined: a process may exit while one is
//! compiling, which is safe because a job only writes to its own heap state and the
//! process-wide cache.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, OnceLock};

/// A unit of background work.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

struct Pool {
    state: Mutex<PoolState>,
    wake: Condvar,
}

#[derive(Default)]
struct PoolState {
    queue: VecDeque<Job>,
    /// Threads started.
    workers: usize,
    /// Threads waiting for a job.
    idle: usize,
    /// Why a worker could not be started, if one could not.
    spawn_error: Option<String>,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool {
        state: Mutex::new(PoolState::default()),
        wake: Condvar::new(),
    })
}

/// Background compile threads: half the cores, at least one, at most two (a
/// compile is single-threaded, and the pool must not compete with the service it
/// serves). Computed once: `available_parallelism` reads cgroup files on Linux,
/// tens of microseconds that a type's first decode must not pay.
pub(crate) fn max_workers() -> usize {
    static MAX: OnceLock<usize> = OnceLock::new();
    *MAX.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        (cores / 2).clamp(1, 2)
    })
}

/// Queues `job`; starts a worker if none is idle and the pool is below its bound.
/// Never blocks on a running job.
pub(crate) fn submit(job: Job) {
    let pool = pool();
    let mut state = pool.state.lock().unwrap_or_else(|p| p.into_inner());
    state.queue.push_back(job);
    // A busy worker takes the job when it is done: wake one only if one waits.
    let wake = state.idle > 0;
    // The first worker is started without asking for the bound (always at least
    // one): it computes the bound itself, off the caller's path.
    if state.idle == 0 && (state.workers == 0 || state.workers < max_workers()) {
        let spawned = std::thread::Builder::new()
            .name("jitson-compile".into())
            .spawn(work);
        match spawned {
            Ok(_) => state.workers += 1,
            // The job stays queued for a worker started later; until then the
            // interpreter serves the type. `stats()` shows the reason.
            Err(e) => state.spawn_error = Some(e.to_string()),
        }
    }
    drop(state);
    if wake {
        pool.wake.notify_one();
    }
}

/// A worker: runs queued jobs forever. A panicking job (a bug: compiles catch their
/// own panics) is contained so the worker survives.
fn work() {
    max_workers();
    let pool = pool();
    loop {
        let job = {
            let mut state = pool.state.lock().unwrap_or_else(|p| p.into_inner());
            loop {
                if let Some(job) = state.queue.pop_front() {
                    break job;
                }
                state.idle += 1;
                state = pool.wake.wait(state).unwrap_or_else(|p| p.into_inner());
                state.idle -= 1;
            }
        };
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
    }
}

/// The pool's state for `stats()`.
#[derive(Clone, Debug, Default)]
pub(crate) struct PoolStats {
    pub queued: usize,
    pub workers: usize,
    pub spawn_error: Option<String>,
}

pub(crate) fn stats() -> PoolStats {
    let state = pool().state.lock().unwrap_or_else(|p| p.into_inner());
    PoolStats {
        queued: state.queue.len(),
        workers: state.workers,
        spawn_error: state.spawn_error.clone(),
    }
}
