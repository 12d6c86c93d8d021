//! The import graph of a crate's sources, read as rustc resolves paths, for the tests that
//! keep a crate's shape: `codegen/tests/stages.rs` (the generator's stages and no circle
//! between its modules), `runtime/tests/modules.rs` (no circle in the runtime) and the
//! server's layers.
//!
//! Every path that names a module of the crate (`crate::…`, `super::…`, `self::…`, or a
//! child module declared in the file) is an edge from the file to the file of that module.
//! A name a module re-exports (`pub use node::Node;` in `schema/mod.rs`) counts as the
//! module it comes from, and a re-export itself is no edge: a facade is not a dependency.
//! Comments and string literals are not code (generators spell `crate::…` paths in text),
//! and `#[cfg(test)]` items, with the files declared only under them (`mod tests;`), are
//! left out: tests may use anything.
//!
//! Use: `Sources::read(&src).edges()` lists the imports (for layers: map each module to its
//! layer and refuse an edge that runs up); [`crate_circles`] finds the circles.
//! The generator's and the server's tests use it as `kubeforge_tests::imports`; the
//! runtime's include this file by path (`#[path]`), since a dev-dependency on this crate
//! would build the generator and the generated API for them.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A module's path below the crate root (`["emit", "routes"]`; the root is `[]`).
pub type ModulePath = Vec<String>;

/// One import: the file's module, the module it names, where.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    pub from: ModulePath,
    pub to: ModulePath,
    /// The file, relative to `src/`, and the line of the reference.
    pub file: PathBuf,
    pub line: usize,
}

/// A crate's sources: every module file's code (comments, strings and tests blanked).
pub struct Sources {
    pub root: PathBuf,
    /// Module path → (file relative to `root`, code).
    pub modules: BTreeMap<ModulePath, (PathBuf, String)>,
    /// Module path → what it re-exports: name → the absolute path it re-exports.
    reexports: BTreeMap<ModulePath, BTreeMap<String, ModulePath>>,
}

impl Sources {
    /// Reads every `.rs` file below `src` (a binary under `bin/` counts as the root's).
    pub fn read(src: &Path) -> Sources {
        let mut files = Vec::new();
        rust_files(src, &mut files);
        let mut modules = BTreeMap::new();
        for file in files {
            let relative = file.strip_prefix(src).expect("below src").to_path_buf();
            if relative.starts_with("bin") {
                continue;
            }
            let text = fs::read_to_string(&file).expect("readable source");
            modules.insert(module_path(&relative), (relative, code_only(&text)));
        }
        // A file its parent declares only under `#[cfg(test)]` (`mod tests;`) is a test.
        let declared: BTreeSet<ModulePath> = modules
            .iter()
            .flat_map(|(path, (_, code))| {
                children(code).into_iter().map(move |child| {
                    let mut child_path = path.clone();
                    child_path.push(child);
                    child_path
                })
            })
            .collect();
        let reachable = |path: &ModulePath| (1..=path.len()).all(|n| declared.contains(&path[..n]));
        modules.retain(|path, _| reachable(path));
        let reexports = modules
            .iter()
            .map(|(path, (_, code))| (path.clone(), reexports(path, code)))
            .collect();
        Sources {
            root: src.to_path_buf(),
            modules,
            reexports,
        }
    }

    /// Every import between two module files, once per line.
    pub fn edges(&self) -> Vec<Edge> {
        let mut edges = Vec::new();
        for (module, (file, code)) in &self.modules {
            for (line, path) in paths(code, module) {
                let Some(target) = self.resolve(&path, 0) else {
                    continue;
                };
                if &target != module {
                    edges.push(Edge {
                        from: module.clone(),
                        to: target,
                        file: file.clone(),
                        line,
                    });
                }
            }
        }
        edges.sort();
        edges.dedup();
        edges
    }

    /// The module file an absolute path names: the longest prefix that is a module,
    /// followed through the re-exports of that module.
    pub fn resolve(&self, path: &[String], depth: usize) -> Option<ModulePath> {
        let length = (0..=path.len())
            .rev()
            .find(|&n| self.modules.contains_key(&path[..n]))?;
        let module = path[..length].to_vec();
        if depth < 8
            && let Some(name) = path.get(length)
            && let Some(source) = self.reexports.get(&module).and_then(|r| r.get(name))
        {
            let mut further = source.clone();
            further.extend_from_slice(&path[length + 1..]);
            if let Some(found) = self.resolve(&further, depth + 1) {
                return Some(found);
            }
        }
        Some(module)
    }
}

/// What a module re-exports, by name: the absolute path of what it re-exports.
fn reexports(module: &ModulePath, code: &str) -> BTreeMap<String, ModulePath> {
    let mut map = BTreeMap::new();
    let children = children(code);
    for statement in use_statements(code) {
        if !statement.public {
            continue;
        }
        for tree in expand(&statement.tree) {
            let Some(absolute) = absolute(&tree, module, &children) else {
                continue;
            };
            let name = tree.alias.clone().or_else(|| absolute.last().cloned());
            if let Some(name) = name {
                map.insert(name, absolute);
            }
        }
    }
    map
}

/// The circles of a graph: its strongly connected components of more than one node, each
/// sorted, in order (Tarjan's algorithm).
pub fn circles<N: Ord + Clone>(edges: &[(N, N)]) -> Vec<Vec<N>> {
    let nodes: BTreeSet<N> = edges
        .iter()
        .flat_map(|(a, b)| [a.clone(), b.clone()])
        .collect();
    let nodes: Vec<N> = nodes.into_iter().collect();
    let index_of = |n: &N| nodes.binary_search(n).expect("a node");
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (a, b) in edges {
        next[index_of(a)].push(index_of(b));
    }
    struct State {
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        found: Vec<Vec<usize>>,
    }
    fn visit(v: usize, next: &[Vec<usize>], s: &mut State) {
        s.index[v] = Some(s.counter);
        s.low[v] = s.counter;
        s.counter += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &next[v] {
            match s.index[w] {
                None => {
                    visit(w, next, s);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        index: vec![None; nodes.len()],
        low: vec![0; nodes.len()],
        on_stack: vec![false; nodes.len()],
        stack: Vec::new(),
        counter: 0,
        found: Vec::new(),
    };
    for v in 0..nodes.len() {
        if state.index[v].is_none() {
            visit(v, &next, &mut state);
        }
    }
    let mut found: Vec<Vec<N>> = state
        .found
        .into_iter()
        .map(|c| {
            let mut c: Vec<N> = c.into_iter().map(|i| nodes[i].clone()).collect();
            c.sort();
            c
        })
        .collect();
    found.sort();
    found
}

/// The circles of a crate: in each folder, modules (files and subfolders) that import each
/// other, directly or through others, over any of their files. A module and its own
/// children are one unit, not a circle: the parent declares them, they use what it defines
/// (`super::Ir`), it uses what they do. So a circle of files that runs through no parent is
/// a circle of siblings at some level. Each is written with the imports that close it.
pub fn crate_circles(edges: &[Edge]) -> Vec<String> {
    let mut levels: BTreeMap<ModulePath, Vec<(String, String)>> = BTreeMap::new();
    for edge in edges {
        // The first segment where the two paths part, below their common folder; none when
        // one is the other's ancestor.
        let common = edge
            .from
            .iter()
            .zip(&edge.to)
            .take_while(|(a, b)| a == b)
            .count();
        if let (Some(a), Some(b)) = (edge.from.get(common), edge.to.get(common)) {
            levels
                .entry(edge.from[..common].to_vec())
                .or_default()
                .push((a.clone(), b.clone()));
        }
    }
    let mut found = Vec::new();
    for (folder, level) in &levels {
        for circle in circles(level) {
            let under = |path: &ModulePath| {
                path.starts_with(folder)
                    && path
                        .get(folder.len())
                        .is_some_and(|segment| circle.contains(segment))
            };
            let sibling = |e: &Edge| {
                under(&e.from) && under(&e.to) && e.from.get(folder.len()) != e.to.get(folder.len())
            };
            found.push(format!(
                "modules {{{}}} of {}:\n{}",
                circle.join(", "),
                name(folder),
                closing(edges, sibling)
            ));
        }
    }
    found
}

fn closing(edges: &[Edge], keep: impl Fn(&Edge) -> bool) -> String {
    let mut lines: Vec<String> = edges
        .iter()
        .filter(|e| keep(e))
        .map(|e| {
            format!(
                "  {}:{}: {} → {}",
                e.file.display(),
                e.line,
                name(&e.from),
                name(&e.to)
            )
        })
        .collect();
    lines.dedup();
    lines.join("\n")
}

/// A module path as written (`emit::routes`, `crate` for the root).
pub fn name(path: &[String]) -> String {
    if path.is_empty() {
        "crate".to_owned()
    } else {
        path.join("::")
    }
}

/// Every `.rs` file below `dir`, sorted.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("src is readable")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file below `src/` (`load/select.rs` → `["load", "select"]`,
/// `emit/routes/mod.rs` → `["emit", "routes"]`, `lib.rs` → `[]`, `bin/x.rs` → `[]`).
pub fn module_path(relative: &Path) -> ModulePath {
    let mut segments: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if segments.first().is_some_and(|s| s == "bin") {
        return Vec::new();
    }
    if segments
        .last()
        .is_some_and(|s| s == "mod" || s == "lib" || s == "main")
    {
        segments.pop();
    }
    segments
}

/// The paths a file's code names, made absolute (`super::x::Y` in `a::b` → `["a", "x",
/// "Y"]`), with their lines; paths into other crates are left out. Re-exports (`pub use`)
/// are not among them.
pub fn paths(code: &str, module: &[String]) -> Vec<(usize, ModulePath)> {
    let children = children(code);
    let mut found = Vec::new();
    let mut rest_of_code = code.to_owned();
    for statement in use_statements(code) {
        // Blank the statement so the scan below does not read it twice.
        let blanked: String = rest_of_code[statement.span.clone()]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        rest_of_code.replace_range(statement.span.clone(), &blanked);
        if statement.public {
            continue;
        }
        for tree in expand(&statement.tree) {
            if let Some(path) = absolute(&tree, module, &children) {
                found.push((statement.line, path));
            }
        }
    }
    for (number, line) in rest_of_code.lines().enumerate() {
        let mut at = 0;
        while at < line.len() {
            let tail = &line[at..];
            let before = line[..at].chars().next_back();
            let word_start = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':'));
            if word_start && tail.starts_with(|c: char| c.is_ascii_alphabetic()) {
                let segments: Vec<String> = path_segments(tail);
                if segments.len() > 1 {
                    let tree = Tree {
                        segments: segments.clone(),
                        alias: None,
                    };
                    if let Some(path) = absolute(&tree, module, &children) {
                        found.push((number + 1, path));
                    }
                    at += segments.iter().map(|s| s.len() + 2).sum::<usize>() - 2;
                    continue;
                }
            }
            at += tail.chars().next().map_or(1, char::len_utf8);
        }
    }
    found.sort();
    found
}

/// The segments of the path at the start of `text` (`crate::a::B::<T>` → crate, a, B).
fn path_segments(text: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut rest = text;
    loop {
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        segments.push(rest[..end].to_owned());
        match rest[end..].strip_prefix("::") {
            Some(more) => rest = more,
            None => break,
        }
    }
    segments
}

/// A path of a use tree, expanded (`use a::{b, c::D as E}` → `a::b`, `a::c::D` as `E`).
#[derive(Clone, Debug)]
struct Tree {
    segments: Vec<String>,
    alias: Option<String>,
}

/// `tree` as an absolute module path, if it names this crate.
fn absolute(tree: &Tree, module: &[String], children: &BTreeSet<String>) -> Option<ModulePath> {
    let segments = &tree.segments;
    let first = segments.first()?;
    let mut path: ModulePath = match first.as_str() {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => {
            let depth = segments.iter().take_while(|s| *s == "super").count();
            if depth > module.len() {
                return None;
            }
            let mut path = module[..module.len() - depth].to_vec();
            path.extend(segments[depth..].iter().cloned());
            return Some(path);
        }
        name if children.contains(name) => {
            let mut path = module.to_vec();
            path.push(name.to_owned());
            path
        }
        _ => return None,
    };
    path.extend(segments[1..].iter().cloned());
    Some(path)
}

/// The modules a file declares (`mod x;`, `pub(crate) mod y;`).
fn children(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for statement in without_attributes(code).split([';', '{', '}']) {
        let words: Vec<&str> = statement.split_whitespace().collect();
        if let Some(at) = words.iter().position(|w| *w == "mod")
            && at + 2 == words.len()
            && words[..at].iter().all(|w| w.starts_with("pub"))
        {
            found.insert(words[at + 1].to_owned());
        }
    }
    found
}

/// `code` without its attributes (`#[cfg(feature = "cli")]`, `#![allow(…)]`).
fn without_attributes(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut depth = 0usize;
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if depth == 0 && c == '#' {
            if chars.peek() == Some(&'!') {
                chars.next();
            }
            if chars.peek() == Some(&'[') {
                chars.next();
                depth = 1;
                continue;
            }
        }
        if depth > 0 {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ => {}
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// A `use` statement: its tree as written, whether it re-exports, where.
struct UseStatement {
    tree: String,
    public: bool,
    line: usize,
    span: std::ops::Range<usize>,
}

fn use_statements(code: &str) -> Vec<UseStatement> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("use ").map(|p| p + from) {
        from = at + 4;
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(end) = code[at..].find(';').map(|e| e + at) else {
            break;
        };
        // `pub use`, `pub(crate) use`, `pub(super) use`: the words before it on its line.
        let line_start = code[..at].rfind('\n').map_or(0, |p| p + 1);
        let public = code[line_start..at].trim_start().starts_with("pub");
        found.push(UseStatement {
            tree: compact(&code[at + 4..end]),
            public,
            line: code[..at].matches('\n').count() + 1,
            span: at..end,
        });
        from = end;
    }
    found
}

/// A use tree with one space between words and none around punctuation
/// (`a::{b,c::{D as E}}`).
fn compact(tree: &str) -> String {
    let spaced = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = spaced;
    for mark in ["::", "{", "}", ","] {
        out = out
            .replace(&format!(" {mark}"), mark)
            .replace(&format!("{mark} "), mark);
    }
    out
}

/// The paths of a compacted use tree (`a::{b,c::{D as E}}`).
fn expand(tree: &str) -> Vec<Tree> {
    let tree = tree.trim_start_matches("::");
    let Some(open) = tree.find('{') else {
        let (path, alias) = match tree.split_once(" as ") {
            Some((path, alias)) => (path, Some(alias.to_owned())),
            None => (tree, None),
        };
        let segments: Vec<String> = path
            .split("::")
            .filter(|s| !s.is_empty() && *s != "*")
            .map(str::to_owned)
            .collect();
        // `a::b::self` is `a::b`.
        let segments = match segments.split_last() {
            Some((last, init)) if last == "self" => init.to_vec(),
            _ => segments,
        };
        return vec![Tree { segments, alias }];
    };
    let prefix = &tree[..open];
    let inner = tree[open + 1..]
        .strip_suffix('}')
        .unwrap_or(&tree[open + 1..]);
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(|part| expand(&format!("{prefix}{part}")))
        .collect()
}

/// The code of a Rust file with comments, string and character literals blanked out (so
/// line numbers stay), and `#[cfg(test)]` items removed.
pub fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |out: &mut String, slice: &[u8]| {
        for &b in slice {
            out.push(if b == b'\n' { '\n' } else { ' ' });
        }
    };
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest.starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(rest.len(), |e| e + 4);
            blank(&mut out, &rest[..end]);
            i += end;
        } else if (rest.starts_with(b"r\"") || rest.starts_with(b"r#"))
            && !text[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            let hashes = rest[1..].iter().take_while(|&&b| b == b'#').count();
            if rest.get(1 + hashes) != Some(&b'"') {
                out.push('r');
                i += 1;
                continue;
            }
            let close = format!("\"{}", "#".repeat(hashes));
            let body = 2 + hashes;
            let end = text[i + body..]
                .find(&close)
                .map_or(rest.len(), |e| body + e + close.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest[0] == b'"' {
            let mut j = 1;
            while j < rest.len() && rest[j] != b'"' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest[0] == b'\'' {
            // A character literal ('a', '\n', '"'), not a lifetime ('a).
            let end = if rest.get(1) == Some(&b'\\') {
                rest[2..].iter().position(|&b| b == b'\'').map(|p| p + 3)
            } else {
                let c = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (rest.get(1 + c) == Some(&b'\'')).then_some(2 + c)
            };
            let end = end.unwrap_or(1);
            if end > 1 {
                blank(&mut out, &rest[..end]);
            } else {
                out.push('\'');
            }
            i += end;
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    without_test_items(&out)
}

/// `code` with every item after `#[cfg(test)]` blanked out (its braces balanced, or up to
/// its `;`).
fn without_test_items(code: &str) -> String {
    let mut out = code.to_owned();
    let mut from = 0;
    while let Some(at) = out[from..].find("#[cfg(test)]").map(|p| p + from) {
        let bytes = out.as_bytes();
        let mut depth = 0usize;
        let mut end = at;
        for (j, &b) in bytes.iter().enumerate().skip(at + "#[cfg(test)]".len()) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = j + 1;
                        break;
                    }
                }
                b';' if depth == 0 => {
                    end = j + 1;
                    break;
                }
                _ => {}
            }
        }
        let blanked: String = out[at..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        out.replace_range(at..end, &blanked);
        from = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(paths: Vec<(usize, ModulePath)>) -> Vec<(usize, String)> {
        paths.into_iter().map(|(l, p)| (l, p.join("::"))).collect()
    }

    /// Comments, strings and tests are not code; use trees, `super::`, `self::` and
    /// declared children are paths of the crate, other crates' are not.
    #[test]
    fn the_scanner_reads_paths_as_rustc_does() {
        let code = code_only(
            "#[cfg(feature = \"x\")]\nmod child;\nuse crate::model::{Gvk, ir::{A, B as C}}; // crate::emit\nlet s = \"crate::write\"; let c = '\"';\nlet r = r#\"crate::emit\"#;\nuse super::super::emit::X;\nfn f<'a>(x: &'a str) -> crate::Error { child::go(); serde::x(); todo!() }\npub use self::child::Y;\n#[cfg(test)]\nmod tests { use crate::emit; }\n",
        );
        let module = ["load".to_owned(), "select".to_owned()];
        assert_eq!(
            strings(paths(&code, &module)),
            [
                (3, "model::Gvk".to_owned()),
                (3, "model::ir::A".to_owned()),
                (3, "model::ir::B".to_owned()),
                (6, "emit::X".to_owned()),
                (7, "Error".to_owned()),
                (7, "load::select::child::go".to_owned()),
            ]
        );
    }

    #[test]
    fn circles_are_strongly_connected_components() {
        let edges = [
            ("a", "b"),
            ("b", "c"),
            ("c", "a"),
            ("c", "d"),
            ("d", "e"),
            ("e", "d"),
        ];
        assert_eq!(circles(&edges), [vec!["a", "b", "c"], vec!["d", "e"]]);
        assert!(circles(&[("a", "b"), ("b", "c")]).is_empty());
    }
}
