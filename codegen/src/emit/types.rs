//! Types → items: structs with serde attributes, forward-compatible string enums, aliases.

use proc_macro2::TokenStream;
use quote::quote;

use super::docs::{doc_attrs, paragraphs};
use super::{
    Context, Parts, builders, extra_type, ident, kube, resource, routes, serde_impls, shape_type,
    type_path,
};
use crate::model::{Field, FieldRole, Shape, TypeDef, TypeId, TypeKind, UnionVariant, Variant};

/// The item (and its impls) for the type `id`: tokens for the type definitions and the
/// irregular impls, formatted text for the bulky regular ones (serde impls, builders).
pub(crate) fn type_item(context: &Context<'_>, id: TypeId) -> Parts {
    let ty = context.api.get(id);
    let mut parts = Parts::default();
    if let TypeKind::Struct(fields) = &ty.kind {
        parts.extend(struct_item(context, id, ty, fields));
        parts.tokens(resource::impls(context, id));
        parts.tokens(kube::impls(context, id));
        if context.builders {
            parts.extend(builders::builder_items(context, id));
        }
    } else {
        parts.tokens(other_item(context, id, ty));
    }
    parts
}

/// The item of a type that is no struct.
fn other_item(context: &Context<'_>, id: TypeId, ty: &TypeDef) -> TokenStream {
    match &ty.kind {
        // Structs are `struct_item`'s.
        TypeKind::Struct(_) => TokenStream::new(),
        TypeKind::Enum(variants) => enum_item(context, id, ty, variants),
        TypeKind::Union(variants) => union_item(context, id, ty, variants),
        TypeKind::Alias(shape) => {
            let docs = doc_attrs(&type_docs(ty, ""));
            let name = ident(&ty.name);
            let target = shape_type(context, shape);
            quote! {
                #docs
                pub type #name = #target;
            }
        }
        TypeKind::WatchEvent { status } => {
            let docs = doc_attrs(&type_docs(
                ty,
                "`T` is the type of the watched object; error events carry a `Status`.",
            ));
            let name = ident(&ty.name);
            let runtime = &context.runtime;
            let status = match status {
                Some(status) => type_path(context, *status),
                None => quote!(::serde_json::Value),
            };
            quote! {
                #docs
                pub type #name<T> = #runtime::WatchEvent<T, #status>;
            }
        }
        // Defined elsewhere; `emit` never asks for it.
        TypeKind::Extern(_) => TokenStream::new(),
    }
}

/// A type's docs: its description, `extra`, and one line naming the schema it comes from.
fn type_docs(ty: &TypeDef, extra: &str) -> String {
    paragraphs([
        ty.description.as_deref().unwrap_or_default(),
        extra,
        &format!("Schema: `{}`.", ty.schema_name),
    ])
}

fn struct_item(context: &Context<'_>, id: TypeId, ty: &TypeDef, fields: &[Field]) -> Parts {
    let mut docs = doc_attrs(&type_docs(ty, ""));
    if context.routes {
        docs.extend(routes::endpoint_docs(context, id));
    }
    let name = ident(&ty.name);
    let mut derives: Vec<TokenStream> = ty
        .derives()
        .into_iter()
        .map(|d| {
            let d = ident(d);
            quote!(#d)
        })
        .collect();
    // Serde impls are written out (see `serde_impls`) unless the user's attributes need the
    // derive to read them.
    let derive_serde = context.attributes.has_serde(id);
    if derive_serde {
        derives.push(quote!(::serde::Deserialize));
        derives.push(quote!(::serde::Serialize));
    }
    let field_items = fields.iter().enumerate().map(|(index, field)| {
        field_tokens(
            context,
            ty,
            field,
            derive_serde,
            context.attributes.of_field(id, index),
        )
    });
    let attributes = context.attributes.of_type(id);
    let mut parts = Parts::default();
    parts.tokens(quote! {
        #docs
        #[derive(#(#derives),*)]
        #attributes
        pub struct #name {
            #(#field_items)*
        }
    });
    if !derive_serde {
        parts.text(serde_impls::impls(context, ty, fields));
    }
    parts
}

fn field_tokens(
    context: &Context<'_>,
    ty: &TypeDef,
    field: &Field,
    derive_serde: bool,
    attributes: Option<&TokenStream>,
) -> TokenStream {
    let name = ident(&field.rust_name);
    let json = &field.json_name;
    let rename = (field.rust_name != field.json_name && field.role != FieldRole::Extra)
        .then(|| quote!(rename = #json));
    let runtime = &context.runtime;
    let owner = ident(&ty.name);
    let (rust_type, extra, note) = match field.role {
        FieldRole::ApiVersion | FieldRole::Kind => {
            let (marker, constant) = match field.role {
                FieldRole::ApiVersion => (
                    "ApiVersion",
                    ty.gvk.as_ref().map(crate::model::Gvk::api_version),
                ),
                _ => ("Kind", ty.gvk.as_ref().map(|g| g.kind.clone())),
            };
            let marker_ident = ident(marker);
            let runtime_text = &context.runtime_text;
            let absent = format!("{runtime_text}::{marker}::absent");
            let is_absent = format!("{runtime_text}::{marker}::is_absent");
            let note = format!(
                "Always `{}`: set on construction, checked when deserializing, and omitted when absent from the input.",
                constant.unwrap_or_default()
            );
            (
                quote!(#runtime::#marker_ident<#owner>),
                Some(quote!(default = #absent, skip_serializing_if = #is_absent)),
                Some(note),
            )
        }
        FieldRole::Extra => (
            extra_type(context, &field.shape),
            Some(quote!(flatten)),
            None,
        ),
        FieldRole::Plain => {
            let mut inner = shape_type(context, &field.shape);
            if field.boxed {
                inner = quote!(Box<#inner>);
            }
            if field.required {
                (inner, None, None)
            } else {
                (
                    quote!(Option<#inner>),
                    Some(quote!(skip_serializing_if = "Option::is_none")),
                    None,
                )
            }
        }
    };
    let docs = doc_attrs(&paragraphs([
        field.description.as_deref().unwrap_or_default(),
        note.as_deref().unwrap_or_default(),
    ]));
    let serde_args: Vec<TokenStream> = rename.into_iter().chain(extra).collect();
    let serde =
        (derive_serde && !serde_args.is_empty()).then(|| quote!(#[serde(#(#serde_args),*)]));
    quote! {
        #docs
        #serde
        #attributes
        pub #name: #rust_type,
    }
}

fn enum_item(context: &Context<'_>, id: TypeId, ty: &TypeDef, variants: &[Variant]) -> TokenStream {
    let runtime = &context.runtime;
    let docs = doc_attrs(&type_docs(ty, ""));
    let name = ident(&ty.name);
    let idents: Vec<_> = variants.iter().map(|v| ident(&v.rust_name)).collect();
    let values: Vec<&str> = variants.iter().map(|v| v.value.as_str()).collect();
    let variant_docs = values.iter().map(|value| {
        let doc = format!(" `{value:?}`");
        quote!(#[doc = #doc])
    });
    let attributes = context.attributes.of_type(id);
    let derives = ty.derives().into_iter().map(ident);
    quote! {
        #docs
        #[derive(#(#derives),*)]
        #attributes
        pub enum #name {
            #(#variant_docs #idents,)*
            /// A value this version of the API does not know, kept as received so that
            /// a newer server never breaks an older client.
            Other(String),
        }

        impl #name {
            /// The value as it is on the wire.
            #[must_use]
            pub fn as_str(&self) -> &str {
                match self {
                    #(Self::#idents => #values,)*
                    Self::Other(value) => value,
                }
            }
        }

        impl From<&str> for #name {
            fn from(value: &str) -> Self {
                match value {
                    #(#values => Self::#idents,)*
                    other => Self::Other(other.to_owned()),
                }
            }
        }

        impl ::std::fmt::Display for #name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                #runtime::string_enum::deserialize(deserializer)
            }
        }
    }
}

/// A `oneOf`/`anyOf` whose branches a value's JSON type tells apart: one variant per JSON
/// type. Read through a `serde_json::Value` (whose JSON type picks the variant), written as
/// the variant's value.
fn union_item(
    context: &Context<'_>,
    id: TypeId,
    ty: &TypeDef,
    variants: &[UnionVariant],
) -> TokenStream {
    let docs = doc_attrs(&paragraphs([
        ty.description.as_deref().unwrap_or_default(),
        "One of several JSON types; the type of a value picks its variant.",
    ]));
    let name = ident(&ty.name);
    let derives = ty.derives().into_iter().map(ident);
    let attributes = context.attributes.of_type(id);
    let idents: Vec<_> = variants.iter().map(|v| ident(&v.rust_name)).collect();
    let types = variants.iter().map(|variant| {
        let inner = shape_type(context, &variant.shape);
        // A struct or union may contain this union again; the box keeps the size finite.
        match &variant.shape {
            Shape::Ref(target)
                if matches!(
                    context.api.get(*target).kind,
                    TypeKind::Struct(_) | TypeKind::Union(_)
                ) =>
            {
                quote!(Box<#inner>)
            }
            _ => inner,
        }
    });
    let variant_docs = variants.iter().map(|v| {
        let doc = format!(" A JSON {}.", v.json_type);
        quote!(#[doc = #doc])
    });
    let patterns = variants.iter().map(|v| match v.json_type {
        "string" => quote!(::serde_json::Value::String(_)),
        "boolean" => quote!(::serde_json::Value::Bool(_)),
        "array" => quote!(::serde_json::Value::Array(_)),
        "object" => quote!(::serde_json::Value::Object(_)),
        "integer" => quote!(::serde_json::Value::Number(ref n) if !n.is_f64()),
        _ => quote!(::serde_json::Value::Number(_)),
    });
    let runtime = &context.runtime;
    let expecting: Vec<String> = variants.iter().map(|v| v.json_type.to_owned()).collect();
    // `{found}` inline: generated code passes pedantic clippy (`uninlined_format_args`).
    let expecting = format!("expected {}, found {{found}}", expecting.join(" or "));
    quote! {
        #docs
        #[derive(#(#derives),*)]
        #attributes
        pub enum #name {
            #(#variant_docs #idents(#types),)*
        }

        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    #(Self::#idents(value) => ::serde::Serialize::serialize(value, serializer),)*
                }
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
                let read = match value {
                    #(#patterns => ::serde_json::from_value(value).map(Self::#idents),)*
                    other => {
                        let found = #runtime::serde_struct::json_type(&other);
                        return Err(<D::Error as ::serde::de::Error>::custom(format_args!(#expecting)));
                    }
                };
                read.map_err(<D::Error as ::serde::de::Error>::custom)
            }
        }
    }
}
