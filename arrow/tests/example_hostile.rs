//! Hostile tests of `ReaderBuilder::with_example_record`: for generated
//! schemas (nested structs, lists of structs, maps, nullable and not),
//! generated inputs (keys in any order, unknown keys at every level, nulls,
//! wrong types, repeated keys, truncated or damaged input) and generated
//! examples (records of the schema, of another schema, damaged, not objects,
//! deep, huge, keys with escapes), a reader built with the example gives the
//! batches and errors of one built without it, on both backends and under
//! every policy.

use std::io::BufReader;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, SchemaRef};
use jitson_arrow::{Backend, ReaderBuilder, RecordError, StructMode};

const BACKENDS: [Backend; 2] = [Backend::Interpreter, Backend::Jit];

/// A small deterministic generator (xorshift64*).
struct Rng(u64, bool);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Field names: plain, non-ASCII, needing escapes, sharing prefixes.
const NAMES: [&str; 12] = [
    "a", "b", "c", "id", "ab", "abc", "é", "k\"q", "s p", "x\\y", "tag", "",
];
/// Keys no schema here uses.
const UNKNOWN: [&str; 6] = ["zz", "a_", "unknown", "b\u{e9}", "ID", "abcd"];

fn map_type(value: DataType) -> DataType {
    let entries = Fields::from(vec![
        Field::new("keys", DataType::Utf8, false),
        Field::new("values", value, true),
    ]);
    DataType::Map(
        Arc::new(Field::new("entries", DataType::Struct(entries), false)),
        false,
    )
}

fn gen_fields(rng: &mut Rng, depth: usize) -> Fields {
    let n = 1 + rng.below(4);
    let mut names: Vec<&str> = Vec::new();
    while names.len() < n {
        let name = *rng.pick(&NAMES);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    Fields::from(
        names
            .into_iter()
            .map(|name| Field::new(name, gen_type(rng, depth), rng.chance(70)))
            .collect::<Vec<_>>(),
    )
}

fn gen_type(rng: &mut Rng, depth: usize) -> DataType {
    let choice = if depth >= 3 {
        rng.below(5)
    } else {
        rng.below(11)
    };
    match choice {
        10 => rng
            .pick(&[
                DataType::Timestamp(arrow_schema::TimeUnit::Millisecond, None),
                DataType::Date32,
                DataType::Decimal128(10, 2),
                DataType::LargeUtf8,
                DataType::Utf8View,
                DataType::UInt8,
                DataType::Float32,
                DataType::Decimal256(40, 5),
                DataType::Binary,
                DataType::FixedSizeBinary(2),
                DataType::Time32(arrow_schema::TimeUnit::Second),
                DataType::Duration(arrow_schema::TimeUnit::Microsecond),
                DataType::Date64,
                DataType::Float16,
                DataType::Null,
            ])
            .clone(),
        0 => DataType::Int64,
        1 => DataType::Int32,
        2 => DataType::Utf8,
        3 => DataType::Boolean,
        4 => DataType::Float64,
        5 | 6 => DataType::Struct(gen_fields(rng, depth + 1)),
        7 => DataType::new_list(DataType::Struct(gen_fields(rng, depth + 1)), rng.chance(70)),
        8 => DataType::new_list(gen_type(rng, depth + 1), rng.chance(70)),
        _ => map_type(gen_type(rng, depth + 1)),
    }
}

fn gen_schema(rng: &mut Rng) -> SchemaRef {
    Arc::new(Schema::new(gen_fields(rng, 0)))
}

/// A key as JSON text: sometimes with its characters escaped.
fn key_text(rng: &mut Rng, name: &str) -> String {
    if rng.chance(10) && !name.is_empty() {
        let mut s = String::from("\"");
        for c in name.chars() {
            s.push_str(&format!("\\u{:04x}", c as u32));
        }
        s.push('"');
        s
    } else {
        serde_json::to_string(name).unwrap()
    }
}

/// A string value around the JIT's 8- and 16-byte scans.
fn gen_string(rng: &mut Rng) -> String {
    let len = rng.below(40);
    let mut s = String::from("\"");
    for _ in 0..len {
        s.push(*rng.pick(&['x', 'y', ' ', '1']));
    }
    match rng.below(8) {
        0 => s.push('é'),
        1 => s.push_str("\\n"),
        2 => s.push_str("\\u00e9"),
        3 => s.push_str("\\ud83d\\ude00"),
        _ => {}
    }
    s.push('"');
    s
}

/// Any JSON value (an unknown key's), sometimes deep.
fn gen_any(rng: &mut Rng, depth: usize) -> String {
    let top = if depth > 3 { 6 } else { 9 };
    match rng.below(top) {
        0 => "null".into(),
        1 => rng
            .pick(&[
                "0",
                "-0",
                "1.5",
                "-12e3",
                "1e400",
                "123456789012345678901234",
            ])
            .to_string(),
        2 | 3 => gen_string(rng),
        4 => "true".into(),
        5 => "false".into(),
        6 => {
            let n = rng.below(3);
            let items: Vec<String> = (0..n).map(|_| gen_any(rng, depth + 1)).collect();
            format!("[{}]", items.join(", "))
        }
        _ => {
            let n = rng.below(3);
            let items: Vec<String> = (0..n)
                .map(|_| {
                    let k = if rng.chance(50) {
                        *rng.pick(&NAMES)
                    } else {
                        *rng.pick(&UNKNOWN)
                    };
                    format!("{}: {}", key_text(rng, k), gen_any(rng, depth + 1))
                })
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// A value of `dt` (mostly valid; sometimes null, of another type, or
/// anything).
fn gen_value(rng: &mut Rng, dt: &DataType, list_mode: bool, depth: usize) -> String {
    if rng.1 {
        return gen_clean(rng, dt, list_mode, depth);
    }
    if rng.chance(6) {
        return "null".into();
    }
    if rng.chance(4) {
        return gen_any(rng, depth + 1);
    }
    match dt {
        DataType::Int64 | DataType::Int32 => rng
            .pick(&[
                "0",
                "-1",
                "42",
                "2147483648",
                "1.5",
                "\"7\"",
                "1e3",
                "-0",
                "9223372036854775808",
            ])
            .to_string(),
        DataType::Utf8 => {
            if rng.chance(10) {
                rng.pick(&["5", "true", "1.25"]).to_string()
            } else {
                gen_string(rng)
            }
        }
        DataType::Boolean => rng.pick(&["true", "false", "1", "\"true\""]).to_string(),
        DataType::Float64 => rng
            .pick(&["1.5", "-0", "1e400", "\"NaN\"", "2", "\"x\"", "1E-400"])
            .to_string(),
        DataType::Timestamp(..) => rng
            .pick(&[
                "\"2020-01-01T00:00:00Z\"",
                "1",
                "\"2020-01-01 10:00:00+01:00\"",
            ])
            .to_string(),
        DataType::Date32 => rng.pick(&["\"2020-01-01\"", "\"2020-1-1\""]).to_string(),
        DataType::Decimal128(..) => rng.pick(&["1.25", "\"3.5\"", "-0.01"]).to_string(),
        DataType::LargeUtf8 | DataType::Utf8View => gen_string(rng),
        DataType::UInt8 => rng.pick(&["255", "0", "7"]).to_string(),
        DataType::Float32 => rng.pick(&["1.5", "-0", "3e38", "1e39"]).to_string(),
        DataType::Struct(fields) => gen_object(rng, fields, list_mode, depth + 1),
        DataType::List(elem) => {
            let n = rng.below(4);
            let items: Vec<String> = (0..n)
                .map(|_| gen_value(rng, elem.data_type(), list_mode, depth + 1))
                .collect();
            format!("[{}]", items.join(","))
        }
        DataType::Map(entries, _) => {
            let DataType::Struct(kv) = entries.data_type() else {
                unreachable!()
            };
            let n = rng.below(4);
            let items: Vec<String> = (0..n)
                .map(|_| {
                    let k = if rng.chance(50) {
                        *rng.pick(&NAMES)
                    } else {
                        *rng.pick(&UNKNOWN)
                    };
                    format!(
                        "{}: {}",
                        key_text(rng, k),
                        gen_value(rng, kv[1].data_type(), list_mode, depth + 1)
                    )
                })
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        _ => gen_any(rng, depth + 1),
    }
}

/// A valid value of `dt` (which is not null).
fn gen_clean(rng: &mut Rng, dt: &DataType, list_mode: bool, depth: usize) -> String {
    match dt {
        DataType::Int64 | DataType::Int32 => rng.pick(&["0", "-1", "42", "-0", "7"]).to_string(),
        DataType::Utf8 => gen_string(rng),
        DataType::Boolean => rng.pick(&["true", "false"]).to_string(),
        DataType::Float64 => rng.pick(&["1.5", "-0", "2", "1E-400", "3e10"]).to_string(),
        DataType::Timestamp(..) => rng
            .pick(&[
                "\"2020-01-01T00:00:00Z\"",
                "1",
                "\"2020-01-01 10:00:00+01:00\"",
            ])
            .to_string(),
        DataType::Date32 => rng.pick(&["\"2020-01-01\"", "\"2020-1-1\""]).to_string(),
        DataType::Decimal128(..) => rng.pick(&["1.25", "\"3.5\"", "-0.01"]).to_string(),
        DataType::LargeUtf8 | DataType::Utf8View => gen_string(rng),
        DataType::UInt8 => rng.pick(&["255", "0", "7"]).to_string(),
        DataType::Float32 => rng.pick(&["1.5", "-0", "3e38"]).to_string(),
        DataType::Struct(fields) => gen_object(rng, fields, list_mode, depth + 1),
        DataType::List(elem) => {
            let n = rng.below(4);
            let items: Vec<String> = (0..n)
                .map(|_| {
                    if elem.is_nullable() && rng.chance(10) {
                        "null".to_string()
                    } else {
                        gen_clean(rng, elem.data_type(), list_mode, depth + 1)
                    }
                })
                .collect();
            format!("[{}]", items.join(","))
        }
        DataType::Map(entries, _) => {
            let DataType::Struct(kv) = entries.data_type() else {
                unreachable!()
            };
            let n = rng.below(4);
            let items: Vec<String> = (0..n)
                .map(|_| {
                    let k = *rng.pick(&UNKNOWN);
                    format!(
                        "{}: {}",
                        key_text(rng, k),
                        gen_clean(rng, kv[1].data_type(), list_mode, depth + 1)
                    )
                })
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        _ => gen_any(rng, depth + 1),
    }
}

/// An object of `fields`: keys in a random order, some left out, some
/// unknown, some repeated; or, in list mode, an array of the values.
fn gen_object(rng: &mut Rng, fields: &Fields, list_mode: bool, depth: usize) -> String {
    if list_mode && !rng.chance(5) {
        let mut items: Vec<String> = fields
            .iter()
            .map(|f| {
                if rng.1 && f.is_nullable() && rng.chance(10) {
                    "null".to_string()
                } else {
                    gen_value(rng, f.data_type(), list_mode, depth)
                }
            })
            .collect();
        if !rng.1 && rng.chance(5) {
            items.pop();
        }
        return format!("[{}]", items.join(", "));
    }
    let mut members: Vec<String> = Vec::new();
    let mut order: Vec<usize> = (0..fields.len()).collect();
    // Shuffle.
    for i in (1..order.len()).rev() {
        let j = rng.below(i + 1);
        order.swap(i, j);
    }
    for i in order {
        let f = &fields[i];
        if rng.chance(15) && (!rng.1 || f.is_nullable()) {
            continue;
        }
        if rng.1 && f.is_nullable() && rng.chance(10) {
            members.push(format!("{}: null", key_text(rng, f.name())));
            continue;
        }
        members.push(format!(
            "{}: {}",
            key_text(rng, f.name()),
            gen_value(rng, f.data_type(), list_mode, depth)
        ));
        if rng.chance(if rng.1 { 2 } else { 5 }) {
            members.push(format!(
                "{}: {}",
                key_text(rng, f.name()),
                gen_value(rng, f.data_type(), list_mode, depth)
            ));
        }
    }
    while rng.chance(25) {
        let k = *rng.pick(&UNKNOWN);
        let at = rng.below(members.len() + 1);
        members.insert(at, format!("{}: {}", key_text(rng, k), gen_any(rng, depth)));
    }
    let ws = *rng.pick(&["", " ", "\n", "\t "]);
    format!("{{{ws}{}{ws}}}", members.join(&format!(",{ws}")))
}

/// Damages `input`: cut, or a byte replaced or inserted.
fn damage(rng: &mut Rng, input: &mut Vec<u8>) {
    if input.is_empty() {
        return;
    }
    let at = rng.below(input.len());
    match rng.below(3) {
        0 => input.truncate(at),
        1 => input[at] = *rng.pick(b",}]\"\\:\xff\x01 {[0-e"),
        _ => input.insert(at, *rng.pick(b",}]\"\\:\xff\x01 {[0-e")),
    }
}

/// A generated example: a record of the schema, of another schema, damaged,
/// or one of the odd forms.
fn gen_example(rng: &mut Rng, schema: &SchemaRef, list_mode: bool) -> Vec<u8> {
    match rng.below(12) {
        0..=4 => gen_object(rng, schema.fields(), list_mode, 0).into_bytes(),
        5 => {
            let other = gen_schema(rng);
            gen_object(rng, other.fields(), list_mode, 0).into_bytes()
        }
        6 => {
            let mut e = gen_object(rng, schema.fields(), list_mode, 0).into_bytes();
            damage(rng, &mut e);
            e
        }
        7 => {
            // Every field's key twice, the second time with another value.
            let mut s = String::from("{");
            for f in schema.fields().iter() {
                for _ in 0..2 {
                    s.push_str(&format!(
                        "{}: {}, ",
                        key_text(rng, f.name()),
                        gen_value(rng, f.data_type(), list_mode, 0)
                    ));
                }
            }
            s.push_str("\"zz\": 1}");
            s.into_bytes()
        }
        8 => rng
            .pick(&[
                &b""[..],
                b"   ",
                b"[]",
                b"[1, {\"a\": 1}]",
                b"\"a\"",
                b"null",
                b"{",
                b"{\"a\"",
                b"{\"a\":",
                b"{\"a\": 1,",
                b"{}",
                b"{\"\xff\": 1}",
                b"{\"a\": \"\xff\"}",
                b"{\"a\x01\": 1}",
                b"\xef\xbb\xbf{\"a\": 1}",
                b"{\"a\": {\"b\": {\"c\": [{\"id\": 1}]}}} {\"x\": 1}",
            ])
            .to_vec(),
        9 => {
            // Deep.
            let n = 1 + rng.below(3000);
            let name = rng_name(rng);
            let key = key_text(rng, name);
            let mut s = String::new();
            for _ in 0..n {
                s.push('{');
                s.push_str(&key);
                s.push(':');
            }
            s.push('1');
            for _ in 0..n {
                s.push('}');
            }
            s.into_bytes()
        }
        10 => {
            // Deep arrays.
            let n = 1 + rng.below(5000);
            let mut s = "{\"a\": ".to_string() + &"[".repeat(n) + &"]".repeat(n) + "}";
            if rng.chance(50) {
                s = "[".repeat(n) + &"]".repeat(n);
            }
            s.into_bytes()
        }
        _ => {
            // Many keys (known ones among them).
            let n = 1 + rng.below(3000);
            let mut s = String::from("{");
            for i in 0..n {
                if i > 0 {
                    s.push(',');
                }
                if rng.chance(2) {
                    let f = &schema.fields()[rng.below(schema.fields().len())];
                    s.push_str(&format!("{}: null", key_text(rng, f.name())));
                } else {
                    s.push_str(&format!("\"k{i}\": {i}"));
                }
            }
            s.push('}');
            s.into_bytes()
        }
    }
}

fn rng_name(rng: &mut Rng) -> &'static str {
    NAMES[rng.below(NAMES.len())]
}

/// What a read gave: the batches, or where and why it failed.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    Batches(Vec<RecordBatch>),
    Record(u64, u64, u64, u64, String, String),
    Other(String),
}

fn outcome(result: Result<Vec<RecordBatch>, ArrowError>) -> Outcome {
    match result {
        Ok(batches) => Outcome::Batches(batches),
        Err(ArrowError::ExternalError(e)) => match e.downcast::<RecordError>() {
            Ok(e) => Outcome::Record(e.record, e.line, e.column, e.byte, e.path, e.message),
            Err(e) => Outcome::Other(e.to_string()),
        },
        Err(e) => Outcome::Other(e.to_string()),
    }
}

/// Reads `input` with `builder`, through a reader of `chunk` bytes at a time.
fn read(builder: ReaderBuilder, input: &[u8], chunk: usize) -> Outcome {
    let reader = match builder.build(BufReader::with_capacity(chunk, input)) {
        Ok(r) => r,
        Err(e) => return Outcome::Other(format!("build: {e}")),
    };
    outcome(reader.collect())
}

#[derive(Clone, Copy, Debug)]
struct Policy {
    strict: bool,
    strict_parsing: bool,
    list: bool,
    coerce: bool,
    conflicts: bool,
    batch: usize,
}

fn builder(schema: &SchemaRef, field: bool, p: Policy, backend: Backend) -> ReaderBuilder {
    let b = if field {
        ReaderBuilder::new_with_field(schema.fields()[0].clone())
    } else {
        ReaderBuilder::new(schema.clone())
    };
    b.with_backend(backend)
        .with_strict_mode(p.strict)
        .with_strict_parsing(p.strict_parsing)
        .with_struct_mode(if p.list {
            StructMode::ListOnly
        } else {
            StructMode::ObjectOnly
        })
        .with_coerce_primitive(p.coerce)
        .with_ignore_type_conflicts(p.conflicts)
        .with_batch_size(p.batch)
}

/// One generated case: `with` (a reader given the example) must read as
/// `without`. Returns a description on a difference.
fn check_case(seed: u64) -> Result<(), String> {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1, false);
    rng.1 = rng.chance(60);
    let schema = gen_schema(&mut rng);
    let p = Policy {
        strict: rng.chance(20),
        strict_parsing: rng.chance(20),
        list: rng.chance(10),
        coerce: rng.chance(20),
        conflicts: rng.chance(20),
        batch: 1 + rng.below(4),
    };
    let field = rng.chance(10);
    let mut input = Vec::new();
    for _ in 0..1 + rng.below(5) {
        let record = if field {
            gen_value(&mut rng, schema.fields()[0].data_type(), p.list, 0)
        } else {
            gen_object(&mut rng, schema.fields(), p.list, 0)
        };
        input.extend_from_slice(record.as_bytes());
        input.push(b'\n');
    }
    if rng.chance(15) {
        damage(&mut rng, &mut input);
    }
    let example = gen_example(&mut rng, &schema, p.list);
    let record_keys: Option<Vec<&str>> = rng.chance(20).then(|| {
        (0..rng.below(4))
            .map(|_| {
                if rng.chance(50) {
                    *rng.pick(&NAMES)
                } else {
                    *rng.pick(&UNKNOWN)
                }
            })
            .collect()
    });
    let chunk = 1 + rng.below(64);
    let mut per_backend = Vec::new();
    for backend in BACKENDS {
        let make = || {
            let b = builder(&schema, field, p, backend);
            match &record_keys {
                Some(keys) => b.with_record_keys(keys.iter().copied()),
                None => b,
            }
        };
        let without = read(make(), &input, 1 << 16);
        if std::env::var_os("EXAMPLE_HOSTILE_STATS").is_some() {
            let kind = match &without {
                Outcome::Batches(b) => {
                    format!("ok {}", b.iter().map(|b| b.num_rows()).sum::<usize>())
                }
                Outcome::Record(r, ..) => format!("err at record {r}"),
                Outcome::Other(e) => format!("other {e}"),
            };
            eprintln!("STAT {backend:?} {kind}");
        }
        let with = read(make().with_example_record(&example), &input, 1 << 16);
        let chunked = read(make().with_example_record(&example), &input, chunk);
        per_backend.push(with.clone());
        for (name, got) in [("with", &with), ("with, chunked", &chunked)] {
            if *got != without {
                return Err(format!(
                    "seed {seed} {backend:?} {name} ({chunk}): {p:?} field {field} keys {record_keys:?}\nschema {schema:?}\ninput {:?}\nexample {:?}\nwithout {without:?}\nwith    {got:?}",
                    String::from_utf8_lossy(&input),
                    String::from_utf8_lossy(&example[..example.len().min(400)]),
                ));
            }
        }
    }
    if std::env::var_os("EXAMPLE_HOSTILE_CROSS").is_some() && per_backend[0] != per_backend[1] {
        return Err(format!(
            "seed {seed} backends differ: {p:?} field {field} keys {record_keys:?}\nschema {schema:?}\ninput {:?}\nexample {:?}\ninterpreter {:?}\njit         {:?}",
            String::from_utf8_lossy(&input),
            String::from_utf8_lossy(&example[..example.len().min(400)]),
            per_backend[0],
            per_backend[1]
        ));
    }
    Ok(())
}

/// Generated schemas, inputs and examples: with the example or without, the
/// same batches and errors on each backend.
#[test]
fn generated_examples_change_nothing() {
    let cases: u64 = std::env::var("EXAMPLE_HOSTILE_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let start: u64 = std::env::var("EXAMPLE_HOSTILE_START")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut failures = Vec::new();
    for seed in start..start + cases {
        if let Err(e) = check_case(seed) {
            failures.push(e);
        }
    }
    for f in failures.iter().take(5) {
        eprintln!("{f}\n");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}

/// Reads all of `input` with a decoder of `schema`, as a `Reader` would.
fn run(schema: &jitson_arrow::CompiledSchema, input: &[u8]) -> Outcome {
    let mut decoder = schema.decoder();
    let mut batches = Vec::new();
    let mut pos = 0;
    loop {
        if pos == input.len() {
            match decoder.flush() {
                Ok(Some(b)) => {
                    batches.push(b);
                    continue;
                }
                Ok(None) => return Outcome::Batches(batches),
                Err(e) => return outcome(Err(e)),
            }
        }
        match decoder.decode(&input[pos..]) {
            Ok(n) => pos += n,
            Err(e) => return outcome(Err(e)),
        }
        if pos < input.len() {
            match decoder.flush() {
                Ok(Some(b)) => batches.push(b),
                Ok(None) => {}
                Err(e) => return outcome(Err(e)),
            }
        }
    }
}

fn rich_schema() -> SchemaRef {
    let item = Fields::from(vec![
        Field::new("b", DataType::Int32, true),
        Field::new("a", DataType::Utf8, false),
    ]);
    let inner = Fields::from(vec![
        Field::new("x", DataType::Float64, true),
        Field::new(
            "items",
            DataType::new_list(DataType::Struct(item.clone()), true),
            true,
        ),
    ]);
    let request = Fields::from(vec![
        Field::new("status", DataType::Int32, true),
        Field::new("path", DataType::Utf8, true),
        Field::new("method", DataType::Utf8, false),
        Field::new("inner", DataType::Struct(inner), true),
    ]);
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("req", DataType::Struct(request), true),
        Field::new(
            "items",
            DataType::new_list(DataType::Struct(item.clone()), true),
            true,
        ),
        Field::new("m", map_type(DataType::Struct(item)), true),
        Field::new("ok", DataType::Boolean, true),
    ]))
}

const RICH: &str = concat!(
    r#"{"zz": "skip me", "req": {"ua": "x", "method": "GET", "inner": {"items": [{"a": "p", "b": 1, "q": [1, {"r": "s"}]}], "x": 1.5}, "status": 200, "path": "/a"}, "id": 1, "items": [{"b": 2, "a": "\u00e9"}], "m": {"k": {"a": "v", "b": -1}}, "unknown": [1e5, -0, "t\"", {}]}"#,
    "\n",
    r#"{"id": 2, "req": {"method": "PUT", "method": "POST", "path": null, "inner": null}, "ok": true, "zz": 12345678901234567890, "items": null}"#,
    "\n",
);

fn rich_examples() -> Vec<&'static [u8]> {
    vec![
        br#"{"zz": "", "req": {"ua": "", "method": "", "inner": {"items": [{"a": "", "b": 0}], "x": 0}, "status": 0, "path": ""}, "id": 0, "items": [{"b": 0, "a": ""}], "m": {}, "unknown": 0}"#,
        br#"{"ok": false, "m": {"k": {"b": 1, "a": ""}}, "items": [{"a": "", "a": "", "b": 1, "b": 2}], "req": {"inner": {"x": 1, "items": [{"b": 1, "a": ""}], "x": 2}, "path": "", "status": 1, "method": "", "status": 2}, "id": 0, "id": 1}"#,
        br#"{"req": {"method": 5, "inner": {"items": {"a": 1}}}, "id": "x"}"#,
        br#"{"a": {"b": {"c": {"d": [[[{"id": 1}]]]}}}, "req": [], "items": [1, 2, null]}"#,
        br#"{"id": 1, "req": {"inner": {"items": [{"b": 1, "a": "#,
        br#"{"unknown": 1, "zz": 2, "id": 3}"#,
        b"",
        b"[{\"id\": 1}]",
        b"{\"id\": 1, \"req\": {\"method\": \"\xff\"}}",
    ]
}

/// A named way to configure a builder.
type Configure = fn(ReaderBuilder) -> ReaderBuilder;

fn rich_policies() -> Vec<(&'static str, Configure)> {
    vec![
        ("default", |b| b),
        ("strict parsing", |b| b.with_strict_parsing(true)),
        ("strict mode", |b| b.with_strict_mode(true)),
        ("conflicts", |b| {
            b.with_ignore_type_conflicts(true)
                .with_coerce_primitive(true)
        }),
        ("record keys", |b| {
            b.with_record_keys(["unknown", "id", "zz", "req"])
        }),
    ]
}

/// A fixed rich input cut at every byte, and with every byte replaced by
/// each of a few others: with any of the examples, the same batches or
/// errors as without, on both backends and under each policy; also through
/// `decode_parallel`.
#[test]
fn every_cut_and_every_damaged_byte() {
    let input = RICH.as_bytes();
    let mut inputs: Vec<Vec<u8>> = vec![input.to_vec()];
    for cut in 0..input.len() {
        inputs.push(input[..cut].to_vec());
    }
    for at in 0..input.len() {
        for b in [b'"', b'}', b'1', b'\xff', b' '] {
            if input[at] != b {
                let mut damaged = input.to_vec();
                damaged[at] = b;
                inputs.push(damaged);
            }
        }
    }
    let schema = rich_schema();
    let mut failures = Vec::new();
    for (name, policy) in rich_policies() {
        for backend in BACKENDS {
            let make = || policy(ReaderBuilder::new(schema.clone()).with_backend(backend));
            let plain = make().compile().unwrap();
            let expected: Vec<Outcome> = inputs.iter().map(|i| run(&plain, i)).collect();
            for example in rich_examples() {
                let with = make().with_example_record(example).compile().unwrap();
                for (input, expected) in inputs.iter().zip(&expected) {
                    let got = run(&with, input);
                    if got != *expected {
                        failures.push(format!(
                            "{name} {backend:?} example {:?}\ninput {:?}\nwithout {expected:?}\nwith    {got:?}",
                            String::from_utf8_lossy(example),
                            String::from_utf8_lossy(input)
                        ));
                    }
                }
                // decode_parallel, cut into small chunks.
                for input in inputs.iter().step_by(37) {
                    let a = outcome(plain.decode_parallel(input, 64));
                    let b = outcome(with.decode_parallel(input, 64));
                    if a != b {
                        failures.push(format!(
                            "parallel {name} {backend:?} {:?}: {a:?} vs {b:?}",
                            String::from_utf8_lossy(input)
                        ));
                    }
                }
            }
        }
    }
    for f in failures.iter().take(5) {
        eprintln!("{f}\n");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}

/// Skipped values: strings of 0 to 64 bytes with an odd piece at either end
/// or the middle, and numbers valid and not.
fn skipped_values() -> Vec<Vec<u8>> {
    let mut values: Vec<Vec<u8>> = Vec::new();
    let odds: [&[u8]; 15] = [
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
        b"\n",
        b"\0",
        b"\\",
        b"\xc3\xa9",
        b"\xf0\x9f\x98\x80",
        b"\\n",
        b"\\u00e9",
        b"\\ud800",
        b"\xff",
        b"\x1f",
        b"\x7f",
        b"\xe2\x82",
        b"\xc0\xaf",
    ];
    for len in (0..=40).chain([47, 48, 63, 64]) {
        let plain = vec![b'x'; len];
        values.push([&b"\""[..], &plain, b"\""].concat());
        for &at in &[0, len / 2, len] {
            for odd in odds {
                let mut text = plain.clone();
                text.splice(at..at, odd.iter().copied());
                values.push([&b"\""[..], &text, b"\""].concat());
            }
        }
    }
    for n in [
        "0",
        "-0",
        "-",
        "01",
        "-01",
        "1.",
        ".5",
        "1e",
        "1e+",
        "-0.0e-0",
        "1e400",
        "-1e400",
        "1e-400",
        "123456789012345678901234567890",
        "+1",
        "0x1",
        "2.",
        "0e",
        "NaN",
        "tru",
        // Around the JIT's in-line skip of an unprojected number (19 digits
        // before or after the point; an exponent goes to `ignore_value`) and
        // of `null`, `true` and `false`.
        "1234567890123456789",
        "-12345678901234567890",
        "1.1234567890123456789",
        "1.12345678901234567890",
        "-12.5",
        "12.5e",
        "12.5E+2",
        "null",
        "false",
        "fals",
        "[\"x\", 1.]",
        "{\"a\": \"\\ud800\"}",
    ] {
        values.push(n.as_bytes().to_vec());
    }
    values
}

/// An unprojected member (the top level's, a struct column's) whose value is
/// one of [`skipped_values`], after whitespace, whole and cut at every byte
/// of it: the interpreter and the JIT agree (batches, or record, line,
/// column, byte, path and message), and so do readers with an example that
/// makes the member a record key, or with record keys naming it.
#[test]
fn unprojected_values_on_both_backends() {
    let inner = Fields::from(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("z", DataType::Utf8, true),
    ]);
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("s", DataType::Struct(inner), true),
        Field::new("z", DataType::Int64, true),
    ]));
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for (i, value) in skipped_values().iter().enumerate() {
        let ws: &[u8] = [&b""[..], b" ", b"\n\t ", b"                    "][i % 4];
        let top = [&b"{\"a\": 1, \"ig\":"[..], ws].concat();
        let whole = [&top[..], value, b", \"z\": 2}\n{\"a\": 3}\n"].concat();
        for cut in top.len() - ws.len()..=top.len() + value.len() + 1 {
            inputs.push(whole[..cut].to_vec());
        }
        inputs.push(whole);
        inputs.push([&top[..], value, b"}"].concat());
        inputs.push([&top[..], value, b" \"z\": 2}"].concat());
        let nested = [&b"{\"s\": {\"a\": 1, \"ig\":"[..], ws].concat();
        inputs.push([&nested[..], value, b", \"z\": \"x\"}, \"z\": 2}\n"].concat());
        inputs.push([&nested[..], value].concat());
    }
    let examples: [Option<&[u8]>; 3] = [
        None,
        Some(br#"{"a": 0, "ig": "", "s": {"z": "", "ig": 0, "a": 0}, "z": 0}"#),
        Some(br#"{"ig": 0}"#),
    ];
    let mut failures = Vec::new();
    for (name, policy) in rich_policies() {
        for keys in [false, true] {
            let mut outcomes: Vec<(String, Vec<Outcome>)> = Vec::new();
            for example in examples {
                for backend in BACKENDS {
                    let mut b = policy(ReaderBuilder::new(schema.clone()).with_backend(backend));
                    if keys {
                        b = b.with_record_keys(["z", "ig", "a"]);
                    }
                    if let Some(example) = example {
                        b = b.with_example_record(example);
                    }
                    let compiled = b.compile().unwrap();
                    outcomes.push((
                        format!(
                            "{name} keys {keys} {backend:?} example {:?}",
                            example.map(String::from_utf8_lossy)
                        ),
                        inputs.iter().map(|i| run(&compiled, i)).collect(),
                    ));
                }
            }
            let (first, expected) = &outcomes[0];
            for (other, got) in &outcomes[1..] {
                for ((input, a), b) in inputs.iter().zip(expected).zip(got) {
                    if a != b {
                        failures.push(format!(
                            "input {:?}\n{first}: {a:?}\n{other}: {b:?}",
                            String::from_utf8_lossy(input)
                        ));
                    }
                }
            }
        }
    }
    for f in failures.iter().take(8) {
        eprintln!("{f}\n");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}

/// A top-level scalar of `new_with_field` that a buffer ends right after is
/// kept until a delimiter says where it ends; its parse may stop before that
/// (`1x`: the `1`), and what follows is more records, read as in one buffer.
/// These bytes were dropped (found by the hostile review of example records,
/// also at 706cb76), and at the end of the stream even in one buffer (`1x`
/// without a newline read as `[1]`). Every read size, batch sizes that end a
/// batch inside the kept bytes, both backends.
#[test]
fn field_scalars_cut_by_a_buffer_keep_their_errors() {
    let field = Field::new("v", DataType::Int64, true);
    let refused: [&[u8]; 7] = [
        b"1x\n",
        b"1x2\n5\n",
        b"7\n1x\n5\n",
        b"1.5+\n",
        b"1x",
        b"7 1-",
        b"nullx",
    ];
    let accepted: [&[u8]; 6] = [
        b"1null2\n",
        b"1null",
        b"nullnull7",
        b"3\n12",
        b"1null2 3null",
        b"-0null4",
    ];
    for (input, ok) in refused
        .iter()
        .map(|i| (i, false))
        .chain(accepted.iter().map(|i| (i, true)))
    {
        for backend in BACKENDS {
            for batch in [1, 2, 1024] {
                let make = || {
                    ReaderBuilder::new_with_field(field.clone())
                        .with_backend(backend)
                        .with_batch_size(batch)
                };
                let whole = read(make(), input, 1 << 16);
                let text = String::from_utf8_lossy(input);
                assert_eq!(
                    matches!(whole, Outcome::Batches(..)),
                    ok,
                    "{text:?}: {whole:?}"
                );
                for capacity in 1..input.len() {
                    assert_eq!(
                        read(make(), input, capacity),
                        whole,
                        "{backend:?} {text:?} batches of {batch} read {capacity} bytes at a time",
                    );
                }
            }
        }
    }
}

/// Token soup read by every chunk size and batch size decodes as in one
/// buffer: scalars run together (`1null`), cut anywhere, with brackets,
/// strings and delimiters among them, for a field reader and a list-free
/// struct reader.
#[test]
fn soup_read_in_chunks_reads_as_one_buffer() {
    const PIECES: [&str; 16] = [
        "1",
        "-",
        "0",
        ".5",
        "e3",
        "null",
        "true",
        "x",
        " ",
        "\n",
        ",",
        "[",
        "]",
        "{}",
        "\"s\"",
        "{\"v\":2}",
    ];
    let field = Field::new("v", DataType::Int64, true);
    let schema = Arc::new(Schema::new(vec![field.clone()]));
    let mut rng = Rng(0x5EED_1234_ABCD_0001, false);
    for case in 0..400 {
        let mut input = String::new();
        for _ in 0..1 + rng.below(6) {
            input.push_str(PIECES[rng.below(PIECES.len())]);
        }
        let backend = BACKENDS[case % 2];
        let batch = *rng.pick(&[1, 2, 1024]);
        let as_field = case % 4 < 2;
        let make = || {
            let b = if as_field {
                ReaderBuilder::new_with_field(field.clone())
            } else {
                ReaderBuilder::new(schema.clone())
            };
            b.with_backend(backend).with_batch_size(batch)
        };
        let whole = read(make(), input.as_bytes(), 1 << 16);
        for capacity in 1..input.len() {
            assert_eq!(
                read(make(), input.as_bytes(), capacity),
                whole,
                "{backend:?} field {as_field} {input:?} batches of {batch} read {capacity} bytes at a time",
            );
        }
    }
}

/// With two columns of one name (which an Arrow schema allows), record keys
/// dropped the second (a name already listed was not added again), and the
/// batch was refused ("all columns in a record batch must have the specified
/// row count"); an example whose top-level keys are `["b"]` did the same
/// (`Plan::with_record_keys`, also at 706cb76). Record keys now leave such a
/// record as it is.
#[test]
fn columns_of_one_name_with_an_example() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Int64, true),
        Field::new("a", DataType::Utf8, true),
    ]));
    let input = b"{\"a\": 4}\n";
    for backend in BACKENDS {
        let without = read(
            ReaderBuilder::new(schema.clone()).with_backend(backend),
            input,
            1 << 16,
        );
        assert!(matches!(without, Outcome::Batches(_)), "{without:?}");
        let with = read(
            ReaderBuilder::new(schema.clone())
                .with_backend(backend)
                .with_example_record(b"{\"b\": 1}"),
            input,
            1 << 16,
        );
        assert_eq!(with, without, "{backend:?}");
    }
}

/// A name that repeats fills the first column of it, whatever the key order
/// and with or without an example, as arrow-json does (its later columns are
/// always null). The JIT's speculation on key order filled the later column
/// when its key came in that column's place, and the interpreter did when a
/// key repeated; a later column that is not nullable could only ever be null,
/// and is refused when the reader is built.
#[test]
fn repeated_names_fill_the_first_column_as_arrow_json() {
    let inner = Fields::from(vec![
        Field::new("x", DataType::Int64, true),
        Field::new("x", DataType::Utf8, true),
    ]);
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Int64, true),
        Field::new("a", DataType::Int64, true),
        Field::new("s", DataType::Struct(inner), true),
    ]));
    let inputs: [&[u8]; 6] = [
        b"{\"a\": 4}\n",
        b"{\"b\":1,\"a\":2}\n",
        b"{\"a\":1,\"b\":2,\"a\":3}\n",
        b"{\"a\":1}\n{\"b\":1,\"a\":2}\n{\"a\":5,\"a\":6}\n",
        b"{\"s\":{\"x\":1}}\n{\"s\":{\"x\":2,\"x\":3}}\n{\"b\":0,\"s\":{}}\n",
        b"{\"b\":1,\"a\":\"no\"}\n",
    ];
    for input in inputs {
        let text = String::from_utf8_lossy(input);
        let expected = outcome(
            arrow_json::ReaderBuilder::new(schema.clone())
                .build(input)
                .unwrap()
                .collect(),
        );
        for backend in BACKENDS {
            for example in [None, Some(&b"{\"b\":1,\"a\":2,\"s\":{\"x\":1}}"[..])] {
                let mut b = ReaderBuilder::new(schema.clone()).with_backend(backend);
                if let Some(example) = example {
                    b = b.with_example_record(example);
                }
                let got = read(b, input, 1 << 16);
                match (&got, &expected) {
                    (Outcome::Batches(_), Outcome::Batches(_)) => {
                        assert_eq!(got, expected, "{backend:?} {text:?} example {example:?}")
                    }
                    (Outcome::Record(..), Outcome::Other(_)) => {}
                    _ => panic!("{backend:?} {text:?}: {got:?}, arrow-json {expected:?}"),
                }
            }
        }
    }
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("a", DataType::Int64, false),
    ]));
    for backend in BACKENDS {
        let built = ReaderBuilder::new(schema.clone())
            .with_backend(backend)
            .build(&b""[..]);
        let e = built.expect_err("a later column of a repeated name that is not nullable");
        assert!(e.to_string().contains("repeats the name `a`"), "{e}");
    }
}
