//! The event-level filters of S-Q4, parsed from the CLI / HTTP values with errors that name
//! the offending value: seq ranges (`10-40`, `7`, `30-`, comma-separated), a time range
//! (`--since` / `--until`: a duration ago like `24h`, an ISO date or time), kinds and surfaces
//! (comma lists), and a text clause (literal, Unicode case-insensitive, whitespace-flexible).
//!
//! AND across filters, OR within one clause's values, ranges inclusive. Events without a time
//! never match a time range (no evidence, no claim). Bad values are `INVALID_FILTER`; an unknown
//! surface name is `INVALID_SURFACE`.

use regex::{Regex, RegexBuilder};
use scry_model::{ErrorCode, Event, EventKind, Surface, Timestamp};
use serde_json::{json, Value};

use crate::error::{QueryError, QueryResult};
use crate::selection::Span;

/// The filters of one `events` query, as given (strings): the CLI flags, HTTP parameters of
/// `/events` and `/stream` of the same names (issue 18: each defined here once).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct EventQuery {
    /// Seq ranges, 0-based and inclusive: `10-40`, `7`, `30-`, `1,5-9`
    #[cfg_attr(feature = "cli", arg(long, value_name = "A-B"))]
    pub seq: Option<String>,
    /// Events at or after: `24h`, `7d`, an ISO date or time
    #[cfg_attr(feature = "cli", arg(long, value_name = "T"))]
    pub since: Option<String>,
    /// Events at or before: `24h` (ago), an ISO date (through its end) or time
    #[cfg_attr(feature = "cli", arg(long, value_name = "T"))]
    pub until: Option<String>,
    /// Kinds: user, assistant, thinking, tool_call, tool_result, system, compaction, meta
    #[cfg_attr(feature = "cli", arg(long, value_name = "K,…"))]
    pub kind: Option<String>,
    /// Surfaces: current, shadowed, log-only
    #[cfg_attr(feature = "cli", arg(long, value_name = "S,…"))]
    pub surface: Option<String>,
    /// Text clause: literal, case-insensitive; a run of spaces matches any run of whitespace
    #[cfg_attr(feature = "cli", arg(long, value_name = "TEXT"))]
    pub text: Option<String>,
}

/// The parsed filters.
#[derive(Debug, Clone)]
pub struct Filters {
    /// Seq spans (any of them).
    pub seqs: Vec<Span>,
    /// Lower time bound (inclusive).
    pub since: Option<Timestamp>,
    /// Upper time bound (inclusive).
    pub until: Option<Timestamp>,
    /// Kinds (any of them; empty = all).
    pub kinds: Vec<EventKind>,
    /// Surfaces (any of them; empty = all).
    pub surfaces: Vec<Surface>,
    /// The text clause.
    pub text: Option<TextClause>,
}

/// Where a text clause matched first: a field (`text`, or `args.<path>` of a tool call) and
/// the character range inside it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TextMatch {
    /// `text` or `args.<path>`.
    pub field: String,
    /// First matched character (0-based).
    pub from: usize,
    /// One past the last matched character.
    pub to: usize,
}

/// A compiled text clause.
#[derive(Debug, Clone)]
pub struct TextClause {
    /// The clause as given.
    pub clause: String,
    re: Regex,
}

fn bad(msg: String) -> QueryError {
    QueryError::usage(ErrorCode::InvalidFilter, msg)
}

fn parse_seqs(value: &str) -> QueryResult<Vec<Span>> {
    let hint = "use N, A-B or A- (0-based seqs), comma-separated";
    let mut out = Vec::new();
    for part in value.split(',') {
        let p = part.trim();
        let num = |t: &str| {
            t.trim()
                .parse::<u32>()
                .map_err(|_| bad(format!("invalid --seq '{value}': {hint}")))
        };
        let span = match p.split_once('-') {
            Some((a, "")) => Span {
                start: num(a)?,
                end: u32::MAX,
            },
            Some((a, b)) => Span {
                start: num(a)?,
                end: num(b)?,
            },
            None => {
                let n = num(p)?;
                Span { start: n, end: n }
            }
        };
        if span.start > span.end {
            return Err(bad(format!(
                "invalid --seq '{value}': {} is after {}",
                span.start, span.end
            )));
        }
        out.push(span);
    }
    Ok(out)
}

fn parse_time(flag: &str, value: &str, now: Timestamp, end_of_day: bool) -> QueryResult<Timestamp> {
    let v = value.trim();
    let err = || {
        bad(format!(
            "invalid --{flag} '{value}': use a duration like 30m, 24h, 7d or an ISO date / time"
        ))
    };
    if end_of_day {
        if let Ok(date) = v.parse::<jiff::civil::Date>() {
            let next = date.tomorrow().map_err(|_| err())?;
            let start = next
                .to_zoned(jiff::tz::TimeZone::UTC)
                .map_err(|_| err())?
                .timestamp();
            return start
                .checked_sub(jiff::SignedDuration::from_nanos(1))
                .map_err(|_| err());
        }
    }
    crate::filter::since(v, now).map_err(|_| err())
}

fn parse_kinds(value: &str) -> QueryResult<Vec<EventKind>> {
    let names: Vec<&str> = EventKind::ALL.iter().map(|k| k.as_str()).collect();
    let mut out = Vec::new();
    for part in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let k = EventKind::parse(&part.replace('-', "_")).ok_or_else(|| {
            bad(format!(
                "unknown event kind '{part}' (kinds: {})",
                names.join(", ")
            ))
        })?;
        if !out.contains(&k) {
            out.push(k);
        }
    }
    if out.is_empty() {
        return Err(bad(format!("invalid --kind '{value}': no kind given")));
    }
    out.sort();
    Ok(out)
}

/// Parses a surface name: `current`, `shadowed`, `log-only` (`log_only` too).
pub fn parse_surface(name: &str) -> Option<Surface> {
    match name.trim() {
        "current" => Some(Surface::Current),
        "shadowed" => Some(Surface::Shadowed),
        "log-only" | "log_only" | "logonly" => Some(Surface::LogOnly),
        _ => None,
    }
}

/// The kebab-case name of a surface.
pub fn surface_name(s: Surface) -> &'static str {
    match s {
        Surface::Current => "current",
        Surface::Shadowed => "shadowed",
        Surface::LogOnly => "log-only",
    }
}

fn parse_surfaces(value: &str) -> QueryResult<Vec<Surface>> {
    let mut out = Vec::new();
    for part in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let s = parse_surface(part).ok_or_else(|| {
            QueryError::usage(
                ErrorCode::InvalidSurface,
                format!("unknown surface '{part}' (surfaces: current, shadowed, log-only)"),
            )
        })?;
        if !out.contains(&s) {
            out.push(s);
        }
    }
    if out.is_empty() {
        return Err(QueryError::usage(
            ErrorCode::InvalidSurface,
            format!("invalid --surface '{value}': no surface given"),
        ));
    }
    out.sort_by_key(|s| surface_name(*s));
    Ok(out)
}

impl TextClause {
    /// Compiles a clause: its words are literal, matched Unicode case-insensitively, and each
    /// run of whitespace in it matches any run of whitespace (at least one character).
    pub fn new(clause: &str) -> QueryResult<TextClause> {
        if clause.trim().is_empty() {
            return Err(bad("empty --text clause".into()));
        }
        let mut pattern = String::new();
        let mut in_ws = false;
        let mut word = String::new();
        for c in clause.chars() {
            if c.is_whitespace() {
                if !word.is_empty() {
                    pattern.push_str(&regex::escape(&word));
                    word.clear();
                }
                if !in_ws {
                    pattern.push_str(r"\s+");
                }
                in_ws = true;
            } else {
                word.push(c);
                in_ws = false;
            }
        }
        pattern.push_str(&regex::escape(&word));
        let re = RegexBuilder::new(&pattern)
            .case_insensitive(true)
            .size_limit(64 << 20)
            .build()
            .map_err(|e| bad(format!("invalid --text '{clause}': {e}")))?;
        Ok(TextClause {
            clause: clause.to_string(),
            re,
        })
    }

    fn in_field(&self, field: &str, s: &str) -> Option<TextMatch> {
        let m = self.re.find(s)?;
        let from = s.get(..m.start()).map_or(0, |p| p.chars().count());
        let len = m.as_str().chars().count();
        Some(TextMatch {
            field: field.to_string(),
            from,
            to: from + len,
        })
    }

    /// The first match in the event's text, else in the string values of its arguments.
    pub fn find(&self, e: &Event) -> Option<TextMatch> {
        if let Some(m) = self.in_field("text", &e.text) {
            return Some(m);
        }
        let args = e.args.as_ref()?;
        let mut path = String::from("args");
        self.in_value(args, &mut path)
    }

    fn in_value(&self, v: &Value, path: &mut String) -> Option<TextMatch> {
        match v {
            Value::String(s) => self.in_field(path, s),
            Value::Array(items) => items.iter().enumerate().find_map(|(i, item)| {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                let m = self.in_value(item, path);
                path.truncate(len);
                m
            }),
            Value::Object(map) => map.iter().find_map(|(k, item)| {
                let len = path.len();
                path.push('.');
                path.push_str(k);
                let m = self.in_value(item, path);
                path.truncate(len);
                m
            }),
            _ => None,
        }
    }
}

impl Filters {
    /// Parses the filters (`now` resolves relative times).
    pub fn parse(q: &EventQuery, now: Timestamp) -> QueryResult<Filters> {
        let f = Filters {
            seqs: q
                .seq
                .as_deref()
                .map(parse_seqs)
                .transpose()?
                .unwrap_or_default(),
            since: q
                .since
                .as_deref()
                .map(|v| parse_time("since", v, now, false))
                .transpose()?,
            until: q
                .until
                .as_deref()
                .map(|v| parse_time("until", v, now, true))
                .transpose()?,
            kinds: q
                .kind
                .as_deref()
                .map(parse_kinds)
                .transpose()?
                .unwrap_or_default(),
            surfaces: q
                .surface
                .as_deref()
                .map(parse_surfaces)
                .transpose()?
                .unwrap_or_default(),
            text: q.text.as_deref().map(TextClause::new).transpose()?,
        };
        if let (Some(a), Some(b)) = (f.since, f.until) {
            if a > b {
                return Err(bad(format!(
                    "invalid time range: --since {a} is after --until {b}"
                )));
            }
        }
        Ok(f)
    }

    /// Whether the filters other than surface and text accept `e` (cheap checks).
    pub fn accepts_fields(&self, e: &Event) -> bool {
        if !self.seqs.is_empty() && !self.seqs.iter().any(|s| s.contains(e.seq)) {
            return false;
        }
        if !self.kinds.is_empty() && !self.kinds.contains(&e.kind) {
            return false;
        }
        if self.since.is_some() || self.until.is_some() {
            let Some(t) = e.time else { return false };
            if self.since.is_some_and(|s| t < s) || self.until.is_some_and(|u| t > u) {
                return false;
            }
        }
        true
    }

    /// Whether the surface filter accepts `s`.
    pub fn accepts_surface(&self, s: Surface) -> bool {
        self.surfaces.is_empty() || self.surfaces.contains(&s)
    }

    /// The normalized filters as JSON (what a cursor binds, and what results echo).
    pub fn to_json(&self) -> Value {
        let seqs: Vec<String> = self
            .seqs
            .iter()
            .map(|s| match (s.start == s.end, s.end == u32::MAX) {
                (true, _) => s.start.to_string(),
                (_, true) => format!("{}-", s.start),
                _ => format!("{}-{}", s.start, s.end),
            })
            .collect();
        json!({
            "seq": if seqs.is_empty() { Value::Null } else { json!(seqs.join(",")) },
            "since": self.since,
            "until": self.until,
            "kind": if self.kinds.is_empty() { Value::Null } else { json!(self.kinds) },
            "surface": if self.surfaces.is_empty() {
                Value::Null
            } else {
                json!(self.surfaces.iter().map(|s| surface_name(*s)).collect::<Vec<_>>())
            },
            "text": self.text.as_ref().map(|t| t.clause.clone()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scry_model::Locator;

    fn now() -> Timestamp {
        "2026-11-30T12:00:00Z".parse().unwrap()
    }

    fn q() -> EventQuery {
        EventQuery::default()
    }

    #[test]
    fn seq_kind_surface_values() {
        let f = Filters::parse(
            &EventQuery {
                seq: Some("3,10-12,40-".into()),
                kind: Some("tool_result,tool-call".into()),
                surface: Some("log-only,current".into()),
                ..q()
            },
            now(),
        )
        .unwrap();
        assert_eq!(f.seqs.len(), 3);
        assert_eq!(f.kinds, vec![EventKind::ToolCall, EventKind::ToolResult]);
        assert_eq!(f.to_json()["seq"], "3,10-12,40-");
        assert_eq!(f.to_json()["surface"], json!(["current", "log-only"]));
        for (field, value, code) in [
            ("seq", "9-3", ErrorCode::InvalidFilter),
            ("seq", "x", ErrorCode::InvalidFilter),
            ("kind", "tool", ErrorCode::InvalidFilter),
            ("surface", "hidden", ErrorCode::InvalidSurface),
            ("since", "yesterday", ErrorCode::InvalidFilter),
            ("text", "  ", ErrorCode::InvalidFilter),
        ] {
            let mut query = q();
            let slot = match field {
                "seq" => &mut query.seq,
                "kind" => &mut query.kind,
                "surface" => &mut query.surface,
                "since" => &mut query.since,
                _ => &mut query.text,
            };
            *slot = Some(value.into());
            let e = Filters::parse(&query, now()).unwrap_err();
            assert_eq!((e.code, e.http_status()), (code, 400), "{field} {value}");
            assert!(e.message.contains(value.trim()), "{}", e.message);
        }
    }

    #[test]
    fn until_a_date_means_the_whole_day() {
        let f = Filters::parse(
            &EventQuery {
                since: Some("2026-11-30".into()),
                until: Some("2026-11-30".into()),
                ..q()
            },
            now(),
        )
        .unwrap();
        let mut e = Event::new(EventKind::User, "x", Locator::native("a", None));
        e.time = Some("2026-11-30T23:59:59Z".parse().unwrap());
        assert!(f.accepts_fields(&e));
        e.time = Some("2026-12-01T00:00:00Z".parse().unwrap());
        assert!(!f.accepts_fields(&e));
        e.time = None;
        assert!(!f.accepts_fields(&e));
        let bad = Filters::parse(
            &EventQuery {
                since: Some("2026-12-01".into()),
                until: Some("2026-11-30".into()),
                ..q()
            },
            now(),
        );
        assert!(bad.is_err());
    }

    #[test]
    fn text_is_literal_caseless_and_whitespace_flexible() {
        let t = TextClause::new("npm  test").unwrap();
        let mut e = Event::new(EventKind::ToolCall, "", Locator::native("a", None));
        e.args = Some(json!({"command": "cd app &&  NPM\n\ttest --watch"}));
        assert_eq!(
            t.find(&e),
            Some(TextMatch {
                field: "args.command".into(),
                from: 11,
                to: 20
            })
        );
        let e2 = Event::new(EventKind::User, "npmtest", Locator::native("b", None));
        assert_eq!(t.find(&e2), None);
        let cjk = TextClause::new("会话").unwrap();
        let e3 = Event::new(EventKind::User, "跨会话检索", Locator::native("c", None));
        assert_eq!(cjk.find(&e3).map(|m| (m.from, m.to)), Some((1, 3)));
        let greek = TextClause::new("ΣΟΦΊΑ").unwrap();
        let e4 = Event::new(EventKind::User, "η σοφία μένει", Locator::native("d", None));
        assert!(greek.find(&e4).is_some());
        let dots = TextClause::new("a.b").unwrap();
        let e5 = Event::new(EventKind::User, "axb", Locator::native("e", None));
        assert_eq!(dots.find(&e5), None);
    }
}
