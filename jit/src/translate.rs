//! The translator: one [`FnTranslator`] per generated function, holding the
//! `FunctionBuilder`, the values every emitter needs (state, input, length) and
//! the position variable. Emitters for each kind live in `kind/`, as `emit_*`
//! twins of the interpreter's `decode_*`.
//!
//! Invariant every emitter keeps: `emit_value(layout, dst, unwind)` starts in the
//! current block with `pos` at or before the value (whitespace allowed), and ends
//! with the builder in a fresh continuation block where the value is written and
//! `pos` is after it. On its own slow path it resets `pos` to where it started and
//! calls the interpreter for the value; if that fails it jumps to `unwind`, with
//! nothing live at `dst`. Blocks are sealed all at once when the function is done.

use std::collections::HashMap;

use cranelift_codegen::Context;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, FuncRef, InstBuilder, MemFlagsData, SigRef, Signature, Type, Value,
    types,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Module};
use jitson_core::layout::{Kind, LayoutId, TypeLayout};

use crate::helpers::{self, JitState};
use crate::{Role, StructLowering};

/// Whether a struct is compiled: what it flattens is read as one key set
/// (`kind/struct_.rs`, `Flattening`). Any number of fields is: the written-field
/// set takes a word per 64 fields.
pub(crate) fn struct_compiles(st: &jitson_core::layout::StructLayout) -> bool {
    struct_refusal(st).is_none()
}

/// Why a struct is handed to the interpreter whole (`stats().interpreted_layouts`),
/// the first of the reasons that applies; `None` when it is compiled.
pub(crate) fn struct_refusal(st: &jitson_core::layout::StructLayout) -> Option<&'static str> {
    if st.fields.len() > MAX_JIT_FIELDS || st.skipped.len() > MAX_JIT_FIELDS {
        Some("more than 1,024 fields (their code would take long to compile)")
    } else if st.flatten.is_empty() {
        None
    } else {
        crate::kind::struct_::flatten_refusal(st)
    }
}

/// The most fields (decoded, and skipped) of a struct the JIT compiles: any
/// model's structs, while a run-time schema of ten thousand columns
/// (jitson-arrow's records are structs of their columns, up to
/// `MAX_COLUMNS`) is left to the interpreter rather than compiled for
/// minutes into megabytes of code.
pub(crate) const MAX_JIT_FIELDS: usize = 1024;

/// The pointer-sized integer type (every JIT target is 64-bit).
pub(crate) const PTR: Type = types::I64;

/// What translating one function learned.
pub(crate) struct Translated {
    /// Layouts handed to the interpreter whole, with the reason.
    pub interpreted: Vec<(&'static str, &'static str)>,
    /// Data the function's code points to: the module must own it.
    pub data: ModuleData,
}

/// Data generated code points to, owned by the compiled module and freed after
/// its code. Boxed one by one: the code holds each item's address, so none may
/// move when the vectors grow.
#[derive(Default)]
#[allow(
    clippy::vec_box,
    reason = "the code holds each item's address: it must not move"
)]
pub(crate) struct ModuleData {
    /// Struct key tables (`match_key`).
    pub key_tables: Vec<Box<jitson_core::keys::KeyTable>>,
    /// Struct tables (`StructLowering::Table`), completed with their fields'
    /// value functions' addresses once the module is finalized.
    pub struct_tables: Vec<Box<crate::kind::StructTable>>,
    /// The key sets of structs with flattened fields, which their functions
    /// read as struct layouts.
    pub flattenings: Vec<Box<crate::kind::struct_::Flattening>>,
}

impl ModuleData {
    pub(crate) fn extend(&mut self, other: ModuleData) {
        self.key_tables.extend(other.key_tables);
        self.struct_tables.extend(other.struct_tables);
        self.flattenings.extend(other.flattenings);
    }
}

/// Builds the IR of the value function for `layout` into `ctx.func`.
pub(crate) fn translate_function(
    module: &mut JITModule,
    ctx: &mut Context,
    fb_ctx: &mut FunctionBuilderContext,
    ids: &HashMap<(Role, LayoutId), FuncId>,
    speculation: Speculation<'_>,
    (role, layout): (Role, &'static TypeLayout),
    call_conv: CallConv,
) -> Translated {
    let frontend_config = module.isa().frontend_config();
    let mut b = FunctionBuilder::new(&mut ctx.func, fb_ctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let (state, dst) = (b.block_params(entry)[0], b.block_params(entry)[1]);
    // A member function is handed `pos` (`crate::signature`); every other
    // function reads it from the state.
    let pos = (role == Role::Member).then(|| b.block_params(entry)[2]);
    let mut t = FnTranslator::new(b, module, ids, speculation, state, pos, call_conv);
    match &layout.kind {
        _ if role == Role::Member => t.emit_member_function(layout, dst),
        Kind::Struct(st) if struct_compiles(st) => match speculation.structs {
            StructLowering::Unrolled => t.emit_struct_function(layout, st, dst),
            // The table walker has no key set of its own for flattened
            // fields: such a struct gets its unrolled function in either tier.
            StructLowering::Table if st.flatten.is_empty() => t.emit_struct_thunk(layout, st, dst),
            StructLowering::Table => t.emit_struct_function(layout, st, dst),
        },
        Kind::Struct(st) => {
            let reason = struct_refusal(st).expect("a struct that does not fit is refused");
            t.interpreted.push(((layout.type_name)(), reason));
            t.emit_value_function(layout, dst, true);
        }
        _ => t.emit_value_function(layout, dst, false),
    }
    let interpreted = std::mem::take(&mut t.interpreted);
    let data = std::mem::take(&mut t.data);
    t.b.seal_all_blocks();
    t.b.finalize(frontend_config);
    Translated { interpreted, data }
}

/// What a module's struct functions speculate on, and where they count misses.
#[derive(Clone, Copy)]
pub(crate) struct Speculation<'a> {
    /// Learned key orders (declaration order for structs without one).
    pub key_orders: &'a jitson_core::layout::KeyOrders,
    /// Incremented for every known field's key that misses its speculation.
    pub miss_counter: Option<*const std::sync::atomic::AtomicU64>,
    /// How struct functions are lowered.
    pub structs: StructLowering,
}

/// Memory flags for input loads: may be unaligned; bounds are checked before.
pub(crate) fn input_flags() -> MemFlagsData {
    MemFlagsData::new()
}

/// Memory flags for the state and output: aligned, never trapping.
pub(crate) fn state_flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// The per-function translator.
pub(crate) struct FnTranslator<'a, 'm> {
    pub b: FunctionBuilder<'a>,
    module: &'m mut JITModule,
    ids: &'m HashMap<(Role, LayoutId), FuncId>,
    func_refs: HashMap<(Role, LayoutId), FuncRef>,
    sigs: Signatures,
    call_conv: CallConv,
    /// `*mut JitState`.
    pub state: Value,
    /// Input base pointer and length, loaded once.
    pub input: Value,
    pub len: Value,
    /// Offset of the next input byte.
    pub pos: Variable,
    pub interpreted: Vec<(&'static str, &'static str)>,
    /// Data the code points to, handed to the module to own.
    pub data: ModuleData,
    /// Learned key orders, for struct speculation.
    pub key_orders: &'m jitson_core::layout::KeyOrders,
    /// Where struct functions count keys that missed their speculation.
    pub miss_counter: Option<*const std::sync::atomic::AtomicU64>,
    /// Set after a member's `:`: the next [`Self::peek_or`] (the value's
    /// first) tests for the one space of `"key": value` in its cold block
    /// before calling `skip_ws_run`. A hint only: the test is right anywhere.
    pub space_expected: bool,
}

impl<'a, 'm> FnTranslator<'a, 'm> {
    fn new(
        mut b: FunctionBuilder<'a>,
        module: &'m mut JITModule,
        ids: &'m HashMap<(Role, LayoutId), FuncId>,
        speculation: Speculation<'m>,
        state: Value,
        pos_in: Option<Value>,
        call_conv: CallConv,
    ) -> Self {
        let input = b
            .ins()
            .load(PTR, state_flags(), state, offset_of(STATE_INPUT));
        let len = b
            .ins()
            .load(PTR, state_flags(), state, offset_of(STATE_LEN));
        let pos = b.declare_var(PTR);
        let start = pos_in.unwrap_or_else(|| {
            b.ins()
                .load(PTR, state_flags(), state, offset_of(STATE_POS))
        });
        b.def_var(pos, start);
        FnTranslator {
            b,
            module,
            ids,
            func_refs: HashMap::new(),
            sigs: HashMap::new(),
            call_conv,
            state,
            input,
            len,
            pos,
            interpreted: Vec::new(),
            data: ModuleData::default(),
            key_orders: speculation.key_orders,
            miss_counter: speculation.miss_counter,
            space_expected: false,
        }
    }

    // -----------------------------------------------------------------------
    // Function shells

    /// A value function for a non-struct layout (or an interpreted struct): the
    /// value, then `return true`; failure returns `false`.
    fn emit_value_function(
        &mut self,
        layout: &'static TypeLayout,
        dst: Value,
        interpret_only: bool,
    ) {
        let fail = self.b.create_block();
        if interpret_only {
            // The slow path marks its block cold; never the entry block, which
            // would move the prologue out of place.
            let start = self.get_pos();
            let (slow, cont) = (self.b.create_block(), self.b.create_block());
            self.b.ins().jump(slow, &[]);
            self.b.switch_to_block(slow);
            self.emit_interpret(layout, dst, start, cont, fail);
            self.b.switch_to_block(cont);
        } else {
            self.emit_value(layout, dst, fail);
        }
        self.store_pos();
        self.ret(true);
        self.b.switch_to_block(fail);
        self.b.set_cold_block(fail);
        self.ret(false);
    }

    pub(crate) fn ret(&mut self, ok: bool) {
        let v = self.b.ins().iconst(types::I8, i64::from(ok));
        self.b.ins().return_(&[v]);
    }

    // -----------------------------------------------------------------------
    // Position and state

    pub(crate) fn get_pos(&mut self) -> Value {
        self.b.use_var(self.pos)
    }

    pub(crate) fn set_pos(&mut self, v: Value) {
        self.b.def_var(self.pos, v);
    }

    pub(crate) fn advance(&mut self, n: i64) {
        let p = self.get_pos();
        let p = self.b.ins().iadd_imm_s(p, n);
        self.set_pos(p);
    }

    /// Publishes `pos` to the state (before a call).
    pub(crate) fn store_pos(&mut self) {
        let p = self.get_pos();
        self.b
            .ins()
            .store(state_flags(), p, self.state, offset_of(STATE_POS));
    }

    /// Reloads `pos` from the state (after a call).
    pub(crate) fn load_pos(&mut self) {
        let p = self
            .b
            .ins()
            .load(PTR, state_flags(), self.state, offset_of(STATE_POS));
        self.set_pos(p);
    }

    pub(crate) fn load_depth(&mut self) -> Value {
        self.b.ins().load(
            types::I32,
            state_flags(),
            self.state,
            offset_of(STATE_DEPTH),
        )
    }

    pub(crate) fn store_depth(&mut self, v: Value) {
        self.b
            .ins()
            .store(state_flags(), v, self.state, offset_of(STATE_DEPTH));
    }

    /// Adds `delta` to the state's count of values serde buffered
    /// (`JitState::buffered`) around the value decoded next.
    pub(crate) fn adjust_buffered(&mut self, delta: i64) {
        let offset = offset_of(STATE_BUFFERED);
        let buffered = self
            .b
            .ins()
            .load(types::I32, state_flags(), self.state, offset);
        let adjusted = self.b.ins().iadd_imm_s(buffered, delta);
        self.b
            .ins()
            .store(state_flags(), adjusted, self.state, offset);
    }

    /// Enters a decoded container of `layout`: decrements the depth and checks the
    /// stack has room for the level (`jitson_core::stack`), going to `slow`
    /// (where the interpreter, deeper still, reports the limit) when the depth
    /// would reach zero or the stack pointer is below the state's limit plus the
    /// level's reserve. Returns the depth before entering, to restore on every
    /// exit.
    pub(crate) fn enter(&mut self, layout: &TypeLayout, slow: Block) -> Value {
        let depth = self.load_depth();
        let entered = self.b.ins().iadd_imm_s(depth, -1);
        let exhausted = self.b.ins().icmp_imm_s(IntCC::Equal, entered, 0);
        let low = self.stack_low(layout);
        let refuse = self.b.ins().bor(exhausted, low);
        let ok = self.b.create_block();
        self.b.ins().brif(refuse, slow, &[], ok, &[]);
        self.b.switch_to_block(ok);
        self.store_depth(entered);
        depth
    }

    /// Goes to `slow` when the stack has no room for another level of `layout`,
    /// as [`enter`](Self::enter) checks it but without a level of depth: for a
    /// value decoded again where it is (an untagged enum trying a variant that
    /// holds the enum itself), which no depth count sees.
    pub(crate) fn check_stack_room(&mut self, layout: &TypeLayout, slow: Block) {
        let low = self.stack_low(layout);
        let ok = self.b.create_block();
        self.b.ins().brif(low, slow, &[], ok, &[]);
        self.b.switch_to_block(ok);
    }

    /// Whether the stack pointer is below the state's limit plus a level of
    /// `layout`'s reserve (`jitson_core::stack`): a boolean value.
    fn stack_low(&mut self, layout: &TypeLayout) -> Value {
        let limit = self
            .b
            .ins()
            .load(PTR, state_flags(), self.state, offset_of(STATE_STACK_LIMIT));
        let reserve = jitson_core::stack::level_reserve(layout);
        let floor = self.b.ins().iadd_imm_s(limit, reserve as i64);
        let sp = self.b.ins().get_stack_pointer(PTR);
        self.b.ins().icmp(IntCC::UnsignedLessThan, sp, floor)
    }

    /// Opens a decoded container of `layout`: skips whitespace, requires `open`
    /// (`[` or `{`), enters one level of depth and consumes the byte. Anything
    /// else (including the depth limit and a full stack) goes to `slow`. Returns
    /// the depth to restore on every exit.
    pub(crate) fn emit_open_container(
        &mut self,
        open: u8,
        layout: &TypeLayout,
        slow: Block,
    ) -> Value {
        let c = self.peek_or(slow);
        self.expect_byte(c, open, slow);
        let depth = self.enter(layout, slow);
        self.advance(1);
        depth
    }

    // -----------------------------------------------------------------------
    // Input

    /// The byte at `p` (a bounds-checked offset), zero-extended to i32.
    pub(crate) fn byte_at(&mut self, p: Value) -> Value {
        let addr = self.b.ins().iadd(self.input, p);
        self.b.ins().uload8(types::I32, input_flags(), addr, 0)
    }

    /// Skips whitespace and returns the next byte (i32, not consumed); jumps to
    /// `on_end` at the end of input.
    pub(crate) fn peek_or(&mut self, on_end: Block) -> Value {
        self.peek_with(on_end, false)
    }

    /// As [`Self::peek_or`], for the site where pretty-printed input puts a
    /// newline and an indentation on every member (after a member's `,`):
    /// the first sixteen bytes of a run are classified in line with one
    /// vector load, and only a longer run, or one within sixteen bytes of the
    /// end, calls `skip_ws_run`. Each site adds about fifteen IR instructions
    /// and 7 % to the twitter model's compile, so only that one uses it
    /// (docs/jit.md, "Fast paths in IR").
    pub(crate) fn peek_or_indented(&mut self, on_end: Block) -> Value {
        self.peek_with(on_end, true)
    }

    fn peek_with(&mut self, on_end: Block, indented: bool) -> Value {
        let check = self.b.create_block();
        let test = self.b.create_block();
        let done = self.b.create_block();
        let byte = self.b.append_block_param(done, types::I32);
        let p = self.get_pos();
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, p, self.len);
        self.b.ins().brif(inside, check, &[], on_end, &[]);

        self.b.switch_to_block(check);
        let c = self.byte_at(p);
        let maybe_ws = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, c, 0x20);
        self.b
            .ins()
            .brif(maybe_ws, test, &[], done, &[BlockArg::Value(c)]);

        // A byte up to ' ' may begin a run of whitespace: the run is skipped
        // out of line (vector compares, `skip_ws_run`), and the byte after it
        // is returned as it is (a control byte is for the caller to refuse).
        // An inline loop here cost a fifth of every module's IR (180 sites
        // in the twitter model) and its loop header in every element loop;
        // the call measured faster on canada and twitter, and within noise on
        // citm (runs of 20+ spaces): docs/jit.md, "Fast paths in IR".
        self.b.switch_to_block(test);
        if !indented {
            self.b.set_cold_block(test);
        }
        if std::mem::take(&mut self.space_expected) {
            self.emit_one_space(p, c, done);
        }
        let from = if indented {
            self.emit_sixteen_spaces(p, done)
        } else {
            p
        };
        let q = self
            .call_addr(
                helpers::skip_ws_run as *const () as usize,
                &[PTR, PTR, PTR],
                Some(PTR),
                &[self.input, self.len, from],
            )
            .expect("returns the offset");
        self.set_pos(q);
        let after = self.b.create_block();
        self.b.set_cold_block(after);
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, q, self.len);
        self.b.ins().brif(inside, after, &[], on_end, &[]);
        self.b.switch_to_block(after);
        let c = self.byte_at(q);
        self.b.ins().jump(done, &[BlockArg::Value(c)]);

        self.b.switch_to_block(done);
        byte
    }

    /// In a whitespace test's block, `c` the byte at `p`: when `c` is a space
    /// and the byte after it is above `' '`, jumps to `done` with that byte,
    /// past the space; else continues in a new block. Two tests, each a
    /// compare and a branch: `": "` before every value of pretty-printed input
    /// costs eight instructions, where the branch-free form (the bounds test
    /// and the load's address by `select`, the flags materialised with
    /// `setcc`) took sixteen (the twitter model's `member_a_string`, callgrind).
    fn emit_one_space(&mut self, p: Value, c: Value, done: Block) {
        let (space, check, value, other) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let is_space = self.b.ins().icmp_imm_s(IntCC::Equal, c, i64::from(b' '));
        self.b.ins().brif(is_space, space, &[], other, &[]);

        self.b.switch_to_block(space);
        let next = self.b.ins().iadd_imm_s(p, 1);
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, next, self.len);
        self.b.ins().brif(inside, check, &[], other, &[]);

        self.b.switch_to_block(check);
        let after = self.byte_at(next);
        let above = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThan, after, i64::from(b' '));
        self.b.ins().brif(above, value, &[], other, &[]);

        self.b.switch_to_block(value);
        self.set_pos(next);
        self.b.ins().jump(done, &[BlockArg::Value(after)]);
        self.b.switch_to_block(other);
    }

    /// In a whitespace test's block, a run starting at `p`: sixteen bytes at a
    /// time while sixteen remain and all are whitespace, then jumps to `done`
    /// with the first other byte, past the run. Else (fewer than sixteen
    /// bytes left) continues in a new cold block and returns where
    /// `skip_ws_run` must go on from. A loop, not one step: citm's
    /// indentation runs are 17–29 bytes, and with one step in line 47,520 of
    /// them a document still reached the call.
    fn emit_sixteen_spaces(&mut self, p: Value, done: Block) -> Value {
        let (head, vector, found, call) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let at = self.b.append_block_param(head, PTR);
        let from = self.b.append_block_param(call, PTR);
        self.b.ins().jump(head, &[BlockArg::Value(p)]);

        self.b.switch_to_block(head);
        let end = self.b.ins().iadd_imm_s(at, 16);
        let fits = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, end, self.len);
        self.b
            .ins()
            .brif(fits, vector, &[], call, &[BlockArg::Value(at)]);

        self.b.switch_to_block(vector);
        let addr = self.b.ins().iadd(self.input, at);
        let v = self.b.ins().load(types::I8X16, input_flags(), addr, 0);
        // Whitespace by table lookup on the low nibble (simdjson's
        // classification): each of ' ', '\t', '\n', '\r' has its own low
        // nibble and the table holds it there; every other entry is 0, whose
        // low nibble (0) differs from its index, so no other byte matches.
        let mut table = [0u8; 16];
        for w in [b' ', b'\t', b'\n', b'\r'] {
            table[usize::from(w & 0x0f)] = w;
        }
        let table = self.b.func.dfg.constants.insert(table.to_vec().into());
        let table = self.b.ins().vconst(types::I8X16, table);
        let nibbles = self.b.func.dfg.constants.insert([0x0f; 16].to_vec().into());
        let nibbles = self.b.ins().vconst(types::I8X16, nibbles);
        let low = self.b.ins().band(v, nibbles);
        let expected = self.b.ins().swizzle(table, low);
        let ws = self.b.ins().icmp(IntCC::Equal, v, expected);
        let bits = self.b.ins().vhigh_bits(types::I32, ws);
        // The first byte that is not whitespace; 16 when all sixteen are.
        let other = self.b.ins().bnot(bits);
        let other = self.b.ins().bor_imm_s(other, 1 << 16);
        let n = self.b.ins().ctz(other);
        let n = self.b.ins().uextend(PTR, n);
        let q = self.b.ins().iadd(at, n);
        let whole = self.b.ins().icmp_imm_s(IntCC::Equal, n, 16);
        self.b
            .ins()
            .brif(whole, head, &[BlockArg::Value(q)], found, &[]);

        // The byte after the run is in the input (the vector held it).
        self.b.switch_to_block(found);
        self.set_pos(q);
        let c = self.byte_at(q);
        self.b.ins().jump(done, &[BlockArg::Value(c)]);

        self.b.switch_to_block(call);
        self.b.set_cold_block(call);
        from
    }

    /// Branches to `yes` if `c == ch`, else continues in a new block.
    pub(crate) fn branch_if_byte(&mut self, c: Value, ch: u8, yes: Block) {
        let no = self.b.create_block();
        let is = self.b.ins().icmp_imm_s(IntCC::Equal, c, i64::from(ch));
        self.b.ins().brif(is, yes, &[], no, &[]);
        self.b.switch_to_block(no);
    }

    /// Continues only if `c == ch`; otherwise jumps to `other`.
    pub(crate) fn expect_byte(&mut self, c: Value, ch: u8, other: Block) {
        let yes = self.b.create_block();
        let is = self.b.ins().icmp_imm_s(IntCC::Equal, c, i64::from(ch));
        self.b.ins().brif(is, yes, &[], other, &[]);
        self.b.switch_to_block(yes);
    }

    /// Continues only if at least `n` bytes remain after offset `p`; otherwise
    /// jumps to `short`.
    pub(crate) fn require(&mut self, p: Value, n: i64, short: Block) {
        let end = self.b.ins().iadd_imm_s(p, n);
        let fits = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, end, self.len);
        let ok = self.b.create_block();
        self.b.ins().brif(fits, ok, &[], short, &[]);
        self.b.switch_to_block(ok);
    }

    /// Whether `input[p..p + bytes.len()]` equals `bytes`, as an i8 truth value,
    /// compared 8, 4, 2 and 1 bytes at a time. The caller has checked the bounds.
    pub(crate) fn bytes_equal(&mut self, p: Value, bytes: &[u8]) -> Value {
        self.bytes_equal_at(p, 0, bytes)
    }

    /// [`Self::bytes_equal`] for `input[p + skip..]`: the offset goes into the
    /// loads' immediates, not into an addition.
    pub(crate) fn bytes_equal_at(&mut self, p: Value, skip: usize, bytes: &[u8]) -> Value {
        let addr = self.b.ins().iadd(self.input, p);
        let mut diff: Option<Value> = None;
        let mut off = 0usize;
        while off < bytes.len() {
            let rest = bytes.len() - off;
            let (ty, n) = match rest {
                8.. => (types::I64, 8),
                4..=7 => (types::I32, 4),
                2..=3 => (types::I16, 2),
                _ => (types::I8, 1),
            };
            let mut word = [0u8; 8];
            word[..n].copy_from_slice(&bytes[off..off + n]);
            // Native byte order: a load of these bytes gives this constant.
            let expected = match n {
                8 => i64::from_ne_bytes(word),
                4 => i64::from(i32::from_ne_bytes(word[..4].try_into().expect("4 bytes"))),
                2 => i64::from(i16::from_ne_bytes(word[..2].try_into().expect("2 bytes"))),
                _ => i64::from(word[0] as i8),
            };
            let loaded = self
                .b
                .ins()
                .load(ty, input_flags(), addr, (skip + off) as i32);
            let loaded = if ty == types::I64 {
                loaded
            } else {
                self.b.ins().sextend(types::I64, loaded)
            };
            let x = self.b.ins().bxor_imm_s(loaded, expected);
            diff = Some(match diff {
                None => x,
                Some(d) => self.b.ins().bor(d, x),
            });
            off += n;
        }
        match diff {
            None => self.b.ins().iconst(types::I8, 1),
            Some(d) => self.b.ins().icmp_imm_s(IntCC::Equal, d, 0),
        }
    }

    // -----------------------------------------------------------------------
    // Calls

    /// Calls the function at the constant address `addr` (a helper or a layout
    /// function) and returns its result, if any.
    pub(crate) fn call_addr(
        &mut self,
        addr: usize,
        params: &[Type],
        ret: Option<Type>,
        args: &[Value],
    ) -> Option<Value> {
        call_at(
            &mut self.b,
            &mut self.sigs,
            self.call_conv,
            addr,
            (params, ret),
            args,
        )
    }

    /// A pointer constant.
    pub(crate) fn const_ptr<T>(&mut self, p: *const T) -> Value {
        self.b.ins().iconst(PTR, p as usize as i64)
    }

    /// The generated value function for `layout` in this module.
    pub(crate) fn func_ref(&mut self, layout: &TypeLayout) -> FuncRef {
        self.role_func_ref(Role::Value, layout)
    }

    /// The generated function of `role` for `layout` in this module.
    pub(crate) fn role_func_ref(&mut self, role: Role, layout: &TypeLayout) -> FuncRef {
        let id = (role, layout.id());
        if let Some(r) = self.func_refs.get(&id) {
            return *r;
        }
        let func_id = self.ids[&id];
        let r = self.module.declare_func_in_func(func_id, self.b.func);
        self.func_refs.insert(id, r);
        r
    }

    /// Calls the generated function for `layout` on `dst`; continues in a new block
    /// on success, jumps to `unwind` on failure.
    pub(crate) fn emit_call_function(
        &mut self,
        layout: &'static TypeLayout,
        dst: Value,
        unwind: Block,
    ) {
        let f = self.func_ref(layout);
        self.store_pos();
        let call = self.b.ins().call(f, &[self.state, dst]);
        let ok = self.b.inst_results(call)[0];
        self.load_pos();
        let cont = self.b.create_block();
        self.b.ins().brif(ok, cont, &[], unwind, &[]);
        self.b.switch_to_block(cont);
    }

    /// The slow path: `pos = start`, then the interpreter decodes `layout` into
    /// `dst`; on success to `cont`, on failure to `unwind`. Marks the current block
    /// cold.
    pub(crate) fn emit_interpret(
        &mut self,
        layout: &'static TypeLayout,
        dst: Value,
        start: Value,
        cont: Block,
        unwind: Block,
    ) {
        let current = self.b.current_block().expect("in a block");
        self.b.set_cold_block(current);
        self.set_pos(start);
        self.store_pos();
        let layout_ptr = self.const_ptr(layout as *const TypeLayout);
        let ok = self
            .call_addr(
                helpers::interpret_value as *const () as usize,
                &[PTR, PTR, PTR],
                Some(types::I8),
                &[self.state, layout_ptr, dst],
            )
            .expect("returns bool");
        self.load_pos();
        self.b.ins().brif(ok, cont, &[], unwind, &[]);
    }

    /// `IgnoredAny`: the values a projection most often leaves out are
    /// skipped in line: a string without escapes (scanned, and checked to be
    /// UTF-8 for `&[u8]` input), a number without an exponent and of at most
    /// 19 digits before and after its point (`emit_skip_number`), and `null`,
    /// `true` and `false`. Any other value goes to a helper
    /// (`helpers::ignore_value`, the interpreter's `ignore_value`), from its
    /// start, and a malformed one to the interpreter, which reports it.
    pub(crate) fn emit_ignored(&mut self, layout: &'static TypeLayout, dst: Value, unwind: Block) {
        let start = self.get_pos();
        let (other, done, string) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let literals = [&b"null"[..], b"true", b"false"].map(|word| (word, self.b.create_block()));
        let c = self.peek_or(other);
        self.branch_if_byte(c, b'"', string);
        for (word, block) in literals {
            self.branch_if_byte(c, word[0], block);
        }
        // Anything else is a number, or goes to the helper from there.
        self.emit_skip_number(other);
        self.b.ins().jump(done, &[]);

        self.b.switch_to_block(string);
        self.emit_plain_string_text(other);
        self.b.ins().jump(done, &[]);

        for (word, block) in literals {
            self.b.switch_to_block(block);
            self.emit_literal(word, other);
            self.b.ins().jump(done, &[]);
        }

        self.b.switch_to_block(other);
        self.set_pos(start);
        let helper = helpers::ignore_value as *const () as usize;
        self.emit_helper_or_interpret(layout, dst, unwind, helper, false);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    /// Calls `helper(state)` (or `helper(state, dst)` when `with_dst`), which
    /// reads one value at `pos` and returns whether it did; when it did not,
    /// the interpreter decodes (or reports) the value from its start.
    pub(crate) fn emit_helper_or_interpret(
        &mut self,
        layout: &'static TypeLayout,
        dst: Value,
        unwind: Block,
        helper: usize,
        with_dst: bool,
    ) {
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        self.store_pos();
        let ok = if with_dst {
            self.call_addr(helper, &[PTR, PTR], Some(types::I8), &[self.state, dst])
        } else {
            self.call_addr(helper, &[PTR], Some(types::I8), &[self.state])
        }
        .expect("returns bool");
        self.load_pos();
        self.b.ins().brif(ok, cont, &[], slow, &[]);
        self.b.switch_to_block(slow);
        self.emit_interpret(layout, dst, start, cont, unwind);
        self.b.switch_to_block(cont);
    }

    /// Calls a drop function (layout or skipped field) on `ptr`, ignoring its
    /// result (a panic is stashed for the facade).
    pub(crate) fn call_drop(&mut self, drop: jitson_core::layout::DropFn, ptr: Value) {
        self.call_addr(drop as usize, &[PTR], Some(types::I8), &[ptr]);
    }

    // -----------------------------------------------------------------------
    // Values

    /// Emits the decoding of one value (see the module docs for the contract).
    pub(crate) fn emit_value(&mut self, layout: &'static TypeLayout, dst: Value, unwind: Block) {
        match &layout.kind {
            Kind::Bool => self.emit_bool(layout, dst, unwind),
            Kind::I8
            | Kind::I16
            | Kind::I32
            | Kind::I64
            | Kind::U8
            | Kind::U16
            | Kind::U32
            | Kind::U64 => self.emit_int(layout, dst, unwind),
            Kind::I128 | Kind::U128 => self.emit_int128(layout, dst, unwind),
            Kind::Unit => self.emit_unit(layout, dst, unwind),
            Kind::Convert(c) => self.emit_convert(c, dst, unwind),
            Kind::Char => self.emit_char(layout, dst, unwind),
            Kind::Ignored => self.emit_ignored(layout, dst, unwind),
            Kind::F32 | Kind::F64 => self.emit_float(layout, dst, unwind),
            Kind::String(s) => self.emit_string(s, dst, unwind),
            Kind::BorrowedStr(s) => self.emit_borrowed_str(layout, s, dst, unwind),
            Kind::Option(o) => self.emit_option(layout, o, dst, unwind),
            Kind::Box(bx) => self.emit_box(bx, dst, unwind),
            Kind::Vec(v) => self.emit_vec(layout, v, dst, unwind),
            Kind::Struct(_) => self.emit_call_function(layout, dst, unwind),
            Kind::Map(m) => self.emit_map(layout, m, dst, unwind),
            Kind::Enum(e) if crate::kind::enum_::lowers(e) => {
                self.emit_enum(layout, e, dst, unwind)
            }
            Kind::Array(a) => self.emit_array(layout, a, dst, unwind),
            Kind::Column(c) => self.emit_column(layout, c, dst, unwind),
            Kind::Parsed(p) => self.emit_parsed(layout, p, dst, unwind),
            Kind::Tuple(t)
                if t.skipped.is_empty() && t.elems.iter().all(|e| e.default.is_none()) =>
            {
                self.emit_tuple(layout, t, dst, unwind)
            }
            Kind::Newtype(n) if n.skipped.is_empty() => {
                // The field is the value: its code, at its offset.
                let at = self.b.ins().iadd_imm_s(dst, n.offset as i64);
                self.emit_value(n.inner.get(), at, unwind)
            }
            Kind::RawValue(_)
            | Kind::Enum(_)
            | Kind::Tuple(_)
            | Kind::Newtype(_)
            | Kind::Serde(_) => {
                self.interpreted
                    .push(((layout.type_name)(), kind_not_lowered(&layout.kind)));
                let start = self.get_pos();
                let cont = self.b.create_block();
                let slow = self.b.create_block();
                self.b.ins().jump(slow, &[]);
                self.b.switch_to_block(slow);
                self.emit_interpret(layout, dst, start, cont, unwind);
                self.b.switch_to_block(cont);
            }
        }
    }
}

/// Why a kind goes to the interpreter.
fn kind_not_lowered(kind: &Kind) -> &'static str {
    match kind {
        Kind::RawValue(_) => "RawValue is not lowered",
        Kind::Enum(_) => "enums mixing tagged and untagged variants are not lowered",
        Kind::Tuple(_) => "tuples with skipped or defaulted fields are not lowered",
        Kind::Newtype(_) => "newtypes with skipped fields are not lowered",
        Kind::Serde(_) => {
            "a field decoded by its serde impl (the interpreter calls it; the struct around it stays compiled)"
        }
        _ => "not lowered",
    }
}

// Offsets into `JitState`, from the Rust definition (never hard-coded).
pub(crate) const STATE_INPUT: usize = std::mem::offset_of!(JitState, input);
pub(crate) const STATE_LEN: usize = std::mem::offset_of!(JitState, len);
pub(crate) const STATE_POS: usize = std::mem::offset_of!(JitState, pos);
pub(crate) const STATE_STACK_LIMIT: usize = std::mem::offset_of!(JitState, stack_limit);
pub(crate) const STATE_DEPTH: usize = std::mem::offset_of!(JitState, remaining_depth);
pub(crate) const STATE_VALIDATE: usize = std::mem::offset_of!(JitState, validate_utf8);
pub(crate) const STATE_BUFFERED: usize = std::mem::offset_of!(JitState, buffered);
pub(crate) const STATE_TAG: usize = std::mem::offset_of!(JitState, tag);
pub(crate) const STATE_TAG_DEPTH: usize = std::mem::offset_of!(JitState, tag_depth);
pub(crate) const STATE_TAG_SEEN: usize = std::mem::offset_of!(JitState, tag_seen);
pub(crate) const STATE_ELEMENTS_TOP: usize =
    std::mem::offset_of!(JitState, elements) + jitson_core::elements::Leased::TOP;
pub(crate) const STATE_ELEMENTS_END: usize =
    std::mem::offset_of!(JitState, elements) + jitson_core::elements::Leased::END;
pub(crate) const STATE_ELEMENTS_CURRENT: usize =
    std::mem::offset_of!(JitState, elements) + jitson_core::elements::Leased::CURRENT;

/// An offset as Cranelift's immediate.
pub(crate) fn offset_of(offset: usize) -> i32 {
    i32::try_from(offset).expect("small offset")
}

/// The signatures a function has imported, by parameter and return types.
pub(crate) type Signatures = HashMap<(Vec<Type>, Option<Type>), SigRef>;

/// Calls the function at the constant address `addr` with the signature
/// `(params, ret)` (imported into `b` once, remembered in `sigs`) and returns
/// its result, if any: how every translator, decoding's and encoding's, calls
/// helpers and layout functions.
pub(crate) fn call_at(
    b: &mut FunctionBuilder<'_>,
    sigs: &mut Signatures,
    call_conv: CallConv,
    addr: usize,
    (params, ret): (&[Type], Option<Type>),
    args: &[Value],
) -> Option<Value> {
    let key = (params.to_vec(), ret);
    let sig = match sigs.get(&key) {
        Some(sig) => *sig,
        None => {
            let mut sig = Signature::new(call_conv);
            sig.params.extend(params.iter().map(|&t| AbiParam::new(t)));
            sig.returns.extend(ret.map(AbiParam::new));
            let sig = b.import_signature(sig);
            sigs.insert(key, sig);
            sig
        }
    };
    let callee = b.ins().iconst(PTR, addr as i64);
    let call = b.ins().call_indirect(sig, callee, args);
    b.inst_results(call).first().copied()
}
