//! Apply configurations for server-side apply, decided here; `emit/apply.rs` only spells
//! them.
//!
//! A full struct serializes its required fields, so applying it claims fields the caller
//! never meant to set (k8s-openapi's issue #112). An apply configuration (Go's
//! applyconfiguration-gen, KEP-2155) is the same tree with every field optional, so its
//! serialization holds exactly what was set. The rules:
//!
//! - **Which types.** Every struct reachable from a served resource through fields, lists,
//!   maps and aliases gets an apply type, `<Name>Apply`, unique among its module's types and
//!   builders. An extern struct (the companion's `ObjectMeta`, k8s-openapi's) is its own
//!   apply type: the meta types' fields are all optional already. Enums, unions and JSON
//!   values are values: the full type.
//! - **Every field optional**, except the keys of a map list's items
//!   (`x-kubernetes-list-map-keys`), which server-side apply needs to merge: a key is
//!   required, and a constructor argument, when the struct is used only as the item of map
//!   lists keyed by it, the full type requires it, and the schema gives it no default but
//!   Go's zero value (the API server defaults a missing key, as `protocol: TCP` of a
//!   container port).
//! - **Constructors** mirror builders': a resource's takes its name (and namespace) into
//!   `metadata` and always writes `apiVersion` and `kind`; an item's takes its keys.
//! - **Methods** are the builder's setters, appenders and inserters, with its names
//!   (`model/builders.rs`), so an apply configuration reads like a builder chain.

use std::collections::{BTreeMap, BTreeSet};

use super::builders::{Builder, MetadataArgs, Method, Param, resolve};
use super::semantics::{self, Semantics};
use super::{ApiSet, FieldRole, Resource, Shape, TypeDef, TypeId, TypeKind};
use crate::ground::naming::{self, Namespace};
use kubeforge_runtime::schema::{ListType, Node};

/// The apply configuration of one struct.
#[derive(Clone, Debug, PartialEq)]
pub struct Apply {
    /// The apply type's name (`DeploymentApply`), unique among its module's types.
    pub name: String,
    /// For each field of the struct, in order: whether the apply type keeps it required (a
    /// map list item's key); `None` for the fields it leaves out (the `apiVersion`/`kind`
    /// markers, which a resource's apply type writes itself).
    pub required: Vec<Option<bool>>,
    /// The constructor's arguments besides a resource's name and namespace: the required
    /// keys, in field order.
    pub params: Vec<Param>,
    /// For a served resource: how the constructor fills in `metadata` (the builder's plan).
    pub metadata: Option<MetadataArgs>,
    /// The setters, appenders, inserters and a resource's `metadata_with`, with the
    /// builder's names.
    pub methods: Vec<Method>,
}

/// Plans the apply configuration of every struct reachable from a served resource.
pub(super) fn plan(
    types: &[TypeDef],
    resources: &BTreeMap<TypeId, Resource>,
    builders: &BTreeMap<TypeId, Builder>,
    semantics: &BTreeMap<TypeId, Semantics>,
) -> BTreeMap<TypeId, Apply> {
    let reachable = reachable(types, resources);
    let keys = required_keys(types, semantics, &reachable);
    let mut modules: BTreeMap<&[String], Namespace> = BTreeMap::new();
    for ty in types {
        modules.entry(&ty.module).or_default().reserve(&ty.name);
    }
    for (id, builder) in builders {
        modules
            .entry(&types[id.0].module)
            .or_default()
            .reserve(&builder.name);
    }
    let mut plans = BTreeMap::new();
    for &id in &reachable {
        let ty = &types[id.0];
        let (TypeKind::Struct(fields), Some(builder)) = (&ty.kind, builders.get(&id)) else {
            continue;
        };
        let key_fields = keys.get(&id);
        let required: Vec<Option<bool>> = fields
            .iter()
            .map(|field| match field.role {
                FieldRole::ApiVersion | FieldRole::Kind => None,
                FieldRole::Extra => Some(false),
                FieldRole::Plain => Some(
                    field.required
                        // Go's zero value, which Kubernetes publishes as the default of
                        // every non-pointer field, is no default here (`builders.rs`).
                        && field.default.as_ref().is_none_or(crate::load::is_zero)
                        && key_fields.is_some_and(|keys| keys.contains(&field.json_name)),
                ),
            })
            .collect();
        let metadata = resources
            .contains_key(&id)
            .then(|| builder.metadata.clone())
            .flatten();
        let params = required
            .iter()
            .enumerate()
            .filter(|(_, required)| **required == Some(true))
            .map(|(index, _)| Param {
                name: fields[index].rust_name.clone(),
                field: index,
            })
            .collect();
        // A resource's `metadata_with` edits the metadata the constructor filled in.
        let methods = builder.methods.clone();
        let name = modules
            .entry(&ty.module)
            .or_default()
            .claim(&naming::apply_type_name(&ty.name));
        plans.insert(
            id,
            Apply {
                name,
                required,
                params,
                metadata,
                methods,
            },
        );
    }
    plans
}

/// The structs reachable from the served resources, extern ones left out.
fn reachable(types: &[TypeDef], resources: &BTreeMap<TypeId, Resource>) -> BTreeSet<TypeId> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<TypeId> = resources.keys().copied().collect();
    while let Some(id) = stack.pop() {
        let TypeKind::Struct(fields) = &types[id.0].kind else {
            continue;
        };
        if !seen.insert(id) {
            continue;
        }
        for field in fields {
            if let Some(target) = struct_in(types, &field.shape) {
                stack.push(target);
            }
        }
    }
    seen
}

/// The struct a field's values are, through lists, maps, nullability and aliases.
pub(crate) fn struct_in(types: &[TypeDef], shape: &Shape) -> Option<TypeId> {
    match resolve(types, shape) {
        Shape::Vec(inner) | Shape::Map(inner) | Shape::Nullable(inner) => struct_in(types, inner),
        Shape::Ref(id) if matches!(types[id.0].kind, TypeKind::Struct(_)) => Some(*id),
        _ => None,
    }
}

/// The keys each struct needs as the item of map lists: only for structs used nowhere
/// else, the keys every such list shares.
fn required_keys(
    types: &[TypeDef],
    semantics: &BTreeMap<TypeId, Semantics>,
    reachable: &BTreeSet<TypeId>,
) -> BTreeMap<TypeId, BTreeSet<String>> {
    // For each struct, the keys of each use: `None` for a use as anything but a map list's item.
    let mut uses: BTreeMap<TypeId, Vec<Option<BTreeSet<String>>>> = BTreeMap::new();
    for &parent in reachable {
        let TypeKind::Struct(fields) = &types[parent.0].kind else {
            continue;
        };
        for field in fields.iter().filter(|f| f.role == FieldRole::Plain) {
            let Some(target) = struct_in(types, &field.shape) else {
                continue;
            };
            let item_of_list = matches!(resolve(types, &field.shape), Shape::Vec(inner)
                if matches!(resolve(types, inner), Shape::Ref(_)));
            let keys = item_of_list
                .then(|| semantics::field_node(semantics, parent, &field.json_name))
                .flatten()
                .filter(|node| node.list_type == Some(ListType::Map))
                .map(|node: &Node| node.list_map_keys.iter().cloned().collect());
            uses.entry(target).or_default().push(keys);
        }
    }
    uses.into_iter()
        .filter_map(|(id, uses)| {
            let mut all: Option<BTreeSet<String>> = None;
            for keys in uses {
                let keys = keys?;
                all = Some(match all {
                    None => keys,
                    Some(all) => all.intersection(&keys).cloned().collect(),
                });
            }
            all.map(|keys| (id, keys))
        })
        .collect()
}

impl ApiSet {
    /// The apply type of the struct `id`, if it has one.
    pub fn apply_of(&self, id: TypeId) -> Option<&Apply> {
        self.apply.get(&id)
    }
}
