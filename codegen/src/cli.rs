//! The command line: `kubeforge <inputs…> --out <dir> [--crate-name N] [--select …]`, writing a
//! complete, buildable crate from any mix of supported documents. The installed `kubeforge`
//! binary and `cargo xtask generate` both run this.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use crate::package::{CrateOptions, RuntimeDependency, write_crate};
use crate::{Config, Selector};

/// Generate a Rust crate from Kubernetes OpenAPI documents or CRDs.
#[derive(Debug, Parser)]
#[command(name = "kubeforge", version)]
pub struct Args {
    /// Input documents: OpenAPI v3 or Swagger 2.0 (JSON or YAML), or CRDs (YAML or JSON,
    /// several per file allowed).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The directory to write the crate into (Cargo.toml and src/). A hand-written
    /// Cargo.toml there is left alone (with a note on what the generated one would add); its
    /// `[workspace]` table is left out when the directory is a member of an enclosing
    /// workspace.
    #[arg(long)]
    pub out: PathBuf,
    /// The crate's package name.
    #[arg(long, default_value = "kube-api")]
    pub crate_name: String,
    /// Generate only this, plus what it references: group=G, group-version=G/V, kind=K or
    /// schema=NAME. Repeatable.
    #[arg(long = "select", value_parser = clap::value_parser!(Selector))]
    pub select: Vec<Selector>,
    /// Where two inputs define one schema differently enough to make different types, use
    /// this input's definition (named exactly as given) and warn; without it that is an
    /// error. Repeatable: earlier wins. Definitions that make the same type always merge.
    #[arg(long, value_name = "DOCUMENT")]
    pub prefer: Vec<PathBuf>,
    /// Gate each API group behind a cargo feature of the same name (`core` for the core
    /// group), with dependencies between groups worked out; all are on by default.
    #[arg(long)]
    pub group_features: bool,
    /// Leave out the builders (types only get plain struct literals).
    #[arg(long)]
    pub no_builders: bool,
    /// Leave out the routes: request functions, decoders, the route table and the matcher.
    #[arg(long)]
    pub no_routes: bool,
    /// Leave out doc comments.
    #[arg(long)]
    pub no_docs: bool,
    /// Depend on kubeforge-runtime at this path instead of the one beside the generator. A
    /// relative path is relative to the output directory (--out), as cargo reads it from the
    /// generated Cargo.toml; an absolute one is written relative to the output directory too,
    /// so the generated crate holds no absolute path.
    #[arg(long, conflicts_with = "runtime_version")]
    pub runtime_path: Option<PathBuf>,
    /// Depend on kubeforge-runtime from a registry, with this version requirement.
    #[arg(long)]
    pub runtime_version: Option<String>,
}

impl Args {
    /// The configuration these arguments describe.
    pub fn config(&self) -> Config {
        let mut config = Config::new()
            .features(self.group_features)
            .builders(!self.no_builders)
            .routes(!self.no_routes)
            .docs(!self.no_docs);
        for input in &self.inputs {
            config = config.input_named(input, source_name(input, &self.out));
        }
        for selector in &self.select {
            config = config.select(selector.clone());
        }
        for document in &self.prefer {
            config = config.prefer(document);
        }
        config
    }

    fn crate_options(&self) -> CrateOptions {
        let runtime = match (&self.runtime_path, &self.runtime_version) {
            (Some(path), _) => RuntimeDependency::Path(path.clone()),
            (None, Some(version)) => RuntimeDependency::Version(version.clone()),
            (None, None) => RuntimeDependency::default(),
        };
        CrateOptions {
            name: self.crate_name.clone(),
            runtime,
        }
    }
}

/// Runs the command line with `args` (the first item is the program name).
pub fn run(args: impl IntoIterator<Item = impl Into<OsString> + Clone>) -> ExitCode {
    let args = match Args::try_parse_from(args) {
        Ok(args) => args,
        Err(e) => {
            // Help and version are successes; everything else is a usage error.
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let result = args.config().generate().and_then(|output| {
        write_crate(&output, &args.out, &args.crate_options()).map(|report| (output, report))
    });
    match result {
        Ok((output, report)) => {
            for warning in output.warnings() {
                eprintln!("{}", render_one(warning));
            }
            for note in &report.notes {
                eprintln!("note: {note}");
            }
            eprintln!(
                "{}: {} files, {} written, {} unchanged, {} removed",
                args.out.display(),
                output.files().len(),
                report.written.len(),
                report.unchanged.len(),
                report.removed.len()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            // Diagnostics name inputs as the user typed them.
            let typed: Vec<(PathBuf, PathBuf)> = args
                .inputs
                .iter()
                .map(|input| (source_name(input, &args.out), input.clone()))
                .collect();
            eprintln!("{}", render(&e.rename_files(&typed)));
            ExitCode::FAILURE
        }
    }
}

/// How generated headers name `input`: relative to the output directory (the crate), so the
/// same command run from any directory writes the same bytes; by its file name when no
/// relative path exists (another Windows drive).
fn source_name(input: &std::path::Path, out: &std::path::Path) -> PathBuf {
    let absolute = |path: &std::path::Path| {
        std::path::absolute(path).map(|p| {
            // Resolve symbolic links where the path exists (the output may not yet).
            let existing = p
                .ancestors()
                .find(|a| a.exists())
                .map(std::path::Path::to_path_buf);
            match existing.and_then(|e| Some((std::fs::canonicalize(&e).ok()?, e))) {
                Some((real, e)) => {
                    real.join(p.strip_prefix(&e).unwrap_or(std::path::Path::new("")))
                }
                None => p,
            }
        })
    };
    match (absolute(input), absolute(out)) {
        (Ok(input), Ok(out)) => crate::package::relative_to(&out, &input),
        _ => None,
    }
    .unwrap_or_else(|| {
        input
            .file_name()
            .map(PathBuf::from)
            .unwrap_or_else(|| input.to_path_buf())
    })
}

/// Renders errors the way rustc does: the message, the file and line, the offending source
/// line with a marker, and the hint. Diagnostics without a location fall back to their plain
/// form.
pub fn render(error: &crate::Error) -> String {
    let mut out = String::new();
    for d in error.diagnostics() {
        out.push_str(&render_one(d));
        out.push('\n');
    }
    if error.diagnostics().len() > 1 {
        out.push_str(&format!("{} errors\n", error.diagnostics().len()));
    }
    out
}

/// Renders one diagnostic, an error or a warning, the way rustc does.
pub fn render_one(d: &crate::Diagnostic) -> String {
    use codespan_reporting::diagnostic::{Diagnostic, Label};
    use codespan_reporting::files::SimpleFiles;
    use codespan_reporting::term::{Config, emit_into_string};

    let mut files = SimpleFiles::new();
    let source = d.location.and_then(|at| {
        let (file, _) = crate::diagnostics::split_document(&d.origin.file);
        std::fs::read_to_string(file).ok().map(|text| (at, text))
    });
    let rendered = source.and_then(|(at, text)| {
        let end = crate::load::locate::value_end_on_line(&text, at.offset);
        let id = files.add(d.origin.file.display().to_string(), text);
        let mut notes = Vec::new();
        if !d.origin.pointer.is_empty() {
            notes.push(format!("at #{}", d.origin.pointer));
        }
        notes.extend(d.hint.iter().map(|h| format!("hint: {h}")));
        let diagnostic = if d.kind.is_warning() {
            Diagnostic::warning()
        } else {
            Diagnostic::error()
        };
        let diagnostic = diagnostic
            .with_code(d.kind.as_str())
            .with_message(&d.message)
            .with_labels(vec![Label::primary(id, at.offset..end)])
            .with_notes(notes);
        emit_into_string(&Config::default(), &files, &diagnostic).ok()
    });
    rendered.unwrap_or_else(|| format!("{d}\n"))
}
