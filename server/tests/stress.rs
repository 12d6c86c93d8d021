//! Concurrency, proved on the binary: `kubeforge-server serve --insecure-http` on a loopback
//! port, driven over HTTP by 8 writers at once with bounded loops (no timing in any
//! assertion), while watchers follow every resource written. The writers share objects:
//!
//! - counters in shared ConfigMaps, read and replaced with the `resourceVersion` read (a
//!   precondition): a 200 counts, a 409 must be a true conflict (the object has moved on);
//! - merge patches and server-side applies without a precondition on the same ConfigMaps,
//!   each writer its own label and data key: every one must succeed (the server retries a
//!   write that lost a race, as `GuaranteedUpdate` does);
//! - creates and deletes of ConfigMaps on names the writers share and of their own;
//! - Services created as `ExternalName` and patched to `NodePort`, which allocates a cluster
//!   IP and a node port in the update's commit.
//!
//! Then: no update is lost (each counter is the number of its successful replaces; each
//! label and data key holds its writer's last value), no two Services share a cluster IP or
//! node port, and each watcher saw every revision the writers committed exactly once, in
//! order, and replaying its events gives the store as a final list shows it. It prints its
//! throughput (`cargo xtask bench` reports it); nothing is timed.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{Value, json};

const WRITERS: usize = 8;
/// Operations per writer.
const ROUNDS: usize = 300;
/// ConfigMaps every writer counts, patches and applies to.
const SHARED: usize = 3;
/// ConfigMap names every writer creates and deletes.
const CHURN: usize = 4;
const MAPS: &str = "/api/v1/namespaces/default/configmaps";
const SERVICES: &str = "/api/v1/namespaces/default/services";

/// The binary, killed on drop.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(document: &std::path::Path) -> (Running, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubeforge-server"))
        .args(["serve", "--insecure-http", "--listen", "127.0.0.1:0"])
        .arg(document)
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

/// One HTTP/1.1 request on its own connection: the status and the JSON body.
fn call(
    address: SocketAddr,
    method: &str,
    path: &str,
    content_type: &str,
    body: &Value,
) -> (u16, Value) {
    let body = if body.is_null() {
        Vec::new()
    } else {
        body.to_string().into_bytes()
    };
    let mut stream = TcpStream::connect(address).expect("the server accepts");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(&body).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&answer[..split]).into_owned();
    let code = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let mut payload = answer[split + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        payload = dechunk(&payload).0;
    }
    (
        code,
        serde_json::from_slice(&payload).unwrap_or(Value::Null),
    )
}

/// The data of a chunked body's complete chunks, and whether the last chunk came.
fn dechunk(mut bytes: &[u8]) -> (Vec<u8>, usize, bool) {
    let mut out = Vec::new();
    let mut used = 0;
    loop {
        let Some(line) = bytes.windows(2).position(|w| w == b"\r\n") else {
            return (out, used, false);
        };
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&bytes[..line]).trim(), 16).unwrap_or(0);
        if bytes.len() < line + 2 + size + 2 {
            return (out, used, false);
        }
        if size == 0 {
            return (out, used + line + 4, true);
        }
        out.extend_from_slice(&bytes[line + 2..line + 2 + size]);
        used += line + 2 + size + 2;
        bytes = &bytes[line + 2 + size + 2..];
    }
}

fn rv(object: &Value) -> u64 {
    object["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no resourceVersion: {object}"))
}

/// A watcher on `collection` from `from`: every event (type, name, resourceVersion) until
/// the ConfigMap or Service named `stop` is added.
fn watch(
    address: SocketAddr,
    collection: &str,
    from: u64,
    stop: &str,
) -> Vec<(String, String, u64)> {
    let mut stream = TcpStream::connect(address).unwrap();
    let head = format!(
        "GET {collection}?watch=true&resourceVersion={from} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let mut buffer = [0u8; 65536];
    let mut body_at = None;
    let mut data = Vec::new();
    let mut consumed = 0;
    let mut events = Vec::new();
    loop {
        let n = stream.read(&mut buffer).unwrap();
        assert!(
            n > 0,
            "the watch on {collection} ended early after {} events",
            events.len()
        );
        raw.extend_from_slice(&buffer[..n]);
        let at = match body_at {
            Some(at) => at,
            None => match raw.windows(4).position(|w| w == b"\r\n\r\n") {
                Some(at) => {
                    let head = String::from_utf8_lossy(&raw[..at]).into_owned();
                    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
                    body_at = Some(at + 4);
                    at + 4
                }
                None => continue,
            },
        };
        let (chunk, used, _) = dechunk(&raw[at + consumed..]);
        consumed += used;
        data.extend_from_slice(&chunk);
        while let Some(end) = data.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = data.drain(..=end).collect();
            let event: Value = serde_json::from_slice(&line).unwrap();
            let kind = event["type"].as_str().unwrap().to_owned();
            assert_ne!(kind, "ERROR", "{event}");
            let name = event["object"]["metadata"]["name"]
                .as_str()
                .unwrap()
                .to_owned();
            let done = kind == "ADDED" && name == stop;
            events.push((kind, name, rv(&event["object"])));
            if done {
                return events;
            }
        }
    }
}

/// A small deterministic generator (xorshift), one per writer.
struct Draw(u64);

impl Draw {
    fn next(&mut self, below: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % below as u64) as usize
    }
}

/// What the writers did, for the checks.
#[derive(Default)]
struct Ledger {
    /// Successful counter replaces per shared ConfigMap.
    counted: BTreeMap<String, u64>,
    /// Each writer's last label value and applied value per shared ConfigMap.
    labels: BTreeMap<(String, String), u64>,
    applied: BTreeMap<(String, String), u64>,
    /// Every revision a write answered, per collection: (name, resourceVersion).
    committed: BTreeMap<&'static str, BTreeSet<(String, u64)>>,
    /// Deletes that succeeded, per collection.
    deleted: BTreeMap<&'static str, usize>,
    conflicts: usize,
    requests: usize,
}

fn writer(address: SocketAddr, id: usize, ledger: &Mutex<Ledger>) {
    let mut draw = Draw(0x9E37_79B9_7F4A_7C15 ^ ((id as u64 + 1) * 0x1234_5678));
    let mut mine = Ledger::default();
    let commit = |collection: &'static str, object: &Value, mine: &mut Ledger| {
        let name = object["metadata"]["name"].as_str().unwrap().to_owned();
        mine.committed
            .entry(collection)
            .or_default()
            .insert((name, rv(object)));
    };
    let mut services = 0;
    for round in 0..ROUNDS {
        let shared = format!("shared-{}", draw.next(SHARED));
        let one = format!("{MAPS}/{shared}");
        let value = round as u64 + 1;
        match draw.next(10) {
            // A counter, replaced with the resourceVersion read.
            0..=2 => {
                let (code, mut object) = call(address, "GET", &one, "", &Value::Null);
                mine.requests += 1;
                assert_eq!(code, 200, "{object}");
                let read = rv(&object);
                let count: u64 = object["data"]["count"].as_str().unwrap().parse().unwrap();
                object["data"]["count"] = json!((count + 1).to_string());
                let (code, answer) = call(address, "PUT", &one, "application/json", &object);
                mine.requests += 1;
                match code {
                    200 => {
                        *mine.counted.entry(shared.clone()).or_default() += 1;
                        commit("configmaps", &answer, &mut mine);
                    }
                    409 => {
                        // A true conflict: the object has moved on from what was read.
                        let (_, now) = call(address, "GET", &one, "", &Value::Null);
                        mine.requests += 1;
                        assert!(rv(&now) > read, "a 409 with nothing changed: {answer}");
                        mine.conflicts += 1;
                    }
                    _ => panic!("a replace: {code} {answer}"),
                }
            }
            // A label, merge-patched without a precondition.
            3..=4 => {
                let patch =
                    json!({"metadata": {"labels": {format!("writer-{id}"): value.to_string()}}});
                let (code, answer) = call(
                    address,
                    "PATCH",
                    &one,
                    "application/merge-patch+json",
                    &patch,
                );
                mine.requests += 1;
                assert_eq!(code, 200, "a patch without a precondition: {answer}");
                mine.labels
                    .insert((shared.clone(), format!("writer-{id}")), value);
                commit("configmaps", &answer, &mut mine);
            }
            // A data key, applied by the writer's own field manager.
            5..=6 => {
                let config = json!({"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": shared}, "data": {format!("applied-{id}"): value.to_string()}});
                let path = format!("{one}?fieldManager=writer-{id}&force=true");
                let (code, answer) = call(
                    address,
                    "PATCH",
                    &path,
                    "application/apply-patch+yaml",
                    &config,
                );
                mine.requests += 1;
                assert_eq!(code, 200, "an apply: {answer}");
                mine.applied
                    .insert((shared.clone(), format!("applied-{id}")), value);
                commit("configmaps", &answer, &mut mine);
            }
            // Creates and deletes, on shared names and on the writer's own.
            7..=8 => {
                let name = if draw.next(2) == 0 {
                    format!("churn-{}", draw.next(CHURN))
                } else {
                    format!("own-{id}-{round}")
                };
                let body = json!({"metadata": {"name": name}, "data": {"by": id.to_string()}});
                let (code, answer) = call(address, "POST", MAPS, "application/json", &body);
                mine.requests += 1;
                match code {
                    201 => commit("configmaps", &answer, &mut mine),
                    409 => assert_eq!(answer["reason"], "AlreadyExists", "{answer}"),
                    _ => panic!("a create: {code} {answer}"),
                }
                let (code, answer) = call(
                    address,
                    "DELETE",
                    &format!("{MAPS}/{name}"),
                    "",
                    &Value::Null,
                );
                mine.requests += 1;
                match code {
                    200 => *mine.deleted.entry("configmaps").or_default() += 1,
                    404 => {}
                    _ => panic!("a delete: {code} {answer}"),
                }
            }
            // A Service that gets a cluster IP and a node port in an update.
            _ => {
                let name = format!("svc-{id}-{services}");
                services += 1;
                let body = json!({"metadata": {"name": name},
                    "spec": {"type": "ExternalName", "externalName": "db.example.com"}});
                let (code, answer) = call(address, "POST", SERVICES, "application/json", &body);
                mine.requests += 1;
                assert_eq!(code, 201, "{answer}");
                commit("services", &answer, &mut mine);
                let patch = json!({"spec": {"type": "NodePort", "externalName": null,
                    "ports": [{"port": 80, "protocol": "TCP"}]}});
                let (code, answer) = call(
                    address,
                    "PATCH",
                    &format!("{SERVICES}/{name}"),
                    "application/merge-patch+json",
                    &patch,
                );
                mine.requests += 1;
                assert_eq!(code, 200, "{answer}");
                commit("services", &answer, &mut mine);
            }
        }
    }
    let mut ledger = ledger.lock().unwrap();
    for (k, v) in mine.counted {
        *ledger.counted.entry(k).or_default() += v;
    }
    ledger.labels.extend(mine.labels);
    ledger.applied.extend(mine.applied);
    for (k, v) in mine.committed {
        ledger.committed.entry(k).or_default().extend(v);
    }
    for (k, v) in mine.deleted {
        *ledger.deleted.entry(k).or_default() += v;
    }
    ledger.conflicts += mine.conflicts;
    ledger.requests += mine.requests;
}

#[test]
fn eight_writers_lose_nothing_share_nothing_and_every_watcher_sees_every_revision_once() {
    let test =
        "eight_writers_lose_nothing_share_nothing_and_every_watcher_sees_every_revision_once";
    let Some(corpus) = kubeforge_tests::corpus(test, &["kubernetes/v3/api__v1_openapi.json"])
    else {
        return;
    };
    let (_server, address) = start(&corpus.join("kubernetes/v3/api__v1_openapi.json"));
    for i in 0..SHARED {
        let body = json!({"metadata": {"name": format!("shared-{i}")}, "data": {"count": "0"}});
        assert_eq!(
            call(address, "POST", MAPS, "application/json", &body).0,
            201
        );
    }
    // The watchers start from the lists' revision, before any writer.
    let lists: Vec<(&'static str, &str, Value)> = [("configmaps", MAPS), ("services", SERVICES)]
        .into_iter()
        .map(|(what, path)| (what, path, call(address, "GET", path, "", &Value::Null).1))
        .collect();
    let watchers: Vec<_> = lists
        .iter()
        .map(|(what, path, list)| {
            let (what, path) = (*what, (*path).to_owned());
            let from = rv(list);
            let stop = if what == "configmaps" {
                "stop-maps"
            } else {
                "stop-services"
            };
            std::thread::spawn(move || (what, watch(address, &path, from, stop)))
        })
        .collect();
    let ledger = Arc::new(Mutex::new(Ledger::default()));
    let started = Instant::now();
    let writers: Vec<_> = (0..WRITERS)
        .map(|id| {
            let ledger = ledger.clone();
            std::thread::spawn(move || writer(address, id, &ledger))
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let elapsed = started.elapsed();
    let ledger = ledger.lock().unwrap();
    println!(
        "stress: {WRITERS} writers, {} requests in {:.2} s: {:.0} requests/s ({} true conflicts)",
        ledger.requests,
        elapsed.as_secs_f64(),
        ledger.requests as f64 / elapsed.as_secs_f64(),
        ledger.conflicts,
    );
    // The last events the watchers wait for.
    call(
        address,
        "POST",
        MAPS,
        "application/json",
        &json!({"metadata": {"name": "stop-maps"}}),
    );
    call(
        address,
        "POST",
        SERVICES,
        "application/json",
        &json!({"metadata": {"name": "stop-services"}, "spec": {"ports": [{"port": 80}]}}),
    );

    // No lost update.
    let (_, maps) = call(address, "GET", MAPS, "", &Value::Null);
    let by_name: HashMap<&str, &Value> = maps["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["metadata"]["name"].as_str().unwrap(), o))
        .collect();
    for i in 0..SHARED {
        let name = format!("shared-{i}");
        let object = by_name[name.as_str()];
        let counted = ledger.counted.get(&name).copied().unwrap_or(0);
        assert_eq!(
            object["data"]["count"],
            json!(counted.to_string()),
            "{name}: a lost counter update"
        );
    }
    for ((name, label), value) in &ledger.labels {
        assert_eq!(
            by_name[name.as_str()]["metadata"]["labels"][label],
            json!(value.to_string()),
            "{name}: a lost patch"
        );
    }
    for ((name, key), value) in &ledger.applied {
        assert_eq!(
            by_name[name.as_str()]["data"][key],
            json!(value.to_string()),
            "{name}: a lost apply"
        );
    }

    // No two Services share a cluster IP or a node port.
    let (_, services) = call(address, "GET", SERVICES, "", &Value::Null);
    let mut ips: HashMap<String, String> = HashMap::new();
    let mut ports: HashMap<i64, String> = HashMap::new();
    for service in services["items"].as_array().unwrap() {
        let name = service["metadata"]["name"].as_str().unwrap().to_owned();
        if let Some(ip) = service["spec"]["clusterIP"]
            .as_str()
            .filter(|ip| !ip.is_empty() && *ip != "None")
            && let Some(other) = ips.insert(ip.to_owned(), name.clone())
        {
            panic!("{name} and {other} share the cluster IP {ip}");
        }
        for port in service["spec"]["ports"].as_array().into_iter().flatten() {
            if let Some(port) = port["nodePort"].as_i64()
                && let Some(other) = ports.insert(port, name.clone())
            {
                panic!("{name} and {other} share the node port {port}");
            }
        }
    }

    // Every watcher saw each committed revision once, in order; its events replayed on the
    // list it started from give the store now.
    for (watcher, (what, _, list)) in watchers.into_iter().zip(&lists) {
        let (what_seen, events) = watcher.join().unwrap();
        assert_eq!(what_seen, *what);
        let revisions: Vec<u64> = events.iter().map(|e| e.2).collect();
        assert!(
            revisions.windows(2).all(|w| w[0] < w[1]),
            "{what}: events out of order or repeated"
        );
        let seen: BTreeSet<(String, u64)> = events
            .iter()
            .filter(|e| e.0 != "DELETED")
            .map(|e| (e.1.clone(), e.2))
            .collect();
        for revision in ledger.committed.get(what).into_iter().flatten() {
            assert!(
                seen.contains(revision),
                "{what}: the watcher missed {revision:?}"
            );
        }
        let deletes = events.iter().filter(|e| e.0 == "DELETED").count();
        assert_eq!(
            deletes,
            ledger.deleted.get(what).copied().unwrap_or(0),
            "{what}: deletes"
        );
        let mut replay: BTreeMap<String, u64> = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| (o["metadata"]["name"].as_str().unwrap().to_owned(), rv(o)))
            .collect();
        for (kind, name, revision) in &events {
            match kind.as_str() {
                "ADDED" | "MODIFIED" => {
                    replay.insert(name.clone(), *revision);
                }
                "DELETED" => {
                    assert!(
                        replay.remove(name).is_some(),
                        "{what}: {name} deleted unseen"
                    );
                }
                other => panic!("{what}: a {other} event"),
            }
        }
        let (_, now) = call(
            address,
            "GET",
            lists.iter().find(|l| l.0 == *what).unwrap().1,
            "",
            &Value::Null,
        );
        let stored: BTreeMap<String, u64> = now["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| (o["metadata"]["name"].as_str().unwrap().to_owned(), rv(o)))
            .collect();
        assert_eq!(
            replay, stored,
            "{what}: the watcher's replay is not the store"
        );
    }
}

/// Thirty merge patches sent at once to one ConfigMap, each adding its own label, all
/// succeed (none answers 409: none stated a precondition) and all thirty labels are there.
#[test]
fn thirty_concurrent_label_patches_to_one_object_all_succeed() {
    let test = "thirty_concurrent_label_patches_to_one_object_all_succeed";
    let Some(corpus) = kubeforge_tests::corpus(test, &["kubernetes/v3/api__v1_openapi.json"])
    else {
        return;
    };
    let (_server, address) = start(&corpus.join("kubernetes/v3/api__v1_openapi.json"));
    let body = json!({"metadata": {"name": "target"}});
    assert_eq!(
        call(address, "POST", MAPS, "application/json", &body).0,
        201
    );
    let barrier = Arc::new(std::sync::Barrier::new(30));
    let patches: Vec<_> = (0..30)
        .map(|i| {
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let patch = json!({"metadata": {"labels": {format!("label-{i}"): "set"}}});
                barrier.wait();
                call(
                    address,
                    "PATCH",
                    &format!("{MAPS}/target"),
                    "application/merge-patch+json",
                    &patch,
                )
            })
        })
        .collect();
    for patch in patches {
        let (code, answer) = patch.join().unwrap();
        assert_eq!(code, 200, "{answer}");
    }
    let (_, object) = call(address, "GET", &format!("{MAPS}/target"), "", &Value::Null);
    assert_eq!(
        object["metadata"]["labels"].as_object().unwrap().len(),
        30,
        "{object}"
    );
}
