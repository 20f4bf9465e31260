//! The structs of the seed articles, as named tests: generated values serialised by
//! serde_json decode to themselves through every backend, singly and as arrays.

mod common;

#[path = "../examples/models/seed.rs"]
mod seed;

use seed::{Account, Order, Rng, User};

fn round_trip<T: jitson::Decode + serde::Serialize + PartialEq + std::fmt::Debug>(
    make: impl Fn(&mut Rng, u64) -> T,
) {
    let mut rng = Rng::new(99);
    // Fewer under Miri (scripts/miri.sh), which runs about a thousand times slower.
    let count = if cfg!(miri) { 10 } else { 200 };
    let values: Vec<T> = (0..count).map(|i| make(&mut rng, i)).collect();
    for v in &values {
        let doc = serde_json::to_vec(v).unwrap();
        assert_eq!(&common::decode::<T>(&doc).unwrap(), v);
    }
    let doc = serde_json::to_vec_pretty(&values).unwrap();
    assert_eq!(common::decode::<Vec<T>>(&doc).unwrap(), values);
}

#[test]
fn seed_user_with_profile() {
    round_trip(User::generate);
    let u: User = common::ok(
        r#"{"id": 1, "name": "Ada", "email": "ada@example.com", "tags": ["math"],
            "profile": {"age": 36, "city": "London", "is_admin": true}}"#,
    );
    assert!(u.profile.is_admin);
}

#[test]
fn seed_order_with_30_fields() {
    round_trip(Order::generate);
}

#[test]
fn seed_account_with_roles_and_extra_info() {
    round_trip(Account::generate);
    let a: Account = common::ok(
        r#"{"id": 7, "name": "n", "email": "e", "roles": ["admin"], "is_active": false,
            "extra_info": {"ip": "10.0.0.1", "device": "d", "login_days": 12}, "created_at": "2026-01-01"}"#,
    );
    assert_eq!(a.extra_info.login_days, 12);
}
