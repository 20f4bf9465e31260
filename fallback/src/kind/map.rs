//! String-keyed maps. Twin: `jit/src/kind/map.rs`.

use jitson_core::error::{Error, ErrorCode, PathSegment};
use jitson_core::layout::{MapLayout, TypeLayout};
use jitson_core::text::StrText;

use crate::{Parser, at_segment, drop_value};

/// What follows a member inside `{...}`.
pub(crate) enum AfterMember {
    /// `,` consumed; the next key's quote is at `pos`.
    More,
    /// `}` consumed.
    End,
}

impl Parser<'_> {
    /// Consumes `{` and whitespace; returns whether the object is empty (`}`
    /// consumed too). On a non-empty object the first key's quote is at `pos`.
    /// Enters one level of depth, which the caller leaves.
    pub(crate) fn begin_map(&mut self, layout: &'static TypeLayout) -> Result<bool, Error> {
        if self.peek_value()? != b'{' {
            return Err(self.invalid_type(layout.expecting));
        }
        self.enter(layout)?;
        self.pos += 1;
        let r = match self.parse_whitespace() {
            Some(b'}') => {
                self.pos += 1;
                return Ok(true);
            }
            Some(b'"') => return Ok(false),
            Some(_) => Err(self.error(ErrorCode::KeyMustBeAString, self.pos)),
            None => Err(self.error(ErrorCode::EofWhileParsingObject, self.input.len())),
        };
        self.leave();
        r
    }

    /// The `:` after a key, and the whitespace around it.
    pub(crate) fn parse_object_colon(&mut self) -> Result<(), Error> {
        match self.parse_whitespace() {
            Some(b':') => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(self.error(ErrorCode::ExpectedColon, self.pos)),
            None => Err(self.error(ErrorCode::EofWhileParsingObject, self.input.len())),
        }
    }

    /// After a member's value: `,` then the next key's quote, or `}`.
    pub(crate) fn end_map_member(&mut self) -> Result<AfterMember, Error> {
        match self.parse_whitespace() {
            Some(b',') => {
                self.pos += 1;
                match self.parse_whitespace() {
                    Some(b'"') => Ok(AfterMember::More),
                    Some(b'}') => Err(self.error(ErrorCode::TrailingComma, self.pos)),
                    Some(_) => Err(self.error(ErrorCode::KeyMustBeAString, self.pos)),
                    None => Err(self.error(ErrorCode::EofWhileParsingObject, self.input.len())),
                }
            }
            Some(b'}') => {
                self.pos += 1;
                Ok(AfterMember::End)
            }
            Some(_) => Err(self.error(ErrorCode::ExpectedObjectCommaOrEnd, self.pos)),
            None => Err(self.error(ErrorCode::EofWhileParsingObject, self.input.len())),
        }
    }

    /// A JSON object into a string-keyed map; a repeated key replaces the earlier
    /// value, as serde's map impls do.
    ///
    /// # Safety
    /// `dst` is valid for a write of the map type.
    pub(crate) unsafe fn decode_map(
        &mut self,
        layout: &'static TypeLayout,
        map: &MapLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        let skip_key = self.skip_key.take();
        let empty = self.begin_map(layout)?;
        // SAFETY: `dst` is room for the map (caller).
        if !unsafe { (map.new)(dst) } {
            self.leave();
            return Err(self.error(ErrorCode::Panicked, self.pos));
        }
        let value = (map.value)();
        let mut result = Ok(());
        if !empty {
            result = loop {
                let key = match self.parse_str_located() {
                    // A key with escapes lives in the scratch buffer, which the value
                    // may reuse: own it. Unescaped keys borrow the input.
                    Ok(StrText::Scratch) => KeyText::Owned(self.scratch.clone()),
                    Ok(StrText::Borrowed { start, end }) => {
                        KeyText::Input(self.input[start..].as_ptr(), end - start)
                    }
                    Err(e) => break Err(e),
                };
                if let Err(e) = self.parse_object_colon() {
                    break Err(e);
                }
                let (key_ptr, key_len) = key.as_raw();
                // SAFETY: as below, the key bytes are alive.
                let key_bytes = unsafe { core::slice::from_raw_parts(key_ptr, key_len) };
                if skip_key.is_some_and(|k| k.as_bytes() == key_bytes) {
                    // An internally tagged enum's tag: not an entry.
                    if let Err(e) = self.ignore_value() {
                        break Err(e);
                    }
                } else {
                    // SAFETY: `insert_with` hands the callback a slot for `value`; the key
                    // bytes are UTF-8 and outlive the call (input or `key`).
                    let inserted = unsafe {
                        self.decode_through(value, |decode, ctx| {
                            (map.insert_with)(dst, key_ptr, key_len, decode, ctx)
                        })
                    };
                    if let Err(e) = inserted {
                        break Err(at_segment(e, || PathSegment::Key(key.to_str().into())));
                    }
                }
                match self.end_map_member() {
                    Ok(AfterMember::More) => {}
                    Ok(AfterMember::End) => break Ok(()),
                    Err(e) => break Err(e),
                }
            };
        }
        self.leave();
        if result.is_err() {
            // SAFETY: the map is live and dropped once.
            unsafe { drop_value(layout, dst) };
        }
        result
    }
}

/// A map key's unescaped text.
enum KeyText {
    Input(*const u8, usize),
    Owned(Vec<u8>),
}

impl KeyText {
    fn as_raw(&self) -> (*const u8, usize) {
        match self {
            KeyText::Input(p, n) => (*p, *n),
            KeyText::Owned(v) => (v.as_ptr(), v.len()),
        }
    }

    fn to_str(&self) -> String {
        let (p, n) = self.as_raw();
        // SAFETY: the pointer and length come from a live slice of UTF-8 text (the
        // input, borrowed for the whole decode, or our own vector).
        let bytes = unsafe { core::slice::from_raw_parts(p, n) };
        String::from_utf8_lossy(bytes).into_owned()
    }
}
