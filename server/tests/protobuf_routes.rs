//! Protobuf through the generated route functions, against the `kubeforge-server` binary
//! (which speaks protobuf for the built-in kinds): a crate generated with `--proto` from a
//! `--select` (`ConfigMap`) of Kubernetes 1.36's `swagger.json`, and one from the OpenAPI v3
//! document of `/api/v1`, each built with its `protobuf` feature, runs a program that sends
//! its route functions' requests over plain HTTP with the runtime's `protobuf::routes`
//! helpers around them. An object created in JSON reads back in protobuf and the reverse; a
//! missing object's `Status` decodes in either; a list and a watch in protobuf decode with
//! the generated decoders, the watch fed a few bytes at a time. The server reads the same
//! 1.36 `.proto` files (`serve --proto`), and its protobuf answer is byte for byte what the
//! generated encoder writes for the object it answers in JSON; a missing object's `Status`
//! comes in protobuf when protobuf was asked for, as kube-apiserver answers it. The same
//! request also goes through kube-rs's `Client::send` (kube has no protobuf of its own).

use std::io::{BufRead as _, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use kubeforge::Config;
use kubeforge::package::{CrateOptions, RuntimeDependency, write_crate};
use kubeforge_tests::corpus;
use kubeforge_tests::scale::cargo;

/// The binary, killed on drop.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(swagger: &std::path::Path, proto: &std::path::Path) -> (Running, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubeforge-server"))
        .args(["serve", "--insecure-http", "--listen", "127.0.0.1:0"])
        .arg("--proto")
        .arg(proto)
        .arg(swagger)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
    let first = lines.next().expect("a line").expect("a line");
    let address = first
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("{first}"))
        .parse()
        .expect("an address");
    std::thread::spawn(move || lines.for_each(drop));
    (Running(child), address)
}

#[test]
fn route_functions_negotiate_protobuf_with_the_in_memory_server() {
    let Some(corpus) = corpus(
        "protobuf routes: Kubernetes 1.36 swagger.json and .proto files",
        &["kubernetes/swagger.json", "kubernetes/proto"],
    ) else {
        return;
    };
    let config = Config::new().input(corpus.join("kubernetes/swagger.json"));
    negotiates("protobuf-routes", config, &corpus);
}

/// The same from the OpenAPI v3 document of `/api/v1` (Kubernetes 1.35, with the 1.36
/// `.proto` files).
#[test]
fn route_functions_from_openapi_v3_negotiate_protobuf() {
    let Some(corpus) = corpus(
        "protobuf routes: Kubernetes OpenAPI v3 of /api/v1 and the .proto files",
        &[
            "kubernetes/v3/api__v1_openapi.json",
            "kubernetes/swagger.json",
            "kubernetes/proto",
        ],
    ) else {
        return;
    };
    let config = Config::new().input(corpus.join("kubernetes/v3/api__v1_openapi.json"));
    negotiates("protobuf-routes-v3", config, &corpus);
}

/// Generates crate `name` from `config` with the `.proto` files and `ConfigMap` selected,
/// and runs [`PROGRAM`] on it against the server.
fn negotiates(name: &str, config: Config, corpus: &std::path::Path) {
    let config = config
        .proto(corpus.join("kubernetes/proto"))
        .select("kind=ConfigMap".parse().expect("selector"));
    let output = config
        .generate()
        .unwrap_or_else(|e| panic!("{name} does not generate:\n{e}"));
    let dir = kubeforge_tests::scale::dir().join("crates").join(name);
    // The program sends one request with kube-rs's `Client::send` too.
    let options = CrateOptions {
        name: name.to_owned(),
        runtime: RuntimeDependency::Path(kubeforge_tests::workspace_root().join("runtime")),
        dev_dependencies: kubeforge_tests::scale::KUBE_CLIENT_DEPENDENCIES
            .iter()
            .map(|line| (*line).to_owned())
            .collect(),
        ..CrateOptions::default()
    };
    write_crate(&output, &dir, &options).unwrap_or_else(|e| panic!("{name} does not write:\n{e}"));
    let program = PROGRAM.replace(
        "protobuf_routes::",
        &format!("{}::", name.replace('-', "_")),
    );
    std::fs::create_dir_all(dir.join("examples")).expect("examples dir");
    std::fs::write(dir.join("examples/routes.rs"), program).expect("write program");
    // kube's versions and features as the `kubeforge:cli` test's kube program has them, so
    // that kube and its dependencies are compiled once for both.
    kubeforge_tests::scale::workspace_lock(&dir);
    cargo(
        &dir,
        &[
            "build",
            "--quiet",
            "--features",
            "protobuf",
            "--example",
            "routes",
        ],
    );

    let (_server, address) = start(
        &corpus.join("kubernetes/swagger.json"),
        &corpus.join("kubernetes/proto"),
    );
    let report = cargo(
        &dir,
        &[
            "run",
            "--quiet",
            "--features",
            "protobuf",
            "--example",
            "routes",
            "--",
            &address.to_string(),
        ],
    );
    let expected = [
        "created in JSON, answered in application/json",
        "read back in application/vnd.kubernetes.protobuf: {\"a\": \"1\"}",
        "the protobuf answer is what the generated encoder writes for the JSON answer",
        "kube-rs Client::send, answered in application/vnd.kubernetes.protobuf: {\"a\": \"1\"}",
        "created in protobuf, answered in application/vnd.kubernetes.protobuf",
        "read back in application/json: {\"b\": \"2\"}",
        // An error's `Status` comes in the encoding asked for, as kube-apiserver's
        // `ErrorNegotiated` writes it; `decode` reads either.
        "missing, protobuf asked for: 404 NotFound in application/vnd.kubernetes.protobuf",
        "missing, JSON asked for: 404 NotFound in application/json",
        "listed in application/vnd.kubernetes.protobuf: from-json, from-protobuf",
        "watched in application/vnd.kubernetes.protobuf;stream=watch: ADDED from-json, ADDED from-protobuf",
    ];
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(lines, expected, "the program said:\n{report}");
}

/// The program: the generated route functions, the runtime's `protobuf::routes` around
/// them, and HTTP/1.1 over a `TcpStream` (one connection a request).
const PROGRAM: &str = r#"
use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::net::TcpStream;

use kubeforge_runtime::http::{Request, StatusCode};
use kubeforge_runtime::protobuf::routes;
use kubeforge_runtime::{ResponseError, WatchEvent};
use kubeforge_meta::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use protobuf_routes::api::core::v1::{ConfigMap, ConfigMapList};
use protobuf_routes::routes::{CreateOrReplaceQuery, GetQuery, ListOrWatchQuery, WatchQuery};

const NS: &str = "default";

/// Sends `request`; the status, the `Content-Type` and the body (chunks joined).
fn send(address: &str, request: Request<Vec<u8>>) -> (StatusCode, String, Vec<u8>) {
    let mut stream = TcpStream::connect(address).expect("connect");
    let mut head = format!("{} {} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n", request.method(), request.uri());
    for (name, value) in request.headers() {
        head.push_str(&format!("{name}: {}\r\n", value.to_str().expect("text")));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", request.body().len()));
    stream.write_all(head.as_bytes()).expect("write");
    stream.write_all(request.body()).expect("write");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("read");
    let end = answer.windows(4).position(|w| w == b"\r\n\r\n").expect("a head");
    let head = String::from_utf8_lossy(&answer[..end]).into_owned();
    let mut body = answer[end + 4..].to_vec();
    let status: u16 = head.split_whitespace().nth(1).and_then(|c| c.parse().ok()).expect("a status");
    let header = |name: &str| {
        head.lines()
            .find_map(|line| line.split_once(':').filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim().to_owned()))
    };
    if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        let mut joined = Vec::new();
        let mut rest = &body[..];
        loop {
            let line_end = rest.windows(2).position(|w| w == b"\r\n").expect("a chunk size");
            let size = usize::from_str_radix(String::from_utf8_lossy(&rest[..line_end]).trim(), 16).expect("hex");
            if size == 0 {
                break;
            }
            joined.extend_from_slice(&rest[line_end + 2..line_end + 2 + size]);
            rest = &rest[line_end + 2 + size + 2..];
        }
        body = joined;
    }
    (StatusCode::from_u16(status).expect("status"), header("content-type").unwrap_or_default(), body)
}

fn config_map(name: &str, data: &[(&str, &str)]) -> ConfigMap {
    let mut map = ConfigMap::default();
    map.metadata = Some(ObjectMeta { name: Some(name.into()), ..ObjectMeta::default() });
    map.data = Some(data.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect::<BTreeMap<_, _>>());
    map
}

fn name(map: &ConfigMap) -> &str {
    map.metadata.as_ref().and_then(|m| m.name.as_deref()).unwrap_or_default()
}

fn data(map: &ConfigMap) -> String {
    map.data.iter().flatten().map(|(k, v)| format!("{k:?}: {v:?}")).collect::<Vec<_>>().join(", ")
}

fn main() {
    let address = std::env::args().nth(1).expect("the server's address");
    let address = address.as_str();

    // Created in JSON, as every route function sends it; read back in protobuf.
    let request = ConfigMap::create_namespaced_config_map(NS, &config_map("from-json", &[("a", "1")]), &CreateOrReplaceQuery::default()).unwrap();
    let (status, content_type, body) = send(address, request);
    let created: ConfigMap = routes::decode(status, Some(&content_type), &body, ConfigMap::create_namespaced_config_map_response).unwrap();
    assert!(created.metadata.as_ref().and_then(|m| m.uid.as_ref()).is_some());
    println!("created in JSON, answered in {content_type}");
    let request = routes::accept(ConfigMap::read_namespaced_config_map(NS, "from-json", &GetQuery::default()).unwrap());
    assert_eq!(request.headers()["accept"], "application/vnd.kubernetes.protobuf, application/json");
    let (status, content_type, body) = send(address, request);
    let read = routes::decode(status, Some(&content_type), &body, ConfigMap::read_namespaced_config_map_response).unwrap();
    assert_eq!(read, created);
    println!("read back in {content_type}: {{{}}}", data(&read));
    let (status, _, json) = send(address, ConfigMap::read_namespaced_config_map(NS, "from-json", &GetQuery::default()).unwrap());
    let from_json = ConfigMap::read_namespaced_config_map_response(status, &json).unwrap();
    assert!(kubeforge_runtime::protobuf::encode_object(&from_json) == body, "the server's protobuf differs from the generated encoder's");
    println!("the protobuf answer is what the generated encoder writes for the JSON answer");

    // The same read through kube-rs's `Client::send`, which sends any `http::Request`.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let client = kube::Client::try_from(kube::Config::new(format!("http://{address}").parse().unwrap())).unwrap();
        let request = routes::accept(ConfigMap::read_namespaced_config_map(NS, "from-json", &GetQuery::default()).unwrap());
        let response = client.send(request.map(kube::client::Body::from)).await.unwrap();
        let status = response.status();
        let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let body = response.into_body().collect_bytes().await.unwrap();
        let read = routes::decode(status, content_type.as_deref(), &body, ConfigMap::read_namespaced_config_map_response).unwrap();
        println!("kube-rs Client::send, answered in {}: {{{}}}", content_type.unwrap_or_default(), data(&read));
    });

    // Created in protobuf; read back in JSON with the generated decoder alone.
    let object = config_map("from-protobuf", &[("b", "2")]);
    let request = ConfigMap::create_namespaced_config_map(NS, &object, &CreateOrReplaceQuery::default()).unwrap();
    let request = routes::with_body(routes::accept(request), &object);
    assert_eq!(request.headers()["content-type"], "application/vnd.kubernetes.protobuf");
    let (status, content_type, body) = send(address, request);
    let created = routes::decode(status, Some(&content_type), &body, ConfigMap::create_namespaced_config_map_response).unwrap();
    println!("created in protobuf, answered in {content_type}");
    let (status, content_type, body) = send(address, ConfigMap::read_namespaced_config_map(NS, "from-protobuf", &GetQuery::default()).unwrap());
    let read = ConfigMap::read_namespaced_config_map_response(status, &body).unwrap();
    assert_eq!(read, created);
    println!("read back in {content_type}: {{{}}}", data(&read));

    // A missing object: its Status in protobuf, then in JSON.
    for protobuf in [true, false] {
        let mut request = ConfigMap::read_namespaced_config_map(NS, "missing", &GetQuery::default()).unwrap();
        if protobuf {
            request = routes::accept(request);
        }
        let (status, content_type, body) = send(address, request);
        match routes::decode(status, Some(&content_type), &body, ConfigMap::read_namespaced_config_map_response) {
            Err(ResponseError::Status { status, body }) => {
                let asked = if protobuf { "protobuf" } else { "JSON" };
                println!("missing, {asked} asked for: {} {} in {content_type}", status.as_u16(), body.reason.as_deref().unwrap_or("?"));
            }
            other => panic!("expected a Status, got {other:?}"),
        }
    }

    // A list in protobuf.
    let request = routes::accept(ConfigMap::list_namespaced_config_map(NS, &ListOrWatchQuery::default()).unwrap());
    let (status, content_type, body) = send(address, request);
    let list: ConfigMapList = routes::decode(status, Some(&content_type), &body, ConfigMap::list_namespaced_config_map_response).unwrap();
    let names: Vec<&str> = list.items.iter().map(name).filter(|n| n.starts_with("from-")).collect();
    println!("listed in {content_type}: {}", names.join(", "));

    // A watch in protobuf, fed three bytes at a time; it ends after a second.
    let query = WatchQuery { timeout_seconds: Some(1), ..WatchQuery::default() };
    let request = routes::accept(ConfigMap::watch_list_namespaced_config_map(NS, &query).unwrap());
    let (status, content_type, body) = send(address, request);
    let mut decoder = routes::watch(status, Some(&content_type), ConfigMap::watch_list_namespaced_config_map_decoder);
    let mut events = Vec::new();
    for chunk in body.chunks(3) {
        for event in decoder.feed(chunk) {
            match event.unwrap() {
                WatchEvent::Added(map) if name(&map).starts_with("from-") => {
                    events.push(format!("ADDED {}", name(&map)));
                }
                _ => {}
            }
        }
    }
    decoder.finish().unwrap();
    println!("watched in {content_type}: {}", events.join(", "));
}
"#;
