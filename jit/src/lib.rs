//! jitson-jit: the Cranelift backend.
//!
//! [`compile`] lowers a root [`TypeLayout`] and every layout reachable from it to
//! Cranelift IR and compiles one native function per *value function* (every
//! struct layout, the root, and each payload of an `Option` or `Box`) and, under
//! [`StructLowering::Unrolled`], per *member function* (each distinct field
//! layout: `: value` and what follows; the baseline's struct tables call the
//! fields' value functions instead).
//! The root's functions live in one `JITModule` and call each other directly
//! (recursion is a call); functions that depend on their layout alone come from
//! the process-wide library (`mod library`) and are called by address.
//!
//! [`compile_encoder`] lowers an encode layout the same way, to an encoder
//! (`encode` module; `docs/jit.md`, "Encoding").
//!
//! # The generated-code ABI
//!
//! Every generated function has the C signature
//! `extern "C" fn(state: *mut JitState, dst: *mut u8) -> bool` (a member
//! function returns an `i8` status instead, `kind/struct_.rs`) — the same as the
//! layout model's `SlotFn`, so a value function is passed straight to
//! `Option`'s `decode_some` or `Box`'s `decode_new` as the callback. It decodes one
//! value starting at `state.pos` (leading whitespace allowed) into `dst` and
//! returns `true` with `state.pos` after the value, or `false` with nothing live at
//! `dst`. See `docs/jit.md` for the registers kept live and the helper table.
//!
//! # Speculation and the slow path
//!
//! The generated code handles the common shapes in IR: whitespace, `{` `}` `[` `]`
//! `,` `:`, keys in declaration order (wide compares against the raw key bytes),
//! other keys through a hashed key table, integers of up to 18 digits with exact range
//! checks, floats on Clinger's exact fast path, strings without escapes, `null`,
//! booleans, and `Vec` elements gathered on the element stack. Anything else
//! — an escape, a long number, an error of any kind, a kind this backend does not
//! lower — is handed to the interpreter *for that value*, from the value's start:
//! the generated code drops what it wrote for the value, resets the position and
//! calls the `interpret_value` helper (a private item; docs/jit.md lists the
//! helpers). Since the interpreter is the reference
//! semantics and sees the same input, position and depth, results are identical by
//! construction: the JIT only ever accepts, on its fast path, documents the
//! interpreter accepts with the same value (the differential tests check it).
//! A `false` return therefore means the interpreter itself failed; the facade
//! re-runs the interpreter on the whole document to build the error with its path.
//!
//! # Rules for generated code
//!
//! - Every load from the input is preceded by a bounds check against
//!   `state.len`; loads are never marked aligned.
//! - Output is written only at `dst + field offset`, into vector capacity reserved
//!   through the layout's functions, or by the layout's functions themselves. The
//!   memory layout of std types is never assumed: `String`, `Vec`, `Option` and
//!   `Box` are reached only through their layout's `extern "C"` functions, whose
//!   addresses are embedded as constants.
//! - Each struct keeps a bitmap of written fields (one `i64` variable per 64
//!   fields, so structs of up to `MAX_JIT_FIELDS` (1,024) are compiled and
//!   one of at most 64 has a single word) and drops exactly those fields on the slow path and on failure.
//! - Helpers are `extern "C"` and never unwind: they catch panics and stash them
//!   for the facade to resume.
//!
//! # When is this used?
//!
//! Only on x86_64, aarch64, riscv64 and s390x (the targets Cranelift supports); the
//! crate is empty elsewhere and the facade uses the interpreter.
#![cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64",
    target_arch = "s390x"
))]

mod encode;
mod helpers;
mod kind;
pub mod memory;
mod parallel;
mod rows;
mod translate;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use cranelift_codegen::ir::{AbiParam, Signature, types};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::{Context, isa, isa::OwnedTargetIsa};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITMemoryProvider, JITModule};
use cranelift_module::{FuncId, Linkage, Module};
use jitson_core::layout::{Kind, LayoutId, TypeLayout};

pub use encode::{CompiledEncoder, compile_encoder, encoder_lowers};
pub use helpers::JitState;
pub use rows::{
    ColumnView, CompiledRows, FormatFn, ROW_MAX_DEPTH, RowCallFn, RowColumn, RowKind, RowSpec,
    compile_rows,
};

/// The module that owns a `Compiled`'s code and data.
struct OwnedModule(JITModule);

// SAFETY: after `finalize_definitions` the module is never used again except to
// free it in `Compiled::drop`, which takes `&mut self` (so no other thread holds a
// reference); the code it owns is immutable and may run on any thread.
unsafe impl Send for OwnedModule {}
// SAFETY: as above; shared references never touch the module.
unsafe impl Sync for OwnedModule {}

/// A compiled decoder for one root layout. Owns its machine code: dropping it
/// frees the code (the facade keeps every `Compiled` for the life of the process).
pub struct Compiled {
    module: Option<OwnedModule>,
    /// Data the code points to (key tables, capacity hints); freed after the
    /// code.
    _data: translate::ModuleData,
    entry: EntryFn,
    /// Machine code bytes of all functions compiled for the root.
    pub code_bytes: usize,
    /// Wall-clock time from IR building to finalized code.
    pub compile_time: Duration,
    /// Native functions compiled (one per struct layout, root, and Option/Box payload).
    pub functions: usize,
    /// Layouts reached from the root whose values are always decoded by the
    /// interpreter, with the reason (a kind not lowered, too many fields).
    pub interpreted: Vec<(&'static str, &'static str)>,
    /// Whether the root layout itself is among them: the compiled entry only
    /// hands the whole document to the interpreter, so a decode through it
    /// is the interpreter's, not compiled code's (`stats()` counts it so).
    pub root_interpreted: bool,
    /// The key orders the struct functions speculate on, and how they were
    /// lowered (`CompileOptions`), so a later compile can keep the one and
    /// change the other.
    pub key_orders: jitson_core::layout::KeyOrders,
    pub structs: StructLowering,
    /// The counter its struct functions count speculation misses into
    /// (`CompileOptions::miss_counter`).
    pub miss_counter: Option<&'static std::sync::atomic::AtomicU64>,
}

/// The signature of every generated function.
pub type EntryFn = unsafe extern "C" fn(state: *mut JitState, dst: *mut u8) -> bool;

impl Drop for Compiled {
    fn drop(&mut self) {
        if let Some(OwnedModule(module)) = self.module.take() {
            // SAFETY: `call` borrows `self`, so no generated function of this
            // module is running while `self` is dropped, and `entry` (the only
            // pointer into the code handed out) dies with `self`.
            unsafe { module.free_memory() };
        }
    }
}

impl Compiled {
    /// Decodes one value at `state.pos` into `dst` (see the crate docs).
    ///
    /// # Safety
    /// `state` describes a live input slice; `dst` is aligned, uninitialised room
    /// for the root type this was compiled for.
    #[inline]
    pub unsafe fn call(&self, state: &mut JitState, dst: *mut u8) -> bool {
        // SAFETY: the function was compiled for this root layout and keeps the ABI
        // in the crate docs; the caller guarantees `state` and `dst`.
        unsafe { (self.entry)(state, dst) }
    }
}

/// Why a layout could not be compiled. Crate users see it only as the reason the
/// facade records for falling back to the interpreter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileError {
    /// No Cranelift backend for this host.
    UnsupportedHost(String),
    /// Cranelift rejected the generated IR (a bug in this crate).
    Codegen(String),
    /// The code could not be made executable (the OS refused).
    ExecutableMemory(String),
    /// `JITSON_DISABLE_JIT` is set: nothing is compiled in this process (see
    /// [`disabled_by_env`]).
    DisabledByEnv,
    /// The description asks for something this crate does not compile (a
    /// row spec nested deeper than [`ROW_MAX_DEPTH`]).
    Unsupported(String),
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompileError::UnsupportedHost(e) => {
                write!(f, "no Cranelift backend for this host: {e}")
            }
            CompileError::Codegen(e) => write!(f, "code generation failed: {e}"),
            CompileError::ExecutableMemory(e) => write!(f, "executable memory refused: {e}"),
            CompileError::DisabledByEnv => {
                f.write_str("the JIT is switched off in this process (JITSON_DISABLE_JIT is set)")
            }
            CompileError::Unsupported(e) => write!(f, "not compiled: {e}"),
        }
    }
}

/// Compilation settings.
#[derive(Default)]
pub struct CompileOptions {
    /// Write each function's IR (`.clif`) and disassembly (`.s`) under
    /// `<dump_dir>/<root type>/`.
    pub dump_dir: Option<PathBuf>,
    /// Replace the executable-memory provider (tests use one that refuses). All
    /// of the compile's code then goes there: the process-wide library of
    /// shared functions is not used.
    pub memory_provider: Option<Box<dyn JITMemoryProvider + Send>>,
    /// Append each function's address, size and name to `/tmp/perf-<pid>.map`, the
    /// file `perf report` reads to name samples in JIT code (the perf-map
    /// convention of Linux `perf`, also written by V8, the JVM and wasmtime).
    pub perf_map: bool,
    /// Key orders seen in documents (recorded by the interpreter): each struct
    /// speculates that its keys come in its recorded order, then declaration
    /// order for the rest. Empty: declaration order everywhere.
    pub key_orders: jitson_core::layout::KeyOrders,
    /// Where generated code counts the keys of known fields that missed
    /// their struct's speculation (unknown keys are not counted), so the
    /// caller can tell when documents drift from the order compiled.
    pub miss_counter: Option<&'static std::sync::atomic::AtomicU64>,
    /// How struct functions are lowered.
    pub structs: StructLowering,
    /// Which register allocator Cranelift runs.
    pub register_allocator: RegisterAllocator,
}

/// Which of Cranelift's register allocators (its `regalloc_algorithm`
/// setting, both from regalloc2) a compile runs: compile time against code
/// speed.
///
/// jitson's facade compiles both tiers with the backtracking allocator: with
/// the single-pass one its baseline tier decoded only 1.1-1.25x as fast as the
/// interpreter, and canada 0.85x (`docs/benchmarks.md`, Round 13; the `tiers`
/// example measures it). The process's first compile (the executable-memory
/// probe, whose code only has to run) uses the single-pass one.
///
/// The process-wide library of shared functions keeps one copy per allocator,
/// so code compiled with one never calls functions compiled with the other.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RegisterAllocator {
    /// The backtracking allocator (Cranelift's default): the faster code.
    #[default]
    Backtracking,
    /// The single-pass allocator (quicker to compile, slower code): on the
    /// twitter model, a fresh process's `warm_up` took 10.9 ms instead of
    /// 14.3-15.9, and table-lowered code decoded at 764 MB/s instead of 1,009
    /// (`docs/benchmarks.md`, Round 13).
    SinglePass,
}

impl RegisterAllocator {
    /// The value of Cranelift's `regalloc_algorithm` setting.
    fn setting(self) -> &'static str {
        match self {
            RegisterAllocator::Backtracking => "backtracking",
            RegisterAllocator::SinglePass => "single_pass",
        }
    }
}

/// How a struct's function is lowered (issue 10's tiers). Both keep the same
/// contract and speculate on the same key order; they differ in what is
/// compiled per struct, and in what decodes a field: a member function (its
/// punctuation and value, in IR) or the walker's punctuation around the
/// field's value function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StructLowering {
    /// Per field, the key compare, the member call and the status test in IR
    /// (`kind/struct_.rs`): about 30 IR instructions per field and 240 per
    /// struct.
    #[default]
    Unrolled,
    /// A table per struct, walked by one Rust function compiled with the crate
    /// (`kind/struct_table.rs`); the struct's own function is a call.
    Table,
}

fn build_isa(
    opt_level: &str,
    allocator: RegisterAllocator,
) -> Result<OwnedTargetIsa, CompileError> {
    let mut flags = settings::builder();
    let set = |flags: &mut settings::Builder, k: &str, v: &str| {
        flags
            .set(k, v)
            .map_err(|e| CompileError::Codegen(format!("setting {k}={v}: {e}")))
    };
    set(&mut flags, "opt_level", opt_level)?;
    set(&mut flags, "regalloc_algorithm", allocator.setting())?;
    set(
        &mut flags,
        "enable_verifier",
        if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        },
    )?;
    set(&mut flags, "enable_probestack", "true")?;
    set(&mut flags, "probestack_strategy", "inline")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", "false")?;
    let isa_builder =
        cranelift_native::builder().map_err(|e| CompileError::UnsupportedHost(e.to_string()))?;
    isa_builder
        .finish(settings::Flags::new(flags))
        .map_err(|e| CompileError::UnsupportedHost(e.to_string()))
}

/// Whether a layout gets a native function of its own.
fn needs_function(layout: &TypeLayout) -> bool {
    matches!(layout.kind, Kind::Struct(_))
}

/// What a generated function does with its layout.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Role {
    /// A value function: decodes one value (see the crate docs).
    Value,
    /// A member function: decodes a struct member's `: value` and what follows it
    /// (`,` and the next key's quote, or `}`), and returns a [`MemberStatus`]. One
    /// per distinct field layout in a module, shared by every field of that layout:
    /// the struct function keeps only its key speculation and one call per field.
    Member,
}

/// The functions to compile for `root`: a value function for the root, every
/// struct reachable through lowered kinds, and every `Option`/`Box` payload, map
/// value and enum payload; for every distinct field layout of a compiled struct,
/// a member function (unrolled structs, and structs with flattened fields) or a
/// value function (table-lowered structs). Kinds the interpreter handles whole
/// are not entered.
fn collect_functions(
    root: &'static TypeLayout,
    structs: StructLowering,
) -> Vec<(Role, &'static TypeLayout)> {
    let mut out: Vec<(Role, &'static TypeLayout)> = Vec::new();
    let has = |out: &[(Role, &TypeLayout)], role: Role, layout: &TypeLayout| {
        out.iter().any(|&(r, l)| r == role && l.id() == layout.id())
    };
    // (layout, the role asked for; `None`: decoded inline by its parent).
    let mut stack = vec![(root, Some(Role::Value))];
    while let Some((layout, role)) = stack.pop() {
        let value = role == Some(Role::Value) || needs_function(layout);
        let member = role == Some(Role::Member);
        let new_value = value && !has(&out, Role::Value, layout);
        let new_member = member && !has(&out, Role::Member, layout);
        if new_value {
            out.push((Role::Value, layout));
        }
        if new_member {
            out.push((Role::Member, layout));
        }
        // A layout with a function of either role was entered when it got it.
        if (value || member) && !new_value && !new_member {
            continue;
        }
        stack.extend(lowered_children(layout, structs));
    }
    out
}

/// The layouts generated code for `layout` reaches, with the function each
/// needs (`None`: decoded inline). Kinds the interpreter handles whole reach
/// nothing. A struct's fields need member functions; under
/// [`StructLowering::Table`] value functions, since the walker reads the
/// punctuation around each value (`kind/struct_table.rs`), and a field that is
/// itself a table-lowered struct needs only that struct's table.
fn lowered_children(
    layout: &'static TypeLayout,
    structs: StructLowering,
) -> Vec<(&'static TypeLayout, Option<Role>)> {
    match &layout.kind {
        Kind::Struct(st) if !st.flatten.is_empty() => kind::struct_::flattened_children(st),
        Kind::Struct(st) if translate::struct_compiles(st) => st
            .fields
            .iter()
            .map(|f| {
                let field = f.layout.get();
                match structs {
                    StructLowering::Table => (field, Some(Role::Value)),
                    StructLowering::Unrolled => (field, Some(Role::Member)),
                }
            })
            .collect(),
        Kind::Option(o) => vec![(o.some.get(), Some(Role::Value))],
        Kind::Box(b) => vec![(b.inner.get(), Some(Role::Value))],
        Kind::Convert(c) => vec![(c.from.get(), Some(Role::Value))],
        Kind::Vec(v) => vec![(v.elem.get(), None)],
        Kind::Map(m) => vec![(m.value.get(), Some(Role::Value))],
        Kind::Array(a) => vec![(a.elem.get(), None)],
        Kind::Newtype(n) if n.skipped.is_empty() => vec![(n.inner.get(), None)],
        // A lowered enum's payloads are decoded by their own functions, which
        // `decode_variant` calls back.
        Kind::Enum(e) => kind::enum_::called_payloads(e)
            .into_iter()
            .map(|l| (l, Some(Role::Value)))
            .collect(),
        // A column's value is emitted inline (a record's fields, being a
        // struct, get their function as every struct does).
        Kind::Column(c) => vec![(c.value.get(), None)],
        Kind::Tuple(t) if t.skipped.is_empty() && t.elems.iter().all(|e| e.default.is_none()) => {
            t.elems.iter().map(|e| (e.layout.get(), None)).collect()
        }
        _ => Vec::new(),
    }
}

/// Asks the OS for one page, writable and then executable, as the default memory
/// provider will. Hardened systems (SELinux `execmem`, PaX MPROTECT, systemd
/// `MemoryDenyWriteExecute=`, Linux's `PR_SET_MDWE`) refuse the second step.
/// Checked here, once per process, so that a refusal is reported as such before
/// any compile (the code region's provider, `memory::RegionMemory`, would meet
/// it only when a module is finalized, after all of its code was generated).
fn executable_memory_allowed() -> Result<(), CompileError> {
    let refused = |e: region::Error| CompileError::ExecutableMemory(e.to_string());
    let mut page =
        region::alloc(region::page::size(), region::Protection::READ_WRITE).map_err(refused)?;
    let len = page.len();
    // SAFETY: the page is this function's own allocation; nothing runs from it, and
    // it is unmapped when `page` drops.
    unsafe {
        region::protect(
            page.as_mut_ptr::<u8>(),
            len,
            region::Protection::READ_EXECUTE,
        )
    }
    .map_err(refused)
}

/// Whether `JITSON_DISABLE_JIT` is set to anything but empty or `0` (read
/// once per process). Then [`compile`] and [`probe`] refuse with
/// [`CompileError::DisabledByEnv`], so no generated code runs in the process,
/// whichever crate asks for it: the operator's kill switch.
pub fn disabled_by_env() -> bool {
    static DISABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DISABLED.get_or_init(|| {
        std::env::var_os("JITSON_DISABLE_JIT").is_some_and(|v| !v.is_empty() && v != "0")
    })
}

/// Compiles `root` and everything reachable from it.
///
/// Refuses with [`CompileError::DisabledByEnv`] when [`disabled_by_env`].
///
/// Never unwinds: a panic inside Cranelift (a bug there or here) is caught and
/// returned as [`CompileError::Codegen`], so the caller falls back to the
/// interpreter. Compilation runs no user code and no generated code, and
/// everything it built is dropped while unwinding, so nothing is left half-made.
pub fn compile(
    root: &'static TypeLayout,
    options: CompileOptions,
) -> Result<Compiled, CompileError> {
    guarded_compile(|| compile_inner(root, options))
}

/// Stack a compile may use on its caller's thread; below it, a compile runs
/// on a new segment of [`COMPILE_STACK`] bytes (`stacker::maybe_grow`). A
/// debug build of Cranelift overflowed a 96 KiB thread (tests/table_tier.rs,
/// `small_stacks`).
const COMPILE_STACK_MARGIN: usize = 1 << 20;

/// The size of the segment a compile short of stack runs on.
const COMPILE_STACK: usize = 4 << 20;

/// Runs a compile unless `JITSON_DISABLE_JIT` is set, turning a panic inside
/// Cranelift into [`CompileError::Codegen`]: the entry of every compile,
/// decoders' and encoders'.
pub(crate) fn guarded_compile<T>(
    compile: impl FnOnce() -> Result<T, CompileError>,
) -> Result<T, CompileError> {
    if disabled_by_env() {
        return Err(CompileError::DisabledByEnv);
    }
    // Cranelift's passes recurse and keep large frames (more so in debug
    // builds): a caller with less than `COMPILE_STACK_MARGIN` of stack left
    // (a small thread, a deep caller) compiles on a fresh segment instead.
    let compile = || stacker::maybe_grow(COMPILE_STACK_MARGIN, COMPILE_STACK, compile);
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(compile)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a non-string payload".to_owned());
        Err(CompileError::Codegen(format!(
            "Cranelift panicked: {message}"
        )))
    })
}

fn compile_inner(
    root: &'static TypeLayout,
    mut options: CompileOptions,
) -> Result<Compiled, CompileError> {
    let started = Instant::now();
    let memory_provider = options.memory_provider.take();
    let functions = collect_functions(root, options.structs);
    // Functions that depend on nothing but their layout come from the library,
    // compiled once per process; the rest (the root, everything that reaches
    // it, and everything that reaches a struct, whose code depends on key
    // orders) are this module's. A caller that brings its own memory provider
    // gets all of its code there.
    let use_library = memory_provider.is_none();
    let (shared, local): (Vec<_>, Vec<_>) = functions
        .iter()
        .partition(|&&(_, layout)| use_library && shareable(layout, root));
    let (from_library, built) = library::build(
        &shared,
        &local,
        &options,
        memory_provider,
        &dump_dir_name(root),
    )?;
    let module = built.module;
    let entry_ptr = module.get_finalized_function(built.ids[&(Role::Value, root.id())]);
    // SAFETY: the root function was defined with the `EntryFn` signature (two
    // pointers in, a bool out, the host's C calling convention).
    let entry: EntryFn = unsafe { std::mem::transmute::<*const u8, EntryFn>(entry_ptr) };
    let mut interpreted = built.interpreted;
    interpreted.extend(from_library.interpreted);
    interpreted.sort();
    interpreted.dedup();
    let root_name = (root.type_name)();
    let root_interpreted = interpreted.iter().any(|(name, _)| *name == root_name);
    Ok(Compiled {
        module: Some(OwnedModule(module)),
        _data: built.data,
        entry,
        code_bytes: built.code_bytes + from_library.code_bytes,
        compile_time: started.elapsed(),
        functions: local.len() + from_library.compiled,
        interpreted,
        root_interpreted,
        key_orders: options.key_orders,
        structs: options.structs,
        miss_counter: options.miss_counter,
    })
}

/// Whether `layout`'s functions, compiled for `root`, go to the library: their
/// code depends on their layout alone, so one copy can serve every module (a
/// type's layout, as run-time layouts are owned by their schema and die with
/// it, reaching no struct, as struct functions speculate on key orders learned
/// per root, and no column), and it calls library functions only, so it
/// reaches neither `root` (whose value function is its module's own) nor
/// anything else that is not shareable. A recursive enum that reaches itself
/// through no struct (`enum Y { B(Box<Y>), C }`) is such a root: `Box<Y>`
/// calls `Y`'s function, so it stays in `Y`'s module (compiled for another
/// root, `Y` and `Box<Y>` both go to the library).
fn shareable(layout: &'static TypeLayout, root: &'static TypeLayout) -> bool {
    let mut stack = vec![layout];
    let mut seen: Vec<LayoutId> = Vec::new();
    while let Some(layout) = stack.pop() {
        if !matches!(layout.id(), LayoutId::Type(_)) || layout.id() == root.id() {
            return false;
        }
        if seen.contains(&layout.id()) {
            continue;
        }
        seen.push(layout.id());
        match &layout.kind {
            Kind::Struct(_) | Kind::Column(_) => return false,
            _ => stack.extend(
                lowered_children(layout, StructLowering::Unrolled)
                    .into_iter()
                    .map(|(l, _)| l),
            ),
        }
    }
    true
}

/// A module compiled: its code, and what the compile reports.
struct Built {
    module: JITModule,
    ids: HashMap<(Role, LayoutId), FuncId>,
    /// Machine code bytes of all functions defined.
    code_bytes: usize,
    interpreted: Vec<(&'static str, &'static str)>,
    data: translate::ModuleData,
}

/// A module whose functions are lowered to IR and handed to a
/// [`parallel::Crew`], in the order of `functions`.
struct Translated {
    module: JITModule,
    functions: Vec<(Role, &'static TypeLayout)>,
    ids: HashMap<(Role, LayoutId), FuncId>,
    /// The library functions the module may call: the `i`th is declared as
    /// `LIBRARY_SYMBOL` followed by `i`, bound to `addresses[i]` when the
    /// module is finalized.
    imports: Vec<(Role, LayoutId)>,
    addresses: Arc<OnceLock<Vec<usize>>>,
    interpreted: Vec<(&'static str, &'static str)>,
    data: translate::ModuleData,
    dump_dir: Option<PathBuf>,
    dump_name: String,
}

/// The signature of a generated function of `role` (docs/jit.md, "The
/// generated-code ABI"): a value function takes the state and the
/// destination and returns whether it decoded; a member function also takes
/// `pos` and returns it with its `MemberStatus` (an `i8`, `kind/struct_.rs`),
/// so the position passes between a struct function and its members in
/// registers, not through the state.
fn signature(call_conv: isa::CallConv, role: Role) -> Signature {
    let mut sig = Signature::new(call_conv);
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I64));
    sig.returns.push(AbiParam::new(types::I8));
    if role == Role::Member {
        sig.params.push(AbiParam::new(types::I64));
        sig.returns.push(AbiParam::new(types::I64));
    }
    sig
}

/// The prefix of the names imported library functions are declared under
/// (then their index in [`Translated::imports`]), which the module's symbol
/// lookup binds to their addresses.
const LIBRARY_SYMBOL: &str = "jitson_library_";

/// Cranelift's optimisation level for decoders' modules, a root's and the
/// library's. For a root's module (struct functions: key compares, calls,
/// status tests) `none` measured 26 % less compile time (Order 5.7 → 4.2 ms,
/// twitter model 45.5 → 32.2 ms, 1,000 types 7.1 → 5.0 s) and, in four
/// interleaved `compare` runs, no throughput difference beyond noise: the
/// egraph has little to fold in that code. For the library (number and string
/// loops) it took `warm_up::<Twitter>()` in fresh processes from a median of
/// 10.2 to 9.4 ms (9 each, interleaved), with the nine `profile` data sets
/// within noise of `speed` (2026-12-02): its loops are written already folded.
const OPT_LEVEL: &str = "none";

/// Lowers `functions` to IR in a new module for `isa`, handing each to
/// `crew` to be compiled. `imports` are library functions the code may call,
/// bound by [`finish_module`]; every other function it calls is among
/// `functions`. Writes the IR dumps under `<dump_dir>/<dump_name>/` if asked.
fn translate_module(
    functions: &[(Role, &'static TypeLayout)],
    isa: &OwnedTargetIsa,
    imports: Vec<(Role, LayoutId)>,
    options: &CompileOptions,
    memory_provider: Option<Box<dyn JITMemoryProvider + Send>>,
    dump_name: &str,
    crew: &parallel::Crew<'_, '_>,
) -> Result<Translated, CompileError> {
    let call_conv = isa.default_call_conv();
    let mut jit_builder =
        JITBuilder::with_isa(isa.clone(), cranelift_module::default_libcall_names());
    let addresses: Arc<OnceLock<Vec<usize>>> = Arc::default();
    let bound = Arc::clone(&addresses);
    jit_builder.symbol_lookup_fn(Box::new(move |name| {
        let index: usize = name.strip_prefix(LIBRARY_SYMBOL)?.parse().ok()?;
        let address = *bound.get()?.get(index)?;
        Some(std::ptr::with_exposed_provenance(address))
    }));
    let provider: Box<dyn JITMemoryProvider + Send> = match memory_provider {
        Some(provider) => provider,
        None => Box::new(
            memory::RegionMemory::new()
                .map_err(|e| CompileError::ExecutableMemory(e.to_string()))?,
        ),
    };
    jit_builder.memory_provider(provider);
    let mut module = JITModule::new(jit_builder);

    let sig = |role| signature(call_conv, role);

    let codegen = |e: cranelift_module::ModuleError| CompileError::Codegen(e.to_string());
    let mut ids: HashMap<(Role, LayoutId), FuncId> = HashMap::new();
    for (i, &key) in imports.iter().enumerate() {
        let id = module
            .declare_function(
                &format!("{LIBRARY_SYMBOL}{i}"),
                Linkage::Import,
                &sig(key.0),
            )
            .map_err(codegen)?;
        ids.insert(key, id);
    }
    for (i, &(role, layout)) in functions.iter().enumerate() {
        let id = module
            .declare_function(&function_name(i, role, layout), Linkage::Local, &sig(role))
            .map_err(codegen)?;
        ids.insert((role, layout.id()), id);
    }

    let mut fb_ctx = FunctionBuilderContext::new();
    let mut interpreted = Vec::new();
    let mut data = translate::ModuleData::default();
    let dump_dir = options.dump_dir.as_ref().map(|d| d.join(dump_name));
    // Translated in turn (translation declares callees in the module) and
    // compiled by the crew meanwhile; defined in order by `finish_module`.
    for (i, &(role, layout)) in functions.iter().enumerate() {
        let mut ctx = Box::new(module.make_context());
        ctx.func.signature = sig(role);
        let function = translate::translate_function(
            &mut module,
            &mut ctx,
            &mut fb_ctx,
            &ids,
            translate::Speculation {
                key_orders: &options.key_orders,
                miss_counter: options.miss_counter.map(std::ptr::from_ref),
                structs: options.structs,
            },
            (role, layout),
            call_conv,
        );
        interpreted.extend(function.interpreted);
        data.extend(function.data);
        if let Some(dir) = &dump_dir {
            ctx.set_disasm(true);
            dump(dir, &function_name(i, role, layout), &ctx, None);
        }
        crew.submit(ctx);
    }
    Ok(Translated {
        module,
        functions: functions.to_vec(),
        ids,
        imports,
        addresses,
        interpreted,
        data,
        dump_dir,
        dump_name: dump_name.to_owned(),
    })
}

/// Defines `translated`'s functions with their machine code (`compiled`, each
/// function as compiled with its code, in order), binds its imports to their
/// addresses in `library` (which holds every one, and none of the module's
/// own functions), finalizes the module, fills its struct tables, and writes
/// the machine-code dumps and perf-map lines as asked.
fn finish_module(
    translated: Translated,
    compiled: Vec<parallel::CompiledFunction>,
    library: &HashMap<(Role, LayoutId), usize>,
    options: &CompileOptions,
) -> Result<Built, CompileError> {
    let Translated {
        mut module,
        functions,
        ids,
        imports,
        addresses,
        interpreted,
        mut data,
        dump_dir,
        dump_name,
        ..
    } = translated;
    let order: Vec<FuncId> = functions
        .iter()
        .map(|&(role, layout)| ids[&(role, layout.id())])
        .collect();
    parallel::define_all(&mut module, &order, &compiled)?;
    let mut code_bytes = 0;
    let mut sizes = Vec::with_capacity(functions.len());
    for (i, (&(role, layout), (ctx, code))) in functions.iter().zip(&compiled).enumerate() {
        code_bytes += code.code_info().total_size as usize;
        sizes.push(code.code_info().total_size);
        if let Some(dir) = &dump_dir {
            dump(
                dir,
                &function_name(i, role, layout),
                ctx,
                code.vcode.as_deref(),
            );
            // The machine code itself, for `objdump -D -b binary -m i386:x86-64`
            // against the offsets of a perf profile (the perf map gives each
            // function's start).
            let bin = dir
                .join(function_name(i, role, layout))
                .with_extension("bin");
            let _ = std::fs::write(bin, code.code_buffer());
        }
    }
    drop(compiled);
    let bound: Vec<usize> = imports.iter().map(|key| library[key]).collect();
    addresses
        .set(bound)
        .expect("a module's imports are bound once");
    module
        .finalize_definitions()
        .map_err(|e| CompileError::ExecutableMemory(e.to_string()))?;
    // Struct tables point to the value functions, whose addresses exist now,
    // and to the tables of fields that are table-lowered structs.
    let tables: HashMap<LayoutId, *const kind::StructTable> = data
        .struct_tables
        .iter()
        .map(|t| (t.layout().id(), &raw const **t))
        .collect();
    for table in &mut data.struct_tables {
        for (i, field) in table.struct_layout().fields.iter().enumerate() {
            let id = field.layout.get().id();
            if let Some(&nested) = tables.get(&id) {
                table.set_nested(i, nested);
                continue;
            }
            let key = (Role::Value, id);
            let address = match library.get(&key) {
                Some(&address) => std::ptr::with_exposed_provenance::<u8>(address),
                None => module.get_finalized_function(ids[&key]),
            };
            // SAFETY: the value function was defined (here or in the library)
            // with the value signature: two pointers in, a `bool` out, the
            // host's C calling convention.
            let value =
                unsafe { std::mem::transmute::<*const u8, kind::struct_table::ValueFn>(address) };
            table.set_value(i, value);
        }
    }
    if options.perf_map {
        let named = functions
            .iter()
            .zip(&sizes)
            .enumerate()
            .map(|(i, (&(role, layout), size))| {
                let address = module.get_finalized_function(ids[&(role, layout.id())]);
                // The dump's names: `jitson[<dump directory>]::<file name>`.
                let name = format!("jitson[{dump_name}]::{}", function_name(i, role, layout));
                (address, *size, name)
            });
        write_perf_map(named);
    }
    Ok(Built {
        module,
        ids,
        code_bytes,
        interpreted,
        data,
    })
}

/// The library: functions whose code depends on their layout alone
/// ([`shareable`]: scalars, strings, and sequences, options and maps of them),
/// compiled once per process and called by address from every module that
/// needs them. A process decoding many types made of the same field types
/// (sonic's case of 3,000 structs, bytedance/sonic #703) compiles each
/// `member_i64` or `member_String` once rather than once per type.
mod library {
    use std::collections::HashMap;
    use std::sync::{Mutex, MutexGuard};

    use cranelift_jit::JITMemoryProvider;
    use jitson_core::layout::{LayoutId, TypeLayout};

    use super::{
        Built, CompileError, CompileOptions, OPT_LEVEL, OwnedModule, Role, Translated, build_isa,
        finish_module, parallel, translate_module,
    };

    /// What the library holds. Its modules are never freed: their functions may
    /// be called from any module compiled later, for the rest of the process;
    /// their number is bounded by the number of distinct field types.
    #[derive(Default)]
    struct Library {
        addresses: HashMap<(Role, LayoutId), usize>,
        modules: Vec<OwnedModule>,
        /// Owned for as long as the modules (never freed).
        data: Vec<super::translate::ModuleData>,
    }

    /// One library per register allocator (`RegisterAllocator`'s order).
    static LIBRARIES: Mutex<[Option<Library>; 2]> = Mutex::new([None, None]);

    /// What a compile got from the library: the functions compiled into it
    /// by this call, their code bytes, and the layouts in them handed to the
    /// interpreter.
    #[derive(Default)]
    pub(super) struct Provided {
        pub compiled: usize,
        pub code_bytes: usize,
        pub interpreted: Vec<(&'static str, &'static str)>,
    }

    /// Builds the module of `local` (a root's own functions), which calls the
    /// library functions `shared`, and first adds to the library those of
    /// `shared` it lacks, in one new library module. The functions of both
    /// modules are compiled by one [`parallel::Crew`] while they are lowered:
    /// the root's module first (its library calls are bound by name, so it
    /// needs no lock), then, under the library's lock so that each is compiled
    /// once, the missing ones. A process's first compile (the library's
    /// largest) thus has no wait between its two modules. Returns what the
    /// library gave and the root's module built.
    pub(super) fn build(
        shared: &[(Role, &'static TypeLayout)],
        local: &[(Role, &'static TypeLayout)],
        options: &CompileOptions,
        memory_provider: Option<Box<dyn JITMemoryProvider + Send>>,
        dump_name: &str,
    ) -> Result<(Provided, Built), CompileError> {
        let isa = build_isa(OPT_LEVEL, options.register_allocator)?;
        let shared_keys: Vec<(Role, LayoutId)> = shared
            .iter()
            .map(|&(role, layout)| (role, layout.id()))
            .collect();
        let allocator = options.register_allocator as usize;
        let ((own, adding), mut compiled) = parallel::with_crew(&*isa, |crew| {
            let own = translate_module(
                local,
                &isa,
                shared_keys.clone(),
                options,
                memory_provider,
                dump_name,
                crew,
            )?;
            // A panic while the lock was held (caught by `compile`) left the
            // map as it was before that build: still consistent.
            let mut guard = LIBRARIES.lock().unwrap_or_else(|p| p.into_inner());
            let library = guard[allocator].get_or_insert_with(Library::default);
            let missing: Vec<(Role, &'static TypeLayout)> = shared
                .iter()
                .copied()
                .filter(|&(role, layout)| !library.addresses.contains_key(&(role, layout.id())))
                .collect();
            if missing.is_empty() {
                // Nothing to add: the lock is not held while the crew compiles.
                return Ok((own, Adding::Nothing(addresses_of(library, shared))));
            }
            // Everything a shareable function calls is reachable from it, so
            // shareable for the same root, and among `shared`: what the missing
            // ones call is one of those already in the library, or missing too.
            let present = shared_keys
                .iter()
                .copied()
                .filter(|key| library.addresses.contains_key(key))
                .collect();
            let translated =
                translate_module(&missing, &isa, present, options, None, "library", crew)?;
            Ok((own, Adding::Module(guard, missing, Box::new(translated))))
        })?;
        // The crew returned the root's functions first, then the library's.
        let added = compiled.split_off(own.functions.len());
        let (provided, addresses) = match adding {
            Adding::Nothing(addresses) => (Provided::default(), addresses),
            Adding::Module(mut guard, missing, translated) => {
                let library = guard[allocator].get_or_insert_with(Library::default);
                let built = finish_module(*translated, added, &library.addresses, options)?;
                for &(role, layout) in &missing {
                    let address = built
                        .module
                        .get_finalized_function(built.ids[&(role, layout.id())]);
                    library
                        .addresses
                        .insert((role, layout.id()), address.addr());
                }
                let provided = Provided {
                    compiled: missing.len(),
                    code_bytes: built.code_bytes,
                    interpreted: built.interpreted,
                };
                library.modules.push(OwnedModule(built.module));
                library.data.push(built.data);
                (provided, addresses_of(library, shared))
            }
        };
        let built = finish_module(own, compiled, &addresses, options)?;
        Ok((provided, built))
    }

    /// What a compile adds to the library: nothing (the addresses of what it
    /// calls), or a module of the functions missing, lowered, with the lock
    /// held until it is in.
    enum Adding {
        Nothing(HashMap<(Role, LayoutId), usize>),
        Module(
            MutexGuard<'static, [Option<Library>; 2]>,
            Vec<(Role, &'static TypeLayout)>,
            Box<Translated>,
        ),
    }

    /// The addresses of `functions`, every one in `library`.
    fn addresses_of(
        library: &Library,
        functions: &[(Role, &'static TypeLayout)],
    ) -> HashMap<(Role, LayoutId), usize> {
        functions
            .iter()
            .map(|&(role, layout)| {
                let key = (role, layout.id());
                (key, library.addresses[&key])
            })
            .collect()
    }
}

/// Appends `address size name` lines (hexadecimal) to `/tmp/perf-<pid>.map`, one
/// per function; concurrent compiles append whole lines under a lock. A file that
/// cannot be written is skipped: profiling support must not fail a compile.
fn write_perf_map(functions: impl Iterator<Item = (*const u8, u32, String)>) {
    use std::io::Write;
    static FILE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let mut text = String::new();
    for (address, size, name) in functions {
        text.push_str(&format!("{:x} {size:x} {name}\n", address.addr()));
    }
    let _guard = FILE.lock().unwrap_or_else(|p| p.into_inner());
    let path = format!("/tmp/perf-{}.map", std::process::id());
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = file.write_all(text.as_bytes());
    }
}

/// The dump directory of the module compiled for `root`: its description, which
/// several types share (`Vec<u8>` and `Vec<String>` are both "a sequence"), and a
/// hash of its `TypeId`, which tells them apart (stable within one build).
fn dump_dir_name(root: &TypeLayout) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    root.id().hash(&mut hasher);
    format!("{}-{:016x}", sanitize(root.expecting), hasher.finish())
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// A function's name in the module, the dump and the perf map: its layout's
/// description and its index, `member_` first for a member function.
fn function_name(i: usize, role: Role, layout: &TypeLayout) -> String {
    let prefix = match role {
        Role::Value => "",
        Role::Member => "member_",
    };
    format!("{prefix}{}_{i}", sanitize(layout.expecting))
}

fn dump(dir: &std::path::Path, name: &str, ctx: &Context, disasm: Option<&str>) {
    let _ = std::fs::create_dir_all(dir);
    let base = dir.join(name);
    match disasm {
        None => {
            let _ = std::fs::write(base.with_extension("clif"), ctx.func.display().to_string());
        }
        Some(text) => {
            let _ = std::fs::write(base.with_extension("s"), text);
        }
    }
}

/// Checks once that this process can compile and run generated code: compiles a
/// function that returns its argument unchanged and calls it.
pub fn probe(
    memory_provider: Option<Box<dyn JITMemoryProvider + Send>>,
) -> Result<(), CompileError> {
    static UNIT: TypeLayout = TypeLayout::of::<bool>("a boolean", Kind::Bool);
    if disabled_by_env() {
        return Err(CompileError::DisabledByEnv);
    }
    if memory_provider.is_none() {
        executable_memory_allowed()?;
    }
    let compiled = compile(
        &UNIT,
        CompileOptions {
            dump_dir: None,
            memory_provider,
            perf_map: false,
            // What runs is not what is probed: the cheaper compile.
            register_allocator: RegisterAllocator::SinglePass,
            ..Default::default()
        },
    )?;
    let input = b"true";
    let mut state = JitState::new(input, 8, true);
    let mut out = false;
    // SAFETY: `out` is room for a bool, the layout compiled; `state` borrows `input`.
    let ok = unsafe { compiled.call(&mut state, (&raw mut out).cast()) };
    if ok && out && state.pos == 4 {
        Ok(())
    } else {
        Err(CompileError::Codegen(
            "probe function returned a wrong result".into(),
        ))
    }
}
