//! Serving over HTTP/1.1 on a loopback port (tokio + hyper), and the kubeconfig that points
//! `kubectl` at it.

use std::future::Future;
use std::io;
use std::net::SocketAddr;

use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::task::JoinSet;

use crate::router::Server;

/// Serves `server` on `listener` until `shutdown` completes; then stops accepting and ends
/// every open connection (watches included). Each connection is a task; a client that goes
/// away ends its task and its watches. The `default/kubernetes` Service's endpoints (and its
/// target port) point at the listener's address, as the API server's reconciler points
/// them at its own.
pub async fn serve(
    server: Server,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    if let Ok(address) = listener.local_addr() {
        server.shared.advertise(address);
    }
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => {
                let (stream, _) = match accepted {
                    Ok(accepted) => accepted,
                    // A failed accept (a client gone before it was accepted, too many files)
                    // does not stop the server.
                    Err(_) => continue,
                };
                let server = server.clone();
                connections.spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let server = server.clone();
                        async move { Ok::<_, std::convert::Infallible>(server.call_async(request).await) }
                    });
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    connections.shutdown().await;
    Ok(())
}

/// A kubeconfig for `kubectl` with one cluster, user and context named `kubeforge`, for the
/// server at `address`, namespace `default`.
pub fn kubeconfig(address: SocketAddr) -> String {
    format!(
        "apiVersion: v1
kind: Config
clusters:
- name: kubeforge
  cluster:
    server: http://{address}
users:
- name: kubeforge
  user: {{}}
contexts:
- name: kubeforge
  context:
    cluster: kubeforge
    user: kubeforge
    namespace: default
current-context: kubeforge
"
    )
}
