//! `scry resume <id> [--exec]` (S-A3): the agent's own command to continue a session, run in
//! the session's original working directory — printed as `cd <cwd> && <command>`, or run
//! there with `--exec` (stdin/stdout/stderr handed to the agent; scry exits with its status).
//!
//! Forms, and where each comes from (checked 2026-11):
//! - Claude Code `claude --resume <id>` — Claude Code CLI reference.
//! - Codex `codex resume <id>` — Codex CLI docs (`codex resume [SESSION_ID]`).
//! - Gemini CLI `gemini --resume <id>` — geminicli.com "Session Management" (resume by UUID).
//! - Grok Build `grok --resume <id>` — docs.x.ai "Sessions".
//! - OpenCode `opencode --session <id>` — opencode.ai/docs/cli (`-s, --session`).
//! - Kilo CLI `kilo --session <id>` — Kilo CLI keeps OpenCode's `-s, --session` flag
//!   (kilo.ai/docs/cli).
//! - Cursor `cursor-agent --resume <id>` — Cursor CLI parameters (`--resume [chatId]`).
//! - GitHub Copilot CLI `copilot --resume <id>` — `copilot --help` (`--resume [sessionId]`),
//!   the form its maintainers use in github/copilot-cli issues (e.g. #4397, CLI 1.0.78).
//! - Qwen Code `qwen --resume <id>` — Qwen Code CLI docs (`--resume [sessionId]`, `-r`).
//! - Deep Agents Code `deepagents [-a <agent>] -r <id>` — deepagents-code reference
//!   (`headless_resume`: "-r <id>", "-a"); the executable name is **unverified**.
//! - pi `pi --session <file>` — pi coding-agent docs name `--session`; **unverified** that it
//!   takes the session file path.
//! - Aider `aider --restore-chat-history` — aider.chat options reference: Aider has no session
//!   ids; in the session's directory it reloads the whole `.aider.chat.history.md` (every
//!   launch, not only this one).
//! - DSH, MT-Agent, Antigravity: no documented resume command → refused. Continue CLI: refused
//!   too (`cn --resume` reopens the most recent session only, not one by id).
//!
//! Subagent sessions are refused for every agent (they are continued through their parent), and
//! one-shot `exec` sessions too (Codex's `codex exec resume <id> <prompt>` needs a new prompt).
//! A working directory that is gone: printing still shows the command with a warning (it is
//! information); `--exec` refuses.

use std::path::Path;

use clap::Args;
use scry_model::{ErrorCode, Event, Warning};
use scry_query::resume::{plan, sh_quote};

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::output::Output;
use crate::session_read::{self, FnSink};

/// Arguments of `scry resume`.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// Run the command in the session's directory instead of printing it
    #[arg(long)]
    pub exec: bool,
}

/// Runs `scry resume`.
pub fn run(ctx: &Ctx, args: &ResumeArgs) -> CliResult<Output> {
    // Only the completed header is needed: the events stream by and are dropped.
    let opened = session_read::open(ctx, &args.id)?;
    let header = opened.stream(&mut FnSink {
        on_event: |_e: Event| {},
        on_warning: |_w: Warning| {},
    })?;
    let h = &header;
    if !h.live {
        // Archived (S-I6): scry still reads it from the index, the agent cannot resume it.
        let path = h.sources.first().cloned().unwrap_or_default();
        return Err(scry_query::archive::gone(
            &h.uri,
            &path,
            "so the agent can no longer resume it (scry still reads it from the index)",
        )
        .into());
    }
    let plan = plan(h).map_err(|m| CliError::usage(ErrorCode::InvalidQuery, m))?;
    let cwd = h.cwd.clone().ok_or_else(|| {
        CliError::new(
            ErrorCode::Aborted,
            format!(
                "{}: the session does not record its working directory",
                h.uri
            ),
        )
    })?;
    let exists = Path::new(&cwd).is_dir();
    let line = format!(
        "cd {} && {}",
        sh_quote(&cwd),
        plan.argv
            .iter()
            .map(|a| sh_quote(a))
            .collect::<Vec<_>>()
            .join(" ")
    );
    if args.exec {
        if !exists {
            return Err(CliError::new(
                ErrorCode::Aborted,
                format!("the session's directory {cwd} no longer exists; not resuming"),
            ));
        }
        let (program, rest) = plan
            .argv
            .split_first()
            .ok_or_else(|| CliError::new(ErrorCode::Aborted, "empty resume command"))?;
        let status = std::process::Command::new(program)
            .args(rest)
            .current_dir(&cwd)
            .status()
            .map_err(|e| {
                CliError::new(
                    ErrorCode::Aborted,
                    format!("cannot run {program} in {cwd}: {e}"),
                )
            })?;
        return match status.code() {
            Some(0) => Ok(Output::default()),
            code => Err(CliError::Verbatim {
                stderr: String::new(),
                exit: code.unwrap_or(1),
            }),
        };
    }
    let mut notes = String::new();
    if !exists {
        notes.push_str(&format!(
            "warning: the session's directory {cwd} no longer exists (scry resume --exec refuses)\n"
        ));
    }
    if !plan.verified {
        notes.push_str(&format!("note: unverified form ({})\n", plan.source));
    }
    if ctx.json {
        let v = ResumeJson {
            session: &h.uri,
            provider: h.provider.as_str(),
            cwd: &cwd,
            cwd_exists: exists,
            argv: &plan.argv,
            command: &line,
            verified: plan.verified,
            source: plan.source,
        };
        return Ok(Output {
            stdout: crate::output::typed_out(&v),
            stderr: notes,
        });
    }
    Ok(Output {
        stdout: format!("{line}\n"),
        stderr: notes,
    })
}

/// `resume --json`: the session, its directory and the command that resumes it.
#[derive(serde::Serialize)]
struct ResumeJson<'a> {
    session: &'a str,
    provider: &'a str,
    cwd: &'a str,
    cwd_exists: bool,
    argv: &'a [String],
    command: &'a str,
    verified: bool,
    source: &'a str,
}
