//! The optional query parameters of a custom resource's operations, as every CRD crate
//! kubeforge generates would write them: compiled once here, and re-exported by the
//! crates (their `routes` module) instead of compiled in each (docs/src/design/decisions.md,
//! "A CRD crate's query structs"). The generator re-exports them only when its own text
//! of every struct is the text below (`SOURCE`) token for token.
//!
//! Written by `cargo xtask regen` from the generator (`kubeforge::crd_query_module`), laid
//! out as the generator lays out a crate (so `runtime/src/lib.rs` keeps rustfmt off it);
//! `regen --check` and `codegen`'s cli tests fail when it is stale. Do not edit by hand.

/// This module's text, which the generator compares its own with.
#[doc(hidden)]
pub const SOURCE: &str = include_str!("crd_query.rs");

/// The optional query parameters of a custom resource's create and replace operations; only those set are sent. The name says what the operations do, never which parameters they take, so a release that adds a parameter adds a field here and renames nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CreateOrReplaceQuery {
    /// When set to `All`, the request is fully processed but nothing is persisted.
    pub dry_run: Option<String>,
    /// Name of the actor making the change, at most 128 printable characters.
    pub field_manager: Option<String>,
    /// How unknown or duplicate fields are handled: Ignore, Warn or Strict.
    pub field_validation: Option<String>,
    /// Pretty-print the output when set to 'true'.
    pub pretty: Option<String>,
}

impl crate::request::QueryParams for CreateOrReplaceQuery {
    #[inline]
    fn append_to(&self, target: &mut crate::request::PathAndQuery) {
        target.push_optional_query("dryRun", self.dry_run.as_deref());
        target.push_optional_query("fieldManager", self.field_manager.as_deref());
        target.push_optional_query("fieldValidation", self.field_validation.as_deref());
        target.push_optional_query("pretty", self.pretty.as_deref());
    }
}

impl CreateOrReplaceQuery {
    /// A builder with no parameter set.
    #[inline]
    pub fn builder() -> CreateOrReplaceQueryBuilder {
        CreateOrReplaceQueryBuilder::default()
    }
}

/// Builds [`CreateOrReplaceQuery`]: each setter sets one parameter; unset ones are not sent.
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct CreateOrReplaceQueryBuilder(CreateOrReplaceQuery);

impl CreateOrReplaceQueryBuilder {
    /// When set to `All`, the request is fully processed but nothing is persisted.
    pub fn dry_run(mut self, value: impl Into<String>) -> Self {
        self.0.dry_run = Some(value.into());
        self
    }

    /// Name of the actor making the change, at most 128 printable characters.
    pub fn field_manager(mut self, value: impl Into<String>) -> Self {
        self.0.field_manager = Some(value.into());
        self
    }

    /// How unknown or duplicate fields are handled: Ignore, Warn or Strict.
    pub fn field_validation(mut self, value: impl Into<String>) -> Self {
        self.0.field_validation = Some(value.into());
        self
    }

    /// Pretty-print the output when set to 'true'.
    pub fn pretty(mut self, value: impl Into<String>) -> Self {
        self.0.pretty = Some(value.into());
        self
    }

    /// The parameters.
    #[inline]
    #[must_use]
    pub fn build(self) -> CreateOrReplaceQuery {
        self.0
    }
}

impl From<CreateOrReplaceQueryBuilder> for CreateOrReplaceQuery {
    fn from(builder: CreateOrReplaceQueryBuilder) -> Self {
        builder.0
    }
}

impl From<CreateOrReplaceQuery> for CreateOrReplaceQueryBuilder {
    fn from(query: CreateOrReplaceQuery) -> Self {
        Self(query)
    }
}

/// The optional query parameters of a custom resource's delete-collection operations; only those set are sent. The name says what the operations do, never which parameters they take, so a release that adds a parameter adds a field here and renames nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeleteCollectionQuery {
    /// Continue token returned by a previous paged list call.
    pub continue_: Option<String>,
    /// When set to `All`, the request is fully processed but nothing is persisted.
    pub dry_run: Option<String>,
    /// Only return objects whose fields match, e.g. `metadata.name=<name>`.
    pub field_selector: Option<String>,
    /// Seconds to wait before deletion; 0 deletes immediately.
    pub grace_period_seconds: Option<i64>,
    /// Only return objects whose labels match, e.g. `app in (web,api)`.
    pub label_selector: Option<String>,
    /// Maximum number of items to return in one page.
    pub limit: Option<i64>,
    /// Deprecated: whether dependents are orphaned; use propagationPolicy instead.
    pub orphan_dependents: Option<bool>,
    /// Pretty-print the output when set to 'true'.
    pub pretty: Option<String>,
    /// Garbage collection policy: Orphan, Background or Foreground.
    pub propagation_policy: Option<String>,
    /// Resource version the request must be served from; see <https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions>.
    pub resource_version: Option<String>,
    /// How resourceVersion applies to a list call: Exact or NotOlderThan.
    pub resource_version_match: Option<String>,
    /// With `watch=true`, first stream the current state as synthetic events, then a bookmark.
    pub send_initial_events: Option<bool>,
    /// Time limit for the list or watch call, in seconds.
    pub timeout_seconds: Option<i64>,
}

impl crate::request::QueryParams for DeleteCollectionQuery {
    #[inline]
    fn append_to(&self, target: &mut crate::request::PathAndQuery) {
        target.push_optional_query("continue", self.continue_.as_deref());
        target.push_optional_query("dryRun", self.dry_run.as_deref());
        target.push_optional_query("fieldSelector", self.field_selector.as_deref());
        target
            .push_optional_query(
                "gracePeriodSeconds",
                self.grace_period_seconds.as_ref(),
            );
        target.push_optional_query("labelSelector", self.label_selector.as_deref());
        target.push_optional_query("limit", self.limit.as_ref());
        target.push_optional_query("orphanDependents", self.orphan_dependents.as_ref());
        target.push_optional_query("pretty", self.pretty.as_deref());
        target
            .push_optional_query(
                "propagationPolicy",
                self.propagation_policy.as_deref(),
            );
        target.push_optional_query("resourceVersion", self.resource_version.as_deref());
        target
            .push_optional_query(
                "resourceVersionMatch",
                self.resource_version_match.as_deref(),
            );
        target
            .push_optional_query("sendInitialEvents", self.send_initial_events.as_ref());
        target.push_optional_query("timeoutSeconds", self.timeout_seconds.as_ref());
    }
}

impl DeleteCollectionQuery {
    /// A builder with no parameter set.
    #[inline]
    pub fn builder() -> DeleteCollectionQueryBuilder {
        DeleteCollectionQueryBuilder::default()
    }
}

/// Builds [`DeleteCollectionQuery`]: each setter sets one parameter; unset ones are not sent.
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct DeleteCollectionQueryBuilder(DeleteCollectionQuery);

impl DeleteCollectionQueryBuilder {
    /// Continue token returned by a previous paged list call.
    pub fn continue_(mut self, value: impl Into<String>) -> Self {
        self.0.continue_ = Some(value.into());
        self
    }

    /// When set to `All`, the request is fully processed but nothing is persisted.
    pub fn dry_run(mut self, value: impl Into<String>) -> Self {
        self.0.dry_run = Some(value.into());
        self
    }

    /// Only return objects whose fields match, e.g. `metadata.name=<name>`.
    pub fn field_selector(mut self, value: impl Into<String>) -> Self {
        self.0.field_selector = Some(value.into());
        self
    }

    /// Seconds to wait before deletion; 0 deletes immediately.
    pub fn grace_period_seconds(mut self, value: impl Into<i64>) -> Self {
        self.0.grace_period_seconds = Some(value.into());
        self
    }

    /// Only return objects whose labels match, e.g. `app in (web,api)`.
    pub fn label_selector(mut self, value: impl Into<String>) -> Self {
        self.0.label_selector = Some(value.into());
        self
    }

    /// Maximum number of items to return in one page.
    pub fn limit(mut self, value: impl Into<i64>) -> Self {
        self.0.limit = Some(value.into());
        self
    }

    /// Deprecated: whether dependents are orphaned; use propagationPolicy instead.
    pub fn orphan_dependents(mut self, value: impl Into<bool>) -> Self {
        self.0.orphan_dependents = Some(value.into());
        self
    }

    /// Pretty-print the output when set to 'true'.
    pub fn pretty(mut self, value: impl Into<String>) -> Self {
        self.0.pretty = Some(value.into());
        self
    }

    /// Garbage collection policy: Orphan, Background or Foreground.
    pub fn propagation_policy(mut self, value: impl Into<String>) -> Self {
        self.0.propagation_policy = Some(value.into());
        self
    }

    /// Resource version the request must be served from; see <https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions>.
    pub fn resource_version(mut self, value: impl Into<String>) -> Self {
        self.0.resource_version = Some(value.into());
        self
    }

    /// How resourceVersion applies to a list call: Exact or NotOlderThan.
    pub fn resource_version_match(mut self, value: impl Into<String>) -> Self {
        self.0.resource_version_match = Some(value.into());
        self
    }

    /// With `watch=true`, first stream the current state as synthetic events, then a bookmark.
    pub fn send_initial_events(mut self, value: impl Into<bool>) -> Self {
        self.0.send_initial_events = Some(value.into());
        self
    }

    /// Time limit for the list or watch call, in seconds.
    pub fn timeout_seconds(mut self, value: impl Into<i64>) -> Self {
        self.0.timeout_seconds = Some(value.into());
        self
    }

    /// The parameters.
    #[inline]
    #[must_use]
    pub fn build(self) -> DeleteCollectionQuery {
        self.0
    }
}

impl From<DeleteCollectionQueryBuilder> for DeleteCollectionQuery {
    fn from(builder: DeleteCollectionQueryBuilder) -> Self {
        builder.0
    }
}

impl From<DeleteCollectionQuery> for DeleteCollectionQueryBuilder {
    fn from(query: DeleteCollectionQuery) -> Self {
        Self(query)
    }
}

/// The optional query parameters of a custom resource's delete operations; only those set are sent. The name says what the operations do, never which parameters they take, so a release that adds a parameter adds a field here and renames nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeleteQuery {
    /// When set to `All`, the request is fully processed but nothing is persisted.
    pub dry_run: Option<String>,
    /// Seconds to wait before deletion; 0 deletes immediately.
    pub grace_period_seconds: Option<i64>,
    /// Deprecated: whether dependents are orphaned; use propagationPolicy instead.
    pub orphan_dependents: Option<bool>,
    /// Pretty-print the output when set to 'true'.
    pub pretty: Option<String>,
    /// Garbage collection policy: Orphan, Background or Foreground.
    pub propagation_policy: Option<String>,
}

impl crate::request::QueryParams for DeleteQuery {
    #[inline]
    fn append_to(&self, target: &mut crate::request::PathAndQuery) {
        target.push_optional_query("dryRun", self.dry_run.as_deref());
        target
            .push_optional_query(
                "gracePeriodSeconds",
                self.grace_period_seconds.as_ref(),
            );
        target.push_optional_query("orphanDependents", self.orphan_dependents.as_ref());
        target.push_optional_query("pretty", self.pretty.as_deref());
        target
            .push_optional_query(
                "propagationPolicy",
                self.propagation_policy.as_deref(),
            );
    }
}

impl DeleteQuery {
    /// A builder with no parameter set.
    #[inline]
    pub fn builder() -> DeleteQueryBuilder {
        DeleteQueryBuilder::default()
    }
}

/// Builds [`DeleteQuery`]: each setter sets one parameter; unset ones are not sent.
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct DeleteQueryBuilder(DeleteQuery);

impl DeleteQueryBuilder {
    /// When set to `All`, the request is fully processed but nothing is persisted.
    pub fn dry_run(mut self, value: impl Into<String>) -> Self {
        self.0.dry_run = Some(value.into());
        self
    }

    /// Seconds to wait before deletion; 0 deletes immediately.
    pub fn grace_period_seconds(mut self, value: impl Into<i64>) -> Self {
        self.0.grace_period_seconds = Some(value.into());
        self
    }

    /// Deprecated: whether dependents are orphaned; use propagationPolicy instead.
    pub fn orphan_dependents(mut self, value: impl Into<bool>) -> Self {
        self.0.orphan_dependents = Some(value.into());
        self
    }

    /// Pretty-print the output when set to 'true'.
    pub fn pretty(mut self, value: impl Into<String>) -> Self {
        self.0.pretty = Some(value.into());
        self
    }

    /// Garbage collection policy: Orphan, Background or Foreground.
    pub fn propagation_policy(mut self, value: impl Into<String>) -> Self {
        self.0.propagation_policy = Some(value.into());
        self
    }

    /// The parameters.
    #[inline]
    #[must_use]
    pub fn build(self) -> DeleteQuery {
        self.0
    }
}

impl From<DeleteQueryBuilder> for DeleteQuery {
    fn from(builder: DeleteQueryBuilder) -> Self {
        builder.0
    }
}

impl From<DeleteQuery> for DeleteQueryBuilder {
    fn from(query: DeleteQuery) -> Self {
        Self(query)
    }
}

/// The optional query parameters of a custom resource's get operations; only those set are sent. The name says what the operations do, never which parameters they take, so a release that adds a parameter adds a field here and renames nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GetQuery {
    /// Pretty-print the output when set to 'true'.
    pub pretty: Option<String>,
}

impl crate::request::QueryParams for GetQuery {
    #[inline]
    fn append_to(&self, target: &mut crate::request::PathAndQuery) {
        target.push_optional_query("pretty", self.pretty.as_deref());
    }
}

impl GetQuery {
    /// A builder with no parameter set.
    #[inline]
    pub fn builder() -> GetQueryBuilder {
        GetQueryBuilder::default()
    }
}

/// Builds [`GetQuery`]: each setter sets one parameter; unset ones are not sent.
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct GetQueryBuilder(GetQuery);

impl GetQueryBuilder {
    /// Pretty-print the output when set to 'true'.
    pub fn pretty(mut self, value: impl Into<String>) -> Self {
        self.0.pretty = Some(value.into());
        self
    }

    /// The parameters.
    #[inline]
    #[must_use]
    pub fn build(self) -> GetQuery {
        self.0
    }
}

impl From<GetQueryBuilder> for GetQuery {
    fn from(builder: GetQueryBuilder) -> Self {
        builder.0
    }
}

impl From<GetQuery> for GetQueryBuilder {
    fn from(query: GetQuery) -> Self {
        Self(query)
    }
}

/// The optional query parameters of a custom resource's list operations; only those set are sent. The name says what the operations do, never which parameters they take, so a release that adds a parameter adds a field here and renames nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListOrWatchQuery {
    /// Asks for BOOKMARK watch events; servers may ignore it.
    pub allow_watch_bookmarks: Option<bool>,
    /// Continue token returned by a previous paged list call.
    pub continue_: Option<String>,
    /// Only return objects whose fields match, e.g. `metadata.name=<name>`.
    pub field_selector: Option<String>,
    /// Only return objects whose labels match, e.g. `app in (web,api)`.
    pub label_selector: Option<String>,
    /// Maximum number of items to return in one page.
    pub limit: Option<i64>,
    /// Pretty-print the output when set to 'true'.
    pub pretty: Option<String>,
    /// Resource version the request must be served from; see <https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions>.
    pub resource_version: Option<String>,
    /// How resourceVersion applies to a list call: Exact or NotOlderThan.
    pub resource_version_match: Option<String>,
    /// With `watch=true`, first stream the current state as synthetic events, then a bookmark.
    pub send_initial_events: Option<bool>,
    /// Time limit for the list or watch call, in seconds.
    pub timeout_seconds: Option<i64>,
    /// Stream changes as added, modified and deleted events instead of returning a list.
    pub watch: Option<bool>,
}

impl crate::request::QueryParams for ListOrWatchQuery {
    #[inline]
    fn append_to(&self, target: &mut crate::request::PathAndQuery) {
        target
            .push_optional_query(
                "allowWatchBookmarks",
                self.allow_watch_bookmarks.as_ref(),
            );
        target.push_optional_query("continue", self.continue_.as_deref());
        target.push_optional_query("fieldSelector", self.field_selector.as_deref());
        target.push_optional_query("labelSelector", self.label_selector.as_deref());
        target.push_optional_query("limit", self.limit.as_ref());
        target.push_optional_query("pretty", self.pretty.as_deref());
        target.push_optional_query("resourceVersion", self.resource_version.as_deref());
        target
            .push_optional_query(
                "resourceVersionMatch",
                self.resource_version_match.as_deref(),
            );
        target
            .push_optional_query("sendInitialEvents", self.send_initial_events.as_ref());
        target.push_optional_query("timeoutSeconds", self.timeout_seconds.as_ref());
        target.push_optional_query("watch", self.watch.as_ref());
    }
}

impl ListOrWatchQuery {
    /// A builder with no parameter set.
    #[inline]
    pub fn builder() -> ListOrWatchQueryBuilder {
        ListOrWatchQueryBuilder::default()
    }
}

/// Builds [`ListOrWatchQuery`]: each setter sets one parameter; unset ones are not sent.
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct ListOrWatchQueryBuilder(ListOrWatchQuery);

impl ListOrWatchQueryBuilder {
    /// Asks for BOOKMARK watch events; servers may ignore it.
    pub fn allow_watch_bookmarks(mut self, value: impl Into<bool>) -> Self {
        self.0.allow_watch_bookmarks = Some(value.into());
        self
    }

    /// Continue token returned by a previous paged list call.
    pub fn continue_(mut self, value: impl Into<String>) -> Self {
        self.0.continue_ = Some(value.into());
        self
    }

    /// Only return objects whose fields match, e.g. `metadata.name=<name>`.
    pub fn field_selector(mut self, value: impl Into<String>) -> Self {
        self.0.field_selector = Some(value.into());
        self
    }

    /// Only return objects whose labels match, e.g. `app in (web,api)`.
    pub fn label_selector(mut self, value: impl Into<String>) -> Self {
        self.0.label_selector = Some(value.into());
        self
    }

    /// Maximum number of items to return in one page.
    pub fn limit(mut self, value: impl Into<i64>) -> Self {
        self.0.limit = Some(value.into());
        self
    }

    /// Pretty-print the output when set to 'true'.
    pub fn pretty(mut self, value: impl Into<String>) -> Self {
        self.0.pretty = Some(value.into());
        self
    }

    /// Resource version the request must be served from; see <https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions>.
    pub fn resource_version(mut self, value: impl Into<String>) -> Self {
        self.0.resource_version = Some(value.into());
        self
    }

    /// How resourceVersion applies to a list call: Exact or NotOlderThan.
    pub fn resource_version_match(mut self, value: impl Into<String>) -> Self {
        self.0.resource_version_match = Some(value.into());
        self
    }

    /// With `watch=true`, first stream the current state as synthetic events, then a bookmark.
    pub fn send_initial_events(mut self, value: impl Into<bool>) -> Self {
        self.0.send_initial_events = Some(value.into());
        self
    }

    /// Time limit for the list or watch call, in seconds.
    pub fn timeout_seconds(mut self, value: impl Into<i64>) -> Self {
        self.0.timeout_seconds = Some(value.into());
        self
    }

    /// Stream changes as added, modified and deleted events instead of returning a list.
    pub fn watch(mut self, value: impl Into<bool>) -> Self {
        self.0.watch = Some(value.into());
        self
    }

    /// The parameters.
    #[inline]
    #[must_use]
    pub fn build(self) -> ListOrWatchQuery {
        self.0
    }
}

impl From<ListOrWatchQueryBuilder> for ListOrWatchQuery {
    fn from(builder: ListOrWatchQueryBuilder) -> Self {
        builder.0
    }
}

impl From<ListOrWatchQuery> for ListOrWatchQueryBuilder {
    fn from(query: ListOrWatchQuery) -> Self {
        Self(query)
    }
}

/// The optional query parameters of a custom resource's patch operations; only those set are sent. The name says what the operations do, never which parameters they take, so a release that adds a parameter adds a field here and renames nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatchQuery {
    /// When set to `All`, the request is fully processed but nothing is persisted.
    pub dry_run: Option<String>,
    /// Name of the actor making the change, at most 128 printable characters.
    pub field_manager: Option<String>,
    /// How unknown or duplicate fields are handled: Ignore, Warn or Strict.
    pub field_validation: Option<String>,
    /// Let an apply request take over fields owned by other managers; unset for other patch types.
    pub force: Option<bool>,
    /// Pretty-print the output when set to 'true'.
    pub pretty: Option<String>,
}

impl crate::request::QueryParams for PatchQuery {
    #[inline]
    fn append_to(&self, target: &mut crate::request::PathAndQuery) {
        target.push_optional_query("dryRun", self.dry_run.as_deref());
        target.push_optional_query("fieldManager", self.field_manager.as_deref());
        target.push_optional_query("fieldValidation", self.field_validation.as_deref());
        target.push_optional_query("force", self.force.as_ref());
        target.push_optional_query("pretty", self.pretty.as_deref());
    }
}

impl PatchQuery {
    /// A builder with no parameter set.
    #[inline]
    pub fn builder() -> PatchQueryBuilder {
        PatchQueryBuilder::default()
    }
}

/// Builds [`PatchQuery`]: each setter sets one parameter; unset ones are not sent.
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct PatchQueryBuilder(PatchQuery);

impl PatchQueryBuilder {
    /// When set to `All`, the request is fully processed but nothing is persisted.
    pub fn dry_run(mut self, value: impl Into<String>) -> Self {
        self.0.dry_run = Some(value.into());
        self
    }

    /// Name of the actor making the change, at most 128 printable characters.
    pub fn field_manager(mut self, value: impl Into<String>) -> Self {
        self.0.field_manager = Some(value.into());
        self
    }

    /// How unknown or duplicate fields are handled: Ignore, Warn or Strict.
    pub fn field_validation(mut self, value: impl Into<String>) -> Self {
        self.0.field_validation = Some(value.into());
        self
    }

    /// Let an apply request take over fields owned by other managers; unset for other patch types.
    pub fn force(mut self, value: impl Into<bool>) -> Self {
        self.0.force = Some(value.into());
        self
    }

    /// Pretty-print the output when set to 'true'.
    pub fn pretty(mut self, value: impl Into<String>) -> Self {
        self.0.pretty = Some(value.into());
        self
    }

    /// The parameters.
    #[inline]
    #[must_use]
    pub fn build(self) -> PatchQuery {
        self.0
    }
}

impl From<PatchQueryBuilder> for PatchQuery {
    fn from(builder: PatchQueryBuilder) -> Self {
        builder.0
    }
}

impl From<PatchQuery> for PatchQueryBuilder {
    fn from(query: PatchQuery) -> Self {
        Self(query)
    }
}

/// The optional query parameters of a custom resource's watch operations; only those set are sent. The name says what the operations do, never which parameters they take, so a release that adds a parameter adds a field here and renames nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WatchQuery {
    /// Asks for BOOKMARK watch events; servers may ignore it.
    pub allow_watch_bookmarks: Option<bool>,
    /// Only return objects whose fields match, e.g. `metadata.name=<name>`.
    pub field_selector: Option<String>,
    /// Only return objects whose labels match, e.g. `app in (web,api)`.
    pub label_selector: Option<String>,
    /// Pretty-print the output when set to 'true'.
    pub pretty: Option<String>,
    /// Resource version the request must be served from; see <https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions>.
    pub resource_version: Option<String>,
    /// How resourceVersion applies to a list call: Exact or NotOlderThan.
    pub resource_version_match: Option<String>,
    /// With `watch=true`, first stream the current state as synthetic events, then a bookmark.
    pub send_initial_events: Option<bool>,
    /// Time limit for the list or watch call, in seconds.
    pub timeout_seconds: Option<i64>,
}

impl crate::request::QueryParams for WatchQuery {
    #[inline]
    fn append_to(&self, target: &mut crate::request::PathAndQuery) {
        target
            .push_optional_query(
                "allowWatchBookmarks",
                self.allow_watch_bookmarks.as_ref(),
            );
        target.push_optional_query("fieldSelector", self.field_selector.as_deref());
        target.push_optional_query("labelSelector", self.label_selector.as_deref());
        target.push_optional_query("pretty", self.pretty.as_deref());
        target.push_optional_query("resourceVersion", self.resource_version.as_deref());
        target
            .push_optional_query(
                "resourceVersionMatch",
                self.resource_version_match.as_deref(),
            );
        target
            .push_optional_query("sendInitialEvents", self.send_initial_events.as_ref());
        target.push_optional_query("timeoutSeconds", self.timeout_seconds.as_ref());
    }
}

impl WatchQuery {
    /// A builder with no parameter set.
    #[inline]
    pub fn builder() -> WatchQueryBuilder {
        WatchQueryBuilder::default()
    }
}

/// Builds [`WatchQuery`]: each setter sets one parameter; unset ones are not sent.
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct WatchQueryBuilder(WatchQuery);

impl WatchQueryBuilder {
    /// Asks for BOOKMARK watch events; servers may ignore it.
    pub fn allow_watch_bookmarks(mut self, value: impl Into<bool>) -> Self {
        self.0.allow_watch_bookmarks = Some(value.into());
        self
    }

    /// Only return objects whose fields match, e.g. `metadata.name=<name>`.
    pub fn field_selector(mut self, value: impl Into<String>) -> Self {
        self.0.field_selector = Some(value.into());
        self
    }

    /// Only return objects whose labels match, e.g. `app in (web,api)`.
    pub fn label_selector(mut self, value: impl Into<String>) -> Self {
        self.0.label_selector = Some(value.into());
        self
    }

    /// Pretty-print the output when set to 'true'.
    pub fn pretty(mut self, value: impl Into<String>) -> Self {
        self.0.pretty = Some(value.into());
        self
    }

    /// Resource version the request must be served from; see <https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions>.
    pub fn resource_version(mut self, value: impl Into<String>) -> Self {
        self.0.resource_version = Some(value.into());
        self
    }

    /// How resourceVersion applies to a list call: Exact or NotOlderThan.
    pub fn resource_version_match(mut self, value: impl Into<String>) -> Self {
        self.0.resource_version_match = Some(value.into());
        self
    }

    /// With `watch=true`, first stream the current state as synthetic events, then a bookmark.
    pub fn send_initial_events(mut self, value: impl Into<bool>) -> Self {
        self.0.send_initial_events = Some(value.into());
        self
    }

    /// Time limit for the list or watch call, in seconds.
    pub fn timeout_seconds(mut self, value: impl Into<i64>) -> Self {
        self.0.timeout_seconds = Some(value.into());
        self
    }

    /// The parameters.
    #[inline]
    #[must_use]
    pub fn build(self) -> WatchQuery {
        self.0
    }
}

impl From<WatchQueryBuilder> for WatchQuery {
    fn from(builder: WatchQueryBuilder) -> Self {
        builder.0
    }
}

impl From<WatchQuery> for WatchQueryBuilder {
    fn from(query: WatchQuery) -> Self {
        Self(query)
    }
}
