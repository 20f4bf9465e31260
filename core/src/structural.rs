//! Validating a skipped object or array 64 bytes at a time:
//! [`validate_container`], the fast path of
//! [`text::ignore_value`](crate::text::ignore_value).
//!
//! The token-by-token skipper (`text::skip_value`) pays a call and a branch
//! per string, number and punctuation mark. Here, as in simdjson's two stages
//! (Langdale and Lemire, "Parsing Gigabytes of JSON per Second", 2019), each
//! block of 64 bytes first becomes bit masks: the quotes that no backslash
//! escapes, a prefix XOR of them for the bytes inside strings, and outside
//! strings the structural characters (`{}[]:,`), whitespace and the first byte
//! of each run of other bytes (a number or a literal). Then only the set bits
//! are visited, through the grammar's states; strings are never walked, and
//! their UTF-8 is checked once for the whole container.
//!
//! The answer is a promise, not a diagnosis: `Some(end)` only when the
//! token-by-token skipper accepts the same container and ends it at `end`,
//! `None` for anything it might refuse, whose error the caller then gets from
//! that skipper. So the rules are written once, in `text`: inside strings a
//! control byte is refused here outright, and every escape is checked by
//! `text`'s own escape parser; numbers and literals are checked by `text`'s
//! own scanners; and nesting deeper than [`MAX_DEPTH`] is left to the slower
//! path.

use crate::text::{ignore_number, is_utf8, parse_escape, parse_ident};

/// The deepest nesting validated here; deeper containers take the
/// token-by-token path, whose stack has no limit.
pub const MAX_DEPTH: usize = 256;

/// What the bytes of 64 bytes of input are, as bit masks: bit `i` of each
/// mask stands for byte `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Classes {
    quote: u64,
    backslash: u64,
    /// `{`, `}`, `[`, `]`, `:` and `,`.
    structural: u64,
    /// Space, tab, line feed and carriage return.
    space: u64,
    /// Bytes below 0x20 (which a string may not hold as they are).
    control: u64,
    /// Bytes from 0x80 (which only a string may hold, as UTF-8).
    high: u64,
}

/// [`Classes`] of `block`, with x86-64's baseline (SSE2), or byte by byte on
/// other targets.
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
#[inline(never)]
unsafe fn classify_sse2(block: &[u8; 64]) -> Classes {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8 as eq, _mm_loadu_si128, _mm_max_epu8,
        _mm_movemask_epi8 as movemask, _mm_or_si128 as or, _mm_set1_epi8 as splat,
    };
    let mut classes = Classes::default();
    for i in 0..4 {
        // SAFETY: the 16 bytes at `16 * i` lie within the 64 of `block`; the
        // load is unaligned, and the rest is SSE2 on registers (the
        // baseline, which closures have too: `classify_avx2` has none).
        unsafe {
            let bytes = _mm_loadu_si128(block.as_ptr().add(16 * i).cast::<__m128i>());
            // Bit 5 folds `[` into `{` and `]` into `}` (0x5b/0x7b, 0x5d/0x7d),
            // and no other byte becomes either with it set.
            let folded = or(bytes, splat(0x20));
            let structural = or(
                or(eq(folded, splat(b'{' as i8)), eq(folded, splat(b'}' as i8))),
                or(eq(bytes, splat(b':' as i8)), eq(bytes, splat(b',' as i8))),
            );
            let space = or(
                or(eq(bytes, splat(b' ' as i8)), eq(bytes, splat(b'\t' as i8))),
                or(eq(bytes, splat(b'\n' as i8)), eq(bytes, splat(b'\r' as i8))),
            );
            // `max(b, 0x1f) == 0x1f` exactly when `b <= 0x1f`, unsigned.
            let control = eq(_mm_max_epu8(bytes, splat(0x1f)), splat(0x1f));
            let shift = 16 * i;
            let mask = |v: __m128i| u64::from(movemask(v) as u16) << shift;
            classes.quote |= mask(eq(bytes, splat(b'"' as i8)));
            classes.backslash |= mask(eq(bytes, splat(b'\\' as i8)));
            classes.structural |= mask(structural);
            classes.space |= mask(space);
            classes.control |= mask(control);
            classes.high |= mask(bytes);
        }
    }
    classes
}

/// [`classify`] thirty-two bytes at a time with AVX2.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn classify_avx2(block: &[u8; 64]) -> Classes {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8 as eq, _mm256_loadu_si256, _mm256_max_epu8,
        _mm256_movemask_epi8 as movemask, _mm256_or_si256 as or, _mm256_set1_epi8 as splat,
    };
    let mut classes = Classes::default();
    for i in 0..2 {
        // SAFETY: the 32 bytes at `32 * i` lie within the 64 of `block`; the
        // load is unaligned.
        let bytes = unsafe { _mm256_loadu_si256(block.as_ptr().add(32 * i).cast::<__m256i>()) };
        // As in `classify_sse2`, but without closures over vectors: a
        // closure does not take on AVX2, and its vectors went through memory
        // byte by byte (three times slower than the token-by-token skip).
        let folded = or(bytes, splat(0x20));
        let structural = or(
            or(eq(folded, splat(b'{' as i8)), eq(folded, splat(b'}' as i8))),
            or(eq(bytes, splat(b':' as i8)), eq(bytes, splat(b',' as i8))),
        );
        let space = or(
            or(eq(bytes, splat(b' ' as i8)), eq(bytes, splat(b'\t' as i8))),
            or(eq(bytes, splat(b'\n' as i8)), eq(bytes, splat(b'\r' as i8))),
        );
        let control = eq(_mm256_max_epu8(bytes, splat(0x1f)), splat(0x1f));
        let shift = 32 * i;
        classes.quote |= u64::from(movemask(eq(bytes, splat(b'"' as i8))) as u32) << shift;
        classes.backslash |= u64::from(movemask(eq(bytes, splat(b'\\' as i8))) as u32) << shift;
        classes.structural |= u64::from(movemask(structural) as u32) << shift;
        classes.space |= u64::from(movemask(space) as u32) << shift;
        classes.control |= u64::from(movemask(control) as u32) << shift;
        classes.high |= u64::from(movemask(bytes) as u32) << shift;
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
            b'{' | b'}' | b'[' | b']' | b':' | b',' => classes.structural |= bit,
            b' ' | b'\t' | b'\n' | b'\r' => classes.space |= bit,
            _ => {}
        }
        if b < 0x20 {
            classes.control |= bit;
        }
        if b >= 0x80 {
            classes.high |= bit;
        }
    }
    classes
}

/// The containers open around the token being read: bit `d` of the stack is
/// set when the container at depth `d` is an object.
struct Nesting {
    objects: [u64; MAX_DEPTH / 64],
    depth: usize,
}

impl Nesting {
    /// Enters a container; `false` past [`MAX_DEPTH`].
    #[inline]
    fn push(&mut self, object: bool) -> bool {
        if self.depth == MAX_DEPTH {
            return false;
        }
        let (word, bit) = (self.depth / 64, self.depth % 64);
        self.objects[word] = (self.objects[word] & !(1 << bit)) | (u64::from(object) << bit);
        self.depth += 1;
        true
    }

    /// Whether the innermost container is an object (`depth > 0`).
    #[inline]
    fn in_object(&self) -> bool {
        let d = self.depth - 1;
        self.objects[d / 64] >> (d % 64) & 1 == 1
    }
}

/// The tokens of the input from a container's opening bracket on, in order:
/// each structural character outside strings, each string's opening quote,
/// and the first byte of each number or literal. A block's strings are
/// checked ([`check_strings`]) before the cursor leaves it.
struct Tokens<'a> {
    input: &'a [u8],
    /// The container's opening bracket: escapes are counted back to it.
    start: usize,
    classify: fn(&[u8; 64]) -> Classes,
    /// The block being read.
    at: usize,
    classes: Classes,
    /// Its bytes inside strings, from each opening quote up to (not
    /// including) the closing one.
    strings: u64,
    /// Its bytes of numbers and literals.
    atoms: u64,
    /// Its tokens not read yet.
    tokens: u64,
    /// Where the last escape ended: a backslash before it is that escape's.
    escaped_to: usize,
    /// Whether a byte from 0x80 was seen.
    high: bool,
}

impl<'a> Tokens<'a> {
    fn new(input: &'a [u8], start: usize, classify: fn(&[u8; 64]) -> Classes) -> Option<Self> {
        let mut tokens = Tokens {
            input,
            start,
            classify,
            at: start,
            classes: Classes::default(),
            strings: 0,
            atoms: 0,
            tokens: 0,
            escaped_to: start,
            high: false,
        };
        tokens.load(0, 0)?;
        Some(tokens)
    }

    /// Classifies the block at `self.at` (`in_string`: all ones when it
    /// begins inside a string; `atom_before`: bit 0 set when the byte before
    /// it belongs to a number or a literal). `None` at the end of the input:
    /// a container still open there is refused.
    #[inline]
    fn load(&mut self, in_string: u64, atom_before: u64) -> Option<()> {
        let input = self.input;
        let mut padded = [b' '; 64];
        let block: &[u8; 64] = match input.get(self.at..self.at + 64) {
            Some(block) => block.try_into().expect("64 bytes"),
            None => {
                // The last bytes, padded with spaces, which end no token and
                // open none.
                let rest = input.get(self.at..).filter(|rest| !rest.is_empty())?;
                padded[..rest.len()].copy_from_slice(rest);
                &padded
            }
        };
        let c = (self.classify)(block);
        let quote =
            crate::brackets::unescaped_quotes(input, self.start, self.at, c.quote, c.backslash);
        let strings = crate::brackets::prefix_xor(quote) ^ in_string;
        let outside = !(strings | quote);
        let atoms = outside & !(c.structural | c.space);
        self.tokens =
            (c.structural & outside) | (quote & strings) | (atoms & !((atoms << 1) | atom_before));
        self.high |= c.high != 0;
        (self.classes, self.strings, self.atoms) = (c, strings, atoms);
        Some(())
    }

    /// The position of the next token.
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        while self.tokens == 0 {
            check_strings(
                self.input,
                self.at,
                &self.classes,
                self.strings,
                &mut self.escaped_to,
            )?;
            let in_string = ((self.strings as i64) >> 63) as u64;
            let atom_before = self.atoms >> 63;
            self.at += 64;
            self.load(in_string, atom_before)?;
        }
        let pos = self.at + self.tokens.trailing_zeros() as usize;
        self.tokens &= self.tokens - 1;
        Some(pos)
    }

    /// Whether the number or literal at `pos`, which its scanner ended at
    /// `end`, is the whole run of bytes there: a run that goes on
    /// (`truex`, `1x`, `01`) is refused.
    #[inline(always)]
    fn atom_ends_at(&self, pos: usize, end: usize) -> bool {
        let i = pos - self.at;
        let run = (!(self.atoms >> i)).trailing_zeros() as usize;
        if i + run < 64 {
            return pos + run == end;
        }
        // The run reaches the next block: look at its bytes.
        end >= self.at + 64
            && self.input.get(end).is_none_or(|&b| {
                matches!(b, b'"' | b'{' | b'}' | b'[' | b']' | b':' | b',') || crate::text::is_ws(b)
            })
    }

    /// The container closed with the token at `pos`: its strings checked up
    /// to there, then its UTF-8 (`validate_utf8`).
    fn finish(&mut self, pos: usize, validate_utf8: bool) -> Option<usize> {
        // The bytes after the container are not its business.
        let within = u64::MAX >> (63 - (pos - self.at));
        check_strings(
            self.input,
            self.at,
            &self.classes,
            self.strings & within,
            &mut self.escaped_to,
        )?;
        let end = pos + 1;
        let text = &self.input[self.start..end];
        (!validate_utf8 || !self.high || is_utf8(text)).then_some(end)
    }
}

/// Validates the object or array whose opening bracket is at `start` as
/// [`text::ignore_value`](crate::text::ignore_value) does (the grammar, every
/// escape, no control byte inside a string, and the strings' UTF-8 when
/// `validate_utf8`), 64 bytes at a time.
///
/// Returns `Some(end)`, the position after the closing bracket, only where
/// the token-by-token skipper would return `Ok(end)`; `None` where it might
/// return an error (or where nesting passes [`MAX_DEPTH`]): the caller then
/// asks it, for the exact error and position.
///
/// # Panics
/// If `input[start]` is not `{` or `[` (a bug in the caller).
pub fn validate_container(input: &[u8], start: usize, validate_utf8: bool) -> Option<usize> {
    assert!(
        matches!(input[start], b'{' | b'['),
        "validate_container at {:#x}, not a bracket",
        input[start]
    );
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return validate_with(input, start, validate_utf8, |block| unsafe {
            classify_avx2(block)
        });
    }
    validate_with(input, start, validate_utf8, classify)
}

/// [`validate_container`] with `classify` for each block. The grammar's
/// states are places in the code, as in `text::skip_value`, so that each
/// branch is predicted from its own history.
fn validate_with(
    input: &[u8],
    start: usize,
    validate_utf8: bool,
    classify: fn(&[u8; 64]) -> Classes,
) -> Option<usize> {
    let mut nesting = Nesting {
        objects: [0; MAX_DEPTH / 64],
        depth: 0,
    };
    let mut tokens = Tokens::new(input, start, classify)?;
    let mut pos = tokens.next()?;
    'value: loop {
        // A value starts at the token at `pos`.
        match input[pos] {
            b'"' => {}
            b'{' => {
                if !nesting.push(true) {
                    return None;
                }
                pos = tokens.next()?;
                match input[pos] {
                    b'"' => {
                        pos = colon(&mut tokens)?;
                        continue 'value;
                    }
                    b'}' => nesting.depth -= 1,
                    _ => return None,
                }
            }
            b'[' => {
                if !nesting.push(false) {
                    return None;
                }
                pos = tokens.next()?;
                if input[pos] != b']' {
                    continue 'value;
                }
                nesting.depth -= 1;
            }
            b => {
                let end = match b {
                    b'-' | b'0'..=b'9' => ignore_number(input, pos).ok()?,
                    b't' => parse_ident(input, pos + 1, b"rue").ok()?,
                    b'f' => parse_ident(input, pos + 1, b"alse").ok()?,
                    b'n' => parse_ident(input, pos + 1, b"ull").ok()?,
                    _ => return None,
                };
                if !tokens.atom_ends_at(pos, end) {
                    return None;
                }
            }
        }
        // A value ended before the token at `pos`: close containers until
        // one continues.
        loop {
            if nesting.depth == 0 {
                return tokens.finish(pos, validate_utf8);
            }
            pos = tokens.next()?;
            match (input[pos], nesting.in_object()) {
                (b',', false) => {
                    pos = tokens.next()?;
                    continue 'value;
                }
                (b',', true) => {
                    pos = tokens.next()?;
                    if input[pos] != b'"' {
                        return None;
                    }
                    pos = colon(&mut tokens)?;
                    continue 'value;
                }
                (b']', false) | (b'}', true) => nesting.depth -= 1,
                _ => return None,
            }
        }
    }
}

/// Checks the bytes of the block at `at` that `strings` marks as inside
/// strings: no control byte, and every escape as `text` parses it
/// (`escaped_to`: where the last escape ended, carried across blocks).
/// `None` for anything the token-by-token skipper refuses.
#[inline(always)]
fn check_strings(
    input: &[u8],
    at: usize,
    classes: &Classes,
    strings: u64,
    escaped_to: &mut usize,
) -> Option<()> {
    if classes.control & strings != 0 {
        return None;
    }
    let mut escapes = classes.backslash & strings;
    while escapes != 0 {
        let pos = at + escapes.trailing_zeros() as usize;
        if pos >= *escaped_to {
            *escaped_to = parse_escape(input, pos, None).ok()?;
        }
        escapes &= escapes - 1;
    }
    Some(())
}

/// After a key: the `:` token, then the token that starts the value.
#[inline(always)]
fn colon(tokens: &mut Tokens<'_>) -> Option<usize> {
    let pos = tokens.next()?;
    if tokens.input[pos] != b':' {
        return None;
    }
    tokens.next()
}

#[cfg(test)]
mod tests {
    use super::{Classes, classify, classify_bytes, validate_container};
    use crate::brackets::tests::{Rng, value};
    use crate::text::{LexError, ignore_value_token_by_token};

    /// The token-by-token answer, which [`validate_container`] promises.
    fn reference(input: &[u8], start: usize) -> Result<usize, LexError> {
        ignore_value_token_by_token(input, start, true)
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
            let expected: Classes = classify_bytes(&block);
            assert_eq!(classify(&block), expected, "{block:?}");
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2.
                let avx2 = unsafe { super::classify_avx2(&block) };
                assert_eq!(avx2, expected, "{block:?}");
            }
        }
    }

    /// Both class functions on one input: the dispatching entry point and the
    /// baseline loop (where AVX2 takes over in the entry point).
    fn both(input: &[u8], start: usize) -> [Option<usize>; 2] {
        [
            validate_container(input, start, true),
            super::validate_with(input, start, true, classify),
        ]
    }

    /// Valid containers are accepted and end where the token-by-token
    /// skipper ends them, at every alignment against the blocks and with
    /// input after them.
    #[test]
    fn valid_containers_end_where_the_reference_ends_them() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let mut containers = 0;
        while containers < 20_000 {
            let mut doc = Vec::new();
            value(&mut rng, 4, &mut doc);
            if !matches!(doc[0], b'{' | b'[') {
                continue;
            }
            for lead in [0usize, 1, 7, 63, 64, 65] {
                for tail in [&b""[..], b",1]", b"  }", b"x"] {
                    let mut input = vec![b' '; lead];
                    input.extend_from_slice(&doc);
                    input.extend_from_slice(tail);
                    let expected = reference(&input, lead).expect("valid");
                    for ours in both(&input, lead) {
                        assert_eq!(ours, Some(expected), "{}", String::from_utf8_lossy(&input));
                    }
                    containers += 1;
                }
            }
        }
    }

    /// Valid containers with a few bytes changed, inserted or removed, from
    /// an alphabet of what matters to the grammar: an answer is always the
    /// reference's, and a container the reference accepts is accepted.
    #[test]
    fn mutated_containers_are_accepted_only_where_the_reference_accepts_them() {
        let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
        let alphabet = b"{}[]\"\\ ,:a0-.eE+tfnul/bu\x01\x1f\t\x7f\xe9\xbf\xc3\xed\xa0\xf0";
        let (mut accepted, mut refused) = (0, 0);
        for _ in 0..60_000 {
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
            let expected = reference(&doc, 0);
            for ours in both(&doc, 0) {
                match (ours, &expected) {
                    (Some(end), Ok(e)) => assert_eq!(end, *e),
                    (None, Ok(_)) => panic!("refused: {}", String::from_utf8_lossy(&doc)),
                    (Some(_), Err(e)) => {
                        panic!("accepted: {} ({e:?})", String::from_utf8_lossy(&doc))
                    }
                    (None, Err(_)) => {}
                }
            }
            match expected {
                Ok(_) => accepted += 1,
                Err(_) => refused += 1,
            }
        }
        assert!(
            accepted > 2_000 && refused > 10_000,
            "{accepted} / {refused}"
        );
    }

    /// Hand-picked edges: every escape and surrogate rule, control bytes,
    /// numbers and literals cut or run on, trailing commas, mismatched
    /// brackets, UTF-8 inside and outside strings, and deep nesting.
    #[test]
    fn edges_agree_with_the_reference() {
        let cases: &[&[u8]] = &[
            b"[]",
            b"{}",
            b"[ ]",
            b"{ }",
            b"[1]",
            b"[1,]",
            b"[,1]",
            b"{\"a\":1,}",
            b"{\"a\" 1}",
            b"{\"a\":}",
            b"{1:1}",
            b"{\"a\":1 \"b\":2}",
            b"[1 2]",
            b"[\"a\"\"b\"]",
            b"[\"a\"1]",
            b"[1\"a\"]",
            b"[truex]",
            b"[tru]",
            b"[true false]",
            b"[nul]",
            b"[-]",
            b"[01]",
            b"[1.]",
            b"[1e]",
            b"[.5]",
            b"[1.5e+3, -0, 0.0e-0]",
            b"[1}",
            b"{\"a\":1]",
            b"[\"\\u00e9\\n\\\"\\\\\\/\\b\\f\\r\\t\"]",
            b"[\"\\x\"]",
            b"[\"\\u12\"]",
            b"[\"\\u123g\"]",
            b"[\"\\ud83d\\ude00\"]",
            b"[\"\\ud83d\"]",
            b"[\"\\ud83d\\u0041\"]",
            b"[\"\\ude00\"]",
            b"[\"a\x01b\"]",
            b"[\"a\x7fb\"]",
            b"[\"a\tb\"]",
            b"[\x01]",
            b"[1,\x0c2]",
            "[\"é漢\"]".as_bytes(),
            b"[\"\xe9\"]",
            b"[\"\xed\xa0\x80\"]",
            b"[\xc3\xa9]",
            b"[1\xc3\xa9]",
            b"[\"a\\",
            b"[\"a",
            b"[1",
            b"{\"a\"",
            b"{\"a\":",
            b"[\\\"a\"]",
            b"[\"a\"\\]",
            b"[]]",
        ];
        for &case in cases {
            for lead in [0usize, 60, 64] {
                let mut input = vec![b' '; lead];
                input.extend_from_slice(case);
                let expected = reference(&input, lead).ok();
                for ours in both(&input, lead) {
                    assert_eq!(ours, expected, "{}", String::from_utf8_lossy(&input));
                }
            }
        }
        // Nesting: accepted to the limit, left to the reference beyond it.
        for depth in [1, 100, super::MAX_DEPTH, super::MAX_DEPTH + 1, 1_000] {
            let input = [vec![b'['; depth], vec![b']'; depth]].concat();
            let expected = (depth <= super::MAX_DEPTH).then_some(input.len());
            assert_eq!(both(&input, 0), [expected; 2], "depth {depth}");
            assert_eq!(reference(&input, 0), Ok(input.len()));
        }
        // `&str` input: UTF-8 is not checked again.
        assert_eq!(validate_container(b"[\"\xe9\"]", 0, false), Some(5));
    }
}
