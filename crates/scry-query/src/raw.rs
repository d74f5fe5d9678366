//! `--raw`: the original source records behind events, re-read from the source at each event's
//! byte offset and length. Files go through `scry_source::jsonl::open`, so compressed sources
//! are read from their decompressed stream; each file is opened once and read forward.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::path::PathBuf;

use scry_model::RawRef;

/// Records never read beyond this size (a record larger than this is cut, and says so).
const MAX_RECORD: u64 = 256 * 1024 * 1024;

/// One record's bytes (lossy UTF-8), or why it could not be read.
pub type RawText = Result<String, String>;

/// Reads the records at `refs` (index into `sources`, offset, len). Returns one text per input
/// ref, in input order.
pub fn read_records(sources: &[PathBuf], refs: &[RawRef]) -> Vec<RawText> {
    let mut out: Vec<RawText> = vec![Err("not read".into()); refs.len()];
    let mut by_file: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, r) in refs.iter().enumerate() {
        by_file.entry(r.file).or_default().push(i);
    }
    for (file, mut idx) in by_file {
        let Some(path) = sources.get(file as usize) else {
            for i in idx {
                out[i] = Err(format!(
                    "the event names source #{file}, which is not listed"
                ));
            }
            continue;
        };
        idx.sort_by_key(|i| refs[*i].offset);
        let mut reader = match scry_source::jsonl::open(path) {
            Ok(r) => r,
            Err(e) => {
                for i in idx {
                    out[i] = Err(e.to_string());
                }
                continue;
            }
        };
        let mut pos: u64 = 0;
        for i in idx {
            let r = refs[i];
            if r.len == 0 {
                out[i] = Err("the provider recorded no byte range for this event".into());
                continue;
            }
            if r.offset < pos {
                // Overlapping records (several events of one record): reopen and start over.
                match scry_source::jsonl::open(path) {
                    Ok(fresh) => {
                        reader = fresh;
                        pos = 0;
                    }
                    Err(e) => {
                        out[i] = Err(e.to_string());
                        continue;
                    }
                }
            }
            out[i] = read_at(&mut reader, &mut pos, r)
                .map_err(|e| format!("cannot read {} at byte {}: {e}", path.display(), r.offset));
        }
    }
    out
}

fn read_at(reader: &mut dyn Read, pos: &mut u64, r: RawRef) -> io::Result<String> {
    let skip = r.offset - *pos;
    let skipped = io::copy(&mut reader.take(skip), &mut io::sink())?;
    *pos += skipped;
    if skipped < skip {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the source is shorter than it was",
        ));
    }
    let want = r.len.min(MAX_RECORD);
    let mut buf = Vec::new();
    reader.take(want).read_to_end(&mut buf)?;
    *pos += buf.len() as u64;
    let mut text = String::from_utf8_lossy(&buf).into_owned();
    if (buf.len() as u64) < r.len {
        text.push_str(&format!(
            "\n[record cut at {} of {} bytes]",
            buf.len(),
            r.len
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_records_in_any_order() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        std::fs::write(&p, b"{\"a\":1}\n{\"b\":2}\n").unwrap();
        let rr = |offset, len| RawRef {
            file: 0,
            offset,
            len,
            line: 1,
        };
        let got = read_records(&[p], &[rr(8, 7), rr(0, 7), rr(8, 7), rr(0, 0)]);
        assert_eq!(got[0].as_deref(), Ok("{\"b\":2}"));
        assert_eq!(got[1].as_deref(), Ok("{\"a\":1}"));
        assert_eq!(got[2].as_deref(), Ok("{\"b\":2}"));
        assert!(got[3].is_err());
    }
}
