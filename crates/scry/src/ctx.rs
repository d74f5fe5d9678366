//! The context every command runs in ([`Ctx`]): built by `app`, read by the commands. It
//! imports no command, so the commands depend on it and not on `app` (imports point one way:
//! main → app → commands → shared modules such as this one).

/// What every command may consult: output mode, and (through `Deref`) the query context —
/// where sessions are read from (`ctx.env`, `ctx.cwd`, `ctx.demo`, `ctx.no_index`).
#[derive(Debug, Clone)]
pub struct Ctx {
    /// Print JSON.
    pub json: bool,
    /// Color text output.
    pub color: bool,
    /// Where and how sessions are read (shared with the HTTP API and every other front end).
    pub query: scry_query::Context,
    /// The team store to read from instead (`--store` / `SCRY_STORE`, issue 22).
    pub store: Option<String>,
}

impl std::ops::Deref for Ctx {
    type Target = scry_query::Context;
    fn deref(&self) -> &scry_query::Context {
        &self.query
    }
}
