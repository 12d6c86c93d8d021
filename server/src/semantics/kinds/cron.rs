//! A CronJob's schedule as `cron.ParseStandard` parses it (github.com/robfig/cron/v3
//! parser.go, which `validateScheduleFormat` calls): five fields of ranges, steps, lists
//! and names, or a descriptor (`@daily`, `@every 1h`), refused with robfig's messages.
//! Written here because no Rust cron crate reads the same language (the `cron` crate
//! wants seconds and years, `croner` accepts `L`, `W` and `#`), and the API server answers
//! robfig's words. And whether a time zone exists, as `time.LoadLocation` finds it (for a
//! schedule's `CRON_TZ=` and a CronJob's `timeZone`).

/// One field's bounds and names (`seconds`, `minutes`, … in parser.go).
struct Bounds {
    min: u64,
    max: u64,
    names: &'static [(&'static str, u64)],
}

const MINUTES: Bounds = Bounds {
    min: 0,
    max: 59,
    names: &[],
};
const HOURS: Bounds = Bounds {
    min: 0,
    max: 23,
    names: &[],
};
const DOM: Bounds = Bounds {
    min: 1,
    max: 31,
    names: &[],
};
const MONTHS: Bounds = Bounds {
    min: 1,
    max: 12,
    names: &[
        ("jan", 1),
        ("feb", 2),
        ("mar", 3),
        ("apr", 4),
        ("may", 5),
        ("jun", 6),
        ("jul", 7),
        ("aug", 8),
        ("sep", 9),
        ("oct", 10),
        ("nov", 11),
        ("dec", 12),
    ],
};
const DOW: Bounds = Bounds {
    min: 0,
    max: 6,
    names: &[
        ("sun", 0),
        ("mon", 1),
        ("tue", 2),
        ("wed", 3),
        ("thu", 4),
        ("fri", 5),
        ("sat", 6),
    ],
};

/// `cron.ParseStandard(spec)`'s error, if any.
pub(super) fn parse_standard(spec: &str) -> Result<(), String> {
    if spec.is_empty() {
        return Err("empty spec string".to_owned());
    }
    let mut spec = spec;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let (Some(space), Some(eq)) = (spec.find(' '), spec.find('=')) else {
            return Err(format!(
                "provided bad location {}: unknown time zone",
                &spec[spec.find('=').map_or(0, |e| e + 1)..]
            ));
        };
        let zone = &spec[eq + 1..space];
        if !zone_exists(zone) {
            return Err(format!(
                "provided bad location {zone}: unknown time zone {zone}"
            ));
        }
        spec = spec[space..].trim();
    }
    if spec.starts_with('@') {
        return descriptor(spec);
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(format!(
            "expected exactly 5 fields, found {}: [{}]",
            fields.len(),
            fields.join(" ")
        ));
    }
    for (field, bounds) in fields.iter().zip([&MINUTES, &HOURS, &DOM, &MONTHS, &DOW]) {
        for expr in field.split(',').filter(|e| !e.is_empty()) {
            range(expr, bounds)?;
        }
    }
    Ok(())
}

/// `getRange`.
fn range(expr: &str, bounds: &Bounds) -> Result<(), String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_and_high: Vec<&str> = range_and_step[0].split('-').collect();
    let (start, mut end) = if matches!(low_and_high[0], "*" | "?") {
        (bounds.min, bounds.max)
    } else {
        let start = int_or_name(low_and_high[0], bounds)?;
        let end = match low_and_high.len() {
            1 => start,
            2 => int_or_name(low_and_high[1], bounds)?,
            _ => return Err(format!("too many hyphens: {expr}")),
        };
        (start, end)
    };
    let step = match range_and_step.len() {
        1 => 1,
        2 => {
            let step = int(range_and_step[1])?;
            if low_and_high.len() == 1 {
                end = bounds.max;
            }
            step
        }
        _ => return Err(format!("too many slashes: {expr}")),
    };
    if start < bounds.min {
        return Err(format!(
            "beginning of range ({start}) below minimum ({}): {expr}",
            bounds.min
        ));
    }
    if end > bounds.max {
        return Err(format!(
            "end of range ({end}) above maximum ({}): {expr}",
            bounds.max
        ));
    }
    if start > end {
        return Err(format!(
            "beginning of range ({start}) beyond end of range ({end}): {expr}"
        ));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr}"));
    }
    Ok(())
}

fn int_or_name(expr: &str, bounds: &Bounds) -> Result<u64, String> {
    let lower = expr.to_lowercase();
    match bounds.names.iter().find(|(name, _)| *name == lower) {
        Some((_, n)) => Ok(*n),
        None => int(expr),
    }
}

/// `mustParseInt`, with `strconv.Atoi`'s errors.
fn int(expr: &str) -> Result<u64, String> {
    let digits = expr.strip_prefix(['+', '-']).unwrap_or(expr);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "failed to parse int from {expr}: strconv.Atoi: parsing {}: invalid syntax",
            kubeforge_runtime::schema::gofmt::quote(expr)
        ));
    }
    let Ok(n) = expr.parse::<i64>() else {
        return Err(format!(
            "failed to parse int from {expr}: strconv.Atoi: parsing {}: value out of range",
            kubeforge_runtime::schema::gofmt::quote(expr)
        ));
    };
    u64::try_from(n).map_err(|_| format!("negative number ({n}) not allowed: {expr}"))
}

/// `parseDescriptor`.
fn descriptor(spec: &str) -> Result<(), String> {
    if matches!(
        spec,
        "@yearly" | "@annually" | "@monthly" | "@weekly" | "@daily" | "@midnight" | "@hourly"
    ) {
        return Ok(());
    }
    if let Some(duration) = spec.strip_prefix("@every ") {
        return if go_duration(duration) {
            Ok(())
        } else {
            Err(format!(
                "failed to parse duration {spec}: time: invalid duration {}",
                kubeforge_runtime::schema::gofmt::quote(duration)
            ))
        };
    }
    Err(format!("unrecognized descriptor: {spec}"))
}

/// Whether `time.ParseDuration` reads `s`: `[-+]` then numbers with units, or `0`.
fn go_duration(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    if s == "0" {
        return true;
    }
    let mut rest = s;
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(rest.len());
        let number = &rest[..digits];
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return false;
        }
        rest = &rest[digits..];
        let unit = ["ns", "us", "µs", "μs", "ms", "s", "m", "h"]
            .iter()
            .filter(|u| rest.starts_with(**u))
            .max_by_key(|u| u.len());
        match unit {
            Some(unit) => rest = &rest[unit.len()..],
            None => return false,
        }
    }
    true
}

/// Whether `time.LoadLocation` finds `zone`: `UTC` and `Local` always, the others in the
/// system's time zone database (any name when the system has none).
pub(super) fn zone_exists(zone: &str) -> bool {
    let db = jiff::tz::db();
    matches!(zone, "UTC" | "Local") || db.is_definitively_empty() || db.get(zone).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_as_robfig_reads_them() {
        for ok in [
            "*/5 * * * *",
            "0 9 * * MON-FRI",
            "@hourly",
            "@every 1h30m",
            "0 0 1 jan,jul ?",
        ] {
            assert_eq!(parse_standard(ok), Ok(()), "{ok}");
        }
        assert_eq!(
            parse_standard("* * * *"),
            Err("expected exactly 5 fields, found 4: [* * * *]".to_owned())
        );
        assert_eq!(
            parse_standard("70 * * * *"),
            Err("end of range (70) above maximum (59): 70".to_owned())
        );
        assert_eq!(
            parse_standard("x * * * *"),
            Err(
                "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"
                    .to_owned()
            )
        );
        assert_eq!(
            parse_standard("@fortnightly"),
            Err("unrecognized descriptor: @fortnightly".to_owned())
        );
    }
}
