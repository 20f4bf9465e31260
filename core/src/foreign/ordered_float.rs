//! ordered-float's `OrderedFloat` and `NotNan` over `f32` and `f64` (feature
//! `ordered-float`), as ordered-float's serde impls (ordered-float 5) have
//! serde_json read and write them:
//!
//! | type | JSON | read as | written as |
//! |---|---|---|---|
//! | `OrderedFloat<f32>`, `OrderedFloat<f64>` | number | the float (`"f32"`, `"f64"`) | the float: `null` when not finite, as serde_json writes floats |
//! | `NotNan<f32>`, `NotNan<f64>` | number | the float, refused when NaN (never, see below) | the same |
//!
//! Both are `#[repr(transparent)]` over their float, and their serde impls
//! read and write the float itself, so their layouts are the float's kinds
//! ([`Kind::F32`], [`Kind::F64`]) under the wrapper's identity: generated
//! code parses and writes them exactly as it does a plain float, with no call
//! and no conversion.
//!
//! `NotNan`'s refusal ("invalid value: floating point `NaN`, expected float
//! (but not NaN)") cannot be reached from JSON: serde_json (with
//! `float_roundtrip`, jitson's reference) reads only numbers, never `NaN`,
//! and refuses a number out of the float's range rather than making it
//! infinite, and jitson's float kinds do the same (map keys included). So no
//! text reads as NaN, and writing the float kind into a `NotNan` keeps its
//! invariant. A future option to read `NaN` literals would have to give
//! `NotNan` a layout of its own.

use ordered_float::{NotNan, OrderedFloat};

use crate::layout::{Kind, TypeLayout};

/// `HasLayout` and `Encode` for a `repr(transparent)` float wrapper:
/// `Type => kind, "expecting"`.
macro_rules! float_wrapper {
    ($($ty:ty => $kind:expr, $expecting:literal;)*) => {$(
        // SAFETY: the type is `repr(transparent)` over the float the kind
        // writes, and the float kinds write only numbers read from JSON,
        // never NaN (see the module docs), so `NotNan`'s invariant holds.
        unsafe impl crate::decode::HasLayout for $ty {
            type Static = Self;
            const LAYOUT: &'static TypeLayout = &TypeLayout::of::<$ty>($expecting, $kind);
        }
        crate::decode::owned! { [] $ty; }
        // SAFETY: as for `HasLayout`: the float kind reads the wrapped float.
        unsafe impl crate::encode::Encode for $ty {
            type Static = Self;
            const ENCODE: &'static TypeLayout = <$ty as crate::decode::HasLayout>::LAYOUT;
        }
    )*};
}

float_wrapper! {
    OrderedFloat<f32> => Kind::F32, "f32";
    OrderedFloat<f64> => Kind::F64, "f64";
    NotNan<f32> => Kind::F32, "f32";
    NotNan<f64> => Kind::F64, "f64";
}
