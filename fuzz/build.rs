//! Generates the struct and enum types of the `decode_generated` fuzz target into
//! `$OUT_DIR/generated.rs`, from a fixed seed (`JITSON_FUZZ_TYPES_SEED` picks
//! another family).
//!
//! Each struct draws its fields from every kind jitson decodes (scalars, 128-bit
//! integers, strings, `Option`, `Box`, `Vec`, arrays, tuples, maps, earlier structs
//! and enums, itself through `Option<Box<_>>` or `Vec<_>`) and its attributes from
//! what the derive reads (`rename`, `rename_all`, `alias`, `default`, `skip`,
//! `deny_unknown_fields`, `flatten` of an earlier struct or of a map collecting the
//! rest, colliding keys included). Each enum takes one of serde's four
//! representations (external, `tag`, `tag` + `content`, `untagged`) and unit,
//! newtype, tuple and struct variants, sometimes an `other` variant. Payloads and
//! flattened structs avoid `f32` and 128-bit integers: serde buffers those values
//! (as f64, and not at all for 128 bits), a documented difference, not a bug.
//! Keys mix lengths around the JIT's word compares, shared prefixes, non-ASCII and
//! characters that JSON must escape. One struct in eight is wide (65–80 fields),
//! past one word of the JIT's written-field set (a second word, since 2026-12).

use std::fmt::Write;

const STRUCTS: usize = 32;
const ENUMS: usize = 6;

/// splitmix64: small, deterministic, good enough to pick shapes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const SCALARS: &[&str] = &[
    "bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "isize", "usize", "f32", "f64",
    "char", "String", "Box<str>", "u128", "i128",
];

/// Scalars that serde's buffered values (tagged enums, flatten) hold exactly.
const PAYLOAD_SCALARS: &[&str] = &[
    "bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f64", "char", "String",
];

/// A type for an enum payload (see the module docs for what it avoids).
fn payload_type(rng: &mut Rng, depth: usize) -> String {
    let choice = if depth >= 2 { 0 } else { rng.below(6) };
    match choice {
        0..=2 => rng.pick(PAYLOAD_SCALARS).to_string(),
        3 => format!("Option<{}>", payload_type(rng, depth + 1)),
        4 => format!("Vec<{}>", payload_type(rng, depth + 1)),
        _ => format!(
            "({}, {})",
            payload_type(rng, depth + 1),
            payload_type(rng, depth + 1)
        ),
    }
}

const RENAME_ALL: &[&str] = &[
    "lowercase",
    "UPPERCASE",
    "PascalCase",
    "camelCase",
    "snake_case",
    "SCREAMING_SNAKE_CASE",
    "kebab-case",
    "SCREAMING-KEBAB-CASE",
];

/// Pieces of explicit keys: never starting with `f`/`F` (the generated field
/// names), so they cannot collide with a converted field name.
const KEY_PIECES: &[&str] = &[
    "k",
    "key",
    "id",
    "identifier",
    "é",
    "€",
    "😀",
    "\\\"",
    "\\\\",
    "\\t",
    " ",
    "_",
    "0",
    "long_key_part_",
    "\\u{7f}",
];

fn field_type(rng: &mut Rng, this: usize, depth: usize) -> String {
    let choice = if depth >= 3 { 0 } else { rng.below(13) };
    match choice {
        0..=3 => rng.pick(SCALARS).to_string(),
        12 => format!(
            "({}, {})",
            field_type(rng, this, depth + 1),
            field_type(rng, this, depth + 1)
        ),
        4 => format!("Option<{}>", field_type(rng, this, depth + 1)),
        5 => format!("Vec<{}>", field_type(rng, this, depth + 1)),
        6 => format!("[{}; {}]", field_type(rng, this, depth + 1), rng.below(4)),
        7 => format!("Box<{}>", field_type(rng, this, depth + 1)),
        8 => format!(
            "std::collections::HashMap<String, {}>",
            field_type(rng, this, depth + 1)
        ),
        9 => format!(
            "std::collections::BTreeMap<String, {}>",
            field_type(rng, this, depth + 1)
        ),
        10 if this > 0 => format!("G{}", rng.below(this)),
        10 => format!("E{}", rng.below(ENUMS)),
        _ if rng.chance(2) => format!("Option<Box<G{this}>>"),
        _ if rng.chance(2) => format!("Vec<G{this}>"),
        _ => format!("E{}", rng.below(ENUMS)),
    }
}

fn key(rng: &mut Rng, used: &mut Vec<String>) -> String {
    loop {
        let mut k = String::from(rng.pick(&["k", "id", "é", "x"]));
        for _ in 0..rng.below(5) {
            k.push_str(rng.pick(KEY_PIECES));
        }
        if !used.contains(&k) {
            used.push(k.clone());
            return k;
        }
    }
}

const DERIVES: &str = "#[derive(jitson::Decode, serde::Serialize, serde::Deserialize, \
                       arbitrary::Arbitrary, Debug, PartialEq, Default)]";

fn generate(seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut out = String::new();
    writeln!(out, "// Generated by fuzz/build.rs from seed {seed}.").unwrap();
    for e in 0..ENUMS {
        let mut used = Vec::new();
        // 0: external, 1: internal, 2: adjacent, 3: untagged.
        let repr = rng.below(4);
        writeln!(out, "{DERIVES}").unwrap();
        let mut container = Vec::new();
        if rng.chance(3) {
            container.push(format!("rename_all = \"{}\"", rng.pick(RENAME_ALL)));
        }
        match repr {
            1 => container.push("tag = \"t\"".to_string()),
            2 => container.push("tag = \"t\", content = \"c\"".to_string()),
            3 => container.push("untagged".to_string()),
            _ => {}
        }
        if !container.is_empty() {
            writeln!(out, "#[serde({})]", container.join(", ")).unwrap();
        }
        writeln!(out, "pub enum E{e} {{\n    #[default]").unwrap();
        let variants = 1 + rng.below(6);
        let other = repr != 3 && rng.chance(3);
        for v in 0..variants {
            let mut attrs = Vec::new();
            if repr != 3 && rng.chance(3) {
                attrs.push(format!("rename = \"{}\"", key(&mut rng, &mut used)));
            }
            if repr != 3 && rng.chance(4) {
                attrs.push(format!("alias = \"{}\"", key(&mut rng, &mut used)));
            }
            // The `#[default]` variant is unit; the last may be `other`.
            let shape = if v == 0 || (other && v == variants - 1) {
                0
            } else {
                rng.below(4)
            };
            if other && v == variants - 1 && v > 0 {
                attrs.push("other".to_string());
            }
            if !attrs.is_empty() {
                writeln!(out, "    #[serde({})]", attrs.join(", ")).unwrap();
            }
            match shape {
                0 => writeln!(out, "    Variant{v}One,").unwrap(),
                // An internally tagged newtype holds a map (its keys beside the tag).
                1 if repr == 1 => writeln!(
                    out,
                    "    Variant{v}One(std::collections::BTreeMap<String, {}>),",
                    payload_type(&mut rng, 1)
                )
                .unwrap(),
                1 => writeln!(out, "    Variant{v}One({}),", payload_type(&mut rng, 0)).unwrap(),
                // Internally tagged enums cannot hold tuple variants.
                2 if repr != 1 => writeln!(
                    out,
                    "    Variant{v}One({}, {}),",
                    payload_type(&mut rng, 0),
                    payload_type(&mut rng, 0)
                )
                .unwrap(),
                _ => {
                    writeln!(out, "    Variant{v}One {{").unwrap();
                    let mut field_keys = Vec::new();
                    for f in 0..rng.below(4) {
                        if rng.chance(3) {
                            let k = key(&mut rng, &mut field_keys);
                            writeln!(out, "        #[serde(rename = \"{k}\")]").unwrap();
                        }
                        writeln!(out, "        v{f}: {},", payload_type(&mut rng, 0)).unwrap();
                    }
                    writeln!(out, "    }},").unwrap();
                }
            }
        }
        writeln!(out, "}}\n").unwrap();
    }
    // Whether each struct may be flattened (no f32, no 128-bit integers, no
    // nested generated types, no `deny_unknown_fields`).
    let mut flat_ok = Vec::new();
    for s in 0..STRUCTS {
        let mut used = Vec::new();
        let wide = rng.chance(8);
        let fields = if wide {
            65 + rng.below(16)
        } else {
            rng.below(12)
        };
        let rename_all = rng.chance(3);
        writeln!(out, "{DERIVES}").unwrap();
        let mut attrs = Vec::new();
        if rng.chance(3) {
            attrs.push("deny_unknown_fields".to_string());
        }
        if rename_all {
            attrs.push(format!("rename_all = \"{}\"", rng.pick(RENAME_ALL)));
        }
        if !attrs.is_empty() {
            writeln!(out, "#[serde({})]", attrs.join(", ")).unwrap();
        }
        writeln!(out, "pub struct G{s} {{").unwrap();
        let deny = attrs.iter().any(|a| a == "deny_unknown_fields");
        let mut simple = !deny && !wide;
        if !deny && rng.chance(5) {
            let candidates: Vec<usize> = (0..s).filter(|&j| flat_ok[j]).collect();
            if !candidates.is_empty() && rng.chance(2) {
                let j = candidates[rng.below(candidates.len())];
                writeln!(out, "    #[serde(flatten)]\n    pub flat: G{j},").unwrap();
            } else {
                writeln!(
                    out,
                    "    #[serde(flatten)]\n    pub rest: std::collections::BTreeMap<String, {}>,",
                    payload_type(&mut rng, 1)
                )
                .unwrap();
            }
            simple = false;
        }
        for f in 0..fields {
            let ty = if wide && rng.chance(2) {
                rng.pick(SCALARS).to_string()
            } else {
                field_type(&mut rng, s, 0)
            };
            let mut attrs = Vec::new();
            if rng.chance(10) {
                attrs.push("skip".to_string());
            } else {
                if rng.chance(3) {
                    attrs.push(format!("rename = \"{}\"", key(&mut rng, &mut used)));
                }
                if rng.chance(5) {
                    attrs.push(format!("alias = \"{}\"", key(&mut rng, &mut used)));
                }
                if rng.chance(4) {
                    attrs.push("default".to_string());
                }
            }
            if !attrs.is_empty() {
                writeln!(out, "    #[serde({})]", attrs.join(", ")).unwrap();
            }
            let name = rng.pick(&["a", "id", "name_x", "value_of_it", "b2"]);
            if ty.contains("f32") || ty.contains("128") || ty.contains('G') || ty.contains('E') {
                simple = false;
            }
            writeln!(out, "    pub f{f}_{name}: {ty},").unwrap();
        }
        writeln!(out, "}}\n").unwrap();
        flat_ok.push(simple);
    }
    writeln!(out, "/// How many generated structs there are.").unwrap();
    writeln!(out, "pub const COUNT: usize = {STRUCTS};\n").unwrap();
    writeln!(
        out,
        "/// Runs [`crate::run_generated`] for struct `G<which>`, and for a `Vec` of it."
    )
    .unwrap();
    writeln!(
        out,
        "pub fn run(which: usize, as_vec: bool, u: &mut arbitrary::Unstructured<'_>) {{"
    )
    .unwrap();
    writeln!(out, "    match (which, as_vec) {{").unwrap();
    for s in 0..STRUCTS {
        writeln!(
            out,
            "        ({s}, false) => crate::run_generated::<G{s}>(u),"
        )
        .unwrap();
        writeln!(
            out,
            "        ({s}, true) => crate::run_generated::<Vec<G{s}>>(u),"
        )
        .unwrap();
    }
    writeln!(out, "        _ => unreachable!(),\n    }}\n}}").unwrap();
    out
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=JITSON_FUZZ_TYPES_SEED");
    let seed = std::env::var("JITSON_FUZZ_TYPES_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x6a69_7473_6f6e);
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    std::fs::write(out.join("generated.rs"), generate(seed)).unwrap();
}
