//! Inline padding for elements and entries: large values while documents stay
//! small (the element stack's chunk boundaries, staged maps' entries).

use std::fmt::Debug;

/// `N` bytes held inline by a skipped field, filled with 0xA5 by `Default`;
/// compared byte by byte, so anything written over the value shows (its
/// `Debug` says `CORRUPTED`).
#[derive(PartialEq)]
pub struct Pad<const N: usize>(pub [u8; N]);

impl<const N: usize> Default for Pad<N> {
    fn default() -> Self {
        Pad([0xA5; N])
    }
}

impl<const N: usize> Debug for Pad<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.iter().all(|&b| b == 0xA5) {
            write!(f, "Pad<{N}>")
        } else {
            write!(f, "Pad<{N}> CORRUPTED")
        }
    }
}
