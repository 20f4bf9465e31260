//! Key order learned at run time: the first decode of a type in the background
//! tier records the order of each struct's keys, and the type is compiled to
//! speculate on that order. Documents in any order must still decode to the same
//! values, on both sides of the switch, and agree with the interpreter on errors;
//! and when documents drift to another order, the type is compiled again for the
//! order they use now, keeping the one before as a second guess, so two orders
//! that alternate cost no further compile; every new order is learned, up to a
//! bound per type. One `#[test]` (process-wide counters).

use std::time::{Duration, Instant};

use jitson::{Backend, Decode, Decoder, Tiering};

#[derive(Decode, Debug, PartialEq)]
struct Inner {
    x: u8,
    y: u8,
    z: u8,
}

/// One distinct type (one compile, one learned order) per `N`.
#[derive(Decode, Debug, PartialEq)]
struct Record<const N: usize> {
    alpha: u32,
    beta: String,
    gamma: Vec<u8>,
    delta: Option<bool>,
    epsilon: f64,
    inner: Inner,
}

fn expected<const N: usize>() -> Record<N> {
    Record {
        alpha: 7,
        beta: "b".into(),
        gamma: vec![1, 2],
        delta: Some(true),
        epsilon: 2.5,
        inner: Inner { x: 1, y: 2, z: 3 },
    }
}

const MEMBERS: [&str; 6] = [
    r#""alpha": 7"#,
    r#""beta": "b""#,
    r#""gamma": [1, 2]"#,
    r#""delta": true"#,
    r#""epsilon": 2.5"#,
    r#""inner": {INNER}"#,
];
const INNER: [&str; 3] = [r#""x": 1"#, r#""y": 2"#, r#""z": 3"#];

/// The record with its members (and the inner object's) in the order `order`
/// gives for six and for three.
fn document(order: &dyn Fn(usize) -> Vec<usize>) -> String {
    let inner: Vec<&str> = order(3).into_iter().map(|i| INNER[i]).collect();
    let inner = format!("{{{}}}", inner.join(", "));
    let members: Vec<String> = order(6)
        .into_iter()
        .map(|i| MEMBERS[i].replace("{INNER}", &inner))
        .collect();
    format!("{{{}}}", members.join(", "))
}

#[test]
fn learned_and_relearned_key_orders() {
    // One test: the counters are process-wide.
    a_learned_order_changes_speculation_not_results();
    a_drifted_order_is_learned_again_once();
    every_new_order_is_learned_up_to_a_bound();
}

fn a_learned_order_changes_speculation_not_results() {
    if !Backend::Jit.is_available() {
        eprintln!("NOTICE: the JIT is not available in this process; skipping");
        return;
    }
    let expected = expected::<0>();
    let reversed = document(&|n| (0..n).rev().collect());
    let declared = document(&|n| (0..n).collect());
    let rotated = document(&|n| (0..n).map(|i| (i + 2) % n).collect());
    let sparse = r#"{"inner": {"z": 3, "x": 1, "y": 2}, "alpha": 7, "epsilon": 2.5, "beta": "b", "gamma": [1, 2]}"#;
    let escaped = reversed.replace("\"beta\"", "\"b\\u0065ta\"");
    let duplicate = reversed.replace("\"alpha\"", "\"beta\"");
    let wrong = reversed.replace("\"y\": 2", "\"y\": 300");

    let auto = Decoder::<Record<0>>::new().tiering(Tiering::Background);
    let interpreter = Decoder::<Record<0>>::with_backend(Backend::Interpreter);
    let check = || {
        for doc in [&reversed, &declared, &rotated, &escaped] {
            assert_eq!(auto.decode_str(doc).unwrap(), expected, "{doc}");
        }
        let mut no_delta = auto.decode_str(sparse).unwrap();
        assert_eq!(no_delta.delta.take(), None);
        for doc in [&duplicate, &wrong] {
            let (a, b) = (
                auto.decode_str(doc).unwrap_err(),
                interpreter.decode_str(doc).unwrap_err(),
            );
            assert_eq!(
                (a.kind(), a.offset(), a.path()),
                (b.kind(), b.offset(), b.path())
            );
        }
    };

    // The first decode learns the reversed order and queues the compile.
    let before = jitson::stats();
    assert_eq!(auto.decode_str(&reversed).unwrap(), expected);
    let deadline = Instant::now() + Duration::from_secs(120);
    while jitson::stats().tier_switches == before.tier_switches {
        assert!(Instant::now() < deadline, "the compile never finished");
        check();
    }
    let after = jitson::stats();
    assert_eq!(
        after.learned_key_orders - before.learned_key_orders,
        2,
        "Record and Inner were compiled with the order learned: {after:#?}"
    );
    // On compiled code now: every order, and the errors, as before.
    let jit_before = jitson::stats().jit_decodes;
    check();
    assert!(jitson::stats().jit_decodes > jit_before);
}

fn a_drifted_order_is_learned_again_once() {
    if !Backend::Jit.is_available() {
        return;
    }
    let expected = expected::<1>();
    let declared = document(&|n| (0..n).collect());
    let reversed = document(&|n| (0..n).rev().collect());
    let auto = Decoder::<Record<1>>::new().tiering(Tiering::Background);
    let relearns = || jitson::stats().key_order_relearns;
    let before = relearns();

    // Learn the declared order, and wait for the compile.
    assert_eq!(auto.decode_str(&declared).unwrap(), expected);
    let deadline = Instant::now() + Duration::from_secs(120);
    let compiled = || {
        let jit = jitson::stats().jit_decodes;
        auto.decode_str(&declared).unwrap();
        jitson::stats().jit_decodes > jit
    };
    while !compiled() {
        assert!(Instant::now() < deadline, "the compile never finished");
        std::thread::sleep(Duration::from_millis(1));
    }
    // Then the documents drift to the reversed order: every key misses, and
    // after a check interval the order is learned again, once.
    while relearns() == before {
        assert!(Instant::now() < deadline, "the drift was never noticed");
        assert_eq!(auto.decode_str(&reversed).unwrap(), expected);
    }
    for _ in 0..5_000 {
        assert_eq!(auto.decode_str(&reversed).unwrap(), expected);
        assert_eq!(auto.decode_str(&declared).unwrap(), expected);
    }
    // Both orders alternate now: the reversed order is speculated on first and
    // the declared one second, so nothing misses and nothing is relearned.
    assert_eq!(relearns(), before + 1);
}

/// Waits until `auto` runs on compiled code (a decode of `doc` counted as a
/// JIT decode).
fn wait_compiled<T: Decode + PartialEq + std::fmt::Debug>(auto: &Decoder<T>, doc: &str) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let jit = jitson::stats().jit_decodes;
        auto.decode_str(doc).unwrap();
        if jitson::stats().jit_decodes > jit {
            return;
        }
        assert!(Instant::now() < deadline, "the compile never finished");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn every_new_order_is_learned_up_to_a_bound() {
    if !Backend::Jit.is_available() {
        return;
    }
    let expected = expected::<2>();
    let declared = document(&|n| (0..n).collect());
    let auto = Decoder::<Record<2>>::new().tiering(Tiering::Background);
    let relearns = || jitson::stats().key_order_relearns;
    assert_eq!(auto.decode_str(&declared).unwrap(), expected);
    wait_compiled(&auto, &declared);
    let start = relearns();

    // A producer redeployed twice, then rolled back: each order it switches to
    // is learned again (the test's check of the old code: a relearn happens).
    // (Each order differs from both orders compiled before it at most keys: a
    // document that misses only a few keys, such as the declared order rotated
    // by two after these two, is not drift: 3 misses per decode.)
    let phases = [
        document(&|n| (0..n).rev().collect()),
        document(&|n| {
            if n == 6 {
                vec![1, 3, 5, 0, 2, 4]
            } else {
                vec![1, 0, 2]
            }
        }),
        declared.clone(),
    ];
    let deadline = Instant::now() + Duration::from_secs(120);
    for (k, doc) in phases.iter().enumerate() {
        while relearns() < start + k as u64 + 1 {
            assert!(
                Instant::now() < deadline,
                "phase {k}'s order was never learned"
            );
            assert_eq!(auto.decode_str(doc).unwrap(), expected);
        }
        wait_compiled(&auto, doc);
    }
    // Documents in no stable order (a new permutation each time) keep missing,
    // but the type is compiled again a bounded number of times, and every value
    // is right.
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut shuffled = |n: usize| {
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            order.swap(i, (seed >> 33) as usize % (i + 1));
        }
        order
    };
    for _ in 0..60_000 {
        let (six, three) = (shuffled(6), shuffled(3));
        let doc = document(&|n| if n == 6 { six.clone() } else { three.clone() });
        assert_eq!(auto.decode_str(&doc).unwrap(), expected);
    }
    // Let the last queued compile finish, then count.
    std::thread::sleep(Duration::from_millis(200));
    let total = relearns() - start;
    assert!(
        (3..=8).contains(&total),
        "{total} relearns for one type (at most 8 per type)"
    );
}
