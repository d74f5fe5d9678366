//! Provider identities: which agent wrote a session.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The agent (and on-disk format family) a session comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderId {
    /// Anthropic Claude Code.
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// Google Gemini CLI.
    Gemini,
    /// Google Antigravity (IDE brain dirs and the `agy` CLI).
    Antigravity,
    /// xAI Grok Build.
    Grok,
    /// DeepSeek Harness.
    Dsh,
    /// LangChain Deep Agents Code (LangGraph checkpoints).
    Deepagents,
    /// MT-Agent (JSONL transcript + LangGraph checkpoint).
    Mtagent,
    /// OpenCode.
    Opencode,
    /// Kilo CLI (OpenCode's database layout in `kilo.db`).
    Kilo,
    /// pi coding agent.
    Pi,
    /// Cursor CLI (`cursor-agent`).
    Cursor,
    /// GitHub Copilot CLI.
    Copilot,
    /// Qwen Code.
    Qwen,
    /// Continue CLI (`cn`).
    Continue,
    /// Aider (chat histories inside project directories).
    Aider,
}

impl ProviderId {
    /// Every provider, in display order.
    pub const ALL: [ProviderId; 16] = [
        ProviderId::Claude,
        ProviderId::Codex,
        ProviderId::Gemini,
        ProviderId::Antigravity,
        ProviderId::Grok,
        ProviderId::Dsh,
        ProviderId::Deepagents,
        ProviderId::Mtagent,
        ProviderId::Opencode,
        ProviderId::Kilo,
        ProviderId::Pi,
        ProviderId::Cursor,
        ProviderId::Copilot,
        ProviderId::Qwen,
        ProviderId::Continue,
        ProviderId::Aider,
    ];

    /// The stable lowercase id used in URIs, flags and JSON (`claude`, `codex`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderId::Claude => "claude",
            ProviderId::Codex => "codex",
            ProviderId::Gemini => "gemini",
            ProviderId::Antigravity => "antigravity",
            ProviderId::Grok => "grok",
            ProviderId::Dsh => "dsh",
            ProviderId::Deepagents => "deepagents",
            ProviderId::Mtagent => "mtagent",
            ProviderId::Opencode => "opencode",
            ProviderId::Kilo => "kilo",
            ProviderId::Pi => "pi",
            ProviderId::Cursor => "cursor",
            ProviderId::Copilot => "copilot",
            ProviderId::Qwen => "qwen",
            ProviderId::Continue => "continue",
            ProviderId::Aider => "aider",
        }
    }

    /// The agent's human-facing name.
    pub fn display_name(self) -> &'static str {
        match self {
            ProviderId::Claude => "Claude Code",
            ProviderId::Codex => "Codex CLI",
            ProviderId::Gemini => "Gemini CLI",
            ProviderId::Antigravity => "Antigravity",
            ProviderId::Grok => "Grok Build",
            ProviderId::Dsh => "DeepSeek Harness",
            ProviderId::Deepagents => "Deep Agents Code",
            ProviderId::Mtagent => "MT-Agent",
            ProviderId::Opencode => "OpenCode",
            ProviderId::Kilo => "Kilo CLI",
            ProviderId::Pi => "pi",
            ProviderId::Cursor => "Cursor CLI",
            ProviderId::Copilot => "GitHub Copilot CLI",
            ProviderId::Qwen => "Qwen Code",
            ProviderId::Continue => "Continue CLI",
            ProviderId::Aider => "Aider",
        }
    }
}

impl fmt::Display for ProviderId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Returned when a string names no known provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseProviderError(pub String);

impl fmt::Display for ParseProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = ProviderId::ALL.iter().map(|p| p.as_str()).collect();
        write!(
            f,
            "unknown provider '{}' (known: {})",
            self.0,
            known.join(", ")
        )
    }
}

impl std::error::Error for ParseProviderError {}

impl FromStr for ProviderId {
    type Err = ParseProviderError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        ProviderId::ALL
            .iter()
            .copied()
            .find(|p| p.as_str() == lower)
            .ok_or_else(|| ParseProviderError(s.to_string()))
    }
}
