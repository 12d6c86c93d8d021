//! The cargo that xtask starts: the one that runs xtask (`$CARGO`), in the environment a
//! cargo started from a shell has, so that switching between `cargo xtask …` and a plain
//! `cargo …` rebuilds nothing (one rule for every command xtask starts cargo for).

use std::ffi::OsString;
use std::process::Command;

/// The cargo that runs this xtask (`$CARGO`, which `cargo run` sets), or `cargo` on `PATH`.
#[must_use]
pub fn program() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// A command running [`program`], as from a shell ([`as_from_a_shell`]).
#[must_use]
pub fn command() -> Command {
    let mut command = Command::new(program());
    as_from_a_shell(&mut command);
    command
}

/// Whether `name` is one of the variables `cargo run` sets for the program it runs (the
/// package's `CARGO_MANIFEST_DIR`, `CARGO_MANIFEST_PATH`, `CARGO_PKG_…`, `CARGO_CRATE_NAME`,
/// `CARGO_BIN_NAME`, `CARGO_PRIMARY_PACKAGE`): `cargo xtask` is `cargo run -p xtask`, so every
/// cargo that xtask starts inherits xtask's values, which a cargo started from a shell does
/// not have.
fn set_by_cargo_run(name: &str) -> bool {
    name.starts_with("CARGO_PKG_")
        || name.starts_with("CARGO_MANIFEST_")
        || matches!(
            name,
            "CARGO_CRATE_NAME" | "CARGO_BIN_NAME" | "CARGO_PRIMARY_PACKAGE"
        )
}

/// Removes from `command`'s environment the variables `cargo run` set for xtask
/// ([`set_by_cargo_run`]), so that a cargo xtask starts sees the environment of a cargo
/// started from a shell. Cargo reruns a build script whose `rerun-if-env-changed` variable
/// changed, and ring's names `CARGO_MANIFEST_DIR`, `CARGO_PKG_NAME` and `CARGO_PKG_VERSION_*`
/// (its build script reads them, but cargo compares the values in its own environment): with
/// them inherited, every switch between a cargo under xtask (`cargo xtask times -- cargo
/// test`, `cargo xtask mutants`) and one from a shell (`cargo clippy`, `cargo doc`, `cargo
/// package` in `.ci/run`) rebuilt ring and everything on it (rustls, rcgen, the server, and
/// each of the server's test binaries).
pub fn as_from_a_shell(command: &mut Command) -> &mut Command {
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(set_by_cargo_run) {
            command.env_remove(name);
        }
    }
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cargo that xtask starts sees none of the variables `cargo run` set for xtask (this
    /// test binary has them too: cargo sets them for the tests it runs), and every other
    /// variable: ring's build script, which names them in `rerun-if-env-changed`, is then not
    /// run again between a cargo under xtask and one from a shell.
    #[test]
    fn cargo_under_xtask_sees_the_environment_of_a_shell() {
        assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
        assert!(std::env::var_os("CARGO_PKG_NAME").is_some());
        let mut command = Command::new("sh");
        as_from_a_shell(&mut command)
            .args(["-c", "env"])
            .env("KUBEFORGE_TIMES_PROBE", "kept");
        let output = command.output().expect("sh runs");
        let seen = String::from_utf8_lossy(&output.stdout);
        let names: Vec<&str> = seen
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(n, _)| n)
            .collect();
        for name in [
            "CARGO_MANIFEST_DIR",
            "CARGO_MANIFEST_PATH",
            "CARGO_PKG_NAME",
            "CARGO_PKG_VERSION_MAJOR",
            "CARGO_CRATE_NAME",
            "CARGO_PRIMARY_PACKAGE",
        ] {
            assert!(!names.contains(&name), "{name} leaked into {names:?}");
        }
        assert!(names.contains(&"KUBEFORGE_TIMES_PROBE"));
        assert!(names.contains(&"PATH"));
        assert!(set_by_cargo_run("CARGO_PKG_VERSION_PRE"));
        assert!(!set_by_cargo_run("CARGO_TARGET_DIR"));
        assert!(!set_by_cargo_run("CARGO_INCREMENTAL"));
        assert!(!set_by_cargo_run("CARGO"));
    }
}
