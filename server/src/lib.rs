//! An in-memory Kubernetes-style API server for any API kubeforge generates.
//!
//! The server learns an API from a [`Catalog`]: the resources of a generated crate's route
//! table ([`Catalog::from_routes`]`(routes::ROUTES)`, with [`Catalog::typed`] for each kind
//! whose bodies it should check by decoding into the generated type), or the input
//! documents through the generator's model (`Catalog::from_documents`, feature `model`,
//! which also validates, defaults and prunes every write with the schemas as the API server
//! does, knows the strategic merge patch metadata and serves the documents at
//! `/openapi/v3`).
//!
//! [`Server`] is a `tower::Service<http::Request<B>>`, so `kube::Client::new(server,
//! "default")` talks to it with no socket; [`serve`] puts it on a loopback port for
//! `kubectl` (the `kubeforge-server` binary does that).
//!
//! Semantics follow the Kubernetes API concepts and conventions: discovery (with the
//! built-in resources' short names and categories), create, get, list (selectors, paging,
//! `resourceVersionMatch`), update with optimistic concurrency, JSON, merge and strategic
//! merge patches, `status` and `scale` subresources, finalizers, delete and
//! deletecollection, and watches with bookmarks, `sendInitialEvents` and 410 Gone from a
//! bounded history; Tables with the API server's printers' columns; Kubernetes' protobuf
//! encoding for the built-in kinds (feature `protobuf`); namespaces as objects and garbage
//! collection by owner references; validation with the API server's `Status` and causes,
//! `fieldValidation`, object names by each resource's rule, and a custom resource's
//! defaulting and pruning (see `validation`); server-side apply and `metadata.managedFields` as
//! structured-merge-diff defines them, merging by the schema's list, map and struct types
//! (see `apply`).

mod apply;
mod body;
mod builtin;
mod builtin_defaults;
mod catalog;
mod controllers;
mod discovery;
mod encoding;
mod gc;
mod jsonpath;
mod media;
#[cfg(feature = "model")]
mod model;
mod namespaces;
mod object_names;
#[cfg(feature = "model")]
mod openapi;
mod patch;
#[cfg(feature = "protobuf")]
mod protobuf;
mod select;
mod serve;
mod server;
mod service;
mod status;
mod store;
mod table;
mod validation;
mod versions;
mod watch;

pub use body::Body;
pub use catalog::{Catalog, PatchField, PatchSchema, PrinterColumn, ResourceDef, Validator};
#[cfg(feature = "model")]
pub use model::LoadError;
pub use patch::PatchKind;
pub use serve::{kubeconfig, serve};
pub use server::{Options, Server};
pub use status::Failure;
