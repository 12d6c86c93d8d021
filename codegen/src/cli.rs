//! The command line: `kubeforge <inputs…> --out <dir> [options]` writes a complete, buildable
//! crate from any mix of supported documents; `kubeforge routes <inputs…> [--json]` prints
//! their route table. The installed `kubeforge` binary and `cargo xtask generate` both run
//! this.

pub mod diff;
mod routes;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::package::{CrateOptions, RuntimeDependency, write_crate};
use crate::{Config, Pattern};

pub use routes::routes;

/// The name standard input is given in diagnostics and headers.
const STDIN: &str = "<stdin>";

/// The k8s-openapi requirement `--kube` adds; the version kube 5 uses.
const K8S_OPENAPI: &str = "0.29";

/// The kube-core requirement `--kube` adds (`CustomResourceExt`): kube 5's.
const KUBE_CORE: &str = "5";

/// Generate a Rust crate from Kubernetes OpenAPI documents or CRDs.
///
/// Inputs are OpenAPI v3 or Swagger 2.0 documents (JSON or YAML), CustomResourceDefinitions,
/// `kubectl get crd -o yaml` lists, or bundles of manifests (a Helm chart's rendered output:
/// everything but the CRDs is skipped with a note). `-` reads standard input.
#[derive(Debug, Parser)]
#[command(
    name = "kubeforge",
    version,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct Args {
    /// A command other than generating a crate.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// What to generate from.
    #[command(flatten)]
    pub input: InputArgs,
    /// How to generate it.
    #[command(flatten)]
    pub generate: GenerateArgs,
}

/// The commands besides the default one, which generates a crate.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the route table of the inputs: every operation with its method, path and action,
    /// grouped by group-version and resource, in at most 100 columns.
    Routes {
        /// What to read.
        #[command(flatten)]
        input: InputArgs,
        /// One JSON object per route and line instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Print what changed in the API from the OLD documents to the NEW ones (`kubeforge diff
    /// OLD… -- NEW…`): types, fields, enums, defaults, deprecations, resources and
    /// operations, each with its semver effect on the generated crate (breaking, additive or
    /// compatible), grouped by API group. With `--releases` and `--release`, what one
    /// release of several merged changes against the release before it.
    Diff {
        /// The documents of the old API (with `--releases`: every release's documents).
        #[arg(required = true, value_name = "OLD")]
        old: Vec<PathBuf>,
        /// The documents of the new API, after `--`.
        #[arg(
            last = true,
            required_unless_present = "releases",
            conflicts_with = "releases",
            value_name = "NEW"
        )]
        new: Vec<PathBuf>,
        /// The inputs are releases of one API, the i-th input the i-th release, oldest first,
        /// merged as `kubeforge --releases` merges them.
        #[arg(
            long,
            value_name = "RELEASE,…",
            value_delimiter = ',',
            requires = "release"
        )]
        releases: Vec<String>,
        /// With `--releases`: report what this release changes against the one before it,
        /// from the merge's knowledge of which release has what.
        #[arg(long, value_name = "RELEASE", requires = "releases")]
        release: Option<String>,
        /// Markdown for a pull-request description: breaking changes first in each group.
        #[arg(long, conflicts_with = "json")]
        markdown: bool,
        /// One JSON object with every change.
        #[arg(long)]
        json: bool,
    },
}

/// The inputs and the selection, shared by every command.
#[derive(Debug, clap::Args)]
pub struct InputArgs {
    /// Input documents (`-` for standard input): OpenAPI v3 or Swagger 2.0 (JSON or YAML),
    /// CRDs and lists of them (YAML or JSON, several documents per file allowed).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Generate only what this pattern names, plus what it references: kind=K, group=G,
    /// group-version=G/V, a schema name (`io.example.v1.Widget`) or package
    /// (`io.example.v1.*`, `io.example.**`), a Rust path or module (`io::example::v1::*`), or
    /// a type name. Repeatable. (kopium's `--api-version V` is `--select group-version=G/V`.)
    #[arg(long = "select", value_name = "PATTERN", value_parser = clap::value_parser!(Pattern))]
    pub select: Vec<Pattern>,
    /// Where two inputs define one schema differently enough to make different types, use
    /// this input's definition and warn; without it that is an error. DOCUMENT is one of the
    /// inputs, by any path to it (`-` for standard input). Repeatable: earlier wins.
    /// Definitions that make the same type always merge.
    #[arg(long, value_name = "DOCUMENT")]
    pub prefer: Vec<PathBuf>,
    /// A directory of `.proto` files laid out by import path (Kubernetes':
    /// `k8s.io/api/core/v1/generated.proto`): every struct whose schema has a message also
    /// reads and writes Kubernetes' protobuf encoding, behind the crate's cargo feature
    /// `protobuf` (see the guide's "Protobuf"). Repeatable.
    #[arg(long, value_name = "DIR")]
    pub proto: Vec<PathBuf>,
    /// The inputs are releases of one API, the i-th input the i-th release, oldest first:
    /// `--releases 1.32,1.33 swagger-1.32.json swagger-1.33.json`. One crate is generated
    /// in which every type, field, enum value and operation exists once and knows the
    /// releases that have it (see the guide's "Several Kubernetes releases").
    #[arg(long, value_name = "RELEASE,…", value_delimiter = ',')]
    pub releases: Vec<String>,
    /// With `--releases`: generate only what this one release has (its types, fields, enum
    /// values, resources and operations), from the merge of all of them.
    #[arg(long, value_name = "RELEASE", requires = "releases")]
    pub release: Option<String>,
}

/// The options of crate generation.
#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// The directory to write the crate into (Cargo.toml and src/). A hand-written
    /// Cargo.toml there is left alone (with a note on what the generated one would add); its
    /// `[workspace]` table is left out when the directory is a member of an enclosing
    /// workspace.
    #[arg(long, required = true)]
    pub out: Option<PathBuf>,
    /// The crate's package name.
    #[arg(long, default_value = "kube-api")]
    pub crate_name: String,
    /// Make the crate work with kube: the meta types (`ObjectMeta`, …) are k8s-openapi's and
    /// every served resource implements k8s-openapi's `Resource`, `ListableResource` and
    /// `Metadata`, so `kube::Api::<T>` takes it; every kind made from a CRD implements
    /// kube's `CustomResourceExt` (`Foo::crd()`). The crate depends on kube-core, and on k8s-openapi without a
    /// version feature, as k8s-openapi asks of libraries: the program using it picks one
    /// (`features = ["latest"]` or `["v1_33"]`, …); its own tests use `latest`.
    #[arg(long)]
    pub kube: bool,
    /// Derive a trait on generated structs and enums, as kopium does: `TRAIT` for all of
    /// them, `@struct=TRAIT`, `@enum=TRAIT` or `@enum:simple=TRAIT` (string enums only), or
    /// `PATTERN=TRAIT` (a pattern as for --type-attribute; a type name as kopium's). A trait
    /// derived already, or `Default`/`Eq` where it does not hold, is left out. Repeatable.
    #[arg(long = "derive", value_name = "[PATTERN=]TRAIT")]
    pub derive: Vec<String>,
    /// Add an attribute to generated structs and enums: `PATTERN=#[…]`, where PATTERN is `*`,
    /// a type name (`WidgetSpec`, in any module), a schema name (`io.example.v1.Widget`) or
    /// package (`io.example.v1.*` directly in it, `io.example.**` below it), a Rust path
    /// below the crate root (`io::example::v1::Widget`) or module (`io::example::v1::*`,
    /// `io::**`), `kind=K`, `group=G`, `group-version=G/V`, `@struct`, `@enum` or
    /// `@enum:simple`. Repeatable.
    #[arg(long = "type-attribute", value_name = "PATTERN=ATTRIBUTE")]
    pub type_attribute: Vec<String>,
    /// The map type of `additionalProperties`: `BTreeMap` (the default), `HashMap`, or the path
    /// of any map type generic over key and value (`::indexmap::IndexMap`, whose crate you
    /// then add to the generated Cargo.toml).
    #[arg(long, value_name = "PATH")]
    pub map_type: Option<String>,
    /// Use an existing type instead of generating one: `PATTERN=PATH`
    /// (`io.k8s.api.core.v1.ObjectReference=::k8s_openapi::api::core::v1::ObjectReference`,
    /// `Condition=::my::Condition`), or `PATTERN=MODULE::*` for each type a pattern names
    /// (`io.k8s.apimachinery.pkg.apis.meta.v1.*=::k8s_openapi::apimachinery::pkg::apis::meta::v1::*`:
    /// every schema directly in a package). The most specific pattern wins. Repeatable. One
    /// that matches nothing is a note.
    #[arg(long = "extern", value_name = "PATTERN=PATH")]
    pub extern_types: Vec<String>,
    /// Gate each API group behind a cargo feature of the same name (`core` for the core
    /// group), with dependencies between groups worked out; all are on by default.
    #[arg(long)]
    pub group_features: bool,
    /// Leave out the builders (types only get plain struct literals).
    #[arg(long)]
    pub no_builders: bool,
    /// Leave out the `Validate` impls (the schemas' constraints and CEL rules).
    #[arg(long)]
    pub no_validation: bool,
    /// Generate apply configurations for server-side apply (`T::apply(…)`, `TApply`),
    /// compiled with the crate's cargo feature `apply`.
    #[arg(long)]
    pub apply_types: bool,
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
    /// Give every nested object a type of its own, named after its path, instead of one
    /// type per shape (and Kubernetes' types for their shapes).
    #[arg(long)]
    pub no_dedup: bool,
    /// Also use a Kubernetes type of the inputs for a nested object whose properties are a
    /// subset of the type's (same shapes; the type's other properties optional).
    #[arg(long, conflicts_with = "no_dedup")]
    pub known_subset: bool,
    /// Generate the meta types (`ObjectMeta`, `ListMeta`, `Status`, …) into the crate instead
    /// of using the companion crate kubeforge-meta's (the default, which crates generated
    /// separately share). For an older release's meta types; a type an input defines
    /// differently from the companion's is generated locally anyway.
    #[arg(long)]
    pub local_meta: bool,
    /// Depend on kubeforge-runtime at this path instead of the one beside the generator, and
    /// on kubeforge-meta beside it (`meta` in the same parent directory). A
    /// relative path is relative to the output directory (--out), as cargo reads it from the
    /// generated Cargo.toml; an absolute one is written relative to the output directory too,
    /// so the generated crate holds no absolute path.
    #[arg(long, conflicts_with = "runtime_version")]
    pub runtime_path: Option<PathBuf>,
    /// Depend on kubeforge-runtime (and kubeforge-meta) from a registry, with this version
    /// requirement.
    #[arg(long)]
    pub runtime_version: Option<String>,
    /// Write how long each stage took (load, model, emit, render, write; wall seconds) to
    /// FILE as one JSON object, or to standard error with `-`.
    #[arg(long, value_name = "FILE")]
    pub timings: Option<PathBuf>,
}

/// Splits `PATTERN=VALUE` where the pattern ends (`Pattern::split_value`) and checks the
/// pattern, so a usage error names the flag.
fn pattern_and_value<'a>(flag: &str, text: &'a str) -> Result<(&'a str, &'a str), String> {
    let (pattern, value) = Pattern::split_value(text)
        .ok_or_else(|| format!("expected `--{flag} PATTERN=VALUE`, found {text:?}"))?;
    pattern
        .parse::<Pattern>()
        .map_err(|e| format!("in `--{flag} {text}`: {e}"))?;
    Ok((pattern, value))
}

impl InputArgs {
    /// The configuration reading these inputs; `stdin` is standard input's text, when an
    /// input is `-`. With `out`, generated headers name each input relative to it (see
    /// [`source_name`]).
    fn config(&self, stdin: Option<&[u8]>, out: Option<&Path>) -> Config {
        let mut config = Config::new();
        for (i, input) in self.inputs.iter().enumerate() {
            config = match (stdin, out) {
                (Some(bytes), _) if input.as_os_str() == "-" => config.input_bytes(STDIN, bytes),
                (_, Some(out)) => config.input_named(input, source_name(input, out)),
                (_, None) => config.input(input),
            };
            if let Some(release) = self.releases.get(i) {
                config = config.in_release(release);
            }
        }
        if let Some(release) = &self.release {
            config = config.only_release(release);
        }
        for selector in &self.select {
            config = config.select(selector.clone());
        }
        for dir in &self.proto {
            config = config.proto(dir);
        }
        for document in &self.prefer {
            config = if document.as_os_str() == "-" {
                config.prefer(STDIN)
            } else {
                config.prefer(document)
            };
        }
        config
    }

    /// Each input as headers name it (relative to `out`) and as the user typed it, so that
    /// diagnostics show what was typed.
    fn typed_names(&self, out: Option<&Path>) -> Vec<(PathBuf, PathBuf)> {
        let Some(out) = out else {
            return Vec::new();
        };
        self.inputs
            .iter()
            .filter(|input| input.as_os_str() != "-")
            .map(|input| (source_name(input, out), input.clone()))
            .collect()
    }
}

impl GenerateArgs {
    /// Adds these options to `config`.
    fn apply(&self, mut config: Config) -> Result<Config, String> {
        config = config
            .crate_name(&self.crate_name)
            .features(self.group_features)
            .builders(!self.no_builders)
            .apply_types(self.apply_types)
            .validation(!self.no_validation)
            .routes(!self.no_routes)
            .docs(!self.no_docs)
            .unknown_fields(!self.drop_unknown_fields)
            .dedup(!self.no_dedup)
            .known_subset(self.known_subset)
            .companion_meta(!self.local_meta);
        if self.kube {
            config = config
                .extern_type(
                    "io.k8s.apimachinery.pkg.apis.meta.v1.*",
                    "::k8s_openapi::apimachinery::pkg::apis::meta::v1::*",
                )
                .k8s_openapi_traits(true)
                .custom_resource_ext(Some("::kube_core"));
        }
        for text in &self.extern_types {
            let (schema, path) = pattern_and_value("extern", text)?;
            config = config.extern_type(schema, path);
        }
        for text in &self.derive {
            // kopium's forms: `TRAIT` alone is every type.
            let (pattern, derive) = if text.contains('=') {
                pattern_and_value("derive", text)?
            } else {
                ("*", text.as_str())
            };
            config = config.derive(pattern, derive);
        }
        for text in &self.type_attribute {
            let (pattern, attribute) = pattern_and_value("type-attribute", text)?;
            config = config.type_attribute(pattern, attribute);
        }
        if let Some(map) = &self.map_type {
            config = config.map_type(match map.as_str() {
                "BTreeMap" => "::std::collections::BTreeMap",
                "HashMap" => "::std::collections::HashMap",
                path => path,
            });
        }
        Ok(config)
    }

    fn crate_options(&self) -> CrateOptions {
        let runtime = match (&self.runtime_path, &self.runtime_version) {
            (Some(path), _) => RuntimeDependency::Path(path.clone()),
            (None, Some(version)) => RuntimeDependency::Version(version.clone()),
            (None, None) => RuntimeDependency::default(),
        };
        let (dependencies, dev_dependencies) = if self.kube {
            (
                vec![
                    format!("k8s-openapi = \"{K8S_OPENAPI}\""),
                    format!("kube-core = \"{KUBE_CORE}\""),
                ],
                vec![format!(
                    "k8s-openapi = {{ version = \"{K8S_OPENAPI}\", features = [\"latest\"] }}"
                )],
            )
        } else {
            (Vec::new(), Vec::new())
        };
        CrateOptions {
            name: self.crate_name.clone(),
            runtime,
            dependencies,
            dev_dependencies,
        }
    }
}

impl Args {
    /// The configuration these arguments describe (standard input, if named, is read).
    pub fn config(&self) -> Result<Config, String> {
        let stdin = self.read_stdin(&self.input)?;
        self.generate.apply(
            self.input
                .config(stdin.as_deref(), self.generate.out.as_deref()),
        )
    }

    /// Checks what clap cannot check of `input` (one release per input), then reads
    /// standard input if an input names it.
    fn read_stdin(&self, input: &InputArgs) -> Result<Option<Vec<u8>>, String> {
        if !input.releases.is_empty() && input.releases.len() != input.inputs.len() {
            return Err(format!(
                "expected one release per input with `--releases`, but there are {} releases and {} inputs",
                input.releases.len(),
                input.inputs.len()
            ));
        }
        let wanted = input.inputs.iter().filter(|i| i.as_os_str() == "-").count();
        if wanted > 1 {
            return Err("expected `-` (standard input) at most once among the inputs".to_owned());
        }
        if wanted == 0 {
            return Ok(None);
        }
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        Ok(Some(bytes))
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
    match &args.command {
        Some(Command::Routes { input, json }) => return run_routes(&args, input, *json),
        Some(Command::Diff {
            old,
            new,
            releases,
            release,
            markdown,
            json,
        }) => {
            let format = diff::Format::from_flags(*markdown, *json);
            return match release {
                Some(release) => diff::run_release(old, releases, release, format),
                None => diff::run(old, new, format),
            };
        }
        None => {}
    }
    let usage = |message: String| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    };
    let stdin = match args.read_stdin(&args.input) {
        Ok(stdin) => stdin,
        Err(message) => return usage(message),
    };
    let out = args.generate.out.as_deref();
    let config = match args
        .generate
        .apply(args.input.config(stdin.as_deref(), out))
    {
        Ok(config) => config,
        Err(message) => return usage(message),
    };
    let Some(out) = &args.generate.out else {
        return usage("expected `--out DIR`".to_owned());
    };
    let result = config.generate().and_then(|output| {
        let start = std::time::Instant::now();
        write_crate(&output, out, &args.generate.crate_options())
            .map(|report| (output, report, start.elapsed()))
    });
    match result {
        Ok((output, report, write)) => {
            if let Some(file) = &args.generate.timings {
                let json = output.timings().to_json(write);
                if file.as_os_str() == "-" {
                    eprintln!("{json}");
                } else if let Err(e) = std::fs::write(file, format!("{json}\n")) {
                    eprintln!("error: cannot write the timings to {}: {e}", file.display());
                    return ExitCode::FAILURE;
                }
            }
            let typed = args.input.typed_names(Some(out));
            for warning in output.warnings() {
                let mut warning = warning.clone();
                warning.rename_files(&typed);
                eprintln!("{}", render_one(&warning, stdin.as_deref()));
            }
            for note in output.notes() {
                let mut note = note.clone();
                note.rename_files(&typed);
                eprintln!("{note}");
            }
            for note in &report.notes {
                eprintln!("note: {note}");
            }
            eprintln!(
                "{}: {} files, {} written, {} unchanged, {} removed",
                out.display(),
                output.files().len(),
                report.written.len(),
                report.unchanged.len(),
                report.removed.len()
            );
            eprintln!(
                "{}",
                resources_line(&args.generate.crate_name, output.resource_modules())
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            // Diagnostics name inputs as the user typed them.
            let e = e.rename_files(&args.input.typed_names(Some(out)));
            eprint!("{}", render(&e, stdin.as_deref()));
            ExitCode::FAILURE
        }
    }
}

fn run_routes(args: &Args, input: &InputArgs, json: bool) -> ExitCode {
    let stdin = match args.read_stdin(input) {
        Ok(stdin) => stdin,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    match routes(&input.config(stdin.as_deref(), None), json) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprint!("{}", render(&e, stdin.as_deref()));
            ExitCode::FAILURE
        }
    }
}

/// The last line of a run: where the resources are, as paths a user writes in `use`.
fn resources_line(crate_name: &str, modules: &BTreeMap<Vec<String>, Vec<String>>) -> String {
    let root = crate_name.replace('-', "_");
    if modules.is_empty() {
        return format!("no served resources; the types are below `{root}`");
    }
    let kinds: usize = modules.values().map(Vec::len).sum();
    let paths: Vec<String> = modules
        .iter()
        .map(|(module, kinds)| {
            let path = std::iter::once(root.as_str())
                .chain(module.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join("::");
            match kinds.as_slice() {
                [kind] => format!("{path}::{kind}"),
                _ if kinds.len() <= 4 => format!("{path}::{{{}}}", kinds.join(", ")),
                _ => format!("{path} ({} kinds)", kinds.len()),
            }
        })
        .collect();
    format!(
        "{kinds} resource{} in: {}",
        if kinds == 1 { "" } else { "s" },
        paths.join(", ")
    )
}

/// Renders errors the way rustc does: the message, the file and line, the offending source
/// line with a marker, and the hint. Diagnostics without a location fall back to their plain
/// form. `stdin` is standard input's text, for diagnostics in it.
pub fn render(error: &crate::Error, stdin: Option<&[u8]>) -> String {
    let mut out = String::new();
    for d in error.diagnostics() {
        out.push_str(&render_one(d, stdin));
        out.push('\n');
    }
    if error.diagnostics().len() > 1 {
        out.push_str(&format!("{} errors\n", error.diagnostics().len()));
    }
    out
}

/// Renders one diagnostic, an error or a warning, the way rustc does. `stdin` is standard
/// input's text, for a diagnostic in it.
pub fn render_one(d: &crate::Diagnostic, stdin: Option<&[u8]>) -> String {
    use codespan_reporting::diagnostic::{Diagnostic, Label};
    use codespan_reporting::files::SimpleFiles;
    use codespan_reporting::term::{Config, emit_into_string};

    let mut files = SimpleFiles::new();
    let (file, _) = crate::diagnostics::split_document(&d.origin.file);
    let text = match stdin {
        Some(bytes) if file == Path::new(STDIN) => String::from_utf8(bytes.to_vec()).ok(),
        _ => std::fs::read_to_string(&file).ok(),
    };
    let source = d.location.and_then(|at| text.map(|text| (at, text)));
    let rendered = source.and_then(|(at, text)| {
        let end = crate::diagnostics::locate::value_end_on_line(&text, at.offset);
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
