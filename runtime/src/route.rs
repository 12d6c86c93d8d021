//! Route tables and path matching.
//!
//! A generated crate has one table of [`RouteInfo`] entries, one per operation of the API
//! (method, path template, action, resource, parameters, body and responses), as a
//! [`RouteTable`] built from its data at first use, and a generated matcher that resolves a
//! `(method, path)` pair to a route with its path parameters, a decision tree over path
//! segments written out as code ([`strip_segments`], [`param_segment`] and [`leaf`] are its
//! steps). [`RouteTable::resolve`] gives the same answers from the table alone, with a trie
//! of its path templates built at the first call (`route/matcher.rs`). This module also holds
//! what they return: [`Resolution`], [`PathParams`] and [`MethodSet`].

use std::borrow::Cow;
use std::fmt;

use http::Method;

mod matcher;
mod table;
pub(crate) use table::unescape;
pub use table::{
    BodyData, QueryParamData, ResourceData, ResponseData, RouteData, RouteTable, TableWriter,
    escape,
};

/// What an operation does, in Kubernetes' vocabulary (`x-kubernetes-action`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// Read one object (`get`).
    Get,
    /// List a collection (`list`).
    List,
    /// Watch one object or a collection (`watch`, `watchlist`).
    Watch,
    /// Create an object (`post`).
    Create,
    /// Replace an object (`put`).
    Replace,
    /// Partially update an object (`patch`).
    Patch,
    /// Delete one object (`delete`).
    Delete,
    /// Delete a collection (`deletecollection`).
    DeleteCollection,
    /// Connect to a running object: exec, attach, port-forward, proxy (`connect`).
    Connect,
    /// Any other `x-kubernetes-action`, as written: legacy ones such as `proxy` (Kubernetes
    /// 1.9 and OpenShift 3), or one added after this crate was generated.
    Other(&'static str),
}

impl Action {
    /// The lower-case name used in route listings: `get`, `list`, `watch`, `create`,
    /// `replace`, `patch`, `delete`, `deletecollection`, `connect`, or another action as
    /// the document spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Get => "get",
            Action::List => "list",
            Action::Watch => "watch",
            Action::Create => "create",
            Action::Replace => "replace",
            Action::Patch => "patch",
            Action::Delete => "delete",
            Action::DeleteCollection => "deletecollection",
            Action::Connect => "connect",
            Action::Other(action) => action,
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The resource an operation acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ResourceInfo {
    /// The API group, `""` for the core group.
    pub group: &'static str,
    /// The version, e.g. `"v1"`.
    pub version: &'static str,
    /// The resource's kind, e.g. `"Pod"` (also for its subresources).
    pub kind: &'static str,
    /// The plural used in paths, e.g. `"pods"`.
    pub plural: &'static str,
    /// The subresource, e.g. `Some("log")`.
    pub subresource: Option<&'static str>,
    /// Whether the resource lives in a namespace.
    pub scope: crate::Scope,
}

/// One query parameter of an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QueryParamInfo {
    /// The name on the wire, e.g. `"labelSelector"`.
    pub name: &'static str,
    /// The JSON type: `"string"`, `"integer"`, `"boolean"` or `"array"`.
    pub ty: &'static str,
    /// What it does.
    pub description: &'static str,
    /// Whether the operation requires it.
    pub required: bool,
}

/// The request body of an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BodyInfo {
    /// The Rust type of the body, e.g. `"api::coordination::v1::Lease"`.
    pub ty: &'static str,
    /// The accepted content types, e.g. `["application/json-patch+json", …]`.
    pub content_types: &'static [&'static str],
    /// Whether a body is required.
    pub required: bool,
}

/// One declared response of an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ResponseInfo {
    /// The status code, e.g. `200`.
    pub status: u16,
    /// The description, e.g. `"OK"`.
    pub description: &'static str,
    /// The Rust type of the body, or `None` for an empty body.
    pub ty: Option<&'static str>,
}

/// One entry of a route table: everything the API's endpoint table says about an operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RouteInfo {
    /// The `operationId`, e.g. `"readCoordinationV1NamespacedLease"`.
    pub operation_id: &'static str,
    /// The HTTP method.
    pub method: Method,
    /// The path template, e.g. `"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}"`.
    pub path: &'static str,
    /// What the operation does.
    pub action: Action,
    /// The resource, for operations on one.
    pub resource: Option<ResourceInfo>,
    /// The path parameters, in template order.
    pub path_params: &'static [&'static str],
    /// The query parameters, sorted by name.
    pub query: &'static [QueryParamInfo],
    /// The request body, if the operation takes one.
    pub body: Option<BodyInfo>,
    /// The declared responses, by status.
    pub responses: &'static [ResponseInfo],
    /// Whether the operation is deprecated (the `/watch/` paths are).
    pub deprecated: bool,
    /// What the operation does, in words.
    pub description: &'static str,
}

/// The most path parameters one route can have: Kubernetes needs three
/// (`/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}`), and one is spare. A small
/// array keeps a resolution cheap to return.
pub const MAX_PATH_PARAMS: usize = 4;

/// The raw (still percent-encoded) path parameters of a resolved route, in template order.
/// Holds borrowed slices of the matched path in a fixed array, so resolving allocates nothing.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PathParams<'p> {
    names: &'static [&'static str],
    values: [&'p str; MAX_PATH_PARAMS],
    len: usize,
}

impl<'p> PathParams<'p> {
    /// No parameters yet.
    pub const fn new() -> Self {
        PathParams {
            names: &[],
            values: [""; MAX_PATH_PARAMS],
            len: 0,
        }
    }

    /// The parameters `names` with their raw `values`, in template order; used by generated
    /// matchers when a route is found. Values past [`MAX_PATH_PARAMS`] are dropped (the
    /// generator refuses such templates).
    #[inline]
    #[must_use]
    pub fn of(names: &'static [&'static str], values: &[&'p str]) -> Self {
        let mut params = PathParams::new().named(names);
        for value in values {
            params.push(value);
        }
        params
    }

    /// Records the next parameter value (matchers generated before [`of`](Self::of) use it,
    /// and so can a hand-written one). The generator refuses
    /// templates with more than [`MAX_PATH_PARAMS`] parameters, so the array never overflows;
    /// values past it would be dropped.
    pub fn push(&mut self, value: &'p str) {
        if let Some(slot) = self.values.get_mut(self.len) {
            *slot = value;
            self.len += 1;
        }
    }

    /// How many values are recorded; with [`rewind`](Self::rewind), a matcher that records
    /// as it goes tries another branch (generated ones keep values in locals instead).
    #[must_use]
    pub fn mark(&self) -> usize {
        self.len
    }

    /// Forgets the values recorded after `mark` (see [`mark`](Self::mark)).
    pub fn rewind(&mut self, mark: usize) {
        self.len = self.len.min(mark);
    }

    /// Names the recorded values with the route's parameter names, when a matcher that
    /// records as it goes finds a route (generated ones use [`of`](Self::of)).
    #[must_use]
    pub fn named(mut self, names: &'static [&'static str]) -> Self {
        self.names = names;
        self
    }

    /// The number of parameters.
    pub fn len(&self) -> usize {
        self.len.min(self.names.len())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The raw value of the parameter `name`, as it appears in the path.
    pub fn get(&self, name: &str) -> Option<&'p str> {
        self.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// The percent-decoded value of the parameter `name`: `None` when there is no such
    /// parameter, an error when the decoded bytes are not UTF-8.
    pub fn decoded(&self, name: &str) -> Option<Result<Cow<'p, str>, std::str::Utf8Error>> {
        self.get(name)
            .map(|raw| percent_encoding::percent_decode_str(raw).decode_utf8())
    }

    /// `(name, raw value)` pairs in template order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &'p str)> + '_ {
        self.names
            .iter()
            .copied()
            .zip(self.values.iter().copied())
            .take(self.len)
    }
}

impl Default for PathParams<'_> {
    fn default() -> Self {
        PathParams::new()
    }
}

impl fmt::Debug for PathParams<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Whether a path segment can be the value of a path parameter: not empty, not `.` or `..`
/// (which clients and proxies may collapse), and without `?` or `#` (the path ends before
/// them, so they show a query string or fragment passed as part of the path).
#[inline]
pub fn is_param_value(segment: &str) -> bool {
    // A byte loop: segments are short, and a `char` pattern search costs more than it scans.
    !segment.is_empty()
        && segment != "."
        && segment != ".."
        && !segment.bytes().any(|b| b == b'?' || b == b'#')
}

/// `rest` after `prefix`, a run of whole segments written with their leading `/`
/// (`"/api/v1"`), when `rest` starts with it and a segment ends there: what is left is then
/// empty or starts at a `/`. Generated matchers walk the path with it.
// Always inlined: the prefix is then a constant, and its comparison a few loads instead of a
// call to `memcmp`.
#[inline(always)]
#[must_use]
pub fn strip_segments<'p>(rest: &'p str, prefix: &str) -> Option<&'p str> {
    let tail = rest.strip_prefix(prefix)?;
    tail.as_bytes()
        .first()
        .is_none_or(|&b| b == b'/')
        .then_some(tail)
}

/// The segment after the `/` that `rest` starts with, when it can be a parameter's value
/// ([`is_param_value`]), and what follows it (empty, or starting at a `/`). The end of the
/// segment and a `?` or `#` in it are found in one pass. Generated matchers take path
/// parameters with it.
#[inline]
#[must_use]
pub fn param_segment(rest: &str) -> Option<(&str, &str)> {
    let after = rest.strip_prefix('/')?;
    let (segment, tail) = match find_segment_end(after.as_bytes())? {
        Some(slash) => after.split_at(slash),
        None => (after, ""),
    };
    (!segment.is_empty() && segment != "." && segment != "..").then_some((segment, tail))
}

/// In one pass, eight bytes at a time: the index of the first `/` (`Ok(None)` when there is
/// none), or `None` when a `?` or `#` comes before it. A zero byte of `word ^ "////////"`
/// marks a `/` (likewise for `?` and `#`); the lowest flagged byte is exact.
#[inline]
fn find_segment_end(bytes: &[u8]) -> Option<Option<usize>> {
    const fn repeat(byte: u8) -> u64 {
        u64::from_le_bytes([byte; 8])
    }
    const ONES: u64 = repeat(0x01);
    const HIGHS: u64 = repeat(0x80);
    const fn zero_bytes(x: u64) -> u64 {
        x.wrapping_sub(ONES) & !x & HIGHS
    }
    let at = |i: usize| match bytes.get(i) {
        Some(b'/') => Some(Some(i)),
        _ => None,
    };
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        let flagged = zero_bytes(word ^ repeat(b'/'))
            | zero_bytes(word ^ repeat(b'?'))
            | zero_bytes(word ^ repeat(b'#'));
        if flagged != 0 {
            return at(offset + (flagged.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    for (i, &b) in chunks.remainder().iter().enumerate() {
        match b {
            b'/' => return Some(Some(offset + i)),
            b'?' | b'#' => return None,
            _ => {}
        }
    }
    Some(None)
}

/// A set of HTTP methods, for the `Allow` header of a 405 answer. A bit set: copying and
/// building it allocates nothing.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct MethodSet(u16);

const METHODS: [Method; 9] = [
    Method::CONNECT,
    Method::DELETE,
    Method::GET,
    Method::HEAD,
    Method::OPTIONS,
    Method::PATCH,
    Method::POST,
    Method::PUT,
    Method::TRACE,
];

impl MethodSet {
    /// No method.
    pub const EMPTY: MethodSet = MethodSet(0);
    /// `CONNECT`.
    pub const CONNECT: MethodSet = MethodSet(1);
    /// `DELETE`.
    pub const DELETE: MethodSet = MethodSet(1 << 1);
    /// `GET`.
    pub const GET: MethodSet = MethodSet(1 << 2);
    /// `HEAD`.
    pub const HEAD: MethodSet = MethodSet(1 << 3);
    /// `OPTIONS`.
    pub const OPTIONS: MethodSet = MethodSet(1 << 4);
    /// `PATCH`.
    pub const PATCH: MethodSet = MethodSet(1 << 5);
    /// `POST`.
    pub const POST: MethodSet = MethodSet(1 << 6);
    /// `PUT`.
    pub const PUT: MethodSet = MethodSet(1 << 7);
    /// `TRACE`.
    pub const TRACE: MethodSet = MethodSet(1 << 8);

    /// Both sets' methods.
    #[must_use]
    pub const fn union(self, other: MethodSet) -> MethodSet {
        MethodSet(self.0 | other.0)
    }

    /// Whether `method` is in the set.
    pub fn contains(self, method: &Method) -> bool {
        METHODS
            .iter()
            .position(|m| m == method)
            .is_some_and(|i| self.0 & (1 << i) != 0)
    }

    /// The methods, in alphabetical order.
    pub fn iter(self) -> impl Iterator<Item = Method> {
        METHODS
            .into_iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, m)| m)
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The set of `method` alone; empty for a method outside the nine it knows.
    #[inline]
    #[must_use]
    pub fn of(method: &Method) -> MethodSet {
        METHODS
            .iter()
            .position(|m| m == method)
            .map_or(MethodSet::EMPTY, |i| MethodSet(1 << i))
    }
}

impl fmt::Debug for MethodSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// The value of an `Allow` header: `DELETE, GET, PATCH, PUT`.
impl fmt::Display for MethodSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, method) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(method.as_str())?;
        }
        Ok(())
    }
}

/// What a generated matcher found for a `(method, path)` pair; `R` is the generated route
/// enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Resolution<'p, R> {
    /// A route serves this method at this path.
    Found {
        /// The route.
        route: R,
        /// Its path parameters, raw, in template order.
        params: PathParams<'p>,
    },
    /// Routes exist at this path, but none for this method (answer 405 with `Allow`).
    MethodNotAllowed {
        /// The methods that are served at this path.
        allowed: MethodSet,
    },
    /// No route has this path (answer 404).
    NotFound,
}

impl<'p, R> Resolution<'p, R> {
    /// The route and parameters when one was found.
    pub fn found(self) -> Option<(R, PathParams<'p>)> {
        match self {
            Resolution::Found { route, params } => Some((route, params)),
            _ => None,
        }
    }

    /// Whether no route has the path.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Resolution::NotFound)
    }
}

/// The end of a path in a matcher: the routes served there, each with its method and its
/// path parameters' names, and the values of the parameters found on the way. `Found` with
/// the route of `method`, else `MethodNotAllowed` with every route's method. One call a leaf
/// of a generated matcher. The routes and values are arrays by value, and each route's
/// names a constant of the generated crate: a borrowed array of constants would be a
/// promoted constant, one more MIR body a leaf (and one per route for its names) that
/// rustc builds, checks and evaluates in every clean build.
#[inline]
#[must_use]
pub fn leaf<'p, R: Copy, const M: usize, const N: usize>(
    method: &Method,
    routes: [(MethodSet, R, &'static [&'static str]); M],
    values: [&'p str; N],
) -> Resolution<'p, R> {
    let wanted = MethodSet::of(method);
    let mut allowed = MethodSet::EMPTY;
    for (set, route, names) in routes {
        if set.0 & wanted.0 != 0 {
            return Resolution::Found {
                route,
                params: PathParams::of(names, &values),
            };
        }
        allowed = allowed.union(set);
    }
    Resolution::MethodNotAllowed { allowed }
}

#[cfg(test)]
mod tests {
    use super::{Method, MethodSet, PathParams, Resolution, leaf};

    #[test]
    fn a_leaf_finds_its_method_and_names_every_other() {
        const NAMES: &[&str] = &["namespace", "name"];
        let routes = [(MethodSet::DELETE, 1, NAMES), (MethodSet::GET, 2, NAMES)];
        let found = leaf(&Method::GET, routes, ["ns", "a"]).found();
        let (route, params) = found.expect("GET is served");
        assert_eq!(route, 2);
        assert_eq!(params.get("name"), Some("a"));
        assert_eq!(params.get("namespace"), Some("ns"));
        assert_eq!(
            leaf(&Method::POST, routes, ["ns", "a"]),
            Resolution::MethodNotAllowed {
                allowed: MethodSet::DELETE.union(MethodSet::GET)
            }
        );
        let unknown = Method::from_bytes(b"PURGE").expect("a method");
        assert!(matches!(
            leaf(&unknown, routes, ["ns", "a"]),
            Resolution::MethodNotAllowed { .. }
        ));
    }

    #[test]
    fn rewind_forgets_what_a_failed_branch_recorded() {
        let mut params = PathParams::new();
        params.push("ns");
        let mark = params.mark();
        params.push("tried");
        params.push("again");
        params.rewind(mark);
        params.push("name");
        let params = params.named(&["namespace", "name"]);
        assert_eq!(
            params.iter().collect::<Vec<_>>(),
            [("namespace", "ns"), ("name", "name")]
        );
        // Rewinding forward records nothing.
        let mut params = PathParams::new();
        params.rewind(3);
        assert_eq!(params.mark(), 0);
    }
}
