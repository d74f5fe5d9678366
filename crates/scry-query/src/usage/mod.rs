//! Usage and cost (issue 19): the typed `usage` operation every front end calls — the CLI's
//! `scry usage`, the HTTP API's `/v1/usage`, MCP's `usage` tool and the web page's Usage view.
//!
//! Every model request scry read (an event carrying [`scry_model::TokenUsage`]) is priced from
//! [`price::PriceTable`] and summed into daily / weekly / monthly / per-session rows or 5-hour
//! billing blocks ([`report`], [`blocks`]). Tokens are scry's normalized counts (SPEC S-F7);
//! where they differ from ccusage's the provider crates' `tests/ccusage.rs` say why.
//!
//! Sessions come from the index when it holds them (refreshed first, like every read), else
//! from a direct parse; a source that cannot be read becomes a warning.

pub mod blocks;
pub mod price;
mod recent;
pub mod report;
pub mod statusline;

use std::collections::HashMap;

use scry_model::{
    ErrorCode, Event, Header, ProviderId, SessionKind, Timestamp, TokenUsage, Warning,
};
use scry_source::guard::{self, Failure};
use scry_source::SourceFile;
use scry_store::{StoredRequest, UsageSum};

use crate::catalog::Catalog;
use crate::error::{QueryError, QueryResult};
use crate::session_read::FnSink;
use crate::Context;

pub use price::{CustomPrice, PriceTable};
pub use report::{usage, usage_from, By, Period, Pricing, UsageReport, UsageRequest, UsageRow};
pub use statusline::{statusline, Statusline};

/// One model request.
#[derive(Debug, Clone)]
pub struct Request {
    /// When it was answered.
    pub time: Option<Timestamp>,
    /// The model (`unknown` when the event names none).
    pub model: String,
    /// Its tokens.
    pub usage: TokenUsage,
    /// Cache-write tokens with a 1-hour lifetime (Claude's `ephemeral_1h_input_tokens`).
    pub cache_write_1h: u64,
}

impl Request {
    /// The request of `e`, when it carries usage.
    pub fn of(e: &Event) -> Option<Request> {
        StoredRequest::of(e).map(Request::from)
    }
}

impl From<StoredRequest> for Request {
    fn from(r: StoredRequest) -> Request {
        Request {
            time: r.time,
            model: r.model,
            usage: r.usage,
            cache_write_1h: r.cache_write_1h,
        }
    }
}

/// One session's requests and what reports group it by.
#[derive(Debug, Clone)]
pub struct SessionUsage {
    /// Provider.
    pub provider: ProviderId,
    /// Session id.
    pub id: String,
    /// `provider:id`.
    pub uri: String,
    /// Working directory (the project).
    pub cwd: Option<String>,
    /// Title.
    pub title: Option<String>,
    /// Kind (main, subagent, …).
    pub kind: SessionKind,
    /// The parent's id.
    pub parent: Option<String>,
    /// Last activity.
    pub updated: Option<Timestamp>,
    /// The uri of the root session it folds into (itself for a root).
    pub root: String,
    /// The machine it was pushed from (a team store, issue 22); `None`: this host.
    pub machine: Option<String>,
    /// Its model requests in order (empty while [`SessionUsage::deferred`]: a [`Ledger`]
    /// reads them when the report reaches the session).
    pub requests: Vec<Request>,
    /// The position of its source in the [`Ledger`] that reads its requests on demand; `None`:
    /// `requests` holds them.
    pub(crate) deferred: Option<usize>,
}

/// Reads every session of `providers` (all when empty) that may hold a request at or after
/// `since` (sessions the index knows ended before it are skipped, except the session `keep`
/// names by id and its children), keeping only their requests.
pub fn collect(
    ctx: &Context,
    providers: &[ProviderId],
    since: Option<Timestamp>,
    keep: Option<&str>,
) -> QueryResult<(Vec<SessionUsage>, Vec<Warning>)> {
    let (mut sessions, mut warnings, ledger) = collect_deferred(ctx, providers, since, keep)?;
    for s in &mut sessions {
        match ledger.requests(s) {
            Ok(r) => s.requests = r.into_owned(),
            Err(w) => warnings.push(w),
        }
        s.deferred = None;
    }
    Ok((sessions, warnings))
}

/// Reads the requests of the sessions [`collect_deferred`] found from the index's usage ledger,
/// one session at a time, when a report reaches it: a report over every session then holds one
/// session's requests, not all of them (the warm `usage session` of 20,000 sessions held
/// every request row).
pub(crate) struct Ledger(Option<Deferred>);

/// What a [`Ledger`] reads from: the index, the catalog (a parse when the index lost a
/// session) and the catalog's files in the order sessions were found.
struct Deferred {
    index: Option<crate::Index>,
    catalog: Catalog,
    files: Vec<usize>,
}

impl Ledger {
    /// A ledger that defers nothing (sessions that hold their requests).
    pub(crate) fn held() -> Ledger {
        Ledger(None)
    }

    /// The requests of `s`: its own when it holds them, else read from the index (a session
    /// the index lost since its header was read is parsed).
    pub(crate) fn requests<'a>(
        &self,
        s: &'a SessionUsage,
    ) -> Result<std::borrow::Cow<'a, [Request]>, Warning> {
        let (Some(at), Some(d)) = (s.deferred, self.0.as_ref()) else {
            return Ok(std::borrow::Cow::Borrowed(&s.requests));
        };
        let file = &d.catalog.files[d.files[at]];
        let index = d
            .index
            .as_deref()
            .map(|s| s as &dyn scry_store::SessionIndex);
        read_one(&d.catalog, index, file).map(|(_, r)| std::borrow::Cow::Owned(r))
    }
}

/// [`collect`] with the requests of indexed sessions left in the index: each session's header
/// is read now, its requests by the returned [`Ledger`] when the report reaches it.
pub(crate) fn collect_deferred(
    ctx: &Context,
    providers: &[ProviderId],
    since: Option<Timestamp>,
    keep: Option<&str>,
) -> QueryResult<(Vec<SessionUsage>, Vec<Warning>, Ledger)> {
    let mut index = if ctx.no_index {
        None
    } else {
        crate::indexed::open(ctx)?
    };
    // Under a watcher's lease the index is the discovered set (as for `list`): no discovery.
    let leased = index
        .as_deref()
        .is_some_and(|s| crate::lease::leased(ctx, s, providers));
    let catalog = match index.as_deref().filter(|_| leased) {
        Some(s) => Catalog::from_index(ctx, s, providers),
        None => None,
    }
    .unwrap_or_else(|| Catalog::discover(ctx, providers));
    let mut warnings = catalog.warnings.clone();
    if let Some(store) = index.as_mut() {
        let all: Vec<&SourceFile> = catalog.files.iter().collect();
        if !crate::indexed::refresh_catalog(ctx, &mut **store, &catalog, &all) {
            index = None;
        }
    }
    // The index knows when each session was last active: what ended before `since` is
    // skipped (one pass over the sessions' columns, no header read per file).
    let idle = match (index.as_ref(), since) {
        (Some(store), Some(since)) => store.sources_idle_since(since, keep).unwrap_or_default(),
        _ => Default::default(),
    };
    // One order whichever catalog answered (discovery's, or the index's under a lease), so
    // totals sum their floats in the same order.
    let mut files: Vec<usize> = (0..catalog.files.len()).collect();
    files.sort_by(|&a, &b| {
        let (a, b) = (&catalog.files[a], &catalog.files[b]);
        (&a.path, &a.key).cmp(&(&b.path, &b.key))
    });
    let mut sessions = Vec::new();
    for (at, &i) in files.iter().enumerate() {
        let file = &catalog.files[i];
        if !idle.is_empty() {
            let key = (
                file.path.to_string_lossy().into_owned(),
                file.key.clone().unwrap_or_default(),
            );
            if idle.contains(&key) {
                continue;
            }
        }
        // The index's header now, its requests later; a session it does not hold is parsed.
        let indexed = index
            .as_deref()
            .and_then(|store| store.header(file.into()).ok())
            .map(crate::indexed::normalize);
        let read = match indexed {
            Some(h) => Ok((h, None)),
            None => parse_requests(&catalog, file).map(|(h, r)| (h, Some(r))),
        };
        match read {
            Ok((header, requests)) => {
                // Excluded projects drop out; the parent discovery knows fills a missing one.
                let Some(entry) = crate::catalog::keep(&ctx.exclusions, file, header) else {
                    continue;
                };
                let deferred = requests.is_none().then_some(at);
                let mut s = SessionUsage::of(&entry.header, None, requests.unwrap_or_default());
                s.deferred = deferred;
                sessions.push(s)
            }
            Err(w) => warnings.push(w),
        }
    }
    fold_roots(&mut sessions);
    let ledger = Ledger(Some(Deferred {
        index,
        catalog,
        files,
    }));
    Ok((sessions, warnings, ledger))
}

impl SessionUsage {
    /// The usage of the session `header` names, from `machine` (`None`: this host), with its
    /// requests in order; its own root until [`fold_roots`].
    pub fn of(header: &Header, machine: Option<String>, requests: Vec<Request>) -> SessionUsage {
        SessionUsage {
            provider: header.provider,
            id: header.id.clone(),
            uri: header.uri.clone(),
            cwd: header.cwd.clone(),
            title: header.title.clone(),
            kind: header.kind,
            parent: header.parent.clone(),
            updated: header.updated,
            root: header.uri.clone(),
            machine,
            requests,
            deferred: None,
        }
    }
}

/// Sets each session's `root`: a subagent (or any non-main kind) folds into its parent's root
/// of the same provider (and machine), when that session was read.
pub fn fold_roots(sessions: &mut [SessionUsage]) {
    let by_id: HashMap<(Option<String>, ProviderId, String), usize> = sessions
        .iter()
        .enumerate()
        .map(|(i, s)| ((s.machine.clone(), s.provider, s.id.clone()), i))
        .collect();
    let roots: Vec<String> = (0..sessions.len())
        .map(|i| {
            let mut at = i;
            for _ in 0..32 {
                let s = &sessions[at];
                if matches!(s.kind, SessionKind::Main | SessionKind::Exec) {
                    break;
                }
                match s
                    .parent
                    .as_ref()
                    .and_then(|p| by_id.get(&(s.machine.clone(), s.provider, p.clone())))
                {
                    Some(&p) if p != at => at = p,
                    _ => break,
                }
            }
            sessions[at].uri.clone()
        })
        .collect();
    for (s, r) in sessions.iter_mut().zip(roots) {
        s.root = r;
    }
}

/// One session's header and requests: from the index's usage ledger when it holds the
/// session (no event is decoded), else parsed.
fn read_one(
    catalog: &Catalog,
    index: Option<&dyn scry_store::SessionIndex>,
    file: &SourceFile,
) -> Result<(Header, Vec<Request>), Warning> {
    if let Some(store) = index {
        if let Ok(Some((h, stored))) = store.requests(file.into()) {
            let requests = stored.into_iter().map(Request::from).collect();
            return Ok((crate::indexed::normalize(h), requests));
        }
    }
    parse_requests(catalog, file)
}

/// One session's header and requests by a direct parse of `file`.
fn parse_requests(catalog: &Catalog, file: &SourceFile) -> Result<(Header, Vec<Request>), Warning> {
    let mut requests = Vec::new();
    let source = catalog.source(file.provider).map_err(|e| {
        Warning::at(
            scry_model::WarningKind::Unreadable,
            e.message.clone(),
            &file.path,
            None,
        )
    })?;
    let mut sink = FnSink {
        on_event: |e: Event| requests.extend(Request::of(&e)),
        on_warning: |_w: Warning| {},
    };
    match guard::parse(source, file, &mut sink) {
        Ok(h) => Ok((h, requests)),
        Err(Failure::Source(e)) => Err(crate::catalog::source_warning(&e, file)),
        Err(Failure::Panic(_)) => Err(Warning::at(
            scry_model::WarningKind::CorruptRecord,
            format!(
                "the {} reader crashed on {}",
                file.provider,
                file.path.display()
            ),
            &file.path,
            None,
        )),
    }
}

/// A usage error (exit 2) naming the bad value.
pub(crate) fn bad(code: ErrorCode, message: String) -> QueryError {
    QueryError::usage(code, message)
}

/// The cost of one session's requests, summed while its events stream by (`show`).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Cost {
    /// USD of the priced requests; `None` when no request was priced.
    pub usd: Option<f64>,
    /// Models without a price and their tokens (not in `usd`).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub unpriced: std::collections::BTreeMap<String, u64>,
    /// For a `list` row that folds children (subagents): the session's own cost, theirs left
    /// out (`usd` / `unpriced` above are the session's with its folded children, as `usage
    /// session` reports it). `None` elsewhere (not serialized).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub own: Option<Box<Cost>>,
}

impl Cost {
    /// The cost of a session's usage-ledger sums ([`scry_store::ledger`]), priced from `table`:
    /// what `list` shows without reading the session's events.
    pub fn of_sums(sums: &[UsageSum], table: &PriceTable) -> Cost {
        let mut c = Cost::default();
        for s in sums {
            match table.lookup(&s.model) {
                Some(p) => *c.usd.get_or_insert(0.0) += price::cost_of_sum(&p.price, s),
                None => *c.unpriced.entry(s.model.clone()).or_default() += s.usage.total(),
            }
        }
        c
    }

    /// The cost of a `list` row: the session's usage sums `own` with those of the children
    /// folded under it (`folded`, one list per child), tokens added per (model, tier) before
    /// pricing ([`scry_store::ledger::merge_sums`]) so the figure depends on neither where the
    /// sums came from nor the children's order; with [`Cost::own`] set when `folds` (the row
    /// has folded children).
    pub fn of_row(
        own: &[UsageSum],
        folded: &[Vec<UsageSum>],
        folds: bool,
        table: &PriceTable,
    ) -> Cost {
        let own_cost = Cost::of_sums(own, table);
        if !folds {
            return own_cost;
        }
        let all =
            scry_store::ledger::merge_sums(own.iter().chain(folded.iter().flatten()).cloned());
        Cost {
            own: Some(Box::new(own_cost)),
            ..Cost::of_sums(&all, table)
        }
    }

    /// The cost and failed tool results of `events` (a session read from elsewhere: a team
    /// store, issue 22), summed as the ledger sums it so it equals [`Cost::of_sums`] of the
    /// same session in a local index to the last digit.
    pub fn of_events(events: &[Event], table: &PriceTable) -> (Cost, u64) {
        let (sums, failures) = Cost::sums_of_events(events);
        (Cost::of_sums(&sums, table), failures)
    }

    /// The usage sums and failed tool results of `events`, summed as the ledger sums them
    /// (for [`Cost::of_row`]).
    pub fn sums_of_events(events: &[Event]) -> (Vec<UsageSum>, u64) {
        let stored: Vec<StoredRequest> = events.iter().filter_map(StoredRequest::of).collect();
        let failures = events
            .iter()
            .filter(|e| scry_store::ledger::is_failed_result(e))
            .count() as u64;
        (scry_store::ledger::sums_of(&stored), failures)
    }

    /// Adds the request `e` carries, if any, priced from `table`.
    pub fn push(&mut self, e: &Event, table: &PriceTable) {
        let Some(r) = Request::of(e) else { return };
        match table.lookup(&r.model) {
            Some(p) => {
                *self.usd.get_or_insert(0.0) += price::cost(&p.price, &r.usage, r.cache_write_1h)
            }
            None => *self.unpriced.entry(r.model).or_default() += r.usage.total(),
        }
    }
}

/// The price table of `ctx`: the embedded one plus the config file's `[pricing]` (none for the
/// demo; a config file that cannot be read gives the embedded table alone — the commands that
/// report usage refuse it with its error first).
pub fn prices(ctx: &Context) -> PriceTable {
    if ctx.demo {
        return PriceTable::embedded().clone();
    }
    match scry_sources::config::pricing(&ctx.env) {
        Ok(custom) => PriceTable::with_custom(&custom),
        Err(_) => PriceTable::embedded().clone(),
    }
}

/// Dollars for people: `$1.23`, or four decimals under a cent (`$0.0042`) so a small priced
/// cost never reads as `$0.00`.
pub fn dollars(usd: f64) -> String {
    if usd > 0.0 && usd < 0.01 {
        format!("${usd:.4}")
    } else {
        format!("${usd:.2}")
    }
}
