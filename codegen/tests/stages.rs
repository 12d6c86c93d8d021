//! The stages import nothing above them. Every path that names another module of the crate
//! (`crate::…`, or `super::…` leaving the stage) is an edge from the file's stage to that
//! module's; this test lists them and fails on one that runs upward:
//!
//! ```text
//! diagnostics, timings ─ ground ─ load ─ model ─ emit ─ write ─ the facade (lib.rs, view,
//!                                                               compile, package, cli, diff)
//! ```
//!
//! Each stage may use those to its left (the ground floor only what is left of it), never
//! one to its right. A name the facade re-exports (`crate::Error`, `crate::ModuleRules`)
//! counts as the module it comes from. Tests (`#[cfg(test)]` items) may use anything.
//! Comments and string literals are not code: the generator spells `crate::…` paths in text.
//! `cargo test -p kubeforge --test stages -- --nocapture` prints the edges.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The stages, bottom up; a module not listed is the facade, above them all.
const STAGES: &[(&str, usize)] = &[
    ("diagnostics", 0),
    ("timings", 0),
    ("ground", 1),
    ("load", 2),
    ("model", 3),
    ("emit", 4),
    ("write", 5),
];
const FACADE: usize = 6;

fn rank(module: &str) -> usize {
    STAGES
        .iter()
        .find(|(name, _)| *name == module)
        .map_or(FACADE, |(_, rank)| *rank)
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file below `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("src is readable")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file below `src/` (`load/select.rs` → `["load", "select"]`,
/// `emit/routes/mod.rs` → `["emit", "routes"]`, `lib.rs` → `[]`).
fn module_path(relative: &Path) -> Vec<String> {
    let mut segments: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if segments.last().is_some_and(|s| s == "mod" || s == "lib") {
        segments.pop();
    }
    if segments.first().is_some_and(|s| s == "bin") {
        return Vec::new(); // the binary is the facade's
    }
    segments
}

/// The code of a Rust file with comments, string and character literals blanked out (so
/// line numbers stay), and `#[cfg(test)]` items removed.
fn code_only(text: &str) -> String {
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

/// What the facade re-exports, by name: the module it comes from (`pub use a::b::{C, D};`).
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    let code = code_only(lib);
    for statement in code.split(';') {
        let Some(rest) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let module = rest
            .split("::")
            .next()
            .unwrap_or_default()
            .trim()
            .to_owned();
        let names = match (rest.find('{'), rest.rfind("::")) {
            (Some(open), _) => rest[open + 1..].trim_end_matches('}').to_owned(),
            (None, Some(last)) => rest[last + 2..].to_owned(),
            _ => continue,
        };
        for name in names.split(',') {
            let name = name.trim();
            if !name.is_empty() {
                map.insert(name.to_owned(), module.clone());
            }
        }
    }
    map
}

/// One reference from a file to another top-level module: (line, the module named).
fn references(
    code: &str,
    path: &[String],
    reexports: &BTreeMap<String, String>,
) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find(['c', 's']) {
            let tail = &rest[at..];
            let before = rest[..at].chars().last();
            let word_start = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
            let target = if !word_start {
                None
            } else if let Some(after) = tail.strip_prefix("crate::") {
                first_segment(after).map(|s| s.to_owned())
            } else if tail.starts_with("super::") {
                // `super::super::x` from `a::b::c` names `a::x`.
                let mut depth = 0;
                let mut after = tail;
                while let Some(more) = after.strip_prefix("super::") {
                    depth += 1;
                    after = more;
                }
                (depth >= path.len())
                    .then(|| first_segment(after).map(str::to_owned))
                    .flatten()
            } else {
                None
            };
            if let Some(target) = target {
                let module = reexports.get(&target).cloned().unwrap_or(target);
                // A name defined in the facade itself (`crate::Config`) is the facade's.
                let module = if module.starts_with(|c: char| c.is_ascii_uppercase()) {
                    "lib".to_owned()
                } else {
                    module
                };
                found.push((number + 1, module));
            }
            rest = &rest[at + 1..];
        }
    }
    found
}

/// The first path segment of `text` (`model::Gvk` → `model`).
fn first_segment(text: &str) -> Option<&str> {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    (end > 0).then(|| &text[..end])
}

#[test]
fn no_stage_imports_one_above_it() {
    let root = src();
    let lib = fs::read_to_string(root.join("lib.rs")).expect("lib.rs");
    let reexports = reexports(&lib);
    let mut all = Vec::new();
    files(&root, &mut all);
    let mut edges: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut upward = Vec::new();
    for file in &all {
        let relative = file.strip_prefix(&root).expect("below src");
        let path = module_path(relative);
        let stage = path.first().cloned().unwrap_or_else(|| "lib".to_owned());
        let code = code_only(&fs::read_to_string(file).expect("readable"));
        for (line, target) in references(&code, &path, &reexports) {
            if target == stage {
                continue;
            }
            *edges.entry((stage.clone(), target.clone())).or_default() += 1;
            let (from, to) = (rank(&stage), rank(&target));
            // The ground floor's own modules rank alike but must not import each other.
            if to > from || (to == from && from < FACADE) {
                upward.push(format!(
                    "{}:{line}: {stage} (stage {from}) imports {target} (stage {to})",
                    relative.display()
                ));
            }
        }
    }
    println!("imports between stages (from → to: references):");
    for ((from, to), count) in &edges {
        println!("  {from} → {to}: {count}");
    }
    assert!(
        edges.contains_key(&("model".to_owned(), "load".to_owned())),
        "the scan finds no edge at all: is it reading the sources?"
    );
    assert!(
        upward.is_empty(),
        "imports that run upward:\n{}",
        upward.join("\n")
    );
}

/// The scanner itself: comments, strings and tests are not code; `super::` leaving the
/// stage and re-exported names count.
#[test]
fn the_scanner_reads_paths_as_rustc_does() {
    let code = code_only(
        "use crate::model::Gvk; // crate::emit\nlet s = \"crate::write\"; let c = '\"';\nlet r = r#\"crate::emit\"#;\nuse super::super::emit::X;\nfn f<'a>(x: &'a str) -> crate::Error { todo!() }\n#[cfg(test)]\nmod tests { use crate::emit; }\n",
    );
    let reexports = BTreeMap::from([("Error".to_owned(), "diagnostics".to_owned())]);
    let path = ["load".to_owned(), "select".to_owned()];
    assert_eq!(
        references(&code, &path, &reexports),
        [
            (1, "model".to_owned()),
            (4, "emit".to_owned()),
            (5, "diagnostics".to_owned())
        ]
    );
}

/// Emit writes text only (issue 32): no token stream is built in it and no formatter
/// reads what it writes. A user's attributes, which Rust's own parser checks and
/// prettyplease prints, are parsed and spelled when they are configured
/// (`ground/attribute.rs`); emit places the lines.
#[test]
fn emit_builds_no_token_streams() {
    let mut all = Vec::new();
    files(&src().join("emit"), &mut all);
    let mut found = Vec::new();
    for file in &all {
        // A `tests.rs` holds a module declared `#[cfg(test)] mod tests;`: tests only.
        if file.ends_with("tests.rs") {
            continue;
        }
        let code = code_only(&fs::read_to_string(file).expect("readable"));
        for (number, line) in code.lines().enumerate() {
            for word in [
                "proc_macro2",
                "quote::",
                "quote!",
                "TokenStream",
                "prettyplease",
                "syn::",
            ] {
                if line.contains(word) {
                    found.push(format!("{}:{}: {word}", file.display(), number + 1));
                }
            }
        }
    }
    assert!(all.len() > 10, "the scan reads no emit file");
    assert!(
        found.is_empty(),
        "token streams or a formatter in emit:\n{}",
        found.join("\n")
    );
}
