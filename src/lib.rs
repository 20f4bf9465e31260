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
//! # Backends
//!
//! `#[derive(Decode)]` describes a type as a [`TypeLayout`](__private::TypeLayout):
//! size, alignment, and per field its JSON name, byte offset and kind. A backend
//! turns that description into a decoder:
//!
//! - **Interpreter** (crate `jitson-fallback`): walks the layout while parsing and
//!   writes each value at its offset. Runs everywhere.
//! - **JIT** (crate `jitson-jit`): will compile each layout to native code with
//!   Cranelift. It is not built yet: [`Backend::Jit`] reports it unavailable and
//!   [`Backend::Auto`] uses the interpreter.
//!
//! Both give the same results for every input; serde_json (with `float_roundtrip`)
//! and `#[derive(Deserialize)]` on the same type is the reference, and the
//! differences from it are listed in `docs/semantics.md`.
//!
//! # Environment
//!
//! `JITSON_DISABLE_JIT=1` (read once, at the first decode) makes [`Backend::Auto`]
//! use the interpreter.

use std::any::TypeId;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

pub use jitson_core::{Category, Decode, Error, ErrorKind, IgnoredAny, PathSegment, RawValue};
pub use jitson_derive::Decode;

use jitson_core::error::ErrorCode;
use jitson_core::layout::{self as layout_model, TypeLayout};

#[doc(hidden)]
pub mod __private {
    //! What `#[derive(Decode)]` expands to. Not a public API.
    pub use core;
    pub use jitson_core::decode::{Decode, default_init, init_with, layout_of, write_value};
    pub use jitson_core::error::ErrorCode;
    pub use jitson_core::layout::*;
}

/// Which backend decodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The JIT where it can run, otherwise the interpreter (see the crate docs).
    #[default]
    Auto,
    /// Only the JIT; decoding fails with [`ErrorKind::BackendUnavailable`] where it
    /// cannot run.
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

/// The engine a decode actually runs on, once [`Backend`] is resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    Interpreter,
}

/// Why the JIT cannot serve a request.
const JIT_UNAVAILABLE: &str = "the Cranelift JIT backend is not part of this build yet; use Backend::Auto or Backend::Interpreter";

/// Resolves a requested backend to an engine: JIT first where allowed, then the
/// interpreter. Fails only for `Backend::Jit` when the JIT cannot run.
fn choose_engine(backend: Backend) -> Result<Engine, Error> {
    match backend {
        Backend::Interpreter => Ok(Engine::Interpreter),
        Backend::Auto => {
            // The JIT would be tried here unless `jit_disabled_by_env()`.
            let _ = jit_disabled_by_env();
            STATS.auto_fallbacks.fetch_add(1, Ordering::Relaxed);
            Ok(Engine::Interpreter)
        }
        Backend::Jit => Err(Error::without_position(ErrorCode::BackendUnavailable(
            JIT_UNAVAILABLE,
        ))),
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
            .finish()
    }
}

impl<T: Decode> Default for Decoder<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// serde_json's default recursion limit.
pub const DEFAULT_MAX_DEPTH: u32 = 128;

impl<T: Decode> Decoder<T> {
    /// A decoder using [`Backend::Auto`] and a depth limit of 128.
    pub fn new() -> Self {
        Self::with_backend(Backend::Auto)
    }

    /// A decoder using `backend`.
    pub fn with_backend(backend: Backend) -> Self {
        Decoder {
            backend,
            max_depth: DEFAULT_MAX_DEPTH,
            _type: PhantomData,
        }
    }

    /// Sets how deeply decoded arrays and objects may nest (the array or object that
    /// would be the `max_depth`-th level is rejected with [`ErrorKind::DepthLimit`],
    /// as with serde_json's recursion limit). Values that are skipped (unknown
    /// fields, [`IgnoredAny`], [`RawValue`]) are not limited.
    pub fn max_depth(mut self, max_depth: u32) -> Self {
        self.max_depth = max_depth.max(1);
        self
    }

    /// The requested backend.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Decodes `input`, checking that its strings are UTF-8.
    pub fn decode_slice(&self, input: &[u8]) -> Result<T, Error> {
        self.decode_bytes(input, true)
    }

    /// Decodes `input`.
    pub fn decode_str(&self, input: &str) -> Result<T, Error> {
        self.decode_bytes(input.as_bytes(), false)
    }

    /// Prepares everything decoding `T` needs with this decoder's backend, so that
    /// the first decode pays nothing extra; see [`warm_up`].
    pub fn warm_up(&self) -> Result<(), Error> {
        choose_engine(self.backend)?;
        prepare(T::LAYOUT);
        Ok(())
    }

    fn decode_bytes(&self, input: &[u8], validate_utf8: bool) -> Result<T, Error> {
        match choose_engine(self.backend)? {
            Engine::Interpreter => {
                STATS.interpreter_decodes.fetch_add(1, Ordering::Relaxed);
                let options = jitson_fallback::Options {
                    max_depth: self.max_depth,
                    validate_utf8,
                };
                let mut out = MaybeUninit::<T>::uninit();
                // SAFETY: `out` is aligned room for a T and `T::LAYOUT` describes T
                // (the `Decode` contract); `from_str` input is UTF-8.
                let result = unsafe {
                    jitson_fallback::decode(input, T::LAYOUT, out.as_mut_ptr().cast(), &options)
                };
                match result {
                    // SAFETY: on success the interpreter has written a whole T.
                    Ok(()) => Ok(unsafe { out.assume_init() }),
                    Err(e) => {
                        // A panic in user code (a default fn, a Drop) continues here,
                        // now that no backend frame is on the stack.
                        jitson_core::panic::resume();
                        Err(e)
                    }
                }
            }
        }
    }
}

/// Decodes a `T` from UTF-8 bytes with [`Backend::Auto`]; strings are checked to be
/// UTF-8.
///
/// # Errors
/// Any malformed JSON, any value that does not fit `T`, invalid UTF-8 (see
/// [`ErrorKind`]); the error tells where ([`Error::offset`], [`Error::line`],
/// [`Error::column`], [`Error::path`]).
pub fn from_slice<T: Decode>(input: &[u8]) -> Result<T, Error> {
    Decoder::<T>::new().decode_slice(input)
}

/// Decodes a `T` from a string with [`Backend::Auto`].
///
/// # Errors
/// As [`from_slice`], without the UTF-8 check.
pub fn from_str<T: Decode>(input: &str) -> Result<T, Error> {
    Decoder::<T>::new().decode_str(input)
}

/// Prepares decoding `T` and every type reachable from it, now, so the first decode
/// pays nothing extra (as bytedance/sonic's `Pretouch`, but including every
/// dependent type). Today that registers the layouts; once the JIT lands it compiles
/// them.
///
/// # Errors
/// None today; kept fallible for the JIT, whose compilation can fail.
pub fn warm_up<T: Decode>() -> Result<(), Error> {
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
        set.insert(layout.id());
    });
}

struct Counters {
    interpreter_decodes: AtomicU64,
    jit_decodes: AtomicU64,
    auto_fallbacks: AtomicU64,
}

static STATS: Counters = Counters {
    interpreter_decodes: AtomicU64::new(0),
    jit_decodes: AtomicU64::new(0),
    auto_fallbacks: AtomicU64::new(0),
};

/// What jitson has done in this process so far (all counts since start-up).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Decodes run by the interpreter (successful or not).
    pub interpreter_decodes: u64,
    /// Decodes run by JIT-compiled code.
    pub jit_decodes: u64,
    /// Distinct layouts prepared by [`warm_up`].
    pub layouts_prepared: u64,
    /// Layouts compiled by the JIT.
    pub layouts_compiled: u64,
    /// [`Backend::Auto`] decodes that ran on the interpreter because the JIT could
    /// not serve them, with [`Stats::fallback_reason`] saying why.
    pub auto_fallbacks: u64,
    /// Why `Auto` falls back to the interpreter, when it does.
    pub fallback_reason: Option<&'static str>,
    /// Whether `JITSON_DISABLE_JIT` switched the JIT off.
    pub jit_disabled_by_env: bool,
}

/// A snapshot of the process-wide [`Stats`].
pub fn stats() -> Stats {
    let fallbacks = STATS.auto_fallbacks.load(Ordering::Relaxed);
    Stats {
        interpreter_decodes: STATS.interpreter_decodes.load(Ordering::Relaxed),
        jit_decodes: STATS.jit_decodes.load(Ordering::Relaxed),
        layouts_prepared: prepared()
            .lock()
            .map_or_else(|p| p.into_inner().len(), |s| s.len()) as u64,
        layouts_compiled: 0,
        auto_fallbacks: fallbacks,
        fallback_reason: (fallbacks > 0).then_some(if jit_disabled_by_env() {
            "JITSON_DISABLE_JIT is set"
        } else {
            "the JIT backend is not built yet"
        }),
        jit_disabled_by_env: jit_disabled_by_env(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_choice() {
        assert_eq!(
            choose_engine(Backend::Interpreter).unwrap(),
            Engine::Interpreter
        );
        assert_eq!(choose_engine(Backend::Auto).unwrap(), Engine::Interpreter);
        let err = choose_engine(Backend::Jit).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BackendUnavailable);
        assert!(err.to_string().contains("JIT"), "{err}");
    }
}
