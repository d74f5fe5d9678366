//! `scry turn <id> <n|a-b>` (S-C4, "layer 3"): the visible dialogue of one or more turns with a
//! directory of their tool calls; `--event` / `--locator` / `--call` read events in full,
//! `--raw` prints the original records, `--artifact` an artifact file. Output is paged to
//! `--max-chars` with a cursor that is refused once the source changed.

use std::collections::BTreeMap;
use std::path::Path;

use clap::Args;
use scry_model::{ErrorCode, Header};
use scry_source::file_stat;
use serde_json::json;

use super::Output;
use crate::app::Ctx;
use crate::error::{CliError, CliResult};
use crate::page::{self, Cursor, Group, Pos, Unit};
use crate::render::Style;
use crate::selection;
use crate::session_read::{self, Opened};
use crate::turn_build::{self, Keep, Want};
use crate::turn_render::{self, PageView};

/// Arguments of `scry turn`.
#[derive(Debug, Args)]
pub struct TurnArgs {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// Turn number or range (`3`, `2-4`; 0 is the preamble)
    #[arg(required_unless_present_any = ["event", "locator", "call", "artifact"])]
    pub turns: Option<String>,
    /// Read events in full by number: `7`, `5-9`, `3,8,12` (at most 50)
    #[arg(long, value_name = "K|A-B|A,B,C", conflicts_with_all = ["turns", "locator", "call", "artifact"])]
    pub event: Option<String>,
    /// Read the event(s) with this locator
    #[arg(long, value_name = "L", conflicts_with_all = ["turns", "call", "artifact"])]
    pub locator: Option<String>,
    /// Read the tool call and result with this call id
    #[arg(long, value_name = "ID", conflicts_with_all = ["turns", "artifact"])]
    pub call: Option<String>,
    /// Print an artifact file the session lists
    #[arg(long, value_name = "PATH", conflicts_with_all = ["turns", "raw"])]
    pub artifact: Option<String>,
    /// Print the original source records instead of the normalized text
    #[arg(long)]
    pub raw: bool,
    /// Page size in characters
    #[arg(long, default_value_t = 32_000)]
    pub max_chars: usize,
    /// Continue where a previous page stopped
    #[arg(long, value_name = "C")]
    pub cursor: Option<String>,
}

impl TurnArgs {
    /// A hash of what is selected (not the page size or output format).
    fn selection_key(&self) -> u64 {
        let key = format!(
            "{:?}|{:?}|{:?}|{:?}|{:?}|{}",
            self.turns, self.event, self.locator, self.call, self.artifact, self.raw
        );
        xxhash_rust::xxh3::xxh3_64(key.as_bytes())
    }
}

/// Runs `scry turn`.
pub fn run(ctx: &Ctx, args: &TurnArgs) -> CliResult<Output> {
    if args.max_chars == 0 {
        return Err(CliError::usage(
            ErrorCode::InvalidPageSize,
            "--max-chars must be at least 1",
        ));
    }
    let want = want(args)?;
    let cursor = args.cursor.as_deref().map(Cursor::decode).transpose()?;
    let opened = session_read::open(ctx, &args.id)?;
    let fingerprint = fingerprint(&opened.file.path);
    let uri = format!("{}:{}", opened.file.provider, opened.file.id);
    let selection = args.selection_key();
    let start = match &cursor {
        Some(c) => c.check(&uri, fingerprint, selection)?,
        None => Pos::default(),
    };

    let (header, units, infos, warnings, extra) = match (&args.artifact, want) {
        (Some(path), _) => {
            let (header, unit, extra) = artifact(&opened, path)?;
            (header, vec![unit], BTreeMap::new(), Vec::new(), Some(extra))
        }
        (None, Some(want)) => {
            let (header, units, infos, warnings) = events(&opened, want, args.raw)?;
            (header, units, infos, warnings, None)
        }
        (None, None) => {
            return Err(CliError::usage(
                ErrorCode::InvalidQuery,
                "give a turn number, --event, --locator, --call or --artifact",
            ))
        }
    };
    let (slices, next) = page::page(&units, start, args.max_chars);
    let next = next.map(|p| {
        Cursor {
            session: page::session_hash(&uri),
            source: fingerprint,
            selection,
            pos: p,
        }
        .encode()
    });
    let view = PageView {
        header: &header,
        units: &units,
        slices: &slices,
        infos: &infos,
        next,
        warnings: &warnings,
        max_chars: args.max_chars,
        headings: args.artifact.is_none(),
        extra,
    };
    if ctx.json {
        return Ok(super::json_out(&turn_render::json(&view)).into());
    }
    Ok(turn_render::text(&view, Style::new(ctx.color)))
}

/// The source fingerprint a cursor binds: size and mtime of the primary source, and of its
/// SQLite write-ahead log when there is one (a WAL-mode store changes there first).
fn fingerprint(path: &Path) -> u64 {
    let (size, mtime) = file_stat(path);
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let (wal_size, wal_mtime) = file_stat(Path::new(&wal));
    page::source_hash(
        size ^ wal_size.rotate_left(32),
        mtime ^ wal_mtime.rotate_left(17),
    )
}

fn want(args: &TurnArgs) -> CliResult<Option<Want>> {
    Ok(if let Some(e) = &args.event {
        Some(Want::Events(selection::parse_events(e)?))
    } else if let Some(l) = &args.locator {
        Some(Want::Locator(l.trim().to_string()))
    } else if let Some(c) = &args.call {
        Some(Want::Call(c.trim().to_string()))
    } else if let Some(t) = &args.turns {
        Some(Want::Turns(selection::parse_turns(t)?))
    } else {
        None
    })
}

type Built = (
    Header,
    Vec<Unit>,
    BTreeMap<u32, turn_build::TurnInfo>,
    Vec<scry_model::Warning>,
);

fn events(opened: &Opened, want: Want, raw: bool) -> CliResult<Built> {
    let mut keep = Keep::new(want.clone());
    let header = opened.stream(&mut keep)?;
    let uri = &header.uri;
    let mut kept = std::mem::take(&mut keep.events);
    match &want {
        Want::Turns(span) => {
            let clipped = selection::clip_turns(*span, keep.max_turn, keep.has_preamble)?;
            kept.retain(|e| clipped.contains(e.turn));
        }
        Want::Events(spans) => {
            let seqs = selection::clip_events(spans, keep.total)?;
            kept.retain(|e| seqs.binary_search(&e.seq).is_ok());
        }
        Want::Locator(l) if kept.is_empty() => {
            return Err(CliError::new(
                ErrorCode::StaleLocator,
                format!(
                    "locator '{l}' matches no event of {uri}: the record was rewritten or the locator is wrong"
                ),
            ));
        }
        Want::Call(id) if kept.is_empty() => {
            return Err(CliError::new(
                ErrorCode::EventNotFound,
                format!("no tool call or result with call id '{id}' in {uri}"),
            ));
        }
        _ => {}
    }
    let infos = match want {
        Want::Turns(_) => turn_build::turn_infos(&kept),
        _ => BTreeMap::new(),
    };
    let units = if raw {
        turn_build::raw_units(&header, &kept)
    } else if matches!(want, Want::Turns(_)) {
        turn_build::dialogue_units(&kept)
    } else {
        turn_build::full_units(&kept)
    };
    Ok((header, units, infos, keep.warnings))
}

fn artifact(
    opened: &Opened,
    wanted: &str,
) -> CliResult<(Header, Unit, (&'static str, serde_json::Value))> {
    let source = opened.catalog.source(opened.file.provider)?;
    let header = source
        .scan_header(&opened.file)
        .map_err(|e| CliError::new(ErrorCode::CorruptSession, e.to_string()))?;
    let matches: Vec<&String> = header
        .artifacts
        .iter()
        .filter(|a| {
            a.as_str() == wanted
                || a.ends_with(&format!("/{wanted}"))
                || Path::new(a).file_name().is_some_and(|n| n == wanted)
        })
        .collect();
    // Several matches (a recorded path and the file on this disk, say): keep those that exist.
    let resolve = |a: &str| match Path::new(a) {
        p if p.is_absolute() => p.to_path_buf(),
        p => opened
            .file
            .path
            .parent()
            .map(|d| d.join(p))
            .unwrap_or_else(|| p.to_path_buf()),
    };
    let matches = if matches.len() > 1 {
        let existing: Vec<&String> = matches
            .iter()
            .copied()
            .filter(|a| resolve(a).is_file())
            .collect();
        if existing.is_empty() {
            matches
        } else {
            existing
        }
    } else {
        matches
    };
    let path = match matches.as_slice() {
        [one] => (*one).clone(),
        [] => {
            let known = if header.artifacts.is_empty() {
                "the session lists no artifacts".to_string()
            } else {
                format!("artifacts: {}", header.artifacts.join(", "))
            };
            return Err(CliError::new(
                ErrorCode::EventNotFound,
                format!("no artifact '{wanted}' in {} ({known})", header.uri),
            ));
        }
        many => {
            return Err(CliError::Failed(crate::error::Failure {
                code: ErrorCode::AmbiguousId,
                message: format!(
                    "artifact '{wanted}' is ambiguous: {}",
                    many.iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                candidates: many.iter().map(|s| s.to_string()).collect(),
                exit: 3,
            }))
        }
    };
    let full = resolve(&path);
    let bytes = std::fs::read(&full).map_err(|e| {
        CliError::new(
            ErrorCode::CorruptSession,
            format!("cannot read artifact {}: {e}", full.display()),
        )
    })?;
    let unit = Unit {
        turn: 0,
        group: Group::Events,
        head: format!("artifact {}", full.display()),
        body: String::from_utf8_lossy(&bytes).into_owned(),
        json: json!({ "path": full }),
    };
    let extra = ("artifact", json!({ "path": full, "bytes": bytes.len() }));
    Ok((header, unit, extra))
}
