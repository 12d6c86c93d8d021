//! The operations of a [`Model`]: what the generated request functions, response decoders
//! and route table are made from.

use std::fmt;

use super::{Gvk, Model, Shape, Type};
use crate::diagnostics::Origin;
use crate::model::Scope;
use crate::model::operations as ir;

/// One operation: a method on a path template, with what it takes and answers.
#[derive(Clone, Copy)]
pub struct Operation<'a> {
    model: &'a Model,
    operation: &'a ir::Operation,
}

impl<'a> Operation<'a> {
    pub(super) fn new(model: &'a Model, operation: &'a ir::Operation) -> Operation<'a> {
        Operation { model, operation }
    }

    /// The `operationId`.
    pub fn id(self) -> &'a str {
        &self.operation.id
    }

    /// The HTTP method, upper case: `GET`.
    pub fn method(self) -> &'static str {
        self.operation.method.as_str()
    }

    /// The path template as written: `/api/v1/namespaces/{namespace}/pods/{name}`.
    pub fn path(self) -> &'a str {
        &self.operation.path.text
    }

    /// What it does, as route listings and the runtime's `Action` name it: `get`, `list`,
    /// `watch`, `create`, `replace`, `patch`, `delete`, `deletecollection`, `connect`, or
    /// another `x-kubernetes-action` as the document spells it.
    pub fn action(self) -> &'a str {
        self.operation.action.as_str()
    }

    /// The resource it acts on.
    pub fn target(self) -> Option<Target<'a>> {
        let resource = self.operation.resource.as_ref()?;
        Some(Target {
            model: self.model,
            resource,
        })
    }

    /// The path parameters' names, in the template's order.
    pub fn path_params(self) -> impl ExactSizeIterator<Item = &'a str> {
        self.operation.path_params.iter().map(|p| p.name.as_str())
    }

    /// The query parameters, in order.
    pub fn query_params(self) -> impl ExactSizeIterator<Item = Parameter<'a>> {
        let model = self.model;
        self.operation
            .query_params
            .iter()
            .map(move |param| Parameter { model, param })
    }

    /// The request body.
    pub fn body(self) -> Option<Body<'a>> {
        let body = self.operation.body.as_ref()?;
        Some(Body {
            model: self.model,
            body,
        })
    }

    /// The declared responses, by status.
    pub fn responses(self) -> impl ExactSizeIterator<Item = Response<'a>> {
        let model = self.model;
        self.operation
            .responses
            .iter()
            .map(move |response| Response { model, response })
    }

    /// The `Accept` header its request sends.
    pub fn accept(self) -> Option<&'a str> {
        self.operation.accept.as_deref()
    }

    /// Whether the document marks it deprecated.
    pub fn deprecated(self) -> bool {
        self.operation.deprecated
    }

    /// The description its docs are made from.
    pub fn description(self) -> Option<&'a str> {
        self.operation.description.as_deref()
    }

    /// The name of its request function.
    pub fn function(self) -> &'a str {
        &self.operation.names.function
    }

    /// The name of its response decoder.
    pub fn decoder(self) -> &'a str {
        &self.operation.names.decoder
    }

    /// The name of its response enum, when it has one.
    pub fn response_type(self) -> Option<&'a str> {
        self.operation.names.response.as_deref()
    }

    /// The name of the struct of its optional query parameters, when it has any.
    pub fn query_type(self) -> Option<&'a str> {
        self.operation.names.query.as_deref()
    }

    /// Whether that struct is shared with other operations of its kind (in the `routes`
    /// module) rather than its own.
    pub fn query_shared(self) -> bool {
        self.operation.names.query_shared
    }

    /// For a list, the name of the query struct of the watch generated beside it.
    pub fn watch_query_type(self) -> Option<&'a str> {
        self.operation.watch.as_ref()?.query.as_deref()
    }

    /// Where it is declared.
    pub fn origin(self) -> &'a Origin {
        &self.operation.origin
    }

    /// The releases that serve it, oldest first; empty when the inputs are not releases.
    pub fn releases(self) -> Vec<&'a str> {
        self.model
            .names(self.model.api().operation_releases(self.operation))
    }
}

impl fmt::Debug for Operation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Operation")
            .field("id", &self.id())
            .field("method", &self.method())
            .field("path", &self.path())
            .field("action", &self.action())
            .finish()
    }
}

/// The resource an [`Operation`] acts on.
#[derive(Clone, Copy)]
pub struct Target<'a> {
    model: &'a Model,
    resource: &'a ir::OperationResource,
}

impl<'a> Target<'a> {
    /// The resource's type, when the inputs define it.
    pub fn ty(self) -> Option<Type<'a>> {
        self.resource.id.map(|id| self.model.ty(id))
    }

    /// The resource's group, version and kind (also for its subresources).
    pub fn gvk(self) -> &'a Gvk {
        &self.resource.gvk
    }

    /// The plural in paths.
    pub fn plural(self) -> &'a str {
        &self.resource.plural
    }

    /// The subresource: `status`, `scale`, `log`, ….
    pub fn subresource(self) -> Option<&'a str> {
        self.resource.subresource.as_deref()
    }

    /// Whether the resource lives in a namespace.
    pub fn namespaced(self) -> bool {
        self.resource.scope == Scope::Namespaced
    }
}

impl fmt::Debug for Target<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Target")
            .field("gvk", self.gvk())
            .field("plural", &self.plural())
            .field("subresource", &self.subresource())
            .field("namespaced", &self.namespaced())
            .finish()
    }
}

/// A query parameter.
#[derive(Clone, Copy)]
pub struct Parameter<'a> {
    model: &'a Model,
    param: &'a ir::QueryParam,
}

impl<'a> Parameter<'a> {
    /// The name on the wire.
    pub fn name(self) -> &'a str {
        &self.param.name
    }

    /// The Rust field (or, when required, argument) name.
    pub fn rust_name(self) -> &'a str {
        &self.param.rust_name
    }

    /// Its type.
    pub fn shape(self) -> Shape<'a> {
        self.model.shape(&self.param.shape)
    }

    /// Whether it is required.
    pub fn required(self) -> bool {
        self.param.required
    }

    /// What it does.
    pub fn description(self) -> Option<&'a str> {
        self.param.description.as_deref()
    }
}

/// A request body.
#[derive(Clone, Copy)]
pub struct Body<'a> {
    model: &'a Model,
    body: &'a ir::Body,
}

impl<'a> Body<'a> {
    /// The declared type.
    pub fn shape(self) -> Shape<'a> {
        self.model.shape(&self.body.shape)
    }

    /// Whether it is a patch, whose variant chooses the content type (or the type as JSON).
    pub fn is_patch(self) -> bool {
        self.body.kind == ir::BodyKind::Patch
    }

    /// The accepted content types, sorted.
    pub fn content_types(self) -> &'a [String] {
        &self.body.content_types
    }

    /// Whether it is required.
    pub fn required(self) -> bool {
        self.body.required
    }
}

/// A declared response.
#[derive(Clone, Copy)]
pub struct Response<'a> {
    model: &'a Model,
    response: &'a ir::Response,
}

impl<'a> Response<'a> {
    /// The status code.
    pub fn status(self) -> u16 {
        self.response.status
    }

    /// The description: `OK`.
    pub fn description(self) -> &'a str {
        &self.response.description
    }

    /// The body's Rust type as listings write it (`api::core::v1::Pod`,
    /// `WatchEvent<api::core::v1::Pod>`, `StatusOr<api::core::v1::Pod>`, `String` for text);
    /// none for an empty body.
    pub fn body_type(self) -> Option<String> {
        self.response.body.type_text(self.model.api())
    }

    /// The content types, sorted.
    pub fn content_types(self) -> &'a [String] {
        &self.response.content_types
    }

    /// The body's type as the document declares it (`api::core::v1::Pod`,
    /// `apimachinery::pkg::apis::meta::v1::Status`), where [`Response::body_type`] is what
    /// a client reads: a delete declaring either the object or a `Status` is read as
    /// `StatusOr<…>`, since a server may answer either, and this says which one the
    /// operation names (a Pod's delete answers the Pod, a ConfigMap's a `Status`).
    pub fn declared_type(self) -> Option<String> {
        match &self.response.declared {
            Some(shape) => Some(self.model.api().shape_text(shape)),
            None => self.body_type(),
        }
    }
}
