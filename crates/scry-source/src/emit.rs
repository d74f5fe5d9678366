//! Streaming output of a parse: providers hand events one by one to an [`Emitter`], which numbers
//! them (`seq`), assigns turns (S-E1) and keeps the header facts that come from events (times,
//! models, first prompt), then forwards each event to an [`EventSink`].
//!
//! This is what keeps memory flat on huge sessions (SPEC P6): a sink that only counts (e.g. the
//! `show` stats card) or writes to the index never holds the whole session. A provider buffers
//! only what its format forces it to (an assistant message split over several lines, say).

use scry_model::{first_line, Event, EventKind, Header, Session, Timestamp, TitleSource, Warning};

/// Receives a session's events and warnings in order.
pub trait EventSink {
    /// One event, with `seq` and `turn` already set.
    fn event(&mut self, event: Event);
    /// One warning.
    fn warning(&mut self, warning: Warning);
}

/// A sink that keeps everything: used to build a whole [`Session`].
#[derive(Debug, Default)]
pub struct CollectSink {
    /// Events received.
    pub events: Vec<Event>,
    /// Warnings received.
    pub warnings: Vec<Warning>,
}

impl EventSink for CollectSink {
    fn event(&mut self, event: Event) {
        self.events.push(event);
    }
    fn warning(&mut self, warning: Warning) {
        self.warnings.push(warning);
    }
}

/// Numbers events, assigns turns and collects header facts while forwarding to a sink.
pub struct Emitter<'a> {
    sink: &'a mut dyn EventSink,
    seq: u32,
    turn: u32,
    created: Option<Timestamp>,
    updated: Option<Timestamp>,
    models: Vec<String>,
    first_prompt: Option<String>,
    warnings: usize,
}

impl<'a> Emitter<'a> {
    /// An emitter writing to `sink`.
    pub fn new(sink: &'a mut dyn EventSink) -> Self {
        Emitter {
            sink,
            seq: 0,
            turn: 0,
            created: None,
            updated: None,
            models: Vec::new(),
            first_prompt: None,
            warnings: 0,
        }
    }

    /// Sends one event: sets its `seq` and `turn` (a [`EventKind::User`] event starts a turn).
    pub fn emit(&mut self, mut event: Event) {
        event.seq = self.seq;
        self.seq += 1;
        if event.kind == EventKind::User {
            self.turn += 1;
            if self.first_prompt.is_none() {
                let title = first_line(&event.text, 120);
                if !title.is_empty() {
                    self.first_prompt = Some(title);
                }
            }
        }
        event.turn = self.turn;
        if let Some(t) = event.time {
            if self.created.is_none_or(|c| t < c) {
                self.created = Some(t);
            }
            if self.updated.is_none_or(|u| t > u) {
                self.updated = Some(t);
            }
        }
        if let Some(m) = &event.model {
            if !m.is_empty() && !self.models.contains(m) {
                self.models.push(m.clone());
            }
        }
        self.sink.event(event);
    }

    /// Sends one warning.
    pub fn warn(&mut self, warning: Warning) {
        self.warnings += 1;
        self.sink.warning(warning);
    }

    /// Events sent so far.
    pub fn count(&self) -> u32 {
        self.seq
    }

    /// Warnings sent so far.
    pub fn warning_count(&self) -> usize {
        self.warnings
    }

    /// Completes `header` with what the events showed: `created` / `updated` widened to every
    /// event time, models in first-use order, and the first prompt as title when the provider
    /// found none.
    pub fn finish_header(&self, header: &mut Header) {
        if let Some(c) = self.created {
            header.touch(c);
        }
        if let Some(u) = self.updated {
            header.touch(u);
        }
        for m in &self.models {
            header.add_model(m);
        }
        if header.title.is_none() {
            if let Some(t) = &self.first_prompt {
                header.title = Some(t.clone());
                header.title_source = Some(TitleSource::FirstPrompt);
            }
        }
    }
}

/// Runs a streaming parse into memory and returns the whole session.
pub fn collect(
    parse: impl FnOnce(&mut Emitter<'_>) -> Result<Header, crate::SourceError>,
) -> Result<Session, crate::SourceError> {
    let mut sink = CollectSink::default();
    let header = {
        let mut emitter = Emitter::new(&mut sink);
        let mut header = parse(&mut emitter)?;
        emitter.finish_header(&mut header);
        header
    };
    Ok(Session {
        header,
        events: sink.events,
        warnings: sink.warnings,
    })
}
