//! Types that capture or discard JSON without a fixed shape.

use crate::decode::{HasLayout, owned};
use crate::layout::{Kind, StringLayout, TypeLayout};

/// Any valid JSON value, captured as owned text.
///
/// The text is exactly the bytes of the value in the input, without the whitespace
/// around it (as serde_json's `RawValue`); it was validated when captured (strings
/// are checked for escapes, surrogates and UTF-8 like any other string).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct RawValue {
    text: Box<str>,
}

impl RawValue {
    /// The JSON text of the value.
    pub fn get(&self) -> &str {
        &self.text
    }

    /// The JSON text, owned.
    pub fn into_string(self) -> String {
        self.text.into_string()
    }

    /// A value holding `text`, which the caller knows to be one valid JSON value.
    #[cfg(feature = "serde")]
    pub(crate) fn from_text(text: &str) -> RawValue {
        RawValue { text: text.into() }
    }
}

impl core::fmt::Debug for RawValue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("RawValue").field(&&*self.text).finish()
    }
}

impl core::fmt::Display for RawValue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.text)
    }
}

/// # Safety
/// `dst` is valid for a `RawValue` write; `ptr[..len]` is valid UTF-8.
unsafe extern "C" fn write_raw(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: the caller passes UTF-8 bytes it owns for the call, and room for a RawValue.
    unsafe {
        let text = core::str::from_utf8_unchecked(core::slice::from_raw_parts(ptr, len));
        dst.cast::<RawValue>().write(RawValue { text: text.into() });
    }
}

/// # Safety
/// `src` points to a live `RawValue`; `len` is valid for writes.
unsafe extern "C" fn read_raw(src: *const u8, len: *mut usize) -> *const u8 {
    // SAFETY: as the caller guarantees.
    unsafe {
        let text = (*src.cast::<RawValue>()).get();
        len.write(text.len());
        text.as_ptr()
    }
}

// SAFETY: the layout describes RawValue: `write_raw` writes a whole RawValue, and
// size, alignment and drop come from the type itself.
unsafe impl HasLayout for RawValue {
    type Static = Self;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<RawValue>(
        "any JSON value",
        Kind::RawValue(&StringLayout {
            write: write_raw,
            read: Some(read_raw),
        }),
    );
}

/// Accepts any valid JSON value and keeps nothing, like `serde::de::IgnoredAny`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct IgnoredAny;

// SAFETY: IgnoredAny is a ZST; the Ignored kind writes nothing.
unsafe impl HasLayout for IgnoredAny {
    type Static = Self;
    const LAYOUT: &'static TypeLayout =
        &TypeLayout::of::<IgnoredAny>("any JSON value", Kind::Ignored);
}

owned! {
    [] RawValue;
    [] IgnoredAny;
}
