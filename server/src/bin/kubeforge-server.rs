//! `kubeforge-server serve [--schemas DIR | inputs…] [--listen 127.0.0.1:0] [--kubeconfig FILE]
//! [--insecure-http] [--releases 1.32,… --release 1.32]`: an in-memory API server for the resources of the input documents, on a
//! loopback port. It serves HTTPS, with a serving certificate from the cluster's CA (which
//! the kubeconfig trusts), as kube-apiserver serves only its secure port; the first line of
//! output is `listening on https://<address>` (`http://` with `--insecure-http`); Ctrl-C or
//! SIGTERM stops it. The kubeconfig's user is the administrator, by its token; over TLS a
//! request without credentials is `system:anonymous`, over plain HTTP (asked for with
//! `--insecure-http`, as kube-apiserver's old `--insecure-port` served it) it acts as the
//! administrator (kubectl sends no credentials over plain HTTP). `--simulate` runs a
//! simulated cluster inside it (nodes, scheduler, kubelets, controllers), whose clock
//! `/simulation/clock` moves.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use kubeforge_server::{
    Catalog, ExecHandler, Options, PortHandler, Server, Simulation, Usage, serve, serve_tls,
};

#[derive(Parser)]
#[command(
    about = "An in-memory Kubernetes-style API server for the resources of OpenAPI documents and CRDs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the documents' resources until Ctrl-C or SIGTERM.
    Serve {
        /// Serve every `.json`, `.yaml` and `.yml` document in this directory (besides any
        /// inputs).
        #[arg(long)]
        schemas: Option<PathBuf>,
        /// Documents to serve (OpenAPI v3, Swagger 2.0, CRDs).
        inputs: Vec<PathBuf>,
        /// The loopback address to listen on (port 0 picks a free one).
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: SocketAddr,
        /// Write a kubeconfig for kubectl here.
        #[arg(long)]
        kubeconfig: Option<PathBuf>,
        /// Serve plain HTTP instead of HTTPS: every request without credentials acts as the
        /// administrator, as kube-apiserver's old insecure port served it. For tests that
        /// speak raw HTTP; anyone who can reach the port can do anything.
        #[arg(long)]
        insecure_http: bool,
        /// Serve over TLS: the default, kept for scripts that name it.
        #[arg(long, hide = true, conflicts_with = "insecure_http")]
        tls: bool,
        /// The release each input belongs to, in the inputs' order (`1.32,1.33,…`): the
        /// documents of several releases merged, as `kubeforge --releases` merges them.
        #[arg(long, value_delimiter = ',', requires = "release")]
        releases: Vec<String>,
        /// Serve this one of `--releases`: its resources, operations, fields and enum
        /// values, from the merged documents.
        #[arg(long, requires = "releases")]
        release: Option<String>,
        /// Read and write protobuf bodies with the messages of the `.proto` files under this
        /// directory, laid out by import path (`k8s.io/api/core/v1/generated.proto`), as
        /// `kubeforge --proto` reads them: those of the release served, so that its newer
        /// kinds and fields travel in protobuf too. Without it, the built-in messages
        /// (Kubernetes 1.35's).
        #[arg(long)]
        proto: Option<PathBuf>,
        #[command(flatten)]
        limits: LimitArgs,
        #[command(flatten)]
        simulation: SimulationArgs,
    },
}

/// The simulated cluster (off unless `--simulate`).
#[derive(clap::Args)]
struct SimulationArgs {
    /// Run a simulated cluster: Nodes, a scheduler, kubelets and kube-controller-manager's
    /// controllers; its clock is moved with `POST /simulation/clock?advance=5m`.
    #[arg(long)]
    simulate: bool,
    /// How many simulated worker Nodes (`node-1`…), besides the control plane's
    /// `kubeforge-control-plane`, each with 4 CPUs, 16Gi and 110 Pods.
    #[arg(long, default_value_t = 3, requires = "simulate")]
    nodes: usize,
    /// Seconds (of the server's clock) a started container takes to become ready.
    #[arg(long, default_value_t = 0, requires = "simulate")]
    ready_after: u64,
    /// Seconds a Pod with `restartPolicy: Never` or `OnFailure` runs before it succeeds.
    #[arg(long, default_value_t = 0, requires = "simulate")]
    run_for: u64,
    /// Seconds a container takes to stop once its Pod is deleted; one still running when
    /// the grace period ends is killed (exit code 137).
    #[arg(long, default_value_t = 0, requires = "simulate")]
    stop_after: u64,
    /// Start with the clock frozen: it moves only when advanced.
    #[arg(long, requires = "simulate")]
    frozen: bool,
    /// `IMAGE=FILE`: the containers of this image (`busybox:1.36`, or `busybox` for every
    /// tag) print this file's text, which `kubectl logs` returns (`Simulation::logs`).
    /// Repeatable.
    #[arg(
        long = "container-log",
        value_name = "IMAGE=FILE",
        requires = "simulate"
    )]
    container_logs: Vec<String>,
    /// `IMAGE=CPU,MEMORY`: what the containers of this image use (`nginx=250m,64Mi`), as
    /// `kubectl top` shows it (`Simulation::usage`); others use their requests. Repeatable.
    #[arg(
        long = "container-usage",
        value_name = "IMAGE=CPU,MEMORY",
        requires = "simulate"
    )]
    container_usage: Vec<String>,
    /// Without metrics-server (and the metrics API `kubectl top` reads).
    #[arg(long, requires = "simulate")]
    no_metrics: bool,
    /// `IMAGE=PROGRAM`: a command exec'd into a container of this image (`kubectl exec`)
    /// runs PROGRAM on this machine with the command's argv as its arguments; its stdin,
    /// stdout, stderr and exit code are the command's (`ExecHandler::program`). Repeatable.
    #[arg(
        long = "container-exec",
        value_name = "IMAGE=PROGRAM",
        requires = "simulate"
    )]
    container_execs: Vec<String>,
    /// `IMAGE:PORT=PROGRAM`: each connection to PORT of a container of this image
    /// (`kubectl port-forward`, and the proxies, which speak HTTP/1.1 on it) runs PROGRAM on
    /// this machine, as inetd runs a service: what the client sends is its stdin, its stdout
    /// the answer (`PortHandler::program`). Repeatable.
    #[arg(
        long = "container-port",
        value_name = "IMAGE:PORT=PROGRAM",
        requires = "simulate"
    )]
    container_ports: Vec<String>,
    /// Run the commands exec'd into containers (`kubectl exec`) as processes ON THIS
    /// MACHINE, with this server's rights, in a scratch directory per container, with the
    /// container's environment (`Simulation::exec_on_host`). Off by default: a command
    /// is then not found (exit code 127), unless `--container-exec` names its image.
    #[arg(long, requires = "simulate")]
    exec_on_host: bool,
}

/// The limits that keep the server up (see `Options`); 0 turns one off.
#[derive(clap::Args)]
struct LimitArgs {
    /// The largest request body accepted, in bytes (kube-apiserver's 3 MiB); larger is 413.
    #[arg(long, default_value_t = Options::default().body_limit)]
    max_request_body_bytes: usize,
    /// Requests per second each identity may send, sustained; more is 429 (the
    /// administrator, in `system:masters`, is exempt, as from kube-apiserver's flow control).
    #[arg(long, default_value_t = Options::default().requests_per_second)]
    requests_per_second: u32,
    /// Requests each identity may send at once above its rate.
    #[arg(long, default_value_t = Options::default().request_burst)]
    request_burst: u32,
    /// Watches each identity may hold open at once; one more is 429.
    #[arg(long, default_value_t = Options::default().watches_per_identity)]
    watches_per_identity: usize,
    /// Read-only requests in flight at once, all identities together (kube-apiserver's
    /// flag); one more is 429, but for the administrator. Watches and other long-running
    /// requests are not counted.
    #[arg(long, default_value_t = Options::default().max_requests_inflight)]
    max_requests_inflight: usize,
    /// Other requests in flight at once, likewise (kube-apiserver's flag).
    #[arg(long, default_value_t = Options::default().max_mutating_requests_inflight)]
    max_mutating_requests_inflight: usize,
}

impl LimitArgs {
    fn apply(&self, options: Options) -> Options {
        Options {
            body_limit: self.max_request_body_bytes,
            requests_per_second: self.requests_per_second,
            request_burst: self.request_burst,
            watches_per_identity: self.watches_per_identity,
            max_requests_inflight: self.max_requests_inflight,
            max_mutating_requests_inflight: self.max_mutating_requests_inflight,
            ..options
        }
    }
}

impl SimulationArgs {
    fn options(&self) -> Result<Options, String> {
        let mut logs = BTreeMap::new();
        for log in &self.container_logs {
            let Some((image, file)) = log.split_once('=') else {
                return Err(format!("--container-log {log}: expected IMAGE=FILE"));
            };
            let text = std::fs::read_to_string(file)
                .map_err(|e| format!("--container-log {log}: {file}: {e}"))?;
            logs.insert(image.to_owned(), text);
        }
        let mut usage = BTreeMap::new();
        for given in &self.container_usage {
            let parsed = given
                .split_once('=')
                .and_then(|(image, text)| Some((image, Usage::parse(text)?)));
            let Some((image, amounts)) = parsed else {
                return Err(format!(
                    "--container-usage {given}: expected IMAGE=CPU,MEMORY (nginx=250m,64Mi)"
                ));
            };
            usage.insert(image.to_owned(), amounts);
        }
        let mut exec = BTreeMap::new();
        for program in &self.container_execs {
            let Some((image, file)) = program.split_once('=') else {
                return Err(format!(
                    "--container-exec {program}: expected IMAGE=PROGRAM"
                ));
            };
            let file = std::fs::canonicalize(file)
                .map_err(|e| format!("--container-exec {program}: {file}: {e}"))?;
            exec.insert(image.to_owned(), ExecHandler::program(file));
        }
        let mut ports = BTreeMap::new();
        for given in &self.container_ports {
            let parsed = given.split_once('=').and_then(|(at, program)| {
                let (image, port) = at.rsplit_once(':')?;
                Some((image, port.parse::<u16>().ok().filter(|p| *p > 0)?, program))
            });
            let Some((image, port, program)) = parsed else {
                return Err(format!(
                    "--container-port {given}: expected IMAGE:PORT=PROGRAM (busybox:8080=./serve)"
                ));
            };
            let file = std::fs::canonicalize(program)
                .map_err(|e| format!("--container-port {given}: {program}: {e}"))?;
            ports.insert((image.to_owned(), port), PortHandler::program(file));
        }
        let exec_on_host = self
            .exec_on_host
            .then(|| std::env::temp_dir().join(format!("kubeforge-exec-{}", std::process::id())));
        let simulation = self.simulate.then(|| Simulation {
            usage,
            metrics: !self.no_metrics,
            ready_after: Duration::from_secs(self.ready_after),
            run_for: Duration::from_secs(self.run_for),
            stop_after: Duration::from_secs(self.stop_after),
            logs,
            exec,
            exec_on_host,
            ports,
            ..Simulation::with_nodes(self.nodes)
        });
        Ok(Options {
            simulation,
            ..Options::default()
        })
    }
}

/// The documents served: every input (and `--schemas DIR`'s) merged, or with `--release`
/// one release of them.
struct Documents {
    schemas: Option<PathBuf>,
    inputs: Vec<PathBuf>,
    releases: Vec<String>,
    release: Option<String>,
}

impl Documents {
    /// The inputs, with `--schemas DIR`'s documents (sorted by name) after them.
    fn inputs(&self) -> Result<Vec<PathBuf>, String> {
        let mut inputs = self.inputs.clone();
        if let Some(dir) = &self.schemas {
            let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|path| {
                    path.extension()
                        .is_some_and(|e| e == "json" || e == "yaml" || e == "yml")
                })
                .collect();
            found.sort();
            inputs.extend(found);
        }
        if inputs.is_empty() {
            return Err("no documents: give --schemas DIR or input files".to_owned());
        }
        Ok(inputs)
    }

    fn catalog(&self, inputs: &[PathBuf]) -> Result<Catalog, String> {
        let Some(release) = &self.release else {
            return Catalog::from_documents(inputs).map_err(|e| e.to_string());
        };
        if self.releases.len() != inputs.len() {
            return Err(format!(
                "--releases names {} releases for {} inputs: name one release per input, in order",
                self.releases.len(),
                inputs.len()
            ));
        }
        if !self.releases.contains(release) {
            return Err(format!(
                "--release {release}: not one of --releases ({})",
                self.releases.join(", ")
            ));
        }
        let labelled: Vec<(String, PathBuf)> = self
            .releases
            .iter()
            .cloned()
            .zip(inputs.iter().cloned())
            .collect();
        Catalog::from_release(&labelled, release).map_err(|e| e.to_string())
    }
}

fn main() -> ExitCode {
    let Command::Serve {
        schemas,
        inputs,
        listen,
        kubeconfig: kubeconfig_path,
        insecure_http,
        tls: _,
        limits,
        releases,
        release,
        proto,
        simulation,
    } = Cli::parse().command;
    let mut options = match simulation.options() {
        Ok(options) => limits.apply(options),
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(dir) = proto {
        match kubeforge_server::Protobuf::from_proto_dir(&dir) {
            Ok(protobuf) => options.protobuf = protobuf,
            Err(message) => {
                eprintln!("error: --proto {message}");
                return ExitCode::FAILURE;
            }
        }
    }
    let documents = Documents {
        schemas,
        inputs,
        releases,
        release,
    };
    match run(
        &documents,
        listen,
        kubeconfig_path,
        !insecure_http,
        &simulation,
        options,
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(
    documents: &Documents,
    listen: SocketAddr,
    kubeconfig_path: Option<PathBuf>,
    tls: bool,
    simulation: &SimulationArgs,
    options: Options,
) -> Result<(), String> {
    if !listen.ip().is_loopback() {
        return Err(format!(
            "--listen {listen}: only loopback addresses are served (127.0.0.1, ::1)"
        ));
    }
    let inputs = documents.inputs()?;
    let catalog = documents.catalog(&inputs)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the runtime: {e}"))?;
    let served = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| format!("--listen {listen}: {e}"))?;
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        let scheme = if tls { "https" } else { "http" };
        let server = Server::with_options(catalog, options);
        if simulation.frozen {
            server.freeze();
        }
        // The kubeconfig is on disk before the first line is printed: a client that waits
        // for `listening on` (a script, a test) may use it at once.
        if let Some(path) = &kubeconfig_path {
            let config = server.admin_kubeconfig(address, tls)?;
            std::fs::write(path, config).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        println!("listening on {scheme}://{address}");
        if let Some(path) = &kubeconfig_path {
            println!("kubeconfig written to {}", path.display());
        }
        let resources = server.catalog().resources().len();
        let of_release = documents
            .release
            .as_ref()
            .map(|release| format!(" of release {release}"))
            .unwrap_or_default();
        println!(
            "serving {resources} resources{of_release} from {} documents",
            inputs.len()
        );
        if simulation.simulate {
            println!("simulating {} nodes", simulation.nodes);
        }
        if tls {
            serve_tls(server, listener, shutdown()).await
        } else {
            serve(server, listener, shutdown()).await
        }
        .map_err(|e| e.to_string())
    });
    // A request still at work on its blocking thread must not keep a stopped server alive:
    // dropping the runtime would wait for it.
    runtime.shutdown_background();
    served
}

async fn shutdown() {
    let mut terminate =
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(signal) => signal,
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
                return;
            }
        };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
}
