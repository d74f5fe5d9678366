//! Damaged copies of a real dsh session (corpus `real/home/.dsh`, session 585b2c35: 20,687
//! bytes, multi-frame): truncated at many lengths and with single bytes flipped. The reader
//! must never panic or fail the session; a truncated copy loses at most its torn last frame.

use std::path::{Path, PathBuf};

use scry_model::WarningKind;
use scry_source::{Source, SourceFile};
use scry_source_dsh::DshSource;

fn real_file() -> PathBuf {
    scry_testkit::corpus().join("real/home/.dsh/sessions/--home-dev-more-work-proj-dsh--/session-585b2c35-c272-448a-9521-a2d8028fa1c4/session.jsonl.zstd")
}

fn parse_bytes(dir: &Path, bytes: &[u8]) -> scry_model::Session {
    let path = dir.join("session.jsonl.zstd");
    std::fs::write(&path, bytes).unwrap();
    let f = SourceFile::new(scry_model::ProviderId::Dsh, "session-x", &path);
    let _ = DshSource.scan_header(&f).unwrap();
    DshSource.parse(&f).unwrap()
}

#[test]
fn truncated_copies_lose_only_the_torn_frame() {
    let bytes = std::fs::read(real_file()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let full = parse_bytes(tmp.path(), &bytes);
    assert!(full.warnings.is_empty());
    for len in (0..bytes.len()).step_by(61) {
        let s = parse_bytes(tmp.path(), &bytes[..len]);
        // Only frame-level damage (plus, where the cut falls between a call and its result,
        // nothing else: results never arrive before their calls).
        for w in &s.warnings {
            assert!(
                matches!(w.kind, WarningKind::CorruptFrame),
                "len {len}: unexpected warning {w}"
            );
        }
        assert!(s.warnings.len() <= 1, "len {len}: {:?}", s.warnings);
        assert!(s.events.len() <= full.events.len() + 2, "len {len}");
        // Every event of a truncated copy is an event of the full session, in order — except
        // the few rebuilt from a step's chunks when its closing message was cut off, and a
        // summary flushed before its checkpoint message arrived.
        let partial = s
            .events
            .iter()
            .filter(|e| {
                e.data.as_ref().is_some_and(|d| d.get("partial").is_some())
                    || e.subtype.as_deref() == Some("compaction_summary")
            })
            .count();
        let mut it = full.events.iter();
        let mut matched = 0;
        for e in s.events.iter().filter(|e| {
            !(e.data.as_ref().is_some_and(|d| d.get("partial").is_some())
                || e.subtype.as_deref() == Some("compaction_summary"))
        }) {
            if it.any(|f| f.locator == e.locator && f.text == e.text) {
                matched += 1;
            }
        }
        assert_eq!(matched + partial, s.events.len(), "len {len}");
    }
    // Cut exactly at frame boundaries (where the next magic number starts): clean, no warning.
    let magic = [0x28u8, 0xb5, 0x2f, 0xfd];
    let cuts: Vec<usize> = (1..bytes.len())
        .filter(|i| bytes[*i..].starts_with(&magic))
        .collect();
    assert!(
        cuts.len() > 10,
        "the real file has many frames ({})",
        cuts.len() + 1
    );
    let mut prev = 0;
    for cut in cuts {
        let s = parse_bytes(tmp.path(), &bytes[..cut]);
        assert!(s.warnings.is_empty(), "cut {cut}: {:?}", s.warnings);
        assert!(s.events.len() + 3 >= prev, "cut {cut}");
        prev = s.events.len();
    }
}

#[test]
fn flipped_bytes_never_panic() {
    let bytes = std::fs::read(real_file()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    for at in (0..bytes.len()).step_by(37) {
        let mut b = bytes.clone();
        b[at] ^= 0xa5;
        let s = parse_bytes(tmp.path(), &b);
        // A flipped byte damages at most the frame holding it (and whatever that frame's
        // records were needed for: pairing, the surface).
        assert!(
            s.warnings
                .iter()
                .any(|w| w.kind == WarningKind::CorruptFrame)
                || s.warnings.is_empty()
                || s.warnings.iter().all(|w| matches!(
                    w.kind,
                    WarningKind::CorruptRecord
                        | WarningKind::UnpairedResult
                        | WarningKind::Inconsistent
                        | WarningKind::InvalidUtf8
                        | WarningKind::UnknownRecord
                        | WarningKind::IncompleteTail
                )),
            "at {at}: {:?}",
            s.warnings
        );
    }
}
