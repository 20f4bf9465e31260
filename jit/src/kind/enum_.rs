//! Enums in serde's four representations. Twin: `fallback/src/kind/enum_.rs`.
//!
//! - Externally tagged (serde's default): a string is scanned in place and
//!   matched against the unit variants' names with wide compares;
//!   `{"Variant": payload}` is matched the same way on its key.
//! - Internally tagged (`{"type": "Variant", ...}`): the tag's value, read in
//!   place when it comes first (as serde writes it) and found by a helper
//!   otherwise, picks the variant, and the payload's struct function
//!   decodes the object from its `{`, skipping the tag's member as an unknown
//!   key. The state says which key is the tag (`JitState::tag`), so that a
//!   second one is refused as serde refuses it, and that serde buffered the
//!   object (`JitState::buffered`: skipped values are checked as serde checks
//!   buffered ones).
//! - Adjacently tagged, tag first (`{"t": "Variant", "c": payload}`).
//! - Untagged: the value's first byte picks the one variant that may start
//!   with it (`jitson_fallback::may_start_with`, the interpreter's own filter);
//!   where several may, the interpreter tries them in order.
//!
//! A payload is decoded by its layout's own generated function, which the
//! layout's `decode_variant` calls back with a slot on its stack (the generated
//! function *is* the `SlotFn`, as for `Option`). Whatever the fast path does
//! not expect (escaped names, unknown names and so `#[serde(other)]`, a unit
//! variant's tag after other members, content before the tag, sequence forms, payloads that
//! are not structs under an internal tag, a variant's field named like the
//! tag, every error) takes the slow path: the interpreter decodes the whole
//! enum. Enums mixing tagged and `#[serde(untagged)]` variants are interpreted
//! whole.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, InstBuilder, Value, types};
use jitson_core::layout::{EnumLayout, Kind, Payload, StructLayout, Tagging, TypeLayout, Variant};

use crate::helpers;
use crate::translate::{
    FnTranslator, PTR, STATE_TAG, STATE_TAG_DEPTH, STATE_TAG_SEEN, offset_of, state_flags,
};

/// Whether the decoder lowers `en` (otherwise the interpreter decodes it
/// whole): every representation, unless tagged and untagged variants mix.
pub(crate) fn lowers(en: &EnumLayout) -> bool {
    en.tagging == Tagging::Untagged || !en.has_untagged_variants()
}

/// The payload layouts whose functions the lowered enum calls.
pub(crate) fn called_payloads(en: &'static EnumLayout) -> Vec<&'static TypeLayout> {
    if !lowers(en) {
        return Vec::new();
    }
    en.variants
        .iter()
        .enumerate()
        .filter_map(|(i, v)| {
            let payload = v.payload.layout()?;
            let called = match en.tagging {
                Tagging::External | Tagging::Adjacent { .. } => true,
                Tagging::Internal { tag } => tagged_payload(payload, tag).is_some(),
                Tagging::Untagged => FIRST_BYTES
                    .iter()
                    .any(|&b| sole_candidate(en, b) == Some(i)),
            };
            called.then_some(payload)
        })
        .collect()
}

/// The struct an internally tagged variant's payload decodes as, when the
/// payload's function can read the tagged object as it stands: a struct none
/// of whose fields (flattened ones included) is named like the tag (serde
/// gives such a key to the tag, and the field stays absent; the interpreter
/// handles that).
fn tagged_payload(payload: &'static TypeLayout, tag: &str) -> Option<&'static StructLayout> {
    match &payload.kind {
        Kind::Struct(st) if !super::struct_::key_set_has(st, tag) => Some(st),
        _ => None,
    }
}

/// One byte of each class a JSON value can start with (a digit stands for
/// every digit: `may_start_with` answers alike for all of them).
const FIRST_BYTES: [u8; 8] = [b'"', b'{', b'[', b't', b'f', b'n', b'-', b'0'];

/// The only variant of an untagged enum that may decode a value starting with
/// `b`, if exactly one may: a unit variant takes `null`, a data variant what
/// its payload may start with.
fn sole_candidate(en: &EnumLayout, b: u8) -> Option<usize> {
    let mut candidates = en
        .variants
        .iter()
        .enumerate()
        .filter(|(_, v)| match v.payload.layout() {
            None => b == b'n',
            Some(payload) => jitson_fallback::may_start_with(payload, b),
        });
    let (index, _) = candidates.next()?;
    candidates.next().is_none().then_some(index)
}

/// Every variant matches a tag.
fn any_variant(_: &Variant) -> bool {
    true
}

/// Unit variants are named by a string.
fn unit_variant(v: &Variant) -> bool {
    matches!(v.payload, Payload::Unit)
}

/// Data variants are named by an object's key.
fn data_variant(v: &Variant) -> bool {
    !unit_variant(v)
}

impl FnTranslator<'_, '_> {
    /// An enum the decoder [`lowers`], in its representation.
    pub(crate) fn emit_enum(
        &mut self,
        layout: &'static TypeLayout,
        en: &'static EnumLayout,
        dst: Value,
        unwind: Block,
    ) {
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        match &en.tagging {
            Tagging::External => self.emit_external(layout, en, dst, slow, cont, unwind),
            Tagging::Internal { tag } => {
                self.emit_internal(layout, en, tag, start, dst, slow, cont, unwind)
            }
            Tagging::Adjacent { tag, content } => {
                self.emit_adjacent(layout, en, (tag, content), dst, slow, cont, unwind)
            }
            Tagging::Untagged => {
                // A variant may hold the enum again at the same place, which
                // no depth counts (the interpreter reports the stack's end).
                self.check_stack_room(layout, slow);
                self.emit_untagged(en, dst, slow, cont, unwind)
            }
        }
        self.b.switch_to_block(slow);
        self.emit_interpret(layout, dst, start, cont, unwind);
        self.b.switch_to_block(cont);
    }

    /// `{"<tag>": "Variant", ...}`: the tag's value read in place when it
    /// comes first, else found by a helper (`helpers::find_tag`); the builder
    /// is left in a filled block. `tag` points into the enum's layout: the
    /// state and the helper are given its address.
    #[allow(clippy::too_many_arguments, reason = "the enum's blocks and values")]
    fn emit_internal(
        &mut self,
        layout: &'static TypeLayout,
        en: &'static EnumLayout,
        tag: &'static &'static str,
        start: Value,
        dst: Value,
        slow: Block,
        cont: Block,
        unwind: Block,
    ) {
        let c = self.peek_or(slow);
        self.expect_byte(c, b'{', slow);
        // The interpreter enters the object to find the tag, and leaves it
        // before the payload enters it again: only the check is done here.
        let depth = self.enter(layout, slow);
        self.store_depth(depth);
        // A block per variant whose struct payload reads the object as it
        // stands (from its `{`, as serde reads what it buffered, with the
        // tag's member skipped).
        let payloads: Vec<Option<Block>> = en
            .variants
            .iter()
            .map(|v| {
                let payload = v.payload.layout()?;
                tagged_payload(payload, tag).map(|_| self.b.create_block())
            })
            .collect();

        // The tag first: its value matched in place.
        let later = self.b.create_block();
        self.advance(1);
        self.emit_expect_key(tag, later);
        let c = self.peek_or(slow);
        self.expect_byte(c, b'"', slow);
        self.advance(1);
        let (name_start, end) = self.emit_scan_name(slow);
        let after = self.b.ins().iadd_imm_s(end, 1);
        self.emit_match_names(en, name_start, end, any_variant, slow, |t, index| {
            t.set_pos(after);
            if let Some(block) = payloads[index] {
                t.b.ins().jump(block, &[]);
            } else if en.variants[index].payload.layout().is_none() {
                // A unit variant's object holds its tag alone here; other
                // members are ignored by the interpreter.
                let c = t.peek_or(slow);
                t.expect_byte(c, b'}', slow);
                t.advance(1);
                let index = t.b.ins().iconst(PTR, index as i64);
                t.call_addr(en.write as usize, &[PTR, PTR], None, &[dst, index]);
                t.b.ins().jump(cont, &[]);
            } else {
                t.b.ins().jump(slow, &[]);
            }
        });

        // The tag later: found by the helper, dispatched on its variant.
        self.b.switch_to_block(later);
        self.set_pos(start);
        self.store_pos();
        let en_ptr = self.const_ptr(en as *const EnumLayout);
        let tag_ptr = self.const_ptr(tag as *const &'static str);
        let index = self
            .call_addr(
                helpers::find_tag as *const () as usize,
                &[PTR, PTR, PTR],
                Some(types::I64),
                &[self.state, en_ptr, tag_ptr],
            )
            .expect("returns an index");
        let mut switch = cranelift_frontend::Switch::new();
        for (i, block) in payloads.iter().enumerate() {
            if let Some(block) = block {
                switch.set_entry(i as u128, *block);
            }
        }
        switch.emit(&mut self.b, index, slow);

        for (index, block) in payloads.into_iter().enumerate() {
            let Some(block) = block else { continue };
            self.b.switch_to_block(block);
            let payload = en.variants[index].payload.layout().expect("a data variant");
            self.set_pos(start);
            let saved = self.enter_tagged_payload(tag);
            let ok = self.emit_decode_payload(en, index, payload, dst);
            self.leave_tagged_payload(saved);
            self.b.ins().brif(ok, cont, &[], unwind, &[]);
        }
    }

    /// `{"<tag>": "Variant", "<content>": payload}` with the tag first (or
    /// `{"<tag>": "Unit"}`); the builder is left in a filled block.
    #[allow(clippy::too_many_arguments, reason = "the enum's blocks and values")]
    fn emit_adjacent(
        &mut self,
        layout: &'static TypeLayout,
        en: &'static EnumLayout,
        (tag, content): (&str, &str),
        dst: Value,
        slow: Block,
        cont: Block,
        unwind: Block,
    ) {
        let c = self.peek_or(slow);
        self.expect_byte(c, b'{', slow);
        let depth = self.enter(layout, slow);
        self.advance(1);
        // Leaving before the variant is written: restore the depth.
        let (early, failed) = (self.b.create_block(), self.b.create_block());
        self.emit_expect_key(tag, early);
        let c = self.peek_or(early);
        self.expect_byte(c, b'"', early);
        self.advance(1);
        let (name_start, end) = self.emit_scan_name(early);
        let after = self.b.ins().iadd_imm_s(end, 1);
        let written = self.b.create_block();
        self.emit_match_names(en, name_start, end, any_variant, early, |t, index| {
            t.set_pos(after);
            let c = t.peek_or(early);
            match en.variants[index].payload.layout() {
                None => {
                    t.expect_byte(c, b'}', early);
                    let index = t.b.ins().iconst(PTR, index as i64);
                    t.call_addr(en.write as usize, &[PTR, PTR], None, &[dst, index]);
                    t.b.ins().jump(written, &[]);
                }
                Some(payload) => {
                    t.expect_byte(c, b',', early);
                    t.advance(1);
                    t.emit_expect_key(content, early);
                    let ok = t.emit_decode_payload(en, index, payload, dst);
                    t.b.ins().brif(ok, written, &[], failed, &[]);
                }
            }
        });
        self.emit_close_variant(
            layout,
            dst,
            depth,
            written,
            (early, failed),
            slow,
            cont,
            unwind,
        );
    }

    /// An untagged enum: the variant that alone may start with the value's
    /// first byte decodes it; where none or several may, the slow path. The
    /// builder is left in a filled block.
    fn emit_untagged(
        &mut self,
        en: &'static EnumLayout,
        dst: Value,
        slow: Block,
        cont: Block,
        unwind: Block,
    ) {
        let c = self.peek_or(slow);
        let mut switch = cranelift_frontend::Switch::new();
        // One block per variant that is some byte's sole candidate.
        let mut blocks: Vec<Option<Block>> = vec![None; en.variants.len()];
        for first in 0..=u8::MAX {
            let class = match first {
                b'1'..=b'9' => b'0',
                other => other,
            };
            if !FIRST_BYTES.contains(&class) {
                continue;
            }
            if let Some(index) = sole_candidate(en, class) {
                let block = *blocks[index].get_or_insert_with(|| self.b.create_block());
                switch.set_entry(u128::from(first), block);
            }
        }
        switch.emit(&mut self.b, c, slow);
        for (index, block) in blocks.iter().enumerate() {
            let Some(block) = *block else { continue };
            self.b.switch_to_block(block);
            match en.variants[index].payload.layout() {
                None => {
                    // `null`, its bytes compared at once.
                    let p = self.get_pos();
                    self.require(p, 4, slow);
                    let is_null = self.bytes_equal(p, b"null");
                    let matched = self.b.create_block();
                    self.b.ins().brif(is_null, matched, &[], slow, &[]);
                    self.b.switch_to_block(matched);
                    self.advance(4);
                    let index = self.b.ins().iconst(PTR, index as i64);
                    self.call_addr(en.write as usize, &[PTR, PTR], None, &[dst, index]);
                    self.b.ins().jump(cont, &[]);
                }
                Some(payload) => {
                    // serde decodes the variant from the value it buffered.
                    self.adjust_buffered(1);
                    let ok = self.emit_decode_payload(en, index, payload, dst);
                    self.adjust_buffered(-1);
                    self.b.ins().brif(ok, cont, &[], unwind, &[]);
                }
            }
        }
    }

    /// Reads `"<key>":` (a key without escapes, whitespace allowed around it),
    /// or goes to `other`.
    fn emit_expect_key(&mut self, key: &str, other: Block) {
        let c = self.peek_or(other);
        self.expect_byte(c, b'"', other);
        self.advance(1);
        let (text_start, end) = self.emit_scan_name(other);
        let len = self.b.ins().isub(end, text_start);
        let matched = self.b.create_block();
        self.emit_text_is(text_start, len, key, matched, other);
        self.b.switch_to_block(matched);
        let after = self.b.ins().iadd_imm_s(end, 1);
        self.set_pos(after);
        let c = self.peek_or(other);
        self.expect_byte(c, b':', other);
        self.advance(1);
    }

    /// Decodes variant `index`'s payload at `pos` into the enum at `dst`
    /// through the layout's `decode_variant`, which calls the payload's
    /// function back; returns whether it succeeded (on failure the payload's
    /// function has already asked the interpreter).
    fn emit_decode_payload(
        &mut self,
        en: &'static EnumLayout,
        index: usize,
        payload: &'static TypeLayout,
        dst: Value,
    ) -> Value {
        let f = self.func_ref(payload);
        let callback = self.b.ins().func_addr(PTR, f);
        let index = self.b.ins().iconst(PTR, index as i64);
        self.store_pos();
        let ok = self
            .call_addr(
                en.decode_variant as usize,
                &[PTR, PTR, PTR, PTR],
                Some(types::I8),
                &[dst, index, callback, self.state],
            )
            .expect("returns bool");
        self.load_pos();
        ok
    }

    /// Before decoding an internally tagged payload, which serde reads from
    /// what it buffered: one more level of buffering in the state, and the
    /// tag its object skips, at the current depth. Returns the state's tag
    /// fields as they were, for [`leave_tagged_payload`](Self::leave_tagged_payload).
    fn enter_tagged_payload(&mut self, tag: &'static &'static str) -> [Value; 3] {
        let flags = state_flags();
        let fields = [
            (PTR, STATE_TAG),
            (types::I32, STATE_TAG_DEPTH),
            (types::I32, STATE_TAG_SEEN),
        ];
        let saved = fields.map(|(ty, at)| self.b.ins().load(ty, flags, self.state, offset_of(at)));
        let tag = self.const_ptr(tag as *const &'static str);
        let depth = self.load_depth();
        let unseen = self.b.ins().iconst(types::I32, 0);
        for (value, (_, at)) in [tag, depth, unseen].into_iter().zip(fields) {
            self.b.ins().store(flags, value, self.state, offset_of(at));
        }
        self.adjust_buffered(1);
        saved
    }

    /// Restores what [`enter_tagged_payload`](Self::enter_tagged_payload) saved.
    fn leave_tagged_payload(&mut self, saved: [Value; 3]) {
        let flags = state_flags();
        for (value, at) in saved
            .into_iter()
            .zip([STATE_TAG, STATE_TAG_DEPTH, STATE_TAG_SEEN])
        {
            self.b.ins().store(flags, value, self.state, offset_of(at));
        }
        self.adjust_buffered(-1);
    }

    /// An externally tagged enum: `"Unit"` or `{"Variant": payload}`; the
    /// builder is left in a filled block.
    fn emit_external(
        &mut self,
        layout: &'static TypeLayout,
        en: &'static EnumLayout,
        dst: Value,
        slow: Block,
        cont: Block,
        unwind: Block,
    ) {
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
        self.emit_match_names(en, text_start, end, unit_variant, slow, |t, index| {
            t.set_pos(after);
            let index = t.b.ins().iconst(PTR, index as i64);
            t.call_addr(en.write as usize, &[PTR, PTR], None, &[dst, index]);
            t.b.ins().jump(cont, &[]);
        });
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
        self.emit_match_names(en, text_start, end, data_variant, early, |t, index| {
            let payload = en.variants[index]
                .payload
                .layout()
                .expect("only data variants match here");
            let ok = t.emit_decode_payload(en, index, payload, dst);
            t.b.ins().brif(ok, written, &[], failed, &[]);
        });

        self.emit_close_variant(
            layout,
            dst,
            depth,
            written,
            (early, failed),
            slow,
            cont,
            unwind,
        );
    }

    /// The end of a variant's object, entered at `depth`: from `written` (the
    /// variant is at `dst`) only `}` may follow, anything else drops the
    /// variant and takes the slow path; `early` (nothing written) takes the
    /// slow path, `failed` (the payload failed) goes to `unwind`. Each restores
    /// the depth.
    #[allow(clippy::too_many_arguments, reason = "the enum's blocks and values")]
    fn emit_close_variant(
        &mut self,
        layout: &'static TypeLayout,
        dst: Value,
        depth: Value,
        written: Block,
        (early, failed): (Block, Block),
        slow: Block,
        cont: Block,
        unwind: Block,
    ) {
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
    /// variants `which` selects; calls `on_match` in a block of its own for
    /// each, and leaves the builder where no name matched, jumping to `miss`.
    fn emit_match_names(
        &mut self,
        en: &EnumLayout,
        text_start: Value,
        end: Value,
        which: fn(&Variant) -> bool,
        miss: Block,
        mut on_match: impl FnMut(&mut Self, usize),
    ) {
        let len = self.b.ins().isub(end, text_start);
        let names = en
            .variants
            .iter()
            .enumerate()
            .filter(|(_, v)| which(v))
            .flat_map(|(i, v)| {
                std::iter::once(v.name)
                    .chain(v.aliases.iter().copied())
                    .map(move |name| (name, i))
            });
        for (name, index) in names {
            let (matched, next) = (self.b.create_block(), self.b.create_block());
            self.emit_text_is(text_start, len, name, matched, next);
            self.b.switch_to_block(matched);
            on_match(self, index);
            self.b.switch_to_block(next);
        }
        self.b.ins().jump(miss, &[]);
    }

    /// Jumps to `matched` if the `len` bytes of text at `text_start` (a
    /// string without escapes) are `name`, else to `miss`. Raw bytes equal to
    /// a name containing `"`, `\` or a control byte cannot occur in such a
    /// string, so every name is safe here.
    fn emit_text_is(
        &mut self,
        text_start: Value,
        len: Value,
        name: &str,
        matched: Block,
        miss: Block,
    ) {
        let same_len = self.b.create_block();
        let is_len = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, len, name.len() as i64);
        self.b.ins().brif(is_len, same_len, &[], miss, &[]);
        self.b.switch_to_block(same_len);
        let eq = self.bytes_equal(text_start, name.as_bytes());
        self.b.ins().brif(eq, matched, &[], miss, &[]);
    }
}

// ---------------------------------------------------------------------------
// Encoding (twin: `encode_enum` in `fallback/src/kind/enum_.rs`)

impl crate::encode::EncodeTranslator<'_, '_> {
    /// The switch on the variant written: the payload's view in a new view
    /// slot (one per level of enums nested in this function: siblings share
    /// it, a payload's own enums get the next; [`leave_view`](Self::leave_view)
    /// when done), a block per variant, and the block for an index past them
    /// (a variant never written). Returns the view, the blocks and that one.
    pub(crate) fn emit_variant_switch(
        &mut self,
        e: &'static EnumLayout,
        variant_of: jitson_core::layout::VariantOfFn,
        src: Value,
    ) -> (Value, Vec<Block>, Block) {
        let view = self.enter_view();
        let index = self
            .call_addr(variant_of as usize, &[PTR, PTR], Some(PTR), &[src, view])
            .expect("variant_of returns an index");
        let skipped = self.b.create_block();
        let mut switch = cranelift_frontend::Switch::new();
        let blocks: Vec<Block> = (0..e.variants.len())
            .map(|i| {
                let block = self.b.create_block();
                switch.set_entry(i as u128, block);
                block
            })
            .collect();
        switch.emit(&mut self.b, index, skipped);
        (view, blocks, skipped)
    }

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
        let (view, blocks, skipped) = self.emit_variant_switch(e, variant_of, src);
        let done = self.b.create_block();
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
    /// and transparent newtypes around it; its flattened fields' members
    /// written in place by the interpreter), or nothing for a unit. Any other
    /// payload (a map, or one serde refuses)
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
        match self.tagged_content(payload, view) {
            TaggedContent::Members(st, at) => self.emit_encode_members(st, at, fail, Some(head)),
            TaggedContent::Nothing => {
                let close = self.closing(b'}');
                self.ensure_const(head.len() + close.len(), fail);
                self.write_const(head);
                self.write_const(&close);
            }
            TaggedContent::Refused => {
                self.interpreted.push((
                    (layout.type_name)(),
                    "an internally tagged variant holding a map or a value serde refuses",
                ));
                self.emit_interpret(layout, enum_src, fail);
            }
        }
    }

    /// What serde writes after an internally tagged variant's tag, found
    /// through the payload's layout while compiling: a struct's members
    /// (through the references, boxes and transparent newtypes around it,
    /// the struct's address loaded on the way), nothing for a unit or no
    /// payload, or `Refused` for anything else (a map, or a value serde
    /// refuses), which the interpreter writes or reports. Shared by the
    /// enum as a value and flattened (`emit_flattened_enum`).
    pub(crate) fn tagged_content(
        &mut self,
        payload: Option<&'static TypeLayout>,
        view: Value,
    ) -> TaggedContent {
        let mut content = payload;
        let mut at = view;
        loop {
            let Some(inner) = content else {
                return TaggedContent::Nothing;
            };
            match &inner.kind {
                Kind::Struct(st) => return TaggedContent::Members(st, at),
                Kind::Unit => return TaggedContent::Nothing,
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
                _ => return TaggedContent::Refused,
            }
        }
    }
}

/// [`tagged_content`](crate::encode::EncodeTranslator::tagged_content)'s answer.
pub(crate) enum TaggedContent {
    /// The members of this struct, at this address.
    Members(&'static StructLayout, Value),
    /// Nothing after the tag.
    Nothing,
    /// Not written by generated code.
    Refused,
}
