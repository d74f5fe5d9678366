"""`scry usage daily` / `usage session` beside ccusage's `daily` / `session` reports (issue 19).

scry's first run builds its index (the cold figure: one run on an empty index); the next runs
read the index's usage ledger (warm: median of --reps after a warm-up). ccusage has no cache:
every run reads the corpus. Each process is timed whole: wall, CPU (user + sys of the child,
from wait4) and peak RSS. Both tools run in UTC, ccusage `--offline` (its embedded prices).

Equality: per day (the `daily` rows, keyed by date) and per session (the `session` rows, keyed
by session id), input / output / cache read / cache write tokens and the cost, each row that
differs with its reason: a model ccusage has no price for (`missingPricing`: its cost is 0),
output without reasoning (ccusage leaves Gemini's thoughts out of output), a pi session whose
cost ccusage takes from pi's own records (scry prices the tokens from the table), a Codex request priced
in the other long-context tier (ccusage 20 prices a GPT-5.5 request wholly at the long-context
rates once its input passes 200k tokens; the price table and OpenAI's bill put the bound at the
table's `t`, 272k: checked by re-pricing the rollout's own `token_count` records under both
rules, see `codex_tiers`), or a plain mismatch.

    python3 bench/run.py --home CORPUS --scry SCRY --ccusage CCUSAGE --usage-only OUT.json
"""

import json
import os
import statistics
import time

TOKENS = (("input", "inputTokens"), ("output", "outputTokens"),
          ("cache_read", "cacheReadTokens"), ("cache_write", "cacheCreationTokens"))


def run_timed(argv, env, out_path, timeout=3600):
    """Runs argv with stdout to out_path; returns (wall s, cpu s, max RSS KiB, exit code)."""
    import subprocess
    with open(out_path, "wb") as out, open(out_path + ".err", "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        deadline = t0 + timeout
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                p.kill()
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.0005)
        wall = time.perf_counter() - t0
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, os.waitstatus_to_exitcode(status)


def timed(argv, env, reps, path, warmup=False):
    """Median wall / CPU and peak RSS of `reps` runs (after an optional untimed warm-up)."""
    if warmup:
        run_timed(argv, env, path)
    runs = [run_timed(argv, env, path) for _ in range(reps)]
    return {
        "argv": argv,
        "runs": reps,
        "median_wall_s": statistics.median(r[0] for r in runs),
        "median_cpu_s": statistics.median(r[1] for r in runs),
        "peak_rss_kib": max(r[2] for r in runs),
        "exit_codes": sorted({r[3] for r in runs}),
        "stdout": path,
    }


def _scry_tokens(row):
    t = row["tokens"]
    return {k: t[k] for k, _ in TOKENS}


def _cc_tokens(row):
    return {k: row[c] for k, c in TOKENS}


PRICES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates", "scry-query",
                      "src", "usage", "data", "prices.json")
CCUSAGE_TIER = 200_000


def codex_tiers(path, prices):
    """A Codex rollout's cost under both long-context rules, from its own `token_count` records
    (`last_token_usage`, ccusage's source; the model from the latest `turn_context`; a fork's
    copied parent records, timestamped before its first line, left out):
    `(table, ccusage)`, where `table` prices a request at the long-context rates when its input
    (cached included) passes the table's threshold, and `ccusage` when it passes 200k. None when
    a model has no price with a tier."""
    table = ccu = 0.0
    model = created = None
    for line in open(path, encoding="utf-8"):
        try:
            d = json.loads(line)
        except ValueError:
            continue
        p = d.get("payload") or {}
        created = created or d.get("timestamp")
        # A fork's copied parent history (written before the fork's own first line) holds the
        # parent's requests, not the fork's: both tools leave them out.
        if (d.get("timestamp") or "") < created:
            continue
        if d.get("type") == "turn_context":
            model = p.get("model") or model
            continue
        if p.get("type") != "token_count" or not (p.get("info") or {}).get("last_token_usage"):
            continue
        m = prices.get(model) or prices.get((model or "").removesuffix("-codex"))
        if not m or "t" not in m:
            return None
        u = p["info"]["last_token_usage"]
        cached, inp, out = u.get("cached_input_tokens", 0), u.get("input_tokens", 0), u.get("output_tokens", 0)
        price = lambda long: ((inp - cached) * m["i2" if long else "i"] + cached * m["cr2" if long else "cr"]
                              + out * m["o2" if long else "o"])
        table += price(inp > m["t"])
        ccu += price(inp > CCUSAGE_TIER)
    return table, ccu


def _close(a, b):
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def _tier_explains(s_row, c_row, home):
    """Whether scry's cost is the table's tier rule and ccusage's the 200k rule on this rollout."""
    if not home or c_row.get("agent") != "codex":
        return False
    path = os.path.join(home, ".codex", "sessions", c_row["period"] + ".jsonl")
    if not os.path.exists(path):
        return False
    got = codex_tiers(path, json.load(open(PRICES))["models"])
    return got is not None and not _close(*got) and _close(s_row.get("cost_usd") or 0.0, got[0]) \
        and _close(c_row.get("totalCost") or 0.0, got[1])


def pi_recorded_cost(path):
    """The sum of the cost pi recorded on its own assistant messages (`usage.cost.total`)."""
    total = 0.0
    for line in open(path, encoding="utf-8"):
        try:
            m = (json.loads(line).get("message") or {})
        except ValueError:
            continue
        total += (((m.get("usage") or {}).get("cost") or {}).get("total") or 0.0)
    return total


def _recorded_explains(s_row, c_row, home):
    """Whether ccusage's cost of a pi session is the cost pi recorded (scry prices the tokens)."""
    if not home or c_row.get("agent") != "pi":
        return False
    import glob
    paths = glob.glob(os.path.join(home, ".pi", "agent", "sessions", "*", f"*_{c_row['period']}.jsonl"))
    return len(paths) == 1 and _close(c_row.get("totalCost") or 0.0, pi_recorded_cost(paths[0])) \
        and not _close(s_row.get("cost_usd") or 0.0, c_row.get("totalCost") or 0.0)


def _reasons(s_row, c_row, home=None):
    """Why a scry row and a ccusage row differ (empty: equal)."""
    why = []
    st, ct = _scry_tokens(s_row), _cc_tokens(c_row)
    for k, _ in TOKENS:
        if st[k] == ct[k]:
            continue
        if k == "output" and st[k] - s_row["tokens"].get("reasoning", 0) == ct[k]:
            why.append("output: ccusage leaves reasoning out")
        else:
            why.append(f"{k}: scry {st[k]} vs ccusage {ct[k]}")
    sc, cc = s_row.get("cost_usd") or 0.0, c_row.get("totalCost") or 0.0
    if abs(sc - cc) > 1e-6 * max(1.0, abs(cc)):
        missing = sorted(m["modelName"] for m in c_row.get("modelBreakdowns", []) if m.get("missingPricing"))
        if missing:
            why.append("cost: ccusage has no price for " + ", ".join(missing))
        elif _tier_explains(s_row, c_row, home):
            why.append("cost: ccusage's long-context tier starts at 200k, the table's at 272k")
        elif _recorded_explains(s_row, c_row, home):
            why.append("cost: ccusage takes pi's recorded cost, scry prices the tokens")
        else:
            why.append(f"cost: scry {sc:.6f} vs ccusage {cc:.6f}")
    return why


def _cc_session_id(row):
    """ccusage's session key as scry's id: Codex rows are keyed by the rollout's relative path
    (`2026/11/25/rollout-<time>-<uuid>`), whose uuid is the session id."""
    if row.get("agent") == "codex":
        return "-".join(row["period"].split("/")[-1].split("-")[-5:])
    return row["period"]


def _agent(s_row, c_row):
    return (s_row.get("session") or {}).get("provider") or c_row.get("agent") or "all"


# ccusage folds Claude's subagent files into their session (as scry's `usage session` does) but
# lists Codex's subagent / fork rollouts apart: those compare with scry's `--split` rows.
APART = ("codex",)


def compare(scry_rep, cc_rep, what, split_rep=None, home=None):
    """Rows of both reports matched by key; counts of equal and differing rows, by reason."""
    if what == "daily":
        s_rows = {r["key"]: r for r in scry_rep["rows"] if r["key"] != "unknown"}
        c_rows = {r["period"]: r for r in cc_rep["daily"]}
    else:
        def by_id(rep, keep):
            return {r["session"]["id"]: r for r in rep["rows"] if r.get("session") and keep(r["session"]["provider"])}
        s_rows = by_id(scry_rep, lambda p: p not in APART or split_rep is None)
        if split_rep is not None:
            s_rows.update(by_id(split_rep, lambda p: p in APART))
        c_rows = {_cc_session_id(r): r for r in cc_rep["session"]}
    both = sorted(set(s_rows) & set(c_rows))
    reasons, differ, examples = {}, 0, []
    for k in both:
        why = _reasons(s_rows[k], c_rows[k], home)
        if why:
            differ += 1
            agent = _agent(s_rows[k], c_rows[k])
            for w in why:
                key = w if "no price" in w or "reasoning" in w or "tier" in w or "recorded" in w else w.split(":")[0] + " differs"
                key = f"{agent}: {key}" if what == "session" else key
                reasons[key] = reasons.get(key, 0) + 1
            if len(examples) < 5:
                examples.append({"key": k, "why": why})
    tok = lambda rows: {k: sum(_scry_tokens(r)[k] for r in rows) for k, _ in TOKENS}
    ctok = lambda rows: {k: sum(_cc_tokens(r)[k] for r in rows) for k, _ in TOKENS}
    return {
        "scry_rows": len(s_rows),
        "ccusage_rows": len(c_rows),
        "matched": len(both),
        "only_scry": len(set(s_rows) - set(c_rows)),
        "only_ccusage": len(set(c_rows) - set(s_rows)),
        "equal": len(both) - differ,
        "differ": differ,
        "reasons": reasons,
        "examples": examples,
        "tokens_matched": {"scry": tok([s_rows[k] for k in both]), "ccusage": ctok([c_rows[k] for k in both])},
        "cost_matched": {"scry": sum(s_rows[k].get("cost_usd") or 0.0 for k in both),
                         "ccusage": sum(c_rows[k].get("totalCost") or 0.0 for k in both)},
    }


def usage_bench(scry, ccusage, base, reps, work):
    """The whole comparison; returns its record (figures and equality)."""
    os.makedirs(work, exist_ok=True)
    db = os.path.join(work, "usage-scry.db")
    for suf in ("", "-wal", "-shm"):
        if os.path.exists(db + suf):
            os.remove(db + suf)
    senv = dict(base, SCRY_DB=db, TZ="UTC")
    cenv = dict(base, TZ="UTC")
    out = lambda name: os.path.join(work, name + ".json")
    rec = {"reps": reps, "loadavg_start": open("/proc/loadavg").read().strip()}
    rec["scry session, cold (first run: builds the index)"] = timed(
        [scry, "usage", "session", "--json"], senv, 1, out("scry-session-cold"))
    for what in ("daily", "session"):
        # Alternated in one run: scry warm, then ccusage, per report.
        rec[f"scry {what}, warm"] = timed([scry, "usage", what, "--json"], senv, reps, out(f"scry-{what}"), warmup=True)
        rec[f"ccusage {what}"] = timed([ccusage, what, "--json", "--offline"], cenv, reps, out(f"ccusage-{what}"))
    run_timed([scry, "usage", "session", "--split", "--json"], senv, out("scry-session-split"))
    split = json.load(open(out("scry-session-split")))
    for what in ("daily", "session"):
        s = json.load(open(out(f"scry-{what}")))
        c = json.load(open(out(f"ccusage-{what}")))
        rec[f"equality {what}"] = compare(s, c, what, split if what == "session" else None, base.get("HOME"))
    rec["loadavg_end"] = open("/proc/loadavg").read().strip()
    return rec


def markdown(rec):
    """A RESULTS.md table of the record."""
    lines = ["| run | wall (median) | CPU user+sys (median) | peak RSS |", "|---|---|---|---|"]
    for k, v in rec.items():
        if isinstance(v, dict) and "median_wall_s" in v:
            lines.append(f"| {k} ({v['runs']} run{'s' if v['runs'] > 1 else ''}) | {v['median_wall_s']:.2f} s "
                         f"| {v['median_cpu_s']:.2f} s | {v['peak_rss_kib'] / 1024:.0f} MiB |")
    for what in ("daily", "session"):
        e = rec[f"equality {what}"]
        lines.append("")
        lines.append(f"`{what}`: {e['matched']} rows matched ({e['scry_rows']} scry, {e['ccusage_rows']} ccusage, "
                     f"{e['only_scry']} only in scry, {e['only_ccusage']} only in ccusage); {e['equal']} equal in "
                     f"tokens and cost, {e['differ']} differ: "
                     + (", ".join(f"{n} × {r}" for r, n in sorted(e["reasons"].items(), key=lambda x: -x[1])) or "none")
                     + ". Tokens of the matched rows: scry " + json.dumps(e["tokens_matched"]["scry"])
                     + ", ccusage " + json.dumps(e["tokens_matched"]["ccusage"])
                     + f"; cost scry ${e['cost_matched']['scry']:,.2f}, ccusage ${e['cost_matched']['ccusage']:,.2f}.")
    return "\n".join(lines)
