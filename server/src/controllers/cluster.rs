//! What the cluster's own controllers know beyond the store: the certificate authority
//! they publish and the address the API server is reached on; and whether a namespace is
//! one they may create in.

use std::net::SocketAddr;
use std::sync::Mutex;

use crate::objects::authority::Authority;
use crate::objects::catalog::Catalog;
use crate::objects::store::State;
use crate::semantics::namespaces::index as namespaces_index;

/// What the cluster's own controllers know beyond the store: the certificate authority
/// they publish, and the address the API server is reached on.
#[derive(Debug)]
pub(crate) struct Cluster {
    pub(crate) authority: Authority,
    endpoint: Mutex<SocketAddr>,
}

impl Cluster {
    /// A cluster with `authority`, reached on `endpoint` until [`Cluster::advertise`] says
    /// otherwise.
    pub(crate) fn new(authority: Authority, endpoint: SocketAddr) -> Cluster {
        Cluster {
            authority,
            endpoint: Mutex::new(endpoint),
        }
    }

    /// The address the API server is reached on, as its endpoints publish it.
    pub(crate) fn endpoint(&self) -> (String, u16) {
        let address = *self
            .endpoint
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        (address.ip().to_string(), address.port())
    }

    /// The server is now reached on `address`.
    pub(crate) fn advertise(&self, address: SocketAddr) {
        *self
            .endpoint
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = address;
    }
}

/// Whether `namespace` exists and is not being deleted (where the `NamespaceLifecycle`
/// admission plugin lets a controller create); every namespace is, when the API does not
/// serve namespaces.
pub(crate) fn active_namespace(state: &State, catalog: &Catalog, namespace: &str) -> bool {
    let Some(index) = namespaces_index(catalog) else {
        return true;
    };
    state.objects[index]
        .get(&(String::new(), namespace.to_owned()))
        .is_some_and(|ns| ns.pointer("/metadata/deletionTimestamp").is_none())
}
