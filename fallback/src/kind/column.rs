//! Columns (values appended rather than written in place) and scalars parsed from
//! their text. Twin: `jit/src/kind/column.rs`.
//!
//! A column decides where its value goes and commits the row; the value itself is
//! decoded by its own kind, with the code every other destination uses (see
//! `jitson_core::column`).

use jitson_core::column::{Column, ColumnLayout, Conflict, FormatLayout, ParsedLayout, Store};
use jitson_core::error::{Category, Error, ErrorCode, PathSegment};
use jitson_core::layout::TypeLayout;
use jitson_core::text;

use crate::Parser;
use crate::at_segment;
use crate::encode::{Emitter, encode_error};
use crate::kind::seq::AfterElement;

/// Whether `e`, from a column's value that starts with the byte `first`, is a
/// type conflict ([`Conflict::Null`] makes it a null row): at the value itself
/// (not inside it), a data error (the value was valid JSON of another type),
/// or a number out of range where the column reads no numbers at all. That
/// second error is serde_json's, which evaluates a number to name it in its
/// "invalid type" message (`1e400` into a boolean fails so in typed decoding
/// too); arrow-json, like this, makes such a number a null of a boolean, text
/// or list column.
fn is_conflict(e: &Error, column: &ColumnLayout, first: u8) -> bool {
    use jitson_core::layout::Kind;
    let out_of_range = matches!(
        e.code(),
        ErrorCode::NumberOutOfRange | ErrorCode::FloatOutOfRange | ErrorCode::IntOutOfRange { .. }
    );
    let reads_numbers = |layout: &TypeLayout| match &layout.kind {
        Kind::Parsed(parsed) => parsed.from_number.is_some(),
        kind => kind.is_number(),
    };
    // A list column's `value` is its element's layout: the list reads none.
    let column_reads_numbers = column.store != Store::List
        && (reads_numbers(column.value.get())
            || column.lenient.is_some_and(|l| reads_numbers(l.get())));
    // The value itself is of another type, not something inside it: an
    // error a child could not make a null of (a non-nullable child's
    // conflict, null or absence) fails the record, as arrow-json's check of
    // non-nullable children does, rather than nulling this column. So does a
    // value of the right type and the wrong shape, which arrow-json refuses
    // too: a fixed-size list of another length, a struct in list mode with
    // too few or too many values, a key no field names in strict mode.
    let at_this_value = e.path_segments().next().is_none()
        && !matches!(
            e.code(),
            ErrorCode::MissingField(_)
                | ErrorCode::InvalidLength { .. }
                | ErrorCode::TupleLength { .. }
                | ErrorCode::SeqTooLong { .. }
                | ErrorCode::UnknownField { .. }
        );
    at_this_value
        && (e.classify() == Category::Data
            || (out_of_range && matches!(first, b'-' | b'0'..=b'9') && !column_reads_numbers))
}

impl Parser<'_> {
    /// One row of a column: `null` (nullable) as a null row, anything else decoded
    /// by the value's kind into the slot [`Store`] names, then committed. On error
    /// the column is as it was.
    ///
    /// # Safety
    /// `dst` points to a live [`Column`] built for `column`.
    pub(crate) unsafe fn decode_column(
        &mut self,
        layout: &'static TypeLayout,
        column: &ColumnLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        // SAFETY: the caller's guarantee; the column is not aliased during the call
        // (values are decoded into its buffers, or into its children).
        let col = unsafe { &mut *dst.cast::<Column>() };
        let first = self.peek_value()?;
        let start = self.pos;
        if first == b'n' && column.nullable {
            self.pos = text::parse_ident(self.input, self.pos + 1, b"ull")
                .map_err(|e| self.lex_error(e))?;
            col.push_null();
            return Ok(());
        }
        col.reserve_row();
        // SAFETY: each destination is what the value's layout expects (module docs
        // of `jitson_core::column`): a slot of `width` bytes below `cap`, the column
        // itself for text, the children for records.
        let mut result = unsafe {
            match column.store {
                Store::Fixed => {
                    let slot = col.values.add(col.len * col.width);
                    self.decode_value(column.value.get(), slot)
                }
                Store::Append => self.decode_value(column.value.get(), dst),
                Store::Struct => self.decode_value(column.value.get(), col.children.cast()),
                Store::List => self.decode_list(layout, column, col),
            }
        };
        if let (Err(_), Some(lenient), Store::Fixed) = (&result, column.lenient, column.store) {
            // The looser reading, from the value's start, into the same slot (a
            // refused value wrote nothing there).
            self.pos = start;
            // SAFETY: `lenient` writes what `value` writes (`ColumnLayout::lenient`),
            // to the slot of `width` bytes below `cap`.
            let again = unsafe {
                let slot = col.values.add(col.len * col.width);
                self.decode_value(lenient.get(), slot)
            };
            result = match again {
                Err(e) if e.classify() != Category::Data => result,
                again => again,
            };
        }
        match result {
            Ok(()) => {
                col.commit_valid();
                Ok(())
            }
            Err(e)
                if column.conflict == Conflict::Null
                    && column.nullable
                    && is_conflict(&e, column, first) =>
            {
                // arrow-json's `ignore_type_conflicts`: the value (valid JSON, of
                // the wrong type) becomes a null row.
                self.pos = start;
                self.ignore_value()?;
                col.push_null();
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// A JSON array, each element appended to the list's child column (of
    /// exactly [`ColumnLayout::length`] elements when it is set); on error the
    /// child is truncated back to where the list began.
    fn decode_list(
        &mut self,
        layout: &'static TypeLayout,
        column: &ColumnLayout,
        col: &mut Column,
    ) -> Result<(), Error> {
        let elem = column.value.get();
        let child = &mut col.children_mut()[0];
        let begin = child.len;
        let empty = self.begin_seq(layout)?;
        let mut index = 0;
        let result = if empty {
            Ok(())
        } else {
            self.list_elements(elem, child, &mut index)
        };
        self.leave();
        let result = match (result, column.length) {
            (Ok(()), Some(expected)) if index != expected => {
                // At the array's `]`, as serde names an array of the wrong
                // length.
                Err(self.error(
                    ErrorCode::InvalidLength {
                        expected,
                        found: index,
                    },
                    self.pos - 1,
                ))
            }
            (result, _) => result,
        };
        if result.is_err() {
            child.truncate(begin);
        }
        result
    }

    /// The elements of a list that is not empty, up to and including its
    /// `]`, each appended to `child`; `index` counts them.
    fn list_elements(
        &mut self,
        elem: &'static TypeLayout,
        child: &mut Column,
        index: &mut usize,
    ) -> Result<(), Error> {
        loop {
            // SAFETY: the child column is live and `elem` is its column layout.
            if let Err(e) = unsafe { self.decode_value(elem, (&raw mut *child).cast()) } {
                return Err(at_segment(e, || PathSegment::Index(*index)));
            }
            *index += 1;
            match self.end_seq_element()? {
                AfterElement::More => {}
                AfterElement::End => return Ok(()),
            }
        }
    }

    /// A scalar parsed from its text by the layout's functions: a string's
    /// unescaped text, a number's text, or `true`/`false`. Anything else, or a
    /// JSON type with no function, is an invalid type; a function's refusal is an
    /// invalid value with its message.
    ///
    /// # Safety
    /// `dst` is what the functions write to.
    pub(crate) unsafe fn decode_parsed(
        &mut self,
        layout: &'static TypeLayout,
        parsed: &ParsedLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        let first = self.peek_value()?;
        let start = self.pos;
        let (parse, text): (_, &[u8]) = match (first, parsed) {
            (
                b'"',
                ParsedLayout {
                    from_string: Some(f),
                    ..
                },
            ) => (*f, self.parse_str()?),
            (
                b'-' | b'0'..=b'9',
                ParsedLayout {
                    from_number: Some(f),
                    ..
                },
            ) => {
                let n = text::scan_number(self.input, start).map_err(|e| self.lex_error(e))?;
                let number = &self.input[start..n.end];
                if parsed.number_messages && beyond_f64(number) {
                    // A typed value's number is read as serde_json reads
                    // one: beyond `f64`, it is refused before any visitor.
                    return Err(self.error(ErrorCode::FloatOutOfRange, start));
                }
                self.pos = n.end;
                (*f, number)
            }
            (
                b't' | b'f',
                ParsedLayout {
                    from_bool: Some(f), ..
                },
            ) => {
                let rest: &[u8] = if first == b't' { b"rue" } else { b"alse" };
                self.pos = text::parse_ident(self.input, start + 1, rest)
                    .map_err(|e| self.lex_error(e))?;
                (*f, &self.input[start..self.pos])
            }
            _ => return Err(self.invalid_type(layout.expecting)),
        };
        let mut message: Option<Box<str>> = None;
        // SAFETY: `text` is readable for the call; `dst` as the caller guarantees.
        if unsafe { parse(dst, text.as_ptr(), text.len(), parsed.arg, &raw mut message) } {
            return Ok(());
        }
        let number = matches!(first, b'-' | b'0'..=b'9');
        let text = if number && !(parsed.number_messages && message.is_some()) {
            // A number is named as serde names one, never quoted as a string.
            let number = String::from_utf8_lossy(text);
            let what = if number.bytes().all(|b| b == b'-' || b.is_ascii_digit()) {
                "integer"
            } else {
                "floating point"
            };
            format!(
                "invalid value: {what} `{number}`, expected {}",
                layout.expecting
            )
            .into()
        } else {
            message.unwrap_or_else(|| format!("invalid {}", layout.expecting).into())
        };
        Err(self.error(ErrorCode::Conversion(text), start))
    }
}

/// Whether a JSON number's text overflows `f64` (serde_json's "number out of
/// range").
fn beyond_f64(number: &[u8]) -> bool {
    (number.len() > 20 || number.iter().any(|b| matches!(b, b'.' | b'e' | b'E')))
        && core::str::from_utf8(number)
            .ok()
            .and_then(|t| t.parse::<f64>().ok())
            .is_some_and(f64::is_infinite)
}

impl Emitter<'_> {
    /// A scalar written from its text (another crate's type: a timestamp, a
    /// UUID, a decimal): the layout's fast path into reserved room, its general
    /// writer for what the fast path declines.
    ///
    /// # Safety
    /// `src` points to a live value of the layout's type.
    pub(crate) unsafe fn encode_parsed(
        &mut self,
        layout: &'static TypeLayout,
        parsed: &ParsedLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        let Some(format) = parsed.format else {
            return Err(self.not_encodable(layout));
        };
        if !self.escape.is_json() {
            // The options' escapes apply to a copy (the texts these types
            // write are ASCII, so this is rarely more than a copy).
            let mut text = Vec::new();
            // SAFETY: as the caller guarantees.
            unsafe { write_formatted(format, src, &mut text) }?;
            jitson_core::write::write_from_compact(self.out, &text, None, self.escape);
            return Ok(());
        }
        // SAFETY: as the caller guarantees.
        unsafe { write_formatted(format, src, self.out) }
    }
}

/// Appends the text of the value at `src` to `out` through `format`.
///
/// # Safety
/// `src` points to a live value of the type `format` describes.
pub(crate) unsafe fn write_formatted(
    format: &FormatLayout,
    src: *const u8,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    out.reserve(format.max_len);
    let len = out.len();
    // SAFETY: `reserve` made room for `max_len` bytes after `len`, which is what
    // `fast` may write; `src` as the caller guarantees.
    let n = unsafe { (format.fast)(src, out.as_mut_ptr().add(len)) };
    if n != 0 {
        debug_assert!(n <= format.max_len);
        // SAFETY: `fast` initialised `n <= max_len` bytes after `len`.
        unsafe { out.set_len(len + n) };
        return Ok(());
    }
    let mut message = None;
    // SAFETY: as the caller guarantees; `out` and `message` are live.
    if unsafe { (format.write)(src, out, &raw mut message) } {
        return Ok(());
    }
    out.truncate(len);
    let code = message.map_or(ErrorCode::Panicked, ErrorCode::Conversion);
    Err(encode_error(code))
}
