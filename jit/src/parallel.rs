//! Compiling functions on two threads while they are translated.
//!
//! Cranelift compiles one function at a time, and most of a compile is spent
//! in code generation and register allocation, per function and independent
//! of the others. Functions are translated to IR in turn by the calling thread
//! (translation declares what each calls, which needs its module) and handed
//! to a [`Crew`]: one helper thread compiles them to machine code as they
//! come, and the caller joins it once everything is translated. They are then
//! defined in their modules in order, with their relocations, as
//! `JITModule::define_function` would have ([`define_all`]). A process's first
//! compile (its library of field functions and its first root, issue 22's
//! fresh-process target) pays about half of the compile's wall time.
//!
//! The helper is started as soon as the functions handed over reach
//! [`PARALLEL_INSTS`] IR instructions, while the caller still translates: on
//! this project's 2-vCPU machines a new thread started 1-5 ms after it was
//! spawned (measured 2026-12-06 in fresh processes), which the translation
//! now hides. Smaller compiles stay on the caller alone.

use std::cell::OnceCell;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::{Scope, ScopedJoinHandle};

use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::{CompiledCode, Context};
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Module, ModuleReloc};

use crate::CompileError;

/// IR instructions handed to a [`Crew`] from which a second thread compiles
/// beside the caller: about a millisecond of Cranelift's work in a fresh
/// process (1.5-2.5 µs per instruction there, measured per function on
/// 2026-12-02), against ~30 µs to start a thread. At 2,000 the twitter
/// model's root module (1,533 instructions) was compiled on one thread.
const PARALLEL_INSTS: usize = 500;

/// A function compiled: its context (the function as optimised, for the IR
/// dump and the relocations) and its machine code.
pub(crate) type CompiledFunction = (Box<Context>, Box<CompiledCode>);

/// Compiles every function of `functions` (translated IR, each with the id it
/// was declared under in `module`) to machine code for `isa` on a [`Crew`],
/// then defines each in `module` in order ([`define_all`]). Returns them
/// compiled, in the order given.
pub(crate) fn define_functions(
    module: &mut JITModule,
    isa: &dyn TargetIsa,
    functions: Vec<(FuncId, Context)>,
) -> Result<Vec<CompiledFunction>, CompileError> {
    let (ids, compiled) = with_crew(isa, |crew| {
        Ok(functions
            .into_iter()
            .map(|(id, ctx)| {
                crew.submit(Box::new(ctx));
                id
            })
            .collect::<Vec<FuncId>>())
    })?;
    define_all(module, &ids, &compiled)?;
    Ok(compiled)
}

/// Defines in `module` each function compiled (`compiled`) under its id
/// (`ids`, in the same order): what `JITModule::define_function` does after
/// compiling.
pub(crate) fn define_all(
    module: &mut JITModule,
    ids: &[FuncId],
    compiled: &[CompiledFunction],
) -> Result<(), CompileError> {
    for (&id, (ctx, code)) in ids.iter().zip(compiled) {
        let relocs: Vec<ModuleReloc> = code
            .buffer
            .relocs()
            .iter()
            .map(|reloc| ModuleReloc::from_mach_reloc(reloc, &ctx.func, id))
            .collect();
        module
            .define_function_bytes(
                id,
                u64::from(code.buffer.alignment),
                code.code_buffer(),
                &relocs,
            )
            .map_err(|e| CompileError::Codegen(format!("{e:?}")))?;
    }
    Ok(())
}

/// Runs `translate`, which hands functions to the crew ([`Crew::submit`]) as
/// it lowers them; every function handed over is compiled to machine code for
/// `isa`, by a helper thread from the moment they add up to
/// [`PARALLEL_INSTS`] instructions and by the caller once `translate` returns.
/// The functions may belong to different modules (a compile that fills the
/// library hands over its own module's functions too).
///
/// Returns `translate`'s result and each function handed over (as optimised)
/// with its machine code, in the order handed over. An error from `translate`
/// or a code generation error in any function is returned (the first
/// function's in order); a panic on the helper thread is resumed on the
/// caller, where [`crate::guarded_compile`] turns it into an error.
pub(crate) fn with_crew<R>(
    isa: &dyn TargetIsa,
    translate: impl FnOnce(&Crew<'_, '_>) -> Result<R, CompileError>,
) -> Result<(R, Vec<CompiledFunction>), CompileError> {
    let queue = Queue {
        isa,
        state: Mutex::new(State::default()),
        more: Condvar::new(),
    };
    let translated = std::thread::scope(|scope| {
        let crew = Crew {
            queue: &queue,
            scope,
            helper: OnceCell::new(),
        };
        // The queue is closed whatever `translate` does (returns, fails or
        // panics), so that a waiting helper returns and the scope can end.
        let translated = {
            let _close = Close(&queue);
            translate(&crew)
        };
        if translated.is_err() {
            // Its error is returned: what waits need not be compiled.
            queue.lock().waiting.clear();
        }
        queue.work(&mut Compiler::new());
        if let Some(Ok(handle)) = crew.helper.into_inner() {
            handle
                .join()
                .unwrap_or_else(|payload| std::panic::resume_unwind(payload));
        }
        translated
    })?;
    let state = queue.state.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut compiled = Vec::with_capacity(state.done.len());
    for done in state.done {
        let (ctx, code) = done.expect("a thread compiled every function handed over");
        compiled.push((ctx, code?));
    }
    Ok((translated, compiled))
}

/// The caller's side of [`with_crew`]: takes translated functions
/// ([`Crew::submit`]) and starts the helper thread when they are worth one.
pub(crate) struct Crew<'scope, 'env> {
    queue: &'env Queue<'env>,
    scope: &'scope Scope<'scope, 'env>,
    /// The helper thread, once started (an error: the OS refused one, and the
    /// caller compiles everything).
    helper: OnceCell<std::io::Result<ScopedJoinHandle<'scope, ()>>>,
}

impl Crew<'_, '_> {
    /// Hands over a function lowered to IR, to be compiled; starts the helper
    /// thread once [`PARALLEL_INSTS`] instructions are handed over. (Contexts
    /// and code are boxed: a `Context` is about 11 KB, and moving them by
    /// value through the queue doubled the memcpy of a fresh process's
    /// compile.)
    pub(crate) fn submit(&self, ctx: Box<Context>) {
        let mut state = self.queue.lock();
        state.insts += ctx.func.dfg.num_insts();
        let index = state.done.len();
        state.done.push(None);
        state.waiting.push((index, ctx));
        let start = state.insts >= PARALLEL_INSTS;
        drop(state);
        self.queue.more.notify_one();
        if start {
            let queue = self.queue;
            self.helper.get_or_init(|| {
                std::thread::Builder::new()
                    .name("jitson-compile".into())
                    .spawn_scoped(self.scope, move || queue.work(&mut Compiler::new()))
            });
        }
    }
}

/// The functions handed to a crew, shared by its two threads.
struct Queue<'isa> {
    isa: &'isa dyn TargetIsa,
    state: Mutex<State>,
    /// Signalled when a function is handed over and when the queue closes.
    more: Condvar,
}

/// A function's machine code, or why it has none.
type CompileResult = Result<Box<CompiledCode>, CompileError>;

/// What the queue holds, under its lock.
#[derive(Default)]
struct State {
    /// Functions handed over and not yet taken: their index and IR.
    waiting: Vec<(usize, Box<Context>)>,
    /// By index: each function compiled, as optimised, with its outcome.
    done: Vec<Option<(Box<Context>, CompileResult)>>,
    /// IR instructions handed over so far.
    insts: usize,
    /// `translate` has returned: nothing more will be handed over.
    closed: bool,
}

impl Queue<'_> {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Compiles run outside the lock, so a panic cannot leave it held
        // half-way through a change.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Compiles waiting functions, the largest first (so that the two
    /// threads finish close together), until the queue is closed and none
    /// waits; waits for more while it is open.
    fn work(&self, compiler: &mut Compiler) {
        let mut state = self.lock();
        loop {
            let largest = state
                .waiting
                .iter()
                .enumerate()
                .max_by_key(|(_, (_, ctx))| ctx.func.dfg.num_insts())
                .map(|(at, _)| at);
            match largest {
                Some(at) => {
                    let (index, mut ctx) = state.waiting.swap_remove(at);
                    drop(state);
                    let code = compiler.compile(self.isa, &mut ctx);
                    state = self.lock();
                    state.done[index] = Some((ctx, code));
                }
                None if state.closed => return,
                None => {
                    state = self.more.wait(state).unwrap_or_else(|p| p.into_inner());
                }
            }
        }
    }
}

/// Closes a queue when dropped.
struct Close<'q, 'isa>(&'q Queue<'isa>);

impl Drop for Close<'_, '_> {
    fn drop(&mut self) {
        self.0.lock().closed = true;
        self.0.more.notify_all();
    }
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
    fn compile(&mut self, isa: &dyn TargetIsa, ctx: &mut Context) -> CompileResult {
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
        result.map(|()| Box::new(code.expect("Context::compile keeps the code it returns")))
    }
}

#[cfg(test)]
mod tests {
    use cranelift_codegen::ir::{AbiParam, Function, InstBuilder, Signature, UserFuncName, types};
    use cranelift_codegen::isa::{CallConv, OwnedTargetIsa};
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    use super::*;
    use crate::{RegisterAllocator, build_isa};

    fn isa() -> OwnedTargetIsa {
        build_isa("none", RegisterAllocator::Backtracking).expect("a host ISA")
    }

    /// A function `fn(x: i64) -> i64` adding `1..=adds` to `x` one at a time
    /// (`adds + 1` IR instructions); with `broken`, it returns a value of that
    /// type instead, which Cranelift's verifier rejects (a code generation
    /// error naming the type).
    fn function(isa: &OwnedTargetIsa, adds: i64, broken: Option<types::Type>) -> Context {
        let call_conv: CallConv = isa.default_call_conv();
        let mut sig = Signature::new(call_conv);
        sig.params.push(AbiParam::new(types::I64));
        sig.returns.push(AbiParam::new(types::I64));
        let mut ctx =
            Context::for_function(Function::with_name_signature(UserFuncName::default(), sig));
        let mut fb_ctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fb_ctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        b.seal_block(entry);
        let mut x = b.block_params(entry)[0];
        for i in 1..=adds {
            x = b.ins().iadd_imm_s(x, i);
        }
        if let Some(ty) = broken {
            let narrow = b.ins().ireduce(ty, x);
            b.ins().return_(&[narrow]);
        } else {
            b.ins().return_(&[x]);
        }
        b.finalize(isa.frontend_config());
        ctx
    }

    #[test]
    fn a_crew_returns_every_function_compiled_in_the_order_handed_over() {
        let isa = isa();
        // 40 functions of 2 to 120 instructions: past `PARALLEL_INSTS`, so the
        // helper thread compiles some of them.
        let sizes: Vec<i64> = (0..40).map(|i| (i * 37) % 119).collect();
        assert!(sizes.iter().map(|&n| n as usize + 1).sum::<usize>() > PARALLEL_INSTS);
        let (handed, compiled) = with_crew(&*isa, |crew| {
            for (i, &n) in sizes.iter().enumerate() {
                let mut ctx = function(&isa, n, None);
                ctx.func.name = UserFuncName::user(0, i as u32);
                crew.submit(Box::new(ctx));
            }
            Ok(sizes.len())
        })
        .expect("compiles");
        assert_eq!(handed, compiled.len());
        for (i, (ctx, code)) in compiled.iter().enumerate() {
            // The function given back is the one handed over at that place.
            assert_eq!(ctx.func.name, UserFuncName::user(0, i as u32));
            assert!(!code.code_buffer().is_empty());
        }
    }

    #[test]
    fn the_first_code_generation_error_in_order_is_returned() {
        if !cfg!(debug_assertions) {
            // The verifier runs in debug builds only (`build_isa`).
            return;
        }
        let isa = isa();
        let result = with_crew(&*isa, |crew| {
            for i in 0..30 {
                // The 7th and the 20th are broken; the 20th is the larger, so
                // the crew compiles it first.
                let (adds, broken) = match i {
                    7 => (40, Some(types::I32)),
                    20 => (200, Some(types::I8)),
                    _ => (40, None),
                };
                crew.submit(Box::new(function(&isa, adds, broken)));
            }
            Ok(())
        });
        match result {
            Err(CompileError::Codegen(message)) => {
                assert!(message.contains("has type i32"), "{message}")
            }
            Err(other) => panic!("unexpected error {other}"),
            Ok(_) => panic!("broken functions compiled"),
        }
    }

    #[test]
    fn a_failed_or_panicking_translation_ends_the_crew() {
        let isa = isa();
        // An error after the helper thread started: returned, not waited on.
        let failed: Result<((), _), _> = with_crew(&*isa, |crew| {
            for _ in 0..10 {
                crew.submit(Box::new(function(&isa, 100, None)));
            }
            Err(CompileError::Codegen("translation failed".into()))
        });
        assert!(matches!(failed, Err(CompileError::Codegen(m)) if m == "translation failed"));
        // A panic: it reaches the caller, and the helper thread ends.
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            with_crew(&*isa, |crew| -> Result<(), CompileError> {
                for _ in 0..10 {
                    crew.submit(Box::new(function(&isa, 100, None)));
                }
                panic!("translation panicked")
            })
        }));
        assert!(panicked.is_err());
    }
}
