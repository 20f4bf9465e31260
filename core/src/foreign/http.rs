//! http's types (feature `http`) as `http-serde` 2 reads and writes them. The
//! `http` crate has no serde impls of its own: fields name http-serde's
//! modules with `with`, and the derive recognises them by their path.
//!
//! | `with` module | type | JSON | refusal (serde's words) |
//! |---|---|---|---|
//! | `http_serde::status_code` | `StatusCode` | integer 100–999 | `invalid value: integer `99`, expected status code` |
//! | `http_serde::method` | `Method` | string (`Method::from_str`) | `invalid value: string "G T", expected method name` |
//! | `http_serde::uri` | `Uri` | string (`Uri::from_str`), written as its `Display` | `... expected uri` |
//! | `http_serde::authority` | `Authority` | string, written as `as_str` | `... expected authority` |
//! | `http_serde::version` | `Version` | `"HTTP/1.1"` and the other four | `... expected http version` |
//!
//! | `http_serde::header_map` | `HeaderMap` | object of a string or an array of strings per name | `invalid value: string "a b", expected multi-valued HeaderMap`, `invalid type: integer `5`, expected byte strings`, `failed to parse header value` |
//!
//! and each under `http_serde::option::` for an `Option` of it (`null` is
//! `None`).
//!
//! A `HeaderMap` is read as http-serde's visitor reads it: each member's name
//! by `HeaderName::from_bytes` (so lower-cased), a string value by
//! `HeaderMap::try_insert` (it replaces what an earlier member of that name
//! gave), an array by `try_append` of each element (an array of one by
//! `try_insert`, an empty array adds nothing but its name is still checked).
//! The object is decoded by jitson's map kind, each value validated as
//! serde_json parses it and then read by [`one_or_more`]. It is written as http-serde
//! writes it: names in the map's order, a name with one value that is
//! visible ASCII as a string, any other as an array of its visible-ASCII
//! values.

use core::fmt::Display;

use http::header::{HeaderName, HeaderValue};
use http::uri::Authority;
use http::{HeaderMap, Method, StatusCode, Uri, Version};

use super::{FormLayouts, FromText, Room, ScalarForm, ToText};
use crate::convert::ConvertFrom;
use crate::decode::{
    AnyMap, EachEntry, HasLayout, layout_of, map_for_each, map_insert, map_insert_with, map_new,
};
use crate::encode::{Encode, encode_layout_of, no_insert, no_insert_with, no_map_new};
use crate::layout::{
    EnumLayout, Kind, LayoutRef, MapLayout, Payload, Tagging, TypeLayout, Variant,
};

/// serde's `invalid value: string "text", expected what`.
fn invalid_string(text: &str, expecting: &str) -> String {
    format!("invalid value: string {text:?}, expected {expecting}")
}

/// A string written as the inside of a JSON string: in place when it needs no
/// escape and fits, otherwise by the general writer.
fn plain(room: &mut Room<'_>, text: &str) -> bool {
    room.push(b'"');
    if !room.plain_text(text.as_bytes()) {
        return false;
    }
    room.push(b'"');
    true
}

fn write_string(out: &mut Vec<u8>, text: impl Display) -> Result<(), String> {
    crate::write::write_str(out, &text.to_string());
    Ok(())
}

/// `http_serde::status_code`.
#[repr(transparent)]
struct StatusCodeForm(StatusCode);

impl FromText for StatusCodeForm {
    type Error = String;
    fn from_text(text: &str) -> Result<Self, String> {
        const EXPECTING: &str = "status code";
        // serde_json visits a negative integer as an i64, which http-serde
        // casts to u64; `-0` and anything beyond 64 bits are floats.
        let value = if text.starts_with('-') {
            text.parse::<i64>()
                .ok()
                .filter(|&v| v != 0)
                .map(|v| v as u64)
        } else {
            text.parse::<u64>().ok()
        }
        .ok_or_else(|| super::not_an_integer(text, EXPECTING))?;
        u16::try_from(value)
            .ok()
            .filter(|v| (100..1000).contains(v))
            .and_then(|v| StatusCode::from_u16(v).ok())
            .map(StatusCodeForm)
            .ok_or_else(|| format!("invalid value: integer `{value}`, expected {EXPECTING}"))
    }
}

impl ToText for StatusCodeForm {
    const MAX_LEN: usize = 3;
    fn fast(&self, room: &mut Room<'_>) -> bool {
        room.digits(u32::from(self.0.as_u16()), 3);
        true
    }
    fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
        out.extend_from_slice(itoa::Buffer::new().format(self.0.as_u16()).as_bytes());
        Ok(())
    }
}

super::scalar_forms! { StatusCodeForm => StatusCode; }

impl ScalarForm for StatusCodeForm {
    const EXPECTING: &'static str = "status code";
    const FROM_NUMBER: bool = true;
}

/// Forms read with the type's `FromStr` and refused with serde's
/// `invalid_value`: `Form(Type), "expecting", |value| text written`.
macro_rules! parsed_forms {
    ($($(#[$doc:meta])* $form:ident($ty:ty), $expecting:literal, $max:literal,
        fast: |$v:ident, $room:ident| $fast:expr,
        write: |$w:ident| $write:expr;)*) => {$(
        $(#[$doc])*
        #[repr(transparent)]
        struct $form($ty);

        impl FromText for $form {
            type Error = String;
            fn from_text(text: &str) -> Result<Self, String> {
                text.parse::<$ty>()
                    .map($form)
                    .map_err(|_| invalid_string(text, $expecting))
            }
        }

        impl ToText for $form {
            const MAX_LEN: usize = $max;
            fn fast(&self, $room: &mut Room<'_>) -> bool {
                let $v = &self.0;
                $fast
            }
            fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
                let $w = &self.0;
                write_string(out, $write)
            }
        }

        super::scalar_forms! { $form => $ty; }

        impl ScalarForm for $form {
            const EXPECTING: &'static str = $expecting;
            const FROM_NUMBER: bool = false;
        }
    )*};
}

parsed_forms! {
    /// `http_serde::method`: `as_str`.
    MethodForm(Method), "method name", 34,
        fast: |m, room| plain(room, m.as_str()),
        write: |m| m.as_str();
    /// `http_serde::uri`: the URI's `Display` (scheme, `://`, authority,
    /// path, `?` and query), here from its parts.
    UriForm(Uri), "uri", 258,
        fast: |uri, room| {
            room.push(b'"');
            let scheme = uri.scheme_str().map(|scheme| (scheme.as_bytes(), "://"));
            let query = uri.query().map(|query| (query.as_bytes(), ""));
            let parts = [
                scheme,
                uri.authority().map(|a| (a.as_str().as_bytes(), "")),
                Some((uri.path().as_bytes(), "")),
            ];
            for (text, after) in parts.into_iter().flatten() {
                if !room.plain_text(text) || !room.plain_text(after.as_bytes()) {
                    return false;
                }
            }
            if let Some((query, _)) = query
                && (!room.plain_text(b"?") || !room.plain_text(query))
            {
                return false;
            }
            room.push(b'"');
            true
        },
        write: |uri| uri;
    /// `http_serde::authority`: `as_str`.
    AuthorityForm(Authority), "authority", 130,
        fast: |a, room| plain(room, a.as_str()),
        write: |a| a.as_str();
}

/// `http_serde::version`.
#[repr(transparent)]
struct VersionForm(Version);

/// The versions http-serde names, with their texts.
const VERSIONS: [(Version, &str); 5] = [
    (Version::HTTP_10, "HTTP/1.0"),
    (Version::HTTP_11, "HTTP/1.1"),
    (Version::HTTP_2, "HTTP/2.0"),
    (Version::HTTP_3, "HTTP/3.0"),
    (Version::HTTP_09, "HTTP/0.9"),
];

impl FromText for VersionForm {
    type Error = String;
    fn from_text(text: &str) -> Result<Self, String> {
        VERSIONS
            .iter()
            .find(|(_, name)| *name == text)
            .map(|(v, _)| VersionForm(*v))
            .ok_or_else(|| invalid_string(text, "http version"))
    }
}

impl VersionForm {
    fn name(&self) -> Option<&'static str> {
        VERSIONS.iter().find(|(v, _)| *v == self.0).map(|(_, n)| *n)
    }
}

impl ToText for VersionForm {
    const MAX_LEN: usize = 10;
    fn fast(&self, room: &mut Room<'_>) -> bool {
        self.name().is_some_and(|name| plain(room, name))
    }
    fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
        // A version http-serde does not name is its serializer's refusal.
        write_string(out, self.name().ok_or("http version")?)
    }
}

super::scalar_forms! { VersionForm => Version; }

impl ScalarForm for VersionForm {
    const EXPECTING: &'static str = "http version";
    const FROM_NUMBER: bool = false;
}

macro_rules! http_serde_modules {
    ($($name:literal: $form:ty => $ty:ty;)*) => {$(
        crate::route::native_with! {
            $name => $ty: FormLayouts::<$form>::DECODE, FormLayouts::<$form>::ENCODE;
        }
    )*};
}

http_serde_modules! {
    "http_serde::status_code": StatusCodeForm => StatusCode;
    "http_serde::method": MethodForm => Method;
    "http_serde::uri": UriForm => Uri;
    "http_serde::authority": AuthorityForm => Authority;
    "http_serde::version": VersionForm => Version;
}

macro_rules! http_serde_options {
    ($($name:literal: $form:ty => $ty:ty;)*) => {$(
        crate::route::native_with! {
            $name => Option<$ty>:
                FormLayouts::<$form>::OPTION_DECODE, FormLayouts::<$form>::OPTION_ENCODE;
        }
    )*};
}

http_serde_options! {
    "http_serde::option::status_code": StatusCodeForm => StatusCode;
    "http_serde::option::method": MethodForm => Method;
    "http_serde::option::uri": UriForm => Uri;
    "http_serde::option::authority": AuthorityForm => Authority;
    "http_serde::option::version": VersionForm => Version;
}

// ---------------------------------------------------------------------------
// HeaderMap: `http_serde::header_map`.

/// What http-serde's visitor expects of the map, in its refusals.
const HEADER_MAP: &str = "multi-valued HeaderMap";
/// What it expects of a value.
const BYTE_STRINGS: &str = "byte strings";

/// The members of a header object as read: names unescaped, values as
/// http-serde's `OneOrMore` reads them, in document order, repeats kept (the
/// map kind's `put` appends).
#[derive(Default)]
struct HeaderEntries(Vec<(String, OneOrMore)>);

impl EachEntry<String, OneOrMore> for HeaderEntries {
    fn each(&self, mut f: impl FnMut(&String, &OneOrMore) -> bool) -> bool {
        self.0.iter().all(|(k, v)| f(k, v))
    }
}

impl AnyMap<String, OneOrMore> for HeaderEntries {
    fn put(&mut self, key: String, value: OneOrMore) {
        self.0.push((key, value));
    }
}

// SAFETY: the functions operate on the entries only through `AnyMap` /
// `EachEntry`, with the key and value types the layouts name.
unsafe impl HasLayout for HeaderEntries {
    type Static = Self;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Self>(
        HEADER_MAP,
        Kind::Map(&MapLayout {
            key: LayoutRef::Lazy(layout_of::<String>),
            value: LayoutRef::Lazy(layout_of::<OneOrMore>),
            new: map_new::<Self, String, OneOrMore>,
            insert_with: map_insert_with::<Self, String, OneOrMore, String>,
            insert: map_insert::<Self, String, OneOrMore>,
            for_each: Some(map_for_each::<Self, String, OneOrMore>),
        }),
    );
}

// SAFETY: the entries own their data.
unsafe impl<'de> crate::decode::DecodeBorrowed<'de> for HeaderEntries {}

/// A header value as http-serde's `OneOrMore` reads it: a string, or an
/// array of them.
enum OneOrMore {
    One(Vec<u8>),
    More(Vec<Vec<u8>>),
}

impl crate::decode::FromValueText for OneOrMore {
    fn from_value_text(text: &[u8]) -> Result<Self, String> {
        one_or_more(text, crate::text::skip_ws(text, 0)).map(|(values, _)| values)
    }
}

// SAFETY: `write_from_value_text` writes a whole `OneOrMore`.
unsafe impl HasLayout for OneOrMore {
    type Static = Self;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Self>(
        BYTE_STRINGS,
        Kind::Serde(&crate::layout::SerdeLayout {
            decode: crate::decode::write_from_value_text::<OneOrMore>,
            encode: None,
            raw: false,
        }),
    );
}

// SAFETY: the values own their data.
unsafe impl<'de> crate::decode::DecodeBorrowed<'de> for OneOrMore {}

/// serde_json's words for a value `OneOrMore` does not take:
/// `invalid type: integer `5`, expected byte strings`.
fn not_byte_strings(text: &str) -> String {
    let found = match text.as_bytes().first() {
        Some(b'n') => "null".to_owned(),
        Some(b't' | b'f') => format!("boolean `{text}`"),
        Some(b'{') => "map".to_owned(),
        // serde_json reads `-0` as a float, and an integer beyond 64 bits too.
        _ if text != "-0" && (text.parse::<u64>().is_ok() || text.parse::<i64>().is_ok()) => {
            format!("integer `{text}`")
        }
        _ => return super::not_an_integer(text, BYTE_STRINGS),
    };
    format!("invalid type: {found}, expected {BYTE_STRINGS}")
}

/// Reads one value of validated JSON text `b` from `pos` (no whitespace
/// before it) as `OneOrMore`; returns it and the position after it.
///
/// http-serde's sequence visitor collects strings until an element that is
/// not one: an array element ends the collection (it is read, checked and
/// dropped), and the array must then end, or serde_json reports trailing
/// characters.
fn one_or_more(b: &[u8], pos: usize) -> Result<(OneOrMore, usize), String> {
    use crate::text::{ignore_value, parse_str, skip_ws};
    let at = |i: usize| b.get(i).copied().unwrap_or(b']');
    match at(pos) {
        b'"' => {
            let mut scratch = Vec::new();
            let (text, end) =
                parse_str(b, pos + 1, &mut scratch, true).map_err(|(code, _)| code.to_string())?;
            Ok((OneOrMore::One(text.bytes(b, &scratch).to_vec()), end))
        }
        b'[' => {
            let mut values = Vec::new();
            let mut next = skip_ws(b, pos + 1);
            if at(next) == b']' {
                return Ok((OneOrMore::More(values), next + 1));
            }
            loop {
                let (value, end) = one_or_more(b, next)?;
                next = skip_ws(b, end);
                match value {
                    OneOrMore::One(value) => values.push(value),
                    OneOrMore::More(_) if at(next) == b']' => {
                        return Ok((OneOrMore::More(values), next + 1));
                    }
                    OneOrMore::More(_) => return Err("trailing characters".to_owned()),
                }
                if at(next) == b']' {
                    return Ok((OneOrMore::More(values), next + 1));
                }
                next = skip_ws(b, next + 1);
            }
        }
        _ => {
            // A scalar or an object: its text names what it is.
            let end = ignore_value(b, pos, false).unwrap_or(b.len());
            let text = b.get(pos..end).and_then(|t| core::str::from_utf8(t).ok());
            Err(not_byte_strings(text.unwrap_or_default()))
        }
    }
}

/// `HeaderMap` inside a `with` module's form.
#[repr(transparent)]
struct HeaderMapForm(HeaderMap);

impl ConvertFrom for HeaderMapForm {
    type Source = HeaderEntries;
    fn convert(entries: HeaderEntries) -> Result<Self, String> {
        let mut map = HeaderMap::try_with_capacity(entries.0.len()).map_err(|e| e.to_string())?;
        for (key, values) in entries.0 {
            let key = key.as_str();
            let name = |key: &str| {
                HeaderName::from_bytes(key.as_bytes()).map_err(|_| invalid_string(key, HEADER_MAP))
            };
            let value = |bytes: Vec<u8>| HeaderValue::try_from(bytes).map_err(|e| e.to_string());
            match values {
                OneOrMore::One(bytes) => {
                    map.try_insert(name(key)?, value(bytes)?)
                        .map_err(|e| e.to_string())?;
                }
                OneOrMore::More(mut values) if values.len() == 1 => {
                    map.try_insert(name(key)?, value(values.remove(0))?)
                        .map_err(|e| e.to_string())?;
                }
                OneOrMore::More(values) => {
                    let name = name(key)?;
                    for bytes in values {
                        map.try_append(&name, value(bytes)?)
                            .map_err(|e| e.to_string())?;
                    }
                }
            }
        }
        Ok(HeaderMapForm(map))
    }
}

crate::convert::decode_by_conversion! {
    [] HeaderMapForm => "multi-valued HeaderMap";
}

/// A header's values as http-serde writes them: one visible-ASCII value as
/// a string, any other count as an array of the visible-ASCII ones.
enum HeaderText {
    One(String),
    More(Vec<String>),
}

/// The [`VariantOfFn`](crate::layout::VariantOfFn) of [`HeaderText`]: the
/// payload's view is a reference to the variant's one field.
///
/// # Safety
/// `src` is a live `HeaderText`; `payload` is room for a reference.
unsafe extern "C" fn header_text_variant(src: *const u8, payload: *mut u8) -> usize {
    // SAFETY: as the caller guarantees; the reference lives while the value
    // is encoded, inside the encoder's call, while `*src` is alive.
    unsafe {
        match &*src.cast::<HeaderText>() {
            HeaderText::One(text) => {
                payload.cast::<&String>().write(text);
                0
            }
            HeaderText::More(texts) => {
                payload.cast::<&Vec<String>>().write(texts);
                1
            }
        }
    }
}

// SAFETY: `header_text_variant` writes the view each variant's payload
// layout (a reference to its field) reads.
unsafe impl Encode for HeaderText {
    type Static = Self;
    const ENCODE: &'static TypeLayout = &TypeLayout::of::<Self>(
        BYTE_STRINGS,
        Kind::Enum(&EnumLayout {
            name: "OneOrMore",
            variants: &[
                Variant {
                    name: "One",
                    rust_name: "One",
                    aliases: &[],
                    payload: Payload::Newtype(LayoutRef::Lazy(encode_layout_of::<&String>)),
                    unit_expecting: "",
                },
                Variant {
                    name: "More",
                    rust_name: "More",
                    aliases: &[],
                    payload: Payload::Newtype(LayoutRef::Lazy(encode_layout_of::<&Vec<String>>)),
                    unit_expecting: "",
                },
            ],
            tagging: Tagging::Untagged,
            other: None,
            untagged_from: 0,
            deny_unknown_fields: false,
            write: crate::encode::never_write_variant,
            decode_variant: crate::layout::no_data_variants,
            variant_of: Some(header_text_variant),
        }),
    );
}

/// A header map as written: each name (in the map's order) with its values.
struct HeaderMembers(Vec<(String, HeaderText)>);

impl EachEntry<String, HeaderText> for HeaderMembers {
    fn each(&self, mut f: impl FnMut(&String, &HeaderText) -> bool) -> bool {
        self.0.iter().all(|(k, v)| f(k, v))
    }
}

// SAFETY: `map_for_each` reads the members through `EachEntry`; the decoding
// slots are never called (encode layouts reach only encoders).
unsafe impl Encode for HeaderMembers {
    type Static = Self;
    const ENCODE: &'static TypeLayout = &TypeLayout::of::<Self>(
        "a map",
        Kind::Map(&MapLayout {
            key: LayoutRef::Lazy(encode_layout_of::<String>),
            value: LayoutRef::Lazy(encode_layout_of::<HeaderText>),
            new: no_map_new,
            insert_with: no_insert_with,
            insert: no_insert,
            for_each: Some(map_for_each::<Self, String, HeaderText>),
        }),
    );
}

crate::encode::converted! {
    [] HeaderMapForm => HeaderMembers, "multi-valued HeaderMap", |form: &HeaderMapForm| {
        let map = &form.0;
        Ok(HeaderMembers(
            map.keys()
                .map(|name| {
                    let all = map.get_all(name);
                    let visible = || all.iter().filter_map(|v| v.to_str().ok()).map(str::to_owned);
                    let mut one = all.iter();
                    let text = match (one.next().map(HeaderValue::to_str), one.next()) {
                        (Some(Ok(text)), None) => HeaderText::One(text.to_owned()),
                        _ => HeaderText::More(visible().collect()),
                    };
                    (name.as_str().to_owned(), text)
                })
                .collect(),
        ))
    };
}

impl super::Form for HeaderMapForm {
    type Field = HeaderMap;
}

crate::route::native_with! {
    "http_serde::header_map" => HeaderMap:
        FormLayouts::<HeaderMapForm>::DECODE, FormLayouts::<HeaderMapForm>::ENCODE;
    "http_serde::option::header_map" => Option<HeaderMap>:
        FormLayouts::<HeaderMapForm>::OPTION_DECODE, FormLayouts::<HeaderMapForm>::OPTION_ENCODE;
}
