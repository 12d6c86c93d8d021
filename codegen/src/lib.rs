//! kubegen generates Rust types for Kubernetes-style APIs from OpenAPI documents.
//!
//! The pipeline has four stages, one module each:
//!
//! ```text
//! inputs ──load──▶ RawApi ──model──▶ ApiSet ──emit──▶ token streams ──write──▶ files
//! ```
//!
//! [`Config`] drives it, the same way from `cargo xtask regen` and from a `build.rs`:
//!
//! ```no_run
//! let output = kubegen::Config::new()
//!     .input("schemas/coordination.k8s.io_v1.json")
//!     .generate()?;
//! output.write("generated/src")?;
//! # Ok::<(), kubegen::Error>(())
//! ```

pub mod diagnostics;
pub mod emit;
pub mod load;
pub mod model;
pub mod write;

use std::path::{Path, PathBuf};

pub use diagnostics::{Diagnostic, Error, ErrorKind, Origin};
pub use write::{CheckReport, Layout, Output, WriteReport};

/// How schema names map to module paths.
///
/// A schema name is a dotted package path plus a type name
/// (`io.k8s.api.core.v1.Pod`). The package becomes the module path, after the first
/// matching prefix rule rewrites its start: by default `io.k8s.` is dropped and
/// `com.github.openshift.api.` becomes `openshift.`, so `io.k8s.api.core.v1.Pod` is
/// `api::core::v1::Pod` and `com.github.openshift.api.image.v1.ImageStream` is
/// `openshift::image::v1::ImageStream`. Each segment is then made a valid module name
/// (`kube-aggregator` → `kube_aggregator`).
#[derive(Clone, Debug)]
pub struct ModuleRules {
    prefixes: Vec<(String, String)>,
}

impl Default for ModuleRules {
    fn default() -> Self {
        ModuleRules {
            prefixes: vec![
                ("io.k8s.".to_owned(), String::new()),
                (
                    "com.github.openshift.api.".to_owned(),
                    "openshift.".to_owned(),
                ),
            ],
        }
    }
}

impl ModuleRules {
    /// Rules without any prefix rewriting.
    pub fn none() -> Self {
        ModuleRules {
            prefixes: Vec::new(),
        }
    }

    /// Adds a rule: schema names starting with `prefix` have it replaced by `replacement`
    /// (dotted, ending in `.` unless empty). Rules are tried in the order added.
    #[must_use]
    pub fn rewrite(mut self, prefix: impl Into<String>, replacement: impl Into<String>) -> Self {
        self.prefixes.push((prefix.into(), replacement.into()));
        self
    }

    /// The module path and the unqualified type name of `schema_name`.
    pub fn place(&self, schema_name: &str) -> (Vec<String>, String) {
        let mut name = schema_name.to_owned();
        if let Some((prefix, replacement)) = self
            .prefixes
            .iter()
            .find(|(p, _)| schema_name.starts_with(p.as_str()))
        {
            name = format!("{replacement}{}", &schema_name[prefix.len()..]);
        }
        match name.rsplit_once('.') {
            Some((package, base)) => (
                package
                    .split('.')
                    .filter(|s| !s.is_empty())
                    .map(model::naming::module_name)
                    .collect(),
                base.to_owned(),
            ),
            None => (Vec::new(), name),
        }
    }
}

/// One input document: where to read it and how to name it in diagnostics and headers.
#[derive(Clone, Debug)]
struct Input {
    read_from: PathBuf,
    display: PathBuf,
}

/// The generator's configuration; a builder in the style of prost-build.
#[derive(Clone, Debug)]
pub struct Config {
    inputs: Vec<Input>,
    modules: ModuleRules,
    options: emit::Options,
    layout: Layout,
    generated_by: String,
}

impl Default for Config {
    fn default() -> Self {
        Config::new()
    }
}

impl Config {
    /// A configuration with no inputs, the default module rules, and output laid out as
    /// the `src/` of a crate.
    pub fn new() -> Self {
        Config {
            inputs: Vec::new(),
            modules: ModuleRules::default(),
            options: emit::Options::default(),
            layout: Layout::Crate,
            generated_by: "kubegen".to_owned(),
        }
    }

    /// Adds an input document. It is named in diagnostics and headers as given.
    #[must_use]
    pub fn input(mut self, path: impl AsRef<Path>) -> Self {
        let path = path.as_ref();
        self.inputs.push(Input {
            read_from: path.to_path_buf(),
            display: path.to_path_buf(),
        });
        self
    }

    /// Adds an input document read from `path` but named `display` in diagnostics and
    /// headers (for example a path relative to the project, so output does not depend on
    /// where the project is checked out).
    #[must_use]
    pub fn input_named(mut self, path: impl AsRef<Path>, display: impl AsRef<Path>) -> Self {
        self.inputs.push(Input {
            read_from: path.as_ref().to_path_buf(),
            display: display.as_ref().to_path_buf(),
        });
        self
    }

    /// Replaces the module rules.
    #[must_use]
    pub fn modules(mut self, rules: ModuleRules) -> Self {
        self.modules = rules;
        self
    }

    /// The Rust path of the generated root module, used in every reference between generated
    /// types: `crate` (the default) when the output is a crate's `src/`, or e.g.
    /// `crate::k8s` when it is included as the module `k8s`.
    #[must_use]
    pub fn root_path(mut self, path: impl Into<String>) -> Self {
        self.options.root_path = path.into();
        self
    }

    /// The Rust path of the runtime crate, `::kubegen_runtime` by default.
    #[must_use]
    pub fn runtime_path(mut self, path: impl Into<String>) -> Self {
        self.options.runtime_path = path.into();
        self
    }

    /// How the output is split into files.
    #[must_use]
    pub fn layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self
    }

    /// The command named in each file's header (`generated by <command> — do not edit`).
    #[must_use]
    pub fn generated_by(mut self, command: impl Into<String>) -> Self {
        self.generated_by = command.into();
        self
    }

    /// Runs load, model and emit, and renders every file in memory. Nothing is written:
    /// call [`Output::write`] or [`Output::check`] on the result.
    pub fn generate(&self) -> Result<Output, Error> {
        let api = self.model()?;
        let tree = emit::emit(&api, &self.options)?;
        write::render(&tree, self.layout, &self.generated_by)
    }

    /// Runs load and model only, for inspecting the intermediate representation.
    pub fn model(&self) -> Result<model::ApiSet, Error> {
        let mut documents = Vec::with_capacity(self.inputs.len());
        let mut problems: Option<Error> = None;
        for input in &self.inputs {
            match load::load_file(&input.read_from, &input.display) {
                Ok(document) => documents.push(document),
                Err(e) => {
                    problems = Some(match problems {
                        Some(earlier) => earlier.join(e),
                        None => e,
                    })
                }
            }
        }
        if let Some(e) = problems {
            return Err(e);
        }
        let raw = load::merge(documents)?;
        model::build(&raw, &self.modules)
    }
}
