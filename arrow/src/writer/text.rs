//! Strings and binary.
//!
//! Strings are escaped by jitson's string emitter (`jitson_core::write`):
//! serde_json's escapes, which are what arrow-json writes (it serializes
//! strings with serde_json). Binary values are lower-case hex between quotes.

use arrow_array::cast::AsArray;
use arrow_array::{Array, BinaryViewArray, FixedSizeBinaryArray, OffsetSizeTrait, StringViewArray};
use arrow_schema::ArrowError;
use jitson_core::write::write_str_contents;

use super::plan::{Encode, Plan};

/// A string or binary column of offsets into one value buffer.
struct Offsets<'a, O> {
    offsets: &'a [O],
    data: &'a [u8],
}

impl<O: OffsetSizeTrait> Offsets<'_, O> {
    #[inline]
    fn value(&self, row: usize) -> &[u8] {
        &self.data[self.offsets[row].as_usize()..self.offsets[row + 1].as_usize()]
    }
}

struct Utf8<'a, O>(Offsets<'a, O>);

impl<O: OffsetSizeTrait> Encode for Utf8<'_, O> {
    #[inline]
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        let bytes = self.0.value(row);
        out.reserve(bytes.len() + 2);
        out.push(b'"');
        write_str_contents(out, bytes);
        out.push(b'"');
    }
}

pub(crate) fn bind_utf8<'a, O: OffsetSizeTrait>(
    _: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    let array = array.as_string::<O>();
    Ok(Box::new(Utf8(Offsets {
        offsets: array.value_offsets(),
        data: array.value_data(),
    })))
}

struct Utf8View<'a>(&'a StringViewArray);

impl Encode for Utf8View<'_> {
    #[inline]
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        jitson_core::write::write_str(out, self.0.value(row));
    }
}

pub(crate) fn bind_utf8_view<'a>(
    _: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    Ok(Box::new(Utf8View(array.as_string_view())))
}

/// Appends bytes as lower-case hex between quotes (the JIT's binary
/// columns call the same function: `jitson_core::write`).
#[inline]
fn write_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    jitson_core::write::write_hex_quoted(out, bytes);
}

struct Binary<'a, O>(Offsets<'a, O>);

impl<O: OffsetSizeTrait> Encode for Binary<'_, O> {
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        write_hex(out, self.0.value(row));
    }
}

pub(crate) fn bind_binary<'a, O: OffsetSizeTrait>(
    _: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    let array = array.as_binary::<O>();
    Ok(Box::new(Binary(Offsets {
        offsets: array.value_offsets(),
        data: array.value_data(),
    })))
}

struct BinaryView<'a>(&'a BinaryViewArray);

impl Encode for BinaryView<'_> {
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        write_hex(out, self.0.value(row));
    }
}

pub(crate) fn bind_binary_view<'a>(
    _: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    Ok(Box::new(BinaryView(array.as_binary_view())))
}

struct FixedBinary<'a>(&'a FixedSizeBinaryArray);

impl Encode for FixedBinary<'_> {
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        write_hex(out, self.0.value(row));
    }
}

pub(crate) fn bind_fixed_binary<'a>(
    _: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    Ok(Box::new(FixedBinary(array.as_fixed_size_binary())))
}
