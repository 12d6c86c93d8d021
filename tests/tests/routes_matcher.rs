//! The generated matcher (`kubeforge_api::routes::resolve`): every route of the table
//! resolves, with its parameters, for its method, and gives `MethodNotAllowed` with the
//! path's methods for every other; requests built by the generated builders, with hostile
//! names, resolve back to their route and names; and adversarial paths are rejected. That
//! resolving allocates nothing is checked in `routes_alloc.rs`, which has its own allocator.

use std::collections::{BTreeMap, BTreeSet};

use kubeforge_api::api::coordination::v1::Lease;
use kubeforge_api::api::core::v1::Pod;
use kubeforge_api::routes::{ROUTES, Route, resolve};
use kubeforge_runtime::http::{Method, Uri};
use kubeforge_runtime::{MethodSet, Resolution};

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
