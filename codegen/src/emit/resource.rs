//! The runtime's resource traits for types with a fixed group-version-kind.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Context, ident, type_path};
use crate::model::{Scope, TypeId};

/// `TypeMeta` for every type with one GVK, `Resource` for served kinds, `ListResource`
/// for list kinds.
pub(crate) fn impls(context: &Context<'_>, id: TypeId) -> TokenStream {
    let ty = context.api.get(id);
    let Some(gvk) = &ty.gvk else {
        return TokenStream::new();
    };
    let runtime = &context.runtime;
    let name = ident(&ty.name);
    let api_version = gvk.api_version();
    let (group, version, kind) = (&gvk.group, &gvk.version, &gvk.kind);
    let mut tokens = quote! {
        impl #runtime::TypeMeta for #name {
            const API_VERSION: &'static str = #api_version;
            const GROUP: &'static str = #group;
            const VERSION: &'static str = #version;
            const KIND: &'static str = #kind;
        }
    };
    if let Some(resource) = context.api.resources.get(&id) {
        let plural = &resource.plural;
        let scope = match resource.scope {
            Scope::Namespaced => quote!(Namespaced),
            Scope::Cluster => quote!(Cluster),
        };
        let subresources = &resource.subresources;
        tokens.extend(quote! {
            impl #runtime::Resource for #name {
                const PLURAL: &'static str = #plural;
                const SCOPE: #runtime::Scope = #runtime::Scope::#scope;
                const SUBRESOURCES: &'static [&'static str] = &[#(#subresources),*];
            }
        });
    }
    if let Some(item) = context.api.lists.get(&id) {
        let item = type_path(context, *item);
        tokens.extend(quote! {
            impl #runtime::ListResource for #name {
                type Item = #item;
            }
        });
    }
    tokens
}
