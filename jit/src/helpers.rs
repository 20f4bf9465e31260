//! The state generated code works on, and the helpers it calls.
//!
//! Helpers are `extern "C"`, take the state by pointer, and never unwind: a panic
//! (a bug, or user code reached through the interpreter) is caught and stashed for
//! the facade, and reported as failure.

use std::cell::Cell;

use jitson_core::keys::KeyTable;
use jitson_core::layout::{
    EnumLayout, Kind, MapLayout, SkipMode, SlotFn, StructLayout, TypeLayout,
};

/// What generated code reads and writes besides its output. `repr(C)`: generated
/// code addresses the fields by the offsets `offset_of!` gives at compile time.
#[repr(C)]
#[derive(Debug)]
pub struct JitState {
    /// The input bytes.
    pub input: *const u8,
    /// Their number.
    pub len: usize,
    /// Offset of the next byte to read; generated code keeps it in a register and
    /// stores it here around every call.
    pub pos: usize,
    /// Decoded containers that may still be entered (serde_json's recursion limit).
    pub remaining_depth: u32,
    /// Non-zero for `&[u8]` input: strings must be checked to be UTF-8.
    pub validate_utf8: u32,
    /// The stack address no level may go below (`jitson_core::stack::limit`, taken
    /// when the decode began); generated code compares its stack pointer with it
    /// on entering each container.
    pub stack_limit: usize,
    /// Set when a slow path failed because the stack was nearly full: a decode
    /// that fails for that reason may still succeed from a shallower frame.
    pub stack_exhausted: u32,
    /// Where vectors' elements are decoded before the vector is allocated
    /// (`jitson_core::elements`); generated code bumps its `top`.
    pub elements: jitson_core::elements::Leased,
    /// How many enclosing values serde would have buffered (an untagged
    /// enum's candidate, an internally tagged enum's payload): while non-zero,
    /// skipped values are checked as serde checks what it buffers (numbers
    /// evaluated, depth limited) and the interpreter's slow paths are told
    /// (`jitson_fallback::Buffering`). Kept by generated code around the call
    /// that decodes such a value.
    pub buffered: u32,
    /// An internally tagged enum's tag while its payload is decoded (null
    /// otherwise): the payload's own object (the members at depth
    /// `tag_depth - 1`) skips one member with this key, and a second one is a
    /// duplicate (the helpers then bail, and the interpreter reports it).
    /// Points into the enum's `'static` layout. Saved and restored by
    /// generated code around the payload's call, so nested tagged enums keep
    /// their parent's.
    pub tag: *const &'static str,
    /// The depth (`remaining_depth`) at which the tagged enum was met.
    pub tag_depth: u32,
    /// Whether the payload's object has had its tag member already.
    pub tag_seen: u32,
}

impl JitState {
    /// State for decoding `input` from its start, with the stack limit measured
    /// from the caller's frame.
    #[inline]
    pub fn new(input: &[u8], max_depth: u32, validate_utf8: bool) -> JitState {
        JitState {
            input: input.as_ptr(),
            len: input.len(),
            pos: 0,
            remaining_depth: max_depth,
            validate_utf8: u32::from(validate_utf8),
            stack_limit: jitson_core::stack::limit(),
            stack_exhausted: 0,
            elements: jitson_core::elements::Elements::lease(),
            buffered: 0,
            tag: std::ptr::null(),
            tag_depth: 0,
            tag_seen: 0,
        }
    }

    /// The internally tagged enum's tag when the members being read now
    /// belong to its payload's own object.
    fn tag_here(&self) -> Option<&'static str> {
        // SAFETY: `tag` is null or points into a `'static` enum layout.
        let tag = unsafe { self.tag.as_ref() }?;
        (self.remaining_depth + 1 == self.tag_depth).then_some(*tag)
    }

    /// For an unknown `key` of an object being read: `true` when it is the
    /// internally tagged payload's tag, met for the second time (serde's
    /// duplicate field; the caller bails so that the interpreter reports it).
    /// A first tag is noted and skipped like any unknown key.
    fn second_tag(&mut self, key: &[u8]) -> bool {
        match self.tag_here() {
            Some(tag) if tag.as_bytes() == key => std::mem::replace(&mut self.tag_seen, 1) == 1,
            _ => false,
        }
    }

    /// What the interpreter must know of serde's buffering to decode the value
    /// at `state.pos` as it would in place.
    fn buffering(&self) -> jitson_fallback::Buffering {
        jitson_fallback::Buffering {
            buffered: self.buffered,
            // Only the payload's own object (met at the enum's depth) skips
            // the tag; a value inside it does not.
            skip_key: if self.remaining_depth == self.tag_depth {
                // SAFETY: as in `tag_here`.
                unsafe { self.tag.as_ref() }.copied()
            } else {
                None
            },
        }
    }

    /// Skips the value at `pos` as the interpreter would here: as serde
    /// checks a buffered value when [`buffered`](Self::buffered) is set.
    ///
    /// # Safety
    /// The slice this state was made from is still alive.
    unsafe fn skip_value(&self, pos: usize) -> Result<usize, jitson_core::text::LexError> {
        // SAFETY: as the caller guarantees.
        let input = unsafe { self.input() };
        let validate = self.validate_utf8 != 0;
        if self.buffered > 0 {
            jitson_core::text::ignore_value_as_parsed(input, pos, validate, self.remaining_depth)
        } else {
            jitson_core::text::ignore_value(input, pos, validate)
        }
    }

    /// Takes back what the interpreter did for generated code: on success its
    /// position (returns `true`); on an error, whether the stack ran out (then
    /// a shallower frame may succeed), the error itself being rebuilt by the
    /// facade's rerun.
    fn settle(&mut self, pos: usize, result: Result<(), jitson_core::Error>) -> bool {
        match result {
            Ok(()) => {
                self.pos = pos;
                true
            }
            Err(e) => {
                if *e.code() == jitson_core::ErrorCode::StackExhausted {
                    self.stack_exhausted = 1;
                }
                false
            }
        }
    }

    /// The input.
    ///
    /// # Safety
    /// The slice this state was made from is still alive.
    unsafe fn input<'a>(&self) -> &'a [u8] {
        // SAFETY: as the caller guarantees.
        unsafe { std::slice::from_raw_parts(self.input, self.len) }
    }
}

/// The slow path: decodes one value of `layout` at `state.pos` with the
/// interpreter, advancing `state.pos` on success. Returns `false` if the
/// interpreter failed (the facade reruns it to build the error) or panicked.
///
/// # Safety
/// `state` is live and describes a live input; `dst` is room for `layout`.
pub(crate) unsafe extern "C" fn interpret_value(
    state: *mut JitState,
    layout: *const TypeLayout,
    dst: *mut u8,
) -> bool {
    let mut ok = false;
    jitson_core::panic::catch(|| {
        // SAFETY: generated code passes its own live state, a `&'static` layout
        // embedded at compile time, and the destination it was decoding into.
        unsafe {
            let state = &mut *state;
            let layout: &'static TypeLayout = &*layout;
            let input = state.input();
            let mut pos = state.pos;
            let buffering = state.buffering();
            let result = jitson_fallback::decode_value_at(
                input,
                &mut pos,
                state.remaining_depth,
                state.stack_limit,
                &mut state.elements,
                layout,
                dst,
                state.validate_utf8 != 0,
                buffering,
            );
            ok = state.settle(pos, result);
        }
    });
    ok
}

/// What generated code hands [`map_key`] through `MapLayout::insert`'s key
/// context: its state and the map's layout. Lives in a stack slot of the map's
/// function for the call. `repr(C)`: generated code stores the two fields at
/// the offsets `offset_of!` gives.
#[repr(C)]
pub(crate) struct MapKeyContext {
    pub(crate) state: *mut JitState,
    pub(crate) map: *const MapLayout,
}

/// The key callback of a map whose keys are parsed from their text
/// (`MapLayout::insert`'s `decode_key`): `state.pos` at the key's quote,
/// decodes the key into `slot` and reads the `:` after it, as the interpreter
/// does ([`jitson_fallback::decode_map_key_at`]), leaving `state.pos` after
/// the colon for the value's generated function. Returns `false` (nothing
/// written; the facade reruns the interpreter to build the error) on any
/// error or panic.
///
/// # Safety
/// `ctx` points to a live [`MapKeyContext`] whose state is live and describes
/// a live input, and whose map is a `'static` layout; `slot` is room for a key.
pub(crate) unsafe extern "C" fn map_key(ctx: *mut std::ffi::c_void, slot: *mut u8) -> bool {
    let mut ok = false;
    jitson_core::panic::catch(|| {
        // SAFETY: as the caller (generated code, through `insert`) guarantees.
        unsafe {
            let ctx = &*ctx.cast::<MapKeyContext>();
            let state = &mut *ctx.state;
            let input = state.input();
            let mut pos = state.pos;
            let result = jitson_fallback::decode_map_key_at(
                input,
                &mut pos,
                state.remaining_depth,
                state.stack_limit,
                &mut state.elements,
                &*ctx.map,
                slot,
                state.validate_utf8 != 0,
                state.buffered,
            );
            ok = state.settle(pos, result);
        }
    });
    ok
}

/// The text of the JSON string whose opening quote is at `quote`, parsed as the
/// interpreter parses it (escapes unescaped into `scratch`, control bytes and
/// surrogates checked, UTF-8 validated when `validate`), and the offset after its
/// closing quote; `None` if it is malformed.
fn string_at<'a>(
    input: &'a [u8],
    quote: usize,
    scratch: &'a mut Vec<u8>,
    validate: bool,
) -> Option<(&'a [u8], usize)> {
    let (located, end) = jitson_core::text::parse_str(input, quote + 1, scratch, validate).ok()?;
    let text = located.bytes(input, scratch);
    Some((text, end))
}

/// An internally tagged object whose first member is not its tag, `state.pos`
/// at the `{`: reads the members (keys as the interpreter reads them, values
/// checked as serde checks what it buffers) up to the first whose key is
/// `*tag`, and returns the index of the variant its string value names (or
/// the `other` variant). -1 when the slow path must decide: no tag, a
/// malformed member, a value that is not a string, an unknown name. Leaves
/// `state.pos` alone (the payload is read from the `{`).
///
/// # Safety
/// `state` is live and describes a live input; `en` and `tag` point into a
/// `'static` enum layout.
pub(crate) unsafe extern "C" fn find_tag(
    state: *mut JitState,
    en: *const EnumLayout,
    tag: *const &'static str,
) -> i64 {
    use jitson_core::text::skip_ws;
    // SAFETY: generated code passes its own live state and pointers into the
    // layout it was compiled for.
    let (state, en, tag) = unsafe { (&*state, &*en, *tag) };
    // SAFETY: the state describes a live input.
    let input = unsafe { state.input() };
    let validate = state.validate_utf8 != 0;
    let mut scratch = Vec::new();
    let mut pos = state.pos + 1;
    loop {
        let quote = skip_ws(input, pos);
        if input.get(quote) != Some(&b'"') {
            return -1;
        }
        let Some((key, end)) = string_at(input, quote, &mut scratch, validate) else {
            return -1;
        };
        let is_tag = key == tag.as_bytes();
        let colon = skip_ws(input, end);
        if input.get(colon) != Some(&b':') {
            return -1;
        }
        if is_tag {
            let value = skip_ws(input, colon + 1);
            if input.get(value) != Some(&b'"') {
                return -1;
            }
            let Some((name, _)) = string_at(input, value, &mut scratch, validate) else {
                return -1;
            };
            return en.find(name).map_or(-1, |i| i as i64);
        }
        // The depth is the object's own: one level in.
        let depth = state.remaining_depth.saturating_sub(1);
        let Ok(end) = jitson_core::text::ignore_value_as_parsed(input, colon + 1, validate, depth)
        else {
            return -1;
        };
        match after_member(input, end) {
            Some((crate::kind::MemberStatus::Next, next)) => pos = next,
            _ => return -1,
        }
    }
}

/// Resolves the key at `state.pos` (its opening quote) of an object decoded as
/// `st`, for keys the generated code does not match itself (escapes, non-ASCII
/// text): unescapes and validates it like the interpreter, advances `state.pos`
/// past it, and returns the index of the first field it names, -1 for an unknown
/// key, or -2 for a malformed one.
///
/// # Safety
/// `state` is live and describes a live input; `st` is a `&'static StructLayout`.
pub(crate) unsafe extern "C" fn resolve_key(state: *mut JitState, st: *const StructLayout) -> i64 {
    // SAFETY: generated code passes its own live state and a layout embedded at
    // compile time.
    let (state, st) = unsafe { (&mut *state, &*st) };
    // SAFETY: the state describes a live input.
    let input = unsafe { state.input() };
    let mut scratch = Vec::new();
    match string_at(input, state.pos, &mut scratch, state.validate_utf8 != 0) {
        Some((key, end)) => {
            state.pos = end;
            match st.fields.iter().position(|f| f.matches(key)) {
                Some(i) => i as i64,
                None if state.second_tag(key) => -2,
                None => -1,
            }
        }
        None => -2,
    }
}

/// Resolves the key at `state.pos` (its opening quote) when it missed the
/// struct's speculation: a key without escapes or control bytes is looked up in
/// `table`; anything else (and an unknown key with non-ASCII bytes, which must be
/// checked to be UTF-8) goes to [`resolve_key`]. Same results as
/// [`resolve_key`], which it is a faster path of.
///
/// # Safety
/// As for [`resolve_key`]; `table` is `st`'s table, owned by the compiled module.
pub(crate) unsafe extern "C" fn match_key(
    state: *mut JitState,
    st: *const StructLayout,
    table: *const KeyTable,
) -> i64 {
    // SAFETY: generated code passes its own live state and the table it was
    // compiled with (alive as long as the code).
    let (input, start, table) = unsafe { ((*state).input(), (*state).pos + 1, &*table) };
    // One pass (the interpreter's string scan) finds the key's end and whether
    // a byte before it is not ASCII.
    let (end, high) = jitson_core::text::scan_plain(input, start.min(input.len()));
    if input.get(end) == Some(&b'"') {
        let key = &input[start..end];
        let index = table.get(key);
        if index.is_some() || !high {
            // SAFETY: as above.
            let state = unsafe { &mut *state };
            state.pos = end + 1;
            return match index {
                Some(i) => i as i64,
                None if state.second_tag(key) => -2,
                None => -1,
            };
        }
    }
    // SAFETY: as the caller guarantees.
    unsafe { resolve_key(state, st) }
}

thread_local! {
    /// The unescape buffer of [`decode_string`], reused across calls.
    static SCRATCH: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// The string slow path: at `state.pos` (leading whitespace allowed) a JSON string
/// is parsed exactly as the interpreter parses it (escapes, surrogates, control
/// characters, UTF-8), unescaped into a per-thread buffer, and handed to the
/// layout's `write`. Returns `false` if the value is not a valid string; the
/// document then fails, and the facade's interpreter re-run reports why.
///
/// # Safety
/// `state` is live and describes a live input; `write` is a `StringLayout::write`
/// and `dst` is room for the type it writes.
pub(crate) unsafe extern "C" fn decode_string(
    state: *mut JitState,
    write: unsafe extern "C" fn(dst: *mut u8, ptr: *const u8, len: usize),
    dst: *mut u8,
) -> bool {
    // SAFETY: generated code passes its own live state.
    let state = unsafe { &mut *state };
    // SAFETY: the state describes a live input.
    let input = unsafe { state.input() };
    let pos = jitson_core::text::skip_ws(input, state.pos);
    if input.get(pos) != Some(&b'"') {
        return false;
    }
    let validate = state.validate_utf8 != 0;
    let parse = |scratch: &mut Vec<u8>| {
        let (text, end) = string_at(input, pos, scratch, validate)?;
        // SAFETY: `text` is UTF-8 (validated, or `&str` input), as `write` requires;
        // `dst` is as the caller guarantees.
        unsafe { write(dst, text.as_ptr(), text.len()) };
        Some(end)
    };
    // The buffer is taken out for the call and put back after: a `write` that
    // decodes JSON itself finds it empty and grows its own, and a decode run from a
    // thread-local's destructor (the buffer may be destroyed) uses a fresh one. A
    // panicking `write` (user code) is stashed, never unwound through here.
    let mut end = None;
    jitson_core::panic::catch(|| {
        let mut scratch = SCRATCH.try_with(Cell::take).unwrap_or_default();
        end = parse(&mut scratch);
        let _ = SCRATCH.try_with(|cell| cell.set(scratch));
    });
    match end {
        Some(end) => {
            state.pos = end;
            true
        }
        None => false,
    }
}

/// A text column's string that generated code does not copy itself (escapes,
/// mostly): unescaped straight onto the column's text data
/// (`Column::append_json_string`, as the interpreter appends it), with no
/// copy through a buffer; `state.pos` after it. `false` (nothing appended)
/// when it is not a well-formed string: the interpreter then reports it.
///
/// # Safety
/// `state` is live and describes a live input; `col` points to a live text
/// `Column`.
pub(crate) unsafe extern "C" fn column_string(state: *mut JitState, col: *mut u8) -> bool {
    // SAFETY: generated code passes its own live state.
    let state = unsafe { &mut *state };
    // SAFETY: the state describes a live input.
    let input = unsafe { state.input() };
    let pos = jitson_core::text::skip_ws(input, state.pos);
    if input.get(pos) != Some(&b'"') {
        return false;
    }
    // SAFETY: the caller's guarantee.
    let col = unsafe { &mut *col.cast::<jitson_core::column::Column>() };
    let validate = state.validate_utf8 != 0;
    let mut end = None;
    // Nothing here should panic (an allocation failure aborts); if something
    // did, it is stashed rather than unwound into generated code.
    jitson_core::panic::catch(|| end = col.append_json_string(input, pos + 1, validate).ok());
    match end {
        Some(end) => {
            state.pos = end;
            true
        }
        None => false,
    }
}

/// A map member whose key the generated code does not scan itself (escapes):
/// at `state.pos` (the key's opening quote) parses the key like the interpreter
/// (unescaping, surrogates, UTF-8), then `:`, then inserts the value decoded by
/// `decode` (the value type's generated function) through the layout's
/// `insert_with`; leaves `state.pos` after the value. The map keeps everything
/// decoded so far: nothing is decoded twice. Returns `false` if the key is
/// malformed, the `:` is missing or the value failed for good (the document then
/// fails, and the facade's interpreter re-run reports why).
///
/// # Safety
/// `state` is live and describes a live input; `map` is the `&'static MapLayout`
/// of the live map at `dst`; `decode` decodes the map's value type with `state`
/// as its context.
pub(crate) unsafe extern "C" fn insert_escaped_key(
    state: *mut JitState,
    map: *const MapLayout,
    dst: *mut u8,
    decode: SlotFn,
) -> bool {
    // SAFETY: generated code passes its own live state and a layout embedded at
    // compile time.
    let (state_ref, map) = unsafe { (&mut *state, &*map) };
    // SAFETY: the state describes a live input.
    let input = unsafe { state_ref.input() };
    let mut scratch = Vec::new();
    let Some(key) = key_and_colon(state_ref, input, &mut scratch) else {
        return false;
    };
    // SAFETY: `dst` is the live map `map` describes, `key` is UTF-8 (parsed and
    // validated as a JSON string, or `&str` input), and `decode` takes `state` as
    // its context, as the caller guarantees. `insert_with` catches panics itself.
    unsafe { (map.insert_with)(dst, key.as_ptr(), key.len(), decode, state.cast()) }
}

/// Skips an unknown field's member, `state.pos` just after its key: `:`, the
/// value (validated; as serde checks what it buffers while
/// [`JitState::buffered`] is set), then `,` and the next key's opening quote, or `}`; answers
/// as a member function does (`kind/struct_.rs`, `MemberStatus`): `Next` with
/// `state.pos` on the next key's quote, `Close` with it on the `}`, or `Bail`
/// for anything else (the struct gives up; the interpreter reports what is
/// wrong).
///
/// # Safety
/// `state` is live and describes a live input.
pub(crate) unsafe extern "C" fn skip_member(state: *mut JitState) -> i8 {
    // SAFETY: forwarded from the caller.
    unsafe { skip_member_as(state, SkipMode::Validate) }
}

/// [`skip_member`] for a struct whose unknown members are matched by their
/// brackets ([`SkipMode::Brackets`]); validated as [`skip_member`] does
/// where serde would buffer them.
///
/// # Safety
/// As [`skip_member`].
pub(crate) unsafe extern "C" fn skip_member_by_brackets(state: *mut JitState) -> i8 {
    // SAFETY: forwarded from the caller.
    unsafe { skip_member_as(state, SkipMode::Brackets) }
}

/// [`skip_member`] and [`skip_member_by_brackets`].
///
/// # Safety
/// As [`skip_member`].
#[inline(always)]
unsafe fn skip_member_as(state: *mut JitState, skip: SkipMode) -> i8 {
    use crate::kind::MemberStatus;
    use jitson_core::text::skip_ws;
    // SAFETY: generated code passes its own live state.
    let state = unsafe { &mut *state };
    // SAFETY: the state describes a live input.
    let input = unsafe { state.input() };
    let colon = skip_ws(input, state.pos);
    if input.get(colon) != Some(&b':') {
        return MemberStatus::Bail as i8;
    }
    let skipped = if skip.by_brackets(state.buffered) {
        jitson_core::brackets::ignore_value_by_brackets(input, colon + 1, state.validate_utf8 != 0)
    } else {
        // SAFETY: as above.
        unsafe { state.skip_value(colon + 1) }
    };
    let Ok(end) = skipped else {
        return MemberStatus::Bail as i8;
    };
    match after_member(input, end) {
        Some((status, pos)) => {
            state.pos = pos;
            status as i8
        }
        None => MemberStatus::Bail as i8,
    }
}

/// The key of a member no field claims, for [`insert_rest`] and
/// [`collect_rest`]: the key at `key_start` (its opening quote; read as the
/// interpreter reads keys, unescaped into `scratch` if need be) and where its
/// value starts, after the `:`. `Err` holds the helper's answer: an
/// internally tagged payload's tag (`match_key` counted it) is skipped, not
/// collected, as the interpreter does, and a key without `:` gives up.
fn rest_member<'k>(
    state: &mut JitState,
    input: &'k [u8],
    key_start: usize,
    scratch: &'k mut Vec<u8>,
) -> Result<(&'k [u8], usize), i8> {
    use crate::kind::MemberStatus;
    let Some((key, end)) = string_at(input, key_start, scratch, state.validate_utf8 != 0) else {
        return Err(MemberStatus::Bail as i8);
    };
    if state.tag_here().is_some_and(|tag| tag.as_bytes() == key) {
        state.pos = end;
        // SAFETY: the state is live, `pos` after the key (and a payload's
        // object is buffered: the skip checks the value as parsed).
        return Err(unsafe { skip_member(state) });
    }
    let colon = jitson_core::text::skip_ws(input, end);
    if input.get(colon) != Some(&b':') {
        return Err(MemberStatus::Bail as i8);
    }
    Ok((key, colon + 1))
}

/// A member no field claims, in a struct whose flattened map collects such
/// members (`kind/struct_.rs`, `Flattening`): the key at `key_start` (its
/// opening quote; read as the interpreter reads keys), `:`, then the value,
/// decoded by `decode` (the value layout's generated function, with the
/// state as its context) into the map at `map_at` through `insert_with`
/// (replacing an earlier value of the key, as serde's maps do), then `,` and
/// the next key's quote, or `}`. Answers as a member function does
/// (`MemberStatus`): `Failed` when the value failed for good or user code
/// panicked (stashed), `Bail` for anything the interpreter must read.
///
/// # Safety
/// `state` is live and describes a live input; `map` is the `'static` layout
/// of the live map at `map_at`, which has text keys; `decode` decodes a value
/// of its value layout.
pub(crate) unsafe extern "C" fn insert_rest(
    state: *mut JitState,
    map: *const MapLayout,
    map_at: *mut u8,
    decode: SlotFn,
    key_start: usize,
) -> i8 {
    use crate::kind::MemberStatus;
    let mut status = MemberStatus::Failed as i8;
    jitson_core::panic::catch(|| {
        // SAFETY: generated code passes its own live state and a layout
        // embedded at compile time.
        let (state, map) = unsafe { (&mut *state, &*map) };
        // SAFETY: the state describes a live input.
        let input = unsafe { state.input() };
        let mut scratch = Vec::new();
        let (key, value_start) = match rest_member(state, input, key_start, &mut scratch) {
            Ok(member) => member,
            Err(answer) => {
                status = answer;
                return;
            }
        };
        state.pos = value_start;
        // A collected value is one serde buffered.
        state.buffered += 1;
        let ctx: *mut JitState = state;
        // SAFETY: the map is live and has text keys (caller); `key` is UTF-8
        // (a parsed JSON string) and outlives the call; `decode` is the value
        // layout's function, whose context is the state.
        let inserted =
            unsafe { (map.insert_with)(map_at, key.as_ptr(), key.len(), decode, ctx.cast()) };
        // SAFETY: as above; the callback left the state live.
        let state = unsafe { &mut *ctx };
        state.buffered -= 1;
        if !inserted {
            return;
        }
        status = match after_member(input, state.pos) {
            Some((next, pos)) => {
                state.pos = pos;
                next as i8
            }
            None => MemberStatus::WrittenBail as i8,
        };
    });
    status
}

/// Skips the value at `state.pos` (`IgnoredAny`), as the interpreter's
/// `ignore_value`: `false` when it is not a well-formed value (the
/// interpreter then reports it).
///
/// # Safety
/// `state` is live and describes a live input.
pub(crate) unsafe extern "C" fn ignore_value(state: *mut JitState) -> bool {
    // SAFETY: generated code passes its own live state.
    let state = unsafe { &mut *state };
    // SAFETY: the state describes a live input.
    match unsafe { state.skip_value(state.pos) } {
        Ok(end) => {
            state.pos = end;
            true
        }
        Err(_) => false,
    }
}

/// Reads a `char` at `state.pos` when it is a string of one character with
/// no escape and no control byte, and writes it to `dst`; `false` for
/// anything else (the interpreter then decodes it, escapes included, or
/// reports it).
///
/// # Safety
/// `state` is live and describes a live input; `dst` is valid for a `char`.
pub(crate) unsafe extern "C" fn plain_char(state: *mut JitState, dst: *mut u8) -> bool {
    // SAFETY: generated code passes its own live state.
    let state = unsafe { &mut *state };
    // SAFETY: the state describes a live input.
    let input = unsafe { state.input() };
    let open = jitson_core::text::skip_ws(input, state.pos);
    if input.get(open) != Some(&b'"') {
        return false;
    }
    // A char is at most four bytes of UTF-8.
    let rest = &input[open + 1..];
    let Some(len) = rest.iter().take(5).position(|&b| b == b'"') else {
        return false;
    };
    let text = &rest[..len];
    if text.iter().any(|&b| b < 0x20 || b == b'\\') {
        return false;
    }
    let Ok(text) = core::str::from_utf8(text) else {
        return false;
    };
    let mut chars = text.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return false;
    };
    // SAFETY: as the caller guarantees.
    unsafe { dst.cast::<char>().write(c) };
    state.pos = open + 1 + len + 1;
    true
}

/// What follows a member's value ending at `end`: `}` (the status `Close`, with
/// the offset of the `}`), or `,` and the next key's opening quote (`Next`,
/// with the offset of the quote); `None` for anything else. The test generated
/// member functions make in IR after their value, for the members decoded here.
pub(crate) fn after_member(input: &[u8], end: usize) -> Option<(crate::kind::MemberStatus, usize)> {
    use crate::kind::MemberStatus;
    use jitson_core::text::skip_ws;
    let after = skip_ws(input, end);
    match input.get(after) {
        Some(b'}') => Some((MemberStatus::Close, after)),
        Some(b',') => {
            let quote = skip_ws(input, after + 1);
            (input.get(quote) == Some(&b'"')).then_some((MemberStatus::Next, quote))
        }
        _ => None,
    }
}

/// The number of 64-bit words of a struct's written-field set: one per 64
/// decoded fields (bit `i % 64` of word `i / 64` for `st.fields[i]`), at least one.
pub(crate) fn seen_words(fields: usize) -> usize {
    fields.div_ceil(64).max(1)
}

/// Whether field `i` is marked in `words` (bit `i % 64` of word `i / 64`); a
/// field past the words is not.
#[inline(always)]
fn marked(words: &[u64], i: usize) -> bool {
    words.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

/// The fields of `0..n` that `words` does not mark, in increasing order: one
/// step per unmarked field rather than per field (a twitter `User` has 40
/// fields, of which a document leaves out a few).
#[inline(always)]
fn unmarked(words: &[u64], n: usize) -> impl Iterator<Item = usize> + '_ {
    (0..n.div_ceil(64)).flat_map(move |k| {
        let width = (n - 64 * k).min(64);
        let valid = if width == 64 { !0 } else { (1u64 << width) - 1 };
        let mut left = !words.get(k).copied().unwrap_or(0) & valid;
        core::iter::from_fn(move || {
            (left != 0).then(|| {
                let bit = left.trailing_zeros() as usize;
                left &= left - 1;
                64 * k + bit
            })
        })
    })
}

/// Fills what an object did not name, once every required field is known to be
/// present: each field whose bit is clear in `seen` gets its default, or `None`
/// (an optional layout), in declaration order; then every skipped field its
/// initial value. The interpreter's `finish_struct` fills in the same order with
/// the same functions. On a failure (a default or initialiser that panicked,
/// stashed for the facade) it drops what it filled itself and returns `false`:
/// the caller then owns exactly the fields in `seen`, as before the call.
///
/// The form for structs of at most 64 decoded fields (one word, passed in a
/// register); [`fill_absent_words`] takes wider sets.
///
/// # Safety
/// `st` is a `&'static StructLayout` with at most 64 decoded fields; exactly the
/// fields marked in `seen` of the struct at `dst` are live, and no skipped field.
pub(crate) unsafe extern "C" fn fill_absent(
    st: *const StructLayout,
    dst: *mut u8,
    seen: u64,
) -> bool {
    // SAFETY: generated code passes a layout embedded at compile time; the rest
    // as the caller guarantees.
    unsafe { fill_absent_in(&*st, dst, std::slice::from_ref(&seen)) }
}

/// [`fill_absent`] for a struct of any number of fields, its written-field set
/// as [`seen_words`] words at `seen` (a stack slot of the generated code).
///
/// # Safety
/// `st` is a `&'static StructLayout`; `seen` points to `seen_words(st.fields.len())`
/// readable words; exactly the fields marked in them of the struct at `dst` are
/// live, and no skipped field.
pub(crate) unsafe extern "C" fn fill_absent_words(
    st: *const StructLayout,
    dst: *mut u8,
    seen: *const u64,
) -> bool {
    // SAFETY: generated code passes a layout embedded at compile time, and a
    // slot of as many words as the layout's fields take.
    unsafe {
        let st = &*st;
        let seen = std::slice::from_raw_parts(seen, seen_words(st.fields.len()));
        fill_absent_in(st, dst, seen)
    }
}

/// The body of [`fill_absent`] and [`fill_absent_words`], and the table
/// walker's: `seen` as words.
///
/// # Safety
/// Exactly the fields of `st` marked in `seen` of the struct at `dst` are live,
/// and no skipped field.
#[inline(always)]
pub(crate) unsafe fn fill_absent_in(st: &StructLayout, dst: *mut u8, seen: &[u64]) -> bool {
    // Decoded fields before `stop` that `seen` does not mark are filled, and
    // the first `inited` skipped fields: what to drop if a default fails.
    let mut stop = st.fields.len();
    let mut inited = 0;
    let mut ok = true;
    for i in unmarked(seen, st.fields.len()) {
        let field = &st.fields[i];
        // SAFETY: the field's memory is inside the struct and unwritten; a field
        // without a default is optional (the caller checked the required ones).
        ok = unsafe {
            let at = dst.add(field.offset);
            match field.default {
                Some(init) => init(at),
                None => jitson_core::layout::write_missing(field.layout.get(), at),
            }
        };
        if !ok {
            stop = i;
            break;
        }
    }
    if ok {
        for skipped in st.skipped {
            // SAFETY: the skipped field's memory is inside the struct and unwritten.
            ok = unsafe { (skipped.init)(dst.add(skipped.offset)) };
            if !ok {
                break;
            }
            inited += 1;
        }
    }
    if !ok {
        // SAFETY: exactly these fields were written by this call.
        unsafe { drop_fields(st, dst, |i| i < stop && !marked(seen, i), inited) };
    }
    ok
}

/// Drops the fields of the struct at `dst` whose bit is set in `seen` (bit `i`
/// for `st.fields[i]`): what a generated struct function wrote before giving
/// up. A panicking `Drop` is stashed by the layout's drop function; the others
/// still run. No skipped field is live while a struct function tracks `seen`
/// (they are initialised last, by [`fill_absent`]).
///
/// The form for structs of at most 64 decoded fields; [`drop_written_words`]
/// takes wider sets.
///
/// # Safety
/// `st` is a `&'static StructLayout` with at most 64 decoded fields; exactly the
/// marked fields of the struct at `dst` are live.
pub(crate) unsafe extern "C" fn drop_written(st: *const StructLayout, dst: *mut u8, seen: u64) {
    // SAFETY: generated code passes a layout embedded at compile time; the rest
    // as the caller guarantees.
    unsafe { drop_written_in(&*st, dst, std::slice::from_ref(&seen)) }
}

/// [`drop_written`] for a struct of any number of fields, its written-field
/// set as [`seen_words`] words at `seen` (a stack slot of the generated code).
///
/// # Safety
/// `st` is a `&'static StructLayout`; `seen` points to `seen_words(st.fields.len())`
/// readable words; exactly the marked fields of the struct at `dst` are live.
pub(crate) unsafe extern "C" fn drop_written_words(
    st: *const StructLayout,
    dst: *mut u8,
    seen: *const u64,
) {
    // SAFETY: generated code passes a layout embedded at compile time, and a
    // slot of as many words as the layout's fields take.
    unsafe {
        let st = &*st;
        let seen = std::slice::from_raw_parts(seen, seen_words(st.fields.len()));
        drop_written_in(st, dst, seen)
    }
}

/// The body of [`drop_written`] and [`drop_written_words`], and the table
/// walker's: `seen` as words.
///
/// # Safety
/// Exactly the fields of `st` marked in `seen` of the struct at `dst` are live.
#[inline(always)]
pub(crate) unsafe fn drop_written_in(st: &StructLayout, dst: *mut u8, seen: &[u64]) {
    // SAFETY: as the caller guarantees.
    unsafe { drop_fields(st, dst, |i| marked(seen, i), 0) }
}

/// Drops the decoded fields `i` of the struct at `dst` for which `live(i)`,
/// then its first `skipped` skipped fields.
///
/// # Safety
/// Exactly those fields are live (of the ones this call may drop).
#[inline(always)]
unsafe fn drop_fields(
    st: &StructLayout,
    dst: *mut u8,
    live: impl Fn(usize) -> bool,
    skipped: usize,
) {
    for (i, field) in st.fields.iter().enumerate() {
        if live(i)
            && let Some(drop) = field.layout.get().drop
        {
            // SAFETY: the field is live and inside the struct, as the caller
            // guarantees; it is dropped once.
            unsafe { drop(dst.add(field.offset)) };
        }
    }
    for field in st.skipped.iter().take(skipped) {
        if let Some(drop) = field.drop {
            // SAFETY: as above.
            unsafe { drop(dst.add(field.offset)) };
        }
    }
}

/// The offset of the first byte at or after `pos` that is not whitespace
/// (`len` if none): the out-of-line part of generated code's whitespace skip
/// ([`jitson_core::text::skip_ws_run`]).
///
/// # Safety
/// `ptr[..len]` is readable and `pos <= len`.
pub(crate) unsafe extern "C" fn skip_ws_run(ptr: *const u8, len: usize, pos: usize) -> usize {
    // SAFETY: as the caller guarantees.
    let input = unsafe { std::slice::from_raw_parts(ptr, len) };
    jitson_core::text::skip_ws_run(input, pos)
}

/// Whether `ptr[..len]` is UTF-8 (simdutf8).
///
/// # Safety
/// `ptr[..len]` is readable.
pub(crate) unsafe extern "C" fn is_utf8(ptr: *const u8, len: usize) -> bool {
    // SAFETY: as the caller guarantees.
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len) };
    jitson_core::text::is_utf8(bytes)
}

/// Pushes room for an element of `size` bytes (not zero) aligned to `align`
/// when the element stack's current chunk is full ([`Elements::grow`]); returns
/// its address. Aborts if memory runs out, as `Vec` growth does.
///
/// # Safety
/// `state` is live.
///
/// [`Elements::grow`]: jitson_core::elements::Elements::grow
pub(crate) unsafe extern "C" fn elements_grow(
    state: *mut JitState,
    size: usize,
    align: usize,
) -> *mut u8 {
    // SAFETY: generated code passes its own live state.
    unsafe { (*state).elements.grow(size, align) }
}

/// At a vector's `]`: writes to `dst` the vector of the `n` elements pushed since
/// the mark (`chunk`, `top`), allocated for exactly `n`, and pops them
/// ([`Elements::finish_vec`], which aborts if the allocation fails).
///
/// # Safety
/// `state` is live; the element stack holds `n` initialised values of `vec`'s
/// element pushed since the mark; `vec` is `'static`; `dst` is room for the vector.
///
/// [`Elements::finish_vec`]: jitson_core::elements::Elements::finish_vec
pub(crate) unsafe extern "C" fn elements_finish_vec(
    state: *mut JitState,
    chunk: usize,
    top: *mut u8,
    n: usize,
    vec: *const jitson_core::layout::VecLayout,
    dst: *mut u8,
) {
    // SAFETY: as the caller guarantees; the layout was embedded at compile time.
    unsafe {
        let vec = &*vec;
        let mark = jitson_core::elements::Mark { chunk, top };
        (*state)
            .elements
            .finish_vec(mark, n, vec.elem.get(), vec, dst);
    }
}

/// On leaving a vector early: drops the `n` elements pushed since the mark
/// (`chunk`, `top`) and pops them ([`Elements::discard_vec`]); a panicking
/// `Drop` is stashed.
///
/// # Safety
/// `state` is live; the element stack holds `n` initialised values of `elem`
/// pushed since the mark; `elem` is `'static`.
///
/// [`Elements::discard_vec`]: jitson_core::elements::Elements::discard_vec
pub(crate) unsafe extern "C" fn elements_discard_vec(
    state: *mut JitState,
    chunk: usize,
    top: *mut u8,
    n: usize,
    elem: *const TypeLayout,
) {
    let mark = jitson_core::elements::Mark { chunk, top };
    // SAFETY: as the caller guarantees.
    unsafe { (*state).elements.discard_vec(mark, n, &*elem) };
}

/// At a staged map's `}`: inserts into the empty map at `dst` the `n`
/// entries pushed since the mark (`chunk`, `top`) and pops them
/// ([`StagedMap::finish`]). `false` if user code panicked (stashed): every
/// entry and the map dropped, nothing left at `dst`.
///
/// # Safety
/// `state` is live; `map` is a `'static` layout with [`MapLayout::staged`];
/// the element stack holds `n` initialised entries of it pushed since the
/// mark; `dst` holds the empty map `map.new` made.
///
/// [`StagedMap::finish`]: jitson_core::layout::StagedMap::finish
pub(crate) unsafe extern "C" fn elements_finish_map(
    state: *mut JitState,
    chunk: usize,
    top: *mut u8,
    n: usize,
    map: *const MapLayout,
    dst: *mut u8,
) -> bool {
    let mark = jitson_core::elements::Mark { chunk, top };
    // SAFETY: as the caller guarantees; `staged` is set for every map whose
    // code pushes entries. `finish` catches panics itself.
    unsafe {
        let staged = (*map).staged.expect("a staged map");
        (staged.finish)(&mut (*state).elements, mark, n, dst)
    }
}

/// On leaving a staged map early: drops the `n` entries pushed since the mark
/// (`chunk`, `top`) and pops them; a panicking `Drop` is stashed.
///
/// # Safety
/// As [`elements_finish_map`], without `dst`.
pub(crate) unsafe extern "C" fn elements_discard_map(
    state: *mut JitState,
    chunk: usize,
    top: *mut u8,
    n: usize,
    map: *const MapLayout,
) {
    let mark = jitson_core::elements::Mark { chunk, top };
    // SAFETY: as the caller guarantees.
    unsafe {
        let staged = (*map).staged.expect("a staged map");
        (staged.discard)(&mut (*state).elements, mark, n);
    }
}

/// The map key at `state.pos` (its opening quote), parsed as the interpreter
/// parses it (unescaped into `scratch` if it has escapes; checked as UTF-8
/// where the state says so), and the `:` after it: the key's text, with
/// `state.pos` after the colon. `None` if either is not there.
fn key_and_colon<'a>(
    state: &mut JitState,
    input: &'a [u8],
    scratch: &'a mut Vec<u8>,
) -> Option<&'a [u8]> {
    let (key, end) = string_at(input, state.pos, scratch, state.validate_utf8 != 0)?;
    let colon = jitson_core::text::skip_ws(input, end);
    if input.get(colon) != Some(&b':') {
        return None;
    }
    state.pos = colon + 1;
    Some(key)
}

/// A staged map's member whose key the generated scan does not take (escapes,
/// or anything it leaves to the interpreter's string parser), `state.pos` at
/// the key's quote: parses the key and `:` as the interpreter does, decodes
/// the value through `decode` into `entry` (pushed by the caller) and writes
/// the key beside it. `false` leaves nothing in the entry (a failed value;
/// its error is in the state), or means the key or `:` is not there (then the
/// interpreter reruns the map and reports it).
///
/// # Safety
/// `state` is live and describes a live input; `map` is the `'static` layout
/// of the map being decoded, with [`MapLayout::staged`] and text keys;
/// `entry` is room for one of its entries; `decode` decodes the map's value
/// type with `state` as its context.
pub(crate) unsafe extern "C" fn stage_escaped_member(
    state: *mut JitState,
    map: *const MapLayout,
    entry: *mut u8,
    decode: SlotFn,
) -> bool {
    // SAFETY: generated code passes its own live state and a layout embedded at
    // compile time.
    let (state_ref, map) = unsafe { (&mut *state, &*map) };
    let (Some(staged), Kind::String(text)) = (map.staged, &map.key.get().kind) else {
        return false;
    };
    // SAFETY: the state describes a live input.
    let input = unsafe { state_ref.input() };
    let mut scratch = Vec::new();
    let Some(key) = key_and_colon(state_ref, input, &mut scratch) else {
        return false;
    };
    // The key's text may be in `scratch` or the input: both outlive the value.
    let (key_ptr, key_len) = (key.as_ptr(), key.len());
    // SAFETY: `entry` is room for an entry, whose value lies at `value_offset`;
    // `decode` fills it or leaves it empty; the key (UTF-8: parsed and
    // validated as a JSON string, or `&str` input) is then written at offset 0.
    unsafe {
        if !decode(state.cast(), entry.add(staged.value_offset)) {
            return false;
        }
        (text.write)(entry, key_ptr, key_len);
    }
    true
}

/// Writes `±significand / 10^fraction_digits`, correctly rounded
/// ([`jitson_core::text::decimal_to_f64`]), to `dst`; `false` (nothing written)
/// outside its range (a zero significand, more than 19 fraction digits): the
/// caller then converts the text. No user code runs.
///
/// # Safety
/// `dst` is valid for an f64 write.
pub(crate) unsafe extern "C" fn decimal_f64(
    significand: u64,
    fraction_digits: i64,
    negative: bool,
    dst: *mut u8,
) -> bool {
    let Some(v) = i32::try_from(fraction_digits)
        .ok()
        .and_then(|f| jitson_core::text::decimal_to_f64(significand, -f))
    else {
        return false;
    };
    // SAFETY: as the caller guarantees.
    unsafe { dst.cast::<f64>().write(if negative { -v } else { v }) };
    true
}

/// Runs a conversion's [`ConvertFn`](jitson_core::layout::ConvertFn) with the
/// generated function of its source type as the callback and `state` as its
/// context. A refused conversion's message is dropped here: the compiled
/// decode fails, and the interpreter, rerunning the document, reports it.
///
/// # Safety
/// `convert` is a `ConvertFn` for the type `dst` is room for; `decode` is the
/// generated function of its source type, for `state`.
pub(crate) unsafe extern "C" fn convert(
    convert: jitson_core::layout::ConvertFn,
    dst: *mut u8,
    decode: jitson_core::layout::SlotFn,
    state: *mut core::ffi::c_void,
) -> bool {
    let mut message: Option<Box<str>> = None;
    // SAFETY: as the caller guarantees; `message` is writable.
    unsafe { convert(dst, decode, state, &raw mut message) }
}

/// Reads a 128-bit integer at the start of `ptr[..len]` as the interpreter's
/// `decode_int128` does (an optional `-` for `i128`, then `0` alone or a
/// run of digits starting with `1`–`9`; what follows is left to the caller)
/// and writes it to `dst`. Returns the bytes read, or 0 when the text is not
/// such an integer or is out of range (the interpreter then reports it).
///
/// # Safety
/// `ptr[..len]` is readable; `dst` is valid for a write of the type.
pub(crate) unsafe extern "C" fn parse_i128(ptr: *const u8, len: usize, dst: *mut u8) -> usize {
    // SAFETY: as the caller guarantees.
    unsafe { parse_int128::<i128>(ptr, len, dst, true) }
}

/// [`parse_i128`] for `u128` (no sign).
///
/// # Safety
/// As [`parse_i128`].
pub(crate) unsafe extern "C" fn parse_u128(ptr: *const u8, len: usize, dst: *mut u8) -> usize {
    // SAFETY: as the caller guarantees.
    unsafe { parse_int128::<u128>(ptr, len, dst, false) }
}

unsafe fn parse_int128<T: jitson_core::text::Int128>(
    ptr: *const u8,
    len: usize,
    dst: *mut u8,
    signed: bool,
) -> usize {
    // SAFETY: as the caller guarantees.
    let text = unsafe { std::slice::from_raw_parts(ptr, len) };
    let negative = signed && text.first() == Some(&b'-');
    let mut end = usize::from(negative);
    match text.get(end) {
        Some(b'0') => {
            end += 1;
            if text.get(end).is_some_and(u8::is_ascii_digit) {
                return 0;
            }
        }
        Some(b'1'..=b'9') => end = jitson_core::text::digits_end(text, end),
        _ => return 0,
    }
    match T::from_digits(negative, &text[usize::from(negative)..end]) {
        Some(value) => {
            // SAFETY: as the caller guarantees.
            unsafe { dst.cast::<T>().write_unaligned(value) };
            end
        }
        None => 0,
    }
}

/// The length of the JSON number at the start of `ptr[..len]` (JSON's
/// grammar, as the interpreter scans it), or 0 when the text there is not a
/// number: what generated code hands a [`ParsedLayout`]'s `from_number` in
/// place.
///
/// [`ParsedLayout`]: jitson_core::column::ParsedLayout
///
/// # Safety
/// `ptr[..len]` is readable.
pub(crate) unsafe extern "C" fn number_len(ptr: *const u8, len: usize) -> usize {
    // SAFETY: as the caller guarantees.
    let text = unsafe { std::slice::from_raw_parts(ptr, len) };
    jitson_core::text::scan_number(text, 0).map_or(0, |n| n.end)
}

/// The JSON number at the start of `ptr[..len]` (its sign included): its
/// grammar checked as the interpreter checks it
/// ([`ignore_number`](jitson_core::text::ignore_number)), its text converted
/// to the nearest f64 (fast-float2, correctly rounded) and written to `dst`.
/// Returns the number's length, or 0 when it is malformed or infinite (the
/// interpreter then reports it). Generated code calls it for the numbers its
/// fast paths leave (more than 19 digits, an exponent, a significand past
/// Eisel–Lemire's one product): scanning that grammar in IR was about a third
/// of a float's code.
///
/// # Safety
/// `ptr[..len]` is readable; `dst` is valid for an f64 write.
pub(crate) unsafe extern "C" fn parse_f64(ptr: *const u8, len: usize, dst: *mut u8) -> usize {
    // SAFETY: as the caller guarantees.
    let text = unsafe { std::slice::from_raw_parts(ptr, len) };
    let Some(number) = number_text(text) else {
        return 0;
    };
    match fast_float2::parse::<f64, _>(number) {
        Ok(v) if v.is_finite() => {
            // SAFETY: as the caller guarantees.
            unsafe { dst.cast::<f64>().write(v) };
            number.len()
        }
        _ => 0,
    }
}

/// [`parse_f64`] for f32, rounded once, directly.
///
/// # Safety
/// `ptr[..len]` is readable; `dst` is valid for an f32 write.
pub(crate) unsafe extern "C" fn parse_f32(ptr: *const u8, len: usize, dst: *mut u8) -> usize {
    // SAFETY: as the caller guarantees.
    let text = unsafe { std::slice::from_raw_parts(ptr, len) };
    let Some(number) = number_text(text) else {
        return 0;
    };
    match fast_float2::parse::<f32, _>(number) {
        Ok(v) if v.is_finite() => {
            // SAFETY: as the caller guarantees.
            unsafe { dst.cast::<f32>().write(v) };
            number.len()
        }
        _ => 0,
    }
}

/// The JSON number `text` starts with, if it starts with one.
fn number_text(text: &[u8]) -> Option<&[u8]> {
    let end = jitson_core::text::ignore_number(text, 0).ok()?;
    Some(&text[..end])
}

/// Powers of ten exact in f64, for the float fast path.
pub(crate) static F64_POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// What a flattened serde field's members are collected into
/// (`kind/struct_.rs`, `Rest::Serde`): the text `{` and the members, from
/// each key's quote to the end of its value, joined by `,` (the closing `}`
/// is added by [`finish_rest`]). Generated code keeps a pointer to it in a
/// stack slot: null until the first member, [`REST_DECODED`] once the field
/// is decoded from it.
type RestText = Vec<u8>;

/// The collector's pointer once [`finish_rest`] has decoded the field: what
/// is to be dropped on a later exit is the field, not text.
const REST_DECODED: *mut RestText = core::ptr::dangling_mut();

/// A member no field claims, in a struct whose flattened serde field reads
/// such members: the key at `key_start` (its opening quote; read as the
/// interpreter reads keys), `:`, the value (validated as serde checks what it
/// buffers), their text appended to the collector at `*collector` (made at
/// the first member), then `,` and the next key's quote, or `}`. An
/// internally tagged payload's tag is skipped, not collected, as
/// [`insert_rest`] skips it. Answers as [`skip_member`] does.
///
/// # Safety
/// `state` is live and describes a live input; `collector` is the struct
/// function's collector slot (null, or a `RestText` made here).
pub(crate) unsafe extern "C" fn collect_rest(
    state: *mut JitState,
    collector: *mut *mut RestText,
    key_start: usize,
) -> i8 {
    use crate::kind::MemberStatus;
    let mut status = MemberStatus::Failed as i8;
    jitson_core::panic::catch(|| {
        // SAFETY: generated code passes its own live state and slot.
        let (state, collector) = unsafe { (&mut *state, &mut *collector) };
        // SAFETY: the state describes a live input.
        let input = unsafe { state.input() };
        let mut scratch = Vec::new();
        let value_start = match rest_member(state, input, key_start, &mut scratch) {
            Ok((_, value_start)) => value_start,
            Err(answer) => {
                status = answer;
                return;
            }
        };
        // A collected value is one serde buffered.
        state.buffered += 1;
        // SAFETY: the state is live; `value_start` is inside the input.
        let value_end = unsafe { state.skip_value(value_start) };
        state.buffered -= 1;
        let Ok(value_end) = value_end else {
            status = MemberStatus::Bail as i8;
            return;
        };
        let member = &input[key_start..value_end];
        if collector.is_null() {
            let mut text = Vec::with_capacity(member.len() + 2);
            text.push(b'{');
            *collector = Box::into_raw(Box::new(text));
        } else {
            // SAFETY: a non-null collector was made above, at an earlier
            // member, and is owned by the slot until `finish_rest` or
            // `drop_rest` takes it.
            unsafe { (**collector).push(b',') };
        }
        // SAFETY: as above.
        unsafe { (**collector).extend_from_slice(member) };
        status = match after_member(input, value_end) {
            Some((next, pos)) => {
                state.pos = pos;
                next as i8
            }
            None => MemberStatus::Bail as i8,
        };
    });
    status
}

/// Decodes a flattened serde field (`layout`, at `at`) from the members its
/// struct collected (`*collector`; none: `{}`), once the struct's object is
/// read and still inside its depth: as the interpreter's `decode_rest_value`,
/// one object of those members' text, decoded as serde decodes a buffered
/// value. The collector is freed; on success the slot holds
/// [`REST_DECODED`]. Returns `false` if the field's decoding failed (the
/// facade reruns the interpreter to build the error) or panicked.
///
/// # Safety
/// `state` is live; `layout` is the field's `'static` layout and `at` room
/// for it; `collector` is the struct function's collector slot.
pub(crate) unsafe extern "C" fn finish_rest(
    state: *mut JitState,
    layout: *const TypeLayout,
    at: *mut u8,
    collector: *mut *mut RestText,
) -> bool {
    let mut ok = false;
    jitson_core::panic::catch(|| {
        // SAFETY: generated code passes its own live state and slot, and a
        // layout embedded at compile time.
        let (state, collector, layout) = unsafe { (&mut *state, &mut *collector, &*layout) };
        let taken = core::mem::replace(collector, core::ptr::null_mut());
        let mut text = if taken.is_null() {
            b"{".to_vec()
        } else {
            // SAFETY: made by `collect_rest` with `Box::into_raw`, taken once.
            *unsafe { Box::from_raw(taken) }
        };
        text.push(b'}');
        let buffering = jitson_fallback::Buffering {
            buffered: state.buffered + 1,
            skip_key: None,
        };
        let mut pos = 0;
        // SAFETY: `text` is valid UTF-8 (members of validated input joined by
        // ASCII) and nothing decoded borrows it (a serde field owns what it
        // reads); `at` is room for the field (caller).
        let result = unsafe {
            jitson_fallback::decode_value_at(
                &text,
                &mut pos,
                state.remaining_depth,
                state.stack_limit,
                &mut state.elements,
                layout,
                at,
                false,
                buffering,
            )
        };
        match result {
            Ok(()) => {
                *collector = REST_DECODED;
                ok = true;
            }
            Err(e) => {
                if *e.code() == jitson_core::ErrorCode::StackExhausted {
                    state.stack_exhausted = 1;
                }
            }
        }
    });
    ok
}

/// Drops what a flattened serde field's collector slot holds on an exit that
/// gives up: the collected text, or the field itself once [`finish_rest`]
/// decoded it (`layout`'s value at `at`). The slot is cleared.
///
/// # Safety
/// `collector` is the struct function's collector slot; when it holds
/// [`REST_DECODED`], `at` holds a live value of `layout`.
pub(crate) unsafe extern "C" fn drop_rest(
    collector: *mut *mut RestText,
    layout: *const TypeLayout,
    at: *mut u8,
) {
    jitson_core::panic::catch(|| {
        // SAFETY: generated code passes its own slot and a `'static` layout.
        let (collector, layout) = unsafe { (&mut *collector, &*layout) };
        let held = core::mem::replace(collector, core::ptr::null_mut());
        if held == REST_DECODED {
            if let Some(drop) = layout.drop {
                // SAFETY: the field was decoded at `at` and is dropped once.
                unsafe { drop(at) };
            }
        } else if !held.is_null() {
            // SAFETY: made by `collect_rest` with `Box::into_raw`, taken once.
            drop(unsafe { Box::from_raw(held) });
        }
    });
}
