//! Query structs: the optional query parameters of an operation (or of the operations of
//! one kind, shared in the routes module), with their `QueryParams` impl and builder.

use proc_macro2::TokenStream;
use quote::quote;

use super::{doc_text, escaped};
use crate::diagnostics::Origin;
use crate::emit::{Context, File, Parts, ident, shape_type};
use crate::model::Shape;
use crate::model::operations::{ListWatch, Operation, QueryParam};

/// The builder of a query struct: one setter per parameter, taking `impl Into<…>` (lists
/// take any iterator of items), and `build`, like the builders of schema types.
pub(super) fn query_builder(
    context: &Context<'_>,
    query: &str,
    builder: &str,
    params: &[&crate::model::operations::QueryParam],
) -> TokenStream {
    let (query, builder) = (ident(query), ident(builder));
    let setters = params.iter().map(|q| {
        let doc = doc_text(&escaped(q.description.as_deref().unwrap_or_default()));
        let (field, setter) = (ident(&q.rust_name), ident(&q.setter));
        match &q.shape {
            Shape::Vec(inner) => {
                let inner = shape_type(context, inner.as_ref());
                quote! {
                    #doc
                    pub fn #setter(mut self, values: impl IntoIterator<Item = impl Into<#inner>>) -> Self {
                        self.0.#field = Some(values.into_iter().map(Into::into).collect());
                        self
                    }
                }
            }
            shape => {
                let ty = shape_type(context, shape);
                quote! {
                    #doc
                    pub fn #setter(mut self, value: impl Into<#ty>) -> Self {
                        self.0.#field = Some(value.into());
                        self
                    }
                }
            }
        }
    });
    let doc = doc_text(&format!(
        "Builds [`{query}`]: each setter sets one parameter; unset ones are not sent."
    ));
    quote! {
        impl #query {
            /// A builder with no parameter set.
            #[inline]
            pub fn builder() -> #builder {
                #builder::default()
            }
        }

        #doc
        #[derive(Clone, Debug, Default)]
        #[must_use]
        pub struct #builder(#query);

        impl #builder {
            #(#setters)*

            /// The parameters.
            #[inline]
            #[must_use]
            pub fn build(self) -> #query {
                self.0
            }
        }

        impl From<#builder> for #query {
            fn from(builder: #builder) -> Self {
                builder.0
            }
        }

        impl From<#query> for #builder {
            fn from(query: #query) -> Self {
                Self(query)
            }
        }
    }
}

/// A struct of optional query parameters, with its `QueryParams` impl and builder.
pub(super) struct QueryStruct<'a> {
    pub(super) name: &'a str,
    pub(super) builder: Option<&'a String>,
    params: &'a [QueryParam],
    eq: bool,
}

impl<'a> QueryStruct<'a> {
    pub(super) fn of(op: &'a Operation) -> Option<Self> {
        Some(QueryStruct {
            name: op.names.query.as_deref()?,
            builder: op.names.query_builder.as_ref(),
            params: &op.query_params,
            eq: op.names.query_eq,
        })
    }

    pub(super) fn of_watch(watch: &'a ListWatch) -> Option<Self> {
        Some(QueryStruct {
            name: watch.query.as_deref()?,
            builder: watch.query_builder.as_ref(),
            params: &watch.query_params,
            eq: watch.query_eq,
        })
    }
}

/// The struct of optional query parameters, with its `QueryParams` impl and builder.
pub(super) fn query_struct(
    context: &Context<'_>,
    query: &QueryStruct<'_>,
    doc: &str,
) -> TokenStream {
    query_struct_with_notes(context, query, doc, &[])
}

/// [`query_struct`] with a paragraph added to the docs of some fields (by wire name).
pub(super) fn query_struct_with_notes(
    context: &Context<'_>,
    query: &QueryStruct<'_>,
    doc: &str,
    notes: &[(String, String)],
) -> TokenStream {
    let runtime = &context.runtime;
    let (builder, eq) = (query.builder, query.eq);
    let optional: Vec<_> = query.params.iter().filter(|q| !q.required).collect();
    let query = query.name;
    let name = ident(query);
    let derives = if eq {
        quote!(Clone, Debug, Default, PartialEq, Eq)
    } else {
        quote!(Clone, Debug, Default, PartialEq)
    };
    let fields = optional.iter().map(|q| {
        let mut text = escaped(q.description.as_deref().unwrap_or_default());
        if let Some((_, note)) = notes.iter().find(|(name, _)| *name == q.name) {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(note);
        }
        let doc = doc_text(&text);
        let field = ident(&q.rust_name);
        let ty = shape_type(context, &q.shape);
        quote! {
            #doc
            pub #field: Option<#ty>,
        }
    });
    let pushes = optional.iter().map(|q| {
        let field = ident(&q.rust_name);
        let wire = &q.name;
        let access = match q.shape {
            Shape::String | Shape::Vec(_) => quote!(self.#field.as_deref()),
            _ => quote!(self.#field.as_ref()),
        };
        quote!(target.push_optional_query(#wire, #access);)
    });
    let doc = doc_text(doc);
    let mut tokens = quote! {
        #doc
        #[derive(#derives)]
        pub struct #name {
            #(#fields)*
        }

        impl #runtime::request::QueryParams for #name {
            #[inline]
            fn append_to(&self, target: &mut #runtime::request::PathAndQuery) {
                #(#pushes)*
            }
        }
    };
    if let Some(builder) = builder.filter(|_| context.builders) {
        tokens.extend(query_builder(context, query, builder, &optional));
    }
    tokens
}

/// The query structs shared by the operations of one kind (`model::operations::SharedQuery`),
/// for the routes module.
pub(super) fn shared_query_structs(context: &Context<'_>) -> Option<File> {
    let api = context.api;
    let first = api.operations.first()?;
    if api.query_structs.is_empty() {
        return None;
    }
    let source = Origin {
        file: first.origin.file.clone(),
        pointer: "/paths".to_owned(),
    };
    let mut tokens = TokenStream::new();
    let mut exports = Vec::new();
    for shared in &api.query_structs {
        let uses = shared.operations.len();
        let example = shared.operations.first().map_or("", String::as_str);
        let which = if uses == 1 {
            format!("`{example}`")
        } else {
            format!("{uses} of them, such as `{example}`")
        };
        let doc = format!(
            "The optional query parameters of the API's {} operations ({which}); only those set are sent. \
             The name says what the operations do, never which parameters they take, so a release that adds a parameter \
             adds a field here and renames nothing.",
            shared.kind,
        );
        let notes: Vec<(String, String)> = shared
            .declared_by
            .iter()
            .map(|(param, declared)| {
                (
                    param.clone(),
                    format!(
                        "Declared by {declared} of the {uses} operations that take this struct; the others send it too when it is set, and a server that does not know it ignores it."
                    ),
                )
            })
            .collect();
        let query = QueryStruct {
            name: &shared.name,
            builder: Some(&shared.builder),
            params: &shared.params,
            eq: shared.eq,
        };
        tokens.extend(query_struct_with_notes(context, &query, &doc, &notes));
        exports.push(shared.name.clone());
        if context.builders {
            exports.push(shared.builder.clone());
        }
    }
    Some(File {
        parts: Parts(vec![crate::emit::Part::Tokens(tokens)]),
        exports,
        source,
        export_cfgs: std::collections::BTreeMap::new(),
    })
}
