//! Compiling a module's functions on two threads.
//!
//! Cranelift compiles one function at a time, and most of a compile is spent
//! in code generation and register allocation, per function and independent
//! of the others. A module's functions are therefore translated to IR in turn
//! (translation declares what each calls, which needs the module), compiled to
//! machine code by the calling thread and one helper thread at once, and then
//! defined in the module in order, with their relocations, as
//! `JITModule::define_function` would have. A process's first compile (its
//! library of field functions and its first root, issue 22's fresh-process
//! target) pays the wall time of the larger half instead of the whole.
//!
//! Small modules are compiled on the caller alone: below [`PARALLEL_INSTS`]
//! IR instructions a thread costs more than it saves.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use cranelift_codegen::Context;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::isa::TargetIsa;
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Module, ModuleReloc};

use crate::CompileError;

/// IR instructions (summed over a module's functions) from which a second
/// thread compiles half of them: about a millisecond of Cranelift's work in
/// a fresh process (1.5-2.5 µs per instruction there, measured per function
/// on 2026-12-02), against ~30 µs to start a thread. At 2,000 the twitter
/// model's root module (1,533 instructions) was compiled on one thread.
///
/// A thread started while the caller keeps its core busy may wait on that
/// core for a few milliseconds before the scheduler moves it (seen on this
/// project's 2-vCPU machines): the split pays less in a fresh process than
/// the instruction counts promise.
const PARALLEL_INSTS: usize = 500;

/// Compiles every function of `functions` (translated IR, each with the id it
/// was declared under in `module`) to machine code for `isa`, on two threads
/// when they are large enough, then defines each in `module` in order.
///
/// Returns the contexts, compiled (for their sizes and disassembly), in the
/// order given. A code generation error in any function is returned (the first
/// in order); a panic on the helper thread is resumed on the caller, where
/// [`crate::guarded_compile`] turns it into an error.
pub(crate) fn define_functions(
    module: &mut JITModule,
    isa: &dyn TargetIsa,
    mut functions: Vec<(FuncId, Context)>,
) -> Result<Vec<(FuncId, Context)>, CompileError> {
    compile_all(isa, &mut functions)?;
    for (id, ctx) in &functions {
        let compiled = ctx
            .compiled_code()
            .expect("compile_all compiled every function");
        let relocs: Vec<ModuleReloc> = compiled
            .buffer
            .relocs()
            .iter()
            .map(|reloc| ModuleReloc::from_mach_reloc(reloc, &ctx.func, *id))
            .collect();
        module
            .define_function_bytes(
                *id,
                u64::from(compiled.buffer.alignment),
                compiled.code_buffer(),
                &relocs,
            )
            .map_err(|e| CompileError::Codegen(format!("{e:?}")))?;
    }
    Ok(functions)
}

/// Compiles each context, largest first, on the caller and (for modules of at
/// least [`PARALLEL_INSTS`] instructions) one helper thread pulling from the
/// same queue. Without a helper thread (the OS refused one) the caller
/// compiles them all.
fn compile_all(
    isa: &dyn TargetIsa,
    functions: &mut [(FuncId, Context)],
) -> Result<(), CompileError> {
    let insts: usize = functions
        .iter()
        .map(|(_, ctx)| ctx.func.dfg.num_insts())
        .sum();
    if functions.len() < 2 || insts < PARALLEL_INSTS {
        return functions
            .iter_mut()
            .try_for_each(|(_, ctx)| compile_one(isa, ctx));
    }
    // Largest first, so that the two threads finish close together.
    let mut by_size: Vec<(usize, &mut Context)> = functions
        .iter_mut()
        .map(|(_, ctx)| ctx)
        .enumerate()
        .collect();
    by_size.sort_by_key(|(_, ctx)| std::cmp::Reverse(ctx.func.dfg.num_insts()));
    let queue: Vec<(usize, Mutex<&mut Context>)> = by_size
        .into_iter()
        .map(|(i, ctx)| (i, Mutex::new(ctx)))
        .collect();
    let next = AtomicUsize::new(0);
    // Each worker returns the first error it met, with the function's index.
    let work = || -> Option<(usize, CompileError)> {
        loop {
            let (index, slot) = queue.get(next.fetch_add(1, Ordering::Relaxed))?;
            // A poisoned slot means the other thread panicked in it; its panic
            // is resumed below, so this one only needs to stop.
            let Ok(mut ctx) = slot.lock() else {
                return None;
            };
            if let Err(e) = compile_one(isa, &mut ctx) {
                return Some((*index, e));
            }
        }
    };
    let (mine, theirs) = std::thread::scope(|scope| {
        let helper = std::thread::Builder::new()
            .name("jitson-compile".into())
            .spawn_scoped(scope, work);
        let mine = work();
        let theirs = match helper {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|payload| std::panic::resume_unwind(payload)),
            Err(_) => None,
        };
        (mine, theirs)
    });
    match (mine, theirs) {
        (Some(a), Some(b)) => Err(if a.0 <= b.0 { a.1 } else { b.1 }),
        (Some((_, e)), None) | (None, Some((_, e))) => Err(e),
        (None, None) => Ok(()),
    }
}

/// Compiles one function's IR to machine code, kept in `ctx`.
fn compile_one(isa: &dyn TargetIsa, ctx: &mut Context) -> Result<(), CompileError> {
    ctx.compile(isa, &mut ControlPlane::default())
        .map(|_| ())
        .map_err(|e| CompileError::Codegen(format!("{:?}", e.inner)))
}
