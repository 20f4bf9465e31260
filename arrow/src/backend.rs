//! The JIT backend of a plan: its compiled record function.

use arrow_schema::ArrowError;
use jitson_core::column::Column;

use crate::plan::Plan;
use crate::reader::Backend;

/// A plan's compiled code. Owned by the plan (dropped before its layouts).
pub(crate) struct Jit {
    compiled: jitson_jit::Compiled,
}

impl Jit {
    /// Compiles `plan` when `backend` asks for the JIT and the JIT can run:
    /// `None` for the interpreter, an error only for [`Backend::Jit`] where the
    /// JIT cannot run.
    /// `key_orders`: the order of keys to speculate on, per struct layout of
    /// the plan ([`Plan::learn_key_orders`]).
    pub fn for_plan(
        plan: &Plan,
        backend: Backend,
        key_orders: jitson_core::layout::KeyOrders,
    ) -> Result<Option<Jit>, ArrowError> {
        // `JITSON_DISABLE_JIT` switches the JIT off for the whole process: `Auto`
        // uses the interpreter, and for `Jit` the compile below refuses.
        let wanted = match backend {
            Backend::Interpreter => false,
            Backend::Auto => !jitson_jit::disabled_by_env(),
            Backend::Jit => true,
        };
        if !wanted {
            return Ok(None);
        }
        let options = jitson_jit::CompileOptions {
            // As for derived types: `JITSON_PERF_MAP=1` names generated code
            // for `perf` (docs/benchmarks.md, "Profiling").
            perf_map: std::env::var_os("JITSON_PERF_MAP").is_some_and(|v| v == "1"),
            // `JITSON_DUMP_IR=<dir>`: each function's IR and machine code.
            dump_dir: std::env::var_os("JITSON_DUMP_IR").map(Into::into),
            key_orders,
            ..Default::default()
        };
        let compiled =
            jitson_jit::probe(None).and_then(|()| jitson_jit::compile(plan.root, options));
        let counters = &crate::stats::COUNTERS;
        match compiled {
            Ok(compiled) => {
                counters
                    .readers_compiled
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                counters.reader_compile_nanos.fetch_add(
                    u64::try_from(compiled.compile_time.as_nanos()).unwrap_or(u64::MAX),
                    std::sync::atomic::Ordering::Relaxed,
                );
                Ok(Some(Jit { compiled }))
            }
            Err(e) if backend == Backend::Auto => {
                counters.fell_back(&counters.reader_fallbacks, e.to_string());
                Ok(None)
            }
            Err(e) => Err(ArrowError::ComputeError(format!("JIT unavailable: {e}"))),
        }
    }

    /// Runs the compiled record function at `*pos`; `true` (and `*pos` past the
    /// record) on success, `false` with the columns unchanged otherwise.
    pub fn decode(&self, input: &[u8], pos: &mut usize, dst: *mut u8) -> bool {
        let mut state = jitson_jit::JitState::new(input, 128, true);
        state.pos = *pos;
        // SAFETY: the code was compiled for the plan's root layout, and `dst` is
        // the plan's column array (`Plan::decode_record`); `state` borrows `input`.
        let ok = unsafe { self.compiled.call(&mut state, dst) };
        if ok {
            *pos = state.pos;
        }
        ok
    }

    /// Bytes of machine code.
    pub fn code_bytes(&self) -> usize {
        self.compiled.code_bytes
    }

    /// Time the compile took.
    pub fn compile_time(&self) -> std::time::Duration {
        self.compiled.compile_time
    }
}

const _: () = assert!(size_of::<Column>() > 0);
