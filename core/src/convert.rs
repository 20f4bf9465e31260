//! std types that serde reads as another type and converts: sets and other
//! collections (from a JSON array), shared pointers and cells (from their
//! content), `NonZero*` (from the integer), `std::net` addresses and `PathBuf`
//! (from a string), atomics (from their value). `Duration`, `SystemTime` and
//! `RangeInclusive` are read through a struct of serde's fields and converted
//! by the same means, in [`records`](crate::records).
//!
//! Each is a [`Kind::Convert`] layout over the source type's own layout, so
//! every backend decodes the source as usual and then calls the conversion (the
//! interpreter runs conversions; the JIT hands these kinds to it). What serde
//! accepts, and its messages, are the reference.

use core::ffi::c_void;
use core::hash::Hash;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, BinaryHeap, HashSet, LinkedList, VecDeque};
use std::hash::BuildHasher;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::num::{
    NonZeroI8, NonZeroI16, NonZeroI32, NonZeroI64, NonZeroI128, NonZeroIsize, NonZeroU8,
    NonZeroU16, NonZeroU32, NonZeroU64, NonZeroU128, NonZeroUsize, Wrapping,
};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{
    AtomicBool, AtomicI8, AtomicI16, AtomicI32, AtomicI64, AtomicIsize, AtomicU8, AtomicU16,
    AtomicU32, AtomicU64, AtomicUsize,
};
use std::sync::{Arc, Mutex, RwLock};

use crate::decode::{Decode, convert_with, layout_of};
use crate::layout::{ConvertLayout, Kind, LayoutRef, SlotFn, TypeLayout};

/// A type read as `Source` and converted.
pub(crate) trait ConvertFrom: Sized + 'static {
    /// What is decoded from JSON.
    type Source: Decode;
    /// The layout the source is decoded with: the source's own, or (for a
    /// type whose serde visitor names itself in every refusal, "expected a
    /// nonzero u64") the same kind in the type's words, [`reworded`].
    const SOURCE: LayoutRef = LayoutRef::Lazy(layout_of::<Self::Source>);
    /// Builds the value, or says why the source is refused (serde's message).
    fn convert(source: Self::Source) -> Result<Self, String>;
}

/// The identity of a [`reworded`] layout of `T`'s source: not the source's,
/// nor `T`'s own.
struct Reworded<T>(core::marker::PhantomData<T>);

/// `S`'s layout in other words: the same kind (an integer's or `String`'s),
/// `expecting` in its refusals, under an identity of its own, `Id`. A
/// conversion reads its source with it where serde's visitor for the
/// converted type names that type in every refusal (`NonZeroU64` with `-3`:
/// "expected a nonzero u64", where a `u64` says "expected u64").
pub(crate) const fn reworded<S: Decode, Id: 'static>(expecting: &'static str) -> TypeLayout {
    let kind = match &S::LAYOUT.kind {
        Kind::Bool => Kind::Bool,
        Kind::I8 => Kind::I8,
        Kind::I16 => Kind::I16,
        Kind::I32 => Kind::I32,
        Kind::I64 => Kind::I64,
        Kind::I128 => Kind::I128,
        Kind::U8 => Kind::U8,
        Kind::U16 => Kind::U16,
        Kind::U32 => Kind::U32,
        Kind::U64 => Kind::U64,
        Kind::U128 => Kind::U128,
        Kind::String(text) => Kind::String(text),
        _ => panic!("reworded: a scalar or string source"),
    };
    TypeLayout::with_identity::<S, Reworded<Id>>(expecting, kind)
}

/// The [`ConvertFn`](crate::layout::ConvertFn) of a [`ConvertFrom`] type.
///
/// # Safety
/// As [`convert_with`] for `T::Source` and `T`.
unsafe extern "C" fn convert_fn<T: ConvertFrom>(
    dst: *mut u8,
    decode: SlotFn,
    ctx: *mut c_void,
    message: *mut Option<Box<str>>,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe { convert_with::<T::Source, T>(dst, decode, ctx, message, T::convert) }
}

/// The layout of a [`ConvertFrom`] type.
pub(crate) const fn converted<T: ConvertFrom>(expecting: &'static str) -> TypeLayout {
    TypeLayout::of::<T>(
        expecting,
        Kind::Convert(&ConvertLayout {
            from: T::SOURCE,
            convert: convert_fn::<T>,
            into: None,
        }),
    )
}

/// `Decode` for types implementing [`ConvertFrom`]: `ty => "expecting"`.
macro_rules! decode_by_conversion {
    ($([$($generics:tt)*] $ty:ty => $expecting:literal;)*) => {$(
        // SAFETY: `convert_fn` writes a whole value of the type, built by
        // `ConvertFrom::convert` from a source decoded with its own layout.
        unsafe impl<$($generics)*> $crate::decode::HasLayout for $ty {
            type Static = Self;
            const LAYOUT: &'static $crate::layout::TypeLayout =
                &$crate::convert::converted::<$ty>($expecting);
        }

        // SAFETY: the type and its source own their data.
        unsafe impl<'de, $($generics)*> $crate::decode::DecodeBorrowed<'de> for $ty {}
    )*};
}
#[allow(unused_imports)]
pub(crate) use decode_by_conversion;

// ---------------------------------------------------------------------------
// Collections, from a JSON array (duplicates in sets: the last one stays, as in
// serde, whose set impls insert each element).

impl<T: Decode + Eq + Hash, S: BuildHasher + Default + 'static> ConvertFrom for HashSet<T, S> {
    type Source = Vec<T>;
    fn convert(v: Vec<T>) -> Result<Self, String> {
        Ok(v.into_iter().collect())
    }
}

impl<T: Decode + Ord> ConvertFrom for BTreeSet<T> {
    type Source = Vec<T>;
    fn convert(v: Vec<T>) -> Result<Self, String> {
        Ok(v.into_iter().collect())
    }
}

impl<T: Decode + Ord> ConvertFrom for BinaryHeap<T> {
    type Source = Vec<T>;
    fn convert(v: Vec<T>) -> Result<Self, String> {
        Ok(BinaryHeap::from(v))
    }
}

impl<T: Decode> ConvertFrom for VecDeque<T> {
    type Source = Vec<T>;
    fn convert(v: Vec<T>) -> Result<Self, String> {
        Ok(VecDeque::from(v))
    }
}

impl<T: Decode> ConvertFrom for LinkedList<T> {
    type Source = Vec<T>;
    fn convert(v: Vec<T>) -> Result<Self, String> {
        Ok(v.into_iter().collect())
    }
}

impl<T: Decode> ConvertFrom for Box<[T]> {
    type Source = Vec<T>;
    fn convert(v: Vec<T>) -> Result<Self, String> {
        Ok(v.into_boxed_slice())
    }
}

decode_by_conversion! {
    [T: Decode + Eq + Hash, S: BuildHasher + Default + 'static] HashSet<T, S> => "a sequence";
    [T: Decode + Ord] BTreeSet<T> => "a sequence";
    [T: Decode + Ord] BinaryHeap<T> => "a sequence";
    [T: Decode] VecDeque<T> => "a sequence";
    [T: Decode] LinkedList<T> => "a sequence";
    [T: Decode] Box<[T]> => "a sequence";
}

// ---------------------------------------------------------------------------
// Pointers and cells, from their content.

macro_rules! wrap {
    ($([$($generics:tt)*] $ty:ty => $source:ty, $make:expr;)*) => {$(
        impl<$($generics)*> ConvertFrom for $ty {
            type Source = $source;
            fn convert(v: $source) -> Result<Self, String> {
                Ok($make(v))
            }
        }
    )*};
}

wrap! {
    [T: Decode] Rc<T> => T, Rc::new;
    [T: Decode] Arc<T> => T, Arc::new;
    [] Rc<str> => String, Rc::from;
    [] Arc<str> => String, Arc::from;
    [T: Decode] Rc<[T]> => Vec<T>, Rc::from;
    [T: Decode] Arc<[T]> => Vec<T>, Arc::from;
    [T: Decode] RefCell<T> => T, RefCell::new;
    [T: Decode + Copy] Cell<T> => T, Cell::new;
    [T: Decode] Mutex<T> => T, Mutex::new;
    [T: Decode] RwLock<T> => T, RwLock::new;
    [T: Decode] Wrapping<T> => T, Wrapping;
    [T: Decode] core::cmp::Reverse<T> => T, core::cmp::Reverse;
}

impl ConvertFrom for PathBuf {
    type Source = String;
    const SOURCE: LayoutRef = LayoutRef::Node(&reworded::<String, PathBuf>("path string"));
    fn convert(text: String) -> Result<Self, String> {
        Ok(PathBuf::from(text))
    }
}

decode_by_conversion! {
    [T: Decode] Rc<T> => "a shared value";
    [T: Decode] Arc<T> => "a shared value";
    [] Rc<str> => "a string";
    [] Arc<str> => "a string";
    [T: Decode] Rc<[T]> => "a sequence";
    [T: Decode] Arc<[T]> => "a sequence";
    [T: Decode] RefCell<T> => "a value";
    [T: Decode + Copy] Cell<T> => "a value";
    [T: Decode] Mutex<T> => "a value";
    [T: Decode] RwLock<T> => "a value";
    [T: Decode] Wrapping<T> => "a value";
    [T: Decode] core::cmp::Reverse<T> => "a value";
    [] PathBuf => "path string";
}

// ---------------------------------------------------------------------------
// Non-zero integers, from the integer.

macro_rules! nonzero {
    ($($ty:ty => $int:ty, $expecting:literal;)*) => {$(
        impl ConvertFrom for $ty {
            type Source = $int;
            const SOURCE: LayoutRef = LayoutRef::Node(&reworded::<$int, $ty>($expecting));
            fn convert(n: $int) -> Result<Self, String> {
                <$ty>::new(n).ok_or_else(|| {
                    format!("invalid value: integer `0`, expected {}", $expecting)
                })
            }
        }
        decode_by_conversion! { [] $ty => $expecting; }
    )*};
}

nonzero! {
    NonZeroU8 => u8, "a nonzero u8";
    NonZeroU16 => u16, "a nonzero u16";
    NonZeroU32 => u32, "a nonzero u32";
    NonZeroU64 => u64, "a nonzero u64";
    NonZeroU128 => u128, "a nonzero u128";
    NonZeroUsize => usize, "a nonzero usize";
    NonZeroI8 => i8, "a nonzero i8";
    NonZeroI16 => i16, "a nonzero i16";
    NonZeroI32 => i32, "a nonzero i32";
    NonZeroI64 => i64, "a nonzero i64";
    NonZeroI128 => i128, "a nonzero i128";
    NonZeroIsize => isize, "a nonzero isize";
}

// ---------------------------------------------------------------------------
// Atomics, from their value (serde's impls, where the target has them).

macro_rules! atomic {
    ($($ty:ident => $value:ty, $expecting:literal;)*) => {$(
        wrap! { [] $ty => $value, $ty::new; }
        decode_by_conversion! { [] $ty => $expecting; }
    )*};
}

atomic! {
    AtomicBool => bool, "a boolean";
    AtomicI8 => i8, "i8";
    AtomicI16 => i16, "i16";
    AtomicI32 => i32, "i32";
    AtomicI64 => i64, "i64";
    AtomicIsize => isize, "isize";
    AtomicU8 => u8, "u8";
    AtomicU16 => u16, "u16";
    AtomicU32 => u32, "u32";
    AtomicU64 => u64, "u64";
    AtomicUsize => usize, "usize";
}

// ---------------------------------------------------------------------------
// Network addresses, from their text (serde's human-readable form).

macro_rules! parsed {
    ($($ty:ty => $expecting:literal;)*) => {$(
        impl ConvertFrom for $ty {
            type Source = String;
            const SOURCE: LayoutRef = LayoutRef::Node(&reworded::<String, $ty>($expecting));
            fn convert(text: String) -> Result<Self, String> {
                text.parse().map_err(|e: std::net::AddrParseError| e.to_string())
            }
        }
        decode_by_conversion! { [] $ty => $expecting; }
    )*};
}

parsed! {
    IpAddr => "IP address";
    Ipv4Addr => "IPv4 address";
    Ipv6Addr => "IPv6 address";
    SocketAddr => "socket address";
    SocketAddrV4 => "IPv4 socket address";
    SocketAddrV6 => "IPv6 socket address";
}
