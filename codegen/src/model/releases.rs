//! What the model's items make of the releases table (`load/release_set.rs`): each type,
//! field, enum value and operation finds its releases by the schema name, property name and
//! `(path, method)` it was made from.

pub use crate::load::release_set::{Mask, Releases, compare};

use super::{ApiSet, Field, FieldRole, TypeDef, TypeId};

impl ApiSet {
    /// The releases that have type `id` (`None` when the inputs are not releases).
    pub fn type_releases(&self, id: TypeId) -> Option<Mask> {
        let releases = self.releases.as_ref()?;
        Some(releases.schema(&self.get(id).schema_name))
    }

    /// The releases that have the field `field` of type `id`.
    pub fn field_releases(&self, id: TypeId, field: &Field) -> Option<Mask> {
        self.field_mask(self.get(id), field)
    }

    /// The releases that have the field `field` of the type `ty`.
    pub fn field_mask(&self, ty: &TypeDef, field: &Field) -> Option<Mask> {
        let releases = self.releases.as_ref()?;
        if field.role == FieldRole::Extra {
            return Some(releases.schema(&ty.schema_name));
        }
        Some(releases.property(&ty.schema_name, &field.json_name))
    }

    /// The releases that have the value `value` of the enum `id`.
    pub fn value_releases(&self, id: TypeId, value: &str) -> Option<Mask> {
        let releases = self.releases.as_ref()?;
        let ty = self.get(id);
        Some(
            releases
                .value(&ty.schema_name, value)
                .and(releases.schema(&ty.schema_name)),
        )
    }

    /// The releases that have the operation `operation`.
    pub fn operation_releases(&self, operation: &super::operations::Operation) -> Option<Mask> {
        let releases = self.releases.as_ref()?;
        Some(releases.operation(&operation.path.text, operation.method.as_str()))
    }
}
