//! The type layout descriptor.
//!
//! One [`TypeLayout`] per Rust type. It is a `'static` value built at compile time
//! (an associated const of [`Decode`](crate::Decode)), so backends may keep
//! `&'static TypeLayout` pointers and compare them freely. Edges between layouts are
//! [`LayoutRef`]s, resolved lazily, which is what lets a type refer to itself
//! (`struct Node { children: Vec<Node> }`).
//!
//! # Memory contract
//!
//! Every function pointer in this module works on raw, suitably aligned memory of the
//! described type. The rules, which both backends keep:
//!
//! - A destination pointer `dst` points to `size` writable bytes aligned to `align`,
//!   holding no live value. A function that returns `true` (or nothing) has
//!   initialised it; one that returns `false` has left it uninitialised.
//! - A value pointer (`vec`, `map`) points to an initialised value of the type.
//! - Functions that run user code (defaults, `Drop`) catch panics, stash the payload
//!   with [`crate::panic::stash`], and report failure; they never unwind.
//! - Offsets of struct fields come from `core::mem::offset_of!`; sizes and
//!   alignments from `size_of`/`align_of`. Nothing else about a type's memory is
//!   assumed: [`Kind::Array`] relies only on the guaranteed layout of `[T; N]`.

use core::any::TypeId;
use core::ffi::c_void;

use crate::elements::{Elements, Mark};

/// A layout edge: the layout of a field, an element, a payload.
#[derive(Clone, Copy)]
pub enum LayoutRef {
    /// Resolved by calling the function when the edge is followed (derived types:
    /// `layout_of::<T>`), which is what lets a type refer to itself (a `const` may
    /// not refer to itself).
    Lazy(fn() -> &'static TypeLayout),
    /// A layout built at run time ([`crate::column`]), owned by whoever built it.
    Node(&'static TypeLayout),
}

impl LayoutRef {
    /// The layout at the end of the edge.
    #[inline]
    pub fn get(self) -> &'static TypeLayout {
        match self {
            LayoutRef::Lazy(f) => f(),
            LayoutRef::Node(layout) => layout,
        }
    }
}

impl core::fmt::Debug for LayoutRef {
    // Not the layout itself: edges of recursive types form cycles.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.get().expecting)
    }
}

/// Initialises `dst` with a value computed by user code (`Default::default`, a
/// `default = "path"` function). Returns `false`, leaving `dst` uninitialised, if that
/// code panicked; the payload is stashed (see [`crate::panic`]).
pub type InitFn = unsafe extern "C" fn(dst: *mut u8) -> bool;

/// Drops the value at `ptr` in place. Returns `false` if a `Drop` impl panicked (the
/// payload is stashed; the value counts as dropped either way).
pub type DropFn = unsafe extern "C" fn(ptr: *mut u8) -> bool;

/// A backend's callback that decodes one value into `slot` (uninitialised memory of
/// the element type). Returns `true` when `slot` was initialised; `false` when it was
/// not, in which case the backend has recorded why in `ctx`.
pub type SlotFn = unsafe extern "C" fn(ctx: *mut c_void, slot: *mut u8) -> bool;

/// Runs a [`SlotFn`] on a temporary of the element type and moves the result into
/// place (`Some(value)`, `Box::new(value)`). Returns what the callback returned.
pub type DecodeIntoFn =
    unsafe extern "C" fn(dst: *mut u8, decode: SlotFn, ctx: *mut c_void) -> bool;

/// The descriptor of one type: what the JIT lowers and the interpreter walks.
#[derive(Debug)]
pub struct TypeLayout {
    /// What a JSON value must look like, for error messages ("i64", "a string",
    /// "struct User").
    pub expecting: &'static str,
    /// `size_of::<T>()`, in bytes.
    pub size: usize,
    /// `align_of::<T>()`, in bytes.
    pub align: usize,
    /// The type's identity. Layouts are compared by this (a `const` may be
    /// duplicated in memory, so addresses are not identities).
    pub type_id: fn() -> TypeId,
    /// `core::any::type_name::<T>`, for reports (`stats().interpreted_layouts`).
    pub type_name: fn() -> &'static str,
    /// `drop_in_place::<T>`, or `None` when `T` needs no drop.
    pub drop: Option<DropFn>,
    /// Which JSON values the type accepts and how it is written.
    pub kind: Kind,
}

impl TypeLayout {
    /// The layout of `T` with the given kind; fills in size, alignment, identity and
    /// drop glue from `T` itself.
    pub const fn of<T: 'static>(expecting: &'static str, kind: Kind) -> TypeLayout {
        TypeLayout {
            expecting,
            size: size_of::<T>(),
            align: align_of::<T>(),
            type_id: TypeId::of::<T>,
            type_name: core::any::type_name::<T>,
            drop: drop_fn::<T>(),
            kind,
        }
    }

    /// The layout of `T`'s memory under the identity of `Id`: a layout that
    /// describes a `T` decoded differently from `T`'s own (a field with a serde
    /// deserializer), so that caches keyed by identity keep the two apart. The
    /// derive uses `(Container, [(); field index])` as `Id`.
    pub const fn with_identity<T, Id: 'static>(expecting: &'static str, kind: Kind) -> TypeLayout {
        TypeLayout {
            expecting,
            size: size_of::<T>(),
            align: align_of::<T>(),
            type_id: TypeId::of::<Id>,
            type_name: core::any::type_name::<T>,
            drop: drop_fn::<T>(),
            kind,
        }
    }

    /// The layout's identity: its type's, or for a layout built at run time (whose
    /// `type_id` is that of [`RunTimeNode`]) its address.
    pub fn id(&self) -> LayoutId {
        let id = (self.type_id)();
        if id == TypeId::of::<RunTimeNode>() {
            LayoutId::Node(core::ptr::from_ref(self).addr())
        } else {
            LayoutId::Type(id)
        }
    }
}

/// Identifies a layout: caches of compiled code and learned key orders are keyed
/// by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LayoutId {
    /// The layout of a Rust type (or of a type decoded a second way, see
    /// [`TypeLayout::with_identity`]).
    Type(TypeId),
    /// A layout built at run time, by its address (stable while its owner lives).
    Node(usize),
}

/// The `type_id` of layouts built at run time: they describe no Rust type, so
/// [`TypeLayout::id`] tells them apart by address.
pub struct RunTimeNode;

/// `Some(drop glue of T)` when `T` needs dropping.
pub const fn drop_fn<T>() -> Option<DropFn> {
    if core::mem::needs_drop::<T>() {
        Some(drop_glue::<T>)
    } else {
        None
    }
}

/// Drops a `T` in place, catching a panic from a `Drop` impl.
///
/// # Safety
/// `ptr` points to an initialised, aligned `T` that is not used again.
unsafe extern "C" fn drop_glue<T>(ptr: *mut u8) -> bool {
    crate::panic::catch(|| {
        // SAFETY: the caller guarantees `ptr` holds a live `T` it gives up.
        unsafe { core::ptr::drop_in_place(ptr.cast::<T>()) }
    })
}

/// The shape of a type, as far as decoding is concerned.
#[derive(Debug)]
pub enum Kind {
    /// `true` / `false`.
    Bool,
    /// JSON integers in range of the target; written as the native integer.
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    /// JSON integers read digit by digit, as serde_json reads 128-bit integers
    /// (a fraction or exponent is left unread; too large is out of range).
    I128,
    U128,
    /// A JSON number, correctly rounded to `f32` directly (no detour through f64).
    F32,
    /// A JSON number, correctly rounded to `f64`.
    F64,
    /// A JSON string holding exactly one Unicode scalar value; written as `char`.
    Char,
    /// A JSON string, unescaped and written through [`StringLayout::write`].
    String(&'static StringLayout),
    /// A JSON string borrowed from the input when it has no escapes (`&'de str`,
    /// `Cow<'de, str>`); with escapes, owned (`Cow`) or an error (`&str`).
    BorrowedStr(&'static BorrowedStrLayout),
    /// Any JSON value, validated and written as its exact text (surrounding
    /// whitespace removed) through [`StringLayout::write`].
    RawValue(&'static StringLayout),
    /// `null` or a value of the inner layout.
    Option(&'static OptionLayout),
    /// A value of the inner layout, on the heap.
    Box(&'static BoxLayout),
    /// A JSON array of any length.
    Vec(&'static VecLayout),
    /// A JSON array of exactly `len` elements, stored contiguously.
    Array(&'static ArrayLayout),
    /// A JSON object with arbitrary keys, into a string-keyed map.
    Map(&'static MapLayout),
    /// A JSON object with known keys.
    Struct(&'static StructLayout),
    /// A JSON array of exactly as many elements as the layout lists, each stored at
    /// its own offset: tuples and tuple structs.
    Tuple(&'static TupleLayout),
    /// One field decoded as if it were the whole type: newtype structs
    /// (`struct UserId(u64)` reads `5`) and `#[serde(transparent)]`.
    Newtype(&'static NewtypeLayout),
    /// `null`, into a zero-sized type: `()` and unit structs. Nothing is written.
    Unit,
    /// An enum, in one of serde's four representations ([`Tagging`]).
    Enum(&'static EnumLayout),
    /// A value of another type, converted (`#[serde(from = "..")]`,
    /// `#[serde(try_from = "..")]`).
    Convert(&'static ConvertLayout),
    /// Any JSON value, validated and handed as text to a serde deserializer (a
    /// field with `with`, `deserialize_with` or `#[jitson(serde)]`).
    Serde(&'static SerdeLayout),
    /// Any JSON value, validated and discarded. The type is a ZST.
    Ignored,
    /// A value appended to a column rather than written in place (run-time
    /// schemas, columnar output; see [`crate::column`]).
    Column(&'static crate::column::ColumnLayout),
    /// A scalar parsed from its text by functions (timestamps, decimals; see
    /// [`crate::column::ParsedLayout`]).
    Parsed(&'static crate::column::ParsedLayout),
}

impl Kind {
    /// Whether a value of this kind itself (not what it reaches) borrows from
    /// the text it is decoded from: borrowed strings, and serde fields that
    /// say so. Backends decode such values only from the input, which the
    /// decoded type's `DecodeBorrowed` bound keeps alive.
    pub fn borrows_input(&self) -> bool {
        match self {
            Kind::BorrowedStr(_) => true,
            Kind::Serde(serde) => serde.borrows,
            _ => false,
        }
    }
}

/// Reads the text of a string value at `src` (encoding): returns a pointer to
/// its UTF-8 bytes and writes their number to `*len`. The bytes stay valid while
/// the value does.
pub type ReadStrFn = unsafe extern "C" fn(src: *const u8, len: *mut usize) -> *const u8;

/// Reads the value behind `src` (encoding): `Option`'s payload (null for
/// `None`), a `Box`'s or a reference's target.
pub type GetFn = unsafe extern "C" fn(src: *const u8) -> *const u8;

/// A backend's callback that encodes the value at `value` (encoding's twin of
/// [`SlotFn`]). Returns `false` when it failed, having recorded why in `ctx`.
pub type EncodeSlotFn = unsafe extern "C" fn(ctx: *mut c_void, value: *const u8) -> bool;

/// A backend's callback for one map entry: the key and the value, each a
/// pointer to a live value of the map's key and value layouts.
pub type EntryFn = unsafe extern "C" fn(ctx: *mut c_void, key: *const u8, value: *const u8) -> bool;

/// Iterates a map for encoding (see [`MapLayout::for_each`]).
pub type ForEachFn = unsafe extern "C" fn(src: *const u8, entry: EntryFn, ctx: *mut c_void) -> bool;

/// Writes owned text built from `ptr[..len]` (valid UTF-8) to `dst` (see
/// [`StringLayout::write`]).
pub type WriteStrFn = unsafe extern "C" fn(dst: *mut u8, ptr: *const u8, len: usize);

/// Creates owned text (`String`, `Box<str>`, `RawValue`) from UTF-8 bytes, and
/// reads it back.
#[derive(Debug)]
pub struct StringLayout {
    /// Writes the text `ptr[..len]` (valid UTF-8) to `dst`.
    pub write: WriteStrFn,
    /// Reads the text (encoding); `None` where the layout cannot be encoded
    /// (run-time column layouts).
    pub read: Option<ReadStrFn>,
}

/// `&'de str` and `Cow<'de, str>`; also `&'de [u8]`, `&'de Path` and a
/// `Cow<'de, [u8]>` under `#[serde(borrow)]`, which serde_json reads from a
/// string's text the same way.
#[derive(Debug)]
pub struct BorrowedStrLayout {
    /// Writes a value borrowing `ptr[..len]`, which lies in the input (valid
    /// UTF-8, alive as long as the input, which the decoded type's
    /// [`DecodeBorrowed`](crate::decode::DecodeBorrowed) lifetime guarantees).
    pub borrow: unsafe extern "C" fn(dst: *mut u8, ptr: *const u8, len: usize),
    /// Writes a value owning a copy of `ptr[..len]` (unescaped text, valid UTF-8),
    /// for strings with escapes; `None` when the type can only borrow (`&str`:
    /// an escaped string is an invalid type, as in serde_json).
    pub own: Option<unsafe extern "C" fn(dst: *mut u8, ptr: *const u8, len: usize)>,
    /// Reads the text (encoding); `None` for the byte types, whose `Encode`
    /// layout is another (a sequence of numbers, as serde writes bytes).
    pub read: Option<ReadStrFn>,
    /// Whether the type holds bytes: serde_json hands an escaped string to it as
    /// a byte array, so where `own` is `None` the refusal reads "invalid type:
    /// byte array" (serde's `Unexpected::Bytes`), not the string's text.
    pub bytes: bool,
}

/// `Option<T>`.
#[derive(Debug)]
pub struct OptionLayout {
    /// The layout of `T`.
    pub some: LayoutRef,
    /// Writes `None` to `dst`.
    pub write_none: unsafe extern "C" fn(dst: *mut u8),
    /// Decodes a `T` through the callback and writes `Some(value)` to `dst`.
    pub decode_some: DecodeIntoFn,
    /// The payload of the option at `src`, null for `None` (encoding).
    pub get: GetFn,
}

/// `Box<T>`.
#[derive(Debug)]
pub struct BoxLayout {
    /// The layout of `T`.
    pub inner: LayoutRef,
    /// Allocates, decodes a `T` into the allocation through the callback, and writes
    /// the box to `dst`; frees the allocation if the callback fails.
    pub decode_new: DecodeIntoFn,
    /// The boxed value of the box at `src` (encoding); also serves references
    /// (`&T`), which encode as their target.
    pub get: GetFn,
}

/// `Vec<T>`: a backend decodes the elements onto its element stack
/// ([`crate::elements`]) and, at `]`, moves them into a vector allocated for
/// exactly their number.
#[derive(Debug)]
pub struct VecLayout {
    /// The layout of `T`.
    pub elem: LayoutRef,
    /// Writes an empty vector (no allocation) to `dst`.
    pub new: unsafe extern "C" fn(dst: *mut u8),
    /// Writes an empty vector with room for exactly `len` elements to `dst` and
    /// returns its buffer; null (nothing written) if the allocation failed or the
    /// size overflowed.
    pub with_capacity: unsafe extern "C" fn(dst: *mut u8, len: usize) -> *mut u8,
    /// Sets the length; the first `len` elements must be initialised.
    pub set_len: unsafe extern "C" fn(vec: *mut u8, len: usize),
    /// The elements of the sequence at `src` (encoding): a pointer to the first
    /// of `*len` contiguous elements. Also serves slices (`&[T]`, `Box<[T]>`).
    pub as_slice: unsafe extern "C" fn(src: *const u8, len: *mut usize) -> *const u8,
    /// Byte buffers read through serde's `deserialize_bytes` (`bytes::Bytes`,
    /// `serde_bytes::ByteBuf`; `u8` elements only): a JSON string is read too,
    /// as serde_json reads a byte string ([`crate::text::parse_str_raw`]: its
    /// bytes unescaped, neither UTF-8 nor control characters checked), and
    /// moved in through `with_capacity` and `set_len`. `false` for sequences,
    /// which read arrays only. Generated code reads the array form and hands
    /// a string to the interpreter.
    pub byte_strings: bool,
}

/// `[T; N]`: elements at `i * elem.size`, as Rust guarantees for arrays.
#[derive(Debug)]
pub struct ArrayLayout {
    /// The layout of `T`.
    pub elem: LayoutRef,
    /// `N`.
    pub len: usize,
}

/// A map (`HashMap<K, V, S>`, `BTreeMap<K, V>`). Keys are JSON object keys: a
/// key of a string kind is the key's text; any other key type is parsed from
/// the key's text as serde_json does (`"42"` for an integer, `"true"` for a bool).
#[derive(Debug)]
pub struct MapLayout {
    /// The layout of `K`.
    pub key: LayoutRef,
    /// The layout of `V`.
    pub value: LayoutRef,
    /// Writes an empty map to `dst`; `false` (nothing written, payload stashed) if
    /// the hasher's `Default` panicked.
    pub new: unsafe extern "C" fn(dst: *mut u8) -> bool,
    /// For a key of a string kind ([`MapLayout::has_text_keys`]): decodes a `V`
    /// through the callback and inserts it under the key built from the text
    /// `key_ptr[..key_len]` (valid UTF-8), replacing any earlier value for that
    /// key, as serde's map impls do. Returns `false` if the callback failed, if
    /// dropping a replaced value panicked (then the payload is stashed), or if the
    /// key is not of a string kind.
    pub insert_with: unsafe extern "C" fn(
        map: *mut u8,
        key_ptr: *const u8,
        key_len: usize,
        decode: SlotFn,
        ctx: *mut c_void,
    ) -> bool,
    /// For any key: decodes a `K` through `decode_key`, then a `V` through
    /// `decode_value`, and inserts them (dropping the key if the value fails).
    pub insert: unsafe extern "C" fn(
        map: *mut u8,
        decode_key: SlotFn,
        key_ctx: *mut c_void,
        decode_value: SlotFn,
        value_ctx: *mut c_void,
    ) -> bool,
    /// Calls `entry` on every entry of the map at `src`, in the map's iteration
    /// order, until it returns `false` (encoding). Returns whether every call
    /// returned `true`. `None` where the layout cannot be encoded.
    pub for_each: Option<ForEachFn>,
    /// For a key of a string kind: the map built at its `}` from members staged
    /// on the element stack, the way both backends decode a map of their own
    /// (`None`: built member by member through `new` and `insert_with`).
    pub staged: Option<&'static StagedMap>,
}

/// A map with text keys built from its members once they are all read
/// (`MapLayout::staged`). Each member is decoded into an *entry* pushed on the
/// element stack ([`crate::elements`]): the key at offset 0, the value at
/// `value_offset` (a `repr(C)` pair, so the offsets are this type's, not a
/// guess at a std type's). The map itself is made by `MapLayout::new` at the
/// `{`, as serde makes it (a hasher's `Default` runs there), and filled at
/// the `}` knowing its length: a hash map's room reserved once instead of
/// rehashed as it grows, a `BTreeMap` built from its entries in one pass
/// (std's bulk build) instead of searched per insert.
/// Keys of a string kind are never zero-sized, so neither is an entry.
#[derive(Debug)]
pub struct StagedMap {
    /// An entry's size in bytes (a multiple of `entry_align`).
    pub entry_size: usize,
    /// An entry's alignment.
    pub entry_align: usize,
    /// Where the value lies in an entry.
    pub value_offset: usize,
    /// Inserts into the empty map at `dst` the `n` entries pushed since
    /// `mark`, in the order they were pushed (a repeated key keeps its first
    /// spelling and takes the later value, as `insert_with` and serde's map
    /// impls do), and pops them. `false` if user code panicked (a replaced
    /// value's `Drop`; the payload is stashed): every entry and the map are
    /// dropped, nothing is left at `dst`.
    pub finish: unsafe fn(elements: &mut Elements, mark: Mark, n: usize, dst: *mut u8) -> bool,
    /// Drops the `n` entries pushed since `mark` and pops them (the map at
    /// `dst` is the caller's to drop). `false` if a `Drop` panicked (stashed;
    /// every entry is dropped regardless).
    pub discard: unsafe fn(elements: &mut Elements, mark: Mark, n: usize) -> bool,
}

impl MapLayout {
    /// Whether keys are the key text itself (`String`, `Box<str>`, any string
    /// kind), so that `insert_with` applies.
    pub fn has_text_keys(&self) -> bool {
        matches!(self.key.get().kind, Kind::String(_))
    }
}

/// A struct with named fields.
#[derive(Debug)]
pub struct StructLayout {
    /// The Rust name, for messages.
    pub name: &'static str,
    /// The decoded fields, in declaration order (the order the JIT speculates on).
    pub fields: &'static [Field],
    /// Fields not read from JSON (`#[jitson(skip)]`), initialised after the others.
    pub skipped: &'static [SkippedField],
    /// Reject keys that name no field, instead of skipping their values.
    pub deny_unknown_fields: bool,
    /// What a key naming a field already written means.
    pub duplicate_keys: DuplicateKeys,
    /// How the value of a key that names no field is discarded.
    pub skip_unknown: SkipMode,
    /// `#[serde(flatten)]` fields: structs whose keys join this struct's, and
    /// maps that collect the keys no field claims; in declaration order.
    pub flatten: &'static [FlattenField],
}

/// How a struct discards the value of a key that names no field (when it
/// does not [deny](StructLayout::deny_unknown_fields) or collect it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipMode {
    /// Read and validated as serde_json's `ignore_value` reads it (the
    /// grammar, escapes, UTF-8 for byte input): every derived type.
    Validate,
    /// An object or an array is matched by its brackets, 64 bytes at a time,
    /// and a string skipped to its first unescaped quote, without checking
    /// what they hold
    /// ([`brackets::ignore_value_by_brackets`](crate::brackets::ignore_value_by_brackets));
    /// numbers and literals are validated as by `Validate`. What an Arrow reader built with
    /// `with_validate_skipped(false)` uses, as sonic's `NoValidateSkipJSON`.
    /// Both backends fall back to `Validate` where serde would buffer the
    /// value (a flattening struct's members, an untagged candidate), since
    /// serde checks what it buffers.
    Brackets,
}

impl SkipMode {
    /// Whether a value is matched by its brackets: in `Brackets` mode, unless
    /// `buffered` (the containers around the value that serde would buffer)
    /// is nonzero, since serde checks what it buffers. Both backends decide
    /// here.
    #[inline]
    pub fn by_brackets(self, buffered: u32) -> bool {
        self == SkipMode::Brackets && buffered == 0
    }
}

/// What a struct does with a key naming a field it has already written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DuplicateKeys {
    /// An error (`duplicate field`), as serde's derive gives: every derived type.
    Error,
    /// The last value stands, as arrow-json reads records: the earlier value is
    /// dropped (its [`TypeLayout::drop`]) and the field decoded again. An
    /// earlier value of the wrong type (a data error) is not an error when a
    /// later one of the same key is read: it is skipped, and its error only
    /// stands if the object ends without another value for the field. Only
    /// the interpreter implements it; generated code gives up to the
    /// interpreter on a repeated key, and on a field that fails.
    LastWins,
}

/// A `#[serde(flatten)]` field.
#[derive(Debug)]
pub struct FlattenField {
    /// The Rust field name, for messages.
    pub name: &'static str,
    /// Byte offset in the struct.
    pub offset: usize,
    /// The field's layout: a struct (its keys are read as the parent's) or a map
    /// (it collects every key nothing else claims).
    pub layout: LayoutRef,
    /// Encoding: the number of [`StructLayout::fields`] declared before this
    /// field, after which its members are written (serde writes a flattened
    /// field's members where the field is declared).
    pub position: usize,
}

/// One decoded field of a struct.
#[derive(Debug)]
pub struct Field {
    /// The JSON key (after `rename` / `rename_all`).
    pub name: &'static str,
    /// Further keys accepted for this field (`alias`).
    pub aliases: &'static [&'static str],
    /// Byte offset in the struct, from `offset_of!`.
    pub offset: usize,
    /// The field's layout.
    pub layout: LayoutRef,
    /// How to fill the field when its key is absent. `None`: the field is required,
    /// unless its layout is optional ([`TypeLayout::is_optional`]: `Option<T>`,
    /// also behind `Box`es), which becomes `None` (as in serde).
    pub default: Option<InitFn>,
    /// Encoding: `#[serde(skip_serializing_if = "path")]`, called with the
    /// field's address (see [`SkipFn`]). `None` in layouts built for decoding.
    pub skip_if: Option<SkipFn>,
}

/// Whether a field is left out of the output (`skip_serializing_if`): writes
/// the predicate's answer to `*skip` and returns `true`, or returns `false` if
/// the predicate panicked (the payload is stashed).
pub type SkipFn = unsafe extern "C" fn(field: *const u8, skip: *mut bool) -> bool;

/// `a == b` for the short names of fields and variants, without a call to
/// `memcmp`: names of 4 to 16 bytes are compared as two overlapping words,
/// shorter ones byte by byte. The interpreter compares every key with a field
/// name this way (a `memcmp` call was 2.5 % of a small struct's decode).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word8 = |s: &[u8], at: usize| s[at..at + 8].try_into().ok().map(u64::from_ne_bytes);
    let word4 = |s: &[u8], at: usize| s[at..at + 4].try_into().ok().map(u32::from_ne_bytes);
    match n {
        0..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        4..=7 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        8..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        _ => a == b,
    }
}

impl Field {
    /// Whether `key` names this field.
    #[inline]
    pub fn matches(&self, key: &[u8]) -> bool {
        same_bytes(self.name.as_bytes(), key)
            || self.aliases.iter().any(|a| same_bytes(a.as_bytes(), key))
    }

    /// The keys this field accepts as serde lists them in messages: its name
    /// and aliases, sorted, each once (see [`serde_names`]).
    pub fn serde_names(&self) -> Vec<&'static str> {
        serde_names(self.name, self.aliases)
    }
}

/// A field's or variant's accepted names as serde_derive lists them in its
/// `FIELDS` / `VARIANTS` (an unknown field's or variant's message): the name
/// and every alias in one `BTreeSet`, so sorted by bytes and without repeats
/// (``expected one of `ID`, `id`, `ident`, `n` `` for a field `id` with
/// aliases `ident` and `ID`, then a field `n`).
pub fn serde_names(name: &'static str, aliases: &'static [&'static str]) -> Vec<&'static str> {
    let mut names = Vec::with_capacity(1 + aliases.len());
    names.push(name);
    names.extend_from_slice(aliases);
    names.sort_unstable();
    names.dedup();
    names
}

/// A field that is never read from JSON.
#[derive(Debug)]
pub struct SkippedField {
    /// The Rust field name, for messages.
    pub name: &'static str,
    /// Byte offset in the struct.
    pub offset: usize,
    /// Writes the field's default value.
    pub init: InitFn,
    /// Drops the field, if its type needs dropping.
    pub drop: Option<DropFn>,
}

/// Decodes a value of the source type through the callback into a temporary,
/// converts it and writes the result to `dst`. Returns `true` when `dst` was
/// written. On `false`: the callback failed, or the conversion failed (its
/// message, `try_from`'s error as text, is then in `*message`), or the
/// conversion panicked (the payload is stashed, `*message` left `None`).
pub type ConvertFn = unsafe extern "C" fn(
    dst: *mut u8,
    decode: SlotFn,
    ctx: *mut c_void,
    message: *mut Option<Box<str>>,
) -> bool;

/// Encoding's conversion: builds the value to write in place of the one at
/// `src` (`#[serde(into = "..")]`, a set's elements as a sequence, a `Mutex`'s
/// content), calls `encode` on it and drops it. Returns what `encode`
/// returned, or `false` when the conversion failed: its message is then in
/// `*message`, or, if it panicked, the payload is stashed and `*message` left
/// `None`.
pub type IntoFn = unsafe extern "C" fn(
    src: *const u8,
    encode: EncodeSlotFn,
    ctx: *mut c_void,
    message: *mut Option<Box<str>>,
) -> bool;

/// A type decoded as another and converted (`from`, `try_from`), or encoded
/// as another (`into`).
#[derive(Debug)]
pub struct ConvertLayout {
    /// The other type's layout: the source when decoding, the target when
    /// encoding.
    pub from: LayoutRef,
    /// Decodes the source and converts it (see [`ConvertFn`]).
    pub convert: ConvertFn,
    /// Converts for encoding (see [`IntoFn`]); `None` in layouts built for
    /// decoding only.
    pub into: Option<IntoFn>,
}

/// Decodes the JSON text `ptr[..len]` (one valid value, UTF-8) with a serde
/// deserializer and writes the result to `dst`. With `key`, the text is a
/// map's key (one JSON string), read as serde_json reads keys: numbers and
/// `bool` from inside the quotes. Returns `true` when `dst` was written; on
/// `false` the deserializer's message is in `*message`, or, if it panicked,
/// the payload is stashed and `*message` left `None`.
pub type SerdeFn = unsafe extern "C" fn(
    dst: *mut u8,
    ptr: *const u8,
    len: usize,
    key: bool,
    message: *mut Option<Box<str>>,
) -> bool;

/// The message a [`SerdeFn`] gives when the value nests too deeply; backends
/// report it as a depth error rather than a refused value.
pub const DEPTH_LIMIT_MESSAGE: &str = "recursion limit exceeded";

/// The message `serde_json::Value`'s [`SerdeFn`] gives when the value nests
/// deeper than a `Value` may, whatever the decoder's depth limit; backends
/// report it as [`ErrorCode::ValueTooDeep`](crate::error::ErrorCode::ValueTooDeep).
pub const VALUE_DEPTH_LIMIT_MESSAGE: &str = "recursion limit exceeded in a serde_json::Value";

/// Encodes the value at `src` with a serde serializer (serde_json's compact
/// one), appending its JSON text to `*out` (a backend writing pretty output
/// re-formats it: [`crate::write::write_pretty_from_compact`]). With `target`
/// not null, the serializer is the one it names instead ([`SerializeTarget`]):
/// serde's flattening (or tagging) one, whose text is one object of the
/// members the value flattens to, or serde_json's map key serializer, whose
/// text is one JSON string. Returns `true` on success; on `false` the
/// serializer's message is in `*message`, or, if it panicked, the payload is
/// stashed and `*message` left `None`.
pub type SerializeFn = unsafe extern "C" fn(
    src: *const u8,
    out: *mut Vec<u8>,
    target: *mut SerializeTarget,
    message: *mut Option<Box<str>>,
) -> bool;

/// The serializer a [`SerializeFn`] runs when not serde_json's compact one.
#[derive(Debug)]
pub enum SerializeTarget {
    /// serde's flattening or tagging serializer, writing members into an
    /// enclosing object (`serde_flatten::FlatMap`, feature `serde`).
    Members(Flattening),
    /// serde_json's map key serializer: the value is a map's key
    /// (`serde_key::MapKey`, feature `serde`). What serde_json refuses as a
    /// key fails with serde_json's message ("key must be a string").
    MapKey,
}

/// serde_json's words for a map key it refuses, as its `Error::to_string`
/// gives them: what a [`SerializeTarget::MapKey`] serializer's message reads
/// for such a key.
pub const KEY_MUST_BE_A_STRING: &str = "key must be a string";

/// serde_json's words for a float map key that is not finite.
pub const FLOAT_KEY_MUST_BE_FINITE: &str = "float key must be finite (got NaN or +/-inf)";

/// Which of serde's serializers a [`SerializeTarget::Members`] stands for,
/// and what it refused.
#[derive(Debug, Default)]
pub struct Flattening {
    /// `true` for an internally tagged variant's payload (serde's
    /// `TaggedSerializer`), `false` for a flattened field
    /// (`FlatMapSerializer`).
    pub tagged: bool,
    /// serde's word for a value it refuses to flatten (`"a char"`, `"an
    /// optional"`), set with the refusal: the backend words the error as
    /// serde does for the two cases.
    pub refused: Option<&'static str>,
}

/// A field decoded or encoded through serde (see [`Kind::Serde`]).
#[derive(Debug)]
pub struct SerdeLayout {
    /// Runs the field's deserializer on the value's text.
    pub decode: SerdeFn,
    /// Runs the field's serializer (`serialize_with`, `with`, the type's
    /// `Serialize`); `None` in layouts built for decoding.
    pub encode: Option<SerializeFn>,
    /// Whether what `encode` writes is raw JSON text kept as it was read
    /// (`Box<RawValue>`): pretty output copies it unchanged, as serde_json's
    /// pretty writer does, where other serde-written text is re-indented. The
    /// escaping options reach its strings either way.
    pub raw: bool,
    /// Whether the value borrows the text `decode` is given (`&'de RawValue`):
    /// it may be decoded only from the input itself, never from text a backend
    /// assembled (a flattened value's members), as for [`Kind::BorrowedStr`].
    pub borrows: bool,
}

/// A tuple or a tuple struct: element `i` of the JSON array is `elems[i]`.
#[derive(Debug)]
pub struct TupleLayout {
    /// The decoded elements, in order.
    pub elems: &'static [TupleElem],
    /// Fields not read from JSON (`#[serde(skip)]` in a tuple struct), initialised
    /// after the others.
    pub skipped: &'static [SkippedField],
    /// What a JSON array of the wrong length is said to miss: "a tuple of size 2",
    /// "tuple struct LngLat with 2 elements" (serde's words).
    pub expecting_len: &'static str,
}

/// One decoded element of a tuple.
#[derive(Debug)]
pub struct TupleElem {
    /// Byte offset in the tuple, from `offset_of!`.
    pub offset: usize,
    /// The element's layout.
    pub layout: LayoutRef,
    /// Encoding: `#[serde(skip_serializing_if = "path")]` on a tuple struct's
    /// element, called with the element's address (see [`SkipFn`]); an
    /// element it skips is left out of the array, as serde leaves it out.
    /// `None` in layouts built for decoding.
    pub skip_if: Option<SkipFn>,
    /// Decoding: writes the element's value when the array ends before it
    /// (`#[serde(default)]` on a tuple struct's element, or the container's
    /// default value's element), as serde fills a missing element; `None`
    /// where a short array is an invalid length.
    pub default: Option<InitFn>,
}

/// A struct with exactly one decoded field, read as that field's value.
#[derive(Debug)]
pub struct NewtypeLayout {
    /// Byte offset of the decoded field, from `offset_of!`.
    pub offset: usize,
    /// The decoded field's layout.
    pub inner: LayoutRef,
    /// The other fields (`transparent` with `PhantomData` markers and the like),
    /// initialised after the decoded one.
    pub skipped: &'static [SkippedField],
    /// `#[serde(transparent)]`, as opposed to a newtype struct. JSON is the same;
    /// only an absent field differs (see [`TypeLayout::is_optional`]).
    pub transparent: bool,
}

/// Decodes the payload of data variant `index` through the callback (into a
/// temporary of the payload's type: the newtype's field, or a hidden struct or
/// tuple struct holding the variant's fields) and writes the variant to `dst`.
/// Returns what the callback returned; `dst` is written only on `true`.
pub type DecodeVariantFn =
    unsafe extern "C" fn(dst: *mut u8, index: usize, decode: SlotFn, ctx: *mut c_void) -> bool;

/// An enum: unit variants and variants with data, in one of serde's four
/// representations.
#[derive(Debug)]
pub struct EnumLayout {
    /// The Rust name, for messages.
    pub name: &'static str,
    /// The decoded variants, in declaration order.
    pub variants: &'static [Variant],
    /// How the variant is told apart in JSON.
    pub tagging: Tagging,
    /// The `#[serde(other)]` unit variant, taken for any unknown variant name.
    pub other: Option<usize>,
    /// Where the `#[serde(untagged)]` variants start (they come last): variants
    /// from this index are not named by tags but tried in order, as for an
    /// untagged enum, when the tagged form does not match. `variants.len()` when
    /// there are none.
    pub untagged_from: usize,
    /// Refuse keys other than the tag and content of an adjacently tagged object
    /// (`deny_unknown_fields`; struct variants apply it to their own fields).
    pub deny_unknown_fields: bool,
    /// Writes the unit variant with the given index (into `variants`) to `dst`.
    pub write: unsafe extern "C" fn(dst: *mut u8, index: usize),
    /// Decodes and writes a variant with data (see [`DecodeVariantFn`]).
    pub decode_variant: DecodeVariantFn,
    /// Encoding: which variant the value at `src` is (see [`VariantOfFn`]);
    /// `None` in layouts built for decoding.
    pub variant_of: Option<VariantOfFn>,
    /// The enum's `#[serde(expecting = "...")]` text, if it has one: where no
    /// untagged variant matches, serde's derive says it instead of "data did
    /// not match any variant of untagged enum E".
    pub expecting: Option<&'static str>,
}

/// Tells which variant the enum value at `src` is and writes its payload's
/// view to `payload`: for a data variant, a value of the variant's payload
/// layout in an encode layout (references to the variant's fields, laid out as
/// that layout says; at most [`VARIANT_VIEW_SIZE`] bytes, aligned to 8).
/// Returns the variant's index in [`EnumLayout::variants`], or `usize::MAX` for
/// a variant that is never written (`skip_serializing`: serde's error "the
/// enum variant E::V cannot be serialized").
pub type VariantOfFn = unsafe extern "C" fn(src: *const u8, payload: *mut u8) -> usize;

/// The room a [`VariantOfFn`] may write: references to at most 64 fields.
pub const VARIANT_VIEW_SIZE: usize = 64 * 16;

/// serde's enum representations (serde.rs, "Enum representations").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tagging {
    /// `"Unit"` or `{"Variant": payload}` (serde's default).
    External,
    /// `{"<tag>": "Variant", ...payload's fields}` (`#[serde(tag = "...")]`).
    Internal {
        /// The tag's key.
        tag: &'static str,
    },
    /// `{"<tag>": "Variant", "<content>": payload}` (`tag` + `content`).
    Adjacent {
        /// The tag's key.
        tag: &'static str,
        /// The payload's key.
        content: &'static str,
    },
    /// The payload alone; the first variant in declaration order that decodes it
    /// wins (`#[serde(untagged)]`).
    Untagged,
}

/// One variant.
#[derive(Debug)]
pub struct Variant {
    /// The JSON string (after `rename` / `rename_all`).
    pub name: &'static str,
    /// The variant's Rust identifier, which serde's encoding errors name
    /// (`cannot serialize tagged newtype variant E::V containing …`).
    pub rust_name: &'static str,
    /// Further accepted strings (`alias`).
    pub aliases: &'static [&'static str],
    /// What the variant holds.
    pub payload: Payload,
    /// What serde says it expected when a unit variant of an adjacently
    /// tagged enum is given content other than `null`: `unit variant E::V`,
    /// in Rust names (serde's `UntaggedUnitVisitor`). Empty for data variants,
    /// and in layouts built for encoding.
    pub unit_expecting: &'static str,
}

/// What a variant holds, and the layout its payload is decoded with.
#[derive(Debug, Clone, Copy)]
pub enum Payload {
    /// Nothing (`Variant`).
    Unit,
    /// One unnamed field (`Variant(T)`): the layout of `T`.
    Newtype(LayoutRef),
    /// Several unnamed fields (`Variant(A, B)`): a tuple layout.
    Tuple(LayoutRef),
    /// Named fields (`Variant { a: A }`): a struct layout.
    Struct(LayoutRef),
}

impl Payload {
    /// The payload's layout, `None` for a unit variant.
    pub fn layout(&self) -> Option<&'static TypeLayout> {
        match self {
            Payload::Unit => None,
            Payload::Newtype(f) | Payload::Tuple(f) | Payload::Struct(f) => Some(f.get()),
        }
    }

    /// serde's name of the variant's shape, for messages ("struct variant").
    pub fn describe(&self) -> &'static str {
        match self {
            Payload::Unit => "unit variant",
            Payload::Newtype(_) => "newtype variant",
            Payload::Tuple(_) => "tuple variant",
            Payload::Struct(_) => "struct variant",
        }
    }
}

impl Variant {
    /// Whether `s` names this variant.
    #[inline]
    pub fn matches(&self, s: &[u8]) -> bool {
        same_bytes(self.name.as_bytes(), s)
            || self.aliases.iter().any(|a| same_bytes(a.as_bytes(), s))
    }

    /// The strings this variant accepts as serde lists them in messages (see
    /// [`serde_names`]).
    pub fn serde_names(&self) -> Vec<&'static str> {
        serde_names(self.name, self.aliases)
    }
}

impl EnumLayout {
    /// The index of the tagged variant `s` names, or the `other` variant.
    pub fn find(&self, s: &[u8]) -> Option<usize> {
        self.variants[..self.untagged_from]
            .iter()
            .position(|v| v.matches(s))
            .or(self.other)
    }

    /// Whether some variants are `#[serde(untagged)]` in a tagged enum.
    pub fn has_untagged_variants(&self) -> bool {
        self.untagged_from < self.variants.len()
    }

    /// Whether every variant is a unit variant.
    pub fn is_unit_only(&self) -> bool {
        self.variants
            .iter()
            .all(|v| matches!(v.payload, Payload::Unit))
    }
}

/// A [`DecodeVariantFn`] for enums without data variants; never called.
///
/// # Safety
/// Always safe; it writes nothing and reports failure.
pub unsafe extern "C" fn no_data_variants(
    _dst: *mut u8,
    _index: usize,
    _decode: SlotFn,
    _ctx: *mut c_void,
) -> bool {
    false
}

/// Calls `f` on every layout reachable from `root` (including `root`), once each.
/// Used by warm-up and by backends that compile a whole type graph at once.
pub fn visit_reachable(root: &'static TypeLayout, mut f: impl FnMut(&'static TypeLayout)) {
    // A set, not a list: an API model's graph reaches hundreds of layouts.
    let mut seen = std::collections::HashSet::<LayoutId>::new();
    let mut stack = vec![root];
    while let Some(layout) = stack.pop() {
        if !seen.insert(layout.id()) {
            continue;
        }
        f(layout);
        match &layout.kind {
            Kind::Option(o) => stack.push(o.some.get()),
            Kind::Box(b) => stack.push(b.inner.get()),
            Kind::Vec(v) => stack.push(v.elem.get()),
            Kind::Array(a) => stack.push(a.elem.get()),
            Kind::Map(m) => stack.extend([m.key.get(), m.value.get()]),
            Kind::Struct(s) => {
                stack.extend(s.fields.iter().map(|f| f.layout.get()));
                stack.extend(s.flatten.iter().map(|f| f.layout.get()));
            }
            Kind::Tuple(t) => stack.extend(t.elems.iter().map(|e| e.layout.get())),
            Kind::Newtype(n) => stack.push(n.inner.get()),
            Kind::Convert(c) => stack.push(c.from.get()),
            Kind::Enum(e) => stack.extend(e.variants.iter().filter_map(|v| v.payload.layout())),
            _ => {}
        }
    }
}

impl Kind {
    /// Whether the kind reads a JSON number (every integer and float kind).
    pub fn is_number(&self) -> bool {
        matches!(
            self,
            Kind::I8
                | Kind::I16
                | Kind::I32
                | Kind::I64
                | Kind::U8
                | Kind::U16
                | Kind::U32
                | Kind::U64
                | Kind::I128
                | Kind::U128
                | Kind::F32
                | Kind::F64
        )
    }
}

impl TypeLayout {
    /// Whether a struct field of this layout may be absent from its object: serde
    /// decodes a missing field by asking its type for an option, which `Option<T>`
    /// answers with `None` and a `Box<T>` forwards to `T`. So `Option<T>`,
    /// `Box<Option<T>>`, `Box<Box<Option<T>>>`, … are optional; every other kind
    /// is required (unless the field has a default).
    pub fn is_optional(&self) -> bool {
        match &self.kind {
            Kind::Option(_) => true,
            Kind::Box(b) => b.inner.get().is_optional(),
            // serde's `transparent` hands the missing field to the inner type; a
            // plain newtype struct asks for a newtype and is refused.
            Kind::Newtype(n) => {
                n.transparent && n.skipped.is_empty() && n.inner.get().is_optional()
            }
            _ => false,
        }
    }
}

/// Writes the value of an absent field of an optional layout (see
/// [`TypeLayout::is_optional`]): `None`, boxed as many times as the layout says.
/// Returns `false`, writing nothing, for a layout that is not optional.
///
/// # Safety
/// `dst` is a destination for `layout` (see the module docs).
pub unsafe fn write_missing(layout: &'static TypeLayout, dst: *mut u8) -> bool {
    /// [`write_missing`] as a [`SlotFn`], with the layout as its context.
    unsafe extern "C" fn fill(ctx: *mut c_void, slot: *mut u8) -> bool {
        // SAFETY: `ctx` is the `&'static TypeLayout` passed below and `slot` is
        // room for it, as `decode_new` guarantees.
        unsafe { write_missing(&*ctx.cast::<TypeLayout>(), slot) }
    }
    match &layout.kind {
        Kind::Option(o) => {
            // SAFETY: as the caller guarantees.
            unsafe { (o.write_none)(dst) };
            true
        }
        Kind::Newtype(n) if layout.is_optional() => {
            // SAFETY: the field lies inside `dst` (the Decode contract); there are
            // no skipped fields to fill (`is_optional`).
            unsafe { write_missing(n.inner.get(), dst.add(n.offset)) }
        }
        Kind::Box(b) if layout.is_optional() => {
            let inner: &'static TypeLayout = b.inner.get();
            let ctx = std::ptr::from_ref(inner).cast_mut().cast::<c_void>();
            // SAFETY: `dst` as the caller guarantees; `fill` fills the box's
            // allocation, which is room for `inner`.
            unsafe { (b.decode_new)(dst, fill, ctx) }
        }
        _ => false,
    }
}

/// The order in which keys were seen, per struct layout: for each struct layout
/// met in a document, the indexes (into `fields`) of its first object's keys in
/// document order. Recorded by the interpreter while a type waits for its compile,
/// and used by the JIT to speculate on the order documents really use (sorted
/// keys, or another language's field order) instead of the declaration order.
///
/// When documents change order (a producer redeployed, or two producers
/// feeding one service), the order learned again becomes the current one and
/// the one it replaces is kept as the *previous* order
/// ([`KeyOrders::followed_by`]): the JIT tries the current order's next field,
/// then the previous order's, before looking the key up, so two orders that
/// alternate both hit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyOrders {
    orders: Vec<(*const StructLayout, Vec<u16>)>,
    previous: Vec<(*const StructLayout, Vec<u16>)>,
    /// Keys of the learning document's later objects that the speculation
    /// on the orders recorded would have missed (see [`KeyOrders::offer`]).
    expected_misses: u64,
}

// SAFETY: the pointers are only compared (identities of `'static` layouts), never
// dereferenced.
unsafe impl Send for KeyOrders {}
// SAFETY: as above.
unsafe impl Sync for KeyOrders {}

impl KeyOrders {
    /// Records `order` for `st` unless one is recorded already (the first object
    /// of each layout wins). For a later object, counts the keys the
    /// speculation on the recorded order would miss: the document's own
    /// misses, which absent fields cause even in the order learned
    /// ([`KeyOrders::expected_misses`]).
    pub fn offer(&mut self, st: &'static StructLayout, order: Vec<u16>) {
        if self.get(st).is_none() {
            self.orders.push((st, order));
            return;
        }
        let speculation = self.speculation(st);
        let mut successor = vec![None; st.fields.len()];
        for pair in speculation.windows(2) {
            successor[pair[0]] = Some(pair[1]);
        }
        let mut expected = speculation.first().copied();
        for &i in &order {
            let i = usize::from(i);
            if expected != Some(i) {
                self.expected_misses += 1;
            }
            expected = successor.get(i).copied().flatten();
        }
    }

    /// Whether these orders record, for some layout, an order other than
    /// `older`'s current one: whether compiling for them would change
    /// anything.
    pub fn differs_from(&self, older: &KeyOrders) -> bool {
        self.orders.iter().any(|(st, order)| {
            older
                .orders
                .iter()
                .find(|(p, _)| std::ptr::eq(*p, *st))
                .is_none_or(|(_, old)| old != order)
        })
    }

    /// The misses counted by [`KeyOrders::offer`] in the document these orders
    /// were learned from: what code speculating on them misses per document
    /// of that order and shape, the rate against which the caller judges drift.
    pub fn expected_misses(&self) -> u64 {
        self.expected_misses
    }

    /// The order recorded for `st`.
    pub fn get(&self, st: &StructLayout) -> Option<&[u16]> {
        self.orders
            .iter()
            .find(|(p, _)| std::ptr::eq(*p, st))
            .map(|(_, order)| &order[..])
    }

    /// Layouts with an order.
    pub fn len(&self) -> usize {
        self.orders.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.orders.is_empty()
    }

    /// The order in which to try `st`'s fields: the recorded one, then the fields
    /// it did not name in declaration order (every index once).
    pub fn speculation(&self, st: &StructLayout) -> Vec<usize> {
        let n = st.fields.len();
        let mut order: Vec<usize> = Vec::with_capacity(n);
        let mut taken = vec![false; n];
        for &i in self.get(st).unwrap_or(&[]) {
            let i = usize::from(i);
            if i < n && !taken[i] {
                taken[i] = true;
                order.push(i);
            }
        }
        order.extend((0..n).filter(|&i| !taken[i]));
        order
    }

    /// These orders, learned now, as the current ones, with each layout's
    /// current order in `older` kept as its previous order where it differs
    /// (where it is the same, or the layout was not seen now, `older`'s pair
    /// stays). At most two orders per layout: the oldest is forgotten.
    pub fn followed_by(mut self, older: &KeyOrders) -> KeyOrders {
        self.previous.clear();
        for (st, old) in &older.orders {
            let kept = older.previous.iter().find(|(p, _)| std::ptr::eq(*p, *st));
            match self.orders.iter().find(|(p, _)| std::ptr::eq(*p, *st)) {
                Some((_, new)) if new != old => self.previous.push((*st, old.clone())),
                // The same order again (or none seen): the pair stays.
                Some(_) => self.previous.extend(kept.cloned()),
                None => {
                    self.orders.push((*st, old.clone()));
                    self.previous.extend(kept.cloned());
                }
            }
        }
        self
    }

    /// Where the previous order of `st` (if one is kept) goes where the
    /// current speculation does not: `first`, the field its objects started
    /// with, and `after[i]`, the field that followed field `i`, each `None`
    /// where it agrees with [`KeyOrders::speculation`] or is unknown. The JIT
    /// tries these second, before looking a key up.
    pub fn alternates(&self, st: &StructLayout) -> Alternates {
        let n = st.fields.len();
        let mut alt = Alternates {
            first: None,
            after: vec![None; n],
        };
        let Some((_, previous)) = self.previous.iter().find(|(p, _)| std::ptr::eq(*p, st)) else {
            return alt;
        };
        let current = self.speculation(st);
        let mut successor = vec![None; n];
        for pair in current.windows(2) {
            successor[pair[0]] = Some(pair[1]);
        }
        let valid = |i: u16| (usize::from(i) < n).then_some(usize::from(i));
        alt.first = previous
            .first()
            .and_then(|&i| valid(i))
            .filter(|&i| current.first() != Some(&i));
        for pair in previous.windows(2) {
            if let (Some(a), Some(b)) = (valid(pair[0]), valid(pair[1]))
                && successor[a] != Some(b)
                && a != b
            {
                alt.after[a] = Some(b);
            }
        }
        alt
    }
}

/// The second guesses of a struct's key speculation: see
/// [`KeyOrders::alternates`]. Indexes into the struct's `fields`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Alternates {
    /// The field to try for the first key after the current order's first.
    pub first: Option<usize>,
    /// Per field, the field to try after it when the current order's next
    /// field does not match.
    pub after: Vec<Option<usize>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length up to 40 (each of the word paths and the fallback),
    /// equal, and differing at each position in turn or in length.
    #[test]
    fn same_bytes_is_slice_equality() {
        for n in 0..40usize {
            let a: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(same_bytes(&a, &a.clone()), "{n}");
            for at in 0..n {
                let mut b = a.clone();
                b[at] ^= 0x20;
                assert!(!same_bytes(&a, &b), "{n} at {at}");
            }
            let mut longer = a.clone();
            longer.push(b'a');
            assert!(!same_bytes(&a, &longer), "{n}");
        }
    }

    const FIELDS: [Field; 4] = {
        const fn field(name: &'static str) -> Field {
            Field {
                name,
                aliases: &[],
                offset: 0,
                layout: LayoutRef::Lazy(crate::decode::layout_of::<u8>),
                default: None,
                skip_if: None,
            }
        }
        [field("a"), field("b"), field("c"), field("d")]
    };
    static ST: StructLayout = StructLayout {
        name: "S",
        fields: &FIELDS,
        skipped: &[],
        deny_unknown_fields: false,
        duplicate_keys: DuplicateKeys::Error,
        skip_unknown: SkipMode::Validate,
        flatten: &[],
    };
    static OTHER: StructLayout = StructLayout {
        name: "T",
        fields: &FIELDS,
        skipped: &[],
        deny_unknown_fields: false,
        duplicate_keys: DuplicateKeys::Error,
        skip_unknown: SkipMode::Validate,
        flatten: &[],
    };

    #[test]
    fn speculation_is_the_learned_order_then_the_rest() {
        let mut orders = KeyOrders::default();
        assert_eq!(orders.speculation(&ST), [0, 1, 2, 3]);
        orders.offer(&ST, vec![3, 1]);
        // The first object of a layout wins; others are ignored.
        orders.offer(&ST, vec![0, 1, 2, 3]);
        assert_eq!(orders.speculation(&ST), [3, 1, 0, 2]);
        assert_eq!(orders.speculation(&OTHER), [0, 1, 2, 3]);
        // Out-of-range and repeated indexes (never recorded, but harmless).
        orders.offer(&OTHER, vec![2, 2, 9, 0]);
        assert_eq!(orders.speculation(&OTHER), [2, 0, 1, 3]);
        assert_eq!(orders.len(), 2);
    }

    #[test]
    fn later_objects_count_the_keys_the_speculation_would_miss() {
        let mut orders = KeyOrders::default();
        orders.offer(&ST, vec![3, 1]);
        assert_eq!(orders.expected_misses(), 0);
        // Speculation [3, 1, 0, 2]: the same keys again miss nothing; with the
        // first key absent, the first key misses; 0 after 3 misses (1 expected),
        // then 2 after 0 is expected.
        orders.offer(&ST, vec![3, 1]);
        assert_eq!(orders.expected_misses(), 0);
        orders.offer(&ST, vec![1]);
        assert_eq!(orders.expected_misses(), 1);
        orders.offer(&ST, vec![3, 0, 2]);
        assert_eq!(orders.expected_misses(), 2);
    }

    #[test]
    fn a_relearned_order_keeps_the_one_it_replaces_as_alternates() {
        let mut declared = KeyOrders::default();
        declared.offer(&ST, vec![0, 1, 2, 3]);
        declared.offer(&OTHER, vec![1, 0]);
        assert_eq!(
            declared.alternates(&ST),
            Alternates {
                first: None,
                after: vec![None; 4]
            }
        );

        // Documents now come reversed; OTHER was not seen again.
        let mut reversed = KeyOrders::default();
        reversed.offer(&ST, vec![3, 2, 1, 0]);
        let both = reversed.followed_by(&declared);
        assert_eq!(both.speculation(&ST), [3, 2, 1, 0]);
        // After 0 (last in the current order) comes 1 in the previous order; after
        // 3 (first now) nothing came before; the first key was 0.
        assert_eq!(
            both.alternates(&ST),
            Alternates {
                first: Some(0),
                after: vec![Some(1), Some(2), Some(3), None]
            }
        );
        // OTHER keeps its order and has no previous one.
        assert_eq!(both.speculation(&OTHER), [1, 0, 2, 3]);
        assert_eq!(both.alternates(&OTHER).after, vec![None; 4]);

        // A third order forgets the first; the same order again keeps the pair.
        let mut sorted = KeyOrders::default();
        sorted.offer(&ST, vec![1, 3, 0, 2]);
        let latest = sorted.clone().followed_by(&both);
        assert_eq!(latest.speculation(&ST), [1, 3, 0, 2]);
        assert_eq!(latest.alternates(&ST).first, Some(3));
        assert!(sorted.differs_from(&both));
        assert!(!sorted.differs_from(&latest));
        let again = sorted.followed_by(&latest);
        assert_eq!(again.alternates(&ST), latest.alternates(&ST));
        // A layout relearned by nobody keeps its previous order too.
        let mut other_only = KeyOrders::default();
        other_only.offer(&OTHER, vec![0, 1]);
        let kept = other_only.followed_by(&latest);
        assert_eq!(kept.alternates(&ST), latest.alternates(&ST));
    }
}
