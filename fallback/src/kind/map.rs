//! Maps: keys as text (`String` keys), and keys parsed from their text as
//! serde_json does (integers, floats, bools, newtypes over them, unit enums).
//! Twin: `jit/src/kind/map.rs` (which reads parsed keys through
//! `decode_map_key_at`, this file's `decode_map_key`).

use core::ffi::c_void;

use jitson_core::error::{Error, ErrorCode, Found, PathSegment};
use jitson_core::layout::{Kind, MapLayout, Payload, StagedMap, Tagging, TypeLayout, WriteStrFn};
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
        let first = self.peek_value()?;
        if first != b'{' {
            // serde_json enters a level at a struct's `[` too (serde's derive
            // reads a struct from a sequence, which jitson refuses): at the
            // depth limit, the limit is its error, before the type. Not for a
            // struct with a flattened field, which serde reads as a map
            // (`deserialize_map`: no level at a `[`).
            let from_sequence = matches!(layout.kind, Kind::Struct(st) if st.flatten.is_empty());
            if first == b'[' && from_sequence && self.remaining_depth <= 1 {
                return Err(self.error(ErrorCode::DepthLimitExceeded, self.pos));
            }
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

    /// [`begin_map`](Self::begin_map), then the empty map made at `dst` by
    /// the layout's `new`, as serde makes it there (a hasher's `Default` that
    /// panics is an error, with nothing written and the level left).
    ///
    /// # Safety
    /// `dst` is valid for a write of the map type.
    unsafe fn begin_made_map(
        &mut self,
        layout: &'static TypeLayout,
        map: &MapLayout,
        dst: *mut u8,
    ) -> Result<bool, Error> {
        let empty = self.begin_map(layout)?;
        // SAFETY: as the caller guarantees.
        if !unsafe { (map.new)(dst) } {
            self.leave();
            return Err(self.error(ErrorCode::Panicked, self.pos));
        }
        Ok(empty)
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
                    // serde_json's `MapAccess`: a key must follow, so the
                    // input ended inside a value.
                    None => Err(self.error(ErrorCode::EofWhileParsingValue, self.input.len())),
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
        if let (Some(staged), Kind::String(text)) = (map.staged, &map.key.get().kind) {
            // SAFETY: forwarded from the caller.
            return unsafe {
                self.decode_staged_map(layout, map, staged, text.write, skip_key, dst)
            };
        }
        // SAFETY: `dst` is room for the map (caller).
        let empty = unsafe { self.begin_made_map(layout, map, dst) }?;
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
            result = self.text_key_members(skip_key, |parser, key| {
                let (key_ptr, key_len) = key.as_raw();
                // SAFETY: `insert_with` hands the callback a slot for `value`;
                // the key bytes are UTF-8 and outlive the call (input or `key`).
                unsafe {
                    parser.decode_through(value, |decode, ctx| {
                        (map.insert_with)(dst, key_ptr, key_len, decode, ctx)
                    })
                }
            });
        }
        self.leave();
        if result.is_err() {
            // SAFETY: the map is live and dropped once.
            unsafe { drop_value(layout, dst) };
        }
        result
    }
}

impl Parser<'_> {
    /// A JSON object into a map with text keys filled at its `}`
    /// ([`StagedMap`]): the map is made at `{`, each member's value is decoded
    /// into an entry pushed on the element stack and its key written beside
    /// it; the map is then filled from the entries at once. Leaving early
    /// drops the entries and the map. Twin: the JIT's `emit_staged_map`.
    ///
    /// # Safety
    /// `dst` is valid for a write of the map type; `staged` and `write_key`
    /// are `map`'s, whose keys are of a string kind.
    unsafe fn decode_staged_map(
        &mut self,
        layout: &'static TypeLayout,
        map: &MapLayout,
        staged: &StagedMap,
        write_key: WriteStrFn,
        skip_key: Option<&'static str>,
        dst: *mut u8,
    ) -> Result<(), Error> {
        // The map is made at `{` and filled at `}`.
        // SAFETY: `dst` is room for the map (caller).
        let empty = unsafe { self.begin_made_map(layout, map, dst) }?;
        let value = map.value.get();
        let mark = self.elements.mark();
        let mut n = 0usize;
        let result = if empty {
            Ok(())
        } else {
            self.text_key_members(skip_key, |parser, key| {
                let entry = parser.elements.push(staged.entry_size, staged.entry_align);
                // SAFETY: `entry` is room for one entry, below everything
                // pushed since (nested values pop what they push); the value
                // goes at its offset, then the key (UTF-8, alive) at offset 0,
                // so a failed value leaves nothing to drop.
                unsafe {
                    parser.decode_value(value, entry.add(staged.value_offset))?;
                    let (key_ptr, key_len) = key.as_raw();
                    write_key(entry, key_ptr, key_len);
                }
                n += 1;
                Ok(())
            })
        };
        self.leave();
        // SAFETY: `n` entries were pushed since `mark`, each initialised;
        // `dst` holds the empty map, dropped once here on an error.
        unsafe {
            if result.is_err() {
                (staged.discard)(&mut self.elements, mark, n);
                drop_value(layout, dst);
            } else if !(staged.finish)(&mut self.elements, mark, n, dst) {
                return Err(self.error(ErrorCode::Panicked, self.pos));
            }
        }
        result
    }
}

impl Parser<'_> {
    /// The members of a map with text keys, from the first key's quote to the
    /// `}`: each key and its `:` read, then `member` called with the key's
    /// text to read the value (an error in it gets the key in its path); the
    /// key `skip_key` (an internally tagged enum's tag) is not a member, its
    /// value is skipped.
    fn text_key_members(
        &mut self,
        skip_key: Option<&'static str>,
        mut member: impl FnMut(&mut Self, &KeyText) -> Result<(), Error>,
    ) -> Result<(), Error> {
        loop {
            let key = match self.parse_str_located()? {
                // A key with escapes lives in the scratch buffer, which the
                // value may reuse: own it. Unescaped keys borrow the input.
                StrText::Scratch => KeyText::Owned(self.scratch.clone()),
                StrText::Borrowed { start, end } => {
                    KeyText::Input(self.input[start..].as_ptr(), end - start)
                }
            };
            self.parse_object_colon()?;
            let (key_ptr, key_len) = key.as_raw();
            // SAFETY: the key bytes are alive (input or `key`).
            let key_bytes = unsafe { core::slice::from_raw_parts(key_ptr, key_len) };
            if skip_key.is_some_and(|k| k.as_bytes() == key_bytes) {
                self.ignore_value()?;
            } else {
                member(self, &key)
                    .map_err(|e| at_segment(e, || PathSegment::Key(key.to_str().into())))?;
            }
            match self.end_map_member()? {
                AfterMember::More => {}
                AfterMember::End => return Ok(()),
            }
        }
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
                ctx.error = Some(
                    match key_text_at(parser.input, start, parser.validate_utf8) {
                        Some(key) => at_segment(e, || PathSegment::Key(key)),
                        None => e,
                    },
                );
                false
            }
        }
    }
}

/// The text of the key string whose quote is at `quote`, for the path of an
/// error in parsing it as its type (`$["300"]` for a `u8` key); `None` when the
/// string itself is malformed, whose error is at the map's own path.
fn key_text_at(input: &[u8], quote: usize, validate_utf8: bool) -> Option<Box<str>> {
    let mut scratch = Vec::new();
    let (text, _) =
        jitson_core::text::parse_str(input, quote + 1, &mut scratch, validate_utf8).ok()?;
    Some(String::from_utf8_lossy(text.bytes(input, &scratch)).into())
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
    pub(crate) unsafe fn insert_parsed_key(
        &mut self,
        map: &MapLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
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
    /// bools exactly `"true"`/`"false"`, newtypes their inner key, a key read
    /// by serde through serde_json's `MapKey` rules; every other type reads
    /// the key as the string it is.
    ///
    /// # Safety
    /// `dst` is room for a value of `layout`.
    pub(crate) unsafe fn decode_map_key(
        &mut self,
        layout: &'static TypeLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        match &layout.kind {
            kind if kind.is_number() => {
                self.pos += 1;
                if !matches!(self.input.get(self.pos), Some(b'0'..=b'9' | b'-')) {
                    // serde_json reports it before the byte it peeked: at the quote.
                    return Err(self.error(ErrorCode::ExpectedNumericKey, self.pos - 1));
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
                // serde_json (`MapKey::deserialize_bool`): after `"t` (`"f`)
                // the rest must be `rue"` (`alse"`). Any other first byte is
                // consumed and the rest of the key read as a string: its
                // errors come first (a first character of several bytes
                // leaves a lone continuation byte, invalid UTF-8; a key `""`
                // reads on from its closing quote), then the wrong type.
                let (value, rest): (bool, &[u8]) = match self.input.get(self.pos + 1) {
                    Some(b't') => (true, b"rue\""),
                    Some(b'f') => (false, b"alse\""),
                    None => {
                        return Err(self.error(ErrorCode::EofWhileParsingValue, self.input.len()));
                    }
                    Some(_) => {
                        // Checked as UTF-8 even in `&str` input, where a lone
                        // continuation byte is possible only here: serde_json's
                        // `from_str` makes a `&str` of it unchecked. The error
                        // names what serde_json read: the rest of the key.
                        let (located, _) = jitson_core::text::parse_str(
                            self.input,
                            self.pos + 2,
                            &mut self.scratch,
                            true,
                        )
                        .map_err(|e| self.lex_error(e))?;
                        let rest = self.str_bytes(located);
                        let value = format!("{:?}", String::from_utf8_lossy(rest));
                        let code = ErrorCode::InvalidType {
                            found: Found::String,
                            expected: layout.expecting,
                            value: Some(value.into_boxed_str()),
                        };
                        return Err(self.error(code, self.pos));
                    }
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
            // serde_json reads these keys through the type they wrap: its
            // `MapKey` answers `deserialize_option` with `Some`, and a box or
            // a conversion (`NonZeroU32`, `Wrapping<u32>`) deserializes its
            // source from the same key.
            // SAFETY (the three arms): each layout function hands the callback
            // a slot for the inner layout; `dst` as the caller guarantees.
            Kind::Option(o) => unsafe {
                self.decode_through_as(o.some.get(), true, |decode, ctx| {
                    (o.decode_some)(dst, decode, ctx)
                })
            },
            Kind::Box(b) => unsafe {
                self.decode_through_as(b.inner.get(), true, |decode, ctx| {
                    (b.decode_new)(dst, decode, ctx)
                })
            },
            Kind::Convert(c) => unsafe { self.decode_convert_as(c, dst, true) },
            // A key type read by serde (`deserialize_with`, `#[jitson(serde)]`):
            // its deserializer reads the key as serde_json's `MapKey` does.
            // SAFETY: as the caller guarantees.
            Kind::Serde(s) => unsafe { self.decode_serde(s, true, dst) },
            // SAFETY: as the caller guarantees.
            _ => unsafe { self.decode_value(layout, dst) },
        }
    }
}

// ---------------------------------------------------------------------------
// Encoding

/// Calls a closure for each map entry, through [`MapLayout::for_each`].
///
/// # Safety
/// `ctx` points to a live `F`.
unsafe extern "C" fn entry_trampoline<F: FnMut(*const u8, *const u8) -> bool>(
    ctx: *mut c_void,
    key: *const u8,
    value: *const u8,
) -> bool {
    // SAFETY: `each_entry` passes its own closure, alive for the call.
    unsafe { (*ctx.cast::<F>())(key, value) }
}

/// Calls `f` on each entry of the map at `src`; `false` if `f` stopped it.
///
/// # Safety
/// `src` points to a live map of the layout; `for_each` is its iterator.
unsafe fn each_entry(
    for_each: jitson_core::layout::ForEachFn,
    src: *const u8,
    mut f: impl FnMut(*const u8, *const u8) -> bool,
) -> bool {
    fn trampoline_of<F: FnMut(*const u8, *const u8) -> bool>(
        _: &F,
    ) -> jitson_core::layout::EntryFn {
        entry_trampoline::<F>
    }
    let entry = trampoline_of(&f);
    // SAFETY: as the caller guarantees; the context is `f`, alive for the call.
    unsafe { for_each(src, entry, (&raw mut f).cast()) }
}

impl crate::encode::Emitter<'_> {
    /// A map as a JSON object: keys written as serde_json writes map keys
    /// ([`encode_key`](Self::encode_key)), in iteration order or sorted by
    /// their text.
    ///
    /// # Safety
    /// `src` points to a value of the map type.
    pub(crate) unsafe fn encode_map(
        &mut self,
        layout: &'static TypeLayout,
        map: &MapLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        self.begin(layout, b'{')?;
        let mut first = true;
        // SAFETY: as the caller guarantees.
        unsafe { self.encode_entries(layout, map, src, &mut first)? };
        self.end(b'}', !first);
        Ok(())
    }

    /// A map's entries as members of the object being written (a map, or a
    /// struct's flattened map); `first` tells whether a member came before.
    ///
    /// # Safety
    /// `src` points to a value of the map type.
    pub(crate) unsafe fn encode_entries(
        &mut self,
        layout: &'static TypeLayout,
        map: &MapLayout,
        src: *const u8,
        first: &mut bool,
    ) -> Result<(), Error> {
        let Some(for_each) = map.for_each else {
            return Err(self.not_encodable(layout));
        };
        let (key_layout, value_layout) = (map.key.get(), map.value.get());
        if self.sort_keys {
            // Keys rendered first, then written in the order of the strings
            // they stand for (serde_json's `Map` order without
            // `preserve_order`): not of their quoted, escaped text, where
            // `"a"` would follow `"a b"` and an escape reorder its key.
            let mut entries: Vec<(Vec<u8>, Vec<u8>, *const u8)> = Vec::new();
            let mut error = None;
            let out = &mut Vec::new();
            // SAFETY: as the caller guarantees; the pointers stay valid while
            // the map is borrowed, for this whole call.
            unsafe {
                each_entry(for_each, src, |key, value| {
                    out.clear();
                    match key_text(key_layout, key, out, self.escape) {
                        Ok(()) => {
                            entries.push((key_string(out), out.clone(), value));
                            true
                        }
                        Err(e) => {
                            error = Some(e);
                            false
                        }
                    }
                })
            };
            if let Some(e) = error {
                return Err(e);
            }
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            for (_, key, value) in entries {
                self.separator(*first);
                *first = false;
                self.out.extend_from_slice(&key);
                self.colon();
                // SAFETY: `value` is a live value of the map.
                unsafe { self.encode_value(value_layout, value) }
                    .map_err(|e| entry_path(e, &key))?;
            }
            return Ok(());
        }
        let mut error = None;
        // SAFETY: as the caller guarantees; each entry's pointers are live.
        unsafe {
            each_entry(for_each, src, |key, value| {
                self.separator(*first);
                *first = false;
                let start = self.out.len();
                let result = key_text(key_layout, key, self.out, self.escape).and_then(|()| {
                    let key_end = self.out.len();
                    self.colon();
                    self.encode_value(value_layout, value)
                        .map_err(|e| entry_path(e, &self.out[start..key_end]))
                });
                match result {
                    Ok(()) => true,
                    Err(e) => {
                        error = Some(e);
                        false
                    }
                }
            })
        };
        match error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The path segment of a map entry, from its written key text (quoted).
#[cold]
fn entry_path(e: Error, key: &[u8]) -> Error {
    let name = String::from_utf8_lossy(&key_string(key)).into_owned();
    at_segment(e, || PathSegment::Key(name.into()))
}

/// The string a written key's text (quoted, escaped as the options ask)
/// stands for, as UTF-8 bytes: the text itself if it does not lex.
fn key_string(key: &[u8]) -> Vec<u8> {
    let mut scratch = Vec::new();
    match jitson_core::text::parse_str(key, 1, &mut scratch, false) {
        Ok((StrText::Borrowed { start, end }, _)) => key[start..end].to_vec(),
        Ok((StrText::Scratch, _)) => scratch,
        Err(_) => key.to_vec(),
    }
}

/// Appends the key at `src` as serde_json writes a map key: strings and chars
/// as strings; integers, bools and finite floats as their text between quotes;
/// unit variants by name; newtypes, boxes, `Some` and conversions as what they hold;
/// keys written by serde through serde_json's own key serializer. Anything
/// else is serde_json's "key must be a string".
///
/// # Safety
/// `src` points to a live value of `layout`.
unsafe fn key_text(
    layout: &'static TypeLayout,
    src: *const u8,
    out: &mut Vec<u8>,
    escape: jitson_core::write::Escape,
) -> Result<(), Error> {
    use jitson_core::write::{write_int_key, write_str_escaped};
    // SAFETY (all arms): as the caller guarantees, each read matches the kind.
    unsafe {
        match &layout.kind {
            Kind::String(s) => match s.read {
                Some(read) => {
                    write_str_escaped(out, crate::kind::string::read_str(read, src), escape)
                }
                None => return Err(key_error()),
            },
            Kind::BorrowedStr(s) => match s.read {
                Some(read) => {
                    write_str_escaped(out, crate::kind::string::read_str(read, src), escape)
                }
                None => return Err(key_error()),
            },
            Kind::Char => {
                let mut buf = [0u8; 4];
                write_str_escaped(out, (*src.cast::<char>()).encode_utf8(&mut buf), escape);
            }
            Kind::Bool => out.extend_from_slice(if *src.cast::<bool>() {
                b"\"true\""
            } else {
                b"\"false\""
            }),
            Kind::I8 => write_int_key(out, *src.cast::<i8>()),
            Kind::I16 => write_int_key(out, *src.cast::<i16>()),
            Kind::I32 => write_int_key(out, *src.cast::<i32>()),
            Kind::I64 => write_int_key(out, *src.cast::<i64>()),
            Kind::I128 => write_int_key(out, src.cast::<i128>().read_unaligned()),
            Kind::U8 => write_int_key(out, *src.cast::<u8>()),
            Kind::U16 => write_int_key(out, *src.cast::<u16>()),
            Kind::U32 => write_int_key(out, *src.cast::<u32>()),
            Kind::U64 => write_int_key(out, *src.cast::<u64>()),
            Kind::U128 => write_int_key(out, src.cast::<u128>().read_unaligned()),
            Kind::F32 | Kind::F64 => {
                let finite = match layout.kind {
                    Kind::F32 => (*src.cast::<f32>()).is_finite(),
                    _ => (*src.cast::<f64>()).is_finite(),
                };
                if !finite {
                    return Err(crate::encode::encode_error(ErrorCode::FloatKeyMustBeFinite));
                }
                out.push(b'"');
                match layout.kind {
                    Kind::F32 => jitson_core::write::write_f32(out, *src.cast::<f32>()),
                    _ => jitson_core::write::write_f64(out, *src.cast::<f64>()),
                }
                out.push(b'"');
            }
            Kind::Newtype(n) => return key_text(n.inner.get(), src.add(n.offset), out, escape),
            // Another crate's type (a `Uuid`, a `NaiveDate`): its text, as
            // serde_json's key serializer takes a string, or a number quoted.
            Kind::Parsed(p) => {
                let Some(format) = p.format else {
                    return Err(key_error());
                };
                let mut text = Vec::new();
                crate::kind::column::write_formatted(format, src, &mut text)?;
                match text.first() {
                    Some(b'"') => jitson_core::write::write_from_compact(out, &text, None, escape),
                    Some(b'-' | b'0'..=b'9') => {
                        out.push(b'"');
                        out.extend_from_slice(&text);
                        out.push(b'"');
                    }
                    _ => return Err(key_error()),
                }
            }
            Kind::Box(b) => return key_text(b.inner.get(), (b.get)(src), out, escape),
            // serde_json's key serializer writes `Some(k)` as `k` and refuses
            // `None` (its `serialize_some` and `serialize_none`).
            Kind::Option(o) => {
                let value = (o.get)(src);
                if value.is_null() {
                    return Err(key_error());
                }
                return key_text(o.some.get(), value, out, escape);
            }
            // A key written by serde (`serialize_with`, `#[jitson(serde)]`):
            // serde_json's key serializer writes it, or refuses it in its words.
            Kind::Serde(serde) => {
                let Some(serialize) = serde.encode else {
                    return Err(key_error());
                };
                // Into a copy, as for the `Parsed` keys above: serde_json's
                // text has JSON's escapes, the options' are applied to it.
                let mut target = jitson_core::layout::SerializeTarget::MapKey;
                let mut text = Vec::new();
                crate::kind::newtype::run_serializer(serialize, src, &mut target, &mut text)?;
                jitson_core::write::write_from_compact(out, &text, None, escape);
            }
            Kind::Enum(e) => {
                let Some(variant_of) = e.variant_of else {
                    return Err(key_error());
                };
                let mut view = core::mem::MaybeUninit::<
                    [u64; jitson_core::layout::VARIANT_VIEW_SIZE / 8],
                >::uninit();
                let index = variant_of(src, view.as_mut_ptr().cast());
                // serde_json's key serializer takes a unit variant's name, and
                // an untagged newtype variant's payload as its key; anything
                // else reaches it as a struct, sequence or unit it refuses (a
                // tagged variant of an internally or adjacently tagged enum
                // is written as a struct).
                let untagged = e.tagging == Tagging::Untagged || index >= e.untagged_from;
                match (e.variants.get(index).map(|v| &v.payload), untagged) {
                    (Some(Payload::Unit), false) if e.tagging == Tagging::External => {
                        write_str_escaped(out, e.variants[index].name, escape);
                    }
                    (Some(Payload::Newtype(payload)), true) => {
                        return key_text(payload.get(), view.as_ptr().cast(), out, escape);
                    }
                    _ => return Err(key_error()),
                }
            }
            Kind::Convert(c) => {
                let Some(into) = c.into else {
                    return Err(key_error());
                };
                let target = c.from.get();
                let mut state = (out, escape, target, None::<Error>);
                unsafe extern "C" fn key_slot(ctx: *mut c_void, value: *const u8) -> bool {
                    // SAFETY: the context is `state` below, alive for the call.
                    unsafe {
                        let state = &mut *ctx.cast::<(
                            &mut Vec<u8>,
                            jitson_core::write::Escape,
                            &'static TypeLayout,
                            Option<Error>,
                        )>();
                        match key_text(state.2, value, state.0, state.1) {
                            Ok(()) => true,
                            Err(e) => {
                                state.3 = Some(e);
                                false
                            }
                        }
                    }
                }
                let mut message = None;
                if !into(src, key_slot, (&raw mut state).cast(), &raw mut message) {
                    return Err(match (state.3, message) {
                        (Some(e), _) => e,
                        (None, Some(text)) => {
                            crate::encode::encode_error(ErrorCode::Conversion(text))
                        }
                        (None, None) => crate::encode::encode_error(ErrorCode::Panicked),
                    });
                }
            }
            _ => return Err(key_error()),
        }
    }
    Ok(())
}

#[cold]
fn key_error() -> Error {
    crate::encode::encode_error(ErrorCode::KeyMustBeAString)
}
