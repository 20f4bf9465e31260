//! Which impl a field's type goes through: jitson's own layout where the type
//! has one, otherwise its serde impl. Chosen by the derives, per field, on the
//! concrete type, with no attribute.
//!
//! Stable Rust has no specialisation, so the choice is made by method
//! resolution ("autoref specialisation", David Tolnay's case study of 2019):
//! the derive writes
//!
//! ```ignore
//! use ::jitson::__private::{DecodeViaLayout as _, DecodeViaSerdeOption as _, DecodeViaSerde as _};
//! (&&Via::<FieldTy>::new()).decode_route().layout()
//! ```
//!
//! Method lookup on a receiver `&&Via<T>` (methods taking `&self`) tries the
//! impls for `&Via<T>`, then for `&&Via<T>` (the autoref), then for `Via<T>`
//! (the deref). [`DecodeViaLayout`] is implemented for `&Via<T>` when `T:
//! HasLayout`, so it matches first and gives a [`LayoutRoute`]; then
//! [`DecodeViaSerdeOption`], for `&&Via<Option<X>>`, gives jitson's `Option`
//! over `X`'s serde impl ([`SerdeOptionRoute`]: an absent key is `None`, as
//! for serde); last [`DecodeViaSerde`], for `Via<T>` with no bound, gives a
//! [`SerdeRoute`]. The serde routes' methods ask for serde's trait, so a type
//! with neither is a compile error naming the field's type, with
//! [`SerdeDecode`]'s message. Encoding has two steps: [`EncodeViaLayout`] for
//! `Via<T>` and [`EncodeViaSerde`] for `&Via<T>`, tried on a receiver
//! `&Via<T>`.
//!
//! In a generic item the choice is made with the bounds in scope, not with the
//! type a caller later substitutes: a field `T` under `T: Decode` takes
//! jitson's layout, under `T: DeserializeOwned` only (a `#[serde(bound)]`)
//! serde's.
//!
//! Each route gives the field's layout edge and, for decoding, the proof that
//! the field type may be decoded from input that lives for `'de`
//! ([`LayoutRoute::borrows`]); a type decoded through serde owns its data.

use core::marker::PhantomData;

use crate::decode::{DecodeBorrowed, HasLayout};
use crate::encode::Encode;
use crate::layout::TypeLayout;

/// Invariant in `T`: were it covariant, `Via<&'static str>` could become
/// `Via<&'de str>` and the borrow check of a `&'static str` field would pass.
type Invariant<T> = PhantomData<fn(PhantomData<T>) -> PhantomData<T>>;

/// The probe whose method resolution picks a route for `T` (see the module
/// docs).
pub struct Via<T: ?Sized>(Invariant<T>);

impl<T: ?Sized> Via<T> {
    /// The probe.
    pub const fn new() -> Self {
        Via(PhantomData)
    }
}

impl<T: ?Sized> Default for Via<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// `T` goes through jitson's own layout.
pub struct LayoutRoute<T: ?Sized>(Invariant<T>);

/// `T` goes through its serde impl.
pub struct SerdeRoute<T: ?Sized>(Invariant<T>);

/// The first choice when decoding: jitson's layout.
pub trait DecodeViaLayout {
    /// The field's type.
    type Field: ?Sized;
    /// The route taken.
    fn decode_route(&self) -> LayoutRoute<Self::Field>;
}

impl<T: HasLayout> DecodeViaLayout for &Via<T> {
    type Field = T;
    fn decode_route(&self) -> LayoutRoute<T> {
        LayoutRoute(PhantomData)
    }
}

/// The second choice when decoding: an `Option` of a type decoded through
/// serde, as jitson's `Option` (so that an absent key is `None`, as serde's
/// derive makes it for an `Option` field).
pub trait DecodeViaSerdeOption {
    /// The payload's type.
    type Payload;
    /// The route taken.
    fn decode_route(&self) -> SerdeOptionRoute<Self::Payload>;
}

impl<X> DecodeViaSerdeOption for &&Via<Option<X>> {
    type Payload = X;
    fn decode_route(&self) -> SerdeOptionRoute<X> {
        SerdeOptionRoute(PhantomData)
    }
}

/// The last choice when decoding: serde's `Deserialize`.
pub trait DecodeViaSerde {
    /// The field's type.
    type Field: ?Sized;
    /// The route taken.
    fn decode_route(&self) -> SerdeRoute<Self::Field>;
}

impl<T: ?Sized> DecodeViaSerde for Via<T> {
    type Field = T;
    fn decode_route(&self) -> SerdeRoute<T> {
        SerdeRoute(PhantomData)
    }
}

/// `Option<X>` goes through jitson's `Option` over `X`'s serde impl.
pub struct SerdeOptionRoute<X>(Invariant<X>);

impl<X> SerdeOptionRoute<X> {
    /// jitson's `Option` layout over a layout running `X`'s `Deserialize`;
    /// `S` is the field's type with its lifetimes `'static` (the layout's
    /// identity).
    pub fn layout<S: 'static>(self) -> &'static TypeLayout
    where
        X: SerdeDecode,
    {
        X::serde_decode_option_layout::<S>()
    }

    /// Always compiles: an `Option` of a type decoded through serde owns its
    /// data.
    pub fn borrows(self, _input: PhantomData<&()>)
    where
        X: SerdeDecode,
    {
    }
}

/// The first choice when encoding: jitson's encode layout.
pub trait EncodeViaLayout {
    /// The field's type.
    type Field: ?Sized;
    /// The route taken.
    fn encode_route(&self) -> LayoutRoute<Self::Field>;
}

impl<T: Encode> EncodeViaLayout for Via<T> {
    type Field = T;
    fn encode_route(&self) -> LayoutRoute<T> {
        LayoutRoute(PhantomData)
    }
}

/// The second choice when encoding: serde's `Serialize`.
pub trait EncodeViaSerde {
    /// The field's type.
    type Field: ?Sized;
    /// The route taken.
    fn encode_route(&self) -> SerdeRoute<Self::Field>;
}

impl<T: ?Sized> EncodeViaSerde for &Via<T> {
    type Field = T;
    fn encode_route(&self) -> SerdeRoute<T> {
        SerdeRoute(PhantomData)
    }
}

impl<T: HasLayout> LayoutRoute<T> {
    /// `T`'s own layout (`S`, the field's type with its lifetimes `'static`,
    /// serves the serde routes only).
    pub fn layout<S: 'static>(self) -> &'static TypeLayout {
        T::LAYOUT
    }

    /// Compiles only where `T` may be decoded from input living for `'de`:
    /// what makes the container's `DecodeBorrowed<'de>` impl sound.
    pub fn borrows<'de>(self, _input: PhantomData<&'de ()>)
    where
        T: DecodeBorrowed<'de>,
    {
    }
}

impl<T: Encode> LayoutRoute<T> {
    /// `T`'s own encode layout.
    pub fn encode_layout<S: 'static>(self) -> &'static TypeLayout {
        T::ENCODE
    }

    /// A field of an enum variant's view (a reference to the variant's field,
    /// `T = &X`): `T`'s own encode layout.
    pub fn encode_view_layout<S: 'static>(self) -> &'static TypeLayout {
        T::ENCODE
    }
}

impl<T> SerdeRoute<T> {
    /// A layout decoding `T` with its `Deserialize` impl, through serde_json
    /// over the value's text (`Kind::Serde`); `S` is `T` with its lifetimes
    /// `'static`, the layout's identity (`T` itself may borrow nothing from
    /// the input, but may have lifetime parameters: `Cow<'a, [u8]>`).
    pub fn layout<S: 'static>(self) -> &'static TypeLayout
    where
        T: SerdeDecode,
    {
        T::serde_decode_layout::<S>()
    }

    /// Always compiles for a type decoded through serde: it owns its data.
    pub fn borrows(self, _input: PhantomData<&()>)
    where
        T: SerdeDecode,
    {
    }

    /// A layout encoding `T` with its `Serialize` impl, through serde_json;
    /// `S` as for [`layout`](Self::layout).
    pub fn encode_layout<S: 'static>(self) -> &'static TypeLayout
    where
        T: SerdeEncode,
    {
        T::serde_encode_layout::<S>()
    }
}

impl<X: ?Sized> SerdeRoute<&X> {
    /// A field of an enum variant's view, `&X` where `X` has no `Encode`: a
    /// layout reading the reference and encoding `X` with its `Serialize`
    /// impl; `S` is `&X` with its lifetimes `'static`.
    pub fn encode_view_layout<S: 'static>(self) -> &'static TypeLayout
    where
        X: SerdeEncode,
    {
        X::serde_encode_by_ref_layout::<S>()
    }
}

/// A type decoded through its serde `Deserialize` impl: every
/// `DeserializeOwned` type (with the feature `serde`; without it, none).
#[diagnostic::on_unimplemented(
    message = "jitson cannot decode `{Self}`: it has neither jitson's `Decode` nor serde's \
               `Deserialize`",
    label = "`{Self}` has no impl jitson can decode it with",
    note = "add `#[derive(jitson::Decode)]` (or serde's `Deserialize`) to `{Self}`; without \
            jitson's feature `serde`, only jitson's own impls count"
)]
pub trait SerdeDecode: Sized {
    /// The layout running the `Deserialize` impl, under the identity of `S`.
    fn serde_decode_layout<S: 'static>() -> &'static TypeLayout;
    /// jitson's `Option<Self>` over it.
    fn serde_decode_option_layout<S: 'static>() -> &'static TypeLayout;
}

/// A type encoded through its serde `Serialize` impl: every `Serialize` type
/// (with the feature `serde`; without it, none).
#[diagnostic::on_unimplemented(
    message = "jitson cannot encode `{Self}`: it has neither jitson's `Encode` nor serde's \
               `Serialize`",
    label = "`{Self}` has no impl jitson can encode it with",
    note = "add `#[derive(jitson::Encode)]` (or serde's `Serialize`) to `{Self}`; without \
            jitson's feature `serde`, only jitson's own impls count"
)]
pub trait SerdeEncode {
    /// The layout running the `Serialize` impl, under the identity of `S`.
    fn serde_encode_layout<S: 'static>() -> &'static TypeLayout
    where
        Self: Sized;
    /// The same for a `&Self` (the layout's memory is the reference).
    fn serde_encode_by_ref_layout<S: 'static>() -> &'static TypeLayout;
}

#[cfg(feature = "serde")]
mod through_serde {
    use super::{Invariant, SerdeDecode, SerdeEncode};
    use crate::layout::{Kind, LayoutRef, OptionLayout, SerdeLayout, TypeLayout};

    /// The serde layouts of `T`, under the identity of `S` (`T` with its
    /// lifetimes `'static`; one per direction, never `S`'s own, which a jitson
    /// layout of the other direction may hold).
    struct SerdeLayouts<T: ?Sized, S: ?Sized>(
        core::marker::PhantomData<(Invariant<T>, Invariant<S>)>,
    );

    impl<T: serde::de::DeserializeOwned> SerdeDecode for T {
        fn serde_decode_layout<S: 'static>() -> &'static TypeLayout {
            SerdeLayouts::<T, S>::DECODE
        }
        fn serde_decode_option_layout<S: 'static>() -> &'static TypeLayout {
            SerdeLayouts::<T, S>::DECODE_OPTION
        }
    }

    impl<T: serde::Serialize + ?Sized> SerdeEncode for T {
        fn serde_encode_layout<S: 'static>() -> &'static TypeLayout
        where
            T: Sized,
        {
            SerdeLayouts::<T, S>::ENCODE
        }
        fn serde_encode_by_ref_layout<S: 'static>() -> &'static TypeLayout {
            SerdeLayouts::<T, S>::ENCODE_BY_REF
        }
    }

    /// The identities of the layouts, one per direction and form.
    struct Deserialized<S: ?Sized>(core::marker::PhantomData<S>);
    struct DeserializedOption<S: ?Sized>(core::marker::PhantomData<S>);
    struct Serialized<S: ?Sized>(core::marker::PhantomData<S>);
    struct SerializedByRef<S: ?Sized>(core::marker::PhantomData<S>);

    /// The [`SerdeFn`](crate::layout::SerdeFn) running `T`'s `Deserialize`.
    ///
    /// # Safety
    /// As [`decode_with_serde`](crate::serde_bridge::decode_with_serde).
    unsafe extern "C" fn deserialize<T: serde::de::DeserializeOwned>(
        dst: *mut u8,
        ptr: *const u8,
        len: usize,
        key: bool,
        message: *mut Option<Box<str>>,
    ) -> bool {
        // SAFETY: forwarded from the caller.
        unsafe {
            crate::serde_bridge::decode_with_serde::<T>(dst, ptr, len, key, message, |de| {
                T::deserialize(de)
            })
        }
    }

    /// The [`SerializeFn`](crate::layout::SerializeFn) of a `&T`.
    ///
    /// # Safety
    /// `src` points to a live `&T`; `out` and `message` are valid for writes.
    unsafe extern "C" fn serialize_by_ref<T: serde::Serialize + ?Sized>(
        src: *const u8,
        out: *mut Vec<u8>,
        target: *mut crate::layout::SerializeTarget,
        message: *mut Option<Box<str>>,
    ) -> bool {
        // SAFETY: as the caller guarantees.
        unsafe {
            let value: &T = *src.cast::<&T>();
            crate::encode::serialize_with(
                out,
                target,
                message,
                |ser| value.serialize(ser),
                |flat| value.serialize(flat),
                |key| value.serialize(key),
            )
        }
    }

    impl<T: serde::de::DeserializeOwned, S: 'static> SerdeLayouts<T, S> {
        /// [`Self::DECODE`] as a layout edge.
        fn decode_edge() -> &'static TypeLayout {
            Self::DECODE
        }

        // SAFETY (of the layout): size, alignment and drop are `T`'s (`S`
        // differs only in lifetimes), and `deserialize::<T>` writes a whole `T`.
        pub(super) const DECODE: &'static TypeLayout =
            &TypeLayout::with_identity::<T, Deserialized<S>>(
                "a value decoded through serde",
                Kind::Serde(&SerdeLayout {
                    decode: deserialize::<T>,
                    encode: None,
                    raw: false,
                    borrows: false,
                }),
            );

        // SAFETY (of the layout): the functions are `Option<T>`'s own, as in
        // jitson's `HasLayout for Option<T>`; `some` is `T`'s serde layout.
        pub(super) const DECODE_OPTION: &'static TypeLayout =
            &TypeLayout::with_identity::<Option<T>, DeserializedOption<S>>(
                "an option",
                Kind::Option(&OptionLayout {
                    some: LayoutRef::Lazy(Self::decode_edge),
                    write_none: crate::decode::option_write_none::<T>,
                    decode_some: crate::decode::option_decode_some::<T>,
                    get: crate::decode::option_get::<T>,
                }),
            );
    }

    impl<T: serde::Serialize, S: 'static> SerdeLayouts<T, S> {
        // SAFETY (of the layout): `serialize_fn::<T>` reads a live `T`; the
        // decode slot is never called on an encode layout.
        pub(super) const ENCODE: &'static TypeLayout = &TypeLayout::with_identity::<T, Serialized<S>>(
            "a value written by serde",
            Kind::Serde(&SerdeLayout {
                decode: crate::encode::never_serde_decode,
                encode: Some(crate::encode::serialize_fn::<T>),
                raw: false,
                borrows: false,
            }),
        );
    }

    impl<T: serde::Serialize + ?Sized, S: 'static> SerdeLayouts<T, S> {
        // SAFETY (of the layout): size, alignment and drop (none) are those of
        // `&T`; `serialize_by_ref::<T>` reads a live `&T`.
        pub(super) const ENCODE_BY_REF: &'static TypeLayout =
            &TypeLayout::with_identity::<&T, SerializedByRef<S>>(
                "a value written by serde",
                Kind::Serde(&SerdeLayout {
                    decode: crate::encode::never_serde_decode,
                    encode: Some(serialize_by_ref::<T>),
                    raw: false,
                    borrows: false,
                }),
            );
    }
}

// ---------------------------------------------------------------------------
// Known `with` modules.

/// The key of a `with` module's path (`chrono::serde::ts_seconds`, no
/// leading `::`, no spaces): its 64-bit FNV-1a hash. The derive writes
/// `With::<{ module_key("path") }, FieldTy>` for every field with `with`,
/// `deserialize_with` or `serialize_with` (the function's module), and the
/// modules jitson reads natively implement [`WithNative`] for their key.
pub const fn module_key(path: &str) -> u64 {
    let bytes = path.as_bytes();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    hash
}

/// The probe for a field read or written by a `with` module: `MODULE` is the
/// module's [`module_key`], `T` the field's type (lifetimes `'static`).
/// Probed on `&&With` as [`Via`] is: [`WithNative`], implemented for
/// `&With<KEY, T>` by the module's native support (a foreign type's feature,
/// `core/src/foreign/`), wins; otherwise [`WithSerde`] says there is none and
/// the field keeps the layout that calls the module's functions.
pub struct With<const MODULE: u64, T: ?Sized>(Invariant<T>);

impl<const MODULE: u64, T: ?Sized> With<MODULE, T> {
    /// The probe.
    pub const fn new() -> Self {
        With(PhantomData)
    }
}

impl<const MODULE: u64, T: ?Sized> Default for With<MODULE, T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The first choice for a `with` module: jitson reads and writes its form.
pub trait WithNative {
    /// The layout decoding the module's form into the field's type.
    fn with_decode(&self) -> Option<&'static TypeLayout>;
    /// The layout encoding the field's type in the module's form.
    fn with_encode(&self) -> Option<&'static TypeLayout>;
}

/// The fallback for a `with` module: its own functions, through serde.
pub trait WithSerde {
    /// `None`: no native layout.
    fn with_decode(&self) -> Option<&'static TypeLayout> {
        None
    }
    /// `None`: no native layout.
    fn with_encode(&self) -> Option<&'static TypeLayout> {
        None
    }
}

impl<const MODULE: u64, T: ?Sized> WithSerde for With<MODULE, T> {}

/// Declares the native layouts of `with` modules:
/// `"path::of::module" => FieldType: decode_layout, encode_layout;`, with
/// `, if condition` before the `;` for a module whose form depends on its
/// crate's features (checked when the field's layout is first asked for;
/// `false` keeps the module's own functions).
#[allow(unused_macros)]
macro_rules! native_with {
    ($($path:literal => $ty:ty: $decode:expr, $encode:expr $(, if $cond:expr)?;)*) => {$(
        impl $crate::route::WithNative
            for &$crate::route::With<{ $crate::route::module_key($path) }, $ty>
        {
            fn with_decode(&self) -> Option<&'static $crate::layout::TypeLayout> {
                let native = true $(&& $cond)?;
                native.then_some($decode)
            }
            fn with_encode(&self) -> Option<&'static $crate::layout::TypeLayout> {
                let native = true $(&& $cond)?;
                native.then_some($encode)
            }
        }
    )*};
}
#[allow(unused_imports)]
pub(crate) use native_with;
