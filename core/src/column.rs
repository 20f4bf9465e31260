//! Columnar output: where a value goes when it is appended to a column instead of
//! written at a struct offset.
//!
//! The layout model keeps two questions apart. *What a value is* — how its JSON is
//! parsed — is the value's [`Kind`]: an integer, a string, an object with known
//! keys. *Where it goes* is the destination pointer the backend hands the kind:
//! for a derived type, memory at a field's offset; for columnar output, a slot in
//! a [`Column`]. A [`ColumnLayout`] ([`Kind::Column`]) is the bridge: it decides
//! the destination (the next fixed-width slot, the column itself for text, the
//! child columns for lists and records), lets the value's own kind parse and
//! store into it, then commits the row (validity and length). Both backends
//! therefore parse columnar values with exactly the code they use for structs.
//!
//! Records are ordinary [`StructLayout`](crate::layout::StructLayout)s whose
//! field `i` sits at offset `i * size_of::<Column>()` of an array of columns, so
//! key matching, unknown keys, duplicate and missing fields are the struct
//! machinery's. A field's [`DropFn`] is [`column_pop`] (it undoes the append), and
//! the default of a nullable field is [`column_push_null`].
//!
//! # Memory
//!
//! A [`Column`] is `#[repr(C)]` and owned by this module: its buffers come from
//! the global allocator with layouts computed here, so the JIT may read and write
//! its fields (`values`, `len`, `cap`, `validity`) directly. Growth, text appends
//! and everything that allocates go through the `extern "C"` functions below,
//! which never unwind (allocation failure aborts, as `Vec` does).

use std::alloc::{self, Layout};

use crate::layout::{Kind, LayoutRef, RunTimeNode, TypeLayout};

/// How a column stores its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Shape {
    /// `width` bytes per row in `values` (integers, floats, booleans as one
    /// byte each, dates, timestamps, decimals); `width` 0 for a null column.
    Fixed = 0,
    /// Text: `len + 1` offsets of `width` bytes (4 or 8) in `values`, the bytes in
    /// `data`.
    Text = 1,
    /// A list: `len + 1` offsets of `width` bytes in `values` into the one child.
    List = 2,
    /// A record: one child per field, each with as many rows as this column.
    Struct = 3,
}

/// One column being built. See the module docs for who may touch what.
#[repr(C)]
#[derive(Debug)]
pub struct Column {
    /// Fixed-width values, or offsets (`cap + 1` entries) for text and lists.
    pub values: *mut u8,
    /// Rows appended.
    pub len: usize,
    /// Rows the buffers have room for.
    pub cap: usize,
    /// One byte per row: 1 valid, 0 null (packed into bits when the batch is built).
    pub validity: *mut u8,
    /// Null rows among the first `len`.
    pub null_count: usize,
    /// Text bytes.
    pub data: *mut u8,
    /// Text bytes used.
    pub data_len: usize,
    /// Text bytes allocated.
    pub data_cap: usize,
    /// The list's element column, or the record's field columns.
    pub children: *mut Column,
    /// Entries in `children`.
    pub n_children: usize,
    /// Bytes per value (fixed) or per offset (text, lists).
    pub width: usize,
    /// How rows are stored.
    pub shape: Shape,
}

// SAFETY: a `Column` owns its buffers exclusively (no shared pointers), like a
// `Vec`; moving it to another thread moves that ownership.
unsafe impl Send for Column {}

/// The alignment of every values buffer: enough for `i128` (Decimal128) and
/// `i256` (Decimal256, 16-byte aligned), Arrow's own buffers' expectations of
/// natural alignment.
const VALUES_ALIGN: usize = 16;

/// The widest fixed-width value: Decimal256's 32 bytes.
const MAX_FIXED_WIDTH: usize = 32;

impl Column {
    /// An empty column. `children` are moved in (a list has exactly one, a record
    /// one per field; other shapes none). Panics if `width` does not fit the
    /// shape (a bug in the caller, not a data error).
    pub fn new(shape: Shape, width: usize, children: Vec<Column>) -> Column {
        match shape {
            Shape::Fixed => assert!(width <= MAX_FIXED_WIDTH && children.is_empty()),
            Shape::Text => assert!((width == 4 || width == 8) && children.is_empty()),
            Shape::List => assert!((width == 4 || width == 8) && children.len() == 1),
            Shape::Struct => assert!(width == 0),
        }
        let children = Box::into_raw(children.into_boxed_slice());
        let mut col = Column {
            values: core::ptr::null_mut(),
            len: 0,
            cap: 0,
            validity: core::ptr::null_mut(),
            null_count: 0,
            data: core::ptr::null_mut(),
            data_len: 0,
            data_cap: 0,
            n_children: children.len(),
            children: children.cast(),
            width,
            shape,
        };
        col.reallocate(8);
        col
    }

    fn values_layout(&self, cap: usize) -> Layout {
        let entries = if self.has_offsets() { cap + 1 } else { cap };
        let bytes = entries
            .checked_mul(self.width)
            .expect("column capacity overflow");
        Layout::from_size_align(bytes.max(1), VALUES_ALIGN).expect("column capacity overflow")
    }

    fn has_offsets(&self) -> bool {
        matches!(self.shape, Shape::Text | Shape::List)
    }

    /// Resizes `values` and `validity` to `cap` rows (never below `len`).
    fn reallocate(&mut self, cap: usize) {
        debug_assert!(cap >= self.len);
        let new_values = self.values_layout(cap);
        let new_validity = Layout::array::<u8>(cap.max(1)).expect("column capacity overflow");
        // SAFETY: the old buffers (if any) were allocated here with the layouts
        // for `self.cap`; the new sizes are non-zero. On first allocation the
        // offsets buffer gets its leading zero.
        unsafe {
            if self.values.is_null() {
                self.values = alloc::alloc_zeroed(new_values);
                self.validity = alloc::alloc(new_validity);
            } else {
                self.values =
                    alloc::realloc(self.values, self.values_layout(self.cap), new_values.size());
                self.validity = alloc::realloc(
                    self.validity,
                    Layout::array::<u8>(self.cap.max(1)).unwrap_unchecked(),
                    new_validity.size(),
                );
            }
        }
        if self.values.is_null() {
            alloc::handle_alloc_error(new_values);
        }
        if self.validity.is_null() {
            alloc::handle_alloc_error(new_validity);
        }
        self.cap = cap;
    }

    /// The children, as a slice.
    pub fn children(&self) -> &[Column] {
        // SAFETY: `children` is the boxed slice made in `new`, `n_children` long.
        unsafe { core::slice::from_raw_parts(self.children, self.n_children) }
    }

    /// The children, mutably.
    pub fn children_mut(&mut self) -> &mut [Column] {
        // SAFETY: as in `children`; `&mut self` makes the access exclusive.
        unsafe { core::slice::from_raw_parts_mut(self.children, self.n_children) }
    }

    /// The values (or offsets) written: `len * width` bytes, or `(len + 1) * width`
    /// for text and lists.
    pub fn values(&self) -> &[u8] {
        let entries = if self.has_offsets() {
            self.len + 1
        } else {
            self.len
        };
        // SAFETY: that many entries are initialised (offsets from the zeroed
        // first entry on; values as rows are committed, nulls zeroed).
        unsafe { core::slice::from_raw_parts(self.values, entries * self.width) }
    }

    /// One byte per row: 1 valid, 0 null.
    pub fn validity(&self) -> &[u8] {
        // SAFETY: a validity byte is written for every committed row.
        unsafe { core::slice::from_raw_parts(self.validity, self.len) }
    }

    /// The text bytes.
    pub fn data(&self) -> &[u8] {
        if self.data.is_null() {
            return &[];
        }
        // SAFETY: `data_len` bytes were copied in by `column_append_text`.
        unsafe { core::slice::from_raw_parts(self.data, self.data_len) }
    }

    /// Offset entry `i` (text and lists).
    fn offset(&self, i: usize) -> usize {
        // SAFETY: callers ask for `i <= len`, within the `cap + 1` entries.
        unsafe {
            if self.width == 4 {
                self.values.cast::<u32>().add(i).read() as usize
            } else {
                self.values.cast::<u64>().add(i).read() as usize
            }
        }
    }

    fn set_offset(&mut self, i: usize, value: usize) {
        // SAFETY: `i <= cap`, within the `cap + 1` entries; a 32-bit offset has
        // been checked to fit by the caller.
        unsafe {
            if self.width == 4 {
                self.values.cast::<u32>().add(i).write(value as u32);
            } else {
                self.values.cast::<u64>().add(i).write(value as u64);
            }
        }
    }

    /// The end of the last row's child range (lists) or bytes (text).
    fn end_offset(&self) -> usize {
        match self.shape {
            Shape::List => self.children()[0].len,
            _ => self.data_len,
        }
    }

    /// Makes room for one more row.
    #[inline]
    pub fn reserve_row(&mut self) {
        if self.len == self.cap {
            self.reallocate(self.cap * 2);
        }
    }

    /// Commits the row being appended as valid: for text and lists, its end
    /// offset is where the data or child now ends.
    pub fn commit_valid(&mut self) {
        debug_assert!(self.len < self.cap);
        if self.has_offsets() {
            self.set_offset(self.len + 1, self.end_offset());
        }
        // SAFETY: `len < cap` (`reserve_row` ran before the value was decoded).
        unsafe { self.validity.add(self.len).write(1) };
        self.len += 1;
    }

    /// Appends a null row (records: a null in every child too, as Arrow wants
    /// children as long as their parent).
    pub fn push_null(&mut self) {
        self.reserve_row();
        match self.shape {
            Shape::Fixed => {
                // SAFETY: slot `len` lies within `cap` rows of `width` bytes.
                unsafe {
                    core::ptr::write_bytes(self.values.add(self.len * self.width), 0, self.width)
                }
            }
            Shape::Text | Shape::List => self.set_offset(self.len + 1, self.end_offset()),
            Shape::Struct => self.children_mut().iter_mut().for_each(Column::push_null),
        }
        // SAFETY: `len < cap` after `reserve_row`.
        unsafe { self.validity.add(self.len).write(0) };
        self.null_count += 1;
        self.len += 1;
    }

    /// Drops rows from `rows` on, and whatever they own in children and data.
    pub fn truncate(&mut self, rows: usize) {
        if rows >= self.len {
            return;
        }
        let nulls = self.validity()[rows..].iter().filter(|&&v| v == 0).count();
        self.null_count -= nulls;
        match self.shape {
            Shape::Fixed => {}
            Shape::Text => self.data_len = self.offset(rows),
            Shape::List => {
                let end = self.offset(rows);
                self.children_mut()[0].truncate(end);
            }
            Shape::Struct => self
                .children_mut()
                .iter_mut()
                .for_each(|c| c.truncate(rows)),
        }
        self.len = rows;
    }

    /// Appends `bytes` to the text data (the row is committed separately).
    /// Returns `false` when 32-bit offsets would overflow.
    pub fn append_text(&mut self, bytes: &[u8]) -> bool {
        let end = self.data_len + bytes.len();
        if self.offsets_overflow(end) {
            return false;
        }
        if end > self.data_cap {
            self.grow_data(end);
        }
        // SAFETY: `data` has room for `end` bytes; `bytes` does not overlap it.
        unsafe { crate::write::copy_text(bytes, self.data.add(self.data_len)) };
        self.data_len = end;
        true
    }

    /// Whether text data of `end` bytes is more than the offsets can say
    /// (`i32::MAX` for 32-bit offsets).
    #[inline]
    fn offsets_overflow(&self, end: usize) -> bool {
        self.width == 4 && end > i32::MAX as usize
    }

    /// Appends the text of the JSON string whose contents start at `pos` (after
    /// its opening quote), unescaped, straight onto the text data, as
    /// [`text::parse_str_onto`](crate::text::parse_str_onto) reads it; returns
    /// the position after the closing quote (the row is committed
    /// separately). On an error nothing is appended. Aborts where 32-bit
    /// offsets would overflow, as [`column_append_text`] does.
    pub fn append_json_string(
        &mut self,
        input: &[u8],
        pos: usize,
        validate_utf8: bool,
    ) -> Result<usize, crate::text::LexError> {
        let mut text = TextData::take(self);
        let before = text.vec.len();
        let result = crate::text::parse_str_onto(input, pos, &mut text.vec, validate_utf8);
        if result.is_err() {
            text.vec.truncate(before);
        } else if text.col.offsets_overflow(text.vec.len()) {
            text_offsets_overflowed();
        }
        result
    }

    #[cold]
    fn grow_data(&mut self, end: usize) {
        let cap = end.max(self.data_cap * 2).max(64);
        let layout = Layout::array::<u8>(cap).expect("text capacity overflow");
        // SAFETY: `data` was allocated here with `data_cap` bytes, or is null.
        self.data = unsafe {
            if self.data.is_null() {
                alloc::alloc(layout)
            } else {
                alloc::realloc(
                    self.data,
                    Layout::array::<u8>(self.data_cap).unwrap_unchecked(),
                    cap,
                )
            }
        };
        if self.data.is_null() {
            alloc::handle_alloc_error(layout);
        }
        self.data_cap = cap;
    }

    /// Empties the column, keeping its buffers (after a batch is taken).
    pub fn clear(&mut self) {
        self.len = 0;
        self.null_count = 0;
        self.data_len = 0;
        self.children_mut().iter_mut().for_each(Column::clear);
    }
}

/// A text column's data lent out as the `Vec<u8>` it is laid out as, and put
/// back when this is dropped (also while unwinding, so the column never keeps
/// a pointer the vector reallocated or freed).
struct TextData<'a> {
    col: &'a mut Column,
    vec: core::mem::ManuallyDrop<Vec<u8>>,
}

impl<'a> TextData<'a> {
    fn take(col: &'a mut Column) -> Self {
        let vec = if col.data.is_null() {
            Vec::new()
        } else {
            // SAFETY: `data` was allocated by `grow_data` (or by a vector put
            // back by `drop` below) from the global allocator with the layout
            // of `[u8; data_cap]`, which is a `Vec<u8>`'s of that capacity;
            // its first `data_len` bytes are initialised. The column does not
            // touch the buffer until `drop` puts the vector's parts back.
            unsafe { Vec::from_raw_parts(col.data, col.data_len, col.data_cap) }
        };
        TextData {
            col,
            vec: core::mem::ManuallyDrop::new(vec),
        }
    }
}

impl Drop for TextData<'_> {
    fn drop(&mut self) {
        let cap = self.vec.capacity();
        // A vector that never allocated holds a dangling pointer, which the
        // column's `Drop` must not free: the column keeps null then.
        self.col.data = if cap == 0 {
            core::ptr::null_mut()
        } else {
            self.vec.as_mut_ptr()
        };
        self.col.data_len = self.vec.len();
        self.col.data_cap = cap;
    }
}

impl Drop for Column {
    fn drop(&mut self) {
        // SAFETY: every buffer was allocated here with the layout recomputed now,
        // and `children` is the boxed slice made in `new`.
        unsafe {
            alloc::dealloc(self.values, self.values_layout(self.cap));
            alloc::dealloc(
                self.validity,
                Layout::array::<u8>(self.cap.max(1)).unwrap_unchecked(),
            );
            if !self.data.is_null() {
                alloc::dealloc(
                    self.data,
                    Layout::array::<u8>(self.data_cap).unwrap_unchecked(),
                );
            }
            drop(Box::from_raw(core::ptr::slice_from_raw_parts_mut(
                self.children,
                self.n_children,
            )));
        }
    }
}

/// Grows `col` so that one more row fits (generated code calls it when
/// `len == cap`).
///
/// # Safety
/// `col` points to a live [`Column`].
pub unsafe extern "C" fn column_reserve_row(col: *mut Column) {
    // SAFETY: the caller's guarantee.
    unsafe { (*col).reserve_row() }
}

/// Truncates `col` to `rows` rows (generated code calls it when it abandons a
/// list half-appended).
///
/// # Safety
/// `col` points to a live [`Column`].
pub unsafe extern "C" fn column_truncate(col: *mut Column, rows: usize) {
    // SAFETY: the caller's guarantee.
    unsafe { (*col).truncate(rows) }
}

/// Undoes what a row being decoded appended to a list-shaped column's child (a
/// map's entries) before it was committed: the [`DropFn`](crate::layout::DropFn)
/// of a map value, which the backends call when the map fails half-way.
///
/// # Safety
/// `col` points to a live list-shaped [`Column`].
pub unsafe extern "C" fn column_abandon_row(col: *mut u8) -> bool {
    // SAFETY: the caller's guarantee.
    let col = unsafe { &mut *col.cast::<Column>() };
    let end = col.offset(col.len);
    col.children_mut()[0].truncate(end);
    true
}

/// Appends a null row: the [`InitFn`](crate::layout::InitFn) of an absent
/// nullable field.
///
/// # Safety
/// `col` points to a live [`Column`].
pub unsafe extern "C" fn column_push_null(col: *mut u8) -> bool {
    // SAFETY: the caller's guarantee.
    unsafe { (*col.cast::<Column>()).push_null() };
    true
}

/// Removes the last row: the [`DropFn`](crate::layout::DropFn) of a column
/// field, which undoes its append when a backend abandons a record half-written.
///
/// # Safety
/// `col` points to a live [`Column`] with at least one row.
pub unsafe extern "C" fn column_pop(col: *mut u8) -> bool {
    // SAFETY: the caller's guarantee.
    let col = unsafe { &mut *col.cast::<Column>() };
    col.truncate(col.len - 1);
    true
}

/// Appends text to a text column: the [`StringLayout`](crate::layout::StringLayout)
/// `write` of a text column's value. The row is committed by the column kind.
///
/// # Safety
/// `col` points to a live text [`Column`] with room for one more row; `ptr[..len]`
/// is readable.
pub unsafe extern "C" fn column_append_text(col: *mut u8, ptr: *const u8, len: usize) {
    // SAFETY: the caller's guarantee.
    let (col, bytes) = unsafe {
        (
            &mut *col.cast::<Column>(),
            core::slice::from_raw_parts(ptr, len),
        )
    };
    if !col.append_text(bytes) {
        text_offsets_overflowed();
    }
}

/// What a text append does when 32-bit offsets would overflow: 2 GiB of text
/// in one batch of a 32-bit-offset column, which Arrow cannot represent
/// (arrow-json fails the same way). Not a data error that can be reported
/// from where text is appended; a smaller batch size avoids it. Aborts.
#[cold]
fn text_offsets_overflowed() -> ! {
    std::process::abort()
}

/// What the backends do with a value that is not of the column's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conflict {
    /// An error (the default).
    Error,
    /// A null, when the column is nullable (arrow-json's
    /// `with_ignore_type_conflicts(true)`).
    Null,
}

/// Where a column's value is decoded to (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Store {
    /// Into the next slot of `values`; the value's kind writes `width` bytes.
    Fixed,
    /// Into the column itself: the value's kind appends to it (a string kind
    /// whose `write` is [`column_append_text`], a [`Kind::Parsed`] that appends,
    /// a map kind whose `insert_with` appends an entry).
    Append,
    /// Each element of a JSON array into the child column, through the element
    /// layout in [`ColumnLayout::value`] (itself a column layout).
    List,
    /// Into the children: the value's kind is a struct whose fields are the
    /// children's column layouts.
    Struct,
}

/// A column: the value's layout, and where it goes.
#[derive(Debug)]
pub struct ColumnLayout {
    /// How a value is parsed. For [`Store::List`], the element's column layout.
    pub value: LayoutRef,
    /// Where it is stored.
    pub store: Store,
    /// Bytes per value ([`Store::Fixed`]) or per offset (text and lists: 4 or
    /// 8), as in the [`Column`] built for it.
    pub width: usize,
    /// Whether `null` is a null row (otherwise the value's kind refuses it).
    pub nullable: bool,
    /// What a value of another type becomes.
    pub conflict: Conflict,
    /// A second, looser reading of a value that [`value`](Self::value) refuses
    /// (arrow-json's rules: `1.5` or `"42"` in an integer column): a
    /// [`Kind::Parsed`] layout writing the same slot ([`Store::Fixed`] only). `value` stays the fast
    /// path; only what it refuses is read again, by the interpreter on both
    /// backends (generated code hands the column to it when `value` fails).
    /// When this reading refuses the value too, the error is its own if it is a
    /// data error (it read the value's JSON type), otherwise `value`'s.
    pub lenient: Option<LayoutRef>,
    /// For a [`Store::List`] column of fixed-size lists (Arrow's
    /// `FixedSizeList`), the number of elements each array must hold; another
    /// count is `ErrorCode::InvalidLength` (a data error), the elements it
    /// appended taken back.
    pub length: Option<usize>,
}

/// Parses the text of one JSON scalar into `dst` (a fixed-width slot, or a
/// column for text). `arg` is the layout's [`ParsedLayout::arg`] (a unit, a
/// scale). Returns `true` when it wrote; on `false` it puts a message in
/// `*message` ("invalid timestamp") unless `message` is null (the JIT's fast
/// path passes null, and on failure lets the interpreter redo the value for its
/// message).
pub type ParseFn = unsafe extern "C" fn(
    dst: *mut u8,
    ptr: *const u8,
    len: usize,
    arg: u64,
    message: *mut Option<Box<str>>,
) -> bool;

/// A scalar parsed from its text by functions: timestamps, dates, decimals, and
/// arrow-json's coercions between strings and numbers. A kind of value the
/// interpreter decodes for both backends.
#[derive(Debug)]
pub struct ParsedLayout {
    /// Applied to a JSON string's (unescaped) text.
    pub from_string: Option<ParseFn>,
    /// Applied to a JSON number's text.
    pub from_number: Option<ParseFn>,
    /// Applied to `true` / `false` as text.
    pub from_bool: Option<ParseFn>,
    /// Passed to every function: what varies between columns of one type (a
    /// timestamp's unit, a decimal's precision and scale).
    pub arg: u64,
    /// Whether a refusal of a number keeps the function's message (a type's
    /// own words, as its serde visitor gives them: `value is not a legal
    /// timestamp`); otherwise a refused number is named as serde names one
    /// (`invalid value: integer `5`, expected ...`).
    pub number_messages: bool,
    /// How a value is written back as JSON text (typed values of other crates'
    /// types: timestamps, UUIDs, decimals); `None` where the layout only decodes
    /// (run-time columns).
    pub format: Option<&'static FormatLayout>,
}

/// Writes the JSON text of the value at `src` (quotes included when it is a
/// string) into `out`, room for [`FormatLayout::max_len`] bytes. Returns the
/// number of bytes written, or 0 when this value needs
/// [`FormatLayout::write`] (a rare form, or an error). Pure: no allocation, no
/// unwinding; the JIT's encoder calls it in place.
pub type FormatFn = unsafe extern "C" fn(src: *const u8, out: *mut u8) -> usize;

/// Appends the JSON text of any value at `src` to `*out`; on `false` (the
/// type's serializer refuses the value) `*message` says why.
pub type WriteFn =
    unsafe extern "C" fn(src: *const u8, out: *mut Vec<u8>, message: *mut Option<Box<str>>) -> bool;

/// The encoding of a [`ParsedLayout`]'s values: a bounded fast path in place
/// and a general writer for what it declines. Both write exactly the bytes the
/// type's serde impl makes serde_json write.
#[derive(Debug)]
pub struct FormatLayout {
    /// The most bytes [`fast`](Self::fast) writes.
    pub max_len: usize,
    /// The fast path, into reserved room.
    pub fast: FormatFn,
    /// Every value, [`fast`](Self::fast)'s refusals included.
    pub write: WriteFn,
}

/// Builds the [`TypeLayout`] of a run-time node: no Rust type, so its identity is
/// its address (see [`TypeLayout::id`]).
pub const fn node(expecting: &'static str, size: usize, align: usize, kind: Kind) -> TypeLayout {
    TypeLayout {
        expecting,
        size,
        align,
        type_id: core::any::TypeId::of::<RunTimeNode>,
        type_name: node_type_name,
        drop: None,
        kind,
    }
}

fn node_type_name() -> &'static str {
    "a run-time schema node"
}

/// The layout of one column field: a [`Column`]'s size, [`column_pop`] as drop.
pub fn column_node(expecting: &'static str, column: &'static ColumnLayout) -> TypeLayout {
    TypeLayout {
        drop: Some(column_pop),
        ..node(
            expecting,
            size_of::<Column>(),
            align_of::<Column>(),
            Kind::Column(column),
        )
    }
}
