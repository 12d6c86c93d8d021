//! Which release has what, when the inputs are several releases of one API
//! (`Config::release_input`, `--releases`): decided once, while merging the releases'
//! documents (`releases.rs`), and read by every later stage through [`Releases`] (the
//! model's items find theirs with `model/releases.rs`).
//!
//! A [`Mask`] is a set of releases, by their place in [`Releases::names`] (oldest first).
//! Every schema, property, string enum value and operation of the merged input has one; the
//! model's types, fields, variants, resources and operations find theirs by the schema name,
//! property name and `(path, method)` they were made from.

use std::collections::BTreeMap;

/// A set of releases: bit `i` is [`Releases::names`]`[i]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mask(pub u64);

impl Mask {
    /// The set of the one release at `index`.
    pub fn one(index: usize) -> Mask {
        Mask(1 << index)
    }

    /// Whether the release at `index` is in the set.
    pub fn has(self, index: usize) -> bool {
        self.0 & (1 << index) != 0
    }

    /// The union.
    #[must_use]
    pub fn with(self, other: Mask) -> Mask {
        Mask(self.0 | other.0)
    }

    /// The intersection.
    #[must_use]
    pub fn and(self, other: Mask) -> Mask {
        Mask(self.0 & other.0)
    }

    /// Whether no release is in the set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The places of the releases in the set, oldest first.
    pub fn indices(self, count: usize) -> impl Iterator<Item = usize> {
        (0..count).filter(move |&i| self.has(i))
    }
}

/// The releases of the merged input and what each has (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct Releases {
    /// The release names, oldest first (`1.32`, `1.33`, …).
    pub names: Vec<String>,
    /// Each schema's releases, by schema name.
    pub schemas: BTreeMap<String, Mask>,
    /// Each property's releases, by schema name and property name.
    pub properties: BTreeMap<(String, String), Mask>,
    /// Each string enum value's releases, by the enum's schema name (a property's enum: the
    /// schema name, `.`, the property name, as the model names the nested type) and value.
    pub values: BTreeMap<(String, String), Mask>,
    /// Each operation's releases, by path template and upper-case method.
    pub operations: BTreeMap<(String, String), Mask>,
}

impl Releases {
    /// Every release.
    pub fn all(&self) -> Mask {
        Mask((1u64 << self.names.len()) - 1)
    }

    /// The place of the release named `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The names of the releases in `mask`, oldest first.
    pub fn names_of(&self, mask: Mask) -> Vec<&str> {
        mask.indices(self.names.len())
            .map(|i| self.names[i].as_str())
            .collect()
    }

    /// The releases of the schema `name` (every release when the table does not know it: a
    /// built-in meta type filled in, a nested type).
    pub fn schema(&self, name: &str) -> Mask {
        self.schemas.get(name).copied().unwrap_or(self.all())
    }

    /// The releases of the property `property` of the schema `schema`, within the schema's.
    pub fn property(&self, schema: &str, property: &str) -> Mask {
        self.properties
            .get(&(schema.to_owned(), property.to_owned()))
            .copied()
            .unwrap_or(self.all())
            .and(self.schema(schema))
    }

    /// The releases of the enum value `value` of the enum made from `schema`.
    pub fn value(&self, schema: &str, value: &str) -> Mask {
        self.values
            .get(&(schema.to_owned(), value.to_owned()))
            .copied()
            .unwrap_or(self.all())
    }

    /// The releases of the operation `method path`.
    pub fn operation(&self, path: &str, method: &str) -> Mask {
        self.operations
            .get(&(path.to_owned(), method.to_uppercase()))
            .copied()
            .unwrap_or(self.all())
    }

    /// The release that first has what `mask` holds, when that is not the oldest: "Since
    /// Kubernetes 1.33.".
    pub fn since(&self, mask: Mask) -> Option<&str> {
        let first = mask.indices(self.names.len()).next()?;
        (first > 0).then(|| self.names[first].as_str())
    }

    /// The first release after the last that has what `mask` holds, when that is not past
    /// the newest: "Removed in Kubernetes 1.35.".
    pub fn removed_in(&self, mask: Mask) -> Option<&str> {
        let last = mask.indices(self.names.len()).last()?;
        self.names.get(last + 1).map(String::as_str)
    }

    /// The rustdoc sentences saying when what `mask` holds came and went, if it did not
    /// always exist: `Since Kubernetes 1.33.`, `Removed in Kubernetes 1.35.`, and, for a
    /// set with a gap, the releases that have it.
    pub fn doc_line(&self, mask: Mask) -> Option<String> {
        if mask == self.all() || mask.is_empty() {
            return None;
        }
        let indices: Vec<usize> = mask.indices(self.names.len()).collect();
        let contiguous = indices.windows(2).all(|w| w[1] == w[0] + 1);
        if !contiguous {
            return Some(format!(
                "Only in Kubernetes {}.",
                self.names_of(mask).join(", ")
            ));
        }
        let mut sentences = Vec::new();
        if let Some(since) = self.since(mask) {
            sentences.push(format!("Since Kubernetes {since}."));
        }
        if let Some(removed) = self.removed_in(mask) {
            sentences.push(format!("Removed in Kubernetes {removed}."));
        }
        Some(sentences.join(" "))
    }
}

/// Orders release names as versions (`1.9` before `1.10`): each dot-separated part compared
/// as a number where both are numbers, else as text.
pub fn compare(a: &str, b: &str) -> std::cmp::Ordering {
    let mut left = a.split('.');
    let mut right = b.split('.');
    loop {
        match (left.next(), right.next()) {
            (None, None) => return std::cmp::Ordering::Equal,
            (None, Some(_)) => return std::cmp::Ordering::Less,
            (Some(_), None) => return std::cmp::Ordering::Greater,
            (Some(x), Some(y)) => {
                let order = match (x.parse::<u64>(), y.parse::<u64>()) {
                    (Ok(x), Ok(y)) => x.cmp(&y),
                    _ => x.cmp(y),
                };
                if order.is_ne() {
                    return order;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn five() -> Releases {
        Releases {
            names: ["1.32", "1.33", "1.34", "1.35", "1.36"]
                .map(str::to_owned)
                .to_vec(),
            ..Releases::default()
        }
    }

    #[test]
    fn doc_lines_say_when_an_item_came_and_went() {
        let r = five();
        assert_eq!(r.doc_line(r.all()), None);
        assert_eq!(
            r.doc_line(Mask(0b11110)).as_deref(),
            Some("Since Kubernetes 1.33.")
        );
        assert_eq!(
            r.doc_line(Mask(0b00111)).as_deref(),
            Some("Removed in Kubernetes 1.35.")
        );
        assert_eq!(
            r.doc_line(Mask(0b01000)).as_deref(),
            Some("Since Kubernetes 1.35. Removed in Kubernetes 1.36.")
        );
        assert_eq!(
            r.doc_line(Mask(0b10001)).as_deref(),
            Some("Only in Kubernetes 1.32, 1.36.")
        );
    }

    #[test]
    fn versions_order_by_number() {
        assert!(compare("1.9", "1.10").is_lt());
        assert!(compare("1.32", "1.32").is_eq());
        assert!(compare("1.36", "1.32").is_gt());
    }
}
