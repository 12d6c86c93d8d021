//! Fuzzes the whole generator on one input document: loading (JSON or YAML, any kind),
//! modelling, emitting and formatting. Any input must give output or an error; a panic,
//! an overflow or a hang is a bug.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = kubeforge::Config::new().input_bytes("fuzz-input", data).generate();
});
