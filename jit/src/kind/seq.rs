//! `Vec<T>` and `[T; N]`. Twin: `fallback/src/kind/seq.rs`.
//!
//! The element loop runs in IR with the vector's buffer pointer, length and
//! capacity in variables; it calls the layout's functions only to grow (after
//! publishing the length, so the elements move with the buffer) and at the end.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, InstBuilder, Value, types};
use jitson_core::layout::{ArrayLayout, TupleLayout, TypeLayout, VecLayout};

use crate::helpers;
use crate::translate::{FnTranslator, PTR, state_flags};

/// The most a capacity hint reserves, in bytes of elements.
const HINT_BYTES: usize = 64 << 10;

impl FnTranslator<'_, '_> {
    pub(crate) fn emit_vec(
        &mut self,
        layout: &'static TypeLayout,
        vec: &VecLayout,
        dst: Value,
        unwind: Block,
    ) {
        let elem = vec.elem.get();
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        let depth = self.emit_open_container(b'[', layout, slow);
        self.call_addr(vec.new as usize, &[PTR], None, &[dst]);

        let len = self.b.declare_var(PTR);
        let zero = self.b.ins().iconst(PTR, 0);
        self.b.def_var(len, zero);
        // Blocks that leave with the vector live: publish the length, drop it.
        let (vec_slow, vec_unwind, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );

        let c = self.peek_or(vec_slow);
        let (empty, first) = (self.b.create_block(), self.b.create_block());
        let is_end = self.b.ins().icmp_imm_s(IntCC::Equal, c, i64::from(b']'));
        self.b.ins().brif(is_end, empty, &[], first, &[]);

        self.b.switch_to_block(empty);
        self.advance(1);
        self.store_depth(depth);
        self.b.ins().jump(cont, &[]);

        self.b.switch_to_block(first);
        let cap = self.b.declare_var(PTR);
        let base = self.b.declare_var(PTR);
        let v = self
            .call_addr(vec.capacity as usize, &[PTR], Some(PTR), &[dst])
            .expect("returns");
        self.b.def_var(cap, v);
        let v = self
            .call_addr(vec.as_mut_ptr as usize, &[PTR], Some(PTR), &[dst])
            .expect("returns");
        self.b.def_var(base, v);
        let (element, grow, write) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().jump(element, &[]);

        // One element: grow if full, decode into the next slot.
        self.b.switch_to_block(element);
        let n = self.b.use_var(len);
        let c = self.b.use_var(cap);
        let full = self.b.ins().icmp(IntCC::Equal, n, c);
        self.b.ins().brif(full, grow, &[], write, &[]);

        // The first element reserves one and a half times the smaller of the
        // lengths of this site's last two vectors (at least one), later ones one
        // more (`Vec` doubles): a site whose vectors have similar lengths
        // allocates once per vector (issue 10: allocs/op), no vector holds more
        // spare room than doubling could leave it, and one long vector among
        // short ones is not followed by short ones holding its capacity. The hint word packs the
        // two lengths, each bounded (below 2^32), as `previous << 32 | last`.
        self.b.switch_to_block(grow);
        self.b.set_cold_block(grow);
        self.call_addr(vec.set_len as usize, &[PTR, PTR], None, &[dst, n]);
        let hint = Box::new(std::sync::atomic::AtomicUsize::new(0));
        let hint_ptr = &raw const *hint;
        self.data.capacity_hints.push(hint);
        let hint_addr = self.const_ptr(hint_ptr);
        // Plain word loads and stores: on every JIT target an aligned word
        // access is single-copy atomic, which is all a hint needs (threads may
        // race on it; any value read is a pair of lengths vectors had).
        let word = self.b.ins().load(PTR, state_flags(), hint_addr, 0);
        let previous = self.b.ins().ushr_imm_s(word, 32);
        let last = self.b.ins().band_imm_s(word, 0xffff_ffff);
        let hinted = self.b.ins().umin(previous, last);
        let half = self.b.ins().ushr_imm_s(hinted, 1);
        let hinted = self.b.ins().iadd(hinted, half);
        let one = self.b.ins().iconst(PTR, 1);
        let hinted = self.b.ins().umax(hinted, one);
        let first = self.b.ins().icmp_imm_s(IntCC::Equal, n, 0);
        let additional = self.b.ins().select(first, hinted, one);
        let grown = self
            .call_addr(
                vec.reserve as usize,
                &[PTR, PTR],
                Some(types::I8),
                &[dst, additional],
            )
            .expect("returns");
        let (grown_ok, oom) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(grown, grown_ok, &[], oom, &[]);
        self.b.switch_to_block(oom);
        let size = self.b.ins().iconst(PTR, elem.size as i64);
        self.call_addr(
            helpers::allocation_failed as *const () as usize,
            &[PTR],
            None,
            &[size],
        );
        self.b.ins().jump(grown_ok, &[]);
        self.b.switch_to_block(grown_ok);
        let v = self
            .call_addr(vec.capacity as usize, &[PTR], Some(PTR), &[dst])
            .expect("returns");
        self.b.def_var(cap, v);
        let v = self
            .call_addr(vec.as_mut_ptr as usize, &[PTR], Some(PTR), &[dst])
            .expect("returns");
        self.b.def_var(base, v);
        self.b.ins().jump(write, &[]);

        self.b.switch_to_block(write);
        let n = self.b.use_var(len);
        let offset = self.b.ins().imul_imm_s(n, elem.size as i64);
        let bp = self.b.use_var(base);
        let slot = self.b.ins().iadd(bp, offset);
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

        self.b.switch_to_block(close);
        self.advance(1);
        self.b.ins().jump(done, &[]);

        self.b.switch_to_block(done);
        let n = self.b.use_var(len);
        self.call_addr(vec.set_len as usize, &[PTR, PTR], None, &[dst, n]);
        // Remember the length, bounded to 64 KiB of elements (so even a pair of
        // huge arrays makes the next short vector over-allocate that much at
        // most, once), after the last one. Written only when it changed, so
        // threads decoding alike do not contend for the line.
        // (The address again: a constant made in `grow` does not dominate here.)
        let hint_addr = self.const_ptr(hint_ptr);
        let old = self.b.ins().load(PTR, state_flags(), hint_addr, 0);
        let bound = (HINT_BYTES / elem.size.max(1)).max(1) as i64;
        let bound = self.b.ins().iconst(PTR, bound);
        let length = self.b.ins().umin(n, bound);
        let last = self.b.ins().ishl_imm_s(old, 32);
        let remembered = self.b.ins().bor(last, length);
        let changed = self.b.ins().icmp(IntCC::NotEqual, old, remembered);
        let (store_hint, stored) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(changed, store_hint, &[], stored, &[]);
        self.b.switch_to_block(store_hint);
        self.b.ins().store(state_flags(), remembered, hint_addr, 0);
        self.b.ins().jump(stored, &[]);
        self.b.switch_to_block(stored);
        self.store_depth(depth);
        self.b.ins().jump(cont, &[]);

        // Leaving early: the vector holds `len` elements; drop it whole.
        for (block, target) in [(vec_slow, slow), (vec_unwind, unwind)] {
            self.b.switch_to_block(block);
            self.b.set_cold_block(block);
            let n = self.b.use_var(len);
            self.call_addr(vec.set_len as usize, &[PTR, PTR], None, &[dst, n]);
            if let Some(drop) = layout.drop {
                self.call_drop(drop, dst);
            }
            self.store_depth(depth);
            self.b.ins().jump(target, &[]);
        }

        self.b.switch_to_block(slow);
        self.emit_interpret(layout, dst, start, cont, unwind);
        self.b.switch_to_block(cont);
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
