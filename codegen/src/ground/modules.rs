//! Where a schema's types go: the module path a schema name maps to.

use super::naming;

/// How schema names map to module paths.
///
/// A schema name is a dotted package path plus a type name
/// (`io.k8s.api.core.v1.Pod`). The package becomes the module path, after the first
/// matching prefix rule rewrites its start: by default `io.k8s.` is dropped and
/// `com.github.openshift.api.` becomes `openshift.`, so `io.k8s.api.core.v1.Pod` is
/// `api::core::v1::Pod` and `com.github.openshift.api.image.v1.ImageStream` is
/// `openshift::image::v1::ImageStream`. Each segment is then made a valid module name
/// (`kube-aggregator` → `kube_aggregator`).
#[derive(Clone, Debug)]
pub struct ModuleRules {
    prefixes: Vec<(String, String)>,
}

impl Default for ModuleRules {
    fn default() -> Self {
        ModuleRules {
            prefixes: vec![
                ("io.k8s.".to_owned(), String::new()),
                (
                    "com.github.openshift.api.".to_owned(),
                    "openshift.".to_owned(),
                ),
            ],
        }
    }
}

impl ModuleRules {
    /// Rules without any prefix rewriting.
    pub fn none() -> Self {
        ModuleRules {
            prefixes: Vec::new(),
        }
    }

    /// Adds a rule: schema names starting with `prefix` have it replaced by `replacement`
    /// (dotted, ending in `.` unless empty). Rules are tried in the order added.
    #[must_use]
    pub fn rewrite(mut self, prefix: impl Into<String>, replacement: impl Into<String>) -> Self {
        self.prefixes.push((prefix.into(), replacement.into()));
        self
    }

    /// The module path and the unqualified type name of `schema_name`.
    pub fn place(&self, schema_name: &str) -> (Vec<String>, String) {
        let mut name = schema_name.to_owned();
        if let Some((prefix, replacement)) = self
            .prefixes
            .iter()
            .find(|(p, _)| schema_name.starts_with(p.as_str()))
        {
            name = format!("{replacement}{}", &schema_name[prefix.len()..]);
        }
        match name.rsplit_once('.') {
            Some((package, base)) => (naming::module_path(package.split('.')), base.to_owned()),
            None => (Vec::new(), name),
        }
    }
}
