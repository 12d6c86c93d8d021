//! The defaults kube-apiserver's Go code gives the built-in kinds (`SetDefaults_<Type>` and
//! the declarative `+default` markers), read from `data/builtin-defaults.txt`, whose header
//! says the format and names the sources. A rule belongs to a type (a schema definition),
//! and applies wherever the type occurs in an object, a type's rules before those of the
//! types inside it, as the generated Go defaulters call them: a Container's defaults reach a
//! Pod's containers and a Deployment's template's alike.
//!
//! What one field cannot say (a volume with no source, requests from limits) is a rule
//! written here, named in the data by `do @<name>`; so are the computed values
//! (`@image-pull-policy`) and predicates (`@externally-accessible`).

use std::collections::HashMap;
use std::sync::OnceLock;

use kubeforge_runtime::schema::{Additional, Node, SchemaSet, is_go_zero as is_zero};
use serde_json::{Map, Value};

const DATA: &str = include_str!("../../data/builtin-defaults.txt");
const VALUE_STRUCTS: &str = include_str!("../../data/builtin-value-structs.txt");
const VALUE_SCALARS: &str = include_str!("../../data/builtin-value-scalars.txt");

/// How deep the walk goes (the built-in types are not recursive past a few levels; a
/// recursive schema, such as a CRD's `JSONSchemaProps`, ends here).
const MAX_DEPTH: usize = 64;

/// The prefix the data leaves out of the built-in types' definition names.
const API_PREFIX: &str = "io.k8s.api.";

/// Applies the built-in defaults to `value`, an object of the type at `root` of `nodes`,
/// whose definition names are `names` (by node index).
pub(crate) fn apply(nodes: &SchemaSet, names: &[String], root: usize, value: &mut Value) {
    let Some(node) = nodes.get(root) else {
        return;
    };
    let walk = Walk {
        rules: table(),
        nodes,
        names,
    };
    walk.node(Some(root), node, value, 0);
}

/// The plain default the Go defaulters give field `field` of the type named `type_name`
/// (a value set when the field is unset, whatever else the object holds), as a map list's
/// key takes it before items are matched (`ContainerPort.protocol`: `TCP`).
pub(crate) fn field_default(type_name: &str, field: &str) -> Option<&'static Value> {
    table()
        .get(short(type_name))?
        .iter()
        .find_map(|rule| match rule {
            Rule {
                path,
                when: When::Nil | When::Zero,
                fill: Fill::Value(value),
                conditions,
            } if conditions.is_empty() && path.len() == 1 && path[0] == field => Some(value),
            _ => None,
        })
}

fn short(name: &str) -> &str {
    name.strip_prefix(API_PREFIX).unwrap_or(name)
}

fn table() -> &'static HashMap<String, Vec<Rule>> {
    static TABLE: OnceLock<HashMap<String, Vec<Rule>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table: HashMap<String, Vec<Rule>> = HashMap::new();
        // A struct held by value exists before its type's defaulters run.
        for (ty, field) in value_structs(VALUE_STRUCTS) {
            table.entry(ty.to_owned()).or_default().push(Rule {
                path: vec![field.to_owned()],
                when: When::Nil,
                fill: Fill::Value(Value::Object(Map::new())),
                conditions: Vec::new(),
            });
        }
        for (ty, rule) in parse(DATA).into_iter().filter_map(Result::ok) {
            table.entry(ty).or_default().push(rule);
        }
        // Go writes a scalar without `omitempty` at its zero value; after the type's own
        // defaults, so that a `nil` default is not hidden by a zero.
        for (ty, field, zero) in value_scalars(VALUE_SCALARS) {
            table.entry(ty.to_owned()).or_default().push(Rule {
                path: vec![field.to_owned()],
                when: When::Nil,
                fill: Fill::Value(zero),
                conditions: Vec::new(),
            });
        }
        table
    })
}

struct Walk<'a> {
    rules: &'a HashMap<String, Vec<Rule>>,
    nodes: &'a SchemaSet,
    names: &'a [String],
}

impl Walk<'_> {
    /// Applies the rules of every type `node` is (itself, when it has an `index`, and each
    /// one its `$ref`s name), then walks into the value's fields, items and map values.
    fn node(&self, index: Option<usize>, node: &Node, value: &mut Value, depth: usize) {
        if depth > MAX_DEPTH || !(value.is_object() || value.is_array()) {
            return;
        }
        let (layers, referred) = self.chain(node);
        let types: Vec<usize> = index.into_iter().chain(referred).collect();
        if value.is_object() {
            for ty in &types {
                if let Some(rules) = self.names.get(*ty).and_then(|n| self.rules.get(short(n))) {
                    for rule in rules {
                        rule.apply(value);
                    }
                }
            }
        }
        match value {
            Value::Object(map) => {
                let additional = layers
                    .iter()
                    .find_map(|n| n.additional_properties.as_deref());
                for (key, child) in map.iter_mut() {
                    if let Some(property) = layers.iter().find_map(|n| n.properties.get(key)) {
                        self.node(None, property, child, depth + 1);
                    } else if let Some(Additional::Schema(schema)) = additional {
                        self.node(None, schema, child, depth + 1);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(schema) = layers.iter().find_map(|n| n.items.as_deref()) {
                    for item in items {
                        self.node(None, schema, item, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }
}

impl<'a> Walk<'a> {
    /// `node` and the nodes its `$ref` chain names, with the indexes of those (a cycle of
    /// references, or a chain past 16, ends it).
    fn chain<'n>(&self, node: &'n Node) -> (Vec<&'n Node>, Vec<usize>)
    where
        'a: 'n,
    {
        let mut layers = vec![node];
        let mut indexes = Vec::new();
        let mut next = node.reference;
        while let Some(at) = next {
            if layers.len() > 16 || indexes.contains(&at) {
                break;
            }
            let Some(referred) = self.nodes.get(at) else {
                break;
            };
            indexes.push(at);
            layers.push(referred);
            next = referred.reference;
        }
        (layers, indexes)
    }
}

/// One line of the data.
#[derive(Debug, PartialEq)]
struct Rule {
    path: Vec<String>,
    when: When,
    fill: Fill,
    conditions: Vec<Condition>,
}

#[derive(Debug, PartialEq)]
enum When {
    Nil,
    Zero,
    Always,
    Do,
}

#[derive(Debug, PartialEq)]
enum Fill {
    Value(Value),
    Copy(Vec<String>),
    Computed(Computed),
    Drop,
    Action(Action),
}

#[derive(Debug, PartialEq, Clone, Copy)]
enum Computed {
    ImagePullPolicy,
    PolicyTypes,
    LowercaseKind,
    ListKind,
    StorageVersion,
}

#[derive(Debug, PartialEq, Clone, Copy)]
enum Action {
    EmptyDirWhenNoSource,
    RequestsFromLimits,
    HostNetworkPorts,
    LimitRangeItem,
}

#[derive(Debug, PartialEq)]
enum Condition {
    Nil(Vec<String>, bool),
    Zero(Vec<String>, bool),
    Equals(Vec<String>, Value, bool),
    In(Vec<String>, Vec<Value>),
    ExternallyAccessible,
}

impl Rule {
    fn apply(&self, value: &mut Value) {
        if !self.conditions.iter().all(|c| c.holds(value)) {
            return;
        }
        if let Fill::Action(action) = self.fill {
            action.run(value);
            return;
        }
        let current = get(value, &self.path);
        let applies = match self.when {
            When::Nil => current.is_none_or(Value::is_null),
            When::Zero => current.is_none_or(is_zero),
            When::Always => true,
            When::Do => false,
        };
        if !applies {
            return;
        }
        let fill = match &self.fill {
            Fill::Value(v) => Some(v.clone()),
            Fill::Copy(from) => get(value, from).filter(|v| !v.is_null()).cloned(),
            Fill::Computed(computed) => computed.value(value),
            Fill::Drop => {
                remove(value, &self.path);
                return;
            }
            Fill::Action(_) => None,
        };
        if let Some(fill) = fill {
            set(value, &self.path, fill);
        }
    }
}

impl Condition {
    fn holds(&self, value: &Value) -> bool {
        match self {
            Condition::Nil(path, yes) => get(value, path).is_none_or(Value::is_null) == *yes,
            Condition::Zero(path, yes) => get(value, path).is_none_or(is_zero) == *yes,
            Condition::Equals(path, expected, yes) => {
                (get(value, path).unwrap_or(&Value::Null) == expected) == *yes
            }
            Condition::In(path, among) => get(value, path).is_some_and(|v| among.contains(v)),
            Condition::ExternallyAccessible => {
                // pkg/api/v1/service ExternallyAccessible
                let ty = value.pointer("/spec/type").and_then(Value::as_str);
                let external_ips = value
                    .pointer("/spec/externalIPs")
                    .and_then(Value::as_array)
                    .is_some_and(|ips| !ips.is_empty());
                matches!(ty, Some("LoadBalancer" | "NodePort"))
                    || (ty == Some("ClusterIP") && external_ips)
            }
        }
    }
}

impl Computed {
    fn value(self, value: &Value) -> Option<Value> {
        let text = |pointer: &str| value.pointer(pointer).and_then(Value::as_str);
        match self {
            Computed::ImagePullPolicy => {
                let image = text("/image").unwrap_or("");
                let policy = if image_tag(image) == Some("latest") {
                    "Always"
                } else {
                    "IfNotPresent"
                };
                Some(Value::from(policy))
            }
            Computed::PolicyTypes => {
                let mut types = vec![Value::from("Ingress")];
                if value
                    .pointer("/spec/egress")
                    .and_then(Value::as_array)
                    .is_some_and(|e| !e.is_empty())
                {
                    types.push(Value::from("Egress"));
                }
                Some(Value::Array(types))
            }
            Computed::LowercaseKind => text("/spec/names/kind")
                .filter(|k| !k.is_empty())
                .map(|k| Value::from(k.to_lowercase())),
            Computed::ListKind => text("/spec/names/kind")
                .filter(|k| !k.is_empty())
                .map(|k| Value::from(format!("{k}List"))),
            Computed::StorageVersion => {
                let versions = value.pointer("/spec/versions")?.as_array()?;
                let storage = versions
                    .iter()
                    .find(|v| v.get("storage").and_then(Value::as_bool) == Some(true))?;
                let name = storage.get("name")?.as_str()?;
                Some(Value::Array(vec![Value::from(name)]))
            }
        }
    }
}

impl Action {
    fn run(self, value: &mut Value) {
        match self {
            Action::EmptyDirWhenNoSource => {
                // SetDefaults_Volume: every field of the VolumeSource nil.
                if let Some(map) = value.as_object_mut()
                    && map.iter().all(|(k, v)| k == "name" || v.is_null())
                {
                    map.insert("emptyDir".into(), Value::Object(Map::new()));
                }
            }
            Action::RequestsFromLimits => {
                for list in ["containers", "initContainers"] {
                    for container in items_mut(value, &["spec", list]) {
                        requests_from_limits(container);
                    }
                }
            }
            Action::HostNetworkPorts => {
                if value.pointer("/spec/hostNetwork").and_then(Value::as_bool) != Some(true) {
                    return;
                }
                for list in ["containers", "initContainers"] {
                    for container in items_mut(value, &["spec", list]) {
                        for port in items_mut(container, &["ports"]) {
                            let host = port.get("hostPort").and_then(Value::as_i64).unwrap_or(0);
                            if host == 0
                                && let Some(container_port) = port.get("containerPort").cloned()
                                && let Some(map) = port.as_object_mut()
                            {
                                map.insert("hostPort".into(), container_port);
                            }
                        }
                    }
                }
            }
            Action::LimitRangeItem => limit_range_item(value),
        }
    }
}

/// SetDefaults_Pod: a container's limits without requests give its requests.
fn requests_from_limits(container: &mut Value) {
    let Some(limits) = container
        .pointer("/resources/limits")
        .and_then(Value::as_object)
        .cloned()
    else {
        return;
    };
    let requests = entry_object(container, &["resources".into(), "requests".into()]);
    for (key, quantity) in limits {
        requests.entry(key).or_insert(quantity);
    }
}

/// SetDefaults_LimitRangeItem: for `type: Container`, `default` from `max`, then
/// `defaultRequest` from `default`, then from `min`.
fn limit_range_item(value: &mut Value) {
    if value.get("type").and_then(Value::as_str) != Some("Container") {
        return;
    }
    let read = |value: &Value, key: &str| {
        value
            .get(key)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let max = read(value, "max");
    let min = read(value, "min");
    let default = entry_object(value, &["default".into()]);
    for (key, quantity) in max {
        default.entry(key).or_insert(quantity);
    }
    let default = default.clone();
    let request = entry_object(value, &["defaultRequest".into()]);
    for (key, quantity) in default.into_iter().chain(min) {
        request.entry(key).or_insert(quantity);
    }
}

/// The tag of an image reference as `parsers.ParseImageName` gives it: `latest` when neither
/// a tag nor a digest is named.
fn image_tag(image: &str) -> Option<&str> {
    let (name, digest) = match image.split_once('@') {
        Some((name, digest)) => (name, Some(digest)),
        None => (image, None),
    };
    let last_segment = name.rsplit('/').next().unwrap_or(name);
    match last_segment.rsplit_once(':') {
        Some((_, tag)) => Some(tag),
        None if digest.is_none() => Some("latest"),
        None => None,
    }
}

fn get<'a>(value: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter()
        .try_fold(value, |v, key| v.as_object()?.get(key))
}

/// The object at `path`, made (and a non-object on the way replaced) where missing.
fn entry_object<'a>(value: &'a mut Value, path: &[String]) -> &'a mut Map<String, Value> {
    let mut at = value;
    for key in path {
        if !at.is_object() {
            *at = Value::Object(Map::new());
        }
        let map = at.as_object_mut().expect("made an object above");
        at = map
            .entry(key.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        if at.is_null() {
            *at = Value::Object(Map::new());
        }
    }
    if !at.is_object() {
        *at = Value::Object(Map::new());
    }
    at.as_object_mut().expect("made an object above")
}

fn set(value: &mut Value, path: &[String], fill: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    // A parent that holds something other than an object is left alone: validation
    // refuses it with its own message.
    let mut at = &*value;
    for key in parents {
        match at.as_object().and_then(|m| m.get(key)) {
            Some(v) if !v.is_object() && !v.is_null() => return,
            Some(v) => at = v,
            None => break,
        }
    }
    entry_object(value, parents).insert(last.clone(), fill);
}

fn remove(value: &mut Value, path: &[String]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut at = value;
    for key in parents {
        match at.as_object_mut().and_then(|m| m.get_mut(key)) {
            Some(v) => at = v,
            None => return,
        }
    }
    if let Some(map) = at.as_object_mut() {
        map.remove(last);
    }
}

fn items_mut<'a>(value: &'a mut Value, path: &[&str]) -> impl Iterator<Item = &'a mut Value> {
    let mut at = Some(value);
    for key in path {
        at = at
            .and_then(|v| v.as_object_mut())
            .and_then(|m| m.get_mut(*key));
    }
    at.and_then(Value::as_array_mut).into_iter().flatten()
}

/// The `(type, field)` pairs of `builtin-value-structs.txt`.
fn value_structs(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            Some((words.next()?, words.next()?))
        })
}

/// The `(type, field, zero)` triples of `builtin-value-scalars.txt` (a line whose zero is not
/// JSON is left out, and `value_scalars_are_read` in the tests fails).
fn value_scalars(text: &str) -> impl Iterator<Item = (&str, &str, Value)> {
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let (ty, field) = (words.next()?, words.next()?);
            Some((ty, field, serde_json::from_str(words.next()?).ok()?))
        })
}

/// Every rule of the data with its type, or the line that could not be read and why.
fn parse(text: &str) -> Vec<Result<(String, Rule), String>> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| parse_line(line).map_err(|why| format!("{line}: {why}")))
        .collect()
}

fn parse_line(line: &str) -> Result<(String, Rule), String> {
    let (rule, conditions) = match line.split_once(" if ") {
        Some((rule, conditions)) => (rule, Some(conditions)),
        None => (line, None),
    };
    let words: Vec<&str> = rule.split_whitespace().collect();
    let [ty, field, when, fill] = words[..] else {
        return Err("expected <type> <field> <when> <value>".into());
    };
    let when = match when {
        "nil" => When::Nil,
        "zero" => When::Zero,
        "always" => When::Always,
        "do" => When::Do,
        other => return Err(format!("unknown <when> {other:?}")),
    };
    let fill = match (fill, &when) {
        (name, When::Do) => Fill::Action(match name {
            "@empty-dir-when-no-source" => Action::EmptyDirWhenNoSource,
            "@requests-from-limits" => Action::RequestsFromLimits,
            "@host-network-ports" => Action::HostNetworkPorts,
            "@limit-range-item" => Action::LimitRangeItem,
            other => return Err(format!("unknown rule {other:?}")),
        }),
        ("drop", _) => Fill::Drop,
        (copy, _) if copy.starts_with("@copy:") => Fill::Copy(path(&copy["@copy:".len()..])),
        (name, _) if name.starts_with('@') => Fill::Computed(match name {
            "@image-pull-policy" => Computed::ImagePullPolicy,
            "@policy-types" => Computed::PolicyTypes,
            "@lowercase-kind" => Computed::LowercaseKind,
            "@list-kind" => Computed::ListKind,
            "@storage-version" => Computed::StorageVersion,
            other => return Err(format!("unknown value {other:?}")),
        }),
        (json, _) => Fill::Value(
            serde_json::from_str(json).map_err(|e| format!("value {json:?} is not JSON: {e}"))?,
        ),
    };
    if (field == "-") != (when == When::Do) {
        return Err("`do` goes with the field `-`, and only with it".into());
    }
    let conditions = conditions
        .map(|c| c.split(" and ").map(parse_condition).collect())
        .transpose()?
        .unwrap_or_default();
    let path = if field == "-" {
        Vec::new()
    } else {
        path(field)
    };
    Ok((
        ty.to_owned(),
        Rule {
            path,
            when,
            fill,
            conditions,
        },
    ))
}

fn parse_condition(text: &str) -> Result<Condition, String> {
    let text = text.trim();
    if text == "@externally-accessible" {
        return Ok(Condition::ExternallyAccessible);
    }
    let (field, rest) = text
        .split_once(' ')
        .ok_or_else(|| format!("condition {text:?} has no operator"))?;
    let field = path(field);
    let json = |s: &str| {
        serde_json::from_str::<Value>(s.trim()).map_err(|e| format!("{s:?} is not JSON: {e}"))
    };
    Ok(match rest.trim() {
        "is nil" => Condition::Nil(field, true),
        "is not nil" => Condition::Nil(field, false),
        "is zero" => Condition::Zero(field, true),
        "is not zero" => Condition::Zero(field, false),
        other => {
            if let Some(v) = other.strip_prefix("== ") {
                Condition::Equals(field, json(v)?, true)
            } else if let Some(v) = other.strip_prefix("!= ") {
                Condition::Equals(field, json(v)?, false)
            } else if let Some(v) = other.strip_prefix("in ") {
                match json(v)? {
                    Value::Array(among) => Condition::In(field, among),
                    _ => return Err(format!("`in` takes a JSON array, not {v}")),
                }
            } else {
                return Err(format!("unknown condition {other:?}"));
            }
        }
    })
}

/// A path of the data: segments split by `/`, `~1` a `/` inside one and `~0` a `~`.
fn path(text: &str) -> Vec<String> {
    text.split('/')
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

#[cfg(test)]
mod tests;
