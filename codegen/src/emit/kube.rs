//! k8s-openapi's resource traits for served resources (`Config::k8s_openapi_traits`), so
//! the generated types work with kube: kube-core implements its own `Resource` for every
//! `k8s_openapi::Metadata<Ty = ObjectMeta>`, and `kube::Api::<ImageStream>::namespaced`
//! then takes them.
//!
//! `Metadata::metadata` returns a reference, and the generated `metadata` is an `Option`
//! (absent stays absent): an unset one reads as a shared empty `ObjectMeta`, and
//! `metadata_mut` fills it in. The metadata type must be extern, k8s-openapi's `ObjectMeta`;
//! that is checked before anything is emitted.

use super::text::{Code, str_literal};
use super::{Context, type_path};
use crate::diagnostics::{Diagnostic, Error, ErrorKind};
use crate::model::{ApiSet, Scope, TypeId, TypeKind};

/// The `metadata` field of resource `id` (`model::Resource::metadata`): its index, its type
/// and whether it is required.
fn metadata_field(api: &ApiSet, id: TypeId) -> Option<(usize, TypeId, bool)> {
    let metadata = api.resources.get(&id)?.metadata?;
    Some((metadata.field, metadata.ty, metadata.required))
}

/// Every served resource must have a `metadata` of an extern type the user mapped (the
/// companion crate's `ObjectMeta` is no k8s-openapi type).
pub(crate) fn check(api: &ApiSet) -> Result<(), Error> {
    for id in api.resources.keys() {
        let ty = api.get(*id);
        let extern_meta = metadata_field(api, *id).is_some_and(
            |(_, meta, _)| matches!(&api.get(meta).kind, TypeKind::Extern(e) if !e.companion),
        );
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
/// `Metadata` for the resource `id`, as formatted text (`text.rs`); nothing for other types.
pub(crate) fn impls(context: &Context<'_>, id: TypeId) -> String {
    let (Some(k8s), Some(resource)) = (&context.k8s_openapi, context.api.resources.get(&id)) else {
        return String::new();
    };
    let Some((field, meta, required)) = metadata_field(context.api, id) else {
        return String::new();
    };
    let TypeKind::Struct(fields) = &context.api.get(id).kind else {
        return String::new();
    };
    let name = &context.api.get(id).name;
    let gvk = &resource.gvk;
    let scope = match resource.scope {
        Scope::Namespaced => "NamespaceResourceScope",
        Scope::Cluster => "ClusterResourceScope",
    };
    let meta_type = type_path(context, meta);
    let field = &fields[field].rust_name;
    let mut code = Code::new();
    code.open_impl(&format!("impl {k8s}::Resource"), name);
    for (constant, value) in [
        ("API_VERSION", gvk.api_version().as_str()),
        ("GROUP", gvk.group.as_str()),
        ("KIND", gvk.kind.as_str()),
        ("VERSION", gvk.version.as_str()),
        ("URL_PATH_SEGMENT", resource.plural.as_str()),
    ] {
        code.line(&format!(
            "const {constant}: &'static str = {};",
            str_literal(value)
        ));
    }
    code.line(&format!("type Scope = {k8s}::{scope};"));
    code.close("}");
    let list_kind = context
        .api
        .lists
        .iter()
        .find(|(_, item)| **item == id)
        .and_then(|(list, _)| context.api.get(*list).gvk.as_ref());
    if let Some(list) = list_kind {
        code.blank();
        code.open_impl(&format!("impl {k8s}::ListableResource"), name);
        code.line(&format!(
            "const LIST_KIND: &'static str = {};",
            str_literal(&list.kind)
        ));
        code.close("}");
    }
    code.blank();
    code.open_impl(&format!("impl {k8s}::Metadata"), name);
    code.typed("type Ty = ", &meta_type, ";");
    code.blank();
    if required {
        code.open("fn metadata(&self) -> &Self::Ty {");
        code.line(&format!("&self.{field}"));
        code.close("}");
        code.blank();
        code.open("fn metadata_mut(&mut self) -> &mut Self::Ty {");
        code.line(&format!("&mut self.{field}"));
        code.close("}");
    } else {
        if context.docs {
            code.docs(["The object's metadata; an object without any reads as empty metadata."]);
        }
        code.open("fn metadata(&self) -> &Self::Ty {");
        code.typed(
            "static EMPTY: ",
            &format!("::std::sync::OnceLock<{meta_type}>"),
            " = ::std::sync::OnceLock::new();",
        );
        code.line(&format!(
            "self.{field}.as_ref().unwrap_or_else(|| EMPTY.get_or_init(Default::default))"
        ));
        code.close("}");
        code.blank();
        if context.docs {
            code.docs([
                "The object's metadata, filled in with empty metadata first when it has none.",
            ]);
        }
        code.open("fn metadata_mut(&mut self) -> &mut Self::Ty {");
        code.line(&format!(
            "self.{field}.get_or_insert_with(Default::default)"
        ));
        code.close("}");
    }
    code.close("}");
    code.finish()
}
