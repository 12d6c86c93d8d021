//! A complete crate around the generated code: `Cargo.toml` plus `src/`, buildable on its own
//! and on any machine: nothing in it is absolute.

use std::path::{Component, Path, PathBuf};

use crate::diagnostics::{Diagnostic, Error, ErrorKind, Origin};
use crate::write::{self, DirLock, Fate, Output, WriteReport};

/// Where the generated crate finds `kubeforge-runtime`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuntimeDependency {
    /// A path dependency on a checkout of the runtime crate. A relative path is relative to
    /// the output directory (as cargo reads it from the generated `Cargo.toml`); an absolute
    /// one is written relative to the output directory, so the crate moves with its
    /// surroundings.
    Path(PathBuf),
    /// A version requirement, for a runtime from a registry.
    Version(String),
}

impl RuntimeDependency {
    /// Where the companion crate `kubeforge-meta` (the meta types every generated crate
    /// shares) is found, the same way: beside the runtime (`meta/` in the directory that
    /// holds the runtime's, as in this repository), or the same version requirement (the
    /// two are released together).
    pub fn companion(&self) -> RuntimeDependency {
        match self {
            RuntimeDependency::Path(path) => {
                RuntimeDependency::Path(path.parent().unwrap_or(Path::new("..")).join("meta"))
            }
            RuntimeDependency::Version(version) => RuntimeDependency::Version(version.clone()),
        }
    }

    /// The value of this dependency in the manifest of a crate in `dir`: `{ path = "…" }`
    /// relative to `dir`, or the version requirement.
    fn manifest_value(&self, dir: &Path) -> String {
        match self {
            RuntimeDependency::Path(path) => {
                format!("{{ path = {:?} }}", portable_path(&runtime_path(path, dir)))
            }
            RuntimeDependency::Version(version) => format!("{version:?}"),
        }
    }
}

impl Default for RuntimeDependency {
    /// The runtime crate beside this generator's source, which is what `cargo install --path
    /// codegen` and the workspace's own tools use; for a generator built from a registry's
    /// package (no runtime beside it), the runtime of the same version from the registry (the
    /// crates are released together).
    fn default() -> Self {
        let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
        if beside.join("Cargo.toml").is_file() {
            RuntimeDependency::Path(beside)
        } else {
            RuntimeDependency::Version(env!("CARGO_PKG_VERSION").to_owned())
        }
    }
}

/// What the crate is called and what it depends on.
#[derive(Clone, Debug, Default)]
pub struct CrateOptions {
    /// The package name.
    pub name: String,
    /// The runtime dependency.
    pub runtime: RuntimeDependency,
    /// Further `[dependencies]` lines (`k8s-openapi = "0.29"` for `--kube`).
    pub dependencies: Vec<String>,
    /// `[dev-dependencies]` lines.
    pub dev_dependencies: Vec<String>,
}

/// The features of the releases merged (`Config::release_input`), appended to
/// `section`: `k8s-<release>` for each (a build supporting the release; what it lacks is
/// deprecated), and `min-k8s-<release>`, the release and every newer one.
fn release_features(section: &mut String, releases: &[String]) {
    if releases.is_empty() {
        return;
    }
    if section.is_empty() {
        section.push_str("\n[features]\n");
    }
    section.push_str("# The Kubernetes releases a build supports: using what one of them lacks is a deprecation\n# warning. `min-k8s-<release>` is that release and every newer one.\n");
    for release in releases {
        section.push_str(&format!(
            "{:?} = []\n",
            crate::emit::release_feature(release)
        ));
    }
    for (i, release) in releases.iter().enumerate() {
        let newer: Vec<String> = releases[i..]
            .iter()
            .map(|r| format!("{:?}", crate::emit::release_feature(r)))
            .collect();
        section.push_str(&format!("\"min-k8s-{release}\" = [{}]\n", newer.join(", ")));
    }
}

/// The `Cargo.toml` of a generated crate in `dir` for `output`. The runtime path is written
/// relative to `dir`; so is the path of the companion crate `kubeforge-meta`, a dependency
/// when the output uses its meta types (see [`RuntimeDependency::companion`]). The manifest declares an empty `[workspace]` (so that it builds where it is put)
/// unless `dir` is a member of an enclosing workspace (see [`workspace_member`]). With
/// features, every group is on by default (`all`); `default-features = false` plus the
/// groups you need compiles only those.
pub fn manifest(options: &CrateOptions, output: &Output, dir: &Path) -> String {
    let mut feature_section = String::new();
    if let Some(features) = output.features() {
        let quote_list = |names: &mut dyn Iterator<Item = &String>| {
            names
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        feature_section.push_str("\n[features]\ndefault = [\"all\"]\n");
        feature_section.push_str(&format!(
            "all = [{}]\n",
            quote_list(&mut features.requires.keys())
        ));
        for (name, requires) in &features.requires {
            feature_section.push_str(&format!(
                "{name:?} = [{}]\n",
                quote_list(&mut requires.iter())
            ));
        }
    }
    if output.apply_feature() {
        if feature_section.is_empty() {
            feature_section.push_str("\n[features]\n");
        }
        feature_section.push_str(
            "# Apply configurations for server-side apply (`T::apply`, `TApply`).\napply = []\n",
        );
    }
    if output.validation() {
        if feature_section.is_empty() {
            feature_section.push_str("\n[features]\n");
        }
        feature_section.push_str("# `validate()` on every type: the runtime's evaluator (regular expressions, CEL).\nvalidate = [\"kubeforge-runtime/validate\"]\n");
    }
    if output.protobuf_feature() {
        if feature_section.is_empty() {
            feature_section.push_str("\n[features]\n");
        }
        feature_section.push_str(if output.uses_companion_meta() {
            "# Kubernetes' protobuf encoding of the types with a message (`kubeforge_runtime::protobuf`).\nprotobuf = [\"kubeforge-runtime/protobuf\", \"kubeforge-meta/protobuf\"]\n"
        } else {
            "# Kubernetes' protobuf encoding of the types with a message (`kubeforge_runtime::protobuf`).\nprotobuf = [\"kubeforge-runtime/protobuf\"]\n"
        });
    }
    release_features(&mut feature_section, output.releases());
    let runtime = options.runtime.manifest_value(dir);
    let meta = if output.uses_companion_meta() {
        format!(
            "kubeforge-meta = {}\n",
            options.runtime.companion().manifest_value(dir)
        )
    } else {
        String::new()
    };
    let workspace = if workspace_member(dir) {
        ""
    } else {
        "\n# Its own workspace, so that it builds wherever it is put; generated into a member of\n# an enclosing workspace, this table is left out.\n[workspace]\n"
    };
    format!(
        r#"# @generated by kubeforge — do not edit.

[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
{meta}kubeforge-runtime = {runtime}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
{dependencies}{dev_dependencies}
[lints.rust]
unsafe_code = "forbid"
{feature_section}{workspace}"#,
        name = options.name,
        dependencies = options
            .dependencies
            .iter()
            .map(|line| format!("{line}\n"))
            .collect::<String>(),
        dev_dependencies = if options.dev_dependencies.is_empty() {
            String::new()
        } else {
            format!(
                "\n[dev-dependencies]\n{}\n",
                options.dev_dependencies.join("\n")
            )
        },
    )
}

/// Writes `Cargo.toml` and `src/` into `dir`, each only where it changed, under the write
/// policy of `write.rs` (one lock for both). A `Cargo.toml` without the generated
/// header is the user's: it is left alone, listed in [`WriteReport::kept`], and a note says
/// what the generated manifest would add.
pub fn write_crate(
    output: &Output,
    dir: &Path,
    options: &CrateOptions,
) -> Result<WriteReport, Error> {
    write::expect_directory(dir)?;
    std::fs::create_dir_all(dir).map_err(|e| {
        Error::from(Diagnostic::new(
            ErrorKind::Output,
            &Origin::root(dir),
            format!("cannot create the output directory: {e}"),
        ))
    })?;
    let src = dir.join("src");
    let _lock = DirLock::acquire(
        &src,
        Some(&|lock: &Path| {
            eprintln!(
                "kubeforge: waiting for another run to finish writing {} (lock {})",
                dir.display(),
                lock.display()
            );
        }),
    )?;
    let manifest_path = dir.join("Cargo.toml");
    let manifest = manifest(options, output, dir);
    write::clean_leftovers(&manifest_path)?;
    // Decided before `src/` is touched.
    let manifest_fate = write::fate(&manifest_path, manifest.as_bytes())?;
    let mut report = output.write_locked(&src)?;
    let relative = PathBuf::from("../Cargo.toml");
    match manifest_fate {
        Fate::Unchanged => report.unchanged.push(relative),
        Fate::Write => {
            write::replace_file(&manifest_path, manifest.as_bytes())?;
            report.written.push(relative);
        }
        Fate::HandWritten | Fate::NotAFile => {
            let existing = std::fs::read_to_string(&manifest_path).unwrap_or_default();
            report
                .notes
                .push(kept_manifest_note(&manifest_path, &existing, &manifest));
            report.kept.push(relative);
        }
    }
    Ok(report)
}

/// What to tell the user whose hand-written `Cargo.toml` was left alone: the lines of the
/// generated manifest's `[dependencies]` and `[features]` that theirs does not mention.
fn kept_manifest_note(path: &Path, existing: &str, generated: &str) -> String {
    let mentioned = |key: &str| {
        existing.lines().any(|line| {
            let line = line.trim_start();
            line.strip_prefix(key)
                .or_else(|| line.strip_prefix(&format!("{key:?}")))
                .is_some_and(|rest| rest.trim_start().starts_with(['=', '.']))
        })
    };
    let mut section = "";
    let mut missing = Vec::new();
    for line in generated.lines() {
        if line.starts_with('[') {
            section = line;
            continue;
        }
        if !matches!(section, "[dependencies]" | "[features]") {
            continue;
        }
        if let Some((key, _)) = line.split_once('=')
            && !mentioned(key.trim().trim_matches('"'))
        {
            missing.push(format!("{section} {line}"));
        }
    }
    let start = format!(
        "{} has no `# @generated` header, so it is yours and was left alone",
        path.display()
    );
    if missing.is_empty() {
        format!("{start}; it already names every dependency and feature the generated code needs")
    } else {
        format!(
            "{start}; the generated manifest would add:\n    {}",
            missing.join("\n    ")
        )
    }
}

/// The runtime path as the manifest in `dir` names it: relative paths as given (cargo
/// resolves them against `dir`), absolute ones made relative to `dir`.
fn runtime_path(path: &Path, dir: &Path) -> PathBuf {
    if path.is_relative() {
        return path.to_path_buf();
    }
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| normalize(path));
    let base = std::fs::canonicalize(dir).unwrap_or_else(|_| normalize(dir));
    relative_to(&base, &target).unwrap_or_else(|| path.to_path_buf())
}

/// `target` relative to the directory `base`, both absolute and normalized (`None` when they
/// share no root, as on two Windows drives).
pub(crate) fn relative_to(base: &Path, target: &Path) -> Option<PathBuf> {
    let base: Vec<Component<'_>> = base.components().collect();
    let target: Vec<Component<'_>> = target.components().collect();
    let common = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return None;
    }
    let mut relative = PathBuf::new();
    for _ in common..base.len() {
        relative.push("..");
    }
    for component in &target[common..] {
        relative.push(component);
    }
    if relative.as_os_str().is_empty() {
        relative.push(".");
    }
    Some(relative)
}

/// `path` without `.` and with `..` applied, lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// A path as a manifest spells it on every platform: `/` between components.
fn portable_path(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether `dir` is a member of an enclosing workspace: the nearest ancestor `Cargo.toml`
/// with a `[workspace]` table lists it in `members` (exactly, or by a `*` pattern) and not in
/// `exclude`. Then the generated manifest has no `[workspace]` of its own, which cargo would
/// refuse as a second root; otherwise it has one, so that it builds where it is.
pub fn workspace_member(dir: &Path) -> bool {
    let Ok(dir) = std::fs::canonicalize(dir) else {
        return false;
    };
    for root in dir.ancestors().skip(1) {
        let Ok(text) = std::fs::read_to_string(root.join("Cargo.toml")) else {
            continue;
        };
        if !text.lines().any(|l| l.trim() == "[workspace]") {
            continue;
        }
        let Some(relative) = dir.strip_prefix(root).ok().map(portable_path) else {
            return false;
        };
        let listed = |key: &str| {
            toml_string_array(&text, key)
                .iter()
                .any(|pattern| glob_match(pattern.trim_end_matches('/'), &relative))
        };
        return listed("members") && !listed("exclude");
    }
    false
}

/// The strings of the array `key = [...]` in `text` (the workspace table's form; enough for
/// `members` and `exclude`).
fn toml_string_array(text: &str, key: &str) -> Vec<String> {
    let Some(start) = text
        .lines()
        .scan(0, |offset, line| {
            let at = *offset;
            *offset += line.len() + 1;
            Some((at, line))
        })
        .find(|(_, line)| {
            line.trim_start()
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map(|(at, _)| at)
    else {
        return Vec::new();
    };
    let rest = &text[start..];
    let (Some(open), Some(close)) = (rest.find('['), rest.find(']')) else {
        return Vec::new();
    };
    if close < open {
        return Vec::new();
    }
    rest[open + 1..close]
        .split(',')
        .filter_map(|item| {
            let item = item
                .lines()
                .map(|l| l.split('#').next().unwrap_or(""))
                .collect::<String>();
            let item = item.trim().trim_matches(|c| c == '"' || c == '\'');
            (!item.is_empty()).then(|| item.to_owned())
        })
        .collect()
}

/// Matches a workspace member pattern, where `*` stands for any part of one component.
fn glob_match(pattern: &str, path: &str) -> bool {
    let (patterns, parts): (Vec<&str>, Vec<&str>) =
        (pattern.split('/').collect(), path.split('/').collect());
    patterns.len() == parts.len()
        && patterns
            .iter()
            .zip(&parts)
            .all(|(p, s)| match p.split_once('*') {
                None => p == s,
                Some((head, tail)) => {
                    s.len() >= head.len() + tail.len() && s.starts_with(head) && s.ends_with(tail)
                }
            })
}

#[cfg(test)]
mod tests {
    use super::{glob_match, relative_to, toml_string_array};
    use std::path::Path;

    #[test]
    fn relative_paths() {
        let at = |b: &str, t: &str| {
            relative_to(Path::new(b), Path::new(t)).map(|p| p.display().to_string())
        };
        assert_eq!(at("/a/b/out", "/a/runtime"), Some("../../runtime".into()));
        assert_eq!(at("/a/b", "/a/b/c"), Some("c".into()));
        assert_eq!(at("/a/b", "/a/b"), Some(".".into()));
    }

    #[test]
    fn workspace_members() {
        let text = "[workspace]\nmembers = [\n  \"api\", # generated\n  \"crates/*\",\n]\nexclude = ['old']\n";
        assert_eq!(toml_string_array(text, "members"), ["api", "crates/*"]);
        assert_eq!(toml_string_array(text, "exclude"), ["old"]);
        assert!(glob_match("crates/*", "crates/k8s"));
        assert!(!glob_match("crates/*", "crates/k8s/x"));
        assert!(!glob_match("api", "apis"));
    }
}
