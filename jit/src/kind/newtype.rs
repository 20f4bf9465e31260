//! Unit types and conversions (`from`, `try_from`, and the std types read
//! through another: sets, `Rc`, cells, …). Twin: `fallback/src/kind/newtype.rs`.
//! Newtypes themselves are compiled in place (`translate.rs`, `emit_value`);
//! fields decoded through serde stay with the interpreter.

use cranelift_codegen::ir::{Block, InstBuilder, Value, types};
use jitson_core::layout::{ConvertLayout, TypeLayout};

use crate::helpers;
use crate::translate::{FnTranslator, PTR};

impl FnTranslator<'_, '_> {
    /// `()` and unit structs: `null`.
    pub(crate) fn emit_unit(&mut self, layout: &'static TypeLayout, dst: Value, unwind: Block) {
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        let c = self.peek_or(slow);
        self.expect_byte(c, b'n', slow);
        self.emit_literal(b"null", slow);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(slow);
        self.emit_interpret(layout, dst, start, cont, unwind);
        self.b.switch_to_block(cont);
    }

    /// A conversion: the source type's generated function, called back by the
    /// layout's `convert` (through `helpers::convert`) with a temporary on its
    /// stack, then converted into `dst`. A refusal (or a panic, stashed) fails
    /// the compiled decode, and the interpreter, rerunning it, reports it with
    /// its position.
    pub(crate) fn emit_convert(&mut self, convert: &ConvertLayout, dst: Value, unwind: Block) {
        let source = self.func_ref(convert.from.get());
        let callback = self.b.ins().func_addr(PTR, source);
        let function = self.b.ins().iconst(PTR, convert.convert as usize as i64);
        self.store_pos();
        let ok = self
            .call_addr(
                helpers::convert as *const () as usize,
                &[PTR, PTR, PTR, PTR],
                Some(types::I8),
                &[function, dst, callback, self.state],
            )
            .expect("returns bool");
        self.load_pos();
        let cont = self.b.create_block();
        self.b.ins().brif(ok, cont, &[], unwind, &[]);
        self.b.switch_to_block(cont);
    }
}
