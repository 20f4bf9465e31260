//! `jitson_arrow::writer` against arrow-json's writer, byte for byte: every
//! type × nulls present or absent × explicit nulls on/off × NDJSON/array ×
//! struct mode, sliced, empty and zero-column batches, the temporal format
//! options, refusals, a failing sink, the parallel write; and a property test
//! over random schemas and batches, read back with jitson-arrow's reader.

use std::sync::Arc;

use arrow_array::builder::{
    FixedSizeListBuilder, Int32Builder, ListBuilder, MapBuilder, StringBuilder,
};
use arrow_array::types::{Int8Type, Int16Type, Int32Type};
use arrow_array::*;
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer, i256};
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use jitson_arrow::Backend;
use jitson_arrow::writer::{self, StructMode};

/// Option sets: explicit nulls × struct mode.
const OPTIONS: [(bool, StructMode); 4] = [
    (false, StructMode::ObjectOnly),
    (true, StructMode::ObjectOnly),
    (false, StructMode::ListOnly),
    (true, StructMode::ListOnly),
];

fn theirs<F: arrow_json::writer::JsonFormat>(
    batches: &[&RecordBatch],
    explicit: bool,
    mode: StructMode,
    formats: &Formats,
) -> Result<Vec<u8>, ArrowError> {
    let mode = match mode {
        StructMode::ObjectOnly => arrow_json::StructMode::ObjectOnly,
        StructMode::ListOnly => arrow_json::StructMode::ListOnly,
    };
    let mut b = arrow_json::writer::WriterBuilder::new()
        .with_explicit_nulls(explicit)
        .with_struct_mode(mode);
    if let Some(f) = &formats.timestamp {
        b = b.with_timestamp_format(f.clone());
    }
    if let Some(f) = &formats.timestamp_tz {
        b = b.with_timestamp_tz_format(f.clone());
    }
    if let Some(f) = &formats.date {
        b = b.with_date_format(f.clone());
    }
    if let Some(f) = &formats.datetime {
        b = b.with_datetime_format(f.clone());
    }
    if let Some(f) = &formats.time {
        b = b.with_time_format(f.clone());
    }
    let mut w = b.build::<_, F>(Vec::new());
    w.write_batches(batches)?;
    w.finish()?;
    Ok(w.into_inner())
}

/// jitson's bytes on the default backend (the JIT where it runs).
fn ours<F: writer::JsonFormat>(
    batches: &[&RecordBatch],
    explicit: bool,
    mode: StructMode,
    formats: &Formats,
    threads: usize,
) -> Result<Vec<u8>, ArrowError> {
    ours_on::<F>(Backend::Auto, batches, explicit, mode, formats, threads)
}

/// The backends every byte comparison runs on.
fn backends() -> Vec<Backend> {
    if Backend::Jit.is_available() {
        vec![Backend::Interpreter, Backend::Jit]
    } else {
        vec![Backend::Interpreter]
    }
}

fn ours_on<F: writer::JsonFormat>(
    backend: Backend,
    batches: &[&RecordBatch],
    explicit: bool,
    mode: StructMode,
    formats: &Formats,
    threads: usize,
) -> Result<Vec<u8>, ArrowError> {
    let mut b = writer::WriterBuilder::new()
        .with_backend(backend)
        .with_explicit_nulls(explicit)
        .with_struct_mode(mode);
    if let Some(f) = &formats.timestamp {
        b = b.with_timestamp_format(f.clone());
    }
    if let Some(f) = &formats.timestamp_tz {
        b = b.with_timestamp_tz_format(f.clone());
    }
    if let Some(f) = &formats.date {
        b = b.with_date_format(f.clone());
    }
    if let Some(f) = &formats.datetime {
        b = b.with_datetime_format(f.clone());
    }
    if let Some(f) = &formats.time {
        b = b.with_time_format(f.clone());
    }
    let mut w = b.build::<_, F>(Vec::new());
    if threads == 1 {
        w.write_batches(batches)?;
    } else {
        w.write_batches_with_threads(batches, threads)?;
    }
    w.finish()?;
    Ok(w.into_inner())
}

#[derive(Default)]
struct Formats {
    timestamp: Option<String>,
    timestamp_tz: Option<String>,
    date: Option<String>,
    datetime: Option<String>,
    time: Option<String>,
}

/// Same bytes as arrow-json for every option set and both framings, on one
/// thread and on three.
fn same_bytes_with(batches: &[&RecordBatch], formats: &Formats) {
    for (explicit, mode) in OPTIONS {
        let what = format!("explicit nulls {explicit}, {mode:?}");
        let expected =
            theirs::<arrow_json::writer::LineDelimited>(batches, explicit, mode, formats)
                .unwrap_or_else(|e| panic!("arrow-json failed ({what}): {e}"));
        for backend in backends() {
            for threads in [1, 3] {
                let got = ours_on::<writer::LineDelimited>(
                    backend, batches, explicit, mode, formats, threads,
                )
                .unwrap_or_else(|e| panic!("jitson failed ({what}, {backend:?}): {e}"));
                assert_same(
                    &got,
                    &expected,
                    &format!("NDJSON, {what}, {backend:?}, {threads} threads"),
                );
            }
        }
        let expected =
            theirs::<arrow_json::writer::JsonArray>(batches, explicit, mode, formats).unwrap();
        for backend in backends() {
            let got =
                ours_on::<writer::JsonArray>(backend, batches, explicit, mode, formats, 1).unwrap();
            assert_same(&got, &expected, &format!("array, {what}, {backend:?}"));
        }
    }
}

/// Byte equality, reporting the first difference with some context.
fn assert_same(got: &[u8], expected: &[u8], what: &str) {
    if got == expected {
        return;
    }
    let at = got.iter().zip(expected).take_while(|(a, b)| a == b).count();
    let from = got[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    panic!(
        "{what}: bytes differ at {at} (lengths {} and {})\n  jitson:     {}\n  arrow-json: {}",
        got.len(),
        expected.len(),
        String::from_utf8_lossy(&got[from..(at + 40).min(got.len())]),
        String::from_utf8_lossy(&expected[from..(at + 40).min(expected.len())]),
    );
}

fn same_bytes(batches: &[&RecordBatch]) {
    same_bytes_with(batches, &Formats::default())
}

/// A one-column batch.
fn batch_of(name: &str, array: ArrayRef) -> RecordBatch {
    let nullable = true;
    let schema = Schema::new(vec![Field::new(name, array.data_type().clone(), nullable)]);
    RecordBatch::try_new(Arc::new(schema), vec![array]).unwrap()
}

/// Checks a column with its nulls, without them (the non-null rows), sliced,
/// inside a struct (with a null struct row), inside a list, and beside an
/// integer column — each compared with arrow-json.
fn check_column(name: &str, array: ArrayRef) {
    let with_nulls = batch_of(name, array.clone());
    same_bytes(&[&with_nulls]);
    let valid = compute_is_not_null(&array);
    let no_nulls = arrow_select::filter::filter(&array, &valid).unwrap();
    assert_eq!(no_nulls.null_count(), 0);
    same_bytes(&[&batch_of(name, no_nulls.clone())]);
    if array.len() > 2 {
        let sliced = with_nulls.slice(1, array.len() - 2);
        same_bytes(&[&sliced]);
        same_bytes(&[&sliced, &with_nulls, &batch_of(name, no_nulls)]);
    }
    // In a struct, with one null struct row.
    let len = array.len();
    let struct_nulls = NullBuffer::from((0..len).map(|i| i % 3 != 1).collect::<Vec<_>>());
    let ids: ArrayRef = Arc::new(Int32Array::from_iter(
        (0..len as i32).map(|i| (i % 4 != 0).then_some(i)),
    ));
    let fields = Fields::from(vec![
        Field::new(name, array.data_type().clone(), true),
        Field::new("id", DataType::Int32, true),
    ]);
    let nested: ArrayRef = Arc::new(
        StructArray::try_new(fields, vec![array.clone(), ids.clone()], Some(struct_nulls)).unwrap(),
    );
    same_bytes(&[&batch_of("s", nested.clone())]);
    if len > 2 {
        same_bytes(&[&batch_of("s", nested.slice(1, len - 2))]);
    }
    // In a list: rows of two elements, one null list.
    if len >= 2 {
        let lists = len / 2;
        let offsets = OffsetBuffer::new(ScalarBuffer::from(
            (0..=lists as i32).map(|i| i * 2).collect::<Vec<_>>(),
        ));
        let list_nulls = NullBuffer::from((0..lists).map(|i| i != 1).collect::<Vec<_>>());
        let item = Arc::new(Field::new("item", array.data_type().clone(), true));
        let values = array.slice(0, lists * 2);
        let list: ArrayRef =
            Arc::new(ListArray::try_new(item, offsets, values, Some(list_nulls)).unwrap());
        same_bytes(&[&batch_of("l", list.clone())]);
        if lists > 2 {
            same_bytes(&[&batch_of("l", list.slice(1, lists - 1))]);
        }
    }
    // Beside another column.
    let schema = Schema::new(vec![
        Field::new("id", DataType::Int32, true),
        Field::new(name, array.data_type().clone(), true),
    ]);
    let two = RecordBatch::try_new(Arc::new(schema), vec![ids, array]).unwrap();
    same_bytes(&[&two]);
}

fn compute_is_not_null(array: &ArrayRef) -> BooleanArray {
    let nulls = array.logical_nulls();
    BooleanArray::from(
        (0..array.len())
            .map(|i| nulls.as_ref().is_none_or(|n| n.is_valid(i)))
            .collect::<Vec<_>>(),
    )
}

#[test]
fn integers() {
    check_column(
        "i8",
        Arc::new(Int8Array::from(vec![
            Some(i8::MIN),
            None,
            Some(0),
            Some(-1),
            Some(i8::MAX),
        ])),
    );
    check_column(
        "i16",
        Arc::new(Int16Array::from(vec![
            Some(i16::MIN),
            Some(7),
            None,
            Some(i16::MAX),
        ])),
    );
    check_column(
        "i32",
        Arc::new(Int32Array::from(vec![
            Some(i32::MIN),
            Some(-42),
            None,
            Some(i32::MAX),
            Some(0),
        ])),
    );
    check_column(
        "i64",
        Arc::new(Int64Array::from(vec![
            Some(i64::MIN),
            None,
            Some(1 << 40),
            Some(i64::MAX),
        ])),
    );
    check_column(
        "u8",
        Arc::new(UInt8Array::from(vec![Some(0), Some(255), None, Some(9)])),
    );
    check_column(
        "u16",
        Arc::new(UInt16Array::from(vec![
            Some(0),
            None,
            Some(u16::MAX),
            Some(10),
        ])),
    );
    check_column(
        "u32",
        Arc::new(UInt32Array::from(vec![
            Some(u32::MAX),
            None,
            Some(0),
            Some(100),
        ])),
    );
    check_column(
        "u64",
        Arc::new(UInt64Array::from(vec![
            Some(u64::MAX),
            Some(0),
            None,
            Some(99999),
        ])),
    );
}

fn special_f64() -> Vec<Option<f64>> {
    let mut v = vec![
        Some(0.0),
        Some(-0.0),
        Some(1.0),
        Some(-1.0),
        Some(0.1),
        Some(1.0 / 3.0),
        None,
        Some(1e9),
        Some(1e10),
        Some(123456789.0),
        Some(1234567890.0),
        Some(9999999999.0),
        Some(12345.678),
        Some(1e-5),
        Some(1.5e-5),
        Some(1e-6),
        Some(1.5e-7),
        Some(0.000123),
        Some(1e15),
        Some(1e16),
        Some(1e17),
        Some(1e21),
        Some(1e22),
        Some(1e100),
        Some(-2.5e300),
        Some(f64::MAX),
        Some(f64::MIN),
        Some(f64::MIN_POSITIVE),
        Some(5e-324),
        Some(f64::EPSILON),
        Some(f64::NAN),
        Some(f64::INFINITY),
        Some(f64::NEG_INFINITY),
        Some(100.0),
        Some(0.5),
    ];
    // Pseudo-random bit patterns, every exponent.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..3000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.push(Some(f64::from_bits(x)));
    }
    // Short decimals, as data usually has.
    for i in 0..1000 {
        v.push(Some(i as f64 * 0.37 - 50.0));
    }
    v
}

#[test]
fn floats() {
    let values = special_f64();
    check_column("f64", Arc::new(Float64Array::from(values.clone())));
    let f32s: Vec<Option<f32>> = values.iter().map(|v| v.map(|v| v as f32)).collect();
    check_column("f32", Arc::new(Float32Array::from(f32s)));
    let mut x = 0x1234_5678u32;
    let random: Vec<Option<f32>> = (0..5000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            Some(f32::from_bits(x))
        })
        .collect();
    same_bytes(&[&batch_of("f32", Arc::new(Float32Array::from(random)))]);
    let f16s: Vec<Option<half::f16>> = (0..=u16::MAX)
        .step_by(7)
        .map(|b| (b % 11 != 0).then(|| half::f16::from_bits(b)))
        .collect();
    check_column("f16", Arc::new(Float16Array::from(f16s)));
}

#[test]
fn booleans_and_nulls() {
    check_column(
        "b",
        Arc::new(BooleanArray::from(vec![
            Some(true),
            None,
            Some(false),
            Some(true),
            None,
        ])),
    );
    check_column("n", Arc::new(NullArray::new(5)));
}

fn strings() -> Vec<Option<String>> {
    let mut v: Vec<Option<String>> = vec![
        Some("".into()),
        Some("plain".into()),
        None,
        Some("quote \" and \\ backslash".into()),
        Some("\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}".into()),
        Some("é ü 😀 \u{2028}\u{2029}".into()),
        Some("a string long enough to be out of line in a view array".into()),
        Some("<html> & 'apostrophes' /slash/".into()),
        // At a string view's 12 bytes in line, and past them.
        Some("twelve bytes".into()),
        Some("eleven byte\"".into()),
        Some("ten bytes\n".into()),
        Some("nine byt😀".into()),
        Some("thirteen byte".into()),
        Some("\u{1}".into()),
    ];
    for c in 0u8..0x21 {
        v.push(Some(format!("x{}y", c as char)));
    }
    v
}

#[test]
fn texts() {
    let s = strings();
    check_column("s", Arc::new(StringArray::from(s.clone())));
    check_column("ls", Arc::new(LargeStringArray::from(s.clone())));
    check_column("vs", Arc::new(StringViewArray::from(s.clone())));
    // Binary views hold up to 12 bytes in place, longer ones in a buffer.
    let long: Vec<u8> = (0..=255u8).rev().collect();
    let bytes: Vec<Option<&[u8]>> = vec![
        Some(b""),
        Some(b"\x00\xff\x10abc"),
        None,
        Some(b"xyz"),
        Some(&long[..12]),
        Some(&long[..13]),
        Some(&long[100..140]),
        Some(&long),
    ];
    check_column("bin", Arc::new(BinaryArray::from(bytes.clone())));
    check_column("lbin", Arc::new(LargeBinaryArray::from(bytes.clone())));
    check_column("vbin", Arc::new(BinaryViewArray::from(bytes)));
    let fixed = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
        vec![
            Some(vec![1u8, 2, 255]),
            None,
            Some(vec![0, 0, 0]),
            Some(vec![16, 32, 48]),
        ]
        .into_iter(),
        3,
    )
    .unwrap();
    check_column("fbin", Arc::new(fixed));
    let wide = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
        (0..40u8).map(|i| (i % 5 != 2).then(|| vec![i.wrapping_mul(37); 20])),
        20,
    )
    .unwrap();
    check_column("wide", Arc::new(wide));
}

/// Texts of every length to 300 bytes with one byte to escape at a position
/// near either end or every seventh in between (the compiled writer's inline
/// paths: 16 bytes read from the column, the encoder's words, vectors and
/// loop of vectors to 256 bytes, a helper beyond), in each string layout:
/// arrow-json's bytes on both backends.
#[test]
fn texts_with_one_byte_to_escape_at_every_length() {
    let specials = ['"', '\\', '\n', '\u{1f}', '\u{0}'];
    let mut texts = Vec::new();
    for len in 0..=300usize {
        texts.push(Some("a".repeat(len)));
        for at in (0..len).filter(|&at| at < 40 || at + 40 > len || at % 7 == 0) {
            let mut text = "a".repeat(len);
            let special = specials[(at + len) % specials.len()];
            text.replace_range(at..=at, special.encode_utf8(&mut [0; 4]));
            texts.push(Some(text));
        }
    }
    same_bytes(&[&batch_of("s", Arc::new(StringArray::from(texts.clone())))]);
    same_bytes(&[&batch_of(
        "l",
        Arc::new(LargeStringArray::from(texts.clone())),
    )]);
    same_bytes(&[&batch_of("v", Arc::new(StringViewArray::from(texts)))]);
}

fn timestamp_values() -> Vec<Option<i64>> {
    vec![
        Some(0),
        Some(1),
        Some(-1),
        None,
        Some(1_700_000_000),
        Some(1_700_000_000_123),
        Some(1_700_000_000_123_456),
        Some(1_700_000_000_123_456_789),
        Some(-62_135_596_800),
        Some(253_402_300_799),
        Some(253_402_300_800),
        Some(-62_135_596_801),
        Some(999),
        Some(1000),
        Some(86_399_999),
        Some(i64::MAX),
        Some(i64::MIN),
    ]
}

#[test]
fn timestamps() {
    let v = timestamp_values();
    for tz in [
        None,
        Some("+05:30"),
        Some("-08:00"),
        Some("+00:00"),
        Some("+0100"),
        Some("-03"),
    ] {
        let tz: Option<Arc<str>> = tz.map(Into::into);
        check_column(
            "s",
            Arc::new(TimestampSecondArray::from(v.clone()).with_timezone_opt(tz.clone())),
        );
        check_column(
            "ms",
            Arc::new(TimestampMillisecondArray::from(v.clone()).with_timezone_opt(tz.clone())),
        );
        check_column(
            "us",
            Arc::new(TimestampMicrosecondArray::from(v.clone()).with_timezone_opt(tz.clone())),
        );
        check_column(
            "ns",
            Arc::new(TimestampNanosecondArray::from(v.clone()).with_timezone_opt(tz)),
        );
    }
}

/// Runs of timestamps on one day, across midnight, back to an earlier day,
/// with years the fast path declines in between: the date of the day before
/// is reused (the writer keeps the last day's text per thread) only for the
/// same day, in every fraction width, as arrow-json writes them.
#[test]
fn timestamps_in_runs_of_one_day() {
    let day = 86_400_000i64;
    let base = 19_723 * day; // 2024-01-01
    let mut ms = Vec::new();
    for step in [1, 7, 999, 1_000, 3_599_999] {
        for i in 0..40 {
            ms.push(Some(base + i * step));
        }
    }
    ms.extend([
        Some(base + day - 1),
        Some(base + day),
        Some(base - 1),
        Some(base),
        Some(253_402_300_800_000),
        Some(base + 5),
        Some(-62_135_596_801_000),
        Some(base + 5),
        None,
        Some(base + 2 * day + 10),
    ]);
    check_column("ms", Arc::new(TimestampMillisecondArray::from(ms.clone())));
    let ns: Vec<Option<i64>> = ms
        .iter()
        .map(|v| v.map(|v| v.saturating_mul(1_000_000).saturating_add(v % 1_000)))
        .collect();
    check_column("ns", Arc::new(TimestampNanosecondArray::from(ns)));
    let us: Vec<Option<i64>> = ms.iter().map(|v| v.map(|v| v * 1_000 + 1)).collect();
    check_column("us", Arc::new(TimestampMicrosecondArray::from(us)));
    let days: Vec<Option<i32>> = ms.iter().map(|v| v.map(|v| (v / day) as i32)).collect();
    check_column("d32", Arc::new(Date32Array::from(days)));
}

#[test]
fn dates_and_times() {
    check_column(
        "d32",
        Arc::new(Date32Array::from(vec![
            Some(0),
            Some(-1),
            None,
            Some(19_000),
            Some(-719_528),
            Some(2_932_896),
            Some(3_000_000),
            Some(-800_000),
            Some(i32::MAX),
        ])),
    );
    check_column(
        "d64",
        Arc::new(Date64Array::from(vec![
            Some(0),
            Some(-1),
            None,
            Some(1_700_000_000_123),
            Some(86_400_000),
            Some(253_402_300_800_000),
            Some(i64::MAX),
        ])),
    );
    check_column(
        "t32s",
        Arc::new(Time32SecondArray::from(vec![
            Some(0),
            Some(86_399),
            None,
            Some(45_296),
            Some(-1),
            Some(86_400),
        ])),
    );
    check_column(
        "t32ms",
        Arc::new(Time32MillisecondArray::from(vec![
            Some(0),
            Some(86_399_999),
            None,
            Some(45_296_100),
            Some(45_296_120),
            Some(-1),
            Some(86_400_000),
            Some(i32::MIN),
        ])),
    );
    check_column(
        "t64us",
        Arc::new(Time64MicrosecondArray::from(vec![
            Some(0),
            Some(86_399_999_999),
            None,
            Some(45_296_000_001),
            Some(45_296_010_000),
            Some(-1),
            Some(86_400_000_000),
            Some(i64::MAX),
        ])),
    );
    check_column(
        "t64ns",
        Arc::new(Time64NanosecondArray::from(vec![
            Some(0),
            Some(86_399_999_999_999),
            None,
            Some(45_296_000_000_010),
            Some(45_296_000_100_000),
            Some(-1),
            Some(86_400_000_000_000),
            Some(i64::MIN),
        ])),
    );
}

#[test]
fn temporal_formats() {
    let formats = Formats {
        timestamp: Some("%Y/%m/%d %H-%M-%S%.3f".into()),
        timestamp_tz: Some("%d.%m.%Y %H:%M %z".into()),
        date: Some("%A %e %B %Y".into()),
        datetime: Some("%s".into()),
        time: Some("%I:%M %p".into()),
    };
    let v = timestamp_values();
    let schema = Schema::new(vec![
        Field::new("ts", DataType::Timestamp(TimeUnit::Millisecond, None), true),
        Field::new(
            "tz",
            DataType::Timestamp(TimeUnit::Microsecond, Some("+02:00".into())),
            true,
        ),
        Field::new("d", DataType::Date32, true),
        Field::new("d64", DataType::Date64, true),
        Field::new("t", DataType::Time32(TimeUnit::Second), true),
    ]);
    let n = v.len();
    let batch = RecordBatch::try_new(
        Arc::new(schema),
        vec![
            Arc::new(TimestampMillisecondArray::from(v.clone())),
            Arc::new(TimestampMicrosecondArray::from(v.clone()).with_timezone("+02:00")),
            Arc::new(Date32Array::from_iter(
                (0..n as i32).map(|i| Some(i * 1000 - 5000)),
            )),
            Arc::new(Date64Array::from(v.clone())),
            Arc::new(Time32SecondArray::from_iter(
                (0..n as i32).map(|i| Some(i * 5000)),
            )),
        ],
    )
    .unwrap();
    same_bytes_with(&[&batch], &formats);
}

#[test]
fn decimals() {
    let values = vec![
        Some(0i128),
        Some(12345),
        Some(-12345),
        None,
        Some(5),
        Some(-5),
        Some(10i128.pow(37)),
        Some(-(10i128.pow(38) - 1)),
        Some(100),
        // Past precision 38 (arrow's formatting cuts the digits).
        Some(i128::MAX),
        Some(i128::MIN),
        Some(-1),
    ];
    // Texts of every length up to past the compiled writer's 64 bytes of
    // room (a scale of -30 on 39 digits: 69), which the encoder then writes.
    for (p, s) in [
        (10u8, 2i8),
        (38, 0),
        (5, -2),
        (10, 10),
        (20, 15),
        (3, 1),
        (38, 38),
        (38, -24),
        (38, -25),
        (38, -30),
        (1, -100),
        (38, 37),
    ] {
        let a = Decimal128Array::from(values.clone())
            .with_precision_and_scale(p, s)
            .unwrap();
        check_column("d128", Arc::new(a));
    }
    let wide: Vec<Option<i256>> = values
        .iter()
        .map(|v| v.map(i256::from_i128))
        .chain([Some(i256::MAX), Some(i256::MIN)])
        // Just past i128's range: the compiled writer declines them.
        .chain([
            i256::from_i128(i128::MAX).checked_add(i256::ONE),
            i256::from_i128(i128::MIN).checked_sub(i256::ONE),
        ])
        .collect();
    for (p, s) in [(76u8, 10i8), (50, 0), (76, -3), (76, 76), (5, 2), (38, 37)] {
        let a = Decimal256Array::from(wide.clone())
            .with_precision_and_scale(p, s)
            .unwrap();
        check_column("d256", Arc::new(a));
    }
    for (p, s) in [(9u8, 3i8), (9, 9), (1, 0), (9, -70)] {
        let small = Decimal32Array::from(vec![
            Some(12345),
            None,
            Some(-7),
            Some(i32::MAX),
            Some(i32::MIN),
        ])
        .with_precision_and_scale(p, s)
        .unwrap();
        check_column("d32", Arc::new(small));
    }
    for (p, s) in [(18u8, 4i8), (18, 18), (18, -50)] {
        let mid = Decimal64Array::from(vec![
            Some(12345),
            None,
            Some(-7),
            Some(i64::MAX),
            Some(i64::MIN),
        ])
        .with_precision_and_scale(p, s)
        .unwrap();
        check_column("d64", Arc::new(mid));
    }
}

#[test]
fn lists() {
    let mut b = ListBuilder::new(Int32Builder::new());
    b.append_value([Some(1), None, Some(3)]);
    b.append_null();
    b.append_value([]);
    b.append_value([Some(-4)]);
    b.append_value([None, None]);
    let list = Arc::new(b.finish()) as ArrayRef;
    check_column("list", list.clone());
    let large = arrow_cast_large(&list);
    check_column("large", large);

    let mut f = FixedSizeListBuilder::new(StringBuilder::new(), 2);
    for row in [
        [Some("a"), None],
        [Some("b"), Some("c")],
        [None, None],
        [Some("\""), Some("")],
    ] {
        for v in row {
            f.values().append_option(v);
        }
        f.append(true);
    }
    f.values().append_value("x");
    f.values().append_value("y");
    f.append(false);
    check_column("fixed", Arc::new(f.finish()));

    let values: ArrayRef = Arc::new(Int32Array::from(vec![
        Some(1),
        None,
        Some(3),
        Some(4),
        Some(5),
    ]));
    let view = ListViewArray::try_new(
        Arc::new(Field::new("item", DataType::Int32, true)),
        ScalarBuffer::from(vec![0, 3, 1, 0]),
        ScalarBuffer::from(vec![2, 2, 0, 5]),
        values,
        Some(NullBuffer::from(vec![true, true, false, true])),
    )
    .unwrap();
    check_column("view", Arc::new(view.clone()));
    let large = LargeListViewArray::try_new(
        Arc::new(Field::new("item", DataType::Int32, true)),
        ScalarBuffer::from(vec![0i64, 3, 1, 0]),
        ScalarBuffer::from(vec![2i64, 2, 0, 5]),
        view.values().clone(),
        Some(NullBuffer::from(vec![true, true, false, true])),
    )
    .unwrap();
    check_column("large_view", Arc::new(large));
}

/// A List array as a LargeList of the same values.
fn arrow_cast_large(list: &ArrayRef) -> ArrayRef {
    let list = list.as_any().downcast_ref::<ListArray>().unwrap();
    let offsets: Vec<i64> = list.value_offsets().iter().map(|&o| o as i64).collect();
    Arc::new(
        LargeListArray::try_new(
            Arc::new(Field::new("item", DataType::Int32, true)),
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            list.values().clone(),
            list.nulls().cloned(),
        )
        .unwrap(),
    )
}

#[test]
fn structs_maps_dictionaries() {
    let inner = StructArray::from(vec![
        (
            Arc::new(Field::new("a", DataType::Int32, true)),
            Arc::new(Int32Array::from(vec![Some(1), None, Some(3), None])) as ArrayRef,
        ),
        (
            Arc::new(Field::new("b\"q", DataType::Utf8, true)),
            Arc::new(StringArray::from(vec![None, Some("x"), Some("y"), None])) as ArrayRef,
        ),
    ]);
    check_column("st", Arc::new(inner));

    let mut m = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    m.keys().append_value("k1");
    m.values().append_value(1);
    m.keys().append_value("k\n2");
    m.values().append_null();
    m.append(true).unwrap();
    m.append(false).unwrap();
    m.append(true).unwrap();
    m.keys().append_value("z");
    m.values().append_value(-9);
    m.append(true).unwrap();
    check_column("map", Arc::new(m.finish()));

    let dict: DictionaryArray<Int32Type> =
        vec![Some("cup"), Some("foo"), None, Some("cup"), Some("\"q\"")]
            .into_iter()
            .collect();
    check_column("dict", Arc::new(dict));
    let dict8: DictionaryArray<Int8Type> = vec![Some("a"), None, Some("b"), Some("a")]
        .into_iter()
        .collect();
    check_column("dict8", Arc::new(dict8));
    // Dictionary values with a null the keys point at: arrow-json writes the
    // slot's value; so does jitson.
    let values = Int32Array::from(vec![Some(10), None]);
    let keys = Int16Array::from(vec![Some(0), Some(1), None, Some(1)]);
    let dict = DictionaryArray::<Int16Type>::try_new(keys, Arc::new(values)).unwrap();
    check_column("dictnull", Arc::new(dict));
    // Every key width, and values of the kinds the compiled writer reads
    // itself (texts behind offsets and in views, floats, timestamps, dates,
    // durations).
    let texts: ArrayRef = Arc::new(StringArray::from(strings()));
    let views: ArrayRef = Arc::new(StringViewArray::from(strings()));
    let floats: ArrayRef = Arc::new(Float64Array::from(vec![
        Some(0.1),
        None,
        Some(-0.0),
        Some(1e300),
        Some(f64::NAN),
    ]));
    let stamps: ArrayRef = Arc::new(
        TimestampMillisecondArray::from(vec![Some(0), Some(-1), None, Some(1_700_000_000_123)])
            .with_timezone("+05:30"),
    );
    // Temporal values at a null slot: a key there writes `""`.
    let dates: ArrayRef = Arc::new(Date32Array::from(vec![Some(0), Some(19_000), None]));
    let durations: ArrayRef = Arc::new(DurationMicrosecondArray::from(vec![
        None,
        Some(1_500_000),
        Some(-1),
    ]));
    for values in [texts, views, floats, stamps, dates, durations] {
        let n = values.len() as u64;
        let key = |i: u64| (i * 7 + 3) % n;
        let valid = |i: u64| i % 5 != 2;
        macro_rules! dict {
            ($key:ty, $keys:ty) => {{
                let keys = <$keys>::from_iter((0..40u64).map(|i| valid(i).then(|| key(i) as _)));
                let dict = DictionaryArray::<$key>::try_new(keys, values.clone()).unwrap();
                check_column("d", Arc::new(dict));
            }};
        }
        dict!(Int8Type, Int8Array);
        dict!(arrow_array::types::UInt16Type, UInt16Array);
        dict!(Int32Type, Int32Array);
        dict!(arrow_array::types::UInt64Type, UInt64Array);
    }

    let run = RunArray::<Int32Type>::try_new(
        &Int32Array::from(vec![2, 3, 6]),
        &StringArray::from(vec![Some("a"), None, Some("c")]),
    )
    .unwrap();
    same_bytes(&[&batch_of("ree", Arc::new(run))]);
}

/// A key pointing at a null decimal in a dictionary's values: arrow-json
/// writes nothing for the value (`{"d":}`, not JSON); jitson writes the
/// digits the slot holds, as both write a null slot of integers (the one
/// difference in bytes, docs/arrow.md).
/// A map with a null key or a null entry is refused by arrow-json; both
/// backends refuse it too, inside a struct and a list as well as at the
/// top. `MapArray::try_new` refuses such maps itself, so they are built
/// here without its checks, as data from elsewhere (FFI, IPC) can be.
#[test]
fn maps_with_null_keys_or_entries_are_refused() {
    let fields = Fields::from(vec![
        Field::new("keys", DataType::Utf8, false),
        Field::new("values", DataType::Int32, true),
    ]);
    let map = |keys: StringArray, entry_nulls: Option<arrow_buffer::Buffer>| {
        let mut entries = arrow_data::ArrayData::builder(DataType::Struct(fields.clone()))
            .len(3)
            .child_data(vec![
                keys.to_data(),
                Int32Array::from(vec![1, 2, 3]).to_data(),
            ]);
        if let Some(bits) = entry_nulls {
            entries = entries.null_bit_buffer(Some(bits));
        }
        let field = Arc::new(Field::new(
            "entries",
            DataType::Struct(fields.clone()),
            false,
        ));
        let map = arrow_data::ArrayData::builder(DataType::Map(field, false))
            .len(2)
            .add_buffer(arrow_buffer::Buffer::from_slice_ref([0i32, 2, 3]));
        // SAFETY: the buffers are as long as the lengths say, the offsets
        // lie within the 3 entries, the children have the fields' types:
        // only the nullability rules are broken, which the writers check.
        let data = unsafe {
            map.child_data(vec![entries.build_unchecked()])
                .build_unchecked()
        };
        Arc::new(MapArray::from(data)) as ArrayRef
    };
    let null_key = map(StringArray::from(vec![Some("a"), None, Some("c")]), None);
    let null_entry = map(
        StringArray::from(vec!["a", "b", "c"]),
        Some(arrow_buffer::Buffer::from_slice_ref([0b101u8])),
    );
    for (what, array) in [("a null key", null_key), ("a null entry", null_entry)] {
        let in_struct: ArrayRef = Arc::new(StructArray::from(vec![(
            Arc::new(Field::new("m", array.data_type().clone(), true)),
            array.clone(),
        )]));
        let in_list: ArrayRef = Arc::new(
            ListArray::try_new(
                Arc::new(Field::new("item", array.data_type().clone(), true)),
                OffsetBuffer::new(ScalarBuffer::from(vec![0, 1, 2])),
                array.clone(),
                None,
            )
            .unwrap(),
        );
        for array in [array, in_struct, in_list] {
            let batch = batch_of("m", array);
            let opts = (false, StructMode::ObjectOnly, &Formats::default());
            let theirs =
                theirs::<arrow_json::writer::LineDelimited>(&[&batch], opts.0, opts.1, opts.2);
            let expected = theirs.expect_err("arrow-json refuses it").to_string();
            assert!(
                expected.contains("Encountered nulls in MapArray"),
                "{expected}"
            );
            for backend in backends() {
                let ours =
                    ours_on::<writer::LineDelimited>(backend, &[&batch], opts.0, opts.1, opts.2, 1);
                let message = ours.expect_err("jitson refuses it").to_string();
                assert!(
                    message.contains("Encountered nulls in MapArray"),
                    "{what}, {backend:?}: {message}"
                );
            }
        }
    }
}

#[test]
fn dictionary_keys_at_null_decimals_write_the_slot() {
    let values = Decimal128Array::from(vec![Some(1234), None])
        .with_precision_and_scale(10, 2)
        .unwrap();
    let keys = Int32Array::from(vec![Some(1), Some(0)]);
    let dict = DictionaryArray::<Int32Type>::try_new(keys, Arc::new(values)).unwrap();
    let batch = batch_of("d", Arc::new(dict));
    let formats = Formats::default();
    let arrow_json = theirs::<arrow_json::writer::LineDelimited>(
        &[&batch],
        false,
        StructMode::ObjectOnly,
        &formats,
    )
    .unwrap();
    assert_eq!(arrow_json, b"{\"d\":}\n{\"d\":12.34}\n");
    for backend in backends() {
        let ours = ours_on::<writer::LineDelimited>(
            backend,
            &[&batch],
            false,
            StructMode::ObjectOnly,
            &formats,
            1,
        )
        .unwrap();
        assert_eq!(ours, b"{\"d\":0.00}\n{\"d\":12.34}\n", "{backend:?}");
    }
}

/// Runs `write` on its own thread: whether it panicked, or `None` if it did
/// not return within two minutes (a hang; the thread is left behind).
fn panics_in_time(write: impl FnOnce() + Send + 'static) -> Option<bool> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(write));
        let _ = tx.send(outcome.is_err());
    });
    rx.recv_timeout(std::time::Duration::from_secs(120)).ok()
}

/// A value that panics while formatted (chrono's last second, shifted past
/// its range by the zone: both writers panic in chrono, as arrow-json does)
/// in any task of a parallel write: the panic reaches the caller. The
/// worker that panicked never sent its task, and the caller waited for it
/// for ever (found by a hostile review; 9 to 10 of 12 positions hung).
#[test]
fn a_panic_in_a_parallel_write_reaches_the_caller() {
    // chrono::NaiveDateTime::MAX in seconds since the epoch.
    const CHRONO_LAST_SECOND: i64 = 8_210_266_876_799;
    for backend in backends() {
        for task in [0, 1, 2, 5, 11, 78] {
            let mut values = vec![1_700_000_000i64; 20_000];
            values[task * 256 + 7] = CHRONO_LAST_SECOND;
            let batch = batch_of(
                "t",
                Arc::new(TimestampSecondArray::from(values).with_timezone("+01:00")),
            );
            let panicked = panics_in_time(move || {
                let _ = ours_on::<writer::LineDelimited>(
                    backend,
                    &[&batch],
                    false,
                    StructMode::ObjectOnly,
                    &Formats::default(),
                    3,
                );
            });
            assert_eq!(
                panicked,
                Some(true),
                "{backend:?}, the value in task {task}"
            );
        }
    }
    // A sink that panics on its second write.
    struct Panicky(usize);
    impl std::io::Write for Panicky {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += 1;
            assert!(self.0 < 2, "the sink panics");
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let rows: Vec<String> = (0..200_000).map(|i| format!("row {i}")).collect();
    let batch = batch_of("s", Arc::new(StringArray::from(rows)));
    for backend in backends() {
        let batch = batch.clone();
        let panicked = panics_in_time(move || {
            let mut w = writer::WriterBuilder::new()
                .with_backend(backend)
                .build::<_, writer::LineDelimited>(Panicky(0));
            let _ = w.write_batches_with_threads(&[&batch], 3);
        });
        assert_eq!(panicked, Some(true), "{backend:?}, a panicking sink");
    }
}

#[test]
fn empty_and_zero_column_batches() {
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, true)]));
    let empty = RecordBatch::new_empty(schema.clone());
    same_bytes(&[]);
    same_bytes(&[&empty]);
    let one = batch_of("a", Arc::new(Int32Array::from(vec![Some(1), None])));
    same_bytes(&[&empty, &one, &empty, &one]);
    let no_columns = RecordBatch::try_new_with_options(
        Arc::new(Schema::empty()),
        vec![],
        &RecordBatchOptions::new().with_row_count(Some(3)),
    )
    .unwrap();
    same_bytes(&[&no_columns]);
    same_bytes(&[&no_columns, &no_columns]);
}

#[test]
fn many_batches_in_parallel_keep_order() {
    let batches: Vec<RecordBatch> = (0..40)
        .map(|b| {
            // Mostly small batches, some cut into several parallel tasks.
            let n = if b % 9 == 4 { 3000 + b } else { (b * 37) % 100 };
            batch_of(
                "v",
                Arc::new(StringArray::from_iter(
                    (0..n).map(|i| (i % 5 != 0).then(|| format!("b{b}r{i}"))),
                )),
            )
        })
        .collect();
    let refs: Vec<&RecordBatch> = batches.iter().collect();
    same_bytes(&refs);
    let mut w = writer::ArrayWriter::new(Vec::new());
    w.write_batches_parallel(&refs).unwrap();
    w.finish().unwrap();
    let expected = theirs::<arrow_json::writer::JsonArray>(
        &refs,
        false,
        StructMode::ObjectOnly,
        &Formats::default(),
    )
    .unwrap();
    assert_eq!(w.into_inner(), expected);
}

/// The errors arrow-json gives, jitson gives (naming the column).
#[test]
fn refusals() {
    let union_fields =
        arrow_schema::UnionFields::try_new(vec![0], vec![Field::new("a", DataType::Int32, true)])
            .unwrap();
    let union = UnionArray::try_new(
        union_fields,
        ScalarBuffer::from(vec![0i8]),
        None,
        vec![Arc::new(Int32Array::from(vec![1])) as ArrayRef],
    )
    .unwrap();
    let named = TimestampSecondArray::from(vec![0]).with_timezone("Europe/Paris");
    let int_keys =
        MapArray::new_from_strings(["a"].into_iter(), &Int32Array::from(vec![1]), &[0, 1]).unwrap();
    let int_keys = {
        // The same map with Int32 keys.
        let entries = StructArray::from(vec![
            (
                Arc::new(Field::new("keys", DataType::Int32, false)),
                Arc::new(Int32Array::from(vec![7])) as ArrayRef,
            ),
            (
                Arc::new(Field::new("values", DataType::Int32, true)),
                int_keys.values().clone(),
            ),
        ]);
        MapArray::try_new(
            Arc::new(Field::new("entries", entries.data_type().clone(), false)),
            OffsetBuffer::new(ScalarBuffer::from(vec![0, 1])),
            entries,
            None,
            false,
        )
        .unwrap()
    };
    for (name, array) in [
        ("u", Arc::new(union) as ArrayRef),
        ("paris", Arc::new(named)),
        ("intmap", Arc::new(int_keys)),
    ] {
        let batch = batch_of(name, array);
        let theirs = theirs::<arrow_json::writer::LineDelimited>(
            &[&batch],
            false,
            StructMode::ObjectOnly,
            &Formats::default(),
        );
        let ours = ours::<writer::LineDelimited>(
            &[&batch],
            false,
            StructMode::ObjectOnly,
            &Formats::default(),
            1,
        );
        // A named zone is written when arrow has `chrono-tz` (DataFusion's
        // builds, so `cargo test --workspace`), by both writers, with the same
        // bytes; without it both refuse it.
        let chrono_tz = "Europe/Paris".parse::<arrow_array::timezone::Tz>().is_ok();
        if chrono_tz && name == "paris" {
            let (theirs, ours) = (theirs.expect("arrow-json"), ours.expect("jitson"));
            assert!(theirs == ours, "{name}: different bytes");
            continue;
        }
        assert!(theirs.is_err(), "{name}: arrow-json accepted it");
        let message = ours.expect_err("jitson accepted it").to_string();
        assert!(message.contains(&format!("`{name}`")), "{message}");
        // Empty batches write nothing and refuse nothing, as arrow-json.
        let empty = batch.slice(0, 0);
        assert!(
            self::ours::<writer::LineDelimited>(
                &[&empty],
                false,
                StructMode::ObjectOnly,
                &Formats::default(),
                1
            )
            .is_ok()
        );
    }
}

#[test]
fn durations_and_intervals() {
    let v = vec![
        Some(0i64),
        Some(1),
        Some(-1),
        None,
        Some(1_500),
        Some(-86_400_123),
        Some(i64::MAX),
        Some(i64::MIN),
    ];
    check_column("ds", Arc::new(DurationSecondArray::from(v.clone())));
    check_column("dms", Arc::new(DurationMillisecondArray::from(v.clone())));
    check_column("dus", Arc::new(DurationMicrosecondArray::from(v.clone())));
    check_column("dns", Arc::new(DurationNanosecondArray::from(v)));
    check_column(
        "iym",
        Arc::new(IntervalYearMonthArray::from(vec![
            Some(0),
            Some(13),
            Some(-13),
            None,
            Some(i32::MIN),
            Some(11),
        ])),
    );
    use arrow_buffer::{IntervalDayTime as Dt, IntervalMonthDayNano as Mdn};
    check_column(
        "idt",
        Arc::new(IntervalDayTimeArray::from(vec![
            Some(Dt::new(0, 0)),
            Some(Dt::new(1, 0)),
            Some(Dt::new(0, 1)),
            None,
            Some(Dt::new(-2, -3_723_004)),
            Some(Dt::new(3, 3_600_000)),
            Some(Dt::new(0, -500)),
            // Longer than the compiled writer's room: its encoder writes it.
            Some(Dt::new(i32::MIN, i32::MIN)),
            Some(Dt::new(i32::MAX, i32::MAX)),
        ])),
    );
    check_column(
        "imdn",
        Arc::new(IntervalMonthDayNanoArray::from(vec![
            Some(Mdn::new(0, 0, 0)),
            Some(Mdn::new(1, 2, 3)),
            None,
            Some(Mdn::new(-1, 0, -3_723_000_000_005)),
            Some(Mdn::new(0, 0, 60_000_000_000)),
            Some(Mdn::new(0, 5, 0)),
            Some(Mdn::new(i32::MAX, i32::MIN, i64::MIN)),
        ])),
    );
}

/// "UTC": arrow-json without chrono-tz refuses it; jitson writes it as
/// arrow-json with chrono-tz (DataFusion's build) does, with `Z`.
#[test]
fn utc_is_written_with_z() {
    let batch = batch_of(
        "t",
        Arc::new(TimestampMillisecondArray::from(vec![1_700_000_000_123]).with_timezone("UTC")),
    );
    let got = ours::<writer::LineDelimited>(
        &[&batch],
        false,
        StructMode::ObjectOnly,
        &Formats::default(),
        1,
    )
    .unwrap();
    assert_eq!(got, b"{\"t\":\"2023-11-14T22:13:20.123Z\"}\n");
}

/// A sink failing after some bytes: the error surfaces, the bytes before it
/// are arrow-json's prefix, nothing is written twice.
#[test]
fn failing_sink() {
    struct Failing {
        taken: Vec<u8>,
        limit: usize,
    }
    impl std::io::Write for Failing {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.taken.len() >= self.limit {
                return Err(std::io::Error::other("disk full"));
            }
            let n = buf.len().min(self.limit - self.taken.len());
            self.taken.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let big = batch_of(
        "s",
        Arc::new(StringArray::from_iter_values(
            (0..20_000).map(|i| format!("row {i}")),
        )),
    );
    let full = ours::<writer::LineDelimited>(
        &[&big, &big],
        false,
        StructMode::ObjectOnly,
        &Formats::default(),
        1,
    )
    .unwrap();
    for limit in [0, 10, 70_000, full.len() / 2, full.len() - 1] {
        for threads in [1, 2] {
            let mut w = writer::LineDelimitedWriter::new(Failing {
                taken: Vec::new(),
                limit,
            });
            let result = if threads == 1 {
                w.write_batches(&[&big, &big])
            } else {
                w.write_batches_with_threads(&[&big, &big, &big], threads)
            };
            let err = result.expect_err("the sink failed");
            assert!(err.to_string().contains("disk full"), "{err}");
            let taken = &w.get_ref().taken;
            assert_eq!(taken.len(), limit);
            assert_eq!(
                &taken[..],
                &full[..limit],
                "limit {limit}, {threads} threads"
            );
        }
    }
}

mod generated {
    //! Random schemas and batches: arrow-json's bytes, and read back.

    use super::*;
    use proptest::prelude::*;

    fn leaf() -> impl Strategy<Value = DataType> {
        prop_oneof![
            Just(DataType::Boolean),
            Just(DataType::Int8),
            Just(DataType::Int32),
            Just(DataType::Int64),
            Just(DataType::UInt16),
            Just(DataType::UInt64),
            Just(DataType::Float32),
            Just(DataType::Float64),
            Just(DataType::Utf8),
            Just(DataType::LargeUtf8),
            Just(DataType::Utf8View),
            Just(DataType::Timestamp(TimeUnit::Millisecond, None)),
            Just(DataType::Timestamp(
                TimeUnit::Microsecond,
                Some("+01:00".into())
            )),
            Just(DataType::Date32),
            Just(DataType::Decimal128(12, 3)),
            Just(DataType::Decimal256(40, 3)),
            Just(DataType::Date64),
            Just(DataType::Time64(TimeUnit::Microsecond)),
            Just(DataType::Time32(TimeUnit::Millisecond)),
            Just(DataType::Binary),
        ]
    }

    fn data_type() -> impl Strategy<Value = DataType> {
        leaf().prop_recursive(3, 12, 4, |inner| {
            prop_oneof![
                inner.clone().prop_map(|t| DataType::new_list(t, true)),
                inner
                    .clone()
                    .prop_map(|t| DataType::new_large_list(t, true)),
                inner
                    .clone()
                    .prop_map(|t| DataType::ListView(Arc::new(Field::new_list_field(t, true)))),
                (inner.clone(), 1i32..4).prop_map(|(t, n)| {
                    DataType::FixedSizeList(Arc::new(Field::new_list_field(t, true)), n)
                }),
                proptest::collection::vec(inner, 1..4).prop_map(|types| {
                    DataType::Struct(
                        types
                            .into_iter()
                            .enumerate()
                            .map(|(i, t)| Field::new(format!("f{i}"), t, true))
                            .collect(),
                    )
                }),
            ]
        })
    }

    fn schema() -> impl Strategy<Value = SchemaRef> {
        proptest::collection::vec(data_type(), 0..6).prop_map(|types| {
            Arc::new(Schema::new(
                types
                    .into_iter()
                    .enumerate()
                    .map(|(i, t)| Field::new(format!("c{i} \"k\""), t, true))
                    .collect::<Vec<_>>(),
            ))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

        #[test]
        fn random_batches((schema, rows, seed, density) in (schema(), 0usize..40, any::<u64>(), 0.0f32..1.0)) {
            let batch = random_batch(&schema, rows, seed, density);
            same_bytes(&[&batch]);
            if rows > 3 {
                same_bytes(&[&batch.slice(2, rows - 3), &batch]);
            }
            // Read jitson's NDJSON back: the same batch.
            let text = ours::<writer::LineDelimited>(&[&batch], true, StructMode::ObjectOnly, &Formats::default(), 1).unwrap();
            let back: Vec<RecordBatch> = jitson_arrow::ReaderBuilder::new(schema.clone())
                .with_batch_size(rows.max(1))
                .build(&text[..])
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            let back = arrow_select::concat::concat_batches(&schema, &back).unwrap();
            prop_assert_eq!(back.num_rows(), batch.num_rows());
            if batch.num_rows() > 0 {
                // Floats: a NaN or infinity is written as null.
                prop_assert!(equal_but_non_finite(&back, &batch), "{}", String::from_utf8_lossy(&text));
            }
            // And in list mode: rows and structs as arrays, read back as such.
            let text = ours::<writer::LineDelimited>(&[&batch], true, StructMode::ListOnly, &Formats::default(), 1).unwrap();
            let back: Vec<RecordBatch> = jitson_arrow::ReaderBuilder::new(schema.clone())
                .with_batch_size(rows.max(1))
                .with_struct_mode(StructMode::ListOnly)
                .build(&text[..])
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            let back = arrow_select::concat::concat_batches(&schema, &back).unwrap();
            prop_assert_eq!(back.num_rows(), batch.num_rows());
            if batch.num_rows() > 0 {
                prop_assert!(back == batch, "{}", String::from_utf8_lossy(&text));
            }
        }
    }

    fn equal_but_non_finite(back: &RecordBatch, batch: &RecordBatch) -> bool {
        // The generator makes finite floats only, so equality is exact.
        back == batch
    }

    /// Xorshift: the generators' values from a seed.
    pub(super) struct Rng(pub(super) u64);
    impl Rng {
        pub(super) fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// A batch of `schema` built from JSON text by arrow-json's reader (so the
    /// values are what a reader makes), with nulls at about `density`.
    fn random_batch(schema: &SchemaRef, rows: usize, seed: u64, density: f32) -> RecordBatch {
        let mut rng = Rng(seed | 1);
        let mut text = String::new();
        for _ in 0..rows {
            text.push('{');
            for (i, f) in schema.fields().iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                text.push_str(&serde_json::to_string(f.name()).unwrap());
                text.push(':');
                value(f.data_type(), &mut rng, density, &mut text);
            }
            text.push_str("}\n");
        }
        let batches: Vec<RecordBatch> = arrow_json::ReaderBuilder::new(schema.clone())
            .with_batch_size(rows.max(1))
            .build(text.as_bytes())
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        arrow_select::concat::concat_batches(schema, &batches).unwrap()
    }

    fn value(t: &DataType, rng: &mut Rng, density: f32, out: &mut String) {
        if (rng.next() % 1000) as f32 / 1000.0 < density * 0.5 {
            out.push_str("null");
            return;
        }
        let r = rng.next();
        match t {
            DataType::Boolean => out.push_str(if r.is_multiple_of(2) { "true" } else { "false" }),
            DataType::Int8 => out.push_str(&(r as i8).to_string()),
            DataType::Int32 => out.push_str(&(r as i32).to_string()),
            DataType::Int64 => out.push_str(&(r as i64).to_string()),
            DataType::UInt16 => out.push_str(&(r as u16).to_string()),
            DataType::UInt64 => out.push_str(&r.to_string()),
            DataType::Float32 | DataType::Float64 => {
                let f = f64::from_bits(r);
                let f = if f.is_finite() {
                    f
                } else {
                    (r % 100_000) as f64 / 7.0
                };
                let f = if matches!(t, DataType::Float32) && !(f as f32).is_finite() {
                    1.5
                } else {
                    f
                };
                out.push_str(&serde_json::to_string(&f).unwrap());
            }
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
                // Mostly plain (a view holds up to 12 bytes in line).
                let s: String = (0..r % 24)
                    .map(|i| {
                        [
                            'a', 'b', 'c', 'd', 'é', '"', '\\', '\n', '\u{1}', '😀', ' ', '/',
                        ][(r.rotate_right(i as u32 * 4) % 12) as usize]
                    })
                    .collect();
                out.push_str(&serde_json::to_string(&s).unwrap());
            }
            DataType::Timestamp(..) => {
                let ms = (r % 4_000_000_000_000) as i64 - 1_000_000_000_000;
                out.push_str(&ms.to_string());
            }
            DataType::Date32 => out.push_str(&((r % 100_000) as i64 - 30_000).to_string()),
            DataType::Date64 => {
                let ms = (r % 4_000_000_000_000) as i64 - 1_000_000_000_000;
                out.push_str(&ms.to_string());
            }
            DataType::Time64(_) => out.push_str(&(r % 86_400_000_000).to_string()),
            DataType::Time32(_) => out.push_str(&(r % 86_400_000).to_string()),
            DataType::Binary => {
                let hex: String = (0..r % 9)
                    .map(|i| format!("{:02x}", (r >> (i * 7)) as u8))
                    .collect();
                out.push_str(&format!("\"{hex}\""));
            }
            DataType::Decimal128(..) | DataType::Decimal256(..) => {
                let v = (r % 2_000_000_000) as i64 - 1_000_000_000;
                out.push_str(&format!("{}.{:03}", v / 1000, (v % 1000).abs()));
            }
            DataType::List(f)
            | DataType::LargeList(f)
            | DataType::ListView(f)
            | DataType::FixedSizeList(f, _) => {
                let len = match t {
                    DataType::FixedSizeList(_, n) => *n as u64,
                    _ => r % 4,
                };
                out.push('[');
                for i in 0..len {
                    if i > 0 {
                        out.push(',');
                    }
                    value(f.data_type(), rng, density, out);
                }
                out.push(']');
            }
            DataType::Struct(fields) => {
                out.push('{');
                for (i, f) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(f.name()).unwrap());
                    out.push(':');
                    value(f.data_type(), rng, density, out);
                }
                out.push('}');
            }
            other => unreachable!("{other}"),
        }
    }
}

mod generated_columns {
    //! The column kinds the compiled writer reads itself besides those of
    //! `generated` (whose batches come from arrow-json's reader): binary in
    //! every layout, durations, intervals, Decimal256, maps, fixed-size lists,
    //! large list views and dictionaries of dates, with random values and
    //! nulls, built directly: arrow-json's bytes on both backends, whole and
    //! sliced.

    use super::*;
    use arrow_array::builder::{BinaryViewBuilder, FixedSizeBinaryBuilder, Int64Builder};
    use proptest::prelude::*;

    use super::generated::Rng;

    impl Rng {
        /// Whether the next value is null, at about `density / 2`.
        fn null(&mut self, density: f32) -> bool {
            (self.next() % 1000) as f32 / 1000.0 < density * 0.5
        }
        fn bytes(&mut self, max: u64) -> Vec<u8> {
            let r = self.next();
            (0..r % max)
                .map(|i| (r >> (i % 8 * 8)) as u8 ^ i as u8)
                .collect()
        }
    }

    fn random_batch(rows: usize, seed: u64, density: f32) -> RecordBatch {
        let mut rng = Rng(seed | 1);
        let mut blobs: Vec<Option<Vec<u8>>> = Vec::new();
        for _ in 0..rows {
            blobs.push((!rng.null(density)).then(|| rng.bytes(40)));
        }
        let binary = LargeBinaryArray::from(blobs.iter().map(|b| b.as_deref()).collect::<Vec<_>>());
        let mut view = BinaryViewBuilder::new();
        let mut fixed = FixedSizeBinaryBuilder::new(5);
        for b in &blobs {
            match b {
                Some(b) => {
                    view.append_value(b);
                    let mut five = b.clone();
                    five.resize(5, 0xab);
                    fixed.append_value(&five).unwrap();
                }
                None => {
                    view.append_null();
                    fixed.append_null();
                }
            }
        }
        let durations: DurationNanosecondArray = (0..rows)
            .map(|_| (!rng.null(density)).then(|| rng.next() as i64 >> (rng.next() % 60)))
            .collect();
        let day_times: IntervalDayTimeArray = (0..rows)
            .map(|_| {
                (!rng.null(density)).then(|| {
                    arrow_buffer::IntervalDayTime::new(rng.next() as i32 >> 20, rng.next() as i32)
                })
            })
            .collect();
        let month_day_nanos: IntervalMonthDayNanoArray = (0..rows)
            .map(|_| {
                (!rng.null(density)).then(|| {
                    arrow_buffer::IntervalMonthDayNano::new(
                        rng.next() as i32 >> 24,
                        rng.next() as i32 >> 26,
                        rng.next() as i64 >> (rng.next() % 64),
                    )
                })
            })
            .collect();
        let wide: Decimal256Array = (0..rows)
            .map(|_| {
                (!rng.null(density))
                    .then(|| i256::from_i128((rng.next() as i128).wrapping_mul(rng.next() as i128)))
            })
            .collect::<Decimal256Array>()
            .with_precision_and_scale(60, 7)
            .unwrap();
        let mut map = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new());
        let mut lists = FixedSizeListBuilder::new(Int32Builder::new(), 3);
        for _ in 0..rows {
            for k in 0..rng.next() % 4 {
                map.keys().append_value(format!("k{k}\"{}", rng.next() % 3));
                if rng.null(density) {
                    map.values().append_null();
                } else {
                    map.values().append_value(rng.next() as i64 >> 20);
                }
            }
            map.append(!rng.null(density)).unwrap();
            for _ in 0..3 {
                let v = (!rng.null(density)).then(|| rng.next() as i32);
                lists.values().append_option(v);
            }
            lists.append(!rng.null(density));
        }
        let items =
            Int32Array::from_iter((0..rows * 2).map(|i| (!rng.null(density)).then_some(i as i32)));
        let (mut offsets, mut sizes) = (Vec::new(), Vec::new());
        // Views anywhere in the items, overlapping and out of order.
        let items_len = rows as u64 * 2;
        for _ in 0..rows {
            let start = rng.next() % (items_len + 1);
            offsets.push(start as i64);
            sizes.push((rng.next() % (items_len - start + 1)).min(4) as i64);
        }
        let list_views = LargeListViewArray::try_new(
            Arc::new(Field::new("item", DataType::Int32, true)),
            ScalarBuffer::from(offsets),
            ScalarBuffer::from(sizes),
            Arc::new(items),
            Some(NullBuffer::from_iter((0..rows).map(|_| !rng.null(density)))),
        )
        .unwrap();
        let dates = Date32Array::from_iter((0..5).map(|i| (i != 2).then_some(19_000 + i)));
        let keys = Int16Array::from_iter(
            (0..rows).map(|_| (!rng.null(density)).then(|| (rng.next() % 5) as i16)),
        );
        let dictionary = DictionaryArray::<Int16Type>::try_new(keys, Arc::new(dates)).unwrap();
        let columns: Vec<ArrayRef> = vec![
            Arc::new(binary),
            Arc::new(view.finish()),
            Arc::new(fixed.finish()),
            Arc::new(durations),
            Arc::new(day_times),
            Arc::new(month_day_nanos),
            Arc::new(wide),
            Arc::new(map.finish()),
            Arc::new(lists.finish()),
            Arc::new(list_views),
            Arc::new(dictionary),
        ];
        let fields: Vec<Field> = columns
            .iter()
            .enumerate()
            .map(|(i, c)| Field::new(format!("c{i}"), c.data_type().clone(), true))
            .collect();
        RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

        #[test]
        fn random_columns((rows, seed, density) in (0usize..40, any::<u64>(), 0.0f32..1.0)) {
            let batch = random_batch(rows, seed, density);
            same_bytes(&[&batch]);
            if rows > 3 {
                same_bytes(&[&batch.slice(2, rows - 3), &batch]);
            }
        }
    }
}

/// One value of 100 MB (with escapes at both ends and in the middle), on one
/// thread and three.
#[test]
fn a_100_mb_string() {
    let mut big = "abcdefgh".repeat(100 << 17);
    big.insert(0, '"');
    big.insert_str(big.len() / 2, "\n\u{1}é");
    big.push('\\');
    let array = StringArray::from(vec![Some(big.as_str()), None, Some("small")]);
    let batch = batch_of("big", Arc::new(array));
    let f = Formats::default();
    let expected =
        theirs::<arrow_json::writer::LineDelimited>(&[&batch], false, StructMode::ObjectOnly, &f)
            .unwrap();
    assert!(expected.len() > 100 << 20);
    for threads in [1, 3] {
        let got = ours::<writer::LineDelimited>(
            &[&batch, &batch],
            false,
            StructMode::ObjectOnly,
            &f,
            threads,
        )
        .unwrap();
        assert_same(&got[..expected.len()], &expected, "100 MB string");
        assert_same(&got[expected.len()..], &expected, "100 MB string, again");
    }
}

/// `write` then `write_batches_parallel` on the same writer: one stream, the
/// separator before the parallel part's first row, as arrow-json writes the
/// batches one after another.
#[test]
fn sequential_then_parallel() {
    let rows = |n: i32| {
        batch_of(
            "n",
            Arc::new(Int32Array::from_iter(
                (0..n).map(|i| (i % 3 != 0).then_some(i)),
            )),
        )
    };
    let (a, b, c) = (rows(5), rows(2500), rows(1800));
    let f = Formats::default();
    let mode = StructMode::ObjectOnly;
    let expected = theirs::<arrow_json::writer::JsonArray>(&[&a, &b, &c], false, mode, &f).unwrap();
    let mut w = writer::ArrayWriter::new(Vec::new());
    w.write(&a).unwrap();
    w.write_batches_with_threads(&[&b, &c], 3).unwrap();
    w.finish().unwrap();
    assert_same(&w.into_inner(), &expected, "array");
    let expected =
        theirs::<arrow_json::writer::LineDelimited>(&[&a, &b, &c], false, mode, &f).unwrap();
    let mut w = writer::LineDelimitedWriter::new(Vec::new());
    w.write(&a).unwrap();
    w.write_batches_parallel(&[&b, &c]).unwrap();
    w.finish().unwrap();
    assert_same(&w.into_inner(), &expected, "NDJSON");
}

/// The JIT backend writes with compiled code where it runs (the writer says
/// so in its `Debug`), the interpreter never; both give arrow-json's bytes
/// on a batch mixing compiled columns (integers, booleans, text) with called
/// ones, nulls in some, sliced.
#[test]
fn the_jit_backend_compiles_the_row_loop() {
    let n = 3000;
    let ints: Int64Array = (0..n)
        .map(|i| (i % 7 != 0).then_some(i as i64 * 1_000_003 - 1_500_000_000))
        .collect();
    let small: UInt8Array = (0..n).map(|i| Some(i as u8)).collect();
    let flags: BooleanArray = (0..n).map(|i| (i % 5 != 0).then_some(i % 3 == 0)).collect();
    let text: StringArray = (0..n)
        .map(|i| (i % 4 != 1).then(|| format!("row \"{i}\"\n\u{e9}")))
        .collect();
    let large: LargeStringArray = (0..n).map(|i| Some("x".repeat(i % 40))).collect();
    let floats: Float64Array = (0..n).map(|i| Some(i as f64 / 8.0)).collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new("i", DataType::Int64, true),
        Field::new("u", DataType::UInt8, false),
        Field::new("b", DataType::Boolean, true),
        Field::new("s", DataType::Utf8, true),
        Field::new("l", DataType::LargeUtf8, false),
        Field::new("f", DataType::Float64, false),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(ints),
            Arc::new(small),
            Arc::new(flags),
            Arc::new(text),
            Arc::new(large),
            Arc::new(floats),
        ],
    )
    .unwrap();
    same_bytes(&[&batch, &batch.slice(13, 1000)]);
    for (backend, compiled) in [(Backend::Interpreter, false), (Backend::Jit, true)] {
        if backend == Backend::Jit && !Backend::Jit.is_available() {
            continue;
        }
        let mut w = writer::WriterBuilder::new()
            .with_backend(backend)
            .build::<_, writer::LineDelimited>(Vec::new());
        w.write(&batch).unwrap();
        let debug = format!("{w:?}");
        assert!(
            debug.contains(&format!("compiled: {compiled}")),
            "{backend:?}: {debug}"
        );
    }
}

/// A schema wider than the compiled writer takes (512 columns) is written by
/// the plan's encoders, on every backend, with arrow-json's bytes.
#[test]
fn very_wide_schemas_are_written_by_the_encoders() {
    let columns = 600;
    let fields: Vec<Field> = (0..columns)
        .map(|i| Field::new(format!("c{i}"), DataType::Int32, true))
        .collect();
    let arrays: Vec<ArrayRef> = (0..columns)
        .map(|i| Arc::new(Int32Array::from(vec![Some(i), None])) as ArrayRef)
        .collect();
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap();
    same_bytes(&[&batch]);
    let mut w = writer::WriterBuilder::new()
        .with_backend(Backend::Jit)
        .build::<_, writer::LineDelimited>(Vec::new());
    if Backend::Jit.is_available() {
        w.write(&batch).unwrap();
        assert!(format!("{w:?}").contains("compiled: false"), "{w:?}");
    }
}

/// Lists and structs nested around the JIT's depth limit (32 levels lowered,
/// deeper ones written by their encoders) and far past it: arrow-json's bytes
/// on both backends. 33 levels once made the JIT call a null function.
#[test]
fn nesting_around_and_past_the_compiled_depth() {
    for depth in [31, 32, 33, 34, 100] {
        for shape in ["lists", "structs", "mixed"] {
            let mut array: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None, Some(3)]));
            for level in 0..depth {
                let struct_level = match shape {
                    "lists" => false,
                    "structs" => true,
                    _ => level % 2 == 1,
                };
                array = if struct_level {
                    let fields =
                        Fields::from(vec![Field::new("f", array.data_type().clone(), true)]);
                    // A null struct every few levels, on the middle row.
                    let nulls = (level % 3 == 0)
                        .then(|| NullBuffer::from(vec![true, level % 2 == 0, true]));
                    Arc::new(StructArray::new(fields, vec![array], nulls))
                } else {
                    let item = Arc::new(Field::new_list_field(array.data_type().clone(), true));
                    // Row 0 holds items 0..2, row 1 none, row 2 item 2.
                    let offsets = OffsetBuffer::new(ScalarBuffer::from(vec![0, 2, 2, 3]));
                    Arc::new(ListArray::new(item, offsets, array, None))
                };
            }
            let batch = batch_of("x", array);
            same_bytes(&[&batch, &batch.slice(1, 2)]);
        }
    }
}

/// A named zone's offset is the one at each instant (summer time, a zone's
/// history), as chrono gives it to arrow-json; the zone's offset at the
/// epoch wrote July in Paris an hour early. Zones given as offsets keep one
/// offset. Named zones parse only when arrow has `chrono-tz` (DataFusion's
/// builds, so `cargo test --workspace`); without it both writers refuse them.
#[test]
fn named_zones_take_each_instants_offset() {
    // Around the 2023 changes in Europe and the US, mid-summer and mid-winter,
    // Lord Howe's half-hour change, a fractional second, before 1970.
    let seconds = [
        0_i64,
        1_720_000_000,
        1_679_792_399,
        1_679_792_400,
        1_698_541_199,
        1_698_541_200,
        1_678_604_400,
        1_699_164_000,
        1_696_089_600,
        -1_000_000_000,
        -86_401,
    ];
    let zones = [
        "Europe/Paris",
        "America/New_York",
        "Australia/Lord_Howe",
        "Asia/Kolkata",
        "America/St_Johns",
        "UTC",
        "+05:30",
        "-03:00",
    ];
    let named = "Europe/Paris".parse::<arrow_array::timezone::Tz>().is_ok();
    for zone in zones {
        let arrays: [ArrayRef; 3] = [
            Arc::new(TimestampSecondArray::from(seconds.to_vec()).with_timezone(zone)),
            Arc::new(
                TimestampMillisecondArray::from(
                    seconds.iter().map(|s| s * 1_000 + 250).collect::<Vec<_>>(),
                )
                .with_timezone(zone),
            ),
            Arc::new(
                TimestampNanosecondArray::from(
                    seconds
                        .iter()
                        .map(|s| s * 1_000_000_000 + 7)
                        .collect::<Vec<_>>(),
                )
                .with_timezone(zone),
            ),
        ];
        for array in arrays {
            let batch = batch_of("t", array);
            let theirs = theirs::<arrow_json::writer::LineDelimited>(
                &[&batch],
                false,
                StructMode::ObjectOnly,
                &Formats::default(),
            );
            let is_named = zone.contains('/');
            for backend in backends() {
                let ours = ours_on::<writer::LineDelimited>(
                    backend,
                    &[&batch],
                    false,
                    StructMode::ObjectOnly,
                    &Formats::default(),
                    1,
                );
                if is_named && !named {
                    assert!(theirs.is_err() && ours.is_err(), "{zone}: {backend:?}");
                    continue;
                }
                if zone == "UTC" && !named {
                    // arrow-json refuses it without chrono-tz; jitson writes
                    // it as with (docs/arrow.md, difference 1).
                    continue;
                }
                let (theirs, ours) = (theirs.as_ref().expect("arrow-json"), ours.expect("jitson"));
                assert!(
                    *theirs == ours,
                    "{zone} {:?} {backend:?}:\n{}\n{}",
                    batch.schema().field(0).data_type(),
                    String::from_utf8_lossy(theirs),
                    String::from_utf8_lossy(&ours)
                );
            }
        }
    }
}

/// A batch refused in a parallel write (here a zone arrow-json cannot parse)
/// leaves the batches before it written, as `write_batches` and arrow-json
/// leave them; the parallel write used to build every batch's plan first and
/// write nothing (found by a review, 2026-12-07).
#[test]
fn a_refused_batch_in_a_parallel_write_keeps_the_batches_before_it() {
    let column = |array: ArrayRef| RecordBatch::try_from_iter([("c", array)]).unwrap();
    let good = column(Arc::new(Int32Array::from(vec![1, 2])));
    let refused = column(Arc::new(
        TimestampSecondArray::from(vec![0]).with_timezone("Mars/Olympus"),
    ));
    let batches = [&good, &good, &refused, &good];
    let mut theirs = arrow_json::LineDelimitedWriter::new(Vec::new());
    assert!(theirs.write_batches(&batches).is_err());
    let expected = theirs.into_inner();
    assert_eq!(expected, b"{\"c\":1}\n{\"c\":2}\n{\"c\":1}\n{\"c\":2}\n");
    for backend in backends() {
        for threads in [1, 2, 3] {
            let mut w = writer::WriterBuilder::new()
                .with_backend(backend)
                .build::<_, writer::LineDelimited>(Vec::new());
            let e = w.write_batches_with_threads(&batches, threads).unwrap_err();
            assert!(e.to_string().contains("Mars/Olympus"), "{e}");
            assert_eq!(w.into_inner(), expected, "{backend:?}, {threads} threads");
        }
    }
}

/// A strftime format that does not apply to its column's type (`%H` of a
/// date, `%z` of a time without a zone, an unknown `%Q`) is an error naming
/// the column when the batch is written, before any row; arrow-json's writer
/// panics at the first value ("a formatting trait implementation returned an
/// error"). A format that applies still gives arrow-json's bytes.
#[test]
fn formats_that_do_not_apply_are_errors_not_panics() {
    let column = |array: ArrayRef| RecordBatch::try_from_iter([("c", array)]).unwrap();
    let date = column(Arc::new(Date32Array::from(vec![0, 19_000])));
    let datetime = column(Arc::new(Date64Array::from(vec![0, 1_700_000_000_000])));
    let time = column(Arc::new(Time32SecondArray::from(vec![0, 45_296])));
    let naive = column(Arc::new(TimestampSecondArray::from(vec![0, 1_700_000_000])));
    let zoned = column(Arc::new(
        TimestampSecondArray::from(vec![0, 1_700_000_000]).with_timezone("+05:30"),
    ));
    let formats = |set: fn(&mut Formats, String), f: &str| {
        let mut formats = Formats::default();
        set(&mut formats, f.to_string());
        formats
    };
    let date_format: fn(&mut Formats, String) = |f, s| f.date = Some(s);
    let datetime_format: fn(&mut Formats, String) = |f, s| f.datetime = Some(s);
    let time_format: fn(&mut Formats, String) = |f, s| f.time = Some(s);
    let timestamp_format: fn(&mut Formats, String) = |f, s| f.timestamp = Some(s);
    let zoned_format: fn(&mut Formats, String) = |f, s| f.timestamp_tz = Some(s);
    let refused = [
        (&date, date_format, "%H"),
        (&date, date_format, "%Q"),
        (&date, date_format, "%"),
        (&datetime, datetime_format, "%z"),
        (&time, time_format, "%Y"),
        (&naive, timestamp_format, "%+"),
        (&naive, timestamp_format, "%:z"),
    ];
    for (batch, set, f) in refused {
        for backend in backends() {
            for threads in [1, 2] {
                let e = ours_on::<writer::LineDelimited>(
                    backend,
                    &[batch, batch],
                    false,
                    StructMode::ObjectOnly,
                    &formats(set, f),
                    threads,
                )
                .unwrap_err();
                assert!(e.to_string().contains("column `c`"), "{f}: {e}");
            }
        }
    }
    let applied = [
        (&date, date_format, "%d/%m/%Y"),
        (&datetime, datetime_format, "%Y %H:%M"),
        (&time, time_format, "%H-%M-%S"),
        (&naive, timestamp_format, "%s"),
        (&zoned, zoned_format, "%H:%M %z"),
    ];
    for (batch, set, f) in applied {
        let expected = theirs::<arrow_json::writer::LineDelimited>(
            &[batch],
            false,
            StructMode::ObjectOnly,
            &formats(set, f),
        )
        .unwrap();
        for backend in backends() {
            let got = ours_on::<writer::LineDelimited>(
                backend,
                &[batch],
                false,
                StructMode::ObjectOnly,
                &formats(set, f),
                1,
            )
            .unwrap();
            assert_eq!(got, expected, "{f}, {backend:?}");
        }
    }
}

/// A batch whose struct columns name their children otherwise than its
/// schema does (`RecordBatchOptions::with_match_field_names(false)` lets
/// that through): the nested keys are the columns' own, as arrow-json writes
/// them, at the top level and in a list (a hostile review, 2026-12-07; the
/// schema's names were written).
#[test]
fn nested_keys_are_the_columns_own() {
    let own = Fields::from(vec![Field::new("array_name", DataType::Int32, true)]);
    let schema_side = Fields::from(vec![Field::new("schema_name", DataType::Int32, true)]);
    let values: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None, Some(3)]));
    let structs = StructArray::new(own.clone(), vec![values], None);
    let list = ListArray::new(
        Arc::new(Field::new_list_field(DataType::Struct(own), true)),
        OffsetBuffer::from_lengths([2, 0, 1]),
        Arc::new(structs.clone()),
        None,
    );
    let schema = Arc::new(Schema::new(vec![
        Field::new("s", DataType::Struct(schema_side.clone()), true),
        Field::new(
            "l",
            DataType::new_list(DataType::Struct(schema_side), true),
            true,
        ),
    ]));
    let batch = RecordBatch::try_new_with_options(
        schema,
        vec![Arc::new(structs), Arc::new(list)],
        &RecordBatchOptions::new().with_match_field_names(false),
    )
    .unwrap();
    same_bytes(&[&batch]);
}
