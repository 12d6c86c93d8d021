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
