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
    Attribute, Data, DataEnum, DeriveInput, Field, Fields, Generics, Ident, Index, Lifetime,
    Member, Type, TypeGenerics, WherePredicate, parse_quote,
};

use crate::attr::{
    ContainerAttrs, DefaultAttr, Errors, FieldAttrs, SerdeWith, VariantAttrs, skip_value,
};

/// Expands `#[derive(Decode)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let container = ContainerAttrs::parse(&input.attrs, &mut errors);
    errors.finish()?;
    if container.remote {
        // serde's derive gives a `remote` type inherent `deserialize` and
        // `serialize` functions that fields name with `with`, and no trait
        // impl: jitson's field then calls them (through serde), and the type
        // itself needs nothing.
        return Ok(TokenStream::new());
    }
    if container.from.is_some() || container.try_from.is_some() {
        return expand_convert(input, &container);
    }
    if let (Some(word), Data::Enum(data)) = (container.identifier, &input.data) {
        return expand_identifier(input, &container, data, word);
    }
    match &input.data {
        Data::Struct(data) => expand_struct(input, &data.fields),
        Data::Enum(data) => expand_enum(input, data),
        Data::Union(data) => Err(syn::Error::new_spanned(
            data.union_token,
            "jitson's Decode supports structs and enums, not unions",
        )),
    }
}

/// The name prefix of the hidden struct that holds a tuple or struct
/// variant's fields while they are decoded.
const VARIANT_PAYLOAD: &str = "__JitsonVariant_";

// ---------------------------------------------------------------------------
// `from` and `try_from`

/// A type read as another (`from = "Wire"`, `try_from = "Wire"`): the layout is
/// `Kind::Convert` over `Wire`'s, whatever the type's own shape.
fn expand_convert(input: &DeriveInput, container: &ContainerAttrs) -> syn::Result<TokenStream> {
    let (source, convert) = match (&container.from, &container.try_from) {
        (Some(ty), None) => (
            ty,
            quote!(|value| ::jitson::__private::core::result::Result::Ok(
                <Self as ::jitson::__private::core::convert::From<#ty>>::from(value)
            )),
        ),
        (None, Some(ty)) => (
            ty,
            quote!(|value| {
                <Self as ::jitson::__private::core::convert::TryFrom<#ty>>::try_from(value)
                    .map_err(|e| ::jitson::__private::ToString::to_string(&e))
            }),
        ),
        _ => {
            return Err(syn::Error::new_spanned(
                &input.ident,
                "`from` and `try_from` cannot both be given",
            ));
        }
    };
    let name = container
        .rename
        .clone()
        .unwrap_or_else(|| input.ident.unraw().to_string());
    let expecting = container.expecting.clone().unwrap_or(name);
    let mut generics = bounded_generics(&input.generics, Bounds::of(container, []), [], []);
    generics
        .make_where_clause()
        .predicates
        .push(parse_quote!(#source: ::jitson::__private::Decode));
    // SAFETY (of the generated impl): `convert` writes a whole `Self`, made by
    // the user's `From`/`TryFrom` from a source decoded with the source
    // type's own layout.
    Ok(convert_impl(
        input,
        &generics,
        &expecting,
        &quote!(#source),
        &convert,
    ))
}

/// The `Decode` impl of a type read as a `source` and built from it by the
/// closure `convert` (`FnOnce(source) -> Result<Self, String>`): a
/// `Kind::Convert` layout over `source`'s, whose `ConvertFn` is a helper
/// running `convert_with`.
fn convert_impl(
    input: &DeriveInput,
    generics: &Generics,
    expecting: &str,
    source: &TokenStream,
    convert: &TokenStream,
) -> TokenStream {
    let convert_fn = HelperFn {
        constant: false,
        signature: quote! {
            unsafe extern "C" fn __jitson_convert(
                dst: *mut u8,
                decode: ::jitson::__private::SlotFn,
                ctx: *mut ::jitson::__private::core::ffi::c_void,
                message: *mut ::jitson::__private::core::option::Option<
                    ::jitson::__private::Box<str>,
                >,
            ) -> bool
        },
        // SAFETY (of the generated block): the `ConvertFn` contract hands us `dst`
        // valid for a write of `Self`, a callback for the source type (named by
        // the turbofish) and a writable `message`.
        body: quote! {
            unsafe {
                ::jitson::__private::convert_with::<#source, Self>(
                    dst, decode, ctx, message, #convert,
                )
            }
        },
    };
    let helpers = helpers(input, generics, &[convert_fn]);
    let helpers_trait = helpers_trait();
    // SAFETY (of the generated impl, with `decode_impl`'s): `convert` writes a
    // whole `Self` (the callers say how).
    let kind = quote! {
        ::jitson::__private::Kind::Convert(&::jitson::__private::ConvertLayout {
            from: ::jitson::__private::LayoutRef::Lazy(::jitson::__private::layout_of::<#source>),
            convert: <Self as #helpers_trait>::__jitson_convert,
            into: ::core::option::Option::None,
        })
    };
    decode_impl(
        input,
        generics,
        expecting,
        &kind,
        &helpers,
        std::slice::from_ref(source),
    )
}

// ---------------------------------------------------------------------------
// `field_identifier` and `variant_identifier`

/// An enum of names (`field_identifier`, `variant_identifier`): serde reads
/// one with `deserialize_identifier`, which serde_json reads as a string, so
/// the layout is `Kind::Convert` from a `String` to the variant it names (an
/// `other` variant for any other name), refusing an unknown name in serde's
/// words ("unknown field `x`, expected ..."). Only unit variants.
fn expand_identifier(
    input: &DeriveInput,
    container: &ContainerAttrs,
    data: &DataEnum,
    word: &str,
) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let mut arms = Vec::new();
    let mut listed = Vec::new();
    let mut other = None;
    for variant in &data.variants {
        let attrs = VariantAttrs::parse(&variant.attrs, &mut errors);
        if !matches!(variant.fields, Fields::Unit) {
            errors.push(syn::Error::new_spanned(
                &variant.ident,
                "jitson reads a `field_identifier` or `variant_identifier` enum of unit \
                 variants only (use `#[serde(other)]` for the names it does not list)",
            ));
            continue;
        }
        if attrs.skip {
            continue;
        }
        let ident = &variant.ident;
        if attrs.other {
            other = Some(quote!(::core::result::Result::Ok(Self::#ident)));
            continue;
        }
        let name = attrs.rename.clone().unwrap_or_else(|| {
            let rust_name = ident.unraw().to_string();
            match container.rename_all {
                Some(rule) => rule.apply_to_variant(&rust_name),
                None => rust_name,
            }
        });
        let names = std::iter::once(&name).chain(&attrs.aliases);
        arms.push(quote!(#(#names)|* => ::core::result::Result::Ok(Self::#ident),));
        listed.push(name);
    }
    errors.finish()?;
    let what = format!("{word}s");
    let unknown = other.unwrap_or_else(|| {
        quote! {
            ::core::result::Result::Err(::jitson::__private::format!(
                "unknown {} `{}`, {}",
                #word,
                name,
                ::jitson::__private::expected_names([#(#listed),*], #what),
            ))
        }
    });
    let name = input.ident.unraw().to_string();
    let expecting = container.expecting.clone().unwrap_or(name);
    let generics = bounded_generics(&input.generics, Bounds::of(container, []), [], []);
    // SAFETY (of the generated impl): `convert` writes one of `Self`'s unit
    // variants.
    let convert = quote! {
        |name: ::jitson::__private::String| match name.as_str() {
            #(#arms)*
            _ => #unknown,
        }
    };
    let source = quote!(::jitson::__private::String);
    Ok(convert_impl(
        input, &generics, &expecting, &source, &convert,
    ))
}

// ---------------------------------------------------------------------------
// Structs

/// A struct field with its attributes read.
struct StructField<'a> {
    /// The field's name, or its index in a tuple struct.
    member: Member,
    /// Its position among the container's fields (unique within the container).
    index: usize,
    ty: &'a Type,
    attrs: FieldAttrs,
}

impl StructField<'_> {
    /// The Rust name (without `r#`), or the index of a tuple struct's field.
    fn rust_name(&self) -> String {
        match &self.member {
            Member::Named(ident) => ident.unraw().to_string(),
            Member::Unnamed(index) => index.index.to_string(),
        }
    }

    /// The name of the helper `InitFn` generated for `default = "path"`.
    fn default_fn_name(&self) -> Ident {
        format_ident!("__jitson_default_{}", self.rust_name())
    }

    /// The name of the helper `InitFn` that takes the field from the container's
    /// default value.
    fn container_default_fn_name(&self) -> Ident {
        format_ident!("__jitson_container_default_{}", self.rust_name())
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

    /// The names of the helpers generated for a field decoded through serde: its
    /// layout constant, the `LayoutRef` returning it, and its `SerdeFn`.
    fn serde_helper_names(&self) -> (Ident, Ident, Ident) {
        let name = self.rust_name();
        (
            format_ident!("__JITSON_SERDE_LAYOUT_{}", name),
            format_ident!("__jitson_serde_layout_{}", name),
            format_ident!("__jitson_serde_decode_{}", name),
        )
    }

    /// The field's layout edge: its type's own layout, or for a field decoded
    /// through serde the `Kind::Serde` layout generated for it.
    fn layout(&self, input: &DeriveInput) -> TokenStream {
        let ty = self.ty;
        if self.attrs.serde_with.is_some() {
            let (helpers, (_, layout_fn, _)) = (helpers_trait(), self.serde_helper_names());
            return quote!(::jitson::__private::LayoutRef::Lazy(<Self as #helpers>::#layout_fn));
        }
        if self.borrows_cow_bytes() {
            return quote!(::jitson::__private::LayoutRef::Lazy(|| {
                &::jitson::__private::BORROWED_COW_BYTES
            }));
        }
        routed_edge(ty, &static_type(input, ty))
    }

    /// Whether the field is a `Cow<'a, [u8]>` under `#[serde(borrow)]`, which
    /// serde's derive reads with `borrow_cow_bytes` (from a string's bytes, not
    /// from an array) where the type's own impl reads a `Vec<u8>`. Recognised by
    /// its spelling, as serde's derive recognises it.
    pub(crate) fn borrows_cow_bytes(&self) -> bool {
        self.attrs.borrow && self.attrs.serde_with.is_none() && is_cow_of_bytes(self.ty)
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

/// Whether `ty` is spelled `Cow<'a, [u8]>` (any path ending in `Cow`).
fn is_cow_of_bytes(ty: &Type) -> bool {
    let Type::Path(path) = ungroup(ty) else {
        return false;
    };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return false;
    };
    let mut args = args.args.iter();
    let (Some(syn::GenericArgument::Lifetime(_)), Some(syn::GenericArgument::Type(elem)), None) =
        (args.next(), args.next(), args.next())
    else {
        return false;
    };
    let Type::Slice(slice) = ungroup(elem) else {
        return false;
    };
    last.ident == "Cow"
        && path.qself.is_none()
        && matches!(ungroup(&slice.elem), Type::Path(p) if p.qself.is_none() && p.path.is_ident("u8"))
}

/// `ty` without the invisible groups macro expansion may wrap it in.
fn ungroup(mut ty: &Type) -> &Type {
    while let Type::Group(group) = ty {
        ty = &group.elem;
    }
    ty
}

/// The layout edge of a field of type `ty`, by the field's route (jitson-core's
/// `route` module): the type's own layout where it has one, otherwise a layout
/// running its serde impl. The choice is made by method resolution on the
/// concrete type (or under the bounds in scope, in a generic item); a type
/// with neither is a compile error at `ty`.
///
/// `static_ty` is `ty` with the container's lifetimes `'static`: the identity
/// of a serde layout, whose type may have lifetime parameters.
fn routed_edge(ty: &Type, static_ty: &TokenStream) -> TokenStream {
    // The imports are the derive's (call site), the call the field's (so an
    // error names the field's type).
    let call = quote_spanned! {ty.span()=>
        (&&::jitson::__private::Via::<#ty>::new()).decode_route().layout::<#static_ty>()
    };
    quote! {
        ::jitson::__private::LayoutRef::Lazy(|| {
            #[allow(unused_imports)]
            use ::jitson::__private::{
                DecodeViaLayout as _, DecodeViaSerde as _, DecodeViaSerdeOption as _,
            };
            #call
        })
    }
}

/// The shape of a struct, for messages: serde's words.
fn struct_shape(fields: &Fields) -> &'static str {
    match fields {
        Fields::Named(_) => "struct",
        Fields::Unnamed(_) => "tuple struct",
        Fields::Unit => "unit struct",
    }
}

fn expand_struct(input: &DeriveInput, fields: &Fields) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let container = ContainerAttrs::parse(&input.attrs, &mut errors);
    errors.check(reject_packed(&input.attrs));
    errors.check(reject_enum_only(input, &container));
    if container.default.is_some() && matches!(fields, Fields::Unit) {
        errors.push(syn::Error::new_spanned(
            &input.ident,
            "`#[serde(default)]` on a container needs a struct with fields",
        ));
    }
    let fields: Vec<StructField<'_>> = fields
        .iter()
        .enumerate()
        .map(|(index, field)| read_field(index, field, &mut errors))
        .collect();
    errors.finish()?;

    // serde_derive's messages name the type by its Rust name, whatever its
    // `rename`.
    let name = input.ident.unraw().to_string();
    let shape = struct_shape(match &input.data {
        Data::Struct(data) => &data.fields,
        _ => unreachable!("expand_struct is called for structs"),
    });
    let expecting = container
        .expecting
        .clone()
        .unwrap_or_else(|| format!("{shape} {name}"));
    let (flattened, fields_read): (Vec<_>, Vec<_>) = fields
        .iter()
        .partition(|field| field.attrs.flatten && !field.attrs.skip);
    let (decoded, skipped): (Vec<_>, Vec<_>) =
        fields_read.into_iter().partition(|field| !field.attrs.skip);
    let mut errors = Errors::default();
    if !flattened.is_empty() && shape != "struct" {
        errors.push(syn::Error::new_spanned(
            &input.ident,
            "`#[serde(flatten)]` needs a struct with named fields",
        ));
    }
    check_unique_keys(&decoded, &container, &mut errors);
    if container.transparent && decoded.len() != 1 {
        errors.push(syn::Error::new_spanned(
            &input.ident,
            "`#[serde(transparent)]` needs exactly one field that is not skipped",
        ));
    }
    errors.finish()?;
    let skipped_entries: Vec<TokenStream> = skipped
        .iter()
        .map(|field| skipped_entry(field, &container))
        .collect();

    let mut generics = bounded_generics(
        &input.generics,
        Bounds::of(&container, fields.iter().map(|field| &field.attrs)),
        decoded
            .iter()
            .chain(&flattened)
            .filter(|field| field.attrs.serde_with.is_none() && field.attrs.bound.is_none())
            .map(|field| field.ty),
        fields
            .iter()
            .filter(|field| field.needs_default() && !takes_container_default(field, &container))
            .map(|field| field.ty),
    );
    if matches!(container.default, Some(DefaultAttr::Trait))
        && !input.generics.params.is_empty()
        && container.bound.is_none()
    {
        let (ident, (_, ty_generics, _)) = (&input.ident, input.generics.split_for_impl());
        generics
            .make_where_clause()
            .predicates
            .push(parse_quote!(#ident #ty_generics: ::jitson::__private::core::default::Default));
    }
    let mut fns = default_fns(&fields);
    fns.extend(
        decoded
            .iter()
            .chain(&flattened)
            .flat_map(|field| serde_fns(input, field)),
    );
    if let Some(default) = &container.default {
        fns.extend(
            decoded
                .iter()
                .chain(&skipped)
                .filter(|field| field.attrs.default.is_none())
                .map(|field| container_default_fn(field, default)),
        );
    }
    let helpers = helpers(input, &generics, &fns);

    let kind = if container.transparent || (matches!(shape, "tuple struct") && fields.len() == 1) {
        // SAFETY (of the generated impl, with `decode_impl`'s): the one decoded
        // field's offset is `offset_of!` and its layout that of its type; the other
        // fields are listed as skipped with initialisers of their own types.
        let field = decoded[0];
        let (member, layout) = (&field.member, field.layout(input));
        let transparent = container.transparent;
        quote! {
            ::jitson::__private::Kind::Newtype(&::jitson::__private::NewtypeLayout {
                offset: ::jitson::__private::core::mem::offset_of!(Self, #member),
                inner: #layout,
                skipped: &[#(#skipped_entries),*],
                transparent: #transparent,
            })
        }
    } else if shape == "tuple struct" {
        // SAFETY (of the generated impl, with `decode_impl`'s): as for a newtype,
        // for each decoded field in order.
        let elems = decoded.iter().map(|field| {
            let (member, layout) = (&field.member, field.layout(input));
            // serde fills an element missing at the array's end from its own
            // `default`, else from the container's default value.
            let default = match field.init_fn().or_else(|| {
                container.default.as_ref().map(|_| {
                    let (helpers, name) = (helpers_trait(), field.container_default_fn_name());
                    quote!(<Self as #helpers>::#name as ::jitson::__private::InitFn)
                })
            }) {
                Some(init) => quote!(::jitson::__private::core::option::Option::Some(#init)),
                None => quote!(::jitson::__private::core::option::Option::None),
            };
            quote! {
                ::jitson::__private::TupleElem {
                    offset: ::jitson::__private::core::mem::offset_of!(Self, #member),
                    layout: #layout,
                    skip_if: ::core::option::Option::None,
                    default: #default,
                }
            }
        });
        // serde's invalid length: its expecting with the elements' number, or a
        // custom `expecting` as written. A tuple variant's hidden payload takes
        // the variant's name as its custom text, to which serde adds the number.
        let with_len = |expecting: &str| match decoded.len() {
            1 => format!("{expecting} with 1 element"),
            n => format!("{expecting} with {n} elements"),
        };
        let expecting_len = match &container.expecting {
            Some(variant) if input.ident.to_string().starts_with(VARIANT_PAYLOAD) => {
                with_len(variant)
            }
            Some(custom) => custom.clone(),
            None => with_len(&expecting),
        };
        quote! {
            ::jitson::__private::Kind::Tuple(&::jitson::__private::TupleLayout {
                elems: &[#(#elems),*],
                skipped: &[#(#skipped_entries),*],
                expecting_len: #expecting_len,
            })
        }
    } else if shape == "unit struct" {
        // SAFETY (of the generated impl): a unit struct is zero-sized; nothing
        // needs writing.
        quote!(::jitson::__private::Kind::Unit)
    } else {
        // SAFETY (of the generated impl, with `decode_impl`'s): each decoded field's
        // offset is `offset_of!` and its layout that of its declared type; every
        // field is either decoded or listed as skipped with an initialiser of its
        // own type, so once all are written the memory is a valid `Self`.
        // `#[repr(packed)]` is rejected above, so every field is aligned.
        let deny_unknown_fields = container.deny_unknown_fields;
        let decoded_entries = decoded
            .iter()
            .map(|field| field_entry(field, &container, field.layout(input)));
        let flatten_entries = flattened.iter().map(|field| {
            let (name, member, layout) = (field.rust_name(), &field.member, field.layout(input));
            let position = decoded.iter().filter(|d| d.index < field.index).count();
            quote! {
                ::jitson::__private::FlattenField {
                    name: #name,
                    offset: ::jitson::__private::core::mem::offset_of!(Self, #member),
                    layout: #layout,
                    position: #position,
                }
            }
        });
        quote! {
            ::jitson::__private::Kind::Struct(&::jitson::__private::StructLayout {
                name: #name,
                fields: &[#(#decoded_entries),*],
                skipped: &[#(#skipped_entries),*],
                deny_unknown_fields: #deny_unknown_fields,
                duplicate_keys: ::jitson::__private::DuplicateKeys::Error,
                skip_unknown: ::jitson::__private::SkipMode::Validate,
                flatten: &[#(#flatten_entries),*],
            })
        }
    };
    let borrowing: Vec<TokenStream> = decoded
        .iter()
        .chain(&flattened)
        .filter(|field| field.attrs.serde_with.is_none() && !field.borrows_cow_bytes())
        .map(|field| {
            let ty = field.ty;
            quote!(#ty)
        })
        .collect();
    Ok(decode_impl(
        input, &generics, &expecting, &kind, &helpers, &borrowing,
    ))
}

/// Rejects the enum-only container attributes on a struct.
fn reject_enum_only(input: &DeriveInput, container: &ContainerAttrs) -> syn::Result<()> {
    // serde also takes `tag` on a struct with named fields: it writes the
    // struct's name under it, and reading ignores it (an unknown key).
    let named =
        matches!(&input.data, Data::Struct(data) if matches!(data.fields, Fields::Named(_)));
    let given = [
        ("tag", container.tag.is_some() && !named),
        ("content", container.content.is_some()),
        ("untagged", container.untagged),
        ("rename_all_fields", container.rename_all_fields.is_some()),
    ];
    match given.iter().find(|(_, set)| *set) {
        Some((key, _)) => Err(syn::Error::new_spanned(
            &input.ident,
            format!("`#[serde({key})]` can only be used on enums"),
        )),
        None => Ok(()),
    }
}

/// Reads one field's attributes, recording errors in `errors`.
fn read_field<'a>(index: usize, field: &'a Field, errors: &mut Errors) -> StructField<'a> {
    StructField {
        index,
        member: match &field.ident {
            Some(ident) => Member::Named(ident.clone()),
            None => Member::Unnamed(Index::from(index)),
        },
        ty: &field.ty,
        attrs: FieldAttrs::parse(&field.attrs, errors),
    }
}

/// Whether `ty` is spelled `PhantomData<..>` (any path).
fn is_phantom(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "PhantomData"))
}

/// Whether `ty` is spelled `Option<..>` (also `std::option::Option<..>`).
fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "Option"))
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
    let mut owners: Vec<(String, &Member)> = Vec::new();
    for field in decoded {
        let keys =
            std::iter::once(json_name(field, container)).chain(field.attrs.aliases.iter().cloned());
        for key in keys {
            match owners.iter().find(|(k, _)| *k == key) {
                Some((_, owner)) if **owner != field.member => {
                    errors.push(syn::Error::new_spanned(
                        &field.member,
                        format!(
                            "the JSON key `{key}` names both field `{}` and field `{}`",
                            quote!(#owner),
                            field.rust_name()
                        ),
                    ))
                }
                Some(_) => {}
                None => owners.push((key, &field.member)),
            }
        }
    }
}

/// The `Field { ... }` of a decoded field.
fn field_entry(
    field: &StructField<'_>,
    container: &ContainerAttrs,
    layout: TokenStream,
) -> TokenStream {
    let json_name = json_name(field, container);
    let aliases = &field.attrs.aliases;
    let member = &field.member;
    let init = field
        .init_fn()
        .or_else(|| {
            container.default.as_ref().map(|_| {
                let (helpers, name) = (helpers_trait(), field.container_default_fn_name());
                quote!(<Self as #helpers>::#name as ::jitson::__private::InitFn)
            })
        })
        .or_else(|| {
            // For serde, a `#[jitson(serde)]` field is an ordinary field: an
            // absent `Option` is `None`.
            let ty = field.ty;
            (matches!(field.attrs.serde_with, Some(SerdeWith::Trait)) && is_option(ty))
                .then(|| quote!(::jitson::__private::default_init::<#ty>()))
        });
    let default = match init {
        Some(init) => quote!(::jitson::__private::core::option::Option::Some(#init)),
        None => quote!(::jitson::__private::core::option::Option::None),
    };
    quote! {
        ::jitson::__private::Field {
            name: #json_name,
            aliases: &[#(#aliases),*],
            offset: ::jitson::__private::core::mem::offset_of!(Self, #member),
            layout: #layout,
            default: #default,
            skip_if: ::core::option::Option::None,
        }
    }
}

/// Whether a field without a `default` of its own takes its value, when
/// absent or skipped, from the container's default value (as serde's derive
/// does), so that its type need not implement `Default`.
fn takes_container_default(field: &StructField<'_>, container: &ContainerAttrs) -> bool {
    container.default.is_some() && field.attrs.default.is_none()
}

/// The `SkippedField { ... }` of a skipped field: its own `default`, else the
/// container's default value's field (serde's order), else its type's.
fn skipped_entry(field: &StructField<'_>, container: &ContainerAttrs) -> TokenStream {
    let rust_name = field.rust_name();
    let (member, ty) = (&field.member, field.ty);
    let init = field.init_fn().unwrap_or_else(|| {
        if takes_container_default(field, container) {
            let (helpers, name) = (helpers_trait(), field.container_default_fn_name());
            return quote!(<Self as #helpers>::#name as ::jitson::__private::InitFn);
        }
        quote_spanned! {ty.span()=>
            ::jitson::__private::default_init::<#ty>()
        }
    });
    quote! {
        ::jitson::__private::SkippedField {
            name: #rust_name,
            offset: ::jitson::__private::core::mem::offset_of!(Self, #member),
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
                constant: false,
                signature: quote!(unsafe extern "C" fn #name(__dst: *mut u8) -> bool),
                // SAFETY (of the generated block): the InitFn contract hands us `__dst`
                // valid for a write of the field's type, which the turbofish makes the
                // type `init_with` writes. (`__`: no user function in `#path` is
                // shadowed by the parameter.)
                body: quote!(unsafe { ::jitson::__private::init_with::<#ty>(__dst, #path) }),
            })
        })
        .collect()
}

/// The helpers of a field decoded through serde: a `Kind::Serde` layout of the
/// field's type under an identity of its own (`(Self, [(); index])`, so caches
/// keyed by identity never mix it up with the type's own layout), a `LayoutRef`
/// returning it, and the `SerdeFn` that runs the deserializer.
fn serde_fns(input: &DeriveInput, field: &StructField<'_>) -> Vec<HelperFn> {
    let Some(with) = &field.attrs.serde_with else {
        return Vec::new();
    };
    let ty = field.ty;
    let (layout_const, layout_fn, decode_fn) = field.serde_helper_names();
    let helpers = helpers_trait();
    let index = field.index;
    let deserialize = match with {
        SerdeWith::Module(module) => quote!(#module::deserialize(__deserializer)),
        SerdeWith::Function(path) => quote!(#path(__deserializer)),
        SerdeWith::Trait => {
            quote!(<#ty as ::jitson::__private::serde::Deserialize>::deserialize(__deserializer))
        }
    };
    let expecting = format!("field `{}` (decoded through serde)", field.rust_name());
    // The identity needs `'static` types: the field's and the container's with
    // their lifetimes `'static` (the same memory layout).
    let static_self = static_self(input);
    let static_ty = replace_self(to_static(quote!(#ty), &input.generics), &static_self);
    vec![
        HelperFn {
            constant: true,
            signature: quote!(const #layout_const: &'static ::jitson::__private::TypeLayout),
            // SAFETY (of the generated impl): the layout's size, alignment and drop
            // are the field type's, and its `SerdeFn` writes a whole value of it.
            body: quote! {
                &::jitson::__private::TypeLayout::with_identity::<
                    #static_ty,
                    (#static_self, [(); #index]),
                >(
                    #expecting,
                    ::jitson::__private::Kind::Serde(&::jitson::__private::SerdeLayout {
                        decode: <Self as #helpers>::#decode_fn,
                        encode: ::core::option::Option::None,
                        raw: false,
                        borrows: false,
                    }),
                )
            },
        },
        HelperFn {
            constant: false,
            signature: quote!(fn #layout_fn() -> &'static ::jitson::__private::TypeLayout),
            body: native_with_or(
                with_module(with),
                &static_ty,
                quote!(with_decode),
                quote!(<Self as #helpers>::#layout_const),
            ),
        },
        HelperFn {
            constant: false,
            signature: quote! {
                unsafe extern "C" fn #decode_fn(
                    __dst: *mut u8,
                    __ptr: *const u8,
                    __len: usize,
                    __key: bool,
                    __message: *mut ::jitson::__private::core::option::Option<
                        ::jitson::__private::Box<str>,
                    >,
                ) -> bool
            },
            // SAFETY (of the generated block): the `SerdeFn` contract hands us `__dst`
            // valid for a write of the field's type (the turbofish), validated UTF-8
            // JSON text and a writable `__message`. The names start with `__`, as
            // serde_derive's do, so that a user's function (`deserialize_with =
            // "de"`) is not shadowed by them.
            body: quote! {
                unsafe {
                    ::jitson::__private::decode_with_serde::<#ty>(
                        __dst, __ptr, __len, __key, __message, |__deserializer| #deserialize,
                    )
                }
            },
        },
    ]
}

/// The module a field's serde functions come from, as the path text its
/// [`module_key`](jitson_core's `route::module_key`) hashes: `with`'s module,
/// or the module of a `deserialize_with` / `serialize_with` function named
/// `deserialize` / `serialize`.
pub(crate) fn module_path(path: &syn::ExprPath, function: Option<&str>) -> Option<String> {
    let mut segments: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    if let Some(function) = function
        && segments.pop().as_deref() != Some(function)
    {
        return None;
    }
    (!segments.is_empty()).then(|| segments.join("::"))
}

fn with_module(with: &SerdeWith) -> Option<String> {
    match with {
        SerdeWith::Module(path) => module_path(path, None),
        SerdeWith::Function(path) => module_path(path, Some("deserialize")),
        SerdeWith::Trait => None,
    }
}

/// The body of a field's layout function when serde functions are named:
/// the module's native layout where jitson has one for the field's type
/// (`route::With`, probed by autoref), else `fallback`.
pub(crate) fn native_with_or(
    module: Option<String>,
    static_ty: &TokenStream,
    method: TokenStream,
    fallback: TokenStream,
) -> TokenStream {
    let Some(module) = module else {
        return fallback;
    };
    quote! {
        #[allow(unused_imports)]
        use ::jitson::__private::route::{WithNative as _, WithSerde as _};
        match (&&::jitson::__private::route::With::<
            { ::jitson::__private::route::module_key(#module) },
            #static_ty,
        >::new())
            .#method()
        {
            ::jitson::__private::core::option::Option::Some(native) => native,
            ::jitson::__private::core::option::Option::None => #fallback,
        }
    }
}

/// The helper `InitFn` filling an absent field from the container's default value
/// (serde builds `Self::default()` and moves the field out of it).
fn container_default_fn(field: &StructField<'_>, default: &DefaultAttr) -> HelperFn {
    let (name, ty, member) = (field.container_default_fn_name(), field.ty, &field.member);
    let value = match default {
        DefaultAttr::Trait => {
            quote!(<Self as ::jitson::__private::core::default::Default>::default())
        }
        DefaultAttr::Path(path) => quote!(#path()),
    };
    HelperFn {
        constant: false,
        signature: quote!(unsafe extern "C" fn #name(__dst: *mut u8) -> bool),
        // SAFETY (of the generated block): as for `default_fns`.
        body: quote! {
            unsafe {
                ::jitson::__private::init_with::<#ty>(__dst, || {
                    let container: Self = #value;
                    container.#member
                })
            }
        },
    }
}

// ---------------------------------------------------------------------------
// Enums

/// A decoded variant with its attributes read and its payload described.
struct EnumVariant<'a> {
    variant: &'a syn::Variant,
    attrs: VariantAttrs,
    /// `Unit`, `Newtype(ty)`, or a hidden payload type's name.
    payload: PayloadShape<'a>,
}

/// A variant's payload.
enum PayloadShape<'a> {
    Unit,
    /// One unnamed field: the payload is the field's type (or, with `with`,
    /// `deserialize_with` or `#[jitson(serde)]`, its serde layout). The field
    /// is named after the variant, so that its helpers are the variant's.
    Newtype(Box<StructField<'a>>),
    /// Several unnamed fields: a hidden tuple struct.
    Tuple(Ident),
    /// Named fields: a hidden struct.
    Struct(Ident),
}

/// serde's representation, from the container attributes.
fn tagging(input: &DeriveInput, container: &ContainerAttrs) -> syn::Result<TokenStream> {
    let path = quote!(::jitson::__private::Tagging);
    match (&container.tag, &container.content, container.untagged) {
        (None, None, false) => Ok(quote!(#path::External)),
        (Some(tag), None, false) => Ok(quote!(#path::Internal { tag: #tag })),
        (Some(tag), Some(content), false) => {
            Ok(quote!(#path::Adjacent { tag: #tag, content: #content }))
        }
        (None, None, true) => Ok(quote!(#path::Untagged)),
        (None, Some(_), false) => Err(syn::Error::new_spanned(
            &input.ident,
            "`#[serde(content = \"...\")]` needs `tag = \"...\"` too",
        )),
        (_, _, true) => Err(syn::Error::new_spanned(
            &input.ident,
            "`#[serde(untagged)]` cannot be combined with `tag` or `content`",
        )),
    }
}

fn expand_enum(input: &DeriveInput, data: &DataEnum) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let container = ContainerAttrs::parse(&input.attrs, &mut errors);
    for (key, set) in [
        ("default", container.default.is_some()),
        ("transparent", container.transparent),
    ] {
        if set {
            errors.push(syn::Error::new_spanned(
                &input.ident,
                format!("`#[serde({key})]` can only be used on structs"),
            ));
        }
    }
    let tagging = tagging(input, &container);
    let internal = container.tag.is_some() && container.content.is_none();
    let mut variants = Vec::new();
    for variant in &data.variants {
        let attrs = VariantAttrs::parse(&variant.attrs, &mut errors);
        if attrs.skip {
            continue;
        }
        // A `field_identifier` / `variant_identifier` enum is a name read from
        // a string (serde_json has no other identifier): an enum of unit
        // variants, with `other` for the names it does not list.
        if container.identifier.is_some() && !matches!(variant.fields, Fields::Unit) {
            errors.push(syn::Error::new_spanned(
                &variant.ident,
                "jitson reads a `field_identifier` or `variant_identifier` enum of unit \
                 variants only (use `#[serde(other)]` for the names it does not list)",
            ));
        }
        let newtype = matches!(&variant.fields, Fields::Unnamed(f) if f.unnamed.len() == 1);
        if attrs.borrow && !newtype {
            errors.push(syn::Error::new_spanned(
                &variant.ident,
                "`#[serde(borrow)]` may only be used on newtype variants",
            ));
        }
        if attrs.serde_with.is_some() && !newtype {
            errors.push(syn::Error::new_spanned(
                &variant.ident,
                "jitson's Decode supports `with` and `deserialize_with` on a newtype variant \
                 only (on its field, the same)",
            ));
        }
        let hidden = format_ident!("{VARIANT_PAYLOAD}{}", variant.ident);
        let payload = match &variant.fields {
            Fields::Unit => PayloadShape::Unit,
            Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                // The variant's `borrow` and serde function are its one
                // field's, as serde reads them.
                let mut field_attrs = FieldAttrs::parse(&fields.unnamed[0].attrs, &mut errors);
                field_attrs.borrow |= attrs.borrow;
                if field_attrs.serde_with.is_none() {
                    field_attrs.serde_with = attrs.serde_with.clone();
                }
                PayloadShape::Newtype(Box::new(StructField {
                    member: Member::Named(variant.ident.clone()),
                    index: variants.len(),
                    ty: &fields.unnamed[0].ty,
                    attrs: field_attrs,
                }))
            }
            Fields::Unnamed(_) if internal => {
                errors.push(syn::Error::new_spanned(
                    &variant.ident,
                    "an internally tagged enum (`#[serde(tag = \"...\")]`) cannot hold \
                     tuple variants",
                ));
                PayloadShape::Unit
            }
            Fields::Unnamed(_) => PayloadShape::Tuple(hidden),
            Fields::Named(_) => PayloadShape::Struct(hidden),
        };
        if attrs.other && (!matches!(payload, PayloadShape::Unit) || container.untagged) {
            errors.push(syn::Error::new_spanned(
                &variant.ident,
                "`#[serde(other)]` must be on a unit variant of a tagged enum",
            ));
        }
        variants.push(EnumVariant {
            variant,
            attrs,
            payload,
        });
    }
    let untagged_from = variants
        .iter()
        .position(|v| v.attrs.untagged)
        .unwrap_or(variants.len());
    if variants[untagged_from..].iter().any(|v| !v.attrs.untagged) {
        errors.push(syn::Error::new_spanned(
            &input.ident,
            "`#[serde(untagged)]` variants must come after all the tagged ones",
        ));
    }
    if variants.iter().filter(|v| v.attrs.other).count() > 1 {
        errors.push(syn::Error::new_spanned(
            &input.ident,
            "only one variant may be `#[serde(other)]`",
        ));
    }
    let tagging = match tagging {
        Ok(tagging) => Some(tagging),
        Err(e) => {
            errors.push(e);
            None
        }
    };
    errors.finish()?;
    let tagging = tagging.expect("checked above");

    // serde_derive names the type in messages by its Rust name, whatever its
    // `rename`, and says how it is tagged: "internally tagged enum E",
    // "adjacently tagged enum E", else "enum E" (an untagged enum's own error
    // names it apart).
    let name = input.ident.unraw().to_string();
    let expecting =
        container
            .expecting
            .clone()
            .unwrap_or_else(|| match (&container.tag, &container.content) {
                (Some(_), None) => format!("internally tagged enum {name}"),
                (Some(_), Some(_)) => format!("adjacently tagged enum {name}"),
                _ => format!("enum {name}"),
            });
    let (_, ty_generics, _) = input.generics.split_for_impl();
    let mut hidden_types = TokenStream::new();
    let mut entries = Vec::new();
    for v in &variants {
        let json_name = v.attrs.rename.clone().unwrap_or_else(|| {
            let rust_name = v.variant.ident.unraw().to_string();
            match container.rename_all {
                Some(rule) => rule.apply_to_variant(&rust_name),
                None => rust_name,
            }
        });
        let payload = match &v.payload {
            PayloadShape::Unit => quote!(::jitson::__private::Payload::Unit),
            PayloadShape::Newtype(field) => {
                let edge = field.layout(input);
                quote!(::jitson::__private::Payload::Newtype(#edge))
            }
            PayloadShape::Tuple(hidden) | PayloadShape::Struct(hidden) => {
                hidden_types.extend(hidden_payload_type(input, &container, v, hidden, &name)?);
                let shape = match v.payload {
                    PayloadShape::Tuple(_) => quote!(Tuple),
                    _ => quote!(Struct),
                };
                quote! {
                    ::jitson::__private::Payload::#shape(
                        ::jitson::__private::LayoutRef::Lazy(
                            ::jitson::__private::layout_of::<#hidden #ty_generics>
                        )
                    )
                }
            }
        };
        let aliases = &v.attrs.aliases;
        // serde names the type and the variant by their Rust identifiers here.
        let unit_expecting = match v.payload {
            PayloadShape::Unit => format!("unit variant {}::{}", input.ident, v.variant.ident),
            _ => String::new(),
        };
        let rust_name = v.variant.ident.unraw().to_string();
        entries.push(quote! {
            ::jitson::__private::Variant {
                name: #json_name,
                rust_name: #rust_name,
                aliases: &[#(#aliases),*],
                payload: #payload,
                unit_expecting: #unit_expecting,
            }
        });
    }
    let other = match variants.iter().position(|v| v.attrs.other) {
        Some(index) => quote!(::jitson::__private::core::option::Option::Some(#index)),
        None => quote!(::jitson::__private::core::option::Option::None),
    };
    let deny_unknown_fields = container.deny_unknown_fields;

    // Each payload field's type infers bounds, unless the field takes serde's
    // route or states its own `bound`, which the enum's impl takes instead
    // (the fields of tuple and struct variants too, as serde's derive adds
    // them to the enum's impl).
    let mut ignored = Errors::default();
    let variant_fields: Vec<(&Type, FieldAttrs)> = variants
        .iter()
        .flat_map(|v| match &v.payload {
            PayloadShape::Unit => Vec::new(),
            PayloadShape::Newtype(field) => vec![(field.ty, field.attrs.clone())],
            PayloadShape::Tuple(_) | PayloadShape::Struct(_) => v
                .variant
                .fields
                .iter()
                .map(|field| (&field.ty, FieldAttrs::parse(&field.attrs, &mut ignored)))
                .collect(),
        })
        .collect();
    // Reported where the payload struct's own derive reads them.
    drop(ignored);
    let payload_types = variant_fields
        .iter()
        .filter(|(_, attrs)| attrs.serde_with.is_none() && attrs.bound.is_none() && !attrs.skip)
        .map(|(ty, _)| *ty);
    // A variant's skipped field takes its type's `Default`, which the payload
    // struct's impl requires (serde's derive adds the bound to the enum's).
    let defaulted = variant_fields
        .iter()
        .filter(|(_, attrs)| match attrs.default {
            Some(DefaultAttr::Trait) => true,
            Some(DefaultAttr::Path(_)) => false,
            None => attrs.skip,
        })
        .map(|(ty, _)| *ty);
    let generics = bounded_generics(
        &input.generics,
        Bounds::of(&container, variant_fields.iter().map(|(_, attrs)| attrs)),
        payload_types,
        defaulted,
    );
    let mut fns = vec![
        write_variant_fn(&variants),
        decode_variant_fn(&variants, &ty_generics),
    ];
    for v in &variants {
        if let PayloadShape::Newtype(field) = &v.payload {
            fns.extend(serde_fns(input, field));
        }
    }
    let helpers = helpers(input, &generics, &fns);
    let helpers_trait = helpers_trait();

    // SAFETY (of the generated impl, with `decode_impl`'s): `write` writes a whole
    // `Self` (one of its unit variants) for every unit variant's index, and
    // `decode_variant` one of its data variants, built from a payload decoded with
    // the layout listed for that variant (the payload's own type).
    let custom_expecting = match &container.expecting {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    };
    let kind = quote! {
        ::jitson::__private::Kind::Enum(&::jitson::__private::EnumLayout {
            name: #name,
            variants: &[#(#entries),*],
            tagging: #tagging,
            other: #other,
            untagged_from: #untagged_from,
            deny_unknown_fields: #deny_unknown_fields,
            write: <Self as #helpers_trait>::__jitson_write_variant,
            decode_variant: <Self as #helpers_trait>::__jitson_decode_variant,
            variant_of: ::core::option::Option::None,
            expecting: #custom_expecting,
        })
    };
    let borrowing: Vec<TokenStream> = variants
        .iter()
        .filter_map(|v| match &v.payload {
            PayloadShape::Unit => None,
            PayloadShape::Newtype(field)
                if field.attrs.serde_with.is_some() || field.borrows_cow_bytes() =>
            {
                None
            }
            PayloadShape::Newtype(field) => {
                let ty = field.ty;
                Some(quote!(#ty))
            }
            PayloadShape::Tuple(hidden) | PayloadShape::Struct(hidden) => {
                Some(quote!(#hidden #ty_generics))
            }
        })
        .collect();
    let mut out = decode_impl(input, &generics, &expecting, &kind, &helpers, &borrowing);
    // The hidden payload types go inside the anonymous const, before the impl.
    out = quote!(#[allow(deprecated)] const _: () = { #hidden_types #out };);
    Ok(out)
}

/// The hidden struct (or tuple struct) a struct (or tuple) variant's payload is
/// decoded into: the variant's fields with their attributes, the enum's
/// generics (with a skipped marker naming the type parameters), and its own
/// derived `Decode`. serde's words name it in messages ("struct variant E::V").
fn hidden_payload_type(
    input: &DeriveInput,
    container: &ContainerAttrs,
    v: &EnumVariant<'_>,
    hidden: &Ident,
    enum_name: &str,
) -> syn::Result<TokenStream> {
    let params: Vec<&Ident> = input.generics.type_params().map(|p| &p.ident).collect();
    let lifetimes: Vec<&Lifetime> = input.generics.lifetimes().map(|l| &l.lifetime).collect();
    let generics = &input.generics;
    let where_clause = &generics.where_clause;
    let keep = |attrs: &[Attribute]| -> Vec<Attribute> {
        attrs
            .iter()
            .filter(|a| a.path().is_ident("serde") || a.path().is_ident("jitson"))
            .cloned()
            .collect()
    };
    // `Self` in a field's type is the enum, not the payload struct.
    let (_, ty_generics, _) = generics.split_for_impl();
    let enum_ty = {
        let ident = &input.ident;
        quote!(#ident #ty_generics)
    };
    let fields: Vec<TokenStream> = v
        .variant
        .fields
        .iter()
        .map(|field| {
            let (attrs, ident) = (keep(&field.attrs), &field.ident);
            let ty = replace_self(
                {
                    let ty = &field.ty;
                    quote!(#ty)
                },
                &enum_ty,
            );
            match ident {
                Some(ident) => quote!(#(#attrs)* #ident: #ty),
                None => quote!(#(#attrs)* #ty),
            }
        })
        .collect();
    let marker_ty = quote! {
        ::jitson::__private::core::marker::PhantomData<(fn() -> (#(#params,)*), #(&#lifetimes (),)*)>
    };
    let needs_marker = !params.is_empty() || !lifetimes.is_empty();
    let variant_name = v.variant.ident.unraw().to_string();
    let mut attrs = Vec::new();
    let expecting = match v.payload {
        PayloadShape::Tuple(_) => format!("tuple variant {enum_name}::{variant_name}"),
        _ => format!("struct variant {enum_name}::{variant_name}"),
    };
    attrs.push(quote!(#[jitson(expecting = #expecting)]));
    if let Some(rule) = v.attrs.rename_all.or(container.rename_all_fields) {
        let rule = rule.name();
        attrs.push(quote!(#[jitson(rename_all = #rule)]));
    }
    if container.deny_unknown_fields {
        attrs.push(quote!(#[jitson(deny_unknown_fields)]));
    }
    if let Some(bound) = &container.bound {
        let bound = quote!(#(#bound),*).to_string();
        attrs.push(quote!(#[jitson(bound = #bound)]));
    }
    let definition = match &v.payload {
        PayloadShape::Tuple(_) => {
            let marker = needs_marker.then(|| quote!(#[jitson(skip)] #marker_ty,));
            quote! {
                #(#attrs)*
                struct #hidden #generics (#(#fields,)* #marker) #where_clause;
            }
        }
        _ => {
            let marker = needs_marker.then(|| quote!(#[jitson(skip)] __jitson_marker: #marker_ty,));
            quote! {
                #(#attrs)*
                struct #hidden #generics #where_clause { #(#fields,)* #marker }
            }
        }
    };
    let mut parsed: DeriveInput = syn::parse2(definition)?;
    let decode = derive(&parsed)?;
    // The attributes were for the expansion above; no derive declares them on
    // the emitted type.
    parsed.attrs.clear();
    if let Data::Struct(data) = &mut parsed.data {
        data.fields.iter_mut().for_each(|field| field.attrs.clear());
    }
    Ok(quote! {
        #[allow(non_camel_case_types, dead_code)]
        #parsed
        #decode
    })
}

/// The helper `EnumLayout::write` function: index `i` writes the `i`th listed
/// variant, when it is a unit variant.
fn write_variant_fn(variants: &[EnumVariant<'_>]) -> HelperFn {
    let arms: Vec<TokenStream> = variants
        .iter()
        .enumerate()
        .filter(|(_, v)| matches!(v.payload, PayloadShape::Unit))
        .map(|(index, v)| {
            let index = Literal::usize_unsuffixed(index);
            let ident = &v.variant.ident;
            // SAFETY (of the generated block): the `write` contract hands us `dst` valid
            // for a write of `Self`.
            quote! {
                #index => unsafe { ::jitson::__private::write_value::<Self>(dst, Self::#ident) },
            }
        })
        .collect();
    HelperFn {
        constant: false,
        signature: quote!(unsafe extern "C" fn __jitson_write_variant(dst: *mut u8, index: usize)),
        body: quote! {
            match index {
                #(#arms)*
                _ => { let _ = dst; }
            }
        },
    }
}

/// The helper `EnumLayout::decode_variant` function: index `i` decodes the `i`th
/// listed variant's payload through the callback and builds the variant.
fn decode_variant_fn(variants: &[EnumVariant<'_>], ty_generics: &TypeGenerics<'_>) -> HelperFn {
    let arms: Vec<TokenStream> = variants
        .iter()
        .enumerate()
        .filter_map(|(index, v)| {
            let index = Literal::usize_unsuffixed(index);
            let ident = &v.variant.ident;
            let (payload_ty, build) = match &v.payload {
                PayloadShape::Unit => return None,
                PayloadShape::Newtype(field) => {
                    let ty = field.ty;
                    (quote!(#ty), quote!(Self::#ident(payload)))
                }
                PayloadShape::Tuple(hidden) => {
                    let members = (0..v.variant.fields.len()).map(Index::from);
                    (
                        quote!(#hidden #ty_generics),
                        quote!(Self::#ident(#(payload.#members),*)),
                    )
                }
                PayloadShape::Struct(hidden) => {
                    let names = v.variant.fields.iter().map(|f| &f.ident);
                    let names2 = names.clone();
                    (
                        quote!(#hidden #ty_generics),
                        quote!(Self::#ident { #(#names: payload.#names2),* }),
                    )
                }
            };
            // SAFETY (of the generated block): the `decode_variant` contract hands us
            // `dst` valid for a write of `Self` and a callback for the payload's
            // type, which the turbofish names.
            Some(quote! {
                #index => unsafe {
                    ::jitson::__private::decode_variant_with::<#payload_ty, Self>(
                        dst, decode, ctx, |payload| #build,
                    )
                },
            })
        })
        .collect();
    HelperFn {
        constant: false,
        signature: quote! {
            unsafe extern "C" fn __jitson_decode_variant(
                dst: *mut u8,
                index: usize,
                decode: ::jitson::__private::SlotFn,
                ctx: *mut ::jitson::__private::core::ffi::c_void,
            ) -> bool
        },
        body: quote! {
            match index {
                #(#arms)*
                _ => { let _ = (dst, decode, ctx); false }
            }
        },
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
    borrowing: &[TokenStream],
) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let static_self = static_self(input);
    let de = Lifetime::new("'__jitson_de", proc_macro2::Span::call_site());
    let mut borrow_generics = generics.clone();
    let outlived: Vec<Lifetime> = generics.lifetimes().map(|l| l.lifetime.clone()).collect();
    borrow_generics.params.insert(
        0,
        syn::GenericParam::Lifetime(syn::LifetimeParam::new(de.clone())),
    );
    if !outlived.is_empty() {
        borrow_generics
            .make_where_clause()
            .predicates
            .push(parse_quote!(#de: #(#outlived)+*));
    }
    let (borrow_impl, _, borrow_where) = borrow_generics.split_for_impl();
    let borrowing = borrowing
        .iter()
        .map(|ty| replace_self(ty.clone(), &quote!(#ident #ty_generics)));
    // SAFETY (of the generated impls): `TypeLayout::of::<Static>` takes the size,
    // alignment, identity and drop glue from `Self` with its lifetimes made
    // `'static`, which has the same memory layout; the callers argue for `kind`.
    // `DecodeBorrowed<'de>` holds because every lifetime of the type is outlived
    // by `'de` and `__jitson_check_borrows` proves, under the same bounds, that
    // every type the layout decodes is `DecodeBorrowed<'de>` itself.
    quote! {
        #[allow(deprecated)]
        const _: () = {
            #helpers

            #[automatically_derived]
            unsafe impl #impl_generics ::jitson::__private::HasLayout
                for #ident #ty_generics #where_clause
            {
                type Static = #static_self;
                const LAYOUT: &'static ::jitson::__private::TypeLayout =
                    &::jitson::__private::TypeLayout::of::<#static_self>(#expecting, #kind);
            }

            #[automatically_derived]
            unsafe impl #borrow_impl ::jitson::__private::DecodeBorrowed<#de>
                for #ident #ty_generics #borrow_where
            {
            }

            #[allow(dead_code, non_snake_case, clippy::extra_unused_lifetimes)]
            fn __jitson_check_borrows #borrow_impl () #borrow_where {
                #[allow(unused_imports)]
                use ::jitson::__private::{
                    DecodeViaLayout as _, DecodeViaSerde as _, DecodeViaSerdeOption as _,
                };
                #(
                    (&&::jitson::__private::Via::<#borrowing>::new())
                        .decode_route()
                        .borrows(::jitson::__private::core::marker::PhantomData::<&#de ()>);
                )*
            }
        };
    }
}

/// A field type of `input` with the container's lifetime parameters `'static`
/// and `Self` spelled out (outside an impl, and `'static` too).
pub(crate) fn static_type(input: &DeriveInput, ty: &Type) -> TokenStream {
    replace_self(to_static(quote!(#ty), &input.generics), &static_self(input))
}

/// The input type with its lifetime parameters `'static`: its `HasLayout::Static`.
pub(crate) fn static_self(input: &DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let (_, ty_generics, _) = input.generics.split_for_impl();
    to_static(quote!(#ident #ty_generics), &input.generics)
}

/// `tokens` with the lifetime parameters of `generics` replaced by `'static`.
pub(crate) fn to_static(tokens: TokenStream, generics: &Generics) -> TokenStream {
    let names: Vec<String> = generics
        .lifetimes()
        .map(|l| l.lifetime.ident.to_string())
        .collect();
    fn walk(tokens: TokenStream, names: &[String]) -> TokenStream {
        let mut out = Vec::new();
        let mut iter = tokens.into_iter().peekable();
        while let Some(token) = iter.next() {
            match token {
                TokenTree::Punct(p) if p.as_char() == '\'' => {
                    if let Some(TokenTree::Ident(name)) = iter.peek()
                        && names.contains(&name.to_string())
                    {
                        let span = name.span();
                        iter.next();
                        out.push(TokenTree::Punct(p));
                        out.push(TokenTree::Ident(Ident::new("static", span)));
                    } else {
                        out.push(TokenTree::Punct(p));
                    }
                }
                TokenTree::Group(g) => {
                    let mut group = proc_macro2::Group::new(g.delimiter(), walk(g.stream(), names));
                    group.set_span(g.span());
                    out.push(TokenTree::Group(group));
                }
                other => out.push(other),
            }
        }
        out.into_iter().collect()
    }
    walk(tokens, &names)
}

/// `tokens` with `Self` replaced by `with` (outside an impl, `Self` means nothing).
pub(crate) fn replace_self(tokens: TokenStream, with: &TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|token| -> Vec<TokenTree> {
            match token {
                TokenTree::Ident(i) if i == "Self" => with.clone().into_iter().collect(),
                TokenTree::Group(g) => {
                    let mut group =
                        proc_macro2::Group::new(g.delimiter(), replace_self(g.stream(), with));
                    group.set_span(g.span());
                    vec![TokenTree::Group(group)]
                }
                other => vec![other],
            }
        })
        .collect()
}

/// The name of the private trait holding the functions a layout points to.
fn helpers_trait() -> Ident {
    format_ident!("__JitsonFns")
}

/// A function the layout points to.
struct HelperFn {
    /// `unsafe extern "C" fn name(...) -> ...`, or `const NAME: Type` for an
    /// associated constant.
    signature: TokenStream,
    /// The body, without braces (a constant's value).
    body: TokenStream,
    /// Whether this is an associated constant rather than a function.
    constant: bool,
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
    let definitions = fns.iter().map(
        |HelperFn {
             signature,
             body,
             constant,
         }| {
            if *constant {
                quote!(#signature = #body;)
            } else {
                quote!(#signature { #body })
            }
        },
    );
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
///
/// serde's `bound` attribute is honoured as serde's derive honours it: a field's
/// `bound` predicates are added and its type infers nothing (the caller leaves
/// it out of `decoded`); a container's `bound` replaces every inferred bound but
/// `T: 'static`, which a layout's identity needs. A field whose bounds give its
/// type no `Decode` is decoded through serde (see `routed_edge`).
fn bounded_generics<'a>(
    generics: &Generics,
    bounds: Bounds<'a>,
    decoded: impl IntoIterator<Item = &'a Type>,
    need_default: impl IntoIterator<Item = &'a Type>,
) -> Generics {
    let Bounds { container, fields } = bounds;
    let mut generics = match container {
        Some(predicates) => {
            let mut generics = generics.clone();
            let statics: Vec<WherePredicate> = generics
                .type_params()
                .map(|param| {
                    let param = generated(&param.ident);
                    parse_quote!(#param: 'static)
                })
                .collect();
            let clause = generics.make_where_clause();
            clause.predicates.extend(statics);
            clause.predicates.extend(predicates.iter().cloned());
            generics
        }
        None => inferred_generics(generics, decoded, need_default),
    };
    let fields: Vec<&WherePredicate> = fields.into_iter().collect();
    if !fields.is_empty() {
        generics
            .make_where_clause()
            .predicates
            .extend(fields.into_iter().cloned());
    }
    generics
}

/// The `bound` attributes of a container and its fields.
struct Bounds<'a> {
    container: Option<&'a [WherePredicate]>,
    fields: Vec<&'a WherePredicate>,
}

impl<'a> Bounds<'a> {
    /// Those of a container whose fields carry `attrs`.
    fn of(container: &'a ContainerAttrs, attrs: impl IntoIterator<Item = &'a FieldAttrs>) -> Self {
        Bounds {
            container: container.bound.as_deref(),
            fields: attrs
                .into_iter()
                .flat_map(|attrs| attrs.bound.iter().flatten())
                .collect(),
        }
    }
}

/// [`bounded_generics`] without `bound` attributes.
fn inferred_generics<'a>(
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
            let named = decoded.iter().any(|ty| names_any(ty, &[*param]));
            let param = generated(param);
            if named {
                parse_quote!(#param: ::jitson::__private::Decode)
            } else {
                parse_quote!(#param: 'static)
            }
        })
        .collect();
    let need_default: Vec<&Type> = need_default.into_iter().collect();
    predicates.extend(
        need_default
            .iter()
            .filter(|ty| names_any(ty, &all_params))
            .map(|ty| -> WherePredicate {
                parse_quote!(#ty: ::jitson::__private::core::default::Default)
            }),
    );
    // serde's derive also bounds each type parameter such a field names by
    // `Default` (not through `PhantomData`), and a serde impl the field goes
    // through may count on it (`Inner<P>: Deserialize` when `P: Default`).
    predicates.extend(
        type_params
            .iter()
            .filter(|param| {
                need_default
                    .iter()
                    .any(|ty| !is_phantom(ty) && names_any(ty, &[**param]))
            })
            .map(|param| -> WherePredicate {
                let param = generated(param);
                parse_quote!(#param: ::jitson::__private::core::default::Default)
            }),
    );

    let mut generics = generics.clone();
    if !predicates.is_empty() {
        generics.make_where_clause().predicates.extend(predicates);
    }
    generics
}

/// A type parameter's name as the derive's own token (call-site span), for
/// the predicates the derive adds: lints on bounds (clippy's
/// `multiple_bound_locations`) then see generated code, not the user's.
pub(crate) fn generated(param: &Ident) -> Ident {
    Ident::new(&param.to_string(), proc_macro2::Span::call_site())
}

/// Whether the tokens of `ty` contain one of the identifiers `names`. A token-level
/// check: it may also match a path segment spelled like a parameter (`other::T`),
/// which only adds a bound.
pub(crate) fn names_any(ty: &Type, names: &[&Ident]) -> bool {
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
pub(crate) fn reject_packed(attrs: &[Attribute]) -> syn::Result<()> {
    let mut errors = Errors::default();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("repr")) {
        errors.check(attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("packed") {
                return Err(meta.error(
                    "jitson's derives do not support `#[repr(packed)]` structs: \
                     fields are read and written in place and must be aligned",
                ));
            }
            skip_value(&meta)
        }));
    }
    errors.finish()
}
