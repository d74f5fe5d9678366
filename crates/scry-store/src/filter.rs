//! Session-level filters (SPEC S-Q4): AND across fields, OR within one field's values, ranges
//! inclusive. The same filter runs as SQL over the index ([`SessionFilter::to_sql`]) and in
//! memory over parsed headers ([`SessionFilter::matches`], for `--no-index`); both give the same
//! answer.

use rusqlite::types::Value;
use scry_model::{Header, ProviderId, SessionKind, Timestamp};
use serde::{Deserialize, Serialize};

use crate::codec::time_to_i;
use crate::error::{Result, StoreError};

/// An inclusive time range; an open end is `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeRange {
    /// Earliest time (inclusive).
    pub from: Option<Timestamp>,
    /// Latest time (inclusive).
    pub to: Option<Timestamp>,
}

impl TimeRange {
    /// From `t` on.
    pub fn since(t: Timestamp) -> Self {
        TimeRange {
            from: Some(t),
            to: None,
        }
    }

    fn is_open(&self) -> bool {
        self.from.is_none() && self.to.is_none()
    }

    fn contains(&self, t: Option<Timestamp>) -> bool {
        if self.is_open() {
            return true;
        }
        let Some(t) = t else { return false };
        self.from.is_none_or(|f| t >= f) && self.to.is_none_or(|e| t <= e)
    }
}

/// Which sessions to consider. The default matches every session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionFilter {
    /// Only these sessions (`provider:id` uris); empty = any.
    pub uris: Vec<String>,
    /// Only these providers; empty = any.
    pub providers: Vec<ProviderId>,
    /// Only sessions whose cwd is this directory or below it (`None` or `/` = everywhere).
    /// Sessions without a cwd are outside every scope but the global one.
    pub cwd_under: Option<String>,
    /// Created within this range (sessions without a time are excluded by a bounded range).
    pub created: TimeRange,
    /// Last updated within this range (`--since` sets `updated.from`).
    pub updated: TimeRange,
    /// Only these session kinds; empty = any.
    pub kinds: Vec<SessionKind>,
    /// Only children of this parent (native id or `provider:id`).
    pub parent: Option<String>,
    /// Only sessions whose source is present (`Some(true)`) or gone (`Some(false)`).
    pub live: Option<bool>,
}

impl SessionFilter {
    /// Checks the values: ranges must not be inverted, strings not empty.
    pub fn validate(&self) -> Result<()> {
        for (name, r) in [("created", &self.created), ("updated", &self.updated)] {
            if let (Some(f), Some(t)) = (r.from, r.to) {
                if f > t {
                    return Err(StoreError::InvalidFilter(format!(
                        "{name} range starts after it ends ({f} > {t})"
                    )));
                }
            }
        }
        if self.cwd_under.as_deref().is_some_and(str::is_empty) {
            return Err(StoreError::InvalidFilter("empty cwd scope".into()));
        }
        if self.parent.as_deref().is_some_and(str::is_empty) {
            return Err(StoreError::InvalidFilter("empty parent id".into()));
        }
        if self.uris.iter().any(String::is_empty) {
            return Err(StoreError::InvalidFilter("empty session id".into()));
        }
        Ok(())
    }

    /// The scope directory without a trailing slash, or `None` for everywhere.
    fn scope(&self) -> Option<&str> {
        let s = self.cwd_under.as_deref()?;
        let t = s.trim_end_matches('/');
        (!t.is_empty()).then_some(t)
    }

    /// Whether the filter restricts anything.
    pub fn is_empty(&self) -> bool {
        self.uris.is_empty()
            && self.providers.is_empty()
            && self.scope().is_none()
            && self.created.is_open()
            && self.updated.is_open()
            && self.kinds.is_empty()
            && self.parent.is_none()
            && self.live.is_none()
    }

    /// Whether `header` passes (`live` is read from the header).
    pub fn matches(&self, h: &Header) -> bool {
        if !self.uris.is_empty() && !self.uris.contains(&h.uri) {
            return false;
        }
        if !self.providers.is_empty() && !self.providers.contains(&h.provider) {
            return false;
        }
        if let Some(scope) = self.scope() {
            let Some(cwd) = h.cwd.as_deref() else {
                return false;
            };
            let under = cwd == scope
                || (cwd.len() > scope.len()
                    && cwd.starts_with(scope)
                    && cwd.as_bytes().get(scope.len()) == Some(&b'/'));
            if !under {
                return false;
            }
        }
        if !self.created.contains(h.created) || !self.updated.contains(h.updated) {
            return false;
        }
        if !self.kinds.is_empty() && !self.kinds.contains(&h.kind) {
            return false;
        }
        if let Some(p) = &self.parent {
            let full = h
                .parent
                .as_ref()
                .map(|id| format!("{}:{}", h.provider.as_str(), id));
            if h.parent.as_deref() != Some(p.as_str()) && full.as_deref() != Some(p.as_str()) {
                return false;
            }
        }
        if self.live.is_some_and(|l| l != h.live) {
            return false;
        }
        true
    }

    /// A SQL condition over the `sessions` table (alias-free column names) and its parameters.
    pub(crate) fn to_sql(&self) -> (String, Vec<Value>) {
        let mut conds: Vec<String> = Vec::new();
        let mut params: Vec<Value> = Vec::new();
        let placeholders = |values: Vec<Value>, params: &mut Vec<Value>| -> String {
            let mut ph = Vec::new();
            for v in values {
                params.push(v);
                ph.push(format!("?{}", params.len()));
            }
            ph.join(", ")
        };
        if !self.uris.is_empty() {
            let ph = placeholders(
                self.uris.iter().map(|u| Value::Text(u.clone())).collect(),
                &mut params,
            );
            conds.push(format!("uri IN ({ph})"));
        }
        if !self.providers.is_empty() {
            let ph = placeholders(
                self.providers
                    .iter()
                    .map(|p| Value::Text(p.as_str().to_string()))
                    .collect(),
                &mut params,
            );
            conds.push(format!("provider IN ({ph})"));
        }
        if let Some(scope) = self.scope() {
            // `cwd` under `scope/`: every string with that prefix sorts in [scope/, scope0).
            let ph = placeholders(
                vec![
                    Value::Text(scope.to_string()),
                    Value::Text(format!("{scope}/")),
                    Value::Text(format!("{scope}0")),
                ],
                &mut params,
            );
            let p: Vec<&str> = ph.split(", ").collect();
            if let [a, b, c] = p.as_slice() {
                conds.push(format!("(cwd = {a} OR (cwd >= {b} AND cwd < {c}))"));
            }
        }
        for (col, r) in [("created", &self.created), ("updated", &self.updated)] {
            if let Some(f) = r.from {
                let ph = placeholders(vec![Value::Integer(time_to_i(f))], &mut params);
                conds.push(format!("{col} >= {ph}"));
            }
            if let Some(t) = r.to {
                let ph = placeholders(vec![Value::Integer(time_to_i(t))], &mut params);
                conds.push(format!("{col} <= {ph}"));
            }
        }
        if !self.kinds.is_empty() {
            let ph = placeholders(
                self.kinds
                    .iter()
                    .map(|k| Value::Text(k.as_str().to_string()))
                    .collect(),
                &mut params,
            );
            conds.push(format!("kind IN ({ph})"));
        }
        if let Some(p) = &self.parent {
            let ph = placeholders(vec![Value::Text(p.clone())], &mut params);
            conds.push(format!(
                "(parent = {ph} OR (provider || ':' || parent) = {ph})"
            ));
        }
        if let Some(l) = self.live {
            let ph = placeholders(vec![Value::Integer(i64::from(l))], &mut params);
            conds.push(format!("live = {ph}"));
        }
        if conds.is_empty() {
            ("1".to_string(), params)
        } else {
            (conds.join(" AND "), params)
        }
    }
}
