//! `scry-redact`: text redaction and the JSON walker. Checks the contract as it goes: findings
//! sorted, disjoint, non-empty, on char boundaries; a marker in the output when something was
//! found; the redacted JSON value still serializes to valid JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scry_redact::{redact, redact_json};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (out, findings) = redact(&text);
    let mut end = 0;
    for f in &findings {
        assert!(f.range.start >= end, "overlap: {findings:?}");
        assert!(f.range.start < f.range.end);
        assert!(text.is_char_boundary(f.range.start) && text.is_char_boundary(f.range.end));
        end = f.range.end;
    }
    if !findings.is_empty() {
        assert!(out.contains("[redacted:"));
    }
    if let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(data) {
        let _ = redact_json(&mut v);
        let s = v.to_string();
        assert!(serde_json::from_str::<serde_json::Value>(&s).is_ok());
    }
});
