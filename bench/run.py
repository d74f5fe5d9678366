#!/usr/bin/env python3
"""scry benchmark runner: measures scry and its peers (agentsview, ccusage) on one generated corpus.

Every measurement is a whole process, repeated --reps times (default 5); the median wall time and
the peak RSS (ru_maxrss from wait4, i.e. getrusage of that child) are reported. scry subcommands
that the binary does not have (probed with `scry --help`) are reported as "not available in this
build" -- never estimated. Results go to RESULTS.md (--out) and a JSON file beside it.

    python3 bench/run.py --home /tmp/corpus-small --scry target/release/scry \
        --agentsview /tmp/bench-peers/venv/bin/agentsview \
        --ccusage /tmp/bench-peers/npm/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage

The corpus comes from `cargo run --release --manifest-path bench/Cargo.toml -- gen --profile small
--out DIR`; its manifest (DIR/.scry-bench/manifest.json) is the ground truth for the checks.
Only the stdlib is used. The re-index step appends one line to one session file per repetition
(that is what it measures) and afterwards truncates the file back to its generated length and
restores its mtime (also on an exception or SIGTERM), so the corpus stays what the generator
reproduces from its seed.

agentsview's cold sync of a multi-GB corpus takes over half an hour: run it once in the background
with `--av-cold-sync-only RECORD --av-data DIR` (nice 10) and pass `--av-synced RECORD` to the
main run, which then reuses DIR and reports that sync (with its own load averages).

report.py renders RESULTS.md from the measurements; tokens.py holds the token cross-checks.
"""

import argparse
import json
import os
import platform
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import time

from report import search_summary, write_md
from tokens import token_check
from usage_bench import markdown as usage_markdown, usage_bench

# Search queries (the marker is planted by the generator in a prompt and a tool output; see
# bench/src/text.rs). scry searches `--area all` (prompts, answers, tool calls and results: the
# error traces the regexes look for are tool output) -- agentsview searches message content,
# tool output included; the selective literal is also timed in scry's default area (dialogue).
QUERIES = [
    ("selective literal", "quokka-zanzibar-4471", False),
    ("common word", "error", False),
    ("2-char CJK", "会话", False),
    ("regex with literal", r"panicked at \S+\.rs:\d+", True),
    ("regex without literal", r"[0-9]{6,}", True),
]


def run_once(argv, env, stdout_path=None, timeout=3600):
    """Runs argv; returns (wall seconds, max RSS in KiB, exit code)."""
    out = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    err = open(stdout_path + ".err", "wb") if stdout_path else subprocess.DEVNULL
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
    p.returncode = os.waitstatus_to_exitcode(status)
    if stdout_path:
        out.close()
        err.close()
    return wall, ru.ru_maxrss, p.returncode


def measure(argv, env, reps, work, name, prep=None, warmup=False):
    """Median of `reps` runs (after an optional untimed warm-up run)."""
    path = os.path.join(work, re.sub(r"[^a-zA-Z0-9]+", "_", name) + ".out")
    if warmup:
        if prep:
            prep()
        run_once(argv, env, path)
    walls, rss, codes = [], [], []
    for _ in range(reps):
        if prep:
            prep()
        w, r, c = run_once(argv, env, path)
        walls.append(w)
        rss.append(r)
        codes.append(c)
    return {
        "argv": argv,
        "median_s": statistics.median(walls),
        "min_s": min(walls),
        "max_s": max(walls),
        "peak_rss_kib": max(rss),
        "exit_codes": sorted(set(codes)),
        "stdout": path,
    }


def sh(argv, env=None):
    try:
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120).stdout.strip()
    except Exception as e:  # noqa: BLE001 - report whatever failed
        return f"(failed: {e})"


def machine():
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = line.split(":", 1)[1].strip()
    except OSError:
        pass
    return {
        "uname": " ".join(platform.uname()),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "mem": mem,
        "loadavg_start": open("/proc/loadavg").read().strip(),
        "date_utc": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


def scry_commands(scry, env):
    text = sh([scry, "--help"], env)
    cmds, on = set(), False
    for line in text.splitlines():
        if line.strip().lower().startswith("commands:"):
            on = True
            continue
        if on:
            if not line.startswith("  "):
                if line.strip():
                    on = False
                continue
            word = line.split()[0] if line.split() else ""
            if word and word != "help":
                cmds.add(word)
    return cmds


def du(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def append_target(manifest):
    """The session the re-index step appends to: the median-size main Claude session."""
    claude = sorted(
        (s for s in manifest["sessions"] if s["provider"] == "claude" and s["kind"] == "main"),
        key=lambda s: s["bytes"],
    )
    return claude[len(claude) // 2]


def restore_corpus(home, manifest):
    """Truncates every session file that grew back to its generated length and restores its mtime."""
    fixed = []
    for s in manifest["sessions"]:
        p = os.path.join(home, s["path"])
        try:
            st = os.stat(p)
        except OSError:
            continue
        if st.st_size != s["bytes"] or st.st_mtime_ns // 1_000_000 != s["end_ms"]:
            if st.st_size > s["bytes"]:
                os.truncate(p, s["bytes"])
            os.utime(p, ns=(s["end_ms"] * 1_000_000, s["end_ms"] * 1_000_000))
            fixed.append(s["path"])
    return fixed


def append_line(home, manifest, n):
    """Appends one valid Claude user line to a mid-size Claude session (the re-index step)."""
    s = append_target(manifest)
    line = {
        "parentUuid": None, "isSidechain": False, "type": "user",
        "message": {"role": "user", "content": f"appended prompt number {n} for the re-index benchmark"},
        "uuid": f"00000000-0000-4000-8000-{n:012d}", "timestamp": "2026-11-29T23:59:59.000Z",
        "userType": "external", "entrypoint": "cli", "cwd": "/home/dev/src/bench",
        "sessionId": s["id"], "version": "2.1.332", "gitBranch": "main",
    }
    with open(os.path.join(home, s["path"]), "a") as f:
        f.write(json.dumps(line) + "\n")
    return s


def av_env(base, avdir):
    return dict(base, AGENTSVIEW_DATA_DIR=avdir, AGENTSVIEW_NO_DAEMON="1", AGENTSVIEW_DISABLE_UPDATE_CHECK="1",
                AGENTSVIEW_TELEMETRY_ENABLED="0", DO_NOT_TRACK="1", AGENTSVIEW_NO_BROWSER="1")


def base_env(home):
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TZ", "TMPDIR")}
    base.update(HOME=home, NO_COLOR="1", TZ="UTC")
    return base


def av_sessions(avdir):
    """Sessions agentsview stored (read from its sessions.db, read-only)."""
    dbp = os.path.join(avdir, "sessions.db")
    out = {"index_bytes": sum(os.path.getsize(dbp + s) for s in ("", "-wal") if os.path.exists(dbp + s))}
    try:
        con = sqlite3.connect(f"file:{dbp}?mode=ro", uri=True)
        cols = [r[1] for r in con.execute("PRAGMA table_info(sessions)")]
        total = con.execute("SELECT count(*) FROM sessions").fetchone()[0]
        by = dict(con.execute("SELECT agent, count(*) FROM sessions GROUP BY 1").fetchall()) if "agent" in cols else {}
        out["sessions_found"] = {"total": total, "by_provider": by}
        con.close()
    except Exception as e:  # noqa: BLE001
        out["sessions_found"] = {"error": str(e)}
    return out


def wait_record(a):
    """The --av-synced record, once its sync has finished (waits at most --av-wait seconds)."""
    t0 = time.perf_counter()
    rec = json.load(open(a.av_synced))
    while "median_s" not in rec and time.perf_counter() - t0 < a.av_wait:
        time.sleep(10)
        rec = json.load(open(a.av_synced))
    return rec


def av_cold_sync_only(a):
    """One cold `agentsview sync` under nice 10 (long on big corpora: run it in the background early)."""
    home = os.path.abspath(a.home)
    avdir = os.path.abspath(a.av_data or os.path.join(a.work, "agentsview"))
    shutil.rmtree(avdir, ignore_errors=True)
    os.makedirs(os.path.dirname(avdir), exist_ok=True)
    av = os.path.abspath(a.agentsview)
    env = av_env(base_env(home), avdir)
    rec = {"home": home, "data_dir": avdir, "version": sh([av, "--version"], env),
           "loadavg_start": open("/proc/loadavg").read().strip(),
           "date_utc": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "nice": 10}
    json.dump(rec, open(a.av_cold_sync_only, "w"), indent=1)
    argv = ["nice", "-n", "10", av, "sync"]
    w, r, c = run_once(argv, env, os.path.join(os.path.dirname(os.path.abspath(a.av_cold_sync_only)), "agentsview-cold-sync.out"), timeout=4 * 3600)
    rec.update({"argv": argv, "median_s": w, "min_s": w, "max_s": w, "peak_rss_kib": r, "exit_codes": [c], "runs": 1,
                "loadavg_end": open("/proc/loadavg").read().strip()})
    rec.update(av_sessions(avdir))
    json.dump(rec, open(a.av_cold_sync_only, "w"), indent=1)
    print(json.dumps(rec, indent=1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", required=True, help="generated corpus (a HOME)")
    ap.add_argument("--scry", required=True)
    ap.add_argument("--agentsview")
    ap.add_argument("--ccusage")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cold-reps", type=int, help="repetitions of the cold index / sync (default: --reps)")
    ap.add_argument("--work", default="/tmp/scry-bench-work")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS.md"))
    ap.add_argument("--scry-commit", default="")
    ap.add_argument("--token-sample", type=int, default=600, help="sessions compared token by token")
    ap.add_argument("--notes", help="a Markdown file appended to the results (what was not measured and why)")
    ap.add_argument("--av-data", help="agentsview data dir (default: WORK/agentsview)")
    ap.add_argument("--av-cold-sync-only", metavar="RECORD",
                    help="run one cold agentsview sync (nice 10) into --av-data, write its figures to RECORD (JSON) and exit")
    ap.add_argument("--av-synced", metavar="RECORD",
                    help="reuse the cold sync recorded by --av-cold-sync-only (its --av-data) instead of syncing again")
    ap.add_argument("--av-wait", type=float, default=1800, help="seconds to wait for an unfinished --av-synced sync")
    ap.add_argument("--usage-only", metavar="RECORD",
                    help="only `scry usage daily|session` (cold first run, then warm) beside ccusage's reports, with "
                         "their equality per day / session (bench/usage_bench.py); writes RECORD (JSON), prints a table")
    a = ap.parse_args()
    if a.av_cold_sync_only:
        return av_cold_sync_only(a)
    if a.usage_only:
        if not a.ccusage:
            ap.error("--usage-only needs --ccusage")
        rec = usage_bench(os.path.abspath(a.scry), os.path.abspath(a.ccusage), base_env(os.path.abspath(a.home)),
                          a.reps, a.work)
        json.dump(rec, open(a.usage_only, "w"), indent=1)
        print(usage_markdown(rec))
        return 0

    home = os.path.abspath(a.home)
    manifest = json.load(open(os.path.join(home, ".scry-bench/manifest.json")))
    os.makedirs(a.work, exist_ok=True)
    base = base_env(home)
    fixed = restore_corpus(home, manifest)
    if fixed:
        print(f"restored {len(fixed)} corpus file(s) to their generated length/mtime before the run: {fixed[:3]}")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        return run_all(a, home, manifest, base)
    finally:
        restore_corpus(home, manifest)


def run_all(a, home, manifest, base):
    res = {"machine": machine(), "manifest": {k: manifest[k] for k in ("profile", "seed", "files", "bytes", "providers", "largest")}}
    res["corpus_du"] = du(home)

    js = os.path.splitext(a.out)[0] + "-" + manifest["profile"] + ".json"
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)

    def flush(stage):
        """Writes what is measured so far (a run cut short still leaves its numbers)."""
        res["stage"] = stage
        res["machine"]["loadavg_end"] = open("/proc/loadavg").read().strip()
        slim = json.loads(json.dumps(res, default=str))
        if "ccusage" in slim:
            slim["ccusage"].pop("report", None)
        json.dump(slim, open(js, "w"), indent=1, ensure_ascii=False)
        write_md(res, manifest, a, js)

    # ---- scry --------------------------------------------------------------------------------
    scry = os.path.abspath(a.scry)
    db = os.path.join(a.work, "scry.db")
    senv = dict(base, SCRY_DB=db)
    cmds = scry_commands(scry, senv)
    res["scry"] = {"version": sh([scry, "--version"], senv), "commit": a.scry_commit, "commands": sorted(cmds)}
    S = res["scry"]["tasks"] = {}

    def rm_db():
        for suf in ("", "-wal", "-shm"):
            try:
                os.remove(db + suf)
            except FileNotFoundError:
                pass

    NA = "not available in this build"
    if "index" in cmds:
        S["cold index"] = measure([scry, "index", "--all"], senv, a.cold_reps or a.reps, a.work, "scry index cold", prep=rm_db)
        # the last cold repetition left a complete index: its size is the figure
        res["scry"]["index_bytes"] = sum(os.path.getsize(db + s) for s in ("", "-wal") if os.path.exists(db + s))
    else:
        S["cold index"] = NA
    S["warm list --limit 20"] = measure([scry, "list", "--global", "--limit", "20", "--json"], senv, a.reps, a.work, "scry list", warmup=True)
    for label, q, rx in QUERIES:
        if "search" in cmds:
            argv = [scry, "search", q, "--scope", "global", "--area", "all", "--json"] + (["--regex"] if rx else [])
            S["search: " + label] = measure(argv, senv, a.reps, a.work, "scry search " + label, warmup=True)
        else:
            S["search: " + label] = NA
    if "search" in cmds:
        S["search: selective literal, default area (dialogue)"] = measure(
            [scry, "search", QUERIES[0][1], "--scope", "global", "--json"], senv, a.reps, a.work, "scry search selective dialogue", warmup=True)
        res["scry"]["search_results"] = search_summary(S, manifest)
    largest = manifest["largest"]
    S["show largest"] = measure([scry, "show", largest["id"], "--json"], senv, a.reps, a.work, "scry show largest")
    counter = [0]

    def append():
        counter[0] += 1
        append_line(home, manifest, counter[0])

    if "index" in cmds:
        S["re-index after 1 appended line"] = measure([scry, "index", "--all"], senv, a.reps, a.work, "scry reindex", prep=append)
        restore_corpus(home, manifest)
        # the index's own answer to the truncation back to the generated file (a re-parse of that file)
        S["re-index after the file is restored (truncation)"] = measure([scry, "index", "--all"], senv, 1, a.work, "scry reindex restored")
        res["scry"]["appended_to"] = {k: append_target(manifest)[k] for k in ("id", "provider", "bytes", "path")}
        S["index --all, nothing changed"] = measure([scry, "index", "--all"], senv, a.reps, a.work, "scry index unchanged")
    else:
        S["re-index after 1 appended line"] = NA

    # sessions found by scry
    found = measure([scry, "list", "--global", "--kind", "all", "--limit", "1000000", "--json"], senv, 1, a.work, "scry list all")
    try:
        doc = json.load(open(found["stdout"]))
        items = doc if isinstance(doc, list) else next((doc[k] for k in ("sessions", "items", "results") if k in doc), [])
        by = {}
        for it in items:
            p = it.get("provider") or (it.get("header") or {}).get("provider")
            by[p] = by.get(p, 0) + 1
        res["scry"]["sessions_found"] = {"total": len(items), "by_provider": by, "time": found["median_s"]}
    except Exception as e:  # noqa: BLE001
        res["scry"]["sessions_found"] = {"error": str(e)}

    flush("scry measured")

    # ---- ccusage -------------------------------------------------------------------------------
    if a.ccusage:
        cc = os.path.abspath(a.ccusage)
        res["ccusage"] = {"version": sh([cc, "--version"], base)}
        C = res["ccusage"]["tasks"] = {}
        C["session report"] = measure([cc, "session", "--json", "--offline"], base, a.reps, a.work, "ccusage session")
        try:
            rep = json.load(open(C["session report"]["stdout"]))["session"]
            by = {}
            for s in rep:
                by[s["agent"]] = by.get(s["agent"], 0) + 1
            res["ccusage"]["sessions_found"] = {"total": len(rep), "by_provider": by}
            res["ccusage"]["report"] = rep
        except Exception as e:  # noqa: BLE001
            res["ccusage"]["sessions_found"] = {"error": str(e)}

        flush("ccusage measured")
        # `scry usage` beside ccusage's own reports (its own scry index: the first run is cold).
        res["usage"] = usage_bench(scry, cc, base, a.reps, os.path.join(a.work, "usage"))
        flush("scry usage and ccusage reports measured")

    # ---- token check: ccusage vs manifest vs scry ------------------------------------------------
    res["tokens"] = token_check(res, manifest, scry, senv, a)
    flush("scry, ccusage and tokens measured")

    # agentsview last: on big corpora it may still be finishing its background cold sync.
    # ---- agentsview ----------------------------------------------------------------------------
    if a.agentsview and a.av_synced and "median_s" not in wait_record(a):
        res["agentsview_skipped"] = f"its background cold sync ({a.av_synced}) had not finished after waiting {a.av_wait:.0f} s"
    elif a.agentsview:
        av = os.path.abspath(a.agentsview)
        rec = json.load(open(a.av_synced)) if a.av_synced else None
        avdir = rec["data_dir"] if rec else os.path.abspath(a.av_data or os.path.join(a.work, "agentsview"))
        aenv = av_env(base, avdir)
        res["agentsview"] = {"version": sh([av, "--version"], aenv)}
        A = res["agentsview"]["tasks"] = {}

        def rm_av():
            shutil.rmtree(avdir, ignore_errors=True)

        # Writes: one-shot syncs without the daemon (a fresh data dir = cold).
        if rec:
            if rec.get("home") != home or "median_s" not in rec:
                raise SystemExit(f"--av-synced {a.av_synced}: not a finished sync of {home}")
            A["cold index"] = {k: rec[k] for k in ("argv", "median_s", "min_s", "max_s", "peak_rss_kib", "exit_codes")}
            A["cold index"]["stdout"] = ""
            res["agentsview"]["cold_sync_record"] = {k: rec.get(k) for k in ("date_utc", "loadavg_start", "loadavg_end", "nice", "runs", "sessions_found", "index_bytes")}
        else:
            A["cold index"] = measure([av, "sync"], aenv, a.cold_reps or a.reps, a.work, "agentsview sync cold", prep=rm_av)
        flush("agentsview cold sync measured")
        A["re-index after 1 appended line"] = measure([av, "sync"], aenv, a.reps, a.work, "agentsview resync", prep=append)
        restore_corpus(home, manifest)
        A["index --all, nothing changed"] = measure([av, "sync"], aenv, a.reps, a.work, "agentsview sync unchanged")
        flush("agentsview syncs measured")
        # Reads: agentsview's read commands need its server ("direct SQLite reads are not
        # supported for this command"), so one is started (no sync, a free port) and the client
        # processes are timed against it; the server's own peak RSS is reported separately.
        # AGENTSVIEW_NO_DAEMON=1 stays set: clients then use the running server but never
        # autostart a background one (which would sync and watch files during the timings).
        cenv = aenv
        log = open(os.path.join(a.work, "agentsview-serve.log"), "wb")
        srv = subprocess.Popen([av, "serve", "--port", "0", "--no-browser", "--no-sync", "--no-update-check"],
                               env=cenv, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        try:
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < 300:
                if run_once([av, "session", "list", "--limit", "1", "--json"], cenv)[2] == 0:
                    break
                time.sleep(0.5)
            res["agentsview"]["server_start_s"] = round(time.perf_counter() - t0, 2)
            wide = ["--include-children", "--include-one-shot", "--include-automated"]
            A["warm list --limit 20"] = measure([av, "session", "list", "--limit", "20", "--json"], cenv, a.reps, a.work, "agentsview list", warmup=True)
            for label, q, rx in QUERIES:
                argv = [av, "session", "search", q, "--json"] + wide + (["--regex"] if rx else [])
                A["search: " + label] = measure(argv, cenv, a.reps, a.work, "agentsview search " + label, warmup=True)
            A["show largest"] = measure([av, "session", "get", largest["id"], "--json"], cenv, a.reps, a.work, "agentsview get largest")
            try:
                doc = json.load(open(A["search: selective literal"]["stdout"]))
                ids = {m.get("session_id") for m in doc.get("matches", [])}
                res["agentsview"]["marker_sessions_found"] = len(ids)
                res["agentsview"]["search_results"] = {}
                for label, _, _ in QUERIES:
                    d = json.load(open(A["search: " + label]["stdout"]))
                    ms = d.get("matches", []) if isinstance(d, dict) else []
                    res["agentsview"]["search_results"][label] = {
                        "matches_returned": len(ms), "sessions": len({m.get("session_id") for m in ms}),
                        "total": d.get("total") if isinstance(d, dict) else None}
            except Exception as e:  # noqa: BLE001
                res["agentsview"]["marker_sessions_found"] = f"error: {e}"
            try:
                for line in open(f"/proc/{srv.pid}/status"):
                    if line.startswith("VmHWM"):
                        res["agentsview"]["server_peak_rss_kib"] = int(line.split()[1])
            except OSError:
                pass
        finally:
            srv.terminate()
            try:
                srv.wait(timeout=20)
            except subprocess.TimeoutExpired:
                srv.kill()
                srv.wait()
            log.close()
        res["agentsview"].update(av_sessions(avdir))

        flush("agentsview measured")

    flush("complete")
    print(f"wrote {a.out} and {js}")


if __name__ == "__main__":
    sys.exit(main())
