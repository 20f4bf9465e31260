//! Key tables: a struct's field names and aliases in an open-addressing hash
//! table, for finding the field a raw key names in a few compares whatever the
//! struct's size. Generated code tries the key it speculates on inline and asks
//! the table only on a miss (`jitson_jit`'s `match_key` helper); a linear search
//! over thirty names costs several times as much once keys arrive out of the
//! order compiled.
//!
//! The hash reads at most the first and last eight bytes of the key and its
//! length (the approach of simdjson's and sonic's key hashing: field names of one
//! struct almost always differ there), mixed by one multiplication (Fibonacci
//! hashing, Knuth TAOCP vol. 3, 6.4).

use crate::layout::StructLayout;

/// One occupied slot: a name's hash, the name and the index of the field it
/// names. A probe compares the hashes first: a key no field has (most of
/// those a projection meets) is refused without comparing its bytes.
type Slot = Option<(u64, &'static [u8], u32)>;

/// A struct's names (`Field::name` and every alias) to field index.
#[derive(Debug)]
pub struct KeyTable {
    /// A power of two in length, at most half full; `None` ends a probe.
    slots: Box<[Slot]>,
    /// `64 - log2(slots.len())`: the hash's top bits pick the first slot.
    shift: u32,
    /// Bit `min(len, 63)` set for the length of each name: a key of another
    /// length names nothing, without hashing (a projection's struct meets
    /// many keys it does not keep, most of them of lengths it has no name of).
    lengths: u64,
}

impl KeyTable {
    /// The table of `st`'s names. A name given twice (a field's name and another's
    /// alias) resolves to the first field, as [`StructLayout`]'s linear search
    /// does.
    pub fn new(st: &StructLayout) -> KeyTable {
        let names = st.fields.iter().enumerate().flat_map(|(i, f)| {
            std::iter::once(f.name)
                .chain(f.aliases.iter().copied())
                .map(move |name| (name.as_bytes(), i as u32))
        });
        let count = names.clone().count();
        let bits = (2 * count).max(2).next_power_of_two().trailing_zeros();
        let mut table = KeyTable {
            slots: vec![None; 1 << bits].into_boxed_slice(),
            shift: 64 - bits,
            lengths: 0,
        };
        for (name, index) in names {
            if table.get(name).is_none() {
                let hash = hash(name);
                let mut slot = table.first_slot(hash);
                while table.slots[slot].is_some() {
                    slot = (slot + 1) & (table.slots.len() - 1);
                }
                table.slots[slot] = Some((hash, name, index));
                table.lengths |= length_bit(name);
            }
        }
        table
    }

    /// The index of the field `key` (raw, unescaped bytes) names, if any.
    #[inline]
    pub fn get(&self, key: &[u8]) -> Option<usize> {
        if self.lengths & length_bit(key) == 0 {
            return None;
        }
        let mask = self.slots.len() - 1;
        let hash = hash(key);
        let mut slot = self.first_slot(hash);
        loop {
            match self.slots[slot] {
                None => return None,
                Some((h, name, index)) if h == hash && name == key => return Some(index as usize),
                Some(_) => slot = (slot + 1) & mask,
            }
        }
    }

    fn first_slot(&self, hash: u64) -> usize {
        (hash >> self.shift) as usize
    }
}

/// The bit of [`KeyTable::lengths`] for a name or key of `key`'s length (63
/// for every length from 63 up).
#[inline]
fn length_bit(key: &[u8]) -> u64 {
    1 << key.len().min(63)
}

/// The first and last (up to) eight bytes and the length, multiplied by 2^64/φ.
/// Keys under eight bytes are read as two overlapping four-byte words, or as
/// their first, middle and last bytes, never through a copy of a length known
/// only at run time (which the compiler makes a `memcpy` call).
#[inline]
fn hash(key: &[u8]) -> u64 {
    let n = key.len();
    let u64_at = |i: usize| u64::from_le_bytes(key[i..i + 8].try_into().expect("8 bytes"));
    let u32_at = |i: usize| {
        u64::from(u32::from_le_bytes(
            key[i..i + 4].try_into().expect("4 bytes"),
        ))
    };
    let (head, tail) = match n {
        8.. => (u64_at(0), u64_at(n - 8)),
        4..8 => (u32_at(0) | u32_at(n - 4) << 32, 0),
        1..4 => (
            u64::from(key[0]) | u64::from(key[n / 2]) << 8 | u64::from(key[n - 1]) << 16,
            0,
        ),
        0 => (0, 0),
    };
    (head ^ tail.rotate_left(29) ^ (n as u64) << 56).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{Field, Kind, LayoutRef, StructLayout, TypeLayout};

    static U8: TypeLayout = TypeLayout::of::<u8>("u8", Kind::U8);

    fn field(name: &'static str, aliases: &'static [&'static str]) -> Field {
        Field {
            name,
            aliases,
            offset: 0,
            layout: LayoutRef::Node(&U8),
            default: None,
            skip_if: None,
        }
    }

    #[test]
    fn finds_every_name_and_alias_and_nothing_else() {
        let names: Vec<&'static str> = (0..60)
            .map(|i| &*Box::leak(format!("field_name_{i}").into_boxed_str()))
            .chain([
                "a",
                "",
                "id",
                "ids",
                "x_long_common_prefix_1",
                "x_long_common_prefix_2",
            ])
            .collect();
        let mut fields: Vec<Field> = names.iter().map(|n| field(n, &[])).collect();
        fields.push(field("renamed", &["alias_one", "a"]));
        let st = StructLayout {
            name: "Many",
            fields: Box::leak(fields.into_boxed_slice()),
            skipped: &[],
            deny_unknown_fields: false,
            duplicate_keys: crate::layout::DuplicateKeys::Error,
            skip_unknown: crate::layout::SkipMode::Validate,
            flatten: &[],
        };
        let table = KeyTable::new(&st);
        for (i, f) in st.fields.iter().enumerate() {
            assert_eq!(table.get(f.name.as_bytes()), Some(i), "{}", f.name);
        }
        assert_eq!(table.get(b"alias_one"), Some(st.fields.len() - 1));
        // "a" is a field's name before it is the last field's alias.
        assert_eq!(
            table.get(b"a"),
            st.fields.iter().position(|f| f.name == "a")
        );
        for miss in [
            "field_name_60",
            "b",
            "field_name_",
            "x_long_common_prefix_3",
            "Id",
        ] {
            assert_eq!(table.get(miss.as_bytes()), None, "{miss}");
        }
    }

    /// Names of every length up to 130 (the length filter's last bit stands
    /// for every length from 63 up) are found, and keys of the lengths in
    /// between, or one byte off, are not.
    #[test]
    fn names_of_every_length() {
        let names: Vec<&'static str> = (0..=130)
            .step_by(3)
            .map(|n| &*Box::leak("k".repeat(n).into_boxed_str()))
            .collect();
        let fields: Vec<Field> = names.iter().map(|n| field(n, &[])).collect();
        let st = StructLayout {
            name: "Lengths",
            fields: Box::leak(fields.into_boxed_slice()),
            skipped: &[],
            deny_unknown_fields: false,
            duplicate_keys: crate::layout::DuplicateKeys::Error,
            skip_unknown: crate::layout::SkipMode::Validate,
            flatten: &[],
        };
        let table = KeyTable::new(&st);
        for n in 0..=140 {
            let key = "k".repeat(n);
            let expected = (n % 3 == 0 && n <= 130).then_some(n / 3);
            assert_eq!(table.get(key.as_bytes()), expected, "length {n}");
            let other = "j".repeat(n);
            assert_eq!(
                table.get(other.as_bytes()),
                (n == 0).then_some(0),
                "j x {n}"
            );
        }
    }
}
