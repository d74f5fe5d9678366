//! The shell-command analyser of `scry-facts`: invocations (wrappers, `bash -c`, ssh), the
//! files a command writes, python one-liners, here-documents.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scry_facts::shell;

fuzz_target!(|data: &[u8]| {
    let Ok(cmd) = std::str::from_utf8(data) else {
        return;
    };
    for inv in shell::analyze(cmd) {
        let _ = inv.program();
        let _ = inv.args();
        let _ = shell::analyze::ssh_target(&inv);
        let _ = shell::analyze::ssh_remote(&inv);
    }
    let _ = shell::shell_writes(cmd);
    let _ = shell::ssh_host(cmd);
    let _ = shell::python::python_writes(cmd);
    let _ = shell::words::strip_heredocs(cmd);
    let _ = shell::words::unquote(cmd);
    let _ = shell::parse::parse(cmd);
});
