//! A tiny test-only provider that supports resuming, so the store's resume mechanism can be
//! proven and its reads measured. Format: one JSON object per line —
//! `{"k": "user"|"assistant"|"thinking"|"tool_call"|"tool_result"|"meta", "t": text,
//!   "tool": name, "args": {...}, "call": id, "ts": unix seconds}` — under `<dir>/<id>.jsonl`.
//! Every complete line is a safe point; a torn last line is an `IncompleteTail` warning; a file
//! starting with `FAIL` is refused (a source that cannot be read).

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use scry_model::{Event, EventKind, Header, Locator, ProviderId, Warning, WarningKind};
use scry_source::{Discovery, Emitter, Env, ResumePoint, Root, Source, SourceError, SourceFile};
use serde_json::{json, Value};

/// The provider id the test sessions claim (no real provider of it is registered here).
pub const ID: ProviderId = ProviderId::Mtagent;

/// The test provider; `read` counts every byte it reads from session files.
#[derive(Clone)]
pub struct Lines {
    pub dir: PathBuf,
    pub read: Arc<AtomicU64>,
    pub resume: bool,
}

impl Lines {
    pub fn new(dir: &Path) -> Self {
        Lines {
            dir: dir.to_path_buf(),
            read: Arc::new(AtomicU64::new(0)),
            resume: true,
        }
    }

    pub fn bytes_read(&self) -> u64 {
        self.read.load(Ordering::SeqCst)
    }

    pub fn boxed(&self) -> Vec<Box<dyn Source>> {
        vec![Box::new(self.clone())]
    }

    pub fn files(&self) -> Vec<SourceFile> {
        self.discover(&Env::with_home(&self.dir)).files
    }

    fn run(
        &self,
        file: &SourceFile,
        start: u64,
        line0: u64,
        out: &mut Emitter<'_>,
    ) -> Result<Header, SourceError> {
        let mut f = File::open(&file.path).map_err(|e| SourceError::io(&file.path, e))?;
        let mut head = [0u8; 4];
        if start == 0 && f.read(&mut head).ok() == Some(4) && &head == b"FAIL" {
            return Err(SourceError::format(
                &file.path,
                "the test provider was told to fail",
            ));
        }
        f.seek(SeekFrom::Start(start))
            .map_err(|e| SourceError::io(&file.path, e))?;
        let mut r = BufReader::new(Counting(f, self.read.clone()));
        let mut buf = Vec::new();
        let (mut offset, mut line) = (start, line0);
        loop {
            buf.clear();
            let n = r
                .read_until(b'\n', &mut buf)
                .map_err(|e| SourceError::io(&file.path, e))?;
            if n == 0 {
                break;
            }
            if buf.last() != Some(&b'\n') {
                out.warn(Warning::at(
                    WarningKind::IncompleteTail,
                    "torn last line",
                    &file.path,
                    Some(line + 1),
                ));
                break;
            }
            line += 1;
            let raw = &buf[..buf.len() - 1];
            match serde_json::from_slice::<Value>(raw) {
                Ok(v) => {
                    let kind = v["k"]
                        .as_str()
                        .and_then(EventKind::parse)
                        .unwrap_or(EventKind::Meta);
                    let mut e = Event::new(
                        kind,
                        v["t"].as_str().unwrap_or(""),
                        Locator::record(line, raw, None),
                    );
                    e.tool = v["tool"].as_str().map(str::to_string);
                    e.call_id = v["call"].as_str().map(str::to_string);
                    e.args = v.get("args").cloned();
                    e.raw = scry_model::RawRef {
                        file: 0,
                        offset,
                        len: raw.len() as u64,
                        line,
                    };
                    let ts = v["ts"]
                        .as_i64()
                        .and_then(|s| jiff::Timestamp::from_second(s).ok());
                    out.emit(e.at(ts));
                }
                Err(err) => out.warn(Warning::at(
                    WarningKind::CorruptRecord,
                    err.to_string(),
                    &file.path,
                    Some(line),
                )),
            }
            offset += n as u64;
            out.checkpoint(offset, || json!({ "line": line }));
        }
        let mut h = Header::new(ID, file.id.clone());
        h.sources = vec![file.path.clone()];
        h.cwd = Some("/t/proj".into());
        Ok(h)
    }
}

struct Counting(File, Arc<AtomicU64>);

impl Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        self.1.fetch_add(n as u64, Ordering::SeqCst);
        Ok(n)
    }
}

impl Source for Lines {
    fn id(&self) -> ProviderId {
        ID
    }

    fn roots(&self, _: &Env) -> Vec<Root> {
        vec![Root::new(self.dir.clone(), None)]
    }

    fn discover(&self, _: &Env) -> Discovery {
        let mut files = Vec::new();
        if let Ok(rd) = std::fs::read_dir(&self.dir) {
            for e in rd.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "jsonl") {
                    let id = p
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    files.push(SourceFile::new(ID, id, p));
                }
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Discovery {
            roots: self.roots(&Env::default()),
            files,
            warnings: Vec::new(),
        }
    }

    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        self.run(file, 0, 0, out)
    }

    fn resume_support(&self) -> bool {
        self.resume
    }

    fn parse_into_from(
        &self,
        file: &SourceFile,
        from: &ResumePoint,
        out: &mut Emitter<'_>,
    ) -> Result<Header, SourceError> {
        let line = from.state["line"]
            .as_u64()
            .ok_or_else(|| SourceError::format(&file.path, "bad state"))?;
        self.run(file, from.offset, line, out)
    }
}

/// One line of the test format.
pub fn line(kind: &str, text: &str, ts: i64) -> String {
    format!("{}\n", json!({"k": kind, "t": text, "ts": ts}))
}

/// A tool call line.
pub fn call(tool: &str, args: Value, id: &str, ts: i64) -> String {
    format!(
        "{}\n",
        json!({"k": "tool_call", "tool": tool, "args": args, "call": id, "ts": ts})
    )
}

/// A tool result line.
pub fn result(tool: &str, text: &str, id: &str, ts: i64) -> String {
    format!(
        "{}\n",
        json!({"k": "tool_result", "tool": tool, "t": text, "call": id, "ts": ts})
    )
}
