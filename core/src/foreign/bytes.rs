//! bytes's `Bytes` and `BytesMut` (feature `bytes`), as bytes's serde impls
//! (bytes 1) have serde_json read and write them:
//!
//! | type | JSON | read as | written as |
//! |---|---|---|---|
//! | `BytesMut` | array of `u8`, or string | the array's bytes (each a `u8`: `256`, `-1`, `1.5` refused as for `u8`), or the string's raw bytes (serde_json's `deserialize_bytes`: escapes decoded, no UTF-8 check; expecting "byte array") | an array of numbers (serde_json's `serialize_bytes`) |
//! | `Bytes` | the same | a `BytesMut`, frozen (no copy) | the same |
//!
//! `BytesMut` is a [`Kind::Vec`] of `u8` with
//! [`byte_strings`](crate::layout::VecLayout::byte_strings): generated code
//! reads the array form as it reads a `Vec<u8>` and hands the string form to
//! the interpreter. `Bytes` is a [`Kind::Convert`] of it (compiled, as
//! conversions are) and is written from its slice, like a `Vec<u8>`.

use bytes::{Bytes, BytesMut};

use crate::convert::ConvertFrom;
use crate::decode::{HasLayout, layout_of, slice_of};
use crate::encode::{Encode, no_set_len, no_with_capacity, no_write};
use crate::layout::{Kind, LayoutRef, TypeLayout, VecLayout};

/// # Safety
/// `dst` is valid for a `BytesMut` write.
unsafe extern "C" fn bytes_mut_new(dst: *mut u8) {
    // SAFETY: as the caller guarantees.
    unsafe { dst.cast::<BytesMut>().write(BytesMut::new()) }
}

/// Writes an empty `BytesMut` with room for `len` bytes and returns its
/// buffer. (`BytesMut` has no fallible reservation: a failed allocation
/// aborts, as `Vec`'s growth does; the caller already holds `len` bytes of
/// elements, so the size cannot overflow.)
///
/// # Safety
/// `dst` is valid for a `BytesMut` write.
unsafe extern "C" fn bytes_mut_with_capacity(dst: *mut u8, len: usize) -> *mut u8 {
    let mut buf = BytesMut::with_capacity(len);
    let room = buf.spare_capacity_mut().as_mut_ptr().cast::<u8>();
    // SAFETY: as the caller guarantees; the buffer is on the heap, so moving
    // the handle into `dst` leaves `room` valid.
    unsafe { dst.cast::<BytesMut>().write(buf) };
    room
}

/// # Safety
/// `buf` points to a live `BytesMut` whose first `len` bytes are initialised,
/// `len` at most its capacity.
unsafe extern "C" fn bytes_mut_set_len(buf: *mut u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe { (*buf.cast::<BytesMut>()).set_len(len) }
}

// SAFETY: the functions build and read a whole `BytesMut` through its API;
// its elements are `u8`.
unsafe impl HasLayout for BytesMut {
    type Static = Self;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<BytesMut>(
        "byte array",
        Kind::Vec(&VecLayout {
            elem: LayoutRef::Lazy(layout_of::<u8>),
            new: bytes_mut_new,
            with_capacity: bytes_mut_with_capacity,
            set_len: bytes_mut_set_len,
            as_slice: slice_of::<BytesMut, u8>,
            byte_strings: true,
        }),
    );
}

crate::decode::owned! { [] BytesMut; }

// SAFETY: one layout serves both directions; encoding reads the slice.
unsafe impl Encode for BytesMut {
    type Static = Self;
    const ENCODE: &'static TypeLayout = <Self as HasLayout>::LAYOUT;
}

impl ConvertFrom for Bytes {
    type Source = BytesMut;
    fn convert(buf: BytesMut) -> Result<Self, String> {
        Ok(buf.freeze())
    }
}

crate::convert::decode_by_conversion! { [] Bytes => "byte array"; }

// SAFETY: `slice_of` reads the bytes through `AsRef<[u8]>`; the decoding
// slots are never called (encode layouts reach only encoders).
unsafe impl Encode for Bytes {
    type Static = Self;
    const ENCODE: &'static TypeLayout = &TypeLayout::of::<Bytes>(
        "byte array",
        Kind::Vec(&VecLayout {
            elem: LayoutRef::Lazy(layout_of::<u8>),
            new: no_write,
            with_capacity: no_with_capacity,
            set_len: no_set_len,
            as_slice: slice_of::<Bytes, u8>,
            byte_strings: true,
        }),
    );
}
