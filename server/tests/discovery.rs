//! Aggregated discovery (`apidiscovery.k8s.io/v2`) and metadata-only reads
//! (`PartialObjectMetadata`) as clients use them, on the catalog of Kubernetes 1.36's
//! `swagger.json` in the corpus: kube-rs's `Discovery::run_aggregated`, `get_metadata`,
//! `list_metadata`, `patch_metadata`, `watch_metadata` and a `watcher` of metadata against the
//! in-process server; the aggregated document compared with the plain documents for every
//! group-version; and real `kubectl` against the binary, which reads the aggregated
//! documents (two requests, `-v=8` shows them) where it reads one document a group-version
//! from a server without them.

use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};

use futures::{StreamExt, TryStreamExt};
use http::{HeaderMap, Method, Request};
use http_body_util::{BodyExt, Full};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kube::core::PartialObjectMeta;
use kube::core::PartialObjectMetaExt;
use kube::discovery::{Discovery, verbs};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, ResourceExt};
use kubeforge_server::{Catalog, Server};
use serde_json::Value;

/// What kubectl (since 1.30) and kube-rs send for `/api` and `/apis`.
const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const AGGREGATED_TYPE: &str =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

fn server(test: &str) -> Option<Server> {
    let corpus = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"])?;
    let catalog = Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap();
    Some(Server::new(catalog))
}

async fn raw(
    server: &Server,
    method: Method,
    uri: &str,
    headers: &[(&str, &str)],
) -> (u16, HeaderMap, Vec<u8>) {
    let mut request = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = server
        .call_async(request.body(Full::new(bytes::Bytes::new())).unwrap())
        .await;
    let code = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (code, headers, body.to_vec())
}

async fn get_json(server: &Server, uri: &str, accept: &str) -> Value {
    let (code, _, body) = raw(server, Method::GET, uri, &[("accept", accept)]).await;
    assert_eq!(code, 200, "{uri}: {}", String::from_utf8_lossy(&body));
    serde_json::from_slice(&body).unwrap()
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// One resource or subresource as a plain `APIResourceList` describes it: namespaced,
/// group, version, kind, verbs, short names, categories.
type Described = (
    bool,
    String,
    String,
    String,
    Vec<String>,
    Vec<String>,
    Vec<String>,
);

/// The resources of one aggregated group-version, in the plain documents' terms: a
/// resource's kind (whose group and version a built-in resource's plain entry leaves out,
/// as its `responseKind` does), each subresource under `<resource>/<subresource>`.
fn as_plain(version: &Value) -> BTreeMap<String, Described> {
    let mut out = BTreeMap::new();
    for resource in version["resources"].as_array().unwrap() {
        let name = resource["resource"].as_str().unwrap().to_owned();
        let namespaced = resource["scope"] == "Namespaced";
        let kind = &resource["responseKind"];
        out.insert(
            name.clone(),
            (
                namespaced,
                String::new(),
                String::new(),
                kind["kind"].as_str().unwrap().to_owned(),
                strings(&resource["verbs"]),
                strings(&resource["shortNames"]),
                strings(&resource["categories"]),
            ),
        );
        for sub in resource["subresources"].as_array().into_iter().flatten() {
            let kind = &sub["responseKind"];
            out.insert(
                format!("{name}/{}", sub["subresource"].as_str().unwrap()),
                (
                    namespaced,
                    kind["group"].as_str().unwrap().to_owned(),
                    kind["version"].as_str().unwrap().to_owned(),
                    kind["kind"].as_str().unwrap().to_owned(),
                    strings(&sub["verbs"]),
                    Vec::new(),
                    Vec::new(),
                ),
            );
        }
    }
    out
}

fn plain(list: &Value) -> BTreeMap<String, Described> {
    list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let text = |key: &str| r[key].as_str().unwrap_or("").to_owned();
            (
                text("name"),
                (
                    r["namespaced"] == true,
                    text("group"),
                    text("version"),
                    text("kind"),
                    strings(&r["verbs"]),
                    strings(&r["shortNames"]),
                    strings(&r["categories"]),
                ),
            )
        })
        .collect()
}

#[tokio::test]
async fn aggregated_discovery_says_what_the_plain_documents_say() {
    let Some(server) = server("aggregated_discovery") else {
        return;
    };

    // The answer's headers, as the API server's aggregated handler writes them.
    let (code, headers, body) = raw(&server, Method::GET, "/apis", &[("accept", AGGREGATED)]).await;
    assert_eq!(code, 200);
    assert_eq!(header(&headers, "content-type"), AGGREGATED_TYPE);
    assert_eq!(header(&headers, "vary"), "Accept");
    assert_eq!(header(&headers, "cache-control"), "public");
    let etag = header(&headers, "etag").to_owned();
    assert!(
        etag.len() == 130 && etag.starts_with('"') && etag.ends_with('"'),
        "{etag}"
    );
    let apis: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(apis["kind"], "APIGroupDiscoveryList");
    assert_eq!(apis["apiVersion"], "apidiscovery.k8s.io/v2");
    // A client that holds the document is told it has not changed.
    let (code, headers, body) = raw(
        &server,
        Method::GET,
        "/apis",
        &[("accept", AGGREGATED), ("if-none-match", &etag)],
    )
    .await;
    assert_eq!((code, body.len()), (304, 0));
    assert_eq!(header(&headers, "etag"), etag);
    // In protobuf when the first range asking for it says so (client-go with protobuf).
    let (code, headers, body) = raw(
        &server,
        Method::GET,
        "/apis",
        &[(
            "accept",
            "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json",
        )],
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(
        header(&headers, "content-type"),
        "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    );
    assert_eq!(
        header(&headers, "etag"),
        etag,
        "one ETag whatever the encoding"
    );
    assert!(body.starts_with(b"k8s\0"));
    let text = String::from_utf8_lossy(&body);
    for word in [
        "apidiscovery.k8s.io/v2",
        "APIGroupDiscoveryList",
        "deployments",
        "Namespaced",
        "Current",
    ] {
        assert!(text.contains(word), "{word} in the protobuf document");
    }

    // v2beta1 is no longer served: asked for alone, the plain handler refuses it.
    let (code, _, body) = raw(
        &server,
        Method::GET,
        "/apis",
        &[(
            "accept",
            "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
        )],
    )
    .await;
    assert_eq!(code, 406);
    let status: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        status["message"],
        "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"
    );

    // The documents of a group and of a group-version are plain only.
    let only_aggregated = [("accept", AGGREGATED_TYPE)];
    for path in ["/apis/apps", "/apis/apps/v1", "/api/v1"] {
        let (code, _, _) = raw(&server, Method::GET, path, &only_aggregated).await;
        assert_eq!(code, 406, "{path}");
        let (code, _, body) = raw(&server, Method::GET, path, &[("accept", AGGREGATED)]).await;
        let document: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(code, 200);
        assert!(document["kind"] == "APIGroup" || document["kind"] == "APIResourceList");
    }

    // The groups in the API server's order, in both documents.
    let names: Vec<&str> = apis["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names[..8],
        [
            "apiregistration.k8s.io",
            "apps",
            "events.k8s.io",
            "authentication.k8s.io",
            "authorization.k8s.io",
            "autoscaling",
            "batch",
            "certificates.k8s.io"
        ]
    );
    assert_eq!(names.len(), 22);
    let group_list = get_json(&server, "/apis", "application/json").await;
    let plain_names: Vec<&str> = group_list["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert_eq!(plain_names, names);

    // Every group-version: the same resources, kinds, verbs, short names, categories and
    // subresources as its APIResourceList.
    let api = get_json(&server, "/api", AGGREGATED).await;
    assert_eq!(api["items"].as_array().unwrap().len(), 1);
    assert_eq!(api["items"][0]["metadata"], serde_json::json!({}));
    let mut compared = 0;
    for group in api["items"]
        .as_array()
        .unwrap()
        .iter()
        .chain(apis["items"].as_array().unwrap())
    {
        let name = group["metadata"]["name"].as_str().unwrap_or("");
        let versions = group["versions"].as_array().unwrap();
        let plain_group = if name.is_empty() {
            get_json(&server, "/api", "application/json").await["versions"].clone()
        } else {
            let doc = get_json(&server, &format!("/apis/{name}"), "application/json").await;
            Value::Array(
                doc["versions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v["version"].clone())
                    .collect(),
            )
        };
        let order: Vec<&str> = versions
            .iter()
            .map(|v| v["version"].as_str().unwrap())
            .collect();
        assert_eq!(
            strings(&plain_group),
            order,
            "{name}: versions, preferred first"
        );
        for version in versions {
            assert_eq!(version["freshness"], "Current");
            let v = version["version"].as_str().unwrap();
            let path = if name.is_empty() {
                format!("/api/{v}")
            } else {
                format!("/apis/{name}/{v}")
            };
            let list = get_json(&server, &path, "application/json").await;
            assert_eq!(as_plain(version), plain(&list), "{path}");
            compared += 1;
        }
    }
    assert!(compared >= 35, "{compared} group-versions compared");

    // What no OpenAPI document says: the kinds subresources answer with.
    let core = as_plain(&api["items"][0]["versions"][0]);
    let kind = |name: &str| {
        let d = &core[name];
        (d.1.clone(), d.2.clone(), d.3.clone())
    };
    assert_eq!(
        kind("pods/eviction"),
        ("policy".into(), "v1".into(), "Eviction".into())
    );
    assert_eq!(
        kind("serviceaccounts/token"),
        (
            "authentication.k8s.io".into(),
            "v1".into(),
            "TokenRequest".into()
        )
    );
    assert_eq!(
        kind("pods/status"),
        (String::new(), String::new(), "Pod".into())
    );
    assert_eq!(
        kind("replicationcontrollers/scale"),
        ("autoscaling".into(), "v1".into(), "Scale".into())
    );
    assert_eq!(core["pods"].5, ["po"]);

    // kube-rs reads the same API from either.
    let client = Client::new(server.clone(), "default");
    let aggregated = Discovery::new(client.clone())
        .run_aggregated()
        .await
        .unwrap();
    let legacy = Discovery::new(client).run().await.unwrap();
    let groups = |d: &Discovery| -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = d
            .groups()
            .map(|g| {
                let mut kinds: Vec<String> = g
                    .resources_by_stability()
                    .into_iter()
                    .map(|(ar, caps)| {
                        format!("{}/{} {:?}", ar.api_version, ar.plural, caps.operations)
                    })
                    .collect();
                kinds.sort();
                (g.name().to_owned(), kinds)
            })
            .collect();
        out.sort();
        out
    };
    assert_eq!(groups(&aggregated), groups(&legacy));
    let apps = aggregated.get("apps").unwrap();
    let (deployment, caps) = apps.recommended_kind("Deployment").unwrap();
    assert_eq!(deployment.plural, "deployments");
    assert!(caps.supports_operation(verbs::LIST));
    assert!(
        aggregated
            .get("")
            .unwrap()
            .recommended_kind("Pod")
            .is_some()
    );
}

fn config_map(name: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some([("app".to_owned(), "meta".to_owned())].into()),
            ..ObjectMeta::default()
        },
        data: Some([("big".to_owned(), "x".repeat(64))].into()),
        ..ConfigMap::default()
    }
}

#[tokio::test]
async fn metadata_alone_on_get_list_patch_and_watch() {
    let Some(server) = server("metadata_reads") else {
        return;
    };
    let client = Client::new(server.clone(), "default");
    let maps: Api<ConfigMap> = Api::default_namespaced(client.clone());

    // An empty list's items are null, as Go writes the PartialObjectMetadataList (Secrets:
    // a new cluster's `default` namespace has a ConfigMap, `kube-root-ca.crt`, but none).
    let accept_list = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
    let empty = get_json(&server, "/api/v1/namespaces/default/secrets", accept_list).await;
    assert_eq!(empty["kind"], "PartialObjectMetadataList");
    assert!(empty["items"].is_null(), "{empty}");

    // A watch started now sees the objects as PartialObjectMetadata.
    let mut events = maps
        .watch_metadata(&WatchParams::default().labels("app=meta").timeout(5), "0")
        .await
        .unwrap()
        .boxed();
    let created = maps
        .create(&PostParams::default(), &config_map("first"))
        .await
        .unwrap();

    let meta = maps.get_metadata("first").await.unwrap();
    let types = meta.types.clone().unwrap();
    assert_eq!(
        (types.api_version.as_str(), types.kind.as_str()),
        ("meta.k8s.io/v1", "PartialObjectMetadata")
    );
    assert_eq!(meta.metadata, created.metadata);

    let list = maps
        .list_metadata(&ListParams::default().labels("app=meta"))
        .await
        .unwrap();
    assert_eq!(list.items.len(), 1);
    assert_eq!(list.items[0].name_any(), "first");
    assert_eq!(list.items[0].labels()["app"], "meta");
    assert!(list.metadata.resource_version.is_some());

    let patch = ObjectMeta {
        annotations: Some([("note".to_owned(), "1".to_owned())].into()),
        ..ObjectMeta::default()
    }
    .into_request_partial::<ConfigMap>();
    let patched = maps
        .patch_metadata("first", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    assert_eq!(patched.annotations()["note"], "1");
    assert_eq!(patched.types.unwrap().kind, "PartialObjectMetadata");

    let mut seen = Vec::new();
    while seen.len() < 2 {
        match events.try_next().await.unwrap().unwrap() {
            WatchEvent::Added(object) | WatchEvent::Modified(object) => {
                assert_eq!(object.types.as_ref().unwrap().kind, "PartialObjectMetadata");
                seen.push(object.annotations().get("note").cloned());
            }
            other => panic!("unexpected event {other:?}"),
        }
    }
    assert_eq!(seen, [None, Some("1".to_owned())]);

    // kube-rs's watcher on metadata (`metadata_watcher` before kube 5; what a controller on
    // metadata runs) lists, then watches.
    let metas: Api<PartialObjectMeta<ConfigMap>> = Api::default_namespaced(client);
    let mut applied = watcher(metas, watcher::Config::default().labels("app=meta"))
        .applied_objects()
        .boxed();
    assert_eq!(
        applied.try_next().await.unwrap().unwrap().name_any(),
        "first"
    );
    maps.create(&PostParams::default(), &config_map("second"))
        .await
        .unwrap();
    let next = applied.try_next().await.unwrap().unwrap();
    assert_eq!(next.name_any(), "second");
    assert_eq!(next.labels()["app"], "meta");

    // The API server's 406s: a list asked for as one object, and the other way round.
    let path = "/api/v1/namespaces/default/configmaps";
    let accept_one = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
    for (uri, accept, message) in [
        (
            path.to_owned(),
            accept_one,
            "you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)",
        ),
        (
            format!("{path}/first"),
            accept_list,
            "you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)",
        ),
    ] {
        let (code, _, body) = raw(&server, Method::GET, &uri, &[("accept", accept)]).await;
        let status: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            (code, status["reason"].as_str()),
            (406, Some("NotAcceptable"))
        );
        assert_eq!(status["message"], message);
    }

    // A watch asked for lists sends the objects as they are: the API server's transform
    // fails on each object, and its watch encoder sends the original.
    let (code, _, body) = raw(
        &server,
        Method::GET,
        &format!("{path}?watch=true&timeoutSeconds=1&labelSelector=app%3Dmeta"),
        &[("accept", accept_list)],
    )
    .await;
    assert_eq!(code, 200);
    let kinds: Vec<String> = String::from_utf8_lossy(&body)
        .lines()
        .map(|line| {
            let event: Value = serde_json::from_str(line).unwrap();
            event["object"]["kind"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(kinds, ["ConfigMap", "ConfigMap"]);

    // v1beta1, and a fallback after a range the server cannot serve.
    let beta = get_json(
        &server,
        &format!("{path}?labelSelector=app%3Dmeta"),
        "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1",
    )
    .await;
    assert_eq!(beta["apiVersion"], "meta.k8s.io/v1beta1");
    assert_eq!(beta["items"].as_array().unwrap().len(), 2);
    assert!(beta["items"][0].get("data").is_none());
    let fallback = get_json(
        &server,
        &format!("{path}/first"),
        "application/json;as=Widget;g=example.com;v=v1,application/json",
    )
    .await;
    assert_eq!(fallback["kind"], "ConfigMap");

    // In protobuf, as client-go's metadata informers ask for it.
    let (code, headers, body) = raw(
        &server,
        Method::GET,
        &format!("{path}/first"),
        &[(
            "accept",
            "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json",
        )],
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(
        header(&headers, "content-type"),
        "application/vnd.kubernetes.protobuf"
    );
    assert!(body.starts_with(b"k8s\0"));
    let text = String::from_utf8_lossy(&body);
    assert!(text.contains("meta.k8s.io/v1") && text.contains("PartialObjectMetadata"));
    assert!(!text.contains(&"x".repeat(64)), "the data is left out");
}

/// The server's URL from the kubeconfig the binary wrote.
fn served_address(server: &kubeforge_tests::kubectl_server::KubectlServer) -> String {
    let config = std::fs::read_to_string(server.dir().join("config")).unwrap();
    let url = config
        .lines()
        .find_map(|l| l.trim().strip_prefix("server: "))
        .unwrap()
        .trim()
        .to_owned();
    url.trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned()
}

/// A GET over the loopback socket, as any HTTP client sends it; the status line, headers
/// and body.
fn http_get(address: &str, path: &str, accept: &str) -> (String, String) {
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nAccept: {accept}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    (head.to_owned(), body.to_owned())
}

#[test]
fn kubectl_reads_the_aggregated_documents() {
    let Some(kubectl) = kubeforge_tests::kubectl("kubectl_aggregated_discovery") else {
        return;
    };
    let Some(corpus) =
        kubeforge_tests::corpus("kubectl_aggregated_discovery", &["kubernetes/swagger.json"])
    else {
        return;
    };
    // Plain HTTP: the raw requests below speak it.
    let server = kubeforge_tests::kubectl_server::KubectlServer::start_with(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        &["--insecure-http"],
        &[corpus.join("kubernetes/swagger.json")],
    );
    let output = server.command(&["api-resources", "-v=8"]).output().unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let log = String::from_utf8_lossy(&output.stderr);
    // Two requests, each answered with the aggregated document: no request a group-version.
    let gets: Vec<&str> = log.lines().filter(|l| l.contains("GET http")).collect();
    assert_eq!(gets.len(), 2, "{log}");
    assert!(
        gets[0].contains("/api?") && gets[1].contains("/apis?"),
        "{gets:?}"
    );
    let answered = log
        .lines()
        .filter(|l| l.contains("Content-Type: ") && l.ends_with(AGGREGATED_TYPE))
        .count();
    assert_eq!(answered, 2, "{log}");
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert!(rows.contains(&vec![
        "deployments",
        "deploy",
        "apps/v1",
        "true",
        "Deployment"
    ]));
    assert!(rows.contains(&vec!["pods", "po", "v1", "true", "Pod"]));
    assert!(rows.contains(&vec![
        "customresourcedefinitions",
        "crd,crds",
        "apiextensions.k8s.io/v1",
        "false",
        "CustomResourceDefinition"
    ]));
    // As many resources as the plain documents list (kubectl api-resources shows the
    // preferred version of each group).
    assert!(rows.len() > 60, "{stdout}");

    // Any HTTP client on the served port gets the document when it asks for it, and the
    // plain one otherwise.
    let address = served_address(&server);
    let (head, body) = http_get(&address, "/apis", AGGREGATED);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase().contains(&format!(
            "content-type: {}",
            AGGREGATED_TYPE.to_ascii_lowercase()
        )),
        "{head}"
    );
    let body = dechunk(&body);
    let document: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(document["kind"], "APIGroupDiscoveryList");
    let plain = server.ok(&["get", "--raw", "/apis"], "");
    let plain: Value = serde_json::from_str(&plain).unwrap();
    assert_eq!(plain["kind"], "APIGroupList");
    assert_eq!(
        plain["groups"].as_array().unwrap().len(),
        document["items"].as_array().unwrap().len()
    );
}

/// A chunked HTTP/1.1 body's content (or the body as it is when it is not chunked).
fn dechunk(body: &str) -> String {
    if body.trim_start().starts_with('{') {
        return body.to_owned();
    }
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 {
            break;
        }
        out.push_str(&tail[..size]);
        rest = &tail[size + 2..];
    }
    out
}

#[tokio::test]
async fn custom_resources_as_the_apiextensions_server_lists_them() {
    let Some(corpus) = kubeforge_tests::corpus(
        "aggregated_discovery_of_crds",
        &[
            "kubernetes/swagger.json",
            "crds/cert-manager-Certificate.yaml",
        ],
    ) else {
        return;
    };
    let catalog = Catalog::from_documents(&[
        corpus.join("kubernetes/swagger.json"),
        corpus.join("crds/cert-manager-Certificate.yaml"),
    ])
    .unwrap();
    let server = Server::new(catalog);
    let apis = get_json(&server, "/apis", AGGREGATED).await;
    let items = apis["items"].as_array().unwrap();
    // A CRD's group comes after every built-in one (priority 1000).
    assert_eq!(items.last().unwrap()["metadata"]["name"], "cert-manager.io");
    let certificates = &items.last().unwrap()["versions"][0]["resources"][0];
    assert_eq!(
        certificates,
        &serde_json::json!({
            "resource": "certificates",
            "responseKind": {"group": "cert-manager.io", "version": "v1", "kind": "Certificate"},
            "scope": "Namespaced",
            "singularResource": "certificate",
            "verbs": ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
            "shortNames": ["cert", "certs"],
            "categories": ["cert-manager"],
            "subresources": [{
                "subresource": "status",
                "responseKind": {"group": "cert-manager.io", "version": "v1", "kind": "Certificate"},
                "verbs": ["get", "patch", "update"],
            }],
        })
    );
    // The plain list names the status subresource's kind alone, as the apiextensions
    // server's APIResource does.
    let list = get_json(&server, "/apis/cert-manager.io/v1", "application/json").await;
    assert_eq!(
        list["resources"][1],
        serde_json::json!({"name": "certificates/status", "singularName": "", "namespaced": true, "kind": "Certificate", "verbs": ["get", "patch", "update"]})
    );
    assert_eq!(
        as_plain(&items.last().unwrap()["versions"][0]).len(),
        plain(&list).len()
    );
}
