//! Writes `$OUT_DIR/kubernetes.protoset`: the `FileDescriptorSet` of Kubernetes' protobuf
//! messages (feature `protobuf`), which `src/wire/protobuf.rs` reads to transcode protobuf bodies.
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

/// `src/v1_35` of the `k8s-rs-pb` package, found with `cargo metadata` of this package; or,
/// where that cannot resolve (`cargo package` verifies this crate against its siblings'
/// unpublished packages, which only cargo's own run knows), of a manifest beside `OUT_DIR`
/// that depends on `k8s-rs-pb` alone, at the version this package's manifest requires.
#[cfg(feature = "protobuf")]
fn proto_root() -> PathBuf {
    let manifest = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    )
    .join("Cargo.toml");
    let root = match k8s_rs_pb_dir(&manifest) {
        Ok(dir) => dir,
        Err(first) => {
            let text = std::fs::read_to_string(&manifest).expect("read Cargo.toml");
            // `k8s-rs-pb = { version = … }` as written, `[build-dependencies.k8s-rs-pb]`
            // then `version = …` as `cargo package` writes it.
            let requirement = ["k8s-rs-pb = {", "[build-dependencies.k8s-rs-pb]"]
                .into_iter()
                .find_map(|key| text.split_once(key))
                .and_then(|(_, rest)| rest.split_once("version = \""))
                .and_then(|(_, rest)| rest.split_once('"'))
                .map(|(version, _)| version)
                .expect("Cargo.toml requires a version of k8s-rs-pb");
            let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
            let locate = out.join("locate-k8s-rs-pb");
            std::fs::create_dir_all(&locate).expect("create the locating package");
            std::fs::write(locate.join("lib.rs"), "").expect("write the locating package");
            std::fs::write(
                locate.join("Cargo.toml"),
                format!(
                    "[package]\nname = \"locate-k8s-rs-pb\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
                     [lib]\npath = \"lib.rs\"\n\n[dependencies]\nk8s-rs-pb = {{ version = \
                     \"{requirement}\", default-features = false }}\n\n[workspace]\n"
                ),
            )
            .expect("write the locating package");
            k8s_rs_pb_dir(&locate.join("Cargo.toml")).unwrap_or_else(|second| {
                panic!("cannot find k8s-rs-pb: {first}; then: {second}")
            })
        }
    }
    .join("src/v1_35");
    println!("cargo::rerun-if-changed={}", root.display());
    root
}

/// The directory of the `k8s-rs-pb` package in the dependencies of `manifest`.
#[cfg(feature = "protobuf")]
fn k8s_rs_pb_dir(manifest: &Path) -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
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
            .arg(manifest);
        if offline {
            command.arg("--offline");
        }
        command.output().expect("run cargo metadata")
    };
    let output = match run(true) {
        output if output.status.success() => output,
        _ => run(false),
    };
    if !output.status.success() {
        return Err(format!(
            "cargo metadata of {} failed: {}",
            manifest.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata writes JSON");
    let package = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "k8s-rs-pb")
        .ok_or_else(|| format!("{} does not depend on k8s-rs-pb", manifest.display()))?;
    let manifest_path = package["manifest_path"].as_str().expect("a manifest path");
    Ok(Path::new(manifest_path)
        .parent()
        .expect("the manifest is in the package directory")
        .to_path_buf())
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
