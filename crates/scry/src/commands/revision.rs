//! `--revision N`, the flag every per-session reader flattens (issue 20).

/// `--revision N` of the per-session reads (issue 20).
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct RevisionArg {
    /// Read earlier revision N of the session, kept by the index when its source was rewritten
    /// shorter or changed (1 = the most recent; 0 = the current session)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub revision: u32,
}
