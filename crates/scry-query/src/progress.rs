//! The progress bar of an index build: source bytes done out of the bytes given, with the rate
//! and an ETA, on stderr when it is a terminal (never with `--json` or when piped, so scripts
//! and logs see nothing). Shared by `index` and by the first command that meets a cold index.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use scry_source::SourceFile;
use scry_store::Progress;

/// A byte-based progress bar that appears only once the work has run for `delay`.
pub struct IndexBar {
    bar: Option<indicatif::ProgressBar>,
    total: u64,
    done: u64,
    start: Instant,
    delay: Duration,
    message: String,
    enabled: bool,
}

impl IndexBar {
    /// A bar for refreshing `files`, saying `message`; shown after `delay` when stderr is a
    /// terminal and `quiet` (machine output) is off.
    pub fn new(files: &[SourceFile], message: &str, delay: Duration, quiet: bool) -> IndexBar {
        IndexBar {
            bar: None,
            total: files.iter().map(|f| f.size).sum::<u64>().max(1),
            done: 0,
            start: Instant::now(),
            delay,
            message: message.to_owned(),
            enabled: !quiet && std::io::stderr().is_terminal(),
        }
    }

    /// Counts the file just handled (its size, whatever happened to it).
    pub fn update(&mut self, p: &Progress<'_>) {
        self.done = self.done.saturating_add(p.file.size).min(self.total);
        if self.bar.is_none() && self.enabled && self.start.elapsed() >= self.delay {
            let b = indicatif::ProgressBar::new(self.total);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{msg} {bar:25} {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}",
            ) {
                b.set_style(style);
            }
            b.set_message(self.message.clone());
            self.bar = Some(b);
        }
        if let Some(b) = &self.bar {
            b.set_position(self.done);
        }
    }

    /// Removes the bar.
    pub fn finish(self) {
        if let Some(b) = self.bar {
            b.finish_and_clear();
        }
    }
}
