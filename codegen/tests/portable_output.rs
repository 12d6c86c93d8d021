//! The generated crate is portable: the same command run from different current directories
//! (with the input and output spelled differently) writes byte-identical trees, and no file
//! holds an absolute path.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, into: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir)
            .expect("list")
            .map(|e| e.expect("entry"))
        {
            let path = entry.path();
            if entry.file_type().expect("type").is_dir() {
                walk(root, &path, into);
            } else {
                let data = std::fs::read(&path).expect("read");
                into.insert(path.strip_prefix(root).expect("inside").to_path_buf(), data);
            }
        }
    }
    let mut into = BTreeMap::new();
    walk(dir, dir, &mut into);
    into
}

fn generate(cwd: &Path, input: &Path, out: &Path) {
    let output = Command::new(env!("CARGO_BIN_EXE_kubeforge"))
        .arg(input)
        .arg("--out")
        .arg(out)
        .current_dir(cwd)
        .output()
        .expect("kubeforge runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn generating_from_two_directories_gives_identical_trees() {
    let work = tempfile::tempdir().expect("temp dir");
    let project = work.path().join("project");
    std::fs::create_dir_all(project.join("crds")).expect("dirs");
    std::fs::write(
        project.join("crds/widgets.yaml"),
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec: {type: object, properties: {size: {type: integer}}}\n",
    )
    .expect("write CRD");
    let out = project.join("api");

    generate(&project, Path::new("crds/widgets.yaml"), Path::new("api"));
    let first = tree(&out);
    std::fs::remove_dir_all(&out).expect("remove");
    generate(
        &project.join("crds"),
        Path::new("./widgets.yaml"),
        &project.join("crds/../api"),
    );
    let second = tree(&out);
    assert_eq!(
        first.keys().collect::<Vec<_>>(),
        second.keys().collect::<Vec<_>>()
    );
    for (path, content) in &first {
        assert!(
            second[path] == *content,
            "{} differs:\n{}\n---\n{}",
            path.display(),
            String::from_utf8_lossy(content),
            String::from_utf8_lossy(&second[path])
        );
        let text = String::from_utf8_lossy(content);
        for absolute in [
            work.path().to_string_lossy().into_owned(),
            env!("CARGO_MANIFEST_DIR").to_owned(),
        ] {
            assert!(
                !text.contains(&absolute),
                "{} holds the absolute path {absolute}",
                path.display()
            );
        }
    }
    let header =
        String::from_utf8_lossy(&first[Path::new("src/com/example/v1/widget.rs")]).into_owned();
    assert!(
        header.contains("// Source: ../crds/widgets.yaml#"),
        "{}",
        header.lines().take(2).collect::<Vec<_>>().join("\n")
    );
}
