mod generate;

fn main() {
    println!("cargo::rerun-if-changed={}", generate::SCHEMA);
    println!("cargo::rerun-if-changed=generate.rs");
    let out_dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    if let Err(e) = generate::run(std::path::Path::new(&out_dir)) {
        panic!("{e}");
    }
}
