//! Maps: keys as text (`String` keys), and keys parsed from their text as
//! serde_json does (integers, floats, bools, newtypes over them, unit enums).
//! Twin: `jit/src/kind/map.rs` (text keys; other maps are interpreted).

use core::ffi::c_void;

use jitson_core::error::{Error, ErrorCode, PathSegment};
use jitson_core::layout::{Kind, MapLayout, TypeLayout};
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
        let value = map.value.get();
        let mut result = Ok(());
        if !empty && !map.has_text_keys() {
            result = loop {
                // SAFETY: `dst` is the live map `map` describes.
                if let Err(e) = unsafe { self.insert_parsed_key(map, dst) } {
                    break Err(e);
                }
                match self.end_map_member() {
                    Ok(AfterMember::More) => {}
                    Ok(AfterMember::End) => break Ok(()),
                    Err(e) => break Err(e),
                }
            };
        } else if !empty {
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

/// What the two callbacks of [`MapLayout::insert`] share: the parser (behind a
/// raw pointer, since each callback reborrows it in turn), the layouts, where
/// the key's text lies (for the path), and room for the error.
struct EntryContext<'a> {
    parser: *mut Parser<'a>,
    key: &'static TypeLayout,
    value: &'static TypeLayout,
    key_text: (usize, usize),
    error: Option<Error>,
}

/// The key callback: the key, parsed from its text.
///
/// # Safety
/// `ctx` points to a live `EntryContext` whose parser is not otherwise borrowed;
/// `slot` is room for the key.
unsafe extern "C" fn decode_key_slot(ctx: *mut c_void, slot: *mut u8) -> bool {
    // SAFETY: as the caller (`insert_parsed_key`) guarantees.
    unsafe {
        let ctx = &mut *ctx.cast::<EntryContext<'_>>();
        let parser = &mut *ctx.parser;
        let start = parser.pos;
        match parser.decode_map_key(ctx.key, slot) {
            Ok(()) => {
                ctx.key_text = (start + 1, parser.pos.saturating_sub(1));
                true
            }
            Err(e) => {
                ctx.error = Some(e);
                false
            }
        }
    }
}

/// The value callback: `:` and the value (nothing written if the colon fails).
///
/// # Safety
/// As for [`decode_key_slot`], `slot` room for the value.
unsafe extern "C" fn decode_entry_value_slot(ctx: *mut c_void, slot: *mut u8) -> bool {
    // SAFETY: as the caller (`insert_parsed_key`) guarantees.
    unsafe {
        let ctx = &mut *ctx.cast::<EntryContext<'_>>();
        let parser = &mut *ctx.parser;
        let r = parser
            .parse_object_colon()
            .and_then(|()| parser.decode_value(ctx.value, slot));
        match r {
            Ok(()) => true,
            Err(e) => {
                let (start, end) = ctx.key_text;
                let key = String::from_utf8_lossy(&parser.input[start..end]).into();
                ctx.error = Some(at_segment(e, || PathSegment::Key(key)));
                false
            }
        }
    }
}

impl Parser<'_> {
    /// One member of a map whose keys are parsed from their text, `pos` at the
    /// key's quote: key, `:`, value, inserted.
    ///
    /// # Safety
    /// `dst` is the live map `map` describes.
    unsafe fn insert_parsed_key(&mut self, map: &MapLayout, dst: *mut u8) -> Result<(), Error> {
        let mut ctx = EntryContext {
            parser: self,
            key: map.key.get(),
            value: map.value.get(),
            key_text: (0, 0),
            error: None,
        };
        let ctx_ptr = (&raw mut ctx).cast::<c_void>();
        // SAFETY: both callbacks get the same context and run one after the
        // other, each reborrowing the parser only for its own call; the slots
        // are the map's temporaries for the key and value types.
        let inserted = unsafe {
            (map.insert)(
                dst,
                decode_key_slot,
                ctx_ptr,
                decode_entry_value_slot,
                ctx_ptr,
            )
        };
        if inserted {
            return Ok(());
        }
        match ctx.error.take() {
            Some(e) => Err(e),
            None => Err(self.error(ErrorCode::Panicked, self.pos)),
        }
    }

    /// A map key of `layout`, from the key string at `pos`, as serde_json reads
    /// keys: numbers are the string's whole content (no spaces, no escapes),
    /// bools exactly `"true"`/`"false"`, newtypes their inner key; every other
    /// type reads the key as the string it is.
    ///
    /// # Safety
    /// `dst` is room for a value of `layout`.
    unsafe fn decode_map_key(
        &mut self,
        layout: &'static TypeLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        match &layout.kind {
            kind if kind.is_number() => {
                self.pos += 1;
                if !matches!(self.input.get(self.pos), Some(b'0'..=b'9' | b'-')) {
                    return Err(self.error(ErrorCode::ExpectedNumericKey, self.pos));
                }
                // SAFETY: as the caller guarantees; scalars need no drop.
                unsafe { self.decode_value(layout, dst)? };
                if self.input.get(self.pos) != Some(&b'"') {
                    return Err(self.error(ErrorCode::ExpectedDoubleQuote, self.pos));
                }
                self.pos += 1;
                Ok(())
            }
            Kind::Bool => {
                // serde_json: after `"t` (`"f`) the rest must be `rue"` (`alse"`);
                // any other first letter is a string, the wrong type.
                let (value, rest): (bool, &[u8]) = match self.input.get(self.pos + 1) {
                    Some(b't') => (true, b"rue\""),
                    Some(b'f') => (false, b"alse\""),
                    _ => return Err(self.invalid_type(layout.expecting)),
                };
                self.pos = jitson_core::text::parse_ident(self.input, self.pos + 2, rest)
                    .map_err(|e| self.lex_error(e))?;
                // SAFETY: as the caller guarantees.
                unsafe { dst.cast::<bool>().write(value) };
                Ok(())
            }
            // SAFETY: the field lies inside `dst` (the Decode contract).
            Kind::Newtype(n) if n.skipped.is_empty() => unsafe {
                self.decode_map_key(n.inner.get(), dst.add(n.offset))
            },
            // SAFETY: as the caller guarantees.
            _ => unsafe { self.decode_value(layout, dst) },
        }
    }
}
