//! The guide (`docs/`, an mdBook) and the README hold together: every relative link resolves
//! to a file and every `#anchor` to a heading of it (anchors as mdBook and GitHub make them);
//! `SUMMARY.md` names every page and only pages that exist; shell examples are `console`
//! blocks (which `codegen/tests/docs_examples.rs` and `server/tests/docs_examples.rs` run);
//! Rust examples are doc-tests (`tests/src/guide.rs`) or verbatim copies of compiled code;
//! and the README stays a front page.
//!
//! The book is also built, by mdBook's own library (`mdbook-driver`, so CI needs no `mdbook`
//! binary), and every link of the HTML it renders is checked the same way.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use kubeforge_tests::docs::{self, Page};
use kubeforge_tests::workspace_root;

/// The README's limit, in lines: the pitch, a quick start and links into the guide.
const README_LINES: usize = 250;

/// mdBook builds the book (into the test's target directory), rendering every page of the
/// guide, and every relative link and `#anchor` of the HTML it writes resolves.
#[test]
fn mdbook_builds_the_book_and_its_links_resolve() {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("book");
    let _ = std::fs::remove_dir_all(&out);
    let mut book = mdbook_driver::MDBook::load(workspace_root().join("docs")).expect("docs/ loads");
    book.config.build.build_dir.clone_from(&out);
    book.build().expect("mdBook builds docs/");
    let mut html = Vec::new();
    for page in docs::pages() {
        if let Ok(inside) = page.path.strip_prefix("docs/src")
            && inside != Path::new("SUMMARY.md")
        {
            let file = out.join(inside).with_extension("html");
            assert!(file.is_file(), "{} was not rendered", page.path.display());
            html.push(file);
        }
    }
    let broken = broken_html_links(&html);
    assert!(
        broken.is_empty(),
        "broken links in the rendered book:\n{}",
        broken.join("\n")
    );
}

/// The `href`s of `files` that name a missing file, or an `#anchor` no `id` of it carries;
/// links out of the book (`https:` and the like) aside.
fn broken_html_links(files: &[PathBuf]) -> Vec<String> {
    let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
    let mut broken = Vec::new();
    for file in files {
        let text = read(file);
        for href in text
            .split("href=\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
        {
            if href.contains(':') || href.is_empty() {
                continue;
            }
            let (target, anchor) = href.split_once('#').unwrap_or((href, ""));
            let target = if target.is_empty() {
                file.clone()
            } else {
                resolve(file, target)
            };
            if !target.is_file() {
                broken.push(format!("{}: {href}: no such file", file.display()));
            } else if !anchor.is_empty() && !read(&target).contains(&format!("id=\"{anchor}\"")) {
                broken.push(format!("{}: {href}: no such anchor", file.display()));
            }
        }
    }
    broken
}

/// `base`'s directory joined with `target`, `..` resolved lexically.
fn resolve(base: &Path, target: &str) -> PathBuf {
    let mut path = base.parent().unwrap_or(Path::new("")).to_path_buf();
    for component in Path::new(target).components() {
        match component {
            Component::ParentDir => {
                path.pop();
            }
            Component::CurDir => {}
            other => path.push(other),
        }
    }
    path
}

/// Every broken link of the pages, as `page:line: target (why)`.
fn broken_links(pages: &[Page]) -> Vec<String> {
    let root = workspace_root();
    let mut broken = Vec::new();
    for page in pages {
        let in_book = page.path.starts_with("docs/src");
        for (line, target) in docs::links(&page.text) {
            let at = format!("{}:{line}: {target}", page.path.display());
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let path = if file.is_empty() {
                page.path.clone()
            } else {
                resolve(&page.path, file)
            };
            if path.components().any(|c| c == Component::ParentDir) {
                broken.push(format!("{at} (leaves the repository)"));
                continue;
            }
            if in_book && !path.starts_with("docs/src") {
                broken.push(format!(
                    "{at} (leaves the book: the rendered guide has no such page; name the file as code instead)"
                ));
                continue;
            }
            if !root.join(&path).exists() {
                broken.push(format!("{at} (no file {})", path.display()));
                continue;
            }
            if anchor.is_empty() {
                continue;
            }
            if path.extension().is_none_or(|e| e != "md") {
                broken.push(format!("{at} (an anchor in a file that is no page)"));
                continue;
            }
            let text = std::fs::read_to_string(root.join(&path)).expect("the linked page");
            if !docs::anchors(&text).iter().any(|a| a == anchor) {
                broken.push(format!(
                    "{at} (no heading makes #{anchor}; it has {:?})",
                    docs::anchors(&text)
                ));
            }
        }
    }
    broken
}

#[test]
fn every_link_and_anchor_resolves() {
    let pages = docs::pages();
    assert!(pages.len() > 20, "the README and the guide's pages");
    let broken = broken_links(&pages);
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The check finds what it must: a missing file, a missing anchor, a link out of the book.
#[test]
fn the_link_check_catches_broken_links() {
    let page = |text: &str| Page {
        path: PathBuf::from("docs/src/guide/cli.md"),
        text: text.to_owned(),
    };
    for text in [
        "[a](nope.md)",
        "[a](install.md#no-such-heading)",
        "[a](#no-such-heading)",
        "[a](../../../README.md)",
        "[a](../../../../elsewhere.md)",
    ] {
        assert_eq!(broken_links(&[page(text)]).len(), 1, "{text}");
    }
    for text in [
        "[a](install.md#the-two-commands)",
        "[a](#the-crate-it-writes)",
        "`[a](nope.md)`",
        "[a](https://kubernetes.io/nope)",
    ] {
        assert_eq!(broken_links(&[page(text)]), Vec::<String>::new(), "{text}");
    }
}

#[test]
fn anchors_are_made_as_mdbook_makes_them() {
    assert_eq!(
        docs::anchors(
            "# Validation, `fieldValidation`, defaulting and pruning\n## Shared meta types: `kubeforge-meta`\n```\n# not a heading\n```\n## Shared meta types: `kubeforge-meta`\n## [Link](x.md) text"
        ),
        [
            "validation-fieldvalidation-defaulting-and-pruning",
            "shared-meta-types-kubeforge-meta",
            "shared-meta-types-kubeforge-meta-1",
            "link-text",
        ]
    );
}

/// `SUMMARY.md` lists every page of `docs/src` once, and nothing else; `book.toml` refuses
/// to create a missing one.
#[test]
fn the_summary_lists_every_page() {
    let summary = docs::page("SUMMARY.md");
    let listed: Vec<String> = docs::links(&summary.text)
        .into_iter()
        .map(|(_, target)| target)
        .collect();
    let unique: BTreeSet<&String> = listed.iter().collect();
    assert_eq!(
        unique.len(),
        listed.len(),
        "a page listed twice: {listed:?}"
    );
    let pages: BTreeSet<String> = docs::pages()
        .into_iter()
        .filter_map(|p| {
            p.path
                .strip_prefix("docs/src")
                .ok()
                .map(|p| p.to_string_lossy().into_owned())
        })
        .filter(|p| p != "SUMMARY.md")
        .collect();
    let listed: BTreeSet<String> = listed.into_iter().collect();
    assert_eq!(
        pages.difference(&listed).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "pages SUMMARY.md does not list"
    );
    assert_eq!(
        listed.difference(&pages).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "SUMMARY.md lists pages that do not exist"
    );
    let book = std::fs::read_to_string(workspace_root().join("docs/book.toml")).expect("book.toml");
    assert!(book.contains("create-missing = false"), "{book}");
}

/// Shell examples are `console` blocks, every code block says its language (rustdoc would
/// take a bare one for Rust), and console blocks start with a command.
#[test]
fn every_shell_example_is_a_console_block() {
    let mut wrong = Vec::new();
    for page in docs::pages() {
        for block in docs::code_blocks(&page.text) {
            let at = format!("{}:{}", page.path.display(), block.line);
            match block.language() {
                "" => wrong.push(format!("{at}: a code block without a language")),
                "sh" | "bash" | "shell" | "zsh" | "shell-session" => wrong.push(format!(
                    "{at}: a `{}` block; write shell examples as `console` blocks (`$ command`, then its output), which the tests run",
                    block.language()
                )),
                "console" if !block.body.starts_with("$ ") => {
                    wrong.push(format!("{at}: a console block starts with a command"));
                }
                _ => {}
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every `rust` block of the guide is a doc-test: `tests/src/guide.rs` includes every page.
/// A block marked `ignore` is a verbatim copy of a file the workspace compiles, named in a
/// `<!-- verbatim: PATH -->` line just above it (lines compared without their indentation).
/// The README has no Rust blocks: its examples are in the guide.
#[test]
fn every_rust_example_compiles() {
    let guide = std::fs::read_to_string(workspace_root().join("tests/src/guide.rs"))
        .expect("tests/src/guide.rs");
    let mut wrong = Vec::new();
    for page in docs::pages() {
        let blocks: Vec<_> = docs::code_blocks(&page.text)
            .into_iter()
            .filter(|b| b.language() == "rust")
            .collect();
        if blocks.is_empty() {
            continue;
        }
        let Ok(relative) = page.path.strip_prefix("docs/src") else {
            wrong.push(format!(
                "{}: Rust examples belong in the guide, where they are doc-tests",
                page.path.display()
            ));
            continue;
        };
        if !guide.contains(&format!("\"{}\"", relative.display())) {
            wrong.push(format!(
                "{}: not included by tests/src/guide.rs",
                page.path.display()
            ));
        }
        let lines: Vec<&str> = page.text.lines().collect();
        for block in blocks {
            if !block.info.split(',').any(|a| a.trim() == "ignore") {
                continue;
            }
            let at = format!("{}:{}", page.path.display(), block.line);
            let marker = lines
                .get(block.line.saturating_sub(2))
                .and_then(|l| l.trim().strip_prefix("<!-- verbatim: "))
                .and_then(|l| l.strip_suffix(" -->"));
            let Some(file) = marker else {
                wrong.push(format!(
                    "{at}: an `ignore`d block without a `<!-- verbatim: PATH -->` line above it"
                ));
                continue;
            };
            let Ok(source) = std::fs::read_to_string(workspace_root().join(file)) else {
                wrong.push(format!("{at}: no file {file}"));
                continue;
            };
            let trimmed = |text: &str| -> String {
                text.lines().map(str::trim).collect::<Vec<_>>().join("\n")
            };
            if !trimmed(&source).contains(&trimmed(block.body.trim_end())) {
                wrong.push(format!("{at}: not a verbatim copy of {file}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `tests/src/guide.rs` includes every page, so a page added later has its examples tested.
#[test]
fn the_doc_tests_include_every_page() {
    let guide = std::fs::read_to_string(workspace_root().join("tests/src/guide.rs"))
        .expect("tests/src/guide.rs");
    let missing: Vec<String> = docs::pages()
        .into_iter()
        .filter_map(|p| {
            let relative = p.path.strip_prefix("docs/src").ok()?.display().to_string();
            (relative != "SUMMARY.md" && !guide.contains(&format!("\"{relative}\"")))
                .then_some(relative)
        })
        .collect();
    assert!(
        missing.is_empty(),
        "tests/src/guide.rs does not include {missing:?}"
    );
}

#[test]
fn the_readme_is_a_front_page() {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).expect("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= README_LINES,
        "README.md has {lines} lines; at most {README_LINES}: move detail into the guide"
    );
    // The two commands a newcomer needs, as CI runs them.
    for command in ["$ cargo xtask regen", "$ cargo test --workspace"] {
        assert!(readme.contains(command), "README.md shows `{command}`");
    }
    assert!(
        readme.contains("docs/src/SUMMARY.md") || readme.contains("docs/src/introduction.md"),
        "README.md links into the guide"
    );
}

/// The console matcher: `...` for lines, `[..]` within one.
#[test]
fn console_output_matches_as_trycmd_does() {
    let lines = |s: &str| s.lines().map(str::to_owned).collect::<Vec<_>>();
    assert!(docs::output_matches(&lines("a\n...\nd"), "a\nb\nc\nd\n").is_ok());
    assert!(docs::output_matches(&lines("a [..] c"), "a b b c\n").is_ok());
    assert!(docs::output_matches(&lines("a\nd"), "a\nb\nd\n").is_err());
    assert!(docs::output_matches(&lines("a"), "a\nb\n").is_err());
    assert!(docs::output_matches(&lines("[..]b"), "ab\n").is_ok());
    assert!(docs::output_matches(&lines("a[..]"), "b\n").is_err());
    let block = docs::code_blocks("```console\n$ one \\\n  two\nout\n\n$ three\n```\n");
    let commands = docs::console_commands(&block[0]);
    assert_eq!(commands[0].command, "one two");
    assert_eq!(commands[0].expected, ["out"]);
    assert_eq!(commands[1].command, "three");
}
