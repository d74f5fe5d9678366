//! Resuming (SPEC S-I2, issue #5): on every pi session of the corpus and the demo home, a
//! prefix parsed with resume points and continued from its point over the whole file equals
//! the full parse — events, warnings and header — at every line boundary, at torn cuts, and
//! chained. A continuation along the active branch resumes; a jump back in the tree (which
//! changes which earlier entries are abandoned) is refused and parsed whole.

use std::io::Write;
use std::path::{Path, PathBuf};

use scry_source::{Emitter, Source, SourceFile};
use scry_source_pi::PiSource;
use scry_testkit::{corpus, law};

fn jsonl_under(dir: &Path, out: &mut Vec<PathBuf>) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                jsonl_under(&p, out);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
}

fn make(p: &Path) -> SourceFile {
    PiSource
        .detect(p)
        .unwrap_or_else(|| panic!("not detected: {}", p.display()))
}

fn all_cuts(bytes: &[u8]) -> Vec<usize> {
    let ends = law::line_ends(bytes);
    let mut cuts = ends.clone();
    let mut prev = 0;
    for e in ends {
        cuts.push((prev + e) / 2);
        prev = e;
    }
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

#[test]
fn the_law_holds_on_every_corpus_and_demo_session() {
    let mut files = Vec::new();
    for dir in [
        corpus().join("real/home/.pi"),
        corpus().join("third-party/pi"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home/.pi"),
    ] {
        let mut found = Vec::new();
        jsonl_under(&dir, &mut found);
        found.sort();
        files.extend(found.into_iter().filter(|p| PiSource.detect(p).is_some()));
    }
    let mut total = law::Tally::default();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let t = law::check(&PiSource, path, &make, &all_cuts(&bytes), 3);
        assert!(t.resumed > 0, "{}", path.display());
        total.cuts += t.cuts;
        total.resumed += t.resumed;
        total.torn += t.torn;
    }
    eprintln!("{} files, {total:?}", files.len());
    // The real 0.73.1 session, the third-party v3 fixture, the demo session.
    assert_eq!(files.len(), 3);
}

const HEAD: &str = r#"{"type":"session","version":3,"id":"7d0c7b2e-1111-4222-8333-444455556666","timestamp":"2026-11-04T10:00:00.000Z","cwd":"/home/demo/p"}"#;

fn entry(id: &str, parent: Option<&str>, text: &str) -> String {
    let p = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{p},"timestamp":"2026-11-04T10:00:01.000Z","message":{{"role":"user","content":"{text}"}}}}"#
    ) + "\n"
}

fn session(tmp: &Path, text: &str) -> (PathBuf, SourceFile) {
    let dir = tmp.join("agent/sessions/--home-demo-p--");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("2026-11-04T10-00-00-000Z_7d0c7b2e-1111-4222-8333-444455556666.jsonl");
    std::fs::write(&path, text).unwrap();
    let file = make(&path);
    (path, file)
}

#[test]
fn continuing_the_branch_resumes_and_a_tree_jump_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let base =
        format!("{HEAD}\n") + &entry("u1", None, "first") + &entry("a1", Some("u1"), "second");
    let (path, file) = session(tmp.path(), &base);
    let indexed = law::full(&PiSource, &file);
    let p = indexed.point.clone().expect("a point at the end");
    assert_eq!(p.offset, base.len() as u64);

    // Along the branch: resumed, reading only the new bytes (twice: ids, then events).
    let more = entry("u2", Some("a1"), "third");
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(more.as_bytes())
        .unwrap();
    let before = scry_source::jsonl::thread_bytes_read();
    let mut sink = law::Keep::default();
    let mut out = Emitter::resumed(&mut sink, &p.emitter);
    PiSource
        .parse_into_from(&file, &p, &mut out)
        .expect("resumes");
    assert_eq!(
        scry_source::jsonl::thread_bytes_read() - before,
        2 * more.len() as u64
    );
    let got = law::resume(&PiSource, &file, &indexed);
    law::assert_session_eq(&got.session, &PiSource.parse(&file).unwrap(), "branch");

    // A jump back: the new entry hangs off u1, so a1 becomes abandoned — refused.
    std::fs::write(&path, base.clone() + &entry("b1", Some("u1"), "other way")).unwrap();
    let mut sink = law::Keep::default();
    let mut out = Emitter::resumed(&mut sink, &p.emitter);
    assert!(PiSource.parse_into_from(&file, &p, &mut out).is_err());
    // A repeated id is refused too.
    std::fs::write(&path, base + &entry("a1", Some("a1"), "again")).unwrap();
    let mut sink = law::Keep::default();
    let mut out = Emitter::resumed(&mut sink, &p.emitter);
    assert!(PiSource.parse_into_from(&file, &p, &mut out).is_err());
}

#[test]
fn the_law_holds_through_branches_summaries_and_damage() {
    let tmp = tempfile::tempdir().unwrap();
    let text = format!("{HEAD}\n")
        + &entry("u1", None, "first")
        + &entry("a1", Some("u1"), "attempt A")
        + &entry("b1", Some("u1"), "attempt B")
        + "{not json\n"
        + r#"{"type":"session_info","id":"i1","parentId":"b1","timestamp":"2026-11-04T10:00:05.000Z","name":"Fix the build"}"#
        + "\n"
        + r#"{"type":"hologram","id":"h1","parentId":"i1","timestamp":"2026-11-04T10:00:07.000Z"}"#
        + "\n"
        + r#"{"type":"message","id":"r9","parentId":"h1","timestamp":"2026-11-04T10:00:09.000Z","message":{"role":"toolResult","toolCallId":"ghost","toolName":"read","content":[{"type":"text","text":"x"}],"isError":false}}"#
        + "\n"
        + &entry("u2", Some("r9"), "go on");
    let (path, _) = session(tmp.path(), &text);
    let t = law::check(&PiSource, &path, &make, &all_cuts(text.as_bytes()), 3);
    assert!(t.resumed >= 8, "{t:?}");
}
