//! Schema inference from a sample of records, with arrow-json's conventions.
//!
//! Each line is read as arrow-json reads it: trimmed of Unicode whitespace
//! and parsed by serde_json into a `Value` (so its recursion limit, its
//! number parsing under this build's features, its order of a map's keys
//! and its last-value-stands rule for a repeated key are arrow-json's by
//! construction). Inference reads a sample once, off the decoding path, so
//! the well-kept parser is used rather than jitson's own. The types are then
//! joined by arrow-json's rules ([`Seen::join`]).

use std::collections::HashMap;
use std::io::BufRead;
use std::sync::Arc;

use arrow_schema::{ArrowError, DataType, Field, Fields, Schema};
use serde_json::Value;

/// A JSON type seen so far at one place in the records.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
    Null,
    /// Only `null`s inside an array: joins like `null`, but is Utf8 if nothing
    /// else comes (arrow-json's reading of `[null]`).
    NullElements,
    Bool,
    Int,
    Float,
    Text,
    List(Box<Seen>),
    Object(Vec<(String, Seen)>),
    /// Values that no type holds (an object and a number in one place, an
    /// array mixing arrays and scalars): an error if it is still there at
    /// the end of the record. Kept as a type rather than returned at once,
    /// because a later value of a repeated key replaces it (arrow-json reads
    /// a record as a serde_json map, whose last value stands).
    Conflict(String),
}

impl Seen {
    /// The type that holds values of both (arrow-json's rules): `null` joins
    /// anything; integers widen to floats; scalars of different types become
    /// text; a scalar and a list become a list of the joined element type;
    /// objects merge their fields. An object with anything else is a
    /// conflict.
    fn join(self, other: Seen) -> Seen {
        use Seen::*;
        match (self, other) {
            (Conflict(c), _) | (_, Conflict(c)) => Conflict(c),
            (Null, x) | (x, Null) => x,
            (a, b) if a == b => a,
            (Int, Float) | (Float, Int) => Float,
            (List(a), List(b)) => List(Box::new(a.join(*b))),
            (List(a), s) | (s, List(a)) if !matches!(s, Object(_)) => List(Box::new(a.join(s))),
            // `[null]`'s elements are scalars of no type yet: a scalar takes
            // them in, an object conflicts with them (below).
            (NullElements, x) | (x, NullElements) if !matches!(x, Object(_)) => x,
            (Object(a), Object(b)) => Object(merge_fields(a, b)),
            (Object(_), x) | (x, Object(_)) => {
                Conflict(format!("an object and {} in the same place", x.describe()))
            }
            (_, _) => Text,
        }
    }

    /// The first conflict inside this type, if any.
    fn conflict(&self) -> Option<&str> {
        match self {
            Seen::Conflict(c) => Some(c),
            Seen::List(elem) => elem.conflict(),
            Seen::Object(fields) => fields.iter().find_map(|(_, t)| t.conflict()),
            _ => None,
        }
    }

    fn describe(&self) -> &'static str {
        match self {
            Seen::Null | Seen::NullElements => "null",
            Seen::Bool => "a boolean",
            Seen::Int | Seen::Float => "a number",
            Seen::Text => "a string",
            Seen::List(_) => "an array",
            Seen::Object(_) => "an object",
            Seen::Conflict(_) => "conflicting values",
        }
    }

    fn data_type(&self) -> DataType {
        match self {
            Seen::Null => DataType::Null,
            Seen::NullElements => DataType::Utf8,
            Seen::Bool => DataType::Boolean,
            Seen::Int => DataType::Int64,
            Seen::Float => DataType::Float64,
            Seen::Text => DataType::Utf8,
            Seen::List(elem) => DataType::new_list(elem.data_type(), true),
            Seen::Object(fields) => DataType::Struct(fields_of(fields)),
            // Refused before a schema is built (`infer_schema`).
            Seen::Conflict(_) => DataType::Null,
        }
    }
}

/// What an array holds, by arrow-json's reading (its first element).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ElementKind {
    Arrays,
    Objects,
    Scalars,
}

impl ElementKind {
    fn of(v: &Seen) -> ElementKind {
        match v {
            Seen::List(_) => ElementKind::Arrays,
            Seen::Object(_) => ElementKind::Objects,
            _ => ElementKind::Scalars,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            ElementKind::Arrays => "arrays",
            ElementKind::Objects => "objects",
            ElementKind::Scalars => "scalars",
        }
    }
}

fn fields_of(fields: &[(String, Seen)]) -> Fields {
    fields
        .iter()
        .map(|(name, t)| Field::new(name, t.data_type(), true))
        .collect()
}

/// The fields of `a`, then those of `b` that `a` has not, each field of
/// both joined. Wide records (thousands of keys) find their fields through
/// a map, others by a scan.
fn merge_fields(mut a: Vec<(String, Seen)>, b: Vec<(String, Seen)>) -> Vec<(String, Seen)> {
    // Each side's names are distinct (a map's keys, or an earlier merge).
    if a.is_empty() {
        return b;
    }
    let wide = (a.len() + b.len()).saturating_mul(b.len()) > 4096;
    let mut index: Option<HashMap<String, usize>> = wide.then(|| {
        a.iter()
            .enumerate()
            .map(|(i, (n, _))| (n.clone(), i))
            .collect()
    });
    for (name, t) in b {
        let found = match &index {
            Some(index) => index.get(&name).copied(),
            None => a.iter().position(|(n, _)| *n == name),
        };
        match found {
            Some(i) => a[i].1 = std::mem::replace(&mut a[i].1, Seen::Null).join(t),
            None => {
                if let Some(index) = &mut index {
                    index.insert(name.clone(), a.len());
                }
                a.push((name, t));
            }
        }
    }
    a
}

/// The type of `value`, by arrow-json's reading.
fn seen(value: &Value) -> Seen {
    match value {
        Value::Null => Seen::Null,
        Value::Bool(_) => Seen::Bool,
        // serde_json's `is_i64`, which arrow-json uses.
        Value::Number(n) if n.is_i64() => Seen::Int,
        Value::Number(_) => Seen::Float,
        Value::String(_) => Seen::Text,
        Value::Array(items) => {
            // arrow-json decides an array's kind by its first element: then
            // all arrays, all objects (no `null` among them either), or all
            // scalars and `null`s.
            let mut elem = Seen::Null;
            let mut kind = None;
            for item in items {
                let v = seen(item);
                let this = ElementKind::of(&v);
                let expected = *kind.get_or_insert(this);
                let v = match v {
                    _ if this != expected => Seen::Conflict(format!(
                        "{} in an array of {}",
                        v.describe(),
                        expected.describe()
                    )),
                    Seen::Null => Seen::NullElements,
                    v => v,
                };
                elem = elem.join(v);
            }
            Seen::List(Box::new(elem))
        }
        // In the map's order (serde_json's: sorted by key, or the keys'
        // order with its `preserve_order` feature), as arrow-json visits them.
        Value::Object(map) => Seen::Object(map.iter().map(|(k, v)| (k.clone(), seen(v))).collect()),
    }
}

/// Infers a schema from the first `max_records` records of `reader` (NDJSON:
/// one record per line; `None`: all of them), as arrow-json's
/// `infer_json_schema` does: integers are Int64, other numbers Float64, mixed
/// integers and floats Float64, other mixed scalars Utf8, a scalar and an array
/// a list, fields only ever null Null, an array of `null`s a list of Utf8;
/// every field is nullable. Field order is arrow-json's: each record's keys
/// in serde_json's map order (by name, or as written under serde_json's
/// `preserve_order`), and keys first seen in a later record after the
/// earlier ones; a key repeated in one record takes its last value. An
/// array's first element decides whether it holds arrays, objects or
/// scalars (and `null`s), and the others must follow. Each line is trimmed
/// of Unicode whitespace and parsed by serde_json, as arrow-json reads it
/// (numbers beyond f64's range and containers nested 128 deep are refused
/// alike). Returns the schema and the number of records read.
///
/// Errors: a failed read or a line that is not UTF-8 (`JsonError`, "Failed
/// to read JSON record", as arrow-json's), a line that is not JSON, a record
/// that is not an object, an object and a non-object value for the same
/// field, an array mixing arrays, objects and scalars.
pub fn infer_schema<R: BufRead>(
    mut reader: R,
    max_records: Option<usize>,
) -> Result<(Schema, usize), ArrowError> {
    let mut record = Seen::Object(Vec::new());
    let mut line = String::new();
    let mut records = 0;
    let mut line_number = 0;
    while max_records.is_none_or(|max| records < max) {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            // arrow-json's words (and kind) for a failed read, invalid
            // UTF-8 included.
            Err(e) => {
                return Err(ArrowError::JsonError(format!(
                    "Failed to read JSON record: {e}"
                )));
            }
        }
        line_number += 1;
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let fail = |e: String| ArrowError::JsonError(format!("line {line_number}: {e}"));
        let value: Value = serde_json::from_str(trimmed).map_err(|e| fail(e.to_string()))?;
        let seen = seen(&value);
        if !matches!(seen, Seen::Object(_)) {
            return Err(fail(format!(
                "expected a record (an object), found {}",
                seen.describe()
            )));
        }
        record = record.join(seen);
        if let Some(conflict) = record.conflict() {
            return Err(fail(conflict.to_string()));
        }
        records += 1;
    }
    let Seen::Object(fields) = record else {
        unreachable!("records are objects")
    };
    Ok((Schema::new(fields_of(&fields)), records))
}

/// [`infer_schema`] as a shareable [`SchemaRef`](arrow_schema::SchemaRef).
pub fn infer_schema_ref<R: BufRead>(
    reader: R,
    max_records: Option<usize>,
) -> Result<arrow_schema::SchemaRef, ArrowError> {
    Ok(Arc::new(infer_schema(reader, max_records)?.0))
}
