//! indexmap's types (feature `indexmap`), as indexmap's serde impls (indexmap
//! 2) have serde_json read and write them:
//!
//! | type | JSON | read as | written as |
//! |---|---|---|---|
//! | `IndexMap<K, V, S>` | object | `HashMap`'s map kind: members in document order, a repeated key keeps its first place and takes the last value (`IndexMap::insert`) | members in the map's order |
//! | `IndexSet<T, S>` | array | a sequence (expecting "a set"), then collected: a repeated element keeps its first place and the first value (`IndexSet::insert`) | elements in the set's order |
//!
//! An `IndexMap` is a [`Kind::Map`] like `HashMap`, through the same
//! [`AnyMap`] / [`EachEntry`] functions, so generated code decodes and
//! encodes it as it does `HashMap` (the map loop in IR, keys scanned in
//! place, each value by its own generated function), also as a flattened
//! catch-all. An `IndexSet` is read as `HashSet` is, a [`Kind::Convert`] of
//! the compiled sequence, and written through a vector of references to its
//! elements (its elements are not contiguous), which the interpreter encodes,
//! as it does `HashSet`.

use core::hash::Hash;
use std::hash::BuildHasher;

use indexmap::{IndexMap, IndexSet};

use crate::convert::ConvertFrom;
use crate::decode::{
    AnyMap, Decode, DecodeBorrowed, EachEntry, HasLayout, Staged, layout_of, map_for_each,
    map_insert, map_insert_with, map_new, slice_of, staged_map, vec_new, vec_set_len,
    vec_with_capacity,
};
use crate::encode::{Encode, encode_layout_of, no_insert, no_insert_with, no_map_new};
use crate::layout::{Kind, LayoutRef, MapLayout, TypeLayout, VecLayout};

// ---------------------------------------------------------------------------
// IndexMap: a map, like HashMap.

impl<K, V, S> EachEntry<K, V> for IndexMap<K, V, S> {
    fn each(&self, mut f: impl FnMut(&K, &V) -> bool) -> bool {
        self.iter().all(|(k, v)| f(k, v))
    }
}

impl<K: Eq + Hash, V, S: BuildHasher + Default> AnyMap<K, V> for IndexMap<K, V, S> {
    fn put(&mut self, key: K, value: V) {
        // serde's impl inserts each entry: a repeated key stays where it was
        // first read and takes the new value.
        self.insert(key, value);
    }

    /// Room reserved once for `n` entries, inserted in order (so a repeated
    /// key keeps its first place, as above).
    fn put_entries(&mut self, entries: &mut Staged<K, V>) {
        let n = entries.len();
        self.reserve(n);
        for (key, value) in entries {
            self.insert(key, value);
        }
        if self.len() < n / 2 {
            // Repeated keys: do not keep room for every repeat.
            self.shrink_to_fit();
        }
    }
}

// SAFETY: the functions operate on the map only through its API (keys and
// values typed by their `Static` forms, the same types up to lifetimes).
unsafe impl<K, V, S> HasLayout for IndexMap<K, V, S>
where
    K: HasLayout,
    K::Static: Eq + Hash,
    V: HasLayout,
    S: BuildHasher + Default + 'static,
{
    type Static = IndexMap<K::Static, V::Static, S>;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Self::Static>(
        "a map",
        Kind::Map(&MapLayout {
            key: LayoutRef::Lazy(layout_of::<K>),
            value: LayoutRef::Lazy(layout_of::<V>),
            new: map_new::<Self::Static, K::Static, V::Static>,
            insert_with: map_insert_with::<Self::Static, K::Static, V::Static, K>,
            insert: map_insert::<Self::Static, K::Static, V::Static>,
            for_each: Some(map_for_each::<Self::Static, K::Static, V::Static>),
            staged: Some(&staged_map::<Self::Static, K::Static, V::Static>()),
        }),
    );
}

// SAFETY: a map borrows what its keys and values borrow.
unsafe impl<'de, K, V, S> DecodeBorrowed<'de> for IndexMap<K, V, S>
where
    K: DecodeBorrowed<'de>,
    K::Static: Eq + Hash,
    V: DecodeBorrowed<'de>,
    S: BuildHasher + Default + 'static,
{
}

// SAFETY: `map_for_each` reads the map through its iterator; the decoding
// slots are never called (encode layouts reach only encoders).
unsafe impl<K: Encode, V: Encode, S: 'static> Encode for IndexMap<K, V, S> {
    type Static = IndexMap<K::Static, V::Static, S>;
    const ENCODE: &'static TypeLayout = &TypeLayout::of::<Self::Static>(
        "a map",
        Kind::Map(&MapLayout {
            key: LayoutRef::Lazy(encode_layout_of::<K>),
            value: LayoutRef::Lazy(encode_layout_of::<V>),
            new: no_map_new,
            insert_with: no_insert_with,
            insert: no_insert,
            for_each: Some(map_for_each::<Self::Static, K::Static, V::Static>),
            staged: None,
        }),
    );
}

// ---------------------------------------------------------------------------
// IndexSet: a sequence, collected.

/// The elements of an `IndexSet` as read: a `Vec<T>` whose layout expects "a
/// set", the words of indexmap's visitor.
#[repr(transparent)]
pub(crate) struct SetElements<T>(Vec<T>);

// SAFETY: `SetElements<T>` is `repr(transparent)` over `Vec<T>`, so Vec's
// functions (on `T::Static`, the same type up to lifetimes) build and read it.
unsafe impl<T: HasLayout> HasLayout for SetElements<T> {
    type Static = SetElements<T::Static>;
    const LAYOUT: &'static TypeLayout = &TypeLayout::of::<Self::Static>(
        "a set",
        Kind::Vec(&VecLayout {
            elem: LayoutRef::Lazy(layout_of::<T>),
            new: vec_new::<T::Static>,
            with_capacity: vec_with_capacity::<T::Static>,
            set_len: vec_set_len::<T::Static>,
            as_slice: slice_of::<Vec<T::Static>, T::Static>,
            byte_strings: false,
        }),
    );
}

// SAFETY: the elements are a Vec's: they borrow what their type borrows.
unsafe impl<'de, T: DecodeBorrowed<'de>> DecodeBorrowed<'de> for SetElements<T> {}

impl<T: Decode + Eq + Hash, S: BuildHasher + Default + 'static> ConvertFrom for IndexSet<T, S> {
    type Source = SetElements<T>;
    fn convert(elements: SetElements<T>) -> Result<Self, String> {
        // `collect` inserts each element: a repeated one stays where it was
        // first read, as in serde's impl.
        Ok(elements.0.into_iter().collect())
    }
}

crate::convert::decode_by_conversion! {
    [T: Decode + Eq + Hash, S: BuildHasher + Default + 'static] IndexSet<T, S> => "a set";
}

crate::encode::converted! {
    [T: Encode<Static = T> + 'static, S: 'static] IndexSet<T, S> => Vec<&'static T>, "a set",
        // SAFETY: the references live only while the value is encoded, inside
        // `into_fn`, while the set is alive.
        |set: &IndexSet<T, S>| Ok(set.iter().map(|e| unsafe { &*core::ptr::from_ref(e) }).collect());
}
