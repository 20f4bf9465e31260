//! `Option<T>` and `Box<T>`. Twin: `fallback/src/kind/option.rs`.
//!
//! `null` is recognised in IR and written with the layout's `write_none`; a
//! present value is decoded by the payload's own generated function, which the
//! layout's `decode_some` / `decode_new` calls back with a slot on its stack (or
//! in the new box): the generated function *is* the `SlotFn`.

use cranelift_codegen::ir::{Block, InstBuilder, Value, types};
use jitson_core::layout::{BoxLayout, DecodeIntoFn, OptionLayout, TypeLayout};

use crate::translate::{FnTranslator, PTR};

impl FnTranslator<'_, '_> {
    pub(crate) fn emit_option(
        &mut self,
        layout: &'static TypeLayout,
        option: &OptionLayout,
        dst: Value,
        unwind: Block,
    ) {
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        let c = self.peek_or(slow);
        let is_null = self.b.create_block();
        self.branch_if_byte(c, b'n', is_null);
        self.emit_decode_into(option.decode_some, option.some.get(), dst, cont, unwind);

        self.b.switch_to_block(is_null);
        self.emit_literal(b"null", slow);
        self.call_addr(option.write_none as usize, &[PTR], None, &[dst]);
        self.b.ins().jump(cont, &[]);

        self.b.switch_to_block(slow);
        self.emit_interpret(layout, dst, start, cont, unwind);
        self.b.switch_to_block(cont);
    }

    pub(crate) fn emit_box(&mut self, boxed: &BoxLayout, dst: Value, unwind: Block) {
        let cont = self.b.create_block();
        self.emit_decode_into(boxed.decode_new, boxed.inner.get(), dst, cont, unwind);
        self.b.switch_to_block(cont);
    }

    /// Calls `decode_into(dst, <generated fn of inner>, state)`; to `cont` on
    /// success, `unwind` on failure (the generated function already tried the
    /// interpreter).
    fn emit_decode_into(
        &mut self,
        decode_into: DecodeIntoFn,
        inner: &'static TypeLayout,
        dst: Value,
        cont: Block,
        unwind: Block,
    ) {
        let f = self.func_ref(inner);
        let callback = self.b.ins().func_addr(PTR, f);
        self.store_pos();
        let ok = self
            .call_addr(
                decode_into as usize,
                &[PTR, PTR, PTR],
                Some(types::I8),
                &[dst, callback, self.state],
            )
            .expect("returns bool");
        self.load_pos();
        self.b.ins().brif(ok, cont, &[], unwind, &[]);
    }
}

// ---------------------------------------------------------------------------
// Encoding (twin: `encode_option`, `encode_box` in `fallback/src/kind/option.rs`)

impl crate::encode::EncodeTranslator<'_, '_> {
    /// `null` for `None` (the layout's `get` returns null), else the payload.
    /// `reserved` passes through: the option's bound covers both.
    pub(crate) fn emit_encode_option(
        &mut self,
        option: &OptionLayout,
        src: Value,
        fail: Block,
        reserved: bool,
    ) {
        let some = self
            .call_addr(option.get as usize, &[PTR], Some(PTR), &[src])
            .expect("get returns a pointer");
        let (none_block, some_block, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(some, some_block, &[], none_block, &[]);
        self.b.switch_to_block(none_block);
        if !reserved {
            self.ensure_const(4, fail);
        }
        self.write_const(b"null");
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(some_block);
        self.emit_value(option.some.get(), some, fail, reserved);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    /// A box, reference or shared pointer: its target, through `get`.
    pub(crate) fn emit_encode_box(
        &mut self,
        b: &BoxLayout,
        src: Value,
        fail: Block,
        reserved: bool,
    ) {
        let target = self
            .call_addr(b.get as usize, &[PTR], Some(PTR), &[src])
            .expect("get returns a pointer");
        self.emit_value(b.inner.get(), target, fail, reserved);
    }
}
