//! `cargo xtask serve [--schemas DIR | inputs…] [--listen ADDR] [--kubeconfig FILE] [flags…]`:
//! runs the `kubeforge-server` binary (over TLS, its kubeconfig with the cluster's CA and the
//! administrator's token, unless `--insecure-http`), serving `schemas/` when no documents are
//! named.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

/// Runs `kubeforge-server serve` with `args`, adding `--schemas <root>/schemas` when they
/// name no documents.
pub fn run(root: &Path, args: Vec<OsString>) -> ExitCode {
    let mut full: Vec<OsString> = vec![
        "run".into(),
        "--quiet".into(),
        "--package".into(),
        "kubeforge-server".into(),
        "--".into(),
        "serve".into(),
    ];
    if !names_documents(&args) {
        full.push("--schemas".into());
        full.push(root.join("schemas").into_os_string());
    }
    full.extend(args);
    let mut command = xtask::cargo::command();
    command.args(&full).current_dir(root);
    // On Unix this process becomes `cargo run`, which becomes the server (cargo execs what it
    // runs): one process, so Ctrl-C or a SIGTERM sent to `cargo xtask serve` reaches the
    // server, which stops cleanly. A child process would outlive a SIGTERM sent to xtask.
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        let error = command.exec();
        eprintln!("error: cannot run cargo: {error}");
        ExitCode::FAILURE
    }
    #[cfg(not(unix))]
    match command.status() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: cannot run cargo: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Whether the arguments give `--schemas` or an input document (an argument that is no
/// option and no option's value).
fn names_documents(args: &[OsString]) -> bool {
    let mut args = args.iter().map(|a| a.to_string_lossy());
    while let Some(arg) = args.next() {
        match arg.as_ref() {
            "--schemas" => return true,
            "--listen"
            | "--kubeconfig"
            | "--max-request-body-bytes"
            | "--requests-per-second"
            | "--request-burst"
            | "--watches-per-identity"
            | "--max-requests-inflight"
            | "--max-mutating-requests-inflight"
            | "--nodes"
            | "--ready-after"
            | "--run-for" => {
                args.next();
            }
            other if other.starts_with("--schemas=") => return true,
            other if !other.starts_with('-') => return true,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::names_documents;

    #[test]
    fn documents_are_arguments_that_are_no_option_values() {
        let check =
            |args: &[&str]| names_documents(&args.iter().map(Into::into).collect::<Vec<_>>());
        assert!(!check(&[]));
        assert!(!check(&["--listen", "127.0.0.1:8001", "--kubeconfig", "k"]));
        assert!(check(&["--schemas", "dir"]));
        assert!(check(&["--listen", "127.0.0.1:0", "crd.yaml"]));
        assert!(!check(&[
            "--insecure-http",
            "--simulate",
            "--nodes",
            "2",
            "--requests-per-second",
            "50",
            "--max-mutating-requests-inflight",
            "10"
        ]));
    }
}
