//! What a value *is* when written: the JSON text of strings, integers, floats
//! and literals, appended to a byte buffer. Where the value is read from (a
//! struct offset, an Arrow column) is the caller's business; both encoders
//! (the interpreter's and the JIT's helpers) and the Arrow writer format through
//! these functions, so each value's text is defined once.
//!
//! # The reference
//!
//! serde_json's bytes, at the version in the lock file (1.0.154):
//!
//! - integers as `itoa` writes them (serde_json uses it), 128-bit included;
//! - finite floats as `zmij` writes them (serde_json's formatter since 1.0.147:
//!   shortest round-trip digits, `1e+16`, `1e-7`, `0.0`, `-0.0`; an `f32` is
//!   formatted as an `f32`, never widened); NaN and ±infinity as `null`;
//! - strings with serde_json's escapes: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`,
//!   `\t`, every other byte below 0x20 as `\u00XX` with lower-case hex; DEL and
//!   U+2028/U+2029 passed through unescaped.
//!
//! Two options change bytes, each off by default ([`Escape`]): HTML-safe
//! escaping (`<`, `>`, `&`, U+2028 and U+2029 as `\u003c`, `\u003e`, `\u0026`,
//! `\u2028`, `\u2029`, as Go's `encoding/json` and sonic write them) and ASCII
//! output (every non-ASCII character as `\uXXXX`, astral ones as a surrogate
//! pair, lower-case hex).

/// Which characters of a string are escaped beyond JSON's required ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Escape {
    /// `<`, `>`, `&`, U+2028 and U+2029 as `\u` escapes, so the text can sit
    /// inside an HTML `<script>` element.
    pub html: bool,
    /// Every non-ASCII character as `\uXXXX` (surrogate pairs above U+FFFF).
    pub ascii: bool,
}

impl Escape {
    /// serde_json's escaping: only what JSON requires.
    pub const JSON: Escape = Escape {
        html: false,
        ascii: false,
    };

    /// Whether this is serde_json's escaping.
    #[inline]
    pub fn is_json(self) -> bool {
        !self.html && !self.ascii
    }
}

/// What byte `b` is written as inside a string, when JSON requires an escape:
/// the letter after the backslash (`b'u'` for `\u00XX`), or 0 for none.
const fn escape_letter(b: u8) -> u8 {
    match b {
        0x08 => b'b',
        0x09 => b't',
        0x0A => b'n',
        0x0C => b'f',
        0x0D => b'r',
        b'"' => b'"',
        b'\\' => b'\\',
        0x00..=0x1F => b'u',
        _ => 0,
    }
}

/// [`escape_letter`] for every byte.
static ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = escape_letter(i as u8);
        i += 1;
    }
    table
};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `s` as a JSON string, quotes included, with serde_json's escapes.
/// Inlined where it is called: texts of at most 32 bytes with nothing to
/// escape (keys and most values) are checked in registers and stored with
/// one reservation; any other goes to the out-of-line [`write_str_general`].
#[inline(always)]
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    if !short_and_clean(bytes) {
        return write_str_general(out, bytes);
    }
    out.reserve(bytes.len() + 2);
    let at = out.len();
    // SAFETY: `len + 2` bytes are reserved past `at`; `store_quoted` writes
    // exactly those before `set_len`.
    unsafe {
        let n = store_quoted(bytes, out.as_mut_ptr().add(at));
        out.set_len(at + n);
    }
}

/// Whether `bytes` is at most [`SHORT_COPY_MAX`] long with nothing JSON
/// requires escaping: the test of the short paths of [`write_str`] and
/// [`write_member`].
#[inline(always)]
fn short_and_clean(bytes: &[u8]) -> bool {
    match bytes.len() {
        0..4 => bytes.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\'),
        4..=SHORT_COPY_MAX => !short_text_needs_escape(bytes),
        _ => false,
    }
}

/// Stores `"bytes"` at `dst` and returns its length (`bytes.len() + 2`).
///
/// # Safety
/// `bytes` is at most [`SHORT_COPY_MAX`] long; `dst` is valid for
/// `bytes.len() + 2` writes and does not overlap it.
#[inline(always)]
unsafe fn store_quoted(bytes: &[u8], dst: *mut u8) -> usize {
    let len = bytes.len();
    // SAFETY: as the caller guarantees.
    unsafe {
        *dst = b'"';
        copy_short(bytes, dst.add(1));
        *dst.add(len + 1) = b'"';
    }
    len + 2
}

/// [`write_str`] of a text it does not take inline: a scan, then one copy
/// when nothing needs escaping, escapes otherwise.
#[inline(never)]
fn write_str_general(out: &mut Vec<u8>, bytes: &[u8]) {
    let len = bytes.len();
    if find_escape(bytes, 0) == len {
        // The common case: nothing to escape, one reservation, one copy.
        out.reserve(bytes.len() + 2);
        out.push(b'"');
        append(out, bytes);
        out.push(b'"');
        return;
    }
    out.reserve(bytes.len() + 8);
    out.push(b'"');
    write_str_contents(out, bytes);
    out.push(b'"');
}

/// Appends a member's key as compact output writes it: `,` when `comma`,
/// the key as a JSON string, and `:`; a key of at most [`SHORT_COPY_MAX`]
/// bytes with nothing to escape (every struct key in practice) with one
/// reservation and no per-byte capacity checks.
#[inline(always)]
pub fn write_member(out: &mut Vec<u8>, comma: bool, name: &str) {
    let bytes = name.as_bytes();
    if !short_and_clean(bytes) {
        return write_member_general(out, comma, name);
    }
    let comma = usize::from(comma);
    out.reserve(bytes.len() + 4);
    let at = out.len();
    // SAFETY: `len + 4` bytes are reserved past `at`; the `comma + len + 3`
    // written are all initialised before `set_len` (the comma's byte is
    // stored either way, and counted only when wanted).
    unsafe {
        let dst = out.as_mut_ptr().add(at);
        *dst = b',';
        let quoted = store_quoted(bytes, dst.add(comma));
        *dst.add(comma + quoted) = b':';
        out.set_len(at + comma + quoted + 1);
    }
}

/// [`write_member`] of a key with something to escape, or a long one.
#[inline(never)]
fn write_member_general(out: &mut Vec<u8>, comma: bool, name: &str) {
    if comma {
        out.push(b',');
    }
    write_str_general(out, name.as_bytes());
    out.push(b':');
}

/// Appends `bytes`: `extend_from_slice`, but short runs (keys, numbers, most
/// strings) are copied by [`copy_short`] instead of a call to `memcpy`, which
/// dominated the interpreter's profile.
#[inline]
pub fn append(out: &mut Vec<u8>, bytes: &[u8]) {
    let len = bytes.len();
    if len > SHORT_COPY_MAX {
        out.extend_from_slice(bytes);
        return;
    }
    out.reserve(SHORT_COPY_MAX);
    let at = out.len();
    // SAFETY: `len` ≤ SHORT_COPY_MAX bytes are reserved past `at`, and
    // `copy_short` initialises exactly those before `set_len`.
    unsafe {
        copy_short(bytes, out.as_mut_ptr().add(at));
        out.set_len(at + len);
    }
}

/// The longest text [`copy_short`] copies.
pub const SHORT_COPY_MAX: usize = 32;

/// Copies `bytes` to `dst`: by [`copy_short`] up to [`SHORT_COPY_MAX`] bytes,
/// by `memcpy` beyond. Most decoded strings and text column values are a few
/// bytes long, where the call costs more than the copy.
///
/// # Safety
/// `dst` is valid for `bytes.len()` writes and does not overlap `bytes`.
#[inline(always)]
pub unsafe fn copy_text(bytes: &[u8], dst: *mut u8) {
    // SAFETY: as the caller guarantees.
    unsafe {
        if bytes.len() <= SHORT_COPY_MAX {
            copy_short(bytes, dst);
        } else {
            core::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len());
        }
    }
}

/// Copies `bytes` (at most [`SHORT_COPY_MAX`]) to `dst` with two overlapping
/// moves of the widest size that fits (16, 8, 4 bytes; 1–3 bytes one by one),
/// reading and writing only inside `bytes` and `dst[..bytes.len()]`. A call to
/// `memcpy` for a float's or a key's few bytes was a quarter of canada's
/// encode profile (`perf`, 2026-12-02).
///
/// # Safety
/// `dst` is valid for `bytes.len()` writes and does not overlap `bytes`.
#[inline(always)]
pub unsafe fn copy_short(bytes: &[u8], dst: *mut u8) {
    let len = bytes.len();
    debug_assert!(len <= SHORT_COPY_MAX);
    let src = bytes.as_ptr();
    /// Two moves of `W`, at the start and at `len - size_of::<W>()`.
    ///
    /// # Safety
    /// `size_of::<W>() ≤ len`, with `src` and `dst` as above.
    #[inline(always)]
    unsafe fn two<W: Copy>(src: *const u8, dst: *mut u8, len: usize) {
        let tail = len - size_of::<W>();
        // SAFETY: both moves lie in `[0, len)` of each side.
        unsafe {
            let first = src.cast::<W>().read_unaligned();
            let last = src.add(tail).cast::<W>().read_unaligned();
            dst.cast::<W>().write_unaligned(first);
            dst.add(tail).cast::<W>().write_unaligned(last);
        }
    }
    // SAFETY: each branch's width is at most `len`, as `two` requires; the
    // caller guarantees `dst`.
    unsafe {
        if len >= 16 {
            two::<u128>(src, dst, len);
        } else if len >= 8 {
            two::<u64>(src, dst, len);
        } else if len >= 4 {
            two::<u32>(src, dst, len);
        } else {
            for i in 0..len {
                *dst.add(i) = *src.add(i);
            }
        }
    }
}

/// Appends `s` as a JSON string with the given escaping.
#[inline]
pub fn write_str_escaped(out: &mut Vec<u8>, s: &str, escape: Escape) {
    if escape.is_json() {
        return write_str(out, s);
    }
    out.reserve(s.len() + 2);
    out.push(b'"');
    write_str_contents_with(out, s, escape);
    out.push(b'"');
}

/// The index of the first byte of `bytes[from..]` that JSON requires escaping
/// (a control byte, `"` or `\`), or `bytes.len()`. On x86-64: 32 bytes at
/// a time with AVX2 (detected at run time) over long texts, 16 at a time with
/// SSE2 (every x86-64 CPU has it); then eight at a time.
#[inline]
pub fn find_escape(bytes: &[u8], mut from: usize) -> usize {
    let origin = from;
    #[cfg(target_arch = "x86_64")]
    if bytes.len() - from >= 64 && std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above; std caches it).
        from = unsafe { skip_clean_avx2(bytes, from) };
    }
    #[cfg(target_arch = "x86_64")]
    while from + 16 <= bytes.len() {
        if let Some(at) = escape_in_block(&bytes[from..from + 16]) {
            return from + at;
        }
        from += 16;
    }
    while from + 8 <= bytes.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[from..from + 8]);
        if let Some(at) = escape_in_word(u64::from_le_bytes(word)) {
            return from + at;
        }
        from += 8;
    }
    if from == bytes.len() {
        return from;
    }
    // The tail as one more word test instead of a loop over a table: the
    // last eight bytes when a whole word was scanned from `origin` (the bytes
    // before `from` are then known clean, so the first hit is in the tail).
    if bytes.len() >= origin + 8 {
        let start = bytes.len() - 8;
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[start..]);
        return match escape_in_word(u64::from_le_bytes(word)) {
            Some(at) => start + at,
            None => bytes.len(),
        };
    }
    // A text shorter than eight bytes, in registers (a copy into a padded
    // word would call memcpy and stall the load that reads it back): four
    // to seven bytes as its first four and last four, which overlap; fewer
    // as single bytes, padded with a byte that needs no escape.
    let rest = bytes.len() - from;
    if rest >= 4 {
        let first = u32::from_le_bytes(bytes[from..from + 4].try_into().expect("4 bytes"));
        let last = u32::from_le_bytes(bytes[bytes.len() - 4..].try_into().expect("4 bytes"));
        // Bytes 0..4 are `from..from + 4`, bytes 4..8 the last four: a hit in
        // the first half comes first in the text.
        return match escape_in_word(u64::from(first) | (u64::from(last) << 32)) {
            Some(at) if at < 4 => from + at,
            Some(at) => bytes.len() - 4 + (at - 4),
            None => bytes.len(),
        };
    }
    let mut word = u64::from_le_bytes([b'A'; 8]);
    for (i, &b) in bytes[from..].iter().enumerate() {
        word = (word & !(0xff << (8 * i))) | (u64::from(b) << (8 * i));
    }
    match escape_in_word(word) {
        Some(at) => from + at,
        None => bytes.len(),
    }
}

/// Skips the 32-byte blocks of `bytes[from..]` that need no escape: the
/// start of the first block that has a byte to escape, or of the last
/// (partial) one; the caller scans on from there.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn skip_clean_avx2(bytes: &[u8], mut from: usize) -> usize {
    use core::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_min_epu8, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8,
    };
    let (low, quote, backslash) = (
        _mm256_set1_epi8(0x1f),
        _mm256_set1_epi8(b'"' as i8),
        _mm256_set1_epi8(b'\\' as i8),
    );
    while from + 32 <= bytes.len() {
        // SAFETY: 32 bytes from `from` are in `bytes`; the load is unaligned.
        let v = unsafe { _mm256_loadu_si256(bytes.as_ptr().add(from).cast::<__m256i>()) };
        let control = _mm256_cmpeq_epi8(_mm256_min_epu8(v, low), v);
        let special = _mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, backslash));
        if _mm256_movemask_epi8(_mm256_or_si256(control, special)) != 0 {
            break;
        }
        from += 32;
    }
    from
}

/// The index of the first byte of a 16-byte block that JSON requires
/// escaping, if any.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn escape_in_block(block: &[u8]) -> Option<usize> {
    use core::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    assert!(block.len() >= 16);
    // SAFETY: every x86-64 CPU has SSE2 (the target's baseline); the block
    // has at least 16 bytes and the load is unaligned.
    let hits = unsafe {
        let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
        // Below 0x20 (unsigned): the byte equals its minimum with 0x1f.
        let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        _mm_movemask_epi8(_mm_or_si128(control, _mm_or_si128(quote, backslash)))
    };
    (hits != 0).then(|| hits.trailing_zeros() as usize)
}

/// Whether a text of 4 to [`SHORT_COPY_MAX`] bytes holds a byte JSON
/// requires escaping: its first and last 16, 8 or 4 bytes (which overlap)
/// tested as two blocks or words, with no loop and no call. The
/// interpreter's twin of the JIT's short-text path (`jit::kind::string`).
#[inline(always)]
fn short_text_needs_escape(bytes: &[u8]) -> bool {
    let len = bytes.len();
    debug_assert!((4..=SHORT_COPY_MAX).contains(&len));
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let half = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    #[cfg(target_arch = "x86_64")]
    if len >= 16 {
        return escape_in_block(&bytes[..16]).is_some()
            || escape_in_block(&bytes[len - 16..]).is_some();
    }
    if len >= 8 {
        #[cfg(not(target_arch = "x86_64"))]
        if len >= 16 {
            return [0, 8, len - 16, len - 8]
                .into_iter()
                .any(|at| escape_in_word(word(at)).is_some());
        }
        return escape_in_word(word(0)).is_some() || escape_in_word(word(len - 8)).is_some();
    }
    escape_in_word(u64::from(half(0)) | (u64::from(half(len - 4)) << 32)).is_some()
}

/// The index of the first byte of a little-endian word that JSON requires
/// escaping (below 0x20, `"` or `\\`), if any.
#[inline(always)]
fn escape_in_word(w: u64) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Each test sets the high bit of a flagged byte; bytes >= 0x80 are masked
    // out by `!w`, so UTF-8 bytes never match.
    let below = w.wrapping_sub(ONES * 0x20);
    let quote = (w ^ (ONES * b'"' as u64)).wrapping_sub(ONES);
    let backslash = (w ^ (ONES * b'\\' as u64)).wrapping_sub(ONES);
    let hits = (below | quote | backslash) & !w & HIGHS;
    // The lowest flagged byte is exact: borrows only run upwards.
    (hits != 0).then(|| (hits.trailing_zeros() / 8) as usize)
}

/// Appends the escaped contents of a string (no quotes), serde_json's way.
#[inline]
pub fn write_str_contents(out: &mut Vec<u8>, bytes: &[u8]) {
    let mut start = 0;
    loop {
        let at = find_escape(bytes, start);
        append(out, &bytes[start..at]);
        if at == bytes.len() {
            return;
        }
        write_escape(out, bytes[at]);
        start = at + 1;
    }
}

/// Appends the escape of one byte that JSON requires escaping.
#[cold]
fn write_escape(out: &mut Vec<u8>, b: u8) {
    match ESCAPE[b as usize] {
        b'u' => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[(b >> 4) as usize],
            HEX[(b & 0xF) as usize],
        ]),
        letter => out.extend_from_slice(&[b'\\', letter]),
    }
}

/// Appends `\uXXXX` for one UTF-16 code unit.
fn write_u_escape(out: &mut Vec<u8>, unit: u16) {
    out.extend_from_slice(&[
        b'\\',
        b'u',
        HEX[(unit >> 12) as usize & 0xF],
        HEX[(unit >> 8) as usize & 0xF],
        HEX[(unit >> 4) as usize & 0xF],
        HEX[unit as usize & 0xF],
    ]);
}

/// The contents of a string with HTML-safe or ASCII escaping, char by char
/// (these options are off by default; this path is not tuned).
fn write_str_contents_with(out: &mut Vec<u8>, s: &str, escape: Escape) {
    for c in s.chars() {
        let code = c as u32;
        if code < 0x80 {
            let b = code as u8;
            if ESCAPE[b as usize] != 0 {
                write_escape(out, b);
            } else if escape.html && matches!(b, b'<' | b'>' | b'&') {
                write_u_escape(out, u16::from(b));
            } else {
                out.push(b);
            }
        } else if escape.ascii {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write_u_escape(out, *unit);
            }
        } else if escape.html && (code == 0x2028 || code == 0x2029) {
            write_u_escape(out, code as u16);
        } else {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
}

/// An integer kind that serde_json writes with `itoa`.
pub trait Integer: itoa::Integer + Copy {
    /// The value as its sign (`true`: negative) and magnitude, when the
    /// magnitude fits a `u64` (always, but for 128-bit values beyond it).
    fn sign_magnitude(self) -> Option<(bool, u64)>;
}

macro_rules! integers {
    (unsigned: $($u:ty),*; signed: $($i:ty),*) => {
        $(impl Integer for $u {
            #[inline(always)]
            fn sign_magnitude(self) -> Option<(bool, u64)> {
                u64::try_from(self).ok().map(|m| (false, m))
            }
        })*
        $(impl Integer for $i {
            #[inline(always)]
            fn sign_magnitude(self) -> Option<(bool, u64)> {
                u64::try_from(self.unsigned_abs()).ok().map(|m| (self < 0, m))
            }
        })*
    };
}
integers!(unsigned: u8, u16, u32, u64, u128, usize; signed: i8, i16, i32, i64, i128, isize);

/// Appends an integer, as serde_json writes it (plain decimal, `-` for a
/// negative value). Values that fit 64 bits are written in place by
/// [`format_u64_at`]; copying itoa's text out of its buffer stalled on the
/// reload as the float copy did (a third of the interpreter's integer time
/// on citm, `perf annotate`, 2026-12-02). Wider ones go through itoa.
#[inline]
pub fn write_int<T: Integer>(out: &mut Vec<u8>, value: T) {
    let Some((negative, magnitude)) = value.sign_magnitude() else {
        let mut buffer = itoa::Buffer::new();
        return append(out, buffer.format(value).as_bytes());
    };
    out.reserve(1 + INT_MAX_LEN);
    let at = out.len();
    let sign = usize::from(negative);
    // SAFETY: `1 + INT_MAX_LEN` bytes are reserved past `at`: the sign and
    // at most INT_MAX_LEN digits, all written before `set_len`.
    unsafe {
        let dst = out.as_mut_ptr().add(at);
        *dst = b'-';
        let n = format_u64_at(magnitude, dst.add(sign));
        out.set_len(at + sign + n);
    }
}

/// Appends integers `value(0)`, ..., `value(len - 1)` separated by commas
/// (the inside of a JSON array), each as [`write_int`] writes it, with one
/// capacity check per [`INT_LIST_CHUNK`] of them instead of two per number:
/// the interpreter's arrays of integers (a `bytes::Bytes` is one of bytes).
#[inline]
pub fn write_int_list<T: Integer>(out: &mut Vec<u8>, len: usize, value: impl Fn(usize) -> T) {
    let mut i = 0;
    while i < len {
        let end = len.min(i + INT_LIST_CHUNK);
        // Per number: a comma, a sign and at most INT_MAX_LEN digits.
        out.reserve((end - i) * (INT_MAX_LEN + 2));
        let mut at = out.len();
        // SAFETY: each number written below takes at most `INT_MAX_LEN + 2`
        // of the bytes reserved past `out.len()` for the `end - i` numbers,
        // and all of them are initialised before `set_len`.
        unsafe {
            let dst = out.as_mut_ptr();
            while i < end {
                let Some((negative, magnitude)) = value(i).sign_magnitude() else {
                    break;
                };
                if i > 0 {
                    *dst.add(at) = b',';
                    at += 1;
                }
                *dst.add(at) = b'-';
                at += usize::from(negative);
                at += format_u64_at(magnitude, dst.add(at));
                i += 1;
            }
            out.set_len(at);
        }
        if i < end {
            // A 128-bit value beyond a `u64`: written on its own.
            if i > 0 {
                out.push(b',');
            }
            write_int(out, value(i));
            i += 1;
        }
    }
}

/// How many numbers [`write_int_list`] reserves room for at once.
pub const INT_LIST_CHUNK: usize = 16;

/// The most digits of a `u64` (`18446744073709551615`).
pub const INT_MAX_LEN: usize = 20;

/// `"00" "01" … "99"`: the two digits of every number below 100.
pub static DIGIT_PAIRS: [u8; 200] = {
    let mut table = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        table[2 * i] = b'0' + (i / 10) as u8;
        table[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    table
};

/// The number of decimal digits of `value`, in constant time. Below 10,000
/// (bytes, small counts) three compares made side by side: every store of
/// the number waits for its length, and the general path's chain (bit
/// length, multiply, table load, compare) was most of the time of an array
/// of bytes (`perf annotate`, 2026-12-06). From 10,000 on, the bit length
/// times log10(2) (1233 / 4096) gives the digit count or one more, which one
/// power of ten decides.
#[inline(always)]
fn decimal_digits(value: u64) -> usize {
    if value < 10_000 {
        return 1
            + usize::from(value >= 10)
            + usize::from(value >= 100)
            + usize::from(value >= 1_000);
    }
    const POW10: [u64; 20] = {
        let mut table = [1u64; 20];
        let mut i = 1;
        while i < 20 {
            table[i] = table[i - 1] * 10;
            i += 1;
        }
        table
    };
    let v = value | 1;
    let bits = 64 - v.leading_zeros() as usize;
    let t = (bits * 1233) >> 12;
    t + 1 - usize::from(v < POW10[t])
}

/// Writes the decimal digits of `value` at `dst` and returns their number:
/// straight into place from the end, four digits per division and then two
/// (the same digits as itoa's, and so serde_json's). Shared by the interpreter's [`write_int`]
/// and the JIT's integer helper.
///
/// # Safety
/// `dst` is valid for [`INT_MAX_LEN`] writes.
#[inline]
pub unsafe fn format_u64_at(value: u64, dst: *mut u8) -> usize {
    let n = decimal_digits(value);
    let mut end = n;
    let mut v = value;
    // SAFETY: `n <= INT_MAX_LEN` and every store is below `dst + n`, which the
    // caller guarantees writable.
    unsafe {
        let pair = |at: usize, two: u64| {
            std::ptr::copy_nonoverlapping(
                DIGIT_PAIRS.as_ptr().add(two as usize * 2),
                dst.add(at),
                2,
            );
        };
        // Four digits per division, as two pairs, then pairs.
        while v >= 10_000 {
            let four = v % 10_000;
            v /= 10_000;
            end -= 4;
            pair(end, four / 100);
            pair(end + 2, four % 100);
        }
        while v >= 100 {
            end -= 2;
            pair(end, v % 100);
            v /= 100;
        }
        if v >= 10 {
            pair(0, v);
        } else {
            *dst = b'0' + v as u8;
        }
    }
    n
}

/// Appends an integer between quotes, as serde_json writes an integer map key.
#[inline]
pub fn write_int_key<T: Integer>(out: &mut Vec<u8>, value: T) {
    out.push(b'"');
    write_int(out, value);
    out.push(b'"');
}

/// Appends an `f64`: its shortest round-trip text when finite (zmij, as
/// serde_json), `null` otherwise.
#[inline]
pub fn write_f64(out: &mut Vec<u8>, value: f64) {
    write_float(out, value, value.is_finite());
}

/// Appends an `f32`, formatted as an `f32` (never widened to `f64`), `null`
/// when not finite.
#[inline]
pub fn write_f32(out: &mut Vec<u8>, value: f32) {
    write_float(out, value, value.is_finite());
}

/// A float's zmij text, or `null` when it is not `finite`.
#[inline]
fn write_float<F: zmij::Float>(out: &mut Vec<u8>, value: F, finite: bool) {
    if finite {
        out.reserve(FLOAT_MAX_LEN);
        let at = out.len();
        // SAFETY: FLOAT_MAX_LEN bytes are reserved past `at`; the call
        // initialises the `n` it reports.
        unsafe {
            let n = format_finite_at(value, out.as_mut_ptr().add(at));
            out.set_len(at + n);
        }
    } else {
        append(out, b"null");
    }
}

/// The longest text of a finite float: zmij's buffer size.
pub const FLOAT_MAX_LEN: usize = 24;

// zmij's `Buffer` is its text's bytes and nothing else: with size 24 and
// alignment 1 its one byte-array field is the whole struct, at offset 0.
const _: () =
    assert!(size_of::<zmij::Buffer>() == FLOAT_MAX_LEN && align_of::<zmij::Buffer>() == 1);

/// Writes finite `value`'s zmij text (serde_json's) at `dst` and returns its
/// length.
///
/// zmij writes into its own buffer; copying the text out re-reads, with wide
/// loads, bytes the formatter has just stored with narrow ones, which the CPU
/// cannot forward from its store buffer: that reload stalled for 60 % of the
/// formatting helper's samples on canada (`perf annotate`, 2026-12-02). So
/// the buffer is placed at `dst` itself, zeroed first so that it holds valid
/// bytes whatever zmij's field type; if the text ever came back elsewhere it
/// is copied.
///
/// # Safety
/// `dst` is valid for [`FLOAT_MAX_LEN`] writes.
#[inline]
pub unsafe fn format_finite_at<F: zmij::Float>(value: F, dst: *mut u8) -> usize {
    // SAFETY: the caller gives FLOAT_MAX_LEN writable bytes at `dst`; after
    // the zeroing they are a valid `zmij::Buffer` (24 bytes, alignment 1, see
    // the assertion above), borrowed only for this call.
    unsafe {
        dst.cast::<[u8; FLOAT_MAX_LEN]>()
            .write_unaligned([0; FLOAT_MAX_LEN]);
        let buffer = &mut *dst.cast::<zmij::Buffer>();
        let text = buffer.format_finite(value).as_bytes();
        if text.as_ptr() != dst.cast_const() {
            std::ptr::copy(text.as_ptr(), dst, text.len());
        }
        text.len()
    }
}

/// The two lower-case hex digits of each byte value, high nibble first.
static HEX_PAIRS: [[u8; 2]; 256] = {
    let mut table = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = [HEX[i >> 4], HEX[i & 0xF]];
        i += 1;
    }
    table
};

/// Writes `bytes` as a quoted string of lower-case hex digits (two per
/// byte, high nibble first: arrow-json's text of a binary value) at `dst`,
/// `2 * bytes.len() + 2` bytes in all, one two-byte store per byte.
///
/// # Safety
/// `dst` is valid for writes of `2 * bytes.len() + 2` bytes, which do not
/// overlap `bytes`.
#[inline]
pub unsafe fn write_hex_quoted_at(dst: *mut u8, bytes: &[u8]) {
    // SAFETY: each store is inside the caller's `2 * len + 2` bytes: the
    // quote at 0, byte i's pair at 1 + 2i, the quote at 1 + 2 * len.
    unsafe {
        *dst = b'"';
        for (i, &b) in bytes.iter().enumerate() {
            dst.add(1 + 2 * i)
                .cast::<[u8; 2]>()
                .write_unaligned(HEX_PAIRS[usize::from(b)]);
        }
        *dst.add(1 + 2 * bytes.len()) = b'"';
    }
}

/// Appends `bytes` as [`write_hex_quoted_at`] writes them.
///
/// # Panics
/// When `2 * bytes.len() + 2` overflows `usize` or the vector cannot grow
/// (as `Vec::reserve`).
pub fn write_hex_quoted(out: &mut Vec<u8>, bytes: &[u8]) {
    let needed = bytes
        .len()
        .checked_mul(2)
        .and_then(|n| n.checked_add(2))
        .expect("hex text length overflows usize");
    out.reserve(needed);
    let len = out.len();
    // SAFETY: the reserve above leaves `needed` bytes of capacity past
    // `len`; the vector's buffer does not overlap `bytes` (a shared borrow
    // beside the exclusive one); the call initialises all `needed` bytes.
    unsafe {
        write_hex_quoted_at(out.as_mut_ptr().add(len), bytes);
        out.set_len(len + needed);
    }
}

/// Appends `true` or `false`.
#[inline]
pub fn write_bool(out: &mut Vec<u8>, value: bool) {
    append(out, if value { b"true" } else { b"false" });
}

/// Appends a newline and `level` indentation units (pretty output).
#[inline]
pub fn write_newline_indent(out: &mut Vec<u8>, level: usize, unit: &[u8]) {
    out.push(b'\n');
    if unit.iter().all(|&b| b == b' ') {
        // Spaces, as every indentation jitson writes: one fill.
        out.resize(out.len() + level * unit.len(), b' ');
    } else {
        for _ in 0..level {
            out.extend_from_slice(unit);
        }
    }
}

/// Appends compact JSON text (one valid value, as serde_json's compact writer
/// gives it) pretty-printed as serde_json's pretty writer would write it at
/// `level` units deep: each element and member on its own line, `": "` after
/// keys, empty containers as `[]` and `{}`. Strings are copied unchanged.
pub fn write_pretty_from_compact(out: &mut Vec<u8>, text: &[u8], level: usize, unit: &[u8]) {
    write_from_compact(out, text, Some((level, unit)), Escape::JSON);
}

/// Appends compact JSON text (one valid value, as serde_json's compact writer
/// gives it, e.g. a value written through serde) in this writer's form:
/// pretty-printed at `level` units of `unit` when `pretty` is given (as
/// [`write_pretty_from_compact`]), compact otherwise, and every string's
/// characters escaped as `escape` asks (the escapes already in the text are
/// kept; serde_json writes only the ones JSON requires, which every `Escape`
/// writes alike). So a value written through serde obeys the encoder's
/// options like any other.
pub fn write_from_compact(
    out: &mut Vec<u8>,
    text: &[u8],
    mut pretty: Option<(usize, &[u8])>,
    escape: Escape,
) {
    if pretty.is_none() && escape.is_json() {
        // Every byte would be copied as it is.
        out.extend_from_slice(text);
        return;
    }
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        match (b, pretty) {
            (b'"', _) => {
                // The string through its closing quote, escapes included.
                let start = i;
                i += 1;
                while text[i] != b'"' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
                write_string_from_compact(out, &text[start..=i], escape);
            }
            (b'[' | b'{', Some((level, unit))) => {
                out.push(b);
                let close = if b == b'[' { b']' } else { b'}' };
                if text.get(i + 1) == Some(&close) {
                    out.push(close);
                    i += 1;
                } else {
                    pretty = Some((level + 1, unit));
                    write_newline_indent(out, level + 1, unit);
                }
            }
            (b']' | b'}', Some((level, unit))) => {
                pretty = Some((level - 1, unit));
                write_newline_indent(out, level - 1, unit);
                out.push(b);
            }
            (b',', Some((level, unit))) => {
                out.push(b',');
                write_newline_indent(out, level, unit);
            }
            (b':', Some(_)) => out.extend_from_slice(b": "),
            _ => out.push(b),
        }
        i += 1;
    }
}

/// Appends one string literal of compact JSON text (quotes included) with
/// `escape`'s escapes added to the characters between its escape sequences.
fn write_string_from_compact(out: &mut Vec<u8>, literal: &[u8], escape: Escape) {
    if escape.is_json() {
        out.extend_from_slice(literal);
        return;
    }
    let inner = &literal[1..literal.len() - 1];
    out.push(b'"');
    let mut from = 0;
    while from < inner.len() {
        // A run up to the next escape sequence: whole characters, since an
        // escape starts with an ASCII byte.
        let end = inner[from..]
            .iter()
            .position(|&b| b == b'\\')
            .map_or(inner.len(), |at| from + at);
        match core::str::from_utf8(&inner[from..end]) {
            Ok(run) => write_str_contents_with(out, run, escape),
            // Not text serde_json writes; kept as it is.
            Err(_) => out.extend_from_slice(&inner[from..end]),
        }
        // The escape sequence itself: `\x`, or `\uXXXX` (its hex digits are
        // ASCII that no option escapes).
        let escape_end = if end < inner.len() {
            (end + 2).min(inner.len())
        } else {
            end
        };
        out.extend_from_slice(&inner[end..escape_end]);
        from = escape_end;
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_formatted_in_place_are_zmij_text() {
        let f64s = [
            0.0,
            -0.0,
            1.0,
            -65.61361699999999,
            1e15,
            1e16,
            1e-5,
            1e-6,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            f64::MIN,
            0.1 + 0.2,
            123456789.12345679,
        ];
        /// The in-place text of `v`: zmij's own, with nothing past the
        /// reserved room touched.
        fn in_place<F: zmij::Float + Copy>(v: F) -> Vec<u8> {
            let mut dst = [0xAAu8; FLOAT_MAX_LEN + 8];
            // SAFETY: `dst` has FLOAT_MAX_LEN bytes and more.
            let n = unsafe { format_finite_at(v, dst.as_mut_ptr()) };
            assert_eq!(&dst[..n], zmij::Buffer::new().format_finite(v).as_bytes());
            assert!(dst[FLOAT_MAX_LEN..].iter().all(|&b| b == 0xAA));
            dst[..n].to_vec()
        }
        for v in f64s {
            let text = in_place(v);
            let mut out = b"[".to_vec();
            write_f64(&mut out, v);
            assert_eq!(&out[1..], &text[..]);
        }
        for v in [0.1f32, -3.4028235e38, 1e-45, 16777216.0, 2567984.2] {
            in_place(v);
        }
    }

    #[test]
    fn members_are_written_as_separator_key_and_colon() {
        for name in [
            "", "a", "id", "age", "name", "a\"b", "é", "\u{1}", "tab\tx", "x\\y",
        ]
        .into_iter()
        .map(str::to_owned)
        .chain((0..40).map(|n| "k".repeat(n)))
        .chain((0..40).map(|n| format!("{}\"", "k".repeat(n))))
        {
            for comma in [false, true] {
                let mut out = b"{".to_vec();
                write_member(&mut out, comma, &name);
                let mut expect = b"{".to_vec();
                if comma {
                    expect.push(b',');
                }
                write_str(&mut expect, &name);
                expect.push(b':');
                assert_eq!(out, expect, "{name:?}");
            }
        }
    }

    #[test]
    fn integer_lists_are_their_numbers_written_one_by_one() {
        fn check<T: Integer>(values: &[T]) {
            for len in 0..=values.len() {
                let values = &values[..len];
                let mut expected = b"[".to_vec();
                for (i, &v) in values.iter().enumerate() {
                    if i > 0 {
                        expected.push(b',');
                    }
                    write_int(&mut expected, v);
                }
                // Appended after what the buffer holds, whatever its capacity.
                let mut out = Vec::with_capacity(len);
                out.push(b'[');
                write_int_list(&mut out, len, |i| values[i]);
                assert_eq!(out, expected);
            }
        }
        let bytes: Vec<u8> = (0..=255).rev().step_by(7).collect();
        check(&bytes);
        let extremes: Vec<i64> = (0..40)
            .map(|i| match i % 4 {
                0 => i64::MIN,
                1 => i64::MAX,
                2 => -(10i64.pow(i % 19)),
                _ => 10i64.pow(i % 19) - 1,
            })
            .collect();
        check(&extremes);
        check(&[u64::MAX, 0, 9_999, 10_000, 99_999]);
        // 128-bit values beyond a `u64` between ones within it, at chunk edges.
        let wide: Vec<i128> = (0..(3 * INT_LIST_CHUNK as i128))
            .map(|i| {
                if i % 5 == 0 {
                    i128::MIN + i
                } else if i % 7 == 0 {
                    i128::MAX - i
                } else {
                    i - 20
                }
            })
            .collect();
        check(&wide);
        check(&[u128::MAX; 20]);
    }

    #[test]
    fn decimal_digits_at_every_power_of_ten() {
        assert_eq!(decimal_digits(0), 1);
        let mut p = 1u64;
        for digits in 1..=20 {
            assert_eq!(decimal_digits(p), digits, "{p}");
            if digits > 1 {
                assert_eq!(decimal_digits(p - 1), digits - 1, "{}", p - 1);
            }
            assert_eq!(decimal_digits(p.saturating_add(1)), digits);
            if digits < 20 {
                p *= 10;
            }
        }
        assert_eq!(decimal_digits(u64::MAX), 20);
    }

    #[test]
    fn integers_are_itoas_text() {
        fn check<T: Integer + std::fmt::Display>(v: T) {
            let mut out = b"x".to_vec();
            write_int(&mut out, v);
            assert_eq!(&out[1..], v.to_string().as_bytes());
        }
        let mut p = 1u64;
        for _ in 0..20 {
            for d in [p - 1, p, p + 1, p.wrapping_mul(9)] {
                check(d);
                check(d as i64);
                check((d as i64).wrapping_neg());
            }
            p = p.wrapping_mul(10);
        }
        check(u64::MAX);
        check(i64::MIN);
        check(i64::MAX);
        check(i8::MIN);
        check(u128::MAX);
        check(i128::MIN);
        check(u128::from(u64::MAX));
        check(-i128::from(u64::MAX));
        check(-i128::from(u64::MAX) - 1);
        check(0u8);
        // Random magnitudes of every length.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = x >> (x % 64);
            check(v);
            check(v as i64);
        }
    }

    #[test]
    fn copy_short_copies_every_length_and_nothing_more() {
        for len in 0..=SHORT_COPY_MAX {
            let bytes: Vec<u8> = (1..=len as u8).collect();
            let mut dst = [0u8; SHORT_COPY_MAX + 4];
            // SAFETY: `dst` holds `len` bytes and more; no overlap.
            unsafe { copy_short(&bytes, dst.as_mut_ptr()) };
            assert_eq!(&dst[..len], &bytes[..]);
            assert!(dst[len..].iter().all(|&b| b == 0));
        }
    }

    fn escaped(s: &str) -> String {
        let mut out = Vec::new();
        write_str(&mut out, s);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn escapes_as_serde_json_at_every_position() {
        let specials = [
            "\"", "\\", "\n", "\r", "\t", "\u{8}", "\u{c}", "\u{0}", "\u{1f}", "\u{7f}", "é",
            "\u{2028}", "😀",
        ];
        for special in specials {
            for pad in 0..40 {
                let s = format!("{}{special}{}", "a".repeat(pad), "b".repeat(pad % 9));
                assert_eq!(escaped(&s), serde_json::to_string(&s).unwrap(), "{s:?}");
            }
        }
    }

    #[test]
    fn append_copies_every_length() {
        for len in 0..40 {
            let bytes: Vec<u8> = (0..len as u8).collect();
            let mut out = b"x".to_vec();
            append(&mut out, &bytes);
            assert_eq!(&out[1..], &bytes[..]);
            assert_eq!(out[0], b'x');
        }
    }

    #[test]
    fn find_escape_from_any_start() {
        let bytes = b"ab\"cdefghijklm\\nopq\"r";
        for from in 0..=bytes.len() {
            let expect = (from..bytes.len())
                .find(|&i| ESCAPE[bytes[i] as usize] != 0)
                .unwrap_or(bytes.len());
            assert_eq!(find_escape(bytes, from), expect, "from {from}");
        }
    }

    #[test]
    fn find_escape_agrees_with_the_table() {
        // Every byte at every position of the 16-byte blocks, the 8-byte
        // words and the tail, from several starts.
        for b in 0..=255u8 {
            for len in [1, 7, 8, 15, 16, 17, 20, 31, 32, 40, 47, 64, 65, 100] {
                for pos in 0..len {
                    let mut bytes = vec![b'x'; len];
                    bytes[pos] = b;
                    for from in [0, 1, 3].into_iter().filter(|&f| f <= pos) {
                        let expect = if ESCAPE[b as usize] != 0 { pos } else { len };
                        assert_eq!(
                            find_escape(&bytes, from),
                            expect,
                            "byte {b:#x} at {pos} of {len} from {from}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn pretty_from_compact_is_serde_jsons_pretty() {
        let value =
            serde_json::json!({"a": [1, [], {}, {"b": "x,y:[z]\\\"{"}], "c": {"d": null}, "e": []});
        let compact = serde_json::to_vec(&value).unwrap();
        let mut out = Vec::new();
        write_pretty_from_compact(&mut out, &compact, 0, b"  ");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string_pretty(&value).unwrap()
        );
    }

    #[test]
    fn html_and_ascii() {
        let mut out = Vec::new();
        let both = Escape {
            html: true,
            ascii: true,
        };
        write_str_escaped(&mut out, "<a&b>\u{2028}é😀\n", both);
        assert_eq!(
            out,
            br#""\u003ca\u0026b\u003e\u2028\u00e9\ud83d\ude00\n""#.to_vec()
        );
    }

    #[test]
    fn compact_text_takes_the_options_as_strings_written_here_do() {
        // Strings with every kind of character next to serde_json's own
        // escapes, as keys and values, compact and pretty: re-escaping
        // serde_json's text must give what writing the strings with the
        // options gives.
        let strings = [
            "",
            "plain",
            "<a&b>",
            "é\"ü\\😀",
            "\n<\u{2028}\u{1f}é",
            "\\u00e9 is text",
            "\u{2029}\t&\u{7f}",
        ];
        for escape in [
            Escape::JSON,
            Escape {
                html: true,
                ascii: false,
            },
            Escape {
                html: false,
                ascii: true,
            },
            Escape {
                html: true,
                ascii: true,
            },
        ] {
            for s in strings {
                let mut expect = Vec::new();
                write_str_escaped(&mut expect, s, escape);
                let compact = serde_json::to_vec(s).unwrap();
                let mut out = Vec::new();
                write_from_compact(&mut out, &compact, None, escape);
                assert_eq!(out, expect, "{s:?} {escape:?}");
            }
            let value = serde_json::json!({"<k>é": ["a\\\"&", {"😀": "\u{2028}"}], "n": [1, {}]});
            let mut expect = Vec::new();
            let compact = serde_json::to_vec(&value).unwrap();
            let mut out = Vec::new();
            write_from_compact(&mut out, &compact, Some((0, b"  ")), escape);
            // The same text as serde_json's pretty writer, whose strings are
            // then escaped one by one.
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            write_from_compact(&mut expect, pretty.as_bytes(), None, escape);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                String::from_utf8(expect).unwrap()
            );
        }
    }

    #[test]
    fn floats_and_ints_as_serde_json() {
        let floats = [
            0.0,
            -0.0,
            1.0,
            1e15,
            1e16,
            1e-5,
            1e-6,
            1e-7,
            123.456,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            0.1 + 0.2,
        ];
        for f in floats {
            let mut out = Vec::new();
            write_f64(&mut out, f);
            assert_eq!(out, serde_json::to_vec(&f).unwrap(), "{f}");
            let g = f as f32;
            let mut out = Vec::new();
            write_f32(&mut out, g);
            assert_eq!(out, serde_json::to_vec(&g).unwrap(), "{g}");
        }
        for f in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut out = Vec::new();
            write_f64(&mut out, f);
            assert_eq!(out, b"null");
        }
        let mut out = Vec::new();
        write_int(&mut out, i128::MIN);
        assert_eq!(out, serde_json::to_vec(&i128::MIN).unwrap());
    }
}
