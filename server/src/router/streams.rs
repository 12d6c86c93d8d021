//! `pods/exec` into a simulated container over WebSocket, as the API server serves it to a
//! client since Kubernetes 1.30 (`apiserver/pkg/util/proxy/websocket.go`): the upgrade's
//! answer (`101 Switching Protocols` with the subprotocol chosen, `wire::channels`), then,
//! on the upgraded connection, the client's stdin and terminal sizes to the command, its
//! stdout and stderr to the client, each message behind its channel byte; an empty message
//! on the first channel the client reads, to say the streams are open; and when the command
//! ends its `Status` on the error channel, a close frame, and a wait for the client's.
//! The WebSocket framing is tungstenite's. A Pod's or a Service's proxy to a port the
//! simulation serves (`Simulation::port`): the request handed to the port's service. And
//! `pods/portforward` to those ports, as the kubelet serves it
//! (`pkg/kubelet/cri/streaming/portforward`): SPDY/3.1 (`wire::spdy`) over an HTTP/1.1
//! upgrade, or tunnelled in a WebSocket (`SPDY/3.1+portforward.k8s.io`, what kubectl 1.31
//! and later try first), a data and an error stream per connection forwarded; or the
//! WebSocket channels of `v4.channel.k8s.io` (two channels a port, what kube-rs speaks).

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use http::{HeaderValue, Response, StatusCode, header};
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role};

use crate::controllers::simulation::containers::{Exec, PortHandler};
use crate::verbs::pods::{ExecPlan, ForwardPlan};
use crate::wire::body::Body;
use crate::wire::channels::{self, CLOSE, ERROR, RESIZE, STDERR, STDIN, STDOUT};
use crate::wire::spdy;
use crate::wire::status::Failure;

/// How much of a stream waits for its reader before its writer waits.
const BUFFER: usize = 64 * 1024;

/// How long the server waits for the client's close frame after its own.
const CLOSING: Duration = Duration::from_secs(10);

/// A session the upgrade's answer carries to the connection, which runs it once hyper has
/// handed the connection over.
#[derive(Clone)]
pub(crate) enum Session {
    /// `pods/exec` over WebSocket, with the subprotocol chosen.
    Exec {
        plan: ExecPlan,
        protocol: &'static str,
    },
    /// `pods/portforward`, in one of its framings.
    Forward { plan: ForwardPlan, framing: Framing },
}

/// How a port-forward's streams travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Framing {
    /// SPDY/3.1 on the upgraded connection (`Upgrade: SPDY/3.1`).
    Spdy,
    /// SPDY/3.1 in a WebSocket's binary messages (`SPDY/3.1+portforward.k8s.io`).
    SpdyInWebSocket,
    /// The WebSocket channels of `v4.channel.k8s.io`: port `i`'s data on channel `2i`,
    /// its error on `2i + 1`.
    Channels,
}

/// The port-forward protocol (`portforward.k8s.io`), as SPDY's `X-Stream-Protocol-Version`
/// names it and, behind `SPDY/3.1+`, the WebSocket tunnel's subprotocol.
const PORT_FORWARD: &str = "portforward.k8s.io";
const SPDY_TUNNEL: &str = "SPDY/3.1+portforward.k8s.io";
/// The WebSocket subprotocols of the channels framing the kubelet accepts (the binary
/// ones: `v4.channel.k8s.io`, and `channel.k8s.io`, which it takes for the same).
const FORWARD_CHANNELS: [&str; 2] = ["v4.channel.k8s.io", "channel.k8s.io"];

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
    websocket_switch(response.headers_mut(), key.as_bytes(), protocol);
    response
        .extensions_mut()
        .insert(Session::Exec { plan, protocol });
    Ok(response)
}

/// The values of a header, comma-separated and trimmed, across its lines.
fn header_values(parts: &http::request::Parts, name: &str) -> Vec<String> {
    parts
        .headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
        .collect()
}

/// The answer to a port-forward the simulation serves: the WebSocket upgrade (the SPDY
/// tunnel, or `v4.channel.k8s.io`'s channels), or SPDY's (`httpstream.Handshake`, then
/// `UpgradeResponse`), carrying the session.
pub(crate) fn forward_upgrade(
    parts: &http::request::Parts,
    plan: ForwardPlan,
) -> Result<Response<Body>, Failure> {
    let mut response = Response::new(Body::full(Vec::new()));
    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let framing = if let Some(key) = parts
        .headers
        .get(header::SEC_WEBSOCKET_KEY)
        .filter(|_| is_websocket(parts))
    {
        let offered = header_values(parts, "sec-websocket-protocol");
        let chosen = offered.iter().find_map(|offer| {
            if offer == SPDY_TUNNEL {
                Some((SPDY_TUNNEL, Framing::SpdyInWebSocket))
            } else {
                FORWARD_CHANNELS
                    .iter()
                    .find(|p| **p == offer)
                    .map(|p| (*p, Framing::Channels))
            }
        });
        let Some((protocol, framing)) = chosen else {
            return Err(Failure::bad_request(format!(
                "requested protocol(s) are not supported: [{}]; supports [{SPDY_TUNNEL} {}]",
                offered.join(" "),
                FORWARD_CHANNELS.join(" ")
            )));
        };
        if framing == Framing::Channels && plan.asked.is_empty() {
            // The kubelet's `newOptions` for a WebSocket port-forward.
            return Err(Failure::bad_request("query parameter \"port\" is required"));
        }
        websocket_switch(response.headers_mut(), key.as_bytes(), protocol);
        framing
    } else {
        let upgrade = header_values(parts, "upgrade");
        let connection = header_values(parts, "connection");
        if !upgrade.iter().any(|u| u.eq_ignore_ascii_case("SPDY/3.1"))
            || !connection.iter().any(|c| c.eq_ignore_ascii_case("upgrade"))
        {
            return Err(Failure::bad_request(
                "Upgrade request required: port-forward is served over SPDY/3.1 or WebSocket",
            ));
        }
        let versions = header_values(parts, "x-stream-protocol-version");
        if versions.is_empty() {
            return Err(Failure::bad_request(
                "unable to upgrade: X-Stream-Protocol-Version is required",
            ));
        }
        if !versions.iter().any(|v| v == PORT_FORWARD) {
            return Err(Failure {
                code: 403,
                reason: "Forbidden",
                message: format!(
                    "unable to upgrade: unable to negotiate protocol: client supports [{}], server accepts [{PORT_FORWARD}]",
                    versions.join(" ")
                ),
                details: None,
            });
        }
        let headers = response.headers_mut();
        headers.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
        headers.insert(header::UPGRADE, HeaderValue::from_static("SPDY/3.1"));
        headers.insert(
            "x-stream-protocol-version",
            HeaderValue::from_static(PORT_FORWARD),
        );
        Framing::Spdy
    };
    response
        .extensions_mut()
        .insert(Session::Forward { plan, framing });
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
    let io = TokioIo::new(upgraded);
    match session {
        Session::Exec { plan, protocol } => exec(io, plan, protocol).await,
        Session::Forward { plan, framing } => match framing {
            Framing::Spdy => forward_spdy(io, plan).await,
            Framing::SpdyInWebSocket => {
                let socket = WebSocketStream::from_raw_socket(io, Role::Server, None).await;
                forward_spdy(websocket_bytes(socket), plan).await;
            }
            Framing::Channels => {
                let socket = WebSocketStream::from_raw_socket(io, Role::Server, None).await;
                forward_channels(socket, plan).await;
            }
        },
    }
}

/// The headers of a 101 that switches to a WebSocket speaking `protocol`, for the client's
/// `Sec-WebSocket-Key` `key`: exec's and port-forward's upgrades share them.
fn websocket_switch(headers: &mut http::HeaderMap, key: &[u8], protocol: &'static str) {
    headers.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    headers.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    if let Ok(accept) = HeaderValue::from_str(&derive_accept_key(key)) {
        headers.insert(header::SEC_WEBSOCKET_ACCEPT, accept);
    }
    headers.insert(
        header::SEC_WEBSOCKET_PROTOCOL,
        HeaderValue::from_static(protocol),
    );
}

/// Closes a WebSocket normally (1000): client-go reads the end of its streams from that,
/// and takes a close without a code for an error.
async fn close_normally<S>(sink: &mut futures_util::stream::SplitSink<WebSocketStream<S>, Message>)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let _ = sink
        .send(Message::Close(Some(CloseFrame {
            code: CloseCode::Normal,
            reason: "".into(),
        })))
        .await;
    let _ = sink.flush().await;
}

/// The task that writes the frames sent to it as binary WebSocket messages, then closes
/// the socket normally. Exec and port-forward over channels share it.
fn websocket_writer<S>(
    mut sink: futures_util::stream::SplitSink<WebSocketStream<S>, Message>,
) -> (mpsc::Sender<Vec<u8>>, tokio::task::JoinHandle<()>)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (frames, mut outgoing) = mpsc::channel::<Vec<u8>>(64);
    let writer = tokio::spawn(async move {
        while let Some(frame) = outgoing.recv().await {
            if sink.send(Message::binary(frame)).await.is_err() {
                return;
            }
        }
        close_normally(&mut sink).await;
    });
    (frames, writer)
}

/// An exec's session on its WebSocket.
async fn exec<S>(io: S, plan: ExecPlan, protocol: &'static str)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let socket = WebSocketStream::from_raw_socket(io, Role::Server, None).await;
    let (sink, mut source) = socket.split();
    let (frames, writer) = websocket_writer(sink);
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

/// A WebSocket's binary messages as a byte stream (client-go's `TunnelingConnection`: each
/// write a message, each message read in turn); a close, or the stream's end, ends it.
fn websocket_bytes<S>(socket: WebSocketStream<S>) -> DuplexStream
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (ours, theirs) = tokio::io::duplex(BUFFER);
    let (mut sink, mut source) = socket.split();
    let (mut from, mut to) = tokio::io::split(ours);
    tokio::spawn(async move {
        while let Some(Ok(message)) = source.next().await {
            match message {
                Message::Binary(data) if to.write_all(&data).await.is_err() => break,
                Message::Close(_) => break,
                _ => {}
            }
        }
        let _ = to.shutdown().await;
    });
    tokio::spawn(async move {
        let mut buffer = vec![0u8; spdy::MAX_DATA + 64];
        loop {
            match from.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if sink
                        .send(Message::binary(buffer[..n].to_vec()))
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
            }
        }
        close_normally(&mut sink).await;
    });
    theirs
}

/// The streams of one forwarded connection, as the kubelet pairs them by `requestID`.
#[derive(Default)]
struct Pair {
    port: u16,
    data: Option<(u32, mpsc::Receiver<Vec<u8>>)>,
    error: Option<u32>,
}

/// A SPDY port-forward session (`httpstream.go`'s `httpStreamHandler`): each stream the
/// client opens is checked (`streamType` `data` or `error`, a `port`, a `requestID`) and
/// answered with a `SYN_REPLY`; once a request's two streams are open, the data stream is
/// forwarded to the port and, when the port's side ends, both streams are closed, the
/// error stream after carrying what failed, if anything did.
async fn forward_spdy<S>(io: S, plan: ForwardPlan)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut read, mut write) = tokio::io::split(io);
    let (frames, mut outgoing) = mpsc::channel::<Vec<u8>>(64);
    let writer = tokio::spawn(async move {
        while let Some(frame) = outgoing.recv().await {
            if write.write_all(&frame).await.is_err() || write.flush().await.is_err() {
                return;
            }
        }
        let _ = write.shutdown().await;
    });
    let mut framer = spdy::Framer::default();
    let mut buffer = Vec::new();
    let mut chunk = vec![0u8; 32 * 1024];
    let mut inbound: std::collections::HashMap<u32, mpsc::Sender<Vec<u8>>> =
        std::collections::HashMap::new();
    let mut pairs: std::collections::HashMap<String, Pair> = std::collections::HashMap::new();
    let mut forwarding = tokio::task::JoinSet::new();
    let mut last = 0;
    'connection: loop {
        let n = match read.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        buffer.extend_from_slice(&chunk[..n]);
        loop {
            let frame = match framer.read(&mut buffer) {
                Ok(Some(frame)) => frame,
                Ok(None) => break,
                Err(_) => {
                    let _ = frames.send(spdy::goaway(last, spdy::PROTOCOL_ERROR)).await;
                    break 'connection;
                }
            };
            match frame {
                spdy::Frame::SynStream { id, headers, .. } => {
                    last = id;
                    let Some((kind, port, request)) = stream_headers(&headers) else {
                        // `httpStreamReceived` refuses it: the stream is reset.
                        let _ = frames.send(spdy::rst_stream(id, spdy::CANCEL)).await;
                        continue;
                    };
                    let _ = frames.send(framer.syn_reply(id, &[])).await;
                    let pair = pairs.entry(request.clone()).or_default();
                    pair.port = port;
                    if kind == "data" {
                        let (sender, receiver) = mpsc::channel(64);
                        inbound.insert(id, sender);
                        pair.data = Some((id, receiver));
                    } else {
                        pair.error = Some(id);
                    }
                    if pair.data.is_some()
                        && pair.error.is_some()
                        && let Some(Pair {
                            port,
                            data: Some((data, receiver)),
                            error: Some(error),
                        }) = pairs.remove(&request)
                    {
                        forwarding.spawn(forward_pair(
                            plan.clone(),
                            port,
                            (data, receiver),
                            error,
                            frames.clone(),
                        ));
                    }
                }
                spdy::Frame::Data { id, data, fin } => {
                    if let Some(sender) = inbound.get(&id)
                        && !data.is_empty()
                        && sender.send(data).await.is_err()
                    {
                        inbound.remove(&id);
                    }
                    if fin {
                        inbound.remove(&id);
                    }
                }
                spdy::Frame::RstStream { id, .. } => {
                    inbound.remove(&id);
                }
                spdy::Frame::Ping(id) => {
                    let _ = frames.send(spdy::ping(id)).await;
                }
                spdy::Frame::GoAway => break 'connection,
                spdy::Frame::Ignored => {}
            }
        }
    }
    drop(inbound);
    forwarding.shutdown().await;
    drop(frames);
    let _ = writer.await;
}

/// A stream's `streamType` (`data` or `error`), `port` and `requestID`, when it has them
/// as `httpStreamReceived` wants them.
fn stream_headers(headers: &[(String, String)]) -> Option<(String, u16, String)> {
    let get = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let kind = get("streamtype").filter(|k| matches!(*k, "data" | "error"))?;
    let port = get("port")?.parse::<u16>().ok().filter(|p| *p > 0)?;
    let request = get("requestid").unwrap_or("");
    Some((kind.to_owned(), port, request.to_owned()))
}

/// One forwarded connection: the data stream's bytes to the port, the port's to the data
/// stream; when the port's side ends, the data stream closes, then the error stream
/// (after the kubelet's message when nothing listens on the port).
async fn forward_pair(
    plan: ForwardPlan,
    port: u16,
    (data, mut from_client): (u32, mpsc::Receiver<Vec<u8>>),
    error: u32,
    frames: mpsc::Sender<Vec<u8>>,
) {
    match plan.connect(port) {
        Err(message) => {
            let _ = frames
                .send(spdy::data(error, message.as_bytes(), false))
                .await;
        }
        Ok(connection) => {
            let (mut from_port, mut to_port) = tokio::io::split(connection);
            let sending = tokio::spawn(async move {
                while let Some(bytes) = from_client.recv().await {
                    if to_port.write_all(&bytes).await.is_err() {
                        return;
                    }
                }
                let _ = to_port.shutdown().await;
            });
            let mut buffer = vec![0u8; spdy::MAX_DATA];
            loop {
                match from_port.read(&mut buffer).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if frames
                            .send(spdy::data(data, &buffer[..n], false))
                            .await
                            .is_err()
                        {
                            sending.abort();
                            return;
                        }
                    }
                }
            }
            drop(sending);
        }
    }
    let _ = frames.send(spdy::data(data, &[], true)).await;
    let _ = frames.send(spdy::data(error, &[], true)).await;
}

/// A port-forward over `v4.channel.k8s.io`'s channels (the kubelet's `websocket.go`): each
/// port asked for has a data channel (`2i`) and an error channel (`2i + 1`), and the
/// first message on each is the port, two bytes little-endian; then the client's bytes on
/// a data channel go to the port, the port's come back on it, and the kubelet's message
/// on the error channel when nothing listens. The session ends with the client's close,
/// or once every port's side has ended.
async fn forward_channels<S>(socket: WebSocketStream<S>, plan: ForwardPlan)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (sink, mut source) = socket.split();
    let (frames, writer) = websocket_writer(sink);
    let mut to_ports = Vec::new();
    let mut serving = tokio::task::JoinSet::new();
    for (index, port) in plan.asked.iter().copied().enumerate() {
        let Ok(channel) = u8::try_from(index * 2) else {
            break;
        };
        for ch in [channel, channel + 1] {
            let _ = frames.send(channels::frame(ch, &port.to_le_bytes())).await;
        }
        match plan.connect(port) {
            Err(message) => {
                let _ = frames
                    .send(channels::frame(channel + 1, message.as_bytes()))
                    .await;
                to_ports.push(None);
            }
            Ok(connection) => {
                let (mut from_port, to_port) = tokio::io::split(connection);
                to_ports.push(Some(to_port));
                let frames = frames.clone();
                serving.spawn(async move {
                    let mut buffer = vec![0u8; 32 * 1024];
                    loop {
                        match from_port.read(&mut buffer).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => {
                                if frames
                                    .send(channels::frame(channel, &buffer[..n]))
                                    .await
                                    .is_err()
                                {
                                    return;
                                }
                            }
                        }
                    }
                });
            }
        }
    }
    let reading = async {
        while let Some(Ok(message)) = source.next().await {
            let data = match message {
                Message::Binary(data) => data,
                Message::Close(_) => break,
                _ => continue,
            };
            let Some((&channel, bytes)) = data.split_first() else {
                continue;
            };
            let index = usize::from(channel / 2);
            if channel % 2 == 0
                && let Some(Some(to_port)) = to_ports.get_mut(index)
                && to_port.write_all(bytes).await.is_err()
            {
                to_ports[index] = None;
            }
        }
    };
    let ended = async { while serving.join_next().await.is_some() {} };
    tokio::select! {
        () = reading => {}
        () = ended => {}
    }
    drop(frames);
    let _ = writer.await;
}
