//! The one statistics module of the benches: medians with their range, and ratios of
//! medians. `cargo xtask bench` and `cargo xtask bench-builders` both report through it.

/// Median and range (min–max) of several runs of one measurement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Stat {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Stat {
    /// The statistics of `values`, or an error naming `what` when there are none or one is not
    /// a finite number (a measurement that failed must not become a figure).
    pub(crate) fn of(what: &str, values: &[f64]) -> Result<Stat, String> {
        if values.is_empty() {
            return Err(format!("{what}: no measurements"));
        }
        if let Some(bad) = values.iter().find(|v| !v.is_finite()) {
            return Err(format!("{what}: measured {bad}, not a finite number"));
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            f64::midpoint(sorted[n / 2 - 1], sorted[n / 2])
        };
        Ok(Stat {
            median,
            min: sorted[0],
            max: sorted[n - 1],
        })
    }

    /// The statistics of one field of several measurements.
    pub(crate) fn field<T>(
        what: &str,
        runs: &[T],
        field: impl Fn(&T) -> f64,
    ) -> Result<Stat, String> {
        Stat::of(what, &runs.iter().map(field).collect::<Vec<_>>())
    }

    /// `12.3 (12.1–12.9)` with `digits` decimals; just the median when every run agreed.
    pub(crate) fn show(&self, digits: usize) -> String {
        let (median, min, max) = (
            format!("{:.digits$}", self.median),
            format!("{:.digits$}", self.min),
            format!("{:.digits$}", self.max),
        );
        if min == max {
            median
        } else {
            format!("{median} ({min}–{max})")
        }
    }

    /// This median divided by `other`'s (`1.25` means 25% more).
    pub(crate) fn ratio(&self, other: &Stat) -> f64 {
        ratio(self.median, other.median)
    }
}

/// `a ÷ b`; NaN when `b` is zero, so that a broken measurement never looks like a result
/// (the report prints it as `n/a`).
pub(crate) fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 { f64::NAN } else { a / b }
}

/// A ratio as the report writes it: `1.23×`, or `n/a`.
pub(crate) fn show_ratio(ratio: f64) -> String {
    if ratio.is_finite() {
        format!("{ratio:.2}×")
    } else {
        "n/a".to_owned()
    }
}

/// The change from `base` to `value` in percent (`+10.0%`), or `n/a`.
pub(crate) fn show_change(value: f64, base: f64) -> String {
    let r = ratio(value, base);
    if r.is_finite() {
        format!("{:+.1}%", (r - 1.0) * 100.0)
    } else {
        "n/a".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        let odd = Stat::of("t", &[3.0, 1.0, 2.0]).unwrap();
        assert_eq!(
            odd,
            Stat {
                median: 2.0,
                min: 1.0,
                max: 3.0
            }
        );
        let even = Stat::of("t", &[4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!(
            even,
            Stat {
                median: 2.5,
                min: 1.0,
                max: 4.0
            }
        );
        let one = Stat::of("t", &[7.5]).unwrap();
        assert_eq!(
            one,
            Stat {
                median: 7.5,
                min: 7.5,
                max: 7.5
            }
        );
        // An outlier moves the range, not the median.
        let outlier = Stat::of("t", &[10.0, 10.0, 11.0, 10.0, 1000.0]).unwrap();
        assert_eq!(outlier.median, 10.0);
        assert_eq!(outlier.max, 1000.0);
    }

    #[test]
    fn no_or_broken_measurements_are_errors_naming_them() {
        let error = Stat::of("dev build", &[]).unwrap_err();
        assert!(
            error.contains("dev build") && error.contains("no measurements"),
            "{error}"
        );
        let error = Stat::of("de_mbps", &[1.0, f64::NAN]).unwrap_err();
        assert!(
            error.contains("de_mbps") && error.contains("NaN"),
            "{error}"
        );
        assert!(Stat::of("x", &[f64::INFINITY]).is_err());
    }

    #[test]
    fn field_takes_one_value_per_run() {
        let runs = [(1.0, 9.0), (3.0, 8.0), (2.0, 7.0)];
        assert_eq!(Stat::field("first", &runs, |r| r.0).unwrap().median, 2.0);
        assert_eq!(Stat::field("second", &runs, |r| r.1).unwrap().median, 8.0);
    }

    #[test]
    fn ratios_of_medians() {
        let ours = Stat::of("a", &[2.0, 3.0, 100.0]).unwrap();
        let theirs = Stat::of("b", &[1.0, 2.0, 2.0]).unwrap();
        assert_eq!(ours.ratio(&theirs), 1.5);
        assert_eq!(show_ratio(ours.ratio(&theirs)), "1.50×");
        assert_eq!(show_change(3.5, 3.0), "+16.7%");
        assert_eq!(show_change(2.7, 3.0), "-10.0%");
        assert!(ratio(1.0, 0.0).is_nan());
        assert_eq!(show_ratio(ratio(1.0, 0.0)), "n/a");
        assert_eq!(show_change(1.0, 0.0), "n/a");
    }

    #[test]
    fn show_gives_the_range_only_when_runs_differ() {
        let same = Stat::of("t", &[1.234, 1.231]).unwrap();
        assert_eq!(same.show(2), "1.23");
        let spread = Stat::of("t", &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(spread.show(1), "2.0 (1.0–3.0)");
    }
}
