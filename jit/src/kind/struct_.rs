//! Structs. Twin: `fallback/src/kind/struct_.rs`.
//!
//! One generated function per struct layout; each field's value is a call to the
//! generated function of the field's layout, one per distinct layout in the
//! module. Keys are expected in the order learned from documents
//! (`CompileOptions::key_orders`), else in declaration order; in declaration order: after field `i`, the code compares the next raw key bytes (plus the
//! closing quote) against field `i + 1`'s name with wide loads and, on a match,
//! goes straight to that field's value. Any other key goes to the dispatch: the key
//! is scanned, then matched by length and word compares against every name and
//! alias. A `seen` bitmap (one i64 variable) records written fields: a repeated key
//! goes to the slow path (where the interpreter reports it), missing required
//! fields too, and every exit that gives up drops exactly the fields written.
//!
//! Names containing `"`, `\` or control characters can only appear escaped in
//! JSON; they are never compared raw, and keys with escapes take the slow path.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, InstBuilder, Value, types};
use jitson_core::layout::{Kind, StructLayout, TypeLayout};

use crate::helpers;
use crate::translate::{FnTranslator, PTR};

/// Whether `name` can be compared against raw key bytes.
fn is_plain(name: &str) -> bool {
    name.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\')
}

impl FnTranslator<'_, '_> {
    /// The body of a struct's generated function.
    pub(crate) fn emit_struct_function(
        &mut self,
        layout: &'static TypeLayout,
        st: &'static StructLayout,
        dst: Value,
    ) {
        let fields = st.fields;
        let n = fields.len();
        let start = self.get_pos();
        let depth0 = self.load_depth();
        let seen = self.b.declare_var(types::I64);
        let skipped_seen = self.b.declare_var(types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(seen, zero);
        self.b.def_var(skipped_seen, zero);

        let (bail, unwind, finish, close, dispatch) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let key_blocks: Vec<Block> = (0..n).map(|_| self.b.create_block()).collect();
        let value_blocks: Vec<Block> = (0..n).map(|_| self.b.create_block()).collect();
        // The order to speculate on: the one learned from documents if there is
        // one, else the declaration order. `next[i]`: the key expected after
        // field i's value.
        let order = self.key_orders.speculation(st);
        let mut next = vec![dispatch; n];
        for pair in order.windows(2) {
            next[pair[0]] = key_blocks[pair[1]];
        }
        let key_after = |i: usize| next[i];

        // `{`, then `}` or the first key.
        self.emit_open_container(b'{', layout, bail);
        let c = self.peek_or(bail);
        self.branch_if_byte(c, b'}', close);
        self.expect_byte(c, b'"', bail);
        let first = order.first().map_or(dispatch, |&i| key_blocks[i]);
        self.b.ins().jump(first, &[]);

        // Speculation: the key at `pos` (an opening quote) is field i's name.
        for (i, field) in fields.iter().enumerate() {
            self.b.switch_to_block(key_blocks[i]);
            if !is_plain(field.name) {
                self.b.ins().jump(dispatch, &[]);
                continue;
            }
            let p = self.get_pos();
            let mut quoted = field.name.as_bytes().to_vec();
            quoted.push(b'"');
            self.require(p, quoted.len() as i64 + 1, dispatch);
            let text = self.b.ins().iadd_imm_s(p, 1);
            let eq = self.bytes_equal(text, &quoted);
            let matched = self.b.create_block();
            self.b.ins().brif(eq, matched, &[], dispatch, &[]);
            self.b.switch_to_block(matched);
            self.advance(quoted.len() as i64 + 1);
            self.b.ins().jump(value_blocks[i], &[]);
        }

        // Field i's value, then `,` and the next key (speculating i + 1), or `}`.
        for (i, field) in fields.iter().enumerate() {
            self.b.switch_to_block(value_blocks[i]);
            let s = self.b.use_var(seen);
            let bit = self.b.ins().band_imm_s(s, 1i64 << i);
            let fresh = self.b.create_block();
            self.b.ins().brif(bit, bail, &[], fresh, &[]);
            self.b.switch_to_block(fresh);
            self.emit_colon(bail);
            // The value is decoded by its layout's function, shared by every
            // field of that layout in the module: a struct's code is its keys
            // and this call per field, not a copy of the value's parser per
            // field. Half the machine code (and compile time) of inline copies on
            // the seed `Order`, and faster too (docs/benchmarks.md).
            let at = self.b.ins().iadd_imm_s(dst, field.offset as i64);
            self.emit_call_function(field.layout.get(), at, unwind);
            let s = self.b.use_var(seen);
            let s = self.b.ins().bor_imm_s(s, 1i64 << i);
            self.b.def_var(seen, s);
            self.emit_after_member(close, key_after(i), bail);
        }

        // Dispatch: scan the key, match it by length and content. A key here
        // missed the speculation: counted, when asked, so the facade can tell
        // documents whose order drifted from the one compiled.
        self.b.switch_to_block(dispatch);
        if let Some(counter) = self.miss_counter {
            let addr = self.const_ptr(counter);
            let one = self.b.ins().iconst(types::I64, 1);
            self.b.ins().atomic_rmw(
                types::I64,
                crate::translate::state_flags(),
                cranelift_codegen::ir::AtomicRmwOp::Add,
                addr,
                one,
            );
        }
        let key_quote = self.get_pos();
        self.advance(1);
        let key_start = self.get_pos();
        // Keys with escapes (or anything unusual) are resolved by a helper, which
        // unescapes them and continues here: no whole-struct slow path, so a
        // document full of escaped keys costs no re-decoding.
        let resolve = self.b.create_block();
        let (key_end, high) = self.emit_scan_plain_string(resolve);
        self.advance(1);
        let key_len = self.b.ins().isub(key_end, key_start);
        let mut names: Vec<(&str, usize)> = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            names.extend(
                std::iter::once(f.name)
                    .chain(f.aliases.iter().copied())
                    .map(|name| (name, i)),
            );
        }
        names.retain(|(name, _)| is_plain(name));
        let mut lengths: Vec<usize> = names.iter().map(|(name, _)| name.len()).collect();
        lengths.sort_unstable();
        lengths.dedup();
        let unknown = self.b.create_block();
        for len in lengths {
            let (same_len, next_len) = (self.b.create_block(), self.b.create_block());
            let is_len = self.b.ins().icmp_imm_s(IntCC::Equal, key_len, len as i64);
            self.b.ins().brif(is_len, same_len, &[], next_len, &[]);
            self.b.switch_to_block(same_len);
            for &(name, i) in names.iter().filter(|(name, _)| name.len() == len) {
                let next = self.b.create_block();
                let eq = self.bytes_equal(key_start, name.as_bytes());
                self.b.ins().brif(eq, value_blocks[i], &[], next, &[]);
                self.b.switch_to_block(next);
            }
            self.b.ins().jump(unknown, &[]);
            self.b.switch_to_block(next_len);
        }
        self.b.ins().jump(unknown, &[]);

        // An unknown key: skip its value (validated), unless denied. Keys with
        // non-ASCII bytes take the slow path, which validates them.
        self.b.switch_to_block(unknown);
        let non_ascii = self
            .b
            .ins()
            .band_imm_s(high, 0x8080_8080_8080_8080_u64 as i64);
        let (plain_unknown, checked_unknown) = (self.b.create_block(), self.b.create_block());
        self.b
            .ins()
            .brif(non_ascii, resolve, &[], plain_unknown, &[]);
        self.b.switch_to_block(plain_unknown);
        self.b.ins().jump(checked_unknown, &[]);

        // The helper: `pos` back on the key's quote; it returns the field index,
        // -1 for an unknown key (checked to be UTF-8), or -2 for a malformed key.
        self.b.switch_to_block(resolve);
        self.b.set_cold_block(resolve);
        self.set_pos(key_quote);
        self.store_pos();
        let st_ptr = self.const_ptr(st as *const StructLayout);
        let index = self
            .call_addr(
                helpers::resolve_key as *const () as usize,
                &[PTR, PTR],
                Some(types::I64),
                &[self.state, st_ptr],
            )
            .expect("returns the index");
        self.load_pos();
        let mut switch = cranelift_frontend::Switch::new();
        for (i, block) in value_blocks.iter().enumerate() {
            switch.set_entry(i as u128, *block);
        }
        let (not_field, resolved_unknown) = (self.b.create_block(), self.b.create_block());
        switch.emit(&mut self.b, index, not_field);
        self.b.switch_to_block(not_field);
        let is_unknown = self.b.ins().icmp_imm_s(IntCC::Equal, index, -1);
        self.b
            .ins()
            .brif(is_unknown, resolved_unknown, &[], bail, &[]);
        self.b.switch_to_block(resolved_unknown);
        self.b.ins().jump(checked_unknown, &[]);

        // An unknown key whose text is valid: skip its value (validated), unless
        // unknown fields are denied (then the interpreter reports it).
        self.b.switch_to_block(checked_unknown);
        if st.deny_unknown_fields {
            self.b.ins().jump(bail, &[]);
        } else {
            self.emit_colon(bail);
            self.store_pos();
            let ok = self
                .call_addr(
                    helpers::skip_value as *const () as usize,
                    &[PTR],
                    Some(types::I8),
                    &[self.state],
                )
                .expect("returns bool");
            self.load_pos();
            let skipped = self.b.create_block();
            self.b.ins().brif(ok, skipped, &[], bail, &[]);
            self.b.switch_to_block(skipped);
            self.emit_after_member(close, dispatch, bail);
        }

        self.b.switch_to_block(close);
        self.advance(1);
        self.b.ins().jump(finish, &[]);

        self.b.switch_to_block(finish);
        self.store_depth(depth0);
        self.emit_finish(st, dst, seen, skipped_seen, bail, unwind);
        self.store_pos();
        self.ret(true);

        // Give up on the fast path: drop what was written, let the interpreter decode
        // the whole struct from its start.
        self.b.switch_to_block(bail);
        self.b.set_cold_block(bail);
        self.emit_drop_written(st, dst, seen, skipped_seen);
        self.store_depth(depth0);
        let (ok_block, fail_block) = (self.b.create_block(), self.b.create_block());
        self.emit_interpret(layout, dst, start, ok_block, fail_block);
        self.b.switch_to_block(ok_block);
        self.ret(true);
        self.b.switch_to_block(fail_block);
        self.ret(false);

        // A field's value failed for good (the interpreter could not decode it).
        self.b.switch_to_block(unwind);
        self.b.set_cold_block(unwind);
        self.emit_drop_written(st, dst, seen, skipped_seen);
        self.store_depth(depth0);
        self.ret(false);
    }

    /// `:` after a key, or `bail`.
    fn emit_colon(&mut self, bail: Block) {
        let c = self.peek_or(bail);
        self.expect_byte(c, b':', bail);
        self.advance(1);
    }

    /// After a member: `}` to `close`; `,` and a key's quote to `next_key`;
    /// anything else to `bail`.
    fn emit_after_member(&mut self, close: Block, next_key: Block, bail: Block) {
        let c = self.peek_or(bail);
        self.branch_if_byte(c, b'}', close);
        self.expect_byte(c, b',', bail);
        self.advance(1);
        let c = self.peek_or(bail);
        self.expect_byte(c, b'"', bail);
        self.b.ins().jump(next_key, &[]);
    }

    /// Fills what the object did not name: a missing required field goes to
    /// `bail` (the interpreter reports it) before anything is filled; then
    /// defaults, `None`s and skipped fields, with a panicking default to `unwind`.
    fn emit_finish(
        &mut self,
        st: &'static StructLayout,
        dst: Value,
        seen: cranelift_frontend::Variable,
        skipped_seen: cranelift_frontend::Variable,
        bail: Block,
        unwind: Block,
    ) {
        let required = st
            .fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.default.is_none() && !f.layout.get().is_optional())
            .fold(0u64, |m, (i, _)| m | 1 << i);
        let s = self.b.use_var(seen);
        let present = self.b.ins().band_imm_s(s, required as i64);
        let all = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, present, required as i64);
        let complete = self.b.create_block();
        self.b.ins().brif(all, complete, &[], bail, &[]);
        self.b.switch_to_block(complete);

        for (i, field) in st.fields.iter().enumerate() {
            let field_layout = field.layout.get();
            let fill_with = match (&field.default, &field_layout.kind) {
                (Some(init), _) => Missing::Default(*init),
                (None, Kind::Option(o)) => Missing::None(o.write_none),
                (None, _) if field_layout.is_optional() => Missing::BoxedNone(field_layout),
                _ => continue,
            };
            let (fill, next) = (self.b.create_block(), self.b.create_block());
            let s = self.b.use_var(seen);
            let bit = self.b.ins().band_imm_s(s, 1i64 << i);
            self.b.ins().brif(bit, next, &[], fill, &[]);
            self.b.switch_to_block(fill);
            let at = self.b.ins().iadd_imm_s(dst, field.offset as i64);
            let ok = match fill_with {
                Missing::None(write_none) => {
                    self.call_addr(write_none as usize, &[PTR], None, &[at]);
                    None
                }
                Missing::Default(init) => {
                    self.call_addr(init as usize, &[PTR], Some(types::I8), &[at])
                }
                Missing::BoxedNone(layout) => {
                    let layout = self.const_ptr(layout);
                    self.call_addr(
                        helpers::write_missing as *const () as usize,
                        &[PTR, PTR],
                        Some(types::I8),
                        &[layout, at],
                    )
                }
            };
            if let Some(ok) = ok {
                let filled = self.b.create_block();
                self.b.ins().brif(ok, filled, &[], unwind, &[]);
                self.b.switch_to_block(filled);
            }
            let s = self.b.use_var(seen);
            let s = self.b.ins().bor_imm_s(s, 1i64 << i);
            self.b.def_var(seen, s);
            self.b.ins().jump(next, &[]);
            self.b.switch_to_block(next);
        }
        for (j, skipped) in st.skipped.iter().enumerate() {
            let at = self.b.ins().iadd_imm_s(dst, skipped.offset as i64);
            let ok = self
                .call_addr(skipped.init as usize, &[PTR], Some(types::I8), &[at])
                .expect("returns bool");
            let filled = self.b.create_block();
            self.b.ins().brif(ok, filled, &[], unwind, &[]);
            self.b.switch_to_block(filled);
            let s = self.b.use_var(skipped_seen);
            let s = self.b.ins().bor_imm_s(s, 1i64 << j);
            self.b.def_var(skipped_seen, s);
        }
    }

    /// Drops every field whose bit is set in `seen` / `skipped_seen`.
    /// Drops the fields marked in `seen` and the skipped fields marked in
    /// `skipped_seen`, through the `drop_written` helper: a cold path (errors and
    /// slow paths), so one call instead of a test and a call per field.
    fn emit_drop_written(
        &mut self,
        st: &'static StructLayout,
        dst: Value,
        seen: cranelift_frontend::Variable,
        skipped_seen: cranelift_frontend::Variable,
    ) {
        let needs_drop = st.fields.iter().any(|f| f.layout.get().drop.is_some())
            || st.skipped.iter().any(|f| f.drop.is_some());
        if !needs_drop {
            return;
        }
        let st_ptr = self.const_ptr(st as *const StructLayout);
        let (s, k) = (self.b.use_var(seen), self.b.use_var(skipped_seen));
        self.call_addr(
            helpers::drop_written as *const () as usize,
            &[PTR, PTR, types::I64, types::I64],
            None,
            &[st_ptr, dst, s, k],
        );
    }
}

/// How an absent field is filled.
enum Missing {
    /// Its `default` (user code; may fail with a stashed panic).
    Default(jitson_core::layout::InitFn),
    /// `Option`'s `write_none`.
    None(unsafe extern "C" fn(*mut u8)),
    /// An optional layout behind `Box`es ([`TypeLayout::is_optional`]).
    BoxedNone(&'static TypeLayout),
}
