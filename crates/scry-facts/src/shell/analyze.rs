//! From simple commands to what actually runs: wrappers (`sudo`, `env`, `nohup`, `time`,
//! `timeout`, `nice`, `stdbuf`, `command`, `exec`) are peeled off, `bash -c 'SCRIPT'` is
//! parsed again, and `ssh [opts] host CMD…` yields the `ssh` invocation itself plus the remote
//! command parsed again with `host` attached (ssh joins its trailing words with spaces, so
//! they are joined the same way). Recursion stops at depth 4.
//!
//! Here-doc bodies stay data (SPEC S-F3): a script fed on stdin (`bash <<EOF`,
//! `ssh host <<EOF`) is not analysed as commands; only the Python and `apply_patch` readers
//! look into a body, for the files it names.

use super::parse::{parse, Redirect, SimpleCmd};

/// One command that runs, after wrappers are removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Invocation {
    /// Unquoted words, program first.
    pub argv: Vec<String>,
    /// Output redirections to files.
    pub redirects: Vec<Redirect>,
    /// Here-doc body / here-string fed to stdin.
    pub stdin_doc: Option<String>,
    /// Directory from a preceding `cd` (relative to the command's cwd when relative).
    pub dir: Option<String>,
    /// Remote host when the command runs through `ssh`.
    pub host: Option<String>,
    /// True when the fallback tokenizer produced it.
    pub fallback: bool,
}

impl Invocation {
    /// The program name without its directory (`/usr/bin/python3` → `python3`).
    pub fn program(&self) -> &str {
        self.argv
            .first()
            .map(|a| a.rsplit('/').next().unwrap_or(a))
            .unwrap_or("")
    }

    /// Arguments after the program.
    pub fn args(&self) -> &[String] {
        self.argv.get(1..).unwrap_or(&[])
    }
}

const MAX_DEPTH: usize = 4;

/// Every command `command` runs (locally or through ssh), in order.
pub fn analyze(command: &str) -> Vec<Invocation> {
    let mut out = Vec::new();
    walk(command, None, None, 0, &mut out);
    out
}

fn walk(
    text: &str,
    host: Option<&str>,
    base_dir: Option<&str>,
    depth: usize,
    out: &mut Vec<Invocation>,
) {
    let parsed = parse(text);
    for cmd in parsed.cmds {
        let SimpleCmd {
            argv,
            redirects,
            stdin_doc,
            dir,
        } = cmd;
        let dir = match (base_dir, dir) {
            (Some(b), Some(d)) if !d.starts_with('/') && !d.starts_with('~') => {
                Some(format!("{}/{}", b.trim_end_matches('/'), d))
            }
            (b, d) => d.or(b.map(str::to_string)),
        };
        let argv = strip_wrappers(argv);
        let inv = Invocation {
            argv,
            redirects,
            stdin_doc,
            dir,
            host: host.map(str::to_string),
            fallback: parsed.fallback,
        };
        let nested = if depth < MAX_DEPTH {
            shell_script(&inv)
                .map(|s| (s, inv.host.clone()))
                .or_else(|| ssh_remote(&inv).map(|(h, c)| (c, Some(h))))
        } else {
            None
        };
        let dir_for_nested = if nested.as_ref().is_some_and(|(_, h)| h != &inv.host) {
            None
        } else {
            inv.dir.clone()
        };
        out.push(inv);
        if let Some((script, h)) = nested {
            walk(
                &script,
                h.as_deref(),
                dir_for_nested.as_deref(),
                depth + 1,
                out,
            );
        }
    }
}

/// Removes leading wrapper programs and their options.
fn strip_wrappers(mut argv: Vec<String>) -> Vec<String> {
    loop {
        let Some(first) = argv.first() else {
            return argv;
        };
        let prog = first.rsplit('/').next().unwrap_or(first).to_string();
        let skip = match prog.as_str() {
            "sudo" => skip_opts(
                &argv,
                &["-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t"],
            ),
            "env" => {
                let mut i = 1;
                while let Some(a) = argv.get(i) {
                    if a.starts_with('-') || a.contains('=') {
                        i += if a == "-u" || a == "-C" { 2 } else { 1 };
                    } else {
                        break;
                    }
                }
                i
            }
            "nohup" | "command" | "exec" | "builtin" => skip_opts(&argv, &[]),
            "time" => skip_opts(&argv, &["-f", "-o"]),
            "nice" => skip_opts(&argv, &["-n"]),
            "stdbuf" => skip_opts(&argv, &["-i", "-o", "-e"]),
            "timeout" => {
                // timeout [opts] DURATION CMD…
                skip_opts(&argv, &["-s", "-k", "--signal", "--kill-after"]) + 1
            }
            _ => return argv,
        };
        if skip == 0 || skip >= argv.len() {
            return argv;
        }
        argv.drain(..skip);
    }
}

/// Index of the first non-option word after the program; `with_value` options take the next.
fn skip_opts(argv: &[String], with_value: &[&str]) -> usize {
    let mut i = 1;
    while let Some(a) = argv.get(i) {
        if a == "--" {
            return i + 1;
        }
        if !a.starts_with('-') || a == "-" {
            break;
        }
        i += if with_value.contains(&a.as_str()) {
            2
        } else {
            1
        };
    }
    i
}

/// `bash -c SCRIPT` / `sh -lc SCRIPT` / `zsh -ec SCRIPT` → SCRIPT.
fn shell_script(inv: &Invocation) -> Option<String> {
    if !matches!(inv.program(), "bash" | "sh" | "zsh" | "dash" | "ksh") {
        return None;
    }
    let args = inv.args();
    let pos = args
        .iter()
        .position(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'))?;
    args.get(pos + 1).cloned()
}

/// ssh options that take a value.
const SSH_VALUE_OPTS: &[&str] = &[
    "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q",
    "-R", "-S", "-W", "-w", "-B", "-P",
];

/// `ssh [opts] [user@]host [CMD…]` → (host, remote command). `None` without a remote command.
pub fn ssh_remote(inv: &Invocation) -> Option<(String, String)> {
    let (host, rest) = ssh_target(inv)?;
    if rest.is_empty() {
        return None;
    }
    Some((host, rest.join(" ")))
}

/// The host an `ssh` invocation connects to, and its remote command words.
pub fn ssh_target(inv: &Invocation) -> Option<(String, Vec<String>)> {
    if inv.program() != "ssh" {
        return None;
    }
    let args = inv.args();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') {
            break;
        }
        i += if SSH_VALUE_OPTS.contains(&a.as_str()) {
            2
        } else {
            1
        };
    }
    let dest = args.get(i)?;
    let host = host_of(dest)?;
    Some((host, args.get(i + 1..).unwrap_or(&[]).to_vec()))
}

/// `user@host`, `ssh://user@host:22` → `host`.
pub fn host_of(dest: &str) -> Option<String> {
    let d = dest.strip_prefix("ssh://").unwrap_or(dest);
    let d = d.rsplit('@').next().unwrap_or(d);
    let d = if dest.starts_with("ssh://") {
        d.split([':', '/']).next().unwrap_or(d)
    } else {
        d
    };
    let ok = !d.is_empty()
        && d.chars()
            .all(|c| c.is_alphanumeric() || "-_.:[]".contains(c));
    ok.then(|| d.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progs(cmd: &str) -> Vec<(String, Option<String>)> {
        analyze(cmd)
            .into_iter()
            .map(|i| (i.program().to_string(), i.host))
            .collect()
    }

    #[test]
    fn ssh_with_options_and_quoted_remote() {
        let v = progs("ssh -p 22 deploy@web1 'cd /srv && cat conf > /etc/app.conf'");
        assert_eq!(
            v,
            vec![
                ("ssh".into(), None),
                ("cd".into(), Some("web1".into())),
                ("cat".into(), Some("web1".into())),
            ]
        );
        let inv = analyze("ssh web1 uptime");
        assert_eq!(inv[1].program(), "uptime");
        assert_eq!(inv[1].host.as_deref(), Some("web1"));
    }

    #[test]
    fn ssh_inside_heredoc_payload_is_not_a_call() {
        let v = progs("cat > deploy.md <<'EOF'\nrun: ssh root@1.2.3.4 'rm -rf /'\nEOF");
        assert_eq!(v, vec![("cat".into(), None)]);
    }

    #[test]
    fn wrappers_and_bash_c_are_peeled() {
        let v = analyze("sudo -u app env A=1 nohup bash -lc 'python3 x.py > out.json'");
        let progs: Vec<&str> = v.iter().map(Invocation::program).collect();
        assert_eq!(progs, vec!["bash", "python3"]);
        assert_eq!(v[1].redirects[0].target, "out.json");
        let t = analyze("timeout 30 make test");
        assert_eq!(t[0].argv, vec!["make", "test"]);
    }

    #[test]
    fn host_forms() {
        assert_eq!(host_of("u@h.example").as_deref(), Some("h.example"));
        assert_eq!(host_of("ssh://u@h:2222").as_deref(), Some("h"));
        assert_eq!(host_of("'bad host'"), None);
    }
}
