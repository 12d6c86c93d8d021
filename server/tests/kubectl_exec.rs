//! `kubectl exec` into the simulation's containers, over the WebSocket protocols kubectl
//! and client libraries speak (`v5.channel.k8s.io`, `v4.channel.k8s.io`), against Kubernetes
//! 1.36's `swagger.json`:
//! - `serve --simulate --exec-on-host` runs real commands: a shell loop, `cat` echoing
//!   stdin, `exit 3` giving kubectl's exit code 3, a terminal (`-it`, kubectl under
//!   `script`: the process on a pseudo-terminal, its controlling terminal, at the size
//!   kubectl sends on the resize channel), the container's environment and working
//!   directory;
//! - `serve --simulate` without it answers as a runtime answers a command it cannot find
//!   (exit code 127 and runc's message), not a 500;
//! - a handler a test registers per image (`Simulation::exec`) gets argv and stdin and
//!   answers stdout, stderr and an exit code, through kubectl and through a WebSocket client
//!   of `v4.channel.k8s.io` that reads each channel byte and the error channel's `Status`;
//! - a `tower::Service` a test registers per image and port (`Simulation::port`) answers
//!   `pods/{name}:{port}/proxy/…` and `services/{name}:{port}/proxy/…` (`kubectl get
//!   --raw`).
//!
//! kubectl is found on `PATH`; without it or the corpus the test prints `SKIPPED: …`, and
//! fails in CI.

use std::process::Command;

use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use kubeforge_server::{Answer, Catalog, ExecHandler, Options, PortHandler, Server, Simulation};
use kubeforge_tests::kubectl_server::KubectlServer;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

fn start(test: &str, flags: &[&str]) -> Option<KubectlServer> {
    let corpus = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"])?;
    let kubectl = kubeforge_tests::kubectl(test)?;
    Some(KubectlServer::start_with(
        env!("CARGO_BIN_EXE_kubeforge-server"),
        kubectl,
        flags,
        &[corpus.join("kubernetes/swagger.json")],
    ))
}

/// A running Pod `name` of `image` whose container `main` has `FOO=bar` and the working
/// directory `/work`.
fn running_pod(server: &KubectlServer, name: &str, image: &str) {
    let manifest = format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
  - name: main
    image: {image}
    command: [sleep, '3600']
    workingDir: /work
    env:
    - name: FOO
      value: bar
"
    );
    let _ = server.ok(&["apply", "-f", "-"], &manifest);
    let _ = server.ok(
        &[
            "wait",
            "--for=condition=Ready",
            &format!("pod/{name}"),
            "--timeout=30s",
        ],
        "",
    );
}

/// kubectl's exit code, stdout and stderr.
fn exec(server: &KubectlServer, args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut command = server.command(args);
    let output = kubeforge_tests::kubectl_server::output_with_stdin(&mut command, stdin);
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// kubectl with a terminal for its stdin and stdout (under util-linux's `script`, its
/// terminal set to 123 columns and 45 rows), as a user at a terminal runs `kubectl exec
/// -it`: its exit code and what the terminal showed.
fn exec_at_terminal(server: &KubectlServer, args: &[&str]) -> Option<(i32, String)> {
    // Without util-linux's `script`: a failure in CI, else a skip of the terminal part.
    let script = kubeforge_tests::program_in(
        "script",
        std::env::var_os("PATH").as_deref(),
        "kubectl_exec (terminal part)",
        kubeforge_tests::in_ci(),
    )?;
    let kubectl = server.command(args);
    let line: Vec<String> = std::iter::once(kubectl.get_program())
        .chain(kubectl.get_args())
        .map(|a| shell_quote(&a.to_string_lossy()))
        .collect();
    let output = Command::new(script)
        .args([
            "-q",
            "-e",
            "-c",
            &format!("stty cols 123 rows 45; {}", line.join(" ")),
            "/dev/null",
        ])
        .current_dir(server.dir())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script runs");
    Some((
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    ))
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[test]
fn exec_on_host_runs_real_commands() {
    let Some(server) = start("kubectl_exec", &["--simulate", "--exec-on-host"]) else {
        return;
    };
    running_pod(&server, "shell", "busybox:stable");

    let (code, stdout, stderr) = exec(
        &server,
        &[
            "exec",
            "shell",
            "--",
            "sh",
            "-c",
            "for i in $(seq 1 3); do echo $i; done",
        ],
        "",
    );
    assert_eq!((code, stdout.as_str()), (0, "1\n2\n3\n"), "{stderr}");

    // stdin reaches the command, and its end ends `cat`.
    let (code, stdout, stderr) = exec(&server, &["exec", "-i", "shell", "--", "cat"], "one\ntwo\n");
    assert_eq!((code, stdout.as_str()), (0, "one\ntwo\n"), "{stderr}");

    // A command's exit code is kubectl's; its stderr is kubectl's stderr.
    let (code, stdout, stderr) = exec(
        &server,
        &[
            "exec",
            "shell",
            "--",
            "sh",
            "-c",
            "echo out; echo oops >&2; exit 3",
        ],
        "",
    );
    assert_eq!((code, stdout.as_str()), (3, "out\n"), "{stderr}");
    assert!(
        stderr.contains("oops\n") && stderr.contains("command terminated with exit code 3"),
        "{stderr}"
    );

    // The container's environment and working directory (under the scratch directory).
    let (code, stdout, stderr) = exec(
        &server,
        &[
            "exec",
            "shell",
            "--",
            "sh",
            "-c",
            "echo $FOO $HOSTNAME; pwd; echo term=$TERM",
        ],
        "",
    );
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "bar shell", "{stdout}");
    assert!(lines[1].ends_with("/default/shell/main/work"), "{stdout}");
    assert_eq!(lines[2], "term=", "no terminal without -t: {stdout}");

    // With a terminal (`-t`): the process's stdin, stdout and stderr are a terminal, its
    // controlling one, of the client's size (sent on the resize channel); the runtime's
    // `TERM`; stderr on the terminal; the exit code.
    if let Some((code, shown)) = exec_at_terminal(
        &server,
        &[
            "exec",
            "-it",
            "shell",
            "--",
            "sh",
            "-c",
            "test -t 0 && test -t 1 && test -t 2 && echo tty=yes; (: </dev/tty) 2>/dev/null && echo controlling=yes; echo size=$(stty size); echo term=$TERM; echo err >&2; exit 4",
        ],
    ) {
        assert_eq!(code, 4, "{shown}");
        assert!(shown.contains("tty=yes"), "{shown}");
        assert!(shown.contains("controlling=yes"), "{shown}");
        assert!(shown.contains("size=45 123"), "{shown}");
        assert!(shown.contains("term=xterm"), "{shown}");
        assert!(shown.contains("err"), "{shown}");
        assert!(
            shown.contains("command terminated with exit code 4"),
            "{shown}"
        );
    }

    // A program this machine does not have: the runtime's answer.
    let (code, _, stderr) = exec(
        &server,
        &["exec", "shell", "--", "no-such-program-here"],
        "",
    );
    assert_eq!(code, 127, "{stderr}");
}

#[test]
fn without_a_handler_a_command_is_not_found() {
    let Some(server) = start("kubectl_exec", &["--simulate"]) else {
        return;
    };
    running_pod(&server, "quiet", "busybox:stable");
    let (code, stdout, stderr) = exec(&server, &["exec", "quiet", "--", "ls", "/"], "");
    assert_eq!((code, stdout.as_str()), (127, ""), "{stderr}");
    assert!(
        stderr.contains(
            "OCI runtime exec failed: exec failed: unable to start container process: exec: \"ls\": executable file not found in $PATH: unknown"
        ) && stderr.contains("command terminated with exit code 127"),
        "{stderr}"
    );
    // What the API server checks before it dials the kubelet still answers first.
    let stderr = server.fails(&["exec", "quiet", "-c", "other", "--", "ls"], "");
    assert!(
        stderr.contains("container other is not valid for pod quiet"),
        "{stderr}"
    );
}

/// The handler a test registers: argv and stdin in; stdout, stderr and an exit code out.
fn scripted() -> ExecHandler {
    ExecHandler::script(|argv: &[String], stdin: &[u8]| Answer {
        stdout: format!(
            "argv={} stdin={}\n",
            argv.join(","),
            String::from_utf8_lossy(stdin)
        )
        .into_bytes(),
        stderr: b"to stderr\n".to_vec(),
        exit_code: 5,
    })
}

/// A port's service: it answers the method and the path it was given.
fn echo() -> PortHandler {
    PortHandler::service(tower::service_fn(
        |request: http::Request<Bytes>| async move {
            Ok::<_, std::convert::Infallible>(http::Response::new(Bytes::from(format!(
                "{} {}",
                request.method(),
                request.uri()
            ))))
        },
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registered_handler_answers_over_both_protocols() {
    let test = "kubectl_exec";
    let Some(corpus) = kubeforge_tests::corpus(test, &["kubernetes/swagger.json"]) else {
        return;
    };
    let Some(kubectl) = kubeforge_tests::kubectl(test) else {
        return;
    };
    let catalog = Catalog::from_documents(&[corpus.join("kubernetes/swagger.json")]).unwrap();
    let options = Options {
        simulation: Some(
            Simulation::default()
                .exec("example.com/scripted", scripted())
                .port("example.com/scripted", 8080, echo()),
        ),
        ..Options::default()
    };
    let server = Server::with_options(catalog, options);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    std::fs::write(&config, server.admin_kubeconfig(address, false).unwrap()).unwrap();
    tokio::spawn(kubeforge_server::serve(
        server,
        listener,
        std::future::pending(),
    ));
    let kubectl_run = |args: Vec<String>, stdin: String| {
        let (kubectl, config) = (kubectl.clone(), config.clone());
        tokio::task::spawn_blocking(move || {
            let mut command = Command::new(kubectl);
            command.arg("--kubeconfig").arg(config).args(args);
            kubeforge_tests::kubectl_server::output_with_stdin(&mut command, &stdin)
        })
    };
    let args = |line: &str| line.split(' ').map(str::to_owned).collect::<Vec<_>>();
    let created = kubectl_run(
        args("run scripted --image=example.com/scripted:1.0 --port=8080 -- sleep 3600"),
        String::new(),
    )
    .await
    .unwrap();
    assert!(created.status.success(), "{created:?}");
    let ready = kubectl_run(
        args("wait --for=condition=Ready pod/scripted --timeout=30s"),
        String::new(),
    )
    .await
    .unwrap();
    assert!(ready.status.success(), "{ready:?}");

    // kubectl (v5.channel.k8s.io): stdin in, until it ends; stdout, stderr, exit code out.
    let out = kubectl_run(args("exec -i scripted -- greet a b"), "hello\n".to_owned())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "argv=greet,a,b stdin=hello\n\n"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("to stderr\n") && stderr.contains("command terminated with exit code 5"),
        "{stderr}"
    );

    // The port's service, through the Pod's proxy (with the port, and the first declared).
    for (id, answer) in [
        ("scripted:8080", "GET /hello?x=1"),
        ("scripted", "GET /hello?x=1"),
    ] {
        let out = kubectl_run(
            args(&format!(
                "get --raw /api/v1/namespaces/default/pods/{id}/proxy/hello?x=1"
            )),
            String::new(),
        )
        .await
        .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), answer, "{out:?}");
    }
    // And through a Service whose target port it is.
    let exposed = kubectl_run(
        args("expose pod scripted --port=80 --target-port=8080"),
        String::new(),
    )
    .await
    .unwrap();
    assert!(exposed.status.success(), "{exposed:?}");
    let mut through = String::new();
    for _ in 0..100 {
        let out = kubectl_run(
            args("get --raw /api/v1/namespaces/default/services/scripted:80/proxy/via?y=2"),
            String::new(),
        )
        .await
        .unwrap();
        through = String::from_utf8_lossy(&out.stdout).into_owned();
        if out.status.success() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(through, "GET /via?y=2");
    // A port nothing serves: the refused connection, as before.
    let out = kubectl_run(
        args("get --raw /api/v1/namespaces/default/pods/scripted:9090/proxy/"),
        String::new(),
    )
    .await
    .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(":9090: connect: connection refused"),
        "{out:?}"
    );

    // A client of v4.channel.k8s.io, message by message.
    let frames = v4_session(
        address,
        "/api/v1/namespaces/default/pods/scripted/exec?command=x&command=y&stdout=true&stderr=true",
    )
    .await;
    assert_eq!(
        frames,
        vec![
            vec![1],
            [&[1u8][..], b"argv=x,y stdin=\n"].concat(),
            [&[2u8][..], b"to stderr\n"].concat(),
            [&[3u8][..], br#"{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing command [x y], exit code 5","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"5"}]}}"#].concat(),
        ]
    );
}

/// The binary messages of a v4 session on `path`, until the server's normal closure.
async fn v4_session(address: std::net::SocketAddr, path: &str) -> Vec<Vec<u8>> {
    let mut request = format!("ws://{address}{path}")
        .into_client_request()
        .unwrap();
    request.headers_mut().insert(
        "Sec-WebSocket-Protocol",
        "v4.channel.k8s.io".parse().unwrap(),
    );
    let stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let (mut socket, response) = tokio_tungstenite::client_async(request, stream)
        .await
        .unwrap();
    assert_eq!(
        response.headers()["Sec-WebSocket-Protocol"],
        "v4.channel.k8s.io"
    );
    let mut frames = Vec::new();
    while let Some(message) = socket.next().await {
        match message.unwrap() {
            Message::Binary(data) => {
                // The stdout and stderr pumps run side by side: keep each channel's order.
                frames.push(data.to_vec());
            }
            Message::Close(frame) => {
                let code = frame.map(|f| u16::from(f.code));
                assert_eq!(code, Some(1000), "a normal closure");
                let _ = socket.close(None).await;
                break;
            }
            _ => {}
        }
    }
    let _ = socket.send(Message::Close(None)).await;
    frames.sort_by_key(|f| f.first().copied());
    frames
}
