//! scry provider for grok sessions (being written: discovery finds nothing yet).

use scry_model::{ProviderId, Session};
use scry_source::{Discovery, Env, Root, Source, SourceError, SourceFile};

/// The grok reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct GrokSource;

impl Source for GrokSource {
    fn id(&self) -> ProviderId {
        ProviderId::Grok
    }

    fn roots(&self, _env: &Env) -> Vec<Root> {
        Vec::new()
    }

    fn discover(&self, env: &Env) -> Discovery {
        Discovery {
            roots: self.roots(env),
            ..Discovery::default()
        }
    }

    fn parse(&self, file: &SourceFile) -> Result<Session, SourceError> {
        Err(SourceError::format(
            &file.path,
            "this reader is still being written",
        ))
    }
}
