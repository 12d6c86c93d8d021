//! The filters every request passes before its handler, as k8s.io/apiserver's
//! `DefaultBuildHandlerChain` runs them: authentication (a TLS client certificate from the
//! cluster's CA, else a bearer token, else the caller's default: `system:anonymous` over a
//! socket, the server's own identity in process),
//! impersonation, then authorization of what the request info says it does
//! (`endpoints/request/requestinfo.go`: the verb, and the resource, subresource, namespace
//! and name of a resource request, or the path of any other).

use std::sync::Arc;

use http::Method;

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
    /// A TLS connection whose client certificate, signed by the cluster's CA, names this
    /// user: the API server's x509 authenticator comes before its token authenticators, so
    /// it decides even when a bearer token is sent too.
    Certificate(Arc<User>),
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

/// The user a verified client certificate names, as the API server's x509 authenticator
/// reads it (`request/x509`'s `CommonNameUserConversion`): the subject's common name is the
/// user, its organizations the groups (and `system:authenticated`). None without a
/// common name.
pub(crate) fn certificate_user(der: &[u8]) -> Option<User> {
    let (_, certificate) = x509_parser::parse_x509_certificate(der).ok()?;
    let subject = certificate.subject();
    let name = subject.iter_common_name().next()?.as_str().ok()?;
    let groups: Vec<&str> = subject
        .iter_organization()
        .filter_map(|o| o.as_str().ok())
        .collect();
    Some(authenticated(name, &groups))
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
    /// Authenticates, impersonates and authorizes a request: the user it acts as, or the
    /// API server's 401 or 403.
    pub(crate) fn admit(&self, parts: &http::request::Parts) -> Result<User, Failure> {
        let user = self.identify(parts)?;
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
        let user = match &self.caller {
            Caller::Certificate(user) => (**user).clone(),
            caller => match self.shared.authenticate_request(authorization)? {
                Some(user) => user,
                None => match caller {
                    Caller::As(user) | Caller::Certificate(user) => (**user).clone(),
                    Caller::Anonymous => User::anonymous(),
                },
            },
        };
        self.shared.impersonate(user, &parts.headers)
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
