//! Newtype structs (and `transparent`), conversions (`from`, `try_from`), fields
//! decoded through serde, and unit types: the types whose JSON is another type's
//! (or anyone's). The JIT compiles newtypes in
//! place (`translate.rs`, `emit_value`) and hands the others to this module.

use jitson_core::error::{Error, ErrorCode};
use jitson_core::layout::{
    ConvertLayout, FLOAT_KEY_MUST_BE_FINITE, Flattening, KEY_MUST_BE_A_STRING, NewtypeLayout,
    SerdeLayout, SerializeTarget, TypeLayout,
};
use jitson_core::text;

use crate::{Parser, drop_value};

impl Parser<'_> {
    /// The inner field's value, as serde_json reads a newtype struct; then the
    /// skipped fields. No path segment: the JSON has no level here.
    ///
    /// # Safety
    /// `dst` is valid for a write of the newtype.
    pub(crate) unsafe fn decode_newtype(
        &mut self,
        nt: &NewtypeLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        let inner = nt.inner.get();
        // SAFETY: the field's offset and layout come from the Decode contract; on
        // a failed skipped initialiser the decoded field is dropped once.
        unsafe {
            self.decode_value(inner, dst.add(nt.offset))?;
            if let Err(e) = self.init_skipped(nt.skipped, dst) {
                drop_value(inner, dst.add(nt.offset));
                return Err(e);
            }
        }
        Ok(())
    }

    /// `null`, into a zero-sized type (nothing to write).
    pub(crate) fn decode_unit(&mut self, layout: &'static TypeLayout) -> Result<(), Error> {
        self.parse_unit(layout.expecting)
    }

    /// `null`, as serde_json reads a `()`: any other value is an invalid type
    /// naming `expected`.
    pub(crate) fn parse_unit(&mut self, expected: &'static str) -> Result<(), Error> {
        if self.peek_value()? != b'n' {
            return Err(self.invalid_type(expected));
        }
        self.pos =
            text::parse_ident(self.input, self.pos + 1, b"ull").map_err(|e| self.lex_error(e))?;
        Ok(())
    }

    /// A value of the source type, converted. A refused conversion is an
    /// `InvalidValue` error with the conversion's message, at the value.
    ///
    /// # Safety
    /// `dst` is valid for a write of the converted type.
    pub(crate) unsafe fn decode_convert(
        &mut self,
        convert: &ConvertLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        // SAFETY: forwarded from the caller.
        unsafe { self.decode_convert_as(convert, dst, false) }
    }

    /// [`decode_convert`](Self::decode_convert), the source read as a map key
    /// (`NonZeroU32` keys: the key text as a `u32`, then converted) when `key`.
    ///
    /// # Safety
    /// As for [`decode_convert`](Self::decode_convert).
    pub(crate) unsafe fn decode_convert_as(
        &mut self,
        convert: &ConvertLayout,
        dst: *mut u8,
        key: bool,
    ) -> Result<(), Error> {
        let start = text::skip_ws(self.input, self.pos);
        let mut message: Option<Box<str>> = None;
        let message_ptr = &raw mut message;
        // SAFETY: `convert` hands the callback a slot for the source type, which
        // `from` describes; `dst` as the caller guarantees.
        let r = unsafe {
            self.decode_through_as(convert.from.get(), key, |decode, ctx| {
                (convert.convert)(dst, decode, ctx, message_ptr)
            })
        };
        match (r, message) {
            (Ok(()), _) => Ok(()),
            (Err(_), Some(text)) => Err(self.error(ErrorCode::Conversion(text), start)),
            (Err(e), None) => Err(e),
        }
    }

    /// Any valid JSON value, handed as text to the field's serde deserializer
    /// (with `key`, a map's key at its opening quote, which the deserializer
    /// reads as serde_json reads keys). A refusal is an `InvalidValue` error
    /// with serde's message, at the value.
    ///
    /// # Safety
    /// `dst` is valid for a write of the field's type.
    pub(crate) unsafe fn decode_serde(
        &mut self,
        serde: &SerdeLayout,
        key: bool,
        dst: *mut u8,
    ) -> Result<(), Error> {
        self.peek_value()?;
        let start = self.pos;
        // serde parses the whole value: its numbers and its depth count. A raw
        // value's text is only validated, as serde_json captures a `RawValue`
        // (`1e400` is kept as it is) and jitson its own.
        if serde.raw {
            self.ignore_value()?;
        } else {
            self.ignore_value_as_parsed()?;
        }
        let text = &self.input[start..self.pos];
        let mut message: Option<Box<str>> = None;
        // SAFETY: the text is one validated value, UTF-8 (strings were checked and
        // anything else outside strings is ASCII), alive for the call; `dst` as
        // the caller guarantees.
        if unsafe { (serde.decode)(dst, text.as_ptr(), text.len(), key, &raw mut message) } {
            return Ok(());
        }
        Err(match message {
            Some(text) if &*text == jitson_core::layout::DEPTH_LIMIT_MESSAGE => {
                self.error(ErrorCode::DepthLimitExceeded, start)
            }
            Some(text) if &*text == jitson_core::layout::VALUE_DEPTH_LIMIT_MESSAGE => {
                self.error(ErrorCode::ValueTooDeep, start)
            }
            Some(text) => self.error(ErrorCode::Conversion(text), start),
            None => self.error(ErrorCode::Panicked, start),
        })
    }
}

// ---------------------------------------------------------------------------
// Encoding

impl crate::encode::Emitter<'_> {
    /// A newtype struct or a `transparent` one: its field.
    ///
    /// # Safety
    /// `src` points to a value of the newtype.
    pub(crate) unsafe fn encode_newtype(
        &mut self,
        newtype: &NewtypeLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        // SAFETY: the field lies at its offset.
        unsafe { self.encode_value(newtype.inner.get(), src.add(newtype.offset)) }
    }

    /// `()`, unit structs and `IgnoredAny`: `null`.
    pub(crate) fn encode_unit(&mut self) -> Result<(), Error> {
        jitson_core::write::append(self.out, b"null");
        Ok(())
    }

    /// A value written as another (`into`, sets, cells, addresses).
    ///
    /// # Safety
    /// `src` points to a value of the layout's type.
    pub(crate) unsafe fn encode_convert(
        &mut self,
        layout: &'static TypeLayout,
        convert: &ConvertLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        let Some(into) = convert.into else {
            return Err(self.not_encodable(layout));
        };
        // SAFETY: `into` calls back with a live value of the target's layout.
        unsafe {
            self.encode_through(convert.from.get(), |encode, ctx, message| {
                into(src, encode, ctx, message)
            })
        }
    }

    /// A value written by serde (`serialize_with`, `with`, `#[jitson(serde)]`,
    /// `serde_json::Value`): serde_json's compact text, re-laid out when pretty.
    ///
    /// # Safety
    /// `src` points to a value of the layout's type.
    pub(crate) unsafe fn encode_serde(
        &mut self,
        layout: &'static TypeLayout,
        serde: &SerdeLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        let Some(serialize) = serde.encode else {
            return Err(self.not_encodable(layout));
        };
        // serde_json writes compact text with only JSON's escapes: anything
        // else the options ask for is applied to a copy of it.
        if self.pretty || !self.escape.is_json() {
            let mut text = Vec::new();
            // SAFETY: as the caller guarantees.
            unsafe { run_serializer(serialize, src, std::ptr::null_mut(), &mut text) }?;
            let pretty = (self.pretty && !serde.raw).then_some((self.level, self.unit));
            jitson_core::write::write_from_compact(self.out, &text, pretty, self.escape);
            Ok(())
        } else {
            // SAFETY: as the caller guarantees.
            unsafe { run_serializer(serialize, src, std::ptr::null_mut(), self.out) }
        }
    }

    /// A flattened field written by serde (`with`, `serialize_with`): the
    /// members its serializer writes under serde's flattening serializer,
    /// written into the enclosing object (maps and structs give members,
    /// anything else is refused in serde's words: `jitson_core::serde_flatten`).
    ///
    /// # Safety
    /// `src` points to a value of the field's type.
    pub(crate) unsafe fn encode_flattened_serde(
        &mut self,
        layout: &'static TypeLayout,
        serde: &SerdeLayout,
        src: *const u8,
        first: &mut bool,
    ) -> Result<(), Error> {
        let refuse = |shape: &str| {
            let text = format!("can only flatten structs and maps (got {shape})");
            crate::encode::encode_error(ErrorCode::Conversion(text.into()))
        };
        // SAFETY: as the caller guarantees.
        unsafe { self.encode_serde_members(layout, serde, src, first, false, refuse) }
    }

    /// The members a serde serializer writes for the value at `src` under
    /// serde's flattening serializer (or, `tagged`, its internally tagged
    /// one), written into the object being written (a flattened field, an
    /// internally tagged variant's content); `refuse` words serde's refusal
    /// of a value that gives no members, given serde's word for it.
    ///
    /// # Safety
    /// `src` points to a value of the layout's type.
    pub(crate) unsafe fn encode_serde_members(
        &mut self,
        layout: &'static TypeLayout,
        serde: &SerdeLayout,
        src: *const u8,
        first: &mut bool,
        tagged: bool,
        refuse: impl FnOnce(&str) -> Error,
    ) -> Result<(), Error> {
        let Some(serialize) = serde.encode else {
            return Err(self.not_encodable(layout));
        };
        let mut target = SerializeTarget::Members(Flattening {
            tagged,
            refused: None,
        });
        // In compact output with JSON's escapes, serde_json's text of the
        // members' object (`{`, `"key":value` members separated by `,`, `}`)
        // holds the bytes this writer would write for them (serde_json's
        // escapes are JSON's): written in place, its `{` turned into the comma
        // before them (or dropped) and its `}` cut.
        let in_place = !self.pretty && self.escape.is_json();
        let mut compact = Vec::new();
        let out = if in_place {
            &mut *self.out
        } else {
            &mut compact
        };
        let at = out.len();
        // SAFETY: as the caller guarantees.
        if let Err(e) = unsafe { run_serializer(serialize, src, &mut target, out) } {
            out.truncate(at);
            return Err(match target {
                SerializeTarget::Members(Flattening {
                    refused: Some(what),
                    ..
                }) => refuse(what),
                _ => e,
            });
        }
        if in_place {
            // Every flattening serializer writes one object (serde_flatten's
            // `flatten_into`, or a map written directly).
            debug_assert!(self.out[at] == b'{' && self.out.last() == Some(&b'}'));
            let end = self.out.len() - 1;
            if end == at + 1 {
                self.out.truncate(at);
            } else if *first {
                self.out.copy_within(at + 1..end, at);
                self.out.truncate(end - 1);
                *first = false;
            } else {
                self.out[at] = b',';
                self.out.truncate(end);
            }
            return Ok(());
        }
        // Each member re-written through this writer (pretty, or other escapes).
        let mut scratch = Vec::new();
        let mut pos = 1;
        while compact.get(pos) == Some(&b'"') {
            let lexed = text::parse_str(&compact, pos + 1, &mut scratch, false).and_then(
                |(key, key_end)| {
                    let key = String::from_utf8_lossy(key.bytes(&compact, &scratch)).into_owned();
                    let end = text::ignore_value(&compact, key_end + 1, false)?;
                    Ok((key, key_end + 1, end))
                },
            );
            let Ok((key, value_start, value_end)) = lexed else {
                return Err(invalid_json());
            };
            self.member(*first, &key);
            *first = false;
            let pretty = self.pretty.then_some((self.level, self.unit));
            let value = &compact[value_start..value_end];
            jitson_core::write::write_from_compact(self.out, value, pretty, self.escape);
            pos = value_end + usize::from(compact.get(value_end) == Some(&b','));
        }
        Ok(())
    }
}

/// What a serializer that wrote something other than one JSON value gets.
#[cold]
fn invalid_json() -> Error {
    let text = "a serializer wrote invalid JSON";
    crate::encode::encode_error(ErrorCode::Conversion(text.into()))
}

/// Runs a layout's serde serializer on the value at `src`, appending
/// serde_json's compact text to `out` (with `target`, the text of the
/// serializer it names: one object of members, or one string for a map key);
/// its refusal is a `Conversion` error with its message (serde_json's words
/// for a refused map key give that error's code), a caught panic
/// `Panicked`.
///
/// # Safety
/// `src` points to a value of the type `serialize` serializes.
pub(crate) unsafe fn run_serializer(
    serialize: jitson_core::layout::SerializeFn,
    src: *const u8,
    target: *mut SerializeTarget,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let mut message = None;
    // SAFETY: as the caller guarantees; `out` and `message` are live, and
    // `target` is null or live.
    if unsafe { serialize(src, out, target, &raw mut message) } {
        return Ok(());
    }
    let code = match message {
        None => ErrorCode::Panicked,
        Some(text) if *text == *KEY_MUST_BE_A_STRING => ErrorCode::KeyMustBeAString,
        Some(text) if *text == *FLOAT_KEY_MUST_BE_FINITE => ErrorCode::FloatKeyMustBeFinite,
        Some(text) => ErrorCode::Conversion(text),
    };
    Err(crate::encode::encode_error(code))
}
