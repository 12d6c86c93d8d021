//! The filters every request passes before its handler, as k8s.io/apiserver's
//! `DefaultBuildHandlerChain` runs them: authentication (a TLS client certificate the
//! cluster's CA signed, else a bearer token, else the caller's default: `system:anonymous`
//! over a socket, the server's own identity in process; a certificate that does not verify
//! and no token that does is 401),
//! impersonation, then authorization of what the request info says it does
//! (`endpoints/request/requestinfo.go`: the verb, and the resource, subresource, namespace
//! and name of a resource request, or the path of any other).

use std::sync::Arc;
use std::time::Duration;

use http::Method;
use tokio_rustls::rustls::pki_types::{CertificateDer, UnixTime};
use tokio_rustls::rustls::server::danger::ClientCertVerifier;

use crate::router::Server;
use crate::semantics::rbac::{AUTHENTICATED, Attributes, User};
use crate::wire::query::Query;
use crate::wire::status::Failure;

/// Who a request acts as when it carries no credentials.
#[derive(Clone, Debug)]
pub(crate) enum Caller {
    /// `system:anonymous`, as a real API server has it.
    Anonymous,
    /// Requests in process: this user (the administrator unless a test asked for another).
    As(Arc<User>),
    /// A TLS connection with a client certificate, which the handshake took whoever signed
    /// it: the x509 authenticator verifies it on each request. Without a user from it (no
    /// common name) and no token, `system:anonymous`.
    Certificate(Arc<ClientChain>),
}

/// A TLS client's certificate chain (its own first), and what verifies it against the
/// cluster's CA.
#[derive(Clone, Debug)]
pub(crate) struct ClientChain {
    pub(crate) chain: Vec<CertificateDer<'static>>,
    pub(crate) verifier: Arc<dyn ClientCertVerifier>,
}

/// Who may do what: the identities a test gives its clients. In process, a request
/// without credentials acts as the administrator (`kubernetes-admin`, in `system:masters`)
/// unless the `Server` it goes to was made with [`Server::as_user`],
/// [`Server::as_service_account`] or [`Server::as_anonymous`]; over a socket ([`crate::serve`])
/// likewise. A bearer token (the administrator's, a static user's, a
/// ServiceAccount's from `serviceaccounts/{name}/token`) always says who the caller is.
impl Server {
    /// The administrator's bearer token (what [`crate::kubeconfig`] writes).
    pub fn admin_token(&self) -> String {
        self.shared.identities().admin_token.clone()
    }

    /// A new bearer token for the static user `name` in `groups` (as the API server's token
    /// file gives one); `system:authenticated` is added, as the authenticator adds it.
    pub fn add_user(&self, name: &str, groups: &[&str]) -> String {
        self.shared.identities().add(authenticated(name, groups))
    }

    /// This server, for clients in process that act as the user `name` in `groups` (and
    /// `system:authenticated`) when their requests carry no credentials: RBAC decides what
    /// they may do. Clones share the store.
    pub fn as_user(&self, name: &str, groups: &[&str]) -> Server {
        self.acting(Caller::As(Arc::new(authenticated(name, groups))))
    }

    /// This server, for clients in process that act as the ServiceAccount `name` of
    /// `namespace` (its user name and groups, as its token would authenticate it).
    pub fn as_service_account(&self, namespace: &str, name: &str) -> Server {
        let uid = self.service_account_uid(namespace, name);
        self.acting(Caller::As(Arc::new(User::service_account(
            namespace, name, &uid,
        ))))
    }

    /// This server, for clients in process whose requests without credentials are
    /// `system:anonymous`, as over a socket.
    pub fn as_anonymous(&self) -> Server {
        self.acting(Caller::Anonymous)
    }

    pub(crate) fn acting(&self, caller: Caller) -> Server {
        Server {
            shared: self.shared.clone(),
            caller,
            limits: self.limits.clone(),
        }
    }

    /// The uid of a stored ServiceAccount (empty when there is none).
    fn service_account_uid(&self, namespace: &str, name: &str) -> String {
        let state = self.shared.lock();
        let catalog = state.catalog.clone();
        catalog
            .find("", "v1", "serviceaccounts")
            .and_then(|(index, _)| {
                state.objects[index].get(&(namespace.to_owned(), name.to_owned()))
            })
            .and_then(|sa| sa.pointer("/metadata/uid"))
            .and_then(serde_json::Value::as_str)
            .unwrap_or("")
            .to_owned()
    }
}

/// The x509 authenticator (`request/x509/x509.go`, `AuthenticateRequest`): the chain must
/// verify against the cluster's CA for client authentication at `now` (else `Err`, where
/// the API server answers 401 unless a token authenticates the request), then the user is
/// its subject's common name and the groups its organizations (`CommonNameUserConversion`,
/// with `system:authenticated`); none without a common name (the next authenticator
/// decides).
pub(crate) fn certificate_user(client: &ClientChain, now: UnixTime) -> Result<Option<User>, ()> {
    let Some((leaf, intermediates)) = client.chain.split_first() else {
        return Ok(None);
    };
    client
        .verifier
        .verify_client_cert(leaf, intermediates, now)
        .map_err(|_| ())?;
    let Ok((_, certificate)) = x509_parser::parse_x509_certificate(leaf) else {
        return Err(());
    };
    let subject = certificate.subject();
    let Some(name) = subject
        .iter_common_name()
        .next()
        .and_then(|n| n.as_str().ok())
    else {
        return Ok(None);
    };
    let groups: Vec<&str> = subject
        .iter_organization()
        .filter_map(|o| o.as_str().ok())
        .collect();
    Ok(Some(authenticated(name, &groups)))
}

/// A user as an authenticator gives it: its groups and `system:authenticated`.
fn authenticated(name: &str, groups: &[&str]) -> User {
    let mut user = User::new(name, groups);
    if !user.groups.iter().any(|g| g == AUTHENTICATED) {
        user.groups.push(AUTHENTICATED.to_owned());
    }
    user
}

impl Server {
    /// Authorizes a request authenticated (and impersonated) as `user`: the user it acts
    /// as, or the API server's 403.
    pub(crate) fn authorized(
        &self,
        parts: &http::request::Parts,
        user: User,
    ) -> Result<User, Failure> {
        self.shared.authorize(&user, &request_info(parts))?;
        Ok(user)
    }

    /// Authenticates and impersonates: who the request acts as, or the API server's 401 or
    /// 403 (what the flow control filter, after these two, sees).
    pub(crate) fn identify(&self, parts: &http::request::Parts) -> Result<User, Failure> {
        let authorization = parts
            .headers
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        // The x509 authenticator comes before the token authenticators, so a certificate
        // that names a user decides even when a bearer token is sent too.
        let certified = match &self.caller {
            Caller::Certificate(client) => Some(certificate_user(client, self.now())),
            _ => None,
        };
        let user = match certified {
            Some(Ok(Some(user))) => user,
            certified => match self.shared.authenticate_request(authorization)? {
                Some(user) => user,
                // The union of authenticators returns the certificate's error when no
                // token authenticated instead, and the anonymous authenticator after it
                // is not tried (`union.NewFailOnError`): 401.
                None if matches!(certified, Some(Err(()))) => {
                    return Err(Failure::unauthorized());
                }
                None => match &self.caller {
                    Caller::As(user) => (**user).clone(),
                    Caller::Anonymous | Caller::Certificate(_) => User::anonymous(),
                },
            },
        };
        self.shared.impersonate(user, &parts.headers)
    }
}

impl Server {
    /// The time on the server's clock, as a certificate's validity is read.
    fn now(&self) -> UnixTime {
        let seconds = self.shared.clock.now().as_second();
        UnixTime::since_unix_epoch(Duration::from_secs(u64::try_from(seconds).unwrap_or(0)))
    }
}

/// `RequestInfoFactory.NewRequestInfo`: what the authorizer is asked about a request.
pub(crate) fn request_info(parts: &http::request::Parts) -> Attributes {
    let path = parts.uri.path();
    let method = &parts.method;
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let rest = match segments[..] {
        ["api", _version, ref rest @ ..] if !rest.is_empty() => Some(("", rest)),
        ["apis", group, _version, ref rest @ ..] if !rest.is_empty() => Some((group, rest)),
        _ => None,
    };
    let Some((group, mut rest)) = rest else {
        let verb = method.as_str().to_ascii_lowercase();
        return Attributes::path(&verb, path);
    };
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8()
            .map_or_else(|_| s.to_owned(), |d| d.into_owned())
    };
    let mut namespace = String::new();
    if rest[0] == "namespaces" && rest.len() > 1 {
        namespace = decode(rest[1]);
        // `namespaces/{name}/{finalize|status}` is the namespace's own subresource.
        if rest.len() > 2 && !matches!(rest[2], "finalize" | "status") {
            rest = &rest[2..];
        }
    }
    let resource = rest[0].to_owned();
    let name = rest.get(1).map(|n| decode(n)).unwrap_or_default();
    let subresource = rest.get(2).map(|s| (*s).to_owned()).unwrap_or_default();
    let query = Query::parse(parts.uri.query().unwrap_or(""));
    let mut verb = match *method {
        Method::POST => "create",
        Method::GET | Method::HEAD => "get",
        Method::PUT => "update",
        Method::PATCH => "patch",
        Method::DELETE => "delete",
        _ => "",
    }
    .to_owned();
    let mut name = name;
    if name.is_empty() && verb == "get" {
        verb = if query.flag("watch") { "watch" } else { "list" }.to_owned();
        if let Some(selector) = query.get("fieldSelector") {
            for term in selector.split(',') {
                if let Some(value) = term
                    .strip_prefix("metadata.name==")
                    .or_else(|| term.strip_prefix("metadata.name="))
                {
                    name = value.to_owned();
                }
            }
        }
    }
    if name.is_empty() && verb == "delete" {
        verb = "deletecollection".to_owned();
    }
    Attributes {
        verb,
        resource_request: true,
        namespace,
        group: group.to_owned(),
        version: String::new(),
        resource,
        subresource,
        name,
        path: path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(method: &str, uri: &str) -> Attributes {
        let (parts, ()) = http::Request::builder()
            .method(method)
            .uri(uri)
            .body(())
            .expect("a request")
            .into_parts();
        request_info(&parts)
    }

    #[test]
    fn request_info_reads_paths_as_the_api_server_does() {
        let list = info("GET", "/api/v1/namespaces/ns/pods");
        assert_eq!(
            (
                list.verb.as_str(),
                list.namespace.as_str(),
                list.resource.as_str()
            ),
            ("list", "ns", "pods")
        );
        let watch = info(
            "GET",
            "/apis/apps/v1/deployments?watch=true&fieldSelector=metadata.name%3Dx",
        );
        assert_eq!(
            (watch.verb.as_str(), watch.group.as_str()),
            ("watch", "apps")
        );
        let status = info("PATCH", "/apis/apps/v1/namespaces/ns/deployments/d/status");
        assert_eq!(
            (
                status.verb.as_str(),
                status.name.as_str(),
                status.subresource.as_str()
            ),
            ("patch", "d", "status")
        );
        let namespace = info("GET", "/api/v1/namespaces/ns");
        assert_eq!(
            (
                namespace.resource.as_str(),
                namespace.name.as_str(),
                namespace.namespace.as_str()
            ),
            ("namespaces", "ns", "ns")
        );
        let finalize = info("PUT", "/api/v1/namespaces/ns/finalize");
        assert_eq!(
            (finalize.resource.as_str(), finalize.subresource.as_str()),
            ("namespaces", "finalize")
        );
        assert_eq!(
            info("DELETE", "/api/v1/namespaces/ns/pods").verb,
            "deletecollection"
        );
        let path = info("GET", "/apis/apps/v1");
        assert!(!path.resource_request);
        assert_eq!(
            (path.verb.as_str(), path.path.as_str()),
            ("get", "/apis/apps/v1")
        );
        assert_eq!(info("POST", "/version").verb, "post");
    }
}
