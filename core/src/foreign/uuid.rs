//! uuid's types (feature `uuid`), as uuid's serde impl (uuid 1.x,
//! `src/external/serde_support.rs`) has serde_json read and write them. serde_json
//! is a human-readable format, so the impl asks for a string
//! (`deserialize_str`: any other JSON value is refused as serde refuses a
//! wrong type, a JSON array of bytes included) and writes the hyphenated
//! lowercase text:
//!
//! | type | JSON | read by | written as |
//! |---|---|---|---|
//! | `Uuid` | string | `Uuid::parse_str`: hyphenated (`8-4-4-4-12`), simple (32 digits), braced (`{…}`), URN (`urn:uuid:…`, prefix in any case); hex digits in either case | hyphenated, lowercase |
//! | `NonNilUuid` | string | as `Uuid`, then refused if nil | as `Uuid` |
//!
//! The fast path reads the hyphenated form (36 bytes, hex digits in either
//! case) without allocating and writes the hyphenated lowercase form into
//! the encoder's reserved room; every other text goes to `Uuid::parse_str`,
//! whose refusals carry uuid's own reason behind uuid's prefix (`UUID parsing
//! failed: invalid length: found 5`), as serde's `Error::custom` has it.

use core::fmt;

use uuid::{NonNilUuid, Uuid};

use super::{FromText, Room, ToText};

/// The value of each byte as a hex digit (either case), or `0xFF`.
static HEX_VALUE: [u8; 256] = {
    let mut table = [0xFF; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};

/// Where each of the sixteen bytes' two digits start in the hyphenated form
/// (`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`).
const DIGITS_AT: [usize; 16] = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/// The hyphenated form, the whole of `b`: 36 bytes, hyphens at 8, 13, 18 and
/// 23, hex digits of either case elsewhere — exactly the 36-byte texts
/// `Uuid::parse_str` accepts, with the same value.
#[inline]
fn hyphenated(b: &[u8]) -> Option<Uuid> {
    let b: &[u8; 36] = b.try_into().ok()?;
    if b[8] != b'-' || b[13] != b'-' || b[18] != b'-' || b[23] != b'-' {
        return None;
    }
    let mut bytes = [0u8; 16];
    let mut bad = 0u8;
    for (byte, &at) in bytes.iter_mut().zip(&DIGITS_AT) {
        let (hi, lo) = (
            HEX_VALUE[usize::from(b[at])],
            HEX_VALUE[usize::from(b[at + 1])],
        );
        bad |= hi | lo;
        *byte = (hi << 4) | (lo & 0x0F);
    }
    // A digit's value is below 16; a non-digit's (0xFF) sets the high bits.
    (bad < 16).then_some(Uuid::from_bytes(bytes))
}

/// uuid's refusal of a text, displayed as its serde impl hands it to
/// `Error::custom`.
pub(crate) struct Refused(uuid::Error);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UUID parsing failed: {}", self.0)
    }
}

impl FromText for Uuid {
    type Error = Refused;
    fn from_text(text: &str) -> Result<Self, Refused> {
        match hyphenated(text.as_bytes()) {
            Some(uuid) => Ok(uuid),
            None => Uuid::parse_str(text).map_err(Refused),
        }
    }
}

/// The lowercase digits.
const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";

impl ToText for Uuid {
    // `"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"`
    const MAX_LEN: usize = 38;
    fn fast(&self, room: &mut Room<'_>) -> bool {
        let mut text = [b'-'; 38];
        text[0] = b'"';
        text[37] = b'"';
        for (&byte, &at) in self.as_bytes().iter().zip(&DIGITS_AT) {
            text[1 + at] = HEX_LOWER[usize::from(byte >> 4)];
            text[2 + at] = HEX_LOWER[usize::from(byte & 0x0F)];
        }
        room.extend(&text);
        true
    }
    fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
        let mut buf = Uuid::encode_buffer();
        crate::write::write_str(out, self.hyphenated().encode_lower(&mut buf));
        Ok(())
    }
}

/// `NonNilUuid`'s refusal: uuid's for a text that is no UUID, serde's
/// `invalid_value` for the nil one.
pub(crate) enum NonNilRefused {
    Text(Refused),
    Nil,
}

impl fmt::Display for NonNilRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Text(refused) => refused.fmt(f),
            Self::Nil => f.write_str("invalid value: nil UUID, expected a non-nil UUID"),
        }
    }
}

impl FromText for NonNilUuid {
    type Error = NonNilRefused;
    fn from_text(text: &str) -> Result<Self, NonNilRefused> {
        let uuid = Uuid::from_text(text).map_err(NonNilRefused::Text)?;
        NonNilUuid::new(uuid).ok_or(NonNilRefused::Nil)
    }
}

impl ToText for NonNilUuid {
    const MAX_LEN: usize = Uuid::MAX_LEN;
    fn fast(&self, room: &mut Room<'_>) -> bool {
        Uuid::from(*self).fast(room)
    }
    fn write(&self, out: &mut Vec<u8>) -> Result<(), String> {
        Uuid::from(*self).write(out)
    }
}

super::text_scalars! {
    Uuid => "a formatted UUID string";
    NonNilUuid => "a formatted UUID string";
}
