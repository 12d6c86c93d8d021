//! A catalog from input documents, through the generator's model (`kubeforge::Config`): the
//! same resources, operations and types the generated crate has, so the binary serves any
//! API the CLI or a build script could generate, with no generated code compiled in.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use kubeforge::view::{Kind, Model, Role, Type};
use kubeforge_runtime::schema::SchemaSet;
use serde_json::Value;

use crate::objects::catalog::{Catalog, PatchField, PatchSchema, PrinterColumn, verb};
use crate::objects::meta;
use crate::objects::openapi;
use crate::objects::schema::{Root, Schemas};

/// Why a catalog could not be made from documents.
#[derive(Debug)]
pub enum LoadError {
    /// The generator refused the documents.
    Model(kubeforge::Error),
    /// A document could not be read.
    Io(PathBuf, std::io::Error),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Model(error) => write!(f, "{error}"),
            LoadError::Io(path, error) => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for LoadError {}

impl Catalog {
    /// The catalog of the documents at `inputs` (OpenAPI v3, Swagger 2.0, CRDs, as the
    /// generator reads them): every resource with the verbs of its operations, bodies
    /// checked against the types, the strategic merge patch metadata of every field, and
    /// each OpenAPI v3 document served at `/openapi/v3/<its group-version path>`.
    pub fn from_documents<P: AsRef<Path>>(inputs: &[P]) -> Result<Catalog, LoadError> {
        let mut config = kubeforge::Config::new();
        for input in inputs {
            config = config.input(input);
        }
        let model = config.model().map_err(LoadError::Model)?;
        let documents: Vec<&Path> = inputs.iter().map(AsRef::as_ref).collect();
        Catalog::from_model(&model).with_documents(&documents)
    }

    /// The catalog of one release of several (`kubeforge-server serve --releases … --release
    /// 1.32`): the generator's model of every release's documents merged, projected onto
    /// `release` (`kubeforge::Config::only_release`: the resources, operations, types, fields
    /// and enum values that release has), and the OpenAPI documents of that release's inputs.
    /// `inputs` pairs each document with the release it belongs to.
    pub fn from_release<P: AsRef<Path>>(
        inputs: &[(String, P)],
        release: &str,
    ) -> Result<Catalog, LoadError> {
        let mut config = kubeforge::Config::new().only_release(release);
        for (name, input) in inputs {
            config = config.release_input(name, input);
        }
        let model = config.model().map_err(LoadError::Model)?;
        let documents: Vec<&Path> = inputs
            .iter()
            .filter(|(name, _)| name == release)
            .map(|(_, input)| input.as_ref())
            .collect();
        Catalog::from_model(&model).with_documents(&documents)
    }

    /// What the documents at `inputs` publish besides their model: each OpenAPI v3 document
    /// (a Swagger 2.0 one split into v3 documents per group-version, and served whole at
    /// `/openapi/v2`), and each CRD's discovery names and OpenAPI documents.
    fn with_documents(self, inputs: &[&Path]) -> Result<Catalog, LoadError> {
        let mut catalog = self;
        let mut crds: BTreeMap<String, Value> = BTreeMap::new();
        for path in inputs {
            let text =
                std::fs::read_to_string(path).map_err(|e| LoadError::Io(path.to_path_buf(), e))?;
            let documents: Vec<Value> = if path.extension().is_some_and(|e| e == "json") {
                serde_json::from_str(&text)
                    .map(|d| vec![d])
                    .unwrap_or_default()
            } else {
                serde_saphyr::from_multiple(&text).unwrap_or_default()
            };
            for mut document in documents {
                if openapi::is_swagger(&document) {
                    for (key, mut v3) in openapi::split_swagger(&document) {
                        openapi::declare_field_validation(&mut v3);
                        catalog.openapi.entry(key).or_insert_with(|| Arc::new(v3));
                    }
                    catalog.openapi_v2.get_or_insert_with(|| Arc::new(document));
                } else if let Some(key) = openapi::v3_key(&document) {
                    openapi::declare_field_validation(&mut document);
                    catalog = catalog.openapi(key, document);
                } else if document.get("kind").and_then(Value::as_str)
                    == Some("CustomResourceDefinition")
                {
                    crd_document(&mut catalog, &mut crds, &document);
                }
            }
        }
        for (key, document) in crds {
            catalog
                .openapi
                .entry(key)
                .or_insert_with(|| Arc::new(document));
        }
        Ok(catalog)
    }

    /// What a CustomResourceDefinition object serves (one created through the API), read as
    /// [`Catalog::from_documents`] reads a CRD file: the generator's model of the CRD alone,
    /// and its OpenAPI documents. The caller merges it into the catalog served
    /// (`Catalog::with_custom`).
    pub(crate) fn of_crd(crd: &Value) -> Result<Catalog, String> {
        let name = crd
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("crd");
        let bytes = serde_json::to_vec(crd).map_err(|e| e.to_string())?;
        let model = kubeforge::Config::new()
            .input_bytes(format!("{name}.json"), bytes)
            .model()
            .map_err(|e| e.to_string())?;
        let mut catalog = Catalog::from_model(&model);
        let mut documents = BTreeMap::new();
        crd_document(&mut catalog, &mut documents, crd);
        for (key, document) in documents {
            catalog.openapi.insert(key, Arc::new(document));
        }
        Ok(catalog)
    }

    /// The catalog of a model: resources and verbs from its operations, every type's schema
    /// node (what writes are validated, defaulted and pruned by, and what field management
    /// merges by), and the strategic merge patch metadata.
    pub fn from_model(model: &Model) -> Catalog {
        let mut catalog = Catalog::new();
        for resource in model.resources() {
            let gvk = resource.gvk();
            catalog.entry(
                &gvk.group,
                &gvk.version,
                &gvk.kind,
                resource.plural(),
                resource.namespaced(),
            );
        }
        for operation in model.operations() {
            let Some(resource) = operation.target() else {
                continue;
            };
            let verb = match operation.action() {
                // A connect operation (`pods/exec`, the proxies) serves the verb of its
                // method, as discovery lists it; a proxy's `{path}` operations are its own.
                "connect" if resource.subresource().is_some_and(|s| s.contains('/')) => None,
                "connect" => connect_verb(operation.method()),
                action => model_verb(action),
            };
            let Some(verb) = verb else {
                continue;
            };
            let gvk = resource.gvk();
            let def = catalog.entry(
                &gvk.group,
                &gvk.version,
                &gvk.kind,
                resource.plural(),
                resource.namespaced(),
            );
            let watches = operation.action() == "list"
                && operation.query_params().any(|q| q.name() == "watch");
            def.serve(resource.subresource(), verb, watches);
            if operation.action() == "delete" && resource.subresource().is_none() {
                let ok = operation.responses().find(|r| r.status() == 200);
                catalog.declare_delete_answer(
                    (&gvk.group, &gvk.version, resource.plural()),
                    &gvk.kind,
                    ok.and_then(|r| r.declared_type()).as_deref(),
                );
            }
        }
        let mut patch = PatchSchema::default();
        for ty in model.types() {
            if ty.kind() == Kind::Struct {
                let entry = patch.types.entry(type_key(ty)).or_default();
                for field in ty.fields().filter(|f| f.role() != Role::Extra) {
                    entry.insert(
                        field.json_name().to_owned(),
                        PatchField {
                            ty: field.shape().named().map(type_key),
                            strategy: field.patch_strategies().to_vec(),
                            merge_key: field.patch_merge_key().map(str::to_owned),
                        },
                    );
                }
            }
        }
        for resource in model.resources() {
            let gvk = resource.gvk();
            patch.roots.insert(
                (gvk.group.clone(), gvk.version.clone(), gvk.kind.clone()),
                type_key(resource.ty()),
            );
        }
        catalog.schemas = Arc::new(merge_schemas(model));
        catalog.patch_schema(patch)
    }
}

/// The schema node of every type (by its index), for field management, validation,
/// defaulting and pruning: what the model decided (`Model::nodes`), indexed so that a
/// node's `$ref`s resolve.
fn merge_schemas(model: &Model) -> Schemas {
    let mut schemas = Schemas {
        set: SchemaSet::new(model.nodes()),
        untyped: model
            .types()
            .filter(|ty| ty.schema_name() == "io.k8s.apimachinery.pkg.runtime.RawExtension")
            .map(Type::index)
            .collect(),
        // By index: `types()` goes in index order.
        names: model
            .types()
            .map(|ty| ty.schema_name().to_owned())
            .collect(),
        ..Schemas::default()
    };
    for resource in model.resources() {
        let gvk = resource.gvk();
        schemas.roots.insert(
            (gvk.group.clone(), gvk.version.clone(), gvk.kind.clone()),
            Root {
                index: resource.ty().index(),
                builtin: true,
            },
        );
    }
    schemas
}

/// The verb of an operation's action (`Operation::action`, the runtime's names); none for
/// `connect` and actions without a convention.
fn model_verb(action: &str) -> Option<&'static str> {
    use kubeforge_runtime::route::Action;
    verb(match action {
        "get" => Action::Get,
        "list" => Action::List,
        "watch" => Action::Watch,
        "create" => Action::Create,
        "replace" => Action::Replace,
        "patch" => Action::Patch,
        "delete" => Action::Delete,
        "deletecollection" => Action::DeleteCollection,
        _ => return None,
    })
}

/// The field labels one entry of a CRD's `spec.versions` makes selectable: each of its
/// `selectableFields`' `jsonPath` (`.spec.color`) without the leading dot.
fn selectable_fields(version: &Value) -> Vec<String> {
    version
        .get("selectableFields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|field| field.get("jsonPath").and_then(Value::as_str))
        .map(|path| path.strip_prefix('.').unwrap_or(path).to_owned())
        .collect()
}

fn connect_verb(method: &str) -> Option<&'static str> {
    Some(match method {
        "GET" => "get",
        "POST" => "create",
        "PUT" => "update",
        "PATCH" => "patch",
        "DELETE" => "delete",
        _ => return None,
    })
}

fn type_key(ty: Type<'_>) -> String {
    format!("#{}", ty.index())
}

/// What a real server publishes for a CustomResourceDefinition: its short names in
/// discovery, and at `/openapi/v3/apis/<group>/<version>` each served version's schema (with
/// its group-version-kind) and a PATCH operation that takes `fieldValidation`, which is what
/// `kubectl explain` and `kubectl`'s validation read.
fn crd_document(catalog: &mut Catalog, documents: &mut BTreeMap<String, Value>, crd: &Value) {
    let text = |pointer: &str| {
        crd.pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let (group, kind, plural) = (
        text("/spec/group"),
        text("/spec/names/kind"),
        text("/spec/names/plural"),
    );
    let namespaced = text("/spec/scope") != "Cluster";
    let strings = |pointer: &str| -> Vec<String> {
        meta::strings(crd, pointer)
            .into_iter()
            .map(str::to_owned)
            .collect()
    };
    let short_names = strings("/spec/names/shortNames");
    let categories = strings("/spec/names/categories");
    let singular = Some(text("/spec/names/singular"))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| kind.to_lowercase());
    let reversed: Vec<&str> = group.split('.').rev().collect();
    for version in crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(name) = version.get("name").and_then(Value::as_str) else {
            continue;
        };
        if version.get("served") == Some(&Value::Bool(false)) {
            continue;
        }
        Arc::make_mut(&mut catalog.schemas).mark_custom(&group, name, &kind);
        if let Some((_, def)) = catalog.find(&group, name, &plural) {
            let (g, v, k) = (def.group.clone(), def.version.clone(), def.kind.clone());
            let def = catalog.entry(&g, &v, &k, &plural, namespaced);
            def.short_names.clone_from(&short_names);
            def.categories.clone_from(&categories);
            def.singular.clone_from(&singular);
            def.printer_columns = PrinterColumn::of_crd_version(version);
            def.selectable_fields = selectable_fields(version);
        }
        let gvk = serde_json::json!({"group": group, "version": name, "kind": kind});
        let mut schema = version
            .pointer("/schema/openAPIV3Schema")
            .cloned()
            .unwrap_or_else(|| serde_json::json!({"type": "object"}));
        if let Some(map) = schema.as_object_mut() {
            map.insert(
                "x-kubernetes-group-version-kind".into(),
                serde_json::json!([gvk]),
            );
        }
        let schema_name = format!("{}.{name}.{kind}", reversed.join("."));
        let scope = if namespaced {
            "namespaces/{namespace}/"
        } else {
            ""
        };
        let path = format!("/apis/{group}/{name}/{scope}{plural}/{{name}}");
        let document = documents.entry(format!("apis/{group}/{name}")).or_insert_with(|| {
            serde_json::json!({
                "openapi": "3.0.0",
                "info": {"title": "CustomResourceDefinitions served by kubeforge-server", "version": name},
                "paths": {},
                "components": {"schemas": {}},
            })
        });
        document["components"]["schemas"][&schema_name] = schema;
        let reference = serde_json::json!({"content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{schema_name}")}}}});
        document["paths"][&path] = serde_json::json!({
            "get": {"x-kubernetes-action": "get", "x-kubernetes-group-version-kind": gvk, "responses": {"200": reference}},
            "patch": {
                "x-kubernetes-action": "patch",
                "x-kubernetes-group-version-kind": gvk,
                "parameters": [{"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": true}}],
                "responses": {"200": reference},
            },
        });
    }
}
