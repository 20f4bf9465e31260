//! NDJSON into Arrow and back: arrow-json against jitson-arrow's interpreter, its JIT, and
//! its JIT on every core, on the same input with the same run-time schema.
//!
//! Data sets:
//! - `logs`: 1,000,000 generated log records (100,000 with `--quick`), built here
//!   deterministically with a xorshift PRNG: RFC 3339 timestamps, levels,
//!   services, messages (some with `\"`, `\n`, `\t`, `\u00e9` escapes or raw
//!   UTF-8), a float that is sometimes null or absent, a nested `request` object
//!   with a nullable user agent, a list of 0-4 tags, and a nullable id.
//! - `vectors`: 50,000 generated records (5,000 with `--quick`) of an id, a
//!   label and a 64-value embedding, each value an f32 as Rust writes it,
//!   read into a `FixedSizeList(Float32, 64)` column.
//! - `twitter`: the `statuses` of `twitter.json` from the benchmark corpus
//!   (`../shared/corpus/bench/` from the workspace root, or the directory the
//!   `JITSON_CORPUS` variable names), one per line in their original key order,
//!   repeated to at least 10 MB, decoded with a schema of 15 of their fields,
//!   `user` and `entities` (hashtags, urls, mentions) nested in them; the other
//!   fields, `retweeted_status` among them, are skipped.
//!
//! Contenders, all with batches of 8192 rows: arrow-json's push `Decoder`;
//! jitson-arrow's `Decoder` with the interpreter and with the JIT, on one thread;
//! the JIT on one thread with `with_validate_skipped(false)` (members no column
//! reads are matched by brackets, not validated: not the default, and not what
//! arrow-json does, so its ratio is not the one of record);
//! and `CompiledSchema::decode_parallel` (the JIT) on rayon's pool, in chunks of
//! input / (4 × threads), clamped to 256 KiB..16 MiB. Every contender's rows are
//! checked against arrow-json's; the example exits with status 1 if any differ.
//!
//! Timing: the contenders are interleaved round by round (5 rounds, 2 with
//! `--quick`), each decoding the whole data set once per round; the tables show
//! the medians. "vs arrow-json" is arrow-json's median time over the contender's
//! (higher is faster).
//!
//! Memory: a counting global allocator tracks the live heap. "peak MB" is the
//! most that was live during a contender's decode beyond what was live before it
//! (the highest over the rounds). The input was allocated before and is not
//! counted; the output batches are, as they are built during the decode. "out MB"
//! is the batches' `get_array_memory_size`, and "peak / bound" is peak MB over
//! 1.5 × out MB + one batch's worth of input (at most 1 when peak ≤ 1.5 × output +
//! one batch of input).
//!
//! The JIT schema's compile time is printed next to the time each contender takes
//! to decode 1 MB.
//!
//! The round trip: each data set's batches (arrow-json's decode) are written
//! back as NDJSON by arrow-json's `LineDelimitedWriter` and by
//! `jitson_arrow::writer` on one thread and on every core
//! (`write_batches_parallel`), both with the compiled row loop, and by its
//! interpreter on one thread, interleaved round by round into a sink allocated
//! beforehand; every writer's bytes must equal arrow-json's, and jitson's output
//! read back with jitson-arrow must give the same rows (exit status 1 if not).
//! The table shows output MB/s, rows/s, the ratio to arrow-json's writer and
//! the heap each writer used beyond the sink.
//!
//! Run: `cargo run --release -p jitson-arrow --example ndjson` (add `-- --quick`
//! for 100,000 log records and 2 rounds; `NDJSON_ONLY=writer` runs the writers
//! alone, `NDJSON_ONLY==<name>` the reader of that exact name,
//! `NDJSON_WRITER=<text>` times only those whose name contains it, and
//! `NDJSON_ROUNDS=<n>` sets the rounds). `NDJSON_ALONE=1` leaves arrow-json's
//! reader and writer out of the rounds after the first (its output is still
//! the reference): a profile of the contenders `NDJSON_ONLY` and
//! `NDJSON_WRITER` keep, without arrow-json's samples; the ratios then read
//! NaN. `NDJSON_DATA=logs`, `vectors` or `twitter` runs that data set alone;
//! `NDJSON_SKIP_WRITERS=1` leaves the writers out (a profile of the readers).

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, SchemaRef};
use jitson_arrow::{Backend, CompiledSchema, ReaderBuilder};
use serde_json::value::RawValue;

/// Rows per batch, for every contender.
const BATCH: usize = 8192;
const MB: f64 = 1e6;

// ---------------------------------------------------------------------------
// Peak memory: a global allocator that tracks the live heap and its high mark.

/// The system allocator, keeping [`LIVE`] and [`PEAK`] up to date.
struct PeakAlloc;

/// Bytes currently allocated.
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// The highest [`LIVE`] since the last [`reset_peak`].
static PEAK: AtomicUsize = AtomicUsize::new(0);

#[global_allocator]
static GLOBAL: PeakAlloc = PeakAlloc;

fn grew(bytes: usize) {
    let now = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(now, Relaxed);
}

fn shrank(bytes: usize) {
    LIVE.fetch_sub(bytes, Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; the counters only observe.
unsafe impl GlobalAlloc for PeakAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System.alloc`'s.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System.alloc_zeroed`'s.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is `System.dealloc`'s.
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is `System.realloc`'s.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

/// Starts a new high mark at the live heap; returns the live heap.
fn reset_peak() -> usize {
    let live = LIVE.load(Relaxed);
    PEAK.store(live, Relaxed);
    live
}

// ---------------------------------------------------------------------------
// The generated log data set (shared with jitson-datafusion's tests and example).

#[path = "data/logs.rs"]
mod logs;
use logs::{field, generate_logs, logs_schema};

// The generated vectors data set: embeddings in fixed-size lists of f32.
#[path = "data/vectors.rs"]
mod vectors;
use vectors::{generate_vectors, vectors_schema};

// ---------------------------------------------------------------------------
// The twitter data set.

/// The benchmark files: `bench/` under the corpus root, which is
/// `$JITSON_CORPUS` (unset or empty: `../shared/corpus` beside the workspace),
/// as for `examples/compare` and the tests.
fn corpus_dir() -> PathBuf {
    let root = match std::env::var_os("JITSON_CORPUS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
    };
    root.join("bench")
}

/// twitter.json's statuses as NDJSON, repeated to at least `min_bytes`, and the
/// number of lines.
fn twitter_ndjson(text: &str, min_bytes: usize) -> Result<(Vec<u8>, usize), serde_json::Error> {
    let top: HashMap<String, &RawValue> = serde_json::from_str(text)?;
    let statuses: Vec<&RawValue> = match top.get("statuses") {
        Some(raw) => serde_json::from_str(raw.get())?,
        None => Vec::new(),
    };
    let mut once = String::new();
    for status in &statuses {
        minify(status.get(), &mut once);
        once.push('\n');
    }
    if statuses.is_empty() {
        return Ok((Vec::new(), 0));
    }
    let copies = min_bytes.div_ceil(once.len());
    Ok((once.repeat(copies).into_bytes(), statuses.len() * copies))
}

/// Appends `json` without the whitespace between tokens.
fn minify(json: &str, out: &mut String) {
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if matches!(c, ' ' | '\t' | '\n' | '\r') {
            continue;
        }
        out.push(c);
    }
}

fn twitter_schema() -> SchemaRef {
    use DataType::{Boolean, Int64, Utf8};
    let list = |fields: Vec<Field>| DataType::new_list(DataType::Struct(fields.into()), true);
    let user = Fields::from(vec![
        field("id", Int64, false),
        field("name", Utf8, false),
        field("screen_name", Utf8, false),
        field("location", Utf8, false),
        field("followers_count", Int64, false),
        field("friends_count", Int64, false),
        field("verified", Boolean, false),
    ]);
    let hashtags = list(vec![
        field("text", Utf8, false),
        field("indices", DataType::new_list(Int64, true), false),
    ]);
    let urls = list(vec![
        field("url", Utf8, false),
        field("expanded_url", Utf8, false),
    ]);
    let user_mentions = list(vec![
        field("screen_name", Utf8, false),
        field("name", Utf8, false),
        field("id", Int64, false),
    ]);
    let entities = Fields::from(vec![
        field("hashtags", hashtags, false),
        field("urls", urls, false),
        field("user_mentions", user_mentions, false),
    ]);
    Arc::new(Schema::new(vec![
        field("id", Int64, false),
        field("id_str", Utf8, false),
        field("text", Utf8, false),
        field("created_at", Utf8, false),
        field("source", Utf8, false),
        field("truncated", Boolean, false),
        field("in_reply_to_status_id", Int64, true),
        field("in_reply_to_screen_name", Utf8, true),
        field("retweet_count", Int64, false),
        field("favorite_count", Int64, false),
        field("favorited", Boolean, false),
        field("retweeted", Boolean, false),
        field("lang", Utf8, false),
        field("user", DataType::Struct(user), false),
        field("entities", DataType::Struct(entities), false),
    ]))
}

// ---------------------------------------------------------------------------
// Contenders.

/// A data set: NDJSON and the schema to decode it with.
struct DataSet {
    name: &'static str,
    schema: SchemaRef,
    input: Vec<u8>,
    rows: usize,
}

type DecodeFn<'a> = Box<dyn Fn(&[u8]) -> Result<Vec<RecordBatch>, ArrowError> + 'a>;

struct Contender<'a> {
    name: String,
    decode: DecodeFn<'a>,
}

/// The push-decoder API both arrow-json and jitson-arrow have.
trait Push {
    fn decode(&mut self, buf: &[u8]) -> Result<usize, ArrowError>;
    fn flush(&mut self) -> Result<Option<RecordBatch>, ArrowError>;
}

impl Push for arrow_json::reader::Decoder {
    fn decode(&mut self, buf: &[u8]) -> Result<usize, ArrowError> {
        arrow_json::reader::Decoder::decode(self, buf)
    }
    fn flush(&mut self) -> Result<Option<RecordBatch>, ArrowError> {
        arrow_json::reader::Decoder::flush(self)
    }
}

impl Push for jitson_arrow::Decoder {
    fn decode(&mut self, buf: &[u8]) -> Result<usize, ArrowError> {
        jitson_arrow::Decoder::decode(self, buf)
    }
    fn flush(&mut self) -> Result<Option<RecordBatch>, ArrowError> {
        jitson_arrow::Decoder::flush(self)
    }
}

/// Feeds all of `input` to `decoder`, flushing each full batch.
fn drain(mut decoder: impl Push, input: &[u8]) -> Result<Vec<RecordBatch>, ArrowError> {
    let mut batches = Vec::new();
    let mut pos = 0;
    loop {
        let consumed = decoder.decode(&input[pos..])?;
        pos += consumed;
        let batch = decoder.flush()?;
        let progressed = consumed > 0 || batch.is_some();
        batches.extend(batch);
        if pos == input.len() {
            return Ok(batches);
        }
        if !progressed {
            return Err(ArrowError::JsonError("the decoder made no progress".into()));
        }
    }
}

fn arrow_json_decode(schema: &SchemaRef, input: &[u8]) -> Result<Vec<RecordBatch>, ArrowError> {
    let decoder = arrow_json::ReaderBuilder::new(schema.clone())
        .with_batch_size(BATCH)
        .build_decoder()?;
    drain(decoder, input)
}

/// Chunks of about a quarter of each thread's share, within 256 KiB..16 MiB.
fn chunk_bytes(input_len: usize) -> usize {
    (input_len / (4 * rayon::current_num_threads())).clamp(256 << 10, 16 << 20)
}

/// Compiled schemas for one data set, and how long each compile took.
struct Compiled {
    interpreter: CompiledSchema,
    interpreter_time: Duration,
    jit: Result<CompiledSchema, ArrowError>,
    jit_time: Duration,
    /// The JIT (or the interpreter where it cannot run) with
    /// `with_validate_skipped(false)`.
    unvalidated: CompiledSchema,
}

fn compile(schema: &SchemaRef) -> Result<Compiled, ArrowError> {
    let builder = |backend| {
        ReaderBuilder::new(schema.clone())
            .with_batch_size(BATCH)
            .with_backend(backend)
    };
    let start = Instant::now();
    let interpreter = builder(Backend::Interpreter).compile()?;
    let interpreter_time = start.elapsed();
    let start = Instant::now();
    let jit = builder(Backend::Jit).compile();
    let jit_time = start.elapsed();
    let unvalidated = builder(Backend::Auto)
        .with_validate_skipped(false)
        .compile()?;
    Ok(Compiled {
        interpreter,
        interpreter_time,
        jit,
        jit_time,
        unvalidated,
    })
}

fn contenders<'a>(schema: &'a SchemaRef, compiled: &'a Compiled) -> Vec<Contender<'a>> {
    let threads = rayon::current_num_threads();
    let mut out = vec![
        Contender {
            name: "arrow-json".into(),
            decode: Box::new(move |input: &[u8]| arrow_json_decode(schema, input)),
        },
        Contender {
            name: "jitson-arrow interpreter, 1 thread".into(),
            decode: Box::new(|input: &[u8]| drain(compiled.interpreter.decoder(), input)),
        },
    ];
    let parallel = match &compiled.jit {
        Ok(jit) => {
            out.push(Contender {
                name: "jitson-arrow JIT, 1 thread".into(),
                decode: Box::new(|input: &[u8]| drain(jit.decoder(), input)),
            });
            (jit, "JIT")
        }
        Err(_) => (&compiled.interpreter, "interpreter"),
    };
    out.push(Contender {
        name: format!(
            "jitson-arrow {}, 1 thread, skipped members unvalidated",
            parallel.1
        ),
        decode: Box::new(|input: &[u8]| drain(compiled.unvalidated.decoder(), input)),
    });
    out.push(Contender {
        name: format!("jitson-arrow {}, {threads} threads", parallel.1),
        decode: Box::new(move |input: &[u8]| {
            parallel.0.decode_parallel(input, chunk_bytes(input.len()))
        }),
    });
    // `NDJSON_ONLY=<text>`: only the contenders whose name contains it, or
    // `NDJSON_ONLY==<name>` the one named exactly (and arrow-json, the
    // reference), for profiling one of them.
    if let Ok(only) = std::env::var("NDJSON_ONLY") {
        let kept = |name: &str| match only.strip_prefix('=') {
            Some(exact) => name == exact,
            None => name.contains(&only),
        };
        out.retain(|c| c.name == "arrow-json" || kept(&c.name));
    }
    out
}

// ---------------------------------------------------------------------------
// Checking.

/// Whether `got` holds the same rows as `expected` (however they are cut into
/// batches); on a difference, says where.
fn same_rows(expected: &[RecordBatch], got: &[RecordBatch]) -> Result<(), String> {
    let rows = |b: &[RecordBatch]| b.iter().map(RecordBatch::num_rows).sum::<usize>();
    if rows(expected) != rows(got) {
        return Err(format!("{} rows, expected {}", rows(got), rows(expected)));
    }
    let (mut i, mut j, mut at_i, mut at_j, mut row) = (0, 0, 0, 0, 0);
    while i < expected.len() && j < got.len() {
        let (a, b) = (&expected[i], &got[j]);
        let n = (a.num_rows() - at_i).min(b.num_rows() - at_j);
        if a.schema() != b.schema() {
            return Err(format!(
                "schema {:?}, expected {:?}",
                b.schema(),
                a.schema()
            ));
        }
        for (k, f) in a.schema().fields().iter().enumerate() {
            if a.column(k).slice(at_i, n).to_data() != b.column(k).slice(at_j, n).to_data() {
                return Err(format!(
                    "column `{}` differs in rows {row}..{}",
                    f.name(),
                    row + n
                ));
            }
        }
        (at_i, at_j, row) = (at_i + n, at_j + n, row + n);
        if at_i == a.num_rows() {
            (i, at_i) = (i + 1, 0);
        }
        if at_j == b.num_rows() {
            (j, at_j) = (j + 1, 0);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Measuring and reporting.

/// One contender's measurements over the rounds.
#[derive(Default)]
struct Stats {
    secs: Vec<f64>,
    peak_bytes: usize,
    out_bytes: usize,
    equal: bool,
}

impl Stats {
    fn median_secs(&self) -> f64 {
        let mut v = self.secs.clone();
        v.sort_by(f64::total_cmp);
        let mid = v.len() / 2;
        if v.is_empty() {
            f64::NAN
        } else if v.len() % 2 == 1 {
            v[mid]
        } else {
            (v[mid - 1] + v[mid]) / 2.0
        }
    }
}

/// Decodes once: the batches, the wall time, and the heap's high mark above what
/// was live before.
fn measure(contender: &Contender, input: &[u8]) -> (Vec<RecordBatch>, f64, usize) {
    let base = reset_peak();
    let start = Instant::now();
    let batches = (contender.decode)(input).unwrap_or_else(|e| {
        eprintln!("{} failed: {e}", contender.name);
        std::process::exit(1);
    });
    let secs = start.elapsed().as_secs_f64();
    let peak = PEAK.load(Relaxed).saturating_sub(base);
    (batches, secs, peak)
}

fn output_bytes(batches: &[RecordBatch]) -> usize {
    batches.iter().map(RecordBatch::get_array_memory_size).sum()
}

/// `NDJSON_ALONE=1`: arrow-json's timed runs after the first left out.
fn alone() -> bool {
    std::env::var_os("NDJSON_ALONE").is_some_and(|v| v == "1")
}

/// Runs the contenders interleaved for `rounds` rounds; checks each one's first
/// output against arrow-json's (the first contender's).
fn run_rounds(contenders: &[Contender], input: &[u8], rounds: usize) -> Vec<Stats> {
    let mut stats: Vec<Stats> = contenders.iter().map(|_| Stats::default()).collect();
    let mut reference: Option<Vec<RecordBatch>> = None;
    for round in 0..rounds {
        for (i, (c, s)) in contenders.iter().zip(&mut stats).enumerate() {
            if i == 0 && round > 0 && alone() {
                continue;
            }
            let (batches, secs, peak) = measure(c, input);
            s.secs.push(secs);
            s.peak_bytes = s.peak_bytes.max(peak);
            if round > 0 {
                continue;
            }
            s.out_bytes = output_bytes(&batches);
            match &reference {
                None => {
                    s.equal = true;
                    reference = Some(batches);
                }
                Some(expected) => match same_rows(expected, &batches) {
                    Ok(()) => s.equal = true,
                    Err(why) => println!("MISMATCH: {}: {why}", c.name),
                },
            }
        }
    }
    stats
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / MB
}

fn rate(per_sec: f64) -> String {
    if per_sec >= 1e6 {
        format!("{:.2} M", per_sec / 1e6)
    } else {
        format!("{:.1} k", per_sec / 1e3)
    }
}

/// Column widths of the tables.
const WIDTHS: [usize; 7] = [36, 8, 10, 13, 8, 7, 12];

/// One table row: the first cell left-aligned, the others right-aligned.
fn print_row(cells: &[String]) {
    let mut line = String::from("|");
    for (i, (cell, w)) in cells.iter().zip(WIDTHS).enumerate() {
        if i == 0 {
            write!(line, " {cell:<w$} |").unwrap();
        } else {
            write!(line, " {cell:>w$} |").unwrap();
        }
    }
    println!("{line}");
}

fn print_table(data: &DataSet, contenders: &[Contender], stats: &[Stats]) {
    let batch_input = data.input.len() as f64 * BATCH.min(data.rows) as f64 / data.rows as f64;
    let header = [
        "contender",
        "MB/s",
        "rows/s",
        "vs arrow-json",
        "peak MB",
        "out MB",
        "peak / bound",
    ];
    print_row(&header.map(String::from));
    let rule: String = WIDTHS
        .iter()
        .map(|w| format!("|{}", "-".repeat(w + 2)))
        .collect();
    println!("{rule}|");
    let base = stats[0].median_secs();
    for (c, s) in contenders.iter().zip(stats) {
        let secs = s.median_secs();
        let bound = 1.5 * s.out_bytes as f64 + batch_input;
        print_row(&[
            c.name.clone(),
            format!("{:.1}", mb(data.input.len()) / secs),
            rate(data.rows as f64 / secs),
            format!("{:.2}x", base / secs),
            format!("{:.1}", mb(s.peak_bytes)),
            format!("{:.1}", mb(s.out_bytes)),
            format!("{:.2}", s.peak_bytes as f64 / bound),
        ]);
    }
    println!(
        "input {:.1} MB; one batch of input ≈ {:.2} MB; peak / bound = peak MB / (1.5 × out MB + one batch of input)",
        mb(data.input.len()),
        batch_input / MB
    );
}

fn print_compile(compiled: &Compiled, contenders: &[Contender], stats: &[Stats], input_len: usize) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    // Milliseconds each contender takes to decode 1 MB of this data set.
    let per_mb: Vec<f64> = stats
        .iter()
        .map(|s| s.median_secs() * 1e3 * MB / input_len as f64)
        .collect();
    println!(
        "compile: interpreter {:.2} ms (lowering the schema)",
        ms(compiled.interpreter_time)
    );
    match &compiled.jit {
        Ok(jit) => match jit.compile_stats() {
            Some((code, time)) => println!(
                "compile: JIT {:.2} ms ({:.2} ms in codegen, {:.1} KiB of machine code), \
                 as long as decoding {:.1} MB with the JIT on 1 thread",
                ms(compiled.jit_time),
                ms(time),
                code as f64 / 1024.0,
                ms(compiled.jit_time)
                    / contenders
                        .iter()
                        .position(|c| c.name == "jitson-arrow JIT, 1 thread")
                        .map_or(f64::NAN, |i| per_mb[i])
            ),
            None => println!("compile: JIT: the schema was not compiled (interpreter)"),
        },
        Err(e) => println!("compile: JIT unavailable: {e}"),
    }
    for (c, t) in contenders.iter().zip(per_mb) {
        println!("decoding 1 MB: {t:>6.2} ms  {}", c.name);
    }
}

/// The first line of `input`, cut at 300 bytes.
fn print_first_record(input: &[u8]) {
    let line = input.split(|&b| b == b'\n').next().unwrap_or_default();
    let shown = String::from_utf8_lossy(&line[..line.len().min(300)]);
    let more = if line.len() > 300 { " …" } else { "" };
    println!("first record: {shown}{more}");
}

/// Benchmarks one data set; whether every contender matched arrow-json.
fn bench(data: &DataSet, rounds: usize) -> bool {
    println!();
    println!(
        "## {}: {} rows, {:.1} MB of NDJSON, {} columns",
        data.name,
        data.rows,
        mb(data.input.len()),
        data.schema.fields().len()
    );
    print_first_record(&data.input);
    let compiled = compile(&data.schema).unwrap_or_else(|e| {
        eprintln!("{}: the schema does not compile: {e}", data.name);
        std::process::exit(1);
    });
    // `NDJSON_ONLY=writer`: the writers alone, for profiling them.
    let writer_only = std::env::var("NDJSON_ONLY").is_ok_and(|only| only == "writer");
    let equal = writer_only || {
        let contenders = contenders(&data.schema, &compiled);
        let stats = run_rounds(&contenders, &data.input, rounds);
        print_table(data, &contenders, &stats);
        print_compile(&compiled, &contenders, &stats, data.input.len());
        let equal = stats.iter().all(|s| s.equal);
        println!("all results equal: {}", if equal { "yes" } else { "no" });
        equal
    };
    let batches = arrow_json_decode(&data.schema, &data.input).unwrap_or_else(|e| {
        eprintln!("{}: arrow-json failed: {e}", data.name);
        std::process::exit(1);
    });
    if std::env::var_os("NDJSON_SKIP_WRITERS").is_some() {
        return equal;
    }
    let written = bench_writer(data, &compiled, &batches, rounds);
    equal && written
}

// ---------------------------------------------------------------------------
// The writer: the decoded batches back out as NDJSON.

type WriteFn<'a> = Box<dyn Fn(&[&RecordBatch], &mut Vec<u8>) -> Result<(), ArrowError> + 'a>;

/// arrow-json's `LineDelimitedWriter`, jitson's on one thread and on every core
/// (compiled row loop), and jitson's interpreter on one thread.
fn writers<'a>() -> Vec<(String, WriteFn<'a>)> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    vec![
        (
            "arrow-json writer".into(),
            Box::new(|batches: &[&RecordBatch], out: &mut Vec<u8>| {
                let mut w = arrow_json::LineDelimitedWriter::new(out);
                w.write_batches(batches)?;
                w.finish()
            }),
        ),
        (
            "jitson-arrow writer, 1 thread".into(),
            Box::new(|batches: &[&RecordBatch], out: &mut Vec<u8>| {
                let mut w = jitson_arrow::writer::LineDelimitedWriter::new(out);
                w.write_batches(batches)?;
                w.finish()
            }),
        ),
        (
            format!("jitson-arrow writer, {threads} threads"),
            Box::new(|batches: &[&RecordBatch], out: &mut Vec<u8>| {
                let mut w = jitson_arrow::writer::LineDelimitedWriter::new(out);
                w.write_batches_parallel(batches)?;
                w.finish()
            }),
        ),
        (
            "jitson-arrow writer, interpreter, 1 thread".into(),
            Box::new(|batches: &[&RecordBatch], out: &mut Vec<u8>| {
                let mut w = jitson_arrow::writer::WriterBuilder::new()
                    .with_backend(jitson_arrow::Backend::Interpreter)
                    .build::<_, jitson_arrow::writer::LineDelimited>(out);
                w.write_batches(batches)?;
                w.finish()
            }),
        ),
    ]
}

/// Writes `batches` with each writer, interleaved for `rounds` rounds, into a
/// sink allocated beforehand (so "peak MB" is the writer's own memory, beyond
/// the output); checks every writer's bytes against arrow-json's and reads
/// jitson's output back. Whether all of it held.
fn bench_writer(
    data: &DataSet,
    compiled: &Compiled,
    batches: &[RecordBatch],
    rounds: usize,
) -> bool {
    // Small data sets are written several times over per round (at least
    // 32 MB of output), so each timing is long enough to mean something.
    let once: usize = {
        let mut out = Vec::new();
        let mut w = arrow_json::LineDelimitedWriter::new(&mut out);
        w.write_batches(&batches.iter().collect::<Vec<_>>())
            .expect("arrow-json writes");
        out.len()
    };
    let repeat = (32_000_000 / once.max(1)).max(1);
    let refs: Vec<&RecordBatch> = (0..repeat).flat_map(|_| batches.iter()).collect();
    let rows = data.rows * repeat;
    let writers = writers();
    let mut expected = Vec::new();
    (writers[0].1)(&refs, &mut expected).unwrap_or_else(|e| {
        eprintln!("arrow-json's writer failed: {e}");
        std::process::exit(1);
    });
    let mut sink: Vec<u8> = Vec::with_capacity(expected.len());
    // One untimed write each first: a schema's first write compiles its row
    // loop (Cranelift's memory, freed when it is done, would count as the
    // writer's peak), and the rounds measure writers already warm.
    for (_, write) in &writers {
        sink.clear();
        let _ = write(&refs[..batches.len().min(refs.len())], &mut sink);
    }
    let mut secs: Vec<Vec<f64>> = vec![Vec::new(); writers.len()];
    let mut peaks = vec![0usize; writers.len()];
    let mut identical = vec![true; writers.len()];
    for _ in 0..rounds {
        for (i, (name, write)) in writers.iter().enumerate() {
            // `NDJSON_WRITER=<text>`: time only the writers whose name
            // contains it (and arrow-json, the reference, unless
            // `NDJSON_ALONE=1`), to profile one.
            let reference = i == 0 && !alone();
            if !reference && std::env::var("NDJSON_WRITER").is_ok_and(|only| !name.contains(&only))
            {
                continue;
            }
            sink.clear();
            let base = reset_peak();
            let start = Instant::now();
            if let Err(e) = write(&refs, &mut sink) {
                eprintln!("{name} failed: {e}");
                std::process::exit(1);
            }
            secs[i].push(start.elapsed().as_secs_f64());
            peaks[i] = peaks[i].max(PEAK.load(Relaxed).saturating_sub(base));
            if sink != expected {
                let at = sink
                    .iter()
                    .zip(&expected)
                    .take_while(|(a, b)| a == b)
                    .count();
                println!("MISMATCH: {name}: bytes differ from arrow-json's at byte {at}");
                identical[i] = false;
            }
        }
    }
    // jitson's bytes read back with jitson's reader: the same rows.
    sink.clear();
    (writers[1].1)(&refs, &mut sink).expect("written above");
    let schema = match &compiled.jit {
        Ok(jit) => jit,
        Err(_) => &compiled.interpreter,
    };
    let read_back = match schema.decode_parallel(&sink, chunk_bytes(sink.len())) {
        Ok(back) => same_rows(&refs.iter().map(|&b| b.clone()).collect::<Vec<_>>(), &back),
        Err(e) => Err(format!("reading jitson's output failed: {e}")),
    };
    if let Err(why) = &read_back {
        println!("MISMATCH: jitson's output read back: {why}");
    }

    println!();
    println!(
        "### {}: writing the {} rows back as NDJSON{} ({:.1} MB out)",
        data.name,
        data.rows,
        if repeat > 1 {
            format!(", {repeat} times over")
        } else {
            String::new()
        },
        mb(expected.len())
    );
    let header = [
        "writer",
        "MB/s",
        "rows/s",
        "vs arrow-json",
        "peak MB",
        "out MB",
        "identical",
    ];
    print_row(&header.map(String::from));
    let rule: String = WIDTHS
        .iter()
        .map(|w| format!("|{}", "-".repeat(w + 2)))
        .collect();
    println!("{rule}|");
    let median = |v: &Vec<f64>| {
        Stats {
            secs: v.clone(),
            ..Stats::default()
        }
        .median_secs()
    };
    let base = median(&secs[0]);
    for (i, (name, _)) in writers.iter().enumerate() {
        if secs[i].is_empty() {
            continue; // left out by `NDJSON_WRITER`
        }
        let t = median(&secs[i]);
        print_row(&[
            name.clone(),
            format!("{:.1}", mb(expected.len()) / t),
            rate(rows as f64 / t),
            format!("{:.2}x", base / t),
            format!("{:.1}", mb(peaks[i])),
            format!("{:.1}", mb(expected.len())),
            if identical[i] { "yes" } else { "NO" }.to_string(),
        ]);
    }
    println!(
        "MB/s counts output bytes; peak MB is the heap beyond the preallocated sink \
         (each writer warmed up by one untimed write first); read back with jitson-arrow: {}",
        if read_back.is_ok() {
            "equal"
        } else {
            "DIFFERENT"
        }
    );
    identical.iter().all(|&b| b) && read_back.is_ok()
}

// ---------------------------------------------------------------------------
// The machine and the build.

/// `(feature, compiled in, detected at run time)`.
#[cfg(target_arch = "x86_64")]
fn cpu_features() -> Vec<(&'static str, bool, bool)> {
    macro_rules! features {
        ($($f:tt),*) => {
            vec![$(($f, cfg!(target_feature = $f), std::is_x86_feature_detected!($f))),*]
        };
    }
    features!(
        "sse4.2", "popcnt", "avx", "avx2", "bmi1", "bmi2", "fma", "lzcnt", "avx512f"
    )
}

#[cfg(not(target_arch = "x86_64"))]
fn cpu_features() -> Vec<(&'static str, bool, bool)> {
    let neon = cfg!(target_feature = "neon");
    vec![("neon", neon, neon)]
}

fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("model name"))?;
    Some(line.split_once(':')?.1.trim().to_string())
}

fn print_environment() {
    let features = cpu_features();
    let list = |pick: fn(&(&str, bool, bool)) -> bool| {
        let names: Vec<&str> = features.iter().filter(|f| pick(f)).map(|f| f.0).collect();
        if names.is_empty() {
            "(baseline only)".to_string()
        } else {
            names.join(" ")
        }
    };
    let native = if !cfg!(target_arch = "x86_64") {
        "cannot tell on this target"
    } else if features.iter().all(|f| f.1 == f.2) && features.iter().any(|f| f.1) {
        "appears to be used"
    } else {
        "appears not to be used"
    };
    println!("# jitson-arrow vs arrow-json: NDJSON into Arrow RecordBatches");
    println!(
        "build: {}; target features compiled in: {}",
        if cfg!(debug_assertions) {
            "debug (timings meaningless)"
        } else {
            "release"
        },
        list(|f| f.1)
    );
    println!("cpu features detected at run time: {}", list(|f| f.2));
    println!(
        "-C target-cpu=native: {} (RUSTFLAGS at build: {:?})",
        native,
        option_env!("RUSTFLAGS").unwrap_or("")
    );
    println!("(the JIT generates code for the running CPU either way)");
    println!("cpu: {}", cpu_model().unwrap_or_else(|| "unknown".into()));
    println!("rayon threads: {}", rayon::current_num_threads());
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (rows, rounds) = if quick { (100_000, 2) } else { (1_000_000, 5) };
    // `NDJSON_ROUNDS=<n>`: more (or fewer) rounds, e.g. for a profile.
    let rounds = std::env::var("NDJSON_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(rounds);
    print_environment();
    println!("rounds: {rounds}; batch size {BATCH}");

    let mut all_equal = true;
    // `NDJSON_DATA=logs`, `=vectors` or `=twitter`: that data set alone, for a profile.
    let data = std::env::var("NDJSON_DATA").unwrap_or_default();
    // The generated data sets: name, schema, generator and rows.
    type Generated = (&'static str, fn() -> SchemaRef, fn(usize) -> Vec<u8>, usize);
    let generated: [Generated; 2] = [
        ("logs", logs_schema, generate_logs, rows),
        // A twentieth of the log rows, each about as long as two log records.
        ("vectors", vectors_schema, generate_vectors, rows / 20),
    ];
    for (name, schema, generate, rows) in generated {
        if data.is_empty() || data == name {
            let set = DataSet {
                name,
                schema: schema(),
                input: generate(rows),
                rows,
            };
            all_equal &= bench(&set, rounds);
        }
    }

    let path = corpus_dir().join("twitter.json");
    match std::fs::read_to_string(&path) {
        Ok(_) if !data.is_empty() && data != "twitter" => {}
        Err(_) => {
            println!();
            println!(
                "## twitter: skipped: corpus not found at {}",
                path.display()
            );
        }
        Ok(text) => {
            let (input, rows) = twitter_ndjson(&text, 10_000_000).unwrap_or_else(|e| {
                eprintln!("{}: {e}", path.display());
                std::process::exit(1);
            });
            if rows == 0 {
                println!();
                println!("## twitter: skipped: no statuses in {}", path.display());
            } else {
                let schema = twitter_schema();
                all_equal &= bench(
                    &DataSet {
                        name: "twitter",
                        schema,
                        input,
                        rows,
                    },
                    rounds,
                );
            }
        }
    }
    println!();
    println!(
        "all results equal: {}",
        if all_equal { "yes" } else { "no" }
    );
    if !all_equal {
        std::process::exit(1);
    }
}
