//! Progress of the long work a query may start (the implicit index refresh), reported to
//! whatever the front end shows: the query layer draws nothing itself. The CLI shows a bar on a
//! terminal; the HTTP server, MCP and tests pass nothing ([`Reporter::silent`]).

use std::fmt;
use std::sync::Arc;

use scry_source::SourceFile;

/// One piece of work measured in source bytes: [`Progress::start`] once with the total,
/// [`Progress::advance`] as parts are done, [`Progress::finish`] at the end (also on failure).
pub trait Progress {
    /// The work begins: `total` bytes to go through.
    fn start(&mut self, total: u64);
    /// `n` more bytes are done.
    fn advance(&mut self, n: u64);
    /// The work is over (whatever its outcome): remove what was shown.
    fn finish(&mut self);
}

/// A front end's way of showing progress: one [`Progress`] per piece of work, described by
/// `message` (`building the index (once; later commands read it)`).
pub trait ShowProgress: Send + Sync {
    /// A fresh progress for one piece of work.
    fn begin(&self, message: &str) -> Box<dyn Progress>;
}

/// The [`Progress`] that shows nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct Silent;

impl Progress for Silent {
    fn start(&mut self, _: u64) {}
    fn advance(&mut self, _: u64) {}
    fn finish(&mut self) {}
}

/// What the [`crate::Context`] carries: a front end's [`ShowProgress`], or nothing. Cheap to
/// clone (an `Arc`).
#[derive(Clone, Default)]
pub struct Reporter(Option<Arc<dyn ShowProgress>>);

impl Reporter {
    /// Progress shown by `show`.
    pub fn new(show: impl ShowProgress + 'static) -> Reporter {
        Reporter(Some(Arc::new(show)))
    }

    /// No progress shown.
    pub fn silent() -> Reporter {
        Reporter(None)
    }

    /// A progress for one piece of work ([`Silent`] when nothing is shown).
    pub fn begin(&self, message: &str) -> Box<dyn Progress> {
        match &self.0 {
            Some(show) => show.begin(message),
            None => Box::new(Silent),
        }
    }
}

impl fmt::Debug for Reporter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Reporter(shown)"
        } else {
            "Reporter(silent)"
        })
    }
}

/// The total of a refresh of `files`: their sizes in bytes.
pub fn total_bytes(files: &[SourceFile]) -> u64 {
    files.iter().map(|f| f.size).sum()
}
