//! The route matcher: a decision tree over path segments, written out as code. The tree is
//! a trie of every operation's path template; each node becomes a `match` (or a `let … else`
//! where there is one way on) on the next segment, static segments before the parameter
//! arm. Where a node has both, the static branch is tried first and the parameter branch
//! only when the static one finds no path (static segments beat parameters, and a path that
//! only the parameter route serves still resolves). Leaves compare the method, so a known
//! path with an unknown method is `MethodNotAllowed` rather than `NotFound`.
//!
//! The generated code borrows slices of the path and keeps parameters in a fixed array: a
//! miss, or a hit, allocates nothing.

use std::collections::BTreeMap;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Lifetime;

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

    fn has_params(&self) -> bool {
        self.param.is_some() || self.statics.values().any(Node::has_params)
    }
}

/// How a branch of the tree gives its answer early: `return` from the function, or `break`
/// out of the labelled block that tries static segments first.
#[derive(Clone)]
enum Exit {
    Return,
    Break(Lifetime),
}

impl Exit {
    fn with(&self, value: &TokenStream) -> TokenStream {
        match self {
            Exit::Return => quote!(return #value;),
            Exit::Break(label) => quote!(break #label #value;),
        }
    }
}

struct Gen {
    labels: usize,
}

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
    let mut generator = Gen { labels: 0 };
    let body = generator.node(&root, &Exit::Return);
    let (params, is_param_value) = if root.has_params() {
        (
            quote!(let mut params = PathParams::new();),
            quote!(use #runtime::route::is_param_value;),
        )
    } else {
        (quote!(let params = PathParams::new();), TokenStream::new())
    };
    quote! {
        use #runtime::http::Method;
        #is_param_value
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
            let Some(rest) = path.strip_prefix('/') else {
                return Resolution::NotFound;
            };
            let mut segments = #runtime::route::Segments::new(rest);
            #params
            #body
        }
    }
}

impl Gen {
    fn not_found() -> TokenStream {
        quote!(Resolution::NotFound)
    }

    /// The statements and final expression that resolve the rest of the path at `node`.
    fn node(&mut self, node: &Node<'_>, exit: &Exit) -> TokenStream {
        let not_found = Self::not_found();
        let has_leaf = !node.leaf.is_empty();
        match (node.statics.len(), &node.param) {
            (0, None) => {
                let leaf = self.leaf(node);
                let early = exit.with(&not_found);
                quote! {
                    if segments.next().is_some() {
                        #early
                    }
                    #leaf
                }
            }
            (1, None) if !has_leaf => {
                let Some((text, child)) = node.statics.iter().next() else {
                    return not_found;
                };
                let early = exit.with(&not_found);
                let child = self.node(child, exit);
                quote! {
                    let Some(#text) = segments.next() else {
                        #early
                    };
                    #child
                }
            }
            (0, Some(param)) if !has_leaf => {
                let early = exit.with(&not_found);
                let child = self.node(param, exit);
                quote! {
                    let Some(segment) = segments
                        .next()
                        .filter(|segment| is_param_value(segment))
                    else {
                        #early
                    };
                    params.push(segment);
                    #child
                }
            }
            (_, None) | (0, Some(_)) => {
                let leaf = has_leaf.then(|| {
                    let leaf = self.leaf(node);
                    quote!(None => #leaf,)
                });
                let statics: Vec<TokenStream> = node
                    .statics
                    .iter()
                    .map(|(text, child)| {
                        let child = self.node(child, exit);
                        quote!(Some(#text) => { #child })
                    })
                    .collect();
                let param = node.param.as_ref().map(|param| {
                    let child = self.node(param, exit);
                    quote! {
                        Some(segment) if is_param_value(segment) => {
                            params.push(segment);
                            #child
                        }
                    }
                });
                quote! {
                    match segments.next() {
                        #leaf
                        #(#statics,)*
                        #param
                        _ => #not_found,
                    }
                }
            }
            (_, Some(param)) => self.conflict(node, param, exit),
        }
    }

    /// A node with both static children and a parameter: statics first, and the parameter
    /// when they find no path.
    fn conflict(&mut self, node: &Node<'_>, param: &Node<'_>, exit: &Exit) -> TokenStream {
        let not_found = Self::not_found();
        self.labels += 1;
        let label = Lifetime::new(&format!("'statics_{}", self.labels), Span::call_site());
        let inner = Exit::Break(label.clone());
        let end = if node.leaf.is_empty() {
            exit.with(&not_found)
        } else {
            let leaf = self.leaf(node);
            exit.with(&leaf)
        };
        let dispatch = if node.statics.len() == 1 {
            let Some((text, child)) = node.statics.iter().next() else {
                return not_found;
            };
            let child = self.node(child, &inner);
            let test = if text.is_empty() {
                quote!(segment.is_empty())
            } else {
                quote!(segment == #text)
            };
            quote! {
                if #test {
                    #child
                } else {
                    #not_found
                }
            }
        } else {
            let arms: Vec<TokenStream> = node
                .statics
                .iter()
                .map(|(text, child)| {
                    let child = self.node(child, &inner);
                    quote!(#text => { #child })
                })
                .collect();
            quote! {
                match segment {
                    #(#arms,)*
                    _ => #not_found,
                }
            }
        };
        let found_exit = exit.with(&quote!(found));
        let child = self.node(param, exit);
        quote! {
            let Some(segment) = segments.next() else {
                #end
            };
            let saved = (segments.clone(), params.mark());
            let found = #label: {
                #dispatch
            };
            if !found.is_not_found() || !is_param_value(segment) {
                #found_exit
            }
            segments = saved.0;
            params.rewind(saved.1);
            params.push(segment);
            #child
        }
    }

    /// The method dispatch at the end of a path.
    fn leaf(&self, node: &Node<'_>) -> TokenStream {
        if node.leaf.is_empty() {
            return Self::not_found();
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
}
