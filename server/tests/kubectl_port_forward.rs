//! `kubectl port-forward` to ports the simulation serves (`Simulation::port`), against
//! Kubernetes 1.36's `swagger.json`: kubectl 1.31 and later first try SPDY tunnelled in a
//! WebSocket (`SPDY/3.1+portforward.k8s.io`), and with `KUBECTL_PORT_FORWARD_WEBSOCKETS=false`
//! speak SPDY/3.1 over an HTTP upgrade; both run here. Through the local ports kubectl
//! opens, an HTTP GET reaches a `tower::Service` registered for one port and a raw TCP
//! echo registered for another; a port nothing serves gets the kubelet's error on the
//! error stream, which kubectl prints. And kube-rs's `Api::portforward`, which speaks
//! `v4.channel.k8s.io`'s channels, reaches the same ports. And the binary's
//! `--container-port IMAGE:PORT=PROGRAM` runs a program per connection (`cat` here).
//!
//! kubectl is found on `PATH`; without it or the corpus the test prints `SKIPPED: …`, and
//! fails in CI.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use bytes::Bytes;
use kubeforge_server::{Catalog, Options, PortHandler, Server, Simulation};
use tokio::io::AsyncWriteExt;

const IMAGE: &str = "example.com/served";

/// An HTTP service: it answers the method, the path and the body it was given.
fn http_port() -> PortHandler {
    PortHandler::service(tower::service_fn(
        |request: http::Request<Bytes>| async move {
            Ok::<_, std::convert::Infallible>(http::Response::new(Bytes::from(format!(
                "served {} {} body={}",
                request.method(),
                request.uri(),
                String::from_utf8_lossy(request.body())
            ))))
        },
    ))
}

/// A TCP echo server: what the client sends comes back, with a greeting first.
fn echo_port() -> PortHandler {
    PortHandler::tcp(|connection| async move {
        let (mut from, mut to) = tokio::io::split(connection);
        let _ = to.write_all(b"echo:").await;
        let _ = tokio::io::copy(&mut from, &mut to).await;
        let _ = to.shutdown().await;
    })
}

/// The server, on a runtime of its own, with a Pod `served` of [`IMAGE`] running; its
/// kubeconfig, and the runtime and the directory that must outlive the test.
struct Cluster {
    runtime: tokio::runtime::Runtime,
    kubectl: std::path::PathBuf,
    config: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Cluster {
    fn start(test: &str) -> Option<Cluster> {
        let corpus = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"])?;
        let kubectl = kubeforge_tests::kubectl(test)?;
        let catalog = Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap();
        let options = Options {
            simulation: Some(Simulation::default().port(IMAGE, 8080, http_port()).port(
                IMAGE,
                9000,
                echo_port(),
            )),
            ..Options::default()
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let server = Server::with_options(catalog, options);
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let address = listener.local_addr().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config");
        std::fs::write(&config, server.admin_kubeconfig(address, false).unwrap()).unwrap();
        runtime.spawn(kubeforge_server::serve(
            server,
            listener,
            std::future::pending(),
        ));
        let cluster = Cluster {
            runtime,
            kubectl,
            config,
            _dir: dir,
        };
        cluster.ok("run served --image=example.com/served:1.0 --port=8080 -- sleep 3600");
        cluster.ok("wait --for=condition=Ready pod/served --timeout=30s");
        Some(cluster)
    }

    /// kubectl with the cluster's kubeconfig.
    fn base(&self) -> Command {
        let mut command = Command::new(&self.kubectl);
        command.arg("--kubeconfig").arg(&self.config);
        command
    }

    fn kubectl(&self, line: &str) -> Command {
        let mut command = self.base();
        command.args(line.split(' '));
        command
    }

    fn ok(&self, line: &str) {
        let out = self.kubectl(line).output().unwrap();
        assert!(out.status.success(), "kubectl {line}: {out:?}");
    }
}

/// A running `kubectl port-forward` and the local port of each remote port asked for.
struct Forward {
    child: Child,
    local: Vec<u16>,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Forward {
    fn start(cluster: &Cluster, websockets: bool, remote: &[u16]) -> Forward {
        Forward::start_with(cluster.base(), "served", websockets, remote)
    }

    /// `kubectl port-forward pod/<pod>`, `kubectl` a kubectl command with its kubeconfig.
    fn start_with(mut command: Command, pod: &str, websockets: bool, remote: &[u16]) -> Forward {
        command.args([
            "port-forward",
            &format!("pod/{pod}"),
            "--address",
            "127.0.0.1",
            "-v=6",
        ]);
        command.args(remote.iter().map(|p| format!(":{p}")));
        command.env(
            "KUBECTL_PORT_FORWARD_WEBSOCKETS",
            if websockets { "true" } else { "false" },
        );
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut stderr_pipe = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr_pipe.read_to_string(&mut text);
            text
        });
        // "Forwarding from 127.0.0.1:LOCAL -> REMOTE", one line per port.
        let (lines, forwarded) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        let mut local = vec![0u16; remote.len()];
        while local.contains(&0) {
            let Ok(line) = forwarded.recv_timeout(Duration::from_secs(30)) else {
                let _ = child.kill();
                panic!(
                    "kubectl port-forward printed no ports: {}",
                    stderr.join().unwrap()
                );
            };
            let parsed = line
                .strip_prefix("Forwarding from 127.0.0.1:")
                .and_then(|rest| rest.split_once(" -> "))
                .and_then(|(l, r)| Some((l.parse::<u16>().ok()?, r.parse::<u16>().ok()?)));
            if let Some((l, r)) = parsed
                && let Some(at) = remote.iter().position(|p| *p == r)
            {
                local[at] = l;
            }
        }
        Forward {
            child,
            local,
            stderr: Some(stderr),
        }
    }

    /// Stops kubectl: what it printed on stderr.
    fn stop(&mut self) -> String {
        // An interrupt, as at a terminal: kubectl stops forwarding and flushes its log.
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        for _ in 0..100 {
            if self.child.try_wait().ok().flatten().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stderr
            .take()
            .map(|reading| reading.join().unwrap())
            .unwrap_or_default()
    }
}

/// Sends `request` on a connection to `port`, closes the sending side, and reads all until
/// kubectl closes the connection, which it does once the port's side has ended and the
/// error stream has closed (an error when it does not within 10 s: kubectl waits for the
/// error stream's end before it closes a connection).
fn exchange(port: u16, request: &[u8]) -> Result<String, String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request).unwrap();
    stream.shutdown(std::net::Shutdown::Write).unwrap();
    let mut answer = Vec::new();
    let read = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    match read {
        Ok(_) => Ok(answer),
        // kubectl resets the connection of a port whose error stream carried an error.
        Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => Ok(answer),
        Err(error) => Err(format!("{error} after {answer:?}")),
    }
}

fn forwards_http_and_tcp(cluster: &Cluster, websockets: bool) {
    let mut forward = Forward::start(cluster, websockets, &[8080, 9000, 7000]);
    let (http, echo, nothing) = (forward.local[0], forward.local[1], forward.local[2]);
    // Twice each, in turn: each connection is a pair of streams of its own.
    for round in 0..2 {
        let answer = exchange(
            http,
            format!(
                "POST /hello?round={round} HTTP/1.1\r\nHost: pod\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi"
            )
            .as_bytes(),
        );
        let answer = answer.unwrap_or_else(|e| panic!("{e}; kubectl: {}", forward.stop()));
        assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
        assert!(
            answer.ends_with(&format!("\r\n\r\nserved POST /hello?round={round} body=hi")),
            "{answer}"
        );
        let big = "x".repeat(100_000);
        let answer = exchange(echo, format!("round {round} {big}\n").as_bytes())
            .unwrap_or_else(|e| panic!("{e}; kubectl: {}", forward.stop()));
        assert_eq!(answer, format!("echo:round {round} {big}\n"));
    }
    // A port nothing listens on: the connection ends with nothing, and kubectl prints the
    // kubelet's error from the error stream.
    let answer = exchange(nothing, b"anyone?").unwrap();
    assert_eq!(answer, "");
    std::thread::sleep(Duration::from_millis(300));
    let stderr = forward.stop();
    assert!(
        stderr.contains("an error occurred forwarding ")
            && stderr.contains("-> 7000: error forwarding port 7000 to pod ")
            && stderr.contains(", uid : failed to connect to localhost:7000 inside namespace ")
            && stderr.contains(": dial tcp 127.0.0.1:7000: connect: connection refused"),
        "{stderr}"
    );
    // The framing asked for: a WebSocket (GET) or SPDY's upgrade (POST), switched.
    let verb = if websockets { "GET" } else { "POST" };
    assert!(
        stderr.lines().any(|line| line.contains(&format!("{verb} "))
            && line.contains("/pods/served/portforward")
            && line.contains("101 Switching Protocols")),
        "{stderr}"
    );
}

#[test]
fn kubectl_port_forward_over_a_websocket_tunnel_and_over_spdy() {
    let Some(cluster) = Cluster::start("kubectl_port_forward") else {
        return;
    };
    forwards_http_and_tcp(&cluster, true);
    forwards_http_and_tcp(&cluster, false);
    drop(cluster.runtime);
}

/// Reads from `stream` until what was read contains `end`.
async fn read_until<S: tokio::io::AsyncRead + Unpin>(stream: &mut S, end: &str) -> String {
    use tokio::io::AsyncReadExt;
    let mut read = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&read).contains(end) {
        let n = tokio::time::timeout(Duration::from_secs(30), stream.read(&mut buffer))
            .await
            .expect("the port answers")
            .unwrap();
        assert!(
            n > 0,
            "the stream ended: {}",
            String::from_utf8_lossy(&read)
        );
        read.extend_from_slice(&buffer[..n]);
    }
    String::from_utf8_lossy(&read).into_owned()
}

#[test]
fn kube_rs_port_forward_over_v4_channels() {
    use k8s_openapi::api::core::v1::Pod;
    use kube::api::Api;
    use kube::config::{KubeConfigOptions, Kubeconfig};

    let Some(cluster) = Cluster::start("kube_rs_port_forward") else {
        return;
    };
    let config = cluster.config.clone();
    cluster.runtime.block_on(async move {
        let kubeconfig = Kubeconfig::read_from(&config).unwrap();
        let config =
            kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
                .await
                .unwrap();
        let pods: Api<Pod> = Api::default_namespaced(kube::Client::try_from(config).unwrap());
        let mut forwarder = pods
            .portforward("served", &[8080, 9000, 7000])
            .await
            .unwrap();

        let mut http = forwarder.take_stream(8080).unwrap();
        http.write_all(b"GET /through/kube HTTP/1.1\r\nHost: pod\r\n\r\n")
            .await
            .unwrap();
        let answer = read_until(&mut http, "body=").await;
        assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
        assert!(
            answer.ends_with("\r\n\r\nserved GET /through/kube body="),
            "{answer}"
        );

        let mut echo = forwarder.take_stream(9000).unwrap();
        echo.write_all(b"ping").await.unwrap();
        assert_eq!(read_until(&mut echo, "ping").await, "echo:ping");

        // Nothing listens on 7000: the kubelet's error on the port's error channel.
        let error = forwarder
            .take_error(7000)
            .unwrap()
            .await
            .unwrap_or_default();
        assert!(
            error.starts_with("error forwarding port 7000 to pod ")
                && error.ends_with(": dial tcp 127.0.0.1:7000: connect: connection refused"),
            "{error}"
        );
        forwarder.abort();
    });
}

#[test]
fn the_binary_runs_a_program_per_connection() {
    let test = "kubectl_port_forward (binary)";
    let Some(corpus) = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"]) else {
        return;
    };
    let Some(kubectl) = kubeforge_tests::kubectl(test) else {
        return;
    };
    let Some(cat) = kubeforge_tests::program_in(
        "cat",
        std::env::var_os("PATH").as_deref(),
        test,
        kubeforge_tests::in_ci(),
    ) else {
        return;
    };
    let server = kubeforge_tests::kubectl_server::KubectlServer::start_with(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        &[
            "--simulate",
            "--container-port",
            &format!("example.com/cat:7777={}", cat.display()),
        ],
        &[corpus.join("kubernetes/swagger.json")],
    );
    let _ = server.ok(
        &[
            "run",
            "cat",
            "--image=example.com/cat:1.0",
            "--",
            "sleep",
            "3600",
        ],
        "",
    );
    let _ = server.ok(
        &["wait", "--for=condition=Ready", "pod/cat", "--timeout=30s"],
        "",
    );
    let mut forward = Forward::start_with(server.command(&[]), "cat", true, &[7777]);
    let answer = exchange(forward.local[0], b"meow\n");
    let answer = answer.unwrap_or_else(|e| panic!("{e}; kubectl: {}", forward.stop()));
    assert_eq!(answer, "meow\n");
    forward.stop();
}
