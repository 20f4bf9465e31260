//! Columns: values appended rather than written in place. Twin:
//! `fallback/src/kind/column.rs`.
//!
//! The column decides the destination and commits the row in IR (its `len`,
//! `cap`, `values` and `validity` are fields of `jitson_core::column::Column`,
//! a `#[repr(C)]` type of ours, read at offsets taken from its definition); the
//! value is emitted by its own kind's emitter, exactly as for a struct field.
//! A string without escapes is appended to a text column in IR where the
//! buffer has room ([`FnTranslator::emit_append_text`]); growth, other text
//! appends and nulls of records are calls.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, MemFlagsData, Value, types};
use jitson_core::column::{
    Column, ColumnLayout, Conflict, FormatLayout, ParsedLayout, Store, column_append_text,
    column_push_null, column_reserve_row, column_truncate,
};
use jitson_core::layout::TypeLayout;

use crate::translate::{FnTranslator, PTR, input_flags, offset_of, state_flags};

const VALUES: usize = std::mem::offset_of!(Column, values);
const LEN: usize = std::mem::offset_of!(Column, len);
const CAP: usize = std::mem::offset_of!(Column, cap);
const VALIDITY: usize = std::mem::offset_of!(Column, validity);
const DATA: usize = std::mem::offset_of!(Column, data);
const DATA_LEN: usize = std::mem::offset_of!(Column, data_len);
const DATA_CAP: usize = std::mem::offset_of!(Column, data_cap);
const CHILDREN: usize = std::mem::offset_of!(Column, children);

/// Stores into a column's text buffer: never trapping, at any alignment (a
/// row's text starts where the last one ended).
fn text_flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

impl FnTranslator<'_, '_> {
    pub(crate) fn emit_column(
        &mut self,
        layout: &'static TypeLayout,
        column: &ColumnLayout,
        dst: Value,
        unwind: Block,
    ) {
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        let c = self.peek_or(slow);
        if column.nullable {
            let is_null = self.b.create_block();
            let value = self.b.create_block();
            let n = self.b.ins().icmp_imm_s(IntCC::Equal, c, i64::from(b'n'));
            self.b.ins().brif(n, is_null, &[], value, &[]);
            self.b.switch_to_block(is_null);
            self.emit_literal(b"null", slow);
            self.call_addr(
                column_push_null as *const () as usize,
                &[PTR],
                Some(types::I8),
                &[dst],
            );
            self.b.ins().jump(cont, &[]);
            self.b.switch_to_block(value);
        }
        self.emit_reserve_row(dst);
        // A value that fails was not stored; under the null-on-conflict policy,
        // or with a looser second reading (`ColumnLayout::lenient`), the
        // interpreter decodes the whole column again and applies it.
        let failed = match column.conflict {
            Conflict::Null if column.nullable => slow,
            _ if column.lenient.is_some() => slow,
            _ => unwind,
        };
        let value = column.value.get();
        let end = match column.store {
            Store::Fixed => {
                let width = column.width;
                let values = self.load_field(dst, VALUES);
                let len = self.load_field(dst, LEN);
                let offset = self.b.ins().imul_imm_s(len, width as i64);
                let slot = self.b.ins().iadd(values, offset);
                self.emit_value(value, slot, failed);
                None
            }
            Store::Append => {
                self.emit_value(value, dst, failed);
                // A map appends entries to its child; text, bytes to `data`.
                match value.kind {
                    jitson_core::layout::Kind::Map(_) => Some(usize::MAX),
                    _ => Some(DATA_LEN),
                }
            }
            Store::Struct => {
                let children = self.load_field(dst, CHILDREN);
                self.emit_value(value, children, failed);
                None
            }
            Store::List => {
                self.emit_list(layout, value, column.length, dst, failed, slow);
                Some(usize::MAX)
            }
        };
        self.emit_commit(dst, end, column.width as i64);
        self.b.ins().jump(cont, &[]);

        self.b.switch_to_block(slow);
        self.emit_interpret(layout, dst, start, cont, unwind);
        self.b.switch_to_block(cont);
    }

    /// A scalar parsed from its text: a string without escapes is scanned in IR
    /// and handed to the layout's `from_string` in place; a number is
    /// measured by a helper (JSON's grammar) and handed to `from_number` in
    /// place; anything else (an escape, a refusal, which then gets its
    /// message, a boolean) goes to the interpreter.
    pub(crate) fn emit_parsed(
        &mut self,
        layout: &'static TypeLayout,
        parsed: &ParsedLayout,
        dst: Value,
        unwind: Block,
    ) {
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        let c = self.peek_or(slow);
        let arg = parsed.arg as i64;
        if let Some(parse) = parsed.from_number {
            let (number, other) = (self.b.create_block(), self.b.create_block());
            let minus = self.b.ins().icmp_imm_s(IntCC::Equal, c, i64::from(b'-'));
            let digit = self.b.ins().iadd_imm_s(c, -i64::from(b'0'));
            let digit = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, digit, 10);
            let starts = self.b.ins().bor(minus, digit);
            self.b.ins().brif(starts, number, &[], other, &[]);
            self.b.switch_to_block(number);
            let p = self.get_pos();
            let ptr = self.b.ins().iadd(self.input, p);
            let left = self.b.ins().isub(self.len, p);
            let n = self
                .call_addr(
                    crate::helpers::number_len as *const () as usize,
                    &[PTR, PTR],
                    Some(PTR),
                    &[ptr, left],
                )
                .expect("returns a length");
            let none = self.b.ins().icmp_imm_s(IntCC::Equal, n, 0);
            let measured = self.b.create_block();
            self.b.ins().brif(none, slow, &[], measured, &[]);
            self.b.switch_to_block(measured);
            let arg = self.b.ins().iconst(types::I64, arg);
            let no_message = self.b.ins().iconst(PTR, 0);
            let ok = self
                .call_addr(
                    parse as *const () as usize,
                    &[PTR, PTR, PTR, types::I64, PTR],
                    Some(types::I8),
                    &[dst, ptr, n, arg, no_message],
                )
                .expect("returns bool");
            let read = self.b.create_block();
            self.b.ins().brif(ok, read, &[], slow, &[]);
            self.b.switch_to_block(read);
            let end = self.b.ins().iadd(p, n);
            self.set_pos(end);
            self.b.ins().jump(cont, &[]);
            self.b.switch_to_block(other);
        }
        match parsed.from_string {
            Some(parse) => {
                let (ptr, len) = self.emit_plain_string_text(slow);
                let arg = self.b.ins().iconst(types::I64, arg);
                let no_message = self.b.ins().iconst(PTR, 0);
                let ok = self
                    .call_addr(
                        parse as *const () as usize,
                        &[PTR, PTR, PTR, types::I64, PTR],
                        Some(types::I8),
                        &[dst, ptr, len, arg, no_message],
                    )
                    .expect("returns bool");
                self.b.ins().brif(ok, cont, &[], slow, &[]);
            }
            None => {
                self.b.ins().jump(slow, &[]);
            }
        }
        self.b.switch_to_block(slow);
        self.emit_interpret(layout, dst, start, cont, unwind);
        self.b.switch_to_block(cont);
    }

    /// `column_append_text(col, ptr, len)` in line, for a string without
    /// escapes that the text column `col` takes (its `write`): where the
    /// column's text buffer has room for the text and sixteen bytes more, and
    /// the input holds sixteen bytes past the text (its closing quote and what
    /// follows), the text is copied sixteen bytes a step, the last step
    /// writing past the text into capacity no row uses yet, and `data_len`
    /// moves on. Otherwise, and past `i32::MAX` bytes (where the 32-bit
    /// offsets' limit lies), the helper, which grows the buffer. Both write
    /// the same bytes; the row is committed by [`Self::emit_column`].
    pub(crate) fn emit_append_text(&mut self, col: Value, ptr: Value, len: Value) {
        let (copy, call, cont) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let data_len = self.load_field(col, DATA_LEN);
        let data_cap = self.load_field(col, DATA_CAP);
        let end = self.b.ins().iadd(data_len, len);
        let room = self.b.ins().iadd_imm_s(end, 16);
        let fits = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, room, data_cap);
        let small =
            self.b
                .ins()
                .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, end, i64::from(i32::MAX));
        let read_end = self.b.ins().iadd(ptr, len);
        let read_end = self.b.ins().iadd_imm_s(read_end, 16);
        let input_end = self.b.ins().iadd(self.input, self.len);
        let readable = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, read_end, input_end);
        let ok = self.b.ins().band(fits, small);
        let ok = self.b.ins().band(ok, readable);
        let data = self.load_field(col, DATA);
        let to = self.b.ins().iadd(data, data_len);
        let zero = self.b.ins().iconst(PTR, 0);
        self.b
            .ins()
            .brif(ok, copy, &[BlockArg::Value(zero)], call, &[]);

        // At least one step (an empty text copies sixteen bytes no row reads).
        let at = self.b.append_block_param(copy, PTR);
        self.b.switch_to_block(copy);
        let from = self.b.ins().iadd(ptr, at);
        let v = self.b.ins().load(types::I8X16, input_flags(), from, 0);
        let into = self.b.ins().iadd(to, at);
        self.b.ins().store(text_flags(), v, into, 0);
        let next = self.b.ins().iadd_imm_s(at, 16);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, next, len);
        let store_len = self.b.create_block();
        self.b
            .ins()
            .brif(more, copy, &[BlockArg::Value(next)], store_len, &[]);
        self.b.switch_to_block(store_len);
        self.b
            .ins()
            .store(state_flags(), end, col, offset_of(DATA_LEN));
        self.b.ins().jump(cont, &[]);

        self.b.switch_to_block(call);
        self.b.set_cold_block(call);
        self.call_addr(
            column_append_text as *const () as usize,
            &[PTR, PTR, PTR],
            None,
            &[col, ptr, len],
        );
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
    }

    fn load_field(&mut self, col: Value, offset: usize) -> Value {
        self.b
            .ins()
            .load(PTR, state_flags(), col, offset_of(offset))
    }

    /// `if len == cap { column_reserve_row(col) }`.
    fn emit_reserve_row(&mut self, col: Value) {
        let len = self.load_field(col, LEN);
        let cap = self.load_field(col, CAP);
        let full = self.b.ins().icmp(IntCC::Equal, len, cap);
        let (grow, ready) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(full, grow, &[], ready, &[]);
        self.b.switch_to_block(grow);
        self.b.set_cold_block(grow);
        self.call_addr(
            column_reserve_row as *const () as usize,
            &[PTR],
            None,
            &[col],
        );
        self.b.ins().jump(ready, &[]);
        self.b.switch_to_block(ready);
    }

    /// Commits the row as valid: the end offset (text: `data_len`; lists: the
    /// child's `len`) when `end` says where it is, the validity byte, `len + 1`.
    fn emit_commit(&mut self, col: Value, end: Option<usize>, offset_width: i64) {
        let len = self.load_field(col, LEN);
        if let Some(end) = end {
            let end = if end == usize::MAX {
                let child = self.load_field(col, CHILDREN);
                self.load_field(child, LEN)
            } else {
                self.load_field(col, end)
            };
            let values = self.load_field(col, VALUES);
            let next = self.b.ins().iadd_imm_s(len, 1);
            let at = self.b.ins().imul_imm_s(next, offset_width);
            let addr = self.b.ins().iadd(values, at);
            let end = if offset_width == 4 {
                self.b.ins().ireduce(types::I32, end)
            } else {
                end
            };
            self.b.ins().store(state_flags(), end, addr, 0);
        }
        let validity = self.load_field(col, VALIDITY);
        let addr = self.b.ins().iadd(validity, len);
        let one = self.b.ins().iconst(types::I8, 1);
        self.b.ins().store(state_flags(), one, addr, 0);
        let next = self.b.ins().iadd_imm_s(len, 1);
        self.b.ins().store(state_flags(), next, col, offset_of(LEN));
    }

    /// A JSON array, each element appended to the child column by the element's
    /// column emitter (exactly `length` of them for a fixed-size list). Leaving
    /// early truncates the child back to where the list began.
    fn emit_list(
        &mut self,
        layout: &'static TypeLayout,
        elem: &'static TypeLayout,
        length: Option<usize>,
        col: Value,
        failed: Block,
        slow: Block,
    ) {
        let depth = self.emit_open_container(b'[', layout, slow);
        let child = self.load_field(col, CHILDREN);
        let begin = self.load_field(child, LEN);
        let (list_slow, list_failed, element, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let c = self.peek_or(list_slow);
        let empty = self.b.create_block();
        let is_end = self.b.ins().icmp_imm_s(IntCC::Equal, c, i64::from(b']'));
        self.b.ins().brif(is_end, empty, &[], element, &[]);
        self.b.switch_to_block(empty);
        self.advance(1);
        self.b.ins().jump(done, &[]);

        self.b.switch_to_block(element);
        self.emit_value(elem, child, list_failed);
        let c = self.peek_or(list_slow);
        let (comma, close) = (self.b.create_block(), self.b.create_block());
        self.branch_if_byte(c, b']', close);
        self.expect_byte(c, b',', list_slow);
        self.b.ins().jump(comma, &[]);
        self.b.switch_to_block(comma);
        self.advance(1);
        let c = self.peek_or(list_slow);
        let trailing = self.b.ins().icmp_imm_s(IntCC::Equal, c, i64::from(b']'));
        self.b.ins().brif(trailing, list_slow, &[], element, &[]);

        self.b.switch_to_block(close);
        self.advance(1);
        self.b.ins().jump(done, &[]);

        for (block, target) in [(list_slow, slow), (list_failed, failed)] {
            self.b.switch_to_block(block);
            self.b.set_cold_block(block);
            self.call_addr(
                column_truncate as *const () as usize,
                &[PTR, PTR],
                None,
                &[child, begin],
            );
            self.store_depth(depth);
            self.b.ins().jump(target, &[]);
        }

        self.b.switch_to_block(done);
        if let Some(n) = length {
            // A fixed-size list of another length fails as the interpreter's
            // does (`ColumnLayout::length`), its elements taken back.
            let end = self.load_field(child, LEN);
            let count = self.b.ins().isub(end, begin);
            let right = self.b.ins().icmp_imm_s(IntCC::Equal, count, n as i64);
            let checked = self.b.create_block();
            self.b.ins().brif(right, checked, &[], list_failed, &[]);
            self.b.switch_to_block(checked);
        }
        self.store_depth(depth);
    }
}

impl crate::encode::EncodeTranslator<'_, '_> {
    /// A scalar written from its text: the layout's pure fast path called on
    /// room reserved for its longest text; a value it declines (0 bytes: a
    /// rare form or an error) goes to the interpreter, which runs the general
    /// writer. Not part of a bounded run: the interpreter may grow the output.
    pub(crate) fn emit_encode_parsed(
        &mut self,
        layout: &'static TypeLayout,
        format: &FormatLayout,
        src: Value,
        fail: Block,
    ) {
        self.ensure_const(format.max_len, fail);
        let at = self.cursor();
        let n = self
            .call_addr(
                format.fast as *const () as usize,
                &[PTR, PTR],
                Some(PTR),
                &[src, at],
            )
            .expect("the formatter returns a length");
        // Declined is 0 bytes: advancing by it leaves the output as it was.
        self.advance(n);
        let (slow, done) = (self.b.create_block(), self.b.create_block());
        let declined = self.b.ins().icmp_imm_s(IntCC::Equal, n, 0);
        self.b.ins().brif(declined, slow, &[], done, &[]);
        self.b.switch_to_block(slow);
        self.b.set_cold_block(slow);
        self.emit_interpret(layout, src, fail);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }
}
