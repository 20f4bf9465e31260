//! Externally tagged enums (serde's default representation). Twin:
//! `fallback/src/kind/enum_.rs`.
//!
//! A string is scanned in place and matched against the unit variants' names
//! with wide compares; `{"Variant": payload}` is matched the same way on its key,
//! and the payload is decoded by the payload layout's own generated function,
//! which the layout's `decode_variant` calls back with a slot on its stack (the
//! generated function *is* the `SlotFn`, as for `Option`). Escaped names, unknown
//! names (and so `#[serde(other)]`), `{"Unit": null}` and every error take the
//! slow path: the interpreter decodes the whole enum. Internally, adjacently
//! tagged and untagged enums are interpreted whole.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, InstBuilder, Value, types};
use jitson_core::layout::{EnumLayout, Kind, Payload, TypeLayout};

use crate::translate::{FnTranslator, PTR};

impl FnTranslator<'_, '_> {
    /// An externally tagged enum: `"Unit"` or `{"Variant": payload}`.
    pub(crate) fn emit_enum(
        &mut self,
        layout: &'static TypeLayout,
        en: &'static EnumLayout,
        dst: Value,
        unwind: Block,
    ) {
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        let c = self.peek_or(slow);
        if !en.is_unit_only() {
            let object = self.b.create_block();
            self.branch_if_byte(c, b'{', object);
            let string = self.b.create_block();
            self.b.ins().jump(string, &[]);
            self.b.switch_to_block(object);
            self.emit_variant_object(layout, en, dst, slow, cont, unwind);
            self.b.switch_to_block(string);
        }
        self.expect_byte(c, b'"', slow);
        self.advance(1);
        let (text_start, end) = self.emit_scan_name(slow);
        let after = self.b.ins().iadd_imm_s(end, 1);
        self.emit_match_names(en, text_start, end, true, slow, |t, index| {
            t.set_pos(after);
            let index = t.b.ins().iconst(PTR, index as i64);
            t.call_addr(en.write as usize, &[PTR, PTR], None, &[dst, index]);
            t.b.ins().jump(cont, &[]);
        });

        self.b.switch_to_block(slow);
        self.emit_interpret(layout, dst, start, cont, unwind);
        self.b.switch_to_block(cont);
    }

    /// `{"Variant": payload}` for a data variant, `pos` at the `{`.
    fn emit_variant_object(
        &mut self,
        layout: &'static TypeLayout,
        en: &'static EnumLayout,
        dst: Value,
        slow: Block,
        cont: Block,
        unwind: Block,
    ) {
        let depth = self.enter(layout, slow);
        self.advance(1);
        // Leaving before the variant is written: restore the depth.
        let (early, failed) = (self.b.create_block(), self.b.create_block());
        let c = self.peek_or(early);
        self.expect_byte(c, b'"', early);
        self.advance(1);
        let (text_start, end) = self.emit_scan_name(early);
        let after_key = self.b.ins().iadd_imm_s(end, 1);
        self.set_pos(after_key);
        let c = self.peek_or(early);
        self.expect_byte(c, b':', early);
        self.advance(1);
        let written = self.b.create_block();
        self.emit_match_names(en, text_start, end, false, early, |t, index| {
            let payload = en.variants[index]
                .payload
                .layout()
                .expect("only data variants match here");
            let f = t.func_ref(payload);
            let callback = t.b.ins().func_addr(PTR, f);
            let index = t.b.ins().iconst(PTR, index as i64);
            t.store_pos();
            let ok = t
                .call_addr(
                    en.decode_variant as usize,
                    &[PTR, PTR, PTR, PTR],
                    Some(types::I8),
                    &[dst, index, callback, t.state],
                )
                .expect("returns bool");
            t.load_pos();
            t.b.ins().brif(ok, written, &[], failed, &[]);
        });

        // The payload is written: only `}` may follow.
        self.b.switch_to_block(written);
        let (close, extra) = (self.b.create_block(), self.b.create_block());
        let c = self.peek_or(extra);
        self.expect_byte(c, b'}', extra);
        self.b.ins().jump(close, &[]);
        self.b.switch_to_block(close);
        self.advance(1);
        self.store_depth(depth);
        self.b.ins().jump(cont, &[]);

        // Anything else after the payload: drop the variant, then the slow path.
        self.b.switch_to_block(extra);
        self.b.set_cold_block(extra);
        if let Some(drop) = layout.drop {
            self.call_drop(drop, dst);
        }
        self.store_depth(depth);
        self.b.ins().jump(slow, &[]);

        self.b.switch_to_block(early);
        self.b.set_cold_block(early);
        self.store_depth(depth);
        self.b.ins().jump(slow, &[]);

        // The payload failed (its function already asked the interpreter).
        self.b.switch_to_block(failed);
        self.b.set_cold_block(failed);
        self.store_depth(depth);
        self.b.ins().jump(unwind, &[]);
    }

    /// Scans a name without escapes, `pos` after its opening quote; returns where
    /// its text starts and where the closing quote is. Escapes go to `slow`.
    fn emit_scan_name(&mut self, slow: Block) -> (Value, Value) {
        let text_start = self.get_pos();
        let (end, _high) = self.emit_scan_plain_string(slow);
        (text_start, end)
    }

    /// Compares the text `[text_start, end)` with the names (and aliases) of the
    /// unit variants (`unit`) or of the data variants (`!unit`); calls `on_match`
    /// in a block of its own for each, and leaves the builder where no name
    /// matched, jumping to `miss`.
    fn emit_match_names(
        &mut self,
        en: &EnumLayout,
        text_start: Value,
        end: Value,
        unit: bool,
        miss: Block,
        mut on_match: impl FnMut(&mut Self, usize),
    ) {
        let len = self.b.ins().isub(end, text_start);
        let names = en
            .variants
            .iter()
            .enumerate()
            .filter(|(_, v)| matches!(v.payload, Payload::Unit) == unit)
            .flat_map(|(i, v)| {
                std::iter::once(v.name)
                    .chain(v.aliases.iter().copied())
                    .map(move |name| (name, i))
            });
        for (name, index) in names {
            // Raw bytes equal to a name containing `"`, `\` or a control byte
            // cannot occur in a string without escapes, so every name is safe here.
            let (same_len, matched, next) = (
                self.b.create_block(),
                self.b.create_block(),
                self.b.create_block(),
            );
            let is_len = self
                .b
                .ins()
                .icmp_imm_s(IntCC::Equal, len, name.len() as i64);
            self.b.ins().brif(is_len, same_len, &[], next, &[]);
            self.b.switch_to_block(same_len);
            let eq = self.bytes_equal(text_start, name.as_bytes());
            self.b.ins().brif(eq, matched, &[], next, &[]);
            self.b.switch_to_block(matched);
            on_match(self, index);
            self.b.switch_to_block(next);
        }
        self.b.ins().jump(miss, &[]);
    }
}

// ---------------------------------------------------------------------------
// Encoding (twin: `encode_enum` in `fallback/src/kind/enum_.rs`)

impl crate::encode::EncodeTranslator<'_, '_> {
    /// An enum in any of serde's four representations: `variant_of` fills a
    /// view of the payload in a stack slot and gives the variant's index, a
    /// switch on which writes the variant's name as constant bytes and its
    /// payload from the view. An internally tagged variant writes its tag
    /// as the first member of its payload's object
    /// ([`emit_internally_tagged`](Self::emit_internally_tagged)). A variant
    /// that is never written (`variant_of` says `usize::MAX`: the interpreter
    /// reports it) is handed to the interpreter.
    pub(crate) fn emit_encode_enum(
        &mut self,
        layout: &'static TypeLayout,
        e: &'static EnumLayout,
        src: Value,
        fail: Block,
    ) {
        let Some(variant_of) = e.variant_of else {
            self.interpreted
                .push(((layout.type_name)(), "enums without a variant_of accessor"));
            return self.emit_interpret(layout, src, fail);
        };
        // One view slot per level of enums nested in this function: siblings
        // share it, a payload's own enums get the next.
        let view = self.enter_view();
        let index = self
            .call_addr(variant_of as usize, &[PTR, PTR], Some(PTR), &[src, view])
            .expect("variant_of returns an index");
        let done = self.b.create_block();
        let skipped = self.b.create_block();
        let mut switch = cranelift_frontend::Switch::new();
        let blocks: Vec<Block> = e
            .variants
            .iter()
            .enumerate()
            .map(|(i, _)| {
                let block = self.b.create_block();
                switch.set_entry(i as u128, block);
                block
            })
            .collect();
        switch.emit(&mut self.b, index, skipped);
        let colon: &[u8] = if self.pretty() { b": " } else { b":" };
        for (i, (variant, block)) in e.variants.iter().zip(blocks).enumerate() {
            self.b.switch_to_block(block);
            let mut name = Vec::new();
            jitson_core::write::write_str(&mut name, variant.name);
            let payload = variant.payload.layout();
            let untagged =
                i >= e.untagged_from || matches!(e.tagging, jitson_core::layout::Tagging::Untagged);
            match (e.tagging, untagged) {
                (_, true) => match payload {
                    None => {
                        self.ensure_const(4, fail);
                        self.write_const(b"null");
                    }
                    Some(payload) => self.emit_value(payload, view, fail, false),
                },
                (jitson_core::layout::Tagging::External, false) => match payload {
                    None => {
                        self.ensure_const(name.len(), fail);
                        self.write_const(&name);
                    }
                    Some(payload) => {
                        let mut open = vec![b'{'];
                        open.extend_from_slice(&self.line(self.depth + 1));
                        open.extend_from_slice(&name);
                        open.extend_from_slice(colon);
                        self.ensure_const(open.len(), fail);
                        self.write_const(&open);
                        let payload_fail =
                            self.path_fail(crate::encode::PathBlock::Name(&variant.name), fail);
                        self.enter_level();
                        self.emit_value(payload, view, payload_fail, false);
                        self.leave_level();
                        let close = self.closing(b'}');
                        self.ensure_const(close.len(), fail);
                        self.write_const(&close);
                    }
                },
                (jitson_core::layout::Tagging::Adjacent { .. }, false) => {
                    let jitson_core::layout::Tagging::Adjacent { tag, content } = &e.tagging else {
                        unreachable!("matched above")
                    };
                    let line = self.line(self.depth + 1);
                    let close = self.closing(b'}');
                    let mut head = vec![b'{'];
                    head.extend_from_slice(&line);
                    jitson_core::write::write_str(&mut head, tag);
                    head.extend_from_slice(colon);
                    head.extend_from_slice(&name);
                    if let Some(payload) = payload {
                        head.push(b',');
                        head.extend_from_slice(&line);
                        jitson_core::write::write_str(&mut head, content);
                        head.extend_from_slice(colon);
                        self.ensure_const(head.len(), fail);
                        self.write_const(&head);
                        let payload_fail =
                            self.path_fail(crate::encode::PathBlock::Name(content), fail);
                        self.enter_level();
                        self.emit_value(payload, view, payload_fail, false);
                        self.leave_level();
                        self.ensure_const(close.len(), fail);
                    } else {
                        self.ensure_const(head.len() + close.len(), fail);
                        self.write_const(&head);
                    }
                    self.write_const(&close);
                }
                (jitson_core::layout::Tagging::Internal { tag }, false) => {
                    let mut head = vec![b'{'];
                    head.extend_from_slice(&self.line(self.depth + 1));
                    jitson_core::write::write_str(&mut head, tag);
                    head.extend_from_slice(colon);
                    head.extend_from_slice(&name);
                    self.emit_internally_tagged(layout, &head, payload, view, src, fail);
                }
                (jitson_core::layout::Tagging::Untagged, false) => {
                    unreachable!("every variant of an untagged enum is untagged")
                }
            }
            self.b.ins().jump(done, &[]);
        }
        self.leave_view();
        // A variant never written: the interpreter reports it.
        self.b.switch_to_block(skipped);
        self.b.set_cold_block(skipped);
        self.emit_interpret(layout, src, fail);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    /// An internally tagged variant: `head` (`{"tag":"Variant"`) and then
    /// what serde writes after the tag, found through the payload's layout
    /// while compiling: a struct's members (through the references, boxes
    /// and transparent newtypes around it), or nothing for a unit. Any other
    /// payload (a map, a struct with flattened fields, or one serde refuses)
    /// has the whole enum at `enum_src` encoded by the interpreter, which
    /// also reports serde's refusal.
    fn emit_internally_tagged(
        &mut self,
        layout: &'static TypeLayout,
        head: &[u8],
        payload: Option<&'static TypeLayout>,
        view: Value,
        enum_src: Value,
        fail: Block,
    ) {
        let mut content = payload;
        let mut at = view;
        loop {
            let Some(inner) = content else {
                let close = self.closing(b'}');
                self.ensure_const(head.len() + close.len(), fail);
                self.write_const(head);
                self.write_const(&close);
                return;
            };
            match &inner.kind {
                Kind::Struct(st) if st.flatten.is_empty() => {
                    return self.emit_encode_members(st, at, fail, Some(head));
                }
                Kind::Unit => content = None,
                Kind::Box(b) => {
                    at = self
                        .call_addr(b.get as usize, &[PTR], Some(PTR), &[at])
                        .expect("get returns a pointer");
                    content = Some(b.inner.get());
                }
                Kind::Newtype(n) if n.transparent => {
                    at = self.b.ins().iadd_imm_s(at, n.offset as i64);
                    content = Some(n.inner.get());
                }
                _ => {
                    self.interpreted.push((
                        (layout.type_name)(),
                        "an internally tagged variant holding a map, flattened fields or a value serde refuses",
                    ));
                    return self.emit_interpret(layout, enum_src, fail);
                }
            }
        }
    }
}
