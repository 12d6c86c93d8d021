//! `pods/exec` into a simulated container over WebSocket, as the API server serves it to a
//! client since Kubernetes 1.30 (`apiserver/pkg/util/proxy/websocket.go`): the upgrade's
//! answer (`101 Switching Protocols` with the subprotocol chosen, `wire::channels`), then,
//! on the upgraded connection, the client's stdin and terminal sizes to the command, its
//! stdout and stderr to the client, each message behind its channel byte; an empty message
//! on the first channel the client reads, to say the streams are open; and when the command
//! ends its `Status` on the error channel, a close frame, and a wait for the client's.
//! The WebSocket framing is tungstenite's. And a Pod's or a Service's proxy to a port the
//! simulation serves (`Simulation::port`): the request handed to the port's service.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use http::{HeaderValue, Response, StatusCode, header};
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role};

use crate::controllers::simulation::containers::{Exec, PortHandler};
use crate::verbs::pods::ExecPlan;
use crate::wire::body::Body;
use crate::wire::channels::{self, CLOSE, ERROR, RESIZE, STDERR, STDIN, STDOUT};
use crate::wire::status::Failure;

/// How much of a stream waits for its reader before its writer waits.
const BUFFER: usize = 64 * 1024;

/// How long the server waits for the client's close frame after its own.
const CLOSING: Duration = Duration::from_secs(10);

/// A session the upgrade's answer carries to the connection, which runs it once hyper has
/// handed the connection over.
#[derive(Clone)]
pub(crate) struct Session {
    plan: ExecPlan,
    protocol: &'static str,
}

/// `IsWebSocketRequest`: `Upgrade: websocket` and a `Connection` that includes `upgrade`.
fn is_websocket(parts: &http::request::Parts) -> bool {
    let header = |name: header::HeaderName| {
        parts
            .headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect::<Vec<_>>()
            .join(",")
            .to_ascii_lowercase()
    };
    header(header::UPGRADE).trim() == "websocket"
        && header(header::CONNECTION)
            .split(',')
            .any(|token| token.trim() == "upgrade")
}

/// The answer to an exec the simulation runs: the WebSocket upgrade, carrying the session.
pub(crate) fn upgrade(
    parts: &http::request::Parts,
    plan: ExecPlan,
) -> Result<Response<Body>, Failure> {
    let key = parts
        .headers
        .get(header::SEC_WEBSOCKET_KEY)
        .filter(|_| is_websocket(parts));
    let Some(key) = key else {
        // A client that is not upgrading to WebSocket (SPDY's `Upgrade: SPDY/3.1`, which
        // kubectl before 1.30 sends) is refused as a failed upgrade, so a client that can
        // falls back.
        return Err(Failure::bad_request(
            "Upgrade request required: the simulation serves exec over WebSocket (v5.channel.k8s.io, v4.channel.k8s.io)",
        ));
    };
    let offered = parts
        .headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",");
    let Some(protocol) = channels::negotiate(&offered) else {
        return Err(Failure::bad_request(format!(
            "requested protocol(s) are not supported: [{}]; supports [{}]",
            offered
                .split(',')
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" "),
            channels::PROTOCOLS.join(" ")
        )));
    };
    let mut response = Response::new(Body::full(Vec::new()));
    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let headers = response.headers_mut();
    headers.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    headers.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    if let Ok(accept) = HeaderValue::from_str(&derive_accept_key(key.as_bytes())) {
        headers.insert(header::SEC_WEBSOCKET_ACCEPT, accept);
    }
    headers.insert(
        header::SEC_WEBSOCKET_PROTOCOL,
        HeaderValue::from_static(protocol),
    );
    response.extensions_mut().insert(Session { plan, protocol });
    Ok(response)
}

/// A request to `pods/{name}:{port}/proxy/{path}` answered by the port's handler: the
/// request as the proxy forwards it (the path after `proxy`, the query, the headers and
/// body), the handler's answer as it is.
pub(crate) fn proxy(
    parts: &http::request::Parts,
    body: &[u8],
    port: &PortHandler,
) -> Result<Response<Body>, Failure> {
    let path = parts.uri.path();
    let rest = path
        .find("/proxy")
        .map_or("", |at| &path[at + "/proxy".len()..]);
    let rest = if rest.is_empty() { "/" } else { rest };
    let target = match parts.uri.query() {
        Some(query) => format!("{rest}?{query}"),
        None => rest.to_owned(),
    };
    let mut request = http::Request::new(bytes::Bytes::copy_from_slice(body));
    *request.method_mut() = parts.method.clone();
    *request.uri_mut() = target
        .parse()
        .map_err(|_| Failure::bad_request(format!("invalid proxy path {target:?}")))?;
    *request.headers_mut() = parts.headers.clone();
    request.headers_mut().remove(header::AUTHORIZATION);
    let runtime = tokio::runtime::Handle::try_current()
        .map_err(|_| Failure::internal("the proxy needs the server's runtime"))?;
    let answer = runtime.block_on(port.call(request));
    let (head, bytes) = answer.into_parts();
    Ok(Response::from_parts(head, Body::full(bytes)))
}

/// Runs the session on the connection `upgrade` gives once the answer is sent.
pub(crate) async fn run(upgrade: OnUpgrade, session: Session) {
    let Ok(upgraded) = upgrade.await else {
        return;
    };
    let socket = WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, None).await;
    let (mut sink, mut source) = socket.split();
    let Session { plan, protocol } = session;
    let (frames, mut outgoing) = mpsc::channel::<Vec<u8>>(64);
    let writer = tokio::spawn(async move {
        while let Some(frame) = outgoing.recv().await {
            if sink.send(Message::binary(frame)).await.is_err() {
                return;
            }
        }
        // A normal closure (1000): client-go reads the end of its streams from it, and
        // takes a close without a code for an error.
        let _ = sink
            .send(Message::Close(Some(CloseFrame {
                code: CloseCode::Normal,
                reason: "".into(),
            })))
            .await;
        let _ = sink.flush().await;
    });
    // The first channel the client reads, empty: the streams are open.
    let first = if plan.stdout {
        STDOUT
    } else if plan.stderr {
        STDERR
    } else {
        ERROR
    };
    let _ = frames.send(channels::frame(first, &[])).await;

    let (stdin_writer, stdin_reader) = tokio::io::duplex(BUFFER);
    let (resizes, resize) = mpsc::channel(8);
    let closes = channels::closes_channels(protocol);
    let (gone, mut ended) = tokio::sync::oneshot::channel::<()>();
    let reader = tokio::spawn(async move {
        let mut stdin = Some(stdin_writer);
        let mut resizes = Some(resizes);
        while let Some(Ok(message)) = source.next().await {
            let data = match message {
                Message::Binary(data) => data,
                Message::Close(_) => break,
                _ => continue,
            };
            match (data.first().copied(), data.get(1..).unwrap_or_default()) {
                (Some(STDIN), bytes) => {
                    if let Some(writer) = stdin.as_mut()
                        && writer.write_all(bytes).await.is_err()
                    {
                        stdin = None;
                    }
                }
                (Some(RESIZE), bytes) => {
                    if let (Some(sender), Some(size)) =
                        (resizes.as_ref(), channels::terminal_size(bytes))
                    {
                        let _ = sender.try_send(size);
                    }
                }
                (Some(CLOSE), [closed, ..]) if closes => match *closed {
                    STDIN => stdin = None,
                    RESIZE => resizes = None,
                    _ => {}
                },
                _ => {}
            }
        }
        drop(gone);
    });

    let (stdout_writer, stdout_reader) = tokio::io::duplex(BUFFER);
    let (stderr_writer, stderr_reader) = tokio::io::duplex(BUFFER);
    // With a terminal, stderr is the terminal too.
    let stderr_channel = if plan.tty { STDOUT } else { STDERR };
    let pumps = tokio::spawn({
        let frames = frames.clone();
        let (out, err) = (plan.stdout, plan.stderr || (plan.tty && plan.stdout));
        async move {
            tokio::join!(
                pump(stdout_reader, STDOUT, out, frames.clone()),
                pump(stderr_reader, stderr_channel, err, frames),
            );
        }
    });
    let exec = Exec {
        argv: plan.argv.clone(),
        env: plan.env,
        working_dir: plan.working_dir,
        tty: plan.tty,
        container: plan.container,
        stdin: plan
            .stdin
            .then(|| Box::new(stdin_reader) as crate::controllers::simulation::containers::Input),
        stdout: Box::new(stdout_writer),
        stderr: Box::new(stderr_writer),
        resize,
    };
    let running = plan.handler.run(exec);
    let code = tokio::select! {
        code = running => Some(code),
        _ = &mut ended => None,
    };
    let _ = pumps.await;
    if let Some(code) = code {
        let status = channels::exit_status(&plan.argv, code);
        let _ = frames.send(channels::frame(ERROR, status.as_bytes())).await;
    }
    drop(frames);
    let _ = writer.await;
    if code.is_some() {
        let _ = tokio::time::timeout(CLOSING, ended).await;
    }
    reader.abort();
}

/// Carries what the command writes to `channel` (or nowhere, when the client does not read
/// it) until the command closes it.
async fn pump(mut from: DuplexStream, channel: u8, read: bool, frames: mpsc::Sender<Vec<u8>>) {
    let mut buffer = vec![0u8; 32 * 1024];
    loop {
        match from.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if read
                    && frames
                        .send(channels::frame(channel, &buffer[..n]))
                        .await
                        .is_err()
                {
                    return;
                }
            }
        }
    }
}
