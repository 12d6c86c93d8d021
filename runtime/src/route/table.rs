//! A route table written as data and built at first use: [`RouteTable`], and the
//! [`TableWriter`] the generator writes it with.
//!
//! A generated crate's `routes::ROUTES` was a `static` array of `RouteInfo` literals; rustc
//! evaluated and borrow-checked its one initializer of 1,123 entries (Kubernetes 1.36) in
//! every clean build, 0.6 s of it. Written as one string of records instead, the table costs
//! the build one string literal, and a process that reads it pays about a millisecond, once.
//!
//! # The format
//!
//! Records are separated by `\n`, a record's fields by `\t`; the first field is the record's
//! tag. A field is text in which `\\`, `\t`, `\n` and `\c` stand for a backslash, a tab, a
//! newline and a comma; a list is its items joined by `,`. Numbers are decimal; a flag is
//! `0` or `1`; an absent optional value is the empty field.
//!
//! | tag | fields |
//! |---|---|
//! | `q` | a query parameter: name, JSON type, required, description |
//! | `r` | a resource: group, version, kind, plural, subresource, scope (`N`amespaced or `C`luster) |
//! | `b` | a request body: Rust type, required, content types (list) |
//! | `s` | a response: status, Rust type, description |
//! | `R` | a route: operation id, method, path, action, resource (index of its `r`), path parameters (list), query parameters (list of `q` indexes), body (index of its `b`), responses (list of `s` indexes), deprecated, description, slash optional (served with its trailing slash and without, as the discovery paths are) |
//!
//! An index counts the records of its tag from 0. `q`, `r`, `b` and `s` records come
//! before the routes that name them; each distinct one is written once.

use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;

use http::Method;

use super::matcher::Matcher;
use super::{Action, BodyInfo, QueryParamInfo, Resolution, ResourceInfo, ResponseInfo, RouteInfo};
use crate::Scope;

/// A route table built from its data the first time it is read, then a slice of
/// [`RouteInfo`] for the rest of the process: `&ROUTES` coerces to `&[RouteInfo]`,
/// `ROUTES[i]`, `ROUTES.iter()`, `ROUTES.len()` and `for route in &ROUTES` work as on a
/// slice.
///
/// Meant for a `static`: the entries and their nested lists are allocated once and live as
/// long as the process (a table that is dropped leaves them behind).
///
/// It also resolves paths ([`resolve`](Self::resolve)), by the rules of a generated
/// `routes::resolve`, from the table alone.
pub struct RouteTable {
    data: &'static str,
    routes: OnceLock<Decoded>,
    matcher: OnceLock<Matcher>,
}

/// The entries, and which of them are also served with their trailing slash toggled.
struct Decoded {
    routes: &'static [RouteInfo],
    slash_optional: Vec<bool>,
}

impl RouteTable {
    /// The table of `data`, written by [`TableWriter`]; read at first use.
    #[must_use]
    pub const fn new(data: &'static str) -> Self {
        RouteTable {
            data,
            routes: OnceLock::new(),
            matcher: OnceLock::new(),
        }
    }

    /// The entries, built from the data on the first call.
    #[must_use]
    pub fn routes(&self) -> &'static [RouteInfo] {
        self.decoded().routes
    }

    fn decoded(&self) -> &Decoded {
        self.routes.get_or_init(|| decode(self.data))
    }

    /// Resolves a request's method and path to a route and its path parameters, by the rules
    /// the generated `routes::resolve` documents (the answers are the same): matching is exact
    /// and case-sensitive; static segments beat parameters; a parameter is one non-empty
    /// segment, kept percent-encoded; a route whose record says so (the discovery paths) is
    /// served with and without its trailing slash; elsewhere a trailing slash, an empty
    /// segment, a `.` or `..` parameter, or a `?` or `#` in the path never match; a known
    /// path with another method gives `MethodNotAllowed` with the methods it serves.
    ///
    /// `routes` names the table's entries in table order (the generated `Route::ALL`): the
    /// answer is the entry's name. The matcher, a trie of the table's path templates, is
    /// built on the first call; after it, resolving allocates nothing.
    #[inline]
    #[must_use]
    pub fn resolve<'p, R: Copy>(
        &self,
        method: &Method,
        path: &'p str,
        routes: &[R],
    ) -> Resolution<'p, R> {
        self.matcher().resolve(method, path, routes)
    }

    #[inline]
    fn matcher(&self) -> &Matcher {
        self.matcher.get_or_init(|| {
            let decoded = self.decoded();
            Matcher::new(decoded.routes, &decoded.slash_optional)
        })
    }
}

impl Deref for RouteTable {
    type Target = [RouteInfo];

    fn deref(&self) -> &[RouteInfo] {
        self.routes()
    }
}

impl<'a> IntoIterator for &'a RouteTable {
    type Item = &'a RouteInfo;
    type IntoIter = std::slice::Iter<'a, RouteInfo>;

    fn into_iter(self) -> Self::IntoIter {
        self.routes().iter()
    }
}

impl fmt::Debug for RouteTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.routes()).finish()
    }
}

/// The records read so far, and the lists already built (a list is built once however
/// many routes name it).
#[derive(Default)]
struct Decoder {
    params: Vec<QueryParamInfo>,
    resources: Vec<ResourceInfo>,
    bodies: Vec<BodyInfo>,
    responses: Vec<ResponseInfo>,
    names: HashMap<&'static str, &'static [&'static str]>,
    queries: HashMap<&'static str, &'static [QueryParamInfo]>,
    response_lists: HashMap<&'static str, &'static [ResponseInfo]>,
}

/// The entries of `data`. Data the generator did not write gives what can be read of it: a
/// field that does not parse is empty (`false`, `None`, `""`, `GET`), an index out of range
/// names nothing, and every `R` record still gives one entry, so that `Route as usize`
/// indexes the table.
fn decode(data: &'static str) -> Decoded {
    let mut decoder = Decoder::default();
    let mut routes = Vec::new();
    let mut slash_optional = Vec::new();
    for record in data.split('\n') {
        let mut fields = record.split('\t');
        let tag = fields.next().unwrap_or_default();
        let mut next = move || fields.next().unwrap_or_default();
        match tag {
            "q" => {
                let param = QueryParamInfo {
                    name: unescape(next()),
                    ty: unescape(next()),
                    required: next() == "1",
                    description: unescape(next()),
                };
                decoder.params.push(param);
            }
            "r" => {
                let resource = ResourceInfo {
                    group: unescape(next()),
                    version: unescape(next()),
                    kind: unescape(next()),
                    plural: unescape(next()),
                    subresource: optional(next()),
                    scope: if next() == "C" {
                        Scope::Cluster
                    } else {
                        Scope::Namespaced
                    },
                };
                decoder.resources.push(resource);
            }
            "b" => {
                let body = BodyInfo {
                    ty: unescape(next()),
                    required: next() == "1",
                    content_types: decoder.names(next()),
                };
                decoder.bodies.push(body);
            }
            "s" => {
                let response = ResponseInfo {
                    status: next().parse().unwrap_or_default(),
                    ty: optional(next()),
                    description: unescape(next()),
                };
                decoder.responses.push(response);
            }
            "R" => {
                let route = RouteInfo {
                    operation_id: unescape(next()),
                    method: Method::from_bytes(next().as_bytes()).unwrap_or_default(),
                    path: unescape(next()),
                    action: action(unescape(next())),
                    resource: index(next()).and_then(|i| decoder.resources.get(i).copied()),
                    path_params: decoder.names(next()),
                    query: decoder.query(next()),
                    body: index(next()).and_then(|i| decoder.bodies.get(i).copied()),
                    responses: decoder.response_list(next()),
                    deprecated: next() == "1",
                    description: unescape(next()),
                };
                routes.push(route);
                slash_optional.push(next() == "1");
            }
            _ => {}
        }
    }
    Decoded {
        routes: Box::leak(routes.into_boxed_slice()),
        slash_optional,
    }
}

impl Decoder {
    /// The list of names `list`.
    fn names(&mut self, list: &'static str) -> &'static [&'static str] {
        if list.is_empty() {
            return &[];
        }
        self.names
            .entry(list)
            .or_insert_with(|| Box::leak(list.split(',').map(unescape).collect()))
    }

    /// The query parameters of the `q` indexes `list`.
    fn query(&mut self, list: &'static str) -> &'static [QueryParamInfo] {
        if list.is_empty() {
            return &[];
        }
        let params = &self.params;
        self.queries.entry(list).or_insert_with(|| {
            Box::leak(
                indexes(list)
                    .filter_map(|i| params.get(i).copied())
                    .collect(),
            )
        })
    }

    /// The responses of the `s` indexes `list`.
    fn response_list(&mut self, list: &'static str) -> &'static [ResponseInfo] {
        if list.is_empty() {
            return &[];
        }
        let responses = &self.responses;
        self.response_lists.entry(list).or_insert_with(|| {
            Box::leak(
                indexes(list)
                    .filter_map(|i| responses.get(i).copied())
                    .collect(),
            )
        })
    }
}

fn index(field: &str) -> Option<usize> {
    field.parse().ok()
}

fn indexes(list: &str) -> impl Iterator<Item = usize> + '_ {
    list.split(',').filter_map(index)
}

/// The text of a field: the data itself when it has no escape (all but a few fields).
pub(crate) fn unescape(field: &'static str) -> &'static str {
    if !field.contains('\\') {
        return field;
    }
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('c') => out.push(','),
            Some(other) => out.push(other),
            None => {}
        }
    }
    Box::leak(out.into_boxed_str())
}

fn optional(field: &'static str) -> Option<&'static str> {
    (!field.is_empty()).then(|| unescape(field))
}

fn action(name: &'static str) -> Action {
    match name {
        "get" => Action::Get,
        "list" => Action::List,
        "watch" => Action::Watch,
        "create" => Action::Create,
        "replace" => Action::Replace,
        "patch" => Action::Patch,
        "delete" => Action::Delete,
        "deletecollection" => Action::DeleteCollection,
        "connect" => Action::Connect,
        other => Action::Other(other),
    }
}

/// Writes a route table's data for [`RouteTable::new`]: each distinct query parameter,
/// resource, body and response once, then the routes in table order.
#[derive(Default)]
pub struct TableWriter {
    shared: String,
    routes: String,
    params: Records,
    resources: Records,
    bodies: Records,
    responses: Records,
}

/// The records of one tag written so far, found by their fields as given (not escaped):
/// by the first field, then the rest compared. A query parameter's record holds a
/// kilobyte of description, the same one on most routes; formatting and hashing it whole
/// to find the record written before cost more than the rest of the table.
#[derive(Default)]
struct Records {
    by_first: HashMap<String, Vec<Known>>,
    count: usize,
}

/// A record written before: its fields after the first, and its index.
type Known = (Box<[String]>, usize);

impl Records {
    /// The index of the record of `fields`, and whether it is new (then it has the next
    /// index).
    fn index(&mut self, fields: &[&str]) -> (usize, bool) {
        let (first, rest) = fields.split_first().unwrap_or((&"", &[]));
        let same = |known: &[String]| known.iter().map(String::as_str).eq(rest.iter().copied());
        if let Some(known) = self.by_first.get(*first)
            && let Some(&(_, index)) = known.iter().find(|(known, _)| same(known))
        {
            return (index, false);
        }
        let index = self.count;
        self.count += 1;
        let rest = rest.iter().map(|f| (*f).to_owned()).collect();
        self.by_first
            .entry((*first).to_owned())
            .or_default()
            .push((rest, index));
        (index, true)
    }
}

/// A query parameter, for [`TableWriter::route`].
#[derive(Clone, Copy, Debug)]
pub struct QueryParamData<'a> {
    /// The name on the wire.
    pub name: &'a str,
    /// The JSON type.
    pub ty: &'a str,
    /// What it does.
    pub description: &'a str,
    /// Whether the operation requires it.
    pub required: bool,
}

/// A resource, for [`TableWriter::route`].
#[derive(Clone, Copy, Debug)]
pub struct ResourceData<'a> {
    /// The API group.
    pub group: &'a str,
    /// The version.
    pub version: &'a str,
    /// The kind.
    pub kind: &'a str,
    /// The plural.
    pub plural: &'a str,
    /// The subresource.
    pub subresource: Option<&'a str>,
    /// The scope.
    pub scope: Scope,
}

/// A request body, for [`TableWriter::route`].
#[derive(Clone, Copy, Debug)]
pub struct BodyData<'a> {
    /// The Rust type.
    pub ty: &'a str,
    /// The content types.
    pub content_types: &'a [&'a str],
    /// Whether a body is required.
    pub required: bool,
}

/// A response, for [`TableWriter::route`].
#[derive(Clone, Copy, Debug)]
pub struct ResponseData<'a> {
    /// The status code.
    pub status: u16,
    /// The description.
    pub description: &'a str,
    /// The Rust type of the body.
    pub ty: Option<&'a str>,
}

/// A route, for [`TableWriter::route`]: the fields of a [`RouteInfo`], borrowed.
#[derive(Clone, Debug)]
pub struct RouteData<'a> {
    /// The `operationId`.
    pub operation_id: &'a str,
    /// The HTTP method, e.g. `"GET"`.
    pub method: &'a str,
    /// The path template.
    pub path: &'a str,
    /// The action as [`Action::as_str`] spells it.
    pub action: &'a str,
    /// The resource.
    pub resource: Option<ResourceData<'a>>,
    /// The path parameters, in template order.
    pub path_params: Vec<&'a str>,
    /// The query parameters.
    pub query: Vec<QueryParamData<'a>>,
    /// The request body.
    pub body: Option<BodyData<'a>>,
    /// The responses.
    pub responses: Vec<ResponseData<'a>>,
    /// Whether the operation is deprecated.
    pub deprecated: bool,
    /// What the operation does.
    pub description: &'a str,
    /// Whether the route is also served with its trailing slash toggled (removed, or added
    /// when it has none), as the API server serves the discovery paths.
    pub slash_optional: bool,
}

impl TableWriter {
    /// An empty table.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `route` as the table's next entry.
    pub fn route(&mut self, route: &RouteData<'_>) {
        let resource = route.resource.map(|r| {
            let scope = match r.scope {
                Scope::Namespaced => "N",
                Scope::Cluster => "C",
            };
            let subresource = r.subresource.unwrap_or_default();
            let fields = [r.group, r.version, r.kind, r.plural, subresource, scope];
            self.shared('r', &fields, || {
                let mut record = [r.group, r.version, r.kind, r.plural, subresource]
                    .map(field)
                    .join("\t");
                record.push('\t');
                record.push_str(scope);
                record
            })
            .to_string()
        });
        let query: Vec<String> = route
            .query
            .iter()
            .map(|q| {
                let fields = [q.name, q.ty, flag(q.required), q.description];
                self.shared('q', &fields, || {
                    let required = flag(q.required).to_owned();
                    [field(q.name), field(q.ty), required, field(q.description)].join("\t")
                })
                .to_string()
            })
            .collect();
        let body = route.body.map(|b| {
            let mut fields = vec![b.ty, flag(b.required)];
            // The list `[""]` is written as the empty list is: the same record.
            if b.content_types != [""] {
                fields.extend_from_slice(b.content_types);
            }
            self.shared('b', &fields, || {
                let types: Vec<String> = b.content_types.iter().map(|t| escape(t)).collect();
                [field(b.ty), flag(b.required).to_owned(), types.join(",")].join("\t")
            })
            .to_string()
        });
        let responses: Vec<String> = route
            .responses
            .iter()
            .map(|r| {
                let status = r.status.to_string();
                let ty = r.ty.unwrap_or_default();
                let fields = [status.as_str(), ty, r.description];
                self.shared('s', &fields, || {
                    [status.clone(), field(ty), field(r.description)].join("\t")
                })
                .to_string()
            })
            .collect();
        let path_params: Vec<String> = route.path_params.iter().map(|p| escape(p)).collect();
        let fields = [
            "R".to_owned(),
            field(route.operation_id),
            field(route.method),
            field(route.path),
            field(route.action),
            resource.unwrap_or_default(),
            path_params.join(","),
            query.join(","),
            body.unwrap_or_default(),
            responses.join(","),
            flag(route.deprecated).to_owned(),
            field(route.description),
            flag(route.slash_optional).to_owned(),
        ];
        self.routes.push_str(&fields.join("\t"));
        self.routes.push('\n');
    }

    /// The index of the `tag` record of `fields` (as given, not escaped), written if new as
    /// `record` spells it (its fields escaped, without the tag).
    fn shared(&mut self, tag: char, fields: &[&str], record: impl FnOnce() -> String) -> usize {
        let records = match tag {
            'q' => &mut self.params,
            'r' => &mut self.resources,
            'b' => &mut self.bodies,
            _ => &mut self.responses,
        };
        let (index, new) = records.index(fields);
        if new {
            self.shared.push(tag);
            self.shared.push('\t');
            self.shared.push_str(&record());
            self.shared.push('\n');
        }
        index
    }

    /// The data: the records, one a line.
    #[must_use]
    pub fn finish(self) -> String {
        let mut data = self.shared;
        data.push_str(&self.routes);
        data
    }
}

fn flag(value: bool) -> &'static str {
    if value { "1" } else { "0" }
}

/// `text` as an item of a list of a table's data (a route table's, a schema table's):
/// `\`, tab, newline and comma escaped.
#[must_use]
pub fn escape(text: &str) -> String {
    escape_with(text, true)
}

/// `text` as a field that is no list's item: `\`, tab and newline escaped.
fn field(text: &str) -> String {
    escape_with(text, false)
}

fn escape_with(text: &str, comma: bool) -> String {
    let special = |b: u8| matches!(b, b'\\' | b'\t' | b'\n') || (comma && b == b',');
    // Most fields (descriptions of a thousand characters) have nothing to escape: copied
    // whole, not character by character.
    let Some(first) = text.bytes().position(special) else {
        return text.to_owned();
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            ',' if comma => out.push_str("\\c"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leak(data: String) -> &'static str {
        Box::leak(data.into_boxed_str())
    }

    #[test]
    fn a_written_table_reads_back_as_written() {
        let list = QueryParamData {
            name: "limit",
            ty: "integer",
            description: "At most, this many.\tTabbed\nand \\ slashed",
            required: false,
        };
        let pods = ResourceData {
            group: "",
            version: "v1",
            kind: "Pod",
            plural: "pods",
            subresource: None,
            scope: Scope::Namespaced,
        };
        let ok = ResponseData {
            status: 200,
            description: "OK",
            ty: Some("api::core::v1::PodList"),
        };
        let mut writer = TableWriter::new();
        writer.route(&RouteData {
            operation_id: "listCoreV1NamespacedPod",
            method: "GET",
            path: "/api/v1/namespaces/{namespace}/pods",
            action: "list",
            resource: Some(pods),
            path_params: vec!["namespace"],
            query: vec![list],
            body: None,
            responses: vec![ok],
            deprecated: false,
            description: "List pods, in a namespace.",
            slash_optional: false,
        });
        writer.route(&RouteData {
            operation_id: "connectCoreV1GetNamespacedPodProxy",
            method: "PATCH",
            path: "/api/v1/namespaces/{namespace}/pods/{name}/proxy",
            action: "proxy",
            resource: Some(ResourceData {
                subresource: Some("proxy"),
                scope: Scope::Cluster,
                ..pods
            }),
            path_params: vec!["name", "namespace"],
            query: vec![list, list],
            body: Some(BodyData {
                ty: "Patch",
                content_types: &["application/json-patch+json", "a,b"],
                required: true,
            }),
            responses: vec![ok, ResponseData { ty: None, ..ok }],
            deprecated: true,
            description: "",
            slash_optional: true,
        });
        let data = writer.finish();
        // Each distinct record once: `list` three times is one `q`, and the response
        // without a type is a second `s`.
        let records = |tag: &str| {
            data.lines()
                .filter(|l| l.split('\t').next() == Some(tag))
                .count()
        };
        let counts = ["q", "r", "b", "s", "R"].map(records);
        assert_eq!(counts, [1, 2, 1, 2, 2], "{data}");
        let table = RouteTable::new(leak(data));
        assert_eq!(table.len(), 2);
        let first = &table[0];
        assert_eq!(first.operation_id, "listCoreV1NamespacedPod");
        assert_eq!(first.method, Method::GET);
        assert_eq!(first.action, Action::List);
        assert_eq!(first.resource.map(|r| r.kind), Some("Pod"));
        assert_eq!(first.resource.and_then(|r| r.subresource), None);
        assert_eq!(first.path_params, ["namespace"]);
        assert_eq!(
            first.query[0].description,
            "At most, this many.\tTabbed\nand \\ slashed"
        );
        assert_eq!(first.responses[0].ty, Some("api::core::v1::PodList"));
        assert_eq!(first.description, "List pods, in a namespace.");
        let second = &table[1];
        assert_eq!(second.method, Method::PATCH);
        assert_eq!(second.action, Action::Other("proxy"));
        let resource = second.resource.unwrap();
        assert_eq!(
            (resource.subresource, resource.scope),
            (Some("proxy"), Scope::Cluster)
        );
        assert_eq!(second.path_params, ["name", "namespace"]);
        assert_eq!(second.query.len(), 2);
        let body = second.body.unwrap();
        assert_eq!(body.content_types, ["application/json-patch+json", "a,b"]);
        assert!(body.required && second.deprecated);
        assert_eq!(second.responses[1].ty, None);
        assert_eq!(second.description, "");
        assert_eq!((&table).into_iter().count(), 2);
        assert_eq!(table.decoded().slash_optional, [false, true]);
    }

    #[test]
    fn data_it_did_not_write_gives_an_entry_per_route_and_never_panics() {
        let table = RouteTable::new("R\tx\tNOT A METHOD\t/p\tlist\t7\t\t3,x\t9\t\t1\nzzz\nR");
        assert_eq!(table.len(), 2);
        assert_eq!(table[0].method, Method::GET);
        assert_eq!(table[0].resource, None);
        assert!(table[0].query.is_empty());
        assert!(table[0].deprecated);
        assert_eq!(table[1].operation_id, "");
    }
}
