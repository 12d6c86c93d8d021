//! Sets of field paths (`fieldpath.Set`): a tree whose nodes are path elements, each either a
//! member (the path itself is in the set) or a parent of members, or both; the set algebra
//! field management runs on, and the `FieldsV1` form `metadata.managedFields` stores.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::path::{Element, Path};

/// A set of paths. Children are never empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Set {
    pub(crate) members: BTreeSet<Element>,
    pub(crate) children: BTreeMap<Element, Set>,
}

impl Set {
    pub(crate) fn new() -> Set {
        Set::default()
    }

    /// The set of one path.
    pub(crate) fn of(path: &[Element]) -> Set {
        let mut set = Set::new();
        set.insert(path);
        set
    }

    pub(crate) fn insert(&mut self, path: &[Element]) {
        match path {
            [] => {}
            [last] => {
                self.members.insert(last.clone());
            }
            [first, rest @ ..] => self.children.entry(first.clone()).or_default().insert(rest),
        }
    }

    #[cfg(test)]
    pub(crate) fn has(&self, path: &[Element]) -> bool {
        match path {
            [] => false,
            [last] => self.members.contains(last),
            [first, rest @ ..] => self.children.get(first).is_some_and(|c| c.has(rest)),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.members.is_empty() && self.children.values().all(Set::is_empty)
    }

    /// The paths below `element` (without it).
    pub(crate) fn with_prefix(&self, element: &Element) -> Set {
        self.children.get(element).cloned().unwrap_or_default()
    }

    pub(crate) fn union(&self, other: &Set) -> Set {
        let mut out = self.clone();
        out.members.extend(other.members.iter().cloned());
        for (element, child) in &other.children {
            let merged = match out.children.get(element) {
                Some(mine) => mine.union(child),
                None => child.clone(),
            };
            out.children.insert(element.clone(), merged);
        }
        out
    }

    pub(crate) fn intersection(&self, other: &Set) -> Set {
        let mut out = Set::new();
        out.members = self.members.intersection(&other.members).cloned().collect();
        for (element, child) in &self.children {
            if let Some(theirs) = other.children.get(element) {
                let both = child.intersection(theirs);
                if !both.is_empty() {
                    out.children.insert(element.clone(), both);
                }
            }
        }
        out
    }

    /// The paths of `self` not in `other` (a member of `other` removes only that member).
    pub(crate) fn difference(&self, other: &Set) -> Set {
        let mut out = Set::new();
        out.members = self.members.difference(&other.members).cloned().collect();
        for (element, child) in &self.children {
            let rest = match other.children.get(element) {
                Some(theirs) => child.difference(theirs),
                None => child.clone(),
            };
            if !rest.is_empty() {
                out.children.insert(element.clone(), rest);
            }
        }
        out
    }

    /// The paths of `self` not in `other` nor below a member of `other`.
    pub(crate) fn recursive_difference(&self, other: &Set) -> Set {
        let mut out = Set::new();
        out.members = self.members.difference(&other.members).cloned().collect();
        for (element, child) in &self.children {
            if other.members.contains(element) {
                continue;
            }
            let rest = match other.children.get(element) {
                Some(theirs) => child.recursive_difference(theirs),
                None => child.clone(),
            };
            if !rest.is_empty() {
                out.children.insert(element.clone(), rest);
            }
        }
        out
    }

    /// Every path, members of a node before its children's paths, in element order.
    pub(crate) fn paths(&self) -> Vec<Path> {
        let mut out = Vec::new();
        self.collect(&mut Vec::new(), &mut out);
        out
    }

    fn collect(&self, prefix: &mut Path, out: &mut Vec<Path>) {
        for member in &self.members {
            let mut path = prefix.clone();
            path.push(member.clone());
            out.push(path);
        }
        for (element, child) in &self.children {
            prefix.push(element.clone());
            child.collect(prefix, out);
            prefix.pop();
        }
    }

    /// The `FieldsV1` form: each element a key, `"."` marking a node that is itself a member.
    pub(crate) fn to_fields_v1(&self) -> Value {
        Value::Object(self.contents(false))
    }

    fn contents(&self, include_self: bool) -> Map<String, Value> {
        let mut out = Map::new();
        if include_self && !(self.members.is_empty() && self.children.is_empty()) {
            out.insert(".".into(), Value::Object(Map::new()));
        }
        let mut keys: BTreeSet<&Element> = self.members.iter().collect();
        keys.extend(self.children.keys());
        for element in keys {
            let value = match self.children.get(element) {
                Some(child) => Value::Object(child.contents(self.members.contains(element))),
                None => Value::Object(Map::new()),
            };
            out.insert(element.to_key(), value);
        }
        out
    }

    /// The set a `FieldsV1` value describes.
    pub(crate) fn from_fields_v1(value: &Value) -> Result<Set, String> {
        let Value::Object(map) = value else {
            return Err("fieldsV1 must be a JSON object".to_owned());
        };
        Ok(Set::read(map)?.0)
    }

    /// The node's set, and whether the node is itself a member.
    fn read(map: &Map<String, Value>) -> Result<(Set, bool), String> {
        let mut set = Set::new();
        let mut member = false;
        for (key, value) in map {
            if key == "." {
                member = true;
                continue;
            }
            let Some(element) = Element::from_key(key)? else {
                continue;
            };
            let Value::Object(inner) = value else {
                return Err(format!("{key}: expected an object"));
            };
            let (child, child_member) = Set::read(inner)?;
            if child_member {
                set.members.insert(element.clone());
            }
            if !child.is_empty() {
                set.children.insert(element, child);
            }
        }
        let leaf = set.members.is_empty() && set.children.is_empty();
        Ok((set, member || leaf))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(name: &str) -> Element {
        Element::Field(name.into())
    }

    #[test]
    fn fields_v1_round_trips_with_dot_for_members_that_have_children() {
        let fields = json!({
            "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:name": {}}}},
        });
        let set = Set::from_fields_v1(&fields).unwrap();
        assert!(set.has(&[field("metadata"), field("labels")]));
        assert!(set.has(&[field("metadata"), field("labels"), field("app")]));
        assert!(!set.has(&[field("metadata")]));
        assert_eq!(set.to_fields_v1(), fields);
        assert_eq!(set.paths().len(), 5);
    }

    #[test]
    fn algebra() {
        let a = Set::from_fields_v1(&json!({"f:a": {".": {}, "f:b": {}, "f:c": {}}, "f:d": {}}))
            .unwrap();
        let b = Set::from_fields_v1(&json!({"f:a": {"f:b": {}}, "f:e": {}})).unwrap();
        assert_eq!(
            a.difference(&b).to_fields_v1(),
            json!({"f:a": {".": {}, "f:c": {}}, "f:d": {}})
        );
        assert_eq!(
            a.intersection(&b).to_fields_v1(),
            json!({"f:a": {"f:b": {}}})
        );
        assert_eq!(
            a.union(&b).to_fields_v1(),
            json!({"f:a": {".": {}, "f:b": {}, "f:c": {}}, "f:d": {}, "f:e": {}})
        );
        let top = Set::of(&[field("a")]);
        assert_eq!(
            a.difference(&top).to_fields_v1(),
            json!({"f:a": {"f:b": {}, "f:c": {}}, "f:d": {}})
        );
        assert_eq!(
            a.recursive_difference(&top).to_fields_v1(),
            json!({"f:d": {}})
        );
    }
}
