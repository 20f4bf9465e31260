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
use jitson_core::layout::{Kind, MapLayout, StagedMap, TypeLayout, WriteStrFn};

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
        if let (Some(staged), Kind::String(text)) = (map.staged, &map.key.get().kind) {
            return self.emit_staged_map(layout, map, staged, text.write, dst, unwind);
        }
        let (start, slow, cont, depth) = self.emit_open_map(layout, map, dst, unwind);
        let (map_slow, map_unwind) = (self.b.create_block(), self.b.create_block());
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
        self.emit_after_member(member, close, map_slow);

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

    /// A map with text keys filled at its `}` ([`StagedMap`]; twin: the
    /// interpreter's `decode_staged_map`): the map made at `{`; per member,
    /// the key scanned in place, `:`, an entry pushed on the element stack,
    /// the value decoded into it by generated code and the key written beside
    /// it; at `}` one helper call fills the map from the entries, knowing
    /// their number.
    /// A key with escapes goes to a helper that does the same through the
    /// value's function. Leaving early, the entries are dropped.
    fn emit_staged_map(
        &mut self,
        layout: &'static TypeLayout,
        map: &MapLayout,
        staged: &StagedMap,
        write_key: WriteStrFn,
        dst: Value,
        unwind: Block,
    ) {
        // The map is made at `{` and filled at `}`.
        let (start, slow, cont, depth) = self.emit_open_map(layout, map, dst, unwind);
        // Where the entries begin on the element stack.
        let (mark_chunk, mark_top) = self.emit_stack_mark();
        let len = self.b.declare_var(PTR);
        let zero = self.b.ins().iconst(PTR, 0);
        self.b.def_var(len, zero);
        let (map_slow, map_unwind, close, member, escaped, counted) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let c = self.peek_or(map_slow);
        self.branch_if_byte(c, b'}', close);
        self.expect_byte(c, b'"', map_slow);
        self.b.ins().jump(member, &[]);

        // A plain key, `:`, the value into a new entry, then the key.
        self.b.switch_to_block(member);
        let (key_start, key_end) = self.emit_plain_key(escaped, map_slow);
        let entry = self.emit_push(staged.entry_size, staged.entry_align);
        let value_dst = self.b.ins().iadd_imm_s(entry, staged.value_offset as i64);
        // A failed value leaves nothing in its entry, which is not counted.
        self.emit_value(map.value.get(), value_dst, map_unwind);
        let key_ptr = self.b.ins().iadd(self.input, key_start);
        let key_len = self.b.ins().isub(key_end, key_start);
        self.call_addr(
            write_key as usize,
            &[PTR, PTR, PTR],
            None,
            &[entry, key_ptr, key_len],
        );
        self.b.ins().jump(counted, &[]);

        // A key with escapes (or anything else the scan does not take): the
        // helper parses it as the interpreter does and decodes the value into
        // a new entry through the value's function.
        self.b.switch_to_block(escaped);
        self.b.set_cold_block(escaped);
        let entry = self.emit_push(staged.entry_size, staged.entry_align);
        let staged_member = self.emit_escaped_member(
            helpers::stage_escaped_member as *const () as usize,
            key_start,
            map,
            entry,
        );
        self.b
            .ins()
            .brif(staged_member, counted, &[], map_unwind, &[]);

        // `,` then the next key, or `}`.
        self.b.switch_to_block(counted);
        let n = self.b.use_var(len);
        let n = self.b.ins().iadd_imm_s(n, 1);
        self.b.def_var(len, n);
        self.emit_after_member(member, close, map_slow);

        // `}`: the map, filled from its entries; a panic in user code (a
        // replaced value's `Drop`) leaves nothing.
        self.b.switch_to_block(close);
        self.advance(1);
        let n = self.b.use_var(len);
        let map_ptr = self.const_ptr(map as *const MapLayout);
        let built = self
            .call_addr(
                helpers::elements_finish_map as *const () as usize,
                &[PTR; 6],
                Some(types::I8),
                &[self.state, mark_chunk, mark_top, n, map_ptr, dst],
            )
            .expect("returns bool");
        self.store_depth(depth);
        let panicked = self.b.create_block();
        self.b.ins().brif(built, cont, &[], panicked, &[]);
        self.b.switch_to_block(panicked);
        self.b.set_cold_block(panicked);
        self.b.ins().jump(unwind, &[]);

        // Leaving early: `len` entries are on the stack and the empty map at
        // `dst`; drop them.
        for (block, target) in [(map_slow, slow), (map_unwind, unwind)] {
            self.b.switch_to_block(block);
            self.b.set_cold_block(block);
            let n = self.b.use_var(len);
            let map_ptr = self.const_ptr(map as *const MapLayout);
            self.call_addr(
                helpers::elements_discard_map as *const () as usize,
                &[PTR; 5],
                None,
                &[self.state, mark_chunk, mark_top, n, map_ptr],
            );
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

    /// After a map member's value: `}` to `close`, or `,` and the next key's
    /// quote to `member`; anything else to `slow`.
    fn emit_after_member(&mut self, member: Block, close: Block, slow: Block) {
        let c = self.peek_or(slow);
        self.branch_if_byte(c, b'}', close);
        self.expect_byte(c, b',', slow);
        self.advance(1);
        let c = self.peek_or(slow);
        self.expect_byte(c, b'"', slow);
        self.b.ins().jump(member, &[]);
    }

    /// A map's `{`, then the empty map made at `dst` by the layout's `new`,
    /// as serde makes it there (a hasher's `Default` that panics leaves
    /// nothing written and goes to `unwind`). Returns the map's start, the
    /// blocks of the interpreter's rerun (`slow`) and of what follows
    /// (`cont`), and the depth to restore on leaving.
    fn emit_open_map(
        &mut self,
        layout: &'static TypeLayout,
        map: &MapLayout,
        dst: Value,
        unwind: Block,
    ) -> (Value, Block, Block, Value) {
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        let depth = self.emit_open_container(b'{', layout, slow);
        let created = self
            .call_addr(map.new as usize, &[PTR], Some(types::I8), &[dst])
            .expect("returns bool");
        let (made, panicked) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(created, made, &[], panicked, &[]);
        self.b.switch_to_block(panicked);
        self.b.set_cold_block(panicked);
        self.store_depth(depth);
        self.b.ins().jump(unwind, &[]);
        self.b.switch_to_block(made);
        (start, slow, cont, depth)
    }

    /// A map's key at `pos` (its opening quote) scanned in place, then `:`:
    /// the key's text offsets (start, end) in the input, `pos` after the
    /// colon. A key with escapes (anything the scan does not take) goes to
    /// `escaped` with `pos` after the quote; invalid UTF-8 or no `:`, to
    /// `slow`.
    fn emit_plain_key(&mut self, escaped: Block, slow: Block) -> (Value, Value) {
        self.advance(1);
        let key_start = self.get_pos();
        let (key_end, high) = self.emit_scan_plain_string(escaped);
        self.emit_check_utf8(key_start, key_end, high, slow);
        let after_key = self.b.ins().iadd_imm_s(key_end, 1);
        self.set_pos(after_key);
        let c = self.peek_or(slow);
        self.expect_byte(c, b':', slow);
        self.advance(1);
        (key_start, key_end)
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
        let escaped = self.b.create_block();
        let (key_start, key_end) = self.emit_plain_key(escaped, map_slow);
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
        let inserted = self.emit_escaped_member(
            helpers::insert_escaped_key as *const () as usize,
            key_start,
            map,
            dst,
        );
        self.b.ins().brif(inserted, next, &[], map_unwind, &[]);
    }

    /// A member whose key the scan did not take (its text starts at
    /// `key_start`), handed to `helper` (`insert_escaped_key` or
    /// `stage_escaped_member`: `(state, map, target, value_fn) -> bool`) with
    /// `pos` back at the key's quote: the helper reads the key, `:` and the
    /// value (through the value's generated function) into `target`. Returns
    /// the helper's answer, `pos` after the value.
    fn emit_escaped_member(
        &mut self,
        helper: usize,
        key_start: Value,
        map: &MapLayout,
        target: Value,
    ) -> Value {
        let key_quote = self.b.ins().iadd_imm_s(key_start, -1);
        self.set_pos(key_quote);
        self.store_pos();
        let map_ptr = self.const_ptr(map as *const MapLayout);
        let value_fn = self.func_ref(map.value.get());
        let callback = self.b.ins().func_addr(PTR, value_fn);
        let answer = self
            .call_addr(
                helper,
                &[PTR, PTR, PTR, PTR],
                Some(types::I8),
                &[self.state, map_ptr, target, callback],
            )
            .expect("returns bool");
        self.load_pos();
        answer
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

/// How generated code writes a map's key, as serde_json's key serializer
/// writes it: a string kind's text (`String`, `Box<str>`, `Cow<str>`,
/// `&str`), or an integer of at most 64 bits between quotes; either through
/// newtypes (`struct Id(u32)`), at the held value's `offset` in the key.
/// Other keys (128-bit integers, bools, chars, floats, unit variants, serde
/// keys) go to the interpreter with their map.
#[derive(Clone, Copy)]
pub(crate) enum KeyWrite {
    Text {
        read: jitson_core::layout::ReadStrFn,
        offset: i64,
    },
    Int {
        ty: cranelift_codegen::ir::Type,
        signed: bool,
        offset: i64,
    },
}

fn key_write(map: &MapLayout) -> Option<KeyWrite> {
    let mut layout = map.key.get();
    let mut offset = 0;
    loop {
        let int = |ty, signed| Some(KeyWrite::Int { ty, signed, offset });
        return match &layout.kind {
            Kind::String(s) => s.read.map(|read| KeyWrite::Text { read, offset }),
            Kind::BorrowedStr(s) => s.read.map(|read| KeyWrite::Text { read, offset }),
            Kind::I8 => int(types::I8, true),
            Kind::I16 => int(types::I16, true),
            Kind::I32 => int(types::I32, true),
            Kind::I64 => int(types::I64, true),
            Kind::U8 => int(types::I8, false),
            Kind::U16 => int(types::I16, false),
            Kind::U32 => int(types::I32, false),
            Kind::U64 => int(types::I64, false),
            Kind::Newtype(n) => {
                offset += n.offset as i64;
                layout = n.inner.get();
                continue;
            }
            _ => None,
        };
    }
}

impl crate::encode::EncodeTranslator<'_, '_> {
    /// A map with text or integer keys ([`KeyWrite`]), in its own iteration
    /// order: `{`, then the layout's `for_each` calls this map's generated
    /// entry function (see [`emit_map_entry`](Self::emit_map_entry)) once per
    /// entry, with a [`MapContext`](crate::encode::MapContext) in a stack slot
    /// that carries the state and counts the entries; then `}` (in pretty
    /// output on its own line when an entry was written). Maps with other
    /// keys, in key order (`sort_keys`), or without a `for_each` go to the
    /// interpreter.
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
    /// keys of a [`KeyWrite`], not in key order; otherwise why not.
    pub(crate) fn encode_map_lowering(
        &self,
        map: &MapLayout,
    ) -> Result<jitson_core::layout::ForEachFn, &'static str> {
        match map.for_each {
            _ if self.sort_keys => Err("maps in key order (sort_keys)"),
            _ if key_write(map).is_none() => {
                Err("maps whose keys are not text or integers of at most 64 bits")
            }
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
        let key_write = key_write(map).expect("entry functions are declared for keys they write");
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
        let path = match key_write {
            KeyWrite::Text { read, offset } => {
                let at = self.b.ins().iadd_imm_s(key, offset);
                self.emit_encode_string(read, at, fail);
                crate::encode::PathBlock::Key(read, at)
            }
            KeyWrite::Int { ty, signed, offset } => {
                let at = self.b.ins().iadd_imm_s(key, offset);
                self.ensure_const(2 + crate::encode::INT_MAX_LEN, fail);
                self.write_const(b"\"");
                self.emit_encode_int(ty, signed, at, fail, true);
                self.write_const(b"\"");
                crate::encode::PathBlock::IntKey { ty, signed, at }
            }
        };
        let colon: &[u8] = if self.pretty() { b": " } else { b":" };
        self.ensure_const(colon.len(), fail);
        self.write_const(colon);
        let value_fail = self.path_fail(path, fail);
        self.enter_level();
        self.emit_value(map.value.get(), value, value_fail, false);
        self.leave_level();
        let next = self.b.ins().iadd_imm_s(count, 1);
        self.b
            .ins()
            .store(flags, next, ctx, crate::encode::MAP_COUNT);
    }
}
