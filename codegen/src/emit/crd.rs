//! The CRD a kind was generated from, given back (`model/crds.rs` decides which and where):
//! `CRD_JSON`, the document as compact JSON in a raw string literal, on the kind whose impl
//! holds it and named from there by the CRD's other kinds; `crd()`, the document as a
//! `serde_json::Value`, or with kube-core kube's `CustomResourceExt`; and the root's
//! `crds()`, every CRD of the crate.
//!
//! The text is one line, so every layout writes it unchanged (the single-file layout
//! indents lines), and a raw string, so its quotes need no escapes: a 1.7 MB CRD is one
//! token, which rustc reads as fast as an `include_str!` of a file beside the code
//! (`docs/src/guide/crd-roundtrip.md` has the measurement), and the write policy's
//! generated header stays on every file written.

use super::text::{Code, raw_str_literal, str_literal};
use super::{Context, item_path};
use crate::diagnostics::{Diagnostic, Error, ErrorKind};
use crate::model::TypeId;
use crate::model::crds::Crd;

/// The path of k8s-openapi's `CustomResourceDefinition` below the crate.
const K8S_CRD: &str =
    "apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition";

/// `CustomResourceExt` needs k8s-openapi's CRD type, so its traits must be on.
pub(crate) fn check(context: &Context<'_>) -> Result<(), Error> {
    if context.kube_core.is_some()
        && context.k8s_openapi.is_none()
        && let Some(crd) = context.api.crds.first()
    {
        return Err(Diagnostic::new(
            ErrorKind::Output,
            &crd.origin,
            "expected the k8s-openapi traits with kube's `CustomResourceExt`, whose `crd()` returns k8s-openapi's `CustomResourceDefinition`",
        )
        .with_hint("add `.k8s_openapi_traits(true)` (the command line's `--kube` sets both)")
        .into());
    }
    Ok(())
}

/// The CRD the kind `id` was generated from, if any.
fn crd_of<'a>(context: &Context<'a>, id: TypeId) -> Option<&'a Crd> {
    context
        .api
        .crds
        .iter()
        .find(|crd| crd.resources.contains(&id))
}

/// The expression that parses `CRD_JSON` (JSON the generator wrote, so it parses), broken
/// as rustfmt breaks a method chain too long for one line.
fn parse(code: &mut Code) {
    code.line("::serde_json::from_str(Self::CRD_JSON)");
    code.deeper();
    code.line(".expect(\"CRD_JSON is the JSON the generator wrote\")");
    code.shallower();
}

/// The items that give kind `id` its CRD back, as formatted text; nothing for other types.
pub(crate) fn items(context: &Context<'_>, id: TypeId) -> String {
    let Some(crd) = crd_of(context, id) else {
        return String::new();
    };
    let name = &context.api.get(id).name;
    let mut code = Code::new();
    code.open(&format!("impl {name} {{"));
    if context.docs {
        code.docs([
            format!("The `CustomResourceDefinition` `{}`", crd.name).as_str(),
            "this type was generated from, as compact JSON (which is YAML too):",
            "the input document, keys in its order, without what a cluster sets",
            "(`status`, and `metadata`'s `uid`, `resourceVersion`, …).",
        ]);
    }
    if crd.home == id {
        let json = serde_json::to_string(&crd.document).unwrap_or_default();
        code.line(&format!(
            "pub const CRD_JSON: &'static str = {};",
            raw_str_literal(&json)
        ));
    } else {
        code.line(&format!(
            "pub const CRD_JSON: &'static str = {}::CRD_JSON;",
            item_path(context, crd.home, &context.api.get(crd.home).name)
        ));
    }
    if context.kube_core.is_none() {
        code.blank();
        if context.docs {
            code.docs([
                format!(
                    "The `CustomResourceDefinition` `{}` as a JSON value.",
                    crd.name
                )
                .as_str(),
                "",
                "# Panics",
                "",
                "Never: `CRD_JSON` is JSON.",
            ]);
        } else {
            code.line("#[allow(clippy::missing_panics_doc)]");
        }
        // Inline: compiled to machine code where it is called, not in every clean build.
        code.line("#[inline]");
        code.line("#[must_use]");
        code.open("pub fn crd() -> ::serde_json::Value {");
        parse(&mut code);
        code.close("}");
    }
    code.close("}");
    if let (Some(kube), Some(k8s), Some(resource)) = (
        &context.kube_core,
        &context.k8s_openapi,
        context.api.resources.get(&id),
    ) {
        let gvk = &resource.gvk;
        code.blank();
        code.open_impl(&format!("impl {kube}::CustomResourceExt"), name);
        code.open(&format!("fn crd() -> {k8s}::{K8S_CRD} {{"));
        parse(&mut code);
        code.close("}");
        code.blank();
        code.open("fn crd_name() -> &'static str {");
        code.line(&str_literal(&crd.name));
        code.close("}");
        code.blank();
        code.open(&format!(
            "fn api_resource() -> {kube}::discovery::ApiResource {{"
        ));
        code.open(&format!("{kube}::discovery::ApiResource {{"));
        for (field, value) in [
            ("group", gvk.group.clone()),
            ("version", gvk.version.clone()),
            ("api_version", gvk.api_version()),
            ("kind", gvk.kind.clone()),
            ("plural", resource.plural.clone()),
        ] {
            code.line(&format!("{field}: {}.to_owned(),", str_literal(&value)));
        }
        code.close("}");
        code.close("}");
        code.blank();
        code.open("fn shortnames() -> &'static [&'static str] {");
        let names: Vec<String> = crd.short_names.iter().map(|n| str_literal(n)).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        code.array("&[", &names, "]");
        code.close("}");
        code.close("}");
    }
    code.finish()
}

/// The root's `crds()`: every CRD of the crate, in input order; nothing without CRDs.
pub(crate) fn bundle(context: &Context<'_>) -> String {
    if context.api.crds.is_empty() {
        return String::new();
    }
    let (ty, call) = match (&context.kube_core, &context.k8s_openapi) {
        (Some(kube), Some(k8s)) => (
            format!("{k8s}::{K8S_CRD}"),
            format!("as {kube}::CustomResourceExt>::crd()"),
        ),
        _ => ("::serde_json::Value".to_owned(), String::new()),
    };
    let mut code = Code::new();
    if context.docs {
        code.docs([
            "Every `CustomResourceDefinition` this crate was generated from, in input order, as",
            "each kind's `crd()` returns it: what a test installs before anything else.",
        ]);
    }
    let gated = context.features.is_some();
    code.line("#[inline]");
    code.line("#[must_use]");
    if gated {
        // A kind of a group that is off has no CRD to give: pushed under its group's cfg.
        code.line("#[allow(unused_mut, clippy::vec_init_then_push)]");
    }
    code.open(&format!("pub fn crds() -> Vec<{ty}> {{"));
    let expression = |crd: &Crd| {
        let path = item_path(context, crd.home, &context.api.get(crd.home).name);
        if call.is_empty() {
            format!("{path}::crd()")
        } else {
            format!("<{path} {call}")
        }
    };
    if gated {
        code.line("let mut crds = Vec::new();");
        for crd in &context.api.crds {
            let module = &context.api.get(crd.home).module;
            if let Some(feature) = context.features.and_then(|f| f.of_module(module)) {
                code.line(&format!("#[cfg(feature = {})]", str_literal(feature)));
            }
            code.line(&format!("crds.push({});", expression(crd)));
        }
        code.line("crds");
    } else {
        let items: Vec<String> = context.api.crds.iter().map(expression).collect();
        let items: Vec<&str> = items.iter().map(String::as_str).collect();
        code.array("vec![", &items, "]");
    }
    code.close("}");
    code.finish()
}
