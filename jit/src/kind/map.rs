//! String-keyed maps. Twin: `fallback/src/kind/map.rs`.
//!
//! A map's loop runs in IR: keys without escapes are scanned (and checked to be
//! UTF-8 when needed) in place, and each value is decoded by its own generated
//! function, which the layout's `insert_with` calls back with a slot on its stack.
//! A key with escapes is parsed by a helper that inserts its value and
//! hands the loop back (the map is never restarted); errors take the slow path.

use cranelift_codegen::ir::{Block, InstBuilder, Value, types};
use jitson_core::layout::{MapLayout, TypeLayout};

use crate::helpers;
use crate::translate::{FnTranslator, PTR};

impl FnTranslator<'_, '_> {
    pub(crate) fn emit_map(
        &mut self,
        layout: &'static TypeLayout,
        map: &MapLayout,
        dst: Value,
        unwind: Block,
    ) {
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        let depth = self.emit_open_container(b'{', layout, slow);
        let created = self
            .call_addr(map.new as usize, &[PTR], Some(types::I8), &[dst])
            .expect("returns bool");
        let (map_slow, map_unwind, panicked, made) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(created, made, &[], panicked, &[]);
        // The hasher's `Default` panicked: nothing was written.
        self.b.switch_to_block(panicked);
        self.b.set_cold_block(panicked);
        self.store_depth(depth);
        self.b.ins().jump(unwind, &[]);

        self.b.switch_to_block(made);
        let (close, member) = (self.b.create_block(), self.b.create_block());
        let c = self.peek_or(map_slow);
        self.branch_if_byte(c, b'}', close);
        self.expect_byte(c, b'"', map_slow);
        self.b.ins().jump(member, &[]);

        // One member: a plain key, `:`, the value through `insert_with`.
        self.b.switch_to_block(member);
        self.advance(1);
        let key_start = self.get_pos();
        let escaped = self.b.create_block();
        let (key_end, high) = self.emit_scan_plain_string(escaped);
        self.emit_check_utf8(key_start, key_end, high, map_slow);
        let after_key = self.b.ins().iadd_imm_s(key_end, 1);
        self.set_pos(after_key);
        let c = self.peek_or(map_slow);
        self.expect_byte(c, b':', map_slow);
        self.advance(1);
        let value_fn = self.func_ref(map.value.get());
        let callback = self.b.ins().func_addr(PTR, value_fn);
        let key_ptr = self.b.ins().iadd(self.input, key_start);
        let key_len = self.b.ins().isub(key_end, key_start);
        self.store_pos();
        let inserted = self
            .call_addr(
                map.insert_with as usize,
                &[PTR, PTR, PTR, PTR, PTR],
                Some(types::I8),
                &[dst, key_ptr, key_len, callback, self.state],
            )
            .expect("returns bool");
        self.load_pos();
        let next = self.b.create_block();
        self.b.ins().brif(inserted, next, &[], map_unwind, &[]);

        // A key with escapes (or anything else the scan does not take): a helper
        // parses it as the interpreter does and inserts the value, and the loop
        // goes on. The map built so far is kept: restarting it in the
        // interpreter would decode its values again, at every level of nesting.
        self.b.switch_to_block(escaped);
        self.b.set_cold_block(escaped);
        let key_quote = self.b.ins().iadd_imm_s(key_start, -1);
        self.set_pos(key_quote);
        self.store_pos();
        let map_ptr = self.const_ptr(map as *const MapLayout);
        let value_fn = self.func_ref(map.value.get());
        let callback = self.b.ins().func_addr(PTR, value_fn);
        let inserted = self
            .call_addr(
                helpers::insert_escaped_key as *const () as usize,
                &[PTR, PTR, PTR, PTR],
                Some(types::I8),
                &[self.state, map_ptr, dst, callback],
            )
            .expect("returns bool");
        self.load_pos();
        self.b.ins().brif(inserted, next, &[], map_unwind, &[]);

        self.b.switch_to_block(next);
        let c = self.peek_or(map_slow);
        self.branch_if_byte(c, b'}', close);
        self.expect_byte(c, b',', map_slow);
        self.advance(1);
        let c = self.peek_or(map_slow);
        self.expect_byte(c, b'"', map_slow);
        self.b.ins().jump(member, &[]);

        self.b.switch_to_block(close);
        self.advance(1);
        self.store_depth(depth);
        self.b.ins().jump(cont, &[]);

        // Leaving early with the map live: drop it whole.
        for (block, target) in [(map_slow, slow), (map_unwind, unwind)] {
            self.b.switch_to_block(block);
            self.b.set_cold_block(block);
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
