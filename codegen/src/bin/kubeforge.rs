//! `kubeforge`: generate a Rust crate from Kubernetes OpenAPI documents or CRDs.

/// A generation allocates and frees millions of small strings and vectors: with mimalloc it
/// spends a fraction of the instructions glibc's allocator does (BENCHMARKS.md a).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    kubeforge::cli::run(std::env::args_os())
}
