//! No provider's `detect` claims another agent's file: every file of the shared corpus whose
//! owner is known from its place (`third-party/<agent>/`, `real/home/.<agent>/`,
//! `real/home/.local/share/<agent>/`, `real/wal/<agent>/`, `real-older/<agent>-<version>/`)
//! is offered to every other provider of the registry.
//! LangGraph databases (`langgraph/`) are left out: Deep Agents Code and MT-Agent both read
//! LangGraph checkpoints and tell theirs apart by content, which their own tests cover.

use std::path::{Path, PathBuf};

use scry_sources::registry;

/// Every file under `dir`, recursively.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The provider that wrote a corpus directory, from its name (`None`: not one agent's).
fn owner(section: &str, name: &str) -> Option<&'static str> {
    let name = match section {
        "real/home" => match name {
            // Aider writes into the project directory (`new/work/proj-aider`).
            "new" => "aider",
            other => other.strip_prefix('.')?,
        },
        "real-older" => name.split('-').next()?,
        _ => name,
    };
    registry()
        .iter()
        .map(|s| s.id().as_str())
        .find(|id| *id == name)
}

/// Providers whose only corpus files are third-party fixtures stored flat, outside the
/// directory layout their `detect` requires.
const BLIND_BY_LAYOUT: &[&str] = &["antigravity"];

#[test]
fn no_provider_detects_another_agents_files() {
    let corpus = scry_testkit::corpus();
    let mut owned: Vec<(&'static str, PathBuf)> = Vec::new();
    for section in ["third-party", "real/home", "real-older", "real/wal"] {
        let entries = std::fs::read_dir(corpus.join(section)).expect("corpus section");
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            // `.local/share/<agent>`: one directory per XDG agent (opencode, kilo).
            if section == "real/home" && name == ".local" {
                let share = std::fs::read_dir(entry.path().join("share")).expect(".local/share");
                for app in share.flatten() {
                    let Some(agent) = owner("xdg", &app.file_name().to_string_lossy()) else {
                        continue;
                    };
                    let mut files = Vec::new();
                    walk(&app.path(), &mut files);
                    owned.extend(files.into_iter().map(|f| (agent, f)));
                }
                continue;
            }
            let Some(agent) = owner(section, &name) else {
                continue;
            };
            let mut files = Vec::new();
            walk(&entry.path(), &mut files);
            owned.extend(files.into_iter().map(|f| (agent, f)));
        }
    }
    // Every provider with corpus files of its own is represented (the corpus README lists them).
    for agent in [
        "claude", "codex", "gemini", "dsh", "opencode", "pi", "cursor", "grok", "copilot", "qwen",
        "continue", "aider", "kilo",
    ] {
        assert!(
            owned.iter().any(|(a, _)| *a == agent),
            "no corpus files found for {agent}"
        );
    }
    let mut claimed = Vec::new();
    let mut blind = Vec::new();
    for source in registry() {
        let me = source.id().as_str();
        let mut own = (0, 0);
        for (agent, file) in &owned {
            let detected = source.detect(file).is_some();
            if *agent == me {
                own = (own.0 + usize::from(detected), own.1 + 1);
            } else if detected {
                claimed.push(format!("{me} claimed {agent}'s {}", file.display()));
            }
        }
        if own.1 > 0 && own.0 == 0 {
            blind.push(me);
        }
    }
    // The check has teeth: providers recognise their own files where the corpus keeps the
    // agent's real layout. Only flat third-party fixtures (no layout to detect) stay unclaimed.
    assert_eq!(
        blind, BLIND_BY_LAYOUT,
        "providers that detect none of their own files"
    );
    assert!(claimed.is_empty(), "{}", claimed.join("\n"));
}
