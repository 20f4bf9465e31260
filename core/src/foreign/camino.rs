//! camino's paths (feature `camino`), as camino's serde impls (camino 1.x,
//! feature `serde1`, `src/serde_impls.rs`) have serde_json read and write
//! them:
//!
//! | type | JSON | read as | written as | expecting |
//! |---|---|---|---|---|
//! | `Utf8PathBuf` | string | its text, unescaped (`deserialize_string`) | the path's text, escaped as serde_json escapes a string | "a UTF-8 path string" |
//! | `Box<Utf8Path>` | string | as `Utf8PathBuf` | as `Utf8PathBuf` | "a UTF-8 path string" |
//! | `&'de Utf8Path` | string without escapes, borrowed (`deserialize_str`; an escaped one is refused as for `&str`) | the text in place | as `Utf8PathBuf` | "a borrowed UTF-8 path" |
//!
//! Any other JSON value is refused as serde refuses a wrong type. All three
//! are string layouts ([`Kind::String`], [`Kind::BorrowedStr`]) of their
//! own: generated code reads and writes them as it does a `String` or a
//! `&str`, with camino's wording in their refusals.

use camino::{Utf8Path, Utf8PathBuf};

use crate::decode::{HasLayout, read_text};
use crate::encode::Encode;
use crate::layout::{BorrowedStrLayout, Kind, StringLayout, TypeLayout};

/// # Safety
/// `dst` is valid for a `Utf8PathBuf` write; `ptr[..len]` is valid UTF-8.
unsafe extern "C" fn write_path_buf(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        let text = crate::decode::owned_text(ptr, len);
        dst.cast::<Utf8PathBuf>().write(Utf8PathBuf::from(text));
    }
}

/// # Safety
/// `dst` is valid for a `Box<Utf8Path>` write; `ptr[..len]` is valid UTF-8.
unsafe extern "C" fn write_boxed_path(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        let text = crate::decode::owned_text(ptr, len);
        dst.cast::<Box<Utf8Path>>()
            .write(Utf8PathBuf::from(text).into_boxed_path());
    }
}

/// The text of a `Box<Utf8Path>` (a [`ReadStrFn`](crate::layout::ReadStrFn)).
///
/// # Safety
/// `src` points to a live `Box<Utf8Path>`; `len` is valid for writes.
unsafe extern "C" fn read_boxed_path(src: *const u8, len: *mut usize) -> *const u8 {
    // SAFETY: as the caller guarantees.
    unsafe {
        let text = (*src.cast::<Box<Utf8Path>>()).as_str();
        len.write(text.len());
        text.as_ptr()
    }
}

/// # Safety
/// `dst` is valid for a `&Utf8Path` write; `ptr[..len]` is valid UTF-8 and
/// outlives the value (it lies in the input, as
/// [`DecodeBorrowed`](crate::decode::DecodeBorrowed)'s lifetime guarantees).
unsafe extern "C" fn write_borrowed_path(dst: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        let text = core::str::from_utf8_unchecked(core::slice::from_raw_parts(ptr, len));
        dst.cast::<&Utf8Path>().write(Utf8Path::new(text));
    }
}

// SAFETY: `write_path_buf` writes a whole `Utf8PathBuf`; `read_text` reads its
// text through `AsRef<str>`.
unsafe impl HasLayout for Utf8PathBuf {
    type Static = Self;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Utf8PathBuf>(
        "a UTF-8 path string",
        Kind::String(&StringLayout {
            write: write_path_buf,
            read: Some(read_text::<Utf8PathBuf>),
        }),
    );
}

// SAFETY: `write_boxed_path` writes a whole `Box<Utf8Path>`;
// `read_boxed_path` reads its text.
unsafe impl HasLayout for Box<Utf8Path> {
    type Static = Self;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Box<Utf8Path>>(
        "a UTF-8 path string",
        Kind::String(&StringLayout {
            write: write_boxed_path,
            read: Some(read_boxed_path),
        }),
    );
}

crate::decode::owned! {
    [] Utf8PathBuf;
    [] Box<Utf8Path>;
}

// SAFETY: `write_borrowed_path` writes a whole `&Utf8Path` (which has the
// layout of `&'static Utf8Path`); `read_text` reads its text.
unsafe impl HasLayout for &Utf8Path {
    type Static = &'static Utf8Path;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<&'static Utf8Path>(
        "a borrowed UTF-8 path",
        Kind::BorrowedStr(&BorrowedStrLayout {
            borrow: write_borrowed_path,
            own: None,
            read: Some(read_text::<&'static Utf8Path>),
            bytes: false,
        }),
    );
}

// SAFETY: the path points into the input, which lives for `'de`, and `'de`
// outlives `'a`.
unsafe impl<'de: 'a, 'a> crate::decode::DecodeBorrowed<'de> for &'a Utf8Path {}

// SAFETY: one layout serves both directions; encoding reads the text.
unsafe impl Encode for Utf8PathBuf {
    type Static = Self;
    const ENCODE: &'static TypeLayout = <Self as HasLayout>::LAYOUT;
}

// SAFETY: as for `Utf8PathBuf`.
unsafe impl Encode for Box<Utf8Path> {
    type Static = Self;
    const ENCODE: &'static TypeLayout = <Self as HasLayout>::LAYOUT;
}

// SAFETY: as for `Utf8PathBuf`.
unsafe impl Encode for &Utf8Path {
    type Static = &'static Utf8Path;
    const ENCODE: &'static TypeLayout = <Self as HasLayout>::LAYOUT;
}
