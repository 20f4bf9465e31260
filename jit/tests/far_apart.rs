//! Regression test for a fuzzing finding (fuzz target `decode_fixed`, under
//! AddressSanitizer): the functions of one module call each other with 32-bit
//! PC-relative calls, and Cranelift's default memory provider mapped each chunk of
//! code wherever the OS put it. With other mappings in between, two functions of a
//! module ended up more than 2 GiB apart and `finalize_definitions` panicked on
//! the relocation (`TryFromIntError`), unwinding out of `jitson::from_slice`.
//!
//! Now all generated code lives in one reservation (`jitson_jit::memory`), and `compile` turns
//! any panic inside Cranelift into a `CompileError`, so the facade falls back to
//! the interpreter. This test recreates the scattering deterministically with a
//! provider that places every chunk 4 GiB after the previous one.
#![cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64",
    target_arch = "s390x"
))]

use std::io;

use cranelift_jit::{ArenaMemoryProvider, BranchProtection, JITMemoryKind, JITMemoryProvider};
use cranelift_module::ModuleResult;
use jitson_jit::{CompileError, CompileOptions, JitState, compile};

/// Distance between chunks: beyond any 32-bit PC-relative reach.
const SPACING: usize = 4 << 30;
/// How many chunks the reservation holds.
const SLOTS: usize = 8;

/// Hands out each allocation in its own 4 GiB slot of one reservation.
struct Scattered {
    reservation: region::Allocation,
    used: usize,
    code: Vec<(*mut u8, usize)>,
}

// SAFETY: the raw pointers point into `reservation`, which the provider owns.
unsafe impl Send for Scattered {}

impl Scattered {
    fn new() -> Scattered {
        Scattered {
            reservation: region::alloc(SPACING * SLOTS, region::Protection::NONE)
                .expect("reserving address space"),
            used: 0,
            code: Vec::new(),
        }
    }
}

impl JITMemoryProvider for Scattered {
    fn allocate(&mut self, size: usize, _align: u64, kind: JITMemoryKind) -> io::Result<*mut u8> {
        if self.used == SLOTS || size > SPACING {
            return Err(io::Error::other("no slot left"));
        }
        let page = region::page::size();
        let len = size.div_ceil(page) * page;
        // SAFETY: slot `used` lies inside the reservation (used < SLOTS).
        let ptr = unsafe { self.reservation.as_mut_ptr::<u8>().add(self.used * SPACING) };
        self.used += 1;
        // SAFETY: `ptr..ptr + len` is inside the reservation and not in use.
        unsafe { region::protect(ptr, len, region::Protection::READ_WRITE) }
            .map_err(io::Error::other)?;
        if let JITMemoryKind::Executable = kind {
            self.code.push((ptr, len));
        }
        Ok(ptr)
    }

    unsafe fn free_memory(&mut self) {
        self.code.clear();
    }

    fn finalize(&mut self, _: BranchProtection) -> ModuleResult<()> {
        for &(ptr, len) in &self.code {
            // SAFETY: a chunk this provider handed out, now fully written.
            unsafe { region::protect(ptr, len, region::Protection::READ_EXECUTE) }
                .map_err(|e| cranelift_module::ModuleError::Backend(e.into()))?;
        }
        Ok(())
    }
}

/// A layout compiled to more than one function (the root and the `Box` payload),
/// so the module has a call between two functions.
type TwoFunctions = Option<Box<Vec<u64>>>;

#[test]
fn scattered_chunks_are_a_compile_error_not_a_panic() {
    let result = compile(
        <TwoFunctions as jitson_core::HasLayout>::LAYOUT,
        CompileOptions {
            dump_dir: None,
            memory_provider: Some(Box::new(Scattered::new())),
            perf_map: false,
            key_orders: Default::default(),
            miss_counter: None,
            ..Default::default()
        },
    );
    match result {
        Err(CompileError::Codegen(message)) => {
            assert!(message.contains("Cranelift panicked"), "{message}")
        }
        Err(other) => panic!("unexpected error {other}"),
        Ok(_) => panic!("a call across 4 GiB cannot be relocated"),
    }
}

/// A layout whose code is larger than one page.
type Large = std::collections::HashMap<String, Vec<Option<Box<[Vec<String>; 3]>>>>;

#[test]
fn an_exhausted_reservation_is_a_compile_error() {
    let full = compile(
        <Large as jitson_core::HasLayout>::LAYOUT,
        CompileOptions::default(),
    )
    .expect("compiles");
    assert!(
        full.code_bytes > region::page::size(),
        "{}",
        full.code_bytes
    );
    // A reservation of one page cannot hold it.
    let result = compile(
        <Large as jitson_core::HasLayout>::LAYOUT,
        CompileOptions {
            dump_dir: None,
            memory_provider: Some(Box::new(ArenaMemoryProvider::new_with_size(1).unwrap())),
            perf_map: false,
            key_orders: Default::default(),
            miss_counter: None,
            ..Default::default()
        },
    );
    assert!(
        matches!(result, Err(CompileError::Codegen(_))),
        "{:?}",
        result.err()
    );
}

#[test]
fn the_code_region_compiles_and_runs() {
    let compiled = compile(
        <TwoFunctions as jitson_core::HasLayout>::LAYOUT,
        CompileOptions::default(),
    )
    .expect("compiles");
    let input = b"[1, 2, 3]";
    let mut state = JitState::new(input, 128, true);
    let mut out = std::mem::MaybeUninit::<TwoFunctions>::uninit();
    // SAFETY: `out` is aligned room for the root type; `state` borrows `input`.
    let ok = unsafe { compiled.call(&mut state, out.as_mut_ptr().cast()) };
    assert!(ok);
    // SAFETY: `call` returned true, so `out` is initialised.
    let value = unsafe { out.assume_init() };
    assert_eq!(value, Some(Box::new(vec![1, 2, 3])));
}
