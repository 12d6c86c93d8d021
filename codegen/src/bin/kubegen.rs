//! `kubegen`: generate a Rust crate from Kubernetes OpenAPI documents or CRDs.

fn main() -> std::process::ExitCode {
    kubegen::cli::run(std::env::args_os())
}
