//! Token totals against ccusage 20.0.24, the reference Codex usage reader.
//!
//! ccusage is not run here (not in the repo, not in CI). It was installed in /tmp and run once:
//!
//! ```text
//! npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24   # codex report is built in
//! CODEX_HOME=../shared/corpus/real/home/.codex npx ccusage codex session --json --offline
//! ```
//!
//! which printed (per session: inputTokens / cacheReadTokens / outputTokens /
//! reasoningOutputTokens / totalTokens; `inputTokens` already excludes cached input):
//!
//! ```text
//! rollout-…-01a22cf1-805d-…  24648 / 98583 / 1042 / 169 / 124273
//! rollout-…-01a22cf1-88a4-…   7185 / 28737 /  266 /  63 /  36188
//! ```
//!
//! and the third-party fixtures copied into a temporary `CODEX_HOME` (under /tmp) gave
//! `codex_053_rate_limit` 1211 / 10880 / 182 / 128, `large` 1211 / 10880 / 182 / 128,
//! `small_v0.146_many-types` 12757 / 3584 / 81 / 63.
//!
//! Where scry differs: ccusage lists no session for the subagent rollout `01a22cf1-892d-…`
//! and does not add it to its parent either (the parent's 7185 is the parent file alone).
//! scry counts it (4151 / 16599 / 181 / 70) because those are the subagent's own requests:
//! its two `token_usage_record`s carry response ids `resp_d0108d9b…` and `resp_fd454b8c…`,
//! neither of which appears in the parent file (`jq -r 'select(.type=="token_usage_record")
//! |.payload.response_id'` over both files: 0 in common), and the file holds no copied parent
//! history (no second `session_meta`; the spawn used `fork_turns: "none"`).

use std::path::PathBuf;

use scry_source::Source;
use scry_source_codex::CodexSource;

fn totals(path: PathBuf) -> (u64, u64, u64, u64, u64) {
    let src = CodexSource;
    let f = src.detect(&path).unwrap();
    let u = src.parse(&f).unwrap().total_usage().unwrap();
    (
        u.input,
        u.cache_read,
        u.output,
        u.reasoning,
        u.input + u.cache_read + u.cache_write + u.output,
    )
}

fn real(name: &str) -> PathBuf {
    scry_testkit::corpus()
        .join("real/home/.codex/sessions/2026/11/30")
        .join(name)
}

fn third_party(name: &str) -> PathBuf {
    scry_testkit::corpus().join("third-party/codex").join(name)
}

#[test]
fn real_sessions_equal_ccusage() {
    assert_eq!(
        totals(real(
            "rollout-2026-11-30T14-52-34-01a22cf1-805d-7161-bbbc-a2414caa5633.jsonl"
        )),
        (24648, 98583, 1042, 169, 124273)
    );
    assert_eq!(
        totals(real(
            "rollout-2026-11-30T14-52-36-01a22cf1-88a4-7de1-a508-335da749c9f9.jsonl"
        )),
        (7185, 28737, 266, 63, 36188)
    );
}

#[test]
fn subagent_rollout_is_counted_where_ccusage_omits_it() {
    // Equal to the file's own final `total_token_usage` (input 20750 incl. 16599 cached,
    // output 181, reasoning 70, total 20931): nothing copied, nothing counted twice.
    assert_eq!(
        totals(real(
            "rollout-2026-11-30T14-52-36-01a22cf1-892d-7182-af0e-31b8d4237fb3.jsonl"
        )),
        (4151, 16599, 181, 70, 20931)
    );
}

#[test]
fn third_party_fixtures_equal_ccusage() {
    let cases = [
        (
            "agent-sessions_codex_053_rate_limit.jsonl",
            (1211, 10880, 182, 128),
        ),
        ("agent-sessions_large.jsonl", (1211, 10880, 182, 128)),
        (
            "agent-sessions_small_v0.146_many-types.jsonl",
            (12757, 3584, 81, 63),
        ),
    ];
    for (name, want) in cases {
        let (i, c, o, r, _) = totals(third_party(name));
        assert_eq!((i, c, o, r), want, "{name}");
    }
}
