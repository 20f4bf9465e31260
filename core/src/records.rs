//! std types serde writes as structs with named fields: `Duration`
//! (`{"secs", "nanos"}`), `SystemTime` (`{"secs_since_epoch",
//! "nanos_since_epoch"}`), `Range`, `RangeInclusive` (`{"start", "end"}`),
//! `RangeFrom` (`{"start"}`) and `RangeTo` (`{"end"}`).
//!
//! serde's impls (serde_core's `de/impls.rs` and `ser/impls.rs`) read each as
//! a struct that requires every field and refuses unknown and repeated keys
//! (or from an array of its fields, which jitson refuses for any struct:
//! `docs/semantics.md`, difference 2), and write each as a struct. Here each
//! is a struct layout with `deny_unknown_fields` whose fields are required
//! whatever their type, so every backend reads and writes them with the
//! struct kind's rules and messages. The ranges whose fields are public
//! (`Range`, `RangeFrom`, `RangeTo`) are that struct themselves, at their
//! fields' `offset_of!` offsets; the others are read as a struct of their own
//! here and converted, and written through the same struct.

use core::marker::PhantomData;
use std::ops::{Range, RangeFrom, RangeInclusive, RangeTo};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::convert::{ConvertFrom, decode_by_conversion};
use crate::decode::{DecodeBorrowed, HasLayout, layout_of};
use crate::encode::{Encode, converted, encode_layout_of};
use crate::layout::{
    DuplicateKeys, Field, Kind, LayoutRef, NewtypeLayout, SkipMode, StructLayout, TypeLayout,
};

/// The struct kind of a record: the fields in declaration order, each at its
/// `offset_of!` offset with the layout `layout` gives for its type.
macro_rules! record_kind {
    ($name:literal, $layout:ident, { $($field:ident: $ty:ty),* }) => {
        Kind::Struct(&StructLayout {
            name: $name,
            fields: &[$(Field {
                name: stringify!($field),
                aliases: &[],
                offset: core::mem::offset_of!(Self, $field),
                layout: LayoutRef::Lazy($layout::<$ty>),
                default: None,
                skip_if: None,
            }),*],
            skipped: &[],
            // serde's field visitors refuse any other key.
            deny_unknown_fields: true,
            duplicate_keys: DuplicateKeys::Error,
            skip_unknown: SkipMode::Validate,
            flatten: &[],
        })
    };
}

/// `HasLayout`, `DecodeBorrowed` and `Encode` for structs with named fields,
/// generic over at most one type: `[Param] Type as "Name" { field: Type, .. }`.
macro_rules! record {
    ($([$($param:ident)?] $ty:ident as $name:literal { $($field:ident: $fty:ty),* };)*) => {$(
        // SAFETY: each field is described at its `offset_of!` offset with its
        // own type's layout (through `required`, a newtype over it at offset
        // 0: the same memory), and every field is decoded, so once all are
        // written the memory is a whole value (the struct kind drops the
        // written ones otherwise). `Static` is the type up to lifetimes.
        unsafe impl<$($param: HasLayout)?> HasLayout for $ty<$($param)?> {
            type Static = $ty<$(<$param as HasLayout>::Static)?>;
            const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Self::Static>(
                concat!("struct ", $name),
                record_kind!($name, required, { $($field: $fty),* }),
            );
        }

        // SAFETY: a record borrows what its fields borrow.
        unsafe impl<'de, $($param: DecodeBorrowed<'de>)?> DecodeBorrowed<'de> for $ty<$($param)?> {}

        // SAFETY: as for `HasLayout`: the encoders read each field at its
        // offset with its type's encode layout.
        unsafe impl<$($param: Encode)?> Encode for $ty<$($param)?> {
            type Static = $ty<$(<$param as Encode>::Static)?>;
            const ENCODE: &'static TypeLayout = &TypeLayout::of::<Self::Static>(
                concat!("struct ", $name),
                record_kind!($name, encode_layout_of, { $($field: $fty),* }),
            );
        }
    )*};
}

/// Names the layout [`required`] gives a `T` (its identity is not `T`'s, so
/// caches keyed by identity keep the two apart).
struct Required<T>(PhantomData<T>);

/// The layout of a field read as a `T` that must be present even where `T`
/// is an `Option`.
trait RequiredLayout {
    const LAYOUT: &'static TypeLayout;
}

// The same JSON as `T`'s; only an absent field differs, as for a newtype
// struct that is not `transparent`.
impl<T: HasLayout> RequiredLayout for Required<T> {
    const LAYOUT: &'static TypeLayout = &TypeLayout::with_identity::<T::Static, Required<T::Static>>(
        T::LAYOUT.expecting,
        Kind::Newtype(&NewtypeLayout {
            offset: 0,
            inner: LayoutRef::Lazy(layout_of::<T>),
            skipped: &[],
            transparent: false,
        }),
    );
}

/// A record field's decode layout: `T`'s, required even where `T` is an
/// `Option` (serde's hand-written impls report a missing `start` of a
/// `Range<Option<u8>>`, where a derived struct would fill in `None`).
fn required<T: HasLayout>() -> &'static TypeLayout {
    <Required<T> as RequiredLayout>::LAYOUT
}

/// serde's wire form of a `Duration`.
#[doc(hidden)]
pub struct DurationParts {
    /// Whole seconds.
    pub secs: u64,
    /// Nanoseconds within the second.
    pub nanos: u32,
}

/// serde's wire form of a `SystemTime`: the duration since `UNIX_EPOCH`.
#[doc(hidden)]
pub struct SystemTimeParts {
    /// Whole seconds since the epoch.
    pub secs_since_epoch: u64,
    /// Nanoseconds within the second.
    pub nanos_since_epoch: u32,
}

/// serde's wire form of a `RangeInclusive`, whose fields are private.
#[doc(hidden)]
pub struct RangeInclusiveParts<Idx> {
    /// The first value.
    pub start: Idx,
    /// The last value.
    pub end: Idx,
}

record! {
    [] DurationParts as "Duration" { secs: u64, nanos: u32 };
    [] SystemTimeParts as "SystemTime" { secs_since_epoch: u64, nanos_since_epoch: u32 };
    [Idx] Range as "Range" { start: Idx, end: Idx };
    [Idx] RangeInclusiveParts as "RangeInclusive" { start: Idx, end: Idx };
    [Idx] RangeFrom as "RangeFrom" { start: Idx };
    [Idx] RangeTo as "RangeTo" { end: Idx };
}

/// Whether `nanos` carried into the seconds overflows them: serde's check
/// before it builds the `Duration`, whose constructor would panic.
fn carry_overflows(secs: u64, nanos: u32) -> bool {
    secs.checked_add(u64::from(nanos / 1_000_000_000)).is_none()
}

impl ConvertFrom for Duration {
    type Source = DurationParts;
    fn convert(parts: DurationParts) -> Result<Self, String> {
        if carry_overflows(parts.secs, parts.nanos) {
            return Err("overflow deserializing Duration".to_owned());
        }
        Ok(Duration::new(parts.secs, parts.nanos))
    }
}

impl ConvertFrom for SystemTime {
    type Source = SystemTimeParts;
    fn convert(parts: SystemTimeParts) -> Result<Self, String> {
        let (secs, nanos) = (parts.secs_since_epoch, parts.nanos_since_epoch);
        if carry_overflows(secs, nanos) {
            return Err("overflow deserializing SystemTime epoch offset".to_owned());
        }
        UNIX_EPOCH
            .checked_add(Duration::new(secs, nanos))
            .ok_or_else(|| "overflow deserializing SystemTime".to_owned())
    }
}

impl<Idx: crate::decode::Decode> ConvertFrom for RangeInclusive<Idx> {
    type Source = RangeInclusiveParts<Idx>;
    fn convert(parts: RangeInclusiveParts<Idx>) -> Result<Self, String> {
        Ok(parts.start..=parts.end)
    }
}

decode_by_conversion! {
    [] Duration => "struct Duration";
    [] SystemTime => "struct SystemTime";
    [Idx: crate::decode::Decode] RangeInclusive<Idx> => "struct RangeInclusive";
}

converted! {
    [] Duration => DurationParts, "struct Duration",
        |d: &Duration| Ok(DurationParts { secs: d.as_secs(), nanos: d.subsec_nanos() });
    [] SystemTime => SystemTimeParts, "struct SystemTime",
        |t: &SystemTime| match t.duration_since(UNIX_EPOCH) {
            Ok(d) => Ok(SystemTimeParts { secs_since_epoch: d.as_secs(), nanos_since_epoch: d.subsec_nanos() }),
            Err(_) => Err("SystemTime must be later than UNIX_EPOCH".to_owned()),
        };
    [Idx: Encode<Static = Idx> + 'static] RangeInclusive<Idx> => RangeInclusiveParts<&'static Idx>,
        "struct RangeInclusive",
        // SAFETY: the references live only while the value is encoded (as for
        // `Wrapping` in `encode.rs`).
        |r: &RangeInclusive<Idx>| Ok(unsafe {
            RangeInclusiveParts { start: &*core::ptr::from_ref(r.start()), end: &*core::ptr::from_ref(r.end()) }
        });
}
