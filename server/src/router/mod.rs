//! The router, the top floor: [`Server`], which takes a request apart (its path into
//! discovery, OpenAPI or a resource, and a resource's path into its namespace, name and
//! subresource; its method and query into a verb), negotiates the answer's media type and
//! hands the request to the verb (`verbs`). `service` makes it a `tower::Service`; `serve`
//! puts it on a port.

pub(crate) mod filters;
pub(crate) mod limits;
pub(crate) mod manifests;
pub(crate) mod serve;
pub(crate) mod service;
pub(crate) mod streams;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use http::{HeaderValue, Method, Response, StatusCode, header};
use serde_json::Value;

use crate::objects::catalog::Catalog;
use crate::objects::discovery;
use crate::router::filters::Caller;
use crate::router::limits::Limits;
use crate::semantics::apply;
use crate::semantics::rbac::User;
use crate::verbs::auth::administrator;
use crate::verbs::{Options, Shared};
use crate::wire::body::Body;
use crate::wire::encoding;
use crate::wire::media;
use crate::wire::query::Query;
use crate::wire::response::{failure_response, json_response, text_response, warning_header};
use crate::wire::status::Failure;

/// An in-memory API server for the resources of a [`Catalog`]. Cheap to clone: clones share
/// the store. Use it as a `tower::Service` ([`Server::handle`] is the whole of it), or serve
/// it over HTTP with [`crate::serve`].
#[derive(Clone)]
pub struct Server {
    pub(crate) shared: Arc<Shared>,
    /// Who a request without credentials acts as (`filters`).
    pub(crate) caller: Caller,
    /// Each identity's request rate and open watches, shared by the clones (`limits`).
    pub(crate) limits: Arc<Limits>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("catalog", &self.shared.catalog())
            .field("options", &self.shared.options)
            .finish_non_exhaustive()
    }
}

/// A parsed resource path.
struct Target {
    index: usize,
    namespace: Option<String>,
    name: Option<String>,
    subresource: Option<String>,
}

impl Server {
    /// A server for `catalog`, with default [`Options`].
    pub fn new(catalog: Catalog) -> Server {
        Server::with_options(catalog, Options::default())
    }

    /// A server for `catalog`.
    pub fn with_options(catalog: Catalog, options: Options) -> Server {
        let shared = Arc::new(Shared::new(catalog, options));
        Shared::start_simulation(&shared);
        Server {
            shared,
            caller: Caller::As(Arc::new(administrator())),
            limits: Arc::default(),
        }
    }

    /// With the simulation on ([`Options::simulation`]), moves the server's clock `by`
    /// forward and runs the simulation once on the new time (a CronJob due fires, a
    /// readiness delay passes) before returning. Without it, the server's clock is the real
    /// time and this does nothing.
    pub fn advance(&self, by: std::time::Duration) {
        self.shared.advance(by);
    }

    /// With the simulation on, stops the server's clock: from now on it moves only when
    /// advanced. Without it, does nothing.
    pub fn freeze(&self) {
        self.shared.freeze(true);
    }

    /// With the simulation on, lets a frozen clock run again from where it stands.
    pub fn resume(&self) {
        self.shared.freeze(false);
    }

    /// The catalog served now (CustomResourceDefinitions created through the API add to
    /// it).
    pub fn catalog(&self) -> Arc<Catalog> {
        self.shared.catalog()
    }

    /// Creates each CustomResourceDefinition as a client's `POST` does (validated, its names
    /// accepted, `Established` and its resources served before this returns), as a
    /// controller's test installs its CRDs before anything else: a generated crate's
    /// `crds()`, or `serde_json::to_value(Foo::crd())` with `--kube`. The CRDs are stored
    /// objects, as on a cluster where they were applied. The first refused one stops it, with
    /// the API server's answer (a 404 when the catalog does not serve
    /// `apiextensions.k8s.io/v1`).
    ///
    /// # Errors
    ///
    /// What the API server answers the create of a refused CRD.
    pub fn install_crds<'a>(
        &self,
        crds: impl IntoIterator<Item = &'a Value>,
    ) -> Result<(), Failure> {
        const PATH: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
        for crd in crds {
            // Each create is a request of its own, with the catalog served as it starts.
            let catalog = self.shared.catalog();
            let Some((index, _)) =
                catalog.find("apiextensions.k8s.io", "v1", "customresourcedefinitions")
            else {
                return Err(Failure::no_route(PATH));
            };
            let body = serde_json::to_vec(crd)
                .map_err(|e| Failure::bad_request(format!("a CRD that is not JSON: {e}")))?;
            self.shared.create(
                &catalog,
                index,
                "",
                &body,
                &Query::default(),
                "kubeforge-server",
                &mut Vec::new(),
            )?;
        }
        Ok(())
    }

    /// How many watch streams are open (each is one task, which ends when its client goes).
    pub fn open_watches(&self) -> usize {
        self.shared.watches.load(Ordering::SeqCst)
    }

    /// Drops the event history and ends every open watch with 410 Gone, as a compaction
    /// does on a real server: clients must list again.
    pub fn compact(&self) {
        self.shared.lock().compact();
        self.shared.changed.send_replace(self.shared.lock().rv);
    }

    /// How many objects are stored.
    pub fn len(&self) -> usize {
        self.shared.lock().objects.iter().map(BTreeMap::len).sum()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Answers one request whose body has been read.
    pub fn handle(&self, parts: &http::request::Parts, body: &[u8]) -> Response<Body> {
        let identity = {
            let _clock = self.shared.clock.enter();
            self.identify(parts)
        };
        self.handle_as(parts, body, identity)
    }

    /// [`Server::handle`] for a request already authenticated and impersonated (`identity`,
    /// what [`Server::identify`] gave): it is authorized, routed and answered, and never
    /// authenticated again.
    pub(crate) fn handle_as(
        &self,
        parts: &http::request::Parts,
        body: &[u8],
        identity: Result<User, Failure>,
    ) -> Response<Body> {
        let _clock = self.shared.clock.enter();
        let routed = identity
            .and_then(|user| self.authorized(parts, user))
            .and_then(|user| self.route(parts, body, &user));
        match routed {
            Ok(response) => response,
            Err(failure) => {
                encoding::failure_negotiated(&self.shared.options.protobuf, parts, &failure)
            }
        }
    }

    fn route(
        &self,
        parts: &http::request::Parts,
        body: &[u8],
        user: &User,
    ) -> Result<Response<Body>, Failure> {
        let path = parts.uri.path();
        let trimmed = path.trim_matches('/');
        let segments: Vec<&str> = if trimmed.is_empty() {
            Vec::new()
        } else {
            trimmed.split('/').collect()
        };
        // The request's one snapshot; a watch keeps it for as long as it streams.
        let catalog = &self.shared.catalog();
        let discovery = |value: Option<Value>| -> Result<Response<Body>, Failure> {
            if parts.method != Method::GET {
                return Err(Failure::method_not_allowed(parts.method.as_str(), path));
            }
            value
                .map(|v| json_response(StatusCode::OK, &v))
                .ok_or_else(|| Failure::no_route(path))
        };
        match segments[..] {
            ["version"] => discovery(Some(discovery::version())),
            ["healthz" | "livez" | "readyz"] => {
                if parts.method != Method::GET {
                    return Err(Failure::method_not_allowed(parts.method.as_str(), path));
                }
                Ok(text_response("ok"))
            }
            ["api" | "apis"] if parts.method == Method::GET => {
                Ok(self.discovery_root(catalog, parts, segments[0] == "api"))
            }
            ["api"] => discovery(discovery::core_versions(catalog)),
            ["apis"] => discovery(Some(discovery::groups(catalog))),
            // The plain documents' handlers negotiate with the default restrictions: an
            // `Accept` that only asks for a conversion (`as=`) is refused.
            ["api", _] | ["apis", _] | ["apis", _, _]
                if parts.method == Method::GET && !media::accepts_plain(parts) =>
            {
                Err(media::not_acceptable())
            }
            ["api", version] => discovery(discovery::resources(catalog, "", version)),
            ["apis", group] => discovery(discovery::group(catalog, group)),
            ["apis", group, version] => discovery(discovery::resources(catalog, group, version)),
            ["openapi", "v2"] => {
                let document = catalog
                    .openapi_v2
                    .as_ref()
                    .ok_or_else(|| Failure::no_route(path))?;
                if !media::accepts_json(parts) {
                    return Err(Failure::not_acceptable(
                        "only application/json is served at /openapi/v2 by this server",
                    ));
                }
                discovery(Some((**document).clone()))
            }
            [".well-known", "openid-configuration"] | ["openid", "v1", "jwks"] => {
                self.issuer_discovery(parts, &segments)
            }
            ["simulation", "clock"] => self
                .shared
                .clock_request(
                    parts.method.as_str(),
                    &Query::parse(parts.uri.query().unwrap_or("")),
                )
                .map(|v| json_response(StatusCode::OK, &v)),
            ["openapi", "v3"] => discovery(Some(discovery::openapi_index(catalog))),
            ["openapi", "v3", ..] => {
                let key = segments[2..].join("/");
                discovery(catalog.openapi.get(&key).map(|doc| (**doc).clone()))
            }
            ["api", version, ref rest @ ..] => {
                let target = target(catalog, "", version, rest, path)?;
                self.resource(catalog, parts, body, &target, user)
            }
            ["apis", group, version, ref rest @ ..] => {
                let target = target(catalog, group, version, rest, path)?;
                self.resource(catalog, parts, body, &target, user)
            }
            _ => Err(Failure::no_route(path)),
        }
    }

    /// `/api` or `/apis`: the aggregated document when the `Accept` asks for it (with the
    /// API server's `ETag`, `Vary: Accept` and `Cache-Control: public`, and 304 when
    /// `If-None-Match` names the `ETag`), else the plain one; made from the catalog as it is
    /// now.
    fn discovery_root(
        &self,
        catalog: &Catalog,
        parts: &http::request::Parts,
        core: bool,
    ) -> Response<Body> {
        match media::discovery(parts) {
            media::Discovery::Plain if !media::accepts_plain(parts) => {
                failure_response(&media::not_acceptable())
            }
            media::Discovery::Plain => {
                let document = if core {
                    discovery::core_versions(catalog)
                } else {
                    Some(discovery::groups(catalog))
                };
                match document {
                    Some(document) => json_response(StatusCode::OK, &document),
                    None => failure_response(&Failure::no_route(parts.uri.path())),
                }
            }
            media::Discovery::Aggregated { protobuf } => {
                let document = discovery::aggregated(catalog, core);
                let etag = discovery::etag(&document);
                let matched = parts
                    .headers
                    .get(header::IF_NONE_MATCH)
                    .is_some_and(|v| v.as_bytes() == etag.as_bytes());
                let mut response = if matched {
                    let mut response = Response::new(Body::full(Vec::new()));
                    *response.status_mut() = StatusCode::NOT_MODIFIED;
                    response
                } else {
                    let mut response = if protobuf {
                        encoding::protobuf_response(
                            &self.shared.options.protobuf,
                            StatusCode::OK,
                            &document,
                        )
                    } else {
                        json_response(StatusCode::OK, &document)
                    };
                    // The media type written, with the profile's parameters.
                    let written = response
                        .headers()
                        .get(header::CONTENT_TYPE)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or(media::JSON)
                        .to_owned();
                    if let Ok(value) =
                        HeaderValue::from_str(&format!("{written}{}", media::AGGREGATED_V2))
                    {
                        response.headers_mut().insert(header::CONTENT_TYPE, value);
                    }
                    response
                };
                let headers = response.headers_mut();
                if let Ok(value) = HeaderValue::from_str(&etag) {
                    headers.insert(header::ETAG, value);
                }
                headers.insert(header::VARY, HeaderValue::from_static("Accept"));
                headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public"));
                response
            }
        }
    }
}

/// The resource a path names in `catalog`.
fn target(
    catalog: &Catalog,
    group: &str,
    version: &str,
    rest: &[&str],
    path: &str,
) -> Result<Target, Failure> {
    let (namespace, rest) = match rest {
        ["namespaces", namespace, rest @ ..] if !rest.is_empty() => {
            (Some(decode(namespace)?), rest)
        }
        _ => (None, rest),
    };
    let (plural, name, subresource) = match rest {
        [plural] => (*plural, None, None),
        [plural, name] => (*plural, Some(decode(name)?), None),
        [plural, name, sub] => (*plural, Some(decode(name)?), Some((*sub).to_owned())),
        // A proxy's path goes on past the subresource, to the proxied server.
        [plural, name, "proxy", ..] => (*plural, Some(decode(name)?), Some("proxy".to_owned())),
        _ => return Err(Failure::no_route(path)),
    };
    let (index, def) = catalog
        .find(group, version, plural)
        .ok_or_else(|| Failure::no_route(path))?;
    let scoped_right = if def.namespaced {
        namespace.is_some() || name.is_none()
    } else {
        namespace.is_none()
    };
    let known_sub = subresource
        .as_ref()
        .is_none_or(|sub| def.subresources.contains_key(sub));
    if !scoped_right || !known_sub {
        return Err(Failure::no_route(path));
    }
    Ok(Target {
        index,
        namespace,
        name,
        subresource,
    })
}

impl Server {
    /// Answers a request on a resource, with the warnings it gave rise to as `Warning`
    /// headers (on a refusal too, as the API server sends them).
    fn resource(
        &self,
        catalog: &Arc<Catalog>,
        parts: &http::request::Parts,
        body: &[u8],
        target: &Target,
        user: &User,
    ) -> Result<Response<Body>, Failure> {
        let mut warnings = Vec::new();
        let answer = self.resource_verb(catalog, parts, body, target, user, &mut warnings);
        if warnings.is_empty() {
            return answer;
        }
        let mut response = answer.unwrap_or_else(|failure| {
            encoding::failure_negotiated(&self.shared.options.protobuf, parts, &failure)
        });
        let mut sent: Vec<&String> = Vec::new();
        for warning in &warnings {
            if sent.contains(&warning) {
                continue;
            }
            sent.push(warning);
            if let Ok(value) = HeaderValue::from_bytes(warning_header(warning).as_bytes()) {
                response.headers_mut().append(header::WARNING, value);
            }
        }
        Ok(response)
    }

    fn resource_verb(
        &self,
        catalog: &Arc<Catalog>,
        parts: &http::request::Parts,
        body: &[u8],
        target: &Target,
        user: &User,
        warnings: &mut Vec<String>,
    ) -> Result<Response<Body>, Failure> {
        let def = &catalog.resources[target.index];
        let query = Query::parse(parts.uri.query().unwrap_or(""));
        let watching = query.flag("watch");
        let verb = match (&parts.method, &target.name) {
            (&Method::GET, None) if watching => "watch",
            (&Method::GET, None) => "list",
            (&Method::GET, Some(_)) => "get",
            (&Method::POST, None) => "create",
            // A subresource that makes something of the object (a token, an eviction, a
            // binding): `rest.NamedCreater`.
            (&Method::POST, Some(_)) if target.subresource.is_some() => "create",
            (&Method::PUT, Some(_)) => "update",
            (&Method::PATCH, Some(_)) => "patch",
            (&Method::DELETE, Some(_)) => "delete",
            (&Method::DELETE, None) => "deletecollection",
            _ => "",
        };
        let verbs = match &target.subresource {
            None => Some(&def.verbs),
            Some(sub) => def.subresources.get(sub),
        };
        if !verbs.is_some_and(|v| v.contains(verb)) {
            return Err(Failure::method_not_allowed(
                parts.method.as_str(),
                parts.uri.path(),
            ));
        }
        let namespace = target.namespace.as_deref();
        let sub = target.subresource.as_deref();
        let user_agent = parts
            .headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok());
        let manager = apply::manager_of(query.get("fieldManager"), user_agent);
        let codec = &self.shared.options.protobuf;
        let protobuf = codec.has_kind(&def.group, &def.version, &def.kind);
        let answer = media::negotiate(parts, protobuf)?;
        let decoded;
        let body = match verb {
            "create" | "update" | "delete" | "deletecollection" => {
                match encoding::request_body(codec, parts, body, protobuf, verb)? {
                    Some(json) => {
                        decoded = json;
                        decoded.as_slice()
                    }
                    None => body,
                }
            }
            _ => body,
        };
        let shared = &self.shared;
        let index = target.index;
        let content_type = parts
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        shared.check_escalation(
            catalog,
            user,
            def,
            namespace.unwrap_or(""),
            target.name.as_deref(),
            verb,
            content_type,
            body,
        )?;
        if let Some(computed) = shared.computed(
            catalog,
            index,
            verb,
            target.name.as_deref(),
            &query,
            warnings,
        ) {
            let (code, value) = computed?;
            return Ok(shared.respond(catalog, answer, index, code, value, &query));
        }
        // A port the simulation serves, through the Pod's or the Service's proxy.
        let id = target.name.as_deref().unwrap_or("");
        let proxied = match (
            def.group.as_str(),
            def.plural.as_str(),
            target.subresource.as_deref(),
        ) {
            ("", "pods", Some("proxy")) => shared.pod_port(namespace.unwrap_or(""), id)?,
            ("", "services", Some("proxy")) => shared.service_port(namespace.unwrap_or(""), id)?,
            _ => None,
        };
        if let Some(port) = proxied {
            return streams::proxy(parts, body, &port);
        }
        // An exec the simulation runs: the WebSocket upgrade.
        if (
            def.group.as_str(),
            def.plural.as_str(),
            target.subresource.as_deref(),
        ) == ("", "pods", Some("exec"))
            && let Some(plan) = shared.pod_exec(
                namespace.unwrap_or(""),
                target.name.as_deref().unwrap_or(""),
                &query,
            )?
        {
            return streams::upgrade(parts, plan);
        }
        // A port-forward the simulation serves: the SPDY or WebSocket upgrade.
        if (
            def.group.as_str(),
            def.plural.as_str(),
            target.subresource.as_deref(),
        ) == ("", "pods", Some("portforward"))
            && let Some(plan) = shared.pod_portforward(
                namespace.unwrap_or(""),
                target.name.as_deref().unwrap_or(""),
                &query,
            )?
        {
            return streams::forward_upgrade(parts, plan);
        }
        if let Some((code, value)) =
            self.behaviour(catalog, def, target, verb, body, &query, user)?
        {
            // A log, as the kubelet streams it: plain text.
            if let (Value::String(text), Some("log")) = (&value, target.subresource.as_deref()) {
                let mut response = Response::new(Body::full(text.clone().into_bytes()));
                *response.status_mut() = code;
                response
                    .headers_mut()
                    .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
                return Ok(response);
            }
            if code == StatusCode::NO_CONTENT {
                let mut response = Response::new(Body::full(Vec::new()));
                *response.status_mut() = code;
                return Ok(response);
            }
            return Ok(shared.respond(catalog, answer, index, code, value, &query));
        }
        let (code, value) = match (verb, target.name.as_deref()) {
            ("watch", _) => return shared.watch(catalog, index, namespace, &query, answer),
            ("list", _) => shared.list(catalog, index, namespace, &query)?,
            ("create", _) => shared.create(
                catalog,
                index,
                namespace.unwrap_or(""),
                body,
                &query,
                &manager,
                warnings,
            )?,
            ("get", Some(name)) => shared.get(index, namespace.unwrap_or(""), name, sub)?,
            ("update", Some(name)) => shared.update(
                catalog,
                index,
                namespace.unwrap_or(""),
                name,
                sub,
                body,
                &query,
                &manager,
                warnings,
            )?,
            ("patch", Some(name)) => {
                let content_type = parts
                    .headers
                    .get(header::CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("");
                shared.patch(
                    catalog,
                    index,
                    namespace.unwrap_or(""),
                    name,
                    sub,
                    content_type,
                    body,
                    &query,
                    &manager,
                    warnings,
                )?
            }
            ("delete", Some(name)) => {
                shared.delete(catalog, index, namespace.unwrap_or(""), name, body, &query)?
            }
            ("deletecollection", _) => {
                shared.delete_collection(catalog, index, namespace, body, &query)?
            }
            _ => {
                return Err(Failure::method_not_allowed(
                    parts.method.as_str(),
                    parts.uri.path(),
                ));
            }
        };
        Ok(shared.respond(catalog, answer, index, code, value, &query))
    }
}

impl Server {
    /// The requests with behaviour of their own, which store nothing of what they are sent:
    /// service account tokens and their review, the access and rules reviews, a Pod's eviction and binding, and what
    /// needs a kubelet. `None` for every other request.
    #[allow(clippy::too_many_arguments)]
    fn behaviour(
        &self,
        catalog: &Catalog,
        def: &crate::objects::catalog::ResourceDef,
        target: &Target,
        verb: &str,
        body: &[u8],
        query: &Query,
        user: &User,
    ) -> Result<Option<(StatusCode, Value)>, Failure> {
        let shared = &self.shared;
        let namespace = target.namespace.as_deref().unwrap_or("");
        let name = target.name.as_deref().unwrap_or("");
        let sub = target.subresource.as_deref();
        let answer = match (def.group.as_str(), def.plural.as_str(), sub, verb) {
            ("", "serviceaccounts", Some("token"), "create") => {
                shared.token_request(namespace, name, body)?
            }
            ("authentication.k8s.io", "tokenreviews", None, "create") => {
                shared.token_review(body)?
            }
            ("authentication.k8s.io", "selfsubjectreviews", None, "create") => {
                shared.self_subject_review(user, body)?
            }
            ("authorization.k8s.io", "selfsubjectaccessreviews", None, "create") => {
                shared.self_access_review(user, body)?
            }
            ("authorization.k8s.io", "subjectaccessreviews", None, "create") => {
                shared.subject_access_review(None, body)?
            }
            ("authorization.k8s.io", "localsubjectaccessreviews", None, "create") => {
                shared.subject_access_review(Some(namespace), body)?
            }
            ("authorization.k8s.io", "selfsubjectrulesreviews", None, "create") => {
                shared.rules_review(user, body)?
            }
            ("", "pods", Some("eviction"), "create") => {
                shared.evict(catalog, namespace, name, body, query)?
            }
            ("", "pods", Some("binding"), "create") => {
                shared.bind(namespace, Some(name), body, query)?
            }
            ("", "bindings", None, "create") => shared.bind(namespace, None, body, query)?,
            ("", "pods", Some(sub @ ("log" | "exec" | "attach" | "portforward" | "proxy")), _) => {
                shared.pod_kubelet(namespace, name, sub, query)?
            }
            ("", "nodes", Some("proxy"), _) => shared.node_proxy(name)?,
            ("", "services", Some("proxy"), _) => shared.service_proxy(namespace, name)?,
            ("metrics.k8s.io", "pods" | "nodes", None, _) => {
                match shared.metrics(
                    catalog,
                    target.index,
                    namespace,
                    target.name.as_deref(),
                    query,
                ) {
                    Some(answer) => answer?,
                    None => return Ok(None),
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(answer))
    }

    /// The service account issuer discovery (`/.well-known/openid-configuration` and
    /// `/openid/v1/jwks`), from the one signing key.
    fn issuer_discovery(
        &self,
        parts: &http::request::Parts,
        segments: &[&str],
    ) -> Result<Response<Body>, Failure> {
        let path = parts.uri.path();
        if parts.method != Method::GET {
            return Err(Failure::method_not_allowed(parts.method.as_str(), path));
        }
        let keys = self
            .shared
            .keys
            .as_ref()
            .map_err(|_| Failure::no_route(path))?;
        let (value, content_type) = if segments[0] == "openid" {
            (keys.jwks(), "application/jwk-set+json")
        } else {
            (keys.openid_configuration(), "application/json")
        };
        let mut response = json_response(StatusCode::OK, &value);
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        response.headers_mut().insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=3600"),
        );
        Ok(response)
    }
}

fn decode(segment: &str) -> Result<String, Failure> {
    percent_encoding::percent_decode_str(segment)
        .decode_utf8()
        .map(std::borrow::Cow::into_owned)
        .map_err(|_| Failure::bad_request(format!("path segment {segment:?} is not UTF-8")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::SNAPSHOTS;

    fn request(method: Method, uri: &str, content_type: &str) -> http::request::Parts {
        http::Request::builder()
            .method(method)
            .uri(uri)
            .header(header::CONTENT_TYPE, content_type)
            .body(())
            .unwrap()
            .into_parts()
            .0
    }

    /// Handles a request on this thread: its status and how many catalog snapshots it took.
    fn snapshots_of(server: &Server, parts: &http::request::Parts, body: &str) -> (u16, usize) {
        let before = SNAPSHOTS.get();
        let response = server.handle(parts, body.as_bytes());
        (response.status().as_u16(), SNAPSHOTS.get() - before)
    }

    /// One request, one catalog: a create, a get, a list, an update, a patch, an apply
    /// and a delete each take one snapshot and read everything from it, while another
    /// thread creates and deletes CustomResourceDefinitions, each of which replaces the
    /// catalog (a request that took two could see a resource in one and not the other).
    #[test]
    fn a_request_takes_one_catalog_while_crds_come_and_go() {
        let test = "a_request_takes_one_catalog_while_crds_come_and_go";
        let documents = [
            "kubernetes/v3/api__v1_openapi.json",
            "kubernetes/v3/apis__apiextensions.k8s.io__v1_openapi.json",
        ];
        let Some(corpus) = kubeforge_tests::corpus(test, &documents) else {
            return;
        };
        let files: Vec<_> = documents.iter().map(|d| corpus.join(d)).collect();
        let server = Server::new(Catalog::from_documents(&files).unwrap());
        const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let churn = {
            let (server, stop) = (server.clone(), stop.clone());
            std::thread::spawn(move || {
                let crd = serde_json::json!({
                    "apiVersion": "apiextensions.k8s.io/v1",
                    "kind": "CustomResourceDefinition",
                    "metadata": {"name": "widgets.example.com"},
                    "spec": {
                        "group": "example.com",
                        "scope": "Namespaced",
                        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                        "versions": [{"name": "v1", "served": true, "storage": true, "schema":
                            {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}],
                    },
                });
                let mut rounds = 0;
                while !stop.load(Ordering::SeqCst) && rounds < 200 {
                    let post = request(Method::POST, CRDS, "application/json");
                    server.handle(&post, crd.to_string().as_bytes());
                    let delete = request(
                        Method::DELETE,
                        &format!("{CRDS}/widgets.example.com"),
                        "application/json",
                    );
                    server.handle(&delete, b"");
                    rounds += 1;
                }
                rounds
            })
        };
        const MAPS: &str = "/api/v1/namespaces/default/configmaps";
        for i in 0..40 {
            let name = format!("c{i}");
            let object = format!(r#"{{"metadata": {{"name": "{name}"}}, "data": {{"a": "1"}}}}"#);
            let one = format!("{MAPS}/{name}");
            let apply = format!("{one}?fieldManager=test");
            let steps: [(Method, &str, &str, String); 7] = [
                (Method::POST, MAPS, "application/json", object.clone()),
                (Method::GET, &one, "", String::new()),
                (Method::GET, MAPS, "", String::new()),
                (
                    Method::PUT,
                    &one,
                    "application/json",
                    object.replace(r#""a": "1""#, r#""a": "2""#),
                ),
                (
                    Method::PATCH,
                    &one,
                    "application/merge-patch+json",
                    r#"{"data": {"b": "3"}}"#.to_owned(),
                ),
                (
                    Method::PATCH,
                    &apply,
                    "application/apply-patch+yaml",
                    format!(
                        r#"{{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {{"name": "{name}"}}, "data": {{"c": "4"}}}}"#
                    ),
                ),
                (Method::DELETE, &one, "", String::new()),
            ];
            for (method, uri, content_type, body) in steps {
                let parts = request(method.clone(), uri, content_type);
                let (code, taken) = snapshots_of(&server, &parts, &body);
                assert!(code < 300, "{method} {uri}: {code}");
                assert_eq!(taken, 1, "{method} {uri} took {taken} catalog snapshots");
            }
            // A custom resource's create: found in the snapshot or not at all.
            let parts = request(
                Method::POST,
                "/apis/example.com/v1/namespaces/default/widgets",
                "application/json",
            );
            let widget = format!(r#"{{"metadata": {{"name": "w{i}"}}}}"#);
            let (code, taken) = snapshots_of(&server, &parts, &widget);
            assert!(matches!(code, 201 | 404 | 409), "a widget: {code}");
            assert_eq!(taken, 1, "a widget's create took {taken} catalog snapshots");
        }
        stop.store(true, Ordering::SeqCst);
        assert!(churn.join().unwrap() > 0);
    }

    /// A request's bearer token is authenticated once: the flow control filter and the
    /// handler share the identity (a ServiceAccount token's signature is checked once).
    #[test]
    fn a_request_is_authenticated_once() {
        let test = "a_request_is_authenticated_once";
        let Some(corpus) = kubeforge_tests::corpus(test, &["kubernetes/v3/api__v1_openapi.json"])
        else {
            return;
        };
        let catalog =
            Catalog::from_documents(&[corpus.join("kubernetes/v3/api__v1_openapi.json")]).unwrap();
        let server = Server::new(catalog).as_anonymous();
        let token = server.add_user("jane", &["system:masters"]);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .unwrap();
        for (method, uri, body) in [
            (Method::GET, "/api/v1/namespaces/default/configmaps", ""),
            (
                Method::POST,
                "/api/v1/namespaces/default/configmaps",
                r#"{"metadata": {"name": "a"}}"#,
            ),
        ] {
            let request = http::Request::builder()
                .method(method.clone())
                .uri(uri)
                .header(header::AUTHORIZATION, format!("Bearer {token}"))
                .header(header::CONTENT_TYPE, "application/json")
                .body(http_body_util::Full::new(bytes::Bytes::from(body)))
                .unwrap();
            let count = || {
                crate::verbs::AUTHENTICATED
                    .lock()
                    .unwrap()
                    .iter()
                    .filter(|t| **t == token)
                    .count()
            };
            let before = count();
            let response = runtime.block_on(server.call_async(request));
            assert!(
                response.status().is_success(),
                "{method} {uri}: {}",
                response.status()
            );
            let after = count();
            assert_eq!(
                after - before,
                1,
                "{method} {uri}: authenticated {} times",
                after - before
            );
        }
    }
}
