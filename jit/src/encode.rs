//! The JIT's encoder: lowers an encode layout ([`jitson_core::encode::Encode`]'s
//! `T::ENCODE`) to Cranelift IR, one native function per struct layout reached
//! (and per layout that recursion reaches without a struct), compiled per root.
//!
//! This module holds the translator (the function shells, the output buffer's
//! registers, calls, capacity checks, constant stores), the helpers generated
//! code calls, and the public entry ([`compile_encoder`], [`CompiledEncoder`]).
//! Each kind's `emit_encode_*` lives in `kind/` beside its decoding twin, as the
//! interpreter keeps `encode_*` beside `decode_*`.
//!
//! # The generated-code ABI
//!
//! `extern "C" fn(state: *mut EncodeState, src: *const u8) -> i8`: appends the
//! JSON text of the value at `src` and returns 1, or returns 0 having failed
//! (see below). The output buffer's pointer, length and capacity are kept in
//! variables (registers) and synced with [`EncodeState`] around every call; the
//! `Vec<u8>` itself is touched only by helpers, through its API.
//!
//! # What is lowered
//!
//! Compact and pretty output with serde_json's escaping: structs (each key
//! written as constant bytes with its `,` and `:`, one capacity check per run
//! of bounded members; a flattened struct's members, a map's entries, an
//! untagged enum's payload and an internally tagged one's tag and struct
//! written in place,
//! other flattened values by the interpreter in their place),
//! `skip_serializing_if` (a call and a branch),
//! integers up to 64 bits and floats (formatted by small pure helpers into
//! reserved room), bools, `()`, `Option` and `Box` (through `get`), newtypes,
//! tuples, arrays and `Vec`s (a loop over `as_slice`), strings (through `read`;
//! copied by a helper when nothing needs escaping, escaped by `core::write`
//! otherwise), externally and adjacently tagged enums (a switch on
//! `variant_of`'s index). Every other value — maps, internally tagged and
//! untagged enums, conversions, serde fields,
//! `char`, 128-bit integers, raw values — is handed to the interpreter *for that
//! value* ([`jitson_fallback::encode::encode_value_at`]), so its bytes are the
//! interpreter's by construction (at its pretty level). The HTML/ASCII escapes
//! are handed to the interpreter whole.
//!
//! Pretty output is compiled per level: a function per (layout, level it is
//! reached at), so every newline and indentation is constant bytes stored
//! with the key or comma before it (`,\n    "name": `), and closing lines
//! too. Empty containers are `[]`/`{}` (a branch on the length; on whether
//! any member was written when all may be skipped). Values
//! [`MAX_PRETTY_DEPTH`] levels deep, or whose lines would be indented more
//! than [`MAX_PRETTY_INDENT`] bytes, go to the interpreter at their level:
//! recursive types compile to a bounded number of copies.
//!
//! # Failure
//!
//! A user predicate that panicked (payload stashed), an error from an
//! interpreted value (kept in the state, with the path of the members and
//! elements around it added on the way out), or a stack nearly full (the
//! generated code gives up: the caller runs the interpreter from its shallower
//! frame, reported as [`ErrorCode::StackExhausted`]).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use cranelift_codegen::Context;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    AbiParam, Block, FuncRef, InstBuilder, MemFlagsData, Signature, StackSlotData, StackSlotKind,
    Type, Value, types,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Linkage, Module};
use jitson_core::error::{Error, ErrorCode, PathSegment};
use jitson_core::layout::{Field, Kind, LayoutId, TypeLayout};
use jitson_fallback::encode::EncodeOptions;

use crate::{CompileError, OwnedModule};

/// The pointer-sized integer type (every JIT target is 64-bit).
pub(crate) const PTR: Type = types::I64;

/// What generated encoders read and write besides the value. `repr(C)`:
/// generated code addresses the first three fields by their offsets.
#[repr(C)]
pub struct EncodeState {
    /// The output buffer (`Vec::as_mut_ptr`), its length and capacity: bytes
    /// `buf[len..cap]` are spare room generated code writes into before
    /// advancing `len`. Helpers that reach the vector set its length to `len`
    /// first and read all three back after.
    buf: *mut u8,
    len: usize,
    cap: usize,
    /// The vector being appended to.
    out: *mut Vec<u8>,
    /// The options, for values handed to the interpreter.
    options: *const EncodeOptions,
    /// The stack address no function may go below (`jitson_core::stack`).
    stack_limit: usize,
    /// The error of a value the interpreter refused, with its path so far.
    error: Option<Error>,
}

/// The options of states made for code that never hands a value to the
/// interpreter (the row writer's).
static DEFAULT_OPTIONS: std::sync::LazyLock<EncodeOptions> =
    std::sync::LazyLock::new(EncodeOptions::default);

impl EncodeState {
    /// A state appending to `out`, for generated code that hands no value to
    /// the interpreter (its options are the defaults).
    pub(crate) fn for_vec(out: &mut Vec<u8>) -> EncodeState {
        EncodeState {
            buf: out.as_mut_ptr(),
            len: out.len(),
            cap: out.capacity(),
            out: out as *mut Vec<u8>,
            options: &raw const *DEFAULT_OPTIONS,
            stack_limit: jitson_core::stack::limit(),
            error: None,
        }
    }

    /// The length generated code left: the bytes of the vector's current
    /// buffer it initialised.
    pub(crate) fn written(&self) -> usize {
        self.len
    }
}

const STATE_BUF: i32 = std::mem::offset_of!(EncodeState, buf) as i32;
const STATE_LEN: i32 = std::mem::offset_of!(EncodeState, len) as i32;
const STATE_CAP: i32 = std::mem::offset_of!(EncodeState, cap) as i32;
const STATE_STACK_LIMIT: i32 = std::mem::offset_of!(EncodeState, stack_limit) as i32;

/// The longest text of a 64-bit integer (`-9223372036854775808`, and
/// `18446744073709551615`).
pub(crate) const INT_MAX_LEN: usize = 20;
/// The longest text [`fmt_f64`] or [`fmt_f32`] writes (zmij's buffer size).
pub(crate) const FLOAT_MAX_LEN: usize = jitson_core::write::FLOAT_MAX_LEN;

/// The signature of every generated encoder function.
type EncodeFn = unsafe extern "C" fn(state: *mut EncodeState, src: *const u8) -> i8;

/// A compiled encoder for one root layout and one set of options. Owns its
/// machine code: dropping it frees the code.
pub struct CompiledEncoder {
    module: Option<OwnedModule>,
    entry: EncodeFn,
    options: EncodeOptions,
    /// Machine code bytes of all functions compiled for the root.
    pub code_bytes: usize,
    /// Wall-clock time from IR building to finalized code.
    pub compile_time: Duration,
    /// Native functions compiled.
    pub functions: usize,
    /// Layouts reached whose values the interpreter encodes, with the reason.
    pub interpreted: Vec<(&'static str, &'static str)>,
    /// The most bytes beyond what it writes that the code may ask the
    /// output to have room for: its largest constant capacity check (a run
    /// of bounded members, each at its widest). A buffer with this much
    /// room past the text an encode wrote holds that text again without
    /// growing (texts with escapes aside), which is what `to_vec`'s
    /// learned capacity adds.
    pub max_reserve: usize,
}

impl Drop for CompiledEncoder {
    fn drop(&mut self) {
        if let Some(OwnedModule(module)) = self.module.take() {
            // SAFETY: `encode` borrows `self`, so no generated function of this
            // module runs while `self` is dropped, and `entry` dies with `self`.
            unsafe { module.free_memory() };
        }
    }
}

impl CompiledEncoder {
    /// Appends the JSON text of the value at `src` to `out`: the interpreter's
    /// bytes for the same layout and options.
    ///
    /// On `Err`, `out` is as it was. The error is the interpreter's for the
    /// value (with its path), or [`ErrorCode::Panicked`] with the payload
    /// pending in [`jitson_core::panic`] (the caller resumes it), or
    /// [`ErrorCode::StackExhausted`] when the stack was nearly full: the caller
    /// may then run the interpreter from its own, shallower frame.
    ///
    /// # Safety
    /// `src` points to a live value of the root layout this was compiled for
    /// (which [`jitson_core::encode::Encode`] guarantees for `T::ENCODE` and a
    /// `&T`); it is only read.
    pub unsafe fn encode(&self, src: *const u8, out: &mut Vec<u8>) -> Result<(), Error> {
        let start = out.len();
        let mut state = EncodeState {
            buf: out.as_mut_ptr(),
            len: start,
            cap: out.capacity(),
            out: out as *mut Vec<u8>,
            options: &raw const self.options,
            stack_limit: jitson_core::stack::limit(),
            error: None,
        };
        // SAFETY: the function was compiled for this root and keeps the ABI in
        // the module docs; the caller guarantees `src`; `state` describes `out`,
        // which is not otherwise used until the call returns.
        let ok = unsafe { (self.entry)(&raw mut state, src) } != 0;
        if ok {
            // SAFETY: generated code and helpers initialised `buf[..len]` and
            // kept `len <= cap` for the vector's current buffer.
            unsafe { out.set_len(state.len) };
            return Ok(());
        }
        // SAFETY: the first `start` bytes were initialised before the call and
        // are untouched; `start` is within the capacity.
        unsafe { out.set_len(start) };
        Err(match state.error.take() {
            Some(e) => e,
            None if jitson_core::panic::is_pending() => {
                Error::without_position(ErrorCode::Panicked)
            }
            None => Error::without_position(ErrorCode::StackExhausted),
        })
    }

    /// The options this encoder was compiled for.
    pub fn options(&self) -> &EncodeOptions {
        &self.options
    }
}

// ---------------------------------------------------------------------------
// Helpers. `extern "C"`, never unwinding: those that run code that may panic
// (growing the vector, the interpreter) catch it and report failure.

/// Sets the vector's length to the state's, runs `f` on it, and reads the
/// buffer back into the state.
///
/// # Safety
/// `state` is live and describes its vector (`buf[..len]` initialised).
unsafe fn with_vec(
    state: *mut EncodeState,
    f: impl FnOnce(&mut Vec<u8>, &mut EncodeState) -> bool,
) -> i8 {
    let mut ok = false;
    let caught = jitson_core::panic::catch(|| {
        // SAFETY: as the caller guarantees; generated code initialised every
        // byte below `len`, which is at most the capacity.
        unsafe {
            let state = &mut *state;
            let vec = &mut *state.out;
            vec.set_len(state.len);
            ok = f(vec, state);
            state.buf = vec.as_mut_ptr();
            state.len = vec.len();
            state.cap = vec.capacity();
        }
    });
    i8::from(caught && ok)
}

/// Runs a row writer's [`RowCallFn`](crate::rows::RowCallFn) on the state's
/// vector: the value at `row` appended by the caller's own encoder.
unsafe extern "C" fn row_call(
    state: *mut EncodeState,
    call: crate::rows::RowCallFn,
    ctx: *const core::ffi::c_void,
    row: usize,
) -> i8 {
    // SAFETY: generated code passes its live state and the view's function
    // and context, which the caller of `CompiledRows::write` vouched for.
    unsafe { with_vec(state, |vec, _| call(ctx, row, vec)) }
}

/// Makes room for `needed` more bytes.
unsafe extern "C" fn grow(state: *mut EncodeState, needed: usize) -> i8 {
    // SAFETY: generated code passes its live state.
    unsafe {
        with_vec(state, |vec, _| {
            vec.reserve(needed);
            true
        })
    }
}

/// Appends the UTF-8 text `ptr[..len]` as a JSON string with serde_json's
/// escapes.
unsafe extern "C" fn write_escaped(state: *mut EncodeState, ptr: *const u8, len: usize) -> i8 {
    // SAFETY: generated code passes its live state and the text a `read`
    // accessor returned (UTF-8, alive while the value is).
    unsafe {
        with_vec(state, |vec, _| {
            let text = std::str::from_utf8_unchecked(std::slice::from_raw_parts(ptr, len));
            jitson_core::write::write_str(vec, text);
            true
        })
    }
}

use jitson_core::write::find_escape;

/// Writes `"text"` at `dst` (room for `len + 2` bytes) if no byte of the text
/// needs escaping, returning 1; 0 (nothing written) otherwise.
unsafe extern "C" fn write_plain(dst: *mut u8, ptr: *const u8, len: usize) -> i8 {
    // SAFETY: generated code reserved `len + 2` bytes at `dst` and passes the
    // text a `read` accessor returned; the two do not overlap (the output
    // vector is not a value being encoded).
    unsafe {
        let text = std::slice::from_raw_parts(ptr, len);
        if find_escape(text, 0) != len {
            return 0;
        }
        *dst = b'"';
        std::ptr::copy_nonoverlapping(ptr, dst.add(1), len);
        *dst.add(len + 1) = b'"';
    }
    1
}

/// Writes the `len` bytes at `ptr` as a quoted string of lower-case hex
/// digits at `dst` (room for `2 * len + 2` bytes: an Arrow binary value).
unsafe extern "C" fn write_hex(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: generated code reserved `2 * len + 2` bytes at `dst` (the
    // output vector, which no column's buffer overlaps) and passes a value
    // its column's offsets or views delimit, alive for the call.
    unsafe { jitson_core::write::write_hex_quoted_at(dst, std::slice::from_raw_parts(ptr, len)) }
}

/// The longest string escaped into reserved room by [`write_escaped_into`]
/// (which needs six bytes per byte of text, plus the quotes); longer ones are
/// escaped by [`write_escaped`], which grows the vector as it goes.
pub(crate) const SHORT_ESCAPED: usize = 256;

/// Writes `"text"` with serde_json's escapes at `dst`, which has room for
/// `6 * len + 2` bytes (every byte escaped as `\u00XX`), and returns the
/// number of bytes written.
unsafe extern "C" fn write_escaped_into(dst: *mut u8, ptr: *const u8, len: usize) -> usize {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    // SAFETY: generated code reserved `6 * len + 2` bytes at `dst` and passes
    // the text a `read` accessor returned; each byte of it is written as at
    // most six, so every store is inside the room.
    unsafe {
        let text = std::slice::from_raw_parts(ptr, len);
        *dst = b'"';
        let mut w = 1;
        let mut start = 0;
        loop {
            let at = find_escape(text, start);
            std::ptr::copy_nonoverlapping(ptr.add(start), dst.add(w), at - start);
            w += at - start;
            if at == len {
                break;
            }
            let b = text[at];
            let letter = match b {
                0x08 => b'b',
                0x09 => b't',
                0x0A => b'n',
                0x0C => b'f',
                0x0D => b'r',
                b'"' | b'\\' => b,
                _ => b'u',
            };
            *dst.add(w) = b'\\';
            *dst.add(w + 1) = letter;
            w += 2;
            if letter == b'u' {
                *dst.add(w) = b'0';
                *dst.add(w + 1) = b'0';
                *dst.add(w + 2) = HEX[usize::from(b >> 4)];
                *dst.add(w + 3) = HEX[usize::from(b & 0xF)];
                w += 4;
            }
            start = at + 1;
        }
        *dst.add(w) = b'"';
        w + 1
    }
}

/// Hands the value at `src` to the interpreter.
unsafe extern "C" fn interpret(
    state: *mut EncodeState,
    layout: *const TypeLayout,
    src: *const u8,
    level: usize,
) -> i8 {
    // SAFETY: generated code passes its live state, a `&'static` layout
    // embedded at compile time and a live value of it.
    unsafe {
        with_vec(state, |vec, state| {
            let layout: &'static TypeLayout = &*layout;
            match jitson_fallback::encode::encode_value_at(layout, src, vec, &*state.options, level)
            {
                Ok(()) => true,
                Err(e) => {
                    state.error = Some(e);
                    false
                }
            }
        })
    }
}

/// A flattened field's members (`layout` at `src`), written by the
/// interpreter into the object the generated code is writing, its member
/// lines `level` deep: after a comma unless `*written` is 0, which becomes 1
/// once a member is written (`jitson_fallback::encode::encode_flattened_at`).
///
/// # Safety
/// As for [`interpret`]; `written` is a live `i8`.
unsafe extern "C" fn encode_flattened(
    state: *mut EncodeState,
    layout: *const TypeLayout,
    src: *const u8,
    level: usize,
    written: *mut i8,
) -> i8 {
    // SAFETY: generated code passes its live state, a `&'static` layout
    // embedded at compile time, a live value of it and its own flag slot.
    unsafe {
        with_vec(state, |vec, state| {
            let layout: &'static TypeLayout = &*layout;
            let mut first = *written == 0;
            let result = jitson_fallback::encode::encode_flattened_at(
                layout,
                src,
                vec,
                &*state.options,
                level,
                &mut first,
            );
            *written = i8::from(!first);
            match result {
                Ok(()) => true,
                Err(e) => {
                    state.error = Some(e);
                    false
                }
            }
        })
    }
}

/// Adds a map entry's key (a string read by `read`) to the path of the
/// pending error, if any.
unsafe extern "C" fn path_key(
    state: *mut EncodeState,
    read: jitson_core::layout::ReadStrFn,
    key: *const u8,
) {
    jitson_core::panic::catch(|| {
        // SAFETY: generated code passes its live state, the key layout's own
        // accessor and a live key of that layout, whose text it returns.
        let state = unsafe { &mut *state };
        if let Some(e) = &mut state.error {
            let mut len = 0;
            // SAFETY: as above: `read` returns the key's text and its length.
            let text = unsafe {
                let ptr = read(key, &raw mut len);
                std::slice::from_raw_parts(ptr, len)
            };
            e.push_path(PathSegment::Key(String::from_utf8_lossy(text).into()));
        }
    });
}

/// Adds a map entry's integer key (`value`'s bits, read as an `i64` when
/// `signed` and as a `u64` otherwise) to the path of the pending error, if
/// any, as the text the key was written as.
unsafe extern "C" fn path_int_key(state: *mut EncodeState, value: i64, signed: bool) {
    jitson_core::panic::catch(|| {
        // SAFETY: generated code passes its live state.
        let state = unsafe { &mut *state };
        if let Some(e) = &mut state.error {
            let text = if signed {
                value.to_string()
            } else {
                (value as u64).to_string()
            };
            e.push_path(PathSegment::Key(text.into()));
        }
    });
}

/// Adds a member's name to the path of the pending error, if any.
unsafe extern "C" fn path_field(state: *mut EncodeState, field: *const Field) {
    jitson_core::panic::catch(|| {
        // SAFETY: generated code passes its live state and a `&'static Field`.
        let (state, field) = unsafe { (&mut *state, &*field) };
        if let Some(e) = &mut state.error {
            e.push_path(PathSegment::Field(field.name));
        }
    });
}

/// Adds a name (a variant's, an adjacent tag's content key) to the path of
/// the pending error, if any.
unsafe extern "C" fn path_name(state: *mut EncodeState, name: *const &'static str) {
    jitson_core::panic::catch(|| {
        // SAFETY: generated code passes its live state and a `&'static &str`.
        let (state, name) = unsafe { (&mut *state, *name) };
        if let Some(e) = &mut state.error {
            e.push_path(PathSegment::Field(name));
        }
    });
}

/// Adds an element's index to the path of the pending error, if any.
unsafe extern "C" fn path_index(state: *mut EncodeState, index: usize) {
    jitson_core::panic::catch(|| {
        // SAFETY: generated code passes its live state.
        let state = unsafe { &mut *state };
        if let Some(e) = &mut state.error {
            e.push_path(PathSegment::Index(index));
        }
    });
}

/// Copies formatted text to `dst` and returns its length.
///
/// # Safety
/// `dst` has room for `text.len()` bytes.
#[inline(always)]
unsafe fn put(dst: *mut u8, text: &[u8]) -> usize {
    debug_assert!(text.len() <= jitson_core::write::SHORT_COPY_MAX);
    // SAFETY: as the caller guarantees.
    unsafe { jitson_core::write::copy_short(text, dst) };
    text.len()
}

/// `"00" "01" … "99"` (read by generated code too).
pub(crate) use jitson_core::write::DIGIT_PAIRS;

/// Writes the decimal digits of `value` at `dst` (room for [`INT_MAX_LEN`]
/// bytes) and returns their number (`core::write::format_u64_at`).
unsafe extern "C" fn fmt_u64(dst: *mut u8, value: u64) -> usize {
    // SAFETY: generated code reserved INT_MAX_LEN (20) bytes at `dst`.
    unsafe { jitson_core::write::format_u64_at(value, dst) }
}

/// Writes `value` as serde_json does at `dst` (room for [`FLOAT_MAX_LEN`]).
unsafe extern "C" fn fmt_f64(dst: *mut u8, value: f64) -> usize {
    if !value.is_finite() {
        // SAFETY: the room is at least 4 bytes.
        return unsafe { put(dst, b"null") };
    }
    // SAFETY: the caller reserved FLOAT_MAX_LEN bytes at `dst`.
    unsafe { jitson_core::write::format_finite_at(value, dst) }
}

/// Writes `value` as serde_json does at `dst` (room for [`FLOAT_MAX_LEN`]).
unsafe extern "C" fn fmt_f32(dst: *mut u8, value: f32) -> usize {
    if !value.is_finite() {
        // SAFETY: the room is at least 4 bytes.
        return unsafe { put(dst, b"null") };
    }
    // SAFETY: as for `fmt_f64`.
    unsafe { jitson_core::write::format_finite_at(value, dst) }
}

// The addresses generated code calls.
pub(crate) fn helper_row_call() -> usize {
    row_call as *const () as usize
}
pub(crate) fn helper_grow() -> usize {
    grow as *const () as usize
}
pub(crate) fn helper_write_escaped() -> usize {
    write_escaped as *const () as usize
}
pub(crate) fn helper_write_escaped_into() -> usize {
    write_escaped_into as *const () as usize
}
pub(crate) fn helper_write_hex() -> usize {
    write_hex as *const () as usize
}
pub(crate) fn helper_write_plain() -> usize {
    write_plain as *const () as usize
}
pub(crate) fn helper_interpret() -> usize {
    interpret as *const () as usize
}
pub(crate) fn helper_encode_flattened() -> usize {
    encode_flattened as *const () as usize
}
pub(crate) fn helper_path_field() -> usize {
    path_field as *const () as usize
}
pub(crate) fn helper_path_name() -> usize {
    path_name as *const () as usize
}
pub(crate) fn helper_path_key() -> usize {
    path_key as *const () as usize
}
pub(crate) fn helper_path_int_key() -> usize {
    path_int_key as *const () as usize
}
pub(crate) fn helper_path_index() -> usize {
    path_index as *const () as usize
}
pub(crate) fn helper_fmt_u64() -> usize {
    fmt_u64 as *const () as usize
}
pub(crate) fn helper_fmt_f64() -> usize {
    fmt_f64 as *const () as usize
}
pub(crate) fn helper_fmt_f32() -> usize {
    fmt_f32 as *const () as usize
}

// ---------------------------------------------------------------------------
// Compilation

/// Whether generated code writes output with these options itself: compact or
/// pretty output with serde_json's escaping (`sort_keys` only orders maps,
/// which are then handed to the interpreter). With other options a compiled encoder hands the whole
/// value to the interpreter, so a caller free to choose may as well call the
/// interpreter directly.
pub fn encoder_lowers(options: &EncodeOptions) -> bool {
    options.escape.is_json()
}

/// The most bytes the text of a value of `layout` can take, when that is
/// bounded and the value is written in IR (`None` otherwise).
pub(crate) fn bound(layout: &TypeLayout) -> Option<usize> {
    bound_within(layout, 0)
}

/// [`bound`], giving up (unbounded) past a depth that only a type recurring
/// through newtypes, options and boxes reaches.
fn bound_within(layout: &TypeLayout, depth: usize) -> Option<usize> {
    if depth > MAX_INLINE_DEPTH {
        return None;
    }
    let bound = |l: &TypeLayout| bound_within(l, depth + 1);
    match &layout.kind {
        Kind::Bool => Some(5),
        Kind::I8
        | Kind::I16
        | Kind::I32
        | Kind::I64
        | Kind::U8
        | Kind::U16
        | Kind::U32
        | Kind::U64 => Some(INT_MAX_LEN),
        Kind::F32 | Kind::F64 => Some(FLOAT_MAX_LEN),
        Kind::Unit | Kind::Ignored => Some(4),
        Kind::Option(o) => bound(o.some.get()).map(|b| b.max(4)),
        Kind::Box(b) => bound(b.inner.get()),
        Kind::Newtype(n) => bound(n.inner.get()),
        _ => None,
    }
}

/// Compiles an encoder for `root` and everything reachable from it.
///
/// Refuses with [`CompileError::DisabledByEnv`] when
/// [`disabled_by_env`](crate::disabled_by_env). Never unwinds: a panic inside
/// Cranelift is returned as [`CompileError::Codegen`]. Compilation runs no
/// user code.
pub fn compile_encoder(
    root: &'static TypeLayout,
    options: EncodeOptions,
) -> Result<CompiledEncoder, CompileError> {
    crate::guarded_compile(|| compile_inner(root, options))
}

/// What a generated function does.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Role {
    /// Writes a value of its layout: [`EncodeFn`].
    Value,
    /// Writes one entry of a map of its layout, called back by the map's
    /// `for_each`: [`EntryFn`](jitson_core::layout::EntryFn), its context a
    /// [`MapContext`].
    MapEntry,
}

/// Functions of the module being built: declared on first use, translated in
/// turn.
pub(crate) struct Functions {
    /// Keyed by layout, pretty level (always 0 for compact output) and role.
    ids: HashMap<(LayoutId, usize, Role), FuncId>,
    queue: Vec<(&'static TypeLayout, usize, Role)>,
    /// [`EncodeFn`]'s signature.
    signature: Signature,
    /// A map entry function's: three pointers in, an i8 (a C `bool`) out.
    entry_signature: Signature,
}

impl Functions {
    /// An empty table for functions of the calling convention `call_conv`:
    /// [`EncodeFn`]s (two pointers in) and map entry functions (three), both
    /// returning an i8 status.
    pub(crate) fn new(call_conv: CallConv) -> Functions {
        let signature = |pointers: usize| {
            let mut signature = Signature::new(call_conv);
            signature.params.extend(vec![AbiParam::new(PTR); pointers]);
            signature.returns.push(AbiParam::new(types::I8));
            signature
        };
        Functions {
            ids: HashMap::new(),
            queue: Vec::new(),
            signature: signature(2),
            entry_signature: signature(3),
        }
    }

    fn signature_of(&self, role: Role) -> &Signature {
        match role {
            Role::Value => &self.signature,
            Role::MapEntry => &self.entry_signature,
        }
    }
}

/// What a map's entry function is given as its context: the encode's state
/// and the number of entries written so far (for the commas). `repr(C)`:
/// generated code stores and loads both fields, in a stack slot of the
/// function writing the map.
#[repr(C)]
pub(crate) struct MapContext {
    state: *mut EncodeState,
    count: usize,
}

pub(crate) const MAP_STATE: i32 = std::mem::offset_of!(MapContext, state) as i32;
pub(crate) const MAP_COUNT: i32 = std::mem::offset_of!(MapContext, count) as i32;

/// The ISA and an empty module for generated code that writes output (a
/// layout's encoder, a row writer): optimised for speed, its pages from the
/// process's code region ([`crate::memory`]) like every module's.
pub(crate) fn output_module()
-> Result<(cranelift_codegen::isa::OwnedTargetIsa, JITModule), CompileError> {
    let isa = crate::build_isa("speed", crate::RegisterAllocator::Backtracking)?;
    let mut jit_builder =
        JITBuilder::with_isa(isa.clone(), cranelift_module::default_libcall_names());
    jit_builder.memory_provider(Box::new(
        crate::memory::RegionMemory::new()
            .map_err(|e| CompileError::ExecutableMemory(e.to_string()))?,
    ));
    Ok((isa, JITModule::new(jit_builder)))
}

fn compile_inner(
    root: &'static TypeLayout,
    options: EncodeOptions,
) -> Result<CompiledEncoder, CompileError> {
    let started = Instant::now();
    let (isa, mut module) = output_module()?;
    let call_conv = isa.default_call_conv();
    let mut functions = Functions::new(call_conv);
    let root_id = declare(&mut module, &mut functions, root, 0, Role::Value)?;
    let whole = !encoder_lowers(&options);
    let mut fb_ctx = FunctionBuilderContext::new();
    let mut interpreted = Vec::new();
    let mut max_reserve = 0;
    let unit = options.indent.map(usize::from);
    // Translated in turn (translation declares and queues callees), then
    // compiled on two threads and defined in order (`crate::parallel`).
    let mut translated = Vec::new();
    while let Some((layout, depth, role)) = functions.queue.pop() {
        let mut ctx = module.make_context();
        ctx.func.signature = functions.signature_of(role).clone();
        let id = functions.ids[&(layout.id(), depth, role)];
        let (function_interpreted, function_reserve) = translate(
            &mut module,
            &mut ctx,
            &mut fb_ctx,
            &mut functions,
            (layout, depth, role),
            Mode {
                unit,
                whole,
                sort_keys: options.sort_keys,
                call_conv,
            },
        );
        interpreted.extend(function_interpreted);
        max_reserve = max_reserve.max(function_reserve);
        translated.push((id, ctx));
    }
    let count = translated.len();
    let compiled = crate::parallel::define_functions(&mut module, &*isa, translated)?;
    let code_bytes = compiled
        .iter()
        .map(|(_, code)| code.code_info().total_size as usize)
        .sum();
    drop(compiled);
    module
        .finalize_definitions()
        .map_err(|e| CompileError::ExecutableMemory(e.to_string()))?;
    let entry_ptr = module.get_finalized_function(root_id);
    // SAFETY: the root function was defined with the `EncodeFn` signature (two
    // pointers in, an i8 out, the host's C calling convention).
    let entry = unsafe { std::mem::transmute::<*const u8, EncodeFn>(entry_ptr) };
    interpreted.sort();
    interpreted.dedup();
    Ok(CompiledEncoder {
        module: Some(OwnedModule(module)),
        entry,
        options,
        code_bytes,
        compile_time: started.elapsed(),
        functions: count,
        interpreted,
        max_reserve,
    })
}

/// Declares the function of `role` for `layout` (once) and queues it for
/// translation.
fn declare(
    module: &mut JITModule,
    functions: &mut Functions,
    layout: &'static TypeLayout,
    depth: usize,
    role: Role,
) -> Result<FuncId, CompileError> {
    if let Some(&id) = functions.ids.get(&(layout.id(), depth, role)) {
        return Ok(id);
    }
    let name = format!(
        "encode_{}{}_{depth}_{}",
        if role == Role::MapEntry { "entry_" } else { "" },
        crate::sanitize(layout.expecting),
        functions.ids.len()
    );
    let id = module
        .declare_function(&name, Linkage::Local, functions.signature_of(role))
        .map_err(|e| CompileError::Codegen(e.to_string()))?;
    functions.ids.insert((layout.id(), depth, role), id);
    functions.queue.push((layout, depth, role));
    Ok(id)
}

/// What every function of a module is compiled for.
#[derive(Clone, Copy)]
struct Mode {
    /// Pretty output's spaces per level (`None`: compact).
    unit: Option<usize>,
    /// The whole value goes to the interpreter (options not lowered).
    whole: bool,
    /// Maps in key order: written by the interpreter.
    sort_keys: bool,
    call_conv: CallConv,
}

/// Builds the IR of `layout`'s encoder function (for values `depth`
/// containers deep in pretty output) into `ctx.func`; returns the
/// layouts handed to the interpreter and the function's largest constant
/// capacity check.
fn translate(
    module: &mut JITModule,
    ctx: &mut Context,
    fb_ctx: &mut FunctionBuilderContext,
    functions: &mut Functions,
    (layout, depth, role): (&'static TypeLayout, usize, Role),
    Mode {
        unit,
        whole,
        sort_keys,
        call_conv,
    }: Mode,
) -> (Vec<(&'static str, &'static str)>, usize) {
    let frontend_config = module.isa().frontend_config();
    let mut b = FunctionBuilder::new(&mut ctx.func, fb_ctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let params = b.block_params(entry).to_vec();
    // A map entry function's context holds the state.
    let state = match role {
        Role::Value => params[0],
        Role::MapEntry => b.ins().load(PTR, state_flags(), params[0], MAP_STATE),
    };
    let fail = b.create_block();
    let mut t = EncodeTranslator::for_function(b, module, functions, call_conv, state);
    t.depth = depth;
    t.unit = unit;
    t.sort_keys = sort_keys;
    // A stack nearly full: give up (the caller runs the interpreter).
    let limit = t.b.ins().load(PTR, state_flags(), state, STATE_STACK_LIMIT);
    let floor =
        t.b.ins()
            .iadd_imm_s(limit, jitson_core::stack::level_reserve(layout) as i64);
    let sp = t.b.ins().get_stack_pointer(PTR);
    let low = t.b.ins().icmp(IntCC::UnsignedLessThan, sp, floor);
    let body = t.b.create_block();
    t.b.ins().brif(low, fail, &[], body, &[]);
    t.b.switch_to_block(body);
    t.reload();
    if let Role::MapEntry = role {
        let Kind::Map(map) = &layout.kind else {
            unreachable!("entry functions are declared for maps")
        };
        t.emit_map_entry(map, params[0], params[1], params[2], fail);
    } else if whole {
        let src = params[1];
        t.interpreted
            .push(((layout.type_name)(), "non-default escaping"));
        t.emit_interpret(layout, src, fail);
    } else {
        let src = params[1];
        match &layout.kind {
            Kind::Struct(st) => t.emit_encode_members(st, src, fail, None),
            _ => {
                t.inlining.push(layout.id());
                t.emit_value_inline(layout, src, fail, false);
            }
        }
    }
    t.spill();
    let one = t.b.ins().iconst(types::I8, 1);
    t.b.ins().return_(&[one]);
    t.fill_path_blocks();
    t.b.switch_to_block(fail);
    t.b.set_cold_block(fail);
    let zero = t.b.ins().iconst(types::I8, 0);
    t.b.ins().return_(&[zero]);
    let interpreted = std::mem::take(&mut t.interpreted);
    let max_reserve = t.max_reserve;
    t.b.seal_all_blocks();
    t.b.finalize(frontend_config);
    (interpreted, max_reserve)
}

/// Memory flags for the state: aligned, never trapping.
pub(crate) fn state_flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// Memory flags for values and output: possibly unaligned (packed views);
/// always valid.
pub(crate) fn value_flags() -> MemFlagsData {
    let mut flags = MemFlagsData::new();
    flags.set_notrap();
    flags
}

/// The path segment a cold block adds to a failing encode's error.
pub(crate) enum PathBlock {
    Field(&'static Field),
    Name(&'static &'static str),
    Index(Variable),
    /// A map entry's key: its text accessor and the key's address.
    Key(jitson_core::layout::ReadStrFn, Value),
    /// A map entry's integer key: its type, signedness and address.
    IntKey {
        ty: cranelift_codegen::ir::Type,
        signed: bool,
        at: Value,
    },
}

/// Layouts inlined into one function at most this deep; deeper ones get a
/// function of their own.
const MAX_INLINE_DEPTH: usize = 12;

/// Pretty output: values this many containers deep or more (reached through
/// recursive types) are handed to the interpreter, so a recursive type
/// compiles to at most this many copies of its functions.
const MAX_PRETTY_DEPTH: usize = 16;

/// Pretty output: the longest indentation written as constant bytes; values
/// whose lines would be indented further go to the interpreter.
const MAX_PRETTY_INDENT: usize = 256;

/// The per-function translator of an encoder.
pub(crate) struct EncodeTranslator<'a, 'm> {
    pub b: FunctionBuilder<'a>,
    module: &'m mut JITModule,
    functions: &'m mut Functions,
    func_refs: HashMap<(LayoutId, usize, Role), FuncRef>,
    sigs: crate::translate::Signatures,
    call_conv: CallConv,
    /// `*mut EncodeState`.
    pub state: Value,
    /// The output buffer's pointer, length and capacity.
    pub buf: Variable,
    pub len: Variable,
    pub cap: Variable,
    /// Layouts being inlined, outermost first.
    inlining: Vec<LayoutId>,
    /// Cold blocks adding a path segment, to fill at the end.
    path_blocks: Vec<(Block, PathBlock, Block)>,
    /// Stack slots for enum payload views, one per nesting level, and the
    /// level being emitted.
    view_slots: Vec<cranelift_codegen::ir::StackSlot>,
    view_depth: usize,
    /// Pretty output: the containers open around the value being emitted
    /// (static: a function is compiled per level it is reached at), and the
    /// spaces per level. Compact output: 0 and `None`.
    pub depth: usize,
    pub unit: Option<usize>,
    /// Maps in key order (`sort_keys`): handed to the interpreter.
    pub sort_keys: bool,
    pub interpreted: Vec<(&'static str, &'static str)>,
    /// The largest room one constant capacity check asks for.
    pub max_reserve: usize,
    /// Flattened values written in place around the one being emitted
    /// (`kind/struct_.rs`): a type that flattens itself is written by the
    /// interpreter past [`MAX_FLATTEN_INLINE`].
    pub(crate) flattening: usize,
}

/// Flattened values nested in place at most this deep; deeper ones (a type
/// that flattens itself through an `Option<Box<_>>`) are the interpreter's.
pub(crate) const MAX_FLATTEN_INLINE: usize = 8;

impl<'a, 'm> EncodeTranslator<'a, 'm> {
    /// A translator for a function whose output buffer lives in `state`:
    /// compact output at level 0 (a layout's encoder sets its own `depth` and
    /// `unit`; the row writer keeps them).
    pub(crate) fn for_function(
        mut b: FunctionBuilder<'a>,
        module: &'m mut JITModule,
        functions: &'m mut Functions,
        call_conv: CallConv,
        state: Value,
    ) -> Self {
        let (buf, len, cap) = (b.declare_var(PTR), b.declare_var(PTR), b.declare_var(PTR));
        EncodeTranslator {
            b,
            module,
            functions,
            func_refs: HashMap::new(),
            sigs: HashMap::new(),
            call_conv,
            state,
            buf,
            len,
            cap,
            inlining: Vec::new(),
            path_blocks: Vec::new(),
            view_slots: Vec::new(),
            view_depth: 0,
            depth: 0,
            unit: None,
            sort_keys: false,
            interpreted: Vec::new(),
            max_reserve: 0,
            flattening: 0,
        }
    }
}

impl EncodeTranslator<'_, '_> {
    /// Stores the length for a call (only helpers change the buffer).
    pub(crate) fn spill(&mut self) {
        let len = self.b.use_var(self.len);
        self.b
            .ins()
            .store(state_flags(), len, self.state, STATE_LEN);
    }

    /// Reads the buffer back after a call.
    pub(crate) fn reload(&mut self) {
        let buf = self.b.ins().load(PTR, state_flags(), self.state, STATE_BUF);
        let len = self.b.ins().load(PTR, state_flags(), self.state, STATE_LEN);
        let cap = self.b.ins().load(PTR, state_flags(), self.state, STATE_CAP);
        self.b.def_var(self.buf, buf);
        self.b.def_var(self.len, len);
        self.b.def_var(self.cap, cap);
    }

    /// Makes room for `needed` more bytes (a value): one compare, and a call
    /// to grow the vector when short; failure (a panic) goes to `fail`.
    pub(crate) fn ensure(&mut self, needed: Value, fail: Block) {
        let len = self.b.use_var(self.len);
        let cap = self.b.use_var(self.cap);
        let room = self.b.ins().isub(cap, len);
        let short = self.b.ins().icmp(IntCC::UnsignedLessThan, room, needed);
        let grow_block = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(short, grow_block, &[], cont, &[]);
        self.b.switch_to_block(grow_block);
        self.b.set_cold_block(grow_block);
        self.spill();
        let ok = self
            .call_addr(
                helper_grow(),
                &[PTR, PTR],
                Some(types::I8),
                &[self.state, needed],
            )
            .expect("grow returns a status");
        self.reload();
        self.b.ins().brif(ok, cont, &[], fail, &[]);
        self.b.switch_to_block(cont);
    }

    /// [`ensure`](Self::ensure) for a constant number of bytes.
    pub(crate) fn ensure_const(&mut self, needed: usize, fail: Block) {
        self.max_reserve = self.max_reserve.max(needed);
        let needed = self.b.ins().iconst(PTR, needed as i64);
        self.ensure(needed, fail);
    }

    /// The address of the next output byte.
    pub(crate) fn cursor(&mut self) -> Value {
        let buf = self.b.use_var(self.buf);
        let len = self.b.use_var(self.len);
        self.b.ins().iadd(buf, len)
    }

    /// Advances the length by `n` (a value).
    pub(crate) fn advance(&mut self, n: Value) {
        let len = self.b.use_var(self.len);
        let len = self.b.ins().iadd(len, n);
        self.b.def_var(self.len, len);
    }

    /// Advances the length by the constant `n`.
    pub(crate) fn advance_const(&mut self, n: usize) {
        let len = self.b.use_var(self.len);
        let len = self.b.ins().iadd_imm_s(len, n as i64);
        self.b.def_var(self.len, len);
    }

    /// Writes `bytes` (room reserved) with the widest stores that fit.
    pub(crate) fn write_const(&mut self, bytes: &[u8]) {
        let at = self.cursor();
        let mut offset = 0;
        while offset < bytes.len() {
            let rest = &bytes[offset..];
            let (ty, width) = match rest.len() {
                8.. => (types::I64, 8),
                4.. => (types::I32, 4),
                2.. => (types::I16, 2),
                _ => (types::I8, 1),
            };
            let mut word = [0u8; 8];
            word[..width].copy_from_slice(&rest[..width]);
            let value = self.b.ins().iconst(ty, i64::from_le_bytes(word));
            self.b.ins().store(value_flags(), value, at, offset as i32);
            offset += width;
        }
        let len = self.b.use_var(self.len);
        let len = self.b.ins().iadd_imm_s(len, bytes.len() as i64);
        self.b.def_var(self.len, len);
    }

    /// Whether output is pretty.
    pub(crate) fn pretty(&self) -> bool {
        self.unit.is_some()
    }

    /// Pretty output: a newline and the indentation of `level`; compact
    /// output: nothing.
    pub(crate) fn line(&self, level: usize) -> Vec<u8> {
        match self.unit {
            Some(unit) => {
                let mut bytes = vec![b' '; 1 + level * unit];
                bytes[0] = b'\n';
                bytes
            }
            None => Vec::new(),
        }
    }

    /// What closes a container at the current level after at least one
    /// element or member: `close`, after a line in pretty output.
    pub(crate) fn closing(&self, close: u8) -> Vec<u8> {
        let mut bytes = self.line(self.depth);
        bytes.push(close);
        bytes
    }

    /// Writes `close` (room reserved) when `any` (an integer) is not zero,
    /// else the bare `close_byte`: pretty output closes a container on its
    /// own line only when something was written in it.
    pub(crate) fn write_close_if(&mut self, any: Value, close: &[u8], close_byte: u8) {
        let (with, without, closed) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(any, with, &[], without, &[]);
        self.b.switch_to_block(with);
        self.write_const(close);
        self.b.ins().jump(closed, &[]);
        self.b.switch_to_block(without);
        self.write_const(&[close_byte]);
        self.b.ins().jump(closed, &[]);
        self.b.switch_to_block(closed);
    }

    /// Enters a container's elements (one level deeper in pretty output).
    pub(crate) fn enter_level(&mut self) {
        if self.pretty() {
            self.depth += 1;
        }
    }

    /// Leaves what [`enter_level`](Self::enter_level) entered.
    pub(crate) fn leave_level(&mut self) {
        if self.pretty() {
            self.depth -= 1;
        }
    }

    /// Pretty output deeper than constant indentation is compiled for: the
    /// value goes to the interpreter (at its level).
    fn too_deep(&self) -> bool {
        self.unit.is_some_and(|unit| {
            self.depth >= MAX_PRETTY_DEPTH || (self.depth + 1) * unit > MAX_PRETTY_INDENT
        })
    }

    /// Allocates an 8-byte stack slot and returns its address.
    pub(crate) fn slot(&mut self) -> Value {
        let slot =
            self.b
                .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
        self.b.ins().stack_addr(PTR, slot, 0)
    }

    /// Calls the function at the constant address `addr` (a helper or a
    /// layout accessor) and returns its result, if any.
    pub(crate) fn call_addr(
        &mut self,
        addr: usize,
        params: &[Type],
        ret: Option<Type>,
        args: &[Value],
    ) -> Option<Value> {
        crate::translate::call_at(
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

    /// Continues in a new block when `ok` (an i8) is set, else goes to `fail`.
    pub(crate) fn check(&mut self, ok: Value, fail: Block) {
        let cont = self.b.create_block();
        self.b.ins().brif(ok, cont, &[], fail, &[]);
        self.b.switch_to_block(cont);
    }

    /// Calls the generated function for `layout` on `src`.
    pub(crate) fn emit_call_function(
        &mut self,
        layout: &'static TypeLayout,
        src: Value,
        fail: Block,
    ) {
        let f = self.func_ref(layout, Role::Value);
        self.spill();
        let call = self.b.ins().call(f, &[self.state, src]);
        let ok = self.b.inst_results(call)[0];
        self.reload();
        self.check(ok, fail);
    }

    /// The function of `role` for `layout` at the current pretty level,
    /// declared (and queued) on first use.
    pub(crate) fn func_ref(&mut self, layout: &'static TypeLayout, role: Role) -> FuncRef {
        let id = (layout.id(), self.depth, role);
        if let Some(&f) = self.func_refs.get(&id) {
            return f;
        }
        let func_id = declare(self.module, self.functions, layout, self.depth, role)
            .expect("declaring an encoder function");
        let f = self.module.declare_func_in_func(func_id, self.b.func);
        self.func_refs.insert(id, f);
        f
    }

    /// Hands the value at `src` to the interpreter.
    pub(crate) fn emit_interpret(&mut self, layout: &'static TypeLayout, src: Value, fail: Block) {
        self.spill();
        let l = self.const_ptr(std::ptr::from_ref(layout));
        let level = self.b.ins().iconst(PTR, self.depth as i64);
        let ok = self
            .call_addr(
                helper_interpret(),
                &[PTR, PTR, PTR, PTR],
                Some(types::I8),
                &[self.state, l, src, level],
            )
            .expect("interpret returns a status");
        self.reload();
        self.check(ok, fail);
    }

    /// The address of room for an enum's payload view at the next nesting
    /// level ([`jitson_core::layout::VARIANT_VIEW_SIZE`] bytes, aligned to 8);
    /// [`leave_view`](Self::leave_view) when the payload is written.
    pub(crate) fn enter_view(&mut self) -> Value {
        if self.view_depth == self.view_slots.len() {
            let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                jitson_core::layout::VARIANT_VIEW_SIZE as u32,
                3,
            ));
            self.view_slots.push(slot);
        }
        let slot = self.view_slots[self.view_depth];
        self.view_depth += 1;
        self.b.ins().stack_addr(PTR, slot, 0)
    }

    /// Leaves the level [`enter_view`](Self::enter_view) entered.
    pub(crate) fn leave_view(&mut self) {
        self.view_depth -= 1;
    }

    /// A cold block that adds `segment` to the error's path and goes to
    /// `fail` (filled in when the function's body is done).
    pub(crate) fn path_fail(&mut self, segment: PathBlock, fail: Block) -> Block {
        let block = self.b.create_block();
        self.path_blocks.push((block, segment, fail));
        block
    }

    /// Fills the blocks [`path_fail`](Self::path_fail) made.
    fn fill_path_blocks(&mut self) {
        for (block, segment, fail) in std::mem::take(&mut self.path_blocks) {
            self.b.switch_to_block(block);
            self.b.set_cold_block(block);
            match segment {
                PathBlock::Field(field) => {
                    let f = self.const_ptr(std::ptr::from_ref(field));
                    self.call_addr(helper_path_field(), &[PTR, PTR], None, &[self.state, f]);
                }
                PathBlock::Name(name) => {
                    let n = self.const_ptr(std::ptr::from_ref(name));
                    self.call_addr(helper_path_name(), &[PTR, PTR], None, &[self.state, n]);
                }
                PathBlock::Index(index) => {
                    let i = self.b.use_var(index);
                    self.call_addr(helper_path_index(), &[PTR, PTR], None, &[self.state, i]);
                }
                PathBlock::Key(read, key) => {
                    let read = self.b.ins().iconst(PTR, read as usize as i64);
                    self.call_addr(
                        helper_path_key(),
                        &[PTR, PTR, PTR],
                        None,
                        &[self.state, read, key],
                    );
                }
                PathBlock::IntKey { ty, signed, at } => {
                    let v = self.emit_load_int(ty, signed, at);
                    let signed = self.b.ins().iconst(types::I8, i64::from(signed));
                    self.call_addr(
                        helper_path_int_key(),
                        &[PTR, types::I64, types::I8],
                        None,
                        &[self.state, v, signed],
                    );
                }
            }
            self.b.ins().jump(fail, &[]);
        }
    }

    /// Appends the value at `src`. `reserved`: the caller made room for
    /// [`bound`]`(layout)` bytes (which must then be `Some`). Structs are calls;
    /// other kinds are inlined unless they recur or nest too deep.
    pub(crate) fn emit_value(
        &mut self,
        layout: &'static TypeLayout,
        src: Value,
        fail: Block,
        reserved: bool,
    ) {
        if self.too_deep() {
            self.interpreted.push((
                (layout.type_name)(),
                "pretty output nested too deep to compile",
            ));
            return self.emit_interpret(layout, src, fail);
        }
        let id = layout.id();
        let own_function = matches!(layout.kind, Kind::Struct(_))
            || self.inlining.contains(&id)
            || self.inlining.len() >= MAX_INLINE_DEPTH;
        if own_function {
            return self.emit_call_function(layout, src, fail);
        }
        self.inlining.push(id);
        self.emit_value_inline(layout, src, fail, reserved);
        self.inlining.pop();
    }

    /// [`emit_value`](Self::emit_value)'s dispatch on the kind.
    fn emit_value_inline(
        &mut self,
        layout: &'static TypeLayout,
        src: Value,
        fail: Block,
        reserved: bool,
    ) {
        match &layout.kind {
            Kind::Bool => self.emit_encode_bool(src, fail, reserved),
            Kind::I8 => self.emit_encode_int(types::I8, true, src, fail, reserved),
            Kind::I16 => self.emit_encode_int(types::I16, true, src, fail, reserved),
            Kind::I32 => self.emit_encode_int(types::I32, true, src, fail, reserved),
            Kind::I64 => self.emit_encode_int(types::I64, true, src, fail, reserved),
            Kind::U8 => self.emit_encode_int(types::I8, false, src, fail, reserved),
            Kind::U16 => self.emit_encode_int(types::I16, false, src, fail, reserved),
            Kind::U32 => self.emit_encode_int(types::I32, false, src, fail, reserved),
            Kind::U64 => self.emit_encode_int(types::I64, false, src, fail, reserved),
            Kind::F32 => self.emit_encode_float(types::F32, src, fail, reserved),
            Kind::F64 => self.emit_encode_float(types::F64, src, fail, reserved),
            Kind::Unit | Kind::Ignored => {
                if !reserved {
                    self.ensure_const(4, fail);
                }
                self.write_const(b"null");
            }
            Kind::String(s) if s.read.is_some() => {
                let read = s.read.expect("checked");
                self.emit_encode_string(read, src, fail);
            }
            Kind::BorrowedStr(s) if s.read.is_some() => {
                let read = s.read.expect("checked");
                self.emit_encode_string(read, src, fail);
            }
            Kind::Option(o) => self.emit_encode_option(o, src, fail, reserved),
            Kind::Box(b) => self.emit_encode_box(b, src, fail, reserved),
            Kind::Newtype(n) => {
                let field = self.b.ins().iadd_imm_s(src, n.offset as i64);
                self.emit_value(n.inner.get(), field, fail, reserved);
            }
            Kind::Vec(v) => self.emit_encode_vec(v, src, fail),
            Kind::Array(a) => self.emit_encode_array(a, src, fail),
            Kind::Tuple(t) if t.elems.iter().all(|e| e.skip_if.is_none()) => {
                self.emit_encode_tuple(t, src, fail)
            }
            Kind::Struct(_) => self.emit_call_function(layout, src, fail),
            Kind::Enum(e) => self.emit_encode_enum(layout, e, src, fail),
            Kind::Map(map) => self.emit_encode_map(layout, map, src, fail),
            Kind::Parsed(p) if p.format.is_some() => {
                let format = p.format.expect("checked");
                self.emit_encode_parsed(layout, format, src, fail);
            }
            _ => {
                self.interpreted
                    .push(((layout.type_name)(), interpreted_reason(layout)));
                self.emit_interpret(layout, src, fail);
            }
        }
    }
}

/// Why the JIT's encoder hands a kind to the interpreter.
fn interpreted_reason(layout: &TypeLayout) -> &'static str {
    match &layout.kind {
        Kind::Convert(_) => "conversions are encoded by the interpreter",
        Kind::Tuple(_) => {
            "a tuple element with `skip_serializing_if` is encoded by the interpreter"
        }
        Kind::Serde(_) => {
            "a field written by its serde impl (the interpreter calls it; the struct around it stays compiled)"
        }
        _ => "not lowered by the JIT's encoder",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_escape_flags_exactly_what_json_escapes() {
        for b in 0..=255u8 {
            let needs = b < 0x20 || b == b'"' || b == b'\\';
            for len in 1..20 {
                for pos in 0..len {
                    let mut bytes = vec![b'x'; len];
                    bytes[pos] = b;
                    let expect = if needs { pos } else { len };
                    assert_eq!(
                        find_escape(&bytes, 0),
                        expect,
                        "byte {b:#x} at {pos} of {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn escapes_into_room_as_core_write_does() {
        let specials = [
            "\"", "\\", "\n", "\r", "\t", "\u{8}", "\u{c}", "\u{0}", "\u{1f}", "\u{7f}", "é", "😀",
        ];
        for special in specials {
            for pad in 0..20 {
                let s = format!(
                    "{}{special}{}{special}",
                    "a".repeat(pad),
                    "b".repeat(pad % 9)
                );
                let mut expect = Vec::new();
                jitson_core::write::write_str(&mut expect, &s);
                let mut out = vec![0u8; 6 * s.len() + 2];
                // SAFETY: `out` is room for `6 * len + 2` bytes.
                let n = unsafe { write_escaped_into(out.as_mut_ptr(), s.as_ptr(), s.len()) };
                assert_eq!(&out[..n], &expect[..], "{s:?}");
            }
        }
        let all: Vec<u8> = (0..0x20).collect();
        let s = String::from_utf8(all).unwrap();
        let mut expect = Vec::new();
        jitson_core::write::write_str(&mut expect, &s);
        let mut out = vec![0u8; 6 * s.len() + 2];
        // SAFETY: as above.
        let n = unsafe { write_escaped_into(out.as_mut_ptr(), s.as_ptr(), s.len()) };
        assert_eq!(&out[..n], &expect[..]);
    }

    #[test]
    fn integers_as_itoa_writes_them() {
        let mut values: Vec<u64> = vec![0, 9, 10, 99, 100, u64::MAX, u64::MAX - 1];
        let mut p: u64 = 1;
        while let Some(next) = p.checked_mul(10) {
            values.extend([p - 1, p, p + 1]);
            p = next;
        }
        values.extend([p - 1, p, p + 1]);
        for v in values {
            let mut out = [0u8; INT_MAX_LEN];
            // SAFETY: `out` is room for 20 bytes.
            let n = unsafe { fmt_u64(out.as_mut_ptr(), v) };
            assert_eq!(&out[..n], v.to_string().as_bytes());
        }
    }
}
