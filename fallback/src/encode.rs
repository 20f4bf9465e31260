//! The interpreter's encoder: walks a [`TypeLayout`] built for encoding
//! ([`jitson_core::encode::Encode::ENCODE`]) and appends the value's JSON text.
//!
//! Each kind's `encode_*` method lives beside its `decode_*` twin in `kind/`
//! (both directions of a kind in one file); this module holds the emitter's
//! state, the dispatch on the kind, and the punctuation of compact and pretty
//! output. What a scalar's text is comes from [`jitson_core::write`], which the
//! JIT's helpers and the Arrow writer share.
//!
//! # The reference
//!
//! serde_json's `to_vec` and `to_vec_pretty` over the type's derived
//! `Serialize`: the same bytes, the same refusals (a map key that cannot be a
//! JSON key, a non-finite float key, a `serialize_with` error, a variant that
//! is never serialised), each with the path of the value that failed.
//!
//! # Contract
//!
//! `src` points to a live value of the layout's type, which is only read. On
//! `Err`, whatever was appended to the output is left there: the facade
//! truncates it to where the encode began.

use core::ffi::c_void;

use jitson_core::error::{Error, ErrorCode, PathSegment};
use jitson_core::layout::{Kind, TypeLayout};
use jitson_core::write::{self, Escape};

/// Encoder settings; every option is off by default and changes bytes only
/// when set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct EncodeOptions {
    /// Pretty output with this many spaces per level (serde_json's
    /// `to_vec_pretty` is 2); `None` for compact output.
    pub indent: Option<u8>,
    /// Map entries in the byte order of their key text, instead of the map's
    /// iteration order (struct fields keep their declaration order).
    pub sort_keys: bool,
    /// HTML-safe or ASCII-only string escaping ([`Escape`]).
    pub escape: Escape,
}

/// Appends the JSON text of the value at `src`, described by `layout`, to `out`.
///
/// If user code panicked (a `skip_serializing_if` predicate, a `Serialize`
/// impl, an `into` conversion), the error's code is `ErrorCode::Panicked` and
/// the payload is pending in [`jitson_core::panic`]; the caller must resume it.
///
/// # Safety
/// `src` points to a live value of the type `layout` describes for encoding
/// (which [`jitson_core::encode::Encode`] guarantees for `T::ENCODE`).
pub unsafe fn encode(
    layout: &'static TypeLayout,
    src: *const u8,
    out: &mut Vec<u8>,
    options: &EncodeOptions,
) -> Result<(), Error> {
    // SAFETY: forwarded from the caller.
    unsafe { encode_value_at(layout, src, out, options, 0) }
}

/// Appends the value at `src` as it appears `level` containers deep in pretty
/// output (the indentation of its inner lines); in compact output `level` is
/// ignored. This is how the JIT hands a value it does not lower to the
/// interpreter: same value, same options, same place, hence the same bytes.
///
/// # Safety
/// As for [`encode`].
pub unsafe fn encode_value_at(
    layout: &'static TypeLayout,
    src: *const u8,
    out: &mut Vec<u8>,
    options: &EncodeOptions,
    level: usize,
) -> Result<(), Error> {
    let mut emitter = Emitter::new(out, options, level);
    // SAFETY: forwarded from the caller.
    unsafe { emitter.encode_value(layout, src) }
}

/// Appends the members of a flattened field (`layout` at `src`) as the
/// interpreter writes them inside the object being written, its member lines
/// `level` containers deep in pretty output: each after a comma unless
/// `*first`, which is cleared once one is written. This is how the JIT writes
/// the flattened fields of a struct it compiles: the same members, in the
/// same place, hence the same bytes.
///
/// # Safety
/// As for [`encode`].
pub unsafe fn encode_flattened_at(
    layout: &'static TypeLayout,
    src: *const u8,
    out: &mut Vec<u8>,
    options: &EncodeOptions,
    level: usize,
    first: &mut bool,
) -> Result<(), Error> {
    let mut emitter = Emitter::new(out, options, level);
    // SAFETY: forwarded from the caller.
    unsafe { emitter.encode_flattened(layout, src, first) }
}

/// The interpreter's state while encoding one value.
pub(crate) struct Emitter<'o> {
    pub(crate) out: &'o mut Vec<u8>,
    /// Pretty output: newlines and `unit` per level.
    pub(crate) pretty: bool,
    pub(crate) unit: &'o [u8],
    /// Containers open around the value being written.
    pub(crate) level: usize,
    pub(crate) sort_keys: bool,
    pub(crate) escape: Escape,
    /// The stack address a level may not go below ([`jitson_core::stack`]).
    stack_limit: usize,
}

impl<'o> Emitter<'o> {
    /// An emitter appending to `out` with `options`, `level` containers deep.
    fn new(out: &'o mut Vec<u8>, options: &EncodeOptions, level: usize) -> Emitter<'o> {
        /// Indentation units are taken from here: no allocation per encode.
        static SPACES: [u8; 255] = [b' '; 255];
        Emitter {
            out,
            pretty: options.indent.is_some(),
            unit: &SPACES[..usize::from(options.indent.unwrap_or(0))],
            level,
            sort_keys: options.sort_keys,
            escape: options.escape,
            stack_limit: jitson_core::stack::limit(),
        }
    }
}

/// An error raised while encoding (no input position).
#[cold]
pub(crate) fn encode_error(code: ErrorCode) -> Error {
    Error::without_position(code)
}

impl<'o> Emitter<'o> {
    /// Appends the value at `src`.
    ///
    /// # Safety
    /// `src` points to a live value of `layout`'s type.
    pub(crate) unsafe fn encode_value(
        &mut self,
        layout: &'static TypeLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        // SAFETY (all arms): forwarded from the caller; each kind reads the type
        // its layout describes.
        unsafe {
            match &layout.kind {
                Kind::Bool => self.encode_bool(src),
                Kind::I8 => self.encode_int::<i8>(src),
                Kind::I16 => self.encode_int::<i16>(src),
                Kind::I32 => self.encode_int::<i32>(src),
                Kind::I64 => self.encode_int::<i64>(src),
                Kind::U8 => self.encode_int::<u8>(src),
                Kind::U16 => self.encode_int::<u16>(src),
                Kind::U32 => self.encode_int::<u32>(src),
                Kind::U64 => self.encode_int::<u64>(src),
                Kind::I128 => self.encode_int::<i128>(src),
                Kind::U128 => self.encode_int::<u128>(src),
                Kind::F32 => self.encode_f32(src),
                Kind::F64 => self.encode_f64(src),
                Kind::Char => self.encode_char(src),
                Kind::String(s) => self.encode_string(layout, s, src),
                Kind::BorrowedStr(s) => self.encode_borrowed_str(layout, s, src),
                Kind::RawValue(s) => self.encode_raw(layout, s, src),
                Kind::Ignored | Kind::Unit => self.encode_unit(),
                Kind::Option(o) => self.encode_option(o, src),
                Kind::Box(b) => self.encode_box(b, src),
                Kind::Vec(v) => self.encode_vec(layout, v, src),
                Kind::Array(a) => self.encode_array(layout, a, src),
                Kind::Map(m) => self.encode_map(layout, m, src),
                Kind::Struct(s) => self.encode_struct(layout, s, src),
                Kind::Tuple(t) => self.encode_tuple(layout, t, src),
                Kind::Newtype(n) => self.encode_newtype(n, src),
                Kind::Convert(c) => self.encode_convert(layout, c, src),
                Kind::Serde(s) => self.encode_serde(layout, s, src),
                Kind::Enum(e) => self.encode_enum(layout, e, src),
                Kind::Parsed(p) => self.encode_parsed(layout, p, src),
                Kind::Column(_) => Err(self.not_encodable(layout)),
            }
        }
    }

    /// The error for a layout built without its encoding accessors.
    #[cold]
    pub(crate) fn not_encodable(&self, layout: &TypeLayout) -> Error {
        let text = format!(
            "cannot encode {}: its layout has no encoding accessors",
            (layout.type_name)()
        );
        encode_error(ErrorCode::NotEncodable(text.into_boxed_str()))
    }

    /// Enters a container: one level of pretty indentation, and stack room.
    #[inline]
    pub(crate) fn enter(&mut self, _layout: &TypeLayout) -> Result<(), Error> {
        // An encoding level's frames hold no value temporaries beyond an
        // enum's variant view, so a fixed reserve covers every layout.
        if !jitson_core::stack::has_room(
            self.stack_limit,
            4 * jitson_core::layout::VARIANT_VIEW_SIZE,
        ) {
            return Err(encode_error(ErrorCode::StackExhausted));
        }
        self.level += 1;
        Ok(())
    }

    /// Writes `open` (`[` or `{`) and enters the container.
    #[inline]
    pub(crate) fn begin(&mut self, layout: &TypeLayout, open: u8) -> Result<(), Error> {
        self.enter(layout)?;
        self.out.push(open);
        Ok(())
    }

    /// Before an element or a member: `,` unless it is the first, and in
    /// pretty output a newline and the indentation.
    #[inline]
    pub(crate) fn separator(&mut self, first: bool) {
        if !first {
            self.out.push(b',');
        }
        if self.pretty {
            write::write_newline_indent(self.out, self.level, self.unit);
        }
    }

    /// Leaves a container and writes `close`, after a newline and the outer
    /// indentation when it held anything and the output is pretty.
    #[inline]
    pub(crate) fn end(&mut self, close: u8, any: bool) {
        self.level -= 1;
        if self.pretty && any {
            write::write_newline_indent(self.out, self.level, self.unit);
        }
        self.out.push(close);
    }

    /// Before a member, its separator (as [`separator`](Self::separator)),
    /// its key and its `:`; compact JSON output in one reservation
    /// (`core::write::write_member`).
    #[inline(always)]
    pub(crate) fn member(&mut self, first: bool, name: &str) {
        if !self.pretty && self.escape.is_json() {
            write::write_member(self.out, !first, name);
        } else {
            self.separator(first);
            self.key(name);
        }
    }

    /// A member's key and its `:` (`: ` when pretty).
    #[inline]
    pub(crate) fn key(&mut self, name: &str) {
        write::write_str_escaped(self.out, name, self.escape);
        self.colon();
    }

    #[inline]
    pub(crate) fn colon(&mut self) {
        if self.pretty {
            write::append(self.out, b": ");
        } else {
            self.out.push(b':');
        }
    }

    /// A string value with the configured escaping.
    #[inline]
    pub(crate) fn string(&mut self, text: &str) {
        write::write_str_escaped(self.out, text, self.escape);
    }

    /// Encodes through a layout function that wants an
    /// [`EncodeSlotFn`](jitson_core::layout::EncodeSlotFn) callback (`into`
    /// conversions). `call` receives the callback and its context and returns
    /// what the layout function returned; `message` is where a refused
    /// conversion leaves its text.
    ///
    /// # Safety
    /// `call` must pass the callback a pointer to a live value of `layout`.
    pub(crate) unsafe fn encode_through(
        &mut self,
        layout: &'static TypeLayout,
        call: impl FnOnce(jitson_core::layout::EncodeSlotFn, *mut c_void, *mut Option<Box<str>>) -> bool,
    ) -> Result<(), Error> {
        // SAFETY: forwarded from the caller; `write` is given a live value of
        // `layout`.
        unsafe {
            self.write_through(call, &mut |emitter, value| {
                emitter.encode_value(layout, value)
            })
        }
    }

    /// [`encode_through`](Self::encode_through), with `write` doing what is
    /// done with the value the layout function passes (an internally tagged
    /// variant writes a converted payload's members, not the payload).
    ///
    /// # Safety
    /// `call` must pass the callback a pointer to a live value of the type
    /// `write` reads.
    pub(crate) unsafe fn write_through(
        &mut self,
        call: impl FnOnce(jitson_core::layout::EncodeSlotFn, *mut c_void, *mut Option<Box<str>>) -> bool,
        write: &mut dyn FnMut(&mut Emitter<'o>, *const u8) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut message = None;
        let mut ctx = SlotContext {
            emitter: self,
            write,
            error: None,
        };
        let ok = call(encode_slot, (&raw mut ctx).cast(), &raw mut message);
        if ok {
            return Ok(());
        }
        match (ctx.error.take(), message) {
            (Some(e), _) => Err(e),
            (None, Some(text)) => Err(encode_error(ErrorCode::Conversion(text))),
            (None, None) => Err(encode_error(ErrorCode::Panicked)),
        }
    }
}

/// What [`encode_slot`] needs: the emitter, what to do with the value, and
/// room for the error.
pub(crate) struct SlotContext<'e, 'o> {
    pub(crate) emitter: &'e mut Emitter<'o>,
    pub(crate) write: &'e mut dyn FnMut(&mut Emitter<'o>, *const u8) -> Result<(), Error>,
    pub(crate) error: Option<Error>,
}

/// The interpreter's [`EncodeSlotFn`](jitson_core::layout::EncodeSlotFn).
///
/// # Safety
/// `ctx` points to a live `SlotContext`; `value` to a live value of the type
/// its `write` reads.
pub(crate) unsafe extern "C" fn encode_slot(ctx: *mut c_void, value: *const u8) -> bool {
    // SAFETY: `write_through` passes its own `SlotContext`, alive for the
    // call, and the layout function a live value of that type.
    unsafe {
        let ctx = &mut *ctx.cast::<SlotContext<'_, '_>>();
        match (ctx.write)(ctx.emitter, value) {
            Ok(()) => true,
            Err(e) => {
                ctx.error = Some(e);
                false
            }
        }
    }
}

/// Whether a `skip_serializing_if` predicate (a field's or a tuple
/// element's), if there is one, leaves out the value at `value`. A panic in
/// the predicate is `ErrorCode::Panicked`, its payload stashed.
///
/// # Safety
/// `value` points to a live value of the type the predicate reads.
#[inline(always)]
pub(crate) unsafe fn skipped(
    skip_if: Option<jitson_core::layout::SkipFn>,
    value: *const u8,
) -> Result<bool, Error> {
    let Some(skip_if) = skip_if else {
        return Ok(false);
    };
    let mut skip = false;
    // SAFETY: as the caller guarantees.
    if !unsafe { skip_if(value, &raw mut skip) } {
        return Err(encode_error(ErrorCode::Panicked));
    }
    Ok(skip)
}

/// Adds a path segment to an error on its way out.
#[inline(always)]
pub(crate) fn at_segment(mut e: Error, segment: impl FnOnce() -> PathSegment) -> Error {
    e.push_path(segment());
    e
}
