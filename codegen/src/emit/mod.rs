//! Stage 3, emit: the model → formatted text (`text.rs`), grouped into a module tree of
//! files, each type on a worker thread (`emit_types`). Emit makes no decisions the model
//! could make; it only spells them in Rust.

mod apply;
mod attributes;
pub(crate) mod releases;
pub(crate) use attributes::release_feature;
mod builders;
mod crd;
mod docs;
mod kube;
mod matcher;
pub(crate) mod pretty;
mod protobuf;
mod resource;
mod routes;
mod serde_impls;
pub(crate) mod text;
mod types;
mod validate;

use std::collections::BTreeMap;
use std::path::Path;

use crate::diagnostics::{Diagnostic, Error, ErrorKind, Origin};
use crate::ground::attribute::UserAttribute;
use crate::model::features::Features;
use crate::model::operations::Operation;
use crate::model::{ApiSet, Shape, TypeId, TypeKind};

/// Options that change the generated code.
#[derive(Clone, Debug)]
pub struct Options {
    /// The path of the generated root module (`crate` by default).
    pub root_path: String,
    /// The path of the runtime crate (`::kubeforge_runtime` by default).
    pub runtime_path: String,
    /// Whether every struct gets a builder (`T::builder(…)`, `TBuilder`); true by default.
    pub builders: bool,
    /// Whether every struct, enum and union implements the runtime's `Validate` with its
    /// schema's semantics (see `validate.rs`); true by default.
    pub validation: bool,
    /// Whether the structs of served resources get apply configurations (`T::apply(…)`,
    /// `TApply`) behind the cargo feature `apply` (see `apply.rs`); false by default.
    pub apply: bool,
    /// Whether operations get request functions, response decoders, a route table, a
    /// matcher and endpoint tables in docs (see `routes.rs`); true by default.
    pub routes: bool,
    /// Whether each API group's modules are gated by a cargo feature (see
    /// `model::features`); false by default.
    pub features: bool,
    /// Whether doc comments are emitted; true by default.
    pub docs: bool,
    /// The map type of `additionalProperties`, generic over key and value
    /// (`::std::collections::BTreeMap` by default).
    pub map_type: String,
    /// Attributes and derives on structs and enums, in the order given: (pattern, what);
    /// see `attributes.rs`.
    pub type_attributes: Vec<(String, TypeAttribute)>,
    /// Attributes on struct fields: (type pattern, field, attribute).
    pub field_attributes: Vec<(String, String, UserAttribute)>,
    /// The path of the k8s-openapi crate, when served resources implement its `Resource`,
    /// `ListableResource` and `Metadata` (see `kube.rs`); `None` by default.
    pub k8s_openapi: Option<String>,
    /// The path of kube-core, when the kinds generated from CRDs implement its
    /// `CustomResourceExt` (see `crd.rs`; needs `k8s_openapi`); `None` by default.
    pub kube_core: Option<String>,
    /// The package name of the generated crate, for the example in its docs (which is then
    /// compiled as a doctest); `None` by default.
    pub crate_name: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            root_path: "crate".to_owned(),
            runtime_path: "::kubeforge_runtime".to_owned(),
            builders: true,
            validation: true,
            apply: false,
            routes: true,
            features: false,
            docs: true,
            map_type: "::std::collections::BTreeMap".to_owned(),
            type_attributes: Vec::new(),
            field_attributes: Vec::new(),
            k8s_openapi: None,
            kube_core: None,
            crate_name: None,
        }
    }
}

/// What `Config::type_attribute` and `Config::derive` add to a type.
#[derive(Clone, Debug)]
pub enum TypeAttribute {
    /// An outer attribute, `#[…]`.
    Attribute(UserAttribute),
    /// A trait to derive, unless the model elides it (`TypeDef::elides_derive`): `path`,
    /// and `#[derive(path)]` as an attribute.
    Derive {
        path: String,
        attribute: UserAttribute,
    },
}

/// A module of generated code: its files, and its child modules.
#[derive(Debug, Default)]
pub struct Module {
    /// Files by stem. Each becomes a private `mod` whose types are re-exported.
    pub files: BTreeMap<String, File>,
    /// Child modules by name.
    pub children: BTreeMap<String, Module>,
    /// The cargo feature that gates this module, if any.
    pub feature: Option<String>,
    /// The module's own docs, in markdown (the root's: see `docs::crate_docs`), written where
    /// the layout allows inner attributes (not in a build script's `include!` file).
    pub docs: Option<String>,
    /// Items of the module's own, before its declarations, as formatted text at indentation
    /// zero (the root's `root_path` check and generic builder, re-exports of the companion's
    /// types).
    pub items: String,
    /// Outer attributes on the declaration of each child module and file of this module,
    /// which apply to everything in them (the root's lint allowances), one per line.
    pub child_attributes: Vec<String>,
}

/// A file's items in output order: runs of formatted text at indentation zero, each ending
/// with a newline, which `write` separates by blank lines.
#[derive(Debug, Default, Clone)]
pub struct Parts(pub Vec<String>);

impl Parts {
    /// Appends a run of items (nothing for an empty text).
    pub fn text(&mut self, text: String) {
        if !text.is_empty() {
            self.0.push(text);
        }
    }

    /// Appends all of `other`.
    pub fn extend(&mut self, other: Parts) {
        for text in other.0 {
            self.text(text);
        }
    }
}

/// One generated file's content.
#[derive(Debug)]
pub struct File {
    /// The items, in order.
    pub parts: Parts,
    /// The names it defines, re-exported by its module.
    pub exports: Vec<String>,
    /// Where its main schema came from, for the header.
    pub source: Origin,
    /// Exports that exist only under a cfg: name → its `#[cfg(…)]` attribute (the
    /// functions and response types of operations gated by features, `model::features`).
    pub export_cfgs: BTreeMap<String, String>,
}

/// Paths and names shared by all emitters.
pub(crate) struct Context<'a> {
    pub api: &'a ApiSet,
    /// The path of the generated root module (`crate`).
    pub root: String,
    /// The path of the runtime crate (`::kubeforge_runtime`).
    pub runtime: String,
    /// The map type's path (`::std::collections::BTreeMap`).
    pub map: String,
    /// Whether doc comments are emitted.
    pub docs: bool,
    /// Whether to emit builders.
    pub builders: bool,
    /// Whether to emit apply configurations.
    pub apply: bool,
    /// Whether to emit `Validate` impls.
    pub validation: bool,
    /// Whether to emit routes.
    pub routes: bool,
    /// User attributes on types and fields.
    pub attributes: &'a attributes::Attributes,
    /// The path of k8s-openapi, when its traits are implemented.
    pub k8s_openapi: Option<String>,
    /// The path of kube-core, when `CustomResourceExt` is implemented.
    pub kube_core: Option<String>,
    /// The cargo features, when the output is gated by them.
    pub features: Option<&'a Features>,
}

impl Context<'_> {
    /// The `#[cfg(…)]` on `op`'s functions and response type, when they need more features
    /// than their module's (`Features::operations`).
    pub(crate) fn operation_cfg(&self, op: &Operation) -> Option<String> {
        let needed = self.features.as_ref()?.operations.get(&op.id)?;
        Some(cfg_text(needed))
    }
}

/// `#[cfg(feature = "a")]`, or `#[cfg(all(feature = "a", feature = "b"))]`.
fn cfg_text(features: &std::collections::BTreeSet<String>) -> String {
    let features: Vec<String> = features
        .iter()
        .map(|f| format!("feature = {}", text::str_literal(f)))
        .collect();
    match features.as_slice() {
        [one] => format!("#[cfg({one})]"),
        all => format!("#[cfg(all({}))]", all.join(", ")),
    }
}

impl<'a> Context<'a> {
    /// The context for emitting `api` with `options`.
    fn new(
        api: &'a ApiSet,
        options: &Options,
        attributes: &'a attributes::Attributes,
        features: Option<&'a Features>,
    ) -> Result<Self, Error> {
        Ok(Context {
            api,
            root: parse_path(&options.root_path, "root_path")?,
            runtime: parse_path(&options.runtime_path, "runtime_path")?,
            map: parse_path(&options.map_type, "map_type")?,
            docs: options.docs,
            builders: options.builders,
            apply: options.apply,
            validation: options.validation,
            routes: options.routes,
            attributes,
            k8s_openapi: match &options.k8s_openapi {
                Some(path) => Some(parse_path(path, "k8s_openapi")?),
                None => None,
            },
            kube_core: match &options.kube_core {
                Some(path) => Some(parse_path(path, "kube_core")?),
                None => None,
            },
            features,
        })
    }
}

/// What one type adds to its file: its items, the names it exports, and the cfg of each
/// export that has one.
struct Emitted {
    /// The type's record in the crate's schema table (`validate.rs`).
    schema: Option<validate::Record>,
    parts: Parts,
    exports: Vec<String>,
    export_cfgs: Vec<(String, String)>,
}

/// Emits the items of every generated type of `api` on `threads` threads, each type on its
/// own: the result, in type order, does not depend on the number of threads or their
/// timing. `None` for extern types.
fn emit_types(
    api: &ApiSet,
    options: &Options,
    attributes: &attributes::Attributes,
    features: Option<&Features>,
    threads: usize,
) -> Result<Vec<Option<Emitted>>, Error> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let work = || -> Result<Vec<(usize, Emitted)>, Error> {
        let context = Context::new(api, options, attributes, features)?;
        let mut done = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(ty) = api.types.get(index) else {
                break;
            };
            if let TypeKind::Extern(_) = ty.kind {
                continue;
            }
            done.push((index, emit_type(&context, TypeId(index))));
        }
        Ok(done)
    };
    let threads = threads.clamp(1, api.types.len().max(1));
    let mut results: Vec<Result<Vec<(usize, Emitted)>, Error>> = Vec::new();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        results.push(work());
        for handle in handles {
            // A worker that panicked is a generator bug; its types are emitted again below.
            if let Ok(result) = handle.join() {
                results.push(result);
            }
        }
    });
    let mut emitted: Vec<Option<Emitted>> = (0..api.types.len()).map(|_| None).collect();
    for result in results {
        for (index, item) in result? {
            emitted[index] = Some(item);
        }
    }
    let context = Context::new(api, options, attributes, features)?;
    for (index, ty) in api.types.iter().enumerate() {
        if emitted[index].is_none() && !matches!(ty.kind, TypeKind::Extern(_)) {
            emitted[index] = Some(emit_type(&context, TypeId(index)));
        }
    }
    Ok(emitted)
}

/// The items of the generated type `id`, its exports and their cfgs.
fn emit_type(context: &Context<'_>, id: TypeId) -> Emitted {
    let api = context.api;
    let mut parts = types::type_item(context, id);
    let schema = validate::record(context, id);
    if let Some(record) = &schema {
        parts.text(validate::impl_text(context, record));
    }
    parts.text(crd::items(context, id));
    let mut exports = vec![api.get(id).name.clone()];
    let mut export_cfgs = Vec::new();
    if let Some(builder) = api.builders.get(&id).filter(|_| context.builders) {
        exports.push(builder.name.clone());
    }
    if let Some(apply) = api.apply_of(id).filter(|_| context.apply) {
        exports.push(apply.name.clone());
        export_cfgs.push((apply.name.clone(), apply::cfg()));
    }
    if context.routes {
        let (route_parts, route_exports) = routes::resource_items(context, id);
        parts.extend(route_parts);
        exports.extend(route_exports);
        for op in api.operations_of(id) {
            if let (Some(cfg), Some(response)) = (context.operation_cfg(op), &op.names.response) {
                export_cfgs.push((response.clone(), cfg));
            }
        }
    }
    Emitted {
        schema,
        parts,
        exports,
        export_cfgs,
    }
}

/// The runtime's `crd_query` module (`runtime/src/crd_query.rs`): the query structs of
/// `api`, a CRD's, as every CRD crate would write them, with the runtime's docs and paths.
pub fn crd_query_module(api: &ApiSet, options: &Options) -> Result<String, Error> {
    let attributes = attributes::Attributes::resolve(api, options)?;
    let context = Context::new(api, options, &attributes, None)?;
    Ok(routes::runtime_query_module(&context))
}

/// Emits every type of `api` into a module tree, gated by `features` when the output is
/// (`Options::features`; the model computes them, `model::features::compute`).
pub fn emit(api: &ApiSet, options: &Options, features: Option<&Features>) -> Result<Module, Error> {
    let attributes = attributes::Attributes::resolve(api, options)?;
    let context = Context::new(api, options, &attributes, features)?;
    if options.k8s_openapi.is_some() {
        kube::check(api)?;
    }
    crd::check(&context)?;

    let mut tree = Module::default();
    if let Some(features) = &context.features {
        for (unit, feature) in features.units.clone() {
            let module = unit.iter().fold(&mut tree, |m, name| {
                m.children.entry(name.clone()).or_default()
            });
            module.feature = Some(feature);
        }
    }
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let mut emitted = emit_types(api, options, &attributes, features, threads)?;
    let schemas: Vec<validate::Record> = emitted
        .iter_mut()
        .filter_map(|item| item.as_mut()?.schema.take())
        .collect();
    for (index, ty) in api.types.iter().enumerate() {
        if let TypeKind::Extern(_) = ty.kind {
            if api.reexports.contains(&TypeId(index)) {
                // A companion type the inputs define: still named at its place.
                let path = type_path(&context, TypeId(index));
                let module = ty.module.iter().fold(&mut tree, |m, name| {
                    m.children.entry(name.clone()).or_default()
                });
                if path.ends_with(&format!("::{}", ty.name)) {
                    module.items.push_str(&format!("pub use {path};\n"));
                } else {
                    module
                        .items
                        .push_str(&format!("pub use {path} as {};\n", ty.name));
                }
            }
            continue;
        }
        let Some(item) = emitted[index].take() else {
            continue;
        };
        let module = ty.module.iter().fold(&mut tree, |m, name| {
            m.children.entry(name.clone()).or_default()
        });
        let file = module.files.entry(ty.file.clone()).or_insert_with(|| File {
            parts: Parts::default(),
            exports: Vec::new(),
            source: ty.origin.clone(),
            export_cfgs: BTreeMap::new(),
        });
        file.parts.extend(item.parts);
        file.exports.extend(item.exports);
        file.export_cfgs.extend(item.export_cfgs);
    }
    if options.routes {
        // The model keeps the name free (`naming::module_path`).
        if let Some(module) = routes::routes_module(&context) {
            tree.children.insert(routes::MODULE.to_owned(), module);
        }
    }
    if !options.docs {
        strip_docs(&mut tree);
    } else {
        tree.docs = Some(docs::crate_docs(
            api,
            &options.root_path,
            options.crate_name.as_deref(),
            options.routes,
            options.builders,
        ));
    }
    let mut items = Parts::default();
    items.text(root_path_check(&context.root, &options.root_path));
    if options.builders {
        items.text(builders::generic_builder(&context));
    }
    items.text(crd::bundle(&context));
    items.text(validate::table_text(&context, &schemas));
    tree.items = items.0.join("\n");
    if options.docs {
        // Descriptions are the API's prose, not Rust docs: clippy's pedantic
        // `doc_markdown` would have every CamelCase word of them in backticks (7,316 times
        // in Kubernetes 1.36). Allowed on the root's children, so in a build script's output
        // it covers the generated code and nothing of the user's.
        tree.child_attributes = vec!["#[allow(clippy::doc_markdown)]".to_owned()];
    }
    if api
        .releases
        .as_ref()
        .is_some_and(|releases| releases.names.len() > 1)
    {
        // What a release lacks is deprecated in builds supporting it (`attributes.rs`); the
        // crate's own code (serde impls, builders, the route table) uses it all the same.
        tree.child_attributes
            .push("#[allow(deprecated)]".to_owned());
    }
    Ok(tree)
}

/// Every reference between generated types starts with `root_path`, so code included as any
/// other module fails to compile with hundreds of unresolved paths. This import of the root
/// path, first in the root module, makes the first error say what to do. Nothing for the
/// root `crate`, which is always right.
fn root_path_check(root: &str, root_path: &str) -> String {
    if root_path == "crate" {
        return String::new();
    }
    let name = format!(
        "{}_must_be_the_module_that_includes_this_code__see_root_path",
        root_path
            .replace("::", "_")
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<String>()
            .trim_start_matches('_')
    );
    let mut code = text::Code::new();
    code.open("const _: () = {");
    code.line("#[allow(unused_imports, non_snake_case)]");
    code.line(&format!("use {root} as {name};"));
    code.close("};");
    code.finish()
}

/// The inner attribute of a file generated without docs.
const ALLOW_UNDOCUMENTED: &str = "#![allow(missing_docs, clippy::missing_errors_doc)]";

/// Marks every file of a tree generated without docs (`Config::docs(false)`): the
/// emitters wrote no doc comments, so the lints that demand them do not apply (`# Errors`
/// sections are docs too). An inner attribute works in a file and in an inline module
/// alike; it starts the first part, so no blank line follows it.
fn strip_docs(module: &mut Module) {
    for file in module.files.values_mut() {
        match file.parts.0.first_mut() {
            Some(text) => text.insert_str(0, &format!("{ALLOW_UNDOCUMENTED}\n")),
            None => file.parts.0.push(format!("{ALLOW_UNDOCUMENTED}\n")),
        }
    }
    for child in module.children.values_mut() {
        strip_docs(child);
    }
}

/// The full path of the item `name` in the module of the generated type `id`:
/// `root::module::Name` (the type itself, its builder, its apply type).
pub(crate) fn item_path(context: &Context<'_>, id: TypeId, name: &str) -> String {
    let mut out = context.root.clone();
    for module in &context.api.get(id).module {
        out.push_str("::");
        out.push_str(module);
    }
    out.push_str("::");
    out.push_str(name);
    out
}

/// The full path of a generated type (an extern type's as the model spelled it).
pub(crate) fn type_path(context: &Context<'_>, id: TypeId) -> String {
    let ty = context.api.get(id);
    if let Some(path) = ty.kind.extern_path() {
        return path.to_owned();
    }
    let mut out = item_path(context, id, &ty.name);
    if let TypeKind::WatchEvent { .. } = ty.kind {
        // A field that holds a raw watch event has no object type to name.
        out.push_str("<::serde_json::Value>");
    }
    out
}

/// The Rust type of a shape: the one spelling of types.
pub(crate) fn shape_text(context: &Context<'_>, shape: &Shape) -> String {
    match shape {
        Shape::Bool => "bool".to_owned(),
        Shape::I32 => "i32".to_owned(),
        Shape::I64 | Shape::Integer => "i64".to_owned(),
        Shape::U32 => "u32".to_owned(),
        Shape::U64 => "u64".to_owned(),
        Shape::F64 => "f64".to_owned(),
        Shape::String => "String".to_owned(),
        Shape::Runtime(runtime) => format!("{}::{}", context.runtime, runtime.name()),
        Shape::Json => "::serde_json::Value".to_owned(),
        Shape::Vec(inner) => format!("Vec<{}>", shape_text(context, inner)),
        Shape::Map(inner) => format!("{}<String, {}>", context.map, shape_text(context, inner)),
        Shape::Ref(id) => type_path(context, *id),
        Shape::Nullable(inner) => format!("Option<{}>", shape_text(context, inner)),
    }
}

/// The Rust type of a struct's field for its extra keys (`FieldRole::Extra`) whose values
/// have this shape, as text.
pub(crate) fn extra_text(context: &Context<'_>, shape: &Shape) -> String {
    match shape {
        Shape::Json => format!("{}::UnknownFields", context.runtime),
        _ => format!(
            "{}::ExtraFields<{}>",
            context.runtime,
            shape_text(context, shape)
        ),
    }
}

/// A path option, spelled as the generated code writes it (`ground::rust_path`).
fn parse_path(path: &str, option: &str) -> Result<String, Error> {
    match crate::ground::rust_path::spell(path) {
        Ok(spelled) => Ok(spelled),
        Err(e) => Err(Diagnostic::new(
            ErrorKind::Output,
            &Origin::root(Path::new("<config>")),
            format!(
                "expected `{option}` to be a Rust path such as `crate::k8s`, found {path:?}: {e}"
            ),
        )
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::emit_types;

    /// The items of each type, spelled out for comparison.
    fn spelled(api: &crate::model::ApiSet, options: &super::Options, threads: usize) -> String {
        let attributes = super::attributes::Attributes::resolve(api, options).expect("resolves");
        let features = crate::model::features::compute(api);
        let emitted =
            emit_types(api, options, &attributes, Some(&features), threads).expect("it emits");
        let mut out = String::new();
        for (index, item) in emitted.iter().enumerate() {
            let Some(item) = item else { continue };
            out.push_str(&format!(
                "== {index} {:?} {:?}\n",
                item.exports, item.export_cfgs
            ));
            for part in &item.parts.0 {
                out.push_str(part);
            }
        }
        out
    }

    /// Types emitted on several threads come out exactly as on one, in type order.
    #[test]
    fn emitting_on_threads_is_deterministic() {
        let documents = [
            "kubernetes/v3/apis__apps__v1_openapi.json",
            "crds/cert-manager-Certificate.yaml",
        ];
        let Some(corpus) =
            kubeforge_tests::corpus("emitting_on_threads_is_deterministic", &documents)
        else {
            return;
        };
        let paths: Vec<_> = documents.iter().map(|d| corpus.join(d)).collect();
        let config = paths
            .iter()
            .fold(crate::Config::new(), |config, path| config.input(path))
            .features(true);
        let api = config.api().expect("the corpus documents model");
        let one = spelled(&api, &config.options, 1);
        for threads in [2, 3, 8] {
            assert!(
                one == spelled(&api, &config.options, threads),
                "{threads} threads"
            );
        }
    }
}
