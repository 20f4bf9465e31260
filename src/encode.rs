//! Encoding: `to_vec`, `to_string`, `to_writer` and their pretty forms, the
//! NDJSON writer, and [`Encoder`] for options and reused buffers.
//!
//! The bytes are serde_json's for the same value and derived `Serialize`
//! (`to_vec` ↔ `serde_json::to_vec`, `to_vec_pretty` ↔
//! `serde_json::to_vec_pretty`), including its float text (zmij), its escapes
//! and its refusals; see `docs/encoding.md`.
//!
//! # Backends
//!
//! [`Backend::Auto`] (the default) encodes with the JIT's compiled encoder for
//! the type once it is compiled (queued at the type's first encode, or compiled
//! by [`warm_up_encode`]), and with the interpreter (`jitson_fallback::encode`)
//! until then and where the JIT cannot run; kinds the JIT does not lower are
//! written by the interpreter in their place (`docs/encoding.md`,
//! "Backends"). [`Backend::Jit`] reports [`ErrorKind::BackendUnavailable`]
//! only where the JIT cannot run (an unsupported target, memory that cannot
//! be made executable, `JITSON_DISABLE_JIT=1`).

use std::io;
use std::marker::PhantomData;

use jitson_core::encode::Encode;
use jitson_core::error::ErrorCode;

use crate::{Backend, Error};

/// Encodes values of one type, with options. `Copy`, cheap to build.
///
/// ```
/// #[derive(jitson::Encode)]
/// struct Point { x: i32, y: i32 }
/// let encoder = jitson::Encoder::<Point>::new().pretty(true);
/// let mut buffer = Vec::new();
/// encoder.encode_into(&Point { x: 1, y: 2 }, &mut buffer).unwrap();
/// assert_eq!(buffer, b"{\n  \"x\": 1,\n  \"y\": 2\n}");
/// ```
#[derive(Debug)]
pub struct Encoder<T> {
    backend: Backend,
    options: jitson_fallback::encode::EncodeOptions,
    _t: PhantomData<fn(&T)>,
}

impl<T> Clone for Encoder<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Encoder<T> {}

impl<T: Encode> Default for Encoder<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Encode> Encoder<T> {
    /// Compact output, serde_json's escaping, [`Backend::Auto`].
    pub fn new() -> Self {
        Self::with_backend(Backend::Auto)
    }

    /// An encoder on the given backend.
    pub fn with_backend(backend: Backend) -> Self {
        Encoder {
            backend,
            options: Default::default(),
            _t: PhantomData,
        }
    }

    /// Pretty output, two spaces per level (serde_json's `to_vec_pretty`).
    pub fn pretty(mut self, pretty: bool) -> Self {
        self.options.indent = pretty.then_some(2);
        self
    }

    /// Pretty output with `width` spaces per level.
    pub fn indent(mut self, width: u8) -> Self {
        self.options.indent = Some(width);
        self
    }

    /// Map entries sorted by their keys' strings, in the byte order of their
    /// UTF-8 (the order of serde_json's `Map` without `preserve_order`, as
    /// `to_value` then `to_vec` writes a map), whatever the escapes; entries
    /// whose keys are equal keep the map's order. Struct fields keep their
    /// declaration order, as do the fields a struct flattens (each flattened
    /// map sorted among itself); text a serde impl writes (`with` fields,
    /// types with only serde impls) keeps serde's order. Off by default.
    pub fn sort_keys(mut self, sort: bool) -> Self {
        self.options.sort_keys = sort;
        self
    }

    /// `<`, `>`, `&`, U+2028 and U+2029 escaped as `\u003c` and so on, as Go's
    /// `encoding/json` writes them. Off by default. Applies to every string
    /// of the output, those of values written through serde
    /// (`serde_json::Value`, `with` fields) included: their text is
    /// re-escaped after serde_json writes it.
    pub fn escape_html(mut self, on: bool) -> Self {
        self.options.escape.html = on;
        self
    }

    /// Every non-ASCII character as `\uXXXX` (a surrogate pair above U+FFFF),
    /// so the output is ASCII. Off by default; as for
    /// [`escape_html`](Self::escape_html), values written through serde are
    /// escaped too.
    pub fn ascii_only(mut self, on: bool) -> Self {
        self.options.escape.ascii = on;
        self
    }

    /// The backend this encoder uses.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The JSON text of `value`, in a new vector.
    ///
    /// # Errors
    /// What serde_json refuses (a map key that is not a string, number, bool
    /// or unit variant; a non-finite float key; a variant that is never
    /// serialised; a conversion that fails), with the path of the value;
    /// [`ErrorKind::BackendUnavailable`](crate::ErrorKind) for [`Backend::Jit`]
    /// where the JIT cannot run.
    pub fn encode(&self, value: &T) -> Result<Vec<u8>, Error> {
        let id = core::any::TypeId::of::<T::Static>();
        let mut out = Vec::with_capacity(capacity::hint(id));
        let slack = self.encode_reporting_slack(value, &mut out)?;
        capacity::learn(id, out.len(), slack);
        Ok(out)
    }

    /// Appends the JSON text of `value` to `out` (a reused buffer allocates
    /// only to grow). On error, `out` is as it was.
    ///
    /// # Errors
    /// As [`encode`](Self::encode).
    pub fn encode_into(&self, value: &T, out: &mut Vec<u8>) -> Result<(), Error> {
        self.encode_reporting_slack(value, out).map(|_| ())
    }

    /// [`encode_into`](Self::encode_into), returning the room past its text
    /// that the backend which ran may ask for (the compiled encoder's
    /// largest capacity check; 0 for the interpreter, which reserves as it
    /// writes).
    fn encode_reporting_slack(&self, value: &T, out: &mut Vec<u8>) -> Result<usize, Error> {
        let id = core::any::TypeId::of::<T::Static>();
        let compiled = match self.backend {
            Backend::Interpreter => None,
            Backend::Jit => Some(
                crate::jit::encoder(T::ENCODE, id, &self.options)
                    .map_err(|why| Error::without_position(ErrorCode::BackendUnavailable(why)))?,
            ),
            Backend::Auto if crate::jit_disabled_by_env() => None,
            Backend::Auto => crate::jit::encoder_or_queue(T::ENCODE, id, &self.options),
        };
        let start = out.len();
        let _scope = jitson_core::panic::Scope::enter();
        let src = core::ptr::from_ref(value).cast();
        // SAFETY: `value` is a live T, and the encoder was compiled for
        // `T::ENCODE`, which describes T for encoding (the `Encode` contract).
        let jit = compiled.map(|c| unsafe { crate::jit::run_encoder(c, src, out) });
        let compiled_ran = matches!(jit, Some(Ok(())));
        let result = match jit {
            // The generated code found the stack nearly full: the interpreter
            // runs from this shallower frame.
            Some(Err(e)) if *e.code() == ErrorCode::StackExhausted => None,
            other => other,
        };
        // SAFETY: as above.
        let result = result.unwrap_or_else(|| unsafe {
            jitson_fallback::encode::encode(T::ENCODE, src, out, &self.options)
        });
        if result.is_err() {
            out.truncate(start);
            // A panic in user code (a predicate, a conversion, a Serialize impl)
            // continues here, in ordinary frames.
            jitson_core::panic::resume();
        }
        let slack = match compiled {
            Some(c) if compiled_ran => crate::jit::encoder_reserve(c),
            _ => 0,
        };
        result.map(|()| slack)
    }

    /// Writes the JSON text of `value` to `writer` with one `write_all`.
    ///
    /// # Errors
    /// As [`encode`](Self::encode), and the writer's error as
    /// [`ErrorKind::Io`](crate::ErrorKind).
    pub fn encode_to_writer<W: io::Write>(&self, mut writer: W, value: &T) -> Result<(), Error> {
        let out = self.encode(value)?;
        writer.write_all(&out).map_err(io_error)
    }
}

/// The output capacity `to_vec` starts with, learned per root type from the
/// thread's earlier encodes, so that a warm `to_vec` allocates once.
///
/// A small per-thread table (four types, the least recently learned
/// replaced): no lock and no hashing on the encode path. The hint is the last
/// output's length plus an eighth, or plus the compiled encoder's largest
/// capacity check when that is more (generated code checks room for a run of
/// members at their widest, so the last run of an output as long as the
/// last asks for that much past its end), at most 1 MiB, so one huge value
/// does not make every later buffer huge (sonic's pooled buffers grew to the
/// largest message ever seen, sonic#614).
mod capacity {
    use core::any::TypeId;
    use std::cell::Cell;

    const SLOTS: usize = 4;
    const FIRST: usize = 128;
    const MAX: usize = 1 << 20;

    thread_local! {
        static HINTS: Cell<[(Option<TypeId>, u32); SLOTS]> = const { Cell::new([(None, 0); SLOTS]) };
    }

    /// The capacity to start an encode of type `id` with.
    pub(super) fn hint(id: TypeId) -> usize {
        HINTS
            .try_with(|hints| {
                hints
                    .get()
                    .iter()
                    .find(|(t, _)| *t == Some(id))
                    .map_or(FIRST, |&(_, cap)| cap as usize)
            })
            .unwrap_or(FIRST)
    }

    /// Records that an encode of type `id` wrote `len` bytes with a backend
    /// that may ask for `slack` bytes of room past its text.
    pub(super) fn learn(id: TypeId, len: usize, slack: usize) {
        let cap = (len + (len / 8).max(slack) + 16).min(MAX) as u32;
        let _ = HINTS.try_with(|hints| {
            let mut table = hints.get();
            match table.iter().position(|(t, _)| *t == Some(id)) {
                Some(i) => table[i].1 = cap,
                None => {
                    table.rotate_right(1);
                    table[0] = (Some(id), cap);
                }
            }
            hints.set(table);
        });
    }
}

fn io_error(e: io::Error) -> Error {
    Error::without_position(ErrorCode::Io(e.to_string().into_boxed_str()))
}

/// The JSON text of `value`, compact: serde_json's `to_vec` bytes.
///
/// ```
/// #[derive(jitson::Encode)]
/// #[serde(rename_all = "camelCase")]
/// struct User { user_id: u64, #[serde(skip_serializing_if = "Option::is_none")] email: Option<String> }
/// let bytes = jitson::to_vec(&User { user_id: 7, email: None }).unwrap();
/// assert_eq!(bytes, br#"{"userId":7}"#);
/// ```
///
/// # Errors
/// See [`Encoder::encode`].
pub fn to_vec<T: Encode>(value: &T) -> Result<Vec<u8>, Error> {
    Encoder::new().encode(value)
}

/// The JSON text of `value`, pretty-printed as `serde_json::to_vec_pretty`.
///
/// # Errors
/// See [`Encoder::encode`].
pub fn to_vec_pretty<T: Encode>(value: &T) -> Result<Vec<u8>, Error> {
    Encoder::new().pretty(true).encode(value)
}

/// [`to_vec`] as a `String`.
///
/// # Errors
/// See [`Encoder::encode`].
pub fn to_string<T: Encode>(value: &T) -> Result<String, Error> {
    to_vec(value).map(into_string)
}

/// [`to_vec_pretty`] as a `String`.
///
/// # Errors
/// See [`Encoder::encode`].
pub fn to_string_pretty<T: Encode>(value: &T) -> Result<String, Error> {
    to_vec_pretty(value).map(into_string)
}

fn into_string(bytes: Vec<u8>) -> String {
    // Every encoder writes UTF-8: strings come from `str`s, everything else
    // is ASCII.
    String::from_utf8(bytes).expect("encoders write UTF-8")
}

/// Writes [`to_vec`]'s bytes to `writer`, with one `write_all`.
///
/// # Errors
/// See [`Encoder::encode_to_writer`].
pub fn to_writer<W: io::Write, T: Encode>(writer: W, value: &T) -> Result<(), Error> {
    Encoder::new().encode_to_writer(writer, value)
}

/// Writes [`to_vec_pretty`]'s bytes to `writer`, with one `write_all`.
///
/// # Errors
/// See [`Encoder::encode_to_writer`].
pub fn to_writer_pretty<W: io::Write, T: Encode>(writer: W, value: &T) -> Result<(), Error> {
    Encoder::new().pretty(true).encode_to_writer(writer, value)
}

/// Writes each value as one NDJSON line (compact text and `\n`), buffering
/// lines into chunks of about 64 KiB, each written with one `write_all`.
///
/// # Errors
/// The first value that fails to encode (lines before it, up to the last
/// chunk boundary, have been written) or the writer's error.
pub fn to_writer_lines<'a, W, T, I>(mut writer: W, values: I) -> Result<(), Error>
where
    W: io::Write,
    T: Encode + 'a,
    I: IntoIterator<Item = &'a T>,
{
    const CHUNK: usize = 64 << 10;
    let encoder = Encoder::<T>::new();
    let mut buffer = Vec::with_capacity(CHUNK + 4096);
    for value in values {
        encoder.encode_into(value, &mut buffer)?;
        buffer.push(b'\n');
        if buffer.len() >= CHUNK {
            writer.write_all(&buffer).map_err(io_error)?;
            buffer.clear();
        }
    }
    if !buffer.is_empty() {
        writer.write_all(&buffer).map_err(io_error)?;
    }
    Ok(())
}

/// Prepares encoding of `T` at start-up: checks that every layout reachable
/// from `T` can be encoded, so that a type that cannot is refused here rather
/// than on a request, and compiles the JIT's compact encoder for `T` (where
/// the JIT runs), so that the first `to_vec` runs compiled code.
///
/// # Errors
/// [`ErrorKind::UnsupportedType`](crate::ErrorKind) for a flattened field of a
/// type the encoder does not flatten (an enum, say: serde flattens those, jitson
/// refuses them in both directions); [`ErrorKind::InvalidValue`](crate::ErrorKind)
/// naming a layout without its encoding accessors.
pub fn warm_up_encode<T: Encode>() -> Result<(), Error> {
    if let Some(why) = jitson_fallback::unsupported_encode(T::ENCODE) {
        return Err(Error::without_position(ErrorCode::UnsupportedType(
            why.into_boxed_str(),
        )));
    }
    let mut missing = None;
    jitson_core::layout::visit_reachable(T::ENCODE, |layout| {
        use jitson_core::layout::Kind;
        let encodable = match &layout.kind {
            Kind::String(s) | Kind::RawValue(s) => s.read.is_some(),
            Kind::Map(m) => m.for_each.is_some(),
            Kind::Enum(e) => e.variant_of.is_some(),
            Kind::Convert(c) => c.into.is_some(),
            Kind::Serde(s) => s.encode.is_some(),
            Kind::Parsed(p) => p.format.is_some(),
            Kind::Column(_) => false,
            _ => true,
        };
        if !encodable && missing.is_none() {
            missing = Some((layout.type_name)());
        }
    });
    if let Some(name) = missing {
        return Err(Error::without_position(ErrorCode::NotEncodable(
            format!("cannot encode {name}: its layout has no encoding accessors").into_boxed_str(),
        )));
    }
    // The compact encoder `to_vec` and `Backend::Auto` use, compiled now on
    // this thread; where the JIT cannot run (or fails to compile the type)
    // encoding stays on the interpreter, as it would without warm-up.
    if !crate::jit_disabled_by_env() {
        let _ = crate::jit::encoder(
            T::ENCODE,
            core::any::TypeId::of::<T::Static>(),
            &Default::default(),
        );
    }
    Ok(())
}
