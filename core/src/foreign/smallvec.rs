//! smallvec's `SmallVec<[T; N]>` (feature `smallvec`), as smallvec's serde
//! impl (smallvec 1) has serde_json read and write it: a sequence, exactly as
//! `Vec<T>`.
//!
//! | type | JSON | read as | written as |
//! |---|---|---|---|
//! | `SmallVec<[T; N]>`, any `N` | array | a sequence ("a sequence") | the elements in order |
//!
//! It is a [`Kind::Vec`] like `Vec<T>`, so generated code decodes it as it
//! decodes a `Vec` (the elements onto the element stack, then moved in at `]`
//! through `with_capacity` and `set_len`: inline when they fit, one heap
//! allocation when they do not) and encodes it from its slice. smallvec's
//! `const_generics` feature is switched on so that every `N` is an `Array`.

use core::ptr;

use smallvec::{Array, SmallVec};

use crate::decode::{DecodeBorrowed, HasLayout, layout_of, slice_of};
use crate::encode::{Encode, encode_layout_of, no_set_len, no_with_capacity, no_write};
use crate::layout::{Kind, LayoutRef, TypeLayout, VecLayout};

/// Writes an empty `SmallVec` (no allocation).
///
/// # Safety
/// `dst` is valid for a `SmallVec<A>` write.
unsafe extern "C" fn small_new<A: Array>(dst: *mut u8) {
    // SAFETY: as the caller guarantees.
    unsafe { dst.cast::<SmallVec<A>>().write(SmallVec::new()) }
}

/// Writes an empty `SmallVec` with room for `len` elements (inline when they
/// fit) and returns its buffer, or null when the allocation fails.
///
/// # Safety
/// `dst` is valid for a `SmallVec<A>` write.
unsafe extern "C" fn small_with_capacity<A: Array>(dst: *mut u8, len: usize) -> *mut u8 {
    let mut vec = SmallVec::<A>::new();
    if vec.try_reserve_exact(len).is_err() {
        return ptr::null_mut();
    }
    let dst = dst.cast::<SmallVec<A>>();
    // SAFETY: `dst` is valid for the write (caller). The buffer is taken from
    // the value in place: an inline buffer lies inside `*dst`, which the
    // caller fills and `small_set_len`s without moving it.
    unsafe {
        dst.write(vec);
        (*dst).as_mut_ptr().cast()
    }
}

/// # Safety
/// `vec` points to a live `SmallVec<A>` whose first `len` elements are
/// initialised, `len` at most its capacity.
unsafe extern "C" fn small_set_len<A: Array>(vec: *mut u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe { (*vec.cast::<SmallVec<A>>()).set_len(len) }
}

// SAFETY: the functions operate on the vector only through smallvec's API
// (elements typed by `T::Static`, the same type up to lifetimes).
unsafe impl<T: HasLayout, const N: usize> HasLayout for SmallVec<[T; N]> {
    type Static = SmallVec<[T::Static; N]>;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Self::Static>(
        "a sequence",
        Kind::Vec(&VecLayout {
            elem: LayoutRef::Lazy(layout_of::<T>),
            new: small_new::<[T::Static; N]>,
            with_capacity: small_with_capacity::<[T::Static; N]>,
            set_len: small_set_len::<[T::Static; N]>,
            as_slice: slice_of::<Self::Static, T::Static>,
            byte_strings: false,
        }),
    );
}

// SAFETY: a SmallVec borrows what its elements borrow.
unsafe impl<'de, T: DecodeBorrowed<'de>, const N: usize> DecodeBorrowed<'de> for SmallVec<[T; N]> {}

// SAFETY: `slice_of` reads the elements through `AsRef<[T]>`; the decoding
// slots are never called (encode layouts reach only encoders).
unsafe impl<T: Encode, const N: usize> Encode for SmallVec<[T; N]> {
    type Static = SmallVec<[T::Static; N]>;
    const ENCODE: &'static TypeLayout = &TypeLayout::of::<Self::Static>(
        "a sequence",
        Kind::Vec(&VecLayout {
            elem: LayoutRef::Lazy(encode_layout_of::<T>),
            new: no_write,
            with_capacity: no_with_capacity,
            set_len: no_set_len,
            as_slice: slice_of::<Self::Static, T::Static>,
            byte_strings: false,
        }),
    );
}
