//! The generated log data set: NDJSON log records built deterministically with a
//! xorshift PRNG, and their Arrow schema. Included with `#[path]` by
//! jitson-arrow's `ndjson` example and by jitson-datafusion's tests and example,
//! so every measurement and test reads the same records.
//!
//! Each record: an RFC 3339 timestamp `ts`, `level`, `service`, a `message` (some
//! with `\"`, `\n`, `\t`, `\u00e9` escapes or raw UTF-8), `latency_ms` (a float,
//! sometimes null or absent), a nested `request` object (method, path, status,
//! bytes, a nullable user agent), `tags` (a list of 0-4 strings) and a nullable
//! `user_id`.

#![allow(dead_code)]

use std::fmt::Write as _;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};

/// xorshift64*: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True `percent` times in 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

const LEVELS: [&str; 20] = [
    "INFO", "INFO", "INFO", "INFO", "INFO", "INFO", "INFO", "INFO", "INFO", "INFO", "INFO", "INFO",
    "INFO", "INFO", "DEBUG", "DEBUG", "DEBUG", "WARN", "WARN", "ERROR",
];
const SERVICES: [&str; 8] = [
    "api-gateway",
    "auth",
    "billing",
    "catalog",
    "checkout",
    "notifications",
    "search",
    "user-profile",
];
const METHODS: [&str; 8] = ["GET", "GET", "GET", "GET", "POST", "POST", "PUT", "DELETE"];
const RESOURCES: [&str; 6] = [
    "users", "orders", "products", "carts", "sessions", "invoices",
];
const STATUSES: [u32; 16] = [
    200, 200, 200, 200, 200, 200, 201, 204, 301, 304, 400, 401, 404, 429, 500, 503,
];
/// JSON text (already escaped).
const USER_AGENTS: [&str; 5] = [
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
    "Mozilla\\/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) Mobile\\/15E148",
    "curl/8.5.0",
    "okhttp/4.12.0",
    "python-requests/2.31.0",
];
const TAGS: [&str; 10] = [
    "prod",
    "canary",
    "eu-west-1",
    "us-east-1",
    "retry",
    "slow",
    "cache",
    "db",
    "auth",
    "beta",
];
/// 2024-01-01T00:00:00Z in milliseconds since the epoch.
const START_MS: i64 = 1_704_067_200_000;

/// The log records, one per line.
pub fn generate_logs(rows: usize) -> Vec<u8> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = String::with_capacity(rows * 400);
    let mut ms = START_MS;
    for _ in 0..rows {
        ms += rng.below(400) as i64;
        push_log_line(&mut out, &mut rng, ms);
    }
    out.into_bytes()
}

fn push_log_line(out: &mut String, rng: &mut Rng, ms: i64) {
    out.push_str(r#"{"ts":""#);
    push_timestamp(out, ms);
    let level = rng.pick(&LEVELS);
    let service = rng.pick(&SERVICES);
    write!(
        out,
        r#"","level":"{level}","service":"{service}","message":""#
    )
    .unwrap();
    push_message(out, rng);
    out.push('"');
    match rng.below(20) {
        0 | 1 => out.push_str(r#","latency_ms":null"#),
        2 | 3 => {} // absent
        4 => write!(out, r#","latency_ms":{}"#, rng.below(100)).unwrap(),
        _ => {
            let micros = rng.below(5_000_000);
            write!(
                out,
                r#","latency_ms":{}.{:03}"#,
                micros / 1000,
                micros % 1000
            )
            .unwrap();
        }
    }
    push_request(out, rng);
    push_tags(out, rng);
    match rng.below(20) {
        0..4 => out.push_str(r#","user_id":null"#),
        4 => {} // absent
        _ => write!(out, r#","user_id":{}"#, rng.below(10_000_000_000)).unwrap(),
    }
    out.push_str("}\n");
}

/// `2024-03-01T12:00:00.123Z`.
fn push_timestamp(out: &mut String, ms: i64) {
    let (y, m, d) = civil_from_days(ms.div_euclid(86_400_000));
    let t = ms.rem_euclid(86_400_000);
    let (h, min, s, milli) = (t / 3_600_000, t / 60_000 % 60, t / 1000 % 60, t % 1000);
    write!(
        out,
        "{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}.{milli:03}Z"
    )
    .unwrap();
}

/// Year, month and day of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// A message's JSON text (inside the quotes); three in eight have escapes.
fn push_message(out: &mut String, rng: &mut Rng) {
    let n = rng.below(100_000);
    let k = rng.below(5) + 1;
    let hex = rng.next() & 0xffff_ffff;
    match rng.below(8) {
        0 => write!(
            out,
            "user {n} logged in from 10.{k}.{}.{}",
            n % 256,
            hex % 256
        ),
        1 => write!(out, "request to /api/v1/orders/{n} completed in {k} ms"),
        2 => write!(out, r#"cache miss for key \"session:{hex:08x}\""#),
        3 => write!(
            out,
            "retrying connection to db-{k} (attempt {k} of 5) after timeout"
        ),
        4 => write!(
            out,
            r"panic: index out of bounds\n  at handler.rs:{n}\n  at main.rs:{k}"
        ),
        5 => write!(
            out,
            r"caf\u00e9 order #{n} shipped to M\u00fcnchen\tpriority {k}"
        ),
        6 => write!(out, "paiement de {n}.{k:02} € accepté, réf {hex:08x}"),
        _ => write!(out, "health check ok ({k} of 5 replicas ready)"),
    }
    .unwrap();
}

fn push_request(out: &mut String, rng: &mut Rng) {
    let method = rng.pick(&METHODS);
    let version = rng.below(2) + 1;
    let resource = rng.pick(&RESOURCES);
    let id = rng.below(1_000_000);
    let status = rng.pick(&STATUSES);
    let bytes = rng.below(2_000_000);
    write!(
        out,
        r#","request":{{"method":"{method}","path":"/api/v{version}/{resource}/{id}"#
    )
    .unwrap();
    if rng.chance(10) {
        write!(out, "?page={}", rng.below(20)).unwrap();
    }
    write!(out, r#"","status":{status},"bytes":{bytes},"user_agent":"#).unwrap();
    if rng.chance(20) {
        out.push_str("null}");
    } else {
        write!(out, r#""{}"}}"#, rng.pick(&USER_AGENTS)).unwrap();
    }
}

fn push_tags(out: &mut String, rng: &mut Rng) {
    out.push_str(r#","tags":["#);
    for i in 0..rng.below(5) {
        if i > 0 {
            out.push(',');
        }
        write!(out, r#""{}""#, rng.pick(&TAGS)).unwrap();
    }
    out.push(']');
}

pub fn field(name: &str, data_type: DataType, nullable: bool) -> Field {
    Field::new(name, data_type, nullable)
}

pub fn logs_schema() -> SchemaRef {
    let request = Fields::from(vec![
        field("method", DataType::Utf8, false),
        field("path", DataType::Utf8, false),
        field("status", DataType::Int32, false),
        field("bytes", DataType::Int64, false),
        field("user_agent", DataType::Utf8, true),
    ]);
    Arc::new(Schema::new(vec![
        field(
            "ts",
            DataType::Timestamp(TimeUnit::Millisecond, None),
            false,
        ),
        field("level", DataType::Utf8, false),
        field("service", DataType::Utf8, false),
        field("message", DataType::Utf8, false),
        field("latency_ms", DataType::Float64, true),
        field("request", DataType::Struct(request), false),
        field("tags", DataType::new_list(DataType::Utf8, true), false),
        field("user_id", DataType::Int64, true),
    ]))
}
