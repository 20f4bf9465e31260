//! The writer's plan: one node per Arrow field, built once per schema and
//! options from the `DataType`, each holding the function that binds its
//! encoder to a batch's array, the keys and punctuation as bytes, and the
//! options it needs. Binding is the only per-batch step: no `DataType` is
//! matched while rows are written.
//!
//! Every encoder implements [`Encode`], one narrow trait: append the JSON text
//! of the (non-null) value at a row. Nulls are the caller's: a [`Column`]
//! carries its validity bitmap only when the batch has nulls in it, so columns
//! without nulls take a path with no null test. Each encoder reads one value
//! from typed Arrow buffers and has no other state, which is what a later
//! compiled writer would lower per column.

use std::sync::Arc;

use arrow_array::Array;
use arrow_array::timezone::Tz;
use arrow_buffer::NullBuffer;
use arrow_schema::{ArrowError, DataType, Field, IntervalUnit, TimeUnit};

use super::{Options, StructMode, nested, number, temporal, text};

/// Appends the JSON text of one value.
pub(crate) trait Encode {
    /// Appends the value at `row`, which is not null.
    fn encode(&self, row: usize, out: &mut Vec<u8>);
}

/// Binds a plan node to one batch's array (of the node's type).
pub(crate) type Bind =
    for<'a> fn(&'a Plan, &'a dyn Array) -> Result<Box<dyn Encode + 'a>, ArrowError>;

/// One field of the schema, lowered.
pub(crate) struct Plan {
    pub bind: Bind,
    /// Struct fields, the list element, the map's keys and values, the
    /// dictionary's or run array's values.
    pub children: Vec<Plan>,
    /// For a struct: per child, `,` then the key and `:` (object mode) or just
    /// `,` (list mode); the first field written drops the comma.
    pub keys: Vec<Box<[u8]>>,
    /// A struct's or map's nulls written as `null` rather than left out.
    pub explicit_nulls: bool,
    /// Object mode: null struct fields may be dropped; list mode: `[` and `]`.
    pub list_mode: bool,
    /// Nulls come from `logical_nulls()` (Null and run-end encoded arrays),
    /// not the array's own bitmap, as arrow-json takes them.
    pub logical_nulls: bool,
    /// A user-given strftime format (dates, times, timestamps).
    pub format: Option<Arc<str>>,
    /// A timestamp's zone.
    pub tz: Option<Tz>,
    /// The type, for the rare messages written into the output.
    pub data_type: DataType,
}

impl Plan {
    fn leaf(bind: Bind, data_type: &DataType) -> Plan {
        Plan {
            bind,
            children: Vec::new(),
            keys: Vec::new(),
            explicit_nulls: false,
            list_mode: false,
            logical_nulls: false,
            format: None,
            tz: None,
            data_type: data_type.clone(),
        }
    }

    /// Binds this node to `array`, with its nulls when it has any.
    pub fn column<'a>(&'a self, array: &'a dyn Array) -> Result<Column<'a>, ArrowError> {
        let nulls = if self.logical_nulls {
            array.logical_nulls()
        } else {
            array.nulls().cloned()
        };
        Ok(Column {
            encoder: (self.bind)(self, array)?,
            nulls: nulls.filter(|n| n.null_count() > 0),
        })
    }
}

/// An encoder bound to an array, with the array's nulls when there are any.
pub(crate) struct Column<'a> {
    pub encoder: Box<dyn Encode + 'a>,
    pub nulls: Option<NullBuffer>,
}

impl Column<'_> {
    #[inline]
    pub fn is_null(&self, row: usize) -> bool {
        self.nulls.as_ref().is_some_and(|n| n.is_null(row))
    }
}

/// `plan`, if its strftime format (if any) applies to its type: otherwise
/// an error naming the column, before any row is written, where arrow-json's
/// writer panics at the first value (`%H` of a Date32).
fn checked_format(plan: Plan, path: &str) -> Result<Plan, ArrowError> {
    match plan.format.as_deref() {
        Some(format) if !temporal::check_format(&plan.data_type, plan.tz.as_ref(), format) => {
            Err(ArrowError::InvalidArgumentError(format!(
                "column `{path}` ({}): the format {format:?} does not apply to this type",
                plan.data_type
            )))
        }
        _ => Ok(plan),
    }
}

/// The error for a type arrow-json does not write either.
fn unsupported(path: &str, data_type: &DataType) -> ArrowError {
    ArrowError::JsonError(format!(
        "column `{path}` ({data_type}): Unsupported data type for JSON encoding: {data_type:?}"
    ))
}

/// Lowers a struct's fields (the schema's, for the root).
pub(crate) fn compile_struct(
    fields: &[Arc<Field>],
    path: &str,
    options: &Options,
) -> Result<Plan, ArrowError> {
    let list_mode = options.struct_mode == StructMode::ListOnly;
    let mut children = Vec::with_capacity(fields.len());
    let mut keys = Vec::with_capacity(fields.len());
    for field in fields {
        let child_path = if path.is_empty() {
            field.name().clone()
        } else {
            format!("{path}.{}", field.name())
        };
        children.push(compile(field.data_type(), &child_path, options)?);
        let mut key = vec![b','];
        if !list_mode {
            jitson_core::write::write_str(&mut key, field.name());
            key.push(b':');
        }
        keys.push(key.into_boxed_slice());
    }
    let mut plan = Plan::leaf(nested::bind_struct, &DataType::Null);
    plan.children = children;
    plan.keys = keys;
    plan.explicit_nulls = options.explicit_nulls;
    plan.list_mode = list_mode;
    Ok(plan)
}

/// Lowers one field's type: chooses its encoder, once.
pub(crate) fn compile(
    data_type: &DataType,
    path: &str,
    options: &Options,
) -> Result<Plan, ArrowError> {
    use DataType as D;
    let leaf = |bind: Bind| Ok(Plan::leaf(bind, data_type));
    let with_child = |bind: Bind, child: &DataType, suffix: &str| {
        let mut plan = Plan::leaf(bind, data_type);
        plan.children = vec![compile(child, &format!("{path}{suffix}"), options)?];
        Ok(plan)
    };
    match data_type {
        D::Int8 => leaf(number::bind_int::<arrow_array::types::Int8Type>),
        D::Int16 => leaf(number::bind_int::<arrow_array::types::Int16Type>),
        D::Int32 => leaf(number::bind_int::<arrow_array::types::Int32Type>),
        D::Int64 => leaf(number::bind_int::<arrow_array::types::Int64Type>),
        D::UInt8 => leaf(number::bind_int::<arrow_array::types::UInt8Type>),
        D::UInt16 => leaf(number::bind_int::<arrow_array::types::UInt16Type>),
        D::UInt32 => leaf(number::bind_int::<arrow_array::types::UInt32Type>),
        D::UInt64 => leaf(number::bind_int::<arrow_array::types::UInt64Type>),
        D::Float16 => leaf(number::bind_float::<arrow_array::types::Float16Type>),
        D::Float32 => leaf(number::bind_float::<arrow_array::types::Float32Type>),
        D::Float64 => leaf(number::bind_float::<arrow_array::types::Float64Type>),
        D::Boolean => leaf(number::bind_bool),
        D::Null => {
            let mut plan = Plan::leaf(number::bind_null, data_type);
            plan.logical_nulls = true;
            Ok(plan)
        }
        D::Decimal32(..) => leaf(number::bind_decimal::<arrow_array::types::Decimal32Type>),
        D::Decimal64(..) => leaf(number::bind_decimal::<arrow_array::types::Decimal64Type>),
        D::Decimal128(..) => leaf(number::bind_decimal::<arrow_array::types::Decimal128Type>),
        D::Decimal256(..) => leaf(number::bind_decimal::<arrow_array::types::Decimal256Type>),
        D::Utf8 => leaf(text::bind_utf8::<i32>),
        D::LargeUtf8 => leaf(text::bind_utf8::<i64>),
        D::Utf8View => leaf(text::bind_utf8_view),
        D::Binary => leaf(text::bind_binary::<i32>),
        D::LargeBinary => leaf(text::bind_binary::<i64>),
        D::BinaryView => leaf(text::bind_binary_view),
        D::FixedSizeBinary(_) => leaf(text::bind_fixed_binary),
        D::Timestamp(unit, tz) => {
            use arrow_array::types::*;
            let bind: Bind = match unit {
                TimeUnit::Second => temporal::bind_timestamp::<TimestampSecondType>,
                TimeUnit::Millisecond => temporal::bind_timestamp::<TimestampMillisecondType>,
                TimeUnit::Microsecond => temporal::bind_timestamp::<TimestampMicrosecondType>,
                TimeUnit::Nanosecond => temporal::bind_timestamp::<TimestampNanosecondType>,
            };
            let mut plan = Plan::leaf(bind, data_type);
            match tz {
                Some(tz) => {
                    // arrow-json refuses a zone it cannot parse when its
                    // encoder is made; so does this, naming the column.
                    // "UTC" is written as arrow-json with its `chrono-tz`
                    // feature (DataFusion's) writes it: offset zero, `Z`.
                    let name = if tz.as_ref() == "UTC" {
                        "+00:00"
                    } else {
                        tz.as_ref()
                    };
                    let parsed: Tz = name.parse().map_err(|e: ArrowError| {
                        ArrowError::ParseError(format!("column `{path}` ({data_type}): {e}"))
                    })?;
                    plan.tz = Some(parsed);
                    plan.format = options.timestamp_tz_format.clone();
                }
                None => plan.format = options.timestamp_format.clone(),
            }
            checked_format(plan, path)
        }
        D::Date32 => {
            let mut plan = Plan::leaf(temporal::bind_date32, data_type);
            plan.format = options.date_format.clone();
            checked_format(plan, path)
        }
        D::Date64 => {
            let mut plan = Plan::leaf(temporal::bind_date64, data_type);
            plan.format = options.datetime_format.clone();
            checked_format(plan, path)
        }
        D::Time32(unit) | D::Time64(unit) => {
            let bind: Bind = match (data_type, unit) {
                (D::Time32(_), TimeUnit::Second) => temporal::bind_time32s,
                (D::Time32(_), TimeUnit::Millisecond) => temporal::bind_time32ms,
                (D::Time64(_), TimeUnit::Microsecond) => temporal::bind_time64us,
                (D::Time64(_), TimeUnit::Nanosecond) => temporal::bind_time64ns,
                _ => return Err(unsupported(path, data_type)),
            };
            let mut plan = Plan::leaf(bind, data_type);
            plan.format = options.time_format.clone();
            checked_format(plan, path)
        }
        D::Duration(_) => leaf(temporal::bind_duration),
        D::Interval(IntervalUnit::YearMonth) => leaf(temporal::bind_interval_year_month),
        D::Interval(IntervalUnit::DayTime) => leaf(temporal::bind_interval_day_time),
        D::Interval(IntervalUnit::MonthDayNano) => leaf(temporal::bind_interval_month_day_nano),
        D::List(f) => with_child(nested::bind_list::<i32>, f.data_type(), "[]"),
        D::LargeList(f) => with_child(nested::bind_list::<i64>, f.data_type(), "[]"),
        D::ListView(f) => with_child(nested::bind_list_view::<i32>, f.data_type(), "[]"),
        D::LargeListView(f) => with_child(nested::bind_list_view::<i64>, f.data_type(), "[]"),
        D::FixedSizeList(f, _) => with_child(nested::bind_fixed_list, f.data_type(), "[]"),
        D::Struct(fields) => {
            let mut plan = compile_struct(fields, path, options)?;
            plan.data_type = data_type.clone();
            Ok(plan)
        }
        D::Map(entries, _) => {
            let D::Struct(kv) = entries.data_type() else {
                return Err(unsupported(path, data_type));
            };
            if kv.len() != 2 {
                return Err(unsupported(path, data_type));
            }
            let key_type = kv[0].data_type();
            if !matches!(key_type, D::Utf8 | D::LargeUtf8 | D::Utf8View) {
                return Err(ArrowError::JsonError(format!(
                    "column `{path}` ({data_type}): Only UTF8 keys supported by JSON MapArray \
                     Writer: got {key_type:?}"
                )));
            }
            let mut plan = Plan::leaf(nested::bind_map, data_type);
            plan.children = vec![
                compile(key_type, &format!("{path}.keys"), options)?,
                compile(kv[1].data_type(), &format!("{path}.values"), options)?,
            ];
            plan.explicit_nulls = options.explicit_nulls;
            Ok(plan)
        }
        D::Dictionary(key, value) => {
            use arrow_array::types::*;
            let bind: Bind = match key.as_ref() {
                D::Int8 => nested::bind_dictionary::<Int8Type>,
                D::Int16 => nested::bind_dictionary::<Int16Type>,
                D::Int32 => nested::bind_dictionary::<Int32Type>,
                D::Int64 => nested::bind_dictionary::<Int64Type>,
                D::UInt8 => nested::bind_dictionary::<UInt8Type>,
                D::UInt16 => nested::bind_dictionary::<UInt16Type>,
                D::UInt32 => nested::bind_dictionary::<UInt32Type>,
                D::UInt64 => nested::bind_dictionary::<UInt64Type>,
                _ => return Err(unsupported(path, data_type)),
            };
            with_child(bind, value, "")
        }
        D::RunEndEncoded(ends, values) => {
            use arrow_array::types::*;
            let bind: Bind = match ends.data_type() {
                D::Int16 => nested::bind_run::<Int16Type>,
                D::Int32 => nested::bind_run::<Int32Type>,
                D::Int64 => nested::bind_run::<Int64Type>,
                _ => return Err(unsupported(path, data_type)),
            };
            let mut plan = with_child(bind, values.data_type(), "")?;
            plan.logical_nulls = true;
            Ok(plan)
        }
        _ => Err(unsupported(path, data_type)),
    }
}
