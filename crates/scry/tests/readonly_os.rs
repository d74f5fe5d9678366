//! Read-only proof at the operating-system level (SPEC P1, issue 10): the real corpus homes
//! (`real/home`, every `real-older/*/home`, the Deep Agents Code home) and the demo home are
//! copied into a temporary directory, every write bit is stripped recursively, and every read
//! command runs against them with the index (`SCRY_DB`) elsewhere. No command may fail, and a
//! manifest of every path — type, size, mtime, mode, content hash or link target — must be the
//! same before and after: nothing written, touched, renamed or created (no `-wal` / `-shm` /
//! `-journal` beside the SQLite sources, which include a WAL-mode database).
//!
//! Commands: `list` (cwd, `--global`, `--json --kind all`), `search` (literal, regex, terms,
//! `--area all`), `index` (`--all`, `--force`, one session), `doctor`, `workspace global`,
//! `inspect` (`--list`, one thread, `--mode transcript`, `--mode summary`), and for every
//! session `show`, `turns`, `turn` (`--raw`, `--event`), `commands`, `files`, `errors`, `jobs`,
//! `digest`, `graph`, `trace`, `context`, `export` (md, html `--redact`, json), `resume` —
//! half the sessions through the index, half with `--no-index` — plus `skill status` and `mcp`
//! (stdio, empty input). Any command `scry --help` lists that this file does not know is run
//! too, with a session id, and held to the same manifest. `serve` and `web` are servers that
//! run until stopped and are left out.
//!
//! CI runs the tests as root, where missing write bits stop nothing; the manifest comparison is
//! what proves the point there. As another user the stripped bits also make any write attempt
//! fail, which must not make a command fail.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::timed::{run, DEADLINE};
use crate::util::corpus;

/// One path's state: kind, size, mtime (ns), mode, xxh3 of the content or the link target.
type Manifest = BTreeMap<String, (char, u64, i128, u32, u64)>;

fn manifest(root: &Path) -> Manifest {
    let mut map = Manifest::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.expect("walk");
        let rel = entry
            .path()
            .strip_prefix(root)
            .expect("under root")
            .display()
            .to_string();
        let meta = std::fs::symlink_metadata(entry.path()).expect("lstat");
        let ft = meta.file_type();
        let (kind, hash) = if ft.is_symlink() {
            let target = std::fs::read_link(entry.path()).expect("readlink");
            (
                'l',
                xxhash_rust::xxh3::xxh3_64(target.as_os_str().as_encoded_bytes()),
            )
        } else if ft.is_file() {
            let bytes = std::fs::read(entry.path()).expect("read");
            ('f', xxhash_rust::xxh3::xxh3_64(&bytes))
        } else {
            ('d', 0)
        };
        let mtime = i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec());
        map.insert(rel, (kind, meta.len(), mtime, meta.mode(), hash));
    }
    map
}

/// Copies `src` to `dst` (files, directories, symlinks as symlinks).
fn copy_tree(src: &Path, dst: &Path) {
    for entry in walkdir::WalkDir::new(src) {
        let entry = entry.expect("walk corpus");
        let to = dst.join(entry.path().strip_prefix(src).expect("under src"));
        let ft = entry.file_type();
        if ft.is_dir() {
            std::fs::create_dir_all(&to).expect("mkdir");
        } else if ft.is_symlink() {
            let target = std::fs::read_link(entry.path()).expect("readlink");
            std::os::unix::fs::symlink(target, &to).expect("symlink");
        } else if ft.is_file() {
            std::fs::copy(entry.path(), &to).expect("copy");
        }
    }
}

/// Sets the permission bits of everything under `root` (not following symlinks): `strip`
/// clears every write bit, otherwise the owner's write bit comes back (so the tempdir can be
/// removed).
fn set_writable(root: &Path, writable: bool) {
    // Directories last when stripping (contents first), first when restoring.
    let mut paths: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .flatten()
        .filter(|e| !e.file_type().is_symlink())
        .map(|e| e.into_path())
        .collect();
    if !writable {
        paths.reverse();
    }
    for p in paths {
        let Ok(meta) = std::fs::metadata(&p) else {
            continue;
        };
        let mode = meta.permissions().mode();
        let mode = if writable {
            mode | 0o200
        } else {
            mode & !0o222
        };
        let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode));
    }
}

/// Restores write bits when dropped, so a failing test still cleans up.
struct Restore(PathBuf);

impl Drop for Restore {
    fn drop(&mut self) {
        set_writable(&self.0, true);
    }
}

/// Commands `scry --help` lists.
fn listed_commands(home: &Path, db: &Path) -> Vec<String> {
    let help = run(home, db, &[], &["--help"], DEADLINE).out;
    let mut in_commands = false;
    let mut out = Vec::new();
    for line in help.stdout.lines() {
        if line.starts_with("Commands:") {
            in_commands = true;
            continue;
        }
        if in_commands {
            if line.trim().is_empty() || !line.starts_with("  ") {
                break;
            }
            if let Some(name) = line.split_whitespace().next() {
                if name != "help" {
                    out.push(name.to_string());
                }
            }
        }
    }
    out
}

/// Commands this proof runs explicitly (`serve` and `web` are servers that run until stopped:
/// not run here; the HTTP tests drive them).
const KNOWN: &[&str] = &[
    "list",
    "show",
    "turns",
    "turn",
    "commands",
    "files",
    "errors",
    "jobs",
    "digest",
    "workspace",
    "graph",
    "trace",
    "context",
    "doctor",
    "inspect",
    "search",
    "index",
    "export",
    "resume",
    "skill",
    "mcp",
    "serve",
    "web",
];

/// Every session uri of a home.
fn uris(home: &Path, db: &Path) -> Vec<String> {
    let t = run(
        home,
        db,
        &[],
        &[
            "list", "--global", "--kind", "all", "--limit", "100000", "--json",
        ],
        DEADLINE,
    );
    assert_eq!(t.out.code, 0, "{}", t.out.render());
    t.out.json()["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["uri"].as_str().map(str::to_string))
        .collect()
}

/// Runs every read command over `home`; returns how many commands ran.
fn run_all(home: &Path, db: &Path, extra: &[String]) -> usize {
    let mut ran = 0;
    let mut check = |args: &[&str], ok: &[i32]| {
        let t = run(home, db, &[], args, DEADLINE);
        ran += 1;
        // An empty `ok` accepts any exit status (a panic or a hang still fails).
        assert!(
            ok.is_empty() || ok.contains(&t.out.code),
            "scry {} (HOME={}):\n{}",
            args.join(" "),
            home.display(),
            t.out.render()
        );
        t
    };
    for args in [
        &["index", "--all", "--json"][..],
        &["list"],
        &["list", "--global"],
        &["list", "--global", "--json", "--kind", "all"],
        &["list", "--global", "--no-index", "--json"],
        &["search", "--global", "the"],
        &[
            "search",
            "--global",
            "--json",
            "--area",
            "all",
            "--regex",
            r"err(or)?\w*",
        ],
        &[
            "search",
            "--global",
            "--json",
            "--terms",
            r#"["file","read"]"#,
            "--operator",
            "or",
        ],
        &["search", "--global", "--no-index", "--area", "all", "a"],
        &["doctor"],
        &["doctor", "--json"],
        &["workspace", "global"],
        &["workspace", "--json", "global"],
        &["index", "--all", "--force"],
        &["skill", "status"],
        &["skill", "status", "--json"],
    ] {
        // `search` exits 1 when nothing matched (a small home may hold no match).
        let ok: &[i32] = if args[0] == "search" { &[0, 1] } else { &[0] };
        check(args, ok);
    }
    let ids = uris(home, db);
    assert!(!ids.is_empty(), "no sessions in {}", home.display());
    // Deep Agents threads through `inspect` (its database, when the home has one).
    let sessions_db = home.join(".deepagents/.state/sessions.db");
    if sessions_db.is_file() {
        let db_arg = sessions_db.display().to_string();
        let list = check(
            &["inspect", "--db", &db_arg, "--list", "50", "--json"],
            &[0],
        );
        let threads: Vec<String> = serde_json::from_str::<serde_json::Value>(&list.out.stdout)
            .ok()
            .and_then(|v| {
                let arr = v
                    .as_array()
                    .cloned()
                    .or_else(|| v["threads"].as_array().cloned())?;
                Some(
                    arr.iter()
                        .filter_map(|t| t["thread_id"].as_str().map(str::to_string))
                        .collect(),
                )
            })
            .unwrap_or_default();
        for t in threads.iter().take(4) {
            for mode in ["latest-turn", "transcript", "summary"] {
                check(
                    &["inspect", "--db", &db_arg, "--mode", mode, "--json", t],
                    &[0],
                );
            }
        }
        check(&["inspect", "--db", &db_arg, "--list", "5"], &[0]);
    }
    // The MCP server over stdio: stdin is empty, so it starts, reads EOF and stops.
    check(&["mcp"], &[]);
    for (i, uri) in ids.iter().enumerate() {
        let u = uri.as_str();
        let no_index = i % 2 == 1;
        let per_session: &[&[&str]] = &[
            &["show", u],
            &["show", "--json", u],
            &["turns", u],
            &["turn", "--raw", u, "0-1000"],
            &["turn", "--json", u, "--event", "1-50"],
            &["commands", u],
            &["files", "--json", u],
            &["errors", u],
            &["jobs", "--json", u],
            &["digest", u],
            &["graph", "--json", u],
            &["trace", u],
            &["context", "--json", u],
            &["index", u],
            &["export", "--format", "md", u],
            &["export", "--format", "html", "--redact", u],
            &["export", "--format", "json", u],
        ];
        for args in per_session {
            let mut args: Vec<&str> = args.to_vec();
            if no_index && args[0] != "index" {
                args.push("--no-index");
            }
            // `turn` with a range past the end is a range error (2) on a session without turns.
            let ok: &[i32] = if args[0] == "turn" { &[0, 2] } else { &[0] };
            check(&args, ok);
        }
        // `resume` prints the agent's own command (never `--exec` here); some providers have
        // none, which is an error of theirs to define.
        check(&["resume", u], &[]);
        // Commands added after this file was written: run them once per session and hold them
        // to the manifest; their exit status is theirs to define, a panic is not.
        for cmd in extra {
            check(&[cmd.as_str(), u], &[]);
        }
    }
    ran
}

fn homes() -> Vec<(String, PathBuf)> {
    let c = corpus();
    let mut v = vec![
        ("real".to_string(), c.join("real/home")),
        ("dcode".to_string(), c.join("langgraph/dcode/home")),
        (
            "demo".to_string(),
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home"),
        ),
    ];
    let mut older: Vec<(String, PathBuf)> = std::fs::read_dir(c.join("real-older"))
        .expect("real-older")
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                e.path().join("home"),
            )
        })
        .filter(|(_, p)| p.is_dir())
        .collect();
    older.sort();
    v.extend(older);
    v
}

#[test]
fn read_only_copies_of_every_home_stay_byte_identical() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("homes");
    let db_dir = tmp.path().join("index");
    std::fs::create_dir_all(&db_dir).expect("mkdir index");
    let mut homes_copied = Vec::new();
    for (name, src) in homes() {
        let src = src.canonicalize().expect("corpus home present");
        let dst = root.join(&name);
        copy_tree(&src, &dst);
        homes_copied.push((name, dst));
    }
    let _restore = Restore(root.clone());
    set_writable(&root, false);
    let before = manifest(&root);
    let sqlite_sources = before
        .keys()
        .filter(|k| k.ends_with(".db") || k.ends_with(".sqlite"))
        .count();
    assert!(sqlite_sources >= 2, "expected SQLite sources in the corpus");

    let probe = &homes_copied[0].1;
    let listed = listed_commands(probe, &db_dir.join("probe.db"));
    let extra: Vec<String> = listed
        .iter()
        .filter(|c| !KNOWN.contains(&c.as_str()))
        .cloned()
        .collect();
    let mut total = 0;
    for (name, home) in &homes_copied {
        let n = run_all(home, &db_dir.join(format!("{name}.db")), &extra);
        println!("read-only proof: {name}: {n} commands");
        total += n;
    }
    let after = manifest(&root);
    let added: Vec<&String> = after.keys().filter(|k| !before.contains_key(*k)).collect();
    let removed: Vec<&String> = before.keys().filter(|k| !after.contains_key(*k)).collect();
    assert!(
        added.is_empty(),
        "files appeared in the read-only homes: {added:?}"
    );
    assert!(
        removed.is_empty(),
        "files vanished from the read-only homes: {removed:?}"
    );
    let changed: Vec<&String> = before
        .iter()
        .filter(|(k, v)| after.get(*k) != Some(v))
        .map(|(k, _)| k)
        .collect();
    assert!(
        changed.is_empty(),
        "files changed in the read-only homes: {changed:?}"
    );
    println!(
        "read-only proof: {total} commands over {} homes, {} paths ({sqlite_sources} SQLite \
         sources) unchanged; commands beyond the known list: {extra:?}",
        homes_copied.len(),
        before.len()
    );
}
