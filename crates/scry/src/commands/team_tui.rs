//! The TUI's source for a team store (`scry tui --store`, issue 22): [`tui_source`] connects
//! once and answers the TUI's reads from the store through `scry_team`.

use std::cell::RefCell;
use std::rc::Rc;

use scry_query::usage::{Pricing, UsageReport, UsageRequest};
use scry_query::{
    CommandsReport, CommandsRequest, Context, ErrorsReport, ErrorsRequest, FilesReport,
    FilesRequest, ListQuery, QueryResult, ReadRequest, SearchQuery, SearchResult, SessionList,
    TurnPage, TurnsDir,
};
use scry_team::inside;
use scry_team::read::{self, Store};

use crate::ctx::Ctx;
use crate::error::CliResult;

/// The TUI's reads from the team store (`tui --store`): one connection, kept open.
struct TuiReader {
    store: RefCell<Store>,
}

/// The TUI's source for the team store at `url` (connects now: a bad URL or an unreachable
/// store fails before the screen is taken).
pub fn tui_source(ctx: &Ctx, url: &str) -> CliResult<scry_tui::Source> {
    let store = Store::open(url)?;
    Ok(scry_tui::Source {
        ctx: ctx.query.clone(),
        reader: Rc::new(TuiReader {
            store: RefCell::new(store),
        }),
    })
}

impl scry_tui::Reader for TuiReader {
    fn list(&self, ctx: &Context, q: &ListQuery) -> QueryResult<SessionList> {
        Ok(read::list(ctx, &mut self.store.borrow_mut(), q, None)?.report)
    }
    fn turns(&self, _: &Context, id: &str, keep_chars: usize) -> QueryResult<TurnsDir> {
        Ok(read::turns(&mut self.store.borrow_mut(), id, keep_chars)?.report)
    }
    fn read(&self, _: &Context, req: &ReadRequest) -> QueryResult<TurnPage> {
        Ok(inside::read(&mut self.store.borrow_mut(), req)?.report)
    }
    fn search(&self, ctx: &Context, q: &SearchQuery) -> QueryResult<SearchResult> {
        Ok(read::search(ctx, &mut self.store.borrow_mut(), q, None)?.report)
    }
    fn commands(&self, _: &Context, req: &CommandsRequest) -> QueryResult<CommandsReport> {
        Ok(inside::commands(&mut self.store.borrow_mut(), req)?.report)
    }
    fn files(&self, _: &Context, req: &FilesRequest) -> QueryResult<FilesReport> {
        Ok(inside::files(&mut self.store.borrow_mut(), req)?.report)
    }
    fn errors(&self, _: &Context, req: &ErrorsRequest) -> QueryResult<ErrorsReport> {
        Ok(inside::errors(&mut self.store.borrow_mut(), req)?.report)
    }
    fn usage(
        &self,
        _: &Context,
        req: &UsageRequest,
        pricing: &Pricing,
    ) -> QueryResult<UsageReport> {
        inside::usage(&mut self.store.borrow_mut(), req, pricing, None)
    }
    fn live(&self) -> bool {
        false
    }
}
