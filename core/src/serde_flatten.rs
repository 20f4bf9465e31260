//! The serializer a flattened serde field, or an internally tagged variant's
//! serde-written payload, runs into: serde's own flattening and tagging
//! serializers (`serde::__private::ser::FlatMapSerializer` and
//! `TaggedSerializer`, private to serde) decide what such a value may be by
//! the serializer method it calls, and so must jitson. [`FlatMap`] takes
//! each call as they do and writes the members into serde_json's compact
//! text of one object (`{`, `"key":value` members separated by `,`, `}`), which
//! the backends then write into the object around the field.
//!
//! What each call writes (serde 1.x's rules; "refused" is serde's error,
//! `can only flatten structs and maps (got a char)`, or for a tagged variant
//! `cannot serialize tagged newtype variant E::V containing a char`):
//!
//! | call | flattened | tagged |
//! |---|---|---|
//! | a map, a struct | its entries, its fields | the same |
//! | a unit, a unit struct | nothing | nothing |
//! | `None` | nothing | refused ("an optional") |
//! | `Some(v)`, a newtype struct | `v`'s members | `Some` refused, a newtype `v`'s |
//! | a unit variant `U` | `"U":null` | the same |
//! | a newtype, tuple or struct variant `V` | `"V":` and its value | the same |
//! | a bool, number, char, string, bytes | refused | refused |
//! | a sequence, tuple, tuple struct | refused | refused |
//! | a 128-bit integer | serde's default: `i128 is not supported` | the same |
//!
//! The tag of a tagged variant is written by the backend before these
//! members, as serde's `TaggedSerializer` writes it first.

use serde::ser::{
    Error as _, Impossible, Serialize, SerializeMap, SerializeStruct, SerializeStructVariant,
    SerializeTupleVariant, Serializer,
};
use serde_json::Error;
use serde_json::ser::{CompactFormatter, Compound};
use serde_json::value::RawValue;

pub use crate::layout::Flattening;

/// serde_json's compact map writer over a byte vector: where [`FlatMap`]
/// writes its members.
pub type CompactMap<'m, 'o> = Compound<'m, &'o mut Vec<u8>, CompactFormatter>;

/// The flattening serializer (see the module's table): members go to `map`.
pub struct FlatMap<'a, 'm, 'o> {
    map: &'a mut CompactMap<'m, 'o>,
    flattening: &'a mut Flattening,
}

impl<'a, 'm, 'o> FlatMap<'a, 'm, 'o> {
    /// A serializer writing members into `map`, with `flattening` saying
    /// which of serde's two serializers it stands for.
    pub fn new(map: &'a mut CompactMap<'m, 'o>, flattening: &'a mut Flattening) -> Self {
        FlatMap { map, flattening }
    }

    /// serde's refusal of a value it cannot flatten: recorded for the
    /// backend, which words it.
    fn refuse(self, what: &'static str) -> Error {
        self.flattening.refused = Some(what);
        Error::custom(format_args!(
            "can only flatten structs and maps (got {what})"
        ))
    }
}

/// A variant's value (a tuple or a struct variant's fields), written by
/// serde_json on its own and then given to the map as the value of the
/// variant's member, its key already written.
pub struct VariantValue<'a, 'm, 'o> {
    map: &'a mut CompactMap<'m, 'o>,
    text: Vec<u8>,
    fields: usize,
}

impl VariantValue<'_, '_, '_> {
    /// Opens the value: `[` or `{`.
    fn new<'a, 'm, 'o>(
        map: &'a mut CompactMap<'m, 'o>,
        variant: &'static str,
        open: u8,
    ) -> Result<VariantValue<'a, 'm, 'o>, Error> {
        map.serialize_key(variant)?;
        Ok(VariantValue {
            map,
            text: vec![open],
            fields: 0,
        })
    }

    /// Appends `,` (after the first) and, for a struct variant, the key.
    fn separate(&mut self, key: Option<&'static str>) -> Result<(), Error> {
        if self.fields > 0 {
            self.text.push(b',');
        }
        self.fields += 1;
        if let Some(key) = key {
            serde_json::to_writer(&mut self.text, key)?;
            self.text.push(b':');
        }
        Ok(())
    }

    fn field<T: Serialize + ?Sized>(
        &mut self,
        key: Option<&'static str>,
        value: &T,
    ) -> Result<(), Error> {
        self.separate(key)?;
        serde_json::to_writer(&mut self.text, value)
    }

    /// Closes the value and writes it as the variant member's value.
    fn close(mut self, close: u8) -> Result<(), Error> {
        self.text.push(close);
        let text = String::from_utf8(self.text).map_err(Error::custom)?;
        let raw = RawValue::from_string(text)?;
        self.map.serialize_value(&raw)
    }
}

impl SerializeTupleVariant for VariantValue<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.field(None, value)
    }
    fn end(self) -> Result<(), Error> {
        self.close(b']')
    }
}

impl SerializeStructVariant for VariantValue<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(Some(key), value)
    }
    fn end(self) -> Result<(), Error> {
        self.close(b'}')
    }
}

/// A flattened map's or struct's entries, forwarded to the map.
pub struct Entries<'a, 'm, 'o> {
    map: &'a mut CompactMap<'m, 'o>,
}

impl SerializeMap for Entries<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.map.serialize_key(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.map.serialize_value(value)
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl SerializeStruct for Entries<'_, '_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.map.serialize_entry(key, value)
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl<'a, 'm, 'o> Serializer for FlatMap<'a, 'm, 'o> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = VariantValue<'a, 'm, 'o>;
    type SerializeMap = Entries<'a, 'm, 'o>;
    type SerializeStruct = Entries<'a, 'm, 'o>;
    type SerializeStructVariant = VariantValue<'a, 'm, 'o>;

    fn serialize_bool(self, _: bool) -> Result<(), Error> {
        Err(self.refuse("a boolean"))
    }
    fn serialize_i8(self, _: i8) -> Result<(), Error> {
        Err(self.refuse("an integer"))
    }
    fn serialize_i16(self, _: i16) -> Result<(), Error> {
        Err(self.refuse("an integer"))
    }
    fn serialize_i32(self, _: i32) -> Result<(), Error> {
        Err(self.refuse("an integer"))
    }
    fn serialize_i64(self, _: i64) -> Result<(), Error> {
        Err(self.refuse("an integer"))
    }
    fn serialize_u8(self, _: u8) -> Result<(), Error> {
        Err(self.refuse("an integer"))
    }
    fn serialize_u16(self, _: u16) -> Result<(), Error> {
        Err(self.refuse("an integer"))
    }
    fn serialize_u32(self, _: u32) -> Result<(), Error> {
        Err(self.refuse("an integer"))
    }
    fn serialize_u64(self, _: u64) -> Result<(), Error> {
        Err(self.refuse("an integer"))
    }
    fn serialize_f32(self, _: f32) -> Result<(), Error> {
        Err(self.refuse("a float"))
    }
    fn serialize_f64(self, _: f64) -> Result<(), Error> {
        Err(self.refuse("a float"))
    }
    fn serialize_char(self, _: char) -> Result<(), Error> {
        Err(self.refuse("a char"))
    }
    fn serialize_str(self, _: &str) -> Result<(), Error> {
        Err(self.refuse("a string"))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Error> {
        Err(self.refuse("a byte array"))
    }
    fn serialize_none(self) -> Result<(), Error> {
        if self.flattening.tagged {
            return Err(self.refuse("an optional"));
        }
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        if self.flattening.tagged {
            return Err(self.refuse("an optional"));
        }
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.map.serialize_entry(variant, &())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.map.serialize_entry(variant, value)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Impossible<(), Error>, Error> {
        Err(self.refuse("a sequence"))
    }
    fn serialize_tuple(self, _: usize) -> Result<Impossible<(), Error>, Error> {
        Err(self.refuse("a tuple"))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Impossible<(), Error>, Error> {
        Err(self.refuse("a tuple struct"))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<VariantValue<'a, 'm, 'o>, Error> {
        VariantValue::new(self.map, variant, b'[')
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Entries<'a, 'm, 'o>, Error> {
        Ok(Entries { map: self.map })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Entries<'a, 'm, 'o>, Error> {
        Ok(Entries { map: self.map })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<VariantValue<'a, 'm, 'o>, Error> {
        VariantValue::new(self.map, variant, b'{')
    }
}

/// Runs `serialize` with a [`FlatMap`] over serde_json's compact map writer
/// into `out`: appends the text of one object holding the members, or fails
/// with serde_json's error (the refusal recorded in `flattening`).
pub fn flatten_into(
    out: &mut Vec<u8>,
    flattening: &mut Flattening,
    serialize: impl FnOnce(FlatMap<'_, '_, '_>) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut ser = serde_json::Serializer::new(out);
    let mut map = ser.serialize_map(None)?;
    serialize(FlatMap::new(&mut map, flattening))?;
    SerializeMap::end(map)
}
