//! What a result says of its session's source ([`Availability`], S-Q1): present now, held by
//! the index, archived, or an earlier revision.

use serde::Serialize;

use crate::archive;

/// Whether a session's source is present now and whether the index holds it (S-Q1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Availability {
    /// The source file is present now.
    pub live: bool,
    /// The index holds the session.
    pub persisted: bool,
    /// An archived session (source gone, read from the index): when and where it was last
    /// seen / found gone (S-I6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archived: Option<archive::Mark>,
    /// The earlier revision read (`--revision N`), when not the current session (issue 20).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<u32>,
}
