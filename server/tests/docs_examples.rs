//! The server's page of the guide runs as written: its `console` blocks
//! (`kubeforge_tests::docs::SERVER_PAGES`) start this crate's `kubeforge-server` binary in
//! the background and talk to it with the real `kubectl` on `PATH` (missing: a failure in CI,
//! `SKIPPED` otherwise), and every command prints what the page shows. `cargo install --path
//! server` is this test's own binary, the one the install builds. The runner and its matching
//! rules are `kubeforge_tests::docs` (see `codegen/tests/docs_examples.rs` for the other
//! pages).

use std::path::{Path, PathBuf};

use kubeforge_tests::docs;

/// The document the page serves, by the name the page gives it.
const CORE_V1: (&str, &str) = ("core-v1.json", "kubernetes/v3/api__v1_openapi.json");

fn special(command: &str) -> bool {
    if command == "cargo install --path server" {
        let manifest =
            std::fs::read_to_string(kubeforge_tests::workspace_root().join("server/Cargo.toml"))
                .expect("manifest");
        assert!(
            manifest.contains("name = \"kubeforge-server\""),
            "server/ builds the binary `kubeforge-server`"
        );
        return true;
    }
    docs::run_elsewhere(command)
}

#[test]
fn the_server_page_runs_as_written() {
    let Some(kubectl) = kubeforge_tests::kubectl("the server page's examples") else {
        return;
    };
    let Some(corpus) = kubeforge_tests::corpus("the server page's examples", &[CORE_V1.1]) else {
        return;
    };
    for page in docs::SERVER_PAGES {
        let page = docs::page(page.strip_prefix("docs/src/").expect("a page of the guide"));
        let dir = tempfile::tempdir().expect("temp dir");
        std::os::unix::fs::symlink(corpus.join(CORE_V1.1), dir.path().join(CORE_V1.0))
            .expect("link the document");
        let server_dir = Path::new(env!("CARGO_BIN_EXE_kubeforge-server"))
            .parent()
            .expect("the binary's directory")
            .to_path_buf();
        let kubectl_dir: PathBuf = kubectl.parent().expect("kubectl's directory").into();
        let ran = docs::run_page(&page, dir.path(), &[server_dir, kubectl_dir], &special);
        assert!(
            ran.iter()
                .any(|r| r.command.command.starts_with("kubectl ")),
            "{} talks to the server with kubectl",
            page.path.display()
        );
    }
}
