//! Every name made for operations: route variants, functions, decoders, query structs and
//! their builders, response enums.

use std::collections::BTreeMap;

use super::{Operation, QueryParam, ResponseBody, conventions};
use crate::model::naming::{self, Namespace};
use crate::model::{Shape, TypeDef, TypeId};

/// The `GroupVersion` part of Kubernetes operation IDs: `Core` + `V1`,
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

/// The variant of a response enum for a status: `Ok`, `Created`, `Accepted`, `NoContent`, or
/// `Status207`.
pub(super) fn status_variant(status: u16) -> String {
    match status {
        200 => "Ok".to_owned(),
        201 => "Created".to_owned(),
        202 => "Accepted".to_owned(),
        203 => "NonAuthoritativeInformation".to_owned(),
        204 => "NoContent".to_owned(),
        205 => "ResetContent".to_owned(),
        206 => "PartialContent".to_owned(),
        other => format!("Status{other}"),
    }
}

/// The operation ID without its group-version part, the way Kubernetes clients name
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

/// A set of optional query parameters: names and types (`Shape` has no order; query
/// parameters are scalars or lists of them, so its debug form names it exactly), sorted by
/// name.
type QueryKey = Vec<(String, String)>;

fn query_key<'a>(params: impl IntoIterator<Item = &'a QueryParam>) -> QueryKey {
    params
        .into_iter()
        .filter(|q| !q.required)
        .map(|q| (q.name.clone(), format!("{:?}", q.shape)))
        .collect()
}

/// The name of the shared query struct for a set of optional query parameters, made from the
/// set alone (never from the operations that take it or the order they come in, so adding or
/// removing an input document renames nothing): the convention class the set belongs to
/// (`conventions::query_class`: `ListOrWatchQuery`, `WatchQuery`, `DeleteQuery`, …), then
/// `With…` for each parameter the class's standard set lacks and `Without…` for each it
/// has that this set lacks (OpenShift's list parameters, without `sendInitialEvents`:
/// `ListOrWatchQueryWithoutSendInitialEvents`). A set of no class is no shared struct:
/// each of its operations has its own, named after the operation.
fn shared_query_name(key: &QueryKey) -> Option<String> {
    let names: Vec<&str> = key.iter().map(|(name, _)| name.as_str()).collect();
    let (class, standard) = conventions::query_class(&names)?;
    let mut name = format!("{class}Query");
    let with: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !standard.contains(n))
        .collect();
    let without: Vec<&str> = standard
        .iter()
        .copied()
        .filter(|n| !names.contains(n))
        .collect();
    for (word, list) in [("With", with), ("Without", without)] {
        if !list.is_empty() {
            name.push_str(word);
            for param in list {
                name.push_str(&naming::type_name(param));
            }
        }
    }
    Some(name)
}

/// Whether a query struct of these parameters can derive `Eq` (floats cannot).
fn query_eq(params: &[QueryParam]) -> bool {
    fn float(shape: &Shape) -> bool {
        match shape {
            Shape::F64 => true,
            Shape::Vec(inner) => float(inner),
            _ => false,
        }
    }
    params
        .iter()
        .filter(|q| !q.required)
        .all(|q| !float(&q.shape))
}

/// Names every operation: route variants are unique in the API, functions per owner (the
/// resource type, or the routes module), query and response types per module, next to the
/// types already there, and shared query structs by their parameter set
/// ([`shared_query_name`]).
pub(super) fn assign_names(operations: &mut [Operation], types: &[TypeDef]) {
    let mut variants = Namespace::default();
    let mut functions: BTreeMap<Option<TypeId>, Namespace> = BTreeMap::new();
    let mut modules: BTreeMap<Option<Vec<String>>, Namespace> = BTreeMap::new();
    let mut routes_names = Namespace::default();
    for name in ["Route", "ROUTES", "ResponseError", "resolve"] {
        routes_names.reserve(name);
    }
    // Shared structs claim their names first, in the order of their names, so that no
    // operation's own struct can take one.
    let mut keys: Vec<QueryKey> = Vec::new();
    for op in operations.iter() {
        keys.push(query_key(&op.query_params));
        if let Some(watch) = &op.watch {
            keys.push(query_key(&watch.query_params));
        }
    }
    let mut shared_names: Vec<(String, &QueryKey)> = keys
        .iter()
        .filter_map(|key| shared_query_name(key).map(|name| (name, key)))
        .collect();
    shared_names.sort();
    shared_names.dedup();
    let mut shared: BTreeMap<&QueryKey, (String, String)> = BTreeMap::new();
    for (name, key) in shared_names {
        let query = routes_names.claim(&name);
        let builder = routes_names.claim(&naming::builder_type_name(&query));
        shared.insert(key, (query, builder));
    }
    let shared: BTreeMap<QueryKey, (String, String)> = shared
        .into_iter()
        .map(|(key, names)| (key.clone(), names))
        .collect();
    modules.insert(None, routes_names);
    for op in operations.iter_mut() {
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
        let key = query_key(&op.query_params);
        op.names.query_eq = query_eq(&op.query_params);
        if let Some((query, builder)) = shared.get(&key) {
            op.names.query = Some(query.clone());
            op.names.query_builder = Some(builder.clone());
            op.names.query_shared = true;
        } else {
            op.names.query = (!key.is_empty())
                .then(|| type_names.claim(&format!("{}Query", camel.trim_end_matches('_'))));
            op.names.query_builder = op
                .names
                .query
                .as_ref()
                .map(|query| type_names.claim(&naming::builder_type_name(query)));
        }
        set_setters(&mut op.query_params);
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

        // The request function's arguments: path parameters, required query parameters,
        // the body, the optional query parameters.
        let mut args = Namespace::default();
        for param in &mut op.path_params {
            param.rust_name = args.claim(&param.rust_name);
        }
        for param in op.query_params.iter_mut().filter(|q| q.required) {
            param.rust_name = args.claim(&param.rust_name);
        }
        op.names.body_arg = op.body.as_ref().map(|_| args.claim("body"));
        op.names.query_arg = op.names.query.as_ref().map(|_| args.claim("query"));

        let functions = functions.entry(owner).or_default();
        let function = functions.claim(&naming::snake_name(&short));
        op.names.decoder = functions.claim(&format!("{}_response", function.trim_end_matches('_')));
        if let Some(watch) = &mut op.watch {
            // `list_namespaced_lease` → `watch_list_namespaced_lease`: the deprecated
            // `/watch/` operations already have `watch_namespaced_lease_list`.
            let name = functions.claim(&format!("watch_{}", function.trim_end_matches('_')));
            watch.decoder = functions.claim(&format!("{name}_decoder"));
            watch.function = name;
            let key = query_key(&watch.query_params);
            watch.query_eq = query_eq(&watch.query_params);
            if let Some((query, builder)) = shared.get(&key) {
                watch.query = Some(query.clone());
                watch.query_builder = Some(builder.clone());
                watch.query_shared = true;
            } else if !key.is_empty() {
                let query = type_names.claim(&format!("Watch{}Query", camel.trim_end_matches('_')));
                watch.query_builder = Some(type_names.claim(&naming::builder_type_name(&query)));
                watch.query = Some(query);
            }
            let mut args = Namespace::default();
            for param in &op.path_params {
                args.reserve(&param.rust_name);
            }
            watch.query_arg = args.claim("query");
            set_setters(&mut watch.query_params);
        }
        op.names.function = function;
    }
}

/// Names the route table's query parameter constants: each distinct parameter (name, type,
/// description, required) once, claimed in the order of that content, so the names do not
/// depend on the order of operations.
pub(super) fn assign_query_constants(operations: &mut [Operation]) {
    type Key = (String, &'static str, String, bool);
    let key = |q: &QueryParam| -> Key {
        (
            q.name.clone(),
            q.type_name(),
            q.description.clone().unwrap_or_default(),
            q.required,
        )
    };
    let keys: std::collections::BTreeSet<Key> = operations
        .iter()
        .flat_map(|op| &op.query_params)
        .map(key)
        .collect();
    let mut namespace = Namespace::default();
    let names: BTreeMap<Key, String> = keys
        .into_iter()
        .map(|k| {
            let name = namespace.claim(&naming::constant_name(&k.0));
            (k, name)
        })
        .collect();
    for q in operations.iter_mut().flat_map(|op| &mut op.query_params) {
        q.constant = names.get(&key(q)).cloned().unwrap_or_default();
    }
}

/// The setter names of a query struct's builder.
fn set_setters(params: &mut [QueryParam]) {
    let optional: Vec<String> = params
        .iter()
        .filter(|q| !q.required)
        .map(|q| q.rust_name.clone())
        .collect();
    let setters = crate::model::builders::setter_names(&optional);
    for (param, setter) in params.iter_mut().filter(|q| !q.required).zip(setters) {
        param.setter = setter;
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
