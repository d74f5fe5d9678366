//! `scry skill install|status|uninstall` in a temporary HOME: every agent of S-A1, link and copy
//! modes, agents not installed skipped unless named, a foreign file left alone without
//! `--force` (and moved aside, not deleted, with it), `--dry-run` changing nothing, uninstall
//! removing only what scry put there.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::scry_env;

const SKILL: &str = include_str!("../assets/SKILL.md");

/// Every agent home of S-A1 and the skill path scry uses there.
fn agents(home: &Path) -> Vec<(&'static str, PathBuf, PathBuf)> {
    vec![
        (
            "claude",
            home.join(".claude"),
            home.join(".claude/skills/scry"),
        ),
        (
            "codex",
            home.join(".codex"),
            home.join(".codex/skills/scry"),
        ),
        (
            "antigravity",
            home.join(".gemini/antigravity"),
            home.join(".gemini/antigravity/skills/scry"),
        ),
        ("grok", home.join(".grok"), home.join(".grok/skills/scry")),
        ("dsh", home.join(".dsh"), home.join(".dsh/skills/scry")),
        ("qwen", home.join(".qwen"), home.join(".qwen/skills/scry")),
        (
            "copilot",
            home.join(".copilot"),
            home.join(".copilot/skills/scry"),
        ),
        (
            "deepagents:agent",
            home.join(".deepagents/agent"),
            home.join(".deepagents/agent/skills/scry"),
        ),
    ]
}

fn skill(home: &Path, args: &[&str]) -> Value {
    let data = home.join("data");
    let mut a = vec!["skill"];
    a.extend_from_slice(args);
    a.push("--json");
    let out = scry_env(home, home, &[("XDG_DATA_HOME", &data)], &a);
    assert_eq!(out.code, 0, "{}", out.render());
    out.json()
}

fn states(v: &Value) -> Vec<(String, String)> {
    v["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["agent"].as_str().unwrap().to_string(),
                a["state"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn state_of(v: &Value, agent: &str) -> String {
    states(v)
        .into_iter()
        .find(|(a, _)| a == agent)
        .map(|(_, s)| s)
        .unwrap_or_else(|| panic!("{agent} not in {v}"))
}

/// Every file and link under `dir` with its content or link target (a snapshot of the tree).
fn tree(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| {
            let p = e.path().strip_prefix(dir).unwrap().display().to_string();
            if e.path_is_symlink() {
                format!("{p} -> {}", std::fs::read_link(e.path()).unwrap().display())
            } else if e.file_type().is_file() {
                format!(
                    "{p} = {}",
                    std::fs::read_to_string(e.path()).unwrap_or_default().len()
                )
            } else {
                format!("{p}/")
            }
        })
        .collect();
    out.sort();
    out
}

#[test]
fn skill_link_mode_for_every_agent() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    for (_, agent_home, _) in agents(h) {
        std::fs::create_dir_all(agent_home).unwrap();
    }
    let before = skill(h, &["status"]);
    assert!(
        states(&before).iter().all(|(_, s)| s == "missing"),
        "{before}"
    );

    let v = skill(h, &["install"]);
    assert_eq!(v["mode"], "link");
    let canonical = PathBuf::from(v["canonical"].as_str().unwrap());
    assert_eq!(canonical, h.join("data/scry/skill/scry"));
    assert_eq!(
        std::fs::read_to_string(canonical.join("SKILL.md")).unwrap(),
        SKILL
    );
    for (agent, _, path) in agents(h) {
        assert_eq!(state_of(&v, agent), "linked");
        let meta = std::fs::symlink_metadata(&path).unwrap();
        assert!(meta.file_type().is_symlink(), "{agent}: a link");
        assert_eq!(std::fs::read_link(&path).unwrap(), canonical);
        assert_eq!(
            std::fs::read_to_string(path.join("SKILL.md")).unwrap(),
            SKILL
        );
    }
    let status = skill(h, &["status"]);
    assert!(
        states(&status).iter().all(|(_, s)| s == "linked"),
        "{status}"
    );
    // Idempotent.
    let again = skill(h, &["install"]);
    assert!(again["agents"]
        .as_array()
        .unwrap()
        .iter()
        .all(|a| a["action"].as_str().unwrap().starts_with("unchanged")));

    let v = skill(h, &["uninstall"]);
    assert!(states(&v).iter().all(|(_, s)| s == "missing"), "{v}");
    for (_, agent_home, path) in agents(h) {
        assert!(std::fs::symlink_metadata(&path).is_err());
        assert!(agent_home.is_dir(), "the agent's own directory stays");
    }
    assert!(
        !canonical.exists(),
        "the canonical copy goes with the last link"
    );
}

#[test]
fn skill_copy_mode_stale_copy_and_mode_switch() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    for (_, agent_home, _) in agents(h) {
        std::fs::create_dir_all(agent_home).unwrap();
    }
    let v = skill(h, &["install", "--copy"]);
    for (agent, _, path) in agents(h) {
        assert_eq!(state_of(&v, agent), "copied");
        assert!(!std::fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            std::fs::read_to_string(path.join("SKILL.md")).unwrap(),
            SKILL
        );
    }
    // An older scry's copy (marker kept, text different) is a stale copy, and scry's to replace.
    let codex = h.join(".codex/skills/scry/SKILL.md");
    std::fs::write(&codex, SKILL.replace("bounded", "older")).unwrap();
    assert_eq!(state_of(&skill(h, &["status"]), "codex"), "stale copy");
    let v = skill(h, &["install", "--copy", "--agent", "codex"]);
    assert_eq!(state_of(&v, "codex"), "copied");
    assert_eq!(std::fs::read_to_string(&codex).unwrap(), SKILL);
    // Switching to link mode replaces scry's own copies without --force.
    let v = skill(h, &["install"]);
    assert!(states(&v).iter().all(|(_, s)| s == "linked"), "{v}");
    // A file the user added beside a copy survives uninstall.
    let v = skill(h, &["install", "--copy", "--agent", "grok"]);
    assert_eq!(state_of(&v, "grok"), "copied");
    std::fs::write(h.join(".grok/skills/scry/notes.txt"), "mine").unwrap();
    let v = skill(h, &["uninstall", "--agent", "grok"]);
    // scry's SKILL.md is gone; the user's file (and so the directory) stays, now not scry's.
    assert_eq!(state_of(&v, "grok"), "foreign file");
    assert!(!h.join(".grok/skills/scry/SKILL.md").exists());
    assert_eq!(
        std::fs::read_to_string(h.join(".grok/skills/scry/notes.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn skill_absent_agents_skipped_unless_named() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    std::fs::create_dir_all(h.join(".claude")).unwrap();
    let v = skill(h, &["install"]);
    assert_eq!(state_of(&v, "claude"), "linked");
    for agent in [
        "codex",
        "antigravity",
        "grok",
        "dsh",
        "copilot",
        "deepagents:agent",
    ] {
        assert_eq!(state_of(&v, agent), "missing");
        let a = v["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["agent"] == agent)
            .unwrap();
        assert!(
            a["action"].as_str().unwrap().contains("not installed"),
            "{a}"
        );
    }
    assert!(
        !h.join(".codex").exists(),
        "nothing created for an absent agent"
    );
    // Named: installed even though ~/.grok is absent.
    let v = skill(h, &["install", "--agent", "grok"]);
    assert_eq!(state_of(&v, "grok"), "linked");
    assert!(h.join(".grok/skills/scry/SKILL.md").is_file());
    // Deep Agents: one target per agent directory.
    std::fs::create_dir_all(h.join(".deepagents/reviewer")).unwrap();
    let v = skill(h, &["install", "--agent", "deepagents"]);
    assert_eq!(state_of(&v, "deepagents:reviewer"), "linked");
    // An unknown agent is a usage error.
    let out = scry_env(h, h, &[], &["skill", "install", "--agent", "vim"]);
    assert_eq!(out.code, 2, "{}", out.render());
}

#[test]
fn skill_foreign_file_needs_force_and_dry_run_changes_nothing() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    for (_, agent_home, _) in agents(h) {
        std::fs::create_dir_all(agent_home).unwrap();
    }
    let foreign = h.join(".claude/skills/scry");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(
        foreign.join("SKILL.md"),
        "---\nname: scry\n---\nsomeone else's skill\n",
    )
    .unwrap();
    assert_eq!(state_of(&skill(h, &["status"]), "claude"), "foreign file");

    // --dry-run: the whole home is byte-identical afterwards, for every action.
    let snapshot = tree(h);
    for action in [
        vec!["install", "--dry-run"],
        vec!["install", "--copy", "--force", "--dry-run"],
        vec!["uninstall", "--dry-run"],
    ] {
        let v = skill(h, &action);
        assert_eq!(v["dry_run"], true);
        assert_eq!(tree(h), snapshot, "{action:?} changed something");
    }
    let v = skill(h, &["install", "--dry-run"]);
    let codex = v["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == "codex")
        .unwrap();
    assert!(
        codex["action"]
            .as_str()
            .unwrap()
            .starts_with("would be: link created"),
        "{codex}"
    );

    // Without --force the foreign file stays; the others are linked.
    let data = h.join("data");
    let out = scry_env(
        h,
        h,
        &[("XDG_DATA_HOME", &data)],
        &["skill", "install", "--json"],
    );
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    assert_eq!(state_of(&v, "claude"), "foreign file");
    assert_eq!(state_of(&v, "codex"), "linked");
    assert!(out.stderr.contains("--force"), "{}", out.render());
    assert!(std::fs::read_to_string(foreign.join("SKILL.md"))
        .unwrap()
        .contains("someone else"));
    // Uninstall leaves a foreign file alone.
    let v = skill(h, &["uninstall", "--agent", "claude"]);
    assert_eq!(state_of(&v, "claude"), "foreign file");
    // --force moves it aside (kept) and links.
    let v = skill(h, &["install", "--force", "--agent", "claude"]);
    assert_eq!(state_of(&v, "claude"), "linked");
    let aside = h.join(".claude/skills/scry.bak/SKILL.md");
    assert!(std::fs::read_to_string(aside)
        .unwrap()
        .contains("someone else"));
}
