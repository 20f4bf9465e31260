//! url's `Url` (feature `url`), as url's serde impl (url 2.x, feature `serde`)
//! has serde_json read and write it:
//!
//! | type | JSON | read by | written as |
//! |---|---|---|---|
//! | `Url` | string (any other JSON value refused as serde refuses a wrong type) | `Url::parse`; a refusal says `{error}: {text:?}` | `as_str()`, escaped as serde_json escapes a string |
//!
//! There is no URL parser here: a URL's text is scanned by the JIT's string
//! scan (or the interpreter's) and handed to `Url::parse` in place, with no
//! serde round trip and no copy of the text. Writing copies `as_str()` into
//! the encoder's reserved room when it needs no escaping and fits
//! [`FAST_MAX`] bytes with its quotes; a longer text, or one holding a `"`, a
//! `\` or a control byte (url leaves `"` and `\` unescaped in some places:
//! a cannot-be-a-base path, a fragment), goes through the general string
//! writer.

use url::Url;

use super::{FromText, Room, ToText};

/// The most bytes the fast path writes, quotes included.
const FAST_MAX: usize = 256;

impl FromText for Url {
    /// The message as url's visitor formats it for `Error::custom`:
    /// `relative URL without a base: "foo"`. Built only on a refusal.
    type Error = String;
    fn from_text(text: &str) -> Result<Self, String> {
        Url::parse(text).map_err(|e| format!("{e}: {text:?}"))
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
