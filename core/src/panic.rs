//! The panic bridge: user code (a `Default` impl, a `default = "path"` function, a
//! `Drop` impl) may panic, but a panic must never unwind through a backend's frames
//! (the JIT's generated code has no unwind tables, and the layout functions are
//! `extern "C"`). So every call into user code goes through [`catch`], which stores
//! the payload in a thread-local slot and reports failure; the backend then cleans up
//! and returns an error with [`ErrorCode::Panicked`](crate::ErrorCode::Panicked), and
//! the facade calls [`resume`] once it is back in ordinary Rust frames.
//!
//! Two rules keep the slot from outliving a decode:
//!
//! - Each decode runs inside a [`Scope`]: entering it sets aside whatever an
//!   enclosing decode has pending (a decode run from a `Drop` during another
//!   decode), leaving it discards what this decode left unresumed and puts the
//!   enclosing one's back. So after any decode returns or unwinds, nothing of its
//!   own is pending.
//! - The slot holds a raw pointer in a `Cell`, which has no destructor, so the
//!   thread-local is never torn down: a decode run from another thread-local's
//!   destructor (when this thread's other thread-locals may already be gone) still
//!   finds it. Where the platform cannot provide it at all, a caught payload is
//!   dropped instead of stashed and the decode still fails cleanly.

use std::any::Any;
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// A caught panic's payload.
pub type Payload = Box<dyn Any + Send>;

thread_local! {
    /// The pending payload, as `Box::into_raw`; null when none. No destructor: see
    /// the module docs.
    static PAYLOAD: Cell<Option<*mut (dyn Any + Send)>> = const { Cell::new(None) };
}

/// Removes and returns the pending payload.
#[inline]
fn take() -> Option<Payload> {
    PAYLOAD
        .try_with(Cell::take)
        .ok()
        .flatten()
        // SAFETY: the slot only ever holds pointers from `Box::into_raw`, and
        // `take` leaves it empty, so each is turned back into a box exactly once.
        .map(|raw| unsafe { Box::from_raw(raw) })
}

/// Stores `payload` in an empty slot; hands it back if the slot is taken or gone.
fn put(payload: Payload) -> Result<(), Payload> {
    let raw = Box::into_raw(payload);
    let stored = PAYLOAD.try_with(|slot| {
        if slot.get().is_none() {
            slot.set(Some(raw));
            true
        } else {
            false
        }
    });
    if matches!(stored, Ok(true)) {
        Ok(())
    } else {
        // SAFETY: `raw` came from `Box::into_raw` above and was not stored.
        Err(unsafe { Box::from_raw(raw) })
    }
}

/// Drops a payload that will not be resumed. A payload whose own `Drop` panics is
/// leaked rather than allowed to unwind (as the standard library does for a
/// thread's panic payload).
fn discard(payload: Payload) {
    if let Err(inner) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        std::mem::forget(inner);
    }
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

/// Stores a panic payload unless one is already stored (then it is dropped).
pub fn stash(payload: Payload) {
    if let Err(payload) = put(payload) {
        discard(payload);
    }
}

/// Whether a payload is waiting to be resumed.
#[inline]
pub fn is_pending() -> bool {
    matches!(PAYLOAD.try_with(|slot| slot.get().is_some()), Ok(true))
}

/// Resumes the stashed panic, if any, in the caller's frames. Call only where
/// unwinding is allowed (ordinary Rust code, after the backend has returned).
pub fn resume() {
    if let Some(payload) = take() {
        std::panic::resume_unwind(payload);
    }
}

/// One decode's claim on the payload slot; see the module docs. Create it before the
/// backend runs and keep it until the decode has returned (or unwound).
#[must_use = "the scope ends when this value is dropped"]
pub struct Scope {
    /// What an enclosing decode had pending when this one began.
    outer: Option<Payload>,
}

impl Scope {
    /// Sets aside any payload pending from an enclosing decode.
    #[inline]
    pub fn enter() -> Scope {
        Scope { outer: take() }
    }
}

impl Drop for Scope {
    #[inline]
    fn drop(&mut self) {
        if let Some(left) = take() {
            discard(left);
        }
        if let Some(outer) = self.outer.take() {
            // The slot was just emptied, so this only fails where the thread-local
            // is unavailable; the payload is then dropped.
            stash(outer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panic_with(message: &'static str) -> bool {
        catch(|| std::panic::panic_any(message))
    }

    fn resumed() -> Option<&'static str> {
        catch_unwind(resume)
            .err()
            .map(|p| *p.downcast::<&'static str>().expect("a &str payload"))
    }

    #[test]
    fn first_payload_wins_and_resumes_once() {
        let _scope = Scope::enter();
        assert!(!panic_with("first"));
        assert!(!panic_with("second"));
        assert!(is_pending());
        assert_eq!(resumed(), Some("first"));
        assert!(!is_pending());
        assert_eq!(resumed(), None);
    }

    #[test]
    fn a_scope_discards_what_it_left_pending() {
        {
            let _scope = Scope::enter();
            assert!(!panic_with("left behind"));
        }
        assert!(!is_pending());
    }

    #[test]
    fn a_nested_scope_keeps_the_outer_payload() {
        let _outer = Scope::enter();
        assert!(!panic_with("outer"));
        {
            let _inner = Scope::enter();
            assert!(!is_pending(), "the inner decode starts clean");
            assert!(!panic_with("inner"));
            assert_eq!(resumed(), Some("inner"));
        }
        assert_eq!(resumed(), Some("outer"));
    }

    #[test]
    fn a_scope_unwound_through_restores_the_outer_payload() {
        let _outer = Scope::enter();
        assert!(!panic_with("outer"));
        let unwound = catch_unwind(|| {
            let _inner = Scope::enter();
            assert!(!panic_with("inner"));
            resume();
        });
        assert!(unwound.is_err());
        assert_eq!(resumed(), Some("outer"));
    }
}
