//! Stack headroom: decoding recurses once per level of nesting in both backends,
//! and the depth limit alone cannot keep a decode within the thread's stack (a
//! level's frames grow with the types: a 4 KiB value held on the stack per level,
//! or a chain of `Option<Box<…>>` hops, each with frames of its own). So before
//! entering a decoded container, each backend also checks that the stack has room
//! for the level, and reports [`ErrorCode::StackExhausted`](crate::ErrorCode) (a
//! depth error) instead of overflowing.
//!
//! The room left is measured with the `stacker` crate (the thread's stack
//! bounds) and turned into a *limit*, an address the stack pointer must stay
//! above, which the thread keeps for its next decodes on the same stack
//! ([`limit`]); each check is then one comparison. Stacks
//! grow down on every target jitson's backends run on.

use crate::layout::{Kind, TypeLayout};

/// Stack kept free below every check for the frames that run before the next one:
/// one level's calls between containers, a slow path (the float parser, UTF-8
/// validation, building an error), drops. A level with values larger than this
/// reserves more ([`level_reserve`]).
pub const RED_ZONE: usize = 64 * 1024;

/// The lowest stack address this decode may reach before a container is refused,
/// measured from the caller's frame; 0 where the stack's bounds are unknown (then
/// only the depth limit applies).
///
/// The thread's last measurement is reused while the caller's frame lies
/// between that limit and the highest frame it was measured from: such a
/// frame is on the same stack, since another one (a segment `stacker::grow`
/// switches to, another thread's) is a mapping of its own, outside that
/// range. A measurement calls into `stacker` (a thread-local and the stack
/// pointer read by a function of `psm`): about 30 instructions, 1 % of a
/// small document's decode, where the reuse is a thread-local and two
/// compares.
#[inline]
pub fn limit() -> usize {
    #[cfg(not(miri))]
    {
        let here = position();
        if let Ok((limit, top)) = MEASURED.try_with(std::cell::Cell::get)
            && limit != 0
            && (limit..=top).contains(&here)
        {
            return limit;
        }
        measure(here)
    }
    #[cfg(miri)]
    0
}

#[cfg(not(miri))]
thread_local! {
    /// The thread's last stack limit (0: none yet) and the highest frame
    /// position it was measured or confirmed from.
    static MEASURED: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
}

/// [`limit`] measured from the frame at `here`, and remembered.
#[cfg(not(miri))]
#[cold]
fn measure(here: usize) -> usize {
    let Some(remaining) = stacker::remaining_stack() else {
        return 0;
    };
    let limit = here.saturating_sub(remaining).saturating_add(RED_ZONE);
    let _ = MEASURED.try_with(|measured| {
        let (last, top) = measured.get();
        // The same stack seen from a higher frame widens the range.
        let top = if last == limit { top.max(here) } else { here };
        measured.set((limit, top));
    });
    limit
}

/// The current stack position, approximately: the address of a local.
#[inline(always)]
pub fn position() -> usize {
    let marker = 0u8;
    std::ptr::from_ref(std::hint::black_box(&marker)).addr()
}

/// Whether a level that needs `reserve` bytes (see [`level_reserve`]) fits above
/// `limit`.
#[inline(always)]
pub fn has_room(limit: usize, reserve: usize) -> bool {
    position() >= limit.saturating_add(reserve)
}

/// Extra stack a level of `layout` (a struct, map, `Vec` or array being entered)
/// may need beyond the red zone: values are built in stack temporaries on the way
/// into place (an `Option`'s payload, a map's value), so twice the largest value
/// the level holds, counted only when that is a sizeable part of the red zone.
#[inline]
pub fn level_reserve(layout: &TypeLayout) -> usize {
    let held = match &layout.kind {
        Kind::Map(m) => m.value.get().size + m.key.get().size,
        Kind::Vec(v) => v.elem.get().size,
        _ => layout.size,
    };
    let largest = held.max(layout.size);
    if largest < RED_ZONE / 16 {
        0
    } else {
        2 * largest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_below_the_stack_pointer() {
        let limit = limit();
        if limit != 0 {
            assert!(has_room(limit, 0));
            assert!(!has_room(limit, usize::MAX / 2));
        }
    }

    #[test]
    fn deeper_frames_are_closer_to_the_limit() {
        fn nested(n: u32) -> usize {
            let pad = std::hint::black_box([0u8; 512]);
            if n == 0 {
                position()
            } else {
                nested(n - 1) + usize::from(pad[0])
            }
        }
        assert!(nested(64) < position());
    }
}
