//! `Vec<T>` and `[T; N]`. Twin: `fallback/src/kind/seq.rs`.
//!
//! A vector's elements are decoded onto the element stack
//! (`jitson_core::elements`): the element loop bumps the stack's `top` in IR
//! and calls out only when a chunk is full. At `]` one helper call allocates
//! the vector for exactly the elements' number and moves them in; leaving early,
//! another drops them. A byte buffer's string form (`VecLayout::byte_strings`)
//! is not `[`, so it takes the slow path to the interpreter.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, Value};
use jitson_core::layout::{ArrayLayout, TupleLayout, TypeLayout, VecLayout};

use crate::helpers;
use crate::translate::{
    FnTranslator, PTR, STATE_ELEMENTS_CURRENT, STATE_ELEMENTS_END, STATE_ELEMENTS_TOP, offset_of,
    state_flags,
};

impl FnTranslator<'_, '_> {
    pub(crate) fn emit_vec(
        &mut self,
        layout: &'static TypeLayout,
        vec: &'static VecLayout,
        dst: Value,
        unwind: Block,
    ) {
        let elem = vec.elem.get();
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        let depth = self.emit_open_container(b'[', layout, slow);
        // Where this vector begins on the element stack: `finish` and `discard`
        // return the stack there.
        let (mark_chunk, mark_top) = self.emit_stack_mark();

        let len = self.b.declare_var(PTR);
        let zero = self.b.ins().iconst(PTR, 0);
        self.b.def_var(len, zero);
        // Blocks that leave with elements on the stack: drop them.
        let (vec_slow, vec_unwind) = (self.b.create_block(), self.b.create_block());

        let c = self.peek_or(vec_slow);
        let (empty, element) = (self.b.create_block(), self.b.create_block());
        let is_end = self.b.ins().icmp_imm_s(IntCC::Equal, c, i64::from(b']'));
        self.b.ins().brif(is_end, empty, &[], element, &[]);

        self.b.switch_to_block(empty);
        self.advance(1);
        self.call_addr(vec.new as usize, &[PTR], None, &[dst]);
        self.store_depth(depth);
        self.b.ins().jump(cont, &[]);

        // One element, at the next slot of the stack.
        self.b.switch_to_block(element);
        let slot = self.emit_push_element(elem);
        self.emit_value(elem, slot, vec_unwind);
        let n = self.b.use_var(len);
        let n = self.b.ins().iadd_imm_s(n, 1);
        self.b.def_var(len, n);

        // `,` then another element, or `]`.
        let c = self.peek_or(vec_slow);
        let (comma, close) = (self.b.create_block(), self.b.create_block());
        self.branch_if_byte(c, b']', close);
        self.expect_byte(c, b',', vec_slow);
        self.b.ins().jump(comma, &[]);
        self.b.switch_to_block(comma);
        self.advance(1);
        let c = self.peek_or(vec_slow);
        let trailing = self.b.ins().icmp_imm_s(IntCC::Equal, c, i64::from(b']'));
        self.b.ins().brif(trailing, vec_slow, &[], element, &[]);

        // `]`: the vector, allocated once.
        self.b.switch_to_block(close);
        self.advance(1);
        let n = self.b.use_var(len);
        let vec_ptr = self.const_ptr(vec);
        self.call_addr(
            helpers::elements_finish_vec as *const () as usize,
            &[PTR; 6],
            None,
            &[self.state, mark_chunk, mark_top, n, vec_ptr, dst],
        );
        self.store_depth(depth);
        self.b.ins().jump(cont, &[]);

        // Leaving early: `len` elements are on the stack; drop them.
        for (block, target) in [(vec_slow, slow), (vec_unwind, unwind)] {
            self.b.switch_to_block(block);
            self.b.set_cold_block(block);
            let n = self.b.use_var(len);
            let elem_ptr = self.const_ptr(elem);
            self.call_addr(
                helpers::elements_discard_vec as *const () as usize,
                &[PTR; 5],
                None,
                &[self.state, mark_chunk, mark_top, n, elem_ptr],
            );
            self.store_depth(depth);
            self.b.ins().jump(target, &[]);
        }

        self.b.switch_to_block(slow);
        self.emit_interpret(layout, dst, start, cont, unwind);
        self.b.switch_to_block(cont);
    }

    /// The element stack's mark (`Elements::mark`: the current chunk and
    /// `top`), loaded from the state: where a vector's elements or a staged
    /// map's entries begin.
    pub(crate) fn emit_stack_mark(&mut self) -> (Value, Value) {
        let chunk = self.b.ins().load(
            PTR,
            state_flags(),
            self.state,
            offset_of(STATE_ELEMENTS_CURRENT),
        );
        let top = self.b.ins().load(
            PTR,
            state_flags(),
            self.state,
            offset_of(STATE_ELEMENTS_TOP),
        );
        (chunk, top)
    }

    /// Pushes room for one `elem` on the element stack: the stack's `top`
    /// aligned, if the chunk has room past it, else `helpers::elements_grow`.
    /// A zero-sized element gets a dangling aligned address and pushes nothing,
    /// as `Elements::push_value`.
    fn emit_push_element(&mut self, elem: &TypeLayout) -> Value {
        if elem.size == 0 {
            return self.b.ins().iconst(PTR, elem.align as i64);
        }
        self.emit_push(elem.size, elem.align)
    }

    /// Pushes room for `size` bytes (not zero) aligned to `align` on the
    /// element stack, as [`emit_push_element`](Self::emit_push_element); a
    /// staged map's entries are pushed so too.
    pub(crate) fn emit_push(&mut self, size: usize, align: usize) -> Value {
        let top = self.b.ins().load(
            PTR,
            state_flags(),
            self.state,
            offset_of(STATE_ELEMENTS_TOP),
        );
        let end = self.b.ins().load(
            PTR,
            state_flags(),
            self.state,
            offset_of(STATE_ELEMENTS_END),
        );
        let slot = if align > 1 {
            let bumped = self.b.ins().iadd_imm_s(top, align as i64 - 1);
            self.b.ins().band_imm_s(bumped, -(align as i64))
        } else {
            top
        };
        let next = self.b.ins().iadd_imm_s(slot, size as i64);
        let full = self.b.ins().icmp(IntCC::UnsignedGreaterThan, next, end);
        let (bump, grow, pushed) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let at = self.b.append_block_param(pushed, PTR);
        self.b.ins().brif(full, grow, &[], bump, &[]);

        self.b.switch_to_block(bump);
        self.b.ins().store(
            state_flags(),
            next,
            self.state,
            offset_of(STATE_ELEMENTS_TOP),
        );
        self.b.ins().jump(pushed, &[BlockArg::Value(slot)]);

        self.b.switch_to_block(grow);
        self.b.set_cold_block(grow);
        let size = self.b.ins().iconst(PTR, size as i64);
        let align = self.b.ins().iconst(PTR, align as i64);
        let grown = self
            .call_addr(
                helpers::elements_grow as *const () as usize,
                &[PTR; 3],
                Some(PTR),
                &[self.state, size, align],
            )
            .expect("returns");
        self.b.ins().jump(pushed, &[BlockArg::Value(grown)]);

        self.b.switch_to_block(pushed);
        at
    }
}

impl FnTranslator<'_, '_> {
    /// `[T; N]`: exactly `N` elements written at `dst + i * size`; any other length,
    /// a trailing comma or an error goes to the interpreter after dropping the
    /// elements written.
    pub(crate) fn emit_array(
        &mut self,
        layout: &'static TypeLayout,
        array: &ArrayLayout,
        dst: Value,
        unwind: Block,
    ) {
        let elem = array.elem.get();
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        let depth = self.emit_open_container(b'[', layout, slow);
        let count = self.b.declare_var(PTR);
        let zero = self.b.ins().iconst(PTR, 0);
        self.b.def_var(count, zero);
        let (arr_slow, arr_unwind, close) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        if array.len == 0 {
            let c = self.peek_or(arr_slow);
            self.expect_byte(c, b']', arr_slow);
            self.b.ins().jump(close, &[]);
        } else {
            let element = self.b.create_block();
            self.b.ins().jump(element, &[]);
            self.b.switch_to_block(element);
            let i = self.b.use_var(count);
            let offset = self.b.ins().imul_imm_s(i, elem.size as i64);
            let slot = self.b.ins().iadd(dst, offset);
            self.emit_value(elem, slot, arr_unwind);
            let i = self.b.use_var(count);
            let i = self.b.ins().iadd_imm_s(i, 1);
            self.b.def_var(count, i);
            let c = self.peek_or(arr_slow);
            let (last, more) = (self.b.create_block(), self.b.create_block());
            let full = self.b.ins().icmp_imm_s(IntCC::Equal, i, array.len as i64);
            self.b.ins().brif(full, last, &[], more, &[]);
            self.b.switch_to_block(last);
            self.expect_byte(c, b']', arr_slow);
            self.b.ins().jump(close, &[]);
            self.b.switch_to_block(more);
            self.expect_byte(c, b',', arr_slow);
            self.advance(1);
            self.b.ins().jump(element, &[]);
        }

        self.b.switch_to_block(close);
        self.advance(1);
        self.store_depth(depth);
        self.b.ins().jump(cont, &[]);

        // Leaving early: drop elements 0..count.
        for (block, target) in [(arr_slow, slow), (arr_unwind, unwind)] {
            self.b.switch_to_block(block);
            self.b.set_cold_block(block);
            if let Some(drop) = elem.drop {
                let (head, body, done) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                let j = self.b.declare_var(PTR);
                let zero = self.b.ins().iconst(PTR, 0);
                self.b.def_var(j, zero);
                self.b.ins().jump(head, &[]);
                self.b.switch_to_block(head);
                let jv = self.b.use_var(j);
                let n = self.b.use_var(count);
                let more = self.b.ins().icmp(IntCC::UnsignedLessThan, jv, n);
                self.b.ins().brif(more, body, &[], done, &[]);
                self.b.switch_to_block(body);
                let offset = self.b.ins().imul_imm_s(jv, elem.size as i64);
                let slot = self.b.ins().iadd(dst, offset);
                self.call_drop(drop, slot);
                let jv = self.b.ins().iadd_imm_s(jv, 1);
                self.b.def_var(j, jv);
                self.b.ins().jump(head, &[]);
                self.b.switch_to_block(done);
            }
            self.store_depth(depth);
            self.b.ins().jump(target, &[]);
        }

        self.b.switch_to_block(slow);
        self.emit_interpret(layout, dst, start, cont, unwind);
        self.b.switch_to_block(cont);
    }

    /// A tuple without skipped fields: one element after the other, unrolled (a
    /// tuple has at most a handful), each at its offset. Twin of the
    /// interpreter's `decode_tuple`; any deviation (wrong length, a syntax error
    /// between elements) drops the elements written and hands the whole tuple to
    /// the interpreter, for its error.
    pub(crate) fn emit_tuple(
        &mut self,
        layout: &'static TypeLayout,
        tuple: &TupleLayout,
        dst: Value,
        unwind: Block,
    ) {
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        let depth = self.emit_open_container(b'[', layout, slow);
        let n = tuple.elems.len();
        // `to_slow[k]` and `to_unwind[k]` drop elements k-1, ..., 0 and leave.
        let to_slow: Vec<Block> = (0..=n).map(|_| self.b.create_block()).collect();
        let to_unwind: Vec<Block> = (0..=n).map(|_| self.b.create_block()).collect();
        for (i, elem) in tuple.elems.iter().enumerate() {
            let at = self.b.ins().iadd_imm_s(dst, elem.offset as i64);
            self.emit_value(elem.layout.get(), at, to_unwind[i]);
            let c = self.peek_or(to_slow[i + 1]);
            if i + 1 < n {
                self.expect_byte(c, b',', to_slow[i + 1]);
                self.advance(1);
            } else {
                self.expect_byte(c, b']', to_slow[i + 1]);
            }
        }
        if n == 0 {
            let c = self.peek_or(to_slow[0]);
            self.expect_byte(c, b']', to_slow[0]);
        }
        self.advance(1);
        self.store_depth(depth);
        self.b.ins().jump(cont, &[]);

        for (chain, target) in [(&to_slow, slow), (&to_unwind, unwind)] {
            for k in (0..=n).rev() {
                self.b.switch_to_block(chain[k]);
                self.b.set_cold_block(chain[k]);
                if k == 0 {
                    self.store_depth(depth);
                    self.b.ins().jump(target, &[]);
                    continue;
                }
                let elem = &tuple.elems[k - 1];
                if let Some(drop) = elem.layout.get().drop {
                    let at = self.b.ins().iadd_imm_s(dst, elem.offset as i64);
                    self.call_drop(drop, at);
                }
                self.b.ins().jump(chain[k - 1], &[]);
            }
        }

        self.b.switch_to_block(slow);
        self.emit_interpret(layout, dst, start, cont, unwind);
        self.b.switch_to_block(cont);
    }
}

// ---------------------------------------------------------------------------
// Encoding (twin: `encode_vec`, `encode_array`, `encode_tuple` in
// `fallback/src/kind/seq.rs`)

impl crate::encode::EncodeTranslator<'_, '_> {
    /// A vector or slice: a loop over the elements `as_slice` gives.
    pub(crate) fn emit_encode_vec(&mut self, vec: &VecLayout, src: Value, fail: Block) {
        let len_slot = self.slot();
        let ptr = self
            .call_addr(
                vec.as_slice as usize,
                &[PTR, PTR],
                Some(PTR),
                &[src, len_slot],
            )
            .expect("as_slice returns a pointer");
        let n = self
            .b
            .ins()
            .load(PTR, crate::encode::state_flags(), len_slot, 0);
        self.emit_encode_elements(vec.elem.get(), ptr, n, fail);
    }

    /// `[T; N]`: the same loop over the array's own elements.
    pub(crate) fn emit_encode_array(&mut self, array: &ArrayLayout, src: Value, fail: Block) {
        let n = self.b.ins().iconst(PTR, array.len as i64);
        self.emit_encode_elements(array.elem.get(), src, n, fail);
    }

    /// `[`, the `n` contiguous elements of `elem` from `ptr` separated by `,`,
    /// and `]`. Each element makes room for its comma and, when bounded, its
    /// text with one check; the comma is stored unconditionally and counted
    /// from the second element on.
    fn emit_encode_elements(
        &mut self,
        elem: &'static TypeLayout,
        ptr: Value,
        n: Value,
        fail: Block,
    ) {
        use cranelift_codegen::ir::types;
        self.ensure_const(2, fail);
        self.write_const(b"[");
        let index = self.b.declare_var(PTR);
        let zero = self.b.ins().iconst(PTR, 0);
        self.b.def_var(index, zero);
        let (body, close) = (self.b.create_block(), self.b.create_block());
        let empty = self.b.ins().icmp_imm_s(IntCC::Equal, n, 0);
        self.b.ins().brif(empty, close, &[], body, &[]);

        self.b.switch_to_block(body);
        let bound = crate::encode::bound(elem);
        // In pretty output each element starts a line at the elements'
        // indentation; the closing bracket one at the array's own.
        let line = self.line(self.depth + 1);
        let closing = self.closing(b']');
        self.ensure_const(1 + line.len() + bound.unwrap_or(0), fail);
        let at = self.cursor();
        let comma = self.b.ins().iconst(types::I8, i64::from(b','));
        self.b
            .ins()
            .store(crate::encode::value_flags(), comma, at, 0);
        let i = self.b.use_var(index);
        let later = self.b.ins().icmp_imm_s(IntCC::NotEqual, i, 0);
        let later = self.b.ins().uextend(PTR, later);
        self.advance(later);
        if !line.is_empty() {
            self.write_const(&line);
        }
        let offset = self.b.ins().imul_imm_s(i, elem.size as i64);
        let at_elem = self.b.ins().iadd(ptr, offset);
        let elem_fail = self.path_fail(crate::encode::PathBlock::Index(index), fail);
        self.enter_level();
        self.emit_value(elem, at_elem, elem_fail, bound.is_some());
        self.leave_level();
        let i = self.b.use_var(index);
        let next = self.b.ins().iadd_imm_s(i, 1);
        self.b.def_var(index, next);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, next, n);
        let after = self.b.create_block();
        self.b.ins().brif(more, body, &[], after, &[]);

        self.b.switch_to_block(after);
        self.ensure_const(closing.len(), fail);
        if closing.len() == 1 {
            self.b.ins().jump(close, &[]);
            self.b.switch_to_block(close);
            self.write_const(b"]");
        } else {
            // Pretty: the closing line after elements, a bare `]` for none.
            self.write_const(&closing);
            let done = self.b.create_block();
            self.b.ins().jump(done, &[]);
            self.b.switch_to_block(close);
            self.write_const(b"]");
            self.b.ins().jump(done, &[]);
            self.b.switch_to_block(done);
        }
    }

    /// A tuple or tuple struct: its elements at their offsets, as an array.
    pub(crate) fn emit_encode_tuple(&mut self, tuple: &TupleLayout, src: Value, fail: Block) {
        if tuple.elems.is_empty() {
            self.ensure_const(2, fail);
            self.write_const(b"[]");
            return;
        }
        let index = self.b.declare_var(PTR);
        let line = self.line(self.depth + 1);
        let closing = self.closing(b']');
        for (i, e) in tuple.elems.iter().enumerate() {
            let layout = e.layout.get();
            let bound = crate::encode::bound(layout);
            let mut head = vec![if i == 0 { b'[' } else { b',' }];
            head.extend_from_slice(&line);
            self.ensure_const(head.len() + bound.unwrap_or(0), fail);
            self.write_const(&head);
            let at = self.b.ins().iadd_imm_s(src, e.offset as i64);
            let i_value = self.b.ins().iconst(PTR, i as i64);
            self.b.def_var(index, i_value);
            let elem_fail = self.path_fail(crate::encode::PathBlock::Index(index), fail);
            self.enter_level();
            self.emit_value(layout, at, elem_fail, bound.is_some());
            self.leave_level();
        }
        self.ensure_const(closing.len(), fail);
        self.write_const(&closing);
    }
}
