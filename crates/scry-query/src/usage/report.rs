//! The usage reports: [`usage`] sums priced requests into rows by period (day, week starting
//! Sunday as ccusage's, month; in the report's time zone), by session (subagents folded into
//! their root session, or apart with `split`) or by 5-hour block, each row broken down by
//! model, provider, project or machine.
//!
//! Cost: each request is priced alone (the long-context tier is per request), then summed. A
//! model without a price adds its tokens to the row's `unpriced` list and nothing to its cost:
//! a row with no priced request has `cost_usd: null`, never 0.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};
use scry_model::{ErrorCode, TokenUsage, Warning};
use serde::{Deserialize, Serialize};

use super::blocks::{self, Burn};
use super::price::{cost, CustomPrice, Price, PriceTable};
use super::{bad, collect_deferred, Ledger, Request, SessionUsage};
use crate::error::QueryResult;
use crate::Context;

/// Which report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Period {
    /// Per day.
    #[default]
    Daily,
    /// Per week (starting Sunday).
    Weekly,
    /// Per month.
    Monthly,
    /// Per session (subagents folded in).
    Session,
    /// Per 5-hour billing block.
    Blocks,
}

/// What each row is broken down by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum By {
    /// Model (the default).
    #[default]
    Model,
    /// Provider (agent).
    Provider,
    /// Project (working directory).
    Project,
    /// Machine (this host: scry reads one home).
    Machine,
}

/// What `usage` is asked (its request type, issue 18): `scry usage`'s flags (its report is
/// the positional argument, which also names `statusline`), the HTTP parameters and the MCP
/// arguments of the same names. What prices the report is [`Pricing`], beside it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct UsageRequest {
    /// The report: daily (default), weekly, monthly, session or blocks
    #[serde(rename = "report")]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub period: Period,
    /// Requests since: a date (2026-12-01 or 20261201) or a duration (7d, 24h)
    #[cfg_attr(feature = "cli", arg(long, value_name = "WHEN"))]
    pub since: Option<String>,
    /// Requests until the end of this date (or before this ISO time)
    #[cfg_attr(feature = "cli", arg(long, value_name = "WHEN"))]
    pub until: Option<String>,
    /// Break each row down by model, provider, project or machine
    #[cfg_attr(feature = "cli", arg(long, value_enum))]
    pub by: Option<By>,
    /// Only these providers (comma-separated: claude,codex,…)
    #[cfg_attr(feature = "cli", arg(long, value_name = "P,…"))]
    pub provider: Option<String>,
    /// Session report: subagents as rows of their own
    #[cfg_attr(feature = "cli", arg(long))]
    pub split: bool,
    /// Time zone of days and months (IANA name; default: the system's)
    #[cfg_attr(feature = "cli", arg(long, value_name = "TZ"))]
    pub timezone: Option<String>,
}

/// What prices a usage report besides the embedded table: not a parameter of the request
/// (the config file's prices are the server's, "now" is the clock's but in tests).
#[derive(Debug, Clone, Default)]
pub struct Pricing {
    /// Custom prices (the config file's `[pricing]`).
    pub prices: BTreeMap<String, CustomPrice>,
    /// "Now" (blocks' activity); `None` = the clock.
    pub now: Option<Timestamp>,
}

/// Token counts of a row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Tokens {
    /// Fresh input.
    pub input: u64,
    /// Output (reasoning included).
    pub output: u64,
    /// Cache read.
    pub cache_read: u64,
    /// Cache write (all lifetimes).
    pub cache_write: u64,
    /// Of `cache_write`, the 1-hour writes.
    pub cache_write_1h: u64,
    /// Of `output`, reasoning.
    pub reasoning: u64,
    /// input + output + cache read + cache write.
    pub total: u64,
}

impl Tokens {
    fn of(u: &TokenUsage, cw1h: u64) -> Tokens {
        Tokens {
            input: u.input,
            output: u.output,
            cache_read: u.cache_read,
            cache_write: u.cache_write,
            cache_write_1h: cw1h,
            reasoning: u.reasoning,
            total: u.total(),
        }
    }
}

/// Tokens of a model without a price.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unpriced {
    /// The model as recorded.
    pub model: String,
    /// Its tokens.
    pub tokens: Tokens,
}

/// One part of a row's breakdown.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Part {
    /// Model, provider, project or machine.
    pub key: String,
    /// Requests.
    pub requests: usize,
    /// Tokens.
    pub tokens: Tokens,
    /// USD of the priced requests; `null` when none was priced.
    pub cost_usd: Option<f64>,
    /// Tokens of requests without a price.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unpriced_tokens: Option<u64>,
}

/// The session a session-report row is about.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionInfo {
    /// Provider.
    pub provider: String,
    /// Session id.
    pub id: String,
    /// Title.
    pub title: Option<String>,
    /// Working directory.
    pub project: Option<String>,
    /// Kind.
    pub kind: String,
    /// Parent id (split rows of subagents).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Sessions folded into this row besides the session itself (subagents).
    pub folded: usize,
    /// Last request.
    pub last_activity: Option<Timestamp>,
}

/// One row of a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UsageRow {
    /// The day, week start, month, session uri or block start.
    pub key: String,
    /// Session report: the session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionInfo>,
    /// Blocks report: the block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<blocks::Span>,
    /// Blocks report, active block: burn rate and projection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burn: Option<Burn>,
    /// Model requests.
    pub requests: usize,
    /// Tokens.
    pub tokens: Tokens,
    /// USD of the priced requests; `null` when none was priced.
    pub cost_usd: Option<f64>,
    /// Models without a price and their tokens (not in `cost_usd`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unpriced: Vec<Unpriced>,
    /// The breakdown (by the report's `by`).
    pub breakdown: Vec<Part>,
}

/// Which price table answered.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PriceSource {
    /// LiteLLM version of the embedded snapshot.
    pub litellm: String,
    /// Day of the snapshot.
    pub date: String,
    /// Custom prices from the config file.
    pub custom: usize,
}

/// A usage report: the JSON of `scry usage --json`, `/v1/usage` and MCP's `usage`.
#[derive(Debug, Clone, Serialize)]
pub struct UsageReport {
    /// `daily`, `weekly`, `monthly`, `session` or `blocks`.
    pub report: Period,
    /// The breakdown dimension.
    pub by: By,
    /// Time zone of days and months.
    pub timezone: String,
    /// Session report: `folded` (subagents inside their session's row, as ccusage) or `split`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagents: Option<&'static str>,
    /// Prices used.
    pub prices: PriceSource,
    /// Rows, oldest first.
    pub rows: Vec<UsageRow>,
    /// Every row summed.
    pub totals: UsageRow,
    /// Sources that could not be read.
    pub warnings: Vec<Warning>,
}

/// Sums of requests.
#[derive(Debug, Default, Clone)]
struct Acc {
    requests: usize,
    usage: TokenUsage,
    cw1h: u64,
    cost: f64,
    priced: bool,
    unpriced: BTreeMap<String, (TokenUsage, u64)>,
}

impl Acc {
    fn add(&mut self, r: &Request, c: Option<f64>) {
        self.requests += 1;
        self.usage += r.usage;
        self.cw1h += r.cache_write_1h;
        match c {
            Some(c) => {
                self.cost += c;
                self.priced = true;
            }
            None => {
                let e = self.unpriced.entry(r.model.clone()).or_default();
                e.0 += r.usage;
                e.1 += r.cache_write_1h;
            }
        }
    }

    fn cost_usd(&self) -> Option<f64> {
        (self.priced || self.requests == 0).then_some(self.cost)
    }

    fn part(&self, key: String) -> Part {
        let unpriced: u64 = self.unpriced.values().map(|(u, _)| u.total()).sum();
        Part {
            key,
            requests: self.requests,
            tokens: Tokens::of(&self.usage, self.cw1h),
            cost_usd: self.cost_usd(),
            unpriced_tokens: (!self.unpriced.is_empty()).then_some(unpriced),
        }
    }
}

/// A row being summed: its total and its breakdown.
#[derive(Debug, Default, Clone)]
struct RowAcc {
    all: Acc,
    parts: BTreeMap<String, Acc>,
}

impl RowAcc {
    fn add(&mut self, part: &str, r: &Request, c: Option<f64>) {
        self.all.add(r, c);
        if let Some(p) = self.parts.get_mut(part) {
            p.add(r, c);
        } else {
            let mut p = Acc::default();
            p.add(r, c);
            self.parts.insert(part.to_string(), p);
        }
    }

    fn row(&self, key: String) -> UsageRow {
        let a = &self.all;
        UsageRow {
            key,
            session: None,
            block: None,
            burn: None,
            requests: a.requests,
            tokens: Tokens::of(&a.usage, a.cw1h),
            cost_usd: a.cost_usd(),
            unpriced: a
                .unpriced
                .iter()
                .map(|(m, (u, h))| Unpriced {
                    model: m.clone(),
                    tokens: Tokens::of(u, *h),
                })
                .collect(),
            breakdown: self.parts.iter().map(|(k, p)| p.part(k.clone())).collect(),
        }
    }
}

/// Runs a usage report (issue 19): reads every session of the providers asked for, prices each
/// request and sums them into the report's rows.
pub fn usage(ctx: &Context, req: &UsageRequest, pricing: &Pricing) -> QueryResult<UsageReport> {
    usage_with(req, pricing, |providers, since| {
        collect_deferred(ctx, providers, since, None)
    })
}

/// [`usage`] over the sessions `read` gives for the providers asked (all when empty) that may
/// hold a request at or after `since` (this machine's, or a team store's: issue 22).
pub fn usage_from(
    req: &UsageRequest,
    pricing: &Pricing,
    read: impl FnOnce(
        &[scry_model::ProviderId],
        Option<Timestamp>,
    ) -> QueryResult<(Vec<SessionUsage>, Vec<Warning>)>,
) -> QueryResult<UsageReport> {
    usage_with(req, pricing, |providers, since| {
        read(providers, since).map(|(s, w)| (s, w, Ledger::held()))
    })
}

/// [`usage_from`] with a [`Ledger`] that reads deferred sessions' requests.
fn usage_with(
    req: &UsageRequest,
    pricing: &Pricing,
    read: impl FnOnce(
        &[scry_model::ProviderId],
        Option<Timestamp>,
    ) -> QueryResult<(Vec<SessionUsage>, Vec<Warning>, Ledger)>,
) -> QueryResult<UsageReport> {
    let tz = match &req.timezone {
        Some(name) => TimeZone::get(name).map_err(|_| {
            bad(
                ErrorCode::InvalidFilter,
                format!(
                    "invalid --timezone '{name}': use an IANA name such as Europe/Paris or UTC"
                ),
            )
        })?,
        None => TimeZone::system(),
    };
    let now = pricing.now.unwrap_or_else(Timestamp::now);
    let since = req
        .since
        .as_deref()
        .map(|v| bound(v, "--since", &tz, now, false))
        .transpose()?;
    let until = req
        .until
        .as_deref()
        .map(|v| bound(v, "--until", &tz, now, true))
        .transpose()?;
    let providers = crate::filter::providers(req.provider.as_deref())?;
    let table = PriceTable::with_custom(&pricing.prices);
    let (sessions, warnings, ledger) = read(&providers, since)?;
    Ok(build(
        req, &table, &tz, now, since, until, &sessions, &ledger, warnings,
    ))
}

/// [`usage`] over sessions already read; `ledger` reads the requests of deferred sessions, one
/// session at a time in the summing order (the others hold theirs).
#[allow(clippy::too_many_arguments)]
pub(crate) fn build(
    req: &UsageRequest,
    table: &PriceTable,
    tz: &TimeZone,
    now: Timestamp,
    since: Option<Timestamp>,
    until: Option<Timestamp>,
    sessions: &[SessionUsage],
    ledger: &Ledger,
    mut warnings: Vec<Warning>,
) -> UsageReport {
    let mut requests_of = |s| match ledger.requests(s) {
        Ok(r) => r,
        Err(w) => {
            warnings.push(w);
            std::borrow::Cow::Owned(Vec::new())
        }
    };
    let mut prices: HashMap<String, Option<Price>> = HashMap::new();
    let mut price_of = |r: &Request| -> Option<f64> {
        let p = prices
            .entry(r.model.clone())
            .or_insert_with(|| table.lookup(&r.model).map(|p| p.price));
        p.as_ref().map(|p| cost(p, &r.usage, r.cache_write_1h))
    };
    let machine = machine_name();
    let in_window = |r: &Request| match r.time {
        Some(t) => since.is_none_or(|s| t >= s) && until.is_none_or(|u| t < u),
        None => since.is_none() && until.is_none(),
    };
    let part_of = |s: &SessionUsage, r: &Request| -> String {
        match req.by.unwrap_or_default() {
            By::Model => r.model.clone(),
            By::Provider => s.provider.to_string(),
            By::Project => s.cwd.clone().unwrap_or_else(|| "unknown".into()),
            By::Machine => s.machine.clone().unwrap_or_else(|| machine.clone()),
        }
    };
    // One summing order whichever catalog or store gave the sessions (float addition is not
    // associative: a team store's report must equal the local one to the last digit).
    let mut ordered: Vec<&SessionUsage> = sessions.iter().collect();
    ordered.sort_by(|a, b| (&a.uri, &a.machine).cmp(&(&b.uri, &b.machine)));
    let mut totals = RowAcc::default();
    let mut rows: Vec<UsageRow> = Vec::new();
    match req.period {
        Period::Daily | Period::Weekly | Period::Monthly => {
            let mut by_key: BTreeMap<(bool, String), RowAcc> = BTreeMap::new();
            for s in ordered.iter().copied() {
                for r in requests_of(s).iter().filter(|r| in_window(r)) {
                    let key = match r.time {
                        Some(t) => (false, period_key(req.period, t, tz)),
                        None => (true, "unknown".to_string()),
                    };
                    let c = price_of(r);
                    let part = part_of(s, r);
                    by_key.entry(key).or_default().add(&part, r, c);
                    totals.add(&part, r, c);
                }
            }
            rows = by_key.into_iter().map(|((_, k), a)| a.row(k)).collect();
        }
        Period::Session => {
            let by_uri: HashMap<&str, &SessionUsage> =
                sessions.iter().map(|s| (s.uri.as_str(), s)).collect();
            let mut by_key: BTreeMap<&str, (RowAcc, BTreeSet<&str>, Option<Timestamp>)> =
                BTreeMap::new();
            for s in ordered.iter().copied() {
                let key = if req.split {
                    s.uri.as_str()
                } else {
                    s.root.as_str()
                };
                for r in requests_of(s).iter().filter(|r| in_window(r)) {
                    let c = price_of(r);
                    let part = part_of(s, r);
                    let e = by_key.entry(key).or_default();
                    e.0.add(&part, r, c);
                    e.1.insert(s.uri.as_str());
                    e.2 = e.2.max(r.time);
                    totals.add(&part, r, c);
                }
            }
            let mut keyed: Vec<(Option<Timestamp>, UsageRow)> = by_key
                .into_iter()
                .map(|(key, (acc, members, last))| {
                    let mut row = acc.row(key.to_string());
                    if let Some(s) = by_uri.get(key) {
                        row.session = Some(SessionInfo {
                            provider: s.provider.to_string(),
                            id: s.id.clone(),
                            title: s.title.clone(),
                            project: s.cwd.clone(),
                            kind: s.kind.as_str().to_string(),
                            parent: req.split.then(|| s.parent.clone()).flatten(),
                            folded: members.iter().filter(|m| **m != key).count(),
                            last_activity: last,
                        });
                    }
                    (last, row)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.key.cmp(&b.1.key)));
            rows = keyed.into_iter().map(|(_, r)| r).collect();
        }
        Period::Blocks => {
            let mut timed: Vec<(Timestamp, &SessionUsage, Request)> = Vec::new();
            for s in ordered.iter().copied() {
                let requests = requests_of(s);
                timed.extend(
                    requests
                        .iter()
                        .filter(|r| in_window(r))
                        .filter_map(|r| r.time.map(|t| (t, s, r.clone()))),
                );
            }
            timed.sort_by_key(|(t, _, _)| *t);
            let times: Vec<Timestamp> = timed.iter().map(|(t, _, _)| *t).collect();
            for span in blocks::spans(&times, now) {
                let mut acc = RowAcc::default();
                for (_, s, r) in &timed[span.from..span.to] {
                    let c = price_of(r);
                    let part = part_of(s, r);
                    acc.add(&part, r, c);
                    totals.add(&part, r, c);
                }
                let mut row = acc.row(span.start.to_string());
                if span.active {
                    row.burn = Some(blocks::burn(
                        &span,
                        row.tokens.total,
                        row.cost_usd.unwrap_or(0.0),
                        now,
                    ));
                }
                row.block = Some(span);
                rows.push(row);
            }
        }
    }
    UsageReport {
        report: req.period,
        by: req.by.unwrap_or_default(),
        timezone: tz.iana_name().unwrap_or("local").to_string(),
        subagents: (req.period == Period::Session).then_some(if req.split {
            "split"
        } else {
            "folded"
        }),
        prices: PriceSource {
            litellm: table.litellm.clone(),
            date: table.date.clone(),
            custom: table.custom_given,
        },
        rows,
        totals: totals.row("total".to_string()),
        warnings,
    }
}

/// The period key of `t`: `2026-12-01`, the week's Sunday, or `2026-12`.
pub fn period_key(period: Period, t: Timestamp, tz: &TimeZone) -> String {
    let date = t.to_zoned(tz.clone()).date();
    match period {
        Period::Weekly => {
            let back = date.weekday().to_sunday_zero_offset();
            date.checked_sub(i64::from(back).days())
                .unwrap_or(date)
                .to_string()
        }
        Period::Monthly => format!("{:04}-{:02}", date.year(), date.month()),
        _ => date.to_string(),
    }
}

/// A `--since` / `--until` value: a date (`2026-12-01` or `20261201`; the start of that day,
/// or for `--until` the start of the next), a duration back from now (`7d`), or a time.
fn bound(
    value: &str,
    flag: &str,
    tz: &TimeZone,
    now: Timestamp,
    end: bool,
) -> QueryResult<Timestamp> {
    let v = value.trim();
    let compact = (v.len() == 8 && v.bytes().all(|b| b.is_ascii_digit()))
        .then(|| format!("{}-{}-{}", &v[..4], &v[4..6], &v[6..]));
    let date_text = compact.as_deref().unwrap_or(v);
    if let Ok(date) = date_text.parse::<jiff::civil::Date>() {
        let day = if end {
            date.checked_add(1.day()).ok()
        } else {
            Some(date)
        };
        if let Some(z) = day.and_then(|d| d.to_zoned(tz.clone()).ok()) {
            return Ok(z.timestamp());
        }
    }
    crate::filter::since(v, now).map_err(|_| {
        bad(
            ErrorCode::InvalidWindow,
            format!(
                "invalid {flag} '{value}': use a date like 2026-12-01 or 20261201, a duration like 7d, or an ISO time"
            ),
        )
    })
}

/// This host's name (`--by machine`: scry reads the histories of one home).
fn machine_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
}
