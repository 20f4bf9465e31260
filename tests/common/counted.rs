//! `Counted`: a string that counts live instances, for the tests that check
//! partial output is dropped exactly once on every error path.

use std::cell::Cell;

thread_local! {
    /// Per thread, so tests running in parallel do not disturb each other's counts
    /// (decoding and dropping happen on the caller's thread).
    static LIVE: Cell<isize> = const { Cell::new(0) };
    /// Whether a [`PanicDrop`] holding "boom" panics when dropped (per thread).
    static ARMED: Cell<bool> = const { Cell::new(true) };
}

/// Arms or disarms [`PanicDrop`] on this thread (armed by default).
pub fn arm_panic_drop(armed: bool) {
    ARMED.set(armed);
}

/// Whether [`PanicDrop`] is armed on this thread.
pub fn panic_drop_armed() -> bool {
    ARMED.get()
}

/// How many `Counted` values built by decoding on this thread are alive; a
/// negative count means one was dropped twice.
pub fn live() -> isize {
    LIVE.get()
}

/// A string that counts how many are alive: decoding, [`Counted::new`],
/// `Default` and serde's `Deserialize` create counted ones (so a test can compare
/// with serde_json and count both sides); building the tuple directly does not.
#[derive(Debug, PartialEq)]
pub struct Counted(pub String);

impl Counted {
    /// A counted value.
    pub fn new(s: &str) -> Counted {
        LIVE.set(LIVE.get() + 1);
        Counted(s.to_owned())
    }
}

impl Default for Counted {
    fn default() -> Counted {
        Counted::new("default")
    }
}

impl<'de> serde::Deserialize<'de> for Counted {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Counted, D::Error> {
        let s = String::deserialize(d)?;
        Ok(Counted::new(&s))
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        LIVE.set(LIVE.get() - 1);
    }
}

/// # Safety
/// `dst` is valid for a `Counted` write; the bytes are UTF-8.
unsafe extern "C" fn write_counted(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        let s = std::str::from_utf8_unchecked(std::slice::from_raw_parts(ptr, len));
        dst.cast::<Counted>().write(Counted::new(s));
    }
}

// SAFETY: `write_counted` writes a whole Counted; size, alignment and drop come from
// the type.
unsafe impl jitson::HasLayout for Counted {
    type Static = Self;
    const LAYOUT: &'static jitson::__private::TypeLayout =
        &jitson::__private::TypeLayout::of::<Counted>(
            "a string",
            jitson::__private::Kind::String(&jitson::__private::StringLayout {
                write: write_counted,
                read: None,
            }),
        );
}

// SAFETY: Counted owns its data.
unsafe impl<'de> jitson::DecodeBorrowed<'de> for Counted {}

/// A string whose `Drop` panics for "boom" while armed ([`arm_panic_drop`]),
/// counted through the `Counted` it holds (dropped after the panic unwinds out of
/// `drop`, so the count stays right).
#[derive(Debug, PartialEq)]
pub struct PanicDrop(pub Counted);

impl Drop for PanicDrop {
    fn drop(&mut self) {
        if self.0.0 == "boom" && ARMED.get() && !std::thread::panicking() {
            panic!("drop of boom");
        }
    }
}

/// # Safety
/// `dst` is valid for a `PanicDrop` write; the bytes are UTF-8.
unsafe extern "C" fn write_panic_drop(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        let s = std::str::from_utf8_unchecked(std::slice::from_raw_parts(ptr, len));
        dst.cast::<PanicDrop>().write(PanicDrop(Counted::new(s)));
    }
}

// SAFETY: `write_panic_drop` writes a whole PanicDrop; size, alignment and drop
// come from the type.
unsafe impl jitson::HasLayout for PanicDrop {
    type Static = Self;
    const LAYOUT: &'static jitson::__private::TypeLayout =
        &jitson::__private::TypeLayout::of::<PanicDrop>(
            "a string",
            jitson::__private::Kind::String(&jitson::__private::StringLayout {
                write: write_panic_drop,
                read: None,
            }),
        );
}

// SAFETY: PanicDrop owns its data.
unsafe impl<'de> jitson::DecodeBorrowed<'de> for PanicDrop {}
