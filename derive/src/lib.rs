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
//! - A tuple struct gets `Kind::Tuple(&TupleLayout { .. })` (one `TupleElem` per
//!   decoded field), a newtype struct or a `transparent` one
//!   `Kind::Newtype(&NewtypeLayout { .. })`, a unit struct `Kind::Unit`.
//! - An enum gets `Kind::Enum(&EnumLayout { .. })`: one `Variant` per decoded
//!   variant with its payload (`Payload::Unit`, `Newtype(layout of T)`,
//!   `Tuple(..)`, `Struct(..)`), the representation (`Tagging`) and the `other`
//!   variant; a `write` function storing a unit variant by index, and a
//!   `decode_variant` function that decodes a data variant's payload into a
//!   temporary and builds the variant from it. The payload of a tuple or struct
//!   variant is a hidden tuple struct or struct (`__JitsonVariant_<Name>`, in the
//!   same anonymous const) holding the variant's fields with their attributes,
//!   derived the same way; its name in messages is serde's ("struct variant
//!   E::V"). No backend ever assumes how Rust lays out an enum.
//! - Functions the layout points to are generated in a private helper trait:
//!   `__jitson_write_variant` and `__jitson_decode_variant` for enums,
//!   `__jitson_default_<field>` for each `default = "path"`, and
//!   `__jitson_container_default_<field>` for fields filled from a container
//!   `default`; each runs user code through `init_with` (catching panics, as
//!   every `InitFn` must).
//! - Each field's layout edge is chosen on the field's type by
//!   jitson-core's `route` module (autoref specialisation): the type's own
//!   layout where it implements jitson's traits, otherwise a `Kind::Serde`
//!   layout running its serde impl (an `Option` of such a type: jitson's
//!   `Option` over it), otherwise a compile error at the field.
//! - Generics: each type parameter named by a decoded field's type is bounded by
//!   `Decode`, every other one by `'static`; the type of a field filled by
//!   `Default::default()` gets a `FieldTy: Default` predicate when it names a generic
//!   parameter. Existing bounds and where clauses are kept. serde's `bound`
//!   replaces these as it replaces serde's own (a container's: every inferred
//!   predicate but `T: 'static`; a field's: what its type would infer). Type
//!   parameters must be owned types (`'static`); lifetime parameters are
//!   supported (see below).
//!
//! Generated code names items only through `::jitson::__private`, which the facade
//! re-exports from `jitson-core`.
//!
//! # Not supported
//!
//! Unions and `#[repr(packed)]` structs are compile errors, as are the serde
//! attributes listed as rejected in [`Decode`](macro@Decode).
//!
//! # Lifetimes
//!
//! The output implements `HasLayout` (the layout, whose `Static` type is the
//! input type with its lifetimes `'static`: one identity, so one compile, per
//! type) and `DecodeBorrowed<'__jitson_de>` for every `'__jitson_de` that outlives
//! the type's lifetime parameters. A generated `__jitson_check_borrows` function
//! proves, under the same bounds, that every decoded field type is
//! `DecodeBorrowed<'__jitson_de>` too, so a `&'static str` field (which would
//! outlive the input) does not compile.

mod attr;
mod case;
mod encode;
mod expand;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `jitson::Decode` for a struct (named, tuple, newtype or unit) or an enum.
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
/// | struct | `default`, `default = "path"` | absent fields come from `Self::default()` (or `path()`) |
/// | struct | `transparent` | the one field that is not skipped is the whole value |
/// | container | `from = "T"`, `try_from = "T"` | decode a `T`, then `From`/`TryFrom` it (a refused `try_from` is an `InvalidValue` error with its message) |
/// | enum | `tag = "key"` | internally tagged: `{"key": "Variant", ...fields}` |
/// | enum | `tag = "t", content = "c"` | adjacently tagged: `{"t": "Variant", "c": payload}` |
/// | enum | `untagged` | the first variant (in declaration order) that decodes the value |
/// | enum | `rename_all_fields = "rule"` | renames the fields of every struct variant |
/// | field | `rename = "key"` | the JSON key |
/// | field | `alias = "key"` | a further accepted key; repeatable |
/// | field | `default` | an absent key gives `Default::default()` |
/// | field | `default = "path"` | an absent key gives `path()` |
/// | field | `with = "module"`, `deserialize_with = "path"` | decoded by `module::deserialize` / `path` over the value's text (feature `serde`) |
/// | field | `#[jitson(serde)]` | decoded by the field type's serde `Deserialize` (feature `serde`), unless the field names its own function |
/// | container, field | `bound = "..."`, `bound(deserialize = "...")` | the impl's where predicates, as serde's (a container's replace every inferred bound) |
/// | field | `flatten` | a struct whose keys are read as the container's, an `Option` of such a struct (`None` when the struct cannot be built from the keys), or a map that collects every key no field claims (keys parsed from their text for non-string keys) |
/// | field | `skip`, `skip_deserializing` | never read: always `Default::default()`, or `path()` with `default = "path"`; the type needs `Default`, not `Decode` |
/// | variant | `rename = "name"` | the JSON string |
/// | variant | `alias = "name"` | a further accepted string; repeatable |
/// | variant | `skip`, `skip_deserializing` | the variant is never decoded |
/// | variant | `rename_all = "rule"` | renames the fields of a struct variant |
/// | variant | `other` | a unit variant taken for any unknown variant name |
/// | variant | `untagged` | (last variants only) tried in order without a tag when the tagged form does not match |
///
/// `rename` and `rename_all` also take serde's `(serialize = "...", deserialize =
/// "...")` form; only `deserialize` matters here.
///
/// Without `default`, a field whose key is absent is an error, except that an
/// `Option` field becomes `None` (as in serde).
///
/// A field whose type has serde's `Deserialize` but no `Decode` needs no
/// attribute: it is decoded by its serde impl.
///
/// serde attributes that only affect serialization or serde's own code are ignored
/// in `#[serde(...)]` (and rejected in `#[jitson(...)]`): `crate`, `into`,
/// `skip_serializing`, `skip_serializing_if`, `serialize_with` and `getter`. A
/// `remote` container gets no impl (serde's gives it inherent functions that
/// fields name with `with`); `field_identifier` and `variant_identifier` enums
/// are read as enums of unit variants. serde attributes that change
/// deserialization in ways jitson does not support yet are compile errors: a
/// variant's `with` or `deserialize_with`. So are unknown keys.
#[proc_macro_derive(Decode, attributes(jitson, serde))]
pub fn derive_decode(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Derives `jitson::Encode`: the layout encoders read (see the `encode`
/// module of this crate for what it supports).
///
/// ```ignore
/// #[derive(jitson::Encode)]
/// #[serde(rename_all = "camelCase")]
/// struct User {
///     user_id: u64,                                        // key "userId"
///     #[serde(skip_serializing_if = "Option::is_none")]
///     email: Option<String>,                               // left out when None
///     #[serde(skip_serializing)]
///     cache: u64,                                          // never written
/// }
/// ```
///
/// Reads `#[serde(...)]` and `#[jitson(...)]` (which wins): `rename` and
/// `rename_all` (the plain and `serialize = "..."` forms), `skip`,
/// `skip_serializing`, `skip_serializing_if`, `flatten`, `transparent`, `into`,
/// `tag`, `content`, `untagged`, `serialize_with` and `with` (which win over
/// `#[jitson(serde)]`), `#[jitson(serde)]`, and `bound` (plain or `serialize =
/// "..."`). Attributes that concern decoding only are ignored. A field whose
/// type has serde's `Serialize` but no `Encode` is written by its serde impl
/// with no attribute; `getter` and `remote` are compile errors.
#[proc_macro_derive(Encode, attributes(jitson, serde))]
pub fn derive_encode(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    encode::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
