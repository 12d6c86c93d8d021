//! The `kubeforge-server` binary on a loopback port, with `kubectl` configured for it: how
//! the server's kubectl tests start it, drive kubectl and stop it, in one place.

use std::io::{BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

/// A running server and the kubectl that talks to it. Killed on drop.
pub struct KubectlServer {
    child: Child,
    dir: tempfile::TempDir,
    kubectl: PathBuf,
}

impl KubectlServer {
    /// Starts `server` (the binary, `env!("CARGO_BIN_EXE_kubeforge-server")` in the server's
    /// tests) serving `inputs` over TLS on a free loopback port, and returns once it says
    /// where it listens, that the kubeconfig (with the cluster's CA and the administrator's
    /// token) is written and that it serves the catalog.
    ///
    /// # Panics
    ///
    /// When the server does not start or says something else.
    pub fn start(server: &str, kubectl: PathBuf, inputs: &[PathBuf]) -> KubectlServer {
        KubectlServer::start_with(server, kubectl, &[], inputs)
    }

    /// [`start`](Self::start) with more flags for `serve` (`--simulate`, `--insecure-http`
    /// for a test that speaks raw HTTP to it, …).
    ///
    /// # Panics
    ///
    /// When the server does not start or says something else.
    pub fn start_with(
        server: &str,
        kubectl: PathBuf,
        flags: &[&str],
        inputs: &[PathBuf],
    ) -> KubectlServer {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut child = Command::new(server)
            .args(["serve", "--listen", "127.0.0.1:0", "--kubeconfig"])
            .arg(dir.path().join("config"))
            .args(flags)
            .args(inputs)
            .stdout(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
        let listening = if flags.contains(&"--insecure-http") {
            "listening on http://"
        } else {
            "listening on https://"
        };
        for expected in [listening, "kubeconfig written to", "serving "] {
            let line = lines.next().expect("the server says more").expect("a line");
            assert!(line.starts_with(expected), "expected {expected:?}: {line}");
        }
        std::thread::spawn(move || lines.for_each(drop));
        KubectlServer {
            child,
            dir,
            kubectl,
        }
    }

    /// The directory of the kubeconfig, kubectl's cache and [`file`](Self::file)s; kubectl
    /// runs in it.
    #[must_use]
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// kubectl with `args`, configured for this server (its own kubeconfig and cache).
    #[must_use]
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.kubectl);
        command
            .arg("--kubeconfig")
            .arg(self.dir().join("config"))
            .arg("--cache-dir")
            .arg(self.dir().join("cache"))
            .arg("--request-timeout=30s")
            .args(args)
            .current_dir(self.dir());
        command
    }

    /// Runs kubectl with `args`, `stdin` on its standard input: whether it succeeded, its
    /// standard output and its standard error.
    ///
    /// # Panics
    ///
    /// When kubectl cannot be run.
    #[must_use]
    pub fn run(&self, args: &[&str], stdin: &str) -> (bool, String, String) {
        let output = output_with_stdin(&mut self.command(args), stdin);
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    /// kubectl that must succeed: its standard output.
    ///
    /// # Panics
    ///
    /// When it fails, with everything it said.
    #[must_use]
    pub fn ok(&self, args: &[&str], stdin: &str) -> String {
        let (success, stdout, stderr) = self.run(args, stdin);
        assert!(success, "kubectl {args:?} failed:\n{stdout}\n{stderr}");
        stdout
    }

    /// kubectl that must fail: its standard error.
    ///
    /// # Panics
    ///
    /// When it succeeds.
    #[must_use]
    pub fn fails(&self, args: &[&str], stdin: &str) -> String {
        let (success, stdout, stderr) = self.run(args, stdin);
        assert!(!success, "kubectl {args:?} succeeded:\n{stdout}");
        stderr
    }

    /// Writes `text` to the file `name` in [`dir`](Self::dir); its path.
    ///
    /// # Panics
    ///
    /// When it cannot be written.
    #[must_use]
    pub fn file(&self, name: &str, text: &str) -> String {
        let path = self.dir().join(name);
        std::fs::write(&path, text).expect("the file is written");
        path.display().to_string()
    }

    /// Sends SIGTERM and waits up to 5 s for the server to exit: how it exited.
    ///
    /// # Panics
    ///
    /// When the signal cannot be sent or the server does not exit in time.
    pub fn terminate(&mut self) -> ExitStatus {
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "kill -TERM failed");
        for _ in 0..100 {
            if let Some(exit) = self.child.try_wait().expect("the server's status") {
                return exit;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the server did not stop within 5 s of SIGTERM");
    }
}

impl Drop for KubectlServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `command` (a kubectl command line) with `stdin` on its standard input, and returns
/// its exit status, standard output and standard error.
///
/// # Panics
///
/// When the program cannot be run.
pub fn output_with_stdin(command: &mut Command, stdin: &str) -> std::process::Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kubectl runs");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(stdin.as_bytes())
        .expect("kubectl reads its input");
    child.wait_with_output().expect("kubectl ends")
}
