//! Claude Code sessions (shape of v2.1.332 files, docs/formats.md §1):
//! `.claude/projects/<slug>/<id>.jsonl`, one assistant line per content block (split lines share
//! `message.id`, `requestId` and `usage`), tool results as `user` lines with `toolUseResult`,
//! `last-prompt` / `queue-operation` / `ai-title` bookkeeping lines, manual compactions
//! (`compact_boundary` + `isCompactSummary` user line) and Agent subagents in
//! `<id>/subagents/agent-<hex>.jsonl` with a `.meta.json`.

use std::io;
use std::path::Path;

use serde_json::{json, Value};

use crate::manifest::{SessionEntry, Tokens};
use crate::plan::SessionPlan;
use crate::rng::Rng;
use crate::text::{self, Lang, MARKER};
use crate::write::{iso, write_small, JsonlFile};

const VERSION: &str = "2.1.332";
const MODELS: &[&str] = &["claude-opus-5-5", "claude-sonnet-5", "claude-haiku-4-5"];

/// The project slug Claude Code derives from a cwd.
pub fn slug(cwd: &str) -> String {
    cwd.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// State of one transcript being written (main or subagent).
struct Transcript<'a> {
    f: JsonlFile,
    rng: &'a mut Rng,
    now: i64,
    session_id: String,
    agent_id: Option<String>,
    cwd: String,
    model: &'static str,
    parent_uuid: Option<String>,
    tokens: Tokens,
    prompts: u64,
    context: u64,
    zh: f64,
}

impl Transcript<'_> {
    fn tick(&mut self, lo: u64, hi: u64) -> String {
        self.now += self.rng.range(lo, hi) as i64;
        iso(self.now)
    }

    /// The envelope fields every conversational line carries.
    fn envelope(&mut self, kind: &str, extra: Value) -> Value {
        let uuid = self.rng.uuid();
        let ts = self.tick(5, 900);
        let mut v = json!({
            "parentUuid": self.parent_uuid,
            "isSidechain": self.agent_id.is_some(),
        });
        let m = v.as_object_mut().expect("object literal");
        if let Some(a) = &self.agent_id {
            m.insert("agentId".into(), json!(a));
        }
        m.insert("type".into(), json!(kind));
        if let Value::Object(extra) = extra {
            m.extend(extra);
        }
        m.insert("uuid".into(), json!(uuid));
        m.insert("timestamp".into(), json!(ts));
        m.insert("userType".into(), json!("external"));
        m.insert("entrypoint".into(), json!("cli"));
        m.insert("cwd".into(), json!(self.cwd));
        m.insert("sessionId".into(), json!(self.session_id));
        m.insert("version".into(), json!(VERSION));
        m.insert("gitBranch".into(), json!("main"));
        self.parent_uuid = Some(uuid);
        v
    }

    fn user_prompt(&mut self, text: &str) -> io::Result<()> {
        let prompt_id = self.rng.uuid();
        let v = self.envelope(
            "user",
            json!({"promptId": prompt_id, "message": {"role": "user", "content": text},
                   "permissionMode": "default"}),
        );
        self.prompts += 1;
        self.f.line(&v)
    }

    fn lang(&mut self) -> Lang {
        if self.rng.chance(self.zh) {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    /// One model request: its blocks as split assistant lines; returns the tool_use ids/names.
    fn request(&mut self, blocks: Vec<Value>, last: bool) -> io::Result<()> {
        let msg_id = format!("msg_01{}", self.rng.hex(22));
        let req_id = format!("req_{}", self.rng.hex(24));
        let input = self.rng.range(3, 900);
        let cache_write = self.rng.range(0, 4000);
        let output = self.rng.range(20, 2500);
        let cache_read = self.context;
        self.context += cache_write + input + output;
        let usage = json!({
            "input_tokens": input, "cache_creation_input_tokens": cache_write,
            "cache_read_input_tokens": cache_read, "output_tokens": output,
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
            "service_tier": "standard",
            "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": cache_write},
        });
        self.tokens.add(&Tokens {
            input,
            output,
            cache_read,
            cache_write,
            reasoning: 0,
            requests: 1,
        });
        let stop = if last { "end_turn" } else { "tool_use" };
        for block in blocks {
            let v = self.envelope(
                "assistant",
                json!({"message": {"id": msg_id, "type": "message", "role": "assistant",
                        "model": self.model, "content": [block], "stop_reason": stop,
                        "stop_sequence": null, "usage": usage},
                       "requestId": req_id}),
            );
            self.f.line(&v)?;
        }
        Ok(())
    }

    fn tool_result(
        &mut self,
        call_id: &str,
        content: Value,
        is_error: bool,
        structured: Value,
    ) -> io::Result<()> {
        let v = self.envelope(
            "user",
            json!({"message": {"role": "user", "content": [
                        {"tool_use_id": call_id, "type": "tool_result", "content": content, "is_error": is_error}]},
                   "toolUseResult": structured}),
        );
        self.f.line(&v)
    }

    /// A tool call and its result; returns nothing. `room` bounds the output size.
    fn tool_step(&mut self, room: u64, marker: bool) -> io::Result<()> {
        let call_id = format!("toolu_01{}", self.rng.hex(22));
        let out_len =
            (self.rng.lognormal(900.0, 1.9) as u64).clamp(1, room.clamp(200, 4 << 20)) as usize;
        let fail = self.rng.chance(0.12);
        let mut thinking = None;
        if self.rng.chance(0.5) {
            let l = self.lang();
            let n = self.rng.range(40, 600) as usize;
            thinking = Some(text::prose(self.rng, l, n));
        }
        let (name, input, mut output, structured_kind) = match self.rng.range(0, 9) {
            0..=3 => {
                let cmd = text::command(self.rng);
                let out = text::shell_log(self.rng, out_len, fail);
                (
                    "Bash",
                    json!({"command": cmd, "description": "Run the command"}),
                    out,
                    0,
                )
            }
            4..=5 => {
                let p = format!("{}/{}", self.cwd, text::rel_path(self.rng));
                let out = text::code(self.rng, out_len, true);
                ("Read", json!({"file_path": p}), out, 1)
            }
            6 => {
                let p = format!("{}/{}", self.cwd, text::rel_path(self.rng));
                let old = text::code(self.rng, 120, false);
                let new = text::code(self.rng, 160, false);
                let out = format!("The file {p} has been updated successfully.");
                (
                    "Edit",
                    json!({"file_path": p, "old_string": old, "new_string": new, "replace_all": false}),
                    out,
                    2,
                )
            }
            7 => {
                let p = format!("{}/{}", self.cwd, text::rel_path(self.rng));
                let content = text::code(self.rng, out_len.min(60_000), false);
                let out = format!("File created successfully at: {p}");
                ("Write", json!({"file_path": p, "content": content}), out, 2)
            }
            _ => {
                let pat = self
                    .rng
                    .pick(&["TODO", "unwrap()", "fn main", "import", "error"])
                    .to_string();
                let out = text::tool_output(self.rng, out_len, false);
                (
                    "Grep",
                    json!({"pattern": pat, "path": self.cwd, "output_mode": "content"}),
                    out,
                    0,
                )
            }
        };
        if marker {
            output.push_str(&format!("\nnote: flaky fixture {MARKER} reproduced\n"));
        }
        let mut blocks = Vec::new();
        if let Some(t) = thinking {
            blocks.push(json!({"type": "thinking", "thinking": t, "signature": self.rng.blob(96)}));
        }
        if self.rng.chance(0.35) {
            let l = self.lang();
            let n = self.rng.range(20, 200) as usize;
            blocks.push(json!({"type": "text", "text": text::prose(self.rng, l, n)}));
        }
        blocks.push(json!({"type": "tool_use", "id": call_id, "name": name, "input": input}));
        self.request(blocks, false)?;
        let is_error = fail && name == "Bash";
        let content = if is_error {
            format!("Exit code 1\n{output}")
        } else {
            output.clone()
        };
        let structured = match structured_kind {
            0 if is_error => json!(format!("Error: Exit code 1\n{}", tail(&output, 2000))),
            0 => json!({"stdout": output, "stderr": "", "interrupted": false, "isImage": false}),
            1 => {
                json!({"type": "text", "file": {"filePath": input["file_path"], "numLines": output.lines().count(), "startLine": 1}})
            }
            _ => json!({"filePath": input["file_path"], "type": "update"}),
        };
        self.tool_result(&call_id, json!(content), is_error, structured)
    }

    fn answer(&mut self) -> io::Result<String> {
        let l = self.lang();
        let n = self.rng.lognormal(400.0, 0.9).clamp(20.0, 8000.0) as usize;
        let mut t = text::prose(self.rng, l, n);
        if self.rng.chance(0.3) {
            t.push_str("\n\n```rust\n");
            let n = self.rng.range(100, 1500) as usize;
            t.push_str(&text::code(self.rng, n, false));
            t.push_str("```\n");
        }
        self.request(vec![json!({"type": "text", "text": t})], true)?;
        Ok(t)
    }

    fn meta_line(&mut self, v: Value) -> io::Result<()> {
        self.f.line(&v)
    }
}

fn tail(s: &str, n: usize) -> &str {
    let mut start = s.len().saturating_sub(n);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// Writes one Claude session (plus its subagents); returns the manifest entries.
pub fn write_session(
    home: &Path,
    plan: &SessionPlan,
    rng: &mut Rng,
) -> io::Result<Vec<SessionEntry>> {
    let cwd = plan.cwd();
    let session_id = rng.uuid();
    let dir = home.join(".claude/projects").join(slug(&cwd));
    let rel = format!(".claude/projects/{}/{}.jsonl", slug(&cwd), session_id);
    let f = JsonlFile::create(&dir.join(format!("{session_id}.jsonl")))?;
    let model = *rng.pick(MODELS);
    let mut sub_rng = rng.fork(0xc1a0de);
    let mut t = Transcript {
        f,
        rng,
        now: plan.start_ms,
        session_id: session_id.clone(),
        agent_id: None,
        cwd: cwd.clone(),
        model,
        parent_uuid: None,
        tokens: Tokens::default(),
        prompts: 0,
        context: 12_000,
        zh: plan.zh,
    };
    let mut entries = Vec::new();
    let wants_subagents = plan.budget > 40_000 && t.rng.chance(0.2);
    let mut subagents_left = if wants_subagents {
        t.rng.range(1, 3)
    } else {
        0
    };
    let compact_every = t.rng.range(18, 40);
    let mut turn = 0u64;
    let mut marker_left = plan.marker;
    // Subagent files come out of the session's budget.
    let mut sub_bytes = 0u64;
    while t.f.bytes + sub_bytes < plan.budget {
        turn += 1;
        let l = t.lang();
        let mut prompt = text::prompt(t.rng, l);
        if marker_left && turn == 1 {
            prompt.push_str(&format!(" The failing fixture is {MARKER}."));
        }
        let ts = t.tick(2_000, 600_000);
        let sid = t.session_id.clone();
        if t.rng.chance(0.5) {
            t.meta_line(
                json!({"type": "queue-operation", "operation": "enqueue", "timestamp": ts,
                               "sessionId": sid, "content": prompt}),
            )?;
        }
        t.user_prompt(&prompt)?;
        let steps = t.rng.lognormal(3.0, 0.8).clamp(0.0, 40.0) as u64;
        let room = plan.budget.saturating_sub(t.f.bytes) / (steps + 1).max(1);
        for s in 0..steps {
            if subagents_left > 0 && s == 0 && turn % 2 == 1 {
                subagents_left -= 1;
                let budget = (plan.budget / 8).max(4_000);
                let e = subagent_step(home, plan, &mut t, &mut sub_rng, budget, &rel)?;
                sub_bytes += e.bytes;
                entries.push(e);
                continue;
            }
            t.tool_step(room, marker_left && turn == 1 && s == 0)?;
        }
        t.answer()?;
        marker_left = false;
        let leaf = t.parent_uuid.clone();
        t.meta_line(
            json!({"type": "last-prompt", "lastPrompt": first_chars(&prompt, 200),
                           "leafUuid": leaf, "sessionId": sid}),
        )?;
        if turn == 1 && t.rng.chance(0.4) {
            let l = t.lang();
            let title = text::prose(t.rng, l, 30);
            t.meta_line(json!({"type": "ai-title", "aiTitle": first_chars(title.trim(), 60), "sessionId": sid}))?;
        }
        if turn % compact_every == 0 && t.f.bytes + sub_bytes < plan.budget {
            compaction(&mut t)?;
        }
    }
    let end = t.now;
    let lines = t.f.lines;
    let tokens = t.tokens;
    let prompts = t.prompts;
    let bytes = t.f.finish(end)?;
    entries.insert(
        0,
        SessionEntry {
            provider: "claude",
            id: session_id,
            path: rel,
            bytes,
            lines,
            kind: "main",
            parent: None,
            prompts,
            tokens,
            marker: plan.marker,
            start_ms: plan.start_ms,
            end_ms: end,
        },
    );
    Ok(entries)
}

fn first_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

fn compaction(t: &mut Transcript<'_>) -> io::Result<()> {
    let logical = t.parent_uuid.clone();
    t.parent_uuid = None;
    let pre = t.context;
    let v = t.envelope(
        "system",
        json!({"logicalParentUuid": logical, "subtype": "compact_boundary",
               "content": "Conversation compacted", "isMeta": false, "level": "info",
               "compactMetadata": {"trigger": "manual", "preTokens": pre}}),
    );
    t.f.line(&v)?;
    let l = t.lang();
    let n = t.rng.range(800, 4000) as usize;
    let summary = format!(
        "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n{}",
        text::prose(t.rng, l, n)
    );
    let v = t.envelope(
        "user",
        json!({"message": {"role": "user", "content": summary},
               "isVisibleInTranscriptOnly": true, "isCompactSummary": true}),
    );
    t.context = 12_000;
    t.f.line(&v)
}

/// An Agent tool call whose subagent transcript goes to its own file.
fn subagent_step(
    home: &Path,
    plan: &SessionPlan,
    t: &mut Transcript<'_>,
    sub_rng: &mut Rng,
    budget: u64,
    parent_rel: &str,
) -> io::Result<SessionEntry> {
    let call_id = format!("toolu_01{}", t.rng.hex(22));
    let agent_id = format!("a{}", t.rng.hex(16));
    let l = t.lang();
    let task = text::prompt(t.rng, l);
    let description = first_chars(&text::prose(t.rng, Lang::En, 24), 40);
    t.request(
        vec![json!({"type": "tool_use", "id": call_id, "name": "Agent",
                    "input": {"description": description, "prompt": task, "subagent_type": "general-purpose"}})],
        false,
    )?;
    let dir_rel = parent_rel.trim_end_matches(".jsonl");
    let rel = format!("{dir_rel}/subagents/agent-{agent_id}.jsonl");
    let mut s = Transcript {
        f: JsonlFile::create(&home.join(&rel))?,
        rng: sub_rng,
        now: t.now,
        session_id: t.session_id.clone(),
        agent_id: Some(agent_id.clone()),
        cwd: t.cwd.clone(),
        model: t.model,
        parent_uuid: None,
        tokens: Tokens::default(),
        prompts: 0,
        context: 8_000,
        zh: t.zh,
    };
    s.user_prompt(&task)?;
    while s.f.bytes < budget {
        let room = budget.saturating_sub(s.f.bytes);
        s.tool_step(room, false)?;
    }
    let final_text = s.answer()?;
    let end = s.now;
    let (tokens, prompts, lines) = (s.tokens, s.prompts, s.f.lines);
    let bytes = s.f.finish(end)?;
    write_small(
        &home.join(format!("{dir_rel}/subagents/agent-{agent_id}.meta.json")),
        &json!({"agentType": "general-purpose", "description": description, "toolUseId": call_id,
                "spawnDepth": 1})
        .to_string(),
        end,
    )?;
    t.now = end + 50;
    let total = tokens.input + tokens.output + tokens.cache_read + tokens.cache_write;
    t.tool_result(
        &call_id,
        json!([{"type": "text", "text": final_text}]),
        false,
        json!({"status": "completed", "agentId": agent_id, "content": [{"type": "text", "text": first_chars(&final_text, 500)}],
               "totalTokens": total, "totalToolUseCount": tokens.requests.saturating_sub(1)}),
    )?;
    Ok(SessionEntry {
        provider: "claude",
        id: format!("agent-{agent_id}"),
        path: rel,
        bytes,
        lines,
        kind: "subagent",
        parent: Some(t.session_id.clone()),
        prompts,
        tokens,
        marker: false,
        start_ms: plan.start_ms,
        end_ms: end,
    })
}
