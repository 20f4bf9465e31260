//! Other crates' types, each behind a cargo feature named after its crate (off
//! by default), read and written exactly as that crate's serde impl has
//! serde_json read and write them: the same texts accepted and refused, the
//! same bytes out.
//!
//! One module a crate, as serde keeps its foreign impls together, holding that
//! crate's layouts, decode functions and encode functions side by side. Most
//! of these types are scalars read from a JSON string ([`Kind::Parsed`]): the
//! JIT scans a string without escapes and calls the type's parse function on
//! it in place (`emit_parsed` in `jit/src/kind/column.rs`), and its encoder
//! calls the type's bounded formatter on reserved room (`emit_encode_parsed`,
//! beside it). Both hand what they decline — an escaped string, a refusal
//! that needs its message, a rare form — to the interpreter, which calls the
//! same functions (`fallback/src/kind/column.rs`), so the two backends agree
//! by construction.
//!
//! Containers and wrappers (indexmap, smallvec, bytes, serde_bytes,
//! ordered-float) are not scalars: they take the kinds of their std
//! equivalents (`HashMap`'s [`Kind::Map`], `Vec`'s [`Kind::Vec`], the float
//! kinds, [`Kind::Convert`] as for `HashSet`), so generated code covers them
//! wherever it covers those.
//!
//! A fast path may only accept a form the crate's own parser accepts with the
//! same value, and may only write what the crate's serializer writes; anything
//! else goes to the crate itself (its `FromStr`, its formatter). The
//! differential tests (`tests/foreign/`) hold each module to its crate's
//! serde impl.

// The scalar machinery below is unused in builds whose only foreign crates are
// containers and wrappers.
#![cfg_attr(
    not(any(
        feature = "chrono",
        feature = "http",
        feature = "uuid",
        feature = "url",
        feature = "semver"
    )),
    allow(dead_code, unused_macros)
)]

use core::fmt::Display;
use core::mem::MaybeUninit;

use crate::column::{FormatLayout, ParsedLayout};
use crate::layout::{Kind, TypeLayout};

#[cfg(feature = "bytes")]
mod bytes;
#[cfg(feature = "camino")]
mod camino;
#[cfg(feature = "chrono")]
mod chrono;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "indexmap")]
mod indexmap;
#[cfg(feature = "ordered-float")]
mod ordered_float;
#[cfg(feature = "rust_decimal")]
mod rust_decimal;
#[cfg(feature = "semver")]
mod semver;
#[cfg(feature = "serde_bytes")]
mod serde_bytes;
#[cfg(feature = "smallvec")]
mod smallvec;
#[cfg(feature = "time")]
pub(crate) mod time;
#[cfg(feature = "url")]
mod url;
#[cfg(feature = "uuid")]
mod uuid;

/// A type read from the (unescaped) text of a JSON string.
pub(crate) trait FromText: Sized {
    /// What a refusal says (the crate's own error, displayed as serde's
    /// `Error::custom` displays it); formatted only when a message is asked for.
    type Error: Display;
    /// Parses `text`: a fast path for the common forms, the crate's parser for
    /// the rest.
    fn from_text(text: &str) -> Result<Self, Self::Error>;
}

/// A type written as one JSON scalar (a string, quotes included, or a number).
pub(crate) trait ToText {
    /// The most bytes [`fast`](Self::fast) writes.
    const MAX_LEN: usize;
    /// Writes the value's JSON text into `room`, or declines (returns `false`,
    /// having written anything) for forms only [`write`](Self::write) writes.
    fn fast(&self, room: &mut Room<'_>) -> bool;
    /// Appends the JSON text of any value, or the serializer's refusal.
    fn write(&self, out: &mut Vec<u8>) -> Result<(), String>;
}

/// Reserved, uninitialised output room of a fixed size, written front to back.
/// Writing past its end panics (a bug in a [`ToText::MAX_LEN`]), which the
/// callers catch.
pub(crate) struct Room<'a> {
    buf: &'a mut [MaybeUninit<u8>],
    len: usize,
}

// Not every crate's types use every method.
#[allow(dead_code)]
impl Room<'_> {
    #[inline]
    pub(crate) fn push(&mut self, byte: u8) {
        self.buf[self.len].write(byte);
        self.len += 1;
    }

    /// Copies `bytes` in one go (a URL's text runs to hundreds of bytes).
    #[inline]
    pub(crate) fn extend(&mut self, bytes: &[u8]) {
        let dst = &mut self.buf[self.len..self.len + bytes.len()];
        // SAFETY: `dst` is `bytes.len()` elements of `MaybeUninit<u8>`, which
        // has `u8`'s layout, and cannot overlap `bytes` (it is borrowed
        // mutably here while `bytes` is borrowed shared).
        unsafe {
            core::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                dst.as_mut_ptr().cast::<u8>(),
                bytes.len(),
            );
        }
        self.len += bytes.len();
    }

    /// Appends `text` as the inside of a JSON string when it fits with a
    /// byte to spare (for the closing quote) and needs no escape; otherwise
    /// writes nothing and returns `false`.
    pub(crate) fn plain_text(&mut self, text: &[u8]) -> bool {
        if text.len() >= self.buf.len() - self.len
            || crate::write::find_escape(text, 0) != text.len()
        {
            return false;
        }
        self.extend(text);
        true
    }

    /// `value`'s `Display` text as a JSON string, quotes included, when it
    /// fits and needs no escape; otherwise writes nothing and returns
    /// `false` (the caller's general writer then escapes it).
    #[allow(dead_code)]
    pub(crate) fn quoted_display(&mut self, value: &impl Display) -> bool {
        /// Appends to the room until a piece would not fit (leaving a byte
        /// for the closing quote) or needs an escape.
        struct Plain<'r, 'a>(&'r mut Room<'a>);
        impl core::fmt::Write for Plain<'_, '_> {
            fn write_str(&mut self, s: &str) -> core::fmt::Result {
                if self.0.plain_text(s.as_bytes()) {
                    Ok(())
                } else {
                    Err(core::fmt::Error)
                }
            }
        }
        let start = self.len;
        if self.len >= self.buf.len() {
            return false;
        }
        self.push(b'"');
        if core::fmt::write(&mut Plain(self), format_args!("{value}")).is_err() {
            self.len = start;
            return false;
        }
        self.push(b'"');
        true
    }

    /// An integer as serde_json writes one (itoa's digits).
    #[inline]
    #[allow(dead_code)]
    pub(crate) fn int(&mut self, value: i64) {
        self.extend(itoa::Buffer::new().format(value).as_bytes());
    }

    /// `value` as exactly `width` decimal digits (the high ones dropped).
    #[inline]
    #[allow(dead_code)]
    pub(crate) fn digits(&mut self, mut value: u32, width: usize) {
        let end = self.len + width;
        for i in (self.len..end).rev() {
            self.buf[i].write(b'0' + (value % 10) as u8);
            value /= 10;
        }
        self.len = end;
    }
}

/// The [`ParseFn`](crate::column::ParseFn) of a [`FromText`] type.
///
/// # Safety
/// `dst` is valid for a write of a `T`; `ptr[..len]` is readable; `message`
/// is null or valid for writes.
unsafe extern "C" fn parse_fn<T: FromText>(
    dst: *mut u8,
    ptr: *const u8,
    len: usize,
    _arg: u64,
    message: *mut Option<Box<str>>,
) -> bool {
    // SAFETY: as the caller guarantees.
    let bytes = unsafe { core::slice::from_raw_parts(ptr, len) };
    // The interpreter hands validated text; the JIT's fast path an unescaped
    // string it has not validated yet, which the interpreter then reads.
    let Ok(text) = core::str::from_utf8(bytes) else {
        return false;
    };
    let mut result = None;
    if !crate::panic::catch(|| result = Some(T::from_text(text))) {
        return false;
    }
    match result {
        Some(Ok(value)) => {
            // SAFETY: `dst` is valid for a write of a `T`.
            unsafe { dst.cast::<T>().write(value) };
            true
        }
        Some(Err(e)) => {
            if !message.is_null() {
                // SAFETY: non-null, so valid for writes as the caller guarantees.
                unsafe { message.write(Some(e.to_string().into_boxed_str())) };
            }
            false
        }
        None => false,
    }
}

/// The [`FormatFn`](crate::column::FormatFn) of a [`ToText`] type.
///
/// # Safety
/// `src` points to a live `T`; `out` is valid for writes of `T::MAX_LEN` bytes.
unsafe extern "C" fn fast_fn<T: ToText>(src: *const u8, out: *mut u8) -> usize {
    // SAFETY: as the caller guarantees.
    let (value, buf) = unsafe {
        (
            &*src.cast::<T>(),
            core::slice::from_raw_parts_mut(out.cast::<MaybeUninit<u8>>(), T::MAX_LEN),
        )
    };
    let mut room = Room { buf, len: 0 };
    let mut written = false;
    if crate::panic::catch(|| written = value.fast(&mut room)) && written {
        room.len
    } else {
        0
    }
}

/// The [`WriteFn`](crate::column::WriteFn) of a [`ToText`] type.
///
/// # Safety
/// `src` points to a live `T`; `out` and `message` are valid for writes.
unsafe extern "C" fn write_fn<T: ToText>(
    src: *const u8,
    out: *mut Vec<u8>,
    message: *mut Option<Box<str>>,
) -> bool {
    // SAFETY: as the caller guarantees.
    let (value, out) = unsafe { (&*src.cast::<T>(), &mut *out) };
    let mut result = Ok(());
    if !crate::panic::catch(|| result = value.write(out)) {
        return false;
    }
    match result {
        Ok(()) => true,
        Err(text) => {
            // SAFETY: as the caller guarantees.
            unsafe { message.write(Some(text.into_boxed_str())) };
            false
        }
    }
}

/// The layout of a type read from a JSON string and written as one scalar.
#[allow(dead_code)]
pub(crate) const fn text_scalar<T: FromText + ToText + 'static>(
    expecting: &'static str,
) -> TypeLayout {
    // Under its own identity: exactly `TypeLayout::of::<T>`.
    text_scalar_as::<T, T>(expecting)
}

/// A [`Form`] that is one scalar, read from a JSON string or number and
/// written as one (`chrono::serde::ts_seconds`: a `DateTime<Utc>` as a Unix
/// timestamp), whose refusals of numbers keep the form's own messages.
/// [`scalar_forms!`] gives it `HasLayout` and `Encode` with
/// [`ScalarFormLayout::LAYOUT`].
#[allow(dead_code)]
pub(crate) trait ScalarForm: FromText + ToText + 'static {
    /// What serde's visitor says it expects.
    const EXPECTING: &'static str;
    /// Read from a JSON number's text; otherwise from a JSON string's.
    const FROM_NUMBER: bool;
}

/// The layout of a [`ScalarForm`], both ways.
#[allow(dead_code)]
pub(crate) struct ScalarFormLayout<F>(core::marker::PhantomData<F>);

#[allow(dead_code)]
impl<F: ScalarForm> ScalarFormLayout<F> {
    /// The form's value.
    pub(crate) const LAYOUT: &'static TypeLayout = &TypeLayout::of::<F>(
        F::EXPECTING,
        Kind::Parsed(&ParsedLayout {
            from_string: Self::FROM_STRING,
            from_number: Self::FROM_NUMBER,
            from_bool: None,
            arg: 0,
            number_messages: true,
            format: Some(&FormatLayout {
                max_len: F::MAX_LEN,
                fast: fast_fn::<F>,
                write: write_fn::<F>,
            }),
        }),
    );

    const FROM_STRING: Option<crate::column::ParseFn> = if F::FROM_NUMBER {
        None
    } else {
        Some(parse_fn::<F>)
    };

    const FROM_NUMBER: Option<crate::column::ParseFn> = if F::FROM_NUMBER {
        Some(parse_fn::<F>)
    } else {
        None
    };
}

/// `HasLayout`, `DecodeBorrowed`, `Encode` and [`Form`] for [`ScalarForm`]s:
/// `Form => FieldType;`.
#[allow(unused_macros)]
macro_rules! scalar_forms {
    ($($form:ty => $field:ty;)*) => {$(
        // SAFETY: the form's parse function writes a whole value of the form
        // (a `repr(transparent)` wrapper); its formatter reads one.
        unsafe impl $crate::decode::HasLayout for $form {
            type Static = Self;
            const LAYOUT: &'static $crate::layout::TypeLayout =
                $crate::foreign::ScalarFormLayout::<$form>::LAYOUT;
        }
        // SAFETY: the form owns its data.
        unsafe impl<'de> $crate::decode::DecodeBorrowed<'de> for $form {}
        // SAFETY: as for `HasLayout`.
        unsafe impl $crate::encode::Encode for $form {
            type Static = Self;
            const ENCODE: &'static $crate::layout::TypeLayout =
                $crate::foreign::ScalarFormLayout::<$form>::LAYOUT;
        }
        impl $crate::foreign::Form for $form {
            type Field = $field;
        }
    )*};
}
#[allow(unused_imports)]
pub(crate) use scalar_forms;

/// A `with` module's form of a field's type that has layouts of its own (a
/// text scalar, a conversion from an integer): a `#[repr(transparent)]`
/// wrapper of the field's type, so that its layouts serve the field's memory
/// under an identity of their own.
#[allow(dead_code)]
pub(crate) trait Form: crate::decode::HasLayout + crate::encode::Encode + 'static {
    /// The field's type.
    type Field: 'static;
}

/// The layouts of a [`Form`]: the value both ways, and an `Option` of it (the
/// module's `option` twin; `null` is `None`).
#[allow(dead_code)]
pub(crate) struct FormLayouts<F>(core::marker::PhantomData<F>);

#[allow(dead_code)]
impl<F: Form> FormLayouts<F> {
    /// The form's decode layout.
    pub(crate) const DECODE: &'static TypeLayout = <F as crate::decode::HasLayout>::LAYOUT;
    /// The form's encode layout.
    pub(crate) const ENCODE: &'static TypeLayout = <F as crate::encode::Encode>::ENCODE;

    /// `Option<F::Field>` read as `null` or the form; an absent key is a
    /// missing field, as serde's derive makes it for a field with `with`
    /// (unless the field has a default): the option is inside a newtype
    /// that is not `transparent`, which [`TypeLayout::is_optional`] does not
    /// see through.
    pub(crate) const OPTION_DECODE: &'static TypeLayout =
        &TypeLayout::with_identity::<Option<F::Field>, (Option<F>,)>(
            "an option",
            Kind::Newtype(&crate::layout::NewtypeLayout {
                offset: 0,
                inner: crate::layout::LayoutRef::Lazy(Self::option_decode),
                skipped: &[],
                transparent: false,
            }),
        );

    const OPTION_DECODE_INNER: &'static TypeLayout =
        &TypeLayout::with_identity::<Option<F::Field>, Option<F>>(
            "an option",
            Kind::Option(&crate::layout::OptionLayout {
                some: crate::layout::LayoutRef::Lazy(Self::decode),
                write_none: crate::decode::option_write_none::<F::Field>,
                decode_some: crate::decode::option_decode_some::<F::Field>,
                get: crate::decode::option_get::<F::Field>,
            }),
        );

    fn option_decode() -> &'static TypeLayout {
        Self::OPTION_DECODE_INNER
    }

    /// `Option<F::Field>` written as `null` or the form.
    pub(crate) const OPTION_ENCODE: &'static TypeLayout =
        &TypeLayout::with_identity::<Option<F::Field>, Option<F>>(
            "an option",
            Kind::Option(&crate::layout::OptionLayout {
                some: crate::layout::LayoutRef::Lazy(Self::encode),
                write_none: crate::decode::option_write_none::<F::Field>,
                decode_some: crate::decode::option_decode_some::<F::Field>,
                get: crate::decode::option_get::<F::Field>,
            }),
        );

    fn decode() -> &'static TypeLayout {
        Self::DECODE
    }

    fn encode() -> &'static TypeLayout {
        Self::ENCODE
    }
}

/// serde_json's words for a JSON number a visitor of integers does not take:
/// `floating point `1.5`` (the float as serde_json writes it), or its refusal
/// of a number beyond `f64`.
#[allow(dead_code)]
pub(crate) fn not_an_integer(text: &str, expecting: &str) -> String {
    match text.parse::<f64>() {
        Ok(f) if f.is_finite() => {
            // serde_json names the float as it writes one.
            let mut shown = Vec::new();
            crate::write::write_f64(&mut shown, f);
            let shown = String::from_utf8_lossy(&shown);
            format!("invalid type: floating point `{shown}`, expected {expecting}")
        }
        _ => "number out of range".to_owned(),
    }
}

/// `HasLayout`, `DecodeBorrowed` and `Encode` for types laid out by
/// [`text_scalar`]: `Type => "what serde's visitor expects"`.
#[allow(unused_macros)]
macro_rules! text_scalars {
    ($($ty:ty => $expecting:literal;)*) => {$(
        // SAFETY: `parse_fn` writes a whole value of the type; the formatter
        // reads it through its own API.
        unsafe impl $crate::decode::HasLayout for $ty {
            type Static = Self;
            const LAYOUT: &'static $crate::layout::TypeLayout =
                &$crate::foreign::text_scalar::<$ty>($expecting);
        }
        // SAFETY: the type owns its data.
        unsafe impl<'de> $crate::decode::DecodeBorrowed<'de> for $ty {}
        // SAFETY: as for `HasLayout`: one layout serves both directions.
        unsafe impl $crate::encode::Encode for $ty {
            type Static = Self;
            const ENCODE: &'static $crate::layout::TypeLayout =
                <$ty as $crate::decode::HasLayout>::LAYOUT;
        }
    )*};
}
#[allow(unused_imports)]
pub(crate) use text_scalars;

// ---------------------------------------------------------------------------
// Types whose serde form follows their crate's features.

/// A type whose serde form depends on its crate's cargo features, which
/// jitson cannot see (time writes tuples of integers unless its
/// `serde-human-readable` is on; rust_decimal writes numbers with its
/// `serde-float`, reads only strings with `serde-str`). A probe through the
/// crate's own serde impl, once per process at the type's first use, decides:
/// jitson's [`native`](Self::native) layout where the probe shows the form
/// it reads and writes, the type's serde route otherwise. Either way jitson
/// agrees with the crate's serde impl in every build, and turning a jitson
/// feature on changes nothing the crate's own impl does.
#[cfg(feature = "serde")]
#[cfg_attr(not(any(feature = "time", feature = "rust_decimal")), allow(dead_code))]
pub(crate) trait ProbedForm:
    serde::Serialize + serde::de::DeserializeOwned + 'static
{
    /// What serde's visitor says it expects.
    const EXPECTING: &'static str;
    /// jitson's layout of the form it reads and writes (under an identity
    /// of its own: [`text_scalar_as`]).
    fn native() -> &'static TypeLayout;
    /// Whether the crate's serde impl has that form in this build (cached by
    /// the implementation in a `static`).
    fn has_native_form() -> bool;
}

/// The layouts of a [`ProbedForm`]: a newtype over the probe's choice.
#[cfg(feature = "serde")]
#[cfg_attr(not(any(feature = "time", feature = "rust_decimal")), allow(dead_code))]
pub(crate) struct Probed<T>(core::marker::PhantomData<T>);

#[cfg(feature = "serde")]
#[cfg_attr(not(any(feature = "time", feature = "rust_decimal")), allow(dead_code))]
impl<T: ProbedForm> Probed<T> {
    /// Both directions: the newtype's inner layout is picked per direction.
    pub(crate) const DECODE: &'static TypeLayout = &TypeLayout::of::<T>(
        T::EXPECTING,
        Kind::Newtype(&crate::layout::NewtypeLayout {
            offset: 0,
            inner: crate::layout::LayoutRef::Lazy(Self::pick_decode),
            skipped: &[],
            transparent: true,
        }),
    );

    pub(crate) const ENCODE: &'static TypeLayout = &TypeLayout::with_identity::<T, Probed<T>>(
        T::EXPECTING,
        Kind::Newtype(&crate::layout::NewtypeLayout {
            offset: 0,
            inner: crate::layout::LayoutRef::Lazy(Self::pick_encode),
            skipped: &[],
            transparent: true,
        }),
    );

    fn pick_decode() -> &'static TypeLayout {
        if T::has_native_form() {
            T::native()
        } else {
            <T as crate::route::SerdeDecode>::serde_decode_layout::<T>()
        }
    }

    fn pick_encode() -> &'static TypeLayout {
        if T::has_native_form() {
            T::native()
        } else {
            <T as crate::route::SerdeEncode>::serde_encode_layout::<T>()
        }
    }
}

/// [`text_scalar`] under the identity `Id` (a [`ProbedForm`]'s native
/// layout, which must not share the type's identity with the newtype that
/// picks it).
#[allow(dead_code)]
pub(crate) const fn text_scalar_as<T: FromText + ToText + 'static, Id: 'static>(
    expecting: &'static str,
) -> TypeLayout {
    TypeLayout::with_identity::<T, Id>(
        expecting,
        Kind::Parsed(&ParsedLayout {
            from_string: Some(parse_fn::<T>),
            from_number: None,
            from_bool: None,
            arg: 0,
            number_messages: false,
            format: Some(&FormatLayout {
                max_len: T::MAX_LEN,
                fast: fast_fn::<T>,
                write: write_fn::<T>,
            }),
        }),
    )
}

/// `HasLayout`, `DecodeBorrowed` and `Encode` for [`ProbedForm`]s.
#[allow(unused_macros)]
macro_rules! probed_types {
    ($($ty:ty;)*) => {$(
        // SAFETY: the newtype at offset 0 holds the whole value; its inner
        // layout (jitson's or the serde route's) describes the type.
        unsafe impl $crate::decode::HasLayout for $ty {
            type Static = Self;
            const LAYOUT: &'static $crate::layout::TypeLayout =
                $crate::foreign::Probed::<$ty>::DECODE;
        }
        // SAFETY: the type owns its data.
        unsafe impl<'de> $crate::decode::DecodeBorrowed<'de> for $ty {}
        // SAFETY: as for `HasLayout`.
        unsafe impl $crate::encode::Encode for $ty {
            type Static = Self;
            const ENCODE: &'static $crate::layout::TypeLayout =
                $crate::foreign::Probed::<$ty>::ENCODE;
        }
    )*};
}
#[allow(unused_imports)]
pub(crate) use probed_types;

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;

    /// A type whose serde form jitson does not read: the probe says so.
    #[derive(serde::Serialize, serde::Deserialize)]
    struct Tuple(u8, u8);

    impl FromText for Tuple {
        type Error = String;
        fn from_text(_: &str) -> Result<Self, String> {
            Err("never read natively".to_owned())
        }
    }

    impl ToText for Tuple {
        const MAX_LEN: usize = 0;
        fn fast(&self, _: &mut Room<'_>) -> bool {
            false
        }
        fn write(&self, _: &mut Vec<u8>) -> Result<(), String> {
            Err("never written natively".to_owned())
        }
    }

    impl ProbedForm for Tuple {
        const EXPECTING: &'static str = "a tuple";
        fn native() -> &'static TypeLayout {
            const LAYOUT: TypeLayout = text_scalar_as::<Tuple, ((), Tuple)>("a tuple");
            &LAYOUT
        }
        fn has_native_form() -> bool {
            false
        }
    }

    #[test]
    fn a_form_jitson_does_not_read_goes_through_serde_both_ways() {
        for layout in [Probed::<Tuple>::DECODE, Probed::<Tuple>::ENCODE] {
            let Kind::Newtype(n) = &layout.kind else {
                panic!("a newtype over the probe's choice");
            };
            assert!(matches!(n.inner.get().kind, Kind::Serde(_)));
            assert_eq!(n.inner.get().size, layout.size);
        }
    }
}
