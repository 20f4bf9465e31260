//! Maps. Twin: `fallback/src/kind/map.rs`.
//!
//! A map's loop runs in IR, and each value is decoded by its own generated
//! function, which the layout calls back with a slot on its stack. Text keys
//! without escapes are scanned (and checked to be UTF-8 when needed) in place
//! and handed to `insert_with`; a key with escapes is parsed by a helper that
//! inserts its value and hands the loop back (the map is never restarted).
//! Keys parsed from their text (integers, bools, unit enums) are read by the
//! interpreter's own key reader, called back by the layout's `insert` before
//! the value ([`helpers::map_key`]). Errors take the slow path.
//!
//! Encoding runs the other way round: the layout's `for_each` iterates the map
//! and calls a generated entry function per entry.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, InstBuilder, StackSlotData, StackSlotKind, Value, types};
use jitson_core::layout::{Kind, MapLayout, TypeLayout};

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

        let next = self.b.create_block();
        if map.has_text_keys() {
            self.emit_text_key_member(map, dst, member, next, map_slow, map_unwind);
        } else {
            self.emit_parsed_key_member(map, dst, member, next, map_unwind);
        }

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

    /// One member of a map with text keys, from `member` (`pos` at the key's
    /// quote) to `next`: a plain key scanned in place, `:`, the value through
    /// `insert_with`; a key with escapes through `insert_escaped_key`.
    fn emit_text_key_member(
        &mut self,
        map: &MapLayout,
        dst: Value,
        member: Block,
        next: Block,
        map_slow: Block,
        map_unwind: Block,
    ) {
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
    }

    /// One member of a map whose keys are parsed from their text, from
    /// `member` (`pos` at the key's quote) to `next`: the layout's `insert`
    /// calls back [`helpers::map_key`] (the interpreter's reading of the key
    /// and its `:`) and then the value's generated function. Any failure
    /// unwinds: the facade's interpreter rerun builds the error.
    fn emit_parsed_key_member(
        &mut self,
        map: &MapLayout,
        dst: Value,
        member: Block,
        next: Block,
        map_unwind: Block,
    ) {
        self.b.switch_to_block(member);
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            std::mem::size_of::<helpers::MapKeyContext>() as u32,
            std::mem::align_of::<helpers::MapKeyContext>().trailing_zeros() as u8,
        ));
        let ctx = self.b.ins().stack_addr(PTR, slot, 0);
        let map_ptr = self.const_ptr(map as *const MapLayout);
        let flags = crate::translate::state_flags();
        self.b.ins().store(
            flags,
            self.state,
            ctx,
            std::mem::offset_of!(helpers::MapKeyContext, state) as i32,
        );
        self.b.ins().store(
            flags,
            map_ptr,
            ctx,
            std::mem::offset_of!(helpers::MapKeyContext, map) as i32,
        );
        let key_fn = self.const_ptr(helpers::map_key as *const ());
        let value_fn = self.func_ref(map.value.get());
        let callback = self.b.ins().func_addr(PTR, value_fn);
        self.store_pos();
        let inserted = self
            .call_addr(
                map.insert as usize,
                &[PTR, PTR, PTR, PTR, PTR],
                Some(types::I8),
                &[dst, key_fn, ctx, callback, self.state],
            )
            .expect("returns bool");
        self.load_pos();
        self.b.ins().brif(inserted, next, &[], map_unwind, &[]);
    }
}

// ---------------------------------------------------------------------------
// Encoding (twin: `encode_map`, `encode_entries` in `fallback/src/kind/map.rs`)

/// The text accessor of a map key the JIT writes itself: a string kind that
/// can be read (`String`, `Box<str>`, `Cow<str>`, `&str`). Other keys
/// (integers, bools, chars, unit variants written as quoted text) go to the
/// interpreter with their map.
fn text_key_read(map: &MapLayout) -> Option<jitson_core::layout::ReadStrFn> {
    match &map.key.get().kind {
        Kind::String(s) => s.read,
        Kind::BorrowedStr(s) => Some(s.read),
        _ => None,
    }
}

impl crate::encode::EncodeTranslator<'_, '_> {
    /// A map with text keys, in its own iteration order: `{`, then the
    /// layout's `for_each` calls this map's generated entry function (see
    /// [`emit_map_entry`](Self::emit_map_entry)) once per entry, with a
    /// [`MapContext`](crate::encode::MapContext) in a stack slot that carries
    /// the state and counts the entries; then `}` (in pretty output on its own
    /// line when an entry was written). Maps with other keys, in key order
    /// (`sort_keys`), or without a `for_each` go to the interpreter.
    pub(crate) fn emit_encode_map(
        &mut self,
        layout: &'static TypeLayout,
        map: &MapLayout,
        src: Value,
        fail: Block,
    ) {
        let for_each = match self.encode_map_lowering(map) {
            Ok(for_each) => for_each,
            Err(why) => {
                self.interpreted.push(((layout.type_name)(), why));
                return self.emit_interpret(layout, src, fail);
            }
        };
        self.ensure_const(1, fail);
        self.write_const(b"{");
        let zero = self.b.ins().iconst(PTR, 0);
        let count = self.emit_map_entries(layout, for_each, src, fail, zero);
        let close = self.closing(b'}');
        self.ensure_const(close.len(), fail);
        if close.len() == 1 {
            self.write_const(&close);
            return;
        }
        self.write_close_if(count, &close, b'}');
    }

    /// The map's `for_each`, if its entries are written by generated code:
    /// text keys, not in key order; otherwise why not.
    pub(crate) fn encode_map_lowering(
        &self,
        map: &MapLayout,
    ) -> Result<jitson_core::layout::ForEachFn, &'static str> {
        match map.for_each {
            _ if self.sort_keys => Err("maps in key order (sort_keys)"),
            _ if text_key_read(map).is_none() => Err("maps whose keys are not text"),
            None => Err("maps without encoding accessors"),
            Some(for_each) => Ok(for_each),
        }
    }

    /// The entries of the map at `src` (its `{` written), each by the map's
    /// entry function through `for_each`, the comma before each counted from
    /// `count` (a flattened map's entries follow the members written before
    /// them: `count` 1 then). Returns the count after the last entry.
    pub(crate) fn emit_map_entries(
        &mut self,
        layout: &'static TypeLayout,
        for_each: jitson_core::layout::ForEachFn,
        src: Value,
        fail: Block,
        count: Value,
    ) -> Value {
        let entry = self.func_ref(layout, crate::encode::Role::MapEntry);
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            size_of::<crate::encode::MapContext>() as u32,
            3,
        ));
        let ctx = self.b.ins().stack_addr(PTR, slot, 0);
        let flags = crate::encode::state_flags();
        self.b
            .ins()
            .store(flags, self.state, ctx, crate::encode::MAP_STATE);
        self.b
            .ins()
            .store(flags, count, ctx, crate::encode::MAP_COUNT);
        let entry_addr = self.b.ins().func_addr(PTR, entry);
        self.spill();
        let ok = self
            .call_addr(
                for_each as usize,
                &[PTR, PTR, PTR],
                Some(types::I8),
                &[src, entry_addr, ctx],
            )
            .expect("for_each returns a status");
        self.reload();
        self.check(ok, fail);
        self.b.ins().load(PTR, flags, ctx, crate::encode::MAP_COUNT)
    }

    /// The body of a map's entry function (`for_each`'s callback, given the
    /// [`MapContext`](crate::encode::MapContext) `ctx` and pointers to a live
    /// key and value): the comma (from the second entry on), in pretty output
    /// the entry's line, the key as a JSON string, the colon and the value;
    /// then the entry is counted. A failing value adds its key to the error's
    /// path.
    pub(crate) fn emit_map_entry(
        &mut self,
        map: &MapLayout,
        ctx: Value,
        key: Value,
        value: Value,
        fail: Block,
    ) {
        let read = text_key_read(map).expect("entry functions are declared for text keys");
        let flags = crate::encode::state_flags();
        let count = self.b.ins().load(PTR, flags, ctx, crate::encode::MAP_COUNT);
        let line = self.line(self.depth + 1);
        self.ensure_const(1 + line.len(), fail);
        let at = self.cursor();
        let comma = self.b.ins().iconst(types::I8, i64::from(b','));
        self.b
            .ins()
            .store(crate::encode::value_flags(), comma, at, 0);
        let later = self.b.ins().icmp_imm_s(IntCC::NotEqual, count, 0);
        let later = self.b.ins().uextend(PTR, later);
        self.advance(later);
        if !line.is_empty() {
            self.write_const(&line);
        }
        self.emit_encode_string(read, key, fail);
        let colon: &[u8] = if self.pretty() { b": " } else { b":" };
        self.ensure_const(colon.len(), fail);
        self.write_const(colon);
        let value_fail = self.path_fail(crate::encode::PathBlock::Key(read, key), fail);
        self.enter_level();
        self.emit_value(map.value.get(), value, value_fail, false);
        self.leave_level();
        let next = self.b.ins().iadd_imm_s(count, 1);
        self.b
            .ins()
            .store(flags, next, ctx, crate::encode::MAP_COUNT);
    }
}
