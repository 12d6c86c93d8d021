//! Every golden output, compiled. `tests/golden.rs` checks that this list names exactly the
//! fixtures in `golden/`. `rustfmt::skip` keeps rustfmt from rewrapping the goldens, which
//! are prettyplease's output by definition.

#[rustfmt::skip]
#[path = "../golden/builder_collections.rs"]
pub mod builder_collections;
#[rustfmt::skip]
#[path = "../golden/builder_fields.rs"]
pub mod builder_fields;
#[rustfmt::skip]
#[path = "../golden/builder_nested.rs"]
pub mod builder_nested;
#[rustfmt::skip]
#[path = "../golden/builder_resource.rs"]
pub mod builder_resource;
#[rustfmt::skip]
#[path = "../golden/byte_strings.rs"]
pub mod byte_strings;
#[rustfmt::skip]
#[path = "../golden/enums.rs"]
pub mod enums;
#[rustfmt::skip]
#[path = "../golden/int_or_string.rs"]
pub mod int_or_string;
#[rustfmt::skip]
#[path = "../golden/keywords.rs"]
pub mod keywords;
#[rustfmt::skip]
#[path = "../golden/maps.rs"]
pub mod maps;
#[rustfmt::skip]
#[path = "../golden/name_collisions.rs"]
pub mod name_collisions;
#[rustfmt::skip]
#[path = "../golden/recursion.rs"]
pub mod recursion;
#[rustfmt::skip]
#[path = "../golden/resource.rs"]
pub mod resource;
#[rustfmt::skip]
#[path = "../golden/special_types.rs"]
pub mod special_types;
#[rustfmt::skip]
#[path = "../golden/unicode_docs.rs"]
pub mod unicode_docs;
#[rustfmt::skip]
#[path = "../golden/route_table.rs"]
pub mod route_table;
#[rustfmt::skip]
#[path = "../golden/combined_schemas.rs"]
pub mod combined_schemas;
#[rustfmt::skip]
#[path = "../golden/crd_preserve_unknown.rs"]
pub mod crd_preserve_unknown;
#[rustfmt::skip]
#[path = "../golden/date_times.rs"]
pub mod date_times;
#[rustfmt::skip]
#[path = "../golden/drop_unknown_fields.rs"]
pub mod drop_unknown_fields;
#[rustfmt::skip]
#[path = "../golden/extra_keys.rs"]
pub mod extra_keys;
#[rustfmt::skip]
#[path = "../golden/integer_formats.rs"]
pub mod integer_formats;
#[rustfmt::skip]
#[path = "../golden/nullable.rs"]
pub mod nullable;
#[rustfmt::skip]
#[path = "../golden/numbers.rs"]
pub mod numbers;
#[rustfmt::skip]
#[path = "../golden/builder_defaults.rs"]
pub mod builder_defaults;
#[rustfmt::skip]
#[path = "../golden/wide_routes.rs"]
pub mod wide_routes;
#[rustfmt::skip]
#[path = "../golden/shared_shapes.rs"]
pub mod shared_shapes;
#[rustfmt::skip]
#[path = "../golden/validation.rs"]
pub mod validation;
