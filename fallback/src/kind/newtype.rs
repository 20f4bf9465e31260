//! Newtype structs (and `transparent`) and unit types. Twin: `jit/src/kind/newtype.rs`.

use jitson_core::error::Error;
use jitson_core::layout::{NewtypeLayout, TypeLayout};
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
        let inner = (nt.inner)();
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
        if self.peek_value()? != b'n' {
            return Err(self.invalid_type(layout.expecting));
        }
        self.pos =
            text::parse_ident(self.input, self.pos + 1, b"ull").map_err(|e| self.lex_error(e))?;
        Ok(())
    }
}
