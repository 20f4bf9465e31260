//! The [`Decode`] trait and its impls for std types.
//!
//! Each impl is a `const` [`TypeLayout`]. For std containers whose memory layout Rust
//! does not guarantee, the layout holds monomorphised `extern "C"` functions (defined
//! here, generic over the element type) and nothing else: no backend ever reads a
//! `String`'s or `Vec`'s fields directly.

use core::ffi::c_void;
use core::mem::MaybeUninit;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;

use crate::elements::{Elements, Mark};
use crate::layout::{
    ArrayLayout, BorrowedStrLayout, BoxLayout, InitFn, Kind, LayoutRef, MapLayout, OptionLayout,
    SlotFn, StagedMap, StringLayout, TupleElem, TupleLayout, TypeLayout, VecLayout,
};

/// A type with a [`TypeLayout`] describing its memory: what every backend reads.
///
/// Implemented by `#[derive(jitson::Decode)]` and for std types; see
/// [`DecodeBorrowed`] for what may be decoded from which input, and [`Decode`] for
/// types that own all their data.
///
/// # Safety
/// `LAYOUT` must describe `Self` exactly: `size`, `align` and `drop` of `Self`
/// (use [`TypeLayout::of`] on [`HasLayout::Static`], which differs from `Self` only
/// in lifetimes and so has the same memory layout); `type_id` that of `Static`;
/// for a struct, every field's offset and layout must be those of the field's real
/// type, and after every decoded field is written and every skipped field
/// initialised, the memory must hold a valid `Self`. A backend relies on this to
/// write through raw pointers.
#[diagnostic::on_unimplemented(
    message = "jitson cannot decode `{Self}`: it has no `#[derive(jitson::Decode)]`",
    label = "`{Self}` is not a type jitson decodes",
    note = "add `#[derive(jitson::Decode)]` to `{Self}`; a field whose type has only serde's \
            `Deserialize` needs nothing, but a type parameter of a derived type needs jitson's \
            traits unless the container's `#[serde(bound(...))]` names serde's instead"
)]
pub unsafe trait HasLayout: Sized {
    /// `Self` with every lifetime `'static`: the type's identity (one per type,
    /// whatever the lifetimes, so `Event<'a>` is compiled once).
    type Static: 'static;
    /// The descriptor of `Self`.
    const LAYOUT: &'static TypeLayout;
}

/// A type that can be decoded from input that lives for `'de`: whatever a
/// decoded value borrows from the input (`&'de str`, `Cow<'de, str>`) outlives the
/// value. serde's `Deserialize<'de>` in jitson's terms.
///
/// # Safety
/// Every borrowed string the layout's kinds write is valid for `'de`, so `Self`
/// may only hold such strings where it borrows for a lifetime `'de` outlives.
#[diagnostic::on_unimplemented(
    message = "jitson cannot decode `{Self}`: it has no `#[derive(jitson::Decode)]`",
    label = "`{Self}` is not a type jitson decodes",
    note = "add `#[derive(jitson::Decode)]` to `{Self}`; a field whose type has only serde's \
            `Deserialize` needs nothing, but a type parameter of a derived type needs jitson's \
            traits unless the container's `#[serde(bound(...))]` names serde's instead"
)]
pub unsafe trait DecodeBorrowed<'de>: HasLayout {}

/// A type jitson can decode that owns all its data (no borrowed strings), from
/// input of any lifetime: serde's `DeserializeOwned` in jitson's terms.
/// Implemented for every `'static` type that is [`DecodeBorrowed`] for every
/// lifetime; derive it with `#[derive(jitson::Decode)]`.
#[diagnostic::on_unimplemented(
    message = "jitson cannot decode `{Self}` as an owned value",
    label = "`{Self}` is not a type jitson decodes, or it borrows from the input",
    note = "add `#[derive(jitson::Decode)]` to `{Self}`; a type that borrows (`&'de str`) \
            is decoded with `from_slice`/`from_str`, not as `Decode`"
)]
pub trait Decode: for<'de> DecodeBorrowed<'de> + 'static {}

impl<T: for<'de> DecodeBorrowed<'de> + 'static> Decode for T {}

/// The layout of `T`, as a [`LayoutRef`] for layout edges.
pub fn layout_of<T: HasLayout>() -> &'static TypeLayout {
    T::LAYOUT
}

/// `DecodeBorrowed` for owned types: `[generics] Type`.
macro_rules! owned {
    ($([$($generics:tt)*] $ty:ty;)*) => {$(
        // SAFETY: the type owns all its data; it borrows nothing from any input.
        unsafe impl<'de, $($generics)*> $crate::decode::DecodeBorrowed<'de> for $ty {}
    )*};
}
pub(crate) use owned;

macro_rules! scalar {
    ($($ty:ty => $kind:expr, $expecting:literal;)*) => {$(
        // SAFETY: scalars are written by the backends as exactly this type.
        unsafe impl HasLayout for $ty {
            type Static = Self;
            const LAYOUT: &'static TypeLayout = &TypeLayout::of::<$ty>($expecting, $kind);
        }
        owned! { [] $ty; }
    )*};
}

scalar! {
    bool => Kind::Bool, "a boolean";
    i8 => Kind::I8, "i8";
    i16 => Kind::I16, "i16";
    i32 => Kind::I32, "i32";
    i64 => Kind::I64, "i64";
    u8 => Kind::U8, "u8";
    u16 => Kind::U16, "u16";
    u32 => Kind::U32, "u32";
    u64 => Kind::U64, "u64";
    i128 => Kind::I128, "i128";
    u128 => Kind::U128, "u128";
    f32 => Kind::F32, "f32";
    f64 => Kind::F64, "f64";
    char => Kind::Char, "a character";
}

const fn int_kind<T>(signed: bool) -> Kind {
    match (size_of::<T>(), signed) {
        (8, true) => Kind::I64,
        (4, true) => Kind::I32,
        (2, true) => Kind::I16,
        (8, false) => Kind::U64,
        (4, false) => Kind::U32,
        (2, false) => Kind::U16,
        _ => panic!("unsupported pointer width"),
    }
}

// SAFETY: isize/usize have the size and representation of the fixed-width integer
// picked by `int_kind`.
unsafe impl HasLayout for isize {
    type Static = Self;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<isize>("isize", int_kind::<isize>(true));
}
// SAFETY: as for isize.
unsafe impl HasLayout for usize {
    type Static = Self;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<usize>("usize", int_kind::<usize>(false));
}

// ---------------------------------------------------------------------------
// Strings

/// # Safety
/// `dst` is valid for a `String` write; `ptr[..len]` is valid UTF-8.
unsafe extern "C" fn write_string(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe { dst.cast::<String>().write(owned_text(ptr, len)) }
}

/// `String::from` of the text `ptr[..len]`, its buffer from [`exact_vec`],
/// its bytes copied without a call when short
/// ([`copy_text`](crate::write::copy_text)): every decoded string comes
/// through here. Aborts (`handle_alloc_error`) if
/// the allocation fails, as `String::from` does.
///
/// # Safety
/// `ptr[..len]` is valid UTF-8.
#[inline(always)]
pub(crate) unsafe fn owned_text(ptr: *const u8, len: usize) -> String {
    let Some(mut bytes) = exact_vec::<u8>(len) else {
        std::alloc::handle_alloc_error(
            std::alloc::Layout::array::<u8>(len).unwrap_or(std::alloc::Layout::new::<u8>()),
        );
    };
    // SAFETY: `bytes` has room for exactly `len` bytes in a fresh buffer, so
    // the ranges do not overlap; the bytes are UTF-8 (caller).
    unsafe {
        crate::write::copy_text(core::slice::from_raw_parts(ptr, len), bytes.as_mut_ptr());
        bytes.set_len(len);
        String::from_utf8_unchecked(bytes)
    }
}

/// An empty `Vec<T>` with room for exactly `len` values, its buffer taken
/// from the global allocator directly, as `Vec::from_raw_parts` documents:
/// `try_reserve_exact` on an empty vector and `String::from` reach the same
/// `alloc` through `RawVec`'s general growth (about 40 instructions more a
/// vector and 10 a string, `small_docs user` under callgrind). Empty and
/// zero-sized: no allocation, as `Vec` makes none. `None` if the size
/// overflows or the allocation fails.
#[inline(always)]
fn exact_vec<T>(len: usize) -> Option<Vec<T>> {
    match std::alloc::Layout::array::<T>(len) {
        Ok(layout) if layout.size() > 0 => {
            // SAFETY: the layout's size is not zero.
            let buffer = unsafe { std::alloc::alloc(layout) };
            if buffer.is_null() {
                return None;
            }
            // SAFETY: `buffer` was allocated by the global allocator for `len`
            // values of `T` (the layout `Vec<T>` uses for that capacity); none
            // is initialised yet, and the length is 0.
            Some(unsafe { Vec::from_raw_parts(buffer.cast::<T>(), 0, len) })
        }
        Ok(_) => Some(Vec::new()),
        Err(_) => None,
    }
}

/// # Safety
/// `dst` is valid for a `Box<str>` write; `ptr[..len]` is valid UTF-8.
unsafe extern "C" fn write_box_str(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        let s = core::str::from_utf8_unchecked(core::slice::from_raw_parts(ptr, len));
        dst.cast::<Box<str>>().write(Box::from(s));
    }
}

owned! {
    [] isize;
    [] usize;
    [] String;
    [] Box<str>;
    [] ();
}

// SAFETY: `write_string` writes a whole String.
unsafe impl HasLayout for String {
    type Static = Self;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<String>(
        "a string",
        Kind::String(&StringLayout {
            write: write_string,
            read: Some(read_text::<String>),
        }),
    );
}

// SAFETY: `write_box_str` writes a whole Box<str>.
unsafe impl HasLayout for Box<str> {
    type Static = Self;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Box<str>>(
        "a string",
        Kind::String(&StringLayout {
            write: write_box_str,
            read: Some(read_text::<Box<str>>),
        }),
    );
}

/// Reads the text of any string type (a [`ReadStrFn`](crate::layout::ReadStrFn)).
///
/// # Safety
/// `src` points to a live `S`; `len` is valid for writes.
pub(crate) unsafe extern "C" fn read_text<S: AsRef<str>>(
    src: *const u8,
    len: *mut usize,
) -> *const u8 {
    // SAFETY: as the caller guarantees.
    unsafe {
        let text = (*src.cast::<S>()).as_ref();
        len.write(text.len());
        text.as_ptr()
    }
}

// ---------------------------------------------------------------------------
// Borrowed strings

/// # Safety
/// `dst` is valid for a `&str` write; `ptr[..len]` is valid UTF-8 that outlives
/// every use of the written reference (the input, for `'de`).
unsafe extern "C" fn write_borrowed_str(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees; `&'static str` has the layout of `&str`.
    unsafe {
        let s = core::str::from_utf8_unchecked(core::slice::from_raw_parts(ptr, len));
        dst.cast::<&str>().write(s);
    }
}

/// # Safety
/// As [`write_borrowed_str`], for a `Cow<str>`.
unsafe extern "C" fn write_cow_borrowed(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        let s = core::str::from_utf8_unchecked(core::slice::from_raw_parts(ptr, len));
        dst.cast::<Cow<'_, str>>().write(Cow::Borrowed(s));
    }
}

/// # Safety
/// `dst` is valid for a `Cow<str>` write; `ptr[..len]` is valid UTF-8.
unsafe extern "C" fn write_cow_owned(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        dst.cast::<Cow<'_, str>>()
            .write(Cow::Owned(owned_text(ptr, len)));
    }
}

// SAFETY: `write_borrowed_str` writes a whole `&str` (the layout of `&'static str`).
unsafe impl HasLayout for &str {
    type Static = &'static str;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<&'static str>(
        "a borrowed string",
        Kind::BorrowedStr(&BorrowedStrLayout {
            borrow: write_borrowed_str,
            own: None,
            read: Some(read_text::<&'static str>),
            bytes: false,
        }),
    );
}

// SAFETY: the reference points into the input, which lives for `'de`, and `'de`
// outlives `'a`.
unsafe impl<'de: 'a, 'a> DecodeBorrowed<'de> for &'a str {}

// SAFETY: both functions write a whole `Cow<str>`.
unsafe impl HasLayout for Cow<'_, str> {
    type Static = Cow<'static, str>;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Cow<'static, str>>(
        "a string",
        Kind::BorrowedStr(&BorrowedStrLayout {
            borrow: write_cow_borrowed,
            own: Some(write_cow_owned),
            read: Some(read_text::<Cow<'static, str>>),
            bytes: false,
        }),
    );
}

// SAFETY: as for `&str`.
unsafe impl<'de: 'a, 'a> DecodeBorrowed<'de> for Cow<'a, str> {}

/// # Safety
/// As [`write_borrowed_str`], for a `&[u8]`.
unsafe extern "C" fn write_borrowed_bytes(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees; `&'static [u8]` has the layout of `&[u8]`.
    unsafe {
        dst.cast::<&[u8]>()
            .write(core::slice::from_raw_parts(ptr, len))
    }
}

// SAFETY: `write_borrowed_bytes` writes a whole `&[u8]`.
unsafe impl HasLayout for &[u8] {
    type Static = &'static [u8];
    /// serde's `&[u8]`: a string's text without escapes, borrowed (serde_json's
    /// `deserialize_bytes`); an escaped string is a byte array it refuses, and
    /// an array of numbers a sequence it refuses.
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<&'static [u8]>(
        "a borrowed byte array",
        Kind::BorrowedStr(&BorrowedStrLayout {
            borrow: write_borrowed_bytes,
            own: None,
            read: None,
            bytes: true,
        }),
    );
}

// SAFETY: as for `&str`.
unsafe impl<'de: 'a, 'a> DecodeBorrowed<'de> for &'a [u8] {}

/// # Safety
/// As [`write_borrowed_str`], for a `&Path`.
unsafe extern "C" fn write_borrowed_path(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        let s = core::str::from_utf8_unchecked(core::slice::from_raw_parts(ptr, len));
        dst.cast::<&std::path::Path>()
            .write(std::path::Path::new(s));
    }
}

// SAFETY: `write_borrowed_path` writes a whole `&Path`.
unsafe impl HasLayout for &std::path::Path {
    type Static = &'static std::path::Path;
    /// serde's `&Path`: a string without escapes, borrowed; an escaped one is
    /// refused as for `&str`.
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<&'static std::path::Path>(
        "a borrowed path",
        Kind::BorrowedStr(&BorrowedStrLayout {
            borrow: write_borrowed_path,
            own: None,
            read: None,
            bytes: false,
        }),
    );
}

// SAFETY: as for `&str`.
unsafe impl<'de: 'a, 'a> DecodeBorrowed<'de> for &'a std::path::Path {}

/// The identity of [`BORROWED_COW_BYTES`], which describes a `Cow<[u8]>` read
/// otherwise than `Cow<[u8]>`'s own layout (a sequence of numbers).
struct BorrowedCowBytes;

/// # Safety
/// As [`write_borrowed_str`], for a `Cow<[u8]>`.
unsafe extern "C" fn write_cow_bytes_borrowed(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        let bytes = core::slice::from_raw_parts(ptr, len);
        dst.cast::<Cow<'_, [u8]>>().write(Cow::Borrowed(bytes));
    }
}

/// # Safety
/// `dst` is valid for a `Cow<[u8]>` write; `ptr[..len]` is readable.
unsafe extern "C" fn write_cow_bytes_owned(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        let bytes = core::slice::from_raw_parts(ptr, len).to_vec();
        dst.cast::<Cow<'_, [u8]>>().write(Cow::Owned(bytes));
    }
}

/// A `Cow<'de, [u8]>` field under `#[serde(borrow)]`, which serde's derive reads
/// with `borrow_cow_bytes`: a string's bytes, borrowed without escapes and
/// owned with them; anything else, an array of numbers too, is refused as not
/// "a byte array". Without the attribute a `Cow<[u8]>` is read as a `Vec<u8>`
/// (serde's blanket `Cow` impl); jitson's derive picks this layout where
/// serde's does.
///
/// Sound only where the field's container is `DecodeBorrowed<'de>` with `'de`
/// outliving the `Cow`'s lifetime, which the derive's impls require.
#[doc(hidden)]
pub static BORROWED_COW_BYTES: TypeLayout =
    TypeLayout::with_identity::<Cow<'static, [u8]>, BorrowedCowBytes>(
        "a byte array",
        Kind::BorrowedStr(&BorrowedStrLayout {
            borrow: write_cow_bytes_borrowed,
            own: Some(write_cow_bytes_owned),
            read: None,
            bytes: true,
        }),
    );

// ---------------------------------------------------------------------------
// Option and Box

/// # Safety
/// `dst` is valid for an `Option<T>` write.
pub(crate) unsafe extern "C" fn option_write_none<T>(dst: *mut u8) {
    // SAFETY: as the caller guarantees.
    unsafe { dst.cast::<Option<T>>().write(None) }
}

/// # Safety
/// `dst` is valid for an `Option<T>` write; `decode` keeps the [`SlotFn`] contract.
pub(crate) unsafe extern "C" fn option_decode_some<T>(
    dst: *mut u8,
    decode: SlotFn,
    ctx: *mut c_void,
) -> bool {
    let mut slot = MaybeUninit::<T>::uninit();
    // SAFETY: `slot` is aligned, uninitialised room for a T; by the SlotFn contract a
    // `true` return means it holds a valid T, which we then move out exactly once.
    unsafe {
        if !decode(ctx, slot.as_mut_ptr().cast()) {
            return false;
        }
        dst.cast::<Option<T>>().write(Some(slot.assume_init()));
    }
    true
}

/// The payload of an `Option<T>`, null for `None`.
///
/// # Safety
/// `src` points to a live `Option<T>`.
pub(crate) unsafe extern "C" fn option_get<T>(src: *const u8) -> *const u8 {
    // SAFETY: as the caller guarantees.
    match unsafe { &*src.cast::<Option<T>>() } {
        Some(value) => core::ptr::from_ref(value).cast(),
        None => core::ptr::null(),
    }
}

/// The target of any pointer to `T` (`Box<T>`, `&T`, `Rc<T>`, `Arc<T>`).
///
/// # Safety
/// `src` points to a live `P`.
pub(crate) unsafe extern "C" fn deref_get<P: core::ops::Deref<Target = T>, T: ?Sized>(
    src: *const u8,
) -> *const u8 {
    // SAFETY: as the caller guarantees.
    let target: &T = unsafe { &*src.cast::<P>() };
    core::ptr::from_ref(target).cast()
}

// SAFETY: the functions write whole `Option<T>` values (through `T::Static`, the
// same type up to lifetimes, hence the same layout); `some` is T's own layout.
unsafe impl<T: HasLayout> HasLayout for Option<T> {
    type Static = Option<T::Static>;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Option<T::Static>>(
        "an option",
        Kind::Option(&OptionLayout {
            some: LayoutRef::Lazy(layout_of::<T>),
            write_none: option_write_none::<T::Static>,
            decode_some: option_decode_some::<T::Static>,
            get: option_get::<T::Static>,
        }),
    );
}

// SAFETY: an Option borrows what its payload borrows.
unsafe impl<'de, T: DecodeBorrowed<'de>> DecodeBorrowed<'de> for Option<T> {}

/// # Safety
/// `dst` is valid for a `Box<T>` write; `decode` keeps the [`SlotFn`] contract.
unsafe extern "C" fn box_decode_new<T>(dst: *mut u8, decode: SlotFn, ctx: *mut c_void) -> bool {
    let mut boxed = Box::<T>::new_uninit();
    // SAFETY: the allocation is aligned room for a T; on `true` it holds a valid T.
    // On `false` the MaybeUninit box is freed without dropping its contents.
    unsafe {
        if !decode(ctx, boxed.as_mut_ptr().cast()) {
            return false;
        }
        dst.cast::<Box<T>>().write(boxed.assume_init());
    }
    true
}

// SAFETY: `box_decode_new` writes a whole Box<T> (as `Box<T::Static>`, the same
// type up to lifetimes).
unsafe impl<T: HasLayout> HasLayout for Box<T> {
    type Static = Box<T::Static>;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Box<T::Static>>(
        T::LAYOUT.expecting,
        Kind::Box(&BoxLayout {
            inner: LayoutRef::Lazy(layout_of::<T>),
            decode_new: box_decode_new::<T::Static>,
            get: deref_get::<Box<T::Static>, T::Static>,
        }),
    );
}

// SAFETY: a Box borrows what its content borrows.
unsafe impl<'de, T: DecodeBorrowed<'de>> DecodeBorrowed<'de> for Box<T> {}

// ---------------------------------------------------------------------------
// Vec and arrays

/// # Safety
/// `dst` is valid for a `Vec<T>` write.
pub(crate) unsafe extern "C" fn vec_new<T>(dst: *mut u8) {
    // SAFETY: as the caller guarantees.
    unsafe { dst.cast::<Vec<T>>().write(Vec::new()) }
}

/// # Safety
/// `dst` is valid for a `Vec<T>` write.
pub(crate) unsafe extern "C" fn vec_with_capacity<T>(dst: *mut u8, len: usize) -> *mut u8 {
    let Some(mut vec) = exact_vec::<T>(len) else {
        return std::ptr::null_mut();
    };
    let buffer = vec.as_mut_ptr().cast();
    // SAFETY: as the caller guarantees.
    unsafe { dst.cast::<Vec<T>>().write(vec) };
    buffer
}

/// # Safety
/// `vec` points to a live `Vec<T>` whose first `len` elements are initialised, and
/// `len` is at most its capacity.
pub(crate) unsafe extern "C" fn vec_set_len<T>(vec: *mut u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe { (*vec.cast::<Vec<T>>()).set_len(len) }
}

/// The elements of any contiguous sequence of `T` (`Vec<T>`, `Box<[T]>`, `&[T]`).
///
/// # Safety
/// `src` points to a live `S`; `len` is valid for writes.
pub(crate) unsafe extern "C" fn slice_of<S: AsRef<[T]>, T>(
    src: *const u8,
    len: *mut usize,
) -> *const u8 {
    // SAFETY: as the caller guarantees.
    unsafe {
        let slice = (*src.cast::<S>()).as_ref();
        len.write(slice.len());
        slice.as_ptr().cast()
    }
}

// SAFETY: the functions operate on a whole Vec<T> only through Vec's API (as
// `Vec<T::Static>`, the same type up to lifetimes).
unsafe impl<T: HasLayout> HasLayout for Vec<T> {
    type Static = Vec<T::Static>;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Vec<T::Static>>(
        "a sequence",
        Kind::Vec(&VecLayout {
            elem: LayoutRef::Lazy(layout_of::<T>),
            new: vec_new::<T::Static>,
            with_capacity: vec_with_capacity::<T::Static>,
            set_len: vec_set_len::<T::Static>,
            as_slice: slice_of::<Vec<T::Static>, T::Static>,
            byte_strings: false,
        }),
    );
}

// SAFETY: a Vec borrows what its elements borrow.
unsafe impl<'de, T: DecodeBorrowed<'de>> DecodeBorrowed<'de> for Vec<T> {}

/// serde's words for an array of `n` elements (its impls stop at 32): "an
/// empty array", "an array of length n"; "an array" beyond.
const fn array_expecting(n: usize) -> &'static str {
    const WORDS: [&str; 33] = [
        "an empty array",
        "an array of length 1",
        "an array of length 2",
        "an array of length 3",
        "an array of length 4",
        "an array of length 5",
        "an array of length 6",
        "an array of length 7",
        "an array of length 8",
        "an array of length 9",
        "an array of length 10",
        "an array of length 11",
        "an array of length 12",
        "an array of length 13",
        "an array of length 14",
        "an array of length 15",
        "an array of length 16",
        "an array of length 17",
        "an array of length 18",
        "an array of length 19",
        "an array of length 20",
        "an array of length 21",
        "an array of length 22",
        "an array of length 23",
        "an array of length 24",
        "an array of length 25",
        "an array of length 26",
        "an array of length 27",
        "an array of length 28",
        "an array of length 29",
        "an array of length 30",
        "an array of length 31",
        "an array of length 32",
    ];
    if n < WORDS.len() {
        WORDS[n]
    } else {
        "an array"
    }
}

// SAFETY: `[T; N]` stores N values of T contiguously, element i at i * size_of::<T>().
unsafe impl<T: HasLayout, const N: usize> HasLayout for [T; N] {
    type Static = [T::Static; N];
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<[T::Static; N]>(
        array_expecting(N),
        Kind::Array(&ArrayLayout {
            elem: LayoutRef::Lazy(layout_of::<T>),
            len: N,
        }),
    );
}

// SAFETY: an array borrows what its elements borrow.
unsafe impl<'de, T: DecodeBorrowed<'de>, const N: usize> DecodeBorrowed<'de> for [T; N] {}

// ---------------------------------------------------------------------------
// Tuples and ()

// SAFETY: `()` is zero-sized; `Kind::Unit` writes nothing.
unsafe impl HasLayout for () {
    type Static = Self;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<()>("unit", Kind::Unit);
}

macro_rules! tuple {
    ($($len:literal => ($($name:ident $index:tt),+);)*) => {$(
        // SAFETY: each element's offset is `offset_of!` on the tuple and its layout
        // that of the element's type; once all are written the tuple is valid.
        unsafe impl<$($name: HasLayout),+> HasLayout for ($($name,)+) {
            type Static = ($($name::Static,)+);
            const LAYOUT: &'static TypeLayout = &TypeLayout::of::<($($name::Static,)+)>(
                concat!("a tuple of size ", $len),
                Kind::Tuple(&TupleLayout {
                    elems: &[$(TupleElem {
                        offset: core::mem::offset_of!(Self, $index),
                        layout: LayoutRef::Lazy(layout_of::<$name>),
                        skip_if: None,
                        default: None,
                    }),+],
                    skipped: &[],
                    expecting_len: concat!("a tuple of size ", $len),
                }),
            );
        }

        // SAFETY: a tuple borrows what its elements borrow.
        unsafe impl<'de, $($name: DecodeBorrowed<'de>),+> DecodeBorrowed<'de> for ($($name,)+) {}

        // SAFETY: as for `HasLayout`, with each element's encode layout.
        unsafe impl<$($name: crate::encode::Encode),+> crate::encode::Encode for ($($name,)+) {
            type Static = ($($name::Static,)+);
            const ENCODE: &'static TypeLayout = &TypeLayout::of::<($($name::Static,)+)>(
                concat!("a tuple of size ", $len),
                Kind::Tuple(&TupleLayout {
                    elems: &[$(TupleElem {
                        offset: core::mem::offset_of!(Self::Static, $index),
                        layout: LayoutRef::Lazy(crate::encode::encode_layout_of::<$name>),
                        skip_if: None,
                        default: None,
                    }),+],
                    skipped: &[],
                    expecting_len: concat!("a tuple of size ", $len),
                }),
            );
        }
    )*};
}

tuple! {
    1 => (T0 0);
    2 => (T0 0, T1 1);
    3 => (T0 0, T1 1, T2 2);
    4 => (T0 0, T1 1, T2 2, T3 3);
    5 => (T0 0, T1 1, T2 2, T3 3, T4 4);
    6 => (T0 0, T1 1, T2 2, T3 3, T4 4, T5 5);
    7 => (T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6);
    8 => (T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7);
    9 => (T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8);
    10 => (T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9);
    11 => (T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10);
    12 => (T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11);
    13 => (T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12);
    14 => (T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12,
           T13 13);
    15 => (T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12,
           T13 13, T14 14);
    16 => (T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12,
           T13 13, T14 14, T15 15);
}

// ---------------------------------------------------------------------------
// Maps

/// The map operations jitson needs to decode, implemented for the std maps.
pub(crate) trait AnyMap<K, V>: Default + EachEntry<K, V> {
    fn put(&mut self, key: K, value: V);

    /// Moves every one of `entries` into this map, which is empty, a repeated
    /// key taking the later value as [`AnyMap::put`] does. Maps that can use
    /// the length, or the order of the keys, override it.
    fn put_entries(&mut self, entries: &mut Staged<K, V>) {
        for (key, value) in entries {
            self.put(key, value);
        }
    }
}

/// The entries of a map staged on the element stack ([`StagedMap`]), as one
/// run of [`Entry`]s that [`AnyMap::put_entries`] moves out in document
/// order, as an iterator of `(key, value)`.
pub(crate) struct Staged<K, V> {
    run: *mut Entry<K, V>,
    /// The entries not moved out yet are `front..back`.
    front: usize,
    back: usize,
}

impl<K, V> Staged<K, V> {
    /// The entries not moved out yet.
    fn remaining(&self) -> &[Entry<K, V>] {
        // SAFETY: `front..back` of the run are initialised entries (see
        // `map_finish`, which owns the run while this exists).
        unsafe { core::slice::from_raw_parts(self.run.add(self.front), self.back - self.front) }
    }

    /// Whether the keys not moved out yet are in strictly increasing order
    /// and no two neighbours are `==`: then they are sorted and std's bulk
    /// build, which drops the earlier of two `==` neighbours, drops none. A
    /// key type whose `==` calls two keys equal that `Ord` orders (a logic
    /// error, but user code) takes the path that removes repeats itself.
    fn keys_increasing(&self) -> bool
    where
        K: Ord,
    {
        // Two passes, `Ord` then `==`, in the order the sort and the
        // duplicate pass call them: a key whose comparisons panic after a
        // budget panics in the same one as before this check existed.
        let keys = self.remaining();
        keys.windows(2).all(|w| w[0].key.cmp(&w[1].key).is_lt())
            && keys.windows(2).all(|w| w[0].key != w[1].key)
    }

    /// The entries not moved out yet, moved into a vector of pairs in
    /// document order. Each key and value is copied from the run to its place
    /// in the vector: `collect` moved each pair through an `Option<(K, V)>` on
    /// the stack, written and read back in overlapping 16-byte halves that
    /// the store buffer cannot forward (package.json's decode, 2026-12-07:
    /// three fifths of `collect`'s samples on one load, 6 % of the decode).
    fn move_to_vec(&mut self) -> Vec<(K, V)> {
        let n = self.back - self.front;
        let mut pairs: Vec<(K, V)> = Vec::with_capacity(n);
        let to = pairs.as_mut_ptr();
        // SAFETY: `front..back` of the run are initialised entries, each
        // read once here and counted out below (never read or dropped
        // again); `to` has room for `n` pairs, initialised before `set_len`.
        unsafe {
            for i in 0..n {
                let from = self.run.add(self.front + i);
                let pair = to.add(i);
                (&raw mut (*pair).0).write((&raw const (*from).key).read());
                (&raw mut (*pair).1).write((&raw const (*from).value).read());
            }
            pairs.set_len(n);
        }
        self.front = self.back;
        pairs
    }
}

impl<K, V> Iterator for Staged<K, V> {
    type Item = (K, V);

    #[inline]
    fn next(&mut self) -> Option<(K, V)> {
        if self.front == self.back {
            return None;
        }
        // SAFETY: entry `front` is initialised and, counted out below, never
        // read or dropped again.
        let entry = unsafe { self.run.add(self.front).read() };
        self.front += 1;
        Some((entry.key, entry.value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl<K, V> ExactSizeIterator for Staged<K, V> {}

/// Gives back the room a map reserved for `n` entries when repeated keys left
/// it less than half full: a document repeating one key a hundred thousand
/// times must not leave a map of one entry holding room for all of them.
fn shrink_after_repeats(len: usize, n: usize, shrink: impl FnOnce()) {
    if len < n / 2 {
        shrink();
    }
}

/// The map operation jitson needs to encode: every entry, in iteration order.
pub(crate) trait EachEntry<K, V> {
    fn each(&self, f: impl FnMut(&K, &V) -> bool) -> bool;
}

impl<K, V, S> EachEntry<K, V> for HashMap<K, V, S> {
    fn each(&self, mut f: impl FnMut(&K, &V) -> bool) -> bool {
        self.iter().all(|(k, v)| f(k, v))
    }
}

impl<K, V> EachEntry<K, V> for BTreeMap<K, V> {
    fn each(&self, mut f: impl FnMut(&K, &V) -> bool) -> bool {
        self.iter().all(|(k, v)| f(k, v))
    }
}

/// A map's [`ForEachFn`](crate::layout::ForEachFn).
///
/// # Safety
/// `src` points to a live `M`; `entry` is called with pointers to live keys
/// and values of the map.
pub(crate) unsafe extern "C" fn map_for_each<M: EachEntry<K, V>, K, V>(
    src: *const u8,
    entry: crate::layout::EntryFn,
    ctx: *mut c_void,
) -> bool {
    // SAFETY: as the caller guarantees.
    let map = unsafe { &*src.cast::<M>() };
    map.each(|k, v| {
        // SAFETY: `entry` keeps the EntryFn contract; both pointers are live.
        unsafe {
            entry(
                ctx,
                core::ptr::from_ref(k).cast(),
                core::ptr::from_ref(v).cast(),
            )
        }
    })
}

impl<K: Eq + core::hash::Hash, V, S: BuildHasher + Default> AnyMap<K, V> for HashMap<K, V, S> {
    fn put(&mut self, key: K, value: V) {
        self.insert(key, value);
    }

    /// Room reserved once for `n` entries: serde's visitor (no length hint
    /// from serde_json) grows the table, rehashing every entry at each
    /// doubling.
    fn put_entries(&mut self, entries: &mut Staged<K, V>) {
        let n = entries.len();
        self.reserve(n);
        for (key, value) in entries {
            self.insert(key, value);
        }
        shrink_after_repeats(self.len(), n, || self.shrink_to_fit());
    }
}

/// The fewest entries a `BTreeMap` is built from in bulk: below it, inserting
/// each costs less than the bulk build's vector (`String` keys, 2026-12-04: in
/// a loop of maps alone two entries cost a third more in bulk, five about the
/// same, ten half as much; in package.json's decode, whose maps hold 1 to 9
/// entries, any threshold from 2 to 4 gave the same, 6 was 2 % slower and
/// never building in bulk 6 % slower).
const BTREE_BULK_MIN: usize = 4;

impl<K: Ord, V> AnyMap<K, V> for BTreeMap<K, V> {
    fn put(&mut self, key: K, value: V) {
        self.insert(key, value);
    }

    /// From enough entries, std's `FromIterator`, which builds the tree left
    /// to right with full nodes where each insert searches it from its root.
    /// Keys out of order are sorted first (a stable sort: equal keys stay in
    /// document order) and a repeated key keeps its first spelling and takes
    /// the later value, as `insert` does; `dedup_by` drops what is replaced,
    /// which may panic, and leaves the vector whole then, where std's own
    /// removal of duplicates inside the bulk build would leak the tree built
    /// so far. Keys in strictly increasing order (a map serialised from a
    /// `BTreeMap`, package.json's dependencies) skip both passes.
    ///
    /// Tried and not kept (package.json, 2026-12-06): sorted keys inserted
    /// from the last, each compared with the first only (std's `insert` cost
    /// more than the vector it saves), and an array on the stack for up to
    /// eleven entries through `From<[(K, V); N]>` (slower than the vector).
    fn put_entries(&mut self, entries: &mut Staged<K, V>) {
        if !self.is_empty() || entries.len() < BTREE_BULK_MIN {
            for (key, value) in entries {
                self.insert(key, value);
            }
            return;
        }
        let increasing = entries.keys_increasing();
        let mut entries = entries.move_to_vec();
        if !increasing {
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            entries.dedup_by(|later, earlier| {
                let same = later.0 == earlier.0;
                if same {
                    core::mem::swap(&mut later.1, &mut earlier.1);
                }
                same
            });
        }
        *self = entries.into_iter().collect();
    }
}

/// A map member staged on the element stack ([`StagedMap`]): `repr(C)`, so the
/// key is at offset 0 and the value at the offset [`staged_map`] reports.
#[repr(C)]
struct Entry<K, V> {
    key: K,
    value: V,
}

/// The [`StagedMap`] of a map type `M` with keys `K` and values `V`.
pub(crate) const fn staged_map<M: AnyMap<K, V>, K, V>() -> StagedMap {
    StagedMap {
        entry_size: size_of::<Entry<K, V>>(),
        entry_align: align_of::<Entry<K, V>>(),
        value_offset: core::mem::offset_of!(Entry<K, V>, value),
        finish: map_finish::<M, K, V>,
        discard: map_discard::<K, V>,
    }
}

/// [`StagedMap::finish`] for `M`.
///
/// # Safety
/// The stack holds exactly `n` initialised entries of `Entry<K, V>` pushed
/// since `mark`; `dst` holds an empty `M` (made by [`map_new`] at the `{`).
unsafe fn map_finish<M: AnyMap<K, V>, K, V>(
    elements: &mut Elements,
    mark: Mark,
    n: usize,
    dst: *mut u8,
) -> bool {
    let (size, align) = (size_of::<Entry<K, V>>(), align_of::<Entry<K, V>>());
    // The entries as one run: where they lie on the stack, or, where they
    // span chunks, moved (and popped) into a buffer that is freed below
    // without dropping anything (its length stays 0).
    let mut spilled = Vec::<Entry<K, V>>::new();
    let run = match elements.run(mark, n, align) {
        Some(first) => first.cast::<Entry<K, V>>(),
        None => {
            spilled.reserve_exact(n);
            // SAFETY: the stack holds the `n` entries (caller); the buffer
            // has room for them and is not on the stack.
            unsafe { elements.finish(mark, n, size, align, spilled.as_mut_ptr().cast()) };
            spilled.as_mut_ptr()
        }
    };
    let mut entries = Staged {
        run,
        front: 0,
        back: n,
    };
    // User code may run (a replaced value's `Drop`, a key's `Ord` or `Hash`);
    // a decode it runs leases a stack of its own, so this one's entries stay
    // put.
    let built = crate::panic::catch(|| {
        // SAFETY: `dst` holds a live `M` (caller), borrowed only here.
        let map = unsafe { &mut *dst.cast::<M>() };
        map.put_entries(&mut entries);
    });
    // After a panic, the entries not moved out are still in the run.
    for i in entries.front..entries.back {
        // SAFETY: entry `i` is initialised and was not moved out; it is
        // dropped once, a panicking `Drop` caught (the first payload kept).
        crate::panic::catch(|| unsafe { run.add(i).drop_in_place() });
    }
    if !built {
        // SAFETY: the map is live and dropped once: nothing is left at `dst`.
        crate::panic::catch(|| unsafe { dst.cast::<M>().drop_in_place() });
    }
    elements.pop(mark);
    built
}

/// [`StagedMap::discard`] for entries of `Entry<K, V>`.
///
/// # Safety
/// The stack holds exactly `n` initialised entries of `Entry<K, V>` pushed
/// since `mark`.
unsafe fn map_discard<K, V>(elements: &mut Elements, mark: Mark, n: usize) -> bool {
    let (size, align) = (size_of::<Entry<K, V>>(), align_of::<Entry<K, V>>());
    let mut ok = true;
    for at in elements.addresses(mark, n, size, align) {
        // SAFETY: each entry is initialised and dropped once; a panicking
        // `Drop` is caught and stashed.
        ok &= crate::panic::catch(|| unsafe { at.cast::<Entry<K, V>>().drop_in_place() });
    }
    elements.pop(mark);
    ok
}

/// # Safety
/// `dst` is valid for an `M` write.
pub(crate) unsafe extern "C" fn map_new<M: AnyMap<K, V>, K, V>(dst: *mut u8) -> bool {
    // A map's hasher is user code: its `Default` may panic.
    crate::panic::catch(|| {
        let map = M::default();
        // SAFETY: as the caller guarantees.
        unsafe { dst.cast::<M>().write(map) }
    })
}

/// Inserts under a key given as text, for keys whose layout is a string kind
/// (built through that layout's `write`); returns `false` for other keys.
///
/// # Safety
/// `map` points to a live `M`; `key_ptr[..key_len]` is valid UTF-8; `decode` keeps
/// the [`SlotFn`] contract.
///
/// `L` is the key's layout-bearing type (`K` up to lifetimes).
pub(crate) unsafe extern "C" fn map_insert_with<M: AnyMap<K, V>, K, V, L: HasLayout>(
    map: *mut u8,
    key_ptr: *const u8,
    key_len: usize,
    decode: SlotFn,
    ctx: *mut c_void,
) -> bool {
    let Kind::String(text) = &L::LAYOUT.kind else {
        return false;
    };
    let mut slot = MaybeUninit::<V>::uninit();
    let mut key = MaybeUninit::<K>::uninit();
    // SAFETY: `slot` is room for a V, initialised when `decode` returns true; the
    // key bytes are UTF-8 by the caller's guarantee and `write` builds a whole K
    // from them; `map` is a live M.
    unsafe {
        if !decode(ctx, slot.as_mut_ptr().cast()) {
            return false;
        }
        let value = slot.assume_init();
        (text.write)(key.as_mut_ptr().cast(), key_ptr, key_len);
        let key = key.assume_init();
        let map = &mut *map.cast::<M>();
        // Replacing a value drops the old one, which may run a user Drop.
        crate::panic::catch(|| map.put(key, value))
    }
}

/// Decodes a key and then a value through the callbacks and inserts them.
///
/// # Safety
/// `map` points to a live `M`; both callbacks keep the [`SlotFn`] contract (for
/// `K` and `V`).
pub(crate) unsafe extern "C" fn map_insert<M: AnyMap<K, V>, K, V>(
    map: *mut u8,
    decode_key: SlotFn,
    key_ctx: *mut c_void,
    decode_value: SlotFn,
    value_ctx: *mut c_void,
) -> bool {
    let mut key = MaybeUninit::<K>::uninit();
    let mut value = MaybeUninit::<V>::uninit();
    // SAFETY: each slot is room for its type, initialised when its callback
    // returns true and then moved out once; the key is dropped if the value
    // fails (a panicking key `Drop` is caught and stashed).
    unsafe {
        if !decode_key(key_ctx, key.as_mut_ptr().cast()) {
            return false;
        }
        let key = key.assume_init();
        if !decode_value(value_ctx, value.as_mut_ptr().cast()) {
            crate::panic::catch(|| drop(key));
            return false;
        }
        let value = value.assume_init();
        let map = &mut *map.cast::<M>();
        crate::panic::catch(|| map.put(key, value))
    }
}

// SAFETY: the functions operate on the map only through its API (keys and values
// typed by their `Static` forms, the same types up to lifetimes).
unsafe impl<K, V, S> HasLayout for HashMap<K, V, S>
where
    K: HasLayout,
    K::Static: Eq + core::hash::Hash,
    V: HasLayout,
    S: BuildHasher + Default + 'static,
{
    type Static = HashMap<K::Static, V::Static, S>;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Self::Static>(
        "a map",
        Kind::Map(&MapLayout {
            key: LayoutRef::Lazy(layout_of::<K>),
            value: LayoutRef::Lazy(layout_of::<V>),
            new: map_new::<Self::Static, K::Static, V::Static>,
            insert_with: map_insert_with::<Self::Static, K::Static, V::Static, K>,
            insert: map_insert::<Self::Static, K::Static, V::Static>,
            for_each: Some(map_for_each::<Self::Static, K::Static, V::Static>),
            staged: Some(&staged_map::<Self::Static, K::Static, V::Static>()),
        }),
    );
}

// SAFETY: a map borrows what its keys and values borrow.
unsafe impl<'de, K, V, S> DecodeBorrowed<'de> for HashMap<K, V, S>
where
    K: DecodeBorrowed<'de>,
    K::Static: Eq + core::hash::Hash,
    V: DecodeBorrowed<'de>,
    S: BuildHasher + Default + 'static,
{
}

// SAFETY: as for HashMap.
unsafe impl<K: HasLayout, V: HasLayout> HasLayout for BTreeMap<K, V>
where
    K::Static: Ord,
{
    type Static = BTreeMap<K::Static, V::Static>;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Self::Static>(
        "a map",
        Kind::Map(&MapLayout {
            key: LayoutRef::Lazy(layout_of::<K>),
            value: LayoutRef::Lazy(layout_of::<V>),
            new: map_new::<Self::Static, K::Static, V::Static>,
            insert_with: map_insert_with::<Self::Static, K::Static, V::Static, K>,
            insert: map_insert::<Self::Static, K::Static, V::Static>,
            for_each: Some(map_for_each::<Self::Static, K::Static, V::Static>),
            staged: Some(&staged_map::<Self::Static, K::Static, V::Static>()),
        }),
    );
}

// SAFETY: as for HashMap.
unsafe impl<'de, K: DecodeBorrowed<'de>, V: DecodeBorrowed<'de>> DecodeBorrowed<'de>
    for BTreeMap<K, V>
where
    K::Static: Ord,
{
}

// ---------------------------------------------------------------------------
// Field initialisers used by the derive

/// An [`InitFn`] writing `T::default()`.
pub const fn default_init<T: Default>() -> InitFn {
    init_default::<T>
}

/// # Safety
/// `dst` is valid for a `T` write.
unsafe extern "C" fn init_default<T: Default>(dst: *mut u8) -> bool {
    crate::panic::catch(|| {
        let value = T::default();
        // SAFETY: as the caller guarantees.
        unsafe { dst.cast::<T>().write(value) }
    })
}

/// Writes `f()` to `dst`, catching a panic; the body of the [`InitFn`]s the derive
/// generates for `default = "path"`.
///
/// # Safety
/// `dst` is valid for a `T` write.
pub unsafe fn init_with<T>(dst: *mut u8, f: impl FnOnce() -> T) -> bool {
    crate::panic::catch(|| {
        let value = f();
        // SAFETY: as the caller guarantees.
        unsafe { dst.cast::<T>().write(value) }
    })
}

/// Decodes a `P` through `decode` into a temporary and writes `make(payload)` to
/// `dst`: the body of the [`DecodeVariantFn`](crate::layout::DecodeVariantFn)s the
/// derive generates, `make` building the variant from its payload. Returns what
/// `decode` returned; writes nothing on `false`.
///
/// # Safety
/// `dst` is valid for a `T` write; `decode` keeps the [`SlotFn`] contract for `P`.
pub unsafe fn decode_variant_with<P, T>(
    dst: *mut u8,
    decode: SlotFn,
    ctx: *mut c_void,
    make: impl FnOnce(P) -> T,
) -> bool {
    let mut slot = MaybeUninit::<P>::uninit();
    // SAFETY: `slot` is aligned room for a P, valid once `decode` returns true; it is
    // then moved out once. `make` only moves fields (generated code), so it cannot
    // panic.
    unsafe {
        if !decode(ctx, slot.as_mut_ptr().cast()) {
            return false;
        }
        dst.cast::<T>().write(make(slot.assume_init()));
    }
    true
}

/// Decodes an `F` through `decode`, converts it with `convert` and writes the
/// result to `dst`: the body of the [`ConvertFn`](crate::layout::ConvertFn)s the
/// derive generates for `from` / `try_from`. A conversion error's text goes to
/// `*message`; a panic in the conversion is caught and stashed.
///
/// # Safety
/// `dst` is valid for a `T` write; `decode` keeps the [`SlotFn`] contract for `F`;
/// `message` is valid for writes.
pub unsafe fn convert_with<F, T>(
    dst: *mut u8,
    decode: SlotFn,
    ctx: *mut c_void,
    message: *mut Option<Box<str>>,
    convert: impl FnOnce(F) -> Result<T, String>,
) -> bool {
    let mut slot = MaybeUninit::<F>::uninit();
    // SAFETY: `slot` is aligned room for an F, valid once `decode` returns true,
    // then moved out once; `dst` and `message` as the caller guarantees.
    unsafe {
        if !decode(ctx, slot.as_mut_ptr().cast()) {
            return false;
        }
        let source = slot.assume_init();
        let mut result = None;
        if !crate::panic::catch(|| result = Some(convert(source))) {
            return false;
        }
        match result {
            Some(Ok(value)) => {
                dst.cast::<T>().write(value);
                true
            }
            Some(Err(text)) => {
                message.write(Some(text.into_boxed_str()));
                false
            }
            None => false,
        }
    }
}

/// Writes variant `value` to `dst`; used by the derive for unit enums.
///
/// # Safety
/// `dst` is valid for a `T` write.
pub unsafe fn write_value<T>(dst: *mut u8, value: T) {
    // SAFETY: as the caller guarantees.
    unsafe { dst.cast::<T>().write(value) }
}

// ---------------------------------------------------------------------------
// Values built from their text

/// A type built from the text of one JSON value that the backend has
/// validated as serde_json parses it (numbers in range, depth), by jitson's
/// own code rather than a serde deserializer: the decode of a [`Kind::Serde`]
/// layout (`serde_json::Value`, http-serde's header values). Unused in a
/// build with neither feature.
#[allow(dead_code)]
pub(crate) trait FromValueText: Sized {
    /// The value, or serde's message refusing it.
    fn from_value_text(text: &[u8]) -> Result<Self, String>;
}

/// The [`SerdeFn`](crate::layout::SerdeFn) of a [`FromValueText`] type.
///
/// # Safety
/// `dst` is valid for a `T` write; `ptr[..len]` is one valid JSON value,
/// UTF-8; `message` is valid for writes.
#[allow(dead_code)]
pub(crate) unsafe extern "C" fn write_from_value_text<T: FromValueText>(
    dst: *mut u8,
    ptr: *const u8,
    len: usize,
    // A key is a JSON string, read as the value it is (serde_json's `MapKey`
    // answers a `Value`'s `deserialize_any` with the string).
    _key: bool,
    message: *mut Option<Box<str>>,
) -> bool {
    // SAFETY: as the caller guarantees.
    let text = unsafe { core::slice::from_raw_parts(ptr, len) };
    // SAFETY: as the caller guarantees, for whichever is written.
    unsafe {
        match T::from_value_text(text) {
            Ok(value) => {
                dst.cast::<T>().write(value);
                true
            }
            Err(e) => {
                message.write(Some(e.into_boxed_str()));
                false
            }
        }
    }
}
