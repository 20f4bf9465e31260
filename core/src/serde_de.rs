//! jitson's own serde [`Deserializer`](serde::Deserializer) for a field decoded
//! by its serde impl (`deserialize_with`, hand-written impls, types without
//! jitson's traits): [`TextDeserializer`].
//!
//! The field's text has already been validated by the backend (every token,
//! string and bracket; a syntax error never reaches serde), so this reader only
//! walks it. It answers the common requests itself, with jitson's scanners:
//! containers, strings (borrowed when they have no escape, unescaped into a
//! scratch buffer otherwise), integers that fit `u64` / `i64`, literals,
//! options, newtypes, enums, and values serde ignores. Everything else is
//! *delegated*: the one value at the cursor (a float, a string jitson's
//! unescaping refuses, a 128-bit integer, bytes, a raw value, and every
//! request that is an error,
//! such as a string where a number is asked) is handed to serde_json's own
//! deserializer over exactly that value's text, so its result, and its error
//! message, are serde_json's by construction. Delegated values hold no container
//! (an error for a container only peeks at it; a raw value is ignored with no
//! depth limit), so serde_json's recursion limit is counted here, as its
//! `check_recursion!` counts it, for the containers this reader enters.
//!
//! What is answered natively is what serde_json 1.0.154 answers with the same
//! visitor call (`de.rs`: `deserialize_any`, `deserialize_number`,
//! `deserialize_option`, `SeqAccess`, `MapAccess`, `MapKey`, `VariantAccess`,
//! `UnitVariantAccess`); the module's tests compare every request with
//! serde_json on generated documents, values and messages.
//!
//! Errors are `serde_json::Error`s: raised here (`Error::custom` with
//! serde_json's words), by a visitor, or by the delegated serde_json. Their
//! positions are dropped by the caller ([`decode_with_serde`]), which places
//! the error at the field.
//!
//! [`decode_with_serde`]: crate::serde_bridge::decode_with_serde

use core::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Unexpected, Visitor};

use crate::layout::KEY_MUST_BE_A_STRING;
use crate::text;

type Error = serde_json::Error;
type Result<T> = core::result::Result<T, Error>;

/// serde_json's deserializer over one delegated value's text.
type Delegate<'de> = serde_json::Deserializer<serde_json::de::StrRead<'de>>;

/// serde_json's recursion limit: the 128th container open at once is refused.
const RECURSION_LIMIT: u8 = 128;

/// serde_json's `ErrorCode` texts for the errors raised here.
const TRAILING_CHARACTERS: &str = "trailing characters";
const TRAILING_COMMA: &str = "trailing comma";
const EXPECTED_LIST_COMMA_OR_END: &str = "expected `,` or `]`";
const EXPECTED_OBJECT_COMMA_OR_END: &str = "expected `,` or `}`";
const EXPECTED_VALUE: &str = "expected value";
const EXPECTED_COLON: &str = "expected `:`";
const EOF_WHILE_PARSING_OBJECT: &str = "EOF while parsing an object";
const RECURSION_LIMIT_EXCEEDED: &str = "recursion limit exceeded";

/// A serde deserializer over the validated JSON text of one value.
pub struct TextDeserializer<'de> {
    text: &'de str,
    pos: usize,
    /// serde_json's `remaining_depth`.
    remaining_depth: u8,
    /// The unescaped text of the last string with escapes.
    scratch: Vec<u8>,
}

impl<'de> TextDeserializer<'de> {
    /// A deserializer over `text`, which must be one valid JSON value
    /// (whitespace around it allowed); a backend validates it first.
    ///
    /// serde_json's `arbitrary_precision` needs nothing here: with it too,
    /// serde_json visits an integer that fits `u64` / `i64` as one (only
    /// `-0` differs, and it is delegated, as every other number is).
    pub fn new(text: &'de str) -> TextDeserializer<'de> {
        TextDeserializer {
            text,
            pos: 0,
            remaining_depth: RECURSION_LIMIT,
            scratch: Vec::new(),
        }
    }

    /// Whether only whitespace follows the value (serde_json's `end`).
    pub fn end(&mut self) -> Result<()> {
        if self.peek().is_some() {
            return Err(de::Error::custom(TRAILING_CHARACTERS));
        }
        Ok(())
    }

    fn bytes(&self) -> &'de [u8] {
        self.text.as_bytes()
    }

    /// The next byte after whitespace, the cursor moved to it.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        self.pos = text::skip_ws(self.bytes(), self.pos);
        self.bytes().get(self.pos).copied()
    }

    /// The value at the cursor, given to serde_json's deserializer over
    /// exactly its text by `f`; the cursor moves past it.
    #[cold]
    fn delegate<T>(&mut self, f: impl FnOnce(&mut Delegate<'de>) -> Result<T>) -> Result<T> {
        self.delegate_to(None, f)
    }

    /// [`delegate`](Self::delegate) of the text from the cursor to `end`
    /// when given (what serde_json reads of a value that it may leave
    /// unfinished), else to the value's end.
    #[cold]
    fn delegate_to<T>(
        &mut self,
        end: Option<usize>,
        f: impl FnOnce(&mut Delegate<'de>) -> Result<T>,
    ) -> Result<T> {
        let len = self.text.len();
        let start = text::skip_ws(self.bytes(), self.pos).min(len);
        // Validated text: the value ends; were it not, serde_json says why.
        let end =
            end.unwrap_or_else(|| text::ignore_value(self.bytes(), start, false).unwrap_or(len));
        self.pos = end;
        f(&mut serde_json::Deserializer::from_str(
            self.text.get(start..end).unwrap_or(""),
        ))
    }

    /// Where serde_json's 128-bit integer read stops when a number is at the
    /// cursor: after an optional `-` and the integer digits (a fraction or an
    /// exponent is left for what follows to refuse); `None` for any other value.
    fn integer_end(&mut self) -> Option<usize> {
        let at = match self.peek()? {
            b'-' => self.pos + 1,
            b'0'..=b'9' => self.pos,
            _ => return None,
        };
        match self.bytes().get(at) {
            Some(b'0') => Some(at + 1),
            Some(b'1'..=b'9') => Some(text::digits_end(self.bytes(), at)),
            _ => None,
        }
    }

    /// The string whose opening quote is at the cursor, if it has no escape:
    /// its contents; the cursor moves past it. `None` leaves the cursor.
    #[inline]
    fn plain_str(&mut self) -> Option<&'de str> {
        let start = self.pos + 1;
        let (special, _) = text::scan_plain(self.bytes(), start);
        if self.bytes().get(special) != Some(&b'"') {
            return None;
        }
        self.pos = special + 1;
        // Validated UTF-8 between two quotes (ASCII, so char boundaries).
        self.text.get(start..special)
    }

    /// A string with escapes, its opening quote at the cursor, unescaped into
    /// `scratch` as jitson's string fields read it (serde_json's result: the
    /// conformance suites hold them to it): the cursor moves past it. `None`
    /// for an escape jitson refuses (a lone surrogate), which is then
    /// delegated, so the error is serde_json's.
    fn unescape(&mut self) -> Option<&str> {
        // Room for the rest of the value's text at once (the string's
        // unescaped text is shorter than what is left of it), not a
        // reallocation per run between escapes; kept for the next string.
        self.scratch.reserve(self.text.len() - self.pos);
        let (text::StrText::Scratch, end) =
            text::parse_str(self.bytes(), self.pos + 1, &mut self.scratch, false).ok()?
        else {
            return None;
        };
        // Validated text between the escapes, and the escapes' own
        // characters: UTF-8, checked again as it is cheap beside a copy.
        let s = core::str::from_utf8(&self.scratch).ok()?;
        self.pos = end;
        Some(s)
    }

    /// The string at the cursor (its opening quote there) visited as
    /// serde_json visits it: borrowed when it has no escape, as a transient
    /// `&str` otherwise; `None` (the cursor left) when it is to be delegated.
    #[inline]
    fn visit_string<V: Visitor<'de>>(
        &mut self,
        visitor: V,
    ) -> core::result::Result<Result<V::Value>, V> {
        if let Some(s) = self.plain_str() {
            return Ok(visitor.visit_borrowed_str(s));
        }
        match self.unescape() {
            Some(s) => Ok(visitor.visit_str(s)),
            None => Err(visitor),
        }
    }

    /// The number at the cursor if serde_json reads it as an integer (it
    /// fits `u64`, or `i64` when negative, and is not `-0`): visited as
    /// `u64` or `i64`, the cursor moved past it. Otherwise the value is
    /// delegated to `otherwise`.
    #[inline]
    fn integer_or<V: Visitor<'de>>(
        &mut self,
        visitor: V,
        otherwise: impl FnOnce(&mut Delegate<'de>, V) -> Result<V::Value>,
    ) -> Result<V::Value> {
        match text::scan_number_inline(self.bytes(), self.pos) {
            Ok(n) if n.is_json_integer() => {
                self.pos = n.end;
                if n.negative {
                    // `is_json_integer`: `-mantissa` fits `i64`.
                    visitor.visit_i64(n.integer() as i64)
                } else {
                    visitor.visit_u64(n.mantissa)
                }
            }
            _ => self.delegate(|de| otherwise(de, visitor)),
        }
    }

    /// The `:` after a key (serde_json's `parse_object_colon`): only missing
    /// where a visitor asks for a value without its key, or twice.
    fn colon(&mut self) -> Result<()> {
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(de::Error::custom(EXPECTED_COLON)),
            None => Err(de::Error::custom(EOF_WHILE_PARSING_OBJECT)),
        }
    }

    /// `null`, `true` or `false` at the cursor (validated): moves past it.
    fn literal(&mut self, len: usize) {
        self.pos += len;
    }

    /// serde_json's `check_recursion!` around `body`, which opens a container.
    #[inline]
    fn nested<T>(&mut self, body: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.remaining_depth -= 1;
        if self.remaining_depth == 0 {
            return Err(de::Error::custom(RECURSION_LIMIT_EXCEEDED));
        }
        let result = body(self);
        self.remaining_depth += 1;
        result
    }

    /// `[` at the cursor: the elements to `visitor`, then serde_json's
    /// `end_seq` (elements the visitor left are trailing characters).
    fn seq<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.nested(|de| {
            de.pos += 1;
            let value = visitor.visit_seq(SeqAccess { de, first: true })?;
            match de.peek() {
                Some(b']') => {
                    de.pos += 1;
                    Ok(value)
                }
                _ => Err(de::Error::custom(TRAILING_CHARACTERS)),
            }
        })
    }

    /// `{` at the cursor: the members to `visitor`, then serde_json's
    /// `end_map` (a `,` after the members the visitor read is a trailing
    /// comma there, whatever follows it).
    fn map<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.nested(|de| {
            de.pos += 1;
            let value = visitor.visit_map(MapAccess { de, first: true })?;
            match de.peek() {
                Some(b'}') => {
                    de.pos += 1;
                    Ok(value)
                }
                Some(b',') => Err(de::Error::custom(TRAILING_COMMA)),
                _ => Err(de::Error::custom(TRAILING_CHARACTERS)),
            }
        })
    }
}

/// Requests answered by one method of the same signature:
/// `requests_as! { method: deserialize_i8 deserialize_u8 ... }` defines each
/// named request as `self.method(visitor)`.
macro_rules! requests_as {
    ($method:ident: $($name:ident)*) => {
        $(
            fn $name<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
                self.$method(visitor)
            }
        )*
    };
}

/// Each method: the cases serde_json answers without an error and that
/// this reader can, natively; the rest delegated to the same method of
/// serde_json's deserializer.
impl<'de> de::Deserializer<'de> for &mut TextDeserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'n') => {
                self.literal(4);
                visitor.visit_unit()
            }
            Some(b't') => {
                self.literal(4);
                visitor.visit_bool(true)
            }
            Some(b'f') => {
                self.literal(5);
                visitor.visit_bool(false)
            }
            Some(b'"') => match self.visit_string(visitor) {
                Ok(visited) => visited,
                Err(visitor) => self.delegate(|de| de.deserialize_any(visitor)),
            },
            Some(b'[') => self.seq(visitor),
            Some(b'{') => self.map(visitor),
            _ => self.integer_or(visitor, |de, v| de.deserialize_any(v)),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b't') => {
                self.literal(4);
                visitor.visit_bool(true)
            }
            Some(b'f') => {
                self.literal(5);
                visitor.visit_bool(false)
            }
            _ => self.delegate(|de| de.deserialize_bool(visitor)),
        }
    }

    requests_as! {
        deserialize_i64: deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_f64
    }

    /// serde_json reads every number type but the 128-bit ones and `f32`
    /// (under `float_roundtrip`) through one `deserialize_number`, so one
    /// delegate serves them all.
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => self.integer_or(visitor, |de, v| de.deserialize_i64(v)),
            _ => self.delegate(|de| de.deserialize_i64(visitor)),
        }
    }

    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let end = self.integer_end();
        self.delegate_to(end, |de| de.deserialize_i128(visitor))
    }
    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let end = self.integer_end();
        self.delegate_to(end, |de| de.deserialize_u128(visitor))
    }
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.delegate(|de| de.deserialize_f32(visitor))
    }
    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.peek() != Some(b'"') {
            return self.delegate(|de| de.deserialize_str(visitor));
        }
        match self.visit_string(visitor) {
            Ok(visited) => visited,
            Err(visitor) => self.delegate(|de| de.deserialize_str(visitor)),
        }
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'[') => self.seq(visitor),
            _ => self.delegate(|de| de.deserialize_bytes(visitor)),
        }
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.peek() == Some(b'n') {
            self.literal(4);
            return visitor.visit_none();
        }
        visitor.visit_some(self)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.peek() == Some(b'n') {
            self.literal(4);
            return visitor.visit_unit();
        }
        self.delegate(|de| de.deserialize_unit(visitor))
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    /// serde_json's `RawValue` asks for its newtype by a private name: the
    /// value's text, which serde_json gives.
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name.starts_with("$serde_json::") {
            return self.delegate(|de| de.deserialize_newtype_struct(name, visitor));
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'[') => self.seq(visitor),
            _ => self.delegate(|de| de.deserialize_seq(visitor)),
        }
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'{') => self.map(visitor),
            _ => self.delegate(|de| de.deserialize_map(visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.peek() {
            Some(b'{') => self.map(visitor),
            Some(b'[') => self.seq(visitor),
            _ => self.delegate(|de| de.deserialize_struct(name, fields, visitor)),
        }
    }

    /// As serde_json: a string is a unit variant, `{"variant": value}` any
    /// variant, anything else "expected value" (not an invalid type).
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.peek() {
            Some(b'{') => self.nested(|de| {
                de.pos += 1;
                let value = visitor.visit_enum(VariantAccess { de: &mut *de })?;
                match de.peek() {
                    Some(b'}') => {
                        de.pos += 1;
                        Ok(value)
                    }
                    _ => Err(de::Error::custom(EXPECTED_VALUE)),
                }
            }),
            Some(b'"') => visitor.visit_enum(UnitVariantAccess { de: self }),
            _ => self.delegate(|de| de.deserialize_enum(name, variants, visitor)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let start = text::skip_ws(self.bytes(), self.pos);
        match text::ignore_value(self.bytes(), start, false) {
            Ok(end) => {
                self.pos = end;
                visitor.visit_unit()
            }
            Err(_) => self.delegate(|de| de.deserialize_ignored_any(visitor)),
        }
    }
}

/// The elements of an array (serde_json's `SeqAccess`; the text is valid, so
/// a `,` is always followed by an element).
struct SeqAccess<'a, 'de> {
    de: &'a mut TextDeserializer<'de>,
    first: bool,
}

impl<'de> de::SeqAccess<'de> for SeqAccess<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.de.peek() {
            Some(b']') | None => return Ok(None),
            Some(b',') if !self.first => self.de.pos += 1,
            // What a 128-bit integer read left (`1.5`).
            _ if !self.first => return Err(de::Error::custom(EXPECTED_LIST_COMMA_OR_END)),
            _ => {}
        }
        self.first = false;
        seed.deserialize(&mut *self.de).map(Some)
    }
}

/// The members of an object (serde_json's `MapAccess`).
struct MapAccess<'a, 'de> {
    de: &'a mut TextDeserializer<'de>,
    first: bool,
}

impl<'de> de::MapAccess<'de> for MapAccess<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.de.peek() {
            Some(b'}') | None => return Ok(None),
            Some(b',') if !self.first => {
                self.de.pos += 1;
                self.de.peek();
            }
            // What a 128-bit integer read left (`1.5`).
            _ if !self.first => return Err(de::Error::custom(EXPECTED_OBJECT_COMMA_OR_END)),
            _ => {}
        }
        self.first = false;
        seed.deserialize(MapKey { de: &mut *self.de }).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.de.colon()?;
        seed.deserialize(&mut *self.de)
    }
}

/// A member's key, at its opening quote (serde_json's `MapKey`): a string
/// for every request but numbers and `bool`, which serde_json reads from
/// inside the quotes.
struct MapKey<'a, 'de> {
    de: &'a mut TextDeserializer<'de>,
}

impl<'de> MapKey<'_, 'de> {
    /// A key asked for as an integer of up to 64 bits or an `f64` (one
    /// `deserialize_number` in serde_json): an integer that fits, with the
    /// closing quote right after it, natively; anything else as serde_json
    /// reads it ([`replay_key`]).
    fn number_key<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let de = self.de;
        if let Ok(n) = text::scan_number(de.bytes(), de.pos + 1)
            && n.is_json_integer()
            && de.bytes().get(n.end) == Some(&b'"')
        {
            de.pos = n.end + 1;
            return if n.negative {
                // `is_json_integer`: `-mantissa` fits `i64`.
                visitor.visit_i64(n.integer() as i64)
            } else {
                visitor.visit_u64(n.mantissa)
            };
        }
        replay_key(de, KeyAsk::Number, visitor)
    }
}

impl<'de> de::Deserializer<'de> for MapKey<'_, 'de> {
    type Error = Error;

    /// Every request serde_json's `MapKey` forwards here: the key as a string.
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.de.visit_string(visitor) {
            Ok(visited) => visited,
            Err(visitor) => self.de.delegate(|de| de.deserialize_any(visitor)),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let de = self.de;
        let rest = &de.bytes()[de.pos..];
        if rest.starts_with(b"\"true\"") {
            de.pos += 6;
            return visitor.visit_bool(true);
        }
        if rest.starts_with(b"\"false\"") {
            de.pos += 7;
            return visitor.visit_bool(false);
        }
        replay_key(de, KeyAsk::Bool, visitor)
    }

    requests_as! {
        number_key: deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_f64
    }
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        replay_key(self.de, KeyAsk::F32, visitor)
    }
    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        replay_key(self.de, KeyAsk::I128, visitor)
    }
    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        replay_key(self.de, KeyAsk::U128, visitor)
    }

    /// Keys cannot be null.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name.starts_with("$serde_json::") {
            return self
                .de
                .delegate(|de| de.deserialize_newtype_struct(name, visitor));
        }
        visitor.visit_newtype_struct(self)
    }

    /// serde_json reads these from the key's string as it reads a value.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_enum(self.de, name, variants, visitor)
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.de.delegate(|de| de.deserialize_bytes(visitor))
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.de.delegate(|de| de.deserialize_bytes(visitor))
    }

    serde::forward_to_deserialize_any! {
        char str string unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

/// What a field's serde deserializer runs on: the value at the cursor of a
/// [`TextDeserializer`], or, when the field is a map's key (a key type with
/// `deserialize_with`, or one `#[jitson(serde)]` routes), the key at its
/// opening quote, read as serde_json's `MapKey` reads it (numbers and `bool`
/// from inside the quotes, `Option` as `Some`, a newtype as what it holds).
/// The argument of [`decode_with_serde`]'s deserialize closure.
///
/// [`decode_with_serde`]: crate::serde_bridge::decode_with_serde
pub enum FieldDeserializer<'a, 'de> {
    /// A JSON value.
    Value(&'a mut TextDeserializer<'de>),
    /// A map key: the text is one JSON string.
    Key(&'a mut TextDeserializer<'de>),
}

impl<'a, 'de> FieldDeserializer<'a, 'de> {
    /// The deserializer `text` is read with, for a map key or a value.
    pub fn new(de: &'a mut TextDeserializer<'de>, key: bool) -> Self {
        if key {
            FieldDeserializer::Key(de)
        } else {
            FieldDeserializer::Value(de)
        }
    }
}

/// Each request, to the value's deserializer or to the key's.
macro_rules! field_requests {
    ($($name:ident($($arg:ident: $ty:ty),*))*) => {
        $(
            fn $name<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value> {
                match self {
                    FieldDeserializer::Value(de) => de.$name($($arg,)* visitor),
                    FieldDeserializer::Key(de) => MapKey { de }.$name($($arg,)* visitor),
                }
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for FieldDeserializer<'_, 'de> {
    type Error = Error;

    field_requests! {
        deserialize_any() deserialize_bool() deserialize_i8() deserialize_i16()
        deserialize_i32() deserialize_i64() deserialize_i128() deserialize_u8()
        deserialize_u16() deserialize_u32() deserialize_u64() deserialize_u128()
        deserialize_f32() deserialize_f64() deserialize_char() deserialize_str()
        deserialize_string() deserialize_bytes() deserialize_byte_buf()
        deserialize_option() deserialize_unit() deserialize_unit_struct(name: &'static str)
        deserialize_newtype_struct(name: &'static str) deserialize_seq()
        deserialize_tuple(len: usize) deserialize_tuple_struct(name: &'static str, len: usize)
        deserialize_map()
        deserialize_struct(name: &'static str, fields: &'static [&'static str])
        deserialize_enum(name: &'static str, variants: &'static [&'static str])
        deserialize_identifier() deserialize_ignored_any()
    }
}

/// Which request a replayed key answers.
#[derive(Clone, Copy)]
enum KeyAsk {
    Bool,
    /// Every integer type of up to 64 bits and `f64`: serde_json's
    /// `deserialize_number`.
    Number,
    F32,
    I128,
    U128,
}

/// A key at the cursor that serde_json reads in a way this reader does not
/// (a float, an escape, a key that is not a number where one is asked):
/// serde_json's own `MapKey` runs over a copy of the key, as the one key of
/// an object (`{KEY:0}`), and each primitive it visits is handed on to
/// `visitor`, so values, errors and their order are serde_json's.
#[cold]
fn replay_key<'de, V: Visitor<'de>>(
    de: &mut TextDeserializer<'de>,
    ask: KeyAsk,
    visitor: V,
) -> Result<V::Value> {
    let start = de.pos;
    let end = text::ignore_value(de.bytes(), start, false).unwrap_or(de.text.len());
    de.pos = end;
    let key = de.text.get(start..end).unwrap_or("");
    let object = if matches!(ask, KeyAsk::Bool) {
        // A `bool` key that is not `"true"` or `"false"` (those are read
        // natively) is always refused, and serde_json reads the string it
        // refuses from the key's second byte: for `""` past the closing
        // quote, for `"\\"` past an escaped one. So the key is replayed with
        // the rest of the value's text after it (beyond the value, serde_json
        // may read on into the document: docs/semantics.md, difference 22).
        format!("{{{}", de.text.get(start..).unwrap_or(""))
    } else {
        format!("{{{key}:0}}")
    };
    let mut json = serde_json::Deserializer::from_str(&object);
    de::Deserializer::deserialize_map(
        &mut json,
        FirstKey {
            ask,
            visitor,
            de: PhantomData,
        },
    )
}

/// [`replay_key`]'s visitor of the object: its key, asked for as `ask`.
struct FirstKey<'de, V> {
    ask: KeyAsk,
    visitor: V,
    de: PhantomData<&'de ()>,
}

impl<'x, 'de, V: Visitor<'de>> Visitor<'x> for FirstKey<'de, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_map<A: de::MapAccess<'x>>(
        self,
        mut map: A,
    ) -> core::result::Result<V::Value, A::Error> {
        let seed = KeySeed {
            ask: self.ask,
            visitor: self.visitor,
            de: PhantomData,
        };
        let key = map
            .next_key_seed(seed)?
            .ok_or_else(|| de::Error::custom("the replayed object has its key"))?;
        // The `0` after it, so that the object ends where serde_json expects.
        map.next_value::<de::IgnoredAny>()?;
        Ok(key)
    }
}

/// [`FirstKey`]'s seed: the key asked for as serde_json's caller asked.
struct KeySeed<'de, V> {
    ask: KeyAsk,
    visitor: V,
    de: PhantomData<&'de ()>,
}

impl<'x, 'de, V: Visitor<'de>> DeserializeSeed<'x> for KeySeed<'de, V> {
    type Value = V::Value;

    fn deserialize<D: de::Deserializer<'x>>(
        self,
        key: D,
    ) -> core::result::Result<V::Value, D::Error> {
        let replay = Replay(self.visitor, PhantomData);
        match self.ask {
            KeyAsk::Bool => key.deserialize_bool(replay),
            KeyAsk::Number => key.deserialize_i64(replay),
            KeyAsk::F32 => key.deserialize_f32(replay),
            KeyAsk::I128 => key.deserialize_i128(replay),
            KeyAsk::U128 => key.deserialize_u128(replay),
        }
    }
}

/// Hands each primitive serde_json's `MapKey` visits for a number or a
/// `bool` on to the caller's visitor (these borrow nothing from the copy).
struct Replay<'de, V>(V, PhantomData<&'de ()>);

impl<'x, 'de, V: Visitor<'de>> Visitor<'x> for Replay<'de, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.0.expecting(f)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> core::result::Result<V::Value, E> {
        self.0.visit_bool(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> core::result::Result<V::Value, E> {
        self.0.visit_i64(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> core::result::Result<V::Value, E> {
        self.0.visit_u64(v)
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> core::result::Result<V::Value, E> {
        self.0.visit_i128(v)
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> core::result::Result<V::Value, E> {
        self.0.visit_u128(v)
    }
    fn visit_f32<E: de::Error>(self, v: f32) -> core::result::Result<V::Value, E> {
        self.0.visit_f32(v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> core::result::Result<V::Value, E> {
        self.0.visit_f64(v)
    }
}

/// `{"variant": value}` after its `{` (serde_json's `VariantAccess`).
struct VariantAccess<'a, 'de> {
    de: &'a mut TextDeserializer<'de>,
}

impl<'de> de::EnumAccess<'de> for VariantAccess<'_, 'de> {
    type Error = Error;
    type Variant = Self;

    /// The variant's name is read as a map key is (serde_json's `MapKey`:
    /// a number asked for from inside the quotes).
    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self)> {
        match self.de.peek() {
            Some(b'"') => {}
            Some(b'}') => return Err(de::Error::custom(EXPECTED_VALUE)),
            _ => return Err(de::Error::custom(KEY_MUST_BE_A_STRING)),
        }
        let variant = seed.deserialize(MapKey { de: &mut *self.de })?;
        self.de.colon()?;
        Ok((variant, self))
    }
}

impl<'de> de::VariantAccess<'de> for VariantAccess<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        de::Deserialize::deserialize(self.de)
    }
    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value> {
        seed.deserialize(self.de)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(self.de, visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(self.de, "", fields, visitor)
    }
}

/// A string naming a variant (serde_json's `UnitVariantAccess`): only a unit
/// variant can be written so.
struct UnitVariantAccess<'a, 'de> {
    de: &'a mut TextDeserializer<'de>,
}

impl<'de> de::EnumAccess<'de> for UnitVariantAccess<'_, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self)> {
        let variant = seed.deserialize(&mut *self.de)?;
        Ok((variant, self))
    }
}

impl<'de> de::VariantAccess<'de> for UnitVariantAccess<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Ok(())
    }
    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, _seed: S) -> Result<S::Value> {
        Err(de::Error::invalid_type(
            Unexpected::UnitVariant,
            &"newtype variant",
        ))
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value> {
        Err(de::Error::invalid_type(
            Unexpected::UnitVariant,
            &"tuple variant",
        ))
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value> {
        Err(de::Error::invalid_type(
            Unexpected::UnitVariant,
            &"struct variant",
        ))
    }
}

#[cfg(test)]
mod tests {
    //! Every request against serde_json's deserializer over the same text:
    //! values (by `Debug`) and error messages (without positions) equal, on
    //! hand-written edges and on generated documents.

    use std::collections::BTreeMap;

    use serde::Deserialize;
    use serde::de::DeserializeOwned;
    use serde_json::value::RawValue;

    use super::TextDeserializer;

    /// serde_json's message without its position, as the bridge reports it.
    fn message(e: &serde_json::Error) -> String {
        crate::serde_bridge::message_of(e)
    }

    /// Decodes `text` as `T` both ways; panics with both results if they differ.
    fn check<T: DeserializeOwned + core::fmt::Debug>(text: &str) {
        let expected = serde_json::from_str::<T>(text).map_err(|e| message(&e));
        let mut de = TextDeserializer::new(text);
        let actual = T::deserialize(&mut de)
            .and_then(|v| de.end().map(|()| v))
            .map_err(|e| message(&e));
        let (expected, actual) = (format!("{expected:?}"), format!("{actual:?}"));
        assert_eq!(
            actual,
            expected,
            "{} from {text:?}",
            core::any::type_name::<T>()
        );
    }

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)] // read by `Debug`
    enum External {
        Unit,
        Newtype(u8),
        Tuple(i32, String),
        Struct { a: Option<u64>, b: Vec<bool> },
    }

    #[derive(Deserialize, Debug)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Untagged {
        Int(i64),
        Text(String),
        Pair(u8, u8),
        Named { a: Option<u64> },
        List(Vec<Untagged>),
    }

    #[derive(Deserialize, Debug)]
    #[serde(tag = "a")]
    #[allow(dead_code)]
    enum Internal {
        One { b: Option<u64> },
        Two,
    }

    #[derive(Deserialize, Debug)]
    #[serde(tag = "a", content = "b")]
    #[allow(dead_code)]
    enum Adjacent {
        One(Vec<i8>),
        Two,
    }

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Fields {
        a: Option<i64>,
        #[serde(default)]
        b: String,
        #[serde(rename = "1")]
        one: Option<Vec<u16>>,
    }

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Strict {
        a: Option<bool>,
        b: Option<char>,
    }

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Flattened {
        a: Option<u32>,
        #[serde(flatten)]
        rest: BTreeMap<String, serde_json::Value>,
    }

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Unit;

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Tuple(u8, Option<String>);

    /// A float key (serde_json reads it from inside the quotes), ordered by bits.
    #[derive(Deserialize, Debug, PartialEq)]
    struct F32Key(f32);
    impl Eq for F32Key {}
    impl PartialOrd for F32Key {
        fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for F32Key {
        fn cmp(&self, other: &Self) -> core::cmp::Ordering {
            self.0.to_bits().cmp(&other.0.to_bits())
        }
    }

    /// Every type of the comparison, on one text, if it is one a backend
    /// hands over: jitson validates what it skips more strictly than
    /// serde_json (no lone surrogate; docs/semantics.md, difference 1).
    fn check_all(text: &str) {
        let end = crate::text::ignore_value(text.as_bytes(), 0, true);
        if end.map(|end| text[end..].trim().is_empty()) != Ok(true) {
            return;
        }
        check::<serde_json::Value>(text);
        check::<serde::de::IgnoredAny>(text);
        check::<Box<RawValue>>(text);
        check::<bool>(text);
        check::<u8>(text);
        check::<i16>(text);
        check::<u64>(text);
        check::<i64>(text);
        check::<i128>(text);
        check::<u128>(text);
        check::<f32>(text);
        check::<f64>(text);
        check::<char>(text);
        check::<String>(text);
        check::<()>(text);
        check::<Unit>(text);
        check::<Option<u32>>(text);
        check::<Option<Vec<Option<u32>>>>(text);
        check::<Vec<u8>>(text);
        check::<(i8, u16, f32)>(text);
        check::<Tuple>(text);
        check::<BTreeMap<String, String>>(text);
        check::<BTreeMap<String, serde_json::Value>>(text);
        check::<BTreeMap<u8, bool>>(text);
        check::<BTreeMap<i64, Option<String>>>(text);
        check::<BTreeMap<bool, u8>>(text);
        check::<BTreeMap<i128, u8>>(text);
        check::<BTreeMap<u128, u8>>(text);
        check::<BTreeMap<F32Key, u8>>(text);
        check::<BTreeMap<char, u8>>(text);
        check::<BTreeMap<Option<u8>, u8>>(text);
        check::<Vec<External>>(text);
        check::<External>(text);
        check::<BTreeMap<String, External>>(text);
        check::<Untagged>(text);
        check::<Internal>(text);
        check::<Adjacent>(text);
        check::<Fields>(text);
        check::<Strict>(text);
        check::<Flattened>(text);
        check::<Vec<Fields>>(text);
    }

    #[test]
    fn edges_read_as_serde_json_reads_them() {
        let texts = [
            "null",
            "true",
            "false",
            "0",
            "-0",
            "7",
            "-7",
            "255",
            "256",
            "-129",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "1.5",
            "-0.0",
            "1e3",
            "2.5e-3",
            "1E400",
            "340282366920938463463374607431768211455",
            r#""""#,
            r#""a""#,
            r#""ab""#,
            r#""é""#,
            r#""\n""#,
            r#""\u00e9""#,
            r#""\ud83d\ude00""#,
            r#""\ud800""#,
            r#""Unit""#,
            r#""Newtype""#,
            r#""Two""#,
            "[]",
            "[1]",
            "[1,2]",
            "[1,2,3]",
            "[1, 2.5, \"x\"]",
            " [ 1 , [ 2 ] , { } ] ",
            "[null]",
            "[[1,2],[3]]",
            "{}",
            r#"{"a":1}"#,
            r#"{"a":1,"b":"x"}"#,
            r#"{"a":null,"b":[true]}"#,
            r#"{"1":true,"2":false}"#,
            r#"{"-3":"x"}"#,
            r#"{"1.5":1}"#,
            r#"{"true":1}"#,
            r#"{"false":2,"true":3}"#,
            r#"{"tru":1}"#,
            r#"{"x":1}"#,
            r#"{"\u0031":1}"#,
            r#"{"01":1}"#,
            r#"{"1 ":1}"#,
            r#"{"-":1}"#,
            r#"{"-0":1}"#,
            r#"{"1e2":1}"#,
            r#"{"300":1}"#,
            r#"{"300x":1}"#,
            r#"{"170141183460469231731687303715884105728":1}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"c":1,"a":2}"#,
            r#"{"Unit":null}"#,
            r#"{"Newtype":3}"#,
            r#"{"Tuple":[1,"x"]}"#,
            r#"{"Tuple":[1]}"#,
            r#"{"Struct":{"a":1,"b":[]}}"#,
            r#"{"Struct":[1,[true]]}"#,
            r#"{"Unit":null,"Newtype":1}"#,
            r#"{"Nope":1}"#,
            r#"{"a":"One","b":2}"#,
            r#"{"a":"One"}"#,
            r#"{"a":"Two"}"#,
            r#"{"b":[1],"a":"One"}"#,
            r#"{"a":"Three"}"#,
            r#"["One",[1,2]]"#,
            r#"{"b":"é","a":false}"#,
            r#"{"b":"ab"}"#,
            r#"{"d":1}"#,
            r#"[1,"x"]"#,
            r#"[{"a":1},{"b":"y","1":[2]}]"#,
            r#"{"a": 5, "z": {"k": [1, {"x": null}]}}"#,
            r#"{"a\"b":1}"#,
            r#"{"x":"ü"}"#,
            "[[[[[[[[[[1]]]]]]]]]]",
            r#"{"":0}"#,
            r#"{"Newtype":"x"}"#,
            r#""Tuple""#,
        ];
        for text in texts {
            check_all(text);
        }
    }

    /// A small deterministic generator (xorshift) of JSON texts: values of
    /// every kind, keys the map types read, escapes and whitespace.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[(self.next() % from.len() as u64) as usize]
        }
        fn value(&mut self, out: &mut String, depth: usize) {
            const SCALARS: &[&str] = &[
                "null",
                "true",
                "false",
                "0",
                "1",
                "-1",
                "255",
                "-129",
                "65536",
                "1.5",
                "-0",
                "-0.0",
                "1e2",
                "18446744073709551616",
                r#""""#,
                r#""a""#,
                r#""One""#,
                r#""Unit""#,
                r#""\n""#,
                r#""\u00e9x""#,
                r#""\ud800""#,
                r#""é""#,
                r#""\u00e9""#,
                r#""\ud83c\udf89""#,
                r#""\udc00""#,
                r#""\ud83c\uffff""#,
                r#""a\"b\\c\/\t""#,
                r#""\u0000""#,
            ];
            const KEYS: &[&str] = &[
                r#""a""#,
                r#""b""#,
                r#""1""#,
                r#""-3""#,
                r#""true""#,
                r#""x""#,
                r#""1.5""#,
                r#""\u0031""#,
                r#""Unit""#,
                r#""Newtype""#,
                r#""Tuple""#,
                r#""Struct""#,
                r#""300""#,
            ];
            let spaces = [" ", "", "", "\n "];
            match self.next() % 6 {
                0 | 1 if depth < 4 => {
                    out.push('[');
                    for i in 0..self.next() % 4 {
                        if i > 0 {
                            out.push(',');
                        }
                        out.push_str(spaces[(self.next() % 4) as usize]);
                        self.value(out, depth + 1);
                    }
                    out.push(']');
                }
                2 if depth < 4 => {
                    out.push('{');
                    for i in 0..self.next() % 4 {
                        if i > 0 {
                            out.push(',');
                        }
                        let key = self.pick(KEYS);
                        out.push_str(key);
                        out.push(':');
                        out.push_str(spaces[(self.next() % 4) as usize]);
                        self.value(out, depth + 1);
                    }
                    out.push('}');
                }
                _ => {
                    let scalar = self.pick(SCALARS);
                    out.push_str(scalar);
                }
            }
        }
    }

    #[test]
    fn generated_documents_read_as_serde_json_reads_them() {
        let mut generator = Gen(0x9E37_79B9_7F4A_7C15);
        for _ in 0..20_000 {
            let mut text = String::new();
            generator.value(&mut text, 0);
            check_all(&text);
        }
    }

    /// An enum read by a hand-written impl that names its variants by index
    /// (`u8`): serde_json reads a variant's name as a map key, from inside
    /// the quotes.
    #[derive(Debug)]
    #[allow(dead_code)] // read by `Debug`
    struct ByIndex(u8, u32);
    impl<'de> Deserialize<'de> for ByIndex {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Visit;
            impl<'de> serde::de::Visitor<'de> for Visit {
                type Value = ByIndex;
                fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    f.write_str("a variant by index")
                }
                fn visit_enum<A: serde::de::EnumAccess<'de>>(
                    self,
                    data: A,
                ) -> Result<ByIndex, A::Error> {
                    use serde::de::VariantAccess;
                    let (index, variant): (u8, _) = data.variant()?;
                    Ok(ByIndex(index, variant.newtype_variant()?))
                }
            }
            d.deserialize_enum("ByIndex", &["0", "1"], Visit)
        }
    }

    /// A map visitor that asks for a value before its key: serde_json's
    /// "expected `:`".
    #[derive(Debug)]
    struct ValueFirst;
    impl<'de> Deserialize<'de> for ValueFirst {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Visit;
            impl<'de> serde::de::Visitor<'de> for Visit {
                type Value = ValueFirst;
                fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    f.write_str("a map")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<ValueFirst, A::Error> {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    Ok(ValueFirst)
                }
            }
            d.deserialize_map(Visit)
        }
    }

    /// Requests that read in a way serde_json's structure gives away: a
    /// variant named by a number, a value asked for before its key, an empty
    /// key read as a `bool` (serde_json reads on past it).
    #[test]
    fn keys_and_variants_read_as_serde_json_reads_them() {
        for text in [
            r#"{"1":5}"#,
            r#"{"256":5}"#,
            r#"{"x":5}"#,
            r#"{"1.5":5}"#,
            r#"{}"#,
            r#""1""#,
            r#"{"1":5,"2":6}"#,
            "7",
        ] {
            check::<ByIndex>(text);
        }
        for text in [r#"{"g":1,"f":{}}"#, r#"{}"#, r#"{"a":1}"#] {
            check::<ValueFirst>(text);
        }
        for text in [
            r#"{"":1,"g":1}"#,
            r#"[{"":1},{"a":"b"}]"#,
            r#"{"":1}"#,
            r#"{"\\":1,"a":2}"#,
            r#"[{"\\\\":1},{"a":"b"}]"#,
            r#"{"x":1}"#,
            r#"{"truex":1}"#,
        ] {
            check::<BTreeMap<bool, u8>>(text);
            check::<Vec<BTreeMap<bool, u8>>>(text);
        }
    }

    /// serde_json's recursion limit, counted over the containers this reader
    /// enters (127 open at once are read, the 128th refused).
    #[test]
    fn the_recursion_limit_is_serde_json_s() {
        for depth in [126, 127, 128, 129, 200] {
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            check::<serde_json::Value>(&text);
            check::<serde::de::IgnoredAny>(&text);
            check::<Box<RawValue>>(&text);
            check::<Untagged>(&text);
        }
    }
}
