//! The parameters of a query request, read from its type (issue 18): each operation of
//! `scry_query` takes one request type, and its JSON Schema (`schemars`) is where the HTTP
//! query parameters, the OpenAPI parameter list and the MCP input schema come from — the CLI
//! flags come from the same type's `clap::Args`. A parameter is defined once, beside the field
//! it sets.
//!
//! [`request`] turns named values (an HTTP query string's text, an MCP call's JSON) into the
//! request: each value is checked against its parameter's type first, so a bad one is one line
//! naming the parameter, then the request is deserialized (serde) from them.
//!
//! This module imports no command: the HTTP API and the MCP server both use it.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

/// One parameter of a request type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// Its name (the field's, as serialized; the CLI flag is the same with `-` for `_`).
    pub name: String,
    /// `string`, `integer` or `boolean`.
    pub kind: &'static str,
    /// What it does (the field's doc comment, which is also its CLI help), on one line.
    pub doc: String,
    /// The accepted values of an enumeration (empty: any value of `kind`).
    pub values: Vec<String>,
    /// Whether the request cannot be made without it.
    pub required: bool,
}

/// The parameters of `T`, in field order.
pub fn params<T: JsonSchema>() -> Vec<Param> {
    let schema = SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema["properties"].as_object() else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, p)| Param {
            name: name.clone(),
            kind: kind_of(optional(p)),
            // A doc comment's lines, as the CLI's help shows them: one line.
            doc: p["description"]
                .as_str()
                .unwrap_or_default()
                .lines()
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" "),
            values: values_of(optional(p)),
            required: required.contains(&name.as_str()),
        })
        .collect()
}

/// The schema of an optional property's value: `T` of `anyOf: [T, null]` (an `Option` of an
/// enumeration), else the property itself.
fn optional(p: &Value) -> &Value {
    match p["anyOf"].as_array().map(Vec::as_slice) {
        Some([a, b]) if b["type"] == "null" => a,
        Some([a, b]) if a["type"] == "null" => b,
        _ => p,
    }
}

/// `string`, `integer` or `boolean` of a property (`["integer", "null"]` is an integer; an
/// enumeration is a string).
fn kind_of(p: &Value) -> &'static str {
    let named = |t: &str| match t {
        "integer" | "number" => Some("integer"),
        "boolean" => Some("boolean"),
        "string" => Some("string"),
        _ => None,
    };
    let found = match &p["type"] {
        Value::String(t) => named(t),
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).find_map(named),
        _ => None,
    };
    found.unwrap_or("string")
}

/// The values of an enumeration property (`enum`, or `oneOf` of `const`s when the values are
/// documented one by one).
fn values_of(p: &Value) -> Vec<String> {
    if let Some(e) = p["enum"].as_array() {
        return e
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect();
    }
    p["oneOf"]
        .as_array()
        .map(|alts| {
            alts.iter()
                .filter_map(|a| a["const"].as_str().or_else(|| a["enum"][0].as_str()))
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

impl Param {
    /// Its JSON Schema as an MCP input property or an OpenAPI parameter schema: the type, the
    /// accepted values, and (`with_doc`) the description.
    pub fn schema(&self, with_doc: bool) -> Value {
        let mut s = Map::new();
        s.insert("type".into(), json!(self.kind));
        if !self.values.is_empty() {
            s.insert("enum".into(), json!(self.values));
        }
        if self.kind == "integer" {
            s.insert("minimum".into(), json!(0));
        }
        if with_doc && !self.doc.is_empty() {
            s.insert("description".into(), json!(self.doc));
        }
        Value::Object(s)
    }

    /// `value` as this parameter's type. [`Given::Text`] (an HTTP query string) is read as the
    /// type says (`true` / `1` / `yes` / empty, `false` / `0` / `no` for a flag); [`Given::Json`]
    /// (an MCP call) must be JSON of the type already (a number is taken as text).
    /// `Ok(None)` for an empty value or `null` (absent).
    pub fn coerce(&self, value: &Value, given: Given) -> Result<Option<Value>, String> {
        let shown = |v: &Value| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        if matches!(value, Value::Null) {
            return Ok(None);
        }
        if matches!(value, Value::String(s) if s.is_empty()) && self.kind != "boolean" {
            return Ok(None);
        }
        let v = match (self.kind, value) {
            ("boolean", Value::Bool(b)) => json!(b),
            ("boolean", Value::String(s)) if given == Given::Text => match s.as_str() {
                "" | "true" | "1" | "yes" => json!(true),
                "false" | "0" | "no" => json!(false),
                _ => return Err(self.must("be true or false", &shown(value))),
            },
            ("integer", Value::Number(n)) if n.as_u64().is_some() => value.clone(),
            ("integer", Value::String(s)) if given == Given::Text => match s.parse::<u64>() {
                Ok(n) => json!(n),
                Err(_) => return Err(self.must("be a number", s)),
            },
            ("string", Value::String(_)) => value.clone(),
            ("string", Value::Number(n)) => json!(n.to_string()),
            ("boolean", _) => return Err(self.must("be true or false", &shown(value))),
            ("integer", _) => return Err(self.must("be a number", &shown(value))),
            _ => return Err(self.must("be a string", &shown(value))),
        };
        if let Some(s) = v.as_str() {
            if !self.values.is_empty() && !self.values.iter().any(|a| a == s) {
                let accepted = format!("be one of {}", self.values.join(", "));
                return Err(self.must(&accepted, s));
            }
        }
        Ok(Some(v))
    }

    fn must(&self, what: &str, value: &str) -> String {
        format!("parameter '{}' must {what}, not '{value}'", self.name)
    }
}

/// Where the values of a request come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Given {
    /// Text to read as each parameter's type (an HTTP query string).
    Text,
    /// JSON values of each parameter's type (MCP arguments).
    Json,
}

/// Why [`request`] made no request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// A name that is no parameter of the request.
    Unknown(String),
    /// A missing required parameter, or values the request refuses together: one line naming
    /// the parameter.
    Bad(String),
    /// A value that is not of its parameter's type (or not one of its values): the parameter's
    /// name and one line naming it.
    Value(String, String),
}

impl Refused {
    /// The one line of the refusal (`unknown` words an unknown name).
    pub fn message(self, unknown: impl Fn(&str) -> String) -> String {
        match self {
            Refused::Unknown(k) => unknown(&k),
            Refused::Bad(m) | Refused::Value(_, m) => m,
        }
    }
}

/// The request `T` from named values (`values`, given as `given` says): each checked against
/// its parameter ([`Param::coerce`]), then deserialized. A name given twice keeps its last value.
pub fn request<T: JsonSchema + DeserializeOwned>(
    values: impl IntoIterator<Item = (String, Value)>,
    given: Given,
) -> Result<T, Refused> {
    let params = params::<T>();
    let mut fields = Map::new();
    for (name, value) in values {
        let p = params
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| Refused::Unknown(name.clone()))?;
        match p
            .coerce(&value, given)
            .map_err(|m| Refused::Value(name.clone(), m))?
        {
            Some(v) => fields.insert(name, v),
            None => fields.remove(&name),
        };
    }
    if let Some(p) = params
        .iter()
        .find(|p| p.required && !fields.contains_key(&p.name))
    {
        return Err(Refused::Bad(format!("parameter '{}' is required", p.name)));
    }
    serde_json::from_value(Value::Object(fields)).map_err(|e| Refused::Bad(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use scry_query::{CommandsRequest, FilesRequest, GroupFilter};

    fn text(pairs: &[(&str, &str)]) -> Vec<(String, Value)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect()
    }

    #[test]
    fn parameters_come_from_the_type() {
        let p = params::<FilesRequest>();
        let by = |name: &str| p.iter().find(|p| p.name == name).cloned().unwrap();
        assert_eq!(p.len(), 3);
        assert!(by("id").required && !by("group").required && !by("revision").required);
        assert_eq!(by("revision").kind, "integer");
        assert!(by("revision")
            .doc
            .starts_with("Read earlier revision N of the session"));
        assert_eq!(by("group").values, ["project", "runtime", "log", "all"]);
        assert_eq!(
            by("group").doc,
            "Which files: project, runtime, log, or all"
        );
        let mut kinds: Vec<(String, &str)> = params::<CommandsRequest>()
            .into_iter()
            .map(|p| (p.name, p.kind))
            .collect();
        kinds.sort();
        let want = [
            ("failed", "boolean"),
            ("host", "string"),
            ("id", "string"),
            ("revision", "integer"),
            ("turn", "integer"),
        ];
        assert_eq!(kinds, want.map(|(n, k)| (n.to_string(), k)));
    }

    #[test]
    fn text_values_become_the_request() {
        let r: CommandsRequest = request(
            text(&[("id", "s1"), ("failed", ""), ("turn", "3")]),
            Given::Text,
        )
        .unwrap();
        assert_eq!(
            r,
            CommandsRequest {
                id: "s1".into(),
                failed: true,
                turn: Some(3),
                host: None,
                revision: 0,
            }
        );
        let f: FilesRequest =
            request(text(&[("id", "s1"), ("group", "log")]), Given::Text).unwrap();
        assert_eq!(f.group, GroupFilter::Log);
        let f: FilesRequest = request(vec![("id".into(), json!("s1"))], Given::Json).unwrap();
        assert_eq!(f.group, GroupFilter::All);
    }

    #[test]
    fn a_bad_value_names_its_parameter() {
        let bad =
            |pairs: &[(&str, &str)]| match request::<CommandsRequest>(text(pairs), Given::Text) {
                Err(Refused::Value(_, m) | Refused::Bad(m)) => m,
                other => panic!("{other:?}"),
            };
        assert_eq!(
            bad(&[("id", "s"), ("failed", "maybe")]),
            "parameter 'failed' must be true or false, not 'maybe'"
        );
        assert_eq!(
            bad(&[("id", "s"), ("turn", "x")]),
            "parameter 'turn' must be a number, not 'x'"
        );
        assert!(bad(&[("id", "s"), ("turn", "99999999999")]).contains("99999999999"));
        assert_eq!(bad(&[("failed", "1")]), "parameter 'id' is required");
        match request::<FilesRequest>(text(&[("id", "s"), ("group", "docs")]), Given::Text) {
            Err(Refused::Value(name, m)) => assert_eq!(
                (name.as_str(), m.as_str()),
                (
                    "group",
                    "parameter 'group' must be one of project, runtime, log, all, not 'docs'"
                )
            ),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            request::<FilesRequest>(text(&[("id", "s"), ("bogus", "1")]), Given::Text),
            Err(Refused::Unknown("bogus".into()))
        );
        // JSON of another type (an MCP argument): text is not read as a flag or a number.
        let json_bad = |name: &str, v: Value| {
            let values = vec![("id".to_string(), json!("s")), (name.to_string(), v)];
            match request::<CommandsRequest>(values, Given::Json) {
                Err(Refused::Value(_, m)) => m,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(
            json_bad("failed", json!(3)),
            "parameter 'failed' must be true or false, not '3'"
        );
        assert_eq!(
            json_bad("failed", json!("yes")),
            "parameter 'failed' must be true or false, not 'yes'"
        );
        assert_eq!(
            json_bad("turn", json!("3")),
            "parameter 'turn' must be a number, not '3'"
        );
    }
}
