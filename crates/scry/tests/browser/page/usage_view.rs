//! The Usage view (issue 19) in headless Chromium: `#/usage?by=provider` on the corpus home
//! draws the daily cost and tokens as inline SVG stacked bars whose segments add up to the
//! `scry usage daily --by provider --json` figures, names the unpriced models, and reads only
//! the page's own `/v1/usage` route. The list marks failed tool results and shows the folded
//! cost.

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

/// The page's list (issue 19 / 23): each row marks its failed tool results (`✗ N`, folded
/// children included) and shows its cost (its folded subagents' included), as `list --json`
/// says them.
#[test]
fn browser_list_marks_failures_and_shows_the_folded_cost() {
    let Some((chromium, driver)) = browser_tools() else {
        return;
    };
    let (tmp, server) = demo_server();
    let b = Browser::start(&chromium, &driver, tmp.path());
    b.goto(&format!("{}/", server.base));
    b.wait_for(
        "the session list",
        "document.querySelectorAll('.sessions a.row').length",
    );
    let shown: Vec<(String, String, String)> = serde_json::from_value(b.js(
        "return Array.from(document.querySelectorAll('.sessions a.row')).map(a => [a.dataset.uri, \
         (a.querySelector('.badge.failed') || {}).textContent || '', \
         a.querySelector('.sub').textContent]);",
    ))
    .expect("rows");
    let cli = crate::util::scry(
        &tmp.path().join("home"),
        &["--demo", "list", "--global", "--limit", "50", "--json"],
    );
    assert_eq!(cli.code, 0, "{}", cli.render());
    let want = cli.json();
    let sessions = want["sessions"].as_array().expect("sessions");
    assert_eq!(shown.len(), sessions.len(), "{shown:?}");
    let (mut marked, mut folded) = (0, 0);
    for s in sessions {
        let uri = s["uri"].as_str().unwrap();
        let (_, badge, sub) = shown
            .iter()
            .find(|(u, _, _)| u == uri)
            .unwrap_or_else(|| panic!("{uri} not on the page: {shown:?}"));
        let failures = s["failures"].as_u64().expect("failures");
        if failures > 0 {
            marked += 1;
            assert_eq!(badge, &format!("✗ {failures}"), "{uri}");
        } else {
            assert_eq!(badge, "", "{uri}");
        }
        if let Some(usd) = s["cost"]["usd"].as_f64() {
            let text = if usd > 0.0 && usd < 0.01 {
                format!("${usd:.4}")
            } else {
                format!("${usd:.2}")
            };
            assert!(
                sub.ends_with(&format!(" · {text}")),
                "{uri}: {sub} vs {text}"
            );
            if let Some(own) = s["cost"]["own"]["usd"].as_f64() {
                if format!("${own:.2}") != text {
                    folded += 1;
                }
            }
        }
    }
    assert!(marked >= 3, "{marked} rows with failures");
    assert!(folded >= 1, "no row whose folded cost differs from its own");
    b.screenshot(&tmp.path().join("list-failures.png"));
}
