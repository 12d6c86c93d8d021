//! The JSONPath of Kubernetes (`k8s.io/client-go/util/jsonpath`) as far as a
//! CustomResourceDefinition's `additionalPrinterColumns` use it: fields (`.a.b`,
//! `['a.b']`), indexes and slices (`[0]`, `[-1]`, `[1:3]`), wildcards (`[*]`, `.*`),
//! recursive descent (`..name`) and filters (`[?(@.type=="Ready")]`, `[?(@.x)]`, with `==`,
//! `!=`, `<`, `<=`, `>`, `>=`), and printing a result the way the API server's Table
//! convertor prints it (Go's `fmt.Fprint` of the decoded value).

use serde_json::Value;

/// One step of a path.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Field(String),
    Wildcard,
    Recursive(Option<String>),
    Index(i64),
    Slice(Option<i64>, Option<i64>),
    Filter(Filter),
}

#[derive(Clone, Debug, PartialEq)]
struct Filter {
    left: Vec<Step>,
    op: Option<(String, Literal)>,
}

#[derive(Clone, Debug, PartialEq)]
enum Literal {
    Text(String),
    Number(f64),
    Bool(bool),
    Path(Vec<Step>),
}

/// A parsed path (the part inside `{…}`; the braces are optional).
#[derive(Clone, Debug, PartialEq)]
pub struct JsonPath(Vec<Step>);

impl JsonPath {
    /// Parses `.status.conditions[?(@.type=="Ready")].status`.
    pub fn parse(text: &str) -> Result<JsonPath, String> {
        let text = text.trim();
        let text = text
            .strip_prefix('{')
            .and_then(|t| t.strip_suffix('}'))
            .unwrap_or(text)
            .trim();
        let text = text.strip_prefix('$').unwrap_or(text);
        let mut parser = Parser {
            chars: text.chars().collect(),
            at: 0,
        };
        let steps = parser.steps(false)?;
        if parser.at < parser.chars.len() {
            return Err(format!(
                "unexpected {:?} at {} in {text:?}",
                parser.chars[parser.at], parser.at
            ));
        }
        Ok(JsonPath(steps))
    }

    /// Every value the path reaches in `root`, in order.
    pub fn find<'a>(&self, root: &'a Value) -> Vec<&'a Value> {
        walk(&self.0, vec![root])
    }
}

fn walk<'a>(steps: &[Step], mut current: Vec<&'a Value>) -> Vec<&'a Value> {
    for step in steps {
        let mut next = Vec::new();
        for value in current {
            apply(step, value, &mut next);
        }
        current = next;
    }
    current
}

fn apply<'a>(step: &Step, value: &'a Value, out: &mut Vec<&'a Value>) {
    match step {
        Step::Field(name) => {
            if let Some(found) = value.get(name.as_str()) {
                out.push(found);
            }
        }
        Step::Wildcard => match value {
            Value::Object(map) => out.extend(map.values()),
            Value::Array(items) => out.extend(items.iter()),
            _ => {}
        },
        Step::Recursive(name) => descend(value, name.as_deref(), out),
        Step::Index(i) => {
            if let Value::Array(items) = value {
                let len = items.len() as i64;
                let index = if *i < 0 { len + i } else { *i };
                if (0..len).contains(&index) {
                    out.push(&items[index as usize]);
                }
            }
        }
        Step::Slice(start, end) => {
            if let Value::Array(items) = value {
                let len = items.len() as i64;
                let clamp = |i: i64| (if i < 0 { len + i } else { i }).clamp(0, len) as usize;
                let (from, to) = (clamp(start.unwrap_or(0)), clamp(end.unwrap_or(len)));
                if from < to {
                    out.extend(items[from..to].iter());
                }
            }
        }
        Step::Filter(filter) => {
            let items: Vec<&Value> = match value {
                Value::Array(items) => items.iter().collect(),
                other => vec![other],
            };
            out.extend(items.into_iter().filter(|item| filter.holds(item)));
        }
    }
}

fn descend<'a>(value: &'a Value, name: Option<&str>, out: &mut Vec<&'a Value>) {
    match name {
        Some(name) => {
            if let Some(found) = value.get(name) {
                out.push(found);
            }
        }
        None => out.push(value),
    }
    match value {
        Value::Object(map) => map.values().for_each(|v| descend(v, name, out)),
        Value::Array(items) => items.iter().for_each(|v| descend(v, name, out)),
        _ => {}
    }
}

impl Filter {
    fn holds(&self, item: &Value) -> bool {
        let left = walk(&self.left, vec![item]);
        let Some((op, right)) = &self.op else {
            return !left.is_empty();
        };
        let Some(left) = left.first() else {
            return false;
        };
        let right = match right {
            Literal::Text(text) => Value::from(text.as_str()),
            Literal::Number(n) => Value::from(*n),
            Literal::Bool(b) => Value::Bool(*b),
            Literal::Path(path) => match walk(path, vec![item]).first() {
                Some(v) => (*v).clone(),
                None => return false,
            },
        };
        let ordering = match (left, &right) {
            (Value::Number(a), Value::Number(b)) => a.as_f64().partial_cmp(&b.as_f64()),
            (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
            (a, b) if *a == b => Some(std::cmp::Ordering::Equal),
            _ => None,
        };
        use std::cmp::Ordering::{Equal, Greater, Less};
        match op.as_str() {
            "==" => ordering == Some(Equal),
            "!=" => ordering != Some(Equal),
            "<" => ordering == Some(Less),
            "<=" => matches!(ordering, Some(Less | Equal)),
            ">" => ordering == Some(Greater),
            ">=" => matches!(ordering, Some(Greater | Equal)),
            _ => false,
        }
    }
}

struct Parser {
    chars: Vec<char>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
    }

    fn name(&mut self) -> String {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '$' | '/'))
        {
            self.at += 1;
        }
        self.chars[start..self.at].iter().collect()
    }

    /// Steps until the end, or (inside a filter) until an operator or `)`.
    fn steps(&mut self, in_filter: bool) -> Result<Vec<Step>, String> {
        let mut steps = Vec::new();
        loop {
            if in_filter {
                self.skip_spaces();
            }
            match self.peek() {
                None => break,
                Some('.') => {
                    self.at += 1;
                    if self.eat('.') {
                        let name = self.name();
                        steps.push(Step::Recursive(if name.is_empty() {
                            None
                        } else {
                            Some(name)
                        }));
                    } else if self.eat('*') {
                        steps.push(Step::Wildcard);
                    } else {
                        let name = self.name();
                        if !name.is_empty() {
                            steps.push(Step::Field(name));
                        }
                    }
                }
                Some('[') => {
                    self.at += 1;
                    steps.push(self.bracket()?);
                }
                Some(c) if !in_filter && (c.is_alphanumeric() || c == '_') && steps.is_empty() => {
                    steps.push(Step::Field(self.name()));
                }
                Some(_) => break,
            }
        }
        Ok(steps)
    }

    fn bracket(&mut self) -> Result<Step, String> {
        self.skip_spaces();
        let step = match self.peek() {
            Some('\'' | '"') => Step::Field(self.quoted()?),
            Some('*') => {
                self.at += 1;
                Step::Wildcard
            }
            Some('?') => {
                self.at += 1;
                if !self.eat('(') {
                    return Err("expected ( after ? in a filter".to_owned());
                }
                self.skip_spaces();
                if !self.eat('@') {
                    return Err("a filter starts with @".to_owned());
                }
                let left = self.steps(true)?;
                self.skip_spaces();
                let op = if self.eat(')') {
                    None
                } else {
                    let op: String = ["==", "!=", "<=", ">=", "<", ">"]
                        .into_iter()
                        .find(|op| {
                            self.chars[self.at..].starts_with(&op.chars().collect::<Vec<_>>())
                        })
                        .ok_or_else(|| "expected a comparison in a filter".to_owned())?
                        .to_owned();
                    self.at += op.len();
                    self.skip_spaces();
                    let literal = self.literal()?;
                    self.skip_spaces();
                    if !self.eat(')') {
                        return Err("expected ) to close a filter".to_owned());
                    }
                    Some((op, literal))
                };
                Step::Filter(Filter { left, op })
            }
            _ => {
                let start = self.at;
                while self.peek().is_some_and(|c| c != ']') {
                    self.at += 1;
                }
                let text: String = self.chars[start..self.at].iter().collect();
                let text = text.trim();
                let number = |t: &str| -> Result<Option<i64>, String> {
                    let t = t.trim();
                    if t.is_empty() {
                        Ok(None)
                    } else {
                        t.parse()
                            .map(Some)
                            .map_err(|_| format!("invalid index {t:?}"))
                    }
                };
                match text.split_once(':') {
                    Some((a, b)) => {
                        let b = b.split(':').next().unwrap_or("");
                        Step::Slice(number(a)?, number(b)?)
                    }
                    None => Step::Index(number(text)?.ok_or("empty index")?),
                }
            }
        };
        self.skip_spaces();
        if !self.eat(']') {
            return Err("expected ]".to_owned());
        }
        Ok(step)
    }

    fn quoted(&mut self) -> Result<String, String> {
        let quote = self.peek().ok_or("expected a quote")?;
        self.at += 1;
        let start = self.at;
        while self.peek().is_some_and(|c| c != quote) {
            self.at += 1;
        }
        let text = self.chars[start..self.at].iter().collect();
        if !self.eat(quote) {
            return Err("unterminated string".to_owned());
        }
        Ok(text)
    }

    fn literal(&mut self) -> Result<Literal, String> {
        match self.peek() {
            Some('\'' | '"') => Ok(Literal::Text(self.quoted()?)),
            Some('@') => {
                self.at += 1;
                Ok(Literal::Path(self.steps(true)?))
            }
            _ => {
                let start = self.at;
                while self.peek().is_some_and(|c| c != ')' && !c.is_whitespace()) {
                    self.at += 1;
                }
                let text: String = self.chars[start..self.at].iter().collect();
                match text.as_str() {
                    "true" => Ok(Literal::Bool(true)),
                    "false" => Ok(Literal::Bool(false)),
                    _ => text
                        .parse()
                        .map(Literal::Number)
                        .map_err(|_| format!("invalid literal {text:?} in a filter")),
                }
            }
        }
    }
}

/// A value as Go's `fmt.Fprint` prints the decoded JSON (`map[a:1]`, `[x y]`), which is how
/// the JSONPath printer writes a `string` column's cell.
pub fn print(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => go_float(n.as_f64().unwrap_or(0.0)),
        },
        Value::String(s) => s.clone(),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(print).collect::<Vec<_>>().join(" ")
        ),
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            format!(
                "map[{}]",
                keys.iter()
                    .map(|k| format!("{k}:{}", print(&map[*k])))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        }
    }
}

/// A float as Go's `%v` writes it: the shortest form, exponent from 1e21.
fn go_float(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e21 {
        format!("{f:.0}")
    } else if f.abs() >= 1e21 || (f != 0.0 && f.abs() < 1e-4) {
        let text = format!("{f:e}");
        match text.split_once('e') {
            Some((mantissa, exp)) => {
                let exp: i32 = exp.parse().unwrap_or(0);
                format!(
                    "{mantissa}e{}{:02}",
                    if exp < 0 { '-' } else { '+' },
                    exp.abs()
                )
            }
            None => text,
        }
    } else {
        f.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::{JsonPath, print};
    use serde_json::json;

    #[test]
    fn paths_from_real_crds_find_what_the_api_server_finds() {
        let object = json!({
            "metadata": {"name": "site", "labels": {"app.kubernetes.io/name": "web"}},
            "spec": {"replicas": 3, "dnsNames": ["a.example.com", "b.example.com"]},
            "status": {"conditions": [
                {"type": "Issuing", "status": "False"},
                {"type": "Ready", "status": "True", "message": "ok", "observedGeneration": 2}
            ]}
        });
        let find = |path: &str| {
            JsonPath::parse(path)
                .unwrap()
                .find(&object)
                .into_iter()
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(find(".spec.replicas"), [json!(3)]);
        assert_eq!(find("{.metadata.name}"), [json!("site")]);
        assert_eq!(
            find(r#".status.conditions[?(@.type=="Ready")].status"#),
            [json!("True")]
        );
        assert_eq!(
            find(".status.conditions[?(@.type=='Ready')].message"),
            [json!("ok")]
        );
        assert_eq!(
            find(".status.conditions[?(@.observedGeneration >= 2)].type"),
            [json!("Ready")]
        );
        assert_eq!(
            find(".status.conditions[?(@.message)].type"),
            [json!("Ready")]
        );
        assert_eq!(find(".spec.dnsNames[0]"), [json!("a.example.com")]);
        assert_eq!(find(".spec.dnsNames[-1]"), [json!("b.example.com")]);
        assert_eq!(find(".spec.dnsNames[*]").len(), 2);
        assert_eq!(find(".spec.dnsNames[0:1]"), [json!("a.example.com")]);
        assert_eq!(
            find(".metadata.labels['app.kubernetes.io/name']"),
            [json!("web")]
        );
        assert_eq!(find("..status").len(), 3);
        assert!(find(".spec.missing").is_empty());
        assert!(JsonPath::parse(".a[?(b)]").is_err());
    }

    #[test]
    fn cells_print_as_go_prints_them() {
        assert_eq!(print(&json!("x")), "x");
        assert_eq!(print(&json!(3)), "3");
        assert_eq!(print(&json!(1.5)), "1.5");
        assert_eq!(print(&json!(true)), "true");
        assert_eq!(print(&json!(["a", "b"])), "[a b]");
        assert_eq!(print(&json!({"b": 1, "a": "x"})), "map[a:x b:1]");
    }
}
