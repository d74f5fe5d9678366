//! scry provider for Continue CLI (`cn`, `@continuedev/cli`) sessions.
//!
//! Checked against files written by Continue CLI 1.5.47 (the corpus's `real/home/.continue`).
//! The VS Code / JetBrains extensions write the same `history[]` shape into the same folder.
//!
//! Layout: `$CONTINUE_GLOBAL_DIR/sessions/` (default `~/.continue/sessions/`), one JSON document
//! per session, `<sessionId>.json`, **rewritten whole after every turn** (not append-only: a
//! grown session is re-parsed, never resumed), plus `sessions.json`, an index array of
//! `{sessionId, title, dateCreated (ms as a string), workspaceDirectory, messageCount}`.
//!
//! | record | event |
//! |---|---|
//! | top level `sessionId`, `workspaceDirectory`, `title` | header id, cwd; a title other than the placeholder `Untitled Session` (metadata) |
//! | `sessions.json` `dateCreated` | header `created`; the file's mtime is `updated` (no per-message times exist) |
//! | `history[i].message` role `user` | `user` (text parts joined; image parts counted in `data`) |
//! | role `assistant`, `content` | `assistant` (when not empty), carrying the item's `usage` and model |
//! | role `assistant`, `toolCalls[]` | `tool_call` per call (`function.name`, `arguments` decoded; the call id) |
//! | `history[i].toolCallStates[]` | `tool_result` per state (`output[].content` joined) — the CLI writes no `tool` messages |
//! | role `thinking` | `thinking` (the CLI drops reasoning text; only `reasoning_tokens` survive in usage) |
//! | role `tool` (older writers) | `tool_result` by `toolCallId` |
//! | role `system` | `meta` (`system`) |
//! | `conversationSummary` on an item (compaction) | `compaction` with the summary (no real sample) |
//! | other roles | `meta` (`unknown_role`) plus an `unknown_record` warning |
//!
//! Tool outcomes (`toolCallStates[].status`): `errored` → `is_error: true`, with the exit code
//! parsed from `Error (exit code N)` when the output carries it; `canceled` → `is_error: true`
//! (subtype `canceled`); `done` → `is_error: false` — except for shell tools (`Bash`), where the
//! CLI only raises when a command exits non-zero *and* wrote to stderr: `false` (exit 1, no
//! output) was stored as `done`. A `done` shell result therefore has no error flag (unknown),
//! never a claimed success. States still `generating` / `generated` / `calling` give no result.
//!
//! Usage (`message.usage`, the provider's raw object): OpenAI shape `prompt_tokens` (includes
//! `prompt_tokens_details.cached_tokens`), `completion_tokens` (includes
//! `completion_tokens_details.reasoning_tokens`); Anthropic shape `input_tokens`,
//! `cache_read_input_tokens`, `cache_creation_input_tokens`, `output_tokens`. The document's
//! top-level `usage` is the sum and is not counted again. Tokens are not read by ccusage for
//! Continue, so they are tested against the document's own totals.
//!
//! Not seen in a real file: subagents (`--beta-subagent-tool`), compaction records. Resume by
//! id does not exist (`cn --resume` takes the most recent session only).

mod map;

use std::path::{Path, PathBuf};

use scry_model::{Header, ProviderId, TitleSource};
use scry_source::json::str_of;
use scry_source::{entry_stat, time, Discovery, Emitter, Env, Root, Source, SourceError};
use scry_source::{jsonl, SourceFile};
use serde_json::Value;

/// The Continue CLI reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct ContinueSource;

/// The index file beside the session documents.
pub const INDEX: &str = "sessions.json";

/// The title Continue gives every session until one is generated.
const PLACEHOLDER_TITLE: &str = "Untitled Session";

impl Source for ContinueSource {
    fn id(&self) -> ProviderId {
        ProviderId::Continue
    }

    fn roots(&self, env: &Env) -> Vec<Root> {
        match env.var("CONTINUE_GLOBAL_DIR") {
            Some(dir) => vec![Root::new(
                PathBuf::from(dir).join("sessions"),
                Some("CONTINUE_GLOBAL_DIR"),
            )],
            None => vec![Root::new(env.home().join(".continue/sessions"), None)],
        }
    }

    fn discover(&self, env: &Env) -> Discovery {
        let mut out = Discovery {
            roots: self.roots(env),
            ..Discovery::default()
        };
        for root in out.roots.clone() {
            if !root.exists {
                continue;
            }
            let Some(entries) = scry_source::list_dir(&root.path, &mut out.warnings) else {
                continue;
            };
            let mut files: Vec<(PathBuf, (u64, i64))> = entries
                .filter_map(Result::ok)
                .filter_map(|e| {
                    let path = e.path();
                    let keep =
                        path.extension().is_some_and(|x| x == "json") && e.file_name() != INDEX;
                    keep.then(|| (path, entry_stat(&e)))
                })
                .collect();
            files.sort();
            let index = root.path.join(INDEX);
            for (path, stat) in files {
                let Some(id) = path.file_stem().and_then(|s| s.to_str()) else {
                    continue;
                };
                let mut f = SourceFile::with_stat(ProviderId::Continue, id, &path, stat);
                if index.is_file() {
                    f.related.push(index.clone());
                }
                out.files.push(f);
            }
        }
        out
    }

    fn detect(&self, path: &Path) -> Option<SourceFile> {
        if path.extension().is_none_or(|x| x != "json") {
            return None;
        }
        let head = jsonl::head(path, 4096)?;
        let text = String::from_utf8_lossy(&head);
        // A Continue document opens with its id and carries a `history` array; the keys come
        // in this order as the CLI writes them.
        let t = text.trim_start();
        if !t.starts_with('{') || !text.contains("\"sessionId\"") || !text.contains("\"history\"") {
            return None;
        }
        let doc: Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
        let id = str_of(&doc, "sessionId")?.to_string();
        doc.get("history")?.as_array()?;
        let mut f = SourceFile::new(ProviderId::Continue, id, path);
        if let Some(index) = path.parent().map(|d| d.join(INDEX)).filter(|p| p.is_file()) {
            f.related.push(index);
        }
        Some(f)
    }

    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        let bytes = std::fs::read(&file.path).map_err(|e| SourceError::io(&file.path, e))?;
        let doc = map::Doc::parse(&bytes, &file.path)?;
        let mut header = Header::new(ProviderId::Continue, doc.id.as_deref().unwrap_or(&file.id));
        header.sources = vec![file.path.clone()];
        header.cwd = doc.cwd.clone();
        if let Some(t) = doc.title.as_deref().filter(|t| is_real_title(t)) {
            header.title = Some(t.to_string());
            header.title_source = Some(TitleSource::Metadata);
            header.titles.push(t.to_string());
        }
        let mut mapper = map::Mapper::new(&file.path, &bytes);
        for item in &doc.history {
            mapper.item(item, out);
        }
        for w in mapper.finish() {
            out.warn(w);
        }
        // Times: the index's creation time, and the document's last rewrite.
        let index = file.related.iter().find(|p| p.ends_with(INDEX));
        if let Some(entry) = index.and_then(|p| index_entry(p, &header.id)) {
            if let Some(t) = entry.get("dateCreated").and_then(time::from_value) {
                header.touch(t);
            }
            if header.title.is_none() {
                if let Some(t) = str_of(&entry, "title").filter(|t| is_real_title(t)) {
                    header.title = Some(t.to_string());
                    header.title_source = Some(TitleSource::Metadata);
                    header.titles.push(t.to_string());
                }
            }
            if header.cwd.is_none() {
                header.cwd = str_of(&entry, "workspaceDirectory").map(String::from);
            }
        }
        if file.mtime_ns > 0 {
            if let Ok(t) = scry_model::Timestamp::from_nanosecond(i128::from(file.mtime_ns)) {
                header.touch(t);
            }
        }
        Ok(header)
    }
}

/// Whether `t` is a title a person or model gave, not Continue's placeholder.
fn is_real_title(t: &str) -> bool {
    let t = t.trim();
    !t.is_empty() && t != PLACEHOLDER_TITLE
}

/// The `sessions.json` entry of `id`, if the index can be read and names it.
fn index_entry(path: &Path, id: &str) -> Option<Value> {
    let bytes = std::fs::read(path).ok()?;
    let v: Value = serde_json::from_slice(&bytes).ok()?;
    v.as_array()?
        .iter()
        .find(|e| str_of(e, "sessionId") == Some(id))
        .cloned()
}
