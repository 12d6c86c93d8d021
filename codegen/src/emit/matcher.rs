//! The route matcher: a decision tree over the path, written out as code (text, in its final
//! shape: it is the largest regular part of the routes). The tree is a trie of every
//! operation's path template. The generated code walks the path with a cursor, the rest of
//! the path (empty, or starting at a `/`), and never splits it into segments first:
//!
//! - a run of static segments with one way on (`/api/v1`, `/namespaces`) is one prefix
//!   comparison against the path, followed by a check that a whole segment ended there;
//! - where many static segments branch, the first byte after the `/` picks the few that can
//!   match before any is compared;
//! - a parameter is the segment up to the next `/`, found with the check for `?` and `#` in
//!   the same pass, and kept in a local (`param0`, `param1`, …) until a leaf names them.
//!
//! The code is statements: a branch that finds a route (or a known path with another method)
//! returns; one that finds nothing falls through to what comes after it. Where a node has
//! both static children and a parameter, the static branch comes first and the parameter
//! branch after it, so static segments beat parameters, and a path that only the parameter
//! route serves still resolves. A leaf is one call of the runtime's `route::leaf` with the
//! routes served there as an array by value (no promoted constant); it finds the method's,
//! so a known path with an unknown method is `MethodNotAllowed` rather than `NotFound`.
//!
//! A subtree that serves many operations is its own private function, named after its path
//! prefix (`resolve_apis_apps_v1`), which takes the parameters found before it: one function
//! of 15,000 lines costs the compiler far more than the same lines in small functions.
//!
//! The generated code borrows slices of the path: a miss, or a hit, allocates nothing.

use std::collections::{BTreeMap, BTreeSet};

use super::Context;
use super::text::{Code, WIDTH, byte_char_literal, str_literal};
use crate::ground::naming::matcher_function_name;
use crate::model::operations::{Method, Operation, Segment};

#[derive(Default)]
struct Node<'a> {
    statics: BTreeMap<&'a str, Node<'a>>,
    param: Option<Box<Node<'a>>>,
    /// The operations whose path ends here, by method.
    leaf: BTreeMap<&'static str, &'a Operation>,
}

impl<'a> Node<'a> {
    fn insert(&mut self, segments: &[Segment<'a>], op: &'a Operation, method: Method) {
        match segments.split_first() {
            None => {
                self.leaf.insert(method.as_str(), op);
            }
            Some((Segment::Static(text), rest)) => {
                self.statics
                    .entry(text)
                    .or_default()
                    .insert(rest, op, method);
            }
            Some((Segment::Param(_), rest)) => {
                self.param
                    .get_or_insert_with(Box::default)
                    .insert(rest, op, method);
            }
        }
    }

    /// The number of `(method, path)` pairs served in this subtree.
    fn size(&self) -> usize {
        self.leaf.len()
            + self.statics.values().map(Node::size).sum::<usize>()
            + self.param.as_ref().map_or(0, |param| param.size())
    }
}

/// Static children at a node from which on the first byte after the `/` is matched before
/// any child is compared (below it, comparing each in turn costs less than the dispatch).
const BYTE_DISPATCH_FROM: usize = 5;

/// The `(method, path)` pairs a subtree serves from which on it is its own function.
const FUNCTION_FROM: usize = 24;

/// A subtree to be written as its own function.
struct Function<'n, 'a> {
    name: String,
    /// The path prefix the subtree is under, parameters written `{}`.
    prefix: String,
    node: &'n Node<'a>,
    /// The parameters found before it, passed as `param0`, `param1`, ….
    params: usize,
}

/// What the functions written so far use from the runtime.
#[derive(Default)]
struct Uses {
    strip_segments: bool,
    param_segment: bool,
    leaf: bool,
}

struct Writer<'n, 'a> {
    /// Functions still to write, in the order they were found.
    pending: Vec<Function<'n, 'a>>,
    names: BTreeSet<String>,
    uses: Uses,
    /// The constant of each list of path parameters' names a route has.
    param_names: BTreeMap<Vec<&'a str>, String>,
}

/// The constants of the lists of path parameters' names the operations have, each named
/// after its names (`NAMES_NAMESPACE_NAME`; `NO_NAMES`), so a leaf refers to one by value
/// instead of borrowing an array (a promoted constant, a MIR body of its own, at every leaf).
/// Two lists whose names spell the same identifier are told apart by a number, in the
/// lists' order.
fn param_names<'a>(
    lists: impl IntoIterator<Item = Vec<&'a str>>,
) -> BTreeMap<Vec<&'a str>, String> {
    let lists: BTreeSet<Vec<&str>> = lists.into_iter().collect();
    let mut taken = BTreeSet::new();
    let mut idents = BTreeMap::new();
    for list in lists {
        let base = if list.is_empty() {
            "NO_NAMES".to_owned()
        } else {
            let words: Vec<String> = list
                .iter()
                .map(|name| {
                    name.chars()
                        .map(|c| {
                            if c.is_ascii_alphanumeric() {
                                c.to_ascii_uppercase()
                            } else {
                                '_'
                            }
                        })
                        .collect()
                })
                .collect();
            format!("NAMES_{}", words.join("_"))
        };
        let mut ident = base.clone();
        let mut number = 2;
        while !taken.insert(ident.clone()) {
            ident = format!("{base}_{number}");
            number += 1;
        }
        idents.insert(list, ident);
    }
    idents
}

/// The `resolve` function and the functions it calls.
pub(crate) fn matcher(context: &Context<'_>) -> String {
    let mut root = Node::default();
    for op in &context.api.operations {
        root.insert(&op.path.segments(), op, op.method);
        if op.slash_optional {
            root.insert(&op.path.segments_slash_toggled(), op, op.method);
        }
    }
    let mut writer = Writer {
        pending: Vec::new(),
        names: BTreeSet::from(["resolve".to_owned()]),
        uses: Uses::default(),
        param_names: param_names(
            context
                .api
                .operations
                .iter()
                .map(|op| op.path_params.iter().map(|p| p.name.as_str()).collect()),
        ),
    };
    let mut items = Code::new();
    if context.docs {
        items.docs([
            "Resolves a request's method and path to a route and its path parameters.",
            "",
            "`path` is the path without the query string, as `uri.path()` gives it. Matching",
            "is exact and case-sensitive; static segments beat parameters; a parameter is one",
            "non-empty segment, kept percent-encoded (an encoded `/` stays inside it; decode",
            "with `PathParams::decoded`). The discovery paths (`/api`, `/apis`, a group's, a",
            "group-version's) match with and without their trailing slash, as the API server",
            "serves them; elsewhere a trailing slash, an empty segment, a `.` or `..`",
            "parameter, or a `?` or `#` in the path never match. A known path with another",
            "method gives `MethodNotAllowed` with the methods it serves. Resolving allocates",
            "nothing.",
        ]);
    }
    items.line("#[must_use]");
    let mut body = Code::new();
    body.deeper();
    body.line("let rest = path;");
    writer.node(&mut body, &root, "", 0, false);
    body.line("Resolution::NotFound");
    function_text(
        &mut items,
        "pub fn resolve<'p>(",
        &["method: &Method", "path: &'p str"],
        &body.finish(),
    );
    let mut next = 0;
    while let Some(function) = writer.pending.get(next) {
        let (name, prefix, node, params) = (
            function.name.clone(),
            function.prefix.clone(),
            function.node,
            function.params,
        );
        next += 1;
        items.blank();
        if context.docs {
            items.docs([format!("[`resolve`] for the paths under `{prefix}`.").as_str()]);
        }
        let mut body = Code::new();
        body.deeper();
        writer.node(&mut body, node, &prefix, params, false);
        body.line("Resolution::NotFound");
        let mut arguments = vec!["method: &Method".to_owned(), "rest: &'p str".to_owned()];
        arguments.extend((0..params).map(|i| format!("param{i}: &'p str")));
        let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
        function_text(
            &mut items,
            &format!("fn {name}<'p>("),
            &arguments,
            &body.finish(),
        );
    }

    let runtime = &context.runtime;
    let mut out = Code::new();
    out.line(&format!("use {runtime}::http::Method;"));
    if writer.uses.param_segment {
        out.line(&format!("use {runtime}::route::param_segment;"));
    }
    if writer.uses.strip_segments {
        out.line(&format!("use {runtime}::route::strip_segments;"));
    }
    if writer.uses.leaf {
        out.line(&format!("use {runtime}::route::leaf;"));
    }
    out.line(&format!("use {runtime}::{{MethodSet, Resolution}};"));
    out.line("use super::Route;");
    out.blank();
    if writer.uses.leaf {
        for (list, ident) in &writer.param_names {
            let names: Vec<String> = list.iter().map(|name| str_literal(name)).collect();
            out.line(&format!(
                "const {ident}: &[&str] = &[{}];",
                names.join(", ")
            ));
        }
        out.blank();
    }
    let mut text = out.finish();
    text.push_str(&items.finish());
    text
}

/// A function with its signature and lint allowances; `body` is written one level deep.
fn function_text(code: &mut Code, head: &str, arguments: &[&str], body: &str) {
    // Inline, so that rustc keeps the matcher's MIR in the metadata and compiles it to machine
    // code only in a crate that matches paths (docs/src/design/decisions.md).
    code.line("#[inline]");
    // Nested `if let`s cannot be collapsed in crates of editions before 2024.
    code.line("#[allow(clippy::collapsible_if)]");
    if body.lines().count() > 90 {
        code.line("#[allow(clippy::too_many_lines)]");
    }
    code.list(head, arguments, ") -> Resolution<'p, Route> {", "");
    code.raw(body);
    code.line("}");
}

impl<'n, 'a> Writer<'n, 'a> {
    /// The statements that resolve `rest` at `node`, under `prefix`, after `params`
    /// parameters: each that finds a route returns, and they fall through when none does.
    /// `fallback`: whether something after them is tried when they find nothing.
    fn node(
        &mut self,
        code: &mut Code,
        node: &'n Node<'a>,
        prefix: &str,
        params: usize,
        fallback: bool,
    ) {
        if !node.leaf.is_empty() {
            code.open("if rest.is_empty() {");
            self.leaf(code, node, params);
            code.close("}");
        }
        let fallback = fallback || node.param.is_some();
        self.statics(code, node, prefix, params, fallback);
        if let Some(param) = &node.param {
            self.uses.param_segment = true;
            code.open(&format!(
                "if let Some((param{params}, rest)) = param_segment(rest) {{"
            ));
            self.child(code, param, &format!("{prefix}/{{}}"), params + 1, fallback);
            code.close("}");
        }
    }

    /// The statements for the static children of `node`: each one a prefix (a run of static
    /// segments with one way on), compared whole; at a wide node, only those whose first
    /// byte matches.
    fn statics(
        &mut self,
        code: &mut Code,
        node: &'n Node<'a>,
        prefix: &str,
        params: usize,
        fallback: bool,
    ) {
        let runs: Vec<(String, &'n Node<'a>)> = node
            .statics
            .iter()
            .map(|(text, child)| run(text, child))
            .collect();
        if runs.is_empty() {
            return;
        }
        if runs.len() < BYTE_DISPATCH_FROM {
            self.chain(code, &runs, prefix, params, fallback);
            return;
        }
        // By the first byte after the `/`; the empty segment has none (its run is `/`, or
        // `//…`).
        let mut by_byte: BTreeMap<Option<u8>, Vec<(String, &'n Node<'a>)>> = BTreeMap::new();
        for (run, child) in runs {
            let first = run.as_bytes().get(1).copied().filter(|b| *b != b'/');
            by_byte.entry(first).or_default().push((run, child));
        }
        code.open("match rest.as_bytes().get(1) {");
        for (byte, runs) in &by_byte {
            let pattern = match byte {
                Some(byte) => format!("Some({})", byte_char_literal(*byte)),
                None => "None | Some(b'/')".to_owned(),
            };
            code.open(&format!("{pattern} => {{"));
            self.chain(code, runs, prefix, params, fallback);
            code.close("}");
        }
        code.line("_ => {}");
        code.close("}");
    }

    /// Each prefix tried in turn; at most one can match, since each ends at a whole segment
    /// and the first segments differ.
    fn chain(
        &mut self,
        code: &mut Code,
        runs: &[(String, &'n Node<'a>)],
        prefix: &str,
        params: usize,
        fallback: bool,
    ) {
        self.uses.strip_segments = true;
        for (index, (run, child)) in runs.iter().enumerate() {
            let literal = str_literal(run);
            let head = if index == 0 {
                "if let Some(rest) = strip_segments("
            } else {
                code.shallower();
                "} else if let Some(rest) = strip_segments("
            };
            code.list(head, &["rest", &literal], ") {", "");
            code.deeper();
            self.child(code, child, &format!("{prefix}{run}"), params, fallback);
        }
        code.close("}");
    }

    /// The statements that resolve `rest` at `child`, under `prefix`: the child's own, or a
    /// call of its function when it serves many operations.
    fn child(
        &mut self,
        code: &mut Code,
        child: &'n Node<'a>,
        prefix: &str,
        params: usize,
        fallback: bool,
    ) {
        if child.size() < FUNCTION_FROM {
            self.node(code, child, prefix, params, fallback);
            return;
        }
        let mut name = matcher_function_name(prefix, false);
        if self.names.contains(&name) {
            name = matcher_function_name(prefix, true);
        }
        self.names.insert(name.clone());
        let mut arguments = vec!["method".to_owned(), "rest".to_owned()];
        arguments.extend((0..params).map(|i| format!("param{i}")));
        let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
        if fallback {
            code.list(&format!("let found = {name}("), &arguments, ")", ";");
            code.open("if !found.is_not_found() {");
            code.line("return found;");
            code.close("}");
        } else {
            code.list(&format!("return {name}("), &arguments, ")", ";");
        }
        self.pending.push(Function {
            name,
            prefix: prefix.to_owned(),
            node: child,
            params,
        });
    }

    /// The method dispatch at the end of a path, after `params` parameters: one call of the
    /// runtime's `leaf` with the routes served there as an array by value (their methods,
    /// variants and the constants of their parameters' names), so that a leaf is one
    /// statement whatever its methods, and no promoted constant.
    fn leaf(&mut self, code: &mut Code, node: &Node<'a>, params: usize) {
        self.uses.leaf = true;
        let routes: Vec<String> = node
            .leaf
            .iter()
            .map(|(method, op)| {
                let names: Vec<&str> = op.path_params.iter().map(|p| p.name.as_str()).collect();
                let names = self
                    .param_names
                    .get(&names)
                    .map_or("NO_NAMES", String::as_str);
                format!(
                    "(MethodSet::{method}, Route::{}, {names})",
                    op.names.variant
                )
            })
            .collect();
        let values: Vec<String> = (0..params).map(|i| format!("param{i}")).collect();
        let values = format!("[{}]", values.join(", "));
        let routes_text = format!("[{}]", routes.join(", "));
        let one_line = format!("return leaf(method, {routes_text}, {values});");
        if code.indent_width() + one_line.len() <= WIDTH {
            code.line(&one_line);
            return;
        }
        code.open("return leaf(");
        code.line("method,");
        let routes: Vec<&str> = routes.iter().map(String::as_str).collect();
        code.list("[", &routes, "]", ",");
        code.line(&format!("{values},"));
        code.close(");");
    }
}

/// The prefix for the static segment `text` and the segments after it with one way on
/// (no leaf, no parameter, one static child), and the node where the run ends.
fn run<'n, 'a>(text: &str, mut child: &'n Node<'a>) -> (String, &'n Node<'a>) {
    let mut prefix = format!("/{text}");
    while child.leaf.is_empty() && child.param.is_none() && child.statics.len() == 1 {
        let Some((next, grandchild)) = child.statics.iter().next() else {
            break;
        };
        prefix.push('/');
        prefix.push_str(next);
        child = grandchild;
    }
    (prefix, child)
}

#[cfg(test)]
mod tests {
    use super::param_names;

    #[test]
    fn names_constants_are_distinct_identifiers_named_after_their_names() {
        let names = param_names([
            vec!["namespace", "name"],
            vec![],
            vec!["a-b"],
            vec!["a_b"],
            vec!["a.b"],
            vec!["namespace", "name"],
        ]);
        let idents: Vec<&str> = names.values().map(String::as_str).collect();
        // Lists in order: [], ["a-b"], ["a.b"], ["a_b"], ["namespace", "name"].
        assert_eq!(
            idents,
            [
                "NO_NAMES",
                "NAMES_A_B",
                "NAMES_A_B_2",
                "NAMES_A_B_3",
                "NAMES_NAMESPACE_NAME"
            ]
        );
    }
}
