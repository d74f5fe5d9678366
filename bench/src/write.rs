//! Streaming JSONL output with a byte count, deterministic clocks and mtimes.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use serde_json::Value;

/// A JSONL file being written: counts bytes, remembers the last timestamp for the mtime.
pub struct JsonlFile {
    path: PathBuf,
    out: BufWriter<File>,
    /// Bytes written so far.
    pub bytes: u64,
    /// Lines written so far.
    pub lines: u64,
}

impl JsonlFile {
    /// Creates `path` (and its parent directories).
    pub fn create(path: &Path) -> io::Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        Ok(JsonlFile {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, File::create(path)?),
            bytes: 0,
            lines: 0,
        })
    }

    /// Writes one JSON value as a line.
    pub fn line(&mut self, v: &Value) -> io::Result<()> {
        let s = serde_json::to_string(v).map_err(io::Error::other)?;
        self.raw(&s)
    }

    /// Writes `s` (one line's text, without the newline) as a line.
    pub fn raw(&mut self, s: &str) -> io::Result<()> {
        self.out.write_all(s.as_bytes())?;
        self.out.write_all(b"\n")?;
        self.bytes += s.len() as u64 + 1;
        self.lines += 1;
        Ok(())
    }

    /// Flushes, closes and sets the file's mtime to `mtime_ms`.
    pub fn finish(self, mtime_ms: i64) -> io::Result<u64> {
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        file.sync_data().ok();
        drop(file);
        set_mtime(&self.path, mtime_ms)?;
        Ok(self.bytes)
    }
}

/// Sets a file's modification time.
pub fn set_mtime(path: &Path, ms: i64) -> io::Result<()> {
    let t = UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64);
    let f = File::options().write(true).open(path)?;
    f.set_times(std::fs::FileTimes::new().set_modified(t).set_accessed(t))
}

/// Writes a small whole file with a given mtime.
pub fn write_small(path: &Path, content: &str, mtime_ms: i64) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, content)?;
    set_mtime(path, mtime_ms)
}

/// ISO-8601 UTC with milliseconds (`2026-11-30T14:52:28.179Z`).
pub fn iso(ms: i64) -> String {
    let (y, mo, d, h, mi, s, milli) = civil(ms);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
}

/// Calendar fields of an epoch-ms instant (UTC).
pub fn civil(ms: i64) -> (i64, u32, u32, u32, u32, u32, u32) {
    let secs = ms.div_euclid(1000);
    let milli = ms.rem_euclid(1000) as u32;
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        m,
        d,
        (sod / 3600) as u32,
        ((sod % 3600) / 60) as u32,
        (sod % 60) as u32,
        milli,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_known_instant() {
        // 1796050348174 ms is 2026-11-30T14:52:28.174Z (sentAtMs beside that timestamp in the
        // real Claude file).
        assert_eq!(iso(1_796_050_348_174), "2026-11-30T14:52:28.174Z");
        assert_eq!(iso(0), "1970-01-01T00:00:00.000Z");
    }
}
