//! A process with little address space to spare (`ulimit -v`): the JIT's code
//! region (jit/src/memory.rs) asks for less than its preferred 1 GiB and the
//! JIT works, where it used to be refused as a whole (found by a fresh tester
//! under `ulimit -v 1100000`).
//!
//! The limit is process-wide and cannot be raised again, so this binary has a
//! single test that sets it first, before any jitson call (the region is
//! reserved once per process): the address space in use now plus 768 MiB, so
//! a 1 GiB reservation cannot succeed and a 512 MiB one can. Where
//! `setrlimit` is refused the test prints a notice and passes.
#![cfg(all(target_os = "linux", feature = "jit"))]

use jitson::{Backend, Decode, Decoder, Encode, Encoder};

#[derive(Decode, Encode, Debug, PartialEq)]
struct Profile {
    age: u8,
    city: String,
    tags: Vec<String>,
}

/// The process's virtual size now, in bytes (`VmSize` of /proc/self/status).
fn address_space_in_use() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("reads /proc/self/status");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmSize in /proc/self/status");
    kib * 1024
}

#[test]
fn the_jit_runs_under_an_address_space_limit() {
    let limit = address_space_in_use() + (768 << 20);
    let rlimit = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit,
    };
    // SAFETY: `setrlimit` reads the struct passed by reference, nothing else.
    if unsafe { libc::setrlimit(libc::RLIMIT_AS, &rlimit) } != 0 {
        eprintln!("NOTICE: setrlimit(RLIMIT_AS) refused; skipping the address-limit test");
        return;
    }
    assert!(
        Backend::Jit.is_available(),
        "{:?}",
        jitson::stats().auto_fallbacks
    );
    let json = r#"{"age": 41, "city": "Lyon", "tags": ["a", "b"]}"#;
    let profile = Decoder::<Profile>::with_backend(Backend::Jit)
        .decode_str(json)
        .expect("the JIT decodes under the limit");
    assert_eq!(
        profile,
        Profile {
            age: 41,
            city: "Lyon".into(),
            tags: vec!["a".into(), "b".into()],
        }
    );
    let bytes = Encoder::<Profile>::with_backend(Backend::Jit)
        .encode(&profile)
        .expect("the JIT encodes under the limit");
    assert_eq!(bytes, br#"{"age":41,"city":"Lyon","tags":["a","b"]}"#);
    let stats = jitson::stats();
    assert!(
        stats.code_bytes > 0 && stats.encoder_code_bytes > 0,
        "{stats:#?}"
    );
}
