//! What every export format writes alike: the [`Redactor`] that every string of the document
//! passes, and a tool call's one-line summary ([`call_summary`]).

use scry_model::Event;
use serde_json::Value;

/// Replaces secrets in the strings that reach the document (a no-op when off); counts them.
pub struct Redactor {
    on: bool,
    count: std::cell::Cell<usize>,
}

impl Redactor {
    /// A redactor that is on or off.
    pub fn new(on: bool) -> Self {
        Redactor {
            on,
            count: std::cell::Cell::new(0),
        }
    }

    /// `text`, redacted when on.
    pub fn s(&self, text: &str) -> String {
        if !self.on {
            return text.to_string();
        }
        let (out, findings) = scry_redact::redact(text);
        self.count.set(self.count.get() + findings.len());
        out.into_owned()
    }

    /// `v`, redacted when on: every string at every depth, secret-named fields whole, by the
    /// same rule as `scry serve` (identifier-shaped uris, ids and paths stay usable).
    pub fn json(&self, v: &Value) -> Value {
        let mut v = v.clone();
        if self.on {
            let n = crate::http::redact(&mut v);
            self.count.set(self.count.get() + n);
        }
        v
    }

    /// How many secrets were replaced so far.
    pub fn count(&self) -> usize {
        self.count.get()
    }

    /// Whether redaction is on.
    pub fn on(&self) -> bool {
        self.on
    }
}

/// A short one-line description of a tool call: the command, the path, or the first argument.
pub fn call_summary(e: &Event) -> String {
    let args = e.args.as_ref();
    let pick = [
        "command",
        "cmd",
        "file_path",
        "path",
        "pattern",
        "query",
        "url",
        "description",
    ]
    .iter()
    .find_map(|k| args.and_then(|a| a.get(k)));
    let text = match pick {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| x.to_string())
            })
            .collect::<Vec<_>>()
            .join(" "),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let line = text.lines().next().unwrap_or("").trim();
    let mut short: String = line.chars().take(100).collect();
    if line.chars().count() > 100 || text.lines().nth(1).is_some() {
        short.push('…');
    }
    short
}
