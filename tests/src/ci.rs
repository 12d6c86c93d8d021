//! Whether this is a CI run, and how a test says something the user sees: kept apart so
//! that the compile-fail package (`tests/compile-fail`), which must not depend on this crate,
//! includes the same file (`#[path]`) rather than a copy.

/// Whether this is a CI run: `CI` is set to anything but empty, `0` or `false` (GitHub
/// Actions, GitLab and most others set `CI=true`). In CI a test never skips.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// Prints `message` where the user sees it even when the test passes: straight to the
/// process's stderr, not through `eprintln!`. The test harness captures only what the
/// `print!` family writes (and shows it only for failing tests), so a line written with
/// `std::io::stderr().write_all` appears in `cargo test`'s output with or without
/// `--nocapture`.
pub fn notice(message: &str) {
    use std::io::Write as _;
    let mut stderr = std::io::stderr().lock();
    // Best effort: a closed stderr must not fail the test that wanted to say something.
    stderr
        .write_all(format!("{message}\n").as_bytes())
        .and_then(|()| stderr.flush())
        .unwrap_or_default();
}
