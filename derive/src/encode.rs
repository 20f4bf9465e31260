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
//! Structs with named fields, tuple structs, newtype and `transparent` structs,
//! unit structs, and enums whose variants are all unit variants (in all four
//! representations). Attributes: `rename`, `rename_all`, `skip`,
//! `skip_serializing`, `skip_serializing_if`, `flatten`, `transparent`, `tag`,
//! `content`, `untagged`; decode-only attributes are ignored. Enums with data,
//! `serialize_with`/`with`, `into` and variant `skip_serializing` are compile
//! errors naming the attribute or the variant, not silent differences.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Fields, LitStr, Member, Token, Type};

use crate::case::RenameRule;

/// Serialize-side attributes of a container, field or variant.
#[derive(Default)]
struct SerAttrs {
    rename: Option<String>,
    rename_all: Option<RenameRule>,
    skip: bool,
    skip_if: Option<syn::ExprPath>,
    flatten: bool,
    transparent: bool,
    tag: Option<String>,
    content: Option<String>,
    untagged: bool,
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
            "serialize_with" | "with" | "into" | "getter" | "remote" => {
                return Err(meta.error(format!(
                    "`{key}` is not supported by `#[derive(jitson::Encode)]` yet; \
                     encode this type with serde_json"
                )));
            }
            "serde" => {
                return Err(meta.error(
                    "`#[jitson(serde)]` is not supported by `#[derive(jitson::Encode)]` yet",
                ));
            }
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
    let (expecting, kind) = match &input.data {
        Data::Struct(data) => struct_kind(&container, &name, &data.fields, &mut fns)?,
        Data::Enum(data) => enum_kind(input, &container, &name, data, &mut fns)?,
        Data::Union(_) => unreachable!("refused above"),
    };
    let ident = &input.ident;
    let static_self = crate::expand::static_self(input);
    let mut generics = input.generics.clone();
    let type_params: Vec<_> = generics.type_params().map(|p| p.ident.clone()).collect();
    {
        let where_clause = generics.make_where_clause();
        for param in &type_params {
            where_clause
                .predicates
                .push(syn::parse_quote!(#param: ::jitson::__private::Encode + 'static));
        }
    }
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
        const _: () = {
            #helpers

            // SAFETY: the layout describes `Self` (size, alignment and drop from
            // the type itself, offsets from `offset_of!`, each field's layout
            // that of its declared type), and every function it holds reads a
            // live `Self` through its own fields or by matching on it.
            unsafe impl #impl_generics ::jitson::__private::Encode for #ident #ty_generics #where_clause {
                type Static = #static_self;
                const ENCODE: &'static ::jitson::__private::TypeLayout =
                    &::jitson::__private::TypeLayout::of::<#static_self>(#expecting, #kind);
            }
        };
    })
}

/// The kind of a struct of any shape.
fn struct_kind(
    container: &SerAttrs,
    name: &str,
    fields: &Fields,
    fns: &mut Vec<TokenStream>,
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
    let written: Vec<_> = read.iter().filter(|(_, _, a)| !a.skip).collect();
    let edge = |ty: &Type| {
        quote_spanned! {ty.span()=>
            ::jitson::__private::LayoutRef::Lazy(::jitson::__private::encode_layout_of::<#ty>)
        }
    };
    match fields {
        Fields::Unit => Ok((
            format!("unit struct {name}"),
            quote!(::jitson::__private::Kind::Unit),
        )),
        Fields::Unnamed(_) if written.len() == 1 && fields.len() == 1 || container.transparent => {
            let Some((member, ty, _)) = written.first() else {
                return Err(syn::Error::new(
                    proc_macro2::Span::call_site(),
                    "`#[serde(transparent)]` needs exactly one field that is not skipped",
                ));
            };
            let layout = edge(ty);
            let transparent = container.transparent;
            Ok((
                format!("struct {name}"),
                quote! {
                    ::jitson::__private::Kind::Newtype(&::jitson::__private::NewtypeLayout {
                        offset: ::jitson::__private::core::mem::offset_of!(Self, #member),
                        inner: #layout,
                        skipped: &[],
                        transparent: #transparent,
                    })
                },
            ))
        }
        Fields::Unnamed(_) => {
            let elems = written.iter().map(|(member, ty, _)| {
                let layout = edge(ty);
                quote! {
                    ::jitson::__private::TupleElem {
                        offset: ::jitson::__private::core::mem::offset_of!(Self, #member),
                        layout: #layout,
                    }
                }
            });
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
            let Some((member, ty, _)) = written.first().filter(|_| written.len() == 1) else {
                return Err(syn::Error::new(
                    proc_macro2::Span::call_site(),
                    "`#[serde(transparent)]` needs exactly one field that is not skipped",
                ));
            };
            let layout = edge(ty);
            Ok((
                format!("struct {name}"),
                quote! {
                    ::jitson::__private::Kind::Newtype(&::jitson::__private::NewtypeLayout {
                        offset: ::jitson::__private::core::mem::offset_of!(Self, #member),
                        inner: #layout,
                        skipped: &[],
                        transparent: true,
                    })
                },
            ))
        }
        Fields::Named(_) => {
            let mut entries = Vec::new();
            let mut flatten = Vec::new();
            for (member, ty, attrs) in &written {
                let Member::Named(ident) = member else {
                    unreachable!("named fields")
                };
                let rust_name = ident.unraw().to_string();
                let layout = edge(ty);
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
                let skip_if = match &attrs.skip_if {
                    Some(path) => {
                        let fn_name = format_ident!("__jitson_encode_skip_{}", rust_name);
                        fns.push(quote! {
                            unsafe extern "C" fn #fn_name(field: *const u8, skip: *mut bool) -> bool {
                                // SAFETY: the layout passes this field's address.
                                unsafe { ::jitson::__private::skip_with::<#ty>(field, skip, |v| #path(v)) }
                            }
                        });
                        quote!(::core::option::Option::Some(Self::#fn_name as ::jitson::__private::SkipFn))
                    }
                    None => quote!(::core::option::Option::None),
                };
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
                        flatten: &[#(#flatten),*],
                    })
                },
            ))
        }
    }
}

/// The kind of an enum whose variants are all unit variants.
fn enum_kind(
    input: &DeriveInput,
    container: &SerAttrs,
    name: &str,
    data: &syn::DataEnum,
    fns: &mut Vec<TokenStream>,
) -> syn::Result<(String, TokenStream)> {
    let ident = &input.ident;
    let mut entries = Vec::new();
    let mut arms = Vec::new();
    let mut untagged_from = None;
    for variant in &data.variants {
        let attrs = SerAttrs::parse(&variant.attrs)?;
        let v = &variant.ident;
        if !matches!(variant.fields, Fields::Unit) {
            return Err(syn::Error::new_spanned(
                variant,
                "`#[derive(jitson::Encode)]` supports enums of unit variants only in this \
                 version; encode this type with serde_json",
            ));
        }
        let rust_name = v.unraw().to_string();
        if attrs.skip {
            arms.push(quote! {
                #ident::#v => {
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
        arms.push(quote!(#ident::#v => #index));
        entries.push(quote! {
            ::jitson::__private::Variant {
                name: #json,
                aliases: &[],
                payload: ::jitson::__private::Payload::Unit,
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
    fns.push(quote! {
        unsafe extern "C" fn __jitson_encode_variant_of(src: *const u8, payload: *mut u8) -> usize {
            let _ = payload;
            // SAFETY: the layout passes the address of a live `Self`.
            match unsafe { &*src.cast::<Self>() } {
                #(#arms,)*
            }
        }
    });
    Ok((
        format!("enum {name}"),
        quote! {
            ::jitson::__private::Kind::Enum(&::jitson::__private::EnumLayout {
                name: #name,
                variants: &[#(#entries),*],
                tagging: #tagging,
                other: ::core::option::Option::None,
                untagged_from: #untagged_from,
                deny_unknown_fields: false,
                write: ::jitson::__private::never_write_variant,
                decode_variant: ::jitson::__private::no_data_variants,
                variant_of: ::core::option::Option::Some(Self::__jitson_encode_variant_of),
            })
        },
    ))
}
