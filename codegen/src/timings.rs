//! How long each stage of a generation took: what `--timings` reports and `cargo xtask bench`
//! reads to say where the time of a generation goes.

use std::time::Duration;

/// The wall time of each stage of one [`Config::generate`](crate::Config::generate), in
/// order; [`Output::timings`](crate::Output::timings) holds it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timings {
    /// Reading, parsing and merging the documents into typed input.
    pub load: Duration,
    /// Building the model: types, names, operations.
    pub model: Duration,
    /// Writing the items of every file, as text or tokens.
    pub emit: Duration,
    /// Formatting the token parts and assembling each file.
    pub render: Duration,
}

impl Timings {
    /// One JSON object, in seconds: `{"load_s":…,"model_s":…,"emit_s":…,"render_s":…,
    /// "write_s":…}`, with `write` (putting the files on disk), which the caller measures.
    #[must_use]
    pub fn to_json(&self, write: Duration) -> String {
        format!(
            "{{\"load_s\":{:.6},\"model_s\":{:.6},\"emit_s\":{:.6},\"render_s\":{:.6},\"write_s\":{:.6}}}",
            self.load.as_secs_f64(),
            self.model.as_secs_f64(),
            self.emit.as_secs_f64(),
            self.render.as_secs_f64(),
            write.as_secs_f64()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_one_object_in_seconds() {
        let timings = Timings {
            load: Duration::from_millis(71),
            model: Duration::from_micros(200_500),
            emit: Duration::from_secs(1),
            render: Duration::ZERO,
        };
        let json: serde_json::Value =
            serde_json::from_str(&timings.to_json(Duration::from_millis(5))).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"load_s": 0.071, "model_s": 0.2005, "emit_s": 1.0, "render_s": 0.0, "write_s": 0.005})
        );
    }
}
