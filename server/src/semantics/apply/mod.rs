//! Field management and server-side apply, as structured-merge-diff (SMD) defines them and
//! the API server runs them: who owns which field of an object (`metadata.managedFields`),
//! how every write changes that, and how an apply (`PATCH` with
//! `application/apply-patch+yaml`) merges a configuration into an object by the merge
//! semantics of its schema.
//!
//! - `path`, `set`, `value`: field paths and sets of them, as SMD's `fieldpath` and `value`.
//! - `crate::objects::schema`: the merge types of a schema, read from the generator's nodes.
//! - `typed`: validating, comparing, merging, and listing and removing the fields of values.
//! - `updater`: SMD's `Updater` (ownership on update and apply, pruning, conflicts).
//! - `fieldmanager`: the API server's field manager around it; `managed` the
//!   `managedFields` encoding; `conflict` the 409; `zero` the empty object of a kind.
//!
//! The server calls [`Fields`] on every create, update, patch and apply.

mod conflict;
mod fieldmanager;
mod managed;
mod path;
mod set;
mod typed;
mod updater;
mod value;
mod zero;

use kubeforge_runtime::group_version;
use kubeforge_runtime::schema::gofmt::quote;
use serde_json::{Value, json};

use crate::objects::catalog::{Catalog, ResourceDef};
use crate::objects::meta::now;
use crate::objects::schema::{self, Schemas};
use crate::semantics::directive::check_directive;
use crate::wire::status::Failure;
use fieldmanager::{Failed, Write};
use updater::{Reset, Scope};

/// The longest field manager name (`FieldManagerMaxLength`).
const MANAGER_MAX_LENGTH: usize = 128;

/// Field management for the writes to one resource or subresource.
pub(crate) struct Fields<'c> {
    schemas: &'c Schemas,
    root: schema::Ty<'c>,
    builtin: bool,
    api_version: String,
    kind: String,
    subresource: &'c str,
    reset: Reset,
}

impl<'c> Fields<'c> {
    /// Field management for `def` (its subresource `sub`).
    pub(crate) fn new(catalog: &'c Catalog, def: &ResourceDef, sub: Option<&'c str>) -> Self {
        let schemas = catalog.schemas_for(def);
        let (root, builtin) = schemas.root(&def.group, &def.version, &def.kind);
        let reset = match sub {
            Some("status") => Reset::AllButStatus,
            Some("scale") => Reset::AllButReplicas,
            _ if def.has_status() => Reset::Status,
            _ => Reset::Nothing,
        };
        Fields {
            schemas,
            root,
            builtin,
            api_version: def.api_version(),
            kind: def.kind.clone(),
            subresource: sub.unwrap_or(""),
            reset,
        }
    }

    fn empty(&self) -> Value {
        zero::empty_object(
            self.schemas,
            self.root,
            self.builtin,
            &self.api_version,
            &self.kind,
        )
    }

    fn with_write<T>(&self, run: impl FnOnce(&Write<'_>) -> T) -> T {
        let empty = self.empty();
        let now = now();
        let write = Write {
            scope: Scope {
                schemas: self.schemas,
                root: self.root,
                api_version: &self.api_version,
                reset: self.reset,
            },
            subresource: self.subresource,
            empty: &empty,
            now: &now,
        };
        run(&write)
    }

    /// A create by `manager`: the fields of `object` become its own.
    pub(crate) fn created(&self, object: &mut Value, manager: &str) {
        self.with_write(|write| write.update(write.empty, object, manager, true));
    }

    /// An update or non-apply patch by `manager` from `old` to `new`: the fields it changed
    /// become its own (recorded in `new`).
    pub(crate) fn updated(&self, old: &Value, new: &mut Value, manager: &str) {
        self.with_write(|write| write.update(old, new, manager, false));
    }

    /// An apply of `config` by `manager` to `live` (`None`: the object does not exist and
    /// the apply creates it): the object that results, with its managed fields.
    pub(crate) fn applied(
        &self,
        live: Option<&Value>,
        config: &Value,
        manager: &str,
        force: bool,
    ) -> Result<Value, Failure> {
        let gvk = |object: &Value| {
            let text = |key: &str| object.get(key).and_then(Value::as_str).unwrap_or("");
            let (group, version) = group_version(text("apiVersion"));
            format!("{group}/{version}, Kind={}", text("kind"))
        };
        let (group, version) = group_version(&self.api_version);
        let expected = format!("{group}/{version}, Kind={}", self.kind);
        if gvk(config) != expected {
            return Err(Failure::bad_request(format!(
                "invalid object type: {}",
                gvk(config)
            )));
        }
        self.with_write(|write| {
            let live = live.unwrap_or(write.empty);
            write
                .apply(live, config, manager, force)
                .map(|object| without_new_nulls(object, live))
                .map_err(|failed| match failed {
                    Failed::Conflicts(conflicts) => conflict::failure(&conflicts),
                    Failed::BadRequest(message) => Failure::bad_request(message),
                    Failed::Internal(message) => Failure::internal(message),
                    Failed::Typed(message) => {
                        let text = |pointer: &str| {
                            config
                                .pointer(pointer)
                                .and_then(Value::as_str)
                                .unwrap_or("")
                        };
                        Failure {
                            code: 500,
                            reason: "",
                            message: format!(
                                "failed to create typed patch object ({}/{}; {}): {message}",
                                text("/metadata/namespace"),
                                text("/metadata/name"),
                                gvk(config)
                            ),
                            details: None,
                        }
                    }
                })
        })
    }
}

/// Removes what decoding an object of `def`'s kind drops: keys its schema does not declare,
/// in the whole object (a built-in kind, decoded into its Go type, whose `null`s stay: a
/// field's zero value, which Go may write back as `null`) or in its field `only` (a custom
/// resource's `metadata`, decoded into `ObjectMeta`, whose empty fields are omitted: its
/// `null`s go too). Returns the paths of the unknown keys (`spec.foo`), in the order met.
pub(crate) fn drop_unknown(
    schemas: &Schemas,
    def: &ResourceDef,
    object: &mut Value,
    only: Option<&str>,
) -> Vec<String> {
    let (root, _) = schemas.root(&def.group, &def.version, &def.kind);
    let mut unknown = Vec::new();
    match only {
        None => typed::drop_unknown(schemas, object, root, "", false, &mut unknown),
        Some(field) => {
            let ty = schemas
                .atom(root)
                .map
                .and_then(|map| map.field(schemas, field));
            if let (Some(ty), Some(value)) = (ty, object.get_mut(field)) {
                typed::drop_unknown(schemas, value, ty, field, true, &mut unknown);
            }
        }
    }
    unknown
}

/// An apply to the `scale` subresource (an `autoscaling/v1` `Scale`), as the apply of its
/// `spec.replicas` to the object: the API server records it so (its `ScaleHandler` maps the
/// Scale's managed fields to the object's `spec.replicas`, with `subresource: scale`).
pub(crate) fn scale_config(def: &ResourceDef, config: &Value) -> Result<Value, Failure> {
    let text = |pointer: &str| {
        config
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    if (text("/apiVersion"), text("/kind")) != ("autoscaling/v1", "Scale") {
        let (group, version) = group_version(text("/apiVersion"));
        return Err(Failure::bad_request(format!(
            "invalid object type: {group}/{version}, Kind={}",
            text("/kind")
        )));
    }
    if config.pointer("/metadata/managedFields").is_some() {
        return Err(Failure::bad_request(
            "metadata.managedFields must be nil".to_owned(),
        ));
    }
    let mut object = json!({
        "apiVersion": def.api_version(),
        "kind": def.kind,
        "metadata": {"name": text("/metadata/name")},
    });
    if let Some(version) = config.pointer("/metadata/resourceVersion") {
        object["metadata"]["resourceVersion"] = version.clone();
    }
    if let Some(replicas) = config.pointer("/spec/replicas") {
        object["spec"] = json!({ "replicas": replicas });
    }
    Ok(object)
}

/// The object without the nulls SMD leaves where the live object had none (a map or list it
/// emptied, a field applied as null), as decoding into the API type (or pruning, for a
/// custom resource) drops them; nulls the live object held stay, so a repeated apply
/// changes nothing.
fn without_new_nulls(mut value: Value, live: &Value) -> Value {
    fn clean(value: &mut Value, live: &Value) {
        match value {
            Value::Object(map) => {
                map.retain(|key, v| !v.is_null() || live.get(key).is_some_and(Value::is_null));
                for (key, v) in map.iter_mut() {
                    clean(v, live.get(key).unwrap_or(&Value::Null));
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    clean(item, live.get(i).unwrap_or(&Value::Null));
                }
            }
            _ => {}
        }
    }
    clean(&mut value, live);
    value
}

/// The manager of a write that is not an apply: `fieldManager`, or else the User-Agent up to
/// its first `/`, without unprintable characters, at most 128 bytes (the API server's
/// `prefixFromUserAgent`); an empty one is recorded as `unknown`.
pub(crate) fn manager_of(field_manager: Option<&str>, user_agent: Option<&str>) -> String {
    if let Some(manager) = field_manager.filter(|m| !m.is_empty()) {
        return manager.to_owned();
    }
    let agent = user_agent.unwrap_or("");
    let prefix = agent.split('/').next().unwrap_or("");
    let mut out = String::new();
    for c in prefix.chars().filter(|c| is_print(*c)) {
        if out.len() + c.len_utf8() > MANAGER_MAX_LENGTH {
            break;
        }
        out.push(c);
    }
    out
}

/// Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space.
fn is_print(c: char) -> bool {
    c == ' ' || !(c.is_control() || c.is_whitespace() || is_format_or_unassigned(c))
}

fn is_format_or_unassigned(c: char) -> bool {
    matches!(c, '\u{ad}' | '\u{600}'..='\u{605}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}')
}

/// Checks a write's options as the API server does (`ValidateCreateOptions` and its
/// siblings): `fieldManager` (`ValidateFieldManager`: too long or with unprintable
/// characters; for an apply, also missing) and `fieldValidation` (one of `Ignore`, `Warn`,
/// `Strict`); the 422 `PatchOptions`/`UpdateOptions`/`CreateOptions` error lists them all.
pub(crate) fn check_options(
    options_kind: &str,
    field_manager: Option<&str>,
    field_validation: Option<&str>,
    apply: bool,
) -> Result<(), Failure> {
    let manager = field_manager.unwrap_or("");
    let mut causes = Vec::new();
    if apply && manager.is_empty() {
        causes.push((
            "fieldManager",
            "FieldValueRequired",
            "Required value: is required for apply patch".to_owned(),
        ));
    }
    if manager.len() > MANAGER_MAX_LENGTH {
        causes.push((
            "fieldManager",
            "FieldValueTooLong",
            format!("Too long: may not be more than {MANAGER_MAX_LENGTH} bytes"),
        ));
    }
    let mut position = 0;
    for c in manager.chars() {
        if !is_print(c) {
            causes.push((
                "fieldManager",
                "FieldValueInvalid",
                format!(
                    "Invalid value: {}: invalid character U+{:04X} (at position {position})",
                    quote(manager),
                    u32::from(c)
                ),
            ));
        }
        position += c.len_utf8();
    }
    if let Some((reason, message)) = check_directive(field_validation) {
        causes.push(("fieldValidation", reason, message));
    }
    if causes.is_empty() {
        return Ok(());
    }
    Err(invalid_options(options_kind, &causes))
}

/// The 422 of invalid request options (`PatchOptions.meta.k8s.io "" is invalid: …`), from
/// each cause's field, reason and message.
pub(crate) fn invalid_options(options_kind: &str, causes: &[(&str, &str, String)]) -> Failure {
    let messages: Vec<String> = causes
        .iter()
        .map(|(field, _, message)| format!("{field}: {message}"))
        .collect();
    let aggregate = match messages.as_slice() {
        [one] => one.clone(),
        _ => format!("[{}]", messages.join(", ")),
    };
    Failure {
        code: 422,
        reason: "Invalid",
        message: format!("{options_kind}.meta.k8s.io \"\" is invalid: {aggregate}"),
        details: Some(json!({
            "group": "meta.k8s.io",
            "kind": options_kind,
            "causes": causes.iter().map(|(field, reason, message)| json!({
                "reason": reason,
                "message": message,
                "field": field,
            })).collect::<Vec<_>>(),
        })),
    }
}

/// An apply's body: YAML (JSON is YAML), which must be an object.
pub(crate) fn parse_config(body: &[u8]) -> Result<Value, Failure> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(_) => serde_saphyr::from_slice(body)
            .map_err(|e| Failure::bad_request(format!("error encoding patch: {e}")))?,
    };
    match value {
        Value::Object(_) => Ok(value),
        Value::Null => Ok(json!({})),
        other => Err(Failure::bad_request(format!(
            "error decoding patch: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            match other {
                Value::Array(_) => "array",
                Value::String(_) => "string",
                Value::Bool(_) => "bool",
                _ => "number",
            }
        ))),
    }
}

#[cfg(test)]
mod tests;
