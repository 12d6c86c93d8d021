//! The route matcher: a trie of a [`RouteTable`](super::RouteTable)'s path templates, built
//! from the table's routes the first time a path is resolved, and walked one segment at a
//! time.
//!
//! A generated crate's `resolve` is a decision tree written out as code (7,704 lines and 40
//! functions for Kubernetes 1.36), which rustc type-checks, borrow-checks and keeps in the
//! crate's metadata in every clean build. This is the same tree as data, which costs a build
//! nothing; a process pays for building it once. Generated crates do not call it yet: it
//! resolves slower than the generated tree (docs/src/design/decisions.md: 555 and 620
//! instructions a match on section d's workloads, the tree 355 and 352).
//!
//! The rules are the generated tree's (the generated `resolve` documents them): matching is
//! exact and case-sensitive; a static segment beats a parameter, and the parameter gets its
//! turn when the static branch finds no path; a parameter is one segment, not empty, `.` or
//! `..`, kept percent-encoded; a `?` or `#` in a segment matches nothing; a route the table
//! marks `slash_optional` is served with its trailing slash and without; a path with routes
//! but none for the method is `MethodNotAllowed` with the methods it has.
//!
//! The trie is flat arrays, each node before its subtrees. A static child is tried without
//! first finding where the path's segment ends: its edge holds the segment's length and its
//! first eight bytes (with a mask), compared with the path's next eight bytes in one `u64`,
//! then the byte after it (a `/` or the path's end), and for a longer segment its last eight
//! bytes (an overlapping load) and past 16 bytes its middle. A node of a few static children
//! tries each; a wide one (`/api/v1/` and `/apis/` have dozens) tries those of its bucket, by
//! the segment's first byte. A child without a parameter and with few static children is
//! also reached from its parent by edges of two segments (`api/v1`): one step instead of
//! two, where the child had no other way to try. A node has at most one parameter child,
//! tried only when the static branch finds no path; its segment's end, and a `?` or `#` in
//! it, are found eight bytes at a time. A leaf is the routes that end there, one per
//! method, its method found by a bit test. Walking allocates nothing: parameter values are
//! slices of the path in a fixed array.

use std::collections::BTreeMap;

use http::Method;

use super::{MAX_PATH_PARAMS, MethodSet, PathParams, Resolution, RouteInfo};

/// No node: a node without a parameter child; in `slots`, an empty slot.
const NONE: u32 = u32::MAX;

/// The routes of a table as a trie; see the module's documentation.
#[derive(Debug, Default)]
pub(crate) struct Matcher {
    /// The nodes, in walk order (each node before its subtrees).
    nodes: Vec<Node>,
    /// The nodes' static children, each node's a contiguous run.
    edges: Vec<Edge>,
    /// The routes ending at each node, a contiguous run per node: each route's method, its
    /// index in the table, and its parameters' names.
    leaves: Vec<(MethodSet, usize, &'static [&'static str])>,
    /// The buckets of the nodes of more than [`SCANNED`] static children, one contiguous
    /// run of `1 << bits` a node: by [`bucket`] of a segment's first byte, the run of the
    /// node's children (in `edges`, which a node's buckets order) whose first byte has that
    /// bucket.
    buckets: Vec<(u32, u32)>,
}

/// The most static children of a child without a parameter that its parent also reaches
/// with edges of two segments.
const SHORTCUTS: usize = 8;

/// The most static children a node has that are found by trying each; a node with more
/// finds the few to try in its buckets.
const SCANNED: u32 = 6;

/// A static child: its segment, as its length and two words compared with the path's, and
/// its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Edge {
    /// The segment's first eight bytes (zeros after a shorter one).
    head: u64,
    /// The mask that keeps a word's first `len` bytes (all eight past eight).
    mask: u64,
    /// Its last eight bytes, for a segment longer than eight (else 0).
    tail: u64,
    /// The segment, whose middle is compared past 16 bytes.
    text: &'static str,
    /// Its length in bytes.
    len: u32,
    /// The child node.
    child: u32,
}

/// The mask that keeps the first `len` bytes of a word (all of them past eight).
#[inline(always)]
fn mask(len: usize) -> u64 {
    if len < 8 {
        (1_u64 << (8 * len)) - 1
    } else {
        u64::MAX
    }
}

impl Edge {
    /// The edge of `text` to `child`.
    fn of(text: &'static str, child: u32) -> Edge {
        let bytes = text.as_bytes();
        let len = bytes.len();
        Edge {
            head: word_at(bytes, 0) & mask(len),
            mask: mask(len),
            tail: if len > 8 {
                load(bytes, len - 8).unwrap_or(0)
            } else {
                0
            },
            text,
            len: index_u32(len),
            child,
        }
    }

    /// Whether the segment that starts at `start` in `bytes` (whose first word is `first`,
    /// `word_at(bytes, start)`) is this edge's: the path has the edge's bytes there and a
    /// segment ends after them. Compared a word at a time: the first eight bytes, the last
    /// eight (overlapping them), and past 16 bytes the middle.
    #[inline(always)]
    fn matches(&self, bytes: &[u8], start: usize, first: u64) -> bool {
        if first & self.mask != self.head {
            return false;
        }
        let len = self.len as usize;
        let end = start + len;
        let ends = match bytes.get(end) {
            Some(&byte) => byte == b'/',
            None => end == bytes.len(),
        };
        ends && (len <= 8
            || (load(bytes, end - 8) == Some(self.tail)
                && (len <= 16 || self.same_middle(bytes, start))))
    }

    /// Whether the segment of this edge's length at `start` has the edge's bytes between
    /// its first and last eight (rare: only segments longer than 16 bytes).
    #[cold]
    #[inline(never)]
    fn same_middle(&self, bytes: &[u8], start: usize) -> bool {
        let len = self.len as usize;
        self.text.as_bytes().get(8..len - 8) == bytes.get(start + 8..start + len - 8)
    }
}

/// The bucket of a segment that starts with `byte` (0: the path ended, as for the empty
/// segment) in a table of `1 << bits` buckets.
#[inline(always)]
fn bucket(byte: u8, bits: u32) -> usize {
    let byte = if byte == 0 { b'/' } else { byte };
    ((u64::from(byte).wrapping_mul(0x9E37_79B9_7F4A_7C15)) >> (64 - bits)) as usize
}

#[derive(Clone, Copy, Debug)]
struct Node {
    /// The first of the node's static children in `edges`, and how
    /// many.
    statics: u32,
    statics_len: u32,
    /// The parameter child, or [`NONE`].
    param: u32,
    /// The first of the node's routes in `leaves`, and how many (none: no path ends here).
    leaf: u32,
    leaf_len: u32,
    /// A wide node's buckets: the first in `buckets`, and the bits of their number; `bits`
    /// is 0 at a node whose children are all tried.
    buckets: u32,
    bits: u32,
    /// Unused: a node is 32 bytes, found by a shift.
    _pad: u32,
}

/// The eight bytes of `bytes` at `at`, little-endian, when there are eight.
#[inline(always)]
fn load(bytes: &[u8], at: usize) -> Option<u64> {
    let word = bytes.get(at..)?.first_chunk::<8>()?;
    Some(u64::from_le_bytes(*word))
}

/// The bytes of `bytes` from `at` as a little-endian word, with zeros past the end.
#[inline(always)]
fn word_at(bytes: &[u8], at: usize) -> u64 {
    if let Some(word) = load(bytes, at) {
        return word;
    }
    // Fewer than eight bytes left: the path's last eight shifted down, or byte by byte in a
    // path shorter than eight.
    let left = bytes.len().saturating_sub(at);
    if left == 0 {
        return 0;
    }
    if let Some(last) = bytes
        .len()
        .checked_sub(8)
        .and_then(|last| load(bytes, last))
    {
        return last >> (8 * (8 - left));
    }
    let mut word = [0; 8];
    for (to, from) in word.iter_mut().zip(bytes.get(at..).unwrap_or_default()) {
        *to = *from;
    }
    u64::from_le_bytes(word)
}

const fn repeat(byte: u8) -> u64 {
    u64::from_le_bytes([byte; 8])
}

/// The bytes of `word` that are zero, flagged by their top bit: exact up to the lowest
/// flagged byte (a byte above a zero one may be flagged too).
const fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(repeat(0x01)) & !x & repeat(0x80)
}

/// The end of the segment that starts at `start` (the index of the next `/`, or the path's
/// end), whose first word is `first` (`word_at(bytes, start)`), when it can be a parameter's
/// value: not empty, `.` or `..`, and without `?` or `#`. Found in one pass eight bytes at a
/// time: a zero byte of `word ^ "////////"` marks a `/` (likewise for `?` and `#`; the zeros
/// past the path's end are none of them); the lowest flagged byte is exact.
#[inline(always)]
fn param_segment(bytes: &[u8], start: usize, first: u64) -> Option<usize> {
    let mut word = first;
    let mut at = start;
    let end = loop {
        let flagged = zero_bytes(word ^ repeat(b'/'))
            | zero_bytes(word ^ repeat(b'?'))
            | zero_bytes(word ^ repeat(b'#'));
        if flagged != 0 {
            let end = at + (flagged.trailing_zeros() / 8) as usize;
            if bytes.get(end) != Some(&b'/') {
                return None;
            }
            break end;
        }
        at += 8;
        if at >= bytes.len() {
            break bytes.len();
        }
        word = word_at(bytes, at);
    };
    match end - start {
        0 => None,
        1 if first & 0xff == u64::from(b'.') => None,
        2 if first & 0xffff == u64::from(u16::from_le_bytes(*b"..")) => None,
        _ => Some(end),
    }
}

/// A node while the trie is built: children by segment text, routes by method.
#[derive(Default)]
struct Building {
    statics: BTreeMap<&'static str, Building>,
    param: Option<Box<Building>>,
    leaf: Vec<(Method, usize, &'static [&'static str])>,
}

impl Building {
    fn insert(&mut self, segments: &[&'static str], route: usize, info: &RouteInfo) {
        let Some((first, rest)) = segments.split_first() else {
            // One route per method at a path: a later one replaces an earlier one.
            let entry = (info.method.clone(), route, info.path_params);
            match self.leaf.iter_mut().find(|(m, _, _)| *m == info.method) {
                Some(known) => *known = entry,
                None => self.leaf.push(entry),
            }
            return;
        };
        let child = if is_param(first) {
            &mut **self.param.get_or_insert_with(Box::default)
        } else {
            self.statics.entry(*first).or_default()
        };
        child.insert(rest, route, info);
    }
}

/// Whether a template's segment is a parameter: `{name}`.
fn is_param(segment: &str) -> bool {
    segment.len() >= 2 && segment.starts_with('{') && segment.ends_with('}')
}

/// The segments of `path` after its leading `/`, and, when `toggled`, of the same path with
/// its trailing slash removed, or added when it has none.
fn segments(path: &'static str, toggled: bool) -> Vec<&'static str> {
    let mut segments: Vec<&'static str> =
        path.strip_prefix('/').unwrap_or(path).split('/').collect();
    if toggled {
        if segments.len() > 1 && segments.last() == Some(&"") {
            segments.pop();
        } else if segments.last() != Some(&"") {
            segments.push("");
        }
    }
    segments
}

impl Matcher {
    /// The trie of `routes`; `slash_optional[i]` tells whether route `i` is also served with
    /// its trailing slash toggled.
    pub(crate) fn new(routes: &'static [RouteInfo], slash_optional: &[bool]) -> Matcher {
        let mut root = Building::default();
        for (index, info) in routes.iter().enumerate() {
            root.insert(&segments(info.path, false), index, info);
            if slash_optional.get(index).copied().unwrap_or(false) {
                root.insert(&segments(info.path, true), index, info);
            }
        }
        let mut matcher = Matcher::default();
        matcher.flatten(&root);
        matcher.hash_wide_nodes();
        matcher
    }

    /// Gives each node of more than [`SCANNED`] static children its buckets, and orders its
    /// children by them.
    fn hash_wide_nodes(&mut self) {
        for node in &mut self.nodes {
            if node.statics_len <= SCANNED {
                continue;
            }
            let start = node.statics as usize;
            let range = start..start + node.statics_len as usize;
            let bits = (2 * node.statics_len).next_power_of_two().trailing_zeros();
            let Some(edges) = self.edges.get_mut(range) else {
                continue;
            };
            let of = |edge: &Edge| bucket(edge.text.as_bytes().first().copied().unwrap_or(0), bits);
            edges.sort_by_key(of);
            let first = self.buckets.len();
            self.buckets.resize(first + (1 << bits), (0, 0));
            for (offset, edge) in edges.iter().enumerate() {
                let index = start + offset;
                if let Some(run) = self.buckets.get_mut(first + of(edge)) {
                    if run.1 == 0 {
                        run.0 = index_u32(index);
                    }
                    run.1 += 1;
                }
            }
            node.buckets = index_u32(first);
            node.bits = bits;
        }
    }

    /// Appends `node` and its subtree; its index.
    fn flatten(&mut self, node: &Building) -> u32 {
        let index = self.nodes.len();
        self.nodes.push(Node {
            statics: 0,
            statics_len: 0,
            param: NONE,
            leaf: index_u32(self.leaves.len()),
            leaf_len: index_u32(node.leaf.len()),
            buckets: 0,
            bits: 0,
            _pad: 0,
        });
        for &(ref method, route, names) in &node.leaf {
            self.leaves.push((MethodSet::of(method), route, names));
        }
        // The children's edges first, contiguous; then their subtrees. Before the edge of a
        // child without a parameter and with one or two static children: an edge of two
        // segments (`api/v1`) to each grandchild, one step where two would go the same way
        // (the child has no other way to try).
        let statics = self.edges.len();
        let mut targets: Vec<(usize, Option<&'static str>)> = Vec::new();
        for (position, (&text, child)) in node.statics.iter().enumerate() {
            if child.param.is_none() && (1..=SHORTCUTS).contains(&child.statics.len()) {
                for &next in child.statics.keys() {
                    let both: &'static str = Box::leak(format!("{text}/{next}").into_boxed_str());
                    self.edges.push(Edge::of(both, NONE));
                    targets.push((position, Some(next)));
                }
            }
            self.edges.push(Edge::of(text, NONE));
            targets.push((position, None));
        }
        let children: Vec<u32> = node
            .statics
            .values()
            .map(|child| self.flatten(child))
            .collect();
        for (offset, &(position, next)) in targets.iter().enumerate() {
            let Some(&child) = children.get(position) else {
                continue;
            };
            let target = match next {
                None => child,
                Some(next) => self.static_target(child, next),
            };
            if let Some(edge) = self.edges.get_mut(statics + offset) {
                edge.child = target;
            }
        }
        let param = node
            .param
            .as_ref()
            .map_or(NONE, |child| self.flatten(child));
        if let Some(this) = self.nodes.get_mut(index) {
            this.statics = index_u32(statics);
            this.statics_len = index_u32(targets.len());
            this.param = param;
        }
        index_u32(index)
    }

    /// The child of `node` by its one-segment edge `text` ([`NONE`] for none).
    fn static_target(&self, node: u32, text: &str) -> u32 {
        let Some(node) = self.nodes.get(node as usize) else {
            return NONE;
        };
        let start = node.statics as usize;
        self.edges
            .get(start..start + node.statics_len as usize)
            .unwrap_or_default()
            .iter()
            .find(|edge| edge.text == text)
            .map_or(NONE, |edge| edge.child)
    }

    /// The route of `method` at `path` with its raw parameters, `MethodNotAllowed` with the
    /// methods served there, or `NotFound`; the route is `routes[i]` for the table's route
    /// `i` (`NotFound` past the end of `routes`).
    #[inline]
    pub(crate) fn resolve<'p, R: Copy>(
        &self,
        method: &Method,
        path: &'p str,
        routes: &[R],
    ) -> Resolution<'p, R> {
        let mut values = [""; MAX_PATH_PARAMS];
        let Some((node, count)) = self.descend(0, path, 0, &mut values, 0) else {
            return Resolution::NotFound;
        };
        let Some(node) = self.nodes.get(node as usize) else {
            return Resolution::NotFound;
        };
        let start = node.leaf as usize;
        let leaves = self
            .leaves
            .get(start..start + node.leaf_len as usize)
            .unwrap_or_default();
        // `route::leaf`, with the parameters' values given as they are.
        let wanted = MethodSet::of(method);
        let mut allowed = MethodSet::EMPTY;
        for &(set, route, names) in leaves {
            if set.0 & wanted.0 != 0 {
                let Some(&route) = routes.get(route) else {
                    return Resolution::NotFound;
                };
                return Resolution::Found {
                    route,
                    params: PathParams {
                        names,
                        values,
                        len: count,
                    },
                };
            }
            allowed = allowed.union(set);
        }
        Resolution::MethodNotAllowed { allowed }
    }

    /// [`descend`](Self::descend) out of line: the static branch of a node that also has a
    /// parameter, tried first.
    #[inline(never)]
    fn walk<'p>(
        &self,
        node: u32,
        path: &'p str,
        at: usize,
        values: &mut [&'p str; MAX_PATH_PARAMS],
        count: usize,
    ) -> Option<(u32, usize)> {
        self.descend(node, path, at, values, count)
    }

    /// The node where `path` ends, walked from `node` at byte `at` after `count` parameters,
    /// and the number of parameters then: the first path found, static segments tried
    /// before the parameter at each node. `None` when no path of the table matches.
    #[inline(always)]
    fn descend<'p>(
        &self,
        mut node: u32,
        path: &'p str,
        mut at: usize,
        values: &mut [&'p str; MAX_PATH_PARAMS],
        mut count: usize,
    ) -> Option<(u32, usize)> {
        let bytes = path.as_bytes();
        // A path that does not start with `/` (after the first, each step ends at a `/` or at
        // the end).
        if bytes.get(at).is_some_and(|&byte| byte != b'/') {
            return None;
        }
        loop {
            let here = self.nodes.get(node as usize)?;
            if at >= bytes.len() {
                // The end of the path.
                return (here.leaf_len > 0).then_some((node, count));
            }
            let start = at + 1;
            let first = word_at(bytes, start);
            // Static segments beat parameters: the parameter gets its turn only when the
            // static branch finds no path.
            if here.statics_len != 0
                && let Some((child, end)) = self.static_child(here, bytes, start, first)
            {
                if here.param == NONE {
                    node = child;
                    at = end;
                    continue;
                }
                if let Some(found) = self.walk(child, path, end, values, count) {
                    return Some(found);
                }
            }
            if here.param == NONE {
                return None;
            }
            // The segment, for the parameter.
            let end = param_segment(bytes, start, first)?;
            if let Some(slot) = values.get_mut(count) {
                *slot = path.get(start..end)?;
                count += 1;
            }
            node = here.param;
            at = end;
        }
    }

    /// The static child of `node` whose segment starts at `start` in `bytes` (its first word
    /// `first`), and the segment's end.
    #[inline(always)]
    fn static_child(
        &self,
        node: &Node,
        bytes: &[u8],
        start: usize,
        first: u64,
    ) -> Option<(u32, usize)> {
        let (from, len) = if node.bits == 0 {
            (node.statics, node.statics_len)
        } else {
            let at = node.buckets as usize + bucket(first as u8, node.bits);
            *self.buckets.get(at)?
        };
        let from = from as usize;
        let edges = self.edges.get(from..from + len as usize)?;
        for edge in edges {
            if edge.matches(bytes, start, first) {
                return Some((edge.child, start + edge.len as usize));
            }
        }
        None
    }
}

/// An index into the trie's arrays; a table has far fewer than `u32::MAX` routes.
fn index_u32(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(NONE)
}

#[cfg(test)]
mod tests {
    use super::{Edge, Matcher, param_segment, word_at};
    use crate::route::{MethodSet, Resolution, RouteInfo, RouteTable, TableWriter};
    use http::Method;

    /// A table of `(method, path, slash optional)`, its parameters named as in the path.
    fn table(routes: &[(&str, &str, bool)]) -> &'static RouteTable {
        let mut writer = TableWriter::new();
        for &(method, path, slash_optional) in routes {
            let params: Vec<&str> = path
                .split('/')
                .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
                .collect();
            writer.route(&crate::route::RouteData {
                operation_id: "op",
                method,
                path,
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
        let data: &'static str = Box::leak(writer.finish().into_boxed_str());
        Box::leak(Box::new(RouteTable::new(data)))
    }

    fn found(table: &RouteTable, method: &Method, path: &str) -> Option<(usize, Vec<String>)> {
        let all: Vec<usize> = (0..table.len()).collect();
        table
            .resolve(method, path, &all)
            .found()
            .map(|(route, params)| {
                let values = params.iter().map(|(n, v)| format!("{n}={v}")).collect();
                (route, values)
            })
    }

    #[test]
    fn statics_beat_parameters_and_a_failed_static_branch_backtracks() {
        let routes = table(&[
            ("GET", "/w/{name}", false),
            ("GET", "/w/{name}/stats", false),
            ("GET", "/w/special/stats", false),
            ("DELETE", "/w/{name}", false),
            ("GET", "/w/a-long-static-segment", false),
        ]);
        let get = |path: &str| found(routes, &Method::GET, path);
        assert_eq!(get("/w/special/stats"), Some((2, vec![])));
        assert_eq!(get("/w/special"), Some((0, vec!["name=special".into()])));
        assert_eq!(get("/w/other/stats"), Some((1, vec!["name=other".into()])));
        assert_eq!(get("/w/a-long-static-segment"), Some((4, vec![])));
        // Same length and first seven bytes: not the static segment.
        assert_eq!(
            get("/w/a-long-static-segmenx"),
            Some((0, vec!["name=a-long-static-segmenx".into()]))
        );
        assert!(get("/w/special/other").is_none());
        let all: Vec<usize> = (0..routes.len()).collect();
        assert_eq!(
            routes.resolve(&Method::POST, "/w/special/stats", &all),
            Resolution::MethodNotAllowed {
                allowed: MethodSet::GET
            }
        );
        assert_eq!(
            routes.resolve(&Method::PUT, "/w/x", &all),
            Resolution::MethodNotAllowed {
                allowed: MethodSet::GET.union(MethodSet::DELETE)
            }
        );
    }

    #[test]
    fn bad_segments_and_paths_match_nothing() {
        let routes = table(&[
            ("GET", "/a/{x}", false),
            ("GET", "/a/{x}/b", false),
            ("GET", "/apis/", true),
            ("GET", "/apis/{g}/v1", true),
        ]);
        let get = |path: &str| found(routes, &Method::GET, path);
        for path in [
            "",
            "/",
            "a/x",
            "/a",
            "/a/",
            "/a//b",
            "/a/.",
            "/a/..",
            "/a/./b",
            "/a/x?y",
            "/a/x#y",
            "/a/x?/b",
            "/A/x",
            "/a/x/b/",
            "/a/x/c",
            "/apis//",
            "/apis/g/v1//",
        ] {
            assert!(get(path).is_none(), "{path:?}");
        }
        assert_eq!(get("/a/..."), Some((0, vec!["x=...".into()])));
        assert_eq!(get("/a/%2F/b"), Some((1, vec!["x=%2F".into()])));
        // Served with and without the trailing slash.
        assert_eq!(get("/apis/"), Some((2, vec![])));
        assert_eq!(get("/apis"), Some((2, vec![])));
        assert_eq!(get("/apis/g/v1"), Some((3, vec!["g=g".into()])));
        assert_eq!(get("/apis/g/v1/"), Some((3, vec!["g=g".into()])));
        let deep = "/a".repeat(100_000);
        assert!(get(deep.as_str()).is_none());
        let long = format!("/a/{}", "n".repeat(1 << 16));
        assert_eq!(get(long.as_str()).map(|(r, _)| r), Some(0));
    }

    #[test]
    fn a_wide_node_finds_each_child_and_leaves_the_rest_to_its_parameter() {
        let words: Vec<String> = (0..40)
            .map(|i| format!("{}{i}", "resourcename".get(..i % 13).unwrap_or("")))
            .collect();
        let mut routes: Vec<(&str, String, bool)> = words
            .iter()
            .map(|w| ("GET", format!("/g/{w}"), false))
            .collect();
        routes.push(("GET", "/g/{name}".to_owned(), false));
        let routes: Vec<(&str, &str, bool)> = routes
            .iter()
            .map(|(m, p, s)| (*m, p.as_str(), *s))
            .collect();
        let table = table(&routes);
        for (index, word) in words.iter().enumerate() {
            let path = format!("/g/{word}");
            assert_eq!(
                found(table, &Method::GET, &path),
                Some((index, vec![])),
                "{path}"
            );
            let near = format!("/g/{word}x");
            assert_eq!(
                found(table, &Method::GET, &near),
                Some((words.len(), vec![format!("name={word}x")])),
                "{near}"
            );
        }
        assert!(found(table, &Method::GET, "/g/").is_none());
    }

    #[test]
    fn an_edge_of_two_segments_goes_where_two_steps_go() {
        let routes = table(&[
            ("GET", "/api/v1", false),
            ("GET", "/api/v2/x", false),
            ("GET", "/{x}/v9", false),
            ("GET", "/b/v1", false),
            ("GET", "/b/{y}/z", false),
            ("GET", "/c/a-long-segment-of-bytes/d", false),
        ]);
        let get = |path: &str| found(routes, &Method::GET, path);
        assert_eq!(get("/api/v1"), Some((0, vec![])));
        assert_eq!(get("/api/v2/x"), Some((1, vec![])));
        // `api/v1` and `api/v2` lead nowhere here: `api` is the parameter's.
        assert_eq!(get("/api/v9"), Some((2, vec!["x=api".into()])));
        assert!(get("/api/v1/x").is_none());
        assert!(get("/api").is_none());
        // `b` has a parameter: no edge skips it, and its static branch gives way.
        assert_eq!(get("/b/v1"), Some((3, vec![])));
        assert_eq!(get("/b/v1/z"), Some((4, vec!["y=v1".into()])));
        assert_eq!(get("/c/a-long-segment-of-bytes/d"), Some((5, vec![])));
        assert!(get("/c/a-long-segment-of-bytez/d").is_none());
        assert!(get("/c/a-long-segmenX-of-bytes/d").is_none());
    }

    #[test]
    fn an_edge_matches_its_whole_segment_and_no_other() {
        let matches = |text: &'static str, path: &str, start: usize| {
            let bytes = path.as_bytes();
            Edge::of(text, 0).matches(bytes, start, word_at(bytes, start))
        };
        for (text, path, start, wanted) in [
            ("pods", "/pods", 1, true),
            ("pods", "/pods/x", 1, true),
            ("pods", "/podsx", 1, false),
            ("pods", "/pod", 1, false),
            ("pods", "/podx/x", 1, false),
            ("", "/", 1, true),
            ("", "//x", 1, true),
            ("", "/a", 1, false),
            ("abcdefgh", "/abcdefgh", 1, true),
            ("abcdefgh", "/abcdefgX", 1, false),
            ("abcdefghijklmno", "/abcdefgXijklmno/", 1, false),
            ("abcdefghijklmno", "/abcdefghijklmnX", 1, false),
            ("abcdefghijklmnopq", "/abcdefghXjklmnopq", 1, false),
            (
                "abcdefghijklmnopqrstuvwxyz",
                "/abcdefghijklmnopqrstuvwxyz",
                1,
                true,
            ),
            (
                "abcdefghijklmnopqrstuvwxyz",
                "/abcdefghijkXmnopqrstuvwxyz",
                1,
                false,
            ),
            (
                "abcdefghijklmnopqrstuvwxyz",
                "/abcdefghijklmnopqrstuvwxy",
                1,
                false,
            ),
            ("a-long-segment", "/x/a-long-segment/y", 3, true),
            ("a-long-segment", "/x/a-long-segmen", 3, false),
        ] {
            assert_eq!(
                matches(text, path, start),
                wanted,
                "{text:?} at {start} of {path:?}"
            );
        }
    }

    #[test]
    fn a_segment_ends_at_a_slash_and_a_parameter_has_no_question_mark_or_hash() {
        let end = |path: &str, start: usize| {
            let bytes = path.as_bytes();
            param_segment(bytes, start, word_at(bytes, start))
        };
        for (path, start, wanted) in [
            ("", 0, None),
            ("/", 1, None),
            ("/.", 1, None),
            ("/../", 1, None),
            ("/.../", 1, Some(4)),
            ("/a", 1, Some(2)),
            ("/a/b", 1, Some(2)),
            ("/abcdefgh", 1, Some(9)),
            ("/abcdefghijklmnopq/r", 1, Some(18)),
            ("/abcdefg/?", 1, Some(8)),
            ("/abcdefgh/#?", 1, Some(9)),
            ("/a/?", 1, Some(2)),
            ("/abcdefghijklmnopq", 1, Some(18)),
            ("/abcdefg/", 1, Some(8)),
            ("/abcdefgh/", 1, Some(9)),
            ("/abcdefghi?/", 1, None),
            ("/ab#", 1, None),
            ("/abcdefghijklmnop#q/", 1, None),
            ("/x/abcdefghijklmnopq?", 3, None),
            ("/\u{0}/", 1, Some(2)),
        ] {
            assert_eq!(end(path, start), wanted, "{path:?} from {start}");
        }
        // The first word is the segment's first bytes, zeros past the path's end.
        assert_eq!(word_at(b"/api", 1), u64::from_le_bytes(*b"api\0\0\0\0\0"));
        assert_eq!(
            word_at(b"/apis/app", 6),
            u64::from_le_bytes(*b"app\0\0\0\0\0")
        );
        assert_eq!(word_at(b"/api", 4), 0);
    }

    #[test]
    fn an_empty_table_finds_nothing() {
        let matcher = Matcher::new(&[], &[]);
        assert!(matcher.resolve(&Method::GET, "/", &[0]).is_not_found());
        let routes: &'static [RouteInfo] = &[];
        assert!(
            Matcher::new(routes, &[true])
                .resolve(&Method::GET, "", &[0])
                .is_not_found()
        );
    }
}
