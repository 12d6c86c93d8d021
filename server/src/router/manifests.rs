//! A test's client as a controller's ServiceAccount, from the controller's own RBAC
//! manifests, in one call: [`Server::with_rbac`].

use http::{Method, Request, StatusCode};
use kubeforge_runtime::group_version;
use serde_json::Value;

use crate::objects::meta::text;
use crate::router::Server;
use crate::wire::status::Failure;

impl Server {
    /// Creates the objects of `manifests` (YAML documents, as a controller ships its
    /// ServiceAccount, ClusterRoles, Roles and bindings; a `List` counts as its items) as
    /// the administrator, with the ServiceAccount the bindings name if it is missing, and
    /// returns this server acting as that ServiceAccount for in-process clients (see
    /// [`Server::as_service_account`]). Objects that exist already are left as they are.
    ///
    /// A document without a namespace goes to `default` when its kind is namespaced. The
    /// ServiceAccount is the first a binding names (or, with no binding naming one, the first
    /// ServiceAccount among the documents).
    ///
    /// # Errors
    ///
    /// A document that is no object, of a kind the server does not serve, or that the
    /// server refuses (the API server's `Status`); no ServiceAccount found.
    pub fn with_rbac(&self, manifests: &str) -> Result<Server, Failure> {
        let documents: Vec<Value> = serde_saphyr::from_multiple(manifests)
            .map_err(|e| Failure::bad_request(format!("the manifests are not YAML: {e}")))?;
        let mut objects = Vec::new();
        for document in documents {
            match document.get("kind").and_then(Value::as_str) {
                Some(kind) if kind.ends_with("List") => {
                    objects.extend(
                        document
                            .get("items")
                            .and_then(Value::as_array)
                            .cloned()
                            .unwrap_or_default(),
                    );
                }
                Some(_) => objects.push(document),
                None if document.is_null() => {}
                None => return Err(Failure::bad_request("a document has no kind")),
            }
        }
        let subject = objects
            .iter()
            .filter(|o| matches!(kind(o), "RoleBinding" | "ClusterRoleBinding"))
            .flat_map(|binding| {
                let namespace = text(binding, "/metadata/namespace");
                binding
                    .get("subjects")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .map(move |s| (s, namespace.clone()))
            })
            .find(|(s, _)| kind(s) == "ServiceAccount")
            .map(|(s, binding_namespace)| {
                let namespace = match text(&s, "/namespace") {
                    n if n.is_empty() => binding_namespace,
                    n => n,
                };
                (or_default(namespace), text(&s, "/name"))
            })
            .or_else(|| {
                objects
                    .iter()
                    .find(|o| kind(o) == "ServiceAccount")
                    .map(|sa| {
                        (
                            or_default(text(sa, "/metadata/namespace")),
                            text(sa, "/metadata/name"),
                        )
                    })
            })
            .ok_or_else(|| {
                Failure::bad_request("no ServiceAccount in the manifests or their bindings")
            })?;
        let (namespace, name) = subject;
        let admin = self.acting(super::filters::Caller::As(std::sync::Arc::new(
            crate::verbs::auth::administrator(),
        )));
        let service_account = serde_json::json!({
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": name, "namespace": namespace},
        });
        for object in std::iter::once(&service_account).chain(&objects) {
            admin.create_object(object)?;
        }
        Ok(self.as_service_account(&namespace, &name))
    }

    /// `POST`s `object` to its collection; one that exists already is left.
    fn create_object(&self, object: &Value) -> Result<(), Failure> {
        let api_version = text(object, "/apiVersion");
        let (group, version) = group_version(&api_version);
        let catalog = self.catalog();
        let index = catalog
            .find_kind(group, version, kind(object))
            .ok_or_else(|| {
                Failure::bad_request(format!(
                    "the server does not serve {api_version} {}",
                    kind(object)
                ))
            })?;
        let def = &catalog.resources[index];
        let prefix = if group.is_empty() {
            format!("/api/{version}")
        } else {
            format!("/apis/{group}/{version}")
        };
        let path = if def.namespaced {
            let namespace = or_default(text(object, "/metadata/namespace"));
            format!("{prefix}/namespaces/{namespace}/{}", def.plural)
        } else {
            format!("{prefix}/{}", def.plural)
        };
        let body = serde_json::to_vec(object).map_err(|e| Failure::internal(e.to_string()))?;
        let (parts, ()) = Request::builder()
            .method(Method::POST)
            .uri(path)
            .header(http::header::CONTENT_TYPE, "application/json")
            .body(())
            .map_err(|e| Failure::internal(e.to_string()))?
            .into_parts();
        let response = self.handle(&parts, &body);
        let status = response.status();
        if status.is_success() || status == StatusCode::CONFLICT {
            return Ok(());
        }
        // The server's own refusal, as a client would see it.
        let answer: Value = response
            .body()
            .bytes()
            .and_then(|b| serde_json::from_slice(b).ok())
            .unwrap_or(Value::Null);
        let reason = match answer.get("reason").and_then(Value::as_str) {
            Some("Invalid") => "Invalid",
            Some("Forbidden") => "Forbidden",
            Some("BadRequest") => "BadRequest",
            Some("NotFound") => "NotFound",
            _ => "InternalError",
        };
        Err(Failure {
            code: status.as_u16(),
            reason,
            message: format!(
                "creating {} {:?}: {}",
                kind(object),
                text(object, "/metadata/name"),
                answer
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("refused")
            ),
            details: None,
        })
    }
}

fn kind(object: &Value) -> &str {
    object.get("kind").and_then(Value::as_str).unwrap_or("")
}

fn or_default(namespace: String) -> String {
    if namespace.is_empty() {
        "default".to_owned()
    } else {
        namespace
    }
}
