//! Streams of values (`values`, `decode_lines`, `from_reader`) on every backend.

mod common;

use jitson::{Decoder, ErrorKind};

#[derive(jitson::Decode, Debug, PartialEq, Clone)]
struct Event {
    id: u32,
    name: String,
    tags: Vec<String>,
}

#[derive(jitson::Decode, Debug, PartialEq)]
struct Borrowing<'a> {
    name: &'a str,
}

fn events(n: u32) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{{\"id\": {i}, \"name\": \"e{i}\", \"tags\": [\"t{}\"]}}\n",
                i % 3
            )
        })
        .collect()
}

#[test]
fn values_with_offsets() {
    let input = b" {\"id\": 1, \"name\": \"a\", \"tags\": []}\n\n{\"id\": 2, \"name\": \"b\\n\", \"tags\": [\"x\"]}{\"id\":3,\"name\":\"c\",\"tags\":[]}  ";
    for backend in common::backends() {
        let got: Vec<(usize, Event)> = Decoder::<Event>::with_backend(backend)
            .values(input)
            .collect::<Result<_, _>>()
            .unwrap();
        let offsets: Vec<usize> = got.iter().map(|(o, _)| *o).collect();
        assert_eq!(offsets, [1, 37, 76], "{backend:?}");
        assert_eq!(got[1].1.name, "b\n");
        assert_eq!(got[2].1.id, 3);
    }
}

#[test]
fn errors_are_positioned_in_the_whole_input() {
    let input = "{\"id\": 1, \"name\": \"a\", \"tags\": []}\n{\"id\": 2, \"name\": 5, \"tags\": []}\n{\"id\": 3}\n";
    for backend in common::backends() {
        let mut it = Decoder::<Event>::with_backend(backend).values(input.as_bytes());
        assert!(it.next().unwrap().is_ok());
        let e = it.next().unwrap().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidType);
        assert_eq!(
            (e.line(), e.column(), e.path().as_str()),
            (2, 19, "$.name"),
            "{backend:?}"
        );
        assert_eq!(&input[e.offset()..e.offset() + 1], "5");
        assert!(it.next().is_none(), "the first error ends the stream");
    }
    // Truncated last value.
    let e =
        jitson::values::<Event>(b"{\"id\": 1, \"name\": \"a\", \"tags\": []}\n{\"id\": 2, \"na")
            .nth(1)
            .unwrap()
            .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnexpectedEnd);
    assert_eq!(e.line(), 2);
}

#[test]
fn borrowed_values_borrow_from_the_input() {
    let input = b"{\"name\": \"x\"}\n{\"name\": \"yz\"}".to_vec();
    let got: Vec<_> = jitson::values::<Borrowing<'_>>(&input)
        .map(|r| r.unwrap().1.name)
        .collect();
    assert_eq!(got, ["x", "yz"]);
    // decode_lines too, on every core (a newcomer found it took owned types
    // only): the strings point into the input.
    let lines = (0..2_000)
        .map(|i| format!("{{\"name\": \"n{i}\"}}\n"))
        .collect::<String>();
    for threads in [1, 2, 0] {
        let got = Decoder::<Borrowing<'_>>::new()
            .decode_lines(lines.as_bytes(), threads)
            .unwrap();
        assert_eq!(got.len(), 2_000);
        assert_eq!(got[1_999].name, "n1999");
        assert!(
            lines
                .as_bytes()
                .as_ptr_range()
                .contains(&got[7].name.as_ptr())
        );
    }
    assert_eq!(
        jitson::decode_lines::<Borrowing<'_>>(lines.as_bytes())
            .unwrap()
            .len(),
        2_000
    );
}

#[test]
fn decode_lines_on_every_core() {
    let input = events(10_000);
    let expected: Vec<Event> = jitson::values::<Event>(input.as_bytes())
        .map(|r| r.unwrap().1)
        .collect();
    assert_eq!(
        jitson::decode_lines::<Event>(input.as_bytes()).unwrap(),
        expected
    );
    assert_eq!(expected.len(), 10_000);
    let bad = input.replacen("\"id\": 7777,", "\"id\": -1,", 1);
    let e = jitson::decode_lines::<Event>(bad.as_bytes()).unwrap_err();
    assert_eq!((e.line(), e.path().as_str()), (7778, "$.id"));
    assert_eq!(&bad[e.offset()..e.offset() + 2], "-1");
    assert!(jitson::decode_lines::<Event>(b"").unwrap().is_empty());
}

#[test]
fn from_reader_reads_one_document() {
    let e: Event = jitson::from_reader(&b"{\"id\": 1, \"name\": \"a\", \"tags\": []}"[..]).unwrap();
    assert_eq!(e.id, 1);
    struct Failing;
    impl std::io::Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk on fire"))
        }
    }
    let e = jitson::from_reader::<Event, _>(Failing).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(e.to_string().contains("disk on fire"), "{e}");
}

/// `n` records of `Event`, pretty-printed: every record spans four lines.
fn pretty_events(n: u32) -> String {
    (0..n)
        .map(|i| format!("{{\n  \"id\": {i},\n  \"name\": \"e{i}\",\n  \"tags\": []\n}}\n"))
        .collect()
}

#[test]
fn decode_lines_answer_does_not_depend_on_the_thread_count() {
    let pretty = pretty_events(2_000);
    // values() reads values that span lines...
    assert_eq!(jitson::values::<Event>(pretty.as_bytes()).count(), 2_000);
    for backend in common::backends() {
        let decoder = Decoder::<Event>::with_backend(backend);
        // ...decode_lines refuses them with the same error on one thread, on
        // several, and on every core (a chunk cut never decides).
        let errors: Vec<_> = [1, 2, 3, 7, 0]
            .into_iter()
            .map(|threads| {
                common::shape(
                    &decoder
                        .decode_lines(pretty.as_bytes(), threads)
                        .unwrap_err(),
                )
            })
            .collect();
        for e in &errors {
            assert_eq!(e, &errors[0], "{backend:?}");
        }
        let e = decoder.decode_lines(pretty.as_bytes(), 1).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Syntax);
        assert_eq!((e.line(), e.offset()), (1, 1), "{backend:?}");
        assert!(e.to_string().contains("not line-delimited"), "{e}");
        // The default (every core) agrees.
        assert_eq!(
            common::shape(&jitson::decode_lines::<Event>(pretty.as_bytes()).unwrap_err()),
            errors[0]
        );
        // Line-delimited input gives the same values on any number of threads,
        // including several values on one line and a truncated last line.
        let lines = events(2_000);
        let expected: Vec<Event> = jitson::values::<Event>(lines.as_bytes())
            .map(|r| r.unwrap().1)
            .collect();
        for threads in [1, 2, 3, 7, 0] {
            assert_eq!(
                decoder.decode_lines(lines.as_bytes(), threads).unwrap(),
                expected
            );
        }
        let two_per_line =
            "{\"id\":1,\"name\":\"a\",\"tags\":[]} {\"id\":2,\"name\":\"b\",\"tags\":[]}\n";
        for threads in [1, 2] {
            assert_eq!(
                decoder
                    .decode_lines(two_per_line.as_bytes(), threads)
                    .unwrap()
                    .len(),
                2
            );
        }
        let truncated = format!("{lines}{{\"id\": 1,");
        for threads in [1, 2, 3, 0] {
            let e = decoder
                .decode_lines(truncated.as_bytes(), threads)
                .unwrap_err();
            assert_eq!((e.kind(), e.line()), (ErrorKind::UnexpectedEnd, 2_001));
        }
    }
}

#[test]
fn decode_lines_places_an_early_end_before_blank_lines_where_values_does() {
    // A hostile run found decode_lines placing this error at the start of the
    // first blank line after the cut value, where `values` and `from_slice`
    // place it at the end of the input.
    for input in [
        "{\"id\":1\n\n",
        "{\"id\":1\n\n\n\n",
        "{\"id\":1\n \n",
        "{\"id\":1,\n\n",
        "{\"id\":1,\"name\":\"a\",\"tags\":[]}\n{\"id\":\n\t\n",
        "{\"id\":1,\"name\":\"a\",\"tags\":[]} {\"id\":2,\n\r\n",
        "{\"id\":1\n",
    ] {
        for backend in common::backends() {
            let decoder = Decoder::<Event>::with_backend(backend);
            let expected = jitson::values::<Event>(input.as_bytes())
                .find_map(Result::err)
                .expect("the input ends inside a value");
            assert_eq!(expected.kind(), ErrorKind::UnexpectedEnd);
            assert_eq!(expected.offset(), input.len(), "{input:?}");
            for threads in [1, 2, 3, 0] {
                let e = decoder.decode_lines(input.as_bytes(), threads).unwrap_err();
                assert_eq!(
                    common::shape(&e),
                    common::shape(&expected),
                    "{backend:?}, {threads} threads, {input:?}"
                );
            }
        }
    }
}

/// Line and column (in characters) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (u64, u64) {
    let before = &text[..offset];
    let line = 1 + before.matches('\n').count() as u64;
    let column = 1 + before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count() as u64;
    (line, column)
}

#[test]
fn values_are_parsed_where_they_start_as_serde_json_streams_them() {
    // Values not separated by whitespace: a scalar is ended by what starts the
    // next value. The old scan-then-parse cut `1[2]` as one span and failed.
    for input in [
        "1[2]\"s\"{}null 3",
        "{\"a\":1}{\"b\":[2]}\n[3]",
        "1 2x",
        "[1,2] tru",
        "\"é\" {\"a\": \"b\\\"\"} 7",
        "1.5e3[]",
        "{\"a\": [1, 2,]}",
    ] {
        // Up to serde_json's first error (jitson's iteration ends there).
        let mut serde: Vec<Result<usize, serde_json::error::Category>> = Vec::new();
        for r in serde_json::Deserializer::from_str(input).into_iter::<serde_json::Value>() {
            let failed = r.is_err();
            serde.push(r.map(|_| 0).map_err(|e| e.classify()));
            if failed {
                break;
            }
        }
        for backend in common::backends() {
            let ours: Vec<Result<usize, jitson::Category>> =
                Decoder::<jitson::IgnoredAny>::with_backend(backend)
                    .values(input.as_bytes())
                    .map(|r| r.map(|_| 0).map_err(|e| e.classify()))
                    .collect();
            let same_category = |a: &jitson::Category, b: &serde_json::error::Category| {
                format!("{a:?}") == format!("{b:?}")
            };
            assert_eq!(
                ours.len(),
                serde.len(),
                "{input:?} {backend:?}: {ours:?} vs {serde:?}"
            );
            for (a, b) in ours.iter().zip(&serde) {
                match (a, b) {
                    (Ok(_), Ok(_)) => {}
                    (Err(a), Err(b)) => assert!(same_category(a, b), "{input:?}: {a:?} vs {b:?}"),
                    _ => panic!("{input:?} {backend:?}: {ours:?} vs {serde:?}"),
                }
            }
        }
    }
    // Scalars the JIT decodes itself end where their text ends.
    for backend in common::backends() {
        let got: Vec<(usize, u64)> = Decoder::<u64>::with_backend(backend)
            .values(b"1 22\n333\t 4")
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(got, [(0, 1), (2, 22), (5, 333), (10, 4)], "{backend:?}");
        let got: Vec<(usize, Vec<u8>)> = Decoder::<Vec<u8>>::with_backend(backend)
            .values(b"[1] [2,3]\n[]")
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            got,
            [(0, vec![1]), (4, vec![2, 3]), (10, vec![])],
            "{backend:?}"
        );
    }
    let offsets: Vec<usize> = jitson::values::<jitson::IgnoredAny>(b"1[2]\"s\"{}null 3")
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(offsets, [0, 1, 4, 7, 9, 14]);
}

#[test]
fn values_from_a_reader_match_values_from_a_slice() {
    let mut input = events(300);
    input.insert_str(0, "\n\n  ");
    input.push_str("{\"id\": 1, \"name\": \"é\\u00e9\", \"tags\": [\"a\", \"b\"]}  \n");
    input.push_str("{\n  \"id\": 2,\n  \"name\": \"multi-line\",\n  \"tags\": []\n} {\"id\":3,\"name\":\"x\",\"tags\":[]}");
    let expected: Vec<(usize, Event)> = jitson::values::<Event>(input.as_bytes())
        .collect::<Result<_, _>>()
        .unwrap();
    for backend in common::backends() {
        for capacity in [1, 7, 64, 8192] {
            let reader = std::io::BufReader::with_capacity(capacity, input.as_bytes());
            let got: Vec<(jitson::Position, Event)> = Decoder::<Event>::with_backend(backend)
                .values_from_reader(reader)
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(got.len(), expected.len(), "{backend:?} {capacity}");
            for ((at, value), (offset, want)) in got.iter().zip(&expected) {
                let (line, column) = line_column(&input, *offset);
                assert_eq!(
                    (at.offset, at.line, at.column),
                    (*offset as u64, line, column),
                    "{backend:?} {capacity}"
                );
                assert_eq!(value, want);
            }
        }
    }
}

#[test]
fn values_from_a_reader_across_many_reads() {
    // Past the reader's 64 KiB read-ahead many times, so that reads end inside
    // numbers, strings, UTF-8 characters, escapes and literals.
    let mut input = String::new();
    for i in 0..6_000u32 {
        input.push_str(&format!(
            "{{\"id\": {i}, \"name\": \"é\\u00e9\\\"{i}\\n\", \"tags\": [\"ü{}\"]}}\n",
            "x".repeat(i as usize % 37)
        ));
        if i % 1_000 == 0 {
            // One value far larger than a read.
            input.push_str(&format!(
                "{{\"id\": 0, \"name\": \"{}\", \"tags\": []}}\n",
                "long é ".repeat(30_000)
            ));
        }
    }
    let expected: Vec<(usize, Event)> = jitson::values::<Event>(input.as_bytes())
        .collect::<Result<_, _>>()
        .unwrap();
    let numbers: String = (0..60_000u64).map(|i| format!("{} ", i * 7919)).collect();
    for backend in common::backends() {
        let got: Vec<(jitson::Position, Event)> = Decoder::<Event>::with_backend(backend)
            .values_from_reader(std::io::BufReader::with_capacity(1000, input.as_bytes()))
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(got.len(), expected.len());
        for ((at, value), (offset, want)) in got.iter().zip(&expected) {
            assert_eq!(at.offset, *offset as u64);
            assert_eq!(value, want);
        }
        assert_eq!(got.last().unwrap().0.line, expected.len() as u64);
        let got: Vec<u64> = Decoder::<u64>::with_backend(backend)
            .values_from_reader(numbers.as_bytes())
            .map(|r| r.unwrap().1)
            .collect();
        assert_eq!(got, (0..60_000u64).map(|i| i * 7919).collect::<Vec<_>>());
    }
}

#[test]
fn reader_errors_are_positioned_in_the_whole_stream() {
    let good = "{\"id\": 1, \"name\": \"é\", \"tags\": []}\n";
    for bad in [
        // A data error on a record's first line, after non-ASCII text.
        "  {\"id\": 2, \"name\": \"é\", \"tags\": [5]}\n",
        // On a later line of a multi-line record.
        "{\"id\": 2,\n \"name\": \"x\",\n \"tags\": [\"a\",]}\n",
        // A truncated last record.
        "{\"id\": 2, \"name\": \"x\", \"ta",
        // A scalar glued to garbage.
        "12x\n",
    ] {
        let input = format!("{good}{good}{bad}{good}");
        let want = jitson::values::<Event>(input.as_bytes())
            .find_map(Result::err)
            .unwrap();
        for backend in common::backends() {
            for capacity in [1, 5, 4096] {
                let reader = std::io::BufReader::with_capacity(capacity, input.as_bytes());
                let mut it = Decoder::<Event>::with_backend(backend).values_from_reader(reader);
                assert!(it.next().unwrap().is_ok());
                assert!(it.next().unwrap().is_ok());
                let e = it.next().unwrap().unwrap_err();
                assert_eq!(
                    common::shape(&e),
                    common::shape(&want),
                    "{bad:?} {backend:?} {capacity}"
                );
                assert!(it.next().is_none(), "the first error ends the stream");
            }
        }
    }
    // A failing reader: an Io error, after the records read before it.
    struct Failing(bool);
    impl std::io::Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if std::mem::replace(&mut self.0, true) {
                return Err(std::io::Error::other("disk on fire"));
            }
            let record = b"{\"id\": 1, \"name\": \"a\", \"tags\": []}\n";
            buf[..record.len()].copy_from_slice(record);
            Ok(record.len())
        }
    }
    let mut it = jitson::values_from_reader::<Event, _>(std::io::BufReader::new(Failing(false)));
    assert_eq!(it.next().unwrap().unwrap().1.id, 1);
    let e = it.next().unwrap().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(e.to_string().contains("disk on fire"), "{e}");
}

/// Serves `data` `chunk` bytes at a time, then fails: an I/O error part-way
/// through a stream.
struct FailsAfter {
    data: Vec<u8>,
    at: usize,
    chunk: usize,
}

impl std::io::Read for FailsAfter {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.data.len() {
            return Err(std::io::Error::other("disk on fire"));
        }
        let n = buf.len().min(self.chunk).min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[test]
fn a_failed_read_is_positioned_where_reading_stopped() {
    let good = "{\"id\": 1, \"name\": \"é\", \"tags\": []}\n";
    for read in [
        // Inside a value, on its second line, after non-ASCII text.
        format!("{good}{good}{{\"id\": 2,\n \"name\": \"éé"),
        // Between values.
        format!("{good}{good}  "),
        // Right after a value.
        format!("{good}{good}"),
        // Before anything.
        String::new(),
    ] {
        let (line, column) = line_column(&read, read.len());
        let values = read.matches(good).count();
        for backend in common::backends() {
            for (capacity, chunk) in [(1, 1), (5, 3), (8192, 7), (8192, 100_000)] {
                let reader = FailsAfter {
                    data: read.clone().into_bytes(),
                    at: 0,
                    chunk,
                };
                let reader = std::io::BufReader::with_capacity(capacity, reader);
                let mut it = Decoder::<Event>::with_backend(backend).values_from_reader(reader);
                for _ in 0..values {
                    assert!(it.next().unwrap().is_ok());
                }
                let e = it.next().unwrap().unwrap_err();
                let why = format!("{read:?} {backend:?} {capacity} {chunk}: {e}");
                assert_eq!(e.kind(), ErrorKind::Io, "{why}");
                assert_eq!(
                    (e.offset(), e.line() as u64, e.column() as u64, e.path()),
                    (read.len(), line, column, "$".to_owned()),
                    "{why}"
                );
                assert!(
                    e.to_string()
                        .starts_with("I/O error: disk on fire at $ (line "),
                    "{why}"
                );
                assert!(it.next().is_none(), "{why}");
            }
        }
        // `from_reader` reads everything before it decodes: the backend plays
        // no part in its I/O error. It reads one document: a second one read
        // before the failure is trailing characters, which come first, as
        // serde_json's reader meets them first.
        let reader = FailsAfter {
            data: read.clone().into_bytes(),
            at: 0,
            chunk: 3,
        };
        let e = jitson::from_reader::<Event, _>(reader).unwrap_err();
        if values >= 2 {
            assert_eq!(
                (e.kind(), e.offset(), e.line() as u64, e.column() as u64),
                (ErrorKind::Syntax, good.len(), 2, 1),
                "from_reader {read:?}: {e}"
            );
            assert!(e.to_string().starts_with("trailing characters"), "{e}");
        } else {
            assert_eq!(
                (e.kind(), e.offset(), e.line() as u64, e.column() as u64),
                (ErrorKind::Io, read.len(), line, column),
                "from_reader {read:?}: {e}"
            );
        }
    }
    // One document cut by the failed read: the read's error.
    let reader = FailsAfter {
        data: b"{\"id\": 2,\n \"name\": \"\xc3".to_vec(),
        at: 0,
        chunk: 3,
    };
    let e = jitson::from_reader::<Event, _>(reader).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");
}

/// A scalar that reaches the end of what a read gave may go on in the next
/// read (`12` of `123`, `tru` of `true`, `12` of `12x`): it is read again once
/// more has been read, so the values and errors are those of the whole input,
/// wherever the reads end. Checked against `values` over the same bytes, with
/// each text ending a 64 KiB read at every byte.
#[test]
fn scalars_cut_by_a_read_are_read_whole() {
    fn check<T: jitson::Decode + PartialEq + std::fmt::Debug>(texts: &[&str]) {
        for text in texts {
            for cut in 0..=text.len() {
                let mut input = " ".repeat(64 * 1024 - cut);
                input.push_str(text);
                let want: Vec<Result<T, common::ErrorShape>> =
                    jitson::values::<T>(input.as_bytes())
                        .map(|r| r.map(|(_, v)| v).map_err(|e| common::shape(&e)))
                        .collect();
                for backend in common::backends() {
                    for capacity in [8192, 64 * 1024, 64 * 1024 + 1] {
                        let reader = std::io::BufReader::with_capacity(capacity, input.as_bytes());
                        let got: Vec<Result<T, common::ErrorShape>> =
                            Decoder::<T>::with_backend(backend)
                                .values_from_reader(reader)
                                .map(|r| r.map(|(_, v)| v).map_err(|e| common::shape(&e)))
                                .collect();
                        assert_eq!(got, want, "{text:?} cut {cut}, {backend:?}, {capacity}");
                    }
                }
            }
        }
    }
    check::<u64>(&["123456789", "12x", "1 2", "18446744073709551616", "7\n8"]);
    check::<f64>(&["1.5e3", "-0.25", "1.", "2e", "1e400"]);
    check::<bool>(&["true", "truex", "false false", "tru"]);
    check::<Option<u32>>(&["null", "nullx", "4294967295", "4294967296"]);
    // NDJSON numbers through the default 8 KiB reader.
    let lines: String = (0..20_000u64)
        .map(|i| format!("{}\n", 10_000_000 + i))
        .collect();
    let got: Vec<u64> =
        jitson::values_from_reader::<u64, _>(std::io::BufReader::new(lines.as_bytes()))
            .map(|r| r.unwrap().1)
            .collect();
    assert_eq!(
        got,
        (0..20_000u64).map(|i| 10_000_000 + i).collect::<Vec<_>>()
    );
}

/// When reading fails, an error the bytes read already hold comes first (a
/// syntax error, or a value of the wrong type), as serde_json, reading byte by
/// byte, meets it first; the read's error comes
/// first where the value may have gone on (`12` of `12345`, `1.`).
#[test]
fn a_syntax_error_before_a_failed_read_comes_first() {
    // What is read, the whole text, and whether what is read holds the whole
    // text's error.
    for (read, whole, held) in [
        ("[1,,", "[1,,2]", true),
        ("[1,,2", "[1,,2]", true),
        ("[1,,2]", "[1,,2]", true),
        ("[1 2", "[1 2]", true),
        ("[1,2", "[1,2]", false),
        ("[1.", "[1.5]", false),
        ("[12", "[12345]", false),
        ("[1, ", "[1, 2]", false),
        ("[\"a\"", "[\"a\"]", true),
        ("[\"\\q", "[\"\\q\"]", true),
    ] {
        let want = jitson::values::<Vec<u64>>(whole.as_bytes()).find_map(Result::err);
        for backend in common::backends() {
            for chunk in [1, 3, 100] {
                let reader = FailsAfter {
                    data: read.as_bytes().to_vec(),
                    at: 0,
                    chunk,
                };
                let got = Decoder::<Vec<u64>>::with_backend(backend)
                    .values_from_reader(std::io::BufReader::with_capacity(chunk, reader))
                    .find_map(Result::err)
                    .expect("an error");
                let why = format!("{read:?} {backend:?} {chunk}: {got}");
                if held {
                    let want = want.as_ref().expect("the whole text fails");
                    assert_eq!(common::shape(&got), common::shape(want), "{why}");
                } else {
                    assert_eq!(got.kind(), ErrorKind::Io, "{why}");
                }
            }
        }
        // `from_reader` reads to the end first, with the same precedence.
        let reader = FailsAfter {
            data: read.as_bytes().to_vec(),
            at: 0,
            chunk: 2,
        };
        let got = jitson::from_reader::<Vec<u64>, _>(reader).unwrap_err();
        if held {
            let want = jitson::from_slice::<Vec<u64>>(whole.as_bytes()).unwrap_err();
            assert_eq!(
                common::shape(&got),
                common::shape(&want),
                "from_reader {read:?}: {got}"
            );
        } else {
            assert_eq!(got.kind(), ErrorKind::Io, "from_reader {read:?}: {got}");
        }
    }
    // Trailing characters read before the failure.
    for read in ["1.5.2", "1 x"] {
        let reader = FailsAfter {
            data: read.as_bytes().to_vec(),
            at: 0,
            chunk: 1,
        };
        let got = jitson::from_reader::<f64, _>(reader).unwrap_err();
        assert!(
            got.to_string().starts_with("trailing characters"),
            "{read:?}: {got}"
        );
    }
}

/// More threads than lines, or than the system would start (a million asked
/// for over 50,000 lines aborted the process): at most 256 are started, and
/// the answer is the same.
#[test]
fn decode_lines_with_more_threads_than_lines() {
    let lines: String = (0..50_000u64).map(|i| format!("{i}\n")).collect();
    let want: Vec<u64> = (0..50_000).collect();
    for threads in [3_000, 1_000_000, usize::MAX] {
        let got = Decoder::<u64>::new()
            .decode_lines(lines.as_bytes(), threads)
            .unwrap();
        assert_eq!(got, want, "{threads}");
    }
}

/// Which error comes first when reading fails, against serde_json's reader:
/// an error decided by the bytes read (a value that closed and matches no
/// variant, a byte that is not UTF-8 in a closed string) before the read's;
/// the read's before an error that more input could change (a number or
/// literal running to the end, a character cut short).
#[test]
fn failed_reads_and_held_errors_as_serde_json_orders_them() {
    #[derive(jitson::Decode, serde::Deserialize, Debug, PartialEq)]
    #[serde(untagged)]
    enum OnlyBytes {
        A(u8),
    }
    fn check<T: jitson::Decode + serde::de::DeserializeOwned + std::fmt::Debug>(read: &[u8]) {
        let reader = || FailsAfter {
            data: read.to_vec(),
            at: 0,
            chunk: 2,
        };
        let theirs = serde_json::Deserializer::from_reader(reader())
            .into_iter::<T>()
            .find_map(Result::err)
            .expect("serde_json fails");
        let io = theirs.classify() == serde_json::error::Category::Io;
        let reason = theirs.to_string();
        let reason = reason
            .split(" at line ")
            .next()
            .unwrap_or_default()
            .to_owned();
        let why = |ours: &jitson::Error| {
            format!("{:?}: {ours} / {theirs}", String::from_utf8_lossy(read))
        };
        for backend in common::backends() {
            let ours = Decoder::<T>::with_backend(backend)
                .values_from_reader(std::io::BufReader::with_capacity(2, reader()))
                .find_map(Result::err)
                .expect("jitson fails");
            assert_eq!(ours.kind() == ErrorKind::Io, io, "{}", why(&ours));
            if !io {
                assert!(ours.to_string().starts_with(&reason), "{}", why(&ours));
            }
        }
        let ours = jitson::from_reader::<T, _>(reader()).unwrap_err();
        assert_eq!(
            ours.kind() == ErrorKind::Io,
            io,
            "from_reader {}",
            why(&ours)
        );
    }
    check::<OnlyBytes>(b"[1]");
    check::<OnlyBytes>(b"{\"a\":1}");
    check::<String>(b"\"\xff\"");
    check::<String>(b"\"a\xe6\x97\" ");
    check::<String>(b"\"a\xe6\x97");
    check::<u8>(b"300");
    check::<u32>(b"-1");
    check::<bool>(b"1");
    check::<f64>(b"1e400");
    check::<Vec<u8>>(b"[1,,");
    check::<Vec<u8>>(b"[1 2");
    check::<Vec<u8>>(b"[300");
}
