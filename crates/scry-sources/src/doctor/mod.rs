//! `scry doctor`: the health of every source (SPEC §1). Per provider: the roots searched (and the
//! environment variable that chose each), files found and excluded, parsed and failed (with each
//! error), warnings by kind, unknown record types with counts, the slowest file, total bytes.
//!
//! One broken source never stops the others: every file is parsed on its own, a parse error is
//! recorded against that file, and a panic inside a provider (discovery, header scan or parse) is
//! caught with [`std::panic::catch_unwind`] and recorded as a failure — a panic is still a bug
//! in scry, and the report says so ([`DoctorReport::panics`] lets the binary exit non-zero).
//! Catching relies on unwinding: a build with `panic = "abort"` would lose this isolation.
//!
//! Sessions are parsed with [`Source::parse_into`] into a counting sink, so no session is held
//! in memory. Exclusions ([`Exclusions`]) are applied before any file is opened.

mod render;
mod unknown;

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use scry_model::{Event, ProviderId, Warning, WarningKind};
use scry_source::guard::{self, Failure};
use scry_source::{Env, EventSink, Source, SourceFile};
use serde::Serialize;

use crate::exclude::{Excluded, Exclusions, ExclusionsSummary};

pub use render::render_text;
pub use unknown::parse_unknown_record;

/// Most discovery warnings kept per provider (the total is always counted).
const MAX_DISCOVERY_WARNINGS: usize = 50;

/// Most non-UTF-8 source paths kept per provider (all are counted).
const MAX_NON_UTF8: usize = 20;

/// Most threads parsing one provider's sources at once.
const MAX_WORKERS: usize = 4;

/// The health of every source, as `scry doctor` shows it (text via [`render_text`], `--json`
/// via serde).
#[derive(Debug, Clone, Serialize)]
pub struct DoctorReport {
    /// The home directory checked (the text form writes paths under it as `~/…`).
    #[serde(serialize_with = "scry_model::lossy::path")]
    pub home: PathBuf,
    /// Where the config file is looked for.
    #[serde(serialize_with = "scry_model::lossy::path")]
    pub config_path: PathBuf,
    /// What was excluded (and the config file it came from, if one was read).
    pub exclusions: ExclusionsSummary,
    /// Exclusions that left nothing out (a typo in a glob or project path shows here).
    pub unmatched_exclusions: Vec<Excluded>,
    /// One entry per registered provider, in registry order.
    pub providers: Vec<ProviderHealth>,
    /// Sums over all providers.
    pub totals: Totals,
}

/// Sums over every provider.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Totals {
    /// Session sources discovered.
    pub files_found: usize,
    /// Of those, left out by exclusions.
    pub excluded: usize,
    /// Parsed without error.
    pub parsed: usize,
    /// Failed (errors and panics).
    pub failed: usize,
    /// Of the failures, panics (bugs in scry).
    pub panics: usize,
    /// Warnings raised while parsing.
    pub warnings: u64,
    /// Bytes of the distinct primary files parsed.
    pub bytes: u64,
    /// Wall time of the whole check, in milliseconds.
    pub elapsed_ms: f64,
}

/// One provider's health.
#[derive(Debug, Clone, Serialize)]
pub struct ProviderHealth {
    /// The provider id.
    pub provider: ProviderId,
    /// The agent's name.
    pub name: &'static str,
    /// The whole provider is excluded: nothing was searched or opened.
    pub excluded: bool,
    /// Roots searched, existing or not, with the environment variable that chose each.
    pub roots: Vec<RootHealth>,
    /// Discovery itself panicked (a bug); no files could be listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discovery_panic: Option<String>,
    /// Problems met while walking the roots (at most 50 kept).
    pub discovery_warnings: Vec<Warning>,
    /// How many discovery warnings there were in all.
    pub discovery_warnings_total: usize,
    /// Session sources discovered.
    pub files_found: usize,
    /// Discovered sources whose path is not valid UTF-8 (at most 20 kept, shown lossily):
    /// read and indexed like the others, but displayed (and keyed in the index) with U+FFFD.
    #[serde(serialize_with = "scry_model::lossy::paths")]
    pub non_utf8_paths: Vec<PathBuf>,
    /// How many discovered sources have a path that is not valid UTF-8.
    pub non_utf8_paths_total: usize,
    /// Sources left out, by reason.
    pub excluded_files: Vec<ExcludedFiles>,
    /// Sources parsed without error.
    pub parsed: usize,
    /// Sources that failed, each with its error.
    pub failed: Vec<FailedFile>,
    /// Events produced by the parsed sources.
    pub events: u64,
    /// Bytes of the distinct primary files parsed (a database shared by several sessions counts
    /// once).
    pub bytes: u64,
    /// Parse warnings by kind, most frequent first, each with its first occurrence.
    pub warnings: Vec<WarningCount>,
    /// Unknown record types, most frequent first (from `UnknownRecord` warnings).
    pub unknown_records: Vec<UnknownRecordCount>,
    /// The source that took longest to parse.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slowest: Option<FileTime>,
    /// Wall time spent on this provider, in milliseconds.
    pub elapsed_ms: f64,
}

/// A root directory (or database) a provider searched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RootHealth {
    /// The path.
    #[serde(serialize_with = "scry_model::lossy::path")]
    pub path: PathBuf,
    /// The environment variable that chose it (`CLAUDE_CONFIG_DIR`, …); `None` = the default.
    pub env_var: Option<String>,
    /// Whether it exists.
    pub exists: bool,
}

/// How many sources one exclusion left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExcludedFiles {
    /// The exclusion.
    pub reason: Excluded,
    /// Sources it left out.
    pub files: usize,
}

/// A source that could not be parsed.
#[derive(Debug, Clone, Serialize)]
pub struct FailedFile {
    /// The primary file (or database).
    #[serde(serialize_with = "scry_model::lossy::path")]
    pub path: PathBuf,
    /// The session key inside a multi-session store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The error, or the panic message.
    pub error: String,
    /// The provider panicked: a bug in scry.
    pub panicked: bool,
}

/// Warnings of one kind.
#[derive(Debug, Clone, Serialize)]
pub struct WarningCount {
    /// The kind.
    pub kind: WarningKind,
    /// How many.
    pub count: u64,
    /// The first one met.
    pub first: Warning,
}

/// One unknown record type over all of a provider's sources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnknownRecordCount {
    /// The record type as the provider named it; `None` when its message did not follow the
    /// convention (see [`parse_unknown_record`]) — then `message` holds it.
    pub record_type: Option<String>,
    /// Records of that type (1 per warning when the message gave no count).
    pub count: u64,
    /// Sources it occurred in.
    pub files: usize,
    /// The raw warning message, when the type could not be read from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// How long one source took.
#[derive(Debug, Clone, Serialize)]
pub struct FileTime {
    /// The primary file.
    #[serde(serialize_with = "scry_model::lossy::path")]
    pub path: PathBuf,
    /// The session key inside a multi-session store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Milliseconds.
    pub ms: f64,
    /// Size of the primary file.
    pub bytes: u64,
}

impl DoctorReport {
    /// Failures that were panics — bugs in scry the binary should not hide.
    pub fn panics(&self) -> usize {
        self.totals.panics
    }

    /// Whether every source that was not excluded parsed without error or panic.
    pub fn all_parsed(&self) -> bool {
        self.totals.failed == 0 && self.providers.iter().all(|p| p.discovery_panic.is_none())
    }
}

/// Checks every provider in `sources` under `env`, leaving out what `exclusions` names.
pub fn doctor(env: &Env, sources: &[Box<dyn Source>], exclusions: &Exclusions) -> DoctorReport {
    let start = Instant::now();
    let providers: Vec<ProviderHealth> = sources
        .iter()
        .map(|s| provider_health(env, s.as_ref(), exclusions))
        .collect();
    let mut totals = Totals::default();
    for p in &providers {
        totals.files_found += p.files_found;
        totals.excluded += p.excluded_files.iter().map(|e| e.files).sum::<usize>();
        totals.parsed += p.parsed;
        totals.failed += p.failed.len();
        totals.panics += p.failed.iter().filter(|f| f.panicked).count()
            + usize::from(p.discovery_panic.is_some());
        totals.warnings += p.warnings.iter().map(|w| w.count).sum::<u64>();
        totals.bytes += p.bytes;
    }
    totals.elapsed_ms = ms(start);
    let summary = exclusions.summary();
    DoctorReport {
        home: env.home().to_path_buf(),
        config_path: crate::config::config_path(env),
        unmatched_exclusions: unmatched(&summary, &providers),
        exclusions: summary,
        providers,
        totals,
    }
}

fn provider_health(env: &Env, source: &dyn Source, ex: &Exclusions) -> ProviderHealth {
    let start = Instant::now();
    let id = source.id();
    let mut h = ProviderHealth {
        provider: id,
        name: id.display_name(),
        excluded: ex.excludes_provider(id),
        roots: Vec::new(),
        discovery_panic: None,
        discovery_warnings: Vec::new(),
        discovery_warnings_total: 0,
        files_found: 0,
        non_utf8_paths: Vec::new(),
        non_utf8_paths_total: 0,
        excluded_files: Vec::new(),
        parsed: 0,
        failed: Vec::new(),
        events: 0,
        bytes: 0,
        warnings: Vec::new(),
        unknown_records: Vec::new(),
        slowest: None,
        elapsed_ms: 0.0,
    };
    if h.excluded {
        return h;
    }
    let discovery = match guard::catch(|| source.discover(env)) {
        Ok(d) => d,
        Err(text) => {
            h.roots = guard::catch(|| roots(source, env)).unwrap_or_default();
            h.discovery_panic = Some(panicked(&text));
            h.elapsed_ms = ms(start);
            return h;
        }
    };
    h.roots = discovery
        .roots
        .iter()
        .map(|r| RootHealth {
            path: r.path.clone(),
            env_var: r.env_var.clone(),
            exists: r.exists,
        })
        .collect();
    h.discovery_warnings_total = discovery.warnings.len();
    h.discovery_warnings = discovery
        .warnings
        .into_iter()
        .take(MAX_DISCOVERY_WARNINGS)
        .collect();
    h.files_found = discovery.files.len();
    let odd: Vec<&PathBuf> = discovery
        .files
        .iter()
        .map(|f| &f.path)
        .filter(|p| p.to_str().is_none())
        .collect();
    h.non_utf8_paths_total = odd.len();
    h.non_utf8_paths = odd.into_iter().take(MAX_NON_UTF8).cloned().collect();
    let (kept, excluded) = ex.partition(discovery.files);
    for (_, why) in excluded {
        note_excluded(&mut h.excluded_files, why);
    }

    let mut tally = Tally::default();
    let mut seen_paths: HashSet<PathBuf> = HashSet::new();
    let checks = in_parallel(&kept, |file| check_file(source, file, ex));
    for (file, check) in kept.iter().zip(checks) {
        let (outcome, elapsed) = match check {
            FileCheck::Excluded(why) => {
                note_excluded(&mut h.excluded_files, why);
                continue;
            }
            FileCheck::Parsed {
                outcome,
                events,
                tally: t,
                ms,
            } => {
                h.events += events;
                tally.merge(t);
                (outcome, ms)
            }
        };
        match outcome {
            Ok(()) => h.parsed += 1,
            Err((error, panicked)) => h.failed.push(failed(file, error, panicked)),
        }
        if seen_paths.insert(file.path.clone()) {
            h.bytes += file.size;
        }
        if h.slowest.as_ref().is_none_or(|s| elapsed > s.ms) {
            h.slowest = Some(FileTime {
                path: file.path.clone(),
                key: file.key.clone(),
                ms: elapsed,
                bytes: file.size,
            });
        }
    }
    h.warnings = tally.warnings_by_kind();
    h.unknown_records = tally.unknown_records();
    h.elapsed_ms = ms(start);
    h
}

/// What checking one kept source gave.
enum FileCheck {
    /// Left out after its header scan (project exclusion).
    Excluded(Excluded),
    /// Parsed (or tried to).
    Parsed {
        /// `Err((message, panicked))` when it failed.
        outcome: Result<(), (String, bool)>,
        /// Events produced (also by a parse that failed later).
        events: u64,
        /// Its warnings.
        tally: Tally,
        /// Wall time of the parse.
        ms: f64,
    },
}

/// Parses one source into a counting sink, errors and panics caught.
fn check_file(source: &dyn Source, file: &SourceFile, ex: &Exclusions) -> FileCheck {
    if let Some(project) = project_after_header(source, file, ex) {
        return FileCheck::Excluded(project);
    }
    let t0 = Instant::now();
    let mut tally = Tally::default();
    let mut sink = CountingSink::new(&mut tally);
    let outcome = match guard::parse(source, file, &mut sink) {
        Ok(_) => Ok(()),
        Err(Failure::Source(e)) => Err((e.to_string(), false)),
        Err(Failure::Panic(text)) => Err((panicked(&text), true)),
    };
    let events = sink.events;
    FileCheck::Parsed {
        outcome,
        events,
        tally,
        ms: ms(t0),
    }
}

/// `f` over `items` on up to [`MAX_WORKERS`] threads (the machine's parallelism), results in
/// `items` order so the report does not depend on scheduling.
fn in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_WORKERS)
        .min(items.len());
    if workers <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        mine.push((i, f(item)));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            // `f` catches the providers' panics itself; anything else is doctor's own bug.
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// The exclusions no source was left out by.
fn unmatched(summary: &ExclusionsSummary, providers: &[ProviderHealth]) -> Vec<Excluded> {
    let used: Vec<&Excluded> = providers
        .iter()
        .flat_map(|p| p.excluded_files.iter().map(|e| &e.reason))
        .collect();
    let mut out = Vec::new();
    for id in &summary.providers {
        if !providers.iter().any(|p| p.provider == *id && p.excluded) {
            out.push(Excluded::Provider(*id));
        }
    }
    let candidates = summary
        .paths
        .iter()
        .map(|g| Excluded::Path(g.clone()))
        .chain(
            summary
                .projects
                .iter()
                .map(|p| Excluded::Project(p.clone())),
        );
    for e in candidates {
        if !used.contains(&&e) {
            out.push(e);
        }
    }
    out
}

/// Roots without discovery (used when discovery panicked).
fn roots(source: &dyn Source, env: &Env) -> Vec<RootHealth> {
    source
        .roots(env)
        .into_iter()
        .map(|r| RootHealth {
            path: r.path,
            env_var: r.env_var,
            exists: r.exists,
        })
        .collect()
}

/// For a file whose cwd discovery did not know, the excluded project its header names (the
/// bounded header scan opens the file; see [`crate::exclude`]). A scan that fails or panics
/// excludes nothing: the full parse then reports the problem.
fn project_after_header(
    source: &dyn Source,
    file: &SourceFile,
    ex: &Exclusions,
) -> Option<Excluded> {
    if !ex.has_projects() || file.cwd_hint.is_some() {
        return None;
    }
    let header = guard::scan_header(source, file).ok()?;
    let project = ex.project_of(header.cwd.as_deref()?)?;
    Some(Excluded::Project(project.to_path_buf()))
}

fn note_excluded(list: &mut Vec<ExcludedFiles>, reason: Excluded) {
    match list.iter_mut().find(|e| e.reason == reason) {
        Some(e) => e.files += 1,
        None => list.push(ExcludedFiles { reason, files: 1 }),
    }
}

fn failed(file: &SourceFile, error: String, panicked: bool) -> FailedFile {
    FailedFile {
        path: file.path.clone(),
        key: file.key.clone(),
        error,
        panicked,
    }
}

fn panicked(text: &str) -> String {
    format!("panicked: {text}")
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// Warning and unknown-type counts: of one source, then merged over a provider's sources.
#[derive(Default)]
struct Tally {
    /// kind → (count, first).
    kinds: BTreeMap<WarningKind, (u64, Warning)>,
    /// (understood, type or raw message) → (records, sources).
    unknown: BTreeMap<(bool, String), (u64, usize)>,
}

impl Tally {
    /// One warning of one source.
    fn warning(&mut self, w: Warning) {
        if w.kind == WarningKind::UnknownRecord {
            let (key, count) = match parse_unknown_record(&w.message) {
                Some((ty, n)) => ((true, ty), n),
                None => ((false, w.message.clone()), 1),
            };
            let e = self.unknown.entry(key).or_insert((0, 1));
            e.0 += count;
        }
        self.kinds
            .entry(w.kind)
            .and_modify(|(n, _)| *n += 1)
            .or_insert((1, w));
    }

    /// Adds a later source's tally (the first warning of each kind stays the earliest).
    fn merge(&mut self, other: Tally) {
        for (kind, (n, first)) in other.kinds {
            self.kinds
                .entry(kind)
                .and_modify(|(m, _)| *m += n)
                .or_insert((n, first));
        }
        for (key, (n, files)) in other.unknown {
            let e = self.unknown.entry(key).or_insert((0, 0));
            e.0 += n;
            e.1 += files;
        }
    }

    fn warnings_by_kind(&self) -> Vec<WarningCount> {
        let mut v: Vec<WarningCount> = self
            .kinds
            .iter()
            .map(|(k, (n, first))| WarningCount {
                kind: *k,
                count: *n,
                first: first.clone(),
            })
            .collect();
        v.sort_by(|a, b| b.count.cmp(&a.count).then(a.kind.cmp(&b.kind)));
        v
    }

    fn unknown_records(&self) -> Vec<UnknownRecordCount> {
        let mut v: Vec<UnknownRecordCount> = self
            .unknown
            .iter()
            .map(|((understood, text), (count, files))| UnknownRecordCount {
                record_type: understood.then(|| text.clone()),
                count: *count,
                files: *files,
                message: (!understood).then(|| text.clone()),
            })
            .collect();
        v.sort_by_key(|u| std::cmp::Reverse(u.count));
        v
    }
}

/// Counts one session's events into `events` and its warnings into the provider's tally;
/// holds nothing else.
struct CountingSink<'a> {
    tally: &'a mut Tally,
    events: u64,
}

impl<'a> CountingSink<'a> {
    fn new(tally: &'a mut Tally) -> Self {
        CountingSink { tally, events: 0 }
    }
}

impl EventSink for CountingSink<'_> {
    fn event(&mut self, _event: Event) {
        self.events += 1;
    }
    fn warning(&mut self, warning: Warning) {
        self.tally.warning(warning);
    }
}
