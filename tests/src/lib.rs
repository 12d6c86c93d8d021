//! Integration and golden tests for kubeforge and the generated crate.
//!
//! The tests themselves are in `tests/`; this library holds what they share, and compiles
//! every golden output (`golden/<case>.rs`) so that a golden that does not build, or does
//! not pass the workspace's lints, fails the build.
//!
//! Every test of the workspace finds what it needs from outside the repository here, one way:
//! the corpus ([`corpus`]) and `kubectl` ([`kubectl`]). When something is missing, a test
//! never passes silently: outside CI it prints `SKIPPED: <test>: …` ([`notice`]), in CI
//! ([`in_ci`]) it fails, naming what is missing. The generator's own tests use it too, through
//! a dev-dependency (a cycle cargo allows).

pub mod claims;
pub mod docs;
pub mod examples;
pub mod golden;
#[cfg(doctest)]
pub mod guide;
pub mod harness;
pub mod imports;
pub mod instances;
pub mod json_diff;
pub mod kube_rs;
pub mod kubectl_server;
pub mod scale;

use std::path::{Path, PathBuf};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
}

mod ci;
pub use ci::{in_ci, notice};

/// The real-world corpus: `$KUBEFORGE_CORPUS` if set (to check the skip and CI behaviour
/// without moving the real one), otherwise `../shared/corpus` beside the workspace.
pub fn corpus_root() -> PathBuf {
    std::env::var_os("KUBEFORGE_CORPUS")
        .map_or_else(|| workspace_root().join("../shared/corpus"), PathBuf::from)
}

/// The corpus directory, provided every file or directory in `needed` (paths relative to it)
/// is there.
///
/// When one is missing: in CI ([`in_ci`]) the test fails, naming every missing file; outside
/// CI it prints `SKIPPED: <test>: …` with [`notice`] (visible without `--nocapture`) and
/// returns `None`, and the test passes without checking anything.
#[track_caller]
pub fn corpus(test: &str, needed: &[&str]) -> Option<PathBuf> {
    corpus_in(&corpus_root(), test, needed, in_ci())
}

/// [`corpus`] for a given directory and CI mode.
///
/// # Panics
///
/// In CI, when the directory or a needed file is missing.
#[track_caller]
pub fn corpus_in(dir: &Path, test: &str, needed: &[&str], ci: bool) -> Option<PathBuf> {
    let missing: Vec<String> = if dir.is_dir() {
        needed
            .iter()
            .map(|name| dir.join(name))
            .filter(|path| !path.exists())
            .map(|path| path.display().to_string())
            .collect()
    } else {
        vec![format!("{} (the whole corpus)", dir.display())]
    };
    if missing.is_empty() {
        return Some(dir.to_path_buf());
    }
    let list = missing.join(", ");
    assert!(
        !ci,
        "{test}: the corpus is incomplete and CI is set, so this is a failure, not a skip; missing: {list}"
    );
    notice(&format!("SKIPPED: {test}: missing {list}"));
    None
}

/// A data set of `../shared/<name>` beside the workspace (or the directory `$<var>` names),
/// provided every file in `needed` is there; missing files are handled as in [`corpus`]: a
/// failure in CI, a visible `SKIPPED` otherwise. Every test over `shared/` finds it here.
#[track_caller]
pub fn shared_data(var: &str, name: &str, test: &str, needed: &[&str]) -> Option<PathBuf> {
    let dir = std::env::var_os(var).map_or_else(
        || workspace_root().join("../shared").join(name),
        PathBuf::from,
    );
    corpus_in(&dir, test, needed, in_ci())
}

/// Real projects' CRDs with their own valid and invalid objects and the errors a real API
/// server gives: `$KUBEFORGE_VALIDATION` or `../shared/validation` ([`shared_data`]).
#[track_caller]
pub fn validation_data(test: &str, needed: &[&str]) -> Option<PathBuf> {
    shared_data("KUBEFORGE_VALIDATION", "validation", test, needed)
}

/// Kubernetes' and OpenShift's documents of older releases (`tests/old-documents/SOURCE.md`):
/// `$KUBEFORGE_OLD_DOCUMENTS` or `../shared/old-documents` ([`shared_data`]).
#[track_caller]
pub fn old_documents(test: &str, needed: &[&str]) -> Option<PathBuf> {
    shared_data("KUBEFORGE_OLD_DOCUMENTS", "old-documents", test, needed)
}

/// Older releases of corpus CRDs (`tests/old-crds/SOURCE.md`): `$KUBEFORGE_OLD_CRDS` or
/// `../shared/old-crds` ([`shared_data`]).
#[track_caller]
pub fn old_crds(test: &str, needed: &[&str]) -> Option<PathBuf> {
    shared_data("KUBEFORGE_OLD_CRDS", "old-crds", test, needed)
}

/// Real projects' CRDs beyond the corpus (`tests/extra-crds/SOURCE.md`):
/// `$KUBEFORGE_EXTRA_CRDS` or `../shared/extra-crds` ([`shared_data`]).
#[track_caller]
pub fn extra_crds(test: &str, needed: &[&str]) -> Option<PathBuf> {
    shared_data("KUBEFORGE_EXTRA_CRDS", "extra-crds", test, needed)
}

/// `../shared/corpus` beside the workspace (or `$KUBEFORGE_CORPUS`), for a test that names
/// the files it needs itself; see [`corpus`].
#[track_caller]
pub fn corpus_dir(test: &str) -> Option<PathBuf> {
    corpus(test, &[])
}

/// The `kubectl` on `PATH`, as a user's shell finds it.
///
/// When there is none: in CI the test fails, saying so; outside CI it prints
/// `SKIPPED: <test>: …` and returns `None`.
#[track_caller]
pub fn kubectl(test: &str) -> Option<PathBuf> {
    program_in(
        "kubectl",
        std::env::var_os("PATH").as_deref(),
        test,
        in_ci(),
    )
}

/// The program `name` on the search path `path` (a `PATH` value), for `test`, in a given CI
/// mode; see [`kubectl`].
///
/// # Panics
///
/// In CI, when no directory of `path` holds an executable `name`.
#[track_caller]
pub fn program_in(
    name: &str,
    path: Option<&std::ffi::OsStr>,
    test: &str,
    ci: bool,
) -> Option<PathBuf> {
    let found = path
        .into_iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate));
    if found.is_some() {
        return found;
    }
    let searched = path.map_or_else(
        || "PATH is not set".to_owned(),
        |p| format!("searched PATH={}", p.to_string_lossy()),
    );
    assert!(
        !ci,
        "{test}: `{name}` is not installed and CI is set, so this is a failure, not a skip ({searched})"
    );
    notice(&format!(
        "SKIPPED: {test}: `{name}` is not installed ({searched})"
    ));
    None
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    // `metadata` follows symbolic links (kubectl is often one).
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// Builds `modules` (name → generated code) as the modules of one throwaway crate under
/// `<scratch>/<name>`, with warnings denied, and panics with the compiler's output on
/// failure. `scratch` is the test's own directory, `env!("CARGO_TARGET_TMPDIR")` in an
/// integration test. Each module is generated with the root path `crate::<module>`. The
/// crate's feature `apply` is on, so apply configurations in the code are compiled too.
pub fn build_modules_as_crate(scratch: &Path, name: &str, modules: &[(String, String)]) {
    use std::fmt::Write as _;
    let dir = scratch.join(name);
    let src = dir.join("crate/src");
    std::fs::create_dir_all(&src).expect("crate dir");
    let mut lib = format!("//! Generated code built by the `{name}` test.\n");
    for (module, code) in modules {
        std::fs::write(src.join(format!("{module}.rs")), code).expect("write module");
        writeln!(lib, "pub mod {module};").expect("write to string");
    }
    std::fs::write(src.join("lib.rs"), lib).expect("write lib");
    let manifest = format!(
        "[package]\nname = {name:?}\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         {}\n[features]\ndefault = [\"apply\"]\napply = []\n\n[workspace]\n",
        generated_dependencies()
    );
    std::fs::write(dir.join("crate/Cargo.toml"), manifest).expect("write manifest");
    build_scratch_crate(&dir, &[], "generated code");
}

/// Adds the program `source` as the binary `<name>-<bin>` to the crate
/// [`build_modules_as_crate`] made under `<scratch>/<name>`, builds it (warnings denied), and
/// returns its path. The program reaches the modules as `<name with _>::<module>`. The crate's
/// name is in the binary's, since every generated crate builds in the one shared target
/// directory ([`scale::command`]), where binaries of one name would replace each other.
pub fn build_program(scratch: &Path, name: &str, bin: &str, source: &str) -> PathBuf {
    let dir = scratch.join(name);
    let bins = dir.join("crate/src/bin");
    let bin = format!("{name}-{bin}");
    std::fs::create_dir_all(&bins).expect("bin dir");
    std::fs::write(bins.join(format!("{bin}.rs")), source).expect("write the program");
    build_scratch_crate(&dir, &["--bin", &bin], &format!("the program {bin}"));
    scale::dir_target().join("debug").join(bin)
}

/// `cargo build` of `<dir>/crate` in the shared target directory ([`scale::command`]),
/// warnings denied; panics with the compiler's output, saying that `what` does not compile,
/// on failure.
fn build_scratch_crate(dir: &Path, args: &[&str], what: &str) {
    let output = scale::command(&dir.join("crate"))
        .args(["build", "--quiet"])
        .args(args)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{}: {what} does not compile:\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The smallest CRD a server test needs: namespaced, one served and stored version `v1`,
/// whose schema keeps whatever it is given (`x-kubernetes-preserve-unknown-fields`).
pub fn open_crd(group: &str, kind: &str, plural: &str) -> String {
    let singular = kind.to_lowercase();
    format!(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: {plural}.{group}}}
spec:
  group: {group}
  scope: Namespaced
  names: {{plural: {plural}, singular: {singular}, kind: {kind}, listKind: {kind}List}}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
"
    )
}

/// Whether goldens should be rewritten instead of compared (`KUBEFORGE_BLESS=1`).
///
/// # Panics
///
/// When `KUBEFORGE_BLESS` is set in CI ([`in_ci`]), or set to anything but `1` (a typo
/// must not silently compare instead of bless, or the other way round).
pub fn bless() -> bool {
    let Some(value) = std::env::var_os("KUBEFORGE_BLESS") else {
        return false;
    };
    assert!(
        value == "1",
        "KUBEFORGE_BLESS={value:?}: set it to 1 to bless, or unset it"
    );
    assert!(
        !in_ci(),
        "KUBEFORGE_BLESS is set in CI: CI compares, it never blesses"
    );
    true
}

/// The files in `dir` whose extension is `extension`, sorted by path.
pub fn sorted_files(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    files
}

/// The `[dependencies]` table of a scratch crate holding generated code: the workspace's
/// runtime and companion crate by path, serde and serde_json.
pub fn generated_dependencies() -> String {
    format!(
        "[dependencies]\nkubeforge-meta = {{ path = {:?} }}\nkubeforge-runtime = {{ path = {:?} }}\n\
         serde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n",
        workspace_root().join("meta").display().to_string(),
        workspace_root().join("runtime").display().to_string()
    )
}
