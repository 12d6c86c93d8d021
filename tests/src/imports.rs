//! The import graph of a crate's sources, for the tests that keep its floors apart (the
//! generator's stages, `codegen/tests/stages.rs`; the server's layers,
//! `server/tests/layers.rs`): every path in a file that names a module of the crate is an
//! edge from the file's module to that one.
//!
//! A path counts from `crate::`, `super::`, `self::` or a child module the file declares
//! (`mod x;` then `x::…`), through `use` groups (`use crate::a::{b, c::D}` names `a::b` and
//! `a::c`); it names the longest module of the crate it starts with (`crate::a::b::f` is
//! module `a::b` when `a/b.rs` exists, else `a`). A name the crate root imports
//! (`pub use a::b::C;` or `use a::b;`) counts as where it comes from. Comments and string
//! literals are not code (the generator spells `crate::…` paths in text), and `#[cfg(test)]`
//! items are left out: tests may use anything. What this cannot see is a method call on a
//! type of another module (`x.f()` names no path); a `use` of the type does.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A module, by its path below the crate root (`["load", "select"]`; the root is `[]`).
pub type Module = Vec<String>;

/// One path in a file that names another module of the crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The file, relative to `src/`.
    pub file: PathBuf,
    /// Its line, from 1.
    pub line: usize,
    /// The file's module.
    pub from: Module,
    /// The module named.
    pub to: Module,
}

/// Every edge of the crate whose sources are in `src` (with `lib.rs` at its root; a
/// file under `src/bin/` is the root's).
pub fn edges(src: &Path) -> Vec<Edge> {
    let mut all = Vec::new();
    rust_files(src, &mut all);
    let modules: BTreeSet<Module> = all
        .iter()
        .map(|file| module_path(file.strip_prefix(src).expect("below src")))
        .collect();
    let lib = fs::read_to_string(src.join("lib.rs")).expect("lib.rs is readable");
    let roots = root_imports(&code_only(&lib), &modules);
    let mut found = Vec::new();
    for file in &all {
        let relative = file.strip_prefix(src).expect("below src");
        let from = module_path(relative);
        let code = code_only(&fs::read_to_string(file).expect("readable"));
        for (line, to) in references(&code, &from, &modules, &roots) {
            if to != from {
                found.push(Edge {
                    file: relative.to_path_buf(),
                    line,
                    from: from.clone(),
                    to,
                });
            }
        }
    }
    found
}

/// The circles of the graph: each set of two or more modules that reach each other
/// (Tarjan's strongly connected components), with the edges inside it.
pub fn circles(edges: &[Edge]) -> Vec<Vec<&Edge>> {
    let mut next: BTreeMap<&Module, BTreeSet<&Module>> = BTreeMap::new();
    for edge in edges {
        next.entry(&edge.from).or_default().insert(&edge.to);
        next.entry(&edge.to).or_default();
    }
    let nodes: Vec<&Module> = next.keys().copied().collect();
    let number: BTreeMap<&Module, usize> = nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let successors: Vec<Vec<usize>> = nodes
        .iter()
        .map(|m| next[m].iter().map(|t| number[t]).collect())
        .collect();
    let components = strongly_connected(&successors);
    components
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            let members: BTreeSet<&Module> = component.iter().map(|&i| nodes[i]).collect();
            edges
                .iter()
                .filter(|e| members.contains(&e.from) && members.contains(&e.to))
                .collect()
        })
        .collect()
}

/// Tarjan's algorithm, iteratively: the components of the graph `successors`.
fn strongly_connected(successors: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = successors.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut components = Vec::new();
    let mut counter = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (node, how many of its successors were visited)
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (node, ref mut done)) = work.last_mut() {
            if *done == 0 && index[node] == usize::MAX {
                index[node] = counter;
                low[node] = counter;
                counter += 1;
                stack.push(node);
                on_stack[node] = true;
            }
            if let Some(&child) = successors[node].get(*done) {
                *done += 1;
                if index[child] == usize::MAX {
                    work.push((child, 0));
                } else if on_stack[child] {
                    low[node] = low[node].min(index[child]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == index[node] {
                let mut component = Vec::new();
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component.push(member);
                    if member == node {
                        break;
                    }
                }
                components.push(component);
            }
        }
    }
    components
}

/// A module as Rust spells it (`load::select`; the root is `lib`).
pub fn display(module: &[String]) -> String {
    if module.is_empty() {
        "lib".to_owned()
    } else {
        module.join("::")
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
/// `emit/routes/mod.rs` → `["emit", "routes"]`, `lib.rs` and `bin/*.rs` → `[]`).
pub fn module_path(relative: &Path) -> Module {
    let mut segments: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if segments.last().is_some_and(|s| s == "mod" || s == "lib") {
        segments.pop();
    }
    if segments.first().is_some_and(|s| s == "bin") {
        return Vec::new();
    }
    segments
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
        } else if rest.starts_with(b"r\"") || rest.starts_with(b"r#") {
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

/// What the crate root's `use` items bring in, by name: the path it stands for
/// (`pub use a::b::{C, D};` makes `C` stand for `a::b::C`; `use a::b;`, `b` for `a::b`).
/// Only paths into the crate's own modules count.
pub fn root_imports(lib_code: &str, modules: &BTreeSet<Module>) -> BTreeMap<String, Module> {
    let mut map = BTreeMap::new();
    let mut from = 0;
    while let Some(at) = lib_code[from..].find("use ").map(|p| p + from) {
        from = at + 4;
        let before = lib_code[..at].chars().last();
        if before.is_some_and(|c| !(c.is_whitespace() || c == ')' || c == ';' || c == '}')) {
            continue;
        }
        let end = lib_code[from..]
            .find(';')
            .map_or(lib_code.len(), |e| e + from);
        for mut path in use_tree(&lib_code[from..end]) {
            if path.first().is_some_and(|s| s == "crate") {
                path.remove(0);
            }
            if path.last().is_some_and(|s| s == "self") {
                path.pop();
            }
            let local = path
                .first()
                .is_some_and(|first| modules.contains(&vec![first.clone()]));
            if let (true, Some(name)) = (local, path.last()) {
                map.insert(name.clone(), path.clone());
            }
        }
    }
    map
}

/// The paths of a `use` tree (`a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`); a glob
/// or an alias ends its path.
fn use_tree(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    tree(text, Vec::new(), &mut out);
    out
}

/// Reads one tree of `text` below `prefix` into `out`; returns how much it read.
fn tree(text: &str, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut at = 0;
    loop {
        at += text[at..].len() - text[at..].trim_start().len();
        let rest = &text[at..];
        if rest.starts_with('{') {
            at += 1;
            loop {
                at += text[at..].len() - text[at..].trim_start().len();
                if text[at..].starts_with('}') || at >= text.len() {
                    return (at + 1).min(text.len());
                }
                at += tree(&text[at..], prefix.clone(), out);
                at += text[at..].len() - text[at..].trim_start().len();
                if text[at..].starts_with(',') {
                    at += 1;
                }
            }
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end > 0 {
            prefix.push(rest[..end].to_owned());
            at += end;
        }
        if end > 0 && text[at..].starts_with("::") {
            at += 2;
            continue;
        }
        // The end of this path: skip an alias or glob up to the next `,` or `}`.
        let stop = text[at..].find([',', '}']).unwrap_or(text.len() - at);
        if !prefix.is_empty() {
            out.push(prefix);
        }
        return at + stop;
    }
}

/// The child modules a file declares (`mod x;`, not `mod x { … }`).
fn children(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for statement in code.split(';') {
        let words: Vec<&str> = statement.split_whitespace().collect();
        if let [.., "mod", name] = words[..]
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
        {
            found.insert(name.to_owned());
        }
    }
    found
}

/// Every path in `code` (of the module `path`) that names a module of the crate: (line,
/// the module named).
pub fn references(
    code: &str,
    path: &[String],
    modules: &BTreeSet<Module>,
    roots: &BTreeMap<String, Module>,
) -> Vec<(usize, Module)> {
    let children = children(code);
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut line = 1;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            line += 1;
        }
        let word_start = i == 0 || {
            let before = bytes[i - 1];
            !(before.is_ascii_alphanumeric() || before == b'_' || before == b':')
        };
        if !(word_start && (b.is_ascii_alphabetic() || b == b'_')) {
            i += 1;
            continue;
        }
        let rest = &code[i..];
        let word_end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let word = &rest[..word_end];
        let is_root = matches!(word, "crate" | "super" | "self") || children.contains(word);
        if !is_root || !rest[word_end..].starts_with("::") {
            i += word_end.max(1);
            continue;
        }
        let mut length = 0;
        let mut paths = Vec::new();
        // A `use` tree reads to its `;`; a path in an expression to its first other token.
        let in_use = code[..i].trim_end().ends_with("use");
        if in_use {
            let end = rest.find(';').unwrap_or(rest.len());
            tree(&rest[..end], Vec::new(), &mut paths);
            length = end;
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            paths.push(rest[..end].split("::").map(str::to_owned).collect());
            length += end;
        }
        for segments in paths {
            if let Some(module) = resolve(&segments, path, modules, roots) {
                found.push((line, module));
            }
        }
        line += rest[..length].matches('\n').count();
        i += length.max(1);
    }
    // A `use` group names one module once (`use a::{B, C}`).
    found.dedup();
    found
}

/// The module a path names, from the module `path`; `None` when it names none of the
/// crate's (a local item of the file itself, say).
fn resolve(
    segments: &[String],
    path: &[String],
    modules: &BTreeSet<Module>,
    roots: &BTreeMap<String, Module>,
) -> Option<Module> {
    let mut absolute: Vec<String> = match segments.first().map(String::as_str) {
        Some("crate") => segments[1..].to_vec(),
        Some("super") => {
            let up = segments.iter().take_while(|s| *s == "super").count();
            let mut base = path[..path.len().checked_sub(up)?].to_vec();
            base.extend_from_slice(&segments[up..]);
            base
        }
        Some("self") => {
            let mut base = path.to_vec();
            base.extend_from_slice(&segments[1..]);
            base
        }
        _ => {
            let mut base = path.to_vec();
            base.extend_from_slice(segments);
            base
        }
    };
    absolute.retain(|s| !s.is_empty() && s != "self");
    if let Some(first) = absolute.first()
        && !modules.contains(&vec![first.clone()])
        && let Some(root) = roots.get(first)
    {
        let mut replaced = root.clone();
        replaced.extend_from_slice(&absolute[1..]);
        absolute = replaced;
    }
    (0..=absolute.len())
        .rev()
        .map(|n| absolute[..n].to_vec())
        .find(|prefix| modules.contains(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(text: &str) -> Module {
        text.split("::").map(str::to_owned).collect()
    }

    /// Comments, strings and tests are not code; `super::` leaving the module, `use`
    /// groups, child modules and the root's imports count; each path names the longest
    /// module it starts with.
    #[test]
    fn the_scanner_reads_paths_as_rustc_does() {
        let code = code_only(
            "use crate::model::Gvk; // crate::emit\nlet s = \"crate::write\"; let c = '\"';\nlet r = r#\"crate::emit\"#;\nuse super::super::emit::X;\nfn f<'a>(x: &'a str) -> crate::Error { todo!() }\n#[cfg(test)]\nmod tests { use crate::emit; }\nuse crate::{\n    load::{self, select::Y},\n    write as w,\n};\nmod child;\nfn g() { child::f(); super::sibling::h(); other::i(); }\n",
        );
        let modules: BTreeSet<Module> = [
            vec![],
            module("model"),
            module("emit"),
            module("load"),
            module("load::select"),
            module("load::sibling"),
            module("load::here::child"),
            module("write"),
            module("diagnostics"),
        ]
        .into_iter()
        .collect();
        let roots = root_imports(&code_only("pub use diagnostics::{Error, Note};"), &modules);
        let path = module("load::here");
        let found: Vec<(usize, String)> = references(&code, &path, &modules, &roots)
            .into_iter()
            .map(|(line, m)| (line, display(&m)))
            .collect();
        let expected = [
            (1, "model"),
            (4, "emit"),
            (5, "diagnostics"),
            (8, "load"),
            (8, "load::select"),
            (8, "write"),
            (13, "load::here::child"),
            (13, "load::sibling"),
        ];
        let expected: Vec<(usize, String)> = expected
            .iter()
            .map(|(l, m)| (*l, (*m).to_owned()))
            .collect();
        assert_eq!(found, expected);
    }

    /// Circles are found, and only circles.
    #[test]
    fn circles_are_the_components_of_two_or_more() {
        let edge = |from: &str, to: &str| Edge {
            file: PathBuf::from("x.rs"),
            line: 1,
            from: module(from),
            to: module(to),
        };
        let graph = [
            edge("a", "b"),
            edge("b", "c"),
            edge("c", "a"),
            edge("c", "d"),
            edge("d", "e"),
        ];
        let found = circles(&graph);
        assert_eq!(found.len(), 1);
        let members: BTreeSet<String> = found[0].iter().map(|e| display(&e.from)).collect();
        assert_eq!(members, ["a", "b", "c"].map(str::to_owned).into());
        assert!(circles(&graph[1..]).is_empty());
    }
}
