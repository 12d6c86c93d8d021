//! The committed `generated/` crate must be exactly what `cargo xtask regen` produces from
//! `schemas/`, in the manner of rust-analyzer's sourcegen tests.

use kubeforge_tests::workspace_root;

#[test]
fn generated_crate_is_up_to_date() {
    let root = workspace_root();
    let config = xtask::regen_config(&root).expect("schemas/ readable");
    let output = config
        .generate()
        .unwrap_or_else(|e| panic!("generation failed:\n{e}"));
    let report = output
        .check(root.join(xtask::OUTPUT_DIR))
        .expect("generated/src readable");
    assert!(
        report.is_clean(),
        "generated/ is stale ({} changed, {} stale). Run `cargo xtask regen` and commit the result.\n\n{}",
        report.changed.len(),
        report.stale.len(),
        report.diff
    );
}

/// The companion crate `meta/` (`kubeforge-meta`) likewise: exactly what `regen` makes of the
/// built-in document.
#[test]
fn companion_crate_is_up_to_date() {
    let root = workspace_root();
    let output = xtask::meta_config(&root)
        .generate()
        .unwrap_or_else(|e| panic!("generation failed:\n{e}"));
    let report = output
        .check(root.join(xtask::META_OUTPUT_DIR))
        .expect("meta/src readable");
    assert!(
        report.is_clean(),
        "meta/ is stale ({} changed, {} stale). Run `cargo xtask regen` and commit the result.\n\n{}",
        report.changed.len(),
        report.stale.len(),
        report.diff
    );
}
