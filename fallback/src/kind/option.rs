//! `Option<T>` and `Box<T>`. Twin: `jit/src/kind/option.rs`.

use jitson_core::error::Error;
use jitson_core::layout::{BoxLayout, OptionLayout};
use jitson_core::text;

use crate::Parser;

impl Parser<'_> {
    /// `null` as `None`, anything else as `Some` of the inner layout.
    ///
    /// # Safety
    /// `dst` is valid for a write of the option type.
    pub(crate) unsafe fn decode_option(
        &mut self,
        option: &OptionLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        if self.peek_value()? == b'n' {
            self.pos = text::parse_ident(self.input, self.pos + 1, b"ull")
                .map_err(|e| self.lex_error(e))?;
            // SAFETY: as the caller guarantees.
            unsafe { (option.write_none)(dst) };
            return Ok(());
        }
        // SAFETY: `decode_some` hands the callback a slot for the inner layout.
        unsafe {
            self.decode_through(option.some.get(), |decode, ctx| {
                (option.decode_some)(dst, decode, ctx)
            })
        }
    }

    /// The inner layout, decoded into a new heap allocation.
    ///
    /// # Safety
    /// `dst` is valid for a write of the box type.
    pub(crate) unsafe fn decode_box(
        &mut self,
        boxed: &BoxLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        // SAFETY: `decode_new` hands the callback a slot for the inner layout.
        unsafe {
            self.decode_through(boxed.inner.get(), |decode, ctx| {
                (boxed.decode_new)(dst, decode, ctx)
            })
        }
    }
}

// ---------------------------------------------------------------------------
// Encoding

impl crate::encode::Emitter<'_> {
    /// `None` as `null`, `Some` as its payload.
    ///
    /// # Safety
    /// `src` points to a value of the option type.
    #[inline]
    pub(crate) unsafe fn encode_option(
        &mut self,
        option: &OptionLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        // SAFETY: as the caller guarantees.
        let some = unsafe { (option.get)(src) };
        if some.is_null() {
            jitson_core::write::append(self.out, b"null");
            return Ok(());
        }
        // SAFETY: `get` returned the live payload.
        unsafe { self.encode_value(option.some.get(), some) }
    }

    /// A box, a reference or a shared pointer: its target.
    ///
    /// # Safety
    /// `src` points to a value of the pointer type.
    pub(crate) unsafe fn encode_box(&mut self, b: &BoxLayout, src: *const u8) -> Result<(), Error> {
        // SAFETY: as the caller guarantees; `get` returns the live target.
        unsafe { self.encode_value(b.inner.get(), (b.get)(src)) }
    }
}
