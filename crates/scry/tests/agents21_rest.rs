//! Issue 21, what was left open: Aider histories in the project directories other agents'
//! sessions name as their cwd (the same answers with and without the index, also when the
//! index is stale), a `--scope` elsewhere than the working directory walked for Aider, and the
//! empty `--global` Aider list's message.
//!
//! Layout of each test: a temporary HOME with a Claude session (cwd `p1`) and a pi session
//! (copied from the corpus, cwd rewritten to `p2`); `p1` and `p2` each hold a copy of the
//! corpus's Aider history (three launches); scry runs from a third, empty directory, so the
//! working-directory walk finds nothing by itself.

use std::path::{Path, PathBuf};

use crate::util::{claude_session, corpus, scry_env, Out};

/// The corpus's Aider project (three launches: 221342, 221409, 221429).
fn aider_project() -> PathBuf {
    corpus().join("real/home/new/work/proj-aider")
}

fn copy_history(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for name in [".aider.chat.history.md", ".aider.input.history"] {
        std::fs::copy(aider_project().join(name), dir.join(name)).unwrap();
    }
}

/// A pi session from the corpus with its cwd rewritten to `cwd`.
fn pi_session(home: &Path, cwd: &Path) {
    let src = corpus().join(
        "real/home/.pi/agent/sessions/--home-dev-more-work-proj-pi--/\
         2026-11-30T16-01-50-811Z_01a22d30-ecda-727d-b78c-ef0f21e58dab.jsonl",
    );
    let text = std::fs::read_to_string(src).unwrap();
    assert!(text.contains("/home/dev/more/work/proj-pi"));
    let text = text.replace("/home/dev/more/work/proj-pi", &cwd.display().to_string());
    let dir = home.join(".pi/agent/sessions/--x--");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("2026-11-30T16-01-50-811Z_01a22d30-ecda-727d-b78c-ef0f21e58dab.jsonl"),
        text,
    )
    .unwrap();
}

struct Setup {
    tmp: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let tmp = tempfile::tempdir().unwrap();
        let s = Setup { tmp };
        std::fs::create_dir_all(s.home()).unwrap();
        std::fs::create_dir_all(s.elsewhere()).unwrap();
        copy_history(&s.dir("p1"));
        copy_history(&s.dir("p2"));
        claude_session(&s.home(), "c1", &s.dir("p1").display().to_string(), 1);
        pi_session(&s.home(), &s.dir("p2"));
        s
    }
    fn dir(&self, name: &str) -> PathBuf {
        self.tmp.path().join(name)
    }
    fn home(&self) -> PathBuf {
        self.dir("home")
    }
    fn elsewhere(&self) -> PathBuf {
        self.dir("elsewhere")
    }
    fn db(&self) -> PathBuf {
        self.dir("index.db")
    }
    /// Runs scry from the empty directory with this setup's index.
    fn run(&self, args: &[&str]) -> Out {
        let db = self.db();
        scry_env(
            &self.home(),
            &self.elsewhere(),
            &[("SCRY_DB", db.as_path())],
            args,
        )
    }
    /// `args` with and without the index: both succeed with the same stdout, which is returned.
    fn both(&self, args: &[&str]) -> String {
        let indexed = self.run(args);
        assert_eq!(indexed.code, 0, "{}", indexed.render());
        let mut direct_args = args.to_vec();
        direct_args.push("--no-index");
        let direct = self.run(&direct_args);
        assert_eq!(direct.code, 0, "{}", direct.render());
        assert_eq!(
            indexed.stdout, direct.stdout,
            "indexed vs --no-index: {args:?}"
        );
        indexed.stdout
    }
}

/// The uris and cwds of `list --json`, sorted.
fn listed(stdout: &str) -> Vec<(String, String)> {
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap();
    let mut out: Vec<(String, String)> = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["uri"].as_str().unwrap_or_default().to_string(),
                s["cwd"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

fn aider_uris(project: &str) -> Vec<String> {
    ["221342", "221409", "221429"]
        .iter()
        .map(|t| format!("aider:20261201-{t}-{project}"))
        .collect()
}

#[test]
fn aider_histories_in_other_agents_cwds_are_found_with_and_without_the_index() {
    let s = Setup::new();
    let args = [
        "list",
        "--global",
        "--provider",
        "aider",
        "--limit",
        "100",
        "--json",
    ];
    let got = listed(&s.both(&args));
    let mut want: Vec<(String, String)> = Vec::new();
    for p in ["p1", "p2"] {
        for uri in aider_uris(p) {
            want.push((uri, s.dir(p).canonicalize().unwrap().display().to_string()));
        }
    }
    want.sort();
    assert_eq!(got, want);

    // Asking for Aider with one other provider: the cwds of the providers left out count too.
    let some = listed(&s.both(&[
        "list",
        "--global",
        "--provider",
        "claude,aider",
        "--limit",
        "100",
        "--json",
    ]));
    assert_eq!(some.len(), 7, "{some:?}");
    assert!(some.iter().any(|(u, _)| u == "aider:20261201-221342-p2"));

    // The whole list (Claude, pi and the six launches) is the same both ways too.
    let all = listed(&s.both(&["list", "--global", "--limit", "100", "--json"]));
    assert_eq!(all.len(), 8, "{all:?}");

    // A session id found this way resolves, and search reaches its text, both ways.
    let show = s.both(&["show", "aider:20261201-221409-p2", "--json"]);
    assert!(show.contains("\"resumed_from\""), "{show}");
    let found = s.both(&[
        "search",
        "--global",
        "--provider",
        "aider",
        "--json",
        "跨会话检索",
    ]);
    let v: serde_json::Value = serde_json::from_str(&found).unwrap();
    let mut uris: Vec<&str> = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|x| x["session"]["uri"].as_str())
        .collect();
    uris.sort();
    assert_eq!(
        uris,
        ["aider:20261201-221429-p1", "aider:20261201-221429-p2"]
    );

    // Excluding Aider drops them.
    let out = s.run(&["list", "--global", "--exclude-provider", "aider", "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    assert!(listed(&out.stdout)
        .iter()
        .all(|(u, _)| !u.starts_with("aider:")));
}

#[test]
fn a_new_session_naming_a_new_cwd_is_seen_at_once_by_the_indexed_command() {
    let s = Setup::new();
    let args = [
        "list",
        "--global",
        "--provider",
        "aider",
        "--limit",
        "100",
        "--json",
    ];
    assert_eq!(listed(&s.both(&args)).len(), 6);
    // The index now holds the two sessions; a third agent session appears, naming p3, whose
    // history is then found by the very next command, indexed (stale index) or not.
    copy_history(&s.dir("p3"));
    let dir = s.home().join(".claude/projects/-other");
    std::fs::create_dir_all(&dir).unwrap();
    let line = crate::util::claude_line("user", "c3", 0, &s.dir("p3").display().to_string(), "hi");
    std::fs::write(dir.join("c3.jsonl"), format!("{line}\n")).unwrap();
    // First the whole list, which looks the histories up after its refresh (the new session
    // parsed by that refresh names p3).
    let all = listed(&s.both(&["list", "--global", "--limit", "100", "--json"]));
    assert_eq!(all.len(), 12, "{all:?}");
    assert!(all.iter().any(|(u, _)| u == "aider:20261201-221342-p3"));
    let got = listed(&s.both(&args));
    assert_eq!(got.len(), 9, "{got:?}");
    assert!(got.iter().any(|(u, _)| u == "aider:20261201-221342-p3"));
    // A global search does the same for a session that appears before it.
    copy_history(&s.dir("p5"));
    let line = crate::util::claude_line("user", "c5", 0, &s.dir("p5").display().to_string(), "hi");
    std::fs::write(dir.join("c5.jsonl"), format!("{line}\n")).unwrap();
    let found = s.both(&["search", "--global", "--json", "跨会话检索"]);
    assert!(found.contains("aider:20261201-221429-p5"), "{found}");
    std::fs::remove_file(dir.join("c5.jsonl")).unwrap();
    // And when that session goes, so does the history it pointed at.
    std::fs::remove_file(dir.join("c3.jsonl")).unwrap();
    let all = listed(&s.both(&["list", "--global", "--limit", "100", "--json"]));
    assert_eq!(all.len(), 8, "{all:?}");
    assert_eq!(listed(&s.both(&args)).len(), 6);
}

#[test]
fn a_scope_elsewhere_is_walked_for_aider() {
    let s = Setup::new();
    // p4/sub holds a history no agent session names: only a walk finds it.
    copy_history(&s.dir("p4/sub"));
    let p4 = s.dir("p4").display().to_string();
    let global = listed(&s.both(&[
        "list",
        "--global",
        "--provider",
        "aider",
        "--limit",
        "100",
        "--json",
    ]));
    assert!(
        global.iter().all(|(_, c)| !c.contains("/p4/")),
        "{global:?}"
    );
    let scoped = listed(&s.both(&["list", "--scope", &p4, "--limit", "100", "--json"]));
    let uris: Vec<String> = scoped.into_iter().map(|(u, _)| u).collect();
    assert_eq!(uris, aider_uris("sub"));
    // A relative scope, and search's scope, too.
    let found = s.both(&["search", "--scope", "../p4", "--json", "跨会话检索"]);
    assert!(found.contains("aider:20261201-221429-sub"), "{found}");
}

#[test]
fn an_empty_global_aider_list_does_not_suggest_global() {
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    for extra in [None, Some("--no-index")] {
        let mut args = vec!["list", "--provider", "aider", "--global"];
        args.extend(extra);
        let out = scry_env(home.path(), cwd.path(), &[], &args);
        assert_eq!(out.code, 0, "{}", out.render());
        let text = format!("{}{}", out.stdout, out.stderr);
        assert!(text.contains("no sessions found"), "{}", out.render());
        assert!(!text.contains("--global"), "{}", out.render());
    }
}
