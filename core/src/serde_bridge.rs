//! The escape hatch through serde (feature `serde`): what the derive calls for a
//! field decoded by its serde deserializer, and serde's traits for [`RawValue`]
//! and [`IgnoredAny`].
//!
//! A backend validates the field's value and hands its text to
//! [`decode_with_serde`], which runs the deserializer over it with jitson's
//! serde reader ([`TextDeserializer`], `serde_de.rs`): containers, plain strings,
//! integers and literals read by jitson's scanners, every other value (floats,
//! escaped strings, errors) by serde_json over that value's text; the rest of
//! the document is never re-parsed. Values are serde_json's own (floats
//! correctly rounded only if the build enables serde_json's `float_roundtrip`).

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};

use crate::raw::{IgnoredAny, RawValue};

pub use crate::serde_de::{FieldDeserializer, TextDeserializer};

/// Runs `deserialize` over the JSON text `ptr[..len]` (a value, or with `key`
/// a map's key: [`FieldDeserializer`]) and writes its value to `dst`: the body
/// of the [`SerdeFn`](crate::layout::SerdeFn)s the derive generates. A
/// deserializer error's message (without serde_json's position, which would
/// be relative to the value) goes to `*message`; a panic is caught and
/// stashed.
///
/// `ptr[..len]` must be one JSON value that jitson's validator accepted
/// ([`text::ignore_value`](crate::text::ignore_value), as every backend checks
/// a value before handing it to serde): the reader walks it without checking
/// its syntax again. Text that is not is still read safely (no panic, no
/// out-of-bounds read), but to an unspecified value or error.
///
/// # Safety
/// `dst` is valid for a `T` write; `ptr[..len]` is valid UTF-8, alive for the
/// call; `message` is valid for writes.
pub unsafe fn decode_with_serde<T>(
    dst: *mut u8,
    ptr: *const u8,
    len: usize,
    key: bool,
    message: *mut Option<Box<str>>,
    deserialize: impl FnOnce(FieldDeserializer<'_, '_>) -> Result<T, serde_json::Error>,
) -> bool {
    // SAFETY: as the caller guarantees.
    let text = unsafe { core::str::from_utf8_unchecked(core::slice::from_raw_parts(ptr, len)) };
    let mut result = None;
    let finished = crate::panic::catch(|| {
        let mut de = TextDeserializer::new(text);
        let value = deserialize(FieldDeserializer::new(&mut de, key));
        result = Some(value.and_then(|value| de.end().map(|()| value)));
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
pub(crate) fn message_of(e: &serde_json::Error) -> String {
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

/// Whether the serde_json in this build has its `arbitrary_precision` feature
/// (Cargo unifies features: any crate of the build may turn it on, often for
/// money). Its `Number` then keeps a number's text, and so must a `Value` built
/// here: never a number rounded through `f64` where serde_json keeps it exact.
/// Asked once, of serde_json itself (only that feature keeps `1.50` as written).
fn arbitrary_precision() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        "1.50"
            .parse::<serde_json::Number>()
            .is_ok_and(|n| n.to_string() == "1.50")
    })
}

/// How many containers a `Value` may have open around the one being opened
/// ([`VALUE_MAX_DEPTH`](crate::error::VALUE_MAX_DEPTH) levels in all).
const VALUE_DEPTH_LIMIT: usize = crate::error::VALUE_MAX_DEPTH - 1;

/// `Value` built directly from the validated text, as serde_json builds it (no
/// visitor): integers as `u64` (non-negative) or `i64` (negative) when they fit,
/// every other number as a correctly rounded `f64` (serde_json's numbers with
/// `float_roundtrip`), or, when serde_json has `arbitrary_precision`, every
/// number as serde_json's own `Number` of its text (exact, as serde_json keeps
/// it); objects as `Map` (a repeated key keeps the last value; with
/// serde_json's `preserve_order`, keys in document order, as `Map::insert`
/// keeps them for serde_json too).
/// Iterative, so nesting costs no stack; but nesting is limited to serde_json's
/// 128 levels (from the value), since dropping a `Value` recurses.
fn build_value(text: &[u8]) -> Result<serde_json::Value, String> {
    use crate::text;
    use serde_json::{Map, Number, Value};

    /// A container being built, with the key its next value goes under.
    enum Open {
        Array(Vec<Value>),
        Object(Map<String, Value>, String),
    }
    let lex = |e: text::LexError| format!("{}", e.0);
    let mut scratch = Vec::new();
    let key_text = |pos: usize, scratch: &mut Vec<u8>| -> Result<(String, usize), String> {
        let (located, end) = text::parse_str(text, pos + 1, scratch, false).map_err(lex)?;
        let bytes = located.bytes(text, scratch);
        // The text was validated before it got here, so the lossy conversion
        // (which walks it in chunks) is only the fallback of the plain check.
        let owned = match core::str::from_utf8(bytes) {
            Ok(s) => s.to_owned(),
            Err(_) => String::from_utf8_lossy(bytes).into_owned(),
        };
        Ok((owned, end))
    };
    let mut stack: Vec<Open> = Vec::new();
    let mut pos = 0;
    loop {
        pos = text::skip_ws(text, pos);
        // One value at `pos`: a container opens (and is closed below when empty),
        // a scalar is complete.
        if matches!(text.get(pos), Some(b'{' | b'[')) && stack.len() >= VALUE_DEPTH_LIMIT {
            return Err(crate::layout::VALUE_DEPTH_LIMIT_MESSAGE.to_owned());
        }
        let mut done: Value = match text.get(pos) {
            Some(b'{') => {
                pos = text::skip_ws(text, pos + 1);
                if text.get(pos) == Some(&b'}') {
                    pos += 1;
                    Value::Object(Map::new())
                } else {
                    let (key, end) = key_text(pos, &mut scratch)?;
                    pos = text::skip_ws(text, end) + 1; // the `:`
                    stack.push(Open::Object(Map::new(), key));
                    continue;
                }
            }
            Some(b'[') => {
                pos = text::skip_ws(text, pos + 1);
                if text.get(pos) == Some(&b']') {
                    pos += 1;
                    Value::Array(Vec::new())
                } else {
                    stack.push(Open::Array(Vec::new()));
                    continue;
                }
            }
            Some(b'"') => {
                let (s, end) = key_text(pos, &mut scratch)?;
                pos = end;
                Value::String(s)
            }
            Some(b't') => {
                pos += 4;
                Value::Bool(true)
            }
            Some(b'f') => {
                pos += 5;
                Value::Bool(false)
            }
            Some(b'n') => {
                pos += 4;
                Value::Null
            }
            _ => {
                let n = text::scan_number(text, pos).map_err(lex)?;
                let written = &text[pos..n.end];
                pos = n.end;
                let number = if arbitrary_precision() {
                    // The text is a validated JSON number, so ASCII.
                    let written = core::str::from_utf8(written).map_err(|e| e.to_string())?;
                    written.parse::<Number>().map_err(|e| message_of(&e))?
                } else if n.is_json_integer() {
                    let i = n.integer();
                    match (u64::try_from(i), i64::try_from(i)) {
                        (Ok(u), _) => Number::from(u),
                        (_, Ok(i)) => Number::from(i),
                        _ => unreachable!("JSON integers fit u64 or i64"),
                    }
                } else {
                    let f = n.to_f64(text).map_err(lex)?;
                    Number::from_f64(f).ok_or("number out of range")?
                };
                Value::Number(number)
            }
        };
        // Attach the value; close every container that ends after it.
        loop {
            let Some(top) = stack.last_mut() else {
                return Ok(done);
            };
            pos = text::skip_ws(text, pos);
            let more = text.get(pos) == Some(&b',');
            pos += 1; // `,`, `]` or `}`
            match top {
                Open::Array(items) => items.push(done),
                Open::Object(map, key) => {
                    map.insert(core::mem::take(key), done);
                    if more {
                        pos = text::skip_ws(text, pos);
                        let (next, end) = key_text(pos, &mut scratch)?;
                        *key = next;
                        pos = text::skip_ws(text, end) + 1; // the `:`
                    }
                }
            }
            if more {
                break;
            }
            done = match stack.pop() {
                Some(Open::Array(items)) => Value::Array(items),
                Some(Open::Object(map, _)) => Value::Object(map),
                None => unreachable!("the stack was not empty"),
            };
        }
    }
}

impl crate::decode::FromValueText for serde_json::Value {
    fn from_value_text(text: &[u8]) -> Result<Self, String> {
        build_value(text)
    }
}

// SAFETY: `write_from_value_text` writes a whole `Value`.
unsafe impl crate::decode::HasLayout for serde_json::Value {
    type Static = Self;
    const LAYOUT: &'static crate::layout::TypeLayout =
        &crate::layout::TypeLayout::of::<serde_json::Value>(
            "any JSON value",
            crate::layout::Kind::Serde(&crate::layout::SerdeLayout {
                decode: crate::decode::write_from_value_text::<serde_json::Value>,
                encode: Some(crate::encode::serialize_fn::<serde_json::Value>),
                raw: false,
                borrows: false,
            }),
        );
}
crate::decode::owned! { [] serde_json::Value; }

// `Map<String, Value>`: a map like any other (its keys are strings, its values
// `Value`s), so it can also be the `#[serde(flatten)]` map that collects the
// keys no field claims.
impl crate::decode::EachEntry<String, serde_json::Value> for JsonMap {
    fn each(&self, mut f: impl FnMut(&String, &serde_json::Value) -> bool) -> bool {
        self.iter().all(|(k, v)| f(k, v))
    }
}

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
            key: crate::layout::LayoutRef::Lazy(crate::decode::layout_of::<String>),
            value: crate::layout::LayoutRef::Lazy(crate::decode::layout_of::<serde_json::Value>),
            new: crate::decode::map_new::<JsonMap, String, serde_json::Value>,
            insert_with: crate::decode::map_insert_with::<JsonMap, String, serde_json::Value, String>,
            insert: crate::decode::map_insert::<JsonMap, String, serde_json::Value>,
            for_each: Some(crate::decode::map_for_each::<JsonMap, String, serde_json::Value>),
            staged: Some(&crate::decode::staged_map::<
                JsonMap,
                String,
                serde_json::Value,
            >()),
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
    // A key's raw value is its text with the quotes, as serde_json's `MapKey`
    // gives it.
    _key: bool,
    message: *mut Option<Box<str>>,
) -> bool {
    // SAFETY: as the caller guarantees.
    let text = unsafe { core::str::from_utf8_unchecked(core::slice::from_raw_parts(ptr, len)) };
    let raw = serde_json::value::RawValue::from_string(text.to_owned());
    // SAFETY: as the caller guarantees.
    unsafe { write_or_message(dst, raw, message) }
}

/// Writes `result`'s value to `dst`, or serde_json's message to `message`:
/// the outcome of a raw value's [`SerdeFn`](crate::layout::SerdeFn).
///
/// # Safety
/// `dst` is valid for a `T` write; `message` is valid for writes.
unsafe fn write_or_message<T>(
    dst: *mut u8,
    result: Result<T, serde_json::Error>,
    message: *mut Option<Box<str>>,
) -> bool {
    match result {
        Ok(value) => {
            // SAFETY: as the caller guarantees.
            unsafe { dst.cast::<T>().write(value) };
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
                encode: Some(crate::encode::serialize_fn::<Box<serde_json::value::RawValue>>),
                raw: true,
                borrows: false,
            }),
        );
}
crate::decode::owned! { [] Box<serde_json::value::RawValue>; }

/// `&'de RawValue`: the validated text, borrowed from the input through
/// serde_json's own borrowing reader (`from_str::<&RawValue>`, which re-reads
/// the value; serde_json has no other public way to build one).
///
/// # Safety
/// `dst` is valid for a `&RawValue` write; `ptr[..len]` is one valid JSON
/// value, UTF-8, without surrounding whitespace, lying in the input, which
/// outlives the written reference (the `DecodeBorrowed` bound of the type
/// decoded; `SerdeLayout::borrows` keeps backends from handing it other text).
unsafe extern "C" fn write_borrowed_raw(
    dst: *mut u8,
    ptr: *const u8,
    len: usize,
    // A key's text comes with its quotes, as for `Box<RawValue>`.
    _key: bool,
    message: *mut Option<Box<str>>,
) -> bool {
    // SAFETY: as the caller guarantees; the text outlives the reference.
    let text: &'static str =
        unsafe { core::str::from_utf8_unchecked(core::slice::from_raw_parts(ptr, len)) };
    let raw = serde_json::from_str::<&serde_json::value::RawValue>(text);
    // SAFETY: as the caller guarantees.
    unsafe { write_or_message(dst, raw, message) }
}

// SAFETY: `write_borrowed_raw` writes a whole `&RawValue`.
unsafe impl crate::decode::HasLayout for &serde_json::value::RawValue {
    type Static = &'static serde_json::value::RawValue;
    const LAYOUT: &'static crate::layout::TypeLayout =
        &crate::layout::TypeLayout::of::<&'static serde_json::value::RawValue>(
            "any valid JSON value",
            crate::layout::Kind::Serde(&crate::layout::SerdeLayout {
                decode: write_borrowed_raw,
                encode: Some(crate::encode::serialize_fn::<&'static serde_json::value::RawValue>),
                raw: true,
                borrows: true,
            }),
        );
}

// SAFETY: the reference points into the input, which lives for `'de`, and `'de`
// outlives `'a`; backends decode it from the input only (`borrows`).
unsafe impl<'de: 'a, 'a> crate::decode::DecodeBorrowed<'de> for &'a serde_json::value::RawValue {}
