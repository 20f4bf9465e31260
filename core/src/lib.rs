//! jitson-core: the layout model every jitson backend decodes against.
//!
//! A [`TypeLayout`](layout::TypeLayout) describes one Rust type's memory: its size,
//! alignment, how to drop it, and a [`Kind`](layout::Kind) saying which JSON shapes it
//! accepts and how a value is written. Struct layouts list their fields with JSON
//! name, aliases, byte offset and the field's own layout. Std types whose memory
//! layout Rust does not guarantee (String, Vec, Option, Box, the maps) are reached
//! only through small tables of monomorphised `extern "C"` functions, never through
//! assumed offsets.
//!
//! The crate also holds what both backends share: the [`Decode`] trait and its std
//! impls, the [`Error`] type, the number and string routines of the grammar
//! ([`text`]), and the panic bridge that keeps user code from unwinding through
//! backend frames ([`panic`]).
//!
//! Users do not depend on this crate directly: the `jitson` facade re-exports what
//! they need.

pub mod brackets;
pub mod column;
#[doc(hidden)]
pub mod convert;
pub mod decode;
pub mod elements;
pub mod encode;
pub mod error;
#[cfg(any(
    feature = "chrono",
    feature = "http",
    feature = "uuid",
    feature = "url",
    feature = "indexmap",
    feature = "smallvec",
    feature = "bytes",
    feature = "serde_bytes",
    feature = "ordered-float",
    feature = "time",
    feature = "rust_decimal"
))]
mod foreign;
pub mod keys;
pub mod layout;
pub mod panic;
pub mod raw;
pub mod records;
#[doc(hidden)]
pub mod route;
#[cfg(feature = "serde")]
pub mod serde_bridge;
#[cfg(feature = "serde")]
pub mod serde_de;
#[cfg(feature = "serde")]
pub mod serde_flatten;
#[cfg(feature = "serde")]
pub mod serde_key;
pub mod stack;
pub mod std_enums;
pub mod text;
pub mod write;

pub use decode::{Decode, DecodeBorrowed, HasLayout};
pub use error::{Category, Error, ErrorCode, ErrorKind, Found, PathSegment};
pub use raw::{IgnoredAny, RawValue};
