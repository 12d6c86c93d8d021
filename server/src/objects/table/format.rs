//! How Go's printers write values: ages and durations (`HumanDuration`), labels and
//! selectors, lists cut after a few items, quantities, and the placeholders (`<none>`,
//! `<unset>`, `<unknown>`) that stand for what is missing.

use std::collections::BTreeMap;

use serde_json::Value;

/// `text`, or `fallback` when it is empty (the printers' `<none>`, `<unset>`…).
pub(super) fn or<'a>(text: &'a str, fallback: &'a str) -> &'a str {
    if text.is_empty() { fallback } else { text }
}

/// Up to `max` items joined with `,`, then ` + N more...`; `<unset>` when there are none.
pub(super) fn more(items: &[String], max: usize) -> String {
    if items.is_empty() {
        return "<unset>".to_owned();
    }
    let shown = items[..items.len().min(max)].join(",");
    if items.len() > max {
        format!("{shown} + {} more...", items.len() - max)
    } else {
        shown
    }
}

/// An `IntOrString` as `%v` prints it; `N/A` when unset.
pub(super) fn int_or_string(value: Option<&Value>) -> String {
    match value {
        None => "N/A".to_owned(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// A quantity as it is written; empty when unset.
pub(super) fn quantity(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// `labels.FormatLabels`: `k=v,…` sorted by key, `<none>` when empty.
pub(super) fn format_labels(map: Option<&Value>) -> String {
    let pairs: BTreeMap<&String, String> = map
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k, v.as_str().unwrap_or("").to_owned()))
                .collect()
        })
        .unwrap_or_default();
    if pairs.is_empty() {
        return "<none>".to_owned();
    }
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// `metav1.FormatLabelSelector`: the selector's string, `<none>` when it selects everything.
pub(super) fn format_label_selector(selector: Option<&Value>) -> String {
    match selector {
        None => "<none>".to_owned(),
        Some(selector) => or(&selector_string(Some(selector)), "<none>").to_owned(),
    }
}

/// A label selector as `labels.Selector.String()` writes it: requirements sorted by key.
pub(super) fn selector_string(selector: Option<&Value>) -> String {
    let Some(selector) = selector else {
        return String::new();
    };
    let mut requirements: Vec<(String, String)> = Vec::new();
    if let Some(labels) = selector.get("matchLabels").and_then(Value::as_object) {
        for (key, value) in labels {
            requirements.push((
                key.clone(),
                format!("{key}={}", value.as_str().unwrap_or("")),
            ));
        }
    }
    for expression in selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(requirement) = requirement(expression) {
            requirements.push(requirement);
        }
    }
    requirements.sort_by(|a, b| a.0.cmp(&b.0));
    requirements
        .into_iter()
        .map(|(_, t)| t)
        .collect::<Vec<_>>()
        .join(",")
}

/// One `matchExpressions` entry: its key and its text; none for an unknown operator.
fn requirement(expression: &Value) -> Option<(String, String)> {
    let key = expression
        .get("key")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let mut values: Vec<&str> = expression
        .get("values")
        .and_then(Value::as_array)
        .map(|v| v.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    values.sort_unstable();
    let text = match expression
        .get("operator")
        .and_then(Value::as_str)
        .unwrap_or("")
    {
        "In" => format!("{key} in ({})", values.join(",")),
        "NotIn" => format!("{key} notin ({})", values.join(",")),
        "Exists" => key.clone(),
        "DoesNotExist" => format!("!{key}"),
        _ => return None,
    };
    Some((key, text))
}

/// The time since `time` (`translateTimestampSince`); `<unknown>` when it does not parse.
pub(super) fn since(time: &str) -> String {
    match parse_time(time) {
        Some(t) => ago(t),
        None => "<unknown>".to_owned(),
    }
}

/// The time since `seconds` (since the epoch), as `HumanDuration` writes it.
pub(super) fn ago(seconds: i64) -> String {
    human_duration(now_seconds() - seconds)
}

/// An RFC 3339 time, in seconds since the epoch.
pub(super) fn parse_time(text: &str) -> Option<i64> {
    text.parse::<jiff::Timestamp>().ok().map(|t| t.as_second())
}

fn now_seconds() -> i64 {
    crate::objects::clock::now().as_second()
}

/// `k8s.io/apimachinery/pkg/util/duration.HumanDuration` of `seconds`.
pub(super) fn human_duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".to_owned();
    }
    if seconds < 0 {
        return "0s".to_owned();
    }
    if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        return two_units(minutes, "m", seconds % 60, "s");
    }
    if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = seconds / 3600;
    if hours < 8 {
        return two_units(hours, "h", minutes % 60, "m");
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        return two_units(hours / 24, "d", hours % 24, "h");
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        return two_units(hours / 24 / 365, "y", (hours / 24) % 365, "d");
    }
    format!("{}y", hours / 24 / 365)
}

/// `3h2m`, or `3h` when the smaller unit is zero.
fn two_units(large: i64, large_unit: &str, small: i64, small_unit: &str) -> String {
    if small == 0 {
        format!("{large}{large_unit}")
    } else {
        format!("{large}{large_unit}{small}{small_unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::{human_duration, selector_string};
    use serde_json::json;

    #[test]
    fn durations_read_as_kubectl_prints_them() {
        for (seconds, text) in [
            (-5, "<invalid>"),
            (-1, "0s"),
            (59, "59s"),
            (119, "119s"),
            (120, "2m"),
            (150, "2m30s"),
            (600, "10m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 120, "3h2m"),
            (9 * 3600, "9h"),
            (50 * 3600, "2d2h"),
            (10 * 86400, "10d"),
            (800 * 86400, "2y70d"),
            (3000 * 86400, "8y"),
        ] {
            assert_eq!(human_duration(seconds), text, "{seconds}");
        }
    }

    #[test]
    fn selectors_print_sorted() {
        let selector = json!({"matchLabels": {"tier": "web", "app": "x"}, "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "dev"]}, {"key": "legacy", "operator": "DoesNotExist"}]});
        assert_eq!(
            selector_string(Some(&selector)),
            "app=x,env in (dev,prod),!legacy,tier=web"
        );
    }
}
