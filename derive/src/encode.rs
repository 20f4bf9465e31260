//! `#[derive(Encode)]`: the layout encoders read.
//!
//! Like `Decode`, the derive writes no encoding code: it describes the type
//! with the same layout model (`TypeLayout`, `Kind::Struct`, …), filled for the
//! serialize direction: keys are the serialize names (`rename`, `rename_all`
//! and their `serialize = "…"` forms), fields skipped when serialising are
//! left out, `skip_serializing_if` becomes a predicate function, edges lead to
//! the fields' encode layouts (`encode_layout_of::<T>`).
//!
//! Derive macros cannot see one another, so a type that derives both `Decode`
//! and `Encode` has two layout constants of the one model, one per direction;
//! their kinds, field offsets and std layouts are the same, and so is every
//! layout below them that has no type parameter.
//!
//! # Supported (this version)
//!
//! Structs of every shape and enums of every representation (a data
//! variant is written through a view type of references to its fields).
//! Attributes: `rename`, `rename_all`, `skip`, `skip_serializing`,
//! `skip_serializing_if`, `flatten`, `transparent`, `tag`, `content`,
//! `untagged`, `into`, `serialize_with`/`with`/`#[jitson(serde)]` (a field's
//! own function wins) and `bound`; decode-only attributes are ignored.
//! `getter` and `remote` are compile errors. Each field's edge is chosen by
//! its type's route (`routed_edge`): its `Encode` layout, else its serde
//! `Serialize` impl.

use proc_macro2::Ident;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Fields, LitStr, Member, Token, Type};

use crate::case::RenameRule;

/// A field written by serde instead of its own encode layout.
enum SerWith {
    /// `serialize_with = "path"`.
    Function(syn::ExprPath),
    /// `with = "module"`: `module::serialize`.
    Module(syn::ExprPath),
    /// `#[jitson(serde)]`: the field type's `Serialize`.
    Trait,
}

/// Serialize-side attributes of a container, field or variant.
#[derive(Default)]
struct SerAttrs {
    rename: Option<String>,
    rename_all: Option<RenameRule>,
    skip: bool,
    skip_if: Option<syn::ExprPath>,
    ser_with: Option<SerWith>,
    into: Option<Type>,
    flatten: bool,
    transparent: bool,
    tag: Option<String>,
    content: Option<String>,
    untagged: bool,
    rename_all_fields: Option<RenameRule>,
    /// `bound = "..."` / `bound(serialize = "...")`: where predicates, in
    /// place of the inferred ones (container) or of those the field's type
    /// would infer (field).
    bound: Option<Vec<syn::WherePredicate>>,
    /// `remote = "Type"`: no impl is generated (see `read`).
    remote: bool,
}

impl SerAttrs {
    /// Reads `#[serde(...)]` then `#[jitson(...)]` (which wins where both set a key).
    fn parse(attrs: &[Attribute]) -> syn::Result<SerAttrs> {
        let mut out = SerAttrs::default();
        for source in ["serde", "jitson"] {
            for attr in attrs.iter().filter(|a| a.path().is_ident(source)) {
                attr.parse_nested_meta(|meta| out.read(&meta))?;
            }
        }
        Ok(out)
    }

    fn read(&mut self, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let key = meta
            .path
            .get_ident()
            .map(|i| i.unraw().to_string())
            .unwrap_or_default();
        match key.as_str() {
            "rename" => {
                if let Some(name) = ser_str(meta)? {
                    self.rename = Some(name);
                }
            }
            "rename_all" => {
                if let Some(rule) = ser_str(meta)? {
                    self.rename_all = Some(RenameRule::from_name(&rule).ok_or_else(|| {
                        meta.error(format!(
                            "unknown rename rule `rename_all = {rule:?}`, expected one of {}",
                            RenameRule::expected()
                        ))
                    })?);
                }
            }
            "rename_all_fields" => {
                if let Some(rule) = ser_str(meta)? {
                    self.rename_all_fields =
                        Some(RenameRule::from_name(&rule).ok_or_else(|| {
                            meta.error(format!(
                                "unknown rename rule `rename_all_fields = {rule:?}`"
                            ))
                        })?);
                }
            }
            "skip" | "skip_serializing" => self.skip = true,
            "skip_serializing_if" => {
                let lit: LitStr = meta.value()?.parse()?;
                self.skip_if = Some(lit.parse()?);
            }
            "flatten" => self.flatten = true,
            "transparent" => self.transparent = true,
            "tag" => self.tag = Some(meta.value()?.parse::<LitStr>()?.value()),
            "content" => self.content = Some(meta.value()?.parse::<LitStr>()?.value()),
            "untagged" => self.untagged = true,
            "serialize_with" => {
                let lit: LitStr = meta.value()?.parse()?;
                self.ser_with = Some(SerWith::Function(lit.parse()?));
            }
            "with" => {
                let lit: LitStr = meta.value()?.parse()?;
                self.ser_with = Some(SerWith::Module(lit.parse()?));
            }
            // Only where the field names no function of its own: a
            // `serialize_with` or `with` always wins in its direction.
            "serde" => {
                if self.ser_with.is_none() {
                    self.ser_with = Some(SerWith::Trait);
                }
            }
            "bound" => {
                if let Some(text) = ser_str(meta)? {
                    let lit = LitStr::new(&text, meta.path.span());
                    let predicates = lit.parse_with(
                        syn::punctuated::Punctuated::<syn::WherePredicate, Token![,]>::parse_terminated,
                    )?;
                    self.bound = Some(predicates.into_iter().collect());
                }
            }
            "into" => {
                let lit: LitStr = meta.value()?.parse()?;
                self.into = Some(lit.parse()?);
            }
            // serde's `remote` derive gives the type an inherent `serialize`
            // for fields to name with `with`, and no trait impl: jitson's
            // derive then has nothing to add. `getter` only serves `remote`.
            "remote" => {
                meta.value()?.parse::<LitStr>()?;
                self.remote = true;
            }
            "getter" => skip_value(meta)?,
            _ => skip_value(meta)?,
        }
        Ok(())
    }
}

/// `key = "s"` (both directions) or `key(serialize = "s", deserialize = "…")`.
fn ser_str(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<String>> {
    if !meta.input.peek(syn::token::Paren) {
        return Ok(Some(meta.value()?.parse::<LitStr>()?.value()));
    }
    let mut ser = None;
    meta.parse_nested_meta(|inner| {
        let lit: LitStr = inner.value()?.parse()?;
        if inner.path.is_ident("serialize") {
            ser = Some(lit.value());
        }
        Ok(())
    })?;
    Ok(ser)
}

fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<proc_macro2::TokenTree>()?;
    }
    Ok(())
}

/// The expansion of `#[derive(Encode)]`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    if SerAttrs::parse(&input.attrs)?.remote {
        return Ok(TokenStream::new());
    }
    let items = items(input, false)?;
    Ok(quote! {
        #[allow(deprecated)]
        const _: () = {
            #items
        };
    })
}

/// The `Encode` impl of `input` and the items it needs (helper functions, the
/// view types of an enum's data variants). `view`: `input` is such a view,
/// whose fields are references to the variant's fields.
fn items(input: &DeriveInput, view: bool) -> syn::Result<TokenStream> {
    if let Data::Union(_) = input.data {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "unions cannot derive `Encode`",
        ));
    }
    crate::expand::reject_packed(&input.attrs)?;
    let container = SerAttrs::parse(&input.attrs)?;
    let name = container
        .rename
        .clone()
        .unwrap_or_else(|| input.ident.unraw().to_string());
    let mut fns = Vec::new();
    let mut extra = Vec::new();
    let (expecting, kind) = match &input.data {
        Data::Struct(_) if container.into.is_some() => into_kind(&container, &name, &mut fns),
        Data::Struct(data) => struct_kind(input, &container, &name, &data.fields, &mut fns, view)?,
        Data::Enum(_) if container.into.is_some() => into_kind(&container, &name, &mut fns),
        Data::Enum(data) => enum_kind(input, &container, &name, data, &mut fns, &mut extra)?,
        Data::Union(_) => unreachable!("refused above"),
    };
    let ident = &input.ident;
    let static_self = crate::expand::static_self(input);
    let generics = bounded_generics(input, &container)?;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let helpers = if fns.is_empty() {
        quote!()
    } else {
        quote! {
            #[doc(hidden)]
            #[allow(non_snake_case, clippy::all)]
            impl #impl_generics #ident #ty_generics #where_clause {
                #(#fns)*
            }
        }
    };
    Ok(quote! {
        #helpers
        #(#extra)*

        // SAFETY: the layout describes `Self` (size, alignment and drop from
        // the type itself, offsets from `offset_of!`, each field's layout
        // that of its declared type), and every function it holds reads a
        // live `Self` through its own fields or by matching on it.
        unsafe impl #impl_generics ::jitson::__private::Encode for #ident #ty_generics #where_clause {
            type Static = #static_self;
            const ENCODE: &'static ::jitson::__private::TypeLayout =
                &::jitson::__private::TypeLayout::of::<#static_self>(#expecting, #kind);
        }
    })
}

/// A field's or a tuple element's `skip_serializing_if` as a
/// `SkipFn` (an `Option` expression; `None` without the attribute), its
/// function declared in `fns` under a name made from `rust_name` (the
/// field's name or the element's index).
fn skip_predicate(
    rust_name: &str,
    ty: &Type,
    attrs: &SerAttrs,
    view: bool,
    fns: &mut Vec<TokenStream>,
) -> TokenStream {
    let Some(path) = &attrs.skip_if else {
        return quote!(::core::option::Option::None);
    };
    let fn_name = format_ident!("__jitson_encode_skip_{}", rust_name);
    // A view's field is a reference to the variant's field, which the
    // predicate takes (as serde passes it). Generated names start with `__`
    // (as serde_derive's), so that no user function in `#path` is shadowed
    // by them.
    let arg = if view { quote!(*__v) } else { quote!(__v) };
    fns.push(quote! {
        unsafe extern "C" fn #fn_name(__field: *const u8, __skip: *mut bool) -> bool {
            // SAFETY: the layout passes this field's address.
            unsafe { ::jitson::__private::skip_with::<#ty>(__field, __skip, |__v| #path(#arg)) }
        }
    });
    quote!(::core::option::Option::Some(Self::#fn_name as ::jitson::__private::SkipFn))
}

/// The kind of a struct of any shape.
fn struct_kind(
    input: &DeriveInput,
    container: &SerAttrs,
    name: &str,
    fields: &Fields,
    fns: &mut Vec<TokenStream>,
    view: bool,
) -> syn::Result<(String, TokenStream)> {
    let mut read = Vec::new();
    for (index, field) in fields.iter().enumerate() {
        let attrs = SerAttrs::parse(&field.attrs)?;
        let member = match &field.ident {
            Some(ident) => Member::Named(ident.clone()),
            None => Member::Unnamed(index.into()),
        };
        read.push((member, &field.ty, attrs));
    }
    // serde writes a tuple struct of one field as a newtype struct, that
    // field's value, even where the field is `skip`ped or has a
    // `skip_serializing_if` (serde_derive's `serialize_newtype_struct` reads
    // neither; `serialize_with` applies): that field is always written.
    let newtype_struct = !view
        && !container.transparent
        && matches!(fields, Fields::Unnamed(u) if u.unnamed.len() == 1);
    let written: Vec<_> = read
        .iter()
        .filter(|(_, _, a)| newtype_struct || !a.skip)
        .collect();
    let static_self = crate::expand::static_self(input);
    let mut serde_fields = Vec::new();
    for (i, (_, ty, attrs)) in written.iter().enumerate() {
        if let Some(with) = &attrs.ser_with {
            serde_fields.push((i, serde_field(input, &static_self, i, ty, with, view, fns)));
        }
    }
    let edge_of = |i: usize, ty: &Type| {
        if let Some((_, layout)) = serde_fields.iter().find(|(j, _)| *j == i) {
            return layout.clone();
        }
        routed_edge(ty, &crate::expand::static_type(input, ty), view)
    };
    let newtype = |member: &Member, inner: TokenStream, transparent: bool| {
        let kind = quote! {
            ::jitson::__private::Kind::Newtype(&::jitson::__private::NewtypeLayout {
                offset: ::jitson::__private::core::mem::offset_of!(Self, #member),
                inner: #inner,
                skipped: &[],
                transparent: #transparent,
            })
        };
        (format!("struct {name}"), kind)
    };
    match fields {
        Fields::Unit => Ok((
            format!("unit struct {name}"),
            quote!(::jitson::__private::Kind::Unit),
        )),
        Fields::Unnamed(_) if written.len() == 1 && fields.len() == 1 || container.transparent => {
            let Some((member, _, _)) = written.first() else {
                return Err(syn::Error::new(
                    proc_macro2::Span::call_site(),
                    "`#[serde(transparent)]` needs exactly one field that is not skipped",
                ));
            };
            let layout = edge_of(0, written[0].1);
            Ok(newtype(member, layout, container.transparent))
        }
        Fields::Unnamed(_) => {
            let mut elems = Vec::new();
            for (i, (member, ty, attrs)) in written.iter().enumerate() {
                let layout = edge_of(i, ty);
                let Member::Unnamed(index) = member else {
                    unreachable!("unnamed fields")
                };
                let skip_if = skip_predicate(&index.index.to_string(), ty, attrs, view, fns);
                elems.push(quote! {
                    ::jitson::__private::TupleElem {
                        offset: ::jitson::__private::core::mem::offset_of!(Self, #member),
                        layout: #layout,
                        skip_if: #skip_if,
                        default: ::core::option::Option::None,
                    }
                });
            }
            let expecting = format!("tuple struct {name}");
            Ok((
                expecting.clone(),
                quote! {
                    ::jitson::__private::Kind::Tuple(&::jitson::__private::TupleLayout {
                        elems: &[#(#elems),*],
                        skipped: &[],
                        expecting_len: #expecting,
                    })
                },
            ))
        }
        Fields::Named(_) if container.transparent => {
            let Some((member, _, _)) = written.first().filter(|_| written.len() == 1) else {
                return Err(syn::Error::new(
                    proc_macro2::Span::call_site(),
                    "`#[serde(transparent)]` needs exactly one field that is not skipped",
                ));
            };
            let layout = edge_of(0, written[0].1);
            Ok(newtype(member, layout, true))
        }
        Fields::Named(_) => {
            let mut entries = Vec::new();
            let mut flatten = Vec::new();
            // `#[serde(tag = "t")]` on a struct: serde writes `"t": "Name"`
            // (the struct's serialize name) before its fields.
            if let Some(tag) = container.tag.as_ref().filter(|_| !view) {
                entries.push(struct_tag_field(tag, name, input, fns));
            }
            for (i, (member, ty, attrs)) in written.iter().enumerate() {
                let Member::Named(ident) = member else {
                    unreachable!("named fields")
                };
                let rust_name = ident.unraw().to_string();
                let layout = edge_of(i, ty);
                if attrs.flatten {
                    let position = entries.len();
                    flatten.push(quote! {
                        ::jitson::__private::FlattenField {
                            name: #rust_name,
                            offset: ::jitson::__private::core::mem::offset_of!(Self, #member),
                            layout: #layout,
                            position: #position,
                        }
                    });
                    continue;
                }
                let key = attrs
                    .rename
                    .clone()
                    .unwrap_or_else(|| match container.rename_all {
                        Some(rule) => rule.apply_to_field(&rust_name),
                        None => rust_name.clone(),
                    });
                let skip_if = skip_predicate(&rust_name, ty, attrs, view, fns);
                entries.push(quote! {
                    ::jitson::__private::Field {
                        name: #key,
                        aliases: &[],
                        offset: ::jitson::__private::core::mem::offset_of!(Self, #member),
                        layout: #layout,
                        default: ::core::option::Option::None,
                        skip_if: #skip_if,
                    }
                });
            }
            Ok((
                format!("struct {name}"),
                quote! {
                    ::jitson::__private::Kind::Struct(&::jitson::__private::StructLayout {
                        name: #name,
                        fields: &[#(#entries),*],
                        skipped: &[],
                        deny_unknown_fields: false,
                        duplicate_keys: ::jitson::__private::DuplicateKeys::Error,
                        skip_unknown: ::jitson::__private::SkipMode::Validate,
                        flatten: &[#(#flatten),*],
                    })
                },
            ))
        }
    }
}

/// The kind of an enum: one `Variant` per variant written, each data variant
/// with a view type (a struct of references to the variant's fields, carrying
/// their attributes) that `variant_of` fills and the payload's layout reads.
fn enum_kind(
    input: &DeriveInput,
    container: &SerAttrs,
    name: &str,
    data: &syn::DataEnum,
    fns: &mut Vec<TokenStream>,
    extra: &mut Vec<TokenStream>,
) -> syn::Result<(String, TokenStream)> {
    let ident = &input.ident;
    // serde's encoding errors name the enum by its Rust identifier, even
    // when `rename` gives it another name.
    let rust_type_name = ident.unraw().to_string();
    let mut entries = Vec::new();
    let mut arms = Vec::new();
    let mut untagged_from = None;
    for variant in &data.variants {
        let attrs = SerAttrs::parse(&variant.attrs)?;
        let v = &variant.ident;
        let rust_name = v.unraw().to_string();
        if attrs.skip {
            arms.push(quote! {
                #ident::#v { .. } => {
                    // SAFETY: the view is room for a `&'static str` (8-aligned).
                    unsafe { payload.cast::<&'static str>().write(#rust_name) };
                    usize::MAX
                }
            });
            continue;
        }
        let json = attrs
            .rename
            .clone()
            .unwrap_or_else(|| match container.rename_all {
                Some(rule) => rule.apply_to_variant(&rust_name),
                None => rust_name.clone(),
            });
        if attrs.untagged && untagged_from.is_none() {
            untagged_from = Some(entries.len());
        }
        let index = entries.len();
        // serde's variant-level function takes the variant's fields: for a
        // newtype variant the view's field takes it (`view_type`); others
        // would need a view of all their fields at once, not built here.
        if matches!(
            attrs.ser_with,
            Some(SerWith::Function(_) | SerWith::Module(_))
        ) && !matches!(&variant.fields, Fields::Unnamed(u) if u.unnamed.len() == 1)
        {
            return Err(syn::Error::new_spanned(
                &variant.ident,
                "`#[derive(jitson::Encode)]` supports `with` and `serialize_with` on a \
                 newtype variant only (on its field, the same)",
            ));
        }
        let payload = match &variant.fields {
            Fields::Unit => {
                arms.push(quote!(#ident::#v => #index));
                quote!(::jitson::__private::Payload::Unit)
            }
            // A newtype variant whose field is skipped is written as a unit
            // variant, as serde_derive's `effective_style` writes it.
            Fields::Unnamed(u)
                if u.unnamed.len() == 1 && SerAttrs::parse(&u.unnamed[0].attrs)?.skip =>
            {
                arms.push(quote!(#ident::#v(..) => #index));
                quote!(::jitson::__private::Payload::Unit)
            }
            fields => {
                let (view_ty, view_static) =
                    view_type(input, container, &attrs, variant, &rust_name, extra)?;
                let view_ident = format_ident!("__JitsonView_{}_{}", ident, v);
                let written: Vec<(Member, Ident)> = fields
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| !SerAttrs::parse(&f.attrs).map(|a| a.skip).unwrap_or(false))
                    .map(|(i, f)| {
                        let member = match &f.ident {
                            Some(id) => Member::Named(id.clone()),
                            None => Member::Unnamed(i.into()),
                        };
                        (member, format_ident!("__jitson_f{}", i))
                    })
                    .collect();
                let binds = written.iter().map(|(m, b)| quote!(#m: #b));
                let marker_member = match fields {
                    Fields::Named(_) => Member::Named(format_ident!("__jitson_marker")),
                    _ => Member::Unnamed(written.len().into()),
                };
                let inits = written
                    .iter()
                    .enumerate()
                    .map(|(i, (m, b))| match m {
                        Member::Named(_) => quote!(#m: #b),
                        Member::Unnamed(_) => {
                            let at = Member::Unnamed(i.into());
                            quote!(#at: #b)
                        }
                    })
                    .chain([quote!(#marker_member: ::core::marker::PhantomData)]);
                arms.push(quote! {
                    #ident::#v { #(#binds,)* .. } => {
                        // SAFETY: the view holds at most 64 references (checked
                        // by the derive), within `VARIANT_VIEW_SIZE`, 8-aligned.
                        unsafe { ::core::ptr::write(payload.cast::<#view_ty>(), #view_ident { #(#inits,)* }) };
                        #index
                    }
                });
                let edge = quote!(::jitson::__private::LayoutRef::Lazy(::jitson::__private::encode_layout_of::<#view_static>));
                match fields {
                    Fields::Named(_) => quote!(::jitson::__private::Payload::Struct(#edge)),
                    Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                        quote!(::jitson::__private::Payload::Newtype(#edge))
                    }
                    _ => quote!(::jitson::__private::Payload::Tuple(#edge)),
                }
            }
        };
        entries.push(quote! {
            ::jitson::__private::Variant {
                name: #json,
                rust_name: #rust_name,
                aliases: &[],
                payload: #payload,
                unit_expecting: "",
            }
        });
    }
    let tagging = match (&container.tag, &container.content, container.untagged) {
        (_, _, true) => quote!(::jitson::__private::Tagging::Untagged),
        (Some(tag), Some(content), false) => {
            quote!(::jitson::__private::Tagging::Adjacent { tag: #tag, content: #content })
        }
        (Some(tag), None, false) => quote!(::jitson::__private::Tagging::Internal { tag: #tag }),
        (None, _, false) => quote!(::jitson::__private::Tagging::External),
    };
    let untagged_from = untagged_from.unwrap_or(entries.len());
    // An enum without variants has no value to match a reference to: the
    // place itself is matched, with no arm (as serde's derive writes it).
    let deref = data.variants.is_empty().then(|| quote!(*));
    fns.push(quote! {
        unsafe extern "C" fn __jitson_encode_variant_of(src: *const u8, payload: *mut u8) -> usize {
            let _ = payload;
            // SAFETY: the layout passes the address of a live `Self`.
            match #deref unsafe { &*src.cast::<Self>() } {
                #(#arms,)*
            }
        }
    });
    Ok((
        format!("enum {name}"),
        quote! {
            ::jitson::__private::Kind::Enum(&::jitson::__private::EnumLayout {
                name: #rust_type_name,
                variants: &[#(#entries),*],
                tagging: #tagging,
                other: ::core::option::Option::None,
                untagged_from: #untagged_from,
                deny_unknown_fields: false,
                write: ::jitson::__private::never_write_variant,
                decode_variant: ::jitson::__private::no_data_variants,
                variant_of: ::core::option::Option::Some(Self::__jitson_encode_variant_of),
                expecting: ::core::option::Option::None,
            })
        },
    ))
}

/// Declares the view type of a data variant (in `extra`, with its `Encode`
/// impl) and returns its type with the enum's parameters and the view
/// lifetime `'__jitson_v` inferred (`View<'_, ..>`), and its `'static` form.
fn view_type(
    input: &DeriveInput,
    container: &SerAttrs,
    attrs: &SerAttrs,
    variant: &syn::Variant,
    rust_name: &str,
    extra: &mut Vec<TokenStream>,
) -> syn::Result<(TokenStream, TokenStream)> {
    let enum_ident = &input.ident;
    let view_ident = format_ident!("__JitsonView_{}_{}", enum_ident, variant.ident);
    let written: Vec<&syn::Field> = variant
        .fields
        .iter()
        .filter(|f| !SerAttrs::parse(&f.attrs).map(|a| a.skip).unwrap_or(false))
        .collect();
    if written.len() > 64 {
        return Err(syn::Error::new_spanned(
            variant,
            "`#[derive(jitson::Encode)]` supports variants of at most 64 fields",
        ));
    }
    let keep = |a: &&Attribute| a.path().is_ident("serde") || a.path().is_ident("jitson");
    let enum_ty = {
        let (_, ty_generics, _) = input.generics.split_for_impl();
        quote!(#enum_ident #ty_generics)
    };
    // serde's variant-level `serialize_with` / `with` writes a newtype
    // variant's one field (its function takes that field): the view's field
    // takes it, before its own attributes, whose function wins. Other
    // variants' functions take every field at once, which no view field can.
    let variant_with = match &attrs.ser_with {
        // Only a newtype variant's (checked by the caller).
        Some(with @ (SerWith::Function(path) | SerWith::Module(path))) => {
            let text = quote!(#path).to_string();
            Some(match with {
                SerWith::Function(_) => quote!(#[serde(serialize_with = #text)]),
                _ => quote!(#[serde(with = #text)]),
            })
        }
        _ => None,
    };
    // The fields with their attributes, to read; and without, to declare (no
    // derive registers `serde` as an attribute on the declared view).
    let field_list = |with_attrs: bool| -> Vec<TokenStream> {
        written
            .iter()
            .map(|f| {
                let kept: Vec<TokenStream> = if with_attrs {
                    let own = f.attrs.iter().filter(keep).map(|a| quote!(#a));
                    variant_with.clone().into_iter().chain(own).collect()
                } else {
                    Vec::new()
                };
                // Spanned at the field's type, so that an error about it (a
                // type with neither `Encode` nor `Serialize`) names the field.
                // `Self` in it is the enum, not the view.
                let span = f.ty.span();
                let ty = crate::expand::replace_self(
                    {
                        let ty = &f.ty;
                        quote!(#ty)
                    },
                    &enum_ty,
                );
                let ty = quote_spanned!(span=> &'__jitson_v #ty);
                match &f.ident {
                    Some(id) => quote!(#(#kept)* #id: #ty),
                    None => quote!(#(#kept)* #ty),
                }
            })
            .collect()
    };
    let rename_all = attrs
        .rename_all
        .or(container.rename_all_fields)
        .map(|rule| rule.name());
    let rename_all = rename_all.map(|rule| quote!(#[serde(rename_all = #rule)]));
    let message_name = format!(
        "{}::{rust_name}",
        container
            .rename
            .clone()
            .unwrap_or_else(|| enum_ident.unraw().to_string())
    );
    let newtype = matches!(&variant.fields, Fields::Unnamed(u) if u.unnamed.len() == 1);
    let transparent = newtype.then(|| quote!(#[serde(transparent)]));
    let params = &input.generics.params;
    let where_clause = &input.generics.where_clause;
    let body = |fields: Vec<TokenStream>| match &variant.fields {
        Fields::Named(_) => quote!({ #(#fields,)* }),
        _ => quote!(( #(#fields,)* ) #where_clause;),
    };
    let where_named = match &variant.fields {
        Fields::Named(_) => quote!(#where_clause),
        _ => quote!(),
    };
    // A marker that uses every parameter of the enum, whichever the variant's
    // fields use; skipped, so never written.
    let used = input.generics.params.iter().filter_map(|p| match p {
        syn::GenericParam::Type(t) => {
            let id = &t.ident;
            Some(quote!(#id))
        }
        syn::GenericParam::Lifetime(l) => {
            let l = &l.lifetime;
            Some(quote!(&#l ()))
        }
        syn::GenericParam::Const(_) => None,
    });
    let marker_ty = quote!(::core::marker::PhantomData<fn() -> (&'__jitson_v (), #(#used,)*)>);
    let marker = |with_attrs: bool| {
        let skip = with_attrs.then(|| quote!(#[serde(skip)]));
        match &variant.fields {
            Fields::Named(_) => quote!(#skip __jitson_marker: #marker_ty),
            _ => quote!(#skip #marker_ty),
        }
    };
    let with_marker = |mut fields: Vec<TokenStream>, with_attrs: bool| {
        fields.push(marker(with_attrs));
        fields
    };
    let read_body = body(with_marker(field_list(true), true));
    // The enum's `bound` replaces the view's inferred bounds as the enum's.
    let bound = container.bound.as_ref().map(|bound| {
        let bound = quote!(#(#bound),*).to_string();
        quote!(#[serde(bound(serialize = #bound))])
    });
    let view_def: DeriveInput = syn::parse2(quote! {
        #[serde(rename = #message_name)]
        #rename_all
        #transparent
        #bound
        struct #view_ident<'__jitson_v, #params> #where_named #read_body
    })?;
    let body = body(with_marker(field_list(false), false));
    let view_items = items(&view_def, true)?;
    extra.push(quote! {
        #[allow(non_camel_case_types, dead_code, clippy::all)]
        #[doc(hidden)]
        struct #view_ident<'__jitson_v, #params> #where_named #body
        #view_items
    });
    let args = input.generics.params.iter().map(|p| match p {
        syn::GenericParam::Type(t) => {
            let id = &t.ident;
            quote!(#id)
        }
        syn::GenericParam::Lifetime(l) => {
            let l = &l.lifetime;
            quote!(#l)
        }
        syn::GenericParam::Const(c) => {
            let id = &c.ident;
            quote!(#id)
        }
    });
    let args: Vec<TokenStream> = args.collect();
    let view_ty = quote!(#view_ident<'_, #(#args),*>);
    let static_args = args.iter().map(|a| {
        let text = a.to_string();
        if text.starts_with('\'') {
            quote!('static)
        } else {
            a.clone()
        }
    });
    let view_static = quote!(#view_ident<'static, #(#static_args),*>);
    Ok((view_ty, view_static))
}

/// `input`'s generics with the bounds the impl needs: `T: Encode + 'static`
/// for each type parameter, or, as serde's derive honours `bound`, only `T:
/// 'static` and the container's predicates where the container has a `bound`,
/// and `T: 'static` alone for a parameter that only fields with a `bound` of
/// their own (whose predicates are added) name. A field whose bounds give its
/// type no `Encode` is written through serde (see `routed_edge`).
fn bounded_generics(input: &DeriveInput, container: &SerAttrs) -> syn::Result<syn::Generics> {
    let (mut field_bounds, mut any_field_bound) = (Vec::new(), false);
    let (mut inferring, mut skipped) = (Vec::new(), Vec::new());
    let mut fields: Vec<(&syn::Field, bool)> = Vec::new();
    match &input.data {
        Data::Struct(data) => fields.extend(data.fields.iter().map(|f| (f, false))),
        Data::Enum(data) => {
            for v in &data.variants {
                let skip = SerAttrs::parse(&v.attrs)?.skip;
                fields.extend(v.fields.iter().map(|f| (f, skip)));
            }
        }
        Data::Union(_) => {}
    }
    for (field, in_skipped_variant) in fields {
        let attrs = SerAttrs::parse(&field.attrs)?;
        // A skipped field (or a skipped variant's) is never written, so its
        // type infers nothing (as in serde's derive): a view's marker names
        // every parameter.
        if (attrs.skip || in_skipped_variant) && attrs.bound.is_none() {
            skipped.push(&field.ty);
            continue;
        }
        match attrs.bound {
            Some(bound) => {
                field_bounds.extend(bound);
                any_field_bound = true;
            }
            None => inferring.push(&field.ty),
        }
    }
    let mut generics = input.generics.clone();
    let type_params: Vec<Ident> = generics.type_params().map(|p| p.ident.clone()).collect();
    let where_clause = generics.make_where_clause();
    for param in &type_params {
        let named = inferring
            .iter()
            .any(|ty| crate::expand::names_any(ty, &[param]));
        let only_skipped = !named
            && skipped
                .iter()
                .any(|ty| crate::expand::names_any(ty, &[param]));
        let param = crate::expand::generated(param);
        if container.bound.is_none() && (named || !(any_field_bound || only_skipped)) {
            where_clause
                .predicates
                .push(syn::parse_quote!(#param: ::jitson::__private::Encode + 'static));
        } else {
            where_clause
                .predicates
                .push(syn::parse_quote!(#param: 'static));
        }
    }
    where_clause.predicates.extend(field_bounds);
    where_clause
        .predicates
        .extend(container.bound.iter().flatten().cloned());
    Ok(generics)
}

/// The encode layout edge of a field of type `ty`, by the field's route
/// (jitson-core's `route` module): the type's own encode layout where it has
/// one, otherwise a layout running its `Serialize` impl; a type with neither
/// is a compile error at `ty`.
/// `view`: `ty` is `&X`, a field of an enum variant's view, whose serde
/// route encodes `X` through the reference.
/// `static_ty` is `ty` with the container's lifetimes `'static` (see the
/// decode side's `routed_edge`).
fn routed_edge(ty: &Type, static_ty: &TokenStream, view: bool) -> TokenStream {
    // Spanned at the type: an unmet bound is reported at the method's name.
    let layout = Ident::new(
        if view {
            "encode_view_layout"
        } else {
            "encode_layout"
        },
        ty.span(),
    );
    // The imports are the derive's (call site), the call the field's (so an
    // error names the field's type).
    let call = quote_spanned! {ty.span()=>
        (&::jitson::__private::Via::<#ty>::new()).encode_route().#layout::<#static_ty>()
    };
    quote! {
        ::jitson::__private::LayoutRef::Lazy(|| {
            #[allow(unused_imports)]
            use ::jitson::__private::{EncodeViaLayout as _, EncodeViaSerde as _};
            #call
        })
    }
}

/// The layout of a field written by serde: a `Kind::Serde` layout (under an
/// identity of its own, as decoding's) whose `encode` runs the field's
/// serializer; declared as helper items in `fns`. Returns its edge.
fn serde_field(
    input: &DeriveInput,
    static_self: &TokenStream,
    index: usize,
    ty: &Type,
    with: &SerWith,
    view: bool,
    fns: &mut Vec<TokenStream>,
) -> TokenStream {
    // Generated names start with `__` (as serde_derive's), so that no user
    // function in `path` is shadowed by them.
    let arg = if view { quote!(*__v) } else { quote!(__v) };
    let call = match with {
        SerWith::Function(path) => quote!(#path(#arg, __serializer)),
        SerWith::Module(module) => quote!(#module::serialize(#arg, __serializer)),
        SerWith::Trait => {
            quote!(::jitson::__private::serde::Serialize::serialize(#arg, __serializer))
        }
    };
    let encode_fn = format_ident!("__jitson_encode_serde_{}", index);
    let layout_const = format_ident!("__JITSON_ENCODE_SERDE_LAYOUT_{}", index);
    let layout_fn = format_ident!("__jitson_encode_serde_layout_{}", index);
    let static_ty = crate::expand::to_static(quote!(#ty), &input.generics);
    let module = match with {
        SerWith::Module(path) => crate::expand::module_path(path, None),
        SerWith::Function(path) => crate::expand::module_path(path, Some("serialize")),
        SerWith::Trait => None,
    };
    let native = crate::expand::native_with_or(
        module,
        &static_ty,
        quote!(with_encode),
        quote!(Self::#layout_const),
    );
    fns.push(quote! {
        unsafe extern "C" fn #encode_fn(
            __src: *const u8,
            __out: *mut ::jitson::__private::Vec<u8>,
            __target: *mut ::jitson::__private::SerializeTarget,
            __message: *mut ::core::option::Option<::jitson::__private::Box<str>>,
        ) -> bool {
            // SAFETY: the layout passes this field's address and valid
            // `__out`, `__target` (or null) and `__message` pointers.
            unsafe {
                let __v: &#ty = &*__src.cast::<#ty>();
                // The same call for each of the three serializers it may run
                // with: serde_json's, serde's flattening one and serde_json's
                // map key one.
                ::jitson::__private::serialize_with(
                    __out,
                    __target,
                    __message,
                    |__serializer| #call.map(|_| ()),
                    |__serializer| #call.map(|_| ()),
                    |__serializer| #call.map(|_| ()),
                )
            }
        }
        const #layout_const: &'static ::jitson::__private::TypeLayout =
            &::jitson::__private::TypeLayout::with_identity::<#static_ty, (#static_self, [(); #index], ())>(
                "a value written by serde",
                ::jitson::__private::Kind::Serde(&::jitson::__private::SerdeLayout {
                    decode: ::jitson::__private::never_serde_decode,
                    encode: ::core::option::Option::Some(Self::#encode_fn),
                    raw: false,
                    borrows: false,
                }),
            );
        fn #layout_fn() -> &'static ::jitson::__private::TypeLayout {
            #native
        }
    });
    quote!(::jitson::__private::LayoutRef::Lazy(Self::#layout_fn))
}

/// The member serde writes first for a struct with `#[serde(tag = "t")]`: the
/// key `t` with the struct's name, a constant written through a conversion
/// that ignores the struct's memory (a zero-sized field at offset 0).
fn struct_tag_field(
    tag: &str,
    name: &str,
    input: &DeriveInput,
    fns: &mut Vec<TokenStream>,
) -> TokenStream {
    let static_self = crate::expand::static_self(input);
    fns.push(quote! {
        unsafe extern "C" fn __jitson_encode_struct_tag(
            _src: *const u8,
            encode: ::jitson::__private::EncodeSlotFn,
            ctx: *mut ::core::ffi::c_void,
            _message: *mut ::core::option::Option<::jitson::__private::Box<str>>,
        ) -> bool {
            let name: &'static str = #name;
            // SAFETY: `encode` reads a live `&'static str` at the pointer, as the
            // layout's `from` (`&'static str`'s encode layout) says.
            unsafe { encode(ctx, ::core::ptr::from_ref(&name).cast()) }
        }
        const __JITSON_ENCODE_STRUCT_TAG: &'static ::jitson::__private::TypeLayout =
            &::jitson::__private::TypeLayout::with_identity::<(), (#static_self, [u8; 0])>(
                "a struct's tag",
                ::jitson::__private::Kind::Convert(&::jitson::__private::ConvertLayout {
                    from: ::jitson::__private::LayoutRef::Lazy(
                        ::jitson::__private::encode_layout_of::<&'static str>,
                    ),
                    convert: ::jitson::__private::never_convert,
                    into: ::core::option::Option::Some(Self::__jitson_encode_struct_tag),
                }),
            );
        fn __jitson_encode_struct_tag_layout() -> &'static ::jitson::__private::TypeLayout {
            Self::__JITSON_ENCODE_STRUCT_TAG
        }
    });
    quote! {
        ::jitson::__private::Field {
            name: #tag,
            aliases: &[],
            offset: 0,
            layout: ::jitson::__private::LayoutRef::Lazy(Self::__jitson_encode_struct_tag_layout),
            default: ::core::option::Option::None,
            skip_if: ::core::option::Option::None,
        }
    }
}

/// The kind of a type written as another (`into = "Type"`): a conversion
/// through `Clone` and `Into`, as serde's.
fn into_kind(
    container: &SerAttrs,
    name: &str,
    fns: &mut Vec<TokenStream>,
) -> (String, TokenStream) {
    let target = container.into.as_ref().expect("called with `into`");
    fns.push(quote! {
        unsafe extern "C" fn __jitson_encode_into(
            src: *const u8,
            encode: ::jitson::__private::EncodeSlotFn,
            ctx: *mut ::core::ffi::c_void,
            message: *mut ::core::option::Option<::jitson::__private::Box<str>>,
        ) -> bool {
            // SAFETY: forwarded from the layout's caller.
            unsafe {
                ::jitson::__private::into_with::<Self, #target>(src, encode, ctx, message, |v| {
                    ::core::result::Result::Ok(::core::convert::Into::<#target>::into(
                        ::core::clone::Clone::clone(v),
                    ))
                })
            }
        }
    });
    (
        name.to_owned(),
        quote! {
            ::jitson::__private::Kind::Convert(&::jitson::__private::ConvertLayout {
                from: ::jitson::__private::LayoutRef::Lazy(::jitson::__private::encode_layout_of::<#target>),
                convert: ::jitson::__private::never_convert,
                into: ::core::option::Option::Some(Self::__jitson_encode_into),
            })
        },
    )
}

#[cfg(test)]
mod tests {
    use proc_macro2::{TokenStream, TokenTree};

    /// Where the idents named `name` in `tokens` start, as (line, column).
    fn starts(tokens: TokenStream, name: &str, out: &mut Vec<(usize, usize)>) {
        for token in tokens {
            match token {
                TokenTree::Ident(ident) if ident == name => {
                    let start = ident.span().start();
                    out.push((start.line, start.column));
                }
                TokenTree::Group(group) => starts(group.stream(), name, out),
                _ => {}
            }
        }
    }

    /// An unmet bound on a route's method is reported at the method's name:
    /// it must carry the span of the field's type, in a struct and in an
    /// enum's struct variant (issue 37, fault 6: the variant's was the
    /// derive's), on both derives.
    #[test]
    fn a_field_without_impls_is_reported_at_its_type() {
        // Each source with the (line, column) of `Money` in it, 0-based columns.
        let cases: [(&str, (usize, usize)); 2] = [
            ("enum E {\n    V { price: Money, n: u8 },\n}", (2, 15)),
            ("struct S {\n    price: Money,\n}", (2, 11)),
        ];
        for (source, at) in cases {
            let input: syn::DeriveInput = syn::parse_str(source).unwrap();
            let mut found = Vec::new();
            starts(
                super::derive(&input).unwrap(),
                "encode_view_layout",
                &mut found,
            );
            starts(super::derive(&input).unwrap(), "encode_layout", &mut found);
            assert!(found.contains(&at), "encode: {found:?}, expected {at:?}");
            let mut found = Vec::new();
            starts(crate::expand::derive(&input).unwrap(), "layout", &mut found);
            assert!(found.contains(&at), "decode: {found:?}, expected {at:?}");
        }
    }
}
