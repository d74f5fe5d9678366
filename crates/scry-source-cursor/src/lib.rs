//! scry provider for cursor sessions (being written: discovery finds nothing yet).

use scry_model::{ProviderId, Session};
use scry_source::{Discovery, Env, Root, Source, SourceError, SourceFile};

/// The cursor reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct CursorSource;

impl Source for CursorSource {
    fn id(&self) -> ProviderId {
        ProviderId::Cursor
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
