//! Structs → their `Serialize` and `Deserialize` impls, spelled out rather than derived.
//!
//! `#[derive(Deserialize)]` writes, per struct, a field enum with its own `Deserialize` impl
//! (string, byte and integer identifiers), a sequence visitor and a map visitor; type-checking
//! that is most of the compile time of a generated API crate (for the full Kubernetes API,
//! 22 of the 24 seconds its types take). The impls written here are only what an object
//! needs: one map visitor that matches each key to a field in a plain `match`, and one
//! serializer; the generic steps (duplicate and missing fields, skipping) are shared
//! functions in `kubeforge_runtime::serde_struct`. Behaviour is the derive's with our
//! attributes (see that module).
//!
//! A struct the user gives a `#[serde(…)]` attribute (`Config::type_attribute`,
//! `Config::field_attribute`) keeps the derive, so the attribute takes effect.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{Context, ident};
use crate::model::builders::resolve;
use crate::model::naming::{self, Namespace};
use crate::model::{Field, FieldRole, Shape, TypeDef};

/// How a field is read and written.
enum Presence {
    /// Always written; missing on input is an error.
    Required,
    /// `Option<T>`: written when `Some`; `null` on input is absent.
    Optional,
    /// `Option<Option<T>>` of a nullable field: absent, `null` or a value, each kept.
    OptionalNullable,
    /// An `apiVersion`/`kind` marker: written when present, absent when missing on input.
    Marker(&'static str),
    /// The keys that are no property: every other key read goes in, and its entries are
    /// written after the properties, in order.
    Extra,
}

fn presence(context: &Context<'_>, field: &Field) -> Presence {
    match field.role {
        FieldRole::ApiVersion => Presence::Marker("ApiVersion"),
        FieldRole::Kind => Presence::Marker("Kind"),
        FieldRole::Extra => Presence::Extra,
        FieldRole::Plain if field.required => Presence::Required,
        FieldRole::Plain => match resolve(&context.api.types, &field.shape) {
            Shape::Nullable(_) => Presence::OptionalNullable,
            _ => Presence::Optional,
        },
    }
}

/// The `Serialize` and `Deserialize` impls of the struct `ty`.
pub(crate) fn impls(context: &Context<'_>, ty: &TypeDef, fields: &[Field]) -> TokenStream {
    let serialize = serialize_impl(context, ty, fields);
    let deserialize = deserialize_impl(context, ty, fields);
    quote!(#serialize #deserialize)
}

/// A name for a generic parameter of the impls that is not the struct's own (`A` for the
/// map access, unless the struct is called `A`).
fn type_parameter(ty: &TypeDef, wanted: &str) -> proc_macro2::Ident {
    let mut taken = Namespace::default();
    taken.reserve(&ty.name);
    taken.reserve(&naming::visitor_type_name(&ty.name));
    ident(&taken.claim(wanted))
}

fn serialize_impl(context: &Context<'_>, ty: &TypeDef, fields: &[Field]) -> TokenStream {
    let runtime = &context.runtime;
    let name = ident(&ty.name);
    let s = type_parameter(ty, "S");
    let always = fields
        .iter()
        .filter(|f| matches!(presence(context, f), Presence::Required))
        .count();
    let mut present: Vec<TokenStream> = Vec::new();
    let mut extra_len = None;
    let mut writes = Vec::new();
    for field in fields {
        let member = ident(&field.rust_name);
        let json = &field.json_name;
        match presence(context, field) {
            Presence::Required => {
                writes.push(quote!(state.serialize_entry(#json, &self.#member)?;));
            }
            Presence::Optional | Presence::OptionalNullable => {
                present.push(quote!(self.#member.is_some()));
                writes.push(quote! {
                    serde_struct::optional_entry(&mut state, #json, self.#member.as_ref())?;
                });
            }
            Presence::Marker(_) => {
                present.push(quote!(self.#member.is_present()));
                writes.push(quote! {
                    serde_struct::entry_if(&mut state, #json, &self.#member, self.#member.is_present())?;
                });
            }
            Presence::Extra => {
                extra_len = Some(quote!(+ self.#member.len()));
                writes.push(quote! {
                    serde_struct::extra_entries(&mut state, &self.#member)?;
                });
            }
        }
    }
    let use_runtime = (always < fields.len()).then(|| quote!(use #runtime::serde_struct;));
    let always = Literal::usize_unsuffixed(always);
    let len = if present.is_empty() {
        quote!(#always #extra_len)
    } else {
        quote!(serde_struct::len(#always, &[#(#present),*]) #extra_len)
    };
    let binding = if fields.is_empty() {
        quote!(let state)
    } else {
        quote!(let mut state)
    };
    quote! {
        impl ::serde::Serialize for #name {
            #[allow(clippy::too_many_lines)]
            fn serialize<#s: ::serde::Serializer>(&self, serializer: #s) -> Result<#s::Ok, #s::Error> {
                use ::serde::ser::SerializeMap as _;
                #use_runtime
                let len = #len;
                #binding = serializer.serialize_map(Some(len))?;
                #(#writes)*
                state.end()
            }
        }
    }
}

fn deserialize_impl(context: &Context<'_>, ty: &TypeDef, fields: &[Field]) -> TokenStream {
    let runtime = &context.runtime;
    let name = ident(&ty.name);
    let type_name = &ty.name;
    let visitor = ident(&naming::visitor_type_name(&ty.name));
    let d = type_parameter(ty, "D");
    let a = type_parameter(ty, "A");
    let expecting = format!("struct {type_name}");
    let extra = fields
        .iter()
        .find(|f| matches!(presence(context, f), Presence::Extra));
    let fields: Vec<&Field> = fields
        .iter()
        .filter(|f| !matches!(presence(context, f), Presence::Extra))
        .collect();
    let json_names: Vec<&str> = fields.iter().map(|f| f.json_name.as_str()).collect();

    // The visitor's own bindings must not be shadowed by a field's slot.
    let mut names = Namespace::default();
    for field in fields.iter().copied().chain(extra) {
        names.reserve(&field.rust_name);
    }
    let map = ident(&names.claim("map"));
    let index = ident(&names.claim("field"));
    let key = ident(&names.claim("key"));

    let slots: Vec<_> = fields.iter().map(|f| ident(&f.rust_name)).collect();
    // Fields are named by an enum whose variants are the fields' Rust names, never by
    // number: adding or removing a field changes only its own lines.
    let field_enum = ident(&naming::field_enum_name(&ty.name));
    let variants: Vec<TokenStream> = slots
        .iter()
        .map(|slot| quote!(#field_enum::#slot))
        .collect();
    let (field_type, field_enum_def, field_fn) = if fields.is_empty() {
        (
            quote!(::std::convert::Infallible),
            TokenStream::new(),
            quote! {
                fn field(_: &str) -> Option<Self::Field> {
                    None
                }
            },
        )
    } else {
        (
            quote!(#field_enum),
            quote! {
                #[allow(non_camel_case_types, clippy::enum_variant_names)]
                enum #field_enum {
                    #(#slots,)*
                }
            },
            quote! {
                fn field(name: &str) -> Option<#field_enum> {
                    match name {
                        #(#json_names => Some(#variants),)*
                        _ => None,
                    }
                }
            },
        )
    };
    let read = match (fields.is_empty(), extra) {
        (true, None) => quote! {
            while #map.next_key_seed(serde_struct::Key::<Self>::new())?.is_some() {
                serde_struct::skip(&mut #map)?;
            }
        },
        (true, Some(extra)) => {
            let extra = ident(&extra.rust_name);
            quote! {
                let mut #extra = #runtime::ExtraFields::new();
                let mut #key = String::new();
                while #map.next_key_seed(serde_struct::NamedKey::<Self>::new(&mut #key))?.is_some() {
                    serde_struct::extra(&mut #map, &mut #extra, &mut #key)?;
                }
            }
        }
        (false, None) => quote! {
            #(let mut #slots = None;)*
            while let Some(#index) = #map.next_key_seed(serde_struct::Key::<Self>::new())? {
                match #index {
                    #(Some(#variants) => serde_struct::value(&mut #map, &mut #slots, #json_names),)*
                    None => serde_struct::skip(&mut #map),
                }?;
            }
        },
        (false, Some(extra)) => {
            let extra = ident(&extra.rust_name);
            quote! {
                #(let mut #slots = None;)*
                let mut #extra = #runtime::ExtraFields::new();
                let mut #key = String::new();
                while let Some(#index) = #map.next_key_seed(serde_struct::NamedKey::<Self>::new(&mut #key))? {
                    match #index {
                        #(Some(#variants) => serde_struct::value(&mut #map, &mut #slots, #json_names),)*
                        None => serde_struct::extra(&mut #map, &mut #extra, &mut #key),
                    }?;
                }
            }
        }
    };
    let values = fields.iter().copied().chain(extra).map(|field| {
        let member = ident(&field.rust_name);
        let json = &field.json_name;
        match presence(context, field) {
            Presence::Required => quote!(#member: serde_struct::required(#member, #json)?),
            Presence::Optional => quote!(#member: serde_struct::optional(#member)),
            Presence::OptionalNullable | Presence::Extra => quote!(#member),
            Presence::Marker(marker) => {
                let marker = ident(marker);
                quote!(#member: #member.unwrap_or_else(#runtime::#marker::absent))
            }
        }
    });
    quote! {
        impl<'de> ::serde::Deserialize<'de> for #name {
            #[allow(clippy::too_many_lines)]
            fn deserialize<#d: ::serde::Deserializer<'de>>(deserializer: #d) -> Result<Self, #d::Error> {
                use #runtime::serde_struct;

                struct #visitor;

                #field_enum_def

                impl serde_struct::Fields for #visitor {
                    const NAMES: &'static [&'static str] = &[#(#json_names),*];

                    type Field = #field_type;

                    #field_fn
                }

                impl<'de> ::serde::de::Visitor<'de> for #visitor {
                    type Value = #name;

                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str(#expecting)
                    }

                    fn visit_map<#a: ::serde::de::MapAccess<'de>>(self, mut #map: #a) -> Result<#name, #a::Error> {
                        #read
                        Ok(#name {
                            #(#values,)*
                        })
                    }
                }

                deserializer.deserialize_struct(
                    #type_name,
                    <#visitor as serde_struct::Fields>::NAMES,
                    #visitor,
                )
            }
        }
    }
}
