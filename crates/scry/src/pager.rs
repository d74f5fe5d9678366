//! The pager of long text output: when stdout is a terminal, the text of the paging commands
//! ([`crate::commands::pages`]) goes through `$SCRY_PAGER`, else `$PAGER`, else `less -FRX`
//! (`-F`: short output is printed and less quits; `-R`: colors pass; `-X`: the text stays on
//! screen). Never with `--json`, `--no-pager`, or when stdout is a pipe or a file;
//! `SCRY_PAGER=cat` turns paging off (an empty variable counts as unset, as every variable
//! scry reads).
//!
//! Colors are decided before the pager starts, from stdout being the terminal (`app::build_ctx`),
//! so paged text keeps its styling; `LESS=FRX` is set for a `less` run without `$LESS`, as git
//! does. A pager that cannot start is one warning and the text is written directly. Closing the
//! pager early (`q`) ends scry quietly, exit 0. While the pager runs, Ctrl-C is left to it
//! (scry does not die under it, which would hand the terminal back to the shell too early).

use std::io::Write;
use std::process::{Child, Command, Stdio};

use scry_source::Env;

use crate::error::CliResult;

/// The pager command line for this environment: `$SCRY_PAGER`, then `$PAGER`, else `less -FRX`;
/// `None` when it is `cat`: no paging. Empty variables count as unset.
pub fn command(env: &Env) -> Option<String> {
    let chosen = env
        .var("SCRY_PAGER")
        .or_else(|| env.var("PAGER"))
        .unwrap_or("less -FRX")
        .trim();
    (!chosen.is_empty() && chosen != "cat").then(|| chosen.to_string())
}

/// Writes `text` through the pager `cmd`, then `notes` on stderr once it has closed. A pager
/// that cannot be started gives one warning and the text goes to stdout directly.
pub fn write(cmd: &str, text: &str, notes: &str) -> CliResult<()> {
    let _interrupts = ignore_interrupts();
    let mut child = match spawn(cmd) {
        Ok(child) => child,
        Err(e) => return direct(cmd, &e.to_string(), text, notes),
    };
    let written = match child.stdin.take() {
        Some(mut stdin) => stdin
            .write_all(text.as_bytes())
            .and_then(|()| stdin.flush()),
        None => Ok(()),
    };
    let status = child.wait();
    // The shell could not run the pager at all (126 / 127: not executable, not found): the
    // text went nowhere, whether or not it fit in the pipe before the shell quit.
    if let Ok(s) = &status {
        if matches!(s.code(), Some(126 | 127)) {
            return direct(cmd, &format!("it exited with {s}"), text, notes);
        }
    }
    match written {
        // The pager quit before reading everything: the user closed it (quiet).
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(e.into()),
    }
    if !notes.is_empty() {
        let _ = std::io::stderr().write_all(notes.as_bytes());
    }
    Ok(())
}

/// The pager's process, its stdin a pipe. A plain command line runs directly; one with shell
/// syntax (quotes, pipes, variables) runs through `sh -c`, as git runs its pager.
fn spawn(cmd: &str) -> std::io::Result<Child> {
    let mut command = if cmd.contains(|c: char| "|&;<>()$`\\\"'*?[]#~={}".contains(c)) {
        let mut c = Command::new("sh");
        c.arg("-c").arg(cmd);
        c
    } else {
        let mut words = cmd.split_whitespace();
        let mut c = Command::new(words.next().unwrap_or("less"));
        c.args(words);
        c
    };
    if std::env::var_os("LESS").is_none() {
        command.env("LESS", "FRX");
    }
    if std::env::var_os("LV").is_none() {
        command.env("LV", "-c");
    }
    command.stdin(Stdio::piped()).spawn()
}

/// The fallback: one warning, then the text and notes as if there were no pager.
fn direct(cmd: &str, why: &str, text: &str, notes: &str) -> CliResult<()> {
    let _ = writeln!(
        std::io::stderr(),
        "warning: cannot use the pager '{cmd}' ({why}); writing directly (--no-pager or \
         SCRY_PAGER=cat turns paging off)"
    );
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    if !notes.is_empty() {
        let _ = std::io::stderr().write_all(notes.as_bytes());
    }
    Ok(())
}

/// Catches SIGINT for the rest of the process (tokio's handler stays installed once set), so
/// Ctrl-C pressed in the pager reaches the pager alone. The runtime is kept alive by the caller
/// while the pager runs.
#[cfg(unix)]
fn ignore_interrupts() -> Option<(tokio::runtime::Runtime, tokio::signal::unix::Signal)> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .ok()?;
    let signal = {
        let _guard = rt.enter();
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok()?
    };
    Some((rt, signal))
}

#[cfg(not(unix))]
fn ignore_interrupts() -> Option<()> {
    None
}

#[cfg(test)]
mod tests {
    use super::command;
    use scry_source::Env;

    #[test]
    fn scry_pager_then_pager_then_less() {
        let env = Env::with_home("/h");
        assert_eq!(command(&env).as_deref(), Some("less -FRX"));
        let env = env.var_set("PAGER", "more");
        assert_eq!(command(&env).as_deref(), Some("more"));
        let env = env.var_set("SCRY_PAGER", "bat -p");
        assert_eq!(command(&env).as_deref(), Some("bat -p"));
        // Empty counts as unset.
        let unset = env.clone().var_set("SCRY_PAGER", "");
        assert_eq!(command(&unset).as_deref(), Some("more"));
        assert_eq!(command(&env.var_set("SCRY_PAGER", "cat")), None);
    }
}
