//! The route matcher: a decision tree over the path, written out as code. The tree is a trie
//! of every operation's path template. The generated code walks the path with a cursor, the
//! rest of the path (empty, or starting at a `/`), and never splits it into segments first:
//!
//! - a run of static segments with one way on (`/api/v1`, `/namespaces`) is one prefix
//!   comparison against the path, followed by a check that a whole segment ended there;
//! - where many static segments branch, the first byte after the `/` picks the few that can
//!   match before any is compared;
//! - a parameter is the segment up to the next `/`, found with the check for `?` and `#` in
//!   the same pass.
//!
//! Where a node has both static children and a parameter, the static branch is tried first
//! and the parameter branch only when the static one finds no path (static segments beat
//! parameters, and a path that only the parameter route serves still resolves). Leaves
//! compare the method, so a known path with an unknown method is `MethodNotAllowed` rather
//! than `NotFound`.
//!
//! The generated code borrows slices of the path and keeps parameters in a fixed array: a
//! miss, or a hit, allocates nothing.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::quote;

use super::{Context, ident};
use crate::model::operations::{Method, Operation, Segment};

#[derive(Default)]
struct Node<'a> {
    statics: BTreeMap<&'a str, Node<'a>>,
    param: Option<Box<Node<'a>>>,
    /// The operations whose path ends here, by method.
    leaf: BTreeMap<&'static str, &'a Operation>,
}

impl<'a> Node<'a> {
    fn insert(&mut self, segments: &[Segment<'a>], op: &'a Operation, method: Method) {
        match segments.split_first() {
            None => {
                self.leaf.insert(method.as_str(), op);
            }
            Some((Segment::Static(text), rest)) => {
                self.statics
                    .entry(text)
                    .or_default()
                    .insert(rest, op, method);
            }
            Some((Segment::Param(_), rest)) => {
                self.param
                    .get_or_insert_with(Box::default)
                    .insert(rest, op, method);
            }
        }
    }

    fn has_statics(&self) -> bool {
        !self.statics.is_empty() || self.param.as_ref().is_some_and(|param| param.has_statics())
    }

    fn has_params(&self) -> bool {
        self.param.is_some() || self.statics.values().any(Node::has_params)
    }
}

/// Static children at a node from which on the first byte after the `/` is matched before
/// any child is compared (below it, comparing each in turn costs less than the dispatch).
const BYTE_DISPATCH_FROM: usize = 5;

/// The `resolve` function.
pub(crate) fn matcher(context: &Context<'_>) -> TokenStream {
    let mut root = Node::default();
    for op in &context.api.operations {
        root.insert(&op.path.segments(), op, op.method);
        if op.slash_optional {
            root.insert(&op.path.segments_slash_toggled(), op, op.method);
        }
    }
    let runtime = &context.runtime;
    let body = node(&root);
    let (params, param_helpers) = if root.has_params() {
        (
            quote!(let mut params = PathParams::new();),
            quote!(use #runtime::route::param_segment;),
        )
    } else {
        (quote!(let params = PathParams::new();), TokenStream::new())
    };
    let static_helpers = root
        .has_statics()
        .then(|| quote!(use #runtime::route::strip_segments;));
    quote! {
        use #runtime::http::Method;
        #param_helpers
        #static_helpers
        use #runtime::{MethodSet, PathParams, Resolution};

        use super::Route;

        /// Resolves a request's method and path to a route and its path parameters.
        ///
        /// `path` is the path without the query string, as `uri.path()` gives it. Matching
        /// is exact and case-sensitive; static segments beat parameters; a parameter is one
        /// non-empty segment, kept percent-encoded (an encoded `/` stays inside it; decode
        /// with `PathParams::decoded`). The discovery paths (`/api`, `/apis`, a group's, a
        /// group-version's) match with and without their trailing slash, as the API server
        /// serves them; elsewhere a trailing slash, an empty segment, a `.` or `..`
        /// parameter, or a `?` or `#` in the path never match. A known path with another
        /// method gives `MethodNotAllowed` with the methods it serves. Resolving allocates
        /// nothing.
        #[must_use]
        #[allow(clippy::too_many_lines)]
        pub fn resolve<'p>(method: &Method, path: &'p str) -> Resolution<'p, Route> {
            let rest = path;
            #params
            #body
        }
    }
}

fn not_found() -> TokenStream {
    quote!(Resolution::NotFound)
}

/// The expression that resolves the rest of the path, `rest` (empty, or starting at a
/// `/`), at `node`.
fn node(node: &Node<'_>) -> TokenStream {
    let children = match &node.param {
        None => statics(node),
        Some(param) if node.statics.is_empty() => param_child(param),
        Some(param) => {
            // Static segments first; the parameter when they find no path.
            let statics = statics(node);
            let param = param_child(param);
            quote! {{
                let mark = params.mark();
                let found = #statics;
                if found.is_not_found() {
                    params.rewind(mark);
                    #param
                } else {
                    found
                }
            }}
        }
    };
    if node.leaf.is_empty() {
        children
    } else if node.statics.is_empty() && node.param.is_none() {
        let leaf = leaf(node);
        let not_found = not_found();
        quote! {
            if rest.is_empty() {
                #leaf
            } else {
                #not_found
            }
        }
    } else {
        let leaf = leaf(node);
        let otherwise = else_branch(children);
        quote! {
            if rest.is_empty() {
                #leaf
            } else #otherwise
        }
    }
}

/// What follows an `else`: an `if` expression as it is (`else if`), anything else in a block.
fn else_branch(expression: TokenStream) -> TokenStream {
    let is_if = matches!(
        expression.clone().into_iter().next(),
        Some(proc_macro2::TokenTree::Ident(word)) if word == "if"
    );
    if is_if {
        expression
    } else {
        quote!({ #expression })
    }
}

/// The expression that resolves `rest` against the static children of `node`: each one a
/// prefix (a run of static segments with one way on), compared whole; at a wide node, only
/// those whose first byte matches.
fn statics(node: &Node<'_>) -> TokenStream {
    let runs: Vec<(String, &Node<'_>)> = node
        .statics
        .iter()
        .map(|(text, child)| run(text, child))
        .collect();
    if runs.len() < BYTE_DISPATCH_FROM {
        return chain(&runs);
    }
    // By the first byte after the `/`; the empty segment has none (its run is `/`, or `//…`).
    let mut by_byte: BTreeMap<Option<u8>, Vec<(String, &Node<'_>)>> = BTreeMap::new();
    for (prefix, child) in runs {
        let first = prefix.as_bytes().get(1).copied().filter(|b| *b != b'/');
        by_byte.entry(first).or_default().push((prefix, child));
    }
    let not_found = not_found();
    let arms = by_byte.iter().map(|(byte, runs)| {
        let pattern = match byte {
            Some(byte) => {
                let byte = proc_macro2::Literal::byte_character(*byte);
                quote!(Some(#byte))
            }
            None => quote!(None | Some(b'/')),
        };
        let chain = chain(runs);
        quote!(#pattern => #chain,)
    });
    quote! {
        match rest.as_bytes().get(1) {
            #(#arms)*
            _ => #not_found,
        }
    }
}

/// The prefix for the static segment `text` and the segments after it with one way on
/// (no leaf, no parameter, one static child), and the node where the run ends.
fn run<'n, 'a>(text: &str, mut child: &'n Node<'a>) -> (String, &'n Node<'a>) {
    let mut prefix = format!("/{text}");
    while child.leaf.is_empty() && child.param.is_none() && child.statics.len() == 1 {
        let Some((next, grandchild)) = child.statics.iter().next() else {
            break;
        };
        prefix.push('/');
        prefix.push_str(next);
        child = grandchild;
    }
    (prefix, child)
}

/// Each prefix tried in turn; at most one can match, since each ends at a whole segment
/// and the first segments differ.
fn chain(runs: &[(String, &Node<'_>)]) -> TokenStream {
    let mut expression = not_found();
    for (prefix, child) in runs.iter().rev() {
        let child = node(child);
        let otherwise = else_branch(expression);
        expression = quote! {
            if let Some(rest) = strip_segments(rest, #prefix) {
                #child
            } else #otherwise
        };
    }
    expression
}

/// The expression that takes the parameter segment at the start of `rest` and resolves the
/// rest at `param`.
fn param_child(param: &Node<'_>) -> TokenStream {
    let child = node(param);
    let not_found = not_found();
    quote! {
        if let Some((segment, rest)) = param_segment(rest) {
            params.push(segment);
            #child
        } else {
            #not_found
        }
    }
}

/// The method dispatch at the end of a path.
fn leaf(node: &Node<'_>) -> TokenStream {
    if node.leaf.is_empty() {
        return not_found();
    }
    let mut allowed: Option<TokenStream> = None;
    let mut branches = Vec::new();
    for (method, op) in &node.leaf {
        let method = ident(method);
        let variant = ident(&op.names.variant);
        let names = op.path_params.iter().map(|p| &p.name);
        let params = if op.path_params.is_empty() {
            quote!(params,)
        } else {
            quote!(params: params.named(&[#(#names),*]),)
        };
        branches.push(quote! {
            if *method == Method::#method {
                Resolution::Found {
                    route: Route::#variant,
                    #params
                }
            }
        });
        allowed = Some(match allowed {
            None => quote!(MethodSet::#method),
            Some(set) => quote!(#set.union(MethodSet::#method)),
        });
    }
    quote! {
        #(#branches)else* else {
            Resolution::MethodNotAllowed {
                allowed: #allowed,
            }
        }
    }
}
