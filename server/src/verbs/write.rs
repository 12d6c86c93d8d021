//! The writing verbs: create, update (replace), patch (JSON, merge and strategic merge
//! patches) and server-side apply, and `commit`, the write of an update, patch or apply
//! over the stored object that they share.

use kubeforge_runtime::schema::gofmt::quote;
use std::sync::Arc;

use http::StatusCode;
use serde_json::{Value, json};

use crate::controllers::queue::Work;
use crate::objects::catalog::{Catalog, ResourceDef};
use crate::objects::meta::{metadata_mut, new_uid, now};
use crate::semantics::admission;
use crate::semantics::allocation;
use crate::semantics::apply::{self, Fields};
use crate::semantics::csr;
use crate::semantics::deletion::released;
use crate::semantics::directive::Directive;
use crate::semantics::namespaces;
use crate::semantics::patch::{self, PatchKind};
use crate::semantics::strategy::Strategy;
use crate::semantics::validation::{self, Source};
use crate::verbs::{Shared, scale_of};
use crate::wire::query::Query;
use crate::wire::status::Failure;

impl Shared {
    /// `POST` on a collection: the body decoded as the API server decodes it, then created.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn create(
        &self,
        catalog: &Catalog,
        index: usize,
        namespace: &str,
        body: &[u8],
        query: &Query,
        manager: &str,
        warnings: &mut Vec<String>,
    ) -> Result<(StatusCode, Value), Failure> {
        apply::check_options(
            "CreateOptions",
            query.get("fieldManager"),
            query.get("fieldValidation"),
            false,
        )?;
        let directive = Directive::of(query.get("fieldValidation")).unwrap_or(Directive::Warn);
        let (object, duplicates) = validation::parse_json(body)?;
        let object = self.decoded(
            catalog,
            index,
            object,
            validation::duplicate_errors(&duplicates, None),
            directive,
            || Source::Body,
            warnings,
        )?;
        self.insert(catalog, index, namespace, object, query, Some(manager))
    }

    /// Creates `object` (checked). `manager` is the updater to record as owning its fields;
    /// `None` when an apply has already recorded its managed fields.
    pub(super) fn insert(
        &self,
        catalog: &Catalog,
        index: usize,
        namespace: &str,
        mut object: Value,
        query: &Query,
        manager: Option<&str>,
    ) -> Result<(StatusCode, Value), Failure> {
        let def = &catalog.resources[index];
        let meta = metadata_mut(&mut object);
        // A name from `generateName` before validation, as `BeforeCreate` makes it; without
        // either, validation refuses the empty name.
        let name = match meta.get("name").and_then(Value::as_str) {
            Some(name) if !name.is_empty() => name.to_owned(),
            _ => match meta.get("generateName").and_then(Value::as_str) {
                Some(prefix) if !prefix.is_empty() => format!("{prefix}{}", self.suffix()),
                _ => String::new(),
            },
        };
        meta.insert("name".into(), Value::from(name.clone()));
        self.place(def, meta, namespace)?;
        for key in [
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "resourceVersion",
            "uid",
            "creationTimestamp",
        ] {
            meta.remove(key);
        }
        if csr::is_csr(def) {
            csr::prepare_create(&mut object);
        }
        validation::validate(catalog, def, &object, None)?;
        if csr::is_csr(def) {
            refuse(def, &name, csr::validate_create(&object))?;
        }
        if let Some(manager) = manager {
            Fields::new(catalog, def, None).created(&mut object, manager);
        }
        // PrepareForCreate: a built-in kind's status starts as its zero value (what Go
        // writes of it), a custom resource's is dropped; the generation; a Pod's status.
        let strategy = Strategy::in_catalog(catalog, def);
        strategy.prepare_for_create(def, &mut object, |object| {
            validation::builtin_defaults(catalog, def, object);
        });
        if namespaces::is_namespaces(catalog, index) {
            namespaces::prepare(&mut object, &name);
        }
        let key = (namespace.to_owned(), name.clone());
        let pods = def.group.is_empty() && def.plural == "pods";
        // The token volume's name, made before the lock (`suffix` takes it).
        let suffix = if pods { self.suffix() } else { String::new() };
        let mut state = self.lock();
        namespaces::admit_create(&state, catalog, def, namespace, &name)?;
        if pods {
            let lookups = admission::Lookups {
                service_accounts: catalog
                    .find("", "v1", "serviceaccounts")
                    .filter(|_| namespaces::index(catalog).is_some())
                    .map(|(i, _)| &state.objects[i]),
                priority_classes: catalog
                    .find("scheduling.k8s.io", "v1", "priorityclasses")
                    .map(|(i, _)| state.objects[i].values().map(|c| &**c).collect())
                    .unwrap_or_default(),
                suffix: &suffix,
            };
            admission::admit_pod(&mut object, namespace, &lookups)
                .map_err(|why| Failure::forbidden(&def.group, &def.plural, &name, &why))?;
        }
        if state.objects[index].contains_key(&key) {
            return Err(Failure::already_exists(&def.group, &def.plural, &name));
        }
        if strategy.allocates() {
            allocation::allocate(
                &mut object,
                None,
                state.objects[index].values().map(|o| &**o),
            )
            .map_err(|errors| Failure::invalid_fields(&def.group, &def.kind, &name, errors))?;
        }
        if query.dry_run() {
            return Ok((StatusCode::CREATED, object));
        }
        let rv = state.next_rv();
        let meta = metadata_mut(&mut object);
        meta.insert("uid".into(), Value::from(new_uid()));
        meta.insert("resourceVersion".into(), Value::from(rv.to_string()));
        meta.insert("creationTimestamp".into(), Value::from(now()));
        let object = Arc::new(object);
        state.put(index, key.clone(), object.clone(), None);
        self.settle(&mut state, vec![Work::Written(index, key)]);
        self.notify(state);
        Ok((StatusCode::CREATED, (*object).clone()))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn update(
        &self,
        catalog: &Catalog,
        index: usize,
        namespace: &str,
        name: &str,
        sub: Option<&str>,
        body: &[u8],
        query: &Query,
        manager: &str,
        warnings: &mut Vec<String>,
    ) -> Result<(StatusCode, Value), Failure> {
        let def = &catalog.resources[index];
        apply::check_options(
            "UpdateOptions",
            query.get("fieldManager"),
            query.get("fieldValidation"),
            false,
        )?;
        let directive = Directive::of(query.get("fieldValidation")).unwrap_or(Directive::Warn);
        let (body, duplicates) = validation::parse_json(body)?;
        let errors = validation::duplicate_errors(&duplicates, None);
        let body = if sub == Some("scale") {
            body
        } else {
            self.decoded(
                catalog,
                index,
                body,
                errors,
                directive,
                || Source::Body,
                warnings,
            )?
        };
        let body_name = body
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or(name);
        if body_name != name {
            return Err(Failure::bad_request(format!(
                "the name of the object ({body_name}) does not match the name on the URL ({name})"
            )));
        }
        // `GuaranteedUpdate`: an update that loses a race to another write is tried again
        // on the object now stored; only a precondition it states (its `resourceVersion`)
        // answers 409.
        loop {
            let old = self.stored(index, namespace, name)?;
            if let Some(rv) = body
                .pointer("/metadata/resourceVersion")
                .and_then(Value::as_str)
                && !rv.is_empty()
                && Some(rv)
                    != old
                        .pointer("/metadata/resourceVersion")
                        .and_then(Value::as_str)
            {
                return Err(stale(def, name));
            }
            if let Some(done) = self.commit(
                catalog,
                index,
                namespace,
                name,
                &old,
                body.clone(),
                sub,
                query,
                Some(manager),
            )? {
                return Ok(done);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn patch(
        &self,
        catalog: &Catalog,
        index: usize,
        namespace: &str,
        name: &str,
        sub: Option<&str>,
        content_type: &str,
        body: &[u8],
        query: &Query,
        manager: &str,
        warnings: &mut Vec<String>,
    ) -> Result<(StatusCode, Value), Failure> {
        let kind = PatchKind::from_content_type(content_type).ok_or_else(|| {
            Failure::unsupported_media_type(format!(
                "the body of the request was in an unknown format ({}): accepted media types are application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml", quote(content_type)
            ))
        })?;
        apply::check_options(
            "PatchOptions",
            query.get("fieldManager"),
            query.get("fieldValidation"),
            kind == PatchKind::Apply,
        )?;
        if kind == PatchKind::Apply {
            return self.apply(catalog, index, namespace, name, sub, body, query, manager);
        }
        if query.get("force").is_some() {
            return Err(apply::invalid_options(
                "PatchOptions",
                &[(
                    "force",
                    "FieldValueForbidden",
                    "Forbidden: may not be specified for non-apply patch".to_owned(),
                )],
            ));
        }
        // `GuaranteedUpdate`: a patch that loses a race to another write is applied again
        // to the object now stored (its warnings with it); only a precondition it states
        // (a `resourceVersion` in the patch) answers 409.
        let warned = warnings.len();
        loop {
            warnings.truncate(warned);
            if let Some(done) = self.patch_once(
                catalog, index, namespace, name, sub, kind, body, query, manager, warnings,
            )? {
                return Ok(done);
            }
        }
    }

    /// One try of [`Shared::patch`] on the object stored now; `None` when another write
    /// changed it before the commit.
    #[allow(clippy::too_many_arguments)]
    fn patch_once(
        &self,
        catalog: &Catalog,
        index: usize,
        namespace: &str,
        name: &str,
        sub: Option<&str>,
        kind: PatchKind,
        body: &[u8],
        query: &Query,
        manager: &str,
        warnings: &mut Vec<String>,
    ) -> Result<Option<(StatusCode, Value)>, Failure> {
        let def = &catalog.resources[index];
        let old = self.stored(index, namespace, name)?;
        let mut patched = if sub == Some("scale") {
            scale_of(&old)
        } else {
            (*old).clone()
        };
        let root = catalog.patch_root(def);
        patch::apply(kind, &mut patched, body, catalog.patch_for(def), root)
            .map_err(|message| Failure::invalid(&def.kind, name, message))?;
        // The patch's own duplicate keys (and a JSON patch's unknown ones) are strict errors
        // too; a refusal shows the patched object, or a strategic merge patch as Go prints it.
        let directive = Directive::of(query.get("fieldValidation")).unwrap_or(Directive::Warn);
        let parsed = match directive {
            Directive::Ignore => None,
            _ => validation::parse_json(body).ok(),
        };
        let errors = parsed
            .as_ref()
            .map_or_else(Vec::new, |(patch, duplicates)| {
                validation::duplicate_errors(duplicates, (kind == PatchKind::Json).then_some(patch))
            });
        let shown = |patched: &Value| match (kind, &parsed) {
            (PatchKind::Strategic, Some((patch, _))) => validation::go_text(patch),
            _ => kubeforge_runtime::schema::gofmt::json(patched),
        };
        let old_rv = old
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str);
        let new_rv = patched
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str);
        if new_rv.is_some_and(|rv| Some(rv) != old_rv) {
            return Err(stale(def, name));
        }
        let patched = if sub == Some("scale") {
            patched
        } else {
            // Only a refusal shows it.
            let text = (directive == Directive::Strict).then(|| shown(&patched));
            self.decoded(
                catalog,
                index,
                patched,
                errors,
                directive,
                || Source::Patch(text.unwrap_or_default()),
                warnings,
            )?
        };
        self.commit(
            catalog,
            index,
            namespace,
            name,
            &old,
            patched,
            sub,
            query,
            Some(manager),
        )
    }

    /// Server-side apply: merges the configuration into the object (creating it when it does
    /// not exist, as the API server does), with the field management of `apply`.
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &self,
        catalog: &Catalog,
        index: usize,
        namespace: &str,
        name: &str,
        sub: Option<&str>,
        body: &[u8],
        query: &Query,
        manager: &str,
    ) -> Result<(StatusCode, Value), Failure> {
        let def = &catalog.resources[index];
        let config = apply::parse_config(body)?;
        let config = if sub == Some("scale") {
            apply::scale_config(def, &config)?
        } else {
            config
        };
        let force = query.flag("force");
        // `GuaranteedUpdate`: an apply that loses a race to another write (or a create
        // that another create beat) is applied again to the object now stored.
        loop {
            match self.apply_once(
                catalog, index, namespace, name, sub, &config, query, manager, force,
            ) {
                Ok(Some(done)) => return Ok(done),
                Ok(None) => {}
                Err(failure) if failure.reason == "AlreadyExists" => {}
                Err(failure) => return Err(failure),
            }
        }
    }

    /// One try of [`Shared::apply`] on the object stored now; `None` when another write
    /// changed it before the commit.
    #[allow(clippy::too_many_arguments)]
    fn apply_once(
        &self,
        catalog: &Catalog,
        index: usize,
        namespace: &str,
        name: &str,
        sub: Option<&str>,
        config: &Value,
        query: &Query,
        manager: &str,
        force: bool,
    ) -> Result<Option<(StatusCode, Value)>, Failure> {
        let def = &catalog.resources[index];
        let fields = Fields::new(catalog, def, sub);
        let old = match self.stored(index, namespace, name) {
            Ok(old) => old,
            Err(failure) if failure.code == 404 && sub.is_none() => {
                if let Some(uid) = config.pointer("/metadata/uid").and_then(Value::as_str) {
                    return Err(Failure::conflict(
                        &def.group,
                        &def.plural,
                        name,
                        &format!(
                            "uid mismatch: the provided object specified uid {uid}, and no existing object was found"
                        ),
                    ));
                }
                let object = fields.applied(None, config, manager, force)?;
                same_name(&object, name)?;
                let object = self.applied(catalog, index, object)?;
                return self
                    .insert(catalog, index, namespace, object, query, None)
                    .map(Some);
            }
            Err(failure) => return Err(failure),
        };
        let mut applied = fields.applied(Some(&old), config, manager, force)?;
        same_name(&applied, name)?;
        self.place(def, metadata_mut(&mut applied), namespace)?;
        let old_rv = old.pointer("/metadata/resourceVersion");
        if applied
            .pointer("/metadata/resourceVersion")
            .is_some_and(|rv| Some(rv) != old_rv)
        {
            return Err(stale(def, name));
        }
        let applied = if sub == Some("scale") {
            applied
        } else {
            self.applied(catalog, index, applied)?
        };
        self.commit(
            catalog, index, namespace, name, &old, applied, sub, query, None,
        )
    }

    /// Writes `new` over `old` by the rules of the main resource or subresource `sub`:
    /// `status` takes only the status, the main resource keeps the stored status when the
    /// status subresource exists, `scale` takes only the replicas, a Pod's
    /// `ephemeralcontainers` only its ephemeral containers; identity metadata stays;
    /// `generation` rises as the kind's strategy says; a Service keeps what was allocated
    /// to it; a write that
    /// changes nothing makes no new version; an object being deleted whose last finalizer
    /// is removed is deleted.
    /// `manager` is the updater recorded as owning what changed; `None` when an apply has
    /// already recorded the managed fields.
    ///
    /// `None` when the write lost a race: under the store's lock, the stored object is no
    /// longer `old`, or a value allocated to a Service is now another's (the caller tries
    /// again on what is stored now, as `GuaranteedUpdate` does).
    #[allow(clippy::too_many_arguments)]
    fn commit(
        &self,
        catalog: &Catalog,
        index: usize,
        namespace: &str,
        name: &str,
        old: &Arc<Value>,
        new: Value,
        sub: Option<&str>,
        query: &Query,
        manager: Option<&str>,
    ) -> Result<Option<(StatusCode, Value)>, Failure> {
        let def = &catalog.resources[index];
        // An apply on a subresource has recorded its managed fields in `new`.
        let applied_fields = manager
            .is_none()
            .then(|| new.pointer("/metadata/managedFields").cloned());
        let sent_status = new.get("status").cloned();
        let mut result: Value = match sub {
            Some("status") => {
                let mut result = (**old).clone();
                set_or_remove(&mut result, "status", new.get("status").cloned());
                result
            }
            Some("finalize") => {
                let mut result = (**old).clone();
                let finalizers = new
                    .pointer("/spec/finalizers")
                    .cloned()
                    .unwrap_or_else(|| json!([]));
                match result.get_mut("spec").and_then(Value::as_object_mut) {
                    Some(spec) => {
                        spec.insert("finalizers".into(), finalizers);
                    }
                    None => result["spec"] = json!({"finalizers": finalizers}),
                }
                result
            }
            // `dropNonEphemeralContainerUpdates`: only the ephemeral containers are taken.
            Some("ephemeralcontainers") => {
                let mut result = (**old).clone();
                let containers = new.pointer("/spec/ephemeralContainers").cloned();
                if let Some(spec) = result.get_mut("spec") {
                    set_or_remove(spec, "ephemeralContainers", containers);
                }
                result
            }
            Some("scale") => {
                let mut result = (**old).clone();
                let replicas = new
                    .pointer("/spec/replicas")
                    .cloned()
                    .unwrap_or(Value::from(0));
                if let Some(spec) = result.get_mut("spec").and_then(Value::as_object_mut) {
                    spec.insert("replicas".into(), replicas);
                } else if let Some(map) = result.as_object_mut() {
                    map.insert("spec".into(), json!({"replicas": replicas}));
                }
                result
            }
            _ => {
                let mut result = new;
                if def.has_status() {
                    set_or_remove(&mut result, "status", old.get("status").cloned());
                }
                let old_meta = old.get("metadata").and_then(Value::as_object);
                let meta = metadata_mut(&mut result);
                for key in [
                    "uid",
                    "creationTimestamp",
                    "deletionTimestamp",
                    "deletionGracePeriodSeconds",
                    "generation",
                    "name",
                    "namespace",
                ] {
                    match old_meta.and_then(|m| m.get(key)) {
                        Some(value) => meta.insert(key.into(), value.clone()),
                        None => meta.remove(key),
                    };
                }
                result
            }
        };
        if csr::is_csr(def) {
            csr::prepare_update(sub, old, &mut result, sent_status.as_ref());
        }
        match (manager, applied_fields) {
            (Some(manager), _) => {
                Fields::new(catalog, def, sub).updated(old, &mut result, manager);
            }
            (None, Some(fields)) => {
                let meta = metadata_mut(&mut result);
                match fields {
                    Some(fields) => meta.insert("managedFields".into(), fields),
                    None => meta.remove("managedFields"),
                };
            }
            (None, None) => {}
        }
        let strategy = Strategy::in_catalog(catalog, def);
        let allocates = strategy.allocates() && sub.is_none();
        let key = (namespace.to_owned(), name.to_owned());
        if allocates {
            // The values allocated stay; a new type's are allocated, among the others as
            // they are now. The commit checks them again under the lock.
            let others: Vec<Arc<Value>> = {
                let state = self.lock();
                others(&state.objects[index], &key).cloned().collect()
            };
            allocation::allocate(&mut result, Some(old), others.iter().map(|o| &**o))
                .map_err(|errors| Failure::invalid_fields(&def.group, &def.kind, name, errors))?;
        }
        if sub.is_none() {
            strategy.prepare_for_update(old, &mut result);
        }
        validation::validate_update(catalog, def, &result, old, sub)?;
        if csr::is_csr(def) {
            refuse(def, name, csr::validate_update(sub, old, &result))?;
        }
        // PrepareForUpdate's generation; a status update's strategy keeps the stored one.
        let generation = match sub {
            Some("status") => None,
            _ => strategy.generation(old, &result),
        };
        let meta = metadata_mut(&mut result);
        meta.insert(
            "resourceVersion".into(),
            old.pointer("/metadata/resourceVersion")
                .cloned()
                .unwrap_or(Value::Null),
        );
        if let Some(generation) = generation.filter(|g| *g > 0) {
            meta.insert("generation".into(), Value::from(generation));
        }
        let status = StatusCode::OK;
        if result == **old {
            let shown = if sub == Some("scale") {
                scale_of(old)
            } else {
                (**old).clone()
            };
            return Ok(Some((status, shown)));
        }
        if query.dry_run() {
            return Ok(Some((status, result)));
        }
        let finalized = released(catalog, index, &result);
        let mut state = self.lock();
        let current = state.objects[index].get(&key).cloned();
        if current.as_ref().is_none_or(|c| !Arc::ptr_eq(c, old)) {
            return Ok(None);
        }
        // What was allocated outside the lock may have gone to another Service since.
        if allocates && allocation::clashes(&result, others(&state.objects[index], &key)) {
            return Ok(None);
        }
        let rv = state.next_rv();
        metadata_mut(&mut result).insert("resourceVersion".into(), Value::from(rv.to_string()));
        let object = Arc::new(result);
        let work = if finalized {
            state.remove(index, &key, object.clone());
            Work::Removed(index, object.clone())
        } else {
            state.put(index, key.clone(), object.clone(), Some(old.clone()));
            Work::Written(index, key)
        };
        self.settle(&mut state, vec![work]);
        self.notify(state);
        let shown = if sub == Some("scale") {
            scale_of(&object)
        } else {
            (*object).clone()
        };
        Ok(Some((status, shown)))
    }
}

/// The objects of a resource but the one at `key`.
fn others<'a>(
    objects: &'a std::collections::BTreeMap<(String, String), Arc<Value>>,
    key: &'a (String, String),
) -> impl Iterator<Item = &'a Arc<Value>> {
    objects
        .iter()
        .filter(move |(k, _)| *k != key)
        .map(|(_, o)| o)
}

/// The name of the object an apply made must be the one on the URL.
fn same_name(object: &Value, name: &str) -> Result<(), Failure> {
    let found = object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    if found == name {
        Ok(())
    } else {
        Err(Failure::bad_request(format!(
            "the name of the object ({found}) does not match the name on the URL ({name})"
        )))
    }
}

/// A kind's own validation errors, as the 422 `NewInvalid` makes of them.
fn refuse(
    def: &ResourceDef,
    name: &str,
    errors: Vec<kubeforge_runtime::schema::FieldError>,
) -> Result<(), Failure> {
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Failure::invalid_fields(&def.group, &def.kind, name, errors))
    }
}

fn stale(def: &ResourceDef, name: &str) -> Failure {
    Failure::conflict(
        &def.group,
        &def.plural,
        name,
        "the object has been modified; please apply your changes to the latest version and try again",
    )
}

fn set_or_remove(object: &mut Value, key: &str, value: Option<Value>) {
    if let Some(map) = object.as_object_mut() {
        match value {
            Some(value) => map.insert(key.into(), value),
            None => map.remove(key),
        };
    }
}
