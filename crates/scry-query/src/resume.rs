//! The agent's own command to continue a session (S-A3), as `scry resume` prints it and
//! `scry tui` shows on exit: [`plan`] picks the form per agent (see `scry resume`'s module doc
//! for where each form comes from), [`line`] quotes it behind `cd <cwd> &&`.

use scry_model::{Header, ProviderId, SessionKind};

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

/// The shell line `cd <cwd> && <command>` that resumes `h`, or why there is none (a subagent or
/// exec session, an agent without a resume command, no recorded working directory).
pub fn line(h: &Header) -> Result<String, String> {
    let plan = plan(h)?;
    let cwd = h.cwd.as_deref().ok_or_else(|| {
        format!(
            "{}: the session does not record its working directory",
            h.uri
        )
    })?;
    Ok(format!(
        "cd {} && {}",
        sh_quote(cwd),
        plan.argv
            .iter()
            .map(|a| sh_quote(a))
            .collect::<Vec<_>>()
            .join(" ")
    ))
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
