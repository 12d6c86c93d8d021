//! Rebuilding without changes does not rewrite the generated files: the build script's
//! generation, run again into the real `OUT_DIR`, writes nothing and every modification time
//! stays as it was.

#[path = "../generate.rs"]
mod generate;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

fn listing(dir: &Path, into: &mut Vec<(PathBuf, SystemTime, u64)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let meta = fs::symlink_metadata(entry.path()).unwrap();
        if meta.is_dir() {
            listing(&entry.path(), into);
        } else {
            into.push((entry.path(), meta.modified().unwrap(), meta.len()));
        }
    }
    into.sort();
}

#[test]
fn rebuilding_writes_nothing_and_keeps_modification_times() {
    let out_dir = Path::new(env!("OUT_DIR"));
    let mut before = Vec::new();
    listing(out_dir, &mut before);
    assert!(
        before
            .iter()
            .any(|(path, _, _)| path.ends_with("nested/custom.rs"))
    );
    assert!(before.iter().any(|(path, _, _)| path.ends_with("lean.rs")));

    let reports = generate::run(out_dir).unwrap();
    for report in &reports {
        assert!(report.written.is_empty(), "rewrote {:?}", report.written);
        assert_eq!(report.unchanged.len(), 1);
    }

    let mut after = Vec::new();
    listing(out_dir, &mut after);
    assert_eq!(before, after, "the output directory changed");
}
