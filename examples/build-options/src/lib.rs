//! kubeforge's build.rs options, each visible in the generated code.

use serde::{Deserialize, Serialize};

/// With every option: `HashMap` maps, `ObjectRef` for `ObjectReference`, extra derives and
/// attributes, no docs.
pub mod custom {
    include!(concat!(env!("OUT_DIR"), "/nested/custom.rs"));
}

/// Without builders, routes and docs.
pub mod lean {
    include!(concat!(env!("OUT_DIR"), "/lean.rs"));
}

/// The hand-written type that `io.k8s.api.core.v1.ObjectReference` maps to.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ObjectRef {
    /// The kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}
