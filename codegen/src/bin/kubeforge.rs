//! `kubeforge`: generate a Rust crate from Kubernetes OpenAPI documents or CRDs.

fn main() -> std::process::ExitCode {
    kubeforge::cli::run(std::env::args_os())
}
