//! Generating the `Decode` impl from the parsed input.
//!
//! The output is one anonymous `const _: () = { ... };` holding the `unsafe impl
//! Decode` and, when the layout needs functions of its own (an enum's `write`, a
//! field's `default = "path"`), a private helper trait implemented for the type that
//! defines them. Keeping those functions in a trait no one outside the block can name
//! leaves the user's type without extra inherent methods (and clippy's
//! `unsafe_derive_deserialize`, which looks at inherent impls, quiet).
//!
//! Every path in the output goes through `::jitson::__private`, so user crates need
//! only depend on `jitson`.

use proc_macro2::{Literal, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{
    Attribute, Data, DataEnum, DeriveInput, Field, Fields, FieldsNamed, Generics, Ident, Type,
    WherePredicate, parse_quote,
};

use crate::attr::{ContainerAttrs, DefaultAttr, Errors, FieldAttrs, VariantAttrs, skip_value};

/// Expands `#[derive(Decode)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    if let Some(lifetime) = input.generics.lifetimes().next() {
        return Err(syn::Error::new_spanned(
            lifetime,
            "jitson's Decode cannot be derived for types with lifetime parameters: \
             decoded values own their data (`Decode: 'static`)",
        ));
    }
    match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(fields) => expand_struct(input, fields),
            Fields::Unnamed(_) => Err(syn::Error::new_spanned(
                &input.ident,
                "jitson's Decode supports structs with named fields, not tuple structs",
            )),
            Fields::Unit => Err(syn::Error::new_spanned(
                &input.ident,
                "jitson's Decode supports structs with named fields, not unit structs",
            )),
        },
        Data::Enum(data) => expand_enum(input, data),
        Data::Union(data) => Err(syn::Error::new_spanned(
            data.union_token,
            "jitson's Decode supports structs with named fields and unit-only enums, not unions",
        )),
    }
}

// ---------------------------------------------------------------------------
// Structs

/// A struct field with its attributes read.
struct StructField<'a> {
    ident: &'a Ident,
    ty: &'a Type,
    attrs: FieldAttrs,
}

impl StructField<'_> {
    /// The Rust name, without `r#`.
    fn rust_name(&self) -> String {
        self.ident.unraw().to_string()
    }

    /// The name of the helper `InitFn` generated for `default = "path"`.
    fn default_fn_name(&self) -> Ident {
        format_ident!("__jitson_default_{}", self.ident.unraw())
    }

    /// The `InitFn` that fills the field from its `default` attribute, if it has one.
    fn init_fn(&self) -> Option<TokenStream> {
        let ty = self.ty;
        match self.attrs.default.as_ref()? {
            DefaultAttr::Trait => Some(quote_spanned! {ty.span()=>
                ::jitson::__private::default_init::<#ty>()
            }),
            DefaultAttr::Path(_) => {
                let (helpers, name) = (helpers_trait(), self.default_fn_name());
                Some(quote!(<Self as #helpers>::#name as ::jitson::__private::InitFn))
            }
        }
    }

    /// Whether the field's type must implement `Default`.
    fn needs_default(&self) -> bool {
        match self.attrs.default {
            Some(DefaultAttr::Trait) => true,
            Some(DefaultAttr::Path(_)) => false,
            None => self.attrs.skip,
        }
    }
}

fn expand_struct(input: &DeriveInput, fields: &FieldsNamed) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let container = ContainerAttrs::parse(&input.attrs, &mut errors);
    errors.check(reject_packed(&input.attrs));
    let fields: Vec<StructField<'_>> = fields
        .named
        .iter()
        .map(|field| read_field(field, &mut errors))
        .collect();
    errors.finish()?;

    let name = container
        .rename
        .clone()
        .unwrap_or_else(|| input.ident.unraw().to_string());
    let expecting = container
        .expecting
        .clone()
        .unwrap_or_else(|| format!("struct {name}"));
    let deny_unknown_fields = container.deny_unknown_fields;
    let (decoded, skipped): (Vec<_>, Vec<_>) = fields.iter().partition(|field| !field.attrs.skip);
    let mut errors = Errors::default();
    check_unique_keys(&decoded, &container, &mut errors);
    errors.finish()?;
    let decoded_entries = decoded.iter().map(|field| field_entry(field, &container));
    let skipped_entries = skipped.iter().map(|field| skipped_entry(field));

    let generics = bounded_generics(
        &input.generics,
        decoded.iter().map(|field| field.ty),
        fields
            .iter()
            .filter(|field| field.needs_default())
            .map(|field| field.ty),
    );
    let helpers = helpers(input, &generics, &default_fns(&fields));

    // SAFETY (of the generated impl, with `decode_impl`'s): each decoded field's offset
    // is `offset_of!` and its layout that of its declared type (`layout_of::<FieldTy>`);
    // every field is either decoded or listed as skipped with an initialiser of its own
    // type, so once all are written the memory is a valid `Self`. `#[repr(packed)]` is
    // rejected above, so every field is aligned for its type.
    let kind = quote! {
        ::jitson::__private::Kind::Struct(&::jitson::__private::StructLayout {
            name: #name,
            fields: &[#(#decoded_entries),*],
            skipped: &[#(#skipped_entries),*],
            deny_unknown_fields: #deny_unknown_fields,
        })
    };
    Ok(decode_impl(input, &generics, &expecting, &kind, &helpers))
}

/// Reads one field's attributes, recording errors in `errors`.
fn read_field<'a>(field: &'a Field, errors: &mut Errors) -> StructField<'a> {
    StructField {
        ident: field.ident.as_ref().expect("named fields have names"),
        ty: &field.ty,
        attrs: FieldAttrs::parse(&field.attrs, errors),
    }
}

/// The JSON key of a decoded field, after `rename` / `rename_all`.
fn json_name(field: &StructField<'_>, container: &ContainerAttrs) -> String {
    field.attrs.rename.clone().unwrap_or_else(|| {
        let rust_name = field.rust_name();
        match container.rename_all {
            Some(rule) => rule.apply_to_field(&rust_name),
            None => rust_name,
        }
    })
}

/// Rejects a JSON key claimed by two decoded fields (names and aliases): which
/// field it fills would depend on the order of keys in the document.
fn check_unique_keys(
    decoded: &[&StructField<'_>],
    container: &ContainerAttrs,
    errors: &mut Errors,
) {
    let mut owners: Vec<(String, &Ident)> = Vec::new();
    for field in decoded {
        let keys =
            std::iter::once(json_name(field, container)).chain(field.attrs.aliases.iter().cloned());
        for key in keys {
            match owners.iter().find(|(k, _)| *k == key) {
                Some((_, owner)) if *owner != field.ident => errors.push(syn::Error::new_spanned(
                    field.ident,
                    format!(
                        "the JSON key `{key}` names both field `{owner}` and field `{}`",
                        field.ident
                    ),
                )),
                Some(_) => {}
                None => owners.push((key, field.ident)),
            }
        }
    }
}

/// The `Field { ... }` of a decoded field.
fn field_entry(field: &StructField<'_>, container: &ContainerAttrs) -> TokenStream {
    let json_name = json_name(field, container);
    let aliases = &field.attrs.aliases;
    let (ident, ty) = (field.ident, field.ty);
    let layout = quote_spanned! {ty.span()=>
        ::jitson::__private::layout_of::<#ty> as ::jitson::__private::LayoutFn
    };
    let default = match field.init_fn() {
        Some(init) => quote!(::jitson::__private::core::option::Option::Some(#init)),
        None => quote!(::jitson::__private::core::option::Option::None),
    };
    quote! {
        ::jitson::__private::Field {
            name: #json_name,
            aliases: &[#(#aliases),*],
            offset: ::jitson::__private::core::mem::offset_of!(Self, #ident),
            layout: #layout,
            default: #default,
        }
    }
}

/// The `SkippedField { ... }` of a skipped field.
fn skipped_entry(field: &StructField<'_>) -> TokenStream {
    let rust_name = field.rust_name();
    let (ident, ty) = (field.ident, field.ty);
    let init = field.init_fn().unwrap_or_else(|| {
        quote_spanned! {ty.span()=>
            ::jitson::__private::default_init::<#ty>()
        }
    });
    quote! {
        ::jitson::__private::SkippedField {
            name: #rust_name,
            offset: ::jitson::__private::core::mem::offset_of!(Self, #ident),
            init: #init,
            drop: ::jitson::__private::drop_fn::<#ty>(),
        }
    }
}

/// The helper `InitFn`s wrapping `default = "path"` functions.
fn default_fns(fields: &[StructField<'_>]) -> Vec<HelperFn> {
    fields
        .iter()
        .filter_map(|field| {
            let Some(DefaultAttr::Path(path)) = &field.attrs.default else {
                return None;
            };
            let (name, ty) = (field.default_fn_name(), field.ty);
            Some(HelperFn {
                signature: quote!(unsafe extern "C" fn #name(dst: *mut u8) -> bool),
                // SAFETY (of the generated block): the InitFn contract hands us `dst`
                // valid for a write of the field's type, which the turbofish makes the
                // type `init_with` writes.
                body: quote!(unsafe { ::jitson::__private::init_with::<#ty>(dst, #path) }),
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Enums

fn expand_enum(input: &DeriveInput, data: &DataEnum) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let container = ContainerAttrs::parse(&input.attrs, &mut errors);
    let mut variants = Vec::new();
    for variant in &data.variants {
        if !matches!(variant.fields, Fields::Unit) {
            errors.push(syn::Error::new_spanned(
                &variant.fields,
                format!(
                    "jitson's Decode supports only unit-only enums; variant `{}` has fields",
                    variant.ident
                ),
            ));
        }
        let attrs = VariantAttrs::parse(&variant.attrs, &mut errors);
        if !attrs.skip {
            variants.push((&variant.ident, attrs));
        }
    }
    errors.finish()?;

    let name = container
        .rename
        .clone()
        .unwrap_or_else(|| input.ident.unraw().to_string());
    let expecting = container
        .expecting
        .clone()
        .unwrap_or_else(|| format!("enum {name}"));
    let entries = variants.iter().map(|(ident, attrs)| {
        let json_name = attrs.rename.clone().unwrap_or_else(|| {
            let rust_name = ident.unraw().to_string();
            match container.rename_all {
                Some(rule) => rule.apply_to_variant(&rust_name),
                None => rust_name,
            }
        });
        let aliases = &attrs.aliases;
        quote!(::jitson::__private::Variant { name: #json_name, aliases: &[#(#aliases),*] })
    });
    let write_fn = write_variant_fn(variants.iter().map(|(ident, _)| *ident));

    let generics = bounded_generics(&input.generics, [], []);
    let helpers = helpers(input, &generics, &[write_fn]);
    let helpers_trait = helpers_trait();

    // SAFETY (of the generated impl, with `decode_impl`'s): `write` writes a whole
    // `Self` (one of its unit variants) for every index into `variants`.
    let kind = quote! {
        ::jitson::__private::Kind::Enum(&::jitson::__private::EnumLayout {
            name: #name,
            variants: &[#(#entries),*],
            write: <Self as #helpers_trait>::__jitson_write_variant,
        })
    };
    Ok(decode_impl(input, &generics, &expecting, &kind, &helpers))
}

/// The helper `EnumLayout::write` function: index `i` writes the `i`th listed variant.
fn write_variant_fn<'a>(variants: impl Iterator<Item = &'a Ident>) -> HelperFn {
    let arms: Vec<TokenStream> = variants
        .enumerate()
        .map(|(index, variant)| {
            let index = Literal::usize_unsuffixed(index);
            // SAFETY (of the generated block): the `write` contract hands us `dst` valid
            // for a write of `Self`.
            quote! {
                #index => unsafe { ::jitson::__private::write_value::<Self>(dst, Self::#variant) },
            }
        })
        .collect();
    let body = if arms.is_empty() {
        // No variant can be decoded, so `write` is never called.
        quote!(let _ = (dst, index);)
    } else {
        quote! {
            match index {
                #(#arms)*
                _ => {}
            }
        }
    };
    HelperFn {
        signature: quote!(unsafe extern "C" fn __jitson_write_variant(dst: *mut u8, index: usize)),
        body,
    }
}

// ---------------------------------------------------------------------------
// Shared

/// The output: the `unsafe impl Decode` with the given `expecting` message and
/// `Kind`, next to the `helpers`, in an anonymous const.
fn decode_impl(
    input: &DeriveInput,
    generics: &Generics,
    expecting: &str,
    kind: &TokenStream,
    helpers: &TokenStream,
) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    // SAFETY (of the generated impl): `TypeLayout::of::<Self>` takes the size,
    // alignment, identity and drop glue from `Self`; the callers argue for `kind`.
    quote! {
        const _: () = {
            #helpers

            #[automatically_derived]
            unsafe impl #impl_generics ::jitson::__private::Decode
                for #ident #ty_generics #where_clause
            {
                const LAYOUT: &'static ::jitson::__private::TypeLayout =
                    &::jitson::__private::TypeLayout::of::<Self>(#expecting, #kind);
            }
        };
    }
}

/// The name of the private trait holding the functions a layout points to.
fn helpers_trait() -> Ident {
    format_ident!("__JitsonFns")
}

/// A function the layout points to.
struct HelperFn {
    /// `unsafe extern "C" fn name(...) -> ...`
    signature: TokenStream,
    /// The body, without braces.
    body: TokenStream,
}

/// The helper trait declaring `fns` and its impl for the input type, or nothing when
/// there are no functions.
fn helpers(input: &DeriveInput, generics: &Generics, fns: &[HelperFn]) -> TokenStream {
    if fns.is_empty() {
        return TokenStream::new();
    }
    let ident = &input.ident;
    let helpers = helpers_trait();
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let signatures = fns.iter().map(|f| &f.signature);
    let definitions = fns
        .iter()
        .map(|HelperFn { signature, body }| quote!(#signature { #body }));
    quote! {
        #[allow(non_snake_case)]
        trait #helpers {
            #(#signatures;)*
        }

        #[automatically_derived]
        #[allow(non_snake_case)]
        impl #impl_generics #helpers for #ident #ty_generics #where_clause {
            #(#definitions)*
        }
    }
}

/// `generics` with the bounds the impl needs:
///
/// - `T: Decode` for each type parameter `T` named in a decoded field's type, and
///   `T: 'static` for the others (`Decode: 'static`);
/// - `FieldTy: Default` for each type in `need_default` that names a generic
///   parameter (concrete types are checked where they are used).
///
/// Bounding the parameters rather than the field types keeps recursive generic types
/// (`struct Tree<T> { children: Vec<Tree<T>> }`) from requiring themselves.
fn bounded_generics<'a>(
    generics: &Generics,
    decoded: impl IntoIterator<Item = &'a Type>,
    need_default: impl IntoIterator<Item = &'a Type>,
) -> Generics {
    let type_params: Vec<&Ident> = generics.type_params().map(|param| &param.ident).collect();
    let all_params: Vec<&Ident> = type_params
        .iter()
        .copied()
        .chain(generics.const_params().map(|param| &param.ident))
        .collect();
    let decoded: Vec<&Type> = decoded.into_iter().collect();

    let mut predicates: Vec<WherePredicate> = type_params
        .iter()
        .map(|param| {
            if decoded.iter().any(|ty| names_any(ty, &[*param])) {
                parse_quote!(#param: ::jitson::__private::Decode)
            } else {
                parse_quote!(#param: 'static)
            }
        })
        .collect();
    predicates.extend(
        need_default
            .into_iter()
            .filter(|ty| names_any(ty, &all_params))
            .map(|ty| -> WherePredicate {
                parse_quote!(#ty: ::jitson::__private::core::default::Default)
            }),
    );

    let mut generics = generics.clone();
    if !predicates.is_empty() {
        generics.make_where_clause().predicates.extend(predicates);
    }
    generics
}

/// Whether the tokens of `ty` contain one of the identifiers `names`. A token-level
/// check: it may also match a path segment spelled like a parameter (`other::T`),
/// which only adds a bound.
fn names_any(ty: &Type, names: &[&Ident]) -> bool {
    fn scan(tokens: TokenStream, names: &[&Ident]) -> bool {
        tokens.into_iter().any(|token| match token {
            TokenTree::Ident(ident) => names.iter().any(|name| **name == ident),
            TokenTree::Group(group) => scan(group.stream(), names),
            TokenTree::Punct(_) | TokenTree::Literal(_) => false,
        })
    }
    !names.is_empty() && scan(quote!(#ty), names)
}

/// Rejects `#[repr(packed)]`: backends write fields through aligned pointers.
fn reject_packed(attrs: &[Attribute]) -> syn::Result<()> {
    let mut errors = Errors::default();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("repr")) {
        errors.check(attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("packed") {
                return Err(meta.error(
                    "jitson's Decode does not support `#[repr(packed)]` structs: \
                     fields are written in place and must be aligned",
                ));
            }
            skip_value(&meta)
        }));
    }
    errors.finish()
}
