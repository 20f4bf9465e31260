//! Unit-only enums. Twin: `jit/src/kind/enum_.rs`.

use jitson_core::error::{Error, ErrorCode};
use jitson_core::layout::{EnumLayout, TypeLayout};
use jitson_core::text;

use crate::Parser;

impl Parser<'_> {
    /// A string naming a variant, or (as serde_json also accepts for unit variants)
    /// an object `{"Variant": null}`.
    ///
    /// # Safety
    /// `dst` is valid for a write of the enum type.
    pub(crate) unsafe fn decode_enum(
        &mut self,
        layout: &'static TypeLayout,
        en: &EnumLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        let index = match self.peek_value()? {
            b'"' => self.parse_variant(en)?,
            b'{' => {
                self.enter(layout)?;
                let r = self.parse_variant_object(en);
                self.leave();
                r?
            }
            // serde_json reads nothing more here: whatever the token, the error is
            // at its first byte and is a syntax error, even for a token that is
            // cut short (`t`, `nul`, `-`, `1.` are not "end of input").
            _ => return Err(self.invalid_enum_type(layout.expecting)),
        };
        // SAFETY: `index` is a valid variant index; `dst` as the caller guarantees.
        unsafe { (en.write)(dst, index) };
        Ok(())
    }

    /// The error for a value at `pos` that cannot start an enum: the JSON type when
    /// the token is complete and well-formed, `expected value` otherwise.
    #[cold]
    fn invalid_enum_type(&mut self, expected: &'static str) -> Error {
        let start = self.pos;
        let error = self.invalid_type_code(expected, |found, expected| {
            ErrorCode::InvalidEnumType { found, expected }
        });
        match error.code() {
            ErrorCode::InvalidEnumType { .. } => error,
            _ => self.error(ErrorCode::ExpectedSomeValue, start),
        }
    }

    /// The variant named by the string at `pos`.
    fn parse_variant(&mut self, en: &EnumLayout) -> Result<usize, Error> {
        let start = self.pos;
        let name = self.parse_str()?;
        match en.find(name) {
            Some(i) => Ok(i),
            None => {
                let variant = String::from_utf8_lossy(name).into();
                Err(self.error(
                    ErrorCode::UnknownVariant {
                        variant,
                        enum_name: en.name,
                    },
                    start,
                ))
            }
        }
    }

    /// `{"Variant": null}`, with `pos` at the `{`.
    fn parse_variant_object(&mut self, en: &EnumLayout) -> Result<usize, Error> {
        self.pos += 1;
        match self.parse_whitespace() {
            Some(b'"') => {}
            Some(_) => return Err(self.error(ErrorCode::KeyMustBeAString, self.pos)),
            None => return Err(self.error(ErrorCode::EofWhileParsingObject, self.input.len())),
        }
        let index = self.parse_variant(en)?;
        self.parse_object_colon()?;
        if self.peek_value()? != b'n' {
            return Err(self.invalid_type("unit variant (null)"));
        }
        self.pos =
            text::parse_ident(self.input, self.pos + 1, b"ull").map_err(|e| self.lex_error(e))?;
        match self.parse_whitespace() {
            Some(b'}') => {
                self.pos += 1;
                Ok(index)
            }
            Some(_) => Err(self.error(ErrorCode::ExpectedObjectCommaOrEnd, self.pos)),
            None => Err(self.error(ErrorCode::EofWhileParsingObject, self.input.len())),
        }
    }
}
