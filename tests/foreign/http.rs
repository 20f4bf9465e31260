//! http's types through http-serde's `with` modules (feature `http`, issue
//! 38), held to http-serde on every backend: the derive recognises the
//! modules and reads and writes their forms natively.

use crate::common;

use common::{backends, oracle};
use http::header::{HeaderName, HeaderValue};
use http::uri::Authority;
use http::{HeaderMap, Method, StatusCode, Uri, Version};
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

// ---------------------------------------------------------------------------
// HeaderMap: `http_serde::header_map`.

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Headers {
    #[serde(with = "http_serde::header_map")]
    headers: HeaderMap,
    #[serde(with = "http_serde::option::header_map")]
    trailers: Option<HeaderMap>,
    id: u32,
}

fn headers(pairs: &[(&str, &[u8])]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        map.append(
            HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_bytes(value).unwrap(),
        );
    }
    map
}

#[test]
fn header_maps_are_written_as_http_serde_writes_them() {
    let value = Headers {
        headers: headers(&[
            ("content-type", b"application/json"),
            ("set-cookie", b"a=1"),
            ("set-cookie", b"b=\"2\""),
            ("x-latin", b"caf\xe9"),
            ("x-mixed", b"ok"),
            ("x-mixed", b"caf\xe9"),
            ("x-tab", b"a\tb"),
        ]),
        trailers: None,
        id: 1,
    };
    crate::encodes_as_serde_json(&value);
    let mut other = value.clone();
    other.trailers = Some(headers(&[("grpc-status", b"0")]));
    other.headers = HeaderMap::new();
    crate::encodes_as_serde_json(&other);
    let json = serde_json::to_string(&value).unwrap();
    // Read back: `x-latin` was written as `[]` (no visible-ASCII value), so
    // only its name was checked; `x-mixed` kept its visible value.
    let read = oracle::agree::<Headers>(json.as_bytes()).unwrap();
    assert_eq!((read.headers.len(), read.headers.keys_len()), (5, 4));
}

#[test]
fn header_maps_are_read_as_http_serde_reads_them() {
    let doc = |headers: &str| format!(r#"{{"headers":{headers},"trailers":null,"id":1}}"#);
    for headers in [
        r#"{}"#,
        r#"{"Content-Type":"text/plain"}"#,
        r#"{"\u0041":"1"}"#,
        r#"{"a":"1","a":"2"}"#,
        r#"{"a":["1","2"]}"#,
        r#"{"a":"1","a":["2","3"]}"#,
        r#"{"a":["1","2"],"a":"3"}"#,
        r#"{"a":["1"],"b":[ "2" , "3" ]}"#,
        r#"{"a":[]}"#,
        r#"{"a b":[]}"#,
        r#"{"a b":"1"}"#,
        r#"{"":"1"}"#,
        r#"{"a":"\u0001"}"#,
        r#"{"a":"x\ny"}"#,
        r#"{"a":"\t x"}"#,
        r#"{"a":"café"}"#,
        r#"{"a":"\u007f"}"#,
        r#"{"a":5}"#,
        r#"{"a":-5}"#,
        r#"{"a":-0}"#,
        r#"{"a":1.5}"#,
        r#"{"a":2e2}"#,
        r#"{"a":1e400}"#,
        r#"{"a":18446744073709551616}"#,
        r#"{"a":null}"#,
        r#"{"a":true}"#,
        r#"{"a":{}}"#,
        r#"{"a":{"b":"c"}}"#,
        r#"{"a":[1]}"#,
        r#"{"a":["x",null]}"#,
        r#"{"a":["x",["y"]]}"#,
        r#"{"a":[["y"]]}"#,
        r#"{"a":["x",[5]]}"#,
        r#"{"a":"1",}"#,
        r#"[]"#,
        r#""x""#,
        r#"null"#,
        r#"5"#,
    ] {
        oracle::agree_with_reason::<Headers>(&doc(headers));
    }
    for trailers in [
        r#"null"#,
        r#"{"a":"b"}"#,
        r#"{"a":[]}"#,
        r#"[]"#,
        r#"{"a":7}"#,
    ] {
        let doc = format!(r#"{{"headers":{{}},"trailers":{trailers},"id":1}}"#);
        oracle::agree_with_reason::<Headers>(&doc);
    }
    // An absent `option::header_map` field is a missing field, as for serde.
    oracle::agree_with_reason::<Headers>(r#"{"headers":{},"id":1}"#);
}

/// http-serde's sequence visitor stops at an array element; serde_json then
/// refuses anything after it in that array as trailing characters, a syntax
/// error where jitson's, with the same words, is a data error
/// (docs/semantics.md, difference 21).
#[test]
fn elements_after_a_nested_array_are_trailing_characters() {
    for value in [r#"["x",["y"],"z"]"#, r#"["x",[["y"],"z"]]"#] {
        let doc = format!(r#"{{"headers":{{"a":{value}}},"trailers":null,"id":1}}"#);
        let theirs = serde_json::from_str::<Headers>(&doc).unwrap_err();
        assert!(
            theirs.to_string().starts_with("trailing characters"),
            "{theirs}"
        );
        // Every backend gives the same error (`common::decode` checks).
        let ours = common::decode::<Headers>(doc.as_bytes()).unwrap_err();
        assert!(
            ours.to_string().starts_with("trailing characters"),
            "{ours}"
        );
        assert_eq!(ours.path(), "$.headers");
    }
}
