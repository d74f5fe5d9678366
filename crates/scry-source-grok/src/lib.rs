//! scry provider for grok sessions (being written: discovery finds nothing yet).

use scry_model::{Header, ProviderId};
use scry_source::{Discovery, Emitter, Env, Root, Source, SourceError, SourceFile};

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

    fn parse_into(&self, file: &SourceFile, _out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        Err(SourceError::format(
            &file.path,
            "this reader is still being written",
        ))
    }
}
