//! Enums, in serde's four representations. Twin: `jit/src/kind/enum_.rs`.
//!
//! A variant with data is decoded through its layout's `decode_variant`, which
//! runs the payload's decode into a temporary and builds the variant; no backend
//! knows how Rust lays out an enum. Tagged objects are never buffered: an
//! internally tagged object whose tag is not its first key is scanned for the tag
//! (values skipped, not decoded), then decoded once from its `{` with the chosen
//! variant, the tag's member skipped. An adjacently tagged payload that comes
//! before its tag is skipped, then decoded in place once the tag is known.
//! Untagged variants are tried in declaration order on the same span, as serde
//! does, but only those whose payload can start with the value's first byte.
//! Internally and adjacently tagged enums are also read in serde's sequence
//! form (`["Variant", ...]`), except a struct payload read from elements
//! (docs/semantics.md, difference 2). The JIT hands tagged enums to this
//! module.

use jitson_core::error::{Category, Error, ErrorCode, Found, PathSegment, expected_names};
use jitson_core::layout::{ConvertLayout, EnumLayout, Kind, Payload, Tagging, TypeLayout};
use jitson_core::text;

use core::ffi::c_void;

use crate::kind::map::AfterMember;
use crate::kind::seq::AfterElement;
use crate::{Parser, at_segment, drop_value};

impl Parser<'_> {
    /// One enum value, in the layout's representation.
    ///
    /// # Safety
    /// `dst` is valid for a write of the enum type.
    pub(crate) unsafe fn decode_enum(
        &mut self,
        layout: &'static TypeLayout,
        en: &'static EnumLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        if en.has_untagged_variants() && en.tagging != Tagging::Untagged {
            // SAFETY: forwarded from the caller.
            return unsafe { self.decode_partly_untagged(layout, en, dst) };
        }
        // SAFETY (all arms): forwarded from the caller.
        unsafe {
            match en.tagging {
                Tagging::External => self.decode_external(layout, en, dst),
                Tagging::Internal { tag } => self.decode_internal(layout, en, tag, dst),
                Tagging::Adjacent { tag, content } => {
                    self.decode_adjacent(layout, en, tag, content, dst)
                }
                Tagging::Untagged => self.decode_untagged(layout, en, dst),
            }
        }
    }

    /// `"Variant"` for a unit variant, `{"Variant": payload}` for any.
    ///
    /// # Safety
    /// As for `decode_enum`.
    unsafe fn decode_external(
        &mut self,
        layout: &'static TypeLayout,
        en: &'static EnumLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        match self.peek_value()? {
            b'"' => {
                let start = self.pos;
                let index = self.parse_variant(en)?;
                match en.variants[index].payload {
                    // SAFETY: a valid unit variant index; `dst` as the caller guarantees.
                    Payload::Unit => unsafe { (en.write)(dst, index) },
                    payload => {
                        return Err(self.error(
                            ErrorCode::InvalidType {
                                found: Found::UnitVariant,
                                expected: payload.describe(),
                                value: None,
                            },
                            start,
                        ));
                    }
                }
                Ok(())
            }
            b'{' => {
                self.enter(layout)?;
                // SAFETY: forwarded from the caller.
                let r = unsafe { self.decode_variant_object(layout, en, dst) };
                self.leave();
                r
            }
            // A value serde buffered is read by its `ContentDeserializer`,
            // which takes a string or a map and names anything else.
            _ if self.buffered > 0 => Err(self.invalid_type("string or map")),
            // serde_json reads nothing more here: whatever the token, `expected
            // value` at its first byte, even for a token that is cut short (`t`,
            // `nul`, `-`, `1.` are not "end of input").
            _ => Err(self.error(ErrorCode::ExpectedSomeValue, self.pos)),
        }
    }

    /// What serde's `ContentDeserializer` says of an enum's object in a value
    /// it buffered when the object has no member or more than one.
    fn not_a_single_key(&self) -> Error {
        let text = "invalid value: map, expected map with a single key";
        self.error(ErrorCode::Conversion(text.into()), self.pos)
    }

    /// The variant named by the string at `pos` (or the `other` variant).
    fn parse_variant(&mut self, en: &EnumLayout) -> Result<usize, Error> {
        let start = self.pos;
        let name = self.parse_str()?;
        match en.find(name) {
            Some(i) => Ok(i),
            None => {
                let variant = String::from_utf8_lossy(name).into();
                let tagged = &en.variants[..en.untagged_from];
                let expected =
                    expected_names(tagged.iter().flat_map(|v| v.serde_names()), "variants");
                Err(self.error(
                    ErrorCode::UnknownVariant {
                        variant,
                        enum_name: en.name,
                        expected,
                    },
                    start,
                ))
            }
        }
    }

    /// A tag's value: a string naming a variant. serde reads an internal tag as
    /// an identifier (a wrong JSON type is an invalid type) but an adjacent one as
    /// an enum (serde_json: a syntax error at its first byte), which also takes a
    /// unit variant's externally tagged form (`{"Variant": null}`).
    fn parse_tag_value(&mut self, en: &EnumLayout, adjacent: bool) -> Result<usize, Error> {
        match self.peek_value()? {
            b'"' => self.parse_variant(en),
            b'{' if adjacent => self.parse_tag_object(en),
            // serde's `ContentDeserializer` for a tag it buffered.
            _ if adjacent && self.buffered > 0 => Err(self.invalid_type("string or map")),
            _ if adjacent => Err(self.error(ErrorCode::ExpectedSomeValue, self.pos)),
            _ => Err(self.invalid_type("variant identifier")),
        }
    }

    /// An adjacent tag written as `{"Variant": null}`, `pos` at the `{`: what
    /// serde_json's `deserialize_enum` reads before serde asks the variant for
    /// a unit (the object is one level of depth, its key an identifier, its
    /// value `null`, and only `}` may follow).
    fn parse_tag_object(&mut self, en: &EnumLayout) -> Result<usize, Error> {
        self.remaining_depth -= 1;
        if self.remaining_depth == 0 {
            self.remaining_depth += 1;
            return Err(self.error(ErrorCode::DepthLimitExceeded, self.pos));
        }
        self.pos += 1;
        let r = self.parse_tag_object_members(en);
        self.remaining_depth += 1;
        r
    }

    /// [`parse_tag_object`](Self::parse_tag_object) after its `{`.
    fn parse_tag_object_members(&mut self, en: &EnumLayout) -> Result<usize, Error> {
        // serde_json reads the variant as a map key.
        self.variant_key()?;
        let index = self.parse_variant(en)?;
        self.parse_object_colon()?;
        self.parse_unit("unit")?;
        self.end_variant_object()?;
        Ok(index)
    }

    /// The start of the key naming a variant after an enum's `{`, as
    /// serde_json's `VariantAccess` checks it: a string, else `expected value`
    /// at a `}` and `key must be a string` at anything else.
    fn variant_key(&mut self) -> Result<(), Error> {
        match self.parse_whitespace() {
            Some(b'"') => Ok(()),
            Some(b'}') if self.buffered > 0 => Err(self.not_a_single_key()),
            Some(b'}') => Err(self.error(ErrorCode::ExpectedSomeValue, self.pos)),
            Some(_) => Err(self.error(ErrorCode::KeyMustBeAString, self.pos)),
            None => Err(self.error(ErrorCode::EofWhileParsingObject, self.input.len())),
        }
    }

    /// The `}` after an enum object's one member, as serde_json's
    /// `deserialize_enum` checks it: anything else is `expected value`, which
    /// serde_json places before the byte it found (its `error`, not
    /// `peek_error`), so here at the byte before.
    fn end_variant_object(&mut self) -> Result<(), Error> {
        match self.parse_whitespace() {
            Some(b'}') => {
                self.pos += 1;
                Ok(())
            }
            Some(b',') if self.buffered > 0 => Err(self.not_a_single_key()),
            Some(_) => Err(self.error(ErrorCode::ExpectedSomeValue, self.pos - 1)),
            None => Err(self.error(ErrorCode::EofWhileParsingObject, self.input.len())),
        }
    }

    /// Passes over the member at `pos` (its key's opening quote) if its key is
    /// `tag`, and says whether it did; leaves `pos` where it was otherwise.
    /// The object was checked before (`check_tagged_object`).
    fn skip_tag_member(&mut self, tag: &str) -> Result<bool, Error> {
        let start = self.pos;
        if self.parse_str()? != tag.as_bytes() {
            self.pos = start;
            return Ok(false);
        }
        self.parse_object_colon()?;
        self.ignore_value()?;
        Ok(true)
    }

    /// `{"Variant": payload}`, with `pos` at the `{`.
    ///
    /// # Safety
    /// As for `decode_enum`.
    unsafe fn decode_variant_object(
        &mut self,
        layout: &'static TypeLayout,
        en: &'static EnumLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        // The payload of an internally tagged variant: serde reads the object
        // without the tag's member (`{"t": "R", "Ok": 1}` holds `{"Ok": 1}`),
        // which may come first or last.
        let tag = self.skip_key.take();
        self.pos += 1;
        self.variant_key()?;
        if let Some(tag) = tag
            && self.skip_tag_member(tag)?
        {
            if self.parse_whitespace() == Some(b',') {
                self.pos += 1;
            }
            self.variant_key()?;
        }
        let index = self.parse_variant(en)?;
        self.parse_object_colon()?;
        let variant = &en.variants[index];
        // SAFETY: forwarded from the caller.
        unsafe { self.decode_variant_value(en, index, dst) }
            .map_err(|e| at_segment(e, || PathSegment::Field(variant.name)))?;
        if let Some(tag) = tag
            && self.parse_whitespace() == Some(b',')
        {
            let comma = self.pos;
            self.pos += 1;
            let tag_follows = self.parse_whitespace() == Some(b'"') && self.skip_tag_member(tag)?;
            if !tag_follows {
                self.pos = comma;
            }
        }
        let Err(end) = self.end_variant_object() else {
            return Ok(());
        };
        // SAFETY: the variant was written above and is dropped once.
        unsafe { drop_value(layout, dst) };
        Err(end)
    }

    /// A variant's value where the representation holds it on its own (external
    /// and adjacent): `null` for a unit variant, else the payload.
    ///
    /// # Safety
    /// As for `decode_enum`; `index` is a valid variant index.
    unsafe fn decode_variant_value(
        &mut self,
        en: &'static EnumLayout,
        index: usize,
        dst: *mut u8,
    ) -> Result<(), Error> {
        let variant = &en.variants[index];
        match variant.payload.layout() {
            None => {
                // serde_json reads an external unit variant's value as `()`;
                // serde_derive reads adjacent content with a visitor of its own.
                let expected = match en.tagging {
                    Tagging::Adjacent { .. } => variant.unit_expecting,
                    _ => "unit",
                };
                self.parse_unit(expected)?;
                // SAFETY: a valid unit variant index; `dst` as the caller guarantees.
                unsafe { (en.write)(dst, index) };
                Ok(())
            }
            // SAFETY: forwarded from the caller.
            Some(payload) => unsafe { self.decode_payload(en, index, payload, dst) },
        }
    }

    /// The payload of data variant `index`, built into the variant at `dst`.
    ///
    /// # Safety
    /// As for `decode_enum`; `payload` is the variant's payload layout.
    unsafe fn decode_payload(
        &mut self,
        en: &'static EnumLayout,
        index: usize,
        payload: &'static TypeLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        // SAFETY: `decode_variant` hands the callback a slot for the payload type,
        // which `payload` describes (the Decode contract of the enum).
        unsafe {
            self.decode_through(payload, |decode, ctx| {
                (en.decode_variant)(dst, index, decode, ctx)
            })
        }
    }

    /// `{"<tag>": "Variant", ...}`: finds the tag, then decodes the object from
    /// its `{` as the variant's payload with the tag's member skipped.
    ///
    /// # Safety
    /// As for `decode_enum`.
    unsafe fn decode_internal(
        &mut self,
        layout: &'static TypeLayout,
        en: &'static EnumLayout,
        tag: &'static str,
        dst: *mut u8,
    ) -> Result<(), Error> {
        // An outer internally tagged enum's tag, which serde took out of the
        // object before this enum reads it: the same key is missing here.
        let outer = self.skip_key.take();
        match self.peek_value()? {
            b'{' if outer == Some(tag) => {
                return Err(self.error(ErrorCode::MissingField(tag), self.pos));
            }
            b'{' => {}
            b'[' => {
                self.enter(layout)?;
                // SAFETY: forwarded from the caller.
                let r = unsafe { self.decode_internal_seq(layout, en, tag, dst) };
                self.leave();
                return r;
            }
            _ => return Err(self.invalid_type(layout.expecting)),
        }
        let start = self.pos;
        self.enter(layout)?;
        let found = self.find_tag(en, tag);
        let index = match found {
            Ok(index) => index,
            Err(e) => {
                self.leave();
                return Err(e);
            }
        };
        let Some(payload) = en.variants[index].payload.layout() else {
            // A unit variant: the rest of the object is ignored, as serde does.
            let r = self.ignore_rest_of_tagged_object(tag);
            self.leave();
            r?;
            // SAFETY: a valid unit variant index; `dst` as the caller guarantees.
            unsafe { (en.write)(dst, index) };
            return Ok(());
        };
        if let Kind::Unit = payload.kind {
            // A newtype variant of `()` or a unit struct: serde reads the unit
            // from the object without its tag, which must be empty.
            self.pos = start;
            let members = self.check_tagged_object(tag);
            self.leave();
            if members? > 0 {
                return Err(self.error(
                    ErrorCode::InvalidType {
                        found: Found::Object,
                        expected: payload.expecting,
                        value: None,
                    },
                    start,
                ));
            }
            // SAFETY: forwarded from the caller.
            return unsafe { self.write_unit_payload(en, index, dst) };
        }
        // A struct skips the tag's member once and refuses a second. Any other
        // payload reads the object without counting its tags: serde refuses a
        // second tag while it buffers the object, so the object is checked
        // first (a syntax error in it wins too, as in serde).
        let object = object_kind(payload);
        // Structs, maps and externally tagged enums (serde reads their
        // one-member object without the tag) skip the tag's member, and so
        // does each variant an untagged enum tries; other payloads see it as
        // a key.
        let external = matches!(object, Kind::Enum(inner)
            if inner.tagging == Tagging::External && !inner.has_untagged_variants());
        let untagged = matches!(object, Kind::Enum(inner) if inner.tagging == Tagging::Untagged);
        // A nested internally or adjacently tagged enum reads the object
        // without this tag too: the same key is missing for it.
        let nested = matches!(object, Kind::Enum(inner)
            if matches!(inner.tagging, Tagging::Internal { .. } | Tagging::Adjacent { .. })
                && !inner.has_untagged_variants());
        if !matches!(object, Kind::Struct(_)) {
            self.pos = start;
            let members = match self.check_tagged_object(tag) {
                Ok(members) => members,
                Err(e) => {
                    self.leave();
                    return Err(e);
                }
            };
            if external && members != 1 {
                // serde counts the members it buffered before it looks at one.
                self.leave();
                return Err(self.not_a_single_key());
            }
        }
        self.leave();
        self.pos = start;
        if matches!(object, Kind::Struct(_) | Kind::Map(_)) || external || untagged || nested {
            self.skip_key = Some(tag);
        }
        self.buffered += 1;
        // SAFETY: forwarded from the caller.
        let r = unsafe { self.decode_payload(en, index, payload, dst) };
        self.buffered -= 1;
        self.skip_key = None;
        r.map_err(|e| self.tagged_object_first(self.place(e), start, tag))
    }

    /// serde buffers a tagged object before it decodes the payload, so a syntax
    /// error anywhere in the object wins over a data error in the payload; ours
    /// decodes in one pass, so only when that fails on data is the object at
    /// `start` checked (free on the success path). While serde buffers it, it
    /// also refuses a second `tag` key (a duplicate field) as soon as it reads
    /// it, so whichever of a syntax error and a second tag comes first in the
    /// object wins over a data error in the payload.
    #[cold]
    fn tagged_object_first(&mut self, e: Error, start: usize, tag: &'static str) -> Error {
        if e.classify() != Category::Data {
            return e;
        }
        let pos = self.pos;
        self.pos = start;
        let buffered = self.check_tagged_object(tag);
        self.pos = pos;
        buffered.err().unwrap_or(e)
    }

    /// With `pos` at a `{`: reads the object's members as serde buffers them,
    /// failing at the first syntax error or at a second `tag` key. Returns the
    /// number of members other than the tag.
    fn check_tagged_object(&mut self, tag: &'static str) -> Result<usize, Error> {
        self.pos += 1;
        let mut others = 0;
        match self.parse_whitespace() {
            Some(b'"') => {}
            Some(b'}') => {
                self.pos += 1;
                return Ok(others);
            }
            Some(_) => return Err(self.error(ErrorCode::KeyMustBeAString, self.pos)),
            None => return Err(self.error(ErrorCode::EofWhileParsingObject, self.input.len())),
        }
        let mut tags = 0;
        loop {
            let key_start = self.pos;
            if self.parse_str()? == tag.as_bytes() {
                tags += 1;
                if tags == 2 {
                    return Err(self.error(ErrorCode::DuplicateField(tag), key_start));
                }
            } else {
                others += 1;
            }
            self.parse_object_colon()?;
            self.ignore_value_as_parsed()?;
            if let AfterMember::End = self.end_map_member()? {
                return Ok(others);
            }
        }
    }

    /// With `pos` at a `{`: reads members up to the first keyed `tag` and returns
    /// the variant its value names, `pos` after that value. A missing tag is an
    /// error at the `}`.
    fn find_tag(&mut self, en: &EnumLayout, tag: &'static str) -> Result<usize, Error> {
        self.pos += 1;
        match self.parse_whitespace() {
            Some(b'"') => {}
            Some(b'}') => return Err(self.error(ErrorCode::MissingField(tag), self.pos)),
            Some(_) => return Err(self.error(ErrorCode::KeyMustBeAString, self.pos)),
            None => return Err(self.error(ErrorCode::EofWhileParsingObject, self.input.len())),
        }
        loop {
            let key_start = self.pos;
            let is_tag = self.parse_str()? == tag.as_bytes();
            self.parse_object_colon()?;
            if is_tag {
                return self.parse_tag_value(en, false);
            }
            self.ignore_member_value_as_parsed(key_start)?;
            if let AfterMember::End = self.end_map_member()? {
                return Err(self.error(ErrorCode::MissingField(tag), self.pos - 1));
            }
        }
    }

    /// The members after an internal tag, validated and ignored; a second tag is
    /// a duplicate field.
    fn ignore_rest_of_tagged_object(&mut self, tag: &'static str) -> Result<(), Error> {
        loop {
            if let AfterMember::End = self.end_map_member()? {
                return Ok(());
            }
            let key_start = self.pos;
            if self.parse_str()? == tag.as_bytes() {
                return Err(self.error(ErrorCode::DuplicateField(tag), key_start));
            }
            self.parse_object_colon()?;
            self.ignore_member_value_as_parsed(key_start)?;
        }
    }

    /// `{"<tag>": "Variant", "<content>": payload}`, in either order; other keys
    /// are skipped (or refused with `deny_unknown_fields`). A unit variant may
    /// leave out its content.
    ///
    /// # Safety
    /// As for `decode_enum`.
    unsafe fn decode_adjacent(
        &mut self,
        layout: &'static TypeLayout,
        en: &'static EnumLayout,
        tag: &'static str,
        content: &'static str,
        dst: *mut u8,
    ) -> Result<(), Error> {
        // As for `decode_internal`: an outer tag of the same key is gone.
        let outer = self.skip_key.take();
        match self.peek_value()? {
            b'{' if outer == Some(tag) => {
                return Err(self.error(ErrorCode::MissingField(tag), self.pos));
            }
            b'{' => {}
            b'[' => {
                self.enter(layout)?;
                // SAFETY: forwarded from the caller.
                let r = unsafe { self.decode_adjacent_seq(layout, en, content, dst) };
                self.leave();
                return r;
            }
            _ => return Err(self.invalid_type(layout.expecting)),
        }
        self.enter(layout)?;
        let mut written = false;
        // SAFETY: forwarded from the caller; `written` says whether `dst` is live.
        let r = unsafe { self.decode_adjacent_members(en, tag, content, dst, &mut written) };
        self.leave();
        if r.is_err() && written {
            // SAFETY: the variant was written and is dropped once.
            unsafe { drop_value(layout, dst) };
        }
        r
    }

    /// The members of an adjacently tagged object, `pos` at its `{`. Sets
    /// `*written` once the variant is at `dst`.
    ///
    /// # Safety
    /// As for `decode_enum`.
    unsafe fn decode_adjacent_members(
        &mut self,
        en: &'static EnumLayout,
        tag: &'static str,
        content: &'static str,
        dst: *mut u8,
        written: &mut bool,
    ) -> Result<(), Error> {
        let mut index: Option<usize> = None;
        // Where a content that came before its tag starts.
        let mut content_at: Option<usize> = None;
        self.pos += 1;
        let mut more = match self.parse_whitespace() {
            Some(b'"') => true,
            Some(b'}') => {
                self.pos += 1;
                false
            }
            Some(_) => return Err(self.error(ErrorCode::KeyMustBeAString, self.pos)),
            None => return Err(self.error(ErrorCode::EofWhileParsingObject, self.input.len())),
        };
        while more {
            let key_start = self.pos;
            let key = self.parse_str()?;
            let (is_tag, is_content) = (key == tag.as_bytes(), key == content.as_bytes());
            if !is_tag && !is_content && en.deny_unknown_fields {
                let name = String::from_utf8_lossy(key).into();
                let code = ErrorCode::UnknownTagOrContent { name, tag, content };
                return Err(self.error(code, key_start));
            }
            self.parse_object_colon()?;
            if is_tag {
                if index.is_some() {
                    return Err(self.error(ErrorCode::DuplicateField(tag), key_start));
                }
                let i = self.parse_tag_value(en, true)?;
                index = Some(i);
                // serde decodes content it buffered as soon as it knows the
                // variant, before reading on.
                if let Some(at) = content_at {
                    let end = self.pos;
                    self.pos = at;
                    self.buffered += 1;
                    // SAFETY: forwarded from the caller.
                    let r = unsafe { self.decode_variant_value(en, i, dst) };
                    self.buffered -= 1;
                    r.map_err(|e| self.place(at_segment(e, || PathSegment::Field(content))))?;
                    self.pos = end;
                    *written = true;
                }
            } else if is_content {
                if content_at.is_some() || *written {
                    return Err(self.error(ErrorCode::DuplicateField(content), key_start));
                }
                match index {
                    Some(i) => {
                        // SAFETY: forwarded from the caller.
                        unsafe { self.decode_variant_value(en, i, dst) }
                            .map_err(|e| at_segment(e, || PathSegment::Field(content)))?;
                        *written = true;
                    }
                    None => {
                        content_at = Some(text::skip_ws(self.input, self.pos));
                        self.ignore_value_as_parsed()?;
                    }
                }
            } else {
                self.ignore_member_value(key_start)?;
            }
            more = matches!(self.end_map_member()?, AfterMember::More);
        }
        let close = self.pos - 1;
        let Some(index) = index else {
            return Err(self.error(ErrorCode::MissingField(tag), close));
        };
        if *written {
            return Ok(());
        }
        // Content before the tag was decoded when the tag was read: here there
        // was no content at all.
        debug_assert!(content_at.is_none());
        match en.variants[index].payload {
            // SAFETY: a valid unit variant index; `dst` as the caller guarantees.
            Payload::Unit => unsafe { (en.write)(dst, index) },
            // serde asks an absent content for an option, as it asks an absent
            // field: `Option<T>` (behind boxes) is `None`.
            Payload::Newtype(payload) if payload.get().is_optional() => {
                let payload: &'static TypeLayout = payload.get();
                let ctx = core::ptr::from_ref(payload).cast_mut().cast::<c_void>();
                // SAFETY: `decode_variant` hands the callback a slot for the
                // payload, which `payload` describes; `dst` as the caller
                // guarantees.
                if !unsafe { (en.decode_variant)(dst, index, write_missing_slot, ctx) } {
                    return Err(self.error(ErrorCode::Panicked, close));
                }
            }
            _ => return Err(self.error(ErrorCode::MissingField(content), close)),
        }
        *written = true;
        Ok(())
    }

    /// The payload of newtype variant `index` holding `()` or a unit struct
    /// (nothing to read).
    ///
    /// # Safety
    /// As for `decode_enum`; the variant's payload is a unit.
    unsafe fn write_unit_payload(
        &mut self,
        en: &'static EnumLayout,
        index: usize,
        dst: *mut u8,
    ) -> Result<(), Error> {
        // SAFETY: the slot is room for a zero-sized unit, which needs no write.
        if unsafe { (en.decode_variant)(dst, index, unit_slot, core::ptr::null_mut()) } {
            Ok(())
        } else {
            Err(self.error(ErrorCode::Panicked, self.pos))
        }
    }

    /// `["Variant", ...]`, an internally tagged enum in sequence form, `pos` at
    /// the `[`: the tag, then the payload read from the remaining elements, as
    /// serde reads them. A unit variant takes no element; a unit struct (not
    /// `()`) reads none. A struct payload would be read from the elements as
    /// from an array, which jitson never does (docs/semantics.md, deliberate
    /// difference 2): it is refused as an array given for the enum.
    ///
    /// # Safety
    /// As for `decode_enum`.
    unsafe fn decode_internal_seq(
        &mut self,
        layout: &'static TypeLayout,
        en: &'static EnumLayout,
        tag: &'static str,
        dst: *mut u8,
    ) -> Result<(), Error> {
        let start = self.pos;
        self.pos += 1;
        match self.parse_whitespace() {
            Some(b']') => return Err(self.error(ErrorCode::MissingField(tag), self.pos)),
            Some(_) => {}
            None => return Err(self.error(ErrorCode::EofWhileParsingList, self.input.len())),
        }
        let index = self.parse_tag_value(en, false)?;
        // serde buffers the rest before it reads the payload from it.
        let mut rest = 0;
        while let AfterElement::More = self.end_seq_element()? {
            self.ignore_value_as_parsed()?;
            rest += 1;
        }
        let payload = en.variants[index].payload.layout();
        match payload.map(|p| (p, &p.kind)) {
            None if rest == 0 => {
                // SAFETY: a valid unit variant index; `dst` as the caller guarantees.
                unsafe { (en.write)(dst, index) };
                Ok(())
            }
            None => Err(self.error(
                ErrorCode::SeqTooLong {
                    found: rest,
                    expected: 0,
                },
                self.pos - 1,
            )),
            Some((p, Kind::Unit)) if rest == 0 && p.expecting.starts_with("unit struct") => {
                // SAFETY: forwarded from the caller.
                unsafe { self.write_unit_payload(en, index, dst) }
            }
            // serde reads a scalar payload from the rest of the sequence,
            // which it refuses in the scalar's words.
            Some((p, _)) if is_scalar(object_kind(p)) => Err(self.error(
                ErrorCode::InvalidType {
                    found: Found::Array,
                    expected: p.expecting,
                    value: None,
                },
                start,
            )),
            Some(_) => {
                self.pos = start;
                Err(self.invalid_type(layout.expecting))
            }
        }
    }

    /// `["Variant", content]`, an adjacently tagged enum in sequence form,
    /// `pos` at the `[`: exactly two elements (serde: fewer is an invalid
    /// length, more is trailing characters).
    ///
    /// # Safety
    /// As for `decode_enum`.
    unsafe fn decode_adjacent_seq(
        &mut self,
        layout: &'static TypeLayout,
        en: &'static EnumLayout,
        content: &'static str,
        dst: *mut u8,
    ) -> Result<(), Error> {
        let too_short = |parser: &mut Self, found: usize| {
            parser.error(
                ErrorCode::TupleLength {
                    found,
                    expected: layout.expecting,
                },
                parser.pos - 1,
            )
        };
        self.pos += 1;
        match self.parse_whitespace() {
            Some(b']') => {
                self.pos += 1;
                return Err(too_short(self, 0));
            }
            Some(_) => {}
            None => return Err(self.error(ErrorCode::EofWhileParsingList, self.input.len())),
        }
        let index = self.parse_tag_value(en, false)?;
        if let AfterElement::End = self.end_seq_element()? {
            return Err(too_short(self, 1));
        }
        // SAFETY: forwarded from the caller.
        unsafe { self.decode_variant_value(en, index, dst) }
            .map_err(|e| at_segment(e, || PathSegment::Field(content)))?;
        // serde_json's `end_seq`: a third element is trailing characters.
        let end = match self.end_fixed_seq() {
            Ok(()) => return Ok(()),
            Err(e) => e,
        };
        // SAFETY: the variant was written above and is dropped once.
        unsafe { drop_value(layout, dst) };
        Err(end)
    }

    /// A tagged enum whose last variants are `#[serde(untagged)]`: the tagged
    /// form first, then each untagged variant in order, all on the validated
    /// value (serde buffers it). None matching is `NoMatchingVariant`.
    ///
    /// # Safety
    /// As for `decode_enum`.
    unsafe fn decode_partly_untagged(
        &mut self,
        layout: &'static TypeLayout,
        en: &'static EnumLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        self.peek_value()?;
        let start = self.pos;
        self.ignore_value_as_parsed()?;
        self.pos = start;
        self.buffered += 1;
        // SAFETY: forwarded from the caller.
        let tagged = unsafe {
            match en.tagging {
                Tagging::Internal { tag } => self.decode_internal(layout, en, tag, dst),
                Tagging::Adjacent { tag, content } => {
                    self.decode_adjacent(layout, en, tag, content, dst)
                }
                _ => self.decode_external(layout, en, dst),
            }
        };
        self.buffered -= 1;
        match tagged {
            Ok(()) => Ok(()),
            Err(e) if ends_search(&e) => Err(self.place(e)),
            Err(_) => {
                self.pos = start;
                // SAFETY: forwarded from the caller.
                unsafe { self.decode_untagged_from(layout, en, en.untagged_from, dst) }
            }
        }
    }

    /// The first variant, in declaration order, that decodes the value. The value
    /// is validated first (serde_json buffers it, so a syntax error wins over a
    /// mismatch); variants whose payload cannot start with the value's first byte
    /// are not tried. A panic, or running out of depth or stack, ends the search.
    ///
    /// # Safety
    /// As for `decode_enum`.
    unsafe fn decode_untagged(
        &mut self,
        layout: &'static TypeLayout,
        en: &'static EnumLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        // SAFETY: forwarded from the caller.
        unsafe { self.decode_untagged_from(layout, en, 0, dst) }
    }

    /// [`decode_untagged`](Self::decode_untagged) over the variants from `from`.
    ///
    /// # Safety
    /// As for `decode_enum`.
    unsafe fn decode_untagged_from(
        &mut self,
        layout: &'static TypeLayout,
        en: &'static EnumLayout,
        from: usize,
        dst: *mut u8,
    ) -> Result<(), Error> {
        // A variant may hold this enum again (`B(Box<Self>)`), tried on the
        // same value without a level of depth: the stack is what runs out.
        if !jitson_core::stack::has_room(
            self.stack_limit,
            jitson_core::stack::level_reserve(layout),
        ) {
            return Err(self.error(ErrorCode::StackExhausted, self.pos));
        }
        // An internally tagged variant's tag, which each variant's read of the
        // object skips (serde tries them on the object without it).
        let tag = self.skip_key.take();
        let first = self.peek_value()?;
        let start = self.pos;
        self.ignore_value_as_parsed()?;
        let end = self.pos;
        for (index, variant) in en.variants.iter().enumerate().skip(from) {
            match variant.payload.layout() {
                None if first == b'n' => {
                    // SAFETY: a valid unit variant index; `dst` as the caller guarantees.
                    unsafe { (en.write)(dst, index) };
                    return Ok(());
                }
                None => {}
                Some(payload) if may_start(payload, first, 0) => {
                    self.pos = start;
                    self.buffered += 1;
                    self.skip_key = tag;
                    // SAFETY: forwarded from the caller.
                    let r = unsafe { self.decode_payload(en, index, payload, dst) };
                    self.skip_key = None;
                    self.buffered -= 1;
                    match r {
                        Ok(()) => return Ok(()),
                        Err(e) if ends_search(&e) => return Err(self.place(e)),
                        Err(_) => {}
                    }
                }
                Some(_) => {}
            }
        }
        self.pos = end;
        // serde's derive says the enum's `expecting` text instead, when it has one.
        let code = match en.expecting {
            Some(text) => ErrorCode::Conversion(text.into()),
            None => ErrorCode::NoMatchingVariant { enum_name: en.name },
        };
        Err(self.error(code, end))
    }
}

/// A [`SlotFn`](jitson_core::layout::SlotFn) for a unit payload: nothing to
/// write.
///
/// # Safety
/// Always safe; `slot` is room for a zero-sized value.
unsafe extern "C" fn unit_slot(_ctx: *mut c_void, _slot: *mut u8) -> bool {
    true
}

/// A [`SlotFn`](jitson_core::layout::SlotFn) writing an absent optional value
/// (`None`, boxed as the layout says); `ctx` is the payload's layout.
///
/// # Safety
/// `ctx` is a `&'static TypeLayout` that is optional, `slot` room for it.
unsafe extern "C" fn write_missing_slot(ctx: *mut c_void, slot: *mut u8) -> bool {
    // SAFETY: as the caller guarantees.
    unsafe { jitson_core::layout::write_missing(&*ctx.cast::<TypeLayout>(), slot) }
}

/// Errors that are not a variant's mismatch: an untagged search stops at them.
pub(crate) fn ends_search(e: &Error) -> bool {
    // A `Drop` that panicked while a failed variant's partial payload was
    // dropped is stashed, not in `e`: it ends the search too, and the facade
    // resumes it.
    matches!(
        e.code(),
        ErrorCode::Panicked
            | ErrorCode::DepthLimitExceeded
            | ErrorCode::ValueTooDeep
            | ErrorCode::StackExhausted
    ) || jitson_core::panic::is_pending()
}

/// Whether a value of `layout` may start with the byte `b` (conservative: `true`
/// when unsure): the untagged variants an untagged enum tries for a value that
/// starts with `b`. The JIT dispatches on the same answer (`jit/src/kind/enum_.rs`),
/// so both backends try the same variants.
pub fn may_start_with(layout: &TypeLayout, b: u8) -> bool {
    may_start(layout, b, 0)
}

/// [`may_start_with`], `depth` levels of wrappers down.
fn may_start(layout: &TypeLayout, b: u8, depth: u32) -> bool {
    if depth > 16 {
        return true;
    }
    let number = b == b'-' || b.is_ascii_digit();
    // Exhaustive on purpose: a new kind must say which bytes start it.
    match &layout.kind {
        Kind::Bool => b == b't' || b == b'f',
        Kind::I8
        | Kind::I16
        | Kind::I32
        | Kind::I64
        | Kind::U8
        | Kind::U16
        | Kind::U32
        | Kind::U64
        | Kind::I128
        | Kind::U128
        | Kind::F32
        | Kind::F64 => number,
        Kind::Char | Kind::String(_) | Kind::BorrowedStr(_) => b == b'"',
        Kind::Option(o) => b == b'n' || may_start(o.some.get(), b, depth + 1),
        Kind::Box(x) => may_start(x.inner.get(), b, depth + 1),
        Kind::Newtype(n) => may_start(n.inner.get(), b, depth + 1),
        Kind::Convert(c) => may_start(c.from.get(), b, depth + 1),
        Kind::Vec(_) | Kind::Array(_) | Kind::Tuple(_) => b == b'[',
        Kind::Map(_) | Kind::Struct(_) => b == b'{',
        Kind::Unit => b == b'n',
        Kind::Enum(e) => match e.tagging {
            Tagging::External => b == b'"' || b == b'{',
            Tagging::Internal { .. } | Tagging::Adjacent { .. } => b == b'{' || b == b'[',
            Tagging::Untagged => true,
        },
        Kind::RawValue(_) | Kind::Ignored | Kind::Serde(_) | Kind::Parsed(_) => true,
        Kind::Column(c) => {
            (c.nullable && b == b'n')
                || match c.store {
                    jitson_core::column::Store::List => b == b'[',
                    _ => may_start(c.value.get(), b, depth + 1),
                }
        }
    }
}

// ---------------------------------------------------------------------------
// Encoding

impl crate::encode::Emitter<'_> {
    /// An enum in its representation: the layout's `variant_of` tells the
    /// variant and writes a view of its payload (references to its fields),
    /// which is encoded with the payload's layout.
    ///
    /// # Safety
    /// `src` points to a value of the enum.
    pub(crate) unsafe fn encode_enum(
        &mut self,
        layout: &'static TypeLayout,
        e: &EnumLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        let mut room = ViewRoom::new();
        // SAFETY: as the caller guarantees.
        let (variant, tagging, view) = unsafe { self.written_variant(layout, e, src, &mut room) }?;
        let payload = variant.payload.layout();
        // SAFETY (all arms): the view holds a live value of the payload's layout.
        unsafe {
            match (tagging, payload) {
                (Tagging::External, None) => {
                    self.string(variant.name);
                    Ok(())
                }
                (Tagging::Untagged, None) => self.encode_unit(),
                (Tagging::Untagged, Some(payload)) => self.encode_value(payload, view),
                // An object of the variant's members.
                _ => {
                    self.begin(layout, b'{')?;
                    let mut first = true;
                    self.encode_variant_members(e, variant, tagging, view, &mut first)?;
                    self.end(b'}', true);
                    Ok(())
                }
            }
        }
    }

    /// A flattened enum's members, written into the enclosing object, as
    /// serde's `FlatMapSerializer` writes them: a tagged variant's members
    /// (an externally tagged unit variant as its name with `null`), an
    /// untagged variant's payload's members (nothing for a unit variant; a
    /// payload that is no struct or map is refused, as serde refuses it).
    ///
    /// # Safety
    /// `src` points to a value of the enum.
    pub(crate) unsafe fn encode_flattened_enum(
        &mut self,
        layout: &'static TypeLayout,
        e: &EnumLayout,
        src: *const u8,
        first: &mut bool,
    ) -> Result<(), Error> {
        let mut room = ViewRoom::new();
        // SAFETY: as the caller guarantees.
        let (variant, tagging, view) = unsafe { self.written_variant(layout, e, src, &mut room) }?;
        // SAFETY (all arms): the view holds a live value of the payload's layout.
        unsafe {
            match (tagging, variant.payload.layout()) {
                (Tagging::External, None) => {
                    self.member(*first, variant.name);
                    *first = false;
                    self.encode_unit()
                }
                (Tagging::Untagged, None) => Ok(()),
                (Tagging::Untagged, Some(payload)) => self.encode_flattened(payload, view, first),
                _ => self.encode_variant_members(e, variant, tagging, view, first),
            }
        }
    }

    /// The members a tagged variant writes into its object (its own, or an
    /// internally tagged parent's): an internally tagged variant's tag and
    /// its payload's content; an adjacently tagged one's tag and content; an
    /// externally tagged one's name with its payload. `first` tells whether
    /// a member came before.
    ///
    /// # Safety
    /// `view` holds a live value of the variant's payload layout; an
    /// externally tagged variant has a payload; `tagging` is not untagged.
    unsafe fn encode_variant_members(
        &mut self,
        e: &EnumLayout,
        variant: &jitson_core::layout::Variant,
        tagging: Tagging,
        view: *const u8,
        first: &mut bool,
    ) -> Result<(), Error> {
        let payload = variant.payload.layout();
        let mut member = |this: &mut Self, key: &str| {
            this.member(*first, key);
            *first = false;
        };
        // SAFETY (all arms): as the caller guarantees.
        unsafe {
            match tagging {
                Tagging::Internal { tag } => {
                    member(self, tag);
                    self.string(variant.name);
                    match payload {
                        Some(p) => self.encode_tagged_content(e, variant.rust_name, p, view, first),
                        None => Ok(()),
                    }
                }
                Tagging::Adjacent { tag, content } => {
                    member(self, tag);
                    self.string(variant.name);
                    let Some(payload) = payload else {
                        return Ok(());
                    };
                    member(self, content);
                    self.encode_value(payload, view)
                        .map_err(|err| at_segment(err, || PathSegment::Field(content)))
                }
                Tagging::External => {
                    member(self, variant.name);
                    let payload = payload.expect("the caller writes a unit variant itself");
                    self.encode_value(payload, view)
                        .map_err(|err| at_segment(err, || PathSegment::Field(variant.name)))
                }
                Tagging::Untagged => unreachable!("untagged variants write no members"),
            }
        }
    }

    /// An internally tagged variant's payload, after the tag: a struct's
    /// members or a map's entries, through the references, boxes and newtypes
    /// around them; a unit adds nothing. Anything else is serde's refusal.
    ///
    /// # Safety
    /// `src` points to a value of `payload`.
    unsafe fn encode_tagged_content(
        &mut self,
        e: &EnumLayout,
        variant: &str,
        payload: &'static TypeLayout,
        src: *const u8,
        first: &mut bool,
    ) -> Result<(), Error> {
        // SAFETY (all arms): as the caller guarantees.
        unsafe {
            match &payload.kind {
                Kind::Struct(st) => self.encode_members(st, src, first),
                Kind::Map(map) => self.encode_entries(payload, map, src, first),
                Kind::Box(b) => {
                    self.encode_tagged_content(e, variant, b.inner.get(), (b.get)(src), first)
                }
                // serde's tagged serializer writes a newtype struct as what it
                // holds (`serialize_newtype_struct`).
                Kind::Newtype(n) => {
                    self.encode_tagged_content(e, variant, n.inner.get(), src.add(n.offset), first)
                }
                Kind::Unit => Ok(()),
                Kind::Enum(inner) => {
                    self.encode_tagged_enum(e, variant, payload, inner, src, first)
                }
                // A conversion (`Duration`, `SystemTime`): the content of
                // what it is written as, as serde writes that.
                Kind::Convert(ConvertLayout {
                    into: Some(into),
                    from,
                    ..
                }) => {
                    let target = from.get();
                    self.write_through(
                        |encode, ctx, message| into(src, encode, ctx, message),
                        &mut |emitter, value| {
                            emitter.encode_tagged_content(e, variant, target, value, first)
                        },
                    )
                }
                // A value written by serde: the members of the object its
                // serializer writes, as serde's tagged serializer takes them.
                Kind::Serde(s) => {
                    let refuse = |shape: &str| tagged_refusal(e, variant, shape);
                    self.encode_serde_members(payload, s, src, first, true, refuse)
                }
                // serde's tagged serializer leaves 128-bit integers to the
                // `Serializer` trait's default, which refuses them in its words.
                Kind::U128 | Kind::I128 => {
                    let bits = if matches!(payload.kind, Kind::U128) {
                        "u128"
                    } else {
                        "i128"
                    };
                    Err(crate::encode::encode_error(ErrorCode::NotEncodable(
                        format!("{bits} is not supported").into_boxed_str(),
                    )))
                }
                _ => Err(tagged_refusal(e, variant, serde_shape(payload))),
            }
        }
    }

    /// An enum held by an internally tagged variant (`outer`, the payload's
    /// layout), after the outer tag, as serde's tagged serializer writes it:
    /// an internally tagged enum adds its own tag and its payload's content;
    /// an adjacently tagged one its tag and content members; an externally
    /// tagged one a member named by its variant (`null` for a unit); an
    /// untagged one its payload's content, refused in the outer variant's
    /// name (`e`, `outer_variant`) as serde refuses it.
    ///
    /// # Safety
    /// `src` points to a value of `inner`.
    unsafe fn encode_tagged_enum(
        &mut self,
        e: &EnumLayout,
        outer_variant: &str,
        outer: &'static TypeLayout,
        inner: &EnumLayout,
        src: *const u8,
        first: &mut bool,
    ) -> Result<(), Error> {
        let mut room = ViewRoom::new();
        // SAFETY: as the caller guarantees.
        let (variant, tagging, view) =
            unsafe { self.written_variant(outer, inner, src, &mut room) }?;
        let payload = variant.payload.layout();
        // SAFETY (all arms): the view holds a live value of the payload's layout.
        unsafe {
            match (tagging, payload) {
                (Tagging::External, None) => {
                    self.member(*first, variant.name);
                    *first = false;
                    self.encode_unit()
                }
                (Tagging::Untagged, None) => Ok(()),
                // An untagged tuple variant is serialized as a tuple, which
                // the tagged serializer refuses.
                (Tagging::Untagged, Some(_)) if matches!(variant.payload, Payload::Tuple(_)) => {
                    Err(tagged_refusal(e, outer_variant, "a tuple"))
                }
                (Tagging::Untagged, Some(payload)) => {
                    self.encode_tagged_content(e, outer_variant, payload, view, first)
                }
                _ => self.encode_variant_members(inner, variant, tagging, view, first),
            }
        }
    }
}

/// Room for the view of any variant's payload (`VARIANT_VIEW_SIZE` bytes,
/// 8-aligned), left uninitialised: `variant_of` writes what it uses.
struct ViewRoom(core::mem::MaybeUninit<[u64; jitson_core::layout::VARIANT_VIEW_SIZE / 8]>);

impl ViewRoom {
    fn new() -> Self {
        ViewRoom(core::mem::MaybeUninit::uninit())
    }
}

impl crate::encode::Emitter<'_> {
    /// The variant the enum value at `src` is written as, its tagging, and
    /// its payload's view, filled in `room` ([`variant_to_write`]); `layout`
    /// names the enum when it cannot say its variant (no `variant_of`).
    ///
    /// # Safety
    /// `src` points to a value of the enum `e`.
    unsafe fn written_variant(
        &self,
        layout: &'static TypeLayout,
        e: &EnumLayout,
        src: *const u8,
        room: &mut ViewRoom,
    ) -> Result<(&'static jitson_core::layout::Variant, Tagging, *const u8), Error> {
        let Some(variant_of) = e.variant_of else {
            return Err(self.not_encodable(layout));
        };
        let view = room.0.as_mut_ptr().cast::<u8>();
        // SAFETY: as the caller guarantees; the room fits any payload view.
        let (variant, tagging) = unsafe { variant_to_write(e, variant_of, src, view) }?;
        Ok((variant, tagging, view))
    }
}

/// The variant of the enum value at `src` and the tagging it is written
/// with (untagged from `untagged_from` on); `variant_of` fills `view` with
/// the payload's view. A variant that is never written is serde's error.
///
/// # Safety
/// `src` points to a value of the enum, `view` to `VARIANT_VIEW_SIZE`
/// writable bytes, 8-aligned.
unsafe fn variant_to_write(
    e: &EnumLayout,
    variant_of: jitson_core::layout::VariantOfFn,
    src: *const u8,
    view: *mut u8,
) -> Result<(&'static jitson_core::layout::Variant, Tagging), Error> {
    // SAFETY: as the caller guarantees.
    let index = unsafe { variant_of(src, view) };
    let Some(variant) = e.variants.get(index) else {
        // A skipped variant: `variant_of` wrote its name.
        // SAFETY: the layout's contract for `usize::MAX`.
        let name = unsafe { *view.cast::<&'static str>() };
        return Err(crate::encode::encode_error(ErrorCode::NotEncodable(
            format!("the enum variant {}::{name} cannot be serialized", e.name).into_boxed_str(),
        )));
    };
    let tagging = if index >= e.untagged_from {
        Tagging::Untagged
    } else {
        e.tagging
    };
    Ok((variant, tagging))
}

/// The kind a payload is read from an object as, through what serde reads
/// from the same object: a box's, an option's (`Some`) or a newtype struct's
/// content, and a conversion's source (`Duration` is read as the struct of
/// serde's fields, then converted).
fn object_kind(layout: &'static TypeLayout) -> &'static Kind {
    match &layout.kind {
        Kind::Convert(c) => object_kind(c.from.get()),
        Kind::Box(b) => object_kind(b.inner.get()),
        Kind::Option(o) => object_kind(o.some.get()),
        Kind::Newtype(n) if n.skipped.is_empty() => object_kind(n.inner.get()),
        kind => kind,
    }
}

/// Whether a value of `kind` is one JSON scalar (or `null`).
fn is_scalar(kind: &Kind) -> bool {
    kind.is_number()
        || matches!(
            kind,
            Kind::Unit | Kind::Bool | Kind::Char | Kind::String(_) | Kind::BorrowedStr(_)
        )
}

/// serde's refusal of an internally tagged newtype variant (`e`'s variant
/// named `variant` in Rust) holding `what`.
fn tagged_refusal(e: &EnumLayout, variant: &str, what: &str) -> Error {
    crate::encode::encode_error(ErrorCode::NotEncodable(
        format!(
            "cannot serialize tagged newtype variant {}::{variant} containing {what}",
            e.name
        )
        .into_boxed_str(),
    ))
}

/// serde's word for what an internally tagged newtype variant cannot hold.
fn serde_shape(layout: &TypeLayout) -> &'static str {
    match &layout.kind {
        Kind::Bool => "a boolean",
        Kind::F32 | Kind::F64 => "a float",
        Kind::Char => "a char",
        Kind::String(_) | Kind::BorrowedStr(_) => "a string",
        Kind::Option(_) => "an optional",
        Kind::Vec(_) | Kind::Array(_) => "a sequence",
        Kind::Convert(c) => serde_shape(c.from.get()),
        Kind::Tuple(t) if layout.expecting.starts_with("tuple struct") || t.elems.is_empty() => {
            "a tuple struct"
        }
        Kind::Tuple(_) => "a tuple",
        Kind::Enum(_) => "an enum",
        k if k.is_number() => "an integer",
        _ => layout.expecting,
    }
}
