//! Writing output: unchanged files are not rewritten (mtimes kept), stale generated files
//! are removed, files without the generated header are never touched, `check` never writes.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use kubeforge::Config;
use serde_json::json;

fn output_for(properties: &[&str]) -> kubeforge::Output {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut schemas = serde_json::Map::new();
    for name in properties {
        schemas.insert(
            format!("io.example.v1.{name}"),
            json!({"type": "object", "properties": {"x": {"type": "string"}}}),
        );
    }
    let doc = json!({"openapi": "3.0.0", "info": {"title": "t", "version": "v1"}, "paths": {}, "components": {"schemas": schemas}});
    let path = dir.path().join("in.json");
    fs::write(&path, doc.to_string()).expect("write input");
    Config::new()
        .input_named(&path, "in.json")
        .generate()
        .expect("generates")
}

fn mtime(path: &Path) -> SystemTime {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .expect("mtime")
}

#[test]
fn unchanged_files_keep_their_mtime_and_stale_ones_go() {
    let out = tempfile::tempdir().expect("temp dir");
    let first = output_for(&["A", "B"]);
    let report = first.write(out.path()).expect("first write");
    assert_eq!(report.written.len(), first.files().len());

    let a = out.path().join("io/example/v1/a.rs");
    let old = SystemTime::now() - Duration::from_secs(3600);
    fs::File::options()
        .write(true)
        .open(&a)
        .and_then(|f| f.set_modified(old))
        .expect("set mtime");

    let foreign = out.path().join("io/example/v1/notes.rs");
    fs::write(&foreign, "// hand-written, not generated\n").expect("write foreign");

    let second = output_for(&["A"]);
    let report = second.write(out.path()).expect("second write");
    assert_eq!(mtime(&a), old, "an unchanged file must not be rewritten");
    assert!(
        report
            .unchanged
            .contains(&Path::new("io/example/v1/a.rs").to_path_buf())
    );
    assert_eq!(
        report.removed,
        vec![Path::new("io/example/v1/b.rs").to_path_buf()]
    );
    assert!(!out.path().join("io/example/v1/b.rs").exists());
    assert!(
        foreign.exists(),
        "a file without the generated header is never removed"
    );

    assert!(second.check(out.path()).expect("check").is_clean());
}

#[test]
fn check_reports_without_writing() {
    let out = tempfile::tempdir().expect("temp dir");
    output_for(&["A", "B"]).write(out.path()).expect("write");
    let b = out.path().join("io/example/v1/b.rs");
    let edited = fs::read_to_string(&b)
        .expect("read")
        .replace("pub x", "pub y");
    fs::write(&b, &edited).expect("edit");

    let report = output_for(&["A", "B", "C"])
        .check(out.path())
        .expect("check");
    assert!(!report.is_clean());
    assert!(
        report.diff.contains("-    pub y: Option<String>,"),
        "{}",
        report.diff
    );
    assert!(
        report.diff.contains("+++ b/io/example/v1/c.rs"),
        "{}",
        report.diff
    );
    assert_eq!(
        fs::read_to_string(&b).expect("read"),
        edited,
        "check must not write"
    );
    assert!(
        !out.path().join("io/example/v1/c.rs").exists(),
        "check must not write"
    );

    let report = output_for(&["A"]).check(out.path()).expect("check");
    assert_eq!(
        report.stale,
        vec![Path::new("io/example/v1/b.rs").to_path_buf()]
    );
}

/// Every file a crate write can produce (each `src/` file and `Cargo.toml`), made
/// hand-written in turn: the `src/` files are refused, with nothing at all written, and the
/// manifest is kept, with a note.
#[test]
fn no_hand_written_file_is_ever_replaced() {
    use kubeforge::package::{CrateOptions, RuntimeDependency, write_crate};
    let options = CrateOptions {
        name: "mine".to_owned(),
        runtime: RuntimeDependency::Version("0.1".to_owned()),
        ..CrateOptions::default()
    };
    let (before, after) = (output_for(&["A", "B"]), output_for(&["A", "B", "C"]));
    let mut targets: Vec<PathBuf> = after
        .files()
        .keys()
        .map(|f| Path::new("src").join(f))
        .collect();
    targets.push(PathBuf::from("Cargo.toml"));
    let mine = "# hand-written\n// mine, not generated\n";
    for target in &targets {
        let dir = tempfile::tempdir().expect("temp dir");
        write_crate(&before, dir.path(), &options).expect("first write");
        let path = dir.path().join(target);
        fs::create_dir_all(path.parent().expect("parent")).expect("dir");
        fs::write(&path, mine).expect("hand-write");
        let snapshot = tree(dir.path());
        let result = write_crate(&after, dir.path(), &options);
        assert_eq!(
            fs::read_to_string(&path).expect("read"),
            mine,
            "{} was replaced",
            target.display()
        );
        if target == Path::new("Cargo.toml") {
            let report = result.expect("a hand-written manifest is kept, not an error");
            assert_eq!(report.kept, [PathBuf::from("../Cargo.toml")]);
            let note = report.notes.join("\n");
            for line in [
                "[dependencies] kubeforge-runtime = \"0.1\"",
                "[dependencies] serde_json = \"1\"",
            ] {
                assert!(note.contains(line), "the note lacks {line}: {note}");
            }
            assert!(dir.path().join("src/io/example/v1/c.rs").exists());
        } else {
            let error = result.expect_err("a hand-written file must be refused");
            assert_eq!(error.kinds(), [kubeforge::ErrorKind::Output]);
            assert_eq!(error.diagnostics()[0].origin.file, path, "{error}");
            assert!(error.to_string().contains("no generated header"), "{error}");
            assert_eq!(tree(dir.path()), snapshot, "a refusal must change nothing");
        }
    }

    // A symbolic link where a generated file belongs is refused, not followed.
    #[cfg(unix)]
    {
        let dir = tempfile::tempdir().expect("temp dir");
        before.write(dir.path()).expect("first write");
        let outside = tempfile::tempdir().expect("temp dir");
        let elsewhere = outside.path().join("elsewhere.rs");
        fs::write(&elsewhere, "// @generated by someone\n").expect("write");
        let link = dir.path().join("io/example/v1/a.rs");
        fs::remove_file(&link).expect("remove");
        std::os::unix::fs::symlink(&elsewhere, &link).expect("link");
        let error = after.write(dir.path()).expect_err("a link must be refused");
        assert!(error.to_string().contains("symbolic link"), "{error}");

        // An output directory that is a link is refused, not replaced.
        let real = tempfile::tempdir().expect("temp dir");
        let link = outside.path().join("link-to-output");
        std::os::unix::fs::symlink(real.path(), &link).expect("link");
        let error = before
            .write(&link)
            .expect_err("a linked output must be refused");
        assert!(error.to_string().contains("symbolic link"), "{error}");
        assert!(
            fs::symlink_metadata(&link)
                .expect("still there")
                .file_type()
                .is_symlink()
        );
    }
}

/// The build script's include file follows the same policy.
#[test]
fn a_hand_written_include_file_is_never_replaced() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("in.json");
    fs::write(&input, json!({"openapi": "3.0.0", "info": {"title": "t", "version": "v1"}, "paths": {}, "components": {"schemas": {"io.example.v1.A": {"type": "object"}}}}).to_string()).expect("write");
    let out = dir.path().join("out");
    fs::create_dir(&out).expect("dir");
    fs::write(out.join("k8s.rs"), "pub fn mine() {}\n").expect("write");
    let config = Config::new().input(&input).include_file("k8s.rs");
    let error = config.compile_to(&out).expect_err("refused");
    assert!(error.to_string().contains("no generated header"), "{error}");
    fs::remove_file(out.join("k8s.rs")).expect("remove");
    // Leftovers of a killed run are cleaned; the lock file does not outlive the run.
    fs::write(out.join(".k8s.rs.kubeforge-new-4242"), "half").expect("write");
    config.compile_to(&out).expect("compiles");
    let mut names: Vec<_> = fs::read_dir(&out)
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    names.sort();
    assert_eq!(names, ["k8s.rs"]);
}

#[test]
fn an_output_directory_that_is_a_file_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("api");
    fs::write(&file, "not a directory").expect("write");
    let options = kubeforge::package::CrateOptions {
        name: "x".to_owned(),
        runtime: kubeforge::package::RuntimeDependency::Version("0.1".to_owned()),
        ..kubeforge::package::CrateOptions::default()
    };
    let error =
        kubeforge::package::write_crate(&output_for(&["A"]), &file, &options).expect_err("refused");
    let text = error.to_string();
    assert!(
        text.contains("expected the output directory to be a directory, but it is a regular file"),
        "{text}"
    );
    assert!(!text.contains("os error"), "{text}");
    let error = output_for(&["A"]).write(&file).expect_err("refused");
    assert!(error.to_string().contains("regular file"), "{error}");
    // A path through the file: the file is named.
    let error = kubeforge::package::write_crate(&output_for(&["A"]), &file.join("sub"), &options)
        .expect_err("refused");
    assert_eq!(error.diagnostics()[0].origin.file, file, "{error}");
    assert!(
        error
            .to_string()
            .contains("on the way to the output directory"),
        "{error}"
    );
    assert_eq!(fs::read_to_string(&file).expect("read"), "not a directory");
}

/// The manifest holds nothing absolute, names the runtime relative to the crate, and has a
/// `[workspace]` of its own exactly when no enclosing workspace lists it; cargo accepts it
/// in each place.
#[test]
fn the_manifest_is_portable_and_fits_its_workspace() {
    use kubeforge::package::{CrateOptions, RuntimeDependency, write_crate};
    let runtime = kubeforge_tests::workspace_root().join("runtime");
    let options = CrateOptions {
        name: "api".to_owned(),
        runtime: RuntimeDependency::Path(runtime.clone()),
        ..CrateOptions::default()
    };
    let work = tempfile::tempdir().expect("temp dir");
    let manifest_in = |dir: &Path| {
        write_crate(&output_for(&["A"]), dir, &options).expect("writes");
        fs::read_to_string(dir.join("Cargo.toml")).expect("manifest")
    };
    let metadata_ok = |dir: &Path| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = std::process::Command::new(cargo)
            .args([
                "metadata",
                "--no-deps",
                "--offline",
                "--format-version",
                "1",
            ])
            .current_dir(dir)
            .output()
            .expect("cargo runs");
        assert!(
            output.status.success(),
            "cargo refuses the crate in {}:\n{}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    };

    let alone = work.path().join("alone");
    let manifest = manifest_in(&alone);
    let path_line = manifest
        .lines()
        .find(|l| l.starts_with("kubeforge-runtime"))
        .expect("runtime line");
    let relative = path_line.split('"').nth(1).expect("quoted path");
    assert!(!Path::new(relative).is_absolute(), "{path_line}");
    assert!(
        !manifest.contains(&*work.path().to_string_lossy()),
        "{manifest}"
    );
    assert_eq!(
        fs::canonicalize(alone.join(relative)).expect("resolves"),
        fs::canonicalize(&runtime).expect("runtime"),
    );
    assert!(manifest.contains("\n[workspace]\n"), "{manifest}");
    metadata_ok(&alone);

    let ws = work.path().join("ws");
    fs::create_dir_all(ws.join("app/src")).expect("dirs");
    fs::write(
        ws.join("Cargo.toml"),
        "[workspace]\nresolver = \"3\"\nmembers = [\n    \"app\",\n    \"gen/*\",\n]\n",
    )
    .expect("write");
    fs::write(
        ws.join("app/Cargo.toml"),
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    )
    .expect("write");
    fs::write(ws.join("app/src/lib.rs"), "").expect("write");
    let member = ws.join("gen/api");
    let manifest = manifest_in(&member);
    assert!(!manifest.contains("[workspace]"), "{manifest}");
    metadata_ok(&ws);
    metadata_ok(&member);

    // Inside the workspace's directory but no member of it: a workspace of its own.
    let outsider = ws.join("tools/api");
    assert!(manifest_in(&outsider).contains("\n[workspace]\n"));
    metadata_ok(&outsider);
}

fn tree(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, into: &mut std::collections::BTreeMap<PathBuf, Vec<u8>>) {
        for entry in fs::read_dir(dir).expect("list").map(|e| e.expect("entry")) {
            let path = entry.path();
            if entry.file_type().expect("type").is_dir() {
                walk(root, &path, into);
            } else {
                let data = fs::read(&path).expect("read");
                into.insert(path.strip_prefix(root).expect("inside").to_path_buf(), data);
            }
        }
    }
    let mut into = std::collections::BTreeMap::new();
    walk(dir, dir, &mut into);
    into
}
