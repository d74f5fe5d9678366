//! The decoded value tree: what a LangGraph msgpack blob (or a metadata JSON document) holds.
//!
//! Maps keep their original key order (Python dicts are ordered, and the inspector's output and
//! its truncation of rendered tool arguments depend on that order), which `serde_json::Map`
//! without `preserve_order` cannot do. [`Value::to_json`] converts to `serde_json::Value` for
//! callers that do not care about order; [`crate::pyjson`] renders exactly like Python's
//! `json.dumps(..., ensure_ascii=False)`.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// One decoded value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `None` / msgpack nil / JSON null.
    Null,
    /// A boolean.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer above `i64::MAX`.
    UInt(u64),
    /// A float.
    Float(f64),
    /// A string (invalid UTF-8 in the source is decoded lossily, with a warning).
    Str(String),
    /// Raw bytes (msgpack bin).
    Bytes(Vec<u8>),
    /// A list (also Python tuples, sets, deques).
    Array(Vec<Value>),
    /// A map, in source order. Non-string keys are rendered to strings like Python's `json`.
    Map(Vec<(String, Value)>),
    /// An object rebuilt from one of LangGraph's constructor extension types (codes 0–5).
    Object(Box<Object>),
    /// A delta-channel snapshot (LangGraph extension type 7): the full channel value.
    DeltaSnapshot(Box<Value>),
    /// Something this crate does not decode (unknown extension, `pickle` blob, numpy array):
    /// kept as a label and a byte length, never executed.
    Opaque {
        /// What it is, e.g. `msgpack ext 42` or `pickle`.
        label: String,
        /// Size of the undecoded payload in bytes.
        len: usize,
    },
}

/// How an [`Object`] was constructed (the LangGraph extension code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Constructor {
    /// Ext 0: `cls(arg)`.
    SingleArg,
    /// Ext 1: `cls(*args)`.
    PositionalArgs,
    /// Ext 2: `cls(**kwargs)`.
    KeywordArgs,
    /// Ext 3: `cls.method(arg)`.
    Method,
    /// Ext 4: a pydantic v1 model.
    PydanticV1,
    /// Ext 5: a pydantic v2 model.
    PydanticV2,
}

/// An instance of a Python class as LangGraph serialized it.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    /// Python module, e.g. `langchain_core.messages.ai`.
    pub module: String,
    /// Class name, e.g. `AIMessage`.
    pub class: String,
    /// Which constructor form was used.
    pub constructor: Constructor,
    /// Positional arguments (ext 0, 1, 3).
    pub args: Vec<Value>,
    /// Keyword arguments / model fields (ext 2, 4, 5), in order.
    pub kwargs: Vec<(String, Value)>,
    /// The method name for ext 3 (and the validation method recorded for pydantic models).
    pub method: Option<String>,
}

impl Object {
    /// A keyword argument by name.
    pub fn kwarg(&self, key: &str) -> Option<&Value> {
        self.kwargs.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

impl Value {
    /// The string inside, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The elements, if this is a list.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The entries, if this is a map.
    pub fn as_map(&self) -> Option<&[(String, Value)]> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The object, if this is a reconstructed class instance.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// An integer value (`Int`, `UInt` that fits, or a float without fraction).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            Value::UInt(u) => i64::try_from(*u).ok(),
            Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Some(*f as i64),
            _ => None,
        }
    }

    /// Looks a key up in a map, or a keyword argument in an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(m) => m.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            Value::Object(o) => o.kwarg(key),
            _ => None,
        }
    }

    /// True for `Null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Python truthiness (empty string / list / map, zero, `None`, `False` are false).
    pub fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::UInt(u) => *u != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::Bytes(b) => !b.is_empty(),
            Value::Array(a) => !a.is_empty(),
            Value::Map(m) => !m.is_empty(),
            Value::Object(_) | Value::DeltaSnapshot(_) | Value::Opaque { .. } => true,
        }
    }

    /// Converts to `serde_json::Value` (key order is lost). Objects become
    /// `{"_module", "_class", ...kwargs}` (positional arguments under `"args"`), bytes a lossy
    /// string, opaque values `{"_opaque": label, "len": n}`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::UInt(u) => J::from(*u),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.clone()),
            Value::Bytes(b) => J::String(String::from_utf8_lossy(b).into_owned()),
            Value::Array(a) => J::Array(a.iter().map(Value::to_json).collect()),
            Value::Map(m) => J::Object(m.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()),
            Value::Object(o) => {
                let mut map = serde_json::Map::new();
                map.insert("_module".into(), J::String(o.module.clone()));
                map.insert("_class".into(), J::String(o.class.clone()));
                if !o.args.is_empty() {
                    map.insert(
                        "args".into(),
                        J::Array(o.args.iter().map(Value::to_json).collect()),
                    );
                }
                for (k, v) in &o.kwargs {
                    map.insert(k.clone(), v.to_json());
                }
                J::Object(map)
            }
            Value::DeltaSnapshot(v) => v.to_json(),
            Value::Opaque { label, len } => serde_json::json!({"_opaque": label, "len": len}),
        }
    }
}

/// Parses a JSON document into a [`Value`], keeping key order (serde_json's own recursion
/// limit bounds nesting).
pub fn parse_json(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str(text)
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or(Value::UInt(v), Value::Int))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out: Vec<(String, Value)> = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Value>()? {
            // Python's json keeps the first position and the last value of a duplicate key.
            if let Some(slot) = out.iter_mut().find(|(key, _)| *key == k) {
                slot.1 = v;
            } else {
                out.push((k, v));
            }
        }
        Ok(Value::Map(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_keeps_key_order_and_last_duplicate() {
        let v = parse_json(r#"{"b": 1, "a": [true, null, 1.5], "b": 2}"#).unwrap();
        let m = v.as_map().unwrap();
        assert_eq!(m[0].0, "b");
        assert_eq!(m[0].1, Value::Int(2));
        assert_eq!(m[1].0, "a");
    }
}
