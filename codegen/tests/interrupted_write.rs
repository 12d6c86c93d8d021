//! An interrupted write (`kill -9` at any moment) leaves the output directory entirely old
//! or entirely new, never a mixture and never half a file.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use kubeforge::Config;

/// A document of `count` schemas whose names and fields depend on `variant`, so the two
/// variants' outputs share no file content.
fn document(dir: &Path, variant: &str, count: usize) -> PathBuf {
    let mut schemas = serde_json::Map::new();
    for i in 0..count {
        let properties: serde_json::Map<String, serde_json::Value> = (0..20)
            .map(|f| (format!("{variant}Field{f}"), serde_json::json!({"type": "string", "description": format!("{variant} field {f} of type {i}")})))
            .collect();
        schemas.insert(
            format!("io.example.v1.Type{i}"),
            serde_json::json!({"type": "object", "properties": properties}),
        );
    }
    let doc = serde_json::json!({"openapi": "3.0.0", "info": {"title": variant, "version": "v1"}, "paths": {}, "components": {"schemas": schemas}});
    let path = dir.join(format!("{variant}.json"));
    std::fs::write(&path, doc.to_string()).expect("write input");
    path
}

fn run(input: &Path, out: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kubeforge"));
    command
        .arg(input)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

#[test]
fn killed_writes_leave_old_or_new() {
    let work = tempfile::tempdir().expect("temp dir");
    let inputs = [
        document(work.path(), "alpha", 400),
        document(work.path(), "beta", 400),
    ];
    let expected: Vec<kubeforge::Output> = inputs
        .iter()
        .map(|input| Config::new().input(input).generate().expect("generates"))
        .collect();
    let out = work.path().join("crate");
    let src = out.join("src");

    // How long one full run takes, to spread the kills over it.
    let started = Instant::now();
    assert!(run(&inputs[0], &out).status().expect("runs").success());
    let full = started.elapsed();

    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let (mut killed, mut finished) = (0, 0);
    for round in 0..24 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let delay = full.mul_f64(((state >> 33) % 1000) as f64 / 1000.0 * 1.2);
        let mut child = run(&inputs[round % 2], &out).spawn().expect("spawns");
        std::thread::sleep(delay);
        match child.try_wait().expect("wait") {
            Some(_) => finished += 1,
            None => {
                child.kill().expect("kill -9");
                killed += 1;
            }
        }
        let _ = child.wait();
        let clean: Vec<bool> = expected
            .iter()
            .map(|e| e.check(&src).expect("check").is_clean())
            .collect();
        assert!(
            clean.contains(&true),
            "round {round}: after a kill at {delay:?} the output is neither the old nor the new tree"
        );
    }
    eprintln!(
        "interrupted-write: {killed} runs killed mid-way, {finished} finished, one full run takes {full:?}"
    );
    assert!(
        killed >= 8,
        "the test must really interrupt runs (killed {killed} of 24)"
    );
}
