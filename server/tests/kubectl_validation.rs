//! `kubectl` against the `kubeforge-server` binary refuses what a real API server refuses,
//! and prints it as it prints a real server's answer: one server for the file, serving
//! Kubernetes' own `api/v1` document and Istio's published CRDs (from `../shared`).
//!
//! - A ConfigMap named `BAD_NAME`, a ConfigMap with an unknown top-level key (kubectl sends
//!   `fieldValidation=Strict` unless told otherwise; `--validate=warn` makes it a warning,
//!   `--validate=false` drops the field), and an Istio ServiceEntry without its required
//!   `spec`: each with the API server's exact message.
//! - Every Istio example applied with `kubectl apply` (two invocations: the invalid files,
//!   the valid files): each invalid object refused with the text a real API server gives
//!   (its `_err`, or `examples::DECODED_DIFFERENTLY`'s), each valid one created.
//!
//! kubectl is found on `PATH`; without it or the documents the test says `SKIPPED` (and
//! fails under `CI`).

use std::path::{Path, PathBuf};

use kubeforge_tests::kubectl_server::KubectlServer;

/// The server binary on a loopback port, and kubectl configured for it; killed on drop.
struct Session {
    server: KubectlServer,
}

impl Session {
    fn start(kubectl: PathBuf, inputs: &[PathBuf]) -> Session {
        let server = KubectlServer::start(env!("CARGO_BIN_EXE_kubeforge-server"), kubectl, inputs);
        Session { server }
    }

    /// Runs kubectl with `args` and `stdin`: whether it succeeded, its stdout and stderr.
    fn run(&self, args: &[&str], stdin: &str) -> (bool, String, String) {
        self.server.run(args, stdin)
    }

    /// kubectl that must fail: its stderr.
    fn fails(&self, args: &[&str], stdin: &str) -> String {
        self.server.fails(args, stdin)
    }

    /// kubectl that must succeed: its stdout and stderr.
    fn ok(&self, args: &[&str], stdin: &str) -> (String, String) {
        let (success, stdout, stderr) = self.run(args, stdin);
        assert!(success, "kubectl {args:?} failed:\n{stdout}\n{stderr}");
        (stdout, stderr)
    }
}

const SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// The documents of an examples file as kubectl should read them (the original text, so
/// that kubectl's YAML reader decides every scalar), without their `_err` lines, each
/// paired with its expected error; documents whose error Istio has not written yet
/// (`#_err: "TODO"` in an invalid file) are left out.
fn stripped(file: &Path) -> (String, Vec<Option<String>>) {
    let text = std::fs::read_to_string(file).unwrap();
    let examples = kubeforge_tests::examples::examples(file);
    let documents: Vec<&str> = text
        .split("\n---")
        .filter(|d| {
            d.lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        })
        .collect();
    assert_eq!(documents.len(), examples.len(), "{}", file.display());
    let invalid = file.to_string_lossy().contains("-invalid");
    let mut kept = Vec::new();
    let mut expected = Vec::new();
    for (document, (error, object)) in documents.into_iter().zip(examples) {
        let name = object["metadata"]["name"].as_str().unwrap();
        assert!(document.contains(name), "{}: {name}", file.display());
        if invalid && error.is_none() {
            continue;
        }
        let lines: Vec<&str> = document
            .lines()
            .filter(|l| !l.starts_with("_err:") && *l != "---")
            .collect();
        kept.push(lines.join("\n"));
        expected.push(error);
    }
    (kept.join("\n---\n") + "\n", expected)
}

/// The refusals kubectl printed for a batch, one per failed document, in order.
fn refusals(stderr: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in stderr.lines() {
        if line.starts_with("Error from server") || line.starts_with("error: ") {
            out.push(line.to_owned());
        } else if let Some(last) = out.last_mut() {
            last.push('\n');
            last.push_str(line);
        }
    }
    out
}

#[test]
fn kubectl_prints_the_api_servers_refusals() {
    let test = "kubectl_prints_the_api_servers_refusals";
    let Some(kubectl) = kubeforge_tests::kubectl(test) else {
        return;
    };
    let Some(corpus) = kubeforge_tests::corpus(test, &["kubernetes/v3/api__v1_openapi.json"])
    else {
        return;
    };
    let Some(validation) = kubeforge_tests::validation_data(
        test,
        &["istio/customresourcedefinitions.gen.yaml", "istio/testdata"],
    ) else {
        return;
    };
    let session = Session::start(
        kubectl,
        &[
            corpus.join("kubernetes/v3/api__v1_openapi.json"),
            validation.join("istio/customresourcedefinitions.gen.yaml"),
        ],
    );

    // A bad name.
    let bad_name = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: BAD_NAME\ndata:\n  a: b\n";
    assert_eq!(
        session.fails(&["create", "-f", "-"], bad_name),
        format!(
            "The ConfigMap \"BAD_NAME\" is invalid: metadata.name: Invalid value: \"BAD_NAME\": {SUBDOMAIN}\n"
        )
    );

    // An unknown field: kubectl's default is Strict; `--validate=warn` asks for Warn.
    let unknown =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: NAME\nfoo: bar\ndata:\n  a: b\n";
    assert_eq!(
        session.fails(&["apply", "-f", "-"], &unknown.replace("NAME", "strict")),
        "Error from server (BadRequest): error when creating \"STDIN\": ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field \"foo\"\n"
    );
    let (stdout, stderr) = session.ok(
        &["create", "--validate=warn", "-f", "-"],
        &unknown.replace("NAME", "warned"),
    );
    assert_eq!(
        (stdout.as_str(), stderr.as_str()),
        (
            "configmap/warned created\n",
            "Warning: unknown field \"foo\"\n"
        )
    );
    let (stdout, stderr) = session.ok(
        &["create", "--validate=false", "-f", "-"],
        &unknown.replace("NAME", "ignored"),
    );
    assert_eq!(
        (stdout.as_str(), stderr.as_str()),
        ("configmap/ignored created\n", "")
    );

    // A custom resource without a required field.
    let no_spec =
        "apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata:\n  name: no-spec\n";
    assert_eq!(
        session.fails(&["apply", "-f", "-"], no_spec),
        "The ServiceEntry \"no-spec\" is invalid: \n* spec: Required value\n* <nil>: Invalid value: \"null\": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation\n"
    );

    // Istio's examples, one `kubectl apply` for the invalid files and one for the valid.
    let mut files: Vec<PathBuf> = std::fs::read_dir(validation.join("istio/testdata"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let work = session.server.dir();
    let (mut invalid, mut valid) = (Vec::new(), Vec::new());
    let (mut invalid_args, mut valid_args) = (vec!["apply".to_owned()], vec!["apply".to_owned()]);
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let (text, expected) = stripped(file);
        std::fs::write(work.join(&name), text).unwrap();
        let (list, args) = if name.contains("-invalid") {
            (&mut invalid, &mut invalid_args)
        } else {
            (&mut valid, &mut valid_args)
        };
        args.extend(["-f".to_owned(), name.clone()]);
        list.extend(expected.into_iter().map(|e| (name.clone(), e)));
    }
    let args: Vec<&str> = invalid_args.iter().map(String::as_str).collect();
    let (_, stdout, stderr) = session.run(&args, "");
    let printed = refusals(&stderr);
    let mut wrong = Vec::new();
    let mut refused = 0;
    for (i, (file, expected)) in invalid.iter().enumerate() {
        let expected =
            kubeforge_tests::examples::api_server_error(file, expected.as_deref().unwrap_or(""));
        match printed.get(i) {
            Some(line)
                if line.starts_with(&format!(
                    "Error from server (Invalid): error when creating \"{file}\": "
                )) && line.contains(expected) =>
            {
                refused += 1;
            }
            other => wrong.push(format!("{file}: expected {expected:?}, got {other:?}")),
        }
    }
    assert!(
        stdout.is_empty() && printed.len() == invalid.len(),
        "{} refusals for {} invalid objects; created:\n{stdout}",
        printed.len(),
        invalid.len()
    );
    let args: Vec<&str> = valid_args.iter().map(String::as_str).collect();
    let (success, stdout, stderr) = session.run(&args, "");
    let accepted = stdout
        .lines()
        .filter(|l| l.ends_with(" created") || l.ends_with(" configured"))
        .count();
    if !success || accepted != valid.len() {
        wrong.push(format!(
            "{accepted} of {} valid objects accepted:\n{stdout}\n{stderr}",
            valid.len()
        ));
    }
    kubeforge_tests::notice(&format!(
        "{test}: kubectl apply: {refused} of {} invalid Istio examples refused with the expected text, {accepted} of {} valid ones accepted",
        invalid.len(),
        valid.len()
    ));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(invalid.len() >= 70 && valid.len() >= 30);
}
