//! [`Decoder::serialize`](crate::reader::Decoder::serialize)'s text: rows
//! written as JSON by serde_json, with each float written for the column it
//! lands in.
//!
//! arrow-json's serializer keeps a float as a typed tape element (`F32`,
//! `F64`), and each column decoder has its own rule for one: float columns
//! cast it, integer and temporal columns truncate it (`NumCast`), decimals read
//! its `Display` text, text columns under `coerce_primitive` write it with
//! ryu (Utf8) or `Display` (Utf8View), timestamps refuse it; `NaN` and the
//! infinities are values, where JSON text has only `null`. The reader sees
//! only text, so the text of each float is chosen here from the column's
//! type ([`float_text`]), and reading it gives what that rule gives. Every
//! other value is written as serde_json writes it, which the reader already
//! reads as arrow-json's serializer does.
//!
//! The column of a value is followed down the serde calls: a struct's or a
//! map's field names the field of a `Struct` column, a map's values are a
//! `Map` column's values, a sequence's elements are a list's items (or, for
//! a `Struct` column in list mode, its fields in order). A value with no
//! column (a key no field names) keeps serde_json's text.

use arrow_schema::DataType;
use serde::ser::{
    Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple,
    SerializeTupleStruct, SerializeTupleVariant, Serializer,
};

/// `value` written for the column of type `ty` (`None`: no column) when
/// text columns coerce primitives (`coerce`).
pub(crate) struct Typed<'a, T: ?Sized> {
    pub value: &'a T,
    pub ty: Option<&'a DataType>,
    pub coerce: bool,
}

impl<T: Serialize + ?Sized> Serialize for Typed<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(Columned {
            inner: serializer,
            ty: self.ty,
            coerce: self.coerce,
        })
    }
}

/// A float as arrow-json's serializer keeps it.
#[derive(Clone, Copy)]
enum Float {
    F32(f32),
    F64(f64),
}

impl Float {
    fn widened(self) -> f64 {
        match self {
            Float::F32(v) => f64::from(v),
            Float::F64(v) => v,
        }
    }

    /// Rust's `Display` of the value (what arrow-json's decimal and
    /// Utf8View decoders read: `10000000000000000`, `0.00000015`, `NaN`).
    fn display(self) -> String {
        match self {
            Float::F32(v) => v.to_string(),
            Float::F64(v) => v.to_string(),
        }
    }
}

/// What to write for a float headed for a column of type `ty`.
enum FloatText {
    /// A JSON number of this value's shortest text.
    F64(f64),
    F32(f32),
    /// A JSON string.
    Str(String),
    /// serde_json's own text for the value (a non-finite one is `null`).
    AsIs,
}

/// The text for `v` such that the reader, reading it into a column of type
/// `ty`, gives what arrow-json's column decoder gives for the tape element.
fn float_text(v: Float, ty: &DataType, coerce: bool) -> FloatText {
    let wide = v.widened();
    // `NaN`, `-NaN`, `inf`, `-inf`: the strings the float columns' grammar
    // reads (a NaN's sign kept, its payload not: the quiet NaN of that sign),
    // and that no integer, temporal or decimal column reads (as arrow-json's
    // `NumCast` and decimal parser refuse the values).
    let non_finite = || {
        FloatText::Str(if wide.is_nan() && wide.is_sign_negative() {
            "-NaN".to_owned()
        } else {
            v.display()
        })
    };
    match ty {
        DataType::Float64 if wide.is_finite() => FloatText::F64(wide),
        // A cast from `f64` rounds once; the decimal text of the double
        // would round a second time. A value past the narrow type's range
        // keeps its text, which the reader refuses as arrow-json's cast does.
        DataType::Float32 if wide.is_finite() => match v {
            Float::F32(x) => FloatText::F32(x),
            Float::F64(x) if (x as f32).is_finite() => FloatText::F32(x as f32),
            Float::F64(_) => FloatText::AsIs,
        },
        DataType::Float16 if wide.is_finite() => {
            let half = match v {
                Float::F32(x) => half::f16::from_f32(x),
                Float::F64(x) => half::f16::from_f64(x),
            };
            if half.is_finite() {
                FloatText::F32(half.to_f32())
            } else {
                FloatText::AsIs
            }
        }
        DataType::Float16 | DataType::Float32 | DataType::Float64 => non_finite(),
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64
        | DataType::Date32
        | DataType::Date64
        | DataType::Time32(_)
        | DataType::Time64(_)
        | DataType::Duration(_) => {
            if wide.is_finite() {
                // Truncated from the exact value: an `f32` widened first.
                FloatText::F64(wide)
            } else {
                non_finite()
            }
        }
        // arrow-json's timestamp decoder refuses a float: a string that is
        // no timestamp is refused alike (and is null under
        // `ignore_type_conflicts`, as there).
        DataType::Timestamp(..) => FloatText::Str(v.display()),
        DataType::Decimal32(..)
        | DataType::Decimal64(..)
        | DataType::Decimal128(..)
        | DataType::Decimal256(..) => FloatText::Str(v.display()),
        DataType::Utf8 | DataType::LargeUtf8 if coerce => FloatText::Str(match v {
            _ if !wide.is_finite() => v.display(),
            Float::F32(x) => ryu::Buffer::new().format_finite(x).to_owned(),
            Float::F64(x) => ryu::Buffer::new().format_finite(x).to_owned(),
        }),
        DataType::Utf8View if coerce => FloatText::Str(v.display()),
        // Refused where a number is (text without coercion, booleans,
        // binary, nested columns): a finite value as its number, a
        // non-finite one as the number 0, since JSON has no text for it that
        // these columns refuse alike.
        _ if wide.is_finite() => FloatText::AsIs,
        _ => FloatText::F64(0.0),
    }
}

/// The column type a value of a column of type `ty` is read as: a
/// dictionary's values.
fn resolved(ty: Option<&DataType>) -> Option<&DataType> {
    match ty {
        Some(DataType::Dictionary(_, value)) => resolved(Some(value)),
        other => other,
    }
}

/// The type of field `name` of a `Struct` column, or of any value of a
/// `Map` column.
fn member<'a>(ty: Option<&'a DataType>, name: &str) -> Option<&'a DataType> {
    match resolved(ty)? {
        DataType::Struct(fields) => fields
            .iter()
            .find(|f| f.name() == name)
            .map(|f| f.data_type()),
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => Some(kv[1].data_type()),
            _ => None,
        },
        _ => None,
    }
}

/// The type of element `index` of a sequence in a column of type `ty`: a
/// list's item, or a `Struct` column's field `index` (list mode).
fn element(ty: Option<&DataType>, index: usize) -> Option<&DataType> {
    match resolved(ty)? {
        DataType::List(item)
        | DataType::LargeList(item)
        | DataType::ListView(item)
        | DataType::LargeListView(item)
        | DataType::FixedSizeList(item, _) => Some(item.data_type()),
        DataType::Struct(fields) => fields.get(index).map(|f| f.data_type()),
        _ => None,
    }
}

/// A serializer that writes through `inner`, floats for their column.
struct Columned<'a, S> {
    inner: S,
    ty: Option<&'a DataType>,
    coerce: bool,
}

impl<'a, S: Serializer> Columned<'a, S> {
    fn float(self, v: Float) -> Result<S::Ok, S::Error> {
        let text = match resolved(self.ty) {
            Some(ty) => float_text(v, ty, self.coerce),
            None => FloatText::AsIs,
        };
        match (text, v) {
            (FloatText::F64(x), _) => self.inner.serialize_f64(x),
            (FloatText::F32(x), _) => self.inner.serialize_f32(x),
            (FloatText::Str(s), _) => self.inner.serialize_str(&s),
            (FloatText::AsIs, Float::F32(x)) => self.inner.serialize_f32(x),
            (FloatText::AsIs, Float::F64(x)) => self.inner.serialize_f64(x),
        }
    }
}

/// Forwards a scalar to `inner` unchanged.
macro_rules! forward {
    ($($method:ident($($arg:ident: $t:ty),*);)*) => {$(
        fn $method(self, $($arg: $t),*) -> Result<S::Ok, S::Error> {
            self.inner.$method($($arg),*)
        }
    )*};
}

impl<'a, S: Serializer> Serializer for Columned<'a, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Elements<'a, S::SerializeSeq>;
    type SerializeTuple = Elements<'a, S::SerializeTuple>;
    type SerializeTupleStruct = Elements<'a, S::SerializeTupleStruct>;
    type SerializeTupleVariant = Elements<'a, S::SerializeTupleVariant>;
    type SerializeMap = Members<'a, S::SerializeMap>;
    type SerializeStruct = Members<'a, S::SerializeStruct>;
    type SerializeStructVariant = Members<'a, S::SerializeStructVariant>;

    forward! {
        serialize_bool(v: bool);
        serialize_i8(v: i8);
        serialize_i16(v: i16);
        serialize_i32(v: i32);
        serialize_i64(v: i64);
        serialize_i128(v: i128);
        serialize_u8(v: u8);
        serialize_u16(v: u16);
        serialize_u32(v: u32);
        serialize_u64(v: u64);
        serialize_u128(v: u128);
        serialize_char(v: char);
        serialize_str(v: &str);
        serialize_bytes(v: &[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(name: &'static str);
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str);
    }

    fn serialize_f32(self, v: f32) -> Result<S::Ok, S::Error> {
        self.float(Float::F32(v))
    }

    fn serialize_f64(self, v: f64) -> Result<S::Ok, S::Error> {
        self.float(Float::F64(v))
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        let value = Typed {
            value,
            ty: self.ty,
            coerce: self.coerce,
        };
        self.inner.serialize_some(&value)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        let value = Typed {
            value,
            ty: self.ty,
            coerce: self.coerce,
        };
        self.inner.serialize_newtype_struct(name, &value)
    }

    /// `{"variant": value}`: the value is the column's field `variant`.
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        let value = Typed {
            value,
            ty: member(self.ty, variant),
            coerce: self.coerce,
        };
        self.inner
            .serialize_newtype_variant(name, index, variant, &value)
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        Ok(Elements::new(
            self.inner.serialize_seq(len)?,
            self.ty,
            self.coerce,
        ))
    }

    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        Ok(Elements::new(
            self.inner.serialize_tuple(len)?,
            self.ty,
            self.coerce,
        ))
    }

    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        let inner = self.inner.serialize_tuple_struct(name, len)?;
        Ok(Elements::new(inner, self.ty, self.coerce))
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        let inner = self
            .inner
            .serialize_tuple_variant(name, index, variant, len)?;
        Ok(Elements::new(inner, member(self.ty, variant), self.coerce))
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        Ok(Members::new(
            self.inner.serialize_map(len)?,
            self.ty,
            self.coerce,
        ))
    }

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        let inner = self.inner.serialize_struct(name, len)?;
        Ok(Members::new(inner, self.ty, self.coerce))
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        let inner = self
            .inner
            .serialize_struct_variant(name, index, variant, len)?;
        Ok(Members::new(inner, member(self.ty, variant), self.coerce))
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// A sequence's elements, each in its column ([`element`]).
pub(crate) struct Elements<'a, C> {
    inner: C,
    ty: Option<&'a DataType>,
    coerce: bool,
    index: usize,
}

impl<'a, C> Elements<'a, C> {
    fn new(inner: C, ty: Option<&'a DataType>, coerce: bool) -> Self {
        Elements {
            inner,
            ty,
            coerce,
            index: 0,
        }
    }
}

/// Implements one of serde's sequence traits for [`Elements`].
macro_rules! elements {
    ($($trait:ident: $method:ident;)*) => {$(
        impl<C: $trait> $trait for Elements<'_, C> {
            type Ok = C::Ok;
            type Error = C::Error;

            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
                let typed = Typed {
                    value,
                    ty: element(self.ty, self.index),
                    coerce: self.coerce,
                };
                self.index += 1;
                self.inner.$method(&typed)
            }

            fn end(self) -> Result<C::Ok, C::Error> {
                self.inner.end()
            }
        }
    )*};
}

elements! {
    SerializeSeq: serialize_element;
    SerializeTuple: serialize_element;
    SerializeTupleStruct: serialize_field;
    SerializeTupleVariant: serialize_field;
}

/// A struct's or a map's members, each in the column its key names
/// ([`member`]).
pub(crate) struct Members<'a, C> {
    inner: C,
    ty: Option<&'a DataType>,
    coerce: bool,
    /// The column of the value whose key was written last (maps).
    value_ty: Option<&'a DataType>,
}

impl<'a, C> Members<'a, C> {
    fn new(inner: C, ty: Option<&'a DataType>, coerce: bool) -> Self {
        Members {
            inner,
            ty,
            coerce,
            value_ty: None,
        }
    }
}

/// Implements one of serde's struct traits for [`Members`].
macro_rules! members {
    ($($trait:ident;)*) => {$(
        impl<C: $trait> $trait for Members<'_, C> {
            type Ok = C::Ok;
            type Error = C::Error;

            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), C::Error> {
                let typed = Typed {
                    value,
                    ty: member(self.ty, key),
                    coerce: self.coerce,
                };
                self.inner.serialize_field(key, &typed)
            }

            fn skip_field(&mut self, key: &'static str) -> Result<(), C::Error> {
                self.inner.skip_field(key)
            }

            fn end(self) -> Result<C::Ok, C::Error> {
                self.inner.end()
            }
        }
    )*};
}

members! {
    SerializeStruct;
    SerializeStructVariant;
}

impl<C: SerializeMap> SerializeMap for Members<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;

    /// The key as serde_json writes a map key (a string, or a number's
    /// text), which names the value's field.
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), C::Error> {
        self.value_ty = match resolved(self.ty) {
            Some(DataType::Struct(_)) => key_text(key).and_then(|k| member(self.ty, &k)),
            _ => member(self.ty, ""),
        };
        self.inner.serialize_key(key)
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        let typed = Typed {
            value,
            ty: self.value_ty.take(),
            coerce: self.coerce,
        };
        self.inner.serialize_value(&typed)
    }

    fn end(self) -> Result<C::Ok, C::Error> {
        self.inner.end()
    }
}

/// The text serde_json writes for `key` as a map key (a string as it is, a
/// number's digits), unescaped; `None` for a key serde_json refuses.
fn key_text<T: Serialize + ?Sized>(key: &T) -> Option<String> {
    match serde_json::to_value(KeyOnly(key)).ok()? {
        serde_json::Value::Object(map) => map.into_iter().next().map(|(k, _)| k),
        _ => None,
    }
}

/// A value serialized as a map key: a one-entry map's key, the text
/// serde_json gives it.
struct KeyOnly<'a, T: ?Sized>(&'a T);

impl<T: Serialize + ?Sized> Serialize for KeyOnly<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(self.0, &())?;
        map.end()
    }
}
