//! jitson decodes JSON into typed Rust values through a run-time description of the
//! type's memory, a *layout*.
//!
//! ```
//! #[derive(jitson::Decode, Debug, PartialEq)]
//! struct User {
//!     id: i64,
//!     #[jitson(rename = "user_name", alias = "name")]
//!     name: String,
//!     #[jitson(default)]
//!     tags: Vec<String>,
//!     email: Option<String>,
//! }
//!
//! let u: User = jitson::from_str(r#"{"id": 7, "name": "ada"}"#)?;
//! assert_eq!(u, User { id: 7, name: "ada".into(), tags: vec![], email: None });
//!
//! let err = jitson::from_str::<User>(r#"{"id": "7"}"#).unwrap_err();
//! assert_eq!(err.kind(), jitson::ErrorKind::InvalidType);
//! assert_eq!(err.path(), "$.id");
//! # Ok::<(), jitson::Error>(())
//! ```
//!
//! Two fields may not claim the same JSON key (through `rename` or `alias`):
//! which one a key fills would depend on the order of keys in the document.
//!
//! ```compile_fail
//! #[derive(jitson::Decode)]
//! struct Conflict {
//!     #[jitson(rename = "a")]
//!     b: u8,
//!     a: Option<u8>, // error: the JSON key `a` names both field `b` and field `a`
//! }
//! ```
//!
//! A flattened field is a struct, an `Option` of a struct (`Some` when the
//! struct can be built from the object's keys, `None` when it cannot, as in
//! serde) or a map (with string keys, or keys parsed from their text); any
//! other type (an enum, serde also flattens through its buffer) is refused by
//! [`warm_up`] and every decode, with [`ErrorKind::UnsupportedType`].
//!
//! ```
//! #[derive(jitson::Decode, Debug, PartialEq)]
//! struct Paging { page: u32, per_page: u32 }
//! #[derive(jitson::Decode, Debug, PartialEq)]
//! struct Query {
//!     q: String,
//!     #[serde(flatten)]
//!     paging: Option<Paging>,
//! }
//!
//! let full: Query = jitson::from_str(r#"{"q": "x", "page": 2, "per_page": 50}"#).unwrap();
//! assert_eq!(full.paging, Some(Paging { page: 2, per_page: 50 }));
//! let partial: Query = jitson::from_str(r#"{"q": "x", "page": 2}"#).unwrap();
//! assert_eq!(partial.paging, None);
//! ```
//!
//! A field whose type has jitson's traits goes through jitson's own layout;
//! one whose type has only serde's (a type with hand-written serde impls, or
//! `url::Url` without jitson's `url` feature) goes through its serde impl, with
//! no attribute, inside otherwise compiled code (see "The escape hatch" in the
//! README). Other crates' common types (chrono's, uuid's, url's, ...) are
//! native behind features named after their crates ("Other crates' types,
//! native" in the README). A field whose type has
//! neither is a compile error at the field, whose first lines say what to add
//! (`#[diagnostic::on_unimplemented]`): "jitson cannot decode `Money`: it has
//! neither jitson's `Decode` nor serde's `Deserialize`"; `Encode` says the same
//! for encoding.
//!
//! ```compile_fail
//! struct Money(u64);
//! #[derive(jitson::Decode)]
//! struct Order {
//!     price: Money, // error: jitson cannot decode `Money`
//! }
//! ```
//!
//! ```compile_fail
//! struct Money(u64);
//! #[derive(jitson::Encode)]
//! struct Order {
//!     price: Money, // error: jitson cannot encode `Money`
//! }
//! ```
//!
//! # Borrowing from the input
//!
//! `&'de str` and `Cow<'de, str>` fields, and types with lifetime parameters,
//! borrow unescaped strings from the input instead of allocating (a `&str` given an
//! escaped string is an invalid type, as in serde_json; a `Cow` owns a copy). As
//! with serde's `Deserialize<'de>`, the bound [`DecodeBorrowed<'de>`] ties what a
//! value borrows to the input's lifetime, and [`Decode`] means "owns everything":
//!
//! ```
//! #[derive(jitson::Decode)]
//! struct Event<'a> { id: &'a str, action: std::borrow::Cow<'a, str>, tags: Vec<&'a str> }
//!
//! let text = String::from(r#"{"id": "e1", "action": "push", "tags": ["a"]}"#);
//! let e: Event<'_> = jitson::from_str(&text)?;
//! assert_eq!((e.id, e.tags[0]), ("e1", "a"));
//! # Ok::<(), jitson::Error>(())
//! ```
//!
//! A value cannot outlive its input:
//!
//! ```compile_fail
//! fn leak() -> &'static str {
//!     let text = String::from(r#""x""#);
//!     jitson::from_str::<&str>(&text).unwrap() // error: `text` does not live long enough
//! }
//! ```
//!
//! and a type cannot claim `'static` for what it borrows:
//!
//! ```compile_fail
//! #[derive(jitson::Decode)]
//! struct Forever { name: &'static str } // error: borrowed data must outlive 'static
//! ```
//!
//! # Backends
//!
//! `#[derive(Decode)]` describes a type as a [`TypeLayout`]:
//! size, alignment, and per field its JSON name, byte offset and kind. A backend
//! turns that description into a decoder:
//!
//! - **Interpreter** (crate `jitson-fallback`): walks the layout while parsing and
//!   writes each value at its offset. Runs everywhere.
//! - **JIT** (crate `jitson-jit`, feature `jit`, on by default): the first time a
//!   root type is decoded (or at [`warm_up`]), compiles native code for it and every
//!   layout it reaches with Cranelift, and caches it for the process. The fast path
//!   runs in the generated code; anything unusual (an escape, a long number, a kind
//!   not lowered, any error) is handed to the interpreter for that value. Built
//!   only on x86_64, aarch64, riscv64 and s390x.
//!
//! [`Backend::Auto`] (the default) uses the JIT where it can run and the
//! interpreter otherwise: on other targets, without the `jit` feature, where the
//! OS refuses executable memory (probed once per process), for a layout that fails
//! to compile, or with `JITSON_DISABLE_JIT=1`. [`stats`] says which ran and why.
//!
//! Both give the same results for every input; serde_json (with `float_roundtrip`)
//! and `#[derive(Deserialize)]` on the same type is the reference, and the
//! differences from it are listed in `docs/semantics.md`.
//!
//! # Environment
//!
//! - `JITSON_DISABLE_JIT=1` (read once, at the first decode) switches the JIT
//!   off for the whole process: [`Backend::Auto`] uses the interpreter, and an
//!   explicit [`Backend::Jit`] (here and in jitson-arrow) fails with
//!   [`ErrorKind::BackendUnavailable`] naming the variable; no code is compiled
//!   or run.
//! - `JITSON_DUMP_IR=<dir>` writes the Cranelift IR (`.clif`) and disassembly
//!   (`.s`) of every function the JIT compiles into `<dir>` (see `docs/jit.md`).
//! - `JITSON_TIERING=wait` makes [`Tiering::Wait`] the default (see [`Tiering`]).
//! - `JITSON_STRUCTS=table` or `=unrolled` lowers every struct one way, the
//!   baseline or the optimising tier's, and turns promotion off (read once).
//! - `JITSON_PERF_MAP=1` lists compiled functions in `/tmp/perf-<pid>.map`.

use std::any::TypeId;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

pub use encode::{
    Encoder, to_string, to_string_pretty, to_vec, to_vec_pretty, to_writer, to_writer_lines,
    to_writer_pretty, warm_up_encode,
};
pub use jitson_core::encode::Encode;
pub use jitson_core::{
    Category, Decode, DecodeBorrowed, Error, ErrorKind, HasLayout, IgnoredAny, PathSegment,
    RawValue,
};
pub use jitson_derive::{Decode, Encode};
pub use stream::{
    Position, ReaderValues, Values, decode_lines, from_reader, values, values_from_reader,
};

use jitson_core::error::ErrorCode;
use jitson_core::layout::{self as layout_model, TypeLayout};

mod counts;
mod encode;
mod jit;
mod stream;

#[doc(hidden)]
pub mod __private {
    //! What `#[derive(Decode)]` expands to. Not a public API.
    pub use core;
    pub use jitson_core::decode::{
        BORROWED_COW_BYTES, Decode, DecodeBorrowed, HasLayout, convert_with, decode_variant_with,
        default_init, init_with, layout_of, write_value,
    };
    #[cfg(feature = "serde")]
    pub use jitson_core::encode::serialize_with;
    pub use jitson_core::encode::{
        Encode, encode_layout_of, into_with, never_convert, never_serde_decode,
        never_write_variant, skip_with,
    };
    pub use jitson_core::error::{ErrorCode, Found, expected_names};
    pub use jitson_core::layout::*;
    pub use jitson_core::route::{
        self, DecodeViaLayout, DecodeViaSerde, DecodeViaSerdeOption, EncodeViaLayout,
        EncodeViaSerde, Via,
    };
    pub use std::boxed::Box;
    pub use std::format;
    pub use std::string::{String, ToString};
    pub use std::vec::Vec;
    #[cfg(feature = "serde")]
    pub use {jitson_core::serde_bridge::decode_with_serde, serde};
}

/// Which backend decodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The JIT where it can run, otherwise the interpreter (see the crate docs).
    #[default]
    Auto,
    /// Only the JIT; decoding fails with [`ErrorKind::BackendUnavailable`] where it
    /// cannot run, and when `JITSON_DISABLE_JIT` is set.
    Jit,
    /// Only the interpreter.
    Interpreter,
}

impl Backend {
    /// A short name: `auto`, `jit`, `interpreter`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Jit => "jit",
            Backend::Interpreter => "interpreter",
        }
    }
}

impl Backend {
    /// Whether this backend can run in this process: always for `Auto` and
    /// `Interpreter`; for `Jit`, when the build has the JIT and the probe (compile
    /// and call a trivial decoder, once per process) succeeded.
    pub fn is_available(self) -> bool {
        match self {
            Backend::Jit => jit::available().is_ok(),
            _ => true,
        }
    }
}

/// When [`Backend::Auto`] compiles a type it has not decoded before.
///
/// The process default is [`Tiering::Background`], or [`Tiering::Wait`] when the
/// environment has `JITSON_TIERING=wait` (read once); [`Decoder::tiering`]
/// overrides it per decoder. [`Backend::Jit`] and [`warm_up`] always compile on
/// the calling thread (the baseline tier, or with `Wait` the optimising one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Tiering {
    /// The first decodes of a type run on the interpreter while a background
    /// worker (a small bounded pool, one compile per type) compiles its baseline
    /// tier (struct tables, see `docs/jit.md`, "Tiers"); later decodes switch to
    /// the compiled code as soon as it is ready. Once the type has decoded
    /// 32 MiB on it, a worker compiles the optimising tier (unrolled struct
    /// functions) and decodes switch again. No decode ever waits for a compile.
    /// The tiers of a language VM (V8's Sparkplug and TurboFan), applied to
    /// bytedance/sonic's design, whose first decode of each type compiled on the
    /// request path. With [`Backend::Jit`], the baseline is compiled on the
    /// calling thread, then promoted the same way.
    #[default]
    Background,
    /// The first decode of a type compiles its optimising tier on the calling
    /// thread and waits (concurrent first decodes share that one compile); every
    /// decode runs on that final code, with no tier switch. For benchmarks and
    /// tests that need determinism.
    Wait,
}

impl Tiering {
    /// The process default: `Wait` when `JITSON_TIERING=wait`, else `Background`.
    pub fn from_env() -> Tiering {
        static TIERING: OnceLock<Tiering> = OnceLock::new();
        *TIERING.get_or_init(|| match std::env::var("JITSON_TIERING") {
            Ok(v) if v.eq_ignore_ascii_case("wait") => Tiering::Wait,
            _ => Tiering::Background,
        })
    }
}

/// The engine a decode actually runs on, once [`Backend`] is resolved.
#[derive(Clone, Copy)]
enum Engine {
    Jit(&'static jit::Compiled),
    Interpreter,
}

impl Engine {
    fn name(self) -> &'static str {
        match self {
            Engine::Jit(_) => "jit",
            Engine::Interpreter => "interpreter",
        }
    }
}

/// Why `Auto` fell back to the interpreter.
#[derive(Clone, Copy)]
enum Fallback {
    DisabledByEnv,
    JitUnavailable,
    CompileFailed,
}

/// Tries the JIT for `layout`: available, then compiled (the optimising tier
/// with `Tiering::Wait`, else whatever is compiled or the baseline tier), for an
/// input of `len` bytes.
fn jit_engine(
    layout: &'static TypeLayout,
    tiering: Tiering,
    len: usize,
) -> Result<Engine, (Fallback, &'static str)> {
    jit::available().map_err(|why| (Fallback::JitUnavailable, why))?;
    let want = match tiering {
        Tiering::Wait => jit::Want::Optimized,
        Tiering::Background => jit::Want::Baseline,
    };
    jit::compiled(layout, want, len)
        .map(Engine::Jit)
        .map_err(|why| (Fallback::CompileFailed, why))
}

/// Resolves a requested backend to an engine for a decode of `layout`: with
/// `Auto` and `Background` tiering, the compiled code if it is ready, else the
/// interpreter while a worker compiles it; otherwise as
/// [`choose_engine_counting`]. Fails only for `Backend::Jit` when the JIT cannot
/// serve the layout.
fn choose_engine(
    backend: Backend,
    tiering: Tiering,
    layout: &'static TypeLayout,
    len: usize,
) -> Result<(Engine, Option<jit::Learner>), Error> {
    if backend == Backend::Auto && tiering == Tiering::Background && !jit_disabled_by_env() {
        let engine = match jit::compiled_or_queue(layout, len) {
            jit::Tier::Ready(compiled) => Engine::Jit(compiled),
            jit::Tier::Compiling => {
                STATS.tiered_decodes.fetch_add(1, Ordering::Relaxed);
                Engine::Interpreter
            }
            jit::Tier::Learn(learner) => {
                STATS.tiered_decodes.fetch_add(1, Ordering::Relaxed);
                return Ok((Engine::Interpreter, Some(learner)));
            }
            jit::Tier::Unavailable(why) => {
                STATS.count_fallback(Fallback::JitUnavailable, why);
                Engine::Interpreter
            }
            jit::Tier::Failed(why) => {
                STATS.count_fallback(Fallback::CompileFailed, why);
                Engine::Interpreter
            }
        };
        return Ok((engine, None));
    }
    Ok((
        choose_engine_counting(backend, tiering, layout, len, true)?,
        None,
    ))
}

/// [`choose_engine`], optionally without counting a fallback (for warm-up, which
/// decodes nothing).
fn choose_engine_counting(
    backend: Backend,
    tiering: Tiering,
    layout: &'static TypeLayout,
    len: usize,
    count: bool,
) -> Result<Engine, Error> {
    match backend {
        Backend::Interpreter => Ok(Engine::Interpreter),
        Backend::Jit => jit_engine(layout, tiering, len)
            .map_err(|(_, why)| Error::without_position(ErrorCode::BackendUnavailable(why))),
        Backend::Auto => {
            let attempt = if jit_disabled_by_env() {
                Err((Fallback::DisabledByEnv, "JITSON_DISABLE_JIT is set"))
            } else {
                jit_engine(layout, tiering, len)
            };
            Ok(attempt.unwrap_or_else(|(fallback, why)| {
                if count {
                    STATS.count_fallback(fallback, why);
                }
                Engine::Interpreter
            }))
        }
    }
}

/// Whether `JITSON_DISABLE_JIT` is set to a value other than empty or `0`; read once.
fn jit_disabled_by_env() -> bool {
    static DISABLED: OnceLock<bool> = OnceLock::new();
    *DISABLED.get_or_init(|| {
        std::env::var_os("JITSON_DISABLE_JIT").is_some_and(|v| !v.is_empty() && v != "0")
    })
}

/// A decoder for `T` with a chosen backend and depth limit. Cheap to create and to
/// copy; holds no per-decode state.
pub struct Decoder<T> {
    backend: Backend,
    max_depth: u32,
    tiering: Tiering,
    _type: PhantomData<fn() -> T>,
}

impl<T> Clone for Decoder<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Decoder<T> {}

impl<T> core::fmt::Debug for Decoder<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Decoder")
            .field("type", &core::any::type_name::<T>())
            .field("backend", &self.backend)
            .field("max_depth", &self.max_depth)
            .field("tiering", &self.tiering)
            .finish()
    }
}

impl<T> Default for Decoder<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// serde_json's default recursion limit.
pub const DEFAULT_MAX_DEPTH: u32 = 128;

/// The largest depth limit that applies where the thread's stack bounds are
/// unknown (the stack check below cannot run there: a target the `stacker` crate
/// cannot ask, Miri); a higher [`Decoder::max_depth`], or
/// [`Decoder::disable_recursion_limit`], is lowered to it there. Each level of
/// decoded nesting takes stack frames in either backend (about 1.5 KiB per level
/// for the interpreter in a release build, 3 KiB in a debug build, more for
/// types holding large values inline); wherever the bounds are known, both
/// backends check the thread's remaining stack before each level and report a
/// depth error rather than overflow (see `docs/semantics.md`), so any limit is
/// safe.
pub const MAX_DEPTH_LIMIT: u32 = 512;

impl<T> Decoder<T> {
    /// A decoder using [`Backend::Auto`] and a depth limit of 128.
    pub fn new() -> Self {
        Self::with_backend(Backend::Auto)
    }

    /// A decoder using `backend`, with the process's default [`Tiering`].
    pub fn with_backend(backend: Backend) -> Self {
        Decoder {
            backend,
            max_depth: DEFAULT_MAX_DEPTH,
            tiering: Tiering::from_env(),
            _type: PhantomData,
        }
    }

    /// Sets when [`Backend::Auto`] compiles `T` (and what its first decodes run
    /// on); other backends ignore it.
    pub fn tiering(mut self, tiering: Tiering) -> Self {
        self.tiering = tiering;
        self
    }

    /// Sets how deeply decoded arrays and objects may nest (the array or object that
    /// would be the `max_depth`-th level is rejected with [`ErrorKind::DepthLimit`],
    /// as with serde_json's recursion limit). Values that are skipped (unknown
    /// fields, [`IgnoredAny`], [`RawValue`]) are not limited.
    ///
    /// Any limit is safe: decoding recurses once per level, and before each
    /// level both backends check the thread's remaining stack, so a thread
    /// whose stack is nearly full gets [`ErrorKind::DepthLimit`] ("the thread's
    /// stack is nearly full") before the limit, never an overflow. Where the
    /// stack's bounds are unknown, a limit above [`MAX_DEPTH_LIMIT`] is lowered
    /// to it. A limit of 0 counts as 1.
    pub fn max_depth(mut self, max_depth: u32) -> Self {
        self.max_depth = max_depth.max(1);
        self
    }

    /// No depth limit (as serde_json's `disable_recursion_limit`): documents
    /// nest as deeply as the thread's stack holds, and a nesting the stack
    /// cannot hold is a [`ErrorKind::DepthLimit`] error ("the thread's stack is
    /// nearly full"), never a stack overflow. Run deep documents on a thread
    /// with a large stack (`std::thread::Builder::stack_size`). Where the
    /// stack's bounds are unknown, the limit is [`MAX_DEPTH_LIMIT`].
    pub fn disable_recursion_limit(mut self) -> Self {
        self.max_depth = u32::MAX;
        self
    }

    /// The depth limit this decode runs with: [`max_depth`](Self::max_depth),
    /// unless it is above [`MAX_DEPTH_LIMIT`] and this thread's stack cannot be
    /// checked.
    fn depth_limit(&self) -> u32 {
        if self.max_depth > MAX_DEPTH_LIMIT && jitson_core::stack::limit() == 0 {
            MAX_DEPTH_LIMIT
        } else {
            self.max_depth
        }
    }

    /// The requested backend.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Decodes `input`, checking that its strings are UTF-8. A `T` that borrows
    /// (`&'de str`, `Cow<'de, str>` fields) borrows from `input`.
    pub fn decode_slice<'de>(&self, input: &'de [u8]) -> Result<T, Error>
    where
        T: DecodeBorrowed<'de>,
    {
        self.decode_bytes(input, true)
    }

    /// Decodes `input`. A `T` that borrows, borrows from `input`.
    pub fn decode_str<'de>(&self, input: &'de str) -> Result<T, Error>
    where
        T: DecodeBorrowed<'de>,
    {
        self.decode_bytes(input.as_bytes(), false)
    }

    /// Prepares everything decoding `T` needs with this decoder's backend, so that
    /// the first decode pays nothing extra; see [`warm_up`].
    ///
    /// # Errors
    /// `UnsupportedType` if no backend decodes `T` (a flattened field that is
    /// neither a struct, an `Option` of one, nor a map: every decode would fail);
    /// `BackendUnavailable` for [`Backend::Jit`] where the JIT cannot serve `T`.
    pub fn warm_up(&self) -> Result<(), Error>
    where
        T: HasLayout,
    {
        if let Some(why) = jitson_fallback::unsupported(T::LAYOUT) {
            return Err(Error::without_position(ErrorCode::UnsupportedType(
                why.into(),
            )));
        }
        choose_engine_counting(self.backend, self.tiering, T::LAYOUT, 0, false)?;
        prepare(T::LAYOUT);
        Ok(())
    }

    /// Decodes a `T` from `input`; `T: DecodeBorrowed<'de>` (checked by the
    /// callers) makes whatever `T` borrows from `input` valid for as long as `T`.
    fn decode_bytes(&self, input: &[u8], validate_utf8: bool) -> Result<T, Error>
    where
        T: HasLayout,
    {
        let mut out = MaybeUninit::<T>::uninit();
        self.decode_at_start_into(input, validate_utf8, None, &mut out)?;
        // SAFETY: the decode succeeded, so `out` holds a whole T.
        Ok(unsafe { out.assume_init() })
    }

    /// Decodes a `T` from the start of `input`: the whole of it (one document)
    /// when `prefix` is `None`; with `Some(len)`, only its first value (what
    /// follows is not read), `len` being the bytes to count for tiering (the
    /// value's length is not known before it is parsed). Returns the value and
    /// the offset just after it. Borrowing as for
    /// [`decode_bytes`](Self::decode_bytes).
    fn decode_at_start(
        &self,
        input: &[u8],
        validate_utf8: bool,
        prefix: Option<usize>,
    ) -> Result<(T, usize), Error>
    where
        T: HasLayout,
    {
        let mut out = MaybeUninit::<T>::uninit();
        let end = self.decode_at_start_into(input, validate_utf8, prefix, &mut out)?;
        // SAFETY: the decode succeeded, so `out` holds a whole T.
        Ok((unsafe { out.assume_init() }, end))
    }

    /// [`decode_at_start`](Self::decode_at_start) into `out`, which holds the
    /// whole `T` when it returns `Ok` (and nothing otherwise). Every backend
    /// writes its value there: the value is moved once, by the public
    /// function that returns it, where passing it back up by value copied a
    /// `T` in each of two frames (a 400-byte `Order` twice, by `memcpy`).
    fn decode_at_start_into(
        &self,
        input: &[u8],
        validate_utf8: bool,
        prefix: Option<usize>,
        out: &mut MaybeUninit<T>,
    ) -> Result<usize, Error>
    where
        T: HasLayout,
    {
        let len = prefix.unwrap_or(input.len());
        // The path of a decode in a loop: the thread's last decoder is this
        // type's, so no engine is chosen and no learner can exist.
        if let Some(compiled) = self.last_compiled(len) {
            return self.decode_compiled(compiled, input, validate_utf8, prefix, out);
        }
        self.decode_choosing(input, validate_utf8, prefix, len, out)
    }

    /// The thread's last decoder when it is this decoder's choice for `T` (the
    /// compiled code `choose_engine` would pick, without a lookup), counting
    /// this decode of `len` bytes; `None` when the choice needs
    /// [`choose_engine`] (which then counts it).
    #[inline]
    fn last_compiled(&self, len: usize) -> Option<&'static jit::Compiled>
    where
        T: HasLayout,
    {
        let final_only = match (self.backend, self.tiering) {
            (Backend::Interpreter, _) => return None,
            (Backend::Auto, _) if jit_disabled_by_env() => return None,
            (Backend::Auto, Tiering::Background) => false,
            (_, Tiering::Wait) => true,
            (Backend::Jit, Tiering::Background) => false,
        };
        jit::last_ready(T::LAYOUT, final_only, len)
    }

    /// [`decode_at_start`](Self::decode_at_start) after choosing the engine:
    /// the first decode of a type on this thread, a type not compiled (yet),
    /// the interpreter, or the decode that reports the thread's counts.
    #[inline(never)]
    fn decode_choosing(
        &self,
        input: &[u8],
        validate_utf8: bool,
        prefix: Option<usize>,
        len: usize,
        out: &mut MaybeUninit<T>,
    ) -> Result<usize, Error>
    where
        T: HasLayout,
    {
        let (engine, learner) = if self.backend == Backend::Interpreter {
            (Engine::Interpreter, None)
        } else {
            choose_engine(self.backend, self.tiering, T::LAYOUT, len)?
        };
        if let Engine::Jit(compiled) = engine {
            return self.decode_compiled(compiled, input, validate_utf8, prefix, out);
        }
        debug_assert_eq!(engine.name(), "interpreter");
        // Whatever this decode stashes and does not resume is gone when it returns
        // or unwinds; a decode run from a `Drop` inside another keeps its own.
        let _panics = jitson_core::panic::Scope::enter();
        let dst: *mut u8 = out.as_mut_ptr().cast();
        counts::count(counts::Count::Interpreter);
        // The first decode of a type waiting for its compile records the key
        // orders it sees; dropping the learner (after this decode, however it
        // ends) queues the compile with them.
        let mut learner = learner;
        let end = self.interpret(
            input,
            validate_utf8,
            dst,
            learner.as_mut().map(jit::Learner::orders),
            prefix.is_some(),
        )?;
        // SAFETY: on success the interpreter has written a whole T.
        unsafe { decoded(out) };
        Ok(end)
    }

    /// Decodes with `compiled`, the JIT's decoder for `T`; where it fails, the
    /// interpreter decodes again to build the error (or, when only the stack ran
    /// short, the value). Arguments as for
    /// [`decode_at_start`](Self::decode_at_start).
    #[inline]
    fn decode_compiled(
        &self,
        compiled: &'static jit::Compiled,
        input: &[u8],
        validate_utf8: bool,
        prefix: Option<usize>,
        out: &mut MaybeUninit<T>,
    ) -> Result<usize, Error>
    where
        T: HasLayout,
    {
        // As in `decode_choosing`.
        let _panics = jitson_core::panic::Scope::enter();
        let dst: *mut u8 = out.as_mut_ptr().cast();
        // A root the JIT hands to the interpreter whole runs no compiled
        // code of its own: the interpreter's decode.
        counts::count(if jit::root_interpreted(compiled) {
            counts::Count::Interpreter
        } else {
            counts::Count::Jit
        });
        let mut out_of_stack = false;
        // SAFETY: `compiled` was compiled for `T::LAYOUT`, and `dst` is room for a T.
        match unsafe { jit::run(compiled, input, self.depth_limit(), validate_utf8, dst) } {
            Ok(end)
                if prefix.is_some() || jitson_core::text::skip_ws(input, end) == input.len() =>
            {
                // SAFETY: the compiled decoder wrote a whole T.
                unsafe { decoded(out) };
                return Ok(end);
            }
            Ok(_) => {
                // Trailing characters: the interpreter below reports them.
                // SAFETY: the decoder succeeded, so `out` holds a T, dropped
                // once; a panicking `Drop` is stashed and resumed below.
                jitson_core::panic::catch(|| unsafe { out.assume_init_drop() });
                jitson_core::panic::resume();
            }
            Err(failure) => {
                out_of_stack = failure.out_of_stack;
                jitson_core::panic::resume();
            }
        }
        // The JIT only says that decoding failed; the interpreter, which it
        // agrees with by construction, rebuilds the error with its path. Only a
        // full stack is not the document's fault: from this shallower frame
        // the interpreter may decode it.
        let result = self.interpret(input, validate_utf8, dst, None, prefix.is_some());
        debug_assert!(
            result.is_err() || out_of_stack,
            "the JIT rejected a document the interpreter accepts"
        );
        result.inspect(|_| {
            // SAFETY: the interpreter wrote a whole T.
            unsafe { decoded(out) }
        })
    }

    /// Decodes with the interpreter into `dst` (room for a T): the whole input,
    /// or with `prefix` its first value; returns where the value ends. Resumes
    /// a panic from user code.
    fn interpret(
        &self,
        input: &[u8],
        validate_utf8: bool,
        dst: *mut u8,
        learn: Option<&mut jitson_core::layout::KeyOrders>,
        prefix: bool,
    ) -> Result<usize, Error>
    where
        T: HasLayout,
    {
        let options = jitson_fallback::Options {
            max_depth: self.depth_limit(),
            validate_utf8,
        };
        // SAFETY: `dst` is aligned room for a T and `T::LAYOUT` describes T (the
        // `Decode` contract); `from_str` input is UTF-8.
        let result = unsafe {
            match (prefix, learn) {
                (true, learn) => {
                    jitson_fallback::decode_prefix(input, T::LAYOUT, dst, &options, learn)
                }
                (false, Some(orders)) => {
                    jitson_fallback::decode_learning(input, T::LAYOUT, dst, &options, orders)
                        .map(|()| input.len())
                }
                (false, None) => {
                    jitson_fallback::decode(input, T::LAYOUT, dst, &options).map(|()| input.len())
                }
            }
        };
        if result.is_err() {
            // A panic in user code (a default fn, a Drop) continues here, now that
            // no backend frame is on the stack.
            jitson_core::panic::resume();
        }
        result
    }
}

/// Keeps the value a successful decode wrote to `out`, unless a panic from
/// user code is still pending: a `Drop` that panicked while the decode dropped
/// a partly built value it then rebuilt (a JIT slow path, an untagged enum's
/// next variant). Then the value is dropped and the panic resumes now,
/// whichever backend decoded, not in some later decode. The drop runs under
/// `catch`: a second panic there must not unwind past the first one's payload.
///
/// # Safety
/// `out` holds a whole `T`.
unsafe fn decoded<T>(out: &mut MaybeUninit<T>) {
    if jitson_core::panic::is_pending() {
        // SAFETY: `out` holds a whole T (caller), dropped once here; the
        // unwinding below leaves nothing at `out` for the caller to use.
        jitson_core::panic::catch(|| unsafe { out.assume_init_drop() });
        jitson_core::panic::resume();
        unreachable!("a pending panic resumes");
    }
}

/// Decodes a `T` from UTF-8 bytes with [`Backend::Auto`]; strings are checked to be
/// UTF-8.
///
/// # Errors
/// Any malformed JSON, any value that does not fit `T`, invalid UTF-8 (see
/// [`ErrorKind`]); the error tells where ([`Error::offset`], [`Error::line`],
/// [`Error::column`], [`Error::path`]).
pub fn from_slice<'de, T: DecodeBorrowed<'de>>(input: &'de [u8]) -> Result<T, Error> {
    Decoder::<T>::new().decode_slice(input)
}

/// Decodes a `T` from a string with [`Backend::Auto`].
///
/// # Errors
/// As [`from_slice`], without the UTF-8 check.
pub fn from_str<'de, T: DecodeBorrowed<'de>>(input: &'de str) -> Result<T, Error> {
    Decoder::<T>::new().decode_str(input)
}

/// Prepares decoding documents whose root is a `T`, now, so the first such decode
/// pays nothing extra (as bytedance/sonic's `Pretouch`, but including every
/// dependent type): with [`Backend::Auto`] and the JIT available, compiles `T`'s
/// decoder (its baseline tier: about 0.03 ms for a 30-field struct), which contains the
/// code for every type reachable from `T` as it appears inside a `T`; afterwards
/// no decode of `T` compiles on its own thread (see
/// [`Stats::layouts_compiled`]): once `T` is hot, a background worker compiles
/// its optimising tier ([`Stats::promotions`]).
///
/// A type reachable from `T` but decoded on its own (`from_slice::<U>` where `T`
/// has a `U` field) is the root of another decoder, which compiles on its first
/// use: warm it up too if it is decoded as a root.
///
/// # Errors
/// `UnsupportedType` when no backend decodes `T` (see [`Decoder::warm_up`]);
/// nothing else with `Backend::Auto` (a JIT that cannot compile `T` is recorded
/// in [`stats`] and `T` is decoded by the interpreter).
pub fn warm_up<T: HasLayout>() -> Result<(), Error> {
    Decoder::<T>::new().warm_up()
}

/// Layouts prepared so far, by type identity.
fn prepared() -> &'static std::sync::Mutex<std::collections::HashSet<TypeId>> {
    static PREPARED: OnceLock<std::sync::Mutex<std::collections::HashSet<TypeId>>> =
        OnceLock::new();
    PREPARED.get_or_init(Default::default)
}

fn prepare(root: &'static TypeLayout) {
    let mut set = prepared()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    layout_model::visit_reachable(root, |layout| {
        set.insert((layout.type_id)());
    });
}

struct Counters {
    tiered_decodes: AtomicU64,
    fallback_env: AtomicU64,
    fallback_unavailable: AtomicU64,
    fallback_compile: AtomicU64,
    last_reason: Mutex<[Option<&'static str>; 3]>,
}

impl Counters {
    fn count_fallback(&self, fallback: Fallback, why: &'static str) {
        let counter = match fallback {
            Fallback::DisabledByEnv => &self.fallback_env,
            Fallback::JitUnavailable => &self.fallback_unavailable,
            Fallback::CompileFailed => &self.fallback_compile,
        };
        if counter.fetch_add(1, Ordering::Relaxed) == 0
            || matches!(fallback, Fallback::CompileFailed)
        {
            let mut reasons = self.last_reason.lock().unwrap_or_else(|p| p.into_inner());
            reasons[fallback as usize] = Some(why);
        }
    }
}

static STATS: Counters = Counters {
    tiered_decodes: AtomicU64::new(0),
    fallback_env: AtomicU64::new(0),
    fallback_unavailable: AtomicU64::new(0),
    fallback_compile: AtomicU64::new(0),
    last_reason: Mutex::new([None; 3]),
};

/// What jitson has done in this process so far (all counts since start-up).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Decodes run by the interpreter (successful or not).
    pub interpreter_decodes: u64,
    /// Decodes run by JIT-compiled code (successful or not; a failed one is then
    /// re-run by the interpreter to build the error, which is not counted again).
    /// A decode whose root type the JIT hands to the interpreter whole (see
    /// `interpreted_layouts`) counts as an interpreter decode; one whose
    /// compiled root hands some fields to it counts here.
    pub jit_decodes: u64,
    /// Distinct layouts prepared by [`warm_up`].
    pub layouts_prepared: u64,
    /// Root layouts compiled by the JIT (each covers every layout it reaches).
    pub layouts_compiled: u64,
    /// Time spent compiling, in total and for the slowest root layout.
    pub compile_time_total: std::time::Duration,
    pub compile_time_max: std::time::Duration,
    /// Machine code generated for decoders, in bytes (encoders:
    /// `encoder_code_bytes`).
    pub code_bytes: u64,
    /// [`Backend::Auto`] decodes that ran on the interpreter, per reason:
    /// `JITSON_DISABLE_JIT`, the JIT unavailable (not built, executable memory
    /// refused), or a layout that failed to compile; with the reason's text.
    pub auto_fallbacks: Vec<(String, u64)>,
    /// Layouts the JIT hands to the interpreter whole, as (Rust type name from
    /// `core::any::type_name`, reason): kinds it does not lower yet, and the
    /// types of fields decoded or encoded by their serde impls (only that
    /// field's value leaves the compiled code; the struct holding it is not
    /// listed unless it is itself handed over).
    pub interpreted_layouts: Vec<(String, String)>,
    /// Layouts the JIT failed to compile (type, error).
    pub compile_failures: Vec<(String, String)>,
    /// Whether `JITSON_DISABLE_JIT` switched the JIT off.
    pub jit_disabled_by_env: bool,
    /// [`Backend::Auto`] decodes run by the interpreter because their type was
    /// still compiling in the background ([`Tiering::Background`]); included in
    /// `interpreter_decodes`, not in `auto_fallbacks`.
    pub tiered_decodes: u64,
    /// Types compiled by a background worker, whose decodes then switched from
    /// the interpreter to the compiled code.
    pub tier_switches: u64,
    /// Types queued for a background compile and not yet started.
    pub compile_queue: u64,
    /// Background compile threads started (at most two).
    pub compile_workers: u64,
    /// Time calling threads spent compiling or waiting for a compile:
    /// [`warm_up`], [`Backend::Jit`] and [`Tiering::Wait`]. Decodes with
    /// [`Tiering::Background`] never add to it.
    pub caller_compile_wait: std::time::Duration,
    /// Why a background compile thread could not be started, if one could not
    /// (the interpreter then keeps serving the queued types).
    pub compile_worker_error: Option<String>,
    /// Struct layouts compiled to speculate on a key order learned from a
    /// document (the first decode of a type in the background tier records the
    /// order of each struct's keys) rather than the declaration order.
    pub learned_key_orders: u64,
    /// Compiles for a new key order: a type's documents drifted from the
    /// compiled speculation (at most 8 per type; see `docs/jit.md`, "Tiers").
    pub key_order_relearns: u64,
    /// Types compiled again in the optimising tier (unrolled struct functions)
    /// once hot: after 32 MiB of input decoded by their baseline tier (see
    /// `docs/jit.md`, "Tiers").
    pub promotions: u64,
    /// Encoders the JIT compiled (one per root type and encoder options),
    /// the time they took, and how many a background worker compiled, each
    /// switching [`Backend::Auto`] encodes of its type from the interpreter
    /// to the compiled code.
    pub encoders_compiled: u64,
    pub encoder_compile_time: std::time::Duration,
    pub encoder_tier_switches: u64,
    /// Machine code generated for encoders, in bytes.
    pub encoder_code_bytes: u64,
    /// Layouts the compiled encoders hand to the interpreter, value by value,
    /// as (Rust type name, reason): kinds the JIT's encoder does not lower
    /// (untagged enum payloads it cannot place, conversions, `char`, ...) and
    /// fields encoded by their serde impls. The struct around such a value
    /// stays compiled.
    pub encoder_interpreted_layouts: Vec<(String, String)>,
}

impl Stats {
    /// All `Auto` fallbacks, whatever the reason.
    pub fn auto_fallback_count(&self) -> u64 {
        self.auto_fallbacks.iter().map(|(_, n)| n).sum()
    }
}

/// A snapshot of the process-wide [`Stats`].
///
/// Decode counts are kept per thread, so counting costs a decode no locked
/// instruction: they include every decode of the calling thread, and another
/// thread's once something orders it before this call (joining that thread,
/// a message from it).
pub fn stats() -> Stats {
    let cache = jit::cache_stats();
    let encoders = jit::encoder_stats();
    let reasons = *STATS.last_reason.lock().unwrap_or_else(|p| p.into_inner());
    let counts = [
        &STATS.fallback_env,
        &STATS.fallback_unavailable,
        &STATS.fallback_compile,
    ];
    let auto_fallbacks = counts
        .iter()
        .zip(reasons)
        .filter_map(|(count, why)| {
            let n = count.load(Ordering::Relaxed);
            (n > 0).then(|| (why.unwrap_or("unknown").to_owned(), n))
        })
        .collect();
    let decodes = counts::totals();
    Stats {
        interpreter_decodes: decodes[counts::Count::Interpreter as usize],
        jit_decodes: decodes[counts::Count::Jit as usize],
        layouts_prepared: prepared()
            .lock()
            .map_or_else(|p| p.into_inner().len(), |s| s.len()) as u64,
        layouts_compiled: cache.compiled,
        compile_time_total: cache.compile_time_total,
        compile_time_max: cache.compile_time_max,
        code_bytes: cache.code_bytes,
        auto_fallbacks,
        interpreted_layouts: cache.interpreted,
        compile_failures: cache.failures,
        jit_disabled_by_env: jit_disabled_by_env(),
        tiered_decodes: STATS.tiered_decodes.load(Ordering::Relaxed),
        tier_switches: cache.tier_switches,
        compile_queue: cache.compile_queue,
        compile_workers: cache.compile_workers,
        caller_compile_wait: cache.caller_wait,
        compile_worker_error: cache.worker_spawn_error,
        learned_key_orders: cache.learned_orders,
        key_order_relearns: cache.relearns,
        promotions: cache.promotions,
        encoders_compiled: encoders.0,
        encoder_compile_time: encoders.1,
        encoder_tier_switches: encoders.2,
        encoder_code_bytes: encoders.3,
        encoder_interpreted_layouts: jit::encoder_interpreted(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_choice() {
        let layout = <u8 as HasLayout>::LAYOUT;
        assert_eq!(
            choose_engine(Backend::Interpreter, Tiering::Wait, layout, 0)
                .unwrap()
                .0
                .name(),
            "interpreter"
        );
        let expected = if Backend::Jit.is_available() && !jit_disabled_by_env() {
            "jit"
        } else {
            "interpreter"
        };
        assert_eq!(
            choose_engine(Backend::Auto, Tiering::Wait, layout, 0)
                .unwrap()
                .0
                .name(),
            expected
        );
        match choose_engine(Backend::Jit, Tiering::Wait, layout, 0) {
            Ok((engine, _)) => assert_eq!(engine.name(), "jit"),
            Err(err) => {
                assert!(!Backend::Jit.is_available());
                assert_eq!(err.kind(), ErrorKind::BackendUnavailable);
            }
        }
    }
}
