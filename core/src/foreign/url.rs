//! url's `Url` (feature `url`), as url's serde impl (url 2.x, feature `serde`)
//! has serde_json read and write it:
//!
//! | type | JSON | read by | written as |
//! |---|---|---|---|
//! | `Url` | string (any other JSON value refused as serde refuses a wrong type) | [`fast_parse`] for plain `http`/`https` URLs, `Url::parse` for the rest; a refusal says `{error}: {text:?}` | `as_str()`, escaped as serde_json escapes a string |
//!
//! A URL's text is scanned by the JIT's string scan (or the interpreter's) and
//! handed here in place, with no serde round trip. Most URLs in API payloads
//! are `https://host/path?query` with nothing for url's parser to rewrite:
//! no upper case, no port, no credentials, no dot segment, no byte to
//! percent-encode. For those, [`fast_parse`] checks the text in one pass and
//! builds the `Url` from its offsets through url's own
//! `Url::deserialize_internal` (public, behind url's `serde` feature), which is
//! what url's `Url::parse` would have built; anything else goes to
//! `Url::parse`. A probe at first use ([`fast_path_holds`]) checks the offsets
//! against `Url::parse` and turns the fast path off if a future url lays its
//! internals out otherwise. `tests/foreign/url.rs` compares every accepted
//! URL's internals with `Url::parse`'s.
//!
//! Writing copies `as_str()` into the encoder's reserved room when it needs
//! no escaping and fits [`FAST_MAX`] bytes with its quotes; a longer text, or
//! one holding a `"`, a `\` or a control byte (url leaves `"` and `\`
//! unescaped in some places: a cannot-be-a-base path, a fragment), goes
//! through the general string writer.

use std::sync::OnceLock;

use serde::de::value::{
    Error as ValueError, StrDeserializer, StringDeserializer, U32Deserializer, UnitDeserializer,
};
use serde::de::{DeserializeSeed, Deserializer, SeqAccess, Visitor};
use url::Url;

use super::{FromText, Room, ToText};

/// The most bytes the fast path writes, quotes included.
const FAST_MAX: usize = 256;

impl FromText for Url {
    /// The message as url's visitor formats it for `Error::custom`:
    /// `relative URL without a base: "foo"`. Built only on a refusal.
    type Error = String;
    fn from_text(text: &str) -> Result<Self, String> {
        if let Some(url) = fast_parse(text) {
            return Ok(url);
        }
        Url::parse(text).map_err(|e| format!("{e}: {text:?}"))
    }
}

/// `Url::parse(text)` for the plain forms, without its parser: `http://` or
/// `https://`, a host of lower-case letters, digits, `-` and `.` (no empty
/// label, no `xn--` label, the last label starting with a letter, so neither
/// IDNA nor IPv4 parsing applies), then a path, query and fragment of
/// printable ASCII other than space, `\` and `^` (which url 2.5.9 encodes
/// in a path and 2.5.8 does not), with no `.` or `..` segment, no
/// `%2e` in the path and one `#` at most. What url percent-encodes in each
/// part (`{` in a path, `'` in a query, ...) is encoded as url encodes it; a
/// missing path becomes `/`, as url writes it. `None` for every other text,
/// which then goes to `Url::parse`.
pub(crate) fn fast_parse(text: &str) -> Option<Url> {
    if !fast_path_holds() {
        return None;
    }
    build(text)
}

/// The check and the build of [`fast_parse`], without the probe.
fn build(text: &str) -> Option<Url> {
    // In builds with debug assertions url checks its invariants here, by
    // parsing the text again and comparing every offset: a wrong offset then
    // falls back to `Url::parse` (and fails this module's tests).
    Url::deserialize_internal(scan(text)?).ok()
}

/// The internals of a plain URL, or `None` for a text [`fast_parse`] leaves
/// to url.
fn scan(text: &str) -> Option<Internals> {
    let bytes = text.as_bytes();
    // Url's offsets are u32; a plain URL's text grows at most threefold.
    if bytes.len() >= (u32::MAX / 4) as usize {
        return None;
    }
    let scheme_end = if bytes.starts_with(b"https://") {
        5
    } else if bytes.starts_with(b"http://") {
        4
    } else {
        return None;
    };
    let host_start = scheme_end + 3;
    let host_end = scan_host(bytes, host_start)?;
    let rest = &bytes[host_end..];
    let parts = scan_rest(rest)?;
    // A URL with no path gets url's `/` before its query or fragment.
    let slash = !rest.starts_with(b"/");
    let (serialization, query_start, fragment_start) = if parts.encoded == 0 && !slash {
        // The common case: url would keep the text as it is.
        let at = |offset: usize| host_end + offset;
        (text.to_owned(), parts.query.map(at), parts.fragment.map(at))
    } else {
        let mut serialization =
            String::with_capacity(text.len() + usize::from(slash) + 2 * parts.encoded);
        serialization.push_str(&text[..host_end]);
        if slash {
            serialization.push('/');
        }
        let (mut query_start, mut fragment_start) = (None, None);
        if parts.encoded > 0 {
            encode_rest(
                &mut serialization,
                &text[host_end..],
                &parts,
                &mut query_start,
                &mut fragment_start,
            );
        } else {
            let base = serialization.len();
            serialization.push_str(&text[host_end..]);
            query_start = parts.query.map(|q| base + q);
            fragment_start = parts.fragment.map(|f| base + f);
        }
        (serialization, query_start, fragment_start)
    };
    Some(Internals {
        serialization: Some(serialization),
        offsets: [
            scheme_end as u32,
            host_start as u32,
            host_start as u32,
            host_end as u32,
        ],
        path_start: host_end as u32,
        query_start: query_start.map(|q| q as u32),
        fragment_start: fragment_start.map(|f| f as u32),
        next: 0,
    })
}

/// The end of a plain host starting at `start`: labels of `a-z`, `0-9` and
/// `-` separated by single dots, ending at `/`, `?`, `#` or the end, the last
/// label starting with a letter (a host ending in a number is an IPv4
/// address to url), no label starting `xn--` (IDNA would decode it).
fn scan_host(bytes: &[u8], start: usize) -> Option<usize> {
    let mut label = start;
    let mut i = start;
    while let Some(&b) = bytes.get(i) {
        if CLASS[usize::from(b)] & IN_LABEL != 0 {
            i += 1;
            continue;
        }
        match b {
            b'.' => {
                plain_label(&bytes[label..i])?;
                i += 1;
                label = i;
            }
            b'/' | b'?' | b'#' => break,
            _ => return None,
        }
    }
    let last = &bytes[label..i];
    plain_label(last)?;
    last[0].is_ascii_lowercase().then_some(i)
}

fn plain_label(label: &[u8]) -> Option<()> {
    (!label.is_empty() && !label.starts_with(b"xn--")).then_some(())
}

/// Where a path, query and fragment split, from [`scan_rest`].
struct Rest {
    /// Offsets in the text's rest of the `?` and the `#`.
    query: Option<usize>,
    fragment: Option<usize>,
    /// How many bytes url percent-encodes in their part.
    encoded: usize,
    /// The offsets of the first [`ESCAPES`] of those bytes, in order.
    escapes: [usize; ESCAPES],
}

/// How many percent-encoded bytes the scan notes; a URL with more is encoded
/// by a second pass ([`encode_part`]).
const ESCAPES: usize = 8;

/// A byte's class after the host ([`CLASS`]).
const REFUSED: u8 = 0x80;
const DELIMITER: u8 = 0x40;
/// Percent-encoded in a path, a query, a fragment (url's `PATH`,
/// `SPECIAL_QUERY` and `FRAGMENT` sets, less what is refused).
const IN_PATH: u8 = 1;
const IN_QUERY: u8 = 2;
const IN_FRAGMENT: u8 = 4;
/// A byte of a plain host's label (`a-z`, `0-9`, `-`): [`scan_host`]'s
/// class, which the parts after the host ignore.
const IN_LABEL: u8 = 8;

/// Per byte: refused (controls, space, non-ASCII, `\`, which url strips,
/// trims, encodes from UTF-8 or reads as `/`), a delimiter (`/ ? # % .`,
/// checked for structure), or the parts that percent-encode it; 0 for a byte
/// every part keeps. Bytes of a host's labels also have [`IN_LABEL`].
static CLASS: [u8; 256] = {
    let mut class = [REFUSED; 256];
    let mut b = 0x21;
    while b < 0x7f {
        class[b] = 0;
        b += 1;
    }
    class[b'\\' as usize] = REFUSED;
    let mut i = 0;
    let delimiters = *b"/?#%.";
    while i < delimiters.len() {
        class[delimiters[i] as usize] = DELIMITER;
        i += 1;
    }
    class[b'"' as usize] = IN_PATH | IN_QUERY | IN_FRAGMENT;
    class[b'<' as usize] = IN_PATH | IN_QUERY | IN_FRAGMENT;
    class[b'>' as usize] = IN_PATH | IN_QUERY | IN_FRAGMENT;
    class[b'`' as usize] = IN_PATH | IN_FRAGMENT;
    // url 2.5.9 encodes `^` in a path, 2.5.8 keeps it: left to url.
    class[b'^' as usize] = REFUSED;
    class[b'{' as usize] = IN_PATH;
    class[b'}' as usize] = IN_PATH;
    class[b'\'' as usize] = IN_QUERY;
    let mut b = b'a';
    while b <= b'z' {
        class[b as usize] |= IN_LABEL;
        b += 1;
    }
    let mut b = b'0';
    while b <= b'9' {
        class[b as usize] |= IN_LABEL;
        b += 1;
    }
    class[b'-' as usize] |= IN_LABEL;
    class
};

/// Checks a path, query and fragment [`fast_parse`] takes and says where
/// they split and whether any byte is encoded.
fn scan_rest(rest: &[u8]) -> Option<Rest> {
    let mut parts = Rest {
        query: None,
        fragment: None,
        encoded: 0,
        escapes: [0; ESCAPES],
    };
    // The part's encode bit, and the start of the path's current segment.
    let mut part = IN_PATH;
    let mut segment = 0;
    for (i, &b) in rest.iter().enumerate() {
        let class = CLASS[b as usize] & !IN_LABEL;
        if class == 0 {
            continue;
        }
        if class == REFUSED {
            return None;
        }
        if class != DELIMITER {
            if class & part != 0 {
                if let Some(at) = parts.escapes.get_mut(parts.encoded) {
                    *at = i;
                }
                parts.encoded += 1;
            }
            continue;
        }
        match b {
            b'/' | b'?' | b'#' if part == IN_PATH => {
                dot_free(&rest[segment..i])?;
                segment = i + 1;
            }
            b'%' if part == IN_PATH
                && rest
                    .get(i + 1..i + 3)
                    .is_some_and(|x| x.eq_ignore_ascii_case(b"2e")) =>
            {
                return None;
            }
            _ => {}
        }
        match b {
            b'?' if part == IN_PATH => {
                parts.query = Some(i);
                part = IN_QUERY;
            }
            b'#' if part == IN_FRAGMENT => return None,
            b'#' => {
                parts.fragment = Some(i);
                part = IN_FRAGMENT;
            }
            _ => {}
        }
    }
    if part == IN_PATH {
        dot_free(&rest[segment..])?;
    }
    Some(parts)
}

/// A path segment url keeps: not `.` or `..`, which it resolves.
fn dot_free(segment: &[u8]) -> Option<()> {
    (segment != b"." && segment != b"..").then_some(())
}

/// Appends the rest to `out` with url's percent-encoding per part, and sets
/// the offsets of the `?` and `#` in `out`.
fn encode_rest(
    out: &mut String,
    rest: &str,
    parts: &Rest,
    query_start: &mut Option<usize>,
    fragment_start: &mut Option<usize>,
) {
    if let Some(escapes) = parts.escapes.get(..parts.encoded) {
        // The scan noted every byte to encode: copy the runs between them.
        let base = out.len();
        let mut run = 0;
        for &at in escapes {
            out.push_str(&rest[run..at]);
            push_escape(out, rest.as_bytes()[at]);
            run = at + 1;
        }
        out.push_str(&rest[run..]);
        // A `?` or `#` moves right by two bytes per escape before it.
        let moved = |offset: usize| base + offset + 2 * escapes.partition_point(|&e| e < offset);
        *query_start = parts.query.map(moved);
        *fragment_start = parts.fragment.map(moved);
        return;
    }
    let path_end = parts.query.or(parts.fragment).unwrap_or(rest.len());
    encode_part(out, &rest[..path_end], IN_PATH);
    if let Some(query) = parts.query {
        *query_start = Some(out.len());
        encode_part(
            out,
            &rest[query..parts.fragment.unwrap_or(rest.len())],
            IN_QUERY,
        );
    }
    if let Some(fragment) = parts.fragment {
        *fragment_start = Some(out.len());
        encode_part(out, &rest[fragment..], IN_FRAGMENT);
    }
}

/// Appends `text` (ASCII) with the bytes `part` encodes written `%XX`, in
/// upper-case hex as url writes them.
fn encode_part(out: &mut String, text: &str, part: u8) {
    let mut run = 0;
    for (i, b) in text.bytes().enumerate() {
        if CLASS[usize::from(b)] & part != 0 {
            out.push_str(&text[run..i]);
            push_escape(out, b);
            run = i + 1;
        }
    }
    out.push_str(&text[run..]);
}

/// Appends `%XX` for the byte `b`, in upper-case hex as url writes it.
fn push_escape(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.extend([
        '%',
        char::from(HEX[usize::from(b >> 4)]),
        char::from(HEX[usize::from(b & 15)]),
    ]);
}

/// Whether [`build`] gives what `Url::parse` gives, checked once a process on
/// a URL with every part it sets (compared through url's accessors, which
/// read the offsets): `false` turns [`fast_parse`] off, so a url release that
/// lays its internals out otherwise costs speed, not correctness.
fn fast_path_holds() -> bool {
    static HOLDS: OnceLock<bool> = OnceLock::new();
    *HOLDS.get_or_init(|| {
        [
            "https://a.example/p/q?r=s#t",
            "http://b.example",
            "https://c.example?x#",
            // A byte of each kind in each part: kept (`|[]!$&()*+,;=:@~%`)
            // or encoded (`{}` and `` ` `` in a path, `'` in a query, `"<>`
            // everywhere), so a url that encodes one of them otherwise
            // turns the fast path off.
            "https://d.example/|[]!$&()*+,;=:@~%{}`\"<>?|[]{}`'\"<>#|[]{}'\"<>`",
        ]
        .iter()
        .all(|text| match (build(text), Url::parse(text)) {
            (Some(ours), Ok(theirs)) => same_url(&ours, &theirs),
            _ => false,
        })
    })
}

/// Every part of two URLs equal (`Url`'s `==` compares the text alone).
pub(crate) fn same_url(a: &Url, b: &Url) -> bool {
    a.as_str() == b.as_str()
        && a.scheme() == b.scheme()
        && a.username() == b.username()
        && a.password() == b.password()
        && a.host() == b.host()
        && a.port() == b.port()
        && a.path() == b.path()
        && a.query() == b.query()
        && a.fragment() == b.fragment()
        && a.cannot_be_a_base() == b.cannot_be_a_base()
}

/// url's internal representation of a URL as `Url::deserialize_internal`
/// reads it: a tuple of the text, the scheme's end, the username's end, the
/// host's start and end, the host's kind (here always a domain), the port
/// (here none), the path's start, and the query's and fragment's starts.
struct Internals {
    serialization: Option<String>,
    /// Scheme end, username end, host start, host end.
    offsets: [u32; 4],
    path_start: u32,
    query_start: Option<u32>,
    fragment_start: Option<u32>,
    /// The next element handed out.
    next: usize,
}

impl<'de> Deserializer<'de> for Internals {
    type Error = ValueError;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ValueError> {
        visitor.visit_seq(self)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de> SeqAccess<'de> for Internals {
    type Error = ValueError;
    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, ValueError> {
        let n = self.next;
        self.next += 1;
        // Each element through serde's own deserializer of its kind, so a
        // seed is monomorphised with the one it gets.
        let value = match n {
            0 => seed.deserialize(StringDeserializer::new(
                self.serialization.take().unwrap_or_default(),
            )),
            1..=4 => seed.deserialize(U32Deserializer::new(self.offsets[n - 1])),
            // `HostInternal::Domain`, a unit variant.
            5 => seed.deserialize(EnumNamed("Domain")),
            // No port: serde's unit deserializer reads as `None`.
            6 => seed.deserialize(UnitDeserializer::new()),
            7 => seed.deserialize(U32Deserializer::new(self.path_start)),
            8 => seed.deserialize(Maybe(self.query_start)),
            9 => seed.deserialize(Maybe(self.fragment_start)),
            _ => return Ok(None),
        };
        value.map(Some)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(10usize.saturating_sub(self.next))
    }
}

/// A unit variant of the given name (`visit_enum`).
struct EnumNamed(&'static str);

impl<'de> Deserializer<'de> for EnumNamed {
    type Error = ValueError;
    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ValueError> {
        visitor.visit_enum(StrDeserializer::<ValueError>::new(self.0))
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// An `Option<u32>` (`visit_none` / `visit_some`).
struct Maybe(Option<u32>);

impl<'de> Deserializer<'de> for Maybe {
    type Error = ValueError;
    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ValueError> {
        match self.0 {
            None => visitor.visit_none(),
            Some(n) => visitor.visit_some(U32Deserializer::<ValueError>::new(n)),
        }
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

impl ToText for Url {
    const MAX_LEN: usize = FAST_MAX;
    fn fast(&self, room: &mut Room<'_>) -> bool {
        let text = self.as_str().as_bytes();
        if text.len() + 2 > FAST_MAX || crate::write::find_escape(text, 0) != text.len() {
            return false;
        }
        room.push(b'"');
        room.extend(text);
        room.push(b'"');
        true
    }
    fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
        crate::write::write_str(out, self.as_str());
        Ok(())
    }
}

super::text_scalars! {
    Url => "a string representing an URL";
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path is on with this url, and takes the plain forms: the
    /// differential tests in `tests/foreign/url.rs` would pass with it off.
    #[test]
    fn the_fast_path_holds_and_takes_plain_urls() {
        assert!(fast_path_holds());
        for text in [
            "https://api.github.com/repos/octocat/hello-world/issues?state=open&page=2#top",
            "http://localhost",
            "https://x.example?q",
            "https://x.example/a%20b/~c:d@e",
        ] {
            let ours = fast_parse(text).unwrap_or_else(|| panic!("{text} not taken"));
            assert!(same_url(&ours, &Url::parse(text).unwrap()), "{text}");
        }
        for text in [
            "https://X.example/",
            "https://x.example/./a",
            "https://1.2.3.4/",
            "ftp://x.example/",
        ] {
            assert!(fast_parse(text).is_none(), "{text} taken");
        }
    }

    /// Whether the scan takes `text`; if it does, asserts url accepts the
    /// internals (in this test build it re-checks them against its own
    /// parse, see [`build`]) and that the URL is `Url::parse`'s.
    #[track_caller]
    fn taken_as_url_parses(text: &str) -> bool {
        let Some(parts) = scan(text) else {
            return false;
        };
        let ours = Url::deserialize_internal(parts)
            .unwrap_or_else(|e| panic!("{text:?}: url refuses the internals: {e}"));
        let theirs = Url::parse(text).unwrap();
        assert!(
            same_url(&ours, &theirs),
            "{text:?}: {ours:?} against {theirs:?}"
        );
        true
    }

    /// Every text the scan takes, of all hosts and rests up to four pieces
    /// long drawn from parts url keeps, resolves, encodes or refuses, is built
    /// as `Url::parse` builds it. In this test build url checks the built
    /// URL's invariants against its own parse (see [`build`]), so a wrong
    /// offset is an error here rather than a silent fallback.
    #[test]
    fn every_scanned_text_is_what_url_parses() {
        let hosts = [
            "a",
            "x.example",
            "api.github.com",
            "x-y.z1",
            "a.1",
            "xn--p.com",
            "a..b",
            "A.b",
        ];
        let pieces = [
            "/", "a", ".", "..", "%2e", "%2E", "?", "#", "=", "%", "'", "`", "^", "{", "}", "|",
            "[", "\"", "<", "\\", " ", ":80", "@",
        ];
        let (mut taken, mut total) = (0, 0);
        let mut rests = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = rests
                .iter()
                .flat_map(|r| pieces.iter().map(move |p| format!("{r}{p}")))
                .collect();
            rests.extend(longer);
        }
        rests.sort();
        rests.dedup();
        for scheme in ["http://", "https://"] {
            for host in hosts {
                for rest in &rests {
                    total += 1;
                    taken += usize::from(taken_as_url_parses(&format!("{scheme}{host}{rest}")));
                }
            }
        }
        assert!(taken > 10_000, "{taken} of {total}");
    }

    /// Every ASCII byte, and sequences url treats apart (`%2e` forms, dots,
    /// non-ASCII), at fifteen places in the path, query and fragment, alone
    /// and in pairs: every text the scan takes is what url parses, to every
    /// offset (found no fault when a tester first ran it; kept as a guard).
    #[test]
    fn every_byte_in_every_part_is_what_url_parses() {
        let mut pieces: Vec<String> = (0u8..0x80).map(|b| char::from(b).to_string()).collect();
        for extra in [
            "\u{e9}", "\u{2028}", "%2e", "%2E", "%2", "%", ".", "..", "...", "%00", "%2f",
        ] {
            pieces.push(extra.to_owned());
        }
        let templates = [
            "https://x.example/{}",
            "https://x.example/{}/",
            "https://x.example/a{}b",
            "https://x.example/a/{}?",
            "https://x.example/a/{}#",
            "https://x.example{}",
            "https://x.example?{}",
            "https://x.example/?{}#",
            "https://x.example#{}",
            "https://x.example/?q#{}",
            "http://a/{}{}",
            "http://a?{}{}",
            "http://a#{}{}",
            "http://a/{}/{}",
            "http://a/{}?{}#",
        ];
        let mut taken = 0;
        for template in templates {
            let seconds: &[String] = if template.matches("{}").count() == 2 {
                &pieces
            } else {
                &pieces[..1]
            };
            for first in &pieces {
                for second in seconds {
                    let text = template.replacen("{}", first, 1).replacen("{}", second, 1);
                    taken += usize::from(taken_as_url_parses(&text));
                }
            }
        }
        assert!(taken > 10_000, "{taken}");
    }

    /// Texts with up to twice as many percent-encoded bytes as the scan
    /// notes (`ESCAPES`), spread over the path, the query and the fragment in
    /// every split, before and after the `?` and `#`: the noted escapes and
    /// the second pass both build what `Url::parse` builds.
    #[test]
    fn every_count_of_escapes_around_the_noted_ones() {
        let mut taken = 0;
        for n in 0..=2 * ESCAPES + 1 {
            for in_path in 0..=n {
                for in_query in 0..=n - in_path {
                    let in_fragment = n - in_path - in_query;
                    let text = format!(
                        "https://x.example/a{}b/c?d{}e&f'#g{}h",
                        "{".repeat(in_path),
                        "'\""
                            .repeat(in_query)
                            .chars()
                            .take(in_query)
                            .collect::<String>(),
                        "<`".repeat(in_fragment)
                            .chars()
                            .take(in_fragment)
                            .collect::<String>(),
                    );
                    assert!(taken_as_url_parses(&text), "{text:?} not taken");
                    taken += 1;
                }
            }
        }
        assert!(taken > 150, "{taken}");
    }
}
