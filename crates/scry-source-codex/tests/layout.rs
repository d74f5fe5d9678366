//! Discovery and on-disk layouts in temporary Codex homes: `$CODEX_HOME` vs `~/.codex`,
//! `sessions/YYYY/MM/DD`, `.jsonl.zst` (equal to the plain parse; the plain file wins when both
//! exist), flat `archived_sessions/`, TypeScript-era `sessions/rollout-*.json`, titles from
//! `session_index.jsonl`, `detect` and `scan_header`.

use std::fs;
use std::path::{Path, PathBuf};

use scry_model::{ProviderId, TitleSource};
use scry_source::{Env, Source};
use scry_source_codex::CodexSource;
use scry_testkit::corpus;

const MAIN: &str = "rollout-2026-11-30T14-52-34-01a22cf1-805d-7161-bbbc-a2414caa5633.jsonl";
const MAIN_ID: &str = "01a22cf1-805d-7161-bbbc-a2414caa5633";

fn real_main() -> PathBuf {
    corpus()
        .join("real/home/.codex/sessions/2026/11/30")
        .join(MAIN)
}

fn copy_into(dir: &Path, name: &str, from: &Path) -> PathBuf {
    fs::create_dir_all(dir).unwrap();
    let to = dir.join(name);
    fs::copy(from, &to).unwrap();
    to
}

#[test]
fn roots_follow_codex_home() {
    let src = CodexSource;
    let env = Env::with_home("/nonexistent-home");
    let roots = src.roots(&env);
    assert_eq!(roots[0].path, PathBuf::from("/nonexistent-home/.codex"));
    assert_eq!(roots[0].env_var, None);
    assert!(!roots[0].exists);
    let env = env.var_set("CODEX_HOME", "/elsewhere");
    let roots = src.roots(&env);
    assert_eq!(roots.len(), 1);
    assert_eq!(roots[0].path, PathBuf::from("/elsewhere"));
    assert_eq!(roots[0].env_var.as_deref(), Some("CODEX_HOME"));
}

#[test]
fn discovers_the_real_home() {
    let home = corpus().join("real/home");
    let d = CodexSource.discover(&Env::with_home(&home));
    let mut ids: Vec<_> = d.files.iter().map(|f| f.id.clone()).collect();
    ids.sort();
    assert_eq!(
        ids,
        [
            "01a22cf1-805d-7161-bbbc-a2414caa5633",
            "01a22cf1-88a4-7de1-a508-335da749c9f9",
            "01a22cf1-892d-7182-af0e-31b8d4237fb3"
        ]
    );
    assert!(d.warnings.is_empty());
    // The TypeScript era sits directly in sessions/.
    let old = corpus().join("real-older/codex-0.1.2505291658/home");
    let d = CodexSource.discover(&Env::with_home(&old));
    assert_eq!(d.files.len(), 2);
    assert!(d
        .files
        .iter()
        .all(|f| f.path.extension().unwrap() == "json"));
}

#[test]
fn zstd_rollout_parses_like_the_plain_one() {
    let tmp = tempfile::tempdir().unwrap();
    let day = tmp.path().join(".codex/sessions/2026/11/30");
    fs::create_dir_all(&day).unwrap();
    let zpath = day.join(format!("{MAIN}.zst"));
    let plain = fs::read(real_main()).unwrap();
    fs::write(&zpath, zstd::encode_all(&plain[..], 3).unwrap()).unwrap();

    let src = CodexSource;
    let d = src.discover(&Env::with_home(tmp.path()));
    assert_eq!(d.files.len(), 1);
    assert_eq!(d.files[0].id, MAIN_ID);
    let z = src.parse(&d.files[0]).unwrap();
    let p = src.parse(&src.detect(&real_main()).unwrap()).unwrap();
    assert_eq!(z.events, p.events, "identical events, offsets and locators");
    assert_eq!(z.warnings, p.warnings);
    let mut zh = z.header.clone();
    zh.sources = p.header.sources.clone();
    assert_eq!(zh, p.header);
    let h = src.scan_header(&d.files[0]).unwrap();
    assert_eq!(
        (h.id.as_str(), h.cwd.as_deref()),
        (MAIN_ID, p.header.cwd.as_deref())
    );

    // With the plain file beside it, the plain file wins.
    copy_into(&day, MAIN, &real_main());
    let d = src.discover(&Env::with_home(tmp.path()));
    assert_eq!(d.files.len(), 1);
    assert!(d.files[0].path.to_string_lossy().ends_with(".jsonl"));
}

#[test]
fn archived_sessions_and_session_index_titles() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("custom-codex");
    copy_into(&home.join("archived_sessions"), MAIN, &real_main());
    fs::write(
        home.join("session_index.jsonl"),
        format!(
            "{{\"id\":\"other\",\"thread_name\":\"Not this one\",\"updated_at\":\"2026-11-30T15:00:00Z\"}}\n\
             {{\"id\":\"{MAIN_ID}\",\"thread_name\":\"Notes work\",\"updated_at\":\"2026-11-30T15:00:00Z\"}}\n\
             {{\"id\":\"{MAIN_ID}\",\"thread_name\":\"Notes and a failing command\",\"updated_at\":\"2026-11-30T15:01:00Z\"}}\n"
        ),
    )
    .unwrap();
    let env = Env::with_home("/nonexistent").var_set("CODEX_HOME", home.to_string_lossy());
    let src = CodexSource;
    let d = src.discover(&env);
    assert_eq!(d.files.len(), 1);
    let f = &d.files[0];
    assert_eq!(f.provider, ProviderId::Codex);
    assert_eq!(f.id, MAIN_ID);
    assert_eq!(f.related, vec![home.join("session_index.jsonl")]);
    let s = src.parse(f).unwrap();
    assert_eq!(
        s.header.title.as_deref(),
        Some("Notes and a failing command")
    );
    assert_eq!(s.header.title_source, Some(TitleSource::Custom));
    assert_eq!(
        s.header.titles,
        vec!["Notes work", "Notes and a failing command"]
    );
    assert_eq!(s.header.sources[1], home.join("session_index.jsonl"));
    let h = src.scan_header(f).unwrap();
    assert_eq!(h.title, s.header.title);
    assert_eq!(h.kind, s.header.kind);
    // The header scan reads the tail for the last timestamp.
    assert_eq!(h.updated, s.header.updated);
    assert_eq!(h.created, s.header.created);
    // detect finds the index from the path too.
    let det = src.detect(&f.path).unwrap();
    assert_eq!(det.related, f.related);
}

#[test]
fn detect_recognizes_rollouts_only() {
    let src = CodexSource;
    assert!(src.detect(&real_main()).is_some());
    let bare = corpus().join(
        "real-older/codex-0.23.0/home/.codex/sessions/2026/11/30/rollout-2026-11-30T15-49-10-60e40a92-cf66-4f4c-82fd-dba660dd934f.jsonl",
    );
    assert_eq!(
        src.detect(&bare).unwrap().id,
        "60e40a92-cf66-4f4c-82fd-dba660dd934f"
    );
    let tmp = tempfile::tempdir().unwrap();
    let other = tmp.path().join("a.jsonl");
    fs::write(&other, "{\"type\":\"user\",\"sessionId\":\"x\"}\n").unwrap();
    assert!(src.detect(&other).is_none());
    let doc = tmp.path().join("b.json");
    fs::write(&doc, "{\"foo\":1}").unwrap();
    assert!(src.detect(&doc).is_none());
    assert!(src.detect(&tmp.path().join("missing.jsonl")).is_none());
}
