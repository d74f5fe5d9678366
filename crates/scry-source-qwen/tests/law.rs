//! The resume law (SPEC S-I2) as the index applies it, on every Qwen Code file of the corpus
//! and the demo: parse a prefix cut at every line end (and in the middle of every line) with
//! resume points requested, keep what came before the point, continue over the whole file →
//! events, warnings and header equal a full parse. Also chained, cut after cut.

use std::path::{Path, PathBuf};

use scry_model::{Event, Session, Warning};
use scry_source::{Emitter, Env, EventSink, ResumePoint, Source, SourceFile};
use scry_source_qwen::QwenSource;

#[derive(Default)]
struct Keep {
    events: Vec<Event>,
    warnings: Vec<Warning>,
    point: Option<ResumePoint>,
}

impl EventSink for Keep {
    fn event(&mut self, e: Event) {
        self.events.push(e);
    }
    fn warning(&mut self, w: Warning) {
        self.warnings.push(w);
    }
    fn wants_resume_points(&self) -> bool {
        true
    }
    fn resume_point(&mut self, p: ResumePoint) {
        assert!(self.point.is_none(), "one point per pass");
        self.point = Some(p);
    }
}

struct Indexed {
    session: Session,
    point: Option<ResumePoint>,
}

fn full(f: &SourceFile) -> Indexed {
    let mut sink = Keep::default();
    let header = {
        let mut out = Emitter::new(&mut sink);
        let mut h = QwenSource.parse_into(f, &mut out).unwrap();
        out.finish_header(&mut h);
        h
    };
    Indexed {
        session: Session {
            header,
            events: sink.events,
            warnings: sink.warnings,
        },
        point: sink.point,
    }
}

/// Continues `prev` over the grown file; `None` when the prefix offered no point.
fn resume(f: &SourceFile, prev: &Indexed) -> Option<Indexed> {
    let p = prev.point.as_ref()?;
    let mut sink = Keep::default();
    let header = {
        let mut out = Emitter::resumed(&mut sink, &p.emitter);
        let mut h = QwenSource.parse_into_from(f, p, &mut out).expect("resumes");
        out.finish_header(&mut h);
        h
    };
    let mut events = prev.session.events[..p.emitter.events as usize].to_vec();
    events.extend(sink.events);
    let mut warnings = prev.session.warnings[..p.emitter.warnings as usize].to_vec();
    warnings.extend(sink.warnings);
    Some(Indexed {
        session: Session {
            header,
            events,
            warnings,
        },
        point: sink.point.or_else(|| prev.point.clone()),
    })
}

fn same(got: &Session, want: &Session, what: &str) {
    assert_eq!(got.header, want.header, "{what}: header");
    assert_eq!(got.events.len(), want.events.len(), "{what}: event count");
    for (g, w) in got.events.iter().zip(&want.events) {
        assert_eq!(g, w, "{what}: event {}", w.seq);
    }
    assert_eq!(got.warnings, want.warnings, "{what}: warnings");
}

/// Every file of `home`, copied into a temporary home with the same layout.
fn check_home(home: &Path) -> (usize, usize) {
    let found = QwenSource.discover(&Env::with_home(home)).files;
    assert!(!found.is_empty());
    let (mut cuts, mut resumed) = (0, 0);
    for orig in found {
        let tmp = tempfile::tempdir().unwrap();
        let rel = orig.path.strip_prefix(home).unwrap();
        let path = tmp.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        for r in &orig.related {
            std::fs::copy(r, tmp.path().join(r.strip_prefix(home).unwrap())).unwrap();
        }
        let bytes = std::fs::read(&orig.path).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let f = QwenSource
            .discover(&Env::with_home(tmp.path()))
            .files
            .into_iter()
            .find(|f| f.path == path)
            .unwrap();
        let want = full(&f).session;
        // Every line end, and the middle of every line (a torn tail).
        let mut at: Vec<usize> = vec![0];
        let mut start = 0;
        for (i, b) in bytes.iter().enumerate() {
            if *b == b'\n' {
                at.push(start + (i - start) / 2);
                at.push(i + 1);
                start = i + 1;
            }
        }
        let mut chained: Option<Indexed> = None;
        for &cut in &at {
            cuts += 1;
            std::fs::write(&path, &bytes[..cut]).unwrap();
            let prefix = full(&f);
            chained = Some(match chained.take() {
                Some(prev) => resume(&f, &prev).unwrap_or_else(|| full(&f)),
                None => full(&f),
            });
            std::fs::write(&path, &bytes).unwrap();
            if let Some(got) = resume(&f, &prefix) {
                resumed += 1;
                same(&got.session, &want, &format!("{} cut {cut}", rel.display()));
            }
        }
        let chain = resume(&f, chained.as_ref().unwrap()).unwrap_or_else(|| full(&f));
        same(&chain.session, &want, &format!("{} chained", rel.display()));
    }
    (cuts, resumed)
}

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn resume_law_on_the_corpus_and_the_demo() {
    let (cuts, resumed) = check_home(&manifest().join("../../../shared/corpus/real/home"));
    // 69 lines over three files: 2 cuts per line plus the empty file, each.
    assert_eq!(cuts, 2 * (56 + 8 + 5) + 3);
    // A torn cut offers the point before its partial line, so every cut but the empty
    // prefixes (and torn first lines) resumes.
    assert!(resumed >= 56 + 8 + 5, "{resumed}");
    let (cuts, _) = check_home(&manifest().join("../../demo/home"));
    assert_eq!(cuts, 2 * 16 + 1);
}
