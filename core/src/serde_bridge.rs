//! The escape hatch through serde (feature `serde`): what the derive calls for a
//! field decoded by its serde deserializer, and serde's traits for [`RawValue`]
//! and [`IgnoredAny`].
//!
//! A backend validates the field's value and hands its text to
//! [`decode_with_serde`], which runs the deserializer over it with serde_json; the
//! rest of the document is never re-parsed. Values are serde_json's own (floats
//! correctly rounded only if the build enables serde_json's `float_roundtrip`).

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};

use crate::raw::{IgnoredAny, RawValue};

/// serde_json's deserializer over one value's text.
pub type TextDeserializer<'a> = serde_json::Deserializer<serde_json::de::StrRead<'a>>;

/// Runs `deserialize` over the JSON text `ptr[..len]` and writes its value to
/// `dst`: the body of the [`SerdeFn`](crate::layout::SerdeFn)s the derive
/// generates. A deserializer error's message (without serde_json's position,
/// which would be relative to the value) goes to `*message`; a panic is caught
/// and stashed.
///
/// # Safety
/// `dst` is valid for a `T` write; `ptr[..len]` is valid UTF-8, alive for the
/// call; `message` is valid for writes.
pub unsafe fn decode_with_serde<T>(
    dst: *mut u8,
    ptr: *const u8,
    len: usize,
    message: *mut Option<Box<str>>,
    deserialize: impl FnOnce(&mut TextDeserializer<'_>) -> Result<T, serde_json::Error>,
) -> bool {
    // SAFETY: as the caller guarantees.
    let text = unsafe { core::str::from_utf8_unchecked(core::slice::from_raw_parts(ptr, len)) };
    let mut result = None;
    let finished = crate::panic::catch(|| {
        let mut de = serde_json::Deserializer::from_str(text);
        result = Some(deserialize(&mut de).and_then(|value| de.end().map(|()| value)));
    });
    if !finished {
        return false;
    }
    match result {
        Some(Ok(value)) => {
            // SAFETY: as the caller guarantees.
            unsafe { dst.cast::<T>().write(value) };
            true
        }
        Some(Err(e)) => {
            // SAFETY: as the caller guarantees.
            unsafe { message.write(Some(message_of(&e).into_boxed_str())) };
            false
        }
        None => false,
    }
}

/// serde_json's message without its " at line L column C" suffix.
fn message_of(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&suffix) {
        Some(message) if e.line() != 0 => message.to_owned(),
        _ => text,
    }
}

/// Serialises the captured text as raw JSON (through serde_json's `RawValue`).
impl Serialize for RawValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw = serde_json::value::RawValue::from_string(self.get().to_owned())
            .map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

/// Captures the value's text as serde_json's `RawValue` does; only serde_json's
/// deserializers can provide it.
impl<'de> Deserialize<'de> for RawValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<serde_json::value::RawValue>::deserialize(deserializer)?;
        Ok(RawValue::from_text(raw.get()))
    }
}

/// Serialises as unit (`null` in JSON): there is nothing to write.
impl Serialize for IgnoredAny {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_unit()
    }
}

/// Accepts and discards any value, as `serde::de::IgnoredAny`.
impl<'de> Deserialize<'de> for IgnoredAny {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(deserializer).map(|_| IgnoredAny)
    }
}

/// Decodes the value's text with `T`'s serde `Deserialize` impl: the
/// [`SerdeFn`](crate::layout::SerdeFn) of serde_json's own types below.
///
/// # Safety
/// As [`decode_with_serde`].
unsafe extern "C" fn decode_serde_owned<T: serde::de::DeserializeOwned>(
    dst: *mut u8,
    ptr: *const u8,
    len: usize,
    message: *mut Option<Box<str>>,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe { decode_with_serde::<T>(dst, ptr, len, message, |de| T::deserialize(de)) }
}

/// serde_json's types, decoded by serde_json itself over the value's text (which
/// the backend has validated and delimited): `Value`, `Map`, `Box<RawValue>`.
macro_rules! through_serde_json {
    ($($ty:ty => $expecting:literal;)*) => {$(
        // SAFETY: the `SerdeFn` writes a whole value of the type; size, alignment,
        // identity and drop come from the type itself.
        unsafe impl crate::decode::HasLayout for $ty {
            type Static = Self;
            const LAYOUT: &'static crate::layout::TypeLayout =
                &crate::layout::TypeLayout::of::<$ty>(
                    $expecting,
                    crate::layout::Kind::Serde(&crate::layout::SerdeLayout {
                        decode: decode_serde_owned::<$ty>,
                    }),
                );
        }
        crate::decode::owned! { [] $ty; }
    )*};
}

through_serde_json! {
    serde_json::Value => "any JSON value";
}

// `Map<String, Value>`: a map like any other (its keys are strings, its values
// `Value`s), so it can also be the `#[serde(flatten)]` map that collects the
// keys no field claims.
impl crate::decode::AnyMap<String, serde_json::Value>
    for serde_json::Map<String, serde_json::Value>
{
    fn put(&mut self, key: String, value: serde_json::Value) {
        self.insert(key, value);
    }
}

type JsonMap = serde_json::Map<String, serde_json::Value>;

// SAFETY: the map functions operate on the map only through its API.
unsafe impl crate::decode::HasLayout for JsonMap {
    type Static = Self;
    const LAYOUT: &'static crate::layout::TypeLayout = &crate::layout::TypeLayout::of::<JsonMap>(
        "a map",
        crate::layout::Kind::Map(&crate::layout::MapLayout {
            key: crate::decode::layout_of::<String> as crate::layout::LayoutFn,
            value: crate::decode::layout_of::<serde_json::Value> as crate::layout::LayoutFn,
            new: crate::decode::map_new::<JsonMap, String, serde_json::Value>,
            insert_with: crate::decode::map_insert_with::<JsonMap, String, serde_json::Value, String>,
            insert: crate::decode::map_insert::<JsonMap, String, serde_json::Value>,
        }),
    );
}
crate::decode::owned! { [] JsonMap; }

/// `Box<RawValue>` built directly from the validated text (serde_json's
/// `RawValue::from_string`, no visitor).
///
/// # Safety
/// `dst` is valid for a `Box<RawValue>` write; `ptr[..len]` is one valid JSON
/// value, UTF-8, without surrounding whitespace.
unsafe extern "C" fn write_boxed_raw(
    dst: *mut u8,
    ptr: *const u8,
    len: usize,
    message: *mut Option<Box<str>>,
) -> bool {
    // SAFETY: as the caller guarantees.
    let text = unsafe { core::str::from_utf8_unchecked(core::slice::from_raw_parts(ptr, len)) };
    match serde_json::value::RawValue::from_string(text.to_owned()) {
        Ok(raw) => {
            // SAFETY: as the caller guarantees.
            unsafe { dst.cast::<Box<serde_json::value::RawValue>>().write(raw) };
            true
        }
        Err(e) => {
            // SAFETY: as the caller guarantees.
            unsafe { message.write(Some(message_of(&e).into_boxed_str())) };
            false
        }
    }
}

// SAFETY: `write_boxed_raw` writes a whole `Box<RawValue>`.
unsafe impl crate::decode::HasLayout for Box<serde_json::value::RawValue> {
    type Static = Self;
    const LAYOUT: &'static crate::layout::TypeLayout =
        &crate::layout::TypeLayout::of::<Box<serde_json::value::RawValue>>(
            "any JSON value",
            crate::layout::Kind::Serde(&crate::layout::SerdeLayout {
                decode: write_boxed_raw,
            }),
        );
}
crate::decode::owned! { [] Box<serde_json::value::RawValue>; }
