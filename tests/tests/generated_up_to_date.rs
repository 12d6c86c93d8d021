//! The committed `generated/` crate must be exactly what `cargo xtask regen` produces from
//! `schemas/`, in the manner of rust-analyzer's sourcegen tests; and so must the companion
//! crate `meta/`.

use kubeforge_tests::workspace_root;

/// `config` generates exactly what is committed in `dir` (relative to the workspace root).
fn assert_up_to_date(config: &kubeforge::Config, dir: &str) {
    let output = config
        .generate()
        .unwrap_or_else(|e| panic!("generation failed:\n{e}"));
    let report = output
        .check(workspace_root().join(dir))
        .unwrap_or_else(|e| panic!("{dir} readable: {e}"));
    assert!(
        report.is_clean(),
        "{dir} is stale ({} changed, {} stale). Run `cargo xtask regen` and commit the result.\n\n{}",
        report.changed.len(),
        report.stale.len(),
        report.diff
    );
}

#[test]
fn generated_crate_is_up_to_date() {
    let config = xtask::regen_config(&workspace_root()).expect("schemas/ readable");
    assert_up_to_date(&config, xtask::OUTPUT_DIR);
}

/// The companion crate `meta/` (`kubeforge-meta`): exactly what `regen` makes of the
/// built-in document.
#[test]
fn companion_crate_is_up_to_date() {
    assert_up_to_date(
        &xtask::meta_config(&workspace_root()),
        xtask::META_OUTPUT_DIR,
    );
}
