//! Every name made for operations: route variants, functions, decoders, query structs and
//! their builders, response enums.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::conventions::{self, group_version_token};
use super::{Operation, QueryParam, ResponseBody};
use crate::ground::naming::{self, Namespace};
use crate::model::{Shape, TypeDef, TypeId};

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

/// A struct of optional query parameters in the routes module, shared by the operations of
/// one Kubernetes kind (`conventions::query_class`: list, watch, create/replace, patch,
/// delete, delete-collection, get, exec, attach, port-forward, proxy) and named after that
/// kind alone (`ListOrWatchQuery`, `DeleteCollectionQuery`, …), so that a release adding a
/// parameter adds a field and renames nothing (k8s-openapi's `ListOptional` keeps its name
/// the same way). Its fields are every optional parameter its operations declare.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedQuery {
    /// The struct's name.
    pub name: String,
    /// Its builder's name.
    pub builder: String,
    /// What its operations do, in words (`list`, `delete-collection`).
    pub kind: &'static str,
    /// Its fields: every optional parameter any of its operations declares, sorted by name,
    /// with unique Rust names and setters.
    pub params: Vec<QueryParam>,
    /// Whether it can derive `Eq` (no parameter holds a float).
    pub eq: bool,
    /// The operations taking it, by operation ID (the watch on a list as the list's ID +
    /// `?watch=true`), sorted.
    pub operations: Vec<String>,
    /// For each parameter not every one of those operations declares, how many do.
    pub declared_by: BTreeMap<String, usize>,
}

/// One use of a set of optional query parameters: an operation's, or the watch on a list
/// path's.
struct QueryUse<'a> {
    key: QueryKey,
    params: &'a [QueryParam],
    operation: String,
}

/// The shared query structs (see [`SharedQuery`]) and which parameter sets take each. Each
/// set of a kind takes its kind's struct, unless a parameter of it has another type than
/// the struct's (the type most of the kind's operations give it, ties by the type's
/// spelling): such a set keeps a struct of its own, named after its operation.
fn shared_queries(
    uses: &[QueryUse<'_>],
    routes_names: &mut Namespace,
) -> Vec<(SharedQuery, BTreeSet<QueryKey>)> {
    let mut by_kind: BTreeMap<&'static str, Vec<&QueryUse<'_>>> = BTreeMap::new();
    for query in uses {
        let names: Vec<&str> = query.key.iter().map(|(name, _)| name.as_str()).collect();
        if let Some((class, _)) = conventions::query_class(&names) {
            by_kind.entry(class).or_default().push(query);
        }
    }
    let mut shared = Vec::new();
    for (class, uses) in by_kind {
        // The type of each parameter: the one most of the kind's operations give it.
        let mut counts: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
        for query in &uses {
            for (name, shape) in &query.key {
                *counts.entry(name).or_default().entry(shape).or_default() += 1;
            }
        }
        let chosen: BTreeMap<&str, &str> = counts
            .iter()
            .map(|(name, shapes)| {
                let best = shapes
                    .iter()
                    .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
                    .map(|(shape, _)| *shape)
                    .unwrap_or_default();
                (*name, best)
            })
            .collect();
        let members: Vec<&QueryUse<'_>> = uses
            .into_iter()
            .filter(|query| {
                query
                    .key
                    .iter()
                    .all(|(name, shape)| chosen.get(name.as_str()) == Some(&shape.as_str()))
            })
            .collect();
        if members.is_empty() {
            continue;
        }
        let mut params: BTreeMap<&str, QueryParam> = BTreeMap::new();
        let mut declared: BTreeMap<String, usize> = BTreeMap::new();
        for query in &members {
            for param in query.params.iter().filter(|q| !q.required) {
                params
                    .entry(param.name.as_str())
                    .or_insert_with(|| param.clone());
                *declared.entry(param.name.clone()).or_default() += 1;
            }
        }
        let mut params: Vec<QueryParam> = params.into_values().collect();
        let mut fields = Namespace::default();
        for param in &mut params {
            param.rust_name = fields.claim(&naming::snake_name(&param.name));
        }
        set_setters(&mut params, &mut Setters::new());
        let name = routes_names.claim(&format!("{class}Query"));
        let builder = routes_names.claim(&naming::builder_type_name(&name));
        let uses = members.len();
        declared.retain(|_, count| *count < uses);
        let keys: BTreeSet<QueryKey> = members.iter().map(|q| q.key.clone()).collect();
        let mut operations: Vec<String> = members.iter().map(|q| q.operation.clone()).collect();
        operations.sort();
        shared.push((
            SharedQuery {
                name,
                builder,
                kind: conventions::query_class_words(class),
                eq: query_eq(&params),
                params,
                operations,
                declared_by: declared,
            },
            keys,
        ));
    }
    shared.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    shared
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
/// types already there, and shared query structs by the kind of operation
/// ([`SharedQuery`]), which it returns.
pub(super) fn assign_names(operations: &mut [Operation], types: &[TypeDef]) -> Vec<SharedQuery> {
    let mut variants = Namespace::default();
    let mut functions: BTreeMap<Option<TypeId>, Namespace> = BTreeMap::new();
    let mut modules: BTreeMap<Option<Vec<String>>, Namespace> = BTreeMap::new();
    let mut routes_names = Namespace::default();
    let mut setters = Setters::new();
    for name in ["Route", "ROUTES", "ResponseError", "resolve"] {
        routes_names.reserve(name);
    }
    // Shared structs claim their names first, in the order of their names, so that no
    // operation's own struct can take one.
    let mut uses: Vec<QueryUse<'_>> = Vec::new();
    for op in operations.iter() {
        uses.push(QueryUse {
            key: query_key(&op.query_params),
            params: &op.query_params,
            operation: op.id.clone(),
        });
        if let Some(watch) = &op.watch {
            uses.push(QueryUse {
                key: query_key(&watch.query_params),
                params: &watch.query_params,
                operation: format!("{}?watch=true", op.id),
            });
        }
    }
    let queries = shared_queries(&uses, &mut routes_names);
    drop(uses);
    let mut shared: BTreeMap<QueryKey, (String, String, bool)> = BTreeMap::new();
    for (query, keys) in &queries {
        for key in keys {
            shared.insert(
                key.clone(),
                (query.name.clone(), query.builder.clone(), query.eq),
            );
        }
    }
    let queries: Vec<SharedQuery> = queries.into_iter().map(|(query, _)| query).collect();
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
        if let Some((query, builder, eq)) = shared.get(&key) {
            op.names.query = Some(query.clone());
            op.names.query_builder = Some(builder.clone());
            op.names.query_shared = true;
            op.names.query_eq = *eq;
        } else {
            op.names.query = (!key.is_empty())
                .then(|| type_names.claim(&format!("{}Query", camel.trim_end_matches('_'))));
            op.names.query_builder = op
                .names
                .query
                .as_ref()
                .map(|query| type_names.claim(&naming::builder_type_name(query)));
        }
        set_setters(&mut op.query_params, &mut setters);
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
        op.names.apply = applies(op).then(|| {
            let base = function.strip_prefix("patch").unwrap_or(&function);
            let name = functions.claim(&format!("apply{base}"));
            // Its arguments: the path parameters, the configuration, the field manager,
            // then the patch's optional query parameters under the patch's name for them.
            let mut apply_args = Namespace::default();
            for param in &op.path_params {
                apply_args.reserve(&param.rust_name);
            }
            if let Some(query) = &op.names.query_arg {
                apply_args.reserve(query);
            }
            let body_arg = apply_args.claim("body");
            let field_manager_arg = apply_args.claim("field_manager");
            super::ApplyNames {
                function: name,
                body_arg,
                field_manager_arg,
            }
        });
        if let Some(watch) = &mut op.watch {
            // `list_namespaced_lease` → `watch_list_namespaced_lease`: the deprecated
            // `/watch/` operations already have `watch_namespaced_lease_list`.
            let name = functions.claim(&format!("watch_{}", function.trim_end_matches('_')));
            watch.decoder = functions.claim(&format!("{name}_decoder"));
            watch.function = name;
            let key = query_key(&watch.query_params);
            watch.query_eq = query_eq(&watch.query_params);
            if let Some((query, builder, eq)) = shared.get(&key) {
                watch.query = Some(query.clone());
                watch.query_builder = Some(builder.clone());
                watch.query_shared = true;
                watch.query_eq = *eq;
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
            set_setters(&mut watch.query_params, &mut setters);
        }
        op.names.function = function;
    }
    queries
}

/// Whether an operation gets a server-side apply function: a PATCH of a resource, or of its
/// `status`, that takes apply patches.
fn applies(op: &Operation) -> bool {
    op.action == super::Action::Patch
        && op.resource.as_ref().is_some_and(|r| {
            r.id.is_some() && r.subresource.as_deref().is_none_or(|s| s == "status")
        })
        && op.body.as_ref().is_some_and(|b| {
            b.kind == super::BodyKind::Patch
                && b.content_types.iter().any(|c| c == super::APPLY_PATCH)
        })
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
/// The setter names of optional query parameters, by their Rust names: most operations'
/// parameters are one of a few lists, whose names are decided once.
type Setters = HashMap<Vec<String>, Vec<String>>;

fn set_setters(params: &mut [QueryParam], known: &mut Setters) {
    let optional: Vec<String> = params
        .iter()
        .filter(|q| !q.required)
        .map(|q| q.rust_name.clone())
        .collect();
    let setters = known
        .entry(optional)
        .or_insert_with_key(|optional| crate::model::builders::setter_names(optional));
    for (param, setter) in params.iter_mut().filter(|q| !q.required).zip(setters) {
        param.setter.clone_from(setter);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(name: &str, shape: Shape) -> QueryParam {
        QueryParam {
            name: name.to_owned(),
            rust_name: naming::snake_name(name),
            shape,
            description: None,
            required: false,
            setter: String::new(),
            constant: String::new(),
        }
    }

    /// One struct per kind, with every parameter any of its operations declares; a set
    /// whose parameter has another type than most of the kind's keeps its own struct.
    #[test]
    fn shared_query_structs_are_named_by_kind_and_take_every_parameter() {
        let list = |extra: &[&str]| -> Vec<QueryParam> {
            let mut names = vec![
                "allowWatchBookmarks",
                "continue",
                "fieldSelector",
                "labelSelector",
                "limit",
                "pretty",
                "watch",
            ];
            names.extend(extra);
            names.sort_unstable();
            names
                .into_iter()
                .map(|n| {
                    param(
                        n,
                        match n {
                            "limit" => Shape::I64,
                            "watch" | "allowWatchBookmarks" => Shape::Bool,
                            _ => Shape::String,
                        },
                    )
                })
                .collect()
        };
        let older = list(&[]);
        let newer = list(&["shardSelector"]);
        let mut odd = list(&[]);
        odd.iter_mut()
            .find(|q| q.name == "limit")
            .expect("limit")
            .shape = Shape::String;
        let uses: Vec<QueryUse<'_>> = [("a", &older), ("b", &newer), ("c", &newer), ("d", &odd)]
            .into_iter()
            .map(|(id, params)| QueryUse {
                key: query_key(params.iter()),
                params,
                operation: id.to_owned(),
            })
            .collect();
        let mut names = Namespace::default();
        let shared = shared_queries(&uses, &mut names);
        let [(query, keys)] = &shared[..] else {
            panic!("one kind, one struct: {shared:?}")
        };
        assert_eq!(query.name, "ListOrWatchQuery");
        assert_eq!(query.builder, "ListOrWatchQueryBuilder");
        assert_eq!(query.operations, ["a", "b", "c"]);
        let fields: Vec<&str> = query.params.iter().map(|q| q.name.as_str()).collect();
        assert_eq!(
            fields,
            [
                "allowWatchBookmarks",
                "continue",
                "fieldSelector",
                "labelSelector",
                "limit",
                "pretty",
                "shardSelector",
                "watch"
            ]
        );
        assert_eq!(
            query.declared_by,
            BTreeMap::from([("shardSelector".to_owned(), 2)])
        );
        assert!(keys.contains(&query_key(older.iter())));
        assert!(
            !keys.contains(&query_key(odd.iter())),
            "`limit` as a string keeps its own"
        );
    }
}
