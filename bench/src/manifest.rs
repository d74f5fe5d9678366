//! What the generator wrote, session by session: the ground truth the runner checks tools
//! against (session counts, prompt counts, token totals, where the selective marker is).

use std::io;
use std::path::Path;

use serde_json::{json, Value};

use crate::plan::Profile;

/// Token totals of one session as the generator wrote them, normalized like scry's model:
/// `input` excludes cache reads; `output` as the agent recorded it (Codex output includes
/// reasoning, which is also given separately).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Uncached input.
    pub input: u64,
    /// Output.
    pub output: u64,
    /// Cache reads.
    pub cache_read: u64,
    /// Cache writes.
    pub cache_write: u64,
    /// Reasoning (Codex: part of `output`).
    pub reasoning: u64,
    /// Model requests (one usage each).
    pub requests: u64,
}

impl Tokens {
    /// Adds `o` into `self`.
    pub fn add(&mut self, o: &Tokens) {
        self.input += o.input;
        self.output += o.output;
        self.cache_read += o.cache_read;
        self.cache_write += o.cache_write;
        self.reasoning += o.reasoning;
        self.requests += o.requests;
    }

    fn json(&self) -> Value {
        json!({"input": self.input, "output": self.output, "cache_read": self.cache_read,
               "cache_write": self.cache_write, "reasoning": self.reasoning, "requests": self.requests})
    }
}

/// One session file written.
#[derive(Clone, Debug)]
pub struct SessionEntry {
    /// Provider name.
    pub provider: &'static str,
    /// Native session id.
    pub id: String,
    /// Path relative to the HOME.
    pub path: String,
    /// Bytes of the primary file.
    pub bytes: u64,
    /// Lines of the primary file.
    pub lines: u64,
    /// `main`, `subagent` or `fork`.
    pub kind: &'static str,
    /// Parent session id (subagents, forks).
    pub parent: Option<String>,
    /// Human prompts written (forks: only the fork's own).
    pub prompts: u64,
    /// Tokens written (forks: only the fork's own requests).
    pub tokens: Tokens,
    /// Whether the selective marker occurs in it.
    pub marker: bool,
    /// Start and end, ms since the epoch.
    pub start_ms: i64,
    /// Last timestamp (= mtime).
    pub end_ms: i64,
}

/// Everything written.
#[derive(Clone, Debug)]
pub struct Manifest {
    /// Profile.
    pub profile: Profile,
    /// Seed.
    pub seed: u64,
    /// Every session file.
    pub sessions: Vec<SessionEntry>,
}

impl Manifest {
    /// Empty manifest.
    pub fn new(profile: Profile, seed: u64) -> Self {
        Manifest {
            profile,
            seed,
            sessions: Vec::new(),
        }
    }

    /// Total bytes of session files.
    pub fn total_bytes(&self) -> u64 {
        self.sessions.iter().map(|s| s.bytes).sum()
    }

    /// Sessions of `provider` (all kinds).
    pub fn count(&self, provider: &str) -> usize {
        self.sessions
            .iter()
            .filter(|s| s.provider == provider)
            .count()
    }

    /// JSON form.
    pub fn to_json(&self) -> Value {
        let sessions: Vec<Value> = self
            .sessions
            .iter()
            .map(|s| {
                json!({"provider": s.provider, "id": s.id, "path": s.path, "bytes": s.bytes,
                       "lines": s.lines, "kind": s.kind, "parent": s.parent, "prompts": s.prompts,
                       "tokens": s.tokens.json(), "marker": s.marker,
                       "start_ms": s.start_ms, "end_ms": s.end_ms})
            })
            .collect();
        let mut by_provider = serde_json::Map::new();
        for p in ["claude", "codex", "gemini", "pi"] {
            let files: Vec<&SessionEntry> =
                self.sessions.iter().filter(|s| s.provider == p).collect();
            by_provider.insert(
                p.into(),
                json!({"files": files.len(),
                       "main": files.iter().filter(|s| s.kind != "subagent").count(),
                       "bytes": files.iter().map(|s| s.bytes).sum::<u64>()}),
            );
        }
        let largest = self.sessions.iter().max_by_key(|s| s.bytes);
        json!({
            "profile": self.profile.name(),
            "seed": self.seed,
            "marker": crate::text::MARKER,
            "files": self.sessions.len(),
            "bytes": self.total_bytes(),
            "providers": by_provider,
            "largest": largest.map(|s| json!({"provider": s.provider, "id": s.id, "path": s.path, "bytes": s.bytes})),
            "sessions": sessions,
        })
    }

    /// Writes `out/.scry-bench/manifest.json` (a dot directory no agent reads).
    pub fn save(&self, out: &Path) -> io::Result<()> {
        let dir = out.join(".scry-bench");
        std::fs::create_dir_all(&dir)?;
        let s = serde_json::to_string_pretty(&self.to_json()).map_err(io::Error::other)?;
        std::fs::write(dir.join("manifest.json"), s)
    }
}
