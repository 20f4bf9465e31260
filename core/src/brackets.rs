//! Skipping an object or an array by matching its brackets, 64 bytes at a
//! time, without parsing what is inside: [`skip_container`] and
//! [`ignore_value_by_brackets`].
//!
//! [`text::ignore_value`](crate::text::ignore_value) validates what it skips
//! as serde_json's `ignore_value` does (the grammar, every escape, UTF-8),
//! token by token. Where the caller has chosen not to pay for that (an Arrow
//! reader whose schema keeps a few members of large records), a container is
//! skipped the way bytedance/sonic's "SIMD-searching-pair" skip
//! (`Config.NoValidateSkipJSON`) and simdjson's stage 1 find structure: each
//! block of 64 bytes becomes bit masks of its quotes, backslashes and
//! brackets; quotes with an odd run of backslashes before them are escaped;
//! a prefix XOR of the remaining quotes marks the bytes inside strings; and
//! the brackets outside strings are counted until the container's own
//! closing bracket; a string is skipped to its first unescaped quote.
//! What this does not check, it does not check anywhere: the grammar between
//! the brackets, escapes, control characters and UTF-8 inside strings, and
//! brackets of the other kind (`[}` counts as a pair). It still fails on
//! input that ends before the value does, and on a container closed by the
//! other kind of bracket.

use crate::error::ErrorCode;
use crate::text::{LexError, ignore_number, ignore_value, parse_ident, skip_ws};

/// Where the bytes that give a JSON text its structure lie in 64 bytes of
/// input: bit `i` of each mask stands for byte `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Classes {
    quote: u64,
    backslash: u64,
    /// `{` or `[`.
    open: u64,
    /// `}` or `]`.
    close: u64,
}

/// The classes of `block`'s bytes, with x86-64's baseline (SSE2) or byte by
/// byte elsewhere.
#[inline]
fn classify(block: &[u8; 64]) -> Classes {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of x86-64's baseline.
    return unsafe { classify_sse2(block) };
    #[cfg(not(target_arch = "x86_64"))]
    classify_bytes(block)
}

/// [`classify`] sixteen bytes at a time with SSE2.
#[cfg(target_arch = "x86_64")]
#[inline]
unsafe fn classify_sse2(block: &[u8; 64]) -> Classes {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    let mut classes = Classes::default();
    for i in 0..4 {
        // SAFETY: the 16 bytes at `16 * i` lie within the 64 of `block`; the
        // load is unaligned.
        let bytes = unsafe { _mm_loadu_si128(block.as_ptr().add(16 * i).cast::<__m128i>()) };
        // SAFETY: SSE2 only, on registers.
        let mask = |w: __m128i, b: u8| unsafe {
            u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(w, _mm_set1_epi8(b as i8))) as u16)
                << (16 * i)
        };
        // `[` and `{` differ only in bit 5 (0x5b, 0x7b), as do `]` and `}`
        // (0x5d, 0x7d), and no other byte becomes either with that bit set.
        // SAFETY: SSE2 only, on registers.
        let folded = unsafe { _mm_or_si128(bytes, _mm_set1_epi8(0x20)) };
        classes.quote |= mask(bytes, b'"');
        classes.backslash |= mask(bytes, b'\\');
        classes.open |= mask(folded, b'{');
        classes.close |= mask(folded, b'}');
    }
    classes
}

/// [`classify`] thirty-two bytes at a time with AVX2.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn classify_avx2(block: &[u8; 64]) -> Classes {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set1_epi8,
    };
    let mut classes = Classes::default();
    for i in 0..2 {
        // SAFETY: the 32 bytes at `32 * i` lie within the 64 of `block`; the
        // load is unaligned.
        let bytes = unsafe { _mm256_loadu_si256(block.as_ptr().add(32 * i).cast::<__m256i>()) };
        let mask = |w: __m256i, b: u8| {
            u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(w, _mm256_set1_epi8(b as i8))) as u32)
                << (32 * i)
        };
        // As in `classify_sse2`: bit 5 folds `[` into `{` and `]` into `}`.
        let folded = _mm256_or_si256(bytes, _mm256_set1_epi8(0x20));
        classes.quote |= mask(bytes, b'"');
        classes.backslash |= mask(bytes, b'\\');
        classes.open |= mask(folded, b'{');
        classes.close |= mask(folded, b'}');
    }
    classes
}

/// [`classify`] a byte at a time: the reference, and the code on targets
/// without a vector path.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn classify_bytes(block: &[u8; 64]) -> Classes {
    let mut classes = Classes::default();
    for (i, &b) in block.iter().enumerate() {
        let bit = 1u64 << i;
        match b {
            b'"' => classes.quote |= bit,
            b'\\' => classes.backslash |= bit,
            b'{' | b'[' => classes.open |= bit,
            b'}' | b']' => classes.close |= bit,
            _ => {}
        }
    }
    classes
}

/// Bit `i` of the result is the XOR of bits `0..=i` of `x`: with `x` the
/// quotes that open and close strings, the bytes from each opening quote up
/// to (not including) its closing one.
#[inline]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// Skips the object or array whose opening bracket is at `start`, by matching
/// brackets outside strings (see the module docs for what is not checked);
/// returns the position after its closing bracket.
///
/// # Errors
/// `EofWhileParsingObject` / `EofWhileParsingList` at `input.len()` when the
/// input ends first; `ExpectedObjectCommaOrEnd` / `ExpectedListCommaOrEnd` at
/// the closing bracket when it is of the other kind.
///
/// # Panics
/// If `input[start]` is not `{` or `[` (a bug in the caller).
pub fn skip_container(input: &[u8], start: usize) -> Result<usize, LexError> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { skip_container_avx2(input, start) };
    }
    match_brackets(input, start, classify)
}

/// [`skip_container`] with [`classify_avx2`], compiled for AVX2 as a whole.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn skip_container_avx2(input: &[u8], start: usize) -> Result<usize, LexError> {
    // SAFETY: the caller's guarantee.
    match_brackets(input, start, |block| unsafe { classify_avx2(block) })
}

/// [`skip_container`]'s loop, with `classify` for each block.
#[inline(always)]
fn match_brackets(
    input: &[u8],
    start: usize,
    classify: impl Fn(&[u8; 64]) -> Classes,
) -> Result<usize, LexError> {
    let object = match input[start] {
        b'{' => true,
        b'[' => false,
        other => panic!("skip_container at {other:#x}, not a bracket"),
    };
    let mut at = start;
    // Brackets opened before `at` and not closed, outside strings.
    let mut depth = 0usize;
    // All ones when `at` is inside a string.
    let mut in_string = 0u64;
    let mut padded = [b' '; 64];
    loop {
        let block: &[u8; 64] = match input.get(at..at + 64) {
            Some(block) => block.try_into().expect("64 bytes"),
            None => {
                // The last bytes, padded with spaces (no class of their own).
                let rest = input.get(at..).unwrap_or_default();
                if rest.is_empty() {
                    let code = if object {
                        ErrorCode::EofWhileParsingObject
                    } else {
                        ErrorCode::EofWhileParsingList
                    };
                    return Err((code, input.len()));
                }
                padded[..rest.len()].copy_from_slice(rest);
                &padded
            }
        };
        let classes = classify(block);
        let quote = unescaped(input, start, at, &classes);
        let strings = prefix_xor(quote) ^ in_string;
        in_string = ((strings as i64) >> 63) as u64;
        let open = classes.open & !strings;
        let mut close = classes.close & !strings;
        // The closing brackets in order: the one that brings the count of
        // open brackets back to zero ends the container.
        let mut closed = 0usize;
        while close != 0 {
            let bit = close & close.wrapping_neg();
            closed += 1;
            let opened = (open & (bit - 1)).count_ones() as usize;
            if depth + opened == closed {
                let end = at + bit.trailing_zeros() as usize;
                return match (object, input[end]) {
                    (true, b'}') | (false, b']') => Ok(end + 1),
                    (true, _) => Err((ErrorCode::ExpectedObjectCommaOrEnd, end)),
                    (false, _) => Err((ErrorCode::ExpectedListCommaOrEnd, end)),
                };
            }
            close &= close - 1;
        }
        depth = depth + open.count_ones() as usize - closed;
        at += 64;
    }
}

/// The quotes of the block at `at` that are not escaped: a quote is escaped
/// when an odd number of backslashes comes right before it (counted in
/// `input`, back to the container's `start` at most, so a run that began in
/// an earlier block counts whole).
#[inline]
fn unescaped(input: &[u8], start: usize, at: usize, classes: &Classes) -> u64 {
    let before = at > start && input[at - 1] == b'\\';
    let mut candidates = classes.quote & ((classes.backslash << 1) | u64::from(before));
    let mut quote = classes.quote;
    while candidates != 0 {
        let i = candidates.trailing_zeros() as usize;
        let run = input[start..at + i]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if run % 2 == 1 {
            quote &= !(1u64 << i);
        }
        candidates &= candidates - 1;
    }
    quote
}

/// Discards the value at or after `pos` (leading whitespace allowed): an
/// object or an array by [`skip_container`], a string by [`skip_string`],
/// a number or a literal validated by [`ignore_value`] (it costs no more to
/// check than to find the end of). Returns the position after the value.
pub fn ignore_value_by_brackets(
    input: &[u8],
    pos: usize,
    validate_utf8: bool,
) -> Result<usize, LexError> {
    let at = skip_ws(input, pos);
    match input.get(at) {
        Some(b'{' | b'[') => skip_container(input, at),
        Some(b'"') => skip_string(input, at + 1),
        Some(b'-' | b'0'..=b'9') => ignore_number(input, at),
        Some(b't') => parse_ident(input, at + 1, b"rue"),
        Some(b'f') => parse_ident(input, at + 1, b"alse"),
        Some(b'n') => parse_ident(input, at + 1, b"ull"),
        // Not a value: its error.
        _ => ignore_value(input, at, validate_utf8),
    }
}

/// Skips the rest of a string whose opening quote is just before `pos`: up to
/// the first quote that no backslash escapes, a backslash taking the byte
/// after it whatever it is (escapes, control characters and UTF-8 are not
/// checked). Returns the position after the closing quote, or
/// `EofWhileParsingString` at `input.len()`.
pub fn skip_string(input: &[u8], mut pos: usize) -> Result<usize, LexError> {
    loop {
        let at = find_quote_or_backslash(input, pos);
        match input.get(at) {
            Some(b'"') => return Ok(at + 1),
            Some(_) => pos = at + 2,
            None => return Err((ErrorCode::EofWhileParsingString, input.len())),
        }
    }
}

/// The first `"` or `\` at or after `pos`, or `input.len()` (also when `pos`
/// is past the end). Sixteen bytes at a time with SSE2 on x86-64.
#[inline]
fn find_quote_or_backslash(input: &[u8], mut pos: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    while let Some(chunk) = input.get(pos..pos + 16) {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        // SAFETY: SSE2 is part of x86-64's baseline; the load reads the 16
        // bytes of `chunk`, unaligned.
        let found = unsafe {
            let w = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let quote = _mm_cmpeq_epi8(w, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(w, _mm_set1_epi8(b'\\' as i8));
            _mm_movemask_epi8(_mm_or_si128(quote, backslash)) as u32
        };
        if found != 0 {
            return pos + found.trailing_zeros() as usize;
        }
        pos += 16;
    }
    while let Some(&b) = input.get(pos) {
        if b == b'"' || b == b'\\' {
            return pos;
        }
        pos += 1;
    }
    input.len()
}

#[cfg(test)]
mod tests {
    use super::{classify, classify_bytes, ignore_value_by_brackets, skip_container, skip_string};
    use crate::error::ErrorCode;
    use crate::text::{LexError, ignore_value};

    /// A small xorshift generator: the tests need variety, not quality.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A string's contents: text, brackets, escaped quotes and backslashes
    /// (runs of them, so that an escape can straddle a block boundary),
    /// `\u` escapes and non-ASCII text; sometimes long.
    fn string(rng: &mut Rng, out: &mut Vec<u8>) {
        out.push(b'"');
        let len = if rng.below(6) == 0 {
            rng.below(200)
        } else {
            rng.below(12)
        };
        for _ in 0..len {
            match rng.below(12) {
                0 => out.extend_from_slice(b"\\\""),
                1 => out.extend_from_slice(b"\\\\"),
                2 => out.extend_from_slice(b"\\\\\\\""),
                3 => out.push(b"{}[]"[rng.below(4) as usize]),
                4 => out.extend_from_slice(b"\\u00e9"),
                5 => out.extend_from_slice("é漢".as_bytes()),
                6 => out.extend_from_slice(b"\\n"),
                _ => out.push(b'a' + rng.below(26) as u8),
            }
        }
        out.push(b'"');
    }

    fn space(rng: &mut Rng, out: &mut Vec<u8>) {
        for _ in 0..rng.below(3) {
            out.push(b" \n\t\r"[rng.below(4) as usize]);
        }
    }

    /// A valid JSON value, nested up to `depth` more levels.
    fn value(rng: &mut Rng, depth: u32, out: &mut Vec<u8>) {
        let pick = if depth == 0 {
            rng.below(4)
        } else {
            rng.below(7)
        };
        match pick {
            0 => string(rng, out),
            1 => out.extend_from_slice(format!("{}", rng.next() as i64 / 3).as_bytes()),
            2 => out.extend_from_slice(b"-1.5e+3"),
            3 => out.extend_from_slice([&b"true"[..], b"false", b"null"][rng.below(3) as usize]),
            4 | 5 => {
                out.push(b'{');
                for i in 0..rng.below(6) {
                    if i > 0 {
                        out.push(b',');
                    }
                    space(rng, out);
                    string(rng, out);
                    space(rng, out);
                    out.push(b':');
                    space(rng, out);
                    value(rng, depth - 1, out);
                    space(rng, out);
                }
                out.push(b'}');
            }
            _ => {
                out.push(b'[');
                for i in 0..rng.below(6) {
                    if i > 0 {
                        out.push(b',');
                    }
                    space(rng, out);
                    value(rng, depth - 1, out);
                    space(rng, out);
                }
                out.push(b']');
            }
        }
    }

    /// The vector classes equal the byte-at-a-time ones on every byte value
    /// at every position.
    #[test]
    fn vector_classes_are_the_byte_classes() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for round in 0..2_000 {
            let mut block = [0u8; 64];
            for (i, b) in block.iter_mut().enumerate() {
                *b = if round < 256 {
                    (round as u8).wrapping_add(i as u8)
                } else {
                    rng.next() as u8
                };
            }
            assert_eq!(classify(&block), classify_bytes(&block), "{block:?}");
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2.
                let avx2 = unsafe { super::classify_avx2(&block) };
                assert_eq!(avx2, classify_bytes(&block), "{block:?}");
            }
        }
    }

    /// On valid JSON, containers end where the validating skipper ends them,
    /// at every alignment against the 64-byte blocks and with or without
    /// input after them.
    #[test]
    fn valid_values_end_where_validation_ends_them() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let mut containers = 0;
        for _ in 0..3_000 {
            let mut doc = Vec::new();
            value(&mut rng, 4, &mut doc);
            for lead in [0usize, 1, 7, 63, 64, 65] {
                for tail in [&b""[..], b",1]", b"  }"] {
                    let mut input = vec![b' '; lead];
                    input.extend_from_slice(&doc);
                    input.extend_from_slice(tail);
                    let expected = ignore_value(&input, 0, true);
                    assert!(expected.is_ok(), "{}", String::from_utf8_lossy(&input));
                    assert_eq!(
                        ignore_value_by_brackets(&input, 0, true),
                        expected,
                        "{}",
                        String::from_utf8_lossy(&input)
                    );
                    if matches!(doc[0], b'{' | b'[') {
                        // The baseline classes too, where AVX2 took over above.
                        let baseline = super::match_brackets(&input, lead, super::classify);
                        assert_eq!(baseline, expected);
                        containers += 1;
                    }
                }
            }
        }
        assert!(containers > 5_000, "{containers} containers");
    }

    /// Input that ends inside a container fails, whatever was cut.
    #[test]
    fn every_cut_container_fails() {
        let mut rng = Rng(0xDEAD_BEEF_CAFE_F00D);
        let mut cuts = 0;
        while cuts < 20_000 {
            let mut doc = Vec::new();
            value(&mut rng, 3, &mut doc);
            if !matches!(doc[0], b'{' | b'[') {
                continue;
            }
            for cut in 1..doc.len() {
                let eof = if doc[0] == b'{' {
                    ErrorCode::EofWhileParsingObject
                } else {
                    ErrorCode::EofWhileParsingList
                };
                assert_eq!(skip_container(&doc[..cut], 0), Err((eof, cut)));
                cuts += 1;
            }
        }
    }

    /// Strings end at their first unescaped quote; one that does not end
    /// fails, wherever it is cut.
    #[test]
    fn strings_end_at_their_quote() {
        let cases: [(&[u8], Result<usize, LexError>); 6] = [
            (b"\"abc\" ,", Ok(5)),
            (b"\"a\\\"b\"", Ok(6)),
            (b"\"a\\\\\"b\"", Ok(5)),
            (b"\"0123456789abcdef\\\"0123456789abcdef\"x", Ok(36)),
            (b"\"abc", Err((ErrorCode::EofWhileParsingString, 4))),
            (b"\"abc\\", Err((ErrorCode::EofWhileParsingString, 5))),
        ];
        for (input, expected) in cases {
            assert_eq!(
                ignore_value_by_brackets(input, 0, true),
                expected,
                "{}",
                String::from_utf8_lossy(input)
            );
        }
        let long = [&b"\""[..], &[b'a'; 40], b"\\\"", &[b'b'; 40], b"\""].concat();
        for cut in 1..long.len() {
            assert_eq!(
                skip_string(&long[..cut], 1),
                Err((ErrorCode::EofWhileParsingString, cut))
            );
        }
        assert_eq!(skip_string(&long, 1), Ok(long.len()));
    }

    /// Escapes decide which quotes count, also when a run of backslashes
    /// crosses from one block into the next; brackets inside strings do not
    /// count; a container closed by the other kind of bracket fails.
    #[test]
    fn escapes_strings_and_kinds() {
        for run in 0..6 {
            for lead in 50..70 {
                // `["aaa…\\…"]", ["]"]]`: `run` backslashes before a quote;
                // an odd run escapes it, and the string then holds a bracket.
                let mut input = b"[\"".to_vec();
                input.extend(std::iter::repeat_n(b'a', lead));
                input.extend(std::iter::repeat_n(b'\\', run));
                input.extend_from_slice(b"\"]\", [\"]\"]]");
                let expected = ignore_value(&input, 0, true);
                assert_eq!(
                    skip_container(&input, 0),
                    expected,
                    "run {run}, lead {lead}"
                );
            }
        }
        assert_eq!(
            skip_container(b"[1}", 0),
            Err((ErrorCode::ExpectedListCommaOrEnd, 2))
        );
        assert_eq!(
            skip_container(b"{\"a\":[}]", 0),
            Err((ErrorCode::ExpectedObjectCommaOrEnd, 7))
        );
        assert_eq!(skip_container(b"[\"]\"]", 0), Ok(5));
        assert_eq!(skip_container(b"[\"\\\\\"]", 0), Ok(6));
        assert_eq!(
            skip_container(b"[\"\\\"]", 0),
            Err((ErrorCode::EofWhileParsingList, 5))
        );
    }

    /// Valid documents with a few bytes changed: wherever the validating
    /// skipper still accepts a container, this one ends it at the same place;
    /// and it never panics or ends out of bounds on the rest.
    #[test]
    fn mutated_values_end_where_validation_ends_them() {
        let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
        let alphabet = b"{}[]\"\\ ,:a0\xe9";
        let mut agreed = 0;
        for _ in 0..20_000 {
            let mut doc = Vec::new();
            value(&mut rng, 4, &mut doc);
            if !matches!(doc[0], b'{' | b'[') || doc.len() < 3 {
                continue;
            }
            for _ in 0..1 + rng.below(3) {
                let at = 1 + rng.below(doc.len() as u64 - 1) as usize;
                let b = alphabet[rng.below(alphabet.len() as u64) as usize];
                match rng.below(3) {
                    0 => doc[at] = b,
                    1 => doc.insert(at, b),
                    _ => {
                        doc.remove(at);
                    }
                }
            }
            let ours = skip_container(&doc, 0);
            if let Ok(end) = ignore_value(&doc, 0, true) {
                assert_eq!(ours, Ok(end), "{}", String::from_utf8_lossy(&doc));
                agreed += 1;
            } else if let Ok(end) = ours {
                assert!(end <= doc.len());
            }
        }
        assert!(agreed > 1_000, "{agreed}");
    }

    /// Arbitrary bytes never make it panic or end out of bounds, and an
    /// answer ends on the matching kind of bracket.
    #[test]
    fn arbitrary_bytes_end_in_bounds() {
        let mut rng = Rng(0x0123_4567_89AB_CDEF);
        let alphabet = b"{}[]\"\\ a:,";
        for _ in 0..20_000 {
            let len = 1 + rng.below(150) as usize;
            let mut input: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize])
                .collect();
            input[0] = if rng.below(2) == 0 { b'{' } else { b'[' };
            if let Ok(end) = skip_container(&input, 0) {
                assert!(end <= input.len());
                let closer = if input[0] == b'{' { b'}' } else { b']' };
                assert_eq!(input[end - 1], closer);
            }
        }
    }
}
