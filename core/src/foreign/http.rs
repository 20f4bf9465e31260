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
//! and each under `http_serde::option::` for an `Option` of it (`null` is
//! `None`). `HeaderMap` (`http_serde::header_map`) keeps going through
//! http-serde's functions.

use core::fmt::Display;

use http::uri::Authority;
use http::{Method, StatusCode, Uri, Version};

use super::{FormLayouts, FromText, Room, ScalarForm, ToText};

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
