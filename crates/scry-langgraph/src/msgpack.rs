//! Decoding LangGraph's serialized values (`JsonPlusSerializer`, `type` column + blob) into
//! [`Value`] without executing anything.
//!
//! msgpack is read with `rmpv` (which never preallocates from a declared length and limits
//! recursion), with one depth budget shared across nested extension payloads, so a length bomb
//! (a declared length far beyond the data) or a nesting bomb fails with an error instead of
//! allocating gigabytes or overflowing the stack. LangGraph's extension types (checked against
//! langgraph-checkpoint 4.3.2): 0 `cls(arg)`, 1 `cls(*args)`, 2 `cls(**kwargs)`,
//! 3 `cls.method(arg)`, 4 pydantic v1, 5 pydantic v2, 6 numpy array (kept opaque),
//! 7 delta-channel snapshot. Any other extension, and any `pickle` blob, becomes a labelled
//! [`Value::Opaque`] plus a warning.

use crate::value::{Constructor, Object, Value};

/// Maximum nesting depth of one blob, extension payloads included.
pub const MAX_DEPTH: usize = 256;

/// A blob that could not be decoded at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DecodeError {}

/// A decoded blob and what was odd about it (opaque parts, lossy strings).
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The value.
    pub value: Value,
    /// One line per oddity; empty for clean data.
    pub warnings: Vec<String>,
}

/// Decodes a `(type, blob)` pair as stored in the `checkpoints.type/checkpoint` and
/// `writes.type/value` columns. Types: `msgpack`, `json`, `null`, `empty`, `bytes`,
/// `bytearray`, `pickle` (never unpickled: opaque + warning); anything else is opaque + warning.
pub fn decode_typed(type_name: &str, blob: &[u8]) -> Result<Decoded, DecodeError> {
    let mut warnings = Vec::new();
    let value = match type_name {
        "msgpack" => decode_msgpack(blob, MAX_DEPTH, &mut warnings)?,
        "null" | "empty" => Value::Null,
        "bytes" | "bytearray" => Value::Bytes(blob.to_vec()),
        "json" => {
            let text = std::str::from_utf8(blob)
                .map_err(|e| DecodeError(format!("json blob is not UTF-8: {e}")))?;
            crate::value::parse_json(text)
                .map_err(|e| DecodeError(format!("invalid json blob: {e}")))?
        }
        "pickle" => {
            warnings.push(format!(
                "a pickle blob ({} bytes) was not decoded (pickle is never executed)",
                blob.len()
            ));
            Value::Opaque {
                label: "pickle".into(),
                len: blob.len(),
            }
        }
        other => {
            warnings.push(format!(
                "unknown serialization type {other:?} ({} bytes) kept opaque",
                blob.len()
            ));
            Value::Opaque {
                label: format!("type {other}"),
                len: blob.len(),
            }
        }
    };
    Ok(Decoded { value, warnings })
}

/// Decodes one msgpack blob with LangGraph's extension types.
pub fn decode(blob: &[u8]) -> Result<Decoded, DecodeError> {
    decode_typed("msgpack", blob)
}

fn decode_msgpack(
    blob: &[u8],
    depth: usize,
    warnings: &mut Vec<String>,
) -> Result<Value, DecodeError> {
    let mut cursor: &[u8] = blob;
    let raw = rmpv::decode::read_value_with_max_depth(&mut cursor, depth).map_err(|e| match e {
        rmpv::decode::Error::DepthLimitExceeded => {
            DecodeError(format!("msgpack nesting deeper than {MAX_DEPTH} levels"))
        }
        other => DecodeError(format!(
            "truncated msgpack or a declared length beyond the data ({} bytes): {other}",
            blob.len()
        )),
    })?;
    if !cursor.is_empty() {
        warnings.push(format!(
            "{} trailing bytes after the msgpack value ignored",
            cursor.len()
        ));
    }
    convert(raw, depth, warnings)
}

fn key_string(key: &rmpv::Value) -> String {
    match key {
        rmpv::Value::String(s) => String::from_utf8_lossy(s.as_bytes()).into_owned(),
        rmpv::Value::Nil => "null".into(),
        rmpv::Value::Boolean(b) => b.to_string(),
        rmpv::Value::Integer(i) => i.to_string(),
        rmpv::Value::F32(f) => crate::pyjson::float_repr(f64::from(*f)),
        rmpv::Value::F64(f) => crate::pyjson::float_repr(*f),
        other => other.to_string(),
    }
}

fn convert(
    raw: rmpv::Value,
    depth: usize,
    warnings: &mut Vec<String>,
) -> Result<Value, DecodeError> {
    let depth = depth
        .checked_sub(1)
        .ok_or_else(|| DecodeError(format!("msgpack nesting deeper than {MAX_DEPTH} levels")))?;
    Ok(match raw {
        rmpv::Value::Nil => Value::Null,
        rmpv::Value::Boolean(b) => Value::Bool(b),
        rmpv::Value::Integer(i) => match (i.as_i64(), i.as_u64()) {
            (Some(v), _) => Value::Int(v),
            (None, Some(v)) => Value::UInt(v),
            _ => Value::Null,
        },
        rmpv::Value::F32(f) => Value::Float(f64::from(f)),
        rmpv::Value::F64(f) => Value::Float(f),
        rmpv::Value::String(s) => match s.into_str() {
            Some(s) => Value::Str(s),
            None => {
                warnings.push("a msgpack string was not valid UTF-8 (decoded lossily)".into());
                Value::Str(String::new())
            }
        },
        rmpv::Value::Binary(b) => Value::Bytes(b),
        rmpv::Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|v| convert(v, depth, warnings))
                .collect::<Result<_, _>>()?,
        ),
        rmpv::Value::Map(entries) => {
            let mut out = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                out.push((key_string(&k), convert(v, depth, warnings)?));
            }
            Value::Map(out)
        }
        rmpv::Value::Ext(code, payload) => ext(code, &payload, depth, warnings)?,
    })
}

fn ext(
    code: i8,
    payload: &[u8],
    depth: usize,
    warnings: &mut Vec<String>,
) -> Result<Value, DecodeError> {
    let constructor = match code {
        0 => Constructor::SingleArg,
        1 => Constructor::PositionalArgs,
        2 => Constructor::KeywordArgs,
        3 => Constructor::Method,
        4 => Constructor::PydanticV1,
        5 => Constructor::PydanticV2,
        6 => {
            warnings.push(format!(
                "a numpy array ({} bytes) was kept opaque",
                payload.len()
            ));
            return Ok(Value::Opaque {
                label: "numpy array".into(),
                len: payload.len(),
            });
        }
        7 => {
            let inner = decode_msgpack(payload, depth, warnings)?;
            return Ok(Value::DeltaSnapshot(Box::new(inner)));
        }
        other => {
            warnings.push(format!(
                "unknown msgpack extension type {other} ({} bytes) kept opaque",
                payload.len()
            ));
            return Ok(Value::Opaque {
                label: format!("msgpack ext {other}"),
                len: payload.len(),
            });
        }
    };
    let inner = decode_msgpack(payload, depth, warnings)?;
    let Value::Array(mut parts) = inner else {
        return Err(DecodeError(format!(
            "msgpack extension {code} payload is not a tuple"
        )));
    };
    if parts.len() < 2 {
        return Err(DecodeError(format!(
            "msgpack extension {code} payload is too short"
        )));
    }
    let rest = parts.split_off(2);
    let mut head = parts.into_iter();
    let module = head
        .next()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let class = head
        .next()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let mut rest = rest.into_iter();
    let first = rest.next().unwrap_or(Value::Null);
    let method = rest.next().and_then(|v| v.as_str().map(str::to_string));
    let mut obj = Object {
        module,
        class,
        constructor,
        args: Vec::new(),
        kwargs: Vec::new(),
        method,
    };
    match constructor {
        Constructor::SingleArg | Constructor::Method => obj.args.push(first),
        Constructor::PositionalArgs => match first {
            Value::Array(a) => obj.args = a,
            other => obj.args.push(other),
        },
        Constructor::KeywordArgs | Constructor::PydanticV1 | Constructor::PydanticV2 => match first
        {
            Value::Map(m) => obj.kwargs = m,
            Value::Null => {}
            other => obj.args.push(other),
        },
    }
    Ok(normalize(obj))
}

/// Plain values for the common standard-library types; everything else stays an object.
fn normalize(obj: Object) -> Value {
    let single = || obj.args.first().cloned().unwrap_or(Value::Null);
    match (obj.module.as_str(), obj.class.as_str(), obj.constructor) {
        ("uuid", "UUID", Constructor::SingleArg) => match single() {
            Value::Str(hex) if hex.len() == 32 && hex.is_ascii() => Value::Str(format!(
                "{}-{}-{}-{}-{}",
                &hex[0..8],
                &hex[8..12],
                &hex[12..16],
                &hex[16..20],
                &hex[20..32]
            )),
            Value::Str(s) => Value::Str(s),
            _ => Value::Object(Box::new(obj)),
        },
        ("decimal", "Decimal", Constructor::SingleArg) => single(),
        ("datetime", "datetime" | "date" | "time", Constructor::Method)
            if obj.method.as_deref() == Some("fromisoformat") =>
        {
            single()
        }
        ("builtins", "set" | "frozenset" | "tuple", _) | ("collections", "deque", _) => {
            match obj.args.into_iter().next() {
                Some(Value::Array(a)) if obj.constructor == Constructor::SingleArg => {
                    Value::Array(a)
                }
                Some(first) if obj.constructor == Constructor::SingleArg => {
                    Value::Array(vec![first])
                }
                Some(first) => Value::Array(vec![first]),
                None => Value::Array(Vec::new()),
            }
        }
        _ => Value::Object(Box::new(obj)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ext_blob(code: i8, inner: &rmpv::Value) -> Vec<u8> {
        let mut payload = Vec::new();
        rmpv::encode::write_value(&mut payload, inner).unwrap();
        let mut out = Vec::new();
        rmpv::encode::write_value(&mut out, &rmpv::Value::Ext(code, payload)).unwrap();
        out
    }

    #[test]
    fn kwargs_object_and_unknown_ext() {
        let inner = rmpv::Value::Array(vec![
            "langgraph.types".into(),
            "Overwrite".into(),
            rmpv::Value::Map(vec![("value".into(), rmpv::Value::Array(vec![]))]),
        ]);
        let d = decode(&ext_blob(2, &inner)).unwrap();
        let o = d.value.as_object().unwrap();
        assert_eq!(
            (o.module.as_str(), o.class.as_str()),
            ("langgraph.types", "Overwrite")
        );
        assert!(d.warnings.is_empty());
        let d = decode(&ext_blob(42, &rmpv::Value::Nil)).unwrap();
        assert!(matches!(d.value, Value::Opaque { .. }));
        assert_eq!(d.warnings.len(), 1);
    }

    #[test]
    fn bombs_fail_cleanly() {
        // array32 declaring 4 billion elements, then nothing.
        assert!(decode(&[0xdd, 0xff, 0xff, 0xff, 0xff]).is_err());
        // str32 declaring 4 GiB.
        assert!(decode(&[0xdb, 0xff, 0xff, 0xff, 0xff, b'a']).is_err());
        // one million nested fixarrays.
        assert!(decode(&vec![0x91; 1_000_000]).is_err());
    }
}
