//! Apply conflicts as the API server reports them (apimachinery's
//! `managedfields/internal/conflict.go`): 409 `Conflict`, a message naming each field and its
//! manager, and one `FieldManagerConflict` cause per field.

use serde_json::{Value, json};

use super::managed::parse_identifier;
use super::path;
use super::updater::Conflicts;
use crate::wire::status::Failure;
use kubeforge_runtime::schema::gofmt::quote;

/// A manager as conflicts name it: `"kubectl"`, `"kubelet" with subresource "status"`, or
/// for an updater `"kubectl-client-side-apply" using apps/v1`.
fn print_manager(id: &str) -> String {
    let Some(identity) = parse_identifier(id) else {
        return quote(id);
    };
    let mut text = quote(&identity.manager);
    if !identity.subresource.is_empty() {
        text = format!("{text} with subresource {}", quote(&identity.subresource));
    }
    if identity.operation == "Update" {
        text = format!("{text} using {}", identity.api_version);
    }
    text
}

/// The 409 of an apply's conflicts.
pub(crate) fn failure(conflicts: &Conflicts) -> Failure {
    let mut all: Vec<(&String, String)> = Vec::new();
    for (manager, set) in conflicts {
        for p in set.paths() {
            all.push((manager, path::display(&p)));
        }
    }
    let message = match all.as_slice() {
        [(manager, field)] => format!(
            "Apply failed with 1 conflict: conflict with {}: {field}",
            print_manager(manager)
        ),
        _ => {
            // Grouped by manager, managers sorted (by identifier, as the server sorts them).
            let mut lines = Vec::new();
            for (manager, set) in conflicts {
                lines.push(format!("conflicts with {}:", print_manager(manager)));
                lines.extend(
                    set.paths()
                        .iter()
                        .map(|p| format!("- {}", path::display(p))),
                );
            }
            format!(
                "Apply failed with {} conflicts: {}",
                all.len(),
                lines.join("\n")
            )
        }
    };
    let causes: Vec<Value> = all
        .iter()
        .map(|(manager, field)| {
            json!({
                "reason": "FieldManagerConflict",
                "message": format!("conflict with {}", print_manager(manager)),
                "field": field,
            })
        })
        .collect();
    Failure {
        code: 409,
        reason: "Conflict",
        message,
        details: Some(json!({ "causes": causes })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantics::apply::managed::identifier;
    use crate::semantics::apply::path::Element;
    use crate::semantics::apply::set::Set;

    fn path(names: &[&str]) -> Vec<Element> {
        names.iter().map(|n| Element::Field((*n).into())).collect()
    }

    #[test]
    fn one_conflict_reads_as_the_api_servers() {
        let mut conflicts = Conflicts::new();
        conflicts.insert(
            identifier("kubectl-client-side-apply", "Update", "apps/v1", ""),
            Set::of(&path(&["spec", "replicas"])),
        );
        let failure = failure(&conflicts);
        assert_eq!(
            failure.message,
            r#"Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas"#
        );
        assert_eq!(
            failure.details.unwrap()["causes"],
            json!([{"reason": "FieldManagerConflict", "message": "conflict with \"kubectl-client-side-apply\" using apps/v1", "field": ".spec.replicas"}])
        );
    }

    #[test]
    fn several_conflicts_are_grouped_by_manager() {
        let mut conflicts = Conflicts::new();
        let mut set = Set::of(&path(&["data", "a"]));
        set.insert(&path(&["data", "b"]));
        conflicts.insert(identifier("alice", "Apply", "", ""), set);
        conflicts.insert(
            identifier("kubelet", "Update", "v1", "status"),
            Set::of(&path(&["status", "phase"])),
        );
        assert_eq!(
            failure(&conflicts).message,
            "Apply failed with 3 conflicts: conflicts with \"alice\":\n- .data.a\n- .data.b\nconflicts with \"kubelet\" with subresource \"status\" using v1:\n- .status.phase"
        );
    }
}
