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
//! The backend validates the object as serde_json parses it (numbers in
//! range, depth); then one pass over its text builds the map
//! ([`HeaderMapForm::from_value_text`], values by [`one_or_more`]). It is written as
//! http-serde writes it, by [`write_header_map`], straight into the output.

use core::fmt::Display;

use http::header::{HeaderName, HeaderValue};
use http::uri::Authority;
use http::{HeaderMap, Method, StatusCode, Uri, Version};

use super::{FormLayouts, FromText, Room, ScalarForm, ToText};
use crate::decode::HasLayout;
use crate::encode::Encode;
use crate::layout::{Kind, TypeLayout};

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

/// A header value as http-serde's `OneOrMore` reads it: a string, or an
/// array of them.
enum OneOrMore {
    One(Vec<u8>),
    More(Vec<Vec<u8>>),
}

/// serde_json's words for a value of the wrong type, given its validated
/// text: `invalid type: integer `5`, expected byte strings`.
fn invalid_type(text: &[u8], expecting: &str) -> String {
    let words = core::str::from_utf8(text).unwrap_or_default();
    let found = match text.first() {
        Some(b'n') => "null".to_owned(),
        Some(b't' | b'f') => format!("boolean `{words}`"),
        Some(b'{') => "map".to_owned(),
        Some(b'[') => "sequence".to_owned(),
        Some(b'"') => {
            let mut scratch = Vec::new();
            let unescaped = crate::text::parse_str(text, 1, &mut scratch, true)
                .map(|(s, _)| String::from_utf8_lossy(s.bytes(text, &scratch)).into_owned())
                .unwrap_or_default();
            format!("string {unescaped:?}")
        }
        // serde_json reads `-0` as a float, and an integer beyond 64 bits too.
        _ if words != "-0" && (words.parse::<u64>().is_ok() || words.parse::<i64>().is_ok()) => {
            format!("integer `{words}`")
        }
        _ => return super::not_an_integer(words, expecting),
    };
    format!("invalid type: {found}, expected {expecting}")
}

/// The byte at `i` of validated text, `]` past its end (which ends any
/// loop below without reading further).
fn byte_at(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(b']')
}

/// The string whose opening quote is at `pos` (validated text): its
/// unescaped bytes (borrowed when it has no escapes) and the position after
/// its closing quote.
fn string_at<'t>(
    b: &'t [u8],
    pos: usize,
    scratch: &'t mut Vec<u8>,
) -> Result<(&'t [u8], usize), String> {
    let (text, end) =
        crate::text::parse_str(b, pos + 1, scratch, true).map_err(|(code, _)| code.to_string())?;
    Ok((text.bytes(b, scratch), end))
}

/// Reads one value of validated JSON text `b` from `pos` (no whitespace
/// before it) as `OneOrMore`; returns it and the position after it.
///
/// http-serde's sequence visitor collects strings until an element that is
/// not one: an array element ends the collection (it is read, checked and
/// dropped), and the array must then end, or serde_json reports trailing
/// characters.
fn one_or_more(b: &[u8], pos: usize) -> Result<(OneOrMore, usize), String> {
    use crate::text::skip_ws;
    match byte_at(b, pos) {
        b'"' => {
            let mut scratch = Vec::new();
            let (text, end) = string_at(b, pos, &mut scratch)?;
            Ok((OneOrMore::One(text.to_vec()), end))
        }
        b'[' => {
            let mut values = Vec::new();
            let mut next = skip_ws(b, pos + 1);
            if byte_at(b, next) == b']' {
                return Ok((OneOrMore::More(values), next + 1));
            }
            loop {
                let (value, end) = one_or_more(b, next)?;
                next = skip_ws(b, end);
                match value {
                    OneOrMore::One(value) => values.push(value),
                    OneOrMore::More(_) if byte_at(b, next) == b']' => {
                        return Ok((OneOrMore::More(values), next + 1));
                    }
                    OneOrMore::More(_) => return Err("trailing characters".to_owned()),
                }
                if byte_at(b, next) == b']' {
                    return Ok((OneOrMore::More(values), next + 1));
                }
                next = skip_ws(b, next + 1);
            }
        }
        _ => {
            // A scalar or an object: its text names what it is.
            let end = crate::text::ignore_value(b, pos, false).unwrap_or(b.len());
            Err(invalid_type(
                b.get(pos..end).unwrap_or_default(),
                BYTE_STRINGS,
            ))
        }
    }
}

/// `HeaderMap` inside a `with` module's form.
#[repr(transparent)]
struct HeaderMapForm(HeaderMap);

/// Adds one member to `map` as http-serde's visitor does: the values are
/// read first, then the name is checked (so a bad value is reported before a
/// bad name), then a single value (a string, or an array of one) replaces
/// what the name held and several are appended.
fn add_member(map: &mut HeaderMap, key: &[u8], values: OneOrMore) -> Result<(), String> {
    let name = || {
        HeaderName::from_bytes(key)
            .map_err(|_| invalid_string(&String::from_utf8_lossy(key), HEADER_MAP))
    };
    let value = |bytes: Vec<u8>| HeaderValue::try_from(bytes).map_err(|e| e.to_string());
    let single = match values {
        OneOrMore::One(bytes) => bytes,
        OneOrMore::More(mut values) if values.len() == 1 => values.remove(0),
        OneOrMore::More(values) => {
            let name = name()?;
            for bytes in values {
                map.try_append(&name, value(bytes)?)
                    .map_err(|e| e.to_string())?;
            }
            return Ok(());
        }
    };
    map.try_insert(name()?, value(single)?)
        .map_err(|e| e.to_string())?;
    Ok(())
}

impl crate::decode::FromValueText for HeaderMapForm {
    /// The object, member by member, from its validated text: one pass, the
    /// names borrowed from the input where they have no escapes.
    fn from_value_text(b: &[u8]) -> Result<Self, String> {
        use crate::text::skip_ws;
        let start = skip_ws(b, 0);
        if byte_at(b, start) != b'{' {
            let end = crate::text::ignore_value(b, start, false).unwrap_or(b.len());
            return Err(invalid_type(
                b.get(start..end).unwrap_or_default(),
                HEADER_MAP,
            ));
        }
        let mut map = HeaderMap::new();
        let mut scratch = Vec::new();
        let mut pos = skip_ws(b, start + 1);
        while byte_at(b, pos) == b'"' {
            let (key, end) = string_at(b, pos, &mut scratch)?;
            let (values, end) = one_or_more(b, skip_ws(b, skip_ws(b, end) + 1))?;
            add_member(&mut map, key, values)?;
            pos = skip_ws(b, end);
            if byte_at(b, pos) == b',' {
                pos = skip_ws(b, pos + 1);
            }
        }
        Ok(HeaderMapForm(map))
    }
}

// SAFETY: `write_from_value_text` writes a whole `HeaderMapForm`.
unsafe impl HasLayout for HeaderMapForm {
    type Static = Self;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Self>(
        HEADER_MAP,
        Kind::Serde(&crate::layout::SerdeLayout {
            decode: crate::decode::write_from_value_text::<HeaderMapForm>,
            encode: None,
            raw: false,
            borrows: false,
        }),
    );
}

// SAFETY: the map owns its data.
unsafe impl<'de> crate::decode::DecodeBorrowed<'de> for HeaderMapForm {}

/// Appends a header map's JSON text as http-serde writes it: each name in
/// the map's order, with its one value as a string when that value is
/// visible ASCII, otherwise an array of its visible-ASCII values (a backend
/// writing pretty output re-indents it, as serde_json indents http-serde's).
///
/// # Safety
/// `src` is a live `HeaderMapForm`; `out` is valid for writes.
unsafe extern "C" fn write_header_map(
    src: *const u8,
    out: *mut Vec<u8>,
    // A map: flattened or tagged, its entries are the members it writes.
    target: *mut crate::layout::SerializeTarget,
    message: *mut Option<Box<str>>,
) -> bool {
    use crate::write::write_str;
    // SAFETY: as the caller guarantees.
    let (map, out) = unsafe { (&(*src.cast::<HeaderMapForm>()).0, &mut *out) };
    // SAFETY: as the caller guarantees, `target` is null or live.
    if let Some(crate::layout::SerializeTarget::MapKey) = unsafe { target.as_ref() } {
        // serde_json refuses a map as a key (`HeaderMap` is no key type, but
        // a wrapper could route it as one).
        let refusal = crate::layout::KEY_MUST_BE_A_STRING;
        // SAFETY: as the caller guarantees, `message` is valid for writes.
        unsafe { message.write(Some(refusal.into())) };
        return false;
    }
    out.push(b'{');
    for (i, name) in map.keys().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, name.as_str());
        out.push(b':');
        let all = map.get_all(name);
        let mut values = all.iter();
        match (values.next().map(HeaderValue::to_str), values.next()) {
            (Some(Ok(text)), None) => write_str(out, text),
            _ => {
                out.push(b'[');
                let visible = all.iter().filter_map(|v| v.to_str().ok());
                for (j, text) in visible.enumerate() {
                    if j > 0 {
                        out.push(b',');
                    }
                    write_str(out, text);
                }
                out.push(b']');
            }
        }
    }
    out.push(b'}');
    true
}

// SAFETY: `write_header_map` reads a live `HeaderMapForm`; the decoding slot
// is never called (encode layouts reach only encoders).
unsafe impl Encode for HeaderMapForm {
    type Static = Self;
    const ENCODE: &'static TypeLayout = &TypeLayout::of::<Self>(
        HEADER_MAP,
        Kind::Serde(&crate::layout::SerdeLayout {
            decode: crate::encode::never_serde_decode,
            encode: Some(write_header_map),
            raw: false,
            borrows: false,
        }),
    );
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
