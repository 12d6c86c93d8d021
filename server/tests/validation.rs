//! The server validates as the API server does, through its HTTP API in process: one server
//! for the file, serving Kubernetes' own `api/v1`, `apps/v1` and `rbac.authorization.k8s.io/v1`
//! documents, Istio's published CRDs and Gateway API's HTTPRoute CRD (all from
//! `../shared`; missing, the tests say SKIPPED, and fail under `CI`).
//!
//! - Istio's own invalid examples are each refused with the text a real API server gives
//!   (their `_err`, or where the API server decodes them differently from Istio's own
//!   validator, `examples::DECODED_DIFFERENTLY`), its valid ones created.
//! - Object names by each resource's rule, `generateName`, labels; the 422 `Status` with
//!   its causes.
//! - `fieldValidation` `Strict`, `Warn` (the default) and `Ignore` on create, update and
//!   patch, for a built-in kind and a custom resource: unknown and duplicate fields.
//! - A custom resource's defaults on create, update and apply, and who owns them in
//!   `managedFields`; pruning; `1.0` stored as `1`; the status subresource validated.

use std::path::PathBuf;
use std::sync::OnceLock;

use http::{Method, Request};
use http_body_util::BodyExt;
use kubeforge_server::{Catalog, Server};
use serde_json::{Value, json};

const CORE: [&str; 4] = [
    "kubernetes/v3/api__v1_openapi.json",
    "kubernetes/v3/apis__apps__v1_openapi.json",
    "kubernetes/v3/apis__rbac.authorization.k8s.io__v1_openapi.json",
    "crds/gateway-api-HTTPRoute.yaml",
];

/// The documents of the server, or `None` after `test`'s `SKIPPED` (a failure under `CI`).
fn documents(test: &str) -> Option<Vec<PathBuf>> {
    let corpus = kubeforge_tests::corpus(test, &CORE)?;
    let istio = kubeforge_tests::validation_data(
        test,
        &["istio/customresourcedefinitions.gen.yaml", "istio/testdata"],
    )?;
    let mut inputs: Vec<PathBuf> = CORE.iter().map(|d| corpus.join(d)).collect();
    inputs.push(istio.join("istio/customresourcedefinitions.gen.yaml"));
    Some(inputs)
}

/// The server of this file, or `None` when its documents are missing (outside CI): then
/// every test that asks says `SKIPPED`, not only the first.
fn server(test: &str) -> Option<&'static Server> {
    static SERVER: OnceLock<Option<Server>> = OnceLock::new();
    let mut looked = false;
    let server = SERVER
        .get_or_init(|| {
            looked = true;
            let inputs = documents(test)?;
            Some(Server::new(Catalog::from_documents(&inputs).unwrap()))
        })
        .as_ref();
    if server.is_none() && !looked {
        let _ = documents(test);
    }
    server
}

/// An answer: its code, its body, and its `Warning` headers.
struct Answer {
    code: u16,
    body: Value,
    warnings: Vec<String>,
}

impl Answer {
    /// The `Status` message of a refusal.
    fn message(&self) -> &str {
        self.body["message"].as_str().unwrap_or("")
    }
}

fn send(server: &Server, method: Method, uri: &str, content_type: &str, body: &str) -> Answer {
    let (parts, ()) = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", content_type)
        .header("user-agent", "validation-test/1.0")
        .body(())
        .unwrap()
        .into_parts();
    let response = server.handle(&parts, body.as_bytes());
    let code = response.status().as_u16();
    let warnings = response
        .headers()
        .get_all(http::header::WARNING)
        .iter()
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .collect();
    let bytes = futures::executor::block_on(response.into_body().collect())
        .unwrap()
        .to_bytes();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Answer {
        code,
        body,
        warnings,
    }
}

fn post(server: &Server, uri: &str, body: &Value) -> Answer {
    send(
        server,
        Method::POST,
        uri,
        "application/json",
        &body.to_string(),
    )
}

fn get(server: &Server, uri: &str) -> Value {
    let answer = send(server, Method::GET, uri, "application/json", "");
    assert_eq!(answer.code, 200, "{}", answer.body);
    answer.body
}

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";
const SERVICE_ENTRIES: &str = "/apis/networking.istio.io/v1/namespaces/default/serviceentries";
const ROUTES: &str = "/apis/gateway.networking.k8s.io/v1/namespaces/default/httproutes";

/// The plural of a served kind.
fn plural(server: &Server, api_version: &str, kind: &str) -> String {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    server
        .catalog()
        .resources()
        .iter()
        .find(|r| r.group == group && r.version == version && r.kind == kind)
        .unwrap_or_else(|| panic!("no resource for {api_version} {kind}"))
        .plural
        .clone()
}

#[test]
fn istio_examples_through_the_http_api() {
    let test = "istio_examples_through_the_http_api";
    let Some(server) = server(test) else { return };
    let Some(dir) = kubeforge_tests::validation_data(test, &["istio/testdata"]) else {
        return;
    };
    judge_istio_examples(test, server, &dir);
}

/// Istio's CRDs created through the API (`POST` each, as `kubectl apply` does) on a server
/// that started without them are established at once and judge Istio's examples exactly as
/// the CRDs given at start do.
#[test]
fn istio_examples_with_the_crds_created_through_the_api() {
    let test = "istio_examples_with_the_crds_created_through_the_api";
    let Some(corpus) = kubeforge_tests::corpus(test, &CORE) else {
        return;
    };
    let Some(dir) = kubeforge_tests::validation_data(
        test,
        &["istio/customresourcedefinitions.gen.yaml", "istio/testdata"],
    ) else {
        return;
    };
    let mut inputs: Vec<PathBuf> = CORE.iter().map(|d| corpus.join(d)).collect();
    inputs.push(corpus.join("kubernetes/v3/apis__apiextensions.k8s.io__v1_openapi.json"));
    let server = Server::new(Catalog::from_documents(&inputs).unwrap());
    let text =
        std::fs::read_to_string(dir.join("istio/customresourcedefinitions.gen.yaml")).unwrap();
    let crds: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
    let mut created = 0;
    for crd in crds
        .iter()
        .filter(|c| c["kind"] == "CustomResourceDefinition")
    {
        let name = crd["metadata"]["name"].as_str().unwrap();
        let answer = post(
            &server,
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            crd,
        );
        assert_eq!(answer.code, 201, "{name}: {}", answer.body);
        // Established when the create has answered: no wait.
        let stored = get(
            &server,
            &format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"),
        );
        let conditions = stored["status"]["conditions"].as_array().unwrap();
        for ty in ["NamesAccepted", "Established"] {
            assert!(
                conditions
                    .iter()
                    .any(|c| c["type"] == ty && c["status"] == "True"),
                "{name}: {ty}: {conditions:?}"
            );
        }
        created += 1;
    }
    assert!(created >= 14, "{created} Istio CRDs");
    judge_istio_examples(test, &server, &dir);
}

/// Posts each of Istio's examples (`dir/istio/testdata`) and checks the answer: the
/// invalid ones refused with the API server's text, the valid ones created.
fn judge_istio_examples(test: &str, server: &Server, dir: &std::path::Path) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("istio/testdata"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let (mut refused, mut invalid, mut accepted, mut valid) = (0, 0, 0, 0);
    let mut wrong = Vec::new();
    for (f, file) in files.iter().enumerate() {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let is_invalid = name.contains("-invalid");
        for (i, (expected, object)) in kubeforge_tests::examples::examples(file)
            .into_iter()
            .enumerate()
        {
            // `#_err: "TODO"`: Istio has no text for it yet.
            if is_invalid && expected.is_none() {
                continue;
            }
            // Each example in a namespace of its own, so that names never collide.
            let namespace = match object
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
            {
                Some(namespace) => namespace.to_owned(),
                None => {
                    let namespace = format!("istio-{f}-{i}");
                    let made = post(
                        server,
                        "/api/v1/namespaces",
                        &json!({"metadata": {"name": namespace}}),
                    );
                    assert_eq!(made.code, 201, "{}", made.body);
                    namespace
                }
            };
            let api_version = object["apiVersion"].as_str().unwrap();
            let plural = plural(server, api_version, object["kind"].as_str().unwrap());
            let uri = format!(
                "/apis/{api_version}/namespaces/{namespace}/{plural}?fieldValidation=Strict"
            );
            let answer = post(server, &uri, &object);
            match expected {
                Some(expected) => {
                    invalid += 1;
                    let expected = kubeforge_tests::examples::api_server_error(&name, &expected);
                    let causes = answer.body["details"]["causes"].as_array();
                    if answer.code == 422
                        && answer.body["reason"] == "Invalid"
                        && answer.message().contains(expected)
                        && causes.is_some_and(|c| !c.is_empty())
                    {
                        refused += 1;
                    } else {
                        wrong.push(format!(
                            "{name} #{i}: expected 422 with {expected:?}, got {} {}",
                            answer.code,
                            answer.message()
                        ));
                    }
                }
                None => {
                    valid += 1;
                    if answer.code == 201 {
                        accepted += 1;
                    } else {
                        wrong.push(format!(
                            "{name} #{i}: a valid object refused: {} {}",
                            answer.code,
                            answer.message()
                        ));
                    }
                }
            }
        }
    }
    kubeforge_tests::notice(&format!(
        "{test}: {refused} of {invalid} invalid Istio examples refused with the expected text, {accepted} of {valid} valid ones created"
    ));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(
        invalid >= 70 && valid >= 30,
        "{invalid} invalid, {valid} valid"
    );
}

const SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

#[test]
fn names_are_checked_by_each_resources_rule() {
    let Some(server) = server("names_are_checked_by_each_resources_rule") else {
        return;
    };
    let answer = post(
        server,
        CONFIGMAPS,
        &json!({"metadata": {"name": "BAD_NAME"}, "data": {"a": "b"}}),
    );
    assert_eq!(answer.code, 422, "{}", answer.body);
    assert_eq!(
        answer.body,
        json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": format!("ConfigMap \"BAD_NAME\" is invalid: metadata.name: Invalid value: \"BAD_NAME\": {SUBDOMAIN}"),
            "reason": "Invalid",
            "details": {
                "name": "BAD_NAME",
                "kind": "ConfigMap",
                "causes": [{
                    "reason": "FieldValueInvalid",
                    "message": format!("Invalid value: \"BAD_NAME\": {SUBDOMAIN}"),
                    "field": "metadata.name",
                }],
            },
            "code": 422,
        })
    );
    // A namespace's name is a DNS-1123 label, a Service's a DNS-1035 label, a
    // ClusterRole's one path segment; a prefix may end with a dash.
    let namespace = post(
        server,
        "/api/v1/namespaces",
        &json!({"metadata": {"name": "team.a"}}),
    );
    assert_eq!(
        namespace.message(),
        "Namespace \"team.a\" is invalid: metadata.name: Invalid value: \"team.a\": must not contain dots"
    );
    let service = post(
        server,
        "/api/v1/namespaces/default/services",
        &json!({"metadata": {"name": "1web"}, "spec": {"ports": [{"port": 80}]}}),
    );
    assert_eq!(
        service.message(),
        "Service \"1web\" is invalid: metadata.name: Invalid value: \"1web\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
    );
    let role = post(
        server,
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        &json!({"metadata": {"name": "system:validation-test"}, "rules": []}),
    );
    assert_eq!(role.code, 201, "{}", role.body);
    let role = post(
        server,
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        &json!({"metadata": {"name": "a/b"}, "rules": []}),
    );
    assert_eq!(
        role.message(),
        "ClusterRole.rbac.authorization.k8s.io \"a/b\" is invalid: metadata.name: Invalid value: \"a/b\": may not contain '/'"
    );
    let generated = post(
        server,
        CONFIGMAPS,
        &json!({"metadata": {"generateName": "web-"}}),
    );
    assert_eq!(generated.code, 201, "{}", generated.body);
    let generated = post(
        server,
        CONFIGMAPS,
        &json!({"metadata": {"generateName": "Web_"}}),
    );
    assert_eq!(generated.code, 422, "{}", generated.body);
    let fields: Vec<&Value> = generated.body["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["field"])
        .collect();
    assert_eq!(fields, ["metadata.generateName", "metadata.name"]);
    // Every error at once: the name, a label, and the schema's own.
    let pod = post(
        server,
        "/api/v1/namespaces/default/pods",
        &json!({
            "metadata": {"name": "Pod1", "labels": {"app": "-x"}},
            "spec": {"containers": [{"image": "nginx"}]},
        }),
    );
    let causes: Vec<(&str, &str)> = pod.body["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["field"].as_str().unwrap(), c["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        causes,
        [
            ("metadata.name", "FieldValueInvalid"),
            ("metadata.labels", "FieldValueInvalid"),
            ("spec.containers[0].name", "FieldValueRequired"),
        ],
        "{}",
        pod.body
    );
    assert!(
        pod.message()
            .starts_with("Pod \"Pod1\" is invalid: [metadata.name: Invalid value: \"Pod1\": ")
            && pod
                .message()
                .ends_with(", spec.containers[0].name: Required value]"),
        "{}",
        pod.message()
    );
}

#[test]
fn field_validation_strict_warn_and_ignore() {
    let Some(server) = server("field_validation_strict_warn_and_ignore") else {
        return;
    };
    let with_foo =
        |name: &str| json!({"metadata": {"name": name, "bar": 1}, "data": {"a": "b"}, "foo": "x"});
    let strict = post(
        server,
        &format!("{CONFIGMAPS}?fieldValidation=Strict"),
        &with_foo("strict"),
    );
    assert_eq!(
        (strict.code, strict.body["reason"].as_str()),
        (400, Some("BadRequest"))
    );
    // In the order the decoder meets them in the body.
    assert_eq!(
        strict.message(),
        r#"ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.bar", unknown field "foo""#
    );
    // Warn is the default: the object is made without the unknown fields.
    for (query, name) in [("?fieldValidation=Warn", "warn"), ("", "default")] {
        let warn = post(server, &format!("{CONFIGMAPS}{query}"), &with_foo(name));
        assert_eq!(warn.code, 201, "{}", warn.body);
        assert_eq!(
            warn.warnings,
            [
                r#"299 - "unknown field \"metadata.bar\"""#,
                r#"299 - "unknown field \"foo\"""#
            ]
        );
        assert!(warn.body.get("foo").is_none() && warn.body["metadata"].get("bar").is_none());
    }
    let ignore = post(
        server,
        &format!("{CONFIGMAPS}?fieldValidation=Ignore"),
        &with_foo("ignore"),
    );
    assert_eq!(ignore.code, 201, "{}", ignore.body);
    assert!(ignore.warnings.is_empty());
    assert!(
        get(server, &format!("{CONFIGMAPS}/ignore"))
            .get("foo")
            .is_none()
    );
    // Duplicate keys, found in the text of the body.
    let duplicate = send(
        server,
        Method::POST,
        &format!("{CONFIGMAPS}?fieldValidation=Strict"),
        "application/json",
        r#"{"metadata": {"name": "dup"}, "data": {"a": "1", "a": "2"}}"#,
    );
    assert_eq!(
        duplicate.message(),
        r#"ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.a""#
    );
    let bogus = post(
        server,
        &format!("{CONFIGMAPS}?fieldValidation=strict"),
        &with_foo("bogus"),
    );
    assert_eq!(
        bogus.message(),
        r#"CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn""#
    );
    // A custom resource: pruned to its schema, its metadata decoded as ObjectMeta.
    let entry = json!({
        "apiVersion": "networking.istio.io/v1", "kind": "ServiceEntry",
        "metadata": {"name": "strict-entry", "bogus": true},
        "spec": {"hosts": ["a.example.com"], "resolution": "DNS", "foo": 1, "ports": [{"number": 80, "name": "http", "bar": 2}]},
    });
    let strict = post(
        server,
        &format!("{SERVICE_ENTRIES}?fieldValidation=Strict"),
        &entry,
    );
    assert_eq!(
        strict.message(),
        r#"ServiceEntry in version "v1" cannot be handled as a ServiceEntry: strict decoding error: unknown field "metadata.bogus", unknown field "spec.foo", unknown field "spec.ports[0].bar""#
    );
    let warned = post(server, SERVICE_ENTRIES, &entry);
    assert_eq!(warned.code, 201, "{}", warned.body);
    assert_eq!(warned.warnings.len(), 3);
    assert_eq!(
        warned.body["spec"],
        json!({"hosts": ["a.example.com"], "resolution": "DNS", "ports": [{"number": 80, "name": "http"}]})
    );
    // Updates say it as creates do; patches in their own words.
    let mut update = get(server, &format!("{CONFIGMAPS}/warn"));
    update["foo"] = json!("y");
    let put = send(
        server,
        Method::PUT,
        &format!("{CONFIGMAPS}/warn?fieldValidation=Strict"),
        "application/json",
        &update.to_string(),
    );
    assert_eq!(
        put.message(),
        r#"ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "foo""#
    );
    let patch = send(
        server,
        Method::PATCH,
        &format!("{CONFIGMAPS}/warn?fieldValidation=Strict"),
        "application/strategic-merge-patch+json",
        r#"{"foo": "y", "data": {"b": "c"}}"#,
    );
    assert_eq!(
        patch.message(),
        r#" "" is invalid: patch: Invalid value: "map[data:map[b:c] foo:y]": strict decoding error: unknown field "foo""#
    );
    assert_eq!(
        patch.body["details"],
        json!({"causes": [{
            "reason": "FieldValueInvalid",
            "message": r#"Invalid value: "map[data:map[b:c] foo:y]": strict decoding error: unknown field "foo""#,
            "field": "patch",
        }]})
    );
    let stored = get(server, &format!("{SERVICE_ENTRIES}/strict-entry"));
    let merge = send(
        server,
        Method::PATCH,
        &format!("{SERVICE_ENTRIES}/strict-entry?fieldValidation=Strict"),
        "application/merge-patch+json",
        r#"{"spec": {"foo": 1}}"#,
    );
    let mut patched = stored.clone();
    patched["spec"]["foo"] = json!(1);
    assert_eq!(
        merge.message(),
        format!(
            r#" "" is invalid: patch: Invalid value: {}: strict decoding error: unknown field "spec.foo""#,
            kubeforge_runtime::schema::gofmt::quote(&kubeforge_runtime::schema::gofmt::json(
                &patched
            ))
        )
    );
    let warned = send(
        server,
        Method::PATCH,
        &format!("{SERVICE_ENTRIES}/strict-entry"),
        "application/merge-patch+json",
        r#"{"spec": {"foo": 1, "exportTo": ["."]}}"#,
    );
    assert_eq!(warned.code, 200, "{}", warned.body);
    assert_eq!(warned.warnings, [r#"299 - "unknown field \"spec.foo\"""#]);
    assert_eq!(warned.body["spec"]["exportTo"], json!(["."]));
}

#[test]
fn custom_resources_are_defaulted_and_their_creators_own_the_defaults() {
    let Some(server) = server("custom_resources_are_defaulted_and_their_creators_own_the_defaults")
    else {
        return;
    };
    let route = |name: &str| {
        json!({
            "apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
            "metadata": {"name": name},
            "spec": {"parentRefs": [{"name": "gw"}]},
        })
    };
    // Gateway API's documented defaults: a parent is a Gateway, a route without rules
    // matches every path.
    let defaults = json!({
        "parentRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"}],
        "rules": [{"matches": [{"path": {"type": "PathPrefix", "value": "/"}}]}],
    });
    let created = post(
        server,
        &format!("{ROUTES}?fieldManager=maker"),
        &route("made"),
    );
    assert_eq!(created.code, 201, "{}", created.body);
    assert_eq!(created.body["spec"], defaults);
    assert_eq!(get(server, &format!("{ROUTES}/made"))["spec"], defaults);
    // Decoding defaults the object before field management sees it: the creator owns
    // what defaulting added, as on a real server.
    let fields = &created.body["metadata"]["managedFields"][0]["fieldsV1"];
    assert_eq!(
        fields,
        &json!({"f:spec": {".": {}, "f:parentRefs": {}, "f:rules": {}}})
    );
    // An update without the defaulted field gets it again.
    let mut update = created.body.clone();
    update["spec"].as_object_mut().unwrap().remove("rules");
    let put = send(
        server,
        Method::PUT,
        &format!("{ROUTES}/made"),
        "application/json",
        &update.to_string(),
    );
    assert_eq!(put.code, 200, "{}", put.body);
    assert_eq!(put.body["spec"], defaults);
    // An apply defaults after the merge: the applier owns what it applied only.
    let applied = send(
        server,
        Method::PATCH,
        &format!("{ROUTES}/applied?fieldManager=applier"),
        "application/apply-patch+yaml",
        &route("applied").to_string(),
    );
    assert_eq!(applied.code, 201, "{}", applied.body);
    assert_eq!(applied.body["spec"], defaults);
    assert_eq!(
        applied.body["metadata"]["managedFields"][0]["fieldsV1"],
        json!({"f:spec": {"f:parentRefs": {}}})
    );
    // A whole-number float is an integer, as Go writes it back.
    let entry = json!({
        "apiVersion": "networking.istio.io/v1", "kind": "ServiceEntry",
        "metadata": {"name": "float-port"},
        "spec": {"hosts": ["b.example.com"], "ports": [{"number": 80.0, "name": "http"}]},
    });
    let created = post(server, SERVICE_ENTRIES, &entry);
    assert_eq!(created.code, 201, "{}", created.body);
    assert_eq!(
        serde_json::to_string(&created.body["spec"]["ports"]).unwrap(),
        r#"[{"number":80,"name":"http"}]"#
    );
}

#[test]
fn status_writes_and_updates_are_validated() {
    let Some(server) = server("status_writes_and_updates_are_validated") else {
        return;
    };
    let route = json!({
        "apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
        "metadata": {"name": "with-status"},
        "spec": {"parentRefs": [{"name": "gw"}]},
    });
    assert_eq!(post(server, ROUTES, &route).code, 201);
    let mut object = get(server, &format!("{ROUTES}/with-status"));
    object["status"] = json!({"parents": [{"parentRef": {"name": "gw"}}]});
    let status = send(
        server,
        Method::PUT,
        &format!("{ROUTES}/with-status/status"),
        "application/json",
        &object.to_string(),
    );
    assert_eq!(status.code, 422, "{}", status.body);
    assert!(
        status
            .message()
            .starts_with("HTTPRoute.gateway.networking.k8s.io \"with-status\" is invalid: [status.parents[0].conditions: Required value, status.parents[0].controllerName: Required value"),
        "{}",
        status.message()
    );
    // A merge patch that breaks the spec is refused with the schema's message.
    let patch = send(
        server,
        Method::PATCH,
        &format!("{ROUTES}/with-status"),
        "application/merge-patch+json",
        r#"{"spec": {"hostnames": ["-bad-"]}}"#,
    );
    assert_eq!(patch.code, 422, "{}", patch.body);
    assert!(
        patch.message().contains(
            "spec.hostnames[0]: Invalid value: \"-bad-\": spec.hostnames[0] in body should match"
        ),
        "{}",
        patch.message()
    );
    // A required field missing: the CEL rules are not run, as the API server says.
    let entry = json!({
        "apiVersion": "networking.istio.io/v1", "kind": "ServiceEntry",
        "metadata": {"name": "no-hosts"},
        "spec": {"resolution": "DNS"},
    });
    let missing = post(server, SERVICE_ENTRIES, &entry);
    assert_eq!(
        missing.message(),
        "ServiceEntry.networking.istio.io \"no-hosts\" is invalid: [spec.hosts: Required value, <nil>: Invalid value: \"null\": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"
    );
}
