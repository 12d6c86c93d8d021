//! Schema-driven instances: JSON values valid for a schema, generated from the raw schema
//! documents (OpenAPI v3 `components.schemas`, Swagger 2.0 `definitions`, a CRD's
//! `openAPIV3Schema` per served version), independently of the generator under test.
//!
//! [`generate`] makes one [`Instance`] from a seed, so a failure reproduces from the seed
//! alone; [`strategy`] wraps it as a proptest strategy. What the values cover:
//!
//! - every type and format: `int32`/`int64`/`uint64`… to their limits (and within
//!   `minimum`/`maximum`), numbers in integer and fractional form, `byte` as base64, `date`;
//! - string enums, including values the schema does not list (one in four);
//! - required fields always, optional ones about half the time, `null` where the schema is
//!   nullable, and `null` on a non-nullable optional field (which reads as absent: the
//!   instance's `expected` leaves it out; that is the only normalization);
//! - `additionalProperties` (maps, and extra keys beside `properties`), `patternProperties`
//!   whose pattern is a literal prefix, and unknown keys wherever the schema keeps them
//!   (`x-kubernetes-preserve-unknown-fields`, objects without properties, no type at all);
//! - int-or-string in both forms (`8080` and `"8080"`, `"25%"`), quantities in every suffix
//!   form (`1`, `1.5`, `.5`, `100m`, `1Ki`, `1Mi`, `1e3`, `1E3`, `-2.5G`, …) and as JSON
//!   numbers where the schema admits numbers;
//! - date-times with fractions and offsets where the schema is a plain `date-time`, but
//!   `meta/v1.Time` as Kubernetes writes it (seconds, `Z`) and `MicroTime` with six digits;
//! - embedded resources (`x-kubernetes-embedded-resource`: `apiVersion`, `kind`, `metadata`),
//!   and `apiVersion`/`kind` consistent with a type's `x-kubernetes-group-version-kind`;
//! - `$ref` (a dangling one is any JSON), `allOf` merged, `oneOf`/`anyOf` one branch each
//!   (a branch that only adds `required` constrains the object it sits in);
//! - recursion and size bounded by [`Options::max_depth`] and [`Options::max_nodes`];
//! - with [`Options::unknown_fields`], fields unknown to every object with properties, as a
//!   newer server sends them.
//!
//! [`Instance::order`] says where order matters: for every object with keys beside its
//! properties (extra and unknown ones), those keys in the order they were sent, which a
//! lossless round trip writes back in that order after the properties (the guide's mapping
//! table). A `serde_json::Value` comparison cannot see it: its `==` ignores order. The
//! properties' own order is the type's, and a map's (`additionalProperties` or
//! `patternProperties` without `properties`, a `BTreeMap`) is sorted; neither is listed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use proptest::arbitrary::any;
use proptest::strategy::Strategy;
use serde_json::{Map, Value, json};

/// The named schemas of some documents, and the roots whose instances are generated.
#[derive(Debug, Default)]
pub struct SchemaSet {
    schemas: BTreeMap<String, Value>,
    roots: Vec<Root>,
}

/// A schema whose instances are generated: every named schema of a document, and every
/// served version of a CRD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Root {
    /// The schema name, as the generator names it (for a CRD version,
    /// `<group reversed>.<version>.<Kind>`, e.g. `io.cert-manager.v1.Certificate`).
    pub name: String,
    /// The document that defines it, as given to [`SchemaSet::load`].
    pub document: String,
}

/// The `$ref` prefixes of the three document kinds.
const REF_PREFIXES: [&str; 2] = ["#/components/schemas/", "#/definitions/"];
const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const TIME: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Time";
const MICRO_TIME: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime";
const QUANTITY: &str = "io.k8s.apimachinery.pkg.api.resource.Quantity";

impl SchemaSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds every document of the JSON or YAML file `path` (OpenAPI v3, Swagger 2.0 or
    /// CRDs); `display` names the document in [`Root::document`].
    pub fn load(&mut self, path: &Path, display: &str) -> Result<(), String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let documents: Vec<Value> = if path.extension().is_some_and(|e| e == "json") {
            vec![serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?]
        } else {
            serde_saphyr::from_multiple(&text).map_err(|e| format!("{}: {e}", path.display()))?
        };
        for document in documents.iter().filter(|d| !d.is_null()) {
            self.add_document(document, display)?;
        }
        Ok(())
    }

    /// Adds one parsed document.
    pub fn add_document(&mut self, document: &Value, display: &str) -> Result<(), String> {
        if let Some(schemas) = document.pointer("/components/schemas") {
            self.add_named(schemas, display, true);
        } else if document.get("swagger").is_some() {
            if let Some(definitions) = document.get("definitions") {
                self.add_named(definitions, display, true);
            }
        } else if document.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition") {
            self.add_crd(document, display)?;
        } else {
            return Err(format!(
                "{display}: neither OpenAPI v3, Swagger 2.0 nor a CRD"
            ));
        }
        Ok(())
    }

    /// Adds the named schemas of `document` that the set lacks, without making them roots:
    /// the meta types a CRD refers to (`ObjectMeta`, `Time`, …), taken from a Kubernetes
    /// document.
    pub fn add_missing_definitions(&mut self, document: &Value) {
        let schemas = document
            .pointer("/components/schemas")
            .or_else(|| document.get("definitions"));
        if let Some(schemas) = schemas {
            self.add_named(schemas, "", false);
        }
    }

    fn add_named(&mut self, schemas: &Value, display: &str, roots: bool) {
        for (name, schema) in schemas.as_object().into_iter().flatten() {
            if self.schemas.contains_key(name) {
                continue;
            }
            self.schemas.insert(name.clone(), schema.clone());
            if roots {
                self.roots.push(Root {
                    name: name.clone(),
                    document: display.to_owned(),
                });
            }
        }
    }

    fn add_crd(&mut self, crd: &Value, display: &str) -> Result<(), String> {
        let spec = crd
            .get("spec")
            .ok_or(format!("{display}: a CRD without spec"))?;
        let group = spec
            .get("group")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let kind = spec
            .pointer("/names/kind")
            .and_then(Value::as_str)
            .ok_or(format!("{display}: a CRD without spec.names.kind"))?;
        let package: Vec<&str> = group.split('.').rev().collect();
        for version in spec
            .get("versions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if version.get("served") == Some(&Value::Bool(false)) {
                continue;
            }
            let name = version
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let mut schema = version
                .pointer("/schema/openAPIV3Schema")
                .cloned()
                .unwrap_or_else(
                    || json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
                );
            // What a server sends: the version's group-version-kind, and full object metadata.
            if let Value::Object(schema) = &mut schema {
                schema.insert(
                    "x-kubernetes-group-version-kind".to_owned(),
                    json!([{"group": group, "version": name, "kind": kind}]),
                );
                let properties = schema
                    .entry("properties")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(properties) = properties {
                    properties.insert(
                        "metadata".to_owned(),
                        json!({"$ref": format!("#/definitions/{OBJECT_META}")}),
                    );
                    for key in ["apiVersion", "kind"] {
                        properties
                            .entry(key)
                            .or_insert_with(|| json!({"type": "string"}));
                    }
                }
            }
            let root = format!("{}.{name}.{kind}", package.join("."));
            self.schemas.insert(root.clone(), schema);
            self.roots.push(Root {
                name: root,
                document: display.to_owned(),
            });
        }
        Ok(())
    }

    /// The roots, in the order their documents were added.
    pub fn roots(&self) -> &[Root] {
        &self.roots
    }

    /// The named schema `name`.
    pub fn schema(&self, name: &str) -> Option<&Value> {
        self.schemas.get(name)
    }
}

/// What to generate.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Add fields unknown to the type to every object with properties, as a newer server
    /// sends them.
    pub unknown_fields: bool,
    /// Below this depth, optional fields, list items and map entries are left out.
    pub max_depth: usize,
    /// An instance has at most about this many values besides those that are required; each
    /// instance draws its own budget up to it, so small and large ones are both common.
    pub max_nodes: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            unknown_fields: false,
            max_depth: 8,
            max_nodes: 60,
        }
    }
}

/// One generated value.
#[derive(Clone, Debug)]
pub struct Instance {
    /// The value as a client or server sends it.
    pub input: Value,
    /// What a lossless round trip gives back: `input`, less the `null`s on non-nullable
    /// optional fields.
    pub expected: Value,
    /// Every named schema the value contains an instance of (the root included).
    pub contains: BTreeSet<String>,
    /// Every object (a JSON pointer into `expected`) with keys beside its properties, and
    /// those keys in the order they were sent: a round trip writes them in this order, after
    /// the properties.
    pub order: Vec<(String, Vec<String>)>,
}

impl Instance {
    /// Where `actual` (a round trip's output) does not keep [`order`](Self::order); see
    /// [`order_differences`].
    pub fn order_differences(&self, actual: &Value) -> Vec<String> {
        order_differences(&self.order, actual)
    }
}

/// Where `actual` (a round trip's output) does not keep `order` (an [`Instance::order`]): the
/// pointer of each object whose keys beside the properties are not its last keys, in the
/// order sent, with the keys as found.
pub fn order_differences(order: &[(String, Vec<String>)], actual: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (pointer, keys) in order {
        let Some(object) = actual.pointer(pointer).and_then(Value::as_object) else {
            continue; // a value difference, reported as such
        };
        let tail = object.keys().skip(object.len().saturating_sub(keys.len()));
        if !tail.eq(keys.iter()) {
            let found: Vec<&String> = object.keys().collect();
            out.push(format!(
                "{}: the keys beside the properties must come last, in the order sent: {keys:?}; found {found:?}",
                if pointer.is_empty() { "/" } else { pointer }
            ));
        }
    }
    out
}

/// The seed of instance `index` of `schema` in `input`, from their content only (FNV-1a).
pub fn seed_for(input: &str, schema: &str, index: usize) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in input
        .bytes()
        .chain([0])
        .chain(schema.bytes())
        .chain([0])
        .chain(index.to_le_bytes())
    {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// One instance of the named schema `root`, from `seed`.
pub fn generate(set: &SchemaSet, root: &str, options: &Options, seed: u64) -> Instance {
    let mut generator = Generator {
        set,
        options,
        rng: SplitMix(seed),
        nodes: 0,
        contains: BTreeSet::new(),
        path: Vec::new(),
        order: Vec::new(),
    };
    generator.nodes = generator.below(options.max_nodes + 1);
    let (input, expected) = generator.reference(root, 0, false);
    Instance {
        input,
        expected,
        contains: generator.contains,
        order: generator.order,
    }
}

/// Instances of the named schema `root`, as a proptest strategy (each from a seed proptest
/// draws, so a failing case reproduces from proptest's seed).
pub fn strategy(
    set: Arc<SchemaSet>,
    root: String,
    options: Options,
) -> impl Strategy<Value = Instance> {
    any::<u64>().prop_map(move |seed| generate(&set, &root, &options, seed))
}

/// The generator's random numbers: SplitMix64, so a seed is all an instance depends on.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// A value as sent, and as it must come back.
type Pair = (Value, Value);

fn same(value: Value) -> Pair {
    (value.clone(), value)
}

struct Generator<'a> {
    set: &'a SchemaSet,
    options: &'a Options,
    rng: SplitMix,
    /// The remaining budget of optional values.
    nodes: usize,
    contains: BTreeSet<String>,
    /// Where the value being generated is: keys and indices from the root.
    path: Vec<String>,
    /// See [`Instance::order`].
    order: Vec<(String, Vec<String>)>,
}

impl Generator<'_> {
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::try_from(self.rng.next() % n as u64).unwrap_or(0)
        }
    }

    fn chance(&mut self, numerator: usize, denominator: usize) -> bool {
        self.below(denominator) < numerator
    }

    fn pick<'b, T>(&mut self, items: &'b [T]) -> &'b T {
        &items[self.below(items.len())]
    }

    /// Whether there is room for one more optional value at `depth`, and if so, take it.
    /// An instance of `schema` under the key or index `step` of the current value.
    fn child(&mut self, step: impl ToString, schema: &Value, depth: usize) -> Pair {
        self.path.push(step.to_string());
        let pair = self.node(schema, depth);
        self.path.pop();
        pair
    }

    /// The JSON pointer of the current value.
    fn pointer(&self) -> String {
        self.path
            .iter()
            .map(|step| format!("/{}", step.replace('~', "~0").replace('/', "~1")))
            .collect()
    }

    fn room(&mut self, depth: usize) -> bool {
        if depth >= self.options.max_depth || self.nodes == 0 {
            false
        } else {
            self.nodes -= 1;
            true
        }
    }

    /// An instance of the named schema `name`.
    fn reference(&mut self, name: &str, depth: usize, nullable: bool) -> Pair {
        self.contains.insert(name.to_owned());
        match name {
            TIME => return same(Value::String(self.date_time(0, false))),
            MICRO_TIME => return same(Value::String(self.date_time(6, false))),
            QUANTITY => {
                let numbers = self
                    .set
                    .schema(name)
                    .is_some_and(|s| admits_type(s, "number") || admits_type(s, "integer"));
                return same(self.quantity(numbers));
            }
            _ => {}
        }
        match self.set.schema(name) {
            Some(schema) => {
                if nullable && self.chance(1, 8) {
                    return same(Value::Null);
                }
                self.node(schema, depth)
            }
            // A dangling reference is free-form JSON (as the generator's fixups make it).
            None => same(self.any_json(depth)),
        }
    }

    /// An instance of `schema`.
    fn node(&mut self, schema: &Value, depth: usize) -> Pair {
        let Some(object) = schema.as_object() else {
            // `true` (or anything that is no schema object) admits any value.
            return same(self.any_json(depth));
        };
        if is_nullable(object) && self.chance(1, 8) {
            return same(Value::Null);
        }
        if let Some(target) = object.get("$ref").and_then(Value::as_str) {
            return self.reference(ref_name(target), depth, false);
        }
        if object.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
            || object.get("format").and_then(Value::as_str) == Some("int-or-string")
        {
            return same(self.int_or_string(object));
        }
        if let Some(Value::Array(branches)) = object.get("allOf") {
            // `allOf: [{$ref}]` with nothing beside it but docs is the referenced type.
            let rest: Vec<&String> = object
                .keys()
                .filter(|k| !matches!(k.as_str(), "allOf" | "description" | "default"))
                .collect();
            if let ([Value::Object(only)], true) = (branches.as_slice(), rest.is_empty())
                && let Some(target) = only.get("$ref").and_then(Value::as_str)
                && only.len() == 1
            {
                return self.reference(ref_name(target), depth, false);
            }
            let merged = self.merge_all_of(object);
            return self.node(&merged, depth);
        }
        for keyword in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = object.get(keyword)
                && !branches.is_empty()
            {
                let branch = self.pick(branches).clone();
                let mut rest = object.clone();
                rest.remove(keyword);
                let merged = self.merge(Value::Object(rest), &branch);
                return self.node(&merged, depth);
            }
        }
        if let Some(Value::Array(values)) = object.get("enum")
            && !values.is_empty()
        {
            if self.chance(3, 4) {
                return same(self.pick(values).clone());
            }
            if values.iter().all(Value::is_string) {
                // A value the schema does not list, as a newer server may send.
                let mut unlisted = format!("Unlisted{}", self.word());
                while values.contains(&Value::String(unlisted.clone())) {
                    unlisted.push('X');
                }
                return same(Value::String(unlisted));
            }
        }
        match type_of(object, self) {
            Some("object") => self.object(object, depth),
            Some("array") => {
                let items = object.get("items").cloned().unwrap_or(Value::Bool(true));
                let mut input = Vec::new();
                let mut expected = Vec::new();
                for _ in 0..self.below(4) {
                    if !self.room(depth) {
                        break;
                    }
                    let (i, e) = self.child(expected.len(), &items, depth + 1);
                    input.push(i);
                    expected.push(e);
                }
                (Value::Array(input), Value::Array(expected))
            }
            Some("string") => same(Value::String(self.string(object))),
            Some("integer") => same(self.integer(object)),
            Some("number") => same(self.number()),
            Some("boolean") => same(Value::Bool(self.chance(1, 2))),
            Some("null") => same(Value::Null),
            _ if object.contains_key("properties")
                || object.contains_key("additionalProperties") =>
            {
                self.object(object, depth)
            }
            _ => same(self.any_json(depth)),
        }
    }

    /// Whether `schema` admits `null` by saying so (`nullable`, a `null` type), itself or
    /// through a `$ref` or an `allOf` of one.
    fn nullable(&self, schema: &Value) -> bool {
        let Some(object) = schema.as_object() else {
            return false;
        };
        let target = object.get("$ref").or_else(|| {
            object
                .get("allOf")
                .and_then(Value::as_array)
                .filter(|b| b.len() == 1)
                .and_then(|b| b[0].get("$ref"))
        });
        is_nullable(object)
            || target
                .and_then(Value::as_str)
                .and_then(|t| self.set.schema(ref_name(t)))
                .and_then(Value::as_object)
                .is_some_and(is_nullable)
    }

    /// An object: its properties, extra keys, unknown keys.
    fn object(&mut self, object: &Map<String, Value>, depth: usize) -> Pair {
        let empty = Map::new();
        let properties = object
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: BTreeSet<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let gvk = match object.get("x-kubernetes-group-version-kind") {
            Some(Value::Array(gvks)) if !gvks.is_empty() => Some(self.pick(gvks).clone()),
            _ => None,
        };
        let embedded = object.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true));
        let preserve =
            object.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
        let mut input = Map::new();
        let mut expected = Map::new();
        for (name, property) in properties {
            let is_required = required.contains(name.as_str())
                || (embedded && matches!(name.as_str(), "apiVersion" | "kind"));
            let present = is_required || (self.chance(1, 2) && self.room(depth));
            if !present {
                // Sometimes a client writes `null` for an absent optional field
                // (`creationTimestamp: null`); it reads as absent.
                if self.chance(1, 16) && !self.nullable(property) && self.room(depth) {
                    input.insert(name.clone(), Value::Null);
                }
                continue;
            }
            let pair = match (name.as_str(), &gvk) {
                ("apiVersion", Some(gvk)) => same(Value::String(api_version(gvk))),
                ("kind", Some(gvk)) => same(gvk.get("kind").cloned().unwrap_or(Value::Null)),
                _ => self.child(name, property, depth + 1),
            };
            input.insert(name.clone(), pair.0);
            // A `null` the schema admits without being nullable (a schema without type) is
            // still `null` on a non-nullable optional field.
            if is_required || !pair.1.is_null() || self.nullable(property) {
                expected.insert(name.clone(), pair.1);
            }
        }
        // A required name the schema does not describe admits anything.
        for name in required {
            if !input.contains_key(name) {
                let value = self.any_json(depth + 1);
                input.insert(name.to_owned(), value.clone());
                expected.insert(name.to_owned(), value);
            }
        }
        if embedded {
            let fields = [
                ("apiVersion", json!("example.com/v1")),
                ("kind", json!("Example")),
                (
                    "metadata",
                    json!({"name": "embedded", "labels": {"app": "x"}}),
                ),
            ];
            for (key, value) in fields {
                if !input.contains_key(key) {
                    input.insert(key.to_owned(), value.clone());
                    expected.insert(key.to_owned(), value);
                }
            }
        }
        // The keys beside the properties, in the order sent.
        let mut extras: Vec<String> = Vec::new();
        let free = |key: &str, input: &Map<String, Value>| {
            !properties.contains_key(key) && !input.contains_key(key)
        };
        match object.get("additionalProperties") {
            Some(Value::Bool(false)) | None => {}
            Some(values) => {
                for _ in 0..self.below(4) {
                    if !self.room(depth) {
                        break;
                    }
                    let key = self.key();
                    if free(&key, &input) {
                        let pair = self.child(&key, values, depth + 1);
                        input.insert(key.clone(), pair.0);
                        expected.insert(key.clone(), pair.1);
                        extras.push(key);
                    }
                }
            }
        }
        for (pattern, values) in object
            .get("patternProperties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            // Keys for a literal-prefix pattern (`^x-`, `^[a-z]+$` is beyond this).
            let Some(prefix) = literal_prefix(pattern) else {
                continue;
            };
            if self.room(depth) {
                let key = format!("{prefix}{}", self.word());
                if free(&key, &input) {
                    let pair = self.child(&key, values, depth + 1);
                    input.insert(key.clone(), pair.0);
                    expected.insert(key.clone(), pair.1);
                    extras.push(key);
                }
            }
        }
        let free_form = properties.is_empty() && !object.contains_key("additionalProperties");
        let unknown = if free_form || preserve {
            self.below(3)
        } else if self.options.unknown_fields
            && !properties.is_empty()
            // Where a schema types the other keys (typed `additionalProperties`, or patterns),
            // a newer server's field is one of them, of that type: no unknown key of any type.
            && matches!(
                object.get("additionalProperties"),
                None | Some(Value::Bool(true))
            )
            && !object.contains_key("patternProperties")
        {
            1 + self.below(2)
        } else {
            0
        };
        for _ in 0..unknown {
            let key = format!("unknown{}", self.word());
            let value = self.any_json(depth + 1);
            if free(&key, &input) {
                input.insert(key.clone(), value.clone());
                expected.insert(key.clone(), value);
                extras.push(key);
            }
        }
        // A map is a `BTreeMap` (its keys come back sorted); elsewhere the keys beside the
        // properties keep their order.
        let map = !object.contains_key("properties")
            && !preserve
            && (object
                .get("patternProperties")
                .and_then(Value::as_object)
                .is_some_and(|p| !p.is_empty())
                || object
                    .get("additionalProperties")
                    .is_some_and(|a| *a != Value::Bool(false)));
        if !map && !extras.is_empty() {
            self.order.push((self.pointer(), extras));
        }
        (Value::Object(input), Value::Object(expected))
    }

    /// `allOf` as one schema: properties, required names and keywords of every branch.
    /// Branches that define one property differently (docs aside, and unless one only adds
    /// constraints) make the whole value any JSON: the guide's mapping table keeps it as
    /// `serde_json::Value`.
    fn merge_all_of(&mut self, object: &Map<String, Value>) -> Value {
        if self.all_of_conflicts(object) {
            return Value::Object(Map::new());
        }
        let mut merged = object.clone();
        let branches = merged.remove("allOf");
        let mut merged = Value::Object(merged);
        for branch in branches
            .iter()
            .flat_map(|b| b.as_array().into_iter().flatten())
        {
            merged = self.merge(merged, branch);
        }
        merged
    }

    /// Whether `allOf`'s branches (and the schema's own `properties`) define a property twice,
    /// differently.
    fn all_of_conflicts(&self, object: &Map<String, Value>) -> bool {
        let bare = |schema: &Value| -> Option<Value> {
            let mut schema = schema.as_object()?.clone();
            for key in ["description", "default", "example", "title"] {
                schema.remove(key);
            }
            let structural = [
                "type",
                "$ref",
                "properties",
                "items",
                "additionalProperties",
            ];
            structural
                .iter()
                .any(|k| schema.contains_key(*k))
                .then_some(Value::Object(schema))
        };
        let mut seen: BTreeMap<&str, Value> = BTreeMap::new();
        let own = std::iter::once(object);
        let branches = object
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|branch| match branch.get("$ref").and_then(Value::as_str) {
                Some(target) => self.set.schema(ref_name(target)),
                None => Some(branch),
            })
            .filter_map(Value::as_object);
        for part in own.chain(branches) {
            let Some(Value::Object(properties)) = part.get("properties") else {
                continue;
            };
            for (name, schema) in properties {
                let Some(schema) = bare(schema) else { continue };
                match seen.get(name.as_str()) {
                    Some(previous) if *previous != schema => return true,
                    Some(_) => {}
                    None => {
                        seen.insert(name, schema);
                    }
                }
            }
        }
        false
    }

    /// `base` with `branch` merged in (`branch` resolved when it is a `$ref`).
    fn merge(&mut self, base: Value, branch: &Value) -> Value {
        let branch = match branch.get("$ref").and_then(Value::as_str) {
            Some(target) => {
                let name = ref_name(target);
                self.contains.insert(name.to_owned());
                match self.set.schema(name) {
                    Some(schema) => schema.clone(),
                    None => return base,
                }
            }
            None => branch.clone(),
        };
        let (Value::Object(mut base), Value::Object(branch)) = (base.clone(), branch) else {
            // A branch that is no object (`true`) adds nothing.
            return base;
        };
        for (key, value) in branch {
            match key.as_str() {
                "properties" => {
                    let target = base
                        .entry("properties")
                        .or_insert_with(|| Value::Object(Map::new()));
                    if let (Value::Object(target), Value::Object(value)) = (target, value) {
                        for (name, schema) in value {
                            target.entry(name).or_insert(schema);
                        }
                    }
                }
                "required" => {
                    let target = base
                        .entry("required")
                        .or_insert_with(|| Value::Array(Vec::new()));
                    if let (Value::Array(target), Value::Array(value)) = (target, value) {
                        for name in value {
                            if !target.contains(&name) {
                                target.push(name);
                            }
                        }
                    }
                }
                "description" | "default" => {}
                _ => {
                    base.entry(key).or_insert(value);
                }
            }
        }
        Value::Object(base)
    }

    fn int_or_string(&mut self, object: &Map<String, Value>) -> Value {
        let pattern = object.get("pattern").and_then(Value::as_str).unwrap_or("");
        // CRDs spell a quantity as an int-or-string with the quantity pattern.
        if pattern.contains("(\\+|-)?") || pattern.contains("Ki|Mi") {
            // `anyOf: [integer, string]`: a number in it is an integer, never `-0.25`.
            if self.chance(1, 8) {
                return json!(self.below(10_000));
            }
            return self.quantity(false);
        }
        match self.below(4) {
            0 => json!(self.below(65_536)),
            1 => json!(self.pick(&[i64::from(i32::MAX), i64::from(i32::MIN), 0, -1])),
            2 => Value::String(
                self.pick(&["8080", "25%", "100%", "0", "http", "-1"])
                    .to_string(),
            ),
            _ => Value::String(self.word()),
        }
    }

    /// A quantity in one of its written forms; a JSON number too when `numbers`.
    fn quantity(&mut self, numbers: bool) -> Value {
        if numbers && self.chance(1, 8) {
            return match self.below(3) {
                0 => json!(self.below(10_000)),
                1 => json!(1.5),
                _ => json!(-0.25),
            };
        }
        if self.chance(1, 2) {
            // The forms manifests use most.
            let common = [
                "1", "1.5", "100m", "250m", "1Ki", "1Mi", "500Mi", "2Gi", "1e3", "1E3", "0",
            ];
            return Value::String((*self.pick(&common)).to_owned());
        }
        let sign = *self.pick(&["", "", "+", "-"]);
        let number = *self.pick(&["1", "0", "1.5", "0.5", ".5", "5.", "100", "12345", "2.000"]);
        let suffix = *self.pick(&[
            "", "", "m", "n", "u", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi",
            "Ei", "e3", "E3", "e-3", "E+6", "e0",
        ]);
        Value::String(format!("{sign}{number}{suffix}"))
    }

    /// An RFC 3339 date-time with `digits` fractional digits; with `free`, any number of
    /// them and any offset.
    fn date_time(&mut self, digits: usize, free: bool) -> String {
        let (year, month, day) = (
            1970 + self.below(130),
            1 + self.below(12),
            1 + self.below(28),
        );
        let (hour, minute, second) = (self.below(24), self.below(60), self.below(60));
        let mut text = format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}");
        let digits = if free {
            *self.pick(&[0, 0, 1, 3, 6, 9])
        } else {
            digits
        };
        if digits > 0 {
            text.push('.');
            for _ in 0..digits {
                text.push(char::from(b'0' + u8::try_from(self.below(10)).unwrap_or(0)));
            }
        }
        let offset = if free {
            *self.pick(&["Z", "Z", "+02:00", "-05:30", "+00:00"])
        } else {
            "Z"
        };
        text.push_str(offset);
        text
    }

    fn string(&mut self, object: &Map<String, Value>) -> String {
        match object.get("format").and_then(Value::as_str) {
            Some("date-time") => self.date_time(0, true),
            Some("date") => format!(
                "{:04}-{:02}-{:02}",
                1970 + self.below(130),
                1 + self.below(12),
                1 + self.below(28)
            ),
            Some("byte") => {
                let bytes: Vec<u8> = (0..self.below(12))
                    .map(|_| u8::try_from(self.below(256)).unwrap_or(0))
                    .collect();
                base64(&bytes)
            }
            _ => self.text(),
        }
    }

    fn integer(&mut self, object: &Map<String, Value>) -> Value {
        let (mut low, mut high): (i128, i128) = match object.get("format").and_then(Value::as_str) {
            Some("int32") => (i32::MIN.into(), i32::MAX.into()),
            Some("uint32") => (0, u32::MAX.into()),
            Some("uint64") => (0, u64::MAX.into()),
            Some("int8") => (i8::MIN.into(), i8::MAX.into()),
            Some("uint8") => (0, u8::MAX.into()),
            Some("int16") => (i16::MIN.into(), i16::MAX.into()),
            Some("uint16") => (0, u16::MAX.into()),
            _ => (i64::MIN.into(), i64::MAX.into()),
        };
        if let Some(min) = object.get("minimum").and_then(Value::as_i64) {
            low = low.max(min.into());
        }
        if let Some(max) = object.get("maximum").and_then(Value::as_i64) {
            high = high.min(max.into());
        }
        let value = match self.below(4) {
            0 => low,
            1 => high,
            _ => low.max(0) + i128::from(self.rng.next() % 1000),
        }
        .clamp(low, high);
        if let Ok(v) = i64::try_from(value) {
            json!(v)
        } else {
            json!(u64::try_from(value).unwrap_or(u64::MAX))
        }
    }

    /// A number, in integer form about a third of the time (`3`, as a user writes it).
    fn number(&mut self) -> Value {
        match self.below(6) {
            0 => json!(self.below(100)),
            1 => json!(-3),
            2 => json!(0.5),
            3 => json!(1.0e-3),
            4 => json!(123_456.789),
            _ => json!(-2.5e10),
        }
    }

    /// Any JSON, nested at most a few levels.
    fn any_json(&mut self, depth: usize) -> Value {
        let nested = depth < self.options.max_depth && self.nodes > 0;
        match self.below(if nested { 9 } else { 7 }) {
            0 => Value::Null,
            1 => Value::Bool(self.chance(1, 2)),
            2 => json!(*self.pick(&[0, 1, -7, i64::MAX, i64::MIN])),
            3 => json!(*self.pick(&[0.5, -1.25e-7, 3.0e100])),
            4 => json!(u64::MAX),
            5 | 6 => Value::String(self.text()),
            7 => {
                let mut items = Vec::new();
                for _ in 0..self.below(3) {
                    if self.room(depth) {
                        items.push(self.any_json(depth + 1));
                    }
                }
                Value::Array(items)
            }
            _ => {
                let mut map = Map::new();
                for _ in 0..self.below(3) {
                    if self.room(depth) {
                        let key = self.key();
                        let value = self.any_json(depth + 1);
                        map.insert(key, value);
                    }
                }
                Value::Object(map)
            }
        }
    }

    /// A short identifier-like word.
    fn word(&mut self) -> String {
        const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        (0..1 + self.below(8))
            .map(|_| char::from(LETTERS[self.below(LETTERS.len())]))
            .collect()
    }

    /// A map key: label-like, dotted, slashed, or unusual.
    fn key(&mut self) -> String {
        match self.below(5) {
            0 => format!("app.kubernetes.io/{}", self.word()),
            1 => String::new(),
            2 => self.text(),
            _ => self.word(),
        }
    }

    /// Text, with the characters that trip serializers.
    fn text(&mut self) -> String {
        const CHARS: &[char] = &[
            'a',
            'b',
            'z',
            'A',
            'Z',
            '0',
            '9',
            '-',
            '.',
            '_',
            '/',
            ' ',
            ':',
            '"',
            '\\',
            '\n',
            '\t',
            '\u{0}',
            '\u{7f}',
            'é',
            'ß',
            '日',
            '\u{2028}',
            '\u{1F600}',
            '<',
            '&',
            '%',
        ];
        (0..self.below(12))
            .map(|_| CHARS[self.below(CHARS.len())])
            .collect()
    }
}

/// The type an instance takes: the schema's `type`, one of its types when it lists several.
fn type_of<'a>(object: &'a Map<String, Value>, generator: &mut Generator<'_>) -> Option<&'a str> {
    match object.get("type")? {
        Value::String(t) => Some(t),
        Value::Array(types) => {
            let types: Vec<&str> = types
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .collect();
            if types.is_empty() {
                Some("null")
            } else {
                Some(*generator.pick(&types))
            }
        }
        _ => None,
    }
}

/// The guide's nullable rule: `nullable: true`, Swagger's `x-nullable: true`, a `null` type,
/// or an `enum` listing `null`.
fn is_nullable(object: &Map<String, Value>) -> bool {
    object.get("nullable") == Some(&Value::Bool(true))
        || object.get("x-nullable") == Some(&Value::Bool(true))
        || object
            .get("type")
            .and_then(Value::as_array)
            .is_some_and(|t| t.contains(&json!("null")))
        || object
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.iter().any(Value::is_null))
}

/// Whether `schema` (or one of its `oneOf`/`anyOf` branches) has type `name`.
fn admits_type(schema: &Value, name: &str) -> bool {
    schema.get("type").and_then(Value::as_str) == Some(name)
        || ["oneOf", "anyOf"].iter().any(|k| {
            schema
                .get(*k)
                .and_then(Value::as_array)
                .is_some_and(|b| b.iter().any(|b| admits_type(b, name)))
        })
}

fn ref_name(target: &str) -> &str {
    REF_PREFIXES
        .iter()
        .find_map(|p| target.strip_prefix(p))
        .unwrap_or(target)
}

fn api_version(gvk: &Value) -> String {
    let group = gvk.get("group").and_then(Value::as_str).unwrap_or("");
    let version = gvk.get("version").and_then(Value::as_str).unwrap_or("");
    if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    }
}

/// The literal prefix a `^prefix…` pattern requires, when it is plain text.
fn literal_prefix(pattern: &str) -> Option<String> {
    let rest = pattern.strip_prefix('^')?;
    let prefix: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '/'))
        .collect();
    let next = rest[prefix.len()..].chars().next();
    // A quantifier after the prefix would make its last character optional.
    (!prefix.is_empty() && !matches!(next, Some('?' | '*' | '{'))).then_some(prefix)
}

/// Standard base64 with padding, as Go's `encoding/json` writes `[]byte`.
fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(TABLE[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::test_runner::{Config, TestRunner};

    fn set(document: &Value) -> SchemaSet {
        let mut set = SchemaSet::new();
        set.add_document(document, "test.json").expect("document");
        set
    }

    fn instances(set: &SchemaSet, root: &str, options: &Options) -> Vec<Instance> {
        (0..400)
            .map(|i| generate(set, root, options, seed_for("t", root, i)))
            .collect()
    }

    fn doc(schemas: &Value) -> Value {
        json!({"openapi": "3.0.0", "components": {"schemas": schemas}})
    }

    #[test]
    fn a_seed_is_all_an_instance_depends_on() {
        let set = set(&doc(&json!({"a.B": {"type": "object", "properties": {
            "x": {"type": "string"}, "y": {"type": "array", "items": {"type": "integer"}}}}})));
        let a = generate(&set, "a.B", &Options::default(), 7);
        let b = generate(&set, "a.B", &Options::default(), 7);
        assert_eq!(a.input, b.input);
        assert_ne!(seed_for("x", "a.B", 0), seed_for("x", "a.B", 1));
    }

    #[test]
    fn required_fields_always_optional_ones_sometimes_and_null_reads_as_absent() {
        let set = set(&doc(
            &json!({"a.B": {"type": "object", "required": ["r"], "properties": {
            "r": {"type": "string"}, "o": {"type": "boolean"}, "n": {"type": "string", "nullable": true}}}}),
        ));
        let all = instances(&set, "a.B", &Options::default());
        assert!(
            all.iter()
                .all(|i| i.input.get("r").is_some_and(Value::is_string))
        );
        assert!(all.iter().any(|i| i.input.get("o").is_some()));
        assert!(all.iter().any(|i| i.input.get("o").is_none()));
        // `null` on the non-nullable optional field: sent, and expected absent.
        let nulled = all
            .iter()
            .find(|i| i.input.get("o") == Some(&Value::Null))
            .expect("a null optional field");
        assert_eq!(nulled.expected.get("o"), None);
        // `null` on the nullable one is kept.
        assert!(
            all.iter().any(|i| i.input.get("n") == Some(&Value::Null)
                && i.expected.get("n") == Some(&Value::Null))
        );
    }

    #[test]
    fn enums_listed_and_unlisted_int_or_string_both_forms() {
        let set = set(&doc(&json!({
            "a.E": {"type": "string", "enum": ["Always", "Never"]},
            "a.I": {"type": "string", "format": "int-or-string"}})));
        let enums = instances(&set, "a.E", &Options::default());
        assert!(enums.iter().any(|i| i.input == json!("Always")));
        assert!(
            enums
                .iter()
                .any(|i| i.input.as_str().is_some_and(|s| s.starts_with("Unlisted")))
        );
        let ints = instances(&set, "a.I", &Options::default());
        assert!(ints.iter().any(|i| i.input.is_i64()));
        assert!(ints.iter().any(|i| i.input == json!("8080")));
    }

    #[test]
    fn kubernetes_times_and_quantities_as_written() {
        let set = set(&doc(&json!({
            TIME: {"type": "string", "format": "date-time"},
            MICRO_TIME: {"type": "string", "format": "date-time"},
            QUANTITY: {"oneOf": [{"type": "string"}, {"type": "number"}]},
            "a.T": {"type": "string", "format": "date-time"}})));
        for i in instances(&set, TIME, &Options::default()) {
            let text = i.input.as_str().expect("a string").to_owned();
            assert!(text.len() == 20 && text.ends_with('Z'), "{text}");
        }
        for i in instances(&set, MICRO_TIME, &Options::default()) {
            let text = i.input.as_str().expect("a string").to_owned();
            assert!(text.len() == 27 && text.ends_with('Z'), "{text}");
        }
        let plain: Vec<String> = instances(&set, "a.T", &Options::default())
            .into_iter()
            .filter_map(|i| i.input.as_str().map(str::to_owned))
            .collect();
        assert!(plain.iter().any(|t| t.ends_with("+02:00")));
        assert!(plain.iter().any(|t| t.contains('.')));
        let quantities: Vec<Value> = instances(&set, QUANTITY, &Options::default())
            .into_iter()
            .map(|i| i.input)
            .collect();
        for form in ["100m", "1Ki", "1Mi", "1e3", "1E3", "1.5", ".5"] {
            assert!(
                quantities
                    .iter()
                    .any(|q| q.as_str().is_some_and(|s| s.ends_with(form))),
                "no quantity ends with {form}"
            );
        }
        assert!(quantities.iter().any(Value::is_number));
    }

    #[test]
    fn gvk_embedded_resources_maps_and_unknown_fields() {
        let set = set(&doc(&json!({
            "a.R": {"type": "object",
                "x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "R"}],
                "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                    "e": {"type": "object", "x-kubernetes-embedded-resource": true,
                          "x-kubernetes-preserve-unknown-fields": true},
                    "m": {"type": "object", "additionalProperties": {"type": "integer"}},
                    "self": {"$ref": "#/components/schemas/a.R"}}}})));
        let plain = instances(&set, "a.R", &Options::default());
        for i in &plain {
            if let Some(v) = i.input.get("apiVersion").filter(|v| !v.is_null()) {
                assert_eq!(v, "apps/v1");
            }
            if let Some(e) = i.input.get("e").filter(|e| !e.is_null()) {
                assert!(e.get("apiVersion").is_some() && e.get("kind").is_some());
            }
            assert!(
                i.input
                    .as_object()
                    .expect("object")
                    .keys()
                    .all(|k| !k.starts_with("unknown"))
            );
        }
        assert!(plain.iter().any(|i| {
            i.input
                .get("m")
                .and_then(Value::as_object)
                .is_some_and(|m| !m.is_empty())
        }));
        assert!(
            plain
                .iter()
                .any(|i| i.input.pointer("/self/self").is_some()),
            "recursion"
        );
        let options = Options {
            unknown_fields: true,
            ..Options::default()
        };
        for i in instances(&set, "a.R", &options) {
            assert!(
                i.input
                    .as_object()
                    .expect("object")
                    .keys()
                    .any(|k| k.starts_with("unknown"))
            );
        }
    }

    #[test]
    fn all_of_merges_and_one_of_picks_a_branch_as_a_strategy() {
        let set = Arc::new(set(&doc(&json!({
            "a.Base": {"type": "object", "required": ["b"], "properties": {"b": {"type": "boolean"}}},
            "a.M": {"allOf": [{"$ref": "#/components/schemas/a.Base"},
                              {"type": "object", "required": ["c"], "properties": {"c": {"type": "integer"}}}],
                    "oneOf": [{"required": ["x"]}, {"required": ["y"]}],
                    "properties": {"x": {"type": "string"}, "y": {"type": "string"}}}}))));
        let mut runner = TestRunner::new(Config {
            cases: 64,
            ..Config::default()
        });
        runner
            .run(&strategy(set, "a.M".to_owned(), Options::default()), |i| {
                let o = i.input.as_object().expect("object");
                assert!(o["b"].is_boolean() && o["c"].is_i64());
                assert!(o.contains_key("x") || o.contains_key("y"));
                assert!(i.contains.contains("a.Base"));
                Ok(())
            })
            .expect("every instance is valid");
    }

    #[test]
    fn base64_is_standard_with_padding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(&[0xfb, 0xff]), "+/8=");
    }
}
