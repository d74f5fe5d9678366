//! Recall and false-positive counts on a corpus generated here from a fixed seed.
//!
//! Secrets: every detector's kind, with bodies drawn at random in the provider's documented
//! format, embedded in prompts, tool arguments (a `serde_json::Value` walked by
//! `redact_json`), tool arguments under identifier keys (`code`, `to`, `path`, `id`, … walked
//! by `redact_json_with_ids` with scry's identifier keys), tool output, and raw JSON lines
//! where the secret sits next to `\n` / `\"` escapes (also JSON inside a JSON string).
//! Recall = secrets whose every piece is gone from the output / all secrets; it must be 100 %.
//!
//! Clean text: `fixtures/clean.txt` (ordinary code, commands, configs, logs, prose written by
//! hand, including near misses such as `token = lexer.next_token()`), plus generated git
//! hashes, sha256 digests, UUIDs, base64 images (data URIs and Claude-style image blocks) and
//! prose. Every line is checked as plain text and as a raw JSON string; false positives must
//! be zero. Identifiers that only look random (paging cursors, paths with random segments)
//! must stay as they are under identifier keys.

mod common;

use common::Rng;
use scry_redact::{find, redact, redact_json, redact_json_with_ids};
use serde_json::{json, Value};

/// One planted secret: the text around it and the pieces that must not survive.
struct Case {
    label: &'static str,
    text: String,
    pieces: Vec<String>,
}

fn case(label: &'static str, text: String, secret: &str) -> Case {
    Case {
        label,
        text,
        pieces: vec![secret.to_string()],
    }
}

/// The same secret in a prompt, a tool output and a `.env`-style line.
fn in_contexts(label: &'static str, secret: &str, rng: &mut Rng) -> Vec<Case> {
    let prompts = [
        format!("Here is my key {secret}, please set up the client with it."),
        format!("can you check why `{secret}` gets a 401 from the API?"),
        format!("I pasted it below:\n{secret}\nthanks"),
    ];
    let outputs = [
        format!("$ cat .env\nNODE_ENV=development\nSERVICE_CREDENTIAL={secret}\nPORT=3000\n"),
        format!("config loaded: {{\"endpoint\": \"https://api.example.com\", \"credential\": \"{secret}\"}}"),
        format!("Wrote settings.yaml\n  auth:\n    value: {secret}\n"),
    ];
    vec![
        case(label, rng.pick(&prompts).clone(), secret),
        case(label, rng.pick(&outputs).clone(), secret),
    ]
}

fn secrets(rng: &mut Rng) -> Vec<Case> {
    let mut cases = Vec::new();
    for _ in 0..3 {
        // OpenAI legacy: sk- + 48 alphanumerics; project keys sk-proj- + 156 of [A-Za-z0-9_-].
        let legacy = format!("sk-{}", rng.alnum(48));
        cases.extend(in_contexts("openai", &legacy, rng));
        let proj = format!("sk-proj-{}", rng.b64url(156));
        cases.extend(in_contexts("openai-proj", &proj, rng));
        // Anthropic: sk-ant-api03- + 93 + AA.
        let ant = format!("sk-ant-api03-{}AA", rng.b64url(93));
        cases.extend(in_contexts("anthropic", &ant, rng));
        // Google: AIza + 35.
        let google = format!("AIza{}", rng.b64url(35));
        cases.extend(in_contexts("google", &google, rng));
        // GitHub classic and fine-grained.
        let prefix = rng
            .pick(&["ghp_", "gho_", "ghu_", "ghs_", "ghr_"])
            .to_string();
        let gh = format!("{prefix}{}", rng.alnum(36));
        cases.extend(in_contexts("github", &gh, rng));
        let pat = format!("github_pat_{}_{}", rng.alnum(22), rng.alnum(59));
        cases.extend(in_contexts("github-pat", &pat, rng));
        // GitLab.
        let gl = format!("glpat-{}", rng.b64url(20));
        cases.extend(in_contexts("gitlab", &gl, rng));
        // Slack bot token: xoxb-<team>-<bot>-<24 alnum>.
        let slack = format!(
            "xoxb-{}-{}-{}",
            rng.digits(12),
            rng.digits(13),
            rng.alnum(24)
        );
        cases.extend(in_contexts("slack", &slack, rng));
        // Stripe.
        let stripe_prefix = rng.pick(&["sk_live_", "rk_live_", "sk_test_"]).to_string();
        let stripe = format!("{stripe_prefix}{}", rng.alnum(99));
        cases.extend(in_contexts("stripe", &stripe, rng));
        // AWS access key id.
        let aws_prefix = rng.pick(&["AKIA", "ASIA"]).to_string();
        let akid = format!("{aws_prefix}{}", rng.upper_digits(16));
        cases.extend(in_contexts("aws-key-id", &akid, rng));
        // JWT: header {"alg":"HS256","typ":"JWT"}, random payload and signature.
        let jwt = format!(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{}.{}",
            rng.b64url(60),
            rng.b64url(43)
        );
        cases.extend(in_contexts("jwt", &jwt, rng));
        // npm, Hugging Face.
        let npm = format!("npm_{}", rng.alnum(36));
        cases.extend(in_contexts("npm", &npm, rng));
        let hf = format!("hf_{}", rng.alnum(34));
        cases.extend(in_contexts("huggingface", &hf, rng));

        // Lower-case keys (issue 15): DeepSeek `sk-` + 32 hex, a generic `sk-live-…` with a
        // lower-case body, Stripe keys with lower-case bodies, publishable and restricted.
        let deepseek = format!("sk-{}", rng.hex(32));
        cases.extend(in_contexts("deepseek", &deepseek, rng));
        let mode = rng.pick(&["live", "prod", "test"]).to_string();
        let lower = format!("sk-{mode}-{}", rng.lower_digits(24));
        cases.extend(in_contexts("sk-lower", &lower, rng));
        cases.extend(in_contexts(
            "sk-lower",
            "sk-live-abc123def456ghi789jkl",
            rng,
        ));
        let stripe_lower = format!(
            "{}{}",
            rng.pick(&["sk_live_", "rk_live_", "pk_live_", "pk_test_"]),
            rng.lower_digits(24)
        );
        cases.extend(in_contexts("stripe", &stripe_lower, rng));
        // Other providers' prefixed keys (many with lower-case hex bodies).
        let others = [
            format!("sk-or-v1-{}", rng.hex(64)),
            format!("dop_v1_{}", rng.hex(64)),
            format!("shpat_{}", rng.hex(32)),
            format!("sbp_{}", rng.hex(40)),
            format!("dapi{}", rng.hex(32)),
            format!("sntryu_{}", rng.hex(64)),
            format!("lin_api_{}", rng.alnum(40)),
            format!("pplx-{}", rng.alnum(48)),
            format!("r8_{}", rng.alnum(37)),
            format!("SG.{}.{}", rng.b64url(22), rng.b64url(43)),
            format!("PMAK-{}-{}", rng.hex(24), rng.hex(34)),
            format!("pul-{}", rng.hex(40)),
            format!("glsa_{}_{}", rng.alnum(32), rng.hex(8)),
            format!("{}.atlasv1.{}", rng.alnum(14), rng.b64url(67)),
        ];
        for key in &others {
            cases.extend(in_contexts("api-key", key, rng));
        }
        let slack_prefix = rng.pick(&["xoxc-", "xoxd-", "xapp-1-"]).to_string();
        let slack2 = format!("{slack_prefix}{}-{}", rng.digits(12), rng.alnum(32));
        cases.extend(in_contexts("slack", &slack2, rng));
        let a3t = format!("A3T{}{}", rng.upper_digits(1), rng.upper_digits(16));
        cases.extend(in_contexts("aws-key-id", &a3t, rng));

        // Context-dependent kinds.
        let aws_secret = rng.b64std(40);
        cases.push(case(
            "aws-secret",
            format!(
                "[default]\naws_access_key_id = AKIA{}\naws_secret_access_key = {aws_secret}\n",
                rng.upper_digits(16)
            ),
            &aws_secret,
        ));
        let bearer = rng.b64url(40);
        cases.push(case(
            "bearer",
            format!("curl -H \"Authorization: Bearer {bearer}\" https://api.example.com/v1/me"),
            &bearer,
        ));
        let basic = rng.b64std(28);
        cases.push(case(
            "basic",
            format!("Authorization: Basic {basic}\nAccept: */*"),
            &basic,
        ));
        let pw = format!("{}{}!{}", rng.alnum(6), rng.digits(2), rng.alnum(4));
        cases.push(case(
            "url-password",
            format!("DATABASE_URL=postgres://app:{pw}@db.internal:5432/app_prod"),
            &pw,
        ));
        let pw2 = rng.alnum(16);
        cases.push(case(
            "url-password",
            format!("git remote add origin https://deploy:{pw2}@git.example.com/team/repo.git"),
            &pw2,
        ));
        let env_value = rng.alnum(32);
        let name = rng
            .pick(&[
                "STRIPE_WEBHOOK_SECRET",
                "SENTRY_AUTH_TOKEN",
                "DB_PASSWORD",
                "JWT_SIGNING_KEY",
            ])
            .to_string();
        cases.push(case(
            "env",
            format!("export {name}={env_value}"),
            &env_value,
        ));
        let yaml_value = format!("{}{}", rng.alnum(10), rng.digits(4));
        cases.push(case(
            "yaml",
            format!("smtp:\n  host: mail.example.com\n  password: {yaml_value}\n  port: 587\n"),
            &yaml_value,
        ));
        // YAML with a letters-only value under a lower-case key (the old blind spot).
        let word = rng
            .pick(&["supersecret", "hunterhunter", "letmeinplease", "opensesame"])
            .to_string();
        cases.push(case(
            "yaml-word",
            format!("db:\n  user: app\n  password: {word}\n  pool: 5\n"),
            &word,
        ));
        let json_value = rng.alnum(24);
        cases.push(case(
            "json",
            format!("{{\"client_id\": \"web\", \"client_secret\": \"{json_value}\"}}"),
            &json_value,
        ));
        let high = rng.alnum(40);
        cases.push(case(
            "high-entropy",
            format!("the signing value is {high} (rotate monthly)"),
            &high,
        ));
        // PEM private key: every body line must go.
        let body: Vec<String> = (0..6).map(|_| rng.b64std(64)).collect();
        let pem = format!(
            "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----",
            body.join("\n")
        );
        cases.push(Case {
            label: "pem",
            text: format!("Here is the deploy key:\n{pem}\nSave it as id_rsa."),
            pieces: body.clone(),
        });
        // … and one cut short by a truncated tool output.
        cases.push(Case {
            label: "pem-truncated",
            text: format!(
                "$ cat ~/.ssh/id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n{}\n[output truncated]",
                body[0], body[1]
            ),
            pieces: body[..2].to_vec(),
        });
    }
    cases
}

/// The kind each planted secret must be reported as.
fn expected_kind(label: &str) -> &'static str {
    match label {
        "openai" | "openai-proj" => "openai_key",
        "deepseek" => "deepseek_key",
        "sk-lower" | "api-key" => "api_key",
        "anthropic" => "anthropic_key",
        "google" => "google_api_key",
        "github" | "github-pat" => "github_token",
        "gitlab" => "gitlab_token",
        "slack" => "slack_token",
        "stripe" => "stripe_key",
        "aws-key-id" => "aws_access_key_id",
        "aws-secret" => "aws_secret_access_key",
        "jwt" => "jwt",
        "npm" => "npm_token",
        "huggingface" => "huggingface_token",
        "bearer" => "bearer_token",
        "basic" => "authorization",
        "url-password" => "url_password",
        "env" | "yaml" | "yaml-word" | "json" => "secret_assignment",
        "high-entropy" => "high_entropy",
        "pem" | "pem-truncated" => "private_key",
        other => panic!("no expected kind for {other}"),
    }
}

/// The identifier keys of scry's JSON answers (the list serve, MCP and export pass).
const ID_KEYS: &[&str] = scry_redact::ANSWER_ID_KEYS;

/// Whether a planted secret is recognizable on its own, without the words around it.
fn self_identifying(label: &str) -> bool {
    !matches!(
        label,
        "aws-secret"
            | "bearer"
            | "basic"
            | "url-password"
            | "env"
            | "yaml"
            | "yaml-word"
            | "json"
            | "high-entropy"
            | "pem"
            | "pem-truncated"
    )
}

/// Checks one redacted output against the pieces that must be gone.
fn leaks(out: &str, pieces: &[String]) -> bool {
    pieces.iter().any(|p| out.contains(p.as_str()))
}

#[test]
fn recall_is_total() {
    let mut rng = Rng::new(0x005c_277e_d4c7_u64);
    let cases = secrets(&mut rng);
    let mut total = 0usize;
    let mut missed = Vec::new();
    let mut kinds = std::collections::BTreeSet::new();
    for c in &cases {
        kinds.insert(c.label);
        // 1. Plain text (a prompt, a tool output), named by the right detector.
        total += 1;
        let (out, _) = redact(&c.text);
        if leaks(&out, &c.pieces) {
            missed.push(format!("[text/{}] {}", c.label, out));
        }
        let marker = format!("[redacted:{}]", expected_kind(c.label));
        assert!(
            out.contains(&marker),
            "[{}] expected {marker} in {out}",
            c.label
        );
        // 2. Tool arguments: the text as a string argument, plus JSON-in-a-string.
        total += 1;
        let mut args = json!({
            "command": c.text,
            "options": {"input": serde_json::to_string(&json!({"data": c.text})).unwrap_or_default()},
        });
        redact_json(&mut args);
        let args_out = args.to_string();
        let decoded = args["options"]["input"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if leaks(&args_out, &c.pieces) || leaks(&decoded, &c.pieces) {
            missed.push(format!("[args/{}] {}", c.label, args_out));
        }
        // 2b. Tool arguments under identifier keys (issue 15: `code`, `to`, `path`, `id`,
        // … were exempt at every depth): scanned like any other string. A secret that names
        // itself (a provider key, a JWT) goes even bare or inside a path.
        total += 1;
        let mut call = json!({
            "uri": "claude:4f1c2a9e-7b3d-4c8e-9a21-5d6e7f809a1b",
            "args": {"code": c.text, "to": c.text, "id": c.text, "cwd": c.text,
                     "model": c.text, "index": [c.text], "file": {"path": c.text}},
        });
        if self_identifying(c.label) {
            let piece = &c.pieces[0];
            call["args"]["path"] = json!(format!("/tmp/{piece}/settings.json"));
            call["args"]["ref"] = json!(piece);
        }
        redact_json_with_ids(&mut call, ID_KEYS);
        let call_out = call.to_string();
        if leaks(&call_out, &c.pieces) {
            missed.push(format!("[id-args/{}] {}", c.label, call_out));
        }
        // 3. A raw JSON line (what `--raw` shows): escapes `\n`, `\"` surround the secret.
        total += 1;
        let raw = json!({"type": "tool_result", "content": c.text}).to_string();
        let (out, _) = redact(&raw);
        if leaks(&out, &c.pieces) {
            missed.push(format!("[raw/{}] {}", c.label, out));
        }
        // The redacted raw line is still valid JSON.
        assert!(
            serde_json::from_str::<Value>(&out).is_ok(),
            "redaction broke JSON: {out}"
        );
    }
    let secrets_planted = cases.len();
    let found = total - missed.len();
    println!(
        "recall: {found}/{total} placements of {secrets_planted} secrets ({} kinds) redacted",
        kinds.len()
    );
    assert!(secrets_planted >= 50, "corpus too small: {secrets_planted}");
    assert!(
        missed.is_empty(),
        "missed {}:\n{}",
        missed.len(),
        missed.join("\n")
    );
}

/// Clean lines: the hand-written fixture plus generated hashes, ids, images and prose.
fn clean_lines(rng: &mut Rng) -> Vec<String> {
    let fixture = include_str!("fixtures/clean.txt");
    let mut lines: Vec<String> = fixture
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    for i in 0..30 {
        let sha = rng.hex(40);
        lines.push(format!("commit {sha}"));
        lines.push(format!(
            "{} fix: handle torn tail in line reader (#{})",
            &sha[..7],
            100 + i
        ));
    }
    for _ in 0..20 {
        lines.push(format!("{}  target/release/scry", rng.hex(64)));
        lines.push(format!("\"sha256\": \"{}\",", rng.hex(64)));
    }
    for _ in 0..20 {
        let u = rng.uuid();
        lines.push(format!(
            "/home/demo/.claude/projects/-home-demo-webapp/{u}.jsonl"
        ));
        lines.push(format!("{{\"sessionId\":\"{u}\",\"type\":\"user\"}}"));
        lines.push(rng.uuid().to_uppercase());
    }
    for _ in 0..10 {
        let png = rng.png_base64(600);
        lines.push(format!(
            "<img src=\"data:image/png;base64,{png}\" alt=\"chart\">"
        ));
        lines.push(format!(
            "{{\"type\":\"image\",\"source\":{{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"{png}\"}}}}"
        ));
        let jpeg = rng.jpeg_base64(900);
        lines.push(format!("data:image/jpeg;base64,{jpeg}"));
    }
    let words = [
        "the", "session", "index", "reads", "files", "from", "disk", "and", "never", "writes",
        "them", "tokens", "are", "counted", "per", "request", "so", "totals", "match", "provider",
        "reports", "a", "torn", "tail", "is", "kept", "for", "later",
    ];
    for _ in 0..20 {
        let n = 8 + rng.below(12);
        let s: Vec<&str> = (0..n).map(|_| *rng.pick(&words)).collect();
        lines.push(format!("{}.", s.join(" ")));
    }
    lines
}

#[test]
fn clean_text_untouched() {
    let mut rng = Rng::new(0x00dd_ba11);
    let lines = clean_lines(&mut rng);
    let mut fps = Vec::new();
    for line in &lines {
        let f = find(line);
        if !f.is_empty() {
            fps.push(format!("{line}  →  {f:?}"));
            continue;
        }
        let raw = Value::String(line.clone()).to_string();
        let f = find(&raw);
        if !f.is_empty() {
            fps.push(format!("[raw] {raw}  →  {f:?}"));
        }
        let mut v: Value = serde_json::from_str(line).unwrap_or(Value::String(line.clone()));
        let f = redact_json(&mut v);
        if !f.is_empty() {
            fps.push(format!("[json] {line}  →  {f:?}"));
        }
    }
    println!("false positives: {}/{} clean lines", fps.len(), lines.len());
    assert!(
        lines.len() >= 200,
        "clean corpus too small: {}",
        lines.len()
    );
    assert!(fps.is_empty(), "false positives:\n{}", fps.join("\n"));
}

#[test]
fn identifiers_untouched_under_id_keys() {
    let mut rng = Rng::new(0x1d5_c0de);
    let mut total = 0;
    let mut changed = Vec::new();
    for _ in 0..40 {
        // A scry cursor (`c1` + 54 URL-safe base64), as the CLI and MCP give it.
        let cursor = format!("c1{}", rng.b64url(54));
        let random_dir = rng.alnum(32);
        let u = rng.uuid();
        let doc = json!({
            "uri": format!("claude:{u}"),
            "id": u,
            "next_cursor": cursor,
            "page": {"next_cursor": format!("n.{cursor}")},
            "cursor": format!("g.{}.{}", rng.below(500), rng.hex(16)),
            "sources": [format!("/tmp/{random_dir}/{u}.jsonl"), format!("/home/demo/.claude/projects/-home-demo/{u}.jsonl")],
            "cwd": format!("/work/{random_dir}"),
            "created": "2026-11-30T16:08:20.948Z",
            "fingerprint": rng.hex(16),
            "git_commit": rng.hex(40),
            "session": {"uri": "opencode:ses_dd2c91f2cffe1k0KCFlrrjigz1", "locator": "id:prt_22d36e8d2001y6D1Cm2w6cY3dT#0"},
        });
        let mut v = doc.clone();
        let f = redact_json_with_ids(&mut v, ID_KEYS);
        total += 1;
        if v != doc {
            changed.push(format!("{doc}  →  {f:?}"));
        }
    }
    println!("identifier documents changed: {}/{total}", changed.len());
    assert!(
        changed.is_empty(),
        "identifiers redacted:\n{}",
        changed.join("\n")
    );
}
