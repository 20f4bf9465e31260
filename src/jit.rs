//! Where the JIT exists and where it does not: the only file of the facade that
//! knows about the `jit` feature and the target architecture (as regex-automata's
//! `meta/wrappers.rs` confines its optional engines).
//!
//! With the JIT built, this holds the compile cache: a `DashMap` from a layout's
//! `TypeId` to a once-cell. The map's shard lock is held only to find or insert the
//! cell; compilation runs inside the cell's initialisation, outside any map lock,
//! so concurrent first decodes of one type compile it exactly once (the others wait
//! for that one compile), and compiles of different types run in parallel.
//!
//! What this cache compiles is kept for the life of the process (leaked
//! `&'static Compiled`s, at most a few per type: baseline, relearned key
//! orders, the optimising tier's promotion, encoders per options), so no
//! pointer into it can dangle. That is bounded by the program's derived
//! types, not by its input: code compiled for run-time layouts
//! (jitson-arrow's schemas) is freed with its last user instead, and its
//! pages go back to the OS (issue 39; `jit/src/memory.rs`).

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
    /// Optimising compiles of hot types.
    pub promotions: u64,
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
    use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Ordering};
    use std::sync::{Arc, Mutex, OnceLock};

    use dashmap::DashMap;
    use jitson_core::layout::KeyOrders;
    pub(crate) use jitson_jit::{Compiled, JitState};
    use jitson_jit::StructLowering;

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

    /// One type's cache entry: its compiled decoders (or why there is none),
    /// whether a background compile was queued for it, the state of its
    /// key-order speculation (see [`check_drift`]) and how much it has decoded
    /// (see [`promote`]).
    struct Entry {
        /// The first compile: the baseline tier (`StructLowering::Table`).
        done: OnceLock<Result<&'static Compiled, String>>,
        queued: AtomicBool,
        /// JIT decodes of the background tier, added per thread every
        /// [`DRIFT_CHECK_EVERY`] decodes or [`FLUSH_BYTES`]; from zero again
        /// when a new decoder is installed. (Each decoder counts the keys that
        /// missed its speculation in its own counter: `Compiled::miss_counter`.)
        decodes: AtomicU64,
        /// Input bytes decoded by compiled code, added likewise.
        bytes: AtomicU64,
        /// Set once the misses say the documents' key order drifted from the
        /// compiled one; then the next decode re-learns it, and the flag is
        /// cleared when the decoder for the new order is installed.
        relearn: AtomicBool,
        /// Relearns started ([`MAX_RELEARNS`] at most per type).
        relearns: AtomicU32,
        /// The current decoder's misses and decodes at the last drift check:
        /// each check judges the window since the one before.
        checked_misses: AtomicU64,
        checked_decodes: AtomicU64,
        /// Set once the optimising compile was queued.
        promoting: AtomicBool,
        /// The optimising tier (`StructLowering::Unrolled`): compiled once the
        /// type is hot ([`PROMOTE_BYTES`]), or first with [`Want::Optimized`].
        optimized: OnceLock<Result<&'static Compiled, String>>,
        /// Every decoder installed after `done` (relearned ones and
        /// `optimized`): never freed, since a thread may still run one it took
        /// before it was replaced, and held here so that they stay reachable.
        /// At most [`MAX_RELEARNS`] + 1.
        installed: Mutex<Vec<&'static Compiled>>,
        /// The decoder compiled last of the relearned ones and `optimized` (null until
        /// one is): it replaces `done`. Compiled decoders are leaked, so the
        /// pointer stays valid.
        latest: AtomicPtr<Compiled>,
    }

    impl Default for Entry {
        fn default() -> Self {
            Entry {
                done: OnceLock::new(),
                queued: AtomicBool::new(false),
                decodes: AtomicU64::new(0),
                bytes: AtomicU64::new(0),
                relearn: AtomicBool::new(false),
                relearns: AtomicU32::new(0),
                installed: Mutex::new(Vec::new()),
                checked_misses: AtomicU64::new(0),
                checked_decodes: AtomicU64::new(0),
                promoting: AtomicBool::new(false),
                optimized: OnceLock::new(),
                latest: AtomicPtr::new(std::ptr::null_mut()),
            }
        }
    }

    impl Entry {
        /// The decoder to run: the last one compiled.
        fn current(&self) -> Option<Result<&'static Compiled, &'static str>> {
            let latest = self.latest.load(Ordering::Acquire);
            if !latest.is_null() {
                // SAFETY: `latest` only ever holds leaked `&'static Compiled`s.
                return Some(Ok(unsafe { &*latest }));
            }
            self.done.get().map(|done| done.as_ref().copied().map_err(|e| leak_reason(e)))
        }
    }

    /// Which compiled tier a caller asks for.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub(crate) enum Want {
        /// Whatever is compiled, else the baseline tier (cheap to compile);
        /// promoted to the optimising tier in the background once hot.
        Baseline,
        /// The optimising tier (`Tiering::Wait`: every decode on the final code).
        Optimized,
    }

    /// How often (in JIT decodes per thread) the background tier checks whether
    /// documents' key order drifted from the compiled speculation.
    const DRIFT_CHECK_EVERY: u32 = 1024;

    /// Input bytes a thread decodes before it adds them to its type's count
    /// (whichever of this and [`DRIFT_CHECK_EVERY`] comes first).
    const FLUSH_BYTES: u64 = 1 << 20;

    /// Input bytes a type decodes on the baseline tier before the optimising
    /// tier is compiled for it. At the baseline's 280–820 MB/s (docs/benchmarks.md)
    /// that is 40–120 ms of decoding, more than the optimising compile of any
    /// model measured (Order 1.1 ms, twitter 10.5 ms): a type is promoted once it
    /// has spent more time decoding than its promotion will cost, and the
    /// unrolled code is 10–15 % faster on struct-heavy documents.
    const PROMOTE_BYTES: u64 = 32 << 20;

    /// Misses per decode, averaged over a check window, above which (and above
    /// [`DRIFT_FACTOR`] times the learning document's own) the key order counts
    /// as drifted (a document in the compiled order misses only where a field
    /// is absent; unknown keys are not counted).
    const DRIFT_MISSES_PER_DECODE: u64 = 4;

    /// Documents in the compiled order still miss where a field is absent
    /// (twitter.json: hundreds of keys per document), so drift is a rate above
    /// this many times the misses of the document the order was learned from
    /// (`KeyOrders::expected_misses`), plus [`DRIFT_MISSES_PER_DECODE`]; a
    /// changed order misses at almost every key.
    const DRIFT_FACTOR: u64 = 2;

    /// Relearns per type at most. Each compiles the type again (and keeps its
    /// code: compiled decoders are never freed), so documents in no stable
    /// order cannot make it recompile forever; two orders that alternate are
    /// both covered after one or two (the current order and the previous one
    /// are both speculated on).
    const MAX_RELEARNS: u32 = 8;

    /// `JITSON_STRUCTS=table` or `=unrolled`: every compile lowers structs that
    /// way and nothing is promoted (for tests of each lowering, and for
    /// measuring one against the other); read once.
    fn forced_lowering() -> Option<StructLowering> {
        static FORCED: OnceLock<Option<StructLowering>> = OnceLock::new();
        *FORCED.get_or_init(|| match std::env::var("JITSON_STRUCTS").as_deref() {
            Ok("table") => Some(StructLowering::Table),
            Ok("unrolled") => Some(StructLowering::Unrolled),
            _ => None,
        })
    }

    type Slot = Arc<Entry>;

    fn cache() -> &'static DashMap<TypeId, Slot, BuildHasherDefault<TypeIdHasher>> {
        static CACHE: OnceLock<DashMap<TypeId, Slot, BuildHasherDefault<TypeIdHasher>>> = OnceLock::new();
        // A fixed shard count: dashmap's default derives it from
        // `available_parallelism`, which reads cgroup files (~50 µs here) on the
        // first decode's path. Sixteen shards suit the few threads that insert
        // (each type once); reads take a shard's read lock only on a thread's
        // change of type.
        CACHE.get_or_init(|| DashMap::with_hasher_and_shard_amount(Default::default(), 16))
    }

    fn stats_cell() -> &'static Mutex<CacheStats> {
        static STATS: OnceLock<Mutex<CacheStats>> = OnceLock::new();
        STATS.get_or_init(Default::default)
    }

    /// Whether `JITSON_PERF_MAP` is set to a value other than empty or `0`; read
    /// once.
    fn perf_map_enabled() -> bool {
        static ON: OnceLock<bool> = OnceLock::new();
        *ON.get_or_init(|| std::env::var_os("JITSON_PERF_MAP").is_some_and(|v| !v.is_empty() && v != "0"))
    }

    /// The probe's result, once there is one.
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();

    /// Whether the JIT can run in this process: probed once, by compiling and
    /// calling a trivial decoder (the OS may refuse executable memory).
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

    /// The last decoder a thread used, and what it decoded since it last
    /// reported to the type's entry.
    #[derive(Clone, Copy)]
    struct Last {
        /// The layout last decoded (compared by address first: the same call
        /// site passes the same `T::LAYOUT`, and the layouts reaching this cache
        /// are all `'static`, never freed, so an equal address is the same
        /// layout) and its type.
        layout: &'static TypeLayout,
        id: TypeId,
        compiled: &'static Compiled,
        decodes: u32,
        bytes: u64,
    }

    thread_local! {
        /// The last decoder this thread used: most programs decode one type in a
        /// loop, and this spares them the map lookup.
        static LAST: std::cell::Cell<Option<Last>> = const { std::cell::Cell::new(None) };
        /// Reports what `LAST` has not reported yet when the thread exits (its
        /// destructor is registered by the thread's first [`remember`]), so
        /// threads that each decode a little still add up to a promotion.
        static FLUSH_AT_EXIT: FlushAtExit = const { FlushAtExit };
    }

    struct FlushAtExit;

    impl Drop for FlushAtExit {
        fn drop(&mut self) {
            // Counts only: a thread-local destructor must not start a compile
            // (that may spawn a worker); the next `remember` of the type, on
            // any thread, promotes it.
            flush_last(false);
        }
    }

    /// Adds this thread's unreported counts to their type's entry and clears
    /// `LAST`; promotes the type if that makes it hot and `promote` allows.
    fn flush_last(promote: bool) {
        let Some(last) = last() else {
            return;
        };
        set_last(None);
        report(last.id, last.layout, u64::from(last.decodes), last.bytes, promote);
    }

    #[inline]
    fn last() -> Option<Last> {
        // `try_with`: a decode may run from another thread-local's destructor.
        LAST.try_with(std::cell::Cell::get).ok().flatten()
    }

    #[inline]
    fn set_last(last: Option<Last>) {
        let _ = LAST.try_with(|cell| cell.set(last));
    }

    /// Counts a decode of `len` bytes on this thread's last decoder; `Some` with
    /// the counts to report once [`DRIFT_CHECK_EVERY`] decodes or [`FLUSH_BYTES`]
    /// have accumulated (the thread then looks its type up again).
    fn count_decode(last: Last, len: usize) -> Option<(u64, u64)> {
        match counted(last, len) {
            Ok(next) => {
                set_last(Some(next));
                None
            }
            Err(counts) => {
                set_last(None);
                Some(counts)
            }
        }
    }

    /// `last` with one more decode of `len` bytes counted, or, once that makes
    /// [`DRIFT_CHECK_EVERY`] decodes or [`FLUSH_BYTES`], the counts to report.
    #[inline]
    fn counted(last: Last, len: usize) -> Result<Last, (u64, u64)> {
        let decodes = last.decodes + 1;
        let bytes = last.bytes.saturating_add(len as u64);
        if decodes < DRIFT_CHECK_EVERY && bytes < FLUSH_BYTES {
            Ok(Last { decodes, bytes, ..last })
        } else {
            Err((u64::from(decodes), bytes))
        }
    }

    /// Remembers `compiled` as this thread's decoder of `slot`'s type `id`, with
    /// this decode counted, after reporting what the thread's previous decoder
    /// had not (a thread alternating between types loses no counts), and
    /// promotes the type if it is hot (counts reported by exiting threads).
    fn remember(
        slot: &Slot,
        layout: &'static TypeLayout,
        id: TypeId,
        compiled: &'static Compiled,
        len: usize,
    ) {
        flush_last(true);
        promote_if_hot(slot, layout);
        let _ = FLUSH_AT_EXIT.try_with(|_| {});
        set_last(Some(Last { layout, id, compiled, decodes: 1, bytes: len as u64 }));
    }

    /// This thread's last decoder if it decoded `layout`'s type.
    #[inline]
    fn last_for(layout: &'static TypeLayout) -> Option<Last> {
        let last = last()?;
        (std::ptr::eq(last.layout, layout) || last.id == (layout.type_id)()).then_some(last)
    }

    /// The decode fast path: this thread's last decoder, if it decoded
    /// `layout`'s type (in the optimising tier when `final_only`) and this
    /// decode of `len` bytes is not the one that reports its counts; the decode
    /// is then counted. `None`: ask [`compiled`] or [`compiled_or_queue`], which
    /// look again and count it.
    #[inline]
    pub(crate) fn last_ready(
        layout: &'static TypeLayout,
        final_only: bool,
        len: usize,
    ) -> Option<&'static Compiled> {
        let last = last_for(layout)?;
        if final_only && !is_final(last.compiled) {
            return None;
        }
        // Over the threshold, LAST stays as it is: the full path counts this
        // decode and reports.
        let next = counted(last, len).ok()?;
        set_last(Some(next));
        Some(last.compiled)
    }

    /// The compiled decoder for `layout`, compiling it on the calling thread on
    /// first use (the tier `want` says); `len` is the input's length, counted
    /// towards promotion.
    pub(crate) fn compiled(
        layout: &'static TypeLayout,
        want: Want,
        len: usize,
    ) -> Result<&'static Compiled, &'static str> {
        if let Some(last) = last_for(layout)
            && (want == Want::Baseline || is_final(last.compiled))
        {
            match count_decode(last, len) {
                None => return Ok(last.compiled),
                Some((decodes, bytes)) => {
                    report(last.id, layout, decodes, bytes, true);
                }
            }
        }
        let id = (layout.type_id)();
        let (slot, result) = compiled_slow(layout, id, want);
        if let Ok(compiled) = result {
            remember(&slot, layout, id, compiled, len);
        }
        result
    }

    /// Whether `compiled` is the optimising tier, or a forced lowering's.
    #[inline]
    fn is_final(compiled: &Compiled) -> bool {
        forced_lowering().is_some() || compiled.structs == StructLowering::Unrolled
    }

    /// The entry of type `id`, and its decoder for `want` (compiled here if
    /// there is none).
    fn compiled_slow(
        layout: &'static TypeLayout,
        id: TypeId,
        want: Want,
    ) -> (Slot, Result<&'static Compiled, &'static str>) {
        // A read lock on one shard, no allocation.
        let slot: Slot = match cache().get(&id) {
            Some(slot) => match slot.current() {
                Some(Ok(compiled)) if want == Want::Baseline || is_final(compiled) => {
                    return (slot.clone(), Ok(compiled));
                }
                Some(Err(why)) => return (slot.clone(), Err(why)),
                _ => slot.clone(),
            },
            None => cache().entry(id).or_default().clone(),
        };
        let version = match want {
            Want::Optimized if forced_lowering().is_none() => Version::Optimized,
            _ => Version::First,
        };
        let result = compile_into(&slot, layout, Compiler::Caller, version, None);
        (slot, result)
    }


    /// Queues the optimising compile of `slot`'s type once it is hot:
    /// [`PROMOTE_BYTES`] decoded by compiled code, unless a lowering is forced.
    /// Once per type.
    fn promote_if_hot(slot: &Slot, layout: &'static TypeLayout) {
        if slot.bytes.load(Ordering::Relaxed) >= PROMOTE_BYTES
            && forced_lowering().is_none()
            && slot.optimized.get().is_none()
            && !slot.promoting.swap(true, Ordering::AcqRel)
        {
            promote(slot.clone(), layout);
        }
    }

    /// Adds a thread's counts to the entry of type `id` (`layout`'s), then, if
    /// `promote`, [`promote_if_hot`]; returns the entry.
    fn report(
        id: TypeId,
        layout: &'static TypeLayout,
        decodes: u64,
        bytes: u64,
        promote: bool,
    ) -> Option<Slot> {
        let slot = cache().get(&id).map(|slot| slot.clone())?;
        slot.decodes.fetch_add(decodes, Ordering::Relaxed);
        slot.bytes.fetch_add(bytes, Ordering::Relaxed);
        if promote {
            promote_if_hot(&slot, layout);
        }
        Some(slot)
    }

    /// Queues the compile of `layout`'s optimising tier on a background worker,
    /// speculating on the key orders of the decoder it replaces.
    fn promote(slot: Slot, layout: &'static TypeLayout) {
        tier::submit(Box::new(move || {
            let _ = compile_into(&slot, layout, Compiler::Promote, Version::Optimized, None);
        }));
    }

    /// Compiles `layout` with `structs`, speculating on `key_orders` and counting
    /// misses into a counter of its own (leaked like the code: at most 10
    /// compiles per type); records the outcome in the stats (the switch it
    /// makes is counted by [`count_switch`] once its code is served).
    fn compile_layout(
        layout: &'static TypeLayout,
        structs: StructLowering,
        key_orders: KeyOrders,
    ) -> Result<&'static Compiled, String> {
        let misses: &'static AtomicU64 = Box::leak(Box::new(AtomicU64::new(0)));
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
            structs,
            // Both tiers: the single-pass allocator's baseline code decoded
            // 1.1-1.25x the interpreter's speed, canada 0.85x (Round 13).
            register_allocator: jitson_jit::RegisterAllocator::Backtracking,
        };
        let result = jitson_jit::compile(layout, options);
        let mut stats = stats_cell().lock().unwrap_or_else(|p| p.into_inner());
        match result {
            Ok(compiled) => {
                stats.compiled += 1;
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

    /// Counts the switch `compiler`'s compile made, once its decoder is the one
    /// [`Entry::current`] serves: a caller that sees the counter move and
    /// decodes again runs the new code (tests/tiering.rs relies on it).
    fn count_switch(compiler: Compiler) {
        let mut stats = stats_cell().lock().unwrap_or_else(|p| p.into_inner());
        match compiler {
            Compiler::Caller => {}
            Compiler::Background => stats.tier_switches += 1,
            Compiler::Relearn => stats.relearns += 1,
            Compiler::Promote => stats.promotions += 1,
        }
    }

    /// Who compiles: the caller's thread, or a background worker (a tier switch,
    /// a recompile for a key order that drifted, or a promotion).
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Compiler {
        Caller,
        Background,
        Relearn,
        Promote,
    }

    /// Which of an entry's decoders a compile fills.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Version {
        /// `done`: the baseline tier (or the forced lowering).
        First,
        /// `optimized`: the optimising tier, on the current key orders.
        Optimized,
    }

    /// Fills `version` of `slot` with a decoder for `layout` unless it is
    /// filled; waits if another thread is compiling it. Speculates on
    /// `key_orders`, or (`None`) on those of the decoder it replaces. Returns
    /// the version's content.
    fn compile_into(
        slot: &Entry,
        layout: &'static TypeLayout,
        compiler: Compiler,
        version: Version,
        key_orders: Option<KeyOrders>,
    ) -> Result<&'static Compiled, &'static str> {
        let started = std::time::Instant::now();
        let cell = match version {
            Version::First => &slot.done,
            Version::Optimized => &slot.optimized,
        };
        let was_ready = cell.get().is_some();
        let mut compiled_here = false;
        // The shard lock is released: compile inside the once-cell only.
        let done = cell.get_or_init(|| {
            compiled_here = true;
            let structs = match (forced_lowering(), version) {
                (Some(forced), _) => forced,
                (None, Version::Optimized) => StructLowering::Unrolled,
                (None, Version::First) => StructLowering::Table,
            };
            let key_orders = key_orders.unwrap_or_else(|| match slot.current() {
                Some(Ok(current)) => current.key_orders.clone(),
                _ => KeyOrders::default(),
            });
            let result = compile_layout(layout, structs, key_orders);
            if version != Version::First
                && let Ok(compiled) = result
            {
                install(slot, compiled);
            }
            result
        });
        // `done` is served from here on (`install` served `optimized` already).
        if compiled_here && done.is_ok() {
            count_switch(compiler);
        }
        if compiler == Compiler::Caller && !was_ready {
            stats_cell().lock().unwrap_or_else(|p| p.into_inner()).caller_wait += started.elapsed();
        }
        done.as_ref().copied().map_err(|e| leak_reason(e))
    }

    /// Compiles `layout` again for the key orders a relearning decode
    /// recorded (`learned`, with the current decoder's orders kept as the
    /// previous ones: `KeyOrders::followed_by`), in the current decoder's
    /// tier, and installs it (its misses and decodes are counted from zero), and
    /// a later drift may relearn again.
    fn relearn(slot: &Entry, layout: &'static TypeLayout, learned: KeyOrders) {
        let current = match slot.current() {
            Some(Ok(current)) => Some(current),
            _ => None,
        };
        let structs = match (forced_lowering(), current) {
            (Some(forced), _) => forced,
            (None, Some(current)) => current.structs,
            (None, None) => StructLowering::Table,
        };
        // The document learned from may be in an order already compiled (two
        // producers interleaved): nothing to compile; the next check learns
        // from another document, and this one does not count.
        if let Some(current) = current
            && !learned.differs_from(&current.key_orders)
        {
            slot.relearns.fetch_sub(1, Ordering::Relaxed);
            slot.relearn.store(false, Ordering::Release);
            return;
        }
        let orders = match current {
            Some(current) => learned.followed_by(&current.key_orders),
            None => learned,
        };
        if let Ok(compiled) = compile_layout(layout, structs, orders) {
            install(slot, compiled);
            count_switch(Compiler::Relearn);
        }
        slot.relearn.store(false, Ordering::Release);
    }

    /// Makes `compiled` the decoder `slot` serves, unless that would replace
    /// optimising-tier code with baseline code: a relearn compiled in the
    /// baseline tier may finish after a promotion (or a `Tiering::Wait`
    /// caller's compile) did.
    fn install(slot: &Entry, compiled: &'static Compiled) {
        slot.installed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(compiled);
        let new = std::ptr::from_ref(compiled).cast_mut();
        let mut current = slot.latest.load(Ordering::Acquire);
        loop {
            // SAFETY: `latest` only ever holds leaked `&'static Compiled`s.
            let downgrade = !current.is_null()
                && unsafe { &*current }.structs == StructLowering::Unrolled
                && compiled.structs == StructLowering::Table;
            if downgrade {
                return;
            }
            match slot.latest.compare_exchange(current, new, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    // Drift is judged on the new decoder's own decodes.
                    slot.decodes.store(0, Ordering::Relaxed);
                    slot.checked_misses.store(0, Ordering::Relaxed);
                    slot.checked_decodes.store(0, Ordering::Relaxed);
                    return;
                }
                Err(now) => current = now,
            }
        }
    }

    /// The compiled decoder for `layout` if it is ready; otherwise queues its
    /// compile on a background worker (once per type) and returns at once. Never
    /// compiles, probes or waits on the calling thread. `len` is the input's
    /// length: every [`DRIFT_CHECK_EVERY`] decodes (or [`FLUSH_BYTES`]) on a
    /// thread it reports them to the type's entry, which may promote the type,
    /// and checks its key order for drift ([`check_drift`]).
    pub(crate) fn compiled_or_queue(layout: &'static TypeLayout, len: usize) -> Tier {
        if let Some(last) = last_for(layout) {
            let Some((decodes, bytes)) = count_decode(last, len) else {
                return Tier::Ready(last.compiled);
            };
            if let Some(slot) = report(last.id, layout, decodes, bytes, true)
                && let Some(tier) = check_drift(slot, layout, last.compiled)
            {
                return tier;
            }
        }
        let id = (layout.type_id)();
        // Whether this process can run generated code is probed once, by the first
        // background job; until then every type is still compiling.
        if let Some(Err(why)) = PROBE.get() {
            return Tier::Unavailable(leak_reason(why));
        }
        let slot: Slot = match cache().get(&id) {
            Some(slot) => match slot.current() {
                Some(Ok(compiled)) => {
                    remember(&slot, layout, id, compiled, len);
                    return Tier::Ready(compiled);
                }
                Some(Err(why)) => return Tier::Failed(why),
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

    /// After [`DRIFT_CHECK_EVERY`] more decodes (or [`FLUSH_BYTES`]) of a
    /// compiled type on this thread: if, since the last check, its documents
    /// missed the current decoder's key-order speculation more than
    /// [`DRIFT_FACTOR`] times as often per decode as the document its order was
    /// learned from, plus [`DRIFT_MISSES_PER_DECODE`], the order they use
    /// drifted from the one learned (or
    /// declared), and this decode re-learns
    /// it (the interpreter records its order; a worker compiles again with it,
    /// keeping the order it replaces as a second guess: [`relearn`]). One
    /// relearn at a time, [`MAX_RELEARNS`] per type, so documents in no stable
    /// order cannot make it recompile forever. `None`: carry on with the
    /// current decoder.
    fn check_drift(slot: Slot, layout: &'static TypeLayout, ran: &Compiled) -> Option<Tier> {
        let Some(Ok(current)) = slot.current() else {
            return None;
        };
        let misses = current.miss_counter.map_or(0, |m| m.load(Ordering::Relaxed));
        let decodes = slot.decodes.load(Ordering::Relaxed);
        // The window since the last check (racing checks split it unevenly,
        // which only blurs one window).
        let window_misses = misses.saturating_sub(slot.checked_misses.swap(misses, Ordering::Relaxed));
        let window_decodes = decodes.saturating_sub(slot.checked_decodes.swap(decodes, Ordering::Relaxed));
        // This thread's decodes ran on a decoder replaced since (it takes the
        // new one after this check): they say nothing of the current one.
        if window_decodes == 0 || !std::ptr::eq(ran, current) {
            return None;
        }
        // The misses the learning document itself made (absent fields), per
        // decode, are what the decoder's own order costs.
        let baseline = current.key_orders.expected_misses();
        let drifted = window_misses
            > window_decodes.saturating_mul(DRIFT_FACTOR * baseline + DRIFT_MISSES_PER_DECODE);
        if drifted
            && slot.relearns.load(Ordering::Relaxed) < MAX_RELEARNS
            && !slot.relearn.swap(true, Ordering::AcqRel)
        {
            slot.relearns.fetch_add(1, Ordering::Relaxed);
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
                if available().is_err() {
                    return;
                }
                if compiler == Compiler::Relearn {
                    relearn(&slot, layout, orders);
                } else {
                    let _ = compile_into(&slot, layout, compiler, Version::First, Some(orders));
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
    /// Whether `compiled` hands its whole root to the interpreter (so a
    /// decode through it is the interpreter's, for `stats()`).
    pub(crate) fn root_interpreted(compiled: &Compiled) -> bool {
        compiled.root_interpreted
    }

    /// # Safety
    /// `compiled` was compiled for the type `dst` has room for.
    #[inline]
    pub(crate) unsafe fn run(
        compiled: &Compiled,
        input: &[u8],
        max_depth: u32,
        validate_utf8: bool,
        dst: *mut u8,
    ) -> Result<usize, Failure> {
        let mut first = jitson_core::elements::FirstChunk::new();
        let mut state = JitState::new(input, max_depth, validate_utf8);
        // SAFETY: `first` is declared before `state`, so it outlives it, and
        // stays in this frame.
        unsafe { state.elements.lend(&mut first) };
        // SAFETY: forwarded from the caller; `state` borrows `input` for the call.
        if unsafe { compiled.call(&mut state, dst) } {
            Ok(state.pos)
        } else {
            Err(Failure { out_of_stack: state.stack_exhausted != 0 })
        }
    }

    // -----------------------------------------------------------------------
    // Encoders: compiled per (type, options), cached like decoders.

    pub(crate) use jitson_jit::CompiledEncoder;
    use jitson_fallback::encode::EncodeOptions;

    /// One (type, options) pair's compiled encoder, or why there is none, and
    /// whether a background compile was queued for it.
    #[derive(Default)]
    struct EncoderEntry {
        done: OnceLock<Result<&'static CompiledEncoder, String>>,
        queued: AtomicBool,
    }

    type EncoderSlot = Arc<EncoderEntry>;

    /// Encoder compiles, for `stats()`: counted once per compile, never per encode.
    struct EncoderStats {
        compiled: AtomicU64,
        nanos: AtomicU64,
        switches: AtomicU64,
        code_bytes: AtomicU64,
    }

    static ENCODER_STATS: EncoderStats = EncoderStats {
        compiled: AtomicU64::new(0),
        nanos: AtomicU64::new(0),
        switches: AtomicU64::new(0),
        code_bytes: AtomicU64::new(0),
    };

    /// The layouts compiled encoders hand to the interpreter, per value,
    /// with the reason (each once).
    static ENCODER_INTERPRETED: std::sync::Mutex<Vec<(String, String)>> =
        std::sync::Mutex::new(Vec::new());

    /// `stats()`'s [`encoder_interpreted_layouts`](crate::Stats::encoder_interpreted_layouts).
    pub(crate) fn encoder_interpreted() -> Vec<(String, String)> {
        ENCODER_INTERPRETED
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// `stats()`'s encoder figures: compiles, their time, background switches,
    /// machine code bytes.
    pub(crate) fn encoder_stats() -> (u64, std::time::Duration, u64, u64) {
        (
            ENCODER_STATS.compiled.load(Ordering::Relaxed),
            std::time::Duration::from_nanos(ENCODER_STATS.nanos.load(Ordering::Relaxed)),
            ENCODER_STATS.switches.load(Ordering::Relaxed),
            ENCODER_STATS.code_bytes.load(Ordering::Relaxed),
        )
    }

    fn encoder_cache() -> &'static DashMap<(TypeId, EncodeOptions), EncoderSlot> {
        static CACHE: OnceLock<DashMap<(TypeId, EncodeOptions), EncoderSlot>> = OnceLock::new();
        // A fixed shard count, as for decoders (no `available_parallelism`).
        CACHE.get_or_init(|| DashMap::with_hasher_and_shard_amount(Default::default(), 16))
    }

    /// A thread's last compiled encoder, found without the map.
    #[derive(Clone, Copy)]
    struct LastEncoder {
        id: TypeId,
        options: EncodeOptions,
        compiled: &'static CompiledEncoder,
    }

    thread_local! {
        static LAST_ENCODER: std::cell::Cell<Option<LastEncoder>> = const { std::cell::Cell::new(None) };
    }

    fn last_encoder(id: TypeId, options: &EncodeOptions) -> Option<&'static CompiledEncoder> {
        let last = LAST_ENCODER.try_with(std::cell::Cell::get).ok().flatten()?;
        (last.id == id && last.options == *options).then_some(last.compiled)
    }

    fn remember_encoder(id: TypeId, options: EncodeOptions, compiled: &'static CompiledEncoder) {
        let _ = LAST_ENCODER.try_with(|c| c.set(Some(LastEncoder { id, options, compiled })));
    }

    /// Compiles into `slot` once (other callers wait for that compile); the
    /// code is leaked, like decoders', so it lives as long as the process.
    fn compile_encoder_into(
        slot: &EncoderEntry,
        layout: &'static TypeLayout,
        options: EncodeOptions,
        background: bool,
    ) -> Result<&'static CompiledEncoder, &'static str> {
        let mut switched = false;
        let done = slot.done.get_or_init(|| {
                let start = std::time::Instant::now();
                let compiled = jitson_jit::compile_encoder(layout, options)
                    .map(|c| &*Box::leak(Box::new(c)))
                    .map_err(|e| e.to_string());
                if let Ok(compiled) = compiled {
                    ENCODER_STATS.compiled.fetch_add(1, Ordering::Relaxed);
                    ENCODER_STATS
                        .code_bytes
                        .fetch_add(compiled.code_bytes as u64, Ordering::Relaxed);
                    let nanos = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
                    ENCODER_STATS.nanos.fetch_add(nanos, Ordering::Relaxed);
                    switched = background;
                    let mut interpreted =
                        ENCODER_INTERPRETED.lock().unwrap_or_else(|p| p.into_inner());
                    for (ty, why) in &compiled.interpreted {
                        let entry = ((*ty).to_owned(), (*why).to_owned());
                        if !interpreted.contains(&entry) {
                            interpreted.push(entry);
                        }
                    }
                }
                compiled
            });
        // Counted once `done` serves the code, as `count_switch` does for decoders.
        if switched {
            ENCODER_STATS.switches.fetch_add(1, Ordering::Relaxed);
        }
        done.as_ref().copied().map_err(|e| leak_reason(e))
    }

    /// The compiled encoder for `layout` (the encode layout of the type with
    /// identity `id`) and `options`, compiled on this thread if need be
    /// (`Backend::Jit`).
    pub(crate) fn encoder(
        layout: &'static TypeLayout,
        id: TypeId,
        options: &EncodeOptions,
    ) -> Result<&'static CompiledEncoder, &'static str> {
        if let Some(compiled) = last_encoder(id, options) {
            return Ok(compiled);
        }
        available()?;
        let slot = encoder_cache().entry((id, *options)).or_default().clone();
        let compiled = compile_encoder_into(&slot, layout, *options, false)?;
        remember_encoder(id, *options, compiled);
        Ok(compiled)
    }

    /// `Backend::Auto`: the compiled encoder if it is ready; otherwise queues
    /// its compile on the background pool (once) and returns `None`, so this
    /// encode runs on the interpreter.
    pub(crate) fn encoder_or_queue(
        layout: &'static TypeLayout,
        id: TypeId,
        options: &EncodeOptions,
    ) -> Option<&'static CompiledEncoder> {
        if let Some(compiled) = last_encoder(id, options) {
            return Some(compiled);
        }
        // Non-default escaping: the compiled code would only call the
        // interpreter; nothing to compile.
        if !jitson_jit::encoder_lowers(options) {
            return None;
        }
        if let Some(Err(_)) = PROBE.get() {
            return None;
        }
        let key = (id, *options);
        let slot = match encoder_cache().get(&key) {
            Some(slot) => match slot.done.get() {
                Some(Ok(compiled)) => {
                    remember_encoder(id, *options, compiled);
                    return Some(compiled);
                }
                Some(Err(_)) => return None,
                None => slot.clone(),
            },
            None => encoder_cache().entry(key).or_default().clone(),
        };
        if !slot.queued.swap(true, Ordering::AcqRel) {
            let options = *options;
            tier::submit(Box::new(move || {
                if available().is_ok() {
                    let _ = compile_encoder_into(&slot, layout, options, true);
                }
            }));
        }
        None
    }

    /// The room past its text a compiled encoder may ask for
    /// (`CompiledEncoder::max_reserve`).
    pub(crate) fn encoder_reserve(compiled: &CompiledEncoder) -> usize {
        compiled.max_reserve
    }

    /// Runs a compiled encoder (see `CompiledEncoder::encode`).
    ///
    /// # Safety
    /// `src` points to a live value of the type `compiled` was compiled for.
    pub(crate) unsafe fn run_encoder(
        compiled: &CompiledEncoder,
        src: *const u8,
        out: &mut Vec<u8>,
    ) -> Result<(), jitson_core::error::Error> {
        // SAFETY: forwarded from the caller.
        unsafe { compiled.encode(src, out) }
    }
}

cfg_no_jit! {
    /// Never constructed: there is no JIT in this build.
    pub(crate) enum Compiled {}

    pub(crate) fn available() -> Result<(), &'static str> {
        Err("this build has no JIT (the `jit` feature is off, or Cranelift does not support this target)")
    }

    /// Which compiled tier a caller asks for (nothing is compiled in this build).
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub(crate) enum Want {
        Baseline,
        Optimized,
    }

    pub(crate) fn compiled(_layout: &'static TypeLayout, _want: Want, _len: usize) -> Result<&'static Compiled, &'static str> {
        Err("this build has no JIT")
    }

    pub(crate) fn cache_stats() -> CacheStats {
        CacheStats::default()
    }

    pub(crate) fn encoder_stats() -> (u64, std::time::Duration, u64, u64) {
        (0, std::time::Duration::ZERO, 0, 0)
    }

    pub(crate) fn encoder_interpreted() -> Vec<(String, String)> {
        Vec::new()
    }

    pub(crate) fn last_ready(_layout: &'static TypeLayout, _final_only: bool, _len: usize) -> Option<&'static Compiled> {
        None
    }

    pub(crate) fn compiled_or_queue(_layout: &'static TypeLayout, _len: usize) -> Tier {
        Tier::Unavailable("this build has no JIT")
    }

    /// Never constructed: there is no JIT in this build.
    pub(crate) enum Learner {}

    impl Learner {
        pub(crate) fn orders(&mut self) -> &mut jitson_core::layout::KeyOrders {
            match *self {}
        }
    }

    pub(crate) fn root_interpreted(compiled: &Compiled) -> bool {
        match *compiled {}
    }

    /// # Safety
    /// Never callable: `Compiled` has no values.
    pub(crate) unsafe fn run(compiled: &Compiled, _: &[u8], _: u32, _: bool, _: *mut u8) -> Result<usize, Failure> {
        match *compiled {}
    }

    /// Never constructed: there is no JIT in this build.
    pub(crate) enum CompiledEncoder {}

    pub(crate) fn encoder(
        _layout: &'static TypeLayout,
        _id: std::any::TypeId,
        _options: &jitson_fallback::encode::EncodeOptions,
    ) -> Result<&'static CompiledEncoder, &'static str> {
        Err("this build has no JIT (the `jit` feature is off, or Cranelift does not support this target)")
    }

    pub(crate) fn encoder_or_queue(
        _layout: &'static TypeLayout,
        _id: std::any::TypeId,
        _options: &jitson_fallback::encode::EncodeOptions,
    ) -> Option<&'static CompiledEncoder> {
        None
    }

    pub(crate) fn encoder_reserve(compiled: &CompiledEncoder) -> usize {
        match *compiled {}
    }

    /// # Safety
    /// Never callable: `CompiledEncoder` has no values.
    pub(crate) unsafe fn run_encoder(
        compiled: &CompiledEncoder,
        _: *const u8,
        _: &mut Vec<u8>,
    ) -> Result<(), jitson_core::error::Error> {
        match *compiled {}
    }
}
