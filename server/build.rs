//! Writes `$OUT_DIR/kubernetes.protoset`: the `FileDescriptorSet` of Kubernetes' protobuf
//! messages (feature `protobuf`), which `src/protobuf.rs` reads to transcode protobuf bodies.
//!
//! The `.proto` files are the upstream `generated.proto` of k8s.io/api, apimachinery,
//! apiextensions-apiserver, kube-aggregator and metrics for Kubernetes 1.35, as the
//! `k8s-rs-pb` crate ships them (packages renamed without their `k8s.io.` prefix, as k8s-pb
//! does). That crate is a build dependency with no version feature, so none of its Rust code
//! is compiled; `cargo metadata` says where its files are, and `protox` (a protobuf compiler
//! in Rust, so no `protoc` is needed) compiles them. Without the feature the set is empty and
//! the server answers protobuf bodies with 415.

#[cfg(feature = "protobuf")]
use std::path::Path;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo::rerun-if-changed=build.rs");
    let bytes = if std::env::var_os("CARGO_FEATURE_PROTOBUF").is_some() {
        descriptors()
    } else {
        Vec::new()
    };
    std::fs::write(out.join("kubernetes.protoset"), bytes).expect("write the descriptor set");
}

#[cfg(not(feature = "protobuf"))]
fn descriptors() -> Vec<u8> {
    Vec::new()
}

#[cfg(feature = "protobuf")]
fn descriptors() -> Vec<u8> {
    use protox::prost::Message as _;
    let root = proto_root();
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    files.sort();
    assert!(
        !files.is_empty(),
        "no .proto files under {}",
        root.display()
    );
    let set = protox::compile(&files, [&root])
        .unwrap_or_else(|e| panic!("compiling the Kubernetes .proto files: {e}"));
    set.encode_to_vec()
}

/// `src/v1_35` of the `k8s-rs-pb` package, found with `cargo metadata`.
#[cfg(feature = "protobuf")]
fn proto_root() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    )
    .join("Cargo.toml");
    let target = std::env::var("TARGET").expect("cargo sets TARGET");
    // Offline first (everything this build needs is there); online if some other platform's
    // or member's package is missing from the local registry.
    let run = |offline: bool| {
        let mut command = std::process::Command::new(&cargo);
        command
            .args([
                "metadata",
                "--format-version",
                "1",
                "--filter-platform",
                &target,
            ])
            .arg("--manifest-path")
            .arg(&manifest);
        if offline {
            command.arg("--offline");
        }
        command.output().expect("run cargo metadata")
    };
    let output = match run(true) {
        output if output.status.success() => output,
        _ => run(false),
    };
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata writes JSON");
    let package = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "k8s-rs-pb")
        .expect("k8s-rs-pb is a build dependency");
    let manifest_path = package["manifest_path"].as_str().expect("a manifest path");
    let root = Path::new(manifest_path)
        .parent()
        .expect("the manifest is in the package directory")
        .join("src/v1_35");
    println!("cargo::rerun-if-changed={}", root.display());
    root
}

#[cfg(feature = "protobuf")]
fn collect(root: &Path, dir: &Path, files: &mut Vec<String>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, files);
        } else if path.extension().is_some_and(|e| e == "proto") {
            // The test API group is no API a server serves.
            let relative = path
                .strip_prefix(root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            if !relative.contains("testapigroup") {
                files.push(relative);
            }
        }
    }
}
