//! `JITSON_DISABLE_JIT=1` switches the JIT's encoder off as it does the
//! decoder: `Backend::Auto` encodes on the interpreter with the same bytes,
//! and an explicit `Backend::Jit` fails with `BackendUnavailable` naming the
//! variable. The variable is read once per process, so this binary has a
//! single test that sets it before any jitson call.

use jitson::{Backend, Encoder, ErrorKind};

#[derive(jitson::Encode, serde::Serialize)]
struct Point {
    x: i32,
    label: String,
    next: Option<Box<Point>>,
}

#[test]
fn encoding_uses_the_interpreter_when_disabled_by_env() {
    // SAFETY: first statement of the only test in this binary: no other thread of
    // this process reads the environment yet.
    unsafe { std::env::set_var("JITSON_DISABLE_JIT", "1") };
    let value = Point {
        x: -3,
        label: "a\"b".into(),
        next: Some(Box::new(Point {
            x: 4,
            label: String::new(),
            next: None,
        })),
    };
    let expect = serde_json::to_vec(&value).unwrap();
    for _ in 0..3 {
        assert_eq!(jitson::to_vec(&value).unwrap(), expect);
        assert_eq!(
            Encoder::<Point>::with_backend(Backend::Interpreter)
                .encode(&value)
                .unwrap(),
            expect
        );
    }
    assert!(!Backend::Jit.is_available());
    let e = Encoder::<Point>::with_backend(Backend::Jit)
        .encode(&value)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BackendUnavailable, "{e}");
    // A build without the JIT says so first; one with it names the variable.
    let why = if cfg!(feature = "jit") {
        "JITSON_DISABLE_JIT"
    } else {
        "no JIT"
    };
    assert!(e.to_string().contains(why), "{e}");
    let stats = jitson::stats();
    assert_eq!(stats.layouts_compiled, 0, "{stats:#?}");
}
