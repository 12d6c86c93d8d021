//! No request holds the server: creating a CustomResourceDefinition answers at once (through
//! kubectl and through kube-rs; its schema type, `JSONSchemaProps`, refers to itself, and a
//! walk of it once never ended), a request whose work is heavy runs while another answers,
//! and SIGTERM stops the binary within a second even then. On `kubernetes/swagger.json`.

use std::io::{BufRead, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use kubeforge_server::{Catalog, Server};
use kubeforge_tests::kubectl_server::KubectlServer;

fn crd() -> String {
    kubeforge_tests::open_crd("example.com", "Foo", "foos")
}

fn swagger(test: &str) -> Option<PathBuf> {
    kubeforge_tests::corpus(
        test,
        &["kubernetes/swagger.json", "crds/gateway-api-HTTPRoute.yaml"],
    )
}

#[test]
fn kubectl_creates_a_crd_at_once() {
    let (Some(corpus), Some(kubectl)) = (
        swagger("kubectl_creates_a_crd_at_once"),
        kubeforge_tests::kubectl("kubectl_creates_a_crd_at_once"),
    ) else {
        return;
    };
    let server = KubectlServer::start(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        &[corpus.join("kubernetes/swagger.json")],
    );
    // kubectl gives up after its --request-timeout (30 s): a request that never answers fails.
    let started = Instant::now();
    let out = server.ok(&["create", "-f", "-"], &crd());
    assert_eq!(
        out.trim(),
        "customresourcedefinition.apiextensions.k8s.io/foos.example.com created"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let name = server.ok(&["get", "crd", "foos.example.com", "-o", "name"], "");
    assert_eq!(
        name.trim(),
        "customresourcedefinition.apiextensions.k8s.io/foos.example.com"
    );
}

#[test]
fn kube_rs_creates_a_crd_at_once() {
    let Some(corpus) = swagger("kube_rs_creates_a_crd_at_once") else {
        return;
    };
    let catalog = Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap();
    let crd: CustomResourceDefinition = serde_saphyr::from_str(&crd()).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let created = runtime.block_on(async move {
        let client = kube::Client::new(Server::new(catalog), "default");
        let crds: Api<CustomResourceDefinition> = Api::all(client);
        tokio::time::timeout(
            Duration::from_secs(10),
            crds.create(&PostParams::default(), &crd),
        )
        .await
    });
    // A request still spinning must not hold the test's end too.
    runtime.shutdown_background();
    let created = created.expect("the create answers within 10 s").unwrap();
    assert_eq!(created.metadata.name.as_deref(), Some("foos.example.com"));
    assert!(created.metadata.uid.is_some());
    assert_eq!(created.spec.names.kind, "Foo");
}

/// The binary, killed on drop (a failed assertion must not leave it running).
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The binary, serving `swagger.json` on a free loopback port over plain HTTP (the raw
/// requests below speak it).
fn start(corpus: &std::path::Path) -> (Running, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubeforge-server"))
        .args(["serve", "--insecure-http"])
        .arg(corpus.join("kubernetes/swagger.json"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let address = first
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("{first}"))
        .parse()
        .unwrap();
    std::thread::spawn(move || lines.for_each(drop));
    (Running(child), address)
}

/// One HTTP/1.1 request on its own connection: the status code (0 when the connection
/// ended without an answer).
fn request(address: SocketAddr, method: &str, path: &str, body: &[u8]) -> u16 {
    exchange(address, method, path, body).0
}

/// One HTTP/1.1 request on its own connection: the status code (0 when the connection
/// ended without an answer) and the body.
fn exchange(address: SocketAddr, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
    let Ok(mut stream) = TcpStream::connect(address) else {
        return (0, Vec::new());
    };
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    if stream.write_all(head.as_bytes()).is_err() || stream.write_all(body).is_err() {
        return (0, Vec::new());
    }
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let code = String::from_utf8_lossy(&answer)
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    // The body after the head; a chunked one is read whole by dropping the chunk sizes.
    let text = String::from_utf8_lossy(&answer).into_owned();
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, rest)| rest)
        .unwrap_or("")
        .to_owned();
    let body = match body.find('{') {
        Some(start) => body[start..body.rfind('}').map_or(body.len(), |end| end + 1)].to_owned(),
        None => body,
    };
    (code, body.into_bytes())
}

#[test]
fn a_heavy_request_holds_no_other_and_sigterm_stops_the_server() {
    let Some(corpus) = swagger("a_heavy_request_holds_no_other_and_sigterm_stops_the_server")
    else {
        return;
    };
    // gateway-api's HTTPRoute CRD with each version's schema seven times over (1.7 MB):
    // validating one takes about half a second in a debug build. More of them at once than
    // the runtime has workers.
    let mut crd: serde_json::Value = serde_saphyr::from_str(
        &std::fs::read_to_string(corpus.join("crds/gateway-api-HTTPRoute.yaml")).unwrap(),
    )
    .unwrap();
    for version in crd["spec"]["versions"].as_array_mut().unwrap() {
        let schema = version["schema"]["openAPIV3Schema"].take();
        let properties: serde_json::Map<String, serde_json::Value> =
            ["a", "b", "c", "d", "e", "f", "g"]
                .iter()
                .map(|k| ((*k).to_owned(), schema.clone()))
                .collect();
        version["schema"]["openAPIV3Schema"] =
            serde_json::json!({"type": "object", "properties": properties});
    }
    let body = Arc::new(serde_json::to_vec(&crd).unwrap());
    let (mut running, address) = start(&corpus);
    assert_eq!(request(address, "GET", "/api", b""), 200);
    let heavy = 4 * std::thread::available_parallelism().map_or(2, usize::from);
    let done = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut threads = Vec::new();
    for _ in 0..heavy {
        let (body, done) = (body.clone(), done.clone());
        threads.push(std::thread::spawn(move || {
            let path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All";
            let code = request(address, "POST", path, &body);
            done.fetch_add(1, Ordering::SeqCst);
            code
        }));
    }
    std::thread::sleep(Duration::from_millis(200));
    let asked = Instant::now();
    assert_eq!(request(address, "GET", "/api/v1/namespaces", b""), 200);
    let answered = asked.elapsed();
    let finished = done.load(Ordering::SeqCst);
    assert!(
        finished < heavy,
        "the heavy requests all ended within {:?}: this test needs heavier ones",
        started.elapsed()
    );
    assert!(
        answered < Duration::from_millis(400),
        "a GET waited {answered:?} behind {heavy} heavy requests"
    );
    // SIGTERM while they still work.
    let terminated = Instant::now();
    let killed = Command::new("kill")
        .args(["-TERM", &running.0.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = loop {
        if let Some(status) = running.0.try_wait().unwrap() {
            break Some(status);
        }
        if terminated.elapsed() > Duration::from_secs(1) {
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    for thread in threads {
        let _ = thread.join();
    }
    let status = status.expect("the server stops within a second of SIGTERM");
    assert!(status.success(), "{status}");
}

/// A CRD whose schemas take long to read (the generator's model of a 1.7 MB schema) is
/// read after the store's lock is released: while it is stored but not yet `Established`
/// (`Installing`), other objects are written and read; it is served when its create
/// answers. (Read under the lock, it would be `Established` whenever another request saw
/// it.)
#[test]
fn a_large_crd_being_served_holds_no_other_request() {
    let Some(corpus) = swagger("a_large_crd_being_served_holds_no_other_request") else {
        return;
    };
    let mut crd: serde_json::Value = serde_saphyr::from_str(
        &std::fs::read_to_string(corpus.join("crds/gateway-api-HTTPRoute.yaml")).unwrap(),
    )
    .unwrap();
    for version in crd["spec"]["versions"].as_array_mut().unwrap() {
        let schema = version["schema"]["openAPIV3Schema"].take();
        let properties: serde_json::Map<String, serde_json::Value> =
            ["a", "b", "c", "d", "e", "f", "g"]
                .iter()
                .map(|k| ((*k).to_owned(), schema.clone()))
                .collect();
        version["schema"]["openAPIV3Schema"] =
            serde_json::json!({"type": "object", "properties": properties});
    }
    let body = serde_json::to_vec(&crd).unwrap();
    let (_running, address) = start(&corpus);
    let creating = std::thread::spawn(move || {
        let path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
        request(address, "POST", path, &body)
    });
    let path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/httproutes.gateway.networking.k8s.io";
    let installing = |address| {
        let (code, body) = exchange(address, "GET", path, b"");
        let crd: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        code == 200
            && crd["status"]["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|c| c["type"] == "Established" && c["reason"] == "Installing")
    };
    let mut written_while_installing = false;
    while !creating.is_finished() {
        if installing(address) {
            let (created, _) = exchange(
                address,
                "POST",
                "/api/v1/namespaces/default/configmaps",
                br#"{"metadata":{"generateName":"cm-"}}"#,
            );
            assert_eq!(created, 201);
            if installing(address) {
                written_while_installing = true;
                break;
            }
        }
    }
    assert_eq!(creating.join().unwrap(), 201);
    assert!(
        written_while_installing,
        "no write was answered while the CRD's schemas were being read"
    );
    let served = "/apis/gateway.networking.k8s.io/v1/namespaces/default/httproutes";
    assert_eq!(request(address, "GET", served, b""), 200);
}
