//! The schema node: what a schema says beyond the shape of a value, in one serializable form
//! that the generator (`kubeforge`'s model) writes, generated code embeds, and the in-memory
//! server builds from the model. Every consumer reads this one form, so a rule means the same
//! thing in `validate()`, in the server's validation, defaulting and pruning, and in its
//! structured merge.
//!
//! A node is a normalized structural schema (the subset of OpenAPI v3 that Kubernetes allows
//! in CRDs, plus what the built-in documents say): Swagger 2.0's `x-nullable` is `nullable`,
//! a `$ref` is [`Node::reference`], an index the node's [`Resolve`](super::Resolve) maps to
//! another node. Descriptions, titles and examples are not here: they change no behaviour.
//!
//! The JSON form leaves out every default (`false`, empty lists, `None`), so the nodes
//! embedded in generated code stay short.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

/// One schema, normalized (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Node {
    /// `$ref`: the node at this index of the resolver also applies (its checks first, then
    /// this node's own, as siblings of `$ref` add to it).
    #[serde(rename = "$ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<usize>,
    /// `type`; `None` admits any JSON type.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<JsonType>,
    /// `nullable`: `null` is a valid value (and no other check applies to it).
    #[serde(skip_serializing_if = "is_false")]
    pub nullable: bool,
    /// `x-kubernetes-int-or-string`: an integer or a string, whatever `type` says.
    #[serde(skip_serializing_if = "is_false")]
    pub int_or_string: bool,
    /// `format`, as written (`int32`, `date-time`, `uuid`, `cidr`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// `enum`: the value must equal one of these.
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    pub enum_values: Option<Vec<Value>>,
    /// `pattern`: an ECMA-262 regular expression a string must match (unanchored).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// `minLength`, in characters (Unicode code points).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// `maxLength`, in characters (Unicode code points).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// `minimum`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimum: Option<Number>,
    /// `exclusiveMinimum` (OpenAPI v3's boolean form): `minimum` itself is refused.
    #[serde(skip_serializing_if = "is_false")]
    pub exclusive_minimum: bool,
    /// `maximum`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum: Option<Number>,
    /// `exclusiveMaximum` (OpenAPI v3's boolean form): `maximum` itself is refused.
    #[serde(skip_serializing_if = "is_false")]
    pub exclusive_maximum: bool,
    /// `multipleOf`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multiple_of: Option<Number>,
    /// `minItems`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// `maxItems`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// `uniqueItems`.
    #[serde(skip_serializing_if = "is_false")]
    pub unique_items: bool,
    /// `minProperties`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_properties: Option<u64>,
    /// `maxProperties`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_properties: Option<u64>,
    /// `required`, in document order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<String>,
    /// `properties`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub properties: BTreeMap<String, Node>,
    /// `additionalProperties`; `None` when the schema does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_properties: Option<Box<Additional>>,
    /// `items`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Box<Node>>,
    /// `allOf`: every one must hold.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub all_of: Vec<Node>,
    /// `oneOf`: exactly one must hold.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub one_of: Vec<Node>,
    /// `anyOf`: at least one must hold.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub any_of: Vec<Node>,
    /// `not`: must not hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not: Option<Box<Node>>,
    /// `x-kubernetes-preserve-unknown-fields`: keys no property names are kept (not
    /// pruned, not unknown to strict validation).
    #[serde(skip_serializing_if = "is_false")]
    pub preserve_unknown_fields: bool,
    /// `x-kubernetes-embedded-resource`: an object with `apiVersion`, `kind` and `metadata`
    /// of its own.
    #[serde(skip_serializing_if = "is_false")]
    pub embedded_resource: bool,
    /// `x-kubernetes-list-type`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_type: Option<ListType>,
    /// `x-kubernetes-list-map-keys`: the keys that identify an item of a `map` list.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub list_map_keys: Vec<String>,
    /// `x-kubernetes-map-type`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map_type: Option<ElementType>,
    /// `x-kubernetes-struct-type` (Kubernetes' documents say it of a few built-in structs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub struct_type: Option<ElementType>,
    /// `x-kubernetes-patch-strategy`, split at commas (`merge`, `retainKeys`, `replace`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub patch_strategy: Vec<String>,
    /// `x-kubernetes-patch-merge-key`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch_merge_key: Option<String>,
    /// `x-kubernetes-validations`, in document order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<Rule>,
    /// `default`: the value an absent property takes (structural defaulting).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
}

/// The JSON types a node's `type` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JsonType {
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

impl JsonType {
    /// The name as written in a schema.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            JsonType::String => "string",
            JsonType::Integer => "integer",
            JsonType::Number => "number",
            JsonType::Boolean => "boolean",
            JsonType::Array => "array",
            JsonType::Object => "object",
        }
    }
}

/// `additionalProperties`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[allow(clippy::large_enum_variant)] // stored boxed (`Node::additional_properties`)
pub enum Additional {
    /// `true` or `false`: any other key, or none.
    Allowed(bool),
    /// Other keys, each value of this schema.
    Schema(Node),
}

/// `x-kubernetes-list-type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ListType {
    /// One value, replaced whole (the default of every list).
    Atomic,
    /// Scalar items, each at most once; merged item by item.
    Set,
    /// Object items identified by their `x-kubernetes-list-map-keys`; merged item by item.
    Map,
}

/// `x-kubernetes-map-type` and `x-kubernetes-struct-type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElementType {
    /// Each key is its own field (the default).
    Granular,
    /// One value, replaced whole.
    Atomic,
}

/// One `x-kubernetes-validations` rule.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Rule {
    /// The CEL expression; `self` is the value, `oldSelf` its old value on update.
    pub rule: String,
    /// The message when the rule does not hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// A CEL expression giving the message (a string).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_expression: Option<String>,
    /// Where the error is reported, relative to the value (`.spec.replicas`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field_path: Option<String>,
    /// The error's reason: `FieldValueInvalid` (the default), `FieldValueForbidden`,
    /// `FieldValueRequired` or `FieldValueDuplicate`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `optionalOldSelf`: a transition rule that also runs when there is no old value
    /// (`oldSelf` is then an optional without a value).
    #[serde(skip_serializing_if = "is_false")]
    pub optional_old_self: bool,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_false(value: &bool) -> bool {
    !*value
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_are_left_out_of_the_json_form_and_read_back() {
        let node: Node = serde_json::from_value(json!({
            "type": "object",
            "required": ["a"],
            "properties": {
                "a": {"type": "string", "pattern": "^x", "maxLength": 3},
                "b": {"$ref": 2, "nullable": true},
                "c": {"type": "array", "items": {"type": "integer"}, "x": 1},
            },
            "additionalProperties": false,
            "listType": "map",
            "listMapKeys": ["name"],
            "rules": [{"rule": "self.a != 'b'", "message": "no"}],
        }))
        .unwrap();
        assert_eq!(node.properties["b"].reference, Some(2));
        assert_eq!(
            node.additional_properties.as_deref(),
            Some(&Additional::Allowed(false))
        );
        let back = serde_json::to_value(&node).unwrap();
        assert_eq!(
            back["properties"]["a"],
            json!({"type": "string", "pattern": "^x", "maxLength": 3})
        );
        assert_eq!(
            back["rules"],
            json!([{"rule": "self.a != 'b'", "message": "no"}])
        );
        assert!(back["properties"]["c"].get("x").is_none());
        assert_eq!(serde_json::to_value(Node::default()).unwrap(), json!({}));
    }
}
