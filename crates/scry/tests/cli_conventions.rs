//! The conventions of a Rust CLI (issue 24): shell completions loaded by real bash, zsh and fish
//! (with session ids completed from the index through clap_complete's environment protocol),
//! man pages rendered by `man -l` without warnings, the pager on a pseudo-terminal (`script`
//! from util-linux) and not on a pipe, and `scry config`.
//!
//! A missing shell or `man` skips its test with a note, except under CI (`CI` set), where
//! `.ci/run` installs them and a skip would hide a gap.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{claude_session, redact, scry, scry_env};

const BIN: &str = env!("CARGO_BIN_EXE_scry");

/// Whether `program` runs here; without it the test is skipped (a failure under CI).
fn have(program: &str) -> bool {
    let found = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {program}"))
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{program} is missing (.ci/run installs it)"
        );
        eprintln!("skipped: {program} is not installed");
    }
    found
}

/// Runs `program args…` with only `HOME`, `PATH`, `TZ` and `vars` set; returns (stdout, stderr,
/// exit status).
fn run(home: &Path, program: &str, args: &[&str], vars: &[(&str, &str)]) -> (String, String, i32) {
    let out = Command::new(program)
        .env_clear()
        .env("HOME", home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("TZ", "UTC")
        .envs(vars.iter().copied())
        .current_dir(home)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run {program}: {e}"));
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// Ids of the demo sessions, indexing them (the demo's index lives beside its extracted home).
fn demo_ids(home: &Path) -> Vec<String> {
    let out = scry(
        home,
        &["list", "--demo", "--global", "--json", "--kind", "all"],
    );
    assert_eq!(out.code, 0, "{}", out.render());
    out.json()["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect()
}

/// What real bash completes for `words` (the last one being completed) with scry's script
/// loaded: the registered function is called as bash calls it, and COMPREPLY is printed.
fn bash_complete(home: &Path, words: &[&str], vars: &[(&str, &str)]) -> Vec<String> {
    let cword = words.len() - 1;
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let script = format!(
        "source <('{BIN}' completions bash) || exit 9\n\
         COMP_WORDS=({words}); COMP_CWORD={cword}; COMP_TYPE=9\n\
         COMP_LINE=\"${{COMP_WORDS[*]}}\"; COMP_POINT=${{#COMP_LINE}}\n\
         _clap_complete_scry scry '{cur}' '{prev}'\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        words = quoted.join(" "),
        cur = words[cword],
        prev = words[cword - 1],
    );
    let (stdout, stderr, code) = run(home, "bash", &["-c", &script], vars);
    assert_eq!(code, 0, "bash failed: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stdout
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn completion_scripts_generate_for_every_shell_and_load_in_real_shells() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = scry(h, &["completions", shell]);
        assert_eq!(out.code, 0, "{shell}: {}", out.render());
        // The script calls this very binary back with the protocol's variable.
        assert!(out.stdout.contains(BIN), "{shell}: {}", out.stdout);
        assert!(
            out.stdout.contains("SCRY_COMPLETE"),
            "{shell}: {}",
            out.stdout
        );
    }
    // A stray COMPLETE in the environment is not scry's protocol: scry runs as usual.
    let (stdout, _, code) = run(h, BIN, &["completions", "bash"], &[("COMPLETE", "1")]);
    assert_eq!(code, 0);
    assert!(stdout.contains("_clap_complete_scry"));
    let bad = scry(h, &["completions", "tcsh"]);
    assert_eq!(bad.code, 2, "{}", bad.render());
    assert!(bad.stderr.contains("tcsh"), "{}", bad.stderr);

    let (stdout, stderr, code) = run(
        h,
        "bash",
        &[
            "-c",
            &format!("source <('{BIN}' completions bash) && complete -p scry"),
        ],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("-F _clap_complete_scry") && stdout.trim_end().ends_with(" scry"),
        "{stdout}"
    );
    // Subcommands and global flags come from the grammar.
    let mut subs = bash_complete(h, &["scry", "tu"], &[]);
    subs.sort();
    assert_eq!(subs, ["tui", "turn", "turns"]);
    let flags = bash_complete(h, &["scry", "list", "--no-p"], &[]);
    assert_eq!(flags, ["--no-pager"]);
    let providers = bash_complete(h, &["scry", "list", "--provider", "claude,co"], &[]);
    assert!(
        providers.contains(&"claude,codex".to_string()),
        "{providers:?}"
    );

    if have("zsh") {
        let script = format!(
            "autoload -Uz compinit && compinit -u -D && source <('{BIN}' completions zsh) \
             && print -r -- $_comps[scry]"
        );
        let (stdout, stderr, code) = run(h, "zsh", &["-c", &script], &[]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            stdout.contains("scry"),
            "no completer registered: {stdout:?} {stderr}"
        );
        assert!(!stderr.contains("error"), "{stderr}");
    }
    if have("fish") {
        let script = format!("'{BIN}' completions fish | source; complete --do-complete 'scry tu'");
        let (stdout, stderr, code) = run(h, "fish", &["-c", &script], &[]);
        assert_eq!(code, 0, "{stderr}");
        let mut got: Vec<&str> = stdout
            .lines()
            .map(|l| l.split('\t').next().unwrap())
            .collect();
        got.sort();
        assert_eq!(got, ["tui", "turn", "turns"], "{stdout}");
    }
}

#[test]
fn session_ids_complete_from_the_index_in_bash_and_fish() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let ids = demo_ids(h);
    let id = ids
        .iter()
        .find(|i| i.len() > 20)
        .expect("a demo session with a long id");
    let prefix = &id[..6];
    let expected: Vec<String> = {
        let mut v: Vec<String> = ids
            .iter()
            .filter(|i| i.starts_with(prefix))
            .cloned()
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let got = bash_complete(h, &["scry", "--demo", "show", prefix], &[]);
    assert_eq!(got, expected);
    assert!(got.contains(id));
    // `--session` of search, and `provider:id` forms.
    let got = bash_complete(
        h,
        &["scry", "--demo", "search", "x", "--session", prefix],
        &[],
    );
    assert_eq!(got, expected);
    // Without --demo the demo's index is not the one read: this home has no index at all, and a
    // completion never creates one.
    let db = h.join("no-index/index.db");
    let db_s = db.to_str().unwrap();
    assert!(bash_complete(h, &["scry", "show", prefix], &[("SCRY_DB", db_s)]).is_empty());
    assert!(!db.exists() && !h.join("no-index").exists());

    // A real (non-demo) home: the index at SCRY_DB.
    let real = tempfile::tempdir().unwrap();
    let r = real.path();
    let sid = "7e57c0de-1111-4222-8333-944445555666";
    claude_session(r, sid, "/test/proj", 2);
    claude_session(r, "7e57beef-1111-4222-8333-944445555666", "/test/proj", 1);
    let db = r.join("idx/index.db");
    let out = scry_env(r, r, &[("SCRY_DB", &db)], &["index", "--all"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let db_s = db.to_str().unwrap();
    let got = bash_complete(r, &["scry", "turns", "7e57c"], &[("SCRY_DB", db_s)]);
    assert_eq!(got, [sid]);
    let got = bash_complete(r, &["scry", "turns", "claude:7e57"], &[("SCRY_DB", db_s)]);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got.iter().all(|g| g.starts_with("claude:7e57")), "{got:?}");

    if have("fish") {
        let script =
            format!("'{BIN}' completions fish | source; complete --do-complete 'scry turns 7e57c'");
        let (stdout, stderr, code) = run(r, "fish", &["-c", &script], &[("SCRY_DB", db_s)]);
        assert_eq!(code, 0, "{stderr}");
        let first = stdout.lines().next().unwrap_or("");
        // fish shows the description (provider: title) beside the id.
        assert!(first.starts_with(&format!("{sid}\tclaude")), "{stdout}");
    }
}

/// Median wall time of completing a session prefix on the 20,000-session corpus, when it was
/// indexed (a generous bound: the SQL prefix query must not scan; this is not a benchmark).
#[test]
fn completing_ids_on_a_large_index_is_quick() {
    let corpus = Path::new("/tmp/list-many");
    if !corpus.is_dir() {
        eprintln!("skipped: /tmp/list-many is not here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    let out = scry_env(corpus, corpus, &[("SCRY_DB", &db)], &["index", "--all"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let mut times = Vec::new();
    let mut n = 0;
    for _ in 0..5 {
        let t = std::time::Instant::now();
        let out = Command::new(BIN)
            .env_clear()
            .env("HOME", corpus)
            .env("SCRY_DB", &db)
            .env("SCRY_COMPLETE", "bash")
            .env("_CLAP_COMPLETE_INDEX", "2")
            .env("_CLAP_IFS", "\n")
            .args(["--", "scry", "show", ""])
            .output()
            .unwrap();
        times.push(t.elapsed());
        n = String::from_utf8_lossy(&out.stdout).lines().count();
    }
    times.sort();
    eprintln!(
        "completion of an empty word on 20,000 sessions: median {:?}, {n} ids",
        times[2]
    );
    // The 50 most recent sessions (the grammar may add its own candidates).
    assert!(n >= 50, "{n}");
    assert!(times[2] < std::time::Duration::from_secs(10));
}

#[test]
fn man_pages_render_without_warnings() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let out_dir = h.join("man1");
    let out = scry(h, &["man", "--out", out_dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.render());
    let pages: Vec<PathBuf> = out.stdout.lines().map(PathBuf::from).collect();
    assert!(pages.iter().all(|p| p.is_file()), "{}", out.stdout);
    let names: Vec<String> = pages
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for want in [
        "scry.1",
        "scry-turn.1",
        "scry-config.1",
        "scry-skill-install.1",
    ] {
        assert!(names.contains(&want.to_string()), "{names:?}");
    }
    // Every command of the grammar has its page: `scry --help` lists them.
    let help = scry(h, &["--help"]).stdout;
    let listed = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .count();
    assert!(listed > 20, "{help}");
    assert!(
        names.len() > listed,
        "{} pages for {listed} commands",
        names.len()
    );
    let stdout_page = scry(h, &["man"]);
    assert_eq!(stdout_page.code, 0);
    assert_eq!(
        stdout_page.stdout,
        std::fs::read_to_string(&pages[0]).unwrap()
    );
    if !have("man") {
        return;
    }
    for page in &pages {
        let p = page.to_str().unwrap();
        let (text, stderr, code) = run(
            h,
            "man",
            &["-l", "-Tutf8", p],
            &[("MANWIDTH", "80"), ("MAN_KEEP_FORMATTING", "0")],
        );
        assert_eq!(code, 0, "{p}: {stderr}");
        assert_eq!(stderr, "", "{p} renders with warnings");
        assert!(!text.trim().is_empty(), "{p}");
    }
    // The page says what --help says.
    let turn_help = scry(h, &["turn", "--help"]).stdout;
    let roff = std::fs::read_to_string(out_dir.join("scry-turn.1"))
        .unwrap()
        .replace("\\-", "-");
    for flag in ["--max-chars", "--cursor", "--no-pager"] {
        assert!(
            turn_help.contains(flag) && roff.contains(flag),
            "{flag}: {roff}"
        );
    }
}

/// A fake pager: records that it ran and what it was given (`$1`), then drains stdin.
fn fake_pager(dir: &Path) -> (PathBuf, PathBuf) {
    let log = dir.join("paged.txt");
    let script = dir.join("fake-pager");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"LESS=$LESS\" > '{0}'\ncat >> '{0}'\n",
            log.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (script, log)
}

/// Runs `scry args…` on a pseudo-terminal (`script -qec`); returns what the terminal showed
/// and the exit status.
fn on_pty(home: &Path, args: &str, vars: &[(&str, &str)]) -> (String, i32) {
    let (stdout, stderr, code) = run(
        home,
        "script",
        &["-qec", &format!("'{BIN}' {args}"), "/dev/null"],
        vars,
    );
    (format!("{stdout}{stderr}"), code)
}

#[test]
fn pager_runs_on_a_terminal_only() {
    if !have("script") {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let (pager, log) = fake_pager(h);
    let pager_s = pager.to_str().unwrap();
    let vars = [("SCRY_PAGER", pager_s), ("TERM", "xterm")];
    demo_ids(h);

    let (shown, code) = on_pty(h, "list --demo", &vars);
    assert_eq!(code, 0, "{shown}");
    let paged = std::fs::read_to_string(&log).expect("the pager ran on a terminal");
    // LESS=FRX only when $LESS is unset; the text keeps its colors through the pager.
    assert!(paged.starts_with("LESS=FRX\n"), "{paged}");
    assert!(paged.contains("8b2e4d60"), "{paged}");
    assert!(paged.contains("\u{1b}["), "colors were dropped: {paged:?}");
    std::fs::remove_file(&log).unwrap();

    // $PAGER when SCRY_PAGER is unset.
    let (shown, code) = on_pty(h, "turns 8b2e4d60 --demo", &[("PAGER", pager_s)]);
    assert_eq!(code, 0, "{shown}");
    assert!(log.exists(), "$PAGER was not used: {shown}");
    std::fs::remove_file(&log).unwrap();

    // Never with --no-pager, --json, or a command that does not page; never on a pipe.
    for args in [
        "list --demo --no-pager",
        "list --demo --json",
        "completions bash",
    ] {
        let (shown, code) = on_pty(h, args, &vars);
        assert_eq!(code, 0, "{args}: {shown}");
        assert!(!log.exists(), "paged with {args}");
        assert!(!shown.is_empty(), "{args}");
    }
    let (stdout, _, code) = run(h, BIN, &["list", "--demo"], &vars);
    assert_eq!(code, 0);
    assert!(stdout.contains("8b2e4d60") && !stdout.contains('\u{1b}'));
    assert!(!log.exists(), "paged into a pipe");

    // A pager that cannot start: one warning, the text written directly, exit 0.
    let (shown, code) = on_pty(h, "list --demo", &[("SCRY_PAGER", "/nonexistent/pager")]);
    assert_eq!(code, 0, "{shown}");
    assert_eq!(shown.matches("cannot use the pager").count(), 1, "{shown}");
    assert!(shown.contains("8b2e4d60"), "{shown}");
    let (shown, code) = on_pty(
        h,
        "list --demo",
        &[("SCRY_PAGER", "no-such-pager-x --flag 2>/dev/null")],
    );
    assert_eq!(code, 0, "{shown}");
    assert!(shown.contains("8b2e4d60"), "{shown}");

    // A pager closed early (it reads nothing and quits): scry ends quietly with exit 0.
    let (shown, code) = on_pty(h, "turn 8b2e4d60 1 --demo", &[("SCRY_PAGER", "true")]);
    assert_eq!(code, 0, "{shown}");
    assert!(!shown.contains("error"), "{shown}");
}

/// Writes `text` as the config file of `home`.
fn write_config(home: &Path, text: &str) -> PathBuf {
    let path = home.join(".config/scry/config.toml");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn config_shows_the_effective_settings() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = h.join("db/index.db");
    let vars: [(&str, &Path); 1] = [("SCRY_DB", &db)];
    let mut all = String::new();
    let mut show = |args: &[&str]| {
        all.push_str(&format!("$ scry {}\n", args.join(" ")));
        all.push_str(&redact(&scry_env(h, h, &vars, args).render(), h));
    };
    show(&["config"]);
    write_config(
        h,
        "# mine\n[exclude]\nproviders = [\"cursor\", \"grok\"]\npaths = [\"**/tmp/**\"]\n\
         projects = [\"~/scratch\"]\n\n[aider]\nroots = [\"~/src\", \"/srv/work\"]\n\n[pricing.\"my-model\"]\ninput = 1.5\noutput = 6\ncache_read = 0.15\n",
    );
    show(&["config"]);
    show(&["config", "--exclude-provider", "pi", "--no-index"]);
    show(&["config", "--json"]);
    insta::assert_snapshot!("config", all);
}

#[test]
fn config_errors_name_the_key_and_line() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let path = write_config(
        h,
        "[exclude]\nproviders = [\"cursor\"]\n\n[aider]\nroot = [\"~/src\"]\n",
    );
    let want = format!(
        "error: {}:5:1: key 'aider.root': unknown field `root`, expected `roots`\n",
        path.display()
    );
    // Every command that reads the config refuses it the same way (exit 2, one line).
    for args in [
        &["config"][..],
        &["config", "--json"],
        &["list"],
        &["doctor"],
    ] {
        let out = scry(h, args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.render());
        assert_eq!(out.stderr, want, "{args:?}");
    }
    // --edit still opens the broken file (to fix it), then checks it again: an editor that
    // fixes it makes it valid.
    let fix = h.join("fix.sh");
    std::fs::write(&fix, "#!/bin/sh\nsed -i 's/^root =/roots =/' \"$1\"\n").unwrap();
    let fix_s = fix.to_str().unwrap();
    let (stdout, stderr, code) = run(
        h,
        BIN,
        &["config", "--edit"],
        &[("EDITOR", "sh"), ("VISUAL", &format!("sh {fix_s}"))],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, format!("{} is valid\n", path.display()));
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("roots = [\"~/src\"]"));
    // An editor that leaves an error: named at once.
    let (_, stderr, code) = run(
        h,
        BIN,
        &["config", "--edit"],
        &[("EDITOR", "sh -c 'echo \"bogus = 1\" >> \"$0\"'")],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(":6:1: key 'aider.bogus': unknown field `bogus`"),
        "{stderr}"
    );

    // A missing file: --edit writes the commented template, which is valid as it is.
    let fresh = tempfile::tempdir().unwrap();
    let f = fresh.path();
    let (stdout, stderr, code) = run(f, BIN, &["config", "--edit"], &[("EDITOR", "true")]);
    assert_eq!(code, 0, "{stderr}");
    let created = f.join(".config/scry/config.toml");
    assert!(
        stderr.contains("created") && stdout.contains("is valid"),
        "{stderr}{stdout}"
    );
    let template = std::fs::read_to_string(&created).unwrap();
    assert!(
        template.contains("# providers = [\"cursor\"]"),
        "{template}"
    );
    let out = scry(f, &["config", "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    assert_eq!(out.json()["exists"], true);
}
