//! Structs (and the record batch's rows), lists, maps, dictionaries and
//! run-end encoded arrays: their punctuation, around their children's
//! encoders.
//!
//! As arrow-json: a null struct field is left out in object mode unless
//! `explicit_nulls`, written `null` in list mode; a null list element is always
//! `null`; a null map value is left out unless `explicit_nulls`; a dictionary
//! writes the value its key points at (the key's nulls are the column's).

use arrow_array::cast::AsArray;
use arrow_array::types::{ArrowDictionaryKeyType, RunEndIndexType};
use arrow_array::{Array, ArrayRef, OffsetSizeTrait};
use arrow_buffer::ArrowNativeType;
use arrow_schema::ArrowError;

use jitson_core::write::append;

use super::plan::{Column, Encode, Plan};

/// A struct's fields (or a batch's columns), with their keys.
pub(crate) struct Struct<'a> {
    columns: Vec<Column<'a>>,
    keys: &'a [Box<[u8]>],
    /// Object mode without explicit nulls: null fields are left out.
    drop_nulls: bool,
    any_nulls: bool,
    open: u8,
    close: u8,
}

impl<'a> Struct<'a> {
    pub(crate) fn new(plan: &'a Plan, arrays: &'a [ArrayRef]) -> Result<Self, ArrowError> {
        let columns = plan
            .children
            .iter()
            .zip(arrays)
            .map(|(child, array)| child.column(array.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        let any_nulls = columns.iter().any(|c| c.nulls.is_some());
        let (open, close) = if plan.list_mode {
            (b'[', b']')
        } else {
            (b'{', b'}')
        };
        Ok(Struct {
            columns,
            keys: &plan.keys,
            drop_nulls: !plan.list_mode && !plan.explicit_nulls,
            any_nulls,
            open,
            close,
        })
    }
}

impl Encode for Struct<'_> {
    #[inline]
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        out.push(self.open);
        if !self.any_nulls {
            // No null anywhere in this batch's fields: keys and values only.
            for (i, (column, key)) in self.columns.iter().zip(self.keys).enumerate() {
                append(out, if i == 0 { &key[1..] } else { key });
                column.encoder.encode(row, out);
            }
        } else {
            let mut first = true;
            for (column, key) in self.columns.iter().zip(self.keys) {
                let null = column.is_null(row);
                if null && self.drop_nulls {
                    continue;
                }
                append(out, if first { &key[1..] } else { key });
                first = false;
                if null {
                    out.extend_from_slice(b"null");
                } else {
                    column.encoder.encode(row, out);
                }
            }
        }
        out.push(self.close);
    }
}

pub(crate) fn bind_struct<'a>(
    plan: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    Ok(Box::new(Struct::new(plan, array.as_struct().columns())?))
}

/// Writes `[` the elements `start..end` of `child` `]`.
#[inline]
fn write_elements(child: &Column, start: usize, end: usize, out: &mut Vec<u8>) {
    out.push(b'[');
    if child.nulls.is_none() {
        for i in start..end {
            if i != start {
                out.push(b',');
            }
            child.encoder.encode(i, out);
        }
    } else {
        for i in start..end {
            if i != start {
                out.push(b',');
            }
            if child.is_null(i) {
                out.extend_from_slice(b"null");
            } else {
                child.encoder.encode(i, out);
            }
        }
    }
    out.push(b']');
}

struct List<'a, O> {
    offsets: &'a [O],
    child: Column<'a>,
}

impl<O: OffsetSizeTrait> Encode for List<'_, O> {
    #[inline]
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        let start = self.offsets[row].as_usize();
        let end = self.offsets[row + 1].as_usize();
        write_elements(&self.child, start, end, out);
    }
}

pub(crate) fn bind_list<'a, O: OffsetSizeTrait>(
    plan: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    let array = array.as_list::<O>();
    Ok(Box::new(List {
        offsets: array.value_offsets(),
        child: plan.children[0].column(array.values().as_ref())?,
    }))
}

struct ListView<'a, O> {
    offsets: &'a [O],
    sizes: &'a [O],
    child: Column<'a>,
}

impl<O: OffsetSizeTrait> Encode for ListView<'_, O> {
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        let start = self.offsets[row].as_usize();
        let end = start + self.sizes[row].as_usize();
        write_elements(&self.child, start, end, out);
    }
}

pub(crate) fn bind_list_view<'a, O: OffsetSizeTrait>(
    plan: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    let array = array.as_list_view::<O>();
    Ok(Box::new(ListView {
        offsets: array.value_offsets(),
        sizes: array.value_sizes(),
        child: plan.children[0].column(array.values().as_ref())?,
    }))
}

struct FixedList<'a> {
    /// The array's offset (a slice's first list) and its list size.
    first: usize,
    size: usize,
    child: Column<'a>,
}

impl Encode for FixedList<'_> {
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        let start = (self.first + row) * self.size;
        write_elements(&self.child, start, start + self.size, out);
    }
}

pub(crate) fn bind_fixed_list<'a>(
    plan: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    let array = array.as_fixed_size_list();
    let size = array.value_length() as usize;
    // value_offset(0) is where this (possibly sliced) array's first list
    // starts in its values.
    let first = (array.value_offset(0) as usize)
        .checked_div(size)
        .unwrap_or(0);
    Ok(Box::new(FixedList {
        first,
        size,
        child: plan.children[0].column(array.values().as_ref())?,
    }))
}

struct Map<'a> {
    offsets: &'a [i32],
    keys: Column<'a>,
    values: Column<'a>,
    explicit_nulls: bool,
}

impl Encode for Map<'_> {
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        let start = self.offsets[row].as_usize();
        let end = self.offsets[row + 1].as_usize();
        out.push(b'{');
        let mut first = true;
        for i in start..end {
            let null = self.values.is_null(i);
            if null && !self.explicit_nulls {
                continue;
            }
            if !first {
                out.push(b',');
            }
            first = false;
            self.keys.encoder.encode(i, out);
            out.push(b':');
            if null {
                out.extend_from_slice(b"null");
            } else {
                self.values.encoder.encode(i, out);
            }
        }
        out.push(b'}');
    }
}

/// Refuses a map with null keys or null entries, as arrow-json does
/// (`MapArray` does not enforce either); both backends check it.
pub(crate) fn check_map(array: &dyn Array) -> Result<(), ArrowError> {
    let array = array.as_map();
    if array.keys().null_count() != 0 {
        return Err(ArrowError::InvalidArgumentError(
            "Encountered nulls in MapArray keys".to_string(),
        ));
    }
    if array.entries().nulls().is_some_and(|n| n.null_count() != 0) {
        return Err(ArrowError::InvalidArgumentError(
            "Encountered nulls in MapArray entries".to_string(),
        ));
    }
    Ok(())
}

pub(crate) fn bind_map<'a>(
    plan: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    check_map(array)?;
    let array = array.as_map();
    let keys = plan.children[0].column(array.keys().as_ref())?;
    let values = plan.children[1].column(array.values().as_ref())?;
    Ok(Box::new(Map {
        offsets: array.value_offsets(),
        keys,
        values,
        explicit_nulls: plan.explicit_nulls,
    }))
}

struct Dictionary<'a, K: ArrowNativeType> {
    keys: &'a [K],
    values: Box<dyn Encode + 'a>,
    /// Temporal values' nulls: a valid key at a null value writes `""`.
    null_slots: Option<&'a arrow_buffer::NullBuffer>,
}

impl<K: ArrowNativeType> Encode for Dictionary<'_, K> {
    #[inline]
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        let key = self.keys[row].as_usize();
        if self.null_slots.is_some_and(|nulls| nulls.is_null(key)) {
            out.extend_from_slice(b"\"\"");
        } else {
            self.values.encode(key, out);
        }
    }
}

/// A dictionary's values are written at their keys, null or not, as
/// arrow-json writes them: a null slot as what its buffers hold, except for
/// temporal values, which arrow-json formats through arrow's display (a
/// null is `""` there).
pub(crate) fn bind_dictionary<'a, K: ArrowDictionaryKeyType>(
    plan: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    let array = array.as_dictionary::<K>();
    let values = array.values();
    Ok(Box::new(Dictionary {
        keys: array.keys().values().as_ref(),
        values: (plan.children[0].bind)(&plan.children[0], values.as_ref())?,
        null_slots: values
            .nulls()
            .filter(|nulls| values.data_type().is_temporal() && nulls.null_count() > 0),
    }))
}

struct Run<'a, R: RunEndIndexType> {
    array: &'a arrow_array::RunArray<R>,
    values: Box<dyn Encode + 'a>,
}

impl<R: RunEndIndexType> Encode for Run<'_, R> {
    fn encode(&self, row: usize, out: &mut Vec<u8>) {
        self.values.encode(self.array.get_physical_index(row), out);
    }
}

pub(crate) fn bind_run<'a, R: RunEndIndexType>(
    plan: &'a Plan,
    array: &'a dyn Array,
) -> Result<Box<dyn Encode + 'a>, ArrowError> {
    let array = array.as_run::<R>();
    Ok(Box::new(Run {
        array,
        values: (plan.children[0].bind)(&plan.children[0], array.values().as_ref())?,
    }))
}
