//! Where the TUI reads sessions ([`Source`]): the query context the command line built and a
//! [`Reader`] — scry-query's own functions over this machine's sessions ([`Local`]), or
//! another store the command supplies (the team store of `scry tui --store`, issue 22) with
//! the same report types.

use std::rc::Rc;

use scry_query::usage::{Pricing, UsageReport, UsageRequest};
use scry_query::{
    CommandsReport, CommandsRequest, Context, ErrorsReport, ErrorsRequest, FilesReport,
    FilesRequest, ListQuery, QueryResult, ReadRequest, SearchQuery, SearchResult, SessionList,
    TurnPage, TurnsDir,
};

/// The reads the TUI makes, each answering as the scry-query function of the same name.
pub trait Reader {
    /// `scry_query::list`.
    fn list(&self, ctx: &Context, q: &ListQuery) -> QueryResult<SessionList>;
    /// `scry_query::turns`.
    fn turns(&self, ctx: &Context, id: &str, keep_chars: usize) -> QueryResult<TurnsDir>;
    /// `scry_query::read`.
    fn read(&self, ctx: &Context, req: &ReadRequest) -> QueryResult<TurnPage>;
    /// `scry_query::search`.
    fn search(&self, ctx: &Context, q: &SearchQuery) -> QueryResult<SearchResult>;
    /// `scry_query::commands`.
    fn commands(&self, ctx: &Context, req: &CommandsRequest) -> QueryResult<CommandsReport>;
    /// `scry_query::files`.
    fn files(&self, ctx: &Context, req: &FilesRequest) -> QueryResult<FilesReport>;
    /// `scry_query::errors`.
    fn errors(&self, ctx: &Context, req: &ErrorsRequest) -> QueryResult<ErrorsReport>;
    /// `scry_query::usage::usage`.
    fn usage(
        &self,
        ctx: &Context,
        req: &UsageRequest,
        pricing: &Pricing,
    ) -> QueryResult<UsageReport>;
    /// Whether the sessions' source files are on this machine (the live poll stats them).
    fn live(&self) -> bool;
}

/// This machine's sessions, through scry-query.
#[derive(Debug, Clone, Copy, Default)]
pub struct Local;

impl Reader for Local {
    fn list(&self, ctx: &Context, q: &ListQuery) -> QueryResult<SessionList> {
        scry_query::list(ctx, q)
    }
    fn turns(&self, ctx: &Context, id: &str, keep_chars: usize) -> QueryResult<TurnsDir> {
        scry_query::turns(ctx, id, keep_chars)
    }
    fn read(&self, ctx: &Context, req: &ReadRequest) -> QueryResult<TurnPage> {
        scry_query::read(ctx, req)
    }
    fn search(&self, ctx: &Context, q: &SearchQuery) -> QueryResult<SearchResult> {
        scry_query::search(ctx, q)
    }
    fn commands(&self, ctx: &Context, req: &CommandsRequest) -> QueryResult<CommandsReport> {
        scry_query::commands(ctx, req)
    }
    fn files(&self, ctx: &Context, req: &FilesRequest) -> QueryResult<FilesReport> {
        scry_query::files(ctx, req)
    }
    fn errors(&self, ctx: &Context, req: &ErrorsRequest) -> QueryResult<ErrorsReport> {
        scry_query::errors(ctx, req)
    }
    fn usage(
        &self,
        ctx: &Context,
        req: &UsageRequest,
        pricing: &Pricing,
    ) -> QueryResult<UsageReport> {
        scry_query::usage::usage(ctx, req, pricing)
    }
    fn live(&self) -> bool {
        true
    }
}

/// The query context and the reader every read of the TUI goes through.
#[derive(Clone)]
pub struct Source {
    /// The query context (demo, exclusions, index flags).
    pub ctx: Context,
    /// Where sessions are read.
    pub reader: Rc<dyn Reader>,
}

impl Source {
    /// This machine's sessions.
    pub fn local(ctx: Context) -> Source {
        Source {
            ctx,
            reader: Rc::new(Local),
        }
    }
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source")
            .field("ctx", &self.ctx)
            .field("live", &self.reader.live())
            .finish()
    }
}
