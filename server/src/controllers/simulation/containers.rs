//! What runs when a client execs into a simulated container (`pods/exec`): a handler per
//! image that a test registers ([`Simulation::exec`]), the opt-in handler that runs the
//! command as a process on this machine ([`Simulation::exec_on_host`], `--exec-on-host`),
//! or, where neither answers, what a container runtime answers for a command it cannot
//! find: its message on stderr and exit code 127.
//!
//! A handler gets the command's argv, its stdin (when the client sends one), stdout and
//! stderr, and returns the exit code; the verbs carry it over the client's protocol.

use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::controllers::simulation::{Simulation, text};

/// What a command reads.
pub type Input = Box<dyn AsyncRead + Send + Unpin>;
/// Where a command writes.
pub type Output = Box<dyn AsyncWrite + Send + Unpin>;

/// One command run in a container.
pub struct Exec {
    /// The command and its arguments (`kubectl exec POD -- ARGV…`).
    pub argv: Vec<String>,
    /// The container's environment: its `env` entries that have a `value`, then
    /// `HOSTNAME` (the Pod's name).
    pub env: Vec<(String, String)>,
    /// The container's `workingDir`, when it has one.
    pub working_dir: Option<String>,
    /// Whether the client asked for a terminal (`-t`): what is written to stderr then
    /// reaches the client's stdout, as on a terminal.
    pub tty: bool,
    /// Where the command runs: `<namespace>/<pod>/<container>`.
    pub container: String,
    /// The client's stdin, when it sends one (`-i`); it ends when the client closes it.
    pub stdin: Option<Input>,
    /// The client's stdout (a sink when it does not read it).
    pub stdout: Output,
    /// The client's stderr (a sink when it does not read it, or with a terminal).
    pub stderr: Output,
    /// The terminal's sizes (width, height), as the client sends them.
    pub resize: mpsc::Receiver<(u16, u16)>,
}

/// A command's end: its exit code.
pub type Running = Pin<Box<dyn Future<Output = i32> + Send>>;

/// What runs the commands exec'd into a container.
#[derive(Clone)]
pub struct ExecHandler(Arc<dyn Fn(Exec) -> Running + Send + Sync>);

impl fmt::Debug for ExecHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ExecHandler")
    }
}

/// What a scripted command answers ([`ExecHandler::script`]).
#[derive(Clone, Debug, Default)]
pub struct Answer {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub exit_code: i32,
}

impl ExecHandler {
    /// A handler that streams: it reads and writes as the command goes.
    pub fn new<F, R>(handler: F) -> ExecHandler
    where
        F: Fn(Exec) -> R + Send + Sync + 'static,
        R: Future<Output = i32> + Send + 'static,
    {
        ExecHandler(Arc::new(move |exec| Box::pin(handler(exec))))
    }

    /// A handler given the argv and all of stdin (once the client has closed it; nothing
    /// without `-i`), which answers stdout, stderr and the exit code.
    pub fn script<F>(answer: F) -> ExecHandler
    where
        F: Fn(&[String], &[u8]) -> Answer + Send + Sync + 'static,
    {
        let answer = Arc::new(answer);
        ExecHandler::new(move |mut exec: Exec| {
            let answer = answer.clone();
            async move {
                let mut input = Vec::new();
                if let Some(stdin) = exec.stdin.as_mut() {
                    let _ = stdin.read_to_end(&mut input).await;
                }
                let out = answer(&exec.argv, &input);
                let _ = exec.stdout.write_all(&out.stdout).await;
                let _ = exec.stdout.shutdown().await;
                let _ = exec.stderr.write_all(&out.stderr).await;
                let _ = exec.stderr.shutdown().await;
                out.exit_code
            }
        })
    }

    /// What a container runtime answers for a command it cannot find: runc's message on
    /// stderr, exit code 127 (as a shell's "command not found").
    pub fn not_found() -> ExecHandler {
        ExecHandler::new(|mut exec: Exec| async move {
            let program = exec.argv.first().cloned().unwrap_or_default();
            let message = not_found_message(&program);
            let _ = exec.stderr.write_all(message.as_bytes()).await;
            let _ = exec.stderr.shutdown().await;
            let _ = exec.stdout.shutdown().await;
            127
        })
    }

    /// Runs the argv as a process on this machine, in `scratch/<namespace>/<pod>/<container>`
    /// (and the container's `workingDir` under it), with `PATH` from this process and the
    /// container's environment; a program not found answers as [`ExecHandler::not_found`].
    /// It runs real commands with this process's rights: only for tests that want that.
    pub fn on_host(scratch: PathBuf) -> ExecHandler {
        ExecHandler::new(move |exec: Exec| host(scratch.clone(), exec))
    }

    /// Runs `program` on this machine with the command's argv as its arguments (in the
    /// scratch directory of the system's temporary directory): its stdin, stdout, stderr
    /// and exit code are the command's (`--container-exec IMAGE=PROGRAM`).
    pub fn program(program: PathBuf) -> ExecHandler {
        let scratch = std::env::temp_dir().join(format!("kubeforge-exec-{}", std::process::id()));
        ExecHandler::new(move |mut exec: Exec| {
            exec.argv.insert(0, program.display().to_string());
            host(scratch.clone(), exec)
        })
    }

    pub(crate) fn run(&self, exec: Exec) -> Running {
        (self.0)(exec)
    }
}

/// runc's message for a program it cannot find (`exec: "<program>": executable file not
/// found in $PATH`), as the runtime prints it.
fn not_found_message(program: &str) -> String {
    format!(
        "OCI runtime exec failed: exec failed: unable to start container process: exec: {}: executable file not found in $PATH: unknown\n",
        kubeforge_runtime::schema::gofmt::quote(program)
    )
}

async fn host(scratch: PathBuf, mut exec: Exec) -> i32 {
    let Some(program) = exec.argv.first().cloned() else {
        return ExecHandler::not_found().run(exec).await;
    };
    let mut directory = scratch.join(&exec.container);
    if let Some(dir) = &exec.working_dir {
        directory = directory.join(Path::new(dir.trim_start_matches('/')));
    }
    if std::fs::create_dir_all(&directory).is_err() {
        directory.clone_from(&scratch);
    }
    if exec.tty {
        return host_terminal(directory, program, exec).await;
    }
    let mut command = tokio::process::Command::new(&program);
    command
        .args(&exec.argv[1..])
        .current_dir(&directory)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &directory)
        .envs(exec.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(if exec.stdin.is_some() {
            std::process::Stdio::piped()
        } else {
            std::process::Stdio::null()
        })
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => return not_started(&program, &error, &mut exec.stderr).await,
    };
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let feed = async {
        if let (Some(mut from), Some(mut to)) = (exec.stdin.take(), stdin) {
            let _ = tokio::io::copy(&mut from, &mut to).await;
        }
    };
    let (mut out, mut err) = (exec.stdout, exec.stderr);
    let copy_out = async {
        if let Some(mut from) = stdout {
            let _ = tokio::io::copy(&mut from, &mut out).await;
        }
        let _ = out.shutdown().await;
    };
    let copy_err = async {
        if let Some(mut from) = stderr {
            let _ = tokio::io::copy(&mut from, &mut err).await;
        }
        let _ = err.shutdown().await;
    };
    let drain = async {
        tokio::join!(copy_out, copy_err);
    };
    let mut resize = exec.resize;
    let sizes = async { while resize.recv().await.is_some() {} };
    let ran = async {
        let ((), status) = tokio::join!(drain, child.wait());
        status
    };
    tokio::pin!(ran, feed, sizes);
    let (mut fed, mut sized) = (false, false);
    let status = loop {
        tokio::select! {
            status = &mut ran => break status,
            () = &mut feed, if !fed => fed = true,
            () = &mut sizes, if !sized => sized = true,
        }
    };
    match status {
        Ok(status) => status.code().unwrap_or_else(|| {
            use std::os::unix::process::ExitStatusExt;
            128 + status.signal().unwrap_or(9)
        }),
        Err(_) => 137,
    }
}

/// What the runtime answers for a process it could not start: runc's message on the
/// command's stderr, and exit code 127 for a program not found, else 126.
async fn not_started(program: &str, error: &std::io::Error, stderr: &mut Output) -> i32 {
    let (message, code) = match error.kind() {
        std::io::ErrorKind::NotFound => (not_found_message(program), 127),
        _ => (
            format!(
                "OCI runtime exec failed: exec failed: unable to start container process: exec: {}: {error}: unknown\n",
                kubeforge_runtime::schema::gofmt::quote(program)
            ),
            126,
        ),
    };
    let _ = stderr.write_all(message.as_bytes()).await;
    let _ = stderr.shutdown().await;
    code
}

/// How long a command with a terminal waits for the client's first terminal size before it
/// starts (kubectl sends it as soon as the streams are open), so it starts at that size.
const FIRST_SIZE: std::time::Duration = std::time::Duration::from_secs(1);

/// How long the terminal's last output is read for once the process has exited (a
/// process it started in the background may hold the terminal open).
const LAST_OUTPUT: std::time::Duration = std::time::Duration::from_secs(2);

/// [`host`] with a terminal (`-t`): the process runs on a pseudo-terminal, as the leader of
/// its own session with the terminal as its controlling terminal (pty-process, on
/// rustix's `openpt`, `setsid` and `TIOCSCTTY`), with `TERM=xterm` as containerd gives it;
/// the client's stdin is the terminal's input, the terminal's output its stdout (stderr
/// too, as on a terminal), and each size on the resize channel sets the terminal's size
/// (the kernel then signals `SIGWINCH`), the first before the process starts.
async fn host_terminal(directory: PathBuf, program: String, mut exec: Exec) -> i32 {
    let _ = exec.stderr.shutdown().await;
    let (pty, pts) = match pty_process::open() {
        Ok(opened) => opened,
        Err(error) => {
            let error = std::io::Error::other(error.to_string());
            return not_started(&program, &error, &mut exec.stdout).await;
        }
    };
    let first = tokio::time::timeout(FIRST_SIZE, exec.resize.recv())
        .await
        .ok()
        .flatten();
    let (width, height) = first.unwrap_or((80, 24));
    let _ = pty.resize(pty_process::Size::new(height, width));
    let command = pty_process::Command::new(&program)
        .args(&exec.argv[1..])
        .current_dir(&directory)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &directory)
        .envs(exec.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("TERM", "xterm")
        .kill_on_drop(true);
    let mut child = match command.spawn(pts) {
        Ok(child) => child,
        Err(pty_process::Error::Io(error)) => {
            return not_started(&program, &error, &mut exec.stdout).await;
        }
        Err(error) => {
            let error = std::io::Error::other(error.to_string());
            return not_started(&program, &error, &mut exec.stdout).await;
        }
    };
    let (mut output, mut input) = pty.into_split();
    let mut stdout = exec.stdout;
    // The terminal's output until the process and all that holds the terminal are gone
    // (reading then fails with EIO, which ends the copy).
    let mut shown = tokio::spawn(async move {
        let _ = tokio::io::copy(&mut output, &mut stdout).await;
        let _ = stdout.shutdown().await;
    });
    let mut resize = exec.resize;
    let mut stdin = exec.stdin.take();
    let typing = async move {
        let mut buffer = vec![0u8; 4096];
        let (mut sizing, mut keying) = (true, stdin.is_some());
        // The input stays open when stdin ends: the process sees its end only as a
        // terminal shows one.
        while sizing || keying {
            tokio::select! {
                size = resize.recv(), if sizing => match size {
                    Some((width, height)) => {
                        let _ = input.resize(pty_process::Size::new(height, width));
                    }
                    None => sizing = false,
                },
                read = async {
                    match stdin.as_mut() {
                        Some(from) => from.read(&mut buffer).await,
                        None => Ok(0),
                    }
                }, if keying => match read {
                    Ok(n) if n > 0 => {
                        if input.write_all(&buffer[..n]).await.is_err() {
                            keying = false;
                        }
                    }
                    _ => keying = false,
                },
            }
        }
        std::future::pending::<()>().await;
    };
    let status = tokio::select! {
        status = child.wait() => status,
        () = typing => child.wait().await,
    };
    if tokio::time::timeout(LAST_OUTPUT, &mut shown).await.is_err() {
        shown.abort();
    }
    match status {
        Ok(status) => status.code().unwrap_or_else(|| {
            use std::os::unix::process::ExitStatusExt;
            128 + status.signal().unwrap_or(9)
        }),
        Err(_) => 137,
    }
}

/// What listens on a container's port: an HTTP service (`pods/{name}:{port}/proxy/…`,
/// `services/{name}:{port}/proxy/…`, and HTTP/1.1 through `kubectl port-forward`), or a
/// handler of raw TCP connections (`kubectl port-forward`, and the proxies, which speak
/// HTTP/1.1 to it).
#[derive(Clone)]
pub struct PortHandler(Listener);

#[derive(Clone)]
enum Listener {
    Http(Arc<dyn Fn(http::Request<bytes::Bytes>) -> Reply + Send + Sync>),
    Tcp(Arc<dyn Fn(Connection) -> Served + Send + Sync>),
}

/// A port's answer.
pub type Reply = Pin<Box<dyn Future<Output = http::Response<bytes::Bytes>> + Send>>;

/// One connection to a port, as the container's process accepts it: the bytes the client
/// sends, and where its answer goes; reading returns 0 once the client has closed its
/// side.
pub type Connection = tokio::io::DuplexStream;

/// A connection served to its end.
pub type Served = Pin<Box<dyn Future<Output = ()> + Send>>;

/// How much of a connection's bytes wait for their reader.
const CONNECTION_BUFFER: usize = 64 * 1024;

impl fmt::Debug for PortHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PortHandler")
    }
}

impl PortHandler {
    /// The port served by `service` (cloned for each request).
    pub fn service<S>(service: S) -> PortHandler
    where
        S: tower_service::Service<
                http::Request<bytes::Bytes>,
                Response = http::Response<bytes::Bytes>,
                Error = std::convert::Infallible,
            > + Clone
            + Send
            + Sync
            + 'static,
        S::Future: Send + 'static,
    {
        PortHandler(Listener::Http(Arc::new(move |request| {
            let mut service = service.clone();
            Box::pin(async move {
                let Ok(()) = std::future::poll_fn(|cx| service.poll_ready(cx)).await;
                let Ok(response) = service.call(request).await;
                response
            })
        })))
    }

    /// The port served by `handler`, called with each connection (an echo server:
    /// `tokio::io::copy` from its read half to its write half).
    pub fn tcp<F, R>(handler: F) -> PortHandler
    where
        F: Fn(Connection) -> R + Send + Sync + 'static,
        R: Future<Output = ()> + Send + 'static,
    {
        PortHandler(Listener::Tcp(Arc::new(move |connection| {
            Box::pin(handler(connection))
        })))
    }

    /// The port served by `program` on this machine, run once per connection as inetd
    /// runs a service: the bytes the client sends are its stdin (closed when the client
    /// closes its side), its stdout the answer, the connection's end its exit
    /// (`--container-port IMAGE:PORT=PROGRAM`). It runs with this process's rights.
    pub fn program(program: PathBuf) -> PortHandler {
        PortHandler::tcp(move |connection| {
            let program = program.clone();
            async move {
                let child = tokio::process::Command::new(&program)
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::null())
                    .kill_on_drop(true)
                    .spawn();
                let Ok(mut child) = child else {
                    return;
                };
                let (mut from, mut to) = tokio::io::split(connection);
                let (stdin, stdout) = (child.stdin.take(), child.stdout.take());
                let feed = async move {
                    if let Some(mut stdin) = stdin {
                        let _ = tokio::io::copy(&mut from, &mut stdin).await;
                    }
                };
                let answer = async move {
                    if let Some(mut stdout) = stdout {
                        let _ = tokio::io::copy(&mut stdout, &mut to).await;
                    }
                    let _ = to.shutdown().await;
                };
                let _ = tokio::join!(feed, answer, child.wait());
            }
        })
    }

    /// A connection to the port, as a dial reaches it: the client's end, the port served
    /// on the other (the HTTP service behind hyper's HTTP/1.1 server). Needs the runtime.
    pub(crate) fn connect(&self) -> Connection {
        let (client, server) = tokio::io::duplex(CONNECTION_BUFFER);
        match &self.0 {
            Listener::Tcp(handler) => {
                tokio::spawn(handler(server));
            }
            Listener::Http(service) => {
                let service = service.clone();
                tokio::spawn(async move {
                    let serve = hyper::service::service_fn(
                        move |request: http::Request<hyper::body::Incoming>| {
                            let service = service.clone();
                            async move {
                                let (head, body) = request.into_parts();
                                let body = http_body_util::BodyExt::collect(body)
                                    .await
                                    .map(http_body_util::Collected::to_bytes)
                                    .unwrap_or_default();
                                let (head, bytes) = service(http::Request::from_parts(head, body))
                                    .await
                                    .into_parts();
                                Ok::<_, std::convert::Infallible>(http::Response::from_parts(
                                    head,
                                    http_body_util::Full::new(bytes),
                                ))
                            }
                        },
                    );
                    // A client may close its sending side once its request is sent (as
                    // `kubectl port-forward` passes a local half-close on): the answer is
                    // still written.
                    let _ = hyper::server::conn::http1::Builder::new()
                        .half_close(true)
                        .serve_connection(hyper_util::rt::TokioIo::new(server), serve)
                        .await;
                });
            }
        }
        client
    }

    /// The answer to `request` (what the proxies forward): the service's, or, for a TCP
    /// handler, the answer it writes to the request sent as HTTP/1.1 on a connection.
    pub(crate) fn call(&self, request: http::Request<bytes::Bytes>) -> Reply {
        match &self.0 {
            Listener::Http(service) => service(request),
            Listener::Tcp(_) => {
                let connection = self.connect();
                Box::pin(async move {
                    match http1_exchange(connection, request).await {
                        Ok(response) => response,
                        Err(error) => {
                            let mut response = http::Response::new(bytes::Bytes::from(format!(
                                "error trying to reach service: {error}"
                            )));
                            *response.status_mut() = http::StatusCode::BAD_GATEWAY;
                            response
                        }
                    }
                })
            }
        }
    }
}

/// One HTTP/1.1 request and its response on `connection` (hyper's client).
async fn http1_exchange(
    connection: Connection,
    request: http::Request<bytes::Bytes>,
) -> Result<http::Response<bytes::Bytes>, hyper::Error> {
    let (mut sender, driver) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(connection)).await?;
    tokio::spawn(driver);
    let (head, body) = request.into_parts();
    let response = sender
        .send_request(http::Request::from_parts(
            head,
            http_body_util::Full::new(body),
        ))
        .await?;
    let (head, body) = response.into_parts();
    let bytes = http_body_util::BodyExt::collect(body).await?.to_bytes();
    Ok(http::Response::from_parts(head, bytes))
}

impl Simulation {
    /// Registers what listens on `port` of the containers of `image` (`busybox:1.36`, or
    /// `busybox` for every tag): reached by `pods/{name}:{port}/proxy`, the proxy of a
    /// Service that targets it, and `pods/{name}/portforward` (`kubectl port-forward`).
    #[must_use]
    pub fn port(mut self, image: &str, port: u16, handler: PortHandler) -> Simulation {
        self.ports.insert((image.to_owned(), port), handler);
        self
    }

    /// Registers what runs the commands exec'd into containers of `image` (`busybox:1.36`,
    /// or `busybox` for every tag of it).
    #[must_use]
    pub fn exec(mut self, image: &str, handler: ExecHandler) -> Simulation {
        self.exec.insert(image.to_owned(), handler);
        self
    }

    /// Runs the commands exec'd into containers no handler is registered for as processes
    /// on this machine (`--exec-on-host`): see [`ExecHandler::on_host`]. Off by default.
    #[must_use]
    pub fn exec_on_host(mut self, scratch: PathBuf) -> Simulation {
        self.exec_on_host = Some(scratch);
        self
    }
}

/// The handler for `container` of `pod`: the one registered for its image (with its tag,
/// then without), else the host's when it runs commands, else [`ExecHandler::not_found`];
/// with the container's environment and working directory.
pub(crate) fn handler(
    simulation: &Simulation,
    pod: &Value,
    container: &str,
) -> (ExecHandler, Vec<(String, String)>, Option<String>) {
    let spec = ["containers", "initContainers", "ephemeralContainers"]
        .iter()
        .filter_map(|list| {
            pod.pointer(&format!("/spec/{list}"))
                .and_then(Value::as_array)
        })
        .flatten()
        .find(|c| text(c, "/name") == container);
    let image = spec.map_or("", |c| text(c, "/image"));
    let untagged = match image.rsplit_once(':') {
        Some((name, tag)) if !tag.contains('/') => name,
        _ => image,
    };
    let mut env: Vec<(String, String)> = spec
        .and_then(|c| c.get("env"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let value = e.get("value").and_then(Value::as_str)?;
            Some((text(e, "/name").to_owned(), value.to_owned()))
        })
        .collect();
    env.push((
        "HOSTNAME".to_owned(),
        text(pod, "/metadata/name").to_owned(),
    ));
    let working_dir = spec
        .map(|c| text(c, "/workingDir"))
        .filter(|d| !d.is_empty())
        .map(str::to_owned);
    let handler = simulation
        .exec
        .get(image)
        .or_else(|| simulation.exec.get(untagged))
        .cloned()
        .or_else(|| simulation.exec_on_host.clone().map(ExecHandler::on_host))
        .unwrap_or_else(ExecHandler::not_found);
    (handler, env, working_dir)
}

/// The handler of `port` of `pod` (with no port, the first port its containers declare, as
/// the API server picks it): the one registered for a container's image and that port.
pub(crate) fn port_handler(
    simulation: &Simulation,
    pod: &Value,
    port: Option<u16>,
) -> Option<PortHandler> {
    let containers: Vec<&Value> = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    let port = port.or_else(|| {
        containers.iter().find_map(|c| {
            c.pointer("/ports/0/containerPort")
                .and_then(Value::as_u64)
                .and_then(|p| u16::try_from(p).ok())
        })
    })?;
    containers.iter().find_map(|c| {
        let image = text(c, "/image");
        let untagged = match image.rsplit_once(':') {
            Some((name, tag)) if !tag.contains('/') => name,
            _ => image,
        };
        simulation
            .ports
            .get(&(image.to_owned(), port))
            .or_else(|| simulation.ports.get(&(untagged.to_owned(), port)))
            .cloned()
    })
}

/// The ports the simulation serves in `pod`'s containers, by number: each container's
/// image's (with its tag, then without), the first container's first.
pub(crate) fn pod_ports(
    simulation: &Simulation,
    pod: &Value,
) -> std::collections::BTreeMap<u16, PortHandler> {
    let mut ports = std::collections::BTreeMap::new();
    let containers = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    for container in containers {
        let image = text(container, "/image");
        let untagged = match image.rsplit_once(':') {
            Some((name, tag)) if !tag.contains('/') => name,
            _ => image,
        };
        for ((registered, port), handler) in &simulation.ports {
            if registered == image || registered == untagged {
                ports.entry(*port).or_insert_with(|| handler.clone());
            }
        }
    }
    ports
}

/// The Pod's sandbox, as the runtime names it (64 hex digits from its uid): what the
/// kubelet's port-forward errors name the Pod by.
pub(crate) fn sandbox_id(pod: &Value) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(format!("sandbox/{}", text(pod, "/metadata/uid")));
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
