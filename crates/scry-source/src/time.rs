//! Timestamp parsing for the shapes agents write: RFC 3339 / ISO 8601 strings (with or without
//! offset or fraction), and epoch numbers in seconds, milliseconds, microseconds or nanoseconds.

use scry_model::Timestamp;
use serde_json::Value;

/// Parses an ISO 8601 / RFC 3339 string. A string without an offset is taken as UTC.
pub fn parse_str(s: &str) -> Option<Timestamp> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    if let Ok(t) = s.parse::<Timestamp>() {
        return Some(t);
    }
    if let Ok(dt) = s.parse::<jiff::civil::DateTime>() {
        return dt
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp());
    }
    if let Ok(n) = s.parse::<f64>() {
        return from_epoch_guess(n);
    }
    None
}

/// Epoch seconds (fractional allowed).
pub fn from_secs(secs: f64) -> Option<Timestamp> {
    if !secs.is_finite() {
        return None;
    }
    let whole = secs.floor();
    let nanos = ((secs - whole) * 1e9).round() as i32;
    Timestamp::new(whole as i64, nanos.min(999_999_999)).ok()
}

/// Epoch milliseconds.
pub fn from_millis(ms: i64) -> Option<Timestamp> {
    Timestamp::from_millisecond(ms).ok()
}

/// An epoch number whose unit is guessed from its magnitude (s, ms, µs or ns).
pub fn from_epoch_guess(n: f64) -> Option<Timestamp> {
    let abs = n.abs();
    if abs >= 1e17 {
        Timestamp::from_nanosecond(n as i128).ok()
    } else if abs >= 1e14 {
        Timestamp::from_microsecond(n as i64).ok()
    } else if abs >= 1e11 {
        from_millis(n as i64)
    } else {
        from_secs(n)
    }
}

/// A JSON value that is either a time string or an epoch number.
pub fn from_value(v: &Value) -> Option<Timestamp> {
    match v {
        Value::String(s) => parse_str(s),
        Value::Number(n) => n.as_f64().and_then(from_epoch_guess),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let z = parse_str("2026-11-30T14:52:34.123Z").unwrap();
        assert_eq!(z.as_millisecond(), 1_796_050_354_123);
        assert_eq!(parse_str("2026-11-30T14:52:34.123").unwrap(), z);
        assert_eq!(from_epoch_guess(1_796_050_354_123.0).unwrap(), z);
        assert_eq!(
            from_epoch_guess(1_796_050_354.0).unwrap().as_second(),
            z.as_second()
        );
        assert!(parse_str("yesterday").is_none());
    }
}
