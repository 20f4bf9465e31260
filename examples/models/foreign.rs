//! Models of other crates' types (issue 38), one a crate, each with a
//! deterministic generator: what an API's objects hold besides strings and
//! numbers. The comparison example decodes and encodes each against
//! serde_json with the crate's own serde impl, and jitson with its feature
//! (`chrono`, ...), switched on for the examples by the dev-dependencies.
#![allow(dead_code)]

use chrono::{DateTime, FixedOffset, NaiveDate, TimeZone, Utc};
use indexmap::IndexMap;
use ordered_float::OrderedFloat;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
use url::Url;
use uuid::Uuid;

use super::seed::Rng;

/// chrono: RFC 3339 timestamps in UTC and at offsets, with and without
/// fractions, and a date.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Chrono {
    pub id: u64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub closed_at: Option<DateTime<Utc>>,
    pub local_time: DateTime<FixedOffset>,
    pub due_on: NaiveDate,
    pub history: Vec<DateTime<Utc>>,
}

fn instant(rng: &mut Rng) -> DateTime<Utc> {
    // 2015 to 2030, with a millisecond fraction half of the time (as APIs
    // write them) and whole seconds otherwise.
    let secs = 1_420_070_400 + rng.below(473_040_000) as i64;
    let nanos = if rng.below(2) == 0 {
        0
    } else {
        rng.below(1000) as u32 * 1_000_000
    };
    DateTime::from_timestamp(secs, nanos).expect("in range")
}

impl Chrono {
    pub fn generate(rng: &mut Rng, id: u64) -> Chrono {
        let created_at = instant(rng);
        let offset = FixedOffset::east_opt((rng.below(53) as i32 - 24) * 1800).expect("in range");
        Chrono {
            id,
            created_at,
            updated_at: instant(rng),
            closed_at: (rng.below(3) == 0).then(|| instant(rng)),
            local_time: offset.from_utc_datetime(&instant(rng).naive_utc()),
            due_on: NaiveDate::from_ymd_opt(
                2020 + rng.below(10) as i32,
                1 + rng.below(12) as u32,
                1 + rng.below(28) as u32,
            )
            .expect("a valid date"),
            history: (0..rng.below(8)).map(|_| instant(rng)).collect(),
        }
    }
}

/// uuid: ids of an event-sourced record, hyphenated lowercase as uuid writes
/// them.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Uuids {
    pub id: Uuid,
    pub tenant: Uuid,
    pub parent: Option<Uuid>,
    pub seq: u64,
    pub causes: Vec<Uuid>,
}

fn uuid(rng: &mut Rng) -> Uuid {
    let bytes = (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64());
    // Version 4, RFC 4122 variant, as generated ids are.
    uuid::Builder::from_random_bytes(bytes.to_le_bytes()).into_uuid()
}

impl Uuids {
    pub fn generate(rng: &mut Rng, seq: u64) -> Uuids {
        Uuids {
            id: uuid(rng),
            tenant: uuid(rng),
            parent: (rng.below(2) == 0).then(|| uuid(rng)),
            seq,
            causes: (0..rng.below(5)).map(|_| uuid(rng)).collect(),
        }
    }
}

/// url: the links of an API object (a code host's repository: `html_url`,
/// `*_url` fields), parsed by `Url::parse` on both sides.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Urls {
    pub id: u64,
    pub url: Url,
    pub html_url: Url,
    pub avatar_url: Option<Url>,
    pub homepage: Option<Url>,
}

impl Urls {
    pub fn generate(rng: &mut Rng, id: u64) -> Urls {
        let owner = rng.word(3, 10);
        let repo = rng.word(3, 14);
        let url = |s: String| Url::parse(&s).expect("a valid URL");
        Urls {
            id,
            url: url(format!("https://api.example.com/repos/{owner}/{repo}")),
            html_url: url(format!("https://example.com/{owner}/{repo}")),
            avatar_url: (rng.below(4) != 0).then(|| {
                url(format!(
                    "https://avatars.example.com/u/{}?v=4",
                    rng.below(10_000_000)
                ))
            }),
            homepage: (rng.below(3) == 0).then(|| url(format!("https://{repo}.example.org/"))),
        }
    }
}

/// indexmap, smallvec, ordered-float and bytes together: a metrics record
/// whose labels keep their order, a few inline counts, ordered scores and a
/// byte payload (an array of numbers, as serde writes bytes to JSON).
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Collections {
    pub name: String,
    pub labels: IndexMap<String, String>,
    pub buckets: SmallVec<[u32; 8]>,
    pub scores: Vec<OrderedFloat<f64>>,
    pub digest: bytes::Bytes,
}

impl Collections {
    pub fn generate(rng: &mut Rng, _id: u64) -> Collections {
        Collections {
            name: rng.word(4, 12),
            labels: (0..1 + rng.below(6))
                .map(|i| (format!("{}{i}", rng.word(2, 8)), rng.word(2, 10)))
                .collect(),
            buckets: (0..rng.below(9))
                .map(|_| rng.below(100_000) as u32)
                .collect(),
            scores: (0..rng.below(6))
                .map(|_| OrderedFloat(rng.money(1_000)))
                .collect(),
            digest: (0..16)
                .map(|_| rng.below(256) as u8)
                .collect::<Vec<u8>>()
                .into(),
        }
    }
}

/// time and rust_decimal: an invoice line with time's RFC 3339 `with` module
/// (the form APIs use), a date in time's own text, and money as decimals
/// (rust_decimal's default form: strings). Its `with` fields need jitson's
/// `serde` feature (on by default).
#[cfg(feature = "serde")]
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Invoice {
    pub id: u64,
    #[serde(with = "time::serde::rfc3339")]
    pub issued_at: time::OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub paid_at: Option<time::OffsetDateTime>,
    pub due: time::Date,
    pub unit_price: rust_decimal::Decimal,
    pub quantity: rust_decimal::Decimal,
    pub tax_rate: rust_decimal::Decimal,
    pub total: rust_decimal::Decimal,
}

#[cfg(feature = "serde")]
impl Invoice {
    pub fn generate(rng: &mut Rng, id: u64) -> Invoice {
        let at = |rng: &mut Rng| {
            let secs = 1_420_070_400 + rng.below(473_040_000) as i64;
            time::OffsetDateTime::from_unix_timestamp(secs).expect("in range")
        };
        let unit_price = rust_decimal::Decimal::new(rng.below(1_000_000) as i64, 2);
        let quantity = rust_decimal::Decimal::new(1 + rng.below(50) as i64, 0);
        let tax_rate = rust_decimal::Decimal::new(rng.below(30) as i64, 2);
        let total = (unit_price * quantity * (rust_decimal::Decimal::ONE + tax_rate)).round_dp(2);
        let issued_at = at(rng);
        Invoice {
            id,
            issued_at,
            paid_at: (rng.below(2) == 0).then(|| at(rng)),
            due: issued_at.date(),
            unit_price,
            quantity,
            tax_rate,
            total,
        }
    }
}

/// http through http-serde's `with` modules: a logged HTTP exchange, its
/// request line, status and both header maps (one value per name, or
/// several for `set-cookie`). Needs jitson's `serde` feature (on by default).
#[cfg(feature = "serde")]
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Exchange {
    pub id: u64,
    #[serde(with = "http_serde::method")]
    pub method: http::Method,
    #[serde(with = "http_serde::uri")]
    pub uri: http::Uri,
    #[serde(with = "http_serde::version")]
    pub version: http::Version,
    #[serde(with = "http_serde::status_code")]
    pub status: http::StatusCode,
    #[serde(with = "http_serde::header_map")]
    pub request_headers: http::HeaderMap,
    #[serde(with = "http_serde::header_map")]
    pub response_headers: http::HeaderMap,
}

#[cfg(feature = "serde")]
impl Exchange {
    pub fn generate(rng: &mut Rng, id: u64) -> Exchange {
        use http::header::{HeaderName, HeaderValue};
        const METHODS: [&str; 4] = ["GET", "POST", "PUT", "DELETE"];
        const STATUSES: [u16; 6] = [200, 201, 204, 304, 404, 503];
        let pick = |rng: &mut Rng, n: usize| rng.below(n as u64) as usize;
        let headers = |rng: &mut Rng, pairs: &[(&'static str, String)]| {
            let mut map = http::HeaderMap::new();
            for (name, value) in pairs {
                map.append(
                    HeaderName::from_static(name),
                    HeaderValue::from_str(value).expect("visible ASCII"),
                );
            }
            for c in 0..pick(rng, 3) {
                let value = format!("s{c}={:x}; Path=/; HttpOnly", rng.below(u64::MAX));
                map.append(
                    http::header::SET_COOKIE,
                    HeaderValue::from_str(&value).expect("visible ASCII"),
                );
            }
            map
        };
        let request_id = format!("{:016x}{:016x}", rng.below(u64::MAX), rng.below(u64::MAX));
        let request_headers = headers(
            rng,
            &[
                ("accept", "application/json".to_owned()),
                ("user-agent", format!("client/{}.{}", id % 7, id % 13)),
                ("x-request-id", request_id),
            ],
        );
        let (max_age, etag) = (rng.below(86_400), rng.below(u64::MAX));
        let response_headers = headers(
            rng,
            &[
                ("content-type", "application/json; charset=utf-8".to_owned()),
                ("cache-control", format!("max-age={max_age}")),
                ("etag", format!("\"{etag:x}\"")),
            ],
        );
        let method = METHODS[pick(rng, METHODS.len())];
        let uri = format!(
            "https://api.example.com/v1/items/{}?page={}",
            rng.below(1_000_000),
            rng.below(50)
        );
        Exchange {
            id,
            method: method.parse().expect("a method"),
            uri: uri.parse().expect("a URI"),
            version: http::Version::HTTP_11,
            status: http::StatusCode::from_u16(STATUSES[pick(rng, STATUSES.len())])
                .expect("a status"),
            request_headers,
            response_headers,
        }
    }
}
