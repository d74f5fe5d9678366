//! One session's overview (S-C2, "layer 1"): its header, the stats gathered in one pass (events
//! by kind, tools, failures, tokens, goal, final answer, last failure) and the fact card from
//! `scry-facts` (files changed by group, commands, failures fixed later, commits, jobs, final
//! state anchors), whose numbers agree with the ledgers. Both are folded while the events stream
//! by ([`LedgerFold::for_card`]): calls awaiting their result, counters and the card's rows are
//! kept, never the session (SPEC P6).

use scry_facts::overview::Overview as Card;
use scry_facts::{overview_of, LedgerFold};
use scry_model::{Event, EventKind, Header, Warning};
use scry_source::EventSink;
use serde::{Serialize, Serializer};
use serde_json::{json, Map, Value};

use crate::error::QueryResult;
use crate::session_read::{self, FnSink};
use crate::stats::Stats;
use crate::{render, Availability, Context};

/// What `show` is asked (its request type, issue 18): `scry show`'s argument, the HTTP path's
/// `{id}` and the MCP argument of the same name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ShowRequest {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// Read earlier revision N of the session, kept by the index when its source was rewritten
    /// shorter or changed (1 = the most recent; 0 = the current session)
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N", default_value_t = 0))]
    pub revision: u32,
}

/// A session's overview.
#[derive(Debug)]
pub struct Overview {
    /// The header the overview was computed from.
    pub header: Header,
    /// Counts and snippets.
    pub stats: Stats,
    /// The fact card.
    pub card: Card,
    /// The source fingerprint (S-Q3).
    pub fingerprint: String,
    /// Live / persisted (S-Q1).
    pub availability: Availability,
    /// USD of the session's requests (issue 19).
    pub cost: crate::usage::Cost,
    /// The earlier revisions the index keeps of the session (issue 20), newest first.
    pub revisions: Vec<scry_store::RevisionRow>,
}

/// Reads session `reference` and computes its overview.
pub fn overview(ctx: &Context, reference: &str) -> QueryResult<Overview> {
    let opened = session_read::open(ctx, reference)?;
    let fingerprint = crate::fingerprint_text(&opened.file.path);
    let revisions = opened.revisions();
    let mut o = overview_from(
        ctx,
        |sink| opened.stream(sink),
        fingerprint,
        opened.availability(),
    )?;
    o.revisions = revisions;
    Ok(o)
}

/// The overview of the session `stream` delivers (it streams the events and warnings into the
/// sink and returns the completed header): [`overview`] over any store (the team store, issue
/// 22), with the fingerprint and availability the caller knows.
pub fn overview_from(
    ctx: &Context,
    stream: impl FnOnce(&mut dyn EventSink) -> QueryResult<Header>,
    fingerprint: String,
    availability: Availability,
) -> QueryResult<Overview> {
    let mut stats = Stats::default();
    let mut fold = LedgerFold::for_card();
    let mut warnings: Vec<Warning> = Vec::new();
    let table = crate::usage::prices(ctx);
    let mut cost = crate::usage::Cost::default();
    let header = {
        let mut sink = FnSink {
            on_event: |e: Event| {
                fold.push(&e);
                cost.push(&e, &table);
                stats.event(e);
            },
            on_warning: |w: Warning| warnings.push(w),
        };
        stream(&mut sink)?
    };
    for w in warnings {
        stats.warning(w);
    }
    let card = overview_of(&header, &fold.finish(&header));
    Ok(Overview {
        header,
        stats,
        card,
        fingerprint,
        availability,
        cost,
        revisions: Vec::new(),
    })
}

/// The fact card as JSON: every count of the overview, and every write event (`writes`, the
/// same rows as `files --group all`).
fn card_json(o: &Card) -> Value {
    json!({
        "files": o.files,
        "writes": o.writes,
        "commands": o.commands,
        "commands_failed": o.commands_failed,
        "failures": o.failures,
        "failures_fixed": o.failures_fixed,
        "commits": o.commits,
        "jobs": o.jobs,
        "last_successful_command": o.last_successful_command,
        "last_files_written": o.last_files_written,
        "title_history": o.title_history,
    })
}

impl Overview {
    /// The JSON contract of `show --json`.
    pub fn to_json(&self) -> Value {
        let (h, st) = (&self.header, &self.stats);
        let mut events = Map::new();
        for k in EventKind::ALL {
            events.insert(
                k.as_str().into(),
                json!(st.kinds.get(&k).copied().unwrap_or(0)),
            );
        }
        events.insert("total".into(), json!(st.events()));
        let tokens = st.tokens.map(|t| {
            json!({
                "input": t.input,
                "output": t.output,
                "cache_read": t.cache_read,
                "cache_write": t.cache_write,
                "reasoning": t.reasoning,
                "total": t.total(),
            })
        });
        let last_failure = st.last_failure.as_ref().map(|f| {
            json!({
                "seq": f.seq,
                "event": f.seq + 1,
                "tool": f.tool,
                "args": f.args,
                "exit_code": f.exit_code,
                "output": f.output,
            })
        });
        let mut v = json!({
            "session": render::header_json(h),
            "fingerprint": self.fingerprint,
            "stats": {
                "turns": st.turns,
                "events": events,
                "tool_calls": st.tool_calls(),
                "failures": st.failures,
                "tools": st.tools,
                "tokens": tokens,
                "cost_usd": self.cost.usd,
                "unpriced": self.cost.unpriced,
                "duration_ms": render::span_ms(h.created, h.updated),
            },
            "goal": st.goal,
            "goal_truncated": st.goal_cut,
            "answer": st.answer,
            "answer_truncated": st.answer_cut,
            "last_failure": last_failure,
            "facts": card_json(&self.card),
            "sources": h.sources,
            "warnings": render::warnings_json(&st.warnings),
        });
        // Issue 20: present only when there is something to say, so the JSON of a session
        // without revisions is unchanged.
        if let Some(n) = self.availability.revision {
            v["revision"] = json!(n);
        }
        if !self.revisions.is_empty() {
            v["revisions"] = Value::Array(
                self.revisions
                    .iter()
                    .map(|r| json!({"n": r.n, "replaced_at": r.replaced_at, "events": r.events}))
                    .collect(),
            );
        }
        v
    }
}

impl Serialize for Overview {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}
