//! Connecting to the team store: a `postgres://` URL (or a `key=value` connection string)
//! becomes one [`postgres::Client`]. A failure is one line naming the host, the database and
//! the cause — the server refused or was unreachable, authentication failed, the database does
//! not exist — as a [`QueryError`] with code `PERSISTENCE_FAILURE` (exit 1); an unreadable URL
//! is a usage error (exit 2).

use std::str::FromStr;

use postgres::config::Host;
use postgres::error::SqlState;
use postgres::{Client, Config, NoTls};
use scry_model::ErrorCode;
use scry_query::QueryError;

use crate::tls::Tls;

/// Where a URL points: what error lines name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The host (or unix socket directory) and port.
    pub host: String,
    /// The database.
    pub database: String,
    /// The user.
    pub user: String,
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "host {}, database {}", self.host, self.database)
    }
}

/// Parses `url` into a driver configuration, the [`Target`] it names and its TLS settings.
pub fn parse(url: &str) -> Result<(Config, Target, Tls), QueryError> {
    let (driver_url, tls) = crate::tls::split(url)?;
    let config = Config::from_str(&driver_url).map_err(|e| {
        QueryError::usage(
            ErrorCode::InvalidQuery,
            format!("invalid team store URL {:?}: {e}", redact_url(url)),
        )
    })?;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        Some(Host::Unix(p)) => p.display().to_string(),
        None => "localhost".to_string(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user().unwrap_or("").to_string();
    let database = config
        .get_dbname()
        .map(str::to_string)
        .unwrap_or_else(|| user.clone());
    Ok((
        config,
        Target {
            host: format!("{host}:{port}"),
            database,
            user,
        },
        tls,
    ))
}

/// `url` without its password, for messages.
pub fn redact_url(url: &str) -> String {
    match (url.find("://"), url.find('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.find(':') {
                Some(c) => format!("{}{}:***{}", &url[..s + 3], &creds[..c], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

/// Connects to the team store at `url`.
pub fn connect(url: &str) -> Result<(Client, Target), QueryError> {
    let (config, target, tls) = parse(url)?;
    let client = match crate::tls::connector(&tls)? {
        None => config.connect(NoTls),
        Some(rustls) => config.connect(rustls),
    }
    .map_err(|e| connect_error(&target, &e))?;
    Ok((client, target))
}

/// One line for a failed connection: host, database and the cause.
pub fn connect_error(target: &Target, e: &postgres::Error) -> QueryError {
    let cause = match e.code() {
        Some(c) if *c == SqlState::INVALID_CATALOG_NAME => {
            "the database does not exist".to_string()
        }
        Some(c)
            if *c == SqlState::INVALID_PASSWORD
                || *c == SqlState::INVALID_AUTHORIZATION_SPECIFICATION =>
        {
            format!(
                "authentication failed for user {:?} ({})",
                target.user,
                e.as_db_error().map(|d| d.message()).unwrap_or("")
            )
        }
        _ => match (e.as_db_error(), crate::tls::certificate_problem(e)) {
            (Some(db), _) => db.message().to_string(),
            (None, Some(problem)) => format!(
                "the server's TLS certificate does not verify ({problem}): give its CA with \
                 sslrootcert=PATH, or use sslmode=require to encrypt without verifying"
            ),
            (None, None) => innermost(e),
        },
    };
    QueryError::new(
        ErrorCode::PersistenceFailure,
        format!("cannot connect to the team store ({target}): {cause}"),
    )
}

/// The innermost cause of `e` (an io error's "Connection refused", a DNS failure, …).
fn innermost(e: &postgres::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text = s.to_string();
        source = s.source();
    }
    if text.contains("refused") {
        "connection refused (is PostgreSQL running and listening there?)".to_string()
    } else {
        text
    }
}

/// A database failure after connecting, as one line naming what was being done.
pub fn db_error(what: &str) -> impl Fn(postgres::Error) -> QueryError + '_ {
    move |e| {
        let detail = e
            .as_db_error()
            .map(|d| d.message().to_string())
            .unwrap_or_else(|| e.to_string());
        QueryError::new(
            ErrorCode::PersistenceFailure,
            format!("team store: {what}: {detail}"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_name_host_port_and_database() {
        let (_, t, _) = parse("postgres://ann:pw@db.example:6543/team").expect("parse");
        assert_eq!(t.to_string(), "host db.example:6543, database team");
        assert_eq!(t.user, "ann");
        let (_, t, _) = parse("host=/run/pg user=bob").expect("parse");
        assert_eq!(t.to_string(), "host /run/pg:5432, database bob");
        let e = parse("postgres://x@h:notaport/db").unwrap_err();
        assert_eq!(e.code, scry_model::ErrorCode::InvalidQuery);
        assert!(!e.message.contains("panicked"));
    }

    #[test]
    fn urls_lose_their_password_in_messages() {
        assert_eq!(
            redact_url("postgres://ann:secret@db/team"),
            "postgres://ann:***@db/team"
        );
        assert_eq!(
            redact_url("postgres://ann@db/team"),
            "postgres://ann@db/team"
        );
    }
}
