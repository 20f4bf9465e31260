//! std enums serde writes externally tagged: `Result<T, E>` (`{"Ok": T}` or
//! `{"Err": E}`) and `Bound<T>` (`"Unbounded"`, `{"Included": T}` or
//! `{"Excluded": T}`).
//!
//! serde's impls (serde_core's `de/impls.rs` and `ser/impls.rs`) read and
//! write them as an enum of that name with those variants, as its derive
//! would; here each is an enum layout of the same variants, so every backend
//! reads and writes them with the enum kind's rules and messages.

use core::ffi::c_void;
use core::marker::PhantomData;
use std::ops::Bound;

use crate::decode::{DecodeBorrowed, HasLayout, decode_variant_with, deref_get, layout_of};
use crate::encode::{Encode, encode_layout_of, never_write_variant};
use crate::layout::{
    BoxLayout, EnumLayout, Kind, LayoutRef, Payload, SlotFn, Tagging, TypeLayout, Variant,
    no_data_variants,
};

/// A variant named as in Rust, as serde names the std enums' variants.
const fn variant(name: &'static str, payload: Payload, unit_expecting: &'static str) -> Variant {
    Variant {
        name,
        rust_name: name,
        aliases: &[],
        payload,
        unit_expecting,
    }
}

/// A newtype variant whose payload has the layout `layout` returns.
const fn newtype(name: &'static str, layout: fn() -> &'static TypeLayout) -> Variant {
    variant(name, Payload::Newtype(LayoutRef::Lazy(layout)), "")
}

/// An externally tagged enum of `variants` named `name`, with the decoding
/// functions `write` and `decode_variant`, or for encoding `variant_of`.
const fn external(
    name: &'static str,
    variants: &'static [Variant],
    write: unsafe extern "C" fn(*mut u8, usize),
    decode_variant: crate::layout::DecodeVariantFn,
    variant_of: Option<crate::layout::VariantOfFn>,
) -> EnumLayout {
    EnumLayout {
        name,
        variants,
        tagging: Tagging::External,
        other: None,
        untagged_from: variants.len(),
        deny_unknown_fields: false,
        write,
        decode_variant,
        variant_of,
        expecting: None,
    }
}

/// The encode layout of a `&T` for any `T` (a newtype variant's view holds a
/// reference to the payload; `&'a T: Encode` needs a lifetime these impls
/// cannot name).
struct RefTo<T>(PhantomData<T>);

// SAFETY: `deref_get` reads the reference the view holds, which points to a
// live `T` (as `T::Static`, the same type up to lifetimes).
unsafe impl<T: Encode> Encode for RefTo<T> {
    type Static = &'static T::Static;
    const ENCODE: &'static TypeLayout = &TypeLayout::of::<&'static T::Static>(
        T::ENCODE.expecting,
        Kind::Box(&BoxLayout {
            inner: LayoutRef::Lazy(encode_layout_of::<T>),
            decode_new: crate::encode::no_decode_into,
            get: deref_get::<&'static T::Static, T::Static>,
        }),
    );
}

/// Writes `value`'s address to the view `payload` and returns `index`.
///
/// # Safety
/// `payload` is valid for a pointer's write (the view is 8-aligned room).
unsafe fn view<T>(payload: *mut u8, value: &T, index: usize) -> usize {
    // SAFETY: as the caller guarantees.
    unsafe { payload.cast::<*const T>().write(value) };
    index
}

// ---------------------------------------------------------------------------
// Result

/// # Safety
/// The `decode_variant` contract (`EnumLayout::decode_variant`).
unsafe extern "C" fn result_decode_variant<T, E>(
    dst: *mut u8,
    index: usize,
    decode: SlotFn,
    ctx: *mut c_void,
) -> bool {
    // SAFETY: `dst` is valid for a `Result<T, E>` write and `decode` decodes the
    // variant's payload, whose type the turbofish names.
    unsafe {
        match index {
            0 => decode_variant_with::<T, Result<T, E>>(dst, decode, ctx, Ok),
            _ => decode_variant_with::<E, Result<T, E>>(dst, decode, ctx, Err),
        }
    }
}

/// # Safety
/// `src` is a live `Result<T, E>`; `payload` as for [`view`].
unsafe extern "C" fn result_variant_of<T, E>(src: *const u8, payload: *mut u8) -> usize {
    // SAFETY: as the caller guarantees.
    unsafe {
        match &*src.cast::<Result<T, E>>() {
            Ok(value) => view(payload, value, 0),
            Err(error) => view(payload, error, 1),
        }
    }
}

// SAFETY: `result_decode_variant` writes a whole `Result` (as
// `Result<T::Static, E::Static>`, the same type up to lifetimes) from a
// payload decoded with the variant's layout; there is no unit variant.
unsafe impl<T: HasLayout, E: HasLayout> HasLayout for Result<T, E> {
    type Static = Result<T::Static, E::Static>;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Self::Static>(
        "enum Result",
        Kind::Enum(&external(
            "Result",
            &[
                newtype("Ok", layout_of::<T>),
                newtype("Err", layout_of::<E>),
            ],
            never_write_variant,
            result_decode_variant::<T::Static, E::Static>,
            None,
        )),
    );
}

// SAFETY: a `Result` borrows what its payloads borrow.
unsafe impl<'de, T: DecodeBorrowed<'de>, E: DecodeBorrowed<'de>> DecodeBorrowed<'de>
    for Result<T, E>
{
}

// SAFETY: `result_variant_of` reads a live `Result` through a match and hands
// the payload's address to the variant's layout, a reference's.
unsafe impl<T: Encode, E: Encode> Encode for Result<T, E> {
    type Static = Result<T::Static, E::Static>;
    const ENCODE: &'static TypeLayout = &TypeLayout::of::<Self::Static>(
        "enum Result",
        Kind::Enum(&external(
            "Result",
            &[
                newtype("Ok", encode_layout_of::<RefTo<T>>),
                newtype("Err", encode_layout_of::<RefTo<E>>),
            ],
            never_write_variant,
            no_data_variants,
            Some(result_variant_of::<T::Static, E::Static>),
        )),
    );
}

// ---------------------------------------------------------------------------
// Bound

/// # Safety
/// `dst` is valid for a `Bound<T>` write.
unsafe extern "C" fn bound_write_unbounded<T>(dst: *mut u8, _index: usize) {
    // SAFETY: as the caller guarantees; `Unbounded` is the one unit variant.
    unsafe { dst.cast::<Bound<T>>().write(Bound::Unbounded) }
}

/// # Safety
/// The `decode_variant` contract (`EnumLayout::decode_variant`).
unsafe extern "C" fn bound_decode_variant<T>(
    dst: *mut u8,
    index: usize,
    decode: SlotFn,
    ctx: *mut c_void,
) -> bool {
    // SAFETY: `dst` is valid for a `Bound<T>` write and `decode` decodes a `T`.
    unsafe {
        match index {
            1 => decode_variant_with::<T, Bound<T>>(dst, decode, ctx, Bound::Included),
            _ => decode_variant_with::<T, Bound<T>>(dst, decode, ctx, Bound::Excluded),
        }
    }
}

/// # Safety
/// `src` is a live `Bound<T>`; `payload` as for [`view`].
unsafe extern "C" fn bound_variant_of<T>(src: *const u8, payload: *mut u8) -> usize {
    // SAFETY: as the caller guarantees.
    unsafe {
        match &*src.cast::<Bound<T>>() {
            Bound::Unbounded => 0,
            Bound::Included(value) => view(payload, value, 1),
            Bound::Excluded(value) => view(payload, value, 2),
        }
    }
}

// SAFETY: `bound_write_unbounded` writes the unit variant, `bound_decode_variant`
// the others from a `T` decoded with `T`'s layout (as `Bound<T::Static>`, the
// same type up to lifetimes).
unsafe impl<T: HasLayout> HasLayout for Bound<T> {
    type Static = Bound<T::Static>;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Self::Static>(
        "enum Bound",
        Kind::Enum(&external(
            "Bound",
            &[
                variant("Unbounded", Payload::Unit, "unit variant Bound::Unbounded"),
                newtype("Included", layout_of::<T>),
                newtype("Excluded", layout_of::<T>),
            ],
            bound_write_unbounded::<T::Static>,
            bound_decode_variant::<T::Static>,
            None,
        )),
    );
}

// SAFETY: a `Bound` borrows what its payload borrows.
unsafe impl<'de, T: DecodeBorrowed<'de>> DecodeBorrowed<'de> for Bound<T> {}

// SAFETY: as for `Result`.
unsafe impl<T: Encode> Encode for Bound<T> {
    type Static = Bound<T::Static>;
    const ENCODE: &'static TypeLayout = &TypeLayout::of::<Self::Static>(
        "enum Bound",
        Kind::Enum(&external(
            "Bound",
            &[
                variant("Unbounded", Payload::Unit, ""),
                newtype("Included", encode_layout_of::<RefTo<T>>),
                newtype("Excluded", encode_layout_of::<RefTo<T>>),
            ],
            never_write_variant,
            no_data_variants,
            Some(bound_variant_of::<T::Static>),
        )),
    );
}
