//! Structs, table-driven lowering ([`StructLowering::Table`](crate::StructLowering)).
//! Twin of the unrolled lowering in `struct_.rs`, with the same contract and the
//! same helpers; twin of `fallback/src/kind/struct_.rs`.
//!
//! A struct's generated function is a thunk: it calls [`walk`] with the struct's
//! [`StructTable`], built at compile time. `walk` is Rust, compiled once with the
//! crate: it skips `{`, speculates on the next key from the table (the learned
//! order, else declaration order), reads the `:`, calls the field's generated
//! *value* function through the table, and reads the `,` and the next key's
//! quote or the `}` ([`value_member`]), with the outcomes the unrolled code's
//! member functions return ([`MemberStatus`]). Values are decoded by generated
//! code either way; what the table saves is the struct's own IR (about 30
//! instructions per field and 240 per struct, issue 10) and the members' (the
//! punctuation around a value, about 110 instructions per field layout: a value
//! function is also what sequences and options call, so a field layout often
//! costs nothing more), so compiling a struct costs a table rather than
//! Cranelift time.
//!
//! The idea of a compiled tier that is mostly data follows baseline compilers
//! such as V8's Sparkplug, which emit calls into shared builtins in place of
//! specialised code.

use std::sync::atomic::{AtomicU64, Ordering};

use jitson_core::keys::KeyTable;
use jitson_core::layout::{Alternates, SkipMode, StructLayout, TypeLayout};
use jitson_core::text::skip_ws;

use crate::helpers::{self, JitState};
use crate::kind::MemberStatus;

/// A generated value function (the crate's ABI: `true` with the value written
/// and `pos` after it, `false` with nothing live).
pub(crate) type ValueFn = unsafe extern "C" fn(*mut JitState, *mut u8) -> bool;

/// No field: the next key is not speculated on.
const NONE: usize = usize::MAX;

/// One field of a [`StructTable`].
struct FieldEntry {
    /// The field layout's value function ([`unset_value`] until the module is
    /// finalized).
    value: ValueFn,
    /// For a field that is itself a table-lowered struct, its table (set with
    /// the value functions; null otherwise): the walker walks it itself, and
    /// no function is called for it.
    nested: *const StructTable,
    /// Byte offset of the field in the struct.
    offset: usize,
    /// The field expected after this one (`NONE`: none), and the one tried
    /// second (`KeyOrders::alternates`; `NONE`: none).
    next: usize,
    alternate: usize,
    /// How the key is compared, and the length of the name with its closing
    /// quote.
    compare: Compare,
    quoted_len: usize,
    /// The name and its closing quote, zero-padded to 32 bytes as four
    /// native-endian words, and masks of its bytes (`Compare::Words`).
    words: [u64; 4],
    masks: [u64; 4],
    /// The name and its closing quote (`Compare::Bytes`).
    quoted: Box<[u8]>,
}

/// How a key is compared with a field's name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Compare {
    /// Up to 16 bytes with the quote: two 8-byte loads where 16 bytes remain.
    Words2,
    /// Up to 32 bytes: four 8-byte loads where 32 bytes remain.
    Words4,
    /// Longer: a slice compare.
    Bytes,
    /// Never raw (see `struct_::is_plain`): every key goes to
    /// [`helpers::match_key`].
    Never,
}

impl FieldEntry {
    /// Whether the key whose opening quote is at `quote` is this field's name.
    #[inline(always)]
    fn key_at(&self, input: &[u8], quote: usize) -> bool {
        let at = quote + 1;
        match self.compare {
            Compare::Words2 if at + 16 <= input.len() => self.words_equal::<2>(input, at),
            Compare::Words4 if at + 32 <= input.len() => self.words_equal::<4>(input, at),
            Compare::Never => false,
            _ => input.get(at..at + self.quoted_len) == Some(&self.quoted[..]),
        }
    }

    /// Whether the `8 * N` bytes at `at` (inside the input) match the name's
    /// first `N` words under their masks.
    #[inline(always)]
    fn words_equal<const N: usize>(&self, input: &[u8], at: usize) -> bool {
        debug_assert!(at + 8 * N <= input.len());
        let mut diff = 0;
        for i in 0..N {
            // SAFETY: the caller checked `at + 8 * N <= input.len()`, so the
            // 8-byte read at `at + 8 * i` is inside the input; it is unaligned.
            let w = unsafe {
                input
                    .as_ptr()
                    .add(at + 8 * i)
                    .cast::<u64>()
                    .read_unaligned()
            };
            diff |= (w ^ self.words[i]) & self.masks[i];
        }
        diff == 0
    }
}

/// The value function a table holds until its module is finalized (no code
/// can reach the table before): fails.
unsafe extern "C" fn unset_value(_: *mut JitState, _: *mut u8) -> bool {
    false
}

/// What [`walk`] needs to decode one struct layout: per field its value
/// function, offset, name and successor in the speculated order, and the key
/// table for keys that miss. Owned by the compiled module (boxed: the thunk
/// holds its address).
pub(crate) struct StructTable {
    layout: &'static TypeLayout,
    st: &'static StructLayout,
    keys: KeyTable,
    fields: Box<[FieldEntry]>,
    /// The field speculated first (`NONE`: none), and the one tried second.
    first: usize,
    first_alternate: usize,
    /// Stack the level reserves (`jitson_core::stack::level_reserve`).
    reserve: usize,
    /// Fields that must be present, and fields filled when absent.
    required: Mask,
    fillable: Mask,
    /// Words of the written-field set (`helpers::seen_words`): 1 for at most
    /// 64 fields, the common case, walked with a `u64` ([`walk`]).
    words: usize,
    /// Whether any field needs dropping (else the give-up paths skip the call).
    needs_drop: bool,
    /// Where keys that miss the speculation are counted.
    miss_counter: Option<*const AtomicU64>,
}

// SAFETY: the table is read-only once the module is finalized (`set_value` and
// `set_nested` run before any code can see it); the nested tables it points to
// are owned by the same module, and the counter is an atomic that lives as long
// as the code.
unsafe impl Send for StructTable {}
// SAFETY: as above.
unsafe impl Sync for StructTable {}

impl StructTable {
    /// The table for `st`, speculating on `order` (field indices, as
    /// `KeyOrders::speculation` gives them), then on `alternates`. Value
    /// functions are set later.
    pub(crate) fn new(
        layout: &'static TypeLayout,
        st: &'static StructLayout,
        order: &[usize],
        alternates: &Alternates,
        miss_counter: Option<*const AtomicU64>,
    ) -> StructTable {
        let mut fields: Vec<FieldEntry> = st
            .fields
            .iter()
            .map(|field| {
                let plain = super::struct_::is_plain(field.name);
                let mut quoted = field.name.as_bytes().to_vec();
                quoted.push(b'"');
                let compare = match quoted.len() {
                    _ if !plain => Compare::Never,
                    ..=16 => Compare::Words2,
                    17..=32 => Compare::Words4,
                    _ => Compare::Bytes,
                };
                let (mut padded, mut mask) = ([0u8; 32], [0u8; 32]);
                if matches!(compare, Compare::Words2 | Compare::Words4) {
                    padded[..quoted.len()].copy_from_slice(&quoted);
                    mask[..quoted.len()].fill(0xff);
                }
                let word = |b: &[u8; 32], i: usize| {
                    u64::from_ne_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes"))
                };
                let words = |b: &[u8; 32]| [word(b, 0), word(b, 1), word(b, 2), word(b, 3)];
                FieldEntry {
                    value: unset_value,
                    nested: std::ptr::null(),
                    offset: field.offset,
                    next: NONE,
                    alternate: NONE,
                    compare,
                    quoted_len: quoted.len(),
                    words: words(&padded),
                    masks: words(&mask),
                    quoted: quoted.into_boxed_slice(),
                }
            })
            .collect();
        for pair in order.windows(2) {
            fields[pair[0]].next = pair[1];
        }
        for (field, alternate) in fields.iter_mut().zip(&alternates.after) {
            field.alternate = alternate.unwrap_or(NONE);
        }
        let (required, fillable) = super::struct_::presence_masks(st);
        StructTable {
            layout,
            st,
            keys: KeyTable::new(st),
            fields: fields.into_boxed_slice(),
            first: order.first().copied().unwrap_or(NONE),
            first_alternate: alternates.first.unwrap_or(NONE),
            reserve: jitson_core::stack::level_reserve(layout),
            required: Mask::new(&required),
            fillable: Mask::new(&fillable),
            words: helpers::seen_words(st.fields.len()),
            needs_drop: st.fields.iter().any(|f| f.layout.get().drop.is_some()),
            miss_counter,
        }
    }

    /// The struct layout whose fields the table's entries are, by index.
    pub(crate) fn struct_layout(&self) -> &'static StructLayout {
        self.st
    }

    /// Sets field `i`'s value function (once its module is finalized).
    pub(crate) fn set_value(&mut self, i: usize, value: ValueFn) {
        self.fields[i].value = value;
    }

    /// Sets the table of field `i`, a table-lowered struct owned by the same
    /// module.
    pub(crate) fn set_nested(&mut self, i: usize, nested: *const StructTable) {
        self.fields[i].nested = nested;
    }

    /// The struct layout this table decodes.
    pub(crate) fn layout(&self) -> &'static TypeLayout {
        self.layout
    }

    /// The value function that walks this table: [`walk`] for at most 64
    /// fields, [`walk_wide`] beyond.
    pub(crate) fn walker(&self) -> WalkFn {
        if self.words == 1 { walk } else { walk_wide }
    }
}

/// A walker's signature ([`walk`], [`walk_wide`]).
pub(crate) type WalkFn = unsafe extern "C" fn(*mut JitState, *mut u8, *const StructTable) -> bool;

/// A bitmap by field index over the words of a written-field set: the first
/// word apart, so that a struct of at most 64 fields reads no more than it did
/// when one word was all there was.
struct Mask {
    first: u64,
    rest: Box<[u64]>,
}

impl Mask {
    /// The mask of `words` (at least one).
    fn new(words: &[u64]) -> Mask {
        Mask {
            first: words[0],
            rest: words[1..].into(),
        }
    }
}

/// The fields a walk has written: a `u64` for at most 64 fields (kept in a
/// register), words on the stack up to 256, on the heap beyond.
trait Written {
    /// The empty set for a table of `words` words.
    fn empty(words: usize) -> Self;
    fn has(&self, i: usize) -> bool;
    fn mark(&mut self, i: usize);
    /// The set as words, at least as many as the table's.
    fn words(&self) -> &[u64];
    /// Whether every field of `mask` is in the set.
    fn covers(&self, mask: &Mask) -> bool;
}

impl Written for u64 {
    #[inline(always)]
    fn empty(_: usize) -> u64 {
        0
    }
    #[inline(always)]
    fn has(&self, i: usize) -> bool {
        *self >> i & 1 == 1
    }
    #[inline(always)]
    fn mark(&mut self, i: usize) {
        *self |= 1 << i;
    }
    #[inline(always)]
    fn words(&self) -> &[u64] {
        std::slice::from_ref(self)
    }
    #[inline(always)]
    fn covers(&self, mask: &Mask) -> bool {
        *self & mask.first == mask.first
    }
}

/// Up to 256 fields.
const STACK_WORDS: usize = 4;

/// Whether `words` (at least one) hold every field of `mask`.
#[inline(always)]
fn words_cover(words: &[u64], mask: &Mask) -> bool {
    std::iter::once(&mask.first)
        .chain(mask.rest.iter())
        .zip(words)
        .all(|(m, w)| w & m == *m)
}

impl Written for [u64; STACK_WORDS] {
    #[inline(always)]
    fn empty(_: usize) -> Self {
        [0; STACK_WORDS]
    }
    #[inline(always)]
    fn has(&self, i: usize) -> bool {
        self.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }
    #[inline(always)]
    fn mark(&mut self, i: usize) {
        if let Some(w) = self.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }
    #[inline(always)]
    fn words(&self) -> &[u64] {
        self
    }
    #[inline(always)]
    fn covers(&self, mask: &Mask) -> bool {
        words_cover(self, mask)
    }
}

impl Written for Vec<u64> {
    fn empty(words: usize) -> Self {
        vec![0; words]
    }
    #[inline(always)]
    fn has(&self, i: usize) -> bool {
        self.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }
    #[inline(always)]
    fn mark(&mut self, i: usize) {
        if let Some(w) = self.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }
    #[inline(always)]
    fn words(&self) -> &[u64] {
        self
    }
    fn covers(&self, mask: &Mask) -> bool {
        words_cover(self, mask)
    }
}

/// How a struct's members ended.
enum Exit {
    /// `}` consumed; `seen` holds the fields written.
    Closed,
    /// The fast path gives up: the interpreter decodes the struct from its start.
    Bail,
    /// A value failed for good.
    Failed,
}

/// The value function of a struct lowered to a table: decodes the object at
/// `state.pos` into `dst` as the unrolled struct function does, and returns
/// `true` with `state.pos` after it, or `false` with nothing live at `dst`.
/// Gives up to the interpreter (from the struct's start) where the unrolled code
/// does: a repeated key, a missing required field, a malformed member.
///
/// # Safety
/// `state` is live and describes a live input; `dst` is room for the struct;
/// `table` was built for the struct and its value functions are set. Called only
/// from generated code.
pub(crate) unsafe extern "C" fn walk(
    state: *mut JitState,
    dst: *mut u8,
    table: *const StructTable,
) -> bool {
    // SAFETY: as the caller guarantees.
    unsafe { walk_with::<u64>(state, dst, table) }
}

/// [`walk`] for a table of more than 64 fields: its written-field set on the
/// stack up to 256 fields, on the heap beyond.
///
/// # Safety
/// As for [`walk`].
pub(crate) unsafe extern "C" fn walk_wide(
    state: *mut JitState,
    dst: *mut u8,
    table: *const StructTable,
) -> bool {
    // SAFETY: as the caller guarantees; the table lives as long as the code.
    unsafe {
        if (*table).words <= STACK_WORDS {
            walk_with::<[u64; STACK_WORDS]>(state, dst, table)
        } else {
            walk_with::<Vec<u64>>(state, dst, table)
        }
    }
}

/// The body of the walkers, over a written-field set `S` wide enough for
/// the table.
///
/// # Safety
/// As for [`walk`].
#[inline(always)]
unsafe fn walk_with<S: Written>(
    state: *mut JitState,
    dst: *mut u8,
    table: *const StructTable,
) -> bool {
    // SAFETY: as the caller guarantees; the table lives as long as the code.
    let (st, t) = unsafe { (&mut *state, &*table) };
    let start = st.pos;
    let depth = st.remaining_depth;
    let mut seen = S::empty(t.words);
    // SAFETY: as the caller guarantees.
    let mut exit = unsafe { members(st, dst, t, &mut seen) };
    st.remaining_depth = depth;
    if let Exit::Closed = exit {
        if !seen.covers(&t.required) {
            exit = Exit::Bail;
        } else if (!seen.covers(&t.fillable) || !t.st.skipped.is_empty())
            // SAFETY: every required field is written and exactly `seen` is live.
            && !unsafe { helpers::fill_absent_in(t.st, dst, seen.words()) }
        {
            exit = Exit::Failed;
        }
    }
    if !matches!(exit, Exit::Closed) && t.needs_drop {
        // SAFETY: exactly the fields in `seen` were written (`fill_absent_in`
        // dropped what it filled when it failed).
        unsafe { helpers::drop_written_in(t.st, dst, seen.words()) };
    }
    match exit {
        Exit::Closed => true,
        Exit::Failed => false,
        Exit::Bail => {
            st.pos = start;
            // SAFETY: `dst` holds nothing live again; the layout is the struct's.
            unsafe { helpers::interpret_value(st, t.layout, dst) }
        }
    }
}

/// `{`, the members and `}`; records written fields in `seen`.
///
/// # Safety
/// As for [`walk`].
#[inline(always)]
unsafe fn members<S: Written>(
    st: &mut JitState,
    dst: *mut u8,
    t: &StructTable,
    seen: &mut S,
) -> Exit {
    // SAFETY: the state describes a live input.
    let input = unsafe { std::slice::from_raw_parts(st.input, st.len) };
    let open = skip_ws(input, st.pos);
    if input.get(open) != Some(&b'{') {
        return Exit::Bail;
    }
    let entered = st.remaining_depth.wrapping_sub(1);
    if entered == 0 || !jitson_core::stack::has_room(st.stack_limit, t.reserve) {
        return Exit::Bail;
    }
    st.remaining_depth = entered;
    let mut pos = skip_ws(input, open + 1);
    match input.get(pos) {
        Some(b'}') => {
            st.pos = pos + 1;
            return Exit::Closed;
        }
        Some(b'"') => {}
        _ => return Exit::Bail,
    }
    let (mut expect, mut second) = (t.first, t.first_alternate);
    loop {
        // `pos` is on a key's opening quote: the field expected, or the second
        // guess, or the lookup.
        let guessed = [expect, second]
            .into_iter()
            .find(|&j| t.fields.get(j).is_some_and(|f| f.key_at(input, pos)));
        let i = match guessed {
            Some(j) => {
                pos += 1 + t.fields[j].quoted_len;
                j
            }
            None => {
                st.pos = pos;
                // SAFETY: the state is live, `pos` is on a quote, and the key
                // table is the struct's.
                let index = unsafe { helpers::match_key(st, t.st, &t.keys) };
                if index == -1 && !t.st.deny_unknown_fields {
                    // SAFETY: the state is live, `pos` after the key.
                    let status = unsafe {
                        match t.st.skip_unknown {
                            SkipMode::Validate => helpers::skip_member(st),
                            SkipMode::Brackets => helpers::skip_member_by_brackets(st),
                        }
                    };
                    pos = st.pos;
                    match status {
                        s if s == MemberStatus::Next as i8 => {
                            (expect, second) = (NONE, NONE);
                            continue;
                        }
                        s if s == MemberStatus::Close as i8 => break,
                        _ => return Exit::Bail,
                    }
                }
                let Ok(index) = usize::try_from(index) else {
                    return Exit::Bail;
                };
                // A field's key that the speculation missed: counted, so the
                // facade can tell that documents changed order (unknown keys
                // are not: no order would have matched them).
                if let Some(counter) = t.miss_counter {
                    // SAFETY: the counter outlives the code (`CompileOptions`).
                    unsafe { (*counter).fetch_add(1, Ordering::Relaxed) };
                }
                pos = st.pos;
                index
            }
        };
        if seen.has(i) {
            return Exit::Bail;
        }
        let f = &t.fields[i];
        st.pos = pos;
        // SAFETY: the value function (or the nested table) was compiled for
        // the field's layout and decodes into the field's memory, inside the
        // struct.
        let status = unsafe { value_member(st, dst.add(f.offset), f) };
        pos = st.pos;
        match status {
            s if s == MemberStatus::Next as i8 => {
                seen.mark(i);
                (expect, second) = (f.next, f.alternate);
            }
            s if s == MemberStatus::Close as i8 => {
                seen.mark(i);
                break;
            }
            s if s == MemberStatus::WrittenBail as i8 => {
                seen.mark(i);
                return Exit::Bail;
            }
            s if s == MemberStatus::Bail as i8 => return Exit::Bail,
            _ => return Exit::Failed,
        }
    }
    // `pos` is on the closing `}`.
    st.pos = pos + 1;
    Exit::Closed
}

/// A member: `:`, the field's value (its value function, or [`walk`] with
/// its table for a table-lowered struct), and what follows, with the
/// statuses of a generated member function (`kind/struct_.rs`).
///
/// # Safety
/// As for [`walk`], with `dst` the field's memory and `field` its entry in
/// the struct's table.
#[inline(always)]
unsafe fn value_member(st: &mut JitState, dst: *mut u8, field: &FieldEntry) -> i8 {
    // SAFETY: the state describes a live input.
    let input = unsafe { std::slice::from_raw_parts(st.input, st.len) };
    let colon = skip_ws(input, st.pos);
    if input.get(colon) != Some(&b':') {
        return MemberStatus::Bail as i8;
    }
    st.pos = colon + 1;
    // SAFETY: as the caller guarantees; the nested table lives as long as the
    // code, and the value function was compiled for the field's layout.
    let decoded = unsafe {
        let table = field.nested;
        if table.is_null() {
            (field.value)(st, dst)
        } else if (*table).words == 1 {
            walk(st, dst, table)
        } else {
            walk_wide(st, dst, table)
        }
    };
    if !decoded {
        return MemberStatus::Failed as i8;
    }
    match helpers::after_member(input, st.pos) {
        Some((status, pos)) => {
            st.pos = pos;
            status as i8
        }
        None => MemberStatus::WrittenBail as i8,
    }
}
