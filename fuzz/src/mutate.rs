//! Edits of a JSON document driven by fuzz input: the operations that reach the
//! decoders' error paths from an otherwise valid document.

use arbitrary::Unstructured;

/// Bytes and tokens worth inserting: structure, the starts of every kind of value,
/// escapes, extreme numbers, invalid UTF-8 and a lone surrogate.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"\"",
    b"\\",
    b" ",
    b"\n",
    b"0",
    b"-",
    b".",
    b"e",
    b"null",
    b"true",
    b"false",
    b"-0",
    b"1e400",
    b"-1e-400",
    b"18446744073709551616",
    b"-9223372036854775809",
    b"0.1e1",
    b"\"\\u00e9\"",
    b"\"\\ud800\"",
    b"\"\\n\"",
    b"\xc3",
    b"\xff",
    b"\xed\xa0\x80",
    b"\x00",
    b"{}",
    b"[]",
    b"\"\"",
    b"\"x\":1,",
];

/// Applies up to four edits chosen by `u` to `doc`: truncate, delete a byte range,
/// overwrite a byte, insert a token, or duplicate a range. Stops when `u` is
/// exhausted.
pub fn edit(doc: &mut Vec<u8>, u: &mut Unstructured<'_>) {
    let count = u.int_in_range(0..=4u8).unwrap_or(0);
    for _ in 0..count {
        let (Ok(op), Ok(at)) = (u.arbitrary::<u8>(), u.arbitrary::<u32>()) else {
            return;
        };
        let at = at as usize % (doc.len() + 1);
        match op % 5 {
            0 => doc.truncate(at),
            1 => {
                let end = (at + 1 + (op as usize >> 3)).min(doc.len());
                doc.drain(at..end);
            }
            2 if at < doc.len() => doc[at] = u.arbitrary().unwrap_or(0),
            3 => {
                let token = u.choose(TOKENS).copied().unwrap_or(b"");
                doc.splice(at..at, token.iter().copied());
            }
            _ => {
                let end = (at + (op as usize >> 3)).min(doc.len());
                let range = doc[at..end].to_vec();
                doc.splice(at..at, range);
            }
        }
    }
}
