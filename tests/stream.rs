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
