//! The progress bar of an index build: source bytes done out of the bytes given, with the rate
//! and an ETA, on stderr when it is a terminal (never with `--json` for `index`, never when
//! piped, so scripts and logs see nothing). `index` draws it at once; the first command that
//! meets a cold index gets it through the query context ([`RefreshBars`]) after a second.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use scry_query::progress::{Progress, ShowProgress};

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
    /// A bar saying `message`, shown after `delay` when stderr is a terminal and `quiet`
    /// (machine output) is off. [`Progress::start`] gives its total.
    pub fn new(message: &str, delay: Duration, quiet: bool) -> IndexBar {
        IndexBar {
            bar: None,
            total: 1,
            done: 0,
            start: Instant::now(),
            delay,
            message: message.to_owned(),
            enabled: !quiet && std::io::stderr().is_terminal(),
        }
    }
}

impl Progress for IndexBar {
    fn start(&mut self, total: u64) {
        self.total = total.max(1);
        self.done = 0;
        self.start = Instant::now();
    }

    /// Counts a file just handled (its size, whatever happened to it).
    fn advance(&mut self, n: u64) {
        self.done = self.done.saturating_add(n).min(self.total);
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
    fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

/// The bars of the implicit index refresh a read command may run: one [`IndexBar`] per
/// refresh, shown once it has run for a second (a first run, many changed sessions).
#[derive(Debug, Clone, Copy)]
pub struct RefreshBars;

impl ShowProgress for RefreshBars {
    fn begin(&self, message: &str) -> Box<dyn Progress> {
        Box::new(IndexBar::new(message, Duration::from_secs(1), false))
    }
}
