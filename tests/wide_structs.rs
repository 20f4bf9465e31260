//! Structs wider than one 64-bit word of written fields (65, 100, 130 decoded
//! fields, 70 skipped ones), compiled by the JIT in both struct lowerings
//! (`StructLowering::Table`: `walk_wide`; `Unrolled`: a `seen` variable per 64
//! fields, `fill_absent_words`, `drop_written_words`). Every document is decoded
//! by every backend (`common::decode`), by the JIT forced to each lowering
//! and by serde_json, and all must agree; `Counted` fields check that every
//! error path drops exactly what was written (run under valgrind too:
//! docs/hardening.md).
//!
//! Each type is instantiated once per lowering (`Wide65<TableTier>`,
//! `Wide65<UnrolledTier>`), and only that lowering's decoder decodes it first:
//! `Tiering::Background` compiles the table, `Tiering::Wait` the unrolled code,
//! after which the type's cache entry serves that code to every backend (a type
//! is promoted only after 32 MB). `JITSON_STRUCTS` forces one lowering for both.

mod common;

use std::fmt::Debug;
use std::marker::PhantomData;

use common::ErrorShape;
use common::counted::{Counted, live};
use common::oracle::agree;
use jitson::{Backend, Decode, Decoder, Error, Tiering};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

impl Serialize for Counted {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl Clone for Counted {
    fn clone(&self) -> Counted {
        Counted::new(&self.0)
    }
}

/// A small deterministic generator (xorshift), for values and shuffles.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

/// The struct lowering a type parameter stands for.
trait Tier: Debug + Clone + PartialEq + Default + Send + Sync + 'static {
    /// The decoder whose first decode of a type compiles this lowering.
    fn decoder<T>() -> Decoder<T>;
}

#[derive(Debug, Clone, PartialEq, Default)]
struct TableTier;

#[derive(Debug, Clone, PartialEq, Default)]
struct UnrolledTier;

impl Tier for TableTier {
    fn decoder<T>() -> Decoder<T> {
        Decoder::<T>::with_backend(Backend::Jit).tiering(Tiering::Background)
    }
}

impl Tier for UnrolledTier {
    fn decoder<T>() -> Decoder<T> {
        Decoder::<T>::with_backend(Backend::Jit).tiering(Tiering::Wait)
    }
}

/// A type decoded by one lowering.
trait Tiered: Decode + DeserializeOwned + PartialEq + Debug {
    fn decoder() -> Decoder<Self>;
}

/// What the tests need of a generated wide struct.
trait Wide: Tiered + Serialize + Clone {
    /// A value with contents derived from `seed` (some options `None`).
    fn sample(seed: u64) -> Self;
    /// Its members as (key, value text), in declaration order.
    fn members(&self) -> Vec<(&'static str, String)>;
    /// The fields that must be present.
    fn required() -> Vec<&'static str>;
    /// The fields that may be absent (`Option`, `#[serde(default)]`).
    fn fillable() -> Vec<&'static str>;
}

/// A struct of groups of five fields: a required `u64`, a required counted
/// string, an `Option<String>`, a required `Vec<String>` and a counted string
/// with `#[serde(default)]`.
macro_rules! wide_struct {
    ($name:ident; $([$r:ident $s:ident $o:ident $v:ident $d:ident])*) => {
        #[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
        struct $name<L: Tier> {
            #[serde(skip)]
            tier: PhantomData<L>,
            $(
                $r: u64,
                $s: Counted,
                $o: Option<String>,
                $v: Vec<String>,
                #[serde(default)]
                $d: Counted,
            )*
        }

        impl<L: Tier> Tiered for $name<L> {
            fn decoder() -> Decoder<Self> {
                L::decoder()
            }
        }

        impl<L: Tier> Wide for $name<L> {
            fn sample(seed: u64) -> Self {
                let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
                $name {
                    tier: PhantomData,
                    $(
                        $r: rng.next() >> (rng.next() % 64),
                        $s: Counted::new(&format!("{}-{}", stringify!($s), rng.next() % 1000)),
                        $o: match rng.next() % 3 {
                            0 => None,
                            1 => Some(String::new()),
                            _ => Some(format!("o\u{e9}\"{}", rng.next() % 100)),
                        },
                        $v: (0..rng.next() % 4).map(|i| format!("v{i}")).collect(),
                        $d: Counted::new(&format!("d{}", rng.next() % 10)),
                    )*
                }
            }

            fn members(&self) -> Vec<(&'static str, String)> {
                let text = |v: &dyn erased::Json| v.json();
                vec![$(
                    (stringify!($r), text(&self.$r)),
                    (stringify!($s), text(&self.$s)),
                    (stringify!($o), text(&self.$o)),
                    (stringify!($v), text(&self.$v)),
                    (stringify!($d), text(&self.$d)),
                )*]
            }

            fn required() -> Vec<&'static str> {
                vec![$(stringify!($r), stringify!($s), stringify!($v)),*]
            }

            fn fillable() -> Vec<&'static str> {
                vec![$(stringify!($o), stringify!($d)),*]
            }
        }
    };
}

/// A struct of groups of a required `u64` and a skipped counted string
/// (initialised by `Default`, which counts it).
macro_rules! skipping_struct {
    ($name:ident; $([$k:ident $x:ident])*) => {
        #[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
        struct $name<L: Tier> {
            #[serde(skip)]
            tier: PhantomData<L>,
            $(
                $k: u64,
                #[serde(skip)]
                $x: Counted,
            )*
        }

        impl<L: Tier> Tiered for $name<L> {
            fn decoder() -> Decoder<Self> {
                L::decoder()
            }
        }
    };
}

mod erased {
    /// A value's JSON text, through serde_json.
    pub trait Json {
        fn json(&self) -> String;
    }

    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> String {
            serde_json::to_string(self).expect("serialises")
        }
    }
}

wide_struct!(Wide65;
    [a0r a0s a0o a0v a0d]
    [a1r a1s a1o a1v a1d]
    [a2r a2s a2o a2v a2d]
    [a3r a3s a3o a3v a3d]
    [a4r a4s a4o a4v a4d]
    [a5r a5s a5o a5v a5d]
    [a6r a6s a6o a6v a6d]
    [a7r a7s a7o a7v a7d]
    [a8r a8s a8o a8v a8d]
    [a9r a9s a9o a9v a9d]
    [a10r a10s a10o a10v a10d]
    [a11r a11s a11o a11v a11d]
    [a12r a12s a12o a12v a12d]
);

wide_struct!(Wide100;
    [b0r b0s b0o b0v b0d]
    [b1r b1s b1o b1v b1d]
    [b2r b2s b2o b2v b2d]
    [b3r b3s b3o b3v b3d]
    [b4r b4s b4o b4v b4d]
    [b5r b5s b5o b5v b5d]
    [b6r b6s b6o b6v b6d]
    [b7r b7s b7o b7v b7d]
    [b8r b8s b8o b8v b8d]
    [b9r b9s b9o b9v b9d]
    [b10r b10s b10o b10v b10d]
    [b11r b11s b11o b11v b11d]
    [b12r b12s b12o b12v b12d]
    [b13r b13s b13o b13v b13d]
    [b14r b14s b14o b14v b14d]
    [b15r b15s b15o b15v b15d]
    [b16r b16s b16o b16v b16d]
    [b17r b17s b17o b17v b17d]
    [b18r b18s b18o b18v b18d]
    [b19r b19s b19o b19v b19d]
);

wide_struct!(Wide130;
    [c0r c0s c0o c0v c0d]
    [c1r c1s c1o c1v c1d]
    [c2r c2s c2o c2v c2d]
    [c3r c3s c3o c3v c3d]
    [c4r c4s c4o c4v c4d]
    [c5r c5s c5o c5v c5d]
    [c6r c6s c6o c6v c6d]
    [c7r c7s c7o c7v c7d]
    [c8r c8s c8o c8v c8d]
    [c9r c9s c9o c9v c9d]
    [c10r c10s c10o c10v c10d]
    [c11r c11s c11o c11v c11d]
    [c12r c12s c12o c12v c12d]
    [c13r c13s c13o c13v c13d]
    [c14r c14s c14o c14v c14d]
    [c15r c15s c15o c15v c15d]
    [c16r c16s c16o c16v c16d]
    [c17r c17s c17o c17v c17d]
    [c18r c18s c18o c18v c18d]
    [c19r c19s c19o c19v c19d]
    [c20r c20s c20o c20v c20d]
    [c21r c21s c21o c21v c21d]
    [c22r c22s c22o c22v c22d]
    [c23r c23s c23o c23v c23d]
    [c24r c24s c24o c24v c24d]
    [c25r c25s c25o c25v c25d]
);

skipping_struct!(SkipWide;
    [k0 x0]
    [k1 x1]
    [k2 x2]
    [k3 x3]
    [k4 x4]
    [k5 x5]
    [k6 x6]
    [k7 x7]
    [k8 x8]
    [k9 x9]
    [k10 x10]
    [k11 x11]
    [k12 x12]
    [k13 x13]
    [k14 x14]
    [k15 x15]
    [k16 x16]
    [k17 x17]
    [k18 x18]
    [k19 x19]
    [k20 x20]
    [k21 x21]
    [k22 x22]
    [k23 x23]
    [k24 x24]
    [k25 x25]
    [k26 x26]
    [k27 x27]
    [k28 x28]
    [k29 x29]
    [k30 x30]
    [k31 x31]
    [k32 x32]
    [k33 x33]
    [k34 x34]
    [k35 x35]
    [k36 x36]
    [k37 x37]
    [k38 x38]
    [k39 x39]
    [k40 x40]
    [k41 x41]
    [k42 x42]
    [k43 x43]
    [k44 x44]
    [k45 x45]
    [k46 x46]
    [k47 x47]
    [k48 x48]
    [k49 x49]
    [k50 x50]
    [k51 x51]
    [k52 x52]
    [k53 x53]
    [k54 x54]
    [k55 x55]
    [k56 x56]
    [k57 x57]
    [k58 x58]
    [k59 x59]
    [k60 x60]
    [k61 x61]
    [k62 x62]
    [k63 x63]
    [k64 x64]
    [k65 x65]
    [k66 x66]
    [k67 x67]
    [k68 x68]
    [k69 x69]
);

/// Wide structs inside others: a field, a sequence, a boxed option.
#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(bound = "")]
struct Holder<L: Tier> {
    one: Wide65<L>,
    many: Vec<Wide100<L>>,
    maybe: Option<Box<Wide130<L>>>,
    after: String,
}

impl<L: Tier> Tiered for Holder<L> {
    fn decoder() -> Decoder<Self> {
        L::decoder()
    }
}

/// A key set of 66 fields: its own and a flattened struct's (unrolled in both
/// lowerings).
#[derive(Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(bound = "")]
struct FlatWide<L: Tier> {
    id: u64,
    #[serde(flatten)]
    inner: Wide65<L>,
}

impl<L: Tier> Tiered for FlatWide<L> {
    fn decoder() -> Decoder<Self> {
        L::decoder()
    }
}

/// `members` as a JSON object.
fn object<K: AsRef<str>>(members: &[(K, String)]) -> String {
    let body: Vec<String> = members
        .iter()
        .map(|(k, v)| format!("\"{}\": {v}", k.as_ref()))
        .collect();
    format!("{{{}}}", body.join(", "))
}

/// Decodes `doc` with the JIT in `T`'s lowering (first: see the module docs),
/// with every backend and entry point (`common::decode`) and with serde_json
/// (`agree`); all must agree, and each decode must leave as many counted
/// strings alive as it returned. Returns the interpreter's result.
#[track_caller]
fn check<T: Tiered>(doc: &str) -> Result<T, ErrorShape> {
    let before = live();
    let reference = Decoder::<T>::with_backend(Backend::Interpreter).decode_str(doc);
    let held = live();
    let reference = reference.map_err(|e| common::shape(&e));
    if Backend::Jit.is_available() {
        for entry in ["slice", "str"] {
            let got = match entry {
                "slice" => T::decoder().decode_slice(doc.as_bytes()),
                _ => T::decoder().decode_str(doc),
            };
            let got = got.map_err(|e| common::shape(&e));
            assert!(
                got == reference,
                "the JIT ({entry}) differs: {got:?} for {doc}"
            );
            drop(got);
            assert_eq!(live(), held, "the JIT: leak or double drop for {doc}");
        }
    }
    let backends = common::decode::<T>(doc.as_bytes()).map_err(|e| common::shape(&e));
    assert!(backends == reference, "the backends differ for {doc}");
    drop(backends);
    assert_eq!(live(), held, "leak or double drop for {doc}");
    let _ = agree::<T>(doc.as_bytes());
    assert_eq!(live(), held, "leak or double drop for {doc}");
    if reference.is_err() {
        assert_eq!(held, before, "an error left values alive for {doc}");
    }
    reference
}

/// The decoding error of `doc` (every backend agreeing, see [`check`]).
#[track_caller]
fn error<T: Tiered>(doc: &str) -> Error {
    let shape = check::<T>(doc).expect_err("fails");
    let e: Error = common::err::<T>(doc.as_bytes());
    assert_eq!(common::shape(&e), shape);
    e
}

/// Indices worth testing among `n` fields: both ends and both sides of each
/// word boundary.
fn probes(n: usize) -> Vec<usize> {
    let mut v: Vec<usize> = [0, 1, 62, 63, 64, 65, 100, 127, 128, 129, n - 2, n - 1]
        .into_iter()
        .filter(|&i| i < n)
        .collect();
    v.dedup();
    v
}

fn present_in_any_order<T: Wide>() {
    let start = live();
    let mut rng = Rng(0x5eed);
    for seed in 0..6 {
        let value = T::sample(seed);
        let mut members = value.members();
        assert_eq!(check::<T>(&object(&members)).expect("decodes"), value);
        let compact = serde_json::to_string(&value).expect("serialises");
        assert_eq!(check::<T>(&compact).expect("decodes"), value);
        let pretty = serde_json::to_string_pretty(&value).expect("serialises");
        assert_eq!(check::<T>(&pretty).expect("decodes"), value);
        rng.shuffle(&mut members);
        assert_eq!(check::<T>(&object(&members)).expect("decodes"), value);
        members.reverse();
        assert_eq!(check::<T>(&object(&members)).expect("decodes"), value);
    }
    assert_eq!(live(), start);
}

#[test]
fn all_fields_present_in_declaration_order_and_shuffled() {
    present_in_any_order::<Wide65<TableTier>>();
    present_in_any_order::<Wide65<UnrolledTier>>();
    present_in_any_order::<Wide100<TableTier>>();
    present_in_any_order::<Wide100<UnrolledTier>>();
    present_in_any_order::<Wide130<TableTier>>();
    present_in_any_order::<Wide130<UnrolledTier>>();
}

fn missing_required<T: Wide>() {
    let start = live();
    let value = T::sample(3);
    let members = value.members();
    let required = T::required();
    for i in probes(members.len()) {
        let name = members[i].0;
        if !required.contains(&name) {
            continue;
        }
        let mut without = members.clone();
        without.remove(i);
        let e = error::<T>(&object(&without));
        assert_eq!(e.kind(), jitson::ErrorKind::MissingField, "{name}");
        assert!(
            e.to_string().contains(&format!("`{name}`")),
            "the error names {name}: {e}"
        );
        // Shuffled, and with only the required fields otherwise.
        Rng(i as u64 + 1).shuffle(&mut without);
        assert_eq!(
            error::<T>(&object(&without)).kind(),
            jitson::ErrorKind::MissingField
        );
        let only: Vec<_> = without
            .iter()
            .filter(|(k, _)| required.contains(k))
            .cloned()
            .collect();
        assert!(error::<T>(&object(&only)).to_string().contains(name));
    }
    drop(value);
    // All missing: the first in declaration order is named.
    let e = error::<T>("{}");
    assert!(e.to_string().contains(&format!("`{}`", required[0])), "{e}");
    assert_eq!(live(), start);
}

#[test]
fn a_missing_required_field_is_named() {
    missing_required::<Wide65<TableTier>>();
    missing_required::<Wide65<UnrolledTier>>();
    missing_required::<Wide100<TableTier>>();
    missing_required::<Wide100<UnrolledTier>>();
    missing_required::<Wide130<TableTier>>();
    missing_required::<Wide130<UnrolledTier>>();
}

fn duplicates<T: Wide>() {
    let start = live();
    let members = T::sample(5).members();
    for i in probes(members.len()) {
        for at in [i + 1, members.len()] {
            let mut doc = members.clone();
            doc.insert(at, members[i].clone());
            assert!(error::<T>(&object(&doc)).to_string().contains("duplicate"));
        }
    }
    assert_eq!(live(), start);
}

#[test]
fn a_repeated_key_is_an_error() {
    duplicates::<Wide65<TableTier>>();
    duplicates::<Wide65<UnrolledTier>>();
    duplicates::<Wide100<TableTier>>();
    duplicates::<Wide100<UnrolledTier>>();
    duplicates::<Wide130<TableTier>>();
    duplicates::<Wide130<UnrolledTier>>();
}

fn unknown_keys<T: Wide>() {
    let start = live();
    let value = T::sample(9);
    let members = value.members();
    for i in probes(members.len()) {
        let mut doc: Vec<(String, String)> = members
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        doc.insert(i, ("zz_unknown".into(), r#"{"a": [1, "x", null]}"#.into()));
        doc.push((format!("{}_", members[i].0), "[]".into()));
        assert_eq!(check::<T>(&object(&doc)).expect("decodes"), value);
    }
    drop(value);
    assert_eq!(live(), start);
}

#[test]
fn unknown_keys_are_skipped() {
    unknown_keys::<Wide65<TableTier>>();
    unknown_keys::<Wide65<UnrolledTier>>();
    unknown_keys::<Wide100<TableTier>>();
    unknown_keys::<Wide100<UnrolledTier>>();
    unknown_keys::<Wide130<TableTier>>();
    unknown_keys::<Wide130<UnrolledTier>>();
}

fn defaults<T: Wide>() {
    let start = live();
    let value = T::sample(11);
    let members = value.members();
    let fillable = T::fillable();
    // Only the required fields: every other one filled.
    let required: Vec<_> = members
        .iter()
        .filter(|(k, _)| !fillable.contains(k))
        .cloned()
        .collect();
    let filled = check::<T>(&object(&required)).expect("decodes");
    let text = serde_json::to_value(&filled).expect("serialises");
    drop(filled);
    for name in &fillable {
        let v = &text[name];
        assert!(v.is_null() || v == "default", "{name}: {v}");
    }
    // Each fillable field absent on its own, at every probe.
    for i in probes(members.len()) {
        if !fillable.contains(&members[i].0) {
            continue;
        }
        let mut without = members.clone();
        without.remove(i);
        check::<T>(&object(&without)).expect("decodes");
    }
    drop(value);
    assert_eq!(live(), start);
}

#[test]
fn absent_fields_get_their_defaults() {
    defaults::<Wide65<TableTier>>();
    defaults::<Wide65<UnrolledTier>>();
    defaults::<Wide100<TableTier>>();
    defaults::<Wide100<UnrolledTier>>();
    defaults::<Wide130<TableTier>>();
    defaults::<Wide130<UnrolledTier>>();
}

fn failing_late<T: Wide>() {
    let start = live();
    let members = T::sample(13).members();
    for i in probes(members.len()) {
        for bad in [r#"{"x": 1}"#, "-", r#""\ud800""#, "[1"] {
            let mut doc = members.clone();
            doc[i].1 = bad.into();
            check::<T>(&object(&doc)).expect_err("fails");
            // Shuffled: the failure comes after other fields.
            Rng(i as u64 + 3).shuffle(&mut doc);
            check::<T>(&object(&doc)).expect_err("fails");
        }
    }
    // Cut anywhere.
    let whole = object(&members);
    for cut in (0..whole.len()).step_by(97).chain([whole.len() - 1]) {
        check::<T>(&whole[..cut]).expect_err("fails");
    }
    assert_eq!(live(), start);
}

#[test]
fn an_error_after_many_written_fields_drops_them() {
    failing_late::<Wide65<TableTier>>();
    failing_late::<Wide65<UnrolledTier>>();
    failing_late::<Wide100<TableTier>>();
    failing_late::<Wide100<UnrolledTier>>();
    failing_late::<Wide130<TableTier>>();
    failing_late::<Wide130<UnrolledTier>>();
}

fn skipped<L: Tier>() {
    let start = live();
    let members: Vec<(String, String)> =
        (0..70).map(|i| (format!("k{i}"), i.to_string())).collect();
    let got: SkipWide<L> = check(&object(&members)).expect("decodes");
    let text = serde_json::to_value(&got).expect("serialises");
    assert_eq!(text["k69"], 69);
    assert_eq!(got.x69.0, "default");
    drop(got);
    let mut shuffled = members.clone();
    Rng(17).shuffle(&mut shuffled);
    check::<SkipWide<L>>(&object(&shuffled)).expect("decodes");
    let mut without = members.clone();
    without.remove(66);
    check::<SkipWide<L>>(&object(&without)).expect_err("k66 is missing");
    let mut bad = members.clone();
    bad[68].1 = "\"x\"".into();
    check::<SkipWide<L>>(&object(&bad)).expect_err("k68 is a number");
    assert_eq!(live(), start);
}

#[test]
fn more_than_64_skipped_fields_are_initialised() {
    skipped::<TableTier>();
    skipped::<UnrolledTier>();
}

fn nested_and_flattened<L: Tier>() {
    let start = live();
    let holder = Holder::<L> {
        one: Wide65::sample(1),
        many: (0..3).map(Wide100::sample).collect(),
        maybe: Some(Box::new(Wide130::sample(2))),
        after: "end".into(),
    };
    let doc = serde_json::to_string(&holder).expect("serialises");
    assert_eq!(check::<Holder<L>>(&doc).expect("decodes"), holder);
    let pretty = serde_json::to_string_pretty(&holder).expect("serialises");
    assert_eq!(check::<Holder<L>>(&pretty).expect("decodes"), holder);
    // A failure deep inside the last element of `many`, after two whole ones.
    let last = doc.rfind("\"b19v\":[").expect("three elements") + "\"b19v\":[".len();
    let bad = format!("{}7,{}", &doc[..last], &doc[last..]);
    check::<Holder<L>>(&bad).expect_err("fails");
    let missing = doc.replacen("\"c25v\":", "\"c25v_\":", 1);
    check::<Holder<L>>(&missing).expect_err("fails");

    let flat = FlatWide::<L> {
        id: 7,
        inner: Wide65::sample(4),
    };
    let mut members = flat.inner.members();
    members.insert(30, ("id", "7".into()));
    assert_eq!(
        check::<FlatWide<L>>(&object(&members)).expect("decodes"),
        flat
    );
    Rng(23).shuffle(&mut members);
    assert_eq!(
        check::<FlatWide<L>>(&object(&members)).expect("decodes"),
        flat
    );
    members.push(("zz", "[1, 2]".into()));
    assert_eq!(
        check::<FlatWide<L>>(&object(&members)).expect("decodes"),
        flat
    );
    members.retain(|(k, _)| *k != "a12v");
    check::<FlatWide<L>>(&object(&members)).expect_err("a12v is missing");
    drop((holder, flat));
    assert_eq!(live(), start);
}

#[test]
fn wide_structs_nested_and_flattened() {
    nested_and_flattened::<TableTier>();
    nested_and_flattened::<UnrolledTier>();
}

#[test]
fn wide_structs_are_compiled() {
    if !Backend::Jit.is_available() {
        return;
    }
    fn warm<T: Tiered>() {
        // The tier's decoder compiles it (see the module docs).
        let _ = T::decoder().decode_str("{}");
    }
    warm::<Wide65<TableTier>>();
    warm::<Wide65<UnrolledTier>>();
    warm::<Wide130<TableTier>>();
    warm::<Wide130<UnrolledTier>>();
    warm::<SkipWide<TableTier>>();
    warm::<SkipWide<UnrolledTier>>();
    warm::<Holder<TableTier>>();
    warm::<Holder<UnrolledTier>>();
    warm::<FlatWide<TableTier>>();
    warm::<FlatWide<UnrolledTier>>();
    jitson::warm_up::<Wide100<TableTier>>().expect("compiles");
    // The names are generic (`wide_structs::Wide65<wide_structs::TableTier>`).
    let interpreted = jitson::stats().interpreted_layouts;
    for name in [
        "Wide65", "Wide100", "Wide130", "SkipWide", "Holder", "FlatWide",
    ] {
        assert!(
            !interpreted
                .iter()
                .any(|(ty, _)| ty.contains(&format!("::{name}<"))),
            "{name} was interpreted: {interpreted:?}"
        );
    }
}

/// A random document of `Wide100`: each member kept with probability 7/8, the
/// order shuffled or not, unknown keys inserted, a member repeated or its value
/// made wrong.
fn document() -> impl Strategy<Value = String> {
    (
        any::<u64>(),
        prop::collection::vec(0u8..8, 100),
        any::<u64>(),
        prop::collection::vec((0usize..110, "[a-z]{1,3}"), 0..4),
        prop::option::of(0usize..110),
        prop::option::weighted(
            0.2,
            (
                0usize..110,
                prop::sample::select(vec!["true", "\"s\"", "1.5", "[null]", "{}"]),
            ),
        ),
    )
        .prop_map(|(seed, keep, order, unknown, repeat, wrong)| {
            let value = Wide100::<TableTier>::sample(seed);
            let mut members: Vec<(String, String)> = value
                .members()
                .into_iter()
                .zip(&keep)
                .filter(|(_, k)| **k != 0)
                .map(|((k, v), _)| (k.to_string(), v))
                .collect();
            if order % 2 == 1 {
                Rng(order | 1).shuffle(&mut members);
            }
            for (at, key) in unknown {
                let at = at.min(members.len());
                members.insert(at, (format!("zz{key}"), r#"[{"a": null}, 2]"#.into()));
            }
            if let Some(i) = repeat
                && let Some(m) = members.get(i).cloned()
            {
                members.push(m);
            }
            if let Some((i, text)) = wrong
                && let Some(m) = members.get_mut(i)
            {
                m.1 = text.into();
            }
            object(&members)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_documents_of_a_100_field_struct(doc in document()) {
        let start = live();
        let _ = check::<Wide100<TableTier>>(&doc);
        let _ = check::<Wide100<UnrolledTier>>(&doc);
        prop_assert_eq!(live(), start);
    }
}
