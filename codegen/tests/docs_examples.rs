//! Every shell example of the README and the guide runs as written: each `console` block of
//! every page but the server's (`kubeforge_tests::docs::SERVER_PAGES`, run by
//! `server/tests/docs_examples.rs`), in a directory of its own holding the corpus documents
//! the pages name, with this crate's `kubeforge` first on `PATH`, and each command must print
//! what the page shows (`kubeforge_tests::docs::output_matches`: line for line, `...` for
//! any lines, `[..]` for any text).
//!
//! Why not trycmd: its Markdown cases run one program per command with no shell, so the
//! pages' pipes (`kubectl get crd -o yaml | kubeforge - …`) cannot run; its inputs live in a
//! `*.in/` directory inside the repository, where the corpus must never be copied; and it
//! cannot follow a command with a build of what it wrote. The matching rules are trycmd's.
//!
//! What cannot run here is replaced, visibly: `kubectl get crd -o yaml`, `helm template` and
//! `oc get --raw` need a cluster or a chart, so stand-ins on `PATH` print the corpus document
//! the real program would (and refuse any other arguments); `cargo install --path codegen`
//! is this test's own binary, the one the install builds; `cargo test --workspace` and
//! `cargo xtask regen` are checked to be what CI runs (`docs::NOT_RUN_HERE`).
//!
//! The OpenShift recipe then builds the crate it wrote, warnings denied (in the corpus tests'
//! shared target directory, so dependencies build once; `tests/tests/merge_releases.rs`
//! generates the same crate in the same directory, and finds it built when this test ran
//! first, as in `cargo test --workspace`). This file also checks that the
//! reference's table of every option names every flag and every `Config` method.

use std::path::{Path, PathBuf};
use std::process::Command;

use kubeforge_tests::docs::{self, Page, Ran};

/// The corpus documents the pages use, by the name the pages give them.
const FIXTURES: &[(&str, &str)] = &[
    ("my-crd.yaml", "crds/cert-manager-Certificate.yaml"),
    ("swagger.json", "kubernetes/swagger.json"),
    ("swagger-1.35.json", "kubernetes/swagger-1.35.json"),
    ("swagger-1.32.json", "kubernetes/swagger-1.32.json"),
    ("swagger-1.33.json", "kubernetes/swagger-1.33.json"),
    ("swagger-1.34.json", "kubernetes/swagger-1.34.json"),
    ("openapi.json", "openshift/openapi.json"),
    // An older release of a corpus CRD (`../shared/old-crds`, beside the corpus), for the
    // crate whose cluster runs the newer one.
    (
        "httproute-v1.2.1.yaml",
        "../old-crds/gateway-api-HTTPRoute-v1.2.1.yaml",
    ),
    ("httproute.yaml", "crds/gateway-api-HTTPRoute.yaml"),
    // Kubernetes' .proto files, by import path (the guide's "Protobuf").
    ("proto", "kubernetes/proto"),
];

fn workspace() -> PathBuf {
    kubeforge_tests::workspace_root()
}

/// The directory of this test's `kubeforge` binary, which goes first on `PATH`.
fn kubeforge_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_kubeforge"))
        .parent()
        .expect("the binary's directory")
        .to_path_buf()
}

/// `dir/bin` with the stand-ins for programs that need a cluster or a chart, each printing
/// what the real one would for the one command line the pages use.
fn stand_ins(dir: &Path, corpus: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("the stand-ins' directory");
    // `kubectl get crd -o yaml` prints a `List` of every CRD (JSON is YAML).
    let mut crds = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(corpus.join("crds"))
        .expect("the corpus's CRDs")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("a CRD");
        let documents: Vec<serde_json::Value> =
            serde_saphyr::from_multiple(&text).expect("the CRD parses");
        crds.extend(documents.into_iter().filter(|d| !d.is_null()));
    }
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": crds});
    std::fs::write(bin.join("crds.json"), list.to_string()).expect("write");
    // `helm template my-chart` renders a chart holding a CRD and a Deployment.
    let mut chart = std::fs::read_to_string(corpus.join("crds/cert-manager-Certificate.yaml"))
        .expect("the CRD");
    chart.push_str(concat!(
        "\n---\n",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: my-chart\nspec:\n",
        "  selector:\n    matchLabels:\n      app: my-chart\n  template:\n    metadata:\n",
        "      labels:\n        app: my-chart\n    spec:\n      containers:\n",
        "      - name: app\n        image: nginx:1.27\n",
    ));
    std::fs::write(bin.join("chart.yaml"), chart).expect("write");
    std::fs::copy(
        workspace().join("schemas/image.openshift.io_v1.json"),
        bin.join("image.openshift.io_v1.json"),
    )
    .expect("copy the group-version document");
    for (program, arguments, file) in [
        ("kubectl", "get crd -o yaml", "crds.json"),
        ("helm", "template my-chart", "chart.yaml"),
        (
            "oc",
            "get --raw /openapi/v3/apis/image.openshift.io/v1",
            "image.openshift.io_v1.json",
        ),
    ] {
        let script = format!(
            "#!/bin/sh\n\
             # A stand-in for `{program} {arguments}` (codegen/tests/docs_examples.rs).\n\
             if [ \"$*\" != \"{arguments}\" ]; then\n\
             \techo \"this stand-in for {program} only runs: {program} {arguments}\" >&2\n\
             \texit 2\n\
             fi\n\
             exec cat \"$(dirname \"$0\")/{file}\"\n"
        );
        let path = bin.join(program);
        std::fs::write(&path, script).expect("write a stand-in");
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .expect("make it executable");
    }
    bin
}

/// A fresh directory holding the fixtures (as symbolic links into the corpus).
fn sandbox(dir: &Path, corpus: &Path) {
    if dir.exists() {
        std::fs::remove_dir_all(dir).expect("clean the directory");
    }
    std::fs::create_dir_all(dir).expect("the directory");
    for (name, path) in FIXTURES {
        std::os::unix::fs::symlink(corpus.join(path), dir.join(name)).expect("link a fixture");
    }
}

/// Handles what must not run as typed: this binary is what `cargo install --path codegen`
/// builds, and CI runs the two commands.
fn special(command: &str) -> bool {
    if command == "cargo install --path codegen" {
        let manifest =
            std::fs::read_to_string(workspace().join("codegen/Cargo.toml")).expect("manifest");
        assert!(
            manifest.contains("name = \"kubeforge\""),
            "codegen/ builds the binary `kubeforge`"
        );
        return true;
    }
    docs::run_elsewhere(command)
}

/// The pages this test runs: every page with a `console` block, but the server's.
fn pages() -> Vec<Page> {
    docs::pages()
        .into_iter()
        .filter(|page| {
            !docs::SERVER_PAGES.iter().any(|p| Path::new(p) == page.path)
                && docs::code_blocks(&page.text)
                    .iter()
                    .any(|b| b.language() == "console")
        })
        .collect()
}

/// Runs a page in its own directory below `root`.
fn run(page: &Page, root: &Path, corpus: &Path) -> (PathBuf, Vec<Ran>) {
    let name = page
        .path
        .to_string_lossy()
        .replace(['/', '.'], "-")
        .to_lowercase();
    let dir = root.join(name);
    sandbox(&dir, corpus);
    let bin = stand_ins(&dir, corpus);
    let ran = docs::run_page(page, &dir, &[kubeforge_dir(), bin], &special);
    (dir, ran)
}

#[test]
fn every_shell_example_runs_as_written() {
    let needed: Vec<&str> = FIXTURES.iter().map(|(_, p)| *p).collect();
    let Some(corpus) = kubeforge_tests::corpus("the guide's shell examples", &needed) else {
        return;
    };
    let pages = pages();
    assert!(
        pages
            .iter()
            .any(|p| p.path == Path::new("docs/src/guide/cli.md")),
        "the command line's page has examples"
    );
    // In the corpus tests' target directory: the OpenShift crate is built there. Its page
    // first, so that the crate's build (one rustc, most of this test's time) runs beside the
    // other pages' commands, on the second core.
    let root = kubeforge_tests::scale::dir().join("crates/guide");
    let openshift = Path::new("docs/src/guide/openshift.md");
    let mut pages = pages;
    pages.sort_by_key(|page| page.path != openshift);
    let mut build = None;
    for page in &pages {
        let (dir, ran) = run(page, &root, &corpus);
        eprintln!("{}: {} commands ran", page.path.display(), ran.len());
        if page.path == openshift {
            build = Some(openshift_recipe_builds(&dir, &ran, &corpus));
        }
    }
    let build = build.expect("the OpenShift page ran");
    build
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
}

/// The OpenShift recipe: the ten overrides are warnings naming `swagger.json` as typed, the
/// crate builds with warnings denied (in the thread returned, which panics if it does not),
/// and the group-version document a cluster serves gives ImageStream its routes.
fn openshift_recipe_builds(
    dir: &Path,
    ran: &[Ran],
    corpus: &Path,
) -> std::thread::JoinHandle<String> {
    let first = ran
        .iter()
        .find(|r| {
            r.command.command
                == "kubeforge swagger.json openapi.json --out api --prefer swagger.json"
        })
        .expect("the page runs the recipe");
    let overrides = first
        .output
        .lines()
        .filter(|l| l.starts_with("warning[overridden-definition]"))
        .count();
    assert_eq!(overrides, 10, "{}", first.output);
    assert!(
        first.output.contains("┌─ swagger.json:"),
        "{}",
        first.output
    );
    assert!(
        ran.iter().any(|r| r.command.command
            == "kubeforge swagger.json openapi.json image.openshift.io_v1.json --out api --prefer swagger.json"),
        "the page runs the recipe with the group-version document"
    );
    let stream = std::fs::read_to_string(dir.join("api/src/openshift/image/v1/image_stream.rs"))
        .expect("ImageStream's file");
    assert!(stream.contains("pub fn list_namespaced_image_stream("));
    // The crate `tests/tests/merge_releases.rs` generates and builds too, as one text in one
    // directory: built once for both.
    let api = dir.join("api");
    assert_eq!(
        api,
        kubeforge_tests::scale::openshift_recipe_crate(),
        "the merge test builds the recipe's crate where this test writes it"
    );
    let output = kubeforge_tests::scale::openshift_recipe_config(corpus)
        .prefer(corpus.join("kubernetes/swagger.json"))
        .generate()
        .unwrap_or_else(|e| panic!("the merge test's configuration:\n{e}"));
    let check = output.check(api.join("src")).expect("check");
    assert!(
        check.is_clean(),
        "the merge test's configuration does not write the recipe's crate (it would build it \
         again):\n{}",
        check.diff
    );
    let manifest = std::fs::read_to_string(api.join("Cargo.toml")).expect("the manifest");
    assert_eq!(
        manifest,
        kubeforge::package::manifest(
            &kubeforge_tests::scale::openshift_recipe_options(),
            &output,
            &api
        ),
        "the merge test's crate options"
    );
    std::thread::spawn(move || kubeforge_tests::scale::cargo(&api, &["build", "--quiet"]))
}

/// `docs/src/reference/options.md` names every flag of `kubeforge --help` (and of its
/// `routes` and `diff` commands) and every public method of `Config`.
#[test]
fn every_option_is_in_the_reference() {
    let page = docs::page("reference/options.md").text;
    let mut missing = Vec::new();
    for command in [&["--help"][..], &["routes", "--help"], &["diff", "--help"]] {
        let output = Command::new(env!("CARGO_BIN_EXE_kubeforge"))
            .args(command)
            .output()
            .expect("kubeforge --help");
        let help = String::from_utf8_lossy(&output.stdout);
        for flag in help
            .split_whitespace()
            .filter(|w| w.starts_with("--") && w.len() > 2)
            .map(|w| w.trim_end_matches([',', '.', ')', '`', ']', ';', ':']))
        {
            let named = page.contains(&format!("`{flag}`")) || page.contains(&format!("`{flag} "));
            if flag != "--help" && flag != "--version" && !named {
                missing.push(format!("flag {flag}"));
            }
        }
    }
    for file in ["codegen/src/lib.rs", "codegen/src/compile.rs"] {
        let source = std::fs::read_to_string(workspace().join(file)).expect("source");
        let Some(start) = source.find("\nimpl Config {") else {
            continue;
        };
        let body = &source[start..];
        let end = body.find("\n}\n").unwrap_or(body.len());
        for line in body[..end].lines() {
            if let Some(rest) = line.strip_prefix("    pub fn ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !page.contains(&format!("`{name}`")) && !page.contains(&format!("`{name}(")) {
                    missing.push(format!("Config::{name} ({file})"));
                }
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "docs/src/reference/options.md does not name: {missing:?}"
    );
}
