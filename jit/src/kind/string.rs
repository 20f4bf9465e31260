//! Strings. Twin: `fallback/src/kind/string.rs`.
//!
//! The fast path scans sixteen bytes at a time with vector compares (x86_64,
//! aarch64), then eight at a time (SWAR: the same bit trick as
//! `core::text::find_string_special`), for `"`, `\` and control bytes, noting
//! whether any byte it passes is non-ASCII, checks UTF-8 with simdutf8 only
//! then (and only for `&[u8]` input), and hands the text to the layout's `write`.
//! Escapes go to the `decode_string` helper (the interpreter's string parser with a
//! reused buffer); an invalid string fails the decode.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, Value, types};
use jitson_core::column::column_append_text;
use jitson_core::layout::{BorrowedStrLayout, StringLayout, TypeLayout};

use crate::helpers;
use crate::translate::{FnTranslator, PTR, STATE_VALIDATE, input_flags, offset_of, state_flags};

/// The three splatted bytes [`vector_specials`] compares against: `"`, `\\`
/// and 0x1f (the largest control byte). Made once before a loop, so the loop
/// does not rebuild them per vector (at `opt_level=none` nothing hoists them).
pub(crate) struct SpecialSplats {
    quotes: Value,
    backslashes: Value,
    last_control: Value,
}

impl SpecialSplats {
    pub(crate) fn new(b: &mut cranelift_frontend::FunctionBuilder<'_>) -> SpecialSplats {
        // Loaded from the constant pool: one load each, where a splat of an
        // immediate takes three instructions on x86-64.
        let mut splat = |byte: u8| {
            let bytes = b.func.dfg.constants.insert(vec![byte; 16].into());
            b.ins().vconst(types::I8X16, bytes)
        };
        SpecialSplats {
            quotes: splat(b'"'),
            backslashes: splat(b'\\'),
            last_control: splat(0x1f),
        }
    }
}

/// The longest text the encoder checks and copies in line, by a loop over
/// 16-byte vectors; longer ones go to a helper whose scan takes 32 bytes a
/// step (`core::write::find_escape`) and whose copy is `memcpy`'s.
pub(crate) const INLINE_TEXT_MAX: usize = 256;

/// One bit per byte of the 16-byte vector `v` (an `I8X16`) that a JSON
/// string cannot hold as it is: `"`, `\\` or a control byte (an `I32`, bit
/// `i` for byte `i`). The decoder's scan and the Arrow writer's short texts
/// share it.
pub(crate) fn vector_specials(b: &mut cranelift_frontend::FunctionBuilder<'_>, v: Value) -> Value {
    let splats = SpecialSplats::new(b);
    vector_specials_with(b, v, &splats)
}

/// [`vector_specials`] with the splats made beforehand.
pub(crate) fn vector_specials_with(
    b: &mut cranelift_frontend::FunctionBuilder<'_>,
    v: Value,
    splats: &SpecialSplats,
) -> Value {
    let q = b.ins().icmp(IntCC::Equal, v, splats.quotes);
    let s = b.ins().icmp(IntCC::Equal, v, splats.backslashes);
    // A byte is a control byte iff its maximum with 0x1f is 0x1f: two
    // instructions, where an unsigned less-than takes four on x86-64.
    let top = b.ins().umax(v, splats.last_control);
    let c = b.ins().icmp(IntCC::Equal, top, splats.last_control);
    let any = b.ins().bor(q, s);
    let any = b.ins().bor(any, c);
    b.ins().vhigh_bits(types::I32, any)
}

/// A non-zero i64 when the word `w` (an `I64`, eight bytes of text) holds
/// `"`, `\\` or a byte below 0x20; the lowest set high bit marks the first
/// such byte. The SWAR twin of [`vector_specials`], shared by the decoder's
/// eight-byte scan and the encoder's short texts.
pub(crate) fn word_specials(b: &mut cranelift_frontend::FunctionBuilder<'_>, w: Value) -> Value {
    // A byte of `x` is zero iff its high bit survives `(x - 1) & !x`.
    let zero_bytes = |b: &mut cranelift_frontend::FunctionBuilder<'_>, x: Value| {
        let sub = b.ins().iadd_imm_s(x, -ONES);
        let not = b.ins().bnot(x);
        b.ins().band(sub, not)
    };
    let q = b.ins().bxor_imm_s(w, ONES * i64::from(b'"'));
    let zq = zero_bytes(b, q);
    let s = b.ins().bxor_imm_s(w, ONES * i64::from(b'\\'));
    let zs = zero_bytes(b, s);
    let sub20 = b.ins().iadd_imm_s(w, -(ONES * 0x20));
    let notw = b.ins().bnot(w);
    let ctl = b.ins().band(sub20, notw);
    let any = b.ins().bor(zq, zs);
    let any = b.ins().bor(any, ctl);
    b.ins().band_imm_s(any, HIGHS)
}

const ONES: i64 = 0x0101_0101_0101_0101;
const HIGHS: i64 = 0x8080_8080_8080_8080_u64 as i64;

impl FnTranslator<'_, '_> {
    /// A `char`: a string of one character with no escape, read by a helper
    /// (`helpers::plain_char`); anything else goes to the interpreter.
    pub(crate) fn emit_char(&mut self, layout: &'static TypeLayout, dst: Value, unwind: Block) {
        let helper = crate::helpers::plain_char as *const () as usize;
        self.emit_helper_or_interpret(layout, dst, unwind, helper, true);
    }

    /// Scans a string whose contents start at `pos`, up to its closing quote,
    /// without escapes or control bytes (else to `slow`). Returns the content's end
    /// offset (the quote) and an i64 that is not zero if any byte was non-ASCII
    /// (high bits of bytes, or of vector lanes, ORed together). Leaves `pos` at
    /// the closing quote.
    pub(crate) fn emit_scan_plain_string(&mut self, slow: Block) -> (Value, Value) {
        let high = self.b.declare_var(types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(high, zero);
        let byte_head = self.b.create_block();
        let done = self.b.create_block();
        if cfg!(target_endian = "little") {
            let (word_head, word_body, word_next, word_hit) = (
                self.b.create_block(),
                self.b.create_block(),
                self.b.create_block(),
                self.b.create_block(),
            );
            if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
                self.emit_scan_vectors(high, word_head, done, slow);
            } else {
                self.b.ins().jump(word_head, &[]);
            }

            self.b.switch_to_block(word_head);
            let p = self.get_pos();
            let end = self.b.ins().iadd_imm_s(p, 8);
            let fits = self
                .b
                .ins()
                .icmp(IntCC::UnsignedLessThanOrEqual, end, self.len);
            self.b.ins().brif(fits, word_body, &[], byte_head, &[]);

            self.b.switch_to_block(word_body);
            let addr = self.b.ins().iadd(self.input, p);
            let w = self.b.ins().load(types::I64, input_flags(), addr, 0);
            let specials = word_specials(&mut self.b, w);
            self.b.ins().brif(specials, word_hit, &[], word_next, &[]);

            self.b.switch_to_block(word_next);
            let h = self.b.use_var(high);
            let w_high = self.b.ins().band_imm_s(w, HIGHS);
            let h = self.b.ins().bor(h, w_high);
            self.b.def_var(high, h);
            self.set_pos(end);
            self.b.ins().jump(word_head, &[]);

            // The lowest flagged byte is the first special one; the bytes before it
            // are plain and may be non-ASCII.
            self.b.switch_to_block(word_hit);
            let tz = self.b.ins().ctz(specials);
            let index = self.b.ins().ushr_imm_s(tz, 3);
            let before = self.b.ins().iadd(p, index);
            // The bits below the special byte's high bit (tz <= 63 here): every
            // high bit of the bytes before it.
            let one = self.b.ins().iconst(types::I64, 1);
            let below = self.b.ins().ishl(one, tz);
            let below = self.b.ins().iadd_imm_s(below, -1);
            let plain = self.b.ins().band(w, below);
            let plain = self.b.ins().band_imm_s(plain, HIGHS);
            let h = self.b.use_var(high);
            let h = self.b.ins().bor(h, plain);
            self.b.def_var(high, h);
            self.set_pos(before);
            self.emit_special_byte(before, done, slow);
        } else {
            self.b.ins().jump(byte_head, &[]);
        }

        // One byte at a time: the tail, and the special byte the words found.
        let (byte_check, byte_plain, byte_special) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.switch_to_block(byte_head);
        let p = self.get_pos();
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, p, self.len);
        self.b.ins().brif(inside, byte_check, &[], slow, &[]);

        self.b.switch_to_block(byte_check);
        let c = self.byte_at(p);
        let quote = self.b.ins().icmp_imm_s(IntCC::Equal, c, i64::from(b'"'));
        let backslash = self.b.ins().icmp_imm_s(IntCC::Equal, c, i64::from(b'\\'));
        let control = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, c, 0x20);
        let special = self.b.ins().bor(quote, backslash);
        let special = self.b.ins().bor(special, control);
        self.b
            .ins()
            .brif(special, byte_special, &[], byte_plain, &[]);

        self.b.switch_to_block(byte_plain);
        let h = self.b.use_var(high);
        let c64 = self.b.ins().uextend(types::I64, c);
        let c_high = self.b.ins().band_imm_s(c64, 0x80);
        let h = self.b.ins().bor(h, c_high);
        self.b.def_var(high, h);
        let next = self.b.ins().iadd_imm_s(p, 1);
        self.set_pos(next);
        self.b.ins().jump(byte_head, &[]);

        self.b.switch_to_block(byte_special);
        self.b.ins().brif(quote, done, &[], slow, &[]);

        self.b.switch_to_block(done);
        let end = self.get_pos();
        let h = self.b.use_var(high);
        (end, h)
    }

    /// Sixteen bytes at a time while sixteen remain: `icmp` of the vector against
    /// `"` and `\\` and an unsigned compare against 0x20, `vhigh_bits` of their OR
    /// gives one bit per special byte; `vhigh_bits` of the bytes themselves says
    /// whether any is non-ASCII. Continues at `word_head` for the tail, or with
    /// `pos` on the first special byte at `done` if it is the closing quote, at
    /// `slow` if not.
    fn emit_scan_vectors(
        &mut self,
        high: cranelift_frontend::Variable,
        word_head: Block,
        done: Block,
        slow: Block,
    ) {
        let (head, body, next, hit) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let splats = SpecialSplats::new(&mut self.b);
        self.b.ins().jump(head, &[]);

        self.b.switch_to_block(head);
        let p = self.get_pos();
        let end = self.b.ins().iadd_imm_s(p, 16);
        let fits = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, end, self.len);
        self.b.ins().brif(fits, body, &[], word_head, &[]);

        self.b.switch_to_block(body);
        let addr = self.b.ins().iadd(self.input, p);
        let v = self.b.ins().load(types::I8X16, input_flags(), addr, 0);
        let specials = vector_specials_with(&mut self.b, v, &splats);
        let non_ascii = self.b.ins().vhigh_bits(types::I32, v);
        self.b.ins().brif(specials, hit, &[], next, &[]);

        self.b.switch_to_block(next);
        self.note_non_ascii(high, non_ascii);
        self.set_pos(end);
        self.b.ins().jump(head, &[]);

        // Only the bytes before the first special one count for non-ASCII.
        self.b.switch_to_block(hit);
        let index = self.b.ins().ctz(specials);
        let one = self.b.ins().iconst(types::I32, 1);
        let below = self.b.ins().ishl(one, index);
        let below = self.b.ins().iadd_imm_s(below, -1);
        let before = self.b.ins().band(non_ascii, below);
        self.note_non_ascii(high, before);
        let index = self.b.ins().uextend(types::I64, index);
        let at = self.b.ins().iadd(p, index);
        self.set_pos(at);
        self.emit_special_byte(at, done, slow);
    }

    /// The byte at `at`, which a scan found special (`"`, `\\` or a control
    /// byte, and inside the input): to `done` if it is the closing quote, to
    /// `slow` if not.
    fn emit_special_byte(&mut self, at: Value, done: Block, slow: Block) {
        let c = self.byte_at(at);
        let quote = self.b.ins().icmp_imm_s(IntCC::Equal, c, i64::from(b'"'));
        self.b.ins().brif(quote, done, &[], slow, &[]);
    }

    /// ORs `mask` (an i32 of lanes' high bits, `vhigh_bits`) into `high`: one
    /// instruction per vector, where testing the mask and setting a bit from
    /// it took four.
    fn note_non_ascii(&mut self, high: cranelift_frontend::Variable, mask: Value) {
        let mask = self.b.ins().uextend(types::I64, mask);
        let h = self.b.use_var(high);
        let h = self.b.ins().bor(h, mask);
        self.b.def_var(high, h);
    }

    /// Checks (for `&[u8]` input) that `input[start..end]` is UTF-8 when `high`
    /// (from [`Self::emit_scan_plain_string`]) says a byte was non-ASCII; jumps
    /// to `slow` if not.
    pub(crate) fn emit_check_utf8(&mut self, start: Value, end: Value, high: Value, slow: Block) {
        let validate = self.b.ins().load(
            types::I32,
            state_flags(),
            self.state,
            offset_of(STATE_VALIDATE),
        );
        let validate = self.b.ins().uextend(types::I64, validate);
        let (check, ok) = (self.b.create_block(), self.b.create_block());
        let has_high = self.b.ins().icmp_imm_s(IntCC::NotEqual, high, 0);
        let wants = self.b.ins().icmp_imm_s(IntCC::NotEqual, validate, 0);
        let both = self.b.ins().band(has_high, wants);
        self.b.ins().brif(both, check, &[], ok, &[]);

        self.b.switch_to_block(check);
        self.b.set_cold_block(check);
        let ptr = self.b.ins().iadd(self.input, start);
        let len = self.b.ins().isub(end, start);
        let valid = self
            .call_addr(
                helpers::is_utf8 as *const () as usize,
                &[PTR, PTR],
                Some(types::I8),
                &[ptr, len],
            )
            .expect("returns bool");
        self.b.ins().brif(valid, ok, &[], slow, &[]);
        self.b.switch_to_block(ok);
    }

    /// A JSON string into `String` / `Box<str>` through the layout's `write`.
    pub(crate) fn emit_string(&mut self, string: &StringLayout, dst: Value, unwind: Block) {
        let (start, cont) = self.emit_plain_string_into(string.write as usize, dst);
        // The slow path for strings (escapes, mostly): a helper that unescapes into
        // a reused buffer, rather than the whole interpreter.
        self.emit_string_helper(string.write as usize, dst, start, cont, unwind);
        self.b.switch_to_block(cont);
    }

    /// `&'de str` / `Cow<'de, str>`: as `emit_string`, but the fast path stores a
    /// reference to the text in place (the input outlives the value: the decoded
    /// type's `DecodeBorrowed` bound). With escapes a `Cow` takes an owned copy
    /// through the string helper; a `&str` goes to the interpreter, for its error.
    pub(crate) fn emit_borrowed_str(
        &mut self,
        layout: &'static TypeLayout,
        bs: &BorrowedStrLayout,
        dst: Value,
        unwind: Block,
    ) {
        let (start, cont) = self.emit_plain_string_into(bs.borrow as usize, dst);
        match bs.own {
            Some(own) => self.emit_string_helper(own as usize, dst, start, cont, unwind),
            None => self.emit_interpret(layout, dst, start, cont, unwind),
        }
        self.b.switch_to_block(cont);
    }

    /// The fast path of a string: a string without escapes (checked to be UTF-8
    /// when needed) handed to `write(dst, ptr, len)` with the text in the input,
    /// then to `cont`. Returns the value's start and `cont`, and leaves the
    /// builder in the (cold) slow block, which the caller fills.
    fn emit_plain_string_into(&mut self, write: usize, dst: Value) -> (Value, Block) {
        let start = self.get_pos();
        let (slow, cont) = (self.b.create_block(), self.b.create_block());
        let (ptr, len) = self.emit_plain_string_text(slow);
        if write == column_append_text as *const () as usize {
            // A text column's append is the column's own (jit/src/kind/column.rs).
            self.emit_append_text(dst, ptr, len);
        } else {
            self.call_addr(write, &[PTR, PTR, PTR], None, &[dst, ptr, len]);
        }
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(slow);
        self.b.set_cold_block(slow);
        (start, cont)
    }

    /// Skips whitespace and reads a string without escapes (checked to be UTF-8
    /// when needed), leaving `pos` after it; returns a pointer to its text in the
    /// input and its length. Anything else goes to `slow`.
    pub(crate) fn emit_plain_string_text(&mut self, slow: Block) -> (Value, Value) {
        let c = self.peek_or(slow);
        self.expect_byte(c, b'"', slow);
        self.advance(1);
        let text_start = self.get_pos();
        let (end, high) = self.emit_scan_plain_string(slow);
        self.emit_check_utf8(text_start, end, high, slow);
        let ptr = self.b.ins().iadd(self.input, text_start);
        let len = self.b.ins().isub(end, text_start);
        let after = self.b.ins().iadd_imm_s(end, 1);
        self.set_pos(after);
        (ptr, len)
    }

    /// The string helper from `start`: unescapes into a reused buffer and hands
    /// the text to `write` (a text column's straight onto its data:
    /// `helpers::column_string`); to `cont` on success, `unwind` on failure.
    fn emit_string_helper(
        &mut self,
        write: usize,
        dst: Value,
        start: Value,
        cont: Block,
        unwind: Block,
    ) {
        self.set_pos(start);
        self.store_pos();
        let ok = if write == column_append_text as *const () as usize {
            self.call_addr(
                helpers::column_string as *const () as usize,
                &[PTR, PTR],
                Some(types::I8),
                &[self.state, dst],
            )
        } else {
            let write = self.b.ins().iconst(PTR, write as i64);
            self.call_addr(
                helpers::decode_string as *const () as usize,
                &[PTR, PTR, PTR],
                Some(types::I8),
                &[self.state, write, dst],
            )
        }
        .expect("returns bool");
        self.load_pos();
        self.b.ins().brif(ok, cont, &[], unwind, &[]);
    }
}

// ---------------------------------------------------------------------------
// Encoding (twin: `encode_string`, `encode_borrowed_str` in
// `fallback/src/kind/string.rs`)

impl crate::encode::EncodeTranslator<'_, '_> {
    /// A string read through the layout's `read` accessor, written by
    /// [`emit_encode_text`](Self::emit_encode_text).
    pub(crate) fn emit_encode_string(
        &mut self,
        read: jitson_core::layout::ReadStrFn,
        src: Value,
        fail: Block,
    ) {
        let len_slot = self.slot();
        let text = self
            .call_addr(read as usize, &[PTR, PTR], Some(PTR), &[src, len_slot])
            .expect("read returns a pointer");
        let len = self
            .b
            .ins()
            .load(PTR, crate::encode::state_flags(), len_slot, 0);
        self.emit_encode_text(text, len, fail);
    }

    /// The UTF-8 text `text[..len]` as a JSON string, wherever it was read
    /// from (a `String` through its accessor, an Arrow column's offsets):
    /// room for the text and its quotes is made in IR; a text of 4 to
    /// [`INLINE_TEXT_MAX`] bytes with nothing to escape is checked and copied
    /// without a call ([`emit_short_plain_text`](Self::emit_short_plain_text));
    /// any other is copied by a helper when no byte needs escaping, and
    /// otherwise escaped by `core::write` (straight away when the inline
    /// check saw a byte to escape).
    pub(crate) fn emit_encode_text(&mut self, text: Value, len: Value, fail: Block) {
        let needed = self.b.ins().iadd_imm_s(len, 2);
        self.ensure(needed, fail);
        let at = self.cursor();
        let (general, escape, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.emit_short_plain_text(text, len, at, general, escape, done);
        self.b.switch_to_block(general);
        let plain = self
            .call_addr(
                crate::encode::helper_write_plain(),
                &[PTR, PTR, PTR],
                Some(types::I8),
                &[at, text, len],
            )
            .expect("write_plain returns a status");
        let copied = self.b.create_block();
        self.b.ins().brif(plain, copied, &[], escape, &[]);
        self.b.switch_to_block(copied);
        self.advance(needed);
        self.b.ins().jump(done, &[]);
        // Escapes: a short text into room for its worst case, a long one by
        // the vector-growing helper.
        self.b.switch_to_block(escape);
        let (short, long) = (self.b.create_block(), self.b.create_block());
        let is_short = self.b.ins().icmp_imm_u(
            IntCC::UnsignedLessThanOrEqual,
            len,
            crate::encode::SHORT_ESCAPED as i64,
        );
        self.b.ins().brif(is_short, short, &[], long, &[]);
        self.b.switch_to_block(short);
        let worst = self.b.ins().imul_imm_u(len, 6);
        let worst = self.b.ins().iadd_imm_u(worst, 2);
        self.ensure(worst, fail);
        let at = self.cursor();
        let written = self
            .call_addr(
                crate::encode::helper_write_escaped_into(),
                &[PTR, PTR, PTR],
                Some(PTR),
                &[at, text, len],
            )
            .expect("write_escaped_into returns a length");
        self.advance(written);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(long);
        self.b.set_cold_block(long);
        self.spill();
        let ok = self
            .call_addr(
                crate::encode::helper_write_escaped(),
                &[PTR, PTR, PTR],
                Some(types::I8),
                &[self.state, text, len],
            )
            .expect("write_escaped returns a status");
        self.reload();
        self.b.ins().brif(ok, done, &[], fail, &[]);
        self.b.switch_to_block(done);
    }

    /// The fast path of [`emit_encode_text`](Self::emit_encode_text), with
    /// `len + 2` bytes of room at `at`: a text of 4 to 16 bytes is read as two
    /// overlapping words (4 or 8 bytes, at its start and its end) and checked
    /// for bytes to escape by SWAR ([`word_specials`]); one of 17 to 32 bytes
    /// as two overlapping vectors ([`vector_specials`]); one of 33 to
    /// [`INLINE_TEXT_MAX`] by a loop over 16-byte vectors, each stored after
    /// it is checked, the last one ending at the text's end (overlapping the
    /// one before). A clean text is stored, quoted, from the same registers
    /// and the code goes to `done`; a text with a byte to escape goes to
    /// `escape` (whatever the loop stored stays past the output's length,
    /// to be overwritten), and any other text to `general`. Every load lies
    /// inside the text and every store inside the room. A helper call, its
    /// scan and its `memcpy` were half of `User`'s encode (`perf`,
    /// 2026-12-02), and a sixth of the Arrow writer's on log records, whose
    /// messages and paths are 20 to 80 bytes (2026-12-05).
    fn emit_short_plain_text(
        &mut self,
        text: Value,
        len: Value,
        at: Value,
        general: Block,
        escape: Block,
        done: Block,
    ) {
        let flags = crate::encode::value_flags();
        let (words, not_words, vectors) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let (eight, four) = (self.b.create_block(), self.b.create_block());
        // `len - 4 <= 12` (wrapping): 4..=16 bytes.
        let from4 = self.b.ins().iadd_imm_s(len, -4);
        let in_words = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, from4, 12);
        self.b.ins().brif(in_words, words, &[], not_words, &[]);

        self.b.switch_to_block(not_words);
        let from17 = self.b.ins().iadd_imm_s(len, -17);
        let in_vectors = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, from17, 15);
        let (not_vectors, looped) = (self.b.create_block(), self.b.create_block());
        self.b
            .ins()
            .brif(in_vectors, vectors, &[], not_vectors, &[]);

        self.b.switch_to_block(not_vectors);
        let from33 = self.b.ins().iadd_imm_s(len, -33);
        let in_loop = self.b.ins().icmp_imm_u(
            IntCC::UnsignedLessThanOrEqual,
            from33,
            INLINE_TEXT_MAX as i64 - 33,
        );
        self.b.ins().brif(in_loop, looped, &[], general, &[]);

        // One past the text's last byte: its last word is loaded below it.
        let text_end = |t: &mut Self| t.b.ins().iadd(text, len);

        self.b.switch_to_block(words);
        let wide = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, len, 8);
        self.b.ins().brif(wide, eight, &[], four, &[]);

        for (block, ty, width) in [(eight, types::I64, 8), (four, types::I32, 4)] {
            self.b.switch_to_block(block);
            let first = self.b.ins().load(ty, flags, text, 0);
            let end = text_end(self);
            let last = self.b.ins().load(ty, flags, end, -width);
            let specials = if ty == types::I64 {
                let a = word_specials(&mut self.b, first);
                let b = word_specials(&mut self.b, last);
                self.b.ins().bor(a, b)
            } else {
                let lo = self.b.ins().uextend(types::I64, first);
                let hi = self.b.ins().uextend(types::I64, last);
                let hi = self.b.ins().ishl_imm_u(hi, 32);
                let both = self.b.ins().bor(lo, hi);
                word_specials(&mut self.b, both)
            };
            let store = self.b.create_block();
            self.b.ins().brif(specials, escape, &[], store, &[]);
            self.b.switch_to_block(store);
            self.store_quoted(at, first, last, width, len);
            self.b.ins().jump(done, &[]);
        }

        self.b.switch_to_block(vectors);
        let first = self.b.ins().load(types::I8X16, flags, text, 0);
        let end = text_end(self);
        let last = self.b.ins().load(types::I8X16, flags, end, -16);
        let a = vector_specials(&mut self.b, first);
        let b = vector_specials(&mut self.b, last);
        let specials = self.b.ins().bor(a, b);
        let store = self.b.create_block();
        self.b.ins().brif(specials, escape, &[], store, &[]);
        self.b.switch_to_block(store);
        self.store_quoted(at, first, last, 16, len);
        self.b.ins().jump(done, &[]);

        // The loop: chunk `i` (16 bytes at `i`) checked, then stored at
        // `at + 1 + i`, while a chunk ends short of the last 16 bytes; then
        // the last 16, whose store ends where the closing quote goes.
        self.b.switch_to_block(looped);
        let splats = SpecialSplats::new(&mut self.b);
        let (chunk, stored, last_chunk, close) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let i = self.b.append_block_param(chunk, PTR);
        let zero = self.b.ins().iconst(PTR, 0);
        self.b.ins().jump(chunk, &[BlockArg::Value(zero)]);

        self.b.switch_to_block(chunk);
        let from = self.b.ins().iadd(text, i);
        let v = self.b.ins().load(types::I8X16, flags, from, 0);
        let specials = vector_specials_with(&mut self.b, v, &splats);
        self.b.ins().brif(specials, escape, &[], stored, &[]);

        self.b.switch_to_block(stored);
        let to = self.b.ins().iadd(at, i);
        self.b.ins().store(flags, v, to, 1);
        let next = self.b.ins().iadd_imm_s(i, 16);
        // More whole chunks while `next + 16 < len`: `next` stays below the
        // last chunk's start, `len - 16`.
        let next_end = self.b.ins().iadd_imm_s(next, 16);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, next_end, len);
        self.b
            .ins()
            .brif(more, chunk, &[BlockArg::Value(next)], last_chunk, &[]);

        self.b.switch_to_block(last_chunk);
        let end = text_end(self);
        let last = self.b.ins().load(types::I8X16, flags, end, -16);
        let specials = vector_specials_with(&mut self.b, last, &splats);
        self.b.ins().brif(specials, escape, &[], close, &[]);

        self.b.switch_to_block(close);
        let quote = self.b.ins().iconst(types::I8, i64::from(b'"'));
        self.b.ins().store(flags, quote, at, 0);
        let end = self.b.ins().iadd(at, len);
        self.b.ins().store(flags, last, end, -15);
        self.b.ins().store(flags, quote, end, 1);
        let n = self.b.ins().iadd_imm_s(len, 2);
        self.advance(n);
        self.b.ins().jump(done, &[]);
    }

    /// Stores `"`, the text as its `first` and `last` `width` bytes (which
    /// overlap when the text is shorter than two widths), and `"` at `at`,
    /// then advances past them.
    fn store_quoted(&mut self, at: Value, first: Value, last: Value, width: i32, len: Value) {
        let flags = crate::encode::value_flags();
        let quote = self.b.ins().iconst(types::I8, i64::from(b'"'));
        self.b.ins().store(flags, quote, at, 0);
        self.b.ins().store(flags, first, at, 1);
        let end = self.b.ins().iadd(at, len);
        self.b.ins().store(flags, last, end, 1 - width);
        self.b.ins().store(flags, quote, end, 1);
        let n = self.b.ins().iadd_imm_s(len, 2);
        self.advance(n);
    }
}
