//! serde_bytes's `ByteBuf` and `Bytes` (feature `serde_bytes`), as
//! serde_bytes's impls (serde_bytes 0.11) have serde_json read and write them:
//!
//! | type | JSON | read as | written as |
//! |---|---|---|---|
//! | `ByteBuf` | array of `u8`, or string | the array's bytes (each a `u8`), or the string's raw bytes (serde_json's `deserialize_bytes`: escapes decoded, no UTF-8 check; expecting "byte array") | an array of numbers (serde_json's `serialize_bytes`) |
//! | `Box<Bytes>` | the same | a `ByteBuf`, boxed | the same |
//! | `&Bytes` | — (borrowed: jitson's derives read it through serde's impl) | — | the same |
//!
//! `ByteBuf` is a [`Kind::Vec`] of `u8` with
//! [`byte_strings`](crate::layout::VecLayout::byte_strings), built through its
//! `Vec` (generated code reads the array form as it reads a `Vec<u8>` and
//! hands the string form to the interpreter); `Box<Bytes>` is a
//! [`Kind::Convert`] of it. Everything is written from its slice, like a
//! `Vec<u8>`.
//!
//! `&'de Bytes` is left to serde: serde_json lends it only a string without
//! escapes, unchecked, which no jitson kind reads; a struct deriving jitson's
//! `Decode` reads such a field through serde's impl (the serde route).

use core::ops::Deref;

use serde_bytes::{ByteBuf, Bytes};

use crate::convert::ConvertFrom;
use crate::decode::{HasLayout, layout_of, slice_of};
use crate::encode::{Encode, no_set_len, no_with_capacity, no_write};
use crate::layout::{Kind, LayoutRef, TypeLayout, VecLayout};

/// # Safety
/// `dst` is valid for a `ByteBuf` write.
unsafe extern "C" fn byte_buf_new(dst: *mut u8) {
    // SAFETY: as the caller guarantees.
    unsafe { dst.cast::<ByteBuf>().write(ByteBuf::new()) }
}

/// Writes an empty `ByteBuf` with room for exactly `len` bytes and returns
/// its buffer, or null when the allocation fails.
///
/// # Safety
/// `dst` is valid for a `ByteBuf` write.
unsafe extern "C" fn byte_buf_with_capacity(dst: *mut u8, len: usize) -> *mut u8 {
    let mut vec = Vec::<u8>::new();
    if vec.try_reserve_exact(len).is_err() {
        return core::ptr::null_mut();
    }
    let room = vec.as_mut_ptr();
    // SAFETY: as the caller guarantees; the buffer is on the heap, so moving
    // the vector into the `ByteBuf` leaves `room` valid.
    unsafe { dst.cast::<ByteBuf>().write(ByteBuf::from(vec)) };
    room
}

/// # Safety
/// `buf` points to a live `ByteBuf` whose first `len` bytes are initialised,
/// `len` at most its capacity.
unsafe extern "C" fn byte_buf_set_len(buf: *mut u8, len: usize) {
    // SAFETY: as the caller guarantees (`ByteBuf` derefs to its `Vec<u8>`).
    unsafe { (*buf.cast::<ByteBuf>()).set_len(len) }
}

// SAFETY: the functions build and read a whole `ByteBuf` through its API; its
// elements are `u8`.
unsafe impl HasLayout for ByteBuf {
    type Static = Self;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<ByteBuf>(
        "byte array",
        Kind::Vec(&VecLayout {
            elem: LayoutRef::Lazy(layout_of::<u8>),
            new: byte_buf_new,
            with_capacity: byte_buf_with_capacity,
            set_len: byte_buf_set_len,
            as_slice: slice_of::<ByteBuf, u8>,
            byte_strings: true,
        }),
    );
}

crate::decode::owned! { [] ByteBuf; }

// SAFETY: one layout serves both directions; encoding reads the slice.
unsafe impl Encode for ByteBuf {
    type Static = Self;
    const ENCODE: &'static TypeLayout = <Self as HasLayout>::LAYOUT;
}

impl ConvertFrom for Box<Bytes> {
    type Source = ByteBuf;
    fn convert(buf: ByteBuf) -> Result<Self, String> {
        Ok(buf.into_boxed_bytes())
    }
}

crate::convert::decode_by_conversion! { [] Box<Bytes> => "byte array"; }

/// The bytes of a pointer to `Bytes` (`Box<Bytes>`, `&Bytes`), for
/// [`VecLayout::as_slice`].
///
/// # Safety
/// `src` points to a live `P`; `len` is valid for writes.
unsafe extern "C" fn bytes_of<P: Deref<Target = Bytes>>(
    src: *const u8,
    len: *mut usize,
) -> *const u8 {
    // SAFETY: as the caller guarantees.
    unsafe {
        let bytes: &[u8] = &(*src.cast::<P>());
        len.write(bytes.len());
        bytes.as_ptr()
    }
}

/// `Encode` for pointers to `Bytes`: `[generics] Pointer`.
macro_rules! bytes_pointer {
    ($([$($generics:tt)*] $ty:ty => $static:ty;)*) => {$(
        // SAFETY: `bytes_of` reads the bytes through `Deref`; the decoding
        // slots are never called (encode layouts reach only encoders).
        unsafe impl<$($generics)*> Encode for $ty {
            type Static = $static;
            const ENCODE: &'static TypeLayout = &TypeLayout::of::<$static>(
                "byte array",
                Kind::Vec(&VecLayout {
                    elem: LayoutRef::Lazy(layout_of::<u8>),
                    new: no_write,
                    with_capacity: no_with_capacity,
                    set_len: no_set_len,
                    as_slice: bytes_of::<$static>,
                    byte_strings: true,
                }),
            );
        }
    )*};
}

bytes_pointer! {
    [] Box<Bytes> => Box<Bytes>;
    ['a] &'a Bytes => &'static Bytes;
}
