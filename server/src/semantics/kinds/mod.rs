//! The built-in kinds' hand-written Go validation that their schemas cannot say, one module
//! per family of kinds, each rule with the Go function it comes from and the API server's
//! messages and field paths: Pods and the pod spec every template shares (`pods`),
//! Services (`services`), ConfigMaps and Secrets (`config`), the apps/v1 workloads
//! (`workloads`), Jobs and CronJobs (`jobs`, with the schedule's parser in `cron`), RBAC
//! (`rbac`), Ingresses (`ingress`), Namespaces (here). What they share is in `common`.
//!
//! Run after the metadata's checks, on create and on update (with the stored object), as
//! each kind's `Validate<Kind>` and `Validate<Kind>Update` and its strategy's
//! `ValidateUpdate` run. Where a rule here reports a field, what the kind's schema says
//! about the same field (or one inside it, or around it) is the schema's approximation of
//! this rule and is dropped ([`replaces`]): `spec.containers[1].name: Duplicate value: "a"`
//! rather than the list-map's `spec.containers[1]: Duplicate value: map[…]`.

mod common;
mod config;
mod cron;
mod ingress;
mod jobs;
mod pods;
mod rbac;
mod services;
mod workloads;

use kubeforge_runtime::schema::{BadValue, FieldError, names};
use serde_json::Value;

use crate::objects::catalog::ResourceDef;
use workloads::Workload;

/// The errors of the hand-written rules for an object of `def`'s kind, created (`old`
/// `None`) or updated from `old` through the main resource (`sub` `None`) or a subresource.
pub(crate) fn errors(
    def: &ResourceDef,
    object: &Value,
    old: Option<&Value>,
    sub: Option<&str>,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let e = &mut errors;
    match (def.group.as_str(), def.plural.as_str()) {
        ("", "pods") => pods::pod(object, old, sub, e),
        ("", "services") => services::service(object, old, e),
        ("", "configmaps") => config::config_map(object, old, e),
        ("", "secrets") => config::secret(object, old, e),
        ("", "namespaces") => namespace(object, e),
        ("apps", "deployments") => workloads::workload(Workload::Deployment, object, old, e),
        ("apps", "replicasets") => workloads::workload(Workload::ReplicaSet, object, old, e),
        ("apps", "statefulsets") => workloads::workload(Workload::StatefulSet, object, old, e),
        ("apps", "daemonsets") => workloads::workload(Workload::DaemonSet, object, old, e),
        ("batch", "jobs") => jobs::job(object, old, e),
        ("batch", "cronjobs") => jobs::cronjob(object, old, e),
        ("rbac.authorization.k8s.io", "roles") => rbac::role(object, true, e),
        ("rbac.authorization.k8s.io", "clusterroles") => rbac::role(object, false, e),
        ("rbac.authorization.k8s.io", "rolebindings") => rbac::binding(object, old, true, e),
        ("rbac.authorization.k8s.io", "clusterrolebindings") => {
            rbac::binding(object, old, false, e);
        }
        ("networking.k8s.io", "ingresses") => ingress::ingress(object, e),
        _ => {}
    }
    errors
}

/// Whether one of the hand-written `own` errors stands for the schema's error `schema`: it
/// is about the same field, one inside it or one around it.
pub(crate) fn replaces(own: &[FieldError], schema: &FieldError) -> bool {
    own.iter()
        .any(|e| related(&e.field, &schema.field) || related(&schema.field, &e.field))
}

/// `inner` is `outer` or a field inside it (`outer.x`, `outer[0]`).
fn related(inner: &str, outer: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}

/// `ValidateNamespace`'s `spec.finalizers`: each a qualified name, and one without a
/// domain only `kubernetes` (`validateFinalizerName`, `IsStandardFinalizerName`).
fn namespace(object: &Value, errors: &mut Vec<FieldError>) {
    let finalizers = object
        .pointer("/spec/finalizers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    for finalizer in finalizers {
        let field = "spec.finalizers";
        for message in names::is_qualified_name(finalizer) {
            errors.push(FieldError::invalid(
                field,
                BadValue::from(finalizer),
                message,
            ));
        }
        if !finalizer.contains('/')
            && !matches!(finalizer, "kubernetes" | "orphan" | "foregroundDeletion")
        {
            errors.push(FieldError::invalid(
                field,
                BadValue::from(finalizer),
                "name is neither a standard finalizer name nor is it fully qualified",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_replaces_the_schema_errors_of_its_field() {
        let own = [FieldError::required("spec.containers[1].name", "")];
        let schema = |f: &str| FieldError::required(f, "");
        assert!(replaces(&own, &schema("spec.containers[1]")));
        assert!(replaces(&own, &schema("spec.containers[1].name")));
        assert!(!replaces(&own, &schema("spec.containers[10]")));
        assert!(!replaces(&own, &schema("spec.volumes")));
    }
}
