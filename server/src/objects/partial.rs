//! An object's or a list's metadata alone, as `meta.k8s.io` `PartialObjectMetadata` and
//! `PartialObjectMetadataList` (what clients ask for with
//! `Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`: kube-rs's
//! `get_metadata`, `list_metadata` and `metadata_watcher`, client-go's metadata client and
//! informers), as the API server's `transformObject` writes them
//! (`k8s.io/apiserver/pkg/endpoints/handlers/response.go`).

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::{Map, Value, json};

const PACKAGES: &str = include_str!("../../data/builtin-internal-packages.txt");

/// `PartialObjectMetadata` of one object: its kind and version replaced, its whole
/// `metadata` kept (`meta.AsPartialObjectMetadata`).
pub(crate) fn object(value: &Value, version: &str) -> Value {
    json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": format!("meta.k8s.io/{version}"),
        "metadata": value.get("metadata").cloned().unwrap_or_else(|| Value::Object(Map::new())),
    })
}

/// `PartialObjectMetadataList` of a list: the list's `resourceVersion`, `continue` and
/// `remainingItemCount`, and each item as a `PartialObjectMetadata`. An empty list's
/// `items` is `null`: Go's list starts nil and is only appended to, and the field is not
/// `omitempty`.
pub(crate) fn list(value: &Value, version: &str) -> Value {
    let mut metadata = Map::new();
    for key in ["resourceVersion", "continue", "remainingItemCount"] {
        if let Some(field) = value
            .pointer(&format!("/metadata/{key}"))
            .filter(|f| !f.is_null() && f.as_str() != Some(""))
        {
            metadata.insert(key.to_owned(), field.clone());
        }
    }
    let items: Vec<Value> = value
        .get("items")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|item| object(item, version))
        .collect();
    json!({
        "kind": "PartialObjectMetadataList",
        "apiVersion": format!("meta.k8s.io/{version}"),
        "metadata": metadata,
        "items": if items.is_empty() { Value::Null } else { Value::Array(items) },
    })
}

/// The Go type the API server's storage holds an object of `kind` in, as `%T` prints it:
/// `*core.Pod`, `*apps.DeploymentList`; a custom resource's is unstructured.
pub(crate) fn go_type(group: &str, kind: &str, custom: bool, list: bool) -> String {
    let suffix = if list { "List" } else { "" };
    if custom {
        return format!("*unstructured.Unstructured{suffix}");
    }
    format!("*{}.{kind}{suffix}", package(group))
}

fn package(group: &str) -> String {
    static TABLE: OnceLock<HashMap<String, String>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        PACKAGES
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .filter_map(|line| {
                let mut fields = line.split_whitespace();
                let group = fields.next()?;
                let package = fields.next()?;
                let group = if group == "core" { "" } else { group };
                Some((group.to_owned(), package.to_owned()))
            })
            .collect()
    });
    table
        .get(group)
        .cloned()
        .unwrap_or_else(|| group.split('.').next().unwrap_or(group).to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn metadata_alone_in_the_api_servers_shape() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "b"}}, "spec": {}});
        assert_eq!(
            super::object(&pod, "v1"),
            json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": {"name": "p", "labels": {"a": "b"}}})
        );
        let list = json!({"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "7", "continue": "x", "remainingItemCount": 2}, "items": [pod]});
        let partial = super::list(&list, "v1beta1");
        assert_eq!(partial["kind"], "PartialObjectMetadataList");
        assert_eq!(partial["apiVersion"], "meta.k8s.io/v1beta1");
        assert_eq!(
            partial["metadata"],
            json!({"resourceVersion": "7", "continue": "x", "remainingItemCount": 2})
        );
        assert_eq!(partial["items"][0]["apiVersion"], "meta.k8s.io/v1beta1");
        let empty = json!({"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "7"}, "items": []});
        assert!(super::list(&empty, "v1")["items"].is_null());
    }

    #[test]
    fn go_types_of_the_storages() {
        assert_eq!(super::go_type("", "Pod", false, false), "*core.Pod");
        assert_eq!(
            super::go_type("apps", "Deployment", false, true),
            "*apps.DeploymentList"
        );
        assert_eq!(
            super::go_type("events.k8s.io", "Event", false, true),
            "*core.EventList"
        );
        assert_eq!(
            super::go_type("rbac.authorization.k8s.io", "Role", false, false),
            "*rbac.Role"
        );
        assert_eq!(
            super::go_type("example.com", "Widget", true, true),
            "*unstructured.UnstructuredList"
        );
    }
}
