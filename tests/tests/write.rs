//! Writing output: unchanged files are not rewritten (mtimes kept), stale generated files
//! are removed, files without the generated header are never touched, `check` never writes.

use std::fs;
use std::path::Path;
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
