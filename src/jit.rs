//! Where the JIT exists and where it does not: the only file of the facade that
//! knows about the `jit` feature and the target architecture (as regex-automata's
//! `meta/wrappers.rs` confines its optional engines).
//!
//! With the JIT built, this holds the compile cache: a `DashMap` from a layout's
//! `TypeId` to a once-cell. The map's shard lock is held only to find or insert the
//! cell; compilation runs inside the cell's initialisation, outside any map lock,
//! so concurrent first decodes of one type compile it exactly once (the others wait
//! for that one compile), and compiles of different types run in parallel.

use jitson_core::layout::TypeLayout;

/// Whether this build contains the JIT.
macro_rules! cfg_jit {
    ($($item:item)*) => {$(
        #[cfg(all(
            feature = "jit",
            not(miri),
            any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64", target_arch = "s390x")
        ))]
        $item
    )*};
}

macro_rules! cfg_no_jit {
    ($($item:item)*) => {$(
        #[cfg(not(all(
            feature = "jit",
            not(miri),
            any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64", target_arch = "s390x")
        )))]
        $item
    )*};
}

/// Why compiled code failed a decode.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Failure {
    /// A slow path ran out of stack: the interpreter, from the facade's shallower
    /// frame, may still decode the document.
    pub out_of_stack: bool,
}

/// What the cache reports for `stats()`.
#[derive(Clone, Debug, Default)]
pub(crate) struct CacheStats {
    pub compiled: u64,
    pub compile_time_total: std::time::Duration,
    pub compile_time_max: std::time::Duration,
    pub code_bytes: u64,
    pub failures: Vec<(String, String)>,
    pub interpreted: Vec<(String, String)>,
    /// Compiles by a background worker, each replacing the interpreter for its
    /// type.
    pub tier_switches: u64,
    /// Types waiting for a worker.
    pub compile_queue: u64,
    /// Worker threads started.
    pub compile_workers: u64,
    /// Why a worker could not be started, if one could not.
    pub worker_spawn_error: Option<String>,
    /// Time callers spent compiling, or waiting for another thread's compile.
    pub caller_wait: std::time::Duration,
    /// Struct layouts compiled with a key order learned from a document.
    pub learned_orders: u64,
    /// Recompiles for a key order that drifted.
    pub relearns: u64,
}

/// Where a type stands for tiered `Backend::Auto` decodes.
#[cfg_attr(
    not(all(
        feature = "jit",
        not(miri),
        any(
            target_arch = "x86_64",
            target_arch = "aarch64",
            target_arch = "riscv64",
            target_arch = "s390x"
        )
    )),
    allow(dead_code, reason = "without the JIT every type is `Unavailable`")
)]
pub(crate) enum Tier {
    /// Compiled: run the generated code.
    Ready(&'static Compiled),
    /// Queued or compiling on a background worker: interpret meanwhile.
    Compiling,
    /// Not compiled, and this decode is the one to learn from: interpret it,
    /// recording key orders, then drop the learner to queue the compile.
    Learn(Learner),
    /// The JIT cannot run in this process.
    Unavailable(&'static str),
    /// The type failed to compile.
    Failed(&'static str),
}

cfg_jit! {
    /// The background compile pool (only the JIT has anything to compile).
    #[path = "tier.rs"]
    mod tier;

    use std::any::TypeId;
    use std::hash::{BuildHasherDefault, Hasher};
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::{Arc, Mutex, OnceLock};

    use dashmap::DashMap;
    use jitson_core::layout::KeyOrders;
    pub(crate) use jitson_jit::{Compiled, JitState};

    /// Hashes a `TypeId`, which is already a hash: keeps its last 8 bytes.
    #[derive(Default)]
    pub(crate) struct TypeIdHasher(u64);

    impl Hasher for TypeIdHasher {
        fn finish(&self) -> u64 {
            self.0
        }
        fn write(&mut self, bytes: &[u8]) {
            for &b in bytes {
                self.0 = (self.0 << 8) | u64::from(b);
            }
        }
        fn write_u64(&mut self, n: u64) {
            self.0 ^= n;
        }
        fn write_u128(&mut self, n: u128) {
            self.0 ^= n as u64 ^ (n >> 64) as u64;
        }
    }

    /// One type's cache entry: its compiled decoder once there is one (or why there
    /// is none), whether a background compile was queued for it, and the state of
    /// its key-order speculation (see [`check_drift`]).
    struct Entry {
        done: OnceLock<Result<&'static Compiled, String>>,
        queued: AtomicBool,
        /// Keys that missed their struct's speculation, counted by the generated
        /// code (leaked like the code: entries live as long as the process).
        misses: &'static AtomicU64,
        /// JIT decodes of the background tier, counted in steps of
        /// [`DRIFT_CHECK_EVERY`] per thread.
        decodes: AtomicU64,
        /// Set once the misses say the documents' key order drifted from the
        /// compiled one; then the next decode re-learns it.
        relearn: AtomicBool,
        /// The decoder compiled for the re-learned order (at most one per type).
        relearned: OnceLock<Result<&'static Compiled, String>>,
    }

    impl Default for Entry {
        fn default() -> Self {
            Entry {
                done: OnceLock::new(),
                queued: AtomicBool::new(false),
                misses: Box::leak(Box::new(AtomicU64::new(0))),
                decodes: AtomicU64::new(0),
                relearn: AtomicBool::new(false),
                relearned: OnceLock::new(),
            }
        }
    }

    impl Entry {
        /// The decoder to run: the re-learned one once it exists.
        fn current(&self) -> Option<&Result<&'static Compiled, String>> {
            match self.relearned.get() {
                Some(relearned @ Ok(_)) => Some(relearned),
                _ => self.done.get(),
            }
        }
    }

    /// How often (in JIT decodes per thread) the background tier checks whether
    /// documents' key order drifted from the compiled speculation.
    const DRIFT_CHECK_EVERY: u32 = 1024;

    /// Misses per decode, averaged since the compile, above which the key order
    /// counts as drifted (a document in the compiled order misses only on unknown
    /// keys and absent fields).
    const DRIFT_MISSES_PER_DECODE: u64 = 4;

    type Slot = Arc<Entry>;

    fn cache() -> &'static DashMap<TypeId, Slot, BuildHasherDefault<TypeIdHasher>> {
        static CACHE: OnceLock<DashMap<TypeId, Slot, BuildHasherDefault<TypeIdHasher>>> = OnceLock::new();
        CACHE.get_or_init(DashMap::default)
    }

    fn stats_cell() -> &'static Mutex<CacheStats> {
        static STATS: OnceLock<Mutex<CacheStats>> = OnceLock::new();
        STATS.get_or_init(Default::default)
    }

    /// Whether the JIT can run in this process: probed once, by compiling and
    /// calling a trivial decoder (the OS may refuse executable memory).
    /// Whether `JITSON_PERF_MAP` is set to a value other than empty or `0`; read
    /// once.
    fn perf_map_enabled() -> bool {
        static ON: OnceLock<bool> = OnceLock::new();
        *ON.get_or_init(|| std::env::var_os("JITSON_PERF_MAP").is_some_and(|v| !v.is_empty() && v != "0"))
    }

    /// The probe's result, once there is one.
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();

    pub(crate) fn available() -> Result<(), &'static str> {
        match PROBE.get_or_init(|| jitson_jit::probe(None).map_err(|e| e.to_string())) {
            Ok(()) => Ok(()),
            Err(e) => Err(leak_reason(e)),
        }
    }

    fn leak_reason(e: &str) -> &'static str {
        static REASONS: OnceLock<Mutex<Vec<&'static str>>> = OnceLock::new();
        let mut reasons = REASONS.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
        if let Some(r) = reasons.iter().find(|r| **r == e) {
            return r;
        }
        let r: &'static str = Box::leak(e.to_owned().into_boxed_str());
        reasons.push(r);
        r
    }

    /// The last decoder a thread used, and how many more of its decodes until the
    /// next drift check.
    type Last = Option<(TypeId, &'static Compiled, u32)>;

    thread_local! {
        /// The last decoder this thread used: most programs decode one type in a
        /// loop, and this spares them the map lookup.
        static LAST: std::cell::Cell<Last> = const { std::cell::Cell::new(None) };
    }

    fn last() -> Last {
        // `try_with`: a decode may run from another thread-local's destructor.
        LAST.try_with(std::cell::Cell::get).ok().flatten()
    }

    fn set_last(last: Last) {
        let _ = LAST.try_with(|cell| cell.set(last));
    }

    /// The compiled decoder for `layout`, compiling it on first use.
    pub(crate) fn compiled(layout: &'static TypeLayout) -> Result<&'static Compiled, &'static str> {
        let id = (layout.type_id)();
        if let Some((last_id, compiled, _)) = last()
            && last_id == id
        {
            return Ok(compiled);
        }
        let result = compiled_slow(layout, id);
        if let Ok(compiled) = result {
            set_last(Some((id, compiled, DRIFT_CHECK_EVERY)));
        }
        result
    }

    fn compiled_slow(layout: &'static TypeLayout, id: TypeId) -> Result<&'static Compiled, &'static str> {
        // A read lock on one shard, no allocation.
        if let Some(slot) = cache().get(&id)
            && let Some(done) = slot.done.get()
        {
            return done.as_ref().copied().map_err(|e| leak_reason(e));
        }
        let slot: Slot = cache().entry(id).or_default().clone();
        compile_into(&slot, layout, Compiler::Caller, KeyOrders::default())
    }

    /// Compiles `layout`, speculating on `key_orders` and counting misses into
    /// `misses`; records the outcome in the stats.
    fn compile_layout(
        layout: &'static TypeLayout,
        compiler: Compiler,
        key_orders: KeyOrders,
        misses: &'static AtomicU64,
    ) -> Result<&'static Compiled, String> {
        let learned = key_orders.len() as u64;
        let options = jitson_jit::CompileOptions {
            // Empty means unset; a directory that cannot be written gets no
            // dump (a best-effort debugging aid: compiles never fail for it).
            dump_dir: std::env::var_os("JITSON_DUMP_IR")
                .filter(|dir| !dir.is_empty())
                .map(Into::into),
            memory_provider: None,
            perf_map: perf_map_enabled(),
            key_orders,
            miss_counter: Some(misses),
        };
        let result = jitson_jit::compile(layout, options);
        let mut stats = stats_cell().lock().unwrap_or_else(|p| p.into_inner());
        match result {
            Ok(compiled) => {
                stats.compiled += 1;
                match compiler {
                    Compiler::Caller => {}
                    Compiler::Background => stats.tier_switches += 1,
                    Compiler::Relearn => stats.relearns += 1,
                }
                stats.learned_orders += learned;
                stats.compile_time_total += compiled.compile_time;
                stats.compile_time_max = stats.compile_time_max.max(compiled.compile_time);
                stats.code_bytes += compiled.code_bytes as u64;
                for (ty, why) in &compiled.interpreted {
                    let entry = ((*ty).to_owned(), (*why).to_owned());
                    if !stats.interpreted.contains(&entry) {
                        stats.interpreted.push(entry);
                    }
                }
                Ok(&*Box::leak(Box::new(compiled)))
            }
            Err(e) => {
                stats.failures.push((layout.expecting.to_owned(), e.to_string()));
                Err(e.to_string())
            }
        }
    }

    /// Who compiles: the caller's thread, or a background worker (a tier switch,
    /// or a recompile for a key order that drifted).
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Compiler {
        Caller,
        Background,
        Relearn,
    }

    /// Fills `slot` with `layout`'s compiled decoder unless it is filled; waits if
    /// another thread is compiling it. Returns the slot's content.
    fn compile_into(
        slot: &Entry,
        layout: &'static TypeLayout,
        compiler: Compiler,
        key_orders: KeyOrders,
    ) -> Result<&'static Compiled, &'static str> {
        let started = std::time::Instant::now();
        let was_ready = slot.done.get().is_some();
        // The shard lock is released: compile inside the once-cell only.
        let done = if compiler == Compiler::Relearn {
            slot.relearned.get_or_init(|| compile_layout(layout, compiler, key_orders, slot.misses))
        } else {
            slot.done.get_or_init(|| compile_layout(layout, compiler, key_orders, slot.misses))
        };
        if compiler == Compiler::Caller && !was_ready {
            stats_cell().lock().unwrap_or_else(|p| p.into_inner()).caller_wait += started.elapsed();
        }
        done.as_ref().copied().map_err(|e| leak_reason(e))
    }

    /// The compiled decoder for `layout` if it is ready; otherwise queues its
    /// compile on a background worker (once per type) and returns at once. Never
    /// compiles, probes or waits on the calling thread. Every
    /// [`DRIFT_CHECK_EVERY`] decodes on a thread it also checks the type's key
    /// order for drift ([`check_drift`]).
    pub(crate) fn compiled_or_queue(layout: &'static TypeLayout) -> Tier {
        let id = (layout.type_id)();
        if let Some((last_id, compiled, countdown)) = last()
            && last_id == id
        {
            if countdown > 1 {
                set_last(Some((id, compiled, countdown - 1)));
                return Tier::Ready(compiled);
            }
            set_last(None);
            if let Some(slot) = cache().get(&id).map(|slot| slot.clone())
                && let Some(tier) = check_drift(slot, layout)
            {
                return tier;
            }
        }
        // Whether this process can run generated code is probed once, by the first
        // background job; until then every type is still compiling.
        if let Some(Err(why)) = PROBE.get() {
            return Tier::Unavailable(leak_reason(why));
        }
        let slot: Slot = match cache().get(&id) {
            Some(slot) => match slot.current() {
                Some(Ok(compiled)) => {
                    let compiled = *compiled;
                    set_last(Some((id, compiled, DRIFT_CHECK_EVERY)));
                    return Tier::Ready(compiled);
                }
                Some(Err(why)) => return Tier::Failed(leak_reason(why)),
                None => slot.clone(),
            },
            None => cache().entry(id).or_default().clone(),
        };
        if !slot.queued.swap(true, Ordering::AcqRel) {
            return Tier::Learn(Learner {
                slot,
                layout,
                orders: KeyOrders::default(),
                compiler: Compiler::Background,
            });
        }
        Tier::Compiling
    }

    /// After [`DRIFT_CHECK_EVERY`] more decodes of a compiled type on this
    /// thread: if its documents miss the compiled key-order speculation more than
    /// [`DRIFT_MISSES_PER_DECODE`] times per decode on average, the order they
    /// use drifted from the one learned (or declared), and this decode re-learns
    /// it (the interpreter records its order; a worker compiles again with it).
    /// Once per type, so documents in no stable order cannot make it recompile
    /// forever. `None`: carry on with the current decoder.
    fn check_drift(slot: Slot, layout: &'static TypeLayout) -> Option<Tier> {
        let decodes = slot
            .decodes
            .fetch_add(u64::from(DRIFT_CHECK_EVERY), Ordering::Relaxed)
            + u64::from(DRIFT_CHECK_EVERY);
        let misses = slot.misses.load(Ordering::Relaxed);
        let drifted = misses > DRIFT_MISSES_PER_DECODE * decodes;
        if drifted && slot.relearned.get().is_none() && !slot.relearn.swap(true, Ordering::AcqRel) {
            return Some(Tier::Learn(Learner {
                slot,
                layout,
                orders: KeyOrders::default(),
                compiler: Compiler::Relearn,
            }));
        }
        None
    }

    /// A decode of a type in the background tier that the interpreter runs while
    /// recording the document's key orders into [`Learner::orders`]: the type's
    /// first decode, or the one after its key order drifted. Dropping the learner
    /// queues the compile with those orders (also when that decode fails or
    /// unwinds), so the compiled code speculates on the order documents use.
    pub(crate) struct Learner {
        slot: Slot,
        layout: &'static TypeLayout,
        orders: KeyOrders,
        compiler: Compiler,
    }

    impl Learner {
        pub(crate) fn orders(&mut self) -> &mut KeyOrders {
            &mut self.orders
        }
    }

    impl Drop for Learner {
        fn drop(&mut self) {
            let (slot, layout, compiler) = (self.slot.clone(), self.layout, self.compiler);
            let orders = std::mem::take(&mut self.orders);
            tier::submit(Box::new(move || {
                if available().is_ok() {
                    let _ = compile_into(&slot, layout, compiler, orders);
                }
            }));
        }
    }

    pub(crate) fn cache_stats() -> CacheStats {
        let mut stats = stats_cell().lock().unwrap_or_else(|p| p.into_inner()).clone();
        let pool = tier::stats();
        stats.compile_queue = pool.queued as u64;
        stats.compile_workers = pool.workers as u64;
        stats.worker_spawn_error = pool.spawn_error;
        stats
    }

    /// Runs a compiled decoder over `input` into `dst`; returns the position after
    /// the value, or the failure (nothing is live at `dst` then).
    ///
    /// # Safety
    /// `compiled` was compiled for the type `dst` has room for.
    pub(crate) unsafe fn run(
        compiled: &Compiled,
        input: &[u8],
        max_depth: u32,
        validate_utf8: bool,
        dst: *mut u8,
    ) -> Result<usize, Failure> {
        let mut state = JitState::new(input, max_depth, validate_utf8);
        // SAFETY: forwarded from the caller; `state` borrows `input` for the call.
        if unsafe { compiled.call(&mut state, dst) } {
            Ok(state.pos)
        } else {
            Err(Failure { out_of_stack: state.stack_exhausted != 0 })
        }
    }
}

cfg_no_jit! {
    /// Never constructed: there is no JIT in this build.
    pub(crate) enum Compiled {}

    pub(crate) fn available() -> Result<(), &'static str> {
        Err("this build has no JIT (the `jit` feature is off, or Cranelift does not support this target)")
    }

    pub(crate) fn compiled(_layout: &'static TypeLayout) -> Result<&'static Compiled, &'static str> {
        Err("this build has no JIT")
    }

    pub(crate) fn cache_stats() -> CacheStats {
        CacheStats::default()
    }

    pub(crate) fn compiled_or_queue(_layout: &'static TypeLayout) -> Tier {
        Tier::Unavailable("this build has no JIT")
    }

    /// Never constructed: there is no JIT in this build.
    pub(crate) enum Learner {}

    impl Learner {
        pub(crate) fn orders(&mut self) -> &mut jitson_core::layout::KeyOrders {
            match *self {}
        }
    }

    /// # Safety
    /// Never callable: `Compiled` has no values.
    pub(crate) unsafe fn run(compiled: &Compiled, _: &[u8], _: u32, _: bool, _: *mut u8) -> Result<usize, Failure> {
        match *compiled {}
    }
}
