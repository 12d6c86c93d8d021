//! The keys of an object that are not among its struct's properties, kept in order.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// The entries of a JSON object that its struct has no field for, in the order they were
/// read or inserted, with values of type `T`.
///
/// Generated structs hold one of these where the schema admits keys beyond its properties
/// (`additionalProperties`, `patternProperties`, `x-kubernetes-preserve-unknown-fields`)
/// and, unless the generator was told to drop them, for the fields a newer server sends
/// that the type does not know ([`UnknownFields`]). Their generated `Deserialize` impl
/// fills it with every key that is not a property; `Serialize` writes the entries back
/// after the properties, in order, so a read-modify-write deletes nothing.
///
/// Keys are unique: [`insert`](Self::insert) replaces the value of a key already present
/// and keeps its position. A key that names one of the struct's properties must not be
/// inserted: the object would then be written with that key twice.
///
/// One pointer wide whatever the features, and allocation-free until the first entry: every
/// generated struct carries one, nested structs inline, and almost all of them stay empty, so
/// their size and the cost of an empty one are part of every object's (de)serialization. The
/// JSON entries and (with the `protobuf` feature) the protobuf fields kept share one box.
#[derive(Clone)]
pub struct ExtraFields<T> {
    /// `None` when there is nothing kept; never `Some` of an empty [`Kept`].
    kept: Option<Box<Kept<T>>>,
}

/// What an [`ExtraFields`] keeps, behind its one pointer.
#[derive(Clone)]
struct Kept<T> {
    /// The JSON entries, in order.
    entries: Vec<(String, T)>,
    /// The protobuf fields the struct does not know, key and value as read, in order
    /// (`protobuf` feature).
    #[cfg(feature = "protobuf")]
    protobuf: Vec<u8>,
}

impl<T> Kept<T> {
    fn is_empty(&self) -> bool {
        #[cfg(feature = "protobuf")]
        if !self.protobuf.is_empty() {
            return false;
        }
        self.entries.is_empty()
    }
}

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept {
            entries: Vec::new(),
            #[cfg(feature = "protobuf")]
            protobuf: Vec::new(),
        }
    }
}

/// Fields unknown to the generated type, as JSON: what a newer server sends, or what a
/// schema with `x-kubernetes-preserve-unknown-fields` admits.
pub type UnknownFields = ExtraFields<serde_json::Value>;

impl<T> ExtraFields<T> {
    /// No entries.
    #[must_use]
    pub const fn new() -> Self {
        Self { kept: None }
    }

    /// The protobuf fields kept (keys and values, as read), empty when there are none.
    #[cfg(feature = "protobuf")]
    #[must_use]
    pub fn protobuf_unknown(&self) -> &[u8] {
        self.kept
            .as_deref()
            .map_or(&[], |kept| kept.protobuf.as_slice())
    }

    /// Keeps one more protobuf field (its key and value) to write back after the known
    /// ones.
    #[cfg(feature = "protobuf")]
    pub fn push_protobuf_unknown(&mut self, field: &[u8]) {
        if !field.is_empty() {
            self.kept
                .get_or_insert_with(Box::default)
                .protobuf
                .extend_from_slice(field);
        }
    }

    /// The entries in order, as a slice.
    fn entries(&self) -> &[(String, T)] {
        self.kept
            .as_deref()
            .map_or(&[], |kept| kept.entries.as_slice())
    }

    /// The number of entries.
    #[must_use]
    #[inline]
    pub fn len(&self) -> usize {
        self.entries().len()
    }

    /// Whether there are no entries.
    #[must_use]
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries().is_empty()
    }

    /// The value under `key`.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&T> {
        self.entries()
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// The value under `key`, to change it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut T> {
        self.kept
            .as_deref_mut()?
            .entries
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// Sets `key` to `value`: in place when the key is present (the old value is returned),
    /// at the end otherwise.
    pub fn insert(&mut self, key: impl Into<String>, value: T) -> Option<T> {
        let key = key.into();
        match self.get_mut(&key) {
            Some(slot) => Some(std::mem::replace(slot, value)),
            None => {
                let kept = self.kept.get_or_insert_with(Box::default);
                kept.entries.push((key, value));
                None
            }
        }
    }

    /// Removes `key`, keeping the order of the rest.
    pub fn remove(&mut self, key: &str) -> Option<T> {
        let kept = self.kept.as_deref_mut()?;
        let index = kept.entries.iter().position(|(k, _)| k == key)?;
        let (_, value) = kept.entries.remove(index);
        if kept.is_empty() {
            self.kept = None;
        }
        Some(value)
    }

    /// The entries in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &T)> {
        self.entries().iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> {
        self.entries().iter().map(|(k, _)| k.as_str())
    }
}

impl<T: PartialEq> PartialEq for ExtraFields<T> {
    fn eq(&self, other: &Self) -> bool {
        #[cfg(feature = "protobuf")]
        if self.protobuf_unknown() != other.protobuf_unknown() {
            return false;
        }
        self.entries() == other.entries()
    }
}

impl<T: Eq> Eq for ExtraFields<T> {}

impl<T: Hash> Hash for ExtraFields<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.entries().hash(state);
    }
}

impl<T> Default for ExtraFields<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: fmt::Debug> fmt::Debug for ExtraFields<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Into<String>, T> FromIterator<(K, T)> for ExtraFields<T> {
    fn from_iter<I: IntoIterator<Item = (K, T)>>(iter: I) -> Self {
        let mut fields = Self::new();
        fields.extend(iter);
        fields
    }
}

impl<K: Into<String>, T> Extend<(K, T)> for ExtraFields<T> {
    fn extend<I: IntoIterator<Item = (K, T)>>(&mut self, iter: I) {
        for (key, value) in iter {
            self.insert(key, value);
        }
    }
}

impl<T> IntoIterator for ExtraFields<T> {
    type Item = (String, T);
    type IntoIter = std::vec::IntoIter<(String, T)>;

    fn into_iter(self) -> Self::IntoIter {
        self.kept
            .map(|kept| kept.entries)
            .unwrap_or_default()
            .into_iter()
    }
}

impl<'a, T> IntoIterator for &'a ExtraFields<T> {
    type Item = (&'a str, &'a T);
    type IntoIter =
        std::iter::Map<std::slice::Iter<'a, (String, T)>, fn(&'a (String, T)) -> (&'a str, &'a T)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries().iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// Written as a JSON object, in order (on its own; inside a generated struct the entries
/// are written as the struct's own keys).
impl<T: Serialize> Serialize for ExtraFields<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (key, value) in self {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// Read from a JSON object, in order; a repeated key keeps its first position and its
/// last value (as `serde_json::Value` does).
impl<'de, T: Deserialize<'de>> Deserialize<'de> for ExtraFields<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor<T>(PhantomData<fn() -> T>);

        impl<'de, T: Deserialize<'de>> Visitor<'de> for EntriesVisitor<T> {
            type Value = ExtraFields<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut fields = ExtraFields::new();
                while let Some((key, value)) = map.next_entry::<String, T>()? {
                    fields.insert(key, value);
                }
                Ok(fields)
            }
        }

        deserializer.deserialize_map(EntriesVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_replaces_in_place() {
        let mut fields: UnknownFields =
            serde_json::from_str(r#"{"z":1,"a":{"b":[true,null]},"m":"x"}"#).unwrap();
        assert_eq!(fields.keys().collect::<Vec<_>>(), ["z", "a", "m"]);
        assert_eq!(
            fields.insert("a", 2.into()),
            Some(serde_json::json!({"b":[true,null]}))
        );
        fields.insert("b", 3.into());
        assert_eq!(
            serde_json::to_string(&fields).unwrap(),
            r#"{"z":1,"a":2,"m":"x","b":3}"#
        );
        assert_eq!(fields.remove("z"), Some(1.into()));
        assert_eq!(fields.keys().collect::<Vec<_>>(), ["a", "m", "b"]);
    }

    #[test]
    fn one_pointer_wide_and_emptied_by_removal() {
        // One word with the `protobuf` feature too: the protobuf fields share the box.
        assert_eq!(
            std::mem::size_of::<UnknownFields>(),
            std::mem::size_of::<usize>()
        );
        let mut fields: UnknownFields = [("a", 1.into())].into_iter().collect();
        assert_ne!(fields, UnknownFields::new());
        assert_eq!(fields.remove("a"), Some(1.into()));
        // Emptied by removal, it is the same as a new one, and as a new one's hash.
        assert!(fields.is_empty());
        assert_eq!(fields, UnknownFields::new());
        let state = std::collections::hash_map::RandomState::new();
        assert_eq!(
            std::hash::BuildHasher::hash_one(&state, &fields),
            std::hash::BuildHasher::hash_one(&state, UnknownFields::new())
        );
        assert_eq!(fields.len(), 0);
        assert_eq!(fields.into_iter().count(), 0);
    }

    #[cfg(feature = "protobuf")]
    #[test]
    fn protobuf_fields_and_json_entries_are_kept_apart_in_one_box() {
        let mut fields: UnknownFields = [("a", 1.into())].into_iter().collect();
        fields.push_protobuf_unknown(&[0x98, 0x06, 0x01]);
        fields.push_protobuf_unknown(&[]);
        fields.push_protobuf_unknown(&[0xa0, 0x06, 0x02]);
        assert_eq!(
            fields.protobuf_unknown(),
            [0x98, 0x06, 0x01, 0xa0, 0x06, 0x02]
        );
        // Removing the last JSON entry keeps the protobuf fields, and the other way round.
        assert_eq!(fields.remove("a"), Some(1.into()));
        assert!(fields.is_empty());
        assert_eq!(fields.len(), 0);
        assert_eq!(fields.protobuf_unknown().len(), 6);
        assert_ne!(fields, UnknownFields::new());
        let mut only_json: UnknownFields = UnknownFields::new();
        only_json.push_protobuf_unknown(&[]);
        assert!(only_json.protobuf_unknown().is_empty());
        assert_eq!(only_json, UnknownFields::new());
        only_json.insert("b", 2.into());
        assert!(only_json.protobuf_unknown().is_empty());
        assert_eq!(serde_json::to_string(&only_json).unwrap(), r#"{"b":2}"#);
        let clone = fields.clone();
        assert_eq!(clone.protobuf_unknown(), fields.protobuf_unknown());
    }
}
