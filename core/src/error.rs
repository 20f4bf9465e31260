//! The error type shared by every backend.
//!
//! As in serde_json (`src/error.rs`), [`Error`] is a box around the details, so a
//! `Result<T, Error>` stays one word wider than `T`. A backend only knows an
//! [`ErrorCode`] and the byte offset where it stopped; line and column are derived
//! from the input in cold code when the error is built, and the JSON path is added
//! on the way out, one segment per enclosing field or element.

use core::fmt;

/// What went wrong, in categories a caller can act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input is not JSON: a stray character, a bad escape, a malformed number,
    /// a trailing comma, characters after the value.
    Syntax,
    /// The input ended inside a value.
    UnexpectedEnd,
    /// A JSON value of the wrong type for the target (a string for an `i64`).
    InvalidType,
    /// A value of the right type that the target does not accept (an unknown enum
    /// variant, a string of two characters for a `char`).
    InvalidValue,
    /// An array of the wrong length for a fixed-size array.
    InvalidLength,
    /// A number outside the range of the target (`300` for a `u8`, `1e400`).
    NumberOutOfRange,
    /// A required field was absent.
    MissingField,
    /// A key named no field of a struct that denies unknown fields.
    UnknownField,
    /// A key appeared twice in one object decoded as a struct.
    DuplicateField,
    /// Decoded nesting went deeper than the decoder's depth limit.
    DepthLimit,
    /// `from_slice` input that is not UTF-8 inside a string.
    InvalidUtf8,
    /// The requested backend cannot run here.
    BackendUnavailable,
    /// Reading the input failed (`from_reader`).
    Io,
    /// The type has a shape no backend decodes (a flattened field that is
    /// neither a struct, an `Option` of one, nor a map); reported by `warm_up` and
    /// by every decode.
    UnsupportedType,
}

/// serde_json's error categories, for comparing with it: its `Error::classify()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    /// Not valid JSON (serde_json also files the recursion limit and float overflow here).
    Syntax,
    /// Input ended early.
    Eof,
    /// Valid JSON that does not fit the type.
    Data,
    /// Not about the input at all (an unavailable backend, a type no backend
    /// decodes).
    Backend,
    /// Reading the input failed.
    Io,
}

/// The JSON type found where another was expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Found {
    Null,
    Bool,
    Integer,
    Float,
    String,
    Array,
    Object,
    /// An enum's variant named without its data (`"Point"` for a struct variant).
    UnitVariant,
    /// An escaped string handed to a type that borrows bytes (`&[u8]`): serde_json
    /// gives its unescaped bytes as a byte array.
    Bytes,
}

impl Found {
    fn describe(self) -> &'static str {
        match self {
            Found::Null => "null",
            Found::Bool => "boolean",
            Found::Integer => "integer",
            Found::Float => "floating point",
            Found::String => "string",
            Found::Array => "sequence",
            Found::Object => "map",
            Found::UnitVariant => "unit variant",
            Found::Bytes => "byte array",
        }
    }
}

/// The precise failure, named after the grammar production or the check that
/// failed. Backends produce these; users see [`ErrorKind`] and the message.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    EofWhileParsingValue,
    EofWhileParsingString,
    EofWhileParsingList,
    EofWhileParsingObject,
    EofWhileParsingNumber,
    ExpectedColon,
    ExpectedListCommaOrEnd,
    ExpectedObjectCommaOrEnd,
    ExpectedSomeIdent,
    ExpectedSomeValue,
    KeyMustBeAString,
    InvalidEscape,
    InvalidNumber,
    FloatOutOfRange,
    ControlCharacterWhileParsingString,
    /// A `\u` escape with an unpaired surrogate (serde_json's "lone leading
    /// surrogate", which it says of a lone trailing one too).
    LoneSurrogate,
    /// A leading surrogate's escape followed by something other than `\u`.
    UnexpectedEndOfHexEscape,
    TrailingComma,
    TrailingCharacters,
    /// A 128-bit integer too large for its type (serde_json files it under syntax).
    NumberOutOfRange,
    /// A map key for an integer or float type that does not start like a number.
    ExpectedNumericKey,
    /// A number in a map key followed by something other than the closing quote.
    ExpectedDoubleQuote,
    InvalidUtf8,
    DepthLimitExceeded,
    /// A `serde_json::Value` nested as deep as [`VALUE_MAX_DEPTH`] counts
    /// (serde_json's recursion limit, counted as `max_depth` is), whatever
    /// the decoder's depth limit: dropping a `Value` recurses.
    ValueTooDeep,
    /// The thread's stack would not hold another level of nesting (see
    /// [`crate::stack`]); a depth error, reported before the depth limit.
    StackExhausted,
    /// `value` is the scalar found, as serde writes it in messages (`"2"` for a
    /// string, `` `5` `` for a number or bool), `None` for null, arrays, objects.
    InvalidType {
        found: Found,
        expected: &'static str,
        value: Option<Box<str>>,
    },
    IntOutOfRange {
        expected: &'static str,
        value: i128,
    },
    /// A string for a `char` that is not one character: the string, as serde
    /// writes it (`"ab"`), and what was expected ("a character").
    NotOneChar {
        value: Box<str>,
        expected: &'static str,
    },
    /// `expected` is serde's list of the names (see [`expected_names`]).
    UnknownVariant {
        variant: Box<str>,
        enum_name: &'static str,
        expected: Box<str>,
    },
    InvalidLength {
        expected: usize,
        found: usize,
    },
    /// A tuple (or tuple struct, tuple variant) array with too few elements;
    /// `expected` is serde's phrase ("a tuple of size 2").
    TupleLength {
        found: usize,
        expected: &'static str,
    },
    /// More elements than a tuple or array holds, inside a value serde buffers
    /// (a tagged or untagged enum's): serde then counts them all.
    SeqTooLong {
        found: usize,
        expected: usize,
    },
    /// A `try_from` conversion, or a field's serde deserializer, refused the
    /// value; its error's text.
    Conversion(Box<str>),
    /// No variant of an untagged enum decoded the value.
    NoMatchingVariant {
        enum_name: &'static str,
    },
    MissingField(&'static str),
    /// `expected` is serde's list of the field names (see [`expected_names`]),
    /// empty for a struct with flattened fields (serde lists none then).
    UnknownField {
        name: Box<str>,
        expected: Box<str>,
    },
    /// A key other than the tag and the content in an adjacently tagged
    /// object that denies unknown fields (serde reports an invalid value).
    UnknownTagOrContent {
        name: Box<str>,
        tag: &'static str,
        content: &'static str,
    },
    DuplicateField(&'static str),
    /// User code panicked; the facade resumes the panic instead of returning this.
    Panicked,
    BackendUnavailable(&'static str),
    /// Reading the input failed, with the I/O error's message.
    Io(Box<str>),
    /// Encoding: a map key that is a float and not finite (serde_json's refusal).
    FloatKeyMustBeFinite,
    /// Encoding: a layout built for decoding only (a run-time column layout), or
    /// a value serde refuses to write; the text says which.
    NotEncodable(Box<str>),
    /// A value of a line-delimited stream (`decode_lines`) continues past the
    /// end of its line.
    NotLineDelimited,
    /// A type no backend decodes, with what and why.
    UnsupportedType(Box<str>),
}

impl ErrorCode {
    /// The public kind of this code.
    pub fn kind(&self) -> ErrorKind {
        use ErrorCode::*;
        match self {
            EofWhileParsingValue
            | EofWhileParsingString
            | EofWhileParsingList
            | EofWhileParsingObject
            | EofWhileParsingNumber => ErrorKind::UnexpectedEnd,
            ExpectedColon
            | ExpectedListCommaOrEnd
            | ExpectedObjectCommaOrEnd
            | ExpectedSomeIdent
            | ExpectedSomeValue
            | KeyMustBeAString
            | InvalidEscape
            | InvalidNumber
            | ControlCharacterWhileParsingString
            | LoneSurrogate
            | UnexpectedEndOfHexEscape
            | TrailingComma
            | TrailingCharacters
            | ExpectedNumericKey
            | ExpectedDoubleQuote
            | FloatKeyMustBeFinite
            | NotLineDelimited
            | Panicked => ErrorKind::Syntax,
            FloatOutOfRange | NumberOutOfRange | IntOutOfRange { .. } => {
                ErrorKind::NumberOutOfRange
            }
            InvalidUtf8 => ErrorKind::InvalidUtf8,
            DepthLimitExceeded | ValueTooDeep | StackExhausted => ErrorKind::DepthLimit,
            InvalidType { .. } => ErrorKind::InvalidType,
            NotOneChar { .. }
            | UnknownVariant { .. }
            | NoMatchingVariant { .. }
            | Conversion(_)
            | NotEncodable(_) => ErrorKind::InvalidValue,
            InvalidLength { .. } | TupleLength { .. } | SeqTooLong { .. } => {
                ErrorKind::InvalidLength
            }
            MissingField(_) => ErrorKind::MissingField,
            UnknownField { .. } | UnknownTagOrContent { .. } => ErrorKind::UnknownField,
            DuplicateField(_) => ErrorKind::DuplicateField,
            BackendUnavailable(_) => ErrorKind::BackendUnavailable,
            Io(_) => ErrorKind::Io,
            UnsupportedType(_) => ErrorKind::UnsupportedType,
        }
    }

    fn category(&self) -> Category {
        match self.kind() {
            ErrorKind::UnexpectedEnd => Category::Eof,
            ErrorKind::Syntax | ErrorKind::DepthLimit | ErrorKind::InvalidUtf8 => Category::Syntax,
            ErrorKind::NumberOutOfRange
                if matches!(
                    self,
                    ErrorCode::FloatOutOfRange | ErrorCode::NumberOutOfRange
                ) =>
            {
                Category::Syntax
            }
            ErrorKind::BackendUnavailable | ErrorKind::UnsupportedType => Category::Backend,
            ErrorKind::Io => Category::Io,
            _ => Category::Data,
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ErrorCode::*;
        match self {
            EofWhileParsingValue => f.write_str("EOF while parsing a value"),
            EofWhileParsingString => f.write_str("EOF while parsing a string"),
            EofWhileParsingList => f.write_str("EOF while parsing a list"),
            EofWhileParsingObject => f.write_str("EOF while parsing an object"),
            // serde_json's words for any number cut short (the code stays apart:
            // in a skipped number serde_json says `invalid number`, difference 4).
            EofWhileParsingNumber => f.write_str("EOF while parsing a value"),
            ExpectedColon => f.write_str("expected `:`"),
            ExpectedListCommaOrEnd => f.write_str("expected `,` or `]`"),
            ExpectedObjectCommaOrEnd => f.write_str("expected `,` or `}`"),
            ExpectedSomeIdent => f.write_str("expected ident"),
            ExpectedSomeValue => f.write_str("expected value"),
            KeyMustBeAString => f.write_str("key must be a string"),
            InvalidEscape => f.write_str("invalid escape"),
            InvalidNumber => f.write_str("invalid number"),
            FloatOutOfRange | NumberOutOfRange => f.write_str("number out of range"),
            ControlCharacterWhileParsingString => {
                f.write_str("control character (\\u0000-\\u001F) found while parsing a string")
            }
            LoneSurrogate => f.write_str("lone leading surrogate in hex escape"),
            UnexpectedEndOfHexEscape => f.write_str("unexpected end of hex escape"),
            TrailingComma => f.write_str("trailing comma"),
            TrailingCharacters => f.write_str("trailing characters"),
            ExpectedNumericKey => {
                f.write_str("invalid value: expected key to be a number in quotes")
            }
            ExpectedDoubleQuote => f.write_str("expected `\"`"),
            InvalidUtf8 => f.write_str("invalid unicode code point"),
            DepthLimitExceeded => f.write_str("recursion limit exceeded"),
            ValueTooDeep => write!(
                f,
                "recursion limit exceeded: a serde_json::Value is limited to {VALUE_MAX_DEPTH} \
                 levels (serde_json's recursion limit), whatever the decoder's depth limit"
            ),
            StackExhausted => {
                f.write_str("recursion limit exceeded: the thread's stack is nearly full")
            }
            InvalidType {
                found,
                expected,
                value,
            } => match value {
                Some(value) => write!(
                    f,
                    "invalid type: {} {value}, expected {expected}",
                    found.describe()
                ),
                None => write!(f, "invalid type: {}, expected {expected}", found.describe()),
            },
            IntOutOfRange { expected, value } => {
                write!(f, "invalid value: integer `{value}`, expected {expected}")
            }
            NotOneChar { value, expected } => {
                write!(f, "invalid value: string {value}, expected {expected}")
            }
            UnknownVariant {
                variant, expected, ..
            } => write!(f, "unknown variant `{variant}`, {expected}"),
            InvalidLength { expected, found } => {
                write!(
                    f,
                    "invalid length {found}, expected an array of length {expected}"
                )
            }
            TupleLength { found, expected } => {
                write!(f, "invalid length {found}, expected {expected}")
            }
            SeqTooLong { found, expected } => write!(
                f,
                "invalid length {found}, expected {expected} elements in sequence"
            ),
            Conversion(text) => f.write_str(text),
            NoMatchingVariant { enum_name } => write!(
                f,
                "data did not match any variant of untagged enum {enum_name}"
            ),
            MissingField(name) => write!(f, "missing field `{name}`"),
            UnknownField { name, expected } if expected.is_empty() => {
                write!(f, "unknown field `{name}`")
            }
            UnknownField { name, expected } => write!(f, "unknown field `{name}`, {expected}"),
            UnknownTagOrContent { name, tag, content } => write!(
                f,
                "invalid value: string {name:?}, expected {tag:?} or {content:?}"
            ),
            DuplicateField(name) => write!(f, "duplicate field `{name}`"),
            Panicked => f.write_str("user code panicked during decoding"),
            BackendUnavailable(why) => write!(f, "backend unavailable: {why}"),
            Io(message) => write!(f, "I/O error: {message}"),
            FloatKeyMustBeFinite => f.write_str("float key must be finite (got NaN or +/-inf)"),
            NotEncodable(text) => f.write_str(text),
            UnsupportedType(why) => write!(f, "unsupported type: {why}"),
            NotLineDelimited => f.write_str(
                "not line-delimited: the value continues past the end of its line \
                 (decode_lines reads one value per line; values() reads values that span lines)",
            ),
        }
    }
}

/// How deeply a `serde_json::Value` may nest, whatever the decoder's depth
/// limit: serde_json's default recursion limit, counted as `max_depth` counts
/// (the 128th nested container is refused, as serde_json refuses it).
pub const VALUE_MAX_DEPTH: usize = 128;

/// serde's words for what a name could have been: "expected `a`", "expected `a`
/// or `b`", "expected one of `a`, `b`, `c`", or "there are no {what}" when there
/// is nothing (`what`: "fields", "variants").
pub fn expected_names<'a>(names: impl IntoIterator<Item = &'a str>, what: &str) -> Box<str> {
    let names: Vec<&str> = names.into_iter().collect();
    match names.as_slice() {
        [] => format!("there are no {what}"),
        [one] => format!("expected `{one}`"),
        [a, b] => format!("expected `{a}` or `{b}`"),
        many => {
            let list: Vec<String> = many.iter().map(|n| format!("`{n}`")).collect();
            format!("expected one of {}", list.join(", "))
        }
    }
    .into_boxed_str()
}

/// One step of a JSON path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathSegment {
    /// A struct field, by its JSON name.
    Field(&'static str),
    /// A map entry, by its key.
    Key(Box<str>),
    /// An array element, 0-based.
    Index(usize),
}

/// A decoding error: what went wrong ([`kind`](Error::kind)), where in the input
/// ([`offset`](Error::offset), [`line`](Error::line), [`column`](Error::column)) and
/// where in the value ([`path`](Error::path), like `$.statuses[3].user.id`).
pub struct Error {
    inner: Box<ErrorImpl>,
}

struct ErrorImpl {
    code: ErrorCode,
    offset: usize,
    line: usize,
    column: usize,
    /// Line and column are still to be counted from the input
    /// ([`Error::at_offset`], [`Error::placed`]).
    unplaced: bool,
    /// Innermost segment first: segments are pushed while the error travels out.
    path_rev: Vec<PathSegment>,
}

impl Error {
    /// An error at byte `offset` of `input`; computes line and column.
    #[cold]
    pub fn at(code: ErrorCode, input: &[u8], offset: usize) -> Error {
        Error::at_offset(code, offset).placed(input)
    }

    /// An error at byte `offset` whose line and column are left to count
    /// ([`placed`](Error::placed)). For the errors of candidates that are
    /// tried and mostly dropped (an untagged enum's variants): counting lines
    /// up to every one of them costs the input's length each time, which made
    /// decoding a document of many untagged values quadratic.
    #[doc(hidden)]
    #[cold]
    pub fn at_offset(code: ErrorCode, offset: usize) -> Error {
        Error {
            inner: Box::new(ErrorImpl {
                code,
                offset,
                line: 0,
                column: 0,
                unplaced: true,
                path_rev: Vec::new(),
            }),
        }
    }

    /// The same error (code and path) at byte `offset`, its line and column
    /// left to count: for a value decoded from text assembled apart from the
    /// input (a flattened enum, from the members its object left over),
    /// reported where the object that held them ends.
    #[doc(hidden)]
    #[cold]
    pub fn moved_to_offset(mut self, offset: usize) -> Error {
        self.inner.offset = offset;
        self.inner.unplaced = true;
        self
    }

    /// This error with its line and column counted in `input` (the input
    /// its offset is in), if they were left to count.
    #[doc(hidden)]
    pub fn placed(mut self, input: &[u8]) -> Error {
        if self.inner.unplaced {
            let offset = self.inner.offset.min(input.len());
            let (line, column) = line_column(input, offset);
            self.inner.offset = offset;
            self.inner.line = line;
            self.inner.column = column;
            self.inner.unplaced = false;
        }
        self
    }

    /// The same error, for a value that was decoded from `input[start..]`: its
    /// offset, line and column become positions in the whole of `input` (values
    /// of a stream, records of NDJSON).
    #[cold]
    pub fn rebased(self, input: &[u8], start: usize) -> Error {
        let offset = start + self.inner.offset;
        self.moved_to_offset(offset).placed(input)
    }

    /// The same error, for a value that was decoded on its own but starts at
    /// byte `offset` of a stream, after `lines` newlines and, on its first
    /// line, `columns` characters (a stream read piece by piece): its
    /// position becomes a position in the stream.
    #[cold]
    pub fn moved_to(mut self, offset: usize, lines: usize, columns: usize) -> Error {
        if self.inner.line == 1 {
            self.inner.column += columns;
        }
        self.inner.offset += offset;
        self.inner.line += lines;
        self
    }

    /// An error not tied to input (an unavailable backend).
    #[cold]
    pub fn without_position(code: ErrorCode) -> Error {
        Error {
            inner: Box::new(ErrorImpl {
                code,
                offset: 0,
                line: 0,
                column: 0,
                unplaced: false,
                path_rev: Vec::new(),
            }),
        }
    }

    /// Prepends `segment` to the path (called by each enclosing container).
    #[cold]
    pub fn push_path(&mut self, segment: PathSegment) {
        self.inner.path_rev.push(segment);
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.inner.code.kind()
    }

    /// serde_json's category for this error (see [`Category`]).
    pub fn classify(&self) -> Category {
        self.inner.code.category()
    }

    /// The precise code.
    #[doc(hidden)]
    pub fn code(&self) -> &ErrorCode {
        &self.inner.code
    }

    /// Byte offset in the input where decoding stopped: the first byte that could not
    /// be accepted, or the input length when the input ended early.
    pub fn offset(&self) -> usize {
        self.inner.offset
    }

    /// 1-based line of [`offset`](Error::offset) (0 for errors not about the input).
    pub fn line(&self) -> usize {
        self.inner.line
    }

    /// 1-based column, in characters, of [`offset`](Error::offset) (0 for errors not
    /// about the input).
    pub fn column(&self) -> usize {
        self.inner.column
    }

    /// The path from the root value to the value that failed, outermost first.
    pub fn path_segments(&self) -> impl Iterator<Item = &PathSegment> {
        self.inner.path_rev.iter().rev()
    }

    /// The path as text: `$` for the root, then `.field`, `[index]`, and `.key` or
    /// `["key"]` for map keys that are not plain identifiers.
    pub fn path(&self) -> String {
        let mut out = String::from("$");
        for segment in self.path_segments() {
            push_segment(&mut out, segment);
        }
        out
    }

    /// The path as [`Display`](fmt::Display) prints it: [`path`](Error::path),
    /// with the middle of a path longer than [`SHOWN_SEGMENTS`] segments elided
    /// (`$.a.b…(250 segments)….y.z`), so a depth error stays one line.
    fn short_path(&self) -> String {
        let segments = &self.inner.path_rev;
        if segments.len() <= SHOWN_SEGMENTS {
            return self.path();
        }
        let half = SHOWN_SEGMENTS / 2;
        let mut out = String::from("$");
        for segment in segments.iter().rev().take(half) {
            push_segment(&mut out, segment);
        }
        out.push_str(&format!("…({} segments)…", segments.len() - 2 * half));
        for segment in segments[..half].iter().rev() {
            push_segment(&mut out, segment);
        }
        out
    }
}

/// How many segments of a path an error's message shows at most: the first
/// and last half of them, with the middle elided.
const SHOWN_SEGMENTS: usize = 16;

fn push_segment(out: &mut String, segment: &PathSegment) {
    match segment {
        PathSegment::Field(name) => push_name(out, name),
        PathSegment::Key(key) => push_name(out, key),
        PathSegment::Index(i) => {
            out.push('[');
            out.push_str(&i.to_string());
            out.push(']');
        }
    }
}

fn push_name(out: &mut String, name: &str) {
    let plain = !name.is_empty()
        && !name.as_bytes()[0].is_ascii_digit()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if plain {
        out.push('.');
        out.push_str(name);
    } else {
        out.push_str("[\"");
        for c in name.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push_str("\"]");
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.inner.code)?;
        if self.inner.line == 0 && !self.inner.path_rev.is_empty() {
            // An encoding error: no input, but a place in the value.
            write!(f, " at {}", self.path())?;
        }
        if self.inner.line != 0 {
            write!(
                f,
                " at {} (line {} column {}, byte {})",
                self.short_path(),
                self.inner.line,
                self.inner.column,
                self.inner.offset
            )?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.kind())
            .field("code", &self.inner.code)
            .field("offset", &self.inner.offset)
            .field("line", &self.inner.line)
            .field("column", &self.inner.column)
            .field("path", &self.path())
            .finish()
    }
}

impl std::error::Error for Error {}

/// 1-based line and column (in characters) of byte `offset` of `input`, as
/// every [`Error`] gives them.
pub fn line_column(input: &[u8], offset: usize) -> (usize, usize) {
    let before = &input[..offset];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    // Columns count characters, not bytes, so count UTF-8 lead bytes.
    let column = 1 + before[line_start..]
        .iter()
        .filter(|&&b| (b as i8) >= -0x40)
        .count();
    (line, column)
}
