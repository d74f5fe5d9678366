//! Shell command analysis: which tools run commands ([`tools`]), parsing with brush-parser
//! ([`parse`]), wrappers / `bash -c` / `ssh` ([`analyze`]), and the files a command writes
//! ([`writes`]).

pub mod analyze;
pub mod ext;
pub mod parse;
pub mod python;
pub mod tools;
pub mod words;
pub mod writes;

pub use analyze::{analyze, Invocation};
pub use tools::{command_of, cwd_of, is_shell_tool};
pub use writes::{shell_writes, ShellWrite, WriteOp};

/// The first remote host a command connects to with `ssh`.
pub fn ssh_host(command: &str) -> Option<String> {
    if !command.contains("ssh") {
        return None;
    }
    for inv in analyze(command) {
        if let Some((h, _)) = analyze::ssh_target(&inv) {
            return Some(h);
        }
        if inv.host.is_some() {
            return inv.host;
        }
    }
    None
}
