//! The serializer a map key written through serde runs into (a key type with
//! `serialize_with`, or one `#[jitson(serde)]` routes through serde).
//!
//! serde_json writes a map's key with its own key serializer
//! (`serde_json::ser::MapKeySerializer`, private to serde_json): a string as
//! itself; a bool, an integer or a finite float as its text between quotes;
//! a char or a unit variant as a string; a newtype struct or `Some` as what
//! it holds; anything else refused with "key must be a string" (a float that
//! is not finite with "float key must be finite"). [`MapKey`] takes each
//! serializer call and replays it, unchanged, as the key of serde_json's own
//! compact map writer, so serde_json's key serializer decides every key:
//! what it writes and what it refuses stay serde_json's, in every version.
//!
//! A replayed call is the call itself: `serialize_f64(v)` replays as `v`'s
//! `Serialize` impl (which calls `serialize_f64`); calls no std type makes
//! (`serialize_bytes`, a unit variant, a newtype struct's name, the compound
//! calls) replay through [`Call`] and [`Wrapped`], whose impls make exactly
//! that call.

use core::fmt::Display;

use serde::ser::{
    Error as _, Impossible, Serialize, SerializeMap, SerializeSeq, SerializeStruct,
    SerializeStructVariant, SerializeTuple, SerializeTupleStruct, SerializeTupleVariant,
    Serializer,
};
use serde_json::Error;

use crate::serde_flatten::CompactMap;

pub use crate::layout::{FLOAT_KEY_MUST_BE_FINITE, KEY_MUST_BE_A_STRING};

/// The map key serializer (see the module docs): each call becomes the key
/// of `map`, serde_json's compact map writer.
pub struct MapKey<'a, 'm, 'o> {
    map: &'a mut CompactMap<'m, 'o>,
}

impl MapKey<'_, '_, '_> {
    /// Writes `call` as the map's key: serde_json's key serializer runs it.
    fn key<T: Serialize + ?Sized>(self, call: &T) -> Result<(), Error> {
        self.map.serialize_key(call)
    }

    /// A compound call (a sequence, a map, a struct...): serde_json's key
    /// serializer refuses each; should one ever take it, the key would hold
    /// no value, so it is refused here too.
    fn compound(self, call: Call<'_>) -> Result<Impossible<(), Error>, Error> {
        self.key(&call)?;
        Err(Error::custom(KEY_MUST_BE_A_STRING))
    }
}

/// A serializer call no std type's `Serialize` makes by itself, replayed.
enum Call<'v> {
    Bytes(&'v [u8]),
    UnitStruct(&'static str),
    UnitVariant(&'static str, u32, &'static str),
    Seq(Option<usize>),
    Tuple(usize),
    TupleStruct(&'static str, usize),
    TupleVariant(&'static str, u32, &'static str, usize),
    Map(Option<usize>),
    Struct(&'static str, usize),
    StructVariant(&'static str, u32, &'static str, usize),
}

impl Serialize for Call<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Call::Bytes(v) => s.serialize_bytes(v),
            Call::UnitStruct(name) => s.serialize_unit_struct(name),
            Call::UnitVariant(name, index, variant) => {
                s.serialize_unit_variant(name, index, variant)
            }
            Call::Seq(len) => s.serialize_seq(len)?.end(),
            Call::Tuple(len) => s.serialize_tuple(len)?.end(),
            Call::TupleStruct(name, len) => s.serialize_tuple_struct(name, len)?.end(),
            Call::TupleVariant(name, index, variant, len) => {
                s.serialize_tuple_variant(name, index, variant, len)?.end()
            }
            Call::Map(len) => s.serialize_map(len)?.end(),
            Call::Struct(name, len) => s.serialize_struct(name, len)?.end(),
            Call::StructVariant(name, index, variant, len) => {
                s.serialize_struct_variant(name, index, variant, len)?.end()
            }
        }
    }
}

/// A call that carries a value (or text) of the caller's type, replayed.
enum Wrapped<'v, T: ?Sized> {
    NewtypeStruct(&'static str, &'v T),
    NewtypeVariant(&'static str, u32, &'static str, &'v T),
}

impl<T: Serialize + ?Sized> Serialize for Wrapped<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Wrapped::NewtypeStruct(name, value) => s.serialize_newtype_struct(name, value),
            Wrapped::NewtypeVariant(name, index, variant, value) => {
                s.serialize_newtype_variant(name, index, variant, value)
            }
        }
    }
}

/// `collect_str`, replayed.
struct Collected<'v, T: ?Sized>(&'v T);

impl<T: Display + ?Sized> Serialize for Collected<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self.0)
    }
}

impl Serializer for MapKey<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.key(&v)
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.key(&v)
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.key(&v)
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.key(&v)
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.key(&v)
    }
    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        self.key(&v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.key(&v)
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.key(&v)
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.key(&v)
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.key(&v)
    }
    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        self.key(&v)
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.key(&v)
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.key(&v)
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.key(&v)
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.key(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        self.key(&Call::Bytes(v))
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.key(&None::<()>)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        self.key(&Some(value))
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.key(&())
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<(), Error> {
        self.key(&Call::UnitStruct(name))
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.key(&Call::UnitVariant(name, index, variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.key(&Wrapped::NewtypeStruct(name, value))
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.key(&Wrapped::NewtypeVariant(name, index, variant, value))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Impossible<(), Error>, Error> {
        self.compound(Call::Seq(len))
    }
    fn serialize_tuple(self, len: usize) -> Result<Impossible<(), Error>, Error> {
        self.compound(Call::Tuple(len))
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Impossible<(), Error>, Error> {
        self.compound(Call::TupleStruct(name, len))
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Impossible<(), Error>, Error> {
        self.compound(Call::TupleVariant(name, index, variant, len))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Impossible<(), Error>, Error> {
        self.compound(Call::Map(len))
    }
    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Impossible<(), Error>, Error> {
        self.compound(Call::Struct(name, len))
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Impossible<(), Error>, Error> {
        self.compound(Call::StructVariant(name, index, variant, len))
    }
    fn collect_str<T: Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        self.key(&Collected(value))
    }
}

/// Runs `serialize` with a [`MapKey`] and appends the key serde_json writes
/// for it: one JSON string, with JSON's escapes, quotes included. Fails with
/// serde_json's error ([`KEY_MUST_BE_A_STRING`], [`FLOAT_KEY_MUST_BE_FINITE`],
/// or the value's own); what was appended before the error is left for the
/// caller to truncate.
pub fn key_into(
    out: &mut Vec<u8>,
    serialize: impl FnOnce(MapKey<'_, '_, '_>) -> Result<(), Error>,
) -> Result<(), Error> {
    let open = out.len();
    let mut ser = serde_json::Serializer::new(&mut *out);
    // The map is left open (its key has no value): only the key is wanted,
    // after the `{` the compact writer wrote first.
    serialize(MapKey {
        map: &mut ser.serialize_map(None)?,
    })?;
    debug_assert_eq!(out.get(open), Some(&b'{'));
    out.remove(open);
    Ok(())
}
