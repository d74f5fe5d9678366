"""Token cross-checks of a benchmark run: scry's per-session totals against the generator's manifest
and ccusage's report (used by run.py)."""

import json
import re
import subprocess
import time


def token_check(res, manifest, scry, senv, a):
    """Per-session token totals: generator manifest vs ccusage vs scry `show --json`."""
    out = {}
    mains = [s for s in manifest["sessions"] if s["kind"] != "subagent"]
    subs = {}
    for s in manifest["sessions"]:
        if s["kind"] == "subagent":
            subs.setdefault(s["parent"], []).append(s)

    def expected(s, with_subagents):
        t = dict(s["tokens"])
        if with_subagents:
            for c in subs.get(s["id"], []):
                for k in t:
                    t[k] += c["tokens"][k]
        return t

    rep = res.get("ccusage", {}).get("report")
    cc = {}
    if rep is not None:
        for r in rep:
            key = r["period"].rsplit("/", 1)[-1]
            key = re.sub(r"^rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-", "", key)
            cc[key] = r
        ok = bad = missing = thoughts = 0
        examples = []
        for s in mains:
            if s["provider"] not in ("claude", "codex", "pi", "gemini"):
                continue
            r = cc.get(s["id"])
            if r is None:
                missing += 1
                if len(examples) < 5:
                    examples.append({"id": s["id"], "provider": s["provider"], "kind": s["kind"], "problem": "not in ccusage report"})
                continue
            e = expected(s, True)
            got = (r["inputTokens"], r["outputTokens"], r["cacheReadTokens"], r["cacheCreationTokens"])
            want = (e["input"], e["output"], e["cache_read"], e["cache_write"])
            if got == want:
                ok += 1
            elif s["provider"] == "gemini" and got == (e["input"], e["output"] - e["reasoning"], e["cache_read"], e["cache_write"]):
                # ccusage leaves Gemini thoughts out of output; scry (and the generator) count them
                # as output (they are billed as output) and again as reasoning.
                thoughts += 1
            else:
                bad += 1
                if len(examples) < 8:
                    examples.append({"id": s["id"], "provider": s["provider"], "kind": s["kind"],
                                     "ccusage(in,out,cr,cw)": got, "generator(in,out,cr,cw)": want})
        out["ccusage_vs_generator"] = {"match": ok, "mismatch": bad, "missing": missing,
                                       "gemini_output_without_thoughts": thoughts, "examples": examples}

    # scry: `show --json` per session, on a deterministic sample (every k-th main session).
    step = max(1, len(mains) // max(1, a.token_sample))
    sample = mains[::step]
    ok = bad = err = 0
    examples = []
    scry_got = {}
    t0 = time.perf_counter()
    for s in sample:
        p = subprocess.run([scry, "show", s["id"], "--json"], env=senv, capture_output=True, text=True)
        if p.returncode != 0:
            err += 1
            if len(examples) < 5:
                examples.append({"id": s["id"], "provider": s["provider"], "problem": p.stderr.strip()[:200]})
            continue
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            err += 1
            continue
        tok = find_tokens(doc)
        if tok is None:
            err += 1
            if len(examples) < 5:
                examples.append({"id": s["id"], "provider": s["provider"], "problem": "no tokens object in show --json"})
            continue
        e = expected(s, False)
        got = (tok.get("input"), tok.get("output"), tok.get("cache_read"), tok.get("cache_write"))
        scry_got[s["id"]] = (s, got)
        want = (e["input"], e["output"], e["cache_read"], e["cache_write"])
        if s["kind"] == "fork":
            # The fork's own requests only are in the manifest; scry may count copied history.
            pass
        if got == want:
            ok += 1
        else:
            e2 = expected(s, True)
            want2 = (e2["input"], e2["output"], e2["cache_read"], e2["cache_write"])
            if got == want2:
                ok += 1
            else:
                bad += 1
                if len(examples) < 8:
                    examples.append({"id": s["id"], "provider": s["provider"], "kind": s["kind"],
                                     "scry(in,out,cr,cw)": got, "generator(in,out,cr,cw)": want})
    # Direct scry vs ccusage on the sampled sessions. ccusage folds a Claude session's subagent
    # files into its total; scry reports them as their own sessions, so for those the parent's
    # and every subagent's `show --json` totals are added up first.
    if cc:
        same = diff = with_sub = absent = thoughts = sub_err = 0
        dex = []
        for sid, (s, got) in scry_got.items():
            r = cc.get(sid)
            if r is None:
                absent += 1
                continue
            if subs.get(sid):
                with_sub += 1
                tot = list(got)
                for c in subs[sid]:
                    ctok = scry_tokens(scry, senv, re.sub(r"^agent-", "", c["id"]))
                    if ctok is None:
                        sub_err += 1
                        continue
                    tot = [x + (y or 0) for x, y in zip(tot, ctok[:4])]
                got = tuple(tot)
            theirs = (r["inputTokens"], r["outputTokens"], r["cacheReadTokens"], r["cacheCreationTokens"])
            if theirs == got:
                same += 1
            elif s["provider"] == "gemini" and theirs == (got[0], got[1] - s["tokens"]["reasoning"], got[2], got[3]):
                thoughts += 1
            else:
                diff += 1
                if len(dex) < 6:
                    dex.append({"id": sid, "provider": s["provider"], "kind": s["kind"], "scry(in,out,cr,cw)": got, "ccusage(in,out,cr,cw)": theirs})
        out["scry_vs_ccusage"] = {"equal": same, "different": diff, "gemini_output_without_thoughts": thoughts,
                                  "with_subagents_added": with_sub, "subagent_errors": sub_err,
                                  "not_in_ccusage": absent, "examples": dex}
    out["scry_vs_generator"] = {"sampled": len(sample), "match": ok, "mismatch": bad, "errors": err,
                                "examples": examples, "seconds": round(time.perf_counter() - t0, 1)}
    return out


def scry_tokens(scry, senv, ref):
    """(input, output, cache_read, cache_write) of one session from `scry show --json`, or None."""
    p = subprocess.run([scry, "show", ref, "--json"], env=senv, capture_output=True, text=True)
    if p.returncode != 0:
        return None
    try:
        t = find_tokens(json.loads(p.stdout))
    except ValueError:
        return None
    if t is None:
        return None
    return (t.get("input"), t.get("output"), t.get("cache_read"), t.get("cache_write"))


def find_tokens(doc):
    """The session token totals object in scry's show JSON (looked up by its field names)."""
    stack = [doc]
    while stack:
        d = stack.pop()
        if isinstance(d, dict):
            if "tokens" in d and isinstance(d["tokens"], dict) and "input" in d["tokens"]:
                return d["tokens"]
            stack.extend(d.values())
        elif isinstance(d, list):
            stack.extend(d)
    return None
