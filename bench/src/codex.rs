//! Codex CLI rollouts, wrapped era with legacy history mode (docs/formats.md §2):
//! `.codex/sessions/YYYY/MM/DD/rollout-<local ts>-<uuid>.jsonl`, every line
//! `{"timestamp","type","payload"}`; `session_meta`, `turn_context`, `response_item` (messages with
//! injected `<environment_context>`, `reasoning`, `function_call` exec_command + output,
//! `custom_tool_call` apply_patch + output), `event_msg` (`task_started`, `user_message`,
//! `agent_reasoning`, `agent_message`, `token_count` with cumulative and last usage,
//! `task_complete`, `context_compacted`), `compacted` with `replacement_history`, and forks
//! (child `session_meta` with `forked_from_id`, then the parent's meta and copied history).

use std::io::{self, BufRead, BufReader};
use std::path::Path;

use serde_json::{json, Value};

use crate::manifest::{Manifest, SessionEntry, Tokens};
use crate::plan::SessionPlan;
use crate::rng::Rng;
use crate::text::{self, Lang, MARKER};
use crate::write::{civil, iso, JsonlFile};

const CLI_VERSION: &str = "0.128.0";
const MODEL: &str = "gpt-5.5-codex";

struct Rollout<'a> {
    f: JsonlFile,
    rng: &'a mut Rng,
    now: i64,
    cwd: String,
    total: [u64; 4],
    tokens: Tokens,
    prompts: u64,
    context: u64,
    zh: f64,
    user_history: Vec<String>,
}

impl Rollout<'_> {
    fn tick(&mut self, lo: u64, hi: u64) -> String {
        self.now += self.rng.range(lo, hi) as i64;
        iso(self.now)
    }

    fn line(&mut self, kind: &str, payload: Value) -> io::Result<()> {
        let ts = self.tick(2, 400);
        self.f
            .line(&json!({"timestamp": ts, "type": kind, "payload": payload}))
    }

    fn lang(&mut self) -> Lang {
        if self.rng.chance(self.zh) {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    fn token_count(&mut self) -> io::Result<()> {
        let cached = self.context;
        let fresh = self.rng.range(200, 6000);
        let input = cached + fresh;
        let output = self.rng.range(20, 2500);
        let reasoning = self.rng.range(0, output / 2);
        self.context += fresh + output;
        self.total[0] += input;
        self.total[1] += cached;
        self.total[2] += output;
        self.total[3] += reasoning;
        self.tokens.add(&Tokens {
            input: fresh,
            output,
            cache_read: cached,
            cache_write: 0,
            reasoning,
            requests: 1,
        });
        let usage = |i: u64, c: u64, o: u64, r: u64| {
            json!({"input_tokens": i, "cached_input_tokens": c, "output_tokens": o,
                   "reasoning_output_tokens": r, "total_tokens": i + o})
        };
        let info = json!({
            "total_token_usage": usage(self.total[0], self.total[1], self.total[2], self.total[3]),
            "last_token_usage": usage(input, cached, output, reasoning),
            "model_context_window": 258_400,
        });
        self.line(
            "event_msg",
            json!({"type": "token_count", "info": info, "rate_limits": null}),
        )
    }

    fn reasoning(&mut self) -> io::Result<()> {
        let l = self.lang();
        let n = self.rng.range(40, 500) as usize;
        let t = format!("**Planning**\n\n{}", text::prose(self.rng, l, n));
        let enc = self.rng.blob(t.len() / 2 + 64);
        self.line(
            "response_item",
            json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": t}],
                   "content": null, "encrypted_content": enc}),
        )?;
        self.line("event_msg", json!({"type": "agent_reasoning", "text": t}))
    }

    fn tool_step(&mut self, room: u64, marker: bool) -> io::Result<()> {
        if self.rng.chance(0.6) {
            self.reasoning()?;
        }
        let call_id = format!("call_{}", self.rng.hex(24));
        let out_len =
            (self.rng.lognormal(900.0, 1.9) as u64).clamp(1, room.clamp(200, 4 << 20)) as usize;
        if self.rng.chance(0.15) {
            let path = text::rel_path(self.rng);
            let body = text::code(self.rng, out_len.min(20_000), false);
            let patch = format!(
                "*** Begin Patch\n*** Update File: {path}\n@@\n{}*** End Patch",
                body.lines().map(|l| format!("+{l}\n")).collect::<String>()
            );
            self.line(
                "response_item",
                json!({"type": "custom_tool_call", "status": "completed", "call_id": call_id,
                       "name": "apply_patch", "input": patch}),
            )?;
            self.token_count()?;
            let out =
                json!({"output": format!("Success. Updated the following files:\nM {path}\n"),
                             "metadata": {"exit_code": 0, "duration_seconds": 0.0}})
                .to_string();
            return self.line(
                "response_item",
                json!({"type": "custom_tool_call_output", "call_id": call_id, "output": out}),
            );
        }
        let cmd = text::command(self.rng);
        let args = json!({"cmd": cmd, "workdir": self.cwd}).to_string();
        self.line(
            "response_item",
            json!({"type": "function_call", "name": "exec_command", "arguments": args, "call_id": call_id}),
        )?;
        self.token_count()?;
        let fail = self.rng.chance(0.12);
        let mut body = text::tool_output(self.rng, out_len, fail);
        if marker {
            body.push_str(&format!("\nnote: flaky fixture {MARKER} reproduced\n"));
        }
        let out = format!(
            "Chunk ID: {}\nWall time: {}.{:04} seconds\nProcess exited with code {}\nOriginal token count: {}\nOutput:\n{}",
            self.rng.hex(6),
            self.rng.range(0, 30),
            self.rng.range(0, 9999),
            if fail { 1 } else { 0 },
            body.len() / 4,
            body
        );
        self.line(
            "response_item",
            json!({"type": "function_call_output", "call_id": call_id, "output": out}),
        )
    }

    fn turn(&mut self, prompt: &str, steps: u64, room: u64, marker: bool) -> io::Result<()> {
        let turn_id = self.rng.uuid7(self.now);
        self.line(
            "event_msg",
            json!({"type": "task_started", "turn_id": turn_id, "model_context_window": 258_400}),
        )?;
        let cwd = self.cwd.clone();
        self.line(
            "turn_context",
            json!({"turn_id": turn_id, "cwd": cwd, "approval_policy": "on-request",
                   "sandbox_policy": {"type": "workspace-write"}, "model": MODEL,
                   "effort": "medium", "summary": "auto"}),
        )?;
        self.line(
            "response_item",
            json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}),
        )?;
        self.line(
            "event_msg",
            json!({"type": "user_message", "message": prompt, "images": [], "local_images": [], "text_elements": []}),
        )?;
        self.prompts += 1;
        self.user_history.push(prompt.chars().take(2000).collect());
        for s in 0..steps {
            self.tool_step(room, marker && s == 0)?;
        }
        let l = self.lang();
        let n = self.rng.lognormal(400.0, 0.9).clamp(20.0, 8000.0) as usize;
        let answer = text::prose(self.rng, l, n);
        self.line(
            "response_item",
            json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]}),
        )?;
        self.line(
            "event_msg",
            json!({"type": "agent_message", "message": answer}),
        )?;
        self.token_count()?;
        let head: String = answer.chars().take(300).collect();
        self.line(
            "event_msg",
            json!({"type": "task_complete", "turn_id": turn_id, "last_agent_message": head}),
        )
    }

    fn compaction(&mut self) -> io::Result<()> {
        let l = self.lang();
        let n = self.rng.range(600, 3000) as usize;
        let summary = text::prose(self.rng, l, n);
        let history: Vec<Value> = self
            .user_history
            .iter()
            .rev()
            .take(8)
            .rev()
            .map(|t| json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": t}]}))
            .collect();
        self.line(
            "compacted",
            json!({"message": summary, "replacement_history": history}),
        )?;
        self.line("event_msg", json!({"type": "context_compacted"}))?;
        self.context = 9_000;
        Ok(())
    }
}

fn rollout_rel(start_ms: i64, id: &str) -> String {
    let (y, mo, d, h, mi, s, _) = civil(start_ms);
    format!(".codex/sessions/{y:04}/{mo:02}/{d:02}/rollout-{y:04}-{mo:02}-{d:02}T{h:02}-{mi:02}-{s:02}-{id}.jsonl")
}

/// Writes one Codex rollout; a share of them fork an earlier rollout of the same corpus.
pub fn write_session(
    home: &Path,
    plan: &SessionPlan,
    rng: &mut Rng,
    written: &Manifest,
) -> io::Result<Vec<SessionEntry>> {
    let id = rng.uuid7(plan.start_ms);
    let rel = rollout_rel(plan.start_ms, &id);
    let cwd = plan.cwd();
    // A fork copies the head of a smaller, earlier rollout of the same project.
    let parent = if rng.chance(0.08) {
        written
            .sessions
            .iter()
            .rev()
            .find(|s| {
                s.provider == "codex"
                    && s.kind == "main"
                    && s.bytes < 2 << 20
                    && s.path.contains('/')
            })
            .cloned()
    } else {
        None
    };
    let mut r = Rollout {
        f: JsonlFile::create(&home.join(&rel))?,
        rng,
        now: plan.start_ms,
        cwd: cwd.clone(),
        total: [0; 4],
        tokens: Tokens::default(),
        prompts: 0,
        context: 9_000,
        zh: plan.zh,
        user_history: Vec::new(),
    };
    let ts = iso(plan.start_ms);
    let commit = r.rng.hex(40);
    let mut meta = json!({"id": id, "timestamp": ts, "cwd": cwd, "originator": "codex_cli_rs",
        "cli_version": CLI_VERSION, "source": "cli", "model_provider": "openai",
        "base_instructions": {"text": "You are Codex, a coding agent. You and the user share one workspace."},
        "git": {"commit_hash": commit, "branch": "main",
                "repository_url": format!("git@example.com:dev/{}.git", plan.project)}});
    if let Some(p) = &parent {
        meta["forked_from_id"] = json!(p.id);
    }
    r.f.line(&json!({"timestamp": ts, "type": "session_meta", "payload": meta}))?;
    if let Some(p) = &parent {
        copy_head(home, &p.path, &ts, &mut r.f, 80, 512 * 1024)?;
    }
    r.line(
        "response_item",
        json!({"type": "message", "role": "developer", "content": [{"type": "input_text",
               "text": "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. sandbox_mode is workspace-write.\n</permissions instructions>"}]}),
    )?;
    let env = format!(
        "<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n  <current_date>{}</current_date>\n  <timezone>Etc/UTC</timezone>\n</environment_context>",
        &ts[..10]
    );
    r.line(
        "response_item",
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": env}]}),
    )?;
    let compact_every = r.rng.range(15, 35);
    let mut turn = 0u64;
    // At least one turn of its own, also when a fork's copied head already fills the budget.
    while turn == 0 || r.f.bytes < plan.budget {
        turn += 1;
        r.tick(2_000, 600_000);
        let l = r.lang();
        let mut prompt = text::prompt(r.rng, l);
        let marker = plan.marker && turn == 1;
        if marker {
            prompt.push_str(&format!(" The failing fixture is {MARKER}."));
        }
        let steps = r.rng.lognormal(3.0, 0.8).clamp(0.0, 40.0) as u64;
        let room = plan.budget.saturating_sub(r.f.bytes) / (steps + 1);
        r.turn(&prompt, steps, room, marker)?;
        if turn % compact_every == 0 && r.f.bytes < plan.budget {
            r.compaction()?;
        }
    }
    let end = r.now;
    let (tokens, prompts, lines) = (r.tokens, r.prompts, r.f.lines);
    let bytes = r.f.finish(end)?;
    Ok(vec![SessionEntry {
        provider: "codex",
        id,
        path: rel,
        bytes,
        lines,
        kind: if parent.is_some() { "fork" } else { "main" },
        parent: parent.map(|p| p.id),
        prompts,
        tokens,
        marker: plan.marker,
        start_ms: plan.start_ms,
        end_ms: end,
    }])
}

/// Copies the first lines of an already written rollout (its meta and early history), as Codex
/// does when it forks a thread; at most `max_lines` lines and `max_bytes` bytes, and only lines
/// written before the fork (`before`, an ISO time of the same format): the parent may have gone
/// on after the fork was made, and a fork cannot hold history from its future (earlier versions
/// copied such lines, and every reader then counted those parent requests as the fork's own).
fn copy_head(
    home: &Path,
    rel: &str,
    before: &str,
    out: &mut JsonlFile,
    max_lines: usize,
    max_bytes: u64,
) -> io::Result<()> {
    let f = std::fs::File::open(home.join(rel))?;
    let mut copied = 0u64;
    for (i, line) in BufReader::new(f).lines().enumerate() {
        let line = line?;
        if i >= max_lines || copied + line.len() as u64 > max_bytes {
            break;
        }
        let time = serde_json::from_str::<Value>(&line)
            .ok()
            .and_then(|v| v["timestamp"].as_str().map(str::to_owned));
        if time.is_some_and(|t| t.as_str() >= before) {
            break;
        }
        copied += line.len() as u64 + 1;
        out.raw(&line)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fork_copies_only_the_parent_history_written_before_it() {
        let home = tempfile::tempdir().expect("temp dir");
        let mut parent = JsonlFile::create(&home.path().join("parent.jsonl")).expect("create");
        for (i, ms) in [1_000i64, 2_000, 3_000, 9_000, 10_000].iter().enumerate() {
            parent
                .line(&json!({"timestamp": iso(*ms), "type": "event_msg", "payload": {"n": i}}))
                .expect("write");
        }
        parent.finish(10_000).expect("finish");
        let mut fork = JsonlFile::create(&home.path().join("fork.jsonl")).expect("create");
        copy_head(home.path(), "parent.jsonl", &iso(5_000), &mut fork, 80, 1 << 20).expect("copy");
        fork.finish(5_000).expect("finish");
        let copied = std::fs::read_to_string(home.path().join("fork.jsonl")).expect("read");
        let ns: Vec<u64> = copied
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["payload"]["n"].as_u64().unwrap())
            .collect();
        assert_eq!(ns, [0, 1, 2], "lines the parent wrote after the fork are not copied");
    }
}
