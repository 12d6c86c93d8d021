//! Rendering: the module tree emit made → the text of every file, with headers and the
//! module files (declarations, re-exports), in the layout asked for. Nothing here touches
//! the disk (`disk.rs` does).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Layout, MARKER, Output};
use crate::diagnostics::Error;
use crate::emit::text::fits_at;
use crate::emit::{Module, Parts};

/// Formats the module tree into files.
pub(crate) fn render(tree: &Module, layout: Layout, generated_by: &str) -> Result<Output, Error> {
    let header_line = format!("{MARKER}{generated_by} — do not edit.\n");
    let mut files = BTreeMap::new();
    match layout {
        Layout::SingleFile => {
            let mut sources: Vec<String> = Vec::new();
            collect_sources(tree, &mut sources);
            let mut header = header_line;
            for source in sources {
                header.push_str(&format!("// Source: {source}\n"));
            }
            files.insert(
                PathBuf::from("generated.rs"),
                format!("{header}\n{}", single_file(tree)),
            );
        }
        Layout::Crate | Layout::Module => {
            let root = if layout == Layout::Crate {
                "lib.rs"
            } else {
                "mod.rs"
            };
            render_tree(tree, Path::new(""), root, &header_line, &mut files);
        }
    }
    Ok(Output {
        files,
        features: None,
        releases: Vec::new(),
        warnings: Vec::new(),
        notes: Vec::new(),
        resource_modules: BTreeMap::new(),
        uses_companion_meta: false,
        apply_feature: false,
        protobuf_feature: false,
        validation: false,
        timings: crate::Timings::default(),
    })
}

/// Writes the module files of `module` and its children into `files`, and every generated
/// file (one per schema file) too: its header, then its parts with a blank line between.
fn render_tree(
    module: &Module,
    dir: &Path,
    file_name: &str,
    header_line: &str,
    files: &mut BTreeMap<PathBuf, String>,
) {
    let is_root = dir.as_os_str().is_empty();
    let mut text = String::new();
    if let Some(docs) = &module.docs {
        for line in docs.lines() {
            if line.is_empty() {
                text.push_str("//!\n");
            } else {
                text.push_str("//! ");
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    text.push_str(&module.items);
    module_declarations(&mut text, module, is_root);
    files.insert(
        dir.join(file_name),
        format!("{header_line}\n{}", separate_items(&text)),
    );
    for (stem, file) in &module.files {
        let mut out = format!("{header_line}// Source: {}\n\n", file.source);
        out.push_str(&file.parts.0.join("\n"));
        files.insert(dir.join(format!("{stem}.rs")), out);
    }
    for (name, child) in &module.children {
        render_tree(child, &dir.join(name), "mod.rs", header_line, files);
    }
}

/// The whole tree as one file of nested inline modules, with the same paths as the file
/// layout. The skeleton (module declarations, attributes, re-exports) is written with each
/// file declared as `mod stem;`; each such line then becomes an inline module holding the
/// file's parts, indented to its depth.
fn single_file(tree: &Module) -> String {
    let mut bodies = Vec::new();
    collect_bodies(tree, &mut bodies);
    let mut skeleton = String::new();
    inline_skeleton(&mut skeleton, tree, 0);
    let skeleton = separate_items(&skeleton);
    let mut bodies = bodies.into_iter();
    let mut out = String::with_capacity(skeleton.len() * 8);
    let mut lines = skeleton.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let declared = trimmed
            .strip_prefix("mod ")
            .and_then(|rest| rest.strip_suffix(';'))
            .is_some_and(|stem| !stem.contains(' '));
        if !declared {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        out.push_str(line.trim_end_matches(';'));
        out.push_str(" {\n");
        let body = bodies
            .next()
            .map(|parts| parts.0.join("\n"))
            .unwrap_or_default();
        for body_line in body.lines() {
            if !body_line.is_empty() {
                out.push_str(indent);
                out.push_str("    ");
                out.push_str(body_line);
            }
            out.push('\n');
        }
        out.push_str(indent);
        out.push_str("}\n");
        // As `separate_items` would: a blank line after a block, unless a block ends too.
        if lines
            .peek()
            .is_some_and(|next| !next.is_empty() && !next.trim_start().starts_with('}'))
        {
            out.push('\n');
        }
    }
    out
}

/// The files' parts in the order [`inline_skeleton`] declares them.
fn collect_bodies<'a>(module: &'a Module, bodies: &mut Vec<&'a Parts>) {
    for child in module.children.values() {
        collect_bodies(child, bodies);
    }
    bodies.extend(module.files.values().map(|file| &file.parts));
}

/// Appends `line` at `indent` spaces.
fn push_line(out: &mut String, indent: usize, line: &str) {
    for _ in 0..indent {
        out.push(' ');
    }
    out.push_str(line);
    out.push('\n');
}

/// `pub mod child;` for each child and `mod file; pub use self::file::Type;` for each file.
/// In the root file they carry `#[rustfmt::skip]`: the output is already formatted, and
/// `cargo fmt` rewrapping it would make `regen --check` fail.
fn module_declarations(out: &mut String, module: &Module, is_root: bool) {
    for (name, child) in &module.children {
        if let Some(feature) = &child.feature {
            push_line(out, 0, &feature_cfg(feature));
        }
        for attribute in &module.child_attributes {
            push_line(out, 0, attribute);
        }
        if is_root {
            push_line(out, 0, "#[rustfmt::skip]");
        }
        push_line(out, 0, &format!("pub mod {name};"));
    }
    for (stem, file) in &module.files {
        for attribute in &module.child_attributes {
            push_line(out, 0, attribute);
        }
        if is_root {
            push_line(out, 0, "#[rustfmt::skip]");
        }
        push_line(out, 0, &format!("mod {stem};"));
        re_exports(out, 0, file, stem);
    }
}

/// `#[cfg(feature = "name")]`.
fn feature_cfg(feature: &str) -> String {
    format!(
        "#[cfg(feature = {})]",
        crate::emit::text::str_literal(feature)
    )
}

/// The tree as nested inline modules with each file declared as `mod stem;`, for
/// [`single_file`], at `indent` spaces.
fn inline_skeleton(out: &mut String, module: &Module, indent: usize) {
    // No docs: inner attributes are not allowed in a file that is `include!`d.
    for line in module.items.lines() {
        if line.is_empty() {
            out.push('\n');
        } else {
            push_line(out, indent, line);
        }
    }
    for (name, child) in &module.children {
        if let Some(feature) = &child.feature {
            push_line(out, indent, &feature_cfg(feature));
        }
        for attribute in &module.child_attributes {
            push_line(out, indent, attribute);
        }
        let mut body = String::new();
        inline_skeleton(&mut body, child, indent + 4);
        if body.is_empty() {
            push_line(out, indent, &format!("pub mod {name} {{}}"));
        } else {
            push_line(out, indent, &format!("pub mod {name} {{"));
            out.push_str(&body);
            push_line(out, indent, "}");
        }
    }
    for (stem, file) in &module.files {
        for attribute in &module.child_attributes {
            push_line(out, indent, attribute);
        }
        push_line(out, indent, &format!("mod {stem};"));
        re_exports(out, indent, file, stem);
    }
}

/// `pub use self::file::{A, B};` for a file's exports, and `#[cfg(…)] pub use self::file::C;`
/// for each one that exists only under a cfg. A list too long for one line is filled, as
/// prettyplease fills it: as many names per line as fit.
fn re_exports(out: &mut String, indent: usize, file: &crate::emit::File, stem: &str) {
    let (gated, plain): (Vec<&String>, Vec<&String>) = file
        .exports
        .iter()
        .partition(|name| file.export_cfgs.contains_key(*name));
    match plain.as_slice() {
        [] => {}
        [one] => push_line(out, indent, &format!("pub use self::{stem}::{one};")),
        several => {
            let names: Vec<&str> = several.iter().map(|n| n.as_str()).collect();
            let line = format!("pub use self::{stem}::{{{}}};", names.join(", "));
            if fits_at(indent, line.len()) {
                push_line(out, indent, &line);
            } else {
                push_line(out, indent, &format!("pub use self::{stem}::{{"));
                let mut current = String::new();
                for (index, name) in names.iter().enumerate() {
                    // The comma after the last name is the break's, not text.
                    let comma = usize::from(index + 1 < names.len());
                    let joined = current.len() + 2 + name.len();
                    if !current.is_empty() && !fits_at(indent + 4, joined + comma) {
                        push_line(out, indent + 4, &format!("{current},"));
                        current.clear();
                    }
                    if !current.is_empty() {
                        current.push_str(", ");
                    }
                    current.push_str(name);
                }
                push_line(out, indent + 4, &format!("{current},"));
                push_line(out, indent, "};");
            }
        }
    }
    for name in gated {
        let cfg = &file.export_cfgs[name];
        match crate::emit::pretty::attribute(cfg, indent) {
            // Broken as prettyplease breaks a long one.
            Some(lines) => out.push_str(&lines),
            None => push_line(out, indent, cfg),
        }
        push_line(out, indent, &format!("pub use self::{stem}::{name};"));
    }
}

fn collect_sources(module: &Module, sources: &mut Vec<String>) {
    for file in module.files.values() {
        let source = file.source.file.display().to_string();
        if !sources.contains(&source) {
            sources.push(source);
        }
    }
    for child in module.children.values() {
        collect_sources(child, sources);
    }
}

/// The skeleton is written with its items on consecutive lines (as prettyplease printed
/// them); a blank line after each block item and before each documented or attributed
/// item makes files read like hand-written code.
fn separate_items(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut previous: Option<&str> = None;
    for line in text.lines() {
        if let Some(prev) = previous {
            let indent = |l: &str| l.len() - l.trim_start().len();
            let (p, c) = (prev.trim(), line.trim());
            let starts_item = c.starts_with("///")
                || c.starts_with("#[")
                || c.starts_with("impl")
                || c.starts_with("pub fn")
                || c.starts_with("fn ");
            // A doc line that ends in `;` ends no item: a blank line after it would split
            // the doc comment (clippy's `empty_line_after_doc_comments`).
            let ends_item =
                p == "}" || (p.ends_with(';') && !p.starts_with("//") && !c.starts_with("pub use"));
            if !c.is_empty()
                && indent(prev) == indent(line)
                && ((p == "}" && !c.starts_with('}')) || (ends_item && starts_item))
            {
                out.push('\n');
            }
        }
        out.push_str(line);
        out.push('\n');
        previous = Some(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::re_exports;
    use crate::diagnostics::Origin;
    use crate::emit::{File, Parts};

    /// Re-exports come out as prettyplease prints them: on one line when they fit, and
    /// otherwise as many names per line as fit, at every depth.
    #[test]
    fn re_exports_fill_lines_as_prettyplease_does() {
        for count in [1, 2, 5, 12, 30] {
            for length in [3, 9, 17, 33] {
                let exports: Vec<String> = (0..count)
                    .map(|i| format!("{}{i}", "N".repeat(length)))
                    .collect();
                // Every third name exists only under a cfg of one or more features.
                let export_cfgs = exports
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| i % 3 == 2)
                    .map(|(i, name)| {
                        let features: Vec<String> = (0..=i % 4)
                            .map(|f| format!("feature = \"{}{f}\"", "g".repeat(length)))
                            .collect();
                        let cfg = match features.as_slice() {
                            [one] => format!("#[cfg({one})]"),
                            all => format!("#[cfg(all({}))]", all.join(", ")),
                        };
                        (name.clone(), cfg)
                    })
                    .collect();
                let file = File {
                    parts: Parts::default(),
                    exports,
                    source: Origin::root(std::path::Path::new("a.json")),
                    export_cfgs,
                };
                for depth in [0, 3, 6, 8, 10] {
                    let mut out = String::new();
                    for level in 0..depth {
                        out.push_str(&" ".repeat(level * 4));
                        out.push_str(&format!("mod m{level} {{\n"));
                    }
                    re_exports(&mut out, depth * 4, &file, "stem");
                    for level in (0..depth).rev() {
                        out.push_str(&" ".repeat(level * 4));
                        out.push_str("}\n");
                    }
                    let theirs =
                        prettyplease::unparse(&syn::parse_file(&out).expect("valid items"));
                    assert_eq!(out, theirs, "{count} names of {length} at depth {depth}");
                }
            }
        }
    }
}
