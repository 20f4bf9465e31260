//! url's `Url` (feature `url`, issue 38), held to url's own serde impl
//! through serde_json on every backend: generated and hostile texts are
//! accepted and refused alike (with url's message), every accepted URL is
//! written back as serde_json writes it (escapes, long URLs past the fast
//! path's bound), and structs of them stay compiled. `Url`'s `==` compares
//! the text alone, so every accepted URL's internals (the offsets of its
//! parts, which jitson's fast path builds itself) are compared with
//! `Url::parse`'s too.

use crate::common;
use crate::encodes_as_serde_json;

use common::oracle;
use jitson::{Backend, Decoder};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use url::Url;

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Links {
    home: Url,
    next: Option<Url>,
    all: Vec<Url>,
    maybe: Vec<Option<Url>>,
}

/// One field of `T`, for texts tried alone.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct One<T> {
    t: T,
}

/// Asserts the JSON value `json` in a `One<T>` is read by every backend as
/// serde_json reads it, and refused alike, with serde's reason in jitson's
/// message; returns what was read.
#[track_caller]
fn value_reads_as_url<T>(json: &str) -> Option<T>
where
    T: jitson::Decode + for<'de> Deserialize<'de> + PartialEq + Debug,
{
    let doc = format!(r#"{{"t":{json}}}"#);
    let ours = common::decode::<One<T>>(doc.as_bytes());
    let theirs = serde_json::from_str::<One<T>>(&doc);
    if let (Err(a), Err(b)) = (&ours, &theirs) {
        crate::assert_same_reason(&doc, a, b);
    }
    oracle::compare(doc.as_bytes(), ours, theirs, |a, b| a == b)
        .ok()
        .map(|one| one.t)
}

/// Asserts the JSON string holding `text` is read as url reads it, with
/// the same internals on every backend, and, when url takes it, that the URL
/// is written back as serde_json writes it.
#[track_caller]
fn reads_as_url(text: &str) -> Option<Url> {
    let json = serde_json::to_string(text).unwrap();
    let url = value_reads_as_url::<Url>(&json);
    if let Some(url) = &url {
        encodes_as_serde_json(&One { t: url.clone() });
        let theirs = internals(&Url::parse(text).unwrap());
        let doc = format!(r#"{{"t":{json}}}"#);
        for backend in common::backends() {
            let ours = Decoder::<One<Url>>::with_backend(backend).decode_str(&doc);
            assert_eq!(
                internals(&ours.unwrap().t),
                theirs,
                "{text:?} on {}",
                backend.name()
            );
        }
    }
    url
}

/// url's internal representation: the text, the offsets of its parts, the
/// host's kind and the port, as `Url::serialize_internal` lists them.
fn internals(url: &Url) -> serde_json::Value {
    url.serialize_internal(serde_json::value::Serializer)
        .unwrap()
}

fn sample() -> Links {
    let parse = |s: &str| Url::parse(s).unwrap();
    Links {
        home: parse("https://example.com/"),
        next: Some(parse("https://example.com/page?n=2#top")),
        all: vec![
            parse("http://[::1]:8080/a/b"),
            parse("mailto:someone@example.com"),
            parse("foo:\"quoted\"\\back"),
            parse(&format!("https://example.com/{}", "x".repeat(400))),
        ],
        maybe: vec![None, Some(parse("data:text/plain,hi"))],
    }
}

#[test]
fn a_struct_of_urls_round_trips_as_serde_json() {
    let value = sample();
    encodes_as_serde_json(&value);
    let json = serde_json::to_string(&value).unwrap();
    assert_eq!(oracle::agree::<Links>(json.as_bytes()).unwrap(), value);
    let mut other = value.clone();
    other.next = None;
    other.all.clear();
    encodes_as_serde_json(&other);
    assert_eq!(
        oracle::agree::<Links>(serde_json::to_string(&other).unwrap().as_bytes()).unwrap(),
        other
    );
    encodes_as_serde_json(&value.all);
    encodes_as_serde_json(&value.maybe);
}

#[test]
fn structs_of_urls_stay_compiled() {
    if !Backend::Jit.is_available() {
        return;
    }
    jitson::warm_up::<One<Url>>().unwrap();
    jitson::warm_up_encode::<One<Url>>().unwrap();
    jitson::warm_up::<Links>().unwrap();
    jitson::warm_up_encode::<Links>().unwrap();
    let interpreted = jitson::stats().interpreted_layouts;
    assert!(
        !interpreted.iter().any(|(ty, _)| ty.contains("Url")),
        "{interpreted:?}"
    );
    common::assert_compiled(&["One<url::Url>", "Links"]);
}

/// Texts `Url::parse` takes or refuses: relative URLs, bad hosts and ports,
/// spaces and control characters (percent-encoded or stripped), unicode hosts
/// (to punycode) and paths, and the places url leaves `"` and `\` as they
/// are, which serde_json must then escape.
const TEXTS: &[&str] = &[
    "https://example.com",
    "https://example.com/",
    "HTTPS://EXAMPLE.COM/A?B#C",
    "http://user:pass@example.com:8080/p/a/t/h?query=1&b=2#frag",
    "http://example.com:80/",
    "http://example.com:65535/",
    "http://example.com:65536/",
    "http://example.com:-1/",
    "http://example.com:port/",
    "http://[::1]/",
    "http://[::1/",
    "http://[fe80::1%25en0]/",
    "http://256.0.0.1/",
    "http://1.2.3.4.5/",
    "http://0x7f.1/",
    "http://exa mple.com/",
    "http://example.com/a b?c d#e f",
    "http://example.com/\"q\"?\"q\"#\"q\"",
    "http://example.com/a\\b?c\\d#e\\f",
    "http:\\\\example.com\\a",
    "foo:\"quoted\"\\back",
    "foo:/p\"a\\th?q\"\\#f\"\\",
    "foo://host/\"\\",
    "mailto:\"someone\"@example.com",
    "http://example.com/\u{1}\u{1f}\u{7f}",
    "http://example.com/a\tb\nc\rd",
    "  http://example.com/  ",
    "\u{0}http://example.com/",
    "http://example.com/\u{0}",
    "https://\u{fc}nicode.example/\u{e4}?\u{f6}#\u{fc}",
    "https://\u{1f600}.example/\u{1f600}",
    "https://xn--nxasmq6b.com/",
    "https://xn--a.com/",
    "https://\u{200b}.com/",
    "https://a..b/",
    "https://ex%61mple.com/",
    "https://%zz/",
    "https://exa%00mple.com/",
    "http://a<b/",
    "http:",
    "http://",
    "http:///x",
    "http:x",
    "http:/x",
    "ht tp://x/",
    "1http://x/",
    "file:///C:/Windows/",
    "file://localhost/etc/passwd",
    "file:",
    "data:text/plain,hello world",
    "javascript:alert(\"x\")",
    "urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8",
    "about:blank",
    "blob:https://example.com/uuid",
    "ws://example.com/socket",
    "non-spec:/.//p",
    "foo",
    "/path",
    "//example.com/",
    "?q",
    "#f",
    "",
    " ",
    "\\",
    "\"",
];

#[test]
fn texts_are_read_as_url_reads_them() {
    let mut accepted = Vec::new();
    for text in TEXTS {
        accepted.extend(reads_as_url(text));
    }
    // The slow path is reached: some URLs' texts need escaping.
    assert!(accepted.iter().any(|u| u.as_str().contains('"')));
    assert!(accepted.iter().any(|u| u.as_str().contains('\\')));
    assert!(accepted.iter().any(|u| u.as_str().contains("xn--")));
}

/// The forms jitson builds without url's parser (`https://host/path?q#f`
/// with nothing to rewrite) and their near misses, which must go to url: a
/// missing path, upper case, a port, credentials, dot segments (also
/// percent-encoded), hosts that are numbers, punycode or empty labels, bytes
/// url percent-encodes in one part and keeps in another.
const PLAIN_EDGES: &[&str] = &[
    "https://api.github.com/repos/octocat/hello-world",
    "https://api.github.com/repos/octocat/Hello-World/{archive_format}{/ref}",
    "https://api.github.com/repos/octocat/Hello-World/issues{/number}?a={b}#{c}",
    "https://x.example/\"q\"?\"q\"#\"q\"",
    "https://x.example/<a>?<b>#<c>",
    "https://github.com",
    "https://github.com?tab=repositories",
    "https://github.com#readme",
    "https://github.com/?",
    "https://github.com/#",
    "https://github.com/?#",
    "http://a/",
    "http://a-b.c-d/e",
    "https://x.example/a//b///",
    "https://x.example/a/./b",
    "https://x.example/a/../b",
    "https://x.example/.",
    "https://x.example/..",
    "https://x.example/..?q",
    "https://x.example/.#f",
    "https://x.example/.a/a./..a/...",
    "https://x.example/%2e/b",
    "https://x.example/%2E%2e/b",
    "https://x.example/a?%2e#%2E",
    "https://x.example/a?../.#./..",
    "https://x.example/a%zz%/b%",
    "https://x.example/a?b?c#d?e",
    "https://x.example/a#b#c",
    "https://x.example/a?'b'#'c'",
    "https://x.example/'a'",
    "https://x.example/a`b?c`d#e`f",
    "https://x.example/a^b?c^d#e^f",
    "https://x.example/{a}?{b}#{c}",
    "https://x.example/[a]?[b]#[c]",
    "https://x.example/a|b?c|d#e|f",
    "https://x.example/~!$&()*+,;=:@-_",
    "https://X.example/",
    "Https://x.example/",
    "https://x.example:443/",
    "https://x.example:8443/",
    "https://user@x.example/",
    "https://1.2.3.4/",
    "https://x.1/",
    "https://x.0x1/",
    "https://1x.example/",
    "https://x.1a/",
    "https://x.example./",
    "https://.x.example/",
    "https://x..example/",
    "https://xn--nxasmq6b.com/",
    "https://a.xn--nxasmq6b/",
    "https://xn--/",
    "https://-x-.example/",
    "https://x--y.example/",
    "https:///x.example/",
    "https:/x.example/",
    "https:x.example/",
    "https://",
    "https:// x.example/",
    "https://x.example/ a",
];

#[test]
fn plain_urls_and_their_near_misses() {
    let mut accepted = 0;
    for text in PLAIN_EDGES {
        accepted += usize::from(reads_as_url(text).is_some());
    }
    assert!(accepted > 40, "{accepted}");
}

#[test]
fn long_urls_around_the_fast_paths_bound() {
    // "https://example.com/" is 20 bytes; the fast path holds 256 with the
    // quotes, so 234 more bytes of path is its last length.
    for extra in [0, 1, 100, 232, 233, 234, 235, 236, 300, 5000, 100_000] {
        for filler in ["a", "\"", "\\", "%20", " "] {
            let mut text = String::from("https://example.com/");
            while text.len() < 20 + extra {
                text.push_str(filler);
            }
            let url = reads_as_url(&text);
            assert!(url.is_some(), "{text}");
            let url = reads_as_url(&format!("foo:{text}"));
            assert!(url.is_some(), "{text}");
        }
    }
}

#[test]
fn escaped_texts_and_other_json_types() {
    for json in [
        r#""http:\u002f\u002fexample.com\u002f""#,
        r#""http://example.com/\"q\"""#,
        r#""foo:\\\"""#,
        r#""http://example.com/\u0000""#,
        r#""http://example.com/\t""#,
        r#""https://\u00fcnicode.example/""#,
        r#""https://\ud83d\ude00.example/""#,
        r#""https://example.com/\ud800""#,
        r#""https://example.com/\x""#,
        r#""relative\/path""#,
        "[]",
        "[\"https://example.com/\"]",
        "42",
        "null",
        "false",
        "{}",
        r#""https://example.com/"#,
    ] {
        value_reads_as_url::<Url>(json);
        value_reads_as_url::<Option<Url>>(json);
        value_reads_as_url::<Vec<Url>>(&format!("[{json}]"));
    }
    for doc in [
        &b"{\"t\":\"https://example.com/\xff\"}"[..],
        b"{\"t\":\"https://example.com/\x01\"}",
        b"{\"t\":\"https://example.com/\xc3\xa9\"}",
        b"{\"t\":\"https://example.com/",
    ] {
        let ours = common::decode::<One<Url>>(doc);
        let theirs = serde_json::from_slice::<One<Url>>(doc);
        let _ = oracle::compare(doc, ours, theirs, |a, b| a == b);
    }
}

/// URLs built from hostile parts: a scheme (special or not, sometimes
/// missing), a host of any characters, a path, query and fragment drawn from
/// characters url encodes, keeps or strips.
fn urls() -> impl Strategy<Value = String> {
    let scheme = prop::sample::select(vec![
        "http://", "https://", "ws://", "ftp://", "file://", "foo://", "foo:", "mailto:", "data:",
        "", "//", "h t:",
    ]);
    let host = "[a-zA-Z0-9.\\-\\[\\]:%@ \u{e9}\u{1f600}\u{200b}]{0,20}";
    let rest = "[a-z0-9/?#&=.%\"\\\\ \t\n\u{1}\u{7f}<>`{}|^'\u{e9}\u{1f600}]{0,40}";
    (scheme, host, rest).prop_map(|(s, h, r)| format!("{s}{h}{r}"))
}

/// URLs near the plain form jitson builds itself: `http(s)://`, a host of
/// lower-case labels (some numeric, some punycode, some empty), and a rest
/// mostly of bytes url keeps, with dot segments, `%2e` and a few bytes it
/// rewrites.
fn near_plain_urls() -> impl Strategy<Value = String> {
    let scheme = prop::sample::select(vec!["http://", "https://", "HTTP://", "https:/"]);
    let label = prop::sample::select(vec![
        "a",
        "api",
        "github",
        "com",
        "x-y",
        "1",
        "0x1",
        "xn--",
        "xn--nxasmq6b",
        "",
        "Z",
    ]);
    let host = prop::collection::vec(label, 1..4).prop_map(|l| l.join("."));
    let piece = prop::sample::select(vec![
        "/", "/", "a", "repos", ".", "..", "%2e", "%2E", "?", "#", "=", "&", "%20", "%", "~", "'",
        "`", "^", "{", "}", "|", "\\", " ", ":", "@", ":443", "\u{e9}",
    ]);
    let rest = prop::collection::vec(piece, 0..10).prop_map(|p| p.concat());
    (scheme, host, rest).prop_map(|(s, h, r)| format!("{s}{h}{r}"))
}

proptest! {
    #[test]
    fn generated_urls_agree_with_url(text in urls()) {
        reads_as_url(&text);
    }

    #[test]
    fn near_plain_urls_agree_with_url(text in near_plain_urls()) {
        reads_as_url(&text);
    }

    #[test]
    fn arbitrary_texts_agree_with_url(text in "\\PC{0,60}") {
        reads_as_url(&text);
    }

    #[test]
    fn long_urls_agree_with_url(
        path in "[a-z0-9/?#\"\\\\%]{200,300}",
        // `foo:x` rather than `foo:`: a path starting `//` would make the
        // text an authority, which the generated bytes need not form.
        scheme in prop::sample::select(vec!["https://example.com/", "foo:x"]),
    ) {
        let url = reads_as_url(&format!("{scheme}{path}"));
        prop_assert!(url.is_some());
    }

    #[test]
    fn generated_structs_agree_with_url(
        texts in prop::collection::vec(urls(), 1..6),
    ) {
        let mut urls: Vec<Url> = texts.iter().filter_map(|t| Url::parse(t).ok()).collect();
        if urls.is_empty() {
            urls.push(Url::parse("https://example.com/").unwrap());
        }
        let value = Links {
            home: urls[0].clone(),
            next: urls.get(1).cloned(),
            all: urls.clone(),
            maybe: urls.iter().map(|u| Some(u.clone())).chain([None]).collect(),
        };
        encodes_as_serde_json(&value);
        let json = serde_json::to_string(&value).unwrap();
        prop_assert_eq!(oracle::agree::<Links>(json.as_bytes()).unwrap(), value);
    }
}
