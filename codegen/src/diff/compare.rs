//! Finding the changes: types, fields, enums, builders, resources and operations, each by
//! its stable identity (see the module docs of `diff`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{Change, Effect};
use crate::model::operations::{Method, Operation};
use crate::model::{ApiSet, Field, FieldRole, TypeDef, TypeId, TypeKind};

/// The JSON key under which a struct's extra-keys field is compared (it has no JSON name).
const EXTRA: &str = "(other keys)";

/// Every change from `old` to `new`, unsorted.
pub(super) fn changes(old: &ApiSet, new: &ApiSet) -> Vec<Change> {
    let mut out = Vec::new();
    let old_types = by_schema(old);
    let new_types = by_schema(new);
    let removed: Vec<TypeId> = old_types
        .iter()
        .filter(|(name, _)| !new_types.contains_key(*name))
        .map(|(_, id)| *id)
        .collect();
    let added: Vec<TypeId> = new_types
        .iter()
        .filter(|(name, _)| !old_types.contains_key(*name))
        .map(|(_, id)| *id)
        .collect();
    types_added_removed(old, new, &removed, &added, &mut out);
    for (name, &old_id) in &old_types {
        if let Some(&new_id) = new_types.get(name) {
            Pair {
                old,
                new,
                old_id,
                new_id,
            }
            .compare(&mut out);
        }
    }
    operations(old, new, &mut out);
    query_structs(old, new, &mut out);
    out
}

/// Types by schema name (the first, should two types share one).
fn by_schema(api: &ApiSet) -> BTreeMap<&str, TypeId> {
    let mut map = BTreeMap::new();
    for (i, ty) in api.types.iter().enumerate() {
        map.entry(ty.schema_name.as_str()).or_insert(TypeId(i));
    }
    map
}

/// The section a type belongs to: its module path without a trailing version segment, so
/// that an API group's versions are reported together.
fn section(ty: &TypeDef) -> String {
    let mut module: &[String] = &ty.module;
    if let Some((last, rest)) = module.split_last()
        && is_version(last)
    {
        module = rest;
    }
    if module.is_empty() {
        "crate".to_owned()
    } else {
        module.join("::")
    }
}

/// Whether a module name is a Kubernetes version: `v1`, `v2beta1`, `v1alpha3`.
fn is_version(segment: &str) -> bool {
    let Some(rest) = segment.strip_prefix('v') else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let rest = &rest[digits..];
    let tail = rest
        .strip_prefix("alpha")
        .or_else(|| rest.strip_prefix("beta"));
    match tail {
        None => rest.is_empty(),
        Some(tail) => !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()),
    }
}

/// A change to type `id` of `api` (or one of its fields, with `field`).
fn change(
    api: &ApiSet,
    id: TypeId,
    field: Option<&str>,
    effect: Effect,
    kind: &'static str,
) -> Change {
    let mut subject = api.type_path(id);
    if let Some(field) = field {
        subject.push('.');
        subject.push_str(field);
    }
    Change {
        section: section(api.get(id)),
        effect,
        kind,
        subject,
        old: None,
        new: None,
        detail: None,
    }
}

impl Change {
    fn was(mut self, old: impl Into<String>) -> Self {
        self.old = Some(old.into());
        self
    }

    fn now(mut self, new: impl Into<String>) -> Self {
        self.new = Some(new.into());
        self
    }

    fn detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }
}

/// What identifies a type's shape for finding moves: its kind and its JSON names.
fn signature(ty: &TypeDef) -> (u8, Vec<&str>) {
    match &ty.kind {
        TypeKind::Struct(fields) => {
            let mut names: Vec<&str> = fields.iter().map(|f| f.json_name.as_str()).collect();
            names.sort_unstable();
            (0, names)
        }
        TypeKind::Enum(variants) => {
            let mut names: Vec<&str> = variants.iter().map(|v| v.value.as_str()).collect();
            names.sort_unstable();
            (1, names)
        }
        TypeKind::Union(variants) => (2, variants.iter().map(|v| v.json_type).collect()),
        TypeKind::Alias(_) => (3, Vec::new()),
        TypeKind::WatchEvent { .. } => (4, Vec::new()),
        TypeKind::Extern(e) => (5, vec![e.path.as_str()]),
    }
}

/// Added and removed types; a removed type whose name and shape reappear in exactly one
/// added type (and the other way round) moved. An added type whose name and shape exist
/// elsewhere in the old API (a version graduating beside the old one) says so.
fn types_added_removed(
    old: &ApiSet,
    new: &ApiSet,
    removed: &[TypeId],
    added: &[TypeId],
    out: &mut Vec<Change>,
) {
    fn key(api: &ApiSet, id: TypeId) -> (String, (u8, Vec<&str>)) {
        let ty = api.get(id);
        (ty.name.clone(), signature(ty))
    }
    let mut removed_by_key: HashMap<_, Vec<TypeId>> = HashMap::new();
    for &id in removed {
        removed_by_key.entry(key(old, id)).or_default().push(id);
    }
    let mut added_by_key: HashMap<_, Vec<TypeId>> = HashMap::new();
    for &id in added {
        added_by_key.entry(key(new, id)).or_default().push(id);
    }
    let mut moved_from: BTreeSet<TypeId> = BTreeSet::new();
    for &id in added {
        let k = key(new, id);
        match (removed_by_key.get(&k), added_by_key.get(&k)) {
            (Some(from), Some(to)) if from.len() == 1 && to.len() == 1 => {
                moved_from.insert(from[0]);
                out.push(
                    change(new, id, None, Effect::Breaking, "type_moved")
                        .was(old.type_path(from[0]))
                        .now(new.type_path(id)),
                );
            }
            _ => {
                let mut c = change(new, id, None, Effect::Additive, "type_added");
                let mut details = Vec::new();
                if let Some(like) = same_elsewhere(old, new.get(id)) {
                    details.push(format!("same fields as `{like}`"));
                }
                let companion = new.is_companion(id);
                details.extend(companion_detail(companion, companion).map(str::to_owned));
                if !details.is_empty() {
                    c = c.detail(details.join("; "));
                }
                out.push(c);
            }
        }
    }
    for &id in removed {
        if !moved_from.contains(&id) {
            let mut c = change(old, id, None, Effect::Breaking, "type_removed");
            let companion = old.is_companion(id);
            if let Some(detail) = companion_detail(companion, companion) {
                c = c.detail(detail);
            }
            out.push(c);
        }
    }
}

/// A type of `api` with the name and shape of `ty` (another version of it), if any.
fn same_elsewhere(api: &ApiSet, ty: &TypeDef) -> Option<String> {
    let wanted = signature(ty);
    api.types
        .iter()
        .enumerate()
        .filter(|(_, other)| other.name == ty.name && signature(other) == wanted)
        .map(|(i, _)| api.type_path(TypeId(i)))
        .max()
}

/// One type in both APIs.
struct Pair<'a> {
    old: &'a ApiSet,
    new: &'a ApiSet,
    old_id: TypeId,
    new_id: TypeId,
}

impl Pair<'_> {
    fn old_ty(&self) -> &TypeDef {
        self.old.get(self.old_id)
    }

    fn new_ty(&self) -> &TypeDef {
        self.new.get(self.new_id)
    }

    fn change(&self, field: Option<&str>, effect: Effect, kind: &'static str) -> Change {
        change(self.new, self.new_id, field, effect, kind)
    }

    /// [`Pair::compare_kinds`], each change said to concern the companion crate's type
    /// where either crate takes the type from it: the documents' definitions are compared
    /// (`ApiSet::defined_kind`), so what they changed shows though the type is
    /// `kubeforge-meta`'s.
    fn compare(&self, out: &mut Vec<Change>) {
        let start = out.len();
        self.compare_kinds(out);
        let detail = companion_detail(
            self.old.is_companion(self.old_id),
            self.new.is_companion(self.new_id),
        );
        if let Some(detail) = detail {
            for change in &mut out[start..] {
                change.detail = Some(match change.detail.take() {
                    Some(earlier) => format!("{earlier}; {detail}"),
                    None => detail.to_owned(),
                });
            }
        }
    }

    fn compare_kinds(&self, out: &mut Vec<Change>) {
        let old_path = self.old.type_path(self.old_id);
        let new_path = self.new.type_path(self.new_id);
        if old_path != new_path {
            out.push(
                self.change(None, Effect::Breaking, "type_renamed")
                    .was(old_path)
                    .now(new_path.clone()),
            );
        }
        match (deprecated(self.old_ty()), deprecated(self.new_ty())) {
            (false, true) => out.push(self.change(None, Effect::Compatible, "type_deprecated")),
            (true, false) => out.push(self.change(None, Effect::Compatible, "type_undeprecated")),
            _ => {}
        }
        match (
            self.old.defined_kind(self.old_id),
            self.new.defined_kind(self.new_id),
        ) {
            (TypeKind::Struct(old), TypeKind::Struct(new)) => {
                self.fields(old, new, out);
                self.constructor(out);
            }
            (TypeKind::Enum(old), TypeKind::Enum(new)) => {
                let old_values: BTreeSet<&str> = old.iter().map(|v| v.value.as_str()).collect();
                let new_values: BTreeSet<&str> = new.iter().map(|v| v.value.as_str()).collect();
                for value in new_values.difference(&old_values) {
                    out.push(
                        self.change(None, Effect::Additive, "enum_value_added")
                            .now(*value),
                    );
                }
                for value in old_values.difference(&new_values) {
                    out.push(
                        self.change(None, Effect::Breaking, "enum_value_removed")
                            .was(*value),
                    );
                }
            }
            (TypeKind::Union(old), TypeKind::Union(new)) => {
                let text = |api: &ApiSet, v: &crate::model::UnionVariant| {
                    format!("{}({})", v.rust_name, api.shape_text(&v.shape))
                };
                let old_set: BTreeSet<String> = old.iter().map(|v| text(self.old, v)).collect();
                let new_set: BTreeSet<String> = new.iter().map(|v| text(self.new, v)).collect();
                for v in new_set.difference(&old_set) {
                    out.push(
                        self.change(None, Effect::Breaking, "union_variant_added")
                            .now(v.clone()),
                    );
                }
                for v in old_set.difference(&new_set) {
                    out.push(
                        self.change(None, Effect::Breaking, "union_variant_removed")
                            .was(v.clone()),
                    );
                }
            }
            (TypeKind::Alias(old), TypeKind::Alias(new)) => {
                let (old, new) = (self.old.shape_text(old), self.new.shape_text(new));
                if old != new {
                    out.push(
                        self.change(None, Effect::Breaking, "alias_changed")
                            .was(old)
                            .now(new),
                    );
                }
            }
            (TypeKind::Extern(old), TypeKind::Extern(new)) if old != new => out.push(
                self.change(None, Effect::Breaking, "extern_changed")
                    .was(old.path.clone())
                    .now(new.path.clone()),
            ),
            (old, new) if kind_name(old) != kind_name(new) => out.push(
                self.change(None, Effect::Breaking, "type_kind_changed")
                    .was(kind_name(old))
                    .now(kind_name(new)),
            ),
            _ => {}
        }
        self.resource(out);
    }

    /// Fields by JSON name: added, removed, retyped, renamed, required ↔ optional, defaults,
    /// deprecations.
    fn fields(&self, old: &[Field], new: &[Field], out: &mut Vec<Change>) {
        let key = |f: &Field| -> String {
            if f.role == FieldRole::Extra {
                EXTRA.to_owned()
            } else {
                f.json_name.clone()
            }
        };
        let old_fields: BTreeMap<String, &Field> = old.iter().map(|f| (key(f), f)).collect();
        let new_fields: BTreeMap<String, &Field> = new.iter().map(|f| (key(f), f)).collect();
        for (name, field) in &new_fields {
            if !old_fields.contains_key(name) {
                let ty = field_type(self.new, field);
                out.push(if field.required && field.role == FieldRole::Plain {
                    self.change(Some(name), Effect::Breaking, "required_field_added")
                        .now(ty)
                } else {
                    self.change(Some(name), Effect::Additive, "field_added")
                        .now(ty)
                });
            }
        }
        for (name, field) in &old_fields {
            let Some(new_field) = new_fields.get(name) else {
                out.push(
                    self.change(Some(name), Effect::Breaking, "field_removed")
                        .was(field_type(self.old, field)),
                );
                continue;
            };
            let (old_ty, new_ty) = (field_type(self.old, field), field_type(self.new, new_field));
            if old_ty != new_ty {
                let kind = if value_type(self.old, field) == value_type(self.new, new_field) {
                    if new_field.required {
                        "field_now_required"
                    } else {
                        "field_now_optional"
                    }
                } else {
                    "field_type_changed"
                };
                out.push(
                    self.change(Some(name), Effect::Breaking, kind)
                        .was(old_ty)
                        .now(new_ty),
                );
            }
            if field.rust_name != new_field.rust_name {
                out.push(
                    self.change(Some(name), Effect::Breaking, "field_renamed")
                        .was(field.rust_name.clone())
                        .now(new_field.rust_name.clone()),
                );
            }
            if field.default != new_field.default {
                let text = |v: &Option<serde_json::Value>| {
                    v.as_ref()
                        .map_or_else(|| "none".to_owned(), ToString::to_string)
                };
                out.push(
                    self.change(Some(name), Effect::Compatible, "default_changed")
                        .was(text(&field.default))
                        .now(text(&new_field.default)),
                );
            }
            match (
                is_deprecated(field.description.as_deref()),
                is_deprecated(new_field.description.as_deref()),
            ) {
                (false, true) => {
                    out.push(self.change(Some(name), Effect::Compatible, "field_deprecated"));
                }
                (true, false) => {
                    out.push(self.change(Some(name), Effect::Compatible, "field_undeprecated"));
                }
                _ => {}
            }
        }
    }

    /// The builder's constructor arguments (required fields without an applied default, and
    /// a resource's name and namespace), when they changed for a reason no field change
    /// already reported as breaking.
    fn constructor(&self, out: &mut Vec<Change>) {
        let args = |api: &ApiSet, id: TypeId| -> Option<Vec<String>> {
            let builder = api.builders.get(&id)?;
            let TypeKind::Struct(fields) = &api.get(id).kind else {
                return None;
            };
            let mut args = Vec::new();
            if let Some(meta) = &builder.metadata {
                args.push(meta.name.0.clone());
                if let Some((namespace, _)) = &meta.namespace {
                    args.push(namespace.clone());
                }
            }
            args.extend(builder.params.iter().map(|p| {
                fields
                    .get(p.field)
                    .map_or_else(|| p.name.clone(), |f| f.json_name.clone())
            }));
            Some(args)
        };
        let (Some(old), Some(new)) = (args(self.old, self.old_id), args(self.new, self.new_id))
        else {
            return;
        };
        if old == new {
            return;
        }
        let subject = self.new.type_path(self.new_id);
        let explained = out.iter().any(|c| {
            c.effect == Effect::Breaking
                && c.subject.strip_prefix(&subject).is_some_and(|rest| {
                    rest.strip_prefix('.')
                        .is_some_and(|f| old.iter().chain(&new).any(|a| a == f))
                })
        });
        if !explained {
            out.push(
                self.change(None, Effect::Breaking, "constructor_changed")
                    .was(format!("builder({})", old.join(", ")))
                    .now(format!("builder({})", new.join(", "))),
            );
        }
    }

    /// The resource a type is served as: added, removed, scope, plural, subresources.
    fn resource(&self, out: &mut Vec<Change>) {
        let old = self.old.resources.get(&self.old_id);
        let new = self.new.resources.get(&self.new_id);
        match (old, new) {
            (None, Some(r)) => out.push(
                self.change(None, Effect::Additive, "resource_added")
                    .now(format!("{} ({})", r.gvk.api_version(), r.plural)),
            ),
            (Some(r), None) => out.push(
                self.change(None, Effect::Breaking, "resource_removed")
                    .was(format!("{} ({})", r.gvk.api_version(), r.plural)),
            ),
            (Some(old), Some(new)) => {
                if old.scope != new.scope {
                    out.push(
                        self.change(None, Effect::Breaking, "scope_changed")
                            .was(format!("{:?}", old.scope))
                            .now(format!("{:?}", new.scope)),
                    );
                }
                if old.plural != new.plural {
                    out.push(
                        self.change(None, Effect::Breaking, "plural_changed")
                            .was(old.plural.clone())
                            .now(new.plural.clone()),
                    );
                }
                for s in new
                    .subresources
                    .iter()
                    .filter(|s| !old.subresources.contains(s))
                {
                    out.push(
                        self.change(None, Effect::Additive, "subresource_added")
                            .now(s.clone()),
                    );
                }
                for s in old
                    .subresources
                    .iter()
                    .filter(|s| !new.subresources.contains(s))
                {
                    out.push(
                        self.change(None, Effect::Breaking, "subresource_removed")
                            .was(s.clone()),
                    );
                }
            }
            (None, None) => {}
        }
    }
}

/// What to say beside a change to a type that the old crate, the new one or both take from
/// the companion crate `kubeforge-meta`: the change is the documents', while the crate's type
/// is the companion's.
fn companion_detail(old: bool, new: bool) -> Option<&'static str> {
    match (old, new) {
        (true, true) => Some("the type comes from the companion crate `kubeforge-meta`"),
        (false, true) => {
            Some("the new crate takes the type from the companion crate `kubeforge-meta`")
        }
        (true, false) => {
            Some("the old crate took the type from the companion crate `kubeforge-meta`")
        }
        (false, false) => None,
    }
}

fn kind_name(kind: &TypeKind) -> &'static str {
    match kind {
        TypeKind::Struct(_) => "struct",
        TypeKind::Enum(_) => "enum",
        TypeKind::Union(_) => "one-of enum",
        TypeKind::Alias(_) => "alias",
        TypeKind::WatchEvent { .. } => "watch event",
        TypeKind::Extern(_) => "extern type",
    }
}

/// A field's value type, boxed where it is: the Rust type without the `Option` of an
/// optional field.
fn value_type(api: &ApiSet, field: &Field) -> String {
    let text = api.shape_text(&field.shape);
    match field.role {
        FieldRole::Extra => format!("ExtraFields<{text}>"),
        FieldRole::ApiVersion => "apiVersion marker".to_owned(),
        FieldRole::Kind => "kind marker".to_owned(),
        FieldRole::Plain if field.boxed => format!("Box<{text}>"),
        FieldRole::Plain => text,
    }
}

/// A field's Rust type as the struct declares it.
fn field_type(api: &ApiSet, field: &Field) -> String {
    let value = value_type(api, field);
    if field.required || field.role != FieldRole::Plain {
        value
    } else {
        format!("Option<{value}>")
    }
}

/// Whether a type's description deprecates it.
fn deprecated(ty: &TypeDef) -> bool {
    is_deprecated(ty.description.as_deref())
}

/// Whether a description deprecates what it describes. Kubernetes has no `deprecated`
/// keyword on schemas; its descriptions say it in words: a first word `Deprecated`
/// (`Deprecated: use …`, `DEPRECATED - This group version …`), or a sentence starting
/// `Deprecated:`.
pub(crate) fn is_deprecated(description: Option<&str>) -> bool {
    let Some(text) = description else {
        return false;
    };
    let trimmed = text.trim_start();
    trimmed
        .get(..10)
        .is_some_and(|start| start.eq_ignore_ascii_case("deprecated"))
        || text.contains(". Deprecated:")
        || text.contains("\nDeprecated:")
        || text.contains(". DEPRECATED")
}

/// Operations by method and path template.
fn operations(old: &ApiSet, new: &ApiSet, out: &mut Vec<Change>) {
    let index = |api: &ApiSet| -> BTreeMap<(Method, String), usize> {
        api.operations
            .iter()
            .enumerate()
            .map(|(i, op)| ((op.method, op.path.text.clone()), i))
            .collect()
    };
    let (old_ops, new_ops) = (index(old), index(new));
    for (key, &i) in &new_ops {
        if !old_ops.contains_key(key) {
            let op = &new.operations[i];
            out.push(op_change(new, op, Effect::Additive, "operation_added").now(function(op)));
        }
    }
    for (key, &i) in &old_ops {
        let op = &old.operations[i];
        let Some(&j) = new_ops.get(key) else {
            out.push(op_change(old, op, Effect::Breaking, "operation_removed").was(function(op)));
            continue;
        };
        compare_operation(old, op, new, &new.operations[j], out);
    }
}

/// The query structs operations share (`routes::ListOrWatchQuery`, …), by name: new and
/// removed structs, and their fields by wire name. Which operations take which struct is
/// compared with the operations.
fn query_structs(old: &ApiSet, new: &ApiSet, out: &mut Vec<Change>) {
    let index = |api: &ApiSet| -> BTreeMap<String, BTreeMap<String, String>> {
        api.query_structs
            .iter()
            .map(|q| {
                let fields = q
                    .params
                    .iter()
                    .map(|p| (p.name.clone(), api.shape_text(&p.shape)))
                    .collect();
                (q.name.clone(), fields)
            })
            .collect()
    };
    let (old_structs, new_structs) = (index(old), index(new));
    let change = |name: &str, field: Option<&str>, effect, kind| Change {
        section: "routes".to_owned(),
        effect,
        kind,
        subject: match field {
            Some(field) => format!("routes::{name}.{field}"),
            None => format!("routes::{name}"),
        },
        old: None,
        new: None,
        detail: None,
    };
    for (name, fields) in &new_structs {
        let Some(old_fields) = old_structs.get(name) else {
            out.push(change(name, None, Effect::Additive, "query_type_added"));
            continue;
        };
        for (field, ty) in fields {
            match old_fields.get(field) {
                None => out.push(
                    change(name, Some(field), Effect::Additive, "query_field_added")
                        .now(format!("Option<{ty}>")),
                ),
                Some(old_ty) if old_ty != ty => out.push(
                    change(name, Some(field), Effect::Breaking, "query_field_changed")
                        .was(format!("Option<{old_ty}>"))
                        .now(format!("Option<{ty}>")),
                ),
                Some(_) => {}
            }
        }
        for (field, ty) in old_fields {
            if !fields.contains_key(field) {
                out.push(
                    change(name, Some(field), Effect::Breaking, "query_field_removed")
                        .was(format!("Option<{ty}>")),
                );
            }
        }
    }
    for name in old_structs.keys() {
        if !new_structs.contains_key(name) {
            out.push(change(name, None, Effect::Breaking, "query_type_removed"));
        }
    }
}

/// The query struct an operation's function takes (or its watch function's, with `watch`),
/// by its path below the crate root: `routes::ListOrWatchQuery` for a shared one, the
/// resource's module for an operation's own.
fn query_struct(api: &ApiSet, op: &Operation, watch: bool) -> Option<String> {
    let (name, shared) = if watch {
        let watch = op.watch.as_ref()?;
        (watch.query.as_ref()?, watch.query_shared)
    } else {
        (op.names.query.as_ref()?, op.names.query_shared)
    };
    let module = match op.resource.as_ref().and_then(|r| r.id) {
        Some(id) if !shared => api.get(id).module.join("::"),
        _ => "routes".to_owned(),
    };
    Some(if module.is_empty() {
        name.clone()
    } else {
        format!("{module}::{name}")
    })
}

/// The function a user calls for an operation: `Pod::read_namespaced_pod` or, for one on no
/// resource, `routes::get_api_versions`.
fn function(op: &Operation) -> String {
    function_named(op, &op.names.function)
}

/// The path a user calls the function `name` of `op`'s owner by.
fn function_named(op: &Operation, name: &str) -> String {
    match &op.resource {
        Some(r) => format!("{}::{name}", r.gvk.kind),
        None => format!("routes::{name}"),
    }
}

fn op_change(api: &ApiSet, op: &Operation, effect: Effect, kind: &'static str) -> Change {
    let section = op
        .resource
        .as_ref()
        .and_then(|r| r.id)
        .map_or_else(|| "operations".to_owned(), |id| section(api.get(id)));
    Change {
        section,
        effect,
        kind,
        subject: format!("{} {}", op.method.as_str(), op.path.text),
        old: None,
        new: None,
        detail: None,
    }
}

fn compare_operation(
    old_api: &ApiSet,
    old: &Operation,
    new_api: &ApiSet,
    new: &Operation,
    out: &mut Vec<Change>,
) {
    let change = |effect, kind| op_change(new_api, new, effect, kind);
    if function(old) != function(new) {
        out.push(
            change(Effect::Breaking, "operation_renamed")
                .was(function(old))
                .now(function(new)),
        );
    }
    if old.action != new.action {
        out.push(
            change(Effect::Breaking, "action_changed")
                .was(old.action.as_str())
                .now(new.action.as_str()),
        );
    }
    // The query struct the function takes, and the watch function's: another struct, or
    // one where there was none (a new argument), breaks every call.
    for watch in [false, true] {
        let kinds = if watch {
            [
                "watch_query_changed",
                "watch_query_added",
                "watch_query_removed",
            ]
        } else {
            [
                "query_struct_changed",
                "query_struct_added",
                "query_struct_removed",
            ]
        };
        match (
            query_struct(old_api, old, watch),
            query_struct(new_api, new, watch),
        ) {
            (Some(before), Some(after)) if before != after => {
                out.push(change(Effect::Breaking, kinds[0]).was(before).now(after));
            }
            (None, Some(after)) if !watch || old.watch.is_some() => {
                out.push(change(Effect::Breaking, kinds[1]).now(after));
            }
            (Some(before), None) if !watch || new.watch.is_some() => {
                out.push(change(Effect::Breaking, kinds[2]).was(before));
            }
            _ => {}
        }
    }
    match (&old.watch, &new.watch) {
        (None, Some(watch)) => out.push(
            change(Effect::Additive, "watch_added").now(function_named(new, &watch.function)),
        ),
        (Some(watch), None) => out.push(
            change(Effect::Breaking, "watch_removed").was(function_named(old, &watch.function)),
        ),
        _ => {}
    }
    let old_scope = old.resource.as_ref().map(|r| r.scope);
    let new_scope = new.resource.as_ref().map(|r| r.scope);
    if old_scope != new_scope {
        out.push(
            change(Effect::Breaking, "scope_changed")
                .was(format!("{old_scope:?}"))
                .now(format!("{new_scope:?}")),
        );
    }
    let param = |api: &ApiSet, q: &crate::model::operations::QueryParam| {
        (
            api.shape_text(&q.shape),
            q.required,
            q.rust_name.clone(),
            q.setter.clone(),
        )
    };
    let old_params: BTreeMap<&str, _> = old
        .query_params
        .iter()
        .map(|q| (q.name.as_str(), param(old_api, q)))
        .collect();
    let new_params: BTreeMap<&str, _> = new
        .query_params
        .iter()
        .map(|q| (q.name.as_str(), param(new_api, q)))
        .collect();
    for (name, (ty, required, ..)) in &new_params {
        if !old_params.contains_key(name) {
            let (effect, kind) = if *required {
                (Effect::Breaking, "required_parameter_added")
            } else {
                (Effect::Additive, "parameter_added")
            };
            out.push(change(effect, kind).now(format!("{name}: {ty}")));
        }
    }
    for (name, old_param) in &old_params {
        match new_params.get(name) {
            None => out.push(
                change(Effect::Breaking, "parameter_removed")
                    .was(format!("{name}: {}", old_param.0)),
            ),
            Some(new_param) if new_param != old_param => {
                let text = |p: &(String, bool, String, String)| {
                    format!("{name}: {}{}", p.0, if p.1 { " (required)" } else { "" })
                };
                out.push(
                    change(Effect::Breaking, "parameter_changed")
                        .was(text(old_param))
                        .now(text(new_param)),
                );
            }
            Some(_) => {}
        }
    }
    let body = |api: &ApiSet, op: &Operation| op.body.as_ref().map(|b| api.shape_text(&b.shape));
    let (old_body, new_body) = (body(old_api, old), body(new_api, new));
    if old_body != new_body {
        out.push(
            change(Effect::Breaking, "body_changed")
                .was(old_body.unwrap_or_else(|| "none".to_owned()))
                .now(new_body.unwrap_or_else(|| "none".to_owned())),
        );
    }
    let responses = |api: &ApiSet, op: &Operation| -> Vec<String> {
        op.responses
            .iter()
            .filter(|r| r.is_success())
            .map(|r| {
                format!(
                    "{} {}",
                    r.status,
                    r.body.type_text(api).unwrap_or_else(|| "empty".to_owned())
                )
            })
            .collect()
    };
    let (old_responses, new_responses) = (responses(old_api, old), responses(new_api, new));
    if old_responses != new_responses {
        out.push(
            change(Effect::Breaking, "response_changed")
                .was(old_responses.join(", "))
                .now(new_responses.join(", ")),
        );
    }
    if old.deprecated != new.deprecated {
        let kind = if new.deprecated {
            "operation_deprecated"
        } else {
            "operation_undeprecated"
        };
        out.push(change(Effect::Compatible, kind));
    }
}

#[cfg(test)]
mod tests {
    use super::{is_deprecated, is_version};

    #[test]
    fn versions() {
        for yes in ["v1", "v2", "v1beta1", "v1alpha3", "v10"] {
            assert!(is_version(yes), "{yes}");
        }
        for no in ["v", "version", "vbeta1", "v1beta", "core", "v1x"] {
            assert!(!is_version(no), "{no}");
        }
    }

    #[test]
    fn deprecations_in_words() {
        assert!(is_deprecated(Some("Deprecated: use spec.foo instead.")));
        assert!(is_deprecated(Some(
            "DEPRECATED - This group version of Deployment is deprecated."
        )));
        assert!(is_deprecated(Some("The old name. Deprecated: use bar.")));
        assert!(!is_deprecated(Some("Lists deprecated APIs served.")));
        assert!(!is_deprecated(None));
    }
}
