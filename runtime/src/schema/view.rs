//! A node seen through its `$ref`s: the node first, then the node it refers to, and so on.
//! A keyword the node itself does not say (its `properties`, `items`, `type`, …) comes
//! from the first node of the chain that says it, as siblings of `$ref` add to it.

use super::{Additional, JsonType, ListType, Node, Resolve};

/// How many `$ref`s a chain may follow (a cycle of references ends there).
const MAX_CHAIN: usize = 32;

/// A node and the nodes its `$ref` chain adds, each with the resolver of its own
/// references.
#[derive(Clone)]
pub(crate) struct View<'a> {
    layers: Vec<(&'a Node, &'a dyn Resolve)>,
}

#[cfg_attr(not(feature = "validate"), allow(dead_code))]
impl<'a> View<'a> {
    /// The node and its chain of references.
    pub(crate) fn new(node: &'a Node, resolve: &'a dyn Resolve) -> Self {
        let mut layers = vec![(node, resolve)];
        let (mut node, mut resolve) = (node, resolve);
        while let Some(index) = node.reference {
            if layers.len() >= MAX_CHAIN {
                break;
            }
            match resolve.resolve(index) {
                Some((next, next_resolve)) => {
                    layers.push((next, next_resolve));
                    node = next;
                    resolve = next_resolve;
                }
                None => break,
            }
        }
        Self { layers }
    }

    /// The nodes, the referring one first.
    pub(crate) fn layers(&self) -> &[(&'a Node, &'a dyn Resolve)] {
        &self.layers
    }

    fn first<T>(&self, f: impl Fn(&'a Node) -> Option<T>) -> Option<T> {
        self.layers.iter().find_map(|(n, _)| f(n))
    }

    /// `type`.
    pub(crate) fn ty(&self) -> Option<JsonType> {
        self.first(|n| n.ty)
    }

    /// `nullable` of any layer.
    pub(crate) fn nullable(&self) -> bool {
        self.layers.iter().any(|(n, _)| n.nullable)
    }

    /// `x-kubernetes-int-or-string` of any layer.
    pub(crate) fn int_or_string(&self) -> bool {
        self.layers.iter().any(|(n, _)| n.int_or_string)
    }

    /// `x-kubernetes-preserve-unknown-fields` of any layer.
    pub(crate) fn preserve_unknown_fields(&self) -> bool {
        self.layers.iter().any(|(n, _)| n.preserve_unknown_fields)
    }

    /// `x-kubernetes-embedded-resource` of any layer.
    pub(crate) fn embedded_resource(&self) -> bool {
        self.layers.iter().any(|(n, _)| n.embedded_resource)
    }

    /// `format`.
    pub(crate) fn format(&self) -> Option<&'a str> {
        self.first(|n| n.format.as_deref())
    }

    /// `x-kubernetes-list-type`.
    pub(crate) fn list_type(&self) -> Option<ListType> {
        self.first(|n| n.list_type)
    }

    /// `x-kubernetes-list-map-keys`.
    pub(crate) fn list_map_keys(&self) -> &'a [String] {
        self.first(|n| (!n.list_map_keys.is_empty()).then_some(n.list_map_keys.as_slice()))
            .unwrap_or(&[])
    }

    /// Whether any layer has `properties`.
    pub(crate) fn has_properties(&self) -> bool {
        self.layers.iter().any(|(n, _)| !n.properties.is_empty())
    }

    /// The schema of property `name`, from the first layer that has it.
    pub(crate) fn property(&self, name: &str) -> Option<View<'a>> {
        self.layers
            .iter()
            .find_map(|(n, r)| n.properties.get(name).map(|p| View::new(p, *r)))
    }

    /// Every property of every layer (the first layer's schema for a repeated name).
    pub(crate) fn properties(&self) -> Vec<(&'a str, View<'a>)> {
        let mut out: Vec<(&'a str, View<'a>)> = Vec::new();
        for (n, r) in &self.layers {
            for (name, p) in &n.properties {
                if !out.iter().any(|(k, _)| *k == name.as_str()) {
                    out.push((name.as_str(), View::new(p, *r)));
                }
            }
        }
        out
    }

    /// `additionalProperties`: `Some(Ok(view))` for a schema, `Some(Err(allowed))` for a
    /// boolean, `None` when no layer says.
    pub(crate) fn additional(&self) -> Option<Result<View<'a>, bool>> {
        self.layers
            .iter()
            .find_map(|(n, r)| match n.additional_properties.as_deref() {
                Some(Additional::Schema(s)) => Some(Ok(View::new(s, *r))),
                Some(Additional::Allowed(b)) => Some(Err(*b)),
                None => None,
            })
    }

    /// `items`.
    pub(crate) fn items(&self) -> Option<View<'a>> {
        self.layers
            .iter()
            .find_map(|(n, r)| n.items.as_deref().map(|i| View::new(i, *r)))
    }
}
