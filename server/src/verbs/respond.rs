//! The answer of a verb in the encoding the client asked for: JSON, a Table (the API
//! server's printers' columns), the metadata alone (`PartialObjectMetadata`) or protobuf.

use http::{Response, StatusCode};
use serde_json::{Value, json};

use crate::objects::catalog::Catalog;
use crate::objects::{partial, table};
use crate::verbs::Shared;
use crate::wire::body::Body;
use crate::wire::encoding;
use crate::wire::media;
use crate::wire::query::Query;
use crate::wire::response::{failure_response, json_response};
use crate::wire::status::Failure;

impl Shared {
    /// Encodes an answer (an object of the resource's kind, a list of them, or a `Status`)
    /// as the client asked: JSON, or a Table.
    pub(crate) fn respond(
        &self,
        catalog: &Catalog,
        answer: media::Answer,
        index: usize,
        code: StatusCode,
        value: Value,
        query: &Query,
    ) -> Response<Body> {
        match answer {
            media::Answer::Table(version)
                if value.get("kind").and_then(Value::as_str) != Some("Status") =>
            {
                let def = &catalog.resources[index];
                let include = table::Include::of(query.get("includeObject"));
                let table = match value.get("items").and_then(Value::as_array) {
                    Some(items) => {
                        let items: Vec<&Value> = items.iter().collect();
                        table::table(
                            catalog,
                            def,
                            version,
                            &items,
                            include,
                            table::list_metadata(&value),
                            true,
                        )
                    }
                    None => {
                        let metadata = json!({"resourceVersion": value.pointer("/metadata/resourceVersion").cloned().unwrap_or(Value::from(""))});
                        table::table(catalog, def, version, &[&value], include, metadata, true)
                    }
                };
                json_response(code, &table)
            }
            media::Answer::Metadata {
                partial,
                version,
                protobuf,
            } if value.get("kind").and_then(Value::as_str) != Some("Status") => {
                match self.metadata_of(catalog, index, &value, partial, version) {
                    Ok(partial) if protobuf => {
                        encoding::protobuf_response(&self.options.protobuf, code, &partial)
                    }
                    Ok(partial) => json_response(code, &partial),
                    Err(failure) => failure_response(&failure),
                }
            }
            media::Answer::Protobuf | media::Answer::Metadata { protobuf: true, .. } => {
                encoding::protobuf_response(&self.options.protobuf, code, &value)
            }
            _ => json_response(code, &value),
        }
    }

    /// The metadata alone of an answer (`transformObject`): a `PartialObjectMetadata` of an
    /// object, a `PartialObjectMetadataList` of a list; the other way round is refused with
    /// the API server's 406, which names the storage's Go type.
    pub(crate) fn metadata_of(
        &self,
        catalog: &Catalog,
        index: usize,
        value: &Value,
        asked: media::Partial,
        version: &str,
    ) -> Result<Value, Failure> {
        let def = &catalog.resources[index];
        let is_list = value.get("items").is_some_and(Value::is_array);
        let go_type = || {
            let custom = catalog.is_custom(def);
            partial::go_type(&def.group, &def.kind, custom, is_list)
        };
        match (asked, is_list) {
            (media::Partial::Object, false) => Ok(partial::object(value, version)),
            (media::Partial::List, true) => Ok(partial::list(value, version)),
            (media::Partial::Object, true) => Err(Failure::not_acceptable(format!(
                "you requested PartialObjectMetadata, but the requested object is a list ({})",
                go_type()
            ))),
            (media::Partial::List, false) => Err(Failure::not_acceptable(format!(
                "you requested PartialObjectMetadataList, but the requested object is not a list ({})",
                go_type()
            ))),
        }
    }
}
