//! Schema semantics beyond shape, decided once: every named schema becomes one
//! [`Node`] (the runtime's normalized form of constraints, CEL rules, defaults and merge
//! semantics), and every type knows where its node is. Emit writes the nodes into generated
//! code (`Validate`, apply types); the in-memory server builds its validation, defaulting,
//! pruning and structured merge from the same nodes. Nothing else reads these keywords.
//!
//! The node follows the *schema*, not the Rust shape: `allOf` branches stay branches, a
//! `$ref` stays a reference (to the named type's node, by [`TypeId`]), whatever struct the
//! model merged them into. So a resource's node says exactly what its schema says.
//!
//! A nested (anonymous) type's node is the part of its named type's node at the type's
//! place ([`Semantics::Within`]), so nested types never repeat their parents' nodes. Where
//! the node does not mirror that place (`patternProperties`, which structural schemas do not
//! allow), the nested type gets a node of its own.
//!
//! The well-known runtime types take the node of what the API server accepts, not of how a
//! document spells them: a `Quantity` is a string or a number (Swagger 2.0 says `string`,
//! but `cpu: 2` is valid), an `IntOrString` an integer or a string.

use std::collections::BTreeMap;

use kubeforge_runtime::schema::{Additional, JsonType, Node, cel};

use super::wellknown::{self, WellKnown};
use super::{RuntimeType, TypeDef, TypeId};
use crate::diagnostics::{Diagnostic, Diagnostics, Error, ErrorKind};
use crate::load::LoadedApi;
use crate::load::schema::{AdditionalProperties, Schema, Type};

/// Where a type's node is.
#[derive(Clone, Debug, PartialEq)]
pub enum Semantics {
    /// The node of a named schema (or of a nested one the parent's node does not mirror).
    /// Its `$ref` indexes are [`TypeId`]s.
    Root(Box<Node>),
    /// The node at `path` (keys as in the node's JSON form: `properties`, `spec`, `items`,
    /// `additionalProperties`, `allOf`, `0`, …) below the node of the named type `root`.
    Within {
        /// The named type whose node holds this one.
        root: TypeId,
        /// The keys from that node down to this one.
        path: Vec<String>,
    },
}

/// Every type's semantics, by id; an error naming each CEL rule (`x-kubernetes-validations`)
/// the runtime's evaluator cannot run, with its file and pointer: a rule is never skipped.
pub(super) fn build(
    raw: &LoadedApi,
    types: &[TypeDef],
) -> Result<BTreeMap<TypeId, Semantics>, Error> {
    let ids: BTreeMap<&str, TypeId> = types
        .iter()
        .enumerate()
        .filter(|(_, ty)| raw.schemas.contains_key(&ty.schema_name))
        .filter(|(_, ty)| {
            raw.schemas
                .get(&ty.schema_name)
                .is_some_and(|s| s.origin == ty.origin)
        })
        .map(|(i, ty)| (ty.schema_name.as_str(), TypeId(i)))
        .collect();
    let reference = |name: &str| ids.get(name).map(|id| id.0);
    let mut semantics = BTreeMap::new();
    let mut roots: Vec<(&crate::diagnostics::Origin, TypeId, &Schema)> = Vec::new();
    for (name, &id) in &ids {
        let schema = &raw.schemas[*name];
        semantics.insert(
            id,
            Semantics::Root(Box::new(named_node(name, &schema.schema, &reference))),
        );
        roots.push((&schema.origin, id, &schema.schema));
    }
    // Longest pointer first, so a nested type finds the innermost named schema holding it.
    roots.sort_by_key(|(origin, _, _)| std::cmp::Reverse(origin.pointer.len()));
    for (index, ty) in types.iter().enumerate() {
        let id = TypeId(index);
        if semantics.contains_key(&id) {
            continue;
        }
        let found = roots.iter().find_map(|(origin, root, schema)| {
            let rest = ty.origin.pointer.strip_prefix(origin.pointer.as_str())?;
            (origin.file == ty.origin.file && (rest.is_empty() || rest.starts_with('/')))
                .then(|| (*root, *schema, segments(rest)))
        });
        let Some((root, schema, path)) = found else {
            continue;
        };
        let Some(Semantics::Root(root_node)) = semantics.get(&root) else {
            continue;
        };
        if node_at(root_node, &path).is_some() {
            semantics.insert(id, Semantics::Within { root, path });
        } else if let Some(schema) = schema_at(schema, &path) {
            semantics.insert(id, Semantics::Root(Box::new(node(schema, &reference))));
        }
    }
    let mut diagnostics = Diagnostics::default();
    for (name, id) in &ids {
        let Some(Semantics::Root(node)) = semantics.get(id) else {
            continue;
        };
        let Err(errors) = cel::check_rules(node) else {
            continue;
        };
        let origin = &raw.schemas[*name].origin;
        for error in errors {
            let mut at = origin.clone();
            for segment in document_pointer(&error.pointer) {
                at = at.child(&segment);
            }
            diagnostics.push(
                Diagnostic::new(
                    ErrorKind::UnsupportedSchema,
                    &at,
                    format!(
                        "expected a CEL rule the evaluator can run, found {:?}: {}",
                        error.rule, error.reason
                    ),
                )
                .with_hint(
                    "the rule is not skipped: fix it, or leave the schema out with `--select`",
                ),
            );
        }
    }
    diagnostics.finish(semantics)
}

/// A pointer into a node (`/properties/spec/rules/0/rule`) as a pointer into the schema it
/// was made from (`/properties/spec/x-kubernetes-validations/0/rule`): the same keys, but
/// for the rules' own.
fn document_pointer(pointer: &str) -> Vec<String> {
    let segments = segments(pointer);
    let mut out = Vec::with_capacity(segments.len());
    let mut after_properties = false;
    for segment in segments {
        let keyword = !after_properties;
        after_properties = keyword && segment == "properties";
        out.push(if keyword && segment == "rules" {
            "x-kubernetes-validations".to_owned()
        } else {
            segment
        });
    }
    out
}

/// The node of the type `id`, through its named type's node for a nested type.
pub fn type_node(semantics: &BTreeMap<TypeId, Semantics>, id: TypeId) -> Option<&Node> {
    match semantics.get(&id)? {
        Semantics::Root(node) => Some(node),
        Semantics::Within { root, path } => match semantics.get(root)? {
            Semantics::Root(node) => node_at(node, path),
            Semantics::Within { .. } => None,
        },
    }
}

/// The node of the property `json_name` of the struct `id`: where its schema, or a schema
/// it merged (through `$ref`, `allOf`, `oneOf`, `anyOf`, as the struct's fields were
/// gathered), defines it.
pub fn field_node<'s>(
    semantics: &'s BTreeMap<TypeId, Semantics>,
    id: TypeId,
    json_name: &str,
) -> Option<&'s Node> {
    fn find<'s>(
        semantics: &'s BTreeMap<TypeId, Semantics>,
        node: &'s Node,
        name: &str,
        depth: usize,
    ) -> Option<&'s Node> {
        if depth > 32 {
            return None;
        }
        if let Some(property) = node.properties.get(name) {
            return Some(property);
        }
        let branches = node.all_of.iter().chain(&node.one_of).chain(&node.any_of);
        for branch in branches {
            if let Some(found) = find(semantics, branch, name, depth + 1) {
                return Some(found);
            }
        }
        let target = type_node(semantics, TypeId(node.reference?))?;
        find(semantics, target, name, depth + 1)
    }
    find(semantics, type_node(semantics, id)?, json_name, 0)
}

/// The node of the named schema `name`: the well-known runtime types by what they accept.
fn named_node(name: &str, schema: &Schema, reference: &impl Fn(&str) -> Option<usize>) -> Node {
    match wellknown::lookup(name) {
        Some(WellKnown::Runtime(RuntimeType::Quantity)) => Node {
            any_of: vec![
                Node {
                    ty: Some(JsonType::String),
                    ..Node::default()
                },
                Node {
                    ty: Some(JsonType::Number),
                    ..Node::default()
                },
            ],
            ..Node::default()
        },
        Some(WellKnown::Runtime(RuntimeType::IntOrString)) => Node {
            int_or_string: true,
            ..Node::default()
        },
        _ => node(schema, reference),
    }
}

/// The node of `schema`; `reference` gives the index of a named schema.
pub(crate) fn node(schema: &Schema, reference: &impl Fn(&str) -> Option<usize>) -> Node {
    let nodes = |list: &Option<Vec<Schema>>| -> Vec<Node> {
        list.iter()
            .flatten()
            .map(|branch| node(branch, reference))
            .collect()
    };
    let int_or_string = schema.int_or_string || schema.format.as_deref() == Some("int-or-string");
    let c = &schema.constraints;
    let mut node = Node {
        reference: schema.reference.as_ref().and_then(|r| reference(&r.name)),
        // An int-or-string admits both, whatever `type` says (Swagger 2.0 writes `string`).
        ty: if int_or_string {
            None
        } else {
            schema.ty.map(json_type)
        },
        nullable: schema.nullable,
        int_or_string,
        format: schema
            .format
            .clone()
            .filter(|format| format != "int-or-string"),
        enum_values: schema
            .enum_values
            .as_ref()
            .map(|values| values.iter().filter(|v| !v.is_null()).cloned().collect()),
        pattern: c.pattern.clone(),
        min_length: c.min_length,
        max_length: c.max_length,
        minimum: c.minimum.clone(),
        exclusive_minimum: c.exclusive_minimum,
        maximum: c.maximum.clone(),
        exclusive_maximum: c.exclusive_maximum,
        multiple_of: c.multiple_of.clone(),
        min_items: c.min_items,
        max_items: c.max_items,
        unique_items: c.unique_items,
        min_properties: c.min_properties,
        max_properties: c.max_properties,
        required: schema.required.clone(),
        properties: schema
            .properties
            .iter()
            .flatten()
            .map(|(name, property)| (name.clone(), node(property, reference)))
            .collect(),
        additional_properties: schema.additional_properties.as_ref().map(|extra| {
            Box::new(match extra {
                AdditionalProperties::Forbidden => Additional::Allowed(false),
                AdditionalProperties::Any => Additional::Allowed(true),
                AdditionalProperties::Schema(schema) => Additional::Schema(node(schema, reference)),
            })
        }),
        items: schema
            .items
            .as_ref()
            .map(|items| Box::new(node(items, reference))),
        all_of: nodes(&schema.all_of),
        one_of: nodes(&schema.one_of),
        any_of: nodes(&schema.any_of),
        not: schema
            .not
            .as_ref()
            .map(|not| Box::new(node(not, reference))),
        preserve_unknown_fields: schema.preserve_unknown_fields,
        embedded_resource: schema.embedded_resource,
        list_type: schema.list_type,
        list_map_keys: schema.list_map_keys.clone(),
        map_type: schema.map_type,
        struct_type: None,
        patch_strategy: schema.patch_strategies.clone(),
        patch_merge_key: schema.patch_merge_key.clone(),
        rules: schema.validations.clone(),
        default: schema.default.clone(),
    };
    plain_reference(&mut node);
    node
}

/// Writes an `allOf` whose one branch is a bare `$ref` (how Kubernetes' OpenAPI v3 documents,
/// and the model for a CRD's `metadata`, give a property a named type beside its own
/// `default` or `description`) as the `$ref` itself. The two mean the same (the node's
/// `$ref` applies with its siblings), but a `$ref` is followed wherever properties and items
/// are looked up (list-type uniqueness, pruning, defaulting, unknown fields, field
/// management), and validating it reports no extra `must validate all the schemas (allOf)`
/// error, which the API server, decoding built-in kinds into Go types, never gives.
fn plain_reference(node: &mut Node) {
    if node.reference.is_none()
        && let [only] = node.all_of.as_slice()
        && only.reference.is_some()
        && (Node {
            reference: None,
            ..only.clone()
        }) == Node::default()
    {
        node.reference = only.reference;
        node.all_of.clear();
    }
}

fn json_type(ty: Type) -> JsonType {
    match ty {
        Type::String => JsonType::String,
        Type::Integer => JsonType::Integer,
        Type::Number => JsonType::Number,
        Type::Boolean => JsonType::Boolean,
        Type::Array => JsonType::Array,
        Type::Object => JsonType::Object,
    }
}

/// The segments of a JSON pointer, escapes undone (`~1` is `/`, `~0` is `~`).
fn segments(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// The node at `path` below `node`, through the keys of its JSON form.
pub fn node_at<'n>(mut node: &'n Node, path: &[String]) -> Option<&'n Node> {
    let mut rest = path;
    while let [key, tail @ ..] = rest {
        let (next, tail) = match key.as_str() {
            "items" => (node.items.as_deref()?, tail),
            "not" => (node.not.as_deref()?, tail),
            "additionalProperties" => match node.additional_properties.as_deref()? {
                Additional::Schema(inner) => (inner, tail),
                Additional::Allowed(_) => return None,
            },
            "properties" => {
                let (name, tail) = tail.split_first()?;
                (node.properties.get(name)?, tail)
            }
            "allOf" | "oneOf" | "anyOf" => {
                let (index, tail) = tail.split_first()?;
                let list = match key.as_str() {
                    "allOf" => &node.all_of,
                    "oneOf" => &node.one_of,
                    _ => &node.any_of,
                };
                (list.get(index.parse::<usize>().ok()?)?, tail)
            }
            _ => return None,
        };
        node = next;
        rest = tail;
    }
    Some(node)
}

/// The schema at `path` below `schema`, through the keys of its JSON form.
fn schema_at<'s>(mut schema: &'s Schema, path: &[String]) -> Option<&'s Schema> {
    let mut rest = path;
    while let [key, tail @ ..] = rest {
        let (next, tail) = match key.as_str() {
            "items" => (schema.items.as_deref()?, tail),
            "not" => (schema.not.as_deref()?, tail),
            "additionalProperties" => match schema.additional_properties.as_ref()? {
                AdditionalProperties::Schema(inner) => (&**inner, tail),
                _ => return None,
            },
            "properties" | "patternProperties" => {
                let (name, tail) = tail.split_first()?;
                let map = if key == "properties" {
                    schema.properties.as_ref()?
                } else {
                    schema.pattern_properties.as_ref()?
                };
                (map.get(name)?, tail)
            }
            "allOf" | "oneOf" | "anyOf" => {
                let (index, tail) = tail.split_first()?;
                let list = schema.combinator(key)?;
                (list.get(index.parse::<usize>().ok()?)?, tail)
            }
            _ => return None,
        };
        schema = next;
        rest = tail;
    }
    Some(schema)
}

/// A type's schema as generated code embeds it (`emit/validate.rs`).
#[derive(Clone, Debug, PartialEq)]
pub enum Embedded {
    /// The node, whose `$ref` indexes are positions in `refs`: the types whose `Validate`
    /// resolves them. References to types without one are replaced by the target's node.
    Node {
        /// The node, references renumbered.
        node: Box<Node>,
        /// The referenced types, in order of first reference.
        refs: Vec<TypeId>,
    },
    /// The node at `path` of the schema of `root`, a type that implements `Validate`.
    Within {
        /// The type whose schema holds this one.
        root: TypeId,
        /// The keys from its node down to this one.
        path: Vec<String>,
    },
}

/// How deep references to types without `Validate` are replaced by their nodes; past it (a
/// cycle through aliases or a user's extern types) a reference is left out unchecked.
const MAX_INLINE: usize = 16;

impl super::ApiSet {
    /// Every type's node, at its [`TypeId`]'s position (an empty node for a type without
    /// semantics): the nodes' `$ref` indexes are positions here, as the runtime's
    /// `SchemaSet` resolves them. What the in-memory server validates, defaults, prunes and
    /// merges with.
    pub fn nodes(&self) -> Vec<Node> {
        (0..self.types.len())
            .map(|index| {
                type_node(&self.semantics, TypeId(index))
                    .cloned()
                    .unwrap_or_default()
            })
            .collect()
    }

    /// The schema of the type `id` as generated code embeds it; `None` for a type without
    /// semantics (none is made from a schema without them).
    pub fn embedded_schema(&self, id: TypeId) -> Option<Embedded> {
        match self.semantics.get(&id)? {
            Semantics::Within { root, path } if self.validated.contains(root) => {
                Some(Embedded::Within {
                    root: *root,
                    path: path.clone(),
                })
            }
            _ => {
                let mut node = type_node(&self.semantics, id)?.clone();
                let mut refs = Vec::new();
                self.renumber(&mut node, &mut refs, 0);
                Some(Embedded::Node {
                    node: Box::new(node),
                    refs,
                })
            }
        }
    }

    /// Renumbers the references below `node` as positions in `refs`, replacing references
    /// to types without `Validate` by their nodes.
    fn renumber(&self, node: &mut Node, refs: &mut Vec<TypeId>, depth: usize) {
        let mut inlined = None;
        if let Some(index) = node.reference {
            let target = TypeId(index);
            if self.validated.contains(&target) {
                let position = refs.iter().position(|r| *r == target).unwrap_or_else(|| {
                    refs.push(target);
                    refs.len() - 1
                });
                node.reference = Some(position);
            } else {
                node.reference = None;
                if depth < MAX_INLINE
                    && let Some(mut target) = type_node(&self.semantics, target).cloned()
                {
                    self.renumber(&mut target, refs, depth + 1);
                    inlined = Some(target);
                }
            }
        }
        for child in node.properties.values_mut() {
            self.renumber(child, refs, depth);
        }
        if let Some(Additional::Schema(child)) = node.additional_properties.as_deref_mut() {
            self.renumber(child, refs, depth);
        }
        for child in node
            .items
            .iter_mut()
            .chain(node.not.iter_mut())
            .map(|b| &mut **b)
            .chain(node.all_of.iter_mut())
            .chain(node.one_of.iter_mut())
            .chain(node.any_of.iter_mut())
        {
            self.renumber(child, refs, depth);
        }
        // Last, so the places of the branches already there (`Within` paths) stay.
        node.all_of.extend(inlined);
    }
}
