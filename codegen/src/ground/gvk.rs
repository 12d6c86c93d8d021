//! Group, version and kind: how Kubernetes names a kind of object.

/// A Kubernetes group, version and kind.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gvk {
    /// The API group, `""` for the core group.
    pub group: String,
    /// The version, e.g. `v1`.
    pub version: String,
    /// The kind, e.g. `Pod`.
    pub kind: String,
}

impl Gvk {
    /// The `apiVersion` string: `v1` for the core group, `group/version` otherwise.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}
