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
    /// The directory to write the crate into (Cargo.toml and src/).
    #[arg(long)]
    pub out: PathBuf,
    /// The crate's package name.
    #[arg(long, default_value = "kube-api")]
    pub crate_name: String,
    /// Generate only this, plus what it references: group=G, group-version=G/V, kind=K or
    /// schema=NAME. Repeatable.
    #[arg(long = "select", value_parser = clap::value_parser!(Selector))]
    pub select: Vec<Selector>,
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
    /// Drop fields the generated types do not know when reading (by default every struct
    /// keeps them in `unknown_fields` and writes them back).
    #[arg(long)]
    pub drop_unknown_fields: bool,
    /// Depend on kubeforge-runtime at this path instead of the one beside the generator.
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
            .docs(!self.no_docs)
            .unknown_fields(!self.drop_unknown_fields);
        for input in &self.inputs {
            config = config.input(input);
        }
        for selector in &self.select {
            config = config.select(selector.clone());
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
            eprintln!("{}", render(&e));
            ExitCode::FAILURE
        }
    }
}

/// Renders errors the way rustc does: the message, the file and line, the offending source
/// line with a marker, and the hint. Diagnostics without a location fall back to their plain
/// form.
pub fn render(error: &crate::Error) -> String {
    use codespan_reporting::diagnostic::{Diagnostic, Label};
    use codespan_reporting::files::SimpleFiles;
    use codespan_reporting::term::{Config, emit_into_string};

    let mut files = SimpleFiles::new();
    let mut out = String::new();
    for d in error.diagnostics() {
        let source = d.location.and_then(|at| {
            std::fs::read_to_string(&d.origin.file)
                .ok()
                .map(|text| (at, text))
        });
        let rendered = source.and_then(|(at, text)| {
            let end = crate::load::locate::value_end_on_line(&text, at.offset);
            let id = files.add(d.origin.file.display().to_string(), text);
            let mut notes = vec![format!("at #{}", d.origin.pointer)];
            notes.extend(d.hint.iter().map(|h| format!("hint: {h}")));
            let diagnostic = Diagnostic::error()
                .with_code(d.kind.as_str())
                .with_message(&d.message)
                .with_labels(vec![Label::primary(id, at.offset..end)])
                .with_notes(notes);
            emit_into_string(&Config::default(), &files, &diagnostic).ok()
        });
        match rendered {
            Some(text) => out.push_str(&text),
            None => out.push_str(&format!("{d}\n")),
        }
        out.push('\n');
    }
    if error.diagnostics().len() > 1 {
        out.push_str(&format!("{} errors\n", error.diagnostics().len()));
    }
    out
}
