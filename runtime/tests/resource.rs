//! Tests for the resource traits and the `apiVersion` / `kind` markers,
//! used exactly as generated code uses them.

use std::collections::HashSet;

use kubeforge_runtime::{ApiVersion, Kind, ListResource, Resource, Scope, TypeMeta};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Lease {
    #[serde(
        rename = "apiVersion",
        default = "::kubeforge_runtime::ApiVersion::absent",
        skip_serializing_if = "::kubeforge_runtime::ApiVersion::is_absent"
    )]
    pub api_version: ::kubeforge_runtime::ApiVersion<Lease>,
    #[serde(
        default = "::kubeforge_runtime::Kind::absent",
        skip_serializing_if = "::kubeforge_runtime::Kind::is_absent"
    )]
    pub kind: ::kubeforge_runtime::Kind<Lease>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
}

impl TypeMeta for Lease {
    const API_VERSION: &'static str = "coordination.k8s.io/v1";
    const KIND: &'static str = "Lease";
}

impl Resource for Lease {
    const PLURAL: &'static str = "leases";
    const SCOPE: Scope = Scope::Namespaced;
    const SUBRESOURCES: &'static [&'static str] = &[];
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct LeaseList {
    #[serde(
        rename = "apiVersion",
        default = "::kubeforge_runtime::ApiVersion::absent",
        skip_serializing_if = "::kubeforge_runtime::ApiVersion::is_absent"
    )]
    pub api_version: ::kubeforge_runtime::ApiVersion<LeaseList>,
    #[serde(
        default = "::kubeforge_runtime::Kind::absent",
        skip_serializing_if = "::kubeforge_runtime::Kind::is_absent"
    )]
    pub kind: ::kubeforge_runtime::Kind<LeaseList>,
    pub items: Vec<Lease>,
}

impl TypeMeta for LeaseList {
    const API_VERSION: &'static str = "coordination.k8s.io/v1";
    const KIND: &'static str = "LeaseList";
}

impl ListResource for LeaseList {
    type Item = Lease;
}

/// A type that implements nothing: the markers' std impls must not need it to.
struct Opaque;

fn from_json<T: for<'de> Deserialize<'de>>(s: &str) -> Result<T, String> {
    serde_json::from_str(s).map_err(|e| e.to_string())
}

#[test]
fn default_construction_fills_api_version_and_kind() {
    let lease = Lease::default();
    assert!(lease.api_version.is_present());
    assert!(lease.kind.is_present());
    assert_eq!(
        serde_json::to_string(&lease).unwrap(),
        r#"{"apiVersion":"coordination.k8s.io/v1","kind":"Lease"}"#
    );
    assert_eq!(lease.api_version.as_str(), "coordination.k8s.io/v1");
    assert_eq!(lease.kind.as_str(), "Lease");
}

#[test]
fn present_fields_round_trip() {
    let json = r#"{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","holder":"a"}"#;
    let lease: Lease = from_json(json).unwrap();
    assert!(lease.api_version.is_present());
    assert!(lease.kind.is_present());
    assert_eq!(lease.holder.as_deref(), Some("a"));
    assert_eq!(serde_json::to_string(&lease).unwrap(), json);
}

#[test]
fn absent_fields_stay_absent() {
    let lease: Lease = from_json(r#"{"holder":"a"}"#).unwrap();
    assert!(lease.api_version.is_absent());
    assert!(lease.kind.is_absent());
    assert_eq!(serde_json::to_string(&lease).unwrap(), r#"{"holder":"a"}"#);

    // Only one of them present.
    let lease: Lease = from_json(r#"{"kind":"Lease"}"#).unwrap();
    assert!(lease.api_version.is_absent());
    assert!(lease.kind.is_present());
    assert_eq!(
        serde_json::to_string(&lease).unwrap(),
        r#"{"kind":"Lease"}"#
    );
}

#[test]
fn list_items_without_type_meta_round_trip() {
    let json = r#"{"apiVersion":"coordination.k8s.io/v1","kind":"LeaseList","items":[{"holder":"a"},{"apiVersion":"coordination.k8s.io/v1","kind":"Lease"}]}"#;
    let list: LeaseList = from_json(json).unwrap();
    assert!(list.items[0].kind.is_absent());
    assert!(list.items[1].kind.is_present());
    assert_eq!(serde_json::to_string(&list).unwrap(), json);
}

#[test]
fn mismatch_errors_name_both_values() {
    let err = from_json::<Lease>(r#"{"apiVersion":"v2"}"#).unwrap_err();
    assert!(
        err.starts_with(r#"invalid apiVersion "v2": expected "coordination.k8s.io/v1""#),
        "{err}"
    );
    let err = from_json::<Lease>(r#"{"kind":"Pod"}"#).unwrap_err();
    assert!(
        err.starts_with(r#"invalid kind "Pod": expected "Lease""#),
        "{err}"
    );
    // Exact match only: no case folding, no trimming.
    for bad in [
        r#"{"kind":"lease"}"#,
        r#"{"kind":"Lease "}"#,
        r#"{"kind":""}"#,
        r#"{"apiVersion":"coordination.k8s.io/v1beta1"}"#,
        r#"{"kind":"LeaseList"}"#,
    ] {
        assert!(from_json::<Lease>(bad).is_err(), "{bad}");
    }
}

#[test]
fn wrong_json_types_are_errors() {
    for bad in [
        r#"{"apiVersion":1}"#,
        r#"{"apiVersion":["coordination.k8s.io/v1"]}"#,
        r#"{"kind":true}"#,
        r#"{"kind":{}}"#,
    ] {
        let err = from_json::<Lease>(bad).unwrap_err();
        assert!(err.contains("expected the string"), "{bad}: {err}");
    }
}

/// `null` reads as absent, as on every optional field, and stays absent when written.
#[test]
fn null_markers_read_as_absent() {
    let lease = from_json::<Lease>(r#"{"apiVersion":null,"kind":null}"#).expect("reads");
    assert_eq!(lease.api_version, ApiVersion::absent());
    assert_eq!(lease.kind, Kind::absent());
    assert_eq!(serde_json::to_string(&lease).expect("writes"), "{}");
}

#[test]
fn marker_std_impls_need_no_bounds() {
    let a: ApiVersion<Opaque> = ApiVersion::default();
    let b = a; // Copy
    #[allow(clippy::clone_on_copy)]
    let c = b.clone();
    assert_eq!(a, c);
    assert_ne!(a, ApiVersion::absent());
    assert!(ApiVersion::<Opaque>::absent() < ApiVersion::<Opaque>::present());
    assert_eq!(format!("{a:?}"), "ApiVersion(present)");
    assert_eq!(format!("{:?}", Kind::<Opaque>::absent()), "Kind(absent)");
    let set: HashSet<Kind<Opaque>> = [Kind::present(), Kind::absent(), Kind::default()].into();
    assert_eq!(set.len(), 2);

    fn send_sync<T: Send + Sync + Unpin + 'static>() {}
    send_sync::<ApiVersion<std::rc::Rc<u8>>>();
    send_sync::<Kind<std::cell::Cell<u8>>>();
}

#[test]
fn resource_traits_expose_constants() {
    fn describe<R: Resource>() -> (&'static str, &'static str, Scope) {
        (R::API_VERSION, R::PLURAL, R::SCOPE)
    }
    assert_eq!(
        describe::<<LeaseList as ListResource>::Item>(),
        ("coordination.k8s.io/v1", "leases", Scope::Namespaced)
    );
    assert_eq!(Lease::GROUP, "coordination.k8s.io");
    assert_eq!(Lease::VERSION, "v1");
    assert_eq!(LeaseList::GROUP, "coordination.k8s.io");
    assert!(Lease::SUBRESOURCES.is_empty());
    assert!(Scope::Namespaced < Scope::Cluster);
}

/// A core-group kind, as generated: only `API_VERSION` and `KIND` written.
struct ConfigMap;

impl TypeMeta for ConfigMap {
    const API_VERSION: &'static str = "v1";
    const KIND: &'static str = "ConfigMap";
}

/// A kind that writes every constant itself, as code written before `GROUP` and
/// `VERSION` were provided does.
struct Legacy;

impl TypeMeta for Legacy {
    const API_VERSION: &'static str = "example.com/v1";
    const GROUP: &'static str = "legacy.example.com";
    const VERSION: &'static str = "v2";
    const KIND: &'static str = "Legacy";
}

#[test]
fn group_and_version_come_from_the_api_version() {
    assert_eq!((ConfigMap::GROUP, ConfigMap::VERSION), ("", "v1"));
    assert_eq!(
        (Lease::GROUP, Lease::VERSION),
        ("coordination.k8s.io", "v1")
    );
    assert_eq!(
        (Legacy::GROUP, Legacy::VERSION),
        ("legacy.example.com", "v2")
    );
    const APPS: (&str, &str) = kubeforge_runtime::group_version("apps/v1");
    assert_eq!(APPS, ("apps", "v1"));
    assert_eq!(kubeforge_runtime::group_version("a/b/c"), ("a", "b/c"));
    assert_eq!(kubeforge_runtime::group_version("é/v1"), ("é", "v1"));
}
