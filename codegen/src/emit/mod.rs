//! Stage 3, emit: the model → token streams, grouped into a module tree of files. Emit
//! makes no decisions the model could make; it only spells them in Rust.

mod docs;
mod resource;
mod types;

use std::collections::BTreeMap;
use std::path::Path;

use proc_macro2::{Ident, Span, TokenStream};

use crate::diagnostics::{Diagnostic, Error, ErrorKind, Origin};
use crate::model::{ApiSet, Shape, TypeDef, TypeId, TypeKind};

/// Options that change the generated code.
#[derive(Clone, Debug)]
pub struct Options {
    /// The path of the generated root module (`crate` by default).
    pub root_path: String,
    /// The path of the runtime crate (`::kubegen_runtime` by default).
    pub runtime_path: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            root_path: "crate".to_owned(),
            runtime_path: "::kubegen_runtime".to_owned(),
        }
    }
}

/// A module of generated code: its files, and its child modules.
#[derive(Debug, Default)]
pub struct Module {
    /// Files by stem. Each becomes a private `mod` whose types are re-exported.
    pub files: BTreeMap<String, File>,
    /// Child modules by name.
    pub children: BTreeMap<String, Module>,
}

/// One generated file's content.
#[derive(Debug)]
pub struct File {
    /// The items.
    pub tokens: TokenStream,
    /// The names it defines, re-exported by its module.
    pub exports: Vec<String>,
    /// Where its main schema came from, for the header.
    pub source: Origin,
}

/// Paths and names shared by all emitters.
pub(crate) struct Context<'a> {
    pub api: &'a ApiSet,
    pub root: TokenStream,
    pub runtime: TokenStream,
}

/// Emits every type of `api` into a module tree.
pub fn emit(api: &ApiSet, options: &Options) -> Result<Module, Error> {
    let context = Context {
        api,
        root: parse_path(&options.root_path, "root_path")?,
        runtime: parse_path(&options.runtime_path, "runtime_path")?,
    };
    check_identifiers(api)?;

    let mut tree = Module::default();
    for (index, ty) in api.types.iter().enumerate() {
        let tokens = types::type_item(&context, TypeId(index));
        let module = ty.module.iter().fold(&mut tree, |m, name| {
            m.children.entry(name.clone()).or_default()
        });
        let file = module.files.entry(ty.file.clone()).or_insert_with(|| File {
            tokens: TokenStream::new(),
            exports: Vec::new(),
            source: ty.origin.clone(),
        });
        file.tokens.extend(tokens);
        file.exports.push(ty.name.clone());
    }
    Ok(tree)
}

/// An identifier the model has already made valid.
pub(crate) fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// The full path of a generated type.
pub(crate) fn type_path(context: &Context<'_>, id: TypeId) -> TokenStream {
    let ty = context.api.get(id);
    let root = &context.root;
    let modules = ty.module.iter().map(|m| ident(m));
    let name = ident(&ty.name);
    let generics = match ty.kind {
        // A field that holds a raw watch event has no object type to name.
        TypeKind::WatchEvent { .. } => quote::quote!(<::serde_json::Value>),
        _ => TokenStream::new(),
    };
    quote::quote!(#root #(:: #modules)* :: #name #generics)
}

/// The Rust type of a shape.
pub(crate) fn shape_type(context: &Context<'_>, shape: &Shape) -> TokenStream {
    use quote::quote;
    match shape {
        Shape::Bool => quote!(bool),
        Shape::I32 => quote!(i32),
        Shape::I64 => quote!(i64),
        Shape::F64 => quote!(f64),
        Shape::String => quote!(String),
        Shape::Runtime(runtime) => {
            let path = &context.runtime;
            let name = ident(runtime.name());
            quote!(#path::#name)
        }
        Shape::Json => quote!(::serde_json::Value),
        Shape::Vec(inner) => {
            let inner = shape_type(context, inner);
            quote!(Vec<#inner>)
        }
        Shape::Map(inner) => {
            let inner = shape_type(context, inner);
            quote!(::std::collections::BTreeMap<String, #inner>)
        }
        Shape::Ref(id) => type_path(context, *id),
    }
}

fn parse_path(path: &str, option: &str) -> Result<TokenStream, Error> {
    match syn::parse_str::<syn::Path>(path) {
        Ok(parsed) => Ok(quote::quote!(#parsed)),
        Err(e) => Err(Diagnostic::new(
            ErrorKind::Output,
            &Origin::root(Path::new("<config>")),
            format!(
                "expected `{option}` to be a Rust path such as `crate::k8s`, found {path:?}: {e}"
            ),
        )
        .into()),
    }
}

/// Every name the model made must be a valid, non-keyword identifier; `Ident::new` would
/// panic otherwise, and the generator never panics.
fn check_identifiers(api: &ApiSet) -> Result<(), Error> {
    let valid = |name: &str| syn::parse_str::<Ident>(name).is_ok();
    let bad = |ty: &TypeDef, name: &str| {
        Error::from(Diagnostic::new(
            ErrorKind::Output,
            &ty.origin,
            format!(
                "internal error: the name {name:?} made for `{}` is not a valid identifier",
                ty.schema_name
            ),
        ))
    };
    for ty in &api.types {
        for name in ty.module.iter().chain([&ty.name, &ty.file]) {
            if !valid(name) {
                return Err(bad(ty, name));
            }
        }
        let inner: Vec<&String> = match &ty.kind {
            TypeKind::Struct(fields) => fields.iter().map(|f| &f.rust_name).collect(),
            TypeKind::Enum(variants) => variants.iter().map(|v| &v.rust_name).collect(),
            _ => Vec::new(),
        };
        if let Some(name) = inner.into_iter().find(|n| !valid(n)) {
            return Err(bad(ty, name));
        }
    }
    Ok(())
}
