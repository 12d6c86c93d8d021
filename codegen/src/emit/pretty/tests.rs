//! The printer against prettyplease, on the shapes the constructors and attributes use.

use super::{Expr, MacroToken, lex, tail_expression};

use crate::emit::text::Code;

fn word(text: &str) -> Expr {
    Expr::word(text)
}

fn into(name: &str) -> Expr {
    Expr::method(word(name), "into", vec![])
}

fn owned(text: &str) -> Expr {
    Expr::method(word(&format!("{text:?}")), "to_owned", vec![])
}

fn collected(entries: Vec<Expr>) -> Expr {
    let entries = Expr::method(Expr::Array(entries), "into_iter", vec![]);
    Expr::method(entries, "collect", vec![])
}

fn json(variant: &str, arg: Expr) -> Expr {
    Expr::call(format!("::serde_json::Value::{variant}"), vec![arg])
}

/// The shapes of the builder constructors' values, with names of `length` characters.
fn shapes(length: usize) -> Vec<Expr> {
    let name = "n".repeat(length);
    let path = format!("crate::m::{}", "T".repeat(length));
    let list = |map: &str| {
        let items = Expr::method(word(&name), "into_iter", vec![]);
        let items = Expr::method(items, "map", vec![word(map)]);
        Expr::method(items, "collect", vec![])
    };
    let builder = Expr::method(
        Expr::method(
            Expr::method(
                Expr::call(format!("{path}::builder"), vec![]),
                "name",
                vec![word("name")],
            ),
            "namespace",
            vec![word(&name)],
        ),
        "build",
        vec![],
    );
    let nested = json(
        "Object",
        collected(vec![
            Expr::Tuple(vec![
                owned("rules"),
                json(
                    "Array",
                    Expr::Vec(vec![json(
                        "Object",
                        collected(vec![Expr::Tuple(vec![
                            owned(&name),
                            json("Bool", word("true")),
                        ])]),
                    )]),
                ),
            ]),
            Expr::Tuple(vec![owned("weight"), json("from", word("-1.5e-7_f64"))]),
        ]),
    );
    vec![
        Expr::call("Self::default", vec![]),
        Expr::Struct(
            "Self".to_owned(),
            vec![
                (name.clone(), into(&name)),
                ("list".to_owned(), list("Into::into")),
                (
                    "map".to_owned(),
                    Expr::call(
                        "Some",
                        vec![list("|(key, value)| (key.into(), value.into())")],
                    ),
                ),
                ("metadata".to_owned(), builder),
                ("plain".to_owned(), word("None")),
            ],
            Some(Box::new(Expr::call("Self::default", vec![]))),
        ),
        Expr::Struct(
            path.clone(),
            vec![
                ("name".to_owned(), Expr::call("Some", vec![into("name")])),
                ("policy".to_owned(), Expr::call("Some", vec![nested])),
                (
                    "args".to_owned(),
                    Expr::call(
                        "Some",
                        vec![Expr::Vec(vec![owned("--verbose"), owned(&name)])],
                    ),
                ),
                (
                    "ports".to_owned(),
                    Expr::call(
                        "Some",
                        vec![collected(vec![
                            Expr::Tuple(vec![owned("http"), word("80")]),
                            Expr::Tuple(vec![owned(&name), word("-443")]),
                        ])],
                    ),
                ),
                (
                    "key".to_owned(),
                    Expr::call(
                        "::kubeforge_runtime::ByteString",
                        vec![Expr::method(word("b\"h\\x00\""), "to_vec", vec![])],
                    ),
                ),
                (
                    "mode".to_owned(),
                    Expr::Vec(vec![word(&format!("{path}::Slow")), word("crate::A")]),
                ),
                ("one".to_owned(), Expr::Tuple(vec![word(&name)])),
                ("empty".to_owned(), Expr::Struct(path.clone(), vec![], None)),
                (
                    "small".to_owned(),
                    Expr::Struct("A".to_owned(), vec![("a".to_owned(), word("1"))], None),
                ),
            ],
            Some(Box::new(Expr::call(
                "::core::default::Default::default",
                vec![],
            ))),
        ),
    ]
}

/// Every shape comes out as prettyplease prints it, at lengths around the margin and
/// at several depths: the printer and the boxes it is fed are prettyplease's.
#[test]
fn expressions_break_as_prettyplease_breaks_them() {
    for length in (1..90).step_by(3) {
        for depth in [0, 2, 5] {
            let mut code = Code::new();
            for level in 0..depth {
                code.open(&format!("mod m{level} {{"));
            }
            code.open("impl S {");
            for (index, shape) in shapes(length).iter().enumerate() {
                code.open(&format!("fn f{index}() -> T {{"));
                let body = Expr::Struct(
                    "TBuilder".to_owned(),
                    vec![("inner".to_owned(), shape.clone())],
                    None,
                );
                code.raw(&tail_expression(&body, code.indent_width()));
                code.close("}");
                code.open(&format!("fn g{index}(mut self) -> Self {{"));
                let left = format!("self.0.{}", "f".repeat(length));
                code.raw(&super::assignment(&left, shape, code.indent_width()));
                code.line("self");
                code.close("}");
            }
            code.close("}");
            for _ in 0..depth {
                code.close("}");
            }
            let ours = code.finish();
            let theirs = prettyplease::unparse(&syn::parse_file(&ours).expect("valid items"));
            assert_eq!(ours, theirs, "length {length} at depth {depth}");
        }
    }
}

/// The attributes the generator writes come out as prettyplease prints them, at every
/// length around the margin and at several depths.
#[test]
fn attributes_break_as_prettyplease_breaks_them() {
    for length in 1..80 {
        let name = "D".repeat(length);
        for text in [
            format!("#[derive(Clone, Debug, PartialEq, ::my::{name})]"),
            format!("#[derive(crate::{name},)]"),
            format!(
                "#[serde(rename = \"{name}\", default, skip_serializing_if = \"Option::is_none\")]"
            ),
            format!("#[serde(with = \"{name}\", bound(deserialize = \"T: A\"))]"),
            format!("#[allow(clippy::{name}, reason = \"every required field is an argument\")]"),
        ] {
            for depth in [0, 3, 7] {
                let mut code = Code::new();
                for level in 0..depth {
                    code.open(&format!("mod m{level} {{"));
                }
                let spelled = super::attribute(&text, code.indent_width()).expect("spelled");
                code.raw(&spelled);
                code.open("pub struct S {");
                let spelled = super::attribute(&text, code.indent_width()).expect("spelled");
                code.raw(&spelled);
                code.line("pub f: (),");
                code.close("}");
                for _ in 0..depth {
                    code.close("}");
                }
                let ours = code.finish();
                let theirs = prettyplease::unparse(&syn::parse_file(&ours).expect("valid items"));
                assert_eq!(ours, theirs, "{text} at depth {depth}");
            }
        }
    }
    assert!(super::attribute("#[doc = \"x\"]", 0).is_none());
}

#[test]
fn macro_arguments_lex_as_rust_tokens() {
    assert_eq!(
        lex("::a::B(-1e-7_f64), b\"\\\"\".x"),
        vec![
            MacroToken::Punct(':', true),
            MacroToken::Punct(':', false),
            MacroToken::Ident("a".into()),
            MacroToken::Punct(':', true),
            MacroToken::Punct(':', false),
            MacroToken::Ident("B".into()),
            MacroToken::Group(
                '(',
                vec![
                    MacroToken::Punct('-', false),
                    MacroToken::Literal("1e-7_f64".into()),
                ]
            ),
            MacroToken::Punct(',', false),
            MacroToken::Literal("b\"\\\"\"".into()),
            MacroToken::Punct('.', false),
            MacroToken::Ident("x".into()),
        ]
    );
}
