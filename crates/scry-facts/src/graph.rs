//! Session graph edges (SPEC S-F6), only from real tool calls.
//!
//! A shell call (with a result: it ran) whose parsed command runs a session reader —
//! `scry` / `1session` / `session-reader` with a reading subcommand (`show`, `overview`,
//! `turns`, `turn`, `digest`, `files`, `commands`, `errors`, `jobs`, `graph`, `related`,
//! `context`, `export`, `resume`, `trace`; or any subcommand with `--session ID`) — yields a
//! candidate naming the id argument: `handoff_from` for `context` (the hand-off pack, S-Q2),
//! `references` for everything else. An MCP call to a scry tool (tool name holding
//! `scry`, argument `id` / `session` / `session_id`) does too. Here-doc bodies are data, so a
//! document that shows `scry show X` creates nothing. [`reference_edges`] resolves candidates
//! with a caller-supplied resolver (the index) and counts evidence per target; unresolved
//! targets and self-references make no edge. The result is a pure function of the session:
//! re-running it gives the same edges and counts (idempotent).

use std::collections::BTreeMap;

use scry_model::{Event, EventKind, Header, LineageKind, Session};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::pairing::Pairs;
use crate::provenance::{Evidence, Origin, Provenance};
use crate::shell::{analyze, command_of, is_shell_tool};

/// Kinds of edges between sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    /// The session ran a command reading the target.
    References,
    /// The session was handed off from the target.
    HandoffFrom,
    /// Subagent of the target (provider field).
    SubagentOf,
    /// Forked from the target (provider field).
    ForkedFrom,
    /// Resumed the target (provider field).
    ResumedFrom,
    /// Continues the target after compaction (provider field).
    CompactedInto,
}

/// A reference found in one tool call, before resolution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReferenceCandidate {
    /// The id string as written in the call.
    pub target: String,
    /// The reading subcommand (`show`, `turns`, …) or MCP tool name.
    pub verb: String,
    /// Provenance (`derived`, `shell:scry-call` / `tool:mcp`) and the call's evidence.
    #[serde(flatten)]
    pub origin: Origin,
}

/// One resolved edge with its evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    /// Relation.
    pub kind: EdgeKind,
    /// From (this session's uri).
    pub from: String,
    /// To (the resolved target's uri).
    pub to: String,
    /// Number of evidence items.
    pub count: usize,
    /// Verbs used, in order.
    pub verbs: Vec<String>,
    /// The events that prove it (or, for lineage, none: the header field is named in `field`).
    pub evidence: Vec<Evidence>,
    /// The header field for lineage edges.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

const READERS: &[&str] = &["scry", "1session", "session-reader"];
const VERBS: &[&str] = &[
    "show", "overview", "turns", "turn", "digest", "files", "commands", "errors", "jobs", "graph",
    "related", "context", "export", "resume", "trace",
];
/// Options of the readers that take no value.
const FLAGS: &[&str] = &[
    "--json",
    "--raw",
    "--failed",
    "--global",
    "--no-index",
    "--redact",
    "--exec",
    "--all",
    "--force",
    "--include-self",
    "--regex",
    "--case",
    "--copy",
    "--dry-run",
    "--open",
];

/// The id argument of a reader invocation `argv` (program first).
fn reader_target(argv: &[String]) -> Option<(String, String)> {
    let prog = argv.first()?;
    let prog = prog.rsplit('/').next().unwrap_or(prog);
    if !READERS.contains(&prog) {
        return None;
    }
    let args = argv.get(1..)?;
    // Skip global options before the subcommand.
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if !a.starts_with('-') {
            break;
        }
        i += if FLAGS.contains(&a.as_str()) || a.contains('=') {
            1
        } else {
            2
        };
    }
    let verb = args.get(i)?.clone();
    if let Some(p) = args.iter().position(|a| a == "--session") {
        if let Some(id) = args.get(p + 1) {
            return Some((verb, id.clone()));
        }
    }
    if let Some(id) = args.iter().find_map(|a| a.strip_prefix("--session=")) {
        return Some((verb, id.to_string()));
    }
    if !VERBS.contains(&verb.as_str()) {
        return None;
    }
    let mut j = i + 1;
    while let Some(a) = args.get(j) {
        if a.starts_with('-') {
            j += if FLAGS.contains(&a.as_str()) || a.contains('=') {
                1
            } else {
                2
            };
            continue;
        }
        return Some((verb, a.clone()));
    }
    None
}

/// Every reference candidate in `session`, in call order.
pub fn reference_candidates(session: &Session) -> Vec<ReferenceCandidate> {
    let events = &session.events;
    let pairs = Pairs::build(events);
    let mut out = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if pairs.result(i).is_some() {
            out.extend(call_candidates(e));
        }
    }
    out
}

/// The reference candidates of one event, whether or not its call got a result (a candidate
/// counts only when it did: [`reference_candidates`]); empty for anything but a tool call.
pub fn call_candidates(e: &Event) -> Vec<ReferenceCandidate> {
    let mut out = Vec::new();
    if e.kind != EventKind::ToolCall {
        return out;
    }
    let tool = e.tool.as_deref().unwrap_or("");
    let args = e.args.as_ref().unwrap_or(&Value::Null);
    if is_shell_tool(tool) {
        let Some(cmd) = command_of(args) else {
            return out;
        };
        if !READERS.iter().any(|r| cmd.contains(r)) {
            return out;
        }
        for inv in analyze(&cmd) {
            if let Some((verb, target)) = reader_target(&inv.argv) {
                out.push(ReferenceCandidate {
                    target,
                    verb,
                    origin: Origin::new(Provenance::Derived, "shell:scry-call", e),
                });
            }
        }
    } else if tool.to_ascii_lowercase().contains("scry") {
        let target = ["id", "session", "session_id", "sessionId"]
            .iter()
            .find_map(|k| args.get(*k).and_then(Value::as_str));
        if let Some(t) = target {
            out.push(ReferenceCandidate {
                target: t.to_string(),
                verb: tool.to_string(),
                origin: Origin::new(Provenance::Observed, "tool:mcp", e),
            });
        }
    }
    out
}

/// The edge kind a reading verb proves: reading another session's hand-off pack
/// (`scry context X`) makes this session a hand-off from X; any other read is a reference.
pub fn kind_of_verb(verb: &str) -> EdgeKind {
    if verb == "context" {
        EdgeKind::HandoffFrom
    } else {
        EdgeKind::References
    }
}

/// `references` / `handoff_from` edges of `session`: candidates resolved by `resolve` (id
/// string → uri of an indexed session), self-references and unresolved targets dropped,
/// evidence counted per (kind, target). Ordered by kind, then target uri.
pub fn reference_edges(session: &Session, resolve: impl Fn(&str) -> Option<String>) -> Vec<Edge> {
    reference_edges_from(&session.header.uri, reference_candidates(session), resolve)
}

/// [`reference_edges`] from candidates already extracted (e.g. stored in the index's L3 layer)
/// of the session `from`.
pub fn reference_edges_from(
    from: &str,
    candidates: Vec<ReferenceCandidate>,
    resolve: impl Fn(&str) -> Option<String>,
) -> Vec<Edge> {
    let from = from.to_string();
    let mut by_target: BTreeMap<(EdgeKind, String), Edge> = BTreeMap::new();
    for c in candidates {
        let Some(to) = resolve(&c.target) else {
            continue;
        };
        if to == from {
            continue;
        }
        let kind = kind_of_verb(&c.verb);
        let edge = by_target.entry((kind, to.clone())).or_insert_with(|| Edge {
            kind,
            from: from.clone(),
            to,
            count: 0,
            verbs: Vec::new(),
            evidence: Vec::new(),
            field: None,
        });
        edge.count += 1;
        edge.verbs.push(c.verb);
        edge.evidence.push(c.origin.evidence);
    }
    by_target.into_values().collect()
}

/// Lineage edges from a header's provider fields, resolved with `resolve` (native id → uri).
pub fn lineage_edges(header: &Header, resolve: impl Fn(&str) -> Option<String>) -> Vec<Edge> {
    let mut out: Vec<Edge> = Vec::new();
    for l in &header.lineage {
        let Some(to) = resolve(&l.target) else {
            continue;
        };
        let kind = match l.kind {
            LineageKind::SubagentOf => EdgeKind::SubagentOf,
            LineageKind::ForkedFrom => EdgeKind::ForkedFrom,
            LineageKind::ResumedFrom => EdgeKind::ResumedFrom,
            LineageKind::CompactedInto => EdgeKind::CompactedInto,
        };
        if out.iter().any(|e| e.kind == kind && e.to == to) {
            continue;
        }
        out.push(Edge {
            kind,
            from: header.uri.clone(),
            to,
            count: 1,
            verbs: Vec::new(),
            evidence: Vec::new(),
            field: Some(l.evidence.clone()),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::testkit::Script;
    use scry_model::ProviderId;
    use serde_json::json;

    fn session(s: Script) -> Session {
        let mut sess = Session::new(Header::new(ProviderId::Claude, "me"));
        sess.events = s.events;
        sess
    }

    #[test]
    fn edges_from_real_calls_only() {
        let mut s = Script::default();
        s.user("look at the old session")
            .bash("a", "scry show 3ab9fe0e --json", Some(0), "")
            .bash(
                "b",
                "scry turn 3ab9fe0e 2-4 --max-chars 100 && scry --no-index files 01a0907c",
                Some(0),
                "",
            )
            .bash(
                "c",
                "cat > doc.md <<'EOF'\nrun scry show deadbeef\nEOF",
                Some(0),
                "",
            )
            .bash("d", "scry search foo --session 01a0907c", Some(0), "")
            .bash("e", "scry show me", Some(0), "")
            .call("Bash", "f", json!({"command": "scry show 3ab9fe0e"}))
            .call("mcp__scry__show", "g", json!({"id": "3ab9fe0e"}))
            .result("mcp__scry__show", "g", "{}", None, Some(false));
        let sess = session(s);
        let cands: Vec<(String, String)> = reference_candidates(&sess)
            .into_iter()
            .map(|c| (c.verb, c.target))
            .collect();
        assert_eq!(
            cands,
            vec![
                ("show".into(), "3ab9fe0e".into()),
                ("turn".into(), "3ab9fe0e".into()),
                ("files".into(), "01a0907c".into()),
                ("search".into(), "01a0907c".into()),
                ("show".into(), "me".into()),
                ("mcp__scry__show".into(), "3ab9fe0e".into()),
            ]
        );
        let resolve = |id: &str| match id {
            "3ab9fe0e" => Some("claude:3ab9fe0e-full".to_string()),
            "01a0907c" => Some("codex:01a0907c-full".to_string()),
            "me" => Some("claude:me".to_string()),
            _ => None,
        };
        let edges = reference_edges(&sess, resolve);
        let got: Vec<(&str, usize)> = edges.iter().map(|e| (e.to.as_str(), e.count)).collect();
        assert_eq!(
            got,
            vec![("claude:3ab9fe0e-full", 3), ("codex:01a0907c-full", 2)]
        );
        // Idempotent: the same input gives the same edges.
        let mut h = Script::default();
        h.user("pick up where the other left off").bash(
            "a",
            "scry context 3ab9fe0e --max-chars 8000",
            Some(0),
            "",
        );
        let handoff = reference_edges(&session(h), resolve);
        assert_eq!(handoff.len(), 1);
        assert_eq!(handoff[0].kind, EdgeKind::HandoffFrom);
        assert_eq!(reference_edges(&sess, resolve), edges);
    }

    #[test]
    fn lineage_edges_name_their_field() {
        let mut h = Header::new(ProviderId::Codex, "child");
        h.lineage.push(scry_model::Lineage {
            kind: LineageKind::ForkedFrom,
            target: "parent".into(),
            evidence: "session_meta.forked_from_id".into(),
        });
        let e = lineage_edges(&h, |id| Some(format!("codex:{id}")));
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].kind, EdgeKind::ForkedFrom);
        assert_eq!(e[0].field.as_deref(), Some("session_meta.forked_from_id"));
    }
}
