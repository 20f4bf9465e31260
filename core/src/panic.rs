//! The panic bridge: user code (a `Default` impl, a `default = "path"` function, a
//! `Drop` impl) may panic, but a panic must never unwind through a backend's frames
//! (the JIT's generated code has no unwind tables, and the layout functions are
//! `extern "C"`). So every call into user code goes through [`catch`], which stores
//! the payload in a thread-local slot and reports failure; the backend then cleans up
//! and returns an error with [`ErrorCode::Panicked`](crate::ErrorCode::Panicked), and
//! the facade calls [`resume`] once it is back in ordinary Rust frames.

use std::any::Any;
use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};

thread_local! {
    static PAYLOAD: RefCell<Option<Box<dyn Any + Send>>> = const { RefCell::new(None) };
}

/// Runs `f`; returns `false` if it panicked, after stashing the payload (the first
/// payload wins when several panics happen during one decode).
pub fn catch(f: impl FnOnce()) -> bool {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(()) => true,
        Err(payload) => {
            stash(payload);
            false
        }
    }
}

/// Stores a panic payload unless one is already stored.
pub fn stash(payload: Box<dyn Any + Send>) {
    PAYLOAD.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            *slot = Some(payload);
        }
    });
}

/// Whether a payload is waiting to be resumed.
#[inline]
pub fn is_pending() -> bool {
    PAYLOAD.with(|slot| slot.borrow().is_some())
}

/// Resumes the stashed panic, if any, in the caller's frames. Call only where
/// unwinding is allowed (ordinary Rust code, after the backend has returned).
pub fn resume() {
    if let Some(payload) = PAYLOAD.with(|slot| slot.borrow_mut().take()) {
        std::panic::resume_unwind(payload);
    }
}
