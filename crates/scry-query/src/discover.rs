//! Discovery and reference resolution over the catalog, with what lies beyond it: the Aider
//! sessions in other providers' working directories ([`crate::aider_cwds`]) and the archived
//! sessions of the index ([`crate::archive`]). An `impl` of [`Catalog`] above the catalog
//! module, so `catalog.rs` itself names neither (imports point one way: catalog ← archive /
//! aider_cwds ← here).

use scry_model::ProviderId;
use scry_source::SourceFile;
use scry_sources::resolve;

use crate::catalog::Catalog;
use crate::error::{QueryError, QueryResult};
use crate::Context;

impl Catalog {
    /// Runs discovery of the providers in `only` (all when empty) in `ctx`'s environment,
    /// after its exclusions.
    pub fn discover(ctx: &Context, only: &[ProviderId]) -> Catalog {
        Catalog::discover_with(ctx, only, None)
    }

    /// [`Catalog::discover`] with the context's index already open (`store`): the Aider cwd
    /// lookup reads it instead of opening a second connection.
    pub fn discover_with(
        ctx: &Context,
        only: &[ProviderId],
        store: Option<&dyn scry_store::SessionIndex>,
    ) -> Catalog {
        let mut catalog = Catalog::discovered(ctx, only);
        crate::aider_cwds::add(&mut catalog, ctx, store);
        catalog
    }

    /// Resolves a reference the user gave, in the forms `ctx`'s front end allows: a path to a
    /// session file only when [`Context::path_refs`] (the command line; a FIFO, device or
    /// directory is refused before anything opens it), ids otherwise. Exclusions hold either
    /// way: a file recognized by path is refused when it would have been excluded from
    /// discovery.
    /// Without a match, the archived sessions of the index are tried ([`crate::archive`]).
    pub fn resolve_ref(&self, ctx: &Context, reference: &str) -> QueryResult<SourceFile> {
        let found = if ctx.path_refs {
            resolve(reference, &self.files, self.sources())
                .map_err(QueryError::from)
                .and_then(|f| self.admit(reference, f))
        } else {
            self.resolve(reference)
        };
        found.or_else(|e| crate::archive::fallback(ctx, self, reference, e))
    }
}
