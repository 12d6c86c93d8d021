//! The typed form of a loaded schema: what load hands the model instead of JSON. Every
//! structural keyword is read here, once, with a located diagnostic when it has the wrong
//! JSON type; `$ref` is parsed here, once, into a [`SchemaRef`]. OpenAPI v3, Swagger 2.0
//! (normalized in `swagger.rs`) and CRD schemas all land in this one type.
//!
//! What the schema's *values* are stays JSON: `default`, `enum` values, `example` are data
//! the model copies or checks, not structure.
//!
//! The keywords that say more than shape are typed here too: the validation keywords
//! ([`Constraints`], `not`), the merge semantics (`x-kubernetes-list-type`,
//! `x-kubernetes-list-map-keys`, `x-kubernetes-map-type`), the CEL rules
//! (`x-kubernetes-validations`) and `x-kubernetes-embedded-resource`; the model turns them
//! into the one form every consumer reads (`kubeforge_runtime::schema::Node`).
//!
//! Keys the model does not interpret (`title`, `example`, `externalDocs`, other extensions)
//! are kept as written in [`Schema::unread`]: the model never reads them by key, but two
//! definitions of one property that differ in them are different definitions
//! ([`Schema::same_definition`]). Nothing is dropped.
//!
//! Where a nested schema is has no field of its own: its JSON pointer is its parent's plus
//! the keyword path (`properties/<name>`, `items`, `allOf/0`), and the model derives it the
//! same way, so the typed form compares equal wherever it is written.

use indexmap::IndexMap;
use kubeforge_runtime::schema::{ElementType, ListType, Rule};
use serde_json::{Map, Number, Value};

use super::json_type;
use crate::diagnostics::{Diagnostic, Diagnostics, ErrorKind, Origin};
use crate::ground::Gvk;

/// Deeper nesting than this is refused while reading, rather than risking the stack (the
/// model refuses deep nesting far earlier, with a hint; this only bounds the reader).
const MAX_READ_DEPTH: usize = 512;

/// One schema object, typed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schema {
    /// `$ref`, parsed.
    pub reference: Option<SchemaRef>,
    /// The one type besides `null` (`type: T` or `type: [T, "null"]`).
    pub ty: Option<Type>,
    /// `format`.
    pub format: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `properties` in document order; `Some` (perhaps empty) when the key is there, also
    /// as `null`.
    pub properties: Option<IndexMap<String, Schema>>,
    /// `required`, in document order.
    pub required: Vec<String>,
    /// `items`.
    pub items: Option<Box<Schema>>,
    /// `additionalProperties`.
    pub additional_properties: Option<AdditionalProperties>,
    /// `patternProperties`, in document order.
    pub pattern_properties: Option<IndexMap<String, Schema>>,
    /// `allOf`.
    pub all_of: Option<Vec<Schema>>,
    /// `oneOf`.
    pub one_of: Option<Vec<Schema>>,
    /// `anyOf`.
    pub any_of: Option<Vec<Schema>>,
    /// `enum`: the values as written (data; `null` among them also makes the schema
    /// nullable).
    pub enum_values: Option<Vec<Value>>,
    /// `default`, as written (data).
    pub default: Option<Value>,
    /// Whether the schema admits `null`: `nullable: true` (OpenAPI v3, CRDs), `x-nullable:
    /// true` (Swagger 2.0), `"null"` among its types, or `null` among its `enum` values.
    pub nullable: bool,
    /// `x-kubernetes-int-or-string: true`.
    pub int_or_string: bool,
    /// `x-kubernetes-preserve-unknown-fields: true`.
    pub preserve_unknown_fields: bool,
    /// `x-kubernetes-patch-strategy`, split at commas (`"merge,retainKeys"`), in order.
    pub patch_strategies: Vec<String>,
    /// `x-kubernetes-patch-merge-key`.
    pub patch_merge_key: Option<String>,
    /// `x-kubernetes-group-version-kind` (one object or a list).
    pub gvks: Vec<Gvk>,
    /// The validation keywords (`pattern`, `minimum`, `maxItems`, …).
    pub constraints: Constraints,
    /// `not`.
    pub not: Option<Box<Schema>>,
    /// `x-kubernetes-list-type`.
    pub list_type: Option<ListType>,
    /// `x-kubernetes-list-map-keys`, in order.
    pub list_map_keys: Vec<String>,
    /// `x-kubernetes-map-type` (of a map, or of a struct).
    pub map_type: Option<ElementType>,
    /// `x-kubernetes-validations`, in order.
    pub validations: Vec<Rule>,
    /// `x-kubernetes-embedded-resource: true`.
    pub embedded_resource: bool,
    /// Every other key, as written (see the module docs).
    pub unread: Map<String, Value>,
}

/// The validation keywords of one schema, typed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Constraints {
    /// `pattern`.
    pub pattern: Option<String>,
    /// `minLength`.
    pub min_length: Option<u64>,
    /// `maxLength`.
    pub max_length: Option<u64>,
    /// `minimum`.
    pub minimum: Option<Number>,
    /// `exclusiveMinimum` (OpenAPI v3's boolean form).
    pub exclusive_minimum: bool,
    /// `maximum`.
    pub maximum: Option<Number>,
    /// `exclusiveMaximum` (OpenAPI v3's boolean form).
    pub exclusive_maximum: bool,
    /// `multipleOf`.
    pub multiple_of: Option<Number>,
    /// `minItems`.
    pub min_items: Option<u64>,
    /// `maxItems`.
    pub max_items: Option<u64>,
    /// `uniqueItems`.
    pub unique_items: bool,
    /// `minProperties`.
    pub min_properties: Option<u64>,
    /// `maxProperties`.
    pub max_properties: Option<u64>,
}

/// A reference to a named schema (`#/components/schemas/<name>`, or Swagger's
/// `#/definitions/<name>`), parsed once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaRef {
    /// The schema name, JSON pointer escapes undone (`~1` is `/`, `~0` is `~`).
    pub name: String,
    /// The reference as written, for messages.
    pub text: String,
}

impl SchemaRef {
    /// The reference `text` names, or `None` for a reference to anything but a named schema.
    /// The one place references are parsed.
    pub fn parse(text: &str) -> Option<SchemaRef> {
        ["#/components/schemas/", "#/definitions/"]
            .iter()
            .find_map(|prefix| text.strip_prefix(prefix))
            .map(|name| SchemaRef {
                name: name.replace("~1", "/").replace("~0", "~"),
                text: text.to_owned(),
            })
    }
}

/// The JSON types a schema's `type` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// `string`.
    String,
    /// `integer`.
    Integer,
    /// `number`.
    Number,
    /// `boolean`.
    Boolean,
    /// `array`.
    Array,
    /// `object`.
    Object,
}

impl Type {
    /// The name as written in a schema.
    pub fn as_str(self) -> &'static str {
        match self {
            Type::String => "string",
            Type::Integer => "integer",
            Type::Number => "number",
            Type::Boolean => "boolean",
            Type::Array => "array",
            Type::Object => "object",
        }
    }

    fn parse(text: &str) -> Option<Type> {
        Some(match text {
            "string" => Type::String,
            "integer" => Type::Integer,
            "number" => Type::Number,
            "boolean" => Type::Boolean,
            "array" => Type::Array,
            "object" => Type::Object,
            _ => return None,
        })
    }
}

/// `additionalProperties`.
#[derive(Clone, Debug, PartialEq)]
pub enum AdditionalProperties {
    /// `false`: no other keys.
    Forbidden,
    /// `true`: any other key, any value.
    Any,
    /// `{schema}`: other keys, each value of this schema.
    Schema(Box<Schema>),
}

impl Schema {
    /// Reads the schema at `origin`, reporting every keyword of the wrong JSON type. Such a
    /// keyword is left out (a list with a bad item, all of it, so that the places of the
    /// others stay right), so that the model can still report the problems it finds
    /// elsewhere; `None` when the value is no schema object at all.
    pub(crate) fn read(
        value: &Value,
        origin: &Origin,
        diagnostics: &mut Diagnostics,
    ) -> Option<Schema> {
        Reader {
            diagnostics,
            root: origin,
            path: Vec::new(),
        }
        .schema(value, 0)
    }

    /// Whether `self` and `other` define the same thing, their docs and defaults aside
    /// (`description`, `default`, `example`, `title` of the schema itself).
    pub fn same_definition(&self, other: &Schema) -> bool {
        let bare = |schema: &Schema| {
            let mut schema = schema.clone();
            schema.description = None;
            schema.default = None;
            for key in ["example", "title"] {
                schema.unread.remove(key);
            }
            schema
        };
        bare(self) == bare(other)
    }

    /// Appends the names of the schemas this one references, itself or below, in document
    /// order (a name as often as it is referenced).
    pub fn references(&self, into: &mut Vec<String>) {
        if let Some(reference) = &self.reference {
            into.push(reference.name.clone());
        }
        for property in self.properties.iter().flat_map(IndexMap::values) {
            property.references(into);
        }
        if let Some(items) = &self.items {
            items.references(into);
        }
        if let Some(AdditionalProperties::Schema(values)) = &self.additional_properties {
            values.references(into);
        }
        for value in self.pattern_properties.iter().flat_map(IndexMap::values) {
            value.references(into);
        }
        for (_, list) in self.combinators() {
            list.iter().for_each(|schema| schema.references(into));
        }
        if let Some(not) = &self.not {
            not.references(into);
        }
    }

    /// The combinator lists that are there, with their keywords, in the order
    /// `allOf`, `oneOf`, `anyOf`.
    pub fn combinators(&self) -> impl Iterator<Item = (&'static str, &[Schema])> {
        [
            ("allOf", &self.all_of),
            ("oneOf", &self.one_of),
            ("anyOf", &self.any_of),
        ]
        .into_iter()
        .filter_map(|(keyword, list)| list.as_deref().map(|list| (keyword, list)))
    }

    /// The combinator list of `keyword` (`allOf`, `oneOf`, `anyOf`).
    pub fn combinator(&self, keyword: &str) -> Option<&[Schema]> {
        self.combinators()
            .find(|(k, _)| *k == keyword)
            .map(|(_, list)| list)
    }
}

/// Reads schemas below `root`. The place of the node being read is a stack of path
/// segments, turned into an [`Origin`] only when there is something to report: building
/// one per node was most of the reader's time.
struct Reader<'d, 'v> {
    diagnostics: &'d mut Diagnostics,
    root: &'d Origin,
    path: Vec<Segment<'v>>,
}

/// One step of a JSON pointer: a key, or an index into an array.
#[derive(Clone, Copy)]
enum Segment<'v> {
    Key(&'v str),
    Index(usize),
}

impl<'v> Reader<'_, 'v> {
    /// Where the node being read is.
    fn here(&self) -> Origin {
        self.path
            .iter()
            .fold(self.root.clone(), |at, segment| match segment {
                Segment::Key(key) => at.child(key),
                Segment::Index(i) => at.child(&i.to_string()),
            })
    }

    /// `read` with `segment` pushed onto the path.
    fn at<T>(&mut self, segment: Segment<'v>, read: impl FnOnce(&mut Self) -> T) -> T {
        self.path.push(segment);
        let result = read(self);
        self.path.pop();
        result
    }

    fn report(&mut self, kind: ErrorKind, message: String) {
        let origin = self.here();
        self.diagnostics
            .push(Diagnostic::new(kind, &origin, message));
    }

    fn invalid(&mut self, message: String) {
        self.report(ErrorKind::InvalidSchema, message);
    }

    fn schema(&mut self, value: &'v Value, depth: usize) -> Option<Schema> {
        let Value::Object(object) = value else {
            self.invalid(format!(
                "expected a schema object, found {}",
                json_type(value)
            ));
            return None;
        };
        if depth > MAX_READ_DEPTH {
            self.report(
                ErrorKind::UnsupportedSchema,
                format!("expected schemas nested at most {MAX_READ_DEPTH} levels deep"),
            );
            return None;
        }
        let mut schema = Schema::default();
        let mut type_has_null = false;
        for (key, value) in object {
            // A keyword of the wrong JSON type is reported and left out.
            self.at(Segment::Key(key), |r| {
                r.keyword(&mut schema, key, value, depth, &mut type_has_null)
            });
        }
        schema.nullable |= type_has_null
            || schema
                .enum_values
                .as_ref()
                .is_some_and(|values| values.iter().any(Value::is_null));
        Some(schema)
    }

    /// Reads one keyword into `schema` (the path is at the keyword).
    fn keyword(
        &mut self,
        schema: &mut Schema,
        key: &'v str,
        value: &'v Value,
        depth: usize,
        type_has_null: &mut bool,
    ) {
        match key {
            "$ref" => schema.reference = self.reference(value),
            "type" => {
                if let Some((ty, null)) = self.ty(value) {
                    schema.ty = ty;
                    *type_has_null = null;
                }
            }
            "format" => schema.format = self.string(key, value),
            "description" => schema.description = self.string(key, value),
            "properties" => {
                schema.properties =
                    self.named_schemas(value, depth, "an object of property schemas");
            }
            "required" => {
                if let Some(required) = self.strings(value, "property name") {
                    schema.required = required;
                }
            }
            "items" => schema.items = self.schema(value, depth + 1).map(Box::new),
            "additionalProperties" => schema.additional_properties = self.additional(value, depth),
            "patternProperties" => {
                schema.pattern_properties =
                    self.named_schemas(value, depth, "an object of pattern schemas");
            }
            "allOf" => schema.all_of = self.list(value, depth),
            "oneOf" => schema.one_of = self.list(value, depth),
            "anyOf" => schema.any_of = self.list(value, depth),
            "enum" => match value {
                Value::Array(values) => schema.enum_values = Some(values.clone()),
                other => {
                    self.invalid(format!(
                        "expected an array of values, found {}",
                        json_type(other)
                    ));
                }
            },
            "default" => schema.default = Some(value.clone()),
            "nullable" | "x-nullable" => schema.nullable |= value == &Value::Bool(true),
            "x-kubernetes-int-or-string" => schema.int_or_string = value == &Value::Bool(true),
            "x-kubernetes-preserve-unknown-fields" => {
                schema.preserve_unknown_fields = value == &Value::Bool(true);
            }
            // Read leniently, as before the typed form: anything but a string is no patch
            // metadata.
            "x-kubernetes-patch-strategy" => {
                schema.patch_strategies = value
                    .as_str()
                    .map(|s| {
                        s.split(',')
                            .map(str::trim)
                            .filter(|s| !s.is_empty())
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
            }
            "x-kubernetes-patch-merge-key" => {
                schema.patch_merge_key = value.as_str().map(str::to_owned);
            }
            "x-kubernetes-group-version-kind" => {
                if let Some(gvks) = self.gvks(value) {
                    schema.gvks = gvks;
                }
            }
            "pattern" => schema.constraints.pattern = self.string(key, value),
            "minLength" => schema.constraints.min_length = self.count(key, value),
            "maxLength" => schema.constraints.max_length = self.count(key, value),
            "minItems" => schema.constraints.min_items = self.count(key, value),
            "maxItems" => schema.constraints.max_items = self.count(key, value),
            "minProperties" => schema.constraints.min_properties = self.count(key, value),
            "maxProperties" => schema.constraints.max_properties = self.count(key, value),
            "minimum" => schema.constraints.minimum = self.number(key, value),
            "maximum" => schema.constraints.maximum = self.number(key, value),
            "multipleOf" => schema.constraints.multiple_of = self.number(key, value),
            "exclusiveMinimum" => {
                schema.constraints.exclusive_minimum = self.boolean(key, value).unwrap_or(false);
            }
            "exclusiveMaximum" => {
                schema.constraints.exclusive_maximum = self.boolean(key, value).unwrap_or(false);
            }
            "uniqueItems" => {
                schema.constraints.unique_items = self.boolean(key, value).unwrap_or(false);
            }
            "not" => schema.not = self.schema(value, depth + 1).map(Box::new),
            "x-kubernetes-list-type" => {
                schema.list_type = self.choice(
                    key,
                    value,
                    &[
                        ("atomic", ListType::Atomic),
                        ("set", ListType::Set),
                        ("map", ListType::Map),
                    ],
                );
            }
            "x-kubernetes-map-type" => {
                schema.map_type = self.choice(
                    key,
                    value,
                    &[
                        ("granular", ElementType::Granular),
                        ("atomic", ElementType::Atomic),
                    ],
                );
            }
            "x-kubernetes-list-map-keys" => {
                if let Some(keys) = self.strings(value, "property name") {
                    schema.list_map_keys = keys;
                }
            }
            "x-kubernetes-validations" => {
                if let Some(rules) = self.rules(value) {
                    schema.validations = rules;
                }
            }
            "x-kubernetes-embedded-resource" => {
                schema.embedded_resource = self.boolean(key, value).unwrap_or(false);
            }
            _ => {
                schema.unread.insert(key.to_owned(), value.clone());
            }
        }
    }

    fn reference(&mut self, value: &Value) -> Option<SchemaRef> {
        let Some(text) = value.as_str() else {
            self.invalid(format!(
                "expected `$ref` to be a string, found {}",
                json_type(value)
            ));
            return None;
        };
        let parsed = SchemaRef::parse(text);
        if parsed.is_none() {
            let origin = self.here();
            self.diagnostics.push(
                Diagnostic::new(
                    ErrorKind::UnsupportedSchema,
                    &origin,
                    format!("expected a reference to a named schema, found {text:?}"),
                )
                .with_hint("references must look like `#/components/schemas/<name>` or `#/definitions/<name>`"),
            );
        }
        parsed
    }

    /// The `type` keyword: a string, or an array of at most one type besides `"null"`; the
    /// type, and whether `"null"` is listed.
    fn ty(&mut self, value: &Value) -> Option<(Option<Type>, bool)> {
        let (name, null) = match value {
            Value::String(ty) => (Some(ty.as_str()), false),
            Value::Array(list) => {
                let null = list.iter().any(|v| v.is_null() || v == "null");
                let non_null: Vec<&str> = list
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|t| *t != "null")
                    .collect();
                match non_null.as_slice() {
                    [] => (None, null),
                    [one]
                        if non_null.len() + usize::from(list.iter().any(|t| t == "null"))
                            == list.len() =>
                    {
                        (Some(*one), null)
                    }
                    _ => {
                        self.report(
                            ErrorKind::UnsupportedSchema,
                            "expected one type, optionally with \"null\"".to_owned(),
                        );
                        return None;
                    }
                }
            }
            other => {
                self.invalid(format!("expected a type name, found {}", json_type(other)));
                return None;
            }
        };
        let Some(name) = name else {
            return Some((None, null));
        };
        match Type::parse(name) {
            Some(ty) => Some((Some(ty), null)),
            None => {
                self.report(
                    ErrorKind::UnsupportedSchema,
                    format!(
                        "expected one of the types string, integer, number, boolean, array or object, found {name:?}"
                    ),
                );
                None
            }
        }
    }

    fn string(&mut self, key: &str, value: &Value) -> Option<String> {
        match value {
            Value::String(text) => Some(text.clone()),
            other => {
                self.invalid(format!(
                    "expected `{key}` to be a string, found {}",
                    json_type(other)
                ));
                None
            }
        }
    }

    /// `properties` or `patternProperties`: an object of schemas (`null` reads as empty).
    fn named_schemas(
        &mut self,
        value: &'v Value,
        depth: usize,
        expected: &str,
    ) -> Option<IndexMap<String, Schema>> {
        let map = match value {
            Value::Null => return Some(IndexMap::new()),
            Value::Object(map) => map,
            other => {
                self.invalid(format!("expected {expected}, found {}", json_type(other)));
                return None;
            }
        };
        let mut schemas = IndexMap::with_capacity(map.len());
        for (name, value) in map {
            // One that is no schema is left out (reported); the others keep their places.
            if let Some(schema) = self.at(Segment::Key(name), |r| r.schema(value, depth + 1)) {
                schemas.insert(name.clone(), schema);
            }
        }
        Some(schemas)
    }

    /// `required`, `x-kubernetes-list-map-keys`: a list of names (`null` reads as empty).
    fn strings(&mut self, value: &Value, what: &str) -> Option<Vec<String>> {
        match value {
            Value::Null => Some(Vec::new()),
            Value::Array(list) => {
                let mut names = Vec::with_capacity(list.len());
                for (i, entry) in list.iter().enumerate() {
                    match entry.as_str() {
                        Some(name) => names.push(name.to_owned()),
                        None => {
                            self.at(Segment::Index(i), |r| {
                                r.invalid(format!("expected a {what}, found {}", json_type(entry)));
                            });
                            return None;
                        }
                    }
                }
                Some(names)
            }
            other => {
                self.invalid(format!(
                    "expected an array of {what}s, found {}",
                    json_type(other)
                ));
                None
            }
        }
    }

    /// A count (`minLength`, `maxItems`, …): a non-negative integer; a float without a
    /// fraction (`1.0`, as some generators write) is that integer.
    fn count(&mut self, key: &str, value: &Value) -> Option<u64> {
        let count = value.as_u64().or_else(|| {
            value
                .as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9.0e15)
                .map(|f| f as u64)
        });
        if count.is_none() {
            self.invalid(format!(
                "expected `{key}` to be a non-negative integer, found {}",
                json_type(value)
            ));
        }
        count
    }

    fn number(&mut self, key: &str, value: &Value) -> Option<Number> {
        match value {
            Value::Number(number) => Some(number.clone()),
            other => {
                self.invalid(format!(
                    "expected `{key}` to be a number, found {}",
                    json_type(other)
                ));
                None
            }
        }
    }

    fn boolean(&mut self, key: &str, value: &Value) -> Option<bool> {
        match value {
            Value::Bool(flag) => Some(*flag),
            other => {
                self.invalid(format!(
                    "expected `{key}` to be a boolean, found {}",
                    json_type(other)
                ));
                None
            }
        }
    }

    /// One of a fixed set of strings (`x-kubernetes-list-type: set`).
    fn choice<T: Copy>(&mut self, key: &str, value: &Value, choices: &[(&str, T)]) -> Option<T> {
        let found = value
            .as_str()
            .and_then(|text| choices.iter().find(|(name, _)| *name == text))
            .map(|(_, choice)| *choice);
        if found.is_none() {
            let names: Vec<String> = choices.iter().map(|(n, _)| format!("{n:?}")).collect();
            self.invalid(format!(
                "expected `{key}` to be one of {}, found {value}",
                names.join(", ")
            ));
        }
        found
    }

    /// `x-kubernetes-validations`: a list of `{rule, message?, messageExpression?,
    /// fieldPath?, reason?, optionalOldSelf?}`.
    fn rules(&mut self, value: &'v Value) -> Option<Vec<Rule>> {
        let Value::Array(list) = value else {
            self.invalid(format!(
                "expected an array of validation rules, found {}",
                json_type(value)
            ));
            return None;
        };
        let mut rules = Vec::with_capacity(list.len());
        for (i, item) in list.iter().enumerate() {
            let rule = self.at(Segment::Index(i), |r| r.rule(item))?;
            rules.push(rule);
        }
        Some(rules)
    }

    fn rule(&mut self, value: &'v Value) -> Option<Rule> {
        let Value::Object(object) = value else {
            self.invalid(format!(
                "expected a validation rule object, found {}",
                json_type(value)
            ));
            return None;
        };
        let Some(Value::String(text)) = object.get("rule") else {
            self.invalid("expected a validation rule with a string `rule`".to_owned());
            return None;
        };
        let mut rule = Rule {
            rule: text.clone(),
            ..Rule::default()
        };
        for (key, value) in object {
            let ok = match (key.as_str(), value) {
                ("rule", _) => true,
                ("message", Value::String(text)) => {
                    rule.message = Some(text.clone());
                    true
                }
                ("messageExpression", Value::String(text)) => {
                    rule.message_expression = Some(text.clone());
                    true
                }
                ("fieldPath", Value::String(text)) => {
                    rule.field_path = Some(text.clone());
                    true
                }
                ("reason", Value::String(text)) => {
                    rule.reason = Some(text.clone());
                    true
                }
                ("optionalOldSelf", Value::Bool(flag)) => {
                    rule.optional_old_self = *flag;
                    true
                }
                // Unknown keys of a newer release are kept out of the rule, not refused.
                ("message" | "messageExpression" | "fieldPath" | "reason", Value::Null)
                | ("optionalOldSelf", Value::Null) => true,
                (
                    "message" | "messageExpression" | "fieldPath" | "reason" | "optionalOldSelf",
                    _,
                ) => false,
                _ => true,
            };
            if !ok {
                self.at(Segment::Key(key), |r| {
                    r.invalid(format!(
                        "expected `{key}` to be a {}, found {}",
                        if key == "optionalOldSelf" {
                            "boolean"
                        } else {
                            "string"
                        },
                        json_type(value)
                    ));
                });
                return None;
            }
        }
        Some(rule)
    }

    fn additional(&mut self, value: &'v Value, depth: usize) -> Option<AdditionalProperties> {
        match value {
            Value::Bool(false) => Some(AdditionalProperties::Forbidden),
            Value::Bool(true) => Some(AdditionalProperties::Any),
            Value::Object(_) => self
                .schema(value, depth + 1)
                .map(|s| AdditionalProperties::Schema(Box::new(s))),
            other => {
                self.invalid(format!(
                    "expected a schema object or a boolean, found {}",
                    json_type(other)
                ));
                None
            }
        }
    }

    fn list(&mut self, value: &'v Value, depth: usize) -> Option<Vec<Schema>> {
        let Value::Array(list) = value else {
            self.invalid(format!(
                "expected an array of schemas, found {}",
                json_type(value)
            ));
            return None;
        };
        let mut schemas = Vec::with_capacity(list.len());
        let mut ok = true;
        for (i, item) in list.iter().enumerate() {
            match self.at(Segment::Index(i), |r| r.schema(item, depth + 1)) {
                Some(schema) => schemas.push(schema),
                None => ok = false,
            }
        }
        ok.then_some(schemas)
    }

    /// `x-kubernetes-group-version-kind`: a list of `{group, version, kind}`, or one.
    fn gvks(&mut self, value: &Value) -> Option<Vec<Gvk>> {
        let items: Vec<&Value> = match value {
            Value::Array(items) => items.iter().collect(),
            Value::Object(_) => vec![value],
            other => {
                self.invalid(format!(
                    "expected an array of {{group, version, kind}} objects, found {}",
                    json_type(other)
                ));
                return None;
            }
        };
        let mut gvks = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            match gvk(item) {
                Some(gvk) => gvks.push(gvk),
                None => {
                    self.at(Segment::Index(i), |r| {
                        r.invalid(
                            "expected an object with string `group`, `version` and `kind`"
                                .to_owned(),
                        );
                    });
                    return None;
                }
            }
        }
        Some(gvks)
    }
}

/// A `{group, version, kind}` object, or `None` when one of the three is no string.
pub(crate) fn gvk(value: &Value) -> Option<Gvk> {
    let field = |name: &str| value.get(name).and_then(Value::as_str).map(str::to_owned);
    Some(Gvk {
        group: field("group")?,
        version: field("version")?,
        kind: field("kind")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    fn read(value: Value) -> Result<Schema, Vec<(ErrorKind, String, String)>> {
        let mut diagnostics = Diagnostics::default();
        let schema = Schema::read(&value, &Origin::root(Path::new("a.json")), &mut diagnostics);
        match diagnostics.finish(()) {
            Ok(()) => Ok(schema.expect("no diagnostics means a schema")),
            Err(e) => Err(e
                .diagnostics()
                .iter()
                .map(|d| (d.kind, d.origin.pointer.clone(), d.message.clone()))
                .collect()),
        }
    }

    #[test]
    fn swagger_v3_and_crd_forms_of_nullable_land_in_one_field() {
        for form in [
            json!({"type": "string", "nullable": true}),
            json!({"type": "string", "x-nullable": true}),
            json!({"type": ["string", "null"]}),
            json!({"type": "string", "enum": ["a", null]}),
        ] {
            let schema = read(form.clone()).unwrap();
            assert!(schema.nullable, "{form}");
            assert_eq!(schema.ty, Some(Type::String), "{form}");
        }
        assert!(
            !read(json!({"type": "string", "nullable": false}))
                .unwrap()
                .nullable
        );
    }

    #[test]
    fn references_are_parsed_once_with_escapes_undone() {
        let schema = read(json!({"$ref": "#/definitions/a~1b~0c"})).unwrap();
        assert_eq!(
            schema.reference,
            Some(SchemaRef {
                name: "a/b~c".to_owned(),
                text: "#/definitions/a~1b~0c".to_owned()
            })
        );
        let e = read(json!({"$ref": "other.json#/x"})).unwrap_err();
        assert_eq!(e[0].0, ErrorKind::UnsupportedSchema);
        assert_eq!(e[0].1, "/$ref");
    }

    #[test]
    fn every_malformed_keyword_is_reported_at_its_pointer() {
        let e = read(json!({
            "type": "object",
            "properties": {"a": null, "b": {"type": 7}},
            "required": [1],
            "additionalProperties": "yes",
            "allOf": {},
            "description": 3,
        }))
        .unwrap_err();
        let at: Vec<&str> = e.iter().map(|(_, at, _)| at.as_str()).collect();
        assert_eq!(
            at,
            [
                "/properties/a",
                "/properties/b/type",
                "/required/0",
                "/additionalProperties",
                "/allOf",
                "/description"
            ]
        );
        assert!(
            e.iter()
                .all(|(kind, _, _)| *kind == ErrorKind::InvalidSchema)
        );
    }

    #[test]
    fn unread_keys_are_kept_and_docs_do_not_make_a_definition_differ() {
        let a = read(json!({"type": "string", "maxLength": 3, "title": "A", "description": "a"}))
            .unwrap();
        let b =
            read(json!({"type": "string", "maxLength": 3, "title": "B", "default": "x"})).unwrap();
        let c = read(json!({"type": "string", "maxLength": 4})).unwrap();
        assert_eq!(a.constraints.max_length, Some(3));
        assert!(a.unread.get("maxLength").is_none());
        assert_eq!(a.unread.get("title"), Some(&json!("A")));
        assert!(a.same_definition(&b));
        assert!(!a.same_definition(&c));
    }

    #[test]
    fn semantics_beyond_shape_are_typed() {
        let schema = read(json!({
            "type": "array",
            "minItems": 1,
            "maxItems": 4.0,
            "uniqueItems": true,
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name", "protocol"],
            "x-kubernetes-validations": [
                {"rule": "self.size() > 0", "message": "empty", "fieldPath": ".x", "optionalOldSelf": true},
                {"rule": "true", "reason": "FieldValueForbidden", "messageExpression": "'m'"}
            ],
            "items": {"type": "integer", "minimum": -1, "exclusiveMaximum": true, "maximum": 2.5, "multipleOf": 0.5},
            "not": {"required": ["a"]},
            "x-kubernetes-embedded-resource": true,
            "x-kubernetes-map-type": "atomic",
        }))
        .unwrap();
        assert_eq!(schema.constraints.min_items, Some(1));
        assert_eq!(schema.constraints.max_items, Some(4));
        assert!(schema.constraints.unique_items);
        assert_eq!(schema.list_type, Some(ListType::Map));
        assert_eq!(schema.list_map_keys, ["name", "protocol"]);
        assert_eq!(schema.map_type, Some(ElementType::Atomic));
        assert!(schema.embedded_resource);
        assert_eq!(schema.validations.len(), 2);
        assert_eq!(schema.validations[0].message.as_deref(), Some("empty"));
        assert_eq!(schema.validations[0].field_path.as_deref(), Some(".x"));
        assert!(schema.validations[0].optional_old_self);
        assert_eq!(
            schema.validations[1].reason.as_deref(),
            Some("FieldValueForbidden")
        );
        assert_eq!(
            schema.validations[1].message_expression.as_deref(),
            Some("'m'")
        );
        let items = schema.items.as_deref().unwrap();
        assert_eq!(items.constraints.minimum, Some((-1).into()));
        assert!(items.constraints.exclusive_maximum);
        assert_eq!(
            items
                .constraints
                .multiple_of
                .as_ref()
                .and_then(Number::as_f64),
            Some(0.5)
        );
        assert_eq!(schema.not.as_deref().unwrap().required, ["a"]);
        assert!(schema.unread.is_empty(), "{:?}", schema.unread);

        let e = read(json!({
            "maxLength": -1,
            "minimum": "3",
            "x-kubernetes-list-type": "bag",
            "x-kubernetes-validations": [{"message": "no rule"}],
            "uniqueItems": "yes",
        }))
        .unwrap_err();
        let at: Vec<&str> = e.iter().map(|(_, at, _)| at.as_str()).collect();
        assert_eq!(
            at,
            [
                "/maxLength",
                "/minimum",
                "/x-kubernetes-list-type",
                "/x-kubernetes-validations/0",
                "/uniqueItems"
            ]
        );
    }
}
