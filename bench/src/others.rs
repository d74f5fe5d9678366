//! The smaller providers: Gemini CLI JSONL sessions (0.61 shape, docs/formats.md §3.3:
//! `.gemini/tmp/<project>/chats/session-<ts>-<id8>.jsonl` with a metadata line, message records,
//! `$set` patches, tool calls with their results inside the `gemini` record, plus
//! `.gemini/projects.json` and `.project_root`) and pi v3 sessions (§5.6:
//! `.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl`).

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use serde_json::json;

use crate::manifest::{SessionEntry, Tokens};
use crate::plan::{Provider, SessionPlan};
use crate::rng::Rng;
use crate::text::{self, Lang, MARKER};
use crate::write::{civil, iso, write_small, JsonlFile};

fn lang(rng: &mut Rng, zh: f64) -> Lang {
    if rng.chance(zh) {
        Lang::Zh
    } else {
        Lang::En
    }
}

fn out_len(rng: &mut Rng) -> usize {
    (rng.lognormal(700.0, 1.6) as usize).clamp(1, 256 * 1024)
}

/// Writes one Gemini CLI session.
pub fn write_gemini(
    home: &Path,
    plan: &SessionPlan,
    rng: &mut Rng,
) -> io::Result<Vec<SessionEntry>> {
    let id = rng.uuid();
    let (y, mo, d, h, mi, _, _) = civil(plan.start_ms);
    let rel = format!(
        ".gemini/tmp/{}/chats/session-{y:04}-{mo:02}-{d:02}T{h:02}-{mi:02}-{}.jsonl",
        plan.project,
        &id[..8]
    );
    let mut f = JsonlFile::create(&home.join(&rel))?;
    let mut now = plan.start_ms;
    let project_hash = rng.hex(64);
    f.line(
        &json!({"sessionId": id, "projectHash": project_hash, "startTime": iso(now),
                   "lastUpdated": iso(now), "kind": "main"}),
    )?;
    let mut tokens = Tokens::default();
    let mut prompts = 0;
    let mut context = 9_000u64;
    let mut turn = 0;
    while f.bytes < plan.budget {
        turn += 1;
        now += rng.range(2_000, 600_000) as i64;
        let l = lang(rng, plan.zh);
        let mut prompt = text::prompt(rng, l);
        if plan.marker && turn == 1 {
            prompt.push_str(&format!(" The failing fixture is {MARKER}."));
        }
        f.line(&json!({"id": rng.uuid(), "timestamp": iso(now), "type": "user", "content": [{"text": prompt}]}))?;
        prompts += 1;
        f.line(&json!({"$set": {"lastUpdated": iso(now)}}))?;
        let steps = rng.range(0, 4);
        for s in 0..=steps {
            now += rng.range(50, 20_000) as i64;
            let input = context + rng.range(100, 3000);
            let cached = context;
            let output = rng.range(10, 1500);
            let thoughts = rng.range(0, 300);
            context = input + output;
            // Thoughts are billed as output; scry's model and formats.md count them in `output`
            // (and once more, separately, as `reasoning`).
            tokens.add(&Tokens {
                input: input - cached,
                output: output + thoughts,
                cache_read: cached,
                cache_write: 0,
                reasoning: thoughts,
                requests: 1,
            });
            let last = s == steps;
            let l = lang(rng, plan.zh);
            let n = rng.range(20, 600) as usize;
            let content = if last {
                text::prose(rng, l, n)
            } else {
                String::new()
            };
            let n = rng.range(30, 300) as usize;
            let thought = text::prose(rng, l, n);
            let mut rec = json!({"id": rng.uuid(), "timestamp": iso(now), "type": "gemini", "content": content,
                "thoughts": [{"subject": "", "description": thought, "timestamp": iso(now)}],
                "tokens": {"input": input, "output": output, "cached": cached, "thoughts": thoughts, "tool": 0,
                           "total": input + output + thoughts},
                "model": "gemini-3.8-flash"});
            if !last {
                let fail = rng.chance(0.12);
                let cmd = text::command(rng);
                let n = out_len(rng);
                let out = text::tool_output(rng, n, fail);
                let call_id = format!("run_shell_command__run_shell_command_{now}_0");
                rec["toolCalls"] = json!([{"id": call_id, "name": "run_shell_command", "args": {"command": cmd},
                    "result": [{"functionResponse": {"id": call_id, "name": "run_shell_command",
                                                     "response": {"output": out}}}],
                    "status": if fail { "error" } else { "success" }, "timestamp": iso(now),
                    "displayName": "Shell", "renderOutputAsMarkdown": false}]);
            }
            f.line(&rec)?;
            f.line(&json!({"$set": {"lastUpdated": iso(now)}}))?;
        }
    }
    let lines = f.lines;
    let bytes = f.finish(now)?;
    write_small(
        &home.join(format!(".gemini/tmp/{}/.project_root", plan.project)),
        &plan.cwd(),
        plan.start_ms,
    )?;
    Ok(vec![SessionEntry {
        provider: "gemini",
        id,
        path: rel,
        bytes,
        lines,
        kind: "main",
        parent: None,
        prompts,
        tokens,
        marker: plan.marker,
        start_ms: plan.start_ms,
        end_ms: now,
    }])
}

/// Writes `.gemini/projects.json` for every Gemini project in the plan.
pub fn write_gemini_projects(home: &Path, plans: &[SessionPlan]) -> io::Result<()> {
    let projects: BTreeMap<String, &str> = plans
        .iter()
        .filter(|p| p.provider == Provider::Gemini)
        .map(|p| (p.cwd(), p.project))
        .collect();
    if projects.is_empty() {
        return Ok(());
    }
    let last = plans.iter().map(|p| p.start_ms).max().unwrap_or(0);
    let body =
        serde_json::to_string_pretty(&json!({ "projects": projects })).map_err(io::Error::other)?;
    write_small(&home.join(".gemini/projects.json"), &body, last)
}

/// Writes one pi session.
pub fn write_pi(home: &Path, plan: &SessionPlan, rng: &mut Rng) -> io::Result<Vec<SessionEntry>> {
    let id = rng.uuid7(plan.start_ms);
    let cwd = plan.cwd();
    let dir = format!("--{}--", cwd.trim_start_matches('/').replace('/', "-"));
    let (y, mo, d, h, mi, s, ms) = civil(plan.start_ms);
    let rel = format!(
        ".pi/agent/sessions/{dir}/{y:04}-{mo:02}-{d:02}T{h:02}-{mi:02}-{s:02}-{ms:03}Z_{id}.jsonl"
    );
    let mut f = JsonlFile::create(&home.join(&rel))?;
    let mut now = plan.start_ms;
    f.line(&json!({"type": "session", "version": 3, "id": id, "timestamp": iso(now), "cwd": cwd}))?;
    let mut parent = rng.hex(8);
    f.line(
        &json!({"type": "model_change", "id": parent, "parentId": null, "timestamp": iso(now),
                   "provider": "anthropic", "modelId": "claude-sonnet-5"}),
    )?;
    let mut tokens = Tokens::default();
    let mut prompts = 0;
    let mut turn = 0;
    let mut context = 1_400u64;
    while f.bytes < plan.budget {
        turn += 1;
        now += rng.range(2_000, 600_000) as i64;
        let l = lang(rng, plan.zh);
        let mut prompt = text::prompt(rng, l);
        if plan.marker && turn == 1 {
            prompt.push_str(&format!(" The failing fixture is {MARKER}."));
        }
        let eid = rng.hex(8);
        f.line(&json!({"type": "message", "id": eid, "parentId": parent, "timestamp": iso(now),
                       "message": {"role": "user", "content": [{"type": "text", "text": prompt}], "timestamp": now}}))?;
        parent = eid;
        prompts += 1;
        let steps = rng.range(0, 4);
        for s in 0..=steps {
            now += rng.range(50, 20_000) as i64;
            let last = s == steps;
            let input = rng.range(20, 400);
            let output = rng.range(10, 1500);
            let cache_write = rng.range(0, 400);
            let cache_read = context;
            context += input + output + cache_write;
            tokens.add(&Tokens {
                input,
                output,
                cache_read,
                cache_write,
                reasoning: 0,
                requests: 1,
            });
            let l = lang(rng, plan.zh);
            let call_id = format!("toolu_01{}", rng.hex(22));
            let cmd = text::command(rng);
            let content = if last {
                let n = rng.range(20, 600) as usize;
                json!([{"type": "text", "text": text::prose(rng, l, n)}])
            } else {
                json!([{"type": "toolCall", "id": call_id, "name": "bash", "arguments": {"command": cmd}}])
            };
            let eid = rng.hex(8);
            f.line(&json!({"type": "message", "id": eid, "parentId": parent, "timestamp": iso(now),
                "message": {"role": "assistant", "content": content, "api": "anthropic-messages",
                    "provider": "anthropic", "model": "claude-sonnet-5",
                    "usage": {"input": input, "output": output, "cacheRead": cache_read, "cacheWrite": cache_write,
                              "totalTokens": input + output + cache_read + cache_write,
                              "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                    "stopReason": if last { "stop" } else { "toolUse" }, "timestamp": now}}))?;
            parent = eid;
            if !last {
                now += rng.range(10, 5_000) as i64;
                let fail = rng.chance(0.12);
                let n = out_len(rng);
                let mut out = text::tool_output(rng, n, fail);
                if fail {
                    out.push_str("\n\nCommand exited with code 1");
                }
                let eid = rng.hex(8);
                f.line(&json!({"type": "message", "id": eid, "parentId": parent, "timestamp": iso(now),
                    "message": {"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
                                "content": [{"type": "text", "text": out}], "details": {}, "isError": fail,
                                "timestamp": now}}))?;
                parent = eid;
            }
        }
    }
    let lines = f.lines;
    let bytes = f.finish(now)?;
    Ok(vec![SessionEntry {
        provider: "pi",
        id,
        path: rel,
        bytes,
        lines,
        kind: "main",
        parent: None,
        prompts,
        tokens,
        marker: plan.marker,
        start_ms: plan.start_ms,
        end_ms: now,
    }])
}
