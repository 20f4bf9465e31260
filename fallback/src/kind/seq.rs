//! `Vec<T>`, `[T; N]` and tuples. Twin: `jit/src/kind/seq.rs`.

use jitson_core::error::{Error, ErrorCode, PathSegment};
use jitson_core::layout::{ArrayLayout, Kind, TupleLayout, TypeLayout, VecLayout};
use jitson_core::text;

use crate::{Parser, at_segment, drop_value};

/// What follows an element inside `[...]`.
pub(crate) enum AfterElement {
    More,
    End,
}

impl Parser<'_> {
    /// After an element: `,` (not followed by `]`) or `]`, both consumed.
    pub(crate) fn end_seq_element(&mut self) -> Result<AfterElement, Error> {
        match self.parse_whitespace() {
            Some(b',') => {
                self.pos += 1;
                if self.parse_whitespace() == Some(b']') {
                    return Err(self.error(ErrorCode::TrailingComma, self.pos));
                }
                Ok(AfterElement::More)
            }
            Some(b']') => {
                self.pos += 1;
                Ok(AfterElement::End)
            }
            Some(_) => Err(self.error(ErrorCode::ExpectedListCommaOrEnd, self.pos)),
            None => Err(self.error(ErrorCode::EofWhileParsingList, self.input.len())),
        }
    }

    /// One element of an array: [`decode_value`](Self::decode_value), with
    /// `f64`, the element of coordinate arrays (canada, GeoJSON), read without
    /// the dispatch on the kind.
    ///
    /// # Safety
    /// As for `decode_value`.
    #[inline(always)]
    unsafe fn decode_element(
        &mut self,
        layout: &'static TypeLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        // SAFETY (both): forwarded from the caller.
        if let Kind::F64 = layout.kind {
            return unsafe { self.decode_float::<f64>(layout, dst) };
        }
        unsafe { self.decode_value(layout, dst) }
    }

    /// Consumes `[` and any whitespace; returns whether the array is empty (its `]`
    /// consumed too). Enters one level of depth, which the caller leaves.
    pub(crate) fn begin_seq(&mut self, layout: &'static TypeLayout) -> Result<bool, Error> {
        if self.peek_value()? != b'[' {
            return Err(self.invalid_type(layout.expecting));
        }
        self.enter(layout)?;
        self.pos += 1;
        match self.parse_whitespace() {
            Some(b']') => {
                self.pos += 1;
                Ok(true)
            }
            None => {
                self.leave();
                Err(self.error(ErrorCode::EofWhileParsingList, self.input.len()))
            }
            Some(_) => Ok(false),
        }
    }

    /// A JSON array of any length: the elements are decoded onto the element
    /// stack and moved, at `]`, into a vector allocated for exactly their number
    /// ([`jitson_core::elements`]).
    ///
    /// # Safety
    /// `dst` is valid for a write of the vector type.
    pub(crate) unsafe fn decode_vec(
        &mut self,
        layout: &'static TypeLayout,
        vec: &VecLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        if vec.byte_strings && self.peek_value()? == b'"' {
            // SAFETY: as the caller guarantees.
            return unsafe { self.decode_byte_string(vec, dst) };
        }
        let empty = self.begin_seq(layout)?;
        if empty {
            // SAFETY: `dst` is room for the vector (caller).
            unsafe { (vec.new)(dst) };
            self.leave();
            return Ok(());
        }
        let elem = vec.elem.get();
        let mark = self.elements.mark();
        let mut len = 0usize;
        let result = loop {
            let slot = self.elements.push_value(elem);
            // SAFETY: `slot` is room for one `elem`, below everything pushed
            // since (nested vectors pop what they push).
            if let Err(e) = unsafe { self.decode_element(elem, slot) } {
                break Err(at_segment(e, || PathSegment::Index(len)));
            }
            len += 1;
            match self.end_seq_element() {
                Ok(AfterElement::More) => {}
                Ok(AfterElement::End) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        self.leave();
        // SAFETY: `len` values of `elem` were pushed since `mark`, each
        // initialised; `dst` is room for the vector (caller).
        unsafe {
            if result.is_err() {
                self.elements.discard_vec(mark, len, elem);
            } else {
                self.elements.finish_vec(mark, len, elem, vec, dst);
            }
        }
        result
    }

    /// A JSON string into a byte buffer ([`VecLayout::byte_strings`]): its raw
    /// bytes, as serde_json's `deserialize_bytes` reads them. Generated code
    /// reads only the array form and hands strings here.
    ///
    /// # Safety
    /// `dst` is valid for a write of the buffer type, whose elements are `u8`.
    unsafe fn decode_byte_string(&mut self, vec: &VecLayout, dst: *mut u8) -> Result<(), Error> {
        debug_assert!(matches!(vec.elem.get().kind, Kind::U8));
        let (located, end) = text::parse_str_raw(self.input, self.pos + 1, &mut self.scratch)
            .map_err(|e| self.lex_error(e))?;
        self.pos = end;
        let bytes = located.bytes(self.input, &self.scratch);
        // SAFETY: `dst` is room for the buffer (caller); `with_capacity` gives
        // room for `bytes.len()` elements of `u8`, all written before `set_len`.
        unsafe {
            let buffer = (vec.with_capacity)(dst, bytes.len());
            if buffer.is_null() {
                std::alloc::handle_alloc_error(
                    std::alloc::Layout::array::<u8>(bytes.len().max(1))
                        .unwrap_or(std::alloc::Layout::new::<u8>()),
                );
            }
            core::ptr::copy_nonoverlapping(bytes.as_ptr(), buffer, bytes.len());
            (vec.set_len)(dst, bytes.len());
        }
        Ok(())
    }

    /// A JSON array of exactly `N` elements into `[T; N]`.
    ///
    /// # Safety
    /// `dst` is valid for a write of the array type.
    pub(crate) unsafe fn decode_array(
        &mut self,
        layout: &'static TypeLayout,
        array: &ArrayLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        let elem = array.elem.get();
        let n = array.len;
        // SAFETY: element i < N lies at i * size inside the array (caller's `dst`).
        unsafe {
            self.decode_fixed(
                layout,
                dst,
                n,
                |i| (elem, i * elem.size),
                |_| None,
                |found| ErrorCode::InvalidLength { expected: n, found },
            )
        }
    }

    /// A JSON array of exactly as many elements as the tuple has, each at its
    /// offset; then the skipped fields.
    ///
    /// # Safety
    /// `dst` is valid for a write of the tuple type.
    pub(crate) unsafe fn decode_tuple(
        &mut self,
        layout: &'static TypeLayout,
        tuple: &TupleLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        let elems = tuple.elems;
        // SAFETY: offsets and layouts come from the Decode contract.
        unsafe {
            self.decode_fixed(
                layout,
                dst,
                elems.len(),
                |i| (elems[i].layout.get(), elems[i].offset),
                |i| elems[i].default,
                |found| ErrorCode::TupleLength {
                    found,
                    expected: tuple.expecting_len,
                },
            )?;
            if let Err(e) = self.init_skipped(tuple.skipped, dst) {
                for elem in elems {
                    drop_value(elem.layout.get(), dst.add(elem.offset));
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// After the last element of a fixed-length array (or after its `[` when it
    /// has none), as serde_json's `end_seq` reads it: `]`, consumed; anything
    /// else is trailing characters where it starts, after a `,` and whitespace
    /// (a trailing comma when `]` follows the `,`).
    pub(crate) fn end_fixed_seq(&mut self) -> Result<(), Error> {
        match self.parse_whitespace() {
            Some(b']') => {
                self.pos += 1;
                Ok(())
            }
            Some(b',') => {
                self.pos += 1;
                let code = match self.parse_whitespace() {
                    Some(b']') => ErrorCode::TrailingComma,
                    _ => ErrorCode::TrailingCharacters,
                };
                Err(self.error(code, self.pos))
            }
            Some(_) => Err(self.error(ErrorCode::TrailingCharacters, self.pos)),
            None => Err(self.error(ErrorCode::EofWhileParsingList, self.input.len())),
        }
    }

    /// The error for an array with more than `len` elements inside a value
    /// serde buffered, `pos` at the first extra one: serde counts every
    /// element.
    #[cold]
    fn too_long(&mut self, len: usize) -> Error {
        let mut found = len;
        loop {
            if let Err(e) = self.ignore_value() {
                return e;
            }
            found += 1;
            match self.end_seq_element() {
                Ok(AfterElement::More) => {}
                Ok(AfterElement::End) => break,
                Err(e) => return e,
            }
        }
        self.error(
            ErrorCode::SeqTooLong {
                found,
                expected: len,
            },
            self.pos,
        )
    }

    /// A JSON array of exactly `len` elements, element `i` decoded with the layout
    /// and at the offset `elem(i)` gives. After the last element only `]` may
    /// follow: anything else is trailing characters (a syntax error, as
    /// serde_json's `end_seq` reports it) unless serde buffered the array,
    /// which counts the elements (`too_long`); too few elements is the error
    /// `too_short(count)` at the `]`.
    ///
    /// # Safety
    /// `dst` is valid for a write of `layout`, and `elem(i)` names memory inside it
    /// for every `i < len`.
    unsafe fn decode_fixed(
        &mut self,
        layout: &'static TypeLayout,
        dst: *mut u8,
        len: usize,
        elem: impl Fn(usize) -> (&'static TypeLayout, usize),
        default: impl Fn(usize) -> Option<jitson_core::layout::InitFn>,
        too_short: impl FnOnce(usize) -> ErrorCode,
    ) -> Result<(), Error> {
        let empty = self.begin_seq(layout)?;
        let mut count = 0usize;
        let result = if empty {
            Ok(())
        } else if len == 0 && self.buffered == 0 {
            self.end_fixed_seq()
        } else {
            loop {
                if count == len {
                    break Err(self.too_long(len));
                }
                let (elem_layout, offset) = elem(count);
                // SAFETY: as the caller guarantees for `count < len`.
                if let Err(e) = unsafe { self.decode_element(elem_layout, dst.add(offset)) } {
                    break Err(at_segment(e, || PathSegment::Index(count)));
                }
                count += 1;
                if count == len && self.buffered == 0 {
                    break self.end_fixed_seq();
                }
                match self.end_seq_element() {
                    Ok(AfterElement::More) => {}
                    Ok(AfterElement::End) => break Ok(()),
                    Err(e) => break Err(e),
                }
            }
        };
        self.leave();
        // An array ending early: the missing elements' defaults, as serde
        // fills them, up to the first that has none (an invalid length).
        let result = match result {
            Ok(()) if count != len => loop {
                let Some(init) = default(count) else {
                    break Err(self.error(too_short(count), self.pos - 1));
                };
                let (_, offset) = elem(count);
                // SAFETY: element `count` is room for its type (the caller's
                // guarantee); `init` writes it whole or nothing.
                if !unsafe { init(dst.add(offset)) } {
                    break Err(self.error(ErrorCode::Panicked, self.pos - 1));
                }
                count += 1;
                if count == len {
                    break Ok(());
                }
            },
            other => other,
        };
        if result.is_err() {
            for i in 0..count {
                let (elem_layout, offset) = elem(i);
                // SAFETY: elements 0..count were written and are dropped once.
                unsafe { drop_value(elem_layout, dst.add(offset)) };
            }
        }
        result
    }
}

// ---------------------------------------------------------------------------
// Encoding

impl crate::encode::Emitter<'_> {
    /// Elements `ptr[..len]` of `elem`'s layout as a JSON array.
    ///
    /// # Safety
    /// `ptr` points to `len` live, contiguous elements of `elem`'s type.
    unsafe fn encode_elements(
        &mut self,
        layout: &TypeLayout,
        elem: &'static TypeLayout,
        ptr: *const u8,
        len: usize,
    ) -> Result<(), Error> {
        if len == 0 {
            // Nothing inside, so no level to enter: `[]` in both modes, as
            // serde_json writes an empty sequence.
            jitson_core::write::append(self.out, b"[]");
            return Ok(());
        }
        self.begin(layout, b'[')?;
        // SAFETY: as the caller guarantees.
        if !self.pretty && unsafe { self.encode_number_elements(elem, ptr, len) } {
            self.end(b']', true);
            return Ok(());
        }
        for i in 0..len {
            self.separator(i == 0);
            // SAFETY: element `i` lies at `i * size` (contiguous storage).
            unsafe { self.encode_element(elem, ptr.add(i * elem.size)) }
                .map_err(|e| crate::encode::at_segment(e, || PathSegment::Index(i)))?;
        }
        self.end(b']', true);
        Ok(())
    }

    /// One element of a sequence: [`encode_value`](Self::encode_value), with
    /// structs, the element of most arrays of objects (citm's prices, seat
    /// categories and areas), entered without the dispatch on the kind.
    ///
    /// # Safety
    /// As for `encode_value`.
    #[inline(always)]
    unsafe fn encode_element(
        &mut self,
        elem: &'static TypeLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        // SAFETY (both arms): forwarded from the caller.
        unsafe {
            match &elem.kind {
                Kind::Struct(st) => self.encode_struct(elem, st, src),
                _ => self.encode_value(elem, src),
            }
        }
    }

    /// Compact output of elements that are numbers (floats, and integers of
    /// up to 64 bits): one loop per element type instead of a dispatch per
    /// element (a third of canada's interpreted encode went to the dispatch
    /// around each coordinate). Returns `false`, having written nothing, for
    /// any other element kind.
    ///
    /// # Safety
    /// `ptr` points to `len` live, contiguous elements of `elem`'s type.
    unsafe fn encode_number_elements(
        &mut self,
        elem: &TypeLayout,
        ptr: *const u8,
        len: usize,
    ) -> bool {
        /// Writes each element of type `T` with `write`, comma-separated.
        ///
        /// # Safety
        /// `ptr` points to `len` live, contiguous values of `T`.
        unsafe fn each<T: Copy>(
            out: &mut Vec<u8>,
            ptr: *const u8,
            len: usize,
            write: impl Fn(&mut Vec<u8>, T),
        ) -> bool {
            for i in 0..len {
                if i > 0 {
                    out.push(b',');
                }
                // SAFETY: element `i` of `len` contiguous `T`s.
                write(out, unsafe { ptr.cast::<T>().add(i).read_unaligned() });
            }
            true
        }
        /// Writes each element of integer type `T`, comma-separated.
        ///
        /// # Safety
        /// `ptr` points to `len` live, contiguous values of `T`.
        unsafe fn ints<T: jitson_core::write::Integer>(
            out: &mut Vec<u8>,
            ptr: *const u8,
            len: usize,
        ) -> bool {
            // SAFETY: element `i < len` of `len` contiguous `T`s.
            let value = |i: usize| unsafe { ptr.cast::<T>().add(i).read_unaligned() };
            jitson_core::write::write_int_list(out, len, value);
            true
        }
        use jitson_core::write::{write_f32, write_f64};
        if let Kind::Tuple(tuple) = &elem.kind {
            // SAFETY: as the caller guarantees.
            return unsafe { self.encode_number_tuples(tuple, elem.size, ptr, len) };
        }
        // Arrays of such arrays (canada's and GeoJSON's `[f64; 2]`
        // positions): each inner array written here too, without the
        // dispatch, the stack check and the separator logic of a container
        // per position. An array of numbers holds no container, so there is
        // no depth to check.
        if let Kind::Array(inner) = &elem.kind {
            let (numbers, size) = (inner.elem.get(), elem.size);
            if !is_number(numbers) {
                return false;
            }
            for i in 0..len {
                if i > 0 {
                    self.out.push(b',');
                }
                self.out.push(b'[');
                // SAFETY: element `i` is an array of `inner.len` contiguous
                // numbers, at `i * size` (contiguous storage).
                unsafe { self.encode_number_elements(numbers, ptr.add(i * size), inner.len) };
                self.out.push(b']');
            }
            return true;
        }
        let out = &mut *self.out;
        // SAFETY (all arms): the elements are of the kind's type.
        unsafe {
            match elem.kind {
                Kind::F64 => each(out, ptr, len, write_f64),
                Kind::F32 => each(out, ptr, len, write_f32),
                Kind::I64 => ints::<i64>(out, ptr, len),
                Kind::U64 => ints::<u64>(out, ptr, len),
                Kind::I32 => ints::<i32>(out, ptr, len),
                Kind::U32 => ints::<u32>(out, ptr, len),
                Kind::I16 => ints::<i16>(out, ptr, len),
                Kind::U16 => ints::<u16>(out, ptr, len),
                Kind::I8 => ints::<i8>(out, ptr, len),
                Kind::U8 => ints::<u8>(out, ptr, len),
                _ => false,
            }
        }
    }

    /// Compact output of `len` tuples (or tuple structs) whose elements are
    /// all numbers, GeoJSON's `Position(f64, f64)`: each written as an array
    /// by one loop, its element layouts resolved once for the sequence, without
    /// the dispatch, the stack check and the separator logic of a container
    /// per tuple (a tuple of numbers holds no container, so there is no depth
    /// to check). Returns `false`, having written nothing, for a tuple with an
    /// element of another kind, none, more than [`NUMBER_TUPLE_MAX`], or one
    /// that `skip_serializing_if` may leave out.
    ///
    /// # Safety
    /// `ptr` points to `len` live, contiguous tuples of `size` bytes each.
    unsafe fn encode_number_tuples(
        &mut self,
        tuple: &TupleLayout,
        size: usize,
        ptr: *const u8,
        len: usize,
    ) -> bool {
        let elems = tuple.elems;
        if elems.is_empty() || elems.len() > NUMBER_TUPLE_MAX {
            return false;
        }
        let mut numbers = [(elems[0].layout.get(), 0usize); NUMBER_TUPLE_MAX];
        for (number, elem) in numbers.iter_mut().zip(elems) {
            let layout = elem.layout.get();
            if !is_number(layout) || elem.skip_if.is_some() {
                return false;
            }
            *number = (layout, elem.offset);
        }
        let numbers = &numbers[..elems.len()];
        let out = &mut *self.out;
        for i in 0..len {
            if i > 0 {
                out.push(b',');
            }
            out.push(b'[');
            // SAFETY: tuple `i` lies at `i * size` (contiguous storage).
            let tuple = unsafe { ptr.add(i * size) };
            for (j, &(layout, offset)) in numbers.iter().enumerate() {
                if j > 0 {
                    out.push(b',');
                }
                // SAFETY: element `j` of the tuple lies at its offset and
                // is of its layout's number type.
                unsafe { write_number(out, layout, tuple.add(offset)) };
            }
            out.push(b']');
        }
        true
    }

    /// A vector or slice, through its layout's `as_slice`.
    ///
    /// # Safety
    /// `src` points to a value of the layout's type.
    pub(crate) unsafe fn encode_vec(
        &mut self,
        layout: &'static TypeLayout,
        vec: &VecLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        let mut len = 0usize;
        // SAFETY: as the caller guarantees; `as_slice` gives the live elements.
        unsafe {
            let ptr = (vec.as_slice)(src, &raw mut len);
            self.encode_elements(layout, vec.elem.get(), ptr, len)
        }
    }

    /// `[T; N]`.
    ///
    /// # Safety
    /// `src` points to a value of the array type.
    pub(crate) unsafe fn encode_array(
        &mut self,
        layout: &'static TypeLayout,
        array: &ArrayLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        // SAFETY: an array's elements are contiguous.
        unsafe { self.encode_elements(layout, array.elem.get(), src, array.len) }
    }

    /// A tuple or tuple struct: its elements at their offsets, as an array,
    /// but for those its `skip_serializing_if` predicates leave out (as
    /// serde's derive leaves them out; every one of them: `[]`).
    ///
    /// # Safety
    /// `src` points to a value of the tuple type.
    pub(crate) unsafe fn encode_tuple(
        &mut self,
        layout: &'static TypeLayout,
        tuple: &TupleLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        // SAFETY: `src` is one live tuple, as the caller guarantees.
        if !self.pretty && unsafe { self.encode_number_tuples(tuple, layout.size, src, 1) } {
            return Ok(());
        }
        self.begin(layout, b'[')?;
        // The index of the element in the output, as serde_json's path
        // counts it: skipped elements take none.
        let mut written = 0;
        for elem in tuple.elems {
            // SAFETY: the element lies at its offset inside the tuple.
            let value = unsafe { src.add(elem.offset) };
            // SAFETY: the predicate reads the live element.
            if unsafe { crate::encode::skipped(elem.skip_if, value)? } {
                continue;
            }
            self.separator(written == 0);
            // SAFETY: as above.
            unsafe { self.encode_value(elem.layout.get(), value) }
                .map_err(|e| crate::encode::at_segment(e, || PathSegment::Index(written)))?;
            written += 1;
        }
        self.end(b']', written > 0);
        Ok(())
    }
}

/// The most elements a tuple written by `encode_number_tuples` has (more
/// take the general path, element by element).
const NUMBER_TUPLE_MAX: usize = 8;

/// Appends the number at `src`, of a kind [`is_number`] accepts.
///
/// # Safety
/// `src` points to a value of `layout`'s type, a number kind.
#[inline(always)]
unsafe fn write_number(out: &mut Vec<u8>, layout: &TypeLayout, src: *const u8) {
    use jitson_core::write::{write_f32, write_f64, write_int};
    // SAFETY (all arms): as the caller guarantees; unaligned reads, as the
    // elements' loops do.
    unsafe {
        match layout.kind {
            Kind::F64 => write_f64(out, src.cast::<f64>().read_unaligned()),
            Kind::F32 => write_f32(out, src.cast::<f32>().read_unaligned()),
            Kind::I64 => write_int(out, src.cast::<i64>().read_unaligned()),
            Kind::U64 => write_int(out, src.cast::<u64>().read_unaligned()),
            Kind::I32 => write_int(out, src.cast::<i32>().read_unaligned()),
            Kind::U32 => write_int(out, src.cast::<u32>().read_unaligned()),
            Kind::I16 => write_int(out, src.cast::<i16>().read_unaligned()),
            Kind::U16 => write_int(out, src.cast::<u16>().read_unaligned()),
            Kind::I8 => write_int(out, src.cast::<i8>().read_unaligned()),
            Kind::U8 => write_int(out, src.cast::<u8>().read_unaligned()),
            _ => unreachable!("write_number of a kind is_number refuses"),
        }
    }
}

/// Whether `layout` is one of the number kinds `encode_number_elements`
/// writes in a loop of its own.
fn is_number(layout: &TypeLayout) -> bool {
    matches!(
        layout.kind,
        Kind::F64
            | Kind::F32
            | Kind::I64
            | Kind::U64
            | Kind::I32
            | Kind::U32
            | Kind::I16
            | Kind::U16
            | Kind::I8
            | Kind::U8
    )
}
