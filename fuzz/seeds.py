#!/usr/bin/env python3
"""Builds the fuzz seed corpora from the shared test corpus (read-only; nothing is written
next to it): seeds.py SHARED_CORPUS OUT_DIR.

One directory per fuzz target under OUT_DIR. Seeds are cut to 128 KiB (at a line end when
possible), the fuzzers' -max_len. Multi-file layouts (OpenCode storage, Grok session dirs,
Antigravity brains) are joined with 0xFF bytes, as the targets expect (see src/lib.rs).
Existing files in OUT_DIR are kept: they are what earlier runs found.
"""

import hashlib
import json
import os
import sqlite3
import sys
from pathlib import Path

MAX = 128 * 1024
SEP = b"\xff"


def cut(data: bytes) -> bytes:
    if len(data) <= MAX:
        return data
    head = data[:MAX]
    nl = head.rfind(b"\n")
    return head[: nl + 1] if nl > MAX // 2 else head


def save(out: Path, target: str, data: bytes) -> None:
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    data = cut(data)
    name = "seed-" + hashlib.sha1(data).hexdigest()[:16]
    (d / name).write_bytes(data)


def files(root: Path, *suffixes: str):
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.name.endswith(suffixes):
            yield p


def under(p: Path, *parts: str) -> bool:
    s = str(p)
    return any(part in s for part in parts)


def main() -> None:
    corpus, out = Path(sys.argv[1]), Path(sys.argv[2])
    jsonl = list(files(corpus, ".jsonl"))
    for p in jsonl:
        data = p.read_bytes()
        save(out, "jsonl", data)
        save(out, "redact", data)
        if under(p, "/.claude/", "/claude/"):
            save(out, "claude", data)
        if under(p, "/.codex/", "/codex/"):
            save(out, "codex", data)
        if under(p, "/.gemini/tmp/", "/gemini/"):
            save(out, "gemini", data)
        if under(p, "/.pi/", "/pi/"):
            save(out, "pi", data)
        if under(p, "/.qwen/", "/qwen/"):
            # Even length: a chat log; odd: a subagent transcript (see the target).
            save(out, "qwen", data + (b"" if len(data) % 2 == 0 else b"\n"))
            save(out, "qwen", data + (b"\n" if len(data) % 2 == 0 else b""))
        if under(p, "/cursor/", "/.cursor/"):
            save(out, "cursor", data)
        if under(p, "/antigravity/", "/brain/"):
            save(out, "antigravity", data)
        if under(p, "/dsh/", "/.dsh/"):
            save(out, "dsh", data + (b"" if len(data) % 2 else b"\n"))
        if under(p, "/.copilot/session-state/"):
            # events.jsonl, 0xFF, the session's workspace.yaml (when there is one).
            ws = p.parent / "workspace.yaml"
            save(out, "copilot", data)
            if ws.is_file():
                save(out, "copilot", data + b"\xff" + ws.read_bytes())
    for p in files(corpus, ".json"):
        if under(p, "/codex/", "/.codex/"):
            save(out, "codex", p.read_bytes())
        if under(p, "/gemini/", "/.gemini/tmp/"):
            save(out, "gemini", p.read_bytes())
    for p in files(corpus, ".zst", ".zstd"):
        save(out, "dsh", p.read_bytes())
        save(out, "jsonl", p.read_bytes())

    # OpenCode JSON storage: session, then message / part pairs.
    for session_dir in corpus.rglob("storage*/session"):
        storage = session_dir.parent
        for s in sorted(session_dir.rglob("*.json")):
            sdata = s.read_bytes()
            try:
                sid = json.loads(sdata).get("id") or s.stem
            except (ValueError, AttributeError):
                sid = s.stem
            pieces = [sdata]
            for m in sorted((storage / "message" / str(sid)).glob("*.json")):
                mdata = m.read_bytes()
                try:
                    mid = json.loads(mdata).get("id") or m.stem
                except (ValueError, AttributeError):
                    mid = m.stem
                parts = sorted((storage / "part" / str(mid)).glob("*.json")) or [None]
                for part in parts:
                    pieces.append(mdata)
                    pieces.append(part.read_bytes() if part else b"{}")
            save(out, "opencode", SEP.join(pieces[:16]))

    # Kilo CLI databases (checkpointed copies only: opened immutable, the corpus is never
    # touched): per session, its session-diff file, then message / part `data` pairs.
    for db in sorted(corpus.rglob("kilo.db")):
        try:
            con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
            for (sid,) in con.execute("SELECT id FROM session ORDER BY id"):
                diff = db.parent / "storage" / "session_diff" / f"{sid}.json"
                pieces = [diff.read_bytes() if diff.is_file() else b"[]"]
                rows = con.execute(
                    "SELECT m.data, p.data FROM message m JOIN part p ON p.message_id = m.id "
                    "WHERE m.session_id = ? ORDER BY m.time_created, m.id, p.id", (sid,))
                for mdata, pdata in rows:
                    pieces += [str(mdata).encode(), str(pdata).encode()]
                save(out, "kilo", SEP.join(pieces[:31]))
            con.close()
        except sqlite3.Error:
            pass

    # Grok session directories.
    for d in sorted({p.parent for p in corpus.rglob("chat_history.jsonl")} |
                    {p.parent for p in corpus.rglob("summary.json")}):
        pieces = []
        for name in ("chat_history.jsonl", "summary.json", "updates.jsonl"):
            f = d / name
            pieces.append(f.read_bytes() if f.is_file() else b"")
        save(out, "grok", SEP.join(pieces))

    # Antigravity: a transcript plus the markdown artifacts beside it.
    transcripts = [p for p in jsonl if under(p, "antigravity")]
    arts = [p.read_bytes() for p in files(corpus, ".md") if under(p, "antigravity")]
    for t in transcripts:
        save(out, "antigravity", SEP.join([t.read_bytes()] + arts[:2]))

    # LangGraph blobs from the real databases (opened immutable: the directory is read-only).
    for db in corpus.rglob("*.db"):
        try:
            con = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
            rows = []
            for table, col in (("checkpoints", "checkpoint"), ("writes", "value")):
                try:
                    rows += con.execute(f"SELECT type, {col} FROM {table} LIMIT 400").fetchall()
                except sqlite3.Error:
                    pass
            con.close()
        except sqlite3.Error:
            continue
        for typ, blob in rows:
            if not isinstance(blob, bytes):
                continue
            kind = {"msgpack": 0, "json": 2}.get(typ, 3)
            save(out, "langgraph", bytes([kind]) + blob)

    # Deep Agents mapping: message lists written to the `messages` channel (and whole
    # checkpoints), prefixed with the decoder byte (0 msgpack, 1 json) and a mode byte.
    for db in corpus.rglob("*.db"):
        try:
            con = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
            rows = con.execute(
                "SELECT type, value FROM writes WHERE channel = 'messages' LIMIT 400"
            ).fetchall()
            con.close()
        except sqlite3.Error:
            continue
        for n, (typ, blob) in enumerate(rows):
            if isinstance(blob, bytes) and typ in ("msgpack", "json"):
                save(out, "deepagents", bytes([0 if typ == "msgpack" else 1, n % 16]) + blob)

    # zstd frame walker: every compressed file, with a large and a tiny frame limit byte.
    for p in files(corpus, ".zst", ".zstd"):
        data = p.read_bytes()
        save(out, "zframes", b"\x16" + data)
        save(out, "zframes", b"\x00" + data)

    # Continue CLI documents, each followed by its sessions.json index.
    for p in files(corpus, ".json"):
        if under(p, "/.continue/sessions/") and p.name != "sessions.json":
            index = p.parent / "sessions.json"
            extra = [index.read_bytes()] if index.is_file() else []
            save(out, "continue", SEP.join([p.read_bytes()] + extra))

    # Aider chat histories (project directories).
    for p in files(corpus, ".aider.chat.history.md"):
        save(out, "aider", p.read_bytes())

    # MT-Agent transcripts: the provider's own fixtures (in the repository, not the corpus).
    repo = Path(__file__).resolve().parent.parent
    for p in files(repo / "crates" / "scry-source-mtagent" / "fixtures", ".jsonl"):
        data = p.read_bytes()
        save(out, "mtagent", data)
        save(out, "mtagent", data + b"\n")

    # Search requests: five flag bytes, the query, then terms / a cursor after 0xFF.
    for flags, q in (
        (b"\x00\x00\x05\x03\x3c", "error"),
        (b"\x00\x03\x05\x03\x3c", "会话"),
        (b"\x01\x03\x02\x05\x10", r"err(or)?s?\b"),
        (b"\x01\x01\x02\x05\x50", r"(?i)İstanbul|straße"),
        (b"\x02\x00\x07\x02\x20", "session|index"),
        (b"\x0a\x03\x07\x02\x20", "the|a"),
        (b"\x90\x01\x01\x01\x00", "scry"),
        (b"\x30\x03\x01\x01\xc0", "a OR b|c:0.deadbeef"),
        (b"\x00\x1c\x05\x03\x00", "Kelvin"),
    ):
        # `|` stands for the 0xFF piece separator (not valid UTF-8, so not writable in str).
        save(out, "search", flags + q.encode().replace(b"|", SEP) if flags[0] % 3 != 1
             else flags + q.encode())

    # Trigram keys: mixed scripts and case traps, fields split at U+0001.
    for t in ("Fix the failing test\x01error[E0308] mismatched types",
              "İstanbul ıi straße STRASSE ſ K Kelvin\x01跨会话检索 会话 🙂👍🏽 e\u0301",
              "ab\x01a\x01\x00\x00\x00 tab\tcrlf\r\n"):
        save(out, "grams", t.encode())

    # Run lists of the candidate index: an encoded list (sessions 1 and 2, a session's own
    # document first), damage (a truncated varint, a repeat), and raw codes.
    for b in (bytes([1, 0, 0, 1, 0x10, 1, 0, 1]), bytes([0x80]), bytes([1, 1, 0, 0]),
              (1 << 32 | 1).to_bytes(8, "little") + (3 << 32 | 9).to_bytes(8, "little")):
        save(out, "postings", b)

    # Shell commands from tool calls anywhere in the JSON lines.
    commands = set()

    def walk(v):
        if isinstance(v, dict):
            c = v.get("command") or v.get("cmd")
            if isinstance(c, str):
                commands.add(c)
            elif isinstance(c, list) and all(isinstance(x, str) for x in c):
                commands.add(c[-1] if c[:1] in (["bash"], ["sh"], ["zsh"]) else " ".join(c))
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str) and v.startswith("{") and '"command"' in v:
            try:
                walk(json.loads(v))
            except ValueError:
                pass

    for p in jsonl:
        for line in p.read_bytes()[: 4 * MAX].splitlines():
            try:
                walk(json.loads(line))
            except ValueError:
                pass
    for c in sorted(commands)[:1000]:
        save(out, "shell", c.encode())

    # Redaction: a few secret-shaped seeds (fake values in the documented formats).
    for s in (
        "export OPENAI_API_KEY=sk-proj-AbCdEf0123456789AbCdEf0123456789\n",
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl\n",
        "-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA0123456789abcdef\\n-----END RSA PRIVATE KEY-----",
        '{"api_key": "abc123def456ghi789", "url": "postgres://u:p4ssw0rd@db/app"}',
        "AKIAABCDEFGHIJKLMNOP aws_secret_access_key=abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    ):
        save(out, "redact", s.encode())

    for t in sorted(os.listdir(out)):
        print(f"seeds: {t}: {len(os.listdir(out / t))}")


if __name__ == "__main__":
    main()
