//! Code compiled with either of Cranelift's register allocators
//! (`CompileOptions::register_allocator`) decodes the same values, and each
//! allocator has its own copy of the process-wide library: a compile with one
//! never reuses (calls) a shared function compiled with the other.
//!
//! Its own binary: the library is process-wide, and no other compile here may
//! fill it with this test's layouts first.

use jitson_jit::{CompileOptions, Compiled, JitState, RegisterAllocator, compile};

/// A root whose children (an option, a box, sequences, floats) all come from
/// the library.
type Floats = Vec<Option<Box<Vec<f64>>>>;

fn compile_with(register_allocator: RegisterAllocator) -> Compiled {
    compile(
        <Floats as jitson_core::HasLayout>::LAYOUT,
        CompileOptions {
            register_allocator,
            ..Default::default()
        },
    )
    .expect("compiles")
}

/// Decodes `doc` with `compiled` (compiled for `Floats`); `None` where the
/// generated code reports an error.
fn decode(compiled: &Compiled, doc: &[u8]) -> Option<Floats> {
    let mut out = std::mem::MaybeUninit::<Floats>::uninit();
    let mut state = JitState::new(doc, 128, true);
    // SAFETY: `compiled` was compiled for `Floats`'s layout and `out` is room
    // for one; `state` borrows `doc` for the call.
    let ok = unsafe { compiled.call(&mut state, out.as_mut_ptr().cast()) };
    // SAFETY: the call returned true: `out` holds a `Floats`.
    ok.then(|| unsafe { out.assume_init() })
}

#[test]
fn both_allocators_decode_alike_each_with_its_own_library() {
    let single = compile_with(RegisterAllocator::SinglePass);
    let backtracking = compile_with(RegisterAllocator::Backtracking);
    // The second allocator found none of the first one's shared functions.
    assert_eq!(single.functions, backtracking.functions);
    // Its own are found the second time: only the root is compiled.
    let again = compile_with(RegisterAllocator::SinglePass);
    assert!(
        again.functions < single.functions,
        "{} then {}",
        single.functions,
        again.functions
    );

    let docs: [(&[u8], Option<Floats>); 5] = [
        (b"[]", Some(vec![])),
        (
            b"[null, [], [1.5, -0.0, 2e-308, 1.7976931348623157e308, 12345678901234567890]]",
            Some(vec![
                None,
                Some(Box::default()),
                Some(Box::new(vec![
                    1.5,
                    -0.0,
                    2e-308,
                    f64::MAX,
                    12345678901234567890.0,
                ])),
            ]),
        ),
        (
            b" [ [ 0.1 , 0.2 ] , null , [ 3 ] ] ",
            Some(vec![
                Some(Box::new(vec![0.1, 0.2])),
                None,
                Some(Box::new(vec![3.0])),
            ]),
        ),
        (b"[[1.0, 2.0], nul]", None),
        (b"[[1.0, 2.0,]]", None),
    ];
    for (doc, want) in docs {
        for (name, compiled) in [
            ("single-pass", &single),
            ("backtracking", &backtracking),
            ("single-pass, again", &again),
        ] {
            let got = decode(compiled, doc);
            assert_eq!(
                got.is_some(),
                want.is_some(),
                "{name} on {}",
                String::from_utf8_lossy(doc)
            );
            if let (Some(got), Some(want)) = (&got, &want) {
                assert_eq!(got, want, "{name}");
                // -0.0 == 0.0: the sign too.
                let signs = |v: &Floats| -> Vec<bool> {
                    v.iter()
                        .flatten()
                        .flat_map(|b| b.iter().map(|x| x.is_sign_negative()))
                        .collect()
                };
                assert_eq!(signs(got), signs(want), "{name}");
            }
        }
    }
}
