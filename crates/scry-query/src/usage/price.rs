//! USD prices of model requests: the embedded price table (a dated, trimmed snapshot of LiteLLM's
//! `model_prices_and_context_window.json`, refreshed by `tools/refresh-prices.py`, never fetched
//! at run time), model-name normalization, custom prices from the config file, and the cost of
//! one request.
//!
//! Rules (issue 19):
//! - names are normalized: case, a provider prefix (`anthropic/`, `models/`, `[pi] `), a dated
//!   suffix (`-20250514`, `-2025-04-14`, `@20250514`), `-latest`, dotted Claude versions
//!   (`claude-sonnet-4.5`), and Codex's `-codex` variants (priced as their base model, as
//!   ccusage does);
//! - a request whose context (input + cache read + cache write) is above the model's
//!   long-context threshold (200k for Claude and Gemini, 272k for GPT-5.5) is priced wholly at
//!   the long-context prices, as the providers bill it. ccusage 20 prices a GPT-5.5 request
//!   wholly at the long-context prices once its input passes 200k, not the table's 272k
//!   (re-pricing each request of a bench rollout under both rules gives each tool's figure to
//!   the cent: bench/usage_bench.py `codex_tiers`), so it charges more for requests between
//!   the two; no corpus request comes near either;
//! - 1-hour cache writes at their own price, 5-minute ones at the cache-write price;
//! - reasoning tokens are inside `output` (scry's normalized usage) and priced as output;
//! - a model with no price is *unpriced*: callers report its tokens apart, never as $0.

use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;

use scry_model::TokenUsage;
use serde::{Deserialize, Serialize};

/// The embedded table (see `data/README.md`).
const EMBEDDED: &str = include_str!("data/prices.json");

/// USD per token of one model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// Fresh input.
    #[serde(rename = "i", default)]
    pub input: f64,
    /// Output (reasoning included).
    #[serde(rename = "o", default)]
    pub output: f64,
    /// Cache read; the input price when the table has none.
    #[serde(rename = "cr", default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
    /// Cache write (5-minute); the input price when the table has none.
    #[serde(rename = "cw", default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
    /// 1-hour cache write; the cache-write price when the table has none.
    #[serde(rename = "cw1h", default, skip_serializing_if = "Option::is_none")]
    pub cache_write_1h: Option<f64>,
    /// Long-context threshold in context tokens.
    #[serde(rename = "t", default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<u64>,
    /// Input above the threshold.
    #[serde(rename = "i2", default, skip_serializing_if = "Option::is_none")]
    pub input_long: Option<f64>,
    /// Output above the threshold.
    #[serde(rename = "o2", default, skip_serializing_if = "Option::is_none")]
    pub output_long: Option<f64>,
    /// Cache read above the threshold.
    #[serde(rename = "cr2", default, skip_serializing_if = "Option::is_none")]
    pub cache_read_long: Option<f64>,
    /// Cache write above the threshold.
    #[serde(rename = "cw2", default, skip_serializing_if = "Option::is_none")]
    pub cache_write_long: Option<f64>,
}

/// A custom price from the config file's `[pricing."<model>"]`, USD per million tokens.
pub use scry_sources::config::PriceOverride as CustomPrice;

/// The per-token [`Price`] of a custom price.
pub fn custom_price(c: &CustomPrice) -> Price {
    let m = |v: f64| v / 1e6;
    Price {
        input: m(c.input),
        output: m(c.output),
        cache_read: c.cache_read.map(m),
        cache_write: c.cache_write.map(m),
        cache_write_1h: c.cache_write_1h.map(m),
        ..Price::default()
    }
}

#[derive(Deserialize)]
struct RawTable {
    litellm: String,
    date: String,
    models: BTreeMap<String, Price>,
}

/// Model prices: the embedded table plus custom prices (which win).
#[derive(Debug, Clone)]
pub struct PriceTable {
    /// LiteLLM version the embedded snapshot came from.
    pub litellm: String,
    /// Day the snapshot was taken.
    pub date: String,
    /// Custom prices given (entries of the config file's `[pricing]`).
    pub custom_given: usize,
    models: HashMap<String, Price>,
    custom: HashMap<String, Price>,
}

/// Where a model's price came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Priced {
    /// The table key the model matched.
    pub key: String,
    /// From the config file's `[pricing]`.
    pub custom: bool,
    /// The price.
    pub price: Price,
}

static EMBEDDED_TABLE: LazyLock<PriceTable> = LazyLock::new(|| {
    let raw: RawTable = serde_json::from_str(EMBEDDED).expect("embedded prices.json parses");
    let mut models: HashMap<String, Price> = HashMap::with_capacity(raw.models.len() * 2);
    for (k, p) in &raw.models {
        models.insert(k.clone(), *p);
    }
    // A dated key also answers for its undated name when that name has no row of its own (the
    // newest date when there are several).
    for (k, p) in raw.models.iter().rev() {
        let base = strip_date(k);
        if base != *k {
            models.entry(base).or_insert(*p);
        }
    }
    PriceTable {
        litellm: raw.litellm,
        date: raw.date,
        custom_given: 0,
        models,
        custom: HashMap::new(),
    }
});

impl PriceTable {
    /// The embedded table alone.
    pub fn embedded() -> &'static PriceTable {
        &EMBEDDED_TABLE
    }

    /// The embedded table with `custom` prices (config `[pricing]`, names as written) on top.
    pub fn with_custom(custom: &BTreeMap<String, CustomPrice>) -> PriceTable {
        let mut t = PriceTable::embedded().clone();
        for (name, c) in custom {
            t.custom.insert(name.trim().to_lowercase(), custom_price(c));
        }
        t.custom_given = custom.len();
        t
    }

    /// Number of models in the embedded table (undated aliases included).
    pub fn len(&self) -> usize {
        self.models.len()
    }

    /// Whether the table is empty (never, for the embedded one).
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    /// The price of `model`, trying its normalized forms in turn; `None` = unpriced.
    pub fn lookup(&self, model: &str) -> Option<Priced> {
        let raw = model.trim().to_lowercase();
        if let Some(p) = self.custom.get(&raw) {
            return Some(Priced {
                key: raw,
                custom: true,
                price: *p,
            });
        }
        let names = candidates(&raw);
        for name in &names {
            if let Some(p) = self.custom.get(name) {
                return Some(Priced {
                    key: name.clone(),
                    custom: true,
                    price: *p,
                });
            }
        }
        for name in names {
            if let Some(p) = self.models.get(&name) {
                return Some(Priced {
                    key: name,
                    custom: false,
                    price: *p,
                });
            }
        }
        None
    }
}

/// The names `raw` (lowercase) may be priced under, most specific first.
pub fn candidates(raw: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if !s.is_empty() && !out.contains(&s) {
            out.push(s);
        }
    };
    // `[pi] claude-…` (a label), `anthropic/claude-…`, `models/gemini-…`, `openrouter/x/y`.
    let mut name = raw.trim();
    if let Some(rest) = name.strip_prefix('[').and_then(|r| r.split_once(']')) {
        name = rest.1.trim();
    }
    let bare = name.rsplit('/').next().unwrap_or(name);
    // Bedrock / Vertex spellings: `us.anthropic.claude-…-v1:0`, `claude-…@20250514`.
    let bare = bare.rsplit_once("anthropic.").map_or(bare, |(_, b)| b);
    let bare = bare.split_once(':').map_or(bare, |(b, _)| b);
    let bare = bare.strip_suffix("-v1").unwrap_or(bare);
    let mut forms = vec![bare.to_string()];
    if bare.starts_with("claude") {
        forms.push(undot(bare));
    }
    for f in forms {
        let undated = strip_date(&f);
        push(f.clone());
        push(undated.clone());
        for suffix in ["-latest", "-thinking"] {
            if let Some(b) = undated.strip_suffix(suffix) {
                push(b.to_string());
            }
        }
        // gpt-5.5-codex, gpt-5-codex-mini, gpt-5.1-codex-max → the base model.
        if let Some((base, _)) = undated.split_once("-codex") {
            push(base.to_string());
        }
    }
    out
}

/// `claude-sonnet-4.5` → `claude-sonnet-4-5` (Copilot and OpenRouter spell versions with dots).
fn undot(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        let digit_around =
            i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(|n| n.is_ascii_digit());
        out.push(if c == '.' && digit_around { '-' } else { c });
    }
    out
}

/// Drops a dated suffix: `-20250514`, `-2025-05-14`, `@20250514`, `-0514`-style is kept.
pub fn strip_date(s: &str) -> String {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if let Some((head, tail)) = s.rsplit_once('@') {
        if digits(tail) || tail == "latest" {
            return head.to_string();
        }
    }
    // -YYYY-MM-DD
    if s.len() > 11 {
        let (head, tail) = s.split_at(s.len() - 11);
        let t = tail.as_bytes();
        if t[0] == b'-'
            && digits(&tail[1..5])
            && t[5] == b'-'
            && digits(&tail[6..8])
            && t[8] == b'-'
            && digits(&tail[9..11])
        {
            return head.to_string();
        }
    }
    // -YYYYMMDD
    if let Some((head, tail)) = s.rsplit_once('-') {
        if tail.len() == 8 && digits(tail) && tail.starts_with("20") {
            return head.to_string();
        }
    }
    s.to_string()
}

/// The USD cost of one request of `usage`, `cache_write_1h` of whose cache writes had a 1-hour
/// lifetime.
pub fn cost(price: &Price, usage: &TokenUsage, cache_write_1h: u64) -> f64 {
    let context = usage.input + usage.cache_read + usage.cache_write;
    let long = price.threshold.is_some_and(|t| context > t);
    cost_at(price, usage, cache_write_1h, long)
}

/// The USD cost of a session's requests of one model and context tier, summed in the index's
/// usage ledger ([`scry_store::ledger`]): [`cost`] of each request, summed (up to the order of
/// floating-point additions), since a request's cost is linear in its tokens within a tier.
pub fn cost_of_sum(price: &Price, sum: &scry_store::UsageSum) -> f64 {
    let long = price.threshold.is_some_and(|t| sum.above(t));
    cost_at(price, &sum.usage, sum.cache_write_1h, long)
}

/// [`cost`] with the tier given: `long` = priced at the long-context prices.
fn cost_at(price: &Price, usage: &TokenUsage, cache_write_1h: u64, long: bool) -> f64 {
    let pick = |base: f64, above: Option<f64>| if long { above.unwrap_or(base) } else { base };
    let input = pick(price.input, price.input_long);
    let output = pick(price.output, price.output_long);
    let read = pick(
        price.cache_read.unwrap_or(price.input),
        price.cache_read_long,
    );
    let write = pick(
        price.cache_write.unwrap_or(price.input),
        price.cache_write_long,
    );
    // The 1-hour write keeps its ratio to the 5-minute one in the long tier.
    let write_1h = match price.cache_write_1h {
        Some(p) if long => {
            p * write
                / price
                    .cache_write
                    .unwrap_or(price.input)
                    .max(f64::MIN_POSITIVE)
        }
        Some(p) => p,
        None => write,
    };
    let one_hour = cache_write_1h.min(usage.cache_write);
    usage.input as f64 * input
        + usage.output as f64 * output
        + usage.cache_read as f64 * read
        + (usage.cache_write - one_hour) as f64 * write
        + one_hour as f64 * write_1h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(input: u64, output: u64, cache_read: u64, cache_write: u64) -> TokenUsage {
        TokenUsage {
            input,
            output,
            cache_read,
            cache_write,
            reasoning: 0,
        }
    }

    fn key(model: &str) -> Option<String> {
        PriceTable::embedded().lookup(model).map(|p| p.key)
    }

    #[test]
    fn names_normalize_to_table_keys() {
        assert_eq!(
            key("claude-sonnet-4-5").as_deref(),
            Some("claude-sonnet-4-5")
        );
        assert!(key("claude-sonnet-4-5-20250929").is_some());
        assert!(key("claude-opus-4-1-20250805").is_some());
        assert_eq!(key("claude-opus-4-1").as_deref(), Some("claude-opus-4-1"));
        assert_eq!(
            key("us.anthropic.claude-sonnet-4-20250514-v1:0").as_deref(),
            Some("claude-sonnet-4-20250514")
        );
        assert_eq!(
            key("anthropic/claude-sonnet-4.5").as_deref(),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(
            key("[pi] claude-sonnet-4-5").as_deref(),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(
            key("models/gemini-3.8-flash").as_deref(),
            Some("gemini-3.8-flash")
        );
        assert_eq!(key("gpt-5.5-codex").as_deref(), Some("gpt-5.5"));
        assert_eq!(key("GPT-4.1").as_deref(), Some("gpt-4.1"));
        assert_eq!(
            key("dashscope/qwen3-coder-plus").as_deref(),
            Some("qwen3-coder-plus")
        );
        assert_eq!(key("mock-coder"), None);
        assert_eq!(key(""), None);
    }

    #[test]
    fn dated_suffixes() {
        assert_eq!(strip_date("claude-opus-4-1-20250805"), "claude-opus-4-1");
        assert_eq!(strip_date("gpt-4.1-2025-04-14"), "gpt-4.1");
        assert_eq!(
            strip_date("claude-3-5-sonnet@20240620"),
            "claude-3-5-sonnet"
        );
        assert_eq!(strip_date("gpt-4.1"), "gpt-4.1");
        assert_eq!(strip_date("o3-mini"), "o3-mini");
    }

    #[test]
    fn long_context_tier_prices_the_whole_request() {
        let p = PriceTable::embedded().lookup("gpt-5.5").unwrap().price;
        assert_eq!(p.threshold, Some(272_000));
        let small = cost(&p, &u(100_000, 1000, 0, 0), 0);
        assert!((small - (100_000.0 * 5e-6 + 1000.0 * 3e-5)).abs() < 1e-9);
        // 300k context: every token at the long prices.
        let big = cost(&p, &u(200_000, 1000, 100_000, 0), 0);
        let want = 200_000.0 * 1e-5 + 1000.0 * 4.5e-5 + 100_000.0 * 1e-6;
        assert!((big - want).abs() < 1e-9, "{big} vs {want}");
        // 250k context: below the table's 272k, base prices (ccusage 20 would use the long
        // ones here: its GPT-5.5 tier starts at 200k).
        let mid = cost(&p, &u(50_000, 1000, 200_000, 0), 0);
        let want = 50_000.0 * 5e-6 + 1000.0 * 3e-5 + 200_000.0 * 5e-7;
        assert!((mid - want).abs() < 1e-9, "{mid} vs {want}");
    }

    #[test]
    fn one_hour_cache_writes_cost_more() {
        let p = PriceTable::embedded()
            .lookup("claude-sonnet-4-5")
            .unwrap()
            .price;
        let five = cost(&p, &u(0, 0, 0, 1_000_000), 0);
        let hour = cost(&p, &u(0, 0, 0, 1_000_000), 1_000_000);
        assert!((five - 3.75).abs() < 1e-9, "{five}");
        assert!((hour - 6.0).abs() < 1e-9, "{hour}");
        let half = cost(&p, &u(0, 0, 0, 1_000_000), 500_000);
        assert!((half - (3.75 + 6.0) / 2.0).abs() < 1e-9, "{half}");
    }

    #[test]
    fn custom_prices_win_and_price_unknown_models() {
        let mut c = BTreeMap::new();
        c.insert(
            "mock-coder".to_string(),
            CustomPrice {
                input: 1.0,
                output: 2.0,
                ..CustomPrice::default()
            },
        );
        c.insert(
            "gpt-4.1".to_string(),
            CustomPrice {
                input: 10.0,
                output: 20.0,
                cache_read: Some(1.0),
                ..CustomPrice::default()
            },
        );
        let t = PriceTable::with_custom(&c);
        let m = t.lookup("mock-coder").unwrap();
        assert!(m.custom);
        let got = cost(&m.price, &u(1_000_000, 1_000_000, 1_000_000, 0), 0);
        assert!(
            (got - 4.0).abs() < 1e-9,
            "cache read defaults to input: {got}"
        );
        let g = t.lookup("openai/gpt-4.1-2025-04-14").unwrap();
        assert!(g.custom);
        assert!((g.price.input - 1e-5).abs() < 1e-15);
    }

    #[test]
    fn every_threshold_of_the_table_is_a_tier_bound_of_the_ledger() {
        for p in PriceTable::embedded().models.values() {
            if let Some(t) = p.threshold {
                assert!(scry_store::TIER_BOUNDS.contains(&t), "threshold {t}");
            }
        }
    }

    #[test]
    fn a_ledger_sum_costs_what_its_requests_cost() {
        use scry_store::ledger::{sums_of, StoredRequest};
        let t = PriceTable::embedded();
        for model in ["gpt-5.5", "claude-sonnet-4-5", "gemini-2.5-pro"] {
            let p = t.lookup(model).unwrap().price;
            let reqs: Vec<StoredRequest> = [
                u(1_000, 200, 50_000, 3_000),
                u(90_000, 900, 150_000, 0),
                u(5_000, 100, 260_000, 10_000),
                u(2, 3, 5, 7),
            ]
            .into_iter()
            .enumerate()
            .map(|(i, usage)| StoredRequest {
                seq: i as u32,
                time: None,
                model: model.into(),
                usage,
                cache_write_1h: usage.cache_write / 2,
            })
            .collect();
            let each: f64 = reqs
                .iter()
                .map(|r| cost(&p, &r.usage, r.cache_write_1h))
                .sum();
            let summed: f64 = sums_of(&reqs).iter().map(|s| cost_of_sum(&p, s)).sum();
            assert!(
                ((each - summed) / each).abs() < 1e-12,
                "{model}: {each} vs {summed}"
            );
            assert!(sums_of(&reqs).len() > 1, "{model}: the requests span tiers");
        }
    }
}
