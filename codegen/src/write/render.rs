//! Rendering: the module tree emit made → the text of every file, with headers and the
//! module files (declarations, re-exports), in the layout asked for. Nothing here touches
//! the disk (`disk.rs` does).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::quote;

use super::{Layout, MARKER, Output};
use crate::diagnostics::{Diagnostic, Error, ErrorKind, Origin};
use crate::emit::{Module, Part, Parts, ident};

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
                format!("{header}\n{}", single_file(tree)?),
            );
        }
        Layout::Crate | Layout::Module => {
            let root = if layout == Layout::Crate {
                "lib.rs"
            } else {
                "mod.rs"
            };
            let mut jobs = Vec::new();
            render_tree(
                tree,
                Path::new(""),
                root,
                &header_line,
                &mut files,
                &mut jobs,
            )?;
            for (path, content) in render_files(jobs)? {
                files.insert(path, content);
            }
        }
    }
    Ok(Output {
        files,
        features: None,
        warnings: Vec::new(),
        notes: Vec::new(),
        resource_modules: BTreeMap::new(),
        uses_companion_meta: false,
        apply_feature: false,
        validation: false,
        timings: crate::Timings::default(),
    })
}

/// One generated file still to be formatted: its path, header and parts, with token runs
/// as their source text, since token streams cannot cross threads.
struct Job<'a> {
    path: PathBuf,
    header: String,
    parts: Vec<SourcePart<'a>>,
}

/// A part of a [`Job`].
enum SourcePart<'a> {
    /// Token runs as source text, to be parsed and formatted.
    Tokens(String),
    /// Formatted text.
    Text(&'a str),
}

impl<'a> Job<'a> {
    fn new(path: PathBuf, header: String, parts: &'a Parts) -> Self {
        let parts = parts
            .0
            .iter()
            .map(|part| match part {
                Part::Tokens(tokens) => SourcePart::Tokens(tokens.to_string()),
                Part::Source(source) => SourcePart::Tokens(source.clone()),
                Part::Text(text) => SourcePart::Text(text),
            })
            .collect();
        Job {
            path,
            header,
            parts,
        }
    }

    fn render(&self) -> Result<String, Error> {
        let mut out = format!("{}\n", self.header);
        for (index, part) in self.parts.iter().enumerate() {
            if index > 0 {
                out.push('\n');
            }
            match part {
                SourcePart::Tokens(source) => out.push_str(&format_source(source)?),
                SourcePart::Text(text) => out.push_str(text),
            }
        }
        Ok(out)
    }
}

/// Writes the module files of `module` and its children into `files`, and collects the
/// generated files (one per schema file) as jobs.
fn render_tree<'a>(
    module: &'a Module,
    dir: &Path,
    file_name: &str,
    header_line: &str,
    files: &mut BTreeMap<PathBuf, String>,
    jobs: &mut Vec<Job<'a>>,
) -> Result<(), Error> {
    let is_root = dir.as_os_str().is_empty();
    let mut tokens = module
        .docs
        .as_deref()
        .map_or_else(TokenStream::new, |docs| {
            let lines = docs.lines().map(|line| {
                let line = if line.is_empty() {
                    String::new()
                } else {
                    format!(" {line}")
                };
                quote!(#![doc = #line])
            });
            quote!(#(#lines)*)
        });
    tokens.extend(module.items.clone());
    tokens.extend(module_declarations(module, is_root));
    files.insert(
        dir.join(file_name),
        format!("{header_line}\n{}", format_tokens(tokens)?),
    );
    for (stem, file) in &module.files {
        jobs.push(Job::new(
            dir.join(format!("{stem}.rs")),
            format!("{header_line}// Source: {}\n", file.source),
            &file.parts,
        ));
    }
    for (name, child) in &module.children {
        render_tree(child, &dir.join(name), "mod.rs", header_line, files, jobs)?;
    }
    Ok(())
}

/// Formats the jobs' files on all available cores. Each file is formatted on its own, so
/// the output does not depend on the number of threads or their timing; results are put
/// back in the jobs' order.
fn render_files(jobs: Vec<Job<'_>>) -> Result<Vec<(PathBuf, String)>, Error> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(jobs.len().max(1));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<String, Error>>>> =
        Mutex::new((0..jobs.len()).map(|_| None).collect());
    let work = || {
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(job) = jobs.get(index) else { break };
            let rendered = job.render();
            if let Ok(mut results) = results.lock() {
                results[index] = Some(rendered);
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(work);
        }
        work();
    });
    let results = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    jobs.into_iter()
        .zip(results)
        .map(|(job, rendered)| {
            let rendered = rendered.unwrap_or_else(|| job.render())?;
            Ok((job.path, rendered))
        })
        .collect()
}

/// A file's items: token runs formatted by prettyplease, text parts as they are, with a
/// blank line between parts.
fn format_parts(parts: &Parts) -> Result<String, Error> {
    let mut out = String::new();
    for part in &parts.0 {
        if !out.is_empty() {
            out.push('\n');
        }
        match part {
            Part::Tokens(tokens) => out.push_str(&format_tokens(tokens.clone())?),
            Part::Source(source) => out.push_str(&format_source(source)?),
            Part::Text(text) => out.push_str(text),
        }
    }
    Ok(out)
}

/// The whole tree as one file of nested inline modules, with the same paths as the file
/// layout. The skeleton (module declarations, attributes, re-exports) is formatted by
/// prettyplease with each file declared as `mod stem;`; each such line then becomes an
/// inline module holding the file's formatted parts, indented to its depth.
fn single_file(tree: &Module) -> Result<String, Error> {
    let mut bodies = Vec::new();
    collect_bodies(tree, &mut bodies);
    let skeleton = format_tokens(inline_skeleton(tree))?;
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
        let body = match bodies.next() {
            Some(parts) => format_parts(parts)?,
            None => String::new(),
        };
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
    Ok(out)
}

/// The files' parts in the order [`inline_skeleton`] declares them.
fn collect_bodies<'a>(module: &'a Module, bodies: &mut Vec<&'a Parts>) {
    for child in module.children.values() {
        collect_bodies(child, bodies);
    }
    bodies.extend(module.files.values().map(|file| &file.parts));
}

/// `pub mod child;` for each child and `mod file; pub use self::file::Type;` for each file.
/// In the root file they carry `#[rustfmt::skip]`: the output is already formatted (by
/// prettyplease), and `cargo fmt` rewrapping it would make `regen --check` fail.
fn module_declarations(module: &Module, is_root: bool) -> TokenStream {
    let skip = is_root.then(|| quote!(#[rustfmt::skip]));
    let attributes = &module.child_attributes;
    let children = module.children.iter().map(|(name, child)| {
        let name = ident(name);
        let cfg = child.feature.as_ref().map(|f| quote!(#[cfg(feature = #f)]));
        quote!(#cfg #attributes #skip pub mod #name;)
    });
    let files = module.files.iter().map(|(stem, file)| {
        let exports = re_exports(file, stem);
        let stem = ident(stem);
        quote! {
            #attributes
            #skip
            mod #stem;
            #exports
        }
    });
    quote! {
        #(#children)*
        #(#files)*
    }
}

/// The tree as nested inline modules with each file declared as `mod stem;`, for
/// [`single_file`].
fn inline_skeleton(module: &Module) -> TokenStream {
    let attributes = &module.child_attributes;
    let children = module.children.iter().map(|(name, child)| {
        let name = ident(name);
        let body = inline_skeleton(child);
        let cfg = child.feature.as_ref().map(|f| quote!(#[cfg(feature = #f)]));
        quote!(#cfg #attributes pub mod #name { #body })
    });
    let files = module.files.iter().map(|(stem, file)| {
        let exports = re_exports(file, stem);
        let stem = ident(stem);
        quote! {
            #attributes
            mod #stem;
            #exports
        }
    });
    // No docs: inner attributes are not allowed in a file that is `include!`d.
    let items = &module.items;
    quote!(#items #(#children)* #(#files)*)
}

/// `pub use self::file::{A, B};` for a file's exports, and `#[cfg(…)] pub use self::file::C;`
/// for each one that exists only under a cfg.
fn re_exports(file: &crate::emit::File, stem: &str) -> TokenStream {
    let stem = ident(stem);
    let (gated, plain): (Vec<&String>, Vec<&String>) = file
        .exports
        .iter()
        .partition(|name| file.export_cfgs.contains_key(*name));
    let plain = (!plain.is_empty()).then(|| {
        let names = plain.iter().map(|name| ident(name));
        quote!(pub use self::#stem::{#(#names),*};)
    });
    let gated = gated.into_iter().map(|name| {
        let cfg = &file.export_cfgs[name];
        let name = ident(name);
        quote!(#cfg pub use self::#stem::#name;)
    });
    quote!(#plain #(#gated)*)
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

/// Items as source text → formatted text (prettyplease, then [`separate_items`]).
fn format_source(source: &str) -> Result<String, Error> {
    let file = syn::parse_file(source).map_err(|e| {
        Error::from(Diagnostic::new(
            ErrorKind::Output,
            &Origin::root(Path::new("<generated>")),
            format!("internal error: generated code does not parse: {e}"),
        ))
    })?;
    Ok(separate_items(&prettyplease::unparse(&file)))
}

/// Items as tokens → formatted text (prettyplease, then [`separate_items`]).
fn format_tokens(tokens: TokenStream) -> Result<String, Error> {
    let file: syn::File = syn::parse2(tokens).map_err(|e| {
        Error::from(Diagnostic::new(
            ErrorKind::Output,
            &Origin::root(Path::new("<generated>")),
            format!("internal error: generated code does not parse: {e}"),
        ))
    })?;
    Ok(separate_items(&prettyplease::unparse(&file)))
}

/// prettyplease puts items on consecutive lines; a blank line after each block item and
/// before each documented or attributed item makes files read like hand-written code.
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
