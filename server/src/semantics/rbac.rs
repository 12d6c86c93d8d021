//! Who may do what: the request's user (`k8s.io/apiserver/pkg/authentication/user`), the
//! attributes the authorizer is asked about (`authorizer.AttributesRecord`) and the RBAC
//! authorizer itself, as kubernetes evaluates it: `plugin/pkg/auth/authorizer/rbac/rbac.go`
//! (`RuleAllows`), `pkg/apis/rbac/v1/evaluation_helpers.go` (each match),
//! `pkg/registry/rbac/validation/rule.go` (`VisitRulesFor`, `appliesTo`, the describers
//! of the allowing binding, `ConfirmNoEscalation`) and
//! `k8s.io/component-helpers/auth/rbac/validation/policy_comparator.go` (`Covers`,
//! `BreakdownRule`). The privileged group (`system:masters`) is allowed everything before
//! RBAC is asked, as the API server's `authorizerfactory.NewPrivilegedGroups` does.
//!
//! Roles and bindings are read from the store as they are now: a write to them counts from
//! the next request (the API server's informers lag a little behind; here they never do).

use std::collections::{BTreeMap, BTreeSet};

use kubeforge_runtime::schema::gofmt::{quote, quote_list};
use serde_json::Value;

use crate::objects::catalog::Catalog;
use crate::objects::meta::text;
use crate::objects::store::State;

/// The RBAC API group.
pub(crate) const GROUP: &str = "rbac.authorization.k8s.io";
/// `user.SystemPrivilegedGroup`: allowed everything, whatever RBAC says.
pub(crate) const MASTERS: &str = "system:masters";
/// `user.Anonymous` and `user.AllUnauthenticated`.
pub(crate) const ANONYMOUS: &str = "system:anonymous";
pub(crate) const UNAUTHENTICATED: &str = "system:unauthenticated";
/// `user.AllAuthenticated`.
pub(crate) const AUTHENTICATED: &str = "system:authenticated";

/// A request's user, as `user.DefaultInfo` holds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct User {
    pub(crate) name: String,
    pub(crate) uid: String,
    pub(crate) groups: Vec<String>,
    pub(crate) extra: BTreeMap<String, Vec<String>>,
}

impl User {
    /// A user named `name` in `groups` (as given: an authenticator adds
    /// `system:authenticated` itself).
    pub(crate) fn new(name: &str, groups: &[&str]) -> User {
        User {
            name: name.to_owned(),
            groups: groups.iter().map(|g| (*g).to_owned()).collect(),
            ..User::default()
        }
    }

    /// `system:anonymous` in `system:unauthenticated`: a request without credentials.
    pub(crate) fn anonymous() -> User {
        User::new(ANONYMOUS, &[UNAUTHENTICATED])
    }

    /// A ServiceAccount's user, as its token authenticates it (`ServiceAccountInfo.UserInfo`
    /// with the `system:authenticated` group).
    pub(crate) fn service_account(namespace: &str, name: &str, uid: &str) -> User {
        User {
            name: service_account_name(namespace, name),
            uid: uid.to_owned(),
            groups: vec![
                "system:serviceaccounts".to_owned(),
                format!("system:serviceaccounts:{namespace}"),
                AUTHENTICATED.to_owned(),
            ],
            extra: BTreeMap::new(),
        }
    }

    /// Whether the user is in the privileged group.
    pub(crate) fn is_privileged(&self) -> bool {
        self.groups.iter().any(|g| g == MASTERS)
    }

    /// `userInfo` of a review or of `SelfSubjectReview`: `username`, `uid`, `groups`,
    /// `extra`, each left out when empty.
    pub(crate) fn to_json(&self) -> Value {
        let mut out = serde_json::Map::new();
        if !self.name.is_empty() {
            out.insert("username".into(), Value::from(self.name.as_str()));
        }
        if !self.uid.is_empty() {
            out.insert("uid".into(), Value::from(self.uid.as_str()));
        }
        if !self.groups.is_empty() {
            out.insert("groups".into(), Value::from(self.groups.clone()));
        }
        if !self.extra.is_empty() {
            out.insert(
                "extra".into(),
                serde_json::to_value(&self.extra).unwrap_or(Value::Null),
            );
        }
        Value::Object(out)
    }
}

/// `serviceaccount.MakeUsername`.
pub(crate) fn service_account_name(namespace: &str, name: &str) -> String {
    format!("system:serviceaccount:{namespace}:{name}")
}

/// `serviceaccount.SplitUsername`: the namespace and name of a ServiceAccount's user name.
pub(crate) fn split_service_account(username: &str) -> Option<(&str, &str)> {
    let rest = username.strip_prefix("system:serviceaccount:")?;
    let (namespace, name) = rest.split_once(':')?;
    if namespace.is_empty() || name.is_empty() || name.contains(':') {
        return None;
    }
    Some((namespace, name))
}

/// What a request asks to do, as the authorizer sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Attributes {
    pub(crate) verb: String,
    /// A request on a resource (else on a path: `nonResourceURLs`).
    pub(crate) resource_request: bool,
    pub(crate) namespace: String,
    pub(crate) group: String,
    pub(crate) version: String,
    pub(crate) resource: String,
    pub(crate) subresource: String,
    pub(crate) name: String,
    pub(crate) path: String,
}

impl Attributes {
    /// A request on a resource.
    pub(crate) fn resource(
        verb: &str,
        group: &str,
        resource: &str,
        subresource: &str,
        namespace: &str,
        name: &str,
    ) -> Attributes {
        Attributes {
            verb: verb.to_owned(),
            resource_request: true,
            namespace: namespace.to_owned(),
            group: group.to_owned(),
            resource: resource.to_owned(),
            subresource: subresource.to_owned(),
            name: name.to_owned(),
            ..Attributes::default()
        }
    }

    /// A request on a path that is no resource.
    pub(crate) fn path(verb: &str, path: &str) -> Attributes {
        Attributes {
            verb: verb.to_owned(),
            path: path.to_owned(),
            ..Attributes::default()
        }
    }

    /// `responsewriters.forbiddenMessage`: what a refusal says the user cannot do.
    pub(crate) fn forbidden_message(&self, user: &str) -> String {
        if !self.resource_request {
            return format!(
                "User {} cannot {} path {}",
                quote(user),
                self.verb,
                quote(&self.path)
            );
        }
        let mut resource = self.resource.clone();
        if !self.subresource.is_empty() {
            resource = format!("{resource}/{}", self.subresource);
        }
        if self.namespace.is_empty() {
            format!(
                "User {} cannot {} resource {} in API group {} at the cluster scope",
                quote(user),
                self.verb,
                quote(&resource),
                quote(&self.group)
            )
        } else {
            format!(
                "User {} cannot {} resource {} in API group {} in the namespace {}",
                quote(user),
                self.verb,
                quote(&resource),
                quote(&self.group),
                quote(&self.namespace)
            )
        }
    }
}

/// A `PolicyRule`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Rule {
    pub(crate) verbs: Vec<String>,
    pub(crate) api_groups: Vec<String>,
    pub(crate) resources: Vec<String>,
    pub(crate) resource_names: Vec<String>,
    pub(crate) non_resource_urls: Vec<String>,
}

impl Rule {
    /// A rule as a role stores it.
    pub(crate) fn from_json(rule: &Value) -> Rule {
        let list = |key: &str| -> Vec<String> {
            rule.get(key)
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        Rule {
            verbs: list("verbs"),
            api_groups: list("apiGroups"),
            resources: list("resources"),
            resource_names: list("resourceNames"),
            non_resource_urls: list("nonResourceURLs"),
        }
    }

    /// `RuleAllows`.
    pub(crate) fn allows(&self, request: &Attributes) -> bool {
        let verb = self.verbs.iter().any(|v| v == "*" || *v == request.verb);
        if !request.resource_request {
            return verb
                && self.non_resource_urls.iter().any(|url| {
                    url == "*"
                        || *url == request.path
                        || (url.ends_with('*')
                            && request.path.starts_with(url.trim_end_matches('*')))
                });
        }
        let combined = if request.subresource.is_empty() {
            request.resource.clone()
        } else {
            format!("{}/{}", request.resource, request.subresource)
        };
        let group = self
            .api_groups
            .iter()
            .any(|g| g == "*" || *g == request.group);
        let resource = self.resources.iter().any(|r| {
            r == "*"
                || *r == combined
                || (!request.subresource.is_empty()
                    && r.len() == request.subresource.len() + 2
                    && r.starts_with("*/")
                    && r.ends_with(request.subresource.as_str()))
        });
        let name = self.resource_names.is_empty() || self.resource_names.contains(&request.name);
        verb && group && resource && name
    }

    /// `CompactString`: how an escalation error names a rule it would grant.
    pub(crate) fn compact_string(&self) -> String {
        let mut parts = Vec::new();
        for (label, list) in [
            ("APIGroups", &self.api_groups),
            ("Resources", &self.resources),
            ("NonResourceURLs", &self.non_resource_urls),
            ("ResourceNames", &self.resource_names),
            ("Verbs", &self.verbs),
        ] {
            if !list.is_empty() {
                parts.push(format!("{label}:{}", quote_list(list)));
            }
        }
        format!("{{{}}}", parts.join(", "))
    }
}

/// Where an allowing rule came from: `RBAC: allowed by <this>`.
fn describe(kind: &str, binding: &Value, subject: &Value, binding_namespace: &str) -> String {
    let name = text(binding, "/metadata/name");
    let name = if kind == "RoleBinding" {
        format!("{name}/{binding_namespace}")
    } else {
        name
    };
    let subject_kind = text(subject, "/kind");
    let subject_name = text(subject, "/name");
    let described = if subject_kind == "ServiceAccount" {
        let namespace = match text(subject, "/namespace") {
            n if n.is_empty() => binding_namespace.to_owned(),
            n => n,
        };
        format!(
            "{subject_kind} {}",
            quote(&format!("{subject_name}/{namespace}"))
        )
    } else {
        format!("{subject_kind} {}", quote(&subject_name))
    };
    format!(
        "{kind} {} of {} {} to {described}",
        quote(&name),
        text(binding, "/roleRef/kind"),
        quote(&text(binding, "/roleRef/name")),
    )
}

/// `appliesToUser`: whether a binding's subject is `user`.
fn applies_to(user: &User, subject: &Value, namespace: &str) -> bool {
    let field = |key: &str| subject.get(key).and_then(Value::as_str).unwrap_or("");
    match field("kind") {
        "User" => user.name == field("name"),
        "Group" => user.groups.iter().any(|g| g == field("name")),
        "ServiceAccount" => {
            let sa_namespace = match field("namespace") {
                "" => namespace,
                given => given,
            };
            !sa_namespace.is_empty()
                && user.name == service_account_name(sa_namespace, field("name"))
        }
        _ => false,
    }
}

/// What [`Policy::visit`] calls with each rule (and where it comes from) or error; it
/// answers whether to go on.
pub(crate) type Visitor<'v> = dyn FnMut(Option<&str>, Option<&Rule>, Option<String>) -> bool + 'v;

/// The roles and bindings of a store.
pub(crate) struct Policy<'a> {
    state: &'a State,
    catalog: &'a Catalog,
}

impl<'a> Policy<'a> {
    pub(crate) fn new(state: &'a State, catalog: &'a Catalog) -> Policy<'a> {
        Policy { state, catalog }
    }

    fn objects(
        &self,
        plural: &str,
    ) -> Option<&'a BTreeMap<(String, String), std::sync::Arc<Value>>> {
        let (index, _) = self.catalog.find(GROUP, "v1", plural)?;
        self.state.objects.get(index)
    }

    /// `GetRoleReferenceRules`: the rules of the role a binding in `namespace` names, or
    /// the error the API server's lister gives.
    pub(crate) fn role_rules(
        &self,
        role_ref: &Value,
        namespace: &str,
    ) -> Result<Vec<Rule>, String> {
        let kind = role_ref.get("kind").and_then(Value::as_str).unwrap_or("");
        let name = role_ref.get("name").and_then(Value::as_str).unwrap_or("");
        let (plural, key) = match kind {
            "Role" => ("roles", (namespace.to_owned(), name.to_owned())),
            "ClusterRole" => ("clusterroles", (String::new(), name.to_owned())),
            _ => return Err(format!("unsupported role reference kind: {kind:?}")),
        };
        let role = self
            .objects(plural)
            .and_then(|objects| objects.get(&key))
            .ok_or_else(|| format!("{}.{GROUP} {} not found", plural, quote(name)))?;
        Ok(role
            .get("rules")
            .and_then(Value::as_array)
            .map(|rules| rules.iter().map(Rule::from_json).collect())
            .unwrap_or_default())
    }

    /// `VisitRulesFor`: each rule that applies to `user` in `namespace` (the cluster role
    /// bindings', then the namespace's role bindings'), with where it comes from, and each
    /// error met resolving them; stops when `visit` says so.
    pub(crate) fn visit(&self, user: &User, namespace: &str, visit: &mut Visitor<'_>) {
        for (kind, plural, scope) in [
            ("ClusterRoleBinding", "clusterrolebindings", ""),
            ("RoleBinding", "rolebindings", namespace),
        ] {
            if kind == "RoleBinding" && namespace.is_empty() {
                return;
            }
            let Some(bindings) = self.objects(plural) else {
                continue;
            };
            let range = bindings
                .range((scope.to_owned(), String::new())..)
                .take_while(|((ns, _), _)| ns == scope);
            for (_, binding) in range {
                let subjects = binding.get("subjects").and_then(Value::as_array);
                let Some(subject) = subjects
                    .into_iter()
                    .flatten()
                    .find(|s| applies_to(user, s, scope))
                else {
                    continue;
                };
                let role_ref = binding.get("roleRef").cloned().unwrap_or(Value::Null);
                match self.role_rules(&role_ref, scope) {
                    Err(error) => {
                        if !visit(None, None, Some(error)) {
                            return;
                        }
                    }
                    Ok(rules) => {
                        let source = describe(kind, binding, subject, scope);
                        for rule in &rules {
                            if !visit(Some(&source), Some(rule), None) {
                                return;
                            }
                        }
                    }
                }
            }
        }
    }

    /// `RulesFor`: every rule that applies, and the errors met (aggregated as Go writes
    /// them), if any.
    pub(crate) fn rules_for(&self, user: &User, namespace: &str) -> (Vec<Rule>, Option<String>) {
        let mut rules = Vec::new();
        let mut errors = Vec::new();
        self.visit(user, namespace, &mut |_, rule, error| {
            if let Some(rule) = rule {
                rules.push(rule.clone());
            }
            errors.extend(error);
            true
        });
        (rules, aggregate(&errors))
    }

    /// The union of the privileged group and RBAC: whether `user` may, and the reason the
    /// authorizer gives (`RBAC: allowed by …` when allowed; the resolution errors, if any,
    /// when not).
    pub(crate) fn authorize(&self, user: &User, request: &Attributes) -> (bool, String) {
        if user.is_privileged() {
            return (true, String::new());
        }
        let mut allowed = None;
        let mut errors = Vec::new();
        self.visit(user, &request.namespace, &mut |source, rule, error| {
            if let Some(rule) = rule
                && rule.allows(request)
            {
                allowed = Some(format!("RBAC: allowed by {}", source.unwrap_or("")));
                return false;
            }
            errors.extend(error);
            true
        });
        match allowed {
            Some(reason) => (true, reason),
            None => (
                false,
                aggregate(&errors)
                    .map(|e| format!("RBAC: {e}"))
                    .unwrap_or_default(),
            ),
        }
    }

    /// `ConfirmNoEscalation`: whether `user`'s rules in `namespace` cover `rules`; else the
    /// message the registry refuses with.
    pub(crate) fn confirm_no_escalation(
        &self,
        user: &User,
        namespace: &str,
        rules: &[Rule],
    ) -> Result<(), String> {
        let (owner, errors) = self.rules_for(user, namespace);
        let missing = uncovered(&owner, rules);
        if missing.is_empty() {
            return Ok(());
        }
        let descriptions: BTreeSet<String> =
            compact(&missing).iter().map(Rule::compact_string).collect();
        let mut message = format!(
            "user {} (groups={}) is attempting to grant RBAC permissions not currently held:\n{}",
            quote(&user.name),
            quote_list(&user.groups),
            descriptions.into_iter().collect::<Vec<_>>().join("\n")
        );
        if let Some(errors) = errors {
            message.push_str(&format!("; resolution errors: [{errors}]"));
        }
        Err(message)
    }
}

/// `utilerrors.NewAggregate(...).Error()`: one error alone, several as `[a, b]`.
fn aggregate(errors: &[String]) -> Option<String> {
    match errors {
        [] => None,
        [one] => Some(one.clone()),
        many => Some(format!("[{}]", many.join(", "))),
    }
}

/// `BreakdownRule`: a rule as rules of one group, resource, verb (and name) each.
pub(crate) fn breakdown(rule: &Rule) -> Vec<Rule> {
    let mut out = Vec::new();
    let one = |s: &String| vec![s.clone()];
    for group in &rule.api_groups {
        for resource in &rule.resources {
            for verb in &rule.verbs {
                if rule.resource_names.is_empty() {
                    out.push(Rule {
                        api_groups: one(group),
                        resources: one(resource),
                        verbs: one(verb),
                        ..Rule::default()
                    });
                }
                for name in &rule.resource_names {
                    out.push(Rule {
                        api_groups: one(group),
                        resources: one(resource),
                        verbs: one(verb),
                        resource_names: one(name),
                        ..Rule::default()
                    });
                }
            }
        }
    }
    for url in &rule.non_resource_urls {
        for verb in &rule.verbs {
            out.push(Rule {
                non_resource_urls: one(url),
                verbs: one(verb),
                ..Rule::default()
            });
        }
    }
    out
}

/// `Covers`: the broken-down rules of `servant` that no rule of `owner` covers.
pub(crate) fn uncovered(owner: &[Rule], servant: &[Rule]) -> Vec<Rule> {
    servant
        .iter()
        .flat_map(breakdown)
        .filter(|sub| !owner.iter().any(|o| covers(o, sub)))
        .collect()
}

/// `ruleCovers`.
fn covers(owner: &Rule, sub: &Rule) -> bool {
    let has = |set: &[String], item: &str| set.iter().any(|s| s == item);
    let has_all = |set: &[String], items: &[String]| items.iter().all(|i| has(set, i));
    let verbs = has(&owner.verbs, "*") || has_all(&owner.verbs, &sub.verbs);
    let groups = has(&owner.api_groups, "*") || has_all(&owner.api_groups, &sub.api_groups);
    let resources = has(&owner.resources, "*")
        || has_all(&owner.resources, &sub.resources)
        || sub.resources.iter().all(|path| {
            has(&owner.resources, path)
                || path
                    .split_once('/')
                    .is_some_and(|(_, sub)| has(&owner.resources, &format!("*/{sub}")))
        });
    let urls = sub.non_resource_urls.iter().all(|path| {
        owner
            .non_resource_urls
            .iter()
            .any(|o| o == path || (o.ends_with('*') && path.starts_with(o.trim_end_matches('*'))))
    });
    let names = if sub.resource_names.is_empty() {
        owner.resource_names.is_empty()
    } else {
        owner.resource_names.is_empty() || has_all(&owner.resource_names, &sub.resource_names)
    };
    verbs && groups && resources && names && urls
}

/// `CompactRules`: the rules that are simple (one group, one resource, at most one name,
/// no URLs) and differ only by verb made one, verbs appended in the order met; the others
/// as they are, first.
pub(crate) fn compact(rules: &[Rule]) -> Vec<Rule> {
    let mut out: Vec<Rule> = Vec::new();
    let mut simple: Vec<Rule> = Vec::new();
    for rule in rules {
        let is_simple = rule.api_groups.len() == 1
            && rule.resources.len() == 1
            && rule.resource_names.len() <= 1
            && rule.non_resource_urls.is_empty();
        if !is_simple {
            out.push(rule.clone());
            continue;
        }
        let same = simple.iter_mut().find(|s| {
            s.api_groups == rule.api_groups
                && s.resources == rule.resources
                && s.resource_names == rule.resource_names
        });
        match same {
            Some(existing) => existing.verbs.extend(rule.verbs.iter().cloned()),
            None => simple.push(rule.clone()),
        }
    }
    out.extend(simple);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rule(value: Value) -> Rule {
        Rule::from_json(&value)
    }

    #[test]
    fn rules_match_as_rule_allows_does() {
        let pods =
            rule(json!({"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}));
        let list = Attributes::resource("list", "", "pods", "", "ns", "");
        assert!(pods.allows(&list));
        assert!(!pods.allows(&Attributes::resource("watch", "", "pods", "", "ns", "")));
        assert!(!pods.allows(&Attributes::resource("list", "apps", "pods", "", "ns", "")));
        // A subresource needs its own rule, or `*/sub`.
        let status = Attributes::resource("get", "", "pods", "status", "ns", "p");
        assert!(!pods.allows(&status));
        assert!(
            rule(json!({"verbs": ["get"], "apiGroups": [""], "resources": ["*/status"]}))
                .allows(&status)
        );
        let named = rule(
            json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]}),
        );
        assert!(named.allows(&Attributes::resource("get", "", "pods", "", "ns", "a")));
        assert!(!named.allows(&Attributes::resource("get", "", "pods", "", "ns", "b")));
        assert!(!named.allows(&list));
        let urls = rule(json!({"verbs": ["get"], "nonResourceURLs": ["/apis/*", "/version"]}));
        assert!(urls.allows(&Attributes::path("get", "/apis/apps/v1")));
        assert!(urls.allows(&Attributes::path("get", "/version")));
        assert!(!urls.allows(&Attributes::path("get", "/version/")));
        assert!(!urls.allows(&Attributes::path("post", "/version")));
    }

    #[test]
    fn forbidden_messages_are_the_api_servers() {
        let user = "system:serviceaccount:ns:sa";
        assert_eq!(
            Attributes::resource("list", "", "pods", "", "ns", "").forbidden_message(user),
            "User \"system:serviceaccount:ns:sa\" cannot list resource \"pods\" in API group \"\" in the namespace \"ns\""
        );
        assert_eq!(
            Attributes::resource("patch", "apps", "deployments", "status", "", "d")
                .forbidden_message(user),
            "User \"system:serviceaccount:ns:sa\" cannot patch resource \"deployments/status\" in API group \"apps\" at the cluster scope"
        );
        assert_eq!(
            Attributes::path("get", "/api").forbidden_message("system:anonymous"),
            "User \"system:anonymous\" cannot get path \"/api\""
        );
    }

    #[test]
    fn escalation_names_what_is_missing_compacted() {
        let owner = vec![rule(
            json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}),
        )];
        let wanted = vec![rule(
            json!({"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["pods", "pods/log"]}),
        )];
        let missing = compact(&uncovered(&owner, &wanted));
        let described: Vec<String> = missing.iter().map(Rule::compact_string).collect();
        assert_eq!(
            described,
            [
                "{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"list\" \"watch\"]}",
                "{APIGroups:[\"\"], Resources:[\"pods/log\"], Verbs:[\"get\" \"list\" \"watch\"]}",
            ]
        );
        let star = vec![rule(
            json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*/log", "pods"]}),
        )];
        assert!(uncovered(&star, &wanted).is_empty());
    }

    #[test]
    fn service_account_names_split_as_go_splits_them() {
        assert_eq!(
            split_service_account("system:serviceaccount:ns:sa"),
            Some(("ns", "sa"))
        );
        assert_eq!(split_service_account("system:serviceaccount:ns"), None);
        assert_eq!(split_service_account("alice"), None);
    }
}
