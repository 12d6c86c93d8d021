//! Traits that describe generated Kubernetes kinds.

/// A type with one fixed apiVersion and kind (Kubernetes' TypeMeta).
///
/// On the wire these are the object's `"apiVersion"` and `"kind"` strings.
pub trait TypeMeta {
    /// The full `apiVersion`: `"v1"` for the core group, `"group/version"`
    /// otherwise (e.g. `"coordination.k8s.io/v1"`).
    const API_VERSION: &'static str;
    /// The API group: `""` for the core group, e.g. `"coordination.k8s.io"`.
    ///
    /// Provided: what [`API_VERSION`](Self::API_VERSION) has before its `/`.
    const GROUP: &'static str = group_version(Self::API_VERSION).0;
    /// The version within the group, e.g. `"v1"`.
    ///
    /// Provided: what [`API_VERSION`](Self::API_VERSION) has after its `/`.
    const VERSION: &'static str = group_version(Self::API_VERSION).1;
    /// The kind, e.g. `"Lease"`.
    const KIND: &'static str;
}

/// A kind served as a REST resource.
pub trait Resource: TypeMeta {
    /// The lower-case plural used in URL paths, e.g. `"leases"`.
    const PLURAL: &'static str;
    /// Whether the resource lives in a namespace or at cluster level.
    const SCOPE: Scope;
    /// The subresources served under the resource, e.g. `&["status", "scale"]`.
    const SUBRESOURCES: &'static [&'static str];
}

/// A `…List` kind: a page of items of one resource.
pub trait ListResource: TypeMeta {
    /// The resource listed in `items`.
    type Item: Resource;
}

/// Where a resource lives: inside a namespace or at cluster level.
///
/// Not serialized; it only steers URL construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Served under `/namespaces/{namespace}/…`.
    Namespaced,
    /// Served without a namespace.
    Cluster,
}

/// The group and version an `apiVersion` names: `("", "v1")` for the core group's `"v1"`,
/// `("apps", "v1")` for `"apps/v1"`. The split is at the first `/`, as Kubernetes'
/// `schema.ParseGroupVersion` splits (which refuses a second `/`; here it stays in the
/// version, which then names no version a server serves).
///
/// ```
/// use kubeforge_runtime::group_version;
///
/// assert_eq!(group_version("v1"), ("", "v1"));
/// assert_eq!(group_version("coordination.k8s.io/v1"), ("coordination.k8s.io", "v1"));
/// assert_eq!(group_version(""), ("", ""));
/// ```
pub const fn group_version(api_version: &str) -> (&str, &str) {
    // `split_once` by hand: it is not a `const fn`, and `TypeMeta`'s provided
    // `GROUP` and `VERSION` are computed here at compile time.
    let bytes = api_version.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'/' {
            // `/` is ASCII, so both sides are on character boundaries.
            let (group, slash_version) = api_version.split_at(at);
            return (group, slash_version.split_at(1).1);
        }
        at += 1;
    }
    ("", api_version)
}
