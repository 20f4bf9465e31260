//! Structs. Twin: `fallback/src/kind/struct_.rs`.
//!
//! One generated function per struct layout. Keys are expected in the order
//! learned from documents (`CompileOptions::key_orders`), else in declaration
//! order: after field `i`, the code compares the next raw key bytes (plus the
//! closing quote) against the name of the field expected next with wide loads
//! and, on a match, calls that field's member function. A member function (one
//! per distinct field layout in the module, shared by every field of that layout)
//! decodes `: value` and what follows it, and returns a [`MemberStatus`] with
//! the position (which it also takes, in a register: `crate::signature`); per
//! field, the struct function is the speculative compare, the call and a status
//! test (issue 10: compile time follows the IR per field, and this is about a
//! third of what inline `:`/`,` handling and an inline key dispatch cost).
//!
//! Any other key goes to the `match_key` helper, which finds it in the struct's
//! [`KeyTable`] (or unescapes and validates it) and returns the field index for
//! a jump table, or -1 for an unknown key, whose value is skipped. A `seen`
//! bitmap (an i64 variable per 64 fields: one for most structs) records
//! written fields: a repeated key goes to the slow path (where the
//! interpreter reports it, or under
//! `DuplicateKeys::LastWins` replaces the earlier value), missing required
//! fields too, and every exit that gives up drops exactly the fields written. A
//! field that fails fails the struct; under `LastWins` the caller's interpreter
//! (arrow's record decoder) decodes the record again, and may defer the error
//! to a later value of the same key.
//!
//! Names containing `"`, `\` or control characters can only appear escaped in
//! JSON; they are never compared raw.
//!
//! A struct with `#[serde(flatten)]` fields is read as one key set
//! ([`Flattening`]): its own fields, then each flattened struct's, depth first
//! in declaration order (the order in which the interpreter offers a key to
//! them), at their offsets inside the parent; a flattened map with text keys
//! collects the keys none of them claims (`helpers::insert_rest`, its values
//! decoded by their own function), a flattened field read by its serde
//! function collects their text and is decoded from it once the object is
//! read ([`Rest::Serde`]), and without either they are skipped as serde
//! checks what it buffers. Flattened options and enums, maps with parsed
//! keys, a second map or serde field and `deny_unknown_fields` are the
//! interpreter's.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    Block, BlockArg, InstBuilder, StackSlotData, StackSlotKind, Value, types,
};
use cranelift_frontend::Variable;
use jitson_core::keys::KeyTable;
use jitson_core::layout::{
    DuplicateKeys, EnumLayout, Field, Kind, MapLayout, SkipMode, SkippedField, StructLayout,
    Tagging, TypeLayout,
};

use crate::Role;
use crate::helpers;
use crate::kind::enum_::TaggedContent;
use crate::translate::{FnTranslator, PTR};

/// What a member function returns (an `i8`): whether it wrote the value, and
/// where the struct goes next.
#[derive(Clone, Copy)]
#[repr(i8)]
pub(crate) enum MemberStatus {
    /// Written; `,` consumed; `pos` at the next key's opening quote.
    Next = 0,
    /// Written; `pos` at the closing `}`.
    Close = 1,
    /// Written, but followed by neither `,` and a key nor `}`: the struct gives
    /// up (the interpreter decodes it whole, and reports what is wrong).
    WrittenBail = 2,
    /// Nothing written (no `:` after the key): the struct gives up.
    Bail = 3,
    /// The value failed for good (the interpreter could not decode it):
    /// nothing written.
    Failed = 4,
}

/// The fields that must be present (no default, not optional) and those filled
/// when absent, as bitmaps by field index in the words of a written-field set
/// (bit `i % 64` of word `i / 64`; `helpers::seen_words` words).
pub(super) fn presence_masks(st: &StructLayout) -> (Vec<u64>, Vec<u64>) {
    let words = helpers::seen_words(st.fields.len());
    let (mut required, mut fillable) = (vec![0u64; words], vec![0u64; words]);
    for (i, f) in st.fields.iter().enumerate() {
        let mask = if f.default.is_none() && !f.layout.get().is_optional() {
            &mut required
        } else {
            &mut fillable
        };
        mask[i / 64] |= 1 << (i % 64);
    }
    (required, fillable)
}

/// The one key set of a struct with flattened fields, as the generated code
/// reads it (twin: the interpreter's `decode_flattening`, whose targets come
/// in the same order). Owned by the compiled module, whose code points to
/// [`layout`](Self::layout).
pub(crate) struct Flattening {
    /// A struct layout over the parent's fields, then each flattened
    /// struct's (depth first, in declaration order), with their offsets
    /// inside the parent, and the skipped fields of all of them likewise.
    /// Its slices are `owned`.
    layout: StructLayout,
    /// The slices `layout` borrows, from `Box::into_raw`; freed on drop.
    owned: (*mut [Field], *mut [SkippedField]),
    /// What collects the keys no field claims.
    rest: Option<Rest>,
    /// How many of `fields` are the parent's own: the others' values are
    /// read as serde reads what it buffered.
    own: usize,
}

// SAFETY: a `Flattening` is never changed after it is built, and what its
// pointers own (field descriptions: names, offsets, `'static` layouts and
// plain functions) is itself `Send` and `Sync`.
unsafe impl Send for Flattening {}
// SAFETY: as for `Send`.
unsafe impl Sync for Flattening {}

impl Drop for Flattening {
    fn drop(&mut self) {
        // SAFETY: both came from `Box::into_raw` in `new` and are freed once,
        // here; `layout`, which borrows them, goes with `self`.
        unsafe {
            drop(Box::from_raw(self.owned.0));
            drop(Box::from_raw(self.owned.1));
        }
    }
}

/// Where a flattening struct puts the members none of its fields claims
/// (offsets inside the outermost struct).
#[derive(Clone, Copy)]
pub(crate) enum Rest {
    /// A flattened map with text keys: each member inserted as it is read
    /// (`helpers::insert_rest`).
    Map {
        offset: usize,
        layout: &'static TypeLayout,
        map: &'static MapLayout,
    },
    /// A flattened field read by its serde function (`Kind::Serde`, e.g.
    /// `#[serde(flatten, deserialize_with = ...)]`): the members' text
    /// collected as they are read (`helpers::collect_rest`), and the field
    /// decoded from it as one object once the struct's object is read
    /// (`helpers::finish_rest`), as the interpreter's `decode_rest_value`
    /// decodes it.
    Serde {
        offset: usize,
        layout: &'static TypeLayout,
    },
}

/// The parts of a [`Flattening`], before they are owned.
type FlattenedParts = (Vec<Field>, Vec<SkippedField>, Option<Rest>);

/// Collects the fields of `st` and of the structs it flattens, at `base`
/// inside the outermost struct, into `parts`; `Err` names why the JIT leaves
/// the struct to the interpreter.
fn collect_flattened(
    st: &StructLayout,
    base: usize,
    parts: &mut FlattenedParts,
) -> Result<(), &'static str> {
    parts.0.extend(st.fields.iter().map(|f| Field {
        name: f.name,
        aliases: f.aliases,
        offset: base + f.offset,
        layout: f.layout,
        default: f.default,
        skip_if: f.skip_if,
    }));
    parts.1.extend(st.skipped.iter().map(|f| SkippedField {
        name: f.name,
        offset: base + f.offset,
        init: f.init,
        drop: f.drop,
    }));
    for flat in st.flatten {
        let layout = flat.layout.get();
        match &layout.kind {
            Kind::Struct(inner) => collect_flattened(inner, base + flat.offset, parts)?,
            Kind::Map(map) if map.has_text_keys() && parts.2.is_none() => {
                let offset = base + flat.offset;
                parts.2 = Some(Rest::Map {
                    offset,
                    layout,
                    map,
                });
            }
            // Its members' text is assembled, and it would borrow it: the
            // interpreter refuses it.
            Kind::Serde(serde) if serde.borrows => {
                return Err("a flattened value that borrows its text");
            }
            Kind::Serde(_) if parts.2.is_none() => {
                let offset = base + flat.offset;
                parts.2 = Some(Rest::Serde { offset, layout });
            }
            Kind::Map(map) if map.has_text_keys() => {
                return Err("two flattened maps or serde fields");
            }
            Kind::Serde(_) => return Err("two flattened maps or serde fields"),
            _ => return Err("flattened options, or maps with parsed keys"),
        }
    }
    Ok(())
}

/// The parts of `st`'s key set, or why the JIT does not read it as one.
fn flattened_parts(st: &StructLayout) -> Result<FlattenedParts, &'static str> {
    if st.deny_unknown_fields {
        return Err("flattened fields with deny_unknown_fields");
    }
    if st.duplicate_keys != DuplicateKeys::Error {
        return Err("flattened fields where the last of repeated keys wins");
    }
    let mut parts = (Vec::new(), Vec::new(), None);
    collect_flattened(st, 0, &mut parts)?;
    Ok(parts)
}

/// Whether a key of the struct's key set (its fields' names and aliases, and
/// those of the structs it flattens) is `key`.
pub(crate) fn key_set_has(st: &StructLayout, key: &str) -> bool {
    let named = |fields: &[Field]| fields.iter().any(|f| f.matches(key.as_bytes()));
    if st.flatten.is_empty() {
        return named(st.fields);
    }
    // A struct whose flattening is refused is interpreted whole: its own
    // fields are what matter then, but looking further costs nothing.
    match flattened_parts(st) {
        Ok((fields, _, _)) => named(&fields),
        Err(_) => named(st.fields),
    }
}

/// Why the JIT leaves a struct with flattened fields to the interpreter, or
/// `None` when it reads them as one key set.
pub(crate) fn flatten_refusal(st: &StructLayout) -> Option<&'static str> {
    flattened_parts(st).err()
}

/// The layouts a flattening struct's function calls: a member function per
/// field of the key set, and the value function of the map collecting the
/// rest. Empty when the struct is refused.
pub(crate) fn flattened_children(
    st: &'static StructLayout,
) -> Vec<(&'static TypeLayout, Option<crate::Role>)> {
    let Ok((fields, _, rest)) = flattened_parts(st) else {
        return Vec::new();
    };
    let mut children: Vec<_> = fields
        .iter()
        .map(|f| (f.layout.get(), Some(crate::Role::Member)))
        .collect();
    if let Some(Rest::Map { map, .. }) = rest {
        children.push((map.value.get(), Some(crate::Role::Value)));
    }
    children
}

impl Flattening {
    /// The key set of `st`, which [`flatten_refusal`] accepts.
    fn new(st: &StructLayout) -> Box<Flattening> {
        let (fields, skipped, rest) =
            flattened_parts(st).expect("refused structs are not compiled");
        let owned = (
            Box::into_raw(fields.into_boxed_slice()),
            Box::into_raw(skipped.into_boxed_slice()),
        );
        // SAFETY: the slices are freed only when this `Flattening` drops
        // (`Drop`), and the layout that borrows them is a field of the same
        // value, handed out only as a reference that the compiled module,
        // which owns the box, uses no longer than its code lives.
        let (field_refs, skipped_refs): (&'static [Field], &'static [SkippedField]) =
            unsafe { (&*owned.0, &*owned.1) };
        Box::new(Flattening {
            layout: StructLayout {
                name: st.name,
                fields: field_refs,
                skipped: skipped_refs,
                deny_unknown_fields: false,
                duplicate_keys: DuplicateKeys::Error,
                skip_unknown: SkipMode::Validate,
                flatten: &[],
            },
            owned,
            rest,
            own: st.fields.len(),
        })
    }
}

/// Whether `name` can be compared against raw key bytes.
pub(super) fn is_plain(name: &str) -> bool {
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
        // A struct with flattened fields is read as its one key set; serde
        // buffers the members none of its fields claims.
        let flattens = !st.flatten.is_empty();
        let (st, rest, own) = if !flattens {
            (st, None, st.fields.len())
        } else {
            let flattening = Flattening::new(st);
            let layout_ptr: *const StructLayout = &raw const flattening.layout;
            // SAFETY: the box is owned by the module's data (pushed below),
            // which is freed only after the module's code, the one user of
            // this reference; the box does not move its content.
            let combined: &'static StructLayout = unsafe { &*layout_ptr };
            let (rest, own) = (flattening.rest, flattening.own);
            self.data.flattenings.push(flattening);
            (combined, rest, own)
        };
        let fields = st.fields;
        let n = fields.len();
        let start = self.get_pos();
        let depth0 = self.load_depth();
        // The map collecting the rest is made first, and a serde field's
        // collector (a pointer, null until the first member) is cleared:
        // every exit that gives up drops them (`emit_drop_rest`).
        let collector = match rest {
            Some(Rest::Serde { .. }) => {
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    8,
                    3,
                ));
                let null = self.b.ins().iconst(PTR, 0);
                self.b.ins().stack_store(PTR, null, slot, 0);
                Some(self.b.ins().stack_addr(PTR, slot, 0))
            }
            _ => None,
        };
        if let Some(Rest::Map { offset, map, .. }) = rest {
            let at = self.b.ins().iadd_imm_s(dst, offset as i64);
            let made = self
                .call_addr(map.new as usize, &[PTR], Some(types::I8), &[at])
                .expect("returns bool");
            let (ok, failed) = (self.b.create_block(), self.b.create_block());
            self.b.ins().brif(made, ok, &[], failed, &[]);
            self.b.switch_to_block(failed);
            self.b.set_cold_block(failed);
            self.ret(false);
            self.b.switch_to_block(ok);
        }
        // The written-field set: one i64 variable per 64 fields (field `i` is
        // bit `i % 64` of word `i / 64`), so a field's code touches one word and
        // a struct of at most 64 fields has the one variable it always had.
        let words = helpers::seen_words(n);
        let zero = self.b.ins().iconst(types::I64, 0);
        let seen: Vec<Variable> = (0..words)
            .map(|_| {
                let var = self.b.declare_var(types::I64);
                self.b.def_var(var, zero);
                var
            })
            .collect();

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
        // field i's value. Where a previous order is kept (`KeyOrders::
        // alternates`: documents changed order, or two orders alternate), its
        // field is tried second, before the key is looked up.
        let order = self.key_orders.speculation(st);
        let alternates = self.key_orders.alternates(st);
        let mut next = vec![dispatch; n];
        for pair in order.windows(2) {
            next[pair[0]] = key_blocks[pair[1]];
        }
        let mut second_tries = Vec::new();
        let mut second_guess = |primary: Option<usize>, alternate: usize, translator: &mut Self| {
            let second = translator.b.create_block();
            second_tries.push((second, alternate, dispatch));
            match primary {
                Some(p) => {
                    let first = translator.b.create_block();
                    second_tries.push((first, p, second));
                    first
                }
                None => second,
            }
        };
        let successor = |i: usize| {
            order
                .iter()
                .position(|&f| f == i)
                .and_then(|k| order.get(k + 1).copied())
        };
        for (i, alternate) in alternates.after.iter().enumerate() {
            if let Some(a) = *alternate {
                next[i] = second_guess(successor(i), a, self);
            }
        }
        let first = match alternates.first {
            Some(a) => second_guess(order.first().copied(), a, self),
            None => order.first().map_or(dispatch, |&i| key_blocks[i]),
        };
        let key_after = |i: usize| next[i];

        // `{`, then `}` or the first key.
        self.emit_open_container(b'{', layout, bail);
        let c = self.peek_or(bail);
        self.branch_if_byte(c, b'}', close);
        self.expect_byte(c, b'"', bail);
        self.b.ins().jump(first, &[]);

        // Speculation: the key at `pos` (an opening quote) is field i's name;
        // else the lookup, or for a second guess, the alternate's name.
        // A field whose name an earlier field also has (a flattened struct's,
        // shadowed by its parent's) never receives that key: it is never
        // speculated on, and the lookup gives the key to the first.
        let shadowed: Vec<bool> = (0..n)
            .map(|i| {
                fields[..i]
                    .iter()
                    .any(|f| f.matches(fields[i].name.as_bytes()))
            })
            .collect();
        for (i, &block) in key_blocks.iter().enumerate() {
            self.emit_key_test(
                block,
                fields[i].name,
                !shadowed[i],
                value_blocks[i],
                dispatch,
            );
        }
        for (block, j, miss) in second_tries {
            self.emit_key_test(block, fields[j].name, !shadowed[j], value_blocks[j], miss);
        }

        // Field i's member: a repeated key gives up; otherwise the member
        // function of the field's layout decodes `: value` and what follows, and
        // says where to go next. Every field of one layout calls the same
        // function, so a struct's code is its key speculation and this call per
        // field (issue 10: compile time follows the IR per field).
        // `after` takes every status but `Next`, with the field's word of
        // `seen` as it was before the call: the call's bit is set on the way
        // in, and `after` keeps it only if the value was written (the shared
        // block does that test, not every field). One `after` per word, each
        // restoring only its word; past 64 fields they meet in `tail`.
        let afters: Vec<Block> = (0..words)
            .map(|_| {
                let after = self.b.create_block();
                self.b.append_block_param(after, types::I8);
                self.b.append_block_param(after, types::I64);
                after
            })
            .collect();
        for (i, field) in fields.iter().enumerate() {
            let (word, after, mask) = (seen[i / 64], afters[i / 64], 1i64 << (i % 64));
            self.b.switch_to_block(value_blocks[i]);
            let s = self.b.use_var(word);
            let bit = self.b.ins().band_imm_s(s, mask);
            let fresh = self.b.create_block();
            self.b.ins().brif(bit, bail, &[], fresh, &[]);
            self.b.switch_to_block(fresh);
            let at = self.b.ins().iadd_imm_s(dst, field.offset as i64);
            let f = self.role_func_ref(Role::Member, field.layout.get());
            // A flattened struct's field: serde reads it from what it buffered.
            let buffered = i >= own;
            if buffered {
                self.adjust_buffered(1);
            }
            // `pos` goes in and comes back in registers (`crate::signature`).
            let pos = self.get_pos();
            let call = self.b.ins().call(f, &[self.state, at, pos]);
            let (st, pos) = (self.b.inst_results(call)[0], self.b.inst_results(call)[1]);
            self.set_pos(pos);
            if buffered {
                self.adjust_buffered(-1);
            }
            let marked = self.b.ins().bor_imm_s(s, mask);
            self.b.def_var(word, marked);
            let next = self
                .b
                .ins()
                .icmp_imm_s(IntCC::Equal, st, MemberStatus::Next as i64);
            self.b.ins().brif(
                next,
                key_after(i),
                &[],
                after,
                &[BlockArg::Value(st), BlockArg::Value(s)],
            );
        }
        // Any status but `Next`, from any field (and from an unknown key's
        // member, which sets no bit: it restores word 0 as it is). Statuses
        // below `Bail` wrote the value: its bit stays, for the drop on every
        // exit that gives up.
        let tail = if words == 1 {
            afters[0]
        } else {
            let tail = self.b.create_block();
            self.b.append_block_param(tail, types::I8);
            tail
        };
        for (&word, &after) in seen.iter().zip(&afters) {
            self.b.switch_to_block(after);
            let (status, unmarked) = (self.b.block_params(after)[0], self.b.block_params(after)[1]);
            let written =
                self.b
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedLessThan, status, MemberStatus::Bail as i64);
            let marked = self.b.use_var(word);
            let s = self.b.ins().select(written, marked, unmarked);
            self.b.def_var(word, s);
            if words > 1 {
                self.b.ins().jump(tail, &[BlockArg::Value(status)]);
            }
        }
        if words > 1 {
            self.b.switch_to_block(tail);
        }
        let status = self.b.block_params(tail)[0];
        let is_close = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, status, MemberStatus::Close as i64);
        let not_close = self.b.create_block();
        self.b.ins().brif(is_close, close, &[], not_close, &[]);
        self.b.switch_to_block(not_close);
        let failed = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, status, MemberStatus::Failed as i64);
        self.b.ins().brif(failed, unwind, &[], bail, &[]);

        // Dispatch: a key that missed the speculation, resolved by a helper,
        // which unescapes and validates it and continues here: no whole-struct
        // slow path, so a document full of escaped or reordered keys costs no
        // re-decoding.
        self.b.switch_to_block(dispatch);
        // `pos` is on the key's quote; the helper returns the field index, -1
        // for an unknown key (checked to be UTF-8), or -2 for a malformed key.
        let key_at = self.get_pos();
        self.store_pos();
        let table = Box::new(KeyTable::new(st));
        let table_ptr = self.const_ptr(&raw const *table);
        self.data.key_tables.push(table);
        let st_ptr = self.const_ptr(st as *const StructLayout);
        let index = self
            .call_addr(
                helpers::match_key as *const () as usize,
                &[PTR, PTR, PTR],
                Some(types::I64),
                &[self.state, st_ptr, table_ptr],
            )
            .expect("returns the index");
        self.load_pos();
        // A field's key that missed the speculation is counted, when asked, so
        // the facade can tell documents whose order drifted from the one
        // compiled (unknown keys are not: no order would have matched them).
        if let Some(counter) = self.miss_counter {
            let addr = self.const_ptr(counter);
            let known = self
                .b
                .ins()
                .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, index, 0);
            let one = self.b.ins().uextend(types::I64, known);
            self.b.ins().atomic_rmw(
                types::I64,
                crate::translate::state_flags(),
                cranelift_codegen::ir::AtomicRmwOp::Add,
                addr,
                one,
            );
        }
        let mut switch = cranelift_frontend::Switch::new();
        for (i, block) in value_blocks.iter().enumerate() {
            switch.set_entry(i as u128, *block);
        }
        let (not_field, checked_unknown) = (self.b.create_block(), self.b.create_block());
        switch.emit(&mut self.b, index, not_field);
        self.b.switch_to_block(not_field);
        let is_unknown = self.b.ins().icmp_imm_s(IntCC::Equal, index, -1);
        self.b
            .ins()
            .brif(is_unknown, checked_unknown, &[], bail, &[]);

        // An unknown key whose text is valid: the `skip_member` helper skips `:`,
        // the value (validated) and what follows, and answers like a member
        // function; unless unknown fields are denied (then the interpreter
        // reports it). One call, rather than the `:`/`,` code in IR once more.
        self.b.switch_to_block(checked_unknown);
        if st.deny_unknown_fields {
            self.b.ins().jump(bail, &[]);
        } else {
            let current = self.b.use_var(seen[0]);
            self.store_pos();
            let st = match (rest, collector) {
                // Into the flattened map, its value by its own function.
                (Some(Rest::Map { offset, map, .. }), _) => {
                    let map_ptr = self.const_ptr(map as *const MapLayout);
                    let at = self.b.ins().iadd_imm_s(dst, offset as i64);
                    let f = self.func_ref(map.value.get());
                    let decode = self.b.ins().func_addr(PTR, f);
                    self.call_addr(
                        helpers::insert_rest as *const () as usize,
                        &[PTR, PTR, PTR, PTR, PTR],
                        Some(types::I8),
                        &[self.state, map_ptr, at, decode, key_at],
                    )
                }
                // Its text collected for the serde field.
                (Some(Rest::Serde { .. }), Some(collector)) => self.call_addr(
                    helpers::collect_rest as *const () as usize,
                    &[PTR, PTR, PTR],
                    Some(types::I8),
                    &[self.state, collector, key_at],
                ),
                // Skipped; serde buffers what a flattening struct's fields do
                // not claim.
                _ => {
                    if flattens {
                        self.adjust_buffered(1);
                    }
                    let skip = match st.skip_unknown {
                        SkipMode::Validate => helpers::skip_member as *const () as usize,
                        SkipMode::Brackets => {
                            helpers::skip_member_by_brackets as *const () as usize
                        }
                    };
                    let status = self.call_addr(skip, &[PTR], Some(types::I8), &[self.state]);
                    if flattens {
                        self.adjust_buffered(-1);
                    }
                    status
                }
            }
            .expect("returns a status");
            self.load_pos();
            let next = self
                .b
                .ins()
                .icmp_imm_s(IntCC::Equal, st, MemberStatus::Next as i64);
            self.b.ins().brif(
                next,
                dispatch,
                &[],
                afters[0],
                &[BlockArg::Value(st), BlockArg::Value(current)],
            );
        }

        self.b.switch_to_block(close);
        self.advance(1);
        self.b.ins().jump(finish, &[]);

        self.b.switch_to_block(finish);
        // The serde field, from what it collected, inside the object's depth
        // (the interpreter decodes it before leaving the object).
        if let (Some(Rest::Serde { offset, layout }), Some(collector)) = (rest, collector) {
            let layout_ptr = self.const_ptr(layout as *const TypeLayout);
            let at = self.b.ins().iadd_imm_s(dst, offset as i64);
            let ok = self
                .call_addr(
                    helpers::finish_rest as *const () as usize,
                    &[PTR, PTR, PTR, PTR],
                    Some(types::I8),
                    &[self.state, layout_ptr, at, collector],
                )
                .expect("returns bool");
            let done = self.b.create_block();
            self.b.ins().brif(ok, done, &[], unwind, &[]);
            self.b.switch_to_block(done);
        }
        self.store_depth(depth0);
        self.emit_finish(st, dst, &seen, bail, unwind);
        self.store_pos();
        self.ret(true);

        // Give up on the fast path: drop what was written, let the interpreter decode
        // the whole struct from its start.
        self.b.switch_to_block(bail);
        self.b.set_cold_block(bail);
        self.emit_drop_written(st, dst, &seen);
        self.emit_drop_rest(rest, collector, dst);
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
        self.emit_drop_written(st, dst, &seen);
        self.emit_drop_rest(rest, collector, dst);
        self.store_depth(depth0);
        self.ret(false);
    }

    /// Drops what collects a flattening struct's rest, if it has one: the
    /// map, or the serde field's collected text (and the field, once decoded
    /// from it: `helpers::drop_rest`).
    fn emit_drop_rest(&mut self, rest: Option<Rest>, collector: Option<Value>, dst: Value) {
        match (rest, collector) {
            (Some(Rest::Map { offset, layout, .. }), _) => {
                if let Some(drop) = layout.drop {
                    let at = self.b.ins().iadd_imm_s(dst, offset as i64);
                    self.call_drop(drop, at);
                }
            }
            (Some(Rest::Serde { offset, layout }), Some(collector)) => {
                let layout_ptr = self.const_ptr(layout as *const TypeLayout);
                let at = self.b.ins().iadd_imm_s(dst, offset as i64);
                self.call_addr(
                    helpers::drop_rest as *const () as usize,
                    &[PTR, PTR, PTR],
                    None,
                    &[collector, layout_ptr, at],
                );
            }
            _ => {}
        }
    }

    /// Fills `block`: if the key at `pos` (its opening quote) is `name`,
    /// consumes it with its closing quote and jumps to `matched`; otherwise
    /// (or if the name can only appear escaped, or is not `reachable`) jumps
    /// to `miss` with `pos` unchanged.
    fn emit_key_test(
        &mut self,
        block: Block,
        name: &str,
        reachable: bool,
        matched: Block,
        miss: Block,
    ) {
        self.b.switch_to_block(block);
        if !reachable || !is_plain(name) {
            self.b.ins().jump(miss, &[]);
            return;
        }
        let p = self.get_pos();
        let mut quoted = name.as_bytes().to_vec();
        quoted.push(b'"');
        self.require(p, quoted.len() as i64 + 1, miss);
        let eq = self.bytes_equal_at(p, 1, &quoted);
        let hit = self.b.create_block();
        self.b.ins().brif(eq, hit, &[], miss, &[]);
        self.b.switch_to_block(hit);
        self.advance(quoted.len() as i64 + 1);
        self.b.ins().jump(matched, &[]);
    }

    /// The body of a struct's function under [`crate::StructLowering::Table`]: a call
    /// to [`struct_table::walk`] (`walk_wide` past 64 fields) with the struct's table (built here, owned by
    /// the module, its fields' value functions set once the module is finalized).
    pub(crate) fn emit_struct_thunk(
        &mut self,
        layout: &'static TypeLayout,
        st: &'static StructLayout,
        dst: Value,
    ) {
        let order = self.key_orders.speculation(st);
        let alternates = self.key_orders.alternates(st);
        let table = Box::new(super::StructTable::new(
            layout,
            st,
            &order,
            &alternates,
            self.miss_counter,
        ));
        let table_ptr = self.const_ptr(&raw const *table);
        let walker = table.walker();
        self.data.struct_tables.push(table);
        let ok = self
            .call_addr(
                walker as *const () as usize,
                &[PTR, PTR, PTR],
                Some(types::I8),
                &[self.state, dst, table_ptr],
            )
            .expect("returns bool");
        self.b.ins().return_(&[ok]);
    }

    /// The body of a member function for `layout` (see [`MemberStatus`]): entered
    /// with `pos` after a key's closing quote; decodes `:`, the value into `dst`,
    /// and `,` with the next key's quote, or stops before `}`.
    pub(crate) fn emit_member_function(&mut self, layout: &'static TypeLayout, dst: Value) {
        let (unwritten, failed, written_bail, close) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.emit_colon(unwritten);
        self.emit_value(layout, dst, failed);
        self.space_expected = false;
        let c = self.peek_or(written_bail);
        self.branch_if_byte(c, b'}', close);
        self.expect_byte(c, b',', written_bail);
        self.advance(1);
        let c = self.peek_or_indented(written_bail);
        self.expect_byte(c, b'"', written_bail);
        self.ret_status(MemberStatus::Next);
        self.b.switch_to_block(close);
        self.ret_status(MemberStatus::Close);
        for (block, status) in [
            (written_bail, MemberStatus::WrittenBail),
            (unwritten, MemberStatus::Bail),
            (failed, MemberStatus::Failed),
        ] {
            self.b.switch_to_block(block);
            self.b.set_cold_block(block);
            self.ret_status(status);
        }
    }

    /// Returns `status` and `pos` (a member function's results; `state.pos`
    /// is not written).
    fn ret_status(&mut self, status: MemberStatus) {
        let v = self.b.ins().iconst(types::I8, status as i64);
        let pos = self.get_pos();
        self.b.ins().return_(&[v, pos]);
    }

    /// `:` after a key, or `bail`; the value's whitespace test then looks for
    /// the one space pretty printers put there first
    /// ([`space_expected`](crate::translate::FnTranslator::space_expected)).
    fn emit_colon(&mut self, bail: Block) {
        let c = self.peek_or(bail);
        self.expect_byte(c, b':', bail);
        self.advance(1);
        self.space_expected = true;
    }

    /// Fills what the object did not name: a missing required field goes to
    /// `bail` (the interpreter reports it) before anything is filled; then, if a
    /// field with a default or an optional layout is absent, or the struct has
    /// skipped fields, one call to the `fill_absent` helper, to `unwind` if a
    /// default panicked (the helper drops what it filled). One call rather than a
    /// test and a call per field: the IR of a struct stays its keys. Past 64
    /// fields, a test per word and `fill_absent_words` with the words in a
    /// stack slot.
    fn emit_finish(
        &mut self,
        st: &'static StructLayout,
        dst: Value,
        seen: &[Variable],
        bail: Block,
        unwind: Block,
    ) {
        let (required, fillable) = presence_masks(st);
        let s: Vec<Value> = seen.iter().map(|&word| self.b.use_var(word)).collect();
        // Word 0 is always tested (as when it was the only one), the others
        // where they have a required field.
        let tested: Vec<usize> = (0..s.len())
            .filter(|&k| k == 0 || required[k] != 0)
            .collect();
        for k in tested {
            let present = self.b.ins().band_imm_s(s[k], required[k] as i64);
            let all = self
                .b
                .ins()
                .icmp_imm_s(IntCC::Equal, present, required[k] as i64);
            let complete = self.b.create_block();
            self.b.ins().brif(all, complete, &[], bail, &[]);
            self.b.switch_to_block(complete);
        }
        if fillable.iter().all(|&m| m == 0) && st.skipped.is_empty() {
            return;
        }
        let (fill, done) = (self.b.create_block(), self.b.create_block());
        if st.skipped.is_empty() {
            let tested: Vec<usize> = (0..s.len()).filter(|&k| fillable[k] != 0).collect();
            for (j, &k) in tested.iter().enumerate() {
                let present = self.b.ins().band_imm_s(s[k], fillable[k] as i64);
                let all = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::Equal, present, fillable[k] as i64);
                let next = if j + 1 == tested.len() {
                    done
                } else {
                    self.b.create_block()
                };
                self.b.ins().brif(all, next, &[], fill, &[]);
                if next != done {
                    self.b.switch_to_block(next);
                }
            }
        } else {
            self.b.ins().jump(fill, &[]);
        }
        self.b.switch_to_block(fill);
        let st_ptr = self.const_ptr(st as *const StructLayout);
        let ok = if let [s] = s[..] {
            self.call_addr(
                helpers::fill_absent as *const () as usize,
                &[PTR, PTR, types::I64],
                Some(types::I8),
                &[st_ptr, dst, s],
            )
        } else {
            let words = self.seen_in_slot(&s);
            self.call_addr(
                helpers::fill_absent_words as *const () as usize,
                &[PTR, PTR, PTR],
                Some(types::I8),
                &[st_ptr, dst, words],
            )
        }
        .expect("returns bool");
        self.b.ins().brif(ok, done, &[], unwind, &[]);
        self.b.switch_to_block(done);
    }

    /// Drops the fields marked in `seen` through the `drop_written` helper
    /// (`drop_written_words` past 64 fields): a cold path (errors and slow
    /// paths), so one call instead of a test and a call per field. No skipped
    /// field is live while `seen` is in use (they are initialised last, by
    /// `fill_absent`).
    fn emit_drop_written(&mut self, st: &'static StructLayout, dst: Value, seen: &[Variable]) {
        let needs_drop = st.fields.iter().any(|f| f.layout.get().drop.is_some());
        if !needs_drop {
            return;
        }
        let st_ptr = self.const_ptr(st as *const StructLayout);
        let s: Vec<Value> = seen.iter().map(|&word| self.b.use_var(word)).collect();
        if let [s] = s[..] {
            self.call_addr(
                helpers::drop_written as *const () as usize,
                &[PTR, PTR, types::I64],
                None,
                &[st_ptr, dst, s],
            );
        } else {
            let words = self.seen_in_slot(&s);
            self.call_addr(
                helpers::drop_written_words as *const () as usize,
                &[PTR, PTR, PTR],
                None,
                &[st_ptr, dst, words],
            );
        }
    }

    /// The words of a written-field set stored in a new stack slot, for a
    /// helper: the slot's address.
    fn seen_in_slot(&mut self, words: &[Value]) -> Value {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            8 * words.len() as u32,
            3,
        ));
        for (k, &w) in words.iter().enumerate() {
            self.b.ins().stack_store(PTR, w, slot, 8 * k as i32);
        }
        self.b.ins().stack_addr(PTR, slot, 0)
    }
}

// ---------------------------------------------------------------------------
// Encoding (twin: `encode_struct`, `encode_members` in
// `fallback/src/kind/struct_.rs`)

/// Whether a member was written before the one being emitted, as far as the
/// translator knows.
#[derive(Clone, Copy)]
enum Written {
    /// Known while compiling (no skippable member came first).
    Known(bool),
    /// Decided at run time, in an i8 variable (a skippable member came first).
    Dynamic(cranelift_frontend::Variable),
}

impl crate::encode::EncodeTranslator<'_, '_> {
    /// The flattened fields of `flatten` placed before field `upto` (all the
    /// rest for `usize::MAX`), after the object's opening if it is still
    /// pending, each as [`emit_flattened_value`](Self::emit_flattened_value)
    /// writes it. Returns what is then known of whether a member was written.
    #[allow(clippy::too_many_arguments, reason = "the member loop's state")]
    fn emit_encode_flattened(
        &mut self,
        flatten: &mut core::iter::Peekable<
            core::slice::Iter<'static, jitson_core::layout::FlattenField>,
        >,
        upto: usize,
        src: Value,
        fail: Block,
        mut written: Written,
        open: &[u8],
        open_pending: &mut bool,
    ) -> Written {
        if core::mem::take(open_pending) {
            self.ensure_const(open.len(), fail);
            self.write_const(open);
        }
        while let Some(f) = flatten.next_if(|f| f.position <= upto) {
            let field_fail = self.path_fail(crate::encode::PathBlock::Name(&f.name), fail);
            let value = self.b.ins().iadd_imm_s(src, f.offset as i64);
            written = self.emit_flattened_value(f.layout.get(), value, field_fail, written);
        }
        written
    }

    /// The members a flattened value of `layout` at `src` writes into the
    /// object being written, which is open (twin: the interpreter's
    /// `encode_flattened`): a struct's members
    /// in place (through options, boxes and newtypes), a map's entries (text
    /// keys, not sorted), an untagged enum's variant's payload as a flattened
    /// value, a tagged one's members ([`emit_flattened_enum`](Self::emit_flattened_enum));
    /// anything else (other maps, serde fields, what serde refuses) written
    /// by the interpreter
    /// ([`emit_flattened_by_interpreter`](Self::emit_flattened_by_interpreter)).
    fn emit_flattened_value(
        &mut self,
        layout: &'static TypeLayout,
        src: Value,
        fail: Block,
        written: Written,
    ) -> Written {
        if self.flattening >= crate::encode::MAX_FLATTEN_INLINE {
            self.interpreted.push((
                (layout.type_name)(),
                "flattened values nested deeper than 8",
            ));
            return self.emit_flattened_by_interpreter(layout, src, fail, written);
        }
        self.flattening += 1;
        let after = self.emit_flattened_inline(layout, src, fail, written);
        self.flattening -= 1;
        after
    }

    /// The body of [`emit_flattened_value`](Self::emit_flattened_value).
    fn emit_flattened_inline(
        &mut self,
        layout: &'static TypeLayout,
        src: Value,
        fail: Block,
        written: Written,
    ) -> Written {
        match &layout.kind {
            // The object is open: no opening, and no closing to cover.
            Kind::Struct(inner) => {
                self.emit_members_into(inner, src, fail, written, &[], &[])
                    .0
            }
            Kind::Newtype(n) => {
                let at = self.b.ins().iadd_imm_s(src, n.offset as i64);
                self.emit_flattened_value(n.inner.get(), at, fail, written)
            }
            Kind::Box(b) => {
                let at = self
                    .call_addr(b.get as usize, &[PTR], Some(PTR), &[src])
                    .expect("get returns a pointer");
                self.emit_flattened_value(b.inner.get(), at, fail, written)
            }
            Kind::Unit => written,
            Kind::Option(o) => {
                let var = self.written_var(written);
                let some = self
                    .call_addr(o.get as usize, &[PTR], Some(PTR), &[src])
                    .expect("get returns a pointer");
                let (present, done) = (self.b.create_block(), self.b.create_block());
                self.b.ins().brif(some, present, &[], done, &[]);
                self.b.switch_to_block(present);
                let after =
                    self.emit_flattened_value(o.some.get(), some, fail, Written::Dynamic(var));
                self.merge_written(var, after);
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(done);
                Written::Dynamic(var)
            }
            // A map's entries by its entry function, their commas counted
            // from what was written before.
            Kind::Map(map) => match self.encode_map_lowering(map) {
                Ok(for_each) => {
                    let var = self.written_var(written);
                    let before = self.b.use_var(var);
                    let before = self.b.ins().uextend(PTR, before);
                    let count = self.emit_map_entries(layout, for_each, src, fail, before);
                    let any = self.b.ins().icmp_imm_s(IntCC::NotEqual, count, 0);
                    self.b.def_var(var, any);
                    Written::Dynamic(var)
                }
                Err(_) => self.emit_flattened_elsewhere(layout, src, fail, written),
            },
            Kind::Enum(e) if e.variant_of.is_some() => {
                self.emit_flattened_enum(layout, e, src, fail, written)
            }
            _ => self.emit_flattened_elsewhere(layout, src, fail, written),
        }
    }

    /// A flattened value generated code does not write in place, by the
    /// interpreter, listed in `stats()` with the reason.
    fn emit_flattened_elsewhere(
        &mut self,
        layout: &'static TypeLayout,
        src: Value,
        fail: Block,
        written: Written,
    ) -> Written {
        self.interpreted.push((
            (layout.type_name)(),
            "a flattened map in key order or with keys that are not text, or a \
             serde field",
        ));
        self.emit_flattened_by_interpreter(layout, src, fail, written)
    }

    /// A flattened enum: a switch on `variant_of`'s index; an untagged
    /// variant's payload as a flattened value (nothing for a unit); an
    /// externally tagged variant as the member `"variant": payload`; an
    /// adjacently tagged one as its tag member and its content member; an
    /// internally tagged one as its tag member and its struct's members (the
    /// whole enum to the interpreter for any other payload, and for a
    /// variant never written, which it reports).
    fn emit_flattened_enum(
        &mut self,
        layout: &'static TypeLayout,
        e: &'static EnumLayout,
        src: Value,
        fail: Block,
        written: Written,
    ) -> Written {
        let variant_of = e.variant_of.expect("checked by the caller");
        let var = self.written_var(written);
        let (view, blocks, skipped) = self.emit_variant_switch(e, variant_of, src);
        let done = self.b.create_block();
        // `,"name":` (pretty: the members' line and `: `), and with a
        // string value after it: the keys written here.
        let line = self.line(self.depth + 1);
        let pretty = self.pretty();
        let key = |name: &str, value: Option<&str>| {
            let mut key = vec![b','];
            key.extend_from_slice(&line);
            jitson_core::write::write_str(&mut key, name);
            key.extend_from_slice(if pretty { b": " } else { b":" });
            if let Some(value) = value {
                jitson_core::write::write_str(&mut key, value);
            }
            key
        };
        for (i, (variant, block)) in e.variants.iter().zip(blocks).enumerate() {
            self.b.switch_to_block(block);
            let payload = variant.payload.layout();
            let untagged = i >= e.untagged_from || e.tagging == Tagging::Untagged;
            let content = match e.tagging {
                Tagging::Internal { tag } if !untagged => {
                    Some((tag, self.tagged_content(payload, view)))
                }
                _ => None,
            };
            let after = match (payload, content) {
                (None, _) if untagged => Written::Dynamic(var),
                (Some(p), _) if untagged => {
                    self.emit_flattened_value(p, view, fail, Written::Dynamic(var))
                }
                // serde's flattening serializer: `"variant": payload` (a
                // unit variant's payload `null`).
                _ if e.tagging == Tagging::External => {
                    let name = key(variant.name, None);
                    self.ensure_const(name.len(), fail);
                    self.write_member_key(Written::Dynamic(var), &name);
                    self.emit_member_payload(payload, view, &variant.name, fail);
                    Written::Known(true)
                }
                // `"tag": "variant"`, then `"content": payload` if it has one.
                _ if matches!(e.tagging, Tagging::Adjacent { .. }) => {
                    let Tagging::Adjacent { tag, content } = &e.tagging else {
                        unreachable!("matched above")
                    };
                    let tagged = key(tag, Some(variant.name));
                    self.ensure_const(tagged.len(), fail);
                    self.write_member_key(Written::Dynamic(var), &tagged);
                    if payload.is_some() {
                        let content_key = key(content, None);
                        self.ensure_const(content_key.len(), fail);
                        self.write_const(&content_key);
                        self.emit_member_payload(payload, view, content, fail);
                    }
                    Written::Known(true)
                }
                (
                    _,
                    Some((tag, content @ (TaggedContent::Members(..) | TaggedContent::Nothing))),
                ) => {
                    let tagged = key(tag, Some(variant.name));
                    self.ensure_const(tagged.len(), fail);
                    self.write_member_key(Written::Dynamic(var), &tagged);
                    match content {
                        TaggedContent::Members(st, at) => {
                            self.emit_members_into(st, at, fail, Written::Known(true), &[], &[])
                                .0
                        }
                        _ => Written::Known(true),
                    }
                }
                _ => {
                    self.interpreted.push((
                        (layout.type_name)(),
                        "a flattened internally tagged variant holding a map or a value serde refuses",
                    ));
                    self.emit_flattened_by_interpreter(layout, src, fail, Written::Dynamic(var))
                }
            };
            self.merge_written(var, after);
            self.b.ins().jump(done, &[]);
        }
        self.leave_view();
        self.b.switch_to_block(skipped);
        self.b.set_cold_block(skipped);
        let after = self.emit_flattened_by_interpreter(layout, src, fail, Written::Dynamic(var));
        self.merge_written(var, after);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        Written::Dynamic(var)
    }

    /// A member's value after its key: `payload` at `at` (`null` for none),
    /// one level in, an error's path through `name`.
    fn emit_member_payload(
        &mut self,
        payload: Option<&'static TypeLayout>,
        at: Value,
        name: &'static &'static str,
        fail: Block,
    ) {
        let Some(payload) = payload else {
            self.ensure_const(4, fail);
            self.write_const(b"null");
            return;
        };
        let payload_fail = self.path_fail(crate::encode::PathBlock::Name(name), fail);
        self.enter_level();
        self.emit_value(payload, at, payload_fail, false);
        self.leave_level();
    }

    /// A flattened value's members written by the interpreter
    /// (`encode::encode_flattened`, the interpreter's `encode_flattened` at
    /// this object's member level), with a comma unless nothing came before;
    /// a flag in a stack slot carries whether a member was written in and
    /// out.
    fn emit_flattened_by_interpreter(
        &mut self,
        layout: &'static TypeLayout,
        src: Value,
        fail: Block,
        written: Written,
    ) -> Written {
        let var = self.written_var(written);
        let slot = self.slot();
        let before = self.b.use_var(var);
        self.b
            .ins()
            .store(crate::encode::state_flags(), before, slot, 0);
        let layout = self.const_ptr(std::ptr::from_ref(layout));
        let level = self.b.ins().iconst(PTR, self.depth as i64 + 1);
        self.spill();
        let ok = self
            .call_addr(
                crate::encode::helper_encode_flattened(),
                &[PTR, PTR, PTR, PTR, PTR],
                Some(types::I8),
                &[self.state, layout, src, level, slot],
            )
            .expect("encode_flattened returns a status");
        self.reload();
        self.check(ok, fail);
        let after = self
            .b
            .ins()
            .load(types::I8, crate::encode::state_flags(), slot, 0);
        self.b.def_var(var, after);
        Written::Dynamic(var)
    }

    /// `written` as a variable (made, holding what is known, if it is not
    /// one yet).
    fn written_var(&mut self, written: Written) -> cranelift_frontend::Variable {
        match written {
            Written::Dynamic(var) => var,
            Written::Known(known) => {
                let var = self.b.declare_var(types::I8);
                let value = self.b.ins().iconst(types::I8, i64::from(known));
                self.b.def_var(var, value);
                var
            }
        }
    }

    /// Sets `var` to what `after` says was written (on the current path).
    fn merge_written(&mut self, var: cranelift_frontend::Variable, after: Written) {
        match after {
            Written::Known(true) => {
                let one = self.b.ins().iconst(types::I8, 1);
                self.b.def_var(var, one);
            }
            Written::Known(false) => {}
            Written::Dynamic(other) if other == var => {}
            Written::Dynamic(other) => {
                let value = self.b.use_var(other);
                self.b.def_var(var, value);
            }
        }
    }

    /// Writes a member's key (`key` as written after a member: `,`, the
    /// line, the name and its colon), without its comma when nothing was
    /// written before; the room is reserved by the caller.
    fn write_member_key(&mut self, written: Written, key: &[u8]) {
        match written {
            Written::Known(true) => self.write_const(key),
            Written::Known(false) => self.write_const(&key[1..]),
            Written::Dynamic(var) => {
                let before = self.b.use_var(var);
                let (with, without, keyed) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.ins().brif(before, with, &[], without, &[]);
                self.b.switch_to_block(with);
                self.write_const(key);
                self.b.ins().jump(keyed, &[]);
                self.b.switch_to_block(without);
                self.write_const(&key[1..]);
                self.b.ins().jump(keyed, &[]);
                self.b.switch_to_block(keyed);
            }
        }
    }

    /// A struct as a JSON object: each member's key with its `,` and `:`
    /// stored as constant bytes, one capacity check per run of members whose
    /// text is bounded (the run ends with the first unbounded member's key),
    /// `skip_serializing_if` as a call and a branch, flattened fields' members
    /// in their place ([`emit_encode_flattened`](Self::emit_encode_flattened)).
    /// `opened`: the object's `{` and its first member(s) already known as
    /// constant bytes (an internally tagged variant's `{"tag":"Variant"`),
    /// written with the first capacity check, every member then following a
    /// comma; `None` for a plain `{`.
    pub(crate) fn emit_encode_members(
        &mut self,
        st: &'static StructLayout,
        src: Value,
        fail: Block,
        opened: Option<&[u8]>,
    ) {
        if st.fields.is_empty() && st.flatten.is_empty() {
            match opened {
                None => {
                    self.ensure_const(2, fail);
                    self.write_const(b"{}");
                }
                Some(open) => {
                    let close = self.closing(b'}');
                    self.ensure_const(open.len() + close.len(), fail);
                    self.write_const(open);
                    self.write_const(&close);
                }
            }
            return;
        }
        let open = opened.unwrap_or(b"{");
        // The closing brace: `}` after a line at the struct's own
        // indentation in pretty output.
        let close = self.closing(b'}');
        let (written, close_covered) = self.emit_members_into(
            st,
            src,
            fail,
            Written::Known(opened.is_some()),
            open,
            &close,
        );
        if !close_covered {
            self.ensure_const(close.len(), fail);
        }
        match written {
            // Every member may have been skipped: `{}` then, as serde_json
            // writes an empty object.
            Written::Dynamic(var) if self.pretty() => {
                let before = self.b.use_var(var);
                self.write_close_if(before, &close, b'}');
            }
            Written::Known(false) => self.write_const(b"}"),
            _ => self.write_const(&close),
        }
    }

    /// `st`'s members into the object being written: its fields, and its
    /// flattened fields' members in their place. `open`: the object's
    /// opening, written with the first capacity check unless it is empty
    /// (members of a flattened struct, in an object already open). `close`:
    /// the closing bytes the last run's check may cover. Returns what is
    /// known of whether a member was written, and whether `close` is
    /// covered.
    fn emit_members_into(
        &mut self,
        st: &'static StructLayout,
        src: Value,
        fail: Block,
        mut written: Written,
        open: &[u8],
        close: &[u8],
    ) -> (Written, bool) {
        let fields = st.fields;
        // Each key as written after a member (`,"key":`, in pretty output
        // `,\n    "key": ` with the members' indentation); the first member's
        // is the same without its comma.
        let line = self.line(self.depth + 1);
        let keys: Vec<Vec<u8>> = fields
            .iter()
            .map(|f| {
                let mut key = vec![b','];
                key.extend_from_slice(&line);
                jitson_core::write::write_str(&mut key, f.name);
                key.extend_from_slice(if self.pretty() { b": " } else { b":" });
                key
            })
            .collect();
        let bounds: Vec<Option<usize>> = fields
            .iter()
            .map(|f| crate::encode::bound(f.layout.get()))
            .collect();
        // Members before `run_end` are covered by the last check, values
        // included unless unbounded; `close_covered`: `close` too. The
        // object's opening is written with the first check.
        let mut run_end = 0;
        let mut close_covered = false;
        let mut open_pending = !open.is_empty();
        let mut flatten = st.flatten.iter().peekable();
        for (i, field) in fields.iter().enumerate() {
            if flatten.peek().is_some_and(|f| f.position <= i) {
                written = self.emit_encode_flattened(
                    &mut flatten,
                    i,
                    src,
                    fail,
                    written,
                    open,
                    &mut open_pending,
                );
                // The flattened members had their own checks: check again.
                run_end = i;
            }
            if i >= run_end {
                let mut total = if open_pending { open.len() } else { 0 };
                let mut j = i;
                while j < fields.len() {
                    total += keys[j].len();
                    j += 1;
                    match bounds[j - 1] {
                        Some(b) => total += b,
                        None => break,
                    }
                }
                close_covered = j == fields.len() && bounds[j - 1].is_some();
                if close_covered {
                    total += close.len();
                }
                run_end = j;
                self.ensure_const(total, fail);
                if core::mem::take(&mut open_pending) {
                    self.write_const(open);
                }
            }
            let value = self.b.ins().iadd_imm_s(src, field.offset as i64);
            let field_fail = self.path_fail(crate::encode::PathBlock::Field(field), fail);
            let skipped = self.b.create_block();
            if let Some(skip_if) = field.skip_if {
                if let Written::Known(false) = written {
                    // Nothing written yet, and maybe nothing will be before
                    // the next member: track it at run time.
                    let var = self.b.declare_var(types::I8);
                    let zero = self.b.ins().iconst(types::I8, 0);
                    self.b.def_var(var, zero);
                    written = Written::Dynamic(var);
                }
                let slot = self.slot();
                let ok = self
                    .call_addr(
                        skip_if as usize,
                        &[PTR, PTR],
                        Some(types::I8),
                        &[value, slot],
                    )
                    .expect("skip_if returns a status");
                // A panicking predicate (payload stashed) fails the encode.
                self.check(ok, field_fail);
                let skip = self
                    .b
                    .ins()
                    .load(types::I8, crate::encode::state_flags(), slot, 0);
                let write = self.b.create_block();
                self.b.ins().brif(skip, skipped, &[], write, &[]);
                self.b.switch_to_block(write);
            }
            self.write_member_key(written, &keys[i]);
            self.enter_level();
            self.emit_value(field.layout.get(), value, field_fail, bounds[i].is_some());
            self.leave_level();
            if let Written::Dynamic(var) = written {
                let one = self.b.ins().iconst(types::I8, 1);
                self.b.def_var(var, one);
            }
            self.b.ins().jump(skipped, &[]);
            self.b.switch_to_block(skipped);
            // After a member that is always written, every later one has a
            // comma; after a skippable one, the variable says.
            if field.skip_if.is_none() {
                written = Written::Known(true);
            }
        }
        if flatten.peek().is_some() {
            written = self.emit_encode_flattened(
                &mut flatten,
                usize::MAX,
                src,
                fail,
                written,
                open,
                &mut open_pending,
            );
            close_covered = false;
        }
        (written, close_covered)
    }
}
