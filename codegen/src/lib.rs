//! kubeforge generates Rust types for Kubernetes-style APIs from OpenAPI documents.
//!
//! The pipeline has four stages, one private module each:
//!
//! ```text
//! inputs ──load──▶ LoadedApi ──model──▶ ApiSet ──emit──▶ formatted text ──write──▶ files
//! ```
//!
//! The public API is [`Config`] (every option), what it returns ([`Output`], [`Error`] with
//! its [`Diagnostic`]s, [`Note`]s), [`Pattern`] (the one pattern language of every option
//! that names types), [`ModuleRules`], [`Layout`], [`package`]
//! for a complete crate around the output, [`view`] for reading what the generator
//! understood of the inputs ([`Config::model`]: types, fields, resources, operations, schema
//! nodes; the in-memory API server builds its catalog from it), [`diff`] for comparing two
//! APIs, and, with the `cli` feature, [`cli`]. The stages themselves are private. [`Config`]
//! drives the pipeline, the same way from `cargo xtask regen` and from a `build.rs`:
//!
//! ```no_run
//! let output = kubeforge::Config::new()
//!     .input("schemas/coordination.k8s.io_v1.json")
//!     .generate()?;
//! output.write("generated/src")?;
//! # Ok::<(), kubeforge::Error>(())
//! ```
//!
//! A build script calls [`Config::compile`] instead, which writes one include file into
//! `OUT_DIR` (see the guide's recipes, `docs/src/guide/build-rs.md` and `kube.md`).

#[cfg(feature = "cli")]
pub mod cli;
mod compile;
pub mod diagnostics;
pub mod diff;
mod emit;
mod ground;
mod load;
mod model;
pub mod package;
mod timings;
pub mod view;
mod write;

use ground::attribute::{Place, UserAttribute};
use std::path::{Path, PathBuf};
use std::time::Instant;

pub use diagnostics::{Diagnostic, Error, ErrorKind, LineColumn, Note, Origin};
pub use ground::ModuleRules;
pub use ground::pattern::Pattern;
pub use model::features::Features;
pub use timings::Timings;
pub use write::{CheckReport, Layout, Output, WriteReport};

/// The named fixups of known upstream document bugs (`load/fixups.rs`): each name and why the
/// fix is right. A fixup applies only to the input it targets and fails loudly
/// (`error[stale-fixup]`) once the bug is gone.
pub fn fixups() -> impl Iterator<Item = (&'static str, &'static str)> {
    load::fixups::FIXUPS.iter().map(|f| (f.name, f.why))
}

/// The document of the built-in meta types (OpenAPI v3): what fills in the meta types an
/// input references without defining them (CRDs reference `ObjectMeta`), and what `cargo
/// xtask regen` generates the companion crate `kubeforge-meta` from (see
/// [`Config::companion_meta`]).
pub fn builtin_meta_document() -> &'static [u8] {
    load::builtin_document()
}

/// The CRD whose query structs the runtime's `crd_query` module holds: every CRD's operations
/// take the conventions' parameters, so any CRD's would do.
const CRD_QUERY_INPUT: &str = r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "widgets.example.com"},
 "spec": {"group": "example.com", "scope": "Namespaced",
  "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
  "versions": [{"name": "v1", "served": true, "storage": true,
   "schema": {"openAPIV3Schema": {"type": "object"}}}]}}
"#;

/// The text of the runtime's `crd_query` module (`runtime/src/crd_query.rs`): the query
/// structs of a CRD's operations as every CRD crate would write them (the defaults: docs and
/// builders), which such a crate re-exports instead of compiling its own. `cargo xtask regen`
/// writes the file with it, and `regen --check` compares.
#[doc(hidden)]
pub fn crd_query_module() -> Result<String, Error> {
    let config = Config::new().input_bytes("crd_query.json", CRD_QUERY_INPUT);
    let api = config.api()?;
    emit::crd_query_module(&api, &config.options)
}

/// The table of Kubernetes' struct shapes that dedup names embedded Kubernetes types by
/// (`codegen/src/model/known_shapes.tsv`: schema name, tab, the shape as JSON), built from the
/// Kubernetes OpenAPI document at `swagger` as it defines them (no dedup, the meta types its
/// own). `cargo xtask regen` rebuilds the committed table with it from the newest release.
pub fn known_shapes_table(swagger: impl AsRef<Path>) -> Result<String, Error> {
    let api = Config::new()
        .input(swagger)
        .dedup(false)
        .companion_meta(false)
        .api()?;
    Ok(model::known::table_text(&api))
}

/// One input document: where to read it and how to name it in diagnostics and headers.
#[derive(Clone, Debug)]
struct Input {
    source: Source,
    display: PathBuf,
    /// The release it belongs to ([`Config::release_input`]).
    release: Option<String>,
}

/// Where an input's text comes from.
#[derive(Clone, Debug)]
enum Source {
    File(PathBuf),
    Memory(std::sync::Arc<[u8]>),
}

impl Input {
    /// Whether `wanted` names this input, however it was typed: the name it was given
    /// under, or any path to the same file (relative to the current directory or absolute,
    /// with `.` and `..`; a symbolic link counts as the file it points to).
    fn is_named(&self, wanted: &Path) -> bool {
        if wanted == self.display || lexical(wanted) == lexical(&self.display) {
            return true;
        }
        let Source::File(path) = &self.source else {
            return false;
        };
        if wanted == path || lexical(wanted) == lexical(path) {
            return true;
        }
        match (std::fs::canonicalize(wanted), std::fs::canonicalize(path)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }

    fn text(&self) -> Option<String> {
        match &self.source {
            Source::File(path) => std::fs::read_to_string(path).ok(),
            Source::Memory(bytes) => String::from_utf8(bytes.to_vec()).ok(),
        }
    }

    fn load(&self) -> Result<load::Document, Error> {
        match &self.source {
            Source::File(path) => load::load_file(path, &self.display),
            Source::Memory(bytes) => load::load_bytes(bytes, &self.display),
        }
    }
}

/// `path` made absolute against the current directory, with `.` and `..` resolved by
/// position alone (no file system access, so it also works for names of in-memory inputs).
fn lexical(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map_or_else(|_| path.to_path_buf(), |dir| dir.join(path))
    };
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The generator's configuration; a builder in the style of prost-build.
#[derive(Clone, Debug)]
pub struct Config {
    inputs: Vec<Input>,
    selectors: Vec<Pattern>,
    modules: ModuleRules,
    options: emit::Options,
    model: model::Options,
    layout: Layout,
    generated_by: String,
    externs: Vec<model::ExternType>,
    out_dir: Option<PathBuf>,
    include_file: PathBuf,
    prefer: Vec<PathBuf>,
    only_release: Option<String>,
    proto: Vec<PathBuf>,
    builtin_protobuf: bool,
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
            selectors: Vec::new(),
            modules: ModuleRules::default(),
            options: emit::Options::default(),
            model: model::Options::default(),
            layout: Layout::Crate,
            generated_by: "kubeforge".to_owned(),
            externs: Vec::new(),
            out_dir: None,
            include_file: PathBuf::from(compile::DEFAULT_INCLUDE_FILE),
            prefer: Vec::new(),
            only_release: None,
            proto: Vec::new(),
            builtin_protobuf: false,
        }
    }

    /// Adds an input document. It is named in diagnostics and headers as given.
    #[must_use]
    pub fn input(mut self, path: impl AsRef<Path>) -> Self {
        let path = path.as_ref();
        self.inputs.push(Input {
            source: Source::File(path.to_path_buf()),
            display: path.to_path_buf(),
            release: None,
        });
        self
    }

    /// Adds an input document read from `path` but named `display` in diagnostics and
    /// headers (for example a path relative to the project, so output does not depend on
    /// where the project is checked out).
    #[must_use]
    pub fn input_named(mut self, path: impl AsRef<Path>, display: impl AsRef<Path>) -> Self {
        self.inputs.push(Input {
            source: Source::File(path.as_ref().to_path_buf()),
            display: display.as_ref().to_path_buf(),
            release: None,
        });
        self
    }

    /// Adds an input document held in memory, named `display` in diagnostics and headers
    /// (for documents fetched from a cluster, embedded, or generated).
    #[must_use]
    pub fn input_bytes(mut self, display: impl AsRef<Path>, bytes: impl Into<Vec<u8>>) -> Self {
        self.inputs.push(Input {
            source: Source::Memory(bytes.into().into()),
            display: display.as_ref().to_path_buf(),
            release: None,
        });
        self
    }

    /// Adds an input document belonging to the Kubernetes release `release` (`1.32`): the
    /// inputs are then several releases of one API, merged into one model in which every
    /// type, field, enum value, resource and operation exists once and carries the releases
    /// that have it ([`view::Model::releases`]; the guide's `docs/src/guide/releases.md`). A
    /// release may have several inputs, which merge by the ordinary rules; releases are
    /// ordered by their first input and must increase (`1.32` before `1.33`). Once one input
    /// belongs to a release, every input must. Where a definition changes shape between
    /// releases (a field's type, its requiredness), the generated shape reads every
    /// release's objects (optional; free-form JSON for a changed type), and a warning
    /// ([`Output::warnings`], `warning[release-shape-change]`) names each release's place.
    #[must_use]
    pub fn release_input(mut self, release: &str, path: impl AsRef<Path>) -> Self {
        let path = path.as_ref();
        self.inputs.push(Input {
            source: Source::File(path.to_path_buf()),
            display: path.to_path_buf(),
            release: Some(release.to_owned()),
        });
        self
    }

    /// Sets the release of the input added last ([`Config::input_named`],
    /// [`Config::input_bytes`], …), as [`Config::release_input`] does for a file named as
    /// given.
    #[must_use]
    pub fn in_release(mut self, release: &str) -> Self {
        if let Some(input) = self.inputs.last_mut() {
            input.release = Some(release.to_owned());
        }
        self
    }

    /// Projects the merged releases onto the one release `release`: the model (and the
    /// generated crate) has only the types, fields, enum values, resources and operations
    /// that release has, each field required as that release requires it and each operation
    /// with that release's parameters. What the inputs of every release define still
    /// merges first (so the same inputs make the same names). Needs inputs of releases
    /// ([`Config::release_input`]); a release none of them belongs to is an error.
    #[must_use]
    pub fn only_release(mut self, release: &str) -> Self {
        self.only_release = Some(release.to_owned());
        self
    }

    /// Prefers the input named `document` where two inputs define one schema name
    /// differently enough to make different types. `document` names an input however it
    /// was typed: the name given to [`Config::input`] and its siblings, or any path to the
    /// same file (relative, absolute, through `..`). Definitions that make the same type merge without it (see the
    /// guide's `docs/src/reference/merging.md`); for the others, the preferred document's definition
    /// wins and each override is a warning ([`Output::warnings`]; the command line prints
    /// them, [`Config::compile`] prints nothing). Without a preference such a conflict is an
    /// error. Called several times, earlier preferences win over later ones.
    #[must_use]
    pub fn prefer(mut self, document: impl AsRef<Path>) -> Self {
        self.prefer.push(document.as_ref().to_path_buf());
        self
    }

    /// Generates only the schemas `pattern` names ([`Pattern`]: a kind, group,
    /// group-version, schema name or package, Rust path or module, or type name), their
    /// kinds' operations, and everything those reference. Several patterns add up; none
    /// means everything. `@struct` and `@enum` select nothing (which schemas become structs
    /// is decided after selection). A pattern that matches nothing is an error.
    ///
    /// ```no_run
    /// let config = kubeforge::Config::new()
    ///     .select(kubeforge::Pattern::Kind("ImageStream".into()))
    ///     .select("io.k8s.api.coordination.v1.*".parse()?);
    /// # Ok::<(), String>(())
    /// ```
    #[must_use]
    pub fn select(mut self, pattern: Pattern) -> Self {
        self.selectors.push(pattern);
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
    /// `crate::k8s` when it is included as the module `k8s`. Included anywhere else, the
    /// code does not compile, and its first error names the root path:
    /// `unresolved import … crate_k8s_must_be_the_module_that_includes_this_code__see_root_path`.
    #[must_use]
    pub fn root_path(mut self, path: impl Into<String>) -> Self {
        self.options.root_path = path.into();
        self
    }

    /// The package name the output is used under, when it is a crate of its own: the example
    /// in the crate's docs then names it and is compiled as a doctest. The command line sets
    /// it from `--crate-name`.
    #[must_use]
    pub fn crate_name(mut self, name: impl Into<String>) -> Self {
        self.options.crate_name = Some(name.into());
        self
    }

    /// The Rust path of the runtime crate, `::kubeforge_runtime` by default.
    #[must_use]
    pub fn runtime_path(mut self, path: impl Into<String>) -> Self {
        self.options.runtime_path = path.into();
        self
    }

    /// Whether every struct gets a builder (`T::builder(required…)` and `TBuilder`); on by
    /// default. Turning them off shrinks the generated code.
    #[must_use]
    pub fn builders(mut self, enabled: bool) -> Self {
        self.options.builders = enabled;
        self
    }

    /// Whether every generated struct, enum and union implements
    /// `kubeforge_runtime::schema::Validate`, with what its schema says beyond shape
    /// (constraints, formats, `x-kubernetes-validations` CEL rules, list types); on by
    /// default. The impl embeds the schema's node (parsed once per process); calling
    /// `validate()` needs the runtime's cargo feature `validate`, which a generated crate's
    /// manifest forwards as its own `validate`.
    #[must_use]
    pub fn validation(mut self, enabled: bool) -> Self {
        self.options.validation = enabled;
        self
    }

    /// Whether the structs of served resources get apply configurations for server-side
    /// apply: `T::apply(name, namespace…)` and `TApply`, with every field optional (a map
    /// list item's keys aside), the builder's setters, a `Serialize` that writes only what
    /// was set, and `From<T>`. Off by default. They are compiled only with the cargo feature
    /// `apply`, which a generated crate's manifest declares; a build script's crate declares
    /// it itself (`[features] apply = []`).
    #[must_use]
    pub fn apply_types(mut self, enabled: bool) -> Self {
        self.options.apply = enabled;
        self
    }

    /// Reads the `.proto` files under `dir` (imports resolved against it, as Kubernetes lays
    /// them out: `k8s.io/api/core/v1/generated.proto`), so that every struct whose schema has
    /// a message (`io.k8s.api.core.v1.Pod` ↔ `k8s.io.api.core.v1.Pod`) reads and writes
    /// Kubernetes' protobuf encoding too, behind the generated crate's cargo feature
    /// `protobuf`. A field on one side only, or of another type, is a warning
    /// (`protobuf-mismatch`); a schema without a message (a CRD's) gets no protobuf code. May
    /// be given several times. See the guide's "Protobuf".
    #[must_use]
    pub fn proto(mut self, dir: impl AsRef<Path>) -> Self {
        self.proto.push(dir.as_ref().to_path_buf());
        self
    }

    /// Whether the built-in meta types (`ObjectMeta`, `ListMeta`, `Status`, …) get their
    /// protobuf messages from the generator's own table of them (Kubernetes 1.36's field
    /// numbers) without `.proto` files: how the companion crate `kubeforge-meta` is generated;
    /// off by default.
    #[must_use]
    pub fn builtin_protobuf(mut self, enabled: bool) -> Self {
        self.builtin_protobuf = enabled;
        self
    }

    /// Whether every struct keeps the fields it does not know, as a newer server sends
    /// them, in its `unknown_fields` field (`kubeforge_runtime::UnknownFields`), and writes
    /// them back, so a read-modify-write deletes nothing; on by default. Off, such fields
    /// are skipped when reading. Keys a schema admits (`additionalProperties`,
    /// `patternProperties`, `x-kubernetes-preserve-unknown-fields`) are kept either way.
    #[must_use]
    pub fn unknown_fields(mut self, keep: bool) -> Self {
        self.model.unknown_fields = keep;
        self
    }

    /// Whether anonymous nested types of one shape become one type (on by default), named
    /// after their shallowest occurrence, and shapes that are exactly a Kubernetes type's
    /// become that type (the inputs' own, or one named after it); see the guide's "Shared
    /// nested types". Off, every nested object is a type of its own named after its path.
    #[must_use]
    pub fn dedup(mut self, enabled: bool) -> Self {
        self.model.dedup = enabled;
        self
    }

    /// Whether a nested struct whose properties are a subset of a Kubernetes type's among
    /// the inputs (same shapes and requiredness, the type's other properties optional)
    /// becomes that type (off by default). Every value of the narrower schema reads and
    /// writes back through the wider type, since unknown fields are kept.
    #[must_use]
    pub fn known_subset(mut self, enabled: bool) -> Self {
        self.model.known_subset = enabled;
        self
    }

    /// Whether the built-in meta types (`ObjectMeta`, `ListMeta`, `Status`, `LabelSelector`,
    /// `OwnerReference`, `Scale`, … — the 21 that CRDs reference, besides the watch event)
    /// come from the companion crate `kubeforge-meta` (on by default), so that crates
    /// generated separately share them and a CRD's crate holds only its own types. The
    /// generated code then names `::kubeforge_meta::apimachinery::pkg::apis::meta::v1::ObjectMeta`
    /// and so on, and the crate must depend on `kubeforge-meta` ([`package::write_crate`]
    /// adds it; [`Output::uses_companion_meta`] says whether it is needed). A user's
    /// [`Config::extern_type`] naming one of them wins. A type an input defines differently
    /// (an older release's `ObjectMeta`) is generated here, with a note, and so is every meta
    /// type referencing it; one an input defines alike is re-exported at its usual place.
    /// The companion's types are generated with the default options (builders, docs,
    /// unknown fields kept, `BTreeMap`). Off, every meta type is generated here, as before.
    #[must_use]
    pub fn companion_meta(mut self, enabled: bool) -> Self {
        self.model.companion_meta = enabled;
        self
    }

    /// Whether operations become code (on by default): a request function and a response
    /// decoder per operation, the `routes` module with the route table and the path matcher,
    /// and each resource's endpoint table in its docs.
    #[must_use]
    pub fn routes(mut self, enabled: bool) -> Self {
        self.options.routes = enabled;
        self
    }

    /// Gates each API group's modules behind a cargo feature named after the group, with
    /// the dependencies between groups worked out from the types (see `model::features`).
    /// [`package::write_crate`] then lists the features in `Cargo.toml`.
    #[must_use]
    pub fn features(mut self, enabled: bool) -> Self {
        self.options.features = enabled;
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

    /// Maps the types `pattern` names ([`Pattern`]) to a Rust type that exists elsewhere:
    /// nothing is generated for them and every reference uses `path`. A `path` ending in
    /// `::*` maps each type to that module plus its name as the schema spells it, which a
    /// pattern naming several types (a package, module, group, …) needs; `pkg.*` names the
    /// schemas directly in the package:
    ///
    /// ```no_run
    /// let config = kubeforge::Config::new().extern_type(
    ///     "io.k8s.apimachinery.pkg.apis.meta.v1.*",
    ///     "::k8s_openapi::apimachinery::pkg::apis::meta::v1::*",
    /// );
    /// ```
    ///
    /// Where several mappings name one type, the most specific pattern wins (an exact name
    /// beats a package, a longer package a shorter one). A mapping that matches no schema
    /// (after selection) is no error but a note ([`Output::notes`]). Extern types get no
    /// builder (a resource whose `metadata` is an extern `ObjectMeta` still has the name and
    /// namespace constructor, setting its public fields, and a `metadata_with` that edits it
    /// through `&mut`), are assumed not to be `Eq`, and their own operations are left to the
    /// crate that defines them. The watch event stays generated (routes decode into it).
    #[must_use]
    pub fn extern_type(mut self, pattern: impl Into<String>, path: impl Into<String>) -> Self {
        self.externs.push(model::ExternType {
            schema: pattern.into(),
            path: path.into(),
        });
        self
    }

    /// Adds an outer attribute (`"#[derive(Hash)]"`, `"#[serde(deny_unknown_fields)]"`) to
    /// the generated structs and enums that `pattern` names ([`Pattern`]: `*`, a schema name
    /// or package, a Rust path or module, a type name in any module, a kind, `@struct`,
    /// `@enum`, …). One that names no struct or enum is an error naming the near matches.
    #[must_use]
    pub fn type_attribute(
        mut self,
        pattern: impl Into<String>,
        attribute: impl Into<String>,
    ) -> Self {
        self.options.type_attributes.push((
            pattern.into(),
            emit::TypeAttribute::Attribute(UserAttribute::parse(attribute, Place::Item)),
        ));
        self
    }

    /// Adds an outer attribute to the field `field` (its JSON or Rust name, or `*` for all)
    /// of the structs that `pattern` names (as for [`Config::type_attribute`]).
    #[must_use]
    pub fn field_attribute(
        mut self,
        pattern: impl Into<String>,
        field: impl Into<String>,
        attribute: impl Into<String>,
    ) -> Self {
        self.options.field_attributes.push((
            pattern.into(),
            field.into(),
            UserAttribute::parse(attribute, Place::Field),
        ));
        self
    }

    /// Derives `trait_path` (`Hash`, `::schemars::JsonSchema`) on the structs and enums that
    /// `pattern` names (as for [`Config::type_attribute`]; kopium's `@struct`, `@enum` and
    /// `@enum:simple` included), besides the derives the generator chooses (structs:
    /// `Clone`, `Debug`, `PartialEq`, and `Default`/`Eq` where they hold; string enums:
    /// `Clone`, `Debug`, `PartialEq`, `Eq`, `Hash`, `PartialOrd`, `Ord`; unions: `Clone`,
    /// `Debug`, `PartialEq`, `Eq` where it holds; serde is implemented by hand). A standard
    /// trait the generator derives already is not derived twice, and `Default` and `Eq` only
    /// where they hold (`Default` would invent values for required fields, an enum has no
    /// default variant), as kopium's `--smart-derive-elision` does: `derive("@struct",
    /// "Default")` derives it on exactly the structs without required fields.
    #[must_use]
    pub fn derive(mut self, pattern: impl Into<String>, trait_path: impl Into<String>) -> Self {
        let trait_path = trait_path.into();
        self.options.type_attributes.push((
            pattern.into(),
            emit::TypeAttribute::Derive {
                attribute: UserAttribute::parse(format!("#[derive({trait_path})]"), Place::Item),
                path: trait_path,
            },
        ));
        self
    }

    /// The map type of `additionalProperties`, a path to a type generic over key and value
    /// with serde support, `FromIterator` and `insert`: `::std::collections::BTreeMap` (the
    /// default), `::std::collections::HashMap`, `::indexmap::IndexMap`.
    #[must_use]
    pub fn map_type(mut self, path: impl Into<String>) -> Self {
        self.options.map_type = path.into();
        self
    }

    /// Whether descriptions become doc comments (on by default). Off drops every doc
    /// comment, endpoint tables and builder docs included, for smaller generated code.
    #[must_use]
    pub fn docs(mut self, enabled: bool) -> Self {
        self.options.docs = enabled;
        self
    }

    /// Implements k8s-openapi's `Resource`, `ListableResource` and `Metadata` for every
    /// served resource (off by default), so kube's `Api<K>` takes the generated types
    /// (kube-core implements its `Resource` for them). Needs the meta types mapped to
    /// k8s-openapi's with [`Config::extern_type`]; the generated code then names the crate
    /// `::k8s_openapi`.
    #[must_use]
    pub fn k8s_openapi_traits(mut self, enabled: bool) -> Self {
        self.options.k8s_openapi = enabled.then(|| "::k8s_openapi".to_owned());
        self
    }

    /// Implements kube's `CustomResourceExt` (`crd()`, `crd_name()`, `api_resource()`,
    /// `shortnames()`) for every kind generated from a CRD, naming kube-core by `path`
    /// (`::kube_core`, or `::kube::core` in a crate that depends on kube only); `None`, the
    /// default, leaves it out. Needs [`Config::k8s_openapi_traits`]: `crd()` returns
    /// k8s-openapi's `CustomResourceDefinition`, and the root's `crds()` returns all of them.
    /// Without it, the same kinds have an inherent `crd()` returning the CRD as a
    /// `serde_json::Value`; `CRD_JSON` is there either way.
    #[must_use]
    pub fn custom_resource_ext(mut self, path: Option<&str>) -> Self {
        self.options.kube_core = path.map(str::to_owned);
        self
    }

    /// The directory [`Config::compile`] writes into; by default `OUT_DIR`, which cargo
    /// sets for build scripts.
    #[must_use]
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// The name of the include file [`Config::compile`] writes, relative to the output
    /// directory (`kubeforge.rs` by default). It must stay inside it: an absolute path or one
    /// with `..` is refused.
    #[must_use]
    pub fn include_file(mut self, name: impl Into<PathBuf>) -> Self {
        self.include_file = name.into();
        self
    }

    /// Runs load, model and emit, and renders every file in memory. Nothing is written:
    /// call [`Output::write`] or [`Output::check`] on the result.
    pub fn generate(&self) -> Result<Output, Error> {
        let mut timings = Timings::default();
        let (api, warnings) = self.model_with_warnings(&mut timings)?;
        let start = Instant::now();
        let features = self
            .options
            .features
            .then(|| model::features::compute(&api));
        let tree = emit::emit(&api, &self.options, features.as_ref())?;
        timings.emit = start.elapsed();
        let start = Instant::now();
        let mut output = write::render(&tree, self.layout, &self.generated_by)?;
        timings.render = start.elapsed();
        output.timings = timings;
        output.features = features;
        output.releases = api
            .releases
            .as_ref()
            .filter(|releases| releases.names.len() > 1)
            .map(|releases| releases.names.clone())
            .unwrap_or_default();
        output.apply_feature = self.options.apply && !api.apply.is_empty();
        output.protobuf_feature = api
            .protobuf
            .keys()
            .any(|id| !matches!(api.get(*id).kind, model::TypeKind::Extern(_)));
        output.validation = self.options.validation;
        output.uses_companion_meta = api.types.iter().any(|ty| ty.kind.is_companion_extern());
        output.warnings = warnings;
        output
            .warnings
            .extend(model::collisions::collisions(&api, &self.modules));
        output.notes.clone_from(&api.notes);
        for id in api.resources.keys() {
            let ty = api.get(*id);
            output
                .resource_modules
                .entry(ty.module.clone())
                .or_default()
                .push(ty.name.clone());
        }
        output
            .resource_modules
            .values_mut()
            .for_each(|kinds| kinds.sort());
        Ok(output)
    }

    /// Runs load and model only: what the generator understood of the inputs, read through
    /// the [`view`] (types, fields, resources, operations, schema nodes), with nothing
    /// emitted.
    pub fn model(&self) -> Result<view::Model, Error> {
        self.api().map(view::Model::new)
    }

    /// Runs load and model only, for the crate's own stages.
    pub(crate) fn api(&self) -> Result<model::ApiSet, Error> {
        self.model_with_warnings(&mut Timings::default())
            .map(|(api, _)| api)
    }

    /// The model and the warnings of loading, both with lines and columns.
    fn model_with_warnings(
        &self,
        timings: &mut Timings,
    ) -> Result<(model::ApiSet, Vec<Diagnostic>), Error> {
        // Read the inputs again to turn pointers into lines, only where there is something
        // to report.
        let read = |file: &Path| self.inputs.iter().find(|i| i.display == file)?.text();
        let (api, mut warnings) = self.model_unlocated(timings).map_err(|e| e.locate(read))?;
        diagnostics::locate_all(&mut warnings, read);
        Ok((api, warnings))
    }

    /// The inputs [`Config::prefer`] names, by the names merging knows them under, in the
    /// order of preference (an input named by several preferences ranks by the first).
    fn preferred_inputs(&self) -> Result<Vec<PathBuf>, Error> {
        let mut ranked: Vec<PathBuf> = Vec::new();
        for wanted in &self.prefer {
            let matching: Vec<&Input> = self
                .inputs
                .iter()
                .filter(|input| input.is_named(wanted))
                .collect();
            if matching.is_empty() {
                let inputs: Vec<String> = self
                    .inputs
                    .iter()
                    .map(|i| format!("`{}`", i.display.display()))
                    .collect();
                return Err(Diagnostic::new(
                    ErrorKind::ConflictingDefinition,
                    &Origin::root(Path::new("<config>")),
                    format!(
                        "expected the preferred document `{}` to be one of the inputs ({}), but it names none of them",
                        wanted.display(),
                        inputs.join(", ")
                    ),
                )
                .with_hint("name one of the inputs, by the path it was given under or any other path to the same file")
                .into());
            }
            for input in matching {
                if !ranked.contains(&input.display) {
                    ranked.push(input.display.clone());
                }
            }
        }
        Ok(ranked)
    }

    fn model_unlocated(
        &self,
        timings: &mut Timings,
    ) -> Result<(model::ApiSet, Vec<Diagnostic>), Error> {
        let start = Instant::now();
        let release_names = self.release_names()?;
        let documents = all_or_errors(self.inputs.iter().map(Input::load))?;
        let prefer = self.preferred_inputs()?;
        let mut shape_warnings = Vec::new();
        let (mut merged, releases) = match release_names {
            None => (load::merge(documents, &prefer)?, None),
            Some(names) => {
                let mut each: Vec<(String, Vec<load::Document>)> =
                    names.iter().map(|n| (n.clone(), Vec::new())).collect();
                for (input, document) in self.inputs.iter().zip(documents) {
                    let release = input.release.as_deref().unwrap_or_default();
                    if let Some((_, list)) = each.iter_mut().find(|(n, _)| n == release) {
                        list.push(document);
                    }
                }
                let merged_each = all_or_errors(each.into_iter().map(|(name, documents)| {
                    load::merge(documents, &prefer).map(|api| (name, api))
                }))?;
                let mut merged = load::releases::merge(merged_each);
                match &self.only_release {
                    None => {
                        shape_warnings = std::mem::take(&mut merged.shape_warnings);
                        (merged.api, Some(merged.releases))
                    }
                    Some(release) => {
                        let index = merged.releases.index(release).ok_or_else(|| {
                            releases_error(format!(
                                "expected the release to project onto to be one of the inputs' releases ({}), but it is `{release}`",
                                names.join(", ")
                            ))
                        })?;
                        let projected = load::releases::project(&merged, index);
                        let only = model::releases::Releases {
                            names: vec![release.clone()],
                            ..model::releases::Releases::default()
                        };
                        (projected, Some(only))
                    }
                }
            }
        };
        let mut warnings = std::mem::take(&mut merged.warnings);
        let loaded = load::select(load::typed(merged), &self.selectors, &self.modules)?;
        let (loaded, load_errors) = load::finish(loaded);
        timings.load = start.elapsed();
        let start = Instant::now();
        let mut api = Error::join_stages(
            load_errors,
            model::build_with_options(&loaded, &self.modules, &self.externs, self.model),
        )?;
        api.releases = releases;
        if !self.proto.is_empty() || self.builtin_protobuf {
            // The wire helpers read and write maps as `BTreeMap`s (Go's key order).
            if self.options.map_type != emit::Options::default().map_type {
                return Err(Diagnostic::new(
                    ErrorKind::Protobuf,
                    &Origin::root(Path::new("<config>")),
                    format!(
                        "expected the default map type with `.proto` inputs, but it is `{}`",
                        self.options.map_type
                    ),
                )
                .with_hint("leave `map_type` (`--map-type`) out, or the `.proto` inputs")
                .into());
            }
            let mut protos = load::proto::ProtoSet::default();
            for dir in &self.proto {
                protos.extend(load::proto::load_dir(dir)?);
            }
            protos.extend(load::proto::builtin());
            let (messages, mismatches) = model::protobuf::plan(&api.types, &protos);
            api.protobuf = messages;
            warnings.extend(mismatches);
        }
        // A shape that changes between releases matters where it is generated.
        let kept: std::collections::BTreeSet<&str> =
            api.types.iter().map(|ty| ty.schema_name.as_str()).collect();
        warnings.extend(
            shape_warnings
                .into_iter()
                .filter(|(schema, _)| kept.contains(schema.as_str()))
                .map(|(_, warning)| warning),
        );
        timings.model = start.elapsed();
        Ok((api, warnings))
    }

    /// The releases of the inputs in order ([`Config::release_input`]), `None` when no input
    /// belongs to one; an error when only some do, when they do not increase, or when
    /// [`Config::only_release`] is set without them.
    pub(crate) fn release_names(&self) -> Result<Option<Vec<String>>, Error> {
        let mut names: Vec<String> = Vec::new();
        let mut without: Vec<String> = Vec::new();
        for input in &self.inputs {
            match &input.release {
                Some(release) if !names.contains(release) => names.push(release.clone()),
                Some(_) => {}
                None => without.push(format!("`{}`", input.display.display())),
            }
        }
        if names.is_empty() {
            return match &self.only_release {
                Some(release) => Err(releases_error(format!(
                    "expected inputs of releases to project onto release `{release}`, but no input belongs to a release"
                ))),
                None => Ok(None),
            };
        }
        if !without.is_empty() {
            return Err(releases_error(format!(
                "expected every input to belong to a release once one does, but {} belong to none",
                without.join(", ")
            )));
        }
        if let Some(pair) = names
            .windows(2)
            .find(|pair| model::releases::compare(&pair[0], &pair[1]).is_ge())
        {
            return Err(releases_error(format!(
                "expected the releases to increase in the order given, but `{}` comes before `{}`",
                pair[0], pair[1]
            )));
        }
        if names.len() > 64 {
            return Err(releases_error(format!(
                "expected at most 64 releases, but there are {}",
                names.len()
            )));
        }
        Ok(Some(names))
    }
}

/// An error in the releases of the configuration.
pub(crate) fn releases_error(message: String) -> Error {
    Diagnostic::new(
        ErrorKind::Releases,
        &Origin::root(Path::new("<config>")),
        message,
    )
    .into()
}

/// Every value, or every error joined into one: each input's (or each release's) problems
/// are reported together, not only the first one's.
fn all_or_errors<T>(results: impl IntoIterator<Item = Result<T, Error>>) -> Result<Vec<T>, Error> {
    let mut values = Vec::new();
    let mut problems: Option<Error> = None;
    for result in results {
        match result {
            Ok(value) => values.push(value),
            Err(e) => {
                problems = Some(match problems {
                    Some(earlier) => earlier.join(e),
                    None => e,
                });
            }
        }
    }
    problems.map_or(Ok(values), Err)
}
