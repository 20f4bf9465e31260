//! jitson-fallback: the interpreter backend.
//!
//! The interpreter walks a [`TypeLayout`] while it parses, and writes each value
//! straight at its destination: a struct field at its offset, a `Vec` element into
//! the vector's reserved capacity. It is the reference semantics that the JIT must
//! reproduce, and the backend used wherever the JIT cannot run.
//!
//! # When is this used?
//!
//! - `Backend::Interpreter`, or `Backend::Auto` with `JITSON_DISABLE_JIT=1`.
//! - On targets without a Cranelift backend, or where executable memory is refused.
//! - For layouts or subtrees the JIT does not compile.
//!
//! # Shape
//!
//! One module per kind under `kind/`, each a set of `Parser` methods named after
//! serde_json's productions (`parse_*` yields a value, `ignore_*` discards one).
//! The JIT's `emit_*` functions mirror them one to one.
//!
//! # Contract of every `decode_*` method
//!
//! `dst` points to uninitialised memory of the layout's size and alignment. On `Ok`
//! the memory holds a valid value; on `Err` it holds nothing: whatever was written
//! has been dropped, exactly once. Nesting of decoded containers is limited by
//! [`Options::max_depth`]; skipped values are skipped iteratively, without limit.
//!
//! # Cost
//!
//! One indirect call per container growth, per `Option`/`Box`/map value (the std
//! types are reached through their layout's functions); no allocation apart from
//! the values themselves and, for strings with escapes, one scratch buffer per
//! decode.

use core::ffi::c_void;

use jitson_core::brackets;
use jitson_core::elements::FirstChunk;
use jitson_core::error::{Error, ErrorCode, Found, PathSegment};
use jitson_core::layout::{KeyOrders, Kind, MapLayout, SkipMode, StructLayout, TypeLayout};
use jitson_core::text::{self, LexError};

pub mod encode;
mod kind;

pub use kind::enum_::may_start_with;

/// Interpreter settings.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// How many decoded containers (arrays, objects) may be nested; like
    /// serde_json's recursion limit, the container that would reach this depth is
    /// rejected. serde_json's default is 128.
    pub max_depth: u32,
    /// Check that strings are UTF-8 (input from `&[u8]`); `false` for `&str` input.
    pub validate_utf8: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_depth: 128,
            validate_utf8: true,
        }
    }
}

/// Why no backend decodes `root`, if something reachable from it has a shape
/// the backends refuse (a flattened field that is neither a struct, a map
/// with owned keys, an enum that borrows nothing, nor an `Option` of those;
/// serde flattens more, through its buffer). Decoding such a
/// type fails on every document with [`ErrorCode::UnsupportedType`]; the facade's
/// `warm_up` asks this first, so that a service learns it at start-up.
pub fn unsupported(root: &'static TypeLayout) -> Option<String> {
    refused_flatten(
        root,
        kind::struct_::flattenable,
        kind::struct_::unflattenable,
    )
}

/// The first flattened field reachable from `root` whose layout `takes`
/// refuses, in `why`'s words.
fn refused_flatten(
    root: &'static TypeLayout,
    takes: fn(&'static TypeLayout) -> bool,
    why: fn(&StructLayout, &str) -> String,
) -> Option<String> {
    let mut refused = None;
    jitson_core::layout::visit_reachable(root, |layout| {
        if let (None, Kind::Struct(st)) = (&refused, &layout.kind) {
            refused = st
                .flatten
                .iter()
                .find(|f| !takes(f.layout.get()))
                .map(|f| why(st, f.name));
        }
    });
    refused
}

/// Why values of `root` cannot be encoded by any backend, if they cannot: a
/// flattened field whose type the encoder does not flatten (a struct, a map,
/// an `Option`, `Box` or newtype of one; serde also flattens enums). Checked by
/// `warm_up_encode` before any value, so a type that cannot be encoded is
/// refused at start-up rather than on every request.
pub fn unsupported_encode(root: &'static TypeLayout) -> Option<String> {
    refused_flatten(
        root,
        kind::struct_::encode_flattenable,
        kind::struct_::unencodable_flatten,
    )
}

/// Decodes the JSON document `input` into `dst`, described by `layout`.
///
/// The document is one value with optional whitespace around it. On success `dst`
/// holds the value; on failure it holds nothing (everything written was dropped).
/// If user code panicked during the decode, the error's code is
/// `ErrorCode::Panicked` or another error raised while cleaning up, and the payload
/// is pending in [`jitson_core::panic`]; the caller must resume it.
///
/// # Safety
/// `dst` must be valid for writes of `layout.size` bytes, aligned to `layout.align`,
/// and `layout` must describe the type the caller will read from `dst` (which
/// [`jitson_core::Decode`] guarantees for `T::LAYOUT`). When
/// `options.validate_utf8` is false, `input` must be valid UTF-8.
pub unsafe fn decode(
    input: &[u8],
    layout: &'static TypeLayout,
    dst: *mut u8,
    options: &Options,
) -> Result<(), Error> {
    let mut first = FirstChunk::new();
    let parser = Parser::new(input, options, jitson_core::stack::limit(), &mut first);
    // SAFETY: forwarded from the caller.
    unsafe { decode_document(parser, layout, dst) }
}

/// [`decode`], also recording in `key_orders` the order of the keys of the first
/// object of each struct layout met (see [`KeyOrders`]), for the JIT to speculate
/// on. Used on a type's first decode, while its compile waits.
///
/// # Safety
/// As for [`decode`].
pub unsafe fn decode_learning(
    input: &[u8],
    layout: &'static TypeLayout,
    dst: *mut u8,
    options: &Options,
    key_orders: &mut KeyOrders,
) -> Result<(), Error> {
    let mut first = FirstChunk::new();
    let mut parser = Parser::new(input, options, jitson_core::stack::limit(), &mut first);
    parser.key_orders = Some(key_orders);
    // SAFETY: forwarded from the caller.
    unsafe { decode_document(parser, layout, dst) }
}

/// Decodes the first JSON value of `input` (leading whitespace allowed) into
/// `dst`, as [`decode`] does a whole document, and returns the offset just
/// after it; what follows is not read (the values of a stream, each parsed
/// once). With `key_orders`, records key orders as [`decode_learning`].
///
/// # Safety
/// As for [`decode`].
pub unsafe fn decode_prefix(
    input: &[u8],
    layout: &'static TypeLayout,
    dst: *mut u8,
    options: &Options,
    key_orders: Option<&mut KeyOrders>,
) -> Result<usize, Error> {
    let mut first = FirstChunk::new();
    let mut parser = Parser::new(input, options, jitson_core::stack::limit(), &mut first);
    parser.key_orders = key_orders;
    // SAFETY: forwarded from the caller.
    unsafe { parser.decode_value(layout, dst)? };
    Ok(parser.pos)
}

/// A whole document: one value, then nothing but whitespace.
///
/// # Safety
/// As for [`decode`].
unsafe fn decode_document(
    mut parser: Parser<'_>,
    layout: &'static TypeLayout,
    dst: *mut u8,
) -> Result<(), Error> {
    // SAFETY: forwarded from the caller.
    unsafe { parser.decode_value(layout, dst)? };
    let input = parser.input;
    let end = text::skip_ws(input, parser.pos);
    if end < input.len() {
        // SAFETY: `decode_value` succeeded, so `dst` holds a live value, dropped once here.
        unsafe { drop_value(layout, dst) };
        return Err(Error::at(ErrorCode::TrailingCharacters, input, end));
    }
    Ok(())
}

/// Decodes one value of `layout` starting at `*pos` (leading whitespace allowed),
/// with `*remaining_depth` decoded containers still allowed; on success advances
/// `*pos` past the value. The depth is restored before returning.
///
/// This is how the JIT hands a value it does not handle on its fast path (an
/// escape, a long number, a kind it does not lower, any error) to the interpreter:
/// same input, same position, same depth, hence the same result; `buffering`
/// says what serde would have buffered around the value. `stack_limit`
/// is the decode's stack limit ([`jitson_core::stack::limit`], taken when the
/// whole decode began); vectors are decoded onto `elements`, the decode's element
/// stack (the JIT's own: this value nests inside what the JIT has pushed).
///
/// # Safety
/// As for [`decode`]; `*pos` is at most `input.len()`.
#[allow(clippy::too_many_arguments, reason = "the JIT's state, field by field")]
pub unsafe fn decode_value_at(
    input: &[u8],
    pos: &mut usize,
    remaining_depth: u32,
    stack_limit: usize,
    elements: &mut jitson_core::elements::Elements,
    layout: &'static TypeLayout,
    dst: *mut u8,
    validate_utf8: bool,
    buffering: Buffering,
) -> Result<(), Error> {
    let mut parser = Parser::resuming(
        input,
        *pos,
        (remaining_depth, stack_limit),
        elements,
        validate_utf8,
        buffering,
    );
    // SAFETY: forwarded from the caller.
    unsafe { parser.decode_value(layout, dst)? };
    *pos = parser.pos;
    Ok(())
}

/// The key of a map whose keys are parsed from their text (`HashMap<u64, _>`,
/// a unit enum as key), `*pos` at the key's opening quote, then the `:` after
/// it: decodes the key of `map` into `dst` as serde_json reads keys (see
/// `decode_map_key`), and on success leaves `*pos` just after the colon.
///
/// This is how the JIT's map loop has keys it does not lower parsed: one
/// definition of what a key is, for both backends. The other arguments are as
/// for [`decode_value_at`]; nothing is written to `dst` on error.
///
/// # Safety
/// As for [`decode_value_at`]; `dst` is room for a key of `map`.
#[allow(clippy::too_many_arguments, reason = "the JIT's state, field by field")]
pub unsafe fn decode_map_key_at(
    input: &[u8],
    pos: &mut usize,
    remaining_depth: u32,
    stack_limit: usize,
    elements: &mut jitson_core::elements::Elements,
    map: &'static MapLayout,
    dst: *mut u8,
    validate_utf8: bool,
    buffered: u32,
) -> Result<(), Error> {
    let buffering = Buffering {
        buffered,
        skip_key: None,
    };
    let mut parser = Parser::resuming(
        input,
        *pos,
        (remaining_depth, stack_limit),
        elements,
        validate_utf8,
        buffering,
    );
    // SAFETY: forwarded from the caller; a key is a scalar or a string kind,
    // dropped here if the colon is missing.
    unsafe {
        parser.decode_map_key(map.key.get(), dst)?;
        if let Err(e) = parser.parse_object_colon() {
            drop_value(map.key.get(), dst);
            return Err(e);
        }
    }
    *pos = parser.pos;
    Ok(())
}

/// Drops the value at `dst`, if the layout needs dropping. A panicking `Drop` is
/// caught (and left pending).
///
/// # Safety
/// `dst` holds a live value of `layout`, which is not used again.
unsafe fn drop_value(layout: &TypeLayout, dst: *mut u8) {
    if let Some(drop) = layout.drop {
        // SAFETY: as the caller guarantees.
        unsafe { drop(dst) };
    }
}

/// What serde would have buffered around a value the JIT hands to the
/// interpreter ([`decode_value_at`]): inside an untagged enum's candidate or an
/// internally tagged payload, serde decodes from its buffered content, which
/// checks skipped values more strictly (numbers evaluated, depth limited) and
/// counts the elements of a too-long fixed array.
#[derive(Clone, Copy, Debug, Default)]
pub struct Buffering {
    /// How many enclosing values serde buffered (0: none).
    pub buffered: u32,
    /// An internally tagged enum's tag, when the value is that enum's payload:
    /// its object skips one member with this key.
    pub skip_key: Option<&'static str>,
}

/// The interpreter's state while decoding one document.
pub(crate) struct Parser<'a> {
    input: &'a [u8],
    /// Offset of the next byte to read.
    pos: usize,
    /// Decoded containers that may still be entered.
    remaining_depth: u32,
    /// The stack address a level may not go below ([`jitson_core::stack`]).
    stack_limit: usize,
    /// Where to record the order of keys per struct layout, when learning.
    key_orders: Option<&'a mut KeyOrders>,
    /// Unescaped text of the last string with escapes.
    scratch: Vec<u8>,
    /// Where vectors' elements are decoded before the vector is allocated.
    elements: Stack<'a>,
    /// A key the next struct or map decoded skips: an internally tagged enum's
    /// tag, when the object is decoded as the variant's payload.
    skip_key: Option<&'static str>,
    /// How many enclosing values serde would have buffered before decoding
    /// (tagged and untagged enums' payloads); a few errors read differently there.
    buffered: u32,
    validate_utf8: bool,
}

/// A parser's element stack: its own, or the one of the JIT decode it serves.
enum Stack<'a> {
    Own(jitson_core::elements::Leased),
    Shared(&'a mut jitson_core::elements::Elements),
}

impl std::ops::Deref for Stack<'_> {
    type Target = jitson_core::elements::Elements;
    fn deref(&self) -> &Self::Target {
        match self {
            Stack::Own(leased) => leased,
            Stack::Shared(elements) => elements,
        }
    }
}

impl std::ops::DerefMut for Stack<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        match self {
            Stack::Own(leased) => leased,
            Stack::Shared(elements) => elements,
        }
    }
}

impl<'a> Parser<'a> {
    /// A parser of `input` from its start, with a stack of its own whose
    /// chunk 0 is `first`.
    fn new(
        input: &'a [u8],
        options: &Options,
        stack_limit: usize,
        first: &'a mut FirstChunk,
    ) -> Self {
        let mut elements = jitson_core::elements::Elements::lease();
        // SAFETY: `first` is borrowed for the parser's lifetime, which the
        // stack (owned by the parser) does not outlive; it cannot move meanwhile.
        unsafe { elements.lend(first) };
        Parser::with_elements(input, options, stack_limit, Stack::Own(elements))
    }

    fn with_elements(
        input: &'a [u8],
        options: &Options,
        stack_limit: usize,
        elements: Stack<'a>,
    ) -> Self {
        Parser {
            input,
            pos: 0,
            remaining_depth: options.max_depth,
            stack_limit,
            key_orders: None,
            scratch: Vec::new(),
            elements,
            skip_key: None,
            buffered: 0,
            validate_utf8: options.validate_utf8,
        }
    }

    /// A parser taking over from the JIT at `pos` of `input`, with its
    /// `(remaining depth, stack limit)`, its element stack and what serde
    /// would have buffered around the value ([`decode_value_at`]).
    fn resuming(
        input: &'a [u8],
        pos: usize,
        (max_depth, stack_limit): (u32, usize),
        elements: &'a mut jitson_core::elements::Elements,
        validate_utf8: bool,
        buffering: Buffering,
    ) -> Self {
        let options = Options {
            max_depth,
            validate_utf8,
        };
        let mut parser =
            Parser::with_elements(input, &options, stack_limit, Stack::Shared(elements));
        parser.pos = pos;
        parser.buffered = buffering.buffered;
        parser.skip_key = buffering.skip_key;
        parser
    }

    /// An error at `offset`.
    #[cold]
    fn error(&self, code: ErrorCode, offset: usize) -> Error {
        self.place(Error::at_offset(code, offset.min(self.input.len())))
    }

    /// An error from the lexical layer.
    #[cold]
    fn lex_error(&self, (code, offset): LexError) -> Error {
        self.error(code, offset)
    }

    /// `e` with its line and column counted, unless the value being decoded is
    /// one serde would have buffered (`buffered > 0`: an untagged enum's
    /// candidate, a tagged payload, a flattened field): errors made there are
    /// mostly dropped by the search that made them, so they are placed only
    /// once they leave every buffered value, by the code that ends the
    /// buffering. Counting lines costs the input up to the error, which for
    /// every dropped candidate made a document of many untagged values
    /// quadratic to decode.
    fn place(&self, e: Error) -> Error {
        if self.buffered == 0 {
            e.placed(self.input)
        } else {
            e
        }
    }

    /// Skips whitespace and returns the next byte without consuming it, or `None` at
    /// the end of the input.
    #[inline(always)]
    fn parse_whitespace(&mut self) -> Option<u8> {
        self.pos = text::skip_ws(self.input, self.pos);
        self.input.get(self.pos).copied()
    }

    /// Skips whitespace and returns the first byte of a value (not consumed).
    #[inline(always)]
    fn peek_value(&mut self) -> Result<u8, Error> {
        match self.parse_whitespace() {
            Some(b) => Ok(b),
            None => Err(self.error(ErrorCode::EofWhileParsingValue, self.input.len())),
        }
    }

    /// Enters a decoded container of `layout` that starts at `self.pos`: one level
    /// of the depth limit, and stack room for the level.
    #[inline(always)]
    fn enter(&mut self, layout: &TypeLayout) -> Result<(), Error> {
        self.remaining_depth -= 1;
        if self.remaining_depth == 0 {
            self.remaining_depth += 1;
            return Err(self.error(ErrorCode::DepthLimitExceeded, self.pos));
        }
        let reserve = jitson_core::stack::level_reserve(layout);
        if !jitson_core::stack::has_room(self.stack_limit, reserve) {
            self.remaining_depth += 1;
            return Err(self.error(ErrorCode::StackExhausted, self.pos));
        }
        Ok(())
    }

    #[inline(always)]
    fn leave(&mut self) {
        self.remaining_depth += 1;
    }

    /// The error for a value of the wrong JSON type at `self.pos`. Like serde_json,
    /// a malformed scalar is reported as the syntax error it is, so the scalar is
    /// validated first; a scalar's value is named in the message, as serde does.
    #[cold]
    fn invalid_type(&mut self, expected: &'static str) -> Error {
        self.invalid_type_code(expected, |found, expected, value| ErrorCode::InvalidType {
            found,
            expected,
            value,
        })
    }

    /// [`invalid_type`](Self::invalid_type) with a choice of code.
    #[cold]
    fn invalid_type_code(
        &mut self,
        expected: &'static str,
        code: impl FnOnce(Found, &'static str, Option<Box<str>>) -> ErrorCode,
    ) -> Error {
        let input = self.input;
        let start = self.pos;
        let quoted = |text: &str| Some(format!("`{text}`").into_boxed_str());
        let found = match input.get(start) {
            None => return self.error(ErrorCode::EofWhileParsingValue, input.len()),
            Some(b'n') => text::parse_ident(input, start + 1, b"ull").map(|_| (Found::Null, None)),
            Some(b't') => {
                text::parse_ident(input, start + 1, b"rue").map(|_| (Found::Bool, quoted("true")))
            }
            Some(b'f') => {
                text::parse_ident(input, start + 1, b"alse").map(|_| (Found::Bool, quoted("false")))
            }
            Some(b'"') => {
                let mut scratch = Vec::new();
                text::parse_str(input, start + 1, &mut scratch, self.validate_utf8).map(
                    |(located, _)| {
                        let text = String::from_utf8_lossy(located.bytes(input, &scratch));
                        (Found::String, Some(format!("{text:?}").into_boxed_str()))
                    },
                )
            }
            // serde_json evaluates the number before reporting its type, so an
            // infinite float is reported as out of range.
            Some(b'-' | b'0'..=b'9') => text::scan_number(input, start).and_then(|n| {
                if n.is_json_integer() {
                    Ok((Found::Integer, quoted(&n.integer().to_string())))
                } else {
                    n.to_f64(input)
                        .map(|f| (Found::Float, quoted(&float_text(f))))
                }
            }),
            Some(b'[') => Ok((Found::Array, None)),
            Some(b'{') => Ok((Found::Object, None)),
            Some(_) => Err((ErrorCode::ExpectedSomeValue, start)),
        };
        match found {
            Ok((found, value)) => self.error(code(found, expected, value), start),
            Err(e) => self.lex_error(e),
        }
    }

    /// Decodes one value of `layout` into `dst` (see the crate docs for the contract).
    ///
    /// # Safety
    /// `dst` is valid, aligned, uninitialised memory for a value of `layout`.
    unsafe fn decode_value(
        &mut self,
        layout: &'static TypeLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        // SAFETY (all arms): forwarded from the caller; each kind writes the type
        // its layout describes.
        unsafe {
            match &layout.kind {
                Kind::Bool => self.decode_bool(layout, dst),
                Kind::I8 => self.decode_int::<i8>(layout, dst),
                Kind::I16 => self.decode_int::<i16>(layout, dst),
                Kind::I32 => self.decode_int::<i32>(layout, dst),
                Kind::I64 => self.decode_int::<i64>(layout, dst),
                Kind::U8 => self.decode_int::<u8>(layout, dst),
                Kind::U16 => self.decode_int::<u16>(layout, dst),
                Kind::U32 => self.decode_int::<u32>(layout, dst),
                Kind::U64 => self.decode_int::<u64>(layout, dst),
                Kind::I128 => self.decode_int128::<i128>(dst),
                Kind::U128 => self.decode_int128::<u128>(dst),
                Kind::F32 => self.decode_float::<f32>(layout, dst),
                Kind::F64 => self.decode_float::<f64>(layout, dst),
                Kind::Char => self.decode_char(layout, dst),
                Kind::String(s) => self.decode_string(layout, s, dst),
                Kind::BorrowedStr(s) => self.decode_borrowed_str(layout, s, dst),
                Kind::RawValue(s) => self.decode_raw(s, dst),
                Kind::Ignored => self.ignore_value(),
                Kind::Option(o) => self.decode_option(o, dst),
                Kind::Box(b) => self.decode_box(b, dst),
                Kind::Vec(v) => self.decode_vec(layout, v, dst),
                Kind::Array(a) => self.decode_array(layout, a, dst),
                Kind::Map(m) => self.decode_map(layout, m, dst),
                Kind::Struct(s) => self.decode_struct(layout, s, dst),
                Kind::Tuple(t) => self.decode_tuple(layout, t, dst),
                Kind::Newtype(n) => self.decode_newtype(n, dst),
                Kind::Unit => self.decode_unit(layout),
                Kind::Convert(c) => self.decode_convert(c, dst),
                Kind::Serde(s) => self.decode_serde(s, false, dst),
                Kind::Enum(e) => self.decode_enum(layout, e, dst),
                Kind::Column(c) => self.decode_column(layout, c, dst),
                Kind::Parsed(p) => self.decode_parsed(layout, p, dst),
            }
        }
    }

    /// Validates and discards one value.
    fn ignore_value(&mut self) -> Result<(), Error> {
        if self.buffered > 0 {
            return self.ignore_value_as_parsed();
        }
        self.pos = text::ignore_value(self.input, self.pos, self.validate_utf8)
            .map_err(|e| self.lex_error(e))?;
        Ok(())
    }

    /// [`ignore_value`](Self::ignore_value) for the value of an object member
    /// no field claims, whose key starts at `key_start`: an error inside the
    /// value has the key in its path.
    fn ignore_member_value(&mut self, key_start: usize) -> Result<(), Error> {
        self.ignore_value()
            .map_err(|e| at_segment(e, || PathSegment::Key(self.key_at(key_start))))
    }

    /// Discards one value as `mode` says: matched by brackets only outside
    /// what serde would buffer, which it checks.
    fn skip_value(&mut self, mode: SkipMode) -> Result<(), Error> {
        if mode.by_brackets(self.buffered) {
            self.pos = brackets::ignore_value_by_brackets(self.input, self.pos, self.validate_utf8)
                .map_err(|e| self.lex_error(e))?;
            return Ok(());
        }
        self.ignore_value()
    }

    /// [`ignore_member_value`](Self::ignore_member_value) for a key that names
    /// no field of a struct, discarded as the struct's `skip` says.
    fn skip_unknown_member(&mut self, key_start: usize, skip: SkipMode) -> Result<(), Error> {
        self.skip_value(skip)
            .map_err(|e| at_segment(e, || PathSegment::Key(self.key_at(key_start))))
    }

    /// [`ignore_value_as_parsed`](Self::ignore_value_as_parsed) for the value of
    /// a member whose key starts at `key_start`, as
    /// [`ignore_member_value`](Self::ignore_member_value).
    fn ignore_member_value_as_parsed(&mut self, key_start: usize) -> Result<(), Error> {
        self.ignore_value_as_parsed()
            .map_err(|e| at_segment(e, || PathSegment::Key(self.key_at(key_start))))
    }

    /// The text of the key whose string starts at `key_start` (its `"`, already
    /// parsed once), for an error's path.
    #[cold]
    fn key_at(&self, key_start: usize) -> Box<str> {
        let mut scratch = Vec::new();
        match text::parse_str(self.input, key_start + 1, &mut scratch, false) {
            Ok((text::StrText::Borrowed { start, end }, _)) => {
                String::from_utf8_lossy(&self.input[start..end]).into()
            }
            Ok((text::StrText::Scratch, _)) => String::from_utf8_lossy(&scratch).into(),
            Err(_) => Box::default(),
        }
    }

    /// Validates and discards one value as serde does a value it buffers or
    /// builds (inside tagged and untagged enums, flattened structs, fields decoded
    /// through serde): numbers evaluated, nesting counted against the depth
    /// limit from the document's root.
    fn ignore_value_as_parsed(&mut self) -> Result<(), Error> {
        self.pos = text::ignore_value_as_parsed(
            self.input,
            self.pos,
            self.validate_utf8,
            self.remaining_depth,
        )
        .map_err(|e| self.lex_error(e))?;
        Ok(())
    }

    /// Decodes a value of `layout` through a layout function that wants a
    /// [`SlotFn`](jitson_core::layout::SlotFn) callback (`Option`, `Box`, maps).
    /// `call` receives the callback and its context and returns what the layout
    /// function returned. On failure returns the callback's error, or
    /// `ErrorCode::Panicked` if the layout function failed on its own (a panicking
    /// `Drop` of a replaced map value).
    ///
    /// # Safety
    /// `call` must pass the callback a slot valid for a value of `layout`.
    unsafe fn decode_through(
        &mut self,
        layout: &'static TypeLayout,
        call: impl FnOnce(jitson_core::layout::SlotFn, *mut c_void) -> bool,
    ) -> Result<(), Error> {
        // SAFETY: forwarded from the caller.
        unsafe { self.decode_through_as(layout, false, call) }
    }

    /// [`decode_through`](Self::decode_through), the callback reading a map
    /// key of `layout` (`decode_map_key`) when `key`, a value otherwise.
    ///
    /// # Safety
    /// As for [`decode_through`](Self::decode_through).
    unsafe fn decode_through_as(
        &mut self,
        layout: &'static TypeLayout,
        key: bool,
        call: impl FnOnce(jitson_core::layout::SlotFn, *mut c_void) -> bool,
    ) -> Result<(), Error> {
        let mut ctx = SlotContext {
            parser: self,
            layout,
            key,
            error: None,
        };
        let ok = call(decode_slot, (&raw mut ctx).cast());
        if ok {
            return Ok(());
        }
        match ctx.error.take() {
            Some(e) => Err(e),
            None => Err(self.error(ErrorCode::Panicked, self.pos)),
        }
    }
}

/// What [`decode_slot`] needs: the parser, the slot's layout, whether the slot
/// is read as a map key, and room for the error.
struct SlotContext<'p, 'a> {
    parser: &'p mut Parser<'a>,
    layout: &'static TypeLayout,
    key: bool,
    error: Option<Error>,
}

/// The interpreter's [`SlotFn`](jitson_core::layout::SlotFn): decodes into `slot`.
///
/// # Safety
/// `ctx` points to a live `SlotContext`; `slot` is valid for its layout.
unsafe extern "C" fn decode_slot(ctx: *mut c_void, slot: *mut u8) -> bool {
    // SAFETY: `decode_through` passes a pointer to its own `SlotContext`, alive for
    // the whole call, and the layout function passes a slot for that layout.
    unsafe {
        let ctx = &mut *ctx.cast::<SlotContext<'_, '_>>();
        let result = if ctx.key {
            ctx.parser.decode_map_key(ctx.layout, slot)
        } else {
            ctx.parser.decode_value(ctx.layout, slot)
        };
        match result {
            Ok(()) => true,
            Err(e) => {
                ctx.error = Some(e);
                false
            }
        }
    }
}

/// A float as serde_json writes it in messages (its `JsonUnexpected`): the
/// text it would encode the float as (`1.0`, `1.8446744073709552e+19`,
/// `1e+23`), from the same formatter.
fn float_text(f: f64) -> String {
    let mut out = Vec::new();
    jitson_core::write::write_f64(&mut out, f);
    String::from_utf8(out).expect("a formatted float is ASCII")
}

/// Adds a path segment to an error on its way out.
#[inline(always)]
fn at_segment(mut e: Error, segment: impl FnOnce() -> PathSegment) -> Error {
    e.push_path(segment());
    e
}
