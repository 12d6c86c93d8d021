//! Kubernetes types whose schema alone does not say what they are. Each entry is a named
//! special case with its reason; everything else is mapped by the general rules in
//! `schema.rs`.

use super::{RuntimeType, Shape};

/// What a well-known schema becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WellKnown {
    /// A type from the runtime crate.
    Runtime(RuntimeType),
    /// The generic `WatchEvent<T>`.
    WatchEvent,
}

/// The schema name of `meta/v1.Status`, the body of error responses and error watch events.
pub(crate) const STATUS: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";

const TABLE: &[(&str, WellKnown)] = &[
    // `type: string, format: date-time`, like MicroTime: only the name tells the wire
    // precision apart (seconds here, microseconds there).
    (
        "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
        WellKnown::Runtime(RuntimeType::Time),
    ),
    (
        "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
        WellKnown::Runtime(RuntimeType::MicroTime),
    ),
    // A plain `type: string` in the schema, but servers and users also write JSON numbers.
    (
        "io.k8s.apimachinery.pkg.api.resource.Quantity",
        WellKnown::Runtime(RuntimeType::Quantity),
    ),
    // Also recognised by `format: int-or-string` anywhere; listed so the named schema
    // becomes an alias even where an input omits the format.
    (
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
        WellKnown::Runtime(RuntimeType::IntOrString),
    ),
    // The schema says `object: RawExtension`; the object's real type depends on the watched
    // resource, so the Rust type is generic over it.
    (
        "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
        WellKnown::WatchEvent,
    ),
];

/// The runtime type `schema_name` names, as a shape that lives forever (for
/// `builders::resolve`, which hands out borrowed shapes).
pub(crate) fn runtime_shape(schema_name: &str) -> Option<&'static Shape> {
    static SHAPES: [Shape; 4] = [
        Shape::Runtime(RuntimeType::Time),
        Shape::Runtime(RuntimeType::MicroTime),
        Shape::Runtime(RuntimeType::Quantity),
        Shape::Runtime(RuntimeType::IntOrString),
    ];
    match lookup(schema_name)? {
        WellKnown::Runtime(runtime) => SHAPES
            .iter()
            .find(|shape| matches!(shape, Shape::Runtime(r) if *r == runtime)),
        WellKnown::WatchEvent => None,
    }
}

/// The special meaning of `schema_name`, if it has one.
pub(crate) fn lookup(schema_name: &str) -> Option<WellKnown> {
    TABLE
        .iter()
        .find(|(name, _)| *name == schema_name)
        .map(|(_, known)| *known)
}
