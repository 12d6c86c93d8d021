//! The answer of a verb in the encoding the client asked for: JSON, a Table (the API
//! server's printers' columns) or protobuf.

use http::{Response, StatusCode};
use serde_json::{Value, json};

use crate::objects::table;
use crate::verbs::Shared;
use crate::wire::body::Body;
use crate::wire::encoding;
use crate::wire::media;
use crate::wire::query::Query;
use crate::wire::response::json_response;

impl Shared {
    /// Encodes an answer (an object of the resource's kind, a list of them, or a `Status`)
    /// as the client asked: JSON, or a Table.
    pub(crate) fn respond(
        &self,
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
                let catalog = self.catalog();
                let def = &catalog.resources[index];
                let include = table::Include::of(query.get("includeObject"));
                let table = match value.get("items").and_then(Value::as_array) {
                    Some(items) => {
                        let items: Vec<&Value> = items.iter().collect();
                        table::table(
                            &catalog,
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
                        table::table(&catalog, def, version, &[&value], include, metadata, true)
                    }
                };
                json_response(code, &table)
            }
            media::Answer::Protobuf => encoding::protobuf_response(code, &value),
            _ => json_response(code, &value),
        }
    }
}
