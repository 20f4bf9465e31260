//! Structs with named fields. Twin: `jit/src/kind/struct_.rs`.
//!
//! Keys are matched after unescaping. The field after the last one matched is
//! tried first (keys usually come in declaration order, the speculation the JIT
//! also makes; msgspec's decoder does the same), then every field in turn. A bitmap
//! of fields written serves duplicate detection, missing-field detection and, on
//! error, dropping exactly what was written. Under `DuplicateKeys::LastWins`
//! (arrow-json's records) a repeated key drops the earlier value and decodes
//! again, and a field's data error waits for the end of the object, in case a
//! later value of the key replaces it.

use jitson_core::error::{Category, Error, ErrorCode, PathSegment, expected_names};
use jitson_core::layout::{
    DuplicateKeys, Field, Kind, LayoutId, MapLayout, OptionLayout, SkippedField, StructLayout,
    Tagging, TypeLayout,
};
use jitson_core::text::StrText;

use crate::kind::map::AfterMember;
use crate::{Parser, at_segment, drop_value};

/// Which fields have been written: one bit per decoded field, then one per
/// skipped field. Inline up to 128 fields.
struct Seen {
    inline: [u64; 2],
    spill: Vec<u64>,
}

impl Seen {
    fn new(bits: usize) -> Seen {
        let spill = if bits > 128 {
            vec![0; bits.div_ceil(64)]
        } else {
            Vec::new()
        };
        Seen {
            inline: [0; 2],
            spill,
        }
    }

    fn words(&mut self) -> &mut [u64] {
        if self.spill.is_empty() {
            &mut self.inline
        } else {
            &mut self.spill
        }
    }

    fn get(&mut self, i: usize) -> bool {
        self.words()[i / 64] >> (i % 64) & 1 == 1
    }

    fn set(&mut self, i: usize) {
        self.words()[i / 64] |= 1 << (i % 64);
    }

    fn clear(&mut self, i: usize) {
        self.words()[i / 64] &= !(1 << (i % 64));
    }

    /// Whether bits `0..n` are all set; `false` when they spill (the caller
    /// then looks bit by bit).
    fn all_below(&self, n: usize) -> bool {
        let low = |bits: usize| u64::MAX.checked_shr(64 - bits as u32).unwrap_or(0);
        self.spill.is_empty()
            && n <= 128
            && self.inline[0] & low(n.min(64)) == low(n.min(64))
            && self.inline[1] & low(n.saturating_sub(64)) == low(n.saturating_sub(64))
    }
}

impl Parser<'_> {
    /// A JSON object into a struct.
    ///
    /// # Safety
    /// `dst` is valid for a write of the struct `layout` describes.
    pub(crate) unsafe fn decode_struct(
        &mut self,
        layout: &'static TypeLayout,
        st: &'static StructLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        if !st.flatten.is_empty() {
            // SAFETY: forwarded from the caller.
            return unsafe { self.decode_flattening(layout, st, dst) };
        }
        let skip_key = self.skip_key.take();
        let empty = self.begin_map(layout)?;
        let mut seen = Seen::new(st.fields.len() + st.skipped.len());
        // SAFETY: forwarded from the caller; `seen` records what was written.
        let result = unsafe {
            match if empty {
                Ok(())
            } else {
                self.decode_members(st, dst, &mut seen, skip_key)
            } {
                Ok(()) => self.finish_struct(st, dst, &mut seen),
                Err(e) => Err(e),
            }
        };
        self.leave();
        if result.is_err() {
            // SAFETY: exactly the fields marked in `seen` are live.
            unsafe { drop_written(st, dst, &mut seen) };
        }
        result
    }

    /// The members of a non-empty object, up to and including `}`.
    ///
    /// # Safety
    /// As for `decode_struct`.
    unsafe fn decode_members(
        &mut self,
        st: &'static StructLayout,
        dst: *mut u8,
        seen: &mut Seen,
        skip_key: Option<&'static str>,
    ) -> Result<(), Error> {
        let mut guess = 0usize;
        let mut skipped_tag = false;
        // `DuplicateKeys::LastWins`: data errors of fields not (yet) written
        // again, by field.
        let mut deferred: Vec<(usize, Error)> = Vec::new();
        // Only while learning (a type waiting for its compile): the keys' order.
        let mut order = self.key_orders.is_some().then(Vec::new);
        loop {
            let key_start = self.pos;
            let key = self.parse_str()?;
            // The tag is the enum's, even where the payload has a field of
            // that name (serde's tag takes the key; the field stays absent).
            let is_tag = skip_key.is_some_and(|k| k.as_bytes() == key);
            let found = if is_tag {
                None
            } else {
                find_field(st.fields, key, guess)
            };
            match found {
                Some(i) => {
                    let field = &st.fields[i];
                    let last_wins = st.duplicate_keys == DuplicateKeys::LastWins;
                    if seen.get(i) {
                        if !last_wins {
                            return Err(
                                self.error(ErrorCode::DuplicateField(field.name), key_start)
                            );
                        }
                        // The last value stands: the earlier one goes.
                        // SAFETY: the field is live (its bit is set).
                        unsafe { drop_value(field.layout.get(), dst.add(field.offset)) };
                        seen.clear(i);
                    }
                    self.parse_object_colon()?;
                    let value_start = self.pos;
                    // SAFETY: the field's offset and layout describe memory inside
                    // the struct (the Decode contract).
                    let result =
                        unsafe { self.decode_value(field.layout.get(), dst.add(field.offset)) }
                            .map_err(|e| at_segment(e, || PathSegment::Field(field.name)));
                    if last_wins {
                        deferred.retain(|(j, _)| *j != i);
                    }
                    match result {
                        Ok(()) => seen.set(i),
                        Err(e) if last_wins && e.classify() == Category::Data => {
                            // Only an error if no later value of the key follows
                            // (arrow-json reads the last value only).
                            self.pos = value_start;
                            self.ignore_value()?;
                            deferred.push((i, e));
                        }
                        Err(e) => return Err(e),
                    }
                    guess = i + 1;
                    if let Some(order) = &mut order {
                        order.push(i as u16);
                    }
                }
                // An internally tagged enum's tag, once.
                None if is_tag => {
                    if skipped_tag {
                        let tag = skip_key.unwrap_or_default();
                        return Err(self.error(ErrorCode::DuplicateField(tag), key_start));
                    }
                    skipped_tag = true;
                    self.parse_object_colon()?;
                    self.ignore_value()?;
                }
                None if st.deny_unknown_fields => {
                    let name = String::from_utf8_lossy(key).into();
                    return Err(self.error(unknown_field(name, st.fields), key_start));
                }
                None => {
                    self.parse_object_colon()?;
                    self.skip_unknown_member(key_start, st.skip_unknown)?;
                }
            }
            match self.end_map_member()? {
                AfterMember::More => {}
                AfterMember::End => {
                    // Nearly always empty: the cold call only when it is not.
                    if !deferred.is_empty()
                        && let Some(e) = first_deferred(deferred)
                    {
                        return Err(e);
                    }
                    if let (Some(orders), Some(order)) = (self.key_orders.as_deref_mut(), order) {
                        orders.offer(st, order);
                    }
                    return Ok(());
                }
            }
        }
    }

    /// Fills the fields the object did not name: defaults, `None` for options, then
    /// the skipped fields; a required field missing is an error at the `}`.
    ///
    /// # Safety
    /// As for `decode_struct`.
    unsafe fn finish_struct(
        &mut self,
        st: &'static StructLayout,
        dst: *mut u8,
        seen: &mut Seen,
    ) -> Result<(), Error> {
        // The common case: every field named, none skipped.
        if st.skipped.is_empty() && seen.all_below(st.fields.len()) {
            return Ok(());
        }
        for (i, field) in st.fields.iter().enumerate() {
            if seen.get(i) {
                continue;
            }
            // SAFETY: the field's memory is inside the struct and unwritten.
            unsafe {
                let at = dst.add(field.offset);
                if let Some(init) = field.default {
                    if !init(at) {
                        return Err(self.error(ErrorCode::Panicked, self.pos - 1));
                    }
                } else if !jitson_core::layout::write_missing(field.layout.get(), at) {
                    return Err(self.error(ErrorCode::MissingField(field.name), self.pos - 1));
                }
            }
            seen.set(i);
        }
        for (j, skipped) in st.skipped.iter().enumerate() {
            // SAFETY: the skipped field's memory is inside the struct and unwritten.
            if !unsafe { (skipped.init)(dst.add(skipped.offset)) } {
                return Err(self.error(ErrorCode::Panicked, self.pos - 1));
            }
            seen.set(st.fields.len() + j);
        }
        Ok(())
    }
}

/// The earliest in the input of the errors deferred by `DuplicateKeys::LastWins`.
#[cold]
fn first_deferred(deferred: Vec<(usize, Error)>) -> Option<Error> {
    deferred
        .into_iter()
        .map(|(_, e)| e)
        .min_by_key(Error::offset)
}

/// The error for a key naming none of `fields`, with serde's list of them.
#[cold]
fn unknown_field(name: Box<str>, fields: &[Field]) -> ErrorCode {
    let expected = expected_names(fields.iter().flat_map(Field::serde_names), "fields");
    ErrorCode::UnknownField { name, expected }
}

/// The index of the field `key` names: `guess` first, then all in order.
#[inline]
fn find_field(fields: &[Field], key: &[u8], guess: usize) -> Option<usize> {
    if let Some(f) = fields.get(guess)
        && f.matches(key)
    {
        return Some(guess);
    }
    fields.iter().position(|f| f.matches(key))
}

/// Drops the fields marked in `seen`, each once.
///
/// # Safety
/// Exactly the marked fields of the struct at `dst` are live.
unsafe fn drop_written(st: &StructLayout, dst: *mut u8, seen: &mut Seen) {
    for (i, field) in st.fields.iter().enumerate() {
        if seen.get(i) {
            // SAFETY: as the caller guarantees.
            unsafe { drop_value(field.layout.get(), dst.add(field.offset)) };
        }
    }
    for (j, skipped) in st.skipped.iter().enumerate() {
        if seen.get(st.fields.len() + j)
            && let Some(drop) = skipped.drop
        {
            // SAFETY: as the caller guarantees.
            unsafe { drop(dst.add(skipped.offset)) };
        }
    }
}

impl Parser<'_> {
    /// Initialises `skipped` fields of the value at `dst` (tuple structs, newtypes).
    /// If an initialiser panics, the fields initialised before are dropped and the
    /// error is `Panicked`.
    ///
    /// # Safety
    /// Each skipped field's offset names unwritten memory inside `dst`.
    pub(crate) unsafe fn init_skipped(
        &mut self,
        skipped: &[SkippedField],
        dst: *mut u8,
    ) -> Result<(), Error> {
        for (j, field) in skipped.iter().enumerate() {
            // SAFETY: as the caller guarantees.
            if !unsafe { (field.init)(dst.add(field.offset)) } {
                for done in &skipped[..j] {
                    if let Some(drop) = done.drop {
                        // SAFETY: initialised just above, dropped once.
                        unsafe { drop(dst.add(done.offset)) };
                    }
                }
                return Err(self.error(ErrorCode::Panicked, self.pos.saturating_sub(1)));
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// `#[serde(flatten)]`

/// A struct whose keys an object with flattened fields reads: the struct itself,
/// or a flattened struct at its offset (flattened structs nest).
struct Target {
    st: &'static StructLayout,
    base: *mut u8,
    seen: Seen,
    /// Its place in the flattening's tree, in pre-order ([`Deferred`]).
    order: usize,
    /// The flattened `Option` whose struct this is part of (an index into the
    /// groups), if any.
    group: Option<usize>,
}

/// A flattened map, which collects the keys no field claims.
struct RestMap {
    map: &'static MapLayout,
    layout: &'static TypeLayout,
    at: *mut u8,
    /// As [`Target::order`].
    order: usize,
    /// As [`Target::group`].
    group: Option<usize>,
}

/// A flattened enum, or a flattened field decoded by serde (`with`,
/// `deserialize_with`): decoded, once the object is read, from the members no
/// field claimed, as serde decodes it from the entries it buffered (an
/// externally tagged enum from the first member named after a variant; the
/// others from all of them, as an object).
struct RestValue {
    layout: &'static TypeLayout,
    at: *mut u8,
    /// As [`Target::group`].
    group: Option<usize>,
    /// Whether a value was written at `at` (dropped with its group's, or on
    /// an error).
    decoded: bool,
}

/// A flattened `Option<T>` of a struct `T`: `T` is decoded into `temp` with
/// the object's other keys; the option is `Some` if that succeeds, `None` if
/// it fails on the data (a wrong type, a missing or repeated field), as serde
/// gives `None` when `T` cannot be built from the keys it collected.
struct OptionGroup {
    option: &'static OptionLayout,
    /// Where the option lies (in the parent struct, or in an enclosing
    /// group's `temp`).
    at: *mut u8,
    temp: Temp,
    /// The enclosing group, for an option flattened inside another's struct.
    parent: Option<usize>,
    /// `T` failed: the option is `None`.
    failed: bool,
}

/// Heap room for one value of a layout; freed, never dropped, with the guard
/// (what was written there is dropped or moved out field by field).
struct Temp {
    ptr: *mut u8,
    layout: std::alloc::Layout,
}

impl Temp {
    fn new(of: &TypeLayout) -> Temp {
        let Ok(layout) = std::alloc::Layout::from_size_align(of.size.max(1), of.align) else {
            // A Rust type's size and alignment always form a valid layout.
            unreachable!("the layout of {} is invalid", of.expecting)
        };
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe { std::alloc::alloc(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Temp { ptr, layout }
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout, freed once.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

/// Whether group `g` (or a group enclosing it) failed: its struct's keys are
/// skipped and its option will be `None`.
fn dead(groups: &[OptionGroup], mut g: Option<usize>) -> bool {
    while let Some(i) = g {
        if groups[i].failed {
            return true;
        }
        g = groups[i].parent;
    }
    false
}

/// Whether an error inside a flattened option's struct makes the option
/// `None` rather than failing the decode: a data error (serde's `T` refusing
/// what it collected), not a syntax error, a panic or the depth limit.
fn fails_option(e: &Error) -> bool {
    e.classify() == Category::Data && !crate::kind::enum_::ends_search(e)
}

/// Whether a flattened field of `layout` can be decoded: a struct, an
/// `Option` of a struct, or a map whose keys are owned.
pub(crate) fn flattenable(layout: &'static TypeLayout) -> bool {
    match &peel_newtypes(layout).0.kind {
        // A field's own serde function reads what serde's flatten hands it:
        // the members no field claims, as a map.
        Kind::Struct(_) | Kind::Unit => true,
        Kind::Serde(serde) => !serde.borrows,
        Kind::Option(o) => flattenable_option(peel_newtypes(o.some.get()).0),
        Kind::Map(map) => flattenable_map(map),
        Kind::Enum(_) => flattenable_enum(layout),
        _ => false,
    }
}

/// What a flattened newtype (a tuple struct of one field, a `transparent`
/// struct, with no skipped field) holds, and its offset inside `layout`:
/// serde hands its inner type the flattened members, so it is flattened as
/// that type, at that offset.
fn peel_newtypes(mut layout: &'static TypeLayout) -> (&'static TypeLayout, usize) {
    let mut offset = 0;
    while let Kind::Newtype(n) = &layout.kind
        && n.skipped.is_empty()
    {
        offset += n.offset;
        layout = n.inner.get();
    }
    (layout, offset)
}

/// Whether a flattened `Option<T>` can be decoded: `T` a struct (`None` when
/// it cannot be built from the object's keys), a map with owned keys (`None`
/// when one of the entries it collects is refused) or an enum (`None` when it
/// cannot be decoded from them), as serde's flattened options.
fn flattenable_option(some: &'static TypeLayout) -> bool {
    match &some.kind {
        Kind::Struct(_) | Kind::Unit => true,
        Kind::Serde(serde) => !serde.borrows,
        Kind::Map(map) => flattenable_map(map),
        Kind::Enum(_) => flattenable_enum(some),
        _ => false,
    }
}

/// A flattened enum is decoded from text assembled from the object's
/// members, which does not outlive the decode: nothing in it may borrow.
///
/// Asked on every decode of a struct that flattens an enum, so the answer
/// for a Rust type is kept per thread ([`BORROWING`]): the enum of an API
/// model reaches hundreds of layouts, and walking them was most of such a
/// decode (octocrab's `WrappedEventPayload`).
fn flattenable_enum(layout: &'static TypeLayout) -> bool {
    let borrows = || {
        let mut borrows = false;
        jitson_core::layout::visit_reachable(layout, |l| {
            borrows |= l.kind.borrows_input();
        });
        borrows
    };
    // A layout built at run time is known by its address, which a later
    // layout may reuse: not kept.
    let LayoutId::Type(id) = layout.id() else {
        return !borrows();
    };
    let known = BORROWING
        .try_with(|known| known.try_borrow().ok()?.get(&id).copied())
        .ok()
        .flatten();
    let answer = known.unwrap_or_else(|| {
        let answer = borrows();
        let _ = BORROWING.try_with(|known| {
            if let Ok(mut known) = known.try_borrow_mut() {
                known.insert(id, answer);
            }
        });
        answer
    });
    !answer
}

std::thread_local! {
    /// Whether a flattened enum's type reaches a borrowed string, by type
    /// ([`flattenable_enum`]).
    static BORROWING: core::cell::RefCell<std::collections::HashMap<core::any::TypeId, bool>> =
        core::cell::RefCell::new(std::collections::HashMap::new());
}

/// A flattened map collects keys the input does not keep: borrowed keys
/// (`&str`) cannot be collected; every other key is parsed from the key's
/// text as a map's keys are.
fn flattenable_map(map: &MapLayout) -> bool {
    !map.key.get().kind.borrows_input()
}

/// Why `st`'s flattened `field` cannot be decoded, in
/// [`ErrorCode::UnsupportedType`]'s words.
#[cold]
pub(crate) fn unflattenable(st: &StructLayout, field: &str) -> String {
    format!(
        "can only flatten structs, maps with owned keys, enums that borrow nothing \
         and options of those (field `{field}` of {})",
        st.name
    )
}

/// Whether the encoder writes a flattened field of `layout` as members of the
/// enclosing object (the kinds `encode_flattened` takes).
pub(crate) fn encode_flattenable(layout: &'static TypeLayout) -> bool {
    match &layout.kind {
        Kind::Struct(_) | Kind::Map(_) | Kind::Unit | Kind::Enum(_) | Kind::Serde(_) => true,
        Kind::Newtype(n) => encode_flattenable(n.inner.get()),
        Kind::Box(b) => encode_flattenable(b.inner.get()),
        Kind::Option(o) => encode_flattenable(o.some.get()),
        _ => false,
    }
}

/// Why a flattened `field` of struct `st` cannot be encoded, in
/// [`ErrorCode::UnsupportedType`]'s words.
#[cold]
pub(crate) fn unencodable_flatten(st: &StructLayout, field: &str) -> String {
    format!(
        "can only flatten structs, maps, enums and options of those (field `{field}` of {})",
        st.name
    )
}

/// The structs, maps and options that read an object's keys, from `st` at
/// `base` down; `group` is the flattened option `st` belongs to. `Err` names
/// a flattened field of another type (serde refuses it at run time).
///
/// # Safety
/// `base` is room for `st`'s struct.
unsafe fn flatten_targets(
    st: &'static StructLayout,
    base: *mut u8,
    group: Option<usize>,
    targets: &mut Vec<Target>,
    maps: &mut Vec<RestMap>,
    rest_values: &mut Vec<RestValue>,
    groups: &mut Vec<OptionGroup>,
) -> Result<(), &'static str> {
    // Each part is numbered in the order it is pushed: the tree's pre-order.
    let order = |targets: &Vec<Target>, maps: &Vec<RestMap>, rest: &Vec<RestValue>| {
        targets.len() + maps.len() + rest.len()
    };
    targets.push(Target {
        st,
        base,
        seen: Seen::new(st.fields.len() + st.skipped.len()),
        order: order(targets, maps, rest_values),
        group,
    });
    for f in st.flatten {
        let (layout, held_at) = peel_newtypes(f.layout.get());
        // SAFETY: the flattened field, and a newtype's inner value, lie inside
        // the struct (the Decode contract).
        let at = unsafe { base.add(f.offset + held_at) };
        match &layout.kind {
            // A unit struct reads nothing, as serde's flattened unit.
            Kind::Unit => {}
            // SAFETY: `at` is room for the flattened struct.
            Kind::Struct(inner) => unsafe {
                flatten_targets(inner, at, group, targets, maps, rest_values, groups)?
            },
            Kind::Map(map) if flattenable_map(map) => maps.push(RestMap {
                map,
                layout,
                at,
                order: order(targets, maps, rest_values),
                group,
            }),
            // A value that borrows its text cannot be read from the members
            // collected for it (serde refuses to flatten a `&RawValue` too).
            Kind::Serde(serde) if !serde.borrows => rest_values.push(RestValue {
                layout,
                at,
                group,
                decoded: false,
            }),
            Kind::Enum(_) if flattenable_enum(layout) => rest_values.push(RestValue {
                layout,
                at,
                group,
                decoded: false,
            }),
            Kind::Option(option) => {
                // The option's value, and inside it what a newtype holds.
                let some = option.some.get();
                let (held, held_at) = peel_newtypes(some);
                if !flattenable_option(held) {
                    return Err(f.name);
                }
                let temp = Temp::new(some);
                // SAFETY: a newtype's value lies at its offset inside it.
                let base = unsafe { temp.ptr.add(held_at) };
                groups.push(OptionGroup {
                    option,
                    at,
                    temp,
                    parent: group,
                    failed: false,
                });
                let g = Some(groups.len() - 1);
                match &held.kind {
                    // A unit struct reads nothing: always `Some`, as serde's.
                    Kind::Unit => {}
                    // SAFETY: `base` is room for the option's struct.
                    Kind::Struct(inner) => unsafe {
                        flatten_targets(inner, base, g, targets, maps, rest_values, groups)?
                    },
                    Kind::Enum(_) | Kind::Serde(_) => rest_values.push(RestValue {
                        layout: held,
                        at: base,
                        group: g,
                        decoded: false,
                    }),
                    // A map under an option collects what a map would; the
                    // option is `None` if one of its entries is refused.
                    Kind::Map(map) => maps.push(RestMap {
                        map,
                        layout: held,
                        at: base,
                        order: order(targets, maps, rest_values),
                        group: g,
                    }),
                    _ => unreachable!("checked by flattenable_option"),
                }
            }
            _ => return Err(f.name),
        }
    }
    Ok(())
}

/// The [`SlotFn`](jitson_core::layout::SlotFn) that moves a flattened
/// option's struct from its temporary into the option's `Some`.
///
/// # Safety
/// `ctx` points to the `Temp` holding a live value of the slot's type, which
/// is moved out (not used again).
unsafe extern "C" fn move_from_temp(ctx: *mut core::ffi::c_void, slot: *mut u8) -> bool {
    // SAFETY: as the caller (`resolve_options`) guarantees; the slot is room
    // for a value of the same type, so `layout.size` bytes (or fewer, for a
    // zero-sized type padded to one) fit it.
    unsafe {
        let temp = &*ctx.cast::<(*mut u8, usize)>();
        core::ptr::copy_nonoverlapping(temp.0, slot, temp.1);
    }
    true
}

impl Parser<'_> {
    /// A JSON object into a struct with flattened fields, in one pass: each key
    /// goes to the first struct (this one, then the flattened ones in declaration
    /// order) with a field of that name, else to every flattened map, else is
    /// skipped. Then each struct's absent fields are filled, as for any struct,
    /// and each flattened option is `Some` or `None`.
    ///
    /// # Safety
    /// As for `decode_struct`.
    unsafe fn decode_flattening(
        &mut self,
        layout: &'static TypeLayout,
        st: &'static StructLayout,
        dst: *mut u8,
    ) -> Result<(), Error> {
        let skip_key = self.skip_key.take();
        let (mut targets, mut maps, mut groups) = (Vec::new(), Vec::new(), Vec::new());
        let mut rest_values = Vec::new();
        // SAFETY: `dst` is room for the struct (caller).
        let found = unsafe {
            flatten_targets(
                st,
                dst,
                None,
                &mut targets,
                &mut maps,
                &mut rest_values,
                &mut groups,
            )
        };
        if let Err(field) = found {
            self.peek_value()?;
            let why = unflattenable(st, field).into();
            return Err(self.error(ErrorCode::UnsupportedType(why), self.pos));
        }
        self.peek_value()?;
        let empty = self.begin_map(layout)?;
        let mut made = 0;
        for m in &maps {
            // SAFETY: `at` is room for the map (inside the struct or a temporary).
            if !unsafe { (m.map.new)(m.at) } {
                break;
            }
            made += 1;
        }
        let result = if made < maps.len() {
            Err(self.error(ErrorCode::Panicked, self.pos))
        } else if empty {
            Ok((Vec::new(), Deferred::default()))
        } else {
            let mut flat = Flattened {
                targets: &mut targets,
                maps: &maps,
                groups: &mut groups,
                collected: (!rest_values.is_empty()).then(Vec::new),
                rest_values: &rest_values,
                taken: vec![false; rest_values.len()],
                deferred: Deferred::default(),
            };
            // SAFETY: forwarded from the caller; `targets` record what was written.
            let read = unsafe { self.decode_flattened_members(&mut flat, skip_key, st) };
            read.map(|()| (flat.collected.unwrap_or_default(), flat.deferred))
        };
        let result = result.and_then(|(collected, mut deferred)| {
            for t in &mut targets {
                // An error of this part, or of a part before it: serde builds
                // this one after them (a flattened map is built after its
                // struct's missing fields, before the next struct's).
                if let Some(e) = deferred.take_up_to(t.order) {
                    return Err(e);
                }
                if dead(&groups, t.group) {
                    continue;
                }
                // SAFETY: each target is room for its struct; `seen` says what is set.
                match unsafe { self.finish_struct(t.st, t.base, &mut t.seen) } {
                    Ok(()) => {}
                    Err(e) => match t.group {
                        Some(g) if fails_option(&e) => groups[g].failed = true,
                        _ => return Err(e),
                    },
                }
            }
            if let Some(e) = deferred.take_up_to(Deferred::LAST - 1) {
                return Err(e);
            }
            for e in &mut rest_values {
                if dead(&groups, e.group) {
                    continue;
                }
                // SAFETY: `at` is room for the enum (in the struct or a temporary).
                match unsafe { self.decode_rest_value(e.layout, e.at, &collected) } {
                    Ok(()) => e.decoded = true,
                    Err(err) => match e.group {
                        Some(g) if fails_option(&err) => groups[g].failed = true,
                        _ => return Err(err),
                    },
                }
            }
            deferred.take_up_to(Deferred::LAST).map_or(Ok(()), Err)
        });
        self.leave();
        match result {
            // SAFETY: every target, map and enum is written as `seen`, `made`
            // and `decoded` say.
            Ok(()) => unsafe { resolve_options(&mut targets, &maps, &rest_values, &groups) },
            Err(_) => {
                for t in &mut targets {
                    // SAFETY: exactly the fields marked in `seen` are live.
                    unsafe { drop_written(t.st, t.base, &mut t.seen) };
                }
                for m in &maps[..made] {
                    // SAFETY: the map was created above and is dropped once.
                    unsafe { drop_value(m.layout, m.at) };
                }
                for e in rest_values.iter().filter(|e| e.decoded) {
                    // SAFETY: the enum was decoded above and is dropped once.
                    unsafe { drop_value(e.layout, e.at) };
                }
            }
        }
        result
    }

    /// The members of a non-empty object with flattened fields, up to `}`.
    ///
    /// # Safety
    /// As for `decode_struct`; the maps are live.
    unsafe fn decode_flattened_members(
        &mut self,
        flat: &mut Flattened<'_>,
        skip_key: Option<&'static str>,
        st: &'static StructLayout,
    ) -> Result<(), Error> {
        let mut skipped_tag = false;
        loop {
            let key_start = self.pos;
            let key: Vec<u8> = match self.parse_str_located()? {
                StrText::Scratch => self.scratch.clone(),
                StrText::Borrowed { start, end } => self.input[start..end].to_vec(),
            };
            let is_tag = skip_key.is_some_and(|k| k.as_bytes() == key.as_slice());
            // serde refuses a second tag as soon as it reads the key.
            if is_tag && skipped_tag {
                let tag = skip_key.unwrap_or_default();
                return Err(self.error(ErrorCode::DuplicateField(tag), key_start));
            }
            let mut found = flat.targets.iter_mut().enumerate().find_map(|(n, t)| {
                if is_tag {
                    return None;
                }
                let i = t.st.fields.iter().position(|f| f.matches(&key))?;
                Some((n, t, i))
            });
            // So is the object's own field (the first target's): the keys of
            // the flattened parts are buffered, colon and value, first.
            if let Some((0, t, i)) = &mut found
                && t.seen.get(*i)
            {
                let name = t.st.fields[*i].name;
                return Err(self.error(ErrorCode::DuplicateField(name), key_start));
            }
            self.parse_object_colon()?;
            let value_start = text_start(self);
            if let Some((n, t, i)) = found {
                let field = &t.st.fields[i];
                if dead(flat.groups, t.group) {
                    // The option is `None` already: its keys are skipped.
                    self.ignore_member_value_as_parsed(key_start)?;
                } else if t.seen.get(i) {
                    // A flattened part's key, one serde buffered (the object's
                    // own were refused above).
                    let e = self.error(ErrorCode::DuplicateField(field.name), key_start);
                    match t.group {
                        Some(g) => flat.groups[g].failed = true,
                        None => flat.deferred.keep(t.order, e),
                    }
                    self.ignore_member_value_as_parsed(key_start)?;
                } else {
                    // serde buffers what the container's own fields do not
                    // claim: a flattened struct's fields are read from that.
                    let buffered = u32::from(n > 0);
                    self.buffered += buffered;
                    // SAFETY: the field lies inside its struct (the Decode contract).
                    let r =
                        unsafe { self.decode_value(field.layout.get(), t.base.add(field.offset)) };
                    self.buffered -= buffered;
                    match (r, t.group) {
                        (Ok(()), _) => t.seen.set(i),
                        (Err(e), Some(g)) if fails_option(&e) => {
                            flat.groups[g].failed = true;
                            self.pos = value_start;
                            self.ignore_member_value_as_parsed(key_start)?;
                        }
                        // serde decodes the container's own fields in place but
                        // buffers the rest, decoding it after the whole object.
                        (Err(e), _) => {
                            let e = self.place(at_segment(e, || PathSegment::Field(field.name)));
                            if n == 0 || !fails_option(&e) {
                                return Err(e);
                            }
                            flat.deferred.keep(t.order, e);
                            self.pos = value_start;
                            self.ignore_member_value_as_parsed(key_start)?;
                        }
                    }
                }
            } else if is_tag {
                skipped_tag = true;
                self.ignore_value()?;
            } else if !flat.maps.is_empty() || flat.collected.is_some() {
                let taken = flat.take(&key);
                if !taken && flat.maps.is_empty() && !flat.reads_all() && st.deny_unknown_fields {
                    self.keep_unknown(flat, &key, key_start);
                }
                if taken || flat.maps.is_empty() {
                    self.ignore_member_value_as_parsed(key_start)?;
                } else {
                    // SAFETY: forwarded from the caller.
                    unsafe { self.insert_rest(flat, &key, key_start, value_start)? };
                }
                // The member, for the rest values (`pos` is after its value).
                if let Some(collected) = &mut flat.collected {
                    collected.push(Member {
                        key: key.into_boxed_slice(),
                        text: key_start..self.pos,
                    });
                }
            } else if st.deny_unknown_fields {
                self.keep_unknown(flat, &key, key_start);
                self.ignore_member_value_as_parsed(key_start)?;
            } else {
                // serde buffers what a flattening struct does not claim.
                self.ignore_member_value_as_parsed(key_start)?;
            }
            if let AfterMember::End = self.end_map_member()? {
                return Ok(());
            }
        }
    }

    /// An unknown `key` at `key_start` of a flattening object that denies
    /// them: serde checks what is left of its buffer last, once every part is
    /// built, and lists no fields for a struct with flattened ones.
    fn keep_unknown(&mut self, flat: &mut Flattened<'_>, key: &[u8], key_start: usize) {
        let name = String::from_utf8_lossy(key).into();
        let expected = Box::default();
        let e = self.error(ErrorCode::UnknownField { name, expected }, key_start);
        flat.deferred.keep(Deferred::LAST, e);
    }

    /// A member no field claims, into every flattened map (as in serde): the
    /// key's text for string keys, else the key parsed from it as a map
    /// parses its keys. `pos` ends after the value.
    ///
    /// # Safety
    /// The maps are live.
    unsafe fn insert_rest(
        &mut self,
        flat: &mut Flattened<'_>,
        key: &[u8],
        key_start: usize,
        value_start: usize,
    ) -> Result<(), Error> {
        let mut end = None;
        for m in flat.maps {
            if dead(flat.groups, m.group) {
                continue;
            }
            // A collected value is one serde buffered.
            self.buffered += 1;
            let r = if m.map.has_text_keys() {
                self.pos = value_start;
                let value = m.map.value.get();
                // SAFETY: `insert_with` hands the callback a slot for `value`;
                // the key is UTF-8 (a parsed JSON string) and outlives the call.
                unsafe {
                    self.decode_through(value, |decode, ctx| {
                        (m.map.insert_with)(m.at, key.as_ptr(), key.len(), decode, ctx)
                    })
                }
                .map_err(|e| {
                    at_segment(e, || PathSegment::Key(String::from_utf8_lossy(key).into()))
                })
            } else {
                self.pos = key_start;
                // SAFETY: the map is live (caller); `pos` is at the key's quote.
                unsafe { self.insert_parsed_key(m.map, m.at) }
            };
            self.buffered -= 1;
            match (r, m.group) {
                (Ok(()), _) => end = Some(self.pos),
                (Err(e), Some(g)) if fails_option(&e) => flat.groups[g].failed = true,
                // A value serde buffered: built into the map after the object.
                (Err(e), None) if fails_option(&e) => flat.deferred.keep(m.order, self.place(e)),
                (Err(e), _) => return Err(self.place(e)),
            }
        }
        match end {
            Some(end) => self.pos = end,
            None => {
                self.pos = value_start;
                self.ignore_member_value_as_parsed(key_start)?;
            }
        }
        Ok(())
    }
}

/// What the members of an object with flattened fields are read into.
struct Flattened<'f> {
    targets: &'f mut [Target],
    maps: &'f [RestMap],
    groups: &'f mut [OptionGroup],
    /// The members no field claimed, in order, when an enum is flattened.
    collected: Option<Vec<Member>>,
    /// The rest values (flattened enums and serde functions), and which externally
    /// tagged ones took their member.
    rest_values: &'f [RestValue],
    taken: Vec<bool>,
    /// The first error of a flattened part, reported after the object.
    deferred: Deferred,
}

/// The error serde reports first among those a flattening object's flattened
/// structs and maps meet. serde reads the object's own fields as it goes, but
/// builds each flattened part from what it buffered once the object is read:
/// after the object's own missing fields, part after part in declaration
/// order, depth first (the parts' pre-order, [`Target::order`]), each part's
/// values before its own missing fields. So a data error in a flattened part
/// is kept here, with its part's place, and the members are read on (a syntax
/// error anywhere still comes first, as serde parses the whole object before
/// building any flattened part).
#[derive(Default)]
struct Deferred(Option<(usize, Error)>);

impl Deferred {
    /// The place of an unknown member's error: after every part.
    const LAST: usize = usize::MAX;

    /// Keeps `e`, met in the part at `order`, unless an error of that part or
    /// of one before it is kept already (within a part, the first one met is
    /// serde's: it builds the part from the members in their order).
    fn keep(&mut self, order: usize, e: Error) {
        if self.0.as_ref().is_none_or(|(kept, _)| order < *kept) {
            self.0 = Some((order, e));
        }
    }

    /// The kept error, if its part comes at or before `order`.
    fn take_up_to(&mut self, order: usize) -> Option<Error> {
        match self.0 {
            Some((kept, _)) if kept <= order => self.0.take().map(|(_, e)| e),
            _ => None,
        }
    }
}

impl Flattened<'_> {
    /// Whether a flattened externally or adjacently tagged enum takes the
    /// member named `key` from the maps, as serde's `flat_map_take_entry`
    /// takes it from its buffer: an adjacently tagged one every member named
    /// as its tag or content, an externally tagged one the first member named
    /// after one of its variants.
    fn take(&mut self, key: &[u8]) -> bool {
        for (e, taken) in self.rest_values.iter().zip(&mut self.taken) {
            let Kind::Enum(en) = &e.layout.kind else {
                continue;
            };
            match en.tagging {
                Tagging::External if !*taken && en.variants.iter().any(|v| v.matches(key)) => {
                    *taken = true;
                    return true;
                }
                Tagging::Adjacent { tag, content }
                    if tag.as_bytes() == key || content.as_bytes() == key =>
                {
                    return true;
                }
                _ => {}
            }
        }
        false
    }

    /// Whether a flattened value reads every member no field claims (an
    /// internally tagged or untagged enum, a serde function): then no member
    /// is unknown.
    fn reads_all(&self) -> bool {
        self.rest_values.iter().any(|e| match &e.layout.kind {
            Kind::Enum(en) => matches!(en.tagging, Tagging::Internal { .. } | Tagging::Untagged),
            _ => true,
        })
    }
}

/// A member of an object: its key (unescaped) and its text in the input,
/// from the key's quote to the end of its value.
struct Member {
    key: Box<[u8]>,
    text: core::ops::Range<usize>,
}

impl Parser<'_> {
    /// A [`RestValue`], from the members its object left over: for an
    /// externally tagged enum the first one named after a variant (serde's
    /// `FlatMapDeserializer::deserialize_enum`), for an adjacently tagged one
    /// its tag and content (`deserialize_struct`), for the others all of
    /// them (`deserialize_map`); decoded from that text, as one object, as
    /// the layout decodes any. An error is reported at the end of the
    /// object, where serde reports what it decodes from its buffer.
    ///
    /// # Safety
    /// `at` is room for a value of `layout`, an enum or a serde layout.
    unsafe fn decode_rest_value(
        &mut self,
        layout: &'static TypeLayout,
        at: *mut u8,
        members: &[Member],
    ) -> Result<(), Error> {
        let chosen: Vec<&Member> = match &layout.kind {
            // serde reads an adjacently tagged enum as a struct of its two
            // members (`deserialize_struct`), so it sees no other member.
            Kind::Enum(en) if matches!(en.tagging, Tagging::Adjacent { .. }) => {
                let Tagging::Adjacent { tag, content } = en.tagging else {
                    unreachable!("matched above")
                };
                let ours = |m: &&Member| *m.key == *tag.as_bytes() || *m.key == *content.as_bytes();
                members.iter().filter(ours).collect()
            }
            Kind::Enum(en) if matches!(en.tagging, Tagging::External) => {
                let named = |m: &&Member| en.variants.iter().any(|v| v.matches(&m.key));
                match members.iter().find(named) {
                    Some(member) => vec![member],
                    None => {
                        let text =
                            format!("no variant of enum {} found in flattened data", en.name);
                        return Err(self.error(ErrorCode::Conversion(text.into()), self.pos));
                    }
                }
            }
            // Other enums and serde's functions read every member.
            _ => members.iter().collect(),
        };
        let mut text =
            Vec::with_capacity(2 + chosen.iter().map(|m| m.text.len() + 1).sum::<usize>());
        text.push(b'{');
        for (i, member) in chosen.iter().enumerate() {
            if i > 0 {
                text.push(b',');
            }
            text.extend_from_slice(&self.input[member.text.clone()]);
        }
        text.push(b'}');
        let options = crate::Options {
            max_depth: self.remaining_depth,
            // Validated as the object was read.
            validate_utf8: false,
        };
        let mut first = jitson_core::elements::FirstChunk::new();
        let mut buffer = Parser::new(&text, &options, self.stack_limit, &mut first);
        buffer.buffered = self.buffered + 1;
        // SAFETY: as the caller guarantees; `text` is valid UTF-8 (members of
        // a validated object, joined by ASCII) and nothing decoded borrows
        // from it (`flattenable_enum`).
        let result = unsafe { buffer.decode_value(layout, at) };
        result.map_err(|e| self.place(e.moved_to_offset(self.pos)))
    }
}

/// Once the object is read: each flattened option becomes `Some` (its struct
/// moved out of its temporary) or, if it failed, `None` (what its struct and
/// maps hold dropped). Innermost first: an inner option lies in the outer's
/// temporary.
///
/// # Safety
/// Every target holds exactly the fields its `seen` marks, every map is live,
/// and every target of a group that is not dead is complete.
unsafe fn resolve_options(
    targets: &mut [Target],
    maps: &[RestMap],
    rest_values: &[RestValue],
    groups: &[OptionGroup],
) {
    for (g, group) in groups.iter().enumerate().rev() {
        // SAFETY (both arms): as the caller guarantees; `at` is room for the
        // option.
        unsafe {
            if dead(groups, Some(g)) {
                for t in targets.iter_mut().filter(|t| t.group == Some(g)) {
                    drop_written(t.st, t.base, &mut t.seen);
                }
                for m in maps.iter().filter(|m| m.group == Some(g)) {
                    drop_value(m.layout, m.at);
                }
                for e in rest_values
                    .iter()
                    .filter(|e| e.group == Some(g) && e.decoded)
                {
                    drop_value(e.layout, e.at);
                }
                (group.option.write_none)(group.at);
            } else {
                let mut from = (group.temp.ptr, group.option.some.get().size);
                let moved =
                    (group.option.decode_some)(group.at, move_from_temp, (&raw mut from).cast());
                debug_assert!(moved, "moving a value out of its temporary cannot fail");
            }
        }
    }
}

/// Where the next value starts (after whitespace).
fn text_start(parser: &Parser<'_>) -> usize {
    jitson_core::text::skip_ws(parser.input, parser.pos)
}

// ---------------------------------------------------------------------------
// Encoding

impl crate::encode::Emitter<'_> {
    /// A struct as a JSON object: its fields in declaration order, those whose
    /// `skip_serializing_if` says so left out, flattened fields' members where
    /// the field is declared.
    ///
    /// # Safety
    /// `src` points to a value of the struct.
    pub(crate) unsafe fn encode_struct(
        &mut self,
        layout: &'static TypeLayout,
        st: &StructLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        self.begin(layout, b'{')?;
        let mut first = true;
        // SAFETY: as the caller guarantees.
        unsafe { self.encode_members(st, src, &mut first)? };
        self.end(b'}', !first);
        Ok(())
    }

    /// A struct's members, written into the object being written (the
    /// struct's own, a parent's for a flattened struct, an internally tagged
    /// enum's after its tag); `first` tells whether a member came before.
    ///
    /// # Safety
    /// `src` points to a value of the struct.
    pub(crate) unsafe fn encode_members(
        &mut self,
        st: &StructLayout,
        src: *const u8,
        first: &mut bool,
    ) -> Result<(), Error> {
        if st.flatten.is_empty() {
            for field in st.fields {
                // SAFETY: as the caller guarantees.
                unsafe { self.encode_field(field, src, first)? };
            }
            return Ok(());
        }
        let mut flatten = st.flatten.iter().peekable();
        for (i, field) in st.fields.iter().enumerate() {
            while let Some(f) = flatten.next_if(|f| f.position <= i) {
                // SAFETY: the flattened field lies at its offset.
                unsafe { self.encode_flattened(f.layout.get(), src.add(f.offset), first) }
                    .map_err(|e| at_segment(e, || PathSegment::Field(f.name)))?;
            }
            // SAFETY: as the caller guarantees.
            unsafe { self.encode_field(field, src, first)? };
        }
        for f in flatten {
            // SAFETY: the flattened field lies at its offset.
            unsafe { self.encode_flattened(f.layout.get(), src.add(f.offset), first) }
                .map_err(|e| at_segment(e, || PathSegment::Field(f.name)))?;
        }
        Ok(())
    }

    /// One field of the struct at `src` as a member, unless its
    /// `skip_serializing_if` says to leave it out.
    ///
    /// # Safety
    /// `src` points to a value of the struct `field` belongs to.
    #[inline(always)]
    unsafe fn encode_field(
        &mut self,
        field: &Field,
        src: *const u8,
        first: &mut bool,
    ) -> Result<(), Error> {
        // SAFETY: the field lies at its offset inside the struct.
        let value = unsafe { src.add(field.offset) };
        // SAFETY: the predicate reads the live field.
        if unsafe { crate::encode::skipped(field.skip_if, value)? } {
            return Ok(());
        }
        self.member(*first, field.name);
        *first = false;
        // SAFETY: as above.
        unsafe { self.encode_field_value(field.layout.get(), value) }
            .map_err(|e| at_segment(e, || PathSegment::Field(field.name)))
    }

    /// A field's value: [`encode_value`](Self::encode_value), with the
    /// commonest fields of small structs (strings, 64-bit integers such as
    /// citm's ids, floats, options, nested structs) written without the
    /// dispatch on the kind.
    ///
    /// # Safety
    /// As for `encode_value`.
    #[inline(always)]
    unsafe fn encode_field_value(
        &mut self,
        layout: &'static TypeLayout,
        src: *const u8,
    ) -> Result<(), Error> {
        // SAFETY (all): forwarded from the caller.
        unsafe {
            match &layout.kind {
                Kind::String(s) => self.encode_string(layout, s, src),
                Kind::U64 => self.encode_int::<u64>(src),
                Kind::I64 => self.encode_int::<i64>(src),
                Kind::F64 => self.encode_f64(src),
                Kind::Option(o) => self.encode_option(o, src),
                Kind::Struct(st) => self.encode_struct(layout, st, src),
                _ => self.encode_value(layout, src),
            }
        }
    }

    /// A flattened field's members: a struct's fields or a map's entries
    /// (through newtypes, boxes and options; `None` writes nothing, as serde).
    ///
    /// # Safety
    /// `src` points to a value of `layout`.
    pub(crate) unsafe fn encode_flattened(
        &mut self,
        layout: &'static TypeLayout,
        src: *const u8,
        first: &mut bool,
    ) -> Result<(), Error> {
        // SAFETY (all arms): as the caller guarantees.
        unsafe {
            match &layout.kind {
                Kind::Struct(st) => self.encode_members(st, src, first),
                Kind::Map(map) => self.encode_entries(layout, map, src, first),
                Kind::Newtype(n) => self.encode_flattened(n.inner.get(), src.add(n.offset), first),
                Kind::Box(b) => self.encode_flattened(b.inner.get(), (b.get)(src), first),
                Kind::Option(o) => {
                    let some = (o.get)(src);
                    if some.is_null() {
                        Ok(())
                    } else {
                        self.encode_flattened(o.some.get(), some, first)
                    }
                }
                Kind::Unit => Ok(()),
                Kind::Enum(e) => self.encode_flattened_enum(layout, e, src, first),
                Kind::Serde(s) => self.encode_flattened_serde(layout, s, src, first),
                // Refused by `warm_up_encode` before any value
                // (`unsupported_encode`); here for a caller that skipped it.
                _ => Err(crate::encode::encode_error(ErrorCode::UnsupportedType(
                    format!(
                        "can only flatten structs, maps, enums and options of those (got {})",
                        layout.expecting
                    )
                    .into_boxed_str(),
                ))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Seen;

    /// `all_below(n)` against setting and reading bits one by one, for every
    /// count the inline words hold and a spilled set.
    #[test]
    fn all_below_agrees_with_each_bit() {
        for bits in [0usize, 1, 5, 63, 64, 65, 100, 127, 128, 129, 200] {
            for n in 0..=bits {
                for missing in (0..n).chain([usize::MAX]) {
                    let mut seen = Seen::new(bits);
                    for i in (0..n).filter(|&i| i != missing) {
                        seen.set(i);
                    }
                    let each = (0..n).all(|i| seen.get(i));
                    let all = seen.all_below(n);
                    // `all_below` may say no for a spilled set; never yes wrongly.
                    assert!(!all || each, "bits {bits} n {n} missing {missing}");
                    if bits <= 128 {
                        assert_eq!(all, each, "bits {bits} n {n} missing {missing}");
                    }
                }
            }
        }
    }
}
