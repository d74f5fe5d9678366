#!/usr/bin/env python3
"""The many-small-files profile (issue 16): warm commands of two scry builds on N small pi sessions.

Per-file costs dominate here (discovery, the freshness check of every file, mapping files to stored
sessions), not bytes. The corpus is /work/shared/tools/many-files.py's (N copies of the real pi
session, 12.7 KB each, in 100 project folders, copy i's first prompt carrying `many-<i>-pi`); it is
made with that script when --home does not exist yet. The appended-line rows write to one session
file, so --home must be a copy you may change (the file is truncated back and its mtime restored
afterwards, also on an exception or SIGTERM).

    python3 bench/many.py --home /tmp/many-copy --scry NEW/release/scry --base OLD/release/scry \
        --out bench/RESULTS-many.json

Each build gets its own index (WORK/<label>.db), built once cold (timed, one run). Then every row
runs the builds alternately, --reps times each (the order flips every repetition, so load drifts
hit both alike), and reports the median wall time and the median CPU time (user + system, from
wait4) per build, with the ratio new / base. Rows:

- nothing-changed `index --all`
- `list --global --limit 20 --json`
- selective search (`search many-<k>-pi --scope global --json`, one hit; k = 4242 on 20,000 files)
- one appended line: the line is appended, then `index --all` (timed), then a search for the line's
  marker (timed, must find exactly one session)

Outputs of list and selective search must be byte-identical between the builds (checked; a
difference is reported, not fatal). Only the standard library is used.
"""

import argparse
import json
import os
import selectors
import shutil
import signal
import statistics
import subprocess
import sys
import time


def timed(argv, env, timeout=600):
    """Runs argv with wait4: (wall s, cpu s, max RSS KiB, exit code, stdout, stderr)."""
    r_out, w_out = os.pipe()
    r_err, w_err = os.pipe()
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdout=w_out, stderr=w_err, stdin=subprocess.DEVNULL)
    os.close(w_out)
    os.close(w_err)
    chunks = {r_out: [], r_err: []}
    sel = selectors.DefaultSelector()
    sel.register(r_out, selectors.EVENT_READ)
    sel.register(r_err, selectors.EVENT_READ)
    open_fds = 2
    while open_fds:
        for key, _ in sel.select(timeout=timeout):
            data = os.read(key.fd, 65536)
            if data:
                chunks[key.fd].append(data)
            else:
                sel.unregister(key.fd)
                os.close(key.fd)
                open_fds -= 1
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    cpu = ru.ru_utime + ru.ru_stime
    return wall, cpu, ru.ru_maxrss, os.waitstatus_to_exitcode(status), b"".join(chunks[r_out]), b"".join(chunks[r_err])


def env_for(home, db):
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}
    base.update(HOME=home, NO_COLOR="1", TZ="UTC", SCRY_DB=db)
    return base


class Appender:
    """Appends pi user lines to one session file; restores its bytes' length and mtime."""

    def __init__(self, path):
        self.path = path
        st = os.stat(path)
        self.size, self.mtime = st.st_size, st.st_mtime_ns
        last = open(path, "rb").read().splitlines()[-1]
        self.parent = json.loads(last)["id"]
        self.n = 0

    def append(self, marker):
        self.n += 1
        nid = f"c{self.n:07x}"
        line = {"type": "message", "id": nid, "parentId": self.parent, "timestamp": "2026-12-01T10:00:00.000Z",
                "message": {"role": "user", "content": [{"type": "text", "text": f"appended prompt {marker}"}],
                            "timestamp": 1796054518503}}
        with open(self.path, "a") as f:
            f.write(json.dumps(line) + "\n")
        self.parent = nid

    def restore(self):
        if os.stat(self.path).st_size != self.size:
            os.truncate(self.path, self.size)
        os.utime(self.path, ns=(self.mtime, self.mtime))


def median(xs):
    return statistics.median(xs) if xs else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", required=True, help="the corpus HOME (made with many-files.py if missing)")
    ap.add_argument("--files", type=int, default=20000, help="sessions to make when --home is missing")
    ap.add_argument("--tools", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "tools"))
    ap.add_argument("--scry", required=True, help="the new build")
    ap.add_argument("--base", required=True, help="the previous build")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--seed-index", help="an index of --home to copy for both builds instead of the cold runs "
                    "(same schema in both builds only)")
    ap.add_argument("--work", default="/tmp/scry-bench-many")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS-many.json"))
    a = ap.parse_args()

    home = os.path.abspath(a.home)
    if not os.path.exists(home):
        subprocess.run([sys.executable, os.path.join(a.tools, "many-files.py"), home, str(a.files)], check=True)
    os.makedirs(a.work, exist_ok=True)
    builds = {"base": os.path.abspath(a.base), "new": os.path.abspath(a.scry)}
    envs = {}
    for label in builds:
        db = os.path.join(a.work, f"{label}.db")
        for suf in ("", "-wal", "-shm"):
            if os.path.exists(db + suf):
                os.remove(db + suf)
        envs[label] = env_for(home, db)

    sessions = os.path.join(home, ".pi", "agent", "sessions")
    first_dir = sorted(os.listdir(sessions))[0]
    target = os.path.join(sessions, first_dir, sorted(os.listdir(os.path.join(sessions, first_dir)))[0])
    files = sum(len(fs) for _, _, fs in os.walk(sessions))
    appender = Appender(target)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    res = {"date_utc": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "home": home, "files": files,
           "builds": builds, "reps": a.reps, "loadavg_start": open("/proc/loadavg").read().strip(), "rows": {}}
    try:
        run(a, builds, envs, appender, res)
    finally:
        appender.restore()
    res["loadavg_end"] = open("/proc/loadavg").read().strip()
    json.dump(res, open(a.out, "w"), indent=1)
    print(markdown(res))


def run(a, builds, envs, appender, res):
    rows = res["rows"]
    if a.seed_index:
        for label in builds:
            shutil.copyfile(a.seed_index, envs[label]["SCRY_DB"])
    for label in builds if not a.seed_index else []:
        w, c, rss, code, out, err = timed([builds[label], "index", "--all"], envs[label])
        rows.setdefault("cold `index --all` (one run)", {})[label] = {"wall": [w], "cpu": [c], "rss_kib": rss, "codes": [code]}
        if code != 0:
            raise SystemExit(f"{label}: cold index failed: {err.decode(errors='replace')}")
    marker = f"many-{min(4242, res['files'] // 2)}-pi"
    plain = {
        "nothing-changed `index --all`": ["index", "--all"],
        "`list --global --limit 20 --json`": ["list", "--global", "--limit", "20", "--json"],
        f"selective search (`search {marker} --scope global --json`)": ["search", marker, "--scope", "global", "--json"],
    }
    res["differences"] = []
    for name, args in plain.items():
        row = rows[name] = {}
        outs = {}
        for label in builds:  # one untimed warm-up each
            timed([builds[label], *args], envs[label])
        for rep in range(a.reps):
            order = list(builds) if rep % 2 == 0 else list(builds)[::-1]
            for label in order:
                w, c, rss, code, out, err = timed([builds[label], *args], envs[label])
                r = row.setdefault(label, {"wall": [], "cpu": [], "rss_kib": 0, "codes": []})
                r["wall"].append(w)
                r["cpu"].append(c)
                r["rss_kib"] = max(r["rss_kib"], rss)
                r["codes"].append(code)
                outs[label] = out
        if name != "nothing-changed `index --all`" and outs["base"] != outs["new"]:
            res["differences"].append(name)
        if "search" in name:
            res["selective_hits"] = json.loads(outs["new"]).get("total_sessions")
    idx = rows["one appended line: `index --all`"] = {}
    srch = rows["one appended line: then `search <its marker>`"] = {}
    found = []
    for rep in range(a.reps):
        order = list(builds) if rep % 2 == 0 else list(builds)[::-1]
        for label in order:
            m = f"cheap-appended-{label}-{rep}"
            appender.append(m)
            for row, args in ((idx, ["index", "--all"]), (srch, ["search", m, "--scope", "global", "--json"])):
                w, c, rss, code, out, err = timed([builds[label], *args], envs[label])
                r = row.setdefault(label, {"wall": [], "cpu": [], "rss_kib": 0, "codes": []})
                r["wall"].append(w)
                r["cpu"].append(c)
                r["rss_kib"] = max(r["rss_kib"], rss)
                r["codes"].append(code)
            found.append((label, json.loads(out).get("total_sessions")))
    res["appended_found"] = found


def ms(x):
    return f"{x * 1000:.0f}" if x is not None else "–"


def markdown(res):
    lines = [f"{res['files']} pi sessions, {res['reps']} alternating runs per build and row, "
             f"load {res['loadavg_start'].split()[0]} → {res['loadavg_end'].split()[0]}; medians, wall / CPU (user + sys).", "",
             "| command | base wall / CPU | new wall / CPU | ratio wall | ratio CPU |", "|---|---|---|---|---|"]
    for name, row in res["rows"].items():
        b, n = row["base"], row["new"]
        bw, bc, nw, nc = (median(b["wall"]), median(b["cpu"]), median(n["wall"]), median(n["cpu"]))
        lines.append(f"| {name} | {ms(bw)} / {ms(bc)} ms | {ms(nw)} / {ms(nc)} ms | {nw / bw:.2f} | {nc / bc:.2f} |")
    lines.append("")
    lines.append(f"Output differences between the builds: {res['differences'] or 'none'}; selective search hits: "
                 f"{res.get('selective_hits')}; appended line found (sessions): "
                 f"{sorted(set(n for _, n in res.get('appended_found', [])))}.")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
