//! Streams of values: NDJSON and whitespace-separated concatenated JSON (what
//! serde_json's `StreamDeserializer` reads), one `T` at a time, from a reader, or
//! on every core.

use std::marker::PhantomData;

use jitson_core::error::ErrorCode;
use jitson_core::text::{self, ValueEnd};

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
        // The span of one value; the decoder validates it (a span cut wrongly by
        // malformed input fails there, with the error of the whole input).
        let end = ValueEnd::default()
            .run(&self.input[start..])
            .map_or(self.input.len(), |n| start + n);
        self.pos = end;
        match self.decoder.decode_slice(&self.input[start..end]) {
            Ok(value) => Some(Ok((start, value))),
            Err(e) => {
                self.failed = true;
                Some(Err(e.rebased(self.input, start)))
            }
        }
    }
}

/// Reads all of `reader` and decodes one `T` from it (the whole input is one
/// document, as for [`from_slice`](crate::from_slice)).
///
/// # Errors
/// An [`ErrorKind::Io`](crate::ErrorKind::Io) error if reading fails; otherwise
/// as [`from_slice`](crate::from_slice).
pub fn from_reader<T: Decode, R: std::io::Read>(mut reader: R) -> Result<T, Error> {
    let mut input = Vec::new();
    reader
        .read_to_end(&mut input)
        .map_err(|e| Error::without_position(ErrorCode::Io(e.to_string().into())))?;
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
pub fn decode_lines<T: Decode + Send>(input: &[u8]) -> Result<Vec<T>, Error> {
    Decoder::new().decode_lines(input, 0)
}

impl<T> Decoder<T> {
    /// [`decode_lines`] with this decoder's backend, tiering and depth limit, on
    /// `threads` threads (`0`: one per core, as `std::thread::available_parallelism`
    /// says).
    ///
    /// Each line is decoded on its own (as by [`values`] over that line alone, so
    /// a line may hold several values), which makes the result the same for any
    /// number of threads: a value that is not complete at the end of its line,
    /// with more input after it, is refused as not line-delimited, never joined
    /// with the next line.
    ///
    /// # Errors
    /// As [`decode_lines`].
    pub fn decode_lines(&self, input: &[u8], threads: usize) -> Result<Vec<T>, Error>
    where
        T: Decode + Send,
    {
        let threads = match threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let chunks = text::line_chunks(input, input.len().div_ceil(threads));
        let decoder = *self;
        let results: Vec<Result<Vec<T>, Error>> = std::thread::scope(|scope| {
            let handles: Vec<_> = chunks
                .iter()
                .map(|range| {
                    let range = range.clone();
                    scope.spawn(move || decoder.decode_lines_of(input, range))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|payload| std::panic::resume_unwind(payload))
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
    fn decode_lines_of(&self, input: &[u8], range: core::ops::Range<usize>) -> Result<Vec<T>, Error>
    where
        T: Decode,
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
                    // The value is cut by the end of its line, and the input goes
                    // on: refused, as it would be by any other cut into chunks.
                    Err(e)
                        if e.kind() == crate::ErrorKind::UnexpectedEnd
                            && text::skip_ws(input, end) < input.len() =>
                    {
                        return Err(Error::at(ErrorCode::NotLineDelimited, input, end - 1));
                    }
                    Err(e) => return Err(e.rebased(input, start)),
                }
            }
            start = end;
        }
        Ok(out)
    }
}
