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
//! collection by owner references; the objects a new cluster has (the `default/kubernetes`
//! Service, each namespace's `default` ServiceAccount and `kube-root-ca.crt`,
//! `componentstatuses`); field selectors on each kind's own field labels; validation with the API server's `Status` and causes,
//! `fieldValidation`, object names by each resource's rule, and a custom resource's
//! defaulting and pruning (see `semantics::validation`); server-side apply and
//! `metadata.managedFields` as structured-merge-diff defines them, merging by the schema's
//! list, map and struct types (see `semantics::apply`).
//!
//! Who may do what: every request is authenticated (a bearer token: the administrator's
//! [`Server::admin_token`], a static user's [`Server::add_user`], a ServiceAccount's from
//! `serviceaccounts/{name}/token`), may impersonate (`Impersonate-User`, as `kubectl --as`
//! sends it) and is authorized by RBAC as the API server does it, with its 401 and 403
//! answers. In process, a request without credentials acts as the administrator unless the
//! `Server` was made for another identity ([`Server::as_user`],
//! [`Server::as_service_account`], [`Server::with_rbac`] from a controller's RBAC manifests,
//! [`Server::as_anonymous`]); over [`serve_tls`] it is `system:anonymous`.
//!
//! The code is in layers, bottom up: `wire`, `objects`, `semantics`, `controllers`, `verbs`,
//! `router`; each imports only from those below it (`tests/layers.rs`, and the architecture
//! page of the guide).

mod controllers;
mod objects;
mod router;
mod semantics;
mod verbs;
mod wire;

pub use controllers::simulation::containers::{Answer, Connection, Exec, ExecHandler, PortHandler};
pub use controllers::simulation::{CONTROL_PLANE, SimulatedNode, Simulation, Usage};
pub use objects::catalog::{
    Catalog, PatchField, PatchSchema, PrinterColumn, ResourceDef, Validator,
};
#[cfg(feature = "model")]
pub use objects::model::LoadError;
pub use router::Server;
pub use router::serve::{kubeconfig, kubeconfig_tls, serve, serve_tls};
pub use semantics::patch::PatchKind;
pub use verbs::Options;
pub use wire::body::Body;
pub use wire::encoding::Protobuf;
pub use wire::status::Failure;
