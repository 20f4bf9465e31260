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

use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::{CompiledCode, Context};
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
/// Returns each context (its function as optimised, for the IR dump) with its
/// machine code, in the order given. A code generation error in any function
/// is returned (the first in order); a panic on the helper thread is resumed
/// on the caller, where [`crate::guarded_compile`] turns it into an error.
pub(crate) fn define_functions(
    module: &mut JITModule,
    isa: &dyn TargetIsa,
    mut functions: Vec<(FuncId, Context)>,
) -> Result<Vec<(FuncId, Context, CompiledCode)>, CompileError> {
    let codes = compile_all(isa, &mut functions)?;
    let mut defined = Vec::with_capacity(functions.len());
    for ((id, ctx), compiled) in functions.into_iter().zip(codes) {
        let relocs: Vec<ModuleReloc> = compiled
            .buffer
            .relocs()
            .iter()
            .map(|reloc| ModuleReloc::from_mach_reloc(reloc, &ctx.func, id))
            .collect();
        module
            .define_function_bytes(
                id,
                u64::from(compiled.buffer.alignment),
                compiled.code_buffer(),
                &relocs,
            )
            .map_err(|e| CompileError::Codegen(format!("{e:?}")))?;
        defined.push((id, ctx, compiled));
    }
    Ok(defined)
}

/// Compiles each context, largest first, on the caller and (for modules of at
/// least [`PARALLEL_INSTS`] instructions) one helper thread pulling from the
/// same queue; returns the machine code of each, in the order given. Without a
/// helper thread (the OS refused one) the caller compiles them all.
fn compile_all(
    isa: &dyn TargetIsa,
    functions: &mut [(FuncId, Context)],
) -> Result<Vec<CompiledCode>, CompileError> {
    let count = functions.len();
    let insts: usize = functions
        .iter()
        .map(|(_, ctx)| ctx.func.dfg.num_insts())
        .sum();
    if functions.len() < 2 || insts < PARALLEL_INSTS {
        let mut compiler = Compiler::new();
        return functions
            .iter_mut()
            .map(|(_, ctx)| compiler.compile(isa, ctx))
            .collect();
    }
    // Largest first, so that the two threads finish close together.
    let mut by_size: Vec<(usize, &mut Context)> = functions
        .iter_mut()
        .map(|(_, ctx)| ctx)
        .enumerate()
        .collect();
    by_size.sort_by_key(|(_, ctx)| std::cmp::Reverse(ctx.func.dfg.num_insts()));
    // Each function's index in `functions`, its context, and its code once
    // compiled.
    type Job<'a> = (usize, Mutex<(&'a mut Context, Option<CompiledCode>)>);
    let queue: Vec<Job> = by_size
        .into_iter()
        .map(|(i, ctx)| (i, Mutex::new((ctx, None))))
        .collect();
    let next = AtomicUsize::new(0);
    // Each worker returns the first error it met, with the function's index.
    let work = || -> Option<(usize, CompileError)> {
        let mut compiler = Compiler::new();
        loop {
            let (index, slot) = queue.get(next.fetch_add(1, Ordering::Relaxed))?;
            // A poisoned slot means the other thread panicked in it; its panic
            // is resumed below, so this one only needs to stop.
            let Ok(mut slot) = slot.lock() else {
                return None;
            };
            let (ctx, code) = &mut *slot;
            match compiler.compile(isa, ctx) {
                Ok(compiled) => *code = Some(compiled),
                Err(e) => return Some((*index, e)),
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
        (Some(a), Some(b)) => return Err(if a.0 <= b.0 { a.1 } else { b.1 }),
        (Some((_, e)), None) | (None, Some((_, e))) => return Err(e),
        (None, None) => {}
    }
    let mut codes: Vec<Option<CompiledCode>> = (0..count).map(|_| None).collect();
    for (index, slot) in queue {
        let (_, code) = slot.into_inner().expect("no worker panicked");
        codes[index] = code;
    }
    Ok(codes
        .into_iter()
        .map(|code| code.expect("a worker compiled every function"))
        .collect())
}

/// One thread's Cranelift context, reused for every function that thread
/// compiles: its register allocator's and analyses' buffers are allocated
/// (and their pages touched) once per module instead of once per function.
/// Cranelift keeps the allocator's state in the `Context` for this reuse
/// (`Context::clear` keeps it); per-function contexts threw it away.
struct Compiler {
    scratch: Context,
}

impl Compiler {
    fn new() -> Self {
        Compiler {
            scratch: Context::new(),
        }
    }

    /// Compiles `ctx`'s function to machine code in the reused context, and
    /// gives the function (as optimised) back to `ctx`.
    fn compile(
        &mut self,
        isa: &dyn TargetIsa,
        ctx: &mut Context,
    ) -> Result<CompiledCode, CompileError> {
        std::mem::swap(&mut self.scratch.func, &mut ctx.func);
        self.scratch.set_disasm(ctx.want_disasm);
        let result = self
            .scratch
            .compile(isa, &mut ControlPlane::default())
            .map(|_| ())
            .map_err(|e| CompileError::Codegen(format!("{:?}", e.inner)));
        let code = self.scratch.take_compiled_code();
        std::mem::swap(&mut self.scratch.func, &mut ctx.func);
        self.scratch.clear();
        result.map(|()| code.expect("Context::compile keeps the code it returns"))
    }
}
