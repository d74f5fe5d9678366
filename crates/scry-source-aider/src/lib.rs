//! scry provider for Aider (`aider-chat`) chat histories.
//!
//! Checked against files written by Aider 0.86.2 (the corpus's
//! `real/home/new/work/proj-aider`). Aider keeps nothing session-like under HOME: it appends to
//! `.aider.chat.history.md` in the project's git root (`--chat-history-file`,
//! `AIDER_CHAT_HISTORY_FILE`) and records typed prompts in `.aider.input.history`.
//!
//! Discovery ([`discover`]) looks for `.aider.chat.history.md` in the subtree of the directory
//! scry runs in ([`Env::cwd`]), of the directory a command's `--scope` names ([`Env::scope`])
//! and of the directories configured in the config file (`[aider] roots`,
//! [`Env::project_dirs`]), a bounded walk that skips hidden directories, `node_modules`,
//! `target` and virtualenvs, plus the file `$AIDER_CHAT_HISTORY_FILE` names. [`in_dirs`] adds
//! the histories directly in the project directories other agents' sessions name as their
//! working directory (one stat each; the caller collects those directories, see
//! `scry_sources::aider_in_cwds`).
//!
//! **One session per launch.** The file has no ids: each `# aider chat started at <local time>`
//! header opens one launch, and each launch is a session (`<YYYYMMDD-HHMMSS>-<project directory
//! name>`; the key is the header's `<byte offset>:<line>`, stable while the file only grows, so
//! a launch is read from there to the next header, never the whole file). A launch started with
//! `--restore-chat-history` reloads the earlier text into the model's context but writes only
//! its own lines: it stays its own session, with a `resumed_from` lineage link to the launch
//! before it.
//!
//! | lines | event |
//! |---|---|
//! | `# aider chat started at T` | starts a session; T (local time, no zone: read in the zone scry runs in) is its time |
//! | the `> ` block after it (command line, `Aider vX`, `Model: M with …`) | `meta` (`launch`); version, model, `--restore-chat-history` lineage |
//! | `#### text` lines | `user` (one message; `#### <blank>` is an empty prompt) |
//! | `#### /ask …`, `/code …`, `/architect …`, `/context …` | `user` |
//! | `#### /run cmd`, `/test cmd`, `#### !cmd` | `tool_call` (`shell`, `{command}`), and the `> ` block after it as its `tool_result`: the exit status is not written (unknown, never 0) |
//! | other `#### /command` | `meta` (`slash_command`) |
//! | raw text | `assistant` (model from the launch) |
//! | a SEARCH/REPLACE block in it (file name line, `<<<<<<< SEARCH`, `=======`, `>>>>>>> REPLACE`) | `tool_call` `write` (empty SEARCH: a new file) or `edit`, `{path, search, replace}` |
//! | `> Applied edit to P` | `tool_result` of the pending edit of P (`is_error: false`); a `> ` block saying an edit failed to match: `is_error: true` |
//! | other `> ` blocks (confirmations with their auto answers, commits, `Tokens: 2.7k sent`) | `system` (`output`) |
//!
//! Tokens: none. Aider writes only rounded display figures (`> Tokens: 2.7k sent, 53
//! received.`), kept as text, never counted as usage. Event times: the launch's, except a
//! prompt that `.aider.input.history` recorded inside the launch's time window (same text): it
//! gets that time, and the events after it inherit it (derived); the last launch ends at the
//! file's mtime. Aider does not record piped prompts there. Ambiguity the format leaves: assistant Markdown that starts
//! a line with `#### ` or `> ` outside a code fence reads as a prompt or as aider output.

mod discover;
mod parse;

use std::path::Path;

use scry_model::{Header, ProviderId};
use scry_source::{Discovery, Emitter, Env, Root, Source, SourceError, SourceFile};

pub use discover::{discover, in_dirs, HISTORY_FILE, INPUT_HISTORY_FILE};

/// The Aider reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct AiderSource;

impl Source for AiderSource {
    fn id(&self) -> ProviderId {
        ProviderId::Aider
    }

    fn roots(&self, env: &Env) -> Vec<Root> {
        discover::roots(env)
    }

    fn discover(&self, env: &Env) -> Discovery {
        discover(env)
    }

    /// A chat history given by path: its last launch.
    fn detect(&self, path: &Path) -> Option<SourceFile> {
        let head = scry_source::jsonl::head(path, 512)?;
        let text = String::from_utf8_lossy(&head);
        if !text.trim_start().starts_with(parse::HEADER) {
            return None;
        }
        discover::sessions_of(path).ok()?.pop()
    }

    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        parse::parse(file, out)
    }
}
