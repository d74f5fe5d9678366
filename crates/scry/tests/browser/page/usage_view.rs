//! The Usage view (issue 19) in headless Chromium: `#/usage?by=provider` on the corpus home
//! draws the daily cost and tokens as inline SVG stacked bars whose segments add up to the
//! `scry usage daily --by provider --json` figures, names the unpriced models, and reads only
//! the page's own `/v1/usage` route.

use super::*;

#[test]
fn browser_usage_view_draws_daily_cost_and_tokens_by_agent() {
    let Some((chromium, driver)) = browser_tools() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = crate::util::corpus().join("real/home");
    let server = WebServer::start(&home, &tmp.path().join("index.db"), &[]);
    let b = Browser::start(&chromium, &driver, tmp.path());
    b.goto(&format!("{}/#/usage?by=provider", server.base));
    b.wait_for(
        "the cost chart",
        "document.querySelectorAll('#chart-cost rect').length",
    );
    let cli = crate::util::scry(&home, &["usage", "daily", "--by", "provider", "--json"]);
    assert_eq!(cli.code, 0, "{}", cli.render());
    let want = cli.json();
    // Every dated row's parts, as (day, provider) → (cost, tokens).
    let mut parts = std::collections::BTreeMap::new();
    for row in want["rows"].as_array().expect("rows") {
        if row["key"] == "unknown" {
            continue;
        }
        for p in row["breakdown"].as_array().expect("breakdown") {
            parts.insert(
                (
                    row["key"].as_str().unwrap().to_string(),
                    p["key"].as_str().unwrap().to_string(),
                ),
                (
                    p["cost_usd"].as_f64(),
                    p["tokens"]["total"].as_u64().unwrap(),
                ),
            );
        }
    }
    let drawn = |chart: &str| -> Vec<(String, String, f64)> {
        let v = b.js(&format!(
            "return Array.from(document.querySelectorAll('#{chart} rect[data-key]')).map(r => \
             [r.dataset.day, r.dataset.key, Number(r.dataset.value)]);"
        ));
        serde_json::from_value(v).expect("rects")
    };
    let tokens = drawn("chart-tokens");
    assert_eq!(
        tokens.len(),
        parts.len(),
        "one token segment per (day, agent)"
    );
    for (day, key, v) in &tokens {
        assert_eq!(
            parts[&(day.clone(), key.clone())].1 as f64,
            *v,
            "{day} {key}"
        );
    }
    // Cost segments: only the priced parts (unpriced agents are not drawn as $0).
    let cost = drawn("chart-cost");
    let priced: Vec<_> = parts
        .iter()
        .filter(|(_, (c, _))| c.is_some_and(|c| c > 0.0))
        .collect();
    assert_eq!(cost.len(), priced.len(), "{cost:?}");
    for (day, key, v) in &cost {
        let want = parts[&(day.clone(), key.clone())].0.expect("priced");
        assert!((want - v).abs() < 1e-9, "{day} {key}: {v} vs {want}");
    }
    assert!(cost.iter().any(|(_, k, _)| k == "codex"), "{cost:?}");
    assert!(
        !cost.iter().any(|(_, k, _)| k == "kilo"),
        "kilo is unpriced: {cost:?}"
    );
    let unpriced = b.js("return document.getElementById('usage-unpriced').textContent;");
    assert!(
        unpriced.as_str().unwrap_or("").contains("mock-coder"),
        "{unpriced}"
    );
    b.screenshot(&tmp.path().join("usage.png"));
    let api = server.api_requests();
    assert!(api.iter().any(|l| l.contains("/v1/usage")), "{api:?}");
}
