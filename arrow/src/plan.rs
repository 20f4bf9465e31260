//! A run-time schema lowered to jitson layouts, and filled columns turned into
//! Arrow arrays.
//!
//! [`Plan::new`] walks an Arrow [`Schema`] once and builds, for every field, a
//! column layout ([`ColumnLayout`]) over the value kind jitson already has for
//! that type (`i64`, `f64`, a string, a record). The layouts live in the plan's
//! arena and are handed to the backends as `&'static` references: the plan owns
//! them, and everything that holds such a reference (the compiled code, the
//! decoders) is owned by or borrows the plan, so none outlives it. Dropping the
//! last handle to a plan frees its layouts and its machine code.

use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, make_array};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer};
use arrow_data::ArrayDataBuilder;
use arrow_schema::{ArrowError, DataType, Field, Fields, SchemaRef, TimeUnit};
use core::ffi::c_void;

use jitson_core::column::{
    Column, ColumnLayout, Conflict, ParseFn, ParsedLayout, Shape, Store, column_abandon_row,
    column_append_text, column_node, column_pop, column_push_null, node,
};
use jitson_core::decode::{HasLayout, layout_of};
use jitson_core::layout::{
    DuplicateKeys, Kind, LayoutRef, MapLayout, SkipMode, SkippedField, SlotFn, StringLayout,
    StructLayout, TupleElem, TupleLayout, TypeLayout,
};
use jitson_core::raw::IgnoredAny;

use crate::parse;

/// How values are read (the [`ReaderBuilder`](crate::ReaderBuilder) options that
/// shape the layouts).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Policy {
    pub strict: bool,
    /// `with_strict_parsing`: serde_json's rules for values instead of
    /// arrow-json's (no second, looser reading; repeated keys are errors).
    pub strict_parsing: bool,
    pub coerce_primitive: bool,
    pub conflict: Conflict,
    /// `with_struct_mode(ListOnly)`: records and structs are JSON arrays of
    /// their fields' values, in field order, exactly one per field.
    pub list_structs: bool,
    /// `with_validate_skipped(false)`: the values of keys that name no column
    /// are matched by brackets, not validated ([`SkipMode::Brackets`]).
    pub skip_unchecked: bool,
}

/// Text appended to a text column.
static TEXT: StringLayout = StringLayout {
    write: column_append_text,
    read: None,
};
static TEXT_VALUE: TypeLayout = node("a string", 0, 1, Kind::String(&TEXT));

/// A schema lowered for decoding. See the module docs for ownership.
pub(crate) struct Plan {
    /// The compiled decoder, when the JIT runs. Declared first, so dropped before
    /// the layouts it was compiled from.
    #[cfg(feature = "jit")]
    pub jit: Option<crate::backend::Jit>,
    /// The record layout: a struct whose field `i` is column `i`.
    pub root: &'static TypeLayout,
    /// The schema.
    pub schema: SchemaRef,
    /// Each top-level value is a row of the schema's one field
    /// (`ReaderBuilder::new_with_field`), rather than a record of its fields.
    pub is_field: bool,
    /// Records are arrays of their fields' values (`StructMode::ListOnly`).
    pub list_structs: bool,
    /// The options the layouts were lowered with.
    pub policy: Policy,
    /// Empty columns of the right shapes, cloned for every decoder.
    template: Vec<ColumnTemplate>,
    /// Column layouts by type and nullability, shared between columns.
    /// (with how many columns, nested ones included, each stands for).
    shared: HashMap<(DataType, bool), (&'static TypeLayout, ColumnTemplate, usize)>,
    arena: Vec<Box<dyn Any + Send + Sync>>,
}

/// What is needed to make an empty [`Column`] of one field.
#[derive(Clone, Debug)]
struct ColumnTemplate {
    shape: Shape,
    width: usize,
    children: Vec<ColumnTemplate>,
}

impl ColumnTemplate {
    fn build(&self) -> Column {
        Column::new(
            self.shape,
            self.width,
            self.children.iter().map(ColumnTemplate::build).collect(),
        )
    }
}

/// A field of a record struct, again.
fn copy_field(f: &jitson_core::layout::Field) -> jitson_core::layout::Field {
    jitson_core::layout::Field {
        name: f.name,
        aliases: f.aliases,
        offset: f.offset,
        layout: f.layout,
        default: f.default,
        skip_if: f.skip_if,
    }
}

/// The `default` of a record key that names no column
/// ([`ReaderBuilder::with_record_keys`](crate::ReaderBuilder::with_record_keys)):
/// absent, nothing to do.
unsafe extern "C" fn ignored_absent(_dst: *mut u8) -> bool {
    true
}

/// More columns than this are refused: every record struct keeps a bitmap of
/// its fields, and a schema of a million columns is a mistake, not data.
pub const MAX_COLUMNS: usize = 1 << 16;

impl Plan {
    /// Lowers `schema`: records of its fields, or, when `is_field`, values of
    /// its one field. Errors name the first field whose type is not supported.
    pub fn new(
        schema: SchemaRef,
        policy: Policy,
        is_field: bool,
        record_keys: &[String],
    ) -> Result<Plan, ArrowError> {
        let mut plan = Plan {
            #[cfg(feature = "jit")]
            jit: None,
            root: &TEXT_VALUE,
            schema: schema.clone(),
            is_field,
            list_structs: policy.list_structs,
            policy,
            template: Vec::new(),
            shared: HashMap::new(),
            arena: Vec::new(),
        };
        let mut count = 0;
        let (root, template) = match (is_field, schema.fields().first()) {
            (true, Some(field)) => {
                let (layout, template) = plan.column(field, policy, &mut count)?;
                (layout, vec![template])
            }
            _ => {
                let (layout, template) =
                    plan.record(schema.fields(), "record", policy, &mut count)?;
                (plan.with_record_keys(layout, record_keys, policy), template)
            }
        };
        plan.root = root;
        plan.template = template;
        Ok(plan)
    }

    /// Empty columns for the schema's fields.
    pub fn columns(&self) -> Vec<Column> {
        self.template.iter().map(ColumnTemplate::build).collect()
    }

    /// Moves `value` into the arena and returns a reference to it.
    fn keep<T: Send + Sync + 'static>(&mut self, value: T) -> &'static T {
        let boxed = Box::new(value);
        let ptr: *const T = &*boxed;
        self.arena.push(boxed);
        // SAFETY: the box's contents never move and live until the plan drops;
        // every holder of the reference is owned by or borrows the plan (module
        // docs), so none outlives it.
        unsafe { &*ptr }
    }

    fn keep_str(&mut self, s: &str) -> &'static str {
        self.keep(s.to_owned()).as_str()
    }

    fn record(
        &mut self,
        fields: &Fields,
        name: &str,
        policy: Policy,
        count: &mut usize,
    ) -> Result<(&'static TypeLayout, Vec<ColumnTemplate>), ArrowError> {
        let mut layouts = Vec::with_capacity(fields.len());
        let mut templates = Vec::with_capacity(fields.len());
        // A name that repeats (Arrow allows it) names the first column of it
        // only, as in arrow-json, whose later ones are always null: they are
        // never read from JSON (positional in list mode, where every column
        // is read).
        let mut repeats = Vec::new();
        let mut names = std::collections::HashSet::new();
        for (i, field) in fields.iter().enumerate() {
            let (layout, template) = self.column(field, policy, count)?;
            templates.push(template);
            if !policy.list_structs && !names.insert(field.name()) {
                if !field.is_nullable() {
                    return Err(ArrowError::SchemaError(format!(
                        "column {i} of struct {name} repeats the name `{}` and is not nullable: \
                         keys of that name fill the first column of it, so this one could \
                         only be null",
                        field.name()
                    )));
                }
                repeats.push(SkippedField {
                    name: self.keep_str(field.name()),
                    offset: i * size_of::<Column>(),
                    init: column_push_null,
                    drop: Some(column_pop),
                });
                continue;
            }
            layouts.push(jitson_core::layout::Field {
                name: self.keep_str(field.name()),
                aliases: &[],
                offset: i * size_of::<Column>(),
                layout: LayoutRef::Node(layout),
                // A `Null` column's every row is null, non-nullable or not
                // (arrow-json reads an absent key there as a null row).
                default: if field.is_nullable() || field.data_type() == &DataType::Null {
                    Some(column_push_null)
                } else {
                    None
                },
                skip_if: None,
            });
        }
        let name = self.keep_str(name);
        if policy.list_structs {
            // Positional: element `i` is column `i`. Every element is
            // required (arrow-json: "found 1 columns for 2 fields"), so the
            // fields' defaults are not used.
            let elems = layouts
                .iter()
                .map(|f| TupleElem {
                    offset: f.offset,
                    layout: f.layout,
                    skip_if: None,
                    default: None,
                })
                .collect::<Vec<_>>();
            let expecting_len = self.keep_str(&format!(
                "an array of {} values (struct {name} in list mode)",
                fields.len()
            ));
            let elems = self.keep(elems);
            let tuple = self.keep(TupleLayout {
                elems,
                skipped: &[],
                expecting_len,
            });
            let expecting = self.keep_str(&format!("struct {name} as an array"));
            // Size 0, as below.
            let layout = self.keep(node(expecting, 0, align_of::<Column>(), Kind::Tuple(tuple)));
            return Ok((layout, templates));
        }
        let fields = self.keep(layouts);
        let skipped = self.keep(repeats);
        let st = self.keep(StructLayout {
            name,
            fields,
            skipped,
            deny_unknown_fields: policy.strict,
            duplicate_keys: if policy.strict_parsing {
                DuplicateKeys::Error
            } else {
                DuplicateKeys::LastWins
            },
            skip_unknown: if policy.skip_unchecked {
                SkipMode::Brackets
            } else {
                SkipMode::Validate
            },
            flatten: &[],
        });
        let expecting = self.keep_str(&format!("struct {name}"));
        // Size 0: a record is never a value in a stack temporary (it is decoded
        // straight into its columns), so entering one reserves no stack for it
        // (`jitson_core::stack::level_reserve`); with its true size, records of
        // ~10,000 columns were refused on a 2 MiB stack.
        let layout = self.keep(node(expecting, 0, align_of::<Column>(), Kind::Struct(st)));
        Ok((layout, templates))
    }

    /// The record struct `record` with the keys of `keys` that name no
    /// column added as fields of an ignored value (any JSON value, validated
    /// and skipped, absent as it pleases), all in the order of `keys`, then
    /// the columns `keys` does not name: the decoder's speculation on key
    /// order then matches a projection's other keys as it matches its
    /// columns, where an unknown key is looked up and skipped by a helper.
    /// `record` itself where there is nothing to add, in list mode, and in
    /// strict mode or with strict parsing (an unknown key, or a repeated
    /// one, must stay an error there).
    fn with_record_keys(
        &mut self,
        record: &'static TypeLayout,
        keys: &[String],
        policy: Policy,
    ) -> &'static TypeLayout {
        let Kind::Struct(st) = &record.kind else {
            return record;
        };
        // Unvalidated skipping (`with_validate_skipped(false)`) ignores the
        // keys too: a key that names no column is then looked up and its
        // value matched by brackets, which reads twitter's statuses (one of
        // about thirty members kept) about 1.7 times as fast as speculating
        // on the keys as fields (4,623–4,797 against 2,635 MB/s, Round 11).
        if keys.is_empty() || policy.strict || policy.strict_parsing || policy.skip_unchecked {
            return record;
        }
        // Names are unique among the fields (`record`).
        let columns: HashMap<&str, &jitson_core::layout::Field> =
            st.fields.iter().map(|f| (f.name, f)).collect();
        let mut fields: Vec<jitson_core::layout::Field> = Vec::new();
        let mut named: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for key in keys {
            if !named.insert(key.as_str()) {
                continue;
            }
            fields.push(match columns.get(key.as_str()) {
                Some(field) => copy_field(field),
                None => jitson_core::layout::Field {
                    name: self.keep_str(key),
                    aliases: &[],
                    offset: 0,
                    layout: LayoutRef::Node(IgnoredAny::LAYOUT),
                    default: Some(ignored_absent),
                    skip_if: None,
                },
            });
        }
        for field in st.fields {
            if !named.contains(field.name) {
                fields.push(copy_field(field));
            }
        }
        if fields.len() == st.fields.len() {
            return record;
        }
        let fields = self.keep(fields);
        let st = self.keep(StructLayout { fields, ..**st });
        self.keep(TypeLayout {
            kind: Kind::Struct(st),
            ..*record
        })
    }

    /// The column layout of `field` and its empty column. Columns of the same
    /// type and nullability share one layout (and so one compiled function):
    /// compile time grows with the distinct column types, not the columns.
    fn column(
        &mut self,
        field: &Field,
        policy: Policy,
        count: &mut usize,
    ) -> Result<(&'static TypeLayout, ColumnTemplate), ArrowError> {
        let too_many = |count: usize| {
            (count > MAX_COLUMNS).then(|| {
                ArrowError::SchemaError(format!(
                    "more than {MAX_COLUMNS} columns (nested fields included)"
                ))
            })
        };
        let key = (field.data_type().clone(), field.is_nullable());
        if let Some((layout, template, columns)) = self.shared.get(&key) {
            // A shared layout still counts every column it stands for.
            *count += columns;
            return match too_many(*count) {
                Some(e) => Err(e),
                None => Ok((layout, template.clone())),
            };
        }
        let before = *count;
        *count += 1;
        if let Some(e) = too_many(*count) {
            return Err(e);
        }
        let (layout, template) = self.lower_column(field, policy, count)?;
        self.shared
            .insert(key, (layout, template.clone(), *count - before));
        Ok((layout, template))
    }

    fn lower_column(
        &mut self,
        field: &Field,
        policy: Policy,
        count: &mut usize,
    ) -> Result<(&'static TypeLayout, ColumnTemplate), ArrowError> {
        let fixed = |width| ColumnTemplate {
            shape: Shape::Fixed,
            width,
            children: Vec::new(),
        };
        let coerce = policy.coerce_primitive;
        let strict = policy.strict_parsing;
        // A number column: the kind's own parser first; by default (arrow-json's
        // rules) what it refuses is read again by `lenient`; under strict
        // parsing, strings only with `coerce_primitive`, by `coerced`.
        let number = |plan: &mut Plan,
                      layout: &'static TypeLayout,
                      coerced: ParseFn,
                      lenient: &'static ParsedLayout|
         -> (&'static TypeLayout, Option<&'static TypeLayout>) {
            if !strict {
                (layout, Some(plan.parsed_node(layout.expecting, lenient)))
            } else if coerce {
                let parsed = plan.keep(parse::coerced_number(coerced));
                (plan.parsed_node(layout.expecting, parsed), None)
            } else {
                (layout, None)
            }
        };
        let mut lenient = None;
        let mut length = None;
        macro_rules! int {
            ($t:ty, $width:expr, $coerced:ident, $text:ident, $number:ident) => {{
                static LENIENT: ParsedLayout = parse::lenient_integer(parse::$text, parse::$number);
                let (value, second) = number(self, layout_of::<$t>(), parse::$coerced, &LENIENT);
                lenient = second;
                (Store::Fixed, value, fixed($width))
            }};
        }
        let (store, value, template): (Store, &'static TypeLayout, ColumnTemplate) = match field
            .data_type()
        {
            DataType::Null => (Store::Fixed, layout_of::<()>(), fixed(0)),
            DataType::Boolean => (Store::Fixed, layout_of::<bool>(), fixed(1)),
            DataType::Int8 => int!(i8, 1, parse_i8, i8_from_text, i8_from_number),
            DataType::Int16 => int!(i16, 2, parse_i16, i16_from_text, i16_from_number),
            DataType::Int32 => int!(i32, 4, parse_i32, i32_from_text, i32_from_number),
            DataType::Int64 => int!(i64, 8, parse_i64, i64_from_text, i64_from_number),
            DataType::UInt8 => int!(u8, 1, parse_u8, u8_from_text, u8_from_number),
            DataType::UInt16 => int!(u16, 2, parse_u16, u16_from_text, u16_from_number),
            DataType::UInt32 => int!(u32, 4, parse_u32, u32_from_text, u32_from_number),
            DataType::UInt64 => int!(u64, 8, parse_u64, u64_from_text, u64_from_number),
            DataType::Float16 => {
                let parsed = if strict {
                    &parse::FLOAT16
                } else {
                    &parse::LENIENT_FLOAT16
                };
                (Store::Fixed, self.parsed_node("f16", parsed), fixed(2))
            }
            DataType::Float32 => {
                let (value, second) = number(
                    self,
                    layout_of::<f32>(),
                    parse::parse_f32,
                    &parse::LENIENT_F32,
                );
                lenient = second;
                (Store::Fixed, value, fixed(4))
            }
            DataType::Float64 => {
                let (value, second) = number(
                    self,
                    layout_of::<f64>(),
                    parse::parse_f64,
                    &parse::LENIENT_F64,
                );
                lenient = second;
                (Store::Fixed, value, fixed(8))
            }
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
                let value = if coerce {
                    self.parsed_node("a string", &parse::COERCED_TEXT)
                } else {
                    &TEXT_VALUE
                };
                let width = if *field.data_type() == DataType::LargeUtf8 {
                    8
                } else {
                    4
                };
                let template = ColumnTemplate {
                    shape: Shape::Text,
                    width,
                    children: Vec::new(),
                };
                (Store::Append, value, template)
            }
            DataType::Timestamp(unit, tz) => {
                let nanos_per_unit = match unit {
                    TimeUnit::Second => 1_000_000_000,
                    TimeUnit::Millisecond => 1_000_000,
                    TimeUnit::Microsecond => 1_000,
                    TimeUnit::Nanosecond => 1,
                };
                // Local times in the column's zone: only a fixed offset can
                // be read without a time-zone database; never guess.
                let offset = match tz.as_deref() {
                    None => 0,
                    Some(tz) => parse::fixed_time_zone(tz).ok_or_else(|| {
                        ArrowError::ParseError(format!(
                            "column `{}`: invalid time zone \"{tz}\": only \"UTC\" and \
                                 fixed offsets (+HH:MM, +HHMM, +HH) are supported, as in \
                                 arrow without its chrono-tz feature; a named time zone \
                                 needs a time-zone database",
                            field.name()
                        ))
                    })?,
                };
                let parsed = self.keep(if strict {
                    parse::timestamp_layout(nanos_per_unit, offset)
                } else {
                    parse::lenient_timestamp_layout(nanos_per_unit, offset)
                });
                (
                    Store::Fixed,
                    self.parsed_node("a timestamp", parsed),
                    fixed(8),
                )
            }
            DataType::Date32 => {
                let parsed = if strict {
                    &parse::DATE32
                } else {
                    &parse::LENIENT_DATE32
                };
                (Store::Fixed, self.parsed_node("a date", parsed), fixed(4))
            }
            DataType::Decimal32(precision, scale)
            | DataType::Decimal64(precision, scale)
            | DataType::Decimal128(precision, scale)
            | DataType::Decimal256(precision, scale) => {
                let (layout, rounded, width, max) = match field.data_type() {
                    DataType::Decimal32(..) => (&parse::DECIMAL32, &parse::ARROW_DECIMAL32, 4, 9),
                    DataType::Decimal64(..) => (&parse::DECIMAL64, &parse::ARROW_DECIMAL64, 8, 18),
                    DataType::Decimal128(..) => (&parse::DECIMAL, &parse::ARROW_DECIMAL128, 16, 38),
                    _ => (&parse::DECIMAL256, &parse::ARROW_DECIMAL256, 32, 76),
                };
                if !(1..=max).contains(precision) || i16::from(*scale) > i16::from(*precision) {
                    return Err(ArrowError::InvalidArgumentError(format!(
                        "column `{}`: {} has a precision outside 1..={max} or a scale \
                             above its precision",
                        field.name(),
                        field.data_type()
                    )));
                }
                let arg = parse::decimal_arg(*precision, *scale);
                let parsed = self.keep(ParsedLayout { arg, ..*layout });
                // By default what the exact reading refuses (more
                // fraction digits than the scale) is read again as
                // arrow-json reads it: truncated, by arrow-cast.
                if !strict {
                    let rounded = self.keep(ParsedLayout { arg, ..*rounded });
                    lenient = Some(self.parsed_node("a decimal", rounded));
                }
                (
                    Store::Fixed,
                    self.parsed_node("a decimal", parsed),
                    fixed(width),
                )
            }
            DataType::Date64
            | DataType::Time32(TimeUnit::Second | TimeUnit::Millisecond)
            | DataType::Time64(TimeUnit::Microsecond | TimeUnit::Nanosecond)
            | DataType::Duration(_) => {
                let (from_string, wide, expecting): (ParseFn, bool, &'static str) =
                    match field.data_type() {
                        DataType::Date64 => (parse::date64_from_text, true, "a date"),
                        DataType::Time32(TimeUnit::Second) => {
                            (parse::time32s_from_text, false, "a time")
                        }
                        DataType::Time32(_) => (parse::time32ms_from_text, false, "a time"),
                        DataType::Time64(TimeUnit::Microsecond) => {
                            (parse::time64us_from_text, true, "a time")
                        }
                        DataType::Time64(_) => (parse::time64ns_from_text, true, "a time"),
                        _ => (parse::duration_from_text, true, "a duration"),
                    };
                let parsed = self.keep(parse::unit_count(from_string, wide, strict));
                let width = if wide { 8 } else { 4 };
                (
                    Store::Fixed,
                    self.parsed_node(expecting, parsed),
                    fixed(width),
                )
            }
            DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
            | DataType::FixedSizeBinary(_) => {
                let bytes = match field.data_type() {
                    DataType::FixedSizeBinary(n) => u64::try_from(*n).map_err(|_| {
                        ArrowError::InvalidArgumentError(format!(
                            "column `{}`: FixedSizeBinary({n}) has a negative width",
                            field.name()
                        ))
                    })?,
                    _ => parse::ANY_LENGTH,
                };
                let parsed = self.keep(parse::binary_layout(bytes));
                let template = ColumnTemplate {
                    shape: Shape::Text,
                    width: if *field.data_type() == DataType::LargeBinary {
                        8
                    } else {
                        4
                    },
                    children: Vec::new(),
                };
                (
                    Store::Append,
                    self.parsed_node("hexadecimal bytes", parsed),
                    template,
                )
            }
            DataType::List(elem)
            | DataType::LargeList(elem)
            | DataType::ListView(elem)
            | DataType::LargeListView(elem)
            | DataType::FixedSizeList(elem, _) => {
                // A list view is read as a list, its sizes computed from
                // the offsets when the batch is built; so is a fixed-size
                // list, each array's length checked as it closes.
                let (elem_layout, elem_template) = self.column(elem, policy, count)?;
                let width = match field.data_type() {
                    DataType::List(_) | DataType::ListView(_) | DataType::FixedSizeList(..) => 4,
                    _ => 8,
                };
                if let DataType::FixedSizeList(_, n) = field.data_type() {
                    length = Some(usize::try_from(*n).map_err(|_| {
                        ArrowError::SchemaError(format!(
                            "column `{}`: a fixed-size list of {n} elements",
                            field.name()
                        ))
                    })?);
                }
                let template = ColumnTemplate {
                    shape: Shape::List,
                    width,
                    children: vec![elem_template],
                };
                (Store::List, elem_layout, template)
            }
            DataType::Struct(fields) => {
                let (layout, children) = self.record(fields, field.name(), policy, count)?;
                let template = ColumnTemplate {
                    shape: Shape::Struct,
                    width: 0,
                    children,
                };
                (Store::Struct, layout, template)
            }
            DataType::Map(entries, _) => {
                let (value, template) = self.map(field, entries, policy, count)?;
                (Store::Append, value, template)
            }
            other => {
                return Err(ArrowError::NotYetImplemented(format!(
                    "column `{}`: type {other} is not supported by jitson-arrow",
                    field.name()
                )));
            }
        };
        let column = self.keep(ColumnLayout {
            value: LayoutRef::Node(value),
            store,
            width: template.width,
            // Every row of a `Null` column is null, non-nullable or not: a
            // value of another type is a conflict there too, and
            // `with_ignore_type_conflicts` makes it a null row, as arrow-json's
            // null decoder ignores every value under that option.
            nullable: field.is_nullable() || field.data_type() == &DataType::Null,
            conflict: policy.conflict,
            lenient: lenient.map(LayoutRef::Node),
            length,
        });
        // What a list column expects, in serde's words; other columns' messages
        // name their value's type ("i64").
        let layout = self.keep(column_node("a sequence", column));
        Ok((layout, template))
    }

    /// A map column: a JSON object whose members become entries (key, value) of
    /// the child struct column. Keys must be Utf8.
    fn map(
        &mut self,
        field: &Field,
        entries: &Field,
        policy: Policy,
        count: &mut usize,
    ) -> Result<(&'static TypeLayout, ColumnTemplate), ArrowError> {
        let unsupported =
            |why: &str| ArrowError::NotYetImplemented(format!("column `{}`: {why}", field.name()));
        let DataType::Struct(kv) = entries.data_type() else {
            return Err(unsupported("map entries must be a struct"));
        };
        if kv.len() != 2 || *kv[0].data_type() != DataType::Utf8 {
            return Err(unsupported("map keys must be Utf8"));
        }
        let (value, value_template) = self.column(&kv[1], policy, count)?;
        let map = self.keep(MapLayout {
            key: LayoutRef::Node(&TEXT_VALUE),
            value: LayoutRef::Node(value),
            new: map_new,
            insert_with: map_insert_with,
            insert: map_insert_parsed,
            for_each: None,
            staged: None,
        });
        let layout = self.keep(TypeLayout {
            drop: Some(column_abandon_row),
            ..node("a map", 0, 1, Kind::Map(map))
        });
        let text = ColumnTemplate {
            shape: Shape::Text,
            width: 4,
            children: Vec::new(),
        };
        let entries = ColumnTemplate {
            shape: Shape::Struct,
            width: 0,
            children: vec![text, value_template],
        };
        let template = ColumnTemplate {
            shape: Shape::List,
            width: 4,
            children: vec![entries],
        };
        Ok((layout, template))
    }

    fn parsed_node(
        &mut self,
        expecting: &'static str,
        parsed: &'static ParsedLayout,
    ) -> &'static TypeLayout {
        self.keep(node(expecting, 0, 1, Kind::Parsed(parsed)))
    }

    /// The batch of the rows in `columns`; clears them for the next batch.
    pub fn batch(&self, columns: &mut [Column], rows: usize) -> Result<RecordBatch, ArrowError> {
        let arrays = self
            .schema
            .fields()
            .iter()
            .zip(columns.iter())
            .map(|(field, column)| array(field.data_type(), column))
            .collect::<Vec<_>>();
        for column in columns.iter_mut() {
            column.clear();
        }
        RecordBatch::try_new_with_options(
            self.schema.clone(),
            arrays,
            &arrow_array::RecordBatchOptions::new().with_row_count(Some(rows)),
        )
    }
}

/// A map column's value starts a row: nothing to do (entries are appended by
/// `map_insert_with`, the row committed by the column kind).
unsafe extern "C" fn map_new(_col: *mut u8) -> bool {
    true
}

/// Appends one entry to a map column's entries: the key's text, then the value,
/// decoded by the callback into the value column. On failure nothing is left
/// appended for the entry.
///
/// # Safety
/// `col` is a map column built by [`Plan::map`]; the key is readable UTF-8.
unsafe extern "C" fn map_insert_with(
    col: *mut u8,
    key_ptr: *const u8,
    key_len: usize,
    decode: SlotFn,
    ctx: *mut c_void,
) -> bool {
    // SAFETY: the shapes `Plan::map` built: one struct child with a text column
    // and a value column. Raw pointers, because the callback writes to the value
    // column while the entries column is reached through `col`.
    unsafe {
        let entries = (*col.cast::<Column>()).children;
        let keys = (*entries).children;
        let values = keys.add(1);
        (*entries).reserve_row();
        (*keys).reserve_row();
        column_append_text(keys.cast(), key_ptr, key_len);
        (*keys).commit_valid();
        if !decode(ctx, values.cast()) {
            (*keys).truncate((*keys).len - 1);
            return false;
        }
        (*entries).commit_valid();
    }
    true
}

/// Maps with text keys never parse keys (the backends call `insert_with`).
unsafe extern "C" fn map_insert_parsed(
    _: *mut u8,
    _: SlotFn,
    _: *mut c_void,
    _: SlotFn,
    _: *mut c_void,
) -> bool {
    false
}

/// The Arrow array of one column's rows.
fn array(data_type: &DataType, column: &Column) -> ArrayRef {
    let len = column.len;
    let validity = column.validity();
    let nulls = (column.null_count > 0)
        .then(|| NullBuffer::new(BooleanBuffer::collect_bool(len, |i| validity[i] != 0)));
    let builder = ArrayDataBuilder::new(data_type.clone())
        .len(len)
        .nulls(nulls);
    let builder = match data_type {
        DataType::Null => ArrayDataBuilder::new(DataType::Null).len(len),
        DataType::Boolean => {
            let values = column.values();
            builder.add_buffer(BooleanBuffer::collect_bool(len, |i| values[i] != 0).into_inner())
        }
        DataType::Utf8View => {
            let text = array(&DataType::Utf8, column);
            let text = text
                .as_any()
                .downcast_ref::<arrow_array::StringArray>()
                .expect("a Utf8 array");
            return Arc::new(arrow_array::StringViewArray::from(text));
        }
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Binary | DataType::LargeBinary => builder
            .add_buffer(Buffer::from_slice_ref(column.values()))
            .add_buffer(Buffer::from_slice_ref(column.data())),
        DataType::BinaryView => {
            let bytes = array(&DataType::Binary, column);
            let bytes = bytes
                .as_any()
                .downcast_ref::<arrow_array::BinaryArray>()
                .expect("a Binary array");
            return Arc::new(arrow_array::BinaryViewArray::from(bytes));
        }
        DataType::FixedSizeBinary(width) => {
            // Every valid row holds `width` bytes (the parser checked); a null
            // row holds none, and takes `width` zeros here.
            let width = *width as usize;
            let data = column.data();
            let mut values = Vec::with_capacity(len * width);
            let mut at = 0;
            for &valid in &validity[..len] {
                if valid != 0 {
                    values.extend_from_slice(&data[at..at + width]);
                    at += width;
                } else {
                    values.resize(values.len() + width, 0);
                }
            }
            builder.add_buffer(Buffer::from_vec(values))
        }
        DataType::ListView(elem) | DataType::LargeListView(elem) => {
            // Views over the list's offsets: each row starts where the list's
            // does, and its size is the distance to the next row's start.
            let offsets = column.values();
            let (starts, sizes) = if column.width == 4 {
                let at =
                    |i: usize| i32::from_ne_bytes(offsets[4 * i..4 * i + 4].try_into().unwrap());
                let starts: Vec<i32> = (0..len).map(at).collect();
                let sizes: Vec<i32> = (0..len).map(|i| at(i + 1) - at(i)).collect();
                (Buffer::from_vec(starts), Buffer::from_vec(sizes))
            } else {
                let at =
                    |i: usize| i64::from_ne_bytes(offsets[8 * i..8 * i + 8].try_into().unwrap());
                let starts: Vec<i64> = (0..len).map(at).collect();
                let sizes: Vec<i64> = (0..len).map(|i| at(i + 1) - at(i)).collect();
                (Buffer::from_vec(starts), Buffer::from_vec(sizes))
            };
            builder
                .add_buffer(starts)
                .add_buffer(sizes)
                .child_data(vec![
                    array(elem.data_type(), &column.children()[0]).to_data(),
                ])
        }
        DataType::FixedSizeList(elem, n) => {
            // Each valid row appended exactly `n` elements (the length was
            // checked as its array closed); a null row appended none, and
            // takes `n` null elements here, which its null masks.
            let child = array(elem.data_type(), &column.children()[0]);
            let child = if column.null_count == 0 {
                child
            } else {
                let n = *n as usize;
                let mut next = 0u64;
                let indices: arrow_array::UInt64Array = validity[..len]
                    .iter()
                    .flat_map(|&valid| {
                        let first = next;
                        if valid != 0 {
                            next += n as u64;
                        }
                        (0..n as u64).map(move |i| (valid != 0).then_some(first + i))
                    })
                    .collect();
                arrow_select::take::take(&child, &indices, None)
                    .expect("indices within the child column")
            };
            builder.child_data(vec![child.to_data()])
        }
        DataType::Map(entries, _) => builder
            .add_buffer(Buffer::from_slice_ref(column.values()))
            .child_data(vec![
                array(entries.data_type(), &column.children()[0]).to_data(),
            ]),
        DataType::List(elem) | DataType::LargeList(elem) => builder
            .add_buffer(Buffer::from_slice_ref(column.values()))
            .child_data(vec![
                array(elem.data_type(), &column.children()[0]).to_data(),
            ]),
        DataType::Struct(fields) => builder.child_data(
            fields
                .iter()
                .zip(column.children())
                .map(|(f, c)| array(f.data_type(), c).to_data())
                .collect(),
        ),
        _ => builder.add_buffer(Buffer::from_slice_ref(column.values())),
    };
    // SAFETY: the buffers were built by the column kinds for this data type:
    // `len` values of its width (booleans packed above, fixed-size binary
    // padded above), `len + 1` monotonic offsets starting at 0 into data or a
    // child of matching length (a list view's starts and sizes taken from
    // them above), a fixed-size list's child of exactly `n` elements a row
    // (null rows given theirs above), text that the parser validated as UTF-8
    // (binary needs none), children as long as their struct, and validity for
    // exactly `len` rows. Debug builds check all of it.
    let data = unsafe { builder.build_unchecked() };
    #[cfg(debug_assertions)]
    data.validate_full().expect("columns build valid arrays");
    make_array(data)
}
