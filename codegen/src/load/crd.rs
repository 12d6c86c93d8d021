//! CustomResourceDefinitions (`apiextensions.k8s.io/v1`) → the raw form. Every served
//! version becomes a schema named like Kubernetes' own (`io.cert-manager.v1.Certificate`:
//! the group reversed, the version, the kind), plus its `…List` schema and a declared
//! resource from which routes are synthesized. `metadata` becomes a reference to
//! `ObjectMeta`, which the built-in meta types provide when the inputs do not.

use serde_json::{Map, Value, json};

use super::{RawCrd, RawResource, RawSchema, json_type};
use crate::diagnostics::{Diagnostic, Diagnostics, ErrorKind, Origin};

const OBJECT_META: &str = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const LIST_META: &str = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";

/// Whether `value` is a CRD (of any apiextensions version; only v1 is read).
pub(super) fn is_crd(value: &Value) -> bool {
    value.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
}

/// The schema-name prefix for a group: its DNS labels reversed (`cert-manager.io` → `io.cert-manager`).
pub(crate) fn package_of(group: &str) -> String {
    group.split('.').rev().collect::<Vec<_>>().join(".")
}

/// Reads one CRD; problems are recorded and the CRD skipped. The document itself is kept
/// whole in `crds`.
pub(super) fn read(
    value: &Value,
    origin: &Origin,
    schemas: &mut Vec<RawSchema>,
    resources: &mut Vec<RawResource>,
    crds: &mut Vec<RawCrd>,
    diagnostics: &mut Diagnostics,
) {
    if value.get("apiVersion").and_then(Value::as_str) != Some("apiextensions.k8s.io/v1") {
        diagnostics.push(
            Diagnostic::new(
                ErrorKind::UnknownDocument,
                &origin.child("apiVersion"),
                format!(
                    "expected a CustomResourceDefinition of apiVersion \"apiextensions.k8s.io/v1\", found {}",
                    value.get("apiVersion").unwrap_or(&Value::Null)
                ),
            )
            .with_hint("apiextensions.k8s.io/v1beta1 was removed in Kubernetes 1.22; convert the CRD to v1"),
        );
        return;
    }
    let spec_origin = origin.child("spec");
    let text = |pointer: &str, diagnostics: &mut Diagnostics| -> Option<String> {
        match value.pointer(pointer) {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            other => {
                let mut at = origin.clone();
                for token in pointer.split('/').skip(1) {
                    at = at.child(token);
                }
                diagnostics.push(Diagnostic::new(
                    ErrorKind::InvalidSchema,
                    &at,
                    format!(
                        "expected a non-empty string, found {}",
                        other.map_or("nothing", json_type)
                    ),
                ));
                None
            }
        }
    };
    let (Some(group), Some(kind), Some(plural)) = (
        text("/spec/group", diagnostics),
        text("/spec/names/kind", diagnostics),
        text("/spec/names/plural", diagnostics),
    ) else {
        return;
    };
    let list_kind = value
        .pointer("/spec/names/listKind")
        .and_then(Value::as_str)
        .map_or_else(|| format!("{kind}List"), str::to_owned);
    // The generated list schema comes from the names, so that is where it is said to be
    // defined (a clash with another kind's schema then points at what to change).
    let list_origin = if value.pointer("/spec/names/listKind").is_some() {
        spec_origin.child("names").child("listKind")
    } else {
        spec_origin.child("names").child("kind")
    };
    let namespaced = match value.pointer("/spec/scope").and_then(Value::as_str) {
        Some("Namespaced") => true,
        Some("Cluster") => false,
        other => {
            diagnostics.push(Diagnostic::new(
                ErrorKind::InvalidSchema,
                &spec_origin.child("scope"),
                format!("expected \"Namespaced\" or \"Cluster\", found {other:?}"),
            ));
            return;
        }
    };
    let versions_origin = spec_origin.child("versions");
    let Some(versions) = value.pointer("/spec/versions").and_then(Value::as_array) else {
        diagnostics.push(Diagnostic::new(
            ErrorKind::InvalidSchema,
            &versions_origin,
            "expected an array of versions",
        ));
        return;
    };
    let package = package_of(&group);
    let mut served = Vec::new();
    for (i, version) in versions.iter().enumerate() {
        let version_origin = versions_origin.child(&i.to_string());
        if version.get("served") == Some(&Value::Bool(false)) {
            continue;
        }
        let Some(name) = version.get("name").and_then(Value::as_str) else {
            diagnostics.push(Diagnostic::new(
                ErrorKind::InvalidSchema,
                &version_origin.child("name"),
                "expected the version's name as a string",
            ));
            continue;
        };
        let schema_origin = version_origin.child("schema").child("openAPIV3Schema");
        let mut schema = match version.pointer("/schema/openAPIV3Schema") {
            Some(Value::Object(schema)) => schema.clone(),
            // apiextensions.k8s.io/v1 requires a schema for every version; generating
            // one for "any object" would silently drop every field.
            None => {
                diagnostics.push(
                    Diagnostic::new(
                        ErrorKind::InvalidSchema,
                        &version_origin,
                        format!(
                            "expected version `{name}` to have `schema.openAPIV3Schema` (apiextensions.k8s.io/v1 requires one), found none"
                        ),
                    )
                    .with_hint("add the version's schema; `{\"type\": \"object\", \"x-kubernetes-preserve-unknown-fields\": true}` accepts any object"),
                );
                continue;
            }
            Some(other) => {
                diagnostics.push(Diagnostic::new(
                    ErrorKind::InvalidSchema,
                    &schema_origin,
                    format!("expected a schema object, found {}", json_type(other)),
                ));
                continue;
            }
        };
        shape_root(&mut schema, &group, name, &kind);
        schemas.push(RawSchema {
            name: format!("{package}.{name}.{kind}"),
            value: Value::Object(schema),
            origin: schema_origin.clone(),
        });
        schemas.push(RawSchema {
            name: format!("{package}.{name}.{list_kind}"),
            value: list_schema(
                &group,
                name,
                &kind,
                &list_kind,
                &format!("{package}.{name}.{kind}"),
            ),
            origin: list_origin.clone(),
        });
        let subresources = version
            .get("subresources")
            .and_then(Value::as_object)
            .map(|s| {
                s.keys()
                    .filter(|k| matches!(k.as_str(), "status" | "scale"))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        served.push(name.to_owned());
        resources.push(RawResource {
            group: group.clone(),
            version: name.to_owned(),
            kind: kind.clone(),
            plural: plural.clone(),
            namespaced,
            subresources,
            origin: version_origin,
        });
    }
    crds.push(RawCrd {
        name: value
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .map_or_else(|| format!("{plural}.{group}"), str::to_owned),
        group,
        kind,
        served,
        document: value.clone(),
        origin: origin.clone(),
    });
}

/// Makes a version's root schema look like a served Kubernetes kind: typed metadata, the
/// type-meta fields, and its group-version-kind.
fn shape_root(schema: &mut Map<String, Value>, group: &str, version: &str, kind: &str) {
    schema.entry("type").or_insert_with(|| json!("object"));
    let properties = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(properties) = properties {
        let description = properties
            .get("metadata")
            .and_then(|m| m.get("description"))
            .cloned()
            .unwrap_or_else(|| json!("Standard object metadata."));
        properties.insert(
            "metadata".to_owned(),
            json!({"allOf": [{"$ref": OBJECT_META}], "description": description}),
        );
        for key in ["apiVersion", "kind"] {
            properties
                .entry(key)
                .or_insert_with(|| json!({"type": "string"}));
        }
    }
    schema.insert(
        "x-kubernetes-group-version-kind".to_owned(),
        json!([{"group": group, "version": version, "kind": kind}]),
    );
}

fn list_schema(group: &str, version: &str, kind: &str, list_kind: &str, item: &str) -> Value {
    json!({
        "description": format!("A list of {kind} objects."),
        "type": "object",
        "required": ["items"],
        "properties": {
            "apiVersion": {"description": "Versioned schema of this representation.", "type": "string"},
            "items": {
                "description": format!("The {kind} objects."),
                "type": "array",
                "items": {"$ref": format!("#/components/schemas/{item}")}
            },
            "kind": {"description": "REST resource kind of this list.", "type": "string"},
            "metadata": {"allOf": [{"$ref": LIST_META}], "description": "Standard list metadata."}
        },
        "x-kubernetes-group-version-kind": [{"group": group, "version": version, "kind": list_kind}]
    })
}
