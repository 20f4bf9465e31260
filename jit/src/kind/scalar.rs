//! Booleans, integers and floats. Twin: `fallback/src/kind/scalar.rs`.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, Value, types};
use jitson_core::layout::{Kind, TypeLayout};

use crate::helpers;
use crate::translate::{FnTranslator, PTR, state_flags};

/// The most digits the integer fast path accumulates: 18 digits always fit in an
/// i64, so no overflow check is needed in the loop.
const MAX_INT_DIGITS: i64 = 18;
/// The most significant digits the float fast path accumulates (fit in a u64).
const MAX_FLOAT_DIGITS: i64 = 19;

impl FnTranslator<'_, '_> {
    /// `true` / `false`, compared four or five bytes at once.
    pub(crate) fn emit_bool(&mut self, layout: &'static TypeLayout, dst: Value, unwind: Block) {
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        let c = self.peek_or(slow);
        let is_true = self.b.create_block();
        self.branch_if_byte(c, b't', is_true);
        self.expect_byte(c, b'f', slow);
        self.emit_literal(b"false", slow);
        let v = self.b.ins().iconst(types::I8, 0);
        self.b.ins().store(state_flags(), v, dst, 0);
        self.b.ins().jump(cont, &[]);

        self.b.switch_to_block(is_true);
        self.emit_literal(b"true", slow);
        let v = self.b.ins().iconst(types::I8, 1);
        self.b.ins().store(state_flags(), v, dst, 0);
        self.b.ins().jump(cont, &[]);

        self.b.switch_to_block(slow);
        self.emit_interpret(layout, dst, start, cont, unwind);
        self.b.switch_to_block(cont);
    }

    /// `i128` and `u128`: read by a helper (`helpers::parse_i128` /
    /// `parse_u128`, the interpreter's grammar); what it refuses goes to the
    /// interpreter, which reports it.
    pub(crate) fn emit_int128(&mut self, layout: &'static TypeLayout, dst: Value, unwind: Block) {
        let helper = if matches!(layout.kind, Kind::I128) {
            helpers::parse_i128 as *const () as usize
        } else {
            helpers::parse_u128 as *const () as usize
        };
        let start = self.get_pos();
        let (slow, cont, read) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.peek_or(slow);
        let p = self.get_pos();
        let ptr = self.b.ins().iadd(self.input, p);
        let left = self.b.ins().isub(self.len, p);
        let n = self
            .call_addr(helper, &[PTR, PTR, PTR], Some(PTR), &[ptr, left, dst])
            .expect("returns the bytes read");
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, n, 0);
        self.b.ins().brif(none, slow, &[], read, &[]);
        self.b.switch_to_block(read);
        let end = self.b.ins().iadd(p, n);
        self.set_pos(end);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(slow);
        self.emit_interpret(layout, dst, start, cont, unwind);
        self.b.switch_to_block(cont);
    }

    /// Consumes `word` at `pos` or jumps to `slow`.
    pub(crate) fn emit_literal(&mut self, word: &[u8], slow: Block) {
        let p = self.get_pos();
        self.require(p, word.len() as i64, slow);
        let eq = self.bytes_equal(p, word);
        let ok = self.b.create_block();
        self.b.ins().brif(eq, ok, &[], slow, &[]);
        self.b.switch_to_block(ok);
        self.advance(word.len() as i64);
    }

    /// Scans `[0-9]*` from `pos`, accumulating into `acc` (i64 variable) and
    /// counting into `count`; jumps to `slow` after `max` digits. Leaves `pos` after
    /// the digits.
    ///
    /// Eight bytes at a time where eight remain (SWAR, as simdjson's
    /// `parse_eight_digits_unrolled`, Lemire 2018): the run of leading digits in
    /// the word is found with one `ctz`, and up to eight digits are added with
    /// three multiplications. Byte by byte near the end of the input.
    fn emit_digits(
        &mut self,
        acc: cranelift_frontend::Variable,
        count: cranelift_frontend::Variable,
        max: i64,
        slow: Block,
    ) {
        let head = self.b.create_block();
        let wide = self.b.create_block();
        let some = self.b.create_block();
        let narrow = self.b.create_block();
        let check = self.b.create_block();
        let body = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().jump(head, &[]);

        // Eight bytes remain: how many of them lead with digits?
        self.b.switch_to_block(head);
        let p = self.get_pos();
        let end8 = self.b.ins().iadd_imm_s(p, 8);
        let fits = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, end8, self.len);
        self.b.ins().brif(fits, wide, &[], narrow, &[]);

        self.b.switch_to_block(wide);
        let addr = self.b.ins().iadd(self.input, p);
        // Little-endian: the first byte is the lowest (and, as a digit, the most
        // significant), on every target.
        let flags = crate::translate::input_flags()
            .with_endianness(cranelift_codegen::ir::Endianness::Little);
        let w = self.b.ins().load(types::I64, flags, addr, 0);
        // A byte is a digit iff its high nibble is 3 and stays 3 after adding 6
        // (0x30..=0x39). A carry out of a byte at or above 0xFA only spoils the
        // bytes after it, which come after a non-digit.
        let high = self.b.ins().band_imm_s(w, 0xF0F0_F0F0_F0F0_F0F0_u64 as i64);
        let plus6 = self.b.ins().iadd_imm_s(w, 0x0606_0606_0606_0606);
        let high6 = self
            .b
            .ins()
            .band_imm_s(plus6, 0xF0F0_F0F0_F0F0_F0F0_u64 as i64);
        let bad_a = self.b.ins().bxor_imm_s(high, 0x3030_3030_3030_3030);
        let bad_b = self.b.ins().bxor_imm_s(high6, 0x3030_3030_3030_3030);
        let bad = self.b.ins().bor(bad_a, bad_b);
        let tz = self.b.ins().ctz(bad);
        let k = self.b.ins().ushr_imm_u(tz, 3);
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, k, 0);
        self.b.ins().brif(none, done, &[], some, &[]);

        // `k` leading digits (1..=8). Eight (a full word): the next word's
        // address and the scale are constants, so the next load does not wait
        // for this word's `ctz` (canada's 15-digit fractions take two words).
        self.b.switch_to_block(some);
        let n = self.b.use_var(count);
        let n = self.b.ins().iadd(n, k);
        let too_many = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, n, max);
        let fine = self.b.create_block();
        self.b.ins().brif(too_many, slow, &[], fine, &[]);
        self.b.switch_to_block(fine);
        self.b.def_var(count, n);
        let digits = self.b.ins().iadd_imm_s(w, -0x3030_3030_3030_3030);
        let (full, part) = (self.b.create_block(), self.b.create_block());
        let is_full = self.b.ins().icmp_imm_s(IntCC::Equal, k, 8);
        self.b.ins().brif(is_full, full, &[], part, &[]);

        self.b.switch_to_block(full);
        let value = self.combine_eight_digits(digits);
        let a = self.b.use_var(acc);
        let a = self.b.ins().imul_imm_s(a, 100_000_000);
        let a = self.b.ins().iadd(a, value);
        self.b.def_var(acc, a);
        let next = self.b.ins().iadd_imm_s(p, 8);
        self.set_pos(next);
        self.b.ins().jump(head, &[]);

        // Fewer: shift them to the top bytes (zero digits below them are
        // leading zeros), combine, and scale the accumulator by `10^k`.
        self.b.switch_to_block(part);
        let eight = self.b.ins().iconst(types::I64, 8);
        let missing = self.b.ins().isub(eight, k);
        let shift = self.b.ins().ishl_imm_u(missing, 3);
        let v = self.b.ins().ishl(digits, shift);
        let value = self.combine_eight_digits(v);
        let table = self.const_ptr(jitson_core::text::POW10_U64.as_ptr());
        let index = self.b.ins().ishl_imm_u(k, 3);
        let at = self.b.ins().iadd(table, index);
        let scale = self.b.ins().load(types::I64, state_flags(), at, 0);
        let a = self.b.use_var(acc);
        let a = self.b.ins().imul(a, scale);
        let a = self.b.ins().iadd(a, value);
        self.b.def_var(acc, a);
        let next = self.b.ins().iadd(p, k);
        self.set_pos(next);
        self.b.ins().jump(done, &[]);

        // Fewer than eight bytes left: one at a time.
        self.b.switch_to_block(narrow);
        let p = self.get_pos();
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, p, self.len);
        self.b.ins().brif(inside, check, &[], done, &[]);

        self.b.switch_to_block(check);
        let c = self.byte_at(p);
        let d = self.b.ins().iadd_imm_s(c, -i64::from(b'0'));
        let is_digit = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, d, 9);
        self.b.ins().brif(is_digit, body, &[], done, &[]);

        self.b.switch_to_block(body);
        let a = self.b.use_var(acc);
        let a10 = self.b.ins().imul_imm_s(a, 10);
        let d64 = self.b.ins().uextend(types::I64, d);
        let a = self.b.ins().iadd(a10, d64);
        self.b.def_var(acc, a);
        let n = self.b.use_var(count);
        let n = self.b.ins().iadd_imm_s(n, 1);
        self.b.def_var(count, n);
        let next = self.b.ins().iadd_imm_s(p, 1);
        self.set_pos(next);
        let too_many = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, n, max);
        self.b.ins().brif(too_many, slow, &[], narrow, &[]);

        self.b.switch_to_block(done);
    }

    /// The value of the eight digits (each byte `0..=9`, the first the lowest)
    /// in the word `v`: pairs, then quads, then halves, three multiplications.
    fn combine_eight_digits(&mut self, v: Value) -> Value {
        let v10 = self.b.ins().imul_imm_s(v, 10);
        let v8 = self.b.ins().ushr_imm_u(v, 8);
        let pairs = self.b.ins().iadd(v10, v8);
        let lo = self.b.ins().band_imm_s(pairs, 0x0000_00FF_0000_00FF);
        let lo = self.b.ins().imul_imm_s(lo, 100 + (1_000_000 << 32));
        let hi = self.b.ins().ushr_imm_u(pairs, 16);
        let hi = self.b.ins().band_imm_s(hi, 0x0000_00FF_0000_00FF);
        let hi = self.b.ins().imul_imm_s(hi, 1 + (10_000 << 32));
        let sum = self.b.ins().iadd(lo, hi);
        self.b.ins().ushr_imm_u(sum, 32)
    }

    /// Goes to `slow` if the byte at `pos` (when there is one) is one of `bytes`.
    fn reject_next_byte(&mut self, bytes: &[u8], slow: Block) {
        let p = self.get_pos();
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, p, self.len);
        let check = self.b.create_block();
        let ok = self.b.create_block();
        self.b.ins().brif(inside, check, &[], ok, &[]);
        self.b.switch_to_block(check);
        let c = self.byte_at(p);
        for &b in bytes {
            self.branch_if_byte(c, b, slow);
        }
        self.b.ins().jump(ok, &[]);
        self.b.switch_to_block(ok);
    }

    /// The sign and integer part shared by integers and floats: returns whether
    /// the number is negative (i8) and the offset of its first digit. Rejects (to
    /// `slow`) an empty integer part and a leading zero followed by digits.
    fn emit_sign_and_int_part(
        &mut self,
        acc: cranelift_frontend::Variable,
        count: cranelift_frontend::Variable,
        max: i64,
        slow: Block,
        too_long: Block,
    ) -> (Value, Value) {
        let c = self.peek_or(slow);
        let neg = self.b.ins().icmp_imm_s(IntCC::Equal, c, i64::from(b'-'));
        let neg64 = self.b.ins().uextend(types::I64, neg);
        let p = self.get_pos();
        let first = self.b.ins().iadd(p, neg64);
        self.set_pos(first);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(acc, zero);
        self.b.def_var(count, zero);
        self.emit_digits(acc, count, max, too_long);
        let n = self.b.use_var(count);
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, n, 0);
        let some = self.b.create_block();
        self.b.ins().brif(none, slow, &[], some, &[]);
        self.b.switch_to_block(some);
        // `first` is in bounds: at least one digit was read there.
        let lead = self.byte_at(first);
        let lead_zero = self.b.ins().icmp_imm_s(IntCC::Equal, lead, i64::from(b'0'));
        let several = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, n, 1);
        let bad = self.b.ins().band(lead_zero, several);
        let ok = self.b.create_block();
        self.b.ins().brif(bad, slow, &[], ok, &[]);
        self.b.switch_to_block(ok);
        (neg, first)
    }

    /// Skips a number that is ignored (`IgnoredAny`): `-?(0|[1-9][0-9]*)`
    /// and an optional `.[0-9]+`, each run of at most 19 digits, and no
    /// exponent; leaves `pos` after it. Anything else goes to `slow` with
    /// `pos` undefined: an exponent, a longer run (which serde's buffering
    /// evaluates, so it may overflow) and what is not a number are for
    /// `jitson_core::text::ignore_number`'s grammar and errors. The twin of
    /// that function on the numbers it takes.
    pub(crate) fn emit_skip_number(&mut self, slow: Block) {
        let acc = self.b.declare_var(types::I64);
        let count = self.b.declare_var(types::I64);
        self.emit_sign_and_int_part(acc, count, MAX_FLOAT_DIGITS, slow, slow);
        let (point, fraction, end) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let p = self.get_pos();
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, p, self.len);
        self.b.ins().brif(inside, point, &[], end, &[]);

        self.b.switch_to_block(point);
        let c = self.byte_at(p);
        self.branch_if_byte(c, b'.', fraction);
        self.b.ins().jump(end, &[]);

        // `.` and at least one digit; the accumulator's value is not used.
        self.b.switch_to_block(fraction);
        self.advance(1);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(count, zero);
        self.emit_digits(acc, count, MAX_FLOAT_DIGITS, slow);
        let n = self.b.use_var(count);
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, n, 0);
        self.b.ins().brif(none, slow, &[], end, &[]);

        self.b.switch_to_block(end);
        self.reject_next_byte(b"eE", slow);
    }

    /// An integer of up to 18 digits with an exact range check; anything else
    /// (more digits, a fraction or exponent, `-0`, out of range, not a number) goes
    /// to the interpreter, which decides exactly as for any other input.
    pub(crate) fn emit_int(&mut self, layout: &'static TypeLayout, dst: Value, unwind: Block) {
        let (ty, signed, min, max): (_, bool, i128, i128) = match layout.kind {
            Kind::I8 => (types::I8, true, i8::MIN.into(), i8::MAX.into()),
            Kind::I16 => (types::I16, true, i16::MIN.into(), i16::MAX.into()),
            Kind::I32 => (types::I32, true, i32::MIN.into(), i32::MAX.into()),
            Kind::I64 => (types::I64, true, i64::MIN.into(), i64::MAX.into()),
            Kind::U8 => (types::I8, false, 0, u8::MAX.into()),
            Kind::U16 => (types::I16, false, 0, u16::MAX.into()),
            Kind::U32 => (types::I32, false, 0, u32::MAX.into()),
            _ => (types::I64, false, 0, u64::MAX.into()),
        };
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        let acc = self.b.declare_var(types::I64);
        let count = self.b.declare_var(types::I64);
        let (neg, _) = self.emit_sign_and_int_part(acc, count, MAX_INT_DIGITS, slow, slow);
        self.reject_next_byte(b".eE", slow);
        let a = self.b.use_var(acc);
        // Magnitude limits; the accumulator holds at most 18 digits, below 2^63.
        let pos_limit = max.min(i64::MAX.into()) as i64;
        let neg_limit = if signed {
            (-min).min(i64::MAX.into()) as i64
        } else {
            -1
        };
        let pos_limit_v = self.b.ins().iconst(types::I64, pos_limit);
        let neg_limit_v = self.b.ins().iconst(types::I64, neg_limit);
        let limit = self.b.ins().select(neg, neg_limit_v, pos_limit_v);
        let in_range = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, a, limit);
        // `-0` is a float for serde_json, so it is not an integer here either.
        let is_zero = self.b.ins().icmp_imm_s(IntCC::Equal, a, 0);
        let neg_zero = self.b.ins().band(neg, is_zero);
        let not_neg_zero = self.b.ins().bxor_imm_s(neg_zero, 1);
        let ok = self.b.ins().band(in_range, not_neg_zero);
        let store = self.b.create_block();
        self.b.ins().brif(ok, store, &[], slow, &[]);

        self.b.switch_to_block(store);
        let negated = self.b.ins().ineg(a);
        let value = self.b.ins().select(neg, negated, a);
        let value = if ty == types::I64 {
            value
        } else {
            self.b.ins().ireduce(ty, value)
        };
        self.b.ins().store(state_flags(), value, dst, 0);
        self.b.ins().jump(cont, &[]);

        self.b.switch_to_block(slow);
        self.emit_interpret(layout, dst, start, cont, unwind);
        self.b.switch_to_block(cont);
    }

    /// A decimal number. Fast path (Clinger 1990): at most 19 significant digits,
    /// a significand below 2^53, at most 22 fraction digits and no exponent
    /// part: one correctly rounded division by an exact power of ten gives the
    /// correctly rounded f64 (for an f32, rounded again where that is exact,
    /// as `jitson_core::text::decimal_to_f32` shows). An f64 of up to 19 digits without an
    /// exponent is rounded by Eisel–Lemire on the significand scanned, in IR
    /// for the common case, else by `helpers::decimal_f64`. Any other number
    /// (more than 19 digits, an exponent) is scanned and converted by a helper
    /// (`helpers::parse_f64` / `parse_f32`: the interpreter's grammar, then
    /// fast-float2, correctly rounded); malformed or infinite ones go to the
    /// interpreter, which reports them.
    pub(crate) fn emit_float(&mut self, layout: &'static TypeLayout, dst: Value, unwind: Block) {
        let is_f32 = matches!(layout.kind, Kind::F32);
        // Both compute in f64 (an f32 then rounded again where that is exact:
        // `jitson_core::text::decimal_to_f32`).
        let (mant_limit, max_frac, table) = (1i64 << 53, 22, helpers::F64_POW10.as_ptr() as usize);
        let text_fn = if is_f32 {
            helpers::parse_f32 as *const () as usize
        } else {
            helpers::parse_f64 as *const () as usize
        };
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        // Numbers the fast paths cannot take: more than 19 digits in the
        // integer part, or in all, or an exponent (all three handed to the
        // helper that scans and converts the text), and the text itself.
        let (long_int, long_frac, text) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let acc = self.b.declare_var(types::I64);
        let count = self.b.declare_var(types::I64);
        let (neg, first) =
            self.emit_sign_and_int_part(acc, count, MAX_FLOAT_DIGITS, slow, long_int);

        // Optional fraction.
        let frac_digits = self.b.declare_var(types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(frac_digits, zero);
        let p = self.get_pos();
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, p, self.len);
        let (check_dot, fraction, after) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(inside, check_dot, &[], after, &[]);
        self.b.switch_to_block(check_dot);
        let c = self.byte_at(p);
        let is_dot = self.b.ins().icmp_imm_s(IntCC::Equal, c, i64::from(b'.'));
        self.b.ins().brif(is_dot, fraction, &[], after, &[]);

        self.b.switch_to_block(fraction);
        self.advance(1);
        let before = self.b.use_var(count);
        self.emit_digits(acc, count, MAX_FLOAT_DIGITS, long_frac);
        let total = self.b.use_var(count);
        let n = self.b.ins().isub(total, before);
        self.b.def_var(frac_digits, n);
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, n, 0);
        let some = self.b.create_block();
        self.b.ins().brif(none, slow, &[], some, &[]);
        self.b.switch_to_block(some);
        self.b.ins().jump(after, &[]);

        self.b.switch_to_block(after);
        self.reject_next_byte(b"eE", long_frac);
        let m = self.b.use_var(acc);
        let f = self.b.use_var(frac_digits);
        let small_m = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, m, mant_limit);
        let small_f = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedLessThanOrEqual, f, max_frac);
        let fast = self.b.ins().band(small_m, small_f);
        let compute = self.b.create_block();
        if is_f32 {
            self.b.ins().brif(fast, compute, &[], text, &[]);
        } else {
            // Up to 19 digits and no exponent, beyond Clinger's bounds:
            // Eisel–Lemire on the significand already in a register, no second
            // pass over the text: in IR for the common case, else the helper
            // (`jitson_core::text::decimal_to_f64`).
            let (exact, call) = (self.b.create_block(), self.b.create_block());
            self.b.ins().brif(fast, compute, &[], exact, &[]);
            self.b.switch_to_block(exact);
            self.emit_eisel_lemire(m, f, neg, dst, cont, call);
            self.b.switch_to_block(call);
            self.b.set_cold_block(call);
            let ok = self
                .call_addr(
                    helpers::decimal_f64 as *const () as usize,
                    &[types::I64, types::I64, types::I8, PTR],
                    Some(types::I8),
                    &[m, f, neg, dst],
                )
                .expect("returns bool");
            self.b.ins().brif(ok, cont, &[], text, &[]);
        }

        self.b.switch_to_block(compute);
        let mf = self.b.ins().fcvt_from_uint(types::F64, m);
        let idx = self.b.ins().imul_imm_s(f, 8);
        let base = self.b.ins().iconst(PTR, table as i64);
        let addr = self.b.ins().iadd(base, idx);
        let pow = self
            .b
            .ins()
            .load(types::F64, state_flags().with_readonly(), addr, 0);
        let mut v = self.b.ins().fdiv(mf, pow);
        if is_f32 {
            // Rounded again to f32, unless the f64 is halfway between two
            // f32s (its 29 low significand bits `1` then zeros), where the
            // second rounding may differ from one: then the text is parsed.
            let bits =
                self.b
                    .ins()
                    .bitcast(types::I64, cranelift_codegen::ir::MemFlagsData::new(), v);
            let low = self.b.ins().band_imm_s(bits, (1 << 29) - 1);
            let halfway = self.b.ins().icmp_imm_s(IntCC::Equal, low, 1 << 28);
            let demote = self.b.create_block();
            self.b.ins().brif(halfway, text, &[], demote, &[]);
            self.b.switch_to_block(demote);
            v = self.b.ins().fdemote(types::F32, v);
        }
        let negated = self.b.ins().fneg(v);
        let v = self.b.ins().select(neg, negated, v);
        self.b.ins().store(state_flags(), v, dst, 0);
        self.b.ins().jump(cont, &[]);

        // More than 19 digits, an exponent, or a value the fast paths cannot
        // round: the helper scans the number's grammar from its start (the
        // grammar in IR was a third of the function) and converts its text.
        for block in [long_int, long_frac] {
            self.b.switch_to_block(block);
            self.b.set_cold_block(block);
            self.b.ins().jump(text, &[]);
        }
        // Not cold: an f32 past Clinger's bounds (`0.123456789`) comes here.
        self.b.switch_to_block(text);
        // `first` and `neg` are defined before the digits, so they dominate here.
        let neg64 = self.b.ins().uextend(types::I64, neg);
        let number_start = self.b.ins().isub(first, neg64);
        let ptr = self.b.ins().iadd(self.input, number_start);
        let len = self.b.ins().isub(self.len, number_start);
        let n = self
            .call_addr(text_fn, &[PTR, PTR, PTR], Some(PTR), &[ptr, len, dst])
            .expect("returns a length");
        let end = self.b.ins().iadd(number_start, n);
        self.set_pos(end);
        let parsed = self.b.create_block();
        self.b.ins().brif(n, parsed, &[], slow, &[]);
        self.b.switch_to_block(parsed);
        self.b.ins().jump(cont, &[]);

        self.b.switch_to_block(slow);
        self.emit_interpret(layout, dst, start, cont, unwind);
        self.b.switch_to_block(cont);
    }

    /// The IR twin of `jitson_core::text::decimal_to_f64` for its common case:
    /// `±m × 10^-f` (`m` the significand, `f` the fraction digits, `neg` an
    /// i8) correctly rounded into the f64 at `dst`, then to `done`. To `slow`
    /// (the helper, which decides exactly) where that function does more than
    /// one product: `m == 0`, `f` outside `5..=19` (ties can occur only for
    /// exponents in `-4..=23`; the table spans `-19..=19`), or a first product
    /// whose bits below the kept 55 are all ones.
    fn emit_eisel_lemire(
        &mut self,
        m: Value,
        f: Value,
        neg: Value,
        dst: Value,
        done: Block,
        slow: Block,
    ) {
        // f - 5 > 14 (unsigned) also catches a negative f.
        let f5 = self.b.ins().iadd_imm_s(f, -5);
        let out = self.b.ins().icmp_imm_s(IntCC::UnsignedGreaterThan, f5, 14);
        let zero = self.b.ins().icmp_imm_s(IntCC::Equal, m, 0);
        let other = self.b.ins().bor(out, zero);
        let product = self.b.create_block();
        self.b.ins().brif(other, slow, &[], product, &[]);

        self.b.switch_to_block(product);
        let lz = self.b.ins().clz(m);
        let w = self.b.ins().ishl(m, lz);
        // The entry of 5^-f: index 19 - f, 16 bytes each, its high half first.
        let table = self.const_ptr(jitson_core::text::POW5_128.as_ptr());
        let last = self.b.ins().iadd_imm_s(table, 19 * 16);
        let back = self.b.ins().ishl_imm_u(f, 4);
        let at = self.b.ins().isub(last, back);
        let pow5 = self
            .b
            .ins()
            .load(types::I64, state_flags().with_readonly(), at, 0);
        let hi = self.b.ins().umulhi(w, pow5);
        let low9 = self.b.ins().band_imm_s(hi, 0x1ff);
        let refine = self.b.ins().icmp_imm_s(IntCC::Equal, low9, 0x1ff);
        let round = self.b.create_block();
        self.b.ins().brif(refine, slow, &[], round, &[]);

        // The top 54 bits of the product, rounded half up to 53 (no ties
        // here), and the biased exponent: floor(log2(10^-f)) + 63 is
        // (217706 × -f) >> 16 (exact in this range), plus the product's top
        // bit, less the significand's shift, plus 1023.
        self.b.switch_to_block(round);
        let upper = self.b.ins().ushr_imm_u(hi, 63);
        let shift = self.b.ins().iadd_imm_s(upper, 9);
        let sig = self.b.ins().ushr(hi, shift);
        let minus_f = self.b.ins().ineg(f);
        let log2 = self.b.ins().imul_imm_s(minus_f, 217_706);
        let log2 = self.b.ins().sshr_imm_u(log2, 16);
        let biased = self.b.ins().iadd_imm_s(log2, 63 + 1023);
        let biased = self.b.ins().iadd(biased, upper);
        let biased = self.b.ins().isub(biased, lz);
        let odd = self.b.ins().band_imm_s(sig, 1);
        let sig = self.b.ins().iadd(sig, odd);
        let sig = self.b.ins().ushr_imm_u(sig, 1);
        // Rounding up to 2^53 carries into the exponent.
        let carry = self.b.ins().ushr_imm_u(sig, 53);
        let sig = self.b.ins().ushr(sig, carry);
        let biased = self.b.ins().iadd(biased, carry);
        let sig = self.b.ins().band_imm_s(sig, !(1i64 << 52));
        let exp = self.b.ins().ishl_imm_u(biased, 52);
        let bits = self.b.ins().bor(sig, exp);
        let neg64 = self.b.ins().uextend(types::I64, neg);
        let sign = self.b.ins().ishl_imm_u(neg64, 63);
        let bits = self.b.ins().bor(bits, sign);
        let v = self
            .b
            .ins()
            .bitcast(types::F64, cranelift_codegen::ir::MemFlagsData::new(), bits);
        self.b.ins().store(state_flags(), v, dst, 0);
        self.b.ins().jump(done, &[]);
    }
}

// ---------------------------------------------------------------------------
// Encoding (twin: `encode_bool`, `encode_int`, `encode_f32`/`encode_f64` in
// `fallback/src/kind/scalar.rs`)

impl crate::encode::EncodeTranslator<'_, '_> {
    /// `true` or `false`, as constant stores on two branches.
    pub(crate) fn emit_encode_bool(&mut self, src: Value, fail: Block, reserved: bool) {
        if !reserved {
            self.ensure_const(5, fail);
        }
        let v = self
            .b
            .ins()
            .load(types::I8, crate::encode::value_flags(), src, 0);
        self.emit_encode_bool_value(v);
    }

    /// `true` when `v` (an integer) is not zero, else `false` (room for five
    /// bytes reserved), wherever the bit came from (a `bool`, an Arrow
    /// bitmap).
    pub(crate) fn emit_encode_bool_value(&mut self, v: Value) {
        let (yes, no, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(v, yes, &[], no, &[]);
        self.b.switch_to_block(yes);
        self.write_const(b"true");
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(no);
        self.write_const(b"false");
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    /// The integer of type `ty` at `src`, widened to 64 bits (sign-extended
    /// when `signed`).
    pub(crate) fn emit_load_int(
        &mut self,
        ty: cranelift_codegen::ir::Type,
        signed: bool,
        src: Value,
    ) -> Value {
        let v = self.b.ins().load(ty, crate::encode::value_flags(), src, 0);
        match (ty == types::I64, signed) {
            (true, _) => v,
            (false, true) => self.b.ins().sextend(types::I64, v),
            (false, false) => self.b.ins().uextend(types::I64, v),
        }
    }

    /// An integer of up to 64 bits (`ty` wide, `signed` or not), formatted by
    /// a pure helper into reserved room.
    pub(crate) fn emit_encode_int(
        &mut self,
        ty: cranelift_codegen::ir::Type,
        signed: bool,
        src: Value,
        fail: Block,
        reserved: bool,
    ) {
        if !reserved {
            self.ensure_const(crate::encode::INT_MAX_LEN, fail);
        }
        let v = self.emit_load_int(ty, signed, src);
        // A negative value: its `-`, then its magnitude as an unsigned value
        // (`i64::MIN`'s two's complement negation is its magnitude as a u64).
        let v = if signed {
            let (negative, magnitude) = (self.b.create_block(), self.b.create_block());
            self.b.append_block_param(magnitude, types::I64);
            let below = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, v, 0);
            self.b
                .ins()
                .brif(below, negative, &[], magnitude, &[BlockArg::Value(v)]);
            self.b.switch_to_block(negative);
            self.write_const(b"-");
            let positive = self.b.ins().ineg(v);
            self.b.ins().jump(magnitude, &[BlockArg::Value(positive)]);
            self.b.switch_to_block(magnitude);
            self.b.block_params(magnitude)[0]
        } else {
            v
        };
        self.emit_encode_u64(v);
    }

    /// The digits of the unsigned 64-bit `v` (room reserved): up to eight
    /// digits in IR, from a table of digit pairs (a value of five to eight
    /// as its high 1 to 4 digits, then its low four); longer ones by the
    /// helper. A call spills the values live across it: log records' sizes,
    /// ids and counts of five to eight digits took one each.
    fn emit_encode_u64(&mut self, v: Value) {
        let pairs = self.const_ptr(crate::encode::DIGIT_PAIRS.as_ptr());
        let flags = crate::encode::value_flags();
        let (short, not_short, eight, low_four, long, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let under_10k = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, v, 10_000);
        self.b.ins().brif(under_10k, short, &[], not_short, &[]);

        self.b.switch_to_block(short);
        self.emit_up_to_four_digits(pairs, v, done);

        self.b.switch_to_block(not_short);
        let under_100m = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, v, 100_000_000);
        self.b.ins().brif(under_100m, eight, &[], long, &[]);

        self.b.switch_to_block(eight);
        let high = self.b.ins().udiv_imm_u(v, 10_000);
        let high_times = self.b.ins().imul_imm_s(high, 10_000);
        let low = self.b.ins().isub(v, high_times);
        self.emit_up_to_four_digits(pairs, high, low_four);

        self.b.switch_to_block(low_four);
        let (first, second) = self.digit_pairs_of(pairs, low);
        let at = self.cursor();
        self.b.ins().store(flags, first, at, 0);
        self.b.ins().store(flags, second, at, 2);
        self.advance_const(4);
        self.b.ins().jump(done, &[]);

        self.b.switch_to_block(long);
        let at = self.cursor();
        let n = self
            .call_addr(
                crate::encode::helper_fmt_u64(),
                &[PTR, types::I64],
                Some(PTR),
                &[at, v],
            )
            .expect("the formatter returns a length");
        self.advance(n);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    /// The digits of `v` (below 10,000), one to four, stored at the cursor,
    /// which advances past them; then a jump to `next`.
    fn emit_up_to_four_digits(&mut self, pairs: Value, v: Value, next: Block) {
        let flags = crate::encode::value_flags();
        let (one, not_one, two, more, three, four) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let small = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, v, 10);
        self.b.ins().brif(small, one, &[], not_one, &[]);

        self.b.switch_to_block(one);
        let digit = self.b.ins().iadd_imm_s(v, i64::from(b'0'));
        let digit = self.b.ins().ireduce(types::I8, digit);
        let at = self.cursor();
        self.b.ins().store(flags, digit, at, 0);
        self.advance_const(1);
        self.b.ins().jump(next, &[]);

        self.b.switch_to_block(not_one);
        let under_100 = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, v, 100);
        self.b.ins().brif(under_100, two, &[], more, &[]);

        self.b.switch_to_block(two);
        let pair = self.digit_pair(pairs, v);
        let at = self.cursor();
        self.b.ins().store(flags, pair, at, 0);
        self.advance_const(2);
        self.b.ins().jump(next, &[]);

        self.b.switch_to_block(more);
        let (high, low) = self.split_hundreds(v);
        let low_pair = self.digit_pair(pairs, low);
        let under_1000 = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, v, 1000);
        self.b.ins().brif(under_1000, three, &[], four, &[]);

        self.b.switch_to_block(three);
        let digit = self.b.ins().iadd_imm_s(high, i64::from(b'0'));
        let digit = self.b.ins().ireduce(types::I8, digit);
        let at = self.cursor();
        self.b.ins().store(flags, digit, at, 0);
        self.b.ins().store(flags, low_pair, at, 1);
        self.advance_const(3);
        self.b.ins().jump(next, &[]);

        self.b.switch_to_block(four);
        let high_pair = self.digit_pair(pairs, high);
        let at = self.cursor();
        self.b.ins().store(flags, high_pair, at, 0);
        self.b.ins().store(flags, low_pair, at, 2);
        self.advance_const(4);
        self.b.ins().jump(next, &[]);
    }

    /// The four digits of `v` (below 10,000, leading zeros kept) as two
    /// digit pairs, high first.
    fn digit_pairs_of(&mut self, pairs: Value, v: Value) -> (Value, Value) {
        let (high, low) = self.split_hundreds(v);
        (self.digit_pair(pairs, high), self.digit_pair(pairs, low))
    }

    /// `v / 100` and `v % 100`.
    fn split_hundreds(&mut self, v: Value) -> (Value, Value) {
        let high = self.b.ins().udiv_imm_u(v, 100);
        let high_times = self.b.ins().imul_imm_s(high, 100);
        (high, self.b.ins().isub(v, high_times))
    }

    /// The two ASCII digits of `v` (below 100) as an i16, from the table.
    fn digit_pair(&mut self, pairs: Value, v: Value) -> Value {
        let offset = self.b.ins().ishl_imm_u(v, 1);
        let at = self.b.ins().iadd(pairs, offset);
        self.b
            .ins()
            .load(types::I16, crate::encode::value_flags(), at, 0)
    }

    /// An `f32` or `f64` (`ty`), formatted by a pure helper (zmij, `null` when
    /// not finite) into reserved room.
    pub(crate) fn emit_encode_float(
        &mut self,
        ty: cranelift_codegen::ir::Type,
        src: Value,
        fail: Block,
        reserved: bool,
    ) {
        if !reserved {
            self.ensure_const(crate::encode::FLOAT_MAX_LEN, fail);
        }
        let v = self.b.ins().load(ty, crate::encode::value_flags(), src, 0);
        let helper = if ty == types::F32 {
            crate::encode::helper_fmt_f32()
        } else {
            crate::encode::helper_fmt_f64()
        };
        let at = self.cursor();
        let n = self
            .call_addr(helper, &[PTR, ty], Some(PTR), &[at, v])
            .expect("the formatter returns a length");
        self.advance(n);
    }
}
