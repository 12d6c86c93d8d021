//! Types as the docs and the route table write them: short paths below the crate root
//! (`core::v1::Pod`, `Vec<…>`), and a response body in words.

use crate::emit::{Context, shape_text};
use crate::model::Shape;
use crate::model::operations::ResponseBody;

/// A response body type as text, for docs and the route table.
pub(super) fn body_display(context: &Context<'_>, body: &ResponseBody) -> String {
    match body {
        ResponseBody::Empty => "empty".to_owned(),
        ResponseBody::Text => "`String` (text/plain)".to_owned(),
        ResponseBody::Json(shape) => format!("`{}`", shape_display(context, shape)),
        ResponseBody::Watch(shape) => {
            format!("`WatchEvent<{}>` stream", shape_display(context, shape))
        }
        ResponseBody::StatusOr(shape) => format!(
            "`Status` or `{}`, by the body's `kind`",
            shape_display(context, shape)
        ),
    }
}

/// A shape as a short Rust type: the type's module path below the root and its name.
pub(crate) fn shape_display(context: &Context<'_>, shape: &Shape) -> String {
    match shape {
        Shape::Ref(id) => {
            let ty = context.api.get(*id);
            if let Some(path) = ty.kind.extern_path() {
                return path.trim_start_matches("::").to_owned();
            }
            let mut path = ty.module.join("::");
            if !path.is_empty() {
                path.push_str("::");
            }
            path.push_str(&ty.name);
            path
        }
        Shape::Vec(inner) => format!("Vec<{}>", shape_display(context, inner)),
        Shape::Map(inner) => {
            let map = context.map.rsplit("::").next().unwrap_or_default();
            format!("{map}<String, {}>", shape_display(context, inner))
        }
        Shape::Json => "serde_json::Value".to_owned(),
        other => shape_text(context, other),
    }
}

pub(super) fn response_type_display(context: &Context<'_>, body: &ResponseBody) -> Option<String> {
    match body {
        ResponseBody::Empty => None,
        ResponseBody::Text => Some("String".to_owned()),
        ResponseBody::Json(shape) => Some(shape_display(context, shape)),
        ResponseBody::Watch(shape) => {
            Some(format!("WatchEvent<{}>", shape_display(context, shape)))
        }
        ResponseBody::StatusOr(shape) => {
            Some(format!("StatusOr<{}>", shape_display(context, shape)))
        }
    }
}
