//! Read commands under a watcher's lease take their catalog from the index (issue 16): `list`
//! and search touch no source directory (the sources moved away, they still answer as before;
//! a killed watcher and they refresh and see it), their outputs equal those of a command that
//! discovers and refreshes (`--refresh`) over the corpus home, exclusions still hide rows, and
//! Aider histories below the command's directory are left to `--provider aider`. Also:
//! `events --follow` starts at the last page unless `--seq` or a cursor says otherwise.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::util::{claude_line, claude_session, corpus, scry_env, Out};
use crate::watch::{copy_dir, Watch};

/// `scry args…` on `home` with the index `db`, run from `cwd`.
fn run_in(home: &Path, cwd: &Path, db: &Path, args: &[&str]) -> Out {
    let out = scry_env(home, cwd, &[("SCRY_DB", db)], args);
    out.assert_no_panic();
    out
}

fn uris(out: &Out) -> Vec<String> {
    assert_eq!(out.code, 0, "{}", out.render());
    out.json()["sessions"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| {
                    s["uri"]
                        .as_str()
                        .or(s["session"]["uri"].as_str())
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `text` without its source fingerprints (JSON `"fingerprint": "…"` lines).
fn unprinted(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("\"fingerprint\""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn append(path: &Path, line: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(f, "{line}").unwrap();
}

/// Under a live lease `list` and search never look at the source directories: with the whole
/// `~/.claude/projects` moved away (the watcher stopped, so it cannot notice) they answer
/// exactly as before. Killed, the watcher's lease is dead: commands discover and refresh again
/// and see the move, and later changes.
#[test]
fn under_the_lease_list_and_search_read_no_source_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let db = tmp.path().join("index.db");
    let cwd = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&cwd).unwrap();
    let (pa, pb) = (tmp.path().join("proj-a"), tmp.path().join("proj-b"));
    std::fs::create_dir_all(&pa).unwrap();
    std::fs::create_dir_all(&pb).unwrap();
    claude_session(&home, "sess-a", &pa.display().to_string(), 2);
    claude_session(&home, "sess-b", &pb.display().to_string(), 3);
    let w = Watch::start(&home, &db);
    let scope = pa.display().to_string();
    let cmds: [&[&str]; 5] = [
        &["list", "--global", "--json"],
        &["search", "answer", "--global", "--json"],
        &["list", "--global"],
        &["list", "--scope", &scope, "--json"],
        &["search", "answer", "--scope", &scope, "--json"],
    ];
    let before: Vec<Out> = cmds.iter().map(|c| run_in(&home, &cwd, &db, c)).collect();
    assert_eq!(uris(&before[0]).len(), 2, "{}", before[0].render());
    assert_eq!(uris(&before[1]).len(), 2, "{}", before[1].render());
    assert_eq!(
        uris(&before[3]),
        ["claude:sess-a"],
        "{}",
        before[3].render()
    );
    assert_eq!(
        uris(&before[4]),
        ["claude:sess-a"],
        "{}",
        before[4].render()
    );

    w.signal("-STOP");
    let projects = home.join(".claude/projects");
    let aside = tmp.path().join("projects-aside");
    std::fs::rename(&projects, &aside).unwrap();
    // The page's fingerprints are of the files as they are now (a stat of each row's file,
    // O(page)): gone, they differ; everything else is the index's answer.
    for (c, b) in cmds.iter().zip(&before) {
        let now = run_in(&home, &cwd, &db, c);
        assert_eq!(now.code, 0, "{c:?}: {}", now.render());
        assert_eq!(
            unprinted(&now.stdout),
            unprinted(&b.stdout),
            "{c:?} read the sources under the lease"
        );
    }
    // --refresh discovers: the sessions are gone.
    let forced = run_in(
        &home,
        &cwd,
        &db,
        &["list", "--global", "--json", "--refresh"],
    );
    assert_eq!(uris(&forced), Vec::<String>::new(), "{}", forced.render());

    // Killed: the lease is dead, commands discover and refresh again.
    w.signal("-CONT");
    w.kill();
    std::fs::rename(&aside, &projects).unwrap();
    let a = projects.join("-test-proj/sess-a.jsonl");
    append(
        &a,
        &claude_line("user", "sess-a", 9, &scope, "markerafterkill"),
    );
    let found = run_in(
        &home,
        &cwd,
        &db,
        &["search", "markerafterkill", "--global", "--json"],
    );
    assert_eq!(uris(&found), ["claude:sess-a"], "{}", found.render());
    std::fs::remove_file(projects.join("-test-proj/sess-b.jsonl")).unwrap();
    let listed = run_in(&home, &cwd, &db, &["list", "--global", "--json"]);
    assert_eq!(uris(&listed), ["claude:sess-a"], "{}", listed.render());
}

/// An archived session (its source deleted while the watcher ran) keeps a default search on
/// the leased path: the answer, the archived hit with its `deleted` time included, equals
/// `--refresh`'s, and stays the same with every source directory moved away (no discovery).
#[test]
fn archived_sessions_keep_search_on_the_leased_path() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let db = tmp.path().join("index.db");
    let cwd = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&cwd).unwrap();
    let proj = tmp.path().join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    let scope = proj.display().to_string();
    claude_session(&home, "sess-a", &scope, 2);
    let gone = claude_session(&home, "sess-gone", &scope, 3);
    let w = Watch::start(&home, &db);
    std::fs::remove_file(&gone).unwrap();
    w.wait_for("the vanished line", |l| {
        l.iter()
            .any(|v| v["event"] == "change" && v["change"] == "vanished")
    });
    let cmds: [&[&str]; 3] = [
        &["search", "prompt", "--global", "--json"],
        &["search", "prompt", "--global"],
        &["search", "prompt", "--scope", &scope, "--json"],
    ];
    let before: Vec<Out> = cmds.iter().map(|c| run_in(&home, &cwd, &db, c)).collect();
    let mut found = uris(&before[0]);
    found.sort();
    assert_eq!(
        found,
        ["claude:sess-a", "claude:sess-gone"],
        "{}",
        before[0].render()
    );
    let answer = before[0].json();
    let hit = answer["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["session"]["uri"] == "claude:sess-gone")
        .unwrap();
    assert!(hit["deleted"].is_string(), "{hit}");
    for (c, b) in cmds.iter().zip(&before) {
        let mut forced = c.to_vec();
        forced.push("--refresh");
        let forced = run_in(&home, &cwd, &db, &forced);
        assert_eq!(forced.stdout, b.stdout, "{c:?}: leased != discovered");
    }
    w.signal("-STOP");
    let projects = home.join(".claude/projects");
    std::fs::rename(&projects, tmp.path().join("projects-aside")).unwrap();
    for (c, b) in cmds.iter().zip(&before) {
        let now = run_in(&home, &cwd, &db, c);
        assert_eq!(now.code, 0, "{c:?}: {}", now.render());
        assert_eq!(
            unprinted(&now.stdout),
            unprinted(&b.stdout),
            "{c:?} left the leased path"
        );
    }
    w.signal("-CONT");
    w.kill();
}

/// Exclusions from the config file (the watcher's and the commands', so the lease covers
/// them) still hide rows under the lease, where `list` and search read the catalog the index
/// holds (path and project exclusions need a file's path or cwd): same answers as with
/// `--refresh`, and the same again with the sources moved away.
#[test]
fn config_exclusions_hide_rows_under_the_lease() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let db = tmp.path().join("index.db");
    let cwd = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&cwd).unwrap();
    let dirs: Vec<PathBuf> = ["proj-a", "proj-b", "proj-c"]
        .iter()
        .map(|d| tmp.path().join(d))
        .collect();
    for (i, d) in dirs.iter().enumerate() {
        std::fs::create_dir_all(d).unwrap();
        claude_session(&home, &format!("sess-{i}"), &d.display().to_string(), 2);
    }
    // sess-2 also under a path the config excludes.
    let hidden = home.join(".claude/projects/-hidden");
    std::fs::create_dir_all(&hidden).unwrap();
    std::fs::rename(
        home.join(".claude/projects/-test-proj/sess-2.jsonl"),
        hidden.join("sess-2.jsonl"),
    )
    .unwrap();
    let config = home.join(".config/scry");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        format!(
            "[exclude]\nprojects = [\"{}\"]\npaths = [\"**/-hidden\"]\n",
            dirs[1].display()
        ),
    )
    .unwrap();
    let w = Watch::start(&home, &db);
    let cmds: [&[&str]; 4] = [
        &["list", "--global", "--json"],
        &["list", "--global", "--kind", "all"],
        &["search", "answer", "--global", "--json"],
        &["search", "answer", "--global"],
    ];
    let leased: Vec<Out> = cmds.iter().map(|c| run_in(&home, &cwd, &db, c)).collect();
    assert_eq!(
        uris(&leased[0]),
        ["claude:sess-0"],
        "{}",
        leased[0].render()
    );
    assert_eq!(
        uris(&leased[2]),
        ["claude:sess-0"],
        "{}",
        leased[2].render()
    );
    for (c, l) in cmds.iter().zip(&leased) {
        let mut forced = c.to_vec();
        forced.push("--refresh");
        let forced = run_in(&home, &cwd, &db, &forced);
        assert_eq!(l.stdout, forced.stdout, "{c:?}: leased != discovered");
    }
    w.signal("-STOP");
    std::fs::rename(home.join(".claude/projects"), tmp.path().join("aside")).unwrap();
    for (c, l) in cmds.iter().zip(&leased) {
        let now = run_in(&home, &cwd, &db, c);
        assert_eq!(
            unprinted(&now.stdout),
            unprinted(&l.stdout),
            "{c:?} read the sources under the lease"
        );
    }
    w.signal("-CONT");
}

/// The answers under the lease (catalog from the index) are byte-identical to those of a
/// command that discovers and refreshes (`--refresh`), over every provider of the corpus
/// home: text and JSON, folded and not, scoped, by provider, paged, searched.
#[test]
fn leased_answers_equal_discovered_ones_over_the_corpus() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let db = tmp.path().join("index.db");
    let cwd = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&cwd).unwrap();
    copy_dir(&corpus().join("real/home"), &home);
    let _w = Watch::start(&home, &db);
    let all = run_in(
        &home,
        &cwd,
        &db,
        &[
            "list", "--global", "--kind", "all", "--json", "--limit", "1000",
        ],
    );
    let listed = all.json();
    let n = listed["sessions"].as_array().map_or(0, Vec::len);
    assert!(n > 20, "the corpus home lists {n} sessions");
    let some_cwd = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|s| s["cwd"].as_str().map(str::to_string))
        .expect("a session with a cwd");
    let cases: Vec<Vec<&str>> = vec![
        vec![
            "list", "--global", "--kind", "all", "--json", "--limit", "1000",
        ],
        vec!["list", "--global", "--json"],
        vec!["list", "--global"],
        vec!["list", "--global", "--limit", "3", "--json"],
        vec!["list", "--global", "--kind", "subagent", "--json"],
        vec!["list", "--global", "--provider", "claude,pi", "--json"],
        vec!["list", "--global", "--since", "2000-01-01", "--json"],
        vec!["list", "--global", "--exclude-provider", "codex", "--json"],
        vec!["list", "--global", "--exclude-path", "*/.pi/*", "--json"],
        vec!["list", "--global", "--exclude-project", &some_cwd, "--json"],
        vec!["search", "the", "--global", "--json"],
        vec!["search", "the", "--global"],
        vec![
            "search",
            "error",
            "--global",
            "--provider",
            "codex",
            "--json",
        ],
        vec![
            "search",
            "the",
            "--global",
            "--exclude-project",
            &some_cwd,
            "--json",
        ],
        vec![
            "search",
            "the",
            "--global",
            "--exclude-path",
            "*/.claude/*",
            "--json",
        ],
    ];
    for args in &cases {
        let leased = run_in(&home, &cwd, &db, args);
        let mut forced_args = args.clone();
        forced_args.push("--refresh");
        let forced = run_in(&home, &cwd, &db, &forced_args);
        assert_eq!(leased.code, forced.code, "{args:?}: {}", leased.render());
        assert_eq!(
            leased.stdout, forced.stdout,
            "{args:?}: leased != discovered"
        );
        assert_eq!(leased.code, 0, "{args:?}: {}", leased.render());
    }
    // Exclusions hide rows under the lease too.
    let count = |args: &[&str]| uris(&run_in(&home, &cwd, &db, args)).len();
    let base = [
        "list", "--global", "--kind", "all", "--limit", "1000", "--json",
    ];
    let mut no_pi = base.to_vec();
    no_pi.extend(["--exclude-path", "*/.pi/*"]);
    let mut no_claude = base.to_vec();
    no_claude.extend(["--exclude-provider", "claude"]);
    assert!(count(&no_pi) < n, "--exclude-path hid nothing");
    assert!(count(&no_claude) < n, "--exclude-provider hid nothing");
}

/// Aider histories below the directory a command runs in are not what the watcher keeps
/// current: under the lease a plain `list` does not walk the cwd (nor list them); asking for
/// Aider by name discovers it as without a lease.
#[test]
fn aider_histories_in_the_cwd_are_left_to_provider_aider_under_the_lease() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let db = tmp.path().join("index.db");
    let project = tmp.path().join("proj");
    std::fs::create_dir_all(&project).unwrap();
    claude_session(&home, "sess-a", "/work/leased", 2);
    let src = find_aider(&corpus().join("real/home")).expect("an Aider history in the corpus");
    std::fs::copy(&src, project.join(".aider.chat.history.md")).unwrap();
    let _w = Watch::start(&home, &db);
    let plain = run_in(&home, &project, &db, &["list", "--global", "--json"]);
    assert_eq!(uris(&plain), ["claude:sess-a"], "{}", plain.render());
    let aider = run_in(
        &home,
        &project,
        &db,
        &["list", "--global", "--provider", "aider", "--json"],
    );
    let direct = run_in(
        &home,
        &project,
        &db,
        &[
            "list",
            "--global",
            "--provider",
            "aider",
            "--json",
            "--no-index",
        ],
    );
    assert!(!uris(&aider).is_empty(), "{}", aider.render());
    assert_eq!(aider.stdout, direct.stdout);
}

/// The first `.aider.chat.history.md` under `dir`.
fn find_aider(dir: &Path) -> Option<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.file_name().is_some_and(|n| n == ".aider.chat.history.md") && p.is_file() {
            return Some(p);
        }
        if p.is_dir() {
            if let Some(f) = find_aider(&p) {
                return Some(f);
            }
        }
    }
    None
}

/// The first JSON line `events <id> --follow --json …` prints (its first page); the follower
/// is killed once it printed it.
fn follow_first_page(home: &Path, db: &Path, args: &[&str]) -> Value {
    let mut child = Command::new(env!("CARGO_BIN_EXE_scry"))
        .env_clear()
        .env("HOME", home)
        .env("TZ", "UTC")
        .env("SCRY_DB", db)
        .current_dir(home)
        .args(["events", "sess-f", "--follow", "--json"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start scry events --follow");
    let mut line = String::new();
    let out = child.stdout.take().expect("stdout");
    let read = BufReader::new(out).read_line(&mut line);
    let _ = child.kill();
    let _ = child.wait();
    assert!(read.is_ok_and(|n| n > 0), "no first page from {args:?}");
    serde_json::from_str(&line).expect("a JSON page")
}

fn seqs(page: &Value) -> Vec<u64> {
    page["events"]
        .as_array()
        .map(|a| a.iter().filter_map(|e| e["seq"].as_u64()).collect())
        .unwrap_or_default()
}

/// `events --follow` starts at the last page (`tail -f`), with or without the index; `--seq`
/// and a cursor still choose where it starts.
#[test]
fn follow_starts_at_the_last_page_unless_told_where() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let db = tmp.path().join("index.db");
    claude_session(&home, "sess-f", "/work/follow", 6);
    let all = run_in(
        &home,
        &home,
        &db,
        &["events", "sess-f", "--json", "--limit", "1000"],
    );
    assert_eq!(all.code, 0, "{}", all.render());
    let total = seqs(&all.json()).len() as u64;
    assert!(total >= 12, "{total} events");
    for extra in [&[][..], &["--no-index"][..]] {
        let mut args = vec!["--limit", "3"];
        args.extend(extra);
        let last = follow_first_page(&home, &db, &args);
        assert_eq!(seqs(&last), [total - 3, total - 2, total - 1], "{last}");
        assert_eq!(last["from"], total - 2, "{last}");
        assert_eq!(last["next_cursor"], Value::Null, "{last}");

        let mut args = vec!["--limit", "3", "--seq", "0-"];
        args.extend(extra);
        assert_eq!(seqs(&follow_first_page(&home, &db, &args)), [0, 1, 2]);
    }
    let first = run_in(
        &home,
        &home,
        &db,
        &["events", "sess-f", "--json", "--limit", "3"],
    );
    let cursor = first.json()["next_cursor"]
        .as_str()
        .expect("a next cursor")
        .to_string();
    let from_cursor = follow_first_page(&home, &db, &["--limit", "3", "--cursor", &cursor]);
    assert_eq!(seqs(&from_cursor), [3, 4, 5]);
}

/// `show`, `turns`, `events` and `search --session` resolve the id from the index under the
/// lease (the sources' discovery ids are stored with them): for every session of the corpus
/// home the answer equals that of a command that discovers (`--refresh`), by full id, and for
/// some by `provider:id` and by an 8-character prefix, errors included (too short, no match,
/// an unknown provider). With the source directory moved away, an indexed session still
/// resolves under the lease, where discovery finds nothing.
#[test]
fn ids_resolve_from_the_index_under_the_lease() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let db = tmp.path().join("index.db");
    let cwd = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&cwd).unwrap();
    copy_dir(&corpus().join("real/home"), &home);
    let w = Watch::start(&home, &db);
    let all = run_in(
        &home,
        &cwd,
        &db,
        &[
            "list", "--global", "--kind", "all", "--json", "--limit", "1000",
        ],
    );
    let sessions: Vec<(String, String)> = all.json()["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let id = s["id"].as_str().unwrap().to_string();
            (s["provider"].as_str().unwrap().to_string(), id)
        })
        .collect();
    assert!(sessions.len() > 20, "{}", all.render());
    let same = |args: &[&str]| {
        let leased = run_in(&home, &cwd, &db, args);
        let mut forced = args.to_vec();
        forced.push("--refresh");
        let forced = run_in(&home, &cwd, &db, &forced);
        assert_eq!(
            (leased.code, &leased.stdout, &leased.stderr),
            (forced.code, &forced.stdout, &forced.stderr),
            "{args:?}: leased != discovered"
        );
        leased
    };
    let mut resolved = 0;
    for (i, (provider, id)) in sessions.iter().enumerate() {
        if same(&["show", id, "--json"]).code == 0 {
            resolved += 1;
        }
        if i % 4 == 0 {
            let uri = format!("{provider}:{id}");
            let prefix: String = id.chars().take(8).collect();
            same(&["turns", &uri, "--json"]);
            same(&["events", &prefix, "--json", "--limit", "5"]);
            same(&["search", "the", "--session", id, "--json"]);
        }
    }
    assert!(resolved > 20, "{resolved} sessions resolved");
    for bad in ["abc", "zzzzzzzz-none", "nosuchagent:abcdefgh"] {
        assert_ne!(same(&["show", bad, "--json"]).code, 0, "{bad}");
    }

    // A copy of the pi session under another id with the same first 8 characters, made while
    // the watcher is stopped: discovery finds both (the prefix is ambiguous), the index holds
    // one (it resolves).
    let (_, id) = sessions
        .iter()
        .find(|(p, _)| p == "pi")
        .expect("a pi session");
    let pi = std::fs::read_dir(home.join(".pi/agent/sessions"))
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains(id.as_str()))
        .expect("the pi file");
    w.signal("-STOP");
    let twin = pi
        .to_string_lossy()
        .replace(&id[9..], "0000-0000-0000-000000000000");
    std::fs::copy(&pi, &twin).unwrap();
    let prefix = &id[..8];
    let leased = run_in(&home, &cwd, &db, &["show", prefix, "--json"]);
    assert_eq!(leased.code, 0, "{}", leased.render());
    assert_eq!(
        leased.json()["session"]["id"],
        id.as_str(),
        "{}",
        leased.render()
    );
    let forced = run_in(&home, &cwd, &db, &["show", prefix, "--json", "--refresh"]);
    assert!(forced.stderr.contains("ambiguous"), "{}", forced.render());
    w.signal("-CONT");
    w.kill();
}

/// `index <id>` under a live lease resolves the id from the index (no discovery) but indexes
/// the file as it is now: a line appended while the watcher is stopped (so the index has not
/// seen it) is parsed, then found. Names the index cannot resolve fail as with `--refresh`.
#[test]
fn index_of_one_session_under_the_lease_reads_the_file_as_it_is_now() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let db = tmp.path().join("index.db");
    let cwd = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&cwd).unwrap();
    let proj = tmp.path().join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    let dir = proj.display().to_string();
    let path = claude_session(&home, "sess-i", &dir, 2);
    claude_session(&home, "sess-j", &dir, 2);
    let w = Watch::start(&home, &db);
    w.signal("-STOP");
    append(
        &path,
        &claude_line("user", "sess-i", 9, &dir, "markerbyindexid"),
    );
    let out = run_in(&home, &cwd, &db, &["index", "sess-i", "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let report = out.json();
    assert_eq!(report["files"], 1, "{}", out.render());
    assert_eq!(report["unchanged"], 0, "{}", out.render());
    let found = run_in(
        &home,
        &cwd,
        &db,
        &["search", "markerbyindexid", "--global", "--json"],
    );
    assert_eq!(uris(&found), ["claude:sess-i"], "{}", found.render());
    for bad in ["nosuchsession", "claude:zzzzzzzz"] {
        let leased = run_in(&home, &cwd, &db, &["index", bad, "--json"]);
        let forced = run_in(&home, &cwd, &db, &["index", bad, "--json", "--refresh"]);
        assert_ne!(leased.code, 0, "{}", leased.render());
        assert_eq!(
            (leased.code, &leased.stdout, &leased.stderr),
            (forced.code, &forced.stdout, &forced.stderr),
            "{bad}"
        );
    }
    w.signal("-CONT");
    w.kill();
}
