//! Walks over a value and its type, as structured-merge-diff's `typed` package does them:
//! validating an applied configuration, the set of fields a value sets, comparing two values
//! (added, modified and removed fields), merging a configuration into a live object, and
//! removing a set of fields. Atomic lists and maps, and scalars, are leaves; the items of set
//! and map lists are addressed by value and by key fields, the fields of maps by name.

use std::collections::BTreeMap;

use kubeforge_runtime::schema::gofmt::quote;
use serde_json::{Map, Value};

use super::path::{Element, Path};
use super::set::Set;
use super::value;
use crate::objects::schema::{Atom, ListTy, MapTy, Scalar, Schemas, Ty, deduce};
use crate::semantics::builtin_defaults;

/// One problem with a value, at a path (SMD's `ValidationError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    pub(crate) path: String,
    pub(crate) message: String,
}

/// Problems, printed as SMD prints `ValidationErrors`.
pub(crate) fn describe(problems: &[Problem]) -> String {
    let one = |p: &Problem| {
        if p.path.is_empty() {
            p.message.clone()
        } else {
            format!("{}: {}", p.path, p.message)
        }
    };
    match problems {
        [only] => one(only),
        _ => {
            let mut lines = vec!["errors:".to_owned()];
            lines.extend(problems.iter().map(|p| format!("  {}", one(p))));
            lines.join("\n")
        }
    }
}

fn problem(message: impl Into<String>) -> Vec<Problem> {
    vec![Problem {
        path: String::new(),
        message: message.into(),
    }]
}

fn prefixed(mut problems: Vec<Problem>, prefix: &str) -> Vec<Problem> {
    for p in &mut problems {
        p.path = format!("{prefix}{}", p.path);
    }
    problems
}

/// The type of a map's key `name`; keys the schema does not declare are deduced, so that a
/// stored object with fields the schema lacks still merges.
fn field_ty<'s>(schemas: &'s Schemas, map: &MapTy<'s>, name: &str) -> Ty<'s> {
    map.field(schemas, name).unwrap_or(Ty::Deduced)
}

/// The default of a map list's key field `key`: the schema's `default`, or where the
/// document carries none (Kubernetes' `swagger.json`), the Go defaulters' for a built-in
/// type (`ContainerPort.protocol` is `TCP`), as kube-apiserver's own schemas carry them.
fn key_default<'s>(schemas: &'s Schemas, map: &MapTy<'s>, key: &str) -> Option<&'s Value> {
    map.field_default(key).or_else(|| {
        map.type_name(schemas)
            .and_then(|name| builtin_defaults::field_default(name, key))
    })
}

/// The path element of a list item: its key fields (with their defaults) in a map list, its
/// value in a set (SMD's `listItemToPathElement`).
pub(crate) fn item_element(
    schemas: &Schemas,
    list: &ListTy<'_>,
    item: &Value,
) -> Result<Element, String> {
    if list.atomic {
        return Err("invalid indexing of non-associative list".to_owned());
    }
    if list.keys.is_empty() {
        return match item {
            Value::Object(_) => {
                Err("associative list without keys has an element that's a map type".to_owned())
            }
            Value::Array(_) => {
                Err("not supported: associative list with lists as elements".to_owned())
            }
            Value::Null => Err(
                "associative list without keys has an element that's an explicit null".to_owned(),
            ),
            scalar => Ok(Element::Value(scalar.clone())),
        };
    }
    let map = match item {
        Value::Null => {
            return Err("associative list with keys may not have a null element".to_owned());
        }
        Value::Object(map) => map,
        _ => return Err("associative list with keys may not have non-map elements".to_owned()),
    };
    let element_map = schemas.atom(list.element).map;
    let mut fields: Vec<(String, Value)> = Vec::new();
    for key in &list.keys {
        if let Some(value) = map.get(key) {
            fields.push((key.clone(), value.clone()));
        } else if let Some(default) = element_map
            .as_ref()
            .and_then(|m| key_default(schemas, m, key))
        {
            fields.push((key.clone(), default.clone()));
        }
    }
    if fields.is_empty() {
        let quoted: Vec<String> = list.keys.iter().map(|k| quote(k)).collect();
        return Err(format!(
            "associative list with keys has an element that omits all key fields [{}] (and doesn't have default values for any key fields)",
            quoted.join(" ")
        ));
    }
    fields.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Element::Key(fields))
}

/// Go's `%T` of a JSON value decoded into `interface{}`.
fn go_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

fn check_scalar(kind: Scalar, value: Option<&Value>, prefix: &str) -> Vec<Problem> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Vec::new();
    };
    let ok = match kind {
        Scalar::Numeric => value.is_number(),
        Scalar::String => value.is_string(),
        Scalar::Boolean => value.is_boolean(),
        Scalar::Untyped => value.is_number() || value.is_string() || value.is_boolean(),
    };
    if ok {
        return Vec::new();
    }
    problem(match kind {
        Scalar::Numeric => format!(
            "{prefix}expected numeric (int or float), got {}",
            go_type(value)
        ),
        Scalar::String => {
            format!("{prefix}expected string, got &value.valueUnstructured{{Value:{value}}}")
        }
        Scalar::Boolean => format!("{prefix}expected boolean, got &{{{value}}}"),
        Scalar::Untyped => format!("{prefix}expected any scalar, got &{{{value}}}"),
    })
}

/// Checks an applied configuration against its type: every key declared, scalars of their
/// kind, list items identifiable and (unless `allow_duplicates`) unique.
pub(crate) fn validate(
    schemas: &Schemas,
    value: &Value,
    ty: Ty<'_>,
    allow_duplicates: bool,
) -> Vec<Problem> {
    let atom = deduce(&schemas.atom(ty), Some(value));
    if let Some(map) = &atom.map {
        return match value {
            Value::Null => Vec::new(),
            Value::Object(fields) => {
                let mut problems = Vec::new();
                for (key, child) in fields {
                    let prefix = Element::Field(key.clone()).to_string();
                    let Some(child_ty) = map.field(schemas, key) else {
                        problems.extend(prefixed(problem("field not declared in schema"), &prefix));
                        break;
                    };
                    problems.extend(prefixed(
                        validate(schemas, child, child_ty, allow_duplicates),
                        &prefix,
                    ));
                }
                problems
            }
            other => problem(format!("expected map, got {other}")),
        };
    }
    if let Some(kind) = atom.scalar {
        return check_scalar(kind, Some(value), "");
    }
    if let Some(list) = &atom.list {
        let items = match value {
            Value::Null => return Vec::new(),
            Value::Array(items) => items,
            other => return problem(format!("expected list, got {other}")),
        };
        let mut problems = Vec::new();
        let mut seen: Vec<Element> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let element = if list.atomic {
                Element::Index(i)
            } else {
                match item_element(schemas, list, item) {
                    Ok(element) => element,
                    Err(message) => {
                        problems.extend(problem(format!("element {i}: {message}")));
                        return problems;
                    }
                }
            };
            if !list.atomic {
                if seen.contains(&element) && !allow_duplicates {
                    problems.extend(problem(format!("duplicate entries for key {element}")));
                }
                seen.push(element.clone());
            }
            problems.extend(prefixed(
                validate(schemas, item, list.element, allow_duplicates),
                &element.to_string(),
            ));
        }
        return problems;
    }
    problem("schema error: invalid atom")
}

/// How deep [`drop_unknown`] goes (a value nested deeper is left as it is).
const MAX_DEPTH: usize = 128;

/// Removes the keys of `value` its type does not declare, as decoding into a Go type drops
/// them (and, with `nulls`, the `null`s of declared fields, as a type whose every field is
/// omitted when empty writes them back), and records the path of each unknown key as the
/// API server's strict decoding names it (`spec.foo`, `spec.containers[0].bar`, a map
/// value's key after a dot), in the order met. `path` is where `value` is.
pub(crate) fn drop_unknown(
    schemas: &Schemas,
    value: &mut Value,
    ty: Ty<'_>,
    path: &str,
    nulls: bool,
    unknown: &mut Vec<String>,
) {
    drop_unknown_at(schemas, value, ty, path, nulls, unknown, 0);
}

fn drop_unknown_at(
    schemas: &Schemas,
    value: &mut Value,
    ty: Ty<'_>,
    path: &str,
    nulls: bool,
    unknown: &mut Vec<String>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let atom = deduce(&schemas.atom(ty), Some(value));
    match value {
        Value::Object(fields) => {
            let Some(map) = &atom.map else { return };
            let mut dropped = Vec::new();
            for (key, child) in fields.iter_mut() {
                let child_path = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match map.field(schemas, key) {
                    None => {
                        unknown.push(child_path);
                        dropped.push(key.clone());
                    }
                    Some(_) if nulls && child.is_null() && map.has_field(key) => {
                        dropped.push(key.clone());
                    }
                    Some(child_ty) => {
                        let at = &child_path;
                        drop_unknown_at(schemas, child, child_ty, at, nulls, unknown, depth + 1);
                    }
                }
            }
            fields.retain(|key, _| !dropped.contains(key));
        }
        Value::Array(items) => {
            let Some(list) = &atom.list else { return };
            for (i, item) in items.iter_mut().enumerate() {
                let item_path = format!("{path}[{i}]");
                let element = list.element;
                drop_unknown_at(
                    schemas,
                    item,
                    element,
                    &item_path,
                    nulls,
                    unknown,
                    depth + 1,
                );
            }
        }
        _ => {}
    }
}

/// The fields `value` sets (SMD's `ToFieldSet`): scalars and atomic values as leaves, list
/// items and undeclared map keys as members too, empty maps and nulls as leaves.
pub(crate) fn field_set(schemas: &Schemas, value: &Value, ty: Ty<'_>) -> Set {
    let mut set = Set::new();
    let mut path = Vec::new();
    collect_fields(schemas, value, ty, &mut path, &mut set);
    set
}

fn collect_fields(schemas: &Schemas, value: &Value, ty: Ty<'_>, path: &mut Path, set: &mut Set) {
    let atom = deduce(&schemas.atom(ty), Some(value));
    if let Some(map) = &atom.map {
        if map.atomic {
            set.insert(path);
            return;
        }
        let Value::Object(fields) = value else {
            return;
        };
        for (key, child) in fields {
            path.push(Element::Field(key.clone()));
            collect_fields(schemas, child, field_ty(schemas, map, key), path, set);
            let empty_map = child.as_object().is_some_and(Map::is_empty);
            if child.is_null() || empty_map || !map.has_field(key) {
                set.insert(path);
            }
            path.pop();
        }
    } else if atom.scalar.is_some() {
        set.insert(path);
    } else if let Some(list) = &atom.list {
        if list.atomic {
            set.insert(path);
            return;
        }
        let Value::Array(items) = value else {
            return;
        };
        let elements: Vec<Option<Element>> = items
            .iter()
            .map(|item| item_element(schemas, list, item).ok())
            .collect();
        let mut seen: Vec<&Element> = Vec::new();
        let mut duplicates: Vec<&Element> = Vec::new();
        for element in elements.iter().flatten() {
            if seen.contains(&element) {
                if !duplicates.contains(&element) {
                    path.push(element.clone());
                    set.insert(path);
                    path.pop();
                    duplicates.push(element);
                }
            } else {
                seen.push(element);
            }
        }
        for (item, element) in items.iter().zip(&elements) {
            let Some(element) = element else { continue };
            if duplicates.contains(&element) {
                continue;
            }
            path.push(element.clone());
            collect_fields(schemas, item, list.element, path, set);
            set.insert(path);
            path.pop();
        }
    }
}

/// What changed from one value to another (SMD's `Comparison`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Comparison {
    pub(crate) removed: Set,
    pub(crate) modified: Set,
    pub(crate) added: Set,
}

impl Comparison {
    /// Each set filtered.
    pub(crate) fn filtered(self, filter: &dyn Fn(&Set) -> Set) -> Comparison {
        Comparison {
            removed: filter(&self.removed),
            modified: filter(&self.modified),
            added: filter(&self.added),
        }
    }
}

/// Compares `lhs` (before) with `rhs` (after).
pub(crate) fn compare(schemas: &Schemas, lhs: &Value, rhs: &Value, ty: Ty<'_>) -> Comparison {
    let mut out = Comparison::default();
    let mut path = Vec::new();
    compare_at(schemas, Some(lhs), Some(rhs), ty, &mut path, &mut out);
    out
}

fn compare_at(
    schemas: &Schemas,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    ty: Ty<'_>,
    path: &mut Path,
    out: &mut Comparison,
) {
    let atom = schemas.atom(ty);
    let al = deduce(&atom, lhs);
    let ar = deduce(&atom, rhs);
    let leaf = if rhs.is_none() {
        compare_atom(schemas, &al, lhs, rhs, path, out)
    } else if lhs.is_none() || al.equals(&ar) {
        compare_atom(schemas, &ar, lhs, rhs, path, out)
    } else {
        // The two sides took different alternatives (an untyped field changed kind): SMD
        // walks both, recording what each finds.
        compare_atom(schemas, &al, lhs, rhs, path, out);
        compare_atom(schemas, &ar, lhs, rhs, path, out)
    };
    if !leaf {
        if lhs.is_none() {
            out.added.insert(path);
        } else if rhs.is_none() {
            out.removed.insert(path);
        }
    }
}

/// One alternative of a comparison; whether it was a leaf.
fn compare_atom(
    schemas: &Schemas,
    atom: &Atom<'_>,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    path: &mut Path,
    out: &mut Comparison,
) -> bool {
    let leaf = |out: &mut Comparison, path: &Path| {
        match (lhs, rhs) {
            (None, _) => out.added.insert(path),
            (_, None) => out.removed.insert(path),
            (Some(l), Some(r)) if !value::equals(l, r) => out.modified.insert(path),
            _ => {}
        }
        true
    };
    if let Some(map) = &atom.map {
        let lm = lhs.and_then(Value::as_object);
        let rm = rhs.and_then(Value::as_object);
        let empty = lm.is_none_or(Map::is_empty) && rm.is_none_or(Map::is_empty);
        if map.atomic || empty {
            return leaf(out, path);
        }
        let mut keys: Vec<&String> = lm.into_iter().flat_map(Map::keys).collect();
        keys.extend(
            rm.into_iter()
                .flat_map(Map::keys)
                .filter(|k| lm.is_none_or(|l| !l.contains_key(*k))),
        );
        for key in keys {
            path.push(Element::Field(key.clone()));
            compare_at(
                schemas,
                lm.and_then(|m| m.get(key)),
                rm.and_then(|m| m.get(key)),
                field_ty(schemas, map, key),
                path,
                out,
            );
            path.pop();
        }
        return false;
    }
    if atom.scalar.is_some() {
        return leaf(out, path);
    }
    if let Some(list) = &atom.list {
        let ll = lhs.and_then(Value::as_array);
        let rl = rhs.and_then(Value::as_array);
        let empty = ll.is_none_or(Vec::is_empty) && rl.is_none_or(Vec::is_empty);
        if list.atomic || empty {
            return leaf(out, path);
        }
        compare_items(schemas, list, ll, rl, path, out);
        return false;
    }
    false
}

fn compare_items(
    schemas: &Schemas,
    list: &ListTy<'_>,
    lhs: Option<&Vec<Value>>,
    rhs: Option<&Vec<Value>>,
    path: &mut Path,
    out: &mut Comparison,
) {
    let mut order: Vec<Element> = Vec::new();
    let mut lvalues: BTreeMap<Element, Vec<&Value>> = BTreeMap::new();
    let mut rvalues: BTreeMap<Element, Vec<&Value>> = BTreeMap::new();
    for item in lhs.into_iter().flatten() {
        let Ok(element) = item_element(schemas, list, item) else {
            continue;
        };
        let entry = lvalues.entry(element.clone()).or_default();
        if entry.is_empty() {
            order.push(element);
        }
        entry.push(item);
    }
    for item in rhs.into_iter().flatten() {
        let Ok(element) = item_element(schemas, list, item) else {
            continue;
        };
        let entry = rvalues.entry(element.clone()).or_default();
        if entry.is_empty() && !lvalues.contains_key(&element) {
            order.push(element.clone());
        }
        entry.push(item);
    }
    for element in order {
        let l = lvalues.get(&element).map(Vec::as_slice).unwrap_or_default();
        let r = rvalues.get(&element).map(Vec::as_slice).unwrap_or_default();
        path.push(element);
        match (l.len(), r.len()) {
            (0, 0) => {}
            (0 | 1, 0 | 1) => compare_at(
                schemas,
                l.first().copied(),
                r.first().copied(),
                list.element,
                path,
                out,
            ),
            (ln, rn) if ln >= 2 && rn >= 2 => {
                let same = ln == rn && l.iter().zip(r).all(|(a, b)| value::equals(a, b));
                if !same {
                    out.modified.insert(path);
                }
            }
            (ln, _) if ln >= 2 => {
                if let Some(first) = r.first() {
                    compare_at(schemas, None, Some(first), list.element, path, out);
                }
                out.removed.insert(path);
            }
            _ => {
                if let Some(first) = l.first() {
                    compare_at(schemas, Some(first), None, list.element, path, out);
                }
                out.added.insert(path);
            }
        }
        path.pop();
    }
}

/// Merges `rhs` (an applied configuration) into `lhs` (the live object), the configuration
/// winning every leaf it sets (SMD's `Merge` with `ruleKeepRHS`).
pub(crate) fn merge(
    schemas: &Schemas,
    lhs: &Value,
    rhs: &Value,
    ty: Ty<'_>,
) -> Result<Value, Vec<Problem>> {
    merge_at(schemas, Some(lhs), Some(rhs), ty).map(|out| out.unwrap_or(Value::Null))
}

fn merge_at(
    schemas: &Schemas,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    ty: Ty<'_>,
) -> Result<Option<Value>, Vec<Problem>> {
    let atom = schemas.atom(ty);
    let chosen = if rhs.is_none() {
        deduce(&atom, lhs)
    } else {
        deduce(&atom, rhs)
    };
    let leaf = || Ok(rhs.or(lhs).cloned());
    if let Some(map) = &chosen.map {
        let lm = lhs.and_then(Value::as_object);
        let rm = rhs.and_then(Value::as_object);
        let empty = lm.is_none_or(Map::is_empty) && rm.is_none_or(Map::is_empty);
        if map.atomic || empty {
            return leaf();
        }
        let mut out = Map::new();
        let mut problems = Vec::new();
        let keys = lm.into_iter().flat_map(Map::keys).chain(
            rm.into_iter()
                .flat_map(Map::keys)
                .filter(|k| lm.is_none_or(|l| !l.contains_key(*k))),
        );
        for key in keys {
            let prefix = Element::Field(key.clone()).to_string();
            match merge_at(
                schemas,
                lm.and_then(|m| m.get(key)),
                rm.and_then(|m| m.get(key)),
                field_ty(schemas, map, key),
            ) {
                Ok(Some(value)) => {
                    out.insert(key.clone(), value);
                }
                Ok(None) => {}
                Err(found) => problems.extend(prefixed(found, &prefix)),
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        return Ok((!out.is_empty()).then_some(Value::Object(out)));
    }
    if let Some(kind) = chosen.scalar {
        let l = check_scalar(kind, lhs, "lhs: ");
        let r = check_scalar(kind, rhs, "rhs: ");
        if !l.is_empty() && !r.is_empty() {
            return Err([l, r].concat());
        }
        return leaf();
    }
    if let Some(list) = &chosen.list {
        let ll = lhs.and_then(Value::as_array);
        let rl = rhs.and_then(Value::as_array);
        let empty = ll.is_none_or(Vec::is_empty) && rl.is_none_or(Vec::is_empty);
        if list.atomic || empty {
            return leaf();
        }
        return merge_items(schemas, list, ll, rl);
    }
    Err(problem("schema error: invalid atom"))
}

/// The items of a map or set list merged (SMD's `visitListItems`): live items keep their
/// places, applied items follow the applied order, and items only in the live list stay
/// where they were relative to the shared ones.
fn merge_items(
    schemas: &Schemas,
    list: &ListTy<'_>,
    lhs: Option<&Vec<Value>>,
    rhs: Option<&Vec<Value>>,
) -> Result<Option<Value>, Vec<Problem>> {
    let null = Value::Null;
    let index = |items: Option<&Vec<Value>>, allow_duplicates: bool| {
        let mut elements = Vec::new();
        let mut observed: BTreeMap<Element, usize> = BTreeMap::new();
        let mut duplicated: Vec<Element> = Vec::new();
        let mut problems = Vec::new();
        for (i, item) in items.into_iter().flatten().enumerate() {
            let element = match item_element(schemas, list, item) {
                Ok(element) => element,
                Err(message) => {
                    problems.extend(problem(format!("element {i}: {message}")));
                    continue;
                }
            };
            if observed.contains_key(&element) {
                if !allow_duplicates {
                    problems.extend(problem(format!("duplicate entries for key {element}")));
                    continue;
                }
                duplicated.push(element.clone());
            } else {
                observed.insert(element.clone(), i);
            }
            elements.push(element);
        }
        (elements, observed, duplicated, problems)
    };
    let (rhs_pes, rhs_observed, _, mut problems) = index(rhs, false);
    let (lhs_pes, lhs_observed, lhs_duplicated, lhs_problems) = index(lhs, true);
    problems.extend(lhs_problems);
    if !problems.is_empty() {
        return Err(problems);
    }
    // A duplicated live item merges as null, as SMD's observed map holds it.
    let lhs_child = |element: &Element| -> Option<&Value> {
        if lhs_duplicated.contains(element) {
            return Some(&null);
        }
        lhs_observed
            .get(element)
            .and_then(|&i| lhs.and_then(|l| l.get(i)))
    };
    let rhs_child = |element: &Element| -> Option<&Value> {
        rhs_observed
            .get(element)
            .and_then(|&i| rhs.and_then(|r| r.get(i)))
    };
    let mut shared = rhs_pes
        .iter()
        .filter(|e| lhs_observed.contains_key(*e))
        .collect::<Vec<_>>()
        .into_iter();
    let mut next_shared = shared.next();
    let mut merged_rhs: Vec<&Element> = Vec::new();
    let mut out = Vec::new();
    // Errors inside items are dropped, as SMD drops them here.
    let mut push = |l: Option<&Value>, r: Option<&Value>| {
        if let Ok(Some(value)) = merge_at(schemas, l, r, list.element) {
            out.push(value);
        }
    };
    let (l_len, r_len) = (lhs_pes.len(), rhs_pes.len());
    let (mut li, mut ri) = (0, 0);
    while li < l_len || ri < r_len {
        if li < l_len && ri < r_len {
            let pe = &lhs_pes[li];
            if *pe == rhs_pes[ri] {
                merged_rhs.push(pe);
                push(lhs_child(pe), rhs_child(pe));
                li += 1;
                ri += 1;
                next_shared = shared.next();
                continue;
            }
            if rhs_observed.contains_key(pe) && next_shared.is_some_and(|n| n != pe) {
                li += 1;
                continue;
            }
        }
        if li < l_len {
            let pe = &lhs_pes[li];
            if !rhs_observed.contains_key(pe) {
                push(lhs.and_then(|l| l.get(li)), None);
                li += 1;
                continue;
            } else if merged_rhs.contains(&pe) {
                li += 1;
            }
        }
        if ri < r_len {
            let pe = &rhs_pes[ri];
            merged_rhs.push(pe);
            push(lhs_child(pe), rhs_child(pe));
            ri += 1;
            if next_shared.is_some_and(|n| n == pe) {
                next_shared = shared.next();
            }
        }
    }
    Ok((!out.is_empty()).then_some(Value::Array(out)))
}

/// `value` without the fields of `remove` (SMD's `RemoveItems`): a removed map key or list
/// item goes with everything below it; a map or list left with nothing becomes null.
pub(crate) fn remove(schemas: &Schemas, value: &Value, remove_set: &Set, ty: Ty<'_>) -> Value {
    let atom = deduce(&schemas.atom(ty), Some(value));
    if let Some(map) = &atom.map {
        let Value::Object(fields) = value else {
            return Value::Null;
        };
        if fields.is_empty() || map.atomic {
            return Value::Null;
        }
        let mut out = Map::new();
        for (key, child) in fields {
            let element = Element::Field(key.clone());
            if remove_set.members.contains(&element) {
                continue;
            }
            let below = remove_set.with_prefix(&element);
            let child = if below.is_empty() {
                child.clone()
            } else {
                remove(schemas, child, &below, field_ty(schemas, map, key))
            };
            out.insert(key.clone(), child);
        }
        return if out.is_empty() {
            Value::Null
        } else {
            Value::Object(out)
        };
    }
    if atom.scalar.is_some() {
        return value.clone();
    }
    if let Some(list) = &atom.list {
        let Value::Array(items) = value else {
            return Value::Null;
        };
        if items.is_empty() || list.atomic {
            return Value::Null;
        }
        let mut out = Vec::new();
        for item in items {
            let Ok(element) = item_element(schemas, list, item) else {
                out.push(item.clone());
                continue;
            };
            if remove_set.members.contains(&element) {
                continue;
            }
            let below = remove_set.with_prefix(&element);
            out.push(if below.is_empty() {
                item.clone()
            } else {
                remove(schemas, item, &below, list.element)
            });
        }
        return if out.is_empty() {
            Value::Null
        } else {
            Value::Array(out)
        };
    }
    Value::Null
}

/// The set with every named struct field that has members below it made a member too
/// (SMD's `EnsureNamedFieldsAreMembers`), so removing it removes the field.
pub(crate) fn ensure_named_fields_are_members(
    schemas: &Schemas,
    set: &Set,
    ty: Option<Ty<'_>>,
) -> Set {
    let atom = ty.map(|ty| schemas.atom(ty));
    let map = atom.as_ref().and_then(|a| a.map.as_ref());
    let list = atom.as_ref().and_then(|a| a.list.as_ref());
    let mut out = Set::new();
    out.members.clone_from(&set.members);
    for (element, child) in &set.children {
        let child_ty = match element {
            Element::Field(name) => map.and_then(|m| {
                if m.has_field(name) {
                    out.members.insert(element.clone());
                }
                m.field(schemas, name)
            }),
            Element::Key(_) => list.map(|l| l.element),
            _ => None,
        };
        out.children.insert(
            element.clone(),
            ensure_named_fields_are_members(schemas, child, child_ty),
        );
    }
    out
}
