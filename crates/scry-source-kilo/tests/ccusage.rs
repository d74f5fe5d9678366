//! Token totals against ccusage, which reads Kilo's database too.
//!
//! `data/ccusage-kilo-session.json` is ccusage's own output, recorded once (ccusage is not part
//! of the repo or CI): installed in /tmp with
//! `npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24` and run as
//! `HOME=<corpus>/real/home npx ccusage kilo session --json --offline`.
//!
//! Semantics: ccusage's `outputTokens` is Kilo's `tokens.output` without `tokens.reasoning`
//! (its rows equal the `session` table's `tokens_output`: 871 / 81 / 189, while the reasoning
//! column holds 45 / 12 / 29); scry's `output` includes the billed reasoning, so scry's
//! `output - reasoning` is compared, and `reasoning` against the `session` row. ccusage's
//! `totalTokens` does include the reasoning, so it equals scry's total.

use std::path::PathBuf;

use scry_model::TokenUsage;
use scry_source::{Env, Source};
use scry_source_kilo::KiloSource;
use serde_json::Value;

fn home() -> PathBuf {
    scry_testkit::corpus().join("real/home")
}

#[test]
fn every_session_matches_ccusage() {
    let text = include_str!("data/ccusage-kilo-session.json");
    let v: Value = serde_json::from_str(text).unwrap();
    let rows = v["sessions"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    let files = KiloSource.discover(&Env::with_home(home())).files;
    assert_eq!(files.len(), 3);
    // The `session` row's `tokens_reasoning` (sqlite3 on the corpus database).
    let reasoning = [
        ("ses_dcc5306e9ffeDxDok7PdnFdKIE", 45),
        ("ses_dcc4fd7bdffebAeAbYG85FAU2O", 12),
        ("ses_dcc4cdd9affe7t35agMQZeWqAT", 29),
    ];
    for row in rows {
        let id = row["sessionId"].as_str().unwrap();
        let f = files.iter().find(|f| f.id == id).expect("listed");
        let s = KiloSource.parse(f).unwrap();
        let mut u = TokenUsage::default();
        for e in &s.events {
            if let Some(x) = e.usage {
                u += x;
            }
        }
        let n = |k: &str| row[k].as_u64().unwrap();
        assert_eq!(u.input, n("inputTokens"), "{id}");
        assert_eq!(u.output - u.reasoning, n("outputTokens"), "{id}");
        assert_eq!(u.cache_read, n("cacheReadTokens"), "{id}");
        assert_eq!(u.cache_write, n("cacheCreationTokens"), "{id}");
        let r = reasoning.iter().find(|(i, _)| *i == id).unwrap().1;
        assert_eq!(u.reasoning, r, "{id}");
        // ccusage's total does count the reasoning (29073 = 17238 + 189 + 29 + 11617).
        assert_eq!(u.total(), n("totalTokens"), "{id}");
        let mut models = s.header.models.clone();
        models.sort();
        let mut theirs: Vec<String> = row["modelsUsed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        theirs.sort();
        assert_eq!(models, theirs, "{id}");
    }
}
