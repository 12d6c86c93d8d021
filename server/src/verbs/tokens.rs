//! Service account tokens through the API: `serviceaccounts/{name}/token` creates a
//! `TokenRequest` (`pkg/registry/core/serviceaccount/storage/token.go`), and `tokenreviews`
//! checks a token (`pkg/registry/authentication/tokenreview/storage.go`) with the service
//! account authenticator (`pkg/serviceaccount/jwt.go`, `claims.go`). Neither is stored.
//! The key and the token's rules are `semantics::tokens`.

use http::StatusCode;
use kubeforge_runtime::group_version;
use kubeforge_runtime::json::strings;
use kubeforge_runtime::schema::{BadValue, FieldError};
use serde_json::{Map, Value, json};

use crate::objects::meta::text;
use crate::semantics::tokens::{Bound, ISSUER, Refusal};
use crate::verbs::Shared;
use crate::wire::status::Failure;

const GROUP: &str = "authentication.k8s.io";
/// `MinTokenAgeSec`/`MaxTokenAgeSec` of `ValidateTokenRequest`.
const MIN_SECONDS: i64 = 10 * 60;
const MAX_SECONDS: i64 = 1 << 32;

impl Shared {
    /// `POST serviceaccounts/{name}/token`: a token for the ServiceAccount `name`.
    pub(crate) fn token_request(
        &self,
        namespace: &str,
        name: &str,
        body: &[u8],
    ) -> Result<(StatusCode, Value), Failure> {
        let request = parse(body)?;
        let meta = request.get("metadata").and_then(Value::as_object);
        let field = |key: &str| {
            meta.and_then(|m| m.get(key))
                .and_then(Value::as_str)
                .unwrap_or("")
        };
        let invalid = |errors| Failure::invalid_fields(GROUP, "TokenRequest", name, errors);
        if !field("name").is_empty() && field("name") != name {
            return Err(invalid(vec![FieldError::invalid(
                "metadata.name",
                BadValue::String(field("name").to_owned()),
                "must match the service account name if specified",
            )]));
        }
        if !field("namespace").is_empty() && field("namespace") != namespace {
            return Err(invalid(vec![FieldError::invalid(
                "metadata.namespace",
                BadValue::String(field("namespace").to_owned()),
                "must match the service account namespace if specified",
            )]));
        }
        let sa = self.stored(self.core("serviceaccounts")?, namespace, name)?;
        let sa_uid = text(&sa, "/metadata/uid");
        if !field("uid").is_empty() && field("uid") != sa_uid {
            return Err(Failure::conflict(
                GROUP,
                "TokenRequest",
                name,
                &format!(
                    "the UID in the token request ({}) does not match the UID of the service account ({sa_uid})",
                    field("uid")
                ),
            ));
        }
        let spec = request.get("spec");
        let audiences = Some(strings(spec.and_then(|s| s.get("audiences"))))
            .filter(|list| !list.is_empty())
            .unwrap_or_else(|| vec![ISSUER.to_owned()]);
        let seconds = spec
            .and_then(|s| s.get("expirationSeconds"))
            .and_then(Value::as_i64)
            .unwrap_or(3600);
        if seconds < MIN_SECONDS {
            return Err(Failure::invalid_fields(
                GROUP,
                "TokenRequest",
                "",
                vec![FieldError::invalid(
                    "spec.expirationSeconds",
                    BadValue::Int(seconds),
                    "may not specify a duration less than 10 minutes",
                )],
            ));
        }
        if seconds > MAX_SECONDS {
            return Err(Failure::invalid_fields(
                GROUP,
                "TokenRequest",
                "",
                vec![FieldError::invalid(
                    "spec.expirationSeconds",
                    BadValue::Int(seconds),
                    "may not specify a duration larger than 2^32 seconds",
                )],
            ));
        }
        let reference = spec.and_then(|s| s.get("boundObjectRef"));
        let bound = match reference.filter(|r| !r.is_null()) {
            Some(reference) => self.bound(namespace, name, reference)?,
            None => Bound::default(),
        };
        let keys = self.keys.as_ref().map_err(|e| {
            Failure::internal(format!(
                "Internal error occurred: failed to generate token: {e}"
            ))
        })?;
        let now = crate::objects::clock::now().as_second();
        let token = keys
            .issue((namespace, name, &sa_uid), &bound, now, seconds, &audiences)
            .map_err(|e| Failure::internal(format!("Internal error occurred: {e}")))?;
        let mut metadata = Map::new();
        metadata.insert("name".into(), Value::from(name));
        metadata.insert("namespace".into(), Value::from(namespace));
        metadata.insert("uid".into(), Value::from(sa_uid));
        metadata.insert("creationTimestamp".into(), Value::from(time(now)));
        for (key, value) in meta.into_iter().flatten() {
            if !metadata.contains_key(key) && key != "creationTimestamp" {
                metadata.insert(key.clone(), value.clone());
            }
        }
        let mut spec = json!({"audiences": audiences, "expirationSeconds": seconds});
        if let Some(reference) = reference.filter(|r| !r.is_null()) {
            spec["boundObjectRef"] = reference.clone();
        }
        Ok((
            StatusCode::CREATED,
            json!({
                "kind": "TokenRequest",
                "apiVersion": "authentication.k8s.io/v1",
                "metadata": metadata,
                "spec": spec,
                "status": {"token": token, "expirationTimestamp": time(now + seconds)},
            }),
        ))
    }

    /// The object a token is bound to (`boundObjectRef`): a Pod (running as this service
    /// account; its node too), a Secret or a Node, which must exist, with the uid given.
    fn bound(&self, namespace: &str, name: &str, reference: &Value) -> Result<Bound, Failure> {
        let api_version = reference
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        let kind = reference.get("kind").and_then(Value::as_str).unwrap_or("");
        let (group, version) = group_version(api_version);
        let object_name = reference.get("name").and_then(Value::as_str).unwrap_or("");
        let (label, object) = match (group, kind) {
            ("", "Pod") => {
                let pod = self.stored(self.core("pods")?, namespace, object_name)?;
                if text(&pod, "/spec/serviceAccountName") != name {
                    return Err(Failure::bad_request(format!(
                        "cannot bind token for serviceaccount {name:?} to pod running with different serviceaccount name."
                    )));
                }
                ("pod", pod)
            }
            ("", "Secret") => (
                "secret",
                self.stored(self.core("secrets")?, namespace, object_name)?,
            ),
            ("", "Node") => ("node", self.stored(self.core("nodes")?, "", object_name)?),
            _ => {
                return Err(Failure::bad_request(format!(
                    "cannot bind token to object of type {group}/{version}, Kind={kind}"
                )));
            }
        };
        let uid = text(&object, "/metadata/uid");
        let wanted = reference.get("uid").and_then(Value::as_str).unwrap_or("");
        if !wanted.is_empty() && wanted != uid {
            return Err(Failure::conflict(
                "",
                kind,
                object_name,
                &format!(
                    "the UID in the bound object reference ({wanted}) does not match the UID in record. The object might have been deleted and then recreated"
                ),
            ));
        }
        let node = match text(&object, "/spec/nodeName") {
            node if label == "pod" && !node.is_empty() => {
                let node_uid = self
                    .core("nodes")
                    .ok()
                    .and_then(|nodes| self.stored(nodes, "", &node).ok())
                    .map(|n| text(&n, "/metadata/uid"));
                Some((node, node_uid))
            }
            _ => None,
        };
        Ok(Bound {
            object: Some((label, object_name.to_owned(), uid)),
            node,
        })
    }

    /// `POST tokenreviews`: whether a token is one of this server's and who it says the
    /// caller is.
    pub(crate) fn token_review(&self, body: &[u8]) -> Result<(StatusCode, Value), Failure> {
        let mut review = parse(body)?;
        let token = review
            .pointer("/spec/token")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if token.is_empty() {
            return Err(Failure::bad_request(
                "token is required for TokenReview in authentication",
            ));
        }
        let audiences = Some(strings(review.pointer("/spec/audiences")))
            .filter(|list| !list.is_empty())
            .unwrap_or_else(|| vec![ISSUER.to_owned()]);
        let status = match self.authenticate_token(&token, &audiences) {
            Ok((user, audiences)) => {
                json!({"authenticated": true, "user": user, "audiences": audiences})
            }
            Err(error) => json!({"user": {}, "error": error}),
        };
        let Some(map) = review.as_object_mut() else {
            return Err(Failure::bad_request(
                "the body of the request is not an object",
            ));
        };
        map.insert("kind".into(), Value::from("TokenReview"));
        map.insert("apiVersion".into(), Value::from("authentication.k8s.io/v1"));
        let metadata = map.remove("metadata").unwrap_or_else(|| json!({}));
        let spec = map.remove("spec").unwrap_or_else(|| json!({}));
        map.remove("status");
        map.insert("metadata".into(), metadata);
        map.insert("spec".into(), spec);
        map.insert("status".into(), status);
        Ok((StatusCode::CREATED, review))
    }

    /// The service account authenticator on `token` for `audiences`: the user
    /// (`ServiceAccountInfo.UserInfo`, with the `system:authenticated` group the
    /// authenticator adds) and the audiences both share, or the error a review reports.
    pub(super) fn authenticate(
        &self,
        token: &str,
        audiences: &[String],
    ) -> Result<(Value, Vec<String>), String> {
        let keys = self
            .keys
            .as_ref()
            .map_err(|_| "invalid bearer token".to_owned())?;
        let now = crate::objects::clock::now().as_second();
        let claims = keys
            .check(token, now, audiences)
            .map_err(|refusal| match refusal {
                Refusal::NotOurs => "invalid bearer token".to_owned(),
                Refusal::Invalid(message) => message,
            })?;
        let (namespace, name) = (claims.namespace.as_str(), claims.name.as_str());
        let deleted_long_ago = |object: &Value| {
            object
                .pointer("/metadata/deletionTimestamp")
                .and_then(Value::as_str)
                .and_then(|t| t.parse::<jiff::Timestamp>().ok())
                .is_some_and(|t| t.as_second() < now - 60)
        };
        if let Some(secret) = &claims.secret {
            return self.authenticate_legacy(token, &claims, secret);
        }
        let sa = self
            .core("serviceaccounts")
            .and_then(|index| self.stored(index, namespace, name))
            .map_err(|failure| failure.message)?;
        let sa_uid = text(&sa, "/metadata/uid");
        if sa_uid != claims.uid {
            return Err(format!(
                "service account UID ({sa_uid}) does not match claim ({})",
                claims.uid
            ));
        }
        if deleted_long_ago(&sa) {
            return Err(format!(
                "service account {namespace}/{name} has been deleted"
            ));
        }
        let mut extra = Map::new();
        let has = |kind: &str| claims.bound.iter().any(|(k, _, _)| k == kind);
        for (kind, object_name, uid) in &claims.bound {
            let (plural, scope) = match kind.as_str() {
                "pod" => ("pods", namespace),
                "secret" => ("secrets", namespace),
                // A Pod's node is only reported; a Node a token is bound to must exist.
                _ if has("pod") => {
                    extra.insert(
                        "authentication.kubernetes.io/node-name".into(),
                        json!([object_name]),
                    );
                    if !uid.is_empty() {
                        extra.insert("authentication.kubernetes.io/node-uid".into(), json!([uid]));
                    }
                    continue;
                }
                _ => ("nodes", ""),
            };
            let invalidated = || "service account token has been invalidated".to_owned();
            let object = self
                .core(plural)
                .and_then(|index| self.stored(index, scope, object_name))
                .map_err(|_| invalidated())?;
            let actual = text(&object, "/metadata/uid");
            if &actual != uid {
                return Err(format!(
                    "{kind} UID ({actual}) does not match service account {kind} ref claim ({uid})"
                ));
            }
            if deleted_long_ago(&object) {
                return Err(invalidated());
            }
            if kind != "secret" {
                extra.insert(
                    format!("authentication.kubernetes.io/{kind}-name"),
                    json!([object_name]),
                );
                extra.insert(
                    format!("authentication.kubernetes.io/{kind}-uid"),
                    json!([uid]),
                );
            }
        }
        if let Some(jti) = &claims.jti {
            extra.insert(
                "authentication.kubernetes.io/credential-id".into(),
                json!([format!("JTI={jti}")]),
            );
        }
        let mut user = json!({
            "username": format!("system:serviceaccount:{namespace}:{name}"),
            "uid": sa_uid,
            "groups": [
                "system:serviceaccounts",
                format!("system:serviceaccounts:{namespace}"),
                "system:authenticated",
            ],
        });
        if !extra.is_empty() {
            user["extra"] = crate::semantics::tokens::sorted(&Value::Object(extra));
        }
        Ok((user, claims.audiences))
    }

    /// A legacy token's lookups (`legacyValidator.Validate`): its Secret is there, not being
    /// deleted, and holds this token; its service account is there, not being deleted, with
    /// the uid the token names.
    fn authenticate_legacy(
        &self,
        token: &str,
        claims: &crate::semantics::tokens::Claims,
        secret_name: &str,
    ) -> Result<(Value, Vec<String>), String> {
        use base64::Engine;
        let (namespace, name) = (claims.namespace.as_str(), claims.name.as_str());
        let invalidated = || "Token has been invalidated".to_owned();
        let secret = self
            .core("secrets")
            .and_then(|index| self.stored(index, namespace, secret_name))
            .map_err(|_| invalidated())?;
        if secret.pointer("/metadata/deletionTimestamp").is_some() {
            return Err(invalidated());
        }
        let stored = base64::engine::general_purpose::STANDARD
            .decode(text(&secret, "/data/token"))
            .unwrap_or_default();
        if stored != token.as_bytes() {
            return Err("Token does not match server's copy".to_owned());
        }
        let sa = self
            .core("serviceaccounts")
            .and_then(|index| self.stored(index, namespace, name))
            .map_err(|failure| failure.message)?;
        if sa.pointer("/metadata/deletionTimestamp").is_some() {
            return Err(format!(
                "ServiceAccount {namespace}/{name} has been deleted"
            ));
        }
        let sa_uid = text(&sa, "/metadata/uid");
        if sa_uid != claims.uid {
            return Err(format!(
                "ServiceAccount UID ({sa_uid}) does not match claim ({})",
                claims.uid
            ));
        }
        let user = json!({
            "username": format!("system:serviceaccount:{namespace}:{name}"),
            "uid": sa_uid,
            "groups": [
                "system:serviceaccounts",
                format!("system:serviceaccounts:{namespace}"),
                "system:authenticated",
            ],
        });
        Ok((user, claims.audiences.clone()))
    }

    /// The catalog index of a core/v1 resource.
    pub(super) fn core(&self, plural: &str) -> Result<usize, Failure> {
        self.catalog()
            .find("", "v1", plural)
            .map(|(index, _)| index)
            .ok_or_else(|| Failure::not_found("", plural, ""))
    }
}

fn parse(body: &[u8]) -> Result<Value, Failure> {
    serde_json::from_slice(body).map_err(|e| {
        Failure::bad_request(format!("the body of the request is not valid JSON: {e}"))
    })
}

/// A Unix time as `meta/v1.Time` writes it.
fn time(seconds: i64) -> String {
    jiff::Timestamp::from_second(seconds)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}
