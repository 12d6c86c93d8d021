//! The generated matcher (`kubeforge_api::routes::resolve`): every route of the table
//! resolves, with its parameters, for its method, and gives `MethodNotAllowed` with the
//! path's methods for every other; requests built by the generated builders, with hostile
//! names, resolve back to their route and names; and adversarial paths are rejected. That
//! resolving allocates nothing is checked in `routes_alloc.rs`, which has its own allocator.
//!
//! The rules themselves (`Reference`, written the slow way from `resolve`'s documentation)
//! are checked on paths around every template: of this crate's table, answered by its
//! `resolve`, and of Kubernetes 1.36's `swagger.json`, answered by the runtime's matcher
//! over a table of its operations (`RouteTable::resolve`). Both matchers pass: the decision
//! tree generated as code, and the runtime's trie when the generated `resolve` called it
//! (commit 3db633e, reverted for its speed).

use std::collections::{BTreeMap, BTreeSet};

use kubeforge_api::api::coordination::v1::Lease;
use kubeforge_api::api::core::v1::Pod;
use kubeforge_api::routes::{ROUTES, Route, resolve};
use kubeforge_runtime::http::{Method, Uri};
use kubeforge_runtime::route::{RouteData, TableWriter};
use kubeforge_runtime::{MethodSet, PathParams, Resolution, RouteInfo, RouteTable};

/// A concrete path for a template, with `value(name)` for each parameter.
fn fill(template: &str, value: impl Fn(&str) -> String) -> String {
    template
        .split('/')
        .map(
            |segment| match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(name) => value(name),
                None => segment.to_owned(),
            },
        )
        .collect::<Vec<_>>()
        .join("/")
}

fn method_set(method: &Method) -> MethodSet {
    match *method {
        Method::DELETE => MethodSet::DELETE,
        Method::GET => MethodSet::GET,
        Method::PATCH => MethodSet::PATCH,
        Method::POST => MethodSet::POST,
        Method::PUT => MethodSet::PUT,
        _ => panic!("no route uses {method}"),
    }
}

#[test]
fn every_route_resolves_with_its_parameters() {
    let mut methods_at: BTreeMap<&str, MethodSet> = BTreeMap::new();
    for route in &ROUTES {
        let set = methods_at.entry(route.path).or_default();
        *set = set.union(method_set(&route.method));
    }
    for (index, info) in ROUTES.iter().enumerate() {
        let path = fill(info.path, |name| format!("{name}-value"));
        let (route, params) = resolve(&info.method, &path)
            .found()
            .unwrap_or_else(|| panic!("{} {path} does not resolve", info.method));
        assert_eq!(route, Route::ALL[index], "{} {path}", info.method);
        assert_eq!(route.info(), info);
        let got: Vec<(&str, &str)> = params.iter().collect();
        let expected: Vec<(&str, String)> = info
            .path_params
            .iter()
            .map(|name| (*name, format!("{name}-value")))
            .collect();
        assert_eq!(
            got,
            expected
                .iter()
                .map(|(n, v)| (*n, v.as_str()))
                .collect::<Vec<_>>(),
            "{path}"
        );
        // Every other method: the path's methods, or not allowed.
        let allowed = methods_at[info.path];
        for method in [
            Method::GET,
            Method::PUT,
            Method::POST,
            Method::DELETE,
            Method::PATCH,
            Method::HEAD,
            Method::OPTIONS,
            Method::from_bytes(b"get").unwrap(),
            Method::from_bytes(b"WATCH").unwrap(),
        ] {
            match resolve(&method, &path) {
                Resolution::Found { route, .. } => {
                    assert!(allowed.contains(&method), "{method} {path}");
                    assert_eq!(route.info().method, method);
                    assert_eq!(route.info().path, info.path);
                }
                Resolution::MethodNotAllowed { allowed: got } => {
                    assert!(!allowed.contains(&method), "{method} {path}");
                    assert_eq!(got, allowed, "{method} {path}");
                }
                Resolution::NotFound => panic!("{method} {path}: the path exists"),
            }
        }
    }
}

#[test]
fn static_segments_beat_parameters_and_subresources_resolve() {
    let get = |path: &str| resolve(&Method::GET, path).found().map(|(r, _)| r);
    // `watch` is a static segment, not a namespace-less plural.
    assert_eq!(
        get("/api/v1/watch/pods"),
        Some(Route::WatchCoreV1PodListForAllNamespaces)
    );
    assert_eq!(
        get("/api/v1/watch/namespaces/default/pods/web"),
        Some(Route::WatchCoreV1NamespacedPod)
    );
    // A pod named like a subresource is still a pod; its subresources are distinct routes.
    assert_eq!(
        get("/api/v1/namespaces/default/pods/status"),
        Some(Route::ReadCoreV1NamespacedPod)
    );
    assert_eq!(
        get("/api/v1/namespaces/default/pods/status/status"),
        Some(Route::ReadCoreV1NamespacedPodStatus)
    );
    assert_eq!(
        get("/api/v1/namespaces/default/pods/web/log"),
        Some(Route::ReadCoreV1NamespacedPodLog)
    );
    assert_eq!(
        get("/api/v1/namespaces/default/pods/web/ephemeralcontainers"),
        Some(Route::ReadCoreV1NamespacedPodEphemeralcontainers)
    );
    assert_eq!(
        get("/apis/image.openshift.io/v1/namespaces/p/imagestreams/s/status"),
        Some(Route::ReadImageOpenshiftIoV1NamespacedImageStreamStatus)
    );
    // Unknown subresources are not found; a namespace may be called `watch`.
    assert!(resolve(&Method::GET, "/api/v1/namespaces/default/pods/web/exec").is_not_found());
    assert_eq!(
        get("/api/v1/namespaces/watch/pods"),
        Some(Route::ListCoreV1NamespacedPod)
    );
    // 405 answers list the path's methods.
    match resolve(&Method::POST, "/api/v1/namespaces/default/pods/web/log") {
        Resolution::MethodNotAllowed { allowed } => assert_eq!(allowed.to_string(), "GET"),
        other => panic!("{other:?}"),
    }
    match resolve(&Method::POST, "/api/v1/namespaces/default/pods/web") {
        Resolution::MethodNotAllowed { allowed } => {
            assert_eq!(allowed.to_string(), "DELETE, GET, PATCH, PUT");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn built_requests_resolve_back_to_their_route_and_names() {
    let names = [
        "web",
        "a/b",
        "a%2Fb",
        "with space",
        "q?x=1",
        "frag#x",
        "100%",
        "system:node:x",
        "ünïcode",
        "...",
        "x".repeat(253).as_str().to_owned().leak(),
    ];
    for name in names {
        let requests = [
            (
                Lease::read_namespaced_lease("kube-system", name, &Default::default()).unwrap(),
                Route::ReadCoordinationV1NamespacedLease,
            ),
            (
                Pod::read_namespaced_pod_log("default", name, &Default::default()).unwrap(),
                Route::ReadCoreV1NamespacedPodLog,
            ),
            (
                Pod::replace_namespaced_pod_status(
                    name,
                    name,
                    &Pod::default(),
                    &Default::default(),
                )
                .unwrap(),
                Route::ReplaceCoreV1NamespacedPodStatus,
            ),
        ];
        for (request, expected) in requests {
            let (route, params) = resolve(request.method(), request.uri().path())
                .found()
                .unwrap_or_else(|| panic!("{} does not resolve", request.uri()));
            assert_eq!(route, expected, "{name:?}");
            assert_eq!(
                params.decoded("name").unwrap().unwrap(),
                name,
                "{name:?} survives the round trip"
            );
        }
    }
}

#[test]
fn adversarial_paths_are_rejected() {
    fn get(path: &str) -> Resolution<'_, Route> {
        resolve(&Method::GET, path)
    }
    let rejected = [
        // trailing slash
        "/api/v1/pods/",
        "/api/v1/namespaces/default/pods/web/",
        "/apis/coordination.k8s.io/v1/leases/",
        // empty segments
        "/api/v1//pods",
        "/api/v1/namespaces//pods",
        "/api/v1/namespaces/default/pods//log",
        "//api/v1/pods",
        // encoded slashes in static segments
        "/api%2Fv1/pods",
        "/api/v1/namespaces%2Fdefault/pods",
        "/api/v1/namespaces/default/pods%2Fweb",
        // a query string or fragment passed as part of the path
        "/api/v1/pods?watch=true",
        "/api/v1/namespaces/default/pods/web?pretty=true",
        "/api/v1/namespaces/default/pods/web#frag",
        "/api/v1/namespaces/?/pods",
        // case differences
        "/API/v1/pods",
        "/api/V1/pods",
        "/api/v1/Pods",
        "/api/v1/namespaces/default/pods/web/Log",
        "/APIS/coordination.k8s.io/v1/leases",
        // dot segments
        "/api/v1/namespaces/./pods",
        "/api/v1/namespaces/../pods",
        "/api/v1/namespaces/default/pods/..",
        "/api/v1/./pods",
        // no leading slash, nothing, the root
        "api/v1/pods",
        "",
        "/",
        " /api/v1/pods",
        "/api/v1/pods ",
        // prefixes and extensions of real paths
        "/api",
        "/api/v1",
        "/api/v1/namespaces",
        "/api/v1/namespaces/default",
        "/api/v1/namespaces/default/pods/web/log/more",
        "/apis/coordination.k8s.io",
        "/apis/coordination.k8s.io/v2/leases",
    ];
    for path in rejected {
        assert!(
            get(path).is_not_found(),
            "{path:?} must not resolve: {:?}",
            get(path)
        );
    }
    // An encoded slash inside a parameter stays inside it.
    let (route, params) = get("/api/v1/namespaces/a%2Fb/pods").found().unwrap();
    assert_eq!(route, Route::ListCoreV1NamespacedPod);
    assert_eq!(params.get("namespace"), Some("a%2Fb"));
    assert_eq!(params.decoded("namespace").unwrap().unwrap(), "a/b");
    assert!(params.decoded("name").is_none());
    // Invalid UTF-8 after decoding is an error, not a panic.
    let (_, params) = get("/api/v1/namespaces/%FF/pods").found().unwrap();
    assert!(params.decoded("namespace").unwrap().is_err());
    // The path of a URI with a query string resolves.
    let uri: Uri = "https://k8s.example:6443/api/v1/namespaces/default/pods?watch=true&limit=5"
        .parse()
        .unwrap();
    assert_eq!(
        get(uri.path()).found().map(|(r, _)| r),
        Some(Route::ListCoreV1NamespacedPod)
    );

    // Very long paths: many segments, one huge segment, a huge parameter.
    let many = "/api/v1/namespaces/default/pods/web".to_owned() + &"/log".repeat(100_000);
    assert!(get(&many).is_not_found());
    let deep = "/a".repeat(200_000);
    assert!(get(&deep).is_not_found());
    let wide = format!("/api/v1/{}", "p".repeat(1 << 20));
    assert!(get(&wide).is_not_found());
    let slashes = "/".repeat(100_000);
    assert!(get(&slashes).is_not_found());
    let long_name = "n".repeat(1 << 20);
    let path = format!("/api/v1/namespaces/default/pods/{long_name}");
    let (route, params) = get(&path).found().unwrap();
    assert_eq!(route, Route::ReadCoreV1NamespacedPod);
    assert_eq!(params.get("name").map(str::len), Some(1 << 20));
}

#[test]
fn every_path_of_the_table_has_a_route_per_method_and_no_more() {
    let mut seen = BTreeSet::new();
    for route in Route::ALL {
        let info = route.info();
        assert!(
            seen.insert((info.method.to_string(), info.path)),
            "{} {} twice",
            info.method,
            info.path
        );
    }
    assert_eq!(seen.len(), ROUTES.len());
}

#[test]
fn a_static_segment_beside_a_parameter_backtracks() {
    // The golden `route_table`: `/widgets/special/stats` beside `/widgets/{name}`,
    // `/widgets/{name}/exec`, and `/` of the group-version (a static empty segment).
    use kubeforge_tests::golden::route_table::routes::{Route as R, resolve as golden};
    fn found<'p>(method: &Method, path: &'p str) -> Option<(R, Option<&'p str>)> {
        golden(method, path)
            .found()
            .map(|(r, p)| (r, p.get("name")))
    }
    assert_eq!(
        found(&Method::GET, "/apis/example.com/v1/widgets/special/stats"),
        Some((R::ReadExampleComV1WidgetStats, None))
    );
    // The static branch finds no path, so the parameter gets its turn.
    assert_eq!(
        found(&Method::GET, "/apis/example.com/v1/widgets/special"),
        Some((R::ReadExampleComV1Widget, Some("special")))
    );
    assert_eq!(
        found(&Method::POST, "/apis/example.com/v1/widgets/special/exec"),
        Some((R::ConnectExampleComV1WidgetExec, Some("special")))
    );
    assert_eq!(
        found(&Method::GET, "/apis/example.com/v1/widgets/other"),
        Some((R::ReadExampleComV1Widget, Some("other")))
    );
    // A static path that exists answers for itself, with its methods.
    assert_eq!(
        golden(&Method::POST, "/apis/example.com/v1/widgets/special/stats"),
        Resolution::MethodNotAllowed {
            allowed: MethodSet::GET
        }
    );
    assert!(golden(&Method::GET, "/apis/example.com/v1/widgets/special/other").is_not_found());
    assert!(golden(&Method::GET, "/apis/example.com/v1/widgets/").is_not_found());
    assert_eq!(
        found(&Method::GET, "/apis/example.com/v1/"),
        Some((R::GetExampleComV1apiResources, None))
    );
    assert_eq!(
        found(&Method::GET, "/apis/example.com/v1/widgets"),
        Some((R::ListExampleComV1Widget, None))
    );
    match golden(&Method::PUT, "/apis/example.com/v1/widgets/w") {
        Resolution::MethodNotAllowed { allowed } => assert_eq!(allowed.to_string(), "DELETE, GET"),
        other => panic!("{other:?}"),
    }
}

/// The rules of `resolve`'s documentation, the slow way, over a table: every template (and
/// a discovery path's form with its trailing slash toggled) whose segments match the path's,
/// a parameter matching one non-empty segment that is not `.` or `..` and has no `?` or
/// `#`; of those, the one static where the others have a parameter, the first such segment
/// deciding; of its routes, the method's (the last of the table's for a method twice), else
/// every method. The answer is a table index.
struct Reference<'t> {
    table: &'t [RouteInfo],
    /// By segment count: each template's segments and its route, in table order.
    by_len: BTreeMap<usize, Vec<(Vec<&'static str>, usize)>>,
}

impl<'t> Reference<'t> {
    fn new(table: &'t [RouteInfo]) -> Self {
        let mut by_len: BTreeMap<usize, Vec<_>> = BTreeMap::new();
        for (index, info) in table.iter().enumerate() {
            for template in templates(info) {
                by_len
                    .entry(template.len())
                    .or_default()
                    .push((template, index));
            }
        }
        Reference { table, by_len }
    }

    fn resolve<'p>(&self, method: &Method, path: &'p str) -> Resolution<'p, usize> {
        let table = self.table;
        let Some(rest) = path.strip_prefix('/') else {
            return Resolution::NotFound;
        };
        let segments: Vec<&str> = rest.split('/').collect();
        let param_value =
            |s: &str| !s.is_empty() && s != "." && s != ".." && !s.contains(['?', '#']);
        // (kinds: true for a parameter, route index, parameter values), in table order.
        let mut matches: Vec<(Vec<bool>, usize, Vec<&'p str>)> = Vec::new();
        for (template, index) in self.by_len.get(&segments.len()).into_iter().flatten() {
            let fits = template.iter().zip(&segments).all(|(t, s)| {
                if t.starts_with('{') {
                    param_value(s)
                } else {
                    t == s
                }
            });
            if fits {
                let kinds = template.iter().map(|t| t.starts_with('{')).collect();
                let values = template
                    .iter()
                    .zip(&segments)
                    .filter(|(t, _)| t.starts_with('{'))
                    .map(|(_, s)| *s)
                    .collect();
                matches.push((kinds, *index, values));
            }
        }
        let Some(best) = matches.iter().map(|(kinds, ..)| kinds).min().cloned() else {
            return Resolution::NotFound;
        };
        let at: Vec<_> = matches.iter().filter(|(k, ..)| *k == best).collect();
        let wanted = MethodSet::of(method);
        let found = at.iter().rev().find(|(_, index, _)| {
            !wanted.is_empty() && MethodSet::of(&table[*index].method) == wanted
        });
        match found {
            Some((_, index, values)) => Resolution::Found {
                route: *index,
                params: PathParams::of(table[*index].path_params, values),
            },
            None => Resolution::MethodNotAllowed {
                allowed: at.iter().fold(MethodSet::EMPTY, |set, (_, i, _)| {
                    set.union(MethodSet::of(&table[*i].method))
                }),
            },
        }
    }
}

/// The segments of the templates a route is served at: its own, and for a discovery path
/// (`GET` of `/api`, `/apis`, a group's, a group-version's) the same with its trailing slash
/// toggled.
fn templates(info: &RouteInfo) -> Vec<Vec<&'static str>> {
    let path = info.path;
    let own: Vec<&'static str> = path.strip_prefix('/').unwrap_or(path).split('/').collect();
    let trimmed = path.strip_suffix('/').unwrap_or(path);
    let words: Vec<&str> = trimmed.split('/').skip(1).collect();
    let plain = |s: &&str| !s.is_empty() && !s.contains(['{', '}']);
    let discovery = info.method == Method::GET
        && match words.as_slice() {
            ["api" | "apis"] => true,
            ["api" | "apis", x] => plain(x),
            ["apis", group, version] => plain(group) && plain(version),
            _ => false,
        };
    let mut toggled = own.clone();
    if toggled.len() > 1 && toggled.last() == Some(&"") {
        toggled.pop();
    } else if toggled.last() != Some(&"") {
        toggled.push("");
    }
    if discovery {
        vec![own, toggled]
    } else {
        vec![own]
    }
}

/// Paths around every template of `table`, and whether to try each with every method: each
/// template filled (every method); then cut short, made longer, with a trailing slash, in
/// another case, and each segment replaced by an empty, dot, encoded, query or fragment
/// word, or, where a parameter is, by each static word the templates beside it have there
/// (which must win).
fn hostile_paths(table: &[RouteInfo]) -> Vec<(String, bool)> {
    let templates: BTreeSet<&str> = table.iter().map(|info| info.path).collect();
    let split: Vec<Vec<&str>> = templates.iter().map(|t| t.split('/').collect()).collect();
    fn is_param(segment: &str) -> bool {
        segment.starts_with('{')
    }
    let mut paths = BTreeMap::new();
    for template in &split {
        let filled: Vec<String> = template
            .iter()
            .map(|s| {
                if is_param(s) {
                    format!("{}-v", &s[1..s.len() - 1])
                } else {
                    (*s).to_owned()
                }
            })
            .collect();
        let joined = filled.join("/");
        paths.insert(joined.clone(), true);
        for other in [
            format!("{joined}/"),
            format!("{joined}/x"),
            format!("{joined}/status"),
            format!("/{joined}"),
            joined.to_uppercase(),
            joined.strip_suffix('/').unwrap_or("").to_owned(),
        ] {
            paths.entry(other).or_insert(false);
        }
        for cut in 1..filled.len() {
            paths.entry(filled[..cut].join("/")).or_insert(false);
        }
        for at in 1..template.len() {
            let mut words: BTreeSet<String> = ["", ".", "..", "...", "x?y", "x#y", "%2F", "watch"]
                .map(str::to_owned)
                .into();
            words.insert(filled[at].to_uppercase());
            if is_param(template[at]) {
                // The static words of the templates that agree with this one before `at`.
                for other in &split {
                    let agrees = other.len() > at
                        && (1..at).all(|j| {
                            is_param(template[j]) || is_param(other[j]) || template[j] == other[j]
                        });
                    if agrees && !is_param(other[at]) {
                        words.insert(other[at].to_owned());
                    }
                }
            }
            for word in words {
                let mut changed = filled.clone();
                changed[at] = word;
                paths.entry(changed.join("/")).or_insert(false);
            }
        }
    }
    paths.into_iter().collect()
}

/// The methods a path is resolved with: every one a table can have and two it cannot, and a
/// few of them.
fn methods() -> (Vec<Method>, Vec<Method>) {
    let watch = Method::from_bytes(b"WATCH").unwrap();
    let all = vec![
        Method::GET,
        Method::PUT,
        Method::POST,
        Method::DELETE,
        Method::PATCH,
        Method::HEAD,
        Method::OPTIONS,
        Method::CONNECT,
        Method::TRACE,
        Method::from_bytes(b"get").unwrap(),
        watch.clone(),
    ];
    (all, vec![Method::GET, Method::POST, watch])
}

#[test]
fn resolve_answers_by_its_rules_on_hostile_paths() {
    let table: &[RouteInfo] = &ROUTES;
    let reference = Reference::new(table);
    let paths = hostile_paths(table);
    assert!(paths.len() > 10 * table.len(), "{}", paths.len());
    let (all, few) = methods();
    let mut found = 0;
    for (path, every) in &paths {
        for method in if *every { &all } else { &few } {
            let expected = match reference.resolve(method, path) {
                Resolution::Found { route, params } => {
                    found += 1;
                    Resolution::Found {
                        route: Route::ALL[route],
                        params,
                    }
                }
                Resolution::MethodNotAllowed { allowed } => {
                    Resolution::MethodNotAllowed { allowed }
                }
                Resolution::NotFound => Resolution::NotFound,
            };
            assert_eq!(resolve(method, path), expected, "{method} {path:?}");
        }
    }
    // Every route at its own template, and more.
    assert!(found > table.len(), "{found}");
}

/// The route table of a document's operations, as the generator writes it for the matcher:
/// method, path template, its parameters in order, and whether the path is served with its
/// trailing slash toggled (the rule of [`templates`]); the rest left empty.
fn table_of(document: &serde_json::Value) -> &'static RouteTable {
    let mut writer = TableWriter::new();
    let paths = document["paths"].as_object().expect("paths");
    for (path, item) in paths {
        for method in ["get", "put", "post", "delete", "options", "head", "patch"] {
            if item.get(method).is_none() {
                continue;
            }
            let method = method.to_uppercase();
            let params: Vec<&str> = path
                .split('/')
                .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
                .collect();
            let info = RouteInfo {
                operation_id: "",
                method: method.parse().unwrap(),
                path: path.clone().leak(),
                action: kubeforge_runtime::Action::Get,
                resource: None,
                path_params: &[],
                query: &[],
                body: None,
                responses: &[],
                deprecated: false,
                description: "",
            };
            let slash_optional = templates(&info).len() == 2;
            writer.route(&RouteData {
                operation_id: "",
                method: &method,
                path: path.as_str(),
                action: "get",
                resource: None,
                path_params: params,
                query: Vec::new(),
                body: None,
                responses: Vec::new(),
                deprecated: false,
                description: "",
                slash_optional,
            });
        }
    }
    Box::leak(Box::new(RouteTable::new(writer.finish().leak())))
}

#[test]
fn every_template_of_the_full_api_resolves_by_the_rules() {
    // Kubernetes 1.36's swagger.json: its 1,123 operations as a route table, resolved by the
    // runtime's matcher as a generated `resolve` does, against the rules, on paths around
    // each of its templates.
    let Some(corpus) = kubeforge_tests::corpus(
        "the runtime's matcher on every template of swagger.json",
        &["kubernetes/swagger.json"],
    ) else {
        return;
    };
    let text = std::fs::read_to_string(corpus.join("kubernetes/swagger.json")).unwrap();
    let table = table_of(&serde_json::from_str(&text).unwrap());
    assert_eq!(table.len(), 1123);
    let indexes: Vec<usize> = (0..table.len()).collect();
    let reference = Reference::new(table);
    let paths = hostile_paths(table);
    let (all, few) = methods();
    let mut found = 0;
    for (path, every) in &paths {
        for method in if *every { &all } else { &few } {
            let expected = reference.resolve(method, path);
            found += usize::from(matches!(expected, Resolution::Found { .. }));
            assert_eq!(
                table.resolve(method, path, &indexes),
                expected,
                "{method} {path:?}"
            );
        }
    }
    // Every route at its own template, and more.
    assert!(found > 1_123, "{found}");
}
