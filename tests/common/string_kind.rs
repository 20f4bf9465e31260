//! `string_kind!`: a test type of a string kind (jitson's `String` layout
//! with a `write` function of the test's own), for keys and values whose
//! alignment, equality or `Drop` the test controls. A destination that is not
//! aligned for the type is counted in [`MISALIGNED`] (and written unaligned:
//! writing it aligned would be undefined behaviour).

use std::cell::Cell;

thread_local! {
    /// Writes `string_kind!` types received at a misaligned address.
    pub static MISALIGNED: Cell<usize> = const { Cell::new(0) };
}

/// `string_kind!(Type, write_fn, |s: &str| Type(...))`: `Type`'s layout (a
/// string kind written by `write_fn`), `DecodeBorrowed`, and a serde
/// `Deserialize` that builds it the same way from a string.
#[macro_export]
macro_rules! string_kind {
    ($t:ident, $write:ident, $build:expr) => {
        /// # Safety
        /// `dst` is valid for a write of the type; the bytes are UTF-8.
        unsafe extern "C" fn $write(dst: *mut u8, ptr: *const u8, len: usize) {
            // SAFETY: as the caller guarantees.
            let s = unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(ptr, len)) };
            let value: $t = $build(s);
            let dst = dst.cast::<$t>();
            if dst as usize % align_of::<$t>() != 0 {
                $crate::common::string_kind::MISALIGNED
                    .set($crate::common::string_kind::MISALIGNED.get() + 1);
                // SAFETY: valid for the write, not aligned.
                unsafe { dst.write_unaligned(value) };
            } else {
                // SAFETY: as the caller guarantees.
                unsafe { dst.write(value) };
            }
        }

        // SAFETY: the write fn writes a whole value; size, alignment and drop come
        // from the type.
        unsafe impl jitson::HasLayout for $t {
            type Static = Self;
            const LAYOUT: &'static jitson::__private::TypeLayout =
                &jitson::__private::TypeLayout::of::<$t>(
                    "a string",
                    jitson::__private::Kind::String(&jitson::__private::StringLayout {
                        write: $write,
                        read: None,
                    }),
                );
        }

        // SAFETY: owns its data.
        unsafe impl<'de> jitson::DecodeBorrowed<'de> for $t {}

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                let s = <String as serde::Deserialize>::deserialize(d)?;
                Ok($build(&s))
            }
        }
    };
}
