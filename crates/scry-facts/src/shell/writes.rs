//! Files a shell command writes, derived from its parsed invocations (SPEC S-F3):
//! redirects (`>`, `>>`, `&>`, `>|`, `N>`), here-doc targets (`cat > f <<EOF`), `tee [-a]`,
//! `cp`, `mv`, `sed -i`, `scp` (both directions; a remote target is `host:path`), and Python
//! `open(…,'w')` / `write_text` in `python -c` or a here-doc script, and `apply_patch PATCH`
//! run as a program (Codex's older `shell` tool).
//!
//! Rules: a path holding `$`, a backtick or a glob is not a claim and is dropped; a bare token
//! (no `/`) from a command argument needs a real extension ([`super::ext`]); so does every
//! target when the fallback tokenizer was used. Paths are returned as written, joined to a
//! preceding `cd`; resolving against the session cwd is the ledger's job.

use serde::{Deserialize, Serialize};

use super::analyze::{analyze, host_of, Invocation};
use super::ext::has_real_extension;
use super::python::{is_python, python_writes};
use crate::file_tools::patch_files;

/// What a write does to its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteOp {
    /// Created or overwritten.
    Write,
    /// Appended to.
    Append,
    /// Changed in place (an edit, `sed -i`, a patch update).
    Edit,
    /// Created by a patch (`*** Add File`, FileChange `add`).
    Create,
    /// Deleted (patch `*** Delete File`, FileChange `delete`).
    Delete,
    /// The destination of a copy.
    Copy,
    /// The destination of a move / rename.
    Move,
    /// Received from a transfer (`scp`).
    Transfer,
}

impl WriteOp {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            WriteOp::Write => "write",
            WriteOp::Append => "append",
            WriteOp::Edit => "edit",
            WriteOp::Create => "create",
            WriteOp::Delete => "delete",
            WriteOp::Copy => "copy",
            WriteOp::Move => "move",
            WriteOp::Transfer => "transfer",
        }
    }
}

/// One write derived from a shell command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellWrite {
    /// The path as written (joined to a preceding `cd`).
    pub path: String,
    /// The host it was written on, when remote.
    pub host: Option<String>,
    /// What happened to the file.
    pub op: WriteOp,
    /// The rule: `shell:redirect`, `shell:heredoc`, `shell:tee`, `shell:cp`, `shell:mv`,
    /// `shell:sed-i`, `shell:scp`, `shell:python`, `shell:apply_patch`.
    pub extractor: &'static str,
    /// True when the write only happened if the command succeeded (everything but a redirect,
    /// which the shell performs before the program runs).
    pub needs_success: bool,
}

/// Every file `command` writes.
pub fn shell_writes(command: &str) -> Vec<ShellWrite> {
    let mut out = Vec::new();
    for inv in analyze(command) {
        invocation_writes(&inv, &mut out);
    }
    out
}

fn invocation_writes(inv: &Invocation, out: &mut Vec<ShellWrite>) {
    let mut push = |path: &str, op: WriteOp, extractor: &'static str, bare_ok: bool| {
        push_write(inv, path, op, extractor, bare_ok, out);
    };
    let redirect_rule = if inv.stdin_doc.is_some() {
        "shell:heredoc"
    } else {
        "shell:redirect"
    };
    for r in &inv.redirects {
        let op = if r.append {
            WriteOp::Append
        } else {
            WriteOp::Write
        };
        push(&r.target, op, redirect_rule, !inv.fallback);
    }
    let args = inv.args();
    match inv.program() {
        "tee" => {
            let append = args.iter().any(|a| {
                a == "--append" || (a.starts_with('-') && !a.starts_with("--") && a.contains('a'))
            });
            let op = if append {
                WriteOp::Append
            } else {
                WriteOp::Write
            };
            for a in positional(args, &[]) {
                push(a, op, "shell:tee", false);
            }
        }
        "cp" | "mv" => {
            let (op, rule) = if inv.program() == "cp" {
                (WriteOp::Copy, "shell:cp")
            } else {
                (WriteOp::Move, "shell:mv")
            };
            for dest in copy_targets(args) {
                push(&dest, op, rule, false);
            }
        }
        "sed" => {
            for f in sed_in_place_files(args) {
                push(f, WriteOp::Edit, "shell:sed-i", false);
            }
        }
        "scp" => scp_writes(inv, out),
        "apply_patch" | "applypatch" => {
            // Codex's older `shell` tool ran patches as `["apply_patch", PATCH]`; agents also
            // feed the patch on stdin: `apply_patch <<'EOF' … EOF`.
            let patch = args
                .iter()
                .find(|a| a.contains("*** "))
                .or(inv.stdin_doc.as_ref());
            if let Some(patch) = patch {
                for w in patch_files(patch) {
                    push_write(inv, &w.path, w.op, "shell:apply_patch", true, out);
                }
            }
        }
        p if is_python(p) => {
            let code = python_code(args).or_else(|| {
                let reads_stdin = positional(args, &[]).first().is_none_or(|a| *a == "-");
                inv.stdin_doc.clone().filter(|_| reads_stdin)
            });
            if let Some(code) = code {
                for w in python_writes(&code) {
                    let op = if w.append {
                        WriteOp::Append
                    } else {
                        WriteOp::Write
                    };
                    push_write(inv, &w.path, op, "shell:python", false, out);
                }
            }
        }
        _ => {}
    }
}

fn push_write(
    inv: &Invocation,
    path: &str,
    op: WriteOp,
    extractor: &'static str,
    bare_ok: bool,
    out: &mut Vec<ShellWrite>,
) {
    if !acceptable(path, bare_ok) {
        return;
    }
    let joined = match &inv.dir {
        Some(d) if !path.starts_with('/') && !path.starts_with('~') => {
            format!("{}/{}", d.trim_end_matches('/'), path)
        }
        _ => path.to_string(),
    };
    out.push(ShellWrite {
        path: joined,
        host: inv.host.clone(),
        op,
        extractor,
        needs_success: !matches!(extractor, "shell:redirect" | "shell:heredoc"),
    });
}

/// A path worth claiming: no unexpanded parameters, globs or URLs; bare tokens need a real
/// extension unless `bare_ok`.
fn acceptable(path: &str, bare_ok: bool) -> bool {
    if path.is_empty()
        || path.starts_with("/dev/")
        || path.contains(['$', '`', '*', '?', '[', '{', '\n'])
        || path.contains("://")
        || path == "-"
    {
        return false;
    }
    let name = path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(path);
    if name.is_empty() || name == "." || name == ".." {
        return false;
    }
    if path.contains('/') || bare_ok {
        return true;
    }
    has_real_extension(name)
}

/// Positional arguments, skipping options (and the values of `with_value` options).
fn positional<'a>(args: &'a [String], with_value: &[&str]) -> Vec<&'a String> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut opts_done = false;
    while let Some(a) = args.get(i) {
        i += 1;
        if !opts_done && a == "--" {
            opts_done = true;
            continue;
        }
        if !opts_done && a.starts_with('-') && a.len() > 1 {
            if with_value.contains(&a.as_str()) {
                i += 1;
            }
            continue;
        }
        out.push(a);
    }
    out
}

fn basename(p: &str) -> &str {
    p.trim_end_matches('/').rsplit('/').next().unwrap_or(p)
}

/// Destination paths of `cp` / `mv`: `-t DIR`, a directory-looking last argument (`/` suffix,
/// `.`, `..`) or several sources put `DIR/basename(src)` per source; else the last argument.
fn copy_targets(args: &[String]) -> Vec<String> {
    let target_dir = args
        .iter()
        .position(|a| a == "-t" || a == "--target-directory")
        .and_then(|i| args.get(i + 1))
        .or_else(|| {
            args.iter()
                .find_map(|a| a.strip_prefix("--target-directory="))
                .map(|_| &args[0])
        });
    let pos = positional(args, &["-t", "--target-directory", "-S", "--suffix"]);
    if let Some(dir) = target_dir {
        let dir = args
            .iter()
            .find_map(|a| a.strip_prefix("--target-directory="))
            .map(str::to_string)
            .unwrap_or_else(|| dir.clone());
        return pos
            .iter()
            .map(|s| format!("{}/{}", dir.trim_end_matches('/'), basename(s)))
            .collect();
    }
    let Some((dest, sources)) = pos.split_last() else {
        return Vec::new();
    };
    if sources.is_empty() {
        return Vec::new();
    }
    let dir_like = dest.ends_with('/') || *dest == "." || *dest == ".." || sources.len() > 1;
    if dir_like {
        let d = dest.trim_end_matches('/');
        sources
            .iter()
            .map(|s| {
                if d.is_empty() {
                    format!("/{}", basename(s))
                } else {
                    format!("{d}/{}", basename(s))
                }
            })
            .collect()
    } else {
        vec![(*dest).clone()]
    }
}

/// Files `sed` edits in place (`-i`, `-i.bak`, `-i ''`, `--in-place[=SUF]`, `-Ei`).
fn sed_in_place_files(args: &[String]) -> Vec<&String> {
    let mut in_place = false;
    let mut has_script = false;
    let mut files = Vec::new();
    let mut first_positional_is_script = true;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        match a.as_str() {
            "-e" | "--expression" | "-f" | "--file" => {
                has_script = true;
                i += 1;
            }
            "-i" | "--in-place" => {
                in_place = true;
                // BSD `sed -i '' …`: an empty suffix argument.
                if args.get(i).is_some_and(String::is_empty) {
                    i += 1;
                }
            }
            "-l" | "--line-length" => i += 1,
            s if s.starts_with("--in-place=") || s.starts_with("-i") => in_place = true,
            s if s.starts_with("--expression=") || s.starts_with("--file=") => has_script = true,
            s if s.starts_with('-') && !s.starts_with("--") && s.len() > 1 => {
                if s.contains('i') {
                    in_place = true;
                }
                if s.ends_with('e') || s.ends_with('f') {
                    has_script = true;
                    i += 1;
                }
            }
            s if s.starts_with("--") => {}
            _ => {
                if !has_script && first_positional_is_script {
                    first_positional_is_script = false;
                    continue;
                }
                files.push(a);
            }
        }
    }
    if in_place {
        files
    } else {
        Vec::new()
    }
}

/// scp: the last positional argument is the destination; `host:path` there is a remote write,
/// otherwise a local one (into `dir/basename(src)` when the destination looks like a directory).
fn scp_writes(inv: &Invocation, out: &mut Vec<ShellWrite>) {
    let pos = positional(
        inv.args(),
        &["-P", "-i", "-o", "-F", "-c", "-l", "-S", "-J", "-D", "-X"],
    );
    let Some((dest, sources)) = pos.split_last() else {
        return;
    };
    if sources.is_empty() {
        return;
    }
    let remote = split_remote(dest);
    let (host, path) = match &remote {
        Some((h, p)) => (Some(h.clone()), p.clone()),
        None => (inv.host.clone(), (*dest).clone()),
    };
    let dir_like = path.is_empty() || path.ends_with('/') || path == "." || path == "~";
    let targets: Vec<String> = if dir_like || sources.len() > 1 {
        sources
            .iter()
            .map(|s| {
                let src = split_remote(s).map_or_else(|| (*s).clone(), |(_, p)| p);
                let d = path.trim_end_matches('/');
                if d.is_empty() {
                    basename(&src).to_string()
                } else {
                    format!("{d}/{}", basename(&src))
                }
            })
            .collect()
    } else {
        vec![path]
    };
    let local = Invocation {
        host,
        dir: if remote.is_some() {
            None
        } else {
            inv.dir.clone()
        },
        ..Invocation::default()
    };
    for t in targets {
        push_write(&local, &t, WriteOp::Transfer, "shell:scp", false, out);
    }
}

/// `[user@]host:path` → (host, path). Local paths (`/x`, `./a:b`) are not remote.
fn split_remote(arg: &str) -> Option<(String, String)> {
    if arg.starts_with('/') || arg.starts_with('.') || arg.starts_with('~') {
        return None;
    }
    let (h, p) = arg.split_once(':')?;
    if h.contains('/') {
        return None;
    }
    Some((host_of(h)?, p.to_string()))
}

/// `python -c CODE` → CODE.
fn python_code(args: &[String]) -> Option<String> {
    let i = args.iter().position(|a| a == "-c")?;
    args.get(i + 1).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(cmd: &str) -> Vec<(String, Option<String>, WriteOp, &'static str)> {
        shell_writes(cmd)
            .into_iter()
            .map(|w| (w.path, w.host, w.op, w.extractor))
            .collect()
    }

    fn paths(cmd: &str) -> Vec<String> {
        shell_writes(cmd).into_iter().map(|w| w.path).collect()
    }

    #[test]
    fn heredoc_target_counts_body_does_not() {
        let v = w(
            "cat > src/a.ts <<'EOF'\nconst f = (a, b) => b[1].length > 2;\necho x > inner.txt\nEOF",
        );
        assert_eq!(
            v,
            vec![("src/a.ts".into(), None, WriteOp::Write, "shell:heredoc")]
        );
    }

    #[test]
    fn cd_then_make_into_log() {
        assert_eq!(paths("cd x && make > build.log 2>&1"), vec!["x/build.log"]);
    }

    #[test]
    fn tee_append_and_sed_in_place() {
        let v = w("echo hi | tee -a notes.md other.txt");
        assert_eq!(
            v[0],
            ("notes.md".into(), None, WriteOp::Append, "shell:tee")
        );
        assert_eq!(v.len(), 2);
        assert_eq!(
            w("sed -i 's/a/b/' src/main.rs README.md"),
            vec![
                ("src/main.rs".into(), None, WriteOp::Edit, "shell:sed-i"),
                ("README.md".into(), None, WriteOp::Edit, "shell:sed-i"),
            ]
        );
        assert_eq!(paths("sed -i.bak -e 's/x/y/' conf.ini"), vec!["conf.ini"]);
        assert_eq!(paths("sed -i '' 's/x/y/' a.txt"), vec!["a.txt"]);
        assert!(paths("sed 's/x/y/' a.txt > /dev/null").is_empty());
    }

    #[test]
    fn scp_both_directions() {
        assert_eq!(
            w("scp -P 2222 dist/app.tar.gz deploy@web1:/srv/app/"),
            vec![(
                "/srv/app/app.tar.gz".into(),
                Some("web1".into()),
                WriteOp::Transfer,
                "shell:scp"
            )]
        );
        assert_eq!(
            w("scp web1:/var/log/app.log ./logs/"),
            vec![(
                "./logs/app.log".into(),
                None,
                WriteOp::Transfer,
                "shell:scp"
            )]
        );
    }

    #[test]
    fn cp_mv_destinations() {
        assert_eq!(paths("cp a.txt b.txt"), vec!["b.txt"]);
        assert_eq!(
            paths("cp -r a.txt c.md docs/"),
            vec!["docs/a.txt", "docs/c.md"]
        );
        assert_eq!(paths("mv -f old.rs src/new.rs"), vec!["src/new.rs"]);
        assert_eq!(paths("cp -t out x.json"), vec!["out/x.json"]);
        assert!(
            paths("cp a b").is_empty(),
            "bare tokens need a real extension"
        );
    }

    #[test]
    fn python_inline_and_heredoc() {
        assert_eq!(
            w("python -c \"open('out.txt','w').write('x')\""),
            vec![("out.txt".into(), None, WriteOp::Write, "shell:python")]
        );
        assert_eq!(
            paths("python3 - <<'PY'\nfrom pathlib import Path\nPath('gen/cfg.json').write_text('{}')\nPY"),
            vec!["gen/cfg.json"]
        );
    }

    #[test]
    fn remote_writes_carry_host() {
        assert_eq!(
            w("ssh -p 22 root@db1 'echo 1 > /etc/flag.conf'"),
            vec![(
                "/etc/flag.conf".into(),
                Some("db1".into()),
                WriteOp::Write,
                "shell:redirect"
            )]
        );
    }

    #[test]
    fn apply_patch_as_a_program() {
        let cmd = "apply_patch '*** Begin Patch\n*** Add File: n.txt\n+x\n*** End Patch'";
        assert_eq!(
            w(cmd),
            vec![("n.txt".into(), None, WriteOp::Create, "shell:apply_patch")]
        );
    }

    #[test]
    fn apply_patch_fed_by_heredoc() {
        let cmd = "bash -lc \"apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** End Patch\nEOF\n\"";
        assert_eq!(
            w(cmd),
            vec![("src/a.rs".into(), None, WriteOp::Edit, "shell:apply_patch")]
        );
    }

    #[test]
    fn non_files_are_ignored() {
        assert!(paths("echo hi > /dev/null 2>&1").is_empty());
        assert!(paths("echo $x > \"$OUT\"").is_empty());
        assert!(paths("grep r.source a.name").is_empty());
        assert!(paths("cat <<EOF\nr.source > a.name\nEOF").is_empty());
    }
}
