//! http's types through http-serde's `with` modules (feature `http`, issue
//! 38), held to http-serde on every backend: the derive recognises the
//! modules and reads and writes their forms natively.

use crate::common;

use common::{backends, oracle};
use http::uri::Authority;
use http::{Method, StatusCode, Uri, Version};
use jitson::{Backend, Encoder};
use serde::{Deserialize, Serialize};

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Exchange {
    #[serde(with = "http_serde::status_code")]
    status: StatusCode,
    #[serde(with = "http_serde::method")]
    method: Method,
    #[serde(with = "http_serde::uri")]
    uri: Uri,
    #[serde(with = "http_serde::authority")]
    authority: Authority,
    #[serde(with = "http_serde::version")]
    version: Version,
    #[serde(with = "http_serde::option::status_code")]
    redirect: Option<StatusCode>,
    #[serde(with = "http_serde::option::uri")]
    location: Option<Uri>,
    #[serde(with = "http_serde::option::method")]
    retry: Option<Method>,
}

fn sample() -> Exchange {
    Exchange {
        status: StatusCode::NOT_FOUND,
        method: Method::from_bytes(b"PURGE").unwrap(),
        uri: "https://example.com:8443/a/b?c=d&e".parse().unwrap(),
        authority: "user@example.com:80".parse().unwrap(),
        version: Version::HTTP_2,
        redirect: None,
        location: Some("/relative?q".parse().unwrap()),
        retry: Some(Method::GET),
    }
}

#[track_caller]
fn encodes_as_serde_json(value: &Exchange) {
    let compact = serde_json::to_string(value);
    for backend in backends() {
        let ours = Encoder::<Exchange>::with_backend(backend).encode(value);
        match (&compact, ours) {
            (Ok(theirs), Ok(ours)) => assert_eq!(&String::from_utf8(ours).unwrap(), theirs),
            (Err(theirs), Err(ours)) => assert!(ours.to_string().contains(&theirs.to_string())),
            (theirs, ours) => panic!("{backend:?}: {ours:?} / {theirs:?}"),
        }
    }
}

/// The sample's document with `field`'s value replaced by `json`.
fn with_field(field: &str, json: &str) -> String {
    oracle::replace_member(&serde_json::to_string(&sample()).unwrap(), field, json)
}

fn reads_as_http_serde(doc: &str) {
    oracle::agree_with_reason::<Exchange>(doc);
}

#[test]
fn an_exchange_round_trips_as_http_serde_writes_it() {
    let value = sample();
    encodes_as_serde_json(&value);
    let json = serde_json::to_string(&value).unwrap();
    assert_eq!(oracle::agree::<Exchange>(json.as_bytes()).unwrap(), value);
    let mut other = value.clone();
    other.redirect = Some(StatusCode::from_u16(999).unwrap());
    other.location = None;
    other.version = Version::HTTP_09;
    other.uri = Uri::from_static("*");
    encodes_as_serde_json(&other);
    let long = format!("https://example.com/{}", "x".repeat(400));
    other.uri = long.parse().unwrap();
    other.method = Method::from_bytes("X".repeat(100).as_bytes()).unwrap();
    encodes_as_serde_json(&other);
}

#[test]
fn texts_and_numbers_are_read_as_http_serde_reads_them() {
    for status in [
        "100",
        "999",
        "99",
        "1000",
        "0",
        "-1",
        "-0",
        "200.0",
        "2e2",
        "65636",
        "\"200\"",
        "null",
        "18446744073709551616",
        "1e400",
    ] {
        reads_as_http_serde(&with_field("status", status));
        reads_as_http_serde(&with_field("redirect", status));
    }
    for method in [
        "\"GET\"",
        "\"get\"",
        "\"G T\"",
        "\"\"",
        "\"M\\u00e9\"",
        "\"PATCH\"",
        "5",
        "null",
    ] {
        reads_as_http_serde(&with_field("method", method));
        reads_as_http_serde(&with_field("retry", method));
    }
    for uri in [
        "\"/\"",
        "\"*\"",
        "\"http://a/b\"",
        "\"http://a b\"",
        "\"\"",
        "\"https://ex.com:99999/\"",
        "\"/p?\\\"q\"",
        "\"\\u0068ttp://x/\"",
        "\"//x\"",
        "null",
    ] {
        reads_as_http_serde(&with_field("uri", uri));
        reads_as_http_serde(&with_field("location", uri));
    }
    for authority in ["\"a:1\"", "\"a b\"", "\"\"", "\"[::1]:8080\""] {
        reads_as_http_serde(&with_field("authority", authority));
    }
    for version in [
        "\"HTTP/1.1\"",
        "\"HTTP/1.2\"",
        "\"http/1.1\"",
        "11",
        "\"HTTP/3.0\"",
    ] {
        reads_as_http_serde(&with_field("version", version));
    }
}

#[test]
fn structs_of_http_values_stay_compiled() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<Exchange>().unwrap();
    jitson::warm_up_encode::<Exchange>().unwrap();
    let interpreted = jitson::stats().interpreted_layouts;
    assert!(
        !interpreted
            .iter()
            .any(|(ty, _)| ty.contains("Exchange") || ty.starts_with("http::")),
        "{interpreted:?}"
    );
}
