//! The generated route table (`kubeforge_api::routes::ROUTES`) against the endpoint tables: the
//! seed pages' counts, and exactly the parameters, actions and responses each operation
//! lists in `schemas/` (transcribed from the seed pages), read independently here with
//! serde_json. Also: synthesizing a resource's table from its group, version, plural, scope
//! and subresources gives the table read from the paths, and malformed operations are
//! located diagnostics.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use kubeforge::ErrorKind;
use kubeforge_api::api::coordination::v1::Lease;
use kubeforge_api::api::core::v1::Pod;
use kubeforge_api::routes::{ROUTES, Route};
use kubeforge_runtime::{Action, RouteInfo};
use kubeforge_tests::workspace_root;
use serde_json::{Value, json};

fn routes_of(kind: &str) -> Vec<&'static RouteInfo> {
    ROUTES
        .iter()
        .filter(|r| r.resource.is_some_and(|res| res.kind == kind))
        .collect()
}

#[test]
fn seed_resources_have_the_reference_pages_counts() {
    // (kind, paths, operations) from the seed pages' endpoint lists.
    let expected = [
        ("ImageStream", 7, 14),
        ("Pod", 9, 18),
        ("Endpoints", 6, 11),
        ("Lease", 6, 11),
    ];
    for (kind, paths, operations) in expected {
        let routes = routes_of(kind);
        let distinct: BTreeSet<&str> = routes.iter().map(|r| r.path).collect();
        assert_eq!(
            (distinct.len(), routes.len()),
            (paths, operations),
            "{kind}: (paths, operations)"
        );
    }
    assert_eq!(ROUTES.len(), 14 + 18 + 11 + 11, "no other operations");
}

/// Every operation of every document in `schemas/`: (method, path) → operation object,
/// with the path item's parameters merged in.
fn schema_operations() -> BTreeMap<(String, String), Value> {
    let dir = workspace_root().join("schemas");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("schemas/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    let mut operations = BTreeMap::new();
    for path in names {
        let document: Value =
            serde_json::from_slice(&std::fs::read(&path).expect("readable")).expect("JSON");
        for (template, item) in document["paths"].as_object().expect("paths") {
            let shared = item
                .get("parameters")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for (method, operation) in item.as_object().expect("path item") {
                if method == "parameters" {
                    continue;
                }
                let mut operation = operation.clone();
                let mut parameters = shared.clone();
                parameters.extend(
                    operation
                        .get("parameters")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default(),
                );
                operation["parameters"] = Value::Array(parameters);
                operations.insert((method.to_uppercase(), template.clone()), operation);
            }
        }
    }
    operations
}

fn parameter_names(operation: &Value, location: &str) -> Vec<String> {
    let mut names: Vec<String> = operation["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .filter(|p| p["in"] == location)
        .map(|p| p["name"].as_str().expect("name").to_owned())
        .collect();
    if location == "query" {
        names.sort();
    }
    names
}

#[test]
fn every_operation_has_exactly_the_listed_parameters_and_responses() {
    let expected = schema_operations();
    let actual: BTreeMap<(String, String), &RouteInfo> = ROUTES
        .iter()
        .map(|r| ((r.method.to_string(), r.path.to_owned()), r))
        .collect();
    assert_eq!(
        expected.keys().collect::<Vec<_>>(),
        actual.keys().collect::<Vec<_>>(),
        "the route table lists exactly the operations of schemas/"
    );
    for (key, operation) in &expected {
        let route = actual[key];
        let context = format!("{} {}", key.0, key.1);
        assert_eq!(route.operation_id, operation["operationId"], "{context}");
        let query: Vec<&str> = route.query.iter().map(|q| q.name).collect();
        assert_eq!(
            query,
            parameter_names(operation, "query"),
            "{context}: query"
        );
        for q in route.query {
            let declared = operation["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == q.name && p["in"] == "query")
                .unwrap();
            assert_eq!(q.ty, declared["schema"]["type"], "{context}: {}", q.name);
            assert_eq!(
                q.description, declared["description"],
                "{context}: {}",
                q.name
            );
            assert!(!q.required, "{context}: {}", q.name);
        }
        // Path parameters in template order.
        let mut in_template: Vec<&str> = route
            .path
            .split('/')
            .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .collect();
        assert_eq!(route.path_params, in_template.as_slice(), "{context}");
        in_template.sort_unstable();
        let mut declared = parameter_names(operation, "path");
        declared.sort();
        assert_eq!(in_template, declared, "{context}: declared path parameters");
        // Actions in Kubernetes' vocabulary.
        let action = match operation["x-kubernetes-action"].as_str().unwrap() {
            "get" => Action::Get,
            "list" => Action::List,
            "watch" | "watchlist" => Action::Watch,
            "post" => Action::Create,
            "put" => Action::Replace,
            "patch" => Action::Patch,
            "delete" => Action::Delete,
            "deletecollection" => Action::DeleteCollection,
            other => panic!("{context}: unexpected action {other}"),
        };
        assert_eq!(route.action, action, "{context}");
        assert_eq!(
            route.deprecated,
            route.path.contains("/watch/"),
            "{context}"
        );
        // Responses: every declared status, empty exactly where no content is declared.
        let declared: Vec<(u16, bool)> = operation["responses"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(code, r)| (code.parse().unwrap(), r.get("content").is_some()))
            .collect();
        let listed: Vec<(u16, bool)> = route
            .responses
            .iter()
            .map(|r| (r.status, r.ty.is_some()))
            .collect();
        assert_eq!(listed, declared, "{context}: responses");
        // Bodies and their content types.
        let body_types: Option<Vec<String>> = operation
            .get("requestBody")
            .map(|b| b["content"].as_object().unwrap().keys().cloned().collect());
        let listed = route
            .body
            .map(|b| b.content_types.iter().map(|t| (*t).to_owned()).collect());
        assert_eq!(listed, body_types, "{context}: body content types");
    }
}

#[test]
fn pod_log_and_collection_deletes_match_the_reference_pages() {
    let log = Route::ReadCoreV1NamespacedPodLog.info();
    assert_eq!(log.path, "/api/v1/namespaces/{namespace}/pods/{name}/log");
    assert_eq!(
        log.query.iter().map(|q| q.name).collect::<Vec<_>>(),
        [
            "container",
            "follow",
            "insecureSkipTLSVerifyBackend",
            "limitBytes",
            "pretty",
            "previous",
            "sinceSeconds",
            "tailLines",
            "timestamps"
        ]
    );
    assert_eq!(log.responses[0].status, 200);
    assert_eq!(log.responses[0].ty, Some("String"));
    assert_eq!(log.resource.unwrap().subresource, Some("log"));

    let subresources: BTreeSet<Option<&str>> = routes_of("Pod")
        .iter()
        .map(|r| r.resource.unwrap().subresource)
        .collect();
    assert_eq!(
        subresources,
        BTreeSet::from([
            None,
            Some("ephemeralcontainers"),
            Some("log"),
            Some("status")
        ])
    );

    let collection = [
        "continue",
        "dryRun",
        "fieldSelector",
        "gracePeriodSeconds",
        "labelSelector",
        "limit",
        "orphanDependents",
        "pretty",
        "propagationPolicy",
        "resourceVersion",
        "resourceVersionMatch",
        "sendInitialEvents",
        "timeoutSeconds",
    ];
    let names = |route: Route| {
        route
            .info()
            .query
            .iter()
            .map(|q| q.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(Route::DeleteCoordinationV1CollectionNamespacedLease),
        collection
    );
    // The Pod page does not list sendInitialEvents for its collection delete.
    let without: Vec<&str> = collection
        .iter()
        .copied()
        .filter(|n| *n != "sendInitialEvents")
        .collect();
    assert_eq!(names(Route::DeleteCoreV1CollectionNamespacedPod), without);

    let patch = Route::PatchCoordinationV1NamespacedLease.info();
    let body = patch.body.unwrap();
    for content_type in [
        "application/json-patch+json",
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
        "application/apply-patch+yaml",
    ] {
        assert!(body.content_types.contains(&content_type));
    }
    let create = Route::CreateCoreV1NamespacedPod.info();
    assert_eq!(
        create
            .responses
            .iter()
            .map(|r| (r.status, r.description, r.ty))
            .collect::<Vec<_>>(),
        [
            (200, "OK", Some("api::core::v1::Pod")),
            (201, "Created", Some("api::core::v1::Pod")),
            (202, "Accepted", Some("api::core::v1::Pod")),
            (401, "Unauthorized", None),
        ]
    );
}

#[test]
fn resource_tables_follow_the_reference_order() {
    let lease: Vec<&str> = Lease::ROUTES.iter().map(|r| r.info().path).collect();
    let prefix = "/apis/coordination.k8s.io/v1";
    let paths: Vec<String> = [
        "/leases",
        "/watch/leases",
        "/namespaces/{namespace}/leases",
        "/namespaces/{namespace}/leases",
        "/namespaces/{namespace}/leases",
        "/watch/namespaces/{namespace}/leases",
        "/namespaces/{namespace}/leases/{name}",
        "/namespaces/{namespace}/leases/{name}",
        "/namespaces/{namespace}/leases/{name}",
        "/namespaces/{namespace}/leases/{name}",
        "/watch/namespaces/{namespace}/leases/{name}",
    ]
    .iter()
    .map(|p| format!("{prefix}{p}"))
    .collect();
    assert_eq!(lease, paths);
    assert_eq!(Pod::ROUTES.len(), 18);
    for (i, route) in Route::ALL.iter().enumerate() {
        assert_eq!(route.info(), &ROUTES[i]);
    }
}

fn model_error(paths: Value) -> kubeforge::Error {
    let document = json!({
        "openapi": "3.0.0",
        "info": {"title": "t", "version": "v1"},
        "paths": paths,
        "components": {"schemas": {}}
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(&path, document.to_string()).unwrap();
    kubeforge::Config::new()
        .input_named(&path, "bad.json")
        .model()
        .expect_err("malformed operations are refused")
}

#[test]
fn malformed_operations_are_located_diagnostics() {
    // A path parameter the template does not have.
    let e = model_error(json!({
        "/apis/x/v1/things": {"get": {"operationId": "list", "parameters": [
            {"name": "name", "in": "path", "required": true, "schema": {"type": "string"}}
        ], "responses": {}}}
    }));
    let d = &e.diagnostics()[0];
    assert_eq!(d.kind, ErrorKind::InvalidOperation);
    assert_eq!(d.origin.file, Path::new("bad.json"));
    assert_eq!(
        d.origin.pointer,
        "/paths/~1apis~1x~1v1~1things/get/parameters/0"
    );
    assert!(d.message.contains("`name`"), "{d}");

    // The same operationId twice.
    let e = model_error(json!({
        "/a": {"get": {"operationId": "same", "responses": {}}},
        "/b": {"get": {"operationId": "same", "responses": {}}}
    }));
    assert_eq!(e.kinds(), [ErrorKind::InvalidOperation]);
    assert_eq!(
        e.diagnostics()[0].origin.pointer,
        "/paths/~1b/get/operationId"
    );
    assert!(e.diagnostics()[0].message.contains("/paths/~1a/get"), "{e}");

    // A parameter that is not a whole segment, a bad status, a dangling body reference: all
    // reported together (an unknown action is no error: `unknown_actions_are_kept`).
    let e = model_error(json!({
        "/a/{name}.json": {"get": {"operationId": "one", "responses": {}}},
        "/c": {"get": {"operationId": "three", "responses": {"2000": {"description": "?"}}}},
        "/d": {"post": {"operationId": "four", "requestBody": {"content": {"*/*": {"schema": {"$ref": "#/components/schemas/Nope"}}}}, "responses": {}}}
    }));
    assert_eq!(
        e.kinds(),
        [
            ErrorKind::InvalidOperation,
            ErrorKind::InvalidOperation,
            ErrorKind::DanglingRef
        ],
        "{e}"
    );
    let pointers: Vec<&str> = e
        .diagnostics()
        .iter()
        .map(|d| d.origin.pointer.as_str())
        .collect();
    assert_eq!(
        pointers,
        [
            "/paths/~1a~1{name}.json/get",
            "/paths/~1c/get/responses/2000",
            "/paths/~1d/post/requestBody/content/*~1*/schema/$ref",
        ]
    );
}

/// Kubernetes ≤ 1.9 and OpenShift 3 declare `x-kubernetes-action: proxy`; a newer Kubernetes
/// may add actions. Each becomes an operation with `Action::Other` and a note in its docs,
/// never an error; HEAD and OPTIONS operations are kept.
#[test]
fn unknown_actions_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("legacy.json");
    let document = json!({
        "openapi": "3.0.0",
        "info": {"title": "legacy", "version": "v1"},
        "paths": {
            "/api/v1/proxy/namespaces/{namespace}/pods/{name}": {
                "parameters": [
                    {"name": "name", "in": "path", "required": true, "schema": {"type": "string"}},
                    {"name": "namespace", "in": "path", "required": true, "schema": {"type": "string"}}
                ],
                "get": {"operationId": "proxyCoreV1GETNamespacedPod", "description": "proxy GET requests to Pod", "x-kubernetes-action": "proxy", "responses": {"200": {"description": "OK", "content": {"*/*": {"schema": {"type": "string"}}}}}},
                "head": {"operationId": "proxyCoreV1HEADNamespacedPod", "x-kubernetes-action": "proxy", "responses": {"200": {"description": "OK"}}},
                "options": {"operationId": "proxyCoreV1OPTIONSNamespacedPod", "x-kubernetes-action": "proxy", "responses": {"200": {"description": "OK"}}}
            },
            "/apis/x.io/v1/things": {
                "get": {"operationId": "teleportXV1Thing", "x-kubernetes-action": "teleport", "responses": {"200": {"description": "OK"}}}
            }
        }
    });
    std::fs::write(&path, document.to_string()).unwrap();
    let api = kubeforge::Config::new()
        .input_named(&path, "legacy.json")
        .model()
        .unwrap();
    let actions: Vec<(&str, String)> = api
        .operations()
        .map(|op| (op.method(), op.action().to_owned()))
        .collect();
    assert_eq!(
        actions,
        [
            ("GET", "proxy".to_owned()),
            ("HEAD", "proxy".to_owned()),
            ("OPTIONS", "proxy".to_owned()),
            ("GET", "teleport".to_owned()),
        ]
    );
    let get = api.operations().next().unwrap();
    let docs = get.description().unwrap();
    assert!(docs.starts_with("proxy GET requests to Pod"), "{docs}");
    assert!(docs.contains("`x-kubernetes-action` is `proxy`"), "{docs}");
}

/// The query struct names of every operation (and of the watch on each list path), by
/// operation ID.
fn query_names(inputs: &[&str]) -> BTreeMap<String, (Option<String>, Option<String>)> {
    let mut config = kubeforge::Config::new();
    for input in inputs {
        config = config.input(workspace_root().join("schemas").join(input));
    }
    let api = config.model().unwrap();
    api.operations()
        .map(|op| {
            (
                op.id().to_owned(),
                (
                    op.query_type().map(str::to_owned),
                    op.watch_query_type().map(str::to_owned),
                ),
            )
        })
        .collect()
}

/// Adding an input document never renames a query struct of the others: a shared struct's
/// name is the kind of its operations (OpenShift's list parameters, without
/// `sendInitialEvents`, and Kubernetes' are both `ListOrWatchQuery`; named after the
/// parameter sets they once were `ListOrWatchQuery2`, then
/// `ListOrWatchQueryWithoutSendInitialEvents`).
#[test]
fn query_struct_names_do_not_depend_on_other_inputs() {
    for (alone, extra) in [
        ("coordination.k8s.io_v1.json", "image.openshift.io_v1.json"),
        ("image.openshift.io_v1.json", "coordination.k8s.io_v1.json"),
        ("core_v1.json", "image.openshift.io_v1.json"),
    ] {
        let before = query_names(&[alone]);
        let after = query_names(&[extra, alone]);
        let mut shared = 0;
        for (id, names) in &before {
            assert_eq!(Some(names), after.get(id), "{id} in {alone} with {extra}");
            shared += 1;
        }
        assert!(shared > 10, "{alone}: {shared}");
    }
    let names = query_names(&["image.openshift.io_v1.json"]);
    assert_eq!(
        names["listImageOpenshiftIoV1NamespacedImageStream"],
        (
            Some("ListOrWatchQuery".to_owned()),
            Some("WatchQuery".to_owned())
        )
    );
    let names = query_names(&["coordination.k8s.io_v1.json"]);
    assert_eq!(
        names["listCoordinationV1NamespacedLease"],
        (
            Some("ListOrWatchQuery".to_owned()),
            Some("WatchQuery".to_owned())
        )
    );
}

/// `generated/` has no numbered query struct left.
#[test]
fn generated_has_no_numbered_query_structs() {
    let query =
        std::fs::read_to_string(workspace_root().join("generated/src/routes/query.rs")).unwrap();
    for line in query.lines().filter(|l| l.starts_with("pub struct ")) {
        let name = line["pub struct ".len()..]
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap();
        assert!(
            !name
                .trim_end_matches("Builder")
                .ends_with(|c: char| c.is_ascii_digit()),
            "{name}"
        );
    }
}
