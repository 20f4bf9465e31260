//! Streams of values: NDJSON and whitespace-separated concatenated JSON (what
//! serde_json's `StreamDeserializer` reads), one `T` at a time, from a reader, or
//! on every core.

use std::marker::PhantomData;

use jitson_core::error::ErrorCode;
use jitson_core::text;

use crate::{Decode, DecodeBorrowed, Decoder, Error};

/// The values of `T` in `input`, one after another with optional whitespace
/// between them (NDJSON is one value per line); each item is the value's byte
/// offset in `input` and the value. See [`values`].
#[derive(Debug)]
pub struct Values<'de, T> {
    input: &'de [u8],
    pos: usize,
    decoder: Decoder<T>,
    failed: bool,
    /// The last value's length, counted for tiering before the next is parsed.
    last_len: usize,
    _t: PhantomData<fn() -> T>,
}

/// Iterates over the values of `T` in `input` (NDJSON, or JSON values separated
/// by whitespace), with [`Backend::Auto`](crate::Backend::Auto); strings are
/// checked to be UTF-8.
///
/// Items are `Ok((offset, value))`, `offset` being where the value starts. The
/// first error ends the iteration; its offset, line and column are positions in
/// the whole `input`. A value that borrows (`&'de str` fields) borrows from
/// `input`.
///
/// ```
/// #[derive(jitson::Decode, Debug, PartialEq)]
/// struct Event { id: u32 }
/// let input = b"{\"id\": 1}\n{\"id\": 2}\n";
/// let events: Vec<_> = jitson::values::<Event>(input).collect::<Result<_, _>>().unwrap();
/// assert_eq!(events, [(0, Event { id: 1 }), (10, Event { id: 2 })]);
/// ```
pub fn values<'de, T: DecodeBorrowed<'de>>(input: &'de [u8]) -> Values<'de, T> {
    Decoder::new().values(input)
}

impl<T> Decoder<T> {
    /// [`values`], with this decoder's backend, tiering and depth limit.
    pub fn values<'de>(&self, input: &'de [u8]) -> Values<'de, T>
    where
        T: DecodeBorrowed<'de>,
    {
        Values {
            input,
            pos: 0,
            decoder: *self,
            failed: false,
            last_len: 0,
            _t: PhantomData,
        }
    }
}

impl<'de, T: DecodeBorrowed<'de>> Iterator for Values<'de, T> {
    type Item = Result<(usize, T), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let start = text::skip_ws(self.input, self.pos);
        if start == self.input.len() {
            return None;
        }
        // Each value is parsed once, where it starts; the parser says where it
        // ends. Tiering counts the previous value's length for this one.
        let rest = &self.input[start..];
        let result = self
            .decoder
            .decode_at_start(rest, true, Some(self.last_len))
            .and_then(|(value, len)| match ends_itself_or_is_ended(rest, len) {
                true => Ok((value, len)),
                false => Err(Error::at(ErrorCode::TrailingCharacters, rest, len)),
            });
        match result {
            Ok((value, len)) => {
                self.pos = start + len;
                self.last_len = len;
                Some(Ok((start, value)))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e.rebased(self.input, start)))
            }
        }
    }
}

/// Whether the value `text[..len]` may be followed by what follows it, as in
/// serde_json's `StreamDeserializer`: an array, object or string ends itself;
/// a number, `true`, `false` or `null` must be followed by the end, whitespace
/// or a bracket, brace, quote, comma or colon (`1 2`, but not `1x`).
fn ends_itself_or_is_ended(text: &[u8], len: usize) -> bool {
    ends_itself(text)
        || matches!(
            text.get(len),
            None | Some(
                b' ' | b'\n' | b'\t' | b'\r' | b'"' | b'[' | b']' | b'{' | b'}' | b',' | b':'
            )
        )
}

/// Whether the value at the start of `text` is an array, object or string,
/// which ends at a closing byte of its own, not at the first byte that cannot
/// continue it.
fn ends_itself(text: &[u8]) -> bool {
    matches!(text.first(), Some(b'[' | b'{' | b'"'))
}

/// Whether `e`, met in the bytes `text` that a failed read ended, may be due
/// to that end, so that more input could change it: the end of input; a
/// character cut short; an error of a number or literal's value or type that
/// runs to the end (`300` for a `u8` may be `300.5`, `1.` may be `1.5`).
/// Anything else is decided by the bytes read: a byte no value may hold
/// there (`[1,,`), a value that closed (`[1]` matching no variant of an
/// untagged enum), a byte that is not UTF-8 in any text.
fn cut_by_end(e: &Error, text: &[u8]) -> bool {
    use jitson_core::error::ErrorCode;
    if e.classify() == crate::Category::Eof {
        return true;
    }
    let at = e.offset().min(text.len());
    if e.kind() == crate::ErrorKind::InvalidUtf8 {
        return std::str::from_utf8(&text[at..]).is_err_and(|u| u.error_len().is_none());
    }
    let by_token = e.classify() == crate::Category::Data
        || matches!(
            e.code(),
            ErrorCode::InvalidNumber
                | ErrorCode::NumberOutOfRange
                | ErrorCode::FloatOutOfRange
                | ErrorCode::ExpectedSomeIdent
        );
    let token = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-');
    by_token
        && match &text[at..] {
            [] => text.last().is_some_and(token),
            tail => tail.iter().all(token),
        }
}

/// Where a value of a stream read by [`values_from_reader`] starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Byte offset in the whole stream, from 0.
    pub offset: u64,
    /// 1-based line.
    pub line: u64,
    /// 1-based column, in characters (as [`Error::column`]).
    pub column: u64,
}

/// The values of `T` in a [`BufRead`](std::io::BufRead) stream (NDJSON, or JSON
/// values separated by whitespace, as [`values`] reads them), each with its
/// [`Position`] in the stream. See [`values_from_reader`].
#[derive(Debug)]
pub struct ReaderValues<R, T> {
    reader: R,
    /// Bytes read and not yet decoded are `buf[start..]`.
    buf: Vec<u8>,
    start: usize,
    /// The reader has no more bytes (or failed: see `read_error`).
    eof: bool,
    /// Why reading stopped, if it failed: reported once the values read
    /// before it have been.
    read_error: Option<std::io::Error>,
    /// The position of `buf[start]` in the stream.
    at: Position,
    decoder: Decoder<T>,
    failed: bool,
    /// The last value's length, counted for tiering before the next is parsed.
    last_len: usize,
}

/// How much a [`ReaderValues`] reads at least at a time.
const READ_AHEAD: usize = 64 * 1024;

/// Iterates over the values of `T` read from `reader` (NDJSON, or JSON values
/// separated by whitespace), with [`Backend::Auto`](crate::Backend::Auto);
/// strings are checked to be UTF-8. Items are `Ok((position, value))`.
///
/// Reads as it goes, 64 KiB or more at a time, and parses each value once
/// where it starts (a value cut by the end of what was read so far is parsed
/// again once more has been read); memory is bounded by about twice the
/// largest value, not by the stream. The first error ends the iteration; its
/// offset, line and column are positions in the whole stream. When reading
/// fails, the error is [`ErrorKind::Io`](crate::ErrorKind::Io), at the
/// position after the last byte read, unless the bytes read before it already
/// hold an error (`[1,,` then the failed read), which comes first, as it does
/// for serde_json's reader.
///
/// ```
/// #[derive(jitson::Decode, Debug, PartialEq)]
/// struct Event { id: u32 }
/// let stream = std::io::Cursor::new(b"{\"id\": 1}\n{\"id\": 2}\n");
/// let events: Vec<_> = jitson::values_from_reader::<Event, _>(stream)
///     .map(|r| r.map(|(at, e)| (at.line, e.id)))
///     .collect::<Result<_, _>>()
///     .unwrap();
/// assert_eq!(events, [(1, 1), (2, 2)]);
/// ```
pub fn values_from_reader<T: Decode, R: std::io::BufRead>(reader: R) -> ReaderValues<R, T> {
    Decoder::new().values_from_reader(reader)
}

impl<T> Decoder<T> {
    /// [`values_from_reader`], with this decoder's backend, tiering and depth
    /// limit.
    pub fn values_from_reader<R: std::io::BufRead>(&self, reader: R) -> ReaderValues<R, T>
    where
        T: Decode,
    {
        ReaderValues {
            reader,
            buf: Vec::new(),
            start: 0,
            eof: false,
            read_error: None,
            at: Position {
                offset: 0,
                line: 1,
                column: 1,
            },
            decoder: *self,
            failed: false,
            last_len: 0,
        }
    }
}

impl<R: std::io::BufRead, T: Decode> ReaderValues<R, T> {
    /// Drops what was decoded from `buf` and appends at least as much as it
    /// then holds (and at least [`READ_AHEAD`]), or up to the end of the
    /// stream: a value retried after a refill has grown at least twofold, so
    /// retries cost no more than one more parse in all. A read error ends the
    /// stream there, and is kept in `read_error`.
    fn refill(&mut self) {
        self.buf.drain(..self.start);
        self.start = 0;
        let want = self.buf.len().max(READ_AHEAD);
        let mut read = 0;
        while read < want {
            let available = match self.reader.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.read_error = Some(e);
                    self.eof = true;
                    break;
                }
            };
            if available.is_empty() {
                self.eof = true;
                break;
            }
            let n = available.len();
            self.buf.extend_from_slice(available);
            self.reader.consume(n);
            read += n;
        }
    }

    /// The next value, or `None` at the end of the stream.
    fn next_value(&mut self) -> Option<Result<(Position, T), Error>> {
        loop {
            let first = text::skip_ws(&self.buf, self.start);
            advance(&mut self.at, &self.buf[self.start..first]);
            self.start = first;
            if self.start == self.buf.len() {
                if self.eof {
                    return self.read_error.take().map(|e| Err(self.io_error(&e)));
                }
                self.refill();
                continue;
            }
            let rest = &self.buf[self.start..];
            let result = self
                .decoder
                .decode_at_start(rest, true, Some(self.last_len));
            // What was read may end inside the value: a scalar that reaches the
            // end of what was read (`12` of `123`), or an error at (or just
            // before, in a cut character or escape) that end. Read more and
            // parse it again.
            let cut = match &result {
                Ok((_, len)) => *len == rest.len() && !ends_itself(rest),
                Err(e) => e.offset() + 16 >= rest.len(),
            };
            if cut && !self.eof {
                self.refill();
                continue;
            }
            // Reading failed there: the read's error, unless the bytes read
            // already hold another one, which serde_json, reading byte by
            // byte, meets first (`[1,,` before the failed read).
            if cut
                && result.as_ref().err().is_none_or(|e| cut_by_end(e, rest))
                && let Some(e) = self.read_error.take()
            {
                return Some(Err(self.io_error(&e)));
            }
            let at = self.at;
            return Some(
                match result {
                    Ok((value, len)) if ends_itself_or_is_ended(rest, len) => {
                        advance(&mut self.at, &rest[..len]);
                        self.start += len;
                        self.last_len = len;
                        Ok((at, value))
                    }
                    Ok((_, len)) => Err(Error::at(ErrorCode::TrailingCharacters, rest, len)),
                    Err(e) => Err(e),
                }
                .map_err(|e| {
                    e.moved_to(
                        at.offset as usize,
                        at.line as usize - 1,
                        at.column as usize - 1,
                    )
                }),
            );
        }
    }
}

impl<R, T> ReaderValues<R, T> {
    /// The read error `e` as an [`ErrorKind::Io`](crate::ErrorKind::Io) error
    /// where reading stopped: after the last byte read, which is the end of
    /// `buf` (no read follows a failed one).
    #[cold]
    fn io_error(&self, e: &std::io::Error) -> Error {
        let unread = &self.buf[self.start..];
        let at = self.at;
        Error::at(ErrorCode::Io(e.to_string().into()), unread, unread.len()).moved_to(
            at.offset as usize,
            at.line as usize - 1,
            at.column as usize - 1,
        )
    }
}

/// `at` after `bytes` (counts that vectorise: a value on one line costs two
/// passes over its bytes, no byte-by-byte search).
fn advance(at: &mut Position, bytes: &[u8]) {
    at.offset += bytes.len() as u64;
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    if newlines == 0 {
        at.column += chars(bytes);
        return;
    }
    at.line += newlines;
    let last = bytes.iter().rposition(|&b| b == b'\n').unwrap_or(0);
    at.column = 1 + chars(&bytes[last + 1..]);
}

/// Characters in `bytes` (UTF-8 lead bytes).
fn chars(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count() as u64
}

impl<R: std::io::BufRead, T: Decode> Iterator for ReaderValues<R, T> {
    type Item = Result<(Position, T), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let item = self.next_value();
        self.failed = matches!(item, Some(Err(_)));
        item
    }
}

/// Reads all of `reader` and decodes one `T` from it (the whole input is one
/// document, as for [`from_slice`](crate::from_slice); for a stream of values,
/// NDJSON, see [`values_from_reader`]).
///
/// # Errors
/// An [`ErrorKind::Io`](crate::ErrorKind::Io) error if reading fails, at the
/// position after the last byte read, unless the bytes read before it already
/// hold an error, which comes first (as for serde_json's reader); otherwise as
/// [`from_slice`](crate::from_slice).
pub fn from_reader<T: Decode, R: std::io::Read>(mut reader: R) -> Result<T, Error> {
    let mut input = Vec::new();
    // On failure `read_to_end` keeps what it read: the error is placed after
    // it, unless what was read already holds an error (as for
    // `values_from_reader`).
    if let Err(e) = reader.read_to_end(&mut input) {
        return match crate::from_slice::<T>(&input) {
            Err(held) if !cut_by_end(&held, &input) => Err(held),
            _ => Err(Error::at(
                ErrorCode::Io(e.to_string().into()),
                &input,
                input.len(),
            )),
        };
    }
    crate::from_slice(&input)
}

/// Decodes every line of `input` (NDJSON: one value per line; blank lines are
/// skipped) on all cores, with [`Backend::Auto`](crate::Backend::Auto): the
/// input is cut at newlines into one chunk per thread
/// (`std::thread::available_parallelism`), and the values are returned in input
/// order. See [`Decoder::decode_lines`].
///
/// # Errors
/// The error of the first line (in input order) that fails, with its position
/// in the whole input. A value that continues past the end of its line is
/// refused ([`ErrorKind::Syntax`](crate::ErrorKind::Syntax), "not
/// line-delimited"), whatever the number of cores; [`values`] reads such input.
pub fn decode_lines<'de, T: DecodeBorrowed<'de> + Send>(input: &'de [u8]) -> Result<Vec<T>, Error> {
    Decoder::new().decode_lines(input, 0)
}

/// The most threads [`Decoder::decode_lines`] starts, whatever it is asked
/// for: each thread costs the system a stack and its mappings, and tens of
/// thousands of them exhaust those limits (a thread that fails to set itself
/// up aborts the process).
const MAX_LINE_THREADS: usize = 256;

impl<T> Decoder<T> {
    /// [`decode_lines`] with this decoder's backend, tiering and depth limit, on
    /// `threads` threads (`0`: one per core, as `std::thread::available_parallelism`
    /// says; at most 256, and one per line; a chunk whose
    /// thread the system does not start is decoded on the calling thread).
    ///
    /// Each line is decoded on its own (as by [`values`] over that line alone, so
    /// a line may hold several values), which makes the result the same for any
    /// number of threads: a value that is not complete at the end of its line,
    /// with more input after it, is refused as not line-delimited, never joined
    /// with the next line.
    ///
    /// # Errors
    /// As [`decode_lines`].
    pub fn decode_lines<'de>(&self, input: &'de [u8], threads: usize) -> Result<Vec<T>, Error>
    where
        T: DecodeBorrowed<'de> + Send,
    {
        let threads = match threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n.min(MAX_LINE_THREADS),
        };
        let chunks = text::line_chunks(input, input.len().div_ceil(threads));
        let decoder = *self;
        let results: Vec<Result<Vec<T>, Error>> = std::thread::scope(|scope| {
            // A chunk whose thread the system refuses (`threads` beyond what
            // it allows) is decoded on this thread when its turn comes.
            let handles: Vec<_> = chunks
                .iter()
                .map(|range| {
                    let mine = range.clone();
                    std::thread::Builder::new()
                        .spawn_scoped(scope, move || decoder.decode_lines_of(input, mine))
                        .map_err(|_| range.clone())
                })
                .collect();
            handles
                .into_iter()
                .map(|h| match h {
                    Ok(h) => h
                        .join()
                        .unwrap_or_else(|payload| std::panic::resume_unwind(payload)),
                    Err(range) => decoder.decode_lines_of(input, range),
                })
                .collect()
        });
        let mut out = Vec::new();
        for result in results {
            out.extend(result?);
        }
        Ok(out)
    }

    /// Decodes the lines of `input[range]` (which starts a line and ends just
    /// after a `\n` or at the end of `input`), each on its own; errors are
    /// positioned in the whole `input`.
    fn decode_lines_of<'de>(
        &self,
        input: &'de [u8],
        range: core::ops::Range<usize>,
    ) -> Result<Vec<T>, Error>
    where
        T: DecodeBorrowed<'de>,
    {
        let mut out = Vec::new();
        let mut start = range.start;
        while start < range.end {
            let end = input[start..range.end]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(range.end, |n| start + n + 1);
            let line = &input[start..end];
            for item in self.values(line) {
                match item {
                    Ok((_, value)) => out.push(value),
                    // The value is cut by the end of its line, which is not the
                    // end of the input.
                    Err(e) if e.kind() == crate::ErrorKind::UnexpectedEnd && end < input.len() => {
                        // The input goes on: refused, as it would be by any
                        // other cut into chunks.
                        if text::skip_ws(input, end) < input.len() {
                            return Err(Error::at(ErrorCode::NotLineDelimited, input, end - 1));
                        }
                        // Only whitespace follows: the input ends inside the
                        // value, and the error is placed where `values` places
                        // it, at the end of the input. Decoding the rest from
                        // this line's start meets the same values, then the
                        // same error there.
                        let at_end = self.values(&input[start..]).find_map(Result::err);
                        return Err(at_end.unwrap_or(e).rebased(input, start));
                    }
                    Err(e) => return Err(e.rebased(input, start)),
                }
            }
            start = end;
        }
        Ok(out)
    }
}
