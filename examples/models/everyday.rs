//! Three everyday, string-heavy documents of about a kilobyte or two, the sizes
//! services decode per request (issue 10 measured them first), each with a
//! deterministic generator so no data file is needed:
//!
//! - [`PushEvent`]: a code-hosting webhook's push event (repository, pusher,
//!   commits with their authors and changed paths), about 2 KB;
//! - [`Package`]: an npm `package.json` (scripts, dependency maps, keywords),
//!   about 1.3 KB;
//! - [`FeatureCollection`]: a GeoJSON feature collection of polygons with
//!   properties, about 1.1 KB;
//! - [`GeoJson`]: the same kind of document as serde users model GeoJSON: the
//!   geometry an internally tagged enum (`Point`, `LineString`, `Polygon`), a
//!   position a tuple struct, the id "number or string" (untagged), and the
//!   collection itself a variant of the tagged root.
//!
//! The first three models keep to structs, `Option`, `Vec`, maps and `rename`
//! (as they were first written, for comparable figures across sessions); the
//! fourth is the enum-heavy one.
//! Include with `#[path = "models/everyday.rs"] mod everyday;` next to `seed`.
#![allow(dead_code)]

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::seed::Rng;

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Person {
    pub name: String,
    pub email: String,
    pub username: Option<String>,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Account {
    pub login: String,
    pub id: u64,
    pub avatar_url: String,
    pub html_url: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub site_admin: bool,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Repository {
    pub id: u64,
    pub name: String,
    pub full_name: String,
    pub private: bool,
    pub owner: Account,
    pub html_url: String,
    pub description: Option<String>,
    pub fork: bool,
    pub created_at: u64,
    pub pushed_at: u64,
    pub default_branch: String,
    pub stargazers_count: u32,
    pub language: Option<String>,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Commit {
    pub id: String,
    pub tree_id: String,
    pub distinct: bool,
    pub message: String,
    pub timestamp: String,
    pub url: String,
    pub author: Person,
    pub committer: Person,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub modified: Vec<String>,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct PushEvent {
    #[serde(rename = "ref")]
    pub git_ref: String,
    pub before: String,
    pub after: String,
    pub repository: Repository,
    pub pusher: Person,
    pub sender: Account,
    pub created: bool,
    pub deleted: bool,
    pub forced: bool,
    pub base_ref: Option<String>,
    pub compare: String,
    pub commits: Vec<Commit>,
    pub head_commit: Option<Commit>,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RepositoryLink {
    #[serde(rename = "type")]
    pub kind: String,
    pub url: String,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Bugs {
    pub url: String,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Package {
    pub name: String,
    pub version: String,
    pub description: String,
    pub main: String,
    pub scripts: BTreeMap<String, String>,
    pub repository: RepositoryLink,
    pub keywords: Vec<String>,
    pub author: String,
    pub license: String,
    pub bugs: Bugs,
    pub homepage: String,
    pub dependencies: BTreeMap<String, String>,
    pub dev_dependencies: BTreeMap<String, String>,
    pub engines: BTreeMap<String, String>,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Geometry {
    #[serde(rename = "type")]
    pub kind: String,
    pub coordinates: Vec<Vec<[f64; 2]>>,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Properties {
    pub name: String,
    pub admin_level: u8,
    pub population: Option<u64>,
    pub wikidata: String,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Feature {
    #[serde(rename = "type")]
    pub kind: String,
    pub id: String,
    pub properties: Properties,
    pub geometry: Geometry,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct FeatureCollection {
    #[serde(rename = "type")]
    pub kind: String,
    pub features: Vec<Feature>,
}

/// [`PushEvent`] as a model that borrows its strings from the input (`Cow`:
/// borrowed when the text has no escapes), the way serde users avoid copying.
#[derive(jitson::Decode, jitson::Encode, Deserialize, Debug, PartialEq)]
pub struct PushEventRef<'a> {
    #[serde(rename = "ref", borrow)]
    pub git_ref: Cow<'a, str>,
    #[serde(borrow)]
    pub before: Cow<'a, str>,
    #[serde(borrow)]
    pub after: Cow<'a, str>,
    #[serde(borrow)]
    pub repository: RepositoryRef<'a>,
    #[serde(borrow)]
    pub pusher: PersonRef<'a>,
    #[serde(borrow)]
    pub sender: AccountRef<'a>,
    pub created: bool,
    pub deleted: bool,
    pub forced: bool,
    #[serde(borrow)]
    pub base_ref: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub compare: Cow<'a, str>,
    #[serde(borrow)]
    pub commits: Vec<CommitRef<'a>>,
    #[serde(borrow)]
    pub head_commit: Option<CommitRef<'a>>,
}

#[derive(jitson::Decode, jitson::Encode, Deserialize, Debug, PartialEq)]
pub struct PersonRef<'a> {
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    #[serde(borrow)]
    pub email: Cow<'a, str>,
    #[serde(borrow)]
    pub username: Option<Cow<'a, str>>,
}

#[derive(jitson::Decode, jitson::Encode, Deserialize, Debug, PartialEq)]
pub struct AccountRef<'a> {
    #[serde(borrow)]
    pub login: Cow<'a, str>,
    pub id: u64,
    #[serde(borrow)]
    pub avatar_url: Cow<'a, str>,
    #[serde(borrow)]
    pub html_url: Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    pub site_admin: bool,
}

#[derive(jitson::Decode, jitson::Encode, Deserialize, Debug, PartialEq)]
pub struct RepositoryRef<'a> {
    pub id: u64,
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    #[serde(borrow)]
    pub full_name: Cow<'a, str>,
    pub private: bool,
    #[serde(borrow)]
    pub owner: AccountRef<'a>,
    #[serde(borrow)]
    pub html_url: Cow<'a, str>,
    #[serde(borrow)]
    pub description: Option<Cow<'a, str>>,
    pub fork: bool,
    pub created_at: u64,
    pub pushed_at: u64,
    #[serde(borrow)]
    pub default_branch: Cow<'a, str>,
    pub stargazers_count: u32,
    #[serde(borrow)]
    pub language: Option<Cow<'a, str>>,
}

#[derive(jitson::Decode, jitson::Encode, Deserialize, Debug, PartialEq)]
pub struct CommitRef<'a> {
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    #[serde(borrow)]
    pub tree_id: Cow<'a, str>,
    pub distinct: bool,
    #[serde(borrow)]
    pub message: Cow<'a, str>,
    #[serde(borrow)]
    pub timestamp: Cow<'a, str>,
    #[serde(borrow)]
    pub url: Cow<'a, str>,
    #[serde(borrow)]
    pub author: PersonRef<'a>,
    #[serde(borrow)]
    pub committer: PersonRef<'a>,
    #[serde(borrow)]
    pub added: Vec<Cow<'a, str>>,
    #[serde(borrow)]
    pub removed: Vec<Cow<'a, str>>,
    #[serde(borrow)]
    pub modified: Vec<Cow<'a, str>>,
}

/// A longitude/latitude pair, as GeoJSON writes it: `[lng, lat]`.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Position(pub f64, pub f64);

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
pub enum TaggedGeometry {
    Point { coordinates: Position },
    LineString { coordinates: Vec<Position> },
    Polygon { coordinates: Vec<Vec<Position>> },
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum FeatureId {
    Number(u64),
    Text(String),
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct TaggedFeature {
    pub id: FeatureId,
    pub properties: Properties,
    pub geometry: TaggedGeometry,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
pub enum GeoJson {
    Feature(TaggedFeature),
    FeatureCollection { features: Vec<TaggedFeature> },
}

fn hex(rng: &mut Rng, len: usize) -> String {
    (0..len)
        .map(|_| char::from(b"0123456789abcdef"[rng.below(16) as usize]))
        .collect()
}

fn person(rng: &mut Rng) -> Person {
    let name = format!("{} {}", capitalised(rng), capitalised(rng));
    let user = rng.word(4, 9);
    Person {
        email: format!("{user}@example.org"),
        username: (rng.below(4) != 0).then_some(user),
        name,
    }
}

fn capitalised(rng: &mut Rng) -> String {
    let mut w = rng.word(3, 8);
    w[..1].make_ascii_uppercase();
    w
}

fn account(rng: &mut Rng) -> Account {
    let login = rng.word(4, 10);
    let id = rng.below(90_000_000) + 1_000;
    Account {
        avatar_url: format!("https://avatars.example.org/u/{id}?v=4"),
        html_url: format!("https://code.example.org/{login}"),
        login,
        id,
        kind: "User".into(),
        site_admin: false,
    }
}

fn path(rng: &mut Rng) -> String {
    let dirs = ["src", "docs", "tests", "src/kind", "benches"];
    format!(
        "{}/{}.{}",
        rng.pick(&dirs),
        rng.word(3, 10),
        rng.pick(&["rs", "md", "toml"])
    )
}

fn commit(rng: &mut Rng, repo: &str) -> Commit {
    let id = hex(rng, 40);
    let author = person(rng);
    let paths = |rng: &mut Rng, n: u64| (0..rng.below(n)).map(|_| path(rng)).collect();
    Commit {
        tree_id: hex(rng, 40),
        distinct: true,
        message: format!(
            "{} {} {}\n\nSee #{}: \"{}\"",
            rng.pick(&["Fix", "Add", "Remove", "Document"]),
            rng.word(4, 10),
            rng.word(3, 9),
            rng.below(5_000),
            rng.word(5, 12)
        ),
        timestamp: format!(
            "2026-11-{:02}T{:02}:14:03+01:00",
            1 + rng.below(28),
            rng.below(24)
        ),
        url: format!("https://code.example.org/{repo}/commit/{id}"),
        committer: author.clone(),
        author,
        added: paths(rng, 3),
        removed: paths(rng, 2),
        modified: paths(rng, 4),
        id,
    }
}

impl PushEvent {
    /// A push of one or two commits to a repository.
    pub fn generate(rng: &mut Rng, _i: u64) -> PushEvent {
        let owner = account(rng);
        let name = rng.word(4, 12);
        let full_name = format!("{}/{name}", owner.login);
        let commits: Vec<Commit> = (0..1 + rng.below(2))
            .map(|_| commit(rng, &full_name))
            .collect();
        let (before, after) = (hex(rng, 40), commits.last().unwrap().id.clone());
        PushEvent {
            git_ref: format!("refs/heads/{}", rng.pick(&["main", "dev", "release-1.4"])),
            compare: format!(
                "https://code.example.org/{full_name}/compare/{}...{}",
                &before[..12],
                &after[..12]
            ),
            before,
            after,
            repository: Repository {
                id: rng.below(900_000_000),
                html_url: format!("https://code.example.org/{full_name}"),
                description: (rng.below(3) != 0)
                    .then(|| format!("A {} for {}", rng.word(4, 9), rng.word(4, 9))),
                name,
                full_name,
                private: rng.below(2) == 0,
                owner: owner.clone(),
                fork: false,
                created_at: 1_600_000_000 + rng.below(100_000_000),
                pushed_at: 1_760_000_000 + rng.below(10_000_000),
                default_branch: "main".into(),
                stargazers_count: rng.below(5_000) as u32,
                language: (rng.below(4) != 0)
                    .then(|| rng.pick(&["Rust", "Go", "TypeScript"]).into()),
            },
            pusher: person(rng),
            sender: owner,
            created: false,
            deleted: false,
            forced: rng.below(10) == 0,
            base_ref: None,
            head_commit: commits.last().cloned(),
            commits,
        }
    }
}

impl Package {
    /// A library's manifest with a dozen dependencies.
    pub fn generate(rng: &mut Rng, _i: u64) -> Package {
        let name = format!("@{}/{}", rng.word(3, 8), rng.word(4, 12));
        let deps = |rng: &mut Rng, at_least: u64| {
            let n = at_least + rng.below(4);
            (0..n)
                .map(|_| {
                    let version = format!("^{}.{}.{}", rng.below(20), rng.below(30), rng.below(10));
                    (rng.word(3, 14), version)
                })
                .collect()
        };
        let scripts = ["build", "test", "lint", "prepublishOnly", "start"]
            .iter()
            .map(|s| {
                (
                    s.to_string(),
                    format!(
                        "{} {} --{}",
                        rng.pick(&["tsc", "node", "eslint", "vitest"]),
                        rng.word(3, 8),
                        rng.word(3, 8)
                    ),
                )
            })
            .collect();
        Package {
            version: format!("{}.{}.{}", rng.below(5), rng.below(40), rng.below(20)),
            description: format!(
                "{} {} for {} {}",
                capitalised(rng),
                rng.word(4, 10),
                rng.word(4, 10),
                rng.word(4, 10)
            ),
            main: "dist/index.js".into(),
            scripts,
            repository: RepositoryLink {
                kind: "git".into(),
                url: format!("git+https://code.example.org/{}.git", &name[1..]),
            },
            keywords: (0..3 + rng.below(5)).map(|_| rng.word(3, 10)).collect(),
            author: format!("{} <{}@example.org>", capitalised(rng), rng.word(4, 8)),
            license: rng.pick(&["MIT", "Apache-2.0", "ISC"]).into(),
            bugs: Bugs {
                url: format!("https://code.example.org/{}/issues", &name[1..]),
            },
            homepage: format!("https://code.example.org/{}#readme", &name[1..]),
            dependencies: deps(rng, 6),
            dev_dependencies: deps(rng, 5),
            engines: [("node".to_string(), ">=18".to_string())].into(),
            name,
        }
    }
}

impl FeatureCollection {
    /// Two or three administrative areas as small polygons.
    pub fn generate(rng: &mut Rng, _i: u64) -> FeatureCollection {
        let feature = |rng: &mut Rng| {
            let (x, y) = (rng.money(180) - 90.0, rng.money(90) - 45.0);
            let ring: Vec<[f64; 2]> = (0..5 + rng.below(4))
                .map(|_| [x + rng.money(2), y + rng.money(2)])
                .collect();
            Feature {
                kind: "Feature".into(),
                id: format!("relation/{}", rng.below(10_000_000)),
                properties: Properties {
                    name: capitalised(rng),
                    admin_level: 4 + rng.below(6) as u8,
                    population: (rng.below(3) != 0).then(|| rng.below(5_000_000)),
                    wikidata: format!("Q{}", rng.below(100_000_000)),
                },
                geometry: Geometry {
                    kind: "Polygon".into(),
                    coordinates: vec![ring],
                },
            }
        };
        FeatureCollection {
            kind: "FeatureCollection".into(),
            features: (0..2 + rng.below(2)).map(|_| feature(rng)).collect(),
        }
    }
}

impl GeoJson {
    /// A collection of two to four features, each a point, a line or a polygon.
    pub fn generate(rng: &mut Rng, _i: u64) -> GeoJson {
        let feature = |rng: &mut Rng| {
            let (x, y) = (rng.money(180) - 90.0, rng.money(90) - 45.0);
            let path = |rng: &mut Rng, n: u64| -> Vec<Position> {
                (0..n)
                    .map(|_| Position(x + rng.money(2), y + rng.money(2)))
                    .collect()
            };
            let geometry = match rng.below(3) {
                0 => TaggedGeometry::Point {
                    coordinates: Position(x, y),
                },
                1 => {
                    let n = 3 + rng.below(4);
                    TaggedGeometry::LineString {
                        coordinates: path(rng, n),
                    }
                }
                _ => {
                    let n = 5 + rng.below(4);
                    TaggedGeometry::Polygon {
                        coordinates: vec![path(rng, n)],
                    }
                }
            };
            TaggedFeature {
                id: if rng.below(2) == 0 {
                    FeatureId::Number(rng.below(10_000_000))
                } else {
                    FeatureId::Text(format!("relation/{}", rng.below(10_000_000)))
                },
                properties: Properties {
                    name: capitalised(rng),
                    admin_level: 4 + rng.below(6) as u8,
                    population: (rng.below(3) != 0).then(|| rng.below(5_000_000)),
                    wikidata: format!("Q{}", rng.below(100_000_000)),
                },
                geometry,
            }
        };
        GeoJson::FeatureCollection {
            features: (0..2 + rng.below(3)).map(|_| feature(rng)).collect(),
        }
    }
}

/// A payments provider's webhook event, modelled the way serde users write
/// one (issue 22's "webhook model"): camelCase keys, the event's body an
/// internally tagged enum, an amount that is a number or a decimal string
/// (untagged), a set of labels, a 128-bit idempotency key, and a flattened
/// catch-all for the members the provider adds later. Needs jitson's `serde`
/// feature (on by default): the catch-all holds `serde_json::Value`s.
#[cfg(feature = "serde")]
#[derive(jitson::Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    pub id: String,
    pub api_version: String,
    pub created_at: u64,
    pub livemode: bool,
    pub idempotency_key: u128,
    pub labels: std::collections::HashSet<String>,
    pub data: WebhookEvent,
    #[serde(flatten)]
    pub extra: std::collections::HashMap<String, serde_json::Value>,
}

#[cfg(feature = "serde")]
#[derive(jitson::Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WebhookEvent {
    PaymentSucceeded { payment: Payment },
    PaymentFailed { payment: Payment, reason: String },
    RefundCreated(Refund),
    Ping,
}

#[cfg(feature = "serde")]
#[derive(jitson::Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Payment {
    pub id: String,
    pub amount: Amount,
    pub currency: String,
    pub customer: Option<String>,
    pub description: Option<String>,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
}

#[cfg(feature = "serde")]
#[derive(jitson::Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Refund {
    pub id: String,
    pub payment_id: String,
    pub amount: Amount,
    pub reason: Option<String>,
}

/// Minor units as a number, or a decimal string for currencies without them.
#[cfg(feature = "serde")]
#[derive(jitson::Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum Amount {
    Minor(u64),
    Decimal(String),
}

#[cfg(feature = "serde")]
impl Webhook {
    /// One event: a payment (succeeded or failed) or a refund, now and then a
    /// ping, with one to three extra members for the catch-all.
    pub fn generate(rng: &mut Rng, _i: u64) -> Webhook {
        let id = |rng: &mut Rng, prefix: &str| format!("{prefix}_{}", rng.word(14, 14));
        let amount = |rng: &mut Rng| {
            if rng.below(4) == 0 {
                Amount::Decimal(format!("{}.{:03}", rng.below(100_000), rng.below(1000)))
            } else {
                Amount::Minor(rng.below(1_000_000))
            }
        };
        let payment = |rng: &mut Rng| Payment {
            id: id(rng, "pay"),
            amount: amount(rng),
            currency: rng.pick(&["usd", "eur", "gbp", "jpy", "kwd"]).to_owned(),
            customer: (rng.below(3) != 0).then(|| id(rng, "cus")),
            description: (rng.below(2) == 0).then(|| format!("Order {}", rng.below(1_000_000))),
            metadata: (0..rng.below(3))
                .map(|_| (rng.word(3, 8), rng.word(4, 12)))
                .collect(),
        };
        let data = match rng.below(8) {
            0..=3 => WebhookEvent::PaymentSucceeded {
                payment: payment(rng),
            },
            4 | 5 => WebhookEvent::PaymentFailed {
                payment: payment(rng),
                reason: rng
                    .pick(&["card_declined", "expired_card", "insufficient_funds"])
                    .to_owned(),
            },
            6 => WebhookEvent::RefundCreated(Refund {
                id: id(rng, "re"),
                payment_id: id(rng, "pay"),
                amount: amount(rng),
                reason: (rng.below(2) == 0).then(|| "requested_by_customer".to_owned()),
            }),
            _ => WebhookEvent::Ping,
        };
        let mut extra = std::collections::HashMap::new();
        for _ in 0..1 + rng.below(3) {
            let value = match rng.below(3) {
                0 => serde_json::Value::from(rng.word(5, 12)),
                1 => serde_json::Value::from(rng.below(100_000)),
                _ => serde_json::json!({ "attempt": rng.below(5), "next": null }),
            };
            extra.insert(format!("x{}", rng.word(4, 9)), value);
        }
        Webhook {
            id: id(rng, "evt"),
            api_version: "2026-11-01".to_owned(),
            created_at: 1_790_000_000 + rng.below(10_000_000),
            livemode: rng.below(2) == 0,
            idempotency_key: u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64()),
            labels: (0..rng.below(4)).map(|_| rng.word(3, 7)).collect(),
            data,
            extra,
        }
    }
}

/// A job scheduler's state as a service keeps it: the std types serde writes
/// as structs (`SystemTime`, `Duration`, the ranges) and as tagged enums
/// (`Result`, `Bound`), about 3 KB for twenty jobs.
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Schedule {
    pub host: String,
    pub taken: std::time::SystemTime,
    pub jobs: Vec<Job>,
}

/// One job of a [`Schedule`].
#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Job {
    pub name: String,
    pub created: std::time::SystemTime,
    pub window: std::ops::Range<u32>,
    pub retries: std::ops::RangeInclusive<u8>,
    pub timeout: std::time::Duration,
    pub last: Result<u64, String>,
    pub floor: std::ops::Bound<i64>,
}

impl Schedule {
    /// Twenty jobs, a third of them failed last time.
    pub fn generate(rng: &mut Rng, _i: u64) -> Schedule {
        let at = |rng: &mut Rng| {
            std::time::UNIX_EPOCH
                + std::time::Duration::new(
                    1_700_000_000 + rng.below(100_000_000),
                    rng.below(1_000_000_000) as u32,
                )
        };
        let jobs = (0..20)
            .map(|_| {
                let start = rng.below(80_000) as u32;
                Job {
                    name: format!("{}-{}", rng.word(4, 10), rng.word(3, 8)),
                    created: at(rng),
                    window: start..start + 1 + rng.below(6_000) as u32,
                    retries: 0..=rng.below(10) as u8,
                    timeout: std::time::Duration::new(
                        rng.below(600),
                        rng.below(1_000_000_000) as u32,
                    ),
                    last: match rng.below(3) {
                        0 => Err(format!("{} {}", capitalised(rng), rng.word(4, 12))),
                        _ => Ok(rng.below(10_000_000)),
                    },
                    floor: match rng.below(3) {
                        0 => std::ops::Bound::Unbounded,
                        1 => std::ops::Bound::Included(rng.below(1_000) as i64 - 500),
                        _ => std::ops::Bound::Excluded(rng.below(1_000) as i64),
                    },
                }
            })
            .collect();
        Schedule {
            host: format!("{}.{}.internal", rng.word(4, 9), rng.word(3, 6)),
            taken: at(rng),
            jobs,
        }
    }
}
