//! Schema inference from a sample of records, with arrow-json's conventions.

use std::io::BufRead;
use std::sync::Arc;

use arrow_schema::{ArrowError, DataType, Field, Fields, Schema};
use jitson_core::text;

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
            (NullElements, x) | (x, NullElements) => x,
            (a, b) if a == b => a,
            (Int, Float) | (Float, Int) => Float,
            (List(a), List(b)) => List(Box::new(a.join(*b))),
            (List(a), s) | (s, List(a)) if !matches!(s, Object(_)) => List(Box::new(a.join(s))),
            (Object(mut a), Object(b)) => {
                for (name, t) in b {
                    match a.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, seen)) => *seen = std::mem::replace(seen, Null).join(t),
                        None => a.push((name, t)),
                    }
                }
                Object(a)
            }
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

/// Reads one value at `*pos` and returns its type.
fn value(input: &[u8], pos: &mut usize, scratch: &mut Vec<u8>, depth: u32) -> Result<Seen, String> {
    if depth == 0 {
        return Err("nesting too deep".into());
    }
    let lex = |e: text::LexError| format!("{} at byte {}", e.0, e.1);
    *pos = text::skip_ws(input, *pos);
    let Some(&b) = input.get(*pos) else {
        return Err("unexpected end of input".into());
    };
    Ok(match b {
        b'n' => {
            *pos = text::parse_ident(input, *pos + 1, b"ull").map_err(lex)?;
            Seen::Null
        }
        b't' | b'f' => {
            let rest: &[u8] = if b == b't' { b"rue" } else { b"alse" };
            *pos = text::parse_ident(input, *pos + 1, rest).map_err(lex)?;
            Seen::Bool
        }
        b'"' => {
            *pos = text::parse_str(input, *pos + 1, scratch, true)
                .map_err(lex)?
                .1;
            Seen::Text
        }
        b'-' | b'0'..=b'9' => {
            let n = text::scan_number(input, *pos).map_err(lex)?;
            *pos = n.end;
            // Integers that fit i64 (serde_json's `is_i64`, which arrow-json uses).
            let fits_i64 = n.is_json_integer() && (n.negative || n.mantissa <= i64::MAX as u64);
            if fits_i64 {
                Seen::Int
            } else {
                // serde_json (arrow-json's parser here) refuses a number
                // beyond f64's range; the text is ASCII.
                let text = core::str::from_utf8(&input[n.start..n.end]).unwrap_or_default();
                if text.parse::<f64>().map_or(true, f64::is_infinite) {
                    return Err(format!("number out of range at byte {}", n.start));
                }
                Seen::Float
            }
        }
        b'[' => {
            *pos += 1;
            let mut elem = Seen::Null;
            if text::skip_ws(input, *pos) < input.len() && input[text::skip_ws(input, *pos)] == b']'
            {
                *pos = text::skip_ws(input, *pos) + 1;
                return Ok(Seen::List(Box::new(elem)));
            }
            // arrow-json decides an array's kind by its first element: then
            // all arrays, all objects (no `null` among them either), or all
            // scalars and `null`s.
            let mut kind = None;
            loop {
                let v = value(input, pos, scratch, depth - 1)?;
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
                *pos = text::skip_ws(input, *pos);
                match input.get(*pos) {
                    Some(b',') => *pos += 1,
                    Some(b']') => {
                        *pos += 1;
                        break Seen::List(Box::new(elem));
                    }
                    _ => return Err(format!("expected `,` or `]` at byte {pos}")),
                }
            }
        }
        b'{' => {
            *pos += 1;
            let mut fields: Vec<(String, Seen)> = Vec::new();
            *pos = text::skip_ws(input, *pos);
            if input.get(*pos) == Some(&b'}') {
                *pos += 1;
                return Ok(Seen::Object(fields));
            }
            loop {
                *pos = text::skip_ws(input, *pos);
                if input.get(*pos) != Some(&b'"') {
                    return Err(format!("expected a key at byte {pos}"));
                }
                let (located, end) =
                    text::parse_str(input, *pos + 1, scratch, true).map_err(lex)?;
                let name = String::from_utf8_lossy(located.bytes(input, scratch)).into_owned();
                *pos = text::skip_ws(input, end);
                if input.get(*pos) != Some(&b':') {
                    return Err(format!("expected `:` at byte {pos}"));
                }
                *pos += 1;
                let t = value(input, pos, scratch, depth - 1)?;
                // A repeated key: the last value stands (arrow-json reads a
                // record as a serde_json map).
                match fields.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, seen)) => *seen = t,
                    None => fields.push((name, t)),
                }
                *pos = text::skip_ws(input, *pos);
                match input.get(*pos) {
                    Some(b',') => *pos += 1,
                    Some(b'}') => {
                        *pos += 1;
                        // A record's keys in name order, as arrow-json visits
                        // them (a serde_json map is sorted); records after the
                        // first add their new keys after the known ones.
                        fields.sort_by(|a, b| a.0.cmp(&b.0));
                        break Seen::Object(fields);
                    }
                    _ => return Err(format!("expected `,` or `}}` at byte {pos}")),
                }
            }
        }
        _ => return Err(format!("expected a value at byte {pos}")),
    })
}

/// Infers a schema from the first `max_records` records of `reader` (NDJSON:
/// one record per line; `None`: all of them), as arrow-json's
/// `infer_json_schema` does: integers are Int64, other numbers Float64, mixed
/// integers and floats Float64, other mixed scalars Utf8, a scalar and an array
/// a list, fields only ever null Null; every field is nullable. Field order is
/// arrow-json's: each record's keys in name order (byte order), and keys first
/// seen in a later record after the earlier ones; a key repeated in one
/// record takes its last value. An array's first element decides whether it
/// holds arrays, objects or scalars (and `null`s), and the others must follow;
/// numbers beyond f64's range are refused; both as arrow-json. Returns the
/// schema and the number of records read.
///
/// Errors: I/O errors, a line that is not JSON, a record that is not an object,
/// an object and a non-object value for the same field, an array mixing
/// arrays, objects and scalars, a number beyond f64's range.
pub fn infer_schema<R: BufRead>(
    mut reader: R,
    max_records: Option<usize>,
) -> Result<(Schema, usize), ArrowError> {
    let mut record = Seen::Object(Vec::new());
    let mut line = Vec::new();
    let mut scratch = Vec::new();
    let mut records = 0;
    let mut line_number = 0;
    while max_records.is_none_or(|max| records < max) {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        line_number += 1;
        if line.iter().all(|&b| text::is_ws(b)) {
            continue;
        }
        let fail = |e: String| ArrowError::JsonError(format!("line {line_number}: {e}"));
        let mut pos = 0;
        let seen = value(&line, &mut pos, &mut scratch, 128).map_err(fail)?;
        if !matches!(seen, Seen::Object(_)) {
            return Err(fail(format!(
                "expected a record (an object), found {}",
                seen.describe()
            )));
        }
        if text::skip_ws(&line, pos) != line.len() {
            return Err(fail("more than one value on the line".into()));
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
