//! The [`Encode`] trait and its impls for std types: encoding's side of the
//! layout model.
//!
//! A type is encoded from a [`TypeLayout`] of the same model decoding uses,
//! read through the kinds' encoding accessors (`read`, `get`, `as_slice`,
//! `for_each`, `variant_of`, `into`); no backend reads the memory of a std type
//! directly. For a type without type parameters the layout is the one decoding
//! uses (`<T as HasLayout>::LAYOUT`, which carries both directions). A generic
//! container's encode layout differs from its decode layout only in its edges,
//! which lead to the parameters' encode layouts; a derived type gets the layout
//! `#[derive(jitson::Encode)]` builds, whose names are the serialize names.
//!
//! What each std type writes is what its `serde::Serialize` impl writes through
//! serde_json: sets and other collections as arrays, pointers and cells as their
//! content, `NonZero*` and atomics as the integer, addresses and paths as
//! strings; `Duration`, `SystemTime` and the ranges as the structs in
//! [`records`](crate::records).
//!
//! Functions that only decoding calls are still present in an encode layout
//! (the layout structs have no empty slots); where a generic encode layout
//! cannot offer them they are [`never_decoded`] stubs, which abort: encode
//! layouts are reached only through [`Encode::ENCODE`], which only encoders read.

use core::ffi::c_void;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::num::{
    NonZeroI8, NonZeroI16, NonZeroI32, NonZeroI64, NonZeroI128, NonZeroIsize, NonZeroU8,
    NonZeroU16, NonZeroU32, NonZeroU64, NonZeroU128, NonZeroUsize, Wrapping,
};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::{Arc, Mutex, RwLock};

use crate::decode::{HasLayout, deref_get, map_for_each, option_get, read_text, slice_of};
use crate::layout::{
    ArrayLayout, BoxLayout, EncodeSlotFn, Kind, LayoutRef, MapLayout, OptionLayout, SlotFn,
    StringLayout, TypeLayout, VecLayout,
};

/// A type jitson can encode: serde's `Serialize` in jitson's terms.
///
/// Implemented by `#[derive(jitson::Encode)]` and for std types.
///
/// # Safety
/// `ENCODE` must describe `Self` exactly, as [`HasLayout`] requires of its
/// layout, and every encoding accessor in it must read a live `Self` (or the
/// part of it its kind names) without assuming anything else about its memory.
#[diagnostic::on_unimplemented(
    message = "jitson cannot encode `{Self}`: it has no `#[derive(jitson::Encode)]`",
    label = "`{Self}` is not a type jitson encodes",
    note = "add `#[derive(jitson::Encode)]` to `{Self}`; a field whose type has only serde's \
            `Serialize` needs nothing, but a type parameter of a derived type needs jitson's \
            traits unless the container's `#[serde(bound(...))]` names serde's instead"
)]
pub unsafe trait Encode {
    /// `Self` with every lifetime `'static`: the type's identity.
    type Static: 'static;
    /// The descriptor encoders read.
    const ENCODE: &'static TypeLayout;
}

/// The encode layout of `T`, as a [`LayoutRef`] for layout edges.
pub fn encode_layout_of<T: Encode>() -> &'static TypeLayout {
    T::ENCODE
}

/// A decoding function slot of an encode layout (see the module docs); aborts.
pub fn never_decoded() -> ! {
    // Unwinding is not allowed here (an `extern "C"` frame may be above), and
    // reaching this is a bug in jitson, not in the input.
    std::process::abort()
}

pub(crate) unsafe extern "C" fn no_write(_dst: *mut u8) {
    never_decoded()
}
unsafe extern "C" fn no_write_text(_dst: *mut u8, _ptr: *const u8, _len: usize) {
    never_decoded()
}
pub(crate) unsafe extern "C" fn no_decode_into(
    _dst: *mut u8,
    _decode: SlotFn,
    _ctx: *mut c_void,
) -> bool {
    never_decoded()
}
pub(crate) unsafe extern "C" fn no_with_capacity(_dst: *mut u8, _len: usize) -> *mut u8 {
    never_decoded()
}
pub(crate) unsafe extern "C" fn no_set_len(_vec: *mut u8, _len: usize) {
    never_decoded()
}
pub(crate) unsafe extern "C" fn no_map_new(_dst: *mut u8) -> bool {
    never_decoded()
}
pub(crate) unsafe extern "C" fn no_insert_with(
    _map: *mut u8,
    _key_ptr: *const u8,
    _key_len: usize,
    _decode: SlotFn,
    _ctx: *mut c_void,
) -> bool {
    never_decoded()
}
pub(crate) unsafe extern "C" fn no_insert(
    _map: *mut u8,
    _decode_key: SlotFn,
    _key_ctx: *mut c_void,
    _decode_value: SlotFn,
    _value_ctx: *mut c_void,
) -> bool {
    never_decoded()
}
/// The `convert` slot of an encode layout's conversion (see the module docs);
/// aborts.
///
/// # Safety
/// Always safe to call; it never returns.
pub unsafe extern "C" fn never_convert(
    _dst: *mut u8,
    _decode: SlotFn,
    _ctx: *mut c_void,
    _message: *mut Option<Box<str>>,
) -> bool {
    never_decoded()
}

/// The [`IntoFn`](crate::layout::IntoFn) of a conversion: `make` builds the
/// value written in place of `*src` (or refuses with serde's message), which
/// is encoded through the callback and dropped. Catches panics (stashed).
///
/// # Safety
/// `src` points to a live `S`; `encode` keeps the [`EncodeSlotFn`] contract
/// for `T`; `message` is valid for writes.
pub unsafe fn into_with<S, T>(
    src: *const u8,
    encode: EncodeSlotFn,
    ctx: *mut c_void,
    message: *mut Option<Box<str>>,
    make: impl FnOnce(&S) -> Result<T, String>,
) -> bool {
    let mut made = None;
    // SAFETY: `src` is a live S, as the caller guarantees.
    if !crate::panic::catch(|| made = Some(make(unsafe { &*src.cast::<S>() }))) {
        return false;
    }
    match made {
        Some(Ok(value)) => {
            // SAFETY: `value` is a live T for the whole call.
            let ok = unsafe { encode(ctx, core::ptr::from_ref(&value).cast()) };
            crate::panic::catch(|| drop(value)) && ok
        }
        Some(Err(text)) => {
            // SAFETY: as the caller guarantees.
            unsafe { message.write(Some(text.into_boxed_str())) };
            false
        }
        None => false,
    }
}

// ---------------------------------------------------------------------------
// Types whose one layout serves both directions.

macro_rules! same_layout {
    ($([$($generics:tt)*] $ty:ty => $static:ty;)*) => {$(
        // SAFETY: the decode layout describes the type and carries the encoding
        // accessors, which read it through its own API.
        unsafe impl<$($generics)*> Encode for $ty {
            type Static = $static;
            const ENCODE: &'static TypeLayout = <$ty as HasLayout>::LAYOUT;
        }
    )*};
}

same_layout! {
    [] bool => bool;
    [] i8 => i8;
    [] i16 => i16;
    [] i32 => i32;
    [] i64 => i64;
    [] i128 => i128;
    [] isize => isize;
    [] u8 => u8;
    [] u16 => u16;
    [] u32 => u32;
    [] u64 => u64;
    [] u128 => u128;
    [] usize => usize;
    [] f32 => f32;
    [] f64 => f64;
    [] char => char;
    [] String => String;
    [] Box<str> => Box<str>;
    [] () => ();
    ['a] &'a str => &'static str;
    ['a] Cow<'a, str> => Cow<'static, str>;
    [] crate::raw::RawValue => crate::raw::RawValue;
    [] crate::raw::IgnoredAny => crate::raw::IgnoredAny;
}

#[cfg(feature = "serde")]
same_layout! {
    [] serde_json::Value => serde_json::Value;
    [] serde_json::Map<String, serde_json::Value> => serde_json::Map<String, serde_json::Value>;
    [] Box<serde_json::value::RawValue> => Box<serde_json::value::RawValue>;
    ['a] &'a serde_json::value::RawValue => &'static serde_json::value::RawValue;
}

// ---------------------------------------------------------------------------
// Option, pointers, references.

// SAFETY: `option_get` reads an `Option<T::Static>` (T up to lifetimes).
unsafe impl<T: Encode> Encode for Option<T> {
    type Static = Option<T::Static>;
    const ENCODE: &'static TypeLayout = &TypeLayout::of::<Option<T::Static>>(
        "an option",
        Kind::Option(&OptionLayout {
            some: LayoutRef::Lazy(encode_layout_of::<T>),
            write_none: no_write,
            decode_some: no_decode_into,
            get: option_get::<T::Static>,
        }),
    );
}

/// `Encode` for pointers that write their target: `[generics] Ptr => Static, Target`.
macro_rules! pointer {
    ($([$($generics:tt)*] $ty:ty => $static:ty, $target:ty;)*) => {$(
        // SAFETY: `deref_get` reads the pointer through `Deref`.
        unsafe impl<$($generics)*> Encode for $ty {
            type Static = $static;
            const ENCODE: &'static TypeLayout = &TypeLayout::of::<$static>(
                <$target as Encode>::ENCODE.expecting,
                Kind::Box(&BoxLayout {
                    inner: LayoutRef::Lazy(encode_layout_of::<$target>),
                    decode_new: no_decode_into,
                    get: deref_get::<$static, <$target as Encode>::Static>,
                }),
            );
        }
    )*};
}

pointer! {
    [T: Encode] Box<T> => Box<T::Static>, T;
    ['a, T: Encode] &'a T => &'static T::Static, T;
    ['a, T: Encode] &'a mut T => &'static mut T::Static, T;
    [T: Encode] Rc<T> => Rc<T::Static>, T;
    [T: Encode] Arc<T> => Arc<T::Static>, T;
}

/// `Encode` for shared strings, read as text.
macro_rules! shared_text {
    ($($ty:ty;)*) => {$(
        // SAFETY: `read_text` reads the text through `AsRef<str>`.
        unsafe impl Encode for $ty {
            type Static = $ty;
            const ENCODE: &'static TypeLayout = &TypeLayout::of::<$ty>(
                "a string",
                Kind::String(&StringLayout {
                    write: no_write_text,
                    read: Some(read_text::<$ty>),
                }),
            );
        }
    )*};
}

shared_text! {
    Rc<str>;
    Arc<str>;
}

// ---------------------------------------------------------------------------
// Sequences.

/// `Encode` for contiguous sequences: `[generics] Seq => Static, Elem`.
macro_rules! contiguous {
    ($([$($generics:tt)*] $ty:ty => $static:ty, $elem:ty;)*) => {$(
        // SAFETY: `slice_of` reads the elements through `AsRef<[T]>`.
        unsafe impl<$($generics)*> Encode for $ty {
            type Static = $static;
            const ENCODE: &'static TypeLayout = &TypeLayout::of::<$static>(
                "a sequence",
                Kind::Vec(&VecLayout {
                    elem: LayoutRef::Lazy(encode_layout_of::<$elem>),
                    new: no_write,
                    with_capacity: no_with_capacity,
                    set_len: no_set_len,
                    as_slice: slice_of::<$static, <$elem as Encode>::Static>,
                    byte_strings: false,
                }),
            );
        }
    )*};
}

contiguous! {
    [T: Encode] Vec<T> => Vec<T::Static>, T;
    [T: Encode] Box<[T]> => Box<[T::Static]>, T;
    [T: Encode] Rc<[T]> => Rc<[T::Static]>, T;
    [T: Encode] Arc<[T]> => Arc<[T::Static]>, T;
    ['a, T: Encode] &'a [T] => &'static [T::Static], T;
}

// SAFETY: `[T; N]` stores N values of T contiguously.
unsafe impl<T: Encode, const N: usize> Encode for [T; N] {
    type Static = [T::Static; N];
    const ENCODE: &'static TypeLayout = &TypeLayout::of::<[T::Static; N]>(
        "an array",
        Kind::Array(&ArrayLayout {
            elem: LayoutRef::Lazy(encode_layout_of::<T>),
            len: N,
        }),
    );
}

// ---------------------------------------------------------------------------
// Tuples: `Encode` is implemented beside `HasLayout`, by `decode.rs`'s `tuple!`.

// ---------------------------------------------------------------------------
// Maps

/// `Encode` for maps: `[generics] Map => Static`.
macro_rules! map {
    ($([$($generics:tt)*] $ty:ty => $static:ty, $k:ty, $v:ty;)*) => {$(
        // SAFETY: `map_for_each` reads the map through its iterator.
        unsafe impl<$($generics)*> Encode for $ty {
            type Static = $static;
            const ENCODE: &'static TypeLayout = &TypeLayout::of::<$static>(
                "a map",
                Kind::Map(&MapLayout {
                    key: LayoutRef::Lazy(encode_layout_of::<$k>),
                    value: LayoutRef::Lazy(encode_layout_of::<$v>),
                    new: no_map_new,
                    insert_with: no_insert_with,
                    insert: no_insert,
                    staged: None,
                    for_each: Some(map_for_each::<$static, <$k as Encode>::Static, <$v as Encode>::Static>),
                }),
            );
        }
    )*};
}

map! {
    [K: Encode, V: Encode, S: 'static] HashMap<K, V, S> => HashMap<K::Static, V::Static, S>, K, V;
    [K: Encode, V: Encode] BTreeMap<K, V> => BTreeMap<K::Static, V::Static>, K, V;
}

// ---------------------------------------------------------------------------
// Cells, wrappers and values serde writes as another type.

/// A type written as another: what [`into_fn`] converts through.
pub trait IntoTarget: 'static {
    /// What is written in place of the value.
    type Target: Encode;
    /// Builds it, or refuses with serde's message.
    fn make(&self) -> Result<Self::Target, String>;
}

/// The [`IntoFn`](crate::layout::IntoFn) of an [`IntoTarget`] type.
///
/// # Safety
/// As [`into_with`] for `S` and `S::Target`.
pub unsafe extern "C" fn into_fn<S: IntoTarget>(
    src: *const u8,
    encode: EncodeSlotFn,
    ctx: *mut c_void,
    message: *mut Option<Box<str>>,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe { into_with::<S, S::Target>(src, encode, ctx, message, S::make) }
}

/// `Encode` for types written as another: `[generics] Type => Target, |value| target`.
macro_rules! converted {
    ($([$($generics:tt)*] $ty:ty => $target:ty, $expecting:literal, $make:expr;)*) => {$(
        impl<$($generics)*> $crate::encode::IntoTarget for $ty {
            type Target = $target;
            fn make(&self) -> Result<$target, String> {
                ($make)(self)
            }
        }

        // SAFETY: `into_fn` builds the target from a shared reference to the value.
        unsafe impl<$($generics)*> $crate::encode::Encode for $ty {
            type Static = $ty;
            const ENCODE: &'static $crate::layout::TypeLayout = &$crate::layout::TypeLayout::of::<$ty>(
                $expecting,
                $crate::layout::Kind::Convert(&$crate::layout::ConvertLayout {
                    from: $crate::layout::LayoutRef::Lazy($crate::encode::encode_layout_of::<$target>),
                    convert: $crate::encode::never_convert,
                    into: Some($crate::encode::into_fn::<$ty>),
                }),
            );
        }
    )*};
}
#[allow(unused_imports)]
pub(crate) use converted;

converted! {
    [T: Encode<Static = T> + Copy + 'static] Cell<T> => T, "a value", |c: &Cell<T>| Ok(c.get());
    [T: Encode<Static = T> + 'static] RefCell<T> => std::cell::Ref<'static, T>, "a value",
        |c: &RefCell<T>| match c.try_borrow() {
            // SAFETY: the borrow lives only while the value is encoded, inside
            // `into_with`, while `*src` (the RefCell) is alive.
            Ok(r) => Ok(unsafe { core::mem::transmute::<std::cell::Ref<'_, T>, std::cell::Ref<'static, T>>(r) }),
            Err(_) => Err("already mutably borrowed".to_owned()),
        };
    [T: Encode<Static = T> + 'static] Mutex<T> => std::sync::MutexGuard<'static, T>, "a value",
        |m: &Mutex<T>| match m.lock() {
            // SAFETY: as for RefCell.
            Ok(g) => Ok(unsafe { core::mem::transmute::<std::sync::MutexGuard<'_, T>, std::sync::MutexGuard<'static, T>>(g) }),
            Err(_) => Err("lock poison error while serializing".to_owned()),
        };
    [T: Encode<Static = T> + 'static] RwLock<T> => std::sync::RwLockReadGuard<'static, T>, "a value",
        |m: &RwLock<T>| match m.read() {
            // SAFETY: as for RefCell.
            Ok(g) => Ok(unsafe { core::mem::transmute::<std::sync::RwLockReadGuard<'_, T>, std::sync::RwLockReadGuard<'static, T>>(g) }),
            Err(_) => Err("lock poison error while serializing".to_owned()),
        };
    [T: Encode<Static = T> + 'static] Wrapping<T> => &'static T, "a value",
        // SAFETY: the reference lives only while the value is encoded.
        |w: &Wrapping<T>| Ok(unsafe { &*core::ptr::from_ref(&w.0) });
    [T: Encode<Static = T> + 'static] core::cmp::Reverse<T> => &'static T, "a value",
        // SAFETY: as for Wrapping.
        |w: &core::cmp::Reverse<T>| Ok(unsafe { &*core::ptr::from_ref(&w.0) });
    [] PathBuf => &'static str, "path string", |p: &PathBuf| match p.to_str() {
        // SAFETY: as for Wrapping.
        Some(s) => Ok(unsafe { &*core::ptr::from_ref(s) }),
        None => Err("path contains invalid UTF-8 characters".to_owned()),
    };
}

impl IntoTarget for &'static std::path::Path {
    type Target = &'static str;
    fn make(&self) -> Result<&'static str, String> {
        match self.to_str() {
            // SAFETY: the text lives only while the value is encoded, inside
            // `into_with`, while the path it points into is alive.
            Some(s) => Ok(unsafe { &*core::ptr::from_ref(s) }),
            None => Err("path contains invalid UTF-8 characters".to_owned()),
        }
    }
}

// SAFETY: `into_fn` builds the text from a shared reference to the `&Path`,
// which has the layout of `&'static Path`.
unsafe impl Encode for &std::path::Path {
    type Static = &'static std::path::Path;
    const ENCODE: &'static TypeLayout = &TypeLayout::of::<&'static std::path::Path>(
        "path string",
        Kind::Convert(&crate::layout::ConvertLayout {
            from: LayoutRef::Lazy(encode_layout_of::<&'static str>),
            convert: never_convert,
            into: Some(into_fn::<&'static std::path::Path>),
        }),
    );
}

// Guards and references encode as their target.
pointer! {
    [T: Encode<Static = T> + 'static] std::cell::Ref<'static, T> => std::cell::Ref<'static, T>, T;
    [T: Encode<Static = T> + 'static] std::sync::MutexGuard<'static, T> => std::sync::MutexGuard<'static, T>, T;
    [T: Encode<Static = T> + 'static] std::sync::RwLockReadGuard<'static, T> => std::sync::RwLockReadGuard<'static, T>, T;
}

macro_rules! nonzero {
    ($($ty:ty => $int:ty;)*) => {
        converted! {$(
            [] $ty => $int, "a nonzero integer", |n: &$ty| Ok(n.get());
        )*}
    };
}

nonzero! {
    NonZeroU8 => u8;
    NonZeroU16 => u16;
    NonZeroU32 => u32;
    NonZeroU64 => u64;
    NonZeroU128 => u128;
    NonZeroUsize => usize;
    NonZeroI8 => i8;
    NonZeroI16 => i16;
    NonZeroI32 => i32;
    NonZeroI64 => i64;
    NonZeroI128 => i128;
    NonZeroIsize => isize;
}

/// Atomics, as their value loaded with `Ordering::Relaxed` (serde's load).
macro_rules! atomic {
    ($($ty:ident => $value:ty;)*) => {
        converted! {$(
            [] std::sync::atomic::$ty => $value, "a value",
                |a: &std::sync::atomic::$ty| Ok(a.load(std::sync::atomic::Ordering::Relaxed));
        )*}
    };
}

atomic! {
    AtomicBool => bool;
    AtomicI8 => i8;
    AtomicI16 => i16;
    AtomicI32 => i32;
    AtomicI64 => i64;
    AtomicIsize => isize;
    AtomicU8 => u8;
    AtomicU16 => u16;
    AtomicU32 => u32;
    AtomicU64 => u64;
    AtomicUsize => usize;
}

macro_rules! displayed {
    ($($ty:ty;)*) => {
        converted! {$(
            [] $ty => String, "an address", |a: &$ty| Ok(a.to_string());
        )*}
    };
}

displayed! {
    IpAddr;
    Ipv4Addr;
    Ipv6Addr;
    SocketAddr;
    SocketAddrV4;
    SocketAddrV6;
}

// ---------------------------------------------------------------------------
// Values encoded by serde (feature `serde`).

/// The [`SerializeFn`](crate::layout::SerializeFn) of a `Serialize` type:
/// serde_json's compact writer over the value.
///
/// # Safety
/// `src` points to a live `T`; `out` and `message` are valid for writes.
#[cfg(feature = "serde")]
pub unsafe extern "C" fn serialize_fn<T: serde::Serialize>(
    src: *const u8,
    out: *mut Vec<u8>,
    target: *mut crate::layout::SerializeTarget,
    message: *mut Option<Box<str>>,
) -> bool {
    // SAFETY: as the caller guarantees.
    unsafe {
        let value = &*src.cast::<T>();
        serialize_with(
            out,
            target,
            message,
            |ser| value.serialize(ser),
            |flat| value.serialize(flat),
            |key| value.serialize(key),
        )
    }
}

/// serde_json's compact serializer into a byte vector.
#[cfg(feature = "serde")]
pub type CompactSerializer<'o> = serde_json::Serializer<&'o mut Vec<u8>>;

/// Runs the serializer `target` names, writing to `*out`: with `target` null,
/// `serialize` with serde_json's compact serializer; for
/// [`SerializeTarget::Members`](crate::layout::SerializeTarget::Members),
/// `flatten` with serde's flattening (or tagging) serializer
/// ([`crate::serde_flatten`]); for
/// [`SerializeTarget::MapKey`](crate::layout::SerializeTarget::MapKey), `key`
/// with serde_json's map key serializer ([`crate::serde_key`]). The body of
/// every [`SerializeFn`](crate::layout::SerializeFn), the derive's for
/// `serialize_with` included (which passes the same call three times, one per
/// serializer). An error's message goes to `*message`; a panic is caught and
/// stashed. What was written before an error is left for the caller to
/// truncate.
///
/// # Safety
/// `out` and `message` are valid for writes; `target` is null or valid for
/// reads and writes.
#[cfg(feature = "serde")]
pub unsafe fn serialize_with(
    out: *mut Vec<u8>,
    target: *mut crate::layout::SerializeTarget,
    message: *mut Option<Box<str>>,
    serialize: impl FnOnce(&mut CompactSerializer<'_>) -> Result<(), serde_json::Error>,
    flatten: impl FnOnce(crate::serde_flatten::FlatMap<'_, '_, '_>) -> Result<(), serde_json::Error>,
    key: impl FnOnce(crate::serde_key::MapKey<'_, '_, '_>) -> Result<(), serde_json::Error>,
) -> bool {
    use crate::layout::SerializeTarget;
    // SAFETY: as the caller guarantees.
    let (out, target) = unsafe { (&mut *out, target.as_mut()) };
    let mut result = None;
    let finished = crate::panic::catch(|| {
        result = Some(match target {
            Some(SerializeTarget::Members(flattening)) => {
                crate::serde_flatten::flatten_into(out, flattening, flatten)
            }
            Some(SerializeTarget::MapKey) => crate::serde_key::key_into(out, key),
            None => serialize(&mut serde_json::Serializer::new(&mut *out)),
        });
    });
    match result {
        Some(Ok(())) if finished => true,
        Some(Err(e)) => {
            // SAFETY: as the caller guarantees.
            unsafe { message.write(Some(e.to_string().into_boxed_str())) };
            false
        }
        _ => false,
    }
}

/// Collections serde writes as a sequence in iteration order: encoded as a
/// vector of references to their elements (one allocation per encode; these
/// are rare in hot models, and the references keep the elements in place).
macro_rules! iterated {
    ($([$($generics:tt)*] $ty:ty => $elem:ty;)*) => {
        converted! {$(
            [$($generics)*] $ty => Vec<&'static $elem>, "a sequence",
                // SAFETY: the references live only while the value is encoded,
                // inside `into_fn`, while the collection is alive.
                |c: &$ty| Ok(c.iter().map(|e| unsafe { &*core::ptr::from_ref(e) }).collect());
        )*}
    };
}

iterated! {
    [T: Encode<Static = T> + 'static, S: 'static] HashSet<T, S> => T;
    [T: Encode<Static = T> + 'static] BTreeSet<T> => T;
    [T: Encode<Static = T> + 'static] BinaryHeap<T> => T;
    [T: Encode<Static = T> + 'static] VecDeque<T> => T;
    [T: Encode<Static = T> + 'static] LinkedList<T> => T;
}

/// Runs a `skip_serializing_if` predicate on the field at `field`, writing its
/// answer to `*skip`: the body of the [`SkipFn`](crate::layout::SkipFn)s the
/// derive generates. Returns `false` if the predicate panicked (stashed).
///
/// # Safety
/// `field` points to a live `T`; `skip` is valid for writes.
pub unsafe fn skip_with<T>(
    field: *const u8,
    skip: *mut bool,
    predicate: impl FnOnce(&T) -> bool,
) -> bool {
    crate::panic::catch(|| {
        // SAFETY: as the caller guarantees.
        unsafe { skip.write(predicate(&*field.cast::<T>())) }
    })
}

/// The `write` slot of an encode layout's enum (see the module docs); aborts.
///
/// # Safety
/// Always safe to call; it never returns.
pub unsafe extern "C" fn never_write_variant(_dst: *mut u8, _index: usize) {
    never_decoded()
}

/// The `decode` slot of an encode layout's serde field (see the module docs);
/// aborts.
///
/// # Safety
/// Always safe to call; it never returns.
pub unsafe extern "C" fn never_serde_decode(
    _dst: *mut u8,
    _ptr: *const u8,
    _len: usize,
    _key: bool,
    _message: *mut Option<Box<str>>,
) -> bool {
    never_decoded()
}
