//! The server: routing a request to discovery, OpenAPI or a resource, and the semantics of
//! every verb on a resource (API concepts: "Kubernetes API Concepts", API conventions).

use std::collections::BTreeMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use base64::Engine;
use http::{HeaderValue, Method, Response, StatusCode, header};
use serde_json::{Map, Value, json};

use crate::apply::{self, Fields};
use crate::body::Body;
use crate::catalog::{Catalog, ResourceDef};
use crate::controllers::{self, Work};
use crate::discovery;
use crate::encoding;
use crate::gc;
use crate::media;
use crate::namespaces;
use crate::patch::{self, PatchKind};
use crate::select::{FieldSelector, LabelSelector};
use crate::status::{self, Failure};
use crate::store::{Key, State};
use crate::table;
use crate::validation::{self, Directive, Source};
use crate::versions;
use crate::watch;

/// Limits and timings.
#[derive(Clone, Debug)]
pub struct Options {
    /// The largest request body accepted; larger ones are answered 413 (the API server's
    /// limit is 3 MiB).
    pub body_limit: usize,
    /// How many events the history keeps for watches that resume from a resource version;
    /// older ones get 410 Gone.
    pub history: usize,
    /// How often a watch that asked for bookmarks gets one.
    pub bookmark_interval: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            body_limit: 3 * 1024 * 1024,
            history: 1024,
            bookmark_interval: Duration::from_secs(5),
        }
    }
}

pub(crate) struct Shared {
    pub(crate) catalog: Catalog,
    pub(crate) options: Options,
    pub(crate) state: Mutex<State>,
    /// The last resource version, for watches to wait on.
    pub(crate) changed: tokio::sync::watch::Sender<u64>,
    /// Open watch streams (their tasks).
    pub(crate) watches: AtomicUsize,
    uid_seed: std::collections::hash_map::RandomState,
}

/// An in-memory API server for the resources of a [`Catalog`]. Cheap to clone: clones share
/// the store. Use it as a `tower::Service` ([`Server::handle`] is the whole of it), or serve
/// it over HTTP with [`crate::serve`].
#[derive(Clone)]
pub struct Server {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("catalog", &self.shared.catalog)
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
        let state = State::new(catalog.resources.len(), options.history);
        let server = Server {
            shared: Arc::new(Shared {
                catalog,
                options,
                state: Mutex::new(state),
                changed: tokio::sync::watch::channel(0).0,
                watches: AtomicUsize::new(0),
                uid_seed: std::collections::hash_map::RandomState::new(),
            }),
        };
        server.seed_namespaces();
        server
    }

    /// Creates the namespaces a cluster starts with, when the API serves namespaces.
    fn seed_namespaces(&self) {
        let Some(index) = namespaces::index(&self.shared.catalog) else {
            return;
        };
        let mut state = self.shared.lock();
        for name in namespaces::INITIAL {
            let rv = state.next_rv();
            let mut object = json!({
                "kind": "Namespace",
                "apiVersion": "v1",
                "metadata": {
                    "name": name,
                    "uid": self.uid(rv),
                    "resourceVersion": rv.to_string(),
                    "creationTimestamp": now(),
                },
            });
            namespaces::prepare(&mut object, name);
            state.put(
                index,
                (String::new(), name.to_owned()),
                Arc::new(object),
                None,
            );
        }
    }

    /// The catalog served.
    pub fn catalog(&self) -> &Catalog {
        &self.shared.catalog
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
        match self.route(parts, body) {
            Ok(response) => response,
            Err(failure) => failure_response(&failure),
        }
    }

    fn route(&self, parts: &http::request::Parts, body: &[u8]) -> Result<Response<Body>, Failure> {
        let path = parts.uri.path();
        let trimmed = path.trim_matches('/');
        let segments: Vec<&str> = if trimmed.is_empty() {
            Vec::new()
        } else {
            trimmed.split('/').collect()
        };
        let catalog = &self.shared.catalog;
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
            ["api"] => discovery(discovery::core_versions(catalog)),
            ["apis"] => discovery(Some(discovery::groups(catalog))),
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
            ["openapi", "v3"] => discovery(Some(discovery::openapi_index(catalog))),
            ["openapi", "v3", ..] => {
                let key = segments[2..].join("/");
                discovery(catalog.openapi.get(&key).map(|doc| (**doc).clone()))
            }
            ["api", version, ref rest @ ..] => {
                let target = self.target("", version, rest, path)?;
                self.resource(parts, body, &target)
            }
            ["apis", group, version, ref rest @ ..] => {
                let target = self.target(group, version, rest, path)?;
                self.resource(parts, body, &target)
            }
            _ => Err(Failure::no_route(path)),
        }
    }

    fn target(
        &self,
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
            _ => return Err(Failure::no_route(path)),
        };
        let (index, def) = self
            .shared
            .catalog
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

    /// Answers a request on a resource, with the warnings it gave rise to as `Warning`
    /// headers (on a refusal too, as the API server sends them).
    fn resource(
        &self,
        parts: &http::request::Parts,
        body: &[u8],
        target: &Target,
    ) -> Result<Response<Body>, Failure> {
        let mut warnings = Vec::new();
        let answer = self.resource_verb(parts, body, target, &mut warnings);
        if warnings.is_empty() {
            return answer;
        }
        let mut response = answer.unwrap_or_else(|failure| failure_response(&failure));
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
        parts: &http::request::Parts,
        body: &[u8],
        target: &Target,
        warnings: &mut Vec<String>,
    ) -> Result<Response<Body>, Failure> {
        let def = &self.shared.catalog.resources[target.index];
        let query = Query::parse(parts.uri.query().unwrap_or(""));
        let watching = query.flag("watch");
        let verb = match (&parts.method, &target.name) {
            (&Method::GET, None) if watching => "watch",
            (&Method::GET, None) => "list",
            (&Method::GET, Some(_)) => "get",
            (&Method::POST, None) => "create",
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
        let directive =
            validation::Directive::of(query.get("fieldValidation")).unwrap_or(Directive::Warn);
        let protobuf = encoding::protobuf_kind(def);
        let answer = media::negotiate(parts, protobuf)?;
        let decoded;
        let body = match verb {
            "create" | "update" | "delete" | "deletecollection" => {
                match encoding::request_body(parts, body, protobuf, verb)? {
                    Some(json) => {
                        decoded = json;
                        decoded.as_slice()
                    }
                    None => body,
                }
            }
            _ => body,
        };
        let (code, value) = match (verb, target.name.as_deref()) {
            ("watch", _) => return self.watch(target.index, namespace, &query, answer),
            ("list", _) => self.list(target.index, namespace, &query)?,
            ("create", _) => {
                apply::check_options(
                    "CreateOptions",
                    query.get("fieldManager"),
                    query.get("fieldValidation"),
                    false,
                )?;
                let (object, duplicates) = validation::parse_json(body)?;
                let object = self.decoded(
                    target.index,
                    object,
                    validation::duplicate_errors(&duplicates, None),
                    directive,
                    || Source::Body,
                    warnings,
                )?;
                self.create(
                    target.index,
                    namespace.unwrap_or(""),
                    object,
                    &query,
                    Some(&manager),
                )?
            }
            ("get", Some(name)) => {
                let object = self.get(target.index, namespace.unwrap_or(""), name)?;
                let object = if sub == Some("scale") {
                    scale_of(&object)
                } else {
                    (*object).clone()
                };
                (StatusCode::OK, object)
            }
            ("update", Some(name)) => {
                apply::check_options(
                    "UpdateOptions",
                    query.get("fieldManager"),
                    query.get("fieldValidation"),
                    false,
                )?;
                let (body, duplicates) = validation::parse_json(body)?;
                let decoding = Decoding {
                    errors: validation::duplicate_errors(&duplicates, None),
                    directive,
                };
                self.update(
                    target.index,
                    namespace.unwrap_or(""),
                    name,
                    sub,
                    body,
                    decoding,
                    &query,
                    &manager,
                    warnings,
                )?
            }
            ("patch", Some(name)) => {
                let content_type = parts
                    .headers
                    .get(header::CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("");
                self.patch(
                    target.index,
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
                self.delete(target.index, namespace.unwrap_or(""), name, body, &query)?
            }
            ("deletecollection", _) => {
                self.delete_collection(target.index, namespace, body, &query)?
            }
            _ => {
                return Err(Failure::method_not_allowed(
                    parts.method.as_str(),
                    parts.uri.path(),
                ));
            }
        };
        Ok(self.respond(answer, target.index, code, value, &query))
    }

    /// Encodes an answer (an object of the resource's kind, a list of them, or a `Status`)
    /// as the client asked: JSON, or a Table.
    fn respond(
        &self,
        answer: media::Answer,
        index: usize,
        code: StatusCode,
        value: Value,
        query: &Query,
    ) -> Response<Body> {
        match answer {
            media::Answer::Table(version)
                if value.get("kind").and_then(Value::as_str) != Some("Status") =>
            {
                let def = self.def(index);
                let include = table::Include::of(query.get("includeObject"));
                let catalog = &self.shared.catalog;
                let table = match value.get("items").and_then(Value::as_array) {
                    Some(items) => {
                        let items: Vec<&Value> = items.iter().collect();
                        table::table(
                            catalog,
                            def,
                            version,
                            &items,
                            include,
                            table::list_metadata(&value),
                            true,
                        )
                    }
                    None => {
                        let metadata = json!({"resourceVersion": value.pointer("/metadata/resourceVersion").cloned().unwrap_or(Value::from(""))});
                        table::table(catalog, def, version, &[&value], include, metadata, true)
                    }
                };
                json_response(code, &table)
            }
            media::Answer::Protobuf => encoding::protobuf_response(code, &value),
            _ => json_response(code, &value),
        }
    }

    fn def(&self, index: usize) -> &ResourceDef {
        &self.shared.catalog.resources[index]
    }

    fn get(&self, index: usize, namespace: &str, name: &str) -> Result<Arc<Value>, Failure> {
        let def = self.def(index);
        self.shared.lock().objects[index]
            .get(&(namespace.to_owned(), name.to_owned()))
            .cloned()
            .ok_or_else(|| Failure::not_found(&def.group, &def.plural, name))
    }

    fn list(
        &self,
        index: usize,
        namespace: Option<&str>,
        query: &Query,
    ) -> Result<(StatusCode, Value), Failure> {
        let def = self.def(index);
        let filter = Filter::new(namespace, query)?;
        let limit = query
            .get("limit")
            .and_then(|l| l.parse::<usize>().ok())
            .filter(|l| *l > 0);
        let state = self.shared.lock();
        let (start, continued): (Option<Key>, Option<u64>) = match query
            .get("continue")
            .filter(|c| !c.is_empty())
        {
            None => (None, None),
            Some(token) => {
                let (rv, key) = decode_continue(token).ok_or_else(|| {
                    Failure::bad_request(format!("invalid continue token {token:?}"))
                })?;
                if rv < state.compacted {
                    return Err(Failure::gone(
                        "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
                    ));
                }
                (Some(key), Some(rv))
            }
        };
        let (snapshot, at) = match versions::list_read(&state, query, continued)? {
            versions::Read::Latest => (None, state.rv),
            versions::Read::Exact(rv) => (Some(versions::objects_at(&state, index, rv)?), rv),
        };
        let objects = snapshot.as_ref().unwrap_or(&state.objects[index]);
        let range = match &start {
            Some(key) => objects
                .range::<Key, _>((std::ops::Bound::Excluded(key), std::ops::Bound::Unbounded)),
            None => objects.range::<Key, _>(..),
        };
        let mut items = Vec::new();
        let mut last = None;
        let mut remaining = 0usize;
        for (key, object) in range {
            if !filter.matches(object) {
                continue;
            }
            if limit.is_some_and(|limit| items.len() >= limit) {
                remaining += 1;
                continue;
            }
            items.push((**object).clone());
            last = Some(key.clone());
        }
        let mut metadata = json!({"resourceVersion": at.to_string()});
        if remaining > 0
            && let Some(last) = last
        {
            metadata["continue"] = Value::from(encode_continue(at, &last));
            metadata["remainingItemCount"] = Value::from(remaining);
        }
        drop(state);
        let list = json!({
            "kind": def.list_kind(),
            "apiVersion": def.api_version(),
            "metadata": metadata,
            "items": items,
        });
        Ok((StatusCode::OK, list))
    }

    fn watch(
        &self,
        index: usize,
        namespace: Option<&str>,
        query: &Query,
        answer: media::Answer,
    ) -> Result<Response<Body>, Failure> {
        let filter = Filter::new(namespace, query)?;
        let request = watch::Request::new(index, filter, query, answer)?;
        let content_type = request.content_type();
        let receiver = watch::start(self.shared.clone(), request);
        let mut response = Response::new(Body::stream(receiver));
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        Ok(response)
    }

    /// Creates `object` (checked). `manager` is the updater to record as owning its fields;
    /// `None` when an apply has already recorded its managed fields.
    fn create(
        &self,
        index: usize,
        namespace: &str,
        mut object: Value,
        query: &Query,
        manager: Option<&str>,
    ) -> Result<(StatusCode, Value), Failure> {
        let def = self.def(index);
        let meta = metadata_mut(&mut object);
        // A name from `generateName` before validation, as `BeforeCreate` makes it; without
        // either, validation refuses the empty name.
        let name = match meta.get("name").and_then(Value::as_str) {
            Some(name) if !name.is_empty() => name.to_owned(),
            _ => match meta.get("generateName").and_then(Value::as_str) {
                Some(prefix) if !prefix.is_empty() => format!("{prefix}{}", self.suffix()),
                _ => String::new(),
            },
        };
        meta.insert("name".into(), Value::from(name.clone()));
        self.place(def, meta, namespace)?;
        for key in [
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "resourceVersion",
            "uid",
            "creationTimestamp",
        ] {
            meta.remove(key);
        }
        validation::validate(&self.shared.catalog, def, &object, None)?;
        if let Some(manager) = manager {
            Fields::new(&self.shared.catalog, def, None).created(&mut object, manager);
        }
        if def.has_status()
            && let Some(map) = object.as_object_mut()
        {
            // PrepareForCreate: a built-in kind's status starts as its zero value (what Go
            // writes of it), a custom resource's is dropped.
            map.remove("status");
            validation::builtin_defaults(&self.shared.catalog, def, &mut object);
        }
        if namespaces::is_namespaces(&self.shared.catalog, index) {
            namespaces::prepare(&mut object, &name);
        }
        let key = (namespace.to_owned(), name.clone());
        let mut state = self.shared.lock();
        namespaces::admit_create(&state, &self.shared.catalog, def, namespace, &name)?;
        if state.objects[index].contains_key(&key) {
            return Err(Failure::already_exists(&def.group, &def.plural, &name));
        }
        if query.dry_run() {
            return Ok((StatusCode::CREATED, object));
        }
        let rv = state.next_rv();
        let meta = metadata_mut(&mut object);
        meta.insert("uid".into(), Value::from(self.uid(rv)));
        meta.insert("resourceVersion".into(), Value::from(rv.to_string()));
        meta.insert("generation".into(), Value::from(1));
        meta.insert("creationTimestamp".into(), Value::from(now()));
        let object = Arc::new(object);
        state.put(index, key.clone(), object.clone(), None);
        self.settle(&mut state, vec![Work::Written(index, key)]);
        self.notify(state);
        Ok((StatusCode::CREATED, (*object).clone()))
    }

    #[allow(clippy::too_many_arguments)]
    fn update(
        &self,
        index: usize,
        namespace: &str,
        name: &str,
        sub: Option<&str>,
        body: Value,
        decoding: Decoding,
        query: &Query,
        manager: &str,
        warnings: &mut Vec<String>,
    ) -> Result<(StatusCode, Value), Failure> {
        let def = self.def(index);
        let body = if sub == Some("scale") {
            body
        } else {
            self.decoded(
                index,
                body,
                decoding.errors,
                decoding.directive,
                || Source::Body,
                warnings,
            )?
        };
        let body_name = body
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or(name);
        if body_name != name {
            return Err(Failure::bad_request(format!(
                "the name of the object ({body_name}) does not match the name on the URL ({name})"
            )));
        }
        let old = self.get(index, namespace, name)?;
        if let Some(rv) = body
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            && !rv.is_empty()
            && Some(rv)
                != old
                    .pointer("/metadata/resourceVersion")
                    .and_then(Value::as_str)
        {
            return Err(stale(def, name));
        }
        self.commit(
            index,
            namespace,
            name,
            &old,
            body,
            sub,
            query,
            Some(manager),
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn patch(
        &self,
        index: usize,
        namespace: &str,
        name: &str,
        sub: Option<&str>,
        content_type: &str,
        body: &[u8],
        query: &Query,
        manager: &str,
        warnings: &mut Vec<String>,
    ) -> Result<(StatusCode, Value), Failure> {
        let def = self.def(index);
        let kind = PatchKind::from_content_type(content_type).ok_or_else(|| {
            Failure::unsupported_media_type(format!(
                "the body of the request was in an unknown format ({content_type:?}): accepted media types are application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml"
            ))
        })?;
        apply::check_options(
            "PatchOptions",
            query.get("fieldManager"),
            query.get("fieldValidation"),
            kind == PatchKind::Apply,
        )?;
        if kind == PatchKind::Apply {
            return self.apply(index, namespace, name, sub, body, query, manager);
        }
        if query.get("force").is_some() {
            return Err(apply::invalid_options(
                "PatchOptions",
                &[(
                    "force",
                    "FieldValueForbidden",
                    "Forbidden: may not be specified for non-apply patch".to_owned(),
                )],
            ));
        }
        let old = self.get(index, namespace, name)?;
        let mut patched = if sub == Some("scale") {
            scale_of(&old)
        } else {
            (*old).clone()
        };
        let root = self.shared.catalog.patch_root(def);
        patch::apply(kind, &mut patched, body, &self.shared.catalog.patch, root)
            .map_err(|message| Failure::invalid(&def.kind, name, message))?;
        // The patch's own duplicate keys (and a JSON patch's unknown ones) are strict errors
        // too; a refusal shows the patched object, or a strategic merge patch as Go prints it.
        let directive =
            validation::Directive::of(query.get("fieldValidation")).unwrap_or(Directive::Warn);
        let parsed = match directive {
            Directive::Ignore => None,
            _ => validation::parse_json(body).ok(),
        };
        let errors = parsed
            .as_ref()
            .map_or_else(Vec::new, |(patch, duplicates)| {
                validation::duplicate_errors(duplicates, (kind == PatchKind::Json).then_some(patch))
            });
        let shown = |patched: &Value| match (kind, &parsed) {
            (PatchKind::Strategic, Some((patch, _))) => validation::go_text(patch),
            _ => kubeforge_runtime::schema::gofmt::json(patched),
        };
        let old_rv = old
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str);
        let new_rv = patched
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str);
        if new_rv.is_some_and(|rv| Some(rv) != old_rv) {
            return Err(stale(def, name));
        }
        let patched = if sub == Some("scale") {
            patched
        } else {
            // Only a refusal shows it.
            let text = (directive == Directive::Strict).then(|| shown(&patched));
            self.decoded(
                index,
                patched,
                errors,
                directive,
                || Source::Patch(text.unwrap_or_default()),
                warnings,
            )?
        };
        self.commit(
            index,
            namespace,
            name,
            &old,
            patched,
            sub,
            query,
            Some(manager),
        )
    }

    /// Server-side apply: merges the configuration into the object (creating it when it does
    /// not exist, as the API server does), with the field management of `apply`.
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &self,
        index: usize,
        namespace: &str,
        name: &str,
        sub: Option<&str>,
        body: &[u8],
        query: &Query,
        manager: &str,
    ) -> Result<(StatusCode, Value), Failure> {
        let def = self.def(index);
        let config = apply::parse_config(body)?;
        let config = if sub == Some("scale") {
            apply::scale_config(def, &config)?
        } else {
            config
        };
        let force = query.flag("force");
        let fields = Fields::new(&self.shared.catalog, def, sub);
        let old = match self.get(index, namespace, name) {
            Ok(old) => old,
            Err(failure) if failure.code == 404 && sub.is_none() => {
                if let Some(uid) = config.pointer("/metadata/uid").and_then(Value::as_str) {
                    return Err(Failure::conflict(
                        &def.group,
                        &def.plural,
                        name,
                        &format!(
                            "uid mismatch: the provided object specified uid {uid}, and no existing object was found"
                        ),
                    ));
                }
                let object = fields.applied(None, &config, manager, force)?;
                same_name(&object, name)?;
                let object = self.applied(index, object)?;
                return self.create(index, namespace, object, query, None);
            }
            Err(failure) => return Err(failure),
        };
        let mut applied = fields.applied(Some(&old), &config, manager, force)?;
        same_name(&applied, name)?;
        self.place(def, metadata_mut(&mut applied), namespace)?;
        let old_rv = old.pointer("/metadata/resourceVersion");
        if applied
            .pointer("/metadata/resourceVersion")
            .is_some_and(|rv| Some(rv) != old_rv)
        {
            return Err(stale(def, name));
        }
        let applied = if sub == Some("scale") {
            applied
        } else {
            self.applied(index, applied)?
        };
        self.commit(index, namespace, name, &old, applied, sub, query, None)
    }

    /// Writes `new` over `old` by the rules of the main resource or subresource `sub`:
    /// `status` takes only the status, the main resource keeps the stored status when the
    /// status subresource exists, `scale` takes only the replicas; identity metadata stays;
    /// `generation` rises when anything but metadata and status changed; a write that
    /// changes nothing makes no new version; an object being deleted whose last finalizer
    /// is removed is deleted.
    /// `manager` is the updater recorded as owning what changed; `None` when an apply has
    /// already recorded the managed fields.
    #[allow(clippy::too_many_arguments)]
    fn commit(
        &self,
        index: usize,
        namespace: &str,
        name: &str,
        old: &Arc<Value>,
        new: Value,
        sub: Option<&str>,
        query: &Query,
        manager: Option<&str>,
    ) -> Result<(StatusCode, Value), Failure> {
        let def = self.def(index);
        // An apply on a subresource has recorded its managed fields in `new`.
        let applied_fields = manager
            .is_none()
            .then(|| new.pointer("/metadata/managedFields").cloned());
        let mut result: Value = match sub {
            Some("status") => {
                let mut result = (**old).clone();
                set_or_remove(&mut result, "status", new.get("status").cloned());
                result
            }
            Some("finalize") => {
                let mut result = (**old).clone();
                let finalizers = new
                    .pointer("/spec/finalizers")
                    .cloned()
                    .unwrap_or_else(|| json!([]));
                match result.get_mut("spec").and_then(Value::as_object_mut) {
                    Some(spec) => {
                        spec.insert("finalizers".into(), finalizers);
                    }
                    None => result["spec"] = json!({"finalizers": finalizers}),
                }
                result
            }
            Some("scale") => {
                let mut result = (**old).clone();
                let replicas = new
                    .pointer("/spec/replicas")
                    .cloned()
                    .unwrap_or(Value::from(0));
                if let Some(spec) = result.get_mut("spec").and_then(Value::as_object_mut) {
                    spec.insert("replicas".into(), replicas);
                } else if let Some(map) = result.as_object_mut() {
                    map.insert("spec".into(), json!({"replicas": replicas}));
                }
                result
            }
            _ => {
                let mut result = new;
                if def.has_status() {
                    set_or_remove(&mut result, "status", old.get("status").cloned());
                }
                let old_meta = old.get("metadata").and_then(Value::as_object);
                let meta = metadata_mut(&mut result);
                for key in [
                    "uid",
                    "creationTimestamp",
                    "deletionTimestamp",
                    "deletionGracePeriodSeconds",
                    "generation",
                    "name",
                    "namespace",
                ] {
                    match old_meta.and_then(|m| m.get(key)) {
                        Some(value) => meta.insert(key.into(), value.clone()),
                        None => meta.remove(key),
                    };
                }
                result
            }
        };
        match (manager, applied_fields) {
            (Some(manager), _) => {
                Fields::new(&self.shared.catalog, def, sub).updated(old, &mut result, manager);
            }
            (None, Some(fields)) => {
                let meta = metadata_mut(&mut result);
                match fields {
                    Some(fields) => meta.insert("managedFields".into(), fields),
                    None => meta.remove("managedFields"),
                };
            }
            (None, None) => {}
        }
        validation::validate(&self.shared.catalog, def, &result, Some(old))?;
        let spec_changed = without_meta_and_status(&result) != without_meta_and_status(old);
        let meta = metadata_mut(&mut result);
        meta.insert(
            "resourceVersion".into(),
            old.pointer("/metadata/resourceVersion")
                .cloned()
                .unwrap_or(Value::Null),
        );
        if spec_changed {
            let generation = old
                .pointer("/metadata/generation")
                .and_then(Value::as_i64)
                .unwrap_or(0);
            meta.insert("generation".into(), Value::from(generation + 1));
        }
        let status = StatusCode::OK;
        if result == **old {
            let shown = if sub == Some("scale") {
                scale_of(old)
            } else {
                (**old).clone()
            };
            return Ok((status, shown));
        }
        if query.dry_run() {
            return Ok((status, result));
        }
        let finalized = controllers::released(&self.shared.catalog, index, &result);
        let key = (namespace.to_owned(), name.to_owned());
        let mut state = self.shared.lock();
        let current = state.objects[index].get(&key).cloned();
        if current.as_ref().is_none_or(|c| !Arc::ptr_eq(c, old)) {
            return Err(stale(def, name));
        }
        let rv = state.next_rv();
        metadata_mut(&mut result).insert("resourceVersion".into(), Value::from(rv.to_string()));
        let object = Arc::new(result);
        let work = if finalized {
            state.remove(index, &key, object.clone());
            Work::Removed(index, object.clone())
        } else {
            state.put(index, key.clone(), object.clone(), Some(old.clone()));
            Work::Written(index, key)
        };
        self.settle(&mut state, vec![work]);
        self.notify(state);
        let shown = if sub == Some("scale") {
            scale_of(&object)
        } else {
            (*object).clone()
        };
        Ok((status, shown))
    }

    fn delete(
        &self,
        index: usize,
        namespace: &str,
        name: &str,
        body: &[u8],
        query: &Query,
    ) -> Result<(StatusCode, Value), Failure> {
        let options = if body.iter().all(u8::is_ascii_whitespace) {
            Value::Null
        } else {
            parse_body(body)?
        };
        self.delete_one(index, namespace, name, &options, query)
    }

    /// Deletes one object: with finalizers it only gets its `deletionTimestamp` (and the
    /// answer is the object); without, it is removed (and the answer is a `Status`).
    fn delete_one(
        &self,
        index: usize,
        namespace: &str,
        name: &str,
        options: &Value,
        query: &Query,
    ) -> Result<(StatusCode, Value), Failure> {
        let def = self.def(index);
        let key = (namespace.to_owned(), name.to_owned());
        let mut state = self.shared.lock();
        let old = state.objects[index]
            .get(&key)
            .cloned()
            .ok_or_else(|| Failure::not_found(&def.group, &def.plural, name))?;
        for (field, what) in [("uid", "UID"), ("resourceVersion", "ResourceVersion")] {
            if let Some(expected) = options
                .pointer(&format!("/preconditions/{field}"))
                .and_then(Value::as_str)
            {
                let actual = old
                    .pointer(&format!("/metadata/{field}"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if expected != actual {
                    return Err(Failure::conflict(
                        &def.group,
                        &def.plural,
                        name,
                        &format!(
                            "Precondition failed: {what} in precondition: {expected}, {what} in object meta: {actual}"
                        ),
                    ));
                }
            }
        }
        let dry_run = query.dry_run()
            || options
                .get("dryRun")
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty());
        let catalog = &self.shared.catalog;
        namespaces::admit_delete(catalog, index, name)?;
        let policy = gc::Policy::of(options, query, def)?;
        let uid = old
            .pointer("/metadata/uid")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let success = || status::success(&def.group, &def.plural, name, uid.as_deref());
        if dry_run {
            let held = !controllers::finalizers(&old).is_empty()
                || policy != gc::Policy::Background
                || (namespaces::is_namespaces(catalog, index)
                    && !namespaces::spec_finalizers(&old).is_empty());
            return Ok((
                StatusCode::OK,
                if held { (*old).clone() } else { success() },
            ));
        }
        let mut queue = std::collections::VecDeque::new();
        let outcome = gc::delete(&mut state, catalog, index, &key, policy, &mut queue);
        self.settle(&mut state, queue.into());
        self.notify(state);
        match outcome {
            Some(gc::Outcome::Marked(object)) => Ok((StatusCode::OK, (*object).clone())),
            Some(gc::Outcome::Removed) | None => Ok((StatusCode::OK, success())),
        }
    }

    fn delete_collection(
        &self,
        index: usize,
        namespace: Option<&str>,
        body: &[u8],
        query: &Query,
    ) -> Result<(StatusCode, Value), Failure> {
        let def = self.def(index);
        let options = if body.iter().all(u8::is_ascii_whitespace) {
            Value::Null
        } else {
            parse_body(body)?
        };
        let filter = Filter::new(namespace, query)?;
        let keys: Vec<Key> = self.shared.lock().objects[index]
            .iter()
            .filter(|(_, object)| filter.matches(object))
            .map(|(key, _)| key.clone())
            .collect();
        let mut items = Vec::new();
        for (namespace, name) in keys {
            match self.delete_one(index, &namespace, &name, &options, query) {
                Ok((_, value)) if value.get("kind").and_then(Value::as_str) == Some("Status") => {}
                Ok((_, value)) => items.push(value),
                Err(failure) if failure.code == 404 => {}
                Err(failure) => return Err(failure),
            }
        }
        let rv = self.shared.lock().rv;
        let list = json!({
            "kind": def.list_kind(),
            "apiVersion": def.api_version(),
            "metadata": {"resourceVersion": rv.to_string()},
            "items": items,
        });
        Ok((StatusCode::OK, list))
    }

    /// Checks a body's `apiVersion` and `kind` (filling them in when absent) and runs the
    /// kind's validator.
    fn check(&self, index: usize, mut object: Value) -> Result<Value, Failure> {
        let def = self.def(index);
        let name = object
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let Some(map) = object.as_object_mut() else {
            return Err(Failure::invalid(
                &def.kind,
                &name,
                "the body must be a JSON object",
            ));
        };
        let api_version = def.api_version();
        for (field, expected) in [
            ("apiVersion", api_version.as_str()),
            ("kind", def.kind.as_str()),
        ] {
            match map.get(field) {
                None | Some(Value::Null) => {
                    map.insert(field.into(), Value::from(expected));
                }
                Some(Value::String(actual)) if actual == expected => {}
                Some(actual) => {
                    return Err(Failure::invalid(
                        &def.kind,
                        &name,
                        format!(
                            "{field}: Invalid value: {actual}: must be {expected:?} for {}",
                            def.plural
                        ),
                    ));
                }
            }
        }
        let Some(map) = object.as_object_mut() else {
            return Err(Failure::internal("the body stopped being an object"));
        };
        if !map.get("metadata").is_none_or(Value::is_object) {
            return Err(Failure::invalid(
                &def.kind,
                &name,
                "metadata: must be an object",
            ));
        }
        match self.shared.catalog.validator_for(def) {
            Some(validator) => {
                validator(object).map_err(|message| Failure::invalid(&def.kind, &name, message))
            }
            None => Ok(object),
        }
    }

    /// A body (or patched object) as the API server decodes it: its kind checked
    /// ([`Server::check`]), then decoded as its type (unknown fields dropped; a custom
    /// resource pruned and defaulted, `validation::decode`); the strict decoding `errors`
    /// found before (duplicate keys) and the unknown fields are refused, warned about or
    /// ignored as `directive` says, worded for their `source`.
    fn decoded(
        &self,
        index: usize,
        object: Value,
        mut errors: Vec<String>,
        directive: Directive,
        source: impl FnOnce() -> Source,
        warnings: &mut Vec<String>,
    ) -> Result<Value, Failure> {
        let def = self.def(index);
        let mut object = self.check(index, object)?;
        errors.extend(validation::decode(&self.shared.catalog, def, &mut object));
        if !errors.is_empty() {
            validation::strict(directive, def, errors, source(), warnings)?;
        }
        Ok(object)
    }

    /// The object an apply made, decoded: unknown fields cannot reach it (the apply refuses
    /// them), and its defaults are set after the apply has recorded what the applier owns,
    /// so nobody owns them, as on a real server.
    fn applied(&self, index: usize, object: Value) -> Result<Value, Failure> {
        let mut object = self.check(index, object)?;
        validation::decode(&self.shared.catalog, self.def(index), &mut object);
        Ok(object)
    }

    /// Puts the namespace of the request into the object's metadata; a different one in the
    /// body is an error, as on a real server.
    fn place(
        &self,
        def: &ResourceDef,
        meta: &mut Map<String, Value>,
        namespace: &str,
    ) -> Result<(), Failure> {
        if def.namespaced {
            match meta.get("namespace").and_then(Value::as_str) {
                Some(ns) if !ns.is_empty() && ns != namespace => {
                    return Err(Failure::bad_request(format!(
                        "the namespace of the provided object ({ns}) does not match the namespace sent on the request ({namespace})"
                    )));
                }
                _ => {
                    meta.insert("namespace".into(), Value::from(namespace));
                }
            }
        } else {
            meta.remove("namespace");
        }
        Ok(())
    }

    /// Runs the controllers (garbage collector, namespace lifecycle) on what a write did.
    fn settle(&self, state: &mut State, work: Vec<Work>) {
        controllers::settle(state, &self.shared.catalog, work);
    }

    fn notify(&self, state: MutexGuard<'_, State>) {
        let rv = state.rv;
        drop(state);
        self.shared.changed.send_replace(rv);
    }

    fn uid(&self, rv: u64) -> String {
        let mut hasher = self.shared.uid_seed.build_hasher();
        hasher.write_u64(rv);
        let a = hasher.finish();
        hasher.write_u64(a);
        let b = hasher.finish();
        format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            b >> 52,
            b & 0xffff_ffff_ffff
        )
    }

    fn suffix(&self) -> String {
        const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        let mut hasher = self.shared.uid_seed.build_hasher();
        hasher.write_u64(self.shared.lock().rv);
        hasher.write_u64(jiff::Timestamp::now().as_nanosecond().unsigned_abs() as u64);
        let mut n = hasher.finish();
        (0..5)
            .map(|_| {
                let c = ALPHABET[(n % ALPHABET.len() as u64) as usize];
                n /= ALPHABET.len() as u64;
                char::from(c)
            })
            .collect()
    }
}

impl Shared {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A list's or watch's namespace and selectors.
#[derive(Clone, Debug)]
pub(crate) struct Filter {
    namespace: Option<String>,
    labels: LabelSelector,
    fields: FieldSelector,
}

impl Filter {
    fn new(namespace: Option<&str>, query: &Query) -> Result<Filter, Failure> {
        Ok(Filter {
            namespace: namespace.map(str::to_owned),
            labels: LabelSelector::parse(query.get("labelSelector").unwrap_or(""))
                .map_err(Failure::bad_request)?,
            fields: FieldSelector::parse(query.get("fieldSelector").unwrap_or(""))
                .map_err(Failure::bad_request)?,
        })
    }

    pub(crate) fn matches(&self, object: &Value) -> bool {
        let namespace_ok = self.namespace.as_deref().is_none_or(|ns| {
            object
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
                .unwrap_or("")
                == ns
        });
        namespace_ok
            && self.labels.matches(object.pointer("/metadata/labels"))
            && self.fields.matches(object)
    }
}

/// Decoded query parameters.
#[derive(Clone, Debug, Default)]
pub(crate) struct Query(Vec<(String, String)>);

impl Query {
    pub(crate) fn parse(query: &str) -> Query {
        let decode = |text: &str| {
            let text = text.replace('+', " ");
            percent_encoding::percent_decode_str(&text)
                .decode_utf8_lossy()
                .into_owned()
        };
        Query(
            query
                .split('&')
                .filter(|pair| !pair.is_empty())
                .map(|pair| {
                    let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                    (decode(name), decode(value))
                })
                .collect(),
        )
    }

    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn flag(&self, name: &str) -> bool {
        matches!(self.get(name), Some("true" | "1"))
    }

    fn dry_run(&self) -> bool {
        self.get("dryRun").is_some_and(|v| !v.is_empty())
    }
}

fn decode(segment: &str) -> Result<String, Failure> {
    percent_encoding::percent_decode_str(segment)
        .decode_utf8()
        .map(std::borrow::Cow::into_owned)
        .map_err(|_| Failure::bad_request(format!("path segment {segment:?} is not UTF-8")))
}

/// The strict decoding errors of a body and what to do with them.
struct Decoding {
    errors: Vec<String>,
    directive: Directive,
}

/// A `Warning` header's value: code 299, no agent, the text quoted (`"` and `\` escaped),
/// as apimachinery's `NewWarningHeader` writes it.
fn warning_header(text: &str) -> String {
    let mut out = String::from("299 - \"");
    for c in text.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn parse_body(body: &[u8]) -> Result<Value, Failure> {
    serde_json::from_slice(body).map_err(|e| {
        Failure::bad_request(format!("the body of the request is not valid JSON: {e}"))
    })
}

/// The name of the object an apply made must be the one on the URL.
fn same_name(object: &Value, name: &str) -> Result<(), Failure> {
    let found = object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    if found == name {
        Ok(())
    } else {
        Err(Failure::bad_request(format!(
            "the name of the object ({found}) does not match the name on the URL ({name})"
        )))
    }
}

fn stale(def: &ResourceDef, name: &str) -> Failure {
    Failure::conflict(
        &def.group,
        &def.plural,
        name,
        "the object has been modified; please apply your changes to the latest version and try again",
    )
}

pub(crate) fn metadata_mut(object: &mut Value) -> &mut Map<String, Value> {
    if !object.get("metadata").is_some_and(Value::is_object) {
        object["metadata"] = Value::Object(Map::new());
    }
    match object.get_mut("metadata") {
        Some(Value::Object(map)) => map,
        _ => unreachable!("metadata was just made an object"),
    }
}

fn set_or_remove(object: &mut Value, key: &str, value: Option<Value>) {
    if let Some(map) = object.as_object_mut() {
        match value {
            Some(value) => map.insert(key.into(), value),
            None => map.remove(key),
        };
    }
}

fn without_meta_and_status(object: &Value) -> Value {
    let mut object = object.clone();
    if let Some(map) = object.as_object_mut() {
        map.remove("metadata");
        map.remove("status");
    }
    object
}

/// The `autoscaling/v1` `Scale` of an object with `spec.replicas`.
fn scale_of(object: &Value) -> Value {
    let meta = object.get("metadata").cloned().unwrap_or(Value::Null);
    let mut scale_meta = Map::new();
    for key in [
        "name",
        "namespace",
        "uid",
        "resourceVersion",
        "creationTimestamp",
    ] {
        if let Some(value) = meta.get(key) {
            scale_meta.insert(key.into(), value.clone());
        }
    }
    json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": scale_meta,
        "spec": {"replicas": object.pointer("/spec/replicas").cloned().unwrap_or(Value::from(0))},
        "status": {"replicas": object.pointer("/status/replicas").cloned().unwrap_or(Value::from(0))},
    })
}

fn encode_continue(rv: u64, key: &Key) -> String {
    let text = json!({"rv": rv, "namespace": key.0, "name": key.1}).to_string();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}

fn decode_continue(token: &str) -> Option<(u64, Key)> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token)
        .ok()?;
    let value: Value = serde_json::from_slice(&bytes).ok()?;
    Some((
        value.get("rv")?.as_u64()?,
        (
            value.get("namespace")?.as_str()?.to_owned(),
            value.get("name")?.as_str()?.to_owned(),
        ),
    ))
}

/// Now, as `meta/v1.Time` writes it.
pub(crate) fn now() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

pub(crate) fn json_response(code: StatusCode, value: &Value) -> Response<Body> {
    let mut response = Response::new(Body::full(value.to_string()));
    *response.status_mut() = code;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn text_response(text: &'static str) -> Response<Body> {
    let mut response = Response::new(Body::full(text));
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    response
}

/// A failure as the `Status` response a real server sends.
pub(crate) fn failure_response(failure: &Failure) -> Response<Body> {
    let code = StatusCode::from_u16(failure.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    json_response(code, &failure.to_status())
}
