//! The types of the seed articles that motivated jitson, and a deterministic
//! generator of realistic values for them (no data files needed).
//!
//! - [`User`]: `id, name, email, tags, profile {age, city, is_admin}`.
//! - [`Order`]: 30 flat fields of `i64`, `String` and `f64`.
//! - [`Account`]: a user with `roles, is_active, extra_info {ip, device,
//!   login_days}, created_at`.
//!
//! Used by `examples/compare.rs`, the benches and the tests.
#![allow(dead_code)]

use serde::{Deserialize, Serialize};

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Profile {
    pub age: u32,
    pub city: String,
    pub is_admin: bool,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct User {
    pub id: i64,
    pub name: String,
    pub email: String,
    pub tags: Vec<String>,
    pub profile: Profile,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Order {
    pub order_id: i64,
    pub customer_id: i64,
    pub merchant_id: i64,
    pub store_id: i64,
    pub item_count: i64,
    pub created_at: i64,
    pub updated_at: i64,
    pub paid_at: i64,
    pub shipped_at: i64,
    pub status_code: i64,
    pub order_no: String,
    pub customer_name: String,
    pub customer_email: String,
    pub customer_phone: String,
    pub shipping_address: String,
    pub billing_address: String,
    pub city: String,
    pub country: String,
    pub currency: String,
    pub payment_method: String,
    pub subtotal: f64,
    pub discount: f64,
    pub shipping_fee: f64,
    pub tax: f64,
    pub total: f64,
    pub weight_kg: f64,
    pub exchange_rate: f64,
    pub latitude: f64,
    pub longitude: f64,
    pub rating: f64,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ExtraInfo {
    pub ip: String,
    pub device: String,
    pub login_days: i32,
}

#[derive(jitson::Decode, jitson::Encode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Account {
    pub id: i64,
    pub name: String,
    pub email: String,
    pub roles: Vec<String>,
    pub is_active: bool,
    pub extra_info: ExtraInfo,
    pub created_at: String,
}

/// SplitMix64: a small, fast, deterministic generator (Steele, Lea and Flood 2014).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A value with two decimals, like a price.
    pub fn money(&mut self, max: u64) -> f64 {
        self.below(max * 100) as f64 / 100.0
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    pub fn word(&mut self, min: usize, max: usize) -> String {
        let len = min + self.below((max - min + 1) as u64) as usize;
        (0..len)
            .map(|_| (b'a' + self.below(26) as u8) as char)
            .collect()
    }
}

const CITIES: &[&str] = &[
    "Berlin",
    "São Paulo",
    "Tokyo",
    "Lagos",
    "Zürich",
    "New York",
    "Kraków",
    "Montréal",
];
const TAGS: &[&str] = &[
    "rust",
    "json",
    "jit",
    "admin",
    "beta",
    "vip",
    "mobile",
    "early-adopter",
];
const ROLES: &[&str] = &["reader", "writer", "admin", "billing", "support"];
const DEVICES: &[&str] = &[
    "iPhone 15",
    "Pixel 8",
    "ThinkPad X1",
    "MacBook Air",
    "Galaxy Tab",
];

impl User {
    pub fn generate(rng: &mut Rng, i: u64) -> User {
        let name = format!("{} {}", rng.word(3, 8), rng.word(4, 10));
        User {
            id: 1_000_000 + i as i64,
            email: format!("{}@example.com", name.replace(' ', ".")),
            name,
            tags: (0..rng.below(5))
                .map(|_| rng.pick(TAGS).to_owned())
                .collect(),
            profile: Profile {
                age: 18 + rng.below(60) as u32,
                city: rng.pick(CITIES).to_owned(),
                is_admin: rng.below(10) == 0,
            },
        }
    }
}

impl Order {
    pub fn generate(rng: &mut Rng, i: u64) -> Order {
        let t = 1_700_000_000 + rng.below(10_000_000) as i64;
        let subtotal = rng.money(2_000);
        let discount = rng.money(50);
        let shipping_fee = rng.money(30);
        let tax = (subtotal * 0.19 * 100.0).round() / 100.0;
        Order {
            order_id: 9_000_000_000 + i as i64,
            customer_id: rng.below(5_000_000) as i64,
            merchant_id: rng.below(50_000) as i64,
            store_id: rng.below(900) as i64,
            item_count: 1 + rng.below(12) as i64,
            created_at: t,
            updated_at: t + rng.below(86_400) as i64,
            paid_at: t + 60,
            shipped_at: t + 86_400,
            status_code: rng.below(6) as i64,
            order_no: format!("ORD-{:010}-{}", i, rng.word(4, 4).to_uppercase()),
            customer_name: format!("{} {}", rng.word(3, 8), rng.word(4, 10)),
            customer_email: format!("{}@mail.example", rng.word(5, 12)),
            customer_phone: format!(
                "+49 {} {}",
                rng.below(900) + 100,
                rng.below(9_000_000) + 1_000_000
            ),
            shipping_address: format!(
                "{} Street {}, Apt. {}",
                rng.word(5, 10),
                rng.below(300),
                rng.below(40)
            ),
            billing_address: format!("{} Avenue {}", rng.word(5, 10), rng.below(300)),
            city: rng.pick(CITIES).to_owned(),
            country: rng
                .pick(&["DE", "BR", "JP", "NG", "CH", "US", "PL", "CA"])
                .to_owned(),
            currency: rng.pick(&["EUR", "BRL", "JPY", "USD", "CHF"]).to_owned(),
            payment_method: rng
                .pick(&["card", "paypal", "invoice", "bank_transfer"])
                .to_owned(),
            subtotal,
            discount,
            shipping_fee,
            tax,
            total: subtotal - discount + shipping_fee + tax,
            weight_kg: rng.below(50_000) as f64 / 1000.0,
            exchange_rate: 1.0 + rng.below(1_000_000) as f64 / 1e7,
            latitude: rng.below(180_000_000) as f64 / 1e6 - 90.0,
            longitude: rng.below(360_000_000) as f64 / 1e6 - 180.0,
            rating: rng.below(50) as f64 / 10.0,
        }
    }
}

impl Account {
    pub fn generate(rng: &mut Rng, i: u64) -> Account {
        let name = rng.word(4, 12);
        Account {
            id: 42 + i as i64,
            email: format!("{name}@example.org"),
            name,
            roles: (0..1 + rng.below(3))
                .map(|_| rng.pick(ROLES).to_owned())
                .collect(),
            is_active: rng.below(4) != 0,
            extra_info: ExtraInfo {
                ip: format!(
                    "10.{}.{}.{}",
                    rng.below(256),
                    rng.below(256),
                    rng.below(256)
                ),
                device: rng.pick(DEVICES).to_owned(),
                login_days: rng.below(400) as i32,
            },
            created_at: format!(
                "2026-{:02}-{:02}T{:02}:00:00Z",
                1 + rng.below(12),
                1 + rng.below(28),
                rng.below(24)
            ),
        }
    }
}
