//! Token totals against ccusage 20.0.24 and against Qwen Code's own `usage_record.jsonl`.
//!
//! ccusage's figures were recorded once (ccusage is not part of the repo or CI): installed in
//! /tmp with `npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24` and run as
//! `HOME=<corpus>/real/home npx ccusage qwen session --json --offline`:
//!
//! | session | inputTokens | outputTokens | cacheReadTokens | totalTokens |
//! |---|---|---|---|---|
//! | 4106c652-… | 245961 | 710 | 131546 | 378262 |
//! | f8aa1e14-… | 40348 | 221 | 16252 | 56850 |
//!
//! ccusage sums `usageMetadata` of the `assistant` records of `chats/<id>.jsonl` (not the
//! subagent file, not the telemetry). Where it differs from scry, with the evidence:
//! - its `inputTokens` is `promptTokenCount`, which already contains the cached tokens, and it
//!   adds `cacheReadTokens` again on top (and `thoughtsTokenCount`, already inside the
//!   candidates) in `totalTokens`: 245961 + 710 + 131546 + 45 = 378262. Qwen Code's own
//!   `usage_record.jsonl` says `totalTokens = inputTokens + outputTokens` with `cachedTokens` a
//!   part of `inputTokens` (60546 + 183 = 60729 on its first line), and every record has
//!   `totalTokenCount = promptTokenCount + candidatesTokenCount`. scry's `input` is the uncached
//!   part (SPEC S-F7), so ccusage's input = scry input + cache read; output and cache read are
//!   equal;
//! - `/compress` sends two summary requests that only `ui_telemetry` records (`prompt_id`
//!   `compress-…`): 21966 + 4491 input, 173 + 173 output. ccusage leaves them out; scry counts
//!   them (log-only `compression_request` events), and with them and the subagent file the
//!   session's figures equal Qwen's own last `usage_record.jsonl` line for the session.

use std::path::PathBuf;

use scry_model::{Session, TokenUsage};
use scry_source::{Env, Source};
use scry_source_qwen::QwenSource;

fn home() -> PathBuf {
    scry_testkit::corpus().join("real/home")
}

fn session(id: &str) -> Session {
    let f = QwenSource
        .discover(&Env::with_home(home()))
        .files
        .into_iter()
        .find(|f| f.id == id)
        .unwrap();
    QwenSource.parse(&f).unwrap()
}

/// Usage of the events that are not compression requests, and of those that are.
fn split(s: &Session) -> (TokenUsage, TokenUsage) {
    let mut chat = TokenUsage::default();
    let mut compress = TokenUsage::default();
    for e in &s.events {
        if let Some(u) = e.usage {
            if e.subtype.as_deref() == Some("compression_request") {
                compress += u;
            } else {
                chat += u;
            }
        }
    }
    (chat, compress)
}

#[test]
fn chat_records_match_ccusage() {
    // (id, ccusage inputTokens, outputTokens, cacheReadTokens)
    for (id, input, output, cache) in [
        ("4106c652-5ce3-4ae6-a2cd-65c5cd0e4ab1", 245961, 710, 131546),
        ("f8aa1e14-f598-4d91-a29c-07a02d84eaed", 40348, 221, 16252),
    ] {
        let (chat, _) = split(&session(id));
        assert_eq!(chat.input + chat.cache_read, input, "{id}");
        assert_eq!(chat.output, output, "{id}");
        assert_eq!(chat.cache_read, cache, "{id}");
        assert_eq!(chat.cache_write, 0);
    }
}

#[test]
fn with_compression_and_subagent_the_session_equals_qwens_own_record() {
    // The last usage_record.jsonl line of session 4106c652: requests 16, inputTokens 304073,
    // outputTokens 1163, cachedTokens 144270, thoughtsTokens 57, totalTokens 305236.
    let main = session("4106c652-5ce3-4ae6-a2cd-65c5cd0e4ab1");
    let sub = session("general-purpose-call_0831eabf344947feb914e450");
    let (_, compress) = split(&main);
    assert_eq!((compress.input, compress.output), (21966 + 4491, 173 + 173));
    let mut all = main.total_usage().unwrap();
    all += sub.total_usage().unwrap();
    let requests = main
        .events
        .iter()
        .chain(&sub.events)
        .filter(|e| e.usage.is_some())
        .count();
    assert_eq!(requests, 16);
    assert_eq!(all.input + all.cache_read, 304073);
    assert_eq!(all.output, 1163);
    assert_eq!(all.cache_read, 144270);
    assert_eq!(all.reasoning, 57);
    assert_eq!(all.total(), 305236);
    // The CJK session: requests 2, inputTokens 40348, outputTokens 221, cachedTokens 16252.
    let b = session("f8aa1e14-f598-4d91-a29c-07a02d84eaed")
        .total_usage()
        .unwrap();
    assert_eq!(
        (b.input + b.cache_read, b.output, b.cache_read),
        (40348, 221, 16252)
    );
}
