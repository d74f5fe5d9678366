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
use scry_model::{ErrorCode, Event, Header, ProviderId, SessionKind, Warning};
use serde_json::json;

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

/// A resume command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Program and arguments.
    pub argv: Vec<String>,
    /// Whether the form was checked against the agent's documentation.
    pub verified: bool,
    /// Where the form comes from.
    pub source: &'static str,
}

/// The resume command for `h`, or why there is none.
pub fn plan(h: &Header) -> Result<Plan, String> {
    let id = h.id.clone();
    match h.kind {
        SessionKind::Subagent => {
            return Err(format!(
                "{} is a subagent session: agents resume subagents only through their parent{}",
                h.uri,
                h.parent
                    .as_deref()
                    .map(|p| format!(" (scry resume {p})"))
                    .unwrap_or_default()
            ))
        }
        SessionKind::Exec => {
            let hint = if h.provider == ProviderId::Codex {
                format!("; to add a prompt to it: codex exec resume {id} <prompt>")
            } else {
                String::new()
            };
            return Err(format!(
                "{} is a one-shot (exec) session: it has no interactive resume{hint}",
                h.uri
            ));
        }
        SessionKind::Main | SessionKind::Fork => {}
    }
    let p = |argv: &[&str], verified: bool, source: &'static str| Plan {
        argv: argv.iter().map(|s| s.to_string()).collect(),
        verified,
        source,
    };
    Ok(match h.provider {
        ProviderId::Claude => p(
            &["claude", "--resume", &id],
            true,
            "Claude Code CLI reference",
        ),
        ProviderId::Codex => p(
            &["codex", "resume", &id],
            true,
            "Codex CLI: codex resume [SESSION_ID]",
        ),
        ProviderId::Gemini => p(
            &["gemini", "--resume", &id],
            true,
            "geminicli.com: Session Management",
        ),
        ProviderId::Grok => p(&["grok", "--resume", &id], true, "docs.x.ai: Sessions"),
        ProviderId::Opencode => p(
            &["opencode", "--session", &id],
            true,
            "opencode.ai/docs/cli",
        ),
        ProviderId::Kilo => p(&["kilo", "--session", &id], true, "kilo.ai/docs/cli"),
        ProviderId::Cursor => p(
            &["cursor-agent", "--resume", &id],
            true,
            "Cursor CLI parameters",
        ),
        ProviderId::Copilot => p(
            &["copilot", "--resume", &id],
            true,
            "Copilot CLI: copilot --resume [sessionId]",
        ),
        ProviderId::Qwen => p(
            &["qwen", "--resume", &id],
            true,
            "Qwen Code CLI: --resume [sessionId]",
        ),
        ProviderId::Deepagents => {
            let mut argv = vec!["deepagents".to_string()];
            if let Some(a) = h.agent_name.as_deref().filter(|a| !a.is_empty()) {
                argv.push("-a".into());
                argv.push(a.to_string());
            }
            argv.push("-r".into());
            argv.push(id);
            Plan {
                argv,
                verified: false,
                source:
                    "deepagents-code reference (-r <id>, -a <agent>); executable name unverified",
            }
        }
        ProviderId::Pi => {
            let file = h
                .sources
                .first()
                .map(|f| f.to_string_lossy().into_owned())
                .ok_or_else(|| format!("{}: no session file to hand to pi", h.uri))?;
            p(
                &["pi", "--session", &file],
                false,
                "pi docs name --session; taking a file path is unverified",
            )
        }
        ProviderId::Aider => p(
            &["aider", "--restore-chat-history"],
            true,
            "aider.chat options: --restore-chat-history (reloads every launch of the directory's chat history)",
        ),
        other => {
            return Err(format!(
                "{} has no documented resume command for {} sessions",
                h.uri,
                other.as_str()
            ))
        }
    })
}

/// Quotes `s` for a POSIX shell when needed.
pub fn sh_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
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
        let v = json!({
            "session": h.uri,
            "provider": h.provider.as_str(),
            "cwd": cwd,
            "cwd_exists": exists,
            "argv": plan.argv,
            "command": line,
            "verified": plan.verified,
            "source": plan.source,
        });
        return Ok(Output {
            stdout: crate::output::json_out(&v),
            stderr: notes,
        });
    }
    Ok(Output {
        stdout: format!("{line}\n"),
        stderr: notes,
    })
}

#[cfg(test)]
mod tests {
    use super::sh_quote;

    #[test]
    fn quoting() {
        assert_eq!(sh_quote("/home/demo/x"), "/home/demo/x");
        assert_eq!(sh_quote("/a b"), "'/a b'");
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
        assert_eq!(sh_quote(""), "''");
    }
}
