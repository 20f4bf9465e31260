//! The OS refuses executable memory: jitson must fall back, not crash.
//!
//! On Linux, `prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN)` (kernel 6.3+) makes
//! the kernel refuse to make any mapping executable that was not executable from
//! the start, which is exactly what a JIT does (write code, then `mprotect` it to
//! read+execute), as hardened environments (SELinux `execmem`, PaX/MPROTECT,
//! systemd `MemoryDenyWriteExecute=`) do. The setting is process-wide and cannot
//! be undone, so this binary has a single test that sets it first, before any
//! jitson call (the JIT probes once per process). It proves that then:
//!
//! - `Backend::Jit.is_available()` is false, and `Backend::Jit` decodes and
//!   `warm_up` fail with `ErrorKind::BackendUnavailable`;
//! - `Backend::Auto` decodes succeed, with results identical to
//!   `Backend::Interpreter` for valid and invalid documents (value, or error kind,
//!   offset, line, column and path);
//! - `stats()` says why: `auto_fallbacks` has a reason mentioning executable
//!   memory, counting every `Auto` decode; no decode ran on the JIT, nothing was
//!   compiled.
//!
//! Where `prctl` is refused (an older kernel) the test prints a notice and passes.
//! Built only with the `jit` feature: without it there is no executable memory to refuse.
#![cfg(all(target_os = "linux", feature = "jit"))]

use std::fmt::Debug;

use jitson::{Backend, Decode, Decoder, Error, ErrorKind};

/// `PR_SET_MDWE` and `PR_MDWE_REFUSE_EXEC_GAIN` from `<linux/prctl.h>`.
const PR_SET_MDWE: libc::c_int = 65;
const PR_MDWE_REFUSE_EXEC_GAIN: libc::c_ulong = 1;

#[derive(Decode, Debug, PartialEq)]
struct Profile {
    age: u8,
    city: String,
    is_admin: bool,
}

#[derive(Decode, Debug, PartialEq)]
struct User {
    id: i64,
    name: String,
    tags: Vec<String>,
    profile: Option<Profile>,
}

/// What is compared between backends: the value, or the whole error position.
type Outcome<T> = Result<T, (ErrorKind, usize, usize, usize, String)>;

fn outcome<T>(r: Result<T, Error>) -> Outcome<T> {
    r.map_err(|e| (e.kind(), e.offset(), e.line(), e.column(), e.path()))
}

/// Decodes `json` with `Auto` and with the interpreter, through both entry points;
/// asserts all agree and returns whether it succeeded. Counts as two `Auto`
/// decodes.
#[track_caller]
fn same_as_interpreter<T: Decode + PartialEq + Debug>(json: &str) -> bool {
    let interp = outcome(Decoder::<T>::with_backend(Backend::Interpreter).decode_str(json));
    let auto = Decoder::<T>::new();
    assert_eq!(outcome(auto.decode_str(json)), interp, "input {json:?}");
    assert_eq!(
        outcome(auto.decode_slice(json.as_bytes())),
        interp,
        "input {json:?}"
    );
    interp.is_ok()
}

#[test]
fn auto_falls_back_when_executable_memory_is_refused() {
    // SAFETY: prctl with integer arguments only; it changes the process's memory
    // policy and touches no Rust-visible memory.
    let rc = unsafe { libc::prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) };
    if rc != 0 {
        eprintln!(
            "NOTICE: prctl(PR_SET_MDWE) failed ({}); cannot refuse executable memory here, skipping",
            std::io::Error::last_os_error()
        );
        return;
    }

    assert!(
        !Backend::Jit.is_available(),
        "the JIT must notice that executable memory is refused"
    );

    let docs: &[(&str, bool)] = &[
        (
            r#"{"id": 1, "name": "ada", "tags": ["x", "y"], "profile": {"age": 36, "city": "London", "is_admin": false}}"#,
            true,
        ),
        (
            r#"{"id": -7, "name": "b\u00e9", "tags": [], "profile": null}"#,
            true,
        ),
        (r#"{"id": 1, "name": "ada", "tags": ["x", 2]}"#, false),
        (
            r#"{"id": 1, "name": "ada", "tags": [], "profile": {"age": 300, "city": "", "is_admin": true}}"#,
            false,
        ),
        (r#"{"id": 1, "name": "ada", "tags": [] "#, false),
        (r#"{"id": 1, "name": "ada", "tags": []} x"#, false),
        ("", false),
    ];
    for &(json, valid) in docs {
        assert_eq!(same_as_interpreter::<User>(json), valid, "input {json:?}");
    }
    assert!(same_as_interpreter::<Vec<Profile>>(
        r#"[{"age": 1, "city": "a", "is_admin": true}]"#
    ));
    assert!(!same_as_interpreter::<u8>("256"));
    let auto_decodes = 2 * (docs.len() as u64 + 2);

    // Backend::Jit reports the JIT unavailable, for decoding and for warm_up.
    let jit = Decoder::<User>::with_backend(Backend::Jit);
    let err = jit
        .decode_str(docs[0].0)
        .expect_err("Backend::Jit must fail");
    assert_eq!(err.kind(), ErrorKind::BackendUnavailable, "{err}");
    let err = jit.warm_up().expect_err("Backend::Jit warm_up must fail");
    assert_eq!(err.kind(), ErrorKind::BackendUnavailable, "{err}");
    // Backend::Auto warm_up succeeds (the interpreter needs nothing compiled).
    jitson::warm_up::<User>().expect("Auto warm_up");

    let stats = jitson::stats();
    assert_eq!(stats.jit_decodes, 0, "{stats:#?}");
    assert_eq!(stats.layouts_compiled, 0, "{stats:#?}");
    assert!(!stats.jit_disabled_by_env, "{stats:#?}");
    assert_eq!(
        stats.auto_fallbacks.len(),
        1,
        "one reason only: {:?}",
        stats.auto_fallbacks
    );
    let (reason, count) = &stats.auto_fallbacks[0];
    assert!(
        reason.contains("executable memory"),
        "the reason names executable memory: {reason:?}"
    );
    assert_eq!(
        *count, auto_decodes,
        "every Auto decode fell back, and warm_up (no decode) is not counted: {stats:#?}"
    );
}
