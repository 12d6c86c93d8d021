//! The objects: what is stored and what is known about it, with no rule about writing it.
//! The store and its history (`store`, `versions`), selectors (`select`), metadata helpers
//! (`meta`), the cluster's certificate authority (`authority`), the field labels each kind
//! can be selected by (`field_labels`), and the catalog of the resources served (`catalog`): their names and
//! built-in facts (`builtin`), their schemas' merge types (`schema`), the catalog read from
//! documents through the generator's model (`model`), and the catalog as discovery
//! (`discovery`) and OpenAPI (`openapi`) documents, and an object's metadata alone
//! (`partial`: `PartialObjectMetadata`). `table` (the Tables of the API
//! server's printers, with `jsonpath`) reads objects by the catalog too.

pub(crate) mod authority;
pub(crate) mod builtin;
pub(crate) mod catalog;
pub(crate) mod clock;
#[cfg(feature = "model")]
pub(crate) mod custom;
pub(crate) mod discovery;
pub(crate) mod field_labels;
pub(crate) mod jsonpath;
pub(crate) mod meta;
#[cfg(feature = "model")]
pub(crate) mod model;
#[cfg(feature = "model")]
pub(crate) mod openapi;
pub(crate) mod partial;
pub(crate) mod schema;
pub(crate) mod select;
pub(crate) mod store;
pub(crate) mod table;
pub(crate) mod versions;
