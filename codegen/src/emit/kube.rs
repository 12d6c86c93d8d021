//! k8s-openapi's resource traits for served resources (`Config::k8s_openapi_traits`), so
//! the generated types work with kube: kube-core implements its own `Resource` for every
//! `k8s_openapi::Metadata<Ty = ObjectMeta>`, and `kube::Api::<ImageStream>::namespaced`
//! then takes them.
//!
//! `Metadata::metadata` returns a reference, and the generated `metadata` is an `Option`
//! (absent stays absent): an unset one reads as a shared empty `ObjectMeta`, and
//! `metadata_mut` fills it in. The metadata type must be extern, k8s-openapi's `ObjectMeta`;
//! that is checked before anything is emitted.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Context, ident, type_path};
use crate::diagnostics::{Diagnostic, Error, ErrorKind};
use crate::model::{ApiSet, FieldRole, Scope, Shape, TypeId, TypeKind};

/// The `metadata` field of resource `id`: its index, and whether it is required.
fn metadata_field(api: &ApiSet, id: TypeId) -> Option<(usize, TypeId, bool)> {
    let TypeKind::Struct(fields) = &api.get(id).kind else {
        return None;
    };
    fields
        .iter()
        .enumerate()
        .find_map(|(i, f)| match (f.json_name.as_str(), f.role, &f.shape) {
            ("metadata", FieldRole::Plain, Shape::Ref(meta)) if !f.boxed => {
                Some((i, *meta, f.required))
            }
            _ => None,
        })
}

/// Every served resource must have a `metadata` of an extern type the user mapped (the
/// companion crate's `ObjectMeta` is no k8s-openapi type).
pub(crate) fn check(api: &ApiSet) -> Result<(), Error> {
    for id in api.resources.keys() {
        let ty = api.get(*id);
        let extern_meta = metadata_field(api, *id).is_some_and(|(_, meta, _)| {
            matches!(&api.get(meta).kind, TypeKind::Extern(path)
                if !crate::model::externs::is_companion(path))
        });
        if !extern_meta {
            return Err(Diagnostic::new(
                ErrorKind::Output,
                &ty.origin,
                format!(
                    "expected the resource `{}` to have a `metadata` of k8s-openapi's `ObjectMeta` for the k8s-openapi traits, but its metadata is generated or missing",
                    ty.schema_name
                ),
            )
            .with_hint(
                "map the meta types to k8s-openapi's: `.extern_type(\"io.k8s.apimachinery.pkg.apis.meta.v1.*\", \"::k8s_openapi::apimachinery::pkg::apis::meta::v1::*\")`",
            )
            .into());
        }
    }
    Ok(())
}

/// `k8s_openapi::Resource`, `ListableResource` (when the API has its list kind) and
/// `Metadata` for the resource `id`; nothing for other types.
pub(crate) fn impls(context: &Context<'_>, id: TypeId) -> TokenStream {
    let (Some(k8s), Some(resource)) = (&context.k8s_openapi, context.api.resources.get(&id)) else {
        return TokenStream::new();
    };
    let Some((field, meta, required)) = metadata_field(context.api, id) else {
        return TokenStream::new();
    };
    let name = ident(&context.api.get(id).name);
    let gvk = &resource.gvk;
    let api_version = gvk.api_version();
    let (group, version, kind) = (&gvk.group, &gvk.version, &gvk.kind);
    let plural = &resource.plural;
    let scope = match resource.scope {
        Scope::Namespaced => quote!(#k8s::NamespaceResourceScope),
        Scope::Cluster => quote!(#k8s::ClusterResourceScope),
    };
    let meta_type = type_path(context, meta);
    let TypeKind::Struct(fields) = &context.api.get(id).kind else {
        return TokenStream::new();
    };
    let field = ident(&fields[field].rust_name);
    let accessors = if required {
        quote! {
            fn metadata(&self) -> &Self::Ty {
                &self.#field
            }

            fn metadata_mut(&mut self) -> &mut Self::Ty {
                &mut self.#field
            }
        }
    } else {
        quote! {
            /// The object's metadata; an object without any reads as empty metadata.
            fn metadata(&self) -> &Self::Ty {
                static EMPTY: ::std::sync::OnceLock<#meta_type> = ::std::sync::OnceLock::new();
                self.#field.as_ref().unwrap_or_else(|| EMPTY.get_or_init(Default::default))
            }

            /// The object's metadata, filled in with empty metadata first when it has none.
            fn metadata_mut(&mut self) -> &mut Self::Ty {
                self.#field.get_or_insert_with(Default::default)
            }
        }
    };
    let listable = context
        .api
        .lists
        .iter()
        .find(|(_, item)| **item == id)
        .and_then(|(list, _)| context.api.get(*list).gvk.as_ref())
        .map(|list| {
            let list_kind = &list.kind;
            quote! {
                impl #k8s::ListableResource for #name {
                    const LIST_KIND: &'static str = #list_kind;
                }
            }
        });
    quote! {
        impl #k8s::Resource for #name {
            const API_VERSION: &'static str = #api_version;
            const GROUP: &'static str = #group;
            const KIND: &'static str = #kind;
            const VERSION: &'static str = #version;
            const URL_PATH_SEGMENT: &'static str = #plural;
            type Scope = #scope;
        }

        #listable

        impl #k8s::Metadata for #name {
            type Ty = #meta_type;

            #accessors
        }
    }
}
