//! Who the caller is and what it may do, as the API server's filters and registries decide
//! it: the bearer token authenticator (the administrator's and static users' tokens, as a
//! token file gives them, and ServiceAccount tokens; `group.AuthenticatedGroupAdder` adds
//! `system:authenticated`), impersonation (`filters/impersonation.go`), the authorization
//! of a request (`filters/authorization.go`, with `semantics::rbac`), the RBAC registries'
//! escalation check (`pkg/registry/rbac/*/policybased`), and the reviews: `tokenreviews` is
//! `tokens`; here the access reviews (`pkg/registry/authorization/*`) and
//! `SelfSubjectReview` (`pkg/registry/authentication/selfsubjectreview`).

use std::collections::BTreeMap;
use std::sync::Arc;

use http::StatusCode;
use ring::rand::{SecureRandom, SystemRandom};
use serde_json::{Value, json};

use crate::objects::catalog::{Catalog, ResourceDef};
use crate::semantics::patch::{self, PatchKind};
use crate::semantics::rbac::{
    self, ANONYMOUS, AUTHENTICATED, Attributes, MASTERS, Policy, Rule, UNAUTHENTICATED, User,
};
use crate::semantics::tokens::ISSUER;
use crate::verbs::Shared;
use crate::wire::status::Failure;

const AUTHORIZATION: &str = "authorization.k8s.io";

/// The bearer tokens the server knows besides ServiceAccount tokens: the administrator's
/// (made at start) and the static users' (as a token file gives them).
#[derive(Debug, Default)]
pub(crate) struct Identities {
    pub(crate) admin_token: String,
    by_token: BTreeMap<String, Arc<User>>,
}

/// The administrator the kubeconfig names, as kind's is: in `system:masters`.
pub(crate) fn administrator() -> User {
    User::new("kubernetes-admin", &[MASTERS, AUTHENTICATED])
}

impl Identities {
    /// The administrator's token, new.
    pub(crate) fn new() -> Identities {
        let admin_token = random_token();
        let by_token = BTreeMap::from([(admin_token.clone(), Arc::new(administrator()))]);
        Identities {
            admin_token,
            by_token,
        }
    }

    /// A new token for a static user.
    pub(crate) fn add(&mut self, user: User) -> String {
        let token = random_token();
        self.by_token.insert(token.clone(), Arc::new(user));
        token
    }
}

/// 32 random bytes, hex: a token nobody guesses.
fn random_token() -> String {
    let mut bytes = [0u8; 32];
    // Only a failing system random source leaves it zero; `Shared::new` has made a key from
    // the same source already.
    let _ = SystemRandom::new().fill(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Shared {
    /// The bearer token authenticator on an `Authorization` header: `Ok(None)` when the
    /// request carries no bearer token (the caller is then anonymous, or the in-process
    /// default), the user when a token is known, 401 when not.
    pub(crate) fn authenticate_request(
        &self,
        authorization: Option<&str>,
    ) -> Result<Option<User>, Failure> {
        let Some(header) = authorization else {
            return Ok(None);
        };
        let mut parts = header.trim().splitn(3, ' ');
        let scheme = parts.next().unwrap_or("");
        let token = parts.next().unwrap_or("");
        if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
            return Ok(None);
        }
        let (user, _) = self
            .authenticate_token(token, &[ISSUER.to_owned()])
            .map_err(|_| Failure::unauthorized())?;
        Ok(Some(user_of(&user)))
    }

    /// The API server's token authenticators, in its order, the one chain that serves
    /// requests and reviews tokens (`TokenReview`): the static tokens (the
    /// administrator's and the static users', audience-agnostic: valid for the API
    /// server's own audience), then the service account tokens, legacy and bound. The
    /// user as a `TokenReview` writes it and the audiences the token is good for among
    /// `audiences`, or the error a review reports.
    pub(crate) fn authenticate_token(
        &self,
        token: &str,
        audiences: &[String],
    ) -> Result<(Value, Vec<String>), String> {
        #[cfg(test)]
        super::AUTHENTICATED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(token.to_owned());
        let known = self.identities().by_token.get(token).cloned();
        if let Some(user) = known {
            // `WrapAudienceAgnosticToken`: the API server's audiences among those asked.
            let shared: Vec<String> = audiences.iter().filter(|a| *a == ISSUER).cloned().collect();
            if !shared.is_empty() {
                return Ok((user.to_json(), shared));
            }
        }
        self.authenticate(token, audiences)
    }

    pub(crate) fn identities(&self) -> std::sync::MutexGuard<'_, Identities> {
        self.identities
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether `user` may do what `request` asks: nothing when it may, else the API
    /// server's 403.
    pub(crate) fn authorize(&self, user: &User, request: &Attributes) -> Result<(), Failure> {
        let (allowed, reason) = self.decide(user, request);
        if allowed {
            return Ok(());
        }
        let mut why = request.forbidden_message(&user.name);
        if !reason.is_empty() {
            why = format!("{why}: {reason}");
        }
        let (group, resource) = if request.resource_request {
            (request.group.as_str(), request.resource.as_str())
        } else {
            ("", "")
        };
        Err(Failure::forbidden_request(
            group,
            resource,
            &request.name,
            &why,
        ))
    }

    /// The authorizer's decision and reason.
    pub(crate) fn decide(&self, user: &User, request: &Attributes) -> (bool, String) {
        // The privileged group needs no look at the store (most requests in process).
        if user.is_privileged() {
            return (true, String::new());
        }
        let state = self.lock();
        let catalog = state.catalog.clone();
        Policy::new(&state, &catalog).authorize(user, request)
    }

    /// `WithImpersonation`: the user `Impersonate-User`, `Impersonate-Group`,
    /// `Impersonate-Uid` and `Impersonate-Extra-*` ask for, once `user` may impersonate
    /// each; `user` itself when none is asked for.
    pub(crate) fn impersonate(
        &self,
        user: User,
        headers: &http::HeaderMap,
    ) -> Result<User, Failure> {
        let values = |name: &str| -> Vec<String> {
            headers
                .get_all(name)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .map(str::to_owned)
                .collect()
        };
        let wanted_user = values("impersonate-user")
            .into_iter()
            .next()
            .unwrap_or_default();
        let groups_asked = values("impersonate-group");
        let uid = values("impersonate-uid")
            .into_iter()
            .next()
            .unwrap_or_default();
        let mut extra: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (name, value) in headers {
            if let Some(key) = name.as_str().strip_prefix("impersonate-extra-")
                && let Ok(value) = value.to_str()
            {
                let key = percent_encoding::percent_decode_str(key)
                    .decode_utf8()
                    .map_or_else(|_| key.to_owned(), |k| k.into_owned());
                extra.entry(key).or_default().push(value.to_owned());
            }
        }
        if wanted_user.is_empty() {
            if !groups_asked.is_empty() || !extra.is_empty() || !uid.is_empty() {
                return Err(Failure::bad_request(
                    "requested impersonation of groups, extra or a uid without impersonating a user",
                ));
            }
            return Ok(user);
        }
        let check = |request: Attributes| self.authorize(&user, &request);
        let mut groups = Vec::new();
        match rbac::split_service_account(&wanted_user) {
            Some((namespace, name)) => {
                check(Attributes::resource(
                    "impersonate",
                    "",
                    "serviceaccounts",
                    "",
                    namespace,
                    name,
                ))?;
                if groups_asked.is_empty() {
                    groups = vec![
                        "system:serviceaccounts".to_owned(),
                        format!("system:serviceaccounts:{namespace}"),
                    ];
                }
            }
            None => check(Attributes::resource(
                "impersonate",
                "",
                "users",
                "",
                "",
                &wanted_user,
            ))?,
        }
        for group in &groups_asked {
            check(Attributes::resource(
                "impersonate",
                "",
                "groups",
                "",
                "",
                group,
            ))?;
            groups.push(group.clone());
        }
        for (key, values) in &extra {
            for value in values {
                check(Attributes::resource(
                    "impersonate",
                    "authentication.k8s.io",
                    "userextras",
                    key,
                    "",
                    value,
                ))?;
            }
        }
        if !uid.is_empty() {
            check(Attributes::resource(
                "impersonate",
                "authentication.k8s.io",
                "uids",
                "",
                "",
                &uid,
            ))?;
        }
        if wanted_user == ANONYMOUS {
            if !groups.iter().any(|g| g == UNAUTHENTICATED) {
                groups.push(UNAUTHENTICATED.to_owned());
            }
        } else if !groups
            .iter()
            .any(|g| g == AUTHENTICATED || g == UNAUTHENTICATED)
        {
            groups.push(AUTHENTICATED.to_owned());
        }
        Ok(User {
            name: wanted_user,
            uid,
            groups,
            extra,
        })
    }

    /// The RBAC registries' escalation check on a create, update or patch of a role or
    /// binding by `user`: allowed when it holds every permission the role grants (or the
    /// bound role's), or may `escalate` (roles) or `bind` (bindings) it, or is privileged.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_escalation(
        &self,
        catalog: &Catalog,
        user: &User,
        def: &ResourceDef,
        namespace: &str,
        name: Option<&str>,
        verb: &str,
        content_type: &str,
        body: &[u8],
    ) -> Result<(), Failure> {
        let plural = def.plural.as_str();
        if def.group != rbac::GROUP
            || !matches!(
                plural,
                "roles" | "clusterroles" | "rolebindings" | "clusterrolebindings"
            )
            || !matches!(verb, "create" | "update" | "patch")
            || user.is_privileged()
        {
            return Ok(());
        }
        let Some(object) = self.written(catalog, def, namespace, name, verb, content_type, body)
        else {
            // A body that does not parse is refused by the verb itself.
            return Ok(());
        };
        let name = name
            .map(str::to_owned)
            .or_else(|| {
                object
                    .pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        let state = self.lock();
        let catalog = state.catalog.clone();
        let policy = Policy::new(&state, &catalog);
        let forbidden = |why: &str| Failure::forbidden(rbac::GROUP, plural, &name, why);
        let rules = if plural.ends_with("roles") {
            let escalate =
                Attributes::resource("escalate", rbac::GROUP, plural, "", namespace, &name);
            if policy.authorize(user, &escalate).0 {
                return Ok(());
            }
            let rules: Vec<Rule> = object
                .get("rules")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(Rule::from_json)
                .collect();
            let aggregates = object.get("aggregationRule").is_some_and(|r| !r.is_null());
            if aggregates {
                let all = [
                    Rule::from_json(
                        &json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}),
                    ),
                    Rule::from_json(&json!({"verbs": ["*"], "nonResourceURLs": ["*"]})),
                ];
                policy
                    .confirm_no_escalation(user, namespace, &rules)
                    .map_err(|e| forbidden(&e))?;
                return policy
                    .confirm_no_escalation(user, namespace, &all)
                    .map_err(|_| {
                        forbidden("must have cluster-admin privileges to use the aggregationRule")
                    });
            }
            rules
        } else {
            let role_ref = object.get("roleRef").cloned().unwrap_or(Value::Null);
            let kind = role_ref.get("kind").and_then(Value::as_str).unwrap_or("");
            let role_name = role_ref.get("name").and_then(Value::as_str).unwrap_or("");
            let role_plural = if kind == "Role" {
                "roles"
            } else {
                "clusterroles"
            };
            let bind =
                Attributes::resource("bind", rbac::GROUP, role_plural, "", namespace, role_name);
            if policy.authorize(user, &bind).0 {
                return Ok(());
            }
            policy
                .role_rules(&role_ref, namespace)
                .map_err(|e| forbidden(&e))?
        };
        policy
            .confirm_no_escalation(user, namespace, &rules)
            .map_err(|e| forbidden(&e))
    }

    /// The object a write would leave: the body of a create or update; for a patch, the
    /// stored object patched (a server-side apply's rules, subjects and role reference
    /// replace the stored ones: RBAC's lists are atomic).
    #[allow(clippy::too_many_arguments)]
    fn written(
        &self,
        catalog: &Catalog,
        def: &ResourceDef,
        namespace: &str,
        name: Option<&str>,
        verb: &str,
        content_type: &str,
        body: &[u8],
    ) -> Option<Value> {
        if verb != "patch" {
            return serde_json::from_slice(body).ok();
        }
        let (index, _) = catalog.find(&def.group, &def.version, &def.plural)?;
        let old = self.stored(index, namespace, name?).ok()?;
        let mut patched = (*old).clone();
        match PatchKind::from_content_type(content_type)? {
            PatchKind::Apply => {
                let applied: Value = serde_saphyr::from_slice(body).ok()?;
                for key in ["rules", "aggregationRule", "roleRef", "subjects"] {
                    if let Some(value) = applied.get(key) {
                        patched[key] = value.clone();
                    }
                }
            }
            kind => {
                let def = &catalog.resources[index];
                patch::apply(
                    kind,
                    &mut patched,
                    body,
                    catalog.patch_for(def),
                    catalog.patch_root(def),
                )
                .ok()?;
            }
        }
        Some(patched)
    }

    /// `POST selfsubjectaccessreviews`: may the caller do what the review asks?
    pub(crate) fn self_access_review(
        &self,
        user: &User,
        body: &[u8],
    ) -> Result<(StatusCode, Value), Failure> {
        let review = parse(body)?;
        let status = self.access(user, &review, "", "SelfSubjectAccessReview")?;
        Ok((
            StatusCode::CREATED,
            answer(review, "SelfSubjectAccessReview", status),
        ))
    }

    /// `POST subjectaccessreviews` (and `localsubjectaccessreviews` in `namespace`): may
    /// the user the review names do what it asks?
    pub(crate) fn subject_access_review(
        &self,
        namespace: Option<&str>,
        body: &[u8],
    ) -> Result<(StatusCode, Value), Failure> {
        let review = parse(body)?;
        let kind = if namespace.is_some() {
            "LocalSubjectAccessReview"
        } else {
            "SubjectAccessReview"
        };
        let spec = review.get("spec").cloned().unwrap_or(Value::Null);
        let strings = |key: &str| -> Vec<String> {
            spec.get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        };
        let text = |key: &str| {
            spec.get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let user = User {
            name: text("user"),
            uid: text("uid"),
            groups: strings("groups"),
            extra: spec
                .get("extra")
                .and_then(|e| serde_json::from_value(e.clone()).ok())
                .unwrap_or_default(),
        };
        if user.name.is_empty() && user.groups.is_empty() {
            return Err(invalid(
                kind,
                "spec.user",
                "at least one of user or group must be specified",
            ));
        }
        if let Some(namespace) = namespace {
            let asked = spec
                .pointer("/resourceAttributes/namespace")
                .and_then(Value::as_str)
                .unwrap_or("");
            if asked != namespace {
                return Err(Failure::bad_request(format!(
                    "spec.resourceAttributes.namespace must match namespace: {namespace}"
                )));
            }
        }
        let status = self.access(&user, &review, namespace.unwrap_or(""), kind)?;
        Ok((StatusCode::CREATED, answer(review, kind, status)))
    }

    /// A review's `status`: the decision on its `resourceAttributes` or
    /// `nonResourceAttributes`.
    fn access(
        &self,
        user: &User,
        review: &Value,
        _namespace: &str,
        kind: &str,
    ) -> Result<Value, Failure> {
        let spec = review.get("spec");
        let resource = spec
            .and_then(|s| s.get("resourceAttributes"))
            .filter(|v| !v.is_null());
        let path = spec
            .and_then(|s| s.get("nonResourceAttributes"))
            .filter(|v| !v.is_null());
        let text = |value: &Value, key: &str| {
            value
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let request = match (resource, path) {
            (Some(r), None) => Attributes {
                verb: text(r, "verb"),
                resource_request: true,
                namespace: text(r, "namespace"),
                group: text(r, "group"),
                version: text(r, "version"),
                resource: text(r, "resource"),
                subresource: text(r, "subresource"),
                name: text(r, "name"),
                path: String::new(),
            },
            (None, Some(p)) => Attributes::path(&text(p, "verb"), &text(p, "path")),
            _ => {
                return Err(invalid(
                    kind,
                    "spec.resourceAttributes",
                    "exactly one of nonResourceAttributes or resourceAttributes must be specified",
                ));
            }
        };
        let (allowed, reason) = self.decide(user, &request);
        let mut status = json!({"allowed": allowed});
        if !reason.is_empty() {
            status["reason"] = Value::from(reason);
        }
        Ok(status)
    }

    /// `POST selfsubjectrulesreviews`: every rule that applies to the caller in the
    /// review's namespace.
    pub(crate) fn rules_review(
        &self,
        user: &User,
        body: &[u8],
    ) -> Result<(StatusCode, Value), Failure> {
        let review = parse(body)?;
        let namespace = review
            .pointer("/spec/namespace")
            .and_then(Value::as_str)
            .unwrap_or("");
        if namespace.is_empty() {
            return Err(Failure::bad_request("no namespace on request"));
        }
        let (rules, errors) = {
            let state = self.lock();
            let catalog = state.catalog.clone();
            Policy::new(&state, &catalog).rules_for(user, namespace)
        };
        let mut resource_rules = Vec::new();
        let mut non_resource_rules = Vec::new();
        for rule in &rules {
            if !rule.resources.is_empty() {
                let mut out = json!({"verbs": rule.verbs});
                for (key, list) in [
                    ("apiGroups", &rule.api_groups),
                    ("resources", &rule.resources),
                    ("resourceNames", &rule.resource_names),
                ] {
                    if !list.is_empty() {
                        out[key] = json!(list);
                    }
                }
                resource_rules.push(out);
            }
            if !rule.non_resource_urls.is_empty() {
                non_resource_rules
                    .push(json!({"verbs": rule.verbs, "nonResourceURLs": rule.non_resource_urls}));
            }
        }
        let mut status = json!({
            "resourceRules": resource_rules,
            "nonResourceRules": non_resource_rules,
            "incomplete": errors.is_some(),
        });
        if let Some(errors) = errors {
            status["evaluationError"] = Value::from(errors);
        }
        Ok((
            StatusCode::CREATED,
            answer(review, "SelfSubjectRulesReview", status),
        ))
    }

    /// `POST selfsubjectreviews` (`kubectl auth whoami`): the caller's user.
    pub(crate) fn self_subject_review(
        &self,
        user: &User,
        body: &[u8],
    ) -> Result<(StatusCode, Value), Failure> {
        let review = parse(body)?;
        let mut out = json!({
            "kind": "SelfSubjectReview",
            "apiVersion": "authentication.k8s.io/v1",
            "metadata": review.get("metadata").cloned().unwrap_or_else(|| json!({})),
            "status": {"userInfo": user.to_json()},
        });
        if out["metadata"].is_null() {
            out["metadata"] = json!({});
        }
        Ok((StatusCode::CREATED, out))
    }
}

/// A user as a `TokenReview` writes it.
fn user_of(value: &Value) -> User {
    let text = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    User {
        name: text("username"),
        uid: text("uid"),
        groups: value
            .get("groups")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        extra: value
            .get("extra")
            .and_then(|e| serde_json::from_value(e.clone()).ok())
            .unwrap_or_default(),
    }
}

/// A review as it was sent, with its kind, its `apiVersion` and `status`.
fn answer(review: Value, kind: &str, status: Value) -> Value {
    json!({
        "kind": kind,
        "apiVersion": format!("{AUTHORIZATION}/v1"),
        "metadata": review.get("metadata").filter(|m| !m.is_null()).cloned().unwrap_or_else(|| json!({})),
        "spec": review.get("spec").cloned().unwrap_or_else(|| json!({})),
        "status": status,
    })
}

fn invalid(kind: &str, field: &str, message: &str) -> Failure {
    Failure::invalid_fields(
        AUTHORIZATION,
        kind,
        "",
        vec![kubeforge_runtime::schema::FieldError::invalid(
            field,
            kubeforge_runtime::schema::BadValue::String("null".to_owned()),
            message,
        )],
    )
}

fn parse(body: &[u8]) -> Result<Value, Failure> {
    serde_json::from_slice(body).map_err(|e| {
        Failure::bad_request(format!("the body of the request is not valid JSON: {e}"))
    })
}
