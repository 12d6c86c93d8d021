//! The guide (`docs/`, an mdBook) and the README as the tests read them: their pages, their
//! fenced code blocks, the commands of their `console` blocks with the output each shows,
//! and the anchors their headings make.
//!
//! Shell examples are written as `console` blocks: `$ command` lines (a line ending in `\`
//! continues), each followed by the output it shows. The output is matched as trycmd and
//! snapbox match it: line for line, where a line `...` stands for any number of lines and
//! `[..]` inside a line for any text; trailing spaces are ignored. Other shell blocks (`sh`,
//! `bash`, `shell`) are refused by `tests/tests/docs.rs`, so no example escapes the runners
//! (`codegen/tests/docs_examples.rs`, `server/tests/docs_examples.rs`).

use std::path::{Path, PathBuf};

use crate::workspace_root;

/// A Markdown file of the documentation.
#[derive(Clone, Debug)]
pub struct Page {
    /// The path relative to the workspace root (`docs/src/guide/cli.md`, `README.md`).
    pub path: PathBuf,
    /// The text.
    pub text: String,
}

/// The README and every page of the guide (`docs/src/**/*.md`), in path order.
#[must_use]
pub fn pages() -> Vec<Page> {
    let root = workspace_root();
    let mut paths = vec![PathBuf::from("README.md")];
    let mut stack = vec![PathBuf::from("docs/src")];
    let mut found = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in
            std::fs::read_dir(root.join(&dir)).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        {
            let entry = entry.expect("a directory entry");
            let path = dir.join(entry.file_name());
            if entry.file_type().expect("a file type").is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(path);
            }
        }
    }
    found.sort();
    paths.extend(found);
    paths
        .into_iter()
        .map(|path| Page {
            text: std::fs::read_to_string(root.join(&path))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
            path,
        })
        .collect()
}

/// One page of the guide by its path below `docs/src` (`guide/cli.md`).
#[must_use]
pub fn page(path: &str) -> Page {
    let path = Path::new("docs/src").join(path);
    Page {
        text: std::fs::read_to_string(workspace_root().join(&path))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        path,
    }
}

/// A fenced code block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeBlock {
    /// The info string after the fence (`console`, `rust,ignore`).
    pub info: String,
    /// The lines between the fences.
    pub body: String,
    /// The line of the opening fence, from 1.
    pub line: usize,
}

impl CodeBlock {
    /// The language: the info string up to its first `,` or space.
    #[must_use]
    pub fn language(&self) -> &str {
        self.info
            .split([',', ' '])
            .next()
            .unwrap_or_default()
            .trim()
    }
}

/// Every fenced code block of a Markdown text (fences of three or more backticks or tildes,
/// closed by a fence of the same character at least as long).
#[must_use]
pub fn code_blocks(text: &str) -> Vec<CodeBlock> {
    let mut blocks = Vec::new();
    let mut open: Option<(char, usize, CodeBlock)> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let fence = |c: char| trimmed.chars().take_while(|&x| x == c).count();
        match &mut open {
            Some((c, len, block)) => {
                let n = fence(*c);
                if n >= *len && trimmed[n..].trim().is_empty() {
                    let (_, _, block) = open.take().expect("an open block");
                    blocks.push(block);
                } else {
                    block.body.push_str(line);
                    block.body.push('\n');
                }
            }
            None => {
                for c in ['`', '~'] {
                    let n = fence(c);
                    if n >= 3 {
                        open = Some((
                            c,
                            n,
                            CodeBlock {
                                info: trimmed[n..].trim().to_owned(),
                                body: String::new(),
                                line: index + 1,
                            },
                        ));
                        break;
                    }
                }
            }
        }
    }
    blocks
}

/// The lines of a text outside its fenced code blocks (by the fences [`code_blocks`]
/// reads), each with its number from 1.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut inside = vec![false; text.lines().count()];
    let lines: Vec<&str> = text.lines().collect();
    for block in code_blocks(text) {
        let last = block.line + block.body.lines().count();
        for flag in inside.iter_mut().take(last + 1).skip(block.line - 1) {
            *flag = true;
        }
    }
    lines
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !inside[*i])
        .map(|(i, line)| (i + 1, line))
        .collect()
}

/// A command of a `console` block and the output the page shows for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConsoleCommand {
    /// The command line, continuation lines joined.
    pub command: String,
    /// The output lines shown after it.
    pub expected: Vec<String>,
}

/// The commands of a `console` block.
///
/// # Panics
///
/// On text before the first `$ ` line: a console block starts with a command.
#[must_use]
pub fn console_commands(block: &CodeBlock) -> Vec<ConsoleCommand> {
    let mut commands: Vec<ConsoleCommand> = Vec::new();
    let mut continued = false;
    for line in block.body.lines() {
        if continued {
            let last = commands.last_mut().expect("a command");
            last.command.push(' ');
            last.command
                .push_str(line.trim().trim_end_matches('\\').trim_end());
            continued = line.trim_end().ends_with('\\');
        } else if let Some(command) = line.strip_prefix("$ ") {
            continued = command.trim_end().ends_with('\\');
            commands.push(ConsoleCommand {
                command: command
                    .trim_end()
                    .trim_end_matches('\\')
                    .trim_end()
                    .to_owned(),
                expected: Vec::new(),
            });
        } else {
            commands
                .last_mut()
                .unwrap_or_else(|| {
                    panic!(
                        "the console block at line {} starts with `{line}`, not `$ `",
                        block.line
                    )
                })
                .expected
                .push(line.trim_end().to_owned());
        }
    }
    for command in &mut commands {
        while command.expected.last().is_some_and(String::is_empty) {
            command.expected.pop();
        }
    }
    commands
}

/// Whether `actual` is the output `expected` shows: line for line, `...` for any lines,
/// `[..]` for any text within a line. The error names the first expected line that is not
/// where it should be.
///
/// # Errors
///
/// A message naming the first expected line that does not match, with the output.
pub fn output_matches(expected: &[String], actual: &str) -> Result<(), String> {
    let actual: Vec<&str> = actual.lines().map(str::trim_end).collect();
    if matches_from(expected, &actual) {
        Ok(())
    } else {
        // The longest prefix of `expected` that matches somewhere says where it went wrong.
        let good = (0..=expected.len())
            .rev()
            .find(|&n| {
                let mut prefix = expected[..n].to_vec();
                prefix.push("...".to_owned());
                matches_from(&prefix, &actual)
            })
            .unwrap_or(0);
        Err(format!(
            "expected line {} (`{}`) is not where the page shows it; the output was:\n{}",
            good + 1,
            expected.get(good).map_or("<end of output>", String::as_str),
            actual.join("\n")
        ))
    }
}

fn matches_from(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| matches_from(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(line, more)| line_matches(first, line) && matches_from(rest, more)),
    }
}

/// One line against its pattern, where `[..]` matches any text.
#[must_use]
pub fn line_matches(pattern: &str, line: &str) -> bool {
    let mut parts = pattern.split("[..]");
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// The anchor mdBook gives a heading (`normalize_id` of mdBook 0.5): lower-case ASCII,
/// letters, digits, `_` and `-` kept, whitespace made `-`, everything else dropped. GitHub
/// makes the same anchors for the README's headings, except for characters neither uses.
#[must_use]
pub fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The anchors of a page's headings (`#` lines outside code blocks), the text of inline code
/// and links included, a repeated one numbered `-1`, `-2`, … as mdBook does.
#[must_use]
pub fn anchors(text: &str) -> Vec<String> {
    let mut anchors: Vec<String> = Vec::new();
    for (_, line) in prose_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = anchor(&heading_text(line[hashes..].trim()));
            let mut id = base.clone();
            let mut n = 0;
            while anchors.contains(&id) {
                n += 1;
                id = format!("{base}-{n}");
            }
            anchors.push(id);
        }
    }
    anchors
}

/// A heading's text as rendered: `[text](url)` is `text`, backticks and emphasis go.
fn heading_text(heading: &str) -> String {
    let mut out = String::new();
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find("](").and_then(|close| {
            after[close + 2..]
                .find(')')
                .map(|end| (close, close + 2 + end))
        }) {
            Some((close, end)) => {
                out.push_str(&after[..close]);
                rest = &after[end + 1..];
            }
            None => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.replace(['`', '*'], "")
}

/// Every inline link target of a text outside code (`[text](target)`, `](target "title")`),
/// with its line.
#[must_use]
pub fn links(text: &str) -> Vec<(usize, String)> {
    let mut links = Vec::new();
    for (number, line) in prose_lines(text) {
        // Inline code spans are not links.
        let mut prose = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                prose.push_str(part);
            } else {
                prose.push_str(&" ".repeat(part.len() + 2));
            }
        }
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            let target = after[..end].split_whitespace().next().unwrap_or_default();
            links.push((number, target.to_owned()));
            rest = &after[end..];
        }
    }
    links
}

/// The pages whose `console` blocks `server/tests/docs_examples.rs` runs (they need the
/// `kubeforge-server` binary and `kubectl`); `codegen/tests/docs_examples.rs` runs every other
/// page's.
pub const SERVER_PAGES: &[&str] = &[
    "docs/src/guide/server.md",
    "docs/src/guide/server-simulation.md",
];

/// Commands of the examples that no test runs as written, each with the reason and the file
/// that shows the reason holds: the runners check that the file contains the command (or, for
/// an install, that the test's own binary is the one the install builds).
pub const NOT_RUN_HERE: &[(&str, &str, &str)] = &[
    (
        "cargo test --workspace",
        ".ci/run",
        "CI runs it; a test that ran it would run itself",
    ),
    (
        "cargo xtask regen",
        ".ci/run",
        "CI runs it as `cargo xtask regen --check`; in a test it would rewrite the tree",
    ),
];

/// What a command of a page printed.
#[derive(Clone, Debug)]
pub struct Ran {
    /// The command as the page shows it.
    pub command: ConsoleCommand,
    /// Its standard output, then its standard error (for a background command, the lines
    /// read before the block went on).
    pub output: String,
}

/// Runs the `console` blocks of a page in order, in one directory (so later commands see
/// what earlier ones wrote, as for a reader who follows the page), through `sh -c` with
/// `path` in front of `PATH` and `HOME` set to that directory (so `kubectl`'s cache stays
/// in it). A command ending in ` &` runs in the background until the page
/// ends; its shown output is awaited on its standard output. `special` handles the commands
/// that must not run as typed (`cargo install …`, [`NOT_RUN_HERE`]) and returns `true` for
/// those it handled. Each command must succeed and print what the page shows.
///
/// # Panics
///
/// When a command fails, prints something else, or a background command does not print
/// what the page shows within two minutes.
pub fn run_page(
    page: &Page,
    dir: &Path,
    path: &[PathBuf],
    special: &dyn Fn(&str) -> bool,
) -> Vec<Ran> {
    let mut search = std::env::join_paths(path).expect("PATH entries");
    if let Some(old) = std::env::var_os("PATH") {
        let mut joined = search;
        joined.push(":");
        joined.push(old);
        search = joined;
    }
    let mut background = Background(Vec::new());
    let mut ran = Vec::new();
    for block in code_blocks(&page.text)
        .into_iter()
        .filter(|b| b.language() == "console")
    {
        for command in console_commands(&block) {
            let place = format!(
                "{} (block at line {}): `{}`",
                page.path.display(),
                block.line,
                command.command
            );
            if special(&command.command) {
                assert!(
                    command.expected.is_empty(),
                    "{place}: a command that is not run shows no output"
                );
                continue;
            }
            let output = if let Some(line) = command.command.strip_suffix(" &") {
                background.start(line, dir, &search, &command.expected, &place)
            } else {
                let output = std::process::Command::new("sh")
                    .arg("-c")
                    .arg(&command.command)
                    .current_dir(dir)
                    .env("PATH", &search)
                    .env("HOME", dir)
                    .stdin(std::process::Stdio::null())
                    .output()
                    .unwrap_or_else(|e| panic!("{place}: sh: {e}"));
                let text = format!(
                    "{}{}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                );
                assert!(
                    output.status.success(),
                    "{place} fails ({}):\n{text}",
                    output.status
                );
                text
            };
            if let Err(e) = output_matches(&command.expected, &output) {
                panic!("{place}: {e}");
            }
            ran.push(Ran { command, output });
        }
    }
    ran
}

/// Commands running in the background, ended (SIGTERM, then SIGKILL) when dropped.
struct Background(Vec<std::process::Child>);

impl Background {
    /// Starts `sh -c 'exec LINE'` and returns the first lines of its standard output, as many
    /// as the page shows.
    fn start(
        &mut self,
        line: &str,
        dir: &Path,
        search: &std::ffi::OsStr,
        expected: &[String],
        place: &str,
    ) -> String {
        use std::io::BufRead as _;
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("exec {line}"))
            .current_dir(dir)
            .env("PATH", search)
            .env("HOME", dir)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{place}: sh: {e}"));
        let stdout = child.stdout.take().expect("stdout");
        self.0.push(child);
        let wanted = expected.len();
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = std::io::BufReader::new(stdout).lines();
            let mut read = String::new();
            for _ in 0..wanted {
                match lines.next() {
                    Some(Ok(line)) => {
                        read.push_str(&line);
                        read.push('\n');
                    }
                    _ => break,
                }
            }
            let _ = send.send(read);
            // Keep reading, so that the command never blocks on a full pipe.
            for _ in lines {}
        });
        receive
            .recv_timeout(std::time::Duration::from_secs(120))
            .unwrap_or_else(|_| panic!("{place}: printed nothing for two minutes"))
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while std::time::Instant::now() < deadline {
                if let Ok(Some(_)) = child.try_wait() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Whether `command` is one of [`NOT_RUN_HERE`]; panics when the file that runs it does not
/// contain it.
#[must_use]
pub fn run_elsewhere(command: &str) -> bool {
    let Some((_, file, reason)) = NOT_RUN_HERE.iter().find(|(c, _, _)| *c == command) else {
        return false;
    };
    let text = std::fs::read_to_string(workspace_root().join(file))
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with(command) || l.contains(&format!(" {command}"))),
        "`{command}` is not run here ({reason}), but {file} does not run it either"
    );
    true
}
