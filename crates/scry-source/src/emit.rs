//! Streaming output of a parse: providers hand events one by one to an [`Emitter`], which numbers
//! them (`seq`), assigns turns (S-E1) and keeps the header facts that come from events (times,
//! models, first prompt), then forwards each event to an [`EventSink`].
//!
//! This is what keeps memory flat on huge sessions (SPEC P6): a sink that only counts (e.g. the
//! `show` stats card) or writes to the index never holds the whole session. A provider buffers
//! only what its format forces it to (an assistant message split over several lines, say).

use scry_model::{first_line, Event, EventKind, Header, Session, Timestamp, TitleSource, Warning};

use crate::resume::{EmitterState, ResumePoint};

/// Receives a session's events and warnings in order.
pub trait EventSink {
    /// One event, with `seq` and `turn` already set.
    fn event(&mut self, event: Event);
    /// One warning.
    fn warning(&mut self, warning: Warning);
    /// Whether this sink keeps [`ResumePoint`]s (an index does; the default is no, so providers
    /// skip building their resume state).
    fn wants_resume_points(&self) -> bool {
        false
    }
    /// A safe point to resume a later parse from (see [`crate::resume`]). Only called when
    /// [`EventSink::wants_resume_points`] is true.
    fn resume_point(&mut self, point: ResumePoint) {
        let _ = point;
    }
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

    /// An emitter writing to `sink` that continues a parse from a [`ResumePoint`]: numbering,
    /// turns and header facts carry on from `state` (see [`crate::resume`]).
    pub fn resumed(sink: &'a mut dyn EventSink, state: &EmitterState) -> Self {
        Emitter {
            sink,
            seq: state.events,
            turn: state.turn,
            created: state.created,
            updated: state.updated,
            models: state.models.clone(),
            first_prompt: state.first_prompt.clone(),
            warnings: usize::try_from(state.warnings).unwrap_or(usize::MAX),
        }
    }

    /// The emitter's counters now.
    pub fn state(&self) -> EmitterState {
        EmitterState {
            events: self.seq,
            warnings: self.warnings as u64,
            turn: self.turn,
            created: self.created,
            updated: self.updated,
            models: self.models.clone(),
            first_prompt: self.first_prompt.clone(),
        }
    }

    /// Whether the sink keeps resume points; a provider may skip preparing its state otherwise.
    pub fn wants_resume_points(&self) -> bool {
        self.sink.wants_resume_points()
    }

    /// Marks a safe point after `offset` bytes of the primary file (see [`crate::resume`]).
    /// `state` builds the provider's private state; it is only called when the sink keeps
    /// resume points.
    pub fn checkpoint(&mut self, offset: u64, state: impl FnOnce() -> serde_json::Value) {
        if self.sink.wants_resume_points() {
            let point = ResumePoint {
                offset,
                emitter: self.state(),
                state: state(),
            };
            self.sink.resume_point(point);
        }
    }

    /// Hands the sink a point built earlier from [`Emitter::state`] captured at a safe point
    /// (a provider that tracks its safe points cheaply and offers only the last one, at the end
    /// of the parse). Ignored when the sink does not keep resume points.
    pub fn offer(&mut self, point: ResumePoint) {
        if self.sink.wants_resume_points() {
            self.sink.resume_point(point);
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
