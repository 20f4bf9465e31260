//! Rows of columnar buffers written as JSON by compiled code: the row loop of
//! jitson-arrow's writer, for one schema and one set of options.
//!
//! The description ([`RowSpec`]) knows nothing of Arrow: each column is an
//! integer of some width, a bit-packed boolean, text behind offsets or in
//! string views, a struct of such columns, a list of them behind offsets, a
//! dictionary of them behind integer keys, a fixed-width value a
//! given function formats ([`RowKind::Formatted`]), or a value some other
//! code writes ([`RowKind::Call`]). Per batch, the caller points a [`ColumnView`]
//! at each column's buffers (a struct's fields and a list's items have views
//! of their own, after their parent's). The generated function writes rows
//! `start..end`: the separator between rows, `{` or `[`, then per column its
//! validity bit (when the batch has nulls in it), its key as constant bytes
//! with its comma, and its value through the typed encoder's own emitters
//! (`emit_encode_int`, `emit_encode_bool_value`, `emit_encode_text`): what a
//! value is, written once, read here from a column buffer instead of a struct
//! offset. Structs and lists are written by the same code as the rows, one
//! level down. Values of the other columns are formatted by their
//! [`RowCallFn`], which the caller binds to its own encoder (the
//! interpreter's), so both backends write the same bytes.

use std::time::{Duration, Instant};

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{AbiParam, Block, BlockArg, InstBuilder, Signature, Value, types};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module};

use crate::encode::{EncodeState, EncodeTranslator, Functions, PTR, state_flags, value_flags};
use crate::{CompileError, OwnedModule};

/// How a column's values are stored, and so how they are written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RowKind {
    /// `bytes`-wide (1, 2, 4 or 8) integers, signed or not, written in
    /// decimal.
    Int { bytes: u8, signed: bool },
    /// Bit-packed booleans, `true` / `false`.
    Bool,
    /// UTF-8 text behind 32-bit (or, `large`, 64-bit) offsets, written as a
    /// JSON string with serde_json's escapes.
    Text { large: bool },
    /// UTF-8 text in 16-byte views, the Arrow columnar format's string
    /// views: a little-endian 32-bit length, then the text itself when it
    /// is at most 12 bytes long, or else (after a 4-byte prefix) a 32-bit
    /// index of one of the column's data buffers and a 32-bit offset into
    /// it; written as [`RowKind::Text`] is.
    TextView,
    /// Bytes behind 32-bit (or, `large`, 64-bit) offsets, written as a
    /// quoted string of lower-case hex digits, two per byte (arrow-json's
    /// text of a binary value).
    Binary { large: bool },
    /// Bytes in 16-byte views, laid out as [`RowKind::TextView`]'s, written
    /// as [`RowKind::Binary`] is.
    BinaryView,
    /// Values of `width` bytes each, one after another, written as
    /// [`RowKind::Binary`] is.
    FixedBinary { width: u32 },
    /// A struct: its fields, written as a row's columns are (object or list
    /// mode, the same null rules), each from the same row of its own view.
    Struct(Vec<RowColumn>),
    /// A list: `[`, the items `offsets[r]..offsets[r + 1]` of its item's view
    /// (32-bit offsets, or 64-bit when `large`), `,` between them, a null
    /// item as `null`, then `]`.
    List { large: bool, item: Box<RowKind> },
    /// A list view: the items `offsets[r] .. offsets[r] + sizes[r]` of its
    /// item's view (32-bit offsets and sizes, or 64-bit when `large`; the
    /// sizes at the view's `data`), written as [`RowKind::List`] is.
    ListView { large: bool, item: Box<RowKind> },
    /// A list of `size` items each: list `r` is the items `r * size ..
    /// (r + 1) * size` of its item's view, written as [`RowKind::List`] is.
    FixedList { size: u32, item: Box<RowKind> },
    /// A map: `{`, the entries `offsets[r]..offsets[r + 1]` (32-bit
    /// offsets) of its key's view and its value's view (the value's views
    /// follow the key's), each as the key (a text, never null), `:` and the
    /// value (`null` when null: written only when `explicit_nulls`, the
    /// entry left out otherwise), `,` between them, then `}`.
    Map {
        explicit_nulls: bool,
        key: Box<RowKind>,
        value: Box<RowKind>,
    },
    /// Dictionary-encoded values: `key_bytes`-wide (1, 2, 4 or 8)
    /// non-negative keys, each the row of the value to write in the
    /// dictionary's view (of kind `value`). The key's validity is the
    /// value's: a valid key at a null value writes the value's slot, or,
    /// when `empty_at_null`, `""` (arrow-json's temporal encoders).
    Dictionary {
        key_bytes: u8,
        value: Box<RowKind>,
        empty_at_null: bool,
    },
    /// A `bytes`-wide value (1, 2, 4, 8, 16 or 32 bytes) formatted by a pure
    /// function, the address of a [`FormatFn`] (see [`RowKind::formatted`]),
    /// into room for `max_len` bytes reserved by the generated code, with
    /// the column's constant `param`; a value it declines is written by the
    /// view's [`RowCallFn`].
    Formatted {
        bytes: u8,
        max_len: u8,
        format: usize,
        param: u64,
    },
    /// Anything else: the view's [`RowCallFn`] appends the value's text.
    Call,
}

/// How deep structs, lists and dictionaries may nest in a [`RowSpec`]: a
/// row's columns are at depth 0, a struct's fields, a list's item and a
/// dictionary's values one deeper than it. A struct, list or dictionary at
/// this depth or deeper must be given as a
/// [`RowKind::Call`] (its encoder writes it); [`compile_rows`] refuses a spec
/// that nests deeper (the generated code is one function, and each level
/// adds its blocks and variables to it).
pub const ROW_MAX_DEPTH: usize = 32;

/// Formats a fixed-width value, given as its bits zero-extended to 64 (a
/// 16- or 32-byte value: as its address), at `dst`, which has room for the kind's
/// `max_len` bytes; `param` is the
/// column's constant (a zone's offset: [`RowKind::formatted_with`]), 0 when it
/// has none. Returns the bytes written, or 0 to decline the value (nothing
/// written; the view's [`RowCallFn`] then writes it, e.g. a date outside the
/// years the fast path knows). Never unwinds.
pub type FormatFn = unsafe extern "C" fn(value: u64, dst: *mut u8, param: u64) -> usize;

impl RowKind {
    /// A [`RowKind::Formatted`] column of `bytes`-wide values formatted by
    /// `format` in at most `max_len` bytes.
    pub fn formatted(bytes: u8, max_len: u8, format: FormatFn) -> RowKind {
        RowKind::formatted_with(bytes, max_len, format, 0)
    }

    /// [`RowKind::formatted`] with `param` passed to every call of `format`
    /// (a constant of the column, such as the offset of its time zone).
    pub fn formatted_with(bytes: u8, max_len: u8, format: FormatFn, param: u64) -> RowKind {
        RowKind::Formatted {
            bytes,
            max_len,
            format: format as usize,
            param,
        }
    }

    /// How many [`ColumnView`]s a column of this kind takes: its own, then
    /// (in order) those of a struct's fields or of a list's item.
    pub fn views(&self) -> usize {
        match self {
            RowKind::Struct(fields) => 1 + fields.iter().map(|f| f.kind.views()).sum::<usize>(),
            RowKind::List { item, .. }
            | RowKind::ListView { item, .. }
            | RowKind::FixedList { item, .. } => 1 + item.views(),
            RowKind::Map { key, value, .. } => 1 + key.views() + value.views(),
            RowKind::Dictionary { value, .. } => 1 + value.views(),
            _ => 1,
        }
    }
}

/// One column of the rows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RowColumn {
    /// Object mode: the key with its quotes and colon (`"name":`), without
    /// the comma before it; list mode: empty.
    pub key: Vec<u8>,
    pub kind: RowKind,
}

/// What one compiled row writer writes (equal specs compile to the same
/// code: a cache may key on it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RowSpec {
    pub columns: Vec<RowColumn>,
    /// Rows (and their fields) as arrays of values instead of objects.
    pub list_mode: bool,
    /// Object mode: a null field is written `"key":null` instead of being
    /// left out.
    pub explicit_nulls: bool,
    /// Written before every row but the first of the stream.
    pub between: Vec<u8>,
    /// Written after every row.
    pub after_row: Vec<u8>,
}

/// Appends the JSON text of the (non-null) value at `row` to `out`. Returns
/// `false` if it could not (a panic, caught and stashed by the caller's
/// side): the rows written so far are then dropped. Never unwinds.
pub type RowCallFn =
    unsafe extern "C" fn(ctx: *const core::ffi::c_void, row: usize, out: *mut Vec<u8>) -> bool;

/// One column's buffers in one batch, as the generated code reads them.
/// Row `r` of the batch is element `r` of the views (offsets applied by the
/// caller, bit offsets here); a struct's fields share their struct's rows; a
/// list's item view is indexed by the list's offsets.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ColumnView {
    /// `Int` and `Formatted`: the first value; `Bool`: the bit buffer;
    /// `Text` and `List`: the first offset (`len + 1` offsets follow);
    /// `TextView`: the first view; `Dictionary`: the first key; `Struct`:
    /// unused.
    pub values: *const u8,
    /// `Bool`: the bit of row 0 in `values`.
    pub values_bit: usize,
    /// `Text`: the bytes the offsets index; `TextView`: the addresses of
    /// the data buffers the views index (an array of `*const u8`);
    /// `ListView`: the first size.
    pub data: *const u8,
    /// `Text`: how many bytes `data` holds (a short text is read sixteen
    /// bytes at a time when as many are there); `TextView`: how many
    /// buffers.
    pub data_len: usize,
    /// The validity bitmap when this batch has nulls in the column, or null.
    pub validity: *const u8,
    /// The bit of row 0 in `validity`.
    pub validity_bit: usize,
    /// `Call` (and `Formatted`, for the values its function declines): the
    /// function and its context.
    pub call: Option<RowCallFn>,
    pub ctx: *const core::ffi::c_void,
}

const VIEW_SIZE: i64 = size_of::<ColumnView>() as i64;
const VIEW_VALUES: i32 = std::mem::offset_of!(ColumnView, values) as i32;
const VIEW_VALUES_BIT: i32 = std::mem::offset_of!(ColumnView, values_bit) as i32;
const VIEW_DATA: i32 = std::mem::offset_of!(ColumnView, data) as i32;
const VIEW_DATA_LEN: i32 = std::mem::offset_of!(ColumnView, data_len) as i32;
const VIEW_VALIDITY: i32 = std::mem::offset_of!(ColumnView, validity) as i32;
const VIEW_VALIDITY_BIT: i32 = std::mem::offset_of!(ColumnView, validity_bit) as i32;
const VIEW_CALL: i32 = std::mem::offset_of!(ColumnView, call) as i32;
const VIEW_CTX: i32 = std::mem::offset_of!(ColumnView, ctx) as i32;

/// The generated function: rows `start..end` of `views`; the separator goes
/// before the first of them too when `separate_first` is not 0.
type RowsFn = unsafe extern "C" fn(
    state: *mut EncodeState,
    views: *const ColumnView,
    start: usize,
    end: usize,
    separate_first: u8,
) -> i8;

/// A compiled row writer. Owns its machine code: dropping it frees the code.
pub struct CompiledRows {
    module: Option<OwnedModule>,
    entry: RowsFn,
    /// How many views a call takes.
    views: usize,
    /// Machine code bytes.
    pub code_bytes: usize,
    /// Wall-clock time from IR building to finalized code.
    pub compile_time: Duration,
}

// SAFETY: the code and its module are immutable once finalized; the function
// keeps no state between calls (everything is in its arguments).
unsafe impl Send for CompiledRows {}
// SAFETY: as above.
unsafe impl Sync for CompiledRows {}

impl Drop for CompiledRows {
    fn drop(&mut self) {
        if let Some(OwnedModule(module)) = self.module.take() {
            // SAFETY: `write` borrows `self`, so no call runs while it drops.
            unsafe { module.free_memory() };
        }
    }
}

impl CompiledRows {
    /// Appends rows `rows` to `out`, the separator before the first of them
    /// too when `separate_first`. Returns `false`, with `out` as it was, when
    /// a [`RowCallFn`] or growing `out` failed (a panic, stashed in
    /// [`jitson_core::panic`] for the caller to resume).
    ///
    /// # Safety
    /// `views` holds, in order, the views of each column of the spec this was
    /// compiled for ([`RowKind::views`] each), each describing live buffers
    /// of its kind that cover the rows it is read at (`rows` for a column).
    pub unsafe fn write(
        &self,
        views: &[ColumnView],
        rows: std::ops::Range<usize>,
        separate_first: bool,
        out: &mut Vec<u8>,
    ) -> bool {
        assert_eq!(views.len(), self.views, "the views of every column");
        let start = out.len();
        let mut state = EncodeState::for_vec(out);
        // SAFETY: the function was compiled for this spec; the caller
        // guarantees the views; `state` describes `out`, unused until the call
        // returns.
        let ok = unsafe {
            (self.entry)(
                &raw mut state,
                views.as_ptr(),
                rows.start,
                rows.end,
                u8::from(separate_first),
            )
        } != 0;
        // SAFETY: generated code and helpers initialised `buf[..len]` of the
        // vector's current buffer; on failure the first `start` bytes are
        // untouched.
        unsafe { out.set_len(if ok { state.written() } else { start }) };
        ok
    }
}

/// Compiles the row writer of `spec`.
///
/// # Errors
/// [`CompileError::Unsupported`] for structs or lists nested more than
/// [`ROW_MAX_DEPTH`] deep; what Cranelift or the OS refuse.
pub fn compile_rows(spec: &RowSpec) -> Result<CompiledRows, CompileError> {
    fn nesting(kind: &RowKind) -> usize {
        match kind {
            RowKind::Struct(fields) => {
                1 + fields.iter().map(|f| nesting(&f.kind)).max().unwrap_or(0)
            }
            RowKind::List { item, .. }
            | RowKind::ListView { item, .. }
            | RowKind::FixedList { item, .. } => 1 + nesting(item),
            RowKind::Map { key, value, .. } => 1 + nesting(key).max(nesting(value)),
            RowKind::Dictionary { value, .. } => 1 + nesting(value),
            _ => 0,
        }
    }
    if spec
        .columns
        .iter()
        .any(|c| nesting(&c.kind) > ROW_MAX_DEPTH)
    {
        return Err(CompileError::Unsupported(format!(
            "structs and lists nested more than {ROW_MAX_DEPTH} deep (give the deeper ones as calls)"
        )));
    }
    crate::guarded_compile(|| compile_inner(spec))
}

fn compile_inner(spec: &RowSpec) -> Result<CompiledRows, CompileError> {
    let started = Instant::now();
    let (isa, mut module) = crate::encode::output_module()?;
    let call_conv = isa.default_call_conv();
    let mut signature = Signature::new(call_conv);
    for ty in [PTR, PTR, PTR, PTR, types::I8] {
        signature.params.push(AbiParam::new(ty));
    }
    signature.returns.push(AbiParam::new(types::I8));
    let id = module
        .declare_function("write_rows", Linkage::Local, &signature)
        .map_err(|e| CompileError::Codegen(e.to_string()))?;
    let mut ctx = module.make_context();
    ctx.func.signature = signature;
    let mut fb_ctx = FunctionBuilderContext::new();
    // The typed encoder's translator needs a function table; nothing here
    // declares a function of a layout.
    let mut functions = Functions::new(call_conv);
    translate(&mut module, &mut ctx, &mut fb_ctx, &mut functions, spec);
    // `JITSON_DUMP_IR=<dir>`, as for decoders: the IR, the disassembly and
    // the machine code of each row loop, in `<dir>/rows-<n>/`.
    let dump_dir = std::env::var_os("JITSON_DUMP_IR").map(|root| {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        std::path::PathBuf::from(root).join(format!("rows-{n}"))
    });
    if let Some(dir) = &dump_dir {
        ctx.set_disasm(true);
        crate::dump(dir, "write_rows", &ctx, None);
    }
    module
        .define_function(id, &mut ctx)
        .map_err(|e| CompileError::Codegen(e.to_string()))?;
    if let (Some(dir), Some(code)) = (&dump_dir, ctx.compiled_code()) {
        crate::dump(dir, "write_rows", &ctx, code.vcode.as_deref());
        let _ = std::fs::write(dir.join("write_rows.bin"), code.code_buffer());
    }
    let code_bytes = ctx
        .compiled_code()
        .map_or(0, |code| code.code_info().total_size as usize);
    module
        .finalize_definitions()
        .map_err(|e| CompileError::ExecutableMemory(e.to_string()))?;
    let entry_ptr = module.get_finalized_function(id);
    // SAFETY: the function was defined with the `RowsFn` signature (four
    // pointer-sized integers and a byte in, a byte out, the host's C calling
    // convention).
    let entry = unsafe { std::mem::transmute::<*const u8, RowsFn>(entry_ptr) };
    Ok(CompiledRows {
        module: Some(OwnedModule(module)),
        entry,
        views: spec.columns.iter().map(|c| c.kind.views()).sum(),
        code_bytes,
        compile_time: started.elapsed(),
    })
}

fn translate(
    module: &mut JITModule,
    ctx: &mut cranelift_codegen::Context,
    fb_ctx: &mut FunctionBuilderContext,
    functions: &mut Functions,
    spec: &RowSpec,
) {
    let frontend_config = module.isa().frontend_config();
    let call_conv = module.isa().default_call_conv();
    let mut b = FunctionBuilder::new(&mut ctx.func, fb_ctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let params = b.block_params(entry).to_vec();
    let (state, views, start, end, separate_first) =
        (params[0], params[1], params[2], params[3], params[4]);
    let mut t = EncodeTranslator::for_function(b, module, functions, call_conv, state);
    let fail = t.b.create_block();
    t.reload();
    let row = t.b.declare_var(PTR);
    t.b.def_var(row, start);
    let (head, body, done) = (t.b.create_block(), t.b.create_block(), t.b.create_block());
    t.b.ins().jump(head, &[]);

    t.b.switch_to_block(head);
    let r = t.b.use_var(row);
    let more = t.b.ins().icmp(IntCC::UnsignedLessThan, r, end);
    t.b.ins().brif(more, body, &[], done, &[]);

    t.b.switch_to_block(body);
    // The separator: before every row but the stream's first.
    if !spec.between.is_empty() {
        let (separate, open) = (t.b.create_block(), t.b.create_block());
        let later = t.b.ins().icmp(IntCC::UnsignedGreaterThan, r, start);
        let asked = t.b.ins().icmp_imm_s(IntCC::NotEqual, separate_first, 0);
        let yes = t.b.ins().bor(later, asked);
        t.b.ins().brif(yes, separate, &[], open, &[]);
        t.b.switch_to_block(separate);
        t.ensure_const(spec.between.len(), fail);
        t.write_const(&spec.between);
        t.b.ins().jump(open, &[]);
        t.b.switch_to_block(open);
    }
    let rows = Rows { spec, views, fail };
    rows.emit_record(&mut t, &spec.columns, 0, r, &spec.after_row);
    let r = t.b.use_var(row);
    let next = t.b.ins().iadd_imm_s(r, 1);
    t.b.def_var(row, next);
    t.b.ins().jump(head, &[]);

    t.b.switch_to_block(done);
    t.spill();
    let ok = t.b.ins().iconst(types::I8, 1);
    t.b.ins().return_(&[ok]);
    t.b.switch_to_block(fail);
    t.b.set_cold_block(fail);
    let zero = t.b.ins().iconst(types::I8, 0);
    t.b.ins().return_(&[zero]);
    t.b.seal_all_blocks();
    t.b.finalize(frontend_config);
}

/// Whether bit `index` of the bitmap at `bits` is set (an i8, 0 or 1).
fn emit_bit(t: &mut EncodeTranslator<'_, '_>, bits: Value, index: Value) -> Value {
    let byte_index = t.b.ins().ushr_imm_u(index, 3);
    let at = t.b.ins().iadd(bits, byte_index);
    let byte = t.b.ins().load(types::I8, value_flags(), at, 0);
    let shift = t.b.ins().band_imm_u(index, 7);
    let shift = t.b.ins().ireduce(types::I8, shift);
    let bit = t.b.ins().ushr(byte, shift);
    t.b.ins().band_imm_u(bit, 1)
}

/// The address of element `row` of the `bytes`-wide values of the view at
/// `view`.
fn emit_element(t: &mut EncodeTranslator<'_, '_>, view: Value, row: Value, bytes: u8) -> Value {
    let values = t.b.ins().load(PTR, state_flags(), view, VIEW_VALUES);
    let offset = t.b.ins().imul_imm_s(row, i64::from(bytes));
    t.b.ins().iadd(values, offset)
}

/// The bytes of a text of `len` bytes (an i64) at byte `first` of the
/// 16-byte vector `v` that a JSON string cannot hold as they are: an i32,
/// bit `first + i` for the text's byte `i`; 0 when there are none.
/// `first + len` is at most 16.
fn emit_text_specials(t: &mut EncodeTranslator<'_, '_>, v: Value, first: i64, len: Value) -> Value {
    let flags = crate::kind::vector_specials(&mut t.b, v);
    // ((1 << len) - 1) << first.
    let one = t.b.ins().iconst(types::I32, 1);
    let len32 = t.b.ins().ireduce(types::I32, len);
    let mask = t.b.ins().ishl(one, len32);
    let mask = t.b.ins().iadd_imm_s(mask, -1);
    let mask = if first == 0 {
        mask
    } else {
        t.b.ins().ishl_imm_u(mask, first)
    };
    t.b.ins().band(flags, mask)
}

/// The address of the bytes that the view at `element` (of a view column
/// at `view`, [`RowKind::TextView`]'s layout) holds out of line: its
/// offset (bytes 12..16) into the data buffer its index (bytes 8..12)
/// names. Only for a view of more than 12 bytes: a shorter one holds its
/// bytes in place of the index and offset.
fn emit_view_buffer_address(
    t: &mut EncodeTranslator<'_, '_>,
    view: Value,
    element: Value,
) -> Value {
    let index = t.b.ins().load(types::I32, value_flags(), element, 8);
    let index = t.b.ins().uextend(types::I64, index);
    let offset = t.b.ins().load(types::I32, value_flags(), element, 12);
    let offset = t.b.ins().uextend(types::I64, offset);
    let buffers = t.b.ins().load(PTR, state_flags(), view, VIEW_DATA);
    let slot = t.b.ins().imul_imm_s(index, i64::from(PTR.bytes()));
    let slot = t.b.ins().iadd(buffers, slot);
    let base = t.b.ins().load(PTR, value_flags(), slot, 0);
    t.b.ins().iadd(base, offset)
}

/// The integer type `bytes` (1, 2, 4 or 8) wide.
fn int_type(bytes: u8) -> cranelift_codegen::ir::Type {
    match bytes {
        1 => types::I8,
        2 => types::I16,
        4 => types::I32,
        _ => types::I64,
    }
}

/// Where a field is written: its index in its record, its view, the row,
/// the record's first-field flag, and whether the room for its [`bound`] is
/// reserved already (it is in a run of bounded fields).
#[derive(Clone, Copy)]
struct Place {
    index: usize,
    view: usize,
    row: Value,
    first: cranelift_frontend::Variable,
    reserved: bool,
}

/// The most bytes a field of a bounded kind (an integer, a boolean) writes
/// in any branch: its comma, its key and its value or `null`. `None` for the
/// kinds that check their own room (texts, structs, lists, calls, and
/// formatted values, whose declined values are written by a call).
fn bound(field: &RowColumn) -> Option<usize> {
    let value = match field.kind {
        RowKind::Int { .. } => crate::encode::INT_MAX_LEN,
        RowKind::Bool => 5,
        _ => return None,
    };
    Some(1 + field.key.len() + value)
}

/// What every part of the row loop shares: the spec's options, the views
/// argument and the failure exit.
struct Rows<'s> {
    spec: &'s RowSpec,
    views: Value,
    fail: Block,
}

impl Rows<'_> {
    /// The address of view `index`.
    fn view(&self, t: &mut EncodeTranslator<'_, '_>, index: usize) -> Value {
        t.b.ins().iadd_imm_s(self.views, index as i64 * VIEW_SIZE)
    }

    /// A record (the row itself, or a struct value) at `row`: `{` or `[`, its
    /// fields, whose views start at `first_view`, then `}` or `]` and
    /// `after`.
    fn emit_record(
        &self,
        t: &mut EncodeTranslator<'_, '_>,
        fields: &[RowColumn],
        first_view: usize,
        row: Value,
        after: &[u8],
    ) {
        let (open, close) = if self.spec.list_mode {
            (b"[", b"]")
        } else {
            (b"{", b"}")
        };
        // One capacity check per run of bounded fields (integers, booleans),
        // the open bracket with the first: each writes at most its bound in
        // any branch (its key, comma and value, or `null`), so the room
        // reserved at the run's start lasts to its end.
        let run = |from: usize| -> usize { fields[from..].iter().map_while(bound).sum() };
        t.ensure_const(1 + run(0), self.fail);
        t.write_const(open);
        let mut reserved = run(0);
        // Object mode: whether a field was written yet (its comma).
        let first = t.b.declare_var(types::I8);
        let one = t.b.ins().iconst(types::I8, 1);
        t.b.def_var(first, one);
        let mut view = first_view;
        for (index, field) in fields.iter().enumerate() {
            let in_run = match bound(field) {
                Some(n) => {
                    if reserved < n {
                        reserved = run(index);
                        t.ensure_const(reserved, self.fail);
                    }
                    reserved -= n;
                    true
                }
                None => {
                    reserved = 0;
                    false
                }
            };
            let at = Place {
                index,
                view,
                row,
                first,
                reserved: in_run,
            };
            self.emit_field(t, field, at);
            view += field.kind.views();
        }
        let mut tail = close.to_vec();
        tail.extend_from_slice(after);
        t.ensure_const(tail.len(), self.fail);
        t.write_const(&tail);
    }

    /// One field of a record: its null test, key and value.
    fn emit_field(&self, t: &mut EncodeTranslator<'_, '_>, field: &RowColumn, at: Place) {
        let Place {
            index,
            view,
            row,
            first,
            reserved,
        } = at;
        let (value, null, next) = (t.b.create_block(), t.b.create_block(), t.b.create_block());
        self.emit_null_test(t, view, row, value, null);

        // Room for `n` bytes, unless the run's check reserved it.
        let fail = self.fail;
        let ensure = |t: &mut EncodeTranslator<'_, '_>, n: usize| {
            if !reserved {
                t.ensure_const(n, fail);
            }
        };
        // The key, with its comma unless it is the record's first field.
        let list_mode = self.spec.list_mode;
        let emit_key = |t: &mut EncodeTranslator<'_, '_>| {
            if list_mode {
                if index > 0 {
                    ensure(t, 1);
                    t.write_const(b",");
                }
                return;
            }
            let (bare, comma, keyed) = (t.b.create_block(), t.b.create_block(), t.b.create_block());
            let is_first = t.b.use_var(first);
            t.b.ins().brif(is_first, bare, &[], comma, &[]);
            t.b.switch_to_block(bare);
            ensure(t, field.key.len());
            t.write_const(&field.key);
            t.b.ins().jump(keyed, &[]);
            t.b.switch_to_block(comma);
            ensure(t, field.key.len() + 1);
            t.write_const(b",");
            t.write_const(&field.key);
            t.b.ins().jump(keyed, &[]);
            t.b.switch_to_block(keyed);
            let zero = t.b.ins().iconst(types::I8, 0);
            t.b.def_var(first, zero);
        };

        t.b.switch_to_block(null);
        if list_mode || self.spec.explicit_nulls {
            emit_key(t);
            ensure(t, 4);
            t.write_const(b"null");
        }
        t.b.ins().jump(next, &[]);

        t.b.switch_to_block(value);
        emit_key(t);
        self.emit_value(t, &field.kind, view, row, reserved);
        t.b.ins().jump(next, &[]);
        t.b.switch_to_block(next);
    }

    /// Jumps to `null` if the value at `row` of view `view` is null (only
    /// tested when the batch has nulls in that column), to `value`
    /// otherwise.
    fn emit_null_test(
        &self,
        t: &mut EncodeTranslator<'_, '_>,
        view: usize,
        row: Value,
        value: Block,
        null: Block,
    ) {
        let at = self.view(t, view);
        let validity = t.b.ins().load(PTR, state_flags(), at, VIEW_VALIDITY);
        let (test, has_nulls) = (
            t.b.create_block(),
            t.b.ins().icmp_imm_s(IntCC::NotEqual, validity, 0),
        );
        t.b.ins().brif(has_nulls, test, &[], value, &[]);
        t.b.switch_to_block(test);
        let base = t.b.ins().load(PTR, state_flags(), at, VIEW_VALIDITY_BIT);
        let index_bit = t.b.ins().iadd(base, row);
        let valid = emit_bit(t, validity, index_bit);
        t.b.ins().brif(valid, value, &[], null, &[]);
    }

    /// The (non-null) value at `row` of view `view`, of kind `kind`, with
    /// room for its [`bound`] already reserved when `reserved`.
    fn emit_value(
        &self,
        t: &mut EncodeTranslator<'_, '_>,
        kind: &RowKind,
        view: usize,
        row: Value,
        reserved: bool,
    ) {
        let fail = self.fail;
        let at = self.view(t, view);
        match kind {
            RowKind::Int { bytes, signed } => {
                let src = emit_element(t, at, row, *bytes);
                t.emit_encode_int(int_type(*bytes), *signed, src, fail, reserved);
            }
            RowKind::Bool => {
                let values = t.b.ins().load(PTR, state_flags(), at, VIEW_VALUES);
                let base = t.b.ins().load(PTR, state_flags(), at, VIEW_VALUES_BIT);
                let index_bit = t.b.ins().iadd(base, row);
                let bit = emit_bit(t, values, index_bit);
                if !reserved {
                    t.ensure_const(5, fail);
                }
                t.emit_encode_bool_value(bit);
            }
            RowKind::Text { large } => {
                let (from, to) = self.emit_offsets(t, at, row, *large);
                let data = t.b.ins().load(PTR, state_flags(), at, VIEW_DATA);
                let text = t.b.ins().iadd(data, from);
                let len = t.b.ins().isub(to, from);
                let (general, done) = (t.b.create_block(), t.b.create_block());
                self.emit_short_text(t, at, from, text, len, general, done);
                t.b.switch_to_block(general);
                t.emit_encode_text(text, len, fail);
                t.b.ins().jump(done, &[]);
                t.b.switch_to_block(done);
            }
            RowKind::TextView => self.emit_text_view(t, at, row),
            RowKind::Binary { large } => {
                let (from, to) = self.emit_offsets(t, at, row, *large);
                let data = t.b.ins().load(PTR, state_flags(), at, VIEW_DATA);
                let bytes = t.b.ins().iadd(data, from);
                let len = t.b.ins().isub(to, from);
                self.emit_hex(t, bytes, len);
            }
            RowKind::BinaryView => {
                let element = emit_element(t, at, row, 16);
                let len = t.b.ins().load(types::I32, value_flags(), element, 0);
                let len = t.b.ins().uextend(types::I64, len);
                let (inline, long, write) =
                    (t.b.create_block(), t.b.create_block(), t.b.create_block());
                let bytes = t.b.append_block_param(write, PTR);
                let short =
                    t.b.ins()
                        .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, len, 12);
                t.b.ins().brif(short, inline, &[], long, &[]);
                t.b.switch_to_block(inline);
                let in_view = t.b.ins().iadd_imm_s(element, 4);
                t.b.ins().jump(write, &[BlockArg::Value(in_view)]);
                t.b.switch_to_block(long);
                let in_buffer = emit_view_buffer_address(t, at, element);
                t.b.ins().jump(write, &[BlockArg::Value(in_buffer)]);
                t.b.switch_to_block(write);
                self.emit_hex(t, bytes, len);
            }
            RowKind::FixedBinary { width } => {
                let values = t.b.ins().load(PTR, state_flags(), at, VIEW_VALUES);
                let offset = t.b.ins().imul_imm_s(row, i64::from(*width));
                let bytes = t.b.ins().iadd(values, offset);
                let len = t.b.ins().iconst(PTR, i64::from(*width));
                self.emit_hex(t, bytes, len);
            }
            RowKind::Struct(fields) => {
                self.emit_record(t, fields, view + 1, row, b"");
            }
            RowKind::List { large, item } => {
                let (from, to) = self.emit_offsets(t, at, row, *large);
                self.emit_items(t, item, view + 1, from, to);
            }
            RowKind::ListView { large, item } => {
                let (ty, bytes) = if *large {
                    (types::I64, 8)
                } else {
                    (types::I32, 4)
                };
                let offset_at = emit_element(t, at, row, bytes);
                let sizes = t.b.ins().load(PTR, state_flags(), at, VIEW_DATA);
                let scaled = t.b.ins().imul_imm_s(row, i64::from(bytes));
                let size_at = t.b.ins().iadd(sizes, scaled);
                let mut load = |address: Value| {
                    let value = t.b.ins().load(ty, value_flags(), address, 0);
                    if *large {
                        value
                    } else {
                        t.b.ins().sextend(types::I64, value)
                    }
                };
                let from = load(offset_at);
                let size = load(size_at);
                let to = t.b.ins().iadd(from, size);
                self.emit_items(t, item, view + 1, from, to);
            }
            RowKind::FixedList { size, item } => {
                let from = t.b.ins().imul_imm_s(row, i64::from(*size));
                let to = t.b.ins().iadd_imm_s(from, i64::from(*size));
                self.emit_items(t, item, view + 1, from, to);
            }
            RowKind::Map {
                explicit_nulls,
                key,
                value,
            } => {
                let (from, to) = self.emit_offsets(t, at, row, false);
                let views = (view + 1, view + 1 + key.views());
                self.emit_entries(t, (key, value), views, from, to, *explicit_nulls);
            }
            RowKind::Dictionary {
                key_bytes,
                value,
                empty_at_null,
            } => {
                let src = emit_element(t, at, row, *key_bytes);
                let key = t.b.ins().load(int_type(*key_bytes), value_flags(), src, 0);
                let key = if *key_bytes == 8 {
                    key
                } else {
                    t.b.ins().uextend(types::I64, key)
                };
                if *empty_at_null {
                    let (present, null, done) =
                        (t.b.create_block(), t.b.create_block(), t.b.create_block());
                    self.emit_null_test(t, view + 1, key, present, null);
                    t.b.switch_to_block(null);
                    t.ensure_const(2, fail);
                    t.write_const(b"\"\"");
                    t.b.ins().jump(done, &[]);
                    t.b.switch_to_block(present);
                    self.emit_value(t, value, view + 1, key, false);
                    t.b.ins().jump(done, &[]);
                    t.b.switch_to_block(done);
                } else {
                    self.emit_value(t, value, view + 1, key, false);
                }
            }
            RowKind::Formatted {
                bytes,
                max_len,
                format,
                param,
            } => {
                let src = emit_element(t, at, row, *bytes);
                let v = match *bytes {
                    16 | 32 => src,
                    8 => t.b.ins().load(types::I64, value_flags(), src, 0),
                    _ => {
                        let v = t.b.ins().load(int_type(*bytes), value_flags(), src, 0);
                        t.b.ins().uextend(types::I64, v)
                    }
                };
                t.ensure_const(usize::from(*max_len), fail);
                let dst = t.cursor();
                let param = t.b.ins().iconst(types::I64, *param as i64);
                let n = t
                    .call_addr(
                        *format,
                        &[types::I64, PTR, types::I64],
                        Some(PTR),
                        &[v, dst, param],
                    )
                    .expect("returns a length");
                let (written, declined, done) =
                    (t.b.create_block(), t.b.create_block(), t.b.create_block());
                t.b.ins().brif(n, written, &[], declined, &[]);
                t.b.switch_to_block(written);
                t.advance(n);
                t.b.ins().jump(done, &[]);
                t.b.switch_to_block(declined);
                t.b.set_cold_block(declined);
                self.emit_call(t, at, row);
                t.b.ins().jump(done, &[]);
                t.b.switch_to_block(done);
            }
            RowKind::Call => self.emit_call(t, at, row),
        }
    }

    /// The value at `row` of the view at `at`, written by its [`RowCallFn`].
    fn emit_call(&self, t: &mut EncodeTranslator<'_, '_>, at: Value, row: Value) {
        let call = t.b.ins().load(PTR, state_flags(), at, VIEW_CALL);
        let ctx = t.b.ins().load(PTR, state_flags(), at, VIEW_CTX);
        t.spill();
        let ok = t
            .call_addr(
                crate::encode::helper_row_call(),
                &[PTR, PTR, PTR, PTR],
                Some(types::I8),
                &[t.state, call, ctx, row],
            )
            .expect("returns a status");
        t.reload();
        let written = t.b.create_block();
        t.b.ins().brif(ok, written, &[], self.fail, &[]);
        t.b.switch_to_block(written);
    }

    /// A text of at most 16 bytes with nothing to escape, written without a
    /// call: its 16 bytes (read from the column's data, which holds at least
    /// 16 from the text's start) compared with `"`, `\\` and below 0x20 as
    /// one vector, the flags past the text masked off; if none is left, the
    /// vector is stored after the opening quote and the closing quote after
    /// the text. Jumps to `done` when written, to `general` otherwise
    /// (longer texts, texts at the data's end, texts to escape).
    #[allow(clippy::too_many_arguments)]
    fn emit_short_text(
        &self,
        t: &mut EncodeTranslator<'_, '_>,
        view: Value,
        from: Value,
        text: Value,
        len: Value,
        general: Block,
        done: Block,
    ) {
        let (in_data, vector, plain) = (t.b.create_block(), t.b.create_block(), t.b.create_block());
        let short =
            t.b.ins()
                .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, len, 16);
        t.b.ins().brif(short, in_data, &[], general, &[]);

        t.b.switch_to_block(in_data);
        let data_len = t.b.ins().load(PTR, state_flags(), view, VIEW_DATA_LEN);
        let end = t.b.ins().iadd_imm_s(from, 16);
        let readable =
            t.b.ins()
                .icmp(IntCC::UnsignedLessThanOrEqual, end, data_len);
        t.b.ins().brif(readable, vector, &[], general, &[]);

        t.b.switch_to_block(vector);
        let v = t.b.ins().load(types::I8X16, value_flags(), text, 0);
        let hits = emit_text_specials(t, v, 0, len);
        t.b.ins().brif(hits, general, &[], plain, &[]);

        t.b.switch_to_block(plain);
        t.ensure_const(18, self.fail);
        let at = t.cursor();
        let quote = t.b.ins().iconst(types::I8, i64::from(b'"'));
        t.b.ins().store(value_flags(), quote, at, 0);
        t.b.ins().store(value_flags(), v, at, 1);
        let close = t.b.ins().iadd(at, len);
        t.b.ins().store(value_flags(), quote, close, 1);
        let written = t.b.ins().iadd_imm_s(len, 2);
        t.advance(written);
        t.b.ins().jump(done, &[]);
    }

    /// The text of view `row` of the [`RowKind::TextView`] column at
    /// `view`. A text of at most 12 bytes lies in the view itself: the
    /// view's 16 bytes are checked for escapes as one vector (the flags of
    /// the text's bytes, 4 to 4 + len, kept), and when there are none its
    /// 12 bytes are stored after the opening quote as two words and the
    /// closing quote after the text. Longer texts, and those to escape, go
    /// to the typed encoder's string emitter.
    fn emit_text_view(&self, t: &mut EncodeTranslator<'_, '_>, view: Value, row: Value) {
        let fail = self.fail;
        let at = emit_element(t, view, row, 16);
        let len = t.b.ins().load(types::I32, value_flags(), at, 0);
        let len = t.b.ins().uextend(types::I64, len);
        let (inline, plain, long, general, done) = (
            t.b.create_block(),
            t.b.create_block(),
            t.b.create_block(),
            t.b.create_block(),
            t.b.create_block(),
        );
        let text = t.b.append_block_param(general, PTR);
        let short =
            t.b.ins()
                .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, len, 12);
        t.b.ins().brif(short, inline, &[], long, &[]);

        t.b.switch_to_block(inline);
        let v = t.b.ins().load(types::I8X16, value_flags(), at, 0);
        let hits = emit_text_specials(t, v, 4, len);
        let in_view = t.b.ins().iadd_imm_s(at, 4);
        t.b.ins()
            .brif(hits, general, &[BlockArg::Value(in_view)], plain, &[]);

        t.b.switch_to_block(plain);
        t.ensure_const(14, fail);
        let dst = t.cursor();
        let quote = t.b.ins().iconst(types::I8, i64::from(b'"'));
        t.b.ins().store(value_flags(), quote, dst, 0);
        let low = t.b.ins().load(types::I64, value_flags(), at, 4);
        t.b.ins().store(value_flags(), low, dst, 1);
        let high = t.b.ins().load(types::I32, value_flags(), at, 12);
        t.b.ins().store(value_flags(), high, dst, 9);
        let close = t.b.ins().iadd(dst, len);
        t.b.ins().store(value_flags(), quote, close, 1);
        let written = t.b.ins().iadd_imm_s(len, 2);
        t.advance(written);
        t.b.ins().jump(done, &[]);

        t.b.switch_to_block(long);
        let in_buffer = emit_view_buffer_address(t, view, at);
        t.b.ins().jump(general, &[BlockArg::Value(in_buffer)]);

        t.b.switch_to_block(general);
        t.emit_encode_text(text, len, fail);
        t.b.ins().jump(done, &[]);
        t.b.switch_to_block(done);
    }

    /// The `len` bytes at `bytes` as a quoted string of lower-case hex
    /// digits: room for `2 * len + 2` bytes made in IR, the digits stored by
    /// `core::write`'s function, which the interpreter's encoders call too.
    fn emit_hex(&self, t: &mut EncodeTranslator<'_, '_>, bytes: Value, len: Value) {
        let needed = t.b.ins().imul_imm_u(len, 2);
        let needed = t.b.ins().iadd_imm_u(needed, 2);
        t.ensure(needed, self.fail);
        let at = t.cursor();
        t.call_addr(
            crate::encode::helper_write_hex(),
            &[PTR, PTR, PTR],
            None,
            &[at, bytes, len],
        );
        t.advance(needed);
    }

    /// Offsets `row` and `row + 1` of the offsets at `view`'s values, as
    /// 64-bit integers.
    fn emit_offsets(
        &self,
        t: &mut EncodeTranslator<'_, '_>,
        view: Value,
        row: Value,
        large: bool,
    ) -> (Value, Value) {
        let at = emit_element(t, view, row, if large { 8 } else { 4 });
        if large {
            (
                t.b.ins().load(types::I64, value_flags(), at, 0),
                t.b.ins().load(types::I64, value_flags(), at, 8),
            )
        } else {
            let from = t.b.ins().load(types::I32, value_flags(), at, 0);
            let to = t.b.ins().load(types::I32, value_flags(), at, 4);
            (
                t.b.ins().sextend(types::I64, from),
                t.b.ins().sextend(types::I64, to),
            )
        }
    }

    /// A list's items `from..to` of view `view`: `[`, the items separated by
    /// `,` (a null one as `null`), `]`.
    fn emit_items(
        &self,
        t: &mut EncodeTranslator<'_, '_>,
        item: &RowKind,
        view: usize,
        from: Value,
        to: Value,
    ) {
        let fail = self.fail;
        t.ensure_const(1, fail);
        t.write_const(b"[");
        emit_range(t, from, to, |t, i, next| {
            let (comma, test, value, null) = (
                t.b.create_block(),
                t.b.create_block(),
                t.b.create_block(),
                t.b.create_block(),
            );
            let later = t.b.ins().icmp(IntCC::SignedGreaterThan, i, from);
            t.b.ins().brif(later, comma, &[], test, &[]);
            t.b.switch_to_block(comma);
            t.ensure_const(1, fail);
            t.write_const(b",");
            t.b.ins().jump(test, &[]);
            t.b.switch_to_block(test);
            self.emit_null_test(t, view, i, value, null);

            t.b.switch_to_block(null);
            t.ensure_const(4, fail);
            t.write_const(b"null");
            t.b.ins().jump(next, &[]);

            t.b.switch_to_block(value);
            self.emit_value(t, item, view, i, false);
            t.b.ins().jump(next, &[]);
        });
        t.ensure_const(1, fail);
        t.write_const(b"]");
    }

    /// A map's entries `from..to` of the key and value views `views`:
    /// `{`, each entry as `key:value` separated by `,` (a null value as
    /// `null` when `explicit_nulls`, its entry left out otherwise), `}`.
    fn emit_entries(
        &self,
        t: &mut EncodeTranslator<'_, '_>,
        (key, value): (&RowKind, &RowKind),
        (key_view, value_view): (usize, usize),
        from: Value,
        to: Value,
        explicit_nulls: bool,
    ) {
        let fail = self.fail;
        t.ensure_const(1, fail);
        t.write_const(b"{");
        let first = t.b.declare_var(types::I8);
        let one = t.b.ins().iconst(types::I8, 1);
        t.b.def_var(first, one);
        emit_range(t, from, to, |t, i, next| {
            let (present, null) = (t.b.create_block(), t.b.create_block());
            self.emit_null_test(t, value_view, i, present, null);

            // The comma unless this is the first entry written, then the
            // key and its colon.
            let emit_key = |t: &mut EncodeTranslator<'_, '_>| {
                let (comma, bare) = (t.b.create_block(), t.b.create_block());
                let is_first = t.b.use_var(first);
                t.b.ins().brif(is_first, bare, &[], comma, &[]);
                t.b.switch_to_block(comma);
                t.ensure_const(1, fail);
                t.write_const(b",");
                t.b.ins().jump(bare, &[]);
                t.b.switch_to_block(bare);
                let zero = t.b.ins().iconst(types::I8, 0);
                t.b.def_var(first, zero);
                self.emit_value(t, key, key_view, i, false);
                t.ensure_const(1, fail);
                t.write_const(b":");
            };

            t.b.switch_to_block(null);
            if explicit_nulls {
                emit_key(t);
                t.ensure_const(4, fail);
                t.write_const(b"null");
            }
            t.b.ins().jump(next, &[]);

            t.b.switch_to_block(present);
            emit_key(t);
            self.emit_value(t, value, value_view, i, false);
            t.b.ins().jump(next, &[]);
        });
        t.ensure_const(1, fail);
        t.write_const(b"}");
    }
}

/// A loop over the indices `from..to` (signed): `body` emits the code of
/// index `i` in the current block and ends each of its paths with a jump
/// to `next`, which goes on to the following index.
fn emit_range(
    t: &mut EncodeTranslator<'_, '_>,
    from: Value,
    to: Value,
    mut body: impl FnMut(&mut EncodeTranslator<'_, '_>, Value, Block),
) {
    let index = t.b.declare_var(PTR);
    t.b.def_var(index, from);
    let (head, start, next, done) = (
        t.b.create_block(),
        t.b.create_block(),
        t.b.create_block(),
        t.b.create_block(),
    );
    t.b.ins().jump(head, &[]);

    t.b.switch_to_block(head);
    let i = t.b.use_var(index);
    let more = t.b.ins().icmp(IntCC::SignedLessThan, i, to);
    t.b.ins().brif(more, start, &[], done, &[]);

    t.b.switch_to_block(start);
    body(t, i, next);

    t.b.switch_to_block(next);
    let following = t.b.ins().iadd_imm_s(i, 1);
    t.b.def_var(index, following);
    t.b.ins().jump(head, &[]);

    t.b.switch_to_block(done);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list `levels` deep around an integer.
    fn nested(levels: usize) -> RowKind {
        (0..levels).fold(
            RowKind::Int {
                bytes: 4,
                signed: true,
            },
            |item, _| RowKind::List {
                large: false,
                item: Box::new(item),
            },
        )
    }

    fn spec(kind: RowKind) -> RowSpec {
        RowSpec {
            columns: vec![RowColumn {
                key: b"\"x\":".to_vec(),
                kind,
            }],
            list_mode: false,
            explicit_nulls: false,
            between: Vec::new(),
            after_row: b"\n".to_vec(),
        }
    }

    #[test]
    fn specs_nested_past_the_limit_are_refused() {
        if crate::probe(None).is_err() {
            return; // no JIT on this host
        }
        assert!(compile_rows(&spec(nested(ROW_MAX_DEPTH))).is_ok());
        let refused = compile_rows(&spec(nested(ROW_MAX_DEPTH + 1)));
        assert!(
            matches!(refused, Err(CompileError::Unsupported(_))),
            "{:?}",
            refused.err()
        );
    }
}
