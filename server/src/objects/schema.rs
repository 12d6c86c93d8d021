//! The merge types of a schema, read from the generator's schema nodes (`schema::Node`) the
//! way kube-openapi's `schemaconv` turns OpenAPI into structured-merge-diff types:
//!
//! - `type: object` is a map: its properties are struct fields, `additionalProperties` (or,
//!   without properties or under `x-kubernetes-preserve-unknown-fields`, anything: the
//!   "deduced" type) the type of other keys; `x-kubernetes-map-type` (on the schema, or on a
//!   property beside its `$ref`) makes it atomic or granular.
//! - `type: array` is a list: `x-kubernetes-list-type` says atomic, set or map (with
//!   `x-kubernetes-list-map-keys`); without it, `x-kubernetes-patch-strategy: merge` makes a
//!   map list keyed by `x-kubernetes-patch-merge-key` (a set without a key), `retainKeys`
//!   alone is atomic, and every other list is atomic.
//! - No `type` admits a scalar, a list and a map (int-or-string, quantities, JSON).
//! - `RawExtension` is untyped and atomic, as kube-openapi hard-codes it.
//!
//! A `$ref` (or an `allOf` of one `$ref`) names another node by [`TypeId`] index; named
//! schemas do not inherit `x-kubernetes-preserve-unknown-fields` from where they are used.

use std::collections::{BTreeSet, HashMap};

use kubeforge_runtime::schema::{Additional, ElementType, JsonType, ListType, Node, SchemaSet};
use serde_json::Value;

/// The schema nodes of every type of an API, and each resource's root type: what field
/// management merges by and what validation, defaulting and pruning evaluate (`validation`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Schemas {
    /// The node of each type, by `TypeId` index (an empty node for a type without one), as
    /// the runtime's evaluators resolve `$ref`s.
    pub(crate) set: SchemaSet,
    /// Types kube-openapi makes untyped and atomic (`RawExtension`).
    pub(crate) untyped: BTreeSet<usize>,
    /// `(group, version, kind)` → the resource's root type.
    pub(crate) roots: HashMap<(String, String, String), Root>,
    /// The definition name of each type, by `TypeId` index (`io.k8s.api.core.v1.Pod`), for
    /// the built-in defaults (`builtin_defaults`), which belong to types.
    pub(crate) names: Vec<String>,
}

/// A resource's root type.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Root {
    /// The index of its node.
    pub(crate) index: usize,
    /// Whether it is a built-in (Go) type, whose empty object has the fields Go always
    /// writes; custom resources are unstructured.
    pub(crate) builtin: bool,
}

/// A type: a node in its context, or one of the untyped types.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ty<'s> {
    /// A schema node; `preserve` is whether it or an ancestor (within its named type) keeps
    /// unknown fields; `map_type` the relationship the referring property imposes.
    Node {
        node: &'s Node,
        preserve: bool,
        map_type: Option<ElementType>,
    },
    /// `__untyped_atomic_`: any scalar, or an atomic list or map of untyped values.
    Untyped,
    /// `__untyped_deduced_`: any scalar, an atomic list, or a granular map of deduced values.
    Deduced,
}

/// What a type admits, as SMD's `schema.Atom`.
#[derive(Clone, Debug)]
pub(crate) struct Atom<'s> {
    pub(crate) scalar: Option<Scalar>,
    pub(crate) list: Option<ListTy<'s>>,
    pub(crate) map: Option<MapTy<'s>>,
}

/// Scalar kinds (what validation checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    Numeric,
    String,
    Boolean,
    Untyped,
}

/// A list type.
#[derive(Clone, Debug)]
pub(crate) struct ListTy<'s> {
    /// Replaced whole.
    pub(crate) atomic: bool,
    /// The key fields of a map list; empty for a set (when not atomic).
    pub(crate) keys: Vec<String>,
    pub(crate) element: Ty<'s>,
}

/// A map (or struct) type.
#[derive(Clone, Debug)]
pub(crate) struct MapTy<'s> {
    pub(crate) atomic: bool,
    /// The declared fields and the context they are read in.
    fields: Option<(&'s Node, bool)>,
    /// The type of other keys; `None` when other keys are not allowed.
    pub(crate) element: Option<Ty<'s>>,
}

impl Atom<'_> {
    fn same_kinds(&self, other: &Atom<'_>) -> bool {
        self.scalar.is_some() == other.scalar.is_some()
            && self.list.is_some() == other.list.is_some()
            && self.map.is_some() == other.map.is_some()
    }

    /// Whether two deductions of one atom chose the same alternatives.
    pub(crate) fn equals(&self, other: &Atom<'_>) -> bool {
        self.same_kinds(other)
    }
}

impl<'s> MapTy<'s> {
    /// The type of field `name`: the declared field's, else the element type.
    pub(crate) fn field(&self, schemas: &'s Schemas, name: &str) -> Option<Ty<'s>> {
        self.declared(schemas, name).or(self.element)
    }

    /// The type of a declared field.
    pub(crate) fn declared(&self, schemas: &'s Schemas, name: &str) -> Option<Ty<'s>> {
        let (node, preserve) = self.fields?;
        let property = node.properties.get(name)?;
        Some(schemas.reference(property, preserve))
    }

    pub(crate) fn has_field(&self, name: &str) -> bool {
        self.fields
            .is_some_and(|(node, _)| node.properties.contains_key(name))
    }

    /// The default of a declared field (as a map-list key's default).
    pub(crate) fn field_default(&self, name: &str) -> Option<&'s Value> {
        let (node, _) = self.fields?;
        node.properties.get(name)?.default.as_ref()
    }

    /// The definition name of the map's own node, when it is a named type
    /// (`io.k8s.api.core.v1.ContainerPort`), for the built-in defaults of its fields.
    pub(crate) fn type_name(&self, schemas: &'s Schemas) -> Option<&'s str> {
        let (node, _) = self.fields?;
        schemas.name_of(node)
    }

    /// The declared fields with their nodes, for the empty object of a built-in type.
    pub(crate) fn properties(&self) -> impl Iterator<Item = (&'s String, &'s Node)> {
        self.fields
            .into_iter()
            .flat_map(|(node, _)| node.properties.iter())
    }

    /// Whether the map is a struct with `name` among its required fields.
    pub(crate) fn required(&self, name: &str) -> bool {
        self.fields
            .is_some_and(|(node, _)| node.required.iter().any(|r| r == name))
    }
}

impl Schemas {
    /// Marks a kind as a custom resource (unstructured: its empty object has no fields).
    #[cfg(feature = "model")]
    pub(crate) fn mark_custom(&mut self, group: &str, version: &str, kind: &str) {
        if let Some(root) =
            self.roots
                .get_mut(&(group.to_owned(), version.to_owned(), kind.to_owned()))
        {
            root.builtin = false;
        }
    }

    /// The root type of a resource; without a schema, the deduced type (every map granular,
    /// every list atomic), as for a custom resource without one.
    pub(crate) fn root(&self, group: &str, version: &str, kind: &str) -> (Ty<'_>, bool) {
        match self
            .roots
            .get(&(group.to_owned(), version.to_owned(), kind.to_owned()))
        {
            Some(root) => (self.named(root.index), root.builtin),
            None => (Ty::Deduced, false),
        }
    }

    /// A resource's root node and whether it is a built-in kind; `None` without a schema.
    pub(crate) fn root_node(
        &self,
        group: &str,
        version: &str,
        kind: &str,
    ) -> Option<(&Node, bool)> {
        let root = self.root_of(group, version, kind)?;
        Some((self.set.get(root.index)?, root.builtin))
    }

    /// The root type of the resource of `(group, version, kind)`.
    pub(crate) fn root_of(&self, group: &str, version: &str, kind: &str) -> Option<Root> {
        self.roots
            .get(&(group.to_owned(), version.to_owned(), kind.to_owned()))
            .copied()
    }

    /// The definition name of `node` when it is one of the named types of the set (found by
    /// its place in the set's nodes).
    pub(crate) fn name_of(&self, node: &Node) -> Option<&str> {
        let nodes = &self.set.nodes;
        let size = std::mem::size_of::<Node>();
        let at = (std::ptr::from_ref(node) as usize).checked_sub(nodes.as_ptr() as usize)?;
        let index = at / size;
        (at % size == 0 && nodes.get(index).is_some_and(|n| std::ptr::eq(n, node)))
            .then(|| self.names.get(index).map(String::as_str))
            .flatten()
    }

    fn named(&self, index: usize) -> Ty<'_> {
        if self.untyped.contains(&index) {
            return Ty::Untyped;
        }
        // A type without semantics has an empty node: anything, deduced from the value.
        match self.set.get(index).filter(|node| **node != Node::default()) {
            Some(node) => Ty::Node {
                node,
                preserve: node.preserve_unknown_fields,
                map_type: None,
            },
            None => Ty::Deduced,
        }
    }

    /// The type a property (or `items`, or `additionalProperties`) schema refers to: a named
    /// type through `$ref` or an `allOf` of one `$ref`, with the property's map type, or the
    /// schema itself, inline.
    pub(crate) fn reference<'a>(&'a self, node: &'a Node, preserve: bool) -> Ty<'a> {
        let target = node.reference.or(match node.all_of.as_slice() {
            [only] => only.reference,
            _ => None,
        });
        match target {
            Some(index) => match self.named(index) {
                Ty::Node { node: named, .. } => Ty::Node {
                    node: named,
                    preserve: named.preserve_unknown_fields,
                    map_type: node.map_type.or(node.struct_type),
                },
                other => other,
            },
            None => Ty::Node {
                node,
                preserve: preserve || node.preserve_unknown_fields,
                map_type: None,
            },
        }
    }

    /// What a type admits.
    pub(crate) fn atom<'a>(&'a self, ty: Ty<'a>) -> Atom<'a> {
        match ty {
            Ty::Untyped => untyped(true, Ty::Untyped),
            Ty::Deduced => untyped(false, Ty::Deduced),
            Ty::Node {
                node,
                preserve,
                map_type,
            } => {
                let mut atom = match node.ty {
                    None => Atom {
                        scalar: Some(Scalar::Untyped),
                        list: Some(self.list(node, preserve)),
                        map: Some(self.map(node, preserve)),
                    },
                    Some(JsonType::Object) => Atom {
                        scalar: None,
                        list: None,
                        map: Some(self.map(node, preserve)),
                    },
                    Some(JsonType::Array) => Atom {
                        scalar: None,
                        list: Some(self.list(node, preserve)),
                        map: None,
                    },
                    Some(JsonType::Integer | JsonType::Number) => scalar(Scalar::Numeric),
                    Some(JsonType::Boolean) => scalar(Scalar::Boolean),
                    Some(JsonType::String) => match node.format.as_deref() {
                        None | Some("" | "byte") => scalar(Scalar::String),
                        Some(_) => scalar(Scalar::Untyped),
                    },
                };
                // A property's map type overrides the named type's relationship: the map's
                // when there is one, else the list's (SMD's `Schema.Resolve`).
                if let Some(kind) = map_type {
                    let atomic = kind == ElementType::Atomic;
                    if let Some(map) = atom.map.as_mut() {
                        map.atomic = atomic;
                    } else if let Some(list) = atom.list.as_mut() {
                        list.atomic = atomic;
                    }
                }
                atom
            }
        }
    }

    fn map<'a>(&'a self, node: &'a Node, preserve: bool) -> MapTy<'a> {
        let preserve = preserve || node.preserve_unknown_fields;
        let element = match node.additional_properties.as_deref() {
            None if preserve || node.properties.is_empty() => Some(Ty::Deduced),
            None | Some(Additional::Allowed(false)) => None,
            Some(Additional::Allowed(true)) => Some(Ty::Deduced),
            Some(Additional::Schema(inner)) => Some(self.reference(inner, preserve)),
        };
        MapTy {
            atomic: node.map_type.or(node.struct_type) == Some(ElementType::Atomic),
            fields: Some((node, preserve)),
            element,
        }
    }

    fn list<'a>(&'a self, node: &'a Node, preserve: bool) -> ListTy<'a> {
        let preserve = preserve || node.preserve_unknown_fields;
        let (atomic, keys) = match node.list_type {
            Some(ListType::Atomic) => (true, Vec::new()),
            Some(ListType::Set) => (false, Vec::new()),
            Some(ListType::Map) => (false, node.list_map_keys.clone()),
            None => {
                let merge = matches!(
                    node.patch_strategy
                        .iter()
                        .map(String::as_str)
                        .collect::<Vec<_>>()
                        .as_slice(),
                    ["merge"] | ["merge", "retainKeys"]
                );
                if merge {
                    (false, node.patch_merge_key.iter().cloned().collect())
                } else {
                    (true, Vec::new())
                }
            }
        };
        ListTy {
            atomic,
            keys,
            element: match node.items.as_deref() {
                Some(items) => self.reference(items, preserve),
                None => Ty::Untyped,
            },
        }
    }
}

/// SMD's untyped atoms: any scalar, an atomic list of untyped values, and a map of
/// `element`s (atomic for `__untyped_atomic_`, granular for `__untyped_deduced_`).
fn untyped(atomic_map: bool, element: Ty<'_>) -> Atom<'_> {
    Atom {
        scalar: Some(Scalar::Untyped),
        list: Some(ListTy {
            atomic: true,
            keys: Vec::new(),
            element: Ty::Untyped,
        }),
        map: Some(MapTy {
            atomic: atomic_map,
            fields: None,
            element: Some(element),
        }),
    }
}

fn scalar(kind: Scalar) -> Atom<'static> {
    Atom {
        scalar: Some(kind),
        list: None,
        map: None,
    }
}

/// The alternative of `atom` that `value` takes (SMD's `deduceAtom`): a scalar, a list or a
/// map when the atom admits it; otherwise (null, or a kind the atom does not admit) the
/// atom as it is.
pub(crate) fn deduce<'s>(atom: &Atom<'s>, value: Option<&Value>) -> Atom<'s> {
    let keep = |scalar: bool, list: bool, map: bool| Atom {
        scalar: if scalar { atom.scalar } else { None },
        list: if list { atom.list.clone() } else { None },
        map: if map { atom.map.clone() } else { None },
    };
    match value {
        Some(Value::Number(_) | Value::String(_) | Value::Bool(_)) if atom.scalar.is_some() => {
            keep(true, false, false)
        }
        Some(Value::Array(_)) if atom.list.is_some() => keep(false, true, false),
        Some(Value::Object(_)) if atom.map.is_some() => keep(false, false, true),
        _ => atom.clone(),
    }
}
