//! The route matcher: a trie of a [`RouteTable`](super::RouteTable)'s path templates, built
//! from the table's routes the first time a path is resolved, and walked one segment at a
//! time.
//!
//! A generated crate's `resolve` is a decision tree written out as code (7,704 lines and 40
//! functions for Kubernetes 1.36), which rustc type-checks, borrow-checks and keeps in the
//! crate's metadata in every clean build. This is the same tree as data, which costs a build
//! nothing; a process pays for building it once. Generated crates do not call it yet: it
//! resolves slower than the generated tree (docs/src/design/decisions.md).
//!
//! The rules are the generated tree's (the generated `resolve` documents them): matching is
//! exact and case-sensitive; a static segment beats a parameter, and the parameter gets its
//! turn when the static branch finds no path; a parameter is one segment, not empty, `.` or
//! `..`, kept percent-encoded; a `?` or `#` in a segment matches nothing; a route the table
//! marks `slash_optional` is served with its trailing slash and without; a path with routes
//! but none for the method is `MethodNotAllowed` with the methods it has.
//!
//! The trie is flat arrays. A node's static children are found by a key that holds the
//! segment's length and its first seven bytes (compared as one `u64`, the rest of a longer
//! segment compared after): a scan of the node's few keys, or, at a wide node (`/api/v1/`
//! and `/apis/` have dozens of children), a probe of one hash table of the wide nodes'
//! children; a node has at most one parameter child; a leaf is the routes that end there,
//! one per method. Walking allocates nothing: parameter values are slices of the path in a
//! fixed array.

use std::collections::BTreeMap;

use http::Method;

use super::{MAX_PATH_PARAMS, MethodSet, Resolution, RouteInfo, find_segment_end};

/// No node: a node without a parameter child.
const NONE: u32 = u32::MAX;

/// The routes of a table as a trie; see the module's documentation.
#[derive(Debug, Default)]
pub(crate) struct Matcher {
    nodes: Vec<Node>,
    /// The keys of the nodes' static children ([`key`]), each node's a contiguous run.
    keys: Vec<u64>,
    /// Beside each key: the segment's text and the child node.
    edges: Vec<(&'static str, u32)>,
    /// The routes ending at each node, a contiguous run per node: each route's method, its
    /// index in the table, and its parameters' names.
    leaves: Vec<(MethodSet, usize, &'static [&'static str])>,
    /// The static children of the wide nodes (more than [`SCANNED`]) by their key and node
    /// ([`slot`]), open addressing: an index into `keys` and `edges` plus one, 0 for none.
    /// Its length is a power of two, at least twice the number of children it holds.
    slots: Vec<u32>,
}

/// The most static children a node has that are found by scanning their keys; a node with
/// more is found in `slots`.
const SCANNED: u32 = 8;

#[derive(Clone, Copy, Debug)]
struct Node {
    /// The first of the node's static children in `keys` and `edges`, and how many.
    statics: u32,
    statics_len: u32,
    /// The parameter child, or [`NONE`].
    param: u32,
    /// The first of the node's routes in `leaves`, and how many (none: no path ends here).
    leaf: u32,
    leaf_len: u32,
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

    /// Fills `slots` with the static children of the nodes that have more than [`SCANNED`].
    fn hash_wide_nodes(&mut self) {
        let wide: usize = self
            .nodes
            .iter()
            .filter(|n| n.statics_len > SCANNED)
            .map(|n| n.statics_len as usize)
            .sum();
        if wide == 0 {
            return;
        }
        self.slots = vec![0; (2 * wide).next_power_of_two()];
        let mask = self.slots.len() - 1;
        for (index, node) in self.nodes.iter().enumerate() {
            if node.statics_len <= SCANNED {
                continue;
            }
            let start = node.statics as usize;
            for edge in start..start + node.statics_len as usize {
                let Some(&key) = self.keys.get(edge) else {
                    continue;
                };
                let mut at = slot(key, index_u32(index), mask);
                while self.slots.get(at).is_some_and(|&taken| taken != 0) {
                    at = (at + 1) & mask;
                }
                if let Some(free) = self.slots.get_mut(at) {
                    *free = index_u32(edge + 1);
                }
            }
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
        });
        for &(ref method, route, names) in &node.leaf {
            self.leaves.push((MethodSet::of(method), route, names));
        }
        // The children's keys first, contiguous; then their subtrees.
        let statics = self.keys.len();
        for &text in node.statics.keys() {
            self.keys.push(key(text.as_bytes(), text.len()));
            self.edges.push((text, NONE));
        }
        for (offset, child) in node.statics.values().enumerate() {
            let child = self.flatten(child);
            if let Some(edge) = self.edges.get_mut(statics + offset) {
                edge.1 = child;
            }
        }
        let param = node
            .param
            .as_ref()
            .map_or(NONE, |child| self.flatten(child));
        if let Some(this) = self.nodes.get_mut(index) {
            this.statics = index_u32(statics);
            this.statics_len = index_u32(node.statics.len());
            this.param = param;
        }
        index_u32(index)
    }

    /// The route of `method` at `path` with its raw parameters, `MethodNotAllowed` with the
    /// methods served there, or `NotFound`; the route is its index in the table.
    #[inline]
    pub(crate) fn resolve<'p>(&self, method: &Method, path: &'p str) -> Resolution<'p, usize> {
        let mut values = [""; MAX_PATH_PARAMS];
        let Some((node, count)) = self.walk(0, path, &mut values, 0) else {
            return Resolution::NotFound;
        };
        let Some(node) = self.nodes.get(node as usize) else {
            return Resolution::NotFound;
        };
        let start = node.leaf as usize;
        let routes = self
            .leaves
            .get(start..start + node.leaf_len as usize)
            .unwrap_or_default();
        super::leaf(method, routes, values.get(..count).unwrap_or(&values[..]))
    }

    /// The node where `rest` ends, walked from `node` after `count` parameters, and the
    /// number of parameters then: the first path found, static segments tried before the
    /// parameter at each node. `None` when no path of the table matches.
    fn walk<'p>(
        &self,
        mut node: u32,
        mut rest: &'p str,
        values: &mut [&'p str; MAX_PATH_PARAMS],
        mut count: usize,
    ) -> Option<(u32, usize)> {
        loop {
            let here = self.nodes.get(node as usize)?;
            let Some(after) = rest.strip_prefix('/') else {
                // The end of the path, or a path that does not start with `/`.
                return (rest.is_empty() && here.leaf_len > 0).then_some((node, count));
            };
            // The segment; one with a `?` or `#` matches no static segment (templates have
            // none) and no parameter.
            let (segment, tail) = match find_segment_end(after.as_bytes())? {
                Some(end) => after.split_at(end),
                None => (after, ""),
            };
            // Static segments beat parameters: the parameter gets its turn only when the
            // static branch finds no path.
            if let Some(child) = self.static_child(node, here, after.as_bytes(), segment) {
                if here.param == NONE {
                    node = child;
                    rest = tail;
                    continue;
                }
                if let Some(found) = self.walk(child, tail, values, count) {
                    return Some(found);
                }
            }
            if here.param == NONE || segment.is_empty() || segment == "." || segment == ".." {
                return None;
            }
            if let Some(slot) = values.get_mut(count) {
                *slot = segment;
                count += 1;
            }
            node = here.param;
            rest = tail;
        }
    }

    /// The static child of `node` (`index`) for `segment`, which starts `after`.
    #[inline]
    fn static_child(&self, index: u32, node: &Node, after: &[u8], segment: &str) -> Option<u32> {
        let start = node.statics as usize;
        let end = start + node.statics_len as usize;
        let wanted = key(after, segment.len());
        // The key holds the length and the first seven bytes.
        let is = |edge: usize| {
            self.edges.get(edge).and_then(|&(text, child)| {
                (segment.len() <= 7 || text.as_bytes().get(7..) == segment.as_bytes().get(7..))
                    .then_some(child)
            })
        };
        if node.statics_len > SCANNED {
            let mask = self.slots.len().wrapping_sub(1);
            let mut at = slot(wanted, index, mask);
            loop {
                let edge = (*self.slots.get(at)? as usize).checked_sub(1)?;
                if (start..end).contains(&edge)
                    && self.keys.get(edge) == Some(&wanted)
                    && let Some(child) = is(edge)
                {
                    return Some(child);
                }
                at = (at + 1) & mask;
            }
        }
        let keys = self.keys.get(start..end)?;
        for (offset, &known) in keys.iter().enumerate() {
            if known == wanted
                && let Some(child) = is(start + offset)
            {
                return Some(child);
            }
        }
        None
    }
}

/// The slot of `slots` where the search for the child of key `key` at node `node` starts.
#[inline]
fn slot(key: u64, node: u32, mask: usize) -> usize {
    let hash = (key ^ u64::from(node).rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (hash >> 32) as usize & mask
}

/// The key of the segment of `len` bytes at the start of `bytes`: its length (at most 255)
/// in the top byte, its first seven bytes below. Two segments of different keys differ;
/// of the same key, they differ only after their seventh byte.
#[inline]
fn key(bytes: &[u8], len: usize) -> u64 {
    let word = match bytes.first_chunk::<8>() {
        Some(word) => u64::from_le_bytes(*word),
        None => {
            let mut word = [0; 8];
            for (to, from) in word.iter_mut().zip(bytes) {
                *to = *from;
            }
            u64::from_le_bytes(word)
        }
    };
    let kept = len.min(7) * 8;
    let mask = (1_u64 << kept) - 1;
    let len = u64::try_from(len.min(255)).unwrap_or(255);
    (word & mask) | (len << 56)
}

/// An index into the trie's arrays; a table has far fewer than `u32::MAX` routes.
fn index_u32(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(NONE)
}

#[cfg(test)]
mod tests {
    use super::{Matcher, key};
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
    fn keys_tell_segments_apart_by_length_and_first_bytes() {
        assert_ne!(key(b"pods", 4), key(b"podsx", 5));
        assert_ne!(key(b"pods/x", 4), key(b"podx/x", 4));
        assert_eq!(key(b"pods/x", 4), key(b"pods", 4));
        assert_eq!(key(b"abcdefgh", 8), key(b"abcdefgX", 8));
        assert_ne!(key(b"", 0), key(b"a", 1));
    }

    #[test]
    fn an_empty_table_finds_nothing() {
        let matcher = Matcher::new(&[], &[]);
        assert!(matcher.resolve(&Method::GET, "/").is_not_found());
        let routes: &'static [RouteInfo] = &[];
        assert!(
            Matcher::new(routes, &[true])
                .resolve(&Method::GET, "")
                .is_not_found()
        );
    }
}
