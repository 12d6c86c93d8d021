//! The minimum supported Rust version, checked as far as one toolchain can check it.
//!
//! The workspace states it once (`rust-version` in `Cargo.toml`, inherited by every crate);
//! the guide states the same (`guide_claims.rs` compares the two). With only the current
//! toolchain installed, `cargo +<msrv> check` cannot run, so what is checked is:
//!
//! - every API of `std` and `core` the workspace's crates call is stable at the MSRV: clippy's
//!   `incompatible_msrv` lint, on by default and denied in CI, compares each call with the
//!   stated `rust-version`;
//! - every crate the published crates depend on on this platform (normal and build
//!   dependencies, in `Cargo.lock`) supports it: those that state a `rust-version` state one
//!   no newer (this test).
//!
//! Not checked: language and Cargo features newer than the MSRV that need no library API
//! (edition 2024 needs 1.85, let chains 1.88, `resolver = "3"` Cargo 1.84, all older than
//! the MSRV of 1.89), and dependencies that state no `rust-version` at all (listed here).

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use kubeforge_tests::{claims, workspace_root};
use serde_json::Value;

/// The crates that are published (`publish = true`); their users need the MSRV to hold.
const PUBLISHED: [&str; 4] = [
    "kubeforge",
    "kubeforge-runtime",
    "kubeforge-meta",
    "kubeforge-server",
];

/// `1.89`, `1.85.0` → comparable numbers.
fn version(text: &str) -> (u64, u64, u64) {
    let mut parts = text.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

#[test]
fn dependencies_of_the_published_crates_support_the_msrv() {
    // The dependencies of this machine's platform: what the test can read without fetching
    // (another platform's, such as Windows console crates, may not be downloaded).
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let verbose = Command::new(rustc)
        .arg("-vV")
        .output()
        .expect("rustc -vV runs");
    let verbose = String::from_utf8_lossy(&verbose.stdout).into_owned();
    let host = verbose
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc names its host");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", host])
        .current_dir(workspace_root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON");
    let msrv = version(claims::RUST_VERSION);

    let packages: BTreeMap<&str, &Value> = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| (p["id"].as_str().expect("id"), p))
        .collect();
    let nodes: BTreeMap<&str, &Value> = metadata["resolve"]["nodes"]
        .as_array()
        .expect("resolve")
        .iter()
        .map(|n| (n["id"].as_str().expect("id"), n))
        .collect();
    let mut todo: Vec<&str> = packages
        .iter()
        .filter(|(_, p)| PUBLISHED.contains(&p["name"].as_str().unwrap_or_default()))
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(
        todo.len(),
        PUBLISHED.len(),
        "every published crate is in the workspace"
    );
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    while let Some(id) = todo.pop() {
        if !seen.insert(id) {
            continue;
        }
        for dep in nodes[id]["deps"].as_array().expect("deps") {
            // Normal (`null`) and build dependencies; dev-dependencies are the workspace's.
            let used = dep["dep_kinds"]
                .as_array()
                .expect("dep_kinds")
                .iter()
                .any(|k| k["kind"].is_null() || k["kind"] == "build");
            if used {
                todo.push(dep["pkg"].as_str().expect("pkg"));
            }
        }
    }

    let mut newer = Vec::new();
    let mut unstated = Vec::new();
    for id in &seen {
        let package = packages[id];
        let name = format!(
            "{} {}",
            package["name"].as_str().unwrap_or_default(),
            package["version"].as_str().unwrap_or_default()
        );
        match package["rust_version"].as_str() {
            Some(needed) if version(needed) > msrv => newer.push(format!("{name} needs {needed}")),
            Some(_) => {}
            None => unstated.push(name),
        }
    }
    assert!(
        newer.is_empty(),
        "dependencies of the published crates that need a newer Rust than the stated MSRV {}:\n  {}",
        claims::RUST_VERSION,
        newer.join("\n  ")
    );
    assert!(seen.len() > 20, "the dependency graph was walked: {seen:?}");
    kubeforge_tests::notice(&format!(
        "msrv: {} crates checked against {}; {} state no rust-version: {}",
        seen.len(),
        claims::RUST_VERSION,
        unstated.len(),
        unstated.join(", ")
    ));
}
