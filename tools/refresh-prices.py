#!/usr/bin/env python3
"""Refreshes crates/scry-query/src/usage/data/prices.json, scry's embedded price table.

The source is LiteLLM's `model_prices_and_context_window.json` (MIT, (c) Berri AI), taken from
the `litellm` wheel on PyPI (the only registry the build machines reach) as
`litellm/model_prices_and_context_window_backup.json`:

    pip download litellm --no-deps -d /tmp/litellm
    cd /tmp/litellm && unzip -o litellm-*.whl 'litellm/model_prices_and_context_window_backup.json'
    python3 tools/refresh-prices.py /tmp/litellm/litellm/model_prices_and_context_window_backup.json <litellm version>

scry never fetches prices at run time. The copy is trimmed to what scry prices: chat models of
the providers whose agents scry reads, keyed by the bare model name (a provider prefix such as
`gemini/` or `dashscope/` dropped; an entry without a prefix wins over prefixed ones, then the
provider listed first in PROVIDERS), and only the per-token prices (USD per token):

    i / o / cr / cw   input, output, cache read, cache write (5-minute)
    cw1h              cache write with a 1-hour lifetime (Anthropic)
    t                 the context threshold of the long-context tier (`*_above_<N>k_tokens`)
    i2 / o2 / cr2 / cw2   the prices of the tokens above `t`

A `tiered_pricing` list (DashScope) keeps its first range as the base price, as ccusage does.
"""

import json
import re
import sys
from datetime import date

# Providers whose models the agents scry reads run on, in order of preference.
PROVIDERS = [
    "anthropic", "openai", "gemini", "vertex_ai-language-models", "xai", "deepseek",
    "mistral", "dashscope", "moonshot", "zai", "github_copilot", "openrouter",
    # Claude models the Anthropic rows no longer list (Claude 3.x, 4.0, 4.1) keep their
    # Bedrock rows (`anthropic.claude-…-v1:0`, the same list price as Anthropic's API).
    "bedrock_converse", "bedrock",
]

FIELDS = {
    "input_cost_per_token": "i",
    "output_cost_per_token": "o",
    "cache_read_input_token_cost": "cr",
    "cache_creation_input_token_cost": "cw",
    "cache_creation_input_token_cost_above_1hr": "cw1h",
}
TIER = re.compile(r"^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost)_above_(\d+)k_tokens$")


def trim(entry):
    out = {}
    for k, short in FIELDS.items():
        v = entry.get(k)
        if isinstance(v, (int, float)):
            out[short] = v
    tiers = entry.get("tiered_pricing")
    if isinstance(tiers, list) and tiers:
        first = tiers[0]
        for k, short in FIELDS.items():
            v = first.get(k)
            if isinstance(v, (int, float)) and short not in out:
                out[short] = v
    threshold = None
    for k, v in entry.items():
        m = TIER.match(k)
        if m and isinstance(v, (int, float)):
            n = int(m.group(2)) * 1000
            if threshold is None or n < threshold:
                threshold = n
    if threshold is not None:
        out["t"] = threshold
        for base, short in [("input_cost_per_token", "i2"), ("output_cost_per_token", "o2"),
                            ("cache_read_input_token_cost", "cr2"),
                            ("cache_creation_input_token_cost", "cw2")]:
            v = entry.get(f"{base}_above_{threshold // 1000}k_tokens")
            if isinstance(v, (int, float)):
                out[short] = v
    return out if "i" in out or "o" in out else None


def main():
    src, version = sys.argv[1], sys.argv[2]
    data = json.load(open(src))
    chosen = {}  # bare name -> (rank, entry)
    for key, entry in data.items():
        if not isinstance(entry, dict) or entry.get("mode") != "chat":
            continue
        provider = entry.get("litellm_provider")
        if provider not in PROVIDERS:
            continue
        bare = key.rsplit("/", 1)[-1].lower()
        if provider.startswith("bedrock"):
            if not bare.startswith("anthropic.claude"):
                continue  # only unprefixed Claude rows; regional `us.anthropic.…` are marked up
            bare = re.sub(r"-v\d+:\d+$", "", bare[len("anthropic."):])
        if "." in bare.split("-")[0]:
            continue
        prices = trim(entry)
        if prices is None:
            continue
        rank = (0 if "/" not in key else 1, PROVIDERS.index(provider))
        if bare not in chosen or rank < chosen[bare][0]:
            chosen[bare] = (rank, prices)
    table = {
        "source": "LiteLLM model_prices_and_context_window.json (MIT, (c) Berri AI), trimmed by tools/refresh-prices.py",
        "litellm": version,
        "date": date.today().isoformat(),
        "models": {k: chosen[k][1] for k in sorted(chosen)},
    }
    out = "crates/scry-query/src/usage/data/prices.json"
    with open(out, "w") as f:
        f.write("{\n")
        f.write(f'"source": {json.dumps(table["source"])},\n"litellm": {json.dumps(version)},\n"date": {json.dumps(table["date"])},\n"models": {{\n')
        rows = [f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in table["models"].items()]
        f.write(",\n".join(rows))
        f.write("\n}}\n")
    print(f"{out}: {len(rows)} models")


if __name__ == "__main__":
    main()
