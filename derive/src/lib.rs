//! `#[derive(Decode)]` for jitson.
//!
//! Use it through the facade, as `#[derive(jitson::Decode)]`; see [`Decode`](macro@Decode)
//! for what it accepts.
//!
//! # What it generates
//!
//! The derive writes no decoding code. It describes the type: the output is an
//! `unsafe impl Decode` whose `LAYOUT` constant is a `TypeLayout` built with
//! `TypeLayout::of::<Self>` (size, alignment, type id and drop glue come from the type
//! itself), which the backends read at run time.
//!
//! - A struct with named fields gets `Kind::Struct(&StructLayout { .. })`: one
//!   `Field` per decoded field, in declaration order, holding its JSON name (after
//!   `rename` / `rename_all`), aliases, `offset_of!` offset, a
//!   `layout_of::<FieldTy>` edge and its default `InitFn` (`None` when the key is
//!   required); and one `SkippedField` per skipped field, with the `InitFn` and drop
//!   glue of its type. Edges are function pointers, so recursive types
//!   (`children: Vec<Self>`, `next: Option<Box<Node>>`) need nothing special.
//! - A unit-only enum gets `Kind::Enum(&EnumLayout { .. })`: one `Variant` per
//!   decoded variant, and a `write` function storing the variant with a given index.
//! - Functions the layout points to are generated as `#[doc(hidden)]` associated
//!   functions in an inherent impl: `__jitson_write_variant` for enums, and
//!   `__jitson_default_<field>` for each `default = "path"`, which runs the function
//!   through `init_with` (catching panics, as every `InitFn` must).
//! - Generics: each type parameter named by a decoded field's type is bounded by
//!   `Decode`, every other one by `'static`; the type of a field filled by
//!   `Default::default()` gets a `FieldTy: Default` predicate when it names a generic
//!   parameter. Existing bounds and where clauses are kept. Lifetime parameters are
//!   rejected, since `Decode: 'static`.
//!
//! Generated code names items only through `::jitson::__private`, which the facade
//! re-exports from `jitson-core`.
//!
//! # Not supported
//!
//! Tuple and unit structs, enums with data, unions and `#[repr(packed)]` structs are
//! compile errors, as are the serde attributes listed as rejected in
//! [`Decode`](macro@Decode).

mod attr;
mod case;
mod expand;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `jitson::Decode` for a struct with named fields or a unit-only enum.
///
/// ```ignore
/// #[derive(jitson::Decode)]
/// #[serde(rename_all = "camelCase")]
/// struct User {
///     user_id: u64,                      // key "userId"
///     #[serde(alias = "login")]
///     name: String,                      // "name" or "login"
///     #[serde(default)]
///     tags: Vec<String>,                 // may be absent: empty
///     email: Option<String>,             // may be absent: None
///     #[serde(skip)]
///     cache: std::cell::OnceCell<u64>,   // never read: Default::default()
/// }
///
/// #[derive(jitson::Decode)]
/// #[serde(rename_all = "snake_case")]
/// enum Status {
///     Active,                            // "active"
///     #[serde(rename = "gone", alias = "deleted")]
///     Removed,
/// }
/// ```
///
/// # Attributes
///
/// Written as `#[jitson(...)]` or `#[serde(...)]`, read identically, so a type that
/// also derives serde's `Deserialize` accepts the same JSON with both. Where both
/// give the same key a value, the `jitson` one wins (an override for jitson alone);
/// aliases from both are accepted, and flags set in either apply.
///
/// | Where | Attribute | Effect |
/// |---|---|---|
/// | container | `rename = "Name"` | the name in messages ("struct Name") |
/// | container | `rename_all = "rule"` | renames every field (struct) or variant (enum) without its own `rename`, with serde's rules: `lowercase`, `UPPERCASE`, `PascalCase`, `camelCase`, `snake_case`, `SCREAMING_SNAKE_CASE`, `kebab-case`, `SCREAMING-KEBAB-CASE` |
/// | container | `deny_unknown_fields` | a key naming no field is an error instead of being skipped |
/// | container | `expecting = "..."` | the whole "expected ..." text of messages |
/// | field | `rename = "key"` | the JSON key |
/// | field | `alias = "key"` | a further accepted key; repeatable |
/// | field | `default` | an absent key gives `Default::default()` |
/// | field | `default = "path"` | an absent key gives `path()` |
/// | field | `skip`, `skip_deserializing` | never read: always `Default::default()`, or `path()` with `default = "path"`; the type needs `Default`, not `Decode` |
/// | variant | `rename = "name"` | the JSON string |
/// | variant | `alias = "name"` | a further accepted string; repeatable |
/// | variant | `skip`, `skip_deserializing` | the variant is never decoded |
///
/// `rename` and `rename_all` also take serde's `(serialize = "...", deserialize =
/// "...")` form; only `deserialize` matters here.
///
/// Without `default`, a field whose key is absent is an error, except that an
/// `Option` field becomes `None` (as in serde).
///
/// serde attributes that only affect serialization or serde's own code are ignored
/// in `#[serde(...)]` (and rejected in `#[jitson(...)]`): `bound`, `crate`, `into`,
/// `rename_all_fields`, `skip_serializing`, `skip_serializing_if`, `serialize_with`,
/// `getter`, and a variant's `rename_all`. serde attributes that change
/// deserialization in ways jitson does not support are compile errors: `default`
/// (on the container), `tag`, `content`, `untagged`, `transparent`, `from`,
/// `try_from`, `remote`, `field_identifier`, `variant_identifier`, `flatten`,
/// `deserialize_with`, `with`, `borrow` and `other`. So are unknown keys.
#[proc_macro_derive(Decode, attributes(jitson, serde))]
pub fn derive_decode(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
