//! Strings, chars and raw captures. Twin: `jit/src/kind/string.rs`.

use jitson_core::column::{Column, column_append_text};
use jitson_core::error::{Error, ErrorCode, Found};
use jitson_core::layout::{BorrowedStrLayout, StringLayout, TypeLayout};
use jitson_core::text::{self, StrText};

use crate::Parser;

impl Parser<'_> {
    /// Parses the string at `self.pos` (an opening quote); returns where its
    /// unescaped text is (see [`str_bytes`](Self::str_bytes)).
    #[inline]
    pub(crate) fn parse_str_located(&mut self) -> Result<StrText, Error> {
        let (located, end) = text::parse_str(
            self.input,
            self.pos + 1,
            &mut self.scratch,
            self.validate_utf8,
        )
        .map_err(|e| self.lex_error(e))?;
        self.pos = end;
        Ok(located)
    }

    /// The text of a string located by [`parse_str_located`](Self::parse_str_located),
    /// valid until the next string is parsed.
    #[inline]
    pub(crate) fn str_bytes(&self, located: StrText) -> &[u8] {
        located.bytes(self.input, &self.scratch)
    }

    /// Parses the string at `self.pos` (an opening quote) and returns its unescaped
    /// text, borrowed from the input or from the scratch buffer.
    #[inline]
    pub(crate) fn parse_str(&mut self) -> Result<&[u8], Error> {
        let located = self.parse_str_located()?;
        Ok(self.str_bytes(located))
    }

    /// A JSON string into `String` / `Box<str>`.
    ///
    /// # Safety
    /// `dst` is valid for a write of the type `string` creates.
    pub(crate) unsafe fn decode_string(
        &mut self,
        layout: &'static TypeLayout,
        string: &StringLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        if self.peek_value()? != b'"' {
            return Err(self.invalid_type(layout.expecting));
        }
        if string.write as usize == column_append_text as *const () as usize {
            // A text column's string goes straight onto its data, unescaped
            // there (the JIT's `helpers::column_string` does the same).
            // SAFETY: a text column's `dst` is its `Column`, as the caller
            // guarantees for this `write`.
            let col = unsafe { &mut *dst.cast::<Column>() };
            self.pos = col
                .append_json_string(self.input, self.pos + 1, self.validate_utf8)
                .map_err(|e| self.lex_error(e))?;
            return Ok(());
        }
        let text = self.parse_str()?;
        // SAFETY: `text` is UTF-8 (validated, or from `&str` input) and `dst` is as
        // the caller guarantees.
        unsafe { (string.write)(dst, text.as_ptr(), text.len()) };
        Ok(())
    }

    /// A JSON string of exactly one Unicode scalar value.
    ///
    /// # Safety
    /// `dst` is valid for a `char` write.
    pub(crate) unsafe fn decode_char(
        &mut self,
        layout: &'static TypeLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        if self.peek_value()? != b'"' {
            return Err(self.invalid_type(layout.expecting));
        }
        let start = self.pos;
        let text = self.parse_str()?;
        // SAFETY: the text is UTF-8, as for `decode_string`.
        let s = unsafe { core::str::from_utf8_unchecked(text) };
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => {
                // SAFETY: as the caller guarantees.
                unsafe { dst.cast::<char>().write(c) };
                Ok(())
            }
            _ => {
                let value = format!("{s:?}").into_boxed_str();
                let expected = layout.expecting;
                Err(self.error(ErrorCode::NotOneChar { value, expected }, start))
            }
        }
    }

    /// Any JSON value, validated, captured as its exact text.
    ///
    /// # Safety
    /// `dst` is valid for a write of the type `raw` creates.
    pub(crate) unsafe fn decode_raw(
        &mut self,
        raw: &StringLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        self.peek_value()?;
        let start = self.pos;
        self.ignore_value()?;
        let text = &self.input[start..self.pos];
        // SAFETY: a validated JSON value is UTF-8 (non-ASCII bytes can only occur in
        // strings, which were validated); `dst` is as the caller guarantees.
        unsafe { (raw.write)(dst, text.as_ptr(), text.len()) };
        Ok(())
    }

    /// A JSON string borrowed from the input (`&'de str`, `Cow<'de, str>`, and
    /// the byte and path types read the same way): the text in place when it
    /// has no escapes; with escapes an owned copy for a `Cow`, and for `&str`
    /// an invalid type (serde_json: "expected a borrowed string").
    ///
    /// # Safety
    /// `dst` is valid for a write of the layout's type, and the input outlives
    /// the decoded value (the `DecodeBorrowed` contract of the decoded type).
    pub(crate) unsafe fn decode_borrowed_str(
        &mut self,
        layout: &'static TypeLayout,
        bs: &BorrowedStrLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        if self.peek_value()? != b'"' {
            return Err(self.invalid_type(layout.expecting));
        }
        let start = self.pos;
        match self.parse_str_located()? {
            // SAFETY: the text lies in the input, which outlives the value (the
            // caller's guarantee), and is valid UTF-8 (checked or `&str` input).
            StrText::Borrowed { start: s, end: e } => unsafe {
                (bs.borrow)(dst, self.input[s..].as_ptr(), e - s)
            },
            StrText::Scratch => match bs.own {
                // SAFETY: the unescaped text is valid UTF-8, copied by `own`.
                Some(own) => unsafe { own(dst, self.scratch.as_ptr(), self.scratch.len()) },
                None => {
                    // serde_json hands an escaped string's text to a visitor
                    // that only borrows: as a string, or to a byte type as a
                    // byte array, which serde names without its value; from
                    // serde's buffer (`buffered`) a byte type gets it as a
                    // string too.
                    let (found, value) = if bs.bytes && self.buffered == 0 {
                        (Found::Bytes, None)
                    } else {
                        let text = String::from_utf8_lossy(&self.scratch);
                        (Found::String, Some(format!("{text:?}").into_boxed_str()))
                    };
                    return Err(self.error(
                        ErrorCode::InvalidType {
                            found,
                            expected: layout.expecting,
                            value,
                        },
                        start,
                    ));
                }
            },
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Encoding

impl crate::encode::Emitter<'_> {
    /// An owned string (`String`, `Box<str>`, shared strings), escaped.
    ///
    /// # Safety
    /// `src` points to a value of the layout's type.
    pub(crate) unsafe fn encode_string(
        &mut self,
        layout: &'static TypeLayout,
        s: &StringLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        // SAFETY: as the caller guarantees.
        let text = unsafe { self.owned_text(layout, s, src)? };
        self.string(text);
        Ok(())
    }

    /// The text of an owned string or raw capture, through its layout's `read`.
    ///
    /// # Safety
    /// `src` points to a value of the layout's type, which outlives the text.
    unsafe fn owned_text<'t>(
        &self,
        layout: &'static TypeLayout,
        s: &StringLayout,
        src: *const u8,
    ) -> Result<&'t str, Error> {
        let Some(read) = s.read else {
            return Err(self.not_encodable(layout));
        };
        // SAFETY: as the caller guarantees; `read` gives the value's UTF-8 text.
        Ok(unsafe { read_str(read, src) })
    }

    /// A borrowed string (`&str`, `Cow<str>`), escaped.
    ///
    /// # Safety
    /// `src` points to a value of the layout's type.
    pub(crate) unsafe fn encode_borrowed_str(
        &mut self,
        layout: &'static TypeLayout,
        s: &BorrowedStrLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        let Some(read) = s.read else {
            return Err(self.not_encodable(layout));
        };
        // SAFETY: as the caller guarantees.
        let text = unsafe { read_str(read, src) };
        self.string(text);
        Ok(())
    }

    /// A `char`, as a one-character string.
    ///
    /// # Safety
    /// `src` points to a `char`.
    pub(crate) unsafe fn encode_char(&mut self, src: *const u8) -> Result<(), Error> {
        // SAFETY: as the caller guarantees.
        let c = unsafe { *src.cast::<char>() };
        let mut buf = [0u8; 4];
        self.string(c.encode_utf8(&mut buf));
        Ok(())
    }

    /// A raw capture, written verbatim (compact) or re-laid out (pretty), as
    /// serde_json writes a `RawValue`: verbatim in both.
    ///
    /// # Safety
    /// `src` points to a value of the layout's type.
    pub(crate) unsafe fn encode_raw(
        &mut self,
        layout: &'static TypeLayout,
        s: &StringLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        // SAFETY: as the caller guarantees.
        let text = unsafe { self.owned_text(layout, s, src)? };
        // Verbatim, as serde_json writes raw text, pretty or not; only the
        // escaping options, which promise every string of the output, reach
        // the strings inside it.
        if self.escape.is_json() {
            self.out.extend_from_slice(text.as_bytes());
        } else {
            jitson_core::write::write_from_compact(self.out, text.as_bytes(), None, self.escape);
        }
        Ok(())
    }
}

/// The text a [`ReadStrFn`](jitson_core::layout::ReadStrFn) gives for `src`.
///
/// # Safety
/// `src` points to a live value the function reads; the text lives as long.
pub(crate) unsafe fn read_str<'a>(read: jitson_core::layout::ReadStrFn, src: *const u8) -> &'a str {
    let mut len = 0usize;
    // SAFETY: as the caller guarantees; the function returns UTF-8 bytes of
    // `len` bytes that live as long as the value.
    unsafe {
        let ptr = read(src, &raw mut len);
        core::str::from_utf8_unchecked(core::slice::from_raw_parts(ptr, len))
    }
}
