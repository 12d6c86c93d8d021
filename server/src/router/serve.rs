//! Serving over HTTP/1.1 on a loopback port (tokio + hyper), over TLS (rustls, with a
//! serving certificate from the cluster's CA) or plain, and the kubeconfig that points
//! `kubectl` at it.

use std::future::Future;
use std::io;
use std::net::SocketAddr;

use std::sync::Arc;

use base64::Engine;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use tokio_rustls::rustls::{self, client::danger::HandshakeSignatureValid, pki_types};

use crate::router::Server;
use crate::router::filters::{Caller, ClientChain};
use crate::semantics::rbac::MASTERS;
use crate::verbs::auth::administrator;

/// Serves `server` on `listener` until `shutdown` completes; then stops accepting and ends
/// every open connection (watches included). A request without credentials acts as
/// `server`'s caller: the administrator for [`Server::new`], as the API server's old
/// insecure port served everyone as privileged (kubectl sends no credentials over plain
/// HTTP); [`Server::as_anonymous`] makes it `system:anonymous`. Each connection is a task; a client that goes
/// away ends its task and its watches. The `default/kubernetes` Service's endpoints (and its
/// target port) point at the listener's address, as the API server's reconciler points
/// them at its own.
pub async fn serve(
    server: Server,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    accept(server, listener, None, shutdown).await
}

/// Serves `server` on `listener` over TLS until `shutdown` completes, as [`serve`] does:
/// the serving certificate is signed by the cluster's CA ([`Server::ca_certificate`]) for
/// `localhost`, `127.0.0.1`, `::1` and the `kubernetes` Service's names. A request without
/// credentials is `system:anonymous`, as on a real API server: clients authenticate with a
/// bearer token ([`Server::admin_token`], a static user's, a ServiceAccount's).
pub async fn serve_tls(
    server: Server,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let serving = server
        .shared
        .cluster
        .authority
        .serving()
        .map_err(io::Error::other)?;
    let key = pki_types::PrivateKeyDer::Pkcs8(serving.key_der.into());
    let certificate = pki_types::CertificateDer::from(serving.certificate_der);
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    // Client certificates are asked for, not required, and taken whoever signed them, as
    // the API server's listener asks with Go's `tls.RequestClientCert`
    // (`server/secure_serving.go`): its x509 authenticator verifies them against the
    // cluster's CA on each request (`filters`), where one that does not verify is 401.
    // One that does authenticates its connection (kubeadm's admin.conf, kind's
    // kubeconfig); without one the bearer token, or nothing, decides.
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(pki_types::CertificateDer::from(
            server.shared.cluster.authority.certificate_der.clone(),
        ))
        .map_err(io::Error::other)?;
    let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
        Arc::new(roots),
        provider.clone(),
    )
    .allow_unauthenticated()
    .build()
    .map_err(io::Error::other)?;
    let clients = Arc::new(AnyClientCertificate(verifier.clone()));
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(io::Error::other)?
        .with_client_cert_verifier(clients)
        .with_single_cert(vec![certificate], key)
        .map_err(io::Error::other)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let tls = Tls { acceptor, verifier };
    accept(server.as_anonymous(), listener, Some(tls), shutdown).await
}

/// The TLS side of a listener: the handshake, and what verifies a client's certificate.
#[derive(Clone)]
struct Tls {
    acceptor: TlsAcceptor,
    verifier: Arc<dyn ClientCertVerifier>,
}

/// Go's `tls.RequestClientCert`: asks for a client certificate (naming the cluster's CA,
/// as Go names its `ClientCAs`), does not require one, and takes any; the handshake's
/// signature is still checked, with the provider's algorithms, so the client holds the
/// certificate's key. Whether the certificate verifies is the authenticator's question.
#[derive(Debug)]
struct AnyClientCertificate(Arc<dyn ClientCertVerifier>);

impl ClientCertVerifier for AnyClientCertificate {
    fn client_auth_mandatory(&self) -> bool {
        false
    }

    fn root_hint_subjects(&self) -> &[rustls::DistinguishedName] {
        self.0.root_hint_subjects()
    }

    fn verify_client_cert(
        &self,
        _end_entity: &pki_types::CertificateDer<'_>,
        _intermediates: &[pki_types::CertificateDer<'_>],
        _now: pki_types::UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        Ok(ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

async fn accept(
    server: Server,
    listener: TcpListener,
    tls: Option<Tls>,
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
                let tls = tls.clone();
                connections.spawn(async move {
                    match tls {
                        None => connection(server, stream).await,
                        // A client that fails the handshake (a plain HTTP request, a
                        // certificate whose key it does not hold) only ends its own
                        // connection; a plain HTTP request is told so, as Go's
                        // `http.Server` tells it.
                        Some(tls) => {
                            if plain_http(&stream).await {
                                tell_plain_http(stream).await;
                            } else if let Ok(stream) = tls.acceptor.accept(stream).await {
                                let chain = stream
                                    .get_ref()
                                    .1
                                    .peer_certificates()
                                    .filter(|chain| !chain.is_empty())
                                    .map(|chain| chain.iter().map(|c| c.clone().into_owned()).collect());
                                let server = match chain {
                                    Some(chain) => server.acting(Caller::Certificate(Arc::new(ClientChain {
                                        chain,
                                        verifier: tls.verifier,
                                    }))),
                                    None => server,
                                };
                                connection(server, stream).await;
                            }
                        }
                    }
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    connections.shutdown().await;
    Ok(())
}

/// What Go's `http.Server` answers a plain HTTP request on a TLS port (net/http's
/// `server.go`), before it closes the connection.
const PLAIN_HTTP_ANSWER: &[u8] =
    b"HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n";

/// Whether a connection opens with an HTTP request rather than a TLS handshake: its first
/// five bytes, as net/http's `tlsRecordHeaderLooksLikeHTTP` reads them.
async fn plain_http(stream: &tokio::net::TcpStream) -> bool {
    let mut head = [0u8; 5];
    match stream.peek(&mut head).await {
        Ok(5) => matches!(&head, b"GET /" | b"HEAD " | b"POST " | b"PUT /" | b"OPTIO"),
        _ => false,
    }
}

/// Writes [`PLAIN_HTTP_ANSWER`] and ends the writing side, then reads what the client sent
/// (for a second at most) so that closing does not reset the connection before the client
/// reads the answer.
async fn tell_plain_http(stream: tokio::net::TcpStream) {
    let mut written = 0;
    while written < PLAIN_HTTP_ANSWER.len() {
        if stream.writable().await.is_err() {
            return;
        }
        match stream.try_write(&PLAIN_HTTP_ANSWER[written..]) {
            Ok(n) => written += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(_) => return,
        }
    }
    let Ok(stream) = stream.into_std() else {
        return;
    };
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let Ok(stream) = tokio::net::TcpStream::from_std(stream) else {
        return;
    };
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(1);
    let mut sink = [0u8; 4096];
    loop {
        match tokio::time::timeout_at(deadline, stream.readable()).await {
            Ok(Ok(())) => match stream.try_read(&mut sink) {
                Ok(0) => return,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(_) => return,
            },
            _ => return,
        }
    }
}

/// Serves one connection's requests until it ends.
async fn connection(server: Server, stream: impl AsyncRead + AsyncWrite + Unpin + Send + 'static) {
    let service = hyper::service::service_fn(move |request| {
        let server = server.clone();
        async move { Ok::<_, std::convert::Infallible>(server.call_async(request).await) }
    });
    let _ = http1::Builder::new()
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades()
        .await;
}

/// A kubeconfig for `kubectl` with one cluster, user and context named `kubeforge`, for the
/// server at `address`, namespace `default`; the user is the administrator, by `token`
/// ([`Server::admin_token`]).
pub fn kubeconfig(address: SocketAddr, token: &str) -> String {
    format!(
        "apiVersion: v1
kind: Config
clusters:
- name: kubeforge
  cluster:
    server: http://{address}
users:
- name: kubeforge
  user:
    token: {token}
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

/// A kubeconfig like [`kubeconfig`] for the server at `address` served over TLS: the
/// cluster's CA ([`Server::ca_certificate`]) as `certificate-authority-data`, and the
/// administrator's `token`.
pub fn kubeconfig_tls(address: SocketAddr, token: &str, ca_pem: &str) -> String {
    let ca = base64::engine::general_purpose::STANDARD.encode(ca_pem);
    kubeconfig(address, token).replace(
        "server: http://",
        &format!("certificate-authority-data: {ca}\n    server: https://"),
    )
}

impl Server {
    /// A kubeconfig for `kubectl` and kube-rs as the administrator of the server at
    /// `address`: [`kubeconfig`] with the administrator's token, and over TLS
    /// ([`kubeconfig_tls`]) the cluster's CA and, as kubeadm's `admin.conf` and kind's
    /// kubeconfig hold it, a client certificate for `kubernetes-admin` in `system:masters`,
    /// which clients that send no token (a hand-built kube-rs client over its TLS connector)
    /// authenticate with.
    ///
    /// # Errors
    ///
    /// When the client certificate cannot be signed.
    pub fn admin_kubeconfig(&self, address: SocketAddr, tls: bool) -> Result<String, String> {
        let token = self.admin_token();
        if !tls {
            return Ok(kubeconfig(address, &token));
        }
        let admin = administrator();
        let client = self.shared.cluster.authority.client(&admin.name, MASTERS)?;
        let encode = |pem: &str| base64::engine::general_purpose::STANDARD.encode(pem);
        Ok(
            kubeconfig_tls(address, &token, &self.ca_certificate()).replace(
                "    token: ",
                &format!(
                    "    client-certificate-data: {}\n    client-key-data: {}\n    token: ",
                    encode(&client.certificate_pem),
                    encode(&client.key_pem)
                ),
            ),
        )
    }

    /// The cluster's CA certificate (PEM): what signs the TLS serving certificate, and what
    /// every namespace's `kube-root-ca.crt` ConfigMap publishes.
    pub fn ca_certificate(&self) -> String {
        self.shared.cluster.authority.certificate_pem.clone()
    }
}
