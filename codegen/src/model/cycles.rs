//! Breaking cycles of types that contain each other by value. A field is boxed exactly when
//! it refers, directly or through `Option`, to a type in its own strongly connected
//! component of the containment graph; `Vec` and maps already allocate, so edges through
//! them do not count. Found by Tarjan's algorithm (iterative, so hostile depth cannot
//! overflow the stack), never from a hard-coded list.

use super::{Shape, TypeDef, TypeId, TypeKind};
use crate::diagnostics::{Diagnostic, Error, ErrorKind};

/// Marks the fields to box. A cycle made only of aliases (`A = B`, `B = A`) has no
/// representation at all and is an error.
pub(super) fn box_cycles(types: &mut [TypeDef]) -> Result<(), Error> {
    let edges: Vec<Vec<usize>> = types.iter().map(|ty| containment_edges(&ty.kind)).collect();
    let component = strongly_connected_components(&edges);

    // A type alias cannot refer to itself at all, not even through `Vec` or a map, so
    // aliases get a graph of their own: an edge for every type their shape mentions, and no
    // edges out of structs (which can hold themselves through `Box`, `Vec` or a map).
    let alias_edges: Vec<Vec<usize>> = types
        .iter()
        .map(|ty| match &ty.kind {
            TypeKind::Alias(shape) => {
                let mut targets = Vec::new();
                mentioned(shape, &mut targets);
                targets
            }
            _ => Vec::new(),
        })
        .collect();
    let alias_component = strongly_connected_components(&alias_edges);
    for (i, ty) in types.iter().enumerate() {
        let in_cycle = alias_edges[i]
            .iter()
            .any(|&target| alias_component[target] == alias_component[i]);
        if in_cycle {
            let members: Vec<&str> = (0..types.len())
                .filter(|&j| alias_component[j] == alias_component[i])
                .map(|j| types[j].schema_name.as_str())
                .collect();
            return Err(Diagnostic::new(
                ErrorKind::RefCycle,
                &ty.origin,
                format!(
                    "expected a `$ref` cycle to pass through an object schema, but it only passes through {}",
                    members.join(" → ")
                ),
            )
            .with_hint("one of the schemas in the cycle must have properties")
            .into());
        }
    }

    for i in 0..types.len() {
        let own = component[i];
        if let TypeKind::Struct(fields) = &mut types[i].kind {
            for field in fields {
                if let Some(target) = contained(&field.shape) {
                    field.boxed = component[target.0] == own;
                }
            }
        }
    }
    Ok(())
}

/// Every generated type a shape mentions, at any depth.
fn mentioned(shape: &Shape, into: &mut Vec<usize>) {
    match shape {
        Shape::Ref(TypeId(target)) => into.push(*target),
        Shape::Vec(inner) | Shape::Map(inner) | Shape::Nullable(inner) => mentioned(inner, into),
        _ => {}
    }
}

/// The type a field of this shape holds by value (`T`, or `Option<T>` when nullable).
fn contained(shape: &Shape) -> Option<TypeId> {
    match shape {
        Shape::Ref(target) => Some(*target),
        Shape::Nullable(inner) => contained(inner),
        _ => None,
    }
}

/// The types a type contains by value (possibly through `Option`).
fn containment_edges(kind: &TypeKind) -> Vec<usize> {
    match kind {
        TypeKind::Struct(fields) => fields
            .iter()
            .filter_map(|f| contained(&f.shape).map(|TypeId(target)| target))
            .collect(),
        TypeKind::Alias(Shape::Ref(TypeId(target))) => vec![*target],
        _ => Vec::new(),
    }
}

/// Tarjan's algorithm without recursion; returns the component index of every node.
fn strongly_connected_components(edges: &[Vec<usize>]) -> Vec<usize> {
    const UNVISITED: usize = usize::MAX;
    let n = edges.len();
    let mut index = vec![UNVISITED; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![UNVISITED; n];
    let mut stack = Vec::new();
    let mut next_index = 0;
    let mut next_component = 0;

    for root in 0..n {
        if index[root] != UNVISITED {
            continue;
        }
        // Each frame is a node and the position of the next edge to explore.
        let mut frames: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;

        while let Some(&mut (node, ref mut edge)) = frames.last_mut() {
            if let Some(&target) = edges[node].get(*edge) {
                *edge += 1;
                if index[target] == UNVISITED {
                    index[target] = next_index;
                    low[target] = next_index;
                    next_index += 1;
                    stack.push(target);
                    on_stack[target] = true;
                    frames.push((target, 0));
                } else if on_stack[target] {
                    low[node] = low[node].min(index[target]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == index[node] {
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component[member] = next_component;
                    if member == node {
                        break;
                    }
                }
                next_component += 1;
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::strongly_connected_components;

    #[test]
    fn components() {
        // 0 → 1 → 2 → 0, 3 → 3, 4 → 0
        let edges = vec![vec![1], vec![2], vec![0], vec![3], vec![0]];
        let c = strongly_connected_components(&edges);
        assert_eq!(c[0], c[1]);
        assert_eq!(c[1], c[2]);
        assert_ne!(c[3], c[0]);
        assert_ne!(c[4], c[0]);
        assert_ne!(c[4], c[3]);
    }
}
