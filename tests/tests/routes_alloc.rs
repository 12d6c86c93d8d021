//! Resolving a path allocates nothing, a miss or a hit: measured with an instrumented global
//! allocator, for the generated `resolve` and for the runtime's `RouteTable::resolve` (after
//! its first call, which builds its trie). This binary has a single test, so no other test
//! allocates meanwhile.

use std::alloc::System;

use kubeforge_api::routes::{ROUTES, Route, resolve};
use kubeforge_runtime::Resolution;
use kubeforge_runtime::http::Method;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

#[test]
fn resolving_allocates_nothing() {
    let misses = [
        "/api/v1/pods/",
        "/api/v1/namespaces//pods",
        "/API/v1/pods",
        "/api/v1/pods?watch=true",
        "/api%2Fv1/pods",
        "/api/v1/namespaces/default/pods/web/exec",
        "/api/v1/namespaces/../pods",
        "/nothing/here",
        "",
    ];
    let long = "/a".repeat(10_000);
    let unknown = Method::from_bytes(b"WATCH").unwrap();
    // The counter is global, so another thread of the test harness (output capture, the
    // timer) can allocate during a measurement once in a while. A real allocation in
    // `resolve` would show in every attempt; one clean attempt of 100 rounds proves there
    // is none.
    let mut attempts = Vec::new();
    for _ in 0..5 {
        let region = Region::new(GLOBAL);
        for _ in 0..100 {
            for path in misses.iter().copied().chain([long.as_str()]) {
                assert!(resolve(&Method::GET, path).is_not_found());
                assert!(
                    ROUTES
                        .resolve(&Method::GET, path, Route::ALL)
                        .is_not_found()
                );
            }
            assert!(matches!(
                resolve(&unknown, "/api/v1/pods"),
                Resolution::MethodNotAllowed { .. }
            ));
            assert!(matches!(
                resolve(&Method::POST, "/api/v1/namespaces/default/pods/web"),
                Resolution::MethodNotAllowed { .. }
            ));
            // Hits allocate nothing either.
            let (_, params) = resolve(&Method::GET, "/api/v1/namespaces/default/pods/web/log")
                .found()
                .unwrap();
            assert_eq!(params.get("name"), Some("web"));
            let found = ROUTES.resolve(&Method::GET, "/api/v1/namespaces/a/pods/b/log", Route::ALL);
            assert_eq!(found.found().unwrap().1.get("name"), Some("b"));
        }
        let stats = region.change();
        attempts.push((stats.allocations, stats.reallocations));
        if attempts.last() == Some(&(0, 0)) {
            break;
        }
    }
    assert_eq!(
        attempts.last(),
        Some(&(0, 0)),
        "resolving allocated in every attempt: {attempts:?}"
    );
    // The instrument works.
    let region = Region::new(GLOBAL);
    drop(std::hint::black_box(vec![1u8; 16]));
    assert!(region.change().allocations > 0);
}
