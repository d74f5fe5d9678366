//! Guarded parses: a provider's parse run so that a panic in it (a bug) becomes a value the
//! caller turns into a warning or an error for that one source, instead of taking the command
//! down. Every reader above the providers (query, doctor, discovery) goes through these.
//!
//! - [`parse`]: a whole streaming parse into a sink, the header completed with
//!   [`Emitter::finish_header`];
//! - [`parse_from`]: the same continued from a [`ResumePoint`];
//! - [`scan_header`]: the bounded header read of list views;
//! - [`catch`]: any other call into a provider (discovery, a cwd probe).

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use scry_model::Header;

use crate::{Emitter, EventSink, ResumePoint, Source, SourceError, SourceFile};

/// Why a guarded parse gave no header.
#[derive(Debug)]
pub enum Failure {
    /// The provider could not read the source (its own error).
    Source(SourceError),
    /// The provider panicked; the text the panic carried.
    Panic(String),
}

impl Failure {
    /// The provider's error, or `None` when it panicked.
    pub fn source_error(&self) -> Option<&SourceError> {
        match self {
            Failure::Source(e) => Some(e),
            Failure::Panic(_) => None,
        }
    }
}

/// Runs `f`, returning the text of a panic inside it as the error.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| panic_text(payload.as_ref()))
}

/// The text a panic carried (`panic!` with a literal or a formatted message).
pub fn panic_text(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic with a non-text payload".to_string())
}

/// Streams the whole of `file` into `sink` through an [`Emitter`] and returns the header
/// completed by [`Emitter::finish_header`]. The events sent before a failure stay sent.
pub fn parse(
    source: &dyn Source,
    file: &SourceFile,
    sink: &mut dyn EventSink,
) -> Result<Header, Failure> {
    run(|| {
        let mut out = Emitter::new(sink);
        let mut header = source.parse_into(file, &mut out)?;
        out.finish_header(&mut header);
        Ok(header)
    })
}

/// Continues a parse of `file` from `from` into `sink` ([`Emitter::resumed`] +
/// [`Source::parse_into_from`]) and returns the completed header. A provider that refuses to
/// resume answers [`Failure::Source`]; the caller then parses whole.
pub fn parse_from(
    source: &dyn Source,
    file: &SourceFile,
    from: &ResumePoint,
    sink: &mut dyn EventSink,
) -> Result<Header, Failure> {
    run(|| {
        let mut out = Emitter::resumed(sink, &from.emitter);
        let mut header = source.parse_into_from(file, from, &mut out)?;
        out.finish_header(&mut header);
        Ok(header)
    })
}

/// [`Source::scan_header`] of `file`, guarded.
pub fn scan_header(source: &dyn Source, file: &SourceFile) -> Result<Header, Failure> {
    run(|| source.scan_header(file))
}

fn run(f: impl FnOnce() -> Result<Header, SourceError>) -> Result<Header, Failure> {
    match catch(f) {
        Ok(Ok(h)) => Ok(h),
        Ok(Err(e)) => Err(Failure::Source(e)),
        Err(text) => Err(Failure::Panic(text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CollectSink, Discovery, Env, Root};
    use scry_model::{Event, EventKind, Locator, ProviderId};

    /// A provider that emits one event, then does what `mode` says.
    struct Fake {
        mode: &'static str,
    }

    impl Source for Fake {
        fn id(&self) -> ProviderId {
            ProviderId::Claude
        }
        fn roots(&self, _: &Env) -> Vec<Root> {
            Vec::new()
        }
        fn discover(&self, _: &Env) -> Discovery {
            Discovery::default()
        }
        fn parse_into(
            &self,
            file: &SourceFile,
            out: &mut Emitter<'_>,
        ) -> Result<Header, SourceError> {
            out.emit(Event::new(
                EventKind::User,
                "hello there",
                Locator::native("u1", None),
            ));
            match self.mode {
                "panic" => panic!("index {} out of range", 7),
                "error" => Err(SourceError::format(&file.path, "not a session")),
                _ => Ok(Header::new(ProviderId::Claude, "s1")),
            }
        }
    }

    fn file() -> SourceFile {
        SourceFile::new(ProviderId::Claude, "s1", "/nowhere/s1.jsonl")
    }

    #[test]
    fn a_parse_completes_the_header_from_the_events() {
        let mut sink = CollectSink::default();
        let h = parse(&Fake { mode: "ok" }, &file(), &mut sink).unwrap();
        assert_eq!(sink.events.len(), 1);
        assert_eq!(h.title.as_deref(), Some("hello there"));
    }

    #[test]
    fn a_panic_is_its_text_and_the_events_before_it_stay_sent() {
        let mut sink = CollectSink::default();
        let got = parse(&Fake { mode: "panic" }, &file(), &mut sink);
        let scanned = scan_header(&Fake { mode: "panic" }, &file());
        match got {
            Err(Failure::Panic(t)) => assert_eq!(t, "index 7 out of range"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(scanned, Err(Failure::Panic(_))));
        assert_eq!(sink.events.len(), 1);
    }

    #[test]
    fn an_error_stays_the_providers_error() {
        let mut sink = CollectSink::default();
        let got = parse(&Fake { mode: "error" }, &file(), &mut sink).unwrap_err();
        assert!(got
            .source_error()
            .is_some_and(|e| e.to_string().ends_with("not a session")));
    }

    #[test]
    fn a_provider_that_cannot_resume_refuses() {
        let mut sink = CollectSink::default();
        let rp = ResumePoint {
            offset: 0,
            emitter: crate::EmitterState::default(),
            state: serde_json::Value::Null,
        };
        let got = parse_from(&Fake { mode: "ok" }, &file(), &rp, &mut sink).unwrap_err();
        assert!(got.source_error().is_some());
        assert!(sink.events.is_empty());
    }

    #[test]
    fn catch_passes_values_and_str_payloads() {
        assert_eq!(catch(|| 3), Ok(3));
        let got = catch(|| -> u8 { std::panic::panic_any(5u8) });
        assert_eq!(got, Err("panic with a non-text payload".to_string()));
    }
}
