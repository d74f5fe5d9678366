//! Synthetic content: English and Chinese prose from small embedded word lists, code, shell logs,
//! error traces, paths, long lines. Everything here was written for this generator; nothing is
//! copied from real sessions. Sizes are targets in bytes (UTF-8), reached approximately.

use crate::rng::Rng;

/// A literal planted in a few sessions only (the "selective literal" search).
pub const MARKER: &str = "quokka-zanzibar-4471";

const EN: &[&str] = &[
    "the",
    "a",
    "to",
    "of",
    "and",
    "in",
    "is",
    "it",
    "that",
    "for",
    "this",
    "with",
    "on",
    "we",
    "should",
    "can",
    "will",
    "not",
    "be",
    "from",
    "file",
    "function",
    "test",
    "tests",
    "build",
    "error",
    "index",
    "session",
    "query",
    "cache",
    "config",
    "module",
    "request",
    "response",
    "parser",
    "token",
    "line",
    "value",
    "result",
    "option",
    "path",
    "directory",
    "branch",
    "commit",
    "review",
    "change",
    "update",
    "fix",
    "bug",
    "issue",
    "crash",
    "panic",
    "timeout",
    "retry",
    "server",
    "client",
    "database",
    "migration",
    "schema",
    "table",
    "column",
    "row",
    "search",
    "output",
    "input",
    "stream",
    "buffer",
    "memory",
    "thread",
    "lock",
    "async",
    "await",
    "handler",
    "route",
    "endpoint",
    "struct",
    "trait",
    "type",
    "field",
    "method",
    "argument",
    "return",
    "loop",
    "iterator",
    "closure",
    "string",
    "bytes",
    "encoding",
    "utf-8",
    "json",
    "yaml",
    "toml",
    "cargo",
    "npm",
    "python",
    "rust",
    "typescript",
    "docker",
    "deploy",
    "pipeline",
    "workflow",
    "flaky",
    "slow",
    "fast",
    "large",
    "small",
    "first",
    "last",
    "next",
    "previous",
    "again",
    "still",
    "now",
    "then",
    "because",
    "so",
    "but",
    "also",
    "only",
    "maybe",
    "probably",
    "looks",
    "seems",
    "works",
    "fails",
    "passes",
    "compiles",
    "runs",
    "let",
    "me",
    "check",
    "read",
    "write",
    "open",
    "close",
    "add",
    "remove",
    "rename",
    "move",
    "keep",
    "split",
    "merge",
    "refactor",
    "clean",
    "up",
    "down",
    "around",
    "instead",
    "correct",
    "wrong",
    "missing",
    "unused",
    "deprecated",
    "warning",
    "lint",
    "format",
];

const ZH: &[&str] = &[
    "会话",
    "检索",
    "索引",
    "文件",
    "函数",
    "错误",
    "测试",
    "配置",
    "数据库",
    "性能",
    "内存",
    "线程",
    "请求",
    "响应",
    "模块",
    "接口",
    "用户",
    "日志",
    "缓存",
    "目录",
    "路径",
    "编译",
    "运行",
    "修复",
    "问题",
    "代码",
    "提交",
    "分支",
    "合并",
    "部署",
    "服务器",
    "客户端",
    "参数",
    "返回",
    "结果",
    "异常",
    "字符串",
    "解析",
    "格式",
    "版本",
    "依赖",
    "优化",
    "重构",
    "注释",
    "文档",
    "变量",
    "类型",
    "结构",
    "实现",
    "调用",
    "输出",
    "输入",
    "查询",
    "排序",
    "过滤",
    "分页",
    "超时",
    "重试",
    "并发",
    "事务",
    "迁移",
    "备份",
    "检查",
    "验证",
    "权限",
    "密钥",
    "网络",
    "端口",
    "连接",
    "启动",
    "停止",
    "进程",
    "我们",
    "需要",
    "这个",
    "那个",
    "可以",
    "应该",
    "已经",
    "然后",
    "因为",
    "所以",
    "但是",
    "如果",
    "还是",
    "一下",
    "看看",
    "帮我",
    "请",
    "先",
    "再",
    "把",
    "的",
    "了",
    "在",
    "是",
    "和",
    "对",
    "用",
    "跨会话",
    "历史记录",
];

/// Project names for working directories.
pub const PROJECTS: &[&str] = &[
    "webapp",
    "api-gateway",
    "billing",
    "scry-clone",
    "infra",
    "dotfiles",
    "ml-pipeline",
    "mobile-app",
    "docs-site",
    "cli-tools",
    "search-service",
    "auth",
    "payments",
    "dashboard",
    "data-etl",
    "game-engine",
    "compiler",
    "kv-store",
    "chat-bot",
    "analytics",
    "notebook",
    "crawler",
    "scheduler",
    "image-resizer",
    "monorepo",
    "plugin-host",
    "rate-limiter",
    "feature-flags",
    "video-transcoder",
    "blog",
    "telemetry",
    "sdk-python",
    "sdk-ts",
    "embedded",
    "robotics",
    "trading-sim",
    "wiki",
    "mailer",
    "backup-agent",
    "geo-tiles",
];

const DIRS: &[&str] = &[
    "src",
    "src/bin",
    "src/api",
    "src/db",
    "src/util",
    "tests",
    "lib",
    "app",
    "pkg",
    "internal",
    "cmd",
    "scripts",
    "web/src/components",
    "crates/core/src",
    "migrations",
    "docs",
];
const FILES: &[&str] = &[
    "main.rs",
    "lib.rs",
    "mod.rs",
    "index.ts",
    "app.tsx",
    "server.py",
    "models.py",
    "utils.go",
    "handler.go",
    "config.toml",
    "schema.sql",
    "README.md",
    "Makefile",
    "Cargo.toml",
    "package.json",
    "query.rs",
    "parser.rs",
    "store.rs",
    "cache.py",
    "routes.ts",
];

/// Which language a prose block is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// English.
    En,
    /// Chinese.
    Zh,
}

/// Prose of about `bytes` bytes in `lang`, in sentences.
pub fn prose(rng: &mut Rng, lang: Lang, bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 64);
    while s.len() < bytes {
        let n = rng.range(5, 18) as usize;
        match lang {
            Lang::En => {
                for i in 0..n {
                    let w = *rng.pick(EN);
                    if i == 0 {
                        let mut c = w.chars();
                        if let Some(f) = c.next() {
                            s.extend(f.to_uppercase());
                            s.push_str(c.as_str());
                        }
                    } else {
                        s.push(' ');
                        s.push_str(w);
                    }
                }
                s.push_str(if rng.chance(0.1) { "? " } else { ". " });
            }
            Lang::Zh => {
                for i in 0..n {
                    s.push_str(rng.pick::<&str>(ZH));
                    if i + 1 < n && rng.chance(0.12) {
                        s.push('，');
                    }
                }
                s.push_str(if rng.chance(0.1) { "？" } else { "。" });
            }
        }
        if rng.chance(0.08) {
            s.push_str("\n\n");
        }
    }
    s
}

/// A project-relative path.
pub fn rel_path(rng: &mut Rng) -> String {
    format!("{}/{}", rng.pick(DIRS), rng.pick(FILES))
}

/// A shell command a coding agent would run.
pub fn command(rng: &mut Rng) -> String {
    let p = rel_path(rng);
    match rng.range(0, 11) {
        0 => "cargo test --workspace".into(),
        1 => "cargo build --release".into(),
        2 => format!("rg -n \"{}\" src", rng.pick(EN)),
        3 => "npm run test -- --watch=false".into(),
        4 => format!("cat {p}"),
        5 => "git status --short".into(),
        6 => "git log --oneline -20".into(),
        7 => "pytest -x -q".into(),
        8 => format!("sed -n 1,200p {p}"),
        9 => "ls -la".into(),
        10 => "docker compose up -d db".into(),
        _ => format!("python3 scripts/check.py --path {p}"),
    }
}

fn code_line(rng: &mut Rng, out: &mut String) {
    let w = *rng.pick(EN);
    let v = *rng.pick(EN);
    match rng.range(0, 9) {
        0 => out.push_str(&format!(
            "    let {w}_{v} = {v}.iter().map(|x| x.{w}()).collect::<Vec<_>>();"
        )),
        1 => out.push_str(&format!(
            "fn {w}_{v}(input: &str) -> Result<{}, Error> {{",
            cap(v)
        )),
        2 => out.push_str(&format!(
            "    if {w}.is_empty() {{ return Err(Error::Missing(\"{v}\")); }}"
        )),
        3 => out.push_str(&format!(
            "def {w}_{v}(self, {v}: int = {}) -> dict:",
            rng.range(0, 999)
        )),
        4 => out.push_str(&format!(
            "        return {{\"{w}\": self.{v}, \"count\": len(self.{w}s)}}"
        )),
        5 => out.push_str(&format!(
            "export async function {w}{}(req: Request): Promise<{}> {{",
            cap(v),
            cap(w)
        )),
        6 => out.push_str(&format!(
            "  const {w} = await db.query(`SELECT * FROM {v} WHERE id = $1`, [id]);"
        )),
        7 => out.push_str(&format!("// TODO: {} {} {}", w, v, rng.pick(EN))),
        8 => out.push_str(&format!(
            "    {w}.insert(\"{v}\".to_string(), {});",
            rng.range(0, 65535)
        )),
        _ => out.push('}'),
    }
}

fn cap(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Source code of about `bytes` bytes; with `numbered`, in the `cat -n` shape a Read tool returns.
pub fn code(rng: &mut Rng, bytes: usize, numbered: bool) -> String {
    let mut s = String::with_capacity(bytes + 128);
    let mut n = 1;
    while s.len() < bytes {
        if numbered {
            s.push_str(&format!("{n:>6}\t"));
        }
        code_line(rng, &mut s);
        s.push('\n');
        n += 1;
    }
    s
}

/// Build / test log of about `bytes` bytes, optionally ending in a failure.
pub fn shell_log(rng: &mut Rng, bytes: usize, fail: bool) -> String {
    let mut s = String::with_capacity(bytes + 512);
    while s.len() < bytes {
        match rng.range(0, 5) {
            0 => s.push_str(&format!(
                "   Compiling {}-{} v0.{}.{}\n",
                rng.pick(EN),
                rng.pick(EN),
                rng.range(1, 30),
                rng.range(0, 9)
            )),
            1 => s.push_str(&format!(
                "test {}::{}_{} ... ok\n",
                rng.pick(EN),
                rng.pick(EN),
                rng.pick(EN)
            )),
            2 => s.push_str(&format!(
                "{}:{}:{}: warning: unused variable `{}`\n",
                rel_path(rng),
                rng.range(1, 900),
                rng.range(1, 80),
                rng.pick(EN)
            )),
            3 => s.push_str(&format!(
                "[{:02}:{:02}:{:02}] INFO {} {} in {}ms\n",
                rng.range(0, 23),
                rng.range(0, 59),
                rng.range(0, 59),
                rng.pick(EN),
                rng.pick(EN),
                rng.range(1, 4000)
            )),
            _ => s.push_str(&format!(
                "-rw-r--r-- 1 dev dev {:>7} Nov {:>2} 12:{:02} {}\n",
                rng.range(10, 900_000),
                rng.range(1, 30),
                rng.range(0, 59),
                rel_path(rng)
            )),
        }
    }
    if fail {
        s.push_str(&error_trace(rng));
    }
    s
}

/// An error trace: a Rust panic, a Python traceback or a Node stack.
pub fn error_trace(rng: &mut Rng) -> String {
    let p = rel_path(rng);
    match rng.range(0, 2) {
        0 => format!(
            "thread 'main' panicked at {}:{}:{}:\ncalled `Result::unwrap()` on an `Err` value: {} error: connection refused (os error 111)\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\nerror: test failed, to rerun pass `--lib`\n",
            p,
            rng.range(1, 900),
            rng.range(1, 80),
            cap(rng.pick::<&str>(EN))
        ),
        1 => format!(
            "Traceback (most recent call last):\n  File \"/home/dev/src/app/{}\", line {}, in {}\n    result = self.{}(payload)\n  File \"/usr/lib/python3.12/json/decoder.py\", line 355, in raw_decode\n    raise JSONDecodeError(\"Expecting value\", s, err.value) from None\njson.decoder.JSONDecodeError: Expecting value: line 1 column {} (char {})\n",
            p,
            rng.range(1, 900),
            rng.pick(EN),
            rng.pick(EN),
            rng.range(1, 200),
            rng.range(0, 5000)
        ),
        _ => format!(
            "TypeError: Cannot read properties of undefined (reading '{}')\n    at {} (/home/dev/src/web/{}:{}:{})\n    at processTicksAndRejections (node:internal/process/task_queues:95:5)\nnpm ERR! code ELIFECYCLE\nnpm ERR! errno 1\n",
            rng.pick(EN),
            rng.pick(EN),
            p,
            rng.range(1, 900),
            rng.range(1, 80)
        ),
    }
}

/// One very long line (minified JSON / a base64 blob / a long URL list), about `bytes` bytes.
pub fn long_line(rng: &mut Rng, bytes: usize) -> String {
    if rng.chance(0.5) {
        let mut s = String::with_capacity(bytes + 64);
        s.push('{');
        let mut i = 0;
        while s.len() < bytes {
            s.push_str(&format!(
                "\"{}{}\":{},",
                rng.pick(EN),
                i,
                rng.range(0, 1 << 30)
            ));
            i += 1;
        }
        s.push_str("\"end\":true}");
        s
    } else {
        rng.blob(bytes)
    }
}

/// A tool output of about `bytes` bytes of a random shape.
pub fn tool_output(rng: &mut Rng, bytes: usize, fail: bool) -> String {
    let mut out = match rng.range(0, 9) {
        0..=2 => shell_log(rng, bytes, false),
        3..=5 => code(rng, bytes, true),
        6 => long_line(rng, bytes),
        7 => prose(rng, Lang::En, bytes),
        _ => {
            let mut s = String::new();
            while s.len() < bytes {
                s.push_str(&format!(
                    "{}:{}:{}\n",
                    rel_path(rng),
                    rng.range(1, 2000),
                    code(rng, 40, false).trim_end()
                ));
            }
            s
        }
    };
    if fail {
        out.push_str(&error_trace(rng));
    }
    out
}

/// A user prompt (mostly short; some with pasted logs), in English or Chinese.
pub fn prompt(rng: &mut Rng, lang: Lang) -> String {
    let len = rng.lognormal(140.0, 0.9).clamp(12.0, 6000.0) as usize;
    let mut p = prose(rng, lang, len);
    if rng.chance(0.08) {
        p.push_str("\n\n```\n");
        p.push_str(&error_trace(rng));
        p.push_str("```\n");
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_reached() {
        let mut r = Rng::new(3);
        assert!(prose(&mut r, Lang::Zh, 500).len() >= 500);
        assert!(tool_output(&mut r, 10_000, true).len() >= 10_000);
        assert!(ZH.contains(&"会话"));
    }
}
