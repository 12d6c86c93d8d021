//! What the server knows of an API: its resources (group, version, kind, plural, scope,
//! verbs, subresources), how to check a body against a resource's type, the strategic merge
//! patch metadata of its types, and the documents to serve at `/openapi/v3`.
//!
//! A catalog is data, so one server serves any API. It comes from a generated crate's route
//! table ([`Catalog::from_routes`], plus [`Catalog::typed`] for each kind whose bodies should
//! be checked by decoding into the generated type), or from the input documents through the
//! generator's model (`Catalog::from_documents`, feature `model`, what the binary uses).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::Arc;

use kubeforge_runtime::route::{Action, RouteInfo};
use kubeforge_runtime::{Resource, Scope};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Checks a body for a kind and gives it back normalised (as the type writes it), or says
/// what is wrong.
pub type Validator = Arc<dyn Fn(Value) -> Result<Value, String> + Send + Sync>;

/// One served resource, as discovery describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceDef {
    /// The group, `""` for the core group.
    pub group: String,
    /// The version.
    pub version: String,
    /// The kind.
    pub kind: String,
    /// The plural used in paths.
    pub plural: String,
    /// The singular name (`deployment`): the kind in lower case, or a CRD's
    /// `spec.names.singular`.
    pub singular: String,
    /// Short names (`po`): a built-in resource's (see `data/builtin-discovery.txt`) or a
    /// CRD's.
    pub short_names: Vec<String>,
    /// Categories (`all`): a built-in resource's or a CRD's.
    pub categories: Vec<String>,
    /// A custom resource's `additionalPrinterColumns` (its Table's columns after `Name`);
    /// empty for built-in resources, whose columns are the API server's printers'.
    pub printer_columns: Vec<PrinterColumn>,
    /// A custom resource's field labels beyond `metadata.name` and `metadata.namespace`:
    /// its CRD version's `selectableFields`, each `jsonPath` without its leading dot
    /// (`spec.color`). Empty for built-in resources, whose field labels are the API
    /// server's (`data/field-labels.txt`). Filled by `objects::model`'s `crd_document`
    /// for every CRD the catalog learns.
    pub selectable_fields: Vec<String>,
    /// Whether objects live in namespaces.
    pub namespaced: bool,
    /// The verbs of the resource itself (`create`, `delete`, `get`, …), sorted.
    pub verbs: BTreeSet<String>,
    /// Each subresource and its verbs.
    pub subresources: BTreeMap<String, BTreeSet<String>>,
}

impl ResourceDef {
    /// Records that an operation serves `verb` on the resource (`subresource` `None`) or on
    /// one of its subresources; a list that takes `watch` also serves `watch`. The one rule
    /// both catalogs (route table, model) use.
    pub(crate) fn serve(&mut self, subresource: Option<&str>, verb: &str, watches: bool) {
        match subresource {
            None => {
                self.verbs.insert(verb.to_owned());
                if watches {
                    self.verbs.insert("watch".to_owned());
                }
            }
            Some(sub) => {
                self.subresources
                    .entry(sub.to_owned())
                    .or_default()
                    .insert(verb.to_owned());
            }
        }
    }

    /// `group/version`, or `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The kind of a list of these objects.
    pub fn list_kind(&self) -> String {
        format!("{}List", self.kind)
    }

    /// Whether anything serves the resource: a deleted CRD's resources stay in the catalog,
    /// in their place, with no verbs.
    pub fn is_served(&self) -> bool {
        !self.verbs.is_empty()
    }

    /// Whether the resource has the `status` subresource.
    pub fn has_status(&self) -> bool {
        self.subresources.contains_key("status")
    }
}

/// One of a CustomResourceDefinition version's `additionalPrinterColumns`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrinterColumn {
    /// The column's name (`Ready`).
    pub name: String,
    /// The OpenAPI type: `integer`, `number`, `string`, `boolean` or `date`.
    pub type_: String,
    /// The OpenAPI format (`int32`, `name`, …), or empty.
    pub format: String,
    /// The description, or empty.
    pub description: String,
    /// 0 for the standard view; higher only in `-o wide`.
    pub priority: i64,
    /// The simple JSONPath the cell reads (`.status.replicas`).
    pub json_path: String,
}

impl PrinterColumn {
    /// The columns of one entry of a CRD's `spec.versions`: its `additionalPrinterColumns`,
    /// or, when it has none, `Age` over `.metadata.creationTimestamp`, as the API server
    /// defaults them.
    pub fn of_crd_version(version: &Value) -> Vec<PrinterColumn> {
        let Some(columns) = version
            .get("additionalPrinterColumns")
            .and_then(Value::as_array)
        else {
            return vec![PrinterColumn {
                name: "Age".to_owned(),
                type_: "date".to_owned(),
                format: String::new(),
                description: String::new(),
                priority: 0,
                json_path: ".metadata.creationTimestamp".to_owned(),
            }];
        };
        let text = |column: &Value, key: &str| {
            column
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        columns
            .iter()
            .map(|column| PrinterColumn {
                name: text(column, "name"),
                type_: text(column, "type"),
                format: text(column, "format"),
                description: text(column, "description"),
                priority: column.get("priority").and_then(Value::as_i64).unwrap_or(0),
                json_path: text(column, "jsonPath"),
            })
            .collect()
    }
}

/// The verb of an action, as discovery lists it.
pub fn verb(action: Action) -> Option<&'static str> {
    Some(match action {
        Action::Get => "get",
        Action::List => "list",
        Action::Watch => "watch",
        Action::Create => "create",
        Action::Replace => "update",
        Action::Patch => "patch",
        Action::Delete => "delete",
        Action::DeleteCollection => "deletecollection",
        Action::Connect | Action::Other(_) => return None,
    })
}

/// How a field merges under a strategic merge patch (`x-kubernetes-patch-strategy`,
/// `x-kubernetes-patch-merge-key`), and the type of its values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatchField {
    /// The named type of the value (or of a list's items, or a map's values), if any.
    pub ty: Option<String>,
    /// The strategies: `merge`, `retainKeys`, `replace`.
    pub strategy: Vec<String>,
    /// The key that identifies a list's items when they merge.
    pub merge_key: Option<String>,
}

/// Strategic merge patch metadata: each named type's fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatchSchema {
    /// Type name → JSON field name → metadata.
    pub types: HashMap<String, HashMap<String, PatchField>>,
    /// `(group, version, kind)` → the kind's type name.
    pub roots: HashMap<(String, String, String), String>,
}

#[cfg(feature = "model")]
/// What one CRD created through the API added (`custom.rs` adds and removes them).
#[derive(Clone, Debug, Default)]
pub(crate) struct CustomPart {
    /// The CRD's `spec` the part was read from: a status update changes nothing served.
    pub(crate) spec: Value,
    /// The catalog indexes of its served resources.
    pub(crate) resources: BTreeSet<usize>,
    /// Its OpenAPI v3 documents, by path (`apis/<group>/<version>`).
    pub(crate) documents: BTreeMap<String, Value>,
    /// Its kinds' schema nodes.
    pub(crate) schemas: Arc<crate::objects::schema::Schemas>,
    /// Its kinds' strategic merge metadata.
    pub(crate) patch: Arc<PatchSchema>,
}

/// Everything the server serves.
#[derive(Clone, Default)]
pub struct Catalog {
    pub(crate) resources: Vec<ResourceDef>,
    pub(crate) validators: HashMap<(String, String, String), Validator>,
    pub(crate) patch: Arc<PatchSchema>,
    /// `api/v1`, `apis/<group>/<version>` → the OpenAPI v3 document.
    pub(crate) openapi: BTreeMap<String, Arc<Value>>,
    /// The Swagger 2.0 document served at `/openapi/v2`, when an input was one.
    pub(crate) openapi_v2: Option<Arc<Value>>,
    /// The schema nodes field management merges by (server-side apply).
    pub(crate) schemas: Arc<crate::objects::schema::Schemas>,
    /// What each CustomResourceDefinition created through the API added, by its name.
    #[cfg(feature = "model")]
    pub(crate) custom: BTreeMap<String, Arc<CustomPart>>,
    /// The OpenAPI documents before any CRD was created through the API (taken when the
    /// first one is).
    #[cfg(feature = "model")]
    pub(crate) openapi_base: Option<BTreeMap<String, Arc<Value>>>,
    /// The resources `(group, version, plural)` whose delete operation declares the object
    /// itself as its `200` answer (where Go's storage sets `ReturnDeletedObject`: Pods,
    /// Services, …); the others answer a `Status`.
    pub(crate) deleted_object: BTreeSet<(String, String, String)>,
}

impl fmt::Debug for Catalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Catalog")
            .field("resources", &self.resources)
            .field("validators", &self.validators.keys().collect::<Vec<_>>())
            .field("openapi", &self.openapi.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Catalog {
        Catalog::default()
    }

    /// The resources of a generated crate's route table (`routes::ROUTES`): every route on a
    /// resource adds its verb to the resource or subresource (the deprecated `/watch/` paths
    /// and a list that takes `watch` add `watch`). Bodies are not checked beyond their kind
    /// until [`Catalog::typed`] registers the kind's type.
    pub fn from_routes(routes: &[RouteInfo]) -> Catalog {
        let mut catalog = Catalog::new();
        for route in routes {
            let (Some(resource), Some(verb)) = (route.resource, verb(route.action)) else {
                continue;
            };
            let watches =
                route.action == Action::List && route.query.iter().any(|q| q.name == "watch");
            let def = catalog.entry(
                resource.group,
                resource.version,
                resource.kind,
                resource.plural,
                resource.scope == Scope::Namespaced,
            );
            def.serve(resource.subresource, verb, watches);
            if route.action == Action::Delete && resource.subresource.is_none() {
                let ok = route.responses.iter().find(|r| r.status == 200);
                catalog.declare_delete_answer(
                    (resource.group, resource.version, resource.plural),
                    resource.kind,
                    ok.and_then(|r| r.ty),
                );
            }
        }
        catalog
    }

    /// Records what the delete of a resource answers: the object when the `200` response's
    /// type is the kind's own (`api::core::v1::Pod`), else a `Status`.
    pub(crate) fn declare_delete_answer(
        &mut self,
        (group, version, plural): (&str, &str, &str),
        kind: &str,
        ok_type: Option<&str>,
    ) {
        let last = |ty: &str| ty.rsplit("::").next().map(str::to_owned);
        if ok_type.and_then(last).as_deref() == Some(kind) {
            self.deleted_object
                .insert((group.to_owned(), version.to_owned(), plural.to_owned()));
        }
    }

    /// Whether a delete of `def`'s objects answers the object (see `deleted_object`).
    pub(crate) fn answers_deleted_object(&self, def: &ResourceDef) -> bool {
        self.deleted_object
            .contains(&(def.group.clone(), def.version.clone(), def.plural.clone()))
    }

    /// The resource `(group, version, plural)`, added with no verbs when new.
    pub fn entry(
        &mut self,
        group: &str,
        version: &str,
        kind: &str,
        plural: &str,
        namespaced: bool,
    ) -> &mut ResourceDef {
        let index = match self
            .resources
            .iter()
            .position(|r| r.group == group && r.version == version && r.plural == plural)
        {
            Some(index) => index,
            None => {
                let builtin = crate::objects::builtin::names(group, plural);
                self.resources.push(ResourceDef {
                    group: group.to_owned(),
                    version: version.to_owned(),
                    kind: kind.to_owned(),
                    plural: plural.to_owned(),
                    singular: kind.to_lowercase(),
                    short_names: builtin.map(|b| b.short_names.clone()).unwrap_or_default(),
                    categories: builtin.map(|b| b.categories.clone()).unwrap_or_default(),
                    printer_columns: Vec::new(),
                    selectable_fields: Vec::new(),
                    namespaced,
                    verbs: BTreeSet::new(),
                    subresources: BTreeMap::new(),
                });
                self.resources.len() - 1
            }
        };
        &mut self.resources[index]
    }

    /// Checks every body of `T`'s kind by decoding it into `T`, and stores what `T` writes
    /// back (so a `Quantity` given as a number is stored as the string the API writes).
    #[must_use]
    pub fn typed<T>(self) -> Catalog
    where
        T: Resource + Serialize + DeserializeOwned,
    {
        self.validator(
            T::GROUP,
            T::VERSION,
            T::KIND,
            Arc::new(|value| {
                let typed: T = serde_json::from_value(value).map_err(|e| e.to_string())?;
                serde_json::to_value(&typed).map_err(|e| e.to_string())
            }),
        )
    }

    /// Checks every body of a kind with `validator`.
    #[must_use]
    pub fn validator(
        mut self,
        group: &str,
        version: &str,
        kind: &str,
        validator: Validator,
    ) -> Catalog {
        self.validators.insert(
            (group.to_owned(), version.to_owned(), kind.to_owned()),
            validator,
        );
        self
    }

    /// Strategic merge patch metadata for the types (see [`PatchSchema`]).
    #[must_use]
    pub fn patch_schema(mut self, schema: PatchSchema) -> Catalog {
        self.patch = Arc::new(schema);
        self
    }

    /// Serves `document` at `/openapi/v3/<path>` (`path` is `api/v1` or
    /// `apis/<group>/<version>`).
    #[must_use]
    pub fn openapi(mut self, path: impl Into<String>, document: Value) -> Catalog {
        self.openapi.insert(path.into(), Arc::new(document));
        self
    }

    /// The resources.
    pub fn resources(&self) -> &[ResourceDef] {
        &self.resources
    }

    /// The resources served: all but those retired (a deleted CRD's), which keep their
    /// place in [`Catalog::resources`] with no verbs.
    pub fn served(&self) -> impl Iterator<Item = &ResourceDef> {
        self.resources.iter().filter(|r| r.is_served())
    }

    /// The resource `plural` of `group/version`.
    pub fn find(&self, group: &str, version: &str, plural: &str) -> Option<(usize, &ResourceDef)> {
        self.resources.iter().enumerate().find(|(_, r)| {
            r.group == group && r.version == version && r.plural == plural && r.is_served()
        })
    }

    /// The resource serving `kind` in `group/version`.
    pub(crate) fn find_kind(&self, group: &str, version: &str, kind: &str) -> Option<usize> {
        self.resources.iter().position(|r| {
            r.group == group && r.version == version && r.kind == kind && r.is_served()
        })
    }

    pub(crate) fn validator_for(&self, def: &ResourceDef) -> Option<&Validator> {
        self.validators
            .get(&(def.group.clone(), def.version.clone(), def.kind.clone()))
    }

    /// The other served versions of a custom resource, which read the same stored objects
    /// (a CRD's versions; `conversion: None`); none for a built-in resource, whose versions
    /// are different objects here.
    pub(crate) fn shared_versions(&self, index: usize) -> Vec<usize> {
        let Some(def) = self.resources.get(index) else {
            return Vec::new();
        };
        if !self.is_custom(def) {
            return Vec::new();
        }
        self.resources
            .iter()
            .enumerate()
            .filter(|(i, other)| {
                *i != index
                    && other.is_served()
                    && other.group == def.group
                    && other.plural == def.plural
                    && self.is_custom(other)
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// Whether `def` is a custom resource (a CRD's kind, given at start or created through
    /// the API).
    pub(crate) fn is_custom(&self, def: &ResourceDef) -> bool {
        self.schemas_for(def)
            .root_of(&def.group, &def.version, &def.kind)
            .is_some_and(|root| !root.builtin)
    }

    /// The schema nodes of `def`'s kind: a CRD's part's, or the catalog's own.
    pub(crate) fn schemas_for(&self, def: &ResourceDef) -> &crate::objects::schema::Schemas {
        #[cfg(feature = "model")]
        if let Some(part) = self.part_for(def) {
            return &part.schemas;
        }
        #[cfg(not(feature = "model"))]
        let _ = def;
        &self.schemas
    }

    /// The strategic merge metadata of `def`'s kind: a CRD's part's, or the catalog's own.
    pub(crate) fn patch_for(&self, def: &ResourceDef) -> &PatchSchema {
        #[cfg(feature = "model")]
        if let Some(part) = self.part_for(def) {
            return &part.patch;
        }
        #[cfg(not(feature = "model"))]
        let _ = def;
        &self.patch
    }

    #[cfg(feature = "model")]
    fn part_for(&self, def: &ResourceDef) -> Option<&CustomPart> {
        if self.custom.is_empty() {
            return None;
        }
        let gvk = (def.group.clone(), def.version.clone(), def.kind.clone());
        self.custom
            .values()
            .find(|part| part.schemas.roots.contains_key(&gvk))
            .map(|part| &**part)
    }

    pub(crate) fn patch_root(&self, def: &ResourceDef) -> Option<&str> {
        self.patch_for(def)
            .roots
            .get(&(def.group.clone(), def.version.clone(), def.kind.clone()))
            .map(String::as_str)
    }
}
