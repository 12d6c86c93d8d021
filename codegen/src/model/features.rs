//! One cargo feature per API group, so a user compiles only the groups they enable.
//!
//! A *unit* is a module above its versions (`api::coordination` holds `v1`, `v1beta1`, …).
//! A unit that contains a served resource is gated by a feature named after the resource's
//! API group (`coordination.k8s.io`; `core` for the core group); others (the meta types,
//! `resource.Quantity`, …) are always compiled. A feature enables the features of every unit
//! its types reference, worked out from the type graph; an always-compiled unit that
//! references a gated one makes that one always compiled too, so every combination of
//! features builds.
//!
//! Operations do not add dependencies between features. An operation whose body or
//! responses name a type of another gated group (the `scale` subresource of `apps`
//! resources takes `autoscaling/v1.Scale`, a Pod's `eviction` takes `policy/v1.Eviction`)
//! is compiled only when those groups are on too ([`Features::operations`]): `apps` alone
//! has no `scale` functions, and gains them with `autoscaling`. The route table, the
//! matcher and `Kind::ROUTES` name types only as text, so they describe every endpoint the
//! server has under every feature set.

use std::collections::{BTreeMap, BTreeSet};

use super::operations::ResponseBody;
use super::{ApiSet, Shape, TypeKind};

/// The features of a generated crate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// Gated units: module path → feature name.
    pub units: BTreeMap<Vec<String>, String>,
    /// Feature → the features it enables.
    pub requires: BTreeMap<String, BTreeSet<String>>,
    /// Operation id → every feature its functions need, for the operations whose body or
    /// responses reach beyond what their own module's feature enables (its own feature
    /// included, so the set is the whole condition). Other operations are absent.
    pub operations: BTreeMap<String, BTreeSet<String>>,
}

impl Features {
    /// The features `feature` enables, itself included, transitively.
    pub fn closure(&self, feature: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![feature.to_owned()];
        while let Some(f) = stack.pop() {
            if seen.insert(f.clone()) {
                stack.extend(self.requires.get(&f).into_iter().flatten().cloned());
            }
        }
        seen
    }

    /// The feature of the gated unit `module` belongs to, if any.
    pub fn of_module(&self, module: &[String]) -> Option<&String> {
        self.units.get(&unit_of(module))
    }
}

fn is_version(segment: &str) -> bool {
    let Some(rest) = segment.strip_prefix('v') else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let tail = &rest[digits..];
    tail.is_empty()
        || ["alpha", "beta"].iter().any(|stage| {
            tail.strip_prefix(stage)
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
}

/// The unit a module belongs to: the module without a trailing version segment.
pub fn unit_of(module: &[String]) -> Vec<String> {
    match module.split_last() {
        Some((last, parent)) if is_version(last) && !parent.is_empty() => parent.to_vec(),
        _ => module.to_vec(),
    }
}

fn refs(shape: &Shape, into: &mut Vec<usize>) {
    match shape {
        Shape::Ref(id) => into.push(id.0),
        Shape::Vec(inner) | Shape::Map(inner) | Shape::Nullable(inner) => refs(inner, into),
        _ => {}
    }
}

/// Works out the features of `api`.
pub fn compute(api: &ApiSet) -> Features {
    let unit: Vec<Vec<String>> = api.types.iter().map(|t| unit_of(&t.module)).collect();

    // Unit → the units its types reference.
    let mut edges: BTreeMap<&Vec<String>, BTreeSet<&Vec<String>>> = BTreeMap::new();
    for (i, ty) in api.types.iter().enumerate() {
        let mut targets = Vec::new();
        match &ty.kind {
            TypeKind::Struct(fields) => fields.iter().for_each(|f| refs(&f.shape, &mut targets)),
            TypeKind::Alias(shape) => refs(shape, &mut targets),
            TypeKind::Union(variants) => variants.iter().for_each(|v| refs(&v.shape, &mut targets)),
            TypeKind::WatchEvent { status } => targets.extend(status.map(|s| s.0)),
            TypeKind::Enum(_) | TypeKind::Extern(_) => {}
        }
        let from = edges.entry(&unit[i]).or_default();
        from.extend(
            targets
                .into_iter()
                .map(|t| &unit[t])
                .filter(|u| **u != unit[i]),
        );
    }

    // Gated units and their names; two units of one group share the name.
    let mut gated: BTreeMap<&Vec<String>, String> = BTreeMap::new();
    for (id, resource) in &api.resources {
        let group = if resource.gvk.group.is_empty() {
            "core"
        } else {
            resource.gvk.group.as_str()
        };
        gated.entry(&unit[id.0]).or_insert_with(|| group.to_owned());
    }

    // Whatever an always-compiled unit reaches must be always compiled too.
    let mut always: Vec<&Vec<String>> = edges
        .keys()
        .copied()
        .filter(|u| !gated.contains_key(u))
        .collect();
    let mut seen: BTreeSet<&Vec<String>> = always.iter().copied().collect();
    while let Some(u) = always.pop() {
        for target in edges.get(u).into_iter().flatten() {
            if seen.insert(target) {
                gated.remove(target);
                always.push(target);
            }
        }
    }

    let mut features = Features::default();
    for (u, name) in &gated {
        features.units.insert((*u).clone(), name.clone());
        let requires = features.requires.entry(name.clone()).or_default();
        for target in edges.get(u).into_iter().flatten() {
            if let Some(other) = gated.get(target).filter(|other| *other != name) {
                requires.insert(other.clone());
            }
        }
    }
    features.operations = operation_features(api, &features);
    features
}

/// The operations whose functions need more features than their home module's (see the
/// module docs), with the whole condition of each.
fn operation_features(api: &ApiSet, features: &Features) -> BTreeMap<String, BTreeSet<String>> {
    let mut gated = BTreeMap::new();
    for op in &api.operations {
        // Functions live in the resource's file, or in the always-compiled `routes` module.
        let home = op
            .resource
            .as_ref()
            .and_then(|r| r.id)
            .and_then(|id| features.of_module(&api.get(id).module));
        let enabled = home.map(|f| features.closure(f)).unwrap_or_default();
        let mut shapes: Vec<&Shape> = op.query_params.iter().map(|q| &q.shape).collect();
        shapes.extend(op.body.as_ref().map(|b| &b.shape));
        for response in &op.responses {
            match &response.body {
                ResponseBody::Json(shape)
                | ResponseBody::Watch(shape)
                | ResponseBody::StatusOr(shape) => shapes.push(shape),
                ResponseBody::Empty | ResponseBody::Text => {}
            }
        }
        let mut targets = Vec::new();
        shapes.into_iter().for_each(|s| refs(s, &mut targets));
        let needed: BTreeSet<String> = targets
            .into_iter()
            .filter_map(|t| features.of_module(&api.types[t].module))
            .filter(|f| !enabled.contains(*f))
            .cloned()
            .collect();
        if !needed.is_empty() {
            let all = needed.into_iter().chain(home.cloned()).collect();
            gated.insert(op.id.clone(), all);
        }
    }
    gated
}

#[cfg(test)]
mod tests {
    use super::{is_version, unit_of};

    #[test]
    fn versions_and_units() {
        for v in ["v1", "v2", "v1beta1", "v1alpha3", "v10"] {
            assert!(is_version(v), "{v}");
        }
        for v in ["v", "vx", "v1beta", "version", "v1gamma1", "core"] {
            assert!(!is_version(v), "{v}");
        }
        let m = |s: &str| s.split("::").map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(unit_of(&m("api::coordination::v1")), m("api::coordination"));
        assert_eq!(
            unit_of(&m("apimachinery::pkg::api::resource")),
            m("apimachinery::pkg::api::resource")
        );
        assert_eq!(unit_of(&m("v1")), m("v1"));
    }
}
