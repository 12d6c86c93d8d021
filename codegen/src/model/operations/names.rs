//! Every name made for operations: route variants, functions, decoders, query structs and
//! their builders, response enums.

use std::collections::BTreeMap;

use super::{Action, Operation, ResponseBody};
use crate::model::naming::{self, Namespace};
use crate::model::{Shape, TypeDef, TypeId};

/// `coordination.k8s.io` → `Coordination`, `image.openshift.io` → `ImageOpenshiftIo`.
pub fn group_version_token(group: &str, version: &str) -> String {
    let group = group.strip_suffix(".k8s.io").unwrap_or(group);
    let mut token = String::new();
    if group.is_empty() {
        token.push_str("Core");
    }
    for word in group.split(['.', '-']).filter(|w| !w.is_empty()) {
        token.push_str(&capitalize(word));
    }
    token.push_str(&capitalize(version));
    token
}

pub(super) fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// operations: `readCoordinationV1NamespacedLease` → `readNamespacedLease`.
fn short_id(op: &Operation) -> String {
    let verb_len = op
        .id
        .find(|c: char| c.is_ascii_uppercase())
        .unwrap_or(op.id.len());
    let (verb, rest) = op.id.split_at(verb_len);
    if let Some(resource) = &op.resource {
        let token = group_version_token(&resource.gvk.group, &resource.gvk.version);
        if let Some(rest) = rest.strip_prefix(&token).filter(|r| !r.is_empty()) {
            return format!("{verb}{rest}");
        }
    }
    op.id.clone()
}

/// The names of the query structs shared by operations, by operation index: operations
/// whose optional query parameters are the same (names, types) take one struct, in the routes
/// module. Kubernetes 1.36 has 1,058 operations with optional parameters but 10 distinct sets
/// of them; one struct per operation was most of the generated routes code.
///
/// A struct is named after the actions of its operations (`ListOrWatchQuery`,
/// `CreateOrReplaceQuery`, `PatchQuery`); the largest set claims that name first, and a set
/// whose name is taken gets a number (`ConnectQuery2`): documents that differ, such as
/// OpenShift's and Kubernetes' list parameters, give one action several sets.
fn shared_query_names(
    operations: &[Operation],
    names: &mut Namespace,
) -> BTreeMap<usize, (String, String)> {
    type Key<'a> = Vec<(&'a str, &'a Shape)>;
    let mut sets: indexmap::IndexMap<Key<'_>, Vec<usize>> = indexmap::IndexMap::new();
    for (index, op) in operations.iter().enumerate() {
        let key: Key<'_> = op
            .query_params
            .iter()
            .filter(|q| !q.required)
            .map(|q| (q.name.as_str(), &q.shape))
            .collect();
        if !key.is_empty() {
            sets.entry(key).or_default().push(index);
        }
    }
    let mut shared: Vec<Vec<usize>> = sets.into_values().filter(|ops| ops.len() > 1).collect();
    // Largest first, then in order of first use: a stable order for claiming names.
    shared.sort_by_key(|ops| std::cmp::Reverse(ops.len()));
    let mut result = BTreeMap::new();
    for ops in shared {
        let actions: std::collections::BTreeSet<Action> =
            ops.iter().map(|&i| operations[i].action).collect();
        let by_action = format!(
            "{}Query",
            actions
                .iter()
                .map(|a| a.variant())
                .collect::<Vec<_>>()
                .join("Or")
        );
        let query = names.claim(&by_action);
        let builder = names.claim(&naming::builder_type_name(&query));
        for index in ops {
            result.insert(index, (query.clone(), builder.clone()));
        }
    }
    result
}

/// Names every operation: route variants are unique in the API, functions per owner (the
/// resource type, or the routes module), query and response types per module, next to the
/// types already there.
pub(super) fn assign_names(operations: &mut [Operation], types: &[TypeDef]) {
    let mut variants = Namespace::default();
    let mut functions: BTreeMap<Option<TypeId>, Namespace> = BTreeMap::new();
    let mut modules: BTreeMap<Option<Vec<String>>, Namespace> = BTreeMap::new();
    let mut routes_names = Namespace::default();
    for name in ["Route", "ROUTES", "ResponseError", "resolve"] {
        routes_names.reserve(name);
    }
    let shared = shared_query_names(operations, &mut routes_names);
    modules.insert(None, routes_names);
    for (index, op) in operations.iter_mut().enumerate() {
        let owner = op.resource.as_ref().and_then(|r| r.id);
        let module = owner.map(|id| types[id.0].module.clone());
        // The routes module's namespace (`None`) was made above.
        let type_names = modules.entry(module.clone()).or_insert_with(|| {
            let mut names = Namespace::default();
            if let Some(module) = &module {
                for ty in types.iter().filter(|t| &t.module == module) {
                    names.reserve(&ty.name);
                }
            }
            names
        });
        let short = short_id(op);
        let camel = naming::type_name(&short);
        if let Some((query, builder)) = shared.get(&index) {
            op.names.query = Some(query.clone());
            op.names.query_builder = Some(builder.clone());
            op.names.query_shared = true;
        } else {
            op.names.query = op
                .query_params
                .iter()
                .any(|q| !q.required)
                .then(|| type_names.claim(&format!("{}Query", camel.trim_end_matches('_'))));
            op.names.query_builder = op
                .names
                .query
                .as_ref()
                .map(|query| type_names.claim(&naming::builder_type_name(query)));
        }
        let optional: Vec<String> = op
            .query_params
            .iter()
            .filter(|q| !q.required)
            .map(|q| q.rust_name.clone())
            .collect();
        let setters = crate::model::builders::setter_names(&optional);
        for (param, setter) in op
            .query_params
            .iter_mut()
            .filter(|q| !q.required)
            .zip(setters)
        {
            param.setter = setter;
        }
        let successes: Vec<&ResponseBody> = op
            .responses
            .iter()
            .filter(|r| r.is_success())
            .map(|r| &r.body)
            .collect();
        op.names.response = successes
            .iter()
            .any(|b| *b != successes[0])
            .then(|| type_names.claim(&format!("{}Response", camel.trim_end_matches('_'))));
        op.names.variant = variants.claim(&naming::type_name(&op.id));
        let functions = functions.entry(owner).or_default();
        let function = functions.claim(&naming::snake_name(&short));
        op.names.decoder = functions.claim(&format!("{}_response", function.trim_end_matches('_')));
        op.names.function = function;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_version_tokens() {
        assert_eq!(group_version_token("", "v1"), "CoreV1");
        assert_eq!(
            group_version_token("coordination.k8s.io", "v1"),
            "CoordinationV1"
        );
        assert_eq!(
            group_version_token("image.openshift.io", "v1"),
            "ImageOpenshiftIoV1"
        );
        assert_eq!(
            group_version_token("rbac.authorization.k8s.io", "v1beta1"),
            "RbacAuthorizationV1beta1"
        );
    }
}
