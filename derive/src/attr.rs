//! Reading `#[jitson(...)]` and `#[serde(...)]` attributes into plain structs.
//!
//! Both attributes are read the same way, key by key, and then merged: a value given
//! in `jitson` wins over one given in `serde` (so a type deriving both can override a
//! serde setting for jitson alone), aliases are combined, and flags set in either
//! count. Giving a key twice in the same attribute kind is an error.
//!
//! A key is either acted on, or ignored because it does not affect decoding (mostly
//! serialization settings; accepted in `serde` only, since in `jitson` it is a
//! mistake), or rejected because it changes deserialization in a way jitson does not
//! support. Anything else is unknown, and an error in both. Errors are collected
//! rather than returned at the first one, so that one build reports every bad
//! attribute.

use std::fmt;

use proc_macro2::TokenTree;
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::{Attribute, ExprPath, LitStr, Token, WherePredicate};

use crate::case::RenameRule;

/// Accumulates errors, to report them all at once.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    /// Records `error`.
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(first) => first.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// Records the error of `result`, if any.
    pub(crate) fn check(&mut self, result: syn::Result<()>) {
        if let Err(error) = result {
            self.push(error);
        }
    }

    /// `Err` with every recorded error, or `Ok` if there were none.
    pub(crate) fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

/// Which attribute a key was written in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    Jitson,
    Serde,
}

impl Source {
    /// The attribute's name.
    fn name(self) -> &'static str {
        match self {
            Source::Jitson => "jitson",
            Source::Serde => "serde",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where an attribute is written; decides which keys are ignored or rejected.
#[derive(Clone, Copy)]
enum Place {
    Container,
    Field,
    Variant,
}

impl Place {
    /// serde keys with no effect on what jitson decodes: serialization-only ones,
    /// ones that only shape serde's own generated code (`bound`, `crate`), and ones
    /// that only concern fields of enum variants, which jitson rejects anyway.
    fn serde_only(self) -> &'static [&'static str] {
        match self {
            Place::Container => &["crate", "into"],
            Place::Field => &[
                "skip_serializing",
                "skip_serializing_if",
                "serialize_with",
                "getter",
            ],
            Place::Variant => &["skip_serializing", "serialize_with", "bound"],
        }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Place::Container => "container",
            Place::Field => "field",
            Place::Variant => "variant",
        })
    }
}

/// Attributes on the struct or enum itself.
#[derive(Default)]
pub(crate) struct ContainerAttrs {
    /// `rename`: the name used in messages instead of the Rust name.
    pub(crate) rename: Option<String>,
    /// `rename_all`.
    pub(crate) rename_all: Option<RenameRule>,
    /// `deny_unknown_fields`.
    pub(crate) deny_unknown_fields: bool,
    /// `expecting`: the whole "expected ..." message.
    pub(crate) expecting: Option<String>,
    /// `default` / `default = "path"`: absent fields come from the container's
    /// default value (structs with named fields).
    pub(crate) default: Option<DefaultAttr>,
    /// `tag = "key"`: internally tagged, or adjacently with `content`.
    pub(crate) tag: Option<String>,
    /// `content = "key"`: adjacently tagged.
    pub(crate) content: Option<String>,
    /// `untagged`.
    pub(crate) untagged: bool,
    /// `transparent`: the one decoded field is the whole value.
    pub(crate) transparent: bool,
    /// `rename_all_fields`: renames the fields of every struct variant.
    pub(crate) rename_all_fields: Option<RenameRule>,
    /// `from = "Type"`: decode a `Type`, then `From::from` it.
    pub(crate) from: Option<syn::Type>,
    /// `try_from = "Type"`: decode a `Type`, then `TryFrom::try_from` it.
    pub(crate) try_from: Option<syn::Type>,
    /// `bound = "..."` / `bound(deserialize = "...")`: the impl's where
    /// predicates, replacing every bound the derive would infer (as serde's).
    pub(crate) bound: Option<Vec<WherePredicate>>,
    /// `remote = "Type"`: the type describes another one, for serde's `with`
    /// (serde generates inherent functions, no trait impl).
    pub(crate) remote: bool,
    /// `field_identifier` / `variant_identifier`: an enum of names, read from
    /// a string; `"field"` or `"variant"`, serde's word for a name it does
    /// not know.
    pub(crate) identifier: Option<&'static str>,
}

impl ContainerAttrs {
    /// Reads the container attributes, recording errors in `errors`.
    pub(crate) fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let jitson = Self::parse_from(attrs, Source::Jitson, errors);
        let serde = Self::parse_from(attrs, Source::Serde, errors);
        Self {
            rename: jitson.rename.or(serde.rename),
            rename_all: jitson.rename_all.or(serde.rename_all),
            deny_unknown_fields: jitson.deny_unknown_fields || serde.deny_unknown_fields,
            expecting: jitson.expecting.or(serde.expecting),
            default: jitson.default.or(serde.default),
            tag: jitson.tag.or(serde.tag),
            content: jitson.content.or(serde.content),
            untagged: jitson.untagged || serde.untagged,
            transparent: jitson.transparent || serde.transparent,
            rename_all_fields: jitson.rename_all_fields.or(serde.rename_all_fields),
            from: jitson.from.or(serde.from),
            try_from: jitson.try_from.or(serde.try_from),
            bound: jitson.bound.or(serde.bound),
            remote: jitson.remote || serde.remote,
            identifier: jitson.identifier.or(serde.identifier),
        }
    }

    fn parse_from(attrs: &[Attribute], source: Source, errors: &mut Errors) -> Self {
        let mut out = Self::default();
        for_each_key(attrs, source, Place::Container, errors, |key, meta| {
            match key {
                "rename" => set_once(&mut out.rename, parse_rename(meta)?, meta)?,
                "rename_all" => set_once(&mut out.rename_all, parse_rename_all(meta)?, meta)?,
                "expecting" => set_once(&mut out.expecting, Some(parse_str(meta)?.value()), meta)?,
                "deny_unknown_fields" => out.deny_unknown_fields = true,
                "default" => set_once(&mut out.default, Some(parse_default(meta)?), meta)?,
                "tag" => set_once(&mut out.tag, Some(parse_str(meta)?.value()), meta)?,
                "content" => set_once(&mut out.content, Some(parse_str(meta)?.value()), meta)?,
                "untagged" => out.untagged = true,
                "from" => set_once(&mut out.from, Some(parse_type(meta)?), meta)?,
                "try_from" => set_once(&mut out.try_from, Some(parse_type(meta)?), meta)?,
                "transparent" => out.transparent = true,
                "bound" => set_once(&mut out.bound, parse_bound(meta)?, meta)?,
                "remote" => {
                    parse_type(meta)?;
                    out.remote = true;
                }
                "field_identifier" => out.identifier = Some("field"),
                "variant_identifier" => out.identifier = Some("variant"),
                "rename_all_fields" => {
                    set_once(&mut out.rename_all_fields, parse_rename_all(meta)?, meta)?
                }
                _ => return Ok(false),
            }
            Ok(true)
        });
        out
    }
}

/// How a field is filled when its key is absent (or always, when it is skipped).
#[derive(Clone)]
pub(crate) enum DefaultAttr {
    /// `default`: `Default::default()`.
    Trait,
    /// `default = "path"`: a call to `path()`.
    Path(ExprPath),
}

/// A field decoded by a serde deserializer instead of its `Decode` layout.
#[derive(Clone)]
pub(crate) enum SerdeWith {
    /// `with = "module"`: `module::deserialize`.
    Module(ExprPath),
    /// `deserialize_with = "path"`: `path`.
    Function(ExprPath),
    /// `#[jitson(serde)]`: the field type's `Deserialize` impl.
    Trait,
}

/// Attributes on a struct field.
#[derive(Clone, Default)]
pub(crate) struct FieldAttrs {
    /// `rename`: the JSON key, overriding `rename_all`.
    pub(crate) rename: Option<String>,
    /// `alias`, in order.
    pub(crate) aliases: Vec<String>,
    /// `default` / `default = "path"`.
    pub(crate) default: Option<DefaultAttr>,
    /// `skip` / `skip_deserializing`.
    pub(crate) skip: bool,
    /// `with`, `deserialize_with`, `#[jitson(serde)]`.
    pub(crate) serde_with: Option<SerdeWith>,
    /// `flatten`: a struct whose keys join the container's, or a map that
    /// collects the keys no field claims.
    pub(crate) flatten: bool,
    /// `borrow` / `borrow = "'a"`: jitson borrows `&str` and `Cow<str>`
    /// whenever it can, as serde does with it; what it changes is a
    /// `Cow<'a, [u8]>`, which serde then reads from a string's bytes.
    pub(crate) borrow: bool,
    /// `bound = "..."` / `bound(deserialize = "...")`: where predicates added
    /// to the impl in place of those the derive would infer from this field's
    /// type (as serde's).
    pub(crate) bound: Option<Vec<WherePredicate>>,
}

impl FieldAttrs {
    /// Reads a field's attributes, recording errors in `errors`.
    pub(crate) fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let jitson = Self::parse_from(attrs, Source::Jitson, errors);
        let serde = Self::parse_from(attrs, Source::Serde, errors);
        Self {
            rename: jitson.rename.or(serde.rename),
            aliases: merge_aliases(jitson.aliases, serde.aliases),
            default: jitson.default.or(serde.default),
            skip: jitson.skip || serde.skip,
            serde_with: match (jitson.serde_with, serde.serde_with) {
                // The field's own function wins over `#[jitson(serde)]`, which
                // only chooses the type's impl where the field names none.
                (Some(SerdeWith::Trait), Some(own)) => Some(own),
                (jitson, serde) => jitson.or(serde),
            },
            flatten: jitson.flatten || serde.flatten,
            borrow: jitson.borrow || serde.borrow,
            bound: jitson.bound.or(serde.bound),
        }
    }

    fn parse_from(attrs: &[Attribute], source: Source, errors: &mut Errors) -> Self {
        let mut out = Self::default();
        for_each_key(attrs, source, Place::Field, errors, |key, meta| {
            match key {
                "rename" => set_once(&mut out.rename, parse_rename(meta)?, meta)?,
                "alias" => out.aliases.push(parse_str(meta)?.value()),
                "default" => set_once(&mut out.default, Some(parse_default(meta)?), meta)?,
                "skip" | "skip_deserializing" => out.skip = true,
                "flatten" => out.flatten = true,
                "bound" => set_once(&mut out.bound, parse_bound(meta)?, meta)?,
                "borrow" | "with" | "deserialize_with" => {
                    read_serde_key(key, meta, &mut out.borrow, &mut out.serde_with)?
                }
                "serde" if source == Source::Jitson => {
                    set_once(&mut out.serde_with, Some(SerdeWith::Trait), meta)?
                }
                _ => return Ok(false),
            }
            Ok(true)
        });
        out
    }
}

/// Attributes on an enum variant.
#[derive(Default)]
pub(crate) struct VariantAttrs {
    /// `rename`: the JSON string, overriding `rename_all`.
    pub(crate) rename: Option<String>,
    /// `alias`, in order.
    pub(crate) aliases: Vec<String>,
    /// `skip` / `skip_deserializing`.
    pub(crate) skip: bool,
    /// `rename_all`: renames the fields of a struct variant.
    pub(crate) rename_all: Option<RenameRule>,
    /// `other`: the unit variant any unknown name decodes to.
    pub(crate) other: bool,
    /// `untagged`: tried without a tag, after the tagged form fails.
    pub(crate) untagged: bool,
    /// `borrow` (newtype variants only, as in serde): the payload's field
    /// takes it as its own.
    pub(crate) borrow: bool,
    /// `with` / `deserialize_with` (newtype variants only here): serde's
    /// function returns the variant's one field, so the field takes it as its
    /// own.
    pub(crate) serde_with: Option<SerdeWith>,
}

impl VariantAttrs {
    /// Reads a variant's attributes, recording errors in `errors`.
    pub(crate) fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let jitson = Self::parse_from(attrs, Source::Jitson, errors);
        let serde = Self::parse_from(attrs, Source::Serde, errors);
        Self {
            rename: jitson.rename.or(serde.rename),
            aliases: merge_aliases(jitson.aliases, serde.aliases),
            skip: jitson.skip || serde.skip,
            rename_all: jitson.rename_all.or(serde.rename_all),
            other: jitson.other || serde.other,
            untagged: jitson.untagged || serde.untagged,
            borrow: jitson.borrow || serde.borrow,
            serde_with: jitson.serde_with.or(serde.serde_with),
        }
    }

    fn parse_from(attrs: &[Attribute], source: Source, errors: &mut Errors) -> Self {
        let mut out = Self::default();
        for_each_key(attrs, source, Place::Variant, errors, |key, meta| {
            match key {
                "rename" => set_once(&mut out.rename, parse_rename(meta)?, meta)?,
                "alias" => out.aliases.push(parse_str(meta)?.value()),
                "skip" | "skip_deserializing" => out.skip = true,
                "rename_all" => set_once(&mut out.rename_all, parse_rename_all(meta)?, meta)?,
                "other" => out.other = true,
                "untagged" => out.untagged = true,
                "borrow" | "with" | "deserialize_with" => {
                    read_serde_key(key, meta, &mut out.borrow, &mut out.serde_with)?
                }
                _ => return Ok(false),
            }
            Ok(true)
        });
        out
    }
}

/// `borrow`, `with` and `deserialize_with`, which a field and a newtype
/// variant (for its field) take alike.
fn read_serde_key(
    key: &str,
    meta: &ParseNestedMeta<'_>,
    borrow: &mut bool,
    serde_with: &mut Option<SerdeWith>,
) -> syn::Result<()> {
    match key {
        "borrow" => {
            skip_value(meta)?;
            *borrow = true;
            Ok(())
        }
        "with" => set_once(serde_with, Some(SerdeWith::Module(parse_path(meta)?)), meta),
        _ => set_once(
            serde_with,
            Some(SerdeWith::Function(parse_path(meta)?)),
            meta,
        ),
    }
}

/// The aliases from `jitson`, then those from `serde` not already given.
fn merge_aliases(mut jitson: Vec<String>, serde: Vec<String>) -> Vec<String> {
    for alias in serde {
        if !jitson.contains(&alias) {
            jitson.push(alias);
        }
    }
    jitson
}

/// Calls `handle` on every key of every `source` attribute in `attrs`. `handle`
/// returns `Ok(false)` for a key it does not act on; such keys are then skipped if
/// they are serialization-only serde keys and rejected otherwise.
fn for_each_key(
    attrs: &[Attribute],
    source: Source,
    place: Place,
    errors: &mut Errors,
    mut handle: impl FnMut(&str, &ParseNestedMeta<'_>) -> syn::Result<bool>,
) {
    for attr in attrs
        .iter()
        .filter(|attr| attr.path().is_ident(source.name()))
    {
        errors.check(attr.parse_nested_meta(|meta| {
            let Some(key) = meta.path.get_ident().map(ToString::to_string) else {
                return Err(meta.error(format!("expected a {source} attribute name")));
            };
            if handle(&key, &meta)? {
                Ok(())
            } else {
                unhandled(&key, source, place, &meta)
            }
        }));
    }
}

/// Skips a serialization-only serde key, or explains why `key` is rejected.
fn unhandled(
    key: &str,
    source: Source,
    place: Place,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<()> {
    if place.serde_only().contains(&key) {
        return match source {
            Source::Serde => skip_value(meta),
            Source::Jitson => Err(meta.error(format!(
                "`{key}` does not affect jitson's decoding; write it in `#[serde(...)]`"
            ))),
        };
    }
    Err(meta.error(format!("unknown {source} {place} attribute `{key}`")))
}

/// Consumes whatever follows a key: `= value`, `(...)` or nothing.
pub(crate) fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<TokenTree>()?;
    }
    Ok(())
}

/// Stores `value` in `slot`, which must not be set already. `None` (a
/// serialize-only `rename(serialize = "...")`) leaves `slot` alone.
fn set_once<T>(
    slot: &mut Option<T>,
    value: Option<T>,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<()> {
    if let Some(value) = value {
        if slot.is_some() {
            return Err(meta.error(format!(
                "duplicate `{}` attribute",
                meta.path
                    .get_ident()
                    .map(ToString::to_string)
                    .unwrap_or_default()
            )));
        }
        *slot = Some(value);
    }
    Ok(())
}

/// `key = "string"`.
fn parse_str(meta: &ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    meta.value()?.parse()
}

/// `key = "string"`, or serde's `key(serialize = "...", deserialize = "...")` (either
/// half optional). Returns the deserialization string, if given.
fn parse_de_str(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<LitStr>> {
    if !meta.input.peek(syn::token::Paren) {
        return parse_str(meta).map(Some);
    }
    let mut de = None;
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("deserialize") {
            set_once(&mut de, Some(parse_str(&inner)?), &inner)
        } else if inner.path.is_ident("serialize") {
            parse_str(&inner).map(drop)
        } else {
            Err(inner.error("expected `serialize` or `deserialize`"))
        }
    })?;
    Ok(de)
}

/// `rename = "name"` or `rename(deserialize = "name")`.
fn parse_rename(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<String>> {
    Ok(parse_de_str(meta)?.map(|lit| lit.value()))
}

/// `rename_all = "rule"` or `rename_all(deserialize = "rule")`.
fn parse_rename_all(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<RenameRule>> {
    let Some(lit) = parse_de_str(meta)? else {
        return Ok(None);
    };
    let rule = RenameRule::from_name(&lit.value()).ok_or_else(|| {
        syn::Error::new(
            lit.span(),
            format!(
                "unknown rename rule `rename_all = {:?}`, expected one of {}",
                lit.value(),
                RenameRule::expected()
            ),
        )
    })?;
    Ok(Some(rule))
}

/// `bound = "T: Trait, ..."` or `bound(deserialize = "...")`: where
/// predicates (none for `""`). `None` for a serialize-only bound.
fn parse_bound(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<Vec<WherePredicate>>> {
    let Some(lit) = parse_de_str(meta)? else {
        return Ok(None);
    };
    let predicates = lit.parse_with(Punctuated::<WherePredicate, Token![,]>::parse_terminated)?;
    Ok(Some(
        predicates
            .into_iter()
            .filter_map(without_serde_lifetime)
            .collect(),
    ))
}

/// A `bound(deserialize = ...)` predicate made to hold in jitson's impls, which
/// do not declare serde's impl lifetime `'de`: a predicate on a type that names
/// `'de` (`T: Deserialize<'de>`, serde's usual spelling) is required for every
/// `'de` (`for<'de> T: Deserialize<'de>`, serde's `DeserializeOwned`, which is
/// what jitson's serde route asks of `T`); one that bounds `'de` itself
/// (`'de: 'a`) says nothing jitson's impls need and is dropped.
fn without_serde_lifetime(predicate: WherePredicate) -> Option<WherePredicate> {
    // A lifetime is a `'` joined to an identifier.
    fn names_de(tokens: proc_macro2::TokenStream) -> bool {
        let mut quote = false;
        tokens.into_iter().any(|token| {
            let found = match &token {
                proc_macro2::TokenTree::Ident(ident) => quote && ident == "de",
                proc_macro2::TokenTree::Group(group) => names_de(group.stream()),
                _ => false,
            };
            quote = matches!(&token, proc_macro2::TokenTree::Punct(p) if p.as_char() == '\'');
            found
        })
    }
    let de = syn::Lifetime::new("'de", proc_macro2::Span::call_site());
    match predicate {
        WherePredicate::Lifetime(bound) if bound.lifetime == de => None,
        WherePredicate::Type(mut bound) if names_de(quote::ToTokens::to_token_stream(&bound)) => {
            let binder = bound
                .lifetimes
                .get_or_insert_with(|| syn::parse_quote!(for<>));
            if !binder
                .lifetimes
                .iter()
                .any(|param| matches!(param, syn::GenericParam::Lifetime(l) if l.lifetime == de))
            {
                binder.lifetimes.push(syn::parse_quote!('de));
            }
            Some(WherePredicate::Type(bound))
        }
        other => Some(other),
    }
}

/// `key = "path::to::item"`.
fn parse_path(meta: &ParseNestedMeta<'_>) -> syn::Result<ExprPath> {
    let lit = parse_str(meta)?;
    lit.parse::<ExprPath>()
        .map_err(|_| syn::Error::new(lit.span(), "expected a path, as in `with = \"module\"`"))
}

/// `key = "Type"`.
fn parse_type(meta: &ParseNestedMeta<'_>) -> syn::Result<syn::Type> {
    let lit = parse_str(meta)?;
    lit.parse::<syn::Type>()
        .map_err(|_| syn::Error::new(lit.span(), "expected a type, as in `from = \"Wire\"`"))
}

/// `default` or `default = "path::to::function"`.
fn parse_default(meta: &ParseNestedMeta<'_>) -> syn::Result<DefaultAttr> {
    if !meta.input.peek(Token![=]) {
        return Ok(DefaultAttr::Trait);
    }
    let lit = parse_str(meta)?;
    let path = lit.parse::<ExprPath>().map_err(|_| {
        syn::Error::new(
            lit.span(),
            "expected the path of a function, as in `default = \"path::to::f\"`",
        )
    })?;
    Ok(DefaultAttr::Path(path))
}
